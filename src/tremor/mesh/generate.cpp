#include "tremor/mesh/generate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/core/polynomials.hpp"

namespace tremor {

namespace {

using Offset = std::array<int, 3>;  // a node's position in fine-grid steps from its cell's lowest corner

constexpr char axis_name[3] = {'x', 'y', 'z'};

// The GLL points of order p on [-1, 1], ascending (symmetric about 0 exactly, so mirrored meshes
// are exact mirrors).
std::vector<double> gll_points(int p) {
  double x[max_points_1d];
  tremor::gll_points(p + 1, x);
  return {x, x + p + 1};
}

// How one element type fills a cell: fine-grid steps per cell, the positions of the fine points
// within a cell on [0, 1], whether fine points with two or more odd coordinates are absent
// (serendipity elements have no face or cell centre nodes), and the elements of one cell.
struct CellLayout {
  int step = 1;
  std::vector<double> unit;
  bool serendipity = false;
  std::vector<std::vector<Offset>> elements;
};

Offset scaled(const Offset& a, int factor) { return {a[0] * factor, a[1] * factor, a[2] * factor}; }
Offset mid_offset(const Offset& a, const Offset& b) { return {(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2}; }

// Corners of the unit quadrilateral and hexahedron in tremor's vertex order.
constexpr Offset quad_corners[4] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
constexpr Offset hex_corners[8] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                   {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

// Vertices scaled to `factor` steps per cell, then the midpoints of `edges` (pairs of vertices).
std::vector<Offset> with_midpoints(const std::vector<Offset>& vertices, int factor,
                                   const std::vector<std::array<int, 2>>& edges) {
  std::vector<Offset> nodes;
  for (const auto& v : vertices) nodes.push_back(scaled(v, factor));
  for (const auto& [a, b] : edges)
    nodes.push_back(mid_offset(nodes[static_cast<std::size_t>(a)], nodes[static_cast<std::size_t>(b)]));
  return nodes;
}

// Kuhn's six tetrahedra of the unit cube: one per order in which the path from corner (0,0,0)
// to (1,1,1) steps along the axes. Odd orders give negative volume; swapping vertices 1 and 2
// makes every tetrahedron positive ("vertex 3 on the positive side of face 012").
std::vector<std::vector<Offset>> kuhn_tetrahedra() {
  std::vector<std::vector<Offset>> tets;
  std::array<int, 3> axes = {0, 1, 2};
  do {
    std::vector<Offset> tet(4, Offset{0, 0, 0});
    for (int v = 1; v < 4; ++v) {
      tet[static_cast<std::size_t>(v)] = tet[static_cast<std::size_t>(v - 1)];
      tet[static_cast<std::size_t>(v)][static_cast<std::size_t>(axes[static_cast<std::size_t>(v - 1)])] = 1;
    }
    const auto edge = [&](int v, int d) {
      const auto axis = static_cast<std::size_t>(d);
      return tet[static_cast<std::size_t>(v)][axis] - tet[0][axis];
    };
    const int volume6 = edge(1, 0) * (edge(2, 1) * edge(3, 2) - edge(2, 2) * edge(3, 1)) -
                        edge(1, 1) * (edge(2, 0) * edge(3, 2) - edge(2, 2) * edge(3, 0)) +
                        edge(1, 2) * (edge(2, 0) * edge(3, 1) - edge(2, 1) * edge(3, 0));
    if (volume6 < 0) std::swap(tet[1], tet[2]);
    tets.push_back(tet);
  } while (std::next_permutation(axes.begin(), axes.end()));
  return tets;
}

std::vector<Offset> tensor_nodes(int order, int dim) {
  std::vector<Offset> nodes;
  for (int r = 0; r <= (dim == 3 ? order : 0); ++r)
    for (int q = 0; q <= order; ++q)
      for (int p = 0; p <= order; ++p) nodes.push_back({p, q, r});
  return nodes;
}

CellLayout layout_of(ElementType type, int order) {
  CellLayout layout;
  const std::vector<Offset> quad(std::begin(quad_corners), std::end(quad_corners));
  const std::vector<Offset> hex(std::begin(hex_corners), std::end(hex_corners));
  // The cell's diagonal from corner 0 to corner 2 splits it into two counter-clockwise triangles.
  const std::vector<std::vector<Offset>> triangles = {{quad[0], quad[1], quad[2]}, {quad[0], quad[2], quad[3]}};
  switch (type) {
    case ElementType::Tri3:
      layout.elements = triangles;
      break;
    case ElementType::Tri6:
      layout.step = 2;
      for (const auto& tri : triangles) layout.elements.push_back(with_midpoints(tri, 2, {{0, 1}, {1, 2}, {2, 0}}));
      break;
    case ElementType::Quad4:
      layout.elements = {quad};
      break;
    case ElementType::Quad8:
      layout.step = 2;
      layout.serendipity = true;
      layout.elements = {with_midpoints(quad, 2, {{0, 1}, {1, 2}, {2, 3}, {3, 0}})};
      break;
    case ElementType::Tet4:
      layout.elements = kuhn_tetrahedra();
      break;
    case ElementType::Tet10:
      layout.step = 2;
      for (const auto& tet : kuhn_tetrahedra())
        layout.elements.push_back(with_midpoints(tet, 2, {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}}));
      break;
    case ElementType::Hex8:
      layout.elements = {hex};
      break;
    case ElementType::Hex20:
      layout.step = 2;
      layout.serendipity = true;
      layout.elements = {with_midpoints(
          hex, 2, {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}})};
      break;
    case ElementType::QuadGLL:
    case ElementType::HexGLL:
      layout.step = order;
      layout.elements = {tensor_nodes(order, dimension(type))};
      break;
  }
  if (is_gll(type)) {
    for (double xi : gll_points(order)) layout.unit.push_back(0.5 * (1.0 + xi));
  } else {
    for (int k = 0; k <= layout.step; ++k) layout.unit.push_back(static_cast<double>(k) / layout.step);
  }
  layout.unit.front() = 0.0;
  layout.unit.back() = 1.0;
  return layout;
}

// A count computed in floating point, as an integer while it is one exactly.
std::string count_text(double value) {
  if (value < 9.0e15) return str(static_cast<long long>(value));
  std::ostringstream out;
  out.precision(3);
  out << std::scientific << value;
  return out.str();
}

// Positions of the fine-grid points along one axis: graded cell boundaries, then the layout's
// points inside each cell. Throws if two of them coincide in double precision.
std::vector<double> axis_points(int axis, double origin, double length, Size cells, double grading,
                                const std::vector<double>& unit) {
  std::vector<double> boundary(static_cast<std::size_t>(cells) + 1);
  const double log_g = std::log(grading);
  for (Size i = 0; i <= cells; ++i) {
    // Fraction of the length below boundary i: (g^i - 1) / (g^n - 1), written with expm1 so it
    // is accurate for g near 1 and overflow-free for large n.
    double fraction;
    if (grading == 1.0) {
      fraction = static_cast<double>(i) / static_cast<double>(cells);
    } else if (log_g < 0.0) {
      fraction = std::expm1(static_cast<double>(i) * log_g) / std::expm1(static_cast<double>(cells) * log_g);
    } else {
      fraction = std::exp(static_cast<double>(i - cells) * log_g) * std::expm1(-static_cast<double>(i) * log_g) /
                 std::expm1(-static_cast<double>(cells) * log_g);
    }
    boundary[static_cast<std::size_t>(i)] = origin + length * fraction;
  }
  boundary.front() = origin;
  boundary.back() = origin + length;

  const int step = static_cast<int>(unit.size()) - 1;
  std::vector<double> points(static_cast<std::size_t>(cells * step + 1));
  for (Size c = 0; c < cells; ++c) {
    const double lower = boundary[static_cast<std::size_t>(c)], upper = boundary[static_cast<std::size_t>(c + 1)];
    for (int k = 0; k < step; ++k)
      points[static_cast<std::size_t>(c * step + k)] = lower + unit[static_cast<std::size_t>(k)] * (upper - lower);
  }
  points.back() = boundary.back();
  for (std::size_t k = 1; k < points.size(); ++k)
    TREMOR_CHECK(points[k] > points[k - 1], "mesh generator: along ", axis_name[axis], ", ", cells,
                 " cells with grading ", grading, " over length ", length,
                 " make nodes coincide in double precision (smallest cell too small); use fewer cells or a grading "
                 "closer to 1");
  return points;
}

// Numbering of the fine-grid points that carry nodes, lexicographic with x fastest. Serendipity
// layouts (step 2) keep only points with at most one odd coordinate: within an even z layer, rows
// of even y hold every x point and rows of odd y only the even ones; odd z layers hold only
// points with even x and y.
struct Lattice {
  std::array<Size, 3> cells{};   // cells per axis; 0 along z in 2D
  std::array<Size, 3> points{};  // fine points per axis
  bool serendipity = false;

