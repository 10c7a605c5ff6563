// `tremor export RESULT -o DIR`: one CSV per history set of a result file (docs/output-format.md).
#include <cstdio>
#include <memory>
#include <string>

#include "tremor/cli/commands.hpp"
#include "tremor/io/export_csv.hpp"

namespace tremor::cli {

namespace {

void run_export(const std::string& result, const std::string& out_dir) {
  const io::ExportSummary summary = io::export_histories(result, out_dir);
  for (const auto& file : summary.files) std::printf("wrote %s\n", file.string().c_str());
  if (summary.files.empty()) std::printf("%s holds no histories; nothing written\n", result.c_str());
  if (summary.status != "complete")
    std::fprintf(stderr, "warning: %s: the run's status is '%s': its histories end where the run stopped\n",
                 result.c_str(), summary.status.c_str());
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("export", "Write the histories of a result file (.h5) as CSV files, one per set");
  auto result = std::make_shared<std::string>();
  auto out_dir = std::make_shared<std::string>();
  cmd->add_option("RESULT", *result, "result file written by tremor run")->required();
  cmd->add_option("-o,--output", *out_dir, "folder for the CSV files (created when missing)")->required();
  cmd->callback([result, out_dir] { run_export(*result, *out_dir); });
}

}  // namespace tremor::cli
