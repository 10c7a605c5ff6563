#pragma once
// How much memory an Exec's space has left: what a benchmark or a solver sizes its largest
// problem from before allocating it.
#include <cstddef>
#include <string>

#include "tremor/backend/exec.hpp"

namespace tremor {

struct MemoryInfo {
  std::size_t free_bytes = 0;   // 0 when unknown
  std::size_t total_bytes = 0;  // 0 when unknown
};

// A GPU's free and total memory (cudaMemGetInfo on exec's device); for the host backends the
// system's available and total memory (MemAvailable and MemTotal of /proc/meminfo, 0 where that
// file is missing).
MemoryInfo memory_info(const Exec& exec);

// A "Name:   123 kB" line of /proc/meminfo (MemAvailable, MemTotal) in bytes; false when absent.
bool read_meminfo(const std::string& name, std::size_t& bytes);

}  // namespace tremor
