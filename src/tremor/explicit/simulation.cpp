#include "tremor/explicit/simulation.hpp"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <mutex>
#include <optional>

#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/fluid.hpp"
#include "tremor/explicit/loading.hpp"
#include "tremor/explicit/processes.hpp"
#include "tremor/explicit/shots.hpp"
#include "tremor/explicit/subdomain.hpp"
#include "tremor/fem/coupling.hpp"
#include "tremor/model/renumber.hpp"
#include "tremor/parallel/exchange.hpp"

namespace tremor::explicit_fe {

struct Simulation::Runner {
  virtual ~Runner() = default;
  virtual ExplicitRun run(const Model& excitation, const RunOptions& options, Observer* observer) = 0;
  Model model;
  Preflight preflight;
  std::vector<SetupPhase> setup;
  double setup_seconds = 0.0;
  std::atomic<bool> running{false};  // a run holds the subdomain's fields, loads and recorder
};

template <class Real>
struct Simulation::Typed final : Simulation::Runner {
  parallel::NoSharedNodes<Real> exchange;
  std::mutex observer_guard;  // the observer sees one call at a time (as in run_explicit)
  std::unique_ptr<Subdomain<Real>> d;

  Typed(Model m, Preflight p, Clock::time_point called) {
    model = std::move(m);
    preflight = std::move(p);
    // (one process's, as run_explicit's: with a fluid, a stream of its own, solid_stream_priority)
    const Exec exec =
        process_exec(preflight.backend, RunOptions{}, true, solid_stream_priority(preflight.fluid != nullptr));
    SetupClock clock(exec, called);
    clock.append(preflight.phases);
    // (With fluids, the solid is set up and steps the fluid as a term, as in run_explicit.)
    const Model& solid = preflight.solid ? *preflight.solid : model;
    // (The PML's nodes, which the numbering and the subdomain both take, made once.)
    const std::optional<PmlNodeProfile> layer =
        preflight.pml.any() ? std::optional(pml_node_profile(solid.mesh, preflight.pml)) : std::nullopt;
    const PmlNodeProfile* nodes = layer ? &*layer : nullptr;
    d = set_up_subdomain<Real>(exec, solid, one_domain_numbering(solid, preflight, nodes), preflight, exchange, clock,
                               nullptr, observer_guard, nodes);
    clock.lap("set-up kept for the runs");
    setup_seconds = clock.total();
    setup = clock.take();
  }

