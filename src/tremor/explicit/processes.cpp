#include "tremor/explicit/processes.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <type_traits>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"

namespace tremor::explicit_fe {

namespace {

// Bytes between processes: values appended in order and read back in the same order.
class Writer {
 public:
  explicit Writer(std::vector<char>& bytes) : bytes_(bytes) {}
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const char*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  void put(std::span<const double> values) {
    put(static_cast<std::uint64_t>(values.size()));
    const auto* p = reinterpret_cast<const char*>(values.data());
    bytes_.insert(bytes_.end(), p, p + values.size() * sizeof(double));
  }
  void put(const PendingSample& s) {
    put(static_cast<int>(s.active));
    put(s.step);
    put(std::span<const double>(s.before));
    put(std::span<const double>(s.at));
  }
  template <class T>
  void put_all(const std::vector<T>& values) {
    put(static_cast<std::uint64_t>(values.size()));
    const auto* p = reinterpret_cast<const char*>(values.data());
    bytes_.insert(bytes_.end(), p, p + values.size() * sizeof(T));
  }
  void put(const std::string& text) { put_all(std::vector<char>(text.begin(), text.end())); }
  void put(const ElementValues& v) {
    put_all(v.elements);
    put_all(v.offsets);
    put_all(v.values);
  }

 private:
  std::vector<char>& bytes_;
};

class Reader {
 public:
  explicit Reader(const std::vector<char>& bytes) : bytes_(bytes) {}
  bool done() const { return at_ == bytes_.size(); }
  template <class T>
  T get() {
    T value;
    take(&value, sizeof(T));
    return value;
  }
  template <class T = double>
  std::vector<T> values() {
    std::vector<T> out(static_cast<std::size_t>(get<std::uint64_t>()));
    take(out.data(), out.size() * sizeof(T));
    return out;
  }
  std::string text() {
    const std::vector<char> chars = values<char>();
    return {chars.begin(), chars.end()};
  }
  ElementValues element_values() {
    ElementValues v;
    v.elements = values<Index>();
    v.offsets = values<Size>();
    v.values = values();
    return v;
  }
  PendingSample pending() {
    PendingSample s;
    s.active = get<int>() != 0;
    s.step = get<long long>();
    s.before = values();
    s.at = values();
    return s;
  }

