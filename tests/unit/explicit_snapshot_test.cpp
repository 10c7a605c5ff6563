// Snapshots taken while the time loop goes on (explicit/snapshots.hpp): their values against the
// full-field displacement history of the same run, bit for bit; their order and count with a slow
// observer; one observer call at a time; a failing on_snapshot stopping the run with its
// exception; every snapshot passed on before a checkpoint and before an exception leaves the run;
// and the pinned host buffers and copy stream of backend/async_copy.hpp on the host. In a model with
// fluids, the fluid's motion and pressure against its receivers, bit for bit.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "explicit_test_models.hpp"
#include "support/support.hpp"
#include "tremor/backend/async_copy.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::RunOptions;
using explicit_fe::Snapshot;
using explicit_fe::SolverState;

// The 13 x 13 node block of explicit_test_models.hpp with snapshots every `every` steps, and a
// receiver "all" recording the displacement of every node at every step (in node order, so its
// sample k is the snapshot field at step k).
Model field_block(const std::string& precision, int every, bool velocity, double duration = 2e-6) {
  Model model = test::loaded_block(duration, 2e6, 2);
  model.explicit_settings->precision = precision;
  Receiver all;
  all.name = "all";
  all.nodes.resize(static_cast<std::size_t>(model.mesh.n_nodes()));
  std::iota(all.nodes.begin(), all.nodes.end(), Index{0});
  model.receivers.push_back(all);
  OutputSettings output;
  output.snapshot_every = every;
  output.velocity = velocity;
  model.output = output;
  model.validate();
  return model;
}

struct Taken {
  long long step = 0;
  double time = 0.0;
  std::vector<double> displacement, velocity, pressure;
  std::thread::id thread;
};

// Keeps what it is given. Every call checks that no other call is running (an atomic "inside"
// flag) and, with `delay`, sleeps inside on_snapshot so that the time loop runs ahead of it.
class Recording : public explicit_fe::Observer {
 public:
  explicit Recording(std::chrono::microseconds delay = {}) : delay_(delay) {}

  void on_start(const explicit_fe::Preflight&) override { Inside in(*this); }
  void on_sample(const explicit_fe::History&, std::size_t) override { Inside in(*this); }
  void on_progress(long long step, long long, double) override {
    Inside in(*this);
    progress_steps.push_back(step);
  }
  bool stop_requested() override {
    Inside in(*this);
    return false;
  }
  void on_snapshot(const Snapshot& s) override {
    Inside in(*this);
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    taken.push_back({s.step, s.time, {s.displacement.begin(), s.displacement.end()},
                     {s.velocity.begin(), s.velocity.end()}, {s.pressure.begin(), s.pressure.end()},
                     std::this_thread::get_id()});
  }
  void on_checkpoint(const SolverState& state) override {
    Inside in(*this);
    checkpoints.push_back(state);
    // The steps of the snapshots passed on by then.
    std::vector<long long> steps;
    for (const Taken& t : taken) steps.push_back(t.step);
    before_checkpoint.push_back(steps);
  }

  std::vector<Taken> taken;
  std::vector<long long> progress_steps;
  std::vector<SolverState> checkpoints;
  std::vector<std::vector<long long>> before_checkpoint;
  std::atomic<int> overlaps{0};

 private:
  struct Inside {
    explicit Inside(Recording& r) : r_(r) {
      if (r_.inside_.exchange(true)) ++r_.overlaps;
    }
    ~Inside() { r_.inside_.store(false); }
    Recording& r_;
  };
  std::chrono::microseconds delay_;
  std::atomic<bool> inside_{false};
};

const explicit_fe::History& history(const explicit_fe::ExplicitRun& run, const std::string& name) {
  for (const auto& h : run.histories)
    if (h.name == name) return h;
  throw Error("no history " + name);
}

