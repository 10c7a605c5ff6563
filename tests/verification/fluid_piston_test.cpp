// Pistons in water (docs/model-file.md, "Fluids"; model/transducer.hpp), a whole run each
// (run_explicit: the model's transducer, the fluid's loading, the coupled time loop):
//
// - a wall of a 2D water strip driven as one piston sends a plane wave: by velocity v(t),
//   p(x, t) = rho c v(t - x / c); by pressure P(t), p(x, t) = P(t - x / c), and the pressure the
//   wall's nodes record is P(t) itself;
// - a baffled circular piston of radius a in 3D, its velocity v(t): on its axis the pressure is
//   exactly (the Rayleigh integral on the axis; Kinsler et al., "Fundamentals of Acoustics",
//   sec. 7.4, in the time domain)
//
//     p(z, t) = rho c [v(t - z / c) - v(t - sqrt(z^2 + a^2) / c)],
//
//   the plane wave from the face less the edge's wave.
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
#include "tremor/mesh/generate.hpp"
#include "unit/explicit_test_models.hpp"

namespace tremor::explicit_fe {
namespace TREMOR_TEST_FILE {

constexpr double rho = 1000.0, c = 1480.0;  // water
constexpr double f0 = 1e6;                  // the Ricker's peak frequency

// The model's pressure histories by receiver name, from a run on `backend`.
std::map<std::string, History> run_pressures(Model& model, const std::string& backend) {
  model.validate();
  RunOptions options;
  options.backend = backend;
  ExplicitRun run = run_explicit(model, options);
  EXPECT_TRUE(run.ok()) << run.message;
  std::map<std::string, History> out;
  for (History& history : run.histories) out[history.name] = std::move(history);
  return out;
}

Receiver pressure_at(const std::string& name, Index node) {
  Receiver r;
  r.name = name;
  r.nodes = {node};
  r.displacement = false;
  r.pressure = true;
  r.origin = name;
  return r;
}

// `mesh` with water where its elements' centres lie below `bound` along `axis`, `solid` beyond.
Model water_below(Mesh mesh, int axis, double bound, const Material& solid, Formulation formulation) {
  Model model;
  model.source = "piston";
  model.mesh = std::move(mesh);
  for (Index e = 0; e < model.mesh.n_elements(); ++e)
    model.mesh.element_sets[test::element_centre(model.mesh, e, axis) < bound ? "water" : solid.name].push_back(e);
  model.materials.push_back(solid);
  model.materials.push_back(Material::from_sound_speed("water", c, rho));
  model.sections.push_back({solid.name, solid.name, formulation, 1.0});
  model.sections.push_back({"water", "water", formulation, 1.0});
  return model;
}

// A piston on `surface` centred at `centre`, driven by a Ricker of peak frequency f0.
Transducer piston(const std::string& surface, std::array<double, 3> centre, double radius, Transducer::Drive drive,
                  double amplitude) {
  Transducer t;
  t.name = "probe";
  t.mode = Transducer::Mode::Piston;
  t.drive = drive;
  t.position = centre;
  t.radius = radius;
  t.surface = surface;
  t.amplitude = amplitude;
  t.signal = Signal::ricker(f0);
  t.origin = "piston";
  return t;
}

// Relative L2 distance of a pressure history to `exact` over t <= end.
template <class Exact>
double error_of(const History& history, double end, Exact&& exact) {
  double error = 0.0, norm = 0.0;
  for (std::size_t n = 0; n < history.n_samples(); ++n) {
    const double t = history.times[n];
    if (t > end) break;
    const double p = history.value(n, 0, Quantity::Pressure, 0), e = exact(t);
    error += (p - e) * (p - e);
    norm += e * e;
  }
  return std::sqrt(error / norm);
}

// The strip of water [0, 6 mm] x [0, 0.25 mm] on steel [6, 18 mm] (GLL quadrilaterals of order 4,
// 0.25 mm: 14 nodes per wavelength at 2.5 f0, where the Ricker's spectrum has fallen to 1.5%),
// its wall x = 0 one piston (a strip centred on it, half-width the wall's height), a hydrophone
// half way along the water and one on the wall; compared until the interface's echo comes back.
TEST(FluidPiston, AWallDrivenByVelocityOrPressureSendsAPlaneWave) {
  constexpr double Lw = 6e-3, Ls = 12e-3, H = 0.25e-3;
  for (const auto drive : {Transducer::Drive::Velocity, Transducer::Drive::Pressure}) {
    Model model = water_below(generate_rectangle({0.0, 0.0}, {Lw + Ls, H}, {72, 1}, ElementType::QuadGLL, 4), 0, Lw,
                              Material::from_speeds("steel", 5960.0, 3260.0, 7850.0), Formulation::PlaneStrain);
    const Mesh& mesh = model.mesh;
    FixedDof held{{}, 1, 0.0, "", "held in y"};
    Index middle = -1, wall = -1;
    for (Index node = 0; node < mesh.n_nodes(); ++node) {
      const auto x = mesh.node(node);
      if (x[0] >= Lw - 1e-12) held.nodes.push_back(node);
      if (std::abs(x[0] - Lw / 2.0) < 1e-9 && x[1] < 1e-12) middle = node;
      if (x[0] < 1e-12 && x[1] < 1e-12) wall = node;
    }
    model.fixed.push_back(held);
    const bool velocity = drive == Transducer::Drive::Velocity;
    add_transducer(model, piston("xmin", {0.0, 0.5 * H, 0.0}, H, drive, velocity ? 1e-3 : 1e3));  // m/s, Pa
    model.receivers = {pressure_at("middle", middle), pressure_at("wall", wall)};
    ExplicitSettings settings;
    settings.duration = 1.5 * Lw / c;  // the interface's echo reaches the middle
    model.explicit_settings = settings;
    const auto histories = run_pressures(model, "openmp");
    ASSERT_EQ(histories.size(), 2u);
    const double scale = velocity ? rho * c * 1e-3 : 1e3;
    const auto plane = [&](double x) {
      return [=](double t) { return scale * Signal::ricker(f0).value(t - x / c); };
    };
    const double middle_error = error_of(histories.at("middle"), settings.duration, plane(Lw / 2.0));
    const double wall_error = error_of(histories.at("wall"), 2.0 * Lw / c, plane(0.0));
    std::printf("driven by %s: pressure L2 error half way %.2e, at the wall %.2e\n", velocity ? "velocity" : "pressure",
                middle_error, wall_error);
    // Bound: 1%, as for a volume source's wave (FluidGreen); a pressure drive holds the wall's pressure to
    // the second difference of its closed-form potential (O(dt^2): 1e-3 at this step).
    EXPECT_LT(middle_error, 0.01);
    EXPECT_LT(wall_error, velocity ? 0.01 : 1e-3);
  }
}

// A quarter of the water over the piston, [0, 6] x [0, 6] x [0, 8.4] mm in 0.3 mm GLL hexahedra
// of order 4 (8 nodes per wavelength at 2.5 f0), its planes x = 0 and y = 0 rigid (the full
// field's planes of symmetry) and z = 0 the baffle, the piston a quarter disc of radius 1.5 mm at
// the origin; a soft solid (slower than the water, so the water sets the step) closes the top.
// Receivers on the axis at 3 and 6 mm, compared until the first echo (the far walls', the top's)
// can reach them. On a GPU (740,000 nodes).
TEST(FluidPistonGpu, BaffledDiscOnAxisMatchesTheExactPressure) {
  TREMOR_REQUIRE_GPU();
  constexpr double a = 1.5e-3, L = 6e-3, H = 8.4e-3, h = 0.3e-3, v0 = 1e-3;
  Model model = water_below(generate_box({0.0, 0.0, 0.0}, {L, L, H + h}, {20, 20, 29}, ElementType::HexGLL, 4), 2, H,
                            Material::from_speeds("polymer", 1400.0, 700.0, 1200.0), Formulation::Solid);
  const Mesh& mesh = model.mesh;
  add_transducer(model, piston("zmin", {0.0, 0.0, 0.0}, a, Transducer::Drive::Velocity, v0));
  const double depths[] = {3e-3, 6e-3};
  for (const double z : depths) {
    const double x[3] = {0.0, 0.0, z};
    model.receivers.push_back(pressure_at(std::to_string(z), nearest_node(mesh, x)));
  }
  ExplicitSettings settings;
  settings.duration = 8.2e-6;
  model.explicit_settings = settings;
  const auto histories = run_pressures(model, "cuda");
  ASSERT_EQ(histories.size(), 2u);
  for (const double z : depths) {
    const double edge = std::sqrt(z * z + a * a);
    const double echo = std::min(std::hypot(2.0 * L - a, z), 2.0 * H - z) / c;
    const Signal v = Signal::ricker(f0);
    const double error = error_of(histories.at(std::to_string(z)), std::min(echo, settings.duration), [&](double t) {
      return rho * c * v0 * (v.value(t - z / c) - v.value(t - edge / c));
    });
    std::printf("z = %.1f mm: on-axis pressure L2 error %.2e (window to %.2f us)\n", z * 1e3, error, echo * 1e6);
    // Bound: 2%: the edge's wave comes from a circle the elements (a fifth of the radius) cut across.
    EXPECT_LT(error, 0.02);
  }
}

}  // namespace
}  // namespace tremor::explicit_fe
