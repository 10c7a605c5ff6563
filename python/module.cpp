// The compiled part of the `tremor` Python package (docs/python.md): models read by the library's
// readers, explicit runs whose histories come back as numpy arrays, static and boundary-element
// solutions. tremor::Error becomes tremor.Error with the same text. The GIL is released while a
// solver works; a progress callback, and Python's signal handlers (Ctrl-C), run every few steps
// (between frequencies for boundary elements) with the GIL held, and an exception raised there
// stops the run there and is raised from the call.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <complex>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/rules.hpp"
#include "tremor/explicit/receivers.hpp"
#include "tremor/explicit/simulation.hpp"
#include "tremor/io/abaqus_writer.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/record/bem_run.hpp"
#include "tremor/record/explicit_run.hpp"
#include "tremor/record/static_solution.hpp"
#include "tremor/cli/git_commit.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/limits.hpp"
#include "tremor/io/load.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/mesh/element_type.hpp"
#include "tremor/mesh/faces.hpp"
#include "tremor/mesh/mesh.hpp"
#include "tremor/model/model.hpp"
#include "tremor/static/solve.hpp"
#include "tremor/bem/driver.hpp"
#include "tremor/io/bem_model_file.hpp"
#include "tremor/imaging/tfm.hpp"

namespace py = pybind11;
namespace ex = tremor::explicit_fe;

