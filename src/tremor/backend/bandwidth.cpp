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
  for (int r = 0; r < repeats; ++r) {
    double seconds = 0.0;
#if defined(TREMOR_HAVE_CUDA)
    if (exec.backend() == Backend::Cuda) {
      cudaEvent_t start = nullptr, stop = nullptr;
      TREMOR_CUDA_CHECK(cudaEventCreate(&start));
      TREMOR_CUDA_CHECK(cudaEventCreate(&stop));
      auto stream = static_cast<cudaStream_t>(exec.stream());
      TREMOR_CUDA_CHECK(cudaEventRecord(start, stream));
      copy(exec, x.view(), y.view());
      TREMOR_CUDA_CHECK(cudaEventRecord(stop, stream));
      TREMOR_CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0.0f;
      TREMOR_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      cudaEventDestroy(start);
      cudaEventDestroy(stop);
      seconds = 1e-3 * ms;
    }
#endif
    if (exec.backend() != Backend::Cuda) {
      const auto start = Clock::now();
      copy(exec, x.view(), y.view());
      seconds = seconds_since(start);
    }
    result.seconds = std::min(result.seconds, seconds);
  }
  return result;
}

}  // namespace tremor
