// Snapshots of the explicit solver on the GPU (explicit/snapshots.hpp) against the CPU's, and the
// asynchronous device-to-host copies under them (backend/async_copy.hpp).
//
// Tolerances (relative L2 over each snapshot field, against the largest such field of the run):
//   double 1e-10: the GPU contracts multiply-adds into FMAs in the time step, so the state differs
//                 from the CPU's in the last bits and stays near 1e-13 relative over these few
//                 dozen steps; the snapshot's own gather and velocity difference add no rounding
//                 of their own (a subtraction and a product, never contracted). A wrong entry, a
//                 step off or a copy of a buffer not yet written shows at 1e-2 or more.
//   float   1e-4: the same with a 2^-24 unit roundoff instead of 2^-53.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "support/support.hpp"
#include "tremor/backend/async_copy.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/explicit/solver.hpp"
#include "unit/explicit_test_models.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::RunOptions;

struct Seen {
  long long step = 0;
  std::vector<double> displacement, velocity;
  bool displacement_page_locked = false, velocity_page_locked = false;
  bool other_thread = false;
};

struct Collector final : explicit_fe::Observer {
  std::vector<Seen> snapshots;
  void on_snapshot(const explicit_fe::Snapshot& s) override {
    snapshots.push_back({s.step, {s.displacement.begin(), s.displacement.end()}, {s.velocity.begin(), s.velocity.end()},
                         page_locked_host_memory(s.displacement.data()), page_locked_host_memory(s.velocity.data()),
                         std::this_thread::get_id() != caller});
  }
  std::thread::id caller = std::this_thread::get_id();
};

// The block of unit/explicit_test_models.hpp (338 DOFs, more than a warp) with snapshots every 3
// steps, with or without velocity, of all nodes or of every 5th.
Model snapshot_model(const std::string& precision, bool velocity, bool subset) {
  Model model = test::loaded_block(4e-6, 2e6, 2);
  model.explicit_settings->precision = precision;
  OutputSettings output;
  output.snapshot_every = 3;
  output.velocity = velocity;
  if (subset)
    for (Index node = 1; node < 169; node += 5) output.snapshot_nodes.push_back(node);  // ascending, as the model needs
  model.output = output;
  model.validate();
  return model;
}

void expect_gpu_snapshots_match(const std::string& precision, bool velocity, bool subset, double tolerance) {
  SCOPED_TRACE(precision + (velocity ? " with velocity" : "") + (subset ? ", node subset" : ""));
  const Model model = snapshot_model(precision, velocity, subset);
  RunOptions options;
  options.backend = "serial";
  Collector cpu;
  const auto cpu_run = explicit_fe::run_explicit(model, options, &cpu);
  ASSERT_TRUE(cpu_run.ok()) << cpu_run.message;
  options.backend = "cuda";
  options.ordering = "rcm";  // and through the renumbering on the GPU
  Collector gpu;
  const auto gpu_run = explicit_fe::run_explicit(model, options, &gpu);
  ASSERT_TRUE(gpu_run.ok()) << gpu_run.message;

  ASSERT_EQ(cpu.snapshots.size(), gpu.snapshots.size());
  ASSERT_GT(gpu.snapshots.size(), 5u);
  double scale_u = 0.0, scale_v = 0.0;
  for (const Seen& s : cpu.snapshots) {
    scale_u = std::max(scale_u, test::l2_norm(s.displacement));
    scale_v = std::max(scale_v, test::l2_norm(s.velocity));
  }
  ASSERT_GT(scale_u, 0.0) << "nothing moved: the comparison would prove nothing";
  if (velocity) {
    ASSERT_GT(scale_v, 0.0);
  }
  int page_locked = 0;
  for (std::size_t s = 0; s < gpu.snapshots.size(); ++s) {
    const Seen& a = cpu.snapshots[s];
    const Seen& b = gpu.snapshots[s];
    EXPECT_EQ(a.step, b.step);
    ASSERT_EQ(a.displacement.size(), b.displacement.size());
    ASSERT_EQ(a.velocity.size(), b.velocity.size());
    EXPECT_LE(test::l2_distance(a.displacement, b.displacement), tolerance * scale_u) << "step " << a.step;
    EXPECT_LE(test::l2_distance(a.velocity, b.velocity), tolerance * scale_v) << "step " << a.step;
    // Both runs pass snapshots on from the writer thread; only the GPU's buffers are page-locked.
    EXPECT_TRUE(a.other_thread);
    EXPECT_TRUE(b.other_thread);
    EXPECT_FALSE(a.displacement_page_locked);
    // A double displacement and the velocity are handed over in the page-locked buffer the copy
    // stream wrote; a float displacement is widened to double in a buffer of the writer's first.
    if (precision == "double") page_locked += b.displacement_page_locked ? 1 : 0;
    if (velocity) page_locked += b.velocity_page_locked ? 1 : 0;
  }
  const int expected = static_cast<int>(gpu.snapshots.size()) * ((precision == "double" ? 1 : 0) + (velocity ? 1 : 0));
  EXPECT_EQ(page_locked, expected);
}

TEST(SnapshotParity, GpuSnapshotsEqualTheCpusInDouble) {
  TREMOR_REQUIRE_GPU();
  expect_gpu_snapshots_match("double", true, false, 1e-10);
  expect_gpu_snapshots_match("double", false, true, 1e-10);
}

TEST(SnapshotParity, GpuSnapshotsEqualTheCpusInFloat) {
  TREMOR_REQUIRE_GPU();
  expect_gpu_snapshots_match("float", true, true, 1e-4);
  expect_gpu_snapshots_match("float", false, false, 1e-4);
}

// values[i] = round + i, after `repeats` passes over the array (a kernel long enough that a copy
// not ordered after it would read the previous round's values).
void fill_rounds(const Exec& exec, View<double> values, double round, int repeats) {
  for (int r = 0; r < repeats; ++r)
    forall(exec, values.size, [=] TREMOR_LAMBDA(Index i) {
      values[i] = r + 1 == repeats ? round + static_cast<double>(i) : values[i] * 0.5 + 1.0;
    });
}

TEST(AsyncCopyParity, GpuCopyStartsAfterTheKernelsIssuedBeforeIt) {
  TREMOR_REQUIRE_GPU();
  const Exec exec = Exec::cuda();
  const Index n = Index(1) << 24;  // 128 MB: each pass takes tens of microseconds
  DeviceArray<double> values(exec, n);
  PinnedArray<double> host(exec, n);
  EXPECT_TRUE(host.page_locked());
  EXPECT_TRUE(page_locked_host_memory(host.data()));
  CopyStream copies(exec);
  CopyEvent done(exec);
  for (int round = 1; round <= 4; ++round) {
    fill_rounds(exec, values.view(), 1000.0 * round, 20);
    copies.copy_to_host(host, values);
    copies.record(done);
    done.wait();  // on the host, no exec.synchronize(): the event alone orders the read
    Index wrong = 0;
    const std::span<const double> copied = std::as_const(host).span();
    for (Index i = 0; i < n; ++i) wrong += copied[static_cast<std::size_t>(i)] != 1000.0 * round + i ? 1 : 0;
    EXPECT_EQ(wrong, 0) << "round " << round;
  }
}

}  // namespace
}  // namespace tremor
