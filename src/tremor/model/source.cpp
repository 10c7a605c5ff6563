#include "tremor/model/source.hpp"

#include <algorithm>
#include <cmath>

#include "tremor/backend/exec.hpp"
#include "tremor/core/error.hpp"
#include "tremor/model/model.hpp"

namespace tremor {

std::span<const std::string_view> static_preconditioners() {
  static constexpr auto kinds = names_of(preconditioner_names);
  return kinds;
}

std::span<const std::string_view> static_formats() {
  static constexpr auto kinds = names_of(static_format_names);
  return kinds;
}

std::span<const std::string_view> static_assemblies() {
  static constexpr auto kinds = names_of(static_assembly_names);
  return kinds;
}

std::span<const std::string_view> solver_backends() { return backend_choices; }

std::span<const std::string_view> solver_precisions() {
  static constexpr auto kinds = names_of(precision_names);
  return kinds;
}

std::string quoted_choices(std::span<const std::string_view> choices) {
  std::string out;
  for (std::size_t i = 0; i < choices.size(); ++i)
    out += str(i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ", "\"", choices[i], "\"");
  return out;
}

Index nearest_node(const Mesh& mesh, std::span<const double> position) {
  const auto dim = static_cast<std::size_t>(mesh.dim());
  TREMOR_CHECK(position.size() >= dim, "nearest_node: a position of ", position.size(), " coordinates in a ", dim,
               "D mesh");
  Index best = -1;
  double best_distance = 0.0;
  for (Index i = 0; i < mesh.n_nodes(); ++i) {
    const auto x = mesh.node(i);
    double distance = 0.0;
    for (std::size_t d = 0; d < dim; ++d) distance += (x[d] - position[d]) * (x[d] - position[d]);
    if (best < 0 || distance < best_distance) {
      best = i;
      best_distance = distance;
    }
  }
  return best;
}

namespace {

// Where messages about an item point: its origin, or the model's file.
const std::string& where(const std::string& origin, const Model& model) {
  return origin.empty() ? model.source : origin;
}

void check_nodes(const std::vector<Index>& nodes, const Mesh& mesh, const std::string& at, const char* what) {
  TREMOR_CHECK(!nodes.empty(), at, ": ", what, " has no node");
  for (Index n : nodes)
    TREMOR_CHECK(n >= 0 && n < mesh.n_nodes(), at, ": ", what, " refers to node index ", n, ", outside the mesh's ",
                 mesh.n_nodes(), " nodes");
}

bool one_of(const std::string& value, std::span<const std::string_view> choices) {
  return std::find(choices.begin(), choices.end(), value) != choices.end();
}

void check_delay(double delay, const std::string& at, const char* what) {
  TREMOR_CHECK(std::isfinite(delay) && delay >= 0.0, at, ": ", what, " has delay ", delay,
               "; expected a non-negative time");
}

// A point source: on nodes of the mesh or at a finite point; a moment tensor's components, or a
// force's direction; its amplitude, weights, delay and signal.
void check_point_source(const PointSource& source, const Model& model) {
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  const std::string& at = where(source.origin, model);
  if (source.nodes.empty() && source.position) {
    // Placed between nodes as the solvers set up (fem/point_sources.hpp).
    for (int d = 0; d < 3; ++d)
      TREMOR_CHECK(std::isfinite((*source.position)[static_cast<std::size_t>(d)]) &&
                       (d < dim || (*source.position)[static_cast<std::size_t>(d)] == 0.0),
                   at, ": point source position has a coordinate ", (*source.position)[static_cast<std::size_t>(d)],
                   d < dim ? " that is not finite" : " beyond the mesh's dimension");
  } else {
    check_nodes(source.nodes, mesh, at, "point source");
  }
  if (source.moment) {
    TREMOR_CHECK(!source.volume, at, ": a volume source has no moment tensor");
    TREMOR_CHECK(source.nodes.empty() && source.position, at, ": a moment tensor acts at a position, not at nodes");
    const std::array<double, 6>& m = *source.moment;
    double scalar = 0.0;
    for (std::size_t k = 0; k < 6; ++k) {
      TREMOR_CHECK(std::isfinite(m[k]), at, ": moment tensor component ", k + 1, " is not finite");
      scalar += (k < 3 ? 1.0 : 2.0) * m[k] * m[k];
    }
    TREMOR_CHECK(dim == 3 || (m[2] == 0.0 && m[4] == 0.0 && m[5] == 0.0), at,
                 ": a 2D model's moment tensor has M_xx, M_yy and M_xy alone (M_zz, M_xz, M_yz are not zero)");
    // M0 = sqrt(M:M / 2) (Silver & Jordan 1982): a tensor of zeros drives nothing.
    TREMOR_CHECK(scalar > 0.0, at, ": the moment tensor has a zero scalar moment (every component 0)");
  } else {
    double norm = 0.0;
    for (double c : source.direction) norm += c * c;
    TREMOR_CHECK(source.volume || (std::isfinite(norm) && norm > 0.0), at, ": point source direction is zero");
    TREMOR_CHECK(dim == 3 || source.direction[2] == 0.0, at,
                 ": point source direction has a z component in a 2D model");
  }
  TREMOR_CHECK(std::isfinite(source.amplitude), at, ": point source ", source.volume ? "volume" : "amplitude",
               " is not finite");
  TREMOR_CHECK(source.weights.empty() || source.weights.size() == source.nodes.size(), at, ": point source has ",
               source.weights.size(), " weights for ", source.nodes.size(), " nodes");
  for (const double w : source.weights) TREMOR_CHECK(std::isfinite(w), at, ": point source weight is not finite");
  TREMOR_CHECK(source.integrated == 0 || source.integrated == 1, at, ": point source signal integrated ",
               source.integrated, " times; 0 or 1");
  check_delay(source.delay, at, "point source");
  source.signal.check(str(at, ": point source signal"));
}

// Receiver r: named once, at nodes, positions (and footprints) or a grid, recording something.
void check_receiver(const Model& model, std::size_t r) {
  const Mesh& mesh = model.mesh;
  const Receiver& receiver = model.receivers[r];
  const std::string& at = where(receiver.origin, model);
  TREMOR_CHECK(!receiver.name.empty(), at, ": receiver has no name");
  for (std::size_t q = 0; q < r; ++q)
    TREMOR_CHECK(model.receivers[q].name != receiver.name, at, ": receiver '", receiver.name, "' is defined twice");
  if (receiver.grid) {
    const ReceiverGrid& g = *receiver.grid;
    TREMOR_CHECK(receiver.nodes.empty() && receiver.positions.empty(), at, ": receiver '", receiver.name,
                 "' has a grid and nodes or positions");
    TREMOR_CHECK(mesh.dim() == 3, at, ": receiver '", receiver.name, "': a grid lies on a surface of a 3D mesh");
    TREMOR_CHECK(g.count[0] >= 1 && g.count[1] >= 1 && !g.faces.empty(), at, ": receiver '", receiver.name,
                 "' has an empty grid");
    for (int a = 0; a < 2; ++a)
      TREMOR_CHECK(std::isfinite(g.min[a]) && std::isfinite(g.max[a]) && (g.count[a] == 1 || g.max[a] > g.min[a]), at,
                   ": receiver '", receiver.name, "': its grid's ", "xy"[a], " range is empty or not finite");
  } else if (receiver.positions.empty()) {
    check_nodes(receiver.nodes, mesh, at, "receiver");
  } else {
    TREMOR_CHECK(receiver.nodes.empty(), at, ": receiver '", receiver.name, "' has both nodes and positions");
    for (const auto& x : receiver.positions)
      TREMOR_CHECK(std::isfinite(x[0]) && std::isfinite(x[1]) && std::isfinite(x[2]), at, ": receiver '",
                   receiver.name, "' has a position that is not finite");
  }
  if (!receiver.footprints.empty()) {
    TREMOR_CHECK(receiver.footprints.size() == receiver.positions.size() && !receiver.grid, at, ": receiver '",
                 receiver.name, "' has ", receiver.footprints.size(), " footprints for ",
                 receiver.positions.size(), " positions");
    for (const std::vector<Face>& footprint : receiver.footprints) {
      TREMOR_CHECK(!footprint.empty(), at, ": receiver '", receiver.name, "' has a footprint of no face");
      for (const Face& face : footprint)
        TREMOR_CHECK(face.element >= 0 && face.element < mesh.n_elements(), at, ": receiver '", receiver.name,
                     "' has a footprint's face in element ", face.element, ", which the mesh does not have");
    }
  }
  const bool motion = receiver.displacement || receiver.velocity || receiver.acceleration;
  TREMOR_CHECK(motion || receiver.pressure, at, ": receiver '", receiver.name, "' records nothing");
  TREMOR_CHECK(!(motion && receiver.pressure), at, ": receiver '", receiver.name,
               "' records pressure beside motion: a history holds the pressure (one value a point) or the "
               "motion (a vector a point), not both; give each its own receiver");
  TREMOR_CHECK(receiver.every_n_steps >= 1, at, ": receiver '", receiver.name, "' records every ",
               receiver.every_n_steps, " steps; expected at least 1");
}

void check_explicit(const ExplicitSettings& s, const Model& model) {
  const std::string& at = where(s.origin, model);
  TREMOR_CHECK(std::isfinite(s.duration) && s.duration > 0.0, at, ": explicit duration is ", s.duration,
               "; expected a positive time");
  TREMOR_CHECK(std::isfinite(s.time_step) && s.time_step >= 0.0, at, ": explicit time step is ", s.time_step,
               "; expected a positive time, or 0 for automatic");
  TREMOR_CHECK(s.safety_factor > 0.0 && s.safety_factor <= 1.0, at, ": explicit safety factor is ",
               s.safety_factor, "; expected a number in (0, 1]");
  TREMOR_CHECK(one_of(s.precision, solver_precisions()), at, ": explicit precision '", s.precision, "'; expected ",
               quoted_choices(solver_precisions()));
  TREMOR_CHECK(one_of(s.backend, solver_backends()), at, ": explicit backend '", s.backend, "'; expected ",
               quoted_choices(solver_backends()));
  TREMOR_CHECK(!s.operator_kind.empty(), at, ": explicit operator is empty; expected \"auto\" or an operator's name");
  TREMOR_CHECK(s.ordering == "none" || s.ordering == "rcm", at, ": explicit ordering '", s.ordering,
               "'; expected \"none\" or \"rcm\"");
}

void check_static(const StaticSettings& s, const Model& model) {
  const std::string& at = where(s.origin, model);
  TREMOR_CHECK(s.tolerance > 0.0 && s.tolerance < 1.0, at, ": static tolerance is ", s.tolerance,
               "; expected a relative residual in (0, 1)");
  TREMOR_CHECK(s.max_iterations > 0, at, ": static max_iterations is ", s.max_iterations,
               "; expected at least 1");
}

}  // namespace

void validate_excitation(const Model& model) {
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  for (const auto& source : model.point_sources) check_point_source(source, model);
  for (const auto& load : model.surface_loads) {
    const std::string& at = where(load.origin, model);
    const std::string what = load.name.empty() ? str("load on surface '", load.surface, "'")
                                               : str("load '", load.name, "' on surface '", load.surface, "'");
    TREMOR_CHECK(!load.faces.empty(), at, ": ", what, " has no face");
    for (const Face& face : load.faces) {
      TREMOR_CHECK(face.element >= 0 && face.element < mesh.n_elements(), at, ": ", what, " refers to element index ",
                   face.element, ", outside the mesh's ", mesh.n_elements(), " elements");
      const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(mesh.locate(face.element).block)];
      TREMOR_CHECK(face.face >= 0 && face.face < n_faces(block.type), at, ": ", what, " refers to face ", face.face,
                   " of element ", mesh.element_label(face.element), ", which has ", n_faces(block.type), " faces");
    }
    if (load.pressure) {
      TREMOR_CHECK(std::isfinite(*load.pressure), at, ": ", what, ": pressure is not finite");
    } else {
      for (double c : load.traction) TREMOR_CHECK(std::isfinite(c), at, ": ", what, ": traction is not finite");
      TREMOR_CHECK(dim == 3 || load.traction[2] == 0.0, at, ": ", what, ": traction has a z component in a 2D model");
    }
    check_delay(load.delay, at, what.c_str());
    if (load.signal) load.signal->check(str(at, ": ", what, ": signal"));
  }
  for (const auto& force : model.body_forces) {
    const std::string& at = where(force.origin, model);
    const std::string what =
        force.element_set.empty() ? std::string("body force") : str("body force on '", force.element_set, "'");
    TREMOR_CHECK(!force.elements.empty(), at, ": ", what, " has no element");
    for (std::size_t k = 0; k < force.elements.size(); ++k) {
      const Index e = force.elements[k];
      TREMOR_CHECK(e >= 0 && e < mesh.n_elements(), at, ": ", what, " refers to element index ", e,
                   ", outside the mesh's ", mesh.n_elements(), " elements");
      TREMOR_CHECK(k == 0 || force.elements[k - 1] < e, at, ": ", what, " lists its elements out of order");
    }
    for (const auto* vector : {&force.acceleration, &force.force_per_volume}) {
      const char* name = vector == &force.acceleration ? "acceleration" : "force per volume";
      for (double c : *vector) TREMOR_CHECK(std::isfinite(c), at, ": ", what, ": ", name, " is not finite");
      TREMOR_CHECK(dim == 3 || (*vector)[2] == 0.0, at, ": ", what, ": ", name, " has a z component in a 2D model");
    }
  }
  for (const auto& p : model.prescribed) {
    const std::string& at = where(p.origin, model);
    check_nodes(p.nodes, mesh, at, "prescribed displacement");
    TREMOR_CHECK(!p.components.empty(), at, ": prescribed displacement constrains no component");
    for (int c : p.components)
      TREMOR_CHECK(c >= 0 && c < dim, at, ": prescribed displacement component ", c, " does not exist in a ", dim,
                   "D model");
    for (double f : p.factor) TREMOR_CHECK(std::isfinite(f), at, ": prescribed displacement factor is not finite");
    TREMOR_CHECK(std::isfinite(p.amplitude), at, ": prescribed displacement amplitude is not finite");
    TREMOR_CHECK(p.integrated >= 0 && p.integrated <= 2, at, ": prescribed displacement signal integrated ",
                 p.integrated, " times; 0, 1 or 2");
    check_delay(p.delay, at, "prescribed displacement");
    p.signal.check(str(at, ": prescribed displacement signal"));
  }
  for (std::size_t r = 0; r < model.receivers.size(); ++r) check_receiver(model, r);
  if (model.explicit_settings) check_explicit(*model.explicit_settings, model);
  if (model.static_settings) check_static(*model.static_settings, model);
}

double ReceiverGrid::along(double lo, double hi, Index n, Index k) {
  const auto last = static_cast<double>(n - 1);
  return n > 1 ? (lo * (last - static_cast<double>(k)) + hi * static_cast<double>(k)) / last : lo;
}

std::array<double, 2> ReceiverGrid::point(Index p) const {
  return {along(min[0], max[0], count[0], p % count[0]), along(min[1], max[1], count[1], p / count[0])};
}

}  // namespace tremor
