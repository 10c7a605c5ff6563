// The convolutional PML (model/pml.hpp, explicit/pml.hpp) measured through the whole explicit
// solver, side by side with the ALID and SRM layers of the same thickness.
//
// Case: a point force along y at the corner of a quarter (2D) or eighth (3D) of a block of rock
// (c_p 3000 m/s, c_s 1730 m/s), the symmetry planes holding the components that vanish there, so
// the run is that of a force in a whole space. It radiates P along y and S along x: a receiver on
// the y axis sees P alone, one on the x axis S alone. A Ricker wavelet at f0 = 10 Hz; GLL elements
// of 50 m (order 4 in 2D). The layers line the far faces (xmax, ymax; zmax in 3D), one P
// wavelength at f0 thick (300 m); the receivers sit 100 m in front of them:
//
//   P, normal incidence   (0, 500) m on the y axis, ymax's layer straight ahead;
//   S, normal incidence   (900, 0) m on the x axis, xmax's;
//   60 degrees            (866, 500) m, on the ray 60 degrees from ymax's normal, which it reaches
//                         at that angle: P and S both (P cos 60, S sin 60), the P window ending
//                         before the S wave arrives and the S window after it.
//
// Reference: the same mesh spacing and time step over a block large enough that nothing comes
// back to a receiver within the window; until a reflection arrives both runs compute the same
// numbers, so the reflected wave is (layer run - reference) at the receiver. Reflection = the
// largest |reflected| over the window against the largest |direct|, in dB.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

constexpr double c_p = 3000.0, c_s = 1730.0, density = 2500.0;
constexpr double f0 = 10.0;             // Hz: the Ricker's peak, the layers' design frequency
constexpr double lambda = c_p / f0;     // 300 m
constexpr double h = 50.0;              // m, element size
constexpr double interior_x = 1000.0, interior_y = 600.0, interior_z = 600.0;  // m, before the layers
constexpr double delay = 1.5 / f0;      // the Ricker's centre (Signal::ricker)

struct Probe {
  const char* name;
  std::array<double, 3> at;
  double from, to;  // the window, s
};

// The receivers and their windows (above): P up to the S wave's arrival less half the wavelet.
std::vector<Probe> probes(double duration) {
  const double r60 = std::hypot(866.0, 500.0), half = 1.2 / f0;
  return {{"P, normal", {0.0, 500.0, 0.0}, 0.0, duration},
          {"S, normal", {900.0, 0.0, 0.0}, 0.0, duration},
          {"P, 60 deg", {866.0, 500.0, 0.0}, 0.0, delay + r60 / c_s - half},
          {"S, 60 deg", {866.0, 500.0, 0.0}, delay + r60 / c_s - half, duration}};
}

struct Case {
  int dim = 2;
  int order = 4;
  std::string backend = "serial";
  std::string precision = "double";
  bool attenuating = false;  // Q_P 50, Q_S 30 (3 solids over a decade around f0), layer included
  double time_step = 1.5e-3;  // s: below the stable step of every mesh here, the same in all runs
  double duration = 0.95;     // s
};

