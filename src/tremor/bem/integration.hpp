#pragma once
// Integration over boundary elements (linear triangles, bilinear quadrilaterals) for the H and G
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

// One element's vertices, gathered.
struct ElementNodes {
  double x[4][3];
  int n_vertices;
};

TREMOR_HOST_DEVICE inline ElementNodes gather_element(const double* coordinates, const Index* connectivity, Index e) {
  ElementNodes out;
  const Index* v = connectivity + 4 * static_cast<Size>(e);
  out.n_vertices = v[3] < 0 ? 3 : 4;
  for (int a = 0; a < out.n_vertices; ++a)
    for (int c = 0; c < 3; ++c) out.x[a][c] = coordinates[3 * static_cast<Size>(v[a]) + c];
  if (out.n_vertices == 3)
    for (int c = 0; c < 3; ++c) out.x[3][c] = out.x[2][c];
  return out;
}

// Position x and the unnormalised normal j = dx/ds x dx/dt (|j| = dS / (ds dt)) at (s, t).
TREMOR_HOST_DEVICE inline void element_map(const ElementNodes& e, double s, double t, double* x, double* j) {
  double ds[3], dt[3];
  if (e.n_vertices == 3) {
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
  j[0] = ds[1] * dt[2] - ds[2] * dt[1];
  j[1] = ds[2] * dt[0] - ds[0] * dt[2];
  j[2] = ds[0] * dt[1] - ds[1] * dt[0];
}

// The reference centre: the collocation point of a constant element.
TREMOR_HOST_DEVICE inline void reference_centre(int n_vertices, double* st) {
  st[0] = n_vertices == 3 ? 1.0 / 3.0 : 0.0;
  st[1] = st[0];
}

// The element types: constant elements (paper section 2), one node at the reference centre; and
// discontinuous linear elements, one node per vertex, pulled towards the centre, at the 3-point
// Gauss points of a triangle (barycentric 2/3, 1/6, 1/6) and the 2 x 2 Gauss points of a
// quadrilateral. Displacement and traction are linear (bilinear) in each element through its own
// nodes: every collocation point lies inside a flat element, where c = I/2, and tractions may jump
// between elements at edges and corners without an extra unknown.
enum class ElementOrder : std::uint8_t { Constant, Linear };

constexpr int max_element_nodes = 4;

TREMOR_HOST_DEVICE inline int nodes_per_element(ElementOrder order, int n_vertices) {
  return order == ElementOrder::Constant ? 1 : n_vertices;
}

// How far from the centre towards vertex a a linear element's node a lies: the Gauss points.
TREMOR_HOST_DEVICE inline double node_pull(int n_vertices) { return n_vertices == 3 ? 0.5 : 0.57735026918962576451; }

// Reference coordinates of node a.
TREMOR_HOST_DEVICE inline void node_reference(ElementOrder order, int n_vertices, int a, double* st) {
  reference_centre(n_vertices, st);
  if (order == ElementOrder::Constant) return;
  const double tri[3][2] = {{0, 0}, {1, 0}, {0, 1}};
  const double quad[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  const double* v = n_vertices == 3 ? tri[a] : quad[a];
  const double pull = node_pull(n_vertices);
  st[0] += pull * (v[0] - st[0]);
  st[1] += pull * (v[1] - st[1]);
}

// The shape functions at (s, t): 1 for a constant element; for a linear one the (bi)linear
// interpolant through its nodes, N_a(node b) = delta_ab.
TREMOR_HOST_DEVICE inline void shape_values(ElementOrder order, int n_vertices, double s, double t, double* N) {
  if (order == ElementOrder::Constant) {
    N[0] = 1.0;
    return;
  }
  const double pull = node_pull(n_vertices);
  if (n_vertices == 3) {
    // Barycentric L, and node a at L = (1 - pull)/3 + pull delta_a.
    const double L[3] = {1.0 - s - t, s, t};
    for (int a = 0; a < 3; ++a) N[a] = (L[a] - (1.0 - pull) / 3.0) / pull;
  } else {
    const double sa[4] = {-1, 1, 1, -1}, ta[4] = {-1, -1, 1, 1};
    for (int a = 0; a < 4; ++a) N[a] = 0.25 * (1.0 + s * sa[a] / pull) * (1.0 + t * ta[a] / pull);
  }
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
// point on its own element): one triangle per edge, collapsed at c.
template <class F>
TREMOR_HOST_DEVICE void integrate_singular(const ElementNodes& e, const double* c, const GaussRule& rule, int lane,
                                           int lanes, F&& f) {
  const double tri[3][2] = {{0, 0}, {1, 0}, {0, 1}};
  const double quad[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  const int n = e.n_vertices;
  for (int k = 0; k < n; ++k) {
    const double* v0 = n == 3 ? tri[k] : quad[k];
    const double* v1 = n == 3 ? tri[(k + 1) % 3] : quad[(k + 1) % 4];
    const Piece p{{c[0], c[1]}, {v0[0] - c[0], v0[1] - c[1]}, {v1[0] - c[0], v1[1] - c[1]}, true};
    integrate_piece(e, p, rule, lane, lanes, f);
  }
}

}  // namespace tremor::bem
