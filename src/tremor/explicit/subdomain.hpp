#pragma once
// The explicit run split into its set-up and its time loop (docs/architecture.md, "the time loop
// over subdomains"). A Subdomain is one part of the model on one Exec, in its own (local) node
// numbering: its operator, lumped mass, integrator, loads, receivers and snapshot gathers. The time
// loop (run_subdomains) steps every subdomain and holds no global state: after each operator
// apply it hands the internal forces to an Exchange, which sums them over the nodes subdomains
// share (the multi-GPU paper's "common nodes", section 3; nothing to do for one subdomain), and
// the set-up hands it the lumped mass likewise. Output leaves a subdomain through its Numbering,
// the one place that maps local node numbers to the model's.
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "tremor/backend/exec.hpp"
#include "tremor/backend/view.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/config.hpp"
#include "tremor/explicit/central_difference.hpp"
#include "tremor/explicit/loading.hpp"
#include "tremor/explicit/receivers.hpp"
#include "tremor/explicit/snapshots.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/operator/split.hpp"
#include "tremor/parallel/exchange.hpp"
#include "tremor/partition/domains.hpp"

namespace tremor::explicit_fe {

class ProcessGroup;

// A subdomain's nodes (local numbers 0..n_local_nodes()-1) as nodes of the model: local node i is
// the model's node local_to_global()[i]. DOFs are node-major (node * dim + component) on both sides.
class Numbering {
 public:
  // The identity over the model's n_nodes nodes (one subdomain in the model's numbering).
  Numbering(Index n_nodes, int dim);
  // local_to_global: distinct model node numbers in [0, n_model_nodes).
  Numbering(Index n_model_nodes, int dim, std::vector<Index> local_to_global);

  bool identity() const { return local_to_global_.empty(); }
  int dim() const { return dim_; }
  Index n_local_nodes() const;
  Index global_node(Index local) const;
  Index local_node(Index global) const;  // -1 where the subdomain does not hold the node
  // Empty for the identity.
  const std::vector<Index>& local_to_global() const { return local_to_global_; }
  const std::vector<Index>& global_to_local() const { return global_to_local_; }

  // A local DOF vector written into the model's (at this subdomain's nodes only).
  void to_global(std::span<const double> local, std::span<double> global) const;
  // The subdomain's part of a model DOF vector.
  std::vector<double> to_local(std::span<const double> global) const;
  // A history recorded in local numbers, in the model's.
  void to_global(History& history) const;

