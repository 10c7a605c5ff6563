#pragma once
// Field snapshots of the explicit solver (solver.hpp; the model's [output]) taken while the time
// loop goes on. A snapshot is gathered on the Exec into a staging buffer in the Exec's memory,
// copied from there to the page-locked host buffer of one of a few slots on a second stream
// (backend/async_copy.hpp) once the kernels before it are done, and handed to a writer thread,
// which waits for the copy and calls Observer::on_snapshot. The time loop never waits for a
// snapshot on the host, except when every slot is still being copied or written (back-pressure:
// memory stays bounded); the next gather into the staging buffer waits on the device for the
// copy out of it.
//
// Velocity, v_k = (u_k+1 - u_k-1) / (2 dt) (receivers.hpp), is computed on the Exec in double: at
// step k (due) u_k-1 is gathered into a device buffer; at step k+1, whose previous level is u_k,
// one kernel gathers u_k and computes (double(u_k+1) - double(u_k-1)) * (0.5 / dt), the same
// operations in the same order as a host computation, so the values are the same bits.
//
// A model with fluids (fluid.hpp): at the snapshot nodes no solid element holds, the fluid's
// particle motion replaces the solid's (which is at rest there), each component a row of the
// potential as a receiver at that node reads it (fluid_node_locations: u = grad chi / rho in the
// first fluid element holding it, the row's sum in double rounded to Real, the velocity the
// difference of those rows), so a receiver and a snapshot at one node show the same values. The
// pressure (OutputSettings::pressure) is the FluidTerm's p_k, known once chi_k+1 is: a snapshot
// with pressure waits one step as one with velocity does; NaN at the nodes no fluid element holds.
//
// Threading: the writer thread calls on_snapshot holding `guard`, the mutex the solver holds
// around every other observer call, so the observer sees one call at a time, snapshots in step
// order. A failure inside on_snapshot (or a failed copy) is kept and rethrown on the solver's
// thread by the next take(), check() or drain(); the snapshots after it are dropped.
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "tremor/backend/async_copy.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/explicit/solver.hpp"

namespace tremor::explicit_fe {

struct FluidSetup;  // fluid.hpp
template <class Real>
class FluidTerm;

template <class Real>
class SnapshotTaker {
 public:
  // Host buffers in flight at most: one being written, one being copied, one being filled.
  static constexpr int n_slots = 3;

  // `model` in its own numbering; `old_to_new` maps it to the run's (empty: the same). Takes
  // nothing when `every` <= 0 or `observer` is null. Validates the snapshot nodes. With fluids,
  // `model` is the solid (fem::solid_part, every node kept), `fluid` the run's fluid and `term` the
  // subdomain's, whose potential and pressure are read at each take().
  //   A part of a decomposed run with fluids (ModelPart) gives `local_to_model`, its solid's
  // nodes as the model's, and `fluid_only`, the snapshot nodes it takes that only fluid elements
  // hold (the model's numbers), which its part of the fluid holds with the element a receiver
  // there reads: it takes model.output's snapshot nodes (its solid's, every one listed), then those.
  SnapshotTaker(const Exec& exec, const Model& model, int every, double dt, const std::vector<Index>& old_to_new,
                Observer* observer, std::mutex& guard, const FluidSetup* fluid = nullptr,
                const FluidTerm<Real>* term = nullptr, std::span<const Index> local_to_model = {},
                std::span<const Index> fluid_only = {});
  SnapshotTaker(const SnapshotTaker&) = delete;
  SnapshotTaker& operator=(const SnapshotTaker&) = delete;
  // Writes what is queued (unless writing failed; a failure here is dropped, so call drain()
  // first on the normal path) and joins the writer thread.
  ~SnapshotTaker();

  // After the initial conditions (step 0, `previous` = u_-1) and after every step (`current` =
  // u_step). Steps must increase by one, except after restore(). Rethrows a writer failure when
  // it passes a snapshot on.
  void take(long long step, View<const Real> previous, View<const Real> current);
  // Rethrows a failure of the writer thread, if any, without waiting.
  void check();
  // Waits until every snapshot taken so far was passed to the observer; rethrows a failure.
  void drain();

