#pragma once
// What the benchmarks (`tremor bench`, `tremor bench assembly`) share: how they describe the
// machine and write their JSON and markdown.
#include <unistd.h>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>

#include "tremor/backend/exec.hpp"
#include "tremor/core/error.hpp"

namespace tremor::cli {

// A JSON string literal: quotes and backslashes escaped, control characters dropped.
inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) >= 0x20) out += ch;
  }
  return out + "\"";
}

// The host CPU's model name from /proc/cpuinfo, "unknown" without it.
inline std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

// The 1, 5 and 15 minute load averages when constructed (-1 where unknown): other work on the
// machine slows every number down.
struct LoadAverage {
  double values[3] = {-1, -1, -1};
  LoadAverage() {
    if (::getloadavg(values, 3) < 0) values[0] = values[1] = values[2] = -1;
  }
  std::string json() const { return str("[", values[0], ", ", values[1], ", ", values[2], "]"); }
};

// Threads a kernel on `exec` runs on the host: OpenMP's maximum, 1 for Serial (and a GPU).
inline int host_threads(const Exec& exec) {
#if defined(_OPENMP)
  if (exec.backend() == Backend::OpenMP) return omp_get_max_threads();
#endif
  (void)exec;
  return 1;
}

inline std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

// Now, UTC, ISO 8601: "2026-11-22T10:31:05Z".
inline std::string utc_date() {
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return date;
}

}  // namespace tremor::cli
