#include "tremor/cli/commands.hpp"

namespace tremor::cli {

std::filesystem::path output_path(const std::string& option, const std::string& model) {
  if (!option.empty()) return option;
  return std::filesystem::path(model).stem().string() + ".h5";
}

}  // namespace tremor::cli