 private:
  void take(void* to, std::size_t n) {
    TREMOR_CHECK(at_ + n <= bytes_.size(), "a message between processes ended after ", bytes_.size(), " bytes");
    std::memcpy(to, bytes_.data() + at_, n);
    at_ += n;
  }
  const std::vector<char>& bytes_;
  std::size_t at_ = 0;
};

}  // namespace

std::vector<BatchEnd> gather_batch_ends(const parallel::Communicator& members, const BatchEnd& mine,
                                        const std::vector<History>& layout) {
  std::vector<char> bytes;
  Writer out(bytes);
  out.put(static_cast<std::uint64_t>(mine.first_shot));
  out.put(static_cast<int>(mine.status));
  out.put(mine.message);
  out.put(mine.steps);
  out.put(mine.bad_step);
  out.put(mine.bad_node);
  out.put(mine.dof_steps);
  out.put(static_cast<std::uint64_t>(mine.shots.size()));
  for (const std::vector<History>& shot : mine.shots) {
    TREMOR_CHECK(shot.size() == layout.size(), "a shot of ", shot.size(), " histories; the model records ",
                 layout.size());
    for (const History& history : shot) {
      out.put(std::span<const double>(history.times));
      out.put(std::span<const double>(history.values));
    }
  }
  std::vector<BatchEnd> ends;
  for (const std::vector<char>& from : members.gather(bytes)) {
    Reader in(from);
    BatchEnd& end = ends.emplace_back();
    end.first_shot = static_cast<std::size_t>(in.get<std::uint64_t>());
    end.status = static_cast<RunStatus>(in.get<int>());
    end.message = in.text();
    end.steps = in.get<long long>();
    end.bad_step = in.get<long long>();
    end.bad_node = in.get<Label>();
    end.dof_steps = in.get<double>();
    end.shots.resize(static_cast<std::size_t>(in.get<std::uint64_t>()));
    for (std::vector<History>& shot : end.shots) {
      shot = layout;
      for (History& history : shot) {
        history.times = in.values();
        history.values = in.values();
        TREMOR_CHECK(history.values.size() == history.times.size() * history.sample_size(), "history '",
                     history.name, "' of ", history.times.size(), " samples came with ", history.values.size(),
                     " values");
      }
    }
    TREMOR_CHECK(in.done(), "a batch's message between members held ", from.size(), " bytes, more than it said");
  }
  return ends;
}

ProcessGroup::ProcessGroup(const parallel::Communicator& communicator, const std::vector<ModelPart>& parts, int dim,
                           HistoryMerge* histories, SnapshotMerge* snapshots, std::mutex& guard,
                           std::function<bool()> stop_here)
    : communicator_(&communicator), parts_(&parts), dim_(dim), histories_(histories), snapshots_(snapshots),
      guard_(&guard), stop_here_(std::move(stop_here)) {
  TREMOR_CHECK(static_cast<int>(parts.size()) == communicator.size(), parts.size(), " subdomains for ",
               communicator.size(), " processes: one each");
}

void ProcessGroup::queue_sample(std::size_t k, const History& history, std::size_t sample) {
  Writer out(samples_);
  out.put(static_cast<std::uint64_t>(k));
  out.put(static_cast<std::uint64_t>(sample));
  out.put(history.times[sample]);
  out.put(std::span<const double>(history.values.data() + sample * history.sample_size(), history.sample_size()));
  ++n_samples_;
}

void ProcessGroup::Outbox::on_snapshot(const Snapshot& snapshot) {
  Writer out(bytes);
  out.put(snapshot.step);
  out.put(snapshot.time);
  out.put(snapshot.displacement);
  out.put(snapshot.velocity);
  out.put(snapshot.pressure);
  ++count;
}

void ProcessGroup::ship() {
  std::vector<char> message;
  {
    const std::lock_guard lock(*guard_);  // the snapshot writer fills the outbox holding it
    Writer out(message);
    out.put(n_samples_);
    message.insert(message.end(), samples_.begin(), samples_.end());
    out.put(outbox_.count);
    message.insert(message.end(), outbox_.bytes.begin(), outbox_.bytes.end());
    samples_.clear();
    n_samples_ = 0;
    outbox_.bytes.clear();
    outbox_.count = 0;
  }
  const std::vector<std::vector<char>> all = communicator_->gather(message);
  if (!root()) return;
  // The history merge's callback takes the observer guard itself; the snapshot merge is called
  // holding it, as by the snapshot writer.
  for (std::size_t r = 1; r < all.size(); ++r) {
    Reader in(all[r]);
    const int n_samples = in.get<int>();
    for (int i = 0; i < n_samples; ++i) {
      const auto k = static_cast<std::size_t>(in.get<std::uint64_t>());
      const auto sample = static_cast<std::size_t>(in.get<std::uint64_t>());
      const double time = in.get<double>();
      const std::vector<double> values = in.values();
      histories_->add(r, k, time, values, sample);
    }
    const int n_snapshots = in.get<int>();
    for (int i = 0; i < n_snapshots; ++i) {
      Snapshot snapshot;
      snapshot.step = in.get<long long>();
      snapshot.time = in.get<double>();
      const std::vector<double> displacement = in.values(), velocity = in.values(), pressure = in.values();
      snapshot.displacement = displacement;
      snapshot.velocity = velocity;
      snapshot.pressure = pressure;
      const std::lock_guard lock(*guard_);
      snapshots_->add(r, snapshot);
    }
  }
}

bool ProcessGroup::stop_decision(bool stop) const {
  const bool mine = stop || (stop_here_ && stop_here_());
  return communicator_->sum(mine ? 1.0 : 0.0) > 0.0;
}

void broadcast_state(const parallel::Communicator& communicator, SolverState& state, long long& extra) {
  std::vector<char> message;
  if (communicator.root()) {
    Writer out(message);
    out.put(static_cast<long long>(state.shot));
    out.put(state.step);
    out.put(static_cast<long long>(state.at_rest ? 1 : 0));
    out.put(extra);
    out.put(std::span<const double>(state.previous));
    out.put(std::span<const double>(state.current));
    out.put(static_cast<std::uint64_t>(state.receivers.size()));
    for (const PendingSample& s : state.receivers) out.put(s);
    out.put(state.snapshot);
    out.put_all(state.memory_offsets);
    out.put_all(state.memory);
    out.put_all(state.pml_nodes);
    out.put_all(state.pml_node_values);
    out.put(std::span<const double>(state.fluid_previous));
    out.put(std::span<const double>(state.fluid_current));
    out.put_all(state.fluid_pml_offsets);
    out.put_all(state.fluid_pml);
    out.put_all(state.fluid_pml_nodes);
    out.put_all(state.fluid_pml_node_values);
  }
  communicator.broadcast(message);
  if (communicator.root()) return;
  Reader in(message);
  state.shot = static_cast<int>(in.get<long long>());
  state.step = in.get<long long>();
  state.at_rest = in.get<long long>() != 0;
  extra = in.get<long long>();
  state.previous = in.values();
  state.current = in.values();
  state.receivers.resize(static_cast<std::size_t>(in.get<std::uint64_t>()));
  for (PendingSample& s : state.receivers) s = in.pending();
  state.snapshot = in.pending();
  state.memory_offsets = in.values<Size>();
  state.memory = in.values();
  state.pml_nodes = in.values<Index>();
  state.pml_node_values = in.values();
  state.fluid_previous = in.values();
  state.fluid_current = in.values();
  state.fluid_pml_offsets = in.values<Size>();
  state.fluid_pml = in.values();
  state.fluid_pml_nodes = in.values<Index>();
  state.fluid_pml_node_values = in.values();
  TREMOR_CHECK(in.done(), "a checkpoint from the first process was ", message.size(), " bytes with more at its end");
}

bool worse(const DofReport& a, const DofReport& b) {
  if (a[0] != b[0]) return a[0] > b[0];
  if (a[1] != b[1]) return a[1] > b[1];
  if (a[2] != b[2]) return a[2] < b[2];
  if (a[3] != b[3]) return a[3] < b[3];
  return a[5] < b[5];
}

DofReport ProcessGroup::worst(const DofReport& mine) const {
  std::vector<char> bytes(sizeof(mine));
  std::memcpy(bytes.data(), mine.data(), sizeof(mine));
  const std::vector<std::vector<char>> all = communicator_->gather(bytes);
  std::vector<char> chosen = bytes;
  if (root()) {
    DofReport best = mine;
    for (const std::vector<char>& from : all) {
      DofReport other{};
      std::memcpy(other.data(), from.data(), sizeof(other));
      if (worse(other, best)) best = other;
    }
    std::memcpy(chosen.data(), best.data(), sizeof(best));
  }
  communicator_->broadcast(chosen);
  DofReport out{};
  std::memcpy(out.data(), chosen.data(), sizeof(out));
  return out;
}

void ProcessGroup::gather_state(long long step, std::span<const double> previous, std::span<const double> current,
                                const std::vector<PendingSample>& receivers, const PendingSample& snapshot,
                                const std::vector<ElementValues>& memory, const ElementValues& pml_nodes,
                                Index n_elements, const FluidPiece& fluid, SolverState& state) const {
  std::vector<char> message;
  Writer out(message);
  out.put(previous);
  out.put(current);
  out.put(static_cast<std::uint64_t>(receivers.size()));
  for (const PendingSample& s : receivers) out.put(s);
  out.put(snapshot);
  out.put(static_cast<std::uint64_t>(memory.size()));
  for (const ElementValues& piece : memory) out.put(piece);
  out.put(pml_nodes);
  out.put_all(fluid.nodes);
  out.put(std::span<const double>(fluid.previous));
  out.put(std::span<const double>(fluid.current));
  out.put(fluid.pml);
  out.put(fluid.pml_nodes);
  const std::vector<std::vector<char>> all = communicator_->gather(message);
  if (!root()) return;
  state.step = step;
  const std::size_t n_model = state.previous.size();
  std::vector<std::vector<PendingSample>> pending(all.size());
  std::vector<PendingSample> snapshots;
  std::vector<ElementValues> memories, node_pieces, fluid_pml, fluid_pml_nodes;
  const auto n_fluid = static_cast<std::size_t>(fluid.n_nodes);
  state.fluid_previous.assign(n_fluid, 0.0);
  state.fluid_current.assign(n_fluid, 0.0);
  for (std::size_t r = 0; r < all.size(); ++r) {
    Reader in(all[r]);
    const std::vector<Index>& nodes = (*parts_)[r].nodes;
    const Numbering numbering(static_cast<Index>(n_model) / dim_, dim_, nodes);
    numbering.to_global(in.values(), state.previous);
    numbering.to_global(in.values(), state.current);
    const auto n = static_cast<std::size_t>(in.get<std::uint64_t>());
    for (std::size_t k = 0; k < n; ++k) pending[r].push_back(in.pending());
    snapshots.push_back(in.pending());
    const auto pieces = static_cast<std::size_t>(in.get<std::uint64_t>());
    for (std::size_t k = 0; k < pieces; ++k) memories.push_back(in.element_values());
    node_pieces.push_back(in.element_values());
    // (A fluid node several parts hold has the same bits in each.)
    const std::vector<Index> fluid_nodes = in.values<Index>();
    const std::vector<double> before = in.values(), now = in.values();
    TREMOR_CHECK(before.size() == fluid_nodes.size() && now.size() == fluid_nodes.size(), "process ", r,
                 "'s fluid state of ", now.size(), " values for ", fluid_nodes.size(), " nodes");
    for (std::size_t i = 0; i < fluid_nodes.size(); ++i) {
      const auto node = static_cast<std::size_t>(fluid_nodes[i]);
      TREMOR_CHECK(node < n_fluid, "process ", r, "'s fluid node ", node, " of ", n_fluid);
      state.fluid_previous[node] = before[i];
      state.fluid_current[node] = now[i];
    }
    fluid_pml.push_back(in.element_values());
    fluid_pml_nodes.push_back(in.element_values());
  }
  std::vector<const std::vector<PendingSample>*> pieces;
  for (const auto& p : pending) pieces.push_back(&p);
  state.receivers = histories_->merge_pending(pieces);
  state.snapshot = snapshots_->merge_pending(snapshots);
  merge_element_values(memories, n_elements, state.memory_offsets, state.memory);
  merge_node_values(node_pieces, state.pml_nodes, state.pml_node_values);
  merge_element_values(fluid_pml, fluid.n_elements, state.fluid_pml_offsets, state.fluid_pml);
  merge_node_values(fluid_pml_nodes, state.fluid_pml_nodes, state.fluid_pml_node_values);
}

namespace {

// An exception's message.
std::string message_of(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& error) {
    return error.what();
  } catch (...) {
    return "an unknown error";
  }
}

}  // namespace

