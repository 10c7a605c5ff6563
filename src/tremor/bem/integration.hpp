#pragma once
// Integration over boundary elements (triangles and quadrilaterals, straight-sided or curved of
// the second order) for the H and G
// matrices: g x g Gauss quadrature (paper eq. 3) over the element or over the pieces of an
// adaptive subdivision near the collocation point, and Duffy's collapsed triangles around a
// collocation point on the element itself. Host and device code; the quadrature of one piece is
// split over `lanes` so a block of g x g threads can share it (paper section 3.1).
//
// Reference coordinates (s, t): a quadrilateral is [-1, 1]^2 with vertices (-1,-1), (1,-1), (1,1),
// (-1,1); a triangle is s, t >= 0, s + t <= 1 with vertices (0,0), (1,0), (0,1). Both orders are
// counter-clockwise seen from the normal, dx/ds x dx/dt, which points out of the solid.
#include <cstdint>

#include "tremor/core/config.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/polynomials.hpp"

namespace tremor::bem {

constexpr int max_gauss = 16;

// The g-point Gauss-Legendre rule on [-1, 1], g <= max_gauss; computed on the host, passed by value.
struct GaussRule {
  int g = 8;
  double x[max_gauss] = {};
  double w[max_gauss] = {};
};

inline GaussRule gauss_rule(int g) {
  TREMOR_CHECK(g >= 1 && g <= max_gauss, "boundary-element quadrature of ", g, " Gauss points per direction: 1 to ",
               max_gauss, " are supported");
  GaussRule rule;
  rule.g = g;
  gauss_legendre(g, rule.x, rule.w);
  return rule;
}

// One element's geometry nodes, gathered: the vertices (a triangle's repeated as a 4th), then for a
// second-order element its mid-edge nodes (edges 01, 12, 20 of a triangle; 01, 12, 23, 30 of a
// quadrilateral) and a 9-node quadrilateral's centre. n_nodes is 3 or 4 for straight-sided
// elements (or 0 where only the vertices were set), 6, 8 or 9 for curved ones.
constexpr int max_geometry_nodes = 9;

struct ElementNodes {
  double x[max_geometry_nodes][3];
  int n_vertices;
  int n_nodes;
  TREMOR_HOST_DEVICE bool curved() const { return n_nodes > n_vertices; }
};

// A boundary mesh's second-order nodes: 5 per element (mid-edges, then the centre), -1 where
// absent; nullptr for a mesh of straight-sided elements.
TREMOR_HOST_DEVICE inline ElementNodes gather_element(const double* coordinates, const Index* connectivity,
                                                      const Index* mid_nodes, Index e) {
  ElementNodes out;
  const Index* v = connectivity + 4 * static_cast<Size>(e);
  out.n_vertices = v[3] < 0 ? 3 : 4;
  out.n_nodes = out.n_vertices;
  for (int a = 0; a < out.n_vertices; ++a)
    for (int c = 0; c < 3; ++c) out.x[a][c] = coordinates[3 * static_cast<Size>(v[a]) + c];
  if (out.n_vertices == 3)
    for (int c = 0; c < 3; ++c) out.x[3][c] = out.x[2][c];
  if (mid_nodes) {
    const Index* m = mid_nodes + 5 * static_cast<Size>(e);
    const int mids = out.n_vertices + (m[4] >= 0 ? 1 : 0);
    for (int k = 0; k < mids; ++k)
      for (int c = 0; c < 3; ++c) out.x[out.n_vertices + k][c] = coordinates[3 * static_cast<Size>(m[k]) + c];
    out.n_nodes = out.n_vertices + mids;
  }
  return out;
}

// The element's geometry shape functions at (s, t) and their derivatives, for the second-order
// types (n_nodes 6: the quadratic triangle; 8: the serendipity quadrilateral; 9: the biquadratic
// Lagrange one), nodes ordered as ElementNodes holds them.
TREMOR_HOST_DEVICE inline void quadratic_shape(int n_vertices, int n_nodes, double s, double t, double* N, double* Ns,
                                               double* Nt) {
  if (n_vertices == 3) {
    const double l = 1.0 - s - t;  // the barycentric coordinate of vertex 0
    N[0] = l * (2 * l - 1), Ns[0] = 1 - 4 * l, Nt[0] = 1 - 4 * l;
    N[1] = s * (2 * s - 1), Ns[1] = 4 * s - 1, Nt[1] = 0;
    N[2] = t * (2 * t - 1), Ns[2] = 0, Nt[2] = 4 * t - 1;
    N[3] = 4 * l * s, Ns[3] = 4 * (l - s), Nt[3] = -4 * s;
    N[4] = 4 * s * t, Ns[4] = 4 * t, Nt[4] = 4 * s;
    N[5] = 4 * t * l, Ns[5] = -4 * t, Nt[5] = 4 * (l - t);
    return;
  }
  if (n_nodes == 9) {
    // Products of the 1D quadratic Lagrange polynomials through -1, 0, 1 (index 0, 1, 2), each
    // found once: node k at (i[k], j[k]) (vertices, mid-edges 01, 12, 23, 30, centre).
    const double ls[3] = {0.5 * s * (s - 1), 1 - s * s, 0.5 * s * (s + 1)};
    const double lt[3] = {0.5 * t * (t - 1), 1 - t * t, 0.5 * t * (t + 1)};
    const double dls[3] = {s - 0.5, -2 * s, s + 0.5}, dlt[3] = {t - 0.5, -2 * t, t + 0.5};
    constexpr int i[9] = {0, 2, 2, 0, 1, 2, 1, 0, 1}, j[9] = {0, 0, 2, 2, 0, 1, 2, 1, 1};
    TREMOR_UNROLL
    for (int k = 0; k < 9; ++k) {
      N[k] = ls[i[k]] * lt[j[k]];
      Ns[k] = dls[i[k]] * lt[j[k]];
      Nt[k] = ls[i[k]] * dlt[j[k]];
    }
    return;
  }
  // Reference positions: vertices, mid-edges 01, 12, 23, 30.
  const double sa[8] = {-1, 1, 1, -1, 0, 1, 0, -1}, ta[8] = {-1, -1, 1, 1, -1, 0, 1, 0};
  for (int k = 0; k < 4; ++k) {
    const double ps = 1 + s * sa[k], pt = 1 + t * ta[k];
    N[k] = 0.25 * ps * pt * (s * sa[k] + t * ta[k] - 1);
    Ns[k] = 0.25 * sa[k] * pt * (2 * s * sa[k] + t * ta[k]);
    Nt[k] = 0.25 * ta[k] * ps * (s * sa[k] + 2 * t * ta[k]);
  }
  for (int k = 4; k < 8; ++k) {
    if (sa[k] == 0) {
      N[k] = 0.5 * (1 - s * s) * (1 + t * ta[k]);
      Ns[k] = -s * (1 + t * ta[k]);
      Nt[k] = 0.5 * ta[k] * (1 - s * s);
    } else {
      N[k] = 0.5 * (1 + s * sa[k]) * (1 - t * t);
      Ns[k] = 0.5 * sa[k] * (1 - t * t);
      Nt[k] = -t * (1 + s * sa[k]);
    }
  }
}

// Reference position of geometry node k (vertices, mid-edges, centre).
TREMOR_HOST_DEVICE inline void geometry_node_reference(int n_vertices, int k, double* st) {
  const double tri[6][2] = {{0, 0}, {1, 0}, {0, 1}, {0.5, 0}, {0.5, 0.5}, {0, 0.5}};
  const double quad[9][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}, {0, -1}, {1, 0}, {0, 1}, {-1, 0}, {0, 0}};
  const double* p = n_vertices == 3 ? tri[k] : quad[k];
  st[0] = p[0];
  st[1] = p[1];
}