namespace {

// -- arguments -------------------------------------------------------------------------------------
// Every argument a user gives is checked before use, naming it: a wrong type raises TypeError
// ("duration: must be a number, got str 'abc'"), a value outside its rule tremor.Error with the
// command line's rule and words (core/rules.hpp: "duration: must be a finite number above 0, got
// nan"). Nothing is converted silently: 3.7 is not an index, True not a number, 2**64 not -1.

// The value as a message shows it: its repr, cut short (a huge int's repr may itself fail).
std::string shown(const py::handle& value) {
  std::string text;
  try {
    text = py::repr(value).cast<std::string>();
  } catch (const py::error_already_set&) {
    text = "<" + py::type::of(value).attr("__name__").cast<std::string>() + ">";
  }
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

[[noreturn]] void wrong_type(std::string_view name, std::string_view expected, const py::handle& value) {
  throw py::type_error(tremor::str(name, ": must be ", expected, ", got ",
                                   py::type::of(value).attr("__name__").cast<std::string>(), " ", shown(value)));
}

bool is_bool(const py::handle& value) {
  if (PyBool_Check(value.ptr())) return true;
  const std::string type = py::type::of(value).attr("__name__").cast<std::string>();
  return type == "bool_" || type == "bool";  // numpy's
}

// A number: int, float or numpy's (not bool, str or complex), as a double; an int beyond a
// double's range is an infinity of its sign.
double real_of(std::string_view name, const py::handle& value) {
  PyObject* object = value.ptr();
  if (is_bool(value) || PyUnicode_Check(object) || PyBytes_Check(object) || PyComplex_Check(object))
    wrong_type(name, "a number", value);
  if (PyIndex_Check(object)) {
    const py::object whole = py::reinterpret_steal<py::object>(PyNumber_Index(object));
    if (!whole) throw py::error_already_set();
    const double x = PyLong_AsDouble(whole.ptr());
    if (x == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return PyObject_RichCompareBool(whole.ptr(), py::int_(0).ptr(), Py_LT) == 1 ? -HUGE_VAL : HUGE_VAL;
    }
    return x;
  }
  const py::object real = py::reinterpret_steal<py::object>(PyNumber_Float(object));
  if (!real) {
    PyErr_Clear();
    wrong_type(name, "a number", value);
  }
  return PyFloat_AsDouble(real.ptr());
}

// A number checked against `rule`; an int too large for a double is refused shown as given.
double number_arg(std::string_view name, const py::handle& value, const tremor::NumberRule& rule) {
  const double x = real_of(name, value);
  if (!std::isfinite(x) && PyIndex_Check(value.ptr()))
    throw tremor::Error(tremor::str(name, ": ", rule.refusal(shown(value))));
  return rule.check(name, x);
}

std::optional<double> optional_number(std::string_view name, const py::handle& value, const tremor::NumberRule& rule) {
  if (value.is_none()) return std::nullopt;
  return number_arg(name, value, rule);
}

// A whole number: int or numpy's integers (3.7, 3.0 and True are not), checked against `rule`.
py::int_ index_of(std::string_view name, const py::handle& value) {
  if (is_bool(value) || !PyIndex_Check(value.ptr())) wrong_type(name, "a whole number (an int)", value);
  const py::object whole = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
  if (!whole) throw py::error_already_set();
  return py::reinterpret_borrow<py::int_>(whole);
}

long long whole_arg(std::string_view name, const py::handle& value, const tremor::WholeRule& rule) {
  const py::int_ whole = index_of(name, value);
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(whole.ptr(), &overflow);
  if (overflow != 0) throw tremor::Error(tremor::str(name, ": ", rule.refusal(shown(value))));
  if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
  return rule.check(name, x);
}

std::optional<long long> optional_whole(std::string_view name, const py::handle& value, const tremor::WholeRule& rule) {
  if (value.is_none()) return std::nullopt;
  return whole_arg(name, value, rule);
}

std::string text_arg(std::string_view name, const py::handle& value) {
  if (!PyUnicode_Check(value.ptr())) wrong_type(name, "a string", value);
  return value.cast<std::string>();
}

// One of the names of a choice (a backend, a precision...): the solvers refuse an unknown one,
// naming the choices; an empty one they would read as "not given", as None is.
std::string choice_arg(std::string_view name, const py::handle& value) {
  std::string text = text_arg(name, value);
  if (text.empty()) throw tremor::Error(tremor::str(name, ": must be a name, got an empty string (None: the default)"));
  return text;
}

std::optional<std::string> optional_choice(std::string_view name, const py::handle& value) {
  if (value.is_none()) return std::nullopt;
  return choice_arg(name, value);
}

// A path: str or os.PathLike (pathlib.Path); a NUL would cut it short where the system reads it.
std::string path_arg(std::string_view name, const py::handle& value) {
  const py::object path = py::reinterpret_steal<py::object>(PyOS_FSPath(value.ptr()));
  if (!path || !PyUnicode_Check(path.ptr())) {
    PyErr_Clear();
    wrong_type(name, "a path (str or os.PathLike)", value);
  }
  std::string text = path.cast<std::string>();
  if (text.empty()) throw py::value_error(tremor::str(name, ": must be a path, got an empty string"));
  if (text.find('\0') != std::string::npos)
    throw py::value_error(tremor::str(name, ": a path cannot hold a NUL character, got ", shown(value)));
  return text;
}

std::optional<std::string> optional_path(std::string_view name, const py::handle& value) {
  if (value.is_none()) return std::nullopt;
  return path_arg(name, value);
}

bool flag_arg(std::string_view name, const py::handle& value) {
  if (!is_bool(value)) wrong_type(name, "True or False", value);
  return value.cast<bool>();
}

py::object callable_arg(std::string_view name, const py::handle& value) {
  if (!value.is_none() && !PyCallable_Check(value.ptr()))
    wrong_type(name, "a function (step, steps, time) or None", value);
  return py::reinterpret_borrow<py::object>(value);
}

// The command line's rules for the options a Python call shares with it (cli/run.cpp, static.cpp).
const tremor::WholeRule& check_every_rule() {
  static const tremor::WholeRule rule = tremor::whole_number(1, std::numeric_limits<int>::max());
  return rule;
}


// A history as numpy arrays: times [samples], values [samples][points][quantities][dim].
py::dict history_dict(const ex::History& h) {
  py::dict out;
  out["name"] = h.name;
  out["times"] = py::array_t<double>(static_cast<py::ssize_t>(h.times.size()), h.times.data());
  const auto samples = static_cast<py::ssize_t>(h.n_samples());
  const std::vector<py::ssize_t> shape{samples, static_cast<py::ssize_t>(h.n_points()),
                                       static_cast<py::ssize_t>(h.quantities.size()), h.components()};
  out["values"] = py::array_t<double>(shape, h.values.data());
  std::vector<std::string> quantities;
  for (const ex::Quantity q : h.quantities) quantities.emplace_back(ex::to_string(q));
  out["quantities"] = quantities;
  if (!h.nodes.empty()) {
    const std::vector<std::int64_t> labels(h.node_labels.begin(), h.node_labels.end());
    out["node_labels"] = py::array_t<std::int64_t>(static_cast<py::ssize_t>(labels.size()), labels.data());
  } else {
    py::array_t<double> positions({static_cast<py::ssize_t>(h.positions.size()), static_cast<py::ssize_t>(h.dim)});
    auto p = positions.mutable_unchecked<2>();
    for (std::size_t i = 0; i < h.positions.size(); ++i)
      for (int c = 0; c < h.dim; ++c) p(static_cast<py::ssize_t>(i), c) = h.positions[i][static_cast<std::size_t>(c)];
    out["positions"] = positions;
  }
  return out;
}

py::dict histories_dict(const std::vector<ex::History>& histories) {
  py::dict out;
  for (const ex::History& h : histories) out[py::str(h.name)] = history_dict(h);
  return out;
}

// A Python exception raised while a solver ran (by a callback, or by a signal handler: Ctrl-C),
// kept until the solver has returned and then raised again. Its calls need the GIL.
class PythonFailure {
 public:
  // Runs Python's signal handlers; true once an exception is kept.
  bool check_signals() {
    if (!failure_ && PyErr_CheckSignals() != 0) failure_.emplace();
    return failed();
  }
  void keep(py::error_already_set&& e) {
    if (!failure_) failure_.emplace(std::move(e));
  }
  bool failed() const { return failure_.has_value(); }
  void rethrow() {
    if (failure_) {
      py::error_already_set e = std::move(*failure_);
      failure_.reset();
      throw e;
    }
  }

 private:
  std::optional<py::error_already_set> failure_;
};

// Progress and interruption of an explicit run: called by the solver's thread, which released
// the GIL.
class PythonObserver final : public ex::Observer {
 public:
  // `keep_snapshots`: the model's snapshots kept in memory (not when a result file holds them).
  explicit PythonObserver(py::object progress, bool keep_snapshots = true)
      : progress_(std::move(progress)), keep_snapshots_(keep_snapshots) {}
  void on_progress(long long step, long long steps, double time) override {
    py::gil_scoped_acquire gil;
    if (failure.failed()) return;
    try {
      if (!progress_.is_none()) progress_(step, steps, time);
      failure.check_signals();
    } catch (py::error_already_set& e) {
      failure.keep(std::move(e));
    }
  }
  bool stop_requested() override {
    py::gil_scoped_acquire gil;
    return failure.failed();
  }
  // The model's [output] snapshots, kept in memory (called by the solver's snapshot writer, one
  // call at a time: no GIL needed to copy).
  void on_snapshot(const ex::Snapshot& snapshot) override {
    if (!keep_snapshots_) return;
    snapshots.push_back({snapshot.step, snapshot.time,
                         std::vector<double>(snapshot.displacement.begin(), snapshot.displacement.end()),
                         std::vector<double>(snapshot.velocity.begin(), snapshot.velocity.end()),
                         std::vector<double>(snapshot.pressure.begin(), snapshot.pressure.end())});
  }
  struct Kept {
    long long step = 0;
    double time = 0.0;
    std::vector<double> displacement, velocity, pressure;
  };
  std::vector<Kept> snapshots;
  PythonFailure failure;

 private:
  py::object progress_;
  bool keep_snapshots_;
};

py::dict run_dict(const ex::ExplicitRun& result, const tremor::Model& model);

// The options of tremor.run and tremor.Simulation: those of `tremor run`, with its rules.
ex::RunOptions run_options(const py::object& backend, const py::object& precision, const py::object& operator_kind,
                           const py::object& time_step) {
  ex::RunOptions options;
  options.backend = choice_arg("backend", backend);
  if (const auto p = optional_choice("precision", precision)) options.precision = *p;
  if (const auto o = optional_choice("operator", operator_kind)) options.operator_kind = *o;
  if (const auto dt = optional_number("dt", time_step, tremor::positive_number())) options.time_step = *dt;
  return options;
}
py::array_t<double> per_node(const std::vector<double>& values, std::size_t width);
template <class T>
py::array_t<T> vector_of(const std::vector<T>& values);

// `output`: the result file to record the run into, as `tremor run -o` does (the command's
// writer: record::Recording); `model_path` and `model_bytes` identify the model in its metadata.
py::dict run(const tremor::Model& model, const py::object& backend, const py::object& precision,
             const py::object& operator_kind, const py::object& duration, const py::object& time_step,
             const py::object& check_every, const py::object& progress, const py::object& output_path,
             const std::string& model_path, const std::string& model_bytes) {
  ex::RunOptions options = run_options(backend, precision, operator_kind, time_step);
  if (const auto d = optional_number("duration", duration, tremor::positive_number())) options.duration = *d;
  options.check_every = static_cast<int>(whole_arg("check_every", check_every, check_every_rule()));
  const std::optional<std::string> output = optional_path("output", output_path);
  PythonObserver observer(callable_arg("progress", progress), /*keep_snapshots=*/!output);
  ex::ExplicitRun result;
  {
    py::gil_scoped_release released;
    if (!output) {
      result = ex::run_explicit(model, options, &observer);
    } else {
      // The file claimed before any work, as the command does: a second writer is refused at once.
      const std::filesystem::path path = *output;
      tremor::io::OutputClaim claim = tremor::io::claim_result_file(path, false);
      tremor::record::refuse_over_checkpoint(path, "`tremor run --resume`");
      const ex::Preflight preflight = ex::preflight(model, options);
      tremor::record::RecordSettings settings;
      settings.output = path;
      settings.claim = std::move(claim);
      settings.metadata = tremor::record::run_metadata(
          preflight, model_path, tremor::record::model_hash(model_bytes, model), tremor::cli::git_commit);
      settings.snapshots = tremor::record::snapshot_options(model, preflight);
      if (model.output) settings.flush_seconds = model.output->flush_seconds;
      options.preflight = &preflight;
      tremor::record::Recording recording(model, preflight, std::move(settings), &observer);
      result = recording.run([&](ex::Observer* o) { return ex::run_explicit(model, options, o); });
    }
  }
  observer.failure.rethrow();
  py::dict out = run_dict(result, model);
  out["output"] = output ? py::object(py::str(*output)) : py::object(py::none());
  // Snapshots as [nodes][dim] arrays (pressure: [nodes]), at the model's snapshot nodes (None:
  // every node).
  const auto dim = static_cast<std::size_t>(model.mesh.dim());
  py::list snapshots;
  for (const PythonObserver::Kept& s : observer.snapshots) {
    py::dict one;
    one["step"] = s.step;
    one["time"] = s.time;
    one["displacement"] = per_node(s.displacement, dim);
    one["velocity"] = s.velocity.empty() ? py::object(py::none()) : py::object(per_node(s.velocity, dim));
    one["pressure"] = s.pressure.empty() ? py::object(py::none()) : py::object(vector_of(s.pressure));
    snapshots.append(one);
  }
  out["snapshots"] = snapshots;
  out["snapshot_nodes"] = model.output && !model.output->snapshot_nodes.empty()
                              ? py::object(vector_of(model.output->snapshot_nodes))
                              : py::object(py::none());
  return out;
}

// A kept set-up (explicit_fe::Simulation) and its runs, each from a run's tables (TOML text:
// io::read_excitation_buffer) or the model's own.
class PythonSimulation {
 public:
  PythonSimulation(const tremor::Model& model, const py::object& backend, const py::object& precision,
                   const py::object& operator_kind, const py::object& time_step) {
    const ex::RunOptions options = run_options(backend, precision, operator_kind, time_step);
    py::gil_scoped_release released;
    simulation_ = std::make_unique<ex::Simulation>(model, options);
  }
  py::dict run(const std::optional<std::string>& text, const std::string& name, const std::string& base_dir,
               const py::object& duration, const py::object& check_every, const py::object& progress) {
    ex::RunOptions options;
    if (const auto d = optional_number("duration", duration, tremor::positive_number())) options.duration = *d;
    options.check_every = static_cast<int>(whole_arg("check_every", check_every, check_every_rule()));
    if (text) tremor::io::check_model_text(name, text->size());
    PythonObserver observer(callable_arg("progress", progress));
    ex::ExplicitRun result;
    std::optional<tremor::Model> excitation;
    {
      py::gil_scoped_release released;
      if (text) excitation = tremor::io::read_excitation_buffer(*text, name, base_dir, simulation_->model());
      result = simulation_->run(excitation ? *excitation : simulation_->model(), options, &observer);
    }
    observer.failure.rethrow();
    return run_dict(result, excitation ? *excitation : simulation_->model());
  }
  const ex::Simulation& simulation() const { return *simulation_; }

 private:
  std::unique_ptr<ex::Simulation> simulation_;
};

py::dict run_dict(const ex::ExplicitRun& result, const tremor::Model& model) {
  py::dict out;
  out["status"] = result.status == ex::RunStatus::Completed   ? "complete"
                  : result.status == ex::RunStatus::Failed ? "failed"
                                                              : "stopped";
  out["message"] = result.message;
  out["dt"] = result.dt;
  out["steps"] = result.steps;
  out["time"] = result.time;
  out["wall_seconds"] = result.wall_seconds;
  out["setup_seconds"] = result.setup_seconds;
  out["dof_steps_per_second"] = result.dof_steps_per_second;
  out["n_dofs"] = result.preflight.n_dofs;
  out["backend"] = std::string(tremor::to_string(result.preflight.backend));
  out["precision"] = std::string(tremor::to_string(result.preflight.precision));
  out["operator"] = std::string(result.preflight.operator_kind());
  out["histories"] = histories_dict(result.histories);
  py::dict shots;
  for (std::size_t k = 0; k < result.shots.size(); ++k)
    shots[py::str(model.shots[static_cast<std::size_t>(result.first_shot) + k].name)] = histories_dict(result.shots[k]);
  out["shots"] = shots;
  return out;
}

// A node-major vector of `width` values per node as a numpy array [nodes][width].
py::array_t<double> per_node(const std::vector<double>& values, std::size_t width) {
  const std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(width == 0 ? 0 : values.size() / width),
                                       static_cast<py::ssize_t>(width)};
  return py::array_t<double>(shape, values.data());
}

// Stops a static solve between CG iterations, or a boundary-element run between frequencies, on
// Ctrl-C (Python's signal handlers, run with the GIL). `SolverObserver`: the solver's Observer.
template <class SolverObserver>
class PythonInterrupt final : public SolverObserver {
 public:
  bool stop_requested() override {
    py::gil_scoped_acquire gil;
    return failure.check_signals();
  }
  PythonFailure failure;
};

// A static setting given by name, refused as the solver refuses the model's own: after the origin
// of the model's static settings, when it has them.
template <class Enum, std::size_t N>
Enum static_choice(const tremor::Model& model, const std::string& text,
                   const std::array<tremor::Named<Enum>, N>& names, std::string_view what) {
  try {
    return tremor::parse_named(text, names, what);
  } catch (const tremor::Error& e) {
    const std::string origin = model.static_settings ? model.static_settings->origin : std::string();
    throw tremor::Error(origin.empty() ? std::string(e.what()) : tremor::str(origin, ": ", e.what()));
  }
}

// `output`: the result file to write, as `tremor static -o` does (record::write_static_result).
py::dict solve_static(const tremor::Model& model, const py::object& backend, const py::object& precision,
                      const py::object& preconditioner, const py::object& tolerance, const py::object& max_iterations,
                      const py::object& output_path, const std::string& model_path, const std::string& model_bytes) {
  tremor::static_fe::SolveOptions options;
  options.backend = tremor::BackendOverride::of(
      static_choice(model, choice_arg("backend", backend), tremor::backend_names, "backend"));
  if (const auto p = optional_choice("precision", precision))
    options.precision = static_choice(model, *p, tremor::precision_names, "precision");
  if (const auto p = optional_choice("preconditioner", preconditioner))
    options.preconditioner = static_choice(model, *p, tremor::preconditioner_names, "preconditioner");
  // `tremor static --tolerance` and `--max-iterations`' rules (the solver then wants a tolerance below 1).
  options.tolerance = optional_number("tolerance", tolerance, tremor::positive_number());
  if (const auto n = optional_whole("max_iterations", max_iterations, tremor::whole_number(1, 1000000000)))
    options.max_iterations = static_cast<int>(*n);
  const std::optional<std::string> output = optional_path("output", output_path);
  PythonInterrupt<tremor::static_fe::Observer> interrupt;
  tremor::static_fe::StaticResult result;
  {
    py::gil_scoped_release released;
    // Claimed before the solve; the file is created after it, so a refused model leaves none.
    std::optional<tremor::io::OutputClaim> claim;
    if (output) claim = tremor::io::claim_result_file(*output, false);
    result = tremor::static_fe::solve_static(model, options, &interrupt);
    if (output) {
      tremor::io::RunMetadata metadata;
      metadata.git_commit = tremor::cli::git_commit;
      metadata.model_path = model_path;
      metadata.model_hash = tremor::record::model_hash(model_bytes, model);
      tremor::record::write_static_result(*output, std::move(*claim), model, metadata, result);
    }
  }
  interrupt.failure.rethrow();  // Ctrl-C: the last iterate was written as incomplete
  const auto dim = static_cast<std::size_t>(model.mesh.dim());
  const std::size_t nodes = static_cast<std::size_t>(model.mesh.n_nodes());
  py::dict out;
  out["displacement"] = per_node(result.displacement, dim);
  out["stress"] = per_node(result.recovery.stress, nodes == 0 ? 0 : result.recovery.stress.size() / nodes);
  out["von_mises"] = py::array_t<double>(static_cast<py::ssize_t>(result.recovery.von_mises.size()),
                                         result.recovery.von_mises.data());
  out["reaction"] = per_node(result.reaction, dim);
  out["applied"] = per_node(result.applied, dim);
  out["converged"] = result.cg.status == tremor::static_fe::CgStatus::Converged;
  out["status"] = std::string(tremor::static_fe::to_string(result.cg.status));
  out["iterations"] = result.cg.iterations;
  out["relative_residual"] = result.cg.relative_residual;
  out["residual_history"] = py::array_t<double>(static_cast<py::ssize_t>(result.cg.history.size()),
                                                result.cg.history.data());
  out["n_dofs"] = result.n_dofs;
  out["backend"] = std::string(tremor::name_of(result.settings.backend, tremor::backend_names));
  out["precision"] = std::string(tremor::to_string(result.settings.precision));
  out["preconditioner"] = std::string(tremor::name_of(result.settings.preconditioner, tremor::preconditioner_names));
  out["tolerance"] = result.settings.tolerance;
  out["warnings"] = result.warnings;
  return out;
}

// Complex values, 3 per item, as a numpy array [items][3].
py::array_t<std::complex<double>> triples(const std::vector<std::complex<double>>& values) {
  const std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(values.size() / 3), 3};
  return py::array_t<std::complex<double>>(shape, values.data());
}

