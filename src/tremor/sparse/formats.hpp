#pragma once
// Padded and row-sorted storage of the stiffness K for the GPU SpMV y = K u, the one matrix
// operation of an explicit step (element-matrices paper, section 4.2: "Matrix-Vector
// Multiplication on GPU"). The SpMV is memory bound, so each format is judged by the bytes it
// streams per entry and by how well consecutive threads read consecutive addresses:
//
//   EllMatrix        one row per thread, every row padded to the longest (paper Fig. 12): the
//                    simplest coalesced layout; padding grows with the spread of row lengths.
//   SellMatrix       SELL-C-sigma (Kreutzer et al. 2014): ELL per slice of C rows, each slice
//                    padded to its own longest row after sorting rows by length within windows
//                    of sigma rows; the padding of ELL without a global sort.
//   JdsMatrix        jagged diagonals (Saad 1989), the paper's own choice (Fig. 13): rows sorted
//                    by decreasing length, entry d of every row stored as diagonal d. No padding.
//   BlockEllMatrix   ELL of the nodal dim x dim blocks: one column index per block, so the index
//                    costs 4 / dim^2 B per value instead of 4.
//
// Common to all four:
//   * Built by one converter per format (formats.cpp) that reads the assembled matrix row by row
//     (sparse/rows.hpp) in the Exec's memory: a host CsrMatrix (double; copied to a GPU first), or
//     the nodal-block CSR the two-kernel assembly builds on the device. Values are rounded to Real
//     once; the index arrays that need a sort (SELL, JDS) are computed on the host from the row
//     lengths (4 B per row), the entries filled by a forall kernel on the Exec.
//   * spmv(exec, A, x, y) is one forall kernel for Serial, OpenMP and CUDA; x and y (length
//     n_rows, original row order) live in the Exec's memory and must not overlap. Each y entry
//     is its row's sum in column order, carried in Real and started at +0, exactly as the CSR
//     SpMV of sparse/csr.hpp sums it: on the host every format gives the CSR result bit for bit.
//     (nvcc contracts a * b + s into an FMA, so GPU results differ from the host in the last bits.)
//   * Padding entries hold column (or block column) -1 and value 0. The kernels skip an entry
//     whose column is negative, so padding never reads x and adds nothing, whatever x holds (a
//     padding "column = own row, value 0" would turn an infinite x entry into NaN). The branch
//     costs one integer compare per entry; a warp whose entries in a slot are all padding skips
//     the value and x loads of that slot altogether.
//   * bytes() counts the matrix's own arrays that one SpMV streams, padding included: a
//     column-major layout is read as a whole by the warps (an upper bound where whole 32-byte
//     sectors of padding values are skipped). x reads (gathered, cached) and the y write
//     (sizeof(Real) per row) come on top.
//   * stats() reports sizes and padding for benchmarks; describe(stats) a one-line summary.
//
// Arrays are indexed by Index (DeviceArray's size type): a matrix whose stored entries, padding
// included, exceed 2^31 - 1 is refused with tremor::Error.
#include <cstddef>
#include <string>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/sparse/block_csr.hpp"
#include "tremor/sparse/csr.hpp"

namespace tremor::sparse {

// Sizes of a stored matrix, counted in scalar entries (a block of BlockEllMatrix counts dim^2).
struct FormatStats {
  std::string format;    // "ell", "sell-32-256", "jds", "block-ell-3"
  Index n_rows = 0;      // scalar rows
  Size nnz = 0;          // the matrix's entries
  Size stored = 0;       // entries stored, padding included
  Index width = 0;       // ELL: longest row; SELL: longest slice row; JDS: diagonals; block ELL: blocks per node row
  std::size_t bytes = 0; // the format's bytes()

  Size padding() const { return stored - nnz; }
  // Padded entries per matrix entry (0 for JDS).
  double padding_fraction() const { return nnz > 0 ? static_cast<double>(stored - nnz) / static_cast<double>(nnz) : 0.0; }
  // Bytes of the matrix per matrix entry.
  double bytes_per_entry() const { return nnz > 0 ? static_cast<double>(bytes) / static_cast<double>(nnz) : 0.0; }
};

// "ell: 2187 rows, 140625 entries, width 81, padding 26.0%, 15.12 B/entry" (hex8, 8^3 cells).
std::string describe(const FormatStats& stats);

// ELL (paper section 4.2, Fig. 12): entry k of row r at k * n_rows + r (column-major), so the
// threads of a warp, one row each, read consecutive addresses at every k.
// Traffic per row: width * (4 + sizeof(Real)) B, padding included.
template <class Real>
struct EllMatrix {
  Index n_rows = 0;
  Index width = 0;  // longest row
  Size nnz = 0;
  DeviceArray<Index> columns;  // width * n_rows; -1 for padding
  DeviceArray<Real> values;    // width * n_rows; 0 for padding

