#include "tremor/backend/async_copy.hpp"

#include <cstdlib>
#include <cstring>

#include "tremor/backend/cuda_check.hpp"
#include "tremor/core/error.hpp"

namespace tremor {

namespace pinned {

namespace {
constexpr std::size_t host_alignment = 64;  // as memory::allocate: one cache line
}

void* allocate(const Exec& exec, std::size_t bytes, bool& page_locked) {
  page_locked = false;
  if (bytes == 0) return nullptr;
#if defined(TREMOR_HAVE_CUDA)
  if (exec.backend() == Backend::Cuda) {
    TREMOR_CUDA_CHECK(cudaSetDevice(exec.device()));
    void* pointer = nullptr;
    const cudaError_t status = cudaMallocHost(&pointer, bytes);
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      throw Error(str("out of page-locked host memory allocating ", bytes, " bytes (", cudaGetErrorString(status),
                      ")"));
    }
    page_locked = true;
    return pointer;
  }
#else
  (void)exec;
#endif
  const std::size_t rounded = (bytes + host_alignment - 1) / host_alignment * host_alignment;
  void* pointer = std::aligned_alloc(host_alignment, rounded);
  if (!pointer) throw Error(str("out of host memory allocating ", bytes, " bytes"));
  return pointer;
}

void release(void* pointer, bool page_locked) noexcept {
  if (!pointer) return;
#if defined(TREMOR_HAVE_CUDA)
  if (page_locked) {
    (void)cudaFreeHost(pointer);
    return;
  }
#else
  (void)page_locked;
#endif
  std::free(pointer);
}

}  // namespace pinned

bool page_locked_host_memory([[maybe_unused]] const void* pointer) {
#if defined(TREMOR_HAVE_CUDA)
  if (!pointer || cuda_device_count() == 0) return false;
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
#else
  return false;
#endif
}

CopyEvent::CopyEvent(const Exec& exec) {
  if (exec.backend() != Backend::Cuda) return;
#if defined(TREMOR_HAVE_CUDA)
  TREMOR_CUDA_CHECK(cudaSetDevice(exec.device()));
  cudaEvent_t event = nullptr;
  TREMOR_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming | cudaEventBlockingSync));
  device_ = exec.device();
  event_ = event;
#endif
}

CopyEvent::~CopyEvent() {
#if defined(TREMOR_HAVE_CUDA)
  if (event_) {
    (void)cudaSetDevice(device_);
    (void)cudaEventDestroy(static_cast<cudaEvent_t>(event_));
  }
#endif
}

void CopyEvent::wait() const {
#if defined(TREMOR_HAVE_CUDA)
  if (!event_) return;
  // The calling thread may be another than the one that made the event: name the device.
  TREMOR_CUDA_CHECK(cudaSetDevice(device_));
  TREMOR_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event_)));
#endif
}

CopyStream::CopyStream(const Exec& exec) : exec_(exec) {
  if (exec.backend() != Backend::Cuda) return;
#if defined(TREMOR_HAVE_CUDA)
  TREMOR_CUDA_CHECK(cudaSetDevice(exec.device()));
  cudaStream_t stream = nullptr;
  // Non-blocking: the Exec's stream is usually the legacy default stream, which would otherwise
  // wait for these copies, and they for it, at every launch.
  TREMOR_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  stream_ = stream;
  cudaEvent_t issued = nullptr;
  const cudaError_t status = cudaEventCreateWithFlags(&issued, cudaEventDisableTiming);
  if (status != cudaSuccess) {
    (void)cudaStreamDestroy(stream);
    stream_ = nullptr;
    TREMOR_CUDA_CHECK(status);
  }
  issued_ = issued;
#endif
}

CopyStream::~CopyStream() {
#if defined(TREMOR_HAVE_CUDA)
  if (stream_) {
    (void)cudaSetDevice(exec_.device());
    (void)cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));  // no copy outlives its buffers' owner
    (void)cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
  }
  if (issued_) (void)cudaEventDestroy(static_cast<cudaEvent_t>(issued_));
#endif
}

void CopyStream::copy_to_host(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  if (exec_.backend() != Backend::Cuda) {
    std::memcpy(dst, src, bytes);  // the Exec's work is complete: host kernels return when done
    return;
  }
#if defined(TREMOR_HAVE_CUDA)
  TREMOR_CUDA_CHECK(cudaSetDevice(exec_.device()));
  auto stream = static_cast<cudaStream_t>(stream_);
  auto issued = static_cast<cudaEvent_t>(issued_);
  TREMOR_CUDA_CHECK(cudaEventRecord(issued, static_cast<cudaStream_t>(exec_.stream())));
  TREMOR_CUDA_CHECK(cudaStreamWaitEvent(stream, issued, 0));
  TREMOR_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
#else
  throw Error("device copy in a build without CUDA");
#endif
}

void CopyStream::record(CopyEvent& done) {
  if (exec_.backend() != Backend::Cuda) return;
#if defined(TREMOR_HAVE_CUDA)
  TREMOR_CHECK(done.event_ && done.device_ == exec_.device(), "a copy event of another device or backend");
  TREMOR_CUDA_CHECK(cudaSetDevice(exec_.device()));
  TREMOR_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(done.event_), static_cast<cudaStream_t>(stream_)));
#else
  (void)done;
#endif
}

void CopyStream::exec_waits_for(const CopyEvent& done) {
  if (exec_.backend() != Backend::Cuda) return;
#if defined(TREMOR_HAVE_CUDA)
  TREMOR_CHECK(done.event_ && done.device_ == exec_.device(), "a copy event of another device or backend");
  TREMOR_CUDA_CHECK(cudaSetDevice(exec_.device()));
  TREMOR_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(exec_.stream()),
                                        static_cast<cudaEvent_t>(done.event_), 0));
#else
  (void)done;
#endif
}

}  // namespace tremor
