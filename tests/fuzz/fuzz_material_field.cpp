// libFuzzer target: any bytes given to the material-field reader as a CSV grid yield a field or a
// tremor::Error, nothing else. The first byte picks the mesh's dimension (2 or 3); the rest is the
// file, written to a scratch file of its own (the reader reads files, not buffers).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "tremor/core/error.hpp"
#include "tremor/io/material_field_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("tremor-fuzz-field-" + std::to_string(getpid()) + ".csv")).string();
  const int dim = data[0] % 2 == 0 ? 2 : 3;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data + 1),
                                                                 static_cast<std::streamsize>(size - 1));
  try {
    (void)tremor::io::read_material_field(path, dim);
  } catch (const tremor::Error&) {
  }
  return 0;
}