  std::size_t bytes() const { return static_cast<std::size_t>(columns.size()) * (sizeof(Index) + sizeof(Real)); }
  FormatStats stats() const;
};

// SELL-C-sigma (Kreutzer, Hager, Wellein, Fehske, Bishop, SIAM J. Sci. Comput. 36(5), 2014; the
// "sliced" ELL of the paper's section 4.2 discussion): rows are stably sorted by decreasing
// length within consecutive windows of sigma rows (sigma = 1: no sorting); the sorted rows are cut
// into slices of C (the last may be shorter), each slice padded to its own longest row and stored
// column-major within the slice: entry k of lane l of slice s at slice_offsets[s] + k * h_s + l,
// h_s = rows in the slice. One thread per sorted row; y[row_of[i]] receives sorted row i's sum.
// With C = 32 a slice is one warp and the sort window sigma keeps the permuted y writes local.
// Traffic per row: (slice width) * (4 + sizeof(Real)) B + 4 B (row_of) + 8 / C B (slice offsets).
template <class Real>
struct SellMatrix {
  Index n_rows = 0;
  int chunk = 32;     // C, rows per slice
  Index sigma = 256;  // sort window
  Index width = 0;    // the widest slice's width
  Size nnz = 0;
  DeviceArray<Size> slice_offsets;  // n_slices + 1, into columns/values
  DeviceArray<Index> row_of;        // sorted position -> original row
  DeviceArray<Index> columns;       // -1 for padding
  DeviceArray<Real> values;         // 0 for padding

  Index n_slices() const { return slice_offsets.size() > 0 ? slice_offsets.size() - 1 : 0; }
  std::size_t bytes() const {
    return static_cast<std::size_t>(slice_offsets.size()) * sizeof(Size) +
           static_cast<std::size_t>(row_of.size()) * sizeof(Index) +
           static_cast<std::size_t>(columns.size()) * (sizeof(Index) + sizeof(Real));
  }
  FormatStats stats() const;
};

// Jagged diagonal storage (Saad 1989; the paper's row-sorted format, section 4.2, Fig. 13): rows
// stably sorted by decreasing length; diagonal d holds entry d of every row longer than d, in
// sorted order, at diagonal_offsets[d] + i. Since lengths decrease, diagonal d covers sorted rows
// 0 .. (its length) - 1 and a row's entries end at the first diagonal too short for it. One thread
// per sorted row, consecutive threads at consecutive addresses on every diagonal; no padding.
// Traffic per row: length * (4 + sizeof(Real)) B + 4 B (row_of); the diagonal offsets (8 B per
// diagonal) are read by every thread but stay in cache.
template <class Real>
struct JdsMatrix {
  Index n_rows = 0;
  Index n_diagonals = 0;  // the longest row
  Size nnz = 0;
  DeviceArray<Size> diagonal_offsets;  // n_diagonals + 1
  DeviceArray<Index> row_of;           // sorted position -> original row
  DeviceArray<Index> columns;          // nnz
  DeviceArray<Real> values;            // nnz

  std::size_t bytes() const {
    return static_cast<std::size_t>(diagonal_offsets.size()) * sizeof(Size) +
           static_cast<std::size_t>(row_of.size()) * sizeof(Index) +
           static_cast<std::size_t>(columns.size()) * (sizeof(Index) + sizeof(Real));
  }
  FormatStats stats() const;
};

// Nodal-block ELL: the dim x dim blocks of a nodal-block matrix (block_csr.hpp), each node row
// padded to `width` blocks. One thread per node computes its dim rows, so x entries of a block
// column are loaded once for dim rows. Layout, chosen so the threads of a warp (consecutive
// nodes) read consecutive addresses on every load:
//   columns[slot * n_nodes + node]                              block column (node), -1 padding
//   values[(slot * dim^2 + r * dim + c) * n_nodes + node]        block entry (r, c), row-major
// Traffic per node: width * (4 + dim^2 sizeof(Real)) B, padding included: per value
// sizeof(Real) + 4 / dim^2 B (3D: 8.44 B in double, 4.44 B in float; the scalar formats 12 and 8).
template <class Real>
struct BlockEllMatrix {
  int dim = 3;        // rows and columns per block
  Index n_nodes = 0;  // block rows
  Index width = 0;    // blocks in the longest node row
  Size n_blocks = 0;  // the matrix's blocks (padding excluded)
  DeviceArray<Index> columns;  // width * n_nodes
  DeviceArray<Real> values;    // width * dim^2 * n_nodes

