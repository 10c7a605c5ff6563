#pragma once
// The stiffness operator ku = K u of the explicit scheme (pogo paper section 2.1, Eq. 1-4: the
// K U_curr term of K' U_curr), behind the one interface the time integrator uses. Virtual at host
// level only: one call per step; the loops inside are forall kernels over rows or elements.
//
//   "assembled"    AssembledOperator: K assembled once in double (sparse/assemble.hpp), values
//                  rounded to Real, CSR SpMV.
//   "block_csr"    BlockCsrOperator: the same K in nodal-block CSR (sparse/block_csr.hpp), one
//                  column index per dim x dim block: fewer bytes per step than scalar CSR.
//   "matrix_free"  MatrixFreeOperator: element by element: gather u_e, K_e u_e in double
//                  (fem::apply_element_stiffness, geometry recomputed from the node coordinates
//                  every apply), scatter-add rounded to Real, one element colour at a time.
//   "ell", "sell", "jds", "block_ell"
//                  FormatOperator: the same K in one of the GPU formats of sparse/formats.hpp
//                  (ELL, SELL-C-sigma with C = 32 and sigma = 256, JDS, nodal-block ELL).
//   "partitioned"  PartitionedOperator (partitioned_operator.hpp): the pogo paper's block-partitioned
//                  layout, nodes in GPU blocks of 512 by the aligned partitioner.
//   "cusparse"     CusparseOperator: the same CSR applied by cuSPARSE's SpMV (CUDA only): the
//                  baseline a user would write, kept to measure tremor's own formats against.
//
// Matrices are assembled on the host in double and copied once into the memory of the
// operator's Exec (a GPU's for a Cuda Exec). tremor's own kernels are deterministic: the same
// bits on every apply, for every thread count, Serial or OpenMP (and on the GPU, run to run).
// u and ku hold n_dofs() values, DOFs node-major, in the memory of the operator's Exec; apply()
// only queues work on a Cuda Exec's stream.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/mesh/element_type.hpp"
#include "tremor/model/model.hpp"
#include "tremor/sparse/colouring.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/sparse/block_csr.hpp"
#include "tremor/sparse/csr.hpp"
#include "tremor/sparse/device_elements.hpp"
#include "tremor/sparse/formats.hpp"
#include "tremor/sparse/two_kernel.hpp"

namespace tremor::explicit_fe {

template <class Real>
class StiffnessOperator {
 public:
  virtual ~StiffnessOperator();
  virtual Index n_dofs() const = 0;
  // ku = K u (ku is overwritten; u and ku must not overlap).
  virtual void apply(const Real* u, Real* ku) const = 0;
  // The kind, as make_stiffness_operator() takes it.
  virtual std::string name() const = 0;
  // Memory the operator reads per apply besides u and ku (its own arrays), in bytes.
  virtual std::size_t bytes() const = 0;
  // A line about its storage for reports (padding of the padded formats); empty by default.
  virtual std::string details() const { return {}; }
};

template <class Real>
class AssembledOperator final : public StiffnessOperator<Real> {
 public:
  // From an assembled K (sparse::assemble_stiffness), values rounded to Real.
  AssembledOperator(const Exec& exec, const sparse::CsrMatrix& K);
  AssembledOperator(const Exec& exec, const Model& model);
  // From K assembled on exec (sparse::assemble_block_csr in double), rounded to Real on exec.
  AssembledOperator(const Exec& exec, const sparse::DeviceBlockCsr<double>& K);

  Index n_dofs() const override { return matrix_.n_rows; }
  void apply(const Real* u, Real* ku) const override;
  std::string name() const override { return "assembled"; }
  // offsets (8 B per row) + columns (4 B per entry) + values (sizeof(Real) per entry).
  std::size_t bytes() const override { return matrix_.bytes(); }

 private:
  Exec exec_;
  sparse::DeviceCsr<Real> matrix_;
};

template <class Real>
class BlockCsrOperator final : public StiffnessOperator<Real> {
 public:
  // From an assembled K (sparse::assemble_stiffness), values rounded to Real.
  BlockCsrOperator(const Exec& exec, const sparse::CsrMatrix& K, int dim);
  BlockCsrOperator(const Exec& exec, const Model& model);
  // From K assembled on exec, already in Real (taken over) or in double (rounded on exec).
  BlockCsrOperator(const Exec& exec, sparse::DeviceBlockCsr<Real>&& K);
  BlockCsrOperator(const Exec& exec, const sparse::DeviceBlockCsr<double>& K);

  Index n_dofs() const override { return matrix_.n_rows(); }
  void apply(const Real* u, Real* ku) const override;
  std::string name() const override { return "block_csr"; }
  // offsets (8 B per node) + columns (4 B per block) + values (sizeof(Real) per entry).
  std::size_t bytes() const override { return matrix_.bytes(); }

