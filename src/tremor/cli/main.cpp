// The `tremor` command.
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <exception>

#include "tremor/cli/commands.hpp"
#include "tremor/cli/git_commit.hpp"
#include "tremor/core/error.hpp"

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) then fails the write with EFBIG, which the writers report and
  // survive, instead of killing the process with a core dump mid-write.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"tremor: elastodynamics on CPUs and GPUs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("tremor ") + TREMOR_VERSION + " (commit " + tremor::cli::git_commit + ")");
  tremor::cli::add_info_command(app);
  tremor::cli::add_run_command(app);
  tremor::cli::add_static_command(app);
  tremor::cli::add_bem_command(app);
  tremor::cli::add_export_command(app);
  tremor::cli::add_bench_command(app);
  tremor::cli::add_partition_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const tremor::cli::ExitStatus& e) {
    return e.code;
  } catch (const tremor::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