 private:
  Index n_model_nodes_ = 0;
  int dim_ = 3;
  std::vector<Index> local_to_global_, global_to_local_;
};

using parallel::Exchange;
using parallel::InProcessExchange;
using parallel::MpiExchange;
using parallel::NoSharedNodes;

// What one subdomain of a decomposed run holds of the model (decompose_model): its mesh in local
// numbers (local node i is the model's nodes[i]) inside a model that has the original's
// materials, sections and absorbing layers but no sets, loads or outputs; its elements' rows of
// the model's section table (absorbing layers' profiles included, computed on the whole mesh);
// the model's loading restricted to its nodes; and the points of each history it owns (a node
// belongs to the first subdomain holding it, a position to its element's subdomain).
struct ModelPart {
  Model model;
  std::vector<Index> nodes;     // the model's node of each local node
  Index n_owned = 0;            // local nodes [n_owned, nodes.size()) are shared with other parts
  std::vector<Index> shared_owned;  // those of the shared nodes it owns (the first holding them)
  std::vector<Index> elements;  // the model's element of each local element
  fem::SectionTable table;
  std::unique_ptr<Loading> loading;
  std::vector<History> histories;  // in local numbers
  // Per history above: the model's history (an index into make_histories(model, dt)) and the
  // point of it each of its points is.
  std::vector<int> history_of;
  std::vector<std::vector<Index>> history_points;
  // The snapshot nodes it takes (model.output's, in local numbers): the model's snapshot nodes it
  // owns; snapshot_points[i] is the place of its i-th in the model's list. Empty: it takes none.
  std::vector<Index> snapshot_points;
};

// The parts of `model` for each subdomain of `decomposition` (partition::decompose of its mesh);
// `histories`: make_histories(model, dt), which the parts' points refer to.
// With `only` >= 0, only that part gets its model, table and loading (a process of a run over
// several, which steps one subdomain); every part gets its nodes and its maps of histories and
// snapshots, which the first process's merges need.
std::vector<ModelPart> decompose_model(const Model& model, const partition::Decomposition& decomposition,
                                       const std::vector<History>& histories, int only = -1);

// The model's snapshots from the nodes the subdomains take (ModelPart::snapshot_points): each
// part's values copied into the model's snapshot in place, which is passed on to `observer` once
// every part taking nodes has given its own of that step. The parts' snapshot takers call it on
// their writer threads, holding the run's observer guard (snapshots.hpp), which guards it too;
// each gives its snapshots in step order, and so the merged ones leave in step order.
class SnapshotMerge {
 public:
  SnapshotMerge(const Model& model, const std::vector<ModelPart>& parts, Observer* observer);
  // What part `part`'s snapshot taker reports to; nullptr for a part that takes no node.
  Observer* part_observer(std::size_t part);
  // Part `part`'s snapshot (its nodes' values), from its taker or from another process.
  void add(std::size_t part, const Snapshot& snapshot);
  // A checkpoint's velocity snapshot waiting for its next step: the parts' (one each, inactive
  // for those taking no node) as the model's, and back.
  PendingSample merge_pending(std::span<const PendingSample> parts) const;
  PendingSample split_pending(const PendingSample& whole, std::size_t part) const;

 private:
  struct PartObserver final : Observer {
    SnapshotMerge* merge = nullptr;
    std::size_t part = 0;
    void on_snapshot(const Snapshot& snapshot) override { merge->add(part, snapshot); }
  };
  struct Pending {
    int count = 0;
    std::vector<double> displacement, velocity;
  };

  Observer* observer_ = nullptr;
  int dim_ = 3;
  bool velocity_ = false;
  std::size_t n_values_ = 0;  // of a snapshot's displacement
  int n_parts_ = 0;           // parts taking nodes
  std::vector<std::vector<Index>> points_;
  std::vector<PartObserver> observers_;
  std::map<long long, Pending> pending_;  // by step
};

// The model's histories from the points the subdomains record: each part's samples copied into
// the model's history in place, a sample passed on (on_sample) once every part holding points of
// it has completed it. Subdomains complete the same samples in the same order.
class HistoryMerge {
 public:
  using Callback = std::function<void(const History&, std::size_t sample)>;
  // `histories`: make_histories(model, dt), samples empty; `parts`: the decomposition's.
  HistoryMerge(std::vector<History> histories, const std::vector<ModelPart>& parts);
  void set_on_sample(Callback on_sample) { on_sample_ = std::move(on_sample); }
  // Part `part`'s history `k` completed its sample `sample`.
  void add(std::size_t part, std::size_t k, const History& history, std::size_t sample);
  // The same from the sample's time and values ([point][quantity][component] of the part's points).
  void add(std::size_t part, std::size_t k, double time, std::span<const double> values, std::size_t sample);
  std::vector<History> take() { return std::move(histories_); }
  // The histories with their samples so far, which it then forgets (a model's next shot).
  std::vector<History> take_samples();
  // A checkpoint's samples waiting for their next step: the parts' recorders' (Recorder::pending)
  // as the model's histories' (one per history), and back.
  std::vector<PendingSample> merge_pending(std::span<const std::vector<PendingSample>* const> parts) const;
  std::vector<PendingSample> split_pending(const std::vector<PendingSample>& whole, std::size_t part) const;