// The block [0, size] (size per axis) of GLL elements, the force at the origin, the layers given;
// per probe, its u samples (component-major: every sample's x, then y, then z).
std::vector<std::vector<double>> run(const Case& s, const std::array<double, 3>& size,
                                     const std::vector<AbsorbingLayer>& layers) {
  Model model;
  model.source = "block";
  const auto cells = [&](int k) { return static_cast<Size>(std::llround(size[static_cast<std::size_t>(k)] / h)); };
  if (s.dim == 2)
    model.mesh = generate_rectangle({0.0, 0.0}, {size[0], size[1]}, {cells(0), cells(1)}, ElementType::QuadGLL,
                                    s.order);
  else
    model.mesh = generate_box({0.0, 0.0, 0.0}, size, {cells(0), cells(1), cells(2)}, ElementType::HexGLL, s.order);
  model.materials.push_back(Material::from_speeds("rock", c_p, c_s, density));
  if (s.attenuating) {
    Attenuation q;
    q.q_p = 50.0;
    q.q_s = 30.0;
    model.materials[0].attenuation = q;
  }
  model.sections.push_back({"all", "rock", s.dim == 2 ? Formulation::PlaneStrain : Formulation::Solid, 1.0});
  // The symmetry planes of a force along y: u_x = 0 on x = 0; u_x (and u_z) = 0 on y = 0; u_z = 0 on z = 0.
  model.fixed.push_back({model.mesh.node_sets.at("xmin"), 0, 0.0, "", "symmetry x = 0"});
  model.fixed.push_back({model.mesh.node_sets.at("ymin"), 0, 0.0, "", "antisymmetry y = 0"});
  if (s.dim == 3) {
    model.fixed.push_back({model.mesh.node_sets.at("ymin"), 2, 0.0, "", "antisymmetry y = 0"});
    model.fixed.push_back({model.mesh.node_sets.at("zmin"), 2, 0.0, "", "symmetry z = 0"});
  }
  PointSource force;
  force.nodes = {0};
  force.direction = {0.0, 1.0, 0.0};
  force.amplitude = 1e9;
  force.signal = Signal::ricker(f0);
  force.origin = "force";
  model.point_sources.push_back(force);
  for (const Probe& p : probes(s.duration)) {
    Receiver receiver;
    receiver.name = p.name;
    receiver.positions = {p.at};
    model.receivers.push_back(receiver);
  }
  model.absorbing = layers;
  ExplicitSettings settings;
  settings.duration = s.duration;
  settings.time_step = s.time_step;
  settings.backend = s.backend;
  settings.precision = s.precision;
  model.explicit_settings = settings;
  model.validate();
  const auto result = explicit_fe::run_explicit(model);
  EXPECT_TRUE(result.ok()) << result.message;
  std::vector<std::vector<double>> out;
  for (const explicit_fe::History& history : result.histories) {
    std::vector<double> u;
    for (int c = 0; c < s.dim; ++c)
      for (std::size_t k = 0; k < history.n_samples(); ++k)
        u.push_back(history.value(k, 0, explicit_fe::Quantity::Displacement, c));
    out.push_back(u);
  }
  return out;
}

// The reflection at probe p in dB: max |with - reference| against max |reference| in its window.
double reflection_db(const Case& s, const Probe& p, const std::vector<double>& with,
                     const std::vector<double>& reference) {
  const std::size_t n = reference.size() / static_cast<std::size_t>(s.dim);
  double reflected = 0.0, direct = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    const double t = static_cast<double>(k) * s.time_step;
    if (t < p.from || t > p.to) continue;
    double r2 = 0.0, d2 = 0.0;
    for (std::size_t c = 0; c < static_cast<std::size_t>(s.dim); ++c) {
      const double ref = reference[c * n + k], diff = with[c * n + k] - ref;
      r2 += diff * diff;
      d2 += ref * ref;
    }
    reflected = std::max(reflected, std::sqrt(r2));
    direct = std::max(direct, std::sqrt(d2));
  }
  return 20.0 * std::log10(reflected / direct);
}

AbsorbingLayer layer(AbsorbingKind kind, int dim) {
  AbsorbingLayer out;
  out.kind = kind;
  out.faces = {BoxFace::XMax, BoxFace::YMax};
  if (dim == 3) out.faces.push_back(BoxFace::ZMax);
  out.thickness = lambda;
  out.frequency = f0;
  if (kind == AbsorbingKind::Pml) out.power = 2.0;
  return out;
}

// The reflections of the PML and, beside it (unless pml_only), of ALID and SRM layers of the
// same thickness and of free faces; returns the PML's per probe.
std::vector<double> measure(const Case& s, bool pml_only = false) {
  const std::array<double, 3> inner{interior_x, interior_y, interior_z};
  std::array<double, 3> big{}, lined{};
  // The reference: a P wave from the force to a face and back reaches no receiver within the window.
  for (int k = 0; k < 3; ++k) {
    big[static_cast<std::size_t>(k)] = inner[static_cast<std::size_t>(k)] + 1500.0;
    lined[static_cast<std::size_t>(k)] = inner[static_cast<std::size_t>(k)] + lambda;
  }
  const auto reference = run(s, big, {});
  const std::vector<Probe> ps = probes(s.duration);
  std::vector<double> pml;
  std::printf("PML, %dD, GLL order %d, %s, f0 %.0f Hz, layers %.0f m (one P wavelength)%s:\n", s.dim, s.order,
              s.backend.c_str(), f0, lambda, s.attenuating ? ", Q_P 50 and Q_S 30 everywhere" : "");
  const auto report = [&](const char* what, const std::vector<std::vector<double>>& with, std::vector<double>* keep) {
    std::printf("  %-22s", what);
    for (std::size_t p = 0; p < ps.size(); ++p) {
      const double db = reflection_db(s, ps[p], with[p], reference[p]);
      std::printf("  %s %6.1f dB", ps[p].name, db);
      if (keep) keep->push_back(db);
    }
    std::printf("\n");
  };
  if (!pml_only) {
    report("free faces", run(s, inner, {}), nullptr);
    report("alid", run(s, lined, {layer(AbsorbingKind::Alid, s.dim)}), nullptr);
    report("srm", run(s, lined, {layer(AbsorbingKind::Srm, s.dim)}), nullptr);
  }
  report("pml", run(s, lined, {layer(AbsorbingKind::Pml, s.dim)}), &pml);
  return pml;
}

