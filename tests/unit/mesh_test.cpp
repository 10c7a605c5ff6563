#include <gtest/gtest.h>

#include "tremor/core/error.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// Two quad4 sharing an edge: nodes 0-1-2 along the bottom, 3-4-5 along the top.
Mesh two_quads() {
  Mesh mesh(2);
  const double xy[6][2] = {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}};
  for (int i = 0; i < 6; ++i) mesh.add_node(10 + i, xy[i]);
  auto& block = mesh.block_for(ElementType::Quad4);
  block.connectivity = {0, 1, 4, 3, 1, 2, 5, 4};
  block.labels = {7, 8};
  return mesh;
}

TEST(Mesh, NodeGraphOfTwoQuads) {
  const NodeGraph graph = node_graph(two_quads());
  ASSERT_EQ(graph.n_nodes(), 6);
  // Corner nodes see their own quad (4 nodes); the shared edge's nodes see all 6.
  const Size expected[6] = {4, 6, 4, 4, 6, 4};
  for (Index i = 0; i < 6; ++i)
    EXPECT_EQ(graph.offsets[static_cast<std::size_t>(i) + 1] - graph.offsets[static_cast<std::size_t>(i)], expected[i]);
  EXPECT_EQ(graph.n_entries(), 28);
  const std::vector<Index> row1(graph.neighbours.begin() + graph.offsets[1], graph.neighbours.begin() + graph.offsets[2]);
  EXPECT_EQ(row1, (std::vector<Index>{0, 1, 2, 3, 4, 5}));
}

TEST(Mesh, NodeGraphEntriesCountedWithoutTheGraph) {
  // Two blocks of different types and a node no element uses: the count equals the graph's.
  EXPECT_EQ(node_graph_entries(two_quads()), 28);
  Mesh mixed = generate_box({0, 0, 0}, {1, 1, 1}, {3, 2, 2}, ElementType::Hex8);
  ElementBlock& tets = mixed.block_for(ElementType::Tet4);
  tets.connectivity = {0, 1, 4, 13};  // a tet over nodes some hexahedra hold, adding neighbours
  tets.labels = {100};
  const double far[3] = {9.0, 9.0, 9.0};
  mixed.add_node(1000, far);
  EXPECT_EQ(node_graph_entries(mixed), node_graph(mixed).n_entries());
  const Mesh gll = generate_box({0, 0, 0}, {1, 1, 1}, {2, 2, 1}, ElementType::HexGLL, 3);
  EXPECT_EQ(node_graph_entries(gll), node_graph(gll).n_entries());
}

TEST(Mesh, LocateAndLabels) {
  Mesh mesh = two_quads();
  auto& tris = mesh.block_for(ElementType::Tri3);
  tris.connectivity = {0, 1, 3};
  tris.labels = {99};
  EXPECT_EQ(mesh.n_elements(), 3);
  EXPECT_EQ(mesh.locate(2).block, 1);
  EXPECT_EQ(mesh.element_label(2), 99);
  EXPECT_EQ(mesh.global_index({1, 0}), 2);
  EXPECT_THROW(mesh.locate(3), Error);
}

TEST(Mesh, ReduceTo2dRejectsNodesOffThePlane) {
  Mesh mesh(3);
  const double a[3] = {0, 0, 0.5}, b[3] = {1, 0, 0.5}, c[3] = {0, 1, 0.5 + 1e-3};
  mesh.add_node(1, a);
  mesh.add_node(2, b);
  mesh.add_node(3, c);
  try {
    mesh.reduce_to_2d("plate.msh");
    FAIL() << "accepted a node off the plane";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("plate.msh"), std::string::npos) << message;
    EXPECT_NE(message.find("node 3"), std::string::npos) << message;
  }
}

TEST(Mesh, ValidateNamesTheBadElement) {
  Mesh mesh = two_quads();
  mesh.blocks[0].connectivity[5] = 17;
  try {
    mesh.validate("m.inp");
    FAIL() << "accepted an out-of-range node";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("element 8"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tremor
