#pragma once
// The fluid's stiffness action K_f chi (explicit/fluid.hpp) on GLL hexahedra and quadrilaterals
// of order 2 to 8 by sum factorisation: the scalar counterpart of the sem operator (operator.hpp,
// sum_factorised.hpp). Per element, with a thread per point (quadrilaterals) or per column of
// points along z (hexahedra, as the sem operator's column kernel): gather chi, its gradient in the
// reference coordinates (Dim sums of n = P + 1 along the lines through the point), the flux
// A grad_xi chi through the point's symmetric factor A = w det J t / rho J^-1 J^-T (the
// fluid's law, fem::FluidLaw, with its weight and Jacobian folded in), the transposed sums, and
// the scatter: 2 Dim n + Dim^2 multiply-adds per point, against the generic element kernel's
// n^Dim per shape function and point. The factors (Dim (Dim + 1) / 2 values in Real) are computed
// at set-up in double from the GLL nodes' coordinates by the same sums, and stored per point, or
// per element in a block of parallelepipeds (A = w_p A_e: a box's elements); hexahedra on the
// trilinear map of their vertices (a hex8 mesh raised to order P) keep those vertices instead (25
// values per element) and recompute J at each point, as the sem operator does.
#include <cstddef>
#include <memory>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/mesh/element_type.hpp"
#include "tremor/mesh/mesh.hpp"
#include "tremor/operator/central_step.hpp"
#include "tremor/sem/operator.hpp"

namespace tremor::sem {

// Whether the fluid kernels take a block: GLL hexahedra or quadrilaterals of order 2 or more (order
// 1 keeps its 2-point Gauss rule: the generic kernel's).
bool fluid_takes(ElementType type, int order);
bool fluid_takes(const fem::DeviceElementBlock& block);
// The factors FluidKernels keeps on `mesh` (a fluid's) at most: per point of every block it takes
// (a block of parallelepipeds keeps them per element).
std::size_t fluid_factors_at_most(const Mesh& mesh);

template <class Real>
class FluidKernels {
 public:
  // The factors of every block it takes (fluid_takes), on the elements' Exec: `elements` the
  // fluid's (D[0] = 1 / rho per section, its thickness). Throws tremor::Error naming the element
  // where the Jacobian is not positive at a point.
  // Geometry::Stored keeps the factors per point in every block (for the comparison, as the sem
  // operator's).
  explicit FluidKernels(const fem::DeviceElements& elements, Geometry geometry = Geometry::Auto);

  bool takes(std::size_t block) const { return factors_[block].size() > 0; }
  // How block `block` has its factors: "per element" (parallelepipeds), "trilinear" (hexahedra
  // on the trilinear map of their vertices: J recomputed at each point from them) or "per point".
  const char* geometry(std::size_t block) const;
  // f += K_f chi over the `n` elements of block `block` in `list` (indices within the block; all
  // of its elements without a list), on exec: plain adds (a colour's elements share no node) or
  // atomic ones. `shots` > 1: chi and f hold that many interleaved (node i of shot s at i shots +
  // s), each element's work done for each shot as for one (an element and shot per column or
  // point group of threads, its factors read once from memory for the shots a block holds), each
  // shot's sums those of one shot alone.
  // With `inner` (non-empty) and `stepped` (per element of the block, 1 where it does so), an
  // element takes the step of its nodes in inner's range (its inner nodes: the caller's numbering
  // keeps there only nodes that one element alone holds, and that no load or other term reaches)
  // at the scatter, writing U_next from its own K chi where it would add K chi (op::InnerStep).
  // Hexahedra only (steps_inner).
  void add(const Exec& exec, std::size_t block, Index n, const Index* list, bool atomic, const Real* chi,
           Real* f, int shots = 1, const op::InnerStep<Real>& inner = {},
           const unsigned char* stepped = nullptr) const;
  bool steps_inner(std::size_t block) const;
  // The factors and the 1D bases, in the Exec's memory.
  std::size_t bytes() const;

 private:
  const fem::DeviceElements* elements_;
  std::vector<DeviceArray<Real>> factors_;  // per block: per element, per factor, per point
  std::vector<DeviceArray<Real>> basis_;    // per block: Basis1d::values
  std::vector<int> mode_;                   // per block: layout.hpp's Mode
};

extern template class FluidKernels<float>;
extern template class FluidKernels<double>;

}  // namespace tremor::sem