// Snapshot k against the "all" history: displacement = u_k, velocity = (u_k+1 - u_k-1) * (0.5 /
// dt), the receivers' central difference (receivers.hpp), evaluated here on the host. Equal bit
// for bit: the same double operations on the same widened state values.
void expect_snapshots_match_history(const Model& model, const RunOptions& options, int every, bool velocity) {
  Recording recording;
  const auto run = explicit_fe::run_explicit(model, options, &recording);
  ASSERT_TRUE(run.ok()) << run.message;
  const explicit_fe::History& all = history(run, "all");
  ASSERT_EQ(all.n_samples(), static_cast<std::size_t>(run.steps + 1));  // steps 0..N
  // Displacement-only snapshots include the last step; velocity ones stop below it (u_N+1).
  const long long last = velocity ? run.steps - 1 : run.steps;
  ASSERT_EQ(recording.taken.size(), static_cast<std::size_t>(last / every + 1));
  const std::size_t size = all.sample_size();
  const double inv_2dt = 0.5 / run.dt;
  double largest_velocity = 0.0;
  for (std::size_t s = 0; s < recording.taken.size(); ++s) {
    const Taken& taken = recording.taken[s];
    const auto k = static_cast<std::size_t>(s) * static_cast<std::size_t>(every);
    ASSERT_EQ(taken.step, static_cast<long long>(k));
    EXPECT_EQ(taken.time, static_cast<double>(k) * run.dt);
    const std::vector<double> u_k(all.values.begin() + static_cast<std::ptrdiff_t>(k * size),
                                  all.values.begin() + static_cast<std::ptrdiff_t>((k + 1) * size));
    EXPECT_EQ(taken.displacement, u_k) << "step " << k;
    if (!velocity) {
      EXPECT_TRUE(taken.velocity.empty());
      continue;
    }
    ASSERT_EQ(taken.velocity.size(), size);
    for (std::size_t i = 0; i < size; ++i) {
      const double after = all.values[(k + 1) * size + i];
      const double before = k > 0 ? all.values[(k - 1) * size + i] : 0.0;  // starts at rest: u_-1 = 0
      ASSERT_EQ(taken.velocity[i], (after - before) * inv_2dt) << "step " << k << " value " << i;
      largest_velocity = std::max(largest_velocity, std::abs(taken.velocity[i]));
    }
  }
  // The wave moved the field within the run: the comparison is not one of zeros.
  if (velocity) {
    EXPECT_GT(largest_velocity, 0.0);
  }
  EXPECT_GT(std::abs(recording.taken.back().displacement[static_cast<std::size_t>((6 * 13 + 6) * 2 + 1)]), 0.0);
  EXPECT_EQ(recording.overlaps.load(), 0);
}

TEST(ExplicitSnapshotValues, VelocityEqualsTheCentralDifferenceOfTheFieldHistoryInDouble) {
  expect_snapshots_match_history(field_block("double", 3, true), RunOptions{}, 3, true);
}

TEST(ExplicitSnapshotValues, VelocityEqualsTheCentralDifferenceOfTheFieldHistoryInFloat) {
  expect_snapshots_match_history(field_block("float", 3, true), RunOptions{}, 3, true);
}

TEST(ExplicitSnapshotValues, EveryStepWithVelocityAndNodeOrdering) {
  // Every step: the velocity kernel of step k and the gather of u_k for step k+1 meet each step.
  // With rcm ordering the snapshot gathers through the renumbering and still hands back the
  // model's node order.
  RunOptions options;
  options.ordering = "rcm";
  options.backend = "serial";
  expect_snapshots_match_history(field_block("double", 1, true), options, 1, true);
}

TEST(ExplicitSnapshotValues, DisplacementOnlyIncludesTheLastStep) {
  expect_snapshots_match_history(field_block("double", 4, false), RunOptions{}, 4, false);
  expect_snapshots_match_history(field_block("float", 1, false), RunOptions{}, 1, false);
}