// One P wavelength thick: at most -60 dB at normal incidence and -40 dB at 60 degrees, P and S.
void expect_absorbs(const std::vector<double>& db) {
  ASSERT_EQ(db.size(), 4u);
  EXPECT_LT(db[0], -60.0) << "P, normal incidence";
  EXPECT_LT(db[1], -60.0) << "S, normal incidence";
  EXPECT_LT(db[2], -40.0) << "P, 60 degrees";
  EXPECT_LT(db[3], -40.0) << "S, 60 degrees";
}

TEST(Pml, ReflectsLittleAtNormalAndObliqueIncidence2d) { expect_absorbs(measure(Case{})); }

// A material that attenuates, inside the layer too (the viscoelastic law's memory variables beside
// the PML's at each point): the reference attenuates alike, and the layer absorbs as well.
TEST(Pml, AttenuatingMaterialInsideTheLayer) {
  Case s;
  s.attenuating = true;
  expect_absorbs(measure(s, true));
}

// The same in 3D on a GPU (an eighth of the block; 11M DOF in the reference): its time step below
// the 3D meshes' stable one.
TEST(Pml, ReflectsLittleAtNormalAndObliqueIncidence3dOnAGpu) {
  TREMOR_REQUIRE_GPU();
  Case s;
  s.dim = 3;
  s.backend = "cuda";
  s.time_step = 1.2e-3;
  expect_absorbs(measure(s));
}

// The PML's kernels on a GPU against the host's: the same histories to rounding in double (the
// GPU's sem operator adds with atomics), and in float to its precision.
TEST(Pml, GpuMatchesTheHost) {
  TREMOR_REQUIRE_GPU();
  const std::array<double, 3> lined{interior_x + lambda, interior_y + lambda, interior_z + lambda};
  const std::vector<AbsorbingLayer> layers{layer(AbsorbingKind::Pml, 2)};
  Case host;
  host.duration = 0.6;
  const auto reference = run(host, lined, layers);
  for (const char* precision : {"double", "float"}) {
    Case gpu = host;
    gpu.backend = "cuda";
    gpu.precision = precision;
    const auto with = run(gpu, lined, layers);
    double largest = 0.0, difference = 0.0;
    for (std::size_t p = 0; p < with.size(); ++p)
      for (std::size_t k = 0; k < with[p].size(); ++k) {
        largest = std::max(largest, std::abs(reference[p][k]));
        difference = std::max(difference, std::abs(with[p][k] - reference[p][k]));
      }
    std::printf("PML on a GPU in %s: largest difference from the host %.3e of the largest value\n", precision,
                difference / largest);
    EXPECT_GT(largest, 0.0);
    // Double: sums in another order over 400 steps; float: its 1e-7 grown over them.
    EXPECT_LT(difference, (std::string(precision) == "double" ? 1e-9 : 1e-3) * largest) << precision;
  }
}

// ------------------------------------------------------------------------------ Rayleigh wave

// A half-space: the block [0, width] x [0, depth] with a free surface at y = depth, a vertical
// force at the surface on the symmetry plane x = 0; layers on xmax and the bottom (ymin). The
// receiver on the surface 100 m in front of xmax's layer sees the Rayleigh wave (0.92 c_s) pass
// and what the layer sends back, the free surface running through it.
std::vector<double> surface_run(double width, double depth, const std::vector<AbsorbingLayer>& layers,
                                double duration, double dt) {
  Model model;
  model.source = "half-space";
  model.mesh = generate_rectangle({0.0, 0.0}, {width, depth},
                                  {static_cast<Size>(std::llround(width / h)), static_cast<Size>(std::llround(depth / h))},
                                  ElementType::QuadGLL, 4);
  model.materials.push_back(Material::from_speeds("rock", c_p, c_s, density));
  model.sections.push_back({"all", "rock", Formulation::PlaneStrain, 1.0});
  model.fixed.push_back({model.mesh.node_sets.at("xmin"), 0, 0.0, "", "symmetry x = 0"});
  PointSource force;
  force.nodes = {model.mesh.node_sets.at("ymax").front()};  // (0, depth)
  force.direction = {0.0, -1.0, 0.0};
  force.amplitude = 1e9;
  force.signal = Signal::ricker(f0);
  force.origin = "force";
  model.point_sources.push_back(force);
  Receiver receiver;
  receiver.name = "surface";
  receiver.positions = {{900.0, depth, 0.0}};
  model.receivers.push_back(receiver);
  model.absorbing = layers;
  ExplicitSettings settings;
  settings.duration = duration;
  settings.time_step = dt;
  settings.backend = "serial";
  model.explicit_settings = settings;
  model.validate();
  const auto result = explicit_fe::run_explicit(model);
  EXPECT_TRUE(result.ok()) << result.message;
  std::vector<double> u;
  const explicit_fe::History& history = result.histories.at(0);
  for (int c = 0; c < 2; ++c)
    for (std::size_t k = 0; k < history.n_samples(); ++k)
      u.push_back(history.value(k, 0, explicit_fe::Quantity::Displacement, c));
  return u;
}

