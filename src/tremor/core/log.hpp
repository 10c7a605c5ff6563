#pragma once
// Minimal diagnostics to stderr. Warnings are collected so a caller (tests, `tremor info`) can
// also inspect what was reported.
#include <string>
#include <vector>

namespace tremor::log {

void warn(const std::string& message);
void info(const std::string& message);
// Silences stderr output (tests); warnings are still recorded.
void set_quiet(bool quiet);
// Warnings issued since the last call, then cleared.
std::vector<std::string> take_warnings();

}  // namespace tremor::log
