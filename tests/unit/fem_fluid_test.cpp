// An acoustic fluid's element matrices (fem/element_matrices.hpp fluid_stiffness, one value per
// node, FluidLaw): symmetric with the constants as their only null space, gradients of linear
// potentials reproduced, the matrix-free action equal to K chi; and assembled with the lumped
// mass (t / kappa), the modes of a rigid-walled cavity at the frequencies of the wave equation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "fem_test_helpers.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor::fem {
namespace TREMOR_TEST_FILE {

template <class E>
class FluidMatrixTest : public ::testing::Test {};
using FluidElements = test::MatrixElements;
TYPED_TEST_SUITE(FluidMatrixTest, FluidElements);

constexpr double inverse_density = 1.0 / 1000.0;  // water's 1/rho

TYPED_TEST(FluidMatrixTest, StiffnessIsSymmetricWithTheConstantsItsOnlyNullSpace) {
  using E = TypeParam;
  constexpr int n = E::n_nodes;
  for (const auto& x : test::matrix_shapes<E>()) {
    std::vector<double> K(static_cast<std::size_t>(n * n));
    EXPECT_GT(fluid_stiffness<E>(x.data(), inverse_density, 1.0, K.data()), 0.0);
    const double norm = test::max_abs(K);
    for (int a = 0; a < n; ++a) {
      double row = 0.0;
      for (int b = 0; b < n; ++b) {
        ASSERT_EQ(K[static_cast<std::size_t>(a * n + b)], K[static_cast<std::size_t>(b * n + a)]);
        row += K[static_cast<std::size_t>(a * n + b)];
      }
      // A constant potential moves nothing: its rows cancel to rounding (n terms of |K|).
      EXPECT_LT(std::abs(row), 1e-12 * norm) << "row " << a;
    }
    const auto eigenvalues = test::symmetric_eigenvalues(K, n);
    const double top = eigenvalues.back();
    int zeros = 0;
    for (const double value : eigenvalues) {
      // As MatrixTest's: rounding at 1e-14 |K|, the smallest mode of these shapes above 1e-4 |K|.
      if (std::abs(value) < 1e-9 * top) ++zeros;
      EXPECT_GT(value, -1e-12 * top) << "K not positive semi-definite";
    }
    EXPECT_EQ(zeros, 1) << "nullity of K";
  }
}

TYPED_TEST(FluidMatrixTest, LinearPotentialsGradientAndActionAreExact) {
  using E = TypeParam;
  constexpr int n = E::n_nodes, dim = E::dim;
  const double a[3] = {0.7, -1.3, 0.4};
  for (const auto& x : test::matrix_shapes<E>()) {
    std::vector<double> chi(n), K(static_cast<std::size_t>(n * n)), f(n);
    for (int b = 0; b < n; ++b) {
      chi[static_cast<std::size_t>(b)] = 2.5;
      for (int i = 0; i < dim; ++i) chi[static_cast<std::size_t>(b)] += a[i] * x[static_cast<std::size_t>(b * dim + i)];
    }
    const StiffnessRule<E> rule = stiffness_rule<E>();
    PointEvaluation<E> point;
    for (int q = 0; q < rule.n_points; ++q) {
      ASSERT_GT(point.reinit(x.data(), rule.point(q)), 0.0);
      double g[dim];
      point.gradient(chi.data(), g);
      // The isoparametric map reproduces linear fields: the gradient to rounding.
      for (int i = 0; i < dim; ++i) EXPECT_NEAR(g[i], a[i], 1e-12) << "point " << q << ", component " << i;
    }
    fluid_stiffness<E>(x.data(), inverse_density, 1.0, rule, K.data());
    apply_fluid_stiffness<E>(x.data(), FluidLaw<dim, double>{inverse_density}, 1.0, rule, chi.data(), f.data());
    const double norm = test::max_abs(K) * test::max_abs(chi);
    for (int r = 0; r < n; ++r) {
      double sum = 0.0;
      for (int b = 0; b < n; ++b) sum += K[static_cast<std::size_t>(r * n + b)] * chi[static_cast<std::size_t>(b)];
      // The same products summed in another order: rounding of n terms.
      EXPECT_NEAR(f[static_cast<std::size_t>(r)], sum, 1e-12 * n * norm) << "node " << r;
    }
  }
}

// The rigid-walled (chi's natural condition: zero normal displacement) cavity [0, Lx] x [0, Ly]
// (x [0, Lz]) of water: K chi = omega^2 M chi with the GLL nodes' lumped mass t / kappa has the
// wave equation's modes omega = c pi |(m / Lx, n / Ly, l / Lz)|. Returns the relative errors of
// the lowest `exact.size()` modes after the constant one.
template <class E>
std::vector<double> cavity_errors(const Mesh& mesh, const std::vector<double>& exact) {
  constexpr double density = 1000.0, speed = 1480.0, kappa = density * speed * speed;
  constexpr int dim = E::dim, n_el = E::n_nodes;
  const auto n = static_cast<std::size_t>(mesh.n_nodes());
  std::vector<double> K(n * n, 0.0), m(n, 0.0);
  const ElementBlock& block = mesh.blocks.front();
  for (Index e = 0; e < block.n_elements(); ++e) {
    double x[n_el * dim], Ke[n_el * n_el], me[n_el];
    mesh.element_coordinates(block, e, x);
    EXPECT_GT(fluid_stiffness<E>(x, 1.0 / density, 1.0, Ke), 0.0);
    lumped_mass<E>(x, 1.0 / kappa, me);
    const auto nodes = block.nodes(e);
    for (int a = 0; a < n_el; ++a) {
      const auto A = static_cast<std::size_t>(nodes[static_cast<std::size_t>(a)]);
      m[A] += me[a];
      for (int b = 0; b < n_el; ++b)
        K[A * n + static_cast<std::size_t>(nodes[static_cast<std::size_t>(b)])] += Ke[a * n_el + b];
    }
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) K[i * n + j] /= std::sqrt(m[i] * m[j]);  // M^-1/2 K M^-1/2
  const auto omega2 = test::symmetric_eigenvalues(K, static_cast<int>(n));
  EXPECT_LT(std::abs(omega2.front()), 1e-9 * omega2.back()) << "the constant mode";
  std::vector<double> errors;
  for (std::size_t k = 0; k < exact.size(); ++k)
    errors.push_back(std::sqrt(omega2[k + 1]) / (speed * std::numbers::pi * exact[k]) - 1.0);
  return errors;
}

// |(m / Lx, n / Ly, l / Lz)| of the lowest modes, ascending, the constant one left out.
std::vector<double> wavenumbers(const std::vector<double>& sides, std::size_t count) {
  std::vector<double> out;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < (sides.size() == 3 ? 5 : 1); ++k) {
        const double q = std::hypot(i / sides[0], j / sides[1], sides.size() == 3 ? k / sides[2] : 0.0);
        if (q > 0.0) out.push_back(q);
      }
  std::sort(out.begin(), out.end());
  out.resize(count);
  return out;
}

