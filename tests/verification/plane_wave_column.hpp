#pragma once
// Plane waves down a column along x (attenuation_test.cpp, lumped_dispersion_test.cpp): every
// component but the wave's held at every node, so that the wave is exactly plane; a Ricker
// displacement at x = 0; two receivers on the column's axis, whose spectra give the phase
// velocity (and the attenuation) between them.
#include <array>
#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "tremor/core/format.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/model/model.hpp"

namespace tremor::test {

inline constexpr double two_pi = 2.0 * std::numbers::pi;

// On `model`'s mesh (node set "xmin" at x = 0): holds every component but `component` at every
// node, drives `component` at x = 0 by a Ricker displacement of 1 mm peaking at `peak` Hz, and
// records at x = x1 and x2 at (y, z) = `axis` (z unused in 2D).
inline void drive_plane_wave(Model& model, int component, double peak, double x1, double x2,
                             std::array<double, 2> axis) {
  const int dim = model.mesh.dim();
  std::vector<Index> all(static_cast<std::size_t>(model.mesh.n_nodes()));
  for (Index i = 0; i < model.mesh.n_nodes(); ++i) all[static_cast<std::size_t>(i)] = i;
  for (int c = 0; c < dim; ++c) {
    if (c == component) continue;
    FixedDof fixed;
    fixed.nodes = all;
    fixed.component = c;
    model.fixed.push_back(fixed);
  }
  PrescribedDisplacement driven;
  driven.nodes = model.mesh.node_sets.at("xmin");
  driven.components = {component};
  driven.factor[static_cast<std::size_t>(component)] = 1.0;
  driven.amplitude = 1e-3;
  driven.signal = Signal::ricker(peak);
  driven.origin = "driven end";
  model.prescribed.push_back(driven);
  for (const double x : {x1, x2}) {
    Receiver receiver;
    receiver.name = str("at ", x);
    receiver.positions = {{x, axis[0], dim == 3 ? axis[1] : 0.0}};
    model.receivers.push_back(receiver);
  }
}

// The two receivers' records of `component` in a run of a model of dimension `dim`.
inline std::vector<std::vector<double>> receiver_records(const explicit_fe::ExplicitRun& run, int component, int dim) {
  std::vector<std::vector<double>> records(2);
  for (std::size_t r = 0; r < 2; ++r) {
    const explicit_fe::History& history = run.histories[r];
    for (std::size_t n = 0; n < history.n_samples(); ++n)
      records[r].push_back(history.values[n * static_cast<std::size_t>(dim) + static_cast<std::size_t>(component)]);
  }
  return records;
}

// The spectrum of `values` (sampled every dt) at frequency f: sum_n v_n e^{-i omega t_n} dt.
inline std::complex<double> spectrum(const std::vector<double>& values, double dt, double f) {
  std::complex<double> total = 0.0;
  for (std::size_t n = 0; n < values.size(); ++n)
    total += values[n] * std::exp(std::complex<double>(0.0, -two_pi * f * static_cast<double>(n + 1) * dt));
  return total * dt;
}

// The phase velocity c(f) = 2 pi f dx / arg(U1 / U2) from the spectra's ratio at receivers dx
// apart, the phase unwrapped near the delay at speed `near`.
inline double phase_velocity(std::complex<double> ratio, double f, double dx, double near) {
  double phase = std::arg(ratio);
  const double expected_delay = two_pi * f * dx / near;
  phase += two_pi * std::round((expected_delay - phase) / two_pi);
  return two_pi * f * dx / phase;
}

}  // namespace tremor::test
