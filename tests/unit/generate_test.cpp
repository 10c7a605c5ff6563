#include "tremor/mesh/generate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/io/model_file.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

struct Case {
  ElementType type;
  int order;
  std::array<Size, 3> divisions;
};

using Point = std::array<double, 3>;

Point point(const Mesh& mesh, Index node) {
  Point p{0.0, 0.0, 0.0};
  for (int d = 0; d < mesh.dim(); ++d) p[static_cast<std::size_t>(d)] = mesh.node(node)[static_cast<std::size_t>(d)];
  return p;
}

Point minus(const Point& a, const Point& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Point cross(const Point& a, const Point& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const Point& a, const Point& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
double norm(const Point& a) { return std::sqrt(dot(a, a)); }

double tet_volume(const Point& a, const Point& b, const Point& c, const Point& d) {
  return dot(cross(minus(b, a), minus(c, a)), minus(d, a)) / 6.0;
}

// Corner node positions within an element, in tremor's vertex order.
std::vector<int> corners(ElementType type, int order) {
  const int p = order, n = order + 1;
  switch (type) {
    case ElementType::Tri3:
    case ElementType::Tri6:
      return {0, 1, 2};
    case ElementType::Tet4:
    case ElementType::Tet10:
    case ElementType::Quad4:
    case ElementType::Quad8:
      return {0, 1, 2, 3};
    case ElementType::QuadGLL:
      return {0, p, n * p + p, n * p};
    case ElementType::Hex8:
    case ElementType::Hex20:
      return {0, 1, 2, 3, 4, 5, 6, 7};
    case ElementType::HexGLL: {
      const int top = n * n * p;
      return {0, p, n * p + p, n * p, top, top + p, top + n * p + p, top + n * p};
    }
  }
  return {};
}

// Signed area (2D) or volume (3D) of an element from its corners. Hexahedra are cut into six
// tetrahedra around the diagonal 0-6, each of which must be positive on its own.
double signed_measure(const Mesh& mesh, const ElementBlock& block, Index e) {
  const auto nodes = block.nodes(e);
  std::vector<Point> v;
  for (int c : corners(block.type, block.order)) v.push_back(point(mesh, nodes[static_cast<std::size_t>(c)]));
  switch (v.size()) {
    case 3:
      return 0.5 * cross(minus(v[1], v[0]), minus(v[2], v[0]))[2];
    case 4:
      if (mesh.dim() == 3) return tet_volume(v[0], v[1], v[2], v[3]);
      return 0.5 * (cross(v[0], v[1])[2] + cross(v[1], v[2])[2] + cross(v[2], v[3])[2] + cross(v[3], v[0])[2]);
    default: {
      double total = 0.0;
      const int tets[6][3] = {{1, 2, 6}, {2, 3, 6}, {3, 7, 6}, {7, 4, 6}, {4, 5, 6}, {5, 1, 6}};
      for (const auto& t : tets) {
        const double part = tet_volume(v[0], v[static_cast<std::size_t>(t[0])], v[static_cast<std::size_t>(t[1])],
                                       v[static_cast<std::size_t>(t[2])]);
        if (!(part > 0.0)) return -1.0;
        total += part;
      }
      return total;
    }
  }
}

// Mid-edge nodes of the quadratic types as (node, vertex a, vertex b), from element_type.hpp.
std::vector<std::array<int, 3>> midside_nodes(ElementType type) {
  switch (type) {
    case ElementType::Tri6:
      return {{3, 0, 1}, {4, 1, 2}, {5, 2, 0}};
    case ElementType::Quad8:
      return {{4, 0, 1}, {5, 1, 2}, {6, 2, 3}, {7, 3, 0}};
    case ElementType::Tet10:
      return {{4, 0, 1}, {5, 1, 2}, {6, 2, 0}, {7, 0, 3}, {8, 1, 3}, {9, 2, 3}};
    case ElementType::Hex20:
      return {{8, 0, 1},  {9, 1, 2},  {10, 2, 3}, {11, 3, 0}, {12, 4, 5}, {13, 5, 6},
              {14, 6, 7}, {15, 7, 4}, {16, 0, 4}, {17, 1, 5}, {18, 2, 6}, {19, 3, 7}};
    default:
      return {};
  }
}

// The faces (edges in 2D) of an element as lists of local node positions, every node included,
// so two elements share a face only if they agree on its mid-edge and GLL nodes too.
std::vector<std::vector<int>> local_faces(ElementType type, int order) {
  std::vector<std::vector<int>> faces;
  std::vector<std::vector<int>> vertex_faces;
  switch (type) {
    case ElementType::Tri3:
    case ElementType::Tri6:
      vertex_faces = {{0, 1}, {1, 2}, {2, 0}};
      break;
    case ElementType::Quad4:
    case ElementType::Quad8:
      vertex_faces = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
      break;
    case ElementType::Tet4:
    case ElementType::Tet10:
      vertex_faces = {{0, 1, 2}, {0, 1, 3}, {1, 2, 3}, {0, 2, 3}};
      break;
    case ElementType::Hex8:
    case ElementType::Hex20:
      vertex_faces = {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
      break;
    case ElementType::QuadGLL:
    case ElementType::HexGLL: {
      const int n = order + 1, dim = dimension(type);
      for (int axis = 0; axis < dim; ++axis)
        for (int side : {0, order}) {
          std::vector<int> face;
          for (int r = 0; r < (dim == 3 ? n : 1); ++r)
            for (int q = 0; q < n; ++q)
              for (int p = 0; p < n; ++p) {
                const int at[3] = {p, q, r};
                if (at[axis] == side) face.push_back((r * n + q) * n + p);
              }
          faces.push_back(face);
        }
      return faces;
    }
  }
  const auto mids = midside_nodes(type);
  for (const auto& vertices : vertex_faces) {
    std::vector<int> face = vertices;
    for (const auto& [node, a, b] : mids) {
      const bool has_a = std::find(vertices.begin(), vertices.end(), a) != vertices.end();
      const bool has_b = std::find(vertices.begin(), vertices.end(), b) != vertices.end();
      if (has_a && has_b) face.push_back(node);
    }
    faces.push_back(face);
  }
  return faces;
}

// Derivative of the Legendre polynomial P_n at x (recurrence, then (x^2-1) P_n' = n (x P_n - P_{n-1})).
double legendre_derivative(int n, double x) {
  double previous = 1.0, current = x;
  for (int k = 2; k <= n; ++k) {
    const double next = ((2.0 * k - 1.0) * x * current - (k - 1.0) * previous) / k;
    previous = current;
    current = next;
  }
  return n * (x * current - previous) / (x * x - 1.0);
}

Mesh make(const Case& c, const Point& origin, const Point& size, const Point& grading) {
  if (dimension(c.type) == 2)
    return generate_rectangle({origin[0], origin[1]}, {size[0], size[1]}, {c.divisions[0], c.divisions[1]}, c.type,
                              c.order, {grading[0], grading[1]});
  return generate_box(origin, size, c.divisions, c.type, c.order, grading);
}

Size expected_nodes(const Case& c) {
  const int dim = dimension(c.type);
  const Size nx = c.divisions[0], ny = c.divisions[1], nz = dim == 3 ? c.divisions[2] : 0;
  const auto grid = [&](Size step) { return (step * nx + 1) * (step * ny + 1) * (step * nz + 1); };
  switch (c.type) {
    case ElementType::Tri3:
    case ElementType::Quad4:
    case ElementType::Tet4:
    case ElementType::Hex8:
      return grid(1);
    case ElementType::Tri6:
    case ElementType::Tet10:
      return grid(2);
    case ElementType::Quad8:
      return grid(2) - nx * ny;  // no cell-centre nodes
    case ElementType::Hex20:     // vertices plus one node per cell edge
      return grid(1) + nx * (ny + 1) * (nz + 1) + (nx + 1) * ny * (nz + 1) + (nx + 1) * (ny + 1) * nz;
    case ElementType::QuadGLL:
    case ElementType::HexGLL:
      return grid(c.order);
  }
  return -1;
}

Size expected_elements(const Case& c) {
  Size cells = c.divisions[0] * c.divisions[1] * (dimension(c.type) == 3 ? c.divisions[2] : 1);
  if (c.type == ElementType::Tri3 || c.type == ElementType::Tri6) return 2 * cells;
  if (c.type == ElementType::Tet4 || c.type == ElementType::Tet10) return 6 * cells;
  return cells;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {ElementType::Tri3, 1, {3, 2, 0}},    {ElementType::Tri6, 1, {3, 2, 0}},    {ElementType::Quad4, 1, {3, 2, 0}},
      {ElementType::Quad8, 1, {3, 2, 0}},   {ElementType::QuadGLL, 1, {2, 3, 0}}, {ElementType::QuadGLL, 2, {2, 3, 0}},
      {ElementType::QuadGLL, 3, {2, 3, 0}}, {ElementType::QuadGLL, 8, {2, 1, 0}}, {ElementType::Tet4, 1, {2, 3, 2}},
      {ElementType::Tet10, 1, {2, 2, 3}},   {ElementType::Hex8, 1, {3, 2, 2}},    {ElementType::Hex20, 1, {2, 3, 2}},
      {ElementType::HexGLL, 1, {2, 2, 2}},  {ElementType::HexGLL, 2, {2, 3, 2}},  {ElementType::HexGLL, 4, {2, 2, 2}},
      {ElementType::HexGLL, 8, {1, 2, 1}},
  };
  return all;
}

// A domain off the origin with unequal sides and grading on every axis, so no check passes by
// symmetry or because coordinates happen to be integers.
constexpr Point test_origin = {-0.3, 1.25, 0.5};
constexpr Point test_size = {0.7, 0.45, 1.1};
constexpr Point test_grading = {1.3, 0.8, 1.7};

TEST(Generate, CountsLabelsAndSets) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(element_name(c.type, c.order));
    const Mesh mesh = make(c, test_origin, test_size, test_grading);
    const int dim = dimension(c.type);
    EXPECT_EQ(mesh.dim(), dim);
    EXPECT_EQ(mesh.n_nodes(), expected_nodes(c));
    EXPECT_EQ(mesh.n_elements(), expected_elements(c));
    ASSERT_EQ(mesh.n_blocks(), 1);
    EXPECT_EQ(mesh.blocks[0].type, c.type);
    EXPECT_NO_THROW(mesh.validate("generated"));
    for (Index i = 0; i < mesh.n_nodes(); ++i) EXPECT_EQ(mesh.node_labels[static_cast<std::size_t>(i)], i + 1);
    for (Index e = 0; e < mesh.n_elements(); ++e) EXPECT_EQ(mesh.element_label(e), e + 1);
    const auto& all = mesh.element_sets.at("all");
    ASSERT_EQ(static_cast<Index>(all.size()), mesh.n_elements());
    for (std::size_t e = 0; e < all.size(); ++e) EXPECT_EQ(all[e], static_cast<Index>(e));

    // Face sets: exactly the nodes whose coordinate equals the face's (the generator places the
    // end points at origin and origin + size exactly).
    const char* names[3][2] = {{"xmin", "xmax"}, {"ymin", "ymax"}, {"zmin", "zmax"}};
    EXPECT_EQ(static_cast<int>(mesh.node_sets.size()), 2 * dim);
    for (int d = 0; d < dim; ++d)
      for (int side = 0; side < 2; ++side) {
        const double plane =
            test_origin[static_cast<std::size_t>(d)] + (side ? test_size[static_cast<std::size_t>(d)] : 0.0);
        std::vector<Index> expected;
        for (Index i = 0; i < mesh.n_nodes(); ++i)
          if (mesh.node(i)[static_cast<std::size_t>(d)] == plane) expected.push_back(i);
        EXPECT_FALSE(expected.empty());
        EXPECT_EQ(mesh.node_sets.at(names[d][side]), expected) << names[d][side];
      }
  }
}

