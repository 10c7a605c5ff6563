#pragma once
// Each subcommand registers itself on the CLI11 app; its callback runs the command and throws
// tremor::Error on failure (main prints it and exits 1).
#include <CLI/CLI.hpp>

#include <filesystem>
#include <functional>
#include <string>

#include "tremor/record/explicit_run.hpp"

namespace tremor::cli {

// Thrown by a command that has already said what happened, to exit with `code` (main prints
// nothing more): 1 for a run that failed, 128 + signal for an interrupted one.
struct ExitStatus {
  int code = 1;
};

// The result file a command writes: `-o` when given, else `<model stem>.h5` in the current folder.
std::filesystem::path output_path(const std::string& option, const std::string& model);

// Runs a command's `work` after its output was claimed. When it fails (anything but an
// ExitStatus), `earlier`'s line ("OUT is kept as it was", taken before the claim) is said before
// the error goes on, unless `said_otherwise()` (the output refused as one of the inputs, not
// claimed yet, or finished by a Recording that says what became of it).
void keeping_earlier_result(const record::EarlierResult& earlier, const std::function<bool()>& said_otherwise,
                            const std::function<void()>& work);

void add_info_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_export_command(CLI::App& app);
// `tremor image`: maps of receiver grids (docs/imaging.md).
void add_image_command(CLI::App& app);
// `tremor bench`, with its subcommands `assembly` and `bem`.
void add_bench_command(CLI::App& app);
void add_partition_command(CLI::App& app);
void add_static_command(CLI::App& app);
void add_bem_command(CLI::App& app);

}  // namespace tremor::cli
