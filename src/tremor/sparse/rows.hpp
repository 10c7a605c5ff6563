#pragma once
// Row sources: an assembled matrix in one Exec's memory, read row by row inside kernels, so one
// converter per format (formats.cpp) serves both the host-assembled CSR and the nodal-block CSR
// that the two-kernel assembly builds on the device. Both give each scalar row's entries in
// column order, values in double (rounded to the format's Real where they are stored).
//
//   CsrRows    a scalar CSR: row r is entries offsets[r] .. offsets[r + 1].
//   BlockRows  the scalar rows of a nodal-block CSR (block_csr.hpp): row r = node * dim + i holds,
//              for each block k of node's block row, its entries (i, 0 .. dim - 1), so entry
//              k * dim + j is column columns[k] * dim + j, the order stiffness_pattern() gives.
#include "tremor/core/config.hpp"

namespace tremor::sparse::detail {

struct CsrRows {
  Index n = 0;
  const Size* offsets = nullptr;
  const Index* columns = nullptr;
  const double* values = nullptr;

  TREMOR_HOST_DEVICE Index n_rows() const { return n; }
  TREMOR_HOST_DEVICE Index length(Index row) const { return static_cast<Index>(offsets[row + 1] - offsets[row]); }
  TREMOR_HOST_DEVICE Index column(Index row, Index k) const { return columns[offsets[row] + k]; }
  TREMOR_HOST_DEVICE double value(Index row, Index k) const { return values[offsets[row] + k]; }
};

struct BlockRows {
  int dim = 3;
  Index n_nodes = 0;
  const Size* offsets = nullptr;   // n_nodes + 1, in blocks
  const Index* columns = nullptr;  // node of each block
  const double* values = nullptr;  // dim^2 per block, row-major

  TREMOR_HOST_DEVICE Index n_rows() const { return n_nodes * dim; }
  TREMOR_HOST_DEVICE Index length(Index row) const {
    const Index node = row / dim;
    return static_cast<Index>(offsets[node + 1] - offsets[node]) * dim;
  }
  TREMOR_HOST_DEVICE Index column(Index row, Index k) const {
    return columns[offsets[row / dim] + k / dim] * dim + k % dim;
  }
  TREMOR_HOST_DEVICE double value(Index row, Index k) const {
    const Size block = offsets[row / dim] + k / dim;
    return values[block * dim * dim + (row % dim) * dim + k % dim];
  }
};

}  // namespace tremor::sparse::detail
