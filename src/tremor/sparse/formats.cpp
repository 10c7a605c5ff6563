#include "tremor/sparse/formats.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/sparse/block_csr.hpp"

namespace tremor::sparse {

namespace {

constexpr Index padding_column = -1;

// Stored entries (padding included) must be addressable by DeviceArray's Index.
Index checked_count(Size count, const char* format) {
  TREMOR_CHECK(count <= Size(std::numeric_limits<Index>::max()), format, ": ", count,
               " stored entries (padding included) exceed the 2^31 - 1 an array can hold");
  return static_cast<Index>(count);
}

void check_csr(const CsrMatrix& matrix, const char* format) {
  TREMOR_CHECK(matrix.n_rows >= 0 && matrix.offsets.size() == static_cast<std::size_t>(matrix.n_rows) + 1 &&
                   matrix.offsets.front() == 0 && matrix.columns.size() == static_cast<std::size_t>(matrix.nnz()) &&
                   matrix.values.size() == matrix.columns.size(),
               format, ": the CSR matrix's arrays do not fit its ", matrix.n_rows, " rows");
}

Index row_length(const CsrMatrix& matrix, Index row) {
  const auto r = static_cast<std::size_t>(row);
  return static_cast<Index>(matrix.offsets[r + 1] - matrix.offsets[r]);
}

Index longest_row(const CsrMatrix& matrix) {
  Index longest = 0;
  for (Index row = 0; row < matrix.n_rows; ++row) longest = std::max(longest, row_length(matrix, row));
  return longest;
}

template <class T>
DeviceArray<T> place(const Exec& exec, const std::vector<T>& host) {
  return DeviceArray<T>(exec, std::span<const T>(host));
}

void check_space(const Exec& exec, MemorySpace space, const char* format) {
  TREMOR_CHECK(exec.space() == space, format, " SpMV: the matrix is in ", space == MemorySpace::Host ? "host" : "device",
               " memory, ", exec.describe(), " cannot run it");
}

// Rows (original indices) in the order of a stable sort by decreasing length within consecutive
// windows of `window` rows; window >= n_rows sorts them all. Counting sort: O(n + longest).
std::vector<Index> sort_rows_by_length(const CsrMatrix& matrix, Index window) {
  const Index n = matrix.n_rows;
  std::vector<Index> order(static_cast<std::size_t>(n));
  std::vector<Index> count;
  for (Index first = 0; first < n; first += window) {
    const Index last = first + std::min(window, n - first);
    Index longest = 0;
    for (Index row = first; row < last; ++row) longest = std::max(longest, row_length(matrix, row));
    // count[len] = position (from the window's start) of the first row of length len.
    count.assign(static_cast<std::size_t>(longest) + 2, 0);
    for (Index row = first; row < last; ++row) ++count[static_cast<std::size_t>(longest - row_length(matrix, row)) + 1];
    for (std::size_t k = 1; k < count.size(); ++k) count[k] += count[k - 1];
    for (Index row = first; row < last; ++row)
      order[static_cast<std::size_t>(first + count[static_cast<std::size_t>(longest - row_length(matrix, row))]++)] = row;
  }
  return order;
}

}  // namespace

std::string describe(const FormatStats& stats) {
  char tail[128];
  std::snprintf(tail, sizeof tail, ", padding %.1f%%, %.2f B/entry", 100.0 * stats.padding_fraction(),
                stats.bytes_per_entry());
  return str(stats.format, ": ", stats.n_rows, " rows, ", stats.nnz, " entries, width ", stats.width, tail);
}

// ---- ELL ----------------------------------------------------------------------------------------

template <class Real>
FormatStats EllMatrix<Real>::stats() const {
  return {"ell", n_rows, nnz, static_cast<Size>(columns.size()), width, bytes()};
}

template <class Real>
EllMatrix<Real> to_ell(const Exec& exec, const CsrMatrix& matrix) {
  check_csr(matrix, "ELL");
  const Index n = matrix.n_rows;
  const Index width = longest_row(matrix);
  const Index stored = checked_count(Size(width) * n, "ELL");
  std::vector<Index> columns(static_cast<std::size_t>(stored), padding_column);
  std::vector<Real> values(static_cast<std::size_t>(stored), Real(0));
#pragma omp parallel for schedule(static)
  for (Index row = 0; row < n; ++row) {
    const Size begin = matrix.offsets[static_cast<std::size_t>(row)];
    const Index length = row_length(matrix, row);
    for (Index k = 0; k < length; ++k) {
      const auto to = static_cast<std::size_t>(Size(k) * n + row);
      const auto from = static_cast<std::size_t>(begin + k);
      columns[to] = matrix.columns[from];
      values[to] = static_cast<Real>(matrix.values[from]);
    }
  }
  EllMatrix<Real> out;
  out.n_rows = n;
  out.width = width;
  out.nnz = matrix.nnz();
  out.columns = place(exec, columns);
  out.values = place(exec, values);
  return out;
}

template <class Real>
void spmv(const Exec& exec, const EllMatrix<Real>& matrix, const Real* x, Real* y) {
  check_space(exec, matrix.columns.exec().space(), "ELL");
  const Index n = matrix.n_rows;
  const Index width = matrix.width;
  const Index* columns = matrix.columns.data();
  const Real* values = matrix.values.data();
  forall(exec, n, [=] TREMOR_LAMBDA(Index row) {
    Real sum = 0;
    Size at = row;
    for (Index k = 0; k < width; ++k, at += n) {
      const Index column = columns[at];
      if (column >= 0) sum += values[at] * x[column];
    }
    y[row] = sum;
  });
}

// ---- SELL-C-sigma -------------------------------------------------------------------------------

template <class Real>
FormatStats SellMatrix<Real>::stats() const {
  return {str("sell-", chunk, "-", sigma), n_rows, nnz, static_cast<Size>(columns.size()), width, bytes()};
}

template <class Real>
SellMatrix<Real> to_sell(const Exec& exec, const CsrMatrix& matrix, int chunk, Index sigma) {
  check_csr(matrix, "SELL");
  TREMOR_CHECK(chunk >= 1, "SELL: slice height C = ", chunk, " must be at least 1");
  TREMOR_CHECK(sigma >= 1, "SELL: sort window sigma = ", sigma, " must be at least 1");
  const Index n = matrix.n_rows;
  const std::vector<Index> row_of = sort_rows_by_length(matrix, sigma);
  const Index n_slices = (n + chunk - 1) / chunk;
  std::vector<Size> slice_offsets(static_cast<std::size_t>(n_slices) + 1, 0);
  Index width = 0;
  for (Index s = 0; s < n_slices; ++s) {
    const Index first = s * chunk;
    const Index height = std::min<Index>(chunk, n - first);
    Index slice_width = 0;  // sorted within windows only: the first row need not be the longest
    for (Index lane = 0; lane < height; ++lane)
      slice_width = std::max(slice_width, row_length(matrix, row_of[static_cast<std::size_t>(first + lane)]));
    width = std::max(width, slice_width);
    slice_offsets[static_cast<std::size_t>(s) + 1] = slice_offsets[static_cast<std::size_t>(s)] + Size(slice_width) * height;
  }
  const Index stored = checked_count(slice_offsets.back(), "SELL");
  std::vector<Index> columns(static_cast<std::size_t>(stored), padding_column);
  std::vector<Real> values(static_cast<std::size_t>(stored), Real(0));
#pragma omp parallel for schedule(static)
  for (Index i = 0; i < n; ++i) {
    const Index s = i / chunk;
    const Index lane = i - s * chunk;
    const Index height = std::min<Index>(chunk, n - s * chunk);
    const Index row = row_of[static_cast<std::size_t>(i)];
    const Size begin = matrix.offsets[static_cast<std::size_t>(row)];
    const Index length = row_length(matrix, row);
    for (Index k = 0; k < length; ++k) {
      const auto to = static_cast<std::size_t>(slice_offsets[static_cast<std::size_t>(s)] + Size(k) * height + lane);
      const auto from = static_cast<std::size_t>(begin + k);
      columns[to] = matrix.columns[from];
      values[to] = static_cast<Real>(matrix.values[from]);
    }
  }
  SellMatrix<Real> out;
  out.n_rows = n;
  out.chunk = chunk;
  out.sigma = sigma;
  out.width = width;
  out.nnz = matrix.nnz();
  out.slice_offsets = place(exec, slice_offsets);
  out.row_of = place(exec, row_of);
  out.columns = place(exec, columns);
  out.values = place(exec, values);
  return out;
}

template <class Real>
void spmv(const Exec& exec, const SellMatrix<Real>& matrix, const Real* x, Real* y) {
  check_space(exec, matrix.columns.exec().space(), "SELL");
  const Index n = matrix.n_rows;
  const Index chunk = matrix.chunk;
  const Size* slice_offsets = matrix.slice_offsets.data();
  const Index* row_of = matrix.row_of.data();
  const Index* columns = matrix.columns.data();
  const Real* values = matrix.values.data();
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) {
    const Index slice = i / chunk;
    const Index first = slice * chunk;
    const Index height = n - first < chunk ? n - first : chunk;
    const Size begin = slice_offsets[slice];
    // A slice holds at most every stored entry, which fits an Index: 32-bit division.
    const Index width = static_cast<Index>(slice_offsets[slice + 1] - begin) / height;
    Real sum = 0;
    Size at = begin + (i - first);
    for (Index k = 0; k < width; ++k, at += height) {
      const Index column = columns[at];
      if (column >= 0) sum += values[at] * x[column];
    }
    y[row_of[i]] = sum;
  });
}

