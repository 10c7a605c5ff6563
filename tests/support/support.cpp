#include "support/support.hpp"

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tremor/backend/exec.hpp"
#include "tremor/core/error.hpp"

namespace tremor::test {

std::string data_path(const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path configured = fs::path(TREMOR_SOURCE_DIR) / "tests" / "data";
  if (fs::exists(configured)) return (configured / name).string();
  return (fs::path("tests") / "data" / name).string();
}

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
