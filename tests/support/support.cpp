#include "support/support.hpp"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tremor/backend/exec.hpp"
#include "tremor/core/error.hpp"

namespace tremor::test {

std::string source_path(const std::string& relative) {
  namespace fs = std::filesystem;
  // The repository root: where the suite says it is (the GPU suite runs a build made elsewhere,
  // from a checkout at another path), else where the build was configured, else the working
  // directory (ctest and .gpu/run run the tests from the root).
  if (const char* root = std::getenv("TREMOR_SOURCE_DIR"); root != nullptr && *root != '\0')
    return (fs::path(root) / relative).string();
  if (fs::exists(fs::path(TREMOR_SOURCE_DIR) / "tests" / "data")) return (fs::path(TREMOR_SOURCE_DIR) / relative).string();
  return relative;
}

std::string data_path(const std::string& name) { return source_path("tests/data/" + name); }

std::vector<std::string> fenced_blocks(const std::string& document, const std::string& language) {
  std::ifstream in(data_path("../../" + document));
  std::vector<std::string> blocks;
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line == "```" + language) {
      inside = true;
      block.clear();
    } else if (inside && line == "```") {
      inside = false;
      blocks.push_back(block);
    } else if (inside) {
      block += line + "\n";
    }
  }
  return blocks;
}

std::string temporary_directory(const std::string& tag) {
  namespace fs = std::filesystem;
  static std::atomic<int> counter{0};
  const fs::path dir = fs::temp_directory_path() /
                       ("tremor-test-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

bool gpu_present() { return cuda_device_count() > 0; }

double l2_norm(const std::vector<double>& a) {
  double sum = 0.0;
  for (double v : a) sum += v * v;
  return std::sqrt(sum);
}

double l2_distance(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum);
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

void expect_contains(const std::string& message, const std::vector<std::string>& pieces) {
  for (const auto& piece : pieces)
    EXPECT_NE(message.find(piece), std::string::npos) << "'" << piece << "' not in: " << message;
}

}  // namespace tremor::test
