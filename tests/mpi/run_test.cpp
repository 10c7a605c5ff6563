// A run over several processes (mpirun -np 2 and 3; RunOptions::communicator): each process steps
// one subdomain and exchanges its shared nodes with its neighbours; the first process merges the
// samples and snapshots. Against the same run on one domain, computed by the first process alone:
// every history and snapshot to 1e-12 of its largest value (the shared nodes' sums in another
// order: rounding, see tests/unit/explicit_decomposed_test.cpp); against the same decomposition in
// one process (RunOptions::domains): the same bits with the point-to-point exchange, as the
// exchanges sum in the same order. Both exchanges, with and without overlap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "support/runs.hpp"
#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/explicit/processes.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/parallel/communicator.hpp"
#include "unit/explicit_test_models.hpp"

namespace tremor {
namespace {

using explicit_fe::ExplicitRun;
using explicit_fe::RunOptions;
using parallel::Communicator;
using test::Kept;
using test::expect_runs_close;
using test::RunCase;
using test::case_model;
using test::case_options;

class OverProcesses : public ::testing::TestWithParam<RunCase> {};

TEST_P(OverProcesses, EqualsOneDomainAndTheSameDecompositionInOneProcess) {
  const Communicator& world = Communicator::world();
  if (world.size() < 2) GTEST_SKIP() << "run under mpirun with several processes";
  const RunCase c = GetParam();
  const Model model = case_model(c);
  RunOptions options = case_options(c, "serial", world);
  options.check_every = 13;
  Kept kept;
  const ExplicitRun run = explicit_fe::run_explicit(model, options, world.root() ? &kept : nullptr);
  ASSERT_TRUE(run.ok()) << run.message;
  if (!world.root()) {
    EXPECT_TRUE(run.histories.empty());
    return;
  }
  test::expect_equals_one_domain_and_in_process(model, options, run, kept, world.size());
}

INSTANTIATE_TEST_SUITE_P(Operators, OverProcesses,
                         ::testing::Values(RunCase{"block_csr", "p2p", true}, RunCase{"block_ell", "p2p", true},
                                           RunCase{"block_ell", "allreduce", true}, RunCase{"matrix_free", "p2p", true},
                                           RunCase{"matrix_free", "p2p", false}, RunCase{"sem", "p2p", true},
                                           RunCase{"sem", "p2p", false}, RunCase{"sem", "allreduce", true}),
                         [](const ::testing::TestParamInfo<RunCase>& param) {
                           return std::string(param.param.kind) + "_" + param.param.exchange +
                                  (param.param.overlap ? "_overlap" : "");
                         });

// Stopped by the first process's observer at step 21 after checkpoints every 7 steps (the
// snapshots' interval: a velocity snapshot waits at each), then resumed from the last: the two
// halves give the uninterrupted run's bits.
void expect_stop_and_resume_exact(const Model& model) {
  const Communicator& world = Communicator::world();
  RunOptions options;
  options.backend = "serial";
  options.check_every = 7;
  options.communicator = &world;
  options.domains = world.size();
  Kept whole;
  const ExplicitRun full = explicit_fe::run_explicit(model, options, world.root() ? &whole : nullptr);
  ASSERT_TRUE(full.ok());
  options.checkpoint_every = 7;
  Kept first;
  first.stop_after = 21;
  const ExplicitRun stopped = explicit_fe::run_explicit(model, options, world.root() ? &first : nullptr);
  EXPECT_EQ(stopped.status, explicit_fe::RunStatus::Stopped);  // on every process
  EXPECT_EQ(stopped.steps, 21);
  // Every process resumes from the first's checkpoint (a result file's, in a real run), which the
  // first sends as `tremor run --resume` does.
  explicit_fe::SolverState state;
  if (world.root()) {
    ASSERT_EQ(first.checkpoints.size(), 3u);
    state = first.checkpoints.back();
    EXPECT_TRUE(state.snapshot.active);  // a velocity snapshot waits for step 22
  }
  long long every = 0;
  explicit_fe::broadcast_state(world, state, every);
  options.resume = &state;
  options.checkpoint_every = 0;
  Kept second;
  const ExplicitRun resumed = explicit_fe::run_explicit(model, options, world.root() ? &second : nullptr);
  ASSERT_TRUE(resumed.ok()) << resumed.message;
  if (!world.root()) return;
  test::expect_halves_make_the_whole(full, whole, stopped, first, resumed, second);
}

TEST(OverProcesses, StopAndResumeFromACheckpoint) {
  expect_stop_and_resume_exact(test::loaded_bar(ElementType::Hex8, 1, 4));
}

// The memory variables of an attenuating run (sem, each process's elements split into those
// touching shared nodes and the rest) gathered by the model's elements and sent back.
TEST(OverProcesses, StopAndResumeAnAttenuatingRun) { expect_stop_and_resume_exact(test::attenuating_bar()); }

// A PML's variables at its elements' points and its nodes (a node several processes hold, once).
TEST(OverProcesses, StopAndResumeARunWithAPml) {
  expect_stop_and_resume_exact(test::pml_bar(ElementType::HexGLL, 3, 2));
}

// Water over steel (explicit/coupled_parts.hpp): the fluid's parts sum their forces over the
// processes as the solid's do, point to point and by all-reduce; the samples and snapshots merge on
// the first process; a checkpoint gathers the fluid's potential and sends it back.
TEST(OverProcesses, AModelWithFluids) {
  const Communicator& world = Communicator::world();
  if (world.size() < 2) GTEST_SKIP() << "run under mpirun with several processes";
  const Model model = test::water_field("double", 5, true);
  for (const char* exchange : {"p2p", "allreduce"}) {
    SCOPED_TRACE(exchange);
    RunOptions options;
    options.backend = "serial";
    options.exchange = exchange;
    options.communicator = &world;
    options.domains = world.size();
    options.check_every = 13;
    Kept kept;
    const ExplicitRun run = explicit_fe::run_explicit(model, options, world.root() ? &kept : nullptr);
    ASSERT_TRUE(run.ok()) << run.message;
    if (world.root()) test::expect_equals_one_domain_and_in_process(model, options, run, kept, world.size());
  }
  expect_stop_and_resume_exact(test::water_field("double", 7, true));  // (a snapshot due at the stop, step 21)
  // With a PML in the water (and the steel) on xmax: its state gathered to the first process.
  Model lined = test::water_field("double", 7, true);
  AbsorbingLayer layer;
  layer.kind = AbsorbingKind::Pml;
  layer.faces = {BoxFace::XMax};
  layer.thickness = 0.5;
  layer.origin = "m.toml:70";
  lined.absorbing.push_back(layer);
  lined.validate();
  expect_stop_and_resume_exact(lined);
}

// `model`'s 8 shots stepped 3 together over the processes (3, 3, then 2 and a repeated one) on
// `kind` with `exchange`, against the same decomposition in one process one shot after another, on
// the first process: every history within `tolerance` of its largest value; its observer given
// every shot's samples as the batches step them (merged from the processes), their histories whole.
void expect_together_over_processes(const Model& model, const char* kind, const char* exchange, double tolerance) {
  const Communicator& world = Communicator::world();
  RunOptions options;
  options.backend = "serial";
  options.operator_kind = kind;
  options.exchange = exchange;
  options.communicator = &world;
  options.domains = world.size();
  options.shots_together = 3;
  test::Streamed streamed;
  const ExplicitRun run = explicit_fe::run_explicit(model, options, world.root() ? &streamed : nullptr);
  ASSERT_TRUE(run.ok()) << run.message;
  EXPECT_EQ(run.preflight.shots_together, 3);
  if (!world.root()) return;
  EXPECT_EQ(streamed.one_by_one, 0u);
  EXPECT_EQ(streamed.columns, 3u);
  EXPECT_EQ(std::count(streamed.events.begin(), streamed.events.end(), "batch 6 2"), 1);
  EXPECT_EQ(streamed.of.size(), 8 * run.shots.front().size());
  RunOptions alone = options;
  alone.communicator = nullptr;
  alone.shots_together = 1;
  const ExplicitRun in_process = explicit_fe::run_explicit(model, alone);
  ASSERT_TRUE(in_process.ok()) << in_process.message;
  ASSERT_EQ(run.shots.size(), 8u);
  ASSERT_EQ(in_process.shots.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) test::expect_histories_close(in_process.shots[i], run.shots[i], tolerance);
  EXPECT_NE(run.shots[0][0].values, run.shots[7][0].values);
}

// An array's capture stepped together over the processes: each process's part of the 3 shots'
// forces exchanged at once (dim x 3 values a shared node), the samples merged per shot on the
// first process. Point to point the same bits; by all-reduce (in double, its own order), within
// 1e-12 of the largest value.
TEST(OverProcesses, ACaptureSteppedTogether) {
  if (Communicator::world().size() < 2) GTEST_SKIP() << "run under mpirun with several processes";
  const Model model = io::read_model_buffer(test::array_capture_toml(), "capture.toml", "");
  for (const char* exchange : {"p2p", "allreduce"}) {
    SCOPED_TRACE(exchange);
    expect_together_over_processes(model, "block_csr", exchange, std::string(exchange) == "p2p" ? 0.0 : 1e-12);
  }
}

// An immersed capture (an array of pistons in water over steel) stepped together over the
// processes: each process's part of the water and the steel steps the 3 shots, the fluid's shared
// nodes' forces exchanged for the 3 at once, each part's share of the footprints' mean pressure
// merged per shot on the first process. Point to point: the same bits.
TEST(OverProcesses, AnImmersedCaptureSteppedTogether) {
  if (Communicator::world().size() < 2) GTEST_SKIP() << "run under mpirun with several processes";
  expect_together_over_processes(io::read_model_buffer(test::immersed_array_toml(), "immersed.toml", ""),
                                 "matrix_free", "p2p", 0.0);
}

// Whole shots side by side over the processes (RunOptions::shots_parallel): each steps shots of
// its own on the whole model; on the first, every shot, each the bits of one process's run one
// after another (one and 3 shots at a time).
TEST(OverProcesses, ShotsSideBySide) {
  const Communicator& world = Communicator::world();
  if (world.size() < 2) GTEST_SKIP() << "run under mpirun with several processes";
  const Model model = io::read_model_buffer(test::array_capture_toml(), "capture.toml", "");
  for (const int together : {1, 3}) {
    SCOPED_TRACE(together);
    RunOptions options;
    options.backend = "serial";
    options.operator_kind = "block_csr";
    options.communicator = &world;
    options.domains = world.size();
    options.shots_together = together;
    options.shots_parallel = true;
    const ExplicitRun run = explicit_fe::run_explicit(model, options);
    ASSERT_TRUE(run.ok()) << run.message;
    EXPECT_TRUE(run.preflight.shots_parallel);
    if (!world.root()) {
      EXPECT_TRUE(run.shots.empty());
      continue;
    }
    RunOptions alone = options;
    alone.communicator = nullptr;
    alone.domains = 1;
    alone.shots_parallel.reset();
    const ExplicitRun one = explicit_fe::run_explicit(model, alone);
    ASSERT_TRUE(one.ok()) << one.message;
    ASSERT_EQ(run.shots.size(), 8u);
    for (std::size_t i = 0; i < 8; ++i) test::expect_histories_close(one.shots[i], run.shots[i], 0.0);
  }
}

// A resumed run's checkpoint, read by the first process alone, reaches every process whole.
TEST(OverProcesses, TheFirstProcessSendsTheCheckpoint) {
  const Communicator& world = Communicator::world();
  explicit_fe::SolverState state;
  long long every = 0;
  if (world.root()) {
    state.step = 42;
    state.previous = {1.0, -2.0, 3.5};
    state.current = {4.0, 5.0, 6.0};
    state.receivers.push_back({true, 41, {0.25, 0.5}, {0.75, 1.0}});
    state.receivers.push_back({});
    state.snapshot = {true, 40, {9.0}, {10.0}};
    state.memory_offsets = {0, 2, 3};
    state.memory = {0.5, -1e-300, 2.0 / 3.0};
    state.pml_nodes = {4, 9};
    state.pml_node_values = {1.0, 2.0, 3.0, 4.0};
    state.fluid_pml_offsets = {0, 0, 2};
    state.fluid_pml = {-0.5, 1e300};
    state.fluid_pml_nodes = {3};
    state.fluid_pml_node_values = {7.0, 8.0};
    every = 7;
  }
  explicit_fe::broadcast_state(world, state, every);
  EXPECT_EQ(state.step, 42);
  EXPECT_EQ(every, 7);
  EXPECT_EQ(state.previous, (std::vector<double>{1.0, -2.0, 3.5}));
  EXPECT_EQ(state.current, (std::vector<double>{4.0, 5.0, 6.0}));
  ASSERT_EQ(state.receivers.size(), 2u);
  EXPECT_TRUE(state.receivers[0].active);
  EXPECT_EQ(state.receivers[0].step, 41);
  EXPECT_EQ(state.receivers[0].before, (std::vector<double>{0.25, 0.5}));
  EXPECT_EQ(state.receivers[0].at, (std::vector<double>{0.75, 1.0}));
  EXPECT_FALSE(state.receivers[1].active);
  EXPECT_TRUE(state.snapshot.active);
  EXPECT_EQ(state.snapshot.at, (std::vector<double>{10.0}));
  EXPECT_EQ(state.memory_offsets, (std::vector<Size>{0, 2, 3}));
  EXPECT_EQ(state.memory, (std::vector<double>{0.5, -1e-300, 2.0 / 3.0}));
  EXPECT_EQ(state.pml_nodes, (std::vector<Index>{4, 9}));
  EXPECT_EQ(state.pml_node_values, (std::vector<double>{1.0, 2.0, 3.0, 4.0}));
  EXPECT_EQ(state.fluid_pml_offsets, (std::vector<Size>{0, 0, 2}));
  EXPECT_EQ(state.fluid_pml, (std::vector<double>{-0.5, 1e300}));
  EXPECT_EQ(state.fluid_pml_nodes, (std::vector<Index>{3}));
  EXPECT_EQ(state.fluid_pml_node_values, (std::vector<double>{7.0, 8.0}));
}

// A run that blows up stops on every process at the same step, naming the node (the worst over
// all processes) on each.
TEST(OverProcesses, NonFiniteStateStopsEveryProcess) {
  const Communicator& world = Communicator::world();
  const Model model = test::loaded_bar(ElementType::Hex8, 1, 4);
  RunOptions options;
  options.backend = "serial";
  options.communicator = &world;
  options.domains = world.size();
  options.allow_unstable = true;
  options.time_step = 3.0 * explicit_fe::preflight(model, options).stable_dt;
  options.duration = 2000 * *options.time_step;
  const ExplicitRun run = explicit_fe::run_explicit(model, options);
  EXPECT_EQ(run.status, explicit_fe::RunStatus::Failed);
  EXPECT_GT(run.bad_step, 0);
  const std::vector<double> steps = world.all_gather(double(run.bad_step)), nodes = world.all_gather(double(run.bad_node));
  for (int r = 1; r < world.size(); ++r) {
    EXPECT_EQ(steps[static_cast<std::size_t>(r)], steps[0]);
    EXPECT_EQ(nodes[static_cast<std::size_t>(r)], nodes[0]);
  }
}

// On GPUs (one per process where the host has several; NcclExchange): the same run against one
// GPU's, computed by the first process (test::gpu_run_cases).
TEST(OverProcessesGpu, EqualsOneGpu) {
  TREMOR_REQUIRE_GPU();
  const Communicator& world = Communicator::world();
  test::expect_gpu_cases_equal_one_gpu(world, world.root(), [&](const Model& model, const RunOptions& options, Kept& kept) {
    return explicit_fe::run_explicit(model, options, world.root() ? &kept : nullptr);
  });
}

}  // namespace
}  // namespace tremor
