#include "tremor/sparse/formats.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/sparse/block_csr.hpp"
#include "tremor/sparse/rows.hpp"

namespace tremor::sparse {

namespace {

using detail::BlockRows;
using detail::CsrRows;

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

template <class T>
DeviceArray<T> place(const Exec& exec, const std::vector<T>& host) {
  return DeviceArray<T>(exec, std::span<const T>(host));
}

void check_space(const Exec& exec, MemorySpace space, const char* format) {
  TREMOR_CHECK(exec.space() == space, format, " SpMV: the matrix is in ", space == MemorySpace::Host ? "host" : "device",
               " memory, ", exec.describe(), " cannot run it");
}

// Every row's length, on the host (4 B per row): what the sorts and offsets are computed from.
template <class Rows>
std::vector<Index> row_lengths(const Exec& exec, const Rows& rows) {
  DeviceArray<Index> lengths(exec, rows.n_rows());
  Index* out = lengths.data();
  forall(exec, rows.n_rows(), [=] TREMOR_LAMBDA(Index row) { out[row] = rows.length(row); });
  return lengths.to_host();
}

Index longest(const std::vector<Index>& lengths) {
  Index value = 0;
  for (Index length : lengths) value = std::max(value, length);
  return value;
}

Size total(const std::vector<Index>& lengths) {
  Size value = 0;
  for (Index length : lengths) value += length;
  return value;
}

// Rows (original indices) in the order of a stable sort by decreasing length within consecutive
// windows of `window` rows; window >= n_rows sorts them all. Counting sort: O(n + longest).
std::vector<Index> sort_rows_by_length(const std::vector<Index>& lengths, Index window) {
  const auto n = static_cast<Index>(lengths.size());
  std::vector<Index> order(static_cast<std::size_t>(n));
  std::vector<Index> count;
  const auto length = [&](Index row) { return lengths[static_cast<std::size_t>(row)]; };
  for (Index first = 0; first < n; first += window) {
    const Index last = first + std::min(window, n - first);
    Index top = 0;
    for (Index row = first; row < last; ++row) top = std::max(top, length(row));
    // count[len] = position (from the window's start) of the first row of length len.
    count.assign(static_cast<std::size_t>(top) + 2, 0);
    for (Index row = first; row < last; ++row) ++count[static_cast<std::size_t>(top - length(row)) + 1];
    for (std::size_t k = 1; k < count.size(); ++k) count[k] += count[k - 1];
    for (Index row = first; row < last; ++row)
      order[static_cast<std::size_t>(first + count[static_cast<std::size_t>(top - length(row))]++)] = row;
  }
  return order;
}

// Runs convert(rows) on a host CSR: read in place on a host Exec, copied into the Exec's memory
// (double values, as assembled) for a GPU.
template <class Convert>
auto with_rows(const Exec& exec, const CsrMatrix& matrix, const char* format, Convert convert) {
  check_csr(matrix, format);
  if (exec.space() == MemorySpace::Host)
    return convert(CsrRows{matrix.n_rows, matrix.offsets.data(), matrix.columns.data(), matrix.values.data()});
  const DeviceArray<Size> offsets = place(exec, matrix.offsets);
  const DeviceArray<Index> columns = place(exec, matrix.columns);
  const DeviceArray<double> values = place(exec, matrix.values);
  return convert(CsrRows{matrix.n_rows, offsets.data(), columns.data(), values.data()});
}

BlockRows rows_of(const Exec& exec, const DeviceBlockCsr<double>& matrix, const char* format, NodeRange nodes = {}) {
  TREMOR_CHECK(matrix.values.exec().space() == exec.space() || matrix.values.size() == 0, format, ": the matrix is in ",
               matrix.values.exec().describe(), "'s memory; ", exec.describe(), " was given");
  TREMOR_CHECK(matrix.block >= 1 && matrix.block <= 3, format, ": block size ", matrix.block, " is not 1, 2 or 3");
  const Index last = nodes.last < 0 ? matrix.n_block_rows : nodes.last;
  TREMOR_CHECK(nodes.first >= 0 && nodes.first <= last && last <= matrix.n_block_rows, format, ": node rows [",
               nodes.first, ", ", last, ") of a matrix of ", matrix.n_block_rows);
  // The rows' offsets are absolute: a range is a view from its first node's.
  return BlockRows{matrix.block, last - nodes.first, matrix.offsets.data() + nodes.first, matrix.columns.data(),
                   matrix.values.data()};
}

// ---- one converter per format, for any row source -------------------------------------------------

template <class Real, class Rows>
DeviceCsr<Real> csr_from(const Exec& exec, const Rows& rows) {
  const Index n = rows.n_rows();
  const std::vector<Index> lengths = row_lengths(exec, rows);
  std::vector<Size> offsets(static_cast<std::size_t>(n) + 1, 0);
  for (Index row = 0; row < n; ++row)
    offsets[static_cast<std::size_t>(row) + 1] = offsets[static_cast<std::size_t>(row)] + lengths[static_cast<std::size_t>(row)];
  const Index stored = checked_count(offsets.back(), "CSR");
  DeviceCsr<Real> out;
  out.n_rows = n;
  out.offsets = place(exec, offsets);
  out.columns = DeviceArray<Index>(exec, stored);
  out.values = DeviceArray<Real>(exec, stored);
  const Size* begin = out.offsets.data();
  Index* columns = out.columns.data();
  Real* values = out.values.data();
  forall(exec, n, [=] TREMOR_LAMBDA(Index row) {
    const Index length = rows.length(row);
    for (Index k = 0; k < length; ++k) {
      columns[begin[row] + k] = rows.column(row, k);
      values[begin[row] + k] = static_cast<Real>(rows.value(row, k));
    }
  });
  return out;
}

template <class Real, class Rows>
EllMatrix<Real> ell_from(const Exec& exec, const Rows& rows) {
  const Index n = rows.n_rows();
  const std::vector<Index> lengths = row_lengths(exec, rows);
  const Index width = longest(lengths);
  const Index stored = checked_count(Size(width) * n, "ELL");
  EllMatrix<Real> out;
  out.n_rows = n;
  out.width = width;
  out.nnz = total(lengths);
  out.columns = DeviceArray<Index>(exec, stored);
  out.values = DeviceArray<Real>(exec, stored);
  Index* columns = out.columns.data();
  Real* values = out.values.data();
  forall(exec, n, [=] TREMOR_LAMBDA(Index row) {
    const Index length = rows.length(row);
    Size at = row;
    for (Index k = 0; k < width; ++k, at += n) {
      columns[at] = k < length ? rows.column(row, k) : padding_column;
      values[at] = k < length ? static_cast<Real>(rows.value(row, k)) : Real(0);
    }
  });
  return out;
}

template <class Real, class Rows>
SellMatrix<Real> sell_from(const Exec& exec, const Rows& rows, int chunk, Index sigma) {
  TREMOR_CHECK(chunk >= 1, "SELL: slice height C = ", chunk, " must be at least 1");
  TREMOR_CHECK(sigma >= 1, "SELL: sort window sigma = ", sigma, " must be at least 1");
  const Index n = rows.n_rows();
  const std::vector<Index> lengths = row_lengths(exec, rows);
  const std::vector<Index> row_of = sort_rows_by_length(lengths, sigma);
  const Index n_slices = (n + chunk - 1) / chunk;
  std::vector<Size> slice_offsets(static_cast<std::size_t>(n_slices) + 1, 0);
  Index width = 0;
  for (Index s = 0; s < n_slices; ++s) {
    const Index first = s * chunk;
    const Index height = std::min<Index>(chunk, n - first);
    Index slice_width = 0;  // sorted within windows only: the first row need not be the longest
    for (Index lane = 0; lane < height; ++lane)
      slice_width = std::max(slice_width, lengths[static_cast<std::size_t>(row_of[static_cast<std::size_t>(first + lane)])]);
    width = std::max(width, slice_width);
    slice_offsets[static_cast<std::size_t>(s) + 1] = slice_offsets[static_cast<std::size_t>(s)] + Size(slice_width) * height;
  }
  const Index stored = checked_count(slice_offsets.back(), "SELL");
  SellMatrix<Real> out;
  out.n_rows = n;
  out.chunk = chunk;
  out.sigma = sigma;
  out.width = width;
  out.nnz = total(lengths);
  out.slice_offsets = place(exec, slice_offsets);
  out.row_of = place(exec, row_of);
  out.columns = DeviceArray<Index>(exec, stored);
  out.values = DeviceArray<Real>(exec, stored);
  const Size* offsets = out.slice_offsets.data();
  const Index* sorted = out.row_of.data();
  Index* columns = out.columns.data();
  Real* values = out.values.data();
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) {
    const Index s = i / chunk;
    const Index lane = i - s * chunk;
    const Index height = n - s * chunk < chunk ? n - s * chunk : chunk;
    const Index slice_width = static_cast<Index>((offsets[s + 1] - offsets[s]) / height);
    const Index row = sorted[i];
    const Index length = rows.length(row);
    Size at = offsets[s] + lane;
    for (Index k = 0; k < slice_width; ++k, at += height) {
      columns[at] = k < length ? rows.column(row, k) : padding_column;
      values[at] = k < length ? static_cast<Real>(rows.value(row, k)) : Real(0);
    }
  });
  return out;
}

