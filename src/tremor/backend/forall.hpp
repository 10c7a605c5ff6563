#pragma once
// forall(exec, n, body): runs body(i) for i in [0, n) on exec's backend. The body is one
// TREMOR_LAMBDA for every backend; a source that calls forall is compiled by nvcc in a CUDA build
// (cmake/TremorCuda.cmake) and by the C++ compiler otherwise. Launches are asynchronous on the
// CUDA stream; call exec.synchronize() before reading results on the host.
#include <cstddef>

#include "tremor/backend/cuda_check.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/core/error.hpp"

namespace tremor {

namespace detail {
[[noreturn]] void throw_not_compiled_for_cuda();

#if defined(__CUDACC__)
constexpr int forall_block_size = 256;

// Programmatic dependent launch (CUDA Programming Guide 4.5): a kernel launched as a dependent
// may start while the kernel before it on its stream is still running. Every kernel here first
// waits for that kernel to end and its writes to be visible (before it reads or writes memory),
// then lets the next kernel launch, whose blocks then wait resident for this one's tail instead
// of being launched after it: the launch's latency hides under the tail. No-ops for a kernel not
// launched as a dependent, and before compute capability 9.0.
__device__ inline void follow_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// kernel<<<blocks, threads, shared_bytes, exec's stream>>>(args...), as a programmatic dependent
// where exec.programmatic_launches().
template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), unsigned blocks, unsigned threads, std::size_t shared_bytes,
                   const Exec& exec, const Args&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = static_cast<cudaStream_t>(exec.stream());
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = exec.programmatic_launches() ? 1 : 0;
  TREMOR_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, args...));
}

template <class Body>
__global__ void forall_kernel(Index n, Body body) {
  follow_previous_kernel();
  // In 64 bits: the last block may reach past 2^31 - 1 when n is close to it.
  const Size i = static_cast<Size>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) body(static_cast<Index>(i));
}
#endif
}  // namespace detail

template <class Body>
void forall(const Exec& exec, Index n, Body body) {
  if (n <= 0) return;
  switch (exec.backend()) {
    case Backend::Serial:
      for (Index i = 0; i < n; ++i) body(i);
      return;
    case Backend::OpenMP:
#pragma omp parallel for schedule(static)
      for (Index i = 0; i < n; ++i) body(i);
      return;
    case Backend::Cuda:
#if defined(__CUDACC__)
    {
      const auto blocks = static_cast<unsigned>((Size(n) + detail::forall_block_size - 1) / detail::forall_block_size);
      detail::launch_kernel(detail::forall_kernel<Body>, blocks, detail::forall_block_size, 0, exec, n, body);
      return;
    }
#else
      detail::throw_not_compiled_for_cuda();
#endif
  }
}

// values[i] = 0 for i < n, on exec (float, double, Index; compiled once, in forall.cpp).
template <class T>
void fill_zero(const Exec& exec, T* values, Index n);
extern template void fill_zero<float>(const Exec&, float*, Index);
extern template void fill_zero<double>(const Exec&, double*, Index);
extern template void fill_zero<Index>(const Exec&, Index*, Index);

}  // namespace tremor
