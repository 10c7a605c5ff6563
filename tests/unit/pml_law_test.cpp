// The PML's pointwise flux (fem/pml_law.hpp) on the axes an element is stretched in: with d and
// alpha on those axes alone it gives, to the bit, the flux of every axis's filters (the others'
// d = 0 passing their input), reading and writing only its axes' variables; on a face's layer in 3D
// the one variable F_ab and F_ba share.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>

#include "tremor/fem/laws.hpp"
#include "tremor/fem/pml_law.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

TEST(PmlLaw, VariablesReadAndWrittenPerAxes) {
  for (const int m : {1, 2, 4}) EXPECT_EQ(fem::pml_values_used<3>(m), 8) << "a face's layer, axes " << m;
  for (const int m : {3, 5, 6}) EXPECT_EQ(fem::pml_values_used<3>(m), 18) << "an edge's layer, axes " << m;
  EXPECT_EQ(fem::pml_values_used<3>(7), 27);
  EXPECT_EQ(fem::pml_values_used<3>(0), 0);
  for (const int m : {1, 2}) EXPECT_EQ(fem::pml_values_used<2>(m), 4) << "axes " << m;
  EXPECT_EQ(fem::pml_values_used<2>(3), 8);
}

// A small generator: the same values on every platform.
double next(std::uint64_t& state) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return static_cast<double>(state >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

TEST(PmlLaw, OneAxisGivesEveryAxissFluxToTheBit) {
  constexpr int n_values = fem::pml_point_values<3>;
  constexpr double sentinel = 12345.0, dt = 1e-7;
  const fem::IsotropicLaw<3, double> law{60e9, 26e9};
  for (int axis = 0; axis < 3; ++axis) {
    const int axes = 1 << axis;
    double d[3] = {0.0, 0.0, 0.0}, alpha[3] = {0.0, 0.0, 0.0};
    d[axis] = 3.1e6;
    alpha[axis] = 6.3e5;
    std::array<double, n_values> own{}, every{};
    for (int v = 0; v < n_values; ++v)
      if (!fem::pml_value_used<3>(v, axes)) own[static_cast<std::size_t>(v)] = sentinel;
    std::uint64_t seed = 7 + static_cast<std::uint64_t>(axis);
    for (int step = 0; step < 60; ++step) {
      double grad[3][3];
      for (auto& row : grad)
        for (double& g : row) g = 1e-6 * next(seed);
      double with_own[3][3], with_every[3][3];
      fem::pml_flux<3>(grad, d, alpha, dt, law, own.data(), with_own, axes);
      fem::pml_flux<3>(grad, d, alpha, dt, law, every.data(), with_every, fem::pml_all_axes<3>);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          ASSERT_EQ(with_own[i][j], with_every[i][j]) << "axis " << axis << ", step " << step << ", F" << i << j;
          // (F is not symmetric: only F's columns j != axis pass s_axis)
          if (i != axis && j != axis) {
            EXPECT_EQ(with_own[i][j], with_own[j][i]);
          }
        }
    }
    // The variables off its axes, and the one F_ab shares with F_ba, never touched; the others as
    // every axis's filters hold them.
    int shared = 0;
    for (int v = 0; v < n_values; ++v) {
      const std::size_t k = static_cast<std::size_t>(v);
      // the axis of its filter: the stretched gradient's column, or the stage's (pml_flux's order)
      const int stage = v - 9, j = stage / 6, t = stage / 3 % 2, filter = v < 9 ? v % 3 : (t < j ? t : t + 1);
      if (fem::pml_value_used<3>(v, axes)) {
        EXPECT_EQ(own[k], every[k]) << "variable " << v;
        EXPECT_NE(own[k], 0.0) << "variable " << v << " never stepped";
      } else {
        EXPECT_EQ(own[k], sentinel) << "variable " << v;
        shared += filter == axis ? 1 : 0;
      }
    }
    EXPECT_EQ(shared, 1) << "axis " << axis << ": the one variable F_ab and F_ba share";
  }
}

