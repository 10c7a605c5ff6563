#include "tremor/backend/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>

#include "tremor/backend/cuda_check.hpp"
#include "tremor/backend/memory_info.hpp"
#include "tremor/core/error.hpp"

namespace tremor::memory {

namespace {
constexpr std::size_t host_alignment = 64;  // one cache line; also suits 512-bit vector loads

// "1.5 GB": sizes in messages.
std::string gigabytes(std::size_t bytes) {
  std::ostringstream out;
  out.precision(3);
  out << static_cast<double>(bytes) / 1e9 << " GB";
  return out.str();
}


// The first number of a file (a cgroup's memory.max: a number or "max"); false otherwise.
bool number_in(const std::string& path, std::size_t& value) {
  std::ifstream in(path);
  unsigned long long read = 0;
  if (!(in >> read)) return false;
  value = static_cast<std::size_t>(read);
  return true;
}

// This process's cgroup folder under /sys/fs/cgroup (v2: the "0::" line of /proc/self/cgroup).
std::string cgroup_folder() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("0::", 0) == 0) return "/sys/fs/cgroup" + line.substr(3);
  return "/sys/fs/cgroup";
}

}  // namespace

HostAvailable host_available() {
  HostAvailable out;
  const auto bound = [&](std::size_t bytes, std::string by) {
    if (out.known() && bytes >= out.bytes) return;
    out.bytes = bytes;
    out.by = std::move(by);
  };
  std::size_t available = 0;
  if (read_meminfo("MemAvailable", available)) bound(available, str(gigabytes(available), ", MemAvailable of /proc/meminfo"));
  // What the process maps now (statm: total pages, then ..., data + stack pages sixth).
  std::size_t mapped = 0, data = 0;
  {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages[6] = {};
    for (std::size_t& p : pages) statm >> p;
    if (statm) {
      const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
      mapped = pages[0] * page;
      data = pages[5] * page;
    }
  }
  const auto limit = [&](int resource, std::size_t used, const char* what) {
    rlimit l{};
    if (getrlimit(resource, &l) != 0 || l.rlim_cur == RLIM_INFINITY) return;
    const auto cap = static_cast<std::size_t>(l.rlim_cur);
    bound(cap > used ? cap - used : 0,
          str(gigabytes(cap > used ? cap - used : 0), " left under ", what, " of ", gigabytes(cap), ", of which ",
              gigabytes(used), " are in use"));
  };
  limit(RLIMIT_AS, mapped, "the address-space limit (ulimit -v)");
  limit(RLIMIT_DATA, data, "the data-segment limit (ulimit -d)");
  // The cgroup's limit (a container's, a job's): v2, else v1 (whose "no limit" is a huge number).
  const std::string folder = cgroup_folder();
  std::size_t cap = 0, used = 0;
  if (number_in(folder + "/memory.max", cap) && number_in(folder + "/memory.current", used)) {
    bound(cap > used ? cap - used : 0, str(gigabytes(cap > used ? cap - used : 0), " left under the cgroup's memory.max of ",
                                           gigabytes(cap), " (", folder, ")"));
  } else if (number_in("/sys/fs/cgroup/memory/memory.limit_in_bytes", cap) && cap < (std::size_t(1) << 60) &&
             number_in("/sys/fs/cgroup/memory/memory.usage_in_bytes", used)) {
    bound(cap > used ? cap - used : 0,
          str(gigabytes(cap > used ? cap - used : 0), " left under the cgroup's memory.limit_in_bytes of ",
              gigabytes(cap)));
  }
  return out;
}

Usage Account::usage(MemorySpace space) const {
  const Counter& c = counter(space);
  return {c.current.load(), c.peak.load()};
}

void Account::reset_peak(MemorySpace space) {
  Counter& c = counter(space);
  c.peak.store(c.current.load());
}

void Account::add(MemorySpace space, std::size_t bytes) {
  Counter& c = counter(space);
  const std::size_t now = c.current.fetch_add(bytes) + bytes;
  std::size_t peak = c.peak.load();
  while (now > peak && !c.peak.compare_exchange_weak(peak, now)) {
  }
}

void Account::remove(MemorySpace space, std::size_t bytes) noexcept { counter(space).current.fetch_sub(bytes); }

void* allocate(const Exec& exec, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  if (exec.space() == MemorySpace::Host) {
    const std::size_t rounded = (bytes + host_alignment - 1) / host_alignment * host_alignment;
    void* pointer = std::aligned_alloc(host_alignment, rounded);
    if (!pointer) throw Error(str("out of host memory allocating ", bytes, " bytes"));
    exec.account().add(MemorySpace::Host, bytes);
    return pointer;
  }
#if defined(TREMOR_HAVE_CUDA)
  TREMOR_CUDA_CHECK(cudaSetDevice(exec.device()));
  void* pointer = nullptr;
  const cudaError_t status = cudaMalloc(&pointer, bytes);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    size_t free_bytes = 0, total_bytes = 0;
    (void)cudaMemGetInfo(&free_bytes, &total_bytes);
    throw Error(str("out of GPU memory allocating ", bytes, " bytes (", free_bytes, " of ", total_bytes,
                    " bytes free)"));
  }
  exec.account().add(MemorySpace::Device, bytes);
  return pointer;
#else
  throw Error("device allocation in a build without CUDA");
#endif
}

void release(const Exec& exec, void* pointer, std::size_t bytes) noexcept {
  release(exec.account(), exec.space(), exec.device(), pointer, bytes);
}

void release(Account& account, MemorySpace space, [[maybe_unused]] int device, void* pointer,
             std::size_t bytes) noexcept {
  if (!pointer) return;
  account.remove(space, bytes);
  if (space == MemorySpace::Host) {
    std::free(pointer);
    return;
  }
#if defined(TREMOR_HAVE_CUDA)
  (void)cudaSetDevice(device);
  (void)cudaFree(pointer);
#endif
}

void copy([[maybe_unused]] const Exec& exec, void* dst, MemorySpace dst_space, const void* src,
          MemorySpace src_space, std::size_t bytes) {
  if (bytes == 0) return;
  if (dst_space == MemorySpace::Host && src_space == MemorySpace::Host) {
    std::memcpy(dst, src, bytes);
    return;
  }
#if defined(TREMOR_HAVE_CUDA)
  const auto kind = dst_space == MemorySpace::Host
                        ? (src_space == MemorySpace::Host ? cudaMemcpyHostToHost : cudaMemcpyDeviceToHost)
                        : (src_space == MemorySpace::Host ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice);
  auto stream = static_cast<cudaStream_t>(exec.stream());
  TREMOR_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
  TREMOR_CUDA_CHECK(cudaStreamSynchronize(stream));
#else
  throw Error("device copy in a build without CUDA");
#endif
}

}  // namespace tremor::memory
