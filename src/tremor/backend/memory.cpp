#include "tremor/backend/memory.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#include "tremor/backend/cuda_check.hpp"
#include "tremor/core/error.hpp"

namespace tremor::memory {

namespace {
constexpr std::size_t host_alignment = 64;  // one cache line; also suits 512-bit vector loads

struct Counter {
  std::atomic<std::size_t> current{0};
  std::atomic<std::size_t> peak{0};
};
Counter counters[2];  // per MemorySpace

Counter& counter(MemorySpace space) { return counters[space == MemorySpace::Host ? 0 : 1]; }

void count_allocation(MemorySpace space, std::size_t bytes) {
  Counter& c = counter(space);
  const std::size_t now = c.current.fetch_add(bytes) + bytes;
  std::size_t peak = c.peak.load();
  while (now > peak && !c.peak.compare_exchange_weak(peak, now)) {
  }
}
}  // namespace

Usage usage(MemorySpace space) {
  const Counter& c = counter(space);
  return {c.current.load(), c.peak.load()};
}

void reset_peak(MemorySpace space) {
  Counter& c = counter(space);
  c.peak.store(c.current.load());
}

void* allocate(const Exec& exec, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  if (exec.space() == MemorySpace::Host) {
    const std::size_t rounded = (bytes + host_alignment - 1) / host_alignment * host_alignment;
    void* pointer = std::aligned_alloc(host_alignment, rounded);
    if (!pointer) throw Error(str("out of host memory allocating ", bytes, " bytes"));
    count_allocation(MemorySpace::Host, bytes);
    return pointer;
  }
#if defined(TREMOR_HAVE_CUDA)
  TREMOR_CUDA_CHECK(cudaSetDevice(exec.device()));
  void* pointer = nullptr;
  const cudaError_t status = cudaMalloc(&pointer, bytes);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    size_t free_bytes = 0, total_bytes = 0;
    (void)cudaMemGetInfo(&free_bytes, &total_bytes);
    throw Error(str("out of GPU memory allocating ", bytes, " bytes (", free_bytes, " of ", total_bytes,
                    " bytes free)"));
  }
  count_allocation(MemorySpace::Device, bytes);
  return pointer;
#else
  throw Error("device allocation in a build without CUDA");
#endif
}

void release(MemorySpace space, [[maybe_unused]] int device, void* pointer, std::size_t bytes) noexcept {
  if (!pointer) return;
  counter(space).current.fetch_sub(bytes);
  if (space == MemorySpace::Host) {
    std::free(pointer);
    return;
  }
#if defined(TREMOR_HAVE_CUDA)
  (void)cudaSetDevice(device);
  (void)cudaFree(pointer);
#endif
}

void copy([[maybe_unused]] const Exec& exec, void* dst, MemorySpace dst_space, const void* src,
          MemorySpace src_space, std::size_t bytes) {
  if (bytes == 0) return;
  if (dst_space == MemorySpace::Host && src_space == MemorySpace::Host) {
    std::memcpy(dst, src, bytes);
    return;
  }
#if defined(TREMOR_HAVE_CUDA)
  const auto kind = dst_space == MemorySpace::Host
                        ? (src_space == MemorySpace::Host ? cudaMemcpyHostToHost : cudaMemcpyDeviceToHost)
                        : (src_space == MemorySpace::Host ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice);
  auto stream = static_cast<cudaStream_t>(exec.stream());
  TREMOR_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
  TREMOR_CUDA_CHECK(cudaStreamSynchronize(stream));
#else
  throw Error("device copy in a build without CUDA");
#endif
}

}  // namespace tremor::memory
