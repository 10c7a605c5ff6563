#include "tremor/cli/commands.hpp"

#include <cstdio>

namespace tremor::cli {

std::filesystem::path output_path(const std::string& option, const std::string& model) {
  if (!option.empty()) return option;
  return std::filesystem::path(model).stem().string() + ".h5";
}

void keeping_earlier_result(const record::EarlierResult& earlier, const std::function<bool()>& said_otherwise,
                            const std::function<void()>& work) {
  try {
    work();
  } catch (const ExitStatus&) {
    throw;
  } catch (...) {
    const std::string kept = said_otherwise() ? std::string() : earlier.kept();
    if (!kept.empty()) std::fprintf(stderr, "%s\n", kept.c_str());
    throw;
  }
}

}  // namespace tremor::cli
