#pragma once
// atomic_add(address, value): *address += value as one indivisible read-modify-write, returning
// the value held before. The scatter-add of an element-by-element kernel whose elements share
// nodes (two-kernel assembly paper, section IV.C: "Atomic Operations"). The same call in a
// forall body serves every backend: atomicAdd in device code, std::atomic_ref on the host
// (Serial and OpenMP threads).
//
// Types: int32/uint32, int64/uint64 (as unsigned 64-bit on the device: two's complement addition
// is the same bits), float and double (atomicAdd on double needs sm_60 or newer). Floating-point
// sums through atomics depend on the order the updates land in: results vary run to run in the
// last bits; the coloured paths are the deterministic alternative.
#include <atomic>
#include <type_traits>

#include "tremor/core/config.hpp"

namespace tremor {

template <class T>
TREMOR_HOST_DEVICE inline T atomic_add(T* address, T value) {
  static_assert(std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8),
                "atomic_add takes 32- or 64-bit integers, float or double");
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_integral_v<T> && sizeof(T) == 8) {
    return static_cast<T>(atomicAdd(reinterpret_cast<unsigned long long*>(address),
                                    static_cast<unsigned long long>(value)));
  } else {
    return atomicAdd(address, value);
  }
#else
  return std::atomic_ref<T>(*address).fetch_add(value, std::memory_order_relaxed);
#endif
}

}  // namespace tremor
