// P and S arrival times from a point force in a large 2D plane-strain steel block (issue 3,
// verification 11(a)), through the whole explicit solver (run_explicit: loads, constraints,
// receivers, automatic time step).
//
// A vertical line force F(t) (Ricker, 1 MHz peak) acts at the origin of an unbounded plane-strain
// solid. Its exact displacement (the 2D elastodynamic Green's function, Eringen & Suhubi; Kausel,
// "Fundamental solutions in elastodynamics", 2D full space, line load) is, with gamma the unit
// vector to the receiver, T_p = r / c_p, T_s = r / c_s,
//
//   G_ij(t) = 1 / (2 pi rho) { (2 g_i g_j - d_ij) / r^2 [H(t-T_p) sqrt(t^2-T_p^2) - H(t-T_s) sqrt(t^2-T_s^2)]
//                              + g_i g_j H(t-T_p) / (c_p^2 sqrt(t^2-T_p^2))
//                              + (d_ij - g_i g_j) H(t-T_s) / (c_s^2 sqrt(t^2-T_s^2)) }
//
// and u_y = G_yy * F. On the force axis (receiver at (0, r)) only the P wave arrives (plus the
// near-field term); perpendicular to it (receiver at (r, 0)) the S wave carries the pulse. With
// tau = T cosh(eta) the convolutions lose their singularity:
//   int F(t - tau) / sqrt(tau^2 - T^2) dtau = int F(t - T cosh eta) deta,
//   int F(t - tau) sqrt(tau^2 - T^2) dtau   = int F(t - T cosh eta) T^2 sinh^2 eta deta.
//
// The model is the quarter x, y >= 0 of a 24 mm square: u_x is odd in x and in y for a vertical
// force at the origin, so u_x = 0 on both symmetry lines and u_y is free there (its traction
// vanishes by symmetry); the corner node carries a quarter of the force. The far edges are 24 mm
// away: the first reflection, a P wave, reaches a receiver at (2 * 24 - 12) mm / c_p = 6.0 us
// plus the ~0.5 us before the Ricker wavelet (centred at 1.5 us) rises above 1% of its peak;
// 6.4 us are recorded.
//
// Measured arrival: the exact trace u_exact(t) is computed at the receiver; the time shift that
// best aligns the FE trace with it (the peak of their cross-correlation, refined by a parabola
// through the three best lags) added to r / c is the measured arrival time, to compare with r / c.
// This uses the whole pulse, not a threshold onset, and the exact trace accounts for the 2D tail
// (the 1 / sqrt(t^2 - T^2) kernel shifts the peak of a 2D pulse by about an eighth of a period
// after T plus the source delay, which a plain "source peak + r / c" pick would misread as a
// slower wave).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "tremor/core/log.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

constexpr double youngs = 210e9, poisson = 0.3, density = 7850.0;
constexpr double side = 0.024;      // m, quarter model
constexpr Size cells = 320;         // h = 75 um
constexpr double distance = 0.012;  // m, receivers at (0, r) and (r, 0)
constexpr double frequency = 1e6;   // Hz, Ricker peak
constexpr double force = 250.0;     // N on the quarter's corner node: 1000 N/m line force in full

struct Speeds {
  double p, s;
};
Speeds speeds() {
  const double lambda = youngs * poisson / ((1 + poisson) * (1 - 2 * poisson)), mu = youngs / (2 * (1 + poisson));
  return {std::sqrt((lambda + 2 * mu) / density), std::sqrt(mu / density)};
}

// int_0^acosh(t/T) w(t - T cosh eta) k(eta) deta over the support of w, trapezoid rule; k = 1
// (weight 0) or T^2 sinh^2 eta (weight 2).
double kernel_integral(const Signal& w, double t, double T, int weight) {
  if (t <= T) return 0.0;
  const double upper = std::acosh(t / T);
  const double start = t - w.duration();  // w(s) ~ 0 for s > duration
  const double lower = start > T ? std::acosh(start / T) : 0.0;
  constexpr int n = 4000;
  const double step = (upper - lower) / n;
  double total = 0.0;
  for (int i = 0; i <= n; ++i) {
    const double eta = lower + i * step;
    double value = w.value(t - T * std::cosh(eta));
    if (weight == 2) value *= T * T * std::sinh(eta) * std::sinh(eta);
    total += (i == 0 || i == n) ? 0.5 * value : value;
  }
  return total * step;
}

// u_y at (0, r) (on_axis) or at (r, 0), for a full line force amplitude * w(t).
double exact_uy(const Signal& w, double amplitude, double t, bool on_axis) {
  const Speeds c = speeds();
  const double r = distance, Tp = r / c.p, Ts = r / c.s;
  const double near = (kernel_integral(w, t, Tp, 2) - kernel_integral(w, t, Ts, 2)) / (r * r);
  const double far = on_axis ? kernel_integral(w, t, Tp, 0) / (c.p * c.p) : kernel_integral(w, t, Ts, 0) / (c.s * c.s);
  return amplitude / (2 * std::numbers::pi * density) * ((on_axis ? 1.0 : -1.0) * near + far);
}

