#include "tremor/sparse/csr.hpp"

#include <algorithm>

#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/mesh/adjacency.hpp"

namespace tremor::sparse {

template <class Real>
Size CsrMatrixT<Real>::find(Index row, Index column) const {
  const auto begin = columns.begin() + offsets[static_cast<std::size_t>(row)];
  const auto end = columns.begin() + offsets[static_cast<std::size_t>(row) + 1];
  const auto it = std::lower_bound(begin, end, column);
  return it != end && *it == column ? static_cast<Size>(it - columns.begin()) : Size(-1);
}

CsrMatrix stiffness_pattern(const Mesh& mesh) {
  const NodeGraph graph = node_graph(mesh);
  const int dim = mesh.dim();
  const auto d = static_cast<Size>(dim);
  TREMOR_CHECK(static_cast<Size>(mesh.n_nodes()) * d <= Size(2147483647), "stiffness pattern: ", mesh.n_nodes(),
               " nodes x ", dim, " components exceed the DOF index range");
  CsrMatrix matrix;
  matrix.n_rows = mesh.n_nodes() * dim;
  const Size nnz = graph.n_entries() * d * d;
  matrix.offsets.resize(static_cast<std::size_t>(matrix.n_rows) + 1);
  matrix.columns.resize(static_cast<std::size_t>(nnz));
  matrix.values.assign(static_cast<std::size_t>(nnz), 0.0);
  matrix.offsets[0] = 0;
  for (Index node = 0; node < graph.n_nodes(); ++node) {
    const Size first = graph.offsets[static_cast<std::size_t>(node)];
    const Size count = graph.offsets[static_cast<std::size_t>(node) + 1] - first;
    for (int i = 0; i < dim; ++i) {
      const Index row = node * dim + i;
      // Rows of one node are consecutive: row (node, i) starts after dim * first entries of the
      // earlier nodes' rows and i * count * dim of this node's earlier components.
      Size k = first * d * d + static_cast<Size>(i) * count * d;
      for (Size n = 0; n < count; ++n)
        for (int j = 0; j < dim; ++j)
          matrix.columns[static_cast<std::size_t>(k++)] = graph.neighbours[static_cast<std::size_t>(first + n)] * dim + j;
      matrix.offsets[static_cast<std::size_t>(row) + 1] = k;
    }
  }
  return matrix;
}

template <class Real>
CsrMatrixT<Real> convert(const CsrMatrix& matrix) {
  CsrMatrixT<Real> out;
  out.n_rows = matrix.n_rows;
  out.offsets = matrix.offsets;
  out.columns = matrix.columns;
  out.values.resize(matrix.values.size());
  std::transform(matrix.values.begin(), matrix.values.end(), out.values.begin(),
                 [](double v) { return static_cast<Real>(v); });
  return out;
}

template <class Real>
DeviceCsr<Real>::DeviceCsr(const Exec& exec, const CsrMatrixT<Real>& matrix)
    : n_rows(matrix.n_rows),
      offsets(exec, std::span<const Size>(matrix.offsets)),
      columns(exec, std::span<const Index>(matrix.columns)),
      values(exec, std::span<const Real>(matrix.values)) {}

template <class Real>
void spmv(const Exec& exec, CsrView<Real> matrix, const Real* x, Real* y) {
  const Size* offsets = matrix.offsets;
  const Index* columns = matrix.columns;
  const Real* values = matrix.values;
  forall(exec, matrix.n_rows, [=] TREMOR_LAMBDA(Index row) {
    Real sum = 0;
    for (Size k = offsets[row]; k < offsets[row + 1]; ++k) sum += values[k] * x[columns[k]];
    y[row] = sum;
  });
}

template <class Real>
void spmv_columns(const Exec& exec, CsrView<Real> matrix, const Real* x, Real* y, int k) {
  const Size* offsets = matrix.offsets;
  const Index* columns = matrix.columns;
  const Real* values = matrix.values;
  forall(exec, static_cast<Index>(Size(matrix.n_rows) * k), [=] TREMOR_LAMBDA(Index t) {
    const Index row = t / k, s = t - row * k;
    Real sum = 0;
    for (Size e = offsets[row]; e < offsets[row + 1]; ++e) sum += values[e] * x[Size(columns[e]) * k + s];
    y[Size(row) * k + s] = sum;
  });
}

template <class Real>
void spmv(const Exec& exec, const CsrMatrixT<Real>& matrix, const Real* x, Real* y) {
  TREMOR_CHECK(exec.space() == MemorySpace::Host, "CSR SpMV: the matrix is in host memory, ", exec.describe(),
               " cannot run it");
  spmv(exec, CsrView<Real>{matrix.n_rows, matrix.offsets.data(), matrix.columns.data(), matrix.values.data()}, x, y);
}

template struct CsrMatrixT<float>;
template struct CsrMatrixT<double>;
template CsrMatrixT<float> convert<float>(const CsrMatrix&);
template CsrMatrixT<double> convert<double>(const CsrMatrix&);
template struct DeviceCsr<float>;
template struct DeviceCsr<double>;
template void spmv<float>(const Exec&, CsrView<float>, const float*, float*);
template void spmv_columns<float>(const Exec&, CsrView<float>, const float*, float*, int);
template void spmv_columns<double>(const Exec&, CsrView<double>, const double*, double*, int);
template void spmv<double>(const Exec&, CsrView<double>, const double*, double*);
template void spmv<float>(const Exec&, const CsrMatrixT<float>&, const float*, float*);
template void spmv<double>(const Exec&, const CsrMatrixT<double>&, const double*, double*);

}  // namespace tremor::sparse
