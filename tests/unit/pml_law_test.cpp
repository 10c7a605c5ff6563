// The PML's pointwise flux (fem/pml_law.hpp) on the axes an element is stretched in: with d and
// alpha on those axes alone it gives, to the bit, the flux of every axis's filters (the others'
// d = 0 passing their input), reading and writing only its axes' variables; on a face's layer in 3D
// the one variable F_ab and F_ba share.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "tremor/fem/laws.hpp"
#include "tremor/fem/pml_law.hpp"

namespace tremor {
namespace {

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

}  // namespace
}  // namespace tremor
