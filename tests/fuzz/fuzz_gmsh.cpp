// libFuzzer target: any bytes given to the Gmsh reader yield a mesh or a tremor::Error, nothing else.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/gmsh.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tremor::log::set_quiet(true);
  try {
    (void)tremor::io::read_gmsh_buffer(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.msh");
  } catch (const tremor::Error&) {
  }
  (void)tremor::log::take_warnings();
  return 0;
}
