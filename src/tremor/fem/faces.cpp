#include "tremor/fem/faces.hpp"

#include <algorithm>
#include <cmath>

#include "tremor/core/error.hpp"
#include "tremor/core/polynomials.hpp"
#include "tremor/fem/elements.hpp"
#include "tremor/fem/quadrature.hpp"

namespace tremor::fem {

namespace {

int gll_count(int order) {
  TREMOR_CHECK(order >= 1 && order <= max_gll_order, "GLL face of order ", order, "; expected 1..", max_gll_order);
  return order + 1;
}

// Polynomial order p of a face's shape functions per direction (serendipity quad8: 2).
int face_order(FaceType type, int order) {
  switch (type) {
    case FaceType::Line2:
    case FaceType::Tri3:
    case FaceType::Quad4: return 1;
    case FaceType::Line3:
    case FaceType::Tri6:
    case FaceType::Quad8: return 2;
    case FaceType::LineGLL:
    case FaceType::QuadGLL: return order;
  }
  return 1;
}

template <class E>
void element_shape(const double* xi, double* N, double* dN) {
  E::shape(xi, N);
  E::gradients(xi, dN);
}

// The vector g = n dA / dxi of the header at one point, from the face's node coordinates.
void area_vector(int dim, int face_dim, int n_nodes, const double* dN, std::span<const double> x, double* g) {
  double tangent[2][3] = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
  for (int a = 0; a < n_nodes; ++a)
    for (int j = 0; j < face_dim; ++j)
      for (int d = 0; d < dim; ++d) tangent[j][d] += dN[a * face_dim + j] * x[static_cast<std::size_t>(a * dim + d)];
  if (dim == 2) {
    // The element lies to the left of the edge (faces.hpp), so the outward normal is the tangent
    // turned clockwise.
    g[0] = tangent[0][1];
    g[1] = -tangent[0][0];
    g[2] = 0.0;
  } else {
    g[0] = tangent[0][1] * tangent[1][2] - tangent[0][2] * tangent[1][1];
    g[1] = tangent[0][2] * tangent[1][0] - tangent[0][0] * tangent[1][2];
    g[2] = tangent[0][0] * tangent[1][1] - tangent[0][1] * tangent[1][0];
  }
}

// Calls point(N, g, weight) at every point of `rule` (face_quadrature's by default); checks the
// face is not degenerate.
template <class F>
void integrate(FaceType type, int order, int dim, std::span<const double> coordinates, F&& point,
               const FaceRule* given = nullptr) {
  const int face_dim = face_dimension(type);
  TREMOR_CHECK(dim == face_dim + 1, "a ", face_type_name(type, order), " face in ", dim,
               "D space (faces of 2D elements are lines, of 3D elements surfaces)");
  const int n_nodes = nodes_per_face(type, order);
  TREMOR_CHECK(coordinates.size() == static_cast<std::size_t>(n_nodes * dim), "face coordinates: ", coordinates.size(),
               " values for ", n_nodes, " nodes in ", dim, "D");
  // Degenerate when |g| falls to rounding of the face's size: |g| ~ h^(dim - 1) on a sound face.
  double size = 0.0;
  for (int a = 0; a < n_nodes; ++a)
    for (int b = a + 1; b < n_nodes; ++b) {
      double distance = 0.0;
      for (int d = 0; d < dim; ++d) {
        const double delta =
            coordinates[static_cast<std::size_t>(a * dim + d)] - coordinates[static_cast<std::size_t>(b * dim + d)];
        distance += delta * delta;
      }
      size = std::max(size, std::sqrt(distance));
    }
  const double smallest = 1e-12 * std::pow(size, face_dim);
  const FaceRule rule = given ? *given : face_quadrature(type, order);
  std::vector<double> N(static_cast<std::size_t>(n_nodes)), dN(static_cast<std::size_t>(n_nodes * face_dim));
  for (int q = 0; q < rule.n_points(); ++q) {
    face_shape(type, order, rule.points.data() + q * face_dim, N.data(), dN.data());
    double g[3];
    area_vector(dim, face_dim, n_nodes, dN.data(), coordinates, g);
    const double norm = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    TREMOR_CHECK(std::isfinite(norm) && norm > smallest, "degenerate ", face_type_name(type, order),
                 " face: its area element vanishes at a quadrature point (coincident or collinear nodes)");
    point(N.data(), g, norm, rule.weights[static_cast<std::size_t>(q)]);
  }
}

}  // namespace

void face_shape(FaceType type, int order, const double* xi, double* N, double* dN) {
  switch (type) {
    case FaceType::Line2:
      N[0] = 0.5 * (1.0 - xi[0]);
      N[1] = 0.5 * (1.0 + xi[0]);
      dN[0] = -0.5;
      dN[1] = 0.5;
      return;
    case FaceType::Line3:
      N[0] = 0.5 * xi[0] * (xi[0] - 1.0);
      N[1] = 0.5 * xi[0] * (xi[0] + 1.0);
      N[2] = 1.0 - xi[0] * xi[0];
      dN[0] = xi[0] - 0.5;
      dN[1] = xi[0] + 0.5;
      dN[2] = -2.0 * xi[0];
      return;
    case FaceType::LineGLL: {
      const int n = gll_count(order);
      double points[max_points_1d];
      gll_points(n, points);
      lagrange(n, points, xi[0], N, dN);
      return;
    }
    case FaceType::Tri3: return element_shape<Tri3>(xi, N, dN);
    case FaceType::Tri6: return element_shape<Tri6>(xi, N, dN);
    case FaceType::Quad4: return element_shape<Quad4>(xi, N, dN);
    case FaceType::Quad8: return element_shape<Quad8>(xi, N, dN);
    case FaceType::QuadGLL: {
      const int n = gll_count(order);
      double points[max_points_1d], value[2][max_points_1d], derivative[2][max_points_1d];
      gll_points(n, points);
      for (int d = 0; d < 2; ++d) lagrange(n, points, xi[d], value[d], derivative[d]);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          const int a = i + n * j;
          N[a] = value[0][i] * value[1][j];
          dN[2 * a] = derivative[0][i] * value[1][j];
          dN[2 * a + 1] = value[0][i] * derivative[1][j];
        }
      return;
    }
  }
}

