#pragma once
// The sum-factorised steps of K_e u_e on a GLL element of order P: the portable body of the
// `sem` operator (operator.hpp; the multi-GPU spectral-element paper, section 2, and the
// tensor-product evaluation of Kronbichler and Kormann 2012, section 3).
//
// The quadrature is the spectral element method's: the (P + 1)^Dim GLL nodes themselves, the
// rule the lumped mass uses (fem::stiffness_rule of GLL elements). The values at the points are
// the nodal values, so the gradient of u at a point is Dim sums of n = P + 1 terms along the lines
// through it with the 1D derivative matrix G: 3 n multiply-adds per component in 3D, against
// 3 n^3 for the full element basis. At each point the strain, the pointwise stress sigma = D eps
// and the flux w det J sigma J^-T follow; the transposed sums (G^T along each line) give the
// nodal forces, another 3 n per component. The result equals fem::apply_element_stiffness with
// that rule to rounding. In the verbs of element evaluation (docs/architecture.md): gradient is
// the evaluation of the gradients at a point, flux the pointwise law with the point's weight and
// Jacobian, divergence the integration.
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/core/polynomials.hpp"
#include "tremor/fem/linear_evaluation.hpp"

namespace tremor::sem {

// Whether order P integrates on its own GLL nodes (P >= 2). Order 1 keeps the 2-point
// Gauss-Legendre rule of hex8 and quad4, the same element (the 2-point GLL rule, exact for
// degree 1 only, would under-integrate it).
template <int P>
inline constexpr bool collocated = P >= 2;

// The 1D matrices of a GLL element of order P at its n = P + 1 quadrature points x_q (the GLL
// nodes, or for order 1 the Gauss points), row-major: G[q * n + m] = l_m'(x_q), the derivative of
// the Lagrange polynomial of node m, and B[q * n + m] = l_m(x_q) (the identity where collocated);
// the points and weights w_q. Computed in double on the host; `values` lists G, the points, the
// weights and B, the layout the kernels read.
template <int P>
struct Basis1d {
  static constexpr int n = P + 1, size = 2 * n * n + 2 * n;
  double G[n * n];
  double points[n];
  double w[n];
  double B[n * n];

  Basis1d() {
    double nodes[n];
    gll_points(n, nodes);
    if constexpr (collocated<P>)
      gauss_lobatto(n, points, w);
    else
      gauss_legendre(n, points, w);
    for (int q = 0; q < n; ++q) lagrange(n, nodes, points[q], B + q * n, G + q * n);
  }
  std::vector<double> values() const {
    std::vector<double> out(G, G + n * n);
    out.insert(out.end(), points, points + n);
    out.insert(out.end(), w, w + n);
    out.insert(out.end(), B, B + n * n);
    return out;
  }
};

// The sum-factorised steps on a GLL element of order P in Dim dimensions (n = P + 1 points per
// direction, n^Dim in all): the gradient of Dim components at a point from their nodal values,
// and its transpose, the nodal forces from the fluxes at the points. Arrays are component-major,
// v[c * n^Dim + p], points lexicographic with x fastest (p = i + n (j + n k), the node order).
template <int Dim, int P, class T>
struct Collocated {
  static constexpr int n = P + 1, np = Dim == 3 ? n * n * n : n * n;

  // Order 1 (Gauss points, not the nodes): d N_a / d xi_alpha at point q, the product over the
  // directions of G (along alpha) or B (the others) from the basis laid out as Basis1d::values.
  TREMOR_HOST_DEVICE static T shape_derivative(const T* G, int q, int a, int alpha) {
    const T* B = G + n * n + 2 * n;
    T product = T(1);
    for (int beta = 0; beta < Dim; ++beta) {
      const int at = index(q, beta) * n + index(a, beta);
      product *= beta == alpha ? G[at] : B[at];
    }
    return product;
  }

  // The stride between neighbours along direction alpha and p's index along it.
  TREMOR_HOST_DEVICE static constexpr int stride(int alpha) { return alpha == 0 ? 1 : alpha == 1 ? n : n * n; }
  TREMOR_HOST_DEVICE static int index(int p, int alpha) { return p / stride(alpha) % n; }