TEST(Pml, RayleighWaveOnAHalfSpace) {
  const Case s;
  // The Rayleigh wave reaches the receiver at ~0.72 s and has passed by 0.95 s; the reference's
  // far faces (1600 m further) send nothing back before 1.2 s.
  const double depth = 600.0, width = 1000.0, duration = 1.1;
  const std::vector<double> reference = surface_run(width + 1600.0, depth + 1600.0, {}, duration, s.time_step);
  const Probe window{"Rayleigh", {}, 0.0, duration};
  std::printf("PML, Rayleigh wave on a half-space (2D, GLL order 4), layers %.0f m:\n", lambda);
  double pml = 0.0;
  for (const AbsorbingKind kind : {AbsorbingKind::Alid, AbsorbingKind::Srm, AbsorbingKind::Pml}) {
    AbsorbingLayer lined = layer(kind, 2);
    lined.faces = {BoxFace::XMax, BoxFace::YMin};
    const std::vector<double> with = surface_run(width + lambda, depth + lambda, {lined}, duration, s.time_step);
    const double db = reflection_db(s, window, with, reference);
    std::printf("  %-5s %6.1f dB\n", std::string(to_string(kind)).c_str(), db);
    if (kind == AbsorbingKind::Pml) pml = db;
  }
  EXPECT_LT(pml, -40.0);
}


// ------------------------------------------------------------------------------ long runs

// A long run of a square block lined with a PML on `faces`, a force's Ricker wavelet at its centre
// and a receiver there: its largest |u| overall, in the second half and in the last tenth, or the
// run's failure.
struct Block {
  double side;     // m
  int divisions;   // GLL elements of order 2 along each side
  double layer;    // m, the PML's thickness
  double frequency;  // Hz, the wavelet's and the layer's
  double multiaxial;
};

struct LongRun {
  bool ok = false;
  std::string message;
  long long steps = 0;
  double dt = 0.0, peak = 0.0, second_half = 0.0, last_tenth = 0.0;
  std::vector<std::string> warnings;
};

// The mesh's node at (x, y), -1 where none is.
Index node_at(const Mesh& mesh, double x, double y, double z = 0.0) {
  for (Index n = 0; n < mesh.n_nodes(); ++n)
    if (std::abs(mesh.node(n)[0] - x) < 1e-9 && std::abs(mesh.node(n)[1] - y) < 1e-9 &&
        (mesh.dim() == 2 || std::abs(mesh.node(n)[2] - z) < 1e-9))
      return n;
  return -1;
}

// A history of one node's 2D displacement: its largest |u| over the whole, over the second half
// and over the last tenth of its samples.
struct Decay {
  double peak = 0.0, second_half = 0.0, last_tenth = 0.0;
};
Decay decay_of(const explicit_fe::History& history) {
  Decay decay;
  const std::size_t n = history.n_samples();
  for (std::size_t k = 0; k < n; ++k) {
    const double size = std::hypot(history.value(k, 0, explicit_fe::Quantity::Displacement, 0),
                                   history.value(k, 0, explicit_fe::Quantity::Displacement, 1));
    decay.peak = std::max(decay.peak, size);
    if (k >= n / 2) decay.second_half = std::max(decay.second_half, size);
    if (k >= n - n / 10) decay.last_tenth = std::max(decay.last_tenth, size);
  }
  return decay;
}

