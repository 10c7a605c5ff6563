#pragma once
// A subdomain and its set-up (docs/architecture.md, "the time loop over subdomains"). A Subdomain
// is one part of the model on one Exec, in its own (local) node numbering (parts.hpp): its
// operator, lumped mass, integrator, loads, receivers and snapshot gathers. The time loop
// (time_loop.hpp) steps subdomains and holds no global state: after each operator apply it hands
// the internal forces to an Exchange, which sums them over the nodes subdomains share (the
// multi-GPU paper's "common nodes", section 3; nothing to do for one subdomain), and the set-up
// hands it the lumped mass likewise. The shot loop (shots.hpp) runs the time loop once per shot.
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
#include "tremor/explicit/fluid.hpp"
#include "tremor/explicit/loading.hpp"
#include "tremor/explicit/parts.hpp"
#include "tremor/explicit/pml.hpp"
#include "tremor/explicit/receivers.hpp"
#include "tremor/explicit/snapshots.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/explicit/step_term.hpp"
#include "tremor/explicit/stiffness_damping.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/operator/split.hpp"
#include "tremor/parallel/exchange.hpp"
#include "tremor/partition/domains.hpp"

namespace tremor::explicit_fe {

class ProcessGroup;

// Laps of a set-up, each ended by a synchronisation of the Exec so GPU work is counted where it
// was queued (ExplicitRun::setup).
class SetupClock {
 public:
  // `last_phase`, when given, holds the name of each phase as it completes, for a message about a
  // failure in the phase after it (out of host memory) from a caller that outlives the clock.
  explicit SetupClock(const Exec& exec, Clock::time_point start = Clock::now(), std::string* last_phase = nullptr);
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
  std::string* last_phase_ = nullptr;
};

template <class Real>
struct Subdomain {
  Exec exec;
  Numbering numbering;
  std::optional<Model> renumbered;  // the model in local numbers, unless the numbering is the identity
  const Model* model = nullptr;     // in local numbers
  std::unique_ptr<Loading> loading;
  // Shots stepped together (Preflight::shots_together; every subdomain of a decomposed run): how
  // many, and their loadings stacked (Loading::stacked), which `loads` then reads; `loading` stays
  // one shot's, whose constraints every shot shares. The scheme's fields, the recorder and every
  // term (the fluid's fields, a PML's and the operator's state) hold `columns` shots.
  int columns = 1;
  std::unique_ptr<Loading> stacked;
  const Loading& stepped_loading() const { return stacked ? *stacked : *loading; }
  std::unique_ptr<op::Operator<Real>> stiffness;
  // The stiffness as the elements touching a shared node, then the rest (Preflight::overlap):
  // *stiffness itself, or null when not split.
  const op::SplitOperator<Real>* split = nullptr;
  // Where split by elements, the subdomain's element of each of the stiffness operator's (the
  // interface's, then the interior's); empty: the subdomain's order.
  std::vector<Index> stiffness_elements;
  // The PML's term among `terms` (null without one) and the subdomain's element of each of its elements.
  PmlTerm<Real>* pml = nullptr;
  std::vector<Index> pml_element_list;
  // The fluid's term among `terms` (a model with fluids: Preflight::fluid), or null.
  FluidTerm<Real>* fluid = nullptr;
  std::unique_ptr<CentralDifference<Real>> scheme;  // reads *stiffness
  // Forces beside K u, added in this order at every step before the exchange (step_term.hpp).
  std::vector<std::unique_ptr<StepTerm<Real>>> terms;
  std::unique_ptr<DeviceLoading<Real>> loads;       // reads *loading
  std::unique_ptr<Recorder<Real>> recorder;
  std::unique_ptr<SnapshotTaker<Real>> snapshots;  // its writer takes the observer guard: destroy it first
  // Held between begin_subdomain and finish_subdomain only.
  std::shared_ptr<const fem::DeviceElements> elements;
  std::shared_ptr<const fem::DeviceElements> interface_elements, interior_elements;  // where split
  // Stiffness-proportional damping (stiffness_damping.hpp): the elements' beta where they all have
  // the same, else the elements weighted by theirs (beta_weighted) for an operator of the term's own.
  ElementBetas betas;
  std::shared_ptr<const fem::DeviceElements> beta_elements;
  // The PML (explicit/pml.hpp): its elements, and its nodes with their coordinates and lumped mass.
  std::shared_ptr<const fem::DeviceElements> pml_elements;
  PmlNodeProfile pml_nodes;
  std::vector<double> pml_mass;
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

// The numbering of a run on one domain of `model` (its solid, with fluids): the model's, or reverse
// Cuthill-McKee's where the pre-flight orders nodes; with a PML, the layer's nodes after the
// others, grouped by their stretched axes as its term steps them (its node kernel then reads
// consecutive nodes, and the integrator keeps C' for them alone: CentralDifference::damped_from);
// with fluids, the nodes no element of the solid holds (the fluid's own) last, so that the
// integrator's update leaves their massless DOFs out (CentralDifference::n_moving). The order
// above within each. `layer`: pml_node_profile(model.mesh, preflight.pml) where the caller has it
// (else it is made here), as for the set-ups below.
Numbering one_domain_numbering(const Model& model, const Preflight& preflight, const PmlNodeProfile* layer = nullptr);

// Sets up the subdomain `numbering` of `model` (in the model's numbering) on exec for the run the
// pre-flight resolved: the model in local numbers, the lumped mass and damping (summed by
// `exchange`), the operator from the registry, the integrator, loads, receivers and, with an
// observer, snapshot gathers (their writer takes `observer_guard`, which must outlive the
// subdomain). A subdomain holds every node of the model (a renumbering, such as the
// run's node ordering). Laps are timed on `clock`.
template <class Real>
std::unique_ptr<Subdomain<Real>> set_up_subdomain(const Exec& exec, const Model& model, Numbering numbering,
                                                  const Preflight& preflight, Exchange<Real>& exchange,
                                                  SetupClock& clock, Observer* observer, std::mutex& observer_guard,
                                                  const PmlNodeProfile* layer = nullptr);

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
                                                 const Exec* interface_exec = nullptr,
                                                 const PmlNodeProfile* layer = nullptr);
// Between the two: the lumped mass, and the damping where the model has one, summed over the
// copies of the shared nodes (`subdomains`: those the exchange holds in this process).
template <class Real>
void sum_lumped_mass(Exchange<Real>& exchange, std::span<Subdomain<Real>* const> subdomains);
template <class Real>
void finish_subdomain(Subdomain<Real>& d, const Model& model, const Preflight& preflight, SetupClock& clock,
                      Observer* observer, std::mutex& observer_guard);

// Gives subdomain `d` the loads of `shot` (model/transducer.hpp) in place of the ones it has: a
// part's restricted from `model` (in its own numbering), or those of d.model; and its fluid's
// (fluid_loading of `model`, the pre-flight's fluid). The constraints are the same in every shot.
template <class Real>
void load_shot(Subdomain<Real>& d, const Model& model, const Preflight& preflight, const Shot& shot);

// The same for shots stepped together: d.columns of them, the last repeated where fewer are given
// (its histories then recorded twice, the copy left unread).
template <class Real>
void load_shots(Subdomain<Real>& d, const Model& model, const Preflight& preflight, std::span<const Shot* const> shots);

// Puts subdomain `d` at rest at step 0: zero displacement, prescribed DOFs on their motion at
// t = -dt and 0.
template <class Real>
void start_from_rest(Subdomain<Real>& d, double dt);

// The state by the model's elements (a checkpoint's pieces): the stiffness operator's, then the
// PML's where the subdomain has one (none for a stateless operator, or without a PML).
template <class Real>
std::vector<ElementValues> element_values(const Subdomain<Real>& d);
// The PML's nodes' state by the model's nodes (ElementValues of nodes: `elements` the model's
// nodes, fem::pml_node_values each); empty without a PML.
template <class Real>
ElementValues pml_node_values(const Subdomain<Real>& d);
// The model's state from the pieces into `offsets` and `values` (state.memory_offsets and
// state.memory), for a model of n_elements elements: an element's values those of every piece that
// holds it, in the pieces' order; nothing where no piece holds values. `nodes`: the PML's nodes'
// pieces into `node_list` and `node_values` (state.pml_nodes and state.pml_node_values; a node
// several subdomains hold, once).
void merge_element_values(std::span<const ElementValues> pieces, Index n_elements, std::vector<Size>& offsets,
                          std::vector<double>& values);
void merge_node_values(std::span<const ElementValues> nodes, std::vector<Index>& node_list,
                       std::vector<double>& node_values);
// The other way: the values of `elements` (the model's; element k's mine[k + 1] - mine[k] of them,
// Operator::state_offsets) from a state's `offsets` and `values` by the model's elements, after
// the taken[e] each has given already (an element's pieces one after another), which it advances;
// and the values of `nodes` (the model's) from a state's `node_list` and `node_values`. Each
// throws tremor::Error naming an element or node whose values the state lacks.
std::vector<double> take_element_values(std::span<const Size> mine, std::span<const Index> elements,
                                        std::span<const Size> offsets, std::span<const double> values,
                                        std::vector<Size>& taken);
std::vector<double> take_node_values(std::span<const Index> nodes, std::span<const Index> node_list,
                                     std::span<const double> node_values);
// Subdomain d's stiffness operator, and its PML, take their elements' and nodes' state from
// `state` (resume_from). Throws tremor::Error where the state does not fit: a stateless
// checkpoint for a run with state, or another count of values for an element.
template <class Real>
void restore_element_values(Subdomain<Real>& d, const SolverState& state);

extern template struct Subdomain<float>;
extern template struct Subdomain<double>;

}  // namespace tremor::explicit_fe
