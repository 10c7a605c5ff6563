// Cracks cut into a mesh (mesh/cracks.hpp): the faces on a crack become two, the nodes inside it
// and on its mouth are copied for the elements on one side, its front's nodes stay one; what does
// not lie on element faces, leaves the mesh or meets another crack is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/mesh/cracks.hpp"
#include "tremor/mesh/faces.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using test::error_of;
using test::expect_contains;

// 10 x 5 mm of 0.5 mm quad4 cells.
Mesh block2d() { return generate_rectangle({0.0, 0.0}, {0.01, 0.005}, {20, 10}, ElementType::Quad4); }

Crack crack2d(std::array<double, 2> a, std::array<double, 2> b, std::string name = "crack") {
  Crack c;
  c.name = std::move(name);
  c.points = {{a[0], a[1], 0.0}, {b[0], b[1], 0.0}};
  c.origin = "m.toml:7";
  return c;
}

// The nodes at position (x, y).
std::vector<Index> nodes_at(const Mesh& mesh, double x, double y) {
  std::vector<Index> out;
  for (Index n = 0; n < mesh.n_nodes(); ++n)
    if (std::abs(mesh.node(n)[0] - x) < 1e-9 && std::abs(mesh.node(n)[1] - y) < 1e-9) out.push_back(n);
  return out;
}

// A surface-breaking crack 2 mm deep from the top face at x = 5 mm: four edges become eight
// faces; its mouth and the three nodes below are copied, its tip is not.
TEST(Cracks, ASurfaceBreakingCrackOpensFromItsMouthToItsTip) {
  Mesh mesh = block2d();
  const Index nodes = mesh.n_nodes();
  const std::size_t boundary = boundary_faces(mesh).size();
  std::vector<Crack> cracks{crack2d({0.005, 0.005}, {0.005, 0.003})};
  cut_cracks(mesh, cracks);
  EXPECT_EQ(cracks[0].faces, 4);
  EXPECT_EQ(cracks[0].copied_nodes, 4);
  EXPECT_EQ(mesh.n_nodes(), nodes + 4);
  EXPECT_EQ(mesh.face_sets.at("crack").size(), 8u);
  EXPECT_EQ(boundary_faces(mesh).size(), boundary + 8);  // both sides of the crack are free surfaces
  for (const double y : {0.005, 0.0045, 0.004, 0.0035}) EXPECT_EQ(nodes_at(mesh, 0.005, y).size(), 2u) << y;
  EXPECT_EQ(nodes_at(mesh, 0.005, 0.003).size(), 1u);  // the tip: closed
  // The mouth's copy is on the top face too, and takes a new label.
  const std::vector<Index> mouth = nodes_at(mesh, 0.005, 0.005);
  const std::vector<Index>& top = mesh.node_sets.at("ymax");
  for (const Index n : mouth) EXPECT_TRUE(std::binary_search(top.begin(), top.end(), n));
  EXPECT_GT(mesh.node_labels[static_cast<std::size_t>(mouth[1])], mesh.node_labels[static_cast<std::size_t>(nodes - 1)]);
  mesh.validate("cut");
}

// A buried crack: both ends are tips.
TEST(Cracks, ABuriedCrackHasTwoTips) {
  Mesh mesh = block2d();
  std::vector<Crack> cracks{crack2d({0.005, 0.004}, {0.005, 0.002})};
  cut_cracks(mesh, cracks);
  EXPECT_EQ(cracks[0].faces, 4);
  EXPECT_EQ(cracks[0].copied_nodes, 3);
  EXPECT_EQ(nodes_at(mesh, 0.005, 0.004).size(), 1u);
  EXPECT_EQ(nodes_at(mesh, 0.005, 0.002).size(), 1u);
  EXPECT_EQ(nodes_at(mesh, 0.005, 0.003).size(), 2u);
}

TEST(Cracks, RefuseWhatIsNotACrackOfTheMesh) {
  const auto refused = [](std::vector<Crack> cracks) {
    Mesh mesh = block2d();
    return error_of([&] { cut_cracks(mesh, cracks); });
  };
  // Through elements, not along their edges.
  expect_contains(refused({crack2d({0.0052, 0.005}, {0.0052, 0.003})}),
                  {"m.toml:7: crack 'crack': element faces cover 0 m of its 0.002 m", "runs through elements"});
  // Out of the mesh.
  expect_contains(refused({crack2d({0.005, 0.006}, {0.005, 0.003})}), {"cover 0.002 m of its 0.003 m", "leaves the mesh"});
  // Crossing another.
  expect_contains(refused({crack2d({0.005, 0.005}, {0.005, 0.003}), crack2d({0.004, 0.004}, {0.006, 0.004}, "across")}),
                  {"crack 'across' crosses or touches crack 'crack' (m.toml:7) at (0.005, 0.004) (node"});
  // Two of one name: the first's line.
  expect_contains(refused({crack2d({0.005, 0.005}, {0.005, 0.003}), crack2d({0.004, 0.004}, {0.003, 0.004})}),
                  {"crack 'crack' at m.toml:7 has that name already"});
  expect_contains(refused({crack2d({0.005, 0.005}, {0.005, 0.003}, "ymax")}), {"surface of that name already"});
  expect_contains(refused({crack2d({0.005, 0.005}, {0.005, 0.005})}), {"its ends are one point"});
}

// 3D: a rectangular crack in the plane x = 2 mm of a hex8 block, breaking its top face: 8 faces,
// the 6 nodes inside it or on its mouth copied; its front (three edges inside the block, and the
// two points where they meet the top face) stays closed.
TEST(Cracks, APlanarPolygonInABoxOpensInsideItsFront) {
  Mesh mesh = generate_box({0.0, 0.0, 0.0}, {4e-3, 4e-3, 2e-3}, {8, 8, 4}, ElementType::Hex8);
  const std::size_t boundary = boundary_faces(mesh).size();
  Crack crack;
  crack.name = "notch";
  crack.origin = "m.toml:9";
  crack.points = {{2e-3, 1e-3, 1e-3}, {2e-3, 3e-3, 1e-3}, {2e-3, 3e-3, 2e-3}, {2e-3, 1e-3, 2e-3}};
  std::vector<Crack> cracks{crack};
  cut_cracks(mesh, cracks);
  EXPECT_EQ(cracks[0].faces, 8);
  EXPECT_EQ(cracks[0].copied_nodes, 6);
  EXPECT_EQ(boundary_faces(mesh).size(), boundary + 16);
  mesh.validate("cut");
  // Not planar: refused.
  Mesh other = generate_box({0.0, 0.0, 0.0}, {4e-3, 4e-3, 2e-3}, {8, 8, 4}, ElementType::Hex8);
  crack.points[2][0] = 2.2e-3;
  std::vector<Crack> bent{crack};
  expect_contains(error_of([&] { cut_cracks(other, bent); }), {"m.toml:9: crack 'notch': its point", "a crack is planar"});
}

}  // namespace
}  // namespace tremor