// An acoustic fluid's flux in the layer (pml_fluid_flux) driven by a harmonic gradient G_j e^(iwt):
// once the filters' transients have died (their slowest rate alpha = 0.2 w, so 60 / w is 12
// e-folds), F_j(t) = Re(Fhat_j e^(iwt)) with Fhat_j = (S / s_j^2) G_j / rho, s_k = 1 + d_k /
// (alpha_k + iw), S their product: the stretched equation's flux. The trapezoidal filters are
// second order, (w dt)^2 / 12 = 2e-6 each at w dt = 0.005, three at most in a chain: 1e-4 of
// |Fhat_j| is a bound with room. On the axes a subset gives, with d = 0 on the others, the same
// flux to the bit, never touching the others' variables.
template <int Dim>
void expect_harmonic_fluid_flux() {
  using C = std::complex<double>;
  constexpr int n_values = fem::pml_fluid_point_values<Dim>;
  const double w = 2.0 * std::numbers::pi * 1e5, dt = 0.005 / w, inverse_density = 1e-3;
  const double d[3] = {1.3 * w, 0.7 * w, 2.1 * w}, alpha[3] = {0.4 * w, 0.9 * w, 0.2 * w};
  const C G[3] = {C(1.0, 0.0), std::polar(0.5, 0.3), std::polar(0.8, -1.1)};
  C s[Dim], S = 1.0;
  for (int k = 0; k < Dim; ++k) {
    s[k] = 1.0 + d[k] / (alpha[k] + C(0.0, w));
    S *= s[k];
  }
  std::array<double, n_values> state{};
  const auto steps = static_cast<long long>(std::ceil(60.0 / (w * dt)));
  const long long last_period = static_cast<long long>(std::ceil(2.0 * std::numbers::pi / (w * dt)));
  double worst[Dim] = {};
  for (long long n = 0; n <= steps; ++n) {
    const double t = static_cast<double>(n) * dt;
    const C phase = std::exp(C(0.0, w * t));
    double grad[Dim], flux[Dim];
    for (int j = 0; j < Dim; ++j) grad[j] = (G[j] * phase).real();
    fem::pml_fluid_flux<Dim>(grad, d, alpha, dt, inverse_density, state.data(), flux);
    if (n < steps - last_period) continue;
    for (int j = 0; j < Dim; ++j) {
      const C exact = S / (s[j] * s[j]) * G[j] * inverse_density;
      worst[j] = std::max(worst[j], std::abs(flux[j] - (exact * phase).real()) / std::abs(exact));
    }
  }
  for (int j = 0; j < Dim; ++j) EXPECT_LE(worst[j], 1e-4) << "F_" << j << " in " << Dim << "D";
  // One axis stretched: its filters alone, the same bits as every axis's with d = 0 off it.
  constexpr double sentinel = 12345.0;
  for (int axis = 0; axis < Dim; ++axis) {
    double d_one[3] = {0.0, 0.0, 0.0}, alpha_one[3] = {0.0, 0.0, 0.0};
    d_one[axis] = d[axis];
    alpha_one[axis] = alpha[axis];
    std::array<double, n_values> own{}, every{};
    for (int v = 0; v < n_values; ++v)
      if (fem::pml_fluid_filter<Dim>(v) != axis) own[static_cast<std::size_t>(v)] = sentinel;
    std::uint64_t seed = 11 + static_cast<std::uint64_t>(axis);
    for (int step = 0; step < 40; ++step) {
      double grad[Dim], with_own[Dim], with_every[Dim];
      for (double& g : grad) g = next(seed);
      fem::pml_fluid_flux<Dim>(grad, d_one, alpha_one, dt, inverse_density, own.data(), with_own, 1 << axis);
      fem::pml_fluid_flux<Dim>(grad, d_one, alpha_one, dt, inverse_density, every.data(), with_every);
      for (int j = 0; j < Dim; ++j) ASSERT_EQ(with_own[j], with_every[j]) << "axis " << axis << ", F_" << j;
    }
    for (int v = 0; v < n_values; ++v) {
      if (fem::pml_fluid_filter<Dim>(v) != axis) {
        EXPECT_EQ(own[static_cast<std::size_t>(v)], sentinel) << v;
      }
    }
  }
  // Outside the layers (d = 0) the flux is grad chi / rho, to the bit.
  const double zero[3] = {0.0, 0.0, 0.0};
  std::array<double, n_values> unused{};
  double grad[Dim], flux[Dim];
  for (int j = 0; j < Dim; ++j) grad[j] = 0.25 * (j + 1);
  fem::pml_fluid_flux<Dim>(grad, zero, alpha, dt, inverse_density, unused.data(), flux);
  for (int j = 0; j < Dim; ++j) EXPECT_EQ(flux[j], grad[j] * inverse_density);
}

TEST(PmlLaw, AFluidsFluxIsTheStretchedEquationsAtSteadyState) {
  expect_harmonic_fluid_flux<2>();
  expect_harmonic_fluid_flux<3>();
}

}  // namespace
}  // namespace tremor
