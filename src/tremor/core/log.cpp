#include "tremor/core/log.hpp"

#include <cstdio>
#include <mutex>

namespace tremor::log {
namespace {
std::mutex mutex;
bool quiet_mode = false;
thread_local bool thread_silent = false;
std::vector<std::string> recorded;
}  // namespace

void warn(const std::string& message) {
  if (thread_silent) return;
  std::lock_guard lock(mutex);
  recorded.push_back(message);
  if (!quiet_mode) std::fprintf(stderr, "warning: %s\n", message.c_str());
}

void info(const std::string& message) {
  if (thread_silent) return;
  std::lock_guard lock(mutex);
  if (!quiet_mode) std::fprintf(stderr, "%s\n", message.c_str());
}

void set_thread_silent(bool silent) { thread_silent = silent; }

void set_quiet(bool quiet) {
  std::lock_guard lock(mutex);
  quiet_mode = quiet;
}

std::vector<std::string> take_warnings() {
  std::lock_guard lock(mutex);
  std::vector<std::string> out;
  out.swap(recorded);
  return out;
}

}  // namespace tremor::log
