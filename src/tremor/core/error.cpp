#include "tremor/core/error.hpp"

#include <cstdio>

namespace tremor {

namespace {

// Messages quote the input; its control bytes (a NUL would end the printed message there, an
// escape sequence would drive the terminal) are shown as \xNN.
std::string printable(const std::string& message) {
  std::string out;
  out.reserve(message.size());
  for (const char c : message) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      out += c;
    } else if (c == '\n' || c == '\t') {
      out += c;
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    }
  }
  return out;
}

}  // namespace

void throw_input_error(std::string_view file, long line, const std::string& message) {
  if (line > 0) throw Error(printable(str(file, ":", line, ": ", message)));
  throw Error(printable(str(file, ": ", message)));
}

void throw_binary_error(std::string_view file, long long offset, const std::string& message) {
  throw Error(printable(str(file, ": byte ", offset, ": ", message)));
}

}  // namespace tremor