template <class Real, class Rows>
JdsMatrix<Real> jds_from(const Exec& exec, const Rows& rows) {
  const Index n = rows.n_rows();
  const std::vector<Index> lengths = row_lengths(exec, rows);
  const Index stored = checked_count(total(lengths), "JDS");
  const std::vector<Index> row_of = sort_rows_by_length(lengths, std::max<Index>(n, 1));
  const auto length_of = [&](Index i) { return lengths[static_cast<std::size_t>(row_of[static_cast<std::size_t>(i)])]; };
  const Index n_diagonals = n > 0 ? length_of(0) : 0;
  // Diagonal d covers the sorted rows longer than d: a prefix, since lengths decrease.
  std::vector<Size> diagonal_offsets(static_cast<std::size_t>(n_diagonals) + 1, 0);
  Index covered = n;  // rows longer than d, found walking d up and the sorted rows down
  for (Index d = 0; d < n_diagonals; ++d) {
    while (covered > 0 && length_of(covered - 1) <= d) --covered;
    diagonal_offsets[static_cast<std::size_t>(d) + 1] = diagonal_offsets[static_cast<std::size_t>(d)] + covered;
  }
  JdsMatrix<Real> out;
  out.n_rows = n;
  out.n_diagonals = n_diagonals;
  out.nnz = stored;
  out.diagonal_offsets = place(exec, diagonal_offsets);
  out.row_of = place(exec, row_of);
  out.columns = DeviceArray<Index>(exec, stored);
  out.values = DeviceArray<Real>(exec, stored);
  const Size* offsets = out.diagonal_offsets.data();
  const Index* sorted = out.row_of.data();
  Index* columns = out.columns.data();
  Real* values = out.values.data();
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) {
    const Index row = sorted[i];
    const Index length = rows.length(row);
    for (Index d = 0; d < length; ++d) {
      columns[offsets[d] + i] = rows.column(row, d);
      values[offsets[d] + i] = static_cast<Real>(rows.value(row, d));
    }
  });
  return out;
}