double worst(const std::vector<double>& errors) {
  double out = 0.0;
  for (const double e : errors) out = std::max(out, std::abs(e));
  return out;
}

// Order 4 on 3 x 2 elements, then on 6 x 4: the lowest six modes within 5e-4 (2.8e-4 measured,
// the sixth's 5 elements per wavelength), and the error of the spectral element method's
// eigenvalues falling as h^2P: 2^8 when h halves, at least half of it asserted.
TEST(FluidCavity, ModesOfTheWaveEquationConvergeAtTwiceTheOrder2d) {
  const auto exact = wavenumbers({3.0, 2.0}, 6);
  const auto coarse = cavity_errors<QuadGll<4>>(
      generate_rectangle({0.0, 0.0}, {3.0, 2.0}, {3, 2}, ElementType::QuadGLL, 4), exact);
  const auto fine = cavity_errors<QuadGll<4>>(
      generate_rectangle({0.0, 0.0}, {3.0, 2.0}, {6, 4}, ElementType::QuadGLL, 4), exact);
  std::printf("cavity 2D, order 4: worst mode error %.3e on 3 x 2 elements, %.3e on 6 x 4\n", worst(coarse),
              worst(fine));
  EXPECT_LT(worst(coarse), 5e-4);
  EXPECT_GT(worst(coarse) / worst(fine), 128.0);
}

// Order 2 on one element of a unit cube, then on 2 x 2 x 2: the lowest six modes (three at
// |k| = 1, three at sqrt 2), and the error falling as h^2P (2^4 when h halves, at least half of
// it asserted). (Finer meshes make the dense eigen solve slow.)
TEST(FluidCavity, ModesOfTheWaveEquationConvergeAtTwiceTheOrder3d) {
  const auto exact = wavenumbers({1.0, 1.0, 1.0}, 6);
  const auto coarse = cavity_errors<HexGll<2>>(
      generate_box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {1, 1, 1}, ElementType::HexGLL, 2), exact);
  const auto fine = cavity_errors<HexGll<2>>(
      generate_box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {2, 2, 2}, ElementType::HexGLL, 2), exact);
  std::printf("cavity 3D, order 2: worst mode error %.3e on one element, %.3e on 2 x 2 x 2\n", worst(coarse),
              worst(fine));
  EXPECT_LT(worst(fine), 1e-2);
  EXPECT_GT(worst(coarse) / worst(fine), 8.0);
}

}  // namespace
}  // namespace tremor::fem
