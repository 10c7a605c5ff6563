#pragma once
// What the pre-flight needs of every element, in one pass that runs on any Exec (survey_elements,
// sparse/element_survey.hpp): its stable-step eigenvalue lambda_max(M_e^-1 K_e) (time_step.hpp), its
// longest vertex distance (the wavelength check) and its worst det J relative to its size (the
// geometry check of geometry.hpp). TREMOR_HOST_DEVICE with fixed-size arrays for the elements whose
// dense K_e fits a thread (fits_survey<E>: 2D up to quad9, tet4, tet10, hex8); larger ones are
// measured on the host by the functions of time_step.hpp and geometry.hpp.
#include <cmath>
#include <cstdint>

#include "tremor/core/config.hpp"
#include "tremor/fem/element_matrices.hpp"

namespace tremor::fem {

// Characteristic lengths of one element: the smallest and largest distance between two of its
// vertices (corner nodes). For `tremor info` and mesh-resolution checks.
struct ElementSize {
  double min_length = 0.0;
  double max_length = 0.0;
};

template <class E>
constexpr int survey_dofs = E::n_nodes * E::dim;

// K_e of at most 1024 doubles (8 KiB) in the thread: the limit of the assembly's local matrices.
template <class E>
constexpr bool fits_survey = survey_dofs<E> * survey_dofs<E> <= 1024;

// Power iteration for the largest eigenvalue of a symmetric positive semi-definite N x N operator
// `apply` from a fixed pseudo-random start (xorshift, so no symmetric start is orthogonal to the
// top mode), until the residual is below 1e-8 of the Rayleigh quotient or 3000 iterations. Returns
// a negative value when the operator produced a non-finite number.
template <int N, class Apply>
TREMOR_HOST_DEVICE double largest_eigenvalue(Apply&& apply) {
  double v[N], w[N];
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < N; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    v[i] = static_cast<double>(state >> 11) * 0x1.0p-53 - 0.5;
  }
  double rho = 0.0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    double vv = 0.0;
    for (int i = 0; i < N; ++i) vv += v[i] * v[i];
    const double scale = 1.0 / std::sqrt(vv);
    for (int i = 0; i < N; ++i) v[i] *= scale;
    apply(v, w);
    double vw = 0.0, ww = 0.0;
    for (int i = 0; i < N; ++i) {
      vw += v[i] * w[i];
      ww += w[i] * w[i];
    }
    if (!std::isfinite(ww)) return -1.0;
    rho = vw;
    // ||w - rho v||^2 = ww - rho^2 for unit v.
    const double residual2 = ww - rho * rho;
    for (int i = 0; i < N; ++i) v[i] = w[i];
    if (rho > 0.0 && residual2 <= 1e-16 * rho * rho) break;
    if (ww == 0.0) break;
  }
  return rho;
}

// lambda_max(M_e^-1 K_e) with dense K_e, by power iteration on M^-1/2 K M^-1/2; -1 for an element
// with a non-positive det J at a quadrature point.
template <class E>
  requires fits_survey<E>
TREMOR_HOST_DEVICE double max_eigenvalue_dense(const double* x, const double* D, double density, double thickness) {
  constexpr int n_dof = survey_dofs<E>;
  double m[E::n_nodes];
  lumped_mass<E>(x, density * thickness, m);
  double inv_sqrt[n_dof];
  for (int i = 0; i < n_dof; ++i) inv_sqrt[i] = 1.0 / std::sqrt(m[i / E::dim]);
  double K[n_dof * n_dof];
  if (!(element_stiffness<E>(x, D, thickness, stiffness_rule<E>(), K) > 0.0)) return -1.0;
  for (int r = 0; r < n_dof; ++r)
    for (int c = 0; c < n_dof; ++c) K[r * n_dof + c] *= inv_sqrt[r] * inv_sqrt[c];
  return largest_eigenvalue<n_dof>([&](const double* v, double* w) {
    for (int r = 0; r < n_dof; ++r) {
      double sum = 0.0;
      const double* row = K + r * n_dof;
      for (int c = 0; c < n_dof; ++c) sum += row[c] * v[c];
      w[r] = sum;
    }
  });
}

// Volume of the reference element: the unit simplex or [-1, 1]^d.
template <class E>
constexpr double reference_volume() {
  if constexpr (E::simplex) return E::dim == 2 ? 0.5 : 1.0 / 6.0;
  return E::dim == 2 ? 4.0 : 8.0;
}

