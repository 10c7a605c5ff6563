#include "tremor/model/pml.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/model/absorbing.hpp"
#include "tremor/model/attenuation.hpp"
#include "tremor/model/model.hpp"

namespace tremor {

namespace {

std::string where(const Model& model, const AbsorbingLayer& layer) {
  return str(layer.origin.empty() ? model.source : layer.origin, ": absorbing layer (pml)");
}

// The fastest P wave of the model's materials (the layer's d0 is made for it).
double fastest_wave(const Model& model) {
  double fastest = 0.0;
  for (const Material& material : model.materials) fastest = std::max(fastest, material.max_wave_speed());
  return fastest;
}

// Axis `axis` of a node's coordinates.
double coordinate(const Mesh& mesh, Index node, int axis) { return mesh.node(node)[static_cast<std::size_t>(axis)]; }

}  // namespace

double pml_frequency(const Model& model, const AbsorbingLayer& layer) {
  if (layer.frequency > 0.0) return layer.frequency;
  const double lowest = source_frequencies(model)[0];
  TREMOR_CHECK(lowest > 0.0, where(model, layer),
               ": needs a design frequency (alpha_max = pi f0) and the model has no source with a centre frequency "
               "to take one from; give 'frequency'");
  return lowest;
}

void check_pml_layer(const Model& model, const AbsorbingLayer& layer) {
  const Mesh& mesh = model.mesh;
  const std::string at = where(model, layer);
  TREMOR_CHECK(!layer.faces.empty() && layer.element_set.empty(), at,
               ": a PML lines faces of the model's bounding box: give 'faces' (and no 'element_set')");
  TREMOR_CHECK(layer.reflection == 0.0 || (layer.reflection > 0.0 && layer.reflection < 1.0), at, ": reflection is ",
               layer.reflection, "; expected the amplitude ratio designed for, in (0, 1), such as 1e-4 (-80 dB)");
  TREMOR_CHECK(layer.multiaxial >= 0.0 && layer.multiaxial < 1.0, at, ": multiaxial is ", layer.multiaxial,
               "; expected a ratio in [0, 1) (0: the C-PML; about 0.1 for anisotropic media)");
  TREMOR_CHECK(layer.grid_damping < 0.0 || layer.grid_damping <= max_pml_grid_damping, at, ": grid_damping is ",
               layer.grid_damping, "; expected a ratio in [0, ", max_pml_grid_damping, "] (default ",
               default_pml_grid_damping, ")");
  if (!(layer.alpha_max > 0.0)) (void)pml_frequency(model, layer);
  double lower[3], upper[3];
  mesh.bounding_box(lower, upper);
  const int dim = mesh.dim();
  for (const BoxFace face : layer.faces) {
    const int axis = axis_of(face);
    if (axis >= dim) continue;  // check_layer names it
    const double plane = is_upper(face) ? upper[axis] : lower[axis];
    const double inner = is_upper(face) ? plane - layer.thickness : plane + layer.thickness;
    const double tolerance = 1e-9 * std::max(upper[axis] - lower[axis], 1e-300);
    // The face is a boundary: its nodes span it along every other axis.
    double low[3] = {1e300, 1e300, 1e300}, high[3] = {-1e300, -1e300, -1e300};
    for (Index n = 0; n < mesh.n_nodes(); ++n) {
      if (std::abs(coordinate(mesh, n, axis) - plane) > tolerance) continue;
      for (int k = 0; k < dim; ++k) {
        low[k] = std::min(low[k], coordinate(mesh, n, k));
        high[k] = std::max(high[k], coordinate(mesh, n, k));
      }
    }
    for (int k = 0; k < dim; ++k)
      TREMOR_CHECK(k == axis || high[k] > low[k], at, ": face '", to_string(face),
                   "' is not a boundary of the mesh (its nodes on the plane ", "xyz"[axis], " = ", plane,
                   " span no surface); a PML lines a face the mesh has");
    // At least two elements thick: the largest extent along the axis of the elements in it. A
    // mesh none of whose elements meets the face (a model's solid part, its fluid lining the face
    // alone: the whole model's check holds) has none to count.
    double largest = 0.0;
    bool touching = false;
    for (const ElementBlock& block : mesh.blocks)
      for (Index e = 0; e < block.n_elements(); ++e) {
        double low_e = 1e300, high_e = -1e300, centre = 0.0;
        const auto nodes = block.nodes(e);
        for (const Index n : nodes) {
          const double x = coordinate(mesh, n, axis);
          low_e = std::min(low_e, x);
          high_e = std::max(high_e, x);
          centre += x;
        }
        centre /= static_cast<double>(nodes.size());
        touching = touching || std::abs((is_upper(face) ? high_e : low_e) - plane) <= tolerance;
        if (is_upper(face) ? centre > inner : centre < inner) largest = std::max(largest, high_e - low_e);
      }
    if (!touching) continue;
    TREMOR_CHECK(largest > 0.0 && layer.thickness >= 2.0 * largest * (1.0 - 1e-9), at, ": thickness ",
                 layer.thickness, " m is less than two of its elements along ", "xyz"[axis], " (face '",
                 to_string(face), "': elements up to ", largest,
                 " m): a PML needs at least two elements, and absorbs well from about three");
  }
}

PmlProfile pml_profile(const Model& model, double speed) {
  PmlProfile profile;
  profile.dim = model.mesh.dim();
  double lower[3], upper[3];
  model.mesh.bounding_box(lower, upper);
  const double c = speed > 0.0 ? speed : fastest_wave(model);
  for (const AbsorbingLayer& layer : model.absorbing) {
    if (layer.kind != AbsorbingKind::Pml) continue;
    check_pml_layer(model, layer);
    const double R = layer.reflection > 0.0 ? layer.reflection : default_pml_reflection;
    const double L = layer.thickness;
    for (const BoxFace face : layer.faces) {
      const int axis = axis_of(face);
      PmlSide& side = profile.sides[axis][is_upper(face) ? 1 : 0];
      TREMOR_CHECK(!side.active, where(model, layer), ": face '", to_string(face), "' has a PML already");
      side.active = true;
      side.thickness = L;
      side.inner = is_upper(face) ? upper[axis] - L : lower[axis] + L;
      side.power = layer.power;
      side.d0 = (side.power + 1.0) * c * std::log(1.0 / R) / (2.0 * L);
      side.grid_damping = layer.grid_damping >= 0.0 ? layer.grid_damping : default_pml_grid_damping;
      side.alpha_max = layer.alpha_max > 0.0 ? layer.alpha_max : std::numbers::pi * pml_frequency(model, layer);
      profile.alpha_rest = std::max(profile.alpha_rest, side.alpha_max);
    }
    profile.multiaxial = std::max(profile.multiaxial, layer.multiaxial);
  }
  return profile;
}

std::vector<Index> pml_outer_nodes(const Model& model) {
  std::vector<Index> nodes;
  const Mesh& mesh = model.mesh;
  bool lined[6] = {};
  for (const AbsorbingLayer& layer : model.absorbing)
    if (layer.kind == AbsorbingKind::Pml)
      for (const BoxFace face : layer.faces) lined[static_cast<int>(face)] = true;
  if (std::none_of(std::begin(lined), std::end(lined), [](bool b) { return b; })) return nodes;
  double lower[3], upper[3];
  mesh.bounding_box(lower, upper);
  const int dim = mesh.dim();
  for (Index n = 0; n < mesh.n_nodes(); ++n)
    for (int face = 0; face < 2 * dim; ++face) {
      const int axis = face / 2;
      const double plane = face % 2 == 1 ? upper[axis] : lower[axis];
      if (lined[face] && std::abs(coordinate(mesh, n, axis) - plane) <= 1e-9 * (upper[axis] - lower[axis])) {
        nodes.push_back(n);
        break;
      }
    }
  return nodes;
}

std::vector<Index> pml_elements(const Model& model, const PmlProfile& profile) {
  std::vector<Index> elements;
  if (!profile.any()) return elements;
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  Index global = 0;
  for (const ElementBlock& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global)
      for (const Index n : block.nodes(e)) {
        double x[3] = {0.0, 0.0, 0.0};
        for (int k = 0; k < dim; ++k) x[k] = coordinate(mesh, n, k);
        if (profile.inside(x)) {
          elements.push_back(global);
          break;
        }
      }
  return elements;
}

double largest_element_beta(const Model& model, const PmlProfile& profile) {
  if (!profile.grid_damped()) return 0.0;
  const std::vector<Index> elements = pml_elements(model, profile);
  double largest = 0.0;
  std::size_t k = 0;
  Index global = 0;
  for (const ElementBlock& block : model.mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global) {
      if (k >= elements.size() || elements[k] != global) continue;
      ++k;
      const auto nodes = block.nodes(e);
      largest = std::max(largest, profile.element_beta(model.mesh.coordinates.data(), nodes.data(),
                                                       static_cast<int>(nodes.size())));
    }
  return largest;
}

std::vector<std::string> describe_pml(const Model& model, const PmlProfile& profile) {
  std::vector<std::string> lines;
  for (const AbsorbingLayer& layer : model.absorbing) {
    if (layer.kind != AbsorbingKind::Pml) continue;
    std::string faces;
    for (const BoxFace face : layer.faces) faces += str(faces.empty() ? "" : " ", to_string(face));
    const PmlSide& side = profile.sides[axis_of(layer.faces.front())][is_upper(layer.faces.front()) ? 1 : 0];
    lines.push_back(str(faces, ": C-PML ", layer.thickness, " m, d0 ", side.d0, " 1/s (X^", side.power,
                        ", R ", layer.reflection > 0.0 ? layer.reflection : default_pml_reflection, "), alpha_max ",
                        side.alpha_max, " 1/s",
                        layer.alpha_max > 0.0 ? std::string() : str(" (pi x ", pml_frequency(model, layer), " Hz)"),
                        layer.multiaxial > 0.0 ? str(", multi-axial p ", layer.multiaxial) : std::string(),
                        str(", grid damping ", side.grid_damping)));
  }
  return lines;
}

}  // namespace tremor