// Each snapshot node's values against its receiver's sample of the same step, bit for bit: the
// solid's motion where a solid element holds the node, the fluid's (the same rows of the
// potential) elsewhere, the pressure a receiver of pressure records (p_k), NaN in the steel alone.
void expect_fluid_snapshots_match_receivers(const std::string& precision, int every, bool velocity,
                                            const std::string& backend = "serial") {
  SCOPED_TRACE(precision + (velocity ? " with velocity on " : " on ") + backend);
  const Model model = test::water_field(precision, every, velocity);
  Recording recording;
  RunOptions options;
  options.backend = backend;
  const auto run = explicit_fe::run_explicit(model, options, &recording);
  ASSERT_TRUE(run.ok()) << run.message;
  const explicit_fe::History &steel = history(run, "steel"), &water = history(run, "water"), &p = history(run, "p");
  // Pressure is known one step late (as a velocity): neither has a sample at the last step.
  ASSERT_EQ(p.n_samples(), static_cast<std::size_t>(run.steps));
  ASSERT_EQ(recording.taken.size(), static_cast<std::size_t>((run.steps - 1) / every + 1));
  const std::size_t quantities = velocity ? 2 : 1;
  double largest_pressure = 0.0, largest_water = 0.0;
  for (const Taken& taken : recording.taken) {
    const auto k = static_cast<std::size_t>(taken.step);
    ASSERT_EQ(taken.displacement.size(), 81u * 2);
    ASSERT_EQ(taken.pressure.size(), 81u);
    ASSERT_EQ(taken.velocity.size(), velocity ? 81u * 2 : 0u);
    for (Index node = 0; node < 81; ++node) {
      const bool solid = node / 9 <= 4;
      const explicit_fe::History& h = solid ? steel : water;
      const auto point = static_cast<std::size_t>(solid ? node : node - 45);
      for (std::size_t c = 0; c < 2; ++c) {
        const std::size_t at = ((k * h.nodes.size() + point) * quantities) * 2 + c;
        const auto i = static_cast<std::size_t>(node) * 2 + c;
        ASSERT_EQ(taken.displacement[i], h.values[at]) << "step " << k << " node " << node;
        if (velocity) {
          ASSERT_EQ(taken.velocity[i], h.values[at + 2]) << "step " << k << " node " << node;
        }
        if (!solid) largest_water = std::max(largest_water, std::abs(taken.displacement[i]));
      }
      const double pressure = taken.pressure[static_cast<std::size_t>(node)];
      if (node / 9 < 4) {
        EXPECT_TRUE(std::isnan(pressure)) << "node " << node;
      } else {
        ASSERT_EQ(pressure, p.values[k * p.nodes.size() + static_cast<std::size_t>(node - 36)])
            << "step " << k << " node " << node;
        largest_pressure = std::max(largest_pressure, std::abs(pressure));
      }
    }
  }
  // The pulse reached the receivers: the comparisons are not of zeros.
  EXPECT_GT(largest_pressure, 0.0);
  EXPECT_GT(largest_water, 0.0);
  EXPECT_EQ(recording.overlaps.load(), 0);
}

TEST(ExplicitSnapshotValues, AFluidShowsItsMotionAndPressureAsItsReceiversRecordThem) {
  expect_fluid_snapshots_match_receivers("double", 5, true);
  expect_fluid_snapshots_match_receivers("float", 1, true, "openmp");
  expect_fluid_snapshots_match_receivers("double", 7, false);
}