void agree(const parallel::Communicator& communicator, std::exception_ptr failure) {
  const std::string message = failure ? message_of(failure) : std::string();
  const std::vector<double> failed = communicator.all_gather(failure ? 1.0 : 0.0);
  int first = -1;
  for (std::size_t r = 0; r < failed.size() && first < 0; ++r)
    if (failed[r] != 0.0) first = static_cast<int>(r);
  if (first < 0) return;
  std::vector<char> text(message.begin(), message.end());
  communicator.broadcast(text, first);
  if (first == 0 && communicator.root()) throw AgreedFailure(message);  // its own message, as it was
  throw AgreedFailure(str(communicator.name(first), ": ", std::string(text.begin(), text.end())));
}

ExplicitRun run_threads(const Model& model, const RunOptions& options, Observer* observer,
                        std::span<const parallel::Communicator> members) {
  TREMOR_CHECK(!members.empty() && members.front().threaded(), "run_threads takes the members of a group of threads");
  const int n = static_cast<int>(members.size());
  // Members still running, and when the group failed (to give the rest stop_grace_seconds).
  std::mutex mutex;
  std::condition_variable changed;
  int running = n;
  const auto finished = [&] {
    const std::lock_guard lock(mutex);
    --running;
    changed.notify_all();
  };
  const auto member = [&](int k, Observer* reporting) {
    const parallel::Communicator& me = members[static_cast<std::size_t>(k)];
    RunOptions mine = options;
    mine.communicator = &me;
    try {
      ExplicitRun run = run_explicit(model, mine, reporting);
      finished();
      return run;
    } catch (const AgreedFailure&) {  // every member has it; the first reports it
      finished();
      throw;
    } catch (...) {
      // The others may be waiting for this member: their waits throw this failure instead.
      const std::exception_ptr failure = std::current_exception();
      me.fail(k == 0 ? message_of(failure) : str(me.name(k), ": ", message_of(failure)));
      finished();
      throw;
    }
  };
  // The host's cores shared among the members for their set-up (OpenMP's threads of each).
  const auto share_cores = [n] {
#if defined(_OPENMP)
    omp_set_num_threads(std::max(1, omp_get_num_procs() / n));
#endif
  };
  std::vector<std::thread> threads;
  for (int k = 1; k < n; ++k)
    threads.emplace_back([&, k] {
      log::set_thread_silent(true);  // the first member reports what they all would
      share_cores();
      try {
        (void)member(k, nullptr);
      } catch (...) {  // reported through the group (fail) or by the first member (agreed)
      }
    });
  // A watchdog: after a failure, members that never return (waiting on a GPU for a peer that has
  // stopped) would keep the process from ending; past the grace period it ends it.
  std::thread watchdog([&] {
    std::unique_lock lock(mutex);
    while (running > 0) {
      changed.wait_for(lock, std::chrono::seconds(1));
      const std::string failure = members.front().failure();
      if (failure.empty() || running == 0) continue;
      if (changed.wait_for(lock, std::chrono::duration<double>(stop_grace_seconds), [&] { return running == 0; }))
        break;
      std::fprintf(stderr, "error: %s\nerror: %d of the %d members did not stop within %g s of the failure: ending\n",
                   failure.c_str(), running, n, stop_grace_seconds);
      std::fflush(stderr);
      std::_Exit(1);
    }
  });
#if defined(_OPENMP)
  const int cores = omp_get_max_threads();
#endif
  share_cores();
  ExplicitRun run;
  std::exception_ptr failure;
  try {
    run = member(0, observer);
  } catch (...) {
    failure = std::current_exception();
  }
#if defined(_OPENMP)
  omp_set_num_threads(cores);
#endif
  for (std::thread& thread : threads) thread.join();
  watchdog.join();
  if (failure) std::rethrow_exception(failure);
  return run;
}

Exec process_exec(Backend backend, const RunOptions& options, bool own_stream, StreamPriority priority) {
  if (backend != Backend::Cuda || !options.communicator || options.communicator->size() <= 1)
    return backend == Backend::Cuda && own_stream && priority != StreamPriority::Lowest ? Exec::cuda_stream(0, priority)
                                                                                         : Exec::make(backend);
  const int device = options.communicator->local_rank() % std::max(1, cuda_device_count());
  return own_stream ? Exec::cuda_stream(device, priority) : Exec::cuda(device);
}

}  // namespace tremor::explicit_fe