TEST(Generate, NodesAreUniqueAndUsed) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(element_name(c.type, c.order));
    const Mesh mesh = make(c, test_origin, test_size, test_grading);
    std::vector<Point> points;
    for (Index i = 0; i < mesh.n_nodes(); ++i) points.push_back(point(mesh, i));
    std::sort(points.begin(), points.end());
    // Exact comparison: a duplicate would be the same fine-grid point computed twice, bit for bit.
    EXPECT_EQ(std::adjacent_find(points.begin(), points.end()), points.end());
    std::vector<bool> used(static_cast<std::size_t>(mesh.n_nodes()), false);
    for (Index node : mesh.blocks[0].connectivity) used[static_cast<std::size_t>(node)] = true;
    EXPECT_EQ(std::count(used.begin(), used.end(), false), 0);
    // Within each element the nodes are distinct.
    const ElementBlock& block = mesh.blocks[0];
    for (Index e = 0; e < block.n_elements(); ++e) {
      const auto nodes = block.nodes(e);
      const std::set<Index> distinct(nodes.begin(), nodes.end());
      EXPECT_EQ(distinct.size(), nodes.size());
    }
  }
}

TEST(Generate, PositiveMeasuresSumToTheDomain) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(element_name(c.type, c.order));
    const Mesh mesh = make(c, test_origin, test_size, test_grading);
    const ElementBlock& block = mesh.blocks[0];
    double total = 0.0, smallest = INFINITY;
    for (Index e = 0; e < block.n_elements(); ++e) {
      const double measure = signed_measure(mesh, block, e);
      smallest = std::min(smallest, measure);
      total += measure;
    }
    EXPECT_GT(smallest, 0.0);
    const double exact = test_size[0] * test_size[1] * (mesh.dim() == 3 ? test_size[2] : 1.0);
    // A sum of at most a few hundred positive terms, each exact to rounding: 1e-12 relative.
    EXPECT_NEAR(total, exact, 1e-12 * exact);
  }
}

