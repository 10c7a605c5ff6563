// Face tables (mesh/faces.hpp): every face of every element type lies on the element's boundary,
// its nodes sit where the face type's own ordering puts them, its normal points outward, and the
// boundary faces of generated meshes close the domain (divergence theorem); the interface between
// two regions of a mesh is the faces they share.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/faces.hpp"
#include "tremor/mesh/faces.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

struct Kind {
  ElementType type;
  int order;
};

const Kind kinds[] = {{ElementType::Tri3, 1},    {ElementType::Tri6, 1},    {ElementType::Quad4, 1},
                      {ElementType::Quad8, 1},   {ElementType::QuadGLL, 1}, {ElementType::QuadGLL, 2},
                      {ElementType::QuadGLL, 4}, {ElementType::Tet4, 1},    {ElementType::Tet10, 1},
                      {ElementType::Hex8, 1},    {ElementType::Hex20, 1},   {ElementType::HexGLL, 1},
                      {ElementType::HexGLL, 2},  {ElementType::HexGLL, 3}};

// Reference coordinates of every node of an element (dim per node).
std::vector<double> reference_nodes(ElementType type, int order) {
  return fem::with_element(type, order, [](auto element) {
    using E = decltype(element);
    std::vector<double> x(static_cast<std::size_t>(E::n_nodes * E::dim));
    for (int a = 0; a < E::n_nodes; ++a) E::node(a, x.data() + a * E::dim);
    return x;
  });
}

// The coordinates of a face's nodes taken from `x` (dim per element node).
std::vector<double> face_coordinates(const std::vector<double>& x, int dim, const int* local, int n) {
  std::vector<double> out;
  for (int a = 0; a < n; ++a)
    for (int d = 0; d < dim; ++d) out.push_back(x[static_cast<std::size_t>(local[a] * dim + d)]);
  return out;
}

TEST(MeshFaces, FaceNodesSitWhereTheFaceOrderingPutsThem) {
  for (const Kind kind : kinds) {
    const std::string name = element_name(kind.type, kind.order);
    const int dim = dimension(kind.type);
    const FaceType shape = face_type(kind.type);
    const int n = nodes_per_face(shape, kind.order);
    const std::vector<double> x = reference_nodes(kind.type, kind.order);
    for (int f = 0; f < n_faces(kind.type); ++f) {
      int local[max_face_nodes];
      ASSERT_EQ(face_nodes(kind.type, kind.order, f, local), n) << name;
      ASSERT_EQ(std::set<int>(local, local + n).size(), static_cast<std::size_t>(n)) << name << " face " << f;
      int corners[4];
      const int n_corners = face_vertices(kind.type, kind.order, f, corners);
      ASSERT_EQ(n_corners, vertices_per_face(shape));
      // The reference faces are flat (straight), so the face type's interpolation of its corner
      // positions (line2, tri3, quad4 shape functions) must put every face node exactly where
      // the element has it: this checks the order of mid-edge and GLL nodes, not only the set.
      const FaceType linear = n_corners == 2 ? FaceType::Line2 : n_corners == 3 ? FaceType::Tri3 : FaceType::Quad4;
      for (int a = 0; a < n; ++a) {
        double xi[2], N[4], dN[8];
        fem::face_node(shape, kind.order, a, xi);
        fem::face_shape(linear, 1, xi, N, dN);
        for (int d = 0; d < dim; ++d) {
          double expected = 0.0;
          for (int c = 0; c < n_corners; ++c) expected += N[c] * x[static_cast<std::size_t>(corners[c] * dim + d)];
          // Reference coordinates are GLL points or multiples of 1/2: rounding only.
          EXPECT_NEAR(x[static_cast<std::size_t>(local[a] * dim + d)], expected, 1e-14)
              << name << " face " << f << " node " << a;
        }
      }
    }
    EXPECT_THROW(face_nodes(kind.type, kind.order, n_faces(kind.type), std::array<int, max_face_nodes>{}.data()),
                 Error);
  }
}

