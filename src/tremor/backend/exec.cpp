#include "tremor/backend/exec.hpp"

#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

#include "tremor/backend/cuda_check.hpp"
#include "tremor/backend/memory.hpp"
#include "tremor/backend/side_stream.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"

namespace tremor {

namespace detail {
// The scratch of an Exec and its copies: one buffer in their memory space, released by the last.
struct Scratch {
  std::shared_ptr<memory::Account> account;
  MemorySpace space = MemorySpace::Host;
  int device = -1;
  void* pointer = nullptr;
  std::size_t bytes = 0;
  void* stream = nullptr;  // a stream the Exec owns (cuda_stream, side_stream), destroyed last
  Scratch(std::shared_ptr<memory::Account> account_, MemorySpace space_, int device_)
      : account(std::move(account_)), space(space_), device(device_) {}
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    memory::release(*account, space, device, pointer, bytes);
#if defined(TREMOR_HAVE_CUDA)
    if (stream) (void)cudaStreamDestroy(static_cast<cudaStream_t>(stream));
#endif
  }
};
}  // namespace detail

namespace {

// Exec::programmatic_launches on `device`: asked of the device once, the environment read once.
bool programmatic_launches_on([[maybe_unused]] int device) {
#if defined(TREMOR_HAVE_CUDA)
  static const bool allowed = [] {
    const char* value = std::getenv("TREMOR_PROGRAMMATIC_LAUNCH");
    return value == nullptr || std::string_view(value) != "0";
  }();
  static const std::vector<bool> capable = [] {
    std::vector<bool> out;
    for (int d = 0; d < cuda_device_count(); ++d) {
      int major = 0;
      TREMOR_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d));
      out.push_back(major >= 9);
    }
    return out;
  }();
  return allowed && device >= 0 && device < static_cast<int>(capable.size()) &&
         capable[static_cast<std::size_t>(device)];
#else
  return false;
#endif
}

}  // namespace

Exec::Exec(Backend backend, int device, std::shared_ptr<memory::Account> account)
    : backend_(backend),
      device_(device),
      programmatic_(backend == Backend::Cuda && programmatic_launches_on(device)),
      account_(account ? std::move(account) : std::make_shared<memory::Account>()),
      scratch_(std::make_shared<detail::Scratch>(account_, space(), device)) {}

std::string_view to_string(Backend backend) { return name_of(std::optional<Backend>(backend), backend_names); }

Backend parse_backend(std::string_view name) {
  const std::optional<Backend> backend = parse_named(name, backend_names, "backend");
  return backend ? *backend : cuda_device_count() > 0 ? Backend::Cuda : Backend::OpenMP;
}

std::vector<std::string> backend_choice_names(bool with_auto) {
  std::vector<std::string> names;
  for (const auto& [name, backend] : backend_names)
    if (with_auto || backend) names.emplace_back(name);
  return names;
}

bool cuda_compiled() {
#if defined(TREMOR_HAVE_CUDA)
  return true;
#else
  return false;
#endif
}

int cuda_device_count() {
#if defined(TREMOR_HAVE_CUDA)
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();  // no driver or no device: clear the sticky error, report none
      return 0;
    }
    return n;
  }();
  return count;
#else
  return 0;
#endif
}

std::vector<Backend> available_backends() {
  std::vector<Backend> out{Backend::Serial, Backend::OpenMP};
  if (cuda_device_count() > 0) out.push_back(Backend::Cuda);
  return out;
}

Exec Exec::cuda(int device) {
  if (!cuda_compiled())
    throw Error("the CUDA backend was requested but this tremor was built without CUDA "
                "(configure with -DTREMOR_CUDA=ON)");
  const int count = cuda_device_count();
  if (device < 0 || device >= count)
    throw Error(str("CUDA device ", device, " was requested but ", count, " usable device(s) found"));
  Exec exec(Backend::Cuda, device);
#if defined(TREMOR_HAVE_CUDA)
  TREMOR_CUDA_CHECK(cudaSetDevice(device));
#endif
  return exec;
}

