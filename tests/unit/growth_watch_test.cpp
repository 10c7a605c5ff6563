// Motion growing after the loads end in a run with a PML (explicit/growth_watch.hpp): the watch's
// verdicts on made-up sequences, and a run whose layer grows, said and stopped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/growth_watch.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/model_file.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::GrowthWatch;
using Verdict = GrowthWatch::Verdict;

// The verdicts of a watch fed norm(k) at checks k = 0, 1, ... (t = k), the loads over from
// check `loads_end` on.
std::vector<Verdict> watch(int checks, int loads_end, auto norm) {
  GrowthWatch w;
  std::vector<Verdict> verdicts;
  for (int k = 0; k < checks; ++k) verdicts.push_back(w.observe(k, norm(k), k >= loads_end));
  return verdicts;
}

int first(const std::vector<Verdict>& verdicts, Verdict verdict) {
  const auto at = std::find(verdicts.begin(), verdicts.end(), verdict);
  return at == verdicts.end() ? -1 : static_cast<int>(at - verdicts.begin());
}

TEST(GrowthWatch, DecayStandingWavesAndDriftAreQuiet) {
  const int checks = 20000;
  // A pulse absorbed: decays to rounding and stays there.
  EXPECT_EQ(first(watch(checks, 50, [](int k) { return std::max(std::exp(-0.05 * k), 1e-30); }), Verdict::Growing),
            -1);
  // A standing wave in a block with no loss, sampled at its zero crossings now and then (a check
  // falls within 1e-6 of one every 97 checks): blocks of ten give their largest, no floor there.
  EXPECT_EQ(first(watch(checks, 50,
                        [](int k) {
                          return k % 97 == 0 ? 1e-6 : std::abs(std::cos(0.37 * k)) + 0.1;
                        }),
                  Verdict::Growing),
            -1);
  // Growth that is linear, not exponential (slower than 1000-fold over the run).
  EXPECT_EQ(first(watch(checks, 50, [](int k) { return 1.0 + 0.01 * k; }), Verdict::Growing), -1);
}

TEST(GrowthWatch, ExponentialGrowthAfterTheLoadsIsSaidThenStopped) {
  // A pulse of norm 1 decaying e-fold every 5 checks, and a mode growing e-fold every 20, 1e-15 at
  // check 200: their sum is least near check 184, and the lowest block's largest (checks 180 to 189)
  // is 6.1e-16. 1000 times that is reached at check 328, in the block closed at 329; the pulse's
  // norm 1 (the largest before) at check 891.
  const auto norm = [](int k) { return std::exp(-0.2 * k) + 1e-15 * std::exp((k - 200) / 20.0); };
  const std::vector<Verdict> verdicts = watch(2000, 20, norm);
  const int growing = first(verdicts, Verdict::Growing), overtook = first(verdicts, Verdict::Overtook);
  ASSERT_GT(growing, 0);
  EXPECT_EQ(growing, 329);
  EXPECT_EQ(std::count(verdicts.begin(), verdicts.end(), Verdict::Growing), 1);
  EXPECT_EQ(overtook, 891);
  // The same growth while a load still changes is not watched.
  EXPECT_EQ(first(watch(2000, 5000, norm), Verdict::Growing), -1);
}

// A block of 7 x 7 GLL elements of order 4 (20 m) in rock, lined on every face by a PML of two
// elements whose damping is designed for a reflection of 1e-6 (d0 dt 1.1), a 10 Hz Ricker force at
// its centre. Without the layer's grid damping (grid_damping = 0) a mode of the layer grows after
// the pulse has gone (e-folding in about 0.5 s from ~3 s), which the watch says and stops the run
// at (~9.4 s). With it (the default) the motion decays over the same 20 s, unwarned.
std::string lined_block(const std::string& layer) {
  return R"(
[mesh]
generator = "rectangle"
element = "quad-gll4"
origin = [-70.0, -70.0]
size = [140.0, 140.0]
divisions = [7, 7]

[[material]]
name = "rock"
density = 2000.0
p_wave_speed = 2000.0
s_wave_speed = 1150.0

[[section]]
element_set = "all"
material = "rock"
formulation = "plane_strain"

[explicit]
duration = 20.0

[[source]]
position = [0.0, 0.0]
direction = [1.0, 1.0]
signal = { kind = "ricker", frequency = 10.0 }

[[receiver]]
name = "centre"
positions = [[0.0, 0.0]]
record = ["displacement"]

[[absorbing]]
kind = "pml"
faces = ["xmin", "xmax", "ymin", "ymax"]
thickness = 40.0
reflection = 1e-6
)" + layer;
}

TEST(GrowthWatch, AGrowingLayerIsSaidAndTheRunStopped) {
  const log::Quiet quiet;
  const Model growing = io::read_model_buffer(lined_block("grid_damping = 0\n"), "m.toml", "");
  const explicit_fe::ExplicitRun run = explicit_fe::run_explicit(growing);
  const std::vector<std::string> warnings = log::take_warnings();
  ASSERT_EQ(run.status, explicit_fe::RunStatus::Failed) << run.message;
  test::expect_contains(run.message, {"unstable at step", "after the loads ended", "PML of m.toml:", "multiaxial",
                                      "passed everything the loads made"});
  // Stopped well before the end, after the warning (the growth's rate makes it ~9 s: 3 s either side).
  const double stopped = static_cast<double>(run.bad_step) * run.dt;
  EXPECT_GT(stopped, 6.0);
  EXPECT_LT(stopped, 12.0);
  EXPECT_EQ(std::count_if(warnings.begin(), warnings.end(),
                          [](const std::string& w) { return w.find("grew") != std::string::npos; }),
            1);
  // What was recorded up to the stop is kept.
  ASSERT_EQ(run.histories.size(), 1u);
  EXPECT_GT(run.histories[0].times.size(), 1000u);

  const Model damped = io::read_model_buffer(lined_block(""), "m.toml", "");
  const explicit_fe::ExplicitRun decays = explicit_fe::run_explicit(damped);
  EXPECT_TRUE(decays.ok()) << decays.message;
  for (const std::string& w : log::take_warnings()) EXPECT_EQ(w.find("grew"), std::string::npos) << w;
}

}  // namespace TREMOR_TEST_FILE
}  // namespace tremor