  ExplicitRun run(const Model& excitation, const RunOptions& options, Observer* observer) override {
    const auto called = Clock::now();
    const Mesh& mesh = excitation.mesh;
    TREMOR_CHECK(mesh.dim() == model.mesh.dim() && mesh.n_nodes() == model.mesh.n_nodes() &&
                     mesh.n_elements() == model.mesh.n_elements(),
                 excitation.source, ": a run of a set-up model takes its mesh (", model.mesh.n_nodes(), " nodes, ",
                 model.mesh.n_elements(), " elements); this one has ", mesh.n_nodes(), " and ", mesh.n_elements());
    // With fluids, the solid's loads and receivers on the solid (in the set-up's numbering: its
    // fluid's own nodes last), the fluid's on the FluidTerm.
    std::optional<Model> solid_part, renumbered;
    if (preflight.solid) solid_part.emplace(fem::solid_part(excitation));
    const Model& solid = solid_part ? *solid_part : excitation;
    if (!d->numbering.identity()) renumbered.emplace(renumber_nodes(solid, d->numbering.local_to_global()));
    const Model& local = renumbered ? *renumbered : solid;
    auto loading = std::make_unique<Loading>(local);
    TREMOR_CHECK(loading->constrained_dofs() == d->loading->constrained_dofs(), excitation.source,
                 ": the run holds other DOFs fixed or prescribed than the set-up (", loading->constrained_dofs().size(),
                 " against ", d->loading->constrained_dofs().size(),
                 "): the integrator is built for the set-up's; prescribe the same node sets and components");
    Preflight p = preflight;
    plan_steps(p, excitation, options);
    p.snapshot_every = 0;
    const double dt = p.dt;
    // The run's loads and receivers on the set-up: the subdomain reads the excitation model while
    // it runs (its mesh is the set-up's), and the set-up's again after.
    struct Restore {
      Subdomain<Real>& d;
      const Model* model;
      ~Restore() { d.model = model; }
    } restore{*d, d->model};
    d->model = &local;
    d->loading = std::move(loading);
    d->loads = std::make_unique<DeviceLoading<Real>>(d->exec, *d->loading, dt);
    std::vector<History> histories = make_histories(excitation, dt), in_fluid;
    if (d->fluid) {
      const auto fluid = std::stable_partition(histories.begin(), histories.end(),
                                               [](const History& h) { return !records_fluid(h); });
      in_fluid.assign(std::make_move_iterator(fluid), std::make_move_iterator(histories.end()));
      histories.erase(fluid, histories.end());
      d->fluid->load_shot(fluid_loading(solid, preflight.fluid->mesh));
      d->fluid->set_histories(std::move(in_fluid));
    }
    for (History& history : histories) d->numbering.to_local(history);
    d->recorder = std::make_unique<Recorder<Real>>(d->exec, std::move(histories), dt, mesh.n_nodes() * mesh.dim());
    if (observer) {
      const auto on_sample = [observer, this](const History& history, std::size_t sample) {
        const std::lock_guard lock(observer_guard);
        observer->on_sample(history, sample);
      };
      d->recorder->set_on_sample(on_sample);
      if (d->fluid) d->fluid->set_on_sample(on_sample);
    }
    d->snapshots->restore(PendingSample{});

    Subdomain<Real>* const one[] = {d.get()};
    Stepping<Real> stepping;
    stepping.subdomains = one;
    stepping.exchange = &exchange;
    stepping.at_rest = false;  // whatever the run before left
    ExplicitRun run = run_shots<Real>(solid, p, options, observer, observer_guard, stepping);
    run.setup_seconds = seconds_between(called, stepping.started);  // the loads and receivers
    return run;
  }
};

Simulation::Simulation(const Model& model, const RunOptions& options) {
  const auto called = Clock::now();
  TREMOR_CHECK(options.domains <= 1 && !options.communicator && options.decomposition.empty(),
               "a kept set-up runs one domain in one process: decompose with tremor run (--gpus, mpirun, --domains)");
  TREMOR_CHECK(options.resume == nullptr, "a kept set-up starts every run from rest; resume with tremor run");
  Preflight p = options.preflight ? *options.preflight : explicit_fe::preflight(model, options);
  TREMOR_CHECK(p.ordering == NodeOrdering::None,
               "a kept set-up runs in the model's node order; leave the ordering 'none'");
  TREMOR_CHECK(p.blocks.empty() && !p.op->whole_mesh_only,
               "the partitioned operator runs through tremor run; a kept set-up takes the others");
  // Each run's loads and receivers replace the last's on one set of fields: one shot at a time.
  if (p.shots_together > 1) {
    p.shots_together = 1;
    p.shots_why = "a kept set-up steps one shot at a time";
  }
  if (p.precision == Precision::Float)
    runner_ = std::make_unique<Typed<float>>(model, std::move(p), called);
  else
    runner_ = std::make_unique<Typed<double>>(model, std::move(p), called);
}

Simulation::~Simulation() = default;

const Model& Simulation::model() const { return runner_->model; }
const Preflight& Simulation::preflight() const { return runner_->preflight; }
const std::vector<SetupPhase>& Simulation::setup() const { return runner_->setup; }
double Simulation::setup_seconds() const { return runner_->setup_seconds; }

ExplicitRun Simulation::run(const Model& excitation, const RunOptions& options, Observer* observer) {
  // A run steps the set-up's one set of fields with its own loads and recorder in place: a second
  // run at the same time (another thread) would step and record over it.
  TREMOR_CHECK(!runner_->running.exchange(true),
               "this set-up is running another run (from another thread); a kept set-up runs one run at a time: "
               "wait for it, or give each thread its own set-up");
  struct Done {
    std::atomic<bool>& running;
    ~Done() { running = false; }
  } const done{runner_->running};
  return runner_->run(excitation, options, observer);
}

}  // namespace tremor::explicit_fe
