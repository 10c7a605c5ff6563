#pragma once
// Two-kernel assembly of the global stiffness K and consistent mass M on any Exec (Sanfui and
// Sharma, "A Two-Kernel based Strategy for Performing Assembly in FEA on the Graphic Processing
// Unit", section IV; docs/assembly.md):
//
//   kernel 1 (sparsity, section IV.A.1)  from the connectivity alone: node -> element incidence
//       (count, scan, fill), then each node's sorted neighbour set, itself included (count pass,
//       exclusive scan, fill pass; a thread per candidate, two_kernel_pattern.cpp): the nodal
//       pattern. The exact number of
//       entries is known after the count pass, before the matrix is allocated (the paper derives
//       it for structured hex8 boxes in closed form, Eq. 9: structured_hex8_nnz()). The format's
//       index arrays (row offsets or indices, columns) follow from the pattern.
//   kernel 2 (values, section IV.A.2)  one thread per element: the element matrix computed in
//       double (fem/element_matrices.hpp), each of its n_nodes^2 node-to-node blocks located by
//       one bisection in the row node's short neighbour list, its dim x dim values rounded to
//       Real and added into the format's value array. Races between elements sharing a node are
//       avoided by RaceStrategy (section IV.C).
//
// Formats (section IV.B), all with DOFs node-major (node * dim + component) and every nodal
// block stored whole (dim^2 entries per pair of neighbouring nodes, structural zeros included),
// the pattern of sparse::stiffness_pattern():
//   DeviceCoo<Real>       rows, columns, values per entry, in CSR order
//   DeviceCsr<Real>       csr.hpp; columns sorted within each row
//   EllMatrix<Real>       formats.hpp: column-major, padded to the longest row (column -1, value 0)
//   DeviceBlockCsr<Real>  block_csr.hpp: one column per dim x dim block; the nodal pattern itself
//
// Every assemble_* takes the Exec it runs on, whose memory must hold `elements`; results live
// there too. The element matrices are never stored: 1M hex8 stiffness matrices would be 4.6 GB
// (element_batch.hpp computes them when they are wanted). The absorbing layers' stiffness factor
// scales each K_e as sparse::assemble_stiffness scales it.
#include <cstddef>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/choice.hpp"
#include "tremor/core/config.hpp"
#include "tremor/sparse/block_csr.hpp"
#include "tremor/sparse/csr.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/sparse/formats.hpp"

namespace tremor::sparse {

// How kernel 2 keeps elements that share a node from adding into one entry at once.
enum class RaceStrategy {
  // One launch per element colour (fem::colour_elements(): no two elements of a colour share a node)
  // and block, plain adds. Every entry receives its contributions in colour order: the same bits
  // for every thread count and for Serial and OpenMP (the paper's 8-colouring on structured hex8).
  Colouring,
  // One launch per block over all its elements, atomic adds (backend/atomic.hpp): most
  // parallelism, sums in whatever order the updates land.
  Atomics,
};
inline constexpr std::array<Named<RaceStrategy>, 2> race_strategy_names{{{"colouring", RaceStrategy::Colouring},
                                                                         {"atomics", RaceStrategy::Atomics}}};
constexpr std::string_view to_string(RaceStrategy s) { return name_of(s, race_strategy_names); }

enum class GlobalMatrix {
  Stiffness,       // K = sum_e factor_e K_e (fem::element_stiffness, default rule)
  ConsistentMass,  // M = sum_e M_e (fem::consistent_mass with rho * thickness, DOF form)
};

// Kernel 1's result: for every node its neighbours (nodes sharing an element with it, itself
// included), sorted, in compressed rows; the same as node_graph() (mesh/adjacency.hpp).
struct NodalPattern {
  int dim = 3;
  Index n_nodes = 0;
  Index max_neighbours = 0;      // the longest neighbour list
  DeviceArray<Size> offsets;     // n_nodes + 1
  DeviceArray<Index> neighbours;

  Size n_entries() const { return neighbours.size(); }
  // Scalar entries of a matrix with a dense dim x dim block per neighbour pair.
  Size nnz() const { return n_entries() * dim * dim; }
};

// Kernel 1 on exec (the space of `elements`). Incidence and neighbour counts run in parallel over
// elements and nodes. A node's m candidate nodes (the sum of the sizes of its elements: 64 for
// interior hex8 nodes, ~100 for tet4 of unstructured meshes) go to shared memory, a thread each
// (up to 256 a node), which finds whether it is the value's first occurrence and, in the fill
// pass, its rank among the distinct ones: its place in the sorted row (O(m) comparisons a thread).
// A node of more candidates is left to one thread, without a buffer, in O(m^2) comparisons, so
// any mesh is handled: a hub node of thousands of elements (a fan) costs ~1e7-1e8 comparisons
// and then bounds the kernel's time. CSR and COO columns are written by the fill pass itself.
NodalPattern build_nodal_pattern(const Exec& exec, const fem::DeviceElements& elements);

// Eq. 9 of the paper: the entries of K (3 DOFs per node) on a structured box of hex8 elements
// with x, y and z nodes per direction (each >= 2):
//   NZ = 108 (x + y + z) - 162 (xy + yz + zx) + 243 xyz - 72.
Size structured_hex8_nnz(Size x, Size y, Size z);

// Coordinate format: entry k is (rows[k], columns[k], values[k]); entries in CSR order (rows
// ascending, columns sorted within a row). 4 + 4 + sizeof(Real) B per entry.
template <class Real>
struct DeviceCoo {
  Index n_rows = 0;
  DeviceArray<Index> rows;
  DeviceArray<Index> columns;
  DeviceArray<Real> values;

