// libFuzzer target: any bytes given to the CMTSOLUTION, FORCESOLUTION or STATIONS parser yield its
// sources or stations or a tremor::Error, nothing else. The first byte picks the parser (modulo 3);
// the rest is the file's text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tremor/core/error.hpp"
#include "tremor/io/seismic_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (data[0] % 3) {
      case 0: (void)tremor::io::parse_cmtsolution(text, "CMTSOLUTION"); break;
      case 1: (void)tremor::io::parse_forcesolution(text, "FORCESOLUTION"); break;
      default: (void)tremor::io::parse_stations(text, "STATIONS"); break;
    }
  } catch (const tremor::Error&) {
  }
  return 0;
}
