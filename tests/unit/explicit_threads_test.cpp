// A run over a group of threads (tremor run --gpus N; explicit_fe::run_threads): the members of
// parallel::Communicator::threads behave as processes would, each thread stepping one subdomain
// and the first merging the samples and snapshots. The group's operations first, then the runs
// against one domain (1e-12 of each history's largest value: the shared nodes' sums in another
// order) and against the same decomposition in one process (the same bits with the
// point-to-point exchange), as tests/mpi does over processes; then stops, resumes and failures.
#include <gtest/gtest.h>
#include <algorithm>

#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/runs.hpp"
#include "support/support.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/explicit/processes.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/parallel/communicator.hpp"
#include "unit/explicit_test_models.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::ExplicitRun;
using explicit_fe::RunOptions;
using parallel::Communicator;
using test::case_model;
using test::case_options;
using test::expect_runs_close;
using test::Kept;
using test::RunCase;

// body(member) on a thread per member (the first on this one); the messages of the members'
// failures, empty where none.
std::vector<std::string> on_threads(const std::vector<Communicator>& members,
                                    const std::function<void(const Communicator&)>& body) {
  std::vector<std::string> failures(members.size());
  const auto run = [&](std::size_t k) {
    try {
      body(members[k]);
    } catch (const std::exception& e) {
      failures[k] = e.what();
      members[k].fail(e.what());  // as run_threads does: the others stop waiting
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t k = 1; k < members.size(); ++k) threads.emplace_back(run, k);
  run(0);
  for (std::thread& t : threads) t.join();
  return failures;
}

TEST(ThreadGroup, CollectivesAsProcesses) {
  const std::vector<Communicator> members = Communicator::threads(3, "GPU");
  EXPECT_TRUE(members[1].threaded());
  EXPECT_EQ(members[2].name(1), "GPU 1 of 3");
  std::vector<std::vector<double>> gathered(3);
  std::vector<std::vector<std::vector<char>>> bytes(3);
  std::vector<std::vector<char>> broadcast(3);
  const auto failures = on_threads(members, [&](const Communicator& me) {
    const auto r = static_cast<std::size_t>(me.rank());
    EXPECT_EQ(me.local_rank(), me.rank());  // the GPU it takes
    gathered[r] = me.all_gather(1.5 * me.rank());
    bytes[r] = me.gather(std::vector<char>(r + 1, static_cast<char>('a' + r)));
    broadcast[r] = me.rank() == 1 ? std::vector<char>{'x', 'y'} : std::vector<char>{'z'};
    me.broadcast(broadcast[r], 1);
    me.barrier();
  });
  for (const std::string& f : failures) EXPECT_EQ(f, "");
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(gathered[r], (std::vector<double>{0.0, 1.5, 3.0}));
    EXPECT_EQ(broadcast[r], (std::vector<char>{'x', 'y'}));
  }
  EXPECT_EQ(bytes[0], (std::vector<std::vector<char>>{{'a'}, {'b', 'b'}, {'c', 'c', 'c'}}));
  EXPECT_TRUE(bytes[1].empty());  // on the root only
}

// Sums in rank order, the same bits on every member: 1e16 + 1 rounds to 1e16, so any other order
// than (1e16 + 1) - 1e16 would give 1.
TEST(ThreadGroup, SumsInRankOrder) {
  const std::vector<Communicator> members = Communicator::threads(3);
  std::vector<std::vector<double>> sums(3);
  std::vector<double> scalar(3);
  const auto failures = on_threads(members, [&](const Communicator& me) {
    const double mine[] = {1e16, 1.0, -1e16};
    const auto r = static_cast<std::size_t>(me.rank());
    sums[r] = {mine[r], 2.0 * mine[r]};
    parallel::Requests started = me.start_sum(sums[r]);
    EXPECT_TRUE(started.pending());
    me.wait(started);
    EXPECT_FALSE(started.pending());
    scalar[r] = me.sum(mine[r]);
  });
  for (const std::string& f : failures) EXPECT_EQ(f, "");
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(sums[r], (std::vector<double>{0.0, 0.0}));
    EXPECT_EQ(scalar[r], 0.0);
  }
}

