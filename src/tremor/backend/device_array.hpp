#pragma once
// DeviceArray<T>: the one owner of an allocation in the memory space of the Exec it was made with.
// Move-only; transfers are explicit calls.
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "tremor/backend/memory.hpp"
#include "tremor/backend/view.hpp"
#include "tremor/core/error.hpp"

namespace tremor {

template <class T>
class DeviceArray {
  static_assert(std::is_trivially_copyable_v<T>, "DeviceArray holds trivially copyable values");

 public:
  DeviceArray() = default;
  DeviceArray(const Exec& exec, Index n) : exec_(exec), size_(n) {
    TREMOR_CHECK(n >= 0, "negative array size ", n);
    data_ = static_cast<T*>(memory::allocate(exec, sizeof(T) * static_cast<std::size_t>(n)));
  }
  DeviceArray(const Exec& exec, std::span<const T> values) : DeviceArray(exec, static_cast<Index>(values.size())) {
    copy_from_host(values);
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& other) noexcept { swap(other); }
  DeviceArray& operator=(DeviceArray&& other) noexcept {
    DeviceArray(std::move(other)).swap(*this);
    return *this;
  }
  ~DeviceArray() {
    memory::release(exec_, data_, sizeof(T) * static_cast<std::size_t>(size_));
  }

  Index size() const { return size_; }
  const Exec& exec() const { return exec_; }
  View<T> view() { return {data_, size_, exec_.space()}; }
  View<const T> view() const { return {data_, size_, exec_.space()}; }
  T* data() { return data_; }
  const T* data() const { return data_; }

  void copy_from_host(std::span<const T> values) {
    TREMOR_CHECK(static_cast<Index>(values.size()) == size_, "copy of ", values.size(), " values into an array of ",
                 size_);
    memory::copy(exec_, data_, exec_.space(), values.data(), MemorySpace::Host, sizeof(T) * values.size());
  }
  std::vector<T> to_host() const {
    std::vector<T> out(static_cast<std::size_t>(size_));
    memory::copy(exec_, out.data(), MemorySpace::Host, data_, exec_.space(), sizeof(T) * out.size());
    return out;
  }

 private:
  void swap(DeviceArray& other) noexcept {
    std::swap(exec_, other.exec_);
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }
  Exec exec_ = Exec::serial();
  T* data_ = nullptr;
  Index size_ = 0;
};

}  // namespace tremor
