#pragma once
// The explicit solver end to end (pogo paper section 2.1): from a Model to recorded histories.
// Builds the stiffness operator (assembled or matrix_free, float or double state), the lumped
// mass and mass-proportional damping, the loads and constraints (loading.hpp), the receivers
// (receivers.hpp), picks the time step, and steps the central-difference scheme, checking the
// state for NaN/Inf every few steps.
//
// Snapshots (the model's [output], model/output.hpp) go to Observer::on_snapshot at step 0 and
// every n-th step. Their velocity is the central difference of the receivers (receivers.hpp),
// v_k = (u_k+1 - u_k-1) / (2 dt), so a snapshot with velocity is passed on one step later, once
// u_k+1 exists, and there is none at the run's last step when that is a multiple of n. A fluid's
// pressure p_k is known with chi_k+1 (fluid.hpp): a snapshot with pressure waits the same way. They are
// taken without stopping the time loop (snapshots.hpp): gathered and differenced on the Exec,
// copied to page-locked host buffers on a second stream, and passed on by a writer thread while
// stepping continues; before a checkpoint and before the run returns or throws, every snapshot
// taken is passed on.
//
// Node ordering: with "rcm" the run renumbers the nodes by reverse Cuthill-McKee
// (mesh/reorder.hpp) before building anything, so the rows the operator reads for a node lie
// close in memory; everything it hands back (histories, snapshots, checkpoint states, the node
// of a non-finite value) is in the model's own numbering.
//
// Checkpoints: every RunOptions::checkpoint_every steps Observer::on_checkpoint receives the whole
// state (SolverState); a run given that state in RunOptions::resume continues from it and records
// exactly the samples and snapshots the uninterrupted run records after that step, bit for bit.
// Shots stepped together checkpoint between batches only: the next batch's first shot at rest
// (SolverState::at_rest, no state), from which a resumed run steps that batch again.
//
// Settings come from RunOptions where given there, else from the model file's [explicit] table,
// else from an Abaqus *DYNAMIC, EXPLICIT step, else defaults.
//
// Time step:
//   automatic                 stable_time_step(model) * safety_factor (0.9 by default);
//   user (RunOptions or the   used as given when at most the stable step; above it refused with
//   model file's time_step)   both numbers and the element setting the stable one, unless
//                             allow_unstable (then used, with a warning);
//   Abaqus fixed increment    used when at most the stable step, otherwise tremor's automatic
//                             step, with a warning (as CalculiX does: it takes the smaller).
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/explicit/receivers.hpp"
#include "tremor/mesh/reorder.hpp"
#include "tremor/model/model.hpp"
#include "tremor/model/pml.hpp"
#include "tremor/operator/registry.hpp"
#include "tremor/parallel/exchange.hpp"
#include "tremor/sparse/two_kernel.hpp"

