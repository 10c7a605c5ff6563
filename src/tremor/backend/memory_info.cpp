#include "tremor/backend/memory_info.hpp"

#include <fstream>
#include <sstream>
#include <string>

#include "tremor/backend/cuda_check.hpp"
#include "tremor/core/error.hpp"

namespace tremor {

namespace {

// read_meminfo's value, 0 when absent.
std::size_t meminfo_bytes(const std::string& name) {
  std::size_t bytes = 0;
  return read_meminfo(name, bytes) ? bytes : 0;
}

}  // namespace

bool read_meminfo(const std::string& name, std::size_t& bytes) {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(name.size() + 1));
    std::size_t kib = 0;
    if (!(fields >> kib)) return false;
    bytes = kib * 1024;
    return true;
  }
  return false;
}

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
