#pragma once
// A run over several processes (mpirun -np N tremor run): each process steps one subdomain of the
// decomposition (subdomain = its rank) and exchanges the shared nodes' forces with its neighbours
// (parallel::MpiExchange). ProcessGroup is what the time loop does with the other processes at
// its check points, every check_every steps (the same steps on every process):
//
//   - the NaN/Inf count summed over the processes, and the worst value found among them;
//   - the samples and snapshots each process's subdomain recorded since the last check sent to
//     the first process (rank 0), which merges them into the model's histories and snapshots
//     (HistoryMerge, SnapshotMerge) and alone passes them to the observer (the result file);
//   - the first process's stop decision (its observer: SIGINT) given to every process;
//   - a checkpoint's state and pending samples gathered to the first process;
//   - a failure on any process (an exception) made every process's, with its message.
#include <array>
#include <exception>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/explicit/subdomain.hpp"
#include "tremor/parallel/communicator.hpp"

namespace tremor::explicit_fe {

// The Exec of this process: over several processes on GPUs, the GPU of its place on the host
// (local rank modulo the GPUs), on a stream of its own for the run (`own_stream`); a run's own
// stream of `priority` on one GPU too where that is not Lowest (solid_stream_priority).
Exec process_exec(Backend backend, const RunOptions& options, bool own_stream,
                  StreamPriority priority = StreamPriority::Lowest);

// A failure every process of a run agreed on (agree()): the first process reports it, the others
// stop without repeating it.
class AgreedFailure : public Error {
 public:
  using Error::Error;
};

// Collective: throws, on every process, the failure of the lowest process that had one (`failure`,
// or null for none), as an AgreedFailure: on the first process with the failure's message when it
// was its own, else naming the process and quoting it.
void agree(const parallel::Communicator& communicator, std::exception_ptr failure);

// Runs each step in turn, every one even when one before it failed (a process still takes its
// part in what the others do), keeping the first failure; then agrees on it over `processes`
// (every process throws when any failed), or throws it where there are none (null): the one way a
// failure of a run's part stops every process instead of leaving the others waiting.
template <class... Steps>
void run_agreed(const parallel::Communicator* processes, Steps&&... steps) {
  std::exception_ptr failure;
  const auto attempt = [&failure](auto& step) {
    try {
      step();
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  };
  (attempt(steps), ...);
  if (processes)
    agree(*processes, failure);
  else if (failure)
    std::rethrow_exception(failure);
}

// A run over several GPUs from one process (tremor run --gpus N): `members`, the members of a
// group of threads (parallel::Communicator::threads), each stepping on a thread of its own the
// subdomain of its rank, on the GPU of that number, exactly as processes do under mpirun
// (run_explicit with RunOptions::communicator). The calling thread is the first member and alone
// reports to `observer`; options.preflight, when given, serves every member (made with the first
// member as the communicator). A member's failure the others did not agree on stops their waits
// (Communicator::fail) with its message, which the first member's run throws; a member that has
// not stopped within stop_grace_seconds after a failure (one waiting on its GPU for a transfer
// that will never come) ends the process with the failure's message and exit status 1. Returns
// the first member's run.
ExplicitRun run_threads(const Model& model, const RunOptions& options, Observer* observer,
                        std::span<const parallel::Communicator> members);
inline constexpr double stop_grace_seconds = 60.0;

// Collective: the first member's `state` and `extra` (a resumed run's checkpoint, read by the first
// alone) on every member, so that members on other hosts need not see its file.
void broadcast_state(const parallel::Communicator& communicator, SolverState& state, long long& extra);

// Whole shots side by side (Preflight::shots_parallel): how a member's batch of a round ended and
// its shots' histories, each shot's in the layout of `layout` (a shot's histories, as its
// recorder holds them).
struct BatchEnd {
  std::size_t first_shot = 0;  // the model's shot its batch starts with
  RunStatus status = RunStatus::Completed;
  std::string message;
  long long steps = 0, bad_step = -1;
  Label bad_node = 0;
  double dof_steps = 0.0;  // DOFs x steps x shots it stepped
  std::vector<std::vector<History>> shots;  // each shot's histories (none: no batch this round)
};
// Collective: every member's BatchEnd on the first, in rank order (empty elsewhere); only the
// samples (times and values) travel, the rest is `layout`'s.
std::vector<BatchEnd> gather_batch_ends(const parallel::Communicator& members, const BatchEnd& mine,
                                        const std::vector<History>& layout);

// A DOF of the NaN/Inf report: (rank: 2 NaN, 1 Inf, 0 finite; size |u|; the model's node;
// component; value; its column: the shot among those stepped together).
using DofReport = std::array<double, 6>;
// Whether DOF a is worse than DOF b: NaN before Inf before the largest |u|, then the lowest node,
// component and column, so that the worst DOF is the same however the model is decomposed.
bool worse(const DofReport& a, const DofReport& b);

class ProcessGroup {
 public:
  // `parts`: decompose_model's, every process's maps (histories, snapshots, nodes); `histories`
  // and `snapshots` merge on the first process (null elsewhere); `guard`: the observer guard.
  ProcessGroup(const parallel::Communicator& communicator, const std::vector<ModelPart>& parts, int dim,
               HistoryMerge* histories, SnapshotMerge* snapshots, std::mutex& guard,
               std::function<bool()> stop_here = nullptr);

  const parallel::Communicator& communicator() const { return *communicator_; }
  bool root() const { return communicator_->root(); }

  // Where this process's recorder and snapshot taker report when it is not the first.
  void queue_sample(std::size_t k, const History& history, std::size_t sample);
  Observer* snapshot_outbox() { return &outbox_; }

  // Collective: what every process queued, merged on the first.
  void ship();
  double sum(double value) const { return communicator_->sum(value); }
  // Collective: whether any process asks to stop: `stop` (the first's observer) or a process's own
  // stop_here (a signal to it).
  bool stop_decision(bool stop) const;
  // Collective: this process's worst DOF (rank: 2 NaN, 1 Inf, 0 finite; size |u|; the model's
  // node; component; value) against the others'; the worst of all on every process.
  DofReport worst(const DofReport& mine) const;
  // Collective: this process's piece of a checkpoint (its subdomain's state in local numbers, its
  // pending samples, its elements' and PML nodes' state) merged into the model's, of n_elements elements, on
  // the first process (`state` elsewhere is left as it was). With fluids, `fluid` is its part's
  // potential: its nodes of the whole fluid's (of `fluid.n_nodes`) and their two levels.
  struct FluidPiece {
    std::vector<Index> nodes;
    std::vector<double> previous, current;
    Index n_nodes = 0;
    // Its PML's state (FluidTerm::get_pml_state), over the model's n_elements elements.
    ElementValues pml, pml_nodes;
    Index n_elements = 0;
  };
  void gather_state(long long step, std::span<const double> previous, std::span<const double> current,
                    const std::vector<PendingSample>& receivers, const PendingSample& snapshot,
                    const std::vector<ElementValues>& memory, const ElementValues& pml_nodes, Index n_elements,
                    const FluidPiece& fluid, SolverState& state) const;
  void agree(std::exception_ptr failure) const { explicit_fe::agree(*communicator_, failure); }

 private:
  struct Outbox final : Observer {
    std::vector<char> bytes;  // guarded by the observer guard (the snapshot writer holds it)
    int count = 0;
    void on_snapshot(const Snapshot& snapshot) override;
  };

  const parallel::Communicator* communicator_;
  const std::vector<ModelPart>* parts_;
  int dim_ = 3;
  HistoryMerge* histories_ = nullptr;
  SnapshotMerge* snapshots_ = nullptr;
  std::mutex* guard_ = nullptr;
  std::function<bool()> stop_here_;
  std::vector<char> samples_;
  int n_samples_ = 0;
  Outbox outbox_;
};

}  // namespace tremor::explicit_fe
