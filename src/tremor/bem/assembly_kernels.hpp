#pragma once
// The pointwise bodies of the H and G assembly (assembly.hpp), shared by the portable forall
// kernels and the CUDA block-per-pair kernel: each takes a lane and a lane count and integrates
// its share of the quadrature points, so one thread (lanes = 1) or a block of g x g threads
// (paper section 3.1) computes the same sums.
#include <numbers>

#include "tremor/bem/assembly.hpp"
#include "tremor/bem/fundamental.hpp"
#include "tremor/bem/integration.hpp"

namespace tremor::bem::detail {

// The sums of one (collocation point, element) pair: for each of the element's nodes b < K (1 for
// constant elements, up to 4 for linear ones, up to 9 for quadratic ones), the 3 x 3 blocks of G
// and H, entry 9 b + 3 a + c (load direction a, component c). Where one node alone is wanted
// (`only` >= 0 below, the compressed solver's columns), K = 1 holds that node's blocks: a ninth of
// a quadratic element's work and registers.
template <int K>
struct PairSums {
  Complex G[9 * K];
  Complex H[9 * K];
};

struct Quadrature {
  GaussRule regular, singular;
  double near_ratio;
  int max_depth;
};

inline Quadrature quadrature_of(const IntegrationOptions& options) {
  TREMOR_CHECK(options.near_ratio >= 0.0 && options.max_depth >= 0, "near_ratio and max_depth must not be negative");
  return {gauss_rule(options.gauss), gauss_rule(options.singular_gauss), options.near_ratio, options.max_depth};
}

// Node a's position.
TREMOR_HOST_DEVICE inline void node_position(ElementOrder order, const ElementNodes& e, int a, double* x) {
  double st[2], j[3];
  node_reference(order, e.n_vertices, a, st);
  element_map(e, st[0], st[1], x, j);
}

// out[k] += s v[k] for the 9 entries of a 3 x 3 kernel, as 18 doubles (Complex is two doubles,
// real then imaginary): a loop the host compiler packs into SIMD lanes, where a loop over the
// complex entries stayed scalar (it was a third of the pair integrals' time on a CPU).
TREMOR_HOST_DEVICE inline void add_scaled_kernel(Complex* out, double s, const Complex* v) {
  double* o = &out[0].re;
  const double* w = &v[0].re;
  TREMOR_UNROLL
  for (int i = 0; i < 18; ++i) o[i] += s * w[i];
}

// Adds N_b w |j| times u* (into G, when wanted) and t* of `part` (into H) at the point x (reference
// st) with the unnormalised normal j, for each node b of the element.
template <int K>
TREMOR_HOST_DEVICE inline void add_point(const Medium& m, ElementOrder order, const ElementNodes& e, const double* xi,
                                         const double* st, const double* x, const double* j, double w,
                                         KernelPart h_part, bool with_g, PairSums<K>& sums, int only = -1) {
  const double norm = ::sqrt(j[0] * j[0] + j[1] * j[1] + j[2] * j[2]);
  const double n[3] = {j[0] / norm, j[1] / norm, j[2] / norm};
  const double d[3] = {x[0] - xi[0], x[1] - xi[1], x[2] - xi[2]};
  const double weight = w * norm;
  double N[max_element_nodes];
  shape_values(order, e, st[0], st[1], N);
  const int first = only < 0 ? 0 : only;
  const int nodes = K == 1 ? 1 : nodes_per_element(order, e);
  Complex u[9], t[9];
  if (with_g) {
    // u* is always the full kernel; with h_part Full one call gives both.
    if (h_part == KernelPart::Full) {
      fundamental(m, d, n, KernelPart::Full, u, t);
    } else {
      fundamental(m, d, n, KernelPart::Full, u, nullptr);
      fundamental(m, d, n, h_part, nullptr, t);
    }
    for (int b = 0; b < nodes; ++b) add_scaled_kernel(sums.G + 9 * b, weight * N[first + b], u);
  } else {
    fundamental(m, d, n, h_part, nullptr, t);
  }
  for (int b = 0; b < nodes; ++b) add_scaled_kernel(sums.H + 9 * b, weight * N[first + b], t);
}

// Element e with the collocation point xi off it: adaptive g x g quadrature.
template <int K>
TREMOR_HOST_DEVICE inline void regular_pair(const Medium& m, ElementOrder order, const ElementNodes& e,
                                            const double* xi, const Quadrature& q, KernelPart h_part, bool with_g,
                                            int lane, int lanes, PairSums<K>& sums, int only = -1) {
  integrate_near(e, xi, q.regular, q.near_ratio, q.max_depth, lane, lanes,
                 [&](const double* st, const double* x, const double* j, double w) {
                   add_point(m, order, e, xi, st, x, j, w, h_part, with_g, sums, only);
                 });
}

// The collocation point's own element, at its node a: G by Duffy's triangles around the point
// (u* ~ 1/r, cancelled by their Jacobian), H's bounded part t*_dynamic - t*_static the same way
// (eq. 4). On a linear element t*_static (N_b - delta_ab) is integrated with them too: N_b -
// delta_ab vanishes at the point, leaving 1/r; what remains, PV int t*_static for b = a, is the
// free term's business.
template <int K>
TREMOR_HOST_DEVICE inline void singular_pair(const Medium& m, ElementOrder order, const ElementNodes& e, int a,
                                             const Quadrature& q, int lane, int lanes, PairSums<K>& sums,
                                             int only = -1) {
  double c[2], xi[3], j[3];
  node_reference(order, e.n_vertices, a, c);
  element_map(e, c[0], c[1], xi, j);
  const int first = only < 0 ? 0 : only;
  const int nodes = K == 1 ? 1 : nodes_per_element(order, e);
  integrate_singular(e, c, q.singular, lane, lanes, [&](const double* st, const double* x, const double* jx, double w) {
    add_point(m, order, e, xi, st, x, jx, w, KernelPart::Regular, true, sums, only);
    if (order == ElementOrder::Constant) return;  // N = 1: nothing static left but the free term's
    const double norm = ::sqrt(jx[0] * jx[0] + jx[1] * jx[1] + jx[2] * jx[2]);
    const double n[3] = {jx[0] / norm, jx[1] / norm, jx[2] / norm};
    const double d[3] = {x[0] - xi[0], x[1] - xi[1], x[2] - xi[2]};
    double N[max_element_nodes];
    shape_values(order, e, st[0], st[1], N);
    Complex t[9];
    fundamental(m, d, n, KernelPart::Static, nullptr, t);
    for (int b = 0; b < nodes; ++b) {
      const double f = w * norm * (N[first + b] - (first + b == a ? 1.0 : 0.0));
      for (int k = 0; k < 9; ++k) sums.H[9 * b + k] += f * t[k];
    }
  });
}

// c + PV int t*_static over a plane region around xi (normal n, in-plane basis e1, e2) from
// pv = PV int r / r^2 dS in that basis: c = I/2 and, with dr/dn = 0 in the plane,
// t*_static,ij = q (r_i n_j - r_j n_i) / (4 pi r^2), q = mu / (lambda + 2 mu).
TREMOR_HOST_DEVICE inline void free_term_of(const Medium& m, const double* pv, const double* e1, const double* e2,
                                            const double* n, Complex* out) {
  const double pv3[3] = {pv[0] * e1[0] + pv[1] * e2[0], pv[0] * e1[1] + pv[1] * e2[1], pv[0] * e1[2] + pv[1] * e2[2]};
  constexpr double four_pi = 4.0 * std::numbers::pi;
  const Complex q = m.mu / (m.lambda + 2.0 * m.mu);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k)
      out[3 * i + k] = (i == k ? Complex(0.5) : Complex()) + (pv3[i] * n[k] - pv3[k] * n[i]) / four_pi * q;
}

