#pragma once
// Meshes that look unstructured to a partitioner, for tests and benchmarks of the GPU block
// layout (partition/): a mesher's output has irregular valences and a node numbering unrelated to
// any block structure, and these reproduce both, cheaply and deterministically from a seed.
//
// perturbed_triangles: the rectangle [0, size] cut into divisions[0] x divisions[1] cells, each
// cell split into two tri3 along one of its two diagonals chosen at random, so interior nodes have
// 4 to 8 edges (6 on average, as in a free mesh); interior nodes are moved by up to 0.15 of a cell
// size in each coordinate (every triangle keeps at least 40% of its area: the area is affine in each
// coordinate, so its minimum over the jitter box is at a corner of it, and the corners give 0.4).
//
// perturbed_tetrahedra: the box [0, size] cut into cells of six Kuhn tetrahedra each
// (generate_box), interior nodes moved by up to 0.1 of a cell size in each coordinate (every
// tetrahedron keeps at least 40% of its volume, by the same argument). The
// connectivity is structured: every interior node has the same 14 neighbours as in the regular
// grid. Only the geometry and the numbering are irregular; a free tetrahedral mesh has more
// varied valences (and more of them) than this.
//
// In both, nodes are numbered in a random order (labels 1..n follow the new numbering), so the
// numbering carries no locality. Elements keep the generator's cell order. Sets as
// generate_rectangle/generate_box give them: element set "all", node sets and surfaces "xmin",
// "xmax", "ymin", "ymax" (and "zmin", "zmax"); boundary nodes stay on their sides (only interior
// nodes move).
#include <array>
#include <cstdint>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor {

Mesh perturbed_triangles(const std::array<double, 2>& size, const std::array<Size, 2>& divisions,
                         std::uint64_t seed);

Mesh perturbed_tetrahedra(const std::array<double, 3>& size, const std::array<Size, 3>& divisions,
                          std::uint64_t seed);

}  // namespace tremor
