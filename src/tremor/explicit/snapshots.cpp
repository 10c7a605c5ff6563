#include "tremor/explicit/snapshots.hpp"

#include <algorithm>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>

#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/fluid.hpp"

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

// A row of the potential (SnapshotTaker's fluid rows): sum_k weights[k] chi[nodes[k]] in double,
// as Recorder's rows are summed.
template <class Real>
TREMOR_HOST_DEVICE double fluid_row(Index r, const Index* offsets, const Index* nodes, const double* weights,
                                    const Real* chi) {
  double sum = 0.0;
  for (Index t = offsets[r]; t < offsets[r + 1]; ++t) sum += weights[t] * static_cast<double>(chi[nodes[t]]);
  return sum;
}

// out[r] = row r of chi, rounded to Real.
template <class Real>
void fluid_rows(const Exec& exec, Index n, const Index* offsets, const Index* nodes, const double* weights,
                View<const Real> chi, Real* out) {
  forall(exec, n, [=] TREMOR_LAMBDA(Index r) {
    out[r] = static_cast<Real>(fluid_row(r, offsets, nodes, weights, chi.data));
  });
}

// The fluid's motion into a snapshot's staging buffers: displacement[targets[r]] = row r of chi_k
// (`at`) and, with `after` (chi_k+1), velocity[targets[r]] = (row of chi_k+1 - before[r]) / (2 dt),
// each row rounded to Real first (as Recorder::complete differences its recorded rows).
template <class Real>
void fluid_motion(const Exec& exec, Index n, const Index* targets, const Index* offsets, const Index* nodes,
                  const double* weights, View<const Real> at, View<const Real> after, const Real* before,
                  double inv_2dt, Real* displacement, double* velocity) {
  forall(exec, n, [=] TREMOR_LAMBDA(Index r) {
    displacement[targets[r]] = static_cast<Real>(fluid_row(r, offsets, nodes, weights, at.data));
    if (after.data) {
      const auto next = static_cast<Real>(fluid_row(r, offsets, nodes, weights, after.data));
      velocity[targets[r]] = (static_cast<double>(next) - static_cast<double>(before[r])) * inv_2dt;
    }
  });
}

// out[i] = pressure[fluid[i]], NaN where fluid[i] < 0 (a node only solid elements hold).
template <class Real>
void gather_pressure(const Exec& exec, View<const Index> fluid, View<const Real> pressure, Real* out) {
  forall(exec, fluid.size, [=] TREMOR_LAMBDA(Index i) {
    const Index f = fluid[i];
    out[i] = f >= 0 ? pressure[f] : std::numeric_limits<Real>::quiet_NaN();
  });
}

// A staged field in double for the observer: itself in double, else widened into `into` (sized).
template <class Real>
std::span<const double> in_double(std::span<const Real> values, std::vector<double>& into) {
  if constexpr (std::is_same_v<Real, double>) {
    return values;
  } else {
    for (std::size_t i = 0; i < values.size(); ++i) into[i] = static_cast<double>(values[i]);
    return into;
  }
}

}  // namespace