// `output`: the result file to write as the run goes, as `tremor bem -o` does (record::BemRecording).
py::dict solve_bem(const py::object& model_path, const py::object& backend, const py::object& elements,
                   const py::object& solver, const py::object& tolerance, const py::object& allow_coarse,
                   const py::object& output_path) {
  const std::string path = path_arg("path", model_path);
  tremor::bem::RunOptions options;
  options.backend = tremor::BackendOverride::named(choice_arg("backend", backend));
  if (const auto e = optional_choice("elements", elements)) {
    // `tremor bem --elements`' choices.
    try {
      options.elements = tremor::parse_named(*e, tremor::bem_element_names, "element kind");
    } catch (const tremor::Error& error) {
      throw tremor::Error(tremor::str("elements: ", error.what()));
    }
  }
  if (const auto e = optional_choice("solver", solver)) {
    // `tremor bem --solver`' choices.
    try {
      options.solver = tremor::parse_named(*e, tremor::bem_solver_names, "solver");
    } catch (const tremor::Error& error) {
      throw tremor::Error(tremor::str("solver: ", error.what()));
    }
  }
  if (const auto t = optional_number("tolerance", tolerance, tremor::positive_number())) {
    if (*t >= 0.1) throw tremor::Error(tremor::str("tolerance: ", *t, " lies outside (0, 0.1)"));
    options.tolerance = *t;
  }
  options.allow_coarse = flag_arg("allow_coarse", allow_coarse);
  const std::optional<std::string> output = optional_path("output", output_path);
  PythonInterrupt<tremor::bem::Observer> interrupt;
  tremor::BemProblem problem;
  tremor::bem::Plan plan;
  tremor::bem::RunResult result;
  {
    py::gil_scoped_release released;
    std::optional<tremor::io::OutputClaim> claim;
    if (output) claim = tremor::io::claim_result_file(*output, false);
    problem = tremor::io::read_bem_model_file(path);
    plan = tremor::bem::plan_bem(problem, options);
    if (!output) {
      result = tremor::bem::run_bem(problem, plan, &interrupt);
    } else {
      tremor::record::BemRecording recording(problem, path, tremor::cli::git_commit, *output, std::move(*claim),
                                             &interrupt);
      result = tremor::bem::run_bem(problem, plan, &recording);
      recording.finish(result);
    }
  }
  interrupt.failure.rethrow();
  py::dict out;
  out["status"] = result.status == tremor::bem::RunStatus::Completed ? "complete"
                  : result.status == tremor::bem::RunStatus::Failed  ? "failed"
                                                                     : "stopped";
  out["message"] = result.message;
  out["centroids"] = per_node(plan.centroids, 3);
  out["normals"] = per_node(plan.normals, 3);
  out["areas"] = py::array_t<double>(static_cast<py::ssize_t>(plan.areas.size()), plan.areas.data());
  out["interior_points"] = per_node(plan.interior_points, 3);
  out["force_sets"] = plan.conditions.force_sets;
  py::list frequencies;
  for (const tremor::bem::FrequencySolution& s : result.frequencies) {
    py::dict f;
    f["frequency"] = s.frequency;
    f["displacement"] = triples(s.displacement);
    f["traction"] = triples(s.traction);
    f["interior"] = triples(s.interior);
    f["forces"] = triples(s.forces);
    f["stiffness"] = triples(s.stiffness);
    f["reciprocal_condition"] = s.result.compressed ? std::nan("") : s.result.solve.reciprocal_condition;
    f["gmres_iterations"] = s.result.compressed ? s.result.hmatrix.gmres.iterations : 0;
    f["wall_seconds"] = s.wall_seconds;
    frequencies.append(f);
  }
  out["frequencies"] = frequencies;
  out["setup_seconds"] = result.setup_seconds;
  out["solve_seconds"] = result.solve_seconds;
  out["backend"] = std::string(tremor::to_string(plan.exec.backend()));
  return out;
}

