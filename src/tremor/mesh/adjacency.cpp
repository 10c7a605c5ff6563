#include "tremor/mesh/adjacency.hpp"

#include <algorithm>

namespace tremor {

NodeGraph node_graph(const Mesh& mesh) {
  const Index n = mesh.n_nodes();
  // Element lists per node first, then the union of their nodes: memory ~ sum of element sizes.
  std::vector<Size> elem_offsets(static_cast<std::size_t>(n) + 1, 0);
  for (const auto& block : mesh.blocks)
    for (Index node : block.connectivity) ++elem_offsets[static_cast<std::size_t>(node) + 1];
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) elem_offsets[i + 1] += elem_offsets[i];
  struct Incidence {
    int block;
    Index element;
  };
  std::vector<Incidence> incidence(static_cast<std::size_t>(elem_offsets.back()));
  std::vector<Size> fill(elem_offsets.begin(), elem_offsets.end() - 1);
  for (int b = 0; b < mesh.n_blocks(); ++b) {
    const auto& block = mesh.blocks[static_cast<std::size_t>(b)];
    const auto per = static_cast<std::size_t>(block.n_element_nodes());
    for (std::size_t k = 0; k < block.connectivity.size(); ++k)
      incidence[static_cast<std::size_t>(fill[static_cast<std::size_t>(block.connectivity[k])]++)] = {
          b, static_cast<Index>(k / per)};
  }
  NodeGraph graph;
  graph.offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  std::vector<Index> row;
  for (Index i = 0; i < n; ++i) {
    row.clear();
    row.push_back(i);
    for (Size k = elem_offsets[static_cast<std::size_t>(i)]; k < elem_offsets[static_cast<std::size_t>(i) + 1]; ++k) {
      const auto& inc = incidence[static_cast<std::size_t>(k)];
      const auto nodes = mesh.blocks[static_cast<std::size_t>(inc.block)].nodes(inc.element);
      row.insert(row.end(), nodes.begin(), nodes.end());
    }
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    graph.neighbours.insert(graph.neighbours.end(), row.begin(), row.end());
    graph.offsets[static_cast<std::size_t>(i) + 1] = static_cast<Size>(graph.neighbours.size());
  }
  return graph;
}

}  // namespace tremor
