#pragma once
// View<T>: a non-owning, trivially copyable window on memory in one space. Kernels capture views
// by value; DeviceArray owns what they point to.
#include <type_traits>

#include "tremor/core/config.hpp"

namespace tremor {

// Host memory serves Serial and OpenMP; Device memory is the GPU's.
enum class MemorySpace { Host, Device };

template <class T>
struct View {
  T* data = nullptr;
  Index size = 0;
  MemorySpace space = MemorySpace::Host;  // where data lives (DeviceArray::view() says)

  TREMOR_HOST_DEVICE T& operator[](Index i) const { return data[i]; }
  TREMOR_HOST_DEVICE Index n() const { return size; }
  // A writable view converts to a read-only one.
  template <class U = T>
    requires(!std::is_const_v<U>)
  TREMOR_HOST_DEVICE operator View<const U>() const { return {data, size, space}; }
};

}  // namespace tremor