// A numpy array of `values` with `shape`, copied.
template <class T, class U>
py::array_t<T> array_of(const std::vector<U>& values, std::vector<py::ssize_t> shape) {
  py::array_t<T> out(shape);
  T* data = out.mutable_data();
  for (std::size_t i = 0; i < values.size(); ++i) data[i] = static_cast<T>(values[i]);
  return out;
}

template <class T>
py::array_t<T> vector_of(const std::vector<T>& values) {
  return array_of<T>(values, {static_cast<py::ssize_t>(values.size())});
}

py::dict sets_of(const std::map<std::string, std::vector<tremor::Index>>& sets) {
  py::dict out;
  for (const auto& [name, members] : sets) out[py::str(name)] = array_of<std::int64_t>(members, {static_cast<py::ssize_t>(members.size())});
  return out;
}

// "got 1 dimension", "got 2 dimensions [3][5]": an array's shape in a message.
std::string shape_of(const py::array& array) {
  std::string out = tremor::str(array.ndim(), " dimension", array.ndim() == 1 ? "" : "s");
  if (array.ndim() == 2) out += tremor::str(" [", array.shape(0), "][", array.shape(1), "]");
  return out;
}

// A 2D array's shape checked: `columns` columns (0: any), naming `what`.
void check_rows(const py::array& array, int columns, const std::string& what) {
  if (array.ndim() != 2 || (columns > 0 && array.shape(1) != columns))
    throw tremor::Error(tremor::str(what, " must be an array of shape [n][",
                                    columns > 0 ? std::to_string(columns) : "k", "], got ", shape_of(array)));
}

