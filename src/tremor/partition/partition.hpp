#pragma once
// Partitioning the nodes of a mesh into GPU blocks and arranging each block's memory (pogo paper
// section 3): the two stages that fit a mesh to the block layout of layout.hpp.
//
//  1. A partitioner assigns every node to a block of at most block_size nodes, working on the
//     node adjacency graph (mesh/adjacency.hpp): greedy_blocks() or aligned_blocks()
//     (partitioners.hpp says how each works and how the aligned one is generalised to 3D).
//  2. arrange_blocks() orders each block's nodes in its slots, boundary nodes first, and builds its
//     link table: which 32/16/8-node loads from which other blocks bring in every neighbour
//     its nodes link to. A block that cannot be served (too many boundary nodes for its boundary
//     rows, or more sections to load than it has loads) fails: it is split in two and it and its
//     neighbours are arranged again, until every block passes (section 3.2).
//
// The result, BlockPartition, is what the GPU operator (explicit/block_partitioned_matrix.hpp)
// and the block file (block_file.hpp) take. Its blocking efficiency eta = n_nodes / (n_blocks x
// block_size) is the paper's figure of merit (section 3): the solver's work is proportional to
// n_blocks.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/core/choice.hpp"
#include "tremor/core/config.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/mesh/mesh.hpp"
#include "tremor/partition/layout.hpp"

namespace tremor::partition {

enum class Partitioner { Greedy, Aligned };
inline constexpr std::array<Named<Partitioner>, 2> partitioner_names{{{"greedy", Partitioner::Greedy},
                                                                      {"aligned", Partitioner::Aligned}}};

std::string_view to_string(Partitioner partitioner);
// A name of partitioner_names; anything else throws "unknown partitioner ..." naming both.
Partitioner parse_partitioner(std::string_view name);

struct PartitionOptions {
  Partitioner partitioner = Partitioner::Aligned;
  int block_size = 512;
  // Overrides default_layout(mesh, block_size) when given (its own block_size then counts).
  std::optional<BlockLayout> layout;
};

struct PartitionStats {
  double partition_seconds = 0.0;  // the partitioner (stage 1), graph and boundary included
  double arrange_seconds = 0.0;    // memory arrangement, link tables and splits (stage 2)
  Index initial_blocks = 0;        // blocks the partitioner made
  Index split_blocks = 0;          // blocks that failed the arrangement and were split in two
  int arrange_passes = 0;          // rounds of link-table building until every block passed
  Size loads_used[3] = {0, 0, 0};  // 32, 16 and 8-node loads allocated, over all blocks
  Size loaded_slots = 0;           // shared slots the allocated loads fill, over all blocks
  Size needed_sections = 0;        // 8-node sections the blocks need from others, over all blocks
};

struct BlockPartition {
  BlockLayout layout;
  Index n_nodes = 0;
  Index n_blocks = 0;
  std::uint64_t fingerprint = 0;  // graph_fingerprint() of the node graph it was made for
  std::string partitioner;        // "greedy", "aligned" or "given" (arrange_blocks of a caller's blocks)
  // Node in each slot, block by block (slot = block * block_size + row * 32 + column); -1 empty.
  std::vector<Index> slot_node;
  // The link table, n_loads() per block in the layout's load order: the global slot of the first
  // node of each load (a row start plus a multiple of 8, in another block's boundary rows); -1
  // for a load the block does not use. (The paper packs the same as a 24-bit block number and an
  // 8-bit row and section, Fig. 3(d).)
  std::vector<Index> load_start;
  PartitionStats stats;

  // eta = n_nodes / (n_blocks x block_size).
  double efficiency() const;
  // Slot of each node (the inverse of slot_node).
  std::vector<Index> node_slot() const;
  // Nodes of each block in slot order: a node numbering that makes the layout's reads of u
  // contiguous when the mesh is renumbered by it (it is the new_to_old of renumber_nodes,
  // mesh/reorder.hpp).
  std::vector<Index> node_order() const;
};

// `partition` of a mesh, for that mesh renumbered by renumber_nodes(mesh, new_to_old)
// (mesh/reorder.hpp), whose node graph is `graph`: the same blocks and slots, holding the nodes'
// new numbers. Throws tremor::Error when new_to_old is not a permutation of its nodes.
BlockPartition renumbered(BlockPartition partition, const std::vector<Index>& new_to_old, const NodeGraph& graph);

// A 64-bit hash of the graph (node count, offsets and neighbours): a block file made for one mesh
// is refused for another.
std::uint64_t graph_fingerprint(const NodeGraph& graph);

// Stage 2 on a caller's assignment of nodes to blocks (`block_of_node`: 0 .. n_blocks - 1 per
// node, every block non-empty and at most layout.block_size nodes). Throws tremor::Error when a
// block of one node still fails (the layout's loads cannot serve the mesh's node degree).
BlockPartition arrange_blocks(const NodeGraph& graph, std::vector<Index> block_of_node, const BlockLayout& layout);

// Both stages with options.partitioner; stats carry the times. `graph` must be node_graph(mesh).
BlockPartition partition_mesh(const Mesh& mesh, const NodeGraph& graph, const PartitionOptions& options = {});
BlockPartition partition_mesh(const Mesh& mesh, const PartitionOptions& options = {});

// The reference check of a partition against a graph, walking every link: each node in exactly
// one slot, no block beyond its size, every load inside another block's boundary rows and on a
// section, and every neighbour of every node either in its own block or inside one of its block's
// loads. Returns the problems found (at most `max_problems`); empty when the partition serves the graph.
std::vector<std::string> check_partition(const NodeGraph& graph, const BlockPartition& partition,
                                         std::size_t max_problems = 10);

}  // namespace tremor::partition
