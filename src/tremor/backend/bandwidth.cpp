#include "tremor/backend/bandwidth.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

#include "tremor/backend/device_array.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/backend/forall.hpp"

namespace tremor {

namespace {

void copy(const Exec& exec, View<const double> x, View<double> y) {
  forall(exec, x.size, [=] TREMOR_LAMBDA(Index i) { y[i] = x[i]; });
}

// Seconds of one call of f (work queued on exec): CUDA events on the Exec's stream on a GPU, a
// steady clock around f and a synchronisation on the host.
template <class F>
double seconds_of(const Exec& exec, F&& f) {
#if defined(TREMOR_HAVE_CUDA)
  if (exec.backend() == Backend::Cuda) {
    cudaEvent_t start = nullptr, stop = nullptr;
    TREMOR_CUDA_CHECK(cudaEventCreate(&start));
    TREMOR_CUDA_CHECK(cudaEventCreate(&stop));
    auto stream = static_cast<cudaStream_t>(exec.stream());
    TREMOR_CUDA_CHECK(cudaEventRecord(start, stream));
    f();
    TREMOR_CUDA_CHECK(cudaEventRecord(stop, stream));
    TREMOR_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    TREMOR_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return 1e-3 * ms;
  }
#endif
  const auto start = Clock::now();
  f();
  exec.synchronize();
  return seconds_since(start);
}

}  // namespace

CopyBandwidth measure_copy_bandwidth(const Exec& exec, std::size_t bytes, int repeats) {
  const auto n = static_cast<Index>(std::min<std::size_t>(bytes / sizeof(double),
                                                          static_cast<std::size_t>(std::numeric_limits<Index>::max())));
  DeviceArray<double> x(exec, n), y(exec, n);
  const View<double> values = x.view();
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) { values[i] = static_cast<double>(i); });
  CopyBandwidth result;
  result.bytes = static_cast<std::size_t>(n) * sizeof(double);
  result.repeats = repeats;
  result.seconds = std::numeric_limits<double>::infinity();
  copy(exec, x.view(), y.view());  // untimed: first touch, clocks up
  exec.synchronize();
  for (int r = 0; r < repeats; ++r)
    result.seconds = std::min(result.seconds, seconds_of(exec, [&] { copy(exec, x.view(), y.view()); }));
  return result;
}

namespace {

constexpr int fma_chains = 8, fma_iterations = 2048;

template <class Real>
void multiply_add_chains(const Exec& exec, Index threads, Real* sums) {
  forall(exec, threads, [=] TREMOR_LAMBDA(Index i) {
    // Independent chains per thread hide the FMA latency; b < 1 and the small c keep the values
    // normal and bounded.
    Real a[fma_chains];
    for (int j = 0; j < fma_chains; ++j) a[j] = Real(1e-3) * static_cast<Real>((i + j) % 1000);
    const Real b = Real(0.999), c = Real(1e-4);
    for (int k = 0; k < fma_iterations; ++k)
      for (int j = 0; j < fma_chains; ++j) a[j] = a[j] * b + c;
    Real sum = Real(0);
    for (int j = 0; j < fma_chains; ++j) sum += a[j];
    sums[i] = sum;  // stored, so the chains are not optimised away
  });
}

}  // namespace

template <class Real>
FmaRate measure_fma_rate(const Exec& exec, Index threads, int repeats) {
  constexpr int chains = fma_chains, iterations = fma_iterations;
  DeviceArray<Real> out(exec, threads);
  Real* sums = out.data();
  const auto run = [&] { multiply_add_chains(exec, threads, sums); };
  FmaRate result;
  result.flops = 2.0 * chains * iterations * static_cast<double>(threads);
  result.repeats = repeats;
  result.seconds = std::numeric_limits<double>::infinity();
  run();  // untimed: clocks up
  exec.synchronize();
  for (int r = 0; r < repeats; ++r) result.seconds = std::min(result.seconds, seconds_of(exec, run));
  return result;
}

template FmaRate measure_fma_rate<float>(const Exec&, Index, int);
template FmaRate measure_fma_rate<double>(const Exec&, Index, int);

}  // namespace tremor