// A 2D array of numbers as a row-major vector of doubles, checked to have `columns` columns.
std::vector<double> real_rows(const py::handle& object, int columns, const std::string& what, py::ssize_t& rows) {
  const auto array = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(object);
  if (!array) throw tremor::Error(tremor::str(what, " must be an array of numbers"));
  check_rows(array, columns, what);
  rows = array.shape(0);
  return std::vector<double>(array.data(), array.data() + array.size());
}

// An array of whole numbers (indices, labels) as int64, each exactly what was given: a float
// array's values must be whole (3.7 is no index), unsigned ones at most 2^63 - 1; booleans,
// strings and Python ints beyond 64 bits are refused. Any shape; the caller checks it.
py::array_t<std::int64_t> whole_array(const py::handle& object, const std::string& what) {
  using Int64 = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
  const py::array array = py::array::ensure(object);
  const auto refuse = [&](const std::string& why) -> py::array_t<std::int64_t> {
    throw tremor::Error(tremor::str(what, " must be an array of whole numbers (", why, ")"));
  };
  if (!array) return refuse(tremor::str("got ", py::type::of(object).attr("__name__").cast<std::string>(), " ",
                                        shown(object)));
  if (array.size() == 0) return Int64::ensure(array);  // [] is float64 to numpy
  const char kind = array.dtype().kind();
  if (kind == 'i') return Int64::ensure(array);
  if (kind == 'u') {
    const auto values = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>::ensure(array);
    for (py::ssize_t k = 0; k < values.size(); ++k)
      if (values.data()[k] > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return refuse(tremor::str("item ", k, " is ", values.data()[k], ", beyond 2^63 - 1"));
    return Int64::ensure(array);
  }
  if (kind == 'f') {
    const auto values = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(array);
    Int64 out(std::vector<py::ssize_t>(array.shape(), array.shape() + array.ndim()));
    for (py::ssize_t k = 0; k < values.size(); ++k) {
      const double x = values.data()[k];
      // 2^63 is the first double beyond int64; a non-whole or non-finite value is no index.
      if (!(std::trunc(x) == x && std::abs(x) < 9223372036854775808.0))
        return refuse(tremor::str("item ", k, " is ", x));
      out.mutable_data()[k] = static_cast<std::int64_t>(x);
    }
    return out;
  }
  return refuse(tremor::str("got an array of ", py::str(array.dtype()).cast<std::string>()));
}

std::vector<std::int64_t> whole_rows(const py::handle& object, int columns, const std::string& what,
                                     py::ssize_t& rows) {
  const py::array_t<std::int64_t> array = whole_array(object, what);
  // An empty list is one dimension to numpy: no rows.
  if (array.size() == 0 && array.ndim() == 1) {
    rows = 0;
    return {};
  }
  check_rows(array, columns, what);
  rows = array.shape(0);
  return std::vector<std::int64_t>(array.data(), array.data() + array.size());
}

std::vector<std::int64_t> whole_list(const py::handle& object, const std::string& what) {
  const py::array_t<std::int64_t> array = whole_array(object, what);
  if (array.ndim() != 1)
    throw tremor::Error(tremor::str(what, " must be a 1D array of whole numbers, got ", shape_of(array)));
  return std::vector<std::int64_t>(array.data(), array.data() + array.size());
}

// A set's indices (0-based) checked against `count` items ("node", "element") before they are
// narrowed to tremor::Index.
std::vector<tremor::Index> indices_of(const std::vector<std::int64_t>& values, std::int64_t count, const char* item,
                                      const std::string& what) {
  std::vector<tremor::Index> out;
  out.reserve(values.size());
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (values[k] < 0 || values[k] >= count)
      throw tremor::Error(tremor::str(what, ": item ", k, " is ", item, " index ", values[k], "; the mesh has ", count,
                                      " ", item, "s (indices from 0)"));
    out.push_back(static_cast<tremor::Index>(values[k]));
  }
  return out;
}

