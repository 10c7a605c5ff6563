#pragma once
// Helpers shared by the element-library tests: reference-element type lists, distorted element
// geometries, materials, and a small dense symmetric eigenvalue solver.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tremor/fem/element_matrices.hpp"
#include "tremor/fem/elements.hpp"

namespace tremor::fem::test {

// Deterministic pseudo-random numbers in [-1, 1).
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  double next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return static_cast<double>(state_ >> 11) * 0x1.0p-52 - 1.0;
  }

 private:
  std::uint64_t state_;
};

// A point inside the reference element.
template <class E>
void random_reference_point(Random& random, double* xi) {
  if constexpr (E::simplex) {
    double sum = 0.0;
    for (int d = 0; d < E::dim; ++d) {
      xi[d] = 0.5 * (random.next() + 1.0);
      sum += xi[d];
    }
    if (sum > 1.0)
      for (int d = 0; d < E::dim; ++d) xi[d] *= 0.95 / sum;
  } else {
    for (int d = 0; d < E::dim; ++d) xi[d] = random.next();
  }
}

// Node coordinates (node-major) of an element whose vertices are given: the higher-order nodes
// follow the straight-sided map of the vertices (affine for simplices, multilinear otherwise),
// then every node moves by `curvature` times a smooth field that vanishes at the vertices.
template <class E>
std::vector<double> element_from_vertices(const std::vector<double>& vertices, double curvature) {
  std::vector<double> x(static_cast<std::size_t>(E::n_nodes * E::dim));
  for (int a = 0; a < E::n_nodes; ++a) {
    double xi[3] = {};
    E::node(a, xi);
    double weights[8] = {};
    if constexpr (E::simplex) {
      detail::barycentric<E::dim>(xi, weights);
    } else if constexpr (E::dim == 2) {
      Quad4::shape(xi, weights);
    } else {
      Hex8::shape(xi, weights);
    }
    for (int c = 0; c < E::dim; ++c) {
      double value = 0.0;
      for (int v = 0; v < E::n_vertices; ++v) value += weights[v] * vertices[static_cast<std::size_t>(v * E::dim + c)];
      double bump;
      if constexpr (E::simplex) {
        double lambda[4];
        detail::barycentric<E::dim>(xi, lambda);
        bump = 4.0 * lambda[c] * lambda[(c + 1) % (E::dim + 1)];
      } else {
        bump = (1.0 - xi[(c + 1) % E::dim] * xi[(c + 1) % E::dim]) * (0.5 + 0.3 * xi[c]);
      }
      x[static_cast<std::size_t>(a * E::dim + c)] = value + curvature * bump;
    }
  }
  return x;
}

// The reference vertices scaled to unit size, optionally perturbed (non-affine for quads and
// hexes), then rotated and shifted so no coordinate axis is special.
template <class E>
std::vector<double> element_vertices(double distortion, std::uint64_t seed) {
  Random random(seed);
  std::vector<double> v(static_cast<std::size_t>(E::n_vertices * E::dim));
  for (int a = 0; a < E::n_vertices; ++a) {
    double xi[3] = {};
    E::node(vertex_node<E>(a), xi);
    double p[3] = {};
    for (int c = 0; c < E::dim; ++c) p[c] = (E::simplex ? xi[c] : 0.5 * xi[c]) + distortion * random.next();
    // Rotation by fixed angles and a shift.
    double r[3] = {};
    if constexpr (E::dim == 2) {
      const double cs = std::cos(0.4), sn = std::sin(0.4);
      r[0] = cs * p[0] - sn * p[1] + 0.3;
      r[1] = sn * p[0] + cs * p[1] - 0.2;
    } else {
      const double cs = std::cos(0.4), sn = std::sin(0.4), ct = std::cos(0.7), st = std::sin(0.7);
      const double q0 = cs * p[0] - sn * p[1], q1 = sn * p[0] + cs * p[1];
      r[0] = q0 + 0.3;
      r[1] = ct * q1 - st * p[2] - 0.2;
      r[2] = st * q1 + ct * p[2] + 0.1;
    }
    for (int c = 0; c < E::dim; ++c) v[static_cast<std::size_t>(a * E::dim + c)] = r[c];
  }
  return v;
}

