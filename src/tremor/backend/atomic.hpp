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
#include <cstdint>
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

// The three components of a node-major vector at p (3 consecutive values): a gather's load and a
// scatter's atomic add. On the device each takes two accesses instead of three, one of them a
// pair (8-byte aligned float2, 16-byte aligned double2; atomically only float2, sm_90 and newer),
// which cuts the memory requests of a 12- or 24-byte stride by a third; elsewhere the plain
// three. The pair is the first two or the last two values, whichever is aligned.
template <class T>
TREMOR_HOST_DEVICE inline void load_triplet(const T* p, T (&v)[3]) {
#if defined(__CUDA_ARCH__)
  using Pair = std::conditional_t<std::is_same_v<T, float>, float2, double2>;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (reinterpret_cast<std::uintptr_t>(p) % sizeof(Pair) == 0) {
      const Pair pair = *reinterpret_cast<const Pair*>(p);
      v[0] = pair.x;
      v[1] = pair.y;
      v[2] = p[2];
    } else {
      const Pair pair = *reinterpret_cast<const Pair*>(p + 1);
      v[0] = p[0];
      v[1] = pair.x;
      v[2] = pair.y;
    }
    return;
  }
#endif
  for (int c = 0; c < 3; ++c) v[c] = p[c];
}

template <class T>
TREMOR_HOST_DEVICE inline void atomic_add_triplet(T* p, const T (&v)[3]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (std::is_same_v<T, float>) {
    if (reinterpret_cast<std::uintptr_t>(p) % sizeof(float2) == 0) {
      atomicAdd(reinterpret_cast<float2*>(p), make_float2(v[0], v[1]));
      atomicAdd(p + 2, v[2]);
    } else {
      atomicAdd(p, v[0]);
      atomicAdd(reinterpret_cast<float2*>(p + 1), make_float2(v[1], v[2]));
    }
    return;
  }
#endif
  for (int c = 0; c < 3; ++c) atomic_add(p + c, v[c]);
}

}  // namespace tremor
