// The compiled part of the `tremor` Python package (docs/python.md): models read by the library's
// readers, explicit runs whose histories come back as numpy arrays, static and boundary-element
// solutions. tremor::Error becomes tremor.Error with the same text. The GIL is released while a
// solver works; a progress callback, and Python's signal handlers (Ctrl-C), run every few steps
// (between frequencies for boundary elements) with the GIL held, and an exception raised there
// stops the run there and is raised from the call.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <complex>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/explicit/receivers.hpp"
#include "tremor/explicit/simulation.hpp"
#include "tremor/io/abaqus_writer.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/record/bem_run.hpp"
#include "tremor/record/explicit_run.hpp"
#include "tremor/record/static_solution.hpp"
#include "tremor/cli/git_commit.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/load.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/mesh/element_type.hpp"
#include "tremor/mesh/faces.hpp"
#include "tremor/mesh/mesh.hpp"
#include "tremor/model/model.hpp"
#include "tremor/static/solve.hpp"
#include "tremor/bem/driver.hpp"
#include "tremor/io/bem_model_file.hpp"

namespace py = pybind11;
namespace ex = tremor::explicit_fe;

namespace {

// A history as numpy arrays: times [samples], values [samples][points][quantities][dim].
py::dict history_dict(const ex::History& h) {
  py::dict out;
  out["name"] = h.name;
  out["times"] = py::array_t<double>(static_cast<py::ssize_t>(h.times.size()), h.times.data());
  const auto samples = static_cast<py::ssize_t>(h.n_samples());
  const std::vector<py::ssize_t> shape{samples, static_cast<py::ssize_t>(h.n_points()),
                                       static_cast<py::ssize_t>(h.quantities.size()), h.dim};
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
                         std::vector<double>(snapshot.velocity.begin(), snapshot.velocity.end())});
  }
  struct Kept {
    long long step = 0;
    double time = 0.0;
    std::vector<double> displacement, velocity;
  };
  std::vector<Kept> snapshots;
  PythonFailure failure;

 private:
  py::object progress_;
  bool keep_snapshots_;
};

py::dict run_dict(const ex::ExplicitRun& result, const tremor::Model& model);
py::array_t<double> per_node(const std::vector<double>& values, std::size_t width);
template <class T>
py::array_t<T> vector_of(const std::vector<T>& values);

