#include "tremor/explicit/shots.hpp"

#include <algorithm>
#include <sys/resource.h>

#include "tremor/backend/memory.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/processes.hpp"
#include "tremor/explicit/time_loop.hpp"
#include "tremor/parallel/communicator.hpp"

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
  if (!d.fluid) return histories;
  // The fluid's receivers after the others, shot by shot where several are stepped together.
  return by_shot({std::move(histories), d.fluid->histories(take)}, d.columns);
}

// A new batch of shots on every subdomain (one, or Subdomain::columns together): `restart`, the
// last batch's samples out, its recorders and snapshot takers start from nothing; then the shots'
// loads (a null shot: every load, as set up).
template <class Real>
void load_batch(std::span<Subdomain<Real>* const> subdomains, const Model& model, const Preflight& preflight,
                std::span<const Shot* const> batch, bool restart) {
  for (Subdomain<Real>* s : subdomains) {
    if (restart) {
      s->recorder->restart();
      if (s->fluid) s->fluid->restart_samples();
      s->snapshots->restore(PendingSample{});
    }
    if (s->columns > 1)
      load_shots(*s, model, preflight, batch);
    else if (batch.front())
      load_shot(*s, model, preflight, *batch.front());
  }
}

// The samples and snapshot of step 0 (a batch started from rest).
template <class Real>
void take_first_samples(std::span<Subdomain<Real>* const> subdomains) {
  for (Subdomain<Real>* s : subdomains) {
    s->recorder->record(0, s->scheme->previous_displacement(), s->scheme->displacement());
    s->snapshots->take(0, s->scheme->previous_displacement(), s->scheme->displacement());
  }
}

// After a batch's last step: the samples still pending recorded.
template <class Real>
void flush_samples(std::span<Subdomain<Real>* const> subdomains) {
  for (Subdomain<Real>* s : subdomains) {
    s->recorder->flush();
    if (s->fluid) s->fluid->flush_samples();
  }
}

// Each shot's histories of `batch` shots stepped `together` (the recorders' columns: shot j's after
// shot j - 1's).
std::vector<std::vector<History>> shots_of_batch(const std::vector<History>& all, std::size_t together,
                                                 std::size_t batch) {
  const std::size_t per_shot = all.size() / together;
  std::vector<std::vector<History>> shots;
  for (std::size_t j = 0; j < batch; ++j) {
    const auto from = all.begin() + static_cast<std::ptrdiff_t>(j * per_shot);
    shots.emplace_back(from, from + static_cast<std::ptrdiff_t>(per_shot));
  }
  return shots;
}

// What a member's batch passes on while side by side: progress and stop requests, to the first
// member's observer (`next`, null on the others), and a stop asked of this member (`stop_here`);
// its shots' histories go to the first member at the round's end.
class BatchObserver final : public Observer {
 public:
  BatchObserver(Observer* next, const std::function<bool()>& stop_here) : next_(next), stop_here_(stop_here) {}
  void on_progress(long long step, long long steps, double time) override {
    if (next_) next_->on_progress(step, steps, time);
  }
  bool stop_requested() override { return (next_ && next_->stop_requested()) || (stop_here_ && stop_here_()); }

 private:
  Observer* next_;
  const std::function<bool()>& stop_here_;
};

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

std::size_t peak_resident_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<std::size_t>(usage.ru_maxrss) * 1024;  // kilobytes on Linux
}

// The set-up's last phase counted and the loop's clock started (the first batch is about to step).
template <class Real>
Clock::time_point begin_loop(const Stepping<Real>& stepping, ExplicitRun& run) {
  if (stepping.clock) {
    stepping.clock->lap("snapshot buffers and initial state");
    run.setup_seconds = stepping.clock->total();
    run.setup = stepping.clock->take();
  }
  return Clock::now();
}

// Between batches or rounds: the checkpoint of shot `next` at rest (SolverState::at_rest), written
// by the observer (the first member's) where `due()` says so there; its failure agreed over
// `members` (null: this process alone), every one of which calls this.
template <class Due>
void checkpoint_at_rest(const parallel::Communicator* members, Observer* observer, std::mutex& observer_guard,
                        std::size_t next, const Due& due) {
  run_agreed(members, [&] {
    if (!observer || !due()) return;
    SolverState state;
    state.shot = static_cast<int>(next);
    state.at_rest = true;
    const std::lock_guard lock(observer_guard);
    observer->on_checkpoint(state);
  });
}