// The lag (in samples, fractional) that maximises sum_k a[k] b[k - lag].
double best_lag(const std::vector<double>& a, const std::vector<double>& b, int max_lag) {
  const auto correlation = [&](int lag) {
    double total = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k) {
      const long long j = static_cast<long long>(k) - lag;
      if (j >= 0 && j < static_cast<long long>(b.size())) total += a[k] * b[static_cast<std::size_t>(j)];
    }
    return total;
  };
  int best = -max_lag;
  for (int lag = -max_lag; lag <= max_lag; ++lag)
    if (correlation(lag) > correlation(best)) best = lag;
  const double left = correlation(best - 1), centre = correlation(best), right = correlation(best + 1);
  return best + 0.5 * (left - right) / (left - 2 * centre + right);
}

// Time of the largest |value|, refined by a parabola through its neighbours.
double peak_time(const std::vector<double>& values, double dt) {
  std::size_t k = 1;
  for (std::size_t i = 1; i + 1 < values.size(); ++i)
    if (std::abs(values[i]) > std::abs(values[k])) k = i;
  const double left = std::abs(values[k - 1]), centre = std::abs(values[k]), right = std::abs(values[k + 1]);
  return (static_cast<double>(k) + 0.5 * (left - right) / (left - 2 * centre + right)) * dt;
}

double largest(const std::vector<double>& values) {
  double m = 0.0;
  for (double v : values) m = std::max(m, std::abs(v));
  return m;
}

TEST(ExplicitArrival, PAndSArrivalTimesFromAPointForce) {
  Model model;
  model.source = "quarter block";
  model.mesh = generate_rectangle({0.0, 0.0}, {side, side}, {cells, cells}, ElementType::Quad4);
  model.materials.push_back(Material::from_youngs("steel", youngs, poisson, density));
  model.sections.push_back({"all", "steel", Formulation::PlaneStrain, 1.0});
  model.fixed.push_back({model.mesh.node_sets.at("xmin"), 0, 0.0, "", "symmetry x = 0"});
  model.fixed.push_back({model.mesh.node_sets.at("ymin"), 0, 0.0, "", "symmetry y = 0"});
  PointSource source;
  source.nodes = {0};
  source.direction = {0.0, 1.0, 0.0};
  source.amplitude = force;
  source.signal = Signal::ricker(frequency);
  source.origin = "centre force";
  model.point_sources.push_back(source);
  const Size row = cells + 1;
  const auto receiver_index = static_cast<Index>(std::llround(distance / (side / cells)));
  Receiver p_receiver, s_receiver;
  p_receiver.name = "P (0, r)";
  p_receiver.nodes = {static_cast<Index>(receiver_index * row)};
  s_receiver.name = "S (r, 0)";
  s_receiver.nodes = {receiver_index};
  model.receivers = {p_receiver, s_receiver};
  ExplicitSettings settings;
  settings.duration = 6.4e-6;
  settings.precision = "float";  // halves the memory traffic; float rounding is far below 1%
  model.explicit_settings = settings;
  model.validate();

  const auto run = explicit_fe::run_explicit(model);
  ASSERT_TRUE(run.ok()) << run.message;
  // Elements per shortest wavelength by side length (the pre-flight figure uses the diagonal).
  const Speeds c = speeds();
  const double per_wavelength = c.s / source.signal.highest_frequency() / (side / cells);
  ASSERT_GE(per_wavelength, 15.0);

  const double dt = run.dt;
  struct Case {
    const char* wave;
    bool on_axis;
    double speed;
  };
  std::printf("explicit arrival: %lld steps of %.4g s, %.3g s wall, %.3g DOF-steps/s, %.1f elements per "
              "shortest wavelength\n",
              run.steps, dt, run.wall_seconds, run.dof_steps_per_second, per_wavelength);
  for (const Case& wave : {Case{"P", true, c.p}, Case{"S", false, c.s}}) {
    const explicit_fe::History& history = run.histories[wave.on_axis ? 0 : 1];
    std::vector<double> measured, exact;
    for (std::size_t k = 0; k < history.n_samples(); ++k) {
      measured.push_back(history.value(k, 0, explicit_fe::Quantity::Displacement, 1));
      exact.push_back(exact_uy(source.signal, 4.0 * force, history.times[k], wave.on_axis));
    }
    const double expected = distance / wave.speed;
    const double shift = best_lag(measured, exact, 40) * dt;
    const double arrival = expected + shift;
    const double peak_shift = peak_time(measured, dt) - peak_time(exact, dt);
    const double amplitude_ratio = largest(measured) / largest(exact);
    std::printf("  %s wave: r / c = %.5g s, measured arrival %.5g s (relative error %.2e); peak time shift "
                "%.3g s (%.2e of r / c); peak amplitude FE / exact %.4f\n",
                wave.wave, expected, arrival, shift / expected, peak_shift, peak_shift / expected, amplitude_ratio);
    // 1% of r / c is 20 ns for P (2 time steps) and 37 ns for S. What remains after the exact
    // comparison is the mesh's numerical dispersion: at >= 15 elements per shortest wavelength
    // (40 per peak wavelength for S) the phase-speed error of lumped-mass quad4 is a few 0.1%
    // at the highest frequencies and ~0.1% at the peak, so the pulse arrives well within 1%.
    EXPECT_LT(std::abs(shift), 0.01 * expected) << wave.wave;
    EXPECT_LT(std::abs(peak_shift), 0.01 * expected) << wave.wave;
    // The amplitudes agree as well (the exact solution has no free parameter): a wrong force
    // scaling or symmetry condition would show here. Dispersion and the coarse representation of
    // the point load change the peak by a few percent at most.
    EXPECT_NEAR(amplitude_ratio, 1.0, 0.05) << wave.wave;
  }
}

}  // namespace
}  // namespace tremor