template <class Real>
SnapshotTaker<Real>::SnapshotTaker(const Exec& exec, const Model& model, int every, double dt,
                                   const std::vector<Index>& old_to_new, Observer* observer, std::mutex& guard,
                                   const FluidSetup* fluid, const FluidTerm<Real>* term,
                                   std::span<const Index> local_to_model, std::span<const Index> fluid_only)
    : exec_(exec),
      observer_(observer),
      guard_(guard),
      every_(every),
      dt_(dt),
      velocity_(model.output && model.output->velocity),
      pressure_(model.output && model.output->pressure),
      delayed_(velocity_ || pressure_),
      fluid_(fluid ? term : nullptr) {
  if (every_ <= 0) return;
  TREMOR_CHECK(!pressure_ || fluid_, model.source, ": snapshots of pressure need the run's fluid");
  const int dim = model.mesh.dim();
  const bool part = !local_to_model.empty();
  std::vector<Index> nodes;
  if (model.output->snapshot_nodes.empty() && !part)
    for (Index node = 0; node < model.mesh.n_nodes(); ++node) nodes.push_back(node);
  else
    nodes = model.output->snapshot_nodes;
  const std::size_t n_solid = nodes.size();  // (a part's: then the nodes only its fluid holds)
  nodes.insert(nodes.end(), fluid_only.begin(), fluid_only.end());
  std::vector<Index> dofs;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    // A node only the fluid holds has no DOF of the part's solid: its values are the fluid's rows,
    // written over what its DOFs (node 0's) gather.
    const Index node = nodes[i];
    const Index run_node = i >= n_solid ? 0 : old_to_new.empty() ? node : old_to_new[static_cast<std::size_t>(node)];
    for (int c = 0; c < dim; ++c) dofs.push_back(run_node * dim + c);
  }
  dofs_ = DeviceArray<Index>(exec_, std::span<const Index>(dofs));
  if (!observer_) return;  // nothing to take; dofs_ still sizes restore()'s check

  const auto n = static_cast<Index>(dofs.size());
  displacement_ = DeviceArray<Real>(exec_, n);
  if (velocity_) {
    before_ = DeviceArray<Real>(exec_, n);
    velocity_values_ = DeviceArray<double>(exec_, n);
  }
  if (fluid_) {
    // The snapshot nodes that no solid element holds show the fluid's motion; the fluid's nodes
    // its pressure. (`model` is the solid: its elements are the solid's.)
    // (A part's: its solid's nodes are all held by its solid elements; fluid_only are not.)
    std::vector<bool> solid(static_cast<std::size_t>(model.mesh.n_nodes()), false);
    for (const ElementBlock& block : model.mesh.blocks)
      for (const Index node : block.connectivity) solid[static_cast<std::size_t>(node)] = true;
    std::vector<Index> in_fluid(nodes.size(), -1), motion, motion_at;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const Index at = i >= n_solid || !part ? nodes[i] : local_to_model[static_cast<std::size_t>(nodes[i])];
      in_fluid[i] = fluid_->fluid_node(at);
      if (in_fluid[i] < 0) {
        TREMOR_CHECK(i < n_solid, "snapshot node ", at, " is no node of the subdomain's fluid");
        continue;
      }
      if (i >= n_solid || (!part && !solid[static_cast<std::size_t>(nodes[i])])) {
        motion.push_back(in_fluid[i]);
        motion_at.push_back(static_cast<Index>(i));
      }
    }
    // Rows in the fluid's numbering, each node's element the one a receiver there takes: the
    // fluid element of the lowest number in the model. (Found on the fluid's mesh, in its set-up's
    // numbering, which the term may keep in another order: FluidTerm::setup_node.)
    const Index n_fluid = fluid->mesh.n_nodes();
    std::vector<Index> term_node(static_cast<std::size_t>(n_fluid));
    for (Index i = 0; i < n_fluid; ++i) term_node[static_cast<std::size_t>(fluid_->setup_node(i))] = i;
    for (Index& node : motion) node = fluid_->setup_node(node);
    std::vector<Location> locations =
        fluid_node_locations(fluid->mesh.model, motion, {}, std::span<const Index>(fluid->mesh.elements));
    for (Location& location : locations)
      for (Index& node : location.nodes) node = term_node[static_cast<std::size_t>(node)];
    std::vector<Index> targets, offsets{0}, row_nodes;
    std::vector<double> weights;
    for (std::size_t p = 0; p < locations.size(); ++p)
      for (int c = 0; c < dim; ++c) {
        const Location& location = locations[p];
        for (std::size_t a = 0; a < location.nodes.size(); ++a)
          if (const double g = location.gradients[a * static_cast<std::size_t>(dim) + static_cast<std::size_t>(c)];
              g != 0.0) {
            row_nodes.push_back(location.nodes[a]);
            weights.push_back(g);
          }
        targets.push_back(motion_at[p] * dim + c);
        offsets.push_back(static_cast<Index>(row_nodes.size()));
      }
    fluid_rows_ = static_cast<Index>(targets.size());
    fluid_targets_ = DeviceArray<Index>(exec_, std::span<const Index>(targets));
    fluid_offsets_ = DeviceArray<Index>(exec_, std::span<const Index>(offsets));
    fluid_nodes_ = DeviceArray<Index>(exec_, std::span<const Index>(row_nodes));
    fluid_weights_ = DeviceArray<double>(exec_, std::span<const double>(weights));
    if (velocity_) fluid_before_ = DeviceArray<Real>(exec_, fluid_rows_);
    if (pressure_) {
      pressure_nodes_ = DeviceArray<Index>(exec_, std::span<const Index>(in_fluid));
      pressure_values_ = DeviceArray<Real>(exec_, static_cast<Index>(nodes.size()));
    }
  }
  slots_.reserve(n_slots);
  for (int s = 0; s < n_slots; ++s) {
    Slot slot;
    slot.displacement = PinnedArray<Real>(exec_, n);
    slot.velocity = PinnedArray<double>(exec_, velocity_ ? n : 0);
    slot.pressure = PinnedArray<Real>(exec_, pressure_ ? static_cast<Index>(nodes.size()) : 0);
    slot.copied = CopyEvent(exec_);
    slots_.push_back(std::move(slot));
    free_.push_back(s);
  }
  copies_ = CopyStream(exec_);
  if constexpr (!std::is_same_v<Real, double>) {
    widened_.resize(dofs.size());
    if (pressure_) widened_pressure_.resize(nodes.size());
  }
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
  // The fluid's potential at the same two levels as the solid's (FluidTerm steps it first).
  const View<const Real> chi_previous = fluid_ ? fluid_->fluid_scheme().previous_displacement() : View<const Real>();
  const View<const Real> chi_current = fluid_ ? fluid_->fluid_scheme().displacement() : View<const Real>();
  if (!delayed_) {
    if (!due) return;
    const int slot = acquire();
    gather_entries<Real>(exec_, current, std::as_const(dofs_).view(), displacement_.view());
    if (fluid_) gather_fluid(chi_current, View<const Real>());
    submit(slot, step);
    return;
  }
  if (pending_active_ && pending_step_ + 1 == step) {
    const int slot = acquire();
    if (velocity_)
      gather_with_velocity<Real>(exec_, std::as_const(dofs_).view(), previous, current, std::as_const(before_).view(),
                                 0.5 / dt_, displacement_.view(), velocity_values_.view());
    else
      gather_entries<Real>(exec_, previous, std::as_const(dofs_).view(), displacement_.view());
    if (fluid_) gather_fluid(chi_previous, velocity_ ? chi_current : View<const Real>());
    submit(slot, pending_step_);
    pending_active_ = false;
  }
  if (due) {
    // Queued after the kernels above on the Exec's stream, so that they have read u_k-1 already.
    if (velocity_) {
      gather_entries<Real>(exec_, previous, std::as_const(dofs_).view(), before_.view());
      if (fluid_rows_ > 0)
        fluid_rows<Real>(exec_, fluid_rows_, std::as_const(fluid_offsets_).data(), std::as_const(fluid_nodes_).data(),
                         std::as_const(fluid_weights_).data(), chi_previous, fluid_before_.data());
    }
    pending_active_ = true;
    pending_step_ = step;
  }
}

