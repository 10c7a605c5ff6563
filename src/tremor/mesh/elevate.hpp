#pragma once
// Order elevation: a mesh of hexahedra (quadrilaterals in 2D) becomes a conforming mesh of GLL
// elements of order P, HexGLL / QuadGLL (docs/elements.md, "Order elevation"). This is the
// conversion of the multi-GPU spectral-element paper (../shared/papers/multigpu-spectral-elements.txt,
// sections 2 and 3.1: 8-node bricks meshed elsewhere become 125-node GLL elements whose edge and
// face nodes neighbouring elements share), for any P = 1..8 and for curved input.
//
// Input: hex8, hex20, hex-gllQ (hex27 is hex-gll2) in 3D; quad4, quad8, quad-gllQ (quad9) in 2D;
// several blocks of these may mix. Each element's geometry is the map of its own nodes (trilinear,
// serendipity quadratic, or the tensor Lagrange map of order Q), and the new nodes sit at its
// image of the GLL points of order P, so curved elements stay curved.
//
// Numbering (the same on every machine: it depends on the input's numbering alone):
// * Input nodes that are an element corner keep their order, index and label, and come first; so
//   do nodes no element uses. Nodes that only sit inside an edge, face or element of the input
//   (mid-edge nodes of hex20, the GLL points of hex-gllQ) are dropped. With hex8/quad4 input every
//   node keeps its index.
// * New nodes follow, labelled from the largest input label + 1 in the order they are created:
//   elements in global order, each element's GLL points in lexicographic order; the nodes of an
//   edge or face are created together by the first element that meets it. An edge's nodes run
//   from its smaller corner index to its larger; a face's from its smallest corner towards the
//   smaller of that corner's two neighbours, then across. Both depend only on the corners' indices,
//   so every element sharing the edge or face finds the same nodes whatever its local orientation.
// * Elements keep their global order and labels, in one block (HexGLL or QuadGLL of order P);
//   element sets and surfaces (faces keep their numbers) carry over unchanged.
// * Node sets follow map_nodes().
//
// Refused with a tremor::Error naming `source`, the block and the element label: other element
// types, P outside 1..8, and an element whose det J is not positive at one of the GLL points of
// order P (det J |ref| <= 1e-10 L^d, L its longest corner-to-corner distance: fem::check_geometry's
// threshold). The check lives here rather than in fem/ because this is where the map is
// evaluated: the new nodes and det J come from the same interpolation, mesh/ may not include fem/,
// and an element that folds at a GLL point must be refused before its nodes are numbered.
#include <array>
#include <span>
#include <string_view>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor {

class OrderElevation {
 public:
  // Where an input element type's nodes sit: the grid of order `order` (1 for hex8, 2 for hex20,
  // Q for hex-gllQ) on which its geometry is a tensor Lagrange map, each local node's grid point,
  // and the local node at each corner (x bit 0, y bit 1, z bit 2).
  struct Layout {
    int order = 1;
    bool serendipity = false;  // hex20, quad8: the face and cell centres are not nodes
    std::vector<std::array<int, 3>> grid;
    std::array<int, 8> corner{};
  };

  // The layout of `mesh`'s block `block` (hex8, hex20, hex-gllQ, quad4, quad8, quad-gllQ);
  // throws naming `source` for other types.
  static Layout layout(const Mesh& mesh, int block, std::string_view source);
  // Where grid coordinate i of a layout lies on [0, 1]: i / order, or the GLL point of the order
  // for GLL types.
  static std::vector<double> grid_positions(ElementType type, int order);

  // Elevates `input` (validated) to order `order`; throws as above, naming `source`.
  OrderElevation(const Mesh& input, int order, std::string_view source);

  // The elevated mesh, with the input's element sets and surfaces and its node sets mapped.
  const Mesh& mesh() const { return mesh_; }
  Mesh take_mesh() { return std::move(mesh_); }

  // A node set of the input in the elevated numbering, sorted and unique. Each node that stays
  // stays in it. Where the set holds every input node of an edge, a face or an element (corners
  // and, for quadratic or GLL input, the nodes on it), the new nodes of that edge, face or element
  // join it: a set of whole faces (a boundary) takes the GLL nodes of those faces, a set of whole
  // elements (a region) takes their interior nodes too, a single node stays that node. A dropped
  // input node the set holds outside such an edge, face or element becomes the elevated node
  // nearest to it on the reference element of the first element holding it (the same point when P
  // is even and it was a mid-edge node).
  std::vector<Index> map_nodes(std::span<const Index> nodes) const;

 private:
  void map_covered(const std::vector<char>& in_set, std::vector<char>& covered, std::vector<Index>& out) const;

  Mesh mesh_;
  int order_ = 1;
  Index n_input_nodes_ = 0;
  std::vector<Index> kept_;  // per input node: its elevated index, -1 when dropped
  std::vector<ElementBlock> input_blocks_;  // the input's connectivity, for map_nodes()
  std::vector<Layout> layouts_;  // per input block
};

// The elevated mesh alone (node sets mapped by OrderElevation::map_nodes).
Mesh elevate_order(const Mesh& mesh, int order, std::string_view source);

}  // namespace tremor
