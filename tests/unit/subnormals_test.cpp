// backend/subnormals.hpp: while a FlushSubnormals lives, this thread's and the OpenMP threads'
// arithmetic flushes subnormal floats to zero; before and after, it keeps them.
#include <gtest/gtest.h>
#include <omp.h>

#include <vector>

#include "tremor/backend/subnormals.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// Half the smallest normal float, computed from values the compiler cannot fold: a subnormal
// (5.9e-39) kept, 0 flushed.
float half_of_smallest_normal() {
  volatile float smallest = 1.17549435e-38f, half = 0.5f;
  return smallest * half;
}

// The same on every thread of an OpenMP team (the size the run's loops use).
std::vector<float> on_threads() {
  std::vector<float> out(static_cast<std::size_t>(omp_get_max_threads()), -1.0f);
#pragma omp parallel
  out[static_cast<std::size_t>(omp_get_thread_num())] = half_of_smallest_normal();
  return out;
}

TEST(FlushSubnormals, FlushesOnEveryThreadWhileItLives) {
#if defined(__SSE2__)
  const int threads = omp_get_max_threads();
  omp_set_num_threads(4);                      // several threads even on a small machine
  ASSERT_GT(half_of_smallest_normal(), 0.0f);  // the default: subnormals kept
  (void)on_threads();                          // the team exists before the guard
  {
    const FlushSubnormals flush(true);
    EXPECT_TRUE(flush.active());
    EXPECT_EQ(half_of_smallest_normal(), 0.0f);
    for (float value : on_threads()) EXPECT_EQ(value, 0.0f);
  }
  EXPECT_GT(half_of_smallest_normal(), 0.0f);  // restored
  for (float value : on_threads()) EXPECT_GT(value, 0.0f);
  {
    const FlushSubnormals inactive(false);
    EXPECT_FALSE(inactive.active());
    EXPECT_GT(half_of_smallest_normal(), 0.0f);
  }
  omp_set_num_threads(threads);
#else
  GTEST_SKIP() << "x86 only";
#endif
}

}  // namespace
}  // namespace tremor
