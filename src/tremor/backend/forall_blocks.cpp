#include "tremor/backend/forall_blocks.hpp"

namespace tremor {

namespace {
// The largest opt-in shared memory per block of any supported GPU (sm_90, Hopper): host launches
// are held to it so that a body tested on the host also launches on a GPU.
constexpr std::size_t portable_block_shared_bytes = 227 * 1024;
constexpr int max_block_threads = 1024;
}  // namespace

std::size_t max_block_shared_bytes(const Exec& exec) {
  if (exec.backend() != Backend::Cuda) return portable_block_shared_bytes;
#if defined(TREMOR_HAVE_CUDA)
  int limit = 0;
  TREMOR_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, exec.device()));
  return static_cast<std::size_t>(limit);
#else
  return portable_block_shared_bytes;
#endif
}

namespace detail {

void check_block_launch(const Exec& exec, int threads, int max_threads, std::size_t shared_bytes) {
  const int most = max_threads > 0 ? max_threads : max_block_threads;
  TREMOR_CHECK(threads >= 1 && threads <= most, "forall_blocks: ", threads,
               " threads per block; the kernel takes 1 to ", most);
  // Every GPU grants the default without a query; above it, ask (the host's answer is fixed).
  if (shared_bytes <= default_block_shared_bytes) return;
  const std::size_t limit = max_block_shared_bytes(exec);
  if (shared_bytes <= limit) return;
  if (exec.backend() == Backend::Cuda)
    throw Error(str("forall_blocks: ", shared_bytes, " bytes of shared memory per block were asked for; ",
                    exec.describe(), " allows at most ", limit));
  throw Error(str("forall_blocks: ", shared_bytes, " bytes of shared memory per block were asked for; no GPU allows "
                  "more than ", limit, " (227 KiB), so this kernel could not run on one"));
}

}  // namespace detail
}  // namespace tremor
