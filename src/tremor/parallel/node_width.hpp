#pragma once
// The values per node of an exchanged vector (parallel/exchange.hpp): its `dim` components, or of
// the forces of k shots stepped together its dim x k values side by side
// (explicit/central_difference.hpp): the vector's size over its nodes says which.
#include "tremor/core/config.hpp"
#include "tremor/core/error.hpp"

namespace tremor::parallel {

// Throws tremor::Error naming `what` where `size` values are not a whole multiple of dim per node.
inline Index node_width(Index size, Index n_nodes, int dim, const char* what) {
  if (n_nodes <= 0) return dim;
  const Index width = size / n_nodes;
  TREMOR_CHECK(size % n_nodes == 0 && width >= dim && width % dim == 0, what, ": ", size, " values for ", n_nodes,
               " nodes of ", dim, " components");
  return width;
}

}  // namespace tremor::parallel