  Size nnz() const { return values.size(); }
  std::size_t bytes() const {
    // Each size widened before the sum: two arrays of over 2^30 entries overflow Index.
    return (static_cast<std::size_t>(rows.size()) + static_cast<std::size_t>(columns.size())) * sizeof(Index) +
           static_cast<std::size_t>(values.size()) * sizeof(Real);
  }
};

// Wall time of the two kernels (exec.synchronize() around each, std::chrono::steady_clock), ms.
struct AssemblyTimes {
  double pattern_ms = 0.0;  // kernel 1 with the format's index arrays (0 for the lumped mass)
  double values_ms = 0.0;   // kernel 2, the zeroing of the values included
};

// The assembled matrix in each format, values in Real. When `times` is given, the kernels are
// timed (an extra synchronisation before and after each). Throws tremor::Error when exec's
// memory is not the one of `elements`, or the matrix exceeds the 2^31 - 1 entries an array can
// index.
template <class Real>
DeviceCoo<Real> assemble_coo(const Exec& exec, const fem::DeviceElements& elements, GlobalMatrix matrix,
                             RaceStrategy strategy, AssemblyTimes* times = nullptr);
template <class Real>
DeviceCsr<Real> assemble_csr(const Exec& exec, const fem::DeviceElements& elements, GlobalMatrix matrix,
                             RaceStrategy strategy, AssemblyTimes* times = nullptr);
template <class Real>
EllMatrix<Real> assemble_ell(const Exec& exec, const fem::DeviceElements& elements, GlobalMatrix matrix,
                             RaceStrategy strategy, AssemblyTimes* times = nullptr);
template <class Real>
DeviceBlockCsr<Real> assemble_block_csr(const Exec& exec, const fem::DeviceElements& elements, GlobalMatrix matrix,
                                        RaceStrategy strategy, AssemblyTimes* times = nullptr);

// Lumped mass per DOF (fem::lumped_mass with rho * thickness, the same for each component of a
// node), as sparse::assemble_lumped_mass; kernel 2 only.
template <class Real>
DeviceArray<Real> assemble_lumped_mass(const Exec& exec, const fem::DeviceElements& elements, RaceStrategy strategy,
                                       AssemblyTimes* times = nullptr);

// Lumped mass-proportional damping per DOF, C = sum_e alpha_e M_e lumped (alpha_e of
// fem::SectionTable::alpha: the material's plus the absorbing layers'), as sparse::assemble_lumped_damping.
template <class Real>
DeviceArray<Real> assemble_lumped_damping(const Exec& exec, const fem::DeviceElements& elements, RaceStrategy strategy,
                                          AssemblyTimes* times = nullptr);

// The stiffness K (the static solver's matrix) in each format.
template <class Real>
DeviceCsr<Real> assemble_stiffness_csr(const Exec& exec, const fem::DeviceElements& elements,
                                       RaceStrategy strategy = RaceStrategy::Colouring) {
  return assemble_csr<Real>(exec, elements, GlobalMatrix::Stiffness, strategy);
}
template <class Real>
DeviceCoo<Real> assemble_stiffness_coo(const Exec& exec, const fem::DeviceElements& elements,
                                       RaceStrategy strategy = RaceStrategy::Colouring) {
  return assemble_coo<Real>(exec, elements, GlobalMatrix::Stiffness, strategy);
}
template <class Real>
EllMatrix<Real> assemble_stiffness_ell(const Exec& exec, const fem::DeviceElements& elements,
                                       RaceStrategy strategy = RaceStrategy::Colouring) {
  return assemble_ell<Real>(exec, elements, GlobalMatrix::Stiffness, strategy);
}
template <class Real>
DeviceBlockCsr<Real> assemble_stiffness_block_csr(const Exec& exec, const fem::DeviceElements& elements,
                                                  RaceStrategy strategy = RaceStrategy::Colouring) {
  return assemble_block_csr<Real>(exec, elements, GlobalMatrix::Stiffness, strategy);
}

#define TREMOR_TWO_KERNEL_EXTERN(Real)                                                                          \
  extern template DeviceCoo<Real> assemble_coo<Real>(const Exec&, const fem::DeviceElements&, GlobalMatrix,         \
                                                     RaceStrategy, AssemblyTimes*);                              \
  extern template DeviceCsr<Real> assemble_csr<Real>(const Exec&, const fem::DeviceElements&, GlobalMatrix,         \
                                                     RaceStrategy, AssemblyTimes*);                              \
  extern template EllMatrix<Real> assemble_ell<Real>(const Exec&, const fem::DeviceElements&, GlobalMatrix,         \
                                                     RaceStrategy, AssemblyTimes*);                              \
  extern template DeviceBlockCsr<Real> assemble_block_csr<Real>(const Exec&, const fem::DeviceElements&,            \
                                                                GlobalMatrix, RaceStrategy, AssemblyTimes*);     \
  extern template DeviceArray<Real> assemble_lumped_mass<Real>(const Exec&, const fem::DeviceElements&, RaceStrategy, \
                                                               AssemblyTimes*);                                 \
  extern template DeviceArray<Real> assemble_lumped_damping<Real>(const Exec&, const fem::DeviceElements&,            \
                                                                  RaceStrategy, AssemblyTimes*);
TREMOR_TWO_KERNEL_EXTERN(float)
TREMOR_TWO_KERNEL_EXTERN(double)
#undef TREMOR_TWO_KERNEL_EXTERN

}  // namespace tremor::sparse
