#include "tremor/core/error.hpp"

namespace tremor {

void throw_input_error(std::string_view file, long line, const std::string& message) {
  if (line > 0) throw Error(str(file, ":", line, ": ", message));
  throw Error(str(file, ": ", message));
}

void throw_binary_error(std::string_view file, long long offset, const std::string& message) {
  throw Error(str(file, ": byte ", offset, ": ", message));
}

}  // namespace tremor
