#include "tremor/backend/side_stream.hpp"

#include "tremor/backend/cuda_check.hpp"

namespace tremor {

SideStream::SideStream(const Exec& exec, StreamPriority priority)
    : exec_(exec), side_(exec.backend() == Backend::Cuda ? exec.side_stream(priority) : exec) {
#if defined(TREMOR_HAVE_CUDA)
  if (exec.backend() != Backend::Cuda) return;
  TREMOR_CUDA_CHECK(cudaSetDevice(exec.device()));
  cudaEvent_t ready = nullptr, done = nullptr;
  TREMOR_CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  ready_ = ready;
  const cudaError_t status = cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  if (status != cudaSuccess) (void)cudaEventDestroy(ready);
  TREMOR_CUDA_CHECK(status);
  done_ = done;
#endif
}

SideStream::~SideStream() {
#if defined(TREMOR_HAVE_CUDA)
  if (ready_) (void)cudaEventDestroy(static_cast<cudaEvent_t>(ready_));
  if (done_) (void)cudaEventDestroy(static_cast<cudaEvent_t>(done_));
#endif
}

#if defined(TREMOR_HAVE_CUDA)
namespace {
// `later` waits for the work queued on `earlier` so far, through `event`.
void wait_for(const Exec& earlier, const Exec& later, void* event) {
  const auto e = static_cast<cudaEvent_t>(event);
  TREMOR_CUDA_CHECK(cudaSetDevice(earlier.device()));
  TREMOR_CUDA_CHECK(cudaEventRecord(e, static_cast<cudaStream_t>(earlier.stream())));
  TREMOR_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(later.stream()), e, 0));
}
}  // namespace
#endif

void SideStream::fork() const {
#if defined(TREMOR_HAVE_CUDA)
  if (ready_) wait_for(exec_, side_, ready_);
#endif
}

void SideStream::join() const {
#if defined(TREMOR_HAVE_CUDA)
  if (done_) wait_for(side_, exec_, done_);
#endif
}

}  // namespace tremor
