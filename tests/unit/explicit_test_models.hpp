#pragma once
// Small explicit-solver models shared by the solver and checkpoint tests.
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tremor/mesh/generate.hpp"
#include "tremor/model/absorbing.hpp"
#include "tremor/model/model.hpp"
#include "tremor/model/source.hpp"

namespace tremor::test {

// A 2D steel block, 12 x 6 mm of 0.25 mm quad4 cells, under an array of 8 elements making a
// full-matrix capture (one shot each, 1.5 us): a model file's text, for io::read_model_buffer.
inline std::string array_capture_toml() {
  return "[mesh]\ngenerator = \"rectangle\"\nelement = \"quad4\"\nsize = [0.012, 0.006]\ndivisions = [48, 24]\n"
         "[[material]]\nname = \"steel\"\ndensity = 7850.0\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n"
         "[[section]]\nelement_set = \"all\"\nmaterial = \"steel\"\nformulation = \"plane_strain\"\nthickness = 1.0\n"
         "[explicit]\nduration = 1.5e-6\n"
         "[[array]]\nname = \"probe\"\nelements = 8\npitch = 1e-3\nwidth = 0.75e-3\ncentre = [0.006125, 0.006]\n"
         "surface = \"ymax\"\namplitude = 1e6\nsignal = { kind = \"tone_burst\", frequency = 2e6, cycles = 2 }\n"
         "fmc = true\n";
}

// An immersed array: 2D, 2 mm of water over the 12 x 4 mm steel block, the array of 8 pistons on
// the water's top making a capture of pressure.
inline std::string immersed_array_toml() {
  return "[mesh]\ngenerator = \"rectangle\"\nelement = \"quad4\"\nsize = [0.012, 0.006]\ndivisions = [48, 24]\n"
         "[[mesh.element_set]]\nname = \"steel\"\nmin = [0.0, 0.0]\nmax = [0.012, 0.004]\n"
         "[[mesh.element_set]]\nname = \"water\"\nmin = [0.0, 0.004]\nmax = [0.012, 0.006]\n"
         "[[material]]\nname = \"steel\"\ndensity = 7850.0\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n"
         "[[material]]\nname = \"water\"\nkind = \"fluid\"\ndensity = 1000.0\nsound_speed = 1480.0\n"
         "[[section]]\nelement_set = \"steel\"\nmaterial = \"steel\"\nformulation = \"plane_strain\"\n"
         "[[section]]\nelement_set = \"water\"\nmaterial = \"water\"\n"
         "[explicit]\nduration = 3e-6\n"
         "[[array]]\nname = \"probe\"\nelements = 8\npitch = 1e-3\nwidth = 0.75e-3\ncentre = [0.006125, 0.006]\n"
         "surface = \"ymax\"\namplitude = 1e-3\nfmc = true\n"
         "signal = { kind = \"tone_burst\", frequency = 1e6, cycles = 3 }\n";
}

// Receiver "r", displacement and velocity at `nodes`, and receiver "probe", the displacement at
// `position` every 2nd step.
inline void add_test_receivers(Model& model, std::vector<Index> nodes, const std::array<double, 3>& position) {
  Receiver receiver;
  receiver.name = "r";
  receiver.nodes = std::move(nodes);
  receiver.velocity = true;
  model.receivers.push_back(receiver);
  Receiver probe;
  probe.name = "probe";
  probe.positions = {position};
  probe.every_n_steps = 2;
  model.receivers.push_back(probe);
}

// A 10 mm plane-strain steel square, 12 x 12 quad4 (13 x 13 nodes), a 1 kN Ricker point force of
// peak frequency `frequency` on its centre node; receiver "r" records displacement and velocity at
// the nodes `offset` nodes to the right of and above the centre, receiver "probe" the displacement
// at one position every 2nd step; [explicit] duration `duration`, everything else default.
inline Model loaded_block(double duration, double frequency, int offset) {
  Model model;
  model.source = "block";
  model.mesh = generate_rectangle({0.0, 0.0}, {0.01, 0.01}, {12, 12}, ElementType::Quad4);
  model.materials.push_back(Material::from_youngs("steel", 210e9, 0.3, 7850.0));
  model.sections.push_back({"all", "steel", Formulation::PlaneStrain, 1.0});
  PointSource source;
  source.nodes = {6 * 13 + 6};
  source.direction = {0.0, 1.0, 0.0};
  source.amplitude = 1e3;
  source.signal = Signal::ricker(frequency);
  source.origin = "centre force";
  model.point_sources.push_back(source);
  add_test_receivers(model, {6 * 13 + 6 + offset, (6 + offset) * 13 + 6}, {0.0071, 0.0033, 0.0});
  ExplicitSettings settings;
  settings.duration = duration;
  model.explicit_settings = settings;
  model.validate();
  return model;
}

// A 3D steel bar 4 x 2 x 1 mm of hex8 (or GLL hexahedra of `order`), fixed at x = 0, under a
// Ricker traction on its top face, a constant body force and a point force; an absorbing layer at
// x = max; receivers at the nodes of the far end and at a position inside.
inline Model loaded_bar(ElementType type, int order, Size cells) {
  Model model;
  model.source = "bar";
  model.mesh = generate_box({0.0, 0.0, 0.0}, {4e-3, 2e-3, 1e-3}, {2 * cells, cells, cells / 2 + 1}, type, order);
  model.materials.push_back(Material::from_youngs("steel", 210e9, 0.3, 7850.0));
  model.sections.push_back({"all", "steel", Formulation::Solid, 1.0});
  FixedDof fixed;
  fixed.nodes = model.mesh.node_sets.at("xmin");
  for (int c = 0; c < 3; ++c) {
    fixed.component = c;
    model.fixed.push_back(fixed);
  }
  SurfaceLoad traction;
  traction.surface = "zmax";
  traction.faces = model.mesh.face_sets.at("zmax");
  traction.traction = {0.0, 2e5, -1e6};
  traction.signal = Signal::ricker(2e6);
  traction.origin = "top traction";
  model.surface_loads.push_back(traction);
  BodyForce gravity;
  gravity.acceleration = {0.0, 0.0, -9.81e4};
  for (Index e = 0; e < model.mesh.n_elements(); ++e) gravity.elements.push_back(e);
  gravity.origin = "gravity";
  model.body_forces.push_back(gravity);
  PointSource source;
  source.nodes = {model.mesh.node_sets.at("xmax").front()};
  source.direction = {1.0, 0.0, 0.0};
  source.amplitude = 50.0;
  source.signal = Signal::ricker(3e6);
  source.origin = "end force";
  model.point_sources.push_back(source);
  AbsorbingLayer layer;
  layer.faces = {BoxFace::XMax};
  layer.thickness = 1e-3;
  layer.frequency = 2e6;
  layer.origin = "layer";
  model.absorbing.push_back(layer);
  const std::vector<Index>& end = model.mesh.node_sets.at("xmax");
  add_test_receivers(model, {end.begin(), end.end()}, {2.9e-3, 1.3e-3, 0.4e-3});
  ExplicitSettings settings;
  settings.duration = 1.5e-6;
  model.explicit_settings = settings;
  OutputSettings output;  // every node's displacement and velocity
  output.snapshot_every = 7;
  output.velocity = true;
  model.output = output;
  model.validate();
  return model;
}

// Gives the elements of the model's first block whose first node lies at x >= `at` a second
// material, a copy of the first with stiffness-proportional damping `beta`: two sections, "near"
// and "far", of different betas.
inline void second_beta_beyond(Model& model, double at, double beta) {
  Material other = model.materials[0];
  other.name = "damped " + other.name;
  other.damping_beta = beta;
  model.materials.push_back(other);
  std::vector<Index> near, far;
  const ElementBlock& block = model.mesh.blocks.front();
  for (Index e = 0; e < block.n_elements(); ++e) (model.mesh.node(block.nodes(e)[0])[0] < at ? near : far).push_back(e);
  model.mesh.element_sets["near"] = near;
  model.mesh.element_sets["far"] = far;
  model.sections = {{"near", model.materials[0].name, Formulation::Solid, 1.0}, {"far", other.name, Formulation::Solid, 1.0}};
}

// The hex8 bar above with stiffness-proportional damping (beta omega_max / 2 ~ 0.1 at its stable
// step): one beta everywhere, through the run's own K, or (per_element) three times it past the
// middle, through an operator of the term's own weighted by each element's beta.
inline Model damped_bar(bool per_element) {
  Model model = loaded_bar(ElementType::Hex8, 1, 4);
  model.materials[0].damping_beta = 4e-9;
  if (per_element) second_beta_beyond(model, 2e-3, 1.2e-8);
  model.validate();
  return model;
}

// The GLL bar above (order 3) in a rock that attenuates: Q_P 40 and Q_S 25 over a decade around
// the sources' centre frequencies, memory variables at every GLL point (sem).
inline Model attenuating_bar(ElementType type = ElementType::HexGLL, int order = 3, Size cells = 2) {
  Model model = loaded_bar(type, order, cells);
  Attenuation attenuation;
  attenuation.q_p = 40.0;
  attenuation.q_s = 25.0;
  model.materials[0].attenuation = attenuation;
  model.validate();
  return model;
}

// The bar above with a PML 2 mm thick at its clamped end (model/pml.hpp): the wave the end force
// sends along the bar enters it.
inline Model pml_bar(ElementType type, int order, Size cells) {
  Model model = loaded_bar(type, order, cells);
  AbsorbingLayer layer;
  layer.kind = AbsorbingKind::Pml;
  layer.faces = {BoxFace::XMin};
  layer.thickness = 2e-3;
  layer.power = 2.0;
  layer.origin = "pml";
  model.absorbing.push_back(layer);
  model.validate();
  return model;
}

// The 2D block of the solver tests with a prescribed displacement on its left side added.
inline Model prescribed_block() {
  Model model = loaded_block(2e-6, 2e6, 2);
  PrescribedDisplacement moved;
  moved.nodes = model.mesh.node_sets.at("xmin");
  moved.components = {0};
  moved.factor = {1.0, 0.0, 0.0};
  moved.amplitude = 1e-9;
  moved.signal = Signal::ricker(1e6);
  moved.origin = "left side";
  model.prescribed.push_back(moved);
  OutputSettings output;  // the top side's displacement
  output.snapshot_every = 5;
  output.snapshot_nodes = model.mesh.node_sets.at("ymax");
  model.output = output;
  model.validate();
  return model;
}

// An alid layer `thickness` thick on `faces` of the mesh's bounding box, at the sources' highest
// frequency and the default profile (model/absorbing.hpp).
inline AbsorbingLayer alid_layer(std::vector<BoxFace> faces, double thickness) {
  AbsorbingLayer layer;
  layer.kind = AbsorbingKind::Alid;
  layer.faces = std::move(faces);
  layer.thickness = thickness;
  return layer;
}

// The mean of an element's node coordinates along `axis`.
inline double element_centre(const Mesh& mesh, Index global, int axis) {
  const ElementRef ref = mesh.locate(global);
  const auto nodes = mesh.blocks[static_cast<std::size_t>(ref.block)].nodes(ref.element);
  double sum = 0.0;
  for (const Index node : nodes) sum += mesh.node(node)[static_cast<std::size_t>(axis)];
  return sum / static_cast<double>(nodes.size());
}

// Steel (5960, 3260 m/s, 7850 kg/m^3) on the element set "steel" and water (1480 m/s, 1000 kg/m^3)
// on "water", 2D sections `thickness` thick (the water's `water_thickness`).
inline void add_water_and_steel(Model& model, double thickness = 1.0, double water_thickness = 1.0) {
  model.materials.push_back(Material::from_speeds("steel", 5960.0, 3260.0, 7850.0));
  model.materials.push_back(Material::from_sound_speed("water", 1480.0, 1000.0));
  const Formulation f = model.mesh.dim() == 2 ? Formulation::PlaneStrain : Formulation::Solid;
  model.sections.push_back({"steel", "steel", f, thickness});
  model.sections.push_back({"water", "water", f, water_thickness});
}

// `mesh` as steel where the elements' centres lie below 1 along the last axis, water above.
inline Model water_on_steel(Mesh mesh, double thickness = 1.0, double water_thickness = 1.0) {
  Model model;
  model.source = "m.toml";
  const int dim = mesh.dim();
  for (Index e = 0; e < mesh.n_elements(); ++e)
    mesh.element_sets[element_centre(mesh, e, dim - 1) > 1.0 ? "water" : "steel"].push_back(e);
  model.mesh = std::move(mesh);
  add_water_and_steel(model, thickness, water_thickness);
  return model;
}

// `mesh` of [0, 2]^2 as water on steel (water_on_steel), a volume source at (1, 1.5) in the water,
// 3 ms in `precision`: the pulse (600 Hz, centre 2.5 ms) crosses the interface. No receivers.
inline Model water_pulse(Mesh mesh, const std::string& precision) {
  Model model = test::water_on_steel(std::move(mesh));
  ExplicitSettings settings;
  settings.duration = 3e-3;
  settings.precision = precision;
  model.explicit_settings = settings;
  PointSource source;
  for (Index node = 0; node < model.mesh.n_nodes(); ++node)  // the node at (1, 1.5)
    if (std::abs(model.mesh.coordinates[2 * static_cast<std::size_t>(node)] - 1.0) < 1e-9 &&
        std::abs(model.mesh.coordinates[2 * static_cast<std::size_t>(node) + 1] - 1.5) < 1e-9)
      source.nodes = {node};
  source.volume = true;
  source.amplitude = 1e-6;
  source.signal = Signal::ricker(600.0);
  source.origin = "m.toml:20";
  model.point_sources.push_back(source);
  return model;
}

// A model with fluids: 8 x 8 quadrilaterals of 0.25 m, steel below y = 1 and water above
// (water_on_steel), a volume source in the water (water_pulse). Receivers record every node's
// motion, the steel's (y <= 1, the interface's row too) and the water's (y > 1, from the
// potential), and the pressure of the water's nodes (y >= 1). Snapshots every `every` steps, with
// pressure.
inline Model water_field(const std::string& precision, int every, bool velocity) {
  // (~150 steps)
  Model model = water_pulse(generate_rectangle({0.0, 0.0}, {2.0, 2.0}, {8, 8}, ElementType::Quad4, 1), precision);
  Receiver steel, water, pressure;
  steel.name = "steel";
  water.name = "water";
  pressure.name = "p";
  for (Receiver* r : {&steel, &water}) {
    r->displacement = true;
    r->velocity = velocity;
  }
  pressure.displacement = false;
  pressure.pressure = true;
  for (Index node = 0; node < model.mesh.n_nodes(); ++node) {
    (node / 9 <= 4 ? steel : water).nodes.push_back(node);
    if (node / 9 >= 4) pressure.nodes.push_back(node);
  }
  model.receivers = {steel, water, pressure};
  OutputSettings output;
  output.snapshot_every = every;
  output.velocity = velocity;
  output.pressure = true;
  model.output = output;
  model.validate();
  return model;
}

// The node of a 3D `mesh` nearest (x, y, z) (the first of equals: the model's nearest_node).
inline Index nearest_node(const Mesh& mesh, double x, double y, double z) {
  return ::tremor::nearest_node(mesh, std::array<double, 3>{x, y, z});
}

// A box of 4^3 GLL hexahedra of `order`, steel below z = 1 and water above, a volume source in the
// water at (1, 1, 1.5); receivers of the steel's motion and the water's pressure at nodes, and of
// the water's pressure and motion at positions.
inline Model water_on_steel_box(const std::string& precision, int order = 2) {
  Model model = water_on_steel(generate_box({0.0, 0.0, 0.0}, {2.0, 2.0, 2.0}, {4, 4, 4}, ElementType::HexGLL, order));
  ExplicitSettings settings;
  settings.duration = 2.5e-3;  // the pulse (600 Hz) reaches the steel
  settings.precision = precision;
  model.explicit_settings = settings;
  const auto near = [&](double x, double y, double z) { return nearest_node(model.mesh, x, y, z); };
  PointSource source;
  source.nodes = {near(1.0, 1.0, 1.5)};
  source.volume = true;
  source.amplitude = 1e-6;
  source.signal = Signal::ricker(600.0);
  source.origin = "m.toml:20";
  model.point_sources.push_back(source);
  Receiver steel, pressure, at_positions, moving;
  steel.name = "steel";
  steel.displacement = true;
  steel.nodes = {near(1.0, 1.0, 1.0), near(0.5, 1.5, 0.5), near(2.0, 0.0, 1.0)};
  pressure.name = "p";
  pressure.displacement = false;
  pressure.pressure = true;
  pressure.nodes = {near(1.0, 1.0, 1.0), near(0.0, 2.0, 2.0), near(1.5, 0.5, 1.25)};
  at_positions.name = "p at positions";
  at_positions.displacement = false;
  at_positions.pressure = true;
  at_positions.positions = {{0.3, 0.7, 1.6}, {1.9, 1.1, 1.05}};
  moving.name = "water";
  moving.displacement = true;
  moving.positions = {{0.6, 1.3, 1.4}, {1.2, 0.2, 1.9}};
  model.receivers = {steel, pressure, at_positions, moving};
  model.validate();
  return model;
}

}  // namespace tremor::test
