#pragma once
// Wall-clock time for reports and progress: one steady clock, seconds as double.
#include <chrono>

namespace tremor {

using Clock = std::chrono::steady_clock;

inline double seconds_between(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

inline double seconds_since(Clock::time_point start) { return seconds_between(start, Clock::now()); }

// The seconds since `start`, and `start` moved to now: one phase after another (synchronise a
// device first to count its queued work).
inline double lap(Clock::time_point& start) {
  const Clock::time_point now = Clock::now();
  const double seconds = seconds_between(start, now);
  start = now;
  return seconds;
}

}  // namespace tremor