namespace tremor::explicit_fe {

// Everything a run needs to continue from a step: both central-difference time levels and the
// samples waiting for the next step (receivers, a velocity snapshot). Samples and snapshots
// already passed to the Observer are not part of it: the caller has written them.
struct SolverState {
  int shot = 0;  // the model's shot it belongs to (model/transducer.hpp; 0 without shots)
  long long step = 0;
  // Before `shot` begins (step 0, every field below empty): what shots stepped together checkpoint
  // between batches. A run resumed from it starts the shot from rest, the result file holding none
  // of its samples (nor of any shot after it).
  bool at_rest = false;
  // u_step-1 and u_step, all DOFs; a float state widened to double (exact, and exact back).
  std::vector<double> previous, current;
  // One per history: the solid's in make_histories order, then (with fluids) the fluid's, its
  // receivers of pressure first (FluidTerm::pending).
  std::vector<PendingSample> receivers;
  PendingSample snapshot;                // a velocity snapshot waiting for u_step+1
  // The stiffness operator's state (the memory variables of attenuating sections) by the model's
  // elements: element e's values at [memory_offsets[e], memory_offsets[e + 1]) of memory, in Real
  // widened to double. Both empty for a stateless run.
  std::vector<Size> memory_offsets;
  std::vector<double> memory;
  // A PML's nodes' state (explicit/pml.hpp): the model's nodes, fem::pml_node_values each in
  // pml_node_values; both empty without a PML. (Its elements' follow the operator's in memory.)
  std::vector<Index> pml_nodes;
  std::vector<double> pml_node_values;
  // A fluid's potential chi_step-1 and chi_step per fluid node (explicit/fluid.hpp: the model's
  // nodes that fluid elements hold, ascending), widened to double; both empty without fluids.
  std::vector<double> fluid_previous, fluid_current;
  // A PML over fluid elements (FluidTerm::get_pml_state): its elements' state by the model's
  // elements (element e's at [fluid_pml_offsets[e], fluid_pml_offsets[e + 1]) of fluid_pml, the
  // offsets over every element of the model), its nodes' by the model's nodes (dim values each);
  // all empty without one.
  std::vector<Size> fluid_pml_offsets;
  std::vector<double> fluid_pml;
  std::vector<Index> fluid_pml_nodes;
  std::vector<double> fluid_pml_node_values;
};

// Part of that state, some of the model's elements' (a subdomain's): `offsets` and `values` as
// op::Operator::state_offsets and get_state, element k being the model's `elements[k]`.
struct ElementValues {
  std::vector<Index> elements;
  std::vector<Size> offsets;
  std::vector<double> values;
};

// One phase of a run's set-up and its wall time (the Exec synchronised at its end). A detail of
// the phase before it (part of its time) is marked as such.
struct SetupPhase {
  std::string name;
  double seconds = 0.0;
  bool detail = false;
};

struct Preflight;
struct FluidSetup;  // explicit/fluid.hpp

struct RunOptions {
  // Empty / unset: from the model (see above).
  std::string precision;      // "double" or "float"
  std::string operator_kind;  // "auto" or a name in operators() (operator.hpp); empty: the model's
  std::string backend;        // "auto" (CUDA when a GPU is usable, else OpenMP), "serial", "openmp", "cuda"
  std::string ordering;       // "none" or "rcm" (reverse Cuthill-McKee node ordering before the run)
  std::string blocks;         // block file for the "partitioned" operator (`tremor partition`)
  std::optional<double> time_step;
  std::optional<double> duration;
  std::optional<double> safety_factor;
  bool allow_unstable = false;  // or'ed with the model file's allow_unstable
  // On a GPU, K and the lumped mass are assembled with atomic adds (fastest; sums in the order the
  // updates land, so the last bits of K vary from run to run); deterministic assembles colour by
  // colour instead: the host assembly's bits, the same on every run. Host backends always do.
  bool deterministic = false;
  // Subdomains the run is decomposed into (partition::decompose, METIS), stepped together in this
  // process on its Exec with their shared nodes' forces summed after every apply: the same
  // results as one domain to rounding. 1: one domain. Checkpoints, resuming and snapshots need 1.
  int domains = 1;
  // The processes of a run over several (mpirun): with more than one, each steps the subdomain of
  // its rank (domains is their number), the first alone passes samples, snapshots and checkpoints
  // to the observer, and run_explicit returns the histories there (none elsewhere). Null: this
  // process alone.
  const parallel::Communicator* communicator = nullptr;
  // Over processes: this process's own request to stop (a signal to a process other than the
  // first, which has no observer), or'ed with every other process's at each check, so that a
  // signal to any process stops the whole run. Null: none.
  std::function<bool()> stop_here;
  // A decomposition file (`tremor partition MODEL --domains N`, partition/domain_file.hpp) used
  // instead of METIS; empty: METIS at the start of the run. Its subdomain count is the run's: with
  // domains = 1 in one process it sets it, and otherwise must equal domains (or the processes).
  std::string decomposition;
  // Between processes, how the shared nodes' forces are summed (parallel/exchange.hpp): "p2p", each
  // pair of neighbouring subdomains sends the nodes they share, or "allreduce", one array over
  // every shared node summed over all processes.
  std::string exchange = "p2p";
  // A decomposed run with an element-by-element operator (sem, matrix_free) applies each
  // subdomain's elements touching a shared node first, starts the exchange, and applies the
  // interior's while it runs; false: the whole apply, then the exchange.
  bool overlap = true;
  int check_every = 100;        // steps between NaN/Inf checks (and Observer::on_progress calls)
  // Steps between Observer::on_checkpoint calls (0: none). Checkpoint steps are checked for
  // NaN/Inf too, so no checkpoint holds a state that has blown up.
  long long checkpoint_every = 0;
  // Continue from this state (from a checkpoint of a run with the same model and settings).
  const SolverState* resume = nullptr;
  // The run will resume from a checkpoint not read yet (the command's pre-flight): by default its
  // shots are stepped one after another on the whole model, as with `resume`.
  bool resuming = false;
  // A model's shots stepped together on one set-up (explicit/shots.hpp): that many at once, their
  // fields side by side and one operator apply for all (op::Operator::apply_batch), each shot's
  // histories the bits it has stepped alone. 0: the pre-flight chooses (Preflight::shots_together);
  // 1: one after another. With checkpoints, only where asked (they are then taken between batches);
  // resuming, only from a checkpoint between batches (SolverState::at_rest).
  int shots_together = 0;
  // Over several processes or GPUs (communicator), a model with shots: each member steps whole
  // shots of its own on the whole model (one domain each, its shots `shots_together` at a time)
  // instead of a subdomain of every shot; the first member passes each shot's histories to the
  // observer as the members finish them, in the model's order within each round. Unset: the
  // pre-flight chooses (Preflight::shots_parallel); true needs shots, no snapshots or decomposition
  // file, and checkpoints between rounds only (SolverState::at_rest: a resume from one within a
  // shot is refused); false decomposes.
  std::optional<bool> shots_parallel;
  // The pre-flight of this model with these options (preflight()), when the caller made one: the
  // run takes its settings, time step and element checks from it instead of resolving them again.
  const Preflight* preflight = nullptr;
};

// Numbers known before a run; printed by the CLI's pre-flight check.
// The most steps one run takes: a duration and a time step asking for more are refused (a
// user's typo, such as a duration in microseconds given as seconds, never an overflow). Past
// long_run_steps the pre-flight warns and says what sets the time step.
inline constexpr long long max_steps = 1'000'000'000'000;
inline constexpr long long long_run_steps = 1'000'000;

struct Preflight {
  Index n_dofs = 0;
  Precision precision = Precision::Double;
  Backend backend = Backend::Serial;  // as it runs: "auto" resolved
  const op::OperatorEntry* op = nullptr;  // the stiffness operator (explicit_fe::operators()), "auto" resolved
  std::string_view operator_kind() const { return op ? op->name : std::string_view(); }
  // "auto" was asked: why it is op, in one line (op::Registry::choose_auto; empty where it is the
  // host backend's default). The pre-flight prints it.
  bool operator_auto = false;
  std::string operator_why;
  NodeOrdering ordering = NodeOrdering::None;
  int domains = 1;    // RunOptions::domains, checked (or the decomposition file's)
  // Each element's subdomain from RunOptions::decomposition, read once here; null: METIS's.
  std::shared_ptr<const std::vector<int>> element_domain;
  int processes = 1;  // of RunOptions::communicator
  // Whether the model is split among subdomains (--domains, or a subdomain per process or GPU):
  // not so for whole shots side by side (shots_parallel), each member holding the whole.
  bool decomposed() const { return domains > 1 || (processes > 1 && !shots_parallel); }
  bool threaded = false;  // its members are threads of one process, a GPU each (--gpus)
  parallel::Strategy exchange = parallel::Strategy::PointToPoint;  // RunOptions::exchange
  // RunOptions::overlap where it applies: a decomposed run whose operator is element by element.
  bool overlap = false;
  // The block file the "partitioned" operator takes its partition from (checked against the mesh
  // by preflight()); empty: it partitions the mesh itself.
  std::string blocks;
  double stable_dt = 0.0;       // s, the stable step (no safety factor): stable_step()
  double stable_undamped = 0.0;  // s, the solid's before stiffness-proportional damping (StableStep::undamped)
  Label stable_element = 0;     // label of the element setting it (0: a global estimate)
  std::string stable_by;        // what sets it: "set by element N", or the global estimate
  double dt = 0.0;              // s, the step the run uses
  std::string dt_source;        // "automatic", "user", "abaqus"
  double safety_factor = 0.9;
  double duration = 0.0;        // s
  long long steps = 0;          // ceil(duration / dt), at most max_steps
  double highest_frequency = 0.0;     // Hz, over the source signals (0: none)
  double loads_end = 0.0;             // s: no load changes after it (Loading::last_change; every shot's)
  // Of the solid element that resolves its slowest wave worst (the largest longest vertex distance
  // over its own material's slowest speed, sparse::ElementSurvey): that speed, m/s, and that
  // distance, m; with a fluid, its sound speed and largest element where those resolve worse.
  double min_wave_speed = 0.0;
  double largest_element = 0.0;
  // min_wave_speed / highest_frequency / (largest_element / gll_order); infinity without a source
  // frequency. Below about 10 linear elements per wavelength the wave is visibly dispersed; GLL
  // elements of order P >= 2 count their points, largest_element / P apart, and need about 5
  // (Komatitsch and Tromp 1999; the Rayleigh-Lamb check of docs/verification.md uses 5).
  double points_per_wavelength = 0.0;
  int gll_order = 1;  // the lowest order of a mesh of GLL elements of order >= 2; 1 otherwise
  double wanted_per_wavelength() const { return gll_order > 1 ? 5.0 : 10.0; }
  const char* wavelength_unit() const { return gll_order > 1 ? "GLL points" : "elements"; }
  int snapshot_every = 0;             // steps between snapshots (the model's [output]); 0: none
  // Shots stepped together (RunOptions::shots_together): asked for, or chosen where the model has
  // several and nothing stops it: up to 16 at once on a GPU whose operator reads its matrix once for
  // all of them (OperatorEntry::fuses_batch), as many as its free memory holds; 1 otherwise.
  // shots_why says why, in a line (empty for 1 of a model without shots).
  int shots_together = 1;
  std::string shots_why;
  // Whole shots side by side over the `processes` members (RunOptions::shots_parallel): each holds
  // the whole model (domains 1); shots_parallel_why says why in a line (empty without a group).
  bool shots_parallel = false;
  std::string shots_parallel_why;
  // K's nodal pattern, counted on the Exec (all kinds but matrix_free): node pairs (dim^2 entries
  // each) and the longest node row (the padding of ELL and block ELL).
  Size stiffness_entries = 0;
  Index max_neighbours = 0;
  // Operator, integrator state, loads and snapshot buffers in the Exec's memory, estimated
  // before building: the larger of the set-up's peak (the elements, the mass and K in double while
  // it is converted to the operator's format) and the time loop's.
  // Over several processes (mpirun, --gpus) the whole run's, every process's subdomain summed;
  // process_memory_bytes is this process's own (its subdomain, or all of them for --domains N in
  // one process), what its Exec holds at most.
  std::size_t memory_bytes = 0;
  std::size_t process_memory_bytes = 0;
  // Host memory this process adds for the run (estimate): the arrays of a host backend, and on any
  // backend the host copies its set-up makes of the elements. Refused by the pre-flight when above
  // what the process may still allocate (memory::host_available, named in the message).
  std::size_t host_bytes = 0;
  // What the pre-flight's own arrays (the element survey, the Lanczos estimate of the stable step,
  // K's pattern) held at most in the Exec's space, counted in its memory::Account: part of what the
  // run's summary reports as used.
  std::size_t survey_peak_bytes = 0;
  // The sem operator's geometric factors (op::OperatorSizes::geometry_values), as the pre-flight's
  // Lanczos estimate built it; 0 where it built none.
  std::size_t geometry_values = 0;
  sparse::RaceStrategy assembly = sparse::RaceStrategy::Colouring;  // how K and the mass are assembled
  // Per attenuating material in use, its resolved attenuation in a line (model/attenuation.hpp).
  std::vector<std::string> attenuation;
  // The PML layers' stretching (model/pml.hpp; any() false without one) and a line per layer.
  PmlProfile pml;
  std::vector<std::string> pml_layers;
  std::vector<std::string> warnings;  // also sent to log::warn
  // Its own phases (the element survey on the Exec, the node graph of the memory estimate, ...).
  std::vector<SetupPhase> phases;
  // A model with fluids (docs/model-file.md, "Fluids"): its solid (fem::solid_part), which the run
  // sets up in place of the model and which everything above describes, and its fluid, stepped as
  // a term of the solid (FluidTerm); both null without fluids.
  std::shared_ptr<const Model> solid;
  std::shared_ptr<const FluidSetup> fluid;
  // Whether the fluid's inner nodes take their step in their element's kernel (FluidTerm); false
  // leaves them to the update, as `tremor bench fluid` compares.
  bool fluid_inner_steps = true;
  // Whether the fluid's stream may start a step without waiting for the solid's update
  // (FluidTerm::leads); false waits for it, as `tremor bench fluid` compares.
  bool fluid_leads = true;
  // With fluids, the model's histories (make_histories: its receivers located among the solid's
  // elements, and the fluid's for pressure), which the run's recorders take; null without fluids.
  std::shared_ptr<const std::vector<History>> histories;
};

// Resolves settings and the time step; throws tremor::Error for a refused time step (both
// numbers and the element), a missing duration, an unknown precision, operator or backend.
Preflight preflight(const Model& model, const RunOptions& options = {});
// The duration (RunOptions, else the model's [explicit], else its Abaqus step) and the steps to
// reach it at p.dt into p; throws for a missing duration or more than max_steps.
void plan_steps(Preflight& p, const Model& model, const RunOptions& options);

// The stable step of central differences with the lumped mass, 2 / sqrt(lambda_max(M^-1 K)):
//   - element by element, the bound max_e lambda_max(M_e^-1 K_e) (fem::stable_time_step, safe, and
//     tight for low-order elements);
//   - for a mesh of GLL hexahedra or quadrilaterals of order 2 or more, globally: the largest eigenvalue of M^-1 K
//     by Lanczos on the sem operator (op::largest_eigenvalue) on `exec`, rounded down to 3
//     significant digits (so that every backend gets the same step). The element bound is there
//     up to 2x too small, and costs a power iteration per element.
struct StableStep {
  double dt = 0.0;
  std::size_t geometry_values = 0;  // the global estimate's sem operator's geometric factors
  Label element = 0;  // the element setting it; 0 for the global estimate
  std::string by;     // "set by element N" or "largest eigenvalue of M^-1 K, N Lanczos iterations"
  double undamped = 0.0;  // dt before stiffness-proportional damping (2 / omega_max): a PML's grid_step
};
bool global_stable_step(const Mesh& mesh);
// The model's stable step on `exec`, as a run's pre-flight finds it (with fluids, with_fluid's).
StableStep stable_step(const Model& model, const Exec& exec);
// The step of a model with fluids: the coupled scheme's bound from the solid's step, the fluid's
// largest eigenvalue (FluidSetup::spectrum) and the coupling's (coupling_bound, with the solid's
// lumped mass per DOF, on the host), rounded down to 3 digits as the global estimate is. At most the
// smaller of the two steps; a light solid under water shortens it most.
StableStep with_fluid(const StableStep& solid, const FluidSetup& fluid, std::span<const double> solid_mass);

// Bytes the explicit solver needs on `mesh`: the stiffness operator (an assembled kind with
// `stiffness_nnz` entries, the block kinds with as many in dim x dim blocks, or "matrix_free")
// plus the integrator state, with state of `real_size` bytes (4 or 8). The one estimate behind the
// pre-flight and `tremor info`.
// `coloured`: the elements carry colour lists (assembly by colouring); `damped`: a damping vector is
// assembled too; `max_neighbours`: the node graph's longest row, which sets the padding of ELL and
// block ELL (0: unknown, padding left out). The larger of the set-up's peak (elements, mass, K in double and its format) and
// the time loop's (operator and state).
std::size_t memory_estimate(const Mesh& mesh, const op::OperatorEntry& op, Size stiffness_nnz,
                            std::size_t real_size, bool coloured = true, bool damped = false,
                            Index max_neighbours = 0);

// Failed: the state was not finite, or (a model with a PML) grew without bound after the loads
// ended (growth_watch.hpp).
enum class RunStatus { Completed, Failed, Stopped };

// One field snapshot: displacement, and velocity when the model asks for it, at the snapshot
// nodes (OutputSettings::snapshot_nodes, or all nodes), dim values per node, node-major. In a
// model with fluids, a node no solid element holds shows the fluid's particle motion (from its
// potential, as a receiver at that node records it: receivers.hpp), and the pressure, when asked
// for, is the fluid's at its nodes and NaN at the nodes only solid elements hold.
struct Snapshot {
  long long step = 0;
  double time = 0.0;  // step * dt, s
  std::span<const double> displacement;
  std::span<const double> velocity;  // empty unless OutputSettings::velocity
  std::span<const double> pressure;  // one per node, Pa; empty unless OutputSettings::pressure
};

// Called from the time loop. on_snapshot may be called from another thread (the snapshot
// writer's), but never concurrently with any other call of the same run: the solver holds one
// mutex around every call. Snapshots arrive in step order; those of the steps up to an
// on_checkpoint call's arrive before it (a velocity snapshot of its own step is in its state), and
// all of them before run_explicit returns (or throws). An exception thrown by on_snapshot stops
// the run: run_explicit rethrows it (at the next check, checkpoint or the end), and the snapshots
// after it are not passed on.
class Observer {
 public:
  virtual ~Observer();
  virtual void on_start(const Preflight& /*preflight*/) {}
  // After each completed sample of a history (History::times.back() is its time).
  virtual void on_sample(const History& /*history*/, std::size_t /*sample*/) {}
  // Every RunOptions::check_every steps and after the last one.
  virtual void on_progress(long long /*step*/, long long /*steps*/, double /*time*/) {}
  // Polled with on_progress; true stops the run there with status Stopped (e.g. on SIGINT).
  virtual bool stop_requested() { return false; }
  // Each snapshot, in step order (the model's [output]).
  virtual void on_snapshot(const Snapshot& /*snapshot*/) {}
  // Every RunOptions::checkpoint_every steps (not at the last step), after that step's samples
  // and snapshot were passed on and its state was found finite; with shots, also at the start of
  // each shot after the first (step 0, once its first samples were passed on). Shots stepped
  // together: only as each batch but the last ends, after its shots' on_shot_end (also where the
  // run was stopped at that end), a state at_rest of the next batch's first shot (empty vectors).
  virtual void on_checkpoint(const SolverState& /*state*/) {}
  // A model with shots (model/transducer.hpp): before the first sample of shot `index` (the
  // model's shots[index]), or as a run resumed within it continues (`resumed`), and after its last,
  // with its histories complete (in the model's numbering). Samples and snapshots between the two
  // are the shot's; its steps count from 0. Shots stepped together (Preflight::shots_together)
  // pass no on_sample: on_batch, on_shot of the first, its progress with each shot's samples
  // (on_batch_sample), then each shot's on_shot (the first's already given) and on_shot_end in
  // turn, their histories complete.
  virtual void on_shot(std::size_t /*index*/, bool /*resumed*/) {}
  virtual void on_shot_end(std::size_t /*index*/, const std::vector<History>& /*histories*/) {}
  // Shots stepped together one batch after another on this set-up: before the batch's first
  // on_shot, its shots `first` to first + count - 1; then after each completed sample of shot
  // first + column's histories, on_batch_sample as on_sample for one shot (what a result file
  // writes as it goes, so that a run killed outright keeps every shot of its batch up to its last
  // flush). Shots side by side (Preflight::shots_parallel) pass neither: their histories come at
  // each round's end.
  virtual void on_batch(std::size_t /*first*/, std::size_t /*count*/) {}
  virtual void on_batch_sample(std::size_t /*column*/, const History& /*history*/, std::size_t /*sample*/) {}
};

struct ExplicitRun {
  RunStatus status = RunStatus::Completed;
  std::string message;  // why it stopped when not Completed
  Preflight preflight;
  double dt = 0.0;
  long long steps = 0;  // steps taken
  double time = 0.0;    // simulated time reached, s
  double wall_seconds = 0.0;
  double dof_steps_per_second = 0.0;
  // From the call to the first step: the pre-flight's phases (unless RunOptions::preflight gave
  // them), ordering, sections, colouring, elements to the Exec, K, its format, mass, loads,
  // receivers, snapshot buffers, initial state.
  std::vector<SetupPhase> setup;
  double setup_seconds = 0.0;
  // Memory the run held through tremor's arrays in the Exec's space at most (its Exec's
  // memory::Account; for a host Exec this is part of the process's memory), and the process's peak
  // resident memory.
  std::size_t exec_peak_bytes = 0;
  std::size_t host_peak_bytes = 0;
  // On a Failed stop: where it was found (the node with the largest |u|, NaN counting largest).
  long long bad_step = -1;
  Label bad_node = 0;
  std::vector<History> histories;  // what was recorded (up to the stop; after the resumed step)
  // A model with shots: the histories of each shot stepped, from the first (or the resumed one)
  // to the last or the one that stopped, in order; `histories` stays empty and `steps` is the
  // last one's. (Over processes, the first's alone.)
  std::vector<std::vector<History>> shots;
  int first_shot = 0;  // of `shots`: the model's shot it starts with (a resumed run's)
  bool ok() const { return status == RunStatus::Completed; }
};

// Runs the model. Input and configuration errors throw tremor::Error; a run that blows up
// (NaN/Inf), or whose motion grows without bound in a PML after the loads end, returns status
// Failed with the step, time and worst node in `message`; one whose observer asked to stop returns
// status Stopped.
ExplicitRun run_explicit(const Model& model, const RunOptions& options = {}, Observer* observer = nullptr);

}  // namespace tremor::explicit_fe