// Position x and the tangents dx/ds, dx/dt at (s, t).
TREMOR_HOST_DEVICE inline void element_tangents(const ElementNodes& e, double s, double t, double* x, double* ds,
                                                double* dt) {
  if (e.curved()) {
    double N[max_geometry_nodes], Ns[max_geometry_nodes], Nt[max_geometry_nodes];
    quadratic_shape(e.n_vertices, e.n_nodes, s, t, N, Ns, Nt);
    for (int c = 0; c < 3; ++c) {
      x[c] = ds[c] = dt[c] = 0.0;
      for (int k = 0; k < e.n_nodes; ++k) {
        x[c] += N[k] * e.x[k][c];
        ds[c] += Ns[k] * e.x[k][c];
        dt[c] += Nt[k] * e.x[k][c];
      }
    }
  } else if (e.n_vertices == 3) {
    for (int c = 0; c < 3; ++c) {
      ds[c] = e.x[1][c] - e.x[0][c];
      dt[c] = e.x[2][c] - e.x[0][c];
      x[c] = e.x[0][c] + s * ds[c] + t * dt[c];
    }
  } else {
    const double n[4] = {0.25 * (1 - s) * (1 - t), 0.25 * (1 + s) * (1 - t), 0.25 * (1 + s) * (1 + t),
                         0.25 * (1 - s) * (1 + t)};
    for (int c = 0; c < 3; ++c) {
      x[c] = n[0] * e.x[0][c] + n[1] * e.x[1][c] + n[2] * e.x[2][c] + n[3] * e.x[3][c];
      ds[c] = 0.25 * ((1 - t) * (e.x[1][c] - e.x[0][c]) + (1 + t) * (e.x[2][c] - e.x[3][c]));
      dt[c] = 0.25 * ((1 - s) * (e.x[3][c] - e.x[0][c]) + (1 + s) * (e.x[2][c] - e.x[1][c]));
    }
  }
}

