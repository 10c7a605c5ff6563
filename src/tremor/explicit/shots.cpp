#include "tremor/explicit/shots.hpp"

#include <algorithm>
#include <sys/resource.h>

#include "tremor/backend/memory.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/processes.hpp"
#include "tremor/explicit/time_loop.hpp"

namespace tremor::explicit_fe {

namespace {

// The model's shots in order (model/transducer.hpp), or one null shot (every load) without any.
std::vector<const Shot*> shots_of(const Model& model) {
  std::vector<const Shot*> shots;
  for (const Shot& shot : model.shots) shots.push_back(&shot);
  if (shots.empty()) shots.push_back(nullptr);
  return shots;
}

// The settings every run's loop takes (model, pre-flight, check interval, observer and its guard),
// after passing on_start to the observer (under the guard): the start of a run's time loop.
LoopSettings start_loop(const Model& model, const Preflight& preflight, int check_every, Observer* observer,
                        std::mutex& observer_guard) {
  if (observer) {
    const std::lock_guard lock(observer_guard);
    observer->on_start(preflight);
  }
  LoopSettings settings;
  settings.model = &model;
  settings.preflight = &preflight;
  settings.check_every = check_every;
  settings.observer = observer;
  settings.observer_guard = &observer_guard;
  return settings;
}

// Shot `index` stepped: its histories passed to the observer (if any, under `guard`) and kept in
// run.shots.
void end_shot(Observer* observer, std::mutex& guard, std::size_t index, std::vector<History> histories,
              ExplicitRun& run) {
  if (observer) {
    const std::lock_guard lock(guard);
    observer->on_shot_end(index, histories);
  }
  run.shots.push_back(std::move(histories));
}


// Continue from a checkpoint (in the model's numbering, whatever the decomposition that wrote it):
// its state replaces the start from rest and each subdomain takes its part; the samples up to its
// step were passed on by the run that wrote it. Returns the checkpoint's step.
template <class Real>
long long resume_from(const SolverState& state, const Preflight& preflight, const Stepping<Real>& stepping) {
  const auto n_dofs = static_cast<std::size_t>(preflight.n_dofs);
  TREMOR_CHECK(state.previous.size() == n_dofs && state.current.size() == n_dofs, "checkpoint holds ",
               state.current.size(), " DOFs; the model has ", n_dofs);
  TREMOR_CHECK(state.step >= 0 && state.step <= preflight.steps, "checkpoint at step ", state.step,
               " lies outside the run's ", preflight.steps, " steps");
  for (std::size_t s = 0; s < stepping.subdomains.size(); ++s) {
    Subdomain<Real>& sub = *stepping.subdomains[s];
    const std::size_t part =
        stepping.processes ? static_cast<std::size_t>(stepping.processes->communicator().rank()) : s;
    const std::vector<double> state_previous = sub.numbering.to_local(state.previous);
    const std::vector<double> state_current = sub.numbering.to_local(state.current);
    const std::vector<Real> previous(state_previous.begin(), state_previous.end());
    const std::vector<Real> current(state_current.begin(), state_current.end());
    sub.scheme->set_state(previous, current, state.step);
    restore_element_values(sub, state);
    const HistoryMerge* merge = stepping.history_merge;
    std::vector<PendingSample> pending = merge ? merge->split_pending(state.receivers, part) : state.receivers;
    if (sub.fluid) {  // the fluid's samples after the solid's (SolverState::receivers)
      const std::size_t solid = std::min(pending.size(), sub.recorder->histories().size());
      std::vector<PendingSample> fluid(pending.begin() + static_cast<std::ptrdiff_t>(solid), pending.end());
      pending.resize(solid);
      sub.fluid->restore(state.fluid_previous, state.fluid_current, state.step, std::move(fluid));
      sub.fluid->restore_pml(state);
    } else {
      TREMOR_CHECK(state.fluid_current.empty(), "the checkpoint holds a fluid's potential; the model has no fluid");
    }
    sub.recorder->restore_pending(std::move(pending));
    const SnapshotMerge* snapshots = stepping.snapshot_merge;
    sub.snapshots->restore(snapshots ? snapshots->split_pending(state.snapshot, part) : state.snapshot);
  }
  return state.step;
}

// The histories recorded, in the model's numbering: merged from the subdomains (complete on the
// first process alone: empty on the others), or the one subdomain's. `take`: the run's last,
// moved out; else a shot's, copied (the recorder restarts for the next shot).
template <class Real>
std::vector<History> histories_of(const Stepping<Real>& stepping, bool take) {
  std::vector<History> histories;
  if (HistoryMerge* merge = stepping.history_merge) {
    histories = take ? merge->take() : merge->take_samples();
    if (stepping.processes && !stepping.processes->root()) histories.clear();
    return histories;
  }
  Subdomain<Real>& d = *stepping.subdomains.front();
  histories = take ? d.recorder->take_histories() : d.recorder->histories();
  for (History& history : histories) d.numbering.to_global(history);
  if (d.fluid)  // the fluid's receivers after the others
    for (History& history : d.fluid->histories(take)) histories.push_back(std::move(history));
  return histories;
}

std::size_t peak_resident_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<std::size_t>(usage.ru_maxrss) * 1024;  // kilobytes on Linux
}

}  // namespace