TEST(Generate, HigherOrderNodesSitWhereTheOrderingSays) {
  // Coordinates are O(1); midpoints and GLL positions are computed with a few roundings.
  constexpr double tolerance = 1e-14;
  for (const Case& c : cases()) {
    SCOPED_TRACE(element_name(c.type, c.order));
    const Mesh mesh = make(c, test_origin, test_size, test_grading);
    const ElementBlock& block = mesh.blocks[0];
    for (Index e = 0; e < block.n_elements(); ++e) {
      const auto nodes = block.nodes(e);
      const auto at = [&](int k) { return point(mesh, nodes[static_cast<std::size_t>(k)]); };
      for (const auto& [node, a, b] : midside_nodes(c.type))
        for (int d = 0; d < 3; ++d)
          EXPECT_NEAR(at(node)[static_cast<std::size_t>(d)],
                      0.5 * (at(a)[static_cast<std::size_t>(d)] + at(b)[static_cast<std::size_t>(d)]), tolerance);
      if (!is_gll(c.type)) continue;
      // Lexicographic with x fastest: node (p, q, r) takes x from p, y from q, z from r, and the
      // interior positions are the roots of P_order' mapped onto the cell.
      const int n = c.order + 1, layers = mesh.dim() == 3 ? n : 1;
      const Point lower = at(0), upper = at((layers - 1) * n * n + n * n - 1);
      for (int r = 0; r < layers; ++r)
        for (int q = 0; q < n; ++q)
          for (int p = 0; p < n; ++p) {
            const Point x = at((r * n + q) * n + p);
            const int index[3] = {p, q, r};
            for (int d = 0; d < mesh.dim(); ++d) {
              const auto a = static_cast<std::size_t>(d);
              const Point along = at(d == 0 ? index[0] : d == 1 ? index[1] * n : index[2] * n * n);
              EXPECT_EQ(x[a], along[a]);  // shared fine-grid coordinate, bit for bit
              const double xi = 2.0 * (x[a] - lower[a]) / (upper[a] - lower[a]) - 1.0;
              if (index[d] == 0) {
                EXPECT_EQ(xi, -1.0);
              } else if (index[d] == c.order) {
                EXPECT_EQ(xi, 1.0);
              } else {
                // |P_n'| grows like n^2 near the ends; 1e-11 is many roundings of the mapped point.
                EXPECT_NEAR(legendre_derivative(c.order, xi), 0.0, 1e-11);
              }
            }
          }
    }
  }
}

