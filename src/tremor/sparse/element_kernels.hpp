#pragma once
// Pieces shared by the element-by-element kernels of element_batch.cpp and the two-kernel
// assembly (two_kernel_*.cpp): where a thread keeps its element matrix (the element arrays and the
// coordinate gather are fem/device_elements.hpp's). Included by sources that launch kernels only.
#include <algorithm>
#include <cstddef>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/sparse/element_batch.hpp"

namespace tremor::sparse::detail {

// An element matrix of up to this many doubles lives in the thread's own memory (registers,
// spilling to local memory / the stack); a larger one in the thread's slot of a workspace array
// in the Exec's memory. 1024 doubles (8 KiB) hold the stiffness of tet10 (900) and hex8 (576)
// and of every 2D type up to quad-gll3; hex20 (3600) and the 3D GLL elements of order >= 2 use
// the workspace. Why not the stack for all: a CUDA kernel's local memory is reserved for every
// thread that may be resident (hex20: 28.8 KB x 2048 threads x 132 SMs = 7.8 GB on an H100) and
// hex-gll8's 38 MB would overflow any host thread's stack.
constexpr int max_local_doubles = 1024;

template <int N>
constexpr bool fits_local = N <= max_local_doubles;

// Doubles a thread keeps locally for an N-double matrix: N when it fits, else 1 (a placeholder;
// the matrix is then in the workspace).
template <int N>
constexpr int local_doubles = fits_local<N> ? N : 1;

// A growing workspace array in one Exec's memory, reused by successive launches of one call
// (launches on one Exec run in order, so reuse needs no synchronisation).
class Workspace {
 public:
  explicit Workspace(const Exec& exec) : exec_(exec) {}
  // Items of one launch when each needs `doubles_per_item` workspace doubles (all n when none): as
  // many as the Exec's workspace budget holds (Exec::workspace_budget), at least one.
  Index chunk_items(Index n, Size doubles_per_item) const {
    if (doubles_per_item <= 0 || n <= 0) return n;
    const Size fit = static_cast<Size>(exec_.workspace_budget() / sizeof(double)) / doubles_per_item;
    return static_cast<Index>(std::clamp<Size>(fit, 1, n));
  }
  // At least `doubles` doubles (nullptr when 0); earlier pointers are invalidated by a growth.
  double* reserve(Size doubles) {
    if (doubles <= 0) return nullptr;
    if (doubles > array_.size()) {
      TREMOR_CHECK(doubles <= Size(2147483647), "element workspace of ", doubles, " doubles is too large");
      array_ = DeviceArray<double>();  // release first: the old and new arrays need not coexist
      array_ = DeviceArray<double>(exec_, static_cast<Index>(doubles));
    }
    return array_.data();
  }

 private:
  Exec exec_;
  DeviceArray<double> array_;
};

}  // namespace tremor::sparse::detail
