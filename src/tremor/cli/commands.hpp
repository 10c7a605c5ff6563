#pragma once
// Each subcommand registers itself on the CLI11 app; its callback runs the command and throws
// tremor::Error on failure (main prints it and exits 1).
#include <CLI/CLI.hpp>

namespace tremor::cli {

void add_info_command(CLI::App& app);

}  // namespace tremor::cli