// ---- JDS ----------------------------------------------------------------------------------------

template <class Real>
FormatStats JdsMatrix<Real>::stats() const {
  return {"jds", n_rows, nnz, static_cast<Size>(columns.size()), n_diagonals, bytes()};
}

template <class Real>
JdsMatrix<Real> to_jds(const Exec& exec, const CsrMatrix& matrix) {
  check_csr(matrix, "JDS");
  const Index n = matrix.n_rows;
  const Index stored = checked_count(matrix.nnz(), "JDS");
  const std::vector<Index> row_of = sort_rows_by_length(matrix, std::max<Index>(n, 1));
  const Index n_diagonals = n > 0 ? row_length(matrix, row_of.front()) : 0;
  // Diagonal d covers the sorted rows longer than d: a prefix, since lengths decrease.
  std::vector<Size> diagonal_offsets(static_cast<std::size_t>(n_diagonals) + 1, 0);
  {
    Index covered = n;  // rows longer than d, found walking d up and the sorted rows down
    for (Index d = 0; d < n_diagonals; ++d) {
      while (covered > 0 && row_length(matrix, row_of[static_cast<std::size_t>(covered) - 1]) <= d) --covered;
      diagonal_offsets[static_cast<std::size_t>(d) + 1] = diagonal_offsets[static_cast<std::size_t>(d)] + covered;
    }
  }
  std::vector<Index> columns(static_cast<std::size_t>(stored));
  std::vector<Real> values(static_cast<std::size_t>(stored));
#pragma omp parallel for schedule(static)
  for (Index i = 0; i < n; ++i) {
    const Index row = row_of[static_cast<std::size_t>(i)];
    const Size begin = matrix.offsets[static_cast<std::size_t>(row)];
    const Index length = row_length(matrix, row);
    for (Index d = 0; d < length; ++d) {
      const auto to = static_cast<std::size_t>(diagonal_offsets[static_cast<std::size_t>(d)] + i);
      const auto from = static_cast<std::size_t>(begin + d);
      columns[to] = matrix.columns[from];
      values[to] = static_cast<Real>(matrix.values[from]);
    }
  }
  JdsMatrix<Real> out;
  out.n_rows = n;
  out.n_diagonals = n_diagonals;
  out.nnz = matrix.nnz();
  out.diagonal_offsets = place(exec, diagonal_offsets);
  out.row_of = place(exec, row_of);
  out.columns = place(exec, columns);
  out.values = place(exec, values);
  return out;
}

