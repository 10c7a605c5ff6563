// libFuzzer target: any text given to the Abaqus reader yields a model or a tremor::Error, nothing
// else. *INCLUDE is disabled (no base folder), so the reader never touches the file system.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/abaqus.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tremor::log::set_quiet(true);
  try {
    (void)tremor::io::read_abaqus_buffer(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.inp");
  } catch (const tremor::Error&) {
  }
  (void)tremor::log::take_warnings();
  return 0;
}