template <class Real>
void SnapshotTaker<Real>::gather_fluid(View<const Real> at, View<const Real> after) {
  if (fluid_rows_ > 0)
    fluid_motion<Real>(exec_, fluid_rows_, std::as_const(fluid_targets_).data(), std::as_const(fluid_offsets_).data(),
                       std::as_const(fluid_nodes_).data(), std::as_const(fluid_weights_).data(), at, after,
                       std::as_const(fluid_before_).data(), 0.5 / dt_, displacement_.data(), velocity_values_.data());
  if (pressure_)
    gather_pressure<Real>(exec_, std::as_const(pressure_nodes_).view(), fluid_->pressure(), pressure_values_.data());
}

template <class Real>
std::vector<Index> SnapshotTaker<Real>::pressure_nodes() const {
  std::vector<Index> nodes;
  for (const Index node : pressure_nodes_.to_host())
    if (node >= 0) nodes.push_back(node);
  return nodes;
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
  if (!velocity_) return state;  // (a pressure snapshot waits for p_k alone, which the next step makes)
  // The snapshot DOFs' u_k-1 and u_k, the fluid's rows of chi_k-1 and chi_k in place of the
  // solid's at the nodes that show the fluid's motion (so that the model's pending snapshot is the
  // same however it is decomposed).
  const auto widen = [](const std::vector<Real>& values, std::vector<double>& out) {
    out.insert(out.end(), values.begin(), values.end());
  };
  widen(before_.to_host(), state.before);
  DeviceArray<Real> at(exec_, dofs_.size());
  gather_entries<Real>(exec_, current, std::as_const(dofs_).view(), at.view());
  widen(at.to_host(), state.at);
  if (fluid_rows_ > 0) {
    DeviceArray<Real> rows(exec_, fluid_rows_);
    fluid_rows<Real>(exec_, fluid_rows_, std::as_const(fluid_offsets_).data(), std::as_const(fluid_nodes_).data(),
                     std::as_const(fluid_weights_).data(), fluid_->fluid_scheme().displacement(), rows.data());
    const std::vector<Index> targets = fluid_targets_.to_host();
    const std::vector<Real> before = fluid_before_.to_host(), now = rows.to_host();
    for (std::size_t r = 0; r < targets.size(); ++r) {
      state.before[static_cast<std::size_t>(targets[r])] = static_cast<double>(before[r]);
      state.at[static_cast<std::size_t>(targets[r])] = static_cast<double>(now[r]);
    }
  }
  return state;
}

