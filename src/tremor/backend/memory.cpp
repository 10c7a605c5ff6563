#include "tremor/backend/memory.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "tremor/backend/cuda_check.hpp"
#include "tremor/core/error.hpp"

namespace tremor::memory {

namespace {
constexpr std::size_t host_alignment = 64;  // one cache line; also suits 512-bit vector loads
}

void* allocate(const Exec& exec, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  if (exec.space() == MemorySpace::Host) {
    const std::size_t rounded = (bytes + host_alignment - 1) / host_alignment * host_alignment;
    void* pointer = std::aligned_alloc(host_alignment, rounded);
    if (!pointer) throw Error(str("out of host memory allocating ", bytes, " bytes"));
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
  return pointer;
#else
  throw Error("device allocation in a build without CUDA");
#endif
}

void release(MemorySpace space, [[maybe_unused]] int device, void* pointer) noexcept {
  if (!pointer) return;
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
