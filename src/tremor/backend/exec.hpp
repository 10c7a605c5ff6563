#pragma once
// Exec: where and how a kernel runs. Every allocating or launching call takes one explicitly;
// there is no global device. Backends are chosen at run time within one binary.
//
// An Exec also owns scratch memory in its space, shared by its copies (an Exec is passed around by
// value) and freed with the last of them: temporaries of a launch, such as a reduction's block
// partials, reuse it instead of allocating per call. Like a CUDA stream, an Exec and its copies
// serve one host thread at a time: work enqueued from two threads at once would interleave on the
// stream, and so would their use of the scratch.
//
// The arrays allocated through an Exec are counted in its memory account (memory::Account), shared
// by its copies, its host() and its side_stream(): the Exec a run makes once counts that run's
// arrays and no other's, so a run reports the memory it held though other runs share the process.
#include <cstddef>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/backend/view.hpp"
#include "tremor/core/choice.hpp"

namespace tremor {

enum class Backend { Serial, OpenMP, Cuda };

// A backend setting's names: "auto" (std::nullopt: the fastest present, CUDA when a GPU is
// usable, resolved by parse_backend) and one per Backend. Readers and commands accept these.
inline constexpr std::array<Named<std::optional<Backend>>, 4> backend_names{{{"auto", std::nullopt},
                                                                             {"serial", Backend::Serial},
                                                                             {"openmp", Backend::OpenMP},
                                                                             {"cuda", Backend::Cuda}}};
inline constexpr std::array<std::string_view, 4> backend_choices = names_of(backend_names);

std::string_view to_string(Backend backend);
// A name of backend_names, "auto" resolved; anything else throws "unknown backend ...".
Backend parse_backend(std::string_view name);
// The names of backend_names for a command line's check; with_auto false: the backends only.
std::vector<std::string> backend_choice_names(bool with_auto = true);

// True when this binary was built with the CUDA backend.
bool cuda_compiled();
// Number of usable CUDA devices (0 without a driver, a device, or CUDA support in the build).
int cuda_device_count();
// Backends usable in this process, Serial first.
std::vector<Backend> available_backends();

namespace detail {
struct Scratch;
}
namespace memory {
class Account;
}

// A CUDA stream's priority (cudaStreamCreateWithPriority): where kernels of several streams wait,
// the blocks of the higher one's are scheduled first. Lowest is the default stream's; Raised is
// above it and below Highest (the same as Highest where the device has two levels only).
enum class StreamPriority { Lowest, Raised, Highest };

class Exec {
 public:
  static Exec serial() { return Exec(Backend::Serial); }
  static Exec openmp() { return Exec(Backend::OpenMP); }
  // The default stream of `device`; throws tremor::Error when no such CUDA device is usable.
  static Exec cuda(int device = 0);
  // A stream of its own on `device` (released with the last copy), ordered against the default
  // stream as the default stream orders every blocking stream (a synchronous copy waits for it),
  // but not against other streams: libraries' internal streams (NCCL's) do not hold it up.
  static Exec cuda_stream(int device, StreamPriority priority = StreamPriority::Lowest);
  static Exec make(Backend backend);
  // A stream of its own on this Exec's device (released with the last copy), which work on the
  // default stream does not wait for, nor it for that work: ordered against other streams by
  // events only. By default its blocks are scheduled before any other stream's (Highest): work that
  // others wait on, such as an interface exchange overlapping the interior's work. Counted in this
  // Exec's memory account. A CUDA Exec only.
  Exec side_stream(StreamPriority priority = StreamPriority::Highest) const;
  // The host backend that prepares data for this Exec (setup, assembly): the Exec itself when it
  // runs on the host, else OpenMP, its arrays counted in this Exec's memory account.
  Exec host() const;

  Backend backend() const { return backend_; }
  MemorySpace space() const { return backend_ == Backend::Cuda ? MemorySpace::Device : MemorySpace::Host; }
  int device() const { return device_; }
  // cudaStream_t, kept opaque so host-only code needs no CUDA headers.
  void* stream() const { return stream_; }
  // Whether its kernels launch as programmatic dependents of the kernel before them on the stream
  // (backend/forall.hpp): on a device of compute capability 9.0 or more, unless the environment
  // sets TREMOR_PROGRAMMATIC_LAUNCH=0 (each kernel then launched once the one before has ended).
  bool programmatic_launches() const { return programmatic_; }
  // Waits for all work queued on this Exec (a no-op on the host backends).
  void synchronize() const;
  std::string describe() const;

  // At least `bytes` of this Exec's scratch in its memory space, uninitialised (64-byte aligned on
  // the host, 256 on a GPU). Grown on demand, never shrunk: a pointer stays valid until a larger
  // request through this Exec or a copy. Growing waits for the work queued on the stream, which may
  // still use the old buffer; a request that fits costs no allocation and no synchronisation.
  void* scratch(std::size_t bytes) const;
  // Bytes the scratch holds now (0 before the first request).
  std::size_t scratch_bytes() const;

  // The memory account of this Exec and its copies (see above).
  memory::Account& account() const { return *account_; }

  // Bytes one launch may take for a workspace beyond its threads' own memory (element matrices
  // larger than 8 KiB, sparse/element_kernels.hpp): a launch over more items is cut into chunks.
  // 256 MiB (about 9000 hex20 stiffness matrices in flight) unless a copy was made with another.
  std::size_t workspace_budget() const { return workspace_budget_; }
  // A copy with another workspace budget (> 0): tests run several chunks on small meshes.
  Exec with_workspace_budget(std::size_t bytes) const;

 private:
  explicit Exec(Backend backend, int device = -1, std::shared_ptr<memory::Account> account = nullptr);
  Backend backend_ = Backend::Serial;
  int device_ = -1;
  void* stream_ = nullptr;
  bool programmatic_ = false;
  std::size_t workspace_budget_ = std::size_t(256) << 20;
  std::shared_ptr<memory::Account> account_;
  std::shared_ptr<detail::Scratch> scratch_;
};

// The host backend that prepares data for `exec` (Exec::host).
inline Exec host_exec(const Exec& exec) { return exec.host(); }

}  // namespace tremor
