// forall_blocks on every backend against Serial: a block reduction through shared memory with
// barriers (a tree, the same bits everywhere) and warp sums, with outputs poisoned by NaN; the
// errors for launches no GPU could run; the Exec-owned scratch that sum() reuses; and kernels
// queued on a stream each seeing the whole of the one before (programmatic launches).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/backend/cuda_check.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall_blocks.hpp"
#include "tremor/backend/reduce.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// More than a warp per block, blocks that do not divide n (a short last block).
constexpr Index n = 100003;
constexpr int threads = 128;

struct BlockSums {
  std::vector<double> tree;  // per block: strided per-thread sums added by a halving tree
  std::vector<double> warps;  // per block: warp_sum per warp, then the warps in order
};

// Block b stages x[b chunk, (b + 1) chunk) in shared memory, then sums it: thread t adds entries
// t, t + threads, ... of the staged chunk, the per-thread sums are halved in a tree (a barrier per
// level), and the same per-thread sums are added by warp_sum. chunk sets the shared memory:
// (chunk + threads + threads / 32) doubles.
BlockSums block_sums(const Exec& exec, const std::vector<double>& x, int chunk) {
  const Index n_blocks = (n + chunk - 1) / chunk;
  DeviceArray<double> dx(exec, std::span<const double>(x));
  const std::vector<double> poison(static_cast<std::size_t>(n_blocks), std::numeric_limits<double>::quiet_NaN());
  DeviceArray<double> tree(exec, std::span<const double>(poison)), warps(exec, std::span<const double>(poison));
  const auto vx = dx.view();
  double* tree_out = tree.data();
  double* warp_out = warps.data();
  const std::size_t shared_bytes = sizeof(double) * (static_cast<std::size_t>(chunk) + threads + threads / 32);
  forall_blocks(exec, n_blocks, threads, shared_bytes, [=] TREMOR_LAMBDA(const BlockContext& ctx) {
    double* staged = ctx.shared<double>();
    double* partial = staged + chunk;
    double* per_warp = partial + threads;
    const Index begin = ctx.block * chunk;
    const int count = n - begin < chunk ? static_cast<int>(n - begin) : chunk;
    for_each_thread(ctx, count, [&](int k) { staged[k] = vx[begin + k]; });
    ctx.sync();
    for_each_thread(ctx, ctx.threads, [&](int t) {
      double acc = 0.0;
      for (int k = t; k < count; k += ctx.threads) acc += staged[k];
      partial[t] = acc;
      warp_sum(t, acc, &per_warp[t / 32]);
    });
    ctx.sync();
    for (int width = ctx.threads / 2; width > 0; width /= 2) {
      for_each_thread(ctx, width, [&](int t) { partial[t] += partial[t + width]; });
      ctx.sync();
    }
    for_each_thread(ctx, 1, [&](int) {
      tree_out[ctx.block] = partial[0];
      double total = 0.0;
      for (int w = 0; w < ctx.threads / 32; ++w) total += per_warp[w];
      warp_out[ctx.block] = total;
    });
  });
  exec.synchronize();
  return {tree.to_host(), warps.to_host()};
}