 private:
  Exec exec_;
  sparse::DeviceBlockCsr<Real> matrix_;
};

template <class Real>
class MatrixFreeOperator final : public StiffnessOperator<Real> {
 public:
  MatrixFreeOperator(const Exec& exec, const Model& model);
  // From a table and colouring built once (sparse::section_table, sparse::colour_elements).
  MatrixFreeOperator(const Exec& exec, const Model& model, const sparse::SectionTable& table,
                     const sparse::ElementColouring& colouring);
  // On elements built once on exec with a colouring (shared with the mass and damping assembly).
  MatrixFreeOperator(const Exec& exec, std::shared_ptr<const sparse::DeviceElements> elements);

  Index n_dofs() const override { return n_dofs_; }
  void apply(const Real* u, Real* ku) const override;
  std::string name() const override { return "matrix_free"; }
  // Node coordinates (8 B x dim per node), connectivity (4 B per element node), per element its
  // section (4 B), its place in the colour lists (4 B) and its absorbing-layer stiffness factor
  // (8 B), and the per-section D and thickness.
  // No geometry is stored per quadrature point: Jacobians are recomputed on every apply.
  std::size_t bytes() const override;
  int n_colours() const { return elements_->n_colours; }

 private:
  Exec exec_;
  Index n_dofs_ = 0;
  std::shared_ptr<const sparse::DeviceElements> elements_;  // mesh, sections and colours in exec_'s memory
};

// The assembled K in one of sparse/formats.hpp's formats, chosen by kind: "ell", "sell", "jds" or
// "block_ell"; values rounded to Real. Each row summed in column order, as the CSR operator does.
template <class Real>
class FormatOperator final : public StiffnessOperator<Real> {
 public:
  FormatOperator(const Exec& exec, const sparse::CsrMatrix& K, std::string_view kind, int dim);
  // From K assembled on exec in double.
  FormatOperator(const Exec& exec, const sparse::DeviceBlockCsr<double>& K, std::string_view kind);

  Index n_dofs() const override { return n_rows_; }
  void apply(const Real* u, Real* ku) const override;
  std::string name() const override { return kind_; }
  // What an apply reads of the format's arrays: every column index, padding included, and the
  // values of the matrix's entries (a padding value is never read; details() gives the storage).
  std::size_t bytes() const override;
  std::string details() const override;

 private:
  Exec exec_;
  std::string kind_;
  Index n_rows_ = 0;
  std::variant<sparse::EllMatrix<Real>, sparse::SellMatrix<Real>, sparse::JdsMatrix<Real>, sparse::BlockEllMatrix<Real>>
      matrix_;
};

// cuSPARSE's CSR SpMV (cusparseSpMV, default algorithm) on the assembled K: the baseline. 32-bit
// row offsets and columns, as a user's first version would have. CUDA builds and a Cuda Exec only;
// elsewhere construction throws tremor::Error saying why.
template <class Real>
class CusparseOperator final : public StiffnessOperator<Real> {
 public:
  CusparseOperator(const Exec& exec, const sparse::CsrMatrix& K);
  // From K in CSR on exec (sparse::to_csr), taken over.
  CusparseOperator(const Exec& exec, sparse::DeviceCsr<Real>&& K);
  ~CusparseOperator() override;
  CusparseOperator(const CusparseOperator&) = delete;
  CusparseOperator& operator=(const CusparseOperator&) = delete;

  Index n_dofs() const override { return n_rows_; }
  void apply(const Real* u, Real* ku) const override;
  std::string name() const override { return "cusparse"; }
  // offsets (4 B per row) + columns (4 B per entry) + values (sizeof(Real) per entry).
  std::size_t bytes() const override;

 private:
  void create(const Exec& exec, Size nnz);  // handle, descriptor, workspace
  void release() noexcept;
  Exec exec_;
  Index n_rows_ = 0;
  DeviceArray<std::int32_t> offsets_, columns_;
  DeviceArray<Real> values_;
  DeviceArray<unsigned char> workspace_;
  void* handle_ = nullptr;  // cusparseHandle_t
  void* matrix_ = nullptr;  // cusparseSpMatDescr_t
};

// kind: one of stiffness_operator_kinds(); anything else throws tremor::Error listing them.
template <class Real>
std::unique_ptr<StiffnessOperator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                                 const Exec& exec = Exec::openmp());

// The same from a section table and colouring built once, shared with the mass and damping
// assembly (sparse/assemble.hpp): the checks and the colouring are then done once per run.
template <class Real>
std::unique_ptr<StiffnessOperator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                                 const Exec& exec, const sparse::SectionTable& table,
                                                                 const sparse::ElementColouring& colouring);

