// Holes and notches ([[mesh.hole]], [[mesh.notch]], mesh/holes.hpp): the elements whose centroids
// lie in the disc (2D) or the cylinder (3D) of a side-drilled hole, the half-cylinder or slot of a
// flat-bottom hole, the slot of a notch, removed; their faces against the rest the cavity's wall,
// unused nodes dropped and every set renumbered.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "support/support.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/mesh/faces.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

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
                  {"hole 'edge' reaches the mesh's boundary", "a side-drilled hole lies inside the part"});
  expect_contains(fails("[[mesh.hole]]\ncentre = [0.005, 0.005]\nradius = 1.2e-3\n"
                        "[[mesh.hole]]\ncentre = [0.006, 0.005]\nradius = 1.2e-3\n"),
                  {"hole 'hole2' overlaps side-drilled hole 'hole1' (m.toml:"});
  // Cells removed side by side (x 2 to 4 mm and 4 to 6 mm): one cavity, refused as touching.
  expect_contains(fails("[[mesh.hole]]\ncentre = [0.003, 0.005]\nradius = 0.75e-3\n"
                        "[[mesh.hole]]\ncentre = [0.005, 0.005]\nradius = 0.75e-3\n"),
                  {"hole 'hole2' touches side-drilled hole 'hole1' (m.toml:", "share a face", "one cavity"});
  expect_contains(fails("[[mesh.hole]]\nname = \"xmin\"\ncentre = [0.005, 0.005]\nradius = 1.2e-3\n"),
                  {"the mesh has a surface 'xmin' already"});
  expect_contains(fails("[[mesh.hole]]\ncentre = [0.005, 0.005]\nradius = 1.2e-3\naxis = [0.0, 0.0, 1.0]\n"),
                  {"'axis' is a 3D or flat-bottom hole's"});
  expect_contains(fails("[[mesh.hole]]\ncentre = [0.005, 0.005]\nradius = -1.0\n"), {"radius"});
  expect_contains(fails("[[mesh.hole]]\nradius = 1e-3\n"), {"missing 'centre'", "or 'bottom'"});
  expect_contains(fails("[[mesh.hole]]\ncentre = [0.005, 0.005]\nbottom = [0.005, 0.005]\nradius = 1e-3\n"),
                  {"both 'centre' and 'bottom'"});
  expect_contains(fails("[[mesh.hole]]\nbottom = [0.005, 0.005]\nradius = 1e-3\n"), {"missing 'axis'", "out of the part"});
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

// A notch whose bottom lies on the top face and whose axis points into the part cuts a slot through
// it, leaving two pieces: said, naming the cuts; the notch of the test below, which leaves one, is not.
TEST(Holes, ACutThatSplitsThePartIsSaid) {
  const auto split = [&](const std::string& more) {
    const log::Quiet quiet;
    (void)read(square + more);
    const auto warnings = log::take_warnings();
    return std::count_if(warnings.begin(), warnings.end(), [](const std::string& w) {
      return w.find("m.toml: the holes, notches and cracks ('n') cut the mesh into 2 pieces where it had 1") !=
             std::string::npos;
    });
  };
  EXPECT_EQ(split("[[mesh.notch]]\nname = \"n\"\nbottom = [0.0055, 0.01]\naxis = [0.0, -1.0]\nwidth = 0.5e-3\n"), 1);
  EXPECT_EQ(split("[[mesh.notch]]\nname = \"n\"\nbottom = [0.0015, 0.007]\naxis = [0.0, 2.0]\nwidth = 0.5e-3\n"), 0);
}

// A flat-bottom hole drilled 3 mm up from the bottom face (2D: a slot 2 radii wide) and a notch
// 3 mm down from the top: open on their faces, their walls the rest.
TEST(Holes, FlatBottomHolesAndNotchesOpenOnTheirSurface) {
  const Model model = read(square +
                           "[[mesh.hole]]\nname = \"fbh\"\nbottom = [0.005, 0.003]\naxis = [0.0, -1.0]\nradius = 1e-3\n"
                           "[[mesh.notch]]\nbottom = [0.0015, 0.007]\naxis = [0.0, 2.0]\nwidth = 0.5e-3\n");
  ASSERT_EQ(model.holes.size(), 2u);
  const Hole& fbh = model.holes[0];
  const Hole& notch = model.holes[1];
  EXPECT_EQ(fbh.kind, Hole::Kind::flat_bottom);
  EXPECT_EQ(notch.kind, Hole::Kind::notch);
  EXPECT_EQ(notch.name, "notch1");
  EXPECT_NEAR(notch.axis[1], 1.0, 1e-15);  // made unit
  // The two columns of cells centred 0.5 mm either side of x = 5 mm, 3 deep (centroids 0.5, 1.5,
  // 2.5 mm up); the notch: the column at x = 1.5 mm, 3 deep (centroids 7.5 to 9.5 mm).
  EXPECT_EQ(fbh.removed, 6);
  EXPECT_EQ(notch.removed, 3);
  EXPECT_EQ(model.mesh.n_elements(), 91);
  EXPECT_EQ(fbh.wall_faces, 8);    // its bottom's 2, each side's 3: the mouth is open
  EXPECT_EQ(notch.wall_faces, 7);  // its bottom and its sides
  EXPECT_EQ(model.mesh.face_sets.at("ymin").size(), 8u);  // 10 less the hole's mouth
  EXPECT_EQ(model.mesh.face_sets.at("ymax").size(), 9u);
  // The shapes' points: inside, and just past the bottom or the side.
  EXPECT_TRUE(fbh.contains({0.0059, 0.0001, 0.0}, 2));
  EXPECT_FALSE(fbh.contains({0.005, 0.0031, 0.0}, 2));
  EXPECT_FALSE(fbh.contains({0.0061, 0.001, 0.0}, 2));
  EXPECT_TRUE(notch.contains({0.0017, 0.02, 0.0}, 2));  // outside the part, on its way out
  EXPECT_FALSE(notch.contains({0.0018, 0.008, 0.0}, 2));
  model.mesh.validate("m.toml");

  const auto fails = [&](const std::string& more) { return error_of([&] { (void)read(square + more); }); };
  // 0.2 mm wide on a line of nodes: no cell's centre within 0.1 mm.
  expect_contains(fails("[[mesh.notch]]\nname = \"n\"\nbottom = [0.002, 0.007]\naxis = [0.0, 1.0]\nwidth = 0.2e-3\n"),
                  {"m.toml:", "notch 'n' of width 0.0002 m holds no element's centre"});
  expect_contains(fails("[[mesh.notch]]\nbottom = [0.0015, 0.007]\naxis = [0.0, 1.0]\n"), {"width"});
  expect_contains(fails("[[mesh.notch]]\naxis = [0.0, 1.0]\nwidth = 1e-3\n"), {"missing 'bottom'"});
  expect_contains(fails("[[mesh.notch]]\nbottom = [0.0015, 0.007]\nwidth = 1e-3\n"), {"missing 'axis'"});
  expect_contains(fails("[[mesh.notch]]\nbottom = [0.0015, 0.007]\naxis = [0.0, 1.0]\nwidth = 1e-3\nlength = 1e-3\n"),
                  {"'length' is a 3D notch's"});
  expect_contains(fails("[[mesh.hole]]\nbottom = [0.005, 0.003]\naxis = [0.0, -1.0]\nradius = 1e-3\n"
                        "[[mesh.notch]]\nbottom = [0.0055, 0.002]\naxis = [1.0, 0.0]\nwidth = 1e-3\n"),
                  {"notch 'notch1' overlaps flat-bottom hole 'hole1'"});
}

