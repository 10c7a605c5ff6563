#pragma once
// Node-to-node adjacency (nodes sharing an element), in compressed rows. The sparsity of every
// assembled operator follows from it: row i of a nodal-block matrix has one dim x dim block per
// neighbour, the node itself included.
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor {

struct NodeGraph {
  std::vector<Size> offsets;  // n_nodes + 1
  std::vector<Index> neighbours;  // sorted per node, the node itself included

  Index n_nodes() const { return static_cast<Index>(offsets.size()) - 1; }
  Size n_entries() const { return offsets.back(); }
};

NodeGraph node_graph(const Mesh& mesh);

// The entries node_graph(mesh) holds (its n_entries()), counted in parallel without storing them:
// the size of an assembled stiffness's pattern where the pattern itself would not fit in memory.
Size node_graph_entries(const Mesh& mesh);

}  // namespace tremor