// c + PV int t*_static over the element, for a collocation point xi (reference st) inside a flat
// element: c = I/2, and in the element's plane dr/dn = 0 leaves
//   t*_static,ij = q (r_i n_j - r_j n_i) / (4 pi r^2),   q = mu / (lambda + 2 mu),
// whose principal value in polar coordinates (rho, theta) about xi is
//   PV int r_i / r^2 dS = int_0^2pi e_i(theta) ln R(theta) dtheta
// (the ln epsilon term vanishes: e(theta) integrates to zero around xi), R the distance to the
// boundary, p / cos(theta - theta_0) along an edge at distance p: smooth in theta over each edge,
// integrated by 4g Gauss points per edge. A warped quadrilateral adds warped_correction.
TREMOR_HOST_DEVICE inline void flat_free_term(const Medium& m, const ElementNodes& e, const double* st,
                                              const GaussRule& rule, Complex* out) {
  double xi[3], j[3];
  element_map(e, st[0], st[1], xi, j);
  const double norm = ::sqrt(j[0] * j[0] + j[1] * j[1] + j[2] * j[2]);
  const double n[3] = {j[0] / norm, j[1] / norm, j[2] / norm};
  // In-plane basis e1, e2 = n x e1, e1 along the first edge.
  double e1[3] = {e.x[1][0] - e.x[0][0], e.x[1][1] - e.x[0][1], e.x[1][2] - e.x[0][2]};
  const double along = e1[0] * n[0] + e1[1] * n[1] + e1[2] * n[2];
  for (int k = 0; k < 3; ++k) e1[k] -= along * n[k];
  const double l1 = ::sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
  for (int k = 0; k < 3; ++k) e1[k] /= l1;
  const double e2[3] = {n[1] * e1[2] - n[2] * e1[1], n[2] * e1[0] - n[0] * e1[2], n[0] * e1[1] - n[1] * e1[0]};
  double v[4][2], ell = 0.0;  // vertices in the plane, relative to xi; ell keeps ln(R / ell) O(1)
  for (int a = 0; a < e.n_vertices; ++a) {
    const double d[3] = {e.x[a][0] - xi[0], e.x[a][1] - xi[1], e.x[a][2] - xi[2]};
    v[a][0] = d[0] * e1[0] + d[1] * e1[1] + d[2] * e1[2];
    v[a][1] = d[0] * e2[0] + d[1] * e2[1] + d[2] * e2[2];
    const double r = ::sqrt(v[a][0] * v[a][0] + v[a][1] * v[a][1]);
    ell = r > ell ? r : ell;
  }
  constexpr double pi = std::numbers::pi;
  double pv[2] = {0, 0};
  for (int a = 0; a < e.n_vertices; ++a) {
    const double* A = v[a];
    const double* B = v[(a + 1) % e.n_vertices];
    const double ex = B[0] - A[0], ey = B[1] - A[1], length = ::sqrt(ex * ex + ey * ey);
    const double p = (A[0] * ey - A[1] * ex) / length;  // distance to the edge's line (> 0 inside)
    const double theta_0 = ::atan2(-ex, ey);            // direction of the foot of the perpendicular
    const double theta_a = ::atan2(A[1], A[0]);
    double span = ::atan2(B[1], B[0]) - theta_a;
    if (span > pi) span -= 2.0 * pi;
    if (span < -pi) span += 2.0 * pi;
    // ln R is smooth but steep where the edge is seen nearly side-on (a linear element's node lies
    // close to its edges): g = 8 points on each of 4 sub-arcs agree with a 2e5-ray polar sum to 1e-6
    // there (2 sub-arcs left 6e-6; tests/unit/bem_integration_test.cpp).
    for (int piece = 0; piece < 4; ++piece)
      for (int k = 0; k < rule.g; ++k) {
        const double theta = theta_a + span * (0.125 * (1.0 + rule.x[k]) + 0.25 * piece);
        const double w = 0.125 * rule.w[k] * span;
        const double lnR = ::log(p / (::cos(theta - theta_0) * ell));
        pv[0] += w * ::cos(theta) * lnR;
        pv[1] += w * ::sin(theta) * lnR;
      }
  }
  free_term_of(m, pv, e1, e2, n, out);
}