// Position x and the unnormalised normal j = dx/ds x dx/dt (|j| = dS / (ds dt)) at (s, t).
TREMOR_HOST_DEVICE inline void element_map(const ElementNodes& e, double s, double t, double* x, double* j) {
  double ds[3], dt[3];
  element_tangents(e, s, t, x, ds, dt);
  j[0] = ds[1] * dt[2] - ds[2] * dt[1];
  j[1] = ds[2] * dt[0] - ds[0] * dt[2];
  j[2] = ds[0] * dt[1] - ds[1] * dt[0];
}

// The reference centre: the collocation point of a constant element.
TREMOR_HOST_DEVICE inline void reference_centre(int n_vertices, double* st) {
  st[0] = n_vertices == 3 ? 1.0 / 3.0 : 0.0;
  st[1] = st[0];
}

// The element types: constant elements (paper section 2), one node at the reference centre;
// discontinuous linear elements, one node per vertex; and discontinuous quadratic elements, one
// node per geometry node of a second-order element (6, 8 or 9). The nodes are pulled from their
// geometry node's reference position towards the centre: a linear element's to the 3-point Gauss
// points of a triangle (barycentric 2/3, 1/6, 1/6) and the 2 x 2 Gauss points of a quadrilateral;
// a quadratic quadrilateral's to the 3 x 3 Gauss points (+-sqrt(3/5), 0), a quadratic triangle's by
// 0.7 (every node a tenth of the triangle's height from its nearest edge). The field interpolates
// through the element's own nodes with the shape functions of its geometry type in the pulled
// coordinates: every collocation point lies inside a smooth element, where c = I/2, and tractions
// may jump between elements at edges and corners without an extra unknown.
enum class ElementOrder : std::uint8_t { Constant, Linear, Quadratic };

constexpr int max_element_nodes = max_geometry_nodes;

// The field's nodes on an element of n_vertices vertices and n_geometry geometry nodes.
TREMOR_HOST_DEVICE inline int nodes_per_element(ElementOrder order, int n_vertices, int n_geometry) {
  return order == ElementOrder::Constant ? 1 : order == ElementOrder::Linear ? n_vertices : n_geometry;
}

