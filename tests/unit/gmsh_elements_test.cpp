// Gmsh -> tremor node orders. The reader derives them from reference coordinates; here they are
// compared with orders worked out by hand from the two documentations (Gmsh manual "Node
// ordering", element_type.hpp), so a slip in either derivation shows.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tremor/io/gmsh_elements.hpp"

namespace tremor::io::gmsh_detail {
namespace TREMOR_TEST_FILE {

std::vector<int> order_of(int code) {
  const auto order = gmsh_to_tremor_order(code);
  return {order.begin(), order.end()};
}

TEST(GmshElements, LinearAndMatchingQuadraticOrdersAreIdentities) {
  // Same vertices, and for tri6/quad8 the same edge order (01, 12, 20 / 01, 12, 23, 30).
  EXPECT_EQ(order_of(2), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(order_of(3), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(order_of(4), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(order_of(5), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(order_of(9), (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(order_of(16), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(GmshElements, Tet10SwapsTheLastTwoEdges) {
  // Gmsh: 4 = 01, 5 = 12, 6 = 20, 7 = 03, 8 = 23, 9 = 13; tremor: ..., 03, 13, 23.
  EXPECT_EQ(order_of(11), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 9, 8}));
}

TEST(GmshElements, Hex20EdgesInTremorsOrder) {
  // Gmsh edges: 8 = 01, 9 = 03, 10 = 04, 11 = 12, 12 = 15, 13 = 23, 14 = 26, 15 = 37, 16 = 45,
  // 17 = 47, 18 = 56, 19 = 67. tremor: 01, 12, 23, 30, 45, 56, 67, 74, 04, 15, 26, 37.
  EXPECT_EQ(order_of(17),
            (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 13, 9, 16, 18, 19, 17, 10, 12, 14, 15}));
}

TEST(GmshElements, Quad9AndHex27InTensorOrder) {
  // Lexicographic, x fastest, nodes at -1, 0, 1; Gmsh's centre node of the quad is 8.
  EXPECT_EQ(order_of(10), (std::vector<int>{0, 4, 1, 7, 8, 5, 3, 6, 2}));
  // Gmsh's hex27 faces: 20 = z-, 21 = y-, 22 = x-, 23 = x+, 24 = y+, 25 = z+, centre 26.
  EXPECT_EQ(order_of(12), (std::vector<int>{0,  8,  1,  9,  20, 11, 3,  13, 2,    // z = -1
                                            10, 21, 12, 22, 26, 23, 15, 24, 14,   // z = 0
                                            4,  16, 5,  17, 25, 18, 7,  19, 6})); // z = 1
}

TEST(GmshElements, TypeTable) {
  const GmshElementType* hex27 = find_gmsh_element_type(12);
  ASSERT_NE(hex27, nullptr);
  EXPECT_EQ(hex27->n_nodes, 27);
  EXPECT_EQ(hex27->dim, 3);
  EXPECT_TRUE(hex27->supported);
  EXPECT_EQ(hex27->type, ElementType::HexGLL);
  EXPECT_EQ(hex27->order, 2);
  const GmshElementType* line3 = find_gmsh_element_type(8);
  ASSERT_NE(line3, nullptr);
  EXPECT_EQ(line3->n_nodes, 3);
  EXPECT_FALSE(line3->supported);
  EXPECT_EQ(find_gmsh_element_type(0), nullptr);
  EXPECT_EQ(find_gmsh_element_type(99), nullptr);
  EXPECT_TRUE(gmsh_to_tremor_order(1).empty());  // lines never become tremor elements
  // Every supported type's order is a permutation of its nodes, sized as tremor's element.
  for (int code = 1; code < 100; ++code) {
    const GmshElementType* info = find_gmsh_element_type(code);
    if (!info || !info->supported) continue;
    std::vector<int> order = order_of(code);
    ASSERT_EQ(static_cast<int>(order.size()), nodes_per_element(info->type, info->order)) << code;
    std::sort(order.begin(), order.end());
    for (int i = 0; i < info->n_nodes; ++i) EXPECT_EQ(order[static_cast<std::size_t>(i)], i) << code;
  }
}

}  // namespace
}  // namespace tremor::io::gmsh_detail