// A curved element's tangent-plane part: flat_free_term's law over the projection P x(s, t) of
// the element on the plane at xi (which add_warped_correction integrates against), whose edges are
// the projected curved edges. Its principal value by the divergence theorem in the plane,
//   PV int e_i / r^2 dS = -oint nu_i / |q| dl
// (e = r / |r|; grad(-1/r) = e / r^2; the small circle around xi adds oint e_i dtheta = 0), q(tau)
// the projected edge point relative to xi, nu dl = (q2', -q1') dtau its outward normal (the edges
// run counter-clockwise). 1/|q| is smooth along each edge but peaks where xi lies close to it:
// 8 pieces of g points each.
TREMOR_HOST_DEVICE inline void curved_free_term(const Medium& m, const ElementNodes& e, const double* st,
                                                const GaussRule& rule, Complex* out) {
  double xi[3], ds[3], dt[3];
  element_tangents(e, st[0], st[1], xi, ds, dt);
  double n[3] = {ds[1] * dt[2] - ds[2] * dt[1], ds[2] * dt[0] - ds[0] * dt[2], ds[0] * dt[1] - ds[1] * dt[0]};
  const double norm = ::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  for (double& c : n) c /= norm;
  double e1[3] = {ds[0], ds[1], ds[2]};
  const double along = e1[0] * n[0] + e1[1] * n[1] + e1[2] * n[2];
  for (int k = 0; k < 3; ++k) e1[k] -= along * n[k];
  const double l1 = ::sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
  for (double& c : e1) c /= l1;
  const double e2[3] = {n[1] * e1[2] - n[2] * e1[1], n[2] * e1[0] - n[0] * e1[2], n[0] * e1[1] - n[1] * e1[0]};
  double pv[2] = {0, 0};
  for (int a = 0; a < e.n_vertices; ++a) {
    double from[2], to[2];
    geometry_node_reference(e.n_vertices, a, from);
    geometry_node_reference(e.n_vertices, (a + 1) % e.n_vertices, to);
    const double dp[2] = {to[0] - from[0], to[1] - from[1]};
    constexpr int pieces = 8;
    for (int piece = 0; piece < pieces; ++piece)
      for (int k = 0; k < rule.g; ++k) {
        const double tau = (piece + 0.5 * (1.0 + rule.x[k])) / pieces, w = 0.5 * rule.w[k] / pieces;
        double x[3], xs[3], xt[3];
        element_tangents(e, from[0] + tau * dp[0], from[1] + tau * dp[1], x, xs, xt);
        double d[3], dx[3];
        for (int c = 0; c < 3; ++c) {
          d[c] = x[c] - xi[c];
          dx[c] = xs[c] * dp[0] + xt[c] * dp[1];
        }
        const double q1 = d[0] * e1[0] + d[1] * e1[1] + d[2] * e1[2], q2 = d[0] * e2[0] + d[1] * e2[1] + d[2] * e2[2];
        const double dq1 = dx[0] * e1[0] + dx[1] * e1[1] + dx[2] * e1[2];
        const double dq2 = dx[0] * e2[0] + dx[1] * e2[1] + dx[2] * e2[2];
        const double inverse = 1.0 / ::sqrt(q1 * q1 + q2 * q2);
        pv[0] -= w * inverse * dq2;
        pv[1] += w * inverse * dq1;
      }
  }
  free_term_of(m, pv, e1, e2, n, out);
}

