#pragma once
// The shot loop every explicit run shares: `tremor run` on one domain, on in-process subdomains,
// on threads (--gpus) or processes (mpirun), and each run of a kept set-up (tremor.Simulation).
// What differs between them is what they set up (subdomains, exchange, merges, process group);
// for each shot of the model (model/transducer.hpp), or once without shots, the loop then does the
// same: the shot's loads, the start from rest or a checkpoint's state, the step-0 samples, the
// time loop (run_subdomains), the shot's histories to the observer.
#include <cstddef>
#include <mutex>
#include <span>

#include "tremor/core/clock.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/explicit/subdomain.hpp"
#include "tremor/parallel/exchange.hpp"

namespace tremor::explicit_fe {

class ProcessGroup;

// What a run set up for the shot loop to step.
template <class Real>
struct Stepping {
  std::span<Subdomain<Real>* const> subdomains;  // this process's
  parallel::Exchange<Real>* exchange = nullptr;
  // A decomposed run with fluids: the sum of the fluid's forces over the parts (one value a node).
  parallel::Exchange<Real>* fluid_exchange = nullptr;
  // A decomposed run's: the subdomains' samples merged into the model's histories (the first
  // process's are complete), and its snapshots likewise.
  HistoryMerge* history_merge = nullptr;
  SnapshotMerge* snapshot_merge = nullptr;
  ProcessGroup* processes = nullptr;  // a run over processes or threads; its part is its rank
  // Whole shots side by side (Preflight::shots_parallel): the members, each stepping the whole
  // model (one subdomain) and shots of its own; the first passes them all to the observer.
  const parallel::Communicator* side_by_side = nullptr;
  // Each subdomain's fields are zero (a new set-up): the first shot starts from rest without
  // setting them, unless something is prescribed.
  bool at_rest = true;
  long long checkpoint_every = 0;  // 0: none (the observer writes them)
  // The set-up's clock: its last phase (the initial state) is counted when the first shot is about
  // to step, and run.setup / setup_seconds are taken from it. Null: the caller counts its set-up.
  SetupClock* clock = nullptr;
  Clock::time_point started = Clock::now();  // run.wall_seconds counts from here
};

// Steps every shot (from options.resume's shot and state when given) and returns the run: status,
// steps, times, speed, the shots' histories (passed to observer->on_shot_end), or the histories of
// a model without shots in the model's numbering (over processes, on the first alone). Side by
// side (Stepping::side_by_side), the model's shots are cut into batches of near-equal size, as
// many as the members or a multiple, each at most Subdomain::columns, stepped in rounds: member m
// steps batch r x members + m in round r, and at the round's end the first passes the round's
// shots to the observer in the model's order. A stop, NaN/Inf or failure in any batch stops every
// member at the end of the round, that batch's shots passed on up to where it stopped.
template <class Real>
ExplicitRun run_shots(const Model& model, const Preflight& preflight, const RunOptions& options,
                      Observer* observer, std::mutex& observer_guard, const Stepping<Real>& stepping);

}  // namespace tremor::explicit_fe