TREMOR_HOST_DEVICE inline int nodes_per_element(ElementOrder order, const ElementNodes& e) {
  return nodes_per_element(order, e.n_vertices, e.n_nodes);
}

// How far from the centre towards its geometry node a node lies.
TREMOR_HOST_DEVICE inline double node_pull(ElementOrder order, int n_vertices) {
  if (order == ElementOrder::Quadratic) return n_vertices == 3 ? 0.7 : 0.77459666924148337704;
  return n_vertices == 3 ? 0.5 : 0.57735026918962576451;
}

// Reference coordinates of node a.
TREMOR_HOST_DEVICE inline void node_reference(ElementOrder order, int n_vertices, int a, double* st) {
  reference_centre(n_vertices, st);
  if (order == ElementOrder::Constant) return;
  double v[2];
  geometry_node_reference(n_vertices, a, v);
  const double pull = node_pull(order, n_vertices);
  st[0] += pull * (v[0] - st[0]);
  st[1] += pull * (v[1] - st[1]);
}

// The shape functions at (s, t): 1 for a constant element; otherwise the (bi)linear or quadratic
// interpolant through the element's nodes, N_a(node b) = delta_ab. n_geometry (6, 8, 9) picks the
// quadratic type.
TREMOR_HOST_DEVICE inline void shape_values(ElementOrder order, int n_vertices, int n_geometry, double s, double t,
                                            double* N) {
  if (order == ElementOrder::Constant) {
    N[0] = 1.0;
    return;
  }
  const double pull = node_pull(order, n_vertices);
  if (order == ElementOrder::Quadratic) {
    double c[2], Ns[max_geometry_nodes], Nt[max_geometry_nodes];
    reference_centre(n_vertices, c);
    quadratic_shape(n_vertices, n_geometry, c[0] + (s - c[0]) / pull, c[1] + (t - c[1]) / pull, N, Ns, Nt);
    return;
  }
  if (n_vertices == 3) {
    // Barycentric L, and node a at L = (1 - pull)/3 + pull delta_a.
    const double L[3] = {1.0 - s - t, s, t};
    for (int a = 0; a < 3; ++a) N[a] = (L[a] - (1.0 - pull) / 3.0) / pull;
  } else {
    const double sa[4] = {-1, 1, 1, -1}, ta[4] = {-1, -1, 1, 1};
    for (int a = 0; a < 4; ++a) N[a] = 0.25 * (1.0 + s * sa[a] / pull) * (1.0 + t * ta[a] / pull);
  }
}

TREMOR_HOST_DEVICE inline void shape_values(ElementOrder order, const ElementNodes& e, double s, double t, double* N) {
  shape_values(order, e.n_vertices, e.n_nodes, s, t, N);
}

// A piece of the reference domain: (s, t) = o + u a + v b, over the unit square (u, v in [0, 1])
// or the unit triangle (u, v >= 0, u + v <= 1; integrated by collapsing it at o).
struct Piece {
  double o[2], a[2], b[2];
  bool triangle;
};

TREMOR_HOST_DEVICE inline Piece whole_element(int n_vertices) {
  if (n_vertices == 3) return {{0, 0}, {1, 0}, {0, 1}, true};
  return {{-1, -1}, {2, 0}, {0, 2}, false};
}

