// The sum-factorised element body of the sem operator (sem/sum_factorised.hpp) against the
// element-by-element action of the assembled GLL elements (fem::apply_element_stiffness with the
// same Gauss rule): equal to rounding on distorted, curved and anisotropic elements, order 1..8.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "tremor/fem/element_matrices.hpp"
#include "tremor/fem/elements.hpp"
#include "tremor/sem/sum_factorised.hpp"

namespace tremor {
namespace {

// A curved element: the reference cube [-1, 1]^3 scaled to about 1 mm, sheared, and bent by a
// smooth map, with the GLL nodes on the bent geometry (so every order sees a genuinely curved
// element); `seed` varies the map.
template <int P>
std::vector<double> curved_element(unsigned seed) {
  using E = fem::HexGll<P>;
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> small(-0.15, 0.15);
  const double a = small(random), b = small(random), c = small(random), d = small(random);
  std::vector<double> x(E::n_nodes * 3);
  for (int node = 0; node < E::n_nodes; ++node) {
    double xi[3];
    E::node(node, xi);
    x[node * 3 + 0] = 1e-3 * (xi[0] + a * xi[1] + c * xi[1] * xi[1]);
    x[node * 3 + 1] = 1e-3 * (1.2 * xi[1] + b * xi[2] + d * std::sin(xi[0]));
    x[node * 3 + 2] = 1e-3 * (0.8 * xi[2] + a * xi[0] * xi[1] + c * xi[0]);
  }
  return x;
}

// A symmetric positive definite 21-constant stiffness (Pa), fully anisotropic.
std::vector<double> anisotropic_d(unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> entry(-1.0, 1.0);
  double A[6][6];
  for (auto& row : A)
    for (double& value : row) value = entry(random);
  std::vector<double> D(36);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      double sum = i == j ? 6.0 : 0.0;  // diagonally dominant: positive definite
      for (int k = 0; k < 6; ++k) sum += A[i][k] * A[j][k];
      D[i * 6 + j] = 1e10 * sum;
    }
  return D;
}

template <int P>
void expect_equal_to_the_element_action(unsigned seed) {
  SCOPED_TRACE(::testing::Message() << "order " << P << ", seed " << seed);
  using E = fem::HexGll<P>;
  const std::vector<double> x = curved_element<P>(seed), D = anisotropic_d(seed);
  std::mt19937 random(seed + 1);
  std::uniform_real_distribution<double> displacement(-1e-6, 1e-6);
  std::vector<double> u(E::n_nodes * 3), reference(E::n_nodes * 3), f(E::n_nodes * 3);
  for (double& value : u) value = displacement(random);
  fem::apply_element_stiffness<E>(x.data(), D.data(), 1.0, fem::stiffness_rule<E>(), u.data(), reference.data());
  const sem::Basis1d<P> basis;
  auto hex = std::make_unique<sem::Hex<P>>();  // its work arrays are large for the stack at order 8
  hex->apply(basis, x.data(), D.data(), u.data(), f.data());
  double largest = 0.0, difference = 0.0;
  for (std::size_t k = 0; k < f.size(); ++k) {
    largest = std::max(largest, std::abs(reference[k]));
    difference = std::max(difference, std::abs(f[k] - reference[k]));
  }
  ASSERT_GT(largest, 0.0);
  // The same quadrature and the same products in another order: rounding only, about 1e-16 per
  // operation over (P + 1)^3 points of O(P) sums each, far below 1e-12 of the largest force.
  EXPECT_LE(difference, 1e-12 * largest);
}

TEST(SemSumFactorised, EqualsTheElementActionOnCurvedAnisotropicElements) {
  for (unsigned seed : {1u, 2u, 3u}) {
    expect_equal_to_the_element_action<1>(seed);
    expect_equal_to_the_element_action<2>(seed);
    expect_equal_to_the_element_action<3>(seed);
    expect_equal_to_the_element_action<4>(seed);
    expect_equal_to_the_element_action<5>(seed);
    expect_equal_to_the_element_action<6>(seed);
    expect_equal_to_the_element_action<7>(seed);
    expect_equal_to_the_element_action<8>(seed);
  }
}

// A rigid motion strains nothing: K u = 0 to rounding, for translations and an infinitesimal
// rotation, on a curved element.
TEST(SemSumFactorised, RigidMotionsGiveNoForce) {
  constexpr int P = 4;
  using E = fem::HexGll<P>;
  const std::vector<double> x = curved_element<P>(7), D = anisotropic_d(7);
  const sem::Basis1d<P> basis;
  auto hex = std::make_unique<sem::Hex<P>>();
  std::vector<double> u(E::n_nodes * 3), f(E::n_nodes * 3);
  for (int node = 0; node < E::n_nodes; ++node) {
    const double* p = &x[node * 3];
    u[node * 3 + 0] = 1e-6 - 1e-3 * p[1];  // translation plus a rotation about z
    u[node * 3 + 1] = 2e-6 + 1e-3 * p[0];
    u[node * 3 + 2] = -1e-6;
  }
  hex->apply(basis, x.data(), D.data(), u.data(), f.data());
  // Scale: the nodal forces of a strain of 1e-3 (the rotation's size) with D ~ 1e11 Pa on a 1 mm
  // element, 1e8 Pa x 1e-6 m^2 ~ 1e2 N, cancel to rounding, ~1e-16 of that per term.
  for (double value : f) EXPECT_LE(std::abs(value), 1e2 * 1e-10);
}

}  // namespace
}  // namespace tremor