template <class Real>
BlockEllMatrix<Real> block_ell_from(const Exec& exec, const BlockRows& rows) {
  const Index n_nodes = rows.n_nodes;
  const int dim = rows.dim;
  const std::vector<Index> lengths = row_lengths(exec, rows);  // dim x blocks per scalar row
  const Index width = longest(lengths) / dim;
  const Index slots = checked_count(Size(width) * n_nodes, "nodal-block ELL");
  checked_count(Size(slots) * dim * dim, "nodal-block ELL");
  BlockEllMatrix<Real> out;
  out.dim = dim;
  out.n_nodes = n_nodes;
  out.width = width;
  out.n_blocks = total(lengths) / (Size(dim) * dim);
  out.columns = DeviceArray<Index>(exec, slots);
  out.values = DeviceArray<Real>(exec, slots * dim * dim);
  Index* columns = out.columns.data();
  Real* values = out.values.data();
  forall(exec, n_nodes, [=] TREMOR_LAMBDA(Index node) {
    const Size begin = rows.offsets[node];
    const Index count = static_cast<Index>(rows.offsets[node + 1] - begin);
    const Size per_block = Size(dim) * dim;
    for (Index slot = 0; slot < width; ++slot) {
      columns[Size(slot) * n_nodes + node] = slot < count ? rows.columns[begin + slot] : padding_column;
      for (Size e = 0; e < per_block; ++e)
        values[(Size(slot) * per_block + e) * n_nodes + node] =
            slot < count ? static_cast<Real>(rows.values[(begin + slot) * per_block + e]) : Real(0);
    }
  });
  return out;
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
  return with_rows(exec, matrix, "ELL", [&](const CsrRows& rows) { return ell_from<Real>(exec, rows); });
}