TEST(MeshFaces, NormalsPointOutwardAndTheFacesCloseTheElement) {
  for (const Kind kind : kinds) {
    const std::string name = element_name(kind.type, kind.order);
    const int dim = dimension(kind.type);
    const FaceType shape = face_type(kind.type);
    const std::vector<double> x = reference_nodes(kind.type, kind.order);
    std::array<double, 3> centroid{0.0, 0.0, 0.0};
    const int n_nodes = nodes_per_element(kind.type, kind.order);
    for (int a = 0; a < n_nodes; ++a)
      for (int d = 0; d < dim; ++d)
        centroid[static_cast<std::size_t>(d)] += x[static_cast<std::size_t>(a * dim + d)] / n_nodes;
    std::array<double, 3> closure{0.0, 0.0, 0.0};
    double flux = 0.0, total_area = 0.0;
    for (int f = 0; f < n_faces(kind.type); ++f) {
      int local[max_face_nodes];
      const int n = face_nodes(kind.type, kind.order, f, local);
      const std::vector<double> y = face_coordinates(x, dim, local, n);
      // A pressure of -1 gives f_a = int N_a n dA; their sum is int n dA = area * n (flat face).
      std::vector<double> forces;
      fem::pressure_forces(shape, kind.order, dim, y, -1.0, forces);
      std::array<double, 3> normal{0.0, 0.0, 0.0}, face_centre{0.0, 0.0, 0.0};
      for (int a = 0; a < n; ++a)
        for (int d = 0; d < dim; ++d) {
          normal[static_cast<std::size_t>(d)] += forces[static_cast<std::size_t>(a * dim + d)];
          face_centre[static_cast<std::size_t>(d)] += y[static_cast<std::size_t>(a * dim + d)] / n;
        }
      double outward = 0.0, flux_face = 0.0;
      for (int d = 0; d < dim; ++d) {
        const auto k = static_cast<std::size_t>(d);
        outward += normal[k] * (face_centre[k] - centroid[k]);
        closure[k] += normal[k];
        flux_face += normal[k] * face_centre[k];  // int x . n dA on a flat face: n . x is constant
      }
      EXPECT_GT(outward, 0.0) << name << " face " << f << " has an inward normal";
      flux += flux_face;
      total_area += fem::face_area(shape, kind.order, dim, y);
    }
    // The faces close the element: int n dA = 0, and int x . n dA = dim * volume (divergence
    // theorem). Reference volumes: simplex 1/2 or 1/6, cube 2^dim. Rounding only.
    const bool simplex = kind.type == ElementType::Tri3 || kind.type == ElementType::Tri6 ||
                         kind.type == ElementType::Tet4 || kind.type == ElementType::Tet10;
    const double volume = simplex ? (dim == 2 ? 0.5 : 1.0 / 6.0) : (dim == 2 ? 4.0 : 8.0);
    for (double c : closure) EXPECT_NEAR(c, 0.0, 1e-13) << name;
    EXPECT_NEAR(flux, dim * volume, 1e-13) << name;
    // Perimeters and surface areas of the reference elements.
    const double expected_area =
        simplex ? (dim == 2 ? 2.0 + std::sqrt(2.0) : 1.5 + std::sqrt(3.0) / 2.0) : (dim == 2 ? 8.0 : 24.0);
    EXPECT_NEAR(total_area, expected_area, 1e-13) << name;
  }
}

