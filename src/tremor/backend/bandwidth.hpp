#pragma once
// The memory bandwidth an Exec reaches copying one array into another: the ceiling every
// memory-bound kernel (an SpMV, the central-difference update) is measured against; and the rate
// of multiply-adds it reaches in a precision, the ceiling of compute-bound kernels.
#include <cstddef>

#include "tremor/backend/exec.hpp"

namespace tremor {

struct CopyBandwidth {
  std::size_t bytes = 0;   // array size; each copy reads and writes it, 2 x bytes of traffic
  int repeats = 0;
  double seconds = 0.0;    // the fastest of the repeats
  double bytes_per_second() const { return seconds > 0.0 ? 2.0 * static_cast<double>(bytes) / seconds : 0.0; }
};

// Times `repeats` copies y[i] = x[i] of `bytes` bytes (as doubles) through forall on `exec`,
// after one untimed copy, and keeps the fastest. On a GPU each copy is timed with CUDA events on
// the Exec's stream; on the host with a steady clock.
CopyBandwidth measure_copy_bandwidth(const Exec& exec, std::size_t bytes = std::size_t(1) << 30, int repeats = 10);

struct FmaRate {
  double flops = 0.0;  // per run: 2 per multiply-add
  int repeats = 0;
  double seconds = 0.0;  // the fastest of the repeats
  double flops_per_second() const { return seconds > 0.0 ? flops / seconds : 0.0; }
};

// Times `repeats` runs of `threads` forall iterations of 8 independent multiply-add chains of
// 2048 steps each in Real (the device's FMA peak when `threads` fills it several times over: on
// an H100 132 SMs x 2048 threads), after one untimed run, and keeps the fastest.
template <class Real>
FmaRate measure_fma_rate(const Exec& exec, Index threads, int repeats = 5);

}  // namespace tremor