LongRun long_run(const Block& block, const std::vector<BoxFace>& faces, const Material& material, long long steps) {
  Model model;
  model.source = "block";
  const double side = block.side;
  model.mesh =
      generate_rectangle({0.0, 0.0}, {side, side}, {block.divisions, block.divisions}, ElementType::QuadGLL, 2);
  model.materials.push_back(material);
  model.sections.push_back({"all", material.name, Formulation::PlaneStrain, 1.0});
  PointSource force;
  force.nodes = {node_at(model.mesh, side / 2.0, side / 2.0)};
  EXPECT_GE(force.nodes.front(), 0);
  force.direction = {1.0, 1.0, 0.0};
  force.amplitude = 1e9;
  force.signal = Signal::ricker(block.frequency);
  force.origin = "force";
  model.point_sources.push_back(force);
  Receiver receiver;
  receiver.name = "centre";
  receiver.nodes = force.nodes;
  receiver.every_n_steps = 100;
  model.receivers.push_back(receiver);
  AbsorbingLayer lined;
  lined.kind = AbsorbingKind::Pml;
  lined.faces = faces;
  lined.thickness = block.layer;
  lined.frequency = block.frequency;
  lined.multiaxial = block.multiaxial;
  model.absorbing.push_back(lined);
  ExplicitSettings settings;
  settings.backend = "serial";
  settings.precision = "float";  // (its subnormals flushed on the host: a double run decaying through them is slow)
  settings.duration = 1.0;
  model.explicit_settings = settings;
  // The pre-flight's time step (0.9 of the stable one), then the duration of `steps` of them.
  LongRun run;
  const explicit_fe::Preflight p = explicit_fe::preflight(model);
  run.dt = p.dt;
  run.warnings = p.warnings;
  model.explicit_settings->time_step = run.dt;
  model.explicit_settings->duration = static_cast<double>(steps) * run.dt;
  model.validate();
  const auto result = explicit_fe::run_explicit(model);
  run.ok = result.ok();
  run.message = result.message;
  run.steps = result.ok() ? result.steps : result.bad_step;
  if (!run.ok) return run;
  const Decay decay = decay_of(result.histories.at(0));
  run.peak = decay.peak;
  run.second_half = decay.second_half;
  run.last_tenth = decay.last_tenth;
  return run;
}

// 200,000 steps of a small block (2 x 2 elements inside) lined with a PML 2 elements thick (the
// thinnest it takes) on every face, or on all but the top, a free surface running into the side
// layers (a half-space); a wavelength of two elements: the motion decays into the layers and stays
// decayed, never growing, at the pre-flight's time step (d0 dt = 2.2 there: the corners' cross
// stiffness is stepped implicitly, explicit/pml.hpp).
void expect_long_run_decays(const std::vector<BoxFace>& faces, const char* what) {
  const Block block{6.0 * h, 6, 2.0 * h, c_p / (2.0 * h), 0.0};
  const long long steps = 200000;
  const LongRun run = long_run(block, faces, Material::from_speeds("rock", c_p, c_s, density), steps);
  ASSERT_TRUE(run.ok) << run.message;
  ASSERT_EQ(run.steps, steps);
  std::printf("PML, %s, 200,000 steps of dt %.3g s: peak |u| %.3e m, largest in the second half %.3e, in the last "
              "tenth %.3e\n", what, run.dt, run.peak, run.second_half, run.last_tenth);
  EXPECT_GT(run.peak, 0.0);
  // Decayed to rounding, far below the wave, and not growing from there.
  EXPECT_LT(run.second_half, 1e-12 * run.peak);
  EXPECT_LE(run.last_tenth, run.second_half);
}

TEST(Pml, TwoHundredThousandStepsWithoutGrowth) {
  expect_long_run_decays({BoxFace::XMin, BoxFace::XMax, BoxFace::YMin, BoxFace::YMax}, "every face");
  expect_long_run_decays({BoxFace::XMin, BoxFace::XMax, BoxFace::YMin}, "half-space");
}

// A force along `direction` at the node at `at` of `mesh` (of one material, its histories recorded
// there every 10 steps), the Ricker's f0, the layer given, for `duration` on the host.
Model force_in_a_lined_block(Mesh mesh, Material material, const std::array<double, 3>& at,
                             const std::array<double, 3>& direction, double f0, AbsorbingLayer layer,
                             double duration) {
  Model model;
  model.source = "block";
  model.mesh = std::move(mesh);
  const int dim = model.mesh.dim();
  model.sections.push_back({"all", material.name, dim == 2 ? Formulation::PlaneStrain : Formulation::Solid, 1.0});
  model.materials.push_back(std::move(material));
  PointSource force;
  force.nodes = {node_at(model.mesh, at[0], at[1], at[2])};
  EXPECT_GE(force.nodes.front(), 0);
  force.direction = direction;
  force.amplitude = 1e3;
  force.signal = Signal::ricker(f0);
  force.origin = "force";
  model.point_sources.push_back(force);
  Receiver receiver;
  receiver.name = "source";
  receiver.nodes = force.nodes;
  receiver.every_n_steps = 10;
  model.receivers.push_back(receiver);
  layer.kind = AbsorbingKind::Pml;
  layer.frequency = f0;
  model.absorbing.push_back(layer);
  ExplicitSettings settings;
  settings.backend = "serial";
  settings.duration = duration;
  model.explicit_settings = settings;
  model.validate();
  return model;
}

