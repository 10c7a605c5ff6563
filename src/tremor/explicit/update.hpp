#pragma once
// The central-difference update of one DOF (pogo paper section 2.1, Eq. 4), and the interface of a
// stiffness operator that can make it inside its apply (FusesUpdate): the integrator
// (central_difference.hpp) and such operators share this one formula.
//
// A tiled matrix-free apply (matrix_free.hpp) sums a node's element forces in one tile; where
// every element of the node is in that tile ("complete" nodes: 70% of a triangle mesh's nodes in
// 256-element tiles), the sum is the node's whole K u, and the tile can step the node right away:
// U_prev read, U_next written, and K u neither added to nor read back. The update pass then
// skips those nodes. The DOFs whose force is more than K u (loaded DOFs, nodes subdomains share,
// DOFs a per-step term adds to) are left to it: the caller clears them from the mask.
#include <cstdint>

#include "tremor/backend/view.hpp"
#include "tremor/core/config.hpp"

namespace tremor::explicit_fe {

// Eq. (4) for one DOF from A, C' and K' = 1 - C' (1 + C' = A C / dt and 1 - C' = 2 A M / dt^2),
// its forces already in K u (K u - F); a held DOF (A = 0) stays at zero.
template <class Real>
TREMOR_HOST_DEVICE inline Real next_displacement(Real a, Real cp, Real ku, Real up, Real uc) {
  const Real next = a * (Real(0) - ku) + cp * up + (Real(1) - cp) * uc;
  return a == Real(0) ? Real(0) : next;
}

// What an operator needs to step the nodes it completes: the state and coefficients of Eq. (4)
// and which nodes to step.
template <class Real>
struct NodeUpdate {
  Real* prev;                 // U_prev in, U_next out
  const Real* a;              // A, one per `per` DOFs
  const Real* cp;             // C', as A; null: undamped (C' = -1)
  int per;                    // DOFs per coefficient: 1, or the DOFs per node (A of DOF c of node
                              // n at n dim + c, or at n)
  const std::uint8_t* nodes;  // per node: 1 where the operator steps it
};

// An operator (one that adds into K u) that can step the nodes whose K u one apply completes in
// one place. Both calls only queue work on a Cuda Exec.
template <class Real>
class FusesUpdate {
 public:
  virtual ~FusesUpdate() = default;
  // complete[node] = 1 where one apply completes the node's K u in one place, else 0 (n_nodes
  // entries in the operator's memory); returns how many are.
  virtual Index complete_nodes(std::uint8_t* complete) const = 0;
  // ku += K u, except at the nodes update.nodes marks (a subset of complete_nodes()): those are
  // stepped instead (U_prev <- U_next) and their K u is left as it was.
  virtual void add_and_update(const Real* u, Real* ku, const NodeUpdate<Real>& update) const = 0;
};

}  // namespace tremor::explicit_fe
