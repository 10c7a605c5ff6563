#pragma once
// The GPU block layout of the pogo paper (section 2.3, Fig. 3): nodes are grouped into blocks of
// up to block_size nodes, one thread per node; a block's memory is block_size / 32 rows of 32
// nodes (a warp each), and its first boundary_rows rows hold the nodes other blocks need (its
// boundary). A block stages the u values it needs into shared memory: its own block_size slots,
// then a fixed set of loads from other blocks' boundary rows, each 32, 16 or 8 consecutive slots
// starting on an 8-slot section of one row (Fig. 3(c), (d)). Shared position p < block_size is the
// block's own slot p; position block_size + q is offset q into the loads, taken in the order
// 32-node loads, 16-node loads, 8-node loads.
//
// The paper's numbers are for 2D tri3 and 512-node blocks: 4 boundary rows (128 nodes), 2 loads
// of 32, 10 of 16 and 8 of 8 nodes (288 shared slots beyond the block's own). default_layout()
// derives them for other element types and block sizes; docs/partition.md gives the
// measurements behind the 3D numbers.
#include "tremor/core/config.hpp"
#include "tremor/mesh/element_type.hpp"

namespace tremor {
class Mesh;
}

namespace tremor::partition {

constexpr int row_width = 32;     // nodes per row: one warp
constexpr int section_width = 8;  // nodes per section: the smallest load, and the alignment of every load
constexpr int sections_per_row = row_width / section_width;
constexpr int load_lengths[3] = {32, 16, 8};

struct BlockLayout {
  int block_size = 512;    // n_npb: nodes (threads) per block, a multiple of 32 in 32..1024
  int boundary_rows = 4;   // rows other blocks may load from: at most 16 and block_size / 32
  int loads[3] = {2, 10, 8};  // loads of 32, 16 and 8 nodes per block

  TREMOR_HOST_DEVICE int n_rows() const { return block_size / row_width; }
  TREMOR_HOST_DEVICE int n_loads() const { return loads[0] + loads[1] + loads[2]; }
  // Shared slots filled by the loads (the paper's 2 x 32 + 10 x 16 + 8 x 8 = 288).
  TREMOR_HOST_DEVICE int load_capacity() const { return 32 * loads[0] + 16 * loads[1] + 8 * loads[2]; }
  // Shared slots per block: own nodes, then the loads.
  TREMOR_HOST_DEVICE int shared_slots() const { return block_size + load_capacity(); }
  int boundary_capacity() const { return boundary_rows * row_width; }
  // Kind (0: 32 nodes, 1: 16, 2: 8) of load k, 0 <= k < n_loads().
  TREMOR_HOST_DEVICE int load_kind(int k) const { return k < loads[0] ? 0 : k < loads[0] + loads[1] ? 1 : 2; }
  TREMOR_HOST_DEVICE int load_length(int k) const { return 32 >> load_kind(k); }  // 32, 16, 8
  // Offset of load k's first node among the loaded slots (shared position block_size + offset).
  TREMOR_HOST_DEVICE int load_offset(int k) const {
    if (k < loads[0]) return 32 * k;
    if (k < loads[0] + loads[1]) return 32 * loads[0] + 16 * (k - loads[0]);
    return 32 * loads[0] + 16 * loads[1] + 8 * (k - loads[0] - loads[1]);
  }
  // The load and the offset within it of loaded slot q (0 <= q < load_capacity()).
  TREMOR_HOST_DEVICE void locate(int q, int& load, int& offset) const {
    const int end_32 = 32 * loads[0], end_16 = end_32 + 16 * loads[1];
    if (q < end_32) {
      load = q / 32;
      offset = q % 32;
    } else if (q < end_16) {
      load = loads[0] + (q - end_32) / 16;
      offset = (q - end_32) % 16;
    } else {
      load = loads[0] + loads[1] + (q - end_16) / 8;
      offset = (q - end_16) % 8;
    }
  }
  // Throws tremor::Error naming the first value out of range. Shared positions are stored in
  // 16 bits, so shared_slots() must stay below 32768.
  void validate() const;
};

// Halo thickness in node rows of an element type: how far (in rows of nodes) one element's
// coupling reaches: 1 for linear types, 2 for quadratic ones, P for GLL order P.
int halo_rows(ElementType type, int order = 1);

// The layout for a mesh of `type` and `block_size`-node blocks:
//  - 2D: the paper's for tri3 (and every linear 2D type) at 512 nodes; otherwise boundary rows
//    for the boundary of an ideal sqrt(2 n) x sqrt(n / 2) block `halo_rows` thick, with the
//    paper's margin (128 / 92, its rows over the 92 boundary nodes of a 32 x 16 block), and loads
//    in the paper's 2 : 10 : 8 proportions scaled by the ideal block's halo (100 nodes at 32 x 16).
//  - 3D: every row up to 16 is a boundary row (a cube's boundary is 58 % of its nodes and an
//    irregular block's often more: a lower limit only splits blocks), and loads scaled by the
//    ideal cube's halo from the counts measured on 512-node tet4 and hex8 blocks
//    (docs/partition.md): 16 x 32, 48 x 16 and 48 x 8 for the 488-node halo of an 8^3 cube.
// Rows and shared slots are capped by the block size and the 16-bit shared positions.
BlockLayout default_layout(ElementType type, int order = 1, int block_size = 512);
// The most demanding layout over the mesh's element blocks (largest halo); tri3's for an empty mesh
// of dimension 2, tet4's for dimension 3.
BlockLayout default_layout(const Mesh& mesh, int block_size = 512);

}  // namespace tremor::partition