template <class Real>
void SnapshotTaker<Real>::restore(const PendingSample& state) {
  pending_active_ = false;
  if (!state.active || !observer_) return;
  // With velocity, the snapshot DOFs' values, the fluid's rows at their nodes (pending()).
  const auto size = velocity_ ? static_cast<std::size_t>(dofs_.size()) : std::size_t{0};
  TREMOR_CHECK(state.before.size() == size && state.at.size() == size, "checkpoint: the pending snapshot has ",
               state.at.size(), " values; expected ", size, velocity_ ? "" : " (snapshots record no velocity)");
  // The values were Real widened to double: exact back. `at` (u_k) is the restored state's
  // current level, which the next take() gathers as its previous one.
  if (velocity_) {
    before_.copy_from_host(std::vector<Real>(state.before.begin(), state.before.end()));
    if (fluid_rows_ > 0) {
      std::vector<Real> rows;
      for (const Index target : fluid_targets_.to_host()) rows.push_back(static_cast<Real>(state.before[static_cast<std::size_t>(target)]));
      fluid_before_.copy_from_host(rows);
    }
  }
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
  if (pressure_) copies_.copy_to_host(s.pressure, pressure_values_);
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
        const std::span<const double> displacement = in_double<Real>(s.displacement.span(), widened_);
        const std::span<const double> velocity = velocity_ ? s.velocity.span() : std::span<const double>();
        const std::span<const double> pressure =
            pressure_ ? in_double<Real>(s.pressure.span(), widened_pressure_) : std::span<const double>();
        const Snapshot snapshot{s.step, static_cast<double>(s.step) * dt_, displacement, velocity, pressure};
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
