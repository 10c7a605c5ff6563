#include "tremor/explicit/run_setup.hpp"

#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/explicit/coupled_parts.hpp"
#include "tremor/explicit/fluid.hpp"
#include "tremor/explicit/parts.hpp"
#include "tremor/explicit/processes.hpp"
#include "tremor/explicit/shots.hpp"
#include "tremor/explicit/subdomain.hpp"
#include "tremor/mesh/reorder.hpp"
#include "tremor/parallel/communicator.hpp"
#include "tremor/parallel/nccl_exchange.hpp"
#include "tremor/partition/domain_file.hpp"

namespace tremor::explicit_fe {

namespace {

// Each element's subdomain in the run's decomposition: the decomposition file's (read by the
// pre-flight), or METIS's.
std::vector<int> element_domains(const Model& model, const Preflight& preflight) {
  if (!preflight.element_domain) return partition::element_domains(model.mesh, preflight.domains);
  return *preflight.element_domain;
}

// Each sample `recorder` completes, passed to to(k, history, sample) with k the history's place in
// the recorder (the merges know a part's histories by it).
template <class Real, class To>
void route_samples(Recorder<Real>& recorder, To to) {
  const Recorder<Real>* from = &recorder;
  recorder.set_on_sample([from, to](const History& history, std::size_t sample) {
    to(static_cast<std::size_t>(&history - from->histories().data()), history, sample);
  });
}

// A part's history numbers as HistoryMerge takes them: shot c's at c (solid + fluid) + k, a shot's
// solid histories then its fluid's (the part's maps), where its recorder holds each shot's solid
// histories in turn and its fluid term each shot's fluid histories in turn (FluidTerm::
// route_samples). One shot: the solid's, then the fluid's after them.
struct PartNumbers {
  std::size_t solid = 0, fluid = 0;  // a shot's
  std::size_t of_solid(std::size_t k) const { return place_among_shots(k, solid, 0, solid + fluid); }
  std::size_t of_fluid(std::size_t k) const { return place_among_shots(k, fluid, solid, solid + fluid); }
};

// Routes subdomain d's samples, its solid's and its fluid's, to to(k, history, sample) with the
// merge's numbers (PartNumbers).
template <class Real, class To>
void route_part_samples(Subdomain<Real>& d, To to) {
  const PartNumbers numbers{d.recorder->histories().size() / static_cast<std::size_t>(d.columns),
                            d.fluid ? d.fluid->histories_per_shot() : 0};
  route_samples(*d.recorder, [to, numbers](std::size_t k, const History& history, std::size_t sample) {
    to(numbers.of_solid(k), history, sample);
  });
  if (d.fluid)
    d.fluid->route_samples([to, numbers](std::size_t k, const History& history, std::size_t sample) {
      to(numbers.of_fluid(k), history, sample);
    });
}

// What a run's set-up leaves for the shot loop: its subdomains and their exchange, and for a
// decomposed run the merges of their samples and snapshots and, over processes, the group. Built
// in place by one of the set-ups below, which differ only in how the subdomains are made and
// exchange; destroyed in the reverse order of the members.
template <class Real>
struct RunSetup {
  RunSetup(const Model& m, const Preflight& p, const RunOptions& o, const Exec& e, SetupClock& c, Observer* obs)
      : model(m), preflight(p), options(o), exec(e), clock(c), observer(obs) {}
  const Model& model;
  const Preflight& preflight;
  const RunOptions& options;
  const Exec& exec;
  SetupClock& clock;
  Observer* observer;  // null on every process but the first: the first alone reports
  // The observer guard: held around every observer call, here and on the snapshot writer's
  // thread (snapshots.hpp), so the observer sees one call at a time. Declared before the
  // subdomains: the snapshot writer, which takes it, is joined first.
  std::mutex observer_guard;
  std::unique_ptr<Exchange<Real>> exchange;
  std::unique_ptr<Exchange<Real>> fluid_exchange;  // a decomposed run with fluids: the fluid's forces
  std::vector<ModelPart> parts;  // a decomposed run's: what each subdomain holds of the model
  std::optional<HistoryMerge> merge;
  std::optional<SnapshotMerge> snapshot_merge;  // before the subdomains, whose snapshot takers call it
  std::optional<ProcessGroup> group;            // (its outbox too)
  std::vector<std::unique_ptr<Subdomain<Real>>> owned;
  std::optional<PmlNodeProfile> layer;  // pml_layer()'s, while the subdomains are set up