// The shots side by side (Stepping::side_by_side, run_shots): returns the DOF-steps stepped, every
// member's on the first, this member's elsewhere; `loop_started` is set as the first batch starts.
// With checkpoints, one between rounds only, at rest (SolverState::at_rest): when a round ends,
// stopped there or not, of the next round's first shot; a run resumed from it shares out the shots
// from there.
template <class Real>
double step_side_by_side(const Model& model, const Preflight& preflight, const RunOptions& options,
                         Observer* observer, std::mutex& observer_guard, const Stepping<Real>& stepping,
                         LoopSettings settings, ExplicitRun& run, Clock::time_point& loop_started) {
  const parallel::Communicator& members = *stepping.side_by_side;
  const auto n = static_cast<std::size_t>(members.size());
  const auto me = static_cast<std::size_t>(members.rank());
  const std::span<Subdomain<Real>* const> subdomains = stepping.subdomains;
  const std::vector<const Shot*> shots = shots_of(model);
  TREMOR_CHECK(model.shots.size() >= 1 && (!options.resume || options.resume->at_rest),
               "shots side by side need shots, and resume only from a checkpoint between rounds");
  const auto together = static_cast<std::size_t>(subdomains.front()->columns);
  // The shots from the first (a resumed run's checkpoint's) in batches of at most `together`, a
  // round of n at a time.
  const std::size_t start = options.resume ? static_cast<std::size_t>(options.resume->shot) : 0;
  TREMOR_CHECK(start < shots.size(), "checkpoint of shot ", start + 1, "; the model has ", shots.size(), " shots");
  const std::size_t batches = n * ceil_div(ceil_div(shots.size() - start, together), n);
  const auto first_of = [&](std::size_t b) { return start + b * (shots.size() - start) / batches; };
  settings.checkpoint_every = 0;  // (none within a round)
  BatchObserver passing(observer, options.stop_here);
  settings.observer = &passing;
  // A shot's histories as the recorders hold them, without samples: what the others' fill.
  std::vector<History> layout = histories_of(stepping, false);
  layout.resize(layout.size() / together);
  for (History& history : layout) history.clear_samples();
  double dof_steps = 0.0;
  for (std::size_t round = 0; round * n < batches; ++round) {
    const std::size_t first = first_of(round * n + me), last = first_of(round * n + me + 1);
    BatchEnd mine;
    mine.first_shot = first;
    run_agreed(&members, [&] {
      if (first < last) {
        load_batch(subdomains, model, preflight, std::span<const Shot* const>(shots).subspan(first, last - first),
                   round > 0);
        for (Subdomain<Real>* s : subdomains)
          if (round > 0 || !stepping.at_rest || !s->stepped_loading().prescribed_dofs().empty())
            start_from_rest(*s, preflight.dt);
        take_first_samples(subdomains);
      }
      if (round == 0) loop_started = begin_loop(stepping, run);
      if (first == last) return;
      settings.first_step = 0;
      settings.shot = static_cast<int>(first);
      settings.more_shots = shots.size() - first_of((round + 1) * n);  // (those of the later rounds)
      settings.batch = last - first;
      ExplicitRun batch;
      run_subdomains<Real>(subdomains, *stepping.exchange, settings, batch, stepping.fluid_exchange);
      flush_samples(subdomains);
      mine.status = batch.status;
      mine.message = std::move(batch.message);
      mine.steps = batch.steps;
      mine.bad_step = batch.bad_step;
      mine.bad_node = batch.bad_node;
      mine.dof_steps = static_cast<double>(preflight.n_dofs) * static_cast<double>(batch.steps) *
                       static_cast<double>(last - first);
      mine.shots = shots_of_batch(histories_of(stepping, false), together, last - first);
    });
    std::vector<BatchEnd> ends = gather_batch_ends(members, mine, layout);
    if (!members.root()) dof_steps += mine.dof_steps;
    // The first member's: every batch, in shot order, to the observer (whose failure, the result
    // file's, stops every member).
    run_agreed(&members, [&] {
      for (std::size_t k = 0; k < ends.size(); ++k) {
        BatchEnd& end = ends[k];
        for (std::size_t j = 0; j < end.shots.size(); ++j) {
          if (observer) {
            const std::lock_guard lock(observer_guard);
            observer->on_shot(end.first_shot + j, false);
          }
          end_shot(observer, observer_guard, end.first_shot + j, std::move(end.shots[j]), run);
        }
        dof_steps += end.dof_steps;
        if (!end.shots.empty()) run.steps = end.steps;
        // (The first batch that did not complete names the run's end; a NaN before a stop.)
        if (end.status != RunStatus::Completed &&
            (run.ok() || (run.status == RunStatus::Stopped && end.status == RunStatus::Failed))) {
          run.status = end.status;
          run.message = k == 0 ? end.message : str(members.name(static_cast<int>(k)), ": ", end.message);
          run.bad_step = end.bad_step;
          run.bad_node = end.bad_node;
        }
      }
    });
    // Between rounds, as the round ends (every batch at its last step, stopped there or not), the
    // checkpoint of the next round's first shot at rest (the first member's observer writes it).
    const std::size_t next = first_of((round + 1) * n);
    checkpoint_at_rest(&members, observer, observer_guard, next, [&] {
      return stepping.checkpoint_every > 0 && next < shots.size() &&
             std::all_of(ends.begin(), ends.end(), [&](const BatchEnd& end) {
               return end.shots.empty() || (end.steps == preflight.steps && (end.status == RunStatus::Completed ||
                                                                              end.status == RunStatus::Stopped));
             });
    });
    // Every member ends where the first finds a batch stopped (its status, on every member).
    const auto status = static_cast<int>(members.sum(members.root() ? static_cast<double>(run.status) : 0.0));
    if (status != static_cast<int>(RunStatus::Completed)) {
      if (!members.root()) run.status = static_cast<RunStatus>(status);
      break;
    }
  }
  return dof_steps;
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
  // Shots stepped together (Subdomain::columns, every subdomain's): `batch` of them from shot k at
  // once. They checkpoint between batches only, at rest (SolverState::at_rest): when a batch ends,
  // stopped there or not, before the next; a resumed run steps that one from rest.
  const int together = subdomains.front()->columns;
  const bool between_batches = together > 1 && stepping.checkpoint_every > 0;
  const parallel::Communicator* communicator =
      stepping.processes ? &stepping.processes->communicator() : nullptr;
  LoopSettings settings = start_loop(model, preflight, options.check_every, observer, observer_guard);
  settings.checkpoint_every = between_batches ? 0 : stepping.checkpoint_every;
  settings.history_merge = stepping.history_merge;
  settings.snapshot_merge = stepping.snapshot_merge;
  settings.processes = stepping.processes;
  Clock::time_point loop_started = Clock::now();
  double loop_steps = 0.0;
  if (stepping.side_by_side) {
    const double dof_steps = step_side_by_side(model, preflight, options, observer, observer_guard, stepping,
                                               settings, run, loop_started);
    loop_steps = dof_steps / static_cast<double>(std::max<Index>(preflight.n_dofs, 1));
  }
  std::size_t batch = 1;
  for (std::size_t k = first_shot; k < shots.size() && !stepping.side_by_side; k += batch) {
    batch = together > 1 ? std::min(static_cast<std::size_t>(together), shots.size() - k) : 1;
    const bool resumed = options.resume && !options.resume->at_rest && k == first_shot;
    // The first batch's own at-rest checkpoint, as each later one has (before its shots start): a
    // run stopped in it is then resumed from it rather than only started again.
    if (between_batches && k == first_shot && !resumed && shots[k])
      checkpoint_at_rest(communicator, observer, observer_guard, k, [] { return true; });
    load_batch(subdomains, model, preflight, std::span<const Shot* const>(shots).subspan(k, batch), k > first_shot);
    // Start from rest, with prescribed DOFs on their motion at t = -dt and 0 (fields known to be
    // zero are set only where something is prescribed).
    if (!resumed)
      for (Subdomain<Real>* s : subdomains)
        if (k > first_shot || !stepping.at_rest || !s->stepped_loading().prescribed_dofs().empty())
          start_from_rest(*s, dt);
    if (observer && shots[k]) {
      const std::lock_guard lock(observer_guard);
      if (together > 1) observer->on_batch(k, batch);
      observer->on_shot(k, resumed);
    }
    long long first_step = 0;
    if (resumed) {
      first_step = resume_from(*options.resume, preflight, stepping);
    } else {
      take_first_samples(subdomains);
    }
    if (k == first_shot) loop_started = begin_loop(stepping, run);
    settings.first_step = first_step;
    settings.shot = static_cast<int>(k);
    // Between shots, a checkpoint at the new shot's start: what a resumed run starts from.
    settings.checkpoint_first = k > first_shot;
    settings.more_shots = shots[k] && settings.checkpoint_every == 0 ? shots.size() - k - batch : 0;
    settings.batch = batch;
    run_subdomains<Real>(subdomains, *stepping.exchange, settings, run, stepping.fluid_exchange);
    loop_steps += static_cast<double>(run.steps - first_step) * static_cast<double>(batch);
    flush_samples(subdomains);
    if (!shots[k]) break;
    // Each shot's histories in turn (one, or the recorders' columns), its on_shot before its end.
    std::vector<std::vector<History>> done =
        shots_of_batch(histories_of(stepping, false), static_cast<std::size_t>(together), batch);
    for (std::size_t j = 0; j < batch; ++j) {
      if (observer && j > 0) {
        const std::lock_guard lock(observer_guard);
        observer->on_shot(k + j, false);
      }
      end_shot(observer, observer_guard, k + j, std::move(done[j]), run);
    }
    // (Every process of a run over several has the same status here.)
    if (between_batches && k + batch < shots.size() && run.steps == preflight.steps &&
        (run.ok() || run.status == RunStatus::Stopped))
      checkpoint_at_rest(communicator, observer, observer_guard, k + batch, [] { return true; });
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
