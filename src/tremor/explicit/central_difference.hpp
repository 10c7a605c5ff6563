#pragma once
// Central-difference time stepping with lumped (diagonal) mass and damping, in the precomputed form
// of the pogo paper (section 2.1, Eq. 4):
//
//   U_next = F' + C' U_prev + K' U_curr,   with A = (M / dt^2 + C / (2 dt))^-1 diagonal,
//   F' = A F,   C' = A (C / (2 dt) - M / dt^2),   K' U = A (2 M / dt^2 U - K U).
//
// K is applied through an op::Operator (assembled or matrix-free), so K' is never formed: per
// step one operator apply plus one fused update over the DOFs (forall on the Exec given; DOFs an
// operator steps itself apart: update_apart). State is
// kept in Real (float or double) in the Exec's memory; the diagonal coefficients are computed in
// double and stored in Real. The operator works on pointers in the same memory space.
//
// Memory per DOF: U_prev, U_curr and K U in Real; A, and C' where damped, in Real per DOF or,
// where every component of each node has the same (no node held in some components only), per
// node; C' from the first damped DOF on only (a numbering with its damped nodes last, as a PML's
// is, keeps it for the layer alone, and the update reads none before it). K' = 1 - C' (undamped:
// A = dt^2 / M, C' = -1, K' = 2), and the mass, for the energies and the Taylor start, is
// M = dt^2 (1 - C') / (2 A). U_next is written over U_prev, which each DOF's
// update reads first. Forces come as a list of loaded DOFs and their values (a model loads few
// DOFs: no force vector is kept or read per DOF).
//
// Several shots at once (`columns` > 1): the fields hold that many vectors interleaved, DOF i of
// shot s at i * columns + s, stepped by one operator apply over all of them
// (op::Operator::apply_batch) and one update; the coefficients are the same for every shot and
// read once per DOF's shots. Each shot's bits are those it has stepped alone. Loads, prescribed
// and held DOFs are then field indices (i * columns + s).
#include <span>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/core/config.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/operator/central_step.hpp"

namespace tremor::explicit_fe {

// The pointwise update's pieces (operator/central_step.hpp): A and C' as kernels read them, U_next
// and -a_n, each rounded as written on a GPU.
using op::Coefficients;
using op::minus_acceleration;
using op::next_level;

// -a_n at field entry i as advance() writes it into its `deceleration` (the same bits), for the
// kernels of a caller that reads it at a few DOFs only: valid on the Exec after the step's forces
// are complete and its loads moved into them (CentralDifference::load) and before advance(), at
// entries that no operator steps itself (update_apart: there K u is never summed and U_prev is
// already U_next). moves(i): whether advance() writes it there (A not 0: not held, not massless).
template <class Real>
struct Deceleration {
  Coefficients<Real, 0, true> k{};
  const Real *uc = nullptr, *up = nullptr, *ku = nullptr;
  Real inv_dt2 = Real(0);
  TREMOR_HOST_DEVICE bool moves(Index i) const { return k.force_scale(i) != Real(0); }
  TREMOR_HOST_DEVICE Real at(Index i) const {
    return minus_acceleration(k.force_scale(i), k.prev_scale(i), ku[i], up[i], uc[i], inv_dt2);
  }
};

template <class Real>
class CentralDifference {
 public:
  // `mass` and `damping` per DOF (damping may be empty: undamped); `fixed` lists DOFs held at a
  // prescribed displacement (0 unless set_prescribed() says otherwise). DOFs with zero mass and
  // no stiffness coupling (nodes no element uses) are held at zero as well; their count is
  // reported by n_massless(). node_dofs: the DOFs of one node (consecutive), 1 to 3; the
  // coefficients are kept per node where its DOFs' are equal. Throws tremor::Error on a
  // non-positive or non-finite dt, or sizes that do not match the operator.
  CentralDifference(const Exec& exec, const op::Operator<Real>& stiffness, std::span<const double> mass,
                    std::span<const double> damping, double dt, std::span<const Index> fixed, int node_dofs = 1,
                    int columns = 1);
  // The same from mass and damping already in the Exec's memory (assembled there; damping may be
  // empty), taken over: the coefficients are computed there, nothing passes through the host.
  CentralDifference(const Exec& exec, const op::Operator<Real>& stiffness, DeviceArray<double> mass,
                    DeviceArray<double> damping, double dt, std::span<const Index> fixed, int node_dofs = 1,
                    int columns = 1);

  // DOFs of one shot; the fields hold columns() shots of them, field_size() values.
  Index n_dofs() const { return n_; }
  int columns() const { return columns_; }
  Index field_size() const { return static_cast<Index>(static_cast<Size>(n_) * columns_); }
  double dt() const { return dt_; }
  long long step_count() const { return steps_; }
  double time() const { return static_cast<double>(steps_) * dt_; }
  Index n_massless() const { return massless_; }
  // The DOFs the update runs over: up to the last that has mass or is held; the massless DOFs after
  // it (nodes no element holds, numbered last) stay at zero untouched.
  Index n_moving() const { return moving_; }
  // DOFs that share one A (and C'): node_dofs where every node's components have equal ones, else 1.
  int coefficient_dofs() const { return per_; }
  // The first DOF whose C' is kept (damped, or after one that is): n_dofs() where none is damped.
  Index damped_from() const { return prev_scale_.size() > 0 ? damped_from_ * per_ : n_; }