TEST(Generate, GllPointsMatchClosedForms) {
  // Order 3: +-1/sqrt(5); order 4: 0, +-sqrt(3/7); order 5: +-sqrt(1/3 -+ 2 sqrt(7)/21).
  const std::map<int, std::vector<double>> exact = {
      {2, {-1.0, 0.0, 1.0}},
      {3, {-1.0, -1.0 / std::sqrt(5.0), 1.0 / std::sqrt(5.0), 1.0}},
      {4, {-1.0, -std::sqrt(3.0 / 7.0), 0.0, std::sqrt(3.0 / 7.0), 1.0}},
      {5,
       {-1.0, -std::sqrt(1.0 / 3.0 + 2.0 * std::sqrt(7.0) / 21.0), -std::sqrt(1.0 / 3.0 - 2.0 * std::sqrt(7.0) / 21.0),
        std::sqrt(1.0 / 3.0 - 2.0 * std::sqrt(7.0) / 21.0), std::sqrt(1.0 / 3.0 + 2.0 * std::sqrt(7.0) / 21.0), 1.0}},
  };
  for (const auto& [order, points] : exact) {
    const Mesh mesh = generate_rectangle({-1.0, -1.0}, {2.0, 2.0}, {1, 1}, ElementType::QuadGLL, order);
    for (int p = 0; p <= order; ++p)
      // Newton converges to rounding; the map onto [-1, 1] adds one or two roundings.
      EXPECT_NEAR(mesh.node(p)[0], points[static_cast<std::size_t>(p)], 4e-16) << "order " << order << " point " << p;
  }
}

