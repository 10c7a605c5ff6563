#pragma once
// ElementTiles: the elements of DeviceElements regrouped for a kernel that stages their nodes in
// shared memory (the matrix-free operator's element kernel, explicit/matrix_free.hpp). A GPU
// block computes one tile of elements close in space, a thread per element: it reads the tile's
// nodes' coordinates and values once (coalesced: a tile's nodes are a sorted list, and nodes
// numbered close in space lie close in memory), its elements write their forces to shared
// memory, and a thread per tile node sums its elements' forces in a fixed order (the node's
// incidences) and adds the sum to the global vector once: a node shared by elements of one tile
// costs one global add instead of one per element (hex8 in 128-element tiles of a plate: about
// 1.8 nodes per element against 8 element nodes), and no two threads add to one shared entry.
//
// Tiles: the block's elements ordered by the Morton code of their centroids (a Z-order curve on a
// grid of cubes over the block's bounding box), cut into runs of at most `tile` elements and at
// most max_tile_nodes nodes (so that a node's index in its tile is one byte); a tile may be short
// (its slots from its count on are empty).
//
// Per element slot: its nodes as 8-bit indices into its tile's node list, [tile][a][slot] so that
// a warp's loads are consecutive. Its section and its scale (the absorbing layers' stiffness factor
// times the section's thickness, in Real) per slot, or once per tile where every block's tile is
// uniform in both (per_slot false: one material and no absorbing layer across a tile, the common
// case). Per tile: its nodes, ascending, and per node the element nodes (a x tile + slot, 16 bits)
// that are it, in order of slot, and where they end. On a GPU a tile's nodes are kept as its first
// node and each node's 16-bit step from it where every tile spans at most max_tile_span node
// numbers (tiles are cut at that span where the numbering allows, element_tiles.cpp), else as
// 32-bit nodes. Per section its
// material in Real (the laws' MaterialView). For the GPU kernel (kernel_coordinates), per tile node
// its coordinates less its tile's centre (the middle of its nodes' bounding box) in Real: read in
// tile order, coalesced, instead of gathered by node in double, and half the shared memory in
// float; an element needs only its coordinates' differences, and a difference within a tile of
// about 10 elements across loses about 10 float roundings of the element's size (1e-6 relative),
// where the differences of absolute float coordinates would lose digits with the part's size.
// Sizes: per element slot 3 B per node (+ 4 B + sizeof(Real)); per tile node 4 B (+ dim x
// sizeof(Real) with kernel_coordinates) and per tile 10 B with steps, 6 B and 6 B with 32-bit
// nodes. On a host Exec, the tiles' colours, and for triangles each slot's inverse Jacobian and
// det J (5 x sizeof(Real) per slot). A block of quadrilaterals
// or hexahedra that are all parallelograms or parallelepipeds (every vertex within 1e-12 of the
// element's size of x0 + the edges from vertex 0) is marked affine: one Jacobian per element.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/laws.hpp"
#include "tremor/mesh/element_type.hpp"

namespace tremor::fem {

// On a host Exec, a block of `type` keeps each slot's inverse Jacobian and det J (TileBlock::geometry)
// instead of its tile nodes' coordinates: triangles only (measured, element_tiles.cpp).
constexpr bool host_keeps_geometry(ElementType type) { return type == ElementType::Tri3; }

// Chunk k of chunks of `chunk` consecutive tiles out of n_tiles (TileBlock::chunk): its tiles
// [first, end).
inline std::pair<Index, Index> chunk_tiles(Index k, int chunk, Index n_tiles) {
  return {k * chunk, std::min<Index>((k + 1) * chunk, n_tiles)};
}

// One block's tiles, as a kernel captures them.
template <class Real>
struct TileView {
  Index n_tiles;
  int tile;       // element slots per tile (the kernel's threads per block)
  int max_nodes;  // most nodes in one tile: the shared memory a tile needs
  const Index* node_offsets;
  const Index* nodes;                // tile t's nodes at [node_offsets[t], node_offsets[t + 1]), or null:
  const Index* first_nodes;          // per tile its first node, and
  const std::uint16_t* node_steps;   // per tile node its step from it
  const std::uint8_t* local;
  const std::uint16_t* incidence_ends;  // tile t's node k: [node_offsets[t] + k], its incidences' end
  const std::uint16_t* incidences;         // n_element_nodes x tile per tile
  const std::uint16_t* counts;  // elements per tile: its slots from its count on are empty
  // Slot s of tile t's section and scale are at t x tile_stride + s x slot_stride: (tile, 1) per
  // slot, (1, 0) per tile (a product rather than a select, which cost the hex8 kernel in double 60
  // registers, a third of its blocks per multiprocessor).
  int tile_stride, slot_stride;
  const int* section;
  const Real* scale;
  // On a host Exec, triangles: per tile and slot the inverse Jacobian and det J, [tile][k][slot]
  // with inverse[d][i] at k = d dim + i and det at dim^2; null elsewhere.
  const Real* geometry;
  // Tile t's node at `at`: its coordinates less the tile's centre, at [at x dim]; null where the
  // tiles keep none (TileBlock::coordinates).
  const Real* coordinates;

  // Tile t's node at `at` (node_offsets[t] + k).
  TREMOR_HOST_DEVICE Index node(Index t, Index at) const { return nodes ? nodes[at] : first_nodes[t] + node_steps[at]; }