// GLL blocks of order 4 lined on every face (docs/verification.md, "PML"): rock (c_p 2000, c_s 1150
// m/s) in 7 x 7 elements of 20 m, a layer two elements thick designed for R 1e-6 (d0 1036 1/s), a
// 10 Hz Ricker force at the centre, 40 s (about 42,000 steps). Without the layer's grid damping
// its semi-discrete equations have a mode that grows at 734 rad/s, 2.4 1/s (tools/pml_eigenvalues.py;
// the run stops as unstable at 9.4 s: GrowthWatch.AGrowingLayerIsSaidAndTheRunStopped); with it
// (the default) the motion at the centre decays: the second half's largest |u| below 1e-6 of the
// pulse's (seen: 1.6e-8 of it, and 5.4e-17 m in the last tenth: the block's lowest modes, below
// the design frequency, which a C-PML absorbs slowest), the last tenth no larger.
TEST(Pml, AGllBlockLinedOnEveryFaceDecays) {
  AbsorbingLayer layer;
  layer.faces = {BoxFace::XMin, BoxFace::XMax, BoxFace::YMin, BoxFace::YMax};
  layer.thickness = 40.0;
  layer.reflection = 1e-6;
  const Model model = force_in_a_lined_block(
      generate_rectangle({0.0, 0.0}, {140.0, 140.0}, {7, 7}, ElementType::QuadGLL, 4),
      Material::from_speeds("rock", 2000.0, 1150.0, 2000.0), {70.0, 70.0, 0.0}, {1.0, 1.0, 0.0}, 10.0, layer, 40.0);
  const log::Quiet quiet;
  const auto result = explicit_fe::run_explicit(model);
  ASSERT_TRUE(result.ok()) << result.message;
  const Decay run = decay_of(result.histories.at(0));
  std::printf("GLL4 block lined on every face, R 1e-6, %lld steps: peak |u| %.3e m, largest in the second half "
              "%.3e, in the last tenth %.3e\n", result.steps, run.peak, run.second_half, run.last_tenth);
  EXPECT_GT(run.peak, 0.0);
  EXPECT_LT(run.second_half, 1e-6 * run.peak);
  EXPECT_LE(run.last_tenth, run.second_half);
}

// The C-PML in a plain steel block (docs/verification.md, "PML"): a 2 m square of 8 x 8 quad4 (or a
// 2 m cube of 8 x 8 x 8 hex8), a layer 0.5 m (2 elements) thick on `faces`, the others free, a
// 600 Hz force at (1, 1.5, 1) along y, the largest |u| there after the pulse.
Decay steel_block(int dim, const std::vector<BoxFace>& faces, double multiaxial, double duration) {
  AbsorbingLayer layer;
  layer.faces = faces;
  layer.thickness = 0.5;
  layer.multiaxial = multiaxial;
  const Model model = force_in_a_lined_block(
      dim == 2 ? generate_rectangle({0.0, 0.0}, {2.0, 2.0}, {8, 8}, ElementType::Quad4, 1)
               : generate_box({0.0, 0.0, 0.0}, {2.0, 2.0, 2.0}, {8, 8, 8}, ElementType::Hex8, 1),
      Material::from_youngs("steel", 210e9, 0.3, 7850.0), {1.0, 1.5, dim == 2 ? 0.0 : 1.0}, {0.0, 1.0, 0.0}, 600.0,
      layer, duration);
  const log::Quiet quiet;
  const auto result = explicit_fe::run_explicit(model);
  EXPECT_TRUE(result.ok()) << result.message;
  if (!result.ok()) return {};
  const Decay run = decay_of(result.histories.at(0));
  std::printf("steel block (%dD), C-PML 2 elements thick on %zu faces, multiaxial %g, %lld steps: peak |u| %.3e m, "
              "largest in the second half %.3e, in the last tenth %.3e\n", dim, faces.size(), multiaxial,
              result.steps, run.peak, run.second_half, run.last_tenth);
  return run;
}

