#pragma once
// Lanes<T, W>: W consecutive values of an array read or written as one aligned access, and
// forall_lanes(exec, n, aligned, wide, narrow), which runs a streaming loop W values per index
// where every array it touches is aligned (16 bytes: 4 floats or 2 doubles), one value per index
// for the rest. A GPU thread that moves 16 bytes per array per access keeps more bytes in flight
// than one that moves 4, and a loop over many arrays of floats streams nearer the copy bandwidth
// (docs/benchmarks.md, "Spectral elements": the central-difference update). The loop's body is
// one function template of W, called by both lambdas.
#include <cstdint>
#include <initializer_list>

#include "tremor/backend/forall.hpp"
#include "tremor/core/config.hpp"

namespace tremor {

template <class T, int W>
struct alignas(sizeof(T) * W) Lanes {
  T v[W];
  TREMOR_HOST_DEVICE static Lanes load(const T* p, Index first) { return *reinterpret_cast<const Lanes*>(p + first); }
  TREMOR_HOST_DEVICE void store(T* p, Index first) const { *reinterpret_cast<Lanes*>(p + first) = *this; }
};

// The widest Lanes of T that one 16-byte access moves.
template <class T>
inline constexpr int lanes_of = sizeof(T) >= 16 ? 1 : static_cast<int>(16 / sizeof(T));

// Whether every pointer is aligned to 16 bytes (null pointers count as aligned: empty arrays).
inline bool aligned_16(std::initializer_list<const void*> pointers) {
  for (const void* p : pointers)
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) return false;
  return true;
}

// wide(first) for first = 0, W, 2W, ... below n rounded down to W where `aligned`, then
// narrow(i) for every i left (all of them where not aligned); W = lanes_of<T>.
template <class T, class Wide, class Narrow>
void forall_lanes(const Exec& exec, Index n, bool aligned, Wide wide, Narrow narrow) {
  constexpr int W = lanes_of<T>;
  const Index packs = aligned ? n / W : 0, done = packs * W;
  forall(exec, packs, [=] TREMOR_LAMBDA(Index k) { wide(k * W); });
  forall(exec, n - done, [=] TREMOR_LAMBDA(Index i) { narrow(done + i); });
}

}  // namespace tremor
