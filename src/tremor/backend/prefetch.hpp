#pragma once
// prefetch_l2(address): asks a GPU's L2 cache for the sector holding `address` ahead of the load
// that will read it (PTX prefetch.global.L2): no register waits for it, so a kernel can ask for
// the state its pointwise law reads before the gradient it computes first, and the law's loads
// then find it in L2 instead of waiting on memory. Nothing on the host, whose caches prefetch
// streams themselves.
#include "tremor/core/config.hpp"

namespace tremor {

TREMOR_HOST_DEVICE inline void prefetch_l2(const void* address) {
#if defined(__CUDA_ARCH__)
  asm volatile("prefetch.global.L2 [%0];" ::"l"(address));
#else
  (void)address;
#endif
}

// prefetch_l2_bulk(address, bytes): the same for `bytes` in a row from `address` (both multiples
// of 16) in one instruction, through the copy engine of the multiprocessor (PTX
// cp.async.bulk.prefetch.L2, sm_90 on), where prefetch_l2 takes one per sector a thread asks for;
// sector by sector before sm_90.
TREMOR_HOST_DEVICE inline void prefetch_l2_bulk(const void* address, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(address), "r"(bytes) : "memory");
#elif defined(__CUDA_ARCH__)
  for (unsigned at = 0; at < bytes; at += 32) prefetch_l2(static_cast<const char*>(address) + at);
#else
  (void)address, (void)bytes;
#endif
}

}  // namespace tremor
