// Guided-wave imaging of a thickness loss (the multi-GPU spectral-element paper, section 5): an
// 80 x 80 x 2 mm aluminium plate with absorbing edges, 0.5 mm hex8 cells, the paper's random
// defect (here R1 = 4, R2 = 7 mm, up to 0.5 mm deep) off the centre of a 30 x 30 mm inspection
// grid, and four transducers pushing on the top surface beyond the grid's corners (A0). Each is
// fired alone, on one set-up per plate (explicit_fe::Simulation), with and without the defect
// (the baseline, the same time step). The total-displacement maps of the differences locate the
// defect two ways: the four fired together (the paper's way; by linearity the sum of the four
// traces), whose -6 dB region's centroid lies within 2 mm of the footprint's; and the four maps
// added (tremor image --combine), whose -6 dB region covers the footprint closely.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tremor/explicit/simulation.hpp"
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

// The grid's history of each source of `model` fired alone, stepped on one set-up.
std::vector<explicit_fe::History> one_by_one(const Model& model) {
  explicit_fe::RunOptions options;
  options.backend = "openmp";
  explicit_fe::Simulation simulation(model, options);
  std::vector<explicit_fe::History> out;
  for (const PointSource& source : model.point_sources) {
    Model alone = model;
    alone.point_sources = {source};
    explicit_fe::ExplicitRun run = simulation.run(alone);
    EXPECT_TRUE(run.ok());
    out.push_back(std::move(run.histories.front()));
  }
  return out;
}

TEST(Imaging, TheA0MapsOfTheDifferenceLocateTheDefect) {
  const Model dented = io::read_model_buffer(plate(true), "dented.toml", "");
  const Model sound = io::read_model_buffer(plate(false), "sound.toml", "");
  const std::vector<explicit_fe::History> runs = one_by_one(dented), baselines = one_by_one(sound);
  ASSERT_EQ(runs.size(), 4u);
  const explicit_fe::History& h = runs.front();
  ASSERT_TRUE(h.grid);
  ASSERT_EQ(h.times, baselines.front().times);
  const std::size_t n_samples = h.n_samples(), n_points = static_cast<std::size_t>(h.n_points());
  // The map of the envelope peaks of the out-of-plane displacement (component z of the one
  // quantity), the dented minus the sound, of the sources in `fired` firing together.
  const auto map_of = [&](std::vector<std::size_t> fired) {
    imaging::GridMap map = imaging::peak_map(
        h.grid->count[0], h.grid->count[1], n_samples, 0, n_samples,
        [&](Index begin, Index end, std::vector<double>& traces) {
          const auto width = static_cast<std::size_t>(end - begin);
          for (std::size_t s = 0; s < n_samples; ++s)
            for (std::size_t p = 0; p < width; ++p) {
              const std::size_t at = (s * n_points + static_cast<std::size_t>(begin) + p) * 3 + 2;
              double sum = 0.0;
              for (const std::size_t k : fired) sum += runs[k].values[at] - baselines[k].values[at];
              traces[s * width + p] = sum;
            }
        });
    map.min = h.grid->min;
    map.max = h.grid->max;
    return map;
  };
  std::vector<unsigned char> footprint;
  std::vector<double> depth;
  defects_at(dented.mesh, dented.defects, h.positions, footprint, depth);
  const double half = std::pow(10.0, -6.0 / 20.0);

  // Fired together: the four bursts' scattered fields interfere, and the streaks each leaves
  // behind the defect take as much of the -6 dB region as the defect does.
  const imaging::GridMap together = map_of({0, 1, 2, 3});
  const std::vector<unsigned char> found = imaging::threshold(together, half);
  const auto c = imaging::centroid(together, found), t = imaging::centroid(together, footprint);
  ASSERT_TRUE(c && t);
  const double miss = std::hypot((*c)[0] - (*t)[0], (*c)[1] - (*t)[1]);
  EXPECT_LT(miss, 2e-3);  // measured 0.33 mm
  // Measured 0.379. The run is deterministic; the margin covers another compiler's rounding moving
  // the -6 dB boundary by some grid points (each of the ~400 footprint points is 0.002 of the IoU).
  const double overlap_together = imaging::intersection_over_union(found, footprint);
  EXPECT_GT(overlap_together, 0.33);

  // One at a time, the four maps added: only over the defect are all four bright, so the streaks,
  // each one map's, fall below half the sum's peak.
  imaging::GridMap combined = map_of({0});
  for (std::size_t k = 1; k < 4; ++k) imaging::add(combined, map_of({k}));
  const double overlap_combined = imaging::intersection_over_union(imaging::threshold(combined, half), footprint);
  EXPECT_GT(overlap_combined, 0.85);  // measured 0.924 through tremor run and tremor image; margin as above
  std::printf("imaging: fired together: centroid %.3g mm from the footprint's, intersection over union %.3f; "
              "one at a time, the maps added: %.3f\n",
              miss * 1e3, overlap_together, overlap_combined);
}

}  // namespace
}  // namespace tremor
