#include "tremor/explicit/solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
#include <set>
#include <utility>

#include "tremor/backend/forall.hpp"
#include "tremor/backend/reduce.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/central_difference.hpp"
#include "tremor/explicit/loading.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/partitioned_operator.hpp"
#include "tremor/explicit/snapshots.hpp"
#include "tremor/fem/geometry.hpp"
#include "tremor/fem/time_step.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/mesh/reorder.hpp"
#include "tremor/model/renumber.hpp"
#include "tremor/partition/block_file.hpp"
#include "tremor/sparse/assemble.hpp"

namespace tremor::explicit_fe {

Observer::~Observer() = default;

namespace {

void warn(Preflight& preflight, const std::string& message) {
  preflight.warnings.push_back(message);
  log::warn(message);
}

// Three significant digits, for messages about estimates.
std::string brief(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

Exec make_exec(const std::string& backend) {
  if (backend == "auto") return cuda_device_count() > 0 ? Exec::cuda() : Exec::openmp();
  if (backend == "openmp") return Exec::openmp();
  if (backend == "serial") return Exec::serial();
  if (backend == "cuda") return Exec::cuda();  // throws, saying why, without a usable GPU
  throw Error(str("unknown backend '", backend, "': expected auto, serial, openmp or cuda"));
}

// Settings, time step and the numbers that need no operator; memory_bytes left 0.
Preflight resolve(const Model& model, const RunOptions& options) {
  Preflight p;
  const ExplicitSettings defaults;
  const ExplicitSettings& settings = model.explicit_settings ? *model.explicit_settings : defaults;
  p.precision = !options.precision.empty() ? options.precision : settings.precision;
  p.operator_kind = !options.operator_kind.empty() ? options.operator_kind : settings.operator_kind;
  p.backend = !options.backend.empty() ? options.backend : settings.backend;
  p.ordering = !options.ordering.empty() ? options.ordering : settings.ordering;
  TREMOR_CHECK(p.ordering == "none" || p.ordering == "rcm", "unknown node ordering '", p.ordering,
               "': expected none or rcm");
  TREMOR_CHECK(p.precision == "double" || p.precision == "float", "unknown precision '", p.precision,
               "': expected double or float");
  const auto kinds = stiffness_operator_kinds();
  TREMOR_CHECK(p.operator_kind == "auto" || std::find(kinds.begin(), kinds.end(), p.operator_kind) != kinds.end(),
               "unknown stiffness operator '", p.operator_kind, "': expected \"auto\" or one of ",
               explicit_operator_list());
  const Backend backend = make_exec(p.backend).backend();
  p.backend = std::string(to_string(backend));  // "auto" resolved to what runs
  if (p.operator_kind == "auto") p.operator_kind = default_operator_kind(backend);
  p.blocks = !options.blocks.empty() ? options.blocks : settings.blocks;
  if (!p.blocks.empty() && p.operator_kind != "partitioned") {
    warn(p, str("block file ", p.blocks, " is not used: the operator is ", p.operator_kind,
                " (a block file serves the partitioned operator)"));
    p.blocks.clear();
  }
  TREMOR_CHECK(p.operator_kind != "cusparse" || p.backend == "cuda", "the cusparse operator runs on the GPU; the "
               "backend is ", p.backend, " (use backend cuda, or another operator)");
  TREMOR_CHECK(options.check_every >= 1, "check_every must be at least 1, got ", options.check_every);
  p.safety_factor = options.safety_factor.value_or(settings.safety_factor);
  TREMOR_CHECK(p.safety_factor > 0.0 && p.safety_factor <= 1.0, "safety factor must be in (0, 1], got ",
               p.safety_factor);
  p.n_dofs = model.mesh.n_nodes() * model.mesh.dim();

  const fem::TimeStepEstimate stable = [&] {
    try {
      return fem::stable_time_step(model);
    } catch (const Error&) {
      // An inverted or degenerate element: named with det J, as info and static name it (the
      // full check costs a pass over the mesh, so it runs only when the estimate fails).
      fem::check_geometry(model.mesh, model.mesh_source());
      throw;
    }
  }();
  p.stable_dt = stable.dt;
  p.stable_element = stable.label;
  const bool allow_unstable = options.allow_unstable || settings.allow_unstable;
  const double user_dt = options.time_step.value_or(settings.time_step);
  const double abaqus_dt = model.explicit_step ? model.explicit_step->fixed_increment : 0.0;
  if (user_dt > 0.0) {
    TREMOR_CHECK(std::isfinite(user_dt), "time step must be finite, got ", user_dt);
    if (user_dt > stable.dt) {
      TREMOR_CHECK(allow_unstable, options.time_step ? "--dt: "
                                    : str(settings.origin.empty() ? model.source : settings.origin,
                                          ": [explicit] time_step: "),
                   "time step ", user_dt, " s is above the stable time step ", stable.dt,
                   " s (set by element ", stable.label,
                   "); use a smaller time step, leave it automatic, or allow_unstable to run it anyway");
      warn(p, str("time step ", user_dt, " s is above the stable time step ", stable.dt, " s (set by element ",
                  stable.label, "); running it as asked (allow_unstable)"));
    }
    p.dt = user_dt;
    p.dt_source = "user";
  } else if (abaqus_dt > 0.0 && abaqus_dt <= stable.dt) {
    p.dt = abaqus_dt;
    p.dt_source = "abaqus";
  } else {
    p.dt = stable.dt * p.safety_factor;
    p.dt_source = "automatic";
    if (abaqus_dt > 0.0)
      warn(p, str(model.source, ": the fixed time increment ", abaqus_dt, " s of step '", model.explicit_step->name,
                  "' is above the stable time step ", stable.dt, " s (set by element ", stable.label, "); using ",
                  p.dt, " s (", p.safety_factor, " x stable) instead"));
  }

  p.duration = options.duration.value_or(0.0);
  if (!(p.duration > 0.0)) p.duration = settings.duration;
  if (!(p.duration > 0.0) && model.explicit_step) p.duration = model.explicit_step->duration;
  TREMOR_CHECK(p.duration > 0.0 && std::isfinite(p.duration), model.source,
               ": no duration: give [explicit] duration in the model file, a *DYNAMIC, EXPLICIT step, or a "
               "duration option");
  // Steps to reach the duration; 1e-9 absorbs rounding of a duration that is a multiple of dt.
  // Computed in double and refused past max_steps before any conversion, so a huge duration or a
  // tiny step is a clear refusal, never an overflow that runs one step and calls it complete.
  const double planned = std::ceil(p.duration / p.dt * (1.0 - 1e-9));
  if (!(planned <= static_cast<double>(max_steps))) {
    const std::string duration_from = options.duration ? "--duration" : str("the duration in ", model.source);
    const std::string dt_from = p.dt_source == "user"      ? (options.time_step ? "--dt" : "time_step in the model")
                                : p.dt_source == "abaqus" ? "the Abaqus step's increment"
                                                          : "automatic: --safety x the stable step";
    throw Error(str("the run would take ", brief(planned), " steps (duration ", brief(p.duration), " s from ",
                    duration_from, " / time step ", brief(p.dt), " s, ", dt_from, "), more than the ",
                    brief(static_cast<double>(max_steps)),
                    " tremor takes in one run; check the duration and the time step"));
  }
  p.steps = std::max(static_cast<long long>(planned), 1LL);
  TREMOR_CHECK(options.checkpoint_every >= 0, "checkpoint_every must not be negative, got ", options.checkpoint_every);
  p.snapshot_every = model.output ? model.output->snapshot_steps(p.dt) : 0;

  const Loading loading(model);
  p.highest_frequency = loading.highest_frequency();
  std::set<std::string> used;
  for (const Section& section : model.sections) used.insert(section.material);
  double slowest = std::numeric_limits<double>::infinity();
  for (const std::string& name : used) slowest = std::min(slowest, model.material(name).min_wave_speed());
  p.min_wave_speed = std::isfinite(slowest) ? slowest : 0.0;
  for (const fem::ElementSize& size : fem::element_sizes(model.mesh))
    p.largest_element = std::max(p.largest_element, size.max_length);
  p.points_per_wavelength = p.highest_frequency > 0.0 && p.largest_element > 0.0
                                ? p.min_wave_speed / p.highest_frequency / p.largest_element
                                : std::numeric_limits<double>::infinity();
  if (p.points_per_wavelength < 10.0)
    warn(p, str("only ", brief(p.points_per_wavelength), " elements per shortest wavelength (",
                brief(p.min_wave_speed), " m/s at ", brief(p.highest_frequency), " Hz, elements up to ",
                brief(p.largest_element), " m); linear elements need about 10 or more"));
  // The fastest wave sets the stable step (said when the run is long) and the longest wavelength
  // at an absorbing layer's design frequency: layers thinner than about 1.5 wavelengths reflect
  // noticeably (Rajagopal et al. 2012, the ALID the pogo paper uses in section 4.3).
  double fastest = 0.0;
  for (const std::string& name : used) fastest = std::max(fastest, model.material(name).max_wave_speed());
  if (p.steps > long_run_steps)
    warn(p, str(brief(static_cast<double>(p.steps)), " steps planned: the time step ", brief(p.dt),
                " s is set by element ", stable.label, " and the fastest wave (", brief(fastest),
                " m/s); a nearly incompressible material (Poisson's ratio close to 0.5) or a tiny element makes it "
                "small"));
  for (const AbsorbingLayer& layer : model.absorbing) {
    const double f0 = design_frequency(model, layer);
    if (!(f0 > 0.0) || !(fastest > 0.0)) continue;
    const double wavelengths = layer.thickness * f0 / fastest;
    if (wavelengths < 1.5)
      warn(p, str(layer.origin.empty() ? model.source : layer.origin, ": absorbing layer (", to_string(layer.kind),
                  ") is ", brief(layer.thickness), " m thick, ", brief(wavelengths), " wavelengths of the fastest wave (",
                  brief(fastest), " m/s) at its design frequency ", brief(f0),
                  " Hz; layers of 1.5 wavelengths or more reflect little"));
  }
  return p;
}

// Integrator state: 3 time levels + K u + 4 diagonal coefficients in Real, the mass in double;
// the force vector in Real.
std::size_t state_bytes(std::size_t n_dofs, std::size_t real_size) { return n_dofs * (9 * real_size + sizeof(double)); }

// Snapshot buffers in the Exec's memory (snapshots.hpp): the DOF list, the staging displacement
// and, with velocity, u_k-1 and the velocity in double. The page-locked host slots are not counted.
std::size_t snapshot_bytes(const Model& model, int every, std::size_t real_size) {
  if (every <= 0 || !model.output) return 0;
  const OutputSettings& output = *model.output;
  const std::size_t nodes = output.snapshot_nodes.empty() ? static_cast<std::size_t>(model.mesh.n_nodes())
                                                          : output.snapshot_nodes.size();
  const std::size_t n = nodes * static_cast<std::size_t>(model.mesh.dim());
  return n * (sizeof(Index) + real_size + (output.velocity ? real_size + sizeof(double) : 0));
}

// A node-major DOF vector from one numbering to another: out[map[node] * dim + c] = in[node * dim + c].
std::vector<double> renumbered(const std::vector<double>& in, const std::vector<Index>& map, int dim) {
  if (map.empty()) return in;
  std::vector<double> out(in.size());
  const auto d = static_cast<std::size_t>(dim);
  for (std::size_t node = 0; node < map.size(); ++node)
    for (std::size_t c = 0; c < d; ++c) out[static_cast<std::size_t>(map[node]) * d + c] = in[node * d + c];
  return out;
}

template <class Real>
ExplicitRun run_typed(const Model& original, Preflight preflight, const RunOptions& options, Observer* observer) {
  // The run's numbering: the model's, or reverse Cuthill-McKee's (old_to_new / new_to_old).
  std::vector<Index> new_to_old, old_to_new;
  std::optional<Model> reordered;
  if (preflight.ordering == "rcm") {
    new_to_old = reverse_cuthill_mckee(node_graph(original.mesh));
    old_to_new = invert_permutation(new_to_old, original.mesh.n_nodes(), "node ordering");
    reordered = renumber_nodes(original, new_to_old);
  }
  const Model& model = reordered ? *reordered : original;
  const int dim = model.mesh.dim();
  const Exec exec = make_exec(preflight.backend);
  const Exec setup = host_exec(exec);  // assembly and loads are prepared on the host
  const auto started = std::chrono::steady_clock::now();
  // One table and colouring (section checks, element geometry, absorbing profile) for the three.
  const sparse::SectionTable table = sparse::section_table(model);
  const sparse::ElementColouring colouring = sparse::colour_elements(model.mesh);
  std::unique_ptr<StiffnessOperator<Real>> stiffness;
  if (!preflight.blocks.empty()) {
    // The saved partition (of the model's numbering), carried to the run's: no partitioning.
    partition::BlockPartition blocks = partition::read_block_file(preflight.blocks, node_graph(original.mesh));
    if (!new_to_old.empty()) blocks = partition::renumbered(std::move(blocks), new_to_old, node_graph(model.mesh));
    const sparse::CsrMatrix K = sparse::assemble_stiffness(model, table, colouring, setup);
    stiffness = std::make_unique<PartitionedOperator<Real>>(exec, K, model.mesh, std::move(blocks));
  } else {
    stiffness = make_stiffness_operator<Real>(model, preflight.operator_kind, exec, table, colouring);
  }
  const std::vector<double> mass = sparse::assemble_lumped_mass(model, table, colouring, setup);
  // Undamped models (the common case) skip the damping pass: CentralDifference takes no vector.
  const bool damped = !model.absorbing.empty() ||
                      std::any_of(model.materials.begin(), model.materials.end(),
                                  [](const Material& m) { return m.damping_alpha != 0.0; });
  const std::vector<double> damping =
      damped ? sparse::assemble_lumped_damping(model, table, colouring, setup) : std::vector<double>{};
  const Loading loading(model);
  const std::vector<Index> constrained = loading.constrained_dofs();
  CentralDifference<Real> scheme(exec, *stiffness, mass, damping, preflight.dt, constrained);
  DeviceLoading<Real> loads(exec, loading, preflight.dt);
  Recorder<Real> recorder(exec, make_histories(model, preflight.dt), preflight.dt, preflight.n_dofs);
  preflight.memory_bytes = stiffness->bytes() + state_bytes(static_cast<std::size_t>(preflight.n_dofs), sizeof(Real)) +
                           snapshot_bytes(model, preflight.snapshot_every, sizeof(Real));

  const double dt = preflight.dt;
  const std::vector<Index>& prescribed_dofs = loading.prescribed_dofs();
  std::vector<double> prescribed(prescribed_dofs.size());
  std::vector<Real> prescribed_real(prescribed_dofs.size());
  const auto prescribe = [&](double t) {
    loading.prescribed(t, prescribed);
    for (std::size_t k = 0; k < prescribed.size(); ++k) prescribed_real[k] = static_cast<Real>(prescribed[k]);
  };
  // Start from rest, with prescribed DOFs on their motion at t = -dt and 0 (both zero for
  // signals that start at rest).
  if (!prescribed_dofs.empty()) {
    std::vector<Real> previous(static_cast<std::size_t>(preflight.n_dofs), Real(0)), current(previous);
    prescribe(-dt);
    for (std::size_t k = 0; k < prescribed_dofs.size(); ++k)
      previous[static_cast<std::size_t>(prescribed_dofs[k])] = prescribed_real[k];
    prescribe(0.0);
    for (std::size_t k = 0; k < prescribed_dofs.size(); ++k)
      current[static_cast<std::size_t>(prescribed_dofs[k])] = prescribed_real[k];
    scheme.set_state(previous, current, 0);
  }

  ExplicitRun run;
  run.dt = dt;
  // The observer guard: held around every observer call, here and on the snapshot writer's
  // thread (snapshots.hpp), so the observer sees one call at a time.
  std::mutex observer_guard;
  if (observer) {
    const std::lock_guard lock(observer_guard);
    observer->on_start(preflight);
  }
  if (observer)
    recorder.set_on_sample([observer, &observer_guard](const History& history, std::size_t sample) {
      const std::lock_guard lock(observer_guard);
      observer->on_sample(history, sample);
    });
  // Declared after the guard: its destructor (joining the writer, which takes the guard) runs first.
  SnapshotTaker<Real> snapshots(exec, original, preflight.snapshot_every, dt, old_to_new, observer, observer_guard);
  long long step = 0;
  if (options.resume) {
    // Continue from a checkpoint: its state replaces the start from rest; the samples up to its
    // step were passed on by the run that wrote it.
    const SolverState& state = *options.resume;
    const auto n_dofs = static_cast<std::size_t>(preflight.n_dofs);
    TREMOR_CHECK(state.previous.size() == n_dofs && state.current.size() == n_dofs, "checkpoint holds ",
                 state.current.size(), " DOFs; the model has ", n_dofs);
    TREMOR_CHECK(state.step >= 0 && state.step <= preflight.steps, "checkpoint at step ", state.step,
                 " lies outside the run's ", preflight.steps, " steps");
    const std::vector<double> state_previous = renumbered(state.previous, old_to_new, dim);
    const std::vector<double> state_current = renumbered(state.current, old_to_new, dim);
    const std::vector<Real> previous(state_previous.begin(), state_previous.end());
    const std::vector<Real> current(state_current.begin(), state_current.end());
    scheme.set_state(previous, current, state.step);
    recorder.restore_pending(state.receivers);
    snapshots.restore(state.snapshot);
    step = state.step;
  } else {
    recorder.record(0, scheme.previous_displacement(), scheme.displacement());
    snapshots.take(0, scheme.previous_displacement(), scheme.displacement());
  }

  const auto loop_started = std::chrono::steady_clock::now();
  const Index n = preflight.n_dofs;
  const long long checkpoint_every = observer ? options.checkpoint_every : 0;
  const long long first_step = step;
  while (step < preflight.steps) {
    loads.update(step);  // F at t_n drives u_n+1 (Eq. 4); prescribed values at t_n+1
    scheme.step(loads.force(), loads.prescribed_dofs(), loads.prescribed_values());
    ++step;
    recorder.record(step, scheme.previous_displacement(), scheme.displacement());
    snapshots.take(step, scheme.previous_displacement(), scheme.displacement());
    const bool checkpoint = checkpoint_every > 0 && step % checkpoint_every == 0 && step < preflight.steps;
    if (step % options.check_every != 0 && step != preflight.steps && !checkpoint) continue;
    // The one host synchronisation every check_every steps: samples, then the NaN/Inf count.
    recorder.flush();
    snapshots.check();  // a snapshot that failed to be written stops the run here
    const View<const Real> u_exec = scheme.displacement();
    const double bad = sum<double>(exec, n, [=] TREMOR_LAMBDA(Index i) {
      return std::isfinite(static_cast<double>(u_exec[i])) ? 0.0 : 1.0;
    });
    if (bad > 0.0) {
      // Worst node: NaN first, then Inf, then the largest |u|.
      std::vector<Real> previous, u;
      scheme.get_state(previous, u);
      const auto rank = [&](Index i) {
        const double value = static_cast<double>(u[i]);
        return std::pair<int, double>(std::isnan(value) ? 2 : std::isinf(value) ? 1 : 0,
                                      std::isfinite(value) ? std::abs(value) : 0.0);
      };
      Index worst = 0;
      for (Index i = 1; i < n; ++i)
        if (rank(i) > rank(worst)) worst = i;
      run.status = RunStatus::NonFinite;
      run.bad_step = step;
      run.bad_node = model.mesh.node_labels[static_cast<std::size_t>(worst / dim)];
      run.message = str("the solution is not finite at step ", step, " (t = ", static_cast<double>(step) * dt,
                        " s): node ", run.bad_node, " has u", "xyz"[worst % dim], " = ",
                        static_cast<double>(u[worst]), "; ", static_cast<long long>(bad),
                        " values are NaN or Inf. The time step ", dt, " s against the stable ", preflight.stable_dt,
                        " s, or the loads, are the usual causes");
      break;
    }
    if (checkpoint) {
      // The file the checkpoint counts holds every snapshot up to this step first.
      snapshots.drain();
      SolverState state;
      state.step = step;
      std::vector<Real> previous, current;
      scheme.get_state(previous, current);
      state.previous = renumbered(std::vector<double>(previous.begin(), previous.end()), new_to_old, dim);
      state.current = renumbered(std::vector<double>(current.begin(), current.end()), new_to_old, dim);
      state.receivers = recorder.pending();
      state.snapshot = snapshots.pending(scheme.displacement());
      const std::lock_guard lock(observer_guard);
      observer->on_checkpoint(state);
    }
    bool stop = false;
    if (observer) {
      const std::lock_guard lock(observer_guard);
      observer->on_progress(step, preflight.steps, static_cast<double>(step) * dt);
      stop = step < preflight.steps && observer->stop_requested();
    }
    if (stop) {
      run.status = RunStatus::Stopped;
      run.message = str("stopped at step ", step, " of ", preflight.steps, " (t = ", static_cast<double>(step) * dt,
                        " s) on request");
      break;
    }
  }
  snapshots.drain();  // every snapshot taken is passed on before the run returns
  const auto finished = std::chrono::steady_clock::now();
  run.steps = step;
  run.time = static_cast<double>(step) * dt;
  run.wall_seconds = std::chrono::duration<double>(finished - started).count();
  const double loop_seconds = std::chrono::duration<double>(finished - loop_started).count();
  run.dof_steps_per_second =
      loop_seconds > 0.0 ? static_cast<double>(n) * static_cast<double>(step - first_step) / loop_seconds : 0.0;
  run.preflight = std::move(preflight);
  recorder.flush();
  run.histories = recorder.take_histories();
  if (!new_to_old.empty())  // back to the model's numbering
    for (History& history : run.histories) {
      for (Index& node : history.nodes) node = new_to_old[static_cast<std::size_t>(node)];
      for (Location& location : history.locations)
        for (Index& node : location.nodes) node = new_to_old[static_cast<std::size_t>(node)];
    }
  return run;
}

}  // namespace

Preflight preflight(const Model& model, const RunOptions& options) {
  model.validate();
  Preflight p = resolve(model, options);
  const std::size_t real_size = p.precision == "float" ? sizeof(float) : sizeof(double);
  const auto dim = static_cast<Size>(model.mesh.dim());
  const NodeGraph graph = p.operator_kind != "matrix_free" ? node_graph(model.mesh) : NodeGraph{};
  const Size nnz = p.operator_kind != "matrix_free" ? graph.n_entries() * dim * dim : 0;
  // A block file made for another mesh (or torn, or not one) is refused before the run.
  if (!p.blocks.empty()) (void)partition::read_block_file(p.blocks, graph);
  p.memory_bytes =
      memory_estimate(model.mesh, p.operator_kind, nnz, real_size) + snapshot_bytes(model, p.snapshot_every, real_size);
  return p;
}

std::size_t memory_estimate(const Mesh& mesh, std::string_view operator_kind, Size stiffness_nnz,
                            std::size_t real_size) {
  const auto n = static_cast<std::size_t>(mesh.n_nodes()) * static_cast<std::size_t>(mesh.dim());
  std::size_t operator_bytes = 0;
  if (operator_kind == "assembled") {
    // CSR: offsets (8 B per row), per entry a column (4 B) and a value.
    operator_bytes = (n + 1) * sizeof(Size) + static_cast<std::size_t>(stiffness_nnz) * (sizeof(Index) + real_size);
  } else if (operator_kind == "cusparse") {
    // CSR with 32-bit offsets (CusparseOperator), plus cuSPARSE's workspace (small; not counted).
    operator_bytes = (n + 1) * sizeof(std::int32_t) + static_cast<std::size_t>(stiffness_nnz) * (sizeof(std::int32_t) + real_size);
  } else if (operator_kind == "ell" || operator_kind == "sell" || operator_kind == "jds") {
    // A column (4 B) and a value per entry; ELL and SELL pad rows to a common length, which this
    // estimate leaves out (small for linear elements: sparse/formats.hpp reports it).
    operator_bytes = static_cast<std::size_t>(stiffness_nnz) * (sizeof(Index) + real_size) + n * sizeof(Index);
  } else if (operator_kind == "partitioned") {
    // Pogo's layout (partition/block_matrix.hpp): per node slot L links of a dim x dim block and a
    // 16-bit target, L the largest node degree, plus the slot's node (4 B); blocks are ~95% full
    // (the aligned partitioner's eta), so slots ~ nodes / 0.95.
    const NodeGraph graph = node_graph(mesh);
    std::size_t links = 0;
    for (Index node = 0; node < mesh.n_nodes(); ++node)
      links = std::max<std::size_t>(links, static_cast<std::size_t>(graph.offsets[node + 1] - graph.offsets[node]));
    const auto d = static_cast<std::size_t>(mesh.dim());
    const auto slots = static_cast<std::size_t>(static_cast<double>(mesh.n_nodes()) / 0.95);
    operator_bytes = slots * (links * (d * d * real_size + sizeof(std::int16_t)) + sizeof(Index));
  } else if (operator_kind == "block_csr" || operator_kind == "block_ell") {
    // Nodal-block CSR: offsets (8 B per node), a column (4 B) per dim x dim block, the values.
    const auto d = static_cast<std::size_t>(mesh.dim());
    operator_bytes = (static_cast<std::size_t>(mesh.n_nodes()) + 1) * sizeof(Size) +
                     static_cast<std::size_t>(stiffness_nnz) / (d * d) * sizeof(Index) +
                     static_cast<std::size_t>(stiffness_nnz) * real_size;
  } else {
    // Coordinates, connectivity, per element section, colour slot and stiffness factor
    // (MatrixFreeOperator::bytes).
    operator_bytes = n * sizeof(double);
    for (const ElementBlock& block : mesh.blocks)
      operator_bytes += block.connectivity.size() * sizeof(Index) +
                        static_cast<std::size_t>(block.n_elements()) * (sizeof(int) + sizeof(Index) + sizeof(double));
  }
  return operator_bytes + state_bytes(n, real_size);
}

ExplicitRun run_explicit(const Model& model, const RunOptions& options, Observer* observer) {
  model.validate();
  Preflight p = resolve(model, options);
  if (p.precision == "float") return run_typed<float>(model, std::move(p), options, observer);
  return run_typed<double>(model, std::move(p), options, observer);
}

}  // namespace tremor::explicit_fe