  int dim() const { return model.mesh.dim(); }
  std::function<void(const History&, std::size_t)> on_sample() {
    return [this](const History& history, std::size_t sample) {
      const std::lock_guard lock(observer_guard);
      observer->on_sample(history, sample);
    };
  }
  // Shots stepped together one batch after another: each sample with its shot's column.
  bool batch_samples() const { return observer && preflight.shots_together > 1 && !preflight.shots_parallel; }
  HistoryMerge::ColumnCallback on_batch_sample() {
    return [this](std::size_t column, const History& history, std::size_t sample) {
      const std::lock_guard lock(observer_guard);
      observer->on_batch_sample(column, history, sample);
    };
  }
  // Sets up whatever passes the samples on: `merge` (a decomposed run's), on_sample for one shot
  // at a time, on_batch_sample for shots stepped together (side by side, neither: a round's
  // histories come at its end).
  void pass_samples_on(HistoryMerge& into) {
    if (observer && preflight.shots_together == 1) into.set_on_sample(on_sample());
    if (batch_samples()) into.set_on_batch_sample(on_batch_sample());
  }
  // The PML's nodes over the whole model (pml_node_profile), made once for every subdomain set up
  // here; null without a PML.
  const PmlNodeProfile* pml_layer() {
    if (!preflight.pml.any()) return nullptr;
    if (!layer) layer = pml_node_profile(model.mesh, preflight.pml);
    return &*layer;
  }
  std::string decomposition_name() const {
    return options.decomposition.empty() ? "METIS" : options.decomposition;
  }
};

// The model's parts for `decomposition` into r.parts (decompose_model; with fluids, `coupled`'s
// solid's, and then the fluid's parts: add_fluid_parts), only part `only`'s model made where >= 0;
// returns the histories the parts' samples merge into (with fluids, the whole model's, which the
// pre-flight made: the solid's, then the fluid's).
template <class Real>
std::vector<History> make_parts(RunSetup<Real>& r, const partition::Decomposition& decomposition,
                                const CoupledDecomposition* coupled, int only = -1) {
  if (!coupled) {
    std::vector<History> histories = make_histories(r.model, r.preflight.dt);
    r.parts = decompose_model(r.model, decomposition, histories, only);
    return histories;
  }
  const FluidSetup& fluid = *r.preflight.fluid;
  const std::vector<History>& whole = *r.preflight.histories;
  const std::vector<History> solid = solid_histories(whole, fluid);
  r.parts = decompose_model(r.model, decomposition, solid, only);
  std::vector<History> merged = merged_histories(whole);
  const std::vector<History> in_fluid(merged.begin() + static_cast<std::ptrdiff_t>(solid.size()), merged.end());
  add_fluid_parts(r.parts, r.model, fluid, *coupled, in_fluid, static_cast<int>(solid.size()), only);
  return merged;
}

// One subdomain per process: the first decomposes, the others build the same subdomains from its
// answer; each builds its own part. A failure on any process stops every one.
template <class Real>
void set_up_processes(RunSetup<Real>& r, const parallel::Communicator& processes) {
  const int rank = processes.rank(), n = processes.size();
  const FluidSetup* fluid = r.preflight.fluid.get();
  std::vector<char> answer;
  run_agreed(&processes, [&] {
    if (processes.root()) {
      // The answer alone: every process builds the subdomains from it below, this one included.
      // With fluids, the solid's elements' subdomains, then the fluid's (coupled_parts.hpp).
      std::vector<int> element_domain;
      if (fluid) {
        CoupledDecomposition coupled =
            decompose_coupled(r.model, *fluid, n, r.preflight.element_domain.get(), r.options.decomposition);
        element_domain = std::move(coupled.solid.element_domain);
        element_domain.insert(element_domain.end(), coupled.fluid.element_domain.begin(),
                              coupled.fluid.element_domain.end());
      } else {
        element_domain = element_domains(r.model, r.preflight);
      }
      answer.resize(element_domain.size() * sizeof(int));
      std::memcpy(answer.data(), element_domain.data(), answer.size());
    }
  });
  processes.broadcast(answer);
  std::vector<int> element_domain(answer.size() / sizeof(int));
  std::memcpy(element_domain.data(), answer.data(), answer.size());
  std::optional<CoupledDecomposition> coupled;
  std::optional<partition::Decomposition> solid_only;
  if (fluid) {
    const auto solid_elements = static_cast<std::ptrdiff_t>(r.model.mesh.n_elements());
    coupled.emplace();
    coupled->fluid = partition::decomposition_of(
        fluid->mesh.model.mesh, std::vector<int>(element_domain.begin() + solid_elements, element_domain.end()), n);
    element_domain.resize(static_cast<std::size_t>(solid_elements));
    coupled->solid = partition::decomposition_of(r.model.mesh, std::move(element_domain), n);
  } else {
    solid_only = partition::decomposition_of(r.model.mesh, std::move(element_domain), n);
  }
  const partition::Decomposition& decomposition = coupled ? coupled->solid : *solid_only;
  r.clock.lap(str("decomposition into ", n, " subdomains (", r.decomposition_name(), "), one per process",
                  fluid ? ", the solid's and the fluid's" : ""));
  std::unique_ptr<Exchange<Real>> over;
  std::vector<History> histories;
  run_agreed(&processes, [&] {
    histories = make_parts(r, decomposition, coupled ? &*coupled : nullptr, rank);
    r.clock.lap("this process's part of the model");
  });
  run_agreed(&processes, [&] {
    // GPUs exchange device to device through NCCL where the build has it and every process has
    // a GPU of its own (NCCL refuses two processes on one); host buffers over MPI otherwise. A
    // fluid's forces have an exchange of their own, of the same kind.
    const bool own_gpu = r.exec.backend() == Backend::Cuda && processes.local_rank() < cuda_device_count();
    const std::vector<double> own = processes.all_gather(own_gpu ? 1.0 : 0.0);
    const bool nccl =
        parallel::nccl_compiled() && std::all_of(own.begin(), own.end(), [](double v) { return v != 0.0; });
    const auto exchange = [&](const partition::Decomposition& of, int dim) -> std::unique_ptr<Exchange<Real>> {
      if (nccl) return std::make_unique<parallel::NcclExchange<Real>>(r.exec, of, dim, processes, r.preflight.exchange);
      return std::make_unique<MpiExchange<Real>>(r.exec, of, dim, processes, r.preflight.exchange);
    };
    over = exchange(decomposition, r.dim());
    if (fluid) r.fluid_exchange = exchange(coupled->fluid, 1);
    ModelPart& part = r.parts[rank];
    r.owned.push_back(begin_subdomain<Real>(r.exec, r.model, Numbering(r.model.mesh.n_nodes(), r.dim(), part.nodes),
                                            &part, r.preflight, r.clock, over->interface_exec()));
  });
  Subdomain<Real>& mine = *r.owned.front();
  Subdomain<Real>* const one[] = {&mine};
  sum_lumped_mass<Real>(*over, one);
  r.clock.lap("lumped mass summed over the processes");
  r.merge.emplace(std::move(histories), r.parts, r.preflight.shots_together);
  r.snapshot_merge.emplace(r.model, r.parts, processes.root() ? r.observer : nullptr);
  r.group.emplace(processes, r.parts, r.dim(), &*r.merge, &*r.snapshot_merge, r.observer_guard, r.options.stop_here);
  run_agreed(&processes, [&] {
    Observer* snapshots = processes.root()                      ? r.snapshot_merge->part_observer(0)
                          : r.parts[rank].snapshot_points.empty() ? nullptr
                                                                  : r.group->snapshot_outbox();
    finish_subdomain(mine, r.model, r.preflight, r.clock, snapshots, r.observer_guard);
  });
  // The fluid's histories follow the solid's in the part's maps.
  if (processes.root()) {
    r.pass_samples_on(*r.merge);
    const auto into = [merge = &*r.merge](std::size_t k, const History& history, std::size_t sample) {
      merge->add(0, k, history, sample);
    };
    route_part_samples(mine, into);
  } else {
    const auto to = [group = &*r.group](std::size_t k, const History& history, std::size_t sample) {
      group->queue_sample(k, history, sample);
    };
    route_part_samples(mine, to);
    r.observer = nullptr;  // the first process alone reports
  }
  r.exchange = std::move(over);
}

// One domain: the model in its numbering or reverse Cuthill-McKee's, no shared nodes.
template <class Real>
void set_up_one_domain(RunSetup<Real>& r) {
  Numbering numbering = one_domain_numbering(r.model, r.preflight, r.pml_layer());
  if (!numbering.identity()) {
    const bool pml = r.preflight.pml.any(), fluid = r.preflight.fluid != nullptr;
    const std::string last = pml && fluid ? "the PML's nodes, then the fluid's own, last"
                             : pml        ? "the PML's nodes last"
                                          : "the fluid's own nodes last";
    r.clock.lap(r.preflight.ordering != NodeOrdering::Rcm ? str("node ordering (", last, ")")
                : pml || fluid                            ? str("node ordering (rcm; ", last, ")")
                                                          : std::string("node ordering (rcm)"));
  }
  r.exchange = std::make_unique<NoSharedNodes<Real>>();
  r.owned.push_back(set_up_subdomain<Real>(r.exec, r.model, std::move(numbering), r.preflight, *r.exchange, r.clock,
                                           r.observer, r.observer_guard, r.pml_layer()));
  // (Shots side by side pass their histories at each round's end alone: Observer::on_shot.)
  Subdomain<Real>& d = *r.owned.front();
  if (r.observer && d.columns == 1 && !r.preflight.shots_parallel) {
    d.recorder->set_on_sample(r.on_sample());
    if (FluidTerm<Real>* fluid = d.fluid) fluid->set_on_sample(r.on_sample());
  } else if (r.batch_samples()) {
    // route_part_samples numbers a shot's solid and fluid histories together, shot by shot.
    const std::size_t per_shot = d.recorder->histories().size() / static_cast<std::size_t>(d.columns) +
                                 (d.fluid ? d.fluid->histories_per_shot() : 0);
    route_part_samples(d, [to = r.on_batch_sample(), per_shot](std::size_t k, const History& history,
                                                               std::size_t sample) { to(k / per_shot, history, sample); });
  }
}

// Several subdomains in this process (--domains), on one Exec, summing their shared nodes in place.
// With fluids, each holds a part of the solid and of the fluid (coupled_parts.hpp), and the fluid's
// forces are summed over the parts by an exchange of their own.
template <class Real>
void set_up_in_process(RunSetup<Real>& r) {
  const FluidSetup* fluid = r.preflight.fluid.get();
  std::optional<CoupledDecomposition> coupled;
  std::optional<partition::Decomposition> solid_only;
  if (fluid)
    coupled = decompose_coupled(r.model, *fluid, r.preflight.domains, r.preflight.element_domain.get(),
                                r.options.decomposition);
  else
    solid_only =
        partition::decomposition_of(r.model.mesh, element_domains(r.model, r.preflight), r.preflight.domains);
  const partition::Decomposition& decomposition = coupled ? coupled->solid : *solid_only;
  r.clock.lap(str("decomposition into ", r.preflight.domains, " subdomains (", r.decomposition_name(), ")",
                  fluid ? ", the solid's and the fluid's" : ""));
  std::vector<History> histories = make_parts(r, decomposition, coupled ? &*coupled : nullptr);
  if (fluid)
    r.fluid_exchange = std::make_unique<InProcessExchange<Real>>(r.exec, coupled->fluid, 1);
  r.clock.lap("the subdomains' parts of the model");
  auto in_process = std::make_unique<InProcessExchange<Real>>(r.exec, decomposition, r.dim());
  std::vector<Subdomain<Real>*> all;
  for (ModelPart& part : r.parts) {
    r.owned.push_back(begin_subdomain<Real>(r.exec, r.model, Numbering(r.model.mesh.n_nodes(), r.dim(), part.nodes),
                                            &part, r.preflight, r.clock, nullptr, r.pml_layer()));
    all.push_back(r.owned.back().get());
  }
  sum_lumped_mass<Real>(*in_process, all);
  r.clock.lap("lumped mass summed over the subdomains");
  r.snapshot_merge.emplace(r.model, r.parts, r.observer);
  for (std::size_t s = 0; s < r.owned.size(); ++s)
    finish_subdomain(*r.owned[s], r.model, r.preflight, r.clock, r.snapshot_merge->part_observer(s), r.observer_guard);
  r.merge.emplace(std::move(histories), r.parts, r.preflight.shots_together);
  r.pass_samples_on(*r.merge);
  for (std::size_t s = 0; s < r.owned.size(); ++s)
    route_part_samples(*r.owned[s], [into = &*r.merge, s](std::size_t k, const History& history, std::size_t sample) {
      into->add(s, k, history, sample);
    });
  r.exchange = std::move(in_process);
}

}  // namespace

// A run: its set-up (over processes, one domain or subdomains in this process), then the shot loop
// every run shares (shots.hpp).
template <class Real>
ExplicitRun run_typed(const Exec& exec, const Model& model, const Preflight& preflight, const RunOptions& options,
                      Observer* observer, Clock::time_point called, std::string& last_phase) {
  // (The pre-flight keeps one shot at a time for this; a pre-flight made without it is refused.)
  TREMOR_CHECK(preflight.shots_together == 1 || !options.resume || options.resume->at_rest,
               preflight.shots_together, " shots stepped together resuming from a checkpoint within shot ",
               options.resume ? options.resume->shot + 1 : 0, ", which holds that shot alone: step them one after "
               "another");
  SetupClock clock(exec, called, &last_phase);
  if (!options.preflight) clock.append(preflight.phases);  // resolved by this call
  RunSetup<Real> r(model, preflight, options, exec, clock, observer);
  const parallel::Communicator* processes =
      options.communicator && options.communicator->size() > 1 ? options.communicator : nullptr;
  if (processes && !preflight.shots_parallel)
    set_up_processes(r, *processes);
  else if (preflight.domains <= 1)  // (side by side, every member's set-up agreed: one failing stops all)
    run_agreed(preflight.shots_parallel ? processes : nullptr, [&] { set_up_one_domain(r); });
  else
    set_up_in_process(r);
  r.layer.reset();  // (the subdomains keep their own nodes of the PML)
  std::vector<Subdomain<Real>*> subdomains;
  for (const auto& s : r.owned) subdomains.push_back(s.get());
  Stepping<Real> stepping;
  stepping.subdomains = subdomains;
  stepping.exchange = r.exchange.get();
  stepping.fluid_exchange = r.fluid_exchange.get();
  stepping.history_merge = r.merge ? &*r.merge : nullptr;
  stepping.snapshot_merge = r.snapshot_merge ? &*r.snapshot_merge : nullptr;
  stepping.processes = r.group ? &*r.group : nullptr;
  stepping.side_by_side = preflight.shots_parallel ? processes : nullptr;
  // (Over processes every one takes part in a checkpoint; the first alone has the observer.)
  stepping.checkpoint_every = r.observer || r.group ? options.checkpoint_every : 0;
  stepping.clock = &clock;
  stepping.started = clock.start();
  return run_shots<Real>(model, preflight, options, r.observer, r.observer_guard, stepping);
}


template ExplicitRun run_typed<float>(const Exec&, const Model&, const Preflight&, const RunOptions&, Observer*,
                                      Clock::time_point, std::string&);
template ExplicitRun run_typed<double>(const Exec&, const Model&, const Preflight&, const RunOptions&, Observer*,
                                       Clock::time_point, std::string&);

}  // namespace tremor::explicit_fe
