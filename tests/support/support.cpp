#include "support/support.hpp"

#include <atomic>
#include <filesystem>
#include <unistd.h>

#include "tremor/backend/exec.hpp"

namespace tremor::test {

std::string data_path(const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path configured = fs::path(TREMOR_SOURCE_DIR) / "tests" / "data";
  if (fs::exists(configured)) return (configured / name).string();
  return (fs::path("tests") / "data" / name).string();
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

}  // namespace tremor::test
