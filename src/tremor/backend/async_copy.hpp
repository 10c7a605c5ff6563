#pragma once
// Copies from an Exec's memory to the host that overlap the Exec's work: a page-locked host
// buffer (PinnedArray), a second stream that copies into it once the Exec's stream has reached a
// point (CopyStream), and an event marking the copy's end that another thread may wait on
// (CopyEvent). A time loop hands results to the host this way without stopping: the copy waits
// for the kernels that produced its source on the GPU, not on the host.
//
// On a host Exec (Serial, OpenMP) the work issued on the Exec is complete when its call returns,
// so the copy is a memcpy done at once and waiting is a no-op; no CUDA call is made.
#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"

namespace tremor {

namespace pinned {
// `bytes` of host memory: page-locked (cudaMallocHost) when `exec` is a Cuda Exec, so
// cudaMemcpyAsync into it is asynchronous and runs at full PCIe/NVLink speed; 64-byte aligned
// ordinary memory otherwise. `page_locked` says which, for release().
void* allocate(const Exec& exec, std::size_t bytes, bool& page_locked);
void release(void* pointer, bool page_locked) noexcept;
}  // namespace pinned

// True when `pointer` lies in page-locked host memory known to CUDA (false without CUDA).
bool page_locked_host_memory(const void* pointer);

// The one owner of n values of host memory that an Exec's device copies into asynchronously
// (page-locked for a Cuda Exec, see pinned::allocate). Move-only.
template <class T>
class PinnedArray {
  static_assert(std::is_trivially_copyable_v<T>, "PinnedArray holds trivially copyable values");

 public:
  PinnedArray() = default;
  PinnedArray(const Exec& exec, Index n) : size_(n) {
    TREMOR_CHECK(n >= 0, "negative array size ", n);
    data_ = static_cast<T*>(pinned::allocate(exec, sizeof(T) * static_cast<std::size_t>(n), page_locked_));
  }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  PinnedArray(PinnedArray&& other) noexcept { swap(other); }
  PinnedArray& operator=(PinnedArray&& other) noexcept {
    PinnedArray(std::move(other)).swap(*this);
    return *this;
  }
  ~PinnedArray() { pinned::release(data_, page_locked_); }

  Index size() const { return size_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  std::span<T> span() { return {data_, static_cast<std::size_t>(size_)}; }
  std::span<const T> span() const { return {data_, static_cast<std::size_t>(size_)}; }
  bool page_locked() const { return page_locked_; }

 private:
  void swap(PinnedArray& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(page_locked_, other.page_locked_);
  }
  T* data_ = nullptr;
  Index size_ = 0;
  bool page_locked_ = false;
};

// Marks the end of the copies a CopyStream queued before CopyStream::record(). Move-only; one
// cudaEvent_t (created with blocking sync, so a waiting thread sleeps instead of spinning) for a
// Cuda Exec, nothing on the host.
class CopyEvent {
 public:
  CopyEvent() = default;
  explicit CopyEvent(const Exec& exec);
  CopyEvent(const CopyEvent&) = delete;
  CopyEvent& operator=(const CopyEvent&) = delete;
  CopyEvent(CopyEvent&& other) noexcept { swap(other); }
  CopyEvent& operator=(CopyEvent&& other) noexcept {
    CopyEvent(std::move(other)).swap(*this);
    return *this;
  }
  ~CopyEvent();

  // Blocks until the copies before the last record() are complete (at once when never recorded,
  // or on the host). Safe from any thread; throws tremor::Error on a CUDA error.
  void wait() const;

 private:
  friend class CopyStream;
  void swap(CopyEvent& other) noexcept {
    std::swap(device_, other.device_);
    std::swap(event_, other.event_);
  }
  int device_ = -1;
  void* event_ = nullptr;  // cudaEvent_t
};

// A second stream on the device of an Exec, for device-to-host copies that overlap the Exec's
// own stream. Move-only; the stream is non-blocking (it never waits for the legacy default
// stream implicitly, nor makes it wait), and its destruction waits for the copies queued on it.
class CopyStream {
 public:
  CopyStream() = default;
  explicit CopyStream(const Exec& exec);
  CopyStream(const CopyStream&) = delete;
  CopyStream& operator=(const CopyStream&) = delete;
  CopyStream(CopyStream&& other) noexcept { swap(other); }
  CopyStream& operator=(CopyStream&& other) noexcept {
    CopyStream(std::move(other)).swap(*this);
    return *this;
  }
  ~CopyStream();

  const Exec& exec() const { return exec_; }

  // Queues a copy of `bytes` from `src` (in the Exec's memory) to host memory `dst` that starts
  // once all work issued on the Exec's stream so far has finished, and returns at once: an event
  // recorded on the Exec's stream, waited for by this stream (on the GPU), then cudaMemcpyAsync.
  // `dst` should be page-locked (a PinnedArray's), else CUDA copies synchronously. The source
  // must not be overwritten, nor `dst` read, before the event of a later record() has completed.
  // On a host Exec: a memcpy, done on return.
  void copy_to_host(void* dst, const void* src, std::size_t bytes);
  template <class T>
  void copy_to_host(PinnedArray<T>& dst, const DeviceArray<T>& src) {
    TREMOR_CHECK(dst.size() == src.size(), "copy of ", src.size(), " values into a host array of ", dst.size());
    copy_to_host(dst.data(), src.data(), sizeof(T) * static_cast<std::size_t>(src.size()));
  }
  // Records `done` (made for the same Exec) after the copies queued so far.
  void record(CopyEvent& done);
  // Work issued on the Exec's stream from now on starts once the copies before `done`'s last
  // record are complete, a wait on the device (the host goes on): a copy's source may then be
  // overwritten by the next kernel. A no-op on the host, where copies are complete at once.
  void exec_waits_for(const CopyEvent& done);

 private:
  void swap(CopyStream& other) noexcept {
    std::swap(exec_, other.exec_);
    std::swap(stream_, other.stream_);
    std::swap(issued_, other.issued_);
  }
  Exec exec_ = Exec::serial();
  void* stream_ = nullptr;  // cudaStream_t of the copies
  void* issued_ = nullptr;  // cudaEvent_t recorded on the Exec's stream before each copy
};

}  // namespace tremor
