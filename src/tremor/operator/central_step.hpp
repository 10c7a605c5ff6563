#pragma once
// The central difference's pointwise update of one field entry (explicit/central_difference.hpp,
// the pogo paper's Eq. 4): its coefficients A and C' as kernels read them, U_next and -a_n. Kept
// below the integrator so that an operator which alone sums some nodes' forces (a fluid element's
// inner nodes, sem/fluid.hpp) can take their step itself, with the integrator's bits: on a GPU
// each operation is rounded as written, none contracted into a multiply-add, so that every kernel
// that computes it gives the same value whatever the compiler fuses in its own code.
#include <type_traits>

#include "tremor/core/config.hpp"

namespace tremor::op {

// A and C' (cp null: undamped, C' = -1) as kernels read them for field entry i: one entry per Per
// DOFs, or per `per` where Per is 0 (a division by a constant in the update, by a variable
// elsewhere); with several shots (Shots), entry i is DOF i / columns's.
// C' is kept from entry `damped_from` on (the entries before it undamped or held: C' -1 there, read
// as a constant, not loaded).
template <class Real, int Per = 0, bool Shots = false>
struct Coefficients {
  const Real* a;
  const Real* cp;
  int per;
  int columns = 1;
  Index damped_from = 0;
  TREMOR_HOST_DEVICE Index dof(Index i) const { return Shots ? i / columns : i; }
  TREMOR_HOST_DEVICE Index entry(Index i) const { return Per > 0 ? dof(i) / Per : dof(i) / per; }
  TREMOR_HOST_DEVICE Real force_scale(Index i) const { return a[entry(i)]; }
  TREMOR_HOST_DEVICE Real prev_scale(Index i) const {
    const Index e = entry(i);
    return cp && e >= damped_from ? cp[e - damped_from] : Real(-1);
  }
};

// U_next = A (0 - K u) + C' U_prev + (1 - C') U_curr of one DOF, K u holding K u - F (0 where A is:
// held or massless).
template <class Real>
TREMOR_HOST_DEVICE inline Real next_level(Real a, Real cp, Real ku, Real up, Real uc) {
#if defined(__CUDA_ARCH__)
  Real next;
  if constexpr (std::is_same_v<Real, float>)
    next = __fadd_rn(__fadd_rn(__fmul_rn(a, __fsub_rn(0.0f, ku)), __fmul_rn(cp, up)),
                     __fmul_rn(__fsub_rn(1.0f, cp), uc));
  else
    next = __dadd_rn(__dadd_rn(__dmul_rn(a, __dsub_rn(0.0, ku)), __dmul_rn(cp, up)), __dmul_rn(__dsub_rn(1.0, cp), uc));
#else
  const Real next = a * (Real(0) - ku) + cp * up + (Real(1) - cp) * uc;
#endif
  return a == Real(0) ? Real(0) : next;
}

// -a_n = (A (K u - F) + (1 + C') (U_curr - U_prev)) / dt^2 of one DOF (Eq. 4 less 2 U_curr - U_prev),
// without the second difference of the levels that would lose digits.
template <class Real>
TREMOR_HOST_DEVICE inline Real minus_acceleration(Real a, Real cp, Real f, Real up, Real now, Real inv_dt2) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<Real, float>)
    return __fmul_rn(__fadd_rn(__fmul_rn(a, f), __fmul_rn(__fadd_rn(1.0f, cp), __fsub_rn(now, up))), inv_dt2);
  else
    return __dmul_rn(__dadd_rn(__dmul_rn(a, f), __dmul_rn(__dadd_rn(1.0, cp), __dsub_rn(now, up))), inv_dt2);
#else
  return (a * f + (Real(1) + cp) * (now - up)) * inv_dt2;
#endif
}

// The step an operator takes at the nodes it alone sums (one DOF per node): at node i in
// [first, last), where its element is one of those that take it (the operator's own list), U_next
// of each shot's entry i columns + s written over U_prev in `u`, from the element's K u there
// (its own sum: no other element, load or term adds to it) and U_curr, in place of adding K u into
// the forces; the integrator's update then skips those entries (CentralDifference::update_apart).
// Empty (first == last): none. A kernel loads a node's A, C' and U_prev (Level) ahead of its sum.
template <class Real>
struct InnerStep {
  Coefficients<Real, 1> k{};  // by node
  Real* u = nullptr;
  Index first = 0, last = 0;
  struct Level {
    Real a, cp, up;
  };
  TREMOR_HOST_DEVICE bool takes(Index node) const { return node >= first && node < last; }
  TREMOR_HOST_DEVICE Level level(Index node, Size entry) const {
    return {k.force_scale(node), k.prev_scale(node), u[entry]};
  }
  TREMOR_HOST_DEVICE void write(Size entry, const Level& level, Real ku, Real uc) const {
    u[entry] = next_level(level.a, level.cp, ku, level.up, uc);
  }
};

}  // namespace tremor::op
