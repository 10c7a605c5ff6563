#pragma once
// Quadrature rules on the reference domains: tensor Gauss-Legendre and Gauss-Lobatto-Legendre on
// [-1, 1]^d, and rules on the unit triangle {x, y >= 0, x + y <= 1} and unit tetrahedron
// {x, y, z >= 0, x + y + z <= 1}. Rules are fixed-size, trivially copyable structs so a kernel can
// build one or receive one by value.
//
// `degree` is what a rule integrates exactly: for tensor rules every monomial x^a y^b (z^c) with
// each exponent <= degree; for simplex rules every polynomial of total degree <= degree.
#include "tremor/core/config.hpp"
#include "tremor/core/polynomials.hpp"

namespace tremor::fem {

template <int Dim, int MaxPoints>
struct QuadratureRule {
  static constexpr int dim = Dim;
  static constexpr int max_points = MaxPoints;
  int n_points = 0;
  int degree = -1;
  double points[MaxPoints * Dim] = {};  // point q at points[q * Dim .. q * Dim + Dim)
  double weights[MaxPoints] = {};

  TREMOR_HOST_DEVICE const double* point(int q) const { return points + q * Dim; }
};

constexpr int ipow(int base, int exponent) {
  int r = 1;
  for (int i = 0; i < exponent; ++i) r *= base;
  return r;
}

// Gauss-Legendre points per direction that integrate degree `degree` exactly.
constexpr int gauss_points_for_degree(int degree) { return degree < 1 ? 1 : (degree + 2) / 2; }

// Tensor product of the n-point Gauss-Legendre (lobatto = false) or GLL (lobatto = true) rule;
// points in lexicographic order, x fastest (for GLL they coincide with the GLL element nodes).
template <int Dim, int MaxPoints>
TREMOR_HOST_DEVICE void tensor_rule(int n, bool lobatto, QuadratureRule<Dim, MaxPoints>& rule) {
  double x[max_points_1d], w[max_points_1d];
  if (lobatto)
    gauss_lobatto(n, x, w);
  else
    gauss_legendre(n, x, w);
  rule.n_points = ipow(n, Dim);
  rule.degree = lobatto ? 2 * n - 3 : 2 * n - 1;
  for (int q = 0; q < rule.n_points; ++q) {
    int rest = q;
    double weight = 1.0;
    for (int d = 0; d < Dim; ++d) {
      const int i = rest % n;
      rest /= n;
      rule.points[q * Dim + d] = x[i];
      weight *= w[i];
    }
    rule.weights[q] = weight;
  }
}

// ---------------------------------------------------------------------------------------------
// Simplex rules. Symmetric rules with positive weights where a short one is known:
//   triangle degree 1: centroid; degree 2: 3 points (Strang & Fix 1973, table 4.1);
//   degree 4: 6 points (Dunavant 1985, "High degree efficient symmetrical Gaussian quadrature
//   rules for the triangle", rule 4); degree 5: 7 points (Radon 1948, Dunavant rule 5);
//   tetrahedron degree 1: centroid; degree 2: 4 points (Keast 1986, rule 2);
//   degree 5: 14 points (Walkington 2000, "Quadrature on simplices of arbitrary dimension";
//   also Keast 1986 rule 6).
// The digits of the degree-4 triangle and degree-5 tetrahedron rules were re-solved from their
// moment equations in double. Beyond those degrees (up to 8, and higher), a conical product
// (collapsed Gauss, Stroud 1971 "Approximate calculation of multiple integrals" section 2.7): the
// square/cube [0, 1]^d mapped onto the simplex by x = u, y = (1 - u) v, z = (1 - u)(1 - v) w,
// Gauss-Legendre in each variable with enough points for the Jacobian (1 - u)^(d-1) (1 - v)^(d-2);
// positive weights, all points interior, not symmetric.
// ---------------------------------------------------------------------------------------------

// Points of the conical-product rule of exactness `degree` (see triangle_rule / tetrahedron_rule).
constexpr int conical_points_1d(int degree) { return (degree + 3) / 2; }  // n with 2n - 2 >= degree

constexpr int triangle_points(int degree) {
  if (degree <= 1) return 1;
  if (degree <= 2) return 3;
  if (degree <= 4) return 6;
  if (degree <= 5) return 7;
  return ipow(conical_points_1d(degree), 2);
}

constexpr int tetrahedron_points(int degree) {
  if (degree <= 1) return 1;
  if (degree <= 2) return 4;
  if (degree <= 5) return 14;
  const int n = conical_points_1d(degree);
  return (n + 1) * n * n;
}

namespace detail {

// Adds the S3 orbit of barycentric point (a, a, 1 - 2a) to a triangle rule.
template <int MaxPoints>
TREMOR_HOST_DEVICE void add_s21(QuadratureRule<2, MaxPoints>& rule, double a, double weight) {
  const double b = 1.0 - 2.0 * a;
  const double xy[3][2] = {{a, a}, {b, a}, {a, b}};
  for (int k = 0; k < 3; ++k) {
    rule.points[rule.n_points * 2] = xy[k][0];
    rule.points[rule.n_points * 2 + 1] = xy[k][1];
    rule.weights[rule.n_points++] = weight;
  }
}

// Adds the S4 orbit of barycentric point (a, a, a, 1 - 3a) to a tetrahedron rule.
template <int MaxPoints>
TREMOR_HOST_DEVICE void add_s31(QuadratureRule<3, MaxPoints>& rule, double a, double weight) {
  const double b = 1.0 - 3.0 * a;
  const double xyz[4][3] = {{a, a, a}, {b, a, a}, {a, b, a}, {a, a, b}};
  for (int k = 0; k < 4; ++k) {
    for (int d = 0; d < 3; ++d) rule.points[rule.n_points * 3 + d] = xyz[k][d];
    rule.weights[rule.n_points++] = weight;
  }
}

// Adds the S4 orbit of barycentric point (a, a, 1/2 - a, 1/2 - a) (6 points).
template <int MaxPoints>
TREMOR_HOST_DEVICE void add_s22(QuadratureRule<3, MaxPoints>& rule, double a, double weight) {
  const double b = 0.5 - a;
  // Barycentric coordinates L0..L3; (x, y, z) = (L1, L2, L3). Pairs {i, j} get a, the rest b.
  const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  for (int k = 0; k < 6; ++k) {
    double lambda[4] = {b, b, b, b};
    lambda[pairs[k][0]] = a;
    lambda[pairs[k][1]] = a;
    for (int d = 0; d < 3; ++d) rule.points[rule.n_points * 3 + d] = lambda[d + 1];
    rule.weights[rule.n_points++] = weight;
  }
}

}  // namespace detail

// A rule on the unit triangle exact for total degree `degree` (0..8 documented; area 1/2).
template <int MaxPoints>
TREMOR_HOST_DEVICE void triangle_rule(int degree, QuadratureRule<2, MaxPoints>& rule) {
  static_assert(MaxPoints >= 1);
  rule.n_points = 0;
  if (degree <= 1) {
    rule.degree = 1;
    rule.points[0] = rule.points[1] = 1.0 / 3.0;
    rule.weights[0] = 0.5;
    rule.n_points = 1;
  } else if (degree <= 2) {
    rule.degree = 2;
    detail::add_s21(rule, 1.0 / 6.0, 1.0 / 6.0);
  } else if (degree <= 4) {
    rule.degree = 4;
    detail::add_s21(rule, 0.4459484909159647, 0.11169079483900536);
    detail::add_s21(rule, 0.09157621350977131, 0.0549758718276613);
  } else if (degree <= 5) {
    rule.degree = 5;
    const double s15 = sqrt(15.0);
    rule.points[0] = rule.points[1] = 1.0 / 3.0;
    rule.weights[0] = 9.0 / 80.0;
    rule.n_points = 1;
    detail::add_s21(rule, (6.0 - s15) / 21.0, (155.0 - s15) / 2400.0);
    detail::add_s21(rule, (6.0 + s15) / 21.0, (155.0 + s15) / 2400.0);
  } else {
    const int n = conical_points_1d(degree);
    double x[max_points_1d], w[max_points_1d];
    gauss_legendre(n, x, w);
    rule.degree = 2 * n - 2;
    for (int i = 0; i < n; ++i) {
      const double u = 0.5 * (x[i] + 1.0);
      for (int j = 0; j < n; ++j) {
        const double v = 0.5 * (x[j] + 1.0);
        rule.points[rule.n_points * 2] = u;
        rule.points[rule.n_points * 2 + 1] = (1.0 - u) * v;
        rule.weights[rule.n_points++] = 0.25 * w[i] * w[j] * (1.0 - u);
      }
    }
  }
}

// A rule on the unit tetrahedron exact for total degree `degree` (0..8 documented; volume 1/6).
template <int MaxPoints>
TREMOR_HOST_DEVICE void tetrahedron_rule(int degree, QuadratureRule<3, MaxPoints>& rule) {
  static_assert(MaxPoints >= 1);
  rule.n_points = 0;
  if (degree <= 1) {
    rule.degree = 1;
    rule.points[0] = rule.points[1] = rule.points[2] = 0.25;
    rule.weights[0] = 1.0 / 6.0;
    rule.n_points = 1;
  } else if (degree <= 2) {
    rule.degree = 2;
    detail::add_s31(rule, (5.0 - sqrt(5.0)) / 20.0, 1.0 / 24.0);
  } else if (degree <= 5) {
    rule.degree = 5;
    detail::add_s31(rule, 0.09273525031089114, 0.012248840519393638);
    detail::add_s31(rule, 0.31088591926330067, 0.018781320953002605);
    detail::add_s22(rule, 0.045503704125650093, 0.007091003462846954);
  } else {
    // u gets one point more: its Jacobian factor (1 - u)^2 adds two to the degree.
    const int n = conical_points_1d(degree);
    double xu[max_points_1d], wu[max_points_1d], x[max_points_1d], w[max_points_1d];
    gauss_legendre(n + 1, xu, wu);
    gauss_legendre(n, x, w);
    rule.degree = 2 * n - 2;
    for (int i = 0; i < n + 1; ++i) {
      const double u = 0.5 * (xu[i] + 1.0);
      for (int j = 0; j < n; ++j) {
        const double v = 0.5 * (x[j] + 1.0);
        for (int k = 0; k < n; ++k) {
          const double t = 0.5 * (x[k] + 1.0);
          double* p = rule.points + rule.n_points * 3;
          p[0] = u;
          p[1] = (1.0 - u) * v;
          p[2] = (1.0 - u) * (1.0 - v) * t;
          rule.weights[rule.n_points++] = 0.125 * wu[i] * w[j] * w[k] * (1.0 - u) * (1.0 - u) * (1.0 - v);
        }
      }
    }
  }
}

}  // namespace tremor::fem