// A dict's names (sets, surfaces) as strings.
std::string name_of(const py::handle& key, const std::string& what) { return text_arg(what + ": a name", key); }

// A mesh from numpy arrays (tremor.Mesh): nodes [n][dim]; blocks, each (element name,
// connectivity [elements][nodes per element], labels or None); sets of 0-based node and element
// indices; surfaces as [faces][2] (element index, face number). Labels default to 1, 2, ... in
// order (elements numbered on across blocks). Checked as a mesh file's: indices in range, sets
// and faces valid, one dimension.
tremor::Mesh mesh_of(const py::handle& nodes, const py::handle& node_labels, const py::list& blocks,
                     const py::dict& node_sets, const py::dict& element_sets, const py::dict& surfaces) {
  using tremor::Index;
  using tremor::str;
  py::ssize_t n = 0;
  std::vector<double> coordinates = real_rows(nodes, 0, "nodes (coordinates, m, 2 or 3 per node)", n);
  const std::size_t dim = n > 0 ? coordinates.size() / static_cast<std::size_t>(n) : 3;
  if (dim != 2 && dim != 3)
    throw tremor::Error(str("nodes must be an array of shape [n][2] or [n][3] (coordinates, m), got [", n, "][", dim, "]"));
  if (n > std::numeric_limits<Index>::max())
    throw tremor::Error(str("nodes: ", n, " nodes is more than a mesh holds (", std::numeric_limits<Index>::max(), ")"));
  tremor::Mesh mesh(static_cast<int>(dim));
  mesh.coordinates = std::move(coordinates);
  for (std::size_t i = 0; i < mesh.coordinates.size(); ++i)
    if (!std::isfinite(mesh.coordinates[i]))
      throw tremor::Error(str("nodes[", i / dim, "][", i % dim, "] is ",
                              mesh.coordinates[i], ": coordinates must be finite"));
  if (node_labels.is_none()) {
    for (py::ssize_t i = 0; i < n; ++i) mesh.node_labels.push_back(i + 1);
  } else {
    mesh.node_labels = whole_list(node_labels, "node_labels");
    if (static_cast<py::ssize_t>(mesh.node_labels.size()) != n)
      throw tremor::Error(str("node_labels has ", mesh.node_labels.size(), " labels for ", n, " nodes"));
  }
  tremor::Label next_label = 1;
  std::int64_t n_elements = 0;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    if (!py::isinstance<py::tuple>(blocks[b]) || py::len(blocks[b]) < 2 || py::len(blocks[b]) > 3)
      wrong_type(str("blocks[", b, "]"), "a tuple (element, connectivity) or (element, connectivity, labels)",
                 blocks[b]);
    const auto block = blocks[b].cast<py::tuple>();
    const std::string name = text_arg(str("blocks[", b, "]: the element"), block[0]);
    tremor::ElementType type{};
    int order = 1;
    try {
      tremor::parse_element_name(name, type, order);
    } catch (const tremor::Error& e) {
      throw tremor::Error(str("block ", b + 1, ": ", e.what()));
    }
    tremor::ElementBlock& out = mesh.block_for(type, order);
    py::ssize_t rows = 0;
    const int per = tremor::nodes_per_element(type, order);
    const std::vector<std::int64_t> connectivity =
        whole_rows(block[1], per, str("block ", b + 1, " (", name, "): the connectivity"), rows);
    for (std::size_t k = 0; k < connectivity.size(); ++k) {
      if (connectivity[k] < 0 || connectivity[k] >= n)
        throw tremor::Error(str("block ", b + 1, " (", name, "): element ", k / static_cast<std::size_t>(per),
                                " refers to node index ", connectivity[k], "; the mesh has ", n, " nodes (indices from 0)"));
      out.connectivity.push_back(static_cast<Index>(connectivity[k]));
    }
    if (block.size() > 2 && !block[2].is_none()) {
      const std::vector<tremor::Label> labels = whole_list(block[2], str("block ", b + 1, ": labels"));
      if (static_cast<py::ssize_t>(labels.size()) != rows)
        throw tremor::Error(str("block ", b + 1, " (", name, "): ", labels.size(), " labels for ", rows, " elements"));
      out.labels.insert(out.labels.end(), labels.begin(), labels.end());
    } else {
      for (py::ssize_t e = 0; e < rows; ++e) out.labels.push_back(next_label + e);
    }
    next_label += rows;
    n_elements += rows;
    if (n_elements > std::numeric_limits<Index>::max())
      throw tremor::Error(str("blocks: ", n_elements, " elements is more than a mesh holds (",
                              std::numeric_limits<Index>::max(), ")"));
  }
  const auto members = [&](const py::dict& sets, const char* what, const char* item, std::int64_t count,
                           std::map<std::string, std::vector<Index>>& into) {
    for (const auto& [key, value] : sets) {
      const std::string name = name_of(key, what);
      std::vector<Index> list = indices_of(whole_list(value, str(what, " '", name, "'")), count, item,
                                           str(what, " '", name, "'"));
      tremor::normalise_set(list);
      into[name] = std::move(list);
    }
  };
  members(node_sets, "node set", "node", n, mesh.node_sets);
  members(element_sets, "element set", "element", n_elements, mesh.element_sets);
  for (const auto& [key, value] : surfaces) {
    const std::string name = name_of(key, "surface");
    const std::string what = str("surface '", name, "' ([faces][2]: element index, face)");
    py::ssize_t rows = 0;
    const std::vector<std::int64_t> pairs = whole_rows(value, 2, what, rows);
    std::vector<tremor::Face> faces;
    for (py::ssize_t f = 0; f < rows; ++f) {
      const std::int64_t element = pairs[static_cast<std::size_t>(2 * f)];
      const std::int64_t face = pairs[static_cast<std::size_t>(2 * f + 1)];
      if (element < 0 || element >= n_elements)
        throw tremor::Error(str(what, ": row ", f, " is element index ", element, "; the mesh has ", n_elements,
                                " elements (indices from 0)"));
      const tremor::ElementBlock& block = mesh.blocks[static_cast<std::size_t>(mesh.locate(static_cast<Index>(element)).block)];
      if (face < 0 || face >= tremor::n_faces(block.type))
        throw tremor::Error(str(what, ": row ", f, " is face ", face, " of element index ", element, ", a ",
                                tremor::element_name(block.type, block.order), " with faces 0..",
                                tremor::n_faces(block.type) - 1));
      faces.push_back({static_cast<Index>(element), static_cast<int>(face)});
    }
    tremor::normalise_faces(faces);
    mesh.face_sets[name] = std::move(faces);
  }
  mesh.validate("tremor.Mesh");
  return mesh;
}

}  // namespace