void face_node(FaceType type, int order, int a, double* xi) {
  switch (type) {
    case FaceType::Line2: xi[0] = a == 0 ? -1.0 : 1.0; return;
    case FaceType::Line3: xi[0] = a == 0 ? -1.0 : a == 1 ? 1.0 : 0.0; return;
    case FaceType::LineGLL: {
      double points[max_points_1d];
      gll_points(gll_count(order), points);
      xi[0] = points[a];
      return;
    }
    case FaceType::Tri3: return Tri3::node(a, xi);
    case FaceType::Tri6: return Tri6::node(a, xi);
    case FaceType::Quad4: return Quad4::node(a, xi);
    case FaceType::Quad8: return Quad8::node(a, xi);
    case FaceType::QuadGLL: {
      const int n = gll_count(order);
      double points[max_points_1d];
      gll_points(n, points);
      xi[0] = points[a % n];
      xi[1] = points[a / n];
      return;
    }
  }
}

namespace {

// A face's rule exact to `line` degrees on lines, `triangle` on triangles, `quad` per direction on
// quadrilaterals (Gauss points; on quadrilaterals and lines with `lobatto`, the GLL rule of n points).
FaceRule face_rule(FaceType type, int line, int triangle, int quad, int lobatto = 0) {
  FaceRule result;
  result.dim = face_dimension(type);
  const auto take = [&](const auto& rule) {
    for (int q = 0; q < rule.n_points; ++q) {
      for (int d = 0; d < result.dim; ++d) result.points.push_back(rule.point(q)[d]);
      result.weights.push_back(rule.weights[q]);
    }
  };
  const int n = lobatto > 0 ? lobatto : gauss_points_for_degree(result.dim == 1 ? line : quad);
  if (result.dim == 1) {
    QuadratureRule<1, max_points_1d> rule;
    tensor_rule(n, lobatto > 0, rule);
    take(rule);
  } else if (type == FaceType::Tri3 || type == FaceType::Tri6) {
    QuadratureRule<2, 16> rule;
    triangle_rule(triangle, rule);
    take(rule);
  } else {
    QuadratureRule<2, max_points_1d * max_points_1d> rule;
    tensor_rule(n, lobatto > 0, rule);
    take(rule);
  }
  return result;
}

}  // namespace

FaceRule face_quadrature(FaceType type, int order) {
  const int p = face_order(type, order);
  return face_rule(type, 2 * p - 1, 3 * p - 2, 3 * p - 1);
}

void traction_forces(FaceType type, int order, int dim, std::span<const double> coordinates,
                     const std::array<double, 3>& traction, std::vector<double>& forces) {
  const int n_nodes = nodes_per_face(type, order);
  forces.assign(static_cast<std::size_t>(n_nodes * dim), 0.0);
  integrate(type, order, dim, coordinates, [&](const double* N, const double*, double norm, double weight) {
    for (int a = 0; a < n_nodes; ++a)
      for (int c = 0; c < dim; ++c)
        forces[static_cast<std::size_t>(a * dim + c)] += weight * N[a] * norm * traction[static_cast<std::size_t>(c)];
  });
}

