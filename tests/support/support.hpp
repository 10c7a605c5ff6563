#pragma once
// Shared test helpers: data paths that work from any checkout location, GPU skips.
#include <functional>
#include <string>
#include <vector>

namespace tremor::test {

// Path of `relative` (e.g. "examples/bem-cavity/model.toml") in the repository: under
// $TREMOR_SOURCE_DIR when set (.gpu/run sets it: binaries carried to a GPU host run against a
// checkout at another path), else under the configured source tree when it exists (ctest), else
// relative to the working directory (the repository root).
std::string source_path(const std::string& relative);
// source_path("tests/data/<name>").
std::string data_path(const std::string& name);
// The fenced code blocks of one language (```toml ... ```) in a document of the repository
// (path relative to its root), in order: documentation examples are tested as written.
std::vector<std::string> fenced_blocks(const std::string& document, const std::string& language);
// A fresh, empty directory under the system temporary directory.
std::string temporary_directory(const std::string& tag);
// True when a CUDA device is usable from this binary.
bool gpu_present();
// Euclidean norm of a, and of a - b (the same size): relative L2 errors in the parity tests.
double l2_norm(const std::vector<double>& a);
double l2_distance(const std::vector<double>& a, const std::vector<double>& b);
// The message of the tremor::Error `action` throws, or "no error".
std::string error_of(const std::function<void()>& action);
// Fails the test, naming the piece, for each piece `message` lacks.
void expect_contains(const std::string& message, const std::vector<std::string>& pieces);
}  // namespace tremor::test
namespace tremor { using test::gpu_present; }
namespace tremor::test {

}  // namespace tremor::test

// Skips the current test where no GPU is usable (CI), so ctest reports it as skipped.
#define TREMOR_REQUIRE_GPU()                                                   \
  do {                                                                         \
    if (!::tremor::test::gpu_present()) GTEST_SKIP() << "no usable CUDA GPU"; \
  } while (0)
