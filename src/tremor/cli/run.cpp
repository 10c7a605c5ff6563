// `tremor run MODEL [-o RESULT]`: the explicit solver from the command line (docs/running.md).
// Prints the pre-flight check, runs with a progress display on stderr, writes the histories into
// one result file (docs/output-format.md) as the run goes, and closes with a summary. SIGINT and
// SIGTERM stop the run at its next check; the file is then finished as "incomplete".
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "tremor/cli/commands.hpp"
#include "tremor/cli/format.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/receivers.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/load.hpp"
#include "tremor/io/result_file.hpp"

namespace tremor::cli {

namespace {

namespace ex = tremor::explicit_fe;
using Clock = std::chrono::steady_clock;

// Set by the signal handler, read by the time loop (through Observer::stop_requested).
volatile std::sig_atomic_t stop_signal = 0;

extern "C" void on_stop_signal(int signal) {
  if (stop_signal != 0) {
    // A second signal while the run winds down: give up at once (the `.partial` file stays).
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  stop_signal = signal;
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

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

// FNV-1a (64 bit) of the model file's bytes: tells two runs of different inputs apart.
std::string file_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::uint64_t hash = 14695981039346656037ull;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      hash ^= static_cast<unsigned char>(buffer[i]);
      hash *= 1099511628211ull;
    }
  }
  char text[32];
  std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(hash));
  return text;
}

io::Quantity to_io(ex::Quantity quantity) {
  switch (quantity) {
    case ex::Quantity::Displacement: return io::Quantity::Displacement;
    case ex::Quantity::Velocity: return io::Quantity::Velocity;
    case ex::Quantity::Acceleration: return io::Quantity::Acceleration;
  }
  return io::Quantity::Displacement;
}

// The backend a run actually uses ("auto" resolves to OpenMP in the explicit solver for now).
void print_preflight(const std::string& model_path, const Model& model, const ex::Preflight& p) {
  std::printf("pre-flight        %s: %dD, %s DOF, %s, %s operator, backend %s\n", model_path.c_str(), model.mesh.dim(),
              group_digits(p.n_dofs).c_str(), p.precision.c_str(), p.operator_kind.c_str(),
              p.backend.c_str());
  std::printf("  stable step     %ss (set by element %lld)\n", si(p.stable_dt).c_str(),
              static_cast<long long>(p.stable_element));
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
    std::printf("  wavelength      %.3g elements per shortest wavelength (%.0f m/s at %sHz, elements up to %sm)%s\n",
                p.points_per_wavelength, p.min_wave_speed, si(p.highest_frequency).c_str(),
                si(p.largest_element).c_str(), p.points_per_wavelength < 10.0 ? "  < 10: dispersed" : "");
  } else {
    std::printf("  wavelength      no source frequency to check against\n");
  }
  std::printf("  memory          %sB (estimate)\n", si(static_cast<double>(p.memory_bytes)).c_str());
  std::fflush(stdout);
  for (const std::string& warning : p.warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
}

// The progress display on stderr: one line redrawn in place on a terminal, otherwise a plain line
// every 10% of the steps or every 10 s, whichever comes first.
class Progress {
 public:
  Progress() : tty_(isatty(fileno(stderr)) != 0) {}

  void start(double duration) {
    duration_ = duration;
    started_ = last_shown_ = Clock::now();
  }