template <class Real>
ExplicitRun run_shots(const Model& model, const Preflight& preflight, const RunOptions& options,
                      Observer* observer, std::mutex& observer_guard, const Stepping<Real>& stepping) {
  const double dt = preflight.dt;
  const std::span<Subdomain<Real>* const> subdomains = stepping.subdomains;
  // The model's shots in order, on this one set-up; or one with every load. A resumed run
  // continues the checkpoint's shot.
  const std::vector<const Shot*> shots = shots_of(model);
  const std::size_t first_shot = options.resume ? static_cast<std::size_t>(std::max(options.resume->shot, 0)) : 0;
  TREMOR_CHECK(first_shot < shots.size(), "checkpoint of shot ", first_shot + 1, "; the model has ", shots.size(),
               " shot", shots.size() == 1 ? "" : "s");
  ExplicitRun run;
  run.dt = dt;
  run.first_shot = static_cast<int>(first_shot);
  LoopSettings settings = start_loop(model, preflight, options.check_every, observer, observer_guard);
  settings.checkpoint_every = stepping.checkpoint_every;
  settings.history_merge = stepping.history_merge;
  settings.snapshot_merge = stepping.snapshot_merge;
  settings.processes = stepping.processes;
  Clock::time_point loop_started = Clock::now();
  double loop_steps = 0.0;
  // Shots stepped together (Subdomain::columns, every subdomain's): `batch` of them from shot k at once.
  const int together = subdomains.front()->columns;
  std::size_t batch = 1;
  for (std::size_t k = first_shot; k < shots.size(); k += batch) {
    batch = together > 1 ? std::min(static_cast<std::size_t>(together), shots.size() - k) : 1;
    const bool resumed = options.resume && k == first_shot;
    if (k > first_shot)  // the last shot's samples are out: a new shot starts from nothing
      for (Subdomain<Real>* s : subdomains) {
        s->recorder->restart();
        if (s->fluid) s->fluid->restart_samples();
        s->snapshots->restore(PendingSample{});
      }
    if (together > 1)
      for (Subdomain<Real>* s : subdomains)
        load_shots(*s, model, preflight, std::span<const Shot* const>(shots).subspan(k, batch));
    else if (shots[k])
      for (Subdomain<Real>* s : subdomains) load_shot(*s, model, preflight, *shots[k]);
    // Start from rest, with prescribed DOFs on their motion at t = -dt and 0 (fields known to be
    // zero are set only where something is prescribed).
    if (!resumed)
      for (Subdomain<Real>* s : subdomains)
        if (k > first_shot || !stepping.at_rest || !s->stepped_loading().prescribed_dofs().empty())
          start_from_rest(*s, dt);
    if (observer && shots[k]) {
      const std::lock_guard lock(observer_guard);
      observer->on_shot(k, resumed);
    }
    long long first_step = 0;
    if (resumed) {
      first_step = resume_from(*options.resume, preflight, stepping);
    } else {
      for (Subdomain<Real>* s : subdomains) {
        s->recorder->record(0, s->scheme->previous_displacement(), s->scheme->displacement());
        s->snapshots->take(0, s->scheme->previous_displacement(), s->scheme->displacement());
      }
    }
    if (k == first_shot) {
      if (stepping.clock) {
        stepping.clock->lap("snapshot buffers and initial state");
        run.setup_seconds = stepping.clock->total();
        run.setup = stepping.clock->take();
      }
      loop_started = Clock::now();
    }
    settings.first_step = first_step;
    settings.shot = static_cast<int>(k);
    // Between shots, a checkpoint at the new shot's start: what a resumed run starts from.
    settings.checkpoint_first = k > first_shot;
    run_subdomains<Real>(subdomains, *stepping.exchange, settings, run, stepping.fluid_exchange);
    loop_steps += static_cast<double>(run.steps - first_step) * static_cast<double>(batch);
    for (Subdomain<Real>* s : subdomains) {
      s->recorder->flush();
      if (s->fluid) s->fluid->flush_samples();
    }
    if (!shots[k]) break;
    if (together == 1) {
      end_shot(observer, observer_guard, k, histories_of(stepping, false), run);
    } else {  // each shot's histories in turn (Recorder's columns), its on_shot before its end
      const std::vector<History> all = histories_of(stepping, false);
      const std::size_t per_shot = all.size() / static_cast<std::size_t>(together);
      for (std::size_t j = 0; j < batch; ++j) {
        if (observer && j > 0) {
          const std::lock_guard lock(observer_guard);
          observer->on_shot(k + j, false);
        }
        const auto from = all.begin() + static_cast<std::ptrdiff_t>(j * per_shot);
        end_shot(observer, observer_guard, k + j,
                 std::vector<History>(from, from + static_cast<std::ptrdiff_t>(per_shot)), run);
      }
    }
    if (!run.ok()) break;
  }
  const auto finished = Clock::now();
  run.time = static_cast<double>(run.steps) * dt;
  run.wall_seconds = seconds_between(stepping.started, finished);
  const double loop_seconds = seconds_between(loop_started, finished);
  run.dof_steps_per_second =
      loop_seconds > 0.0 ? static_cast<double>(preflight.n_dofs) * loop_steps / loop_seconds : 0.0;
  run.preflight = preflight;
  // Over subdomains in this process, their Execs share the run's account (copies of its Exec).
  const Exec& exec = subdomains.front()->exec;
  run.exec_peak_bytes = exec.account().usage(exec.space()).peak;
  run.host_peak_bytes = peak_resident_bytes();
  if (model.shots.empty()) run.histories = histories_of(stepping, true);
  return run;
}

template ExplicitRun run_shots(const Model&, const Preflight&, const RunOptions&, Observer*, std::mutex&,
                               const Stepping<float>&);
template ExplicitRun run_shots(const Model&, const Preflight&, const RunOptions&, Observer*, std::mutex&,
                               const Stepping<double>&);

}  // namespace tremor::explicit_fe
