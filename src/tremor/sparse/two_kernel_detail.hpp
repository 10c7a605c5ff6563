#pragma once
// Kernel 1's format index arrays (two_kernel_pattern.cpp), shared with the assembly entry points.
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/sparse/two_kernel.hpp"

namespace tremor::sparse::detail {

// CSR row offsets (n_nodes * dim + 1, when `offsets` is not null) and columns, and COO rows
// (when `rows` is not null).
void scalar_row_indices(const Exec& exec, const NodalPattern& pattern, Size* offsets, Index* columns, Index* rows);
// ELL columns, column-major, width_blocks * dim slots per row (-1 for padding).
void ell_indices(const Exec& exec, const NodalPattern& pattern, Index width_blocks, Index* columns);

}  // namespace tremor::sparse::detail