template <class Real>
EllMatrix<Real> to_ell(const Exec& exec, const DeviceBlockCsr<double>& matrix, NodeRange nodes) {
  return ell_from<Real>(exec, rows_of(exec, matrix, "ELL", nodes));
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
  return with_rows(exec, matrix, "SELL", [&](const CsrRows& rows) { return sell_from<Real>(exec, rows, chunk, sigma); });
}

template <class Real>
SellMatrix<Real> to_sell(const Exec& exec, const DeviceBlockCsr<double>& matrix, int chunk, Index sigma,
                         NodeRange nodes) {
  return sell_from<Real>(exec, rows_of(exec, matrix, "SELL", nodes), chunk, sigma);
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
  return with_rows(exec, matrix, "JDS", [&](const CsrRows& rows) { return jds_from<Real>(exec, rows); });
}

template <class Real>
JdsMatrix<Real> to_jds(const Exec& exec, const DeviceBlockCsr<double>& matrix, NodeRange nodes) {
  return jds_from<Real>(exec, rows_of(exec, matrix, "JDS", nodes));
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
  // to_block_csr checks the nodal-block pattern (and dim).
  const BlockCsrMatrixT<double> blocks = to_block_csr<double>(matrix, dim);
  if (exec.space() == MemorySpace::Host)
    return block_ell_from<Real>(exec, BlockRows{dim, blocks.n_block_rows, blocks.offsets.data(), blocks.columns.data(),
                                                blocks.values.data()});
  return to_block_ell<Real>(exec, DeviceBlockCsr<double>(exec, blocks));
}

template <class Real>
BlockEllMatrix<Real> to_block_ell(const Exec& exec, const DeviceBlockCsr<double>& matrix, NodeRange nodes) {
  return block_ell_from<Real>(exec, rows_of(exec, matrix, "nodal-block ELL", nodes));
}

template <class Real>
DeviceCsr<Real> to_csr(const Exec& exec, const DeviceBlockCsr<double>& matrix, NodeRange nodes) {
  return csr_from<Real>(exec, rows_of(exec, matrix, "CSR", nodes));
}

template <class Real>
DeviceBlockCsr<Real> rounded(const Exec& exec, const DeviceBlockCsr<double>& matrix) {
  (void)rows_of(exec, matrix, "nodal-block CSR");
  DeviceBlockCsr<Real> out;
  out.block = matrix.block;
  out.n_block_rows = matrix.n_block_rows;
  out.offsets = DeviceArray<Size>(exec, matrix.offsets.size());
  out.columns = DeviceArray<Index>(exec, matrix.columns.size());
  out.values = DeviceArray<Real>(exec, matrix.values.size());
  const Size* offsets = matrix.offsets.data();
  const Index* columns = matrix.columns.data();
  const double* values = matrix.values.data();
  Size* offsets_out = out.offsets.data();
  Index* columns_out = out.columns.data();
  Real* values_out = out.values.data();
  forall(exec, out.offsets.size(), [=] TREMOR_LAMBDA(Index i) { offsets_out[i] = offsets[i]; });
  forall(exec, out.columns.size(), [=] TREMOR_LAMBDA(Index i) { columns_out[i] = columns[i]; });
  forall(exec, out.values.size(), [=] TREMOR_LAMBDA(Index i) { values_out[i] = static_cast<Real>(values[i]); });
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

// `Per` consecutive values, loaded and stored as one (vector loads on a GPU, of up to 16 bytes).
template <class Real, int Per>
struct alignas(sizeof(Real) * Per) Pack {
  Real v[Per];
};

// The same for `k` vectors interleaved (entry i of vector s at i * k + s): a thread per node and
// `Per` consecutive vectors, consecutive threads the groups of one node, so that a warp reads each
// block once for all of them (the same address: one load) and each thread its vectors' x entries
// of a block column in one load of Per values. Each vector's sums in spmv_block_ell's order: its
// bits.
template <int B, int Per, class Real>
void spmv_block_ell_columns(const Exec& exec, Index n_nodes, Index width, const Index* columns, const Real* values,
                            const Real* x, Real* y, int k) {
  using P = Pack<Real, Per>;
  const int groups = k / Per;
  forall(exec, static_cast<Index>(Size(n_nodes) * groups), [=] TREMOR_LAMBDA(Index t) {
    const Index node = t / groups, s = (t - node * groups) * Per;
    Real sum[B][Per];
    for (int r = 0; r < B; ++r)
      for (int q = 0; q < Per; ++q) sum[r][q] = 0;
    for (Index slot = 0; slot < width; ++slot) {
      const Index column = columns[Size(slot) * n_nodes + node];
      if (column < 0) continue;
      P xj[B];
      for (int c = 0; c < B; ++c) xj[c] = *reinterpret_cast<const P*>(x + (Size(column) * B + c) * k + s);
      const Real* block = values + Size(slot) * (B * B) * n_nodes + node;
      for (int r = 0; r < B; ++r)
        for (int c = 0; c < B; ++c) {
          const Real a = block[Size(r * B + c) * n_nodes];
          for (int q = 0; q < Per; ++q) sum[r][q] += a * xj[c].v[q];
        }
    }
    for (int r = 0; r < B; ++r) {
      P out;
      for (int q = 0; q < Per; ++q) out.v[q] = sum[r][q];
      *reinterpret_cast<P*>(y + (Size(node) * B + r) * k + s) = out;
    }
  });
}

// Eight vectors a thread in float (two loads of four), four in double, where k and the arrays'
// alignment allow; else two, else one.
template <int B, class Real>
void spmv_block_ell_columns(const Exec& exec, Index n_nodes, Index width, const Index* columns, const Real* values,
                            const Real* x, Real* y, int k) {
  const auto aligned = [&](int per) {
    const auto bytes = static_cast<std::uintptr_t>(per) * sizeof(Real);
    return k % per == 0 && reinterpret_cast<std::uintptr_t>(x) % bytes == 0 &&
           reinterpret_cast<std::uintptr_t>(y) % bytes == 0;
  };
  if (sizeof(Real) == 4 && aligned(8))
    return spmv_block_ell_columns<B, 8>(exec, n_nodes, width, columns, values, x, y, k);
  if (aligned(4)) return spmv_block_ell_columns<B, 4>(exec, n_nodes, width, columns, values, x, y, k);
  if (aligned(2)) return spmv_block_ell_columns<B, 2>(exec, n_nodes, width, columns, values, x, y, k);
  spmv_block_ell_columns<B, 1>(exec, n_nodes, width, columns, values, x, y, k);
}

}  // namespace