// The boundary of a generated box: each side's faces appear once, nothing interior is kept, and
// the faces close the domain.
TEST(MeshFaces, BoundaryFacesOfGeneratedMeshesCloseTheDomain) {
  const std::array<double, 3> size{0.3, 0.2, 0.5};
  for (const Kind kind : kinds) {
    const std::string name = element_name(kind.type, kind.order);
    const int dim = dimension(kind.type);
    const Mesh mesh = dim == 2 ? generate_rectangle({0.1, -0.2}, {size[0], size[1]}, {3, 2}, kind.type, kind.order)
                               : generate_box({0.1, -0.2, 0.0}, size, {2, 3, 2}, kind.type, kind.order);
    const std::vector<Face> boundary = boundary_faces(mesh);
    // Cell faces on the boundary: 2 (nx ny + ny nz + nx nz) in 3D, 2 (nx + ny) in 2D; triangles
    // and tetrahedra split each cell face in two.
    const bool simplex = kind.type == ElementType::Tri3 || kind.type == ElementType::Tri6 ||
                         kind.type == ElementType::Tet4 || kind.type == ElementType::Tet10;
    const std::size_t cell_faces = dim == 2 ? 2 * (3 + 2) : 2 * (2 * 3 + 3 * 2 + 2 * 2);
    EXPECT_EQ(boundary.size(), dim == 3 && simplex ? 2 * cell_faces : cell_faces) << name;
    EXPECT_TRUE(std::is_sorted(boundary.begin(), boundary.end()));
    EXPECT_EQ(std::adjacent_find(boundary.begin(), boundary.end()), boundary.end()) << name;

    // The side surfaces partition the boundary.
    std::vector<Face> sides;
    const char* names[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
    double area_sum = 0.0;
    for (int s = 0; s < 2 * dim; ++s) {
      ASSERT_TRUE(mesh.face_sets.count(names[s])) << name << " " << names[s];
      const std::vector<Face>& faces = mesh.face_sets.at(names[s]);
      sides.insert(sides.end(), faces.begin(), faces.end());
      const int axis = s / 2;
      double area = 0.0;
      for (const Face& face : faces) {
        const ElementBlock& block = mesh.blocks[0];
        int local[max_face_nodes];
        const int n = face_nodes(block.type, block.order, face.face, local);
        std::vector<double> y;
        for (int a = 0; a < n; ++a)
          for (double c : mesh.node(block.nodes(face.element)[static_cast<std::size_t>(local[a])])) y.push_back(c);
        area += fem::face_area(face_type(block.type), block.order, dim, y);
      }
      double expected = 1.0;
      for (int d = 0; d < dim; ++d)
        if (d != axis) expected *= size[static_cast<std::size_t>(d)];
      EXPECT_NEAR(area, expected, 1e-14) << name << " " << names[s];  // sums of exact face areas
      area_sum += area;
    }
    normalise_faces(sides);
    EXPECT_EQ(sides, boundary) << name;

    // Divergence theorem over the whole mesh: sum int x . n dA = dim * volume, int n dA = 0, with
    // the consistent forces of a unit negative pressure (int N_a n dA) dotted with the node positions.
    double flux = 0.0;
    std::array<double, 3> closure{0.0, 0.0, 0.0};
    for (const Face& face : boundary) {
      const ElementBlock& block = mesh.blocks[0];
      int local[max_face_nodes];
      const int n = face_nodes(block.type, block.order, face.face, local);
      std::vector<double> y;
      for (int a = 0; a < n; ++a)
        for (double c : mesh.node(block.nodes(face.element)[static_cast<std::size_t>(local[a])])) y.push_back(c);
      std::vector<double> forces;
      fem::pressure_forces(face_type(block.type), block.order, dim, y, -1.0, forces);
      // int x . n dA = sum_a x_a . int N_a n dA on straight-sided faces (x is interpolated by N_a).
      for (int a = 0; a < n; ++a)
        for (int d = 0; d < dim; ++d) {
          flux += y[static_cast<std::size_t>(a * dim + d)] * forces[static_cast<std::size_t>(a * dim + d)];
          closure[static_cast<std::size_t>(d)] += forces[static_cast<std::size_t>(a * dim + d)];
        }
    }
    const double volume = dim == 2 ? size[0] * size[1] : size[0] * size[1] * size[2];
    EXPECT_NEAR(flux, dim * volume, 1e-14) << name;
    for (double c : closure) EXPECT_NEAR(c, 0.0, 1e-14) << name;
  }
}

TEST(MeshFaces, IndexFindsInteriorFacesTwiceAndBoundaryFacesOnce) {
  const Mesh mesh = generate_box({0.0, 0.0, 0.0}, {2.0, 1.0, 1.0}, {2, 1, 1}, ElementType::Hex8);
  const FaceIndex index(mesh);
  // Nodes are numbered x fastest on a 3 x 2 x 2 lattice: the shared face is the plane x = 1.
  const Index shared[4] = {1, 4, 7, 10};
  const std::vector<Face> both = index.find(shared);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0], (Face{0, 3}));  // x = +1 side of the first cell
  EXPECT_EQ(both[1], (Face{1, 5}));  // x = -1 side of the second
  const Index scrambled[4] = {10, 1, 7, 4};
  EXPECT_EQ(index.find(scrambled), both);
  const Index end[4] = {0, 3, 6, 9};
  EXPECT_EQ(index.find(end), (std::vector<Face>{{0, 5}}));
  const Index diagonal[4] = {0, 4, 6, 10};
  EXPECT_TRUE(index.find(diagonal).empty());
  EXPECT_EQ(index.boundary().size(), 10u);
}

