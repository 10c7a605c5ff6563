#include "tremor/model/absorbing.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <unordered_map>

#include "tremor/core/error.hpp"
#include "tremor/model/model.hpp"
#include "tremor/model/pml.hpp"

namespace tremor {

std::string_view to_string(AbsorbingKind kind) {
  return kind == AbsorbingKind::Srm ? "srm" : kind == AbsorbingKind::Pml ? "pml" : "alid";
}

std::string_view to_string(BoxFace face) {
  constexpr std::string_view names[] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
  return names[static_cast<int>(face)];
}

namespace {

std::string where(const Model& model, const AbsorbingLayer& layer) {
  return str(layer.origin.empty() ? model.source : layer.origin, ": absorbing layer (", to_string(layer.kind), ")");
}

// Centroid of every global element (dim coordinates, z = 0 in 2D).
std::vector<std::array<double, 3>> centroids(const Mesh& mesh) {
  std::vector<std::array<double, 3>> out;
  out.reserve(static_cast<std::size_t>(mesh.n_elements()));
  const auto dim = static_cast<std::size_t>(mesh.dim());
  for (const ElementBlock& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e) {
      std::array<double, 3> c{0.0, 0.0, 0.0};
      const auto nodes = block.nodes(e);
      for (Index n : nodes)
        for (std::size_t d = 0; d < dim; ++d) c[d] += mesh.node(n)[d];
      for (std::size_t d = 0; d < dim; ++d) c[d] /= static_cast<double>(nodes.size());
      out.push_back(c);
    }
  return out;
}

// Nearest-point queries among the nodes on a layer's inner boundary, bounded by `reach` (the
// thickness): points are binned in a uniform grid of cell `reach` / 4 and a query searches rings
// of cells outwards until no closer point can exist or `reach` is passed.
class NearestBoundary {
 public:
  NearestBoundary(const Mesh& mesh, const std::vector<Index>& points, double reach)
      : mesh_(mesh), dim_(mesh.dim()), reach_(reach), cell_(reach / 4.0) {
    for (Index p : points) cells_[key(cell_of(mesh.node(p).data()))].push_back(p);
  }

  // Distance from x to the nearest boundary node, or `reach` when none is closer.
  double distance(const double* x) const {
    const std::array<long long, 3> centre = cell_of(x);
    double best = reach_;
    const long long rings = static_cast<long long>(std::ceil(reach_ / cell_)) + 1;
    for (long long ring = 0; ring <= rings; ++ring) {
      // Every point in ring r or beyond is at least (r - 1) cells away.
      if (static_cast<double>(ring - 1) * cell_ >= best) break;
      const long long kz = dim_ == 3 ? ring : 0;
      for (long long i = -ring; i <= ring; ++i)
        for (long long j = -ring; j <= ring; ++j)
          for (long long k = -kz; k <= kz; ++k) {
            if (std::max({std::llabs(i), std::llabs(j), std::llabs(k)}) != ring) continue;  // the shell only
            const auto found = cells_.find(key({centre[0] + i, centre[1] + j, centre[2] + k}));
            if (found == cells_.end()) continue;
            for (Index p : found->second) {
              double squared = 0.0;
              for (int d = 0; d < dim_; ++d) {
                const double delta = mesh_.node(p)[static_cast<std::size_t>(d)] - x[d];
                squared += delta * delta;
              }
              best = std::min(best, std::sqrt(squared));
            }
          }
    }
    return best;
  }

 private:
  std::array<long long, 3> cell_of(const double* x) const {
    std::array<long long, 3> c{0, 0, 0};
    for (int d = 0; d < dim_; ++d) c[static_cast<std::size_t>(d)] = static_cast<long long>(std::floor(x[d] / cell_));
    return c;
  }
  static long long key(const std::array<long long, 3>& c) {
    // 21 bits per axis: cells are reach / 4 wide, so a mesh would have to span millions of layer
    // thicknesses for two cells to share a key (they would then share a bucket, still correct).
    constexpr long long mask = (1LL << 21) - 1;
    return (c[0] & mask) | ((c[1] & mask) << 21) | ((c[2] & mask) << 42);
  }

