#pragma once
// Gmsh element types as the MSH reader needs them: node count and dimension of every type the
// reader can parse, and for the types tremor supports, where each tremor node sits in Gmsh's
// node list. Private to io/gmsh.cpp (and its tests).
#include <span>
#include <string>

#include "tremor/mesh/element_type.hpp"

namespace tremor::io::gmsh_detail {

struct GmshElementType {
  int code = 0;              // Gmsh's element type number
  const char* name = "";     // as Gmsh's documentation names it, for messages
  int dim = 0;               // 0 point, 1 line, 2 surface, 3 volume
  int n_nodes = 0;
  bool supported = false;    // becomes a tremor element when of the mesh's dimension
  ElementType type = ElementType::Tri3;
  int order = 1;             // GLL order for QuadGLL/HexGLL
};

// The type with Gmsh number `code`, or nullptr when the reader does not know it (its node count,
// and so the layout of the element data, is then unknown).
const GmshElementType* find_gmsh_element_type(int code);

// For a supported type: entry i is the position in Gmsh's node list of tremor's node i. Derived
// by matching the reference coordinates of both orderings, so the tables below stay a plain
// transcription of each documentation.
std::span<const int> gmsh_to_tremor_order(int code);

// "tri3 (2), quad4 (3), ..." for messages.
std::string supported_gmsh_types();

}  // namespace tremor::io::gmsh_detail
