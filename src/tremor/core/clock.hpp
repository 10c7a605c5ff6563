#pragma once
// Wall-clock time for reports and progress: one steady clock, seconds as double.
#include <chrono>

namespace tremor {

using Clock = std::chrono::steady_clock;

inline double seconds_between(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

inline double seconds_since(Clock::time_point start) { return seconds_between(start, Clock::now()); }

}  // namespace tremor
