#include "tremor/fem/point_sources.hpp"

#include <cmath>

#include "tremor/core/error.hpp"
#include "tremor/fem/coupling.hpp"
#include "tremor/fem/locate.hpp"

namespace tremor::fem {

namespace {

std::string named(const PointSource& source) {
  const char* what = source.moment ? "moment tensor" : source.volume ? "volume source" : "point force";
  return source.name.empty() ? str("the ", what) : str("the ", what, " '", source.name, "'");
}

}  // namespace

std::vector<PointSource> placed_sources(const Model& model, const bool volumes) {
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  // The points of this kind's sources at positions, located in one pass over the elements they act in.
  std::vector<std::optional<Location>> where(model.point_sources.size());
  std::vector<std::array<double, 3>> points;
  std::vector<std::size_t> which;
  for (std::size_t s = 0; s < model.point_sources.size(); ++s) {
    const PointSource& source = model.point_sources[s];
    if (!source.nodes.empty() || source.volume != volumes) continue;
    TREMOR_CHECK(source.position.has_value(), source.origin, ": ", named(source), " has neither nodes nor a position");
    points.push_back(*source.position);
    which.push_back(s);
  }
  if (!points.empty()) {
    std::vector<bool> among;
    if (model.has_fluids()) {
      const std::vector<bool> fluid = fluid_elements(model);
      among.resize(fluid.size());
      for (std::size_t e = 0; e < fluid.size(); ++e) among[e] = fluid[e] == volumes;
    }
    std::vector<std::optional<Location>> found = locate_all(mesh, points, among);
    for (std::size_t k = 0; k < which.size(); ++k) {
      const PointSource& source = model.point_sources[which[k]];
      if (!found[k]) {
        const std::string at = format_position(points[k], dim);
        if (!among.empty() && locate(mesh, std::span<const double>(points[k].data(), 3)))
          throw Error(str(source.origin, ": ", named(source), " at ", at, " lies in a ",
                          volumes ? "solid element: a volume source acts in a fluid"
                                  : "fluid element: forces act on solids (a fluid takes a volume source)"));
        throw Error(str(source.origin, ": ", named(source), " at ", at,
                        " lies in no element of the mesh (inside its bounding box, in a hole or a notch, or off a "
                        "curved boundary)"));
      }
      where[which[k]] = std::move(found[k]);
    }
  }
  std::vector<PointSource> out;
  out.reserve(model.point_sources.size());
  for (std::size_t s = 0; s < model.point_sources.size(); ++s) {
    const PointSource& source = model.point_sources[s];
    if (source.volume != volumes) continue;
    if (!where[s]) {
      out.push_back(source);
      continue;
    }
    const Location& location = *where[s];
    if (!source.moment) {
      // N_a(x0), less the values Newton's inversion leaves at rounding's level (|N_a| < 1e-10 of
      // their sum, 1): a point at a node is that node's alone, weight 1, as a force on it would be.
      PointSource force = source;
      force.nodes.clear();
      force.weights.clear();
      for (std::size_t a = 0; a < location.nodes.size(); ++a)
        if (std::abs(location.weights[a]) >= 1e-10) {
          force.nodes.push_back(location.nodes[a]);
          force.weights.push_back(location.weights[a]);
        }
      if (force.nodes.size() == 1) force.weights[0] = 1.0;
      out.push_back(std::move(force));
      continue;
    }
    // M grad N_a: component i of node a's force, M_ij dN_a/dx_j, one force along each axis.
    const std::array<double, 6>& m = *source.moment;
    const double M[3][3] = {{m[0], m[3], m[4]}, {m[3], m[1], m[5]}, {m[4], m[5], m[2]}};
    const std::vector<double> gradients = shape_gradients(mesh, location);
    for (int i = 0; i < dim; ++i) {
      PointSource force = source;
      force.moment.reset();
      force.direction = {0.0, 0.0, 0.0};
      force.direction[static_cast<std::size_t>(i)] = 1.0;
      force.nodes = location.nodes;
      force.weights.assign(location.nodes.size(), 0.0);
      for (std::size_t a = 0; a < location.nodes.size(); ++a)
        for (int j = 0; j < dim; ++j)
          force.weights[a] += M[i][j] * gradients[a * static_cast<std::size_t>(dim) + static_cast<std::size_t>(j)];
      out.push_back(std::move(force));
    }
  }
  return out;
}

}  // namespace tremor::fem
