#pragma once
// prefetch(address): asks for the cache line holding `address` to be brought close (a GPU thread:
// into its multiprocessor's L1; the host: into cache), without waiting for it and without a
// register: a kernel that will read a value after a barrier or two issues this early, so that
// the read then finds it in L1 instead of waiting on DRAM. A hint only: no effect on results.
#include "tremor/core/config.hpp"

namespace tremor {

TREMOR_HOST_DEVICE inline void prefetch(const void* address) {
#if defined(__CUDA_ARCH__)
  asm volatile("prefetch.global.L1 [%0];" ::"l"(address));
#else
  __builtin_prefetch(address);
#endif
}

}  // namespace tremor
