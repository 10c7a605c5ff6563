#pragma once
// Raw allocation and copies per memory space; DeviceArray is the owner built on these.
#include <cstddef>

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

}  // namespace tremor::memory