// With the mass side's d taken at the nodes, this block grew (to 1e77 m in 0.6 s): its semi-discrete
// equations have growing modes near the mesh's highest frequencies. With d averaged as the lumped
// mass weighs it (PmlNodeProfile) they have none, and the run decays over 1.2 s (38,000 steps): the
// second half's largest |u| below 1e-2 of the pulse's (seen: 1.5e-12 against 4.7e-9 m; the rest is
// the block's lowest modes, far below the layer's design frequency, which it absorbs slowly), the
// last tenth below the second half by a fifth (seen: 2.1e-13, a seventh).
TEST(Pml, ALinearLayerTwoElementsThickInSteelDecays) {
  const Decay run = steel_block(2, {BoxFace::XMin, BoxFace::XMax}, 0.0, 1.2);
  EXPECT_GT(run.peak, 0.0);
  EXPECT_LT(run.second_half, 1e-2 * run.peak);
  EXPECT_LT(run.last_tenth, 0.8 * run.second_half);
}

// The same in 3D, hex8, every face lined: with the mass side's d at the nodes it grew (1.4e8 m by
// 0.09 s, 3.3e82 m by 0.3 s); now it decays over 0.15 s (5,452 steps): the second half's largest
// |u| below 1e-4 of the pulse's (seen: 4.3e-15 against 1.5e-8 m, 3e-7), the last tenth below half
// the second half (seen: 7.7e-16, a sixth).
TEST(Pml, ALinearLayerOnEveryFaceOfASteelCubeDecays) {
  const Decay run = steel_block(3, {BoxFace::XMin, BoxFace::XMax, BoxFace::YMin, BoxFace::YMax, BoxFace::ZMin,
                                    BoxFace::ZMax}, 0.0, 0.15);
  EXPECT_GT(run.peak, 0.0);
  EXPECT_LT(run.second_half, 1e-4 * run.peak);
  EXPECT_LT(run.last_tenth, 0.5 * run.second_half);
}

// With the multi-axial ratio p 0.2, what the pre-flight's warning advises at most, it decays much
// faster and stays decayed: the largest |u| of the second half below 1e-12 of the pulse's (seen:
// 9.7e-23 against 5.9e-9 m), and of the last tenth no larger.
TEST(Pml, MultiaxialKeepsAThinLayerInSteelDecaying) {
  const Decay run = steel_block(2, {BoxFace::XMin, BoxFace::XMax}, 0.2, 1.2);
  EXPECT_GT(run.peak, 0.0);
  EXPECT_LT(run.second_half, 1e-12 * run.peak);
  EXPECT_LE(run.last_tenth, run.second_half);
}

// An orthotropic medium whose quasi-shear slowness curve turns back (Becache, Fauqueux and Joly
// 2003, their unstable medium: C11 4, C22 20, C12 7.5, C66 2 in units of rho (1000 m/s)^2; C33 20,
// C44 = C55 2 out of plane): the slowness and group velocity of some waves point apart along x and
// along y. The pre-flight warns of it; a C-PML on every face grows until the run is not finite
// (at 2,300 steps here), and the multi-axial PML with p 0.2 decays and stays decayed over
// 30,000 steps (p 0.1 still grows, from ~20 s: docs/verification.md).
// The layer's frequency shift against the step and the sources: alpha_max dt above 1 (a shift
// beyond what the step resolves, with which a layer grew in runs that ended finite) refused naming
// the layer; a design frequency a decade from the sources' warned; the default (pi f0) neither.
TEST(Pml, AShiftBeyondTheStepIsRefusedAndAFarDesignFrequencyWarned) {
  Model model;
  model.source = "pml.toml";
  model.mesh = generate_rectangle({0.0, 0.0}, {12.0 * h, 12.0 * h}, {12, 12}, ElementType::Quad4, 1);
  model.materials.push_back(Material::from_speeds("rock", c_p, c_s, density));
  model.sections.push_back({"all", "rock", Formulation::PlaneStrain, 1.0});
  PointSource force;
  force.position = std::array<double, 3>{6.0 * h, 6.0 * h, 0.0};
  force.direction = {0.0, 1.0, 0.0};
  force.signal = Signal::ricker(f0);
  model.point_sources.push_back(force);
  AbsorbingLayer lined;
  lined.kind = AbsorbingKind::Pml;
  lined.faces = {BoxFace::XMin, BoxFace::XMax, BoxFace::YMin, BoxFace::YMax};
  lined.thickness = 3.0 * h;
  lined.origin = "pml.toml:30";
  model.absorbing.push_back(lined);
  ExplicitSettings settings;
  settings.duration = 0.1;
  model.explicit_settings = settings;
  const log::Quiet quiet;
  const auto far = [](const explicit_fe::Preflight& p) {
    return std::count_if(p.warnings.begin(), p.warnings.end(), [](const std::string& w) {
      return w.find("pml.toml:30: absorbing layer (pml): alpha_max") != std::string::npos &&
             w.find("a decade or more from the sources' 10 Hz") != std::string::npos;
    });
  };
  const explicit_fe::Preflight p = explicit_fe::preflight(model);
  EXPECT_EQ(far(p), 0);
  model.absorbing[0].frequency = 0.5;  // a twentieth of the source's
  EXPECT_EQ(far(explicit_fe::preflight(model)), 1);
  model.absorbing[0].alpha_max = 2.0 / p.dt;  // alpha_max dt 2 (the step does not depend on the layer)
  test::expect_contains(test::error_of([&] { (void)explicit_fe::preflight(model); }),
                        {"pml.toml:30: absorbing layer (pml): alpha_max", "is 2, above 1"});
  model.absorbing[0].alpha_max = 0.5 / p.dt;
  EXPECT_NO_THROW((void)explicit_fe::preflight(model));
  // A source inside the layer (3 elements thick) is said, naming it; the one at the centre was not.
  const auto inside = [](const explicit_fe::Preflight& q) {
    return std::count_if(q.warnings.begin(), q.warnings.end(), [](const std::string& w) {
      return w.find("force: the source lies inside a PML") != std::string::npos;
    });
  };
  EXPECT_EQ(inside(p), 0);
  model.point_sources[0].position = std::array<double, 3>{1.5 * h, 6.0 * h, 0.0};
  model.point_sources[0].origin = "force";
  EXPECT_EQ(inside(explicit_fe::preflight(model)), 1);
}

