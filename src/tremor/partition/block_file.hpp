#pragma once
// The block file: a partition saved for reuse (pogo paper section 4.4: a parametric study that
// changes loads or materials but not the mesh reuses its block file, and the partitioner's time
// becomes zero after the first run). Written by `tremor partition`, read by the operator.
//
// A documented binary format (HDF5 would put the file library beneath this layer for two arrays),
// little-endian, version 1:
//
//   offset  size  content
//   0       8     magic "TRMBLOCK"
//   8       4     u32 byte-order probe 0x01020304 (read back otherwise: written on a machine of the
//                 other byte order, refused)
//   12      4     u32 format version (1)
//   16      8     u64 fingerprint of the node graph (partition.hpp graph_fingerprint)
//   24      8     i64 n_nodes
//   32      8     i64 n_blocks
//   40      20    i32 block_size, boundary_rows, loads of 32, of 16, of 8 nodes
//   60      4     u32 length L of the partitioner's name, then L bytes of it
//   64+L    80    statistics: f64 partition_seconds, f64 arrange_seconds, then i64 initial_blocks,
//                 split_blocks, arrange_passes, loads_used[3], loaded_slots, needed_sections
//   ...     4 S   i32 slot_node, S = n_blocks x block_size
//   ...     4 T   i32 load_start, T = n_blocks x (loads of 32 + 16 + 8)
//   end-8   8     u64 checksum of every byte before it (the fingerprint's mix, 8 bytes at a time)
//
// The file is made for one mesh: read_block_file() with a graph refuses a file whose fingerprint
// differs from the graph's, with a message naming both meshes' node counts.
#include <filesystem>
#include <string>
#include <string_view>

#include "tremor/mesh/adjacency.hpp"
#include "tremor/partition/partition.hpp"

namespace tremor::partition {

// The bytes of the block file of `partition`. Throws tremor::Error when its arrays do not match
// its block count.
std::string encode_block_file(const BlockPartition& partition);

// Writes `partition` to `path` (replacing it). Throws tremor::Error naming the path on failure.
// Not atomic: `tremor partition` writes encode_block_file() through io::write_file_atomically.
void write_block_file(const std::filesystem::path& path, const BlockPartition& partition);

// Reads a block file; throws tremor::Error naming the path when it is missing, truncated, corrupt
// (checksum) or not a block file.
BlockPartition read_block_file(const std::filesystem::path& path);

// The same, refusing a file made for a mesh whose node graph is not `graph`.
BlockPartition read_block_file(const std::filesystem::path& path, const NodeGraph& graph);

// Throws tremor::Error ("SOURCE: the partition was made for another mesh ...") when `partition`
// was not made for `graph`.
void check_fingerprint(const BlockPartition& partition, const NodeGraph& graph, std::string_view source);

}  // namespace tremor::partition
