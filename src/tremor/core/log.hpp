#pragma once
// Minimal diagnostics to stderr. Warnings are collected so a caller (tests, `tremor info`) can
// also inspect what was reported. The one sink of the process holds them with whether stderr is
// silenced (set_quiet). Any thread may call.
#include <string>
#include <vector>

namespace tremor::log {

void warn(const std::string& message);
void info(const std::string& message);
// Silences stderr output (tests); warnings are still recorded. Returns the setting before.
bool set_quiet(bool quiet);
// Silences the calling thread altogether (not recorded either): the threads of a run over several
// GPUs but the first, whose warnings would repeat its own.
void set_thread_silent(bool silent);
// Warnings issued since the last call, then cleared.
std::vector<std::string> take_warnings();

// Quiet while it lives (a test, a reader whose warnings the caller reports itself): stderr
// silenced and the warnings recorded before it set aside, so that take_warnings() returns those
// issued since; the setting before it is restored at its end, on an exception too.
class Quiet {
 public:
  Quiet() : previous_(set_quiet(true)) { (void)take_warnings(); }
  ~Quiet() { set_quiet(previous_); }
  Quiet(const Quiet&) = delete;
  Quiet& operator=(const Quiet&) = delete;

 private:
  bool previous_;
};

}  // namespace tremor::log
