#pragma once
// Compressed sparse rows, the assembled form of the stiffness K (pogo paper section 2.1, Eq. 1).
// Values are a template parameter: setup assembles in double; a float solver converts once.
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor::sparse {

template <class Real>
struct CsrMatrixT {
  Index n_rows = 0;
  std::vector<Size> offsets;    // n_rows + 1
  std::vector<Index> columns;   // sorted within each row
  std::vector<Real> values;

  Size nnz() const { return offsets.empty() ? 0 : offsets.back(); }
  // Memory held by the three arrays.
  std::size_t bytes() const {
    return offsets.size() * sizeof(Size) + columns.size() * sizeof(Index) + values.size() * sizeof(Real);
  }
  // Position of entry (row, column) in columns/values, found by bisection; -1 when absent.
  Size find(Index row, Index column) const;
};

using CsrMatrix = CsrMatrixT<double>;

// The pattern of a nodal-block matrix on `mesh` (values zero): DOFs node-major (node * dim +
// component); for every pair of nodes sharing an element (node_graph, self included) a dense
// dim x dim block. nnz = node_graph(mesh).n_entries() * dim^2, known before allocation.
CsrMatrix stiffness_pattern(const Mesh& mesh);

// The same matrix with values rounded to Real.
template <class Real>
CsrMatrixT<Real> convert(const CsrMatrix& matrix);

// A CSR matrix as kernels take it: pointers into one memory space (host vectors or DeviceArrays).
template <class Real>
struct CsrView {
  Index n_rows = 0;
  const Size* offsets = nullptr;
  const Index* columns = nullptr;
  const Real* values = nullptr;
};

// A CSR matrix owned in the memory of an Exec (a GPU's for a Cuda Exec): what the explicit
// solver steps with. Built once from the host matrix.
template <class Real>
struct DeviceCsr {
  DeviceCsr() = default;
  DeviceCsr(const Exec& exec, const CsrMatrixT<Real>& matrix);
  Index n_rows = 0;
  DeviceArray<Size> offsets;
  DeviceArray<Index> columns;
  DeviceArray<Real> values;

  Size nnz() const { return columns.size(); }
  std::size_t bytes() const {
    return static_cast<std::size_t>(offsets.size()) * sizeof(Size) +
           static_cast<std::size_t>(columns.size()) * sizeof(Index) +
           static_cast<std::size_t>(values.size()) * sizeof(Real);
  }
  CsrView<Real> view() const { return {n_rows, offsets.data(), columns.data(), values.data()}; }
};

// y = A x, one row per iteration (no races, no atomics; each y[i] summed in column order, so
// the result does not depend on the backend or thread count). Sums are carried in Real. The
// matrix, x and y must be in exec's memory space.
// Traffic per row: its offsets, columns and values, the x entries it touches, one y write.
template <class Real>
void spmv(const Exec& exec, CsrView<Real> matrix, const Real* x, Real* y);
// The same for `columns` vectors interleaved (entry i of vector s at i * columns + s): one
// iteration per row and vector, a row's entries read once for its vectors on a GPU (consecutive
// threads); each vector's bits are those of spmv() on it alone.
template <class Real>
void spmv_columns(const Exec& exec, CsrView<Real> matrix, const Real* x, Real* y, int columns);
// The host matrix: host backends only (a Cuda Exec throws tremor::Error).
template <class Real>
void spmv(const Exec& exec, const CsrMatrixT<Real>& matrix, const Real* x, Real* y);

extern template struct CsrMatrixT<float>;
extern template struct CsrMatrixT<double>;
extern template CsrMatrixT<float> convert<float>(const CsrMatrix&);
extern template CsrMatrixT<double> convert<double>(const CsrMatrix&);
extern template struct DeviceCsr<float>;
extern template struct DeviceCsr<double>;
extern template void spmv<float>(const Exec&, CsrView<float>, const float*, float*);
extern template void spmv_columns<float>(const Exec&, CsrView<float>, const float*, float*, int);
extern template void spmv_columns<double>(const Exec&, CsrView<double>, const double*, double*, int);
extern template void spmv<double>(const Exec&, CsrView<double>, const double*, double*);
extern template void spmv<float>(const Exec&, const CsrMatrixT<float>&, const float*, float*);
extern template void spmv<double>(const Exec&, const CsrMatrixT<double>&, const double*, double*);

}  // namespace tremor::sparse