// A fluid of GLL hexahedra, whose run keeps its elements' inner nodes last (FluidTerm::setup_node):
// each water node's snapshot shows the motion its receiver records there, bit for bit (the rows
// found on the fluid's mesh, then taken to the run's order), inner nodes among them.
TEST(ExplicitSnapshotValues, AFluidOfGllHexahedraShowsItsMotionAsItsReceiversRecordIt) {
  Model model = test::water_on_steel_box("double", 3);
  std::vector<Index> nodes;  // those no steel element holds
  for (Index node = 0; node < model.mesh.n_nodes(); ++node)
    if (model.mesh.node(node)[2] > 1.0 + 1e-9) nodes.push_back(node);
  Receiver water;
  water.name = "water";
  water.displacement = true;
  water.velocity = true;
  water.nodes = nodes;
  water.origin = "m.toml:30";
  model.receivers = {water};
  OutputSettings output;
  output.snapshot_every = 5;
  output.velocity = true;
  output.snapshot_nodes = nodes;
  model.output = output;
  model.validate();
  Recording recording;
  RunOptions options;
  options.backend = "serial";
  const auto run = explicit_fe::run_explicit(model, options, &recording);
  ASSERT_TRUE(run.ok()) << run.message;
  const explicit_fe::History& h = history(run, "water");
  ASSERT_EQ(h.nodes.size(), nodes.size());
  ASSERT_GT(recording.taken.size(), 10u);
  double largest = 0.0;
  for (const Taken& taken : recording.taken) {
    const auto k = static_cast<std::size_t>(taken.step);
    ASSERT_EQ(taken.displacement.size(), nodes.size() * 3);
    for (std::size_t point = 0; point < nodes.size(); ++point)
      for (std::size_t c = 0; c < 3; ++c) {
        const std::size_t at = ((k * nodes.size() + point) * 2) * 3 + c;
        ASSERT_EQ(taken.displacement[point * 3 + c], h.values[at]) << "step " << k << " node " << nodes[point];
        ASSERT_EQ(taken.velocity[point * 3 + c], h.values[at + 3]) << "step " << k << " node " << nodes[point];
        largest = std::max(largest, std::abs(taken.displacement[point * 3 + c]));
      }
  }
  EXPECT_GT(largest, 0.0);  // the pulse moved the water: not zeros compared
}

// The same on a GPU: the snapshot's gathers and rows run there (snapshots.cpp), as the receivers'.
TEST(ExplicitSnapshotValuesGpu, AFluidShowsItsMotionAndPressureAsItsReceiversRecordThem) {
  TREMOR_REQUIRE_GPU();
  expect_fluid_snapshots_match_receivers("double", 5, true, "cuda");
  expect_fluid_snapshots_match_receivers("float", 3, false, "cuda");
}

// A slow observer (1 ms in each on_snapshot, far longer than a step here) makes the time loop
// wait for free buffers; nothing is lost, reordered or changed, and calls never overlap.
TEST(ExplicitSnapshotWriter, SlowObserverGetsEverySnapshotInOrderOneCallAtATime) {
  const Model model = field_block("double", 1, true, 4e-6);
  RunOptions options;
  options.check_every = 1;  // an on_progress call (and on_sample calls) every step, to interleave
  options.deterministic = true;  // two runs compared bit for bit (a GPU's atomic adds need not give the same)
  Recording fast;
  const auto reference = explicit_fe::run_explicit(model, options, &fast);
  ASSERT_TRUE(reference.ok());
  Recording slow(std::chrono::microseconds(1000));
  const auto run = explicit_fe::run_explicit(model, options, &slow);
  ASSERT_TRUE(run.ok()) << run.message;
  EXPECT_EQ(slow.overlaps.load(), 0);
  EXPECT_EQ(fast.overlaps.load(), 0);
  ASSERT_EQ(slow.taken.size(), static_cast<std::size_t>(run.steps));  // steps 0..N-1
  ASSERT_GT(slow.taken.size(), 20u);  // more snapshots than buffers: the back-pressure path ran
  for (std::size_t s = 0; s < slow.taken.size(); ++s) {
    EXPECT_EQ(slow.taken[s].step, static_cast<long long>(s));
    EXPECT_EQ(slow.taken[s].displacement, fast.taken[s].displacement) << s;
    EXPECT_EQ(slow.taken[s].velocity, fast.taken[s].velocity) << s;
  }
  // The writer thread, not the time loop's, passed them on.
  for (const Taken& taken : slow.taken) EXPECT_NE(taken.thread, std::this_thread::get_id());
  EXPECT_EQ(slow.progress_steps.back(), run.steps);
}

