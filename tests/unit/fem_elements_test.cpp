// Reference elements: partition of unity, Kronecker property, gradients against finite
// differences, reproduction of each element's polynomial space; 1D rules and quadrature exactness.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fem_test_helpers.hpp"
#include "tremor/core/polynomials.hpp"
#include "tremor/fem/quadrature.hpp"

namespace tremor::fem {
namespace TREMOR_TEST_FILE {

using test::Random;

template <class E>
class ShapeTest : public ::testing::Test {};
using AllElements = ::testing::Types<Tri3, Tri6, Quad4, Quad8, Tet4, Tet10, Hex8, Hex20, QuadGll<1>, QuadGll<2>,
                                     QuadGll<3>, QuadGll<5>, QuadGll<8>, HexGll<1>, HexGll<2>, HexGll<4>, HexGll<8>>;
TYPED_TEST_SUITE(ShapeTest, AllElements);

// Sums of up to 729 terms of size <= ~3 (Lagrange values on GLL points stay below the Lebesgue
// constant, about 3 for P = 8): rounding stays below 1e-12.
constexpr double shape_tolerance = 1e-12;

TYPED_TEST(ShapeTest, PartitionOfUnityAndGradientsSumToZero) {
  using E = TypeParam;
  Random random(3);
  for (int trial = 0; trial < 5; ++trial) {
    double xi[3], N[E::n_nodes], dN[E::n_nodes * E::dim];
    test::random_reference_point<E>(random, xi);
    E::shape(xi, N);
    E::gradients(xi, dN);
    double sum = 0.0, grad[3] = {};
    for (int a = 0; a < E::n_nodes; ++a) {
      sum += N[a];
      for (int j = 0; j < E::dim; ++j) grad[j] += dN[a * E::dim + j];
    }
    EXPECT_NEAR(sum, 1.0, shape_tolerance);
    for (int j = 0; j < E::dim; ++j) EXPECT_NEAR(grad[j], 0.0, shape_tolerance * 10) << "direction " << j;
  }
}

TYPED_TEST(ShapeTest, ShapeFunctionsAreKroneckerAtNodes) {
  using E = TypeParam;
  for (int b = 0; b < E::n_nodes; ++b) {
    double xi[3], N[E::n_nodes];
    E::node(b, xi);
    E::shape(xi, N);
    for (int a = 0; a < E::n_nodes; ++a) ASSERT_NEAR(N[a], a == b ? 1.0 : 0.0, shape_tolerance) << a << " at " << b;
  }
}

TYPED_TEST(ShapeTest, GradientsMatchCentralDifferences) {
  using E = TypeParam;
  Random random(5);
  const double h = 1e-5;
  for (int trial = 0; trial < 3; ++trial) {
    double xi[3] = {}, dN[E::n_nodes * E::dim];
    test::random_reference_point<E>(random, xi);
    E::gradients(xi, dN);
    for (int j = 0; j < E::dim; ++j) {
      double plus[3] = {xi[0], xi[1], xi[2]}, minus[3] = {xi[0], xi[1], xi[2]};
      plus[j] += h;
      minus[j] -= h;
      double Np[E::n_nodes], Nm[E::n_nodes];
      E::shape(plus, Np);
      E::shape(minus, Nm);
      for (int a = 0; a < E::n_nodes; ++a)
        // Truncation h^2/6 |N'''| (N''' up to ~1e3 for P = 8) plus rounding 1e-16/h: about 1e-7.
        ASSERT_NEAR(dN[a * E::dim + j], (Np[a] - Nm[a]) / (2 * h), 1e-6) << "node " << a << " direction " << j;
    }
  }
}

// Monomials the element interpolates exactly: total degree <= p on simplices, <= 2 for the
// serendipity elements, per-direction degree <= P for the tensor elements.
template <class E>
bool in_space(const int* exponents) {
  int sum = 0, max = 0;
  for (int d = 0; d < E::dim; ++d) {
    sum += exponents[d];
    max = std::max(max, exponents[d]);
  }
  if constexpr (E::simplex) return sum <= polynomial_order(E::type);
  if constexpr (E::type == ElementType::Quad8 || E::type == ElementType::Hex20) return sum <= 2;
  return max <= E::order;
}

TYPED_TEST(ShapeTest, InterpolatesItsPolynomialSpaceExactly) {
  using E = TypeParam;
  constexpr int p = E::order + 2;
  Random random(11);
  double xi[3];
  test::random_reference_point<E>(random, xi);
  double N[E::n_nodes];
  E::shape(xi, N);
  int tested = 0;
  for (int k = 0; k < ipow(p + 1, E::dim); ++k) {
    int exponents[3] = {};
    int rest = k;
    for (int d = 0; d < E::dim; ++d) {
      exponents[d] = rest % (p + 1);
      rest /= p + 1;
    }
    if (!in_space<E>(exponents)) continue;
    auto monomial = [&](const double* point) {
      double value = 1.0;
      for (int d = 0; d < E::dim; ++d) value *= std::pow(point[d], exponents[d]);
      return value;
    };
    double interpolated = 0.0;
    for (int a = 0; a < E::n_nodes; ++a) {
      double node[3];
      E::node(a, node);
      interpolated += N[a] * monomial(node);
    }
    ASSERT_NEAR(interpolated, monomial(xi), shape_tolerance) << "monomial " << k;
    ++tested;
  }
  EXPECT_EQ(tested, E::type == ElementType::Quad8 ? 6 : (E::type == ElementType::Hex20 ? 10 : E::n_nodes))
      << "the space tested has the element's dimension (serendipity: the complete quadratics)";
}

TEST(Polynomials, GaussLobattoPointsAndWeightsMatchClosedForms) {
  double x[max_points_1d], w[max_points_1d];
  gauss_lobatto(3, x, w);
  EXPECT_DOUBLE_EQ(x[1], 0.0);
  EXPECT_NEAR(w[0], 1.0 / 3.0, 1e-15);
  EXPECT_NEAR(w[1], 4.0 / 3.0, 1e-15);
  gauss_lobatto(4, x, w);
  EXPECT_NEAR(x[2], 1.0 / std::sqrt(5.0), 1e-15);
  EXPECT_NEAR(w[0], 1.0 / 6.0, 1e-15);
  gauss_lobatto(5, x, w);
  EXPECT_NEAR(x[3], std::sqrt(3.0 / 7.0), 1e-15);
  EXPECT_NEAR(w[2], 32.0 / 45.0, 1e-15);
  gauss_legendre(2, x, w);
  EXPECT_NEAR(x[1], 1.0 / std::sqrt(3.0), 1e-15);
  gauss_legendre(3, x, w);
  EXPECT_NEAR(x[2], std::sqrt(0.6), 1e-15);
  EXPECT_NEAR(w[1], 8.0 / 9.0, 1e-15);
}

double integral_1d(int k) { return k % 2 ? 0.0 : 2.0 / (k + 1); }

// Rounding of sums of n terms, each at most 1 in size: 1e-14 absolute.
constexpr double exact_tolerance = 1e-14;
// A rule claiming degree d must fail some monomial of degree d + 1 by much more than rounding.
constexpr double inexact_threshold = 1e-10;

TEST(Quadrature, GaussAndLobattoRulesAreExactToTheirDegreeOnly) {
  for (bool lobatto : {false, true}) {
    for (int n = lobatto ? 2 : 1; n <= (lobatto ? 9 : 10); ++n) {
      double x[max_points_1d], w[max_points_1d];
      lobatto ? gauss_lobatto(n, x, w) : gauss_legendre(n, x, w);
      const int degree = lobatto ? 2 * n - 3 : 2 * n - 1;
      for (int k = 0; k <= degree + 1; ++k) {
        double sum = 0.0;
        for (int i = 0; i < n; ++i) sum += w[i] * std::pow(x[i], k);
        if (k <= degree) {
          EXPECT_NEAR(sum, integral_1d(k), exact_tolerance) << (lobatto ? "GLL " : "Gauss ") << n << " x^" << k;
        } else {
          EXPECT_GT(std::abs(sum - integral_1d(k)), inexact_threshold) << n << " points claim too little";
        }
      }
    }
  }
}

template <int Dim>
void check_tensor_rule(int n, bool lobatto) {
  QuadratureRule<Dim, ipow(10, Dim)> rule;
  tensor_rule(n, lobatto, rule);
  ASSERT_EQ(rule.degree, lobatto ? 2 * n - 3 : 2 * n - 1);
  const int top = rule.degree + 1;
  for (int k = 0; k < ipow(top + 1, Dim); ++k) {
    int e[3] = {};
    int rest = k, max = 0;
    for (int d = 0; d < Dim; ++d) {
      e[d] = rest % (top + 1);
      rest /= top + 1;
      max = std::max(max, e[d]);
    }
    double sum = 0.0, exact = 1.0;
    for (int q = 0; q < rule.n_points; ++q) {
      double value = rule.weights[q];
      for (int d = 0; d < Dim; ++d) value *= std::pow(rule.point(q)[d], e[d]);
      sum += value;
    }
    for (int d = 0; d < Dim; ++d) exact *= integral_1d(e[d]);
    if (max <= rule.degree) {
      ASSERT_NEAR(sum, exact, exact_tolerance * 10) << Dim << "D n = " << n << " monomial " << k;
    } else if (k == top) {  // x^top alone (top is even): not integrated exactly
      EXPECT_GT(std::abs(sum - exact), inexact_threshold) << Dim << "D n = " << n << " claims too little";
    }
  }
}

TEST(Quadrature, TensorRulesAreExactPerDirection) {
  for (int n = 1; n <= 10; ++n) check_tensor_rule<2>(n, false);
  for (int n = 1; n <= 6; ++n) check_tensor_rule<3>(n, false);
  for (int n = 2; n <= 9; ++n) check_tensor_rule<2>(n, true);
  for (int n = 2; n <= 5; ++n) check_tensor_rule<3>(n, true);
}

double factorial(int n) { return n <= 1 ? 1.0 : n * factorial(n - 1); }

// Full symmetry: every permutation of the barycentric coordinates (L0 = 1 - x - y (- z), L1 = x,
// ...) maps each point onto a point of the rule with the same weight; and no two points coincide.
// Coordinates of one orbit are tabulated once, so images agree to the rounding of L0 (1e-16);
// weights within an orbit are bitwise equal.
template <int Dim, class Rule>
void check_simplex_symmetry(const Rule& rule) {
  constexpr int n = Dim + 1;
  const auto barycentric = [&](int q, double* lambda) {
    lambda[0] = 1.0;
    for (int d = 0; d < Dim; ++d) {
      lambda[d + 1] = rule.point(q)[d];
      lambda[0] -= lambda[d + 1];
    }
  };
  int perm[n];
  for (int i = 0; i < n; ++i) perm[i] = i;
  int n_perms = 0;
  do {
    ++n_perms;
    for (int q = 0; q < rule.n_points; ++q) {
      double lambda[n], image[n];
      barycentric(q, lambda);
      for (int i = 0; i < n; ++i) image[i] = lambda[perm[i]];
      int matches = 0;
      for (int r = 0; r < rule.n_points; ++r) {
        double other[n], distance = 0.0;
        barycentric(r, other);
        for (int i = 0; i < n; ++i) distance = std::max(distance, std::abs(other[i] - image[i]));
        if (distance < 1e-14) {
          ++matches;
          EXPECT_EQ(rule.weights[r], rule.weights[q]) << Dim << "D degree " << rule.degree << " point " << q;
        }
      }
      EXPECT_EQ(matches, 1) << Dim << "D degree " << rule.degree << " point " << q << " permutation " << n_perms;
    }
  } while (std::next_permutation(perm, perm + n));
  EXPECT_EQ(n_perms, Dim == 2 ? 6 : 24);
}

// Exact integral of x^a y^b (z^c) over the unit simplex: a! b! c! / (a + b + c + d)!.
template <int Dim, class Rule>
void check_simplex_rule(const Rule& rule, int requested) {
  EXPECT_GE(rule.degree, requested);
  // The weights sum to the measure 1/2 or 1/6: n positive terms, rounding below n * 1.1e-16.
  double total = 0.0;
  for (int q = 0; q < rule.n_points; ++q) total += rule.weights[q];
  EXPECT_NEAR(total, Dim == 2 ? 0.5 : 1.0 / 6.0, 1e-14);
  for (int q = 0; q < rule.n_points; ++q) {
    EXPECT_GT(rule.weights[q], 0.0);
    double sum = 0.0;
    for (int d = 0; d < Dim; ++d) {
      EXPECT_GT(rule.point(q)[d], 0.0);
      sum += rule.point(q)[d];
    }
    EXPECT_LT(sum, 1.0);
  }
  double worst_above = 0.0;
  const int top = rule.degree + 1;
  for (int a = 0; a <= top; ++a)
    for (int b = 0; a + b <= top; ++b)
      for (int c = 0; a + b + c <= top; ++c) {
        if (Dim == 2 && c > 0) continue;
        double sum = 0.0;
        for (int q = 0; q < rule.n_points; ++q) {
          const double* p = rule.point(q);
          sum += rule.weights[q] * std::pow(p[0], a) * std::pow(p[1], b) * (Dim == 3 ? std::pow(p[2], c) : 1.0);
        }
        const double exact = factorial(a) * factorial(b) * factorial(c) / factorial(a + b + c + Dim);
        const double error = std::abs(sum - exact) / exact;
        if (a + b + c <= rule.degree) {
          // Relative: the integrals reach 1e-8 at degree 9, so absolute errors would say nothing.
          // Every term is positive, so the relative rounding of the sum is at most about
          // (n_points + degree) * 1.1e-16 < 7e-15 for 46 points at degree 8, plus the 17-digit
          // rounding of the tabulated digits (the derivation script reports < 1e-15): 2e-14.
          EXPECT_LT(error, 2e-14) << Dim << "D degree " << requested << ": x^" << a << " y^" << b << " z^" << c;
        } else {
          worst_above = std::max(worst_above, error);
        }
      }
  EXPECT_GT(worst_above, inexact_threshold) << Dim << "D rule of degree " << rule.degree << " claims too little";
}

TEST(Quadrature, TriangleRulesAreSymmetricAndExactToDegreeEight) {
  for (int degree = 0; degree <= 8; ++degree) {
    QuadratureRule<2, triangle_points(8)> rule;
    triangle_rule(degree, rule);
    EXPECT_EQ(rule.n_points, triangle_points(degree));
    check_simplex_rule<2>(rule, degree);
    check_simplex_symmetry<2>(rule);
  }
}

TEST(Quadrature, TetrahedronRulesAreSymmetricAndExactToDegreeEight) {
  for (int degree = 0; degree <= 8; ++degree) {
    QuadratureRule<3, tetrahedron_points(8)> rule;
    tetrahedron_rule(degree, rule);
    EXPECT_EQ(rule.n_points, tetrahedron_points(degree));
    check_simplex_rule<3>(rule, degree);
    check_simplex_symmetry<3>(rule);
  }
}

TEST(Quadrature, SimplexRulesStopAtDegreeEight) {
  QuadratureRule<2, triangle_points(12)> tri;
  triangle_rule(12, tri);
  EXPECT_EQ(tri.degree, 8);
  EXPECT_EQ(tri.n_points, triangle_points(8));
  QuadratureRule<3, tetrahedron_points(12)> tet;
  tetrahedron_rule(12, tet);
  EXPECT_EQ(tet.degree, 8);
  EXPECT_EQ(tet.n_points, tetrahedron_points(8));
}

}  // namespace
}  // namespace tremor::fem
