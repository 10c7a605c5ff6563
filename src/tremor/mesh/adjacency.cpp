#include "tremor/mesh/adjacency.hpp"

#include <algorithm>
#include <atomic>
#include <exception>

namespace tremor {

namespace {

// Per node i in turn, row(i, nodes): the nodes of the elements holding it, itself included, sorted
// and unique. With `parallel`, nodes are visited in parallel (OpenMP) and row must allow that.
template <class Row>
void for_each_row(const Mesh& mesh, bool parallel, Row row) {
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
  std::vector<Size>().swap(fill);
  const auto visit = [&](Index i, std::vector<Index>& nodes) {
    nodes.clear();
    nodes.push_back(i);
    for (Size k = elem_offsets[static_cast<std::size_t>(i)]; k < elem_offsets[static_cast<std::size_t>(i) + 1]; ++k) {
      const auto& inc = incidence[static_cast<std::size_t>(k)];
      const auto element = mesh.blocks[static_cast<std::size_t>(inc.block)].nodes(inc.element);
      nodes.insert(nodes.end(), element.begin(), element.end());
    }
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    row(i, nodes);
  };
  if (!parallel) {  // in order
    std::vector<Index> nodes;
    for (Index i = 0; i < n; ++i) visit(i, nodes);
    return;
  }
  std::exception_ptr failure;  // the first, rethrown once the threads are done
#pragma omp parallel
  {
    std::vector<Index> nodes;
#pragma omp for schedule(dynamic, 1024)
    for (Index i = 0; i < n; ++i) {
      try {
        visit(i, nodes);
      } catch (...) {
#pragma omp critical(tremor_node_rows)
        if (!failure) failure = std::current_exception();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

NodeGraph node_graph(const Mesh& mesh) {
  NodeGraph graph;
  graph.offsets.assign(static_cast<std::size_t>(mesh.n_nodes()) + 1, 0);
  for_each_row(mesh, false, [&](Index i, const std::vector<Index>& row) {
    graph.neighbours.insert(graph.neighbours.end(), row.begin(), row.end());
    graph.offsets[static_cast<std::size_t>(i) + 1] = static_cast<Size>(graph.neighbours.size());
  });
  return graph;
}

Size node_graph_entries(const Mesh& mesh) {
  Size entries = 0;
  for_each_row(mesh, true, [&](Index, const std::vector<Index>& row) {
    std::atomic_ref<Size>(entries).fetch_add(static_cast<Size>(row.size()), std::memory_order_relaxed);
  });
  return entries;
}

}  // namespace tremor
