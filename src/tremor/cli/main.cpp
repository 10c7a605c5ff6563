// The `tremor` command.
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <exception>

#include "tremor/cli/commands.hpp"
#include "tremor/cli/git_commit.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/processes.hpp"
#include "tremor/parallel/communicator.hpp"

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
  tremor::cli::add_image_command(app);
  tremor::cli::add_bench_command(app);
  tremor::cli::add_partition_command(app);
  // Under mpirun a failure every process agreed on (AgreedFailure) is reported by the first
  // process and ends each normally; any other failure of one process ends them all (abort), since
  // the others may be waiting for it.
  const tremor::parallel::Communicator& world = tremor::parallel::Communicator::world();
  const auto fail = [&](const char* what, bool agreed) {
    if (world.size() == 1 || world.root())
      std::fprintf(stderr, "error: %s\n", what);
    else if (!agreed)
      std::fprintf(stderr, "error: process %d of %d: %s\n", world.rank(), world.size(), what);
    std::fflush(stderr);
    if (!agreed) world.abort(1);
    return 1;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const tremor::cli::ExitStatus& e) {
    return e.code;
  } catch (const tremor::explicit_fe::AgreedFailure& e) {
    return fail(e.what(), true);
  } catch (const tremor::Error& e) {
    return fail(e.what(), false);
  } catch (const std::exception& e) {
    return fail(e.what(), false);
  }
  return 0;
}