TEST(Generate, ConformingFaces) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(element_name(c.type, c.order));
    const Mesh mesh = make(c, test_origin, test_size, test_grading);
    const ElementBlock& block = mesh.blocks[0];
    const int dim = mesh.dim();
    std::map<std::vector<Index>, int> seen;
    std::map<std::vector<Index>, std::vector<Index>> vertices_of;
    const auto face_list = local_faces(c.type, c.order);
    const std::vector<int> vertex_count_of_face = [&] {
      std::vector<int> counts;
      for (const auto& face : face_list) {
        if (is_gll(c.type))
          counts.push_back(dim == 2 ? 2 : 4);
        else
          counts.push_back(dim == 2 ? 2 : (c.type == ElementType::Tet4 || c.type == ElementType::Tet10 ? 3 : 4));
        (void)face;
      }
      return counts;
    }();
    for (Index e = 0; e < block.n_elements(); ++e) {
      const auto nodes = block.nodes(e);
      for (std::size_t f = 0; f < face_list.size(); ++f) {
        std::vector<Index> key;
        for (int k : face_list[f]) key.push_back(nodes[static_cast<std::size_t>(k)]);
        std::vector<Index> vertices;
        if (is_gll(c.type)) {  // corners of the tensor face: first, last of first row, ...
          const int n = c.order + 1;
          const std::size_t m = key.size();
          vertices = dim == 2 ? std::vector<Index>{key[0], key[m - 1]}
                              : std::vector<Index>{key[0], key[static_cast<std::size_t>(n - 1)], key[m - 1],
                                                   key[m - static_cast<std::size_t>(n)]};
        } else {
          vertices.assign(key.begin(), key.begin() + vertex_count_of_face[f]);
        }
        std::sort(key.begin(), key.end());
        ++seen[key];
        vertices_of[key] = vertices;
      }
    }
    Size interior = 0, boundary = 0;
    double boundary_measure = 0.0;
    for (const auto& [key, count] : seen) {
      ASSERT_LE(count, 2) << "a face shared by more than two elements";
      // A face on the domain boundary has all its nodes on one face of the box.
      bool on_boundary = false;
      for (int d = 0; d < dim; ++d)
        for (double plane : {test_origin[static_cast<std::size_t>(d)],
                             test_origin[static_cast<std::size_t>(d)] + test_size[static_cast<std::size_t>(d)]}) {
          bool all = true;
          for (Index node : key) all = all && mesh.node(node)[static_cast<std::size_t>(d)] == plane;
          on_boundary = on_boundary || all;
        }
      if (count == 2) {
        ++interior;
        EXPECT_FALSE(on_boundary) << "an interior face on the boundary";
        continue;
      }
      ++boundary;
      EXPECT_TRUE(on_boundary) << "a face seen by one element only inside the domain (non-conforming)";
      std::vector<Point> v;
      for (Index node : vertices_of[key]) v.push_back(point(mesh, node));
      if (dim == 2)
        boundary_measure += norm(minus(v[1], v[0]));
      else if (v.size() == 3)
        boundary_measure += 0.5 * norm(cross(minus(v[1], v[0]), minus(v[2], v[0])));
      else
        boundary_measure += 0.5 * norm(cross(minus(v[2], v[0]), minus(v[3], v[1])));
    }
    const Size nx = c.divisions[0], ny = c.divisions[1], nz = c.divisions[2];
    const bool simplex = !is_gll(c.type) && vertices_per_element(c.type) == dim + 1;
    const Size expected_boundary = dim == 2 ? 2 * (nx + ny) : (simplex ? 2 : 1) * 2 * (nx * ny + ny * nz + nx * nz);
    EXPECT_EQ(boundary, expected_boundary);
    // Every element face is either on the boundary or shared: sum over elements = 2 interior + boundary.
    EXPECT_EQ(2 * interior + boundary, static_cast<Size>(face_list.size()) * block.n_elements());
    const double perimeter =
        dim == 2 ? 2.0 * (test_size[0] + test_size[1])
                 : 2.0 * (test_size[0] * test_size[1] + test_size[1] * test_size[2] + test_size[0] * test_size[2]);
    // Sum of a few dozen exact-to-rounding terms.
    EXPECT_NEAR(boundary_measure, perimeter, 1e-12 * perimeter);
  }
}

