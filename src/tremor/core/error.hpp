#pragma once
// tremor::Error is the one exception type users see. Messages are written for the user: they name
// the file, line (or byte offset) and item at fault, never a source location of tremor itself.
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tremor {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Concatenates anything streamable: str("element ", id, " is inverted").
template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream out;
  out.precision(10);
  (out << ... << args);
  return out.str();
}

// "FILE:LINE: message" for text inputs (line is 1-based; 0 omits it).
[[noreturn]] void throw_input_error(std::string_view file, long line, const std::string& message);
// "FILE: byte OFFSET: message" for binary inputs.
[[noreturn]] void throw_binary_error(std::string_view file, long long offset, const std::string& message);

}  // namespace tremor

// Always-on check for input, configuration and I/O: throws tremor::Error with the message.
#define TREMOR_CHECK(cond, ...)                                  \
  do {                                                           \
    if (!(cond)) throw ::tremor::Error(::tremor::str(__VA_ARGS__)); \
  } while (0)

// Internal invariant, checked in debug builds only.
#ifndef NDEBUG
#define TREMOR_ASSERT(cond)                                                                     \
  do {                                                                                          \
    if (!(cond))                                                                                \
      throw ::tremor::Error(::tremor::str("internal error: ", #cond, " failed at ", __FILE__, ":", \
                                          __LINE__));                                           \
  } while (0)
#else
#define TREMOR_ASSERT(cond) ((void)0)
#endif
