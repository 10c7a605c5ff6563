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

}  // namespace tremor