TEST(Generate, GradingIsTheRatioOfSuccessiveCellSizes) {
  const double length = 2.0;
  for (double grading : {1.5, 0.6, 1.0 + 1e-9}) {
    SCOPED_TRACE(grading);
    const Mesh mesh = generate_box({1.0, 0.0, 0.0}, {length, 1.0, 1.0}, {7, 1, 2}, ElementType::Hex8, 1,
                                   {grading, 1.0, 1.0 / grading});
    for (int axis : {0, 2}) {
      const double g = axis == 0 ? grading : 1.0 / grading;
      std::set<double> values;
      for (Index i = 0; i < mesh.n_nodes(); ++i) values.insert(mesh.node(i)[static_cast<std::size_t>(axis)]);
      const std::vector<double> x(values.begin(), values.end());
      ASSERT_EQ(x.size(), axis == 0 ? 8u : 3u);
      double sum = 0.0;
      for (std::size_t k = 0; k + 1 < x.size(); ++k) {
        sum += x[k + 1] - x[k];
        // Each size is a difference of two O(1) coordinates: ratios good to ~1e-15 / size.
        if (k + 2 < x.size()) {
          EXPECT_NEAR((x[k + 2] - x[k + 1]) / (x[k + 1] - x[k]), g, 1e-12);
        }
      }
      EXPECT_NEAR(sum, axis == 0 ? length : 1.0, 1e-14);
    }
    // The first cell in closed form: h0 = L (g - 1) / (g^n - 1); the uniform limit L / n near g = 1.
    const double h0 = grading == 1.0 + 1e-9 ? length / 7.0 : length * (grading - 1.0) / (std::pow(grading, 7) - 1.0);
    // g = 1 + 1e-9 differs from uniform by ~1e-9 relative.
    EXPECT_NEAR(mesh.node(1)[0] - mesh.node(0)[0], h0, 1e-8 * h0);
  }
}

