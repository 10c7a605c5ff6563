#include "tremor/explicit/snapshots.hpp"

#include <span>
#include <type_traits>
#include <utility>

#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"

namespace tremor::explicit_fe {

namespace {

// Snapshot k at step k+1, once u_k+1 exists (receivers.hpp): displacement[i] = u_k = previous at
// the snapshot DOF, velocity[i] = (u_k+1 - u_k-1) / (2 dt) in double, with u_k-1 gathered at step
// k into `before`. Per value: reads a DOF index (4 B), two state entries and one of `before`
// (3 Real), writes one Real and one double.
template <class Real>
void gather_with_velocity(const Exec& exec, View<const Index> dofs, View<const Real> previous, View<const Real> current,
                          View<const Real> before, double inv_2dt, View<Real> displacement, View<double> velocity) {
  forall(exec, dofs.size, [=] TREMOR_LAMBDA(Index i) {
    const Index dof = dofs[i];
    displacement[i] = previous[dof];
    velocity[i] = (static_cast<double>(current[dof]) - static_cast<double>(before[i])) * inv_2dt;
  });
}

}  // namespace

template <class Real>
SnapshotTaker<Real>::SnapshotTaker(const Exec& exec, const Model& model, int every, double dt,
                                   const std::vector<Index>& old_to_new, Observer* observer, std::mutex& guard)
    : exec_(exec),
      observer_(observer),
      guard_(guard),
      every_(every),
      dt_(dt),
      velocity_(model.output && model.output->velocity) {
  if (every_ <= 0) return;
  const int dim = model.mesh.dim();
  std::vector<Index> dofs;
  const auto add = [&](Index node) {
    const Index run_node = old_to_new.empty() ? node : old_to_new[static_cast<std::size_t>(node)];
    for (int c = 0; c < dim; ++c) dofs.push_back(run_node * dim + c);
  };
  if (model.output->snapshot_nodes.empty())
    for (Index node = 0; node < model.mesh.n_nodes(); ++node) add(node);
  else
    for (Index node : model.output->snapshot_nodes) add(node);
  dofs_ = DeviceArray<Index>(exec_, std::span<const Index>(dofs));
  if (!observer_) return;  // nothing to take; dofs_ still sizes restore()'s check

  const auto n = static_cast<Index>(dofs.size());
  displacement_ = DeviceArray<Real>(exec_, n);
  if (velocity_) {
    before_ = DeviceArray<Real>(exec_, n);
    velocity_values_ = DeviceArray<double>(exec_, n);
  }
  slots_.reserve(n_slots);
  for (int s = 0; s < n_slots; ++s) {
    Slot slot;
    slot.displacement = PinnedArray<Real>(exec_, n);
    slot.velocity = PinnedArray<double>(exec_, velocity_ ? n : 0);
    slot.copied = CopyEvent(exec_);
    slots_.push_back(std::move(slot));
    free_.push_back(s);
  }
  copies_ = CopyStream(exec_);
  if constexpr (!std::is_same_v<Real, double>) widened_.resize(dofs.size());
  writer_ = std::thread([this] { write_loop(); });
}

template <class Real>
SnapshotTaker<Real>::~SnapshotTaker() {
  if (!writer_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  writer_.join();
}

template <class Real>
void SnapshotTaker<Real>::take(long long step, View<const Real> previous, View<const Real> current) {
  if (every_ <= 0 || !observer_) return;
  const bool due = step % every_ == 0;
  if (!velocity_) {
    if (!due) return;
    const int slot = acquire();
    gather_entries<Real>(exec_, current, std::as_const(dofs_).view(), displacement_.view());
    submit(slot, step);
    return;
  }
  if (pending_active_ && pending_step_ + 1 == step) {
    const int slot = acquire();
    gather_with_velocity<Real>(exec_, std::as_const(dofs_).view(), previous, current, std::as_const(before_).view(),
                               0.5 / dt_, displacement_.view(), velocity_values_.view());
    submit(slot, pending_step_);
    pending_active_ = false;
  }
  if (due) {
    // Queued after the kernel above on the Exec's stream, so that one has read u_k-1 already.
    gather_entries<Real>(exec_, previous, std::as_const(dofs_).view(), before_.view());
    pending_active_ = true;
    pending_step_ = step;
  }
}

template <class Real>
void SnapshotTaker<Real>::check() {
  if (!writer_.joinable()) return;
  const std::lock_guard lock(mutex_);
  rethrow_failure();
}

template <class Real>
void SnapshotTaker<Real>::drain() {
  if (!writer_.joinable()) return;
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queue_.empty(); });
  rethrow_failure();
}

