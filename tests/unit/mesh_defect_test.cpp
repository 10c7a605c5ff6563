// Thickness-loss defects (mesh/defect.hpp, the model file's [[mesh.defect]]): the paper's random
// recipe (an outline between R1 and R2, depths in (0, max], the same for a seed on every machine),
// depth maps, how the plate's nodes follow (through the thickness, GLL and hex20 nodes by their
// element's corners), and the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "support/support.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/mesh/defect.hpp"
#include "tremor/mesh/elevate.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using test::error_of;
using test::expect_contains;

// The paper's defect: R1 = 5 mm, R2 = 10 mm, 0.5 mm deep at most, here at (1 mm, -2 mm).
Defect paper_defect(std::uint64_t seed = 7) {
  Defect d;
  d.name = "corrosion";
  d.centre = {1e-3, -2e-3};
  d.inner_radius = 5e-3;
  d.outer_radius = 10e-3;
  d.outline_points = 12;
  d.max_depth = 0.5e-3;
  d.seed = seed;
  return d;
}

// A 40 x 40 x 2 mm plate of 1 mm hex8 cells, 4 through the thickness, centred on x = y = 0.
Mesh plate(ElementType type = ElementType::Hex8, int order = 1) {
  return generate_box({-0.02, -0.02, 0.0}, {0.04, 0.04, 0.002}, {40, 40, 4}, type, order);
}

TEST(Defect, OutlineLiesBetweenTheCirclesAndIsTheSameForASeed) {
  const Defect d = paper_defect();
  const auto outline = d.outline();
  ASSERT_EQ(outline.size(), 12u);
  std::set<double> radii;
  for (std::size_t k = 0; k < outline.size(); ++k) {
    const double dx = outline[k][0] - d.centre[0], dy = outline[k][1] - d.centre[1];
    const double r = std::hypot(dx, dy);
    EXPECT_GE(r, d.inner_radius);
    EXPECT_LE(r, d.outer_radius);
    // At equal angles, counter-clockwise from +x.
    EXPECT_NEAR(std::atan2(dy, dx), std::remainder(2.0 * M_PI * static_cast<double>(k) / 12.0, 2.0 * M_PI), 1e-12);
    radii.insert(r);
  }
  EXPECT_EQ(radii.size(), 12u);  // random radii: no two alike
  EXPECT_EQ(paper_defect().outline(), outline);
  EXPECT_NE(paper_defect(8).outline(), outline);
  // The same seed gives these numbers on every machine: the hash is fixed (a change here changes
  // every defect users have described by its seed).
  EXPECT_NEAR(std::hypot(outline[0][0] - d.centre[0], outline[0][1] - d.centre[1]), 9.8300257283119932e-3, 1e-17);
  EXPECT_NEAR(std::hypot(outline[5][0] - d.centre[0], outline[5][1] - d.centre[1]), 6.6485399055108262e-3, 1e-17);
  EXPECT_EQ(d.corner_depth(1e-3, -2e-3), 3.3409202365585974e-4);
  EXPECT_DOUBLE_EQ(d.corner_depth(1e-3, -2e-3), d.corner_depth(1e-3 + 1e-13, -2e-3));  // rounded to 1 nm
}

TEST(Defect, DepthsLieInTheFootprintUpToTheMaximum) {
  const Defect d = paper_defect();
  int inside = 0, deeper_than_half = 0;
  for (int i = -15; i <= 15; ++i)
    for (int j = -15; j <= 15; ++j) {
      const double x = 1e-3 * i, y = 1e-3 * j;
      const double depth = d.corner_depth(x, y);
      const double r = std::hypot(x - d.centre[0], y - d.centre[1]);
      if (r < d.inner_radius) {
        EXPECT_TRUE(d.inside(x, y)) << x << " " << y;
      }
      if (r > d.outer_radius) {
        EXPECT_FALSE(d.inside(x, y)) << x << " " << y;
      }
      if (!d.inside(x, y)) {
        EXPECT_EQ(depth, 0.0);
        continue;
      }
      ++inside;
      EXPECT_GT(depth, 0.0);
      EXPECT_LE(depth, d.max_depth);
      deeper_than_half += depth > 0.5 * d.max_depth;
    }
  // Between the circles' areas (78 and 314 points of 1 mm), and uniform depths: about half deeper
  // than half the maximum (binomial: 3 standard deviations of the count).
  EXPECT_GT(inside, 78);
  EXPECT_LT(inside, 314);
  EXPECT_NEAR(deeper_than_half, inside / 2.0, 3.0 * std::sqrt(inside / 4.0));
}

