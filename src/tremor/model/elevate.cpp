#include "tremor/model/elevate.hpp"

#include <cmath>

#include "tremor/backend/memory.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/mesh/elevate.hpp"

namespace tremor {

std::size_t elevated_bytes(const Mesh& mesh, int order) {
  const int dim = mesh.dim();
  const int n_corners = dim == 3 ? 8 : 4;
  double cells = 0.0, corners = 0.0;
  std::vector<char> corner(static_cast<std::size_t>(mesh.n_nodes()), 0);
  for (int b = 0; b < static_cast<int>(mesh.blocks.size()); ++b) {
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(b)];
    if (block.n_elements() == 0) continue;
    cells += static_cast<double>(block.n_elements());
    const OrderElevation::Layout layout = OrderElevation::layout(mesh, b, "the mesh");
    for (Index e = 0; e < block.n_elements(); ++e) {
      const auto nodes = block.nodes(e);
      for (int a = 0; a < n_corners; ++a)
        corner[static_cast<std::size_t>(nodes[static_cast<std::size_t>(layout.corner[static_cast<std::size_t>(a)])])] = 1;
    }
  }
  for (const char c : corner) corners += c;
  const double p = order - 1.0;
  const double faces = dim == 3 ? 3.0 * cells : 0.0;
  const double edges = dim == 3 ? corners + faces - cells - 1.0 : 2.0 * cells;
  const double nodes = corners + edges * p + (dim == 3 ? faces * p * p + cells * p * p * p : cells * p * p);
  const double per_element = std::pow(order + 1.0, dim);
  // Per node: coordinates and label; per element: connectivity and the work on its edges and faces
  // (18 in 3D, 4 in 2D: a key, its owner, its first node and a flag each, about 40 bytes).
  const double bytes = nodes * static_cast<double>(dim * sizeof(double) + sizeof(Label)) +
                       cells * per_element * static_cast<double>(sizeof(Index)) +
                       cells * (dim == 3 ? 18.0 : 4.0) * 40.0;
  return static_cast<std::size_t>(bytes);
}

void check_elevation_fits(const Mesh& mesh, int order, std::string_view where) {
  std::size_t needed = 0;
  try {
    needed = elevated_bytes(mesh, order);
  } catch (const Error&) {
    return;  // element types the elevation refuses, which it names
  }
  const memory::HostAvailable available = memory::host_available();
  if (available.known() && needed > available.bytes)
    throw Error(str(where, ": raising the mesh (", group_digits(mesh.n_elements()), " elements) to GLL order ", order,
                    " needs about ", si(static_cast<double>(needed)), "B of host memory (estimate), more than the ",
                    available.by, "; lower the order, coarsen the mesh or run where there is more memory"));
}

void elevate_order(Model& model, int order) {
  check_elevation_fits(model.mesh, order, model.mesh_source());
  OrderElevation elevation(model.mesh, order, model.mesh_source());
  const auto map = [&](std::vector<Index>& nodes) {
    if (!nodes.empty()) nodes = elevation.map_nodes(nodes);
  };
  for (FixedDof& fixed : model.fixed) map(fixed.nodes);
  for (NodalLoad& load : model.loads) map(load.nodes);
  for (HistoryOutput& history : model.histories) map(history.nodes);
  for (PointSource& source : model.point_sources) map(source.nodes);
  for (PrescribedDisplacement& prescribed : model.prescribed) map(prescribed.nodes);
  for (Receiver& receiver : model.receivers) map(receiver.nodes);
  if (model.output) map(model.output->snapshot_nodes);
  model.mesh = elevation.take_mesh();
}

}  // namespace tremor
