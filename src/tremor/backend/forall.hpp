#pragma once
// forall(exec, n, body): runs body(i) for i in [0, n) on exec's backend. The body is one
// TREMOR_LAMBDA for every backend; a source that calls forall is compiled by nvcc in a CUDA build
// (cmake/TremorCuda.cmake) and by the C++ compiler otherwise. Launches are asynchronous on the
// CUDA stream; call exec.synchronize() before reading results on the host.
#include "tremor/backend/cuda_check.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/core/error.hpp"

namespace tremor {

namespace detail {
[[noreturn]] void throw_not_compiled_for_cuda();

#if defined(__CUDACC__)
constexpr int forall_block_size = 256;

template <class Body>
__global__ void forall_kernel(Index n, Body body) {
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
      detail::forall_kernel<<<blocks, detail::forall_block_size, 0, static_cast<cudaStream_t>(exec.stream())>>>(n, body);
      TREMOR_CUDA_CHECK(cudaGetLastError());
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