// The same with K already assembled from that table and colouring (sparse::assemble_stiffness):
// the assembled kinds convert it, "matrix_free" does not use it. One assembly serves several
// operators (the benchmark).
template <class Real>
std::unique_ptr<StiffnessOperator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                                 const Exec& exec, const sparse::SectionTable& table,
                                                                 const sparse::ElementColouring& colouring,
                                                                 const sparse::CsrMatrix& K);

// Set-up on the device: what make_stiffness_operator() below spent, in seconds.
struct OperatorSetup {
  double assembly_seconds = 0.0;  // K by the two-kernel assembly in double (pattern and values)
  double format_seconds = 0.0;    // K converted to the kind's format, rounded to Real
  std::size_t assembly_bytes = 0; // the double K in the Exec's memory while it exists
};

// The operator of `kind` set up on the Exec of `elements` (built on it from the model's mesh and
// sections): an assembled kind assembles K there with the two-kernel assembly in double
// (sparse::assemble_block_csr; `strategy` Colouring needs elements built with a colouring and gives
// the host assembly's bits, Atomics is fastest on a GPU) and converts it to its format with values
// rounded to Real; the double K is released before returning. No K exists on the host. "matrix_free"
// keeps `elements` (it needs them built with a colouring). "partitioned" is laid out on the host
// (its partition is a host graph algorithm) from a host assembly.
template <class Real>
std::unique_ptr<StiffnessOperator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                                 std::shared_ptr<const sparse::DeviceElements> elements,
                                                                 sparse::RaceStrategy strategy,
                                                                 OperatorSetup* setup = nullptr);

// True for the kinds built from the assembled K (all but "matrix_free").
bool is_assembled_kind(std::string_view kind);

// The kinds make_stiffness_operator() knows, and those that run on `backend` ("cusparse" needs
// CUDA; the others run everywhere).
std::vector<std::string> stiffness_operator_kinds();
std::vector<std::string> stiffness_operator_kinds(Backend backend);

// What operator "auto" runs on `backend`: the fastest in docs/benchmarks.md's measurements —
// "block_ell" on CUDA (one column index per nodal block, coalesced; 1.6x cuSPARSE CSR in single
// precision on an H100), "block_csr" on the host (the same bits as CSR, fewer bytes per step).
std::string default_operator_kind(Backend backend);

extern template class StiffnessOperator<float>;
extern template class StiffnessOperator<double>;
extern template class AssembledOperator<float>;
extern template class AssembledOperator<double>;
extern template class BlockCsrOperator<float>;
extern template class BlockCsrOperator<double>;
extern template class MatrixFreeOperator<float>;
extern template class MatrixFreeOperator<double>;
extern template class FormatOperator<float>;
extern template class FormatOperator<double>;
extern template class CusparseOperator<float>;
extern template class CusparseOperator<double>;
extern template std::unique_ptr<StiffnessOperator<float>> make_stiffness_operator<float>(
    const Model&, std::string_view, std::shared_ptr<const sparse::DeviceElements>, sparse::RaceStrategy,
    OperatorSetup*);
extern template std::unique_ptr<StiffnessOperator<double>> make_stiffness_operator<double>(
    const Model&, std::string_view, std::shared_ptr<const sparse::DeviceElements>, sparse::RaceStrategy,
    OperatorSetup*);
extern template std::unique_ptr<StiffnessOperator<float>> make_stiffness_operator<float>(const Model&, std::string_view,
                                                                                          const Exec&);
extern template std::unique_ptr<StiffnessOperator<double>> make_stiffness_operator<double>(const Model&,
                                                                                            std::string_view,
                                                                                            const Exec&);
extern template std::unique_ptr<StiffnessOperator<float>> make_stiffness_operator<float>(
    const Model&, std::string_view, const Exec&, const sparse::SectionTable&, const sparse::ElementColouring&);
extern template std::unique_ptr<StiffnessOperator<double>> make_stiffness_operator<double>(
    const Model&, std::string_view, const Exec&, const sparse::SectionTable&, const sparse::ElementColouring&);
extern template std::unique_ptr<StiffnessOperator<float>> make_stiffness_operator<float>(
    const Model&, std::string_view, const Exec&, const sparse::SectionTable&, const sparse::ElementColouring&,
    const sparse::CsrMatrix&);
extern template std::unique_ptr<StiffnessOperator<double>> make_stiffness_operator<double>(
    const Model&, std::string_view, const Exec&, const sparse::SectionTable&, const sparse::ElementColouring&,
    const sparse::CsrMatrix&);

}  // namespace tremor::explicit_fe