  Size full_row() const { return points[0]; }
  Size sparse_row() const { return cells[0] + 1; }
  Size full_layer() const { return (cells[1] + 1) * full_row() + cells[1] * sparse_row(); }
  Size sparse_layer() const { return (cells[0] + 1) * (cells[1] + 1); }

  bool has(Size i, Size j, Size k) const { return !serendipity || (i % 2) + (j % 2) + (k % 2) <= 1; }
  Size count() const {
    if (!serendipity) return points[0] * points[1] * points[2];
    return (cells[2] + 1) * full_layer() + cells[2] * sparse_layer();
  }
  Size index(Size i, Size j, Size k) const {
    if (!serendipity) return (k * points[1] + j) * points[0] + i;
    if (k % 2 == 1) return (k / 2) * (full_layer() + sparse_layer()) + full_layer() + (j / 2) * sparse_row() + i / 2;
    const Size layer = (k / 2) * (full_layer() + sparse_layer());
    if (j % 2 == 1) return layer + (j / 2) * (full_row() + sparse_row()) + full_row() + i / 2;
    return layer + (j / 2) * (full_row() + sparse_row()) + i;
  }
};

Mesh generate(int dim, const std::array<double, 3>& origin, const std::array<double, 3>& size,
              const std::array<Size, 3>& divisions, ElementType type, int order, const std::array<double, 3>& grading,
              Size max_size) {
  TREMOR_CHECK(max_size >= 1 && max_size <= max_generated, "mesh generator: a limit of ", max_size, " outside 1..",
               max_generated);
  const char* shape = dim == 2 ? "rectangle" : "box";
  TREMOR_CHECK(dimension(type) == dim, "mesh generator: a ", shape, " takes ",
               dim == 2 ? "tri3, tri6, quad4, quad8 or quad-gllP" : "tet4, tet10, hex8, hex20 or hex-gllP",
               " elements, not ", element_name(type, order));
  if (is_gll(type))
    TREMOR_CHECK(order >= 1 && order <= max_gll_order, "mesh generator: GLL order ", order, " outside 1..",
                 max_gll_order);
  else
    order = 1;
  for (int d = 0; d < dim; ++d) {
    const auto a = static_cast<std::size_t>(d);
    TREMOR_CHECK(std::isfinite(origin[a]), "mesh generator: origin along ", axis_name[d], " is ", origin[a],
                 ", expected a finite number");
    TREMOR_CHECK(std::isfinite(size[a]) && size[a] > 0.0, "mesh generator: size along ", axis_name[d], " is ", size[a],
                 ", expected a positive finite length");
    TREMOR_CHECK(std::isfinite(origin[a] + size[a]), "mesh generator: origin + size along ", axis_name[d],
                 " overflows");
    TREMOR_CHECK(divisions[a] >= 1, "mesh generator: divisions along ", axis_name[d], " is ", divisions[a],
                 ", expected at least 1");
    TREMOR_CHECK(std::isfinite(grading[a]) && grading[a] > 0.0, "mesh generator: grading along ", axis_name[d], " is ",
                 grading[a], ", expected a positive ratio of successive cell sizes");
  }

  const CellLayout layout = layout_of(type, order);
  Lattice lattice;
  lattice.serendipity = layout.serendipity;
  for (int d = 0; d < 3; ++d) {
    const auto a = static_cast<std::size_t>(d);
    lattice.cells[a] = d < dim ? divisions[a] : 0;
  }

  // Check the sizes in floating point before any integer product can overflow.
  const double limit = static_cast<double>(max_size);
  const int per_element = nodes_per_element(type, order);
  double cells = 1.0, points = 1.0;
  for (int d = 0; d < dim; ++d) {
    cells *= static_cast<double>(divisions[static_cast<std::size_t>(d)]);
    points *= static_cast<double>(divisions[static_cast<std::size_t>(d)]) * layout.step + 1.0;
  }
  if (layout.serendipity) {  // Lattice::count() in floating point
    const double cx = static_cast<double>(lattice.cells[0]), cy = static_cast<double>(lattice.cells[1]),
                 cz = static_cast<double>(lattice.cells[2]);
    const double full_layer = (cy + 1.0) * (2.0 * cx + 1.0) + cy * (cx + 1.0);
    points = (cz + 1.0) * full_layer + cz * (cx + 1.0) * (cy + 1.0);
  }
  const double elements = cells * static_cast<double>(layout.elements.size());
  TREMOR_CHECK(points * dim <= limit && elements * per_element <= limit, "mesh generator: ", shape, " ", divisions[0],
               " x ", divisions[1], dim == 3 ? str(" x ", divisions[2]) : std::string(), " of ",
               element_name(type, order), " needs ", count_text(points), " nodes (", count_text(points * dim),
               " degrees of freedom) and ", count_text(elements), " elements (", count_text(elements * per_element),
               " connectivity entries); the limit is ", max_size, " of each");

  std::array<std::vector<double>, 3> fine;
  for (int d = 0; d < 3; ++d) {
    const auto a = static_cast<std::size_t>(d);
    if (d < dim) {
      fine[a] = axis_points(d, origin[a], size[a], divisions[a], grading[a], layout.unit);
    } else {
      fine[a] = {0.0};
    }
    lattice.points[a] = static_cast<Size>(fine[a].size());
  }

  Mesh mesh(dim);
  const Size n_nodes = lattice.count();
  mesh.coordinates.reserve(static_cast<std::size_t>(n_nodes * dim));
  mesh.node_labels.reserve(static_cast<std::size_t>(n_nodes));
  static constexpr const char* face_names[3][2] = {{"xmin", "xmax"}, {"ymin", "ymax"}, {"zmin", "zmax"}};
  std::array<std::array<std::vector<Index>, 2>, 3> faces;
  for (Size k = 0; k < lattice.points[2]; ++k)
    for (Size j = 0; j < lattice.points[1]; ++j)
      for (Size i = 0; i < lattice.points[0]; ++i) {
        if (!lattice.has(i, j, k)) continue;
        const double xyz[3] = {fine[0][static_cast<std::size_t>(i)], fine[1][static_cast<std::size_t>(j)],
                               fine[2][static_cast<std::size_t>(k)]};
        const Index node = mesh.add_node(mesh.n_nodes() + 1, std::span<const double>(xyz, 3));
        const Size at[3] = {i, j, k};
        for (int d = 0; d < dim; ++d) {
          const auto a = static_cast<std::size_t>(d);
          if (at[d] == 0) faces[a][0].push_back(node);
          if (at[d] == lattice.points[a] - 1) faces[a][1].push_back(node);
        }
      }
  TREMOR_ASSERT(mesh.n_nodes() == n_nodes);

  ElementBlock& block = mesh.block_for(type, order);
  const auto n_elements = static_cast<std::size_t>(elements);
  block.connectivity.reserve(n_elements * static_cast<std::size_t>(per_element));
  block.labels.reserve(n_elements);
  const Size cells_z = dim == 3 ? divisions[2] : 1;
  for (Size c = 0; c < cells_z; ++c)
    for (Size b = 0; b < divisions[1]; ++b)
      for (Size a = 0; a < divisions[0]; ++a)
        for (const auto& element : layout.elements) {
          for (const Offset& offset : element) {
            const Size i = a * layout.step + offset[0], j = b * layout.step + offset[1],
                       k = c * layout.step + offset[2];
            TREMOR_ASSERT(lattice.has(i, j, k));
            block.connectivity.push_back(static_cast<Index>(lattice.index(i, j, k)));
          }
          block.labels.push_back(static_cast<Label>(block.labels.size()) + 1);
        }

  std::vector<Index> all(block.labels.size());
  for (std::size_t e = 0; e < all.size(); ++e) all[e] = static_cast<Index>(e);
  mesh.element_sets["all"] = std::move(all);
  // Surfaces of the same names: the element faces whose nodes all lie on that side (such a face
  // is on the boundary: the box is convex). Elements are visited in order, so the sets come out
  // sorted.
  std::vector<unsigned> sides(static_cast<std::size_t>(mesh.n_nodes()), 0u);
  for (int d = 0; d < dim; ++d)
    for (int side = 0; side < 2; ++side)
      for (Index node : faces[static_cast<std::size_t>(d)][static_cast<std::size_t>(side)])
        sides[static_cast<std::size_t>(node)] |= 1u << (2 * d + side);
  std::vector<Face>* side_faces[6] = {};
  for (int bit = 0; bit < 2 * dim; ++bit) side_faces[bit] = &mesh.face_sets[face_names[bit / 2][bit % 2]];
  const int n_element_faces = n_faces(type);
  for (Index e = 0; e < block.n_elements(); ++e) {
    const auto nodes = block.nodes(e);  // one block: global index = index in the block
    for (int f = 0; f < n_element_faces; ++f) {
      int local[max_face_nodes];
      const int n = face_nodes(block.type, block.order, f, local);
      unsigned common = ~0u;
      for (int a = 0; a < n && common != 0u; ++a)
        common &= sides[static_cast<std::size_t>(nodes[static_cast<std::size_t>(local[a])])];
      for (int bit = 0; bit < 2 * dim; ++bit)
        if (common & (1u << bit)) side_faces[bit]->push_back({e, f});
    }
  }
  for (int d = 0; d < dim; ++d)
    for (int side = 0; side < 2; ++side)
      mesh.node_sets[face_names[d][side]] =
          std::move(faces[static_cast<std::size_t>(d)][static_cast<std::size_t>(side)]);
  return mesh;
}

}  // namespace

Mesh generate_rectangle(const std::array<double, 2>& origin, const std::array<double, 2>& size,
                        const std::array<Size, 2>& divisions, ElementType type, int order,
                        const std::array<double, 2>& grading, Size limit) {
  return generate(2, {origin[0], origin[1], 0.0}, {size[0], size[1], 1.0}, {divisions[0], divisions[1], 1}, type, order,
                  {grading[0], grading[1], 1.0}, limit);
}

Mesh generate_box(const std::array<double, 3>& origin, const std::array<double, 3>& size,
                  const std::array<Size, 3>& divisions, ElementType type, int order,
                  const std::array<double, 3>& grading, Size limit) {
  return generate(3, origin, size, divisions, type, order, grading, limit);
}

}  // namespace tremor
