#include "tremor/cli/signals.hpp"

#include <csignal>

namespace tremor::cli {

namespace {

volatile std::sig_atomic_t received = 0;

extern "C" void on_stop_signal(int signal) {
  if (received != 0) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  received = signal;
}

}  // namespace

void catch_stop_signals() {
  received = 0;
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

int stop_signal() { return static_cast<int>(received); }

const char* stop_signal_name() { return received == SIGTERM ? "SIGTERM" : "SIGINT"; }

}  // namespace tremor::cli