  void update(long long step, long long steps, double time) {
    const auto now = Clock::now();
    const double elapsed = seconds_since(started_);
    const double since_shown = std::chrono::duration<double>(now - last_shown_).count();
    const double fraction = steps > 0 ? static_cast<double>(step) / static_cast<double>(steps) : 1.0;
    if (tty_) {
      if (since_shown < 0.1 && step < steps) return;
    } else {
      if (fraction < next_fraction_ && since_shown < 10.0) return;
      while (next_fraction_ <= fraction) next_fraction_ += 0.1;
    }
    last_shown_ = now;
    const double rate = elapsed > 0.0 ? static_cast<double>(step) / elapsed : 0.0;
    const double eta = rate > 0.0 ? static_cast<double>(steps - step) / rate : -1.0;
    char text[256];
    std::snprintf(text, sizeof text, "%5.1f%%  %s steps/s  t = %ss of %ss  ETA %s", 100.0 * fraction,
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
  double duration_ = 0.0;
  double next_fraction_ = 0.1;
  Clock::time_point started_, last_shown_;
};

// Sends samples to the result file in chunks as they are recorded, flushes it every few seconds,
// shows progress and passes on a stop request from a signal.
class ResultWriter final : public ex::Observer {
 public:
  static constexpr std::size_t chunk_samples = 1024;
  static constexpr double flush_seconds = 5.0;

  ResultWriter(io::ResultFile& file, std::map<std::string, int> ids, Progress& progress)
      : file_(file), ids_(std::move(ids)), progress_(progress) {}

  void on_start(const ex::Preflight& preflight) override {
    // The solver resolves its settings again before this call; their warnings were shown already.
    log::set_quiet(false);
    const std::set<std::string> shown(preflight.warnings.begin(), preflight.warnings.end());
    for (const std::string& warning : log::take_warnings())
      if (!shown.count(warning)) std::fprintf(stderr, "warning: %s\n", warning.c_str());
    started_ = last_flush_ = Clock::now();
    progress_.start(preflight.duration);
  }

  void on_sample(const ex::History& history, std::size_t /*sample*/) override {
    const auto id = ids_.find(history.name);
    if (id == ids_.end()) return;
    seen_[history.name] = &history;
    if (history.n_samples() - written_[history.name] >= chunk_samples) append(history, id->second);
  }

  void on_progress(long long step, long long steps, double time) override {
    progress_.update(step, steps, time);
    if (std::chrono::duration<double>(Clock::now() - last_flush_).count() >= flush_seconds) {
      for (const auto& [name, history] : seen_) append(*history, ids_.at(name));
      file_.set_progress(step, seconds_since(started_));
      file_.flush();
      last_flush_ = Clock::now();
    }
  }

  bool stop_requested() override { return stop_signal != 0; }

  // The samples not yet in the file, from the histories the run returned.
  void append_rest(const std::vector<ex::History>& histories) {
    seen_.clear();  // the recorder's histories were moved into these
    for (const ex::History& history : histories) {
      const auto id = ids_.find(history.name);
      if (id != ids_.end()) append(history, id->second);
    }
  }

 private:
  void append(const ex::History& history, int id) {
    std::size_t& written = written_[history.name];
    const std::size_t n = history.n_samples();
    if (n <= written) return;
    const std::size_t size = history.sample_size();
    file_.append_samples(id, std::span<const double>(history.times).subspan(written, n - written),
                         std::span<const double>(history.values).subspan(written * size, (n - written) * size));
    written = n;
  }

  io::ResultFile& file_;
  std::map<std::string, int> ids_;
  Progress& progress_;
  std::map<std::string, std::size_t> written_;
  std::map<std::string, const ex::History*> seen_;
  Clock::time_point started_, last_flush_;
};

struct RunArgs {
  std::string model, output, precision, operator_kind, backend;
  double dt = 0.0, duration = 0.0, safety = 0.0;
  bool allow_unstable = false;
  int check_every = 100;
  CLI::Option *dt_option = nullptr, *duration_option = nullptr, *safety_option = nullptr;
};

void run_command(const RunArgs& args) {
  stop_signal = 0;
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);

  const Model model = io::load_model(args.model);
  ex::RunOptions options;
  options.precision = args.precision;
  options.operator_kind = args.operator_kind;
  options.backend = args.backend;
  if (args.dt_option->count()) options.time_step = args.dt;
  if (args.duration_option->count()) options.duration = args.duration;
  if (args.safety_option->count()) options.safety_factor = args.safety;
  options.allow_unstable = args.allow_unstable;
  options.check_every = args.check_every;

  // Refused settings (an unstable time step, no duration) throw here, before any file exists.
  log::set_quiet(true);
  ex::Preflight preflight;
  try {
    preflight = ex::preflight(model, options);
  } catch (...) {
    log::set_quiet(false);
    throw;
  }
  log::take_warnings();
  print_preflight(args.model, model, preflight);

  const std::filesystem::path output =
      !args.output.empty() ? std::filesystem::path(args.output)
                           : std::filesystem::path(std::filesystem::path(args.model).stem().string() + ".h5");
  io::RunMetadata metadata;
  metadata.model_path = args.model;
  metadata.model_hash = file_hash(args.model);
  metadata.backend = preflight.backend;
  metadata.precision = preflight.precision;
  metadata.time_step = preflight.dt;

  // Histories at nodes go to the file; the format has no place for interpolated positions yet.
  std::map<std::string, int> ids;
  io::ResultFile file = io::ResultFile::create(output, model, metadata);
  for (const ex::History& history : ex::make_histories(model, preflight.dt)) {
    if (history.nodes.empty()) {
      std::fprintf(stderr,
                   "warning: %s: receiver '%s' records at positions, which the result file cannot hold yet; "
                   "it is not written\n",
                   history.origin.c_str(), history.name.c_str());
      continue;
    }
    std::vector<io::Quantity> quantities;
    for (const ex::Quantity q : history.quantities) quantities.push_back(to_io(q));
    ids[history.name] = file.add_history(history.name, history.nodes, quantities);
  }

  Progress progress;
  ResultWriter writer(file, ids, progress);
  ex::ExplicitRun run;
  log::set_quiet(true);  // until on_start: the solver's settings warnings were printed above
  try {
    run = ex::run_explicit(model, options, &writer);
  } catch (const std::exception& e) {
    log::set_quiet(false);
    progress.end();
    file.finish(std::string("failed: ") + e.what());
    throw;
  }
  log::set_quiet(false);
  progress.end();
  writer.append_rest(run.histories);

  std::string status;
  switch (run.status) {
    case ex::RunStatus::Completed: status = "complete"; break;
    case ex::RunStatus::NonFinite: status = "failed: " + run.message; break;
    case ex::RunStatus::Stopped: status = "incomplete"; break;
  }
  file.finish(status, run.steps, run.wall_seconds);

  std::printf("summary\n");
  std::printf("  DOF             %s\n", group_digits(run.preflight.n_dofs).c_str());
  std::printf("  steps           %s of %s (t = %ss of %ss)\n", group_digits(run.steps).c_str(),
              group_digits(run.preflight.steps).c_str(), si(run.time).c_str(), si(run.preflight.duration).c_str());
  std::printf("  wall time       %.3g s\n", run.wall_seconds);
  std::printf("  speed           %.3g DOF-steps/s\n", run.dof_steps_per_second);
  std::printf("  output          %s (%s)\n", file.path().string().c_str(),
              run.status == ex::RunStatus::NonFinite ? "failed" : status.c_str());
  std::fflush(stdout);

  if (run.status == ex::RunStatus::Stopped) {
    const int signal = static_cast<int>(stop_signal);
    std::fprintf(stderr, "interrupted by %s: %s; %s holds the histories up to there (status incomplete)\n",
                 signal == SIGTERM ? "SIGTERM" : "SIGINT", run.message.c_str(), file.path().string().c_str());
    throw ExitStatus{128 + (signal != 0 ? signal : SIGINT)};
  }
  if (run.status == ex::RunStatus::NonFinite) {
    std::fprintf(stderr, "error: %s\n", run.message.c_str());
    throw ExitStatus{1};
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run the explicit solver on a model (.toml) or an Abaqus input (.inp)");
  auto args = std::make_shared<RunArgs>();
  cmd->add_option("MODEL", args->model, "model file (.toml) or Abaqus/CalculiX input (.inp)")->required();
  cmd->add_option("-o,--output", args->output, "result file (default: <model stem>.h5 in the current directory)");
  cmd->add_option("--precision", args->precision, "solver state precision (overrides the model)")
      ->check(CLI::IsMember({"double", "float"}));
  cmd->add_option("--operator", args->operator_kind, "stiffness operator (overrides the model)")
      ->check(CLI::IsMember(explicit_fe::stiffness_operator_kinds()));
  cmd->add_option("--backend", args->backend, "backend (overrides the model)")
      ->check(CLI::IsMember({"auto", "serial", "openmp", "cuda"}));
  args->dt_option = cmd->add_option("--dt", args->dt, "time step in s (default: automatic)")
                        ->check(CLI::PositiveNumber);
  args->duration_option =
      cmd->add_option("--duration", args->duration, "simulated time in s (overrides the model)")
          ->check(CLI::PositiveNumber);
  args->safety_option =
      cmd->add_option("--safety", args->safety, "automatic time step as this fraction of the stable one, in (0, 1]")
          ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--allow-unstable", args->allow_unstable, "run a --dt above the stable time step anyway");
  cmd->add_option("--check-every", args->check_every,
                  "steps between NaN/Inf checks, progress updates and interruption checks (default 100)")
      ->check(CLI::PositiveNumber);
  cmd->callback([args] { run_command(*args); });
}

}  // namespace tremor::cli