  // d[c][alpha] = d v_c / d xi_alpha at point p: Dim sums of n along the lines through p.
  TREMOR_HOST_DEVICE static void gradient(const T* G, int p, const T* v, T (&d)[Dim][Dim]) {
    if constexpr (!collocated<P>) {  // every node's shape function (2^Dim of them)
      for (int c = 0; c < Dim; ++c)
        for (int alpha = 0; alpha < Dim; ++alpha) {
          T sum = T(0);
          for (int a = 0; a < np; ++a) sum += shape_derivative(G, p, a, alpha) * v[c * np + a];
          d[c][alpha] = sum;
        }
    } else {
      for (int alpha = 0; alpha < Dim; ++alpha) {
        const int q = index(p, alpha), first = p - q * stride(alpha);
        for (int c = 0; c < Dim; ++c) {
          T sum = T(0);
          for (int m = 0; m < n; ++m) sum += G[q * n + m] * v[c * np + first + m * stride(alpha)];
          d[c][alpha] = sum;
        }
      }
    }
  }

  // The force at node a from the fluxes f[(Dim c + alpha) n^Dim + q] (what d N_a / d xi_alpha
  // meets at point q, weights included): out[c] = sum over alpha and the points q on a's line
  // along alpha of G[q][a_alpha] f.
  TREMOR_HOST_DEVICE static void divergence(const T* G, int a, const T* f, T (&out)[Dim]) {
    for (int c = 0; c < Dim; ++c) out[c] = T(0);
    if constexpr (!collocated<P>) {  // every point's flux
      for (int q = 0; q < np; ++q)
        for (int alpha = 0; alpha < Dim; ++alpha) {
          const T weight = shape_derivative(G, q, a, alpha);
          for (int c = 0; c < Dim; ++c) out[c] += weight * f[(Dim * c + alpha) * np + q];
        }
    } else {
      for (int alpha = 0; alpha < Dim; ++alpha) {
        const int i = index(a, alpha), first = a - i * stride(alpha);
        for (int c = 0; c < Dim; ++c) {
          T sum = T(0);
          for (int q = 0; q < n; ++q) sum += G[q * n + i] * f[(Dim * c + alpha) * np + first + q * stride(alpha)];
          out[c] += sum;
        }
      }
    }
  }
};

// The flux at one point: f[c][alpha] = scale * sum_beta sigma_{c beta} inv[alpha][beta], where
// sigma is the section's pointwise law (fem/laws.hpp) at eps, the symmetric part of grad u in
// Voigt form, grad[c][beta] = sum_alpha d[c][alpha] inv[alpha][beta]; inv = J^-1
// (d xi_alpha / d x_beta) and scale = w det J.
template <class T, class Law>
TREMOR_HOST_DEVICE inline void flux(const T (&d)[3][3], const T (&inv)[3][3], T scale, const Law& law, T (&f)[3][3]) {
  T g[3][3];
  for (int c = 0; c < 3; ++c)
    for (int beta = 0; beta < 3; ++beta) g[c][beta] = d[c][0] * inv[0][beta] + d[c][1] * inv[1][beta] + d[c][2] * inv[2][beta];
  const T strain[6] = {g[0][0], g[1][1], g[2][2], g[1][2] + g[2][1], g[0][2] + g[2][0], g[0][1] + g[1][0]};
  T sigma[6];
  law.stress(strain, sigma);
  const T S[3][3] = {{sigma[0], sigma[5], sigma[4]}, {sigma[5], sigma[1], sigma[3]}, {sigma[4], sigma[3], sigma[2]}};
  for (int c = 0; c < 3; ++c)
    for (int alpha = 0; alpha < 3; ++alpha)
      f[c][alpha] = scale * (S[c][0] * inv[alpha][0] + S[c][1] * inv[alpha][1] + S[c][2] * inv[alpha][2]);
}

// The same in 2D (plane strain or plane stress, whichever the law's D is): Voigt (xx, yy, xy).
template <class T, class Law>
TREMOR_HOST_DEVICE inline void flux(const T (&d)[2][2], const T (&inv)[2][2], T scale, const Law& law, T (&f)[2][2]) {
  T g[2][2];
  for (int c = 0; c < 2; ++c)
    for (int beta = 0; beta < 2; ++beta) g[c][beta] = d[c][0] * inv[0][beta] + d[c][1] * inv[1][beta];
  const T strain[3] = {g[0][0], g[1][1], g[0][1] + g[1][0]};
  T sigma[3];
  law.stress(strain, sigma);
  const T S[2][2] = {{sigma[0], sigma[2]}, {sigma[2], sigma[1]}};
  for (int c = 0; c < 2; ++c)
    for (int alpha = 0; alpha < 2; ++alpha)
      f[c][alpha] = scale * (S[c][0] * inv[alpha][0] + S[c][1] * inv[alpha][1]);
}

// The Jacobian J[c][alpha] = d x_c / d xi_alpha at (xi, eta, zeta) of the trilinear map of an
// element's 8 vertices (fem::vertex_node's order: 0-3 counter-clockwise at zeta = -1, 4-7 above),
// given as x[3 v + c] relative to vertex 0 (whose entries are not read): 7 x 9 multiply-adds
// instead of 10 stored factors per point, for elements whose nodes sit on that map.
template <class T>
TREMOR_HOST_DEVICE inline void vertex_signs(int v, T& sx, T& sy, T& sz) {
  sx = (v == 1 || v == 2 || v == 5 || v == 6) ? T(1) : T(-1);
  sy = (v == 2 || v == 3 || v == 6 || v == 7) ? T(1) : T(-1);
  sz = v >= 4 ? T(1) : T(-1);
}

template <class T>
TREMOR_HOST_DEVICE inline void trilinear_jacobian(const T* x, T xi, T eta, T zeta, T (&J)[3][3]) {
  for (auto& row : J)
    for (T& value : row) value = T(0);
  for (int v = 1; v < 8; ++v) {
    T sx, sy, sz;
    vertex_signs(v, sx, sy, sz);
    const T a = T(0.125) * (T(1) + sx * xi), b = T(1) + sy * eta, c = T(1) + sz * zeta;
    const T d_xi = T(0.125) * sx * b * c, d_eta = a * sy * c, d_zeta = a * b * sz;
    for (int k = 0; k < 3; ++k) {
      J[k][0] += x[3 * v + k] * d_xi;
      J[k][1] += x[3 * v + k] * d_eta;
      J[k][2] += x[3 * v + k] * d_zeta;
    }
  }
}

// The same for the bilinear map of a quadrilateral's 4 vertices (x[2 v + c], vertex_signs' x and
// y signs), at (xi, eta).
template <class T>
TREMOR_HOST_DEVICE inline void bilinear_jacobian(const T* x, T xi, T eta, T (&J)[2][2]) {
  for (auto& row : J)
    for (T& value : row) value = T(0);
  for (int v = 1; v < 4; ++v) {
    T sx, sy, sz;
    vertex_signs(v, sx, sy, sz);
    const T d_xi = T(0.25) * sx * (T(1) + sy * eta), d_eta = T(0.25) * (T(1) + sx * xi) * sy;
    for (int k = 0; k < 2; ++k) {
      J[k][0] += x[2 * v + k] * d_xi;
      J[k][1] += x[2 * v + k] * d_eta;
    }
  }
}

// The Jacobian of the multilinear map of an element's vertices (x relative to vertex 0).
template <class T>
TREMOR_HOST_DEVICE inline void vertex_jacobian(const T* x, const T* xi, T (&J)[3][3]) {
  trilinear_jacobian(x, xi[0], xi[1], xi[2], J);
}
template <class T>
TREMOR_HOST_DEVICE inline void vertex_jacobian(const T* x, const T* xi, T (&J)[2][2]) {
  bilinear_jacobian(x, xi[0], xi[1], J);
}

// det and inverse of the Jacobian (fem/linear_evaluation.hpp), shared with the linear elements.
using fem::invert_jacobian;

}  // namespace tremor::sem
