// The Gmsh reader on meshes Gmsh 4.8.4 wrote (tests/data/gmsh/README.md says how): every element
// type in ASCII and binary, checked against the geometry they mesh rather than against themselves.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <iterator>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/io/gmsh.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// Coordinates of the transfinite and extruded meshes carry ~1e-12 of Gmsh's own placement noise
// (e.g. 0.4999999999986921 for 0.5); 1e-9 is far above that and far below the 0.125 that
// separates any two nodes of these meshes, so a node in the wrong slot cannot pass.
constexpr double kPlacement = 1e-9;

// The geometries: the L-shaped plate (area 3) and the same L extruded to z = 1 (volume 3), with
// n = 2 cells per unit length for the structured meshes.
constexpr double kMeasure = 3.0;
constexpr int kCells = 2;

struct Case {
  const char* name;
  int dim;
  ElementType type;
  int order;
  bool structured;   // transfinite grid: counts follow from kCells
  int lattice_step;  // structured: nodes sit on the grid of spacing 1 / (kCells * lattice_step)
  int max_odd;       // structured: nodes have at most this many odd lattice indices
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

const Case kCases[] = {
    {"tri3", 2, ElementType::Tri3, 1, true, 1, 2},     {"tri6", 2, ElementType::Tri6, 1, true, 2, 2},
    {"quad4", 2, ElementType::Quad4, 1, true, 1, 2},   {"quad8", 2, ElementType::Quad8, 1, true, 2, 1},
    {"quad9", 2, ElementType::QuadGLL, 2, true, 2, 2}, {"tet4", 3, ElementType::Tet4, 1, false, 1, 3},
    {"tet10", 3, ElementType::Tet10, 1, false, 2, 3},  {"hex8", 3, ElementType::Hex8, 1, true, 1, 3},
    {"hex20", 3, ElementType::Hex20, 1, true, 2, 1},   {"hex27", 3, ElementType::HexGLL, 2, true, 2, 3},
};

Mesh read(const std::string& file) { return io::read_gmsh(test::data_path("gmsh/" + file)); }

using Vec = std::array<double, 3>;

Vec point(const Mesh& mesh, Index node) {
  Vec p = {0, 0, 0};
  const auto x = mesh.node(node);
  for (int d = 0; d < mesh.dim(); ++d) p[d] = x[static_cast<std::size_t>(d)];
  return p;
}

// Corner nodes in tremor's order: the first vertices for the Lagrange types, the tensor corners
// (counter-clockwise, bottom then top) for GLL order p.
std::vector<Index> corners(const ElementBlock& block, Index e) {
  const auto nodes = block.nodes(e);
  if (!is_gll(block.type)) return {nodes.begin(), nodes.begin() + vertices_per_element(block.type)};
  const int p = block.order, n = p + 1;
  std::vector<Index> out;
  const int layers = block.type == ElementType::HexGLL ? 2 : 1;
  for (int k = 0; k < layers; ++k)
    for (const auto& [i, j] : {std::pair{0, 0}, {p, 0}, {p, p}, {0, p}})
      out.push_back(nodes[static_cast<std::size_t>(i + n * j + n * n * k * p)]);
  return out;
}

// The multilinear map of the corners (tri/tet: affine; quad: bilinear; hex: trilinear) at
// reference point xi, and its Jacobian determinant.
Vec map_corners(const std::vector<Vec>& c, ElementType type, const Vec& xi, double* det) {
  Vec x = {0, 0, 0};
  const int dim = dimension(type);
  // A 2D element's Jacobian gets a unit third column so that det J is its area factor.
  double J[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, dim == 2 ? 1.0 : 0.0}};
  if (c.size() == 3 || (c.size() == 4 && dim == 3)) {  // simplex on (0,0,0), e1, e2, e3
    for (int d = 0; d < 3; ++d) {
      x[d] = c[0][d];
      for (int a = 0; a < dim; ++a) {
        J[d][a] = c[static_cast<std::size_t>(a + 1)][d] - c[0][d];
        x[d] += J[d][a] * xi[a];
      }
    }
  } else {
    // Vertex signs of the reference square/cube [-1, 1]^dim in tremor's corner order.
    static const int s[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
    const double scale = dim == 2 ? 0.25 : 0.125;
    for (std::size_t v = 0; v < c.size(); ++v) {
      double shape = scale, grad[3] = {scale, scale, scale};
      for (int a = 0; a < dim; ++a) {
        const double f = 1.0 + s[v][a] * xi[a];
        shape *= f;
        for (int b = 0; b < dim; ++b) grad[b] *= (a == b) ? s[v][a] : f;
      }
      for (int d = 0; d < 3; ++d) {
        x[d] += shape * c[v][d];
        for (int a = 0; a < dim; ++a) J[d][a] += grad[a] * c[v][d];
      }
    }
  }
  if (det) {
    *det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
           J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
  }
  return x;
}

// Signed measure of the element spanned by its corners, and the smallest Jacobian determinant at
// the Gauss points. 2 Gauss points per direction integrate the bilinear/trilinear det J exactly.
double signed_measure(const std::vector<Vec>& c, ElementType type, double* min_det) {
  const int dim = dimension(type);
  double det = 0;
  if (c.size() == 3 || (c.size() == 4 && dim == 3)) {
    map_corners(c, type, {0, 0, 0}, &det);
    *min_det = det;
    return det / (dim == 2 ? 2.0 : 6.0);
  }
  const double g = 1.0 / std::sqrt(3.0);
  double total = 0;
  *min_det = 1e300;
  for (int k = 0; k < (dim == 3 ? 2 : 1); ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) {
        const Vec xi = {i ? g : -g, j ? g : -g, dim == 3 ? (k ? g : -g) : 0.0};
        map_corners(c, type, xi, &det);
        total += det;  // unit weights
        *min_det = std::min(*min_det, det);
      }
  return total;
}

// Tremor's mid-edge nodes (element_type.hpp): node vertices + i sits on edge edges[i].
std::vector<std::pair<int, int>> tremor_edges(ElementType type) {
  switch (type) {
    case ElementType::Tri6: return {{0, 1}, {1, 2}, {2, 0}};
    case ElementType::Quad8: return {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
    case ElementType::Tet10: return {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
    case ElementType::Hex20:
      return {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    default: return {};
  }
}

// Nodes of the L-shaped lattice of spacing 1 / m (x, y in the L, z in [0, 1] in 3D) whose number
// of odd indices is at most max_odd: the nodes of a structured mesh of the L.
int lattice_nodes(int m, int dim, int max_odd) {
  int count = 0;
  for (int k = 0; k <= (dim == 3 ? m : 0); ++k)
    for (int j = 0; j <= 2 * m; ++j)
      for (int i = 0; i <= 2 * m; ++i) {
        if (i > m && j > m) continue;
        if ((i % 2) + (j % 2) + (dim == 3 ? k % 2 : 0) <= max_odd) ++count;
      }
  return count;
}

std::set<std::pair<Label, Label>> unique_edges(const Mesh& mesh) {
  std::set<std::pair<Label, Label>> edges;
  for (const auto& block : mesh.blocks) {
    const int nv = vertices_per_element(block.type);
    for (Index e = 0; e < block.n_elements(); ++e) {
      const auto nodes = block.nodes(e);
      for (int a = 0; a < nv; ++a)
        for (int b = a + 1; b < nv; ++b) {
          const Label la = mesh.node_labels[static_cast<std::size_t>(nodes[static_cast<std::size_t>(a)])];
          const Label lb = mesh.node_labels[static_cast<std::size_t>(nodes[static_cast<std::size_t>(b)])];
          edges.insert({std::min(la, lb), std::max(la, lb)});
        }
    }
  }
  return edges;
}

class GmshFile : public ::testing::TestWithParam<Case> {};

TEST_P(GmshFile, AsciiAndBinaryGiveTheSameMesh) {
  const Case& c = GetParam();
  const Mesh ascii = read(str(c.name, ".msh"));
  const Mesh binary = read(str(c.name, "_bin.msh"));
  ASSERT_EQ(ascii.dim(), binary.dim());
  EXPECT_EQ(ascii.node_labels, binary.node_labels);
  ASSERT_EQ(ascii.coordinates.size(), binary.coordinates.size());
  for (std::size_t i = 0; i < ascii.coordinates.size(); ++i)
    // ASCII holds 16 significant digits, binary the exact double: for coordinates up to 2 they
    // differ by at most a few 1e-16.
    EXPECT_NEAR(ascii.coordinates[i], binary.coordinates[i], 2e-15);
  ASSERT_EQ(ascii.n_blocks(), binary.n_blocks());
  for (int b = 0; b < ascii.n_blocks(); ++b) {
    const auto& x = ascii.blocks[static_cast<std::size_t>(b)];
    const auto& y = binary.blocks[static_cast<std::size_t>(b)];
    EXPECT_EQ(x.type, y.type);
    EXPECT_EQ(x.order, y.order);
    EXPECT_EQ(x.labels, y.labels);
    EXPECT_EQ(x.connectivity, y.connectivity);
  }
  EXPECT_EQ(ascii.node_sets, binary.node_sets);
  EXPECT_EQ(ascii.element_sets, binary.element_sets);
}

TEST_P(GmshFile, CountsAndSetsMatchTheGeometry) {
  const Case& c = GetParam();
  const Mesh mesh = read(str(c.name, ".msh"));
  ASSERT_EQ(mesh.dim(), c.dim);
  ASSERT_EQ(mesh.n_blocks(), 1);
  const ElementBlock& block = mesh.blocks[0];
  EXPECT_EQ(block.type, c.type);
  EXPECT_EQ(block.order, c.order);

  if (c.structured) {
    const bool simplex = c.type == ElementType::Tri3 || c.type == ElementType::Tri6;
    // Three unit squares (cubes) of kCells^dim cells; a transfinite triangle grid halves each cell.
    const int cells = 3 * (c.dim == 3 ? kCells * kCells * kCells : kCells * kCells);
    EXPECT_EQ(block.n_elements(), simplex ? 2 * cells : cells);
    EXPECT_EQ(mesh.n_nodes(), lattice_nodes(kCells * c.lattice_step, c.dim, c.max_odd));
  } else {
    // Unstructured tetrahedra: the count Gmsh reported when meshing (README.md); the quadratic
    // mesh adds one node per edge of the linear one, which the same Gmsh run produced.
    EXPECT_EQ(block.n_elements(), 302);
    const Mesh linear = read("tet4.msh");
    EXPECT_EQ(linear.n_nodes(), 111);
    const auto expected = c.type == ElementType::Tet4 ? 111 : 111 + static_cast<Index>(unique_edges(linear).size());
    EXPECT_EQ(mesh.n_nodes(), expected);
  }

  // Every element belongs to the body group, which holds all nodes; no "all" set is needed.
  const std::string body = c.dim == 2 ? "plate" : "block";
  ASSERT_EQ(mesh.element_sets.size(), 1u);
  ASSERT_TRUE(mesh.element_sets.count(body));
  EXPECT_EQ(mesh.element_sets.at(body).size(), static_cast<std::size_t>(mesh.n_elements()));
  ASSERT_TRUE(mesh.node_sets.count(body));
  EXPECT_EQ(mesh.node_sets.at(body).size(), static_cast<std::size_t>(mesh.n_nodes()));

  // The boundary group holds exactly the nodes on its plane (x = 0 in 2D, z = 0 in 3D).
  const std::string boundary = c.dim == 2 ? "left" : "bottom";
  const int axis = c.dim == 2 ? 0 : 2;
  std::vector<Index> on_plane;
  for (Index i = 0; i < mesh.n_nodes(); ++i)
    if (std::abs(mesh.node(i)[static_cast<std::size_t>(axis)]) < kPlacement) on_plane.push_back(i);
  ASSERT_TRUE(mesh.node_sets.count(boundary));
  EXPECT_EQ(mesh.node_sets.at(boundary), on_plane);
  EXPECT_GT(on_plane.size(), 2u);
  if (c.dim == 2) {
    // The unnamed point group (tag 7) holds the node at the origin.
    ASSERT_TRUE(mesh.node_sets.count("physical7"));
    ASSERT_EQ(mesh.node_sets.at("physical7").size(), 1u);
    const auto origin = mesh.node(mesh.node_sets.at("physical7")[0]);
    EXPECT_NEAR(origin[0], 0.0, kPlacement);
    EXPECT_NEAR(origin[1], 0.0, kPlacement);
    EXPECT_EQ(mesh.node_sets.size(), 3u);
  } else {
    EXPECT_EQ(mesh.node_sets.size(), 2u);
  }
}

TEST_P(GmshFile, ElementsArePositiveAndNodesSitWhereTremorsOrderSays) {
  const Case& c = GetParam();
  const Mesh mesh = read(str(c.name, ".msh"));
  const ElementBlock& block = mesh.blocks.at(0);
  double total = 0;
  for (Index e = 0; e < block.n_elements(); ++e) {
    std::vector<Vec> corner;
    for (Index node : corners(block, e)) corner.push_back(point(mesh, node));
    double min_det = 0;
    total += signed_measure(corner, block.type, &min_det);
    ASSERT_GT(min_det, 0.0) << c.name << " element " << block.labels[static_cast<std::size_t>(e)];

    const auto nodes = block.nodes(e);
    const auto edges = tremor_edges(block.type);
    for (std::size_t i = 0; i < edges.size(); ++i) {
      const Vec a = corner[static_cast<std::size_t>(edges[i].first)], b = corner[static_cast<std::size_t>(edges[i].second)];
      const Vec m = point(mesh, nodes[static_cast<std::size_t>(vertices_per_element(block.type)) + i]);
      for (int d = 0; d < 3; ++d)
        ASSERT_NEAR(m[d], 0.5 * (a[d] + b[d]), kPlacement) << c.name << " element " << block.labels[e] << " edge " << i;
    }
    if (is_gll(block.type)) {
      // Node (i, j, k) at the multilinear image of the reference point (-1 + i, -1 + j, -1 + k):
      // exact for these straight-sided, parallel-faced elements.
      const int n = block.order + 1, nz = block.type == ElementType::HexGLL ? n : 1;
      for (int k = 0; k < nz; ++k)
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i) {
            const double h = 2.0 / block.order;
            const Vec xi = {-1 + h * i, -1 + h * j, nz > 1 ? -1 + h * k : 0.0};
            const Vec expected = map_corners(corner, block.type, xi, nullptr);
            const Vec got = point(mesh, nodes[static_cast<std::size_t>(i + n * j + n * n * k)]);
            for (int d = 0; d < 3; ++d)
              ASSERT_NEAR(got[d], expected[d], kPlacement) << c.name << " element " << block.labels[e] << " node "
                                                            << i << "," << j << "," << k;
          }
    }
  }
  // Corner nodes lie exactly on the straight boundary, so the elements tile the L up to the
  // rounding of a few hundred additions of O(0.01) terms.
  EXPECT_NEAR(total, kMeasure, 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Gmsh, GmshFile, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& param) { return std::string(param.param.name); });

TEST(GmshReader, PartitionedMeshKeepsItsPhysicalGroups) {
  // The same triangles as tri3.msh, saved in two partitions: the elements sit on partition
  // entities, whose physical tags come from $PartitionedEntities.
  const Mesh whole = read("tri3.msh");
  for (const char* file : {"tri3_part.msh", "tri3_part_bin.msh"}) {
    const Mesh parts = read(file);
    ASSERT_EQ(parts.n_elements(), whole.n_elements()) << file;
    ASSERT_EQ(parts.n_nodes(), whole.n_nodes()) << file;
    EXPECT_EQ(parts.element_sets.count("all"), 0u) << file;
    ASSERT_EQ(parts.element_sets.count("plate"), 1u) << file;
    EXPECT_EQ(parts.element_sets.at("plate").size(), static_cast<std::size_t>(whole.n_elements())) << file;
    for (const char* set : {"left", "physical7", "plate"}) {
      ASSERT_EQ(parts.node_sets.count(set), 1u) << file << " " << set;
      // Node tags are the same in both saves; compare the sets by label.
      std::vector<Label> a, b;
      for (Index i : parts.node_sets.at(set)) a.push_back(parts.node_labels[static_cast<std::size_t>(i)]);
      for (Index i : whole.node_sets.at(set)) b.push_back(whole.node_labels[static_cast<std::size_t>(i)]);
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      EXPECT_EQ(a, b) << file << " " << set;
    }
  }
}

TEST(GmshReader, ParametricCoordinatesAreSkipped) {
  // tri3.msh saved with the nodes' parametric coordinates (u on curves, u v on surfaces).
  const Mesh plain = read("tri3.msh");
  for (const char* file : {"tri3_param.msh", "tri3_param_bin.msh"}) {
    const Mesh mesh = read(file);
    EXPECT_EQ(mesh.node_labels, plain.node_labels) << file;
    ASSERT_EQ(mesh.coordinates.size(), plain.coordinates.size()) << file;
    for (std::size_t i = 0; i < mesh.coordinates.size(); ++i)
      // Gmsh prints the same coordinates with 15 or 16 digits in the two saves: rounding only.
      EXPECT_NEAR(mesh.coordinates[i], plain.coordinates[i], 1e-14) << file;
    EXPECT_EQ(mesh.blocks.at(0).connectivity, plain.blocks.at(0).connectivity) << file;
    EXPECT_EQ(mesh.node_sets, plain.node_sets) << file;
    EXPECT_EQ(mesh.element_sets, plain.element_sets) << file;
  }
}

TEST(GmshReader, LabelsAreGmshTags) {
  // Gmsh numbers the nodes on the geometry's points first, point i -> node i: the labels must be
  // those tags, attached to the points' coordinates (l_plate.geo).
  const Mesh mesh = read("quad4.msh");
  const double points[8][2] = {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}, {0, 2}, {1, 2}};
  for (Label tag = 1; tag <= 8; ++tag) {
    const auto it = std::find(mesh.node_labels.begin(), mesh.node_labels.end(), tag);
    ASSERT_NE(it, mesh.node_labels.end()) << tag;
    const auto x = mesh.node(static_cast<Index>(it - mesh.node_labels.begin()));
    EXPECT_EQ(x[0], points[tag - 1][0]) << tag;  // geometry points are written exactly
    EXPECT_EQ(x[1], points[tag - 1][1]) << tag;
  }
  // Element labels are unique positive tags, above those of the 4 line elements and the point
  // element Gmsh wrote first.
  std::vector<Label> labels = mesh.blocks[0].labels;
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(std::adjacent_find(labels.begin(), labels.end()), labels.end());
  EXPECT_EQ(labels.front(), 6);
  EXPECT_EQ(labels.back(), 17);
}

TEST(GmshReader, MissingFileIsAnError) {
  const std::string path = test::temporary_directory("gmsh") + "/absent.msh";
  try {
    io::read_gmsh(path);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("absent.msh"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no such Gmsh mesh file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tremor
