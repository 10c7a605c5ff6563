#pragma once
// Graph helpers shared by the partitioners and the memory arrangement (internal to partition/).
#include <span>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor::partition::detail {

inline std::span<const Index> neighbours(const NodeGraph& graph, Index v) {
  const Size begin = graph.offsets[static_cast<std::size_t>(v)], end = graph.offsets[static_cast<std::size_t>(v) + 1];
  return {graph.neighbours.data() + begin, static_cast<std::size_t>(end - begin)};
}

// A node in no element links to itself only.
inline bool isolated(const NodeGraph& graph, Index v) {
  return graph.offsets[static_cast<std::size_t>(v) + 1] - graph.offsets[static_cast<std::size_t>(v)] <= 1;
}

// Adjacency of the nodes on the mesh's boundary through boundary faces (two nodes are adjacent
// when one boundary face holds both), in compressed rows over all nodes (empty rows off it).
struct BoundaryGraph {
  std::vector<Size> offsets;
  std::vector<Index> neighbours;
  std::span<const Index> of(Index v) const {
    const Size begin = offsets[static_cast<std::size_t>(v)], end = offsets[static_cast<std::size_t>(v) + 1];
    return {neighbours.data() + begin, static_cast<std::size_t>(end - begin)};
  }
  bool on_boundary(Index v) const { return offsets[static_cast<std::size_t>(v) + 1] > offsets[static_cast<std::size_t>(v)]; }
};
BoundaryGraph boundary_graph(const Mesh& mesh);

// The node of `nodes` with the lexicographically smallest coordinates (x, then y, then z).
Index extreme_node(const Mesh& mesh, std::span<const Index> nodes);

// Splits a set of nodes in two halves of equal size (one more in the first for an odd count) by
// advancing from two ends until the halves meet: the ends are a pseudo-peripheral pair of
// `ends_from` (a subset of `nodes`; the two of its nodes farthest apart by breadth-first search in
// the subgraph `nodes` induces), each half grows breadth-first, the two taking turns, and nodes
// neither reaches (another connected piece) fill up the half with room. Returns the second
// half (the one grown from the second end); empty when `nodes` has fewer than two nodes.
class Splitter {
 public:
  explicit Splitter(Index n_nodes)
      : member_(static_cast<std::size_t>(n_nodes), 0),
        candidate_(static_cast<std::size_t>(n_nodes), 0),
        visited_(static_cast<std::size_t>(n_nodes), 0),
        side_(static_cast<std::size_t>(n_nodes), 0) {}
  std::vector<Index> split(const NodeGraph& graph, std::span<const Index> nodes, std::span<const Index> ends_from);

 private:
  // Breadth-first search from `start` over the current members; returns the last node of
  // `ends_from` (or of the members, with any_member) it reaches: one farthest by layers.
  Index farthest(const NodeGraph& graph, Index start, bool any_member);
  // Marks are stamps (a node is a member when member_[v] == round_), so nothing is cleared per call.
  std::vector<unsigned> member_, candidate_, visited_;
  std::vector<unsigned char> side_;
  unsigned round_ = 0, visit_ = 0;
  std::vector<Index> queue_;
};

// Puts the isolated nodes (in no element) into free slots: blocks with room first, in order,
// then new blocks of block_size. `block_of` holds -1 for them on entry; returns the block count.
Index place_isolated(const NodeGraph& graph, std::vector<Index>& block_of, Index n_blocks, int block_size);

}  // namespace tremor::partition::detail
