#include "tremor/fem/loads.hpp"

#include <algorithm>
#include <map>
#include <span>
#include <string>

#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/fem/faces.hpp"
#include "tremor/model/material_field.hpp"

namespace tremor::fem {

namespace {

const std::string& origin_of(const Model& model, const std::string& origin) {
  return origin.empty() ? model.source : origin;
}

}  // namespace

namespace {

// Each face of `faces` (of surface `surface`, named with `at` in messages): value(type, order,
// coordinates, values) writes `per` values per face node of it, which are summed per node into the
// result, times the section's thickness in 2D, as (node * per + k, sum) where the sum is not 0.
template <class Value>
std::vector<std::pair<Index, double>> face_sums(const Model& model, std::span<const Face> faces, int per,
                                                const std::string& at, const std::string& surface, Value&& value) {
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  std::vector<int> section;
  if (dim == 2) section = model.element_sections();
  std::map<Index, double> sum;
  std::vector<double> coordinates, values;
  for (const Face& face : faces) {
    TREMOR_CHECK(face.element >= 0 && face.element < mesh.n_elements(), at, ": surface '", surface,
                 "' refers to element index ", face.element, " out of range");
    const ElementRef ref = mesh.locate(face.element);
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
    const auto nodes = block.nodes(ref.element);
    int local[max_face_nodes];
    const int n = face_nodes(block.type, block.order, face.face, local);
    coordinates.clear();
    for (int a = 0; a < n; ++a)
      for (double x : mesh.node(nodes[static_cast<std::size_t>(local[a])])) coordinates.push_back(x);
    try {
      value(face_type(block.type), block.order, coordinates, values);
    } catch (const Error& error) {
      throw Error(str(at, ": surface '", surface, "', face ", face.face, " of element ",
                      mesh.element_label(face.element), ": ", error.what()));
    }
    double thickness = 1.0;
    if (dim == 2) {
      const int s = section[static_cast<std::size_t>(face.element)];
      if (s >= 0) thickness = model.sections[static_cast<std::size_t>(s)].thickness;
    }
    for (int a = 0; a < n; ++a) {
      const Index node = nodes[static_cast<std::size_t>(local[a])];
      for (int k = 0; k < per; ++k) sum[node * per + k] += thickness * values[static_cast<std::size_t>(a * per + k)];
    }
  }
  std::vector<std::pair<Index, double>> out;
  for (const auto& [key, total] : sum)
    if (total != 0.0) out.emplace_back(key, total);
  return out;
}

}  // namespace

std::vector<std::pair<Index, double>> surface_forces(const Model& model, const SurfaceLoad& load) {
  const int dim = model.mesh.dim();
  return face_sums(model, load.faces, dim, origin_of(model, load.origin), load.surface,
                   [&](FaceType type, int order, const std::vector<double>& x, std::vector<double>& forces) {
                     if (load.pressure)
                       pressure_forces(type, order, dim, x, *load.pressure, forces);
                     else
                       traction_forces(type, order, dim, x, load.traction, forces);
                   });
}

std::vector<std::pair<Index, double>> piston_areas(const Model& model, const Transducer& piston) {
  const int dim = model.mesh.dim();
  const std::span<const double> centre(piston.position.data(), static_cast<std::size_t>(dim));
  return face_sums(model, piston.piston_faces, 1, origin_of(model, piston.origin), piston.surface,
                   [&](FaceType type, int order, const std::vector<double>& x, std::vector<double>& areas) {
                     if (piston.array.empty())
                       disc_weights(type, order, dim, x, centre, piston.radius, areas);
                     else  // an array's element: its whole faces
                       face_weights(type, order, dim, x, areas);
                   });
}

std::vector<std::pair<Index, double>> body_forces(const Model& model, const BodyForce& force) {
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  const std::string& at = origin_of(model, force.origin);
  const std::string what =
      force.element_set.empty() ? std::string("body force") : str("body force on '", force.element_set, "'");
  const bool needs_density = std::any_of(force.acceleration.begin(), force.acceleration.end(),
                                         [](double g) { return g != 0.0; });
  // Each element's density: its section's or its material field's sample (model/material_field.hpp).
  const ElementMaterials materials = needs_density ? element_materials(model) : ElementMaterials{};
  const std::vector<int> section = model.element_sections();
  std::vector<double> thickness;
  for (const Section& s : model.sections) thickness.push_back(dim == 2 ? s.thickness : 1.0);

  // Dense accumulation with a list of the DOFs touched: a body force usually covers most of the
  // mesh, where a map would cost a node allocation per DOF.
  std::vector<double> sum(static_cast<std::size_t>(mesh.n_nodes()) * static_cast<std::size_t>(dim), 0.0);
  std::vector<char> touched(sum.size(), 0);
  std::vector<Index> dofs;
  for (const Index e : force.elements) {
    TREMOR_CHECK(e >= 0 && e < mesh.n_elements(), at, ": ", what, " refers to element index ", e,
                 ", outside the mesh's ", mesh.n_elements(), " elements");
    const int s = section[static_cast<std::size_t>(e)];
    TREMOR_CHECK(s >= 0 || !needs_density, at, ": ", what, ": element ", mesh.element_label(e),
                 " has no section, so no density for the acceleration");
    const double rho = s >= 0 && needs_density ? materials.of(e)->density : 0.0;
    const double t = s >= 0 ? thickness[static_cast<std::size_t>(s)] : 1.0;
    // The load per unit volume, rho g + b, constant over the element.
    double q[3];
    bool zero = true;
    for (int c = 0; c < dim; ++c) {
      const auto k = static_cast<std::size_t>(c);
      q[c] = rho * force.acceleration[k] + force.force_per_volume[k];
      zero = zero && q[c] == 0.0;
    }
    if (zero) continue;
    const ElementRef ref = mesh.locate(e);
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
    const auto nodes = block.nodes(ref.element);
    with_element(block.type, block.order, [&](auto element) {
      using E = decltype(element);
      double x[E::n_nodes * E::dim], f[E::n_nodes * E::dim];
      mesh.element_coordinates(block, ref.element, x);
      const double min_det = element_body_force<E>(x, t, q, f);
      TREMOR_CHECK(min_det > 0.0, at, ": ", what, ": element ", mesh.element_label(e), " (",
                   element_name(block.type, block.order), ") is inverted or degenerate: det J = ", min_det);
      for (int a = 0; a < E::n_nodes; ++a)
        for (int c = 0; c < E::dim; ++c) {
          const auto dof = static_cast<std::size_t>(nodes[static_cast<std::size_t>(a)] * dim + c);
          sum[dof] += f[a * E::dim + c];
          if (!touched[dof]) {
            touched[dof] = 1;
            dofs.push_back(static_cast<Index>(dof));
          }
        }
    });
  }
  std::sort(dofs.begin(), dofs.end());
  std::vector<std::pair<Index, double>> out;
  out.reserve(dofs.size());
  for (const Index dof : dofs)
    if (const double value = sum[static_cast<std::size_t>(dof)]; value != 0.0) out.emplace_back(dof, value);
  return out;
}

}  // namespace tremor::fem