// Every member sends to each other one, round after round into the same buffers (each round's
// message must be taken before the next is posted).
TEST(ThreadGroup, ExchangesRoundAfterRound) {
  const int n = 3, rounds = 200;
  const std::vector<Communicator> members = Communicator::threads(n);
  std::vector<int> wrong(n, 0);
  const auto failures = on_threads(members, [&](const Communicator& me) {
    std::vector<int> peers;
    for (int p = 0; p < n; ++p)
      if (p != me.rank()) peers.push_back(p);
    std::vector<std::vector<double>> send(peers.size()), receive(peers.size());
    for (int round = 0; round < rounds; ++round) {
      std::vector<std::span<const double>> out;
      std::vector<std::span<double>> in;
      for (std::size_t i = 0; i < peers.size(); ++i) {
        // From r to p, round k: 3 values (the sizes differ between pairs: 1 + r + p).
        send[i].assign(static_cast<std::size_t>(1 + me.rank() + peers[i]), 1000.0 * me.rank() + peers[i] + 1e-3 * round);
        receive[i].assign(send[i].size(), -1.0);
        out.emplace_back(send[i]);
        in.emplace_back(receive[i]);
      }
      parallel::Requests started = me.start_exchange(peers, out, in);
      me.wait(started);
      for (std::size_t i = 0; i < peers.size(); ++i)
        for (const double v : receive[i]) wrong[static_cast<std::size_t>(me.rank())] += v != 1000.0 * peers[i] + me.rank() + 1e-3 * round;
    }
  });
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(failures[static_cast<std::size_t>(r)], "");
    EXPECT_EQ(wrong[static_cast<std::size_t>(r)], 0) << "member " << r;
  }
}

// A member that fails stops the others' waits with its message, now and later; a message of the
// wrong size is refused naming both members.
TEST(ThreadGroup, AFailureStopsTheOthers) {
  const std::vector<Communicator> members = Communicator::threads(2, "GPU");
  const auto failures = on_threads(members, [&](const Communicator& me) {
    if (me.rank() == 1) throw Error("GPU 1 of 2: out of memory");
    me.barrier();  // would wait for ever for member 1
  });
  EXPECT_EQ(failures[0], "GPU 1 of 2: out of memory");
  EXPECT_EQ(members[0].failure(), "GPU 1 of 2: out of memory");
  EXPECT_EQ(test::error_of([&] { (void)members[0].all_gather(1.0); }), "GPU 1 of 2: out of memory");

  const std::vector<Communicator> pair = Communicator::threads(2, "GPU");
  const auto sizes = on_threads(pair, [&](const Communicator& me) {
    std::vector<double> send(me.rank() == 0 ? 3 : 4, 1.0), receive(4);
    const int peer[] = {1 - me.rank()};
    const std::span<const double> out[] = {send};
    const std::span<double> in[] = {receive};
    parallel::Requests started = me.start_exchange(peer, out, in);
    me.wait(started);
  });
  EXPECT_NE(sizes[1].find("GPU 1 of 2 expected 4 values from GPU 0 of 2, which sent 3"), std::string::npos) << sizes[1];
}

struct ThreadCase {
  RunCase run;
  int members;
};

class OverThreads : public ::testing::TestWithParam<ThreadCase> {};

TEST_P(OverThreads, EqualsOneDomainAndTheSameDecompositionInOneProcess) {
  const auto [c, n] = GetParam();
  const Model model = case_model(c);
  const std::vector<Communicator> members = Communicator::threads(n);
  RunOptions options = case_options(c, "serial", members.front());
  options.check_every = 13;
  Kept kept;
  const ExplicitRun run = explicit_fe::run_threads(model, options, &kept, members);
  ASSERT_TRUE(run.ok()) << run.message;
  test::expect_equals_one_domain_and_in_process(model, options, run, kept, n);
}

INSTANTIATE_TEST_SUITE_P(Operators, OverThreads,
                         ::testing::Values(ThreadCase{{"block_csr", "p2p", true}, 2}, ThreadCase{{"block_ell", "p2p", true}, 3},
                                           ThreadCase{{"block_ell", "allreduce", true}, 2},
                                           ThreadCase{{"matrix_free", "p2p", true}, 3},
                                           ThreadCase{{"sem", "p2p", true}, 2}, ThreadCase{{"sem", "p2p", false}, 3},
                                           ThreadCase{{"sem", "allreduce", true}, 3}),
                         [](const ::testing::TestParamInfo<ThreadCase>& param) {
                           const RunCase& c = param.param.run;
                           return str(c.kind, "_", c.exchange, c.overlap ? "_overlap" : "", "_", param.param.members);
                         });