// What a warped quadrilateral adds to flat_free_term, which integrates its projection on the
// tangent plane at xi (normal n): int t*_static(xi, x) dS over the element minus the same over the
// projection P x(s, t), both in the element's reference coordinates. Near xi the two surfaces
// agree to first order (P x - x and the normals differ by O(r^2) and O(r)), so the difference is
// O(1/r) and Duffy's triangles around xi integrate it. The projection's area element is
// (j . n) ds dt: (P a) x (P b) = ((a x b) . n) n. c stays I/2 (the surface is smooth at xi).
TREMOR_HOST_DEVICE inline void add_warped_correction(const Medium& m, const ElementNodes& e, const double* st,
                                                     const GaussRule& rule, Complex* out) {
  double xi[3], j0[3];
  element_map(e, st[0], st[1], xi, j0);
  const double norm0 = ::sqrt(j0[0] * j0[0] + j0[1] * j0[1] + j0[2] * j0[2]);
  const double n[3] = {j0[0] / norm0, j0[1] / norm0, j0[2] / norm0};
  integrate_singular(e, st, rule, 0, 1, [&](const double*, const double* x, const double* j, double w) {
    const double norm = ::sqrt(j[0] * j[0] + j[1] * j[1] + j[2] * j[2]);
    const double nx[3] = {j[0] / norm, j[1] / norm, j[2] / norm};
    const double d[3] = {x[0] - xi[0], x[1] - xi[1], x[2] - xi[2]};
    const double h = d[0] * n[0] + d[1] * n[1] + d[2] * n[2];
    const double dp[3] = {d[0] - h * n[0], d[1] - h * n[1], d[2] - h * n[2]};
    const double jn = j[0] * n[0] + j[1] * n[1] + j[2] * n[2];
    Complex curved[9], flat[9];
    fundamental(m, d, nx, KernelPart::Static, nullptr, curved);
    fundamental(m, dp, n, KernelPart::Static, nullptr, flat);
    for (int k = 0; k < 9; ++k) out[k] += (w * norm) * curved[k] - (w * jn) * flat[k];
  });
}

}  // namespace tremor::bem::detail
