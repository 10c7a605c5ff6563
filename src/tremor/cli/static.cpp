// `tremor static MODEL [-o RESULT]`: the static solver from the command line (docs/static.md).
// Solves K u = f, prints what it solved and how, and writes the displacements, nodal stresses,
// von Mises stress and reactions into one result file (docs/output-format.md, /static) with its
// XDMF file. A solve that does not converge still writes its last iterate, with the status
// "failed: ..." and the solver's report, and exits 1. SIGINT or SIGTERM stops CG at its next
// iteration (set-up runs to its end first): the last iterate is written with the status
// "incomplete", and the exit status is 128 + the signal.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "tremor/cli/commands.hpp"
#include "tremor/cli/options.hpp"
#include "tremor/cli/signals.hpp"
#include "tremor/core/format.hpp"
#include "tremor/cli/git_commit.hpp"
#include "tremor/record/explicit_run.hpp"
#include "tremor/record/static_solution.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/load.hpp"
#include "tremor/io/result_file.hpp"
#include "tremor/static/solve.hpp"

namespace tremor::cli {

namespace {

namespace st = tremor::static_fe;

struct StaticArgs {
  std::optional<int> order;  // --order
  std::string model;
  std::string output;
  st::SolveOptions options;
  std::string backend, precision, preconditioner, format, assembly;  // names, parsed into options
  double tolerance = 0.0;
  int max_iterations = 0;
  CLI::Option* tolerance_option = nullptr;
  CLI::Option* iterations_option = nullptr;
};

// "(1500, -20, 0)" for a dim-vector.
std::string vector_text(const double* v, int dim) {
  std::string text = "(";
  char number[32];
  for (int c = 0; c < dim; ++c) {
    std::snprintf(number, sizeof number, "%.6g", v[c]);
    text += str(c > 0 ? ", " : "", number);
  }
  return text + ")";
}

// The largest of a per-node quantity (norm over `width` values) and the node holding it.
std::pair<double, Index> largest(const std::vector<double>& values, int width) {
  std::pair<double, Index> best{0.0, 0};
  const auto n = static_cast<Index>(values.size() / static_cast<std::size_t>(width));
  for (Index i = 0; i < n; ++i) {
    double sum = 0.0;
    for (int c = 0; c < width; ++c) sum += values[static_cast<std::size_t>(i * width + c)] * values[static_cast<std::size_t>(i * width + c)];
    if (std::sqrt(sum) > best.first) best = {std::sqrt(sum), i};
  }
  return best;
}

// Passes SIGINT and SIGTERM on to CG as a stop request before its next iteration.
class StopOnSignal final : public st::Observer {
 public:
  bool stop_requested() override { return stop_signal() != 0; }
};

// The solve and its result file, `output` claimed. `output_is_input`: set when the output is
// refused for naming one of the model's files.
void solve_and_write(StaticArgs& args, const std::filesystem::path& output, io::OutputClaim claim,
                     bool& output_is_input) {
  catch_stop_signals();
  const Model model = io::load_model(args.model, args.order);
  output_is_input = true;
  record::refuse_output_over_inputs(output, record::model_inputs(model));
  output_is_input = false;
  const StaticSettings settings = st::resolve_settings(model, args.options);
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  std::printf("static            %s: %dD, %s DOF, %s, %s (%s assembly), %s preconditioner, backend %s\n",
              args.model.c_str(), dim, group_digits(mesh.n_nodes() * dim).c_str(),
              std::string(to_string(settings.precision)).c_str(),
              std::string(name_of(settings.format, static_format_names)).c_str(),
              std::string(name_of(settings.assembly, static_assembly_names)).c_str(),
              std::string(name_of(settings.preconditioner, preconditioner_names)).c_str(),
              std::string(name_of(settings.backend, backend_names)).c_str());
  std::fflush(stdout);

  io::RunMetadata metadata;
  metadata.git_commit = git_commit;
  metadata.model_path = args.model;
  metadata.model_hash = record::model_file_hash(args.model, model);
  StopOnSignal stop_on_signal;
  const st::StaticResult result = st::solve_static(model, args.options, &stop_on_signal);
  const record::WrittenFile file = record::write_static_result(output, std::move(claim), model, metadata, result);
  const bool interrupted = result.cg.status == st::CgStatus::Interrupted;
  if (interrupted) {
    std::fprintf(stderr, "interrupted by %s: %s; %s holds the last iterate (status incomplete)\n", stop_signal_name(),
                 result.cg.report.c_str(), file.path.string().c_str());
    throw ExitStatus{128 + stop_signal()};
  }

  const auto& t = result.timings;
  double applied[3] = {0, 0, 0}, reaction[3] = {0, 0, 0};
  for (Index i = 0; i < mesh.n_nodes(); ++i)
    for (int c = 0; c < dim; ++c) {
      applied[c] += result.applied[static_cast<std::size_t>(i * dim + c)];
      reaction[c] += result.reaction[static_cast<std::size_t>(i * dim + c)];
    }
  const auto [u_max, u_node] = largest(result.displacement, dim);
  const auto [s_max, s_node] = largest(result.recovery.von_mises, 1);
  std::printf("  constrained     %s DOF\n", group_digits(result.n_constrained).c_str());
  std::printf("  stiffness       %s entries, %s B, pattern %.3g s, values %.3g s\n",
              group_digits(static_cast<long long>(result.nnz)).c_str(), si(static_cast<double>(result.matrix_bytes)).c_str(),
              t.pattern, t.values);
  std::printf("  CG              %d iterations, relative residual %.3g (tolerance %.3g), %.3g s: %s\n",
              result.cg.iterations, result.cg.relative_residual, result.settings.tolerance, t.solve,
              std::string(st::to_string(result.cg.status)).c_str());
  std::printf("  applied force   %s N\n", vector_text(applied, dim).c_str());
  std::printf("  reactions       %s N (their sum balances the applied force)\n", vector_text(reaction, dim).c_str());
  std::printf("  max |u|         %s m at node %lld\n", si(u_max).c_str(),
              static_cast<long long>(mesh.node_labels[static_cast<std::size_t>(u_node)]));
  std::printf("  max von Mises   %s Pa at node %lld\n", si(s_max).c_str(),
              static_cast<long long>(mesh.node_labels[static_cast<std::size_t>(s_node)]));
  std::printf("  times           setup %.3g s, preconditioner %.3g s, recovery %.3g s\n", t.setup, t.preconditioner,
              t.recovery);
  std::printf("  output          %s (%s)\n", file.path.string().c_str(),
              result.cg.converged() ? "complete" : "failed");
  std::fflush(stdout);
  if (!result.cg.converged()) {
    std::fprintf(stderr, "error: %s\n%s holds the last iterate (status failed)\n", result.cg.report.c_str(),
                 file.path.string().c_str());
    throw ExitStatus{1};
  }
}

void static_command(StaticArgs& args) {
  args.options.backend = given_backend(args.backend);
  args.options.precision = given_choice(args.precision, precision_names, "precision");
  args.options.preconditioner = given_choice(args.preconditioner, preconditioner_names, "preconditioner");
  args.options.format = given_choice(args.format, static_format_names, "format");
  args.options.assembly = given_choice(args.assembly, static_assembly_names, "assembly");
  if (args.tolerance_option->count() > 0) args.options.tolerance = args.tolerance;
  if (args.iterations_option->count() > 0) args.options.max_iterations = args.max_iterations;
  // Claimed before any work: an output that cannot be written (a missing folder, a device, a
  // second writer) is refused at once. The file is created after the solve: a model the solver
  // refuses leaves no file, as with tremor run, and an earlier result there stays as it was.
  const std::filesystem::path output = output_path(args.output, args.model);
  const record::EarlierResult earlier(output);
  io::OutputClaim claim = io::claim_result_file(output, false);
  bool output_is_input = false;
  keeping_earlier_result(earlier, [&] { return output_is_input; },
                         [&] { solve_and_write(args, output, std::move(claim), output_is_input); });
}

}  // namespace

void add_static_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("static", "Solve linear static elasticity K u = f on a model (.toml) or an Abaqus "
                                           "*STATIC input (.inp)");
  auto args = std::make_shared<StaticArgs>();
  cmd->add_option("MODEL", args->model, "model file (.toml) or Abaqus/CalculiX input (.inp)")->required();
  add_order_option(cmd, args->order);
  cmd->add_option("-o,--output", args->output, "result file (default: <model stem>.h5 in the current directory)");
  cmd->add_option("--backend", args->backend, "backend (overrides the model; auto: cuda when a GPU is usable)")
      ->check(CLI::IsMember(backend_choice_names()));
  cmd->add_option("--precision", args->precision, "matrix and vector precision (overrides the model)")
      ->check(CLI::IsMember(choice_names(precision_names)));
  cmd->add_option("--preconditioner", args->preconditioner, "CG preconditioner (overrides the model)")
      ->check(CLI::IsMember(choice_names(preconditioner_names)));
  cmd->add_option("--format", args->format, "the assembled matrix CG multiplies with (overrides the model)")
      ->check(CLI::IsMember(choice_names(static_format_names)));
  cmd->add_option("--assembly", args->assembly, "race strategy of the assembly (overrides the model; auto: colouring)")
      ->check(CLI::IsMember(choice_names(static_assembly_names)));
  args->tolerance_option =
      cmd->add_option("--tolerance", args->tolerance, "relative residual ||f - K u|| / ||f|| to reach (default 1e-8)")
          ->check(positive());  // resolve_settings checks it lies in (0, 1)
  args->iterations_option =
      cmd->add_option("--max-iterations", args->max_iterations, "CG iteration limit (default 10000)")
          ->check(whole(1, 1000000000));
  cmd->callback([args] { static_command(*args); });
}

}  // namespace tremor::cli