// A distorted element: perturbed vertices and curved edges (curvature 0: straight-sided).
template <class E>
std::vector<double> distorted_element(double distortion, double curvature, std::uint64_t seed = 7) {
  return element_from_vertices<E>(element_vertices<E>(distortion, seed), curvature);
}

// The shapes the element-matrix tests check every property on: the regular element, a distorted
// straight-sided one, and (for elements with edge nodes) a curved one.
template <class E>
std::vector<std::vector<double>> matrix_shapes() {
  std::vector<std::vector<double>> out{distorted_element<E>(0.0, 0.0), distorted_element<E>(0.12, 0.0)};
  if (E::n_nodes > E::n_vertices) out.push_back(distorted_element<E>(0.12, 0.06));
  return out;
}

// The element types the element-matrix tests run on (HexGll above order 3 is left to the shape
// tests: its dense K, 375 DOFs and more, makes the Jacobi eigen solve slow for no new code path).
using MatrixElements = ::testing::Types<fem::Tri3, fem::Tri6, fem::Quad4, fem::Quad8, fem::Tet4, fem::Tet10,
                                        fem::Hex8, fem::Hex20, fem::QuadGll<1>, fem::QuadGll<2>, fem::QuadGll<4>,
                                        fem::QuadGll<8>, fem::HexGll<1>, fem::HexGll<2>, fem::HexGll<3>>;

// An anisotropic, symmetric positive definite constitutive matrix (n_voigt x n_voigt).
inline std::vector<double> anisotropic_D(int dim, double scale = 1.0) {
  const int n = dim == 2 ? 3 : 6;
  Random random(42);
  std::vector<double> A(static_cast<std::size_t>(n * n)), D(static_cast<std::size_t>(n * n));
  for (auto& value : A) value = random.next();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = i == j ? 2.0 : 0.0;
      for (int k = 0; k < n; ++k) sum += A[static_cast<std::size_t>(i * n + k)] * A[static_cast<std::size_t>(j * n + k)];
      D[static_cast<std::size_t>(i * n + j)] = scale * sum;
    }
  return D;
}

// Isotropic D from Lame constants (plane strain rows in 2D).
inline std::vector<double> isotropic_D(int dim, double lambda, double mu) {
  if (dim == 2) return {lambda + 2 * mu, lambda, 0, lambda, lambda + 2 * mu, 0, 0, 0, mu};
  std::vector<double> D(36, 0.0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) D[static_cast<std::size_t>(6 * i + j)] = lambda + (i == j ? 2 * mu : 0.0);
  for (int i = 3; i < 6; ++i) D[static_cast<std::size_t>(7 * i)] = mu;
  return D;
}

// Eigenvalues of a symmetric n x n matrix (row-major) by cyclic Jacobi rotations, ascending.
inline std::vector<double> symmetric_eigenvalues(std::vector<double> a, int n) {
  auto at = [&](int i, int j) -> double& { return a[static_cast<std::size_t>(i) * n + j]; };
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0.0, diag = 0.0;
    for (int i = 0; i < n; ++i) {
      diag += at(i, i) * at(i, i);
      for (int j = i + 1; j < n; ++j) off += at(i, j) * at(i, j);
    }
    if (off <= 1e-32 * diag) break;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        const double apq = at(p, q);
        if (std::abs(apq) < 1e-300) continue;
        const double theta = 0.5 * (at(q, q) - at(p, p)) / apq;
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < n; ++k) {
          const double akp = at(k, p), akq = at(k, q);
          at(k, p) = c * akp - s * akq;
          at(k, q) = s * akp + c * akq;
        }
        for (int k = 0; k < n; ++k) {
          const double apk = at(p, k), aqk = at(q, k);
          at(p, k) = c * apk - s * aqk;
          at(q, k) = s * apk + c * aqk;
        }
      }
  }
  std::vector<double> values(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = at(i, i);
  std::sort(values.begin(), values.end());
  return values;
}

inline double max_abs(const std::vector<double>& values) {
  double m = 0.0;
  for (double v : values) m = std::max(m, std::abs(v));
  return m;
}

// Reference volume of E's domain.
template <class E>
constexpr double reference_volume() {
  if constexpr (E::simplex) return E::dim == 2 ? 0.5 : 1.0 / 6.0;
  return E::dim == 2 ? 4.0 : 8.0;
}

}  // namespace tremor::fem::test
