// The explicit solver with reverse Cuthill-McKee node ordering (RunOptions::ordering = "rcm"):
// the run renumbers internally and hands everything back in the model's numbering, so its
// histories and snapshots equal the plain run's up to rounding (the sums of K u add the same
// terms in another order), with the same nodes and labels.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tremor/explicit/solver.hpp"
#include "unit/explicit_test_models.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

struct Snapshots : explicit_fe::Observer {
  std::vector<std::vector<double>> values;
  std::vector<explicit_fe::SolverState> states;
  void on_snapshot(const explicit_fe::Snapshot& snapshot) override {
    values.emplace_back(snapshot.displacement.begin(), snapshot.displacement.end());
  }
  void on_checkpoint(const explicit_fe::SolverState& state) override { states.push_back(state); }
};

double relative_distance(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    norm += a[i] * a[i];
  }
  return norm > 0.0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

Model model_with_snapshots() {
  Model model = test::loaded_block(6e-6, 2e6, 3);  // about 60 steps
  OutputSettings output;
  output.snapshot_every = 5;
  model.output = output;
  return model;
}

TEST(ExplicitOrdering, RcmRunEqualsThePlainRunInTheModelsNumbering) {
  const Model model = model_with_snapshots();
  explicit_fe::RunOptions options;
  options.backend = "serial";
  Snapshots plain_seen, rcm_seen;
  const auto plain = explicit_fe::run_explicit(model, options, &plain_seen);
  options.ordering = "rcm";
  const auto rcm = explicit_fe::run_explicit(model, options, &rcm_seen);
  ASSERT_TRUE(plain.ok() && rcm.ok());
  EXPECT_EQ(rcm.preflight.ordering, NodeOrdering::Rcm);
  ASSERT_EQ(plain.histories.size(), rcm.histories.size());
  for (std::size_t h = 0; h < plain.histories.size(); ++h) {
    SCOPED_TRACE(plain.histories[h].name);
    EXPECT_EQ(plain.histories[h].nodes, rcm.histories[h].nodes);
    EXPECT_EQ(plain.histories[h].node_labels, rcm.histories[h].node_labels);
    EXPECT_EQ(plain.histories[h].times, rcm.histories[h].times);
    // Rounding only: the same sums in another order, ~1e-16 per step over a few hundred steps.
    EXPECT_LE(relative_distance(plain.histories[h].values, rcm.histories[h].values), 1e-11);
  }
  ASSERT_EQ(plain_seen.values.size(), rcm_seen.values.size());
  for (std::size_t s = 1; s < plain_seen.values.size(); ++s)
    EXPECT_LE(relative_distance(plain_seen.values[s], rcm_seen.values[s]), 1e-11) << "snapshot " << s;
}

// Checkpoints hold the state in the model's numbering: a plain run's checkpoint continued with
// RCM ordering (and back) follows the uninterrupted run to rounding.
TEST(ExplicitOrdering, CheckpointStatesAreInTheModelsNumbering) {
  const Model model = model_with_snapshots();
  explicit_fe::RunOptions options;
  options.backend = "serial";
  options.checkpoint_every = 20;
  Snapshots plain_seen, rcm_seen;
  const auto plain = explicit_fe::run_explicit(model, options, &plain_seen);
  options.ordering = "rcm";
  const auto rcm = explicit_fe::run_explicit(model, options, &rcm_seen);
  ASSERT_TRUE(plain.ok() && rcm.ok());
  ASSERT_FALSE(plain_seen.states.empty());
  ASSERT_EQ(plain_seen.states.size(), rcm_seen.states.size());
  EXPECT_LE(relative_distance(plain_seen.states[0].current, rcm_seen.states[0].current), 1e-11);
  options.resume = &plain_seen.states[0];
  const auto resumed = explicit_fe::run_explicit(model, options);
  ASSERT_TRUE(resumed.ok());
  const auto& whole = plain.histories[0];
  const auto& rest = resumed.histories[0];
  const std::size_t skip = whole.times.size() - rest.times.size(), width = whole.sample_size();
  const std::vector<double> tail(whole.values.begin() + static_cast<std::ptrdiff_t>(skip * width), whole.values.end());
  EXPECT_LE(relative_distance(tail, rest.values), 1e-11);
}

}  // namespace
}  // namespace tremor