PYBIND11_MODULE(_tremor, m) {
  m.doc() = "tremor's solvers (docs/python.md)";
  m.attr("version") = TREMOR_VERSION;
  // The bytes a model's text may hold (model files and models built in Python alike).
  m.attr("largest_model_text") = static_cast<unsigned long long>(tremor::io::largest_model_text);
  py::register_exception<tremor::Error>(m, "Error");

  py::class_<tremor::Mesh>(m, "_Mesh")
      .def_property_readonly("dim", &tremor::Mesh::dim)
      .def_property_readonly("n_nodes", &tremor::Mesh::n_nodes)
      .def_property_readonly("n_elements", &tremor::Mesh::n_elements)
      .def_property_readonly("nodes",
                             [](const tremor::Mesh& mesh) {
                               return per_node(mesh.coordinates, static_cast<std::size_t>(mesh.dim()));
                             })
      .def_property_readonly("node_labels", [](const tremor::Mesh& mesh) { return vector_of(mesh.node_labels); })
      .def_property_readonly("blocks",
                             [](const tremor::Mesh& mesh) {
                               py::list out;
                               for (const tremor::ElementBlock& block : mesh.blocks) {
                                 if (block.n_elements() == 0) continue;
                                 out.append(py::make_tuple(
                                     tremor::element_name(block.type, block.order),
                                     array_of<std::int64_t>(block.connectivity, {block.n_elements(), block.n_element_nodes()}),
                                     vector_of(block.labels)));
                               }
                               return out;
                             })
      .def_property_readonly("node_sets", [](const tremor::Mesh& mesh) { return sets_of(mesh.node_sets); })
      .def_property_readonly("element_sets", [](const tremor::Mesh& mesh) { return sets_of(mesh.element_sets); })
      .def_property_readonly("surfaces", [](const tremor::Mesh& mesh) {
        py::dict out;
        for (const auto& [name, faces] : mesh.face_sets) {
          py::array_t<std::int64_t> pairs({static_cast<py::ssize_t>(faces.size()), py::ssize_t(2)});
          auto p = pairs.mutable_unchecked<2>();
          for (std::size_t f = 0; f < faces.size(); ++f) {
            p(static_cast<py::ssize_t>(f), 0) = faces[f].element;
            p(static_cast<py::ssize_t>(f), 1) = faces[f].face;
          }
          out[py::str(name)] = pairs;
        }
        return out;
      });
  // The argument checks, for the package's functions written in Python.
  m.def("_path", [](const std::string& name, const py::object& value) { return path_arg(name, value); });
  m.def("_real", [](const std::string& name, const py::object& value) { return real_of(name, value); });
  m.def("_index", [](const std::string& name, const py::object& value) { return index_of(name, value); });
  m.def("_text", [](const std::string& name, const py::object& value) { return text_arg(name, value); });
  m.def("_mesh", &mesh_of, py::arg("nodes"), py::arg("node_labels"), py::arg("blocks"), py::arg("node_sets"),
        py::arg("element_sets"), py::arg("surfaces"));
  m.def(
      "_compile",
      [](const std::string& text, const std::string& name, const std::string& base_dir, std::optional<int> order,
         const tremor::Mesh* mesh) {
        tremor::io::check_model_text(name, text.size());
        py::gil_scoped_release released;
        return tremor::io::read_model_buffer(text, name, base_dir, order, mesh);
      },
      py::arg("text"), py::arg("name"), py::arg("base_dir"), py::arg("order"), py::arg("mesh"));

  py::class_<tremor::Model>(m, "_Model")
      .def_static(
          "load",
          [](const py::object& path_given, const py::object& order_given) {
            const std::string path = path_arg("path", path_given);
            // `--order`'s rule (cli/options.cpp).
            const std::optional<long long> order =
                optional_whole("order", order_given, tremor::whole_number(1, tremor::max_gll_order));
            py::gil_scoped_release released;
            return tremor::io::load_model(path, order ? std::optional<int>(static_cast<int>(*order)) : std::nullopt);
          },
          py::arg("path"), py::arg("order") = py::none(),
          "Reads a model file (.toml), an Abaqus/CalculiX input (.inp) or a Gmsh mesh (.msh); order raises "
          "it to GLL elements of that order")
      .def_property_readonly("title", [](const tremor::Model& model) { return model.title; })
      .def_property_readonly("mesh", [](const tremor::Model& model) -> const tremor::Mesh& { return model.mesh; },
                             py::return_value_policy::reference_internal)
      .def_property_readonly("source", [](const tremor::Model& model) { return model.source; })
      .def_property_readonly("dim", [](const tremor::Model& model) { return model.mesh.dim(); })
      .def_property_readonly("n_nodes", [](const tremor::Model& model) { return model.mesh.n_nodes(); })
      .def_property_readonly("n_elements", [](const tremor::Model& model) { return model.mesh.n_elements(); })
      .def_property_readonly("n_dofs",
                             [](const tremor::Model& model) { return model.mesh.n_nodes() * model.mesh.dim(); })
      .def_property_readonly("receivers",
                             [](const tremor::Model& model) {
                               std::vector<std::string> names;
                               for (const tremor::Receiver& r : model.receivers) names.push_back(r.name);
                               return names;
                             })
      .def_property_readonly("shots",
                             [](const tremor::Model& model) {
                               std::vector<std::string> names;
                               for (const tremor::Shot& s : model.shots) names.push_back(s.name);
                               return names;
                             })
      .def("__repr__", [](const tremor::Model& model) {
        return tremor::str("<tremor.Model ", model.source, ": ", model.mesh.dim(), "D, ", model.mesh.n_nodes(),
                           " nodes, ", model.mesh.n_elements(), " elements>");
      });

  m.def("_static", &solve_static, py::arg("model"), py::arg("backend"), py::arg("precision"),
        py::arg("preconditioner"), py::arg("tolerance"), py::arg("max_iterations"), py::arg("output"),
        py::arg("model_path"), py::arg("model_bytes"));
  m.def("_bem", &solve_bem, py::arg("path"), py::arg("backend"), py::arg("elements"), py::arg("solver"),
        py::arg("tolerance"), py::arg("allow_coarse"), py::arg("output"));
  m.def(
      "_write_text",
      [](const std::string& path, const std::string& text, const std::string& what) {
        py::gil_scoped_release released;
        tremor::io::write_file_atomically(path, text, what.c_str());
      },
      py::arg("path"), py::arg("text"), py::arg("what"));
  m.def(
      "_write_mesh",
      [](const tremor::Mesh& mesh, const std::string& path) {
        py::gil_scoped_release released;
        tremor::io::write_abaqus_mesh(mesh, path);
      },
      py::arg("mesh"), py::arg("path"));
  py::class_<PythonSimulation>(m, "_Simulation")
      .def(py::init<const tremor::Model&, const py::object&, const py::object&, const py::object&, const py::object&>(),
           py::arg("model"), py::arg("backend"), py::arg("precision"), py::arg("operator"), py::arg("time_step"))
      .def("run", &PythonSimulation::run, py::arg("text"), py::arg("name"), py::arg("base_dir"), py::arg("duration"),
           py::arg("check_every"), py::arg("progress"))
      .def_property_readonly("setup_seconds", [](const PythonSimulation& s) { return s.simulation().setup_seconds(); })
      .def_property_readonly("dt", [](const PythonSimulation& s) { return s.simulation().preflight().dt; })
      .def_property_readonly("n_dofs", [](const PythonSimulation& s) { return s.simulation().preflight().n_dofs; })
      .def_property_readonly("backend",
                             [](const PythonSimulation& s) { return std::string(tremor::to_string(s.simulation().preflight().backend)); })
      .def_property_readonly("precision",
                             [](const PythonSimulation& s) { return std::string(tremor::to_string(s.simulation().preflight().precision)); })
      .def_property_readonly("operator",
                             [](const PythonSimulation& s) { return std::string(s.simulation().preflight().operator_kind()); });
  // imaging::total_focusing on a capture as flat arrays: `data` n x n x n_samples values, `elements`
  // n x 2 (tremor.total_focusing has checked their shapes); the image as [ny][nx].
  m.def(
      "_total_focusing",
      [](const py::array_t<double, py::array::c_style | py::array::forcecast>& data,
         const py::array_t<double, py::array::c_style | py::array::forcecast>& elements, std::size_t n_samples,
         double t0, double dt, tremor::Index nx, tremor::Index ny, std::array<double, 2> min, std::array<double, 2> max,
         double c_transmit, double c_receive) {
        tremor::imaging::Fmc fmc;
        const auto n = static_cast<std::size_t>(elements.size()) / 2;
        for (std::size_t i = 0; i < n; ++i) fmc.elements.push_back({elements.data()[2 * i], elements.data()[2 * i + 1]});
        fmc.t0 = t0;
        fmc.dt = dt;
        fmc.n_samples = n_samples;
        fmc.data.assign(data.data(), data.data() + data.size());
        tremor::imaging::GridMap image;
        {
          py::gil_scoped_release released;
          image = tremor::imaging::total_focusing(fmc, nx, ny, min, max, c_transmit, c_receive);
        }
        return py::array_t<double>({static_cast<py::ssize_t>(ny), static_cast<py::ssize_t>(nx)}, image.values.data());
      },
      py::arg("data"), py::arg("elements"), py::arg("n_samples"), py::arg("t0"), py::arg("dt"), py::arg("nx"),
      py::arg("ny"), py::arg("min"), py::arg("max"), py::arg("c_transmit"), py::arg("c_receive"));
  m.def("_run", &run, py::arg("model"), py::arg("backend"), py::arg("precision"), py::arg("operator"),
        py::arg("duration"), py::arg("time_step"), py::arg("check_every"), py::arg("progress"), py::arg("output"),
        py::arg("model_path"), py::arg("model_bytes"));
}
