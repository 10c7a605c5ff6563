#pragma once
// The assembled stiffness operators: K assembled in double (on the Exec by the two-kernel
// assembly, or on the host as the reference), stored in one of tremor's formats with values
// rounded to Real and applied by its SpMV kernel (csr.hpp, block_csr.hpp, formats.hpp), or by
// cuSPARSE's, the baseline. Registered as (operator/registry.hpp):
//
//   "assembled"   CsrOperator: scalar CSR.
//   "block_csr"   BlockCsrOperator: nodal-block CSR, one column index per dim x dim block: fewer
//                 bytes per step than scalar CSR.
//   "ell", "sell", "jds", "block_ell"
//                 FormatOperator: ELL, SELL-C-sigma (C = 32, sigma = 256), JDS, nodal-block ELL.
//   "cusparse"    CusparseOperator: the same CSR applied by cuSPARSE's SpMV (CUDA only), the
//                 baseline a user would write, kept to measure tremor's own formats against.
//
// tremor's own kernels are deterministic: the same bits on every apply, for every thread count,
// Serial or OpenMP (and on the GPU, run to run).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/choice.hpp"
#include "tremor/model/model.hpp"
#include "tremor/operator/operator.hpp"
#include "tremor/operator/registry.hpp"
#include "tremor/sparse/block_csr.hpp"
#include "tremor/sparse/csr.hpp"
#include "tremor/sparse/formats.hpp"

namespace tremor::sparse {

template <class Real>
class CsrOperator final : public op::Operator<Real> {
 public:
  // From an assembled K (assemble_stiffness), values rounded to Real.
  CsrOperator(const Exec& exec, const CsrMatrix& K);
  CsrOperator(const Exec& exec, const Model& model);
  // From K assembled on exec (assemble_block_csr in double), rounded to Real on exec.
  CsrOperator(const Exec& exec, const DeviceBlockCsr<double>& K);
  // From K in CSR on exec, taken over (the static solver's, constraints applied).
  CsrOperator(const Exec& exec, DeviceCsr<Real>&& K);

  Index n_dofs() const override { return matrix_.n_rows; }
  void apply_unchecked(const Real* u, Real* ku) const override;
  void apply_batch_unchecked(const Real* u, Real* ku, int columns) const override;
  bool fuses_batch() const override { return true; }
  std::string_view name() const override { return "assembled"; }
  const Exec& exec() const override { return exec_; }
  // offsets (8 B per row) + columns (4 B per entry) + values (sizeof(Real) per entry).
  std::size_t bytes() const override { return matrix_.bytes(); }
  const DeviceCsr<Real>& matrix() const { return matrix_; }

 private:
  Exec exec_;
  DeviceCsr<Real> matrix_;
};

template <class Real>
class BlockCsrOperator final : public op::Operator<Real> {
 public:
  // From an assembled K (assemble_stiffness), values rounded to Real.
  BlockCsrOperator(const Exec& exec, const CsrMatrix& K, int dim);
  BlockCsrOperator(const Exec& exec, const Model& model);
  // From K assembled on exec, already in Real (taken over) or in double (rounded on exec).
  BlockCsrOperator(const Exec& exec, DeviceBlockCsr<Real>&& K);
  BlockCsrOperator(const Exec& exec, const DeviceBlockCsr<double>& K);

  Index n_dofs() const override { return matrix_.n_rows(); }
  void apply_unchecked(const Real* u, Real* ku) const override;
  void apply_batch_unchecked(const Real* u, Real* ku, int columns) const override;
  bool fuses_batch() const override { return true; }
  std::string_view name() const override { return "block_csr"; }
  const Exec& exec() const override { return exec_; }
  const DeviceBlockCsr<Real>& matrix() const { return matrix_; }
  // offsets (8 B per node) + columns (4 B per block) + values (sizeof(Real) per entry).
  std::size_t bytes() const override { return matrix_.bytes(); }

 private:
  Exec exec_;
  DeviceBlockCsr<Real> matrix_;
};

// The formats of FormatOperator, named as their registry entries.
enum class FormatKind { Ell, Sell, Jds, BlockEll };
inline constexpr std::array<Named<FormatKind>, 4> format_kind_names{{{"ell", FormatKind::Ell},
                                                                     {"sell", FormatKind::Sell},
                                                                     {"jds", FormatKind::Jds},
                                                                     {"block_ell", FormatKind::BlockEll}}};

// The assembled K in one of sparse/formats.hpp's formats, chosen by kind: ELL, SELL, JDS or
// nodal-block ELL; values rounded to Real. Each row summed in column order, as the CSR operator does.
template <class Real>
class FormatOperator final : public op::Operator<Real> {
 public:
  FormatOperator(const Exec& exec, const CsrMatrix& K, FormatKind kind, int dim);
  // From K assembled on exec in double (the rows of `nodes` only: see to_ell()).
  FormatOperator(const Exec& exec, const DeviceBlockCsr<double>& K, FormatKind kind, NodeRange nodes = {});

  Index n_dofs() const override { return n_rows_; }
  void apply_unchecked(const Real* u, Real* ku) const override;
  // Nodal-block ELL reads each block once for every vector; the scalar formats apply them one by one.
  void apply_batch_unchecked(const Real* u, Real* ku, int columns) const override;
  bool fuses_batch() const override { return kind_ == FormatKind::BlockEll; }
  std::string_view name() const override { return name_of(kind_, format_kind_names); }
  const Exec& exec() const override { return exec_; }
  // What an apply reads of the format's arrays: every column index, padding included, and the
  // values of the matrix's entries (a padding value is never read; details() gives the storage).
  std::size_t bytes() const override;
  std::string details() const override;

 private:
  Exec exec_;
  FormatKind kind_;
  Index n_rows_ = 0;
  std::variant<EllMatrix<Real>, SellMatrix<Real>, JdsMatrix<Real>, BlockEllMatrix<Real>>
      matrix_;
};

// cuSPARSE's CSR SpMV (cusparseSpMV, default algorithm) on the assembled K: the baseline. 32-bit
// row offsets and columns, as a user's first version would have. CUDA builds and a Cuda Exec only;
// elsewhere construction throws tremor::Error saying why.
template <class Real>
class CusparseOperator final : public op::Operator<Real> {
 public:
  CusparseOperator(const Exec& exec, const CsrMatrix& K);
  // From K in CSR on exec (to_csr), taken over.
  CusparseOperator(const Exec& exec, DeviceCsr<Real>&& K);
  ~CusparseOperator() override;
  CusparseOperator(const CusparseOperator&) = delete;
  CusparseOperator& operator=(const CusparseOperator&) = delete;

  Index n_dofs() const override { return n_rows_; }
  void apply_unchecked(const Real* u, Real* ku) const override;
  std::string_view name() const override { return "cusparse"; }
  const Exec& exec() const override { return exec_; }
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

// Adds the kinds above to `registry`: each set up on the elements' Exec by the two-kernel
// assembly in double (atomics, or colour by colour when inputs.deterministic) and converted there,
// or, for the reference set-up, converted from the host K. "assembled" is the registry's reference.
void register_operators(op::Registry& registry);

extern template class CsrOperator<float>;
extern template class CsrOperator<double>;
extern template class BlockCsrOperator<float>;
extern template class BlockCsrOperator<double>;
extern template class FormatOperator<float>;
extern template class FormatOperator<double>;
extern template class CusparseOperator<float>;
extern template class CusparseOperator<double>;

}  // namespace tremor::sparse
