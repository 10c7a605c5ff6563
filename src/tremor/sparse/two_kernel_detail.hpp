#pragma once
// Kernel 1's format index arrays (two_kernel_pattern.cpp), shared with the assembly entry points.
#include <functional>

#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/sparse/two_kernel.hpp"

namespace tremor::sparse::detail {

// Where kernel 1's fill pass writes the scalar CSR/COO indices of each pattern entry as it finds
// it: row (node, i) holds, for each neighbour k in order, its dim DOF columns, from
// offsets[node] dim^2 + i count dim (columns, when not null), and every entry's row (rows, COO).
struct ScalarIndexSink {
  Index* columns = nullptr;
  Index* rows = nullptr;
  int dim = 3;

  // Neighbour k of `node`, whose row holds `count` neighbours from pattern entry `begin`.
  TREMOR_HOST_DEVICE void write(Index node, Size begin, Size count, Size k, Index neighbour) const {
    const Size d = dim;
    for (int i = 0; i < dim; ++i) {
      const Size first = begin * d * d + i * count * d + k * d;
      for (int j = 0; j < dim; ++j) {
        if (columns) columns[first + j] = neighbour * dim + j;
        if (rows) rows[first + j] = node * dim + i;
      }
    }
  }
};

// Kernel 1 (build_nodal_pattern) calling make_sink once the pattern's offsets are known (the
// format's arrays can then be allocated), before the neighbour lists are filled.
NodalPattern build_nodal_pattern(const Exec& exec, const fem::DeviceElements& elements,
                                 const std::function<ScalarIndexSink(const NodalPattern&)>& make_sink);
// CSR row offsets, n_nodes * dim + 1 of them.
void scalar_row_offsets(const Exec& exec, const NodalPattern& pattern, Size* offsets);
// ELL columns, column-major, width_blocks * dim slots per row (-1 for padding).
void ell_indices(const Exec& exec, const NodalPattern& pattern, Index width_blocks, Index* columns);

}  // namespace tremor::sparse::detail
