// `tremor run MODEL [-o RESULT]`: the explicit solver from the command line (docs/running.md).
// Prints the pre-flight check, runs with a progress display on stderr, writes the histories and
// snapshots into one result file (docs/output-format.md) as the run goes, and closes with a
// summary. SIGINT and SIGTERM stop the run at its next check; the file is then finished as
// "incomplete". With --checkpoint-every N it writes `RESULT.checkpoint` every N steps, which
// --resume continues from.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "tremor/cli/commands.hpp"
#include "tremor/cli/options.hpp"
#include "tremor/cli/signals.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/format.hpp"
#include "tremor/fem/coupling.hpp"
#include "tremor/cli/git_commit.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/processes.hpp"
#include "tremor/explicit/receivers.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/checkpoint_file.hpp"
#include "tremor/parallel/communicator.hpp"
#include "tremor/record/explicit_run.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/load.hpp"
#include "tremor/io/result_file.hpp"

namespace tremor::cli {

namespace {

namespace ex = tremor::explicit_fe;
// "1:05:03", "4:07", "12 s".
std::string duration_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto total = static_cast<long long>(std::llround(seconds));
  char text[48];
  if (total < 60)
    std::snprintf(text, sizeof text, "%lld s", total);
  else if (total < 3600)
    std::snprintf(text, sizeof text, "%lld:%02lld", total / 60, total % 60);
  else
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", total / 3600, total / 60 % 60, total % 60);
  return text;
}

// "hex8 and quad4": the element types of a set, for the help.
std::string type_names(op::ElementTypes types) {
  std::vector<std::string> names;
  for (unsigned t = 0; t <= static_cast<unsigned>(ElementType::HexGLL); ++t)
    if (types & op::type_bit(static_cast<ElementType>(t))) names.push_back(element_name(static_cast<ElementType>(t)));
  return listed_and(names);
}

// --operator's help: what "auto" takes, from the registry's rules (op::Registry::choose_auto).
std::string operator_help() {
  const op::Registry& registry = explicit_fe::operators();
  const op::Backends gpu = op::backend_bit(Backend::Cuda), host = op::backend_bit(Backend::OpenMP);
  const std::string_view gpu_default = registry.default_for(Backend::Cuda).name;
  std::string on_gpu, on_host;
  for (const op::OperatorEntry& entry : registry.entries())
    for (const op::AutoPreference& rule : entry.auto_prefers) {
      const std::string taken = str(entry.name, " on meshes of ", type_names(rule.types),
                                    rule.atomics_only ? " (not with --deterministic)" : "", ", ");
      if (rule.backends & gpu) on_gpu += taken;
      if (rule.backends & host) on_host += taken;
    }
  on_gpu += str(gpu_default, " elsewhere");
  for (const op::OperatorEntry& entry : registry.entries())
    if (entry.auto_fits.backends & gpu)
      on_gpu += str(" or ", entry.name, " where ", gpu_default, " does not fit the GPU");
  return str("stiffness operator (overrides the model; auto: sem on meshes of GLL hexahedra; else on CUDA ", on_gpu,
             "; on the host ", on_host, registry.default_for(Backend::OpenMP).name, " elsewhere)");
}

// The backend a run actually uses ("auto" resolved: CUDA when a GPU is usable, else OpenMP).
void print_preflight(const std::string& model_path, const Model& model, const ex::Preflight& p) {
  const fem::Unknowns unknowns = fem::count_unknowns(model);
  const std::string dof = str(group_digits(unknowns.displacements), " DOF",
                              unknowns.potentials ? str(" and ", group_digits(unknowns.potentials), " fluid potentials")
                                                  : std::string());
  std::printf("pre-flight        %s: %dD, %s, %s, %s operator, backend %s%s\n", model_path.c_str(),
              model.mesh.dim(), dof.c_str(), std::string(to_string(p.precision)).c_str(),
              std::string(p.operator_kind()).c_str(), std::string(to_string(p.backend)).c_str(),
              p.ordering == NodeOrdering::Rcm ? ", RCM node ordering" : "");
  if (!p.operator_why.empty())
    std::printf("  operator        %s (auto: %s)\n", std::string(p.operator_kind()).c_str(), p.operator_why.c_str());
  if (!p.blocks.empty()) std::printf("  blocks          %s\n", p.blocks.c_str());
  const char* overlap = p.overlap ? ", overlapping the interior's forces" : "";
  if (p.shots_parallel)
    std::printf("  shots side by side over %d %s, the whole model on each (%s)\n", p.processes,
                p.threaded ? "GPUs (a thread each)" : "processes", p.shots_parallel_why.c_str());
  else if (p.processes > 1)
    std::printf("  subdomains      %d (METIS), one per %s, shared nodes' forces exchanged every step (%s%s)%s\n",
                p.processes, p.threaded ? "GPU (a thread each)" : "process",
                std::string(parallel::to_string(p.exchange)).c_str(), overlap,
                model.shots.size() > 1 ? str("; not shots side by side: ", p.shots_parallel_why).c_str() : "");
  else if (p.domains > 1)
    std::printf("  subdomains      %d (METIS), stepped together, shared nodes' forces summed every step%s\n", p.domains,
                overlap);
  if (p.shots_together > 1)
    std::printf("  shots           %d stepped together (%s)\n", p.shots_together, p.shots_why.c_str());
  else if (model.shots.size() > 1)
    std::printf("  shots           one after another (%s)\n", p.shots_why.c_str());
  for (const std::string& line : p.attenuation) std::printf("  attenuation     %s\n", line.c_str());
  for (const std::string& line : p.pml_layers) std::printf("  pml             %s\n", line.c_str());
  std::printf("  stable step     %ss (%s)\n", si(p.stable_dt).c_str(), p.stable_by.c_str());
  std::string why;
  if (p.dt_source == "automatic") {
    char factor[32];
    std::snprintf(factor, sizeof factor, "%g", p.safety_factor);
    why = std::string("automatic: ") + factor + " x the stable step";
  }
  else if (p.dt_source == "user")
    why = p.dt > p.stable_dt ? "as given, above the stable step: allow_unstable" : "as given";
  else if (p.dt_source == "abaqus")
    why = "the Abaqus step's fixed increment";
  else
    why = p.dt_source;
  std::printf("  time step       %ss (%s)\n", si(p.dt).c_str(), why.c_str());
  std::printf("  steps           %s for %ss\n", group_digits(p.steps).c_str(), si(p.duration).c_str());
  if (p.highest_frequency > 0.0) {
    std::printf("  wavelength      %.3g %s per shortest wavelength (%.0f m/s at %sHz in an element of %sm%s)%s\n",
                p.points_per_wavelength, p.wavelength_unit(), p.min_wave_speed, si(p.highest_frequency).c_str(),
                si(p.largest_element).c_str(), p.gll_order > 1 ? str(", GLL order ", p.gll_order).c_str() : "",
                p.points_per_wavelength < p.wanted_per_wavelength()
                    ? str("  < ", p.wanted_per_wavelength(), ": dispersed").c_str()
                    : "");
  } else {
    std::printf("  wavelength      no source frequency to check against\n");
  }
  if (p.processes > 1)
    std::printf("  memory          %sB (estimate), about %sB on each of the %d %s\n",
                si(static_cast<double>(p.memory_bytes)).c_str(),
                si(static_cast<double>(p.process_memory_bytes)).c_str(), p.processes,
                p.threaded                     ? "GPUs"
                : p.backend == Backend::Cuda ? "processes' GPUs"
                                             : "processes' backends");
  else
    std::printf("  memory          %sB (estimate)\n", si(static_cast<double>(p.memory_bytes)).c_str());
  std::fflush(stdout);
  for (const std::string& warning : p.warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
}

// The progress display on stderr: one line redrawn in place on a terminal, otherwise a plain line
// every 10% of the steps or every 10 s, whichever comes first.
class Progress {
 public:
  Progress() : tty_(isatty(fileno(stderr)) != 0) {}

  // `first_step`: where this session starts (a resumed run's checkpoint), for the rate; `label`
  // goes before each line (a shot's name).
  void start(double duration, long long first_step, std::string label = {}) {
    duration_ = duration;
    first_step_ = first_step;
    label_ = std::move(label);
    next_fraction_ = 0.1;
    started_ = last_shown_ = Clock::now();
  }

  void update(long long step, long long steps, double time) {
    const auto now = Clock::now();
    const double elapsed = seconds_since(started_);
    const double since_shown = seconds_between(last_shown_, now);
    const double fraction = steps > 0 ? static_cast<double>(step) / static_cast<double>(steps) : 1.0;
    if (tty_) {
      if (since_shown < 0.1 && step < steps) return;
    } else {
      if (fraction < next_fraction_ && since_shown < 10.0) return;
      while (next_fraction_ <= fraction) next_fraction_ += 0.1;
    }
    last_shown_ = now;
    const double rate = elapsed > 0.0 ? static_cast<double>(step - first_step_) / elapsed : 0.0;
    const double eta = rate > 0.0 ? static_cast<double>(steps - step) / rate : -1.0;
    char text[256];
    std::snprintf(text, sizeof text, "%s%5.1f%%  %s steps/s  t = %ss of %ss  ETA %s", label_.c_str(), 100.0 * fraction,
                  group_digits(std::llround(rate)).c_str(), si(time).c_str(), si(duration_).c_str(),
                  duration_text(eta).c_str());
    if (tty_) {
      constexpr int width = 24;
      const int filled = std::clamp(static_cast<int>(fraction * width), 0, width);
      std::fprintf(stderr, "\r[%s%s] %s\033[K", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                   std::string(static_cast<std::size_t>(width - filled), '.').c_str(), text);
      drawn_ = true;
    } else {
      std::fprintf(stderr, "progress %s\n", text);
    }
    std::fflush(stderr);
  }

  // Ends the redrawn line so what follows starts on its own.
  void end() {
    if (drawn_) std::fprintf(stderr, "\n");
    drawn_ = false;
  }

 private:
  bool tty_;
  bool drawn_ = false;
  std::string label_;
  double duration_ = 0.0;
  double next_fraction_ = 0.1;
  long long first_step_ = 0;
  Clock::time_point started_, last_shown_;
};

// What the command shows while a run is recorded (record::Recording passes it every event after
// the file has taken it): the settings warnings not shown by the pre-flight, the progress display,
// a line as each shot begins; and what stops the run: a signal, or --stop-at-step, which tests
// use to interrupt a run at a known step.
class Console final : public ex::Observer {
 public:
  Console(const Model& model, Progress& progress, long long first_step, long long stop_at_step, int stop_in_shot)
      : model_(model),
        progress_(progress),
        first_step_(first_step),
        stop_at_step_(stop_at_step),
        stop_in_shot_(stop_in_shot) {}

  void on_start(const ex::Preflight& preflight) override {
    // The solver resolves its settings again before this call; their warnings were shown already.
    log::set_quiet(false);
    const std::set<std::string> shown(preflight.warnings.begin(), preflight.warnings.end());
    for (const std::string& warning : log::take_warnings())
      if (!shown.count(warning)) std::fprintf(stderr, "warning: %s\n", warning.c_str());
    duration_ = preflight.duration;
    side_by_side_ = preflight.shots_parallel;
    progress_.start(preflight.duration, first_step_, side_by_side_ ? "first batch  " : "");
  }

  void on_shot(std::size_t index, bool resumed) override {
    shot_ = static_cast<int>(index) + 1;
    last_step_ = resumed ? first_step_ : 0;
    const Shot& shot = model_.shots[index];
    progress_.end();
    std::printf("shot %zu of %zu      %s (%s)%s\n", index + 1, model_.shots.size(), shot.name.c_str(),
                listed(shot.transducers).c_str(),
                resumed ? str(", from step ", group_digits(first_step_)).c_str() : "");
    std::fflush(stdout);
    // Side by side, the shots arrive as each round ends; the line that follows is the next round's
    // (the first process's batch).
    progress_.start(duration_, resumed ? first_step_ : 0, side_by_side_ ? "next round  " : shot.name + "  ");
  }

  void on_progress(long long step, long long steps, double time) override {
    progress_.update(step, steps, time);
    last_step_ = step;
  }

  bool stop_requested() override {
    return stop_signal() != 0 || (stop_at_step_ > 0 && (stop_in_shot_ == 0 || shot_ == stop_in_shot_) &&
                                  last_step_ >= stop_at_step_);
  }

 private:
  const Model& model_;
  Progress& progress_;
  long long first_step_ = 0;
  long long stop_at_step_ = 0;
  int stop_in_shot_ = 0;  // 1-based; 0: the first shot to reach stop_at_step_
  long long last_step_ = 0;
  int shot_ = 0;
  double duration_ = 0.0;
  bool side_by_side_ = false;  // Preflight::shots_parallel
};

struct RunArgs {
  std::optional<int> order;  // --order
  std::string model, output, precision, operator_kind, backend, ordering, blocks;
  double dt = 0.0, duration = 0.0, safety = 0.0;
  bool allow_unstable = false;
  bool deterministic = false;
  int check_every = 100;
  int domains = 1;
  int shots_together = 0;  // 0: the pre-flight chooses
  int gpus = 1;  // --gpus: a thread per GPU of this host
  bool shots_parallel = false, no_shots_parallel = false;  // neither: the pre-flight chooses
  std::string exchange = "p2p";
  std::string decomposition;
  bool no_overlap = false;
  long long checkpoint_every = 0;
  bool resume = false;
  long long stop_at_step = 0;
  int stop_in_shot = 0;  // with stop_at_step: in this shot (1-based) only; 0: the first to reach it
  CLI::Option *dt_option = nullptr, *duration_option = nullptr, *safety_option = nullptr;
  CLI::Option* checkpoint_option = nullptr;
};

// The solver's state from a checkpoint read back (taken over).
ex::SolverState solver_state(io::Checkpoint checkpoint) {
  ex::SolverState state;
  state.shot = static_cast<int>(checkpoint.shot);
  state.step = checkpoint.step;
  state.at_rest = checkpoint.at_rest;
  state.previous = std::move(checkpoint.previous);
  state.current = std::move(checkpoint.current);
  for (io::CheckpointPending& pending : checkpoint.receivers)
    state.receivers.push_back(
        ex::PendingSample{pending.active, pending.step, std::move(pending.before), std::move(pending.at)});
  state.snapshot = ex::PendingSample{checkpoint.snapshot.active, checkpoint.snapshot.step,
                                     std::move(checkpoint.snapshot.before), std::move(checkpoint.snapshot.at)};
  state.memory_offsets = std::move(checkpoint.memory_offsets);
  state.memory = std::move(checkpoint.memory);
  state.pml_nodes.assign(checkpoint.pml_nodes.begin(), checkpoint.pml_nodes.end());
  state.pml_node_values = std::move(checkpoint.pml_node_values);
  state.fluid_previous = std::move(checkpoint.fluid_previous);
  state.fluid_current = std::move(checkpoint.fluid_current);
  state.fluid_pml_offsets.assign(checkpoint.fluid_pml_offsets.begin(), checkpoint.fluid_pml_offsets.end());
  state.fluid_pml = std::move(checkpoint.fluid_pml);
  state.fluid_pml_nodes.assign(checkpoint.fluid_pml_nodes.begin(), checkpoint.fluid_pml_nodes.end());
  state.fluid_pml_node_values = std::move(checkpoint.fluid_pml_node_values);
  return state;
}

// The run's options from the command line (the model file's settings apply where it says nothing).
// `world`: the processes (mpirun), or the first of the threads of --gpus.
ex::RunOptions run_options(const RunArgs& args, const parallel::Communicator& world) {
  ex::RunOptions options;
  options.precision = args.precision;
  options.operator_kind = args.operator_kind;
  options.ordering = args.ordering;
  options.blocks = args.blocks;
  options.backend = args.backend;
  if (args.dt_option->count()) options.time_step = args.dt;
  if (args.duration_option->count()) options.duration = args.duration;
  if (args.safety_option->count()) options.safety_factor = args.safety;
  options.allow_unstable = args.allow_unstable;
  options.deterministic = args.deterministic;
  options.check_every = args.check_every;
  options.domains = args.domains;
  options.shots_together = args.shots_together;
  // Shots stepped together checkpoint between batches only: the pre-flight steps them one after
  // another where the run writes checkpoints, unless asked (the interval of a resumed run's comes
  // from its checkpoint).
  if (args.checkpoint_option->count()) options.checkpoint_every = args.checkpoint_every;
  // Resumed, shots go one after another on the whole model unless --shots-together or
  // --shots-parallel asks (a checkpoint within a shot, which holds that shot alone, refuses them
  // once read, and a checkpoint of a run that stepped them so, their absence: plan_checkpoints).
  options.resuming = args.resume;
  if (args.shots_parallel || args.no_shots_parallel) options.shots_parallel = args.shots_parallel;
  options.exchange = args.exchange;
  options.decomposition = args.decomposition;
  options.overlap = !args.no_overlap;
  if (world.size() > 1) {  // mpirun, or --gpus: a subdomain per process or GPU
    if (args.domains != 1 && args.domains != world.size())
      throw Error(world.threaded()
                      ? str("--domains ", args.domains, " with --gpus ", world.size(), ": a run over several GPUs has one "
                            "subdomain per GPU")
                      : str("--domains ", args.domains, " under mpirun with ", world.size(),
                            " processes: a run over processes has one subdomain per process"));
    if (world.threaded()) {
      const std::optional<Backend> asked =
          args.backend.empty() ? std::nullopt : parse_named(args.backend, backend_names, "backend");
      if (asked && *asked != Backend::Cuda)
        throw Error(str("--gpus ", args.gpus, " runs on GPUs; --backend ", args.backend, " asks for the CPU"));
      options.backend = to_string(Backend::Cuda);
    }
    options.domains = world.size();
    options.communicator = &world;
  }
  return options;
}

// Every process but the first of a run over several: the same model, pre-flight and run, quietly;
// the first reports and writes the result file (ex::ProcessGroup).
void run_on_worker(const RunArgs& args, const parallel::Communicator& world) {
  catch_stop_signals();
  log::set_quiet(true);
  Model model;
  ex::Preflight preflight;
  ex::RunOptions options;
  std::exception_ptr failure;
  try {
    model = io::load_model(args.model, args.order);
    options = run_options(args, world);
    preflight = ex::preflight(model, options);
  } catch (...) {
    failure = std::current_exception();
  }
  ex::agree(world, failure);
  // The first process reads the checkpoint and checks that it is this run's (refused: agreed
  // here), and sends it and the checkpoint interval to every process (which need not see its
  // file: other hosts).
  ex::agree(world, nullptr);
  options.checkpoint_every = args.checkpoint_option->count() ? args.checkpoint_every : 0;
  ex::SolverState state;
  if (args.resume) {
    ex::broadcast_state(world, state, options.checkpoint_every);
    options.resume = &state;
  }
  options.preflight = &preflight;
  // A signal to this process stops every process at the next check (the first finishes the file).
  options.stop_here = [] { return stop_signal() != 0; };
  const ex::ExplicitRun run = ex::run_explicit(model, options, nullptr);
  if (run.status == ex::RunStatus::Stopped) throw ExitStatus{128 + (stop_signal() != 0 ? stop_signal() : SIGINT)};
  if (run.status == ex::RunStatus::Failed) throw ExitStatus{1};
}

// The threads of --gpus N, a member each (none for one GPU); refused under mpirun and past the
// host's GPUs.
std::vector<parallel::Communicator> gpu_threads(const RunArgs& args, const parallel::Communicator& world) {
  if (args.gpus <= 1) return {};
  if (world.size() > 1)
    throw Error(str("--gpus ", args.gpus, " under mpirun with ", world.size(), " processes: a run over processes "
                    "takes one GPU per process (mpirun -np N), and --gpus N one process for N GPUs; use one or the other"));
  const int present = cuda_device_count();
  if (args.gpus > present)
    throw Error(str("--gpus ", args.gpus, ": ",
                    !cuda_compiled() ? std::string("this tremor was built without CUDA (configure with -DTREMOR_CUDA=ON)")
                    : present == 0   ? std::string("this host has no usable GPU")
                                     : str("this host has ", present, " usable GPU", present == 1 ? "" : "s")));
  return parallel::Communicator::threads(args.gpus, "GPU");
}

// How far the first process got with the output, for what a failure says about it.
enum class OutputStage { None, Claimed, Recording };

// The first process's run (or the only one's), step by step: what each step leaves for the next.
struct RootRun {
  const RunArgs& args;
  const parallel::Communicator& world;
  const std::filesystem::path& output;
  OutputStage& stage;
  Clock::time_point command_started = Clock::now();
  io::OutputClaim claim;
  Model model;
  ex::RunOptions options;
  double model_seconds = 0.0;
  std::vector<parallel::Communicator> gpus;
  ex::Preflight preflight;
  std::filesystem::path checkpoint_file;
  io::Checkpoint resumed;  // read with --resume

  RootRun(const RunArgs& args_, const parallel::Communicator& world_, const std::filesystem::path& output_,
          OutputStage& stage_)
      : args(args_), world(world_), output(output_), stage(stage_) {}

  // The output claimed before any work and before anything else touches files: an output that
  // cannot be written is refused at once, and a second run on the same output before it reads
  // this run's checkpoint or truncates its file. Then the model read and the options made.
  // Over several processes, every one takes part in one agreement on the start (ex::agree): a
  // failure on any, up to the pre-flight, stops all of them with its message.
  void start() {
    try {
      gpus = gpu_threads(args, world);
      claim = io::claim_result_file(output, args.resume);
      stage = OutputStage::Claimed;
      model = io::load_model(args.model, args.order);
      // Nothing the run reads may be written over: the model, its mesh and signal files, the
      // block and decomposition files.
      std::vector<std::filesystem::path> inputs = record::model_inputs(model);
      for (const std::string& file : {args.blocks, args.decomposition})
        if (!file.empty()) inputs.emplace_back(file);
      stage = OutputStage::None;  // refused here, the file there is an input, not a result to speak of
      record::refuse_output_over_inputs(output, inputs);
      stage = OutputStage::Claimed;
      model_seconds = seconds_since(command_started);
      options = run_options(args, gpus.empty() ? world : gpus.front());
      // With --gpus every member sees the signal itself: side by side, each stops its own batch
      // at its next check instead of finishing it (the first's observer sees it too).
      if (!gpus.empty()) options.stop_here = [] { return stop_signal() != 0; };
    } catch (...) {
      if (world.size() > 1) ex::agree(world, std::current_exception());
      throw;
    }
  }

  // Refused settings (an unstable time step, no duration) throw here, before any file exists.
  void check_preflight() {
    log::set_quiet(true);
    try {
      preflight = ex::preflight(model, options);
    } catch (...) {
      log::set_quiet(false);
      if (world.size() > 1) ex::agree(world, std::current_exception());
      throw;
    }
    if (world.size() > 1) ex::agree(world, nullptr);
    log::take_warnings();
    print_preflight(args.model, model, preflight);
  }

  // Where and how often the run checkpoints, and what a checkpoint must match to be resumed; with
  // --resume, the checkpoint read and checked against this run; else one there refused.
  record::CheckpointPlan plan_checkpoints(const io::RunMetadata& metadata) {
    record::CheckpointPlan checkpoints;
    checkpoints.run.model_hash = metadata.model_hash;
    checkpoints.run.precision = to_string(preflight.precision);
    checkpoints.run.operator_kind = preflight.operator_kind();
    checkpoints.run.ordering = to_string(preflight.ordering);
    checkpoints.run.backend = to_string(preflight.backend);
    checkpoints.run.time_step = preflight.dt;
    checkpoints.run.total_steps = preflight.steps;
    checkpoints.run.shots_together = preflight.shots_together;
    checkpoints.run.shots_parallel = preflight.shots_parallel;
    checkpoint_file = record::checkpoint_path(output);
    if (args.resume) {
      resumed = io::read_checkpoint(checkpoint_file);
      const std::vector<std::string> mismatches = io::checkpoint_mismatches(resumed, checkpoints.run);
      if (!mismatches.empty()) {
        std::string why;
        for (const std::string& line : mismatches) why += "\n  " + line;
        throw Error(str(checkpoint_file.string(), ": cannot resume: the checkpoint is of a different run:", why,
                        "\nresume with the model and options of that run, or delete the checkpoint to start afresh"));
      }
      // Its state's sizes against this run's, before the result file is touched (the model's hash
      // matched: a difference is a torn or altered checkpoint).
      if (!resumed.at_rest) {
        const auto n_dofs = static_cast<std::size_t>(preflight.n_dofs);
        const std::size_t n_fluid = preflight.fluid ? static_cast<std::size_t>(preflight.fluid->mesh.n_nodes()) : 0;
        if (resumed.previous.size() != n_dofs || resumed.current.size() != n_dofs)
          throw Error(str(checkpoint_file.string(), ": holds the displacement at ", resumed.current.size(),
                          " degrees of freedom; the model has ", n_dofs, ": a torn or altered checkpoint"));
        if (resumed.fluid_previous.size() != n_fluid || resumed.fluid_current.size() != n_fluid)
          throw Error(str(checkpoint_file.string(), ": fluid: holds the potential at ", resumed.fluid_current.size(),
                          " fluid nodes; the model's fluid has ", n_fluid, ": a torn or altered checkpoint"));
      }
      // A plain --resume steps shots one after another on the whole model (run_options): a run
      // that stepped them together or side by side is continued as it ran only where asked again
      // (or otherwise, where asked so).
      const bool together = resumed.shots_together > 1, side_by_side = resumed.shots_parallel;
      const bool plain = args.shots_together == 0 && !args.shots_parallel && !args.no_shots_parallel;
      if (plain && (together || side_by_side)) {
        const std::string ran = str(side_by_side ? "side by side" : "", side_by_side && together ? " and " : "",
                                    together ? str(resumed.shots_together, " together") : "");
        const std::string how = str("--resume", side_by_side ? " --shots-parallel" : "",
                                    together ? str(" --shots-together ", resumed.shots_together) : "");
        const std::string otherwise =
            side_by_side && together ? "--no-shots-parallel or --shots-together 1 to step the rest otherwise"
            : side_by_side           ? "--no-shots-parallel to decompose the model"
                                     : "--shots-together 1 to step the rest one after another";
        throw Error(str(checkpoint_file.string(), ": the checkpoint's run stepped its shots ", ran, ": resume with ",
                        how, " (or ", otherwise, ")"));
      }
      if ((preflight.shots_together > 1 || preflight.shots_parallel) && !resumed.at_rest)
        throw Error(str(checkpoint_file.string(), ": cannot resume ",
                        preflight.shots_parallel ? std::string("shots side by side")
                                                 : str(preflight.shots_together, " shots stepped together"),
                        ": the checkpoint holds step ", group_digits(resumed.step), " of shot ", resumed.shot + 1,
                        ", which it holds alone; resume ",
                        preflight.shots_parallel ? "on the model decomposed (--no-shots-parallel)"
                                                 : "one after another (--shots-together 1)"));
      if (resumed.at_rest && (resumed.shot < 0 || static_cast<std::size_t>(resumed.shot) >= model.shots.size()))
        throw Error(str(checkpoint_file.string(), ": the checkpoint is before shot ", resumed.shot + 1,
                        "; the model has ", model.shots.size(), " shot", model.shots.size() == 1 ? "" : "s"));
    } else {
      record::refuse_over_checkpoint(output, "--resume");
    }
    options.checkpoint_every = args.checkpoint_option->count() ? args.checkpoint_every
                               : args.resume                  ? resumed.checkpoint_every
                                                              : 0;
    checkpoints.run.checkpoint_every = options.checkpoint_every;
    // (A checkpoint is written after many steps: where it cannot be, refused before the first.)
    if (options.checkpoint_every > 0) io::check_atomic_output_path(checkpoint_file, "checkpoint");
    if (options.checkpoint_every > 0) checkpoints.path = checkpoint_file;
    checkpoints.wall_before = args.resume ? resumed.wall_time : 0.0;
    return checkpoints;
  }

  // The pre-flight's last lines: snapshots, checkpoints, shots, where a resumed run starts.
  void print_output_plan(const io::SnapshotOptions& snapshot_options) const {
    if (model.output && preflight.snapshot_every > 0) {
      const std::size_t n_nodes = snapshot_options.nodes.empty() ? static_cast<std::size_t>(model.mesh.n_nodes())
                                                                 : snapshot_options.nodes.size();
      std::printf("  snapshots       every %s steps (%ss), %s nodes%s%s%s\n", group_digits(preflight.snapshot_every).c_str(),
                  si(preflight.snapshot_every * preflight.dt).c_str(), group_digits(static_cast<long long>(n_nodes)).c_str(),
                  snapshot_options.magnitude ? ", magnitude" : "", snapshot_options.velocity ? ", velocity" : "",
                  snapshot_options.pressure ? ", pressure" : "");
    }
    if (options.checkpoint_every > 0 && preflight.shots_parallel)
      std::printf("  checkpoints     between rounds of shots side by side, to %s\n", checkpoint_file.string().c_str());
    else if (options.checkpoint_every > 0 && preflight.shots_together > 1)
      std::printf("  checkpoints     between batches of shots stepped together, to %s\n",
                  checkpoint_file.string().c_str());
    else if (options.checkpoint_every > 0)
      std::printf("  checkpoints     every %s steps to %s\n", group_digits(options.checkpoint_every).c_str(),
                  checkpoint_file.string().c_str());
    const std::string where =
        preflight.shots_parallel ? str("on each of the ", preflight.processes, preflight.threaded ? " GPUs" : " processes",
                                       ", side by side")
                                 : std::string("on this set-up");
    if (!model.shots.empty() && preflight.shots_together > 1)
      std::printf("  shots           %zu, stepped %d at a time %s\n", model.shots.size(), preflight.shots_together,
                  where.c_str());
    else if (!model.shots.empty())
      std::printf("  shots           %zu, stepped one after another %s\n", model.shots.size(), where.c_str());
    if (args.resume && resumed.at_rest)
      std::printf("  resuming        at the start of shot '%s', from rest (%s)\n",
                  model.shots.at(static_cast<std::size_t>(resumed.shot)).name.c_str(),
                  checkpoint_file.string().c_str());
    else if (args.resume)
      std::printf("  resuming        from step %s of %s%s (%s)\n", group_digits(resumed.step).c_str(),
                  group_digits(preflight.steps).c_str(),
                  model.shots.empty() || resumed.shot < 0 || resumed.shot >= static_cast<std::int64_t>(model.shots.size())
                      ? ""
                      : str(" of shot '", model.shots[static_cast<std::size_t>(resumed.shot)].name, "'").c_str(),
                  checkpoint_file.string().c_str());
    std::fflush(stdout);
  }

  // The time loop under the recording; a failure says what the file and the checkpoint hold.
  ex::ExplicitRun run_recorded(record::Recording& recording, Progress& progress) {
    options.preflight = &preflight;  // checked once: the run takes its settings and time step from it
    ex::ExplicitRun run;
    log::set_quiet(true);  // until on_start: the solver's settings warnings were printed above
    try {
      run = recording.run([&](ex::Observer* observer) {
        return gpus.empty() ? ex::run_explicit(model, options, observer)
                            : ex::run_threads(model, options, observer, gpus);
      });
    } catch (const std::exception&) {
      log::set_quiet(false);
      progress.end();
      if (!recording.note().empty()) std::fprintf(stderr, "%s\n", recording.note().c_str());
      if (!recording.checkpoint_holds().empty())
        std::fprintf(stderr, "%s holds %s: once the cause is fixed, continue the run with %s\n",
                     checkpoint_file.string().c_str(), recording.checkpoint_holds().c_str(),
                     recording.checkpoint_resume().c_str());
      throw;
    }
    log::set_quiet(false);
    progress.end();
    return run;
  }

  void print_summary(const ex::ExplicitRun& run, const record::Recording& recording, double preflight_seconds) const {
    std::printf("summary\n");
    std::printf("  DOF             %s\n", group_digits(run.preflight.n_dofs).c_str());
    std::printf("  steps           %s of %s (t = %ss of %ss)\n", group_digits(run.steps).c_str(),
                group_digits(run.preflight.steps).c_str(), si(run.time).c_str(), si(run.preflight.duration).c_str());
    if (!model.shots.empty()) {
      std::vector<std::string> names;
      for (std::size_t k = 0; k < run.shots.size(); ++k)
        names.push_back(model.shots[static_cast<std::size_t>(run.first_shot) + k].name);
      std::printf("  shots           %zu of %zu stepped here (%s); the steps are the last one's\n", run.shots.size(),
                  model.shots.size(), listed(names).c_str());
    }
    std::printf("  wall time       %.3g s\n", run.wall_seconds);
    std::printf("  speed           %.3g DOF-steps/s\n", run.dof_steps_per_second);
    print_setup_phases(run, preflight_seconds);
    const bool on_gpu = run.preflight.backend == Backend::Cuda;
    // Over processes, this process's own use against its own estimate (its subdomain).
    const bool own = gpus.empty() && world.size() > 1;
    const std::string held = !gpus.empty() ? str(gpus.size(), " GPUs together")
                             : own         ? std::string(on_gpu ? "this process's GPU" : "this process's arrays")
                                           : std::string(on_gpu ? "GPU" : "arrays");
    std::printf("  memory          %s %sB at most (estimate %sB); process peak resident %sB\n", held.c_str(),
                si(static_cast<double>(run.exec_peak_bytes)).c_str(),
                si(static_cast<double>(own ? preflight.process_memory_bytes : preflight.memory_bytes)).c_str(),
                si(static_cast<double>(run.host_peak_bytes)).c_str());
    std::printf("  output          %s (%s)\n", recording.path().string().c_str(),
                run.status == ex::RunStatus::Failed ? "failed" : recording.status().c_str());
    std::fflush(stdout);
  }

  // Start to first step: reading the model, the pre-flight (with the output file's creation) and
  // the solver's set-up, phase by phase.
  void print_setup_phases(const ex::ExplicitRun& run, double preflight_seconds) const {
    std::printf("  set-up          %.3g s to the first step\n", model_seconds + preflight_seconds + run.setup_seconds);
    const auto phase = [](int depth, const std::string& name, double seconds) {
      std::printf("  %*s%-*s %8.3f s\n", 2 * depth, "", 64 - 2 * depth, name.c_str(), seconds);
    };
    phase(1, "model read", model_seconds);
    phase(1, "pre-flight and output file", preflight_seconds);
    for (const ex::SetupPhase& step : preflight.phases) phase(2, step.name, step.seconds);
    phase(1, "solver set-up", run.setup_seconds);
    for (const ex::SetupPhase& step : run.setup) phase(step.detail ? 3 : 2, step.name, step.seconds);
  }

  // A stopped or failed run says so and exits with its status.
  void exit_unless_finished(const ex::ExplicitRun& run, const record::Recording& recording) const {
    if (run.status == ex::RunStatus::Stopped) {
      const int signal = stop_signal();
      // Over processes, a signal to another process stops this one too.
      const std::string by = signal != 0 || world.size() == 1 ? std::string(stop_signal_name())
                                                              : std::string("a signal to another process of the run");
      std::fprintf(stderr, "interrupted by %s: %s; %s holds the histories up to there (status incomplete)\n",
                   by.c_str(), run.message.c_str(), recording.path().string().c_str());
      if (!recording.checkpoint_holds().empty())
        std::fprintf(stderr, "%s holds %s: continue the run with %s\n", checkpoint_file.string().c_str(),
                     recording.checkpoint_holds().c_str(), recording.checkpoint_resume().c_str());
      throw ExitStatus{128 + (signal != 0 ? signal : SIGINT)};
    }
    if (run.status == ex::RunStatus::Failed) {
      std::fprintf(stderr, "error: %s\n", run.message.c_str());
      throw ExitStatus{1};
    }
  }
};

// The first process of a run (or the only one).
void run_on_root(const RunArgs& args, const parallel::Communicator& world, const std::filesystem::path& output,
                 OutputStage& stage) {
  RootRun root(args, world, output, stage);
  catch_stop_signals();
  root.start();
  root.check_preflight();
  const Model& model = root.model;
  const ex::Preflight& preflight = root.preflight;
  // The checkpoint read and checked, the result file created or reopened: over processes the others
  // wait for this (run_on_worker), so a refusal here is agreed and every process ends with it.
  Progress progress;
  std::optional<Console> console;
  std::optional<record::Recording> recorded;
  try {
    const io::RunMetadata metadata =
        record::run_metadata(preflight, args.model, record::model_file_hash(args.model, model), git_commit);
    const record::CheckpointPlan checkpoints = root.plan_checkpoints(metadata);
    const io::SnapshotOptions snapshot_options = record::snapshot_options(model, preflight);
    root.print_output_plan(snapshot_options);
    // A resumed run reopens the file the checkpoint counted.
    record::RecordSettings settings;
    settings.output = output;
    settings.claim = std::move(root.claim);
    settings.metadata = metadata;
    settings.snapshots = snapshot_options;
    settings.checkpoints = checkpoints;
    settings.resumed = args.resume ? &root.resumed : nullptr;
    settings.flush_seconds = model.output ? model.output->flush_seconds : 5.0;
    console.emplace(model, progress, args.resume ? root.resumed.step : 0, args.stop_at_step, args.stop_in_shot);
    recorded.emplace(model, preflight, std::move(settings), &*console);
  } catch (...) {
    if (world.size() > 1) ex::agree(world, std::current_exception());
    throw;
  }
  if (world.size() > 1) ex::agree(world, nullptr);
  record::Recording& recording = *recorded;
  stage = OutputStage::Recording;
  if (recording.dropped_images())
    std::printf("  images          /images removed: tremor image made them of the interrupted run's partial "
                "histories; image the finished file again\n");
  std::fflush(stdout);
  ex::SolverState state;
  if (args.resume) {
    state = solver_state(std::move(root.resumed));
    root.options.resume = &state;
    if (world.size() > 1) ex::broadcast_state(world, state, root.options.checkpoint_every);  // to run_on_worker
  }

  const double preflight_seconds = seconds_since(root.command_started) - root.model_seconds;
  const ex::ExplicitRun run = root.run_recorded(recording, progress);
  root.print_summary(run, recording, preflight_seconds);
  root.exit_unless_finished(run, recording);
}

void run_command(const RunArgs& args) {
  const parallel::Communicator& world = parallel::Communicator::world();
  if (!world.root()) return run_on_worker(args, world);
  const std::filesystem::path output = output_path(args.output, args.model);
  const record::EarlierResult earlier(output);
  OutputStage stage = OutputStage::None;
  // Refused or failed before its time loop: an earlier result there stays, and is said to
  // (a Recording says what became of its file itself).
  keeping_earlier_result(earlier, [&] { return stage != OutputStage::Claimed; },
                         [&] { run_on_root(args, world, output, stage); });
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run the explicit solver on a model (.toml) or an Abaqus input (.inp)");
  auto args = std::make_shared<RunArgs>();
  cmd->add_option("MODEL", args->model, "model file (.toml) or Abaqus/CalculiX input (.inp)")->required();
  add_order_option(cmd, args->order);
  cmd->add_option("-o,--output", args->output, "result file (default: <model stem>.h5 in the current directory)");
  cmd->add_option("--precision", args->precision, "solver state precision (overrides the model)")
      ->check(CLI::IsMember({"double", "float"}));
  std::vector<std::string> operators = explicit_fe::operators().names();
  operators.insert(operators.begin(), "auto");
  cmd->add_option("--operator", args->operator_kind, operator_help())->check(CLI::IsMember(operators));
  cmd->add_option("--blocks", args->blocks,
                  "block file of the mesh (tremor partition) for the partitioned operator (overrides the model)");
  cmd->add_option("--ordering", args->ordering, "node ordering before the run: none or rcm (overrides the model)")
      ->check(CLI::IsMember({"none", "rcm"}));
  cmd->add_option("--backend", args->backend, "backend (overrides the model)")
      ->check(CLI::IsMember(backend_choice_names()));
  args->dt_option = cmd->add_option("--dt", args->dt, "time step in s (default: automatic)")
                        ->check(positive());
  args->duration_option =
      cmd->add_option("--duration", args->duration, "simulated time in s (overrides the model)")
          ->check(positive());
  args->safety_option =
      cmd->add_option("--safety", args->safety, "automatic time step as this fraction of the stable one, in (0, 1]")
          ->check(within(0.0, 1.0, true));
  cmd->add_flag("--allow-unstable", args->allow_unstable, "run a --dt above the stable time step anyway");
  cmd->add_flag("--deterministic", args->deterministic,
                "on a GPU, assemble colour by colour: the same bits on every run (default: atomic adds, faster)");
  cmd->add_option("--domains", args->domains,
                  "decompose the mesh into N subdomains (METIS) stepped together with their shared nodes' "
                  "forces summed every step; the same results to rounding (default 1)")
      ->check(whole(1, std::numeric_limits<int>::max()));
  cmd->add_option("--gpus", args->gpus,
                  "run on N GPUs of this host from this process, a thread and a subdomain (METIS) each, as "
                  "mpirun -np N would (default 1)")
      ->check(whole(1, std::numeric_limits<int>::max()));
  cmd->add_option("--decomposition", args->decomposition,
                  "a decomposition file (tremor partition MODEL --domains N) used instead of METIS; its N "
                  "subdomains are the run's (--domains, --gpus, or the processes under mpirun)");
  cmd->add_option("--exchange", args->exchange,
                  "between processes (mpirun) or GPUs (--gpus), how the shared nodes' forces are summed: p2p (each pair of "
                  "neighbours sends the nodes they share) or allreduce (one array over every shared node); "
                  "default p2p")
      ->check(CLI::IsMember({"p2p", "allreduce"}));
  cmd->add_flag("--no-overlap", args->no_overlap,
                "in a decomposed run, apply each subdomain's whole operator before its exchange (default: "
                "the elements touching shared nodes first, the interior while the exchange runs; sem and "
                "matrix_free)");
  cmd->add_option("--shots-together", args->shots_together,
                  "step K of the model's shots at once, their fields side by side and one operator apply for "
                  "all, each shot's results those it has alone; 1: one after another (default: up to 16 on a "
                  "GPU where the operator reads its data once for all and gains by it, else 1)")
      ->check(whole(1, 4096));
  CLI::Option* side_by_side =
      cmd->add_flag("--shots-parallel", args->shots_parallel,
                    "with --gpus N or under mpirun, step whole shots side by side, each GPU or process the whole "
                    "model and shots of its own, instead of decomposing it (default: so on GPUs where the model "
                    "fits one and the shots keep them all busy)");
  cmd->add_flag("--no-shots-parallel", args->no_shots_parallel,
                "with --gpus N or under mpirun, decompose the model and step each shot on all of them")
      ->excludes(side_by_side);
  cmd->add_option("--check-every", args->check_every,
                  "steps between NaN/Inf checks, progress updates and interruption checks (default 100)")
      ->check(whole(1, std::numeric_limits<int>::max()));
  args->checkpoint_option =
      cmd->add_option("--checkpoint-every", args->checkpoint_every,
                      "write the solver state to RESULT.checkpoint every N steps, for --resume")
          ->check(whole(1, explicit_fe::max_steps));
  cmd->add_flag("--resume", args->resume, "continue the interrupted run to RESULT from RESULT.checkpoint");
  // Stops the run as SIGINT would at the first check at or after step N: lets the tests interrupt
  // a run at a known step. Not shown in the help.
  cmd->add_option("--stop-at-step", args->stop_at_step, "")->check(whole(1, explicit_fe::max_steps))->group("");
  cmd->add_option("--stop-in-shot", args->stop_in_shot, "")->check(whole(1, 1 << 30))->group("");
  cmd->callback([args] { run_command(*args); });
}

}  // namespace tremor::cli
