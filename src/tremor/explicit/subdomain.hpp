#pragma once
// The explicit run split into its set-up and its time loop (docs/architecture.md, "the time loop
// over subdomains"). A Subdomain is one part of the model on one Exec, in its own (local) node
// numbering: its operator, lumped mass, integrator, loads, receivers and snapshot gathers. The time
// loop (run_subdomains) steps every subdomain and holds no global state: after each operator
// apply it hands the internal forces to an Exchange, which sums them over the nodes subdomains
// share (the multi-GPU paper's "common nodes", section 3; nothing to do for one subdomain), and
// the set-up hands it the lumped mass likewise. Output leaves a subdomain through its Numbering,
// the one place that maps local node numbers to the model's.
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

namespace tremor::explicit_fe {

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

// Sums the values of shared nodes over the subdomains, so each holds the total there. Entry s of a
// span is subdomain s's vector, local numbering, in its Exec's memory. A process with one
// subdomain passes a span of one.
template <class Real>
class Exchange {
 public:
  virtual ~Exchange() = default;
  // The internal forces K u, after each operator apply (the time loop).
  virtual void sum_forces(std::span<const View<Real>> forces) = 0;
  // The lumped mass, and the damping, in the set-up before the integrator's coefficients.
  virtual void sum_mass(std::span<const View<double>> mass) = 0;
};

// One subdomain holding every node: nothing is shared.
template <class Real>
class NoSharedNodes final : public Exchange<Real> {
 public:
  void sum_forces(std::span<const View<Real>>) override {}
  void sum_mass(std::span<const View<double>>) override {}
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
  std::unique_ptr<CentralDifference<Real>> scheme;  // reads *stiffness
  std::unique_ptr<DeviceLoading<Real>> loads;       // reads *loading
  std::unique_ptr<Recorder<Real>> recorder;
  std::unique_ptr<SnapshotTaker<Real>> snapshots;  // its writer takes the observer guard: destroy it first

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

// What the time loop needs besides the subdomains.
struct LoopSettings {
  const Model* model = nullptr;  // the model, in its own numbering (labels of the NaN report)
  const Preflight* preflight = nullptr;
  long long first_step = 0;      // 0, or the checkpoint's step on a resume
  int check_every = 100;
  long long checkpoint_every = 0;  // 0: none
  Observer* observer = nullptr;
  std::mutex* observer_guard = nullptr;  // held around every observer call
};

// Steps the subdomains from settings.first_step to the preflight's last step (or a stop: NaN/Inf,
// the observer's request). Fills the run's status, message, bad step and node, and steps; the
// histories stay in the recorders.
template <class Real>
void run_subdomains(std::span<Subdomain<Real>* const> subdomains, Exchange<Real>& exchange,
                    const LoopSettings& settings, ExplicitRun& run);

extern template struct Subdomain<float>;
extern template struct Subdomain<double>;

}  // namespace tremor::explicit_fe
