#pragma once
// The time loop over subdomains (docs/architecture.md): each step, the operator apply on every
// subdomain, the exchange of the forces on shared nodes, the update; every check_every steps the
// one host synchronisation (samples, NaN/Inf, checkpoints, progress and stop requests), agreed over
// processes. The shot loop (shots.hpp) calls it once per shot.
#include <mutex>
#include <span>

#include "tremor/explicit/parts.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/explicit/subdomain.hpp"
#include "tremor/parallel/exchange.hpp"

namespace tremor::explicit_fe {

class ProcessGroup;

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
  // The shots after this one (or batch) that a stop asked at its last step leaves out: a run
  // without checkpoints stops there (with them, the next shot's first check stops it, after the
  // checkpoint of its start).
  std::size_t more_shots = 0;
  std::size_t batch = 1;  // the model's shots stepped together, from `shot` (the columns past them repeat its last)
};

// Steps the subdomains from settings.first_step to the preflight's last step (or a stop: NaN/Inf,
// the observer's request). Fills the run's status, message, bad step and node, and steps; the
// histories stay in the recorders. `fluid_exchange`: a decomposed run with fluids sums the fluid's
// forces over the parts with it, between the two halves of the fluid's step.
template <class Real>
void run_subdomains(std::span<Subdomain<Real>* const> subdomains, Exchange<Real>& exchange,
                    const LoopSettings& settings, ExplicitRun& run, Exchange<Real>* fluid_exchange = nullptr);

}  // namespace tremor::explicit_fe
