#include "tremor/backend/memory_info.hpp"

#include <fstream>
#include <sstream>
#include <string>

#include "tremor/backend/cuda_check.hpp"
#include "tremor/core/error.hpp"

namespace tremor {

namespace {

// A "Name:   123 kB" line of /proc/meminfo in bytes, 0 when absent.
std::size_t meminfo_bytes(const std::string& name) {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(name.size() + 1));
    std::size_t kib = 0;
    fields >> kib;
    return kib * 1024;
  }
  return 0;
}

}  // namespace

MemoryInfo memory_info(const Exec& exec) {
  MemoryInfo info;
  if (exec.space() == MemorySpace::Host) {
    info.free_bytes = meminfo_bytes("MemAvailable");
    info.total_bytes = meminfo_bytes("MemTotal");
    return info;
  }
#if defined(TREMOR_HAVE_CUDA)
  TREMOR_CUDA_CHECK(cudaSetDevice(exec.device()));
  size_t free_bytes = 0, total_bytes = 0;
  TREMOR_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  info.free_bytes = free_bytes;
  info.total_bytes = total_bytes;
#endif
  return info;
}

}  // namespace tremor
