// libFuzzer target: any text given to the model-file reader yields a model or a tremor::Error,
// nothing else. Mesh files are resolved against an empty folder of its own, so a fuzzed model can
// only name files that do not exist (or absolute paths, which the reader must handle too).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/mesh/generate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string base = [] {
    const auto dir = std::filesystem::temp_directory_path() / "tremor-fuzz-empty";
    std::filesystem::create_directories(dir);
    return dir.string();
  }();
  tremor::log::set_quiet(true);
  // A legal model may ask the generator for billions of elements; below libFuzzer's memory limit
  // the generator must refuse, so the fuzzer explores parsing rather than allocation.
  constexpr tremor::Size generator_limit = tremor::Size(1) << 20;
  try {
    (void)tremor::io::read_model_buffer(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.toml",
                                        base, std::nullopt, nullptr, generator_limit);
  } catch (const tremor::Error&) {
  }
  (void)tremor::log::take_warnings();
  return 0;
}