  const Mesh& mesh_;
  int dim_;
  double reach_, cell_;
  std::unordered_map<long long, std::vector<Index>> cells_;
};

// Members of the layer's element set as a per-element flag (all elements without a set).
std::vector<char> members_of(const Model& model, const AbsorbingLayer& layer) {
  const Mesh& mesh = model.mesh;
  std::vector<char> in(static_cast<std::size_t>(mesh.n_elements()), layer.element_set.empty() ? 1 : 0);
  if (!layer.element_set.empty())
    for (Index e : mesh.element_sets.at(layer.element_set)) in[static_cast<std::size_t>(e)] = 1;
  return in;
}

// Nodes used both by elements of the set and by elements outside it.
std::vector<Index> inner_boundary(const Mesh& mesh, const std::vector<char>& in) {
  std::vector<char> inside(static_cast<std::size_t>(mesh.n_nodes()), 0), outside(inside);
  Index global = 0;
  for (const ElementBlock& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global)
      for (Index n : block.nodes(e)) (in[static_cast<std::size_t>(global)] ? inside : outside)[static_cast<std::size_t>(n)] = 1;
  std::vector<Index> boundary;
  for (Index n = 0; n < mesh.n_nodes(); ++n)
    if (inside[static_cast<std::size_t>(n)] && outside[static_cast<std::size_t>(n)]) boundary.push_back(n);
  return boundary;
}

void check_layer(const Model& model, const AbsorbingLayer& layer) {
  const Mesh& mesh = model.mesh;
  const std::string at = where(model, layer);
  TREMOR_CHECK(!layer.faces.empty() || !layer.element_set.empty(), at,
               ": give the faces of the bounding box it lines, an element set, or both");
  TREMOR_CHECK(std::isfinite(layer.thickness) && layer.thickness > 0.0, at, ": thickness is ", layer.thickness,
               "; expected a positive length, m");
  TREMOR_CHECK(std::isfinite(layer.power) && layer.power > 0.0, at, ": power is ", layer.power,
               "; expected a positive exponent");
  TREMOR_CHECK(std::isfinite(layer.alpha_max) && layer.alpha_max >= 0.0, at, ": alpha_max is ", layer.alpha_max,
               "; expected a non-negative rate, 1/s (0: the default from the design frequency)");
  TREMOR_CHECK(std::isfinite(layer.frequency) && layer.frequency >= 0.0, at, ": frequency is ", layer.frequency,
               "; expected a positive frequency, Hz");
  double lower[3], upper[3];
  mesh.bounding_box(lower, upper);
  for (std::size_t i = 0; i < layer.faces.size(); ++i) {
    const BoxFace face = layer.faces[i];
    const int axis = axis_of(face);
    TREMOR_CHECK(axis < mesh.dim(), at, ": face '", to_string(face), "' does not exist in a ", mesh.dim(), "D model");
    for (std::size_t j = 0; j < i; ++j)
      TREMOR_CHECK(layer.faces[j] != face, at, ": face '", to_string(face), "' is listed twice");
    const double extent = upper[axis] - lower[axis];
    TREMOR_CHECK(layer.thickness <= extent, at, ": thickness ", layer.thickness, " m exceeds the model's extent ",
                 extent, " m along ", "xyz"[axis], " (face '", to_string(face), "')");
  }
  if (!layer.element_set.empty()) {
    const auto set = mesh.element_sets.find(layer.element_set);
    TREMOR_CHECK(set != mesh.element_sets.end(), at, ": no element set named '", layer.element_set, "'");
    TREMOR_CHECK(!set->second.empty(), at, ": element set '", layer.element_set, "' is empty");
  }
  if (layer.kind == AbsorbingKind::Pml)
    check_pml_layer(model, layer);
  else
    (void)design_frequency(model, layer);  // throws when one is needed and there is none
}

}  // namespace

double default_alpha_max(double power, double frequency) { return (power + 1.0) * std::log(1000.0) * frequency / 1.5; }

double absorbing_alpha(double alpha_max, double power, double depth) {
  return alpha_max * std::pow(std::clamp(depth, 0.0, 1.0), power);
}

double srm_stiffness_factor(double alpha, double frequency) {
  const double ratio = alpha / (2.0 * std::numbers::pi * frequency);
  return 1.0 / std::sqrt(1.0 + ratio * ratio);
}

std::vector<const Signal*> source_signals(const Model& model) {
  std::vector<const Signal*> signals;
  for (const PointSource& s : model.point_sources) signals.push_back(&s.signal);
  for (const PrescribedDisplacement& p : model.prescribed) signals.push_back(&p.signal);
  for (const SurfaceLoad& load : model.surface_loads)
    if (load.signal) signals.push_back(&*load.signal);
  // A piston's loads are the fluid's, made at the run (the others' became point sources or loads).
  for (const Transducer& t : model.transducers)
    if (t.mode == Transducer::Mode::Piston) signals.push_back(&t.signal);
  return signals;
}

double highest_source_frequency(const Model& model) {
  double highest = 0.0;
  for (const Signal* signal : source_signals(model)) highest = std::max(highest, signal->highest_frequency());
  const auto amplitude = [&](const std::string& name) {
    if (name.empty()) return;
    for (const Amplitude& a : model.amplitudes)
      if (a.name == name) highest = std::max(highest, Signal::from_amplitude(a).highest_frequency());
  };
  for (const NodalLoad& load : model.loads) amplitude(load.amplitude);
  for (const FixedDof& fixed : model.fixed) amplitude(fixed.amplitude);
  for (const SurfaceLoad& load : model.surface_loads) amplitude(load.amplitude);
  return highest;
}

double design_frequency(const Model& model, const AbsorbingLayer& layer) {
  if (layer.kind == AbsorbingKind::Pml) return pml_frequency(model, layer);
  if (layer.frequency > 0.0) return layer.frequency;
  const double sources = highest_source_frequency(model);
  const bool needed = layer.kind == AbsorbingKind::Srm || layer.alpha_max == 0.0;
  TREMOR_CHECK(sources > 0.0 || !needed, where(model, layer),
               ": needs a design frequency (", layer.kind == AbsorbingKind::Srm ? "the srm stiffness profile" : "the default alpha_max",
               " is set from it) and the model has no time-varying source to take one from; give 'frequency'",
               layer.kind == AbsorbingKind::Srm ? "" : " or 'alpha_max'");
  return sources;
}

double layer_alpha_max(const Model& model, const AbsorbingLayer& layer) {
  return layer.alpha_max > 0.0 ? layer.alpha_max : default_alpha_max(layer.power, design_frequency(model, layer));
}

void validate_absorbing(const Model& model) {
  bool lined[6] = {};  // the faces a PML lines: one each
  for (const AbsorbingLayer& layer : model.absorbing) {
    check_layer(model, layer);
    if (layer.kind != AbsorbingKind::Pml) continue;
    for (const BoxFace face : layer.faces) {
      TREMOR_CHECK(!lined[static_cast<int>(face)], where(model, layer), ": face '", to_string(face),
                   "' has a PML already");
      lined[static_cast<int>(face)] = true;
    }
  }
}

AbsorbingProfile absorbing_profile(const Model& model) {
  AbsorbingProfile profile;
  if (model.absorbing.empty()) return profile;
  validate_absorbing(model);
  const Mesh& mesh = model.mesh;
  const auto n = static_cast<std::size_t>(mesh.n_elements());
  profile.alpha.assign(n, 0.0);
  profile.stiffness_factor.assign(n, 1.0);
  profile.depth.assign(n, 0.0);
  const std::vector<std::array<double, 3>> centre = centroids(mesh);
  double lower[3], upper[3];
  mesh.bounding_box(lower, upper);
  for (const AbsorbingLayer& layer : model.absorbing) {
    if (layer.kind == AbsorbingKind::Pml) continue;  // model/pml.hpp
    const double L = layer.thickness;
    const double alpha_max = layer_alpha_max(model, layer);
    const double f0 = layer.kind == AbsorbingKind::Srm ? design_frequency(model, layer) : 0.0;
    const std::vector<char> in = members_of(model, layer);
    std::vector<double> depth(n, -1.0);  // < 0: outside the layer
    if (!layer.faces.empty()) {
      for (std::size_t e = 0; e < n; ++e) {
        if (!in[e]) continue;
        for (BoxFace face : layer.faces) {
          const int axis = axis_of(face);
          const double x = centre[e][static_cast<std::size_t>(axis)];
          const double d = is_upper(face) ? x - (upper[axis] - L) : (lower[axis] + L) - x;
          if (d > 0.0) depth[e] = std::max(depth[e], d);
        }
      }
    } else {
      const std::vector<Index> boundary = inner_boundary(mesh, in);
      TREMOR_CHECK(!boundary.empty(), where(model, layer), ": element set '", layer.element_set,
                   "' shares no node with the rest of the mesh, so it has no inner boundary to measure depth from; "
                   "give the faces it lines as well");
      const NearestBoundary nearest(mesh, boundary, L);
      for (std::size_t e = 0; e < n; ++e)
        if (in[e]) depth[e] = nearest.distance(centre[e].data());
    }
    for (std::size_t e = 0; e < n; ++e) {
      if (depth[e] < 0.0) continue;
      const double X = std::min(depth[e] / L, 1.0);
      const double alpha = absorbing_alpha(alpha_max, layer.power, X);
      if (alpha >= profile.alpha[e]) {
        profile.alpha[e] = alpha;
        profile.depth[e] = X;
      }
      if (layer.kind == AbsorbingKind::Srm)
        profile.stiffness_factor[e] = std::min(profile.stiffness_factor[e], srm_stiffness_factor(alpha, f0));
    }
  }
  return profile;
}

}  // namespace tremor