TEST(Pml, AnisotropicMediumNeedsTheMultiaxialRatio) {
  constexpr double rho = 2500.0, unit = rho * 1e6;  // Pa
  std::array<double, 36> c{};
  const double normal[3][3] = {{4.0, 7.5, 0.0}, {7.5, 20.0, 0.0}, {0.0, 0.0, 20.0}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c[static_cast<std::size_t>(6 * i + j)] = unit * normal[i][j];
  c[21] = c[28] = c[35] = 2.0 * unit;
  const Material medium = Material::from_stiffness("orthotropic", c, rho);
  // Its worst n_x V_x / |V| and n_y V_y / |V|; 0 for the isotropic rock.
  const double margin_x = medium.pml_margin(0, 2), margin_y = medium.pml_margin(1, 2);
  EXPECT_LT(margin_x, -0.05);
  EXPECT_LT(margin_y, -0.05);
  EXPECT_EQ(Material::from_speeds("rock", c_p, c_s, density).pml_margin(0, 2), 0.0);
  const std::vector<BoxFace> every = {BoxFace::XMin, BoxFace::XMax, BoxFace::YMin, BoxFace::YMax};
  // 24 elements of 50 m, a layer of 6, a 5 Hz wavelet (the slowest wave's wavelength 3 elements).
  Block block{1200.0, 24, 300.0, 5.0, 0.0};
  const log::Quiet quiet;
  const LongRun classical = long_run(block, every, medium, 30000);
  EXPECT_FALSE(classical.ok);
  EXPECT_LT(classical.steps, 5000);
  test::expect_contains(classical.message, {"not finite", "raise its multiaxial"});
  const auto warned = [](const LongRun& run) {
    return std::any_of(run.warnings.begin(), run.warnings.end(), [](const std::string& w) {
      return w.find("slowness and group velocity point apart along x, y") != std::string::npos;
    });
  };
  EXPECT_TRUE(warned(classical));
  block.multiaxial = 0.2;
  const LongRun multiaxial = long_run(block, every, medium, 30000);
  ASSERT_TRUE(multiaxial.ok) << multiaxial.message;
  EXPECT_FALSE(warned(multiaxial));
  std::printf("PML in an orthotropic medium (margins %.3f along x, %.3f along y), dt %.3g s: the C-PML not "
              "finite at step %lld; multiaxial 0.2 over 30,000 steps: peak |u| %.3e m, largest in the second half "
              "%.3e, in the last tenth %.3e\n",
              margin_x, margin_y, multiaxial.dt, classical.steps, multiaxial.peak, multiaxial.second_half,
              multiaxial.last_tenth);
  // Decayed far below the wave (to float's rounding of it) and not growing from there.
  EXPECT_LT(multiaxial.second_half, 1e-6 * multiaxial.peak);
  EXPECT_LE(multiaxial.last_tenth, multiaxial.second_half);
}

}  // namespace
}  // namespace tremor