  // Advances one step from time() to time() + dt under the nodal forces `loads` on `loaded_dofs`
  // (values at time(), each DOF at most once; empty for none), then sets the DOFs listed in
  // `prescribed_dofs` to `prescribed` (values at time() + dt; empty for none). All in the Exec's
  // memory. Only queues work on a Cuda Exec: no host synchronisation.
  void step(View<const Index> loaded_dofs, View<const Real> loads, View<const Index> prescribed_dofs = {},
            View<const Real> prescribed = {});
  // step() in two halves, for a subdomain whose shared nodes' internal forces are summed with its
  // neighbours' between them: apply_stiffness() computes K U_curr and returns it (writable, in the
  // Exec's memory), advance() completes the step from it.
  View<Real> apply_stiffness();
  // apply_stiffness() part by part, for a stiffness made of parts (op::SplitOperator): `part`'s
  // K U_curr added into K u (parts that add: the last update zeroed it) or written into its rows
  // (RowBlocks); returns K u. Once per part and step, before advance().
  View<Real> apply_stiffness(const op::Operator<Real>& part);
  // K u before apply_stiffness() where the stiffness adds into it (zeroed by the last update, or
  // the set-up): what the step's other forces may be added into beside the apply. Empty where the
  // stiffness writes K u.
  View<Real> zeroed_forces() { return stiffness_.adds() ? ku_.view() : View<Real>{}; }
  // With `deceleration` (field_size() entries), -a_n = -(U_next - 2 U_curr + U_prev) / dt^2 written
  // there too, in the same pass, at every DOF that moves and is not held (the others' entries are
  // not touched): a fluid's pressure (explicit/fluid.hpp), from the forces rather than from a
  // second difference of the levels.
  void advance(View<const Index> loaded_dofs, View<const Real> loads, View<const Index> prescribed_dofs = {},
               View<const Real> prescribed = {}, View<Real> deceleration = {});
  // advance()'s first part alone: the loads moved into K u (K u - F), for a caller that reads
  // deceleration() between it and an advance() given no loads.
  void load(View<const Index> loaded_dofs, View<const Real> loads);
  // -a_n where a caller reads it (Deceleration), between load() and advance().
  Deceleration<Real> deceleration() const;

  // Where an operator takes some nodes' step itself (op::InnerStep: a fluid element's inner nodes,
  // whose forces it alone sums): advance() skips DOFs [first, last) (one per node, of every shot)
  // but for the field entries `listed` (the caller's array, kept until the next call), which it
  // updates as the others, their K u summed (by an operator that adds them then). (0, 0): none.
  // An advance() that writes the deceleration takes no DOF apart, nor does step(); a load at a DOF
  // apart must be listed (the caller's plan: K u is read there only if it is).
  void update_apart(Index first, Index last, View<const Index> listed = {});
  // The step the operator takes there, on U_prev of this step (empty where none is apart); valid
  // until the step's advance().
  op::InnerStep<Real> inner_step();

  // Displacement now (U_curr) and one step before (U_prev), in the Exec's memory (field_size()
  // values).
  View<const Real> displacement() const { return curr_.view(); }
  View<const Real> previous_displacement() const { return prev_.view(); }
  // Sets the state (a restart) from host values: both time levels and the step count.
  void set_state(std::span<const Real> previous, std::span<const Real> current, long long steps);
  // Copies both time levels to the host (a checkpoint; with step_count(), what set_state takes).
  void get_state(std::vector<Real>& previous, std::vector<Real>& current) const;
  // One shot at a time only (columns() 1).
  // Starts at time 0 from displacement u0 and velocity v0 (host values, no load at t = 0): U_curr =
  // u0 and U_prev = u0 - dt v0 + dt^2/2 a0 with a0 = -M^-1 K u0, the Taylor start that keeps the
  // scheme second order (U_prev = u0 would leave an O(dt) error in the velocity). Held DOFs stay 0.
  void set_initial_conditions(std::span<const Real> u0, std::span<const Real> v0);

  // Energies at mid-step (t - dt/2): kinetic 1/2 v^T M v with the half-step velocity, and strain
  // 1/2 (U_curr^T K U_prev) averaged so that the undamped, unforced scheme conserves their sum
  // exactly (the discrete energy of the leapfrog scheme). Several shots: the sum of theirs.
  double kinetic_energy() const;
  double strain_energy() const;

 private:
  void set_up(DeviceArray<double> mass, DeviceArray<double> damping, std::span<const Index> fixed, int node_dofs);
  Exec exec_;
  const op::Operator<Real>& stiffness_;
  Index n_ = 0;
  int columns_ = 1;
  double dt_ = 0.0;
  long long steps_ = 0;
  Index massless_ = 0;
  Index moving_ = 0;               // n_moving()
  int per_ = 1;                    // DOFs per entry of the coefficients
  DeviceArray<Real> force_scale_;  // A (F' = A F); 0 for held and massless DOFs
  DeviceArray<Real> prev_scale_;   // C' diagonal from entry damped_from_ on; empty: undamped (C' = -1)
  Index damped_from_ = 0;          // in entries (of per_ DOFs)
  DeviceArray<Real> prev_, curr_, ku_;
  Index apart_first_ = 0, apart_last_ = 0;  // update_apart
  View<const Index> apart_listed_;
};

extern template class CentralDifference<float>;
extern template class CentralDifference<double>;

}  // namespace tremor::explicit_fe
