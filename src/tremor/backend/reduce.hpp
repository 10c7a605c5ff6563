#pragma once
// sum(exec, n, term): the sum of term(i) over [0, n), computed in T. Deterministic for a given
// backend and n: the CUDA path reduces per block in a fixed tree, then adds the block partials on
// the host in order; the OpenMP path uses a static schedule and adds per-thread partials in order.
// The block partials live in exec's scratch (Exec::scratch): a solver reduces several times per
// iteration, and a cudaMalloc / cudaFree pair each time would serialise the device.
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace tremor {

namespace detail {
#if defined(__CUDACC__)
constexpr int reduce_block_size = 256;
constexpr int reduce_max_blocks = 1024;

template <class T, class Term>
__global__ void sum_kernel(Index n, Term term, T* partials) {
  __shared__ T shared[reduce_block_size];
  T acc = T(0);
  for (Size i = static_cast<Size>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<Size>(gridDim.x) * blockDim.x)  // 64 bits: i + stride may pass 2^31 - 1
    acc += term(static_cast<Index>(i));
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (int width = reduce_block_size / 2; width > 0; width /= 2) {
    if (static_cast<int>(threadIdx.x) < width) shared[threadIdx.x] += shared[threadIdx.x + width];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = shared[0];
}
#endif
}  // namespace detail

template <class T, class Term>
T sum(const Exec& exec, Index n, Term term) {
  if (n <= 0) return T(0);
  switch (exec.backend()) {
    case Backend::Serial: {
      T acc = T(0);
      for (Index i = 0; i < n; ++i) acc += term(i);
      return acc;
    }
    case Backend::OpenMP: {
#if defined(_OPENMP)
      std::vector<T> partial(static_cast<std::size_t>(omp_get_max_threads()), T(0));
#pragma omp parallel
      {
        T acc = T(0);
#pragma omp for schedule(static)
        for (Index i = 0; i < n; ++i) acc += term(i);
        partial[static_cast<std::size_t>(omp_get_thread_num())] = acc;
      }
      T total = T(0);
      for (const T& value : partial) total += value;
      return total;
#else
      T acc = T(0);
      for (Index i = 0; i < n; ++i) acc += term(i);
      return acc;
#endif
    }
    case Backend::Cuda: {
#if defined(__CUDACC__)
      const Size wanted = (Size(n) + detail::reduce_block_size - 1) / detail::reduce_block_size;
      const int blocks = wanted < detail::reduce_max_blocks ? static_cast<int>(wanted) : detail::reduce_max_blocks;
      TREMOR_CUDA_CHECK(cudaSetDevice(exec.device()));  // the launch and copy belong to exec's device
      T* buffer = static_cast<T*>(exec.scratch(sizeof(T) * detail::reduce_max_blocks));
      const auto stream = static_cast<cudaStream_t>(exec.stream());
      detail::sum_kernel<T><<<blocks, detail::reduce_block_size, 0, stream>>>(n, term, buffer);
      TREMOR_CUDA_CHECK(cudaGetLastError());
      T partials[detail::reduce_max_blocks];
      TREMOR_CUDA_CHECK(cudaMemcpyAsync(partials, buffer, sizeof(T) * static_cast<std::size_t>(blocks),
                                        cudaMemcpyDeviceToHost, stream));
      TREMOR_CUDA_CHECK(cudaStreamSynchronize(stream));
      T total = T(0);
      for (int b = 0; b < blocks; ++b) total += partials[b];
      return total;
#else
      detail::throw_not_compiled_for_cuda();
#endif
    }
  }
  return T(0);
}

}  // namespace tremor
