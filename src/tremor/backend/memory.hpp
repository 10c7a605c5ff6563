#pragma once
// Raw allocation and copies per memory space; DeviceArray is the owner built on these.
#include <cstddef>

#include "tremor/backend/exec.hpp"

namespace tremor::memory {

void* allocate(const Exec& exec, std::size_t bytes);
void release(MemorySpace space, int device, void* pointer) noexcept;
// Copies between any two spaces; ordered on exec's stream and complete on return.
void copy(const Exec& exec, void* dst, MemorySpace dst_space, const void* src, MemorySpace src_space,
          std::size_t bytes);

}  // namespace tremor::memory