 private:
  struct Map {
    int history = 0;
    std::vector<Index> points;
  };
  std::vector<History> histories_;
  std::vector<std::vector<Map>> maps_;   // [part][k]
  struct Staged {  // a sample not yet complete
    double time = 0.0;
    std::vector<double> values;
    int count = 0;  // parts in
  };
  std::vector<int> n_parts_;               // per history, the parts recording points of it
  std::vector<std::deque<Staged>> open_;   // per history, its samples after the complete ones
  Callback on_sample_;
};

// Laps of a set-up, each ended by a synchronisation of the Exec so GPU work is counted where it
// was queued (ExplicitRun::setup).
class SetupClock {
 public:
  explicit SetupClock(const Exec& exec, Clock::time_point start = Clock::now());
  void lap(std::string name);
  // A part of the next lap, timed by the callee.
  void detail(std::string name, double seconds) { details_.push_back({std::move(name), seconds, true}); }
  Clock::time_point start() const { return start_; }
  void append(const std::vector<SetupPhase>& phases) { phases_.insert(phases_.end(), phases.begin(), phases.end()); }
  double total() const { return seconds_between(start_, last_); }
  std::vector<SetupPhase> take() { return std::move(phases_); }

 private:
  Exec exec_;
  Clock::time_point start_, last_;
  std::vector<SetupPhase> phases_, details_;
};

template <class Real>
struct Subdomain {
  Exec exec;
  Numbering numbering;
  std::optional<Model> renumbered;  // the model in local numbers, unless the numbering is the identity
  const Model* model = nullptr;     // in local numbers
  std::unique_ptr<Loading> loading;
  std::unique_ptr<op::Operator<Real>> stiffness;
  // The stiffness as the elements touching a shared node, then the rest (Preflight::overlap):
  // *stiffness itself, or null when not split.
  const op::SplitOperator<Real>* split = nullptr;
  std::unique_ptr<CentralDifference<Real>> scheme;  // reads *stiffness
  std::unique_ptr<DeviceLoading<Real>> loads;       // reads *loading
  std::unique_ptr<Recorder<Real>> recorder;
  std::unique_ptr<SnapshotTaker<Real>> snapshots;  // its writer takes the observer guard: destroy it first
  // Held between begin_subdomain and finish_subdomain only.
  std::shared_ptr<const fem::DeviceElements> elements;
  std::shared_ptr<const fem::DeviceElements> interface_elements, interior_elements;  // where split
  // Where the first part of a split stiffness runs (the exchange's stream: begin_subdomain), or
  // none: the subdomain's Exec.
  std::optional<Exec> interface_exec;
  DeviceArray<double> mass, damping;
  ModelPart* part = nullptr;
  // The nodes whose values it counts (the NaN/Inf check), so that a node several subdomains hold
  // counts once: local nodes [0, n_counted) and the shared nodes it owns (ModelPart::shared_owned).
  Index n_counted = 0;
  DeviceArray<Index> shared_counted;