// The flags of the elements whose centroid lies below z = 1 (y = 1 in 2D).
std::vector<bool> below_one(const Mesh& mesh) {
  std::vector<bool> inside;
  const std::size_t axis = static_cast<std::size_t>(mesh.dim() - 1);
  for (const auto& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e) {
      double centroid = 0.0;
      for (const Index node : block.nodes(e)) centroid += mesh.node(node)[axis];
      inside.push_back(centroid / static_cast<double>(block.n_element_nodes()) < 1.0);
    }
  return inside;
}

// Two regions of a box cut by the plane z = 1 (y = 1 in 2D): their interface is the faces in that
// plane, each once, the lower element's first, every node of them on the plane; no touch.
TEST(MeshFaces, RegionInterfaceIsTheFacesTheRegionsShare) {
  for (const Kind kind : kinds) {
    const int dim = dimension(kind.type);
    const Mesh mesh = dim == 2 ? generate_rectangle({0.0, 0.0}, {2.0, 2.0}, {2, 2}, kind.type, kind.order)
                               : generate_box({0.0, 0.0, 0.0}, {2.0, 2.0, 2.0}, {2, 2, 2}, kind.type, kind.order);
    const std::vector<bool> inside = below_one(mesh);
    const RegionInterface interface = region_interface(mesh, inside);
    // A square cut in two: 2 edges; a cube's plane: 4 squares, or 8 triangles of the tetrahedra.
    const bool tets = kind.type == ElementType::Tet4 || kind.type == ElementType::Tet10;
    const std::size_t expected = dim == 2 ? 2 : (tets ? 8 : 4);
    EXPECT_EQ(interface.faces.size(), expected) << element_name(kind.type, kind.order);
    EXPECT_TRUE(interface.touching.empty()) << element_name(kind.type, kind.order);
    for (const auto& pair : interface.faces) {
      EXPECT_TRUE(inside[static_cast<std::size_t>(pair[0].element)]);
      EXPECT_FALSE(inside[static_cast<std::size_t>(pair[1].element)]);
      for (const Face& face : pair) {
        const ElementRef ref = mesh.locate(face.element);
        const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
        int local[max_face_nodes];
        const int n = face_nodes(block.type, block.order, face.face, local);
        for (int k = 0; k < n; ++k) {
          const Index node = block.nodes(ref.element)[static_cast<std::size_t>(local[k])];
          EXPECT_NEAR(mesh.node(node)[static_cast<std::size_t>(dim - 1)], 1.0, 1e-12);
        }
      }
    }
    // Nothing flagged, or everything: no interface.
    EXPECT_TRUE(region_interface(mesh, std::vector<bool>(inside.size(), false)).faces.empty());
    EXPECT_TRUE(region_interface(mesh, std::vector<bool>(inside.size(), true)).faces.empty());
  }
}

// Two quadrilaterals that share a corner node only: no face between them, the node a touch.
TEST(MeshFaces, RegionsTouchingAtACornerShareNoFace) {
  Mesh mesh(2);
  const double xy[7][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {2, 1}, {2, 2}, {1, 2}};
  for (int i = 0; i < 7; ++i) mesh.add_node(i + 1, xy[i]);
  ElementBlock& block = mesh.block_for(ElementType::Quad4);
  block.connectivity = {0, 1, 2, 3, 2, 4, 5, 6};
  block.labels = {1, 2};
  const RegionInterface interface = region_interface(mesh, {true, false});
  EXPECT_TRUE(interface.faces.empty());
  ASSERT_EQ(interface.touching.size(), 1u);
  EXPECT_EQ(interface.touching[0].node, 2);
  EXPECT_EQ(interface.touching[0].inside, 0);
  EXPECT_EQ(interface.touching[0].outside, 1);
  EXPECT_THROW(region_interface(mesh, {true}), Error);
}

}  // namespace
}  // namespace tremor