// Throws from the snapshot of step `fail_at`, after `delay`.
class FailingWriter final : public Recording {
 public:
  FailingWriter(long long fail_at, bool tremor_error, std::chrono::milliseconds delay = {})
      : fail_at_(fail_at), tremor_error_(tremor_error), delay_(delay) {}
  void on_snapshot(const Snapshot& s) override {
    ++calls;
    if (s.step == fail_at_) {
      std::this_thread::sleep_for(delay_);
      if (tremor_error_) throw Error("disk full writing the snapshot");
      throw std::runtime_error("no space left on device");
    }
    Recording::on_snapshot(s);
  }
  std::atomic<int> calls{0};

 private:
  long long fail_at_;
  bool tremor_error_;
  std::chrono::milliseconds delay_;
};

TEST(ExplicitSnapshotWriter, FailureInOnSnapshotLeavesTheRunAsThatException) {
  const Model model = field_block("double", 2, true);
  {
    // A std::exception of the observer's own arrives as itself, at the next check.
    FailingWriter writer(4, false);
    RunOptions options;
    options.check_every = 5;
    try {
      explicit_fe::run_explicit(model, options, &writer);
      FAIL() << "expected the observer's exception";
    } catch (const std::runtime_error& error) {
      EXPECT_STREQ(error.what(), "no space left on device");
    }
    // Snapshots 0 and 2 written, 4 failed, none after it passed on.
    EXPECT_EQ(writer.calls.load(), 3);
    ASSERT_EQ(writer.taken.size(), 2u);
    EXPECT_EQ(writer.taken[1].step, 2);
    EXPECT_EQ(writer.overlaps.load(), 0);
  }
  {
    // A tremor::Error likewise. The only snapshot fails 200 ms late, when the time loop (under a
    // millisecond) has passed its last check: the end of the run is where it surfaces.
    FailingWriter writer(0, true, std::chrono::milliseconds(200));
    const Model one = field_block("double", 1000, false);  // snapshot of step 0 only
    try {
      explicit_fe::run_explicit(one, RunOptions{}, &writer);
      FAIL() << "expected the observer's exception";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("disk full writing the snapshot"), std::string::npos);
    }
    EXPECT_EQ(writer.calls.load(), 1);
  }
  {
    // With a checkpoint due: the failure surfaces there, before on_checkpoint is called.
    FailingWriter writer(2, false);
    RunOptions options;
    options.check_every = 100;
    options.checkpoint_every = 6;
    EXPECT_THROW(explicit_fe::run_explicit(model, options, &writer), std::runtime_error);
    EXPECT_TRUE(writer.checkpoints.empty());
  }
}

// An exception of the solver thread's observer calls leaves run_explicit only after the
// snapshots taken until then were passed on.
class ThrowingProgress final : public Recording {
 public:
  explicit ThrowingProgress(long long at) : Recording(std::chrono::microseconds(2000)), at_(at) {}
  void on_progress(long long step, long long steps, double time) override {
    Recording::on_progress(step, steps, time);
    if (step == at_) throw Error("progress display failed");
  }

 private:
  long long at_;
};

TEST(ExplicitSnapshotWriter, SnapshotsTakenBeforeAnExceptionArePassedOn) {
  const Model model = field_block("double", 1, false);
  RunOptions options;
  options.check_every = 8;
  ThrowingProgress observer(8);
  EXPECT_THROW(explicit_fe::run_explicit(model, options, &observer), Error);
  // Displacement snapshots of steps 0..8 were taken before on_progress(8) threw; each took the
  // slow writer 2 ms, so several still waited for it when the exception arose.
  ASSERT_EQ(observer.taken.size(), 9u);
  for (std::size_t s = 0; s < observer.taken.size(); ++s) EXPECT_EQ(observer.taken[s].step, static_cast<long long>(s));
  EXPECT_EQ(observer.overlaps.load(), 0);
}

