#include "tremor/backend/subnormals.hpp"

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace tremor {

namespace {

#if defined(__SSE2__)
constexpr unsigned int flush_bits = 0x8040u;  // FTZ (bit 15) and DAZ (bit 6)
#endif

// Sets or clears the bits on this thread and on every thread of an OpenMP team (the pool the
// run's parallel loops use; threads started later copy the starting thread's mode).
void set_everywhere(bool on) {
#if defined(__SSE2__)
  const auto apply = [on] { _mm_setcsr(on ? (_mm_getcsr() | flush_bits) : (_mm_getcsr() & ~flush_bits)); };
  apply();
#pragma omp parallel
  apply();
#else
  (void)on;
#endif
}

}  // namespace

FlushSubnormals::FlushSubnormals(bool active) {
#if defined(__SSE2__)
  active_ = active && (_mm_getcsr() & flush_bits) != flush_bits;
  if (active_) set_everywhere(true);
#else
  (void)active;
#endif
}

FlushSubnormals::~FlushSubnormals() {
  if (active_) set_everywhere(false);
}

}  // namespace tremor