// Stopped by the first member's observer at step 21 after checkpoints every 7 steps, then resumed
// from the last: the two halves give the uninterrupted run's bits.
TEST(OverThreads, StopAndResumeFromACheckpoint) {
  const Model model = test::loaded_bar(ElementType::Hex8, 1, 4);
  const std::vector<Communicator> members = Communicator::threads(2);
  RunOptions options;
  options.backend = "serial";
  options.check_every = 7;
  options.domains = 2;
  Kept whole;
  const ExplicitRun full = explicit_fe::run_threads(model, options, &whole, members);
  ASSERT_TRUE(full.ok());
  options.checkpoint_every = 7;
  Kept first;
  first.stop_after = 21;
  const ExplicitRun stopped = explicit_fe::run_threads(model, options, &first, members);
  EXPECT_EQ(stopped.status, explicit_fe::RunStatus::Stopped);
  EXPECT_EQ(stopped.steps, 21);
  ASSERT_EQ(first.checkpoints.size(), 3u);
  const explicit_fe::SolverState state = first.checkpoints.back();
  options.resume = &state;
  options.checkpoint_every = 0;
  Kept second;
  const ExplicitRun resumed = explicit_fe::run_threads(model, options, &second, members);
  ASSERT_TRUE(resumed.ok()) << resumed.message;
  test::expect_halves_make_the_whole(full, whole, stopped, first, resumed, second);
}

// A run that blows up stops every member at the same step, and says what the single-domain run
// says: the same step, node and count of values that are not finite (a shared node's copies
// counted once).
TEST(OverThreads, NonFiniteStateStopsEveryMember) {
  const Model model = test::loaded_bar(ElementType::Hex8, 1, 4);
  const std::vector<Communicator> members = Communicator::threads(3);
  RunOptions options;
  options.backend = "serial";
  options.allow_unstable = true;
  options.communicator = &members.front();
  options.time_step = 3.0 * explicit_fe::preflight(model, options).stable_dt;
  options.duration = 2000 * *options.time_step;
  const ExplicitRun run = explicit_fe::run_threads(model, options, nullptr, members);
  EXPECT_EQ(run.status, explicit_fe::RunStatus::Failed);
  EXPECT_GT(run.bad_step, 0);
  EXPECT_LT(run.bad_step, 2000);
  EXPECT_NE(run.message.find("is not finite at step " + std::to_string(run.bad_step)), std::string::npos) << run.message;
  options.communicator = nullptr;
  const ExplicitRun single = explicit_fe::run_explicit(model, options);
  EXPECT_EQ(run.message, single.message);
}

// The first member failing where the others cannot know (its observer, at the start): they stop
// at their next wait instead of waiting for it, and the run throws the first member's error.
TEST(OverThreads, TheFirstMembersFailureStopsEveryMember) {
  struct Failing final : explicit_fe::Observer {
    void on_start(const explicit_fe::Preflight&) override { throw Error("the observer failed"); }
  } failing;
  const Model model = test::loaded_bar(ElementType::Hex8, 1, 4);
  const std::vector<Communicator> members = Communicator::threads(2);
  RunOptions options;
  options.backend = "serial";
  EXPECT_EQ(test::error_of([&] { (void)explicit_fe::run_threads(model, options, &failing, members); }),
            "the observer failed");
  EXPECT_EQ(members[1].failure(), "the observer failed");
  // Not the members of a group of threads.
  EXPECT_NE(test::error_of([&] {
              (void)explicit_fe::run_threads(model, options, nullptr, std::vector<Communicator>{Communicator::world()});
            }).find("the members of a group of threads"),
            std::string::npos);
}

// Whole shots side by side (RunOptions::shots_parallel): each member steps shots of its own on the
// whole model, and the first passes every shot to the observer, each begun and ended in the
// model's order. Every shot's histories are the bits of one domain's run one after another: the
// same set-up, operator and sums, on another thread.
struct ShotOrder final : explicit_fe::Observer {
  std::vector<std::size_t> begun, ended;
  int progress = 0, stop_after = 0;  // stop_after > 0: a stop asked at that progress call
  void on_shot(std::size_t index, bool) override { begun.push_back(index); }
  void on_shot_end(std::size_t index, const std::vector<explicit_fe::History>&) override { ended.push_back(index); }
  void on_progress(long long, long long, double) override { ++progress; }
  bool stop_requested() override { return stop_after > 0 && progress >= stop_after; }
};

