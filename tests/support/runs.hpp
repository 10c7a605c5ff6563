#pragma once
// Comparing a decomposed run with another (tests of runs over processes and over threads): what
// an observer was given, and the histories and snapshots of two runs side by side.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tremor/core/format.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/parallel/communicator.hpp"
#include "unit/explicit_test_models.hpp"

namespace tremor::test {

// What a run passed to its observer: snapshots, checkpoints; stops at `stop_after` when asked.
struct Kept final : explicit_fe::Observer {
  std::vector<long long> steps;
  std::vector<std::vector<double>> fields;  // displacement then velocity, per snapshot
  std::vector<explicit_fe::SolverState> checkpoints;
  long long stop_after = 0, step = 0;
  void on_snapshot(const explicit_fe::Snapshot& s) override {
    steps.push_back(s.step);
    std::vector<double> values(s.displacement.begin(), s.displacement.end());
    values.insert(values.end(), s.velocity.begin(), s.velocity.end());
    fields.push_back(std::move(values));
  }
  void on_checkpoint(const explicit_fe::SolverState& state) override { checkpoints.push_back(state); }
  void on_progress(long long s, long long, double) override { step = s; }
  bool stop_requested() override { return stop_after > 0 && step >= stop_after; }
};

// What a result file is given as a batch steps (Observer::on_batch, on_batch_sample): each shot's
// samples as they are recorded, which at the batch's end are its histories whole, in order; no
// on_sample. A last batch short of shots passes its repeated columns' samples too, which a result
// file leaves out (record/explicit_run.cpp).
struct Streamed final : explicit_fe::Observer {
  struct Sample {
    double time = 0.0;
    std::vector<double> values;
  };
  std::vector<std::string> events;
  std::size_t first = 0, count = 0, columns = 0, samples = 0, one_by_one = 0;
  // Per batch: its samples passed on by its last on_progress, and in all (the last check comes a
  // few steps before its end: most of them before).
  std::size_t at_batch = 0, at_progress = 0;
  std::vector<std::pair<std::size_t, std::size_t>> by_progress;
  std::map<std::pair<std::size_t, std::string>, std::vector<Sample>> of;  // by shot and history
  void on_batch(std::size_t f, std::size_t c) override {
    events.push_back(str("batch ", f, " ", c));
    first = f;
    count = c;
    at_batch = at_progress = samples;
  }
  void on_progress(long long, long long, double) override { at_progress = samples; }
  void on_shot(std::size_t index, bool) override { events.push_back(str("begin ", index)); }
  void on_sample(const explicit_fe::History&, std::size_t) override { ++one_by_one; }
  void on_batch_sample(std::size_t column, const explicit_fe::History& h, std::size_t sample) override {
    columns = std::max(columns, column + 1);
    ++samples;
    if (column >= count) return;
    std::vector<Sample>& got = of[{first + column, h.name}];
    // In order, each once, complete when passed on.
    EXPECT_EQ(sample, got.size()) << h.name;
    ASSERT_EQ(h.n_samples(), sample + 1) << h.name;
    const std::size_t size = h.sample_size();
    got.push_back({h.times[sample], std::vector<double>(h.values.begin() + static_cast<std::ptrdiff_t>(sample * size),
                                                        h.values.begin() + static_cast<std::ptrdiff_t>((sample + 1) * size))});
  }
  void on_shot_end(std::size_t index, const std::vector<explicit_fe::History>& histories) override {
    events.push_back(str("end ", index));
    if (index == first) by_progress.emplace_back(at_progress - at_batch, samples - at_batch);
    for (const explicit_fe::History& h : histories) {
      const auto got = of.find({index, h.name});
      ASSERT_NE(got, of.end()) << "shot " << index << ", " << h.name << ": no sample passed on as it was recorded";
      ASSERT_EQ(got->second.size(), h.n_samples()) << "shot " << index << ", " << h.name;
      for (std::size_t k = 0; k < h.n_samples(); ++k) {
        EXPECT_EQ(got->second[k].time, h.times[k]);
        const std::size_t size = h.sample_size();
        EXPECT_TRUE(std::equal(got->second[k].values.begin(), got->second[k].values.end(),
                               h.values.begin() + static_cast<std::ptrdiff_t>(k * size)))
            << "shot " << index << ", " << h.name << ", sample " << k;
      }
    }
  }
};

// A run's histories by name.
inline std::map<std::string, explicit_fe::History> by_name(const std::vector<explicit_fe::History>& histories) {
  std::map<std::string, explicit_fe::History> out;
  for (const explicit_fe::History& history : histories) out[history.name] = history;
  return out;
}

inline double largest(const std::vector<double>& values) {
  double m = 0.0;
  for (const double v : values) m = std::max(m, std::abs(v));
  return m;
}

inline double difference(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

// Each history of `got` equals the one of `want` of the same place: the same points and times,
// values to `tolerance` of the history's largest value.
inline void expect_histories_close(const std::vector<explicit_fe::History>& want,
                                   const std::vector<explicit_fe::History>& got, double tolerance) {
  ASSERT_EQ(want.size(), got.size());
  for (std::size_t h = 0; h < want.size(); ++h) {
    SCOPED_TRACE(want[h].name);
    EXPECT_EQ(got[h].name, want[h].name);
    EXPECT_EQ(got[h].nodes, want[h].nodes);
    EXPECT_EQ(got[h].node_labels, want[h].node_labels);
    EXPECT_EQ(got[h].positions, want[h].positions);
    EXPECT_EQ(got[h].times, want[h].times);
    ASSERT_EQ(got[h].values.size(), want[h].values.size());
    const double size = largest(want[h].values);
    ASSERT_GT(size, 0.0);  // a history that moves: the comparison means something
    EXPECT_LE(difference(got[h].values, want[h].values), tolerance * size) << "largest " << size;
  }
}

// Every history and snapshot of `got` within `tolerance` of `want`'s largest value, at the same
// times and steps (moving ones: a comparison that means something).
inline void expect_runs_close(const explicit_fe::ExplicitRun& want, const Kept& want_kept,
                              const explicit_fe::ExplicitRun& got, const Kept& got_kept, double tolerance) {
  expect_histories_close(want.histories, got.histories, tolerance);
  ASSERT_EQ(got_kept.steps, want_kept.steps);
  ASSERT_GT(want_kept.steps.size(), 2u);
  for (std::size_t s = 0; s < want_kept.fields.size(); ++s) {
    ASSERT_EQ(got_kept.fields[s].size(), want_kept.fields[s].size());
    EXPECT_LE(difference(got_kept.fields[s], want_kept.fields[s]), tolerance * std::max(1e-300, largest(want_kept.fields[s])))
        << "snapshot " << s;
  }
}

// A decomposed run of `model` (`run`, its observer `kept`; `options` its, over n_domains members)
// against the same run in one process: one domain to 1e-12 of each history's largest value (the
// shared nodes' sums in another order), and, point to point, the same decomposition bit for bit.
inline void expect_equals_one_domain_and_in_process(const Model& model, explicit_fe::RunOptions options,
                                                    const explicit_fe::ExplicitRun& run, const Kept& kept,
                                                    int n_domains) {
  options.communicator = nullptr;
  Kept single_kept, same_kept;
  options.domains = 1;
  const explicit_fe::ExplicitRun single = explicit_fe::run_explicit(model, options, &single_kept);
  expect_runs_close(single, single_kept, run, kept, 1e-12);
  if (options.exchange != "p2p") return;
  options.domains = n_domains;
  const explicit_fe::ExplicitRun same = explicit_fe::run_explicit(model, options, &same_kept);
  expect_runs_close(same, same_kept, run, kept, 0.0);
}

// A run stopped (`stopped`, its observer `first`) and resumed (`resumed`, `second`) gives the
// uninterrupted run's (`full`, `whole`) histories and snapshots, bit for bit.
inline void expect_halves_make_the_whole(const explicit_fe::ExplicitRun& full, const Kept& whole,
                                         const explicit_fe::ExplicitRun& stopped, const Kept& first,
                                         const explicit_fe::ExplicitRun& resumed, const Kept& second) {
  ASSERT_EQ(stopped.histories.size(), full.histories.size());
  ASSERT_EQ(resumed.histories.size(), full.histories.size());
  for (std::size_t h = 0; h < full.histories.size(); ++h) {
    std::vector<double> values(stopped.histories[h].values);
    values.insert(values.end(), resumed.histories[h].values.begin(), resumed.histories[h].values.end());
    EXPECT_EQ(values, full.histories[h].values) << full.histories[h].name;
  }
  std::vector<std::vector<double>> fields(first.fields);
  fields.insert(fields.end(), second.fields.begin(), second.fields.end());
  EXPECT_EQ(fields, whole.fields);
}

// A checkpoint of water_field (with velocity) as its pulse crosses the interface: the water's
// potential at its 5 x 9 nodes (y >= 1), moving; the receivers' pending samples, the steel's, then
// the water's pressure and motion, whose velocity waits for the next step.
inline void expect_water_field_checkpoint(const explicit_fe::SolverState& state) {
  ASSERT_EQ(state.fluid_current.size(), 45u);
  ASSERT_EQ(state.receivers.size(), 3u);
  EXPECT_TRUE(state.receivers[2].active);
  double largest = 0.0;
  for (const double chi : state.fluid_current) largest = std::max(largest, std::abs(chi));
  EXPECT_GT(largest, 0.0);
}

// A decomposed run of the tests: an operator, an exchange, with or without overlap.
struct RunCase {
  const char* kind;
  const char* exchange;
  bool overlap;
};

// The cases run on GPUs against one GPU: colour-by-colour assembly (deterministic) on both, so
// that the difference is the shared nodes' sums in another order only; and sem with its atomic
// scatter, the interface elements' on the exchange's side stream.
struct GpuRunCase {
  RunCase run;
  bool deterministic;
};
inline const std::vector<GpuRunCase> gpu_run_cases = {
    {{"block_ell", "p2p", true}, true},  {{"block_ell", "p2p", false}, true}, {{"block_ell", "allreduce", true}, true},
    {{"sem", "p2p", true}, true},        {{"sem", "p2p", false}, true},       {{"sem", "allreduce", true}, true},
    {{"matrix_free", "allreduce", true}, true}, {{"sem", "p2p", true}, false}};

// Each of gpu_run_cases run decomposed over `group`'s members by run(model, options, kept) (the
// observer on the first member), against the same run on one GPU, computed where `compare`: to
// 1e-12 as on the host, the GPU's fused multiply-adds in both runs alike.
template <class Run>
void expect_gpu_cases_equal_one_gpu(const parallel::Communicator& group, bool compare, Run run);

// The bar of a case (GLL order 3 for sem, hex8 otherwise).
inline Model case_model(const RunCase& c) {
  return std::string(c.kind) == "sem" ? loaded_bar(ElementType::HexGLL, 3, 2) : loaded_bar(ElementType::Hex8, 1, 4);
}

// Its options over the members of `group` (a subdomain each), in double.
inline explicit_fe::RunOptions case_options(const RunCase& c, const char* backend, const parallel::Communicator& group) {
  explicit_fe::RunOptions options;
  options.backend = backend;
  options.precision = "double";
  options.operator_kind = c.kind;
  options.exchange = c.exchange;
  options.overlap = c.overlap;
  options.communicator = &group;
  options.domains = group.size();
  return options;
}

template <class Run>
void expect_gpu_cases_equal_one_gpu(const parallel::Communicator& group, bool compare, Run run) {
  for (const auto& [c, deterministic] : gpu_run_cases) {
    SCOPED_TRACE(str(c.kind, " ", c.exchange, c.overlap ? " overlap" : "", deterministic ? "" : " atomics"));
    const Model model = case_model(c);
    explicit_fe::RunOptions options = case_options(c, "cuda", group);
    options.deterministic = deterministic;
    Kept kept;
    const explicit_fe::ExplicitRun decomposed = run(model, options, kept);
    ASSERT_TRUE(decomposed.ok()) << decomposed.message;
    if (!compare) continue;
    options.communicator = nullptr;
    options.domains = 1;
    Kept single_kept;
    const explicit_fe::ExplicitRun single = explicit_fe::run_explicit(model, options, &single_kept);
    expect_runs_close(single, single_kept, decomposed, kept, 1e-12);
  }
}

}  // namespace tremor::test
