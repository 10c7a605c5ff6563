// Guided-wave imaging of a thickness loss (the multi-GPU spectral-element paper, section 5): an
// 80 x 80 x 2 mm aluminium plate with absorbing edges, 0.5 mm hex8 cells, the paper's random
// defect (here R1 = 4, R2 = 7 mm, up to 0.5 mm deep) off the centre of a 30 x 30 mm inspection
// grid, and four transducers pushing on the top surface beyond the grid's corners, fired together
// (A0). The total-displacement map of the run minus the same plate without the defect (the
// baseline, the same time step) locates the defect: its -6 dB region's centroid within 2 mm of
// the footprint's, and an intersection over union at least the measured value less a margin.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tremor/explicit/solver.hpp"
#include "tremor/imaging/maps.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/mesh/defect.hpp"

namespace tremor {
namespace {

std::string plate(bool defect) {
  std::string text =
      "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\norigin = [-0.04, -0.04, 0.0]\nsize = [0.08, 0.08, 0.002]\n"
      "divisions = [160, 160, 4]\n";
  if (defect)
    text += "[[mesh.defect]]\nname = \"corrosion\"\ncentre = [0.003, -0.002]\ninner_radius = 4e-3\nouter_radius = 7e-3\n"
            "points = 12\nmax_depth = 0.5e-3\nseed = 7\n";
  text += "[[material]]\nname = \"aluminium\"\ndensity = 2700.0\nyoungs_modulus = 70e9\npoisson_ratio = 0.33\n"
          "[[absorbing]]\nkind = \"alid\"\nfaces = [\"xmin\", \"xmax\", \"ymin\", \"ymax\"]\nthickness = 0.012\n"
          // The same step with and without the defect (which lowers the automatic one): the traces
          // are subtracted sample by sample.
          "[explicit]\nduration = 40e-6\ntime_step = 4e-8\n"
          "[[receiver]]\nname = \"area\"\nevery = 4\n"
          "grid = { min = [-0.015, -0.015], max = [0.015, 0.015], count = [61, 61], surface = \"zmax\" }\n";
  for (const auto& [x, y] : {std::pair{-1, -1}, std::pair{1, -1}, std::pair{1, 1}, std::pair{-1, 1}})
    text += str("[[source]]\nposition = [", 0.022 * x, ", ", 0.022 * y, ", 0.002]\ndirection = [0.0, 0.0, -1.0]\n"
                "amplitude = 10.0\nsignal = { kind = \"tone_burst\", frequency = 2e5, cycles = 3 }\n");
  return text;
}

TEST(Imaging, TheA0MapOfTheDifferenceLocatesTheDefect) {
  const Model dented = io::read_model_buffer(plate(true), "dented.toml", "");
  const Model sound = io::read_model_buffer(plate(false), "sound.toml", "");
  explicit_fe::RunOptions options;
  options.backend = "openmp";
  const explicit_fe::ExplicitRun run = explicit_fe::run_explicit(dented, options);
  const explicit_fe::ExplicitRun baseline = explicit_fe::run_explicit(sound, options);
  ASSERT_TRUE(run.ok() && baseline.ok());
  const explicit_fe::History& h = run.histories.front();
  const explicit_fe::History& b = baseline.histories.front();
  ASSERT_TRUE(h.grid);
  ASSERT_EQ(h.times, b.times);
  const std::size_t n_samples = h.n_samples(), n_points = static_cast<std::size_t>(h.n_points());
  // The out-of-plane displacement (component z of the one quantity), the dented minus the sound.
  imaging::GridMap map = imaging::peak_map(
      h.grid->count[0], h.grid->count[1], n_samples, 0, n_samples, [&](Index begin, Index end, std::vector<double>& traces) {
        const auto width = static_cast<std::size_t>(end - begin);
        for (std::size_t s = 0; s < n_samples; ++s)
          for (std::size_t p = 0; p < width; ++p) {
            const std::size_t at = (s * n_points + static_cast<std::size_t>(begin) + p) * 3 + 2;
            traces[s * width + p] = h.values[at] - b.values[at];
          }
      });
  map.min = h.grid->min;
  map.max = h.grid->max;
  std::vector<unsigned char> footprint;
  std::vector<double> depth;
  defects_at(dented.mesh, dented.defects, h.positions, footprint, depth);
  const std::vector<unsigned char> found = imaging::threshold(map, std::pow(10.0, -6.0 / 20.0));
  const auto c = imaging::centroid(map, found), t = imaging::centroid(map, footprint);
  ASSERT_TRUE(c && t);
  const double miss = std::hypot((*c)[0] - (*t)[0], (*c)[1] - (*t)[1]);
  EXPECT_LT(miss, 2e-3);  // measured 0.33 mm
  // Measured 0.379. The run is deterministic; the margin covers another compiler's rounding moving
  // the -6 dB boundary by some grid points (each of the ~400 footprint points is 0.002 of the IoU).
  EXPECT_GT(imaging::intersection_over_union(found, footprint), 0.33);
  std::printf("imaging: centroid %.3g mm from the footprint's, intersection over union %.3f\n", miss * 1e3,
              imaging::intersection_over_union(found, footprint));
}

}  // namespace
}  // namespace tremor
