#pragma once
// The matrix-free operator's tiled kernel on the host (explicit/matrix_free.hpp): what a GPU block
// does for a tile, done by one host thread without emulating the GPU's threads. Per tile: its
// nodes' coordinates (the tile's own, relative to it, in Real) read and u gathered once, a row per node
// (its components padded to 2 or 4), while the next tile's nodes are prefetched; its elements in
// batches of one SIMD register's width (16 in float, 8 in double), each batch's element nodes' rows
// turned into one vector per node and component by vector loads and shuffles, K_e u_e of the batch
// computed by the GPU's arithmetic (fem::LinearEvaluation and fem::linear_stiffness_at, on a batch
// type whose operations act on every lane), turned back into rows by shuffles and added to the
// tile's nodes' rows of sums slot after slot (the order of a GPU tile's incidences: a node's sum
// takes its elements' forces one by one in the order of their slots, the same adds per component);
// then each tile node's sum added to ku with a plain add. A thread computes a chunk of neighbouring
// tiles one after the other; chunks run colour after colour (TileBlock's colours: a colour's chunks
// share no node), a colour's chunks in parallel on OpenMP: every entry of ku receives its tiles'
// sums in colour order and in tile order within a chunk, the same bits for any number of threads.
//
// The batch's arithmetic is compiled for AVX-512, AVX2 and the baseline, the one the CPU has taken
// at run time (GCC's target_clones): the build stays baseline x86-64. The bits differ between those
// (FMA contraction), not between runs or thread counts on one machine.
#include "tremor/backend/exec.hpp"
#include "tremor/fem/element_tiles.hpp"
#include "tremor/fem/laws.hpp"

namespace tremor::explicit_fe {

// ku += K u for the tiles of one block of linear elements, on a host exec (Serial or OpenMP).
template <class Real>
void add_tiles_on_host(const Exec& exec, const fem::TileBlock<Real>& tiles, const fem::MaterialView<Real>& material,
                       const Real* u, Real* ku);

extern template void add_tiles_on_host<float>(const Exec&, const fem::TileBlock<float>&,
                                              const fem::MaterialView<float>&, const float*, float*);
extern template void add_tiles_on_host<double>(const Exec&, const fem::TileBlock<double>&,
                                               const fem::MaterialView<double>&, const double*, double*);

}  // namespace tremor::explicit_fe
