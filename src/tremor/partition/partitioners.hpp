#pragma once
// The two partitioners of the pogo paper (section 3.1), on the node adjacency graph. Each returns
// a block number per node (0 .. n_blocks - 1, every block non-empty, at most block_size nodes);
// arrange_blocks() (partition.hpp) then arranges the blocks' memory.
//
// Greedy (the paper's reference [35], Kloeckner et al.): blocks are grown one at a time by
// breadth-first search from a seed, claiming unassigned neighbours until the block holds
// block_size nodes or nothing unassigned is left next to it; the next seed is the first unassigned
// node in a breadth-first order of the whole graph from an extreme node, so each block starts next
// to the ones before. Quick and reliable, but blocks come out irregular and trapped remnants make
// small blocks (the paper reports 82-88 % efficiency on its models; on the compact test domains
// here it reaches 96-98 %).
//
// Aligned (the paper's own): blocks advance in layers from the outer boundary like a front:
//   1. the outer boundary: the nodes of boundary faces (mesh/faces.hpp) connected, through boundary
//      faces, to the extreme node (lowest x, then y, then z) of each connected part of the mesh;
//   2. it is cut into pieces of about B nodes (breadth-first growth along the boundary faces),
//      each the first row of a block;
//   3-4. the test advance: every block advances R rows (a row: the unassigned graph neighbours of
//      the last one), blocks taking turns row by row;
//   5. sizes are fixed: a block below S_l joins its smallest neighbour, one above S_u is split in
//      two, advancing from the two ends of its first row (a pseudo-peripheral pair) until the
//      halves meet; repeated until all lie within [S_l, S_u] (or cannot change);
//   6. everything but the first rows is released;
//   7-8. the final advance: the smallest block advances by one row (stopping at block_size nodes),
//      repeatedly, until every block is full or trapped (no unassigned neighbour: deactivated,
//      section 3.1, internal boundaries);
//   9. the next layer: every block's unassigned neighbours become the first row of a child block;
//      a child whose nodes are not connected is split into its connected pieces (an internal
//      boundary cut it);
//   10. from 3 with the children, until every node is assigned.
// The constants follow from block_size = n_npb as the paper explains: B in [sqrt(n), sqrt(2 n)]
// (aspect ratio 1:1 to 2:1; the top, sqrt(2 n) = 32 for 512, is the paper's choice),
// R = n / B x 1.25, S_m = R B, S_l = 0.6 S_m, S_u = 1.55 S_m.
//
// Generalisation to 3D and to any element type ("rows" become graph layers):
//  - a row is one layer of the breadth-first advance in the node graph. For linear elements that
//    is one row of nodes; a quadratic or GLL element couples all its nodes, so a layer is an
//    element thick (2 or P node rows) and blocks grow in element layers;
//  - in 3D the boundary is a surface, so its pieces are patches, not lengths: B counts the nodes of
//    a patch, chosen for blocks of aspect 1:1:1 to 2:2:1: B in [n^(2/3), (2n)^(2/3)], the top
//    again (101 for 512 nodes: a patch about 10 x 10 advanced about 5 layers, test advance
//    R = n / B x 1.25 = 6.3 -> 6); S_m, S_l and S_u as in 2D;
//  - where the paper walks the boundary loop to cut lengths, patches grow breadth-first over the
//    boundary faces (in 2D this is the same walk: a patch of a loop is a length);
//  - isolated nodes (in no element) link to nothing; they fill free slots of the last blocks
//    instead of making blocks of their own.
// Departures from the paper, each for a failure seen on test meshes:
//  - a node that several blocks could take in a row goes to the block with most links to it (in
//    the test advance all blocks' rows are decided together; in the final advance a block leaves
//    such a node to a stronger one and takes it later if that one does not). Taken block by block,
//    as the paper's loop reads, the first block takes the diagonal node of every row on meshes
//    with diagonal links (quadrilaterals, hexahedra) and leans into its neighbour;
//  - "join to an adjacent block" takes the smallest neighbour of the layer (the paper does not
//    say which); a block split in step 5 is split at its first row's two ends (the paper's "two
//    ends of the block", read as the ends of the length that seeds it);
//  - a test region the advance closed (no free node next to it: a pocket where fronts meet) that
//    holds more than a block is split until the pieces fit: grown from its first row inwards it
//    would leave a remnant in a hole, the block around it a ring of long boundary;
//  - a block whose nodes end up in separate pieces (a join whose first rows only met through the
//    released test region) becomes one block per piece, as children are;
//  - several connected parts of a mesh are partitioned one after the other, each from its own
//    outer boundary.
// Where it does well and where not (docs/partition.md): on free-like 2D triangle meshes it beats
// greedy (eta 0.99 against 0.97 at 1M nodes); on thin domains, where fronts from opposite sides
// meet after a few rows, and on structured quadrilateral and hexahedral meshes, greedy's compact
// blobs do better.
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor::partition {

std::vector<Index> greedy_blocks(const NodeGraph& graph, const Mesh& mesh, int block_size);

// The aligned partitioner's constants for a block size and a dimension (above).
struct AlignedParameters {
  int boundary_length = 32;  // B: nodes per piece of the outer boundary
  int test_rows = 20;        // R: rows of the test advance
  int lower = 390;           // S_l
  int upper = 1000;          // S_u (the paper rounds 0.6 x 640 = 384 and 1.55 x 640 = 992 to 390 and 1000)
};
AlignedParameters aligned_parameters(int block_size, int dim);

std::vector<Index> aligned_blocks(const NodeGraph& graph, const Mesh& mesh, int block_size);

}  // namespace tremor::partition