#if defined(TREMOR_HAVE_CUDA)
namespace {

// The level of `priority` (greater is numerically lower), from the driver's range, the same on
// every device: asked once (set_stream_priority runs every step).
int priority_level(StreamPriority priority) {
  static const std::pair<int, int> range = [] {
    int least = 0, greatest = 0;
    TREMOR_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    return std::pair(least, greatest);
  }();
  const auto [least, greatest] = range;
  switch (priority) {
    case StreamPriority::Lowest: return least;
    case StreamPriority::Raised: return greatest < least - 1 ? greatest + 1 : greatest;
    case StreamPriority::Highest: return greatest;
  }
  return least;
}

}  // namespace
#endif

Exec Exec::cuda_stream(int device, StreamPriority priority) {
  Exec exec = cuda(device);
#if defined(TREMOR_HAVE_CUDA)
  cudaStream_t stream = nullptr;
  TREMOR_CUDA_CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamDefault, priority_level(priority)));
  exec.stream_ = stream;
  exec.scratch_->stream = stream;
#else
  (void)priority;
#endif
  return exec;
}

void set_stream_priority(const Exec& exec, StreamPriority priority) {
#if defined(TREMOR_HAVE_CUDA)
  if (exec.backend() != Backend::Cuda || exec.stream() == nullptr) return;
  TREMOR_CUDA_CHECK(cudaSetDevice(exec.device()));
  cudaLaunchAttributeValue value{};
  value.priority = priority_level(priority);
  TREMOR_CUDA_CHECK(
      cudaStreamSetAttribute(static_cast<cudaStream_t>(exec.stream()), cudaLaunchAttributePriority, &value));
#else
  (void)exec, (void)priority;
#endif
}

Exec Exec::side_stream(StreamPriority priority) const {
  TREMOR_CHECK(backend_ == Backend::Cuda, "a side stream of the ", to_string(backend_), " backend: CUDA only");
  Exec exec(Backend::Cuda, device_, account_);
#if defined(TREMOR_HAVE_CUDA)
  TREMOR_CUDA_CHECK(cudaSetDevice(device_));
  cudaStream_t stream = nullptr;
  TREMOR_CUDA_CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, priority_level(priority)));
  exec.stream_ = stream;
  exec.scratch_->stream = stream;
#else
  (void)priority;
#endif
  return exec;
}

Exec Exec::with_workspace_budget(std::size_t bytes) const {
  TREMOR_CHECK(bytes > 0, "a workspace budget must be positive");
  Exec copy = *this;
  copy.workspace_budget_ = bytes;
  return copy;
}

Exec Exec::host() const {
  return space() == MemorySpace::Host ? *this : Exec(Backend::OpenMP, -1, account_);
}

Exec Exec::make(Backend backend) {
  switch (backend) {
    case Backend::Serial: return serial();
    case Backend::OpenMP: return openmp();
    case Backend::Cuda: return cuda();
  }
  return serial();
}

void Exec::synchronize() const {
#if defined(TREMOR_HAVE_CUDA)
  if (backend_ == Backend::Cuda) {
    TREMOR_CUDA_CHECK(cudaSetDevice(device_));
    TREMOR_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)));
  }
#endif
}

void* Exec::scratch(std::size_t bytes) const {
  detail::Scratch& s = *scratch_;
  if (bytes <= s.bytes) return s.pointer;
  void* grown = memory::allocate(*this, bytes);
  synchronize();  // kernels queued before this request may still read or write the old buffer
  memory::release(*s.account, s.space, s.device, s.pointer, s.bytes);
  s.pointer = grown;
  s.bytes = bytes;
  return grown;
}

std::size_t Exec::scratch_bytes() const { return scratch_->bytes; }

std::string Exec::describe() const {
  if (backend_ != Backend::Cuda) return std::string(to_string(backend_));
  std::string details;  // the device's name, and how its code was built where it is no build for it
#if defined(TREMOR_HAVE_CUDA)
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device_) == cudaSuccess) details = prop.name;
#if defined(TREMOR_CUDA_CHECK_ONLY)
  details += str(details.empty() ? "" : ", ", "device code unoptimised: a TREMOR_CUDA_CHECK_ONLY build");
#endif
#endif
  return details.empty() ? str("cuda:", device_) : str("cuda:", device_, " (", details, ")");
}

}  // namespace tremor
