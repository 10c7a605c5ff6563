#pragma once
// One-dimensional polynomial building blocks shared by the element library and the mesh generators:
// Legendre polynomials, Gauss-Legendre and Gauss-Lobatto-Legendre (GLL) points and weights, and the
// Lagrange basis on a set of points.
// Everything is computed in double from the formulas (Newton on the Legendre recurrence), so the
// same code runs on the host and inside CUDA kernels; no tables, no heap.
#include <math.h>

#include <numbers>

#include "tremor/core/config.hpp"

namespace tremor {

// Largest point count the 1D rules support (Gauss-Legendre 1..10 and GLL 2..9 are documented and
// tested; larger counts work but are not claimed).
constexpr int max_points_1d = 16;

// P_n(x) and P_{n-1}(x) by the three-term recurrence (k+1) P_{k+1} = (2k+1) x P_k - k P_{k-1}.
TREMOR_HOST_DEVICE inline void legendre(int n, double x, double& p_n, double& p_n_minus_1) {
  double p0 = 1.0, p1 = x;
  if (n == 0) {
    p_n = 1.0;
    p_n_minus_1 = 0.0;
    return;
  }
  for (int k = 1; k < n; ++k) {
    const double p2 = ((2.0 * k + 1.0) * x * p1 - k * p0) / (k + 1.0);
    p0 = p1;
    p1 = p2;
  }
  p_n = p1;
  p_n_minus_1 = p0;
}

// n-point Gauss-Legendre rule on [-1, 1], points ascending; exact for degree 2n - 1.
// Newton on P_n from the Tricomi initial guess; weights 2 / ((1 - x^2) P_n'(x)^2).
TREMOR_HOST_DEVICE inline void gauss_legendre(int n, double* x, double* w) {
  constexpr double pi = std::numbers::pi;
  for (int i = 0; i < (n + 1) / 2; ++i) {
    double t = -cos(pi * (i + 0.75) / (n + 0.5));
    double dp = 1.0;
    for (int iter = 0; iter < 100; ++iter) {
      double p, q;
      legendre(n, t, p, q);
      dp = n * (t * p - q) / (t * t - 1.0);  // P_n' from P_n and P_{n-1}
      const double step = p / dp;
      t -= step;
      if (fabs(step) < 1e-16) break;
    }
    double p, q;
    legendre(n, t, p, q);
    dp = n * (t * p - q) / (t * t - 1.0);
    const double weight = 2.0 / ((1.0 - t * t) * dp * dp);
    // Mirror so the rule is exactly symmetric.
    x[i] = t;
    x[n - 1 - i] = -t;
    w[i] = weight;
    w[n - 1 - i] = weight;
  }
  if (n % 2 == 1) x[n / 2] = 0.0;
}

// n-point Gauss-Lobatto-Legendre rule on [-1, 1] (n >= 2), points ascending, end points +-1;
// exact for degree 2n - 3. Interior points are the roots of P'_{n-1}, found by Newton from the
// Chebyshev-Gauss-Lobatto points; weights 2 / (N (N + 1) P_N(x)^2) with N = n - 1.
TREMOR_HOST_DEVICE inline void gauss_lobatto(int n, double* x, double* w) {
  constexpr double pi = std::numbers::pi;
  const int order = n - 1;
  for (int i = 0; i < (n + 1) / 2; ++i) {
    double t = -cos(pi * i / order);
    if (i > 0) {
      for (int iter = 0; iter < 100; ++iter) {
        // Newton on (1 - x^2) P_N'(x), written with P_N and P_{N-1} (Trefethen's form).
        double p, q;
        legendre(order, t, p, q);
        const double step = (t * p - q) / (n * p);
        t -= step;
        if (fabs(step) < 1e-16) break;
      }
    }
    double p, q;
    legendre(order, t, p, q);
    const double weight = 2.0 / (order * (order + 1.0) * p * p);
    x[i] = t;
    x[n - 1 - i] = -t;
    w[i] = weight;
    w[n - 1 - i] = weight;
  }
  if (n % 2 == 1) x[n / 2] = 0.0;
}

// GLL points only (the nodes of the GLL elements of order n - 1).
TREMOR_HOST_DEVICE inline void gll_points(int n, double* x) {
  double w[max_points_1d];
  gauss_lobatto(n, x, w);
}

// Values l_i(t) and derivatives l_i'(t) of the n Lagrange polynomials on `points` (distinct).
TREMOR_HOST_DEVICE inline void lagrange(int n, const double* points, double t, double* value, double* derivative) {
  for (int i = 0; i < n; ++i) {
    double v = 1.0, d = 0.0;
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      const double inv = 1.0 / (points[i] - points[j]);
      // Product rule, accumulated: (v * f)' = v' f + v f'.
      d = d * (t - points[j]) * inv + v * inv;
      v *= (t - points[j]) * inv;
    }
    value[i] = v;
    derivative[i] = d;
  }
}

}  // namespace tremor
