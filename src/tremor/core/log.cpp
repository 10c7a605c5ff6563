#include "tremor/core/log.hpp"

#include <cstdio>
#include <mutex>

namespace tremor::log {
namespace {

// The one sink of the process: stderr, whether it is silenced, and the warnings kept for
// take_warnings(). Its mutex orders every call of every thread.
struct Sink {
  std::mutex mutex;
  bool quiet = false;
  std::vector<std::string> recorded;

  void write(const std::string& message, bool warning) {
    std::lock_guard lock(mutex);
    if (warning) recorded.push_back(message);
    if (!quiet) std::fprintf(stderr, warning ? "warning: %s\n" : "%s\n", message.c_str());
  }
};

Sink& sink() {
  static Sink the_sink;
  return the_sink;
}

// A property of the calling thread, not of the sink: which threads speak, not where they speak to.
thread_local bool thread_silent = false;

}  // namespace

void warn(const std::string& message) {
  if (!thread_silent) sink().write(message, true);
}

void info(const std::string& message) {
  if (!thread_silent) sink().write(message, false);
}

void set_thread_silent(bool silent) { thread_silent = silent; }

bool set_quiet(bool quiet) {
  Sink& s = sink();
  std::lock_guard lock(s.mutex);
  const bool before = s.quiet;
  s.quiet = quiet;
  return before;
}

std::vector<std::string> take_warnings() {
  Sink& s = sink();
  std::lock_guard lock(s.mutex);
  std::vector<std::string> out;
  out.swap(s.recorded);
  return out;
}

}  // namespace tremor::log