std::vector<std::size_t> up_to(std::size_t n) {
  std::vector<std::size_t> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = i;
  return all;
}

// The array capture (8 shots) and the options of its runs on the host: block_csr, checked every
// `check_every` steps.
Model capture_model() { return io::read_model_buffer(test::array_capture_toml(), "capture.toml", ""); }
RunOptions capture_options(int check_every) {
  RunOptions options;
  options.backend = "serial";
  options.operator_kind = "block_csr";
  options.check_every = check_every;
  return options;
}

TEST(OverThreads, ShotsSideBySideAreTheBitsOfOneDomain) {
  const Model model = capture_model();
  const RunOptions alone = capture_options(20);
  const ExplicitRun one = explicit_fe::run_explicit(model, alone);
  ASSERT_TRUE(one.ok()) << one.message;
  ASSERT_EQ(one.shots.size(), 8u);
  for (const int n : {2, 3})
    for (const int together : {1, 3}) {
      SCOPED_TRACE(str(n, " members, ", together, " together"));
      const std::vector<Communicator> members = Communicator::threads(n);
      RunOptions options = alone;
      options.domains = n;  // (as tremor run --gpus N says: a subdomain each, unless side by side)
      options.shots_parallel = true;
      options.shots_together = together;
      ShotOrder order;
      const ExplicitRun run = explicit_fe::run_threads(model, options, &order, members);
      ASSERT_TRUE(run.ok()) << run.message;
      EXPECT_TRUE(run.preflight.shots_parallel);
      EXPECT_EQ(run.preflight.domains, 1);
      EXPECT_FALSE(run.preflight.decomposed());
      EXPECT_EQ(run.preflight.shots_together, together);
      EXPECT_EQ(order.begun, up_to(8));
      EXPECT_EQ(order.ended, up_to(8));
      ASSERT_EQ(run.shots.size(), 8u);
      for (std::size_t i = 0; i < 8; ++i) test::expect_histories_close(one.shots[i], run.shots[i], 0.0);
      EXPECT_NE(run.shots[0][0].values, run.shots[7][0].values);  // (each shot its own)
      EXPECT_EQ(run.steps, one.steps);
      EXPECT_GT(run.dof_steps_per_second, 0.0);
    }
}

// A stop asked of the first member ends its batch there; the others' batches of the round run to
// their ends and are kept whole: nothing they stepped is lost. Then every member stops.
TEST(OverThreads, AStopSideBySideKeepsTheRoundsShots) {
  const Model model = capture_model();
  const ExplicitRun one = explicit_fe::run_explicit(model, capture_options(10));
  RunOptions options = capture_options(10);
  options.shots_parallel = true;
  options.shots_together = 1;
  const std::vector<Communicator> members = Communicator::threads(2);
  ShotOrder order;
  order.stop_after = 2;
  const ExplicitRun run = explicit_fe::run_threads(model, options, &order, members);
  EXPECT_EQ(run.status, explicit_fe::RunStatus::Stopped);
  EXPECT_NE(run.message.find("on request"), std::string::npos) << run.message;
  // 8 batches of one shot in rounds of two: shot 0 (the first member's, stopped), shot 1 (whole).
  ASSERT_EQ(run.shots.size(), 2u);
  EXPECT_EQ(order.ended, up_to(2));
  test::expect_histories_close(one.shots[1], run.shots[1], 0.0);
  ASSERT_FALSE(run.shots[0].empty());
  EXPECT_LT(run.shots[0][0].n_samples(), one.shots[0][0].n_samples());
}