template <class Real>
void spmv(const Exec& exec, const BlockEllMatrix<Real>& matrix, const Real* x, Real* y, int k) {
  check_space(exec, matrix.columns.exec().space(), "nodal-block ELL");
  const Index* columns = matrix.columns.data();
  const Real* values = matrix.values.data();
  if (k > 1) switch (matrix.dim) {
      case 1: return spmv_block_ell_columns<1>(exec, matrix.n_nodes, matrix.width, columns, values, x, y, k);
      case 2: return spmv_block_ell_columns<2>(exec, matrix.n_nodes, matrix.width, columns, values, x, y, k);
      case 3: return spmv_block_ell_columns<3>(exec, matrix.n_nodes, matrix.width, columns, values, x, y, k);
      default: break;
    }
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
  template EllMatrix<Real> to_ell<Real>(const Exec&, const DeviceBlockCsr<double>&, NodeRange);        \
  template SellMatrix<Real> to_sell<Real>(const Exec&, const DeviceBlockCsr<double>&, int, Index, NodeRange); \
  template JdsMatrix<Real> to_jds<Real>(const Exec&, const DeviceBlockCsr<double>&, NodeRange);        \
  template BlockEllMatrix<Real> to_block_ell<Real>(const Exec&, const DeviceBlockCsr<double>&, NodeRange); \
  template DeviceCsr<Real> to_csr<Real>(const Exec&, const DeviceBlockCsr<double>&, NodeRange);        \
  template DeviceBlockCsr<Real> rounded<Real>(const Exec&, const DeviceBlockCsr<double>&);  \
  template void spmv<Real>(const Exec&, const EllMatrix<Real>&, const Real*, Real*);        \
  template void spmv<Real>(const Exec&, const SellMatrix<Real>&, const Real*, Real*);       \
  template void spmv<Real>(const Exec&, const JdsMatrix<Real>&, const Real*, Real*);        \
  template void spmv<Real>(const Exec&, const BlockEllMatrix<Real>&, const Real*, Real*, int);
TREMOR_SPARSE_FORMATS_INSTANTIATE(float)
TREMOR_SPARSE_FORMATS_INSTANTIATE(double)
#undef TREMOR_SPARSE_FORMATS_INSTANTIATE

}  // namespace tremor::sparse
