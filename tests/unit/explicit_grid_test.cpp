// Receiver grids on a surface ([[receiver]] grid = { min, max, count, surface }): each point at
// the surface's height over it, found among the surface's faces (explicit_fe::locate_on_surface),
// also over a thickness-loss defect; its shape functions reproduce the point (so they interpolate
// linear fields exactly); a run's grid history equals the same points recorded as positions;
// points off the surface and bad grids are refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/explicit/receivers.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/mesh/defect.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::locate_on_surface;
using test::error_of;
using test::expect_contains;

// A 20 x 20 x 2 mm plate of 1 mm hex8 cells raised to GLL order `order`, with the paper's random
// defect (up to 0.5 mm) under its top at the centre.
Mesh dented_plate(int order) {
  Mesh mesh = generate_box({-0.01, -0.01, 0.0}, {0.02, 0.02, 0.002}, {20, 20, 2},
                           order == 1 ? ElementType::Hex8 : ElementType::HexGLL, order);
  Defect d;
  d.name = "pit";
  d.inner_radius = 4e-3;
  d.outer_radius = 6e-3;
  d.outline_points = 10;
  d.max_depth = 0.5e-3;
  d.seed = 3;
  apply_defects(mesh, std::span(&d, 1), "plate");
  return mesh;
}

TEST(SurfaceGrid, PointsSitOnTheSurfaceAndTheirWeightsReproduceThem) {
  for (const int order : {1, 2, 4}) {
    SCOPED_TRACE(order);
    const Mesh mesh = dented_plate(order);
    ReceiverGrid grid;
    grid.min = {-0.0095, -0.0095};
    grid.max = {0.0095, 0.0095};
    grid.count = {39, 39};  // 0.5 mm: on the corners' lines and between them
    std::vector<std::array<double, 2>> points;
    for (Index p = 0; p < grid.n_points(); ++p) points.push_back(grid.point(p));
    const auto found = locate_on_surface(mesh, mesh.face_sets.at("zmax"), points);
    int lowered = 0;
    for (std::size_t k = 0; k < points.size(); ++k) {
      ASSERT_TRUE(found[k]) << points[k][0] << " " << points[k][1];
      const explicit_fe::SurfacePoint& at = *found[k];
      EXPECT_EQ(at.position[0], points[k][0]);
      EXPECT_EQ(at.position[1], points[k][1]);
      // On the top: z = 2 mm away from the defect, lower over it (by at most 0.5 mm).
      EXPECT_LE(at.position[2], 0.002 + 1e-15);
      EXPECT_GE(at.position[2], 0.0015 - 1e-15);
      lowered += at.position[2] < 0.002 - 1e-12;
      // The weights are a partition of unity reproducing the point: linear fields exactly. Only
      // the face's nodes carry weight.
      double sum = 0.0, x[3] = {0.0, 0.0, 0.0};
      for (std::size_t a = 0; a < at.location.nodes.size(); ++a) {
        sum += at.location.weights[a];
        for (int c = 0; c < 3; ++c) x[c] += at.location.weights[a] * mesh.node(at.location.nodes[a])[static_cast<std::size_t>(c)];
      }
      EXPECT_NEAR(sum, 1.0, 1e-13);
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(x[c], at.position[static_cast<std::size_t>(c)], 1e-15);
      EXPECT_LE(at.location.nodes.size(), static_cast<std::size_t>(order == 1 ? 8 : (order + 1) * (order + 1)));
    }
    // The defect (4-6 mm radius) covers roughly 50-110 mm^2 of the 361 mm^2: many points lowered.
    EXPECT_GT(lowered, 150);
    // Off the plate: no point.
    const std::array<double, 2> outside[] = {{0.0105, 0.0}, {0.0, -0.02}};
    for (const auto& none : locate_on_surface(mesh, mesh.face_sets.at("zmax"), outside)) EXPECT_FALSE(none);
  }
}

const std::string plate_model =
    "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\norigin = [-0.01, -0.01, 0.0]\nsize = [0.02, 0.02, 0.002]\n"
    "divisions = [20, 20, 2]\norder = 2\n"
    "[[mesh.node_set]]\nname = \"source\"\nmin = [0.0, 0.0, 0.002]\nmax = [0.0, 0.0, 0.002]\n"
    "[[material]]\nname = \"al\"\ndensity = 2700.0\nyoungs_modulus = 70e9\npoisson_ratio = 0.33\n"
    "[explicit]\nduration = 2e-6\n"
    "[[source]]\nnode_set = \"source\"\ndirection = [0.0, 0.0, -1.0]\n"
    "signal = { kind = \"tone_burst\", frequency = 1e6, cycles = 3 }\n";

