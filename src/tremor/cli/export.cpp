// `tremor export RESULT -o DIR [--format csv|sac|su|asdf]`: a result file's histories as CSV files, one
// per history set, or as seismic traces (docs/output-format.md).
#include <cstdio>
#include <memory>
#include <string>

#include "tremor/cli/commands.hpp"
#include "tremor/io/export_csv.hpp"
#include "tremor/io/export_traces.hpp"

namespace tremor::cli {

namespace {

void run_export(const std::string& result, const std::string& out_dir, const std::string& format) {
  const io::ExportSummary summary =
      format == "csv" ? io::export_histories(result, out_dir)
                      : io::export_traces(result, out_dir,
                                          format == "sac"  ? io::TraceFormat::Sac
                                          : format == "su" ? io::TraceFormat::Su
                                                           : io::TraceFormat::Asdf);
  for (const auto& file : summary.files) std::printf("wrote %s\n", file.string().c_str());
  if (summary.files.empty()) std::printf("%s holds no histories; nothing written\n", result.c_str());
  for (const std::string& warning : summary.warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
  if (summary.status != "complete")
    std::fprintf(stderr, "warning: %s: the run's status is '%s': its histories end where the run stopped\n",
                 result.c_str(), summary.status.c_str());
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("export", "Write the histories of a result file (.h5) as CSV files, one per set, or "
                                           "as SAC, SU or ASDF traces");
  auto result = std::make_shared<std::string>();
  auto out_dir = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("csv");
  cmd->add_option("RESULT", *result, "result file written by tremor run")->required();
  cmd->add_option("-o,--output", *out_dir, "folder for the files (created when missing)")->required();
  cmd->add_option("--format", *format,
                  "csv (a file per history set, and per full-matrix capture), sac (a file per trace: a point's "
                  "component of a quantity), su (a file per quantity and component of a set, a trace per point) or "
                  "asdf (one HDF5 file of every trace); default csv")
      ->check(CLI::IsMember({"csv", "sac", "su", "asdf"}));
  cmd->callback([result, out_dir, format] { run_export(*result, *out_dir, *format); });
}

}  // namespace tremor::cli
