#include "tremor/explicit/time_loop.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>
#include <type_traits>

#include "tremor/backend/reduce.hpp"
#include "tremor/backend/subnormals.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/growth_watch.hpp"
#include "tremor/explicit/processes.hpp"
#include "tremor/model/pml.hpp"

namespace tremor::explicit_fe {

namespace {

// A DofReport's component where the worst is a fluid's potential, or its pressure.
constexpr int kFluidPotential = 3, kFluidPressure = 4;

// The sum of term(u_n-1, u_n) over the DOFs of the subdomain's displacement, each counted once, of
// every shot it steps (a reduction on its Exec).
template <class Real, class Term>
double over_displacement(const Subdomain<Real>& d, Term term) {
  const View<const Real> u = d.scheme->displacement(), before = d.scheme->previous_displacement();
  // A node's values: dim of each shot, side by side.
  const Index width = d.numbering.dim() * d.columns, inner = d.n_counted * width;
  const Index* shared = d.shared_counted.data();
  return sum<double>(d.exec, inner + d.shared_counted.size() * width, [=] TREMOR_LAMBDA(Index i) {
    const Index k = i < inner ? i : shared[(i - inner) / width] * width + (i - inner) % width;
    return term(static_cast<double>(before[k]), static_cast<double>(u[k]));
  });
}

// The same over the fluid's potential (a node its parts share counted in each).
template <class Real, class Term>
double over_potential(const FluidTerm<Real>& fluid, Term term) {
  const CentralDifference<Real>& scheme = fluid.fluid_scheme();
  const View<const Real> chi = scheme.displacement(), before = scheme.previous_displacement();
  return sum<double>(fluid.work_exec(), chi.size, [=] TREMOR_LAMBDA(Index i) {
    return term(static_cast<double>(before[i]), static_cast<double>(chi[i]));
  });
}

struct NotFinite {  // 1 where the value is NaN or Inf
  TREMOR_HOST_DEVICE double operator()(double, double now) const { return std::isfinite(now) ? 0.0 : 1.0; }
};
struct StepSquared {  // (u_n - u_n-1)^2: the watch's (growth_watch.hpp)
  TREMOR_HOST_DEVICE double operator()(double before, double now) const { return (now - before) * (now - before); }
};

// Values of the subdomain's state that are NaN or Inf: its displacement's, and its fluid's potential
// and pressure where read (a fluid that meets no solid, or whose growth has not reached one yet, is
// checked as well).
template <class Real>
double non_finite(const Subdomain<Real>& d) {
  double bad = over_displacement(d, NotFinite{});
  if (const FluidTerm<Real>* fluid = d.fluid) {
    bad += over_potential(*fluid, NotFinite{});
    const View<const Real> values = fluid->pressure();
    bad += sum<double>(fluid->work_exec(), values.size, [=] TREMOR_LAMBDA(Index i) {
      return std::isfinite(static_cast<double>(values[i])) ? 0.0 : 1.0;
    });
  }
  return bad;
}

// Whether `value` (of `node` of the model, `component`, shot `column`) is worse than `worst`,
// which it then replaces.
inline void consider(DofReport& worst, double value, Index node, int component, std::size_t column) {
  const int rank = std::isnan(value) ? 2 : std::isinf(value) ? 1 : 0;
  const double size = std::isfinite(value) ? std::abs(value) : 0.0;
  const DofReport dof{double(rank), size, double(node), double(component), value, double(column)};
  if (worse(dof, worst)) worst = dof;
}

// The worst DOF of a state that is not finite (worse(): NaN first, then Inf, then the largest
// |u|, then the lowest node); its rank starts below any DOF's.
// (A fluid's potential is component kFluidPotential of its node.)
template <class Real>
void find_worst(const Subdomain<Real>& d, DofReport& worst) {
  std::vector<Real> previous, u;
  d.scheme->get_state(previous, u);
  const int dim = d.numbering.dim();
  const auto columns = static_cast<std::size_t>(d.columns);
  for (std::size_t i = 0; i < u.size(); ++i) {
    const std::size_t of_shot = i / columns;  // its DOF in its shot
    consider(worst, static_cast<double>(u[i]), d.numbering.global_node(static_cast<Index>(of_shot) / dim),
             static_cast<int>(of_shot % dim), i % columns);
  }
  if (const FluidTerm<Real>* fluid = d.fluid) {
    fluid->fluid_scheme().get_state(previous, u);
    for (const int component : {kFluidPotential, kFluidPressure}) {
      if (component == kFluidPressure) u = fluid->pressure_on_host();
      for (std::size_t i = 0; i < u.size(); ++i)
        consider(worst, static_cast<double>(u[i]), fluid->model_node(static_cast<Index>(i / columns)), component,
                 i % columns);
    }
  }
}

// Why a run stops at `step`: the worst DOF (find_worst), its shot where the model has shots (those
// stepped with it, `batch_shots` from `first_shot`, stopping there too), how many values are not finite,
// and what usually makes them so.
std::string not_finite(const Preflight& p, const Model& model, int first_shot, std::size_t batch_shots, long long step,
                       double dt, Label node, const DofReport& worst, double bad) {
  std::string shot, others;
  if (!model.shots.empty()) {
    // (A last batch's columns past the model's shots repeat its last: the lowest column is reported.)
    const auto k = std::min(static_cast<std::size_t>(first_shot) + static_cast<std::size_t>(worst[5]),
                            model.shots.size() - 1);
    shot = str(" in shot ", k + 1, " '", model.shots[k].name, "'");
    if (batch_shots > 1)
      others = str(" The ", batch_shots - 1, " shot", batch_shots == 2 ? "" : "s", " stepped together with it stop",
                   batch_shots == 2 ? "s" : "", " there too, with ", batch_shots == 2 ? "its" : "their",
                   " histories up to ",
                   "there (--shots-together 1 steps each alone).");
  }
  return str("the solution is not finite at step ", step, " (t = ", static_cast<double>(step) * dt, " s)", shot,
             ": node ", node,
             static_cast<int>(worst[3]) == kFluidPotential  ? str(" has the fluid's potential chi = ")
             : static_cast<int>(worst[3]) == kFluidPressure ? str(" has the fluid's pressure p = ")
                                                            : str(" has u", "xyz"[static_cast<int>(worst[3])], " = "),
             worst[4], "; ",
             static_cast<long long>(bad), " values are NaN or Inf.", others, " The time step ", dt,
             " s against the stable ", p.stable_dt,
             " s, or the loads, are the usual causes",
             p.pml.any() ? "; a PML without multiaxial can grow (where faces that are not lined run through it, "
                           "in a layer only two high-order elements thick, in an anisotropic material whose slowness "
                           "turns back): line those faces, thicken it, or raise its multiaxial (docs/model-file.md, "
                           "\"PML\")"
                         : "");
}

// The [[absorbing]] PML a growth message names (the first's origin, and how many more).
std::string pml_layers(const Model& model) {
  std::string first;
  int count = 0;
  for (const AbsorbingLayer& layer : model.absorbing)
    if (layer.kind == AbsorbingKind::Pml && count++ == 0) first = layer.origin.empty() ? model.source : layer.origin;
  return str(first, count > 1 ? str(" (and ", count - 1, " more)") : std::string());
}

// What a GrowthWatch that said Growing (in the fluid where `fluid`) found, and what helps.
std::string growth_said(const Model& model, const GrowthWatch& watch, bool fluid) {
  return str("the motion", fluid ? " of the fluid" : "", " grew ", group_digits(std::llround(watch.growth())),
             "-fold after the loads ended (from t = ", number(watch.floor_time()), " s, e-folding every ",
             number(1.0 / watch.rate()), " s): the PML of ", pml_layers(model),
             " has a mode that grows here: raise its ",
             fluid ? "" : str("grid_damping (", default_pml_grid_damping, " by default; to 1), "),
             "multiaxial (0.05 to 0.2), or its reflection (1e-2) (docs/model-file.md, \"PML\")");
}

// The watches of a run with a PML (growth_watch.hpp): the solid's and the fluid's apart (their
// units differ), fed at each check with the norm of the state's change over a step.
template <class Real>
struct Growth {
  GrowthWatch watches[2];  // the solid's, the fluid's