// An open cavity runs from its bottom to the first surface it meets: a notch in the left arm of a U
// (tests/data/model/u_channel.inp) pointing across the gap at the right arm removes its own arm's
// element, not the right arm's, though that one's centroid lies in its slot. Two walls of one
// name are refused.
TEST(Holes, ANotchStopsAtTheSurfaceItOpensOn) {
  const auto read_u = [](const std::string& more) {
    return io::read_model_buffer("[mesh]\nfile = \"u_channel.inp\"\n" + more, "m.toml", test::data_path("model"));
  };
  const Model model = read_u("[[mesh.notch]]\nbottom = [0.0005, 0.0015]\naxis = [1.0, 0.0]\nwidth = 0.5e-3\n");
  EXPECT_EQ(model.holes.at(0).removed, 1);
  EXPECT_EQ(model.mesh.n_elements(), 4);
  bool right_arm = false;
  for (Index e = 0; e < model.mesh.n_elements(); ++e) right_arm = right_arm || model.mesh.element_label(e) == 6;
  EXPECT_TRUE(right_arm);
  EXPECT_EQ(model.mesh.n_nodes(), 10);  // the left arm's top corners went with it
  expect_contains(error_of([&] {
                    (void)read(square + "[[mesh.hole]]\ncentre = [0.005, 0.005]\nradius = 1.2e-3\n"
                                        "[[mesh.notch]]\nname = \"hole1\"\nbottom = [0.0015, 0.007]\naxis = [0.0, 1.0]\n"
                                        "width = 0.5e-3\n");
                  }),
                  {"notch 'hole1'", "side-drilled hole 'hole1' (m.toml:", "has that name already"});
}

// A 3D notch: a slot 0.5 mm wide and 2 mm long, 2 mm down from the top of a 4 mm cube.
TEST(Holes, ANotchIn3DHasALength) {
  const std::string cube = "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\nsize = [0.004, 0.004, 0.004]\n"
                           "divisions = [4, 4, 4]\n";
  const Model model = read(cube + "[[mesh.notch]]\nbottom = [0.0015, 0.002, 0.002]\naxis = [0.0, 0.0, 1.0]\n"
                                  "width = 0.5e-3\nalong = [0.0, 1.0, 0.0]\nlength = 2e-3\n");
  const Hole& notch = model.holes.at(0);
  EXPECT_EQ(notch.removed, 4);  // x = 1.5 mm; y = 1.5 and 2.5 mm; z = 2.5 and 3.5 mm
  // Its bottom's 2, each long side's 4, each end's 2.
  EXPECT_EQ(notch.wall_faces, 14);
  EXPECT_EQ(model.mesh.face_sets.at("zmax").size(), 14u);
  EXPECT_TRUE(notch.contains({0.0016, 0.0029, 0.0021}, 3));
  EXPECT_FALSE(notch.contains({0.0016, 0.0031, 0.0021}, 3));  // past its end
  expect_contains(error_of([&] {
                    (void)read(cube + "[[mesh.notch]]\nbottom = [0.0015, 0.002, 0.002]\naxis = [0.0, 0.0, 1.0]\n"
                                      "width = 0.5e-3\nalong = [0.0, 1.0, 1.0]\nlength = 2e-3\n");
                  }),
                  {"its 'along' is not at right angles to its axis"});
  expect_contains(error_of([&] {
                    (void)read(cube + "[[mesh.notch]]\nbottom = [0.0015, 0.002, 0.002]\naxis = [0.0, 0.0, 1.0]\n"
                                      "width = 0.5e-3\n");
                  }),
                  {"missing 'along'"});
}

}  // namespace
}  // namespace tremor
