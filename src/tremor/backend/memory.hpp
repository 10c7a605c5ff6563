#pragma once
// Raw allocation and copies per memory space; DeviceArray is the owner built on these.
#include <atomic>
#include <cstddef>
#include <string>

#include "tremor/backend/exec.hpp"

namespace tremor::memory {

class Account;

// Counted in exec's account (Exec::account).
void* allocate(const Exec& exec, std::size_t bytes);
// `bytes` as given to allocate() with the same Exec (or a copy): its account goes down by it.
void release(const Exec& exec, void* pointer, std::size_t bytes) noexcept;
// The same, for an owner that outlives no Exec but keeps the account and place (an Exec's scratch).
void release(Account& account, MemorySpace space, int device, void* pointer, std::size_t bytes) noexcept;
// Copies between any two spaces; ordered on exec's stream and complete on return.
void copy(const Exec& exec, void* dst, MemorySpace dst_space, const void* src, MemorySpace src_space,
          std::size_t bytes);

// Bytes held through allocate() in one space (all devices of a space summed), now and at most since
// the account was made or its last reset_peak(): what a run reports as the memory it used, without
// the CUDA context or library workspaces allocated elsewhere.
struct Usage {
  std::size_t current = 0;
  std::size_t peak = 0;
};

// The bytes allocated through one Exec, its copies and those it made (Exec::host, side_stream), per
// space. Counted atomically: any thread may allocate, release or read.
class Account {
 public:
  Usage usage(MemorySpace space) const;
  // Sets the peak to the current usage.
  void reset_peak(MemorySpace space);
  void add(MemorySpace space, std::size_t bytes);
  void remove(MemorySpace space, std::size_t bytes) noexcept;

 private:
  struct Counter {
    std::atomic<std::size_t> current{0};
    std::atomic<std::size_t> peak{0};
  };
  Counter& counter(MemorySpace space) { return counters_[space == MemorySpace::Host ? 0 : 1]; }
  const Counter& counter(MemorySpace space) const { return counters_[space == MemorySpace::Host ? 0 : 1]; }
  Counter counters_[2];
};

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
