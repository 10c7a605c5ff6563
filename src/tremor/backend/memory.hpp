#pragma once
// Raw allocation and copies per memory space; DeviceArray is the owner built on these.
#include <cstddef>
#include <string>

#include "tremor/backend/exec.hpp"

namespace tremor::memory {

void* allocate(const Exec& exec, std::size_t bytes);
// `bytes` as given to allocate(): the usage counters below go down by it.
void release(MemorySpace space, int device, void* pointer, std::size_t bytes) noexcept;
// Copies between any two spaces; ordered on exec's stream and complete on return.
void copy(const Exec& exec, void* dst, MemorySpace dst_space, const void* src, MemorySpace src_space,
          std::size_t bytes);

// Bytes held through allocate() in one space (all devices of a space summed), now and at most since
// the start or the last reset_peak(): what a run reports as the memory it used, without the CUDA
// context or library workspaces allocated elsewhere. Counted atomically; any thread may call.
struct Usage {
  std::size_t current = 0;
  std::size_t peak = 0;
};
Usage usage(MemorySpace space);
// Sets the peak to the current usage.
void reset_peak(MemorySpace space);

// What this process may still allocate on the host: the least of the system's MemAvailable
// (/proc/meminfo), the address-space and data limits (RLIMIT_AS, RLIMIT_DATA: `ulimit -v`, `ulimit
// -d`) less what the process maps (/proc/self/statm), and its cgroup's memory limit less its usage
// (cgroup v2 memory.max, v1 memory.limit_in_bytes), each where present. `by` names the one that
// bounds it ("MemAvailable of /proc/meminfo", "the address-space limit (ulimit -v) of 2 GB, of
// which 300 MB are mapped", ...); no bound known: bytes is SIZE_MAX and `by` empty.
struct HostAvailable {
  std::size_t bytes = static_cast<std::size_t>(-1);
  std::string by;
  bool known() const { return !by.empty(); }
};
HostAvailable host_available();

}  // namespace tremor::memory
