#include "tremor/partition/partition.hpp"

#include <algorithm>
#include <chrono>

#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/mesh/reorder.hpp"
#include "tremor/partition/graph_tools.hpp"
#include "tremor/partition/partitioners.hpp"

namespace tremor::partition {

std::string_view to_string(Partitioner partitioner) { return name_of(partitioner, partitioner_names); }

Partitioner parse_partitioner(std::string_view name) { return parse_named(name, partitioner_names, "partitioner"); }

double BlockPartition::efficiency() const {
  return n_blocks == 0 ? 0.0
                       : static_cast<double>(n_nodes) /
                             (static_cast<double>(n_blocks) * static_cast<double>(layout.block_size));
}

std::vector<Index> BlockPartition::node_slot() const {
  std::vector<Index> slot(static_cast<std::size_t>(n_nodes), -1);
  for (std::size_t s = 0; s < slot_node.size(); ++s)
    if (slot_node[s] >= 0) slot[static_cast<std::size_t>(slot_node[s])] = static_cast<Index>(s);
  return slot;
}

std::vector<Index> BlockPartition::node_order() const {
  std::vector<Index> order;
  order.reserve(static_cast<std::size_t>(n_nodes));
  for (Index v : slot_node)
    if (v >= 0) order.push_back(v);
  return order;
}

BlockPartition renumbered(BlockPartition partition, const std::vector<Index>& new_to_old, const NodeGraph& graph) {
  const std::vector<Index> old_to_new = invert_permutation(new_to_old, partition.n_nodes, "node renumbering");
  for (Index& node : partition.slot_node)
    if (node >= 0) node = old_to_new[static_cast<std::size_t>(node)];
  partition.fingerprint = graph_fingerprint(graph);
  return partition;
}

std::uint64_t graph_fingerprint(const NodeGraph& graph) {
  // A multiply-xorshift mix per 64-bit word: fast over tens of millions of entries, and any
  // change of count, offset or neighbour changes the result with overwhelming probability.
  std::uint64_t h = 0x5452454D4F52ull;  // "TREMOR"
  auto mix = [&h](std::uint64_t word) {
    h ^= word + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  };
  mix(static_cast<std::uint64_t>(graph.n_nodes()));
  for (Size offset : graph.offsets) mix(static_cast<std::uint64_t>(offset));
  const std::size_t n = graph.neighbours.size();
  std::size_t i = 0;
  for (; i + 1 < n; i += 2)
    mix(static_cast<std::uint64_t>(static_cast<std::uint32_t>(graph.neighbours[i])) |
        static_cast<std::uint64_t>(static_cast<std::uint32_t>(graph.neighbours[i + 1])) << 32);
  if (i < n) mix(static_cast<std::uint64_t>(static_cast<std::uint32_t>(graph.neighbours[i])));
  return h;
}

BlockPartition partition_mesh(const Mesh& mesh, const NodeGraph& graph, const PartitionOptions& options) {
  TREMOR_CHECK(graph.n_nodes() == mesh.n_nodes(), "the node graph has ", graph.n_nodes(), " nodes, the mesh ",
               mesh.n_nodes());
  const BlockLayout layout = options.layout ? *options.layout : default_layout(mesh, options.block_size);
  layout.validate();
  const auto t0 = Clock::now();
  std::vector<Index> block_of = options.partitioner == Partitioner::Greedy
                                    ? greedy_blocks(graph, mesh, layout.block_size)
                                    : aligned_blocks(graph, mesh, layout.block_size);
  const auto t1 = Clock::now();
  const Index initial = block_of.empty() ? 0 : *std::max_element(block_of.begin(), block_of.end()) + 1;
  BlockPartition result = arrange_blocks(graph, std::move(block_of), layout);
  result.partitioner = std::string(to_string(options.partitioner));
  result.stats.initial_blocks = initial;
  result.stats.partition_seconds = seconds_between(t0, t1);
  return result;
}

BlockPartition partition_mesh(const Mesh& mesh, const PartitionOptions& options) {
  const auto t0 = Clock::now();
  const NodeGraph graph = node_graph(mesh);
  const double graph_seconds = seconds_since(t0);
  BlockPartition result = partition_mesh(mesh, graph, options);
  result.stats.partition_seconds += graph_seconds;
  return result;
}

std::vector<std::string> check_partition(const NodeGraph& graph, const BlockPartition& partition,
                                         std::size_t max_problems) {
  std::vector<std::string> problems;
  auto report = [&](std::string message) {
    if (problems.size() < max_problems) problems.push_back(std::move(message));
  };
  const BlockLayout& layout = partition.layout;
  const Size bs = layout.block_size;
  const int n_loads = layout.n_loads();
  if (partition.n_nodes != graph.n_nodes()) {
    report(str("the partition has ", partition.n_nodes, " nodes, the graph ", graph.n_nodes()));
    return problems;
  }
  if (static_cast<Size>(partition.slot_node.size()) != partition.n_blocks * bs ||
      static_cast<Size>(partition.load_start.size()) != partition.n_blocks * Size(n_loads)) {
    report(str("array sizes do not match ", partition.n_blocks, " blocks of ", bs, " slots and ", n_loads, " loads"));
    return problems;
  }
  // Every node in exactly one slot.
  std::vector<Index> slot_of(static_cast<std::size_t>(graph.n_nodes()), -1);
  for (std::size_t s = 0; s < partition.slot_node.size(); ++s) {
    const Index v = partition.slot_node[s];
    if (v < 0) continue;
    if (v >= graph.n_nodes()) {
      report(str("slot ", s, " holds node ", v, ", beyond the graph's ", graph.n_nodes()));
      continue;
    }
    if (slot_of[static_cast<std::size_t>(v)] >= 0)
      report(str("node ", v, " is in slots ", slot_of[static_cast<std::size_t>(v)], " and ", s));
    slot_of[static_cast<std::size_t>(v)] = static_cast<Index>(s);
  }
  for (Index v = 0; v < graph.n_nodes(); ++v)
    if (slot_of[static_cast<std::size_t>(v)] < 0) report(str("node ", v, " is in no block"));
  if (!problems.empty()) return problems;
  // Loads: inside another block's boundary rows, on a section, within one row.
  std::vector<Index> covered;
  for (Index b = 0; b < partition.n_blocks; ++b) {
    covered.clear();
    for (int k = 0; k < n_loads; ++k) {
      const Index start = partition.load_start[static_cast<std::size_t>(b) * n_loads + k];
      if (start < 0) continue;
      const Index source = static_cast<Index>(start / bs);
      const auto local = static_cast<int>(start % bs);
      const int length = layout.load_length(k);
      if (source >= partition.n_blocks || source == b || local % section_width != 0 ||
          local / row_width >= layout.boundary_rows || local % row_width + length > row_width) {
        report(str("block ", b, " load ", k, " (", length, " nodes from slot ", start,
                   ") is not on a section of another block's boundary rows"));
        continue;
      }
      for (int j = 0; j < length; ++j) covered.push_back(start + j);
    }
    std::sort(covered.begin(), covered.end());
    // Every link of every node of the block is served.
    for (Size s = b * bs; s < (b + 1) * bs; ++s) {
      const Index v = partition.slot_node[static_cast<std::size_t>(s)];
      if (v < 0) continue;
      for (Index w : detail::neighbours(graph, v)) {
        const Index sw = slot_of[static_cast<std::size_t>(w)];
        if (sw / bs == b) continue;
        if (!std::binary_search(covered.begin(), covered.end(), sw))
          report(str("node ", v, " (block ", b, ") links to node ", w, " (block ", sw / bs, ", slot ", sw % bs,
                     ") which no load of block ", b, " brings in"));
      }
    }
  }
  return problems;
}

}  // namespace tremor::partition
