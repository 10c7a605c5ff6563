// Geometry checks name the element at fault; element sizes are the vertex distances.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/fem/element_survey.hpp"
#include "tremor/fem/elements.hpp"
#include "tremor/fem/geometry.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor::fem {
namespace TREMOR_TEST_FILE {

// A unit cube as one hex8 (labels 101..) plus a tet4 block, nodes labelled 1..
Mesh cube_mesh() {
  Mesh mesh(3);
  for (int a = 0; a < 8; ++a) {
    double xi[3];
    Hex8::node(a, xi);
    const double xyz[3] = {0.5 * (xi[0] + 1), 0.5 * (xi[1] + 1), 0.5 * (xi[2] + 1)};
    mesh.add_node(a + 1, xyz);
  }
  auto& hexes = mesh.block_for(ElementType::Hex8);
  hexes.connectivity = {0, 1, 2, 3, 4, 5, 6, 7};
  hexes.labels = {101};
  auto& tets = mesh.block_for(ElementType::Tet4);
  tets.connectivity = {0, 1, 3, 4};
  tets.labels = {202};
  return mesh;
}

std::string message_of(const Mesh& mesh) {
  try {
    check_geometry(mesh, "model.inp");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Geometry, ValidMeshPasses) { EXPECT_NO_THROW(check_geometry(cube_mesh())); }

TEST(Geometry, InvertedHexIsNamed) {
  Mesh mesh = cube_mesh();
  // Bottom and top faces swapped: a mirror image, det J < 0 everywhere.
  mesh.blocks[0].connectivity = {4, 5, 6, 7, 0, 1, 2, 3};
  const std::string message = message_of(mesh);
  EXPECT_NE(message.find("model.inp: element 101 (hex8) is inverted"), std::string::npos) << message;
}

TEST(Geometry, InvertedTetIsNamed) {
  Mesh mesh = cube_mesh();
  mesh.blocks[1].connectivity = {0, 3, 1, 4};
  const std::string message = message_of(mesh);
  EXPECT_NE(message.find("element 202 (tet4) is inverted"), std::string::npos) << message;
}

TEST(Geometry, PartlyInvertedHexIsRejected) {
  Mesh mesh = cube_mesh();
  // Node 7 (x = 0, y = 1, z = 1) pulled through the element: det J < 0 at that corner only.
  mesh.coordinates[6 * 3 + 0] = -0.2;
  mesh.coordinates[6 * 3 + 1] = -0.3;
  mesh.coordinates[6 * 3 + 2] = -0.4;
  const std::string message = message_of(mesh);
  EXPECT_NE(message.find("element 101 (hex8) is inverted"), std::string::npos) << message;
}

TEST(Geometry, DegenerateTetIsNamed) {
  Mesh mesh = cube_mesh();
  // Four coplanar nodes (z = 0): zero volume.
  mesh.blocks[1].connectivity = {0, 1, 2, 3};
  const std::string message = message_of(mesh);
  EXPECT_NE(message.find("element 202 (tet4) is degenerate"), std::string::npos) << message;
}

TEST(Geometry, CollapsedHexIsDegenerate) {
  Mesh mesh = cube_mesh();
  // The top face collapsed onto the bottom face.
  mesh.blocks[0].connectivity = {0, 1, 2, 3, 0, 1, 2, 3};
  const std::string message = message_of(mesh);
  EXPECT_NE(message.find("element 101 (hex8) is degenerate"), std::string::npos) << message;
}

TEST(Geometry, MisplacedMidEdgeNodeInvertsAQuadraticTriangle) {
  Mesh mesh(2);
  const double points[6][2] = {{0, 0}, {1, 0}, {0, 1}, {0.5, 0}, {0.5, 0.5}, {0, 0.5}};
  for (int a = 0; a < 6; ++a) mesh.add_node(a + 1, points[a]);
  auto& block = mesh.block_for(ElementType::Tri6);
  block.connectivity = {0, 1, 2, 3, 4, 5};
  block.labels = {7};
  EXPECT_NO_THROW(check_geometry(mesh));
  // The 01 mid-edge node moved past vertex 1: det J < 0 near vertex 1.
  mesh.coordinates[3 * 2] = 1.3;
  const std::string message = message_of(mesh);
  EXPECT_NE(message.find("element 7 (tri6) is inverted"), std::string::npos) << message;
}

TEST(Geometry, ElementSizesAreVertexDistances) {
  const auto sizes = element_sizes(cube_mesh());
  ASSERT_EQ(sizes.size(), 2u);
  EXPECT_DOUBLE_EQ(sizes[0].min_length, 1.0);
  EXPECT_DOUBLE_EQ(sizes[0].max_length, std::sqrt(3.0));
  EXPECT_DOUBLE_EQ(sizes[1].min_length, 1.0);
  EXPECT_DOUBLE_EQ(sizes[1].max_length, std::sqrt(2.0));
}

TEST(Geometry, GllCornersAreItsVertices) {
  Mesh mesh(2);
  for (int a = 0; a < 16; ++a) {
    double xi[2];
    QuadGll<3>::node(a, xi);
    const double xy[2] = {2.0 * xi[0], xi[1]};  // a 4 x 2 rectangle
    mesh.add_node(a + 1, xy);
  }
  auto& block = mesh.block_for(ElementType::QuadGLL, 3);
  for (int a = 0; a < 16; ++a) block.connectivity.push_back(a);
  block.labels = {5};
  EXPECT_NO_THROW(check_geometry(mesh));
  const auto sizes = element_sizes(mesh);
  EXPECT_DOUBLE_EQ(sizes[0].min_length, 2.0);
  EXPECT_DOUBLE_EQ(sizes[0].max_length, std::sqrt(20.0));
}

// GLL elements of order 2 and more: det J at their nodes summed along the lines of nodes, the same
// bits and the same worst point as the dense Jacobian at every quadrature point and node, on
// curved, distorted elements of every order in 2D and 3D; and an inverted one found as inverted.
template <int Dim, int P>
void expect_line_sums_equal_the_dense_jacobian() {
  using E = GllElement<Dim, P>;
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<double> x(static_cast<std::size_t>(E::n_nodes * Dim));
    for (int a = 0; a < E::n_nodes; ++a) {
      double xi[Dim];
      E::node(a, xi);
      for (int c = 0; c < Dim; ++c) {
        // A smooth bend and a shear, and a node-by-node jitter that no formula reproduces.
        const double jitter = 0.02 * std::sin(12.9898 * (a + 1) * (c + 1) + 78.233 * trial);
        x[static_cast<std::size_t>(a * Dim + c)] =
            (c + 1) * xi[c] + 0.15 * xi[(c + 1) % Dim] + 0.1 * std::sin(xi[(c + 2) % Dim] + trial) + jitter;
      }
    }
    if (trial == 2)  // node 0 pulled past its neighbours: det J < 0 there
      for (int c = 0; c < Dim; ++c) x[static_cast<std::size_t>(c)] += 3.0;
    int fast_where = -1, dense_where = -1;
    const double fast = worst_det<E>(x.data(), &fast_where);
    const double dense = worst_det_dense<E>(x.data(), &dense_where);
    EXPECT_EQ(fast, dense) << "order " << P << ", trial " << trial;  // bit for bit
    EXPECT_EQ(fast_where, dense_where) << "order " << P << ", trial " << trial;
    if (trial == 2) EXPECT_LT(fast, 0.0) << "order " << P;
    else EXPECT_GT(fast, 0.0) << "order " << P;
  }
}

TEST(Geometry, GllDetAlongLinesEqualsTheDenseJacobian) {
  [&]<int... P>(std::integer_sequence<int, P...>) {
    (expect_line_sums_equal_the_dense_jacobian<2, P + 2>(), ...);
    (expect_line_sums_equal_the_dense_jacobian<3, P + 2>(), ...);
  }(std::make_integer_sequence<int, 7>{});
}

}  // namespace
}  // namespace tremor::fem