// The four children of a piece: squares halve each side; triangles split at the edge midpoints.
TREMOR_HOST_DEVICE inline void split(const Piece& p, Piece* children) {
  const double ha[2] = {0.5 * p.a[0], 0.5 * p.a[1]}, hb[2] = {0.5 * p.b[0], 0.5 * p.b[1]};
  for (int k = 0; k < 4; ++k) {
    Piece& c = children[k];
    c.triangle = p.triangle;
    c.a[0] = ha[0];
    c.a[1] = ha[1];
    c.b[0] = hb[0];
    c.b[1] = hb[1];
    const double fa = (k == 1 || k == 3) ? 1.0 : 0.0, fb = (k == 2 || k == 3) ? 1.0 : 0.0;
    c.o[0] = p.o[0] + fa * ha[0] + fb * hb[0];
    c.o[1] = p.o[1] + fa * ha[1] + fb * hb[1];
  }
  if (p.triangle) {  // the middle triangle, corners at the three midpoints, reversed
    Piece& m = children[3];
    m.o[0] = p.o[0] + ha[0] + hb[0];
    m.o[1] = p.o[1] + ha[1] + hb[1];
    m.a[0] = -ha[0];
    m.a[1] = -ha[1];
    m.b[0] = -hb[0];
    m.b[1] = -hb[1];
  }
}

// Physical centroid and diameter (largest corner distance) of a piece.
TREMOR_HOST_DEVICE inline void piece_extent(const ElementNodes& e, const Piece& p, double* centre, double& diameter) {
  const int corners = p.triangle ? 3 : 4;
  double x[4][3], j[3];
  const double cu[4] = {0, 1, 0, 1}, cv[4] = {0, 0, 1, 1};
  for (int k = 0; k < corners; ++k)
    element_map(e, p.o[0] + cu[k] * p.a[0] + cv[k] * p.b[0], p.o[1] + cu[k] * p.a[1] + cv[k] * p.b[1], x[k], j);
  const double mid = p.triangle ? 1.0 / 3.0 : 0.5;
  element_map(e, p.o[0] + mid * (p.a[0] + p.b[0]), p.o[1] + mid * (p.a[1] + p.b[1]), centre, j);
  diameter = 0.0;
  for (int k = 0; k < corners; ++k)
    for (int l = k + 1; l < corners; ++l) {
      const double d0 = x[k][0] - x[l][0], d1 = x[k][1] - x[l][1], d2 = x[k][2] - x[l][2];
      const double d = d0 * d0 + d1 * d1 + d2 * d2;
      diameter = d > diameter ? d : diameter;
    }
  diameter = ::sqrt(diameter);
}

// Calls f(st, x, j, w) for the quadrature points k = lane, lane + lanes, ... < g^2 of the piece:
// the reference point st, the point x, the unnormalised normal j at it and the weight w such
// that sum f(...) w |j| integrates over the piece. Triangles collapse at o: (s, t) = o + u (a + v (b - a)), whose
// Jacobian u |a x b| cancels a 1/r singularity at o (Duffy 1982).
template <class F>
TREMOR_HOST_DEVICE void integrate_piece(const ElementNodes& e, const Piece& p, const GaussRule& rule, int lane, int lanes,
                                        F&& f) {
  const int g = rule.g;
  const double area = ::fabs(p.a[0] * p.b[1] - p.a[1] * p.b[0]);
  for (int k = lane; k < g * g; k += lanes) {
    const int iu = k / g, iv = k % g;
    const double u = 0.5 * (1.0 + rule.x[iu]), v = 0.5 * (1.0 + rule.x[iv]);
    double s, t, w = 0.25 * rule.w[iu] * rule.w[iv] * area;
    if (p.triangle) {
      s = p.o[0] + u * (p.a[0] + v * (p.b[0] - p.a[0]));
      t = p.o[1] + u * (p.a[1] + v * (p.b[1] - p.a[1]));
      w *= u;
    } else {
      s = p.o[0] + u * p.a[0] + v * p.b[0];
      t = p.o[1] + u * p.a[1] + v * p.b[1];
    }
    double x[3], j[3];
    element_map(e, s, t, x, j);
    const double st[2] = {s, t};
    f(st, x, j, w);
  }
}

// Adaptive subdivision for a collocation point xi off the element: a piece whose centroid is
// closer to xi than near_ratio times its diameter is split in four, up to max_depth levels; the
// others are integrated by g x g Gauss. Every lane walks the same pieces in the same order.
constexpr int max_subdivision = 8;