void pressure_forces(FaceType type, int order, int dim, std::span<const double> coordinates, double pressure,
                     std::vector<double>& forces) {
  const int n_nodes = nodes_per_face(type, order);
  forces.assign(static_cast<std::size_t>(n_nodes * dim), 0.0);
  integrate(type, order, dim, coordinates, [&](const double* N, const double* g, double, double weight) {
    for (int a = 0; a < n_nodes; ++a)
      for (int c = 0; c < dim; ++c) forces[static_cast<std::size_t>(a * dim + c)] -= pressure * weight * N[a] * g[c];
  });
}

FaceRule coupling_quadrature(FaceType type, int order, bool nodal) {
  const int p = face_order(type, order);
  if (nodal) {
    TREMOR_CHECK(type == FaceType::LineGLL || type == FaceType::QuadGLL, "a ", face_type_name(type, order),
                 " face has no nodal (GLL) rule");
    return face_rule(type, 0, 0, 0, gll_count(order));
  }
  // N_a N_b of degree 2p, g of p - 1 on lines, 2p - 2 on triangles, 2p - 1 per direction on quads.
  return face_rule(type, 3 * p - 1, 4 * p - 2, 4 * p - 1);
}

void coupling_matrix(FaceType type, int order, int dim, std::span<const double> coordinates, bool nodal,
                     std::vector<double>& C) {
  const int n = nodes_per_face(type, order);
  C.assign(static_cast<std::size_t>(n * n * dim), 0.0);
  const FaceRule rule = coupling_quadrature(type, order, nodal);
  integrate(
      type, order, dim, coordinates,
      [&](const double* N, const double* g, double, double weight) {
        for (int a = 0; a < n; ++a)
          for (int b = 0; b < n; ++b)
            for (int c = 0; c < dim; ++c)
              C[static_cast<std::size_t>((a * n + b) * dim + c)] += weight * N[a] * N[b] * g[c];
      },
      &rule);
}

double face_area(FaceType type, int order, int dim, std::span<const double> coordinates) {
  double area = 0.0;
  integrate(type, order, dim, coordinates,
            [&](const double*, const double*, double norm, double weight) { area += weight * norm; });
  return area;
}

void face_weights(FaceType type, int order, int dim, std::span<const double> coordinates,
                  std::vector<double>& weights) {
  std::vector<double> forces;
  pressure_forces(type, order, dim, coordinates, -1.0, forces);  // int N_a n dA
  const auto d = static_cast<std::size_t>(dim), n = forces.size() / d;
  double normal[3] = {0.0, 0.0, 0.0};
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t c = 0; c < d; ++c) normal[c] += forces[a * d + c];
  const double size = std::sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
  weights.assign(n, 0.0);
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t c = 0; c < d; ++c) weights[a] += forces[a * d + c] * normal[c] / size;
}