template <class Real>
void spmv(const Exec& exec, const JdsMatrix<Real>& matrix, const Real* x, Real* y) {
  check_space(exec, matrix.columns.exec().space(), "JDS");
  const Index n_diagonals = matrix.n_diagonals;
  const Size* diagonal_offsets = matrix.diagonal_offsets.data();
  const Index* row_of = matrix.row_of.data();
  const Index* columns = matrix.columns.data();
  const Real* values = matrix.values.data();
  forall(exec, matrix.n_rows, [=] TREMOR_LAMBDA(Index i) {
    Real sum = 0;
    for (Index d = 0; d < n_diagonals; ++d) {
      const Size begin = diagonal_offsets[d];
      if (i >= diagonal_offsets[d + 1] - begin) break;  // this row has no entry d, nor any later
      const Size at = begin + i;
      sum += values[at] * x[columns[at]];
    }
    y[row_of[i]] = sum;
  });
}

// ---- Nodal-block ELL ----------------------------------------------------------------------------

template <class Real>
FormatStats BlockEllMatrix<Real>::stats() const {
  const Size per_block = Size(dim) * dim;
  return {str("block-ell-", dim), n_rows(), n_blocks * per_block, static_cast<Size>(columns.size()) * per_block,
          width, bytes()};
}

template <class Real>
BlockEllMatrix<Real> to_block_ell(const Exec& exec, const CsrMatrix& matrix, int dim) {
  check_csr(matrix, "nodal-block ELL");
  // to_block_csr checks the nodal-block pattern (and dim) and rounds the values.
  const BlockCsrMatrixT<Real> blocks = to_block_csr<Real>(matrix, dim);
  const Index n_nodes = blocks.n_block_rows;
  const auto per_block = static_cast<std::size_t>(dim) * static_cast<std::size_t>(dim);
  Index width = 0;
  for (Index node = 0; node < n_nodes; ++node)
    width = std::max(width, static_cast<Index>(blocks.offsets[static_cast<std::size_t>(node) + 1] -
                                                 blocks.offsets[static_cast<std::size_t>(node)]));
  const Index slots = checked_count(Size(width) * n_nodes, "nodal-block ELL");
  checked_count(Size(slots) * static_cast<Size>(per_block), "nodal-block ELL");
  std::vector<Index> columns(static_cast<std::size_t>(slots), padding_column);
  std::vector<Real> values(static_cast<std::size_t>(slots) * per_block, Real(0));
  const auto nodes = static_cast<std::size_t>(n_nodes);
#pragma omp parallel for schedule(static)
  for (Index node = 0; node < n_nodes; ++node) {
    const Size begin = blocks.offsets[static_cast<std::size_t>(node)];
    const Size end = blocks.offsets[static_cast<std::size_t>(node) + 1];
    for (Size k = begin; k < end; ++k) {
      const auto slot = static_cast<std::size_t>(k - begin);
      columns[slot * nodes + static_cast<std::size_t>(node)] = blocks.columns[static_cast<std::size_t>(k)];
      for (std::size_t e = 0; e < per_block; ++e)
        values[(slot * per_block + e) * nodes + static_cast<std::size_t>(node)] =
            blocks.values[static_cast<std::size_t>(k) * per_block + e];
    }
  }
  BlockEllMatrix<Real> out;
  out.dim = dim;
  out.n_nodes = n_nodes;
  out.width = width;
  out.n_blocks = blocks.n_blocks();
  out.columns = place(exec, columns);
  out.values = place(exec, values);
  return out;
}

