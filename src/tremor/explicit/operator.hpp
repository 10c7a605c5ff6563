#pragma once
// The stiffness operators of the explicit scheme, ku = K u (pogo paper section 2.1, Eq. 1-4: the
// K U_curr term of K' U_curr), behind op::Operator (operator/operator.hpp), and the registry a run
// chooses them from (operators()): the assembled kinds of sparse/operators.hpp and, registered
// here,
//
//   "matrix_free"  MatrixFreeOperator (matrix_free.hpp): element by element without K; the linear
//                  elements in tiles in Real (a host run's, colour by colour, and a GPU's default),
//                  or colour by colour in double (the reference, a GPU's --deterministic).
//   "partitioned"  PartitionedOperator (partitioned_operator.hpp): the pogo paper's block-partitioned
//                  layout, nodes in GPU blocks of 512 by the aligned partitioner (a host graph
//                  algorithm: the layout is filled from a host assembly).
//
// A run sets its operator up on its Exec (registry entry's factory: K assembled there in double
// and converted, no K on the host). The overloads of make_stiffness_operator() below that take an
// Exec build from a host assembly in double: the reference the device set-up is tested against.
// u and ku hold n_dofs() values, DOFs node-major, in the memory of the operator's Exec.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/explicit/matrix_free.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/model/model.hpp"
#include "tremor/operator/operator.hpp"
#include "tremor/operator/registry.hpp"
#include "tremor/sparse/csr.hpp"
#include "tremor/sparse/operators.hpp"
#include "tremor/sparse/two_kernel.hpp"

namespace tremor::explicit_fe {

// Adds "partitioned" and "matrix_free" to `registry`.
void register_operators(op::Registry& registry);

// The registry of a run, complete: the assembled kinds (sparse::register_operators), then those
// above; "auto" is "block_ell" on CUDA (one column index per nodal block, coalesced; 1.6x cuSPARSE
// CSR in single precision on an H100) and "block_csr" on the host (the same bits as CSR, fewer
// bytes per step), the fastest in docs/benchmarks.md's measurements.
const op::Registry& operators();

// The operator `kind` (a name in operators(); anything else throws tremor::Error listing them) set
// up on the Exec of `elements` (built on it from the model's mesh and sections) by its registry
// entry: an assembled kind assembles K there with the two-kernel assembly in double
// (`strategy` Colouring needs elements built with a colouring and gives the host assembly's bits,
// Atomics is fastest on a GPU) and converts it to its format with values rounded to Real; the
// double K is released before returning. "matrix_free" keeps `elements` (built with a colouring).
template <class Real>
std::unique_ptr<op::Operator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                            std::shared_ptr<const fem::DeviceElements> elements,
                                                            sparse::RaceStrategy strategy,
                                                            op::OperatorSetup* setup = nullptr,
                                                            Index split_at_node = -1,
                                                            const Exec* first_exec = nullptr,
                                                            double time_step = 0.0);

// Throws tremor::Error unless `entry` keeps memory variables (OperatorEntry::carries_memory_variables),
// naming the kinds that do and take `model`'s mesh: what its attenuating materials need; and,
// where a material has coarse-grained ones, unless it keeps those
// (OperatorEntry::coarse_grains_memory_variables), naming the material and its line. The message
// starts with `asked_at` (the line that chose the operator) where given, else the material's line.
void check_memory_variables(const op::OperatorEntry& entry, const Model& model, const std::string& asked_at = {});

// The reference: the operator `kind` on exec from K assembled on the host in double
// (sparse::assemble_stiffness), converted and copied (its entry's reference factory).
template <class Real>
std::unique_ptr<op::Operator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                            const Exec& exec = Exec::openmp());

// The same from a section table and colouring built once, shared with the mass and damping
// assembly (sparse/assemble.hpp): the checks and the colouring are then done once per run.
template <class Real>
std::unique_ptr<op::Operator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                            const Exec& exec, const fem::SectionTable& table,
                                                            const fem::ElementColouring& colouring);

// The same with K already assembled from that table and colouring (sparse::assemble_stiffness):
// the assembled kinds convert it, "matrix_free" does not use it. One assembly serves several
// operators (the benchmark).
template <class Real>
std::unique_ptr<op::Operator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                            const Exec& exec, const fem::SectionTable& table,
                                                            const fem::ElementColouring& colouring,
                                                            const sparse::CsrMatrix& K);

#define TREMOR_MAKE_STIFFNESS_OPERATOR(Real, extern_)                                                               \
  extern_ template std::unique_ptr<op::Operator<Real>> make_stiffness_operator<Real>(                              \
      const Model&, std::string_view, std::shared_ptr<const fem::DeviceElements>, sparse::RaceStrategy,             \
      op::OperatorSetup*, Index, const Exec*, double);                                                              \
  extern_ template std::unique_ptr<op::Operator<Real>> make_stiffness_operator<Real>(const Model&, std::string_view, \
                                                                                     const Exec&);                  \
  extern_ template std::unique_ptr<op::Operator<Real>> make_stiffness_operator<Real>(                              \
      const Model&, std::string_view, const Exec&, const fem::SectionTable&, const fem::ElementColouring&);        \
  extern_ template std::unique_ptr<op::Operator<Real>> make_stiffness_operator<Real>(                              \
      const Model&, std::string_view, const Exec&, const fem::SectionTable&, const fem::ElementColouring&,         \
      const sparse::CsrMatrix&);
TREMOR_MAKE_STIFFNESS_OPERATOR(float, extern)
TREMOR_MAKE_STIFFNESS_OPERATOR(double, extern)

}  // namespace tremor::explicit_fe