// A grid's history is the history of its points given as positions (on this flat plate the grid's
// points are the positions (x, y, 2 mm)), to rounding: another element may hold a point on a
// shared edge.
TEST(SurfaceGrid, ARunRecordsTheGridAsItsPoints) {
  const std::string grid = "[[receiver]]\nname = \"area\"\nrecord = [\"displacement\", \"velocity\"]\nevery = 3\n"
                           "grid = { min = [-0.004, -0.003], max = [0.004, 0.005], count = [9, 5], surface = \"zmax\" }\n";
  std::string positions = "[[receiver]]\nname = \"area\"\nrecord = [\"displacement\", \"velocity\"]\nevery = 3\npositions = [";
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 9; ++i) positions += str(i + j ? ", " : "", "[", -0.004 + 0.001 * i, ", ", -0.003 + 0.002 * j, ", 0.002]");
  positions += "]\n";
  explicit_fe::RunOptions options;
  options.backend = "serial";
  const auto on_grid = explicit_fe::run_explicit(io::read_model_buffer(plate_model + grid, "m.toml", ""), options);
  const auto at_positions = explicit_fe::run_explicit(io::read_model_buffer(plate_model + positions, "m.toml", ""), options);
  ASSERT_EQ(on_grid.histories.size(), 1u);
  const explicit_fe::History& h = on_grid.histories.front();
  ASSERT_TRUE(h.grid);
  EXPECT_EQ(h.grid->count, (std::array<Index, 2>{9, 5}));
  EXPECT_EQ(h.n_points(), 45);
  EXPECT_EQ(h.times, at_positions.histories.front().times);
  ASSERT_EQ(h.values.size(), at_positions.histories.front().values.size());
  double largest = 0.0, worst = 0.0;
  for (std::size_t i = 0; i < h.values.size(); ++i) {
    largest = std::max(largest, std::abs(at_positions.histories.front().values[i]));
    worst = std::max(worst, std::abs(h.values[i] - at_positions.histories.front().values[i]));
  }
  ASSERT_GT(largest, 0.0);
  EXPECT_LE(worst, 1e-12 * largest);
}

TEST(SurfaceGrid, RefusesBadGridsByName) {
  const auto fails = [&](const std::string& grid) {
    return error_of([&] {
      (void)io::read_model_buffer(plate_model + "[[receiver]]\nname = \"area\"\ngrid = " + grid + "\n", "m.toml", "");
    });
  };
  expect_contains(fails("{ min = [0, 0], max = [0.001, 0.001], count = [2, 2], surface = \"top\" }"),
                  {"m.toml:", "receiver", "'area'", "no surface named 'top'"});
  expect_contains(fails("{ min = [0, 0], max = [0, 0.001], count = [2, 2], surface = \"zmax\" }"),
                  {"'max'[0] is 0, not above 'min'[0] (0) with 2 points along x"});
  expect_contains(fails("{ min = [0, 0], max = [0.001, 0.001], count = [0, 2], surface = \"zmax\" }"),
                  {"'count'[0] is 0"});
  expect_contains(fails("{ min = [0, 0], max = [0.001, 0.001], surface = \"zmax\" }"), {"missing 'count'"});
  expect_contains(fails("{ min = [0, 0], max = [0.001, 0.001], count = [2, 2], surface = \"zmax\", z = 1 }"), {"'z'"});
  // A point beyond the plate: named when the run sets up its histories.
  const Model model = io::read_model_buffer(
      plate_model + "[[receiver]]\nname = \"area\"\ngrid = { min = [0.0, 0.0], max = [0.02, 0.0], count = [3, 1], "
                    "surface = \"zmax\" }\n",
      "m.toml", "");
  expect_contains(error_of([&] { (void)explicit_fe::make_histories(model, 1e-8); }),
                  {"receiver 'area': grid point 2 at (0.02, 0) is not over surface 'zmax'"});
}

}  // namespace
}  // namespace tremor