template <class F>
TREMOR_HOST_DEVICE void integrate_near(const ElementNodes& e, const double* xi, const GaussRule& rule,
                                       double near_ratio, int max_depth, int lane, int lanes, F&& f) {
  Piece stack[3 * max_subdivision + 1];
  int depth[3 * max_subdivision + 1];
  int top = 0;
  stack[0] = whole_element(e.n_vertices);
  depth[0] = 0;
  top = 1;
  while (top > 0) {
    --top;
    const Piece p = stack[top];
    const int level = depth[top];
    double centre[3], diameter;
    piece_extent(e, p, centre, diameter);
    const double d0 = centre[0] - xi[0], d1 = centre[1] - xi[1], d2 = centre[2] - xi[2];
    const double distance = ::sqrt(d0 * d0 + d1 * d1 + d2 * d2);
    if (level < max_depth && level < max_subdivision && distance < near_ratio * diameter) {
      Piece children[4];
      split(p, children);
      for (int k = 3; k >= 0; --k) {
        stack[top] = children[k];
        depth[top] = level + 1;
        ++top;
      }
    } else {
      integrate_piece(e, p, rule, lane, lanes, f);
    }
  }
}

// Duffy's collapsed triangles around the reference point c inside the element (the collocation
// point on its own element): per edge, triangles collapsed at c whose angles at c are at most
// max_singular_angle, the edge cut where equal angles meet it. A node close to an edge (a
// quadratic element's, 0.1 of the width away) sees that edge under up to 155 degrees: one
// triangle there leaves Gauss the steep ray length p / cos(theta - theta_0) to integrate, and cost
// the quadratic cavity a fivefold error in its mean displacement (tests/verification).
constexpr double max_singular_angle = 1.0471975511965977;  // pi / 3
constexpr int max_singular_pieces = 4;                       // per edge: angles below 4 pi / 3

template <class F>
TREMOR_HOST_DEVICE void integrate_singular(const ElementNodes& e, const double* c, const GaussRule& rule, int lane,
                                           int lanes, F&& f) {
  const double tri[3][2] = {{0, 0}, {1, 0}, {0, 1}};
  const double quad[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  const int n = e.n_vertices;
  for (int k = 0; k < n; ++k) {
    const double* v0 = n == 3 ? tri[k] : quad[k];
    const double* v1 = n == 3 ? tri[(k + 1) % 3] : quad[(k + 1) % 4];
    const double a[2] = {v0[0] - c[0], v0[1] - c[1]}, edge[2] = {v1[0] - v0[0], v1[1] - v0[1]};
    const double b[2] = {v1[0] - c[0], v1[1] - c[1]};
    const double angle = ::atan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1]);
    int pieces = static_cast<int>(::ceil(angle / max_singular_angle - 1e-9));
    pieces = pieces < 1 ? 1 : pieces > max_singular_pieces ? max_singular_pieces : pieces;
    const double start = ::atan2(a[1], a[0]);
    double from[2] = {a[0], a[1]};
    for (int piece = 0; piece < pieces; ++piece) {
      double to[2] = {b[0], b[1]};
      if (piece + 1 < pieces) {
        // Where the ray at the next equal angle meets the edge: a + tau edge parallel to d.
        const double theta = start + angle * (piece + 1) / pieces, d[2] = {::cos(theta), ::sin(theta)};
        const double tau = -(d[0] * a[1] - d[1] * a[0]) / (d[0] * edge[1] - d[1] * edge[0]);
        to[0] = a[0] + tau * edge[0];
        to[1] = a[1] + tau * edge[1];
      }
      const Piece p{{c[0], c[1]}, {from[0], from[1]}, {to[0], to[1]}, true};
      integrate_piece(e, p, rule, lane, lanes, f);
      from[0] = to[0];
      from[1] = to[1];
    }
  }
}

}  // namespace tremor::bem
