#pragma once
// The one timing loop of the benchmarks. A run is timed by its own code (the Exec synchronised
// before and after, core/clock.hpp), which returns the seconds; the loop decides how many runs.
#include <algorithm>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

namespace tremor::bench {

// `run` at least `runs` times, and more until `min_seconds` have been timed, so that a short case
// is timed over enough runs for the clock's resolution and the machine's noise. `times` holds
// runs already timed. Returns the seconds of every timed run.
template <class Run>
std::vector<double> repeat_timed(int runs, double min_seconds, Run&& run, std::vector<double> times = {}) {
  double timed = 0.0;
  for (double t : times) timed += t;
  while (int(times.size()) < runs || timed < min_seconds) {
    times.push_back(run());
    timed += times.back();
  }
  return times;
}

// One untimed run first (first touches, caches, lazy set-up), then repeat_timed. A first run
// longer than `keep_above` seconds is kept as the first timed run and needs no repeats: its
// warm-up share is small, and a second run would double a long case.
template <class Run>
std::vector<double> warm_then_time(int runs, double min_seconds, Run&& run,
                                   double keep_above = std::numeric_limits<double>::infinity()) {
  const double first = run();
  if (first > keep_above) return repeat_timed(1, min_seconds, run, {first});
  return repeat_timed(runs, min_seconds, run);
}

// The timed runs' entries of `values`, which a run appends to every time, untimed runs included:
// the last `timed` of them.
inline std::vector<double> timed_values(const std::vector<double>& values, std::size_t timed) {
  return std::vector<double>(values.end() - static_cast<std::ptrdiff_t>(timed), values.end());
}

// Median of a non-empty list.
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace tremor::bench