std::vector<double> inputs() {
  std::vector<double> x(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = std::sin(0.001 * i) + 0.25;
  return x;
}

void check_block_sums(const Exec& exec, int chunk) {
  const std::vector<double> x = inputs();
  const BlockSums reference = block_sums(Exec::serial(), x, chunk);
  const BlockSums result = block_sums(exec, x, chunk);
  ASSERT_EQ(result.tree.size(), reference.tree.size());
  const auto size = static_cast<std::size_t>(chunk);
  for (std::size_t b = 0; b < reference.tree.size(); ++b) {
    double direct = 0.0, magnitude = 0.0;
    for (std::size_t i = b * size; i < std::min(x.size(), (b + 1) * size); ++i) {
      direct += x[i];
      magnitude += std::abs(x[i]);
    }
    // Any order of summing chunk terms is within chunk eps sum |x| of the exact sum.
    const double tolerance = chunk * 2.3e-16 * magnitude;
    EXPECT_NEAR(reference.tree[b], direct, tolerance) << "block " << b;
    EXPECT_NEAR(reference.warps[b], direct, tolerance) << "block " << b;
    // The tree adds the same values in the same order on every backend (no products to contract):
    // identical bits.
    EXPECT_EQ(result.tree[b], reference.tree[b]) << "block " << b;
    // Warp sums: a shuffle tree on the GPU, thread order on the host.
    EXPECT_NEAR(result.warps[b], reference.warps[b], tolerance) << "block " << b;
  }
}

// A body that does nothing, for launches that must be refused before they run.
void launch_empty(const Exec& exec, int block_threads, std::size_t shared_bytes) {
  forall_blocks(exec, 4, block_threads, shared_bytes, [=] TREMOR_LAMBDA(const BlockContext&) {});
  exec.synchronize();
}

void expect_refused(const Exec& exec, int block_threads, std::size_t shared_bytes, const std::string& words) {
  try {
    launch_empty(exec, block_threads, shared_bytes);
    FAIL() << exec.describe() << ": a launch of " << block_threads << " threads and " << shared_bytes
           << " bytes was not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

// Carried: three values each t keeps from one loop to the next while the block's other t run in
// between (the host) or beside (the GPU), and a shared value written by another t in between.
// Exact sums of small integers and quarters: any mix-up of t's shows.
std::vector<double> carried_values(const Exec& exec) {
  constexpr Index n_blocks = 37;
  const std::vector<double> poison(static_cast<std::size_t>(n_blocks) * threads, std::numeric_limits<double>::quiet_NaN());
  DeviceArray<double> out(exec, std::span<const double>(poison));
  double* o = out.data();
  forall_blocks(exec, n_blocks, threads, sizeof(double) * threads, [=] TREMOR_LAMBDA(const BlockContext& ctx) {
    struct Three {
      double a[3];
    };
    Carried<Three, threads> carried;
    double* shared = ctx.shared<double>();
    for_each_thread(ctx, threads, [&](int t) {
      for (int c = 0; c < 3; ++c) carried[t].a[c] = 1000.0 * static_cast<double>(ctx.block) + t + 0.25 * c;
      shared[t] = -t;
    });
    ctx.sync();
    for_each_thread(ctx, threads, [&](int t) {
      const Three& mine = carried[t];
      o[ctx.block * threads + t] = mine.a[0] + mine.a[1] + mine.a[2] + shared[(t + 1) % threads];
    });
  });
  exec.synchronize();
  return out.to_host();
}

void check_carried(const Exec& exec) {
  const std::vector<double> out = carried_values(exec);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double b = static_cast<double>(i / threads), t = static_cast<double>(i % threads);
    const double next = static_cast<double>((i % threads + 1) % threads);
    EXPECT_EQ(out[i], 3.0 * (1000.0 * b + t) + 0.75 - next) << exec.describe() << ", block " << b << ", t " << t;
  }
}

TEST(ForallBlocksParity, CarriedValuesStayWithTheirThread) {
  check_carried(Exec::serial());
  check_carried(Exec::openmp());
}

TEST(ForallBlocksParityGpu, CarriedValuesStayWithTheirThread) {
  TREMOR_REQUIRE_GPU();
  check_carried(Exec::cuda());
}

TEST(ForallBlocksParity, OpenMPMatchesSerial) {
  check_block_sums(Exec::openmp(), 1000);
  check_block_sums(Exec::openmp(), 7000);  // 57 KiB of shared memory: above the 48 KiB default
}

TEST(ForallBlocksParityGpu, CudaMatchesSerial) {
  TREMOR_REQUIRE_GPU();
  check_block_sums(Exec::cuda(), 1000);
  check_block_sums(Exec::cuda(), 7000);  // opts the kernel in to more than 48 KiB
}

// No blocks: nothing runs (a body that ran would leave a non-NaN).
double launch_no_blocks(const Exec& exec) {
  const std::vector<double> poison(1, std::numeric_limits<double>::quiet_NaN());
  DeviceArray<double> out(exec, std::span<const double>(poison));
  double* o = out.data();
  forall_blocks(exec, 0, threads, 64, [=] TREMOR_LAMBDA(const BlockContext&) { o[0] = 1.0; });
  exec.synchronize();
  return out.to_host()[0];
}

TEST(ForallBlocksParity, NoBlocksRunNothing) {
  for (Backend backend : available_backends()) EXPECT_TRUE(std::isnan(launch_no_blocks(Exec::make(backend))));
}

TEST(ForallBlocksParity, HostRefusesWhatNoGpuCouldRun) {
  for (const Exec& exec : {Exec::serial(), Exec::openmp()}) {
    expect_refused(exec, threads, 300 * 1024, "bytes of shared memory per block");
    expect_refused(exec, 0, 64, "threads per block");
    expect_refused(exec, 2048, 64, "threads per block");
    EXPECT_NO_THROW(launch_empty(exec, threads, max_block_shared_bytes(exec)));
  }
}

TEST(ForallBlocksParityGpu, TooMuchSharedMemoryIsAClearError) {
  TREMOR_REQUIRE_GPU();
  const Exec gpu = Exec::cuda();
  const std::size_t limit = max_block_shared_bytes(gpu);
  EXPECT_GT(limit, std::size_t(48 * 1024));
  expect_refused(gpu, threads, limit + 1, "allows at most");
  EXPECT_NO_THROW(launch_empty(gpu, threads, limit));  // the largest the device takes: opted in
}

// On a GPU, the last block of a kernel holds its writes back 20 us.
TREMOR_HOST_DEVICE inline void hold_back_last_block([[maybe_unused]] Index i, [[maybe_unused]] Index count,
                                                    [[maybe_unused]] int per_block) {
#if defined(__CUDA_ARCH__)
  if (i >= count - per_block) __nanosleep(20000);
#endif
}

// A chain of kernels on exec's stream, forall and forall_blocks in turn, each reading what the
// blocks of the one before wrote in reverse order (its first blocks read the last one's, which
// writes late): where kernels launch as programmatic dependents (Exec::programmatic_launches), a
// kernel that did not wait for the one before to end would read values not written yet. (Without
// the wait at the kernels' start, a stand-alone copy of this chain on an H100 left 512 of the 2^22
// entries stale, every try; with it, none.) Returns the entries not as the chain leaves them.
Index stale_entries(const Exec& exec) {
  constexpr Index count = Index(1) << 22;
  constexpr int per_block = 256;
  constexpr int rounds = 50;
  DeviceArray<Index> first(exec, count), second(exec, count);
  Index *x = first.data(), *y = second.data();
  forall(exec, count, [=] TREMOR_LAMBDA(Index i) { x[i] = i; });
  for (int round = 0; round < rounds; ++round) {
    forall(exec, count, [=] TREMOR_LAMBDA(Index i) {
      hold_back_last_block(i, count, per_block);
      y[i] = x[count - 1 - i] + 1;
    });
    forall_blocks(exec, count / per_block, per_block, 0, [=] TREMOR_LAMBDA(const BlockContext& ctx) {
      for_each_thread(ctx, per_block, [&](int t) {
        const Index i = ctx.block * per_block + t;
        hold_back_last_block(i, count, per_block);
        x[i] = y[count - 1 - i] + 1;
      });
    });
  }
  const std::vector<Index> out = first.to_host();  // x[i] + 2 each round
  Index stale = 0;
  for (Index i = 0; i < count; ++i) stale += out[static_cast<std::size_t>(i)] != i + 2 * rounds ? 1 : 0;
  return stale;
}

TEST(ForallBlocksParity, HostKernelsLaunchPlainly) {
  EXPECT_EQ(stale_entries(Exec::openmp()), 0);
  EXPECT_FALSE(Exec::openmp().programmatic_launches());
  EXPECT_FALSE(Exec::serial().programmatic_launches());
}

TEST(ForallBlocksParityGpu, EachKernelSeesTheWholeOfTheOneBefore) {
  TREMOR_REQUIRE_GPU();
  int major = 0;
  TREMOR_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  const char* setting = std::getenv("TREMOR_PROGRAMMATIC_LAUNCH");
  const bool expected = major >= 9 && !(setting != nullptr && std::string(setting) == "0");
  for (const Exec& exec : {Exec::cuda(), Exec::cuda_stream(0), Exec::cuda().side_stream()}) {
    SCOPED_TRACE(exec.describe());
    EXPECT_EQ(exec.programmatic_launches(), expected);
    EXPECT_EQ(stale_entries(exec), 0);
  }
}

TEST(ExecScratch, SharedByCopiesNotByOtherExecs) {
  for (Backend backend : available_backends()) {
    const Exec a = Exec::make(backend);
    EXPECT_EQ(a.scratch_bytes(), 0u);
    void* first = a.scratch(100);
    Exec copy = a;
    EXPECT_EQ(copy.scratch(50), first);  // fits: the same buffer, nothing allocated
    EXPECT_EQ(copy.scratch_bytes(), 100u);
    const Exec b = Exec::make(backend);
    void* other = b.scratch(100);
    EXPECT_NE(other, first);
    EXPECT_EQ(b.scratch_bytes(), 100u);
    void* grown = copy.scratch(4096);  // growth through a copy is seen by the original
    EXPECT_EQ(a.scratch_bytes(), 4096u);
    EXPECT_EQ(a.scratch(1), grown);
    EXPECT_EQ(b.scratch_bytes(), 100u);
  }
}

double sum_of_squares(const Exec& exec, const DeviceArray<double>& x, Index count) {
  const auto v = x.view();
  return sum<double>(exec, count, [=] TREMOR_LAMBDA(Index i) { return v[i] * v[i]; });
}

float sum_as_float(const Exec& exec, const DeviceArray<double>& x, Index count) {
  const auto v = x.view();
  return sum<float>(exec, count, [=] TREMOR_LAMBDA(Index i) { return static_cast<float>(v[i]); });
}

// sum() keeps its block partials in the Exec's scratch: one buffer per Exec, reused by its copies
// and by later sums of a smaller type, never by another Exec.
TEST(ExecScratchGpu, SumReusesEachExecsScratch) {
  TREMOR_REQUIRE_GPU();
  const std::vector<double> x = inputs();
  double s_ref = 0.0;
  for (double v : x) s_ref += v * v;
  float f_ref = 0.0f;
  for (double v : x) f_ref += static_cast<float>(v);
  auto a = std::make_unique<Exec>(Exec::cuda());
  const Exec b = Exec::cuda();
  const DeviceArray<double> dx(*a, std::span<const double>(x));
  // Different summation orders: n roundings of terms <= 1.6 bound the difference by n eps sum.
  EXPECT_NEAR(sum_of_squares(*a, dx, n), s_ref, n * 2.3e-16 * s_ref);
  const std::size_t bytes = a->scratch_bytes();
  EXPECT_GT(bytes, 0u);
  void* buffer = a->scratch(1);
  EXPECT_EQ(b.scratch_bytes(), 0u);

  const Exec copy = *a;
  a.reset();  // the copy keeps the scratch alive
  EXPECT_NEAR(sum_as_float(copy, dx, n), f_ref, n * 1.2e-7f * std::abs(f_ref));
  double s_5000 = 0.0;
  for (std::size_t i = 0; i < 5000; ++i) s_5000 += x[i] * x[i];
  EXPECT_NEAR(sum_of_squares(copy, dx, 5000), s_5000, 5000 * 2.3e-16 * s_5000);
  EXPECT_EQ(copy.scratch(1), buffer);
  EXPECT_EQ(copy.scratch_bytes(), bytes);

  EXPECT_NEAR(sum_of_squares(b, dx, n), s_ref, n * 2.3e-16 * s_ref);
  EXPECT_EQ(b.scratch_bytes(), bytes);
  EXPECT_NE(b.scratch(1), buffer);
  // Interleaved on the two Execs, each still right.
  for (int round = 0; round < 3; ++round) {
    EXPECT_NEAR(sum_of_squares(copy, dx, n), s_ref, n * 2.3e-16 * s_ref);
    EXPECT_NEAR(sum_of_squares(b, dx, n), s_ref, n * 2.3e-16 * s_ref);
  }
}

}  // namespace
}  // namespace tremor
