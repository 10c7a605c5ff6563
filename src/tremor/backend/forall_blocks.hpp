#pragma once
// forall_blocks(exec, n_blocks, threads, shared_bytes, body): kernels whose threads cooperate
// through shared memory (element-per-block SEM kernels, the pogo partitioned layout, BEM pairs),
// one body for every backend, after MFEM's forall with MFEM_FOREACH_THREAD and MFEM_SYNC_THREAD.
// Like forall, a source that calls it is compiled by nvcc in a CUDA build and by the C++ compiler
// otherwise; launches are asynchronous on exec's stream.
//
// body(ctx) is one TREMOR_LAMBDA called once per block b in [0, n_blocks) with a BlockContext:
// ctx.block = b, ctx.threads = threads, ctx.shared<T>() = the block's shared_bytes of scratch
// (16-byte aligned). Work inside a block is spread by for_each_thread(ctx, n, f), which calls f(t)
// for every t in [0, n), and phases are separated by ctx.sync():
//   Cuda    one thread block of `threads` threads per block, dynamic shared memory (opted in above
//           the default 48 KiB); thread t runs f(t), f(t + threads), ...; sync() is __syncthreads().
//   Serial  blocks in order; a loop runs t = 0, 1, ..., n - 1 one after another; one host buffer
//           of shared_bytes serves every block; sync() does nothing (each loop has run whole).
//   OpenMP  blocks in parallel (static schedule), one buffer per host thread.
//
// Rules for a body, so that it means the same on every backend:
//   - Code outside for_each_thread runs once per block on the host and once per thread on the
//     GPU: it may compute what the whole block agrees on (indices, an element's vertices) but
//     writes no memory. Inside f, `return` ends that t's iteration, like `continue`.
//   - A thread's values do not survive from one for_each_thread loop to the next on the host
//     (the other threads run in between): pass them through shared memory, or through a
//     Carried (below), which keeps them in the thread's registers on the GPU.
//   - Call ctx.sync() between a loop that writes shared memory and one that reads another
//     thread's entries, outside for_each_thread and on every path through the body (a barrier
//     that some threads skip hangs the block on a GPU).
//   - Neither shared memory nor the host buffers are zeroed; a host buffer holds what the
//     previous block left. Write before reading.
//   - The body is device code: no exceptions, no allocation, no host-only calls. Report failures
//     through an output array checked afterwards.
//   - warp_sum (below) needs threads a multiple of 32 and a loop over whole warps.
// threads must be 1 to 1024 (and at most MaxThreads, the kernel's __launch_bounds__ when given);
// shared_bytes at most the device's opt-in limit (227 KiB per block on Hopper). Otherwise
// tremor::Error, on the host backends too for what no GPU could run, so that a body tested on the
// host also launches on a GPU.
#include <cstddef>
#include <memory>

#include "tremor/backend/cuda_check.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/core/config.hpp"
#include "tremor/core/error.hpp"

namespace tremor {

// What a block's body knows about its block. Trivially copyable: passed by value to the kernel.
struct BlockContext {
  Index block;          // in [0, n_blocks)
  int threads;          // threads per block, as launched
  void* shared_memory;  // shared_bytes bytes, 16-byte aligned, not zeroed

  template <class T>
  TREMOR_HOST_DEVICE T* shared() const {
    return static_cast<T*>(shared_memory);
  }
  // A barrier of the block's threads (every thread must reach it); nothing on the host.
  TREMOR_HOST_DEVICE void sync() const {
#if defined(__CUDA_ARCH__)
    __syncthreads();
#endif
  }
};

// f(t) for t in [0, n), spread over the block's threads (strided by ctx.threads on the GPU, in
// order on the host).
template <class F>
TREMOR_HOST_DEVICE inline void for_each_thread([[maybe_unused]] const BlockContext& ctx, int n, F&& f) {
#if defined(__CUDA_ARCH__)
  for (int t = static_cast<int>(threadIdx.x); t < n; t += ctx.threads) f(t);
#else
  for (int t = 0; t < n; ++t) f(t);
#endif
}

// Stores to *out the sum of `value` over the 32 threads of t's warp, where t is for_each_thread's
// index: on the GPU by shuffles in a fixed tree (the same bits every run), written by the warp's
// first thread; on the host, where t runs in order, the first thread stores and the others add.
// Needs threads a multiple of 32 and every thread of the warp calling with the same out.
template <class T>
TREMOR_HOST_DEVICE inline void warp_sum(int t, T value, T* out) {
#if defined(__CUDA_ARCH__)
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  if (t % 32 == 0) *out = value;
#else
  *out = t % 32 == 0 ? value : *out + value;
#endif
}

// Values of type T that each t of a for_each_thread loop over at most Threads iterations carries
// into the next such loop: carried[t] is t's own. On the GPU each thread runs one t per loop and
// keeps one T (registers, where T's indices are known at compile time), so what a kernel keeps
// this way costs no shared-memory traffic; on the host, where t runs after t, an entry per t.
// Declare it in the body, outside for_each_thread; Threads must cover every loop that indexes it.
template <class T, int Threads>
class Carried {
 public:
  TREMOR_HOST_DEVICE T& operator[]([[maybe_unused]] int t) {
#if defined(__CUDA_ARCH__)
    return value_;
#else
    return values_[t];
#endif
  }