// At each checkpoint the observer has every snapshot of the steps before it (and of its own step
// when the snapshot needs no later one); the pending velocity snapshot is in the state, and a
// run resumed from it passes on the same snapshots as the uninterrupted run, bit for bit.
void expect_checkpoints_follow_snapshots(const std::string& precision, bool velocity) {
  const int every = 2;
  const Model model = field_block(precision, every, velocity);
  RunOptions options;
  options.check_every = 3;
  options.ordering = "rcm";
  options.deterministic = true;  // two runs compared bit for bit (a GPU's atomic adds need not give the same)
  Recording whole(std::chrono::microseconds(500));
  const auto full = explicit_fe::run_explicit(model, options, &whole);
  ASSERT_TRUE(full.ok());

  options.checkpoint_every = 4;
  Recording first(std::chrono::microseconds(500));
  const auto completed = explicit_fe::run_explicit(model, options, &first);
  ASSERT_TRUE(completed.ok());
  ASSERT_GE(first.checkpoints.size(), 3u);
  for (std::size_t c = 0; c < first.checkpoints.size(); ++c) {
    const SolverState& state = first.checkpoints[c];
    // Snapshot steps 0, 2, ... up to the checkpoint step (below it with velocity).
    std::vector<long long> expected;
    for (long long k = 0; velocity ? k < state.step : k <= state.step; k += every) expected.push_back(k);
    EXPECT_EQ(first.before_checkpoint[c], expected) << "checkpoint at step " << state.step;
    EXPECT_EQ(state.snapshot.active, velocity);
    if (velocity) {
      EXPECT_EQ(state.snapshot.step, state.step);
    }
  }
  EXPECT_EQ(first.overlaps.load(), 0);

  // Resume from the second checkpoint (step 8, a velocity snapshot pending).
  const SolverState state = first.checkpoints[1];
  options.resume = &state;
  options.checkpoint_every = 0;
  Recording second;
  const auto resumed = explicit_fe::run_explicit(model, options, &second);
  ASSERT_TRUE(resumed.ok()) << resumed.message;
  std::vector<Taken> joined;
  for (const Taken& t : first.taken)
    if (velocity ? t.step < state.step : t.step <= state.step) joined.push_back(t);
  joined.insert(joined.end(), second.taken.begin(), second.taken.end());
  ASSERT_EQ(joined.size(), whole.taken.size());
  for (std::size_t s = 0; s < joined.size(); ++s) {
    EXPECT_EQ(joined[s].step, whole.taken[s].step);
    EXPECT_EQ(joined[s].displacement, whole.taken[s].displacement) << s;
    EXPECT_EQ(joined[s].velocity, whole.taken[s].velocity) << s;
  }
}

TEST(ExplicitSnapshotWriter, CheckpointsFollowTheirSnapshotsAndResumeExactlyInDouble) {
  expect_checkpoints_follow_snapshots("double", true);
  expect_checkpoints_follow_snapshots("double", false);
}

TEST(ExplicitSnapshotWriter, CheckpointsFollowTheirSnapshotsAndResumeExactlyInFloat) {
  expect_checkpoints_follow_snapshots("float", true);
}

