#pragma once
// Element colouring: elements of one colour share no node, so a parallel loop over one colour can
// scatter-add into nodal arrays without races or atomics, and the sum at every node is taken in
// the same order (colour by colour) whatever the thread count: results are deterministic and
// equal bit for bit across Serial and OpenMP.
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor::fem {

struct ElementColouring {
  // Elements of each block grouped by colour: those of colour c in block b are
  // blocks[b].elements[offsets[c] .. offsets[c + 1]), indices within the block, ascending.
  struct Block {
    std::vector<Index> offsets;   // n_colours + 1
    std::vector<Index> elements;  // a permutation of 0 .. n_elements of the block
  };
  int n_colours = 0;
  std::vector<Block> blocks;
  std::vector<int> colour;  // per global element

  Index n_in(int block, int colour_index) const {
    const auto& offsets = blocks[static_cast<std::size_t>(block)].offsets;
    return offsets[static_cast<std::size_t>(colour_index) + 1] - offsets[static_cast<std::size_t>(colour_index)];
  }
  const Index* in(int block, int colour_index) const {
    const auto& b = blocks[static_cast<std::size_t>(block)];
    return b.elements.data() + b.offsets[static_cast<std::size_t>(colour_index)];
  }
};

// Greedy colouring in global element order: each element takes the smallest colour that no
// element sharing one of its nodes has taken. Deterministic (a function of the connectivity only).
// A structured quad/hex mesh needs 4/8 colours; unstructured tetrahedral meshes a few tens.
ElementColouring colour_elements(const Mesh& mesh);

// True when no two elements of the same colour share a node (for tests and debug checks).
bool is_valid_colouring(const Mesh& mesh, const ElementColouring& colouring);

}  // namespace tremor::fem