// Checkpoints side by side, between rounds only (SolverState::at_rest): 8 shots over 2 members
// (rounds of two batches), one at a time and 2 together, stopped within the second round, and (one
// at a time, where a round follows it) at its end.
// Each leaves the checkpoint of the next round's first shot at rest; resumed side by side from it,
// the shots from there are one domain's bits, over 2 members or 3 (the shots shared out afresh).
TEST(OverThreads, ShotsSideBySideCheckpointBetweenRounds) {
  struct Stopping final : explicit_fe::Observer {
    std::size_t shot = 0;
    long long stop_step = 0, step = 0;
    std::vector<explicit_fe::SolverState> checkpoints;
    void on_shot(std::size_t index, bool) override { shot = index; }
    void on_progress(long long s, long long, double) override { step = s; }
    void on_checkpoint(const explicit_fe::SolverState& state) override { checkpoints.push_back(state); }
    // (Side by side, a round's shots begin as it ends: the second round steps after shot 1's.)
    bool stop_requested() override { return shot >= 1 && step >= stop_step; }
  };
  const Model model = capture_model();
  const ExplicitRun one = explicit_fe::run_explicit(model, capture_options(10));
  ASSERT_TRUE(one.ok()) << one.message;
  const long long steps = one.preflight.steps;
  for (const int together : {1, 2}) {
    // (Rounds of two batches: one shot each, or two.)
    const std::size_t round = 2 * static_cast<std::size_t>(together);
    for (const long long stop_step : {steps / 2, steps}) {
      if (together > 1 && stop_step == steps) continue;  // (the second round is the last)
      SCOPED_TRACE(str(together, " together, stopped at step ", stop_step, " of ", steps));
      RunOptions options = capture_options(10);
      options.shots_parallel = true;
      options.shots_together = together;
      options.checkpoint_every = 10;  // (within a round, not applied)
      const std::vector<Communicator> members = Communicator::threads(2);
      Stopping stopping;
      stopping.stop_step = stop_step;
      const ExplicitRun stopped = explicit_fe::run_threads(model, options, &stopping, members);
      ASSERT_EQ(stopped.status, explicit_fe::RunStatus::Stopped) << stopped.message;
      EXPECT_TRUE(stopped.preflight.shots_parallel);
      // The first round's end; the second's where it was stopped at its end.
      const std::size_t next = stop_step == steps ? 2 * round : round;
      ASSERT_EQ(stopping.checkpoints.size(), next / round);
      for (std::size_t c = 0; c < stopping.checkpoints.size(); ++c) {
        EXPECT_TRUE(stopping.checkpoints[c].at_rest);
        EXPECT_EQ(stopping.checkpoints[c].shot, static_cast<int>(round * (c + 1)));
        EXPECT_TRUE(stopping.checkpoints[c].current.empty());
      }
      for (const int n : {2, 3}) {
        const std::vector<Communicator> again = Communicator::threads(n);
        RunOptions resume = options;
        resume.resume = &stopping.checkpoints.back();
        const ExplicitRun resumed = explicit_fe::run_threads(model, resume, nullptr, again);
        ASSERT_TRUE(resumed.ok()) << resumed.message;
        EXPECT_TRUE(resumed.preflight.shots_parallel);
        ASSERT_EQ(resumed.shots.size(), 8 - next) << n << " members";
        for (std::size_t i = next; i < 8; ++i)
          test::expect_histories_close(one.shots[i], resumed.shots[i - next], 0.0);
      }
    }
  }
  // Without checkpoints, none between rounds.
  RunOptions options = capture_options(10);
  options.shots_parallel = true;
  const std::vector<Communicator> members = Communicator::threads(2);
  Stopping stopping;
  stopping.stop_step = steps;
  const ExplicitRun stopped = explicit_fe::run_threads(model, options, &stopping, members);
  EXPECT_EQ(stopped.status, explicit_fe::RunStatus::Stopped) << stopped.message;
  EXPECT_TRUE(stopping.checkpoints.empty());
}

// The first member's observer failing as a round's shots reach it (the result file's writer, say):
// every member stops with its message, none left waiting.
TEST(OverThreads, AWriterFailingSideBySideStopsEveryMember) {
  struct Failing final : explicit_fe::Observer {
    void on_shot_end(std::size_t, const std::vector<explicit_fe::History>&) override {
      throw Error("the writer failed");
    }
  } failing;
  const Model model = capture_model();
  const std::vector<Communicator> members = Communicator::threads(3);
  RunOptions options;
  options.backend = "serial";
  options.shots_parallel = true;
  EXPECT_EQ(test::error_of([&] { (void)explicit_fe::run_threads(model, options, &failing, members); }),
            "the writer failed");
}