// The shortest and longest distance between two of the element's vertices (corner nodes).
template <class E>
TREMOR_HOST_DEVICE ElementSize vertex_distances(const double* x) {
  ElementSize size{1e300, 0.0};
  for (int v = 0; v < E::n_vertices; ++v)
    for (int w = v + 1; w < E::n_vertices; ++w) {
      double d2 = 0.0;
      for (int c = 0; c < E::dim; ++c) {
        const double d = x[vertex_node<E>(v) * E::dim + c] - x[vertex_node<E>(w) * E::dim + c];
        d2 += d * d;
      }
      const double d = std::sqrt(d2);
      size.min_length = d < size.min_length ? d : size.min_length;
      size.max_length = d > size.max_length ? d : size.max_length;
    }
  return size;
}

// worst_det below by evaluating the Jacobian in full at every point: n_nodes multiply-adds per
// entry per point.
template <class E>
TREMOR_HOST_DEVICE double worst_det_dense(const double* x, int* where = nullptr) {
  const StiffnessRule<E> rule = stiffness_rule<E>();
  double worst = 1e300;
  for (int p = 0; p < rule.n_points + E::n_nodes; ++p) {
    double xi[E::dim];
    if (p < rule.n_points) {
      for (int j = 0; j < E::dim; ++j) xi[j] = rule.point(p)[j];
    } else {
      E::node(p - rule.n_points, xi);
    }
    const double det = jacobian_determinant<E>(x, xi);
    if (det < worst || std::isnan(det)) {
      worst = det;
      if (where) *where = p;
    }
  }
  return worst;
}

// GLL elements from order 2 integrate their stiffness on their nodes (stiffness_rule), so the
// rule's points are the nodes, in the same order. At a node every Lagrange polynomial of another
// node along a direction is exactly 0, so of the dense sum J_ij = sum_a x_ai dN_a/dxi_j only the
// nodes on the point's line along j add anything but zeros: summing those, in the same order and
// with the same factors, gives the dense path's bits with (P + 1) rather than (P + 1)^Dim terms
// (the pre-flight's survey of a plate of 4M elements at P = 4: minutes on the host before). The
// nodes, the same points as the rule's, are not visited twice. Finite coordinates only (a NaN
// coordinate makes NaN only the dets on its lines; the geometry check rejects it before).
template <class E>
TREMOR_HOST_DEVICE double worst_det_on_gll_nodes(const double* x, int* where) {
  constexpr int n = E::n_1d, Dim = E::dim;
  // value[i][m] = l_m(t_i), derivative[i][m] = l_m'(t_i): what E::gradients computes at a node.
  double t[n], value[n][n], derivative[n][n];
  gll_points(n, t);
  for (int i = 0; i < n; ++i) lagrange(n, t, t[i], value[i], derivative[i]);
  constexpr int stride[3] = {1, n, n * n};
  double worst = 1e300;
  for (int q = 0; q < E::n_nodes; ++q) {
    int index[Dim];
    for (int d = 0, rest = q; d < Dim; ++d, rest /= n) index[d] = rest % n;
    double J[Dim * Dim];
    for (int j = 0; j < Dim; ++j) {
      const int first = q - index[j] * stride[j];  // the line's node with index 0 along j
      for (int i = 0; i < Dim; ++i) J[i * Dim + j] = 0.0;
      for (int m = 0; m < n; ++m) {
        double dN = 1.0;  // E::gradients' product, factor by factor
        for (int d = 0; d < Dim; ++d) dN *= d == j ? derivative[index[j]][m] : value[index[d]][index[d]];
        const int a = first + m * stride[j];
        for (int i = 0; i < Dim; ++i) J[i * Dim + j] += x[a * Dim + i] * dN;
      }
    }
    const double det = determinant<Dim>(J);
    if (det < worst || std::isnan(det)) {
      worst = det;
      if (where) *where = q;
    }
  }
  return worst;
}

// The smallest det J over the default stiffness quadrature points, then the nodes; `where` gets
// the point's index (quadrature points first, then nodes: n_points + node). A NaN det J wins.
template <class E>
TREMOR_HOST_DEVICE double worst_det(const double* x, int* where = nullptr) {
  if constexpr ((E::type == ElementType::HexGLL || E::type == ElementType::QuadGLL) && E::order >= 2)
    return worst_det_on_gll_nodes<E>(x, where);
  else
    return worst_det_dense<E>(x, where);
}

// det J relative to the element's size: worst / (longest^dim / reference volume). Below
// geometry.hpp's degenerate_tolerance the element is inverted or degenerate (check_geometry then
// names it and says where). NaN coordinates give NaN.
template <class E>
TREMOR_HOST_DEVICE double relative_det(double worst, double longest) {
  double scale = 1.0;
  for (int d = 0; d < E::dim; ++d) scale *= longest;
  scale /= reference_volume<E>();
  return scale > 0.0 ? worst / scale : 0.0;
}

}  // namespace tremor::fem