namespace {

// One kernel per block size, so the block loops unroll and the sums stay in registers. Row r of
// a node adds, slot after slot, its block entries (r, 0 .. B-1): the CSR row's column order.
template <int B, class Real>
void spmv_block_ell(const Exec& exec, Index n_nodes, Index width, const Index* columns, const Real* values,
                    const Real* x, Real* y) {
  forall(exec, n_nodes, [=] TREMOR_LAMBDA(Index node) {
    Real sum[B];
    for (int r = 0; r < B; ++r) sum[r] = 0;
    for (Index slot = 0; slot < width; ++slot) {
      const Index column = columns[Size(slot) * n_nodes + node];
      if (column < 0) continue;
      const Real* xj = x + Size(column) * B;
      const Real* block = values + Size(slot) * (B * B) * n_nodes + node;
      for (int r = 0; r < B; ++r)
        for (int c = 0; c < B; ++c) sum[r] += block[Size(r * B + c) * n_nodes] * xj[c];
    }
    for (int r = 0; r < B; ++r) y[Size(node) * B + r] = sum[r];
  });
}

}  // namespace

template <class Real>
void spmv(const Exec& exec, const BlockEllMatrix<Real>& matrix, const Real* x, Real* y) {
  check_space(exec, matrix.columns.exec().space(), "nodal-block ELL");
  const Index* columns = matrix.columns.data();
  const Real* values = matrix.values.data();
  switch (matrix.dim) {
    case 1: return spmv_block_ell<1>(exec, matrix.n_nodes, matrix.width, columns, values, x, y);
    case 2: return spmv_block_ell<2>(exec, matrix.n_nodes, matrix.width, columns, values, x, y);
    case 3: return spmv_block_ell<3>(exec, matrix.n_nodes, matrix.width, columns, values, x, y);
    default: throw Error(str("nodal-block ELL SpMV: block size ", matrix.dim, " is not 1, 2 or 3"));
  }
}

#define TREMOR_SPARSE_FORMATS_INSTANTIATE(Real)                                             \
  template struct EllMatrix<Real>;                                                          \
  template struct SellMatrix<Real>;                                                         \
  template struct JdsMatrix<Real>;                                                          \
  template struct BlockEllMatrix<Real>;                                                     \
  template EllMatrix<Real> to_ell<Real>(const Exec&, const CsrMatrix&);                     \
  template SellMatrix<Real> to_sell<Real>(const Exec&, const CsrMatrix&, int, Index);       \
  template JdsMatrix<Real> to_jds<Real>(const Exec&, const CsrMatrix&);                     \
  template BlockEllMatrix<Real> to_block_ell<Real>(const Exec&, const CsrMatrix&, int);     \
  template void spmv<Real>(const Exec&, const EllMatrix<Real>&, const Real*, Real*);        \
  template void spmv<Real>(const Exec&, const SellMatrix<Real>&, const Real*, Real*);       \
  template void spmv<Real>(const Exec&, const JdsMatrix<Real>&, const Real*, Real*);        \
  template void spmv<Real>(const Exec&, const BlockEllMatrix<Real>&, const Real*, Real*);
TREMOR_SPARSE_FORMATS_INSTANTIATE(float)
TREMOR_SPARSE_FORMATS_INSTANTIATE(double)
#undef TREMOR_SPARSE_FORMATS_INSTANTIATE

}  // namespace tremor::sparse