  // The velocity snapshot waiting for the next step, as host values (a checkpoint): copies the
  // device's u_k-1 and gathers `current` (u_k) synchronously, the fluid's motion in place of the
  // solid's at the nodes it shows, as the snapshot shows them. Inactive when none waits.
  PendingSample pending(View<const Real> current);
  // Continues from a checkpoint's pending snapshot (throws on a size mismatch).
  void restore(const PendingSample& state);
  // The fluid's nodes (its numbering) whose pressure take() reads: none without snapshots of
  // pressure, or where it takes none (FluidTerm::read_pressure_at).
  std::vector<Index> pressure_nodes() const;
  // Whether take() reads the fluid's potential (its motion at nodes no solid element holds).
  bool reads_fluid_motion() const { return fluid_rows_ > 0; }

 private:
  struct Slot {
    PinnedArray<Real> displacement;
    PinnedArray<double> velocity;
    PinnedArray<Real> pressure;
    CopyEvent copied;
    long long step = 0;
  };

  // A free slot, waiting for the writer when none is; then makes the Exec wait (on the device)
  // until the staging buffers are copied out, so they can be gathered into.
  int acquire();
  // The fluid's part, on the Exec: the rows of chi_k (`at`) into the staging displacement and, with
  // `after` (chi_k+1), the velocity; the pressure p_k. Queued after the solid's gather.
  void gather_fluid(View<const Real> at, View<const Real> after);
  void submit(int slot, long long step);  // queues the copy into the slot, hands it to the writer
  void write_loop();                     // the writer thread
  void rethrow_failure();                // with mutex_ held

  Exec exec_;
  Observer* observer_ = nullptr;
  std::mutex& guard_;
  int every_ = 0;
  double dt_ = 0.0;
  bool velocity_ = false;
  bool pressure_ = false;
  bool delayed_ = false;  // velocity or pressure: snapshot k is gathered at step k + 1
  DeviceArray<Index> dofs_;
  DeviceArray<Real> before_;  // u_k-1 at the snapshot DOFs while a velocity snapshot waits
  bool pending_active_ = false;
  long long pending_step_ = 0;
  DeviceArray<Real> displacement_;  // staging, in the Exec's memory
  DeviceArray<double> velocity_values_;
  // The fluid's part: row r (component r % dim of the fluid snapshot node r / dim) is the sum over
  // k in [fluid_offsets_[r], fluid_offsets_[r + 1]) of fluid_weights_[k] chi[fluid_nodes_[k]],
  // staged at displacement entry fluid_targets_[r]; fluid_before_ its value at chi_k-1 while a
  // velocity snapshot waits. pressure_nodes_: the fluid node of each snapshot node, or -1.
  const FluidTerm<Real>* fluid_ = nullptr;
  Index fluid_rows_ = 0;
  DeviceArray<Index> fluid_targets_, fluid_offsets_, fluid_nodes_;
  DeviceArray<double> fluid_weights_;
  DeviceArray<Real> fluid_before_;
  DeviceArray<Index> pressure_nodes_;
  DeviceArray<Real> pressure_values_;  // staging
  std::vector<Slot> slots_;
  int last_slot_ = -1;  // the slot copied into last, from the staging buffers
  CopyStream copies_;  // after slots_: destroyed first, waiting for copies into their buffers

  std::mutex mutex_;  // guards what follows, shared with the writer thread
  std::condition_variable changed_;
  std::deque<int> queue_;  // slots waiting for or in the writer, in step order
  std::deque<int> free_;
  bool closing_ = false;
  std::exception_ptr failure_;

  std::vector<double> widened_, widened_pressure_;  // the writer's: float fields in double
  std::thread writer_;
};

extern template class SnapshotTaker<float>;
extern template class SnapshotTaker<double>;

}  // namespace tremor::explicit_fe
