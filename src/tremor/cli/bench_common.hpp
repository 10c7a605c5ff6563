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
#include <ostream>
#include <string>
#include <vector>

#include "tremor/backend/bandwidth.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/backend/memory_info.hpp"
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

// A backend of a run, with its copy bandwidth and memory.
struct Device {
  Exec exec;
  CopyBandwidth copy;
  MemoryInfo memory;
  bool host() const { return exec.space() == MemorySpace::Host; }
  std::string name() const { return std::string(to_string(exec.backend())); }
};

inline std::string gib(std::size_t bytes) {
  return fixed(double(bytes) / double(std::size_t(1) << 30), 2) + " GiB";
}

// The backends' entries of the JSON "backends" array and the markdown table describing them.
inline void write_devices(std::ostream& json, std::ostream& md, const std::vector<Device>& devices) {
  md << "| backend | device | threads | copy GB/s | free / total memory |\n|---|---|---:|---:|---:|\n";
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const Device& d = devices[i];
    json << (i ? ",\n" : "\n") << "    {\"backend\": " << json_string(d.name())
         << ", \"device\": " << json_string(d.exec.describe()) << ", \"threads\": " << host_threads(d.exec)
         << ", \"copy_bandwidth_GBps\": " << 1e-9 * d.copy.bytes_per_second()
         << ", \"free_memory_bytes\": " << d.memory.free_bytes << ", \"total_memory_bytes\": " << d.memory.total_bytes
         << "}";
    md << "| " << d.name() << " | " << d.exec.describe() << " | " << host_threads(d.exec) << " | "
       << fixed(1e-9 * d.copy.bytes_per_second(), 0) << " | " << gib(d.memory.free_bytes) << " / "
       << gib(d.memory.total_bytes) << " |\n";
  }
}

}  // namespace tremor::cli
