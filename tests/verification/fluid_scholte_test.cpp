// The Scholte wave: the interface wave of a fluid on a solid, against the root of its secular
// equation (Scholte 1947; the fluid-loaded Rayleigh equation). Water (1480 m/s, 1000 kg/m^3) on a
// soft seabed (P 1600 m/s, S 800 m/s, 1800 kg/m^3): slower than every body wave, the Scholte wave
// carries its pulse along the interface unchanged (two half-spaces have no length scale, so it does
// not disperse) and without geometric spreading, while the body waves spread and fall behind it.
//
// With q_a = sqrt(1 - c^2 / a^2) for each speed a, the solid's P (alpha) and S (beta) and the
// fluid's (c_f), the speed c < min(beta, c_f) of the wave solves
//
//   (2 - c^2 / beta^2)^2 - 4 q_alpha q_beta + (rho_f / rho_s) (c / beta)^4 q_alpha / q_f = 0,
//
// Rayleigh's equation where rho_f = 0 (the traction -p n of the fluid, whose potential decays as
// exp(-k q_f z), loads the free surface). Its root here is 675.13 m/s (0.8439 beta; Rayleigh's is
// 0.9325 beta).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/mesh/generate.hpp"
#include "unit/explicit_test_models.hpp"

namespace tremor::explicit_fe {
namespace TREMOR_TEST_FILE {

constexpr double alpha = 1600.0, beta = 800.0, rho_s = 1800.0;  // the seabed
constexpr double c_f = 1480.0, rho_f = 1000.0;                   // water
constexpr double f0 = 100e3;                                     // the Ricker's peak frequency

// The secular function above; negative below the root, positive above it up to min(beta, c_f).
double secular(double c, double fluid_density) {
  const double x = c * c / (beta * beta);
  const double q_alpha = std::sqrt(1.0 - c * c / (alpha * alpha)), q_beta = std::sqrt(1.0 - x);
  const double q_f = std::sqrt(1.0 - c * c / (c_f * c_f));
  return (2.0 - x) * (2.0 - x) - 4.0 * q_alpha * q_beta + fluid_density / rho_s * x * x * q_alpha / q_f;
}

// Its root by bisection (to 1e-12 of beta): the Scholte wave's speed, or Rayleigh's with no fluid.
double interface_wave_speed(double fluid_density) {
  double low = 1e-3 * beta, high = std::min(beta, c_f) * (1.0 - 1e-12);
  while (high - low > 1e-12 * beta) {
    const double middle = 0.5 * (low + high);
    (secular(middle, fluid_density) < 0.0 ? low : high) = middle;
  }
  return 0.5 * (low + high);
}

// The delay of b behind a (s): the peak of their cross-correlation, refined by a parabola through
// it and its neighbours; each record taken within 2 / f0 of its own largest |value| (the Scholte
// pulse there, whose Ricker lasts about 2.6 / f0), zero elsewhere.
double delay(std::vector<double> a, std::vector<double> b, double dt) {
  const auto window = [&](std::vector<double>& v) {
    const auto peak = static_cast<double>(std::max_element(v.begin(), v.end(), [](double p, double q) {
                                            return std::abs(p) < std::abs(q);
                                          }) - v.begin());
    for (std::size_t k = 0; k < v.size(); ++k)
      if (std::abs(static_cast<double>(k) - peak) * dt > 2.0 / f0) v[k] = 0.0;
  };
  window(a);
  window(b);
  const auto n = static_cast<long>(a.size());
  std::vector<double> correlation(static_cast<std::size_t>(n), 0.0);  // lags 0 .. n - 1
  for (long lag = 0; lag < n; ++lag)
    for (long k = 0; k + lag < n; ++k)
      correlation[static_cast<std::size_t>(lag)] += a[static_cast<std::size_t>(k)] * b[static_cast<std::size_t>(k + lag)];
  const auto best = static_cast<long>(std::max_element(correlation.begin(), correlation.end()) - correlation.begin());
  EXPECT_GT(best, 0);
  EXPECT_LT(best, n - 1);
  const double before = correlation[static_cast<std::size_t>(best - 1)], at = correlation[static_cast<std::size_t>(best)],
               after = correlation[static_cast<std::size_t>(best + 1)];
  return (static_cast<double>(best) + 0.5 * (before - after) / (before - 2.0 * at + after)) * dt;
}

// Water on [0, L] x [0, H], the seabed on [0, L] x [-H, 0], GLL quadrilaterals of order 4 of 2.5 mm
// (5 GLL points per wavelength of the Scholte wave at 2.5 f0, where the Ricker's spectrum has
// fallen to 1.5% of its peak). A vertical force at the origin on the axis of symmetry x = 0 (the
// solid's nodes there held in x, the water's wall rigid: its natural boundary); alid layers
// 20 mm thick (1.25 P wavelengths at f0) on the other three sides. Receivers of velocity on the
// interface at x1 = 27.5 mm (4 Scholte wavelengths) and x2 = 80 mm. `fluid_density` 0: the water
// a fluid of almost no density (a free surface's Rayleigh wave, the same run otherwise).
ExplicitRun scholte_run(double fluid_density, double x1, double x2, double speed) {
  constexpr double h = 2.5e-3, H = 35e-3, L = 115e-3;
  Model model;
  model.source = "scholte";
  model.mesh = generate_rectangle({0.0, -H}, {L, 2.0 * H}, {46, 28}, ElementType::QuadGLL, 4);
  const Mesh& mesh = model.mesh;
  for (Index e = 0; e < mesh.n_elements(); ++e)
    model.mesh.element_sets[test::element_centre(mesh, e, 1) > 0.0 ? "water" : "seabed"].push_back(e);
  model.materials.push_back(Material::from_speeds("seabed", alpha, beta, rho_s));
  model.materials.push_back(Material::from_sound_speed("water", c_f, std::max(fluid_density, 1e-3)));
  model.sections.push_back({"seabed", "seabed", Formulation::PlaneStrain, 1.0});
  model.sections.push_back({"water", "water", Formulation::PlaneStrain, 1.0});
  FixedDof axis{{}, 0, 0.0, "", "axis of symmetry"};
  Receiver receiver;
  receiver.name = "interface";
  receiver.displacement = false;
  receiver.velocity = true;
  receiver.nodes = {-1, -1};
  PointSource force;
  force.direction = {0.0, -1.0, 0.0};
  force.amplitude = 1e3;  // N/m (a line force, half of it on this side of the axis)
  force.signal = Signal::ricker(f0);
  force.origin = "force";
  for (Index node = 0; node < mesh.n_nodes(); ++node) {
    const auto x = mesh.node(node);
    if (std::abs(x[1]) > 1e-9) {
      if (x[0] < 1e-9 && x[1] < 0.0) axis.nodes.push_back(node);
      continue;
    }
    if (x[0] < 1e-9) {
      axis.nodes.push_back(node);
      force.nodes = {node};
    }
    if (std::abs(x[0] - x1) < 1e-9) receiver.nodes[0] = node;
    if (std::abs(x[0] - x2) < 1e-9) receiver.nodes[1] = node;
  }
  EXPECT_EQ(force.nodes.size(), 1u);
  EXPECT_GE(receiver.nodes[0], 0);
  EXPECT_GE(receiver.nodes[1], 0);
  EXPECT_NEAR(h, L / 46.0, 1e-15);
  model.fixed.push_back(axis);
  model.point_sources.push_back(force);
  model.receivers.push_back(receiver);
  model.absorbing.push_back(test::alid_layer({BoxFace::XMax, BoxFace::YMin, BoxFace::YMax}, 20e-3));
  ExplicitSettings settings;
  settings.duration = x2 / speed + 3.5 / f0;  // the pulse's peak at x2 (after the Ricker's 1.5 / f0) and 2 / f0
  model.explicit_settings = settings;
  model.validate();
  RunOptions options;
  options.backend = "openmp";
  const ExplicitRun run = run_explicit(model, options);
  EXPECT_TRUE(run.ok()) << run.message;
  return run;
}

// The speed the pulse takes from x1 to x2, from the vertical velocity there.
double measured_speed(const ExplicitRun& run, double x1, double x2) {
  const History& h = run.histories.at(0);
  std::vector<double> a, b;
  for (std::size_t s = 0; s < h.n_samples(); ++s) {
    a.push_back(h.value(s, 0, Quantity::Velocity, 1));
    b.push_back(h.value(s, 1, Quantity::Velocity, 1));
  }
  return (x2 - x1) / delay(a, b, run.dt);
}

TEST(FluidScholte, TheInterfaceWaveTravelsAtTheRootOfItsSecularEquation) {
  const double scholte = interface_wave_speed(rho_f), rayleigh = interface_wave_speed(0.0);
  // The equation's roots as published for these ratios: Rayleigh's at 0.9325 beta for Poisson's
  // ratio 1/3 (Viktorov 1967, Table 1), the Scholte wave's below it.
  EXPECT_NEAR(rayleigh / beta, 0.9325, 1e-4);
  EXPECT_LT(scholte, rayleigh);
  constexpr double x1 = 27.5e-3, x2 = 80e-3;
  const ExplicitRun run = scholte_run(rho_f, x1, x2, scholte);
  const double c = measured_speed(run, x1, x2);
  std::printf("Scholte wave, water on a seabed (P %.0f, S %.0f m/s): %.2f m/s measured from %.1f to %.1f mm, root "
              "%.2f m/s (%+.3f%%); Rayleigh's %.2f m/s; %lld steps\n",
              alpha, beta, c, x1 * 1e3, x2 * 1e3, scholte, 100.0 * (c / scholte - 1.0), rayleigh, run.steps);
  // The bound. The mesh's dispersion at 5 GLL points per wavelength of order 4 is far below
  // it, and the cross-correlation's parabola resolves the 78 us delay to a fraction of a step.
  EXPECT_NEAR(c / scholte, 1.0, 0.005);
  // Without the water's load the same run carries Rayleigh's wave, 10% faster: the measurement
  // tells the coupling's effect apart from the seabed's own.
  const ExplicitRun dry = scholte_run(0.0, x1, x2, rayleigh);
  const double c_dry = measured_speed(dry, x1, x2);
  std::printf("  the same without the water's density: %.2f m/s (Rayleigh %+.3f%%)\n", c_dry,
              100.0 * (c_dry / rayleigh - 1.0));
  EXPECT_NEAR(c_dry / rayleigh, 1.0, 0.005);
}

}  // namespace
}  // namespace tremor::explicit_fe