  TREMOR_HOST_DEVICE Size property(Index t, int s) const {
    return static_cast<Size>(t) * tile_stride + static_cast<Size>(s) * slot_stride;
  }
};

template <class Real>
struct TileBlock {
  ElementType type = ElementType::Tri3;
  int order = 1;
  int n_element_nodes = 0;
  Index n_elements = 0;
  Index n_tiles = 0;
  int tile = 0;
  int max_nodes = 0;
  bool affine = false;                // every element a parallelogram or parallelepiped (simplices: true)
  bool per_slot = false;              // section and scale per slot; false: per tile (each tile uniform)
  DeviceArray<Index> node_offsets;    // n_tiles + 1, into nodes
  Index n_tile_nodes = 0;             // all tiles' nodes
  DeviceArray<Index> nodes;           // each tile's nodes, ascending (empty where node_steps are kept)
  DeviceArray<Index> first_nodes;     // on a GPU where every tile spans < 65536 node numbers: per tile
  DeviceArray<std::uint16_t> node_steps;  // its first node, per tile node its step from it
  DeviceArray<std::uint8_t> local;    // n_element_nodes x tile per tile: [tile][a][slot]
  DeviceArray<std::uint16_t> counts;  // per tile: its elements
  DeviceArray<std::uint16_t> incidence_ends;     // per tile node: where its incidences end (the
                                                 // previous node's end, or 0, is their start)
  DeviceArray<std::uint16_t> incidences;         // n_element_nodes x tile per tile: a x tile + slot
  DeviceArray<int> section;           // per slot (tile per tile) or per tile: the section
  DeviceArray<Real> scale;            // as section: stiffness factor x thickness
  // On a host Exec (empty on a GPU): the tiles in chunks of `chunk` consecutive tiles (chunk k: tiles
  // k x chunk to min((k + 1) x chunk, n_tiles)), a compact region in Morton order that one thread
  // computes tile after tile, its nodes in that core's cache; the chunks by colour, colour c's at
  // colour_chunks[colour_offsets[c] to colour_offsets[c + 1]), ascending; no two chunks of a colour
  // share a node (greedy, chunk by chunk: each takes the first colour none of its neighbours has).
  // Coloured tile by tile instead, each colour's pass over the whole mesh took every node's values
  // from memory again (tet4, 1.5M DOF on 2 threads: 57-65 ms a step against block CSR's 15-19).
  int chunk = 1;
  std::vector<Index> colour_offsets, colour_chunks;
  // On a host Exec, a block of triangles (empty otherwise): each slot's inverse Jacobian and det J
  // (dim^2 + 1 values in Real, computed in double), which the host's tiles read instead of
  // recomputing them from the coordinates every apply (TileView::geometry).
  std::vector<Real> geometry;
  // Per tile node (as nodes) its coordinates less its tile's centre, in Real: with kernel_coordinates,
  // and on a host Exec for every type but triangles (which keep their geometry above).
  DeviceArray<Real> coordinates;

  TileView<Real> view() const {
    return {n_tiles,
            tile,
            max_nodes,
            node_offsets.data(),
            nodes.size() > 0 ? nodes.data() : nullptr,
            first_nodes.data(),
            node_steps.data(),
            local.data(),
            incidence_ends.data(),
            incidences.data(),
            counts.data(),
            per_slot ? tile : 1,
            per_slot ? 1 : 0,
            section.data(),
            scale.data(),
            geometry.empty() ? nullptr : geometry.data(),
            coordinates.size() > 0 ? coordinates.data() : nullptr};
  }
};

// The elements per tile of a block of `type` by default, the sizes measured fastest
// (docs/benchmarks.md): for the GPU kernel (kernel_coordinates: a thread per element) 128; for the
// host's tiles 128 for hex8 (256 of them hold up to 400 nodes: cut at 256) and 256 for the others
// (tet4 on 2 threads at 1.5M DOF: 32-34 ms a step in float against 41-46 in tiles of 128).
int default_tile(ElementType type, bool kernel);
inline constexpr int max_tile = 256;
// Tiles per chunk of the host's colouring (TileBlock::chunk): 16 (a tet4 chunk's values about 100 KB,
// within a core's L2) where a block has 1,024 tiles or more, fewer down to 1 on smaller blocks, so
// that a colour holds chunks for several threads.
inline int host_chunk(Index n_tiles) { return static_cast<int>(std::clamp<Index>(n_tiles / 64, 1, 16)); }
inline constexpr int max_tile_nodes = 256;
inline constexpr Index max_tile_span = 0xffff;  // a tile's highest node less its lowest, where an element allows

template <class Real>
struct ElementTiles {
  // Tiles of the blocks of `elements` whose type `takes` (the others get an empty TileBlock, of
  // n_tiles 0), built on the host from a copy of the elements' arrays and uploaded to their Exec.
  // tile: elements per tile, 1 to max_tile (0: each block's default_tile). kernel_coordinates: each tile node's
  // coordinates relative to its tile (TileBlock::coordinates) for every type, which the GPU kernel
  // reads; without it, the host's tiles keep them for every type but triangles (their geometry).
  ElementTiles(const DeviceElements& elements, bool (*takes)(ElementType, int order), int tile = 0,
               bool kernel_coordinates = false);

  std::vector<TileBlock<Real>> blocks;  // as elements.blocks
  DeviceArray<Real> D;                  // per section, material_stride values in Real
  DeviceArray<int> law;                 // per section: its LawKind

  MaterialView<Real> material() const { return {D.data(), law.data()}; }
  // Memory held by all arrays.
  std::size_t bytes() const;
  // The global adds of one apply per element (sum of tiles' nodes over elements): 1 is one per node
  // and element, n_element_nodes is what a kernel without tiles does.
  double nodes_per_element() const;
};

extern template struct ElementTiles<float>;
extern template struct ElementTiles<double>;

}  // namespace tremor::fem
