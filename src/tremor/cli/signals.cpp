#include "tremor/cli/signals.hpp"

#include <atomic>
#include <csignal>
#include <ctime>

namespace tremor::cli {

namespace {

// Lock-free atomics: a handler may run on any thread of the process (OpenMP, CUDA), and lock-free
// operations are safe in one.
std::atomic<int> received{0};
std::atomic<long long> first_ns{0};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<long long>::is_always_lock_free);

// A repeat of the first signal within this window is the same request: `timeout` signals its child
// and then the child's process group, and a job scheduler may do the same, so one request can arrive
// twice a few microseconds apart (and be taken one by one when the process runs on another core).
constexpr long long same_request_ns = 1'000'000'000;

long long monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe (POSIX)
  return static_cast<long long>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

extern "C" void on_stop_signal(int signal) {
  const long long now = monotonic_ns();
  long long unset = 0;
  first_ns.compare_exchange_strong(unset, now);  // the first signal's time, kept by later ones
  int none = 0;
  if (received.compare_exchange_strong(none, signal)) return;
  if (none == signal && now - first_ns.load() < same_request_ns) return;
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

void catch_stop_signals() {
  received = 0;
  first_ns = 0;
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

int stop_signal() { return received.load(); }

const char* stop_signal_name() { return received.load() == SIGTERM ? "SIGTERM" : "SIGINT"; }

}  // namespace tremor::cli