TEST(Defect, ThePlateFollowsThroughItsThickness) {
  Mesh mesh = plate();
  const Mesh before = mesh;
  const Defect d = paper_defect();
  const auto effects = apply_defects(mesh, std::span(&d, 1), "plate");
  ASSERT_EQ(effects.size(), 1u);
  Index top_inside = 0;
  for (Index n = 0; n < mesh.n_nodes(); ++n) {
    const auto x = before.node(n);
    const double depth = d.corner_depth(x[0], x[1]);
    // Lowered by depth at the top, not at all at the bottom, linearly between.
    EXPECT_NEAR(mesh.node(n)[2], x[2] - depth * x[2] / 0.002, 1e-15) << "node " << n;
    EXPECT_EQ(mesh.node(n)[0], x[0]);
    EXPECT_EQ(mesh.node(n)[1], x[1]);
    top_inside += x[2] == 0.002 && depth > 0.0;
  }
  EXPECT_EQ(effects[0].corners, top_inside);
  EXPECT_GT(effects[0].deepest, 0.4e-3);  // the deepest of ~200 uniform draws in (0, 0.5] mm
  EXPECT_LE(effects[0].deepest, 0.5e-3);
  // A bottom defect raises the bottom the same way.
  Mesh bottom = plate();
  Defect under = d;
  under.side = Defect::Side::Bottom;
  apply_defects(bottom, std::span(&under, 1), "plate");
  for (Index n = 0; n < bottom.n_nodes(); ++n) {
    const auto x = before.node(n);
    EXPECT_NEAR(bottom.node(n)[2], x[2] + d.corner_depth(x[0], x[1]) * (0.002 - x[2]) / 0.002, 1e-15);
  }
}

// Raised to GLL order 4 after the defect (the GLL points on the lowered hex8 elements' maps) or
// before it (moved by their elements' corners): the same mesh. The GLL points follow smoothly.
TEST(Defect, GllNodesFollowTheirElementsCorners) {
  const Defect d = paper_defect();
  Mesh first = plate();
  apply_defects(first, std::span(&d, 1), "plate");
  const Mesh raised_after = elevate_order(first, 4, "plate");
  Mesh raised_before = elevate_order(plate(), 4, "plate");
  apply_defects(raised_before, std::span(&d, 1), "plate");
  ASSERT_EQ(raised_before.n_nodes(), raised_after.n_nodes());
  double worst = 0.0;
  for (std::size_t i = 0; i < raised_after.coordinates.size(); ++i)
    worst = std::max(worst, std::abs(raised_before.coordinates[i] - raised_after.coordinates[i]));
  EXPECT_LT(worst, 1e-17);  // 1e-14 of the 2 mm thickness: rounding
}