template <class Real>
PendingSample SnapshotTaker<Real>::pending(View<const Real> current) {
  PendingSample state;
  state.step = pending_step_;
  if (!pending_active_) return state;
  state.active = true;
  const std::vector<Real> before = before_.to_host();
  state.before.assign(before.begin(), before.end());
  DeviceArray<Real> at(exec_, dofs_.size());
  gather_entries<Real>(exec_, current, std::as_const(dofs_).view(), at.view());
  const std::vector<Real> at_host = at.to_host();
  state.at.assign(at_host.begin(), at_host.end());
  return state;
}

template <class Real>
void SnapshotTaker<Real>::restore(const PendingSample& state) {
  const auto size = static_cast<std::size_t>(dofs_.size());
  TREMOR_CHECK(!state.active || (velocity_ && state.before.size() == size && state.at.size() == size),
               "checkpoint: the pending snapshot has ", state.at.size(), " values; expected ", size,
               velocity_ ? "" : " (and none, as snapshots record no velocity)");
  pending_active_ = false;
  if (!state.active || !observer_) return;
  // The values were Real widened to double: exact back. `at` (u_k) is the restored state's
  // current level, which the next take() gathers as its previous one.
  const std::vector<Real> before(state.before.begin(), state.before.end());
  before_.copy_from_host(before);
  pending_active_ = true;
  pending_step_ = state.step;
}

template <class Real>
int SnapshotTaker<Real>::acquire() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !free_.empty() || failure_; });
  rethrow_failure();
  const int slot = free_.front();
  free_.pop_front();
  lock.unlock();
  if (last_slot_ >= 0) copies_.exec_waits_for(slots_[static_cast<std::size_t>(last_slot_)].copied);
  return slot;
}

template <class Real>
void SnapshotTaker<Real>::submit(int slot, long long step) {
  Slot& s = slots_[static_cast<std::size_t>(slot)];
  copies_.copy_to_host(s.displacement, displacement_);
  if (velocity_) copies_.copy_to_host(s.velocity, velocity_values_);
  copies_.record(s.copied);
  last_slot_ = slot;
  s.step = step;
  {
    const std::lock_guard lock(mutex_);
    queue_.push_back(slot);
  }
  changed_.notify_all();
}

template <class Real>
void SnapshotTaker<Real>::write_loop() {
  for (;;) {
    int slot = -1;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return !queue_.empty() || closing_; });
      if (queue_.empty()) return;  // closing, and all written
      slot = queue_.front();
    }
    Slot& s = slots_[static_cast<std::size_t>(slot)];
    std::exception_ptr failed;
    try {
      s.copied.wait();  // also before dropping a snapshot: the slot is reused next
      if (!failure_) {  // only this thread sets failure_
        std::span<const double> displacement;
        if constexpr (std::is_same_v<Real, double>) {
          displacement = s.displacement.span();
        } else {
          const std::span<const Real> values = s.displacement.span();
          for (std::size_t i = 0; i < values.size(); ++i) widened_[i] = static_cast<double>(values[i]);
          displacement = widened_;
        }
        const std::span<const double> velocity = velocity_ ? s.velocity.span() : std::span<const double>();
        const Snapshot snapshot{s.step, static_cast<double>(s.step) * dt_, displacement, velocity};
        const std::lock_guard observer_lock(guard_);
        observer_->on_snapshot(snapshot);
      }
    } catch (...) {
      failed = std::current_exception();
    }
    {
      const std::lock_guard lock(mutex_);
      if (failed && !failure_) failure_ = failed;
      queue_.pop_front();
      free_.push_back(slot);
    }
    changed_.notify_all();
  }
}

template <class Real>
void SnapshotTaker<Real>::rethrow_failure() {
  if (failure_) std::rethrow_exception(failure_);
}

template class SnapshotTaker<float>;
template class SnapshotTaker<double>;

}  // namespace tremor::explicit_fe