// A checkpoint at the step of a snapshot, with no observer call in between (no receivers, no
// progress call before it): the writer thread is still waking when the time loop reaches the
// checkpoint, which must wait for it.
TEST(ExplicitSnapshotWriter, CheckpointAtASnapshotStepWaitsForIt) {
  Model model = test::loaded_block(4e-6, 2e6, 2);
  model.receivers.clear();
  OutputSettings output;
  output.snapshot_every = 1;
  model.output = output;
  model.validate();
  RunOptions options;
  options.check_every = 1000;
  options.checkpoint_every = 1;
  Recording recording;
  const auto run = explicit_fe::run_explicit(model, options, &recording);
  ASSERT_TRUE(run.ok());
  ASSERT_EQ(recording.checkpoints.size(), static_cast<std::size_t>(run.steps - 1));  // steps 1..N-1
  for (std::size_t c = 0; c < recording.checkpoints.size(); ++c)
    EXPECT_EQ(recording.before_checkpoint[c].size(), c + 2) << "checkpoint at step " << c + 1;  // steps 0..c+1
}

TEST(ExplicitSnapshotWriter, StoppedAndNoObserverRuns) {
  // Stopped: every snapshot taken up to the stop is passed on before run_explicit returns.
  const Model model = field_block("double", 1, false);
  struct Stopper final : Recording {
    Stopper() : Recording(std::chrono::microseconds(1000)) {}
    bool stop_requested() override { return progress_steps.back() >= 6; }
  } stopper;
  RunOptions options;
  options.check_every = 3;
  options.deterministic = true;  // two runs compared bit for bit (a GPU's atomic adds need not give the same)
  const auto stopped = explicit_fe::run_explicit(model, options, &stopper);
  ASSERT_EQ(stopped.status, explicit_fe::RunStatus::Stopped);
  EXPECT_EQ(stopped.steps, 6);
  EXPECT_EQ(stopper.taken.size(), 7u);  // steps 0..6
  // No observer: nothing is taken, and the field is the same as far as the stopped run went.
  RunOptions plain;
  plain.deterministic = true;
  const auto quiet = explicit_fe::run_explicit(model, plain);
  ASSERT_TRUE(quiet.ok());
  const std::vector<double>& some = history(stopped, "all").values;
  const std::vector<double>& all = history(quiet, "all").values;
  ASSERT_LT(some.size(), all.size());
  EXPECT_EQ(some, std::vector<double>(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(some.size())));
  const std::size_t size = history(quiet, "all").sample_size();
  for (std::size_t s = 0; s < stopper.taken.size(); ++s)
    EXPECT_EQ(stopper.taken[s].displacement,
              std::vector<double>(some.begin() + static_cast<std::ptrdiff_t>(s * size),
                                  some.begin() + static_cast<std::ptrdiff_t>((s + 1) * size)));
}

// The host side of backend/async_copy.hpp: plain aligned memory, a copy done at once, waits
// that return at once; no CUDA call, so this runs in any build.
TEST(AsyncCopy, HostExecCopiesAtOnce) {
  for (const Exec& exec : {Exec::serial(), Exec::openmp()}) {
    PinnedArray<double> host(exec, 1000);
    EXPECT_FALSE(host.page_locked());
    EXPECT_FALSE(page_locked_host_memory(host.data()));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(host.data()) % 64, 0u);
    std::vector<double> values(1000);
    std::iota(values.begin(), values.end(), 0.5);
    DeviceArray<double> source(exec, std::span<const double>(values));
    CopyStream copies(exec);
    CopyEvent done(exec);
    copies.copy_to_host(host, source);
    copies.record(done);
    done.wait();
    EXPECT_EQ(std::vector<double>(host.span().begin(), host.span().end()), values);
    // Moves keep one owner.
    PinnedArray<double> moved(std::move(host));
    EXPECT_EQ(moved.size(), 1000);
    EXPECT_EQ(host.data(), nullptr);
    EXPECT_EQ(moved.span()[999], 999.5);
    DeviceArray<double> shorter(exec, 10);
    EXPECT_THROW(copies.copy_to_host(moved, shorter), Error);
  }
  PinnedArray<float> empty(Exec::serial(), 0);
  EXPECT_EQ(empty.data(), nullptr);
}

}  // namespace
}  // namespace tremor
