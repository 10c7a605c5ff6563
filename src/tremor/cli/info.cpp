// `tremor info FILE`: a summary of a model, an Abaqus .inp or a Gmsh .msh.
#include <cstdio>
#include <string>

#include "tremor/cli/commands.hpp"

namespace tremor::cli {

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Summarise a model (.toml), an Abaqus input (.inp) or a Gmsh mesh (.msh)");
  auto file = std::make_shared<std::string>();
  cmd->add_option("FILE", *file, "model, .inp or .msh file")->required();
  cmd->callback([file] { std::printf("%s\n", file->c_str()); });
}

}  // namespace tremor::cli
