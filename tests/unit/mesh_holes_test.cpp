// Side-drilled holes ([[mesh.hole]], mesh/holes.hpp): the elements whose centroids lie in the disc
// (2D) or the cylinder (3D) removed, their faces against the rest the hole's wall, unused nodes
// dropped and every set renumbered.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "support/support.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/mesh/faces.hpp"

namespace tremor {
namespace {

using test::error_of;
using test::expect_contains;

// 10 x 10 mm of 1 mm quad4 cells.
const std::string square =
    "[mesh]\ngenerator = \"rectangle\"\nelement = \"quad4\"\nsize = [0.01, 0.01]\ndivisions = [10, 10]\n"
    "[[mesh.node_set]]\nname = \"middle\"\nmin = [0.0, 0.005]\nmax = [0.01, 0.005]\n"
    "[[material]]\nname = \"steel\"\ndensity = 7850.0\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n"
    "[[section]]\nelement_set = \"all\"\nmaterial = \"steel\"\nformulation = \"plane_strain\"\nthickness = 1.0\n";

Model read(const std::string& text) { return io::read_model_buffer(text, "m.toml", ""); }

TEST(Holes, RemoveTheElementsInsideAndNameTheirWall) {
  // 1.2 mm about (5, 5) mm: the four cells around the centre node (centroids 0.71 mm away).
  const Model model = read(square + "[[mesh.hole]]\ncentre = [0.005, 0.005]\nradius = 1.2e-3\n");
  const Mesh& mesh = model.mesh;
  ASSERT_EQ(model.holes.size(), 1u);
  EXPECT_EQ(model.holes[0].name, "hole1");
  EXPECT_EQ(model.holes[0].removed, 4);
  EXPECT_EQ(mesh.n_elements(), 96);
  EXPECT_EQ(mesh.n_nodes(), 120);  // the centre node went with its four cells
  EXPECT_EQ(mesh.element_sets.at("all").size(), 96u);
  // The node set along y = 5 mm lost its middle node; labels travel with the nodes.
  EXPECT_EQ(mesh.node_sets.at("middle").size(), 10u);
  for (const Index node : mesh.node_sets.at("middle")) {
    EXPECT_NEAR(mesh.node(node)[1], 0.005, 1e-15);
    EXPECT_GT(std::abs(mesh.node(node)[0] - 0.005), 1e-4);
  }
  // The wall: 8 faces of 1 mm around the 2 x 2 mm square, each facing its centre.
  const std::vector<Face>& wall = mesh.face_sets.at("hole1");
  ASSERT_EQ(wall.size(), 8u);
  EXPECT_EQ(model.holes[0].wall_faces, 8);
  for (const Face& face : wall) {
    const FacePlane plane = face_plane(mesh, face);
    const double to_centre = (0.005 - plane.centre[0]) * plane.normal[0] + (0.005 - plane.centre[1]) * plane.normal[1];
    EXPECT_GT(to_centre, 0.0);  // outward from the solid: into the hole
    EXPECT_NEAR(std::hypot(plane.normal[0], plane.normal[1]), 1e-3, 1e-15);
    EXPECT_LE(std::max(std::abs(plane.centre[0] - 0.005), std::abs(plane.centre[1] - 0.005)), 1e-3 + 1e-15);
  }
  // The generated surfaces keep their faces, renumbered.
  EXPECT_EQ(mesh.face_sets.at("xmin").size(), 10u);
  mesh.validate("m.toml");
}

TEST(Holes, RefuseWhatIsNoHole) {
  const auto fails = [&](const std::string& holes) { return error_of([&] { (void)read(square + holes); }); };
  expect_contains(fails("[[mesh.hole]]\ncentre = [0.005, 0.005]\nradius = 0.2e-3\n"),
                  {"m.toml:", "hole 'hole1' of radius 0.0002 m holds no element's centre; refine the mesh there"});
  expect_contains(fails("[[mesh.hole]]\nname = \"edge\"\ncentre = [0.001, 0.005]\nradius = 1.2e-3\n"),
                  {"hole 'edge' reaches the mesh's boundary", "a hole lies inside the part"});
  expect_contains(fails("[[mesh.hole]]\ncentre = [0.005, 0.005]\nradius = 1.2e-3\n"
                        "[[mesh.hole]]\ncentre = [0.006, 0.005]\nradius = 1.2e-3\n"),
                  {"hole 'hole2' overlaps hole 'hole1' (m.toml:"});
  expect_contains(fails("[[mesh.hole]]\nname = \"xmin\"\ncentre = [0.005, 0.005]\nradius = 1.2e-3\n"),
                  {"the mesh has a surface 'xmin' already"});
  expect_contains(fails("[[mesh.hole]]\ncentre = [0.005, 0.005]\nradius = 1.2e-3\naxis = [0.0, 0.0, 1.0]\n"),
                  {"'axis' is a 3D hole's"});
  expect_contains(fails("[[mesh.hole]]\ncentre = [0.005, 0.005]\nradius = -1.0\n"), {"radius"});
  expect_contains(fails("[[mesh.hole]]\nradius = 1e-3\n"), {"missing 'centre'"});
}

// A hole drilled through a 3D block along y: open at both ends, refused only where it breaks out
// sideways.
TEST(Holes, RunThroughA3DBlock) {
  const std::string cube = "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\nsize = [0.004, 0.004, 0.004]\n"
                           "divisions = [4, 4, 4]\n";
  const Model model = read(cube + "[[mesh.hole]]\ncentre = [0.002, 0.002, 0.002]\nradius = 0.8e-3\n"
                                  "axis = [0.0, 1.0, 0.0]\n");
  EXPECT_EQ(model.holes[0].removed, 16);  // 2 x 2 columns of 4
  EXPECT_EQ(model.mesh.n_elements(), 48);
  EXPECT_EQ(model.mesh.face_sets.at("hole1").size(), 32u);  // 8 faces around each of 4 layers
  EXPECT_EQ(model.mesh.face_sets.at("ymin").size(), 12u);   // 16 less its 4 ends
  expect_contains(error_of([&] {
                    (void)read(cube + "[[mesh.hole]]\ncentre = [0.001, 0.002, 0.002]\nradius = 0.8e-3\n"
                                      "axis = [0.0, 1.0, 0.0]\n");
                  }),
                  {"reaches the mesh's boundary sideways"});
  expect_contains(error_of([&] { (void)read(cube + "[[mesh.hole]]\ncentre = [0.002, 0.002, 0.002]\nradius = 1e-3\n"); }),
                  {"missing 'axis'"});
}

}  // namespace
}  // namespace tremor