TEST(Generate, GradingOfQuadraticAndGllCells) {
  // Mid-edge and GLL nodes follow the graded cell they sit in, not a uniform grid.
  const Mesh mesh = generate_rectangle({0.0, 0.0}, {1.0, 1.0}, {2, 1}, ElementType::QuadGLL, 2, {3.0, 1.0});
  // Cells of sizes 1/4 and 3/4: GLL order 2 puts the centre nodes at 1/8 and 1/4 + 3/8.
  const double expected[5] = {0.0, 0.125, 0.25, 0.625, 1.0};
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(mesh.node(i)[0], expected[i], 1e-15);  // rounding of O(1) values
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Generate, RejectsBadInput) {
  using ET = ElementType;
  EXPECT_NE(error_of([] {
              generate_rectangle({0, 0}, {1, 1}, {1, 1}, ET::Hex8);
            }).find("a rectangle takes tri3"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              generate_box({0, 0, 0}, {1, 1, 1}, {1, 1, 1}, ET::Quad4);
            }).find("not quad4"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              generate_rectangle({0, 0}, {1, 1}, {3, 0}, ET::Quad4);
            }).find("divisions along y is 0"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              generate_rectangle({0, 0}, {-1, 1}, {3, 3}, ET::Quad4);
            }).find("size along x is -1"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              generate_box({0, NAN, 0}, {1, 1, 1}, {1, 1, 1}, ET::Hex8);
            }).find("origin along y"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              generate_box({0, 0, 0}, {1, 1, INFINITY}, {1, 1, 1}, ET::Hex8);
            }).find("size along z"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              generate_box({0, 0, 1e308}, {1, 1, 1e308}, {1, 1, 1}, ET::Hex8);
            }).find("overflows"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              generate_box({0, 0, 0}, {1, 1, 1}, {1, 1, 1}, ET::Hex8, 1, {1, 0, 1});
            }).find("grading along y is 0"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              generate_box({0, 0, 0}, {1, 1, 1}, {1, 1, 1}, ET::HexGLL, 9);
            }).find("GLL order 9"),
            std::string::npos);
  // 10^12 cells: refused with the counts, before any allocation.
  const std::string huge = error_of([] { generate_box({0, 0, 0}, {1, 1, 1}, {10000, 10000, 10000}, ET::Tet4); });
  EXPECT_NE(huge.find("10000 x 10000 x 10000 of tet4"), std::string::npos) << huge;
  EXPECT_NE(huge.find("the limit is 2147483647"), std::string::npos) << huge;
  // Divisions near the Size range must not overflow the count.
  EXPECT_NE(error_of([] {
              generate_rectangle({0, 0}, {1, 1}, {std::numeric_limits<Size>::max(), std::numeric_limits<Size>::max()},
                                 ET::QuadGLL, 8);
            }).find("the limit is"),
            std::string::npos);
  // Grading so strong that the smallest cells vanish in double precision.
  EXPECT_NE(error_of([] {
              generate_rectangle({0, 0}, {1, 1}, {2000, 1}, ET::Quad4, 1, {0.5, 1.0});
            }).find("coincide"),
            std::string::npos);
}

TEST(Generate, ACallerCanLowerTheLimit) {
  // 9 x 9 quad4: 100 nodes, 200 DOF and 81 x 4 = 324 connectivity entries > 200.
  const std::string message =
      error_of([] { generate_rectangle({0, 0}, {1, 1}, {9, 9}, ElementType::Quad4, 1, {1.0, 1.0}, 200); });
  EXPECT_NE(message.find("324 connectivity entries"), std::string::npos) << message;
  EXPECT_NE(message.find("the limit is 200"), std::string::npos) << message;
  EXPECT_NO_THROW(generate_rectangle({0, 0}, {1, 1}, {7, 7}, ElementType::Quad4, 1, {1.0, 1.0}, 200));  // 128, 196
  // 2 x 2 x 2 hex8: 27 nodes, 81 DOF, 64 connectivity entries.
  EXPECT_THROW(generate_box({0, 0, 0}, {1, 1, 1}, {2, 2, 2}, ElementType::Hex8, 1, {1.0, 1.0, 1.0}, 80), Error);
  EXPECT_NO_THROW(generate_box({0, 0, 0}, {1, 1, 1}, {2, 2, 2}, ElementType::Hex8, 1, {1.0, 1.0, 1.0}, 81));
  EXPECT_NE(error_of([] { generate_rectangle({0, 0}, {1, 1}, {1, 1}, ElementType::Quad4, 1, {1.0, 1.0}, 0); })
                .find("outside 1.."),
            std::string::npos);
  // The default is what Index addresses; one call's limit is not another's.
  EXPECT_NO_THROW(generate_rectangle({0, 0}, {1, 1}, {9, 9}, ElementType::Quad4));
}

// The model file's generator takes the reader's limit, named by its [mesh] line.
TEST(Generate, TheModelReaderPassesItsLimitOn) {
  const std::string text =
      "[mesh]\ngenerator = \"rectangle\"\nelement = \"quad4\"\nsize = [1, 1]\ndivisions = [9, 9]\n"
      "[[material]]\nname = \"steel\"\ndensity = 7850\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n";
  const std::string message =
      error_of([&] { (void)io::read_model_buffer(text, "limited.toml", "", std::nullopt, nullptr, 200); });
  EXPECT_NE(message.find("limited.toml:5"), std::string::npos) << message;
  EXPECT_NE(message.find("the limit is 200"), std::string::npos) << message;
}

}  // namespace
}  // namespace tremor
