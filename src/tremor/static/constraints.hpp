#pragma once
// Essential boundary conditions of the static system K u = f: DOFs with prescribed displacements
// u_c (two-kernel assembly paper, section V: the boundary conditions make the singular assembled
// stiffness solvable by modifying entries of K and of the load vector).
//
// Applied by symmetric elimination on the Exec's assembled matrix, in place:
//   f_i -= K_ic u_c for every free row i and constrained column c (the prescribed motion moved to
//   the right-hand side), then the rows and columns of the constrained DOFs zeroed with 1 on the
//   diagonal and f_c = u_c.
// The system keeps K's size and pattern, stays symmetric and is positive definite once the
// constraints remove every rigid-body motion (rigid_modes.hpp checks that), so CG applies as it
// is; the constrained DOFs decouple and CG returns u_c for them. This was preferred to CG on the
// free DOFs with a projection: it needs no index maps in every iteration, the SpMV kernels run
// unchanged, and the extra rows cost one multiply each. Start CG from an initial guess holding u_c
// (impose_values) so the constrained rows begin with a zero residual and are never excited.
#include <cstdint>
#include <span>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"
#include "tremor/sparse/block_csr.hpp"
#include "tremor/sparse/csr.hpp"

namespace tremor::static_fe {

// Prescribed DOFs on the host: node-major DOF indices (node * dim + component), sorted and
// unique, with their values (m).
struct Constraints {
  int dim = 3;
  Index n_dofs = 0;  // of the whole system: nodes * dim
  std::vector<Index> dofs;
  std::vector<double> values;

  Index n_constrained() const { return static_cast<Index>(dofs.size()); }
};

// Checks and normalises a list of prescribed DOFs of `mesh` (DOF = node * dim + component, in any
// order): each in range and its value finite; a DOF given twice keeps one value when they agree
// and throws tremor::Error naming the node (label) and component when they do not.
Constraints make_constraints(const Mesh& mesh, std::span<const Index> dofs, std::span<const double> values);

// The nodes no element uses (isolated nodes: no stiffness, so K has zero rows for them), every
// component held at 0 and merged into `constraints`: a mesh read from a file may list such nodes,
// and the static system stays non-singular with them fixed, as the explicit solver holds them.
Constraints hold_isolated_nodes(const Mesh& mesh, const Constraints& constraints);

// The constraints in an Exec's memory, as the elimination and impose_values read them.
struct DeviceConstraints {
  DeviceConstraints() = default;
  DeviceConstraints(const Exec& exec, const Constraints& constraints);
  Index n_dofs = 0;
  Index n_constrained = 0;
  DeviceArray<Index> dofs;                // per constrained DOF
  DeviceArray<double> values;             // per constrained DOF
  DeviceArray<std::uint8_t> constrained;  // per DOF: 1 when prescribed
  DeviceArray<double> prescribed;         // per DOF: u_c where constrained, 0 elsewhere
};

// Symmetric elimination (above) on exec, in place: `matrix` and `rhs` (n_dofs entries) in exec's
// memory. The rhs update is computed in double and rounded to Real. Throws tremor::Error when a
// constrained row has no diagonal entry in the pattern (it would become all zero).
// One thread per row (CSR) or node row (block CSR), no atomics: deterministic on every backend.
// Traffic per row: its columns and values read, the constrained flag of each column read (1 B)
// and, for constrained columns, their value (8 B) read and the entry written; one rhs entry read
// and written. Run once per assembled matrix.
template <class Real>
void apply_constraints(const Exec& exec, const DeviceConstraints& constraints, sparse::DeviceCsr<Real>& matrix,
                       Real* rhs);
template <class Real>
void apply_constraints(const Exec& exec, const DeviceConstraints& constraints, sparse::DeviceBlockCsr<Real>& matrix,
                       Real* rhs);

// x_c = u_c for every constrained DOF (an initial guess before CG, or the exact values after it).
// Traffic per constrained DOF: one index and one double read, one Real written.
template <class Real>
void impose_values(const Exec& exec, const DeviceConstraints& constraints, Real* x);

extern template void apply_constraints<float>(const Exec&, const DeviceConstraints&, sparse::DeviceCsr<float>&, float*);
extern template void apply_constraints<double>(const Exec&, const DeviceConstraints&, sparse::DeviceCsr<double>&,
                                               double*);
extern template void apply_constraints<float>(const Exec&, const DeviceConstraints&, sparse::DeviceBlockCsr<float>&,
                                              float*);
extern template void apply_constraints<double>(const Exec&, const DeviceConstraints&, sparse::DeviceBlockCsr<double>&,
                                               double*);
extern template void impose_values<float>(const Exec&, const DeviceConstraints&, float*);
extern template void impose_values<double>(const Exec&, const DeviceConstraints&, double*);

}  // namespace tremor::static_fe