 private:
#if defined(__CUDA_ARCH__)
  T value_;
#else
  T values_[Threads];
#endif
};

// The most shared memory one block may use on exec: the device's opt-in limit on a GPU; on the
// host, the largest any supported GPU allows (227 KiB).
std::size_t max_block_shared_bytes(const Exec& exec);

namespace detail {
// Up to this, every GPU gives a block its shared memory without opting in.
constexpr std::size_t default_block_shared_bytes = 48 * 1024;
// Throws tremor::Error for a launch no GPU (or not exec's GPU) could run.
void check_block_launch(const Exec& exec, int threads, int max_threads, std::size_t shared_bytes);

#if defined(__CUDACC__)
template <class Body>
__device__ inline void run_block(const Body& body) {
  extern __shared__ __align__(16) unsigned char block_shared_memory[];
  follow_previous_kernel();
  body(BlockContext{static_cast<Index>(blockIdx.x), static_cast<int>(blockDim.x), block_shared_memory});
}

template <class Body>
__global__ void forall_blocks_kernel(Body body) {
  run_block(body);
}

template <int MaxThreads, class Body>
__global__ void __launch_bounds__(MaxThreads) forall_blocks_bounded_kernel(Body body) {
  run_block(body);
}

template <class Kernel, class Body>
void launch_blocks(Kernel kernel, const Exec& exec, Index n_blocks, int threads, std::size_t shared_bytes,
                   const Body& body) {
  if (shared_bytes > default_block_shared_bytes)  // within the device's limit: check_block_launch
    TREMOR_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  launch_kernel(kernel, static_cast<unsigned>(n_blocks), static_cast<unsigned>(threads), shared_bytes, exec, body);
}
#endif
}  // namespace detail

// MaxThreads > 0 bounds the threads per block at compile time (__launch_bounds__), letting the
// compiler budget registers for it; 0 leaves the kernel unbounded like a plain __global__.
template <int MaxThreads = 0, class Body>
void forall_blocks(const Exec& exec, Index n_blocks, int threads, std::size_t shared_bytes, Body body) {
  static_assert(MaxThreads >= 0 && MaxThreads <= 1024, "MaxThreads: 0 (unbounded) or 1 to 1024");
  detail::check_block_launch(exec, threads, MaxThreads, shared_bytes);
  if (n_blocks <= 0) return;
  // Host buffers in words of max_align_t (16 bytes), left uninitialised like shared memory.
  const std::size_t words = (shared_bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
  switch (exec.backend()) {
    case Backend::Serial: {
      const std::unique_ptr<std::max_align_t[]> buffer(new std::max_align_t[words]);
      for (Index b = 0; b < n_blocks; ++b) body(BlockContext{b, threads, buffer.get()});
      return;
    }
    case Backend::OpenMP:
#pragma omp parallel
    {
      const std::unique_ptr<std::max_align_t[]> buffer(new std::max_align_t[words]);
#pragma omp for schedule(static)
      for (Index b = 0; b < n_blocks; ++b) body(BlockContext{b, threads, buffer.get()});
    }
      return;
    case Backend::Cuda:
#if defined(__CUDACC__)
      if constexpr (MaxThreads > 0)
        detail::launch_blocks(detail::forall_blocks_bounded_kernel<MaxThreads, Body>, exec, n_blocks, threads,
                              shared_bytes, body);
      else
        detail::launch_blocks(detail::forall_blocks_kernel<Body>, exec, n_blocks, threads, shared_bytes, body);
      return;
#else
      detail::throw_not_compiled_for_cuda();
#endif
  }
}

}  // namespace tremor