  explicit Subdomain(const Exec& e, Numbering n) : exec(e), numbering(std::move(n)) {}
  Subdomain(const Subdomain&) = delete;
  Subdomain& operator=(const Subdomain&) = delete;
  ~Subdomain();
};

// Whether the model has a lumped damping (absorbing layers, mass-proportional material damping).
bool is_damped(const Model& model);

// Sets up the subdomain `numbering` of `model` (in the model's numbering) on exec for the run the
// pre-flight resolved: the model in local numbers, the lumped mass and damping (summed by
// `exchange`), the operator from the registry, the integrator, loads, receivers and, with an
// observer, snapshot gathers (their writer takes `observer_guard`, which must outlive the
// subdomain). A subdomain holds every node of the model (a renumbering, such as the
// run's node ordering). Laps are timed on `clock`.
template <class Real>
std::unique_ptr<Subdomain<Real>> set_up_subdomain(const Exec& exec, const Model& model, Numbering numbering,
                                                  const Preflight& preflight, Exchange<Real>& exchange,
                                                  SetupClock& clock, Observer* observer, std::mutex& observer_guard);

// set_up_subdomain in two halves around the exchange of the lumped mass, for subdomains set up
// together (a decomposed run in one process): begin_subdomain builds the elements and the lumped
// mass and damping (not yet summed), finish_subdomain the rest once the caller has summed them
// over every subdomain (Exchange::sum_mass). `part` (decompose_model; taken from: its loading
// and histories move into the subdomain) gives a subdomain holding part of the model, whose
// numbering lists its nodes; nullptr a subdomain holding every node. `interface_exec`
// (Exchange::interface_exec()) runs the forces of the elements touching shared nodes, or of the
// shared nodes' rows, where that is safe beside the rest (atomic adds, or rows).
template <class Real>
std::unique_ptr<Subdomain<Real>> begin_subdomain(const Exec& exec, const Model& model, Numbering numbering,
                                                 ModelPart* part, const Preflight& preflight, SetupClock& clock,
                                                 const Exec* interface_exec = nullptr);
// Between the two: the lumped mass, and the damping where the model has one, summed over the
// copies of the shared nodes (`subdomains`: those the exchange holds in this process).
template <class Real>
void sum_lumped_mass(Exchange<Real>& exchange, std::span<Subdomain<Real>* const> subdomains);
template <class Real>
void finish_subdomain(Subdomain<Real>& d, const Model& model, const Preflight& preflight, SetupClock& clock,
                      Observer* observer, std::mutex& observer_guard);

// Gives subdomain `d` the loads of `shot` (model/transducer.hpp) in place of the ones it has: a
// part's restricted from `model` (in its own numbering), or those of d.model. The constraints are
// the same in every shot.
template <class Real>
void load_shot(Subdomain<Real>& d, const Model& model, const Shot& shot, double dt);

// Puts subdomain `d` at rest at step 0: zero displacement, prescribed DOFs on their motion at
// t = -dt and 0.
template <class Real>
void start_from_rest(Subdomain<Real>& d, double dt);

// The model's shots in order (model/transducer.hpp), or one null shot (every load) without any.
std::vector<const Shot*> shots_of(const Model& model);

// Shot `index` stepped: its histories passed to the observer (if any, under `guard`) and kept in
// run.shots.
void end_shot(Observer* observer, std::mutex& guard, std::size_t index, std::vector<History> histories,
              ExplicitRun& run);

// What the time loop needs besides the subdomains.
struct LoopSettings {
  const Model* model = nullptr;  // the model, in its own numbering (labels of the NaN report)
  const Preflight* preflight = nullptr;
  long long first_step = 0;      // 0, or the checkpoint's step on a resume
  int check_every = 100;
  long long checkpoint_every = 0;  // 0: none
  Observer* observer = nullptr;
  std::mutex* observer_guard = nullptr;  // held around every observer call
  // A decomposed run's: a checkpoint's pending samples merged from the subdomains'.
  const HistoryMerge* history_merge = nullptr;
  const SnapshotMerge* snapshot_merge = nullptr;
  // A run over several processes (processes.hpp); the subdomains are this process's one.
  ProcessGroup* processes = nullptr;
  int shot = 0;                  // the model's shot being stepped (its checkpoints say so)
  // A checkpoint of first_step before stepping (a shot's start: the run's checkpoint between shots).
  bool checkpoint_first = false;
};

// The settings every run's loop takes (model, pre-flight, check interval, observer and its guard),
// after passing on_start to the observer (under the guard): the start of a run's time loop.
LoopSettings start_loop(const Model& model, const Preflight& preflight, int check_every, Observer* observer,
                        std::mutex& observer_guard);

// Steps the subdomains from settings.first_step to the preflight's last step (or a stop: NaN/Inf,
// the observer's request). Fills the run's status, message, bad step and node, and steps; the
// histories stay in the recorders.
template <class Real>
void run_subdomains(std::span<Subdomain<Real>* const> subdomains, Exchange<Real>& exchange,
                    const LoopSettings& settings, ExplicitRun& run);

extern template struct Subdomain<float>;
extern template struct Subdomain<double>;

}  // namespace tremor::explicit_fe
