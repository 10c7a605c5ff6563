#pragma once
// One DOF's central-difference step (the pogo paper's Eq. 4, explicit/central_difference.hpp), and
// the rows of an operator that its apply steps itself: a DOF whose K u is summed whole at one place
// of the apply (a node that only one element holds) and that takes no other force is stepped there,
// from the sum it has just made, instead of adding it into K u for the update to read back. The
// update then leaves those DOFs out: a pass over them, and K u's read and zeroing there, saved.
#include "tremor/core/config.hpp"

namespace tremor::op {

// Eq. 4 for one DOF from A, C' and K' = 1 - C', its forces f = K u - F: U_next written over U_prev
// (`up`, read first); a held DOF (A = 0) stays at zero. With `deceleration`, -a_n there too at a DOF
// that moves: (U_next - 2 U_curr + U_prev) / dt^2 = -(A f + (1 + C') (U_curr - U_prev)) / dt^2,
// without the second difference of the levels that would lose digits.
template <class Real>
TREMOR_HOST_DEVICE inline void central_step(Real a, Real cp, Real f, Real up, Real uc, Real inv_dt2, Real* next,
                                            Real* deceleration) {
  const Real u = a * (Real(0) - f) + cp * up + (Real(1) - cp) * uc;
  *next = a == Real(0) ? Real(0) : u;
  if (deceleration && a != Real(0)) *deceleration = (a * f + (Real(1) + cp) * (uc - up)) * inv_dt2;
}

// DOFs [first, last) (one a node) stepped by the apply: an apply that takes one calls step(i, f,
// u_i) with the whole K u of DOF i, and adds nothing there. Arrays indexed by DOF; `cp` null:
// undamped (C' = -1); `deceleration` null: none written. Empty (first == last): none.
template <class Real>
struct InPlaceStep {
  Real* next = nullptr;  // U_prev in, U_next out
  const Real* a = nullptr;
  const Real* cp = nullptr;
  Real* deceleration = nullptr;
  Index first = 0, last = 0;
  Real inv_dt2 = Real(0);

  bool empty() const { return first == last; }
  TREMOR_HOST_DEVICE bool takes(Index i) const { return i >= first && i < last; }
  TREMOR_HOST_DEVICE void step(Index i, Real f, Real uc) const {
    central_step(a[i], cp ? cp[i] : Real(-1), f, next[i], uc, inv_dt2, next + i, deceleration ? deceleration + i : nullptr);
  }
};

}  // namespace tremor::op