// What asks for shots side by side and cannot have them is refused, naming why; "auto" chooses
// them on GPUs only, and says why not elsewhere.
TEST(OverThreads, ShotsSideBySideRefusedWhereTheyCannotBe) {
  const Model model = capture_model();
  const std::vector<Communicator> members = Communicator::threads(2);
  RunOptions options;
  options.backend = "serial";
  options.shots_parallel = true;
  EXPECT_NE(test::error_of([&] { (void)explicit_fe::preflight(model, options); })
                .find("capture.toml: whole shots side by side (--shots-parallel) need several GPUs (--gpus N) or "
                      "processes (mpirun -np N)"),
            std::string::npos);
  options.communicator = &members.front();
  options.domains = 2;
  options.checkpoint_every = 10;  // side by side where asked, checkpointed between rounds
  EXPECT_TRUE(explicit_fe::preflight(model, options).shots_parallel);
  explicit_fe::SolverState within;  // a checkpoint within shot 1, which holds that shot alone
  within.step = 20;
  options.resume = &within;
  EXPECT_NE(test::error_of([&] { (void)explicit_fe::preflight(model, options); })
                .find("whole shots side by side over the 2 GPUs (--shots-parallel) asked for, but the run resumes "
                      "from a checkpoint within shot 1"),
            std::string::npos);
  options.resume = nullptr;
  options.shots_parallel.reset();  // not chosen with checkpoints, which the model decomposed takes every N steps
  EXPECT_NE(explicit_fe::preflight(model, options).shots_parallel_why.find("which shots side by side write only "
                                                                           "between rounds"),
            std::string::npos);
  options.shots_parallel = true;
  options.checkpoint_every = 0;
  const Model bar = test::loaded_bar(ElementType::Hex8, 1, 4);
  EXPECT_NE(test::error_of([&] { (void)explicit_fe::preflight(bar, options); }).find("but the model has 0 shots"),
            std::string::npos);
  options.shots_parallel.reset();
  const explicit_fe::Preflight host = explicit_fe::preflight(model, options);
  EXPECT_FALSE(host.shots_parallel);
  EXPECT_EQ(host.domains, 2);
  EXPECT_NE(host.shots_parallel_why.find("on serial, where each process would hold the whole model"),
            std::string::npos);
  options.shots_parallel = false;
  EXPECT_EQ(explicit_fe::preflight(model, options).shots_parallel_why, "asked for (--no-shots-parallel)");
}

// On GPUs: a thread per GPU where the host has two to four (NcclExchange between them), or two
// threads on the one GPU of a host with one (host buffers exchanged through the group), against
// one GPU's run (test::gpu_run_cases).
TEST(OverThreadsGpu, EqualsOneGpu) {
  TREMOR_REQUIRE_GPU();
  const int threads = std::clamp(cuda_device_count(), 2, 4);
  const std::vector<Communicator> members = Communicator::threads(threads, "GPU");
  test::expect_gpu_cases_equal_one_gpu(members.front(), true, [&](const Model& model, const RunOptions& options, Kept& kept) {
    return explicit_fe::run_threads(model, options, &kept, members);
  });
}

// Shots side by side on GPUs: two members (on one GPU where the host has one, each its own
// stream), block_ell colour by colour stepping 3 shots together: every shot the bits of one GPU's
// run of the same settings.
TEST(OverThreadsGpu, ShotsSideBySideAreTheBitsOfOneGpu) {
  TREMOR_REQUIRE_GPU();
  const Model model = capture_model();
  RunOptions options;
  options.backend = "cuda";
  options.operator_kind = "block_ell";
  options.deterministic = true;
  options.shots_together = 3;
  const ExplicitRun one = explicit_fe::run_explicit(model, options);
  ASSERT_TRUE(one.ok()) << one.message;
  const std::vector<Communicator> members = Communicator::threads(2, "GPU");
  options.shots_parallel = true;
  ShotOrder order;
  const ExplicitRun run = explicit_fe::run_threads(model, options, &order, members);
  ASSERT_TRUE(run.ok()) << run.message;
  EXPECT_TRUE(run.preflight.shots_parallel);
  EXPECT_EQ(order.ended, up_to(8));
  ASSERT_EQ(run.shots.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) test::expect_histories_close(one.shots[i], run.shots[i], 0.0);
}

}  // namespace
}  // namespace tremor
