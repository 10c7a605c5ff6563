#pragma once
// Preconditioners for conjugate gradients on the stiffness K (cg.hpp): none, Jacobi (the inverse
// of K's diagonal) and nodal block-Jacobi (the inverse of each node's dim x dim diagonal block,
// which couples a node's components as elasticity does and is invariant to rotations and
// per-node scalings of the DOFs). All are symmetric positive definite when K is, as PCG requires.
//
// Built on the Exec the solve runs on, from the assembled matrix in its memory (DeviceCsr with the
// nodal pattern of sparse::stiffness_pattern, or DeviceBlockCsr): diagonal entries and blocks are
// read in Real, inverted in double (block-Jacobi by Cholesky, so the inverse is symmetric) and
// stored in Real. A diagonal entry that is not positive, or a block that is not positive definite,
// throws tremor::Error naming the node (by label when labels are given) and the component: in a
// static analysis it is a node no element stiffens, or a matrix that is not a stiffness.
#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/choice.hpp"
#include "tremor/core/config.hpp"
#include "tremor/model/source.hpp"
#include "tremor/sparse/block_csr.hpp"
#include "tremor/sparse/csr.hpp"

namespace tremor::static_fe {

using tremor::PreconditionerKind;  // and preconditioner_names: model/source.hpp, with the settings

// A name of preconditioner_names (StaticSettings::preconditioner); anything else throws
// "unknown preconditioner ..." listing the three.
PreconditionerKind parse_preconditioner(std::string_view name);
std::string_view to_string(PreconditionerKind kind);

// z = M^-1 r on one Exec. Move-only (owns its inverse in the Exec's memory).
template <class Real>
class Preconditioner {
 public:
  Preconditioner() = default;
  // The identity on n_rows entries: CG without preconditioning.
  static Preconditioner none(const Exec& exec, Index n_rows);

  // From an assembled matrix in exec's memory. `dim` (1, 2 or 3) is the number of DOFs per node
  // (node-major: DOF = node * dim + component): the block size of block-Jacobi, and how messages
  // name a row's node and component. `node_labels`, when not empty (one per node), names nodes
  // by label; otherwise messages give the 0-based node index.
  // Cost: one pass over the matrix (a bisection per row for the diagonal) and, for block-Jacobi,
  // a dim x dim Cholesky per node; memory: n Real (Jacobi) or n * dim Real (block-Jacobi).
  static Preconditioner build(const Exec& exec, PreconditionerKind kind, const sparse::DeviceCsr<Real>& matrix, int dim,
                              std::span<const Label> node_labels = {});
  // The same from a nodal-block matrix: dim is its block size.
  static Preconditioner build(const Exec& exec, PreconditionerKind kind, const sparse::DeviceBlockCsr<Real>& matrix,
                              std::span<const Label> node_labels = {});

  PreconditionerKind kind() const { return kind_; }
  Index n_rows() const { return n_rows_; }
  int block() const { return block_; }
  // True for the identity: CG then uses r itself as z.
  bool is_identity() const { return kind_ == PreconditionerKind::None; }

  // z = M^-1 r; r and z (n_rows entries) in the Exec's memory, distinct. Asynchronous on CUDA.
  // Traffic per row: Jacobi reads r and the inverse diagonal, writes z (3 Real); block-Jacobi
  // reads its row of the node's inverse block (dim Real), the node's r (dim Real, cached across
  // the node's rows) and writes z: about (dim + 2) Real. None copies r (2 Real).
  void apply(const Exec& exec, const Real* r, Real* z) const;

  // The inverse stored per row (Jacobi: n values) or per node (block-Jacobi: dim^2 row-major
  // values per node), copied to the host: for tests and diagnostics.
  std::vector<Real> inverse_to_host() const { return inverse_.to_host(); }

 private:
  PreconditionerKind kind_ = PreconditionerKind::None;
  Index n_rows_ = 0;
  int block_ = 1;
  DeviceArray<Real> inverse_;
};

extern template class Preconditioner<float>;
extern template class Preconditioner<double>;

}  // namespace tremor::static_fe