  // One check at time t (s): a watch that says Growing is warned of (by the first process); the
  // index of one that passed what the loads made, else -1.
  int check(std::span<Subdomain<Real>* const> subdomains, ProcessGroup* processes, const Model& model, double t,
            bool loads_over) {
    double norms[2] = {0.0, 0.0};
    for (const Subdomain<Real>* d : subdomains) {
      norms[0] += over_displacement(*d, StepSquared{});
      if (d->fluid) norms[1] += over_potential(*d->fluid, StepSquared{});
    }
    for (int k = 0; k < 2; ++k) {
      if (processes) norms[k] = processes->sum(norms[k]);
      const GrowthWatch::Verdict verdict = watches[k].observe(t, std::sqrt(norms[k]), loads_over);
      if (verdict == GrowthWatch::Verdict::Growing && (!processes || processes->root()))
        log::warn(str("t = ", number(t), " s: ", growth_said(model, watches[k], k == 1),
                      "; the run stops if it passes what the loads made"));
      if (verdict == GrowthWatch::Verdict::Overtook) return k;
    }
    return -1;
  }
};

// A subdomain's internal forces before the exchange: K u (its first part where split) and every
// term's. The terms that can start beside the apply do (StepTerm::start_forces: `beside`, a flag
// per term), and are joined first, so that no other term's plain adds meet their atomics.
template <class Real>
View<Real> internal_forces(Subdomain<Real>& d, std::vector<char>& beside) {
  const View<Real> zeroed = d.scheme->zeroed_forces();
  for (std::size_t t = 0; t < d.terms.size(); ++t)
    beside[t] = zeroed.data && d.terms[t]->start_forces(*d.scheme, zeroed);
  const View<Real> forces = d.split ? d.scheme->apply_stiffness(d.split->first()) : d.scheme->apply_stiffness();
  for (const int first : {1, 0})
    for (std::size_t t = 0; t < d.terms.size(); ++t)
      if (beside[t] == first) d.terms[t]->add_forces(*d.scheme, forces);
  return forces;
}

// The run's state at `step` in the model's numbering (SolverState, a checkpoint's), from its
// subdomains: over processes gathered to the first (this process's one subdomain), else merged
// here. The file the checkpoint counts holds every snapshot up to this step first (drained).
template <class Real>
SolverState checkpoint_state(std::span<Subdomain<Real>* const> subdomains, const LoopSettings& settings,
                             long long step) {
  const Model& model = *settings.model;
  SolverState state;
  state.step = step;
  const auto n_model = static_cast<std::size_t>(settings.preflight->n_dofs);
  state.previous.assign(n_model, 0.0);
  state.current.assign(n_model, 0.0);
  // (A node several subdomains hold has the same bits in each.)
  std::vector<const std::vector<PendingSample>*> receivers;
  // Each subdomain's pending samples: its solid's, then its fluid's (SolverState::receivers).
  std::vector<std::vector<PendingSample>> pending(subdomains.size());
  std::vector<PendingSample> snapshots;
  std::vector<ElementValues> memory, pml_nodes, fluid_pml, fluid_pml_nodes;
  std::vector<double> previous, current;  // the last subdomain's levels (over processes, the only one's)
  for (std::size_t s = 0; s < subdomains.size(); ++s) {
    Subdomain<Real>* d = subdomains[s];
    for (ElementValues& piece : element_values(*d)) memory.push_back(std::move(piece));
    pml_nodes.push_back(pml_node_values(*d));
    std::vector<Real> before, now;
    d->scheme->get_state(before, now);
    previous.assign(before.begin(), before.end());
    current.assign(now.begin(), now.end());
    d->numbering.to_global(previous, state.previous);
    d->numbering.to_global(current, state.current);
    pending[s] = d->recorder->pending();
    if (const FluidTerm<Real>* fluid = d->fluid) {  // its potential at its nodes of the whole fluid's
      fluid->get_state(state.fluid_previous, state.fluid_current);
      for (PendingSample& sample : fluid->pending()) pending[s].push_back(std::move(sample));
      fluid_pml.emplace_back();
      fluid_pml_nodes.emplace_back();
      fluid->get_pml_state(fluid_pml.back(), fluid_pml_nodes.back());
    }
    receivers.push_back(&pending[s]);
    d->snapshots->drain();
    snapshots.push_back(d->snapshots->pending(d->scheme->displacement()));
  }
  if (ProcessGroup* processes = settings.processes) {  // this process's one subdomain, to the first
    ProcessGroup::FluidPiece fluid;  // its part's potential (get_state wrote it into the whole fluid's)
    if (const FluidTerm<Real>* term = subdomains.front()->fluid) {
      fluid.pml = std::move(fluid_pml.front());
      fluid.pml_nodes = std::move(fluid_pml_nodes.front());
      fluid.n_elements = settings.preflight->fluid->mesh.n_model_elements;
      fluid.nodes = term->whole_nodes();
      fluid.n_nodes = static_cast<Index>(state.fluid_current.size());
      for (const Index node : fluid.nodes) {
        fluid.previous.push_back(state.fluid_previous[static_cast<std::size_t>(node)]);
        fluid.current.push_back(state.fluid_current[static_cast<std::size_t>(node)]);
      }
    }
    processes->gather_state(step, previous, current, *receivers.front(), snapshots.front(), memory,
                            pml_nodes.front(), model.mesh.n_elements(), fluid, state);
  } else {
    if (settings.history_merge) {
      state.receivers = settings.history_merge->merge_pending(receivers);
      state.snapshot = settings.snapshot_merge->merge_pending(snapshots);
    } else {  // one subdomain holding every node
      state.receivers = *receivers.front();
      state.snapshot = snapshots.front();
    }
    merge_element_values(memory, model.mesh.n_elements(), state.memory_offsets, state.memory);
    merge_node_values(pml_nodes, state.pml_nodes, state.pml_node_values);
    if (const FluidSetup* fluid = settings.preflight->fluid.get()) {
      merge_element_values(fluid_pml, fluid->mesh.n_model_elements, state.fluid_pml_offsets, state.fluid_pml);
      merge_node_values(fluid_pml_nodes, state.fluid_pml_nodes, state.fluid_pml_node_values);
    }
  }
  state.shot = settings.shot;
  return state;
}

}  // namespace

template <class Real>
void run_subdomains(std::span<Subdomain<Real>* const> subdomains, Exchange<Real>& exchange,
                    const LoopSettings& settings, ExplicitRun& run, Exchange<Real>* fluid_exchange) {
  const Preflight& p = *settings.preflight;
  const Model& model = *settings.model;
  // A float run on the host steps with subnormals flushed to zero (backend/subnormals.hpp).
  const FlushSubnormals flush(std::is_same_v<Real, float> && !subdomains.empty() &&
                              subdomains.front()->exec.space() == MemorySpace::Host);
  const double dt = p.dt;
  Observer* observer = settings.observer;
  std::vector<View<Real>> forces(subdomains.size()), fluid_forces(fluid_exchange ? subdomains.size() : 0);
  if (fluid_exchange)
    for (Subdomain<Real>* d : subdomains)
      TREMOR_CHECK(d->fluid && d->fluid->is_part(), "a fluid's exchange for a subdomain without its part of the fluid");
  std::vector<std::vector<char>> started(subdomains.size());  // per term of each subdomain
  for (std::size_t s = 0; s < subdomains.size(); ++s) started[s].resize(subdomains[s]->terms.size());
  long long step = settings.first_step;
  // A run with a PML: motion that grows once the loads end, said once, and the run stops where it
  // passes everything the loads made.
  const bool watched = p.pml.any() || (p.fluid && p.fluid->pml.any());
  Growth<Real> growth;
  // Failures are agreed over the processes of a run over several (run_agreed), thrown otherwise.
  const parallel::Communicator* communicator = settings.processes ? &settings.processes->communicator() : nullptr;
  // The one host synchronisation every check_every steps: samples, then the NaN/Inf count. Over
  // several processes the samples and snapshots go to the first, and a failure on any stops all.
  // Then the checkpoint, when due, and progress. True: the run stops here.
  const auto check = [&](bool checkpoint) -> bool {
    ProcessGroup* processes = settings.processes;
    double bad = 0.0;
    run_agreed(
        communicator,
        [&] {
          for (Subdomain<Real>* d : subdomains) {
            d->recorder->flush();
            if (d->fluid) d->fluid->flush_samples();
            if (processes) d->snapshots->drain();  // so that the outbox holds them up to this step
            d->snapshots->check();  // a snapshot that failed to be written stops the run here
            bad += non_finite(*d);
          }
        },
        // (The first process's merges write the result file: a failure there is agreed too.)
        [&] {
          if (processes) processes->ship();
        });
    if (processes) bad = processes->sum(bad);
    // The run fails at this step, where the worst DOF is (over the subdomains and processes).
    const auto fail = [&] {
      DofReport worst{-1.0, 0.0, 0.0, 0.0, 0.0, 0.0};
      for (const Subdomain<Real>* d : subdomains) find_worst(*d, worst);
      if (processes) worst = processes->worst(worst);
      run.status = RunStatus::Failed;
      run.bad_step = step;
      run.bad_node = model.mesh.node_labels[static_cast<std::size_t>(worst[2])];
      return worst;
    };
    if (bad > 0.0) {
      const DofReport worst = fail();
      run.message = not_finite(p, model, settings.shot, settings.batch, step, dt, run.bad_node, worst, bad);
      return true;
    }
    if (watched) {
      const double t = static_cast<double>(step) * dt;
      if (const int k = growth.check(subdomains, processes, model, t, t > p.loads_end); k >= 0) {
        (void)fail();
        run.message = str("unstable at step ", step, " (t = ", number(t), " s): ",
                          growth_said(model, growth.watches[k], k == 1), ". It has passed everything the loads made (the largest |u| at node ", run.bad_node,
                          "): the histories' last part is the growing mode's");
        return true;
      }
    }
    if (checkpoint) {
      const SolverState state = checkpoint_state<Real>(subdomains, settings, step);
      run_agreed(communicator, [&] {
        if (observer) {
          const std::lock_guard lock(*settings.observer_guard);
          observer->on_checkpoint(state);
        }
      });
    }
    bool stop = false;
    if (observer) {
      const std::lock_guard lock(*settings.observer_guard);
      observer->on_progress(step, p.steps, static_cast<double>(step) * dt);
      stop = (step < p.steps || settings.more_shots > 0) && observer->stop_requested();
    }
    if (processes) stop = processes->stop_decision(stop);
    if (stop) {
      run.status = RunStatus::Stopped;
      run.message = step < p.steps ? str("stopped at step ", step, " of ", p.steps, " (t = ",
                                         static_cast<double>(step) * dt, " s) on request")
                                   : str("stopped on request at the end of a shot, ", settings.more_shots,
                                         " shot", settings.more_shots == 1 ? "" : "s", " after it not stepped");
      return true;
    }
    return false;
  };
  bool stopped = settings.checkpoint_first && settings.checkpoint_every > 0 && check(true);
  while (!stopped && step < p.steps) {
    // F at t_n drives u_n+1 (Eq. 4); prescribed values at t_n+1. The shared nodes' internal forces
    // (K u and the per-step terms' forces) are summed between the operator apply and the update. A
    // term may start its forces before the apply, to run beside it (StepTerm::start_forces).
    // A split subdomain applies the elements touching its shared nodes first, and the interior's
    // while the exchange runs.
    // With a decomposed fluid, its forces first (from u_n), summed over the parts: each part's
    // fluid then steps in internal_forces (FluidTerm::add_forces), adding C p to the solid's.
    if (fluid_exchange) {
      for (std::size_t s = 0; s < subdomains.size(); ++s)
        fluid_forces[s] = subdomains[s]->fluid->fluid_forces(*subdomains[s]->scheme);
      fluid_exchange->sum_forces(fluid_forces);
    }
    exchange.begin_forces();
    for (std::size_t s = 0; s < subdomains.size(); ++s) {
      Subdomain<Real>& d = *subdomains[s];
      d.loads->update(step);
      forces[s] = internal_forces(d, started[s]);
    }
    exchange.start_forces(forces);
    for (Subdomain<Real>* d : subdomains)
      if (d->split) d->scheme->apply_stiffness(d->split->second());
    exchange.finish_forces(forces);
    for (Subdomain<Real>* d : subdomains)
      d->scheme->advance(d->loads->loaded_dofs(), d->loads->loads(), d->loads->prescribed_dofs(),
                         d->loads->prescribed_values());
    ++step;
    for (Subdomain<Real>* d : subdomains) {
      d->recorder->record(step, d->scheme->previous_displacement(), d->scheme->displacement());
      d->snapshots->take(step, d->scheme->previous_displacement(), d->scheme->displacement());
    }
    const bool checkpoint =
        settings.checkpoint_every > 0 && step % settings.checkpoint_every == 0 && step < p.steps;
    if (step % settings.check_every != 0 && step != p.steps && !checkpoint) continue;
    stopped = check(checkpoint);
  }
  // Every snapshot taken is passed on before the run returns (over processes, a failure in doing
  // so is agreed, so that no process waits for another).
  run_agreed(
      communicator, [&] { for (Subdomain<Real>* d : subdomains) d->snapshots->drain(); },
      [&] {
        if (settings.processes) settings.processes->ship();
      });
  run.steps = step;
}

template void run_subdomains(std::span<Subdomain<float>* const>, Exchange<float>&, const LoopSettings&,
                             ExplicitRun&, Exchange<float>*);
template void run_subdomains(std::span<Subdomain<double>* const>, Exchange<double>&, const LoopSettings&,
                             ExplicitRun&, Exchange<double>*);

}  // namespace tremor::explicit_fe
