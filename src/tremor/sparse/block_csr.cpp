#include "tremor/sparse/block_csr.hpp"

#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"

namespace tremor::sparse {

template <class Real>
BlockCsrMatrixT<Real> to_block_csr(const CsrMatrix& matrix, int block) {
  TREMOR_CHECK(block >= 1 && block <= 3, "nodal-block CSR: block size ", block, " is not 1, 2 or 3");
  TREMOR_CHECK(matrix.n_rows % block == 0, "nodal-block CSR: ", matrix.n_rows, " rows are not a multiple of ", block);
  const auto d = static_cast<std::size_t>(block);
  BlockCsrMatrixT<Real> out;
  out.block = block;
  out.n_block_rows = matrix.n_rows / block;
  out.offsets.resize(static_cast<std::size_t>(out.n_block_rows) + 1, 0);
  out.columns.reserve(matrix.columns.size() / (d * d));
  out.values.resize(matrix.values.size());
  for (Index node = 0; node < out.n_block_rows; ++node) {
    const auto first_row = static_cast<std::size_t>(node) * d;
    const Size begin = matrix.offsets[first_row];
    const Size count = matrix.offsets[first_row + 1] - begin;  // scalar entries of one row
    TREMOR_CHECK(count % block == 0, "nodal-block CSR: row ", first_row, " has ", count,
                 " entries, not whole blocks of ", block);
    const Size blocks = count / block;
    const Size out_begin = out.offsets[static_cast<std::size_t>(node)];
    for (Size k = 0; k < blocks; ++k) {
      const Index column = matrix.columns[static_cast<std::size_t>(begin + k * block)];
      TREMOR_CHECK(column % block == 0, "nodal-block CSR: row ", first_row, " has a block starting at column ",
                   column);
      out.columns.push_back(column / block);
    }
    // Row r of the node holds, block after block, the same columns; its entry (k, c) is the
    // block k value (r, c).
    for (std::size_t r = 0; r < d; ++r) {
      const Size row_begin = matrix.offsets[first_row + r];
      TREMOR_CHECK(matrix.offsets[first_row + r + 1] - row_begin == count, "nodal-block CSR: rows ", first_row,
                   " and ", first_row + r, " of one node differ in length");
      for (Size k = 0; k < blocks; ++k)
        for (std::size_t c = 0; c < d; ++c) {
          const auto from = static_cast<std::size_t>(row_begin + k * block) + c;
          TREMOR_CHECK(matrix.columns[from] == out.columns[static_cast<std::size_t>(out_begin + k)] * block +
                                                   static_cast<Index>(c),
                       "nodal-block CSR: row ", first_row + r, " does not have the nodal-block pattern");
          out.values[static_cast<std::size_t>(out_begin + k) * d * d + r * d + c] =
              static_cast<Real>(matrix.values[from]);
        }
    }
    out.offsets[static_cast<std::size_t>(node) + 1] = out_begin + blocks;
  }
  return out;
}

namespace {

// One kernel per block size, so the block loops unroll.
template <int B, class Real>
void spmv_blocks(const Exec& exec, Index n_block_rows, const Size* offsets, const Index* columns, const Real* values,
                 const Real* x, Real* y) {
  forall(exec, n_block_rows, [=] TREMOR_LAMBDA(Index node) {
    Real sum[B];
    for (int r = 0; r < B; ++r) sum[r] = 0;
    for (Size k = offsets[node]; k < offsets[node + 1]; ++k) {
      const Real* block = values + k * (B * B);
      const Real* xj = x + static_cast<Size>(columns[k]) * B;
      for (int r = 0; r < B; ++r)
        for (int c = 0; c < B; ++c) sum[r] += block[r * B + c] * xj[c];
    }
    for (int r = 0; r < B; ++r) y[static_cast<Size>(node) * B + r] = sum[r];
  });
}

// spmv_blocks for `k` vectors interleaved, one iteration per node row and vector.
template <int B, class Real>
void spmv_blocks_columns(const Exec& exec, Index n_block_rows, const Size* offsets, const Index* columns,
                         const Real* values, const Real* x, Real* y, int k) {
  forall(exec, static_cast<Index>(Size(n_block_rows) * k), [=] TREMOR_LAMBDA(Index t) {
    const Index node = t / k, s = t - node * k;
    Real sum[B];
    for (int r = 0; r < B; ++r) sum[r] = 0;
    for (Size e = offsets[node]; e < offsets[node + 1]; ++e) {
      const Real* block = values + e * (B * B);
      const Real* xj = x + static_cast<Size>(columns[e]) * B * k + s;
      for (int r = 0; r < B; ++r)
        for (int c = 0; c < B; ++c) sum[r] += block[r * B + c] * xj[Size(c) * k];
    }
    for (int r = 0; r < B; ++r) y[(static_cast<Size>(node) * B + r) * k + s] = sum[r];
  });
}

// Dispatches on the block size.
template <class Real>
void spmv_any(const Exec& exec, int block, Index n_block_rows, const Size* offsets, const Index* columns,
              const Real* values, const Real* x, Real* y) {
  switch (block) {
    case 1: return spmv_blocks<1>(exec, n_block_rows, offsets, columns, values, x, y);
    case 2: return spmv_blocks<2>(exec, n_block_rows, offsets, columns, values, x, y);
    case 3: return spmv_blocks<3>(exec, n_block_rows, offsets, columns, values, x, y);
    default: throw Error(str("nodal-block CSR SpMV: block size ", block, " is not 1, 2 or 3"));
  }
}

}  // namespace

template <class Real>
DeviceBlockCsr<Real>::DeviceBlockCsr(const Exec& exec, const BlockCsrMatrixT<Real>& matrix)
    : block(matrix.block),
      n_block_rows(matrix.n_block_rows),
      offsets(exec, std::span<const Size>(matrix.offsets)),
      columns(exec, std::span<const Index>(matrix.columns)),
      values(exec, std::span<const Real>(matrix.values)) {}

template <class Real>
void spmv(const Exec& exec, const BlockCsrMatrixT<Real>& matrix, const Real* x, Real* y) {
  TREMOR_CHECK(exec.space() == MemorySpace::Host, "nodal-block CSR SpMV: the matrix is in host memory, ",
               exec.describe(), " cannot run it");
  spmv_any(exec, matrix.block, matrix.n_block_rows, matrix.offsets.data(), matrix.columns.data(),
           matrix.values.data(), x, y);
}

template <class Real>
void spmv(const Exec& exec, const DeviceBlockCsr<Real>& matrix, const Real* x, Real* y) {
  spmv_any(exec, matrix.block, matrix.n_block_rows, matrix.offsets.data(), matrix.columns.data(),
           matrix.values.data(), x, y);
}

template <class Real>
void spmv_columns(const Exec& exec, const DeviceBlockCsr<Real>& matrix, const Real* x, Real* y, int k) {
  const Index n = matrix.n_block_rows;
  const Size* offsets = matrix.offsets.data();
  const Index* columns = matrix.columns.data();
  const Real* values = matrix.values.data();
  switch (matrix.block) {
    case 1: return spmv_blocks_columns<1>(exec, n, offsets, columns, values, x, y, k);
    case 2: return spmv_blocks_columns<2>(exec, n, offsets, columns, values, x, y, k);
    case 3: return spmv_blocks_columns<3>(exec, n, offsets, columns, values, x, y, k);
    default: throw Error(str("nodal-block CSR SpMV: block size ", matrix.block, " is not 1, 2 or 3"));
  }
}

template struct BlockCsrMatrixT<float>;
template struct BlockCsrMatrixT<double>;
template BlockCsrMatrixT<float> to_block_csr<float>(const CsrMatrix&, int);
template BlockCsrMatrixT<double> to_block_csr<double>(const CsrMatrix&, int);
template struct DeviceBlockCsr<float>;
template struct DeviceBlockCsr<double>;
template void spmv<float>(const Exec&, const DeviceBlockCsr<float>&, const float*, float*);
template void spmv_columns<float>(const Exec&, const DeviceBlockCsr<float>&, const float*, float*, int);
template void spmv_columns<double>(const Exec&, const DeviceBlockCsr<double>&, const double*, double*, int);
template void spmv<double>(const Exec&, const DeviceBlockCsr<double>&, const double*, double*);
template void spmv<float>(const Exec&, const BlockCsrMatrixT<float>&, const float*, float*);
template void spmv<double>(const Exec&, const BlockCsrMatrixT<double>&, const double*, double*);

}  // namespace tremor::sparse
