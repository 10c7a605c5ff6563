// Inputs that once crashed, hung or misbehaved in a reader under libFuzzer (scripts/fuzz), kept so
// they never do again. Each must end in a model or a tremor::Error — no other exception, no crash.
// tests/data/fuzz/README.md says where each came from.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/abaqus.hpp"
#include "tremor/io/gmsh.hpp"
#include "tremor/io/model_file.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

template <class Read>
int replay(const std::string& folder, Read read) {
  namespace fs = std::filesystem;
  const fs::path dir = test::data_path("fuzz/" + folder);
  int count = 0;
  if (!fs::exists(dir)) return count;
  const log::Quiet quiet;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    try {
      read(bytes.str());
    } catch (const Error&) {
      // The expected outcome for a broken input: a message, not a crash.
    } catch (const std::exception& e) {
      ADD_FAILURE() << entry.path() << " escaped with a non-tremor exception: " << e.what();
    }
    ++count;
  }
  (void)log::take_warnings();
  return count;
}

// Each folder holds inputs (tests/data/fuzz/README.md); an empty one would make its test vacuous.
TEST(FuzzRegression, GmshInputs) {
  EXPECT_GT(replay("gmsh", [](const std::string& bytes) { (void)io::read_gmsh_buffer(bytes, "fuzz.msh"); }), 0);
}

TEST(FuzzRegression, AbaqusInputs) {
  EXPECT_GT(replay("abaqus", [](const std::string& bytes) { (void)io::read_abaqus_buffer(bytes, "fuzz.inp"); }), 0);
}

TEST(FuzzRegression, ModelFileInputs) {
  const std::string base = test::temporary_directory("fuzz-model");
  EXPECT_GT(replay("model_file",
                   [&](const std::string& bytes) { (void)io::read_model_buffer(bytes, "fuzz.toml", base); }),
            0);
}

}  // namespace
}  // namespace tremor
