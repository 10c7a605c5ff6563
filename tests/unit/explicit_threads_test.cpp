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
#include "tremor/parallel/communicator.hpp"
#include "unit/explicit_test_models.hpp"

namespace tremor {
namespace {

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
  EXPECT_EQ(run.status, explicit_fe::RunStatus::NonFinite);
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

}  // namespace
}  // namespace tremor