void disc_weights(FaceType type, int order, int dim, std::span<const double> coordinates,
                  std::span<const double> centre, double radius, std::vector<double>& weights) {
  const int face_dim = face_dimension(type), n_nodes = nodes_per_face(type, order);
  const bool triangle = type == FaceType::Tri3 || type == FaceType::Tri6;
  const int deepest = face_dim == 1 ? 24 : 10;
  const FaceRule base = face_quadrature(type, order);
  std::vector<double> N(static_cast<std::size_t>(n_nodes)), dN(static_cast<std::size_t>(n_nodes * face_dim));
  // Where reference point xi lies, and whether within the radius.
  const auto position = [&](const double* xi, double* x) {
    face_shape(type, order, xi, N.data(), dN.data());
    for (int d = 0; d < dim; ++d) {
      x[d] = 0.0;
      for (int a = 0; a < n_nodes; ++a)
        x[d] += N[static_cast<std::size_t>(a)] * coordinates[static_cast<std::size_t>(a * dim + d)];
    }
  };
  const auto distance = [&](const double* x, const double* y) {
    double sum = 0.0;
    for (int d = 0; d < dim; ++d) sum += (x[d] - y[d]) * (x[d] - y[d]);
    return std::sqrt(sum);
  };
  const auto inside = [&](const double* xi) {
    double x[3];
    position(xi, x);
    return distance(x, centre.data()) <= radius;
  };
  // The composite rule: a cell is xi = o + A s, s in the reference domain ([-1, 1]^k, or the unit
  // triangle), its points the base rule's mapped, its weights scaled by |det A|.
  FaceRule rule;
  rule.dim = face_dim;
  struct Cell {
    double o[2], A[4];  // A row-major, face_dim x face_dim
  };
  const auto map = [&](const Cell& cell, const double* s, double* xi) {
    for (int i = 0; i < face_dim; ++i) {
      xi[i] = cell.o[i];
      for (int j = 0; j < face_dim; ++j) xi[i] += cell.A[i * face_dim + j] * s[j];
    }
  };
  // A cell inside takes the face's rule; a finest cell still cut, its centroid if that is inside
  // (the cell is too small for the rule's order to matter beside where the edge crosses it).
  const double reference_area = face_dim == 1 ? 2.0 : triangle ? 0.5 : 4.0;
  const double centroid[2] = {triangle ? 1.0 / 3.0 : 0.0, triangle ? 1.0 / 3.0 : 0.0};
  const auto take = [&](const Cell& cell, bool all) {
    const double det = std::abs(face_dim == 1 ? cell.A[0] : cell.A[0] * cell.A[3] - cell.A[1] * cell.A[2]);
    double xi[2];
    if (!all) {
      map(cell, centroid, xi);
      if (!inside(xi)) return;
      for (int i = 0; i < face_dim; ++i) rule.points.push_back(xi[i]);
      rule.weights.push_back(reference_area * det);
      return;
    }
    for (int q = 0; q < base.n_points(); ++q) {
      map(cell, base.points.data() + q * face_dim, xi);
      for (int i = 0; i < face_dim; ++i) rule.points.push_back(xi[i]);
      rule.weights.push_back(base.weights[static_cast<std::size_t>(q)] * det);
    }
  };
  // The cell's corners in its own reference coordinates.
  std::vector<std::array<double, 2>> corners;
  if (face_dim == 1)
    corners = {{-1.0, 0.0}, {1.0, 0.0}};
  else if (triangle)
    corners = {{0.0, 0.0}, {1.0, 0.0}, {0.0, 1.0}};
  else
    corners = {{-1.0, -1.0}, {1.0, -1.0}, {1.0, 1.0}, {-1.0, 1.0}};
  const auto visit = [&](const auto& self, const Cell& cell, int depth) -> void {
    int in = 0;
    double x[4][3], middle[3] = {0.0, 0.0, 0.0};
    const int n_corners = static_cast<int>(corners.size());
    for (int k = 0; k < n_corners; ++k) {
      double xi[2];
      map(cell, corners[static_cast<std::size_t>(k)].data(), xi);
      position(xi, x[k]);
      in += distance(x[k], centre.data()) <= radius ? 1 : 0;
      for (int d = 0; d < dim; ++d) middle[d] += x[k][d] / n_corners;
    }
    // A cell whose corners are all inside lies inside (a flat piece is their convex hull, the
    // ball convex). One with none inside is outside when the ball is farther than its corners
    // (with half again for a curved face's bulge); else it may still be cut (a small disc within a
    // face), and only the finest cells are left to their points.
    if (in == n_corners) return take(cell, true);
    double reach = 0.0;
    for (int k = 0; k < n_corners; ++k) reach = std::max(reach, distance(x[k], middle));
    if (in == 0 && distance(middle, centre.data()) > radius + 1.5 * reach) return;
    if (depth == deepest) return take(cell, false);
    // Halve: the children of [-1, 1]^k at offsets +-1/2, or a triangle's four (its middle one turned).
    Cell child{};
    for (int i = 0; i < face_dim * face_dim; ++i) child.A[i] = 0.5 * cell.A[i];
    if (triangle) {
      const double offsets[3][2] = {{0.0, 0.0}, {0.5, 0.0}, {0.0, 0.5}};
      for (const auto& offset : offsets) {
        map(cell, offset, child.o);
        self(self, child, depth + 1);
      }
      const double turned[2] = {0.5, 0.5};  // the middle one's right angle, at the midpoints' corner
      map(cell, turned, child.o);
      for (int i = 0; i < 4; ++i) child.A[i] = -0.5 * cell.A[i];
      return self(self, child, depth + 1);
    }
    const int n_children = face_dim == 1 ? 2 : 4;
    for (int k = 0; k < n_children; ++k) {
      const double offset[2] = {k % 2 ? 0.5 : -0.5, k / 2 ? 0.5 : -0.5};
      map(cell, offset, child.o);
      self(self, child, depth + 1);
    }
  };
  Cell root{};
  root.A[0] = 1.0;
  if (face_dim == 2) root.A[3] = 1.0;
  visit(visit, root, 0);
  weights.assign(static_cast<std::size_t>(n_nodes), 0.0);
  if (rule.weights.empty()) return;
  integrate(
      type, order, dim, coordinates,
      [&](const double* shape, const double*, double norm, double weight) {
        for (int a = 0; a < n_nodes; ++a) weights[static_cast<std::size_t>(a)] += weight * shape[a] * norm;
      },
      &rule);
}

}  // namespace tremor::fem