  Index n_rows() const { return n_nodes * dim; }
  std::size_t bytes() const {
    return static_cast<std::size_t>(columns.size()) * sizeof(Index) +
           static_cast<std::size_t>(values.size()) * sizeof(Real);
  }
  FormatStats stats() const;
};

// Converters. Values are rounded to Real; arrays are placed in exec's memory space.
template <class Real>
EllMatrix<Real> to_ell(const Exec& exec, const CsrMatrix& matrix);
// chunk (C) >= 1, sigma >= 1. A sigma that is a multiple of C keeps sort windows aligned with
// slices.
template <class Real>
SellMatrix<Real> to_sell(const Exec& exec, const CsrMatrix& matrix, int chunk = 32, Index sigma = 256);
template <class Real>
JdsMatrix<Real> to_jds(const Exec& exec, const CsrMatrix& matrix);
// Requires the nodal-block pattern of stiffness_pattern() with blocks of dim (1, 2 or 3); the
// checks are to_block_csr()'s, which throws tremor::Error naming the offending row.
template <class Real>
BlockEllMatrix<Real> to_block_ell(const Exec& exec, const CsrMatrix& matrix, int dim);

// The same from the nodal-block CSR the two-kernel assembly builds in double on exec (set-up on the
// device: no global K on the host). The formats are the ones the host CSR gives: the same arrays
// for the same matrix. DOFs node-major; values rounded to Real.
//   `nodes` takes the rows of a range of nodes only: a matrix of (last - first) x dim rows whose
// columns are all of the matrix's, which applied to x gives rows [first dim, last dim) of A x
// (op::RowBlock), so that a subdomain's shared nodes' rows can be applied before the rest.
struct NodeRange {
  Index first = 0;
  Index last = -1;  // -1: to the last node
};
template <class Real>
EllMatrix<Real> to_ell(const Exec& exec, const DeviceBlockCsr<double>& matrix, NodeRange nodes = {});
template <class Real>
SellMatrix<Real> to_sell(const Exec& exec, const DeviceBlockCsr<double>& matrix, int chunk = 32, Index sigma = 256,
                         NodeRange nodes = {});
template <class Real>
JdsMatrix<Real> to_jds(const Exec& exec, const DeviceBlockCsr<double>& matrix, NodeRange nodes = {});
template <class Real>
BlockEllMatrix<Real> to_block_ell(const Exec& exec, const DeviceBlockCsr<double>& matrix, NodeRange nodes = {});
// Scalar CSR (sparse::stiffness_pattern()'s order) and the block CSR itself, rounded to Real.
template <class Real>
DeviceCsr<Real> to_csr(const Exec& exec, const DeviceBlockCsr<double>& matrix, NodeRange nodes = {});
template <class Real>
DeviceBlockCsr<Real> rounded(const Exec& exec, const DeviceBlockCsr<double>& matrix);

// y = A x (see the common rules above). Throws tremor::Error when exec's memory space is not the
// one the matrix was built in. Asynchronous on CUDA (exec.synchronize() before reading y).
template <class Real>
void spmv(const Exec& exec, const EllMatrix<Real>& matrix, const Real* x, Real* y);
template <class Real>
void spmv(const Exec& exec, const SellMatrix<Real>& matrix, const Real* x, Real* y);
template <class Real>
void spmv(const Exec& exec, const JdsMatrix<Real>& matrix, const Real* x, Real* y);
// With `columns` > 1, x and y hold that many vectors interleaved (entry i of vector s at
// i * columns + s) and each block is read once for all of them; each vector's bits are those of
// the call on it alone.
template <class Real>
void spmv(const Exec& exec, const BlockEllMatrix<Real>& matrix, const Real* x, Real* y, int columns = 1);

#define TREMOR_SPARSE_FORMATS_EXTERN(Real)                                                         \
  extern template struct EllMatrix<Real>;                                                          \
  extern template struct SellMatrix<Real>;                                                         \
  extern template struct JdsMatrix<Real>;                                                          \
  extern template struct BlockEllMatrix<Real>;                                                     \
  extern template EllMatrix<Real> to_ell<Real>(const Exec&, const CsrMatrix&);                     \
  extern template SellMatrix<Real> to_sell<Real>(const Exec&, const CsrMatrix&, int, Index);       \
  extern template JdsMatrix<Real> to_jds<Real>(const Exec&, const CsrMatrix&);                     \
  extern template BlockEllMatrix<Real> to_block_ell<Real>(const Exec&, const CsrMatrix&, int);     \
  extern template EllMatrix<Real> to_ell<Real>(const Exec&, const DeviceBlockCsr<double>&, NodeRange);        \
  extern template SellMatrix<Real> to_sell<Real>(const Exec&, const DeviceBlockCsr<double>&, int, Index, NodeRange); \
  extern template JdsMatrix<Real> to_jds<Real>(const Exec&, const DeviceBlockCsr<double>&, NodeRange);        \
  extern template BlockEllMatrix<Real> to_block_ell<Real>(const Exec&, const DeviceBlockCsr<double>&, NodeRange); \
  extern template DeviceCsr<Real> to_csr<Real>(const Exec&, const DeviceBlockCsr<double>&, NodeRange);        \
  extern template DeviceBlockCsr<Real> rounded<Real>(const Exec&, const DeviceBlockCsr<double>&);  \
  extern template void spmv<Real>(const Exec&, const EllMatrix<Real>&, const Real*, Real*);        \
  extern template void spmv<Real>(const Exec&, const SellMatrix<Real>&, const Real*, Real*);       \
  extern template void spmv<Real>(const Exec&, const JdsMatrix<Real>&, const Real*, Real*);        \
  extern template void spmv<Real>(const Exec&, const BlockEllMatrix<Real>&, const Real*, Real*, int);
TREMOR_SPARSE_FORMATS_EXTERN(float)
TREMOR_SPARSE_FORMATS_EXTERN(double)
#undef TREMOR_SPARSE_FORMATS_EXTERN

}  // namespace tremor::sparse