// Hex20: each mid-edge node stays at the middle of its edge.
TEST(Defect, Hex20MidEdgeNodesStayMidway) {
  Mesh mesh = generate_box({-0.02, -0.02, 0.0}, {0.04, 0.04, 0.002}, {20, 20, 2}, ElementType::Hex20);
  const Defect d = paper_defect();
  apply_defects(mesh, std::span(&d, 1), "plate");
  const ElementBlock& block = mesh.blocks.front();
  const int ends[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  double worst = 0.0;
  for (Index e = 0; e < block.n_elements(); ++e) {
    const auto nodes = block.nodes(e);
    for (int m = 0; m < 12; ++m)
      for (int c = 0; c < 3; ++c)
        worst = std::max(worst, std::abs(mesh.node(nodes[static_cast<std::size_t>(8 + m)])[static_cast<std::size_t>(c)] -
                                         0.5 * (mesh.node(nodes[static_cast<std::size_t>(ends[m][0])])[static_cast<std::size_t>(c)] +
                                                mesh.node(nodes[static_cast<std::size_t>(ends[m][1])])[static_cast<std::size_t>(c)])));
  }
  EXPECT_LT(worst, 1e-18);
}

TEST(Defect, RefusesWhatItCannotDo) {
  const Defect d = paper_defect();
  Mesh flat = generate_rectangle({0, 0}, {0.04, 0.04}, {4, 4}, ElementType::Quad4);
  expect_contains(error_of([&] { apply_defects(flat, std::span(&d, 1), "m.toml"); }), {"defect 'corrosion'", "a 3D plate"});
  Mesh tets = generate_box({-0.02, -0.02, 0.0}, {0.04, 0.04, 0.002}, {4, 4, 1}, ElementType::Tet4);
  expect_contains(error_of([&] { apply_defects(tets, std::span(&d, 1), "m.toml"); }), {"hexahedra", "tet4"});
  Defect deep = d;
  deep.max_depth = 1.9e-3;
  Mesh mesh = plate();
  expect_contains(error_of([&] { apply_defects(mesh, std::span(&deep, 1), "m.toml"); }),
                  {"defect 'corrosion'", "1.9 mm deep in a plate of 2 mm", "90%"});
  Defect tiny = d;
  tiny.inner_radius = 0.1e-3;
  tiny.outer_radius = 0.2e-3;
  tiny.centre = {0.5e-3, 0.5e-3};  // between corners of the 1 mm grid
  mesh = plate();
  expect_contains(error_of([&] { apply_defects(mesh, std::span(&tiny, 1), "m.toml"); }),
                  {"holds no element corner", "top surface"});
  // Two defects of 1.2 mm at the same place take more than the 2 mm plate's 1.8 mm allowed each...
  // together: the columns under both are crushed to 0.4 mm at most, 20% of 2 mm: refused when
  // an edge falls below 10%.
  Defect a = d, b = d;
  a.max_depth = b.max_depth = 1.79e-3;
  b.name = "second";
  const Defect both[] = {a, b};
  mesh = plate();
  expect_contains(error_of([&] { apply_defects(mesh, both, "m.toml"); }), {"m.toml: element ", "the defects"});
}

TEST(DepthGrid, ReadsAGridAndInterpolatesBilinearly) {
  const DepthGrid grid = parse_depth_grid("# depths, m\nx0,x1,x2\n0,1e-4,2e-4\n1e-4,2e-4,3e-4\n", "d.csv", {0.0, 0.0},
                                          {1e-3, 2e-3});
  EXPECT_EQ(grid.nx, 3);
  EXPECT_EQ(grid.ny, 2);
  EXPECT_DOUBLE_EQ(grid.at(0.0, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(grid.at(2e-3, 2e-3), 3e-4);
  EXPECT_NEAR(grid.at(0.5e-3, 1e-3), 1e-4, 1e-18);  // the mean of the four around it
  EXPECT_EQ(grid.at(-1e-3, 0.0), 0.0);              // outside
  EXPECT_EQ(grid.at(0.0, 2.5e-3), 0.0);
  expect_contains(error_of([] { (void)parse_depth_grid("0,1\n0,1,2\n", "d.csv", {0, 0}, {1, 1}); }),
                  {"d.csv:2: a row of 3 depths; the first row has 2"});
  expect_contains(error_of([] { (void)parse_depth_grid("0,1\n0,-1\n", "d.csv", {0, 0}, {1, 1}); }),
                  {"d.csv:2: depth 2 '-1' is not a finite number of at least 0"});
  expect_contains(error_of([] { (void)parse_depth_grid("# none\n", "d.csv", {0, 0}, {1, 1}); }), {"d.csv: no row of depths"});
}

// The model file's [[mesh.defect]]: the random recipe and a depth map beside the model file.
TEST(DefectModelFile, ReadsTheRecipeAndAMap) {
  const std::string dir = test::temporary_directory("defect");
  std::ofstream(dir + "/depth.csv") << "0,0,0\n0,4e-4,0\n0,0,0\n";
  const std::string mesh = "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\norigin = [-0.02, -0.02, 0.0]\n"
                           "size = [0.04, 0.04, 0.002]\ndivisions = [40, 40, 4]\n";
  const std::string rest = "[[material]]\nname = \"al\"\ndensity = 2700.0\nyoungs_modulus = 70e9\npoisson_ratio = 0.33\n";
  const Model model = io::read_model_buffer(
      mesh + "[[mesh.defect]]\nname = \"corrosion\"\ncentre = [1e-3, -2e-3]\ninner_radius = 5e-3\nouter_radius = 10e-3\n"
             "points = 12\nmax_depth = 0.5e-3\nseed = 7\n"
             "[[mesh.defect]]\nside = \"bottom\"\nmap = \"depth.csv\"\norigin = [0.01, 0.01]\nspacing = [1e-3, 1e-3]\n" +
          rest,
      dir + "/m.toml", dir);
  ASSERT_EQ(model.defects.size(), 2u);
  EXPECT_EQ(model.defects[0].outline(), paper_defect().outline());
  EXPECT_EQ(model.defects[1].name, "defect 2");
  EXPECT_EQ(model.defects[1].side, Defect::Side::Bottom);
  EXPECT_EQ(model.defect_effects[1].corners, 1);  // the one positive depth of the map
  EXPECT_NEAR(model.defect_effects[1].deepest, 4e-4, 1e-15);  // bilinear at a grid point, to rounding
  const auto fails = [&](const std::string& defect) {
    return error_of([&] { (void)io::read_model_buffer(mesh + "[[mesh.defect]]\n" + defect + rest, dir + "/m.toml", dir); });
  };
  expect_contains(fails("centre = [0, 0]\ninner_radius = 5e-3\nouter_radius = 4e-3\nmax_depth = 1e-4\n"),
                  {"m.toml:10: [[mesh.defect]] #1: 'outer_radius' is 0.004; expected more than 'inner_radius'"});
  expect_contains(fails("centre = [0, 0]\ninner_radius = 5e-3\nouter_radius = 6e-3\nmax_depth = 1e-4\npoints = 2\n"),
                  {"'points' is 2; expected the outline's points, 3..10000"});
  expect_contains(fails("map = \"depth.csv\"\norigin = [0, 0]\nspacing = [1e-3, 1e-3]\nmax_depth = 1e-4\n"),
                  {"'max_depth' belongs to the random recipe"});
  expect_contains(fails("name = \"x\"\n"), {"a defect takes the random recipe"});
  expect_contains(fails("map = \"nothere.csv\"\norigin = [0, 0]\nspacing = [1e-3, 1e-3]\n"), {"depth map 'nothere.csv' not found"});
  expect_contains(fails("centre = [0, 0]\ninner_radius = 5e-3\nouter_radius = 6e-3\nmax_depth = 1e-4\nradius = 1\n"),
                  {"radius"});
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tremor
