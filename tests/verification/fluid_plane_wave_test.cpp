// A plane wave in water meeting a solid at normal incidence, against the reflection and
// transmission of two half-spaces: the coupled run (explicit/fluid.hpp's FluidTerm, stepped as a
// term of the solid's subdomain, as a run steps it) on a strip along x, water on [0, Lw] and the
// solid on [Lw, Lw + Ls].
//
// The water's left end x = 0 is rigid (the fluid's natural boundary) and injects a volume V(t)
// over the strip's cross-section A: the plane wave p_i(x, t) = rho1 c1 V'(t - x / c1) / A. At the
// interface it reflects with R = (Z2 - Z1) / (Z2 + Z1) and transmits a displacement
// u(x, t) = 2 Z1 V(t - Lw / c1 - (x - Lw) / c2) / (A (Z1 + Z2)), Z = rho c (the solid's P wave:
// its nodes held in y, so that it carries the wave of a half-space; the strip's free top and
// bottom carry no shear stress then, and the water's rigid ones none of the fluid's flux).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/fem/coupling.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/mesh/generate.hpp"
#include "unit/explicit_test_models.hpp"

namespace tremor::explicit_fe {
namespace TREMOR_TEST_FILE {

constexpr double pi = std::numbers::pi;
constexpr double rho1 = 1000.0, c1 = 1480.0;    // water
constexpr double f0 = 1e6, V0 = 1e-12;          // the Ricker's peak frequency; the volume, m^3
constexpr double Lw = 6e-3, Ls = 12e-3, H = 0.25e-3;  // the water's and the solid's length; the height

double ricker(double t) {
  const double a = pi * f0 * (t - 1.5 / f0);
  return (1.0 - 2.0 * a * a) * std::exp(-a * a);
}
double ricker_rate(double t) {  // d/dt
  const double a = pi * f0 * (t - 1.5 / f0);
  return pi * f0 * (-6.0 * a + 4.0 * a * a * a) * std::exp(-a * a);
}

struct Errors {
  double pressure = 0.0, displacement = 0.0;  // relative L2 over the windows
  double reflected = 0.0;                     // the reflected pulse's peak over the incident's
  double water_displacement = 0.0, water_velocity = 0.0;  // the water's particle motion, relative L2
};

// The strip's model (GLL quadrilaterals of order 4), its water receiver's node and its solid one's.
struct Strip {
  Model model;
  Index water_node = -1, solid_node = -1;
  double t_pressure = 0.0, t_solid = 0.0;  // the windows' ends
};
constexpr double x_s = 2e-3;  // the solid's receiver, from the interface

// `water`: the water's length, the solid the rest of Lw + Ls; the volume source at x = source_x;
// `release`: the end x = 0 a pressure-release boundary (else rigid). The water's receiver half way
// along the water.
Strip strip(const Material& solid, double c2, double water = Lw, double source_x = 0.0, bool release = false) {
  Strip out;
  Model& model = out.model;
  model.source = "strip";
  model.mesh = generate_rectangle({0.0, 0.0}, {Lw + Ls, H}, {72, 1}, ElementType::QuadGLL, 4);
  const Mesh& mesh = model.mesh;
  for (Index e = 0; e < mesh.n_elements(); ++e)
    model.mesh.element_sets[test::element_centre(mesh, e, 0) < water ? "water" : "solid"].push_back(e);
  model.materials.push_back(solid);
  model.materials.push_back(Material::from_sound_speed("water", c1, rho1));
  model.sections.push_back({"solid", solid.name, Formulation::PlaneStrain, 1.0});
  model.sections.push_back({"water", "water", Formulation::PlaneStrain, 1.0});
  // The volume source: V0 shared over the wall's 5 nodes by their GLL weights (the lumped mass's).
  const double weights[] = {0.1, 49.0 / 90.0, 32.0 / 45.0, 49.0 / 90.0, 0.1};  // on [-1, 1], sum 2
  FixedDof held{{}, 1, 0.0, "", "held in y"}, free{{}, FixedDof::pressure, 0.0, "", "pressure release"};
  for (Index node = 0; node < mesh.n_nodes(); ++node) {
    const auto x = mesh.node(node);
    if (x[0] < 1e-12) free.nodes.push_back(node);
    if (std::abs(x[0] - source_x) < 1e-9) {
      PointSource source;
      source.nodes = {node};
      source.volume = true;
      const int k = static_cast<int>(std::lround(x[1] / H * 4.0));  // the GLL points of one element
      source.amplitude = V0 * weights[k] / 2.0;
      source.signal = Signal::ricker(f0);
      source.origin = "wall";
      model.point_sources.push_back(source);
    }
    if (std::abs(x[0] - water / 2.0) < 1e-9 && x[1] < 1e-12) out.water_node = node;
    if (std::abs(x[0] - (water + x_s)) < 1e-9 && x[1] < 1e-12) out.solid_node = node;
    if (x[0] >= water - 1e-12) held.nodes.push_back(node);
  }
  EXPECT_EQ(model.point_sources.size(), 5u);
  model.fixed.push_back(held);
  if (release) model.fixed.push_back(free);
  // The wall's echo of the reflected wave reaches x = water / 2; with a source inside the water,
  // the interface's echo of the wave it sends right.
  out.t_pressure = release ? (1.5 * water - source_x) / c1 : 2.5 * water / c1;
  const double solid_length = Lw + Ls - water;
  out.t_solid = std::min(3.0 * water / c1 + x_s / c2, water / c1 + (2.0 * solid_length - x_s) / c2);
  ExplicitSettings settings;
  settings.duration = std::max(out.t_pressure, out.t_solid);
  model.explicit_settings = settings;
  model.validate();
  return out;
}

// The transmitted displacement at the solid's receiver, at t.
double transmitted(const Material& solid, double c2, double t) {
  const double z1 = rho1 * c1, z2 = solid.density * c2;
  return 2.0 * z1 * V0 * ricker(t - Lw / c1 - x_s / c2) / (H * (z1 + z2));
}

// The strip of GLL quadrilaterals of order 4, 0.25 mm (72 x 1): about 14 nodes per wavelength in
// the water at 2.5 f0, where the Ricker's spectrum has fallen to 1.5% of its peak. A whole run
// (run_explicit: the pre-flight, the set-up of the model's solid and its fluid, the time loop)
// records the pressure at Lw / 2, at its node and at a position inside an element above it, and
// the displacement 2 mm inside the solid; each compared over a window ending before the next wave
// reaches it (the wall's reflection of the reflected wave; the solid's far end's).
Errors plane_wave(const std::string& backend, const Material& solid, double c2, double expected_r) {
  Strip made = strip(solid, c2);
  Model& model = made.model;
  const double z1 = rho1 * c1, z2 = solid.density * c2, A = H;
  const double t_pressure = made.t_pressure, t_solid = made.t_solid;
  Receiver water, hydrophone, transmitted_to;
  water.name = "water";
  water.nodes = {made.water_node};
  hydrophone.name = "hydrophone";
  hydrophone.positions = {{Lw / 2.0, H / 3.0, 0.0}};
  for (Receiver* r : {&water, &hydrophone}) {
    r->displacement = false;
    r->pressure = true;
  }
  transmitted_to.name = "solid";
  transmitted_to.nodes = {made.solid_node};
  Receiver particle;  // the water's motion at the pressure's node, from the potential
  particle.name = "particle";
  particle.nodes = {made.water_node};
  particle.velocity = true;
  for (Receiver* r : {&water, &hydrophone, &transmitted_to, &particle}) {
    r->origin = "receiver";
    model.receivers.push_back(*r);
  }
  RunOptions options;
  options.backend = backend;
  const ExplicitRun run = run_explicit(model, options);
  EXPECT_TRUE(run.ok()) << run.message;
  std::map<std::string, const History*> by_name;
  for (const History& history : run.histories) by_name[history.name] = &history;
  EXPECT_EQ(by_name.size(), 4u);
  if (by_name.size() != 4u) return {1.0, 1.0, 0.0, 1.0, 1.0};
  const History &pressure = *by_name["water"], &inside = *by_name["hydrophone"], &displacement = *by_name["solid"];
  const History& particle_motion = *by_name["particle"];
  EXPECT_TRUE(particle_motion.potential);
  EXPECT_EQ(pressure.components(), 1);
  EXPECT_EQ(pressure.n_samples(), static_cast<std::size_t>(run.steps));  // every step but the last
  EXPECT_EQ(inside.locations.front().nodes.size(), 25u);  // a GLL quadrilateral of order 4
  const double R = (z2 - z1) / (z2 + z1);
  EXPECT_NEAR(R, expected_r, 5e-4);
  Errors out;
  double error = 0.0, norm = 0.0, incident = 0.0, reflected = 0.0, across = 0.0;
  for (std::size_t n = 0; n < pressure.n_samples(); ++n) {
    const double t = pressure.times[n], p = pressure.value(n, 0, Quantity::Pressure, 0);
    // The plane wave is the same across the strip (its load and mass alike in y): the position
    // above the node records what the node does, to rounding.
    across = std::max(across, std::abs(inside.value(n, 0, Quantity::Pressure, 0) - p));
    if (t > t_pressure) continue;
    const double p_i = z1 * V0 * ricker_rate(t - Lw / 2.0 / c1) / A;
    const double p_r = R * z1 * V0 * ricker_rate(t - 1.5 * Lw / c1) / A;
    error += (p - p_i - p_r) * (p - p_i - p_r);
    norm += (p_i + p_r) * (p_i + p_r);
    // (the pulses centred at Lw / 2c1 + 1.5 / f0 and 3 Lw / 2c1 + 1.5 / f0: split half way)
    double& peak = t < Lw / c1 + 1.5 / f0 ? incident : reflected;
    peak = std::max(peak, std::abs(p));
  }
  EXPECT_LT(across, 1e-9 * incident);
  out.pressure = std::sqrt(error / norm);
  out.reflected = reflected / incident;
  error = norm = 0.0;
  for (std::size_t n = 0; n < displacement.n_samples(); ++n) {
    const double t = displacement.times[n];
    if (t > t_solid) break;
    const double u = transmitted(solid, c2, t);
    const double x = displacement.value(n, 0, Quantity::Displacement, 0);
    error += (x - u) * (x - u);
    norm += u * u;
  }
  out.displacement = std::sqrt(error / norm);
  // The water's particle displacement: V(t - x / c1) / A incident, -R times it reflected (the
  // pressure's R with the sign of the direction), and its velocity V'.
  double u_error = 0.0, u_norm = 0.0, v_error = 0.0, v_norm = 0.0;
  for (std::size_t n = 0; n < particle_motion.n_samples(); ++n) {
    const double t = particle_motion.times[n];
    if (t > t_pressure) break;
    const double ta = t - Lw / 2.0 / c1, tb = t - 1.5 * Lw / c1;
    const double u = V0 / A * (ricker(ta) - R * ricker(tb)), v = V0 / A * (ricker_rate(ta) - R * ricker_rate(tb));
    const double ux = particle_motion.value(n, 0, Quantity::Displacement, 0);
    const double vx = particle_motion.value(n, 0, Quantity::Velocity, 0);
    u_error += (ux - u) * (ux - u);
    u_norm += u * u;
    v_error += (vx - v) * (vx - v);
    v_norm += v * v;
  }
  out.water_displacement = std::sqrt(u_error / u_norm);
  out.water_velocity = std::sqrt(v_error / v_norm);
  std::printf("%s: pressure L2 error %.2e, transmitted displacement %.2e, reflected peak ratio %.4f (R %.4f); the "
              "water's displacement %.2e, velocity %.2e\n",
              solid.name.c_str(), out.pressure, out.displacement, out.reflected, R, out.water_displacement,
              out.water_velocity);
  return out;
}

const Material steel = Material::from_speeds("steel", 5960.0, 3260.0, 7850.0);
const Material aluminium = Material::from_speeds("aluminium", 6320.0, 3130.0, 2700.0);

// A pressure-release end reflects with R = -1: the water twice as long (12 mm), the source 3 mm
// inside it sending half its volume each way, p = rho1 c1 V'(t - |x - xs| / c1) / 2A, and the
// left-going half coming back from x = 0 inverted. At x = 6 mm, before the interface's echo:
// within the 1% of the half-spaces, and the inverted pulse's peak -1 times the direct one's.
TEST(FluidPlaneWave, APressureReleaseEndReflectsInverted) {
  constexpr double water = 12e-3, xs = 3e-3, xr = water / 2.0;
  Strip made = strip(steel, 5960.0, water, xs, true);
  Receiver receiver;
  receiver.name = "water";
  receiver.nodes = {made.water_node};
  receiver.displacement = false;
  receiver.pressure = true;
  receiver.origin = "receiver";
  made.model.receivers.push_back(receiver);
  made.model.explicit_settings->duration = made.t_pressure;
  RunOptions options;
  options.backend = "openmp";
  const ExplicitRun run = run_explicit(made.model, options);
  ASSERT_TRUE(run.ok()) << run.message;
  ASSERT_EQ(run.histories.size(), 1u);
  const History& history = run.histories.front();
  const double z1 = rho1 * c1, A = H;
  double error = 0.0, norm = 0.0, direct = 0.0, inverted = 0.0;
  for (std::size_t n = 0; n < history.n_samples(); ++n) {
    const double t = history.times[n], p = history.value(n, 0, Quantity::Pressure, 0);
    const double expected = z1 * V0 / (2.0 * A) * (ricker_rate(t - (xr - xs) / c1) - ricker_rate(t - (xr + xs) / c1));
    error += (p - expected) * (p - expected);
    norm += expected * expected;
    // (the pulses centred at 3 mm / c1 + 1.5 / f0 and 9 mm / c1 + 1.5 / f0: split half way)
    if (t < 6e-3 / c1 + 1.5 / f0)
      direct = std::abs(p) > std::abs(direct) ? p : direct;
    else
      inverted = std::abs(p) > std::abs(inverted) ? p : inverted;
  }
  std::printf("pressure release: pressure L2 error %.2e, inverted peak over direct %.4f\n", std::sqrt(error / norm),
              inverted / direct);
  EXPECT_LT(std::sqrt(error / norm), 0.01);
  EXPECT_NEAR(inverted / direct, -1.0, 0.01);
}

// Bounds: the 1% on the pressure (incident and reflected), the transmitted displacement
// and the water's particle motion; the peak ratio within 1% of R (a peak sampled at the step).
void expect_two_half_spaces(const Errors& e, double R) {
  EXPECT_LT(e.pressure, 0.01);
  EXPECT_LT(e.displacement, 0.01);
  EXPECT_NEAR(e.reflected, R, 0.01);
  EXPECT_LT(e.water_displacement, 0.01);
  EXPECT_LT(e.water_velocity, 0.01);
}

TEST(FluidPlaneWave, WaterOnSteelReflectsAndTransmitsAsTwoHalfSpaces) {
  expect_two_half_spaces(plane_wave("openmp", steel, 5960.0, 0.9387), 0.9387);
}

TEST(FluidPlaneWave, WaterOnAluminiumReflectsAndTransmitsAsTwoHalfSpaces) {
  expect_two_half_spaces(plane_wave("openmp", aluminium, 6320.0, 0.8404), 0.8404);
}

// The pre-flight's step is set by the solid (steel's P wave, 4 times water's sound speed), and the
// points per wavelength count the water's.
// Steel under water: the solid sets the step, the coupling shortening it by little (the fluid's
// mass at the interface is small beside the steel's).
TEST(FluidPlaneWave, TheSolidSetsTheStableStep) {
  const Strip made = strip(steel, 5960.0);
  RunOptions options;
  options.backend = "openmp";
  const Preflight p = preflight(made.model, options);
  EXPECT_EQ(p.stable_by.find("set by the fluid"), std::string::npos) << p.stable_by;
  EXPECT_NE(p.stable_by.find("coupling"), std::string::npos) << p.stable_by;
  const double solid = stable_step(fem::solid_part(made.model), Exec::openmp()).dt;
  EXPECT_LE(p.stable_dt, solid);
  EXPECT_GT(p.stable_dt, 0.97 * solid);  // (2% below here: the water weighs 0.13 of the steel)
  EXPECT_GT(p.points_per_wavelength, 0.0);
}

// A light solid under water (1200 kg/m^3, 1400 and 700 m/s: a polymer; quad4 of 0.5 mm): the
// interface, loaded by both masses, is stiffer than either side alone. The smaller of the two
// steps, 291.6 ns, let the pressure grow by 10^50 in 80 us at 0.9 of it; by hand the run grows at
// 255 ns and does not at 245 ns. The pre-flight's coupled bound (203 ns) keeps every history within
// its early amplitude over the 80 us.
TEST(FluidPlaneWave, ALightSolidUnderWaterStaysStable) {
  Model model = io::read_model_file(test::data_path("cli/water_on_steel.toml"));
  for (Material& material : model.materials)
    if (material.name == "steel") material = Material::from_speeds("steel", 1400.0, 700.0, 1200.0);
  model.output.reset();
  model.explicit_settings->duration = 80e-6;
  RunOptions options;
  options.backend = "openmp";
  const ExplicitRun run = run_explicit(model, options);
  ASSERT_TRUE(run.ok()) << run.message;
  EXPECT_NE(run.preflight.stable_by.find("coupling"), std::string::npos) << run.preflight.stable_by;
  EXPECT_LT(run.preflight.stable_dt, 2.45e-7);
  for (const History& history : run.histories) {
    const std::size_t n = history.values.size(), fifth = n / 5;
    double early = 0.0, late = 0.0;
    for (std::size_t k = 0; k < fifth; ++k) early = std::max(early, std::abs(history.values[k]));
    for (std::size_t k = n - fifth; k < n; ++k) late = std::max(late, std::abs(history.values[k]));
    // Bound: 3 x: waves reverberate in the closed box (no layer), they do not grow.
    EXPECT_LT(late, 3.0 * early) << history.name;
    EXPECT_GT(early, 0.0) << history.name;
  }
}

TEST(FluidPlaneWaveGpu, WaterOnSteelReflectsAndTransmitsAsTwoHalfSpaces) {
  TREMOR_REQUIRE_GPU();
  expect_two_half_spaces(plane_wave("cuda", steel, 5960.0, 0.9387), 0.9387);
}

}  // namespace
}  // namespace tremor::explicit_fe
