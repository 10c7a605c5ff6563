#pragma once
// Nodal-block CSR: the stiffness K stored as dense dim x dim blocks, one per pair of nodes that
// share an element (the nodal-block layout of the element-matrices paper, section 4.2, on the
// host). One column index serves dim^2 values, so a 3D row of blocks reads 4/9 of an index per
// value where scalar CSR reads one: per entry 8 + 4/9 B in double, 4 + 4/9 B in float, against
// 12 and 8 for CsrMatrixT. Within a block, values are row-major.
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/sparse/csr.hpp"

namespace tremor::sparse {

template <class Real>
struct BlockCsrMatrixT {
  int block = 3;           // dim: rows and columns per block
  Index n_block_rows = 0;  // nodes
  std::vector<Size> offsets;   // n_block_rows + 1, in blocks
  std::vector<Index> columns;  // node index of each block, sorted within a block row
  std::vector<Real> values;    // block^2 per block, row-major

  Index n_rows() const { return n_block_rows * block; }
  Size n_blocks() const { return offsets.empty() ? 0 : offsets.back(); }
  std::size_t bytes() const {
    return offsets.size() * sizeof(Size) + columns.size() * sizeof(Index) + values.size() * sizeof(Real);
  }
};

// The blocks of a matrix with the nodal-block pattern of stiffness_pattern() (every node row's
// `block` scalar rows hold the same node columns, each as `block` consecutive DOFs), values
// rounded to Real. Throws tremor::Error when `matrix` does not have that pattern.
template <class Real>
BlockCsrMatrixT<Real> to_block_csr(const CsrMatrix& matrix, int block);

// The same matrix owned in the memory of an Exec (a GPU's for a Cuda Exec).
template <class Real>
struct DeviceBlockCsr {
  DeviceBlockCsr() = default;
  DeviceBlockCsr(const Exec& exec, const BlockCsrMatrixT<Real>& matrix);
  int block = 3;
  Index n_block_rows = 0;
  DeviceArray<Size> offsets;
  DeviceArray<Index> columns;
  DeviceArray<Real> values;

  Index n_rows() const { return n_block_rows * block; }
  std::size_t bytes() const {
    return static_cast<std::size_t>(offsets.size()) * sizeof(Size) +
           static_cast<std::size_t>(columns.size()) * sizeof(Index) +
           static_cast<std::size_t>(values.size()) * sizeof(Real);
  }
};

// y = A x, one node row per iteration; each y entry is summed in column order, as the scalar
// CSR SpMV sums it. The host matrix runs on the host backends only (a Cuda Exec throws
// tremor::Error); the DeviceBlockCsr on its own Exec's backend.
template <class Real>
void spmv(const Exec& exec, const BlockCsrMatrixT<Real>& matrix, const Real* x, Real* y);
template <class Real>
void spmv(const Exec& exec, const DeviceBlockCsr<Real>& matrix, const Real* x, Real* y);
// The same for `columns` vectors interleaved (entry i of vector s at i * columns + s), one
// iteration per node row and vector: each vector's bits are those of spmv() on it alone.
template <class Real>
void spmv_columns(const Exec& exec, const DeviceBlockCsr<Real>& matrix, const Real* x, Real* y, int columns);

extern template struct BlockCsrMatrixT<float>;
extern template struct BlockCsrMatrixT<double>;
extern template BlockCsrMatrixT<float> to_block_csr<float>(const CsrMatrix&, int);
extern template BlockCsrMatrixT<double> to_block_csr<double>(const CsrMatrix&, int);
extern template struct DeviceBlockCsr<float>;
extern template struct DeviceBlockCsr<double>;
extern template void spmv<float>(const Exec&, const DeviceBlockCsr<float>&, const float*, float*);
extern template void spmv_columns<float>(const Exec&, const DeviceBlockCsr<float>&, const float*, float*, int);
extern template void spmv_columns<double>(const Exec&, const DeviceBlockCsr<double>&, const double*, double*, int);
extern template void spmv<double>(const Exec&, const DeviceBlockCsr<double>&, const double*, double*);
extern template void spmv<float>(const Exec&, const BlockCsrMatrixT<float>&, const float*, float*);
extern template void spmv<double>(const Exec&, const BlockCsrMatrixT<double>&, const double*, double*);

}  // namespace tremor::sparse