// `output`: the result file to record the run into, as `tremor run -o` does (the command's
// writer: record::Recording); `model_path` and `model_bytes` identify the model in its metadata.
py::dict run(const tremor::Model& model, const std::string& backend, const std::optional<std::string>& precision,
             const std::optional<std::string>& operator_kind, const std::optional<double>& duration,
             const std::optional<double>& time_step, int check_every, py::object progress,
             const std::optional<std::string>& output, const std::string& model_path, const std::string& model_bytes) {
  ex::RunOptions options;
  options.backend = backend;
  if (precision) options.precision = *precision;
  if (operator_kind) options.operator_kind = *operator_kind;
  if (duration) options.duration = *duration;
  if (time_step) options.time_step = *time_step;
  options.check_every = check_every;
  PythonObserver observer(std::move(progress), /*keep_snapshots=*/!output);
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
  // Snapshots as [nodes][dim] arrays, at the model's snapshot nodes (None: every node).
  const auto dim = static_cast<std::size_t>(model.mesh.dim());
  py::list snapshots;
  for (const PythonObserver::Kept& s : observer.snapshots) {
    py::dict one;
    one["step"] = s.step;
    one["time"] = s.time;
    one["displacement"] = per_node(s.displacement, dim);
    one["velocity"] = s.velocity.empty() ? py::object(py::none()) : py::object(per_node(s.velocity, dim));
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
  PythonSimulation(const tremor::Model& model, const std::string& backend, const std::optional<std::string>& precision,
                   const std::optional<std::string>& operator_kind, const std::optional<double>& time_step) {
    ex::RunOptions options;
    options.backend = backend;
    if (precision) options.precision = *precision;
    if (operator_kind) options.operator_kind = *operator_kind;
    if (time_step) options.time_step = *time_step;
    py::gil_scoped_release released;
    simulation_ = std::make_unique<ex::Simulation>(model, options);
  }
  py::dict run(const std::optional<std::string>& text, const std::string& name, const std::string& base_dir,
               const std::optional<double>& duration, int check_every, py::object progress) {
    ex::RunOptions options;
    if (duration) options.duration = *duration;
    options.check_every = check_every;
    PythonObserver observer(std::move(progress));
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
                  : result.status == ex::RunStatus::NonFinite ? "failed"
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

// The Ctrl-C of a static solve running on this thread (CG polls a plain function between
// iterations, which runs Python's signal handlers with the GIL).
thread_local PythonFailure* static_interrupt = nullptr;

// `output`: the result file to write, as `tremor static -o` does (record::write_static_result).
py::dict solve_static(const tremor::Model& model, const std::string& backend, const std::optional<std::string>& precision,
                      const std::optional<std::string>& preconditioner, const std::optional<double>& tolerance,
                      const std::optional<int>& max_iterations, const std::optional<std::string>& output,
                      const std::string& model_path, const std::string& model_bytes) {
  tremor::static_fe::SolveOptions options;
  options.backend = backend;
  if (precision) options.precision = *precision;
  if (preconditioner) options.preconditioner = *preconditioner;
  options.tolerance = tolerance;
  options.max_iterations = max_iterations;
  PythonFailure interrupt;
  static_interrupt = &interrupt;
  struct Forget {
    ~Forget() { static_interrupt = nullptr; }
  } const forget;
  options.stop_requested = [] {
    py::gil_scoped_acquire gil;
    return static_interrupt->check_signals();
  };
  tremor::static_fe::StaticResult result;
  {
    py::gil_scoped_release released;
    // Claimed before the solve; the file is created after it, so a refused model leaves none.
    std::optional<tremor::io::OutputClaim> claim;
    if (output) claim = tremor::io::claim_result_file(*output, false);
    result = tremor::static_fe::solve_static(model, options);
    if (output) {
      tremor::io::RunMetadata metadata;
      metadata.git_commit = tremor::cli::git_commit;
      metadata.model_path = model_path;
      metadata.model_hash = tremor::record::model_hash(model_bytes, model);
      tremor::record::write_static_result(*output, std::move(*claim), model, metadata, result);
    }
  }
  interrupt.rethrow();  // Ctrl-C: the last iterate was written as incomplete
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
  out["backend"] = result.settings.backend;
  out["precision"] = result.settings.precision;
  out["preconditioner"] = result.settings.preconditioner;
  out["tolerance"] = result.settings.tolerance;
  out["warnings"] = result.warnings;
  return out;
}

// Complex values, 3 per item, as a numpy array [items][3].
py::array_t<std::complex<double>> triples(const std::vector<std::complex<double>>& values) {
  const std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(values.size() / 3), 3};
  return py::array_t<std::complex<double>>(shape, values.data());
}

// Stops a boundary-element run between frequencies on Ctrl-C (Python's signal handlers, run with
// the GIL).
class BemInterrupt final : public tremor::bem::Observer {
 public:
  bool stop_requested() override {
    py::gil_scoped_acquire gil;
    return failure.check_signals();
  }
  PythonFailure failure;
};

// `output`: the result file to write as the run goes, as `tremor bem -o` does (record::BemRecording).
py::dict solve_bem(const std::string& path, const std::string& backend, const std::optional<std::string>& elements,
                   bool allow_coarse, const std::optional<std::string>& output) {
  tremor::bem::RunOptions options;
  options.backend = backend;
  if (elements) options.elements = *elements;
  options.allow_coarse = allow_coarse;
  BemInterrupt interrupt;
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
    f["reciprocal_condition"] = s.result.solve.reciprocal_condition;
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

// A 2D array's rows as a vector, row-major, checked to have `columns` columns (0: any), naming
// `what` in the message.
template <class T>
std::vector<T> rows_of(const py::handle& object, int columns, const std::string& what, py::ssize_t& rows) {
  const auto array = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(object);
  if (!array) throw tremor::Error(tremor::str(what, " must be an array of numbers"));
  if (array.ndim() != 2 || (columns > 0 && array.shape(1) != columns))
    throw tremor::Error(tremor::str(what, " must be an array of shape [n][", columns > 0 ? std::to_string(columns) : "k",
                                    "], got ", array.ndim(), " dimension", array.ndim() == 1 ? "" : "s",
                                    array.ndim() == 2 ? tremor::str(" [", array.shape(0), "][", array.shape(1), "]") : ""));
  rows = array.shape(0);
  return std::vector<T>(array.data(), array.data() + array.size());
}

template <class T>
std::vector<T> list_of(const py::handle& object, const std::string& what) {
  const auto array = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(object);
  if (!array || array.ndim() != 1) throw tremor::Error(tremor::str(what, " must be a 1D array of integers"));
  return std::vector<T>(array.data(), array.data() + array.size());
}

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
  std::vector<double> coordinates = rows_of<double>(nodes, 0, "nodes (coordinates, m, 2 or 3 per node)", n);
  const std::size_t dim = n > 0 ? coordinates.size() / static_cast<std::size_t>(n) : 3;
  if (dim != 2 && dim != 3)
    throw tremor::Error(str("nodes must be an array of shape [n][2] or [n][3] (coordinates, m), got [", n, "][", dim, "]"));
  tremor::Mesh mesh(static_cast<int>(dim));
  mesh.coordinates = std::move(coordinates);
  for (std::size_t i = 0; i < mesh.coordinates.size(); ++i)
    if (!std::isfinite(mesh.coordinates[i]))
      throw tremor::Error(str("nodes[", i / dim, "][", i % dim, "] is ",
                              mesh.coordinates[i], ": coordinates must be finite"));
  if (node_labels.is_none()) {
    for (py::ssize_t i = 0; i < n; ++i) mesh.node_labels.push_back(i + 1);
  } else {
    mesh.node_labels = list_of<tremor::Label>(node_labels, "node_labels");
    if (static_cast<py::ssize_t>(mesh.node_labels.size()) != n)
      throw tremor::Error(str("node_labels has ", mesh.node_labels.size(), " labels for ", n, " nodes"));
  }
  tremor::Label next_label = 1;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const auto block = blocks[b].cast<py::tuple>();
    const std::string name = block[0].cast<std::string>();
    tremor::ElementType type{};
    int order = 1;
    try {
      tremor::parse_element_name(name, type, order);
    } catch (const tremor::Error& e) {
      throw tremor::Error(str("block ", b + 1, ": ", e.what()));
    }
    tremor::ElementBlock& out = mesh.block_for(type, order);
    py::ssize_t rows = 0;
    const std::vector<std::int64_t> connectivity =
        rows_of<std::int64_t>(block[1], tremor::nodes_per_element(type, order),
                              str("block ", b + 1, " (", name, "): the connectivity"), rows);
    for (std::size_t k = 0; k < connectivity.size(); ++k) {
      if (connectivity[k] < 0 || connectivity[k] >= n)
        throw tremor::Error(str("block ", b + 1, " (", name, "): element ", k / static_cast<std::size_t>(tremor::nodes_per_element(type, order)),
                                " refers to node index ", connectivity[k], "; the mesh has ", n, " nodes (indices from 0)"));
      out.connectivity.push_back(static_cast<Index>(connectivity[k]));
    }
    if (block.size() > 2 && !block[2].is_none()) {
      const std::vector<tremor::Label> labels = list_of<tremor::Label>(block[2], str("block ", b + 1, ": labels"));
      if (static_cast<py::ssize_t>(labels.size()) != rows)
        throw tremor::Error(str("block ", b + 1, " (", name, "): ", labels.size(), " labels for ", rows, " elements"));
      out.labels.insert(out.labels.end(), labels.begin(), labels.end());
    } else {
      for (py::ssize_t e = 0; e < rows; ++e) out.labels.push_back(next_label + e);
    }
    next_label += rows;
  }
  const auto members = [](const py::dict& sets, const char* what, std::map<std::string, std::vector<Index>>& into) {
    for (const auto& [key, value] : sets) {
      const std::string name = key.cast<std::string>();
      std::vector<Index> list;
      for (const std::int64_t i : list_of<std::int64_t>(value, str(what, " '", name, "'"))) list.push_back(static_cast<Index>(i));
      tremor::normalise_set(list);
      into[name] = std::move(list);
    }
  };
  members(node_sets, "node set", mesh.node_sets);
  members(element_sets, "element set", mesh.element_sets);
  for (const auto& [key, value] : surfaces) {
    const std::string name = key.cast<std::string>();
    py::ssize_t rows = 0;
    const std::vector<std::int64_t> pairs = rows_of<std::int64_t>(value, 2, str("surface '", name, "' ([faces][2]: element index, face)"), rows);
    std::vector<tremor::Face> faces;
    for (py::ssize_t f = 0; f < rows; ++f)
      faces.push_back({static_cast<Index>(pairs[2 * f]), static_cast<int>(pairs[2 * f + 1])});
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
  m.def("_mesh", &mesh_of, py::arg("nodes"), py::arg("node_labels"), py::arg("blocks"), py::arg("node_sets"),
        py::arg("element_sets"), py::arg("surfaces"));
  m.def(
      "_compile",
      [](const std::string& text, const std::string& name, const std::string& base_dir, std::optional<int> order,
         const tremor::Mesh* mesh) {
        py::gil_scoped_release released;
        return tremor::io::read_model_buffer(text, name, base_dir, order, mesh);
      },
      py::arg("text"), py::arg("name"), py::arg("base_dir"), py::arg("order"), py::arg("mesh"));

  py::class_<tremor::Model>(m, "_Model")
      .def_static(
          "load",
          [](const std::string& path, std::optional<int> order) {
            py::gil_scoped_release released;
            return tremor::io::load_model(path, order);
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
  m.def("_bem", &solve_bem, py::arg("path"), py::arg("backend"), py::arg("elements"), py::arg("allow_coarse"),
        py::arg("output"));
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
      .def(py::init<const tremor::Model&, const std::string&, const std::optional<std::string>&,
                    const std::optional<std::string>&, const std::optional<double>&>(),
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
  m.def("_run", &run, py::arg("model"), py::arg("backend"), py::arg("precision"), py::arg("operator"),
        py::arg("duration"), py::arg("time_step"), py::arg("check_every"), py::arg("progress"), py::arg("output"),
        py::arg("model_path"), py::arg("model_bytes"));
}
