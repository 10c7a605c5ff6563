#pragma once
// The element types tremor knows. Node orderings are tremor's own and documented in
// docs/elements.md; readers map file orderings to them. Lagrange quad9 and hex27 are the GLL
// tensor elements of order 2 (the GLL points of order 2 are -1, 0, 1), so readers store them as
// QuadGLL/HexGLL with order 2 in lexicographic (tensor) order.
#include <cstdint>
#include <string>
#include <string_view>

#include "tremor/core/config.hpp"

namespace tremor {

enum class ElementType : std::uint8_t {
  Tri3,     // linear triangle, counter-clockwise vertices
  Tri6,     // quadratic triangle: vertices, then mid-edges 01, 12, 20
  Quad4,    // bilinear quadrilateral, counter-clockwise vertices
  Quad8,    // serendipity quadrilateral: vertices, then mid-edges 01, 12, 23, 30
  Tet4,     // linear tetrahedron, vertex 3 on the positive side of face 012
  Tet10,    // quadratic tetrahedron: vertices, then mid-edges 01, 12, 20, 03, 13, 23
  Hex8,     // trilinear hexahedron: bottom face 0123 counter-clockwise seen from above, top 4567
  Hex20,    // serendipity hexahedron: vertices, mid-edges 01,12,23,30, 45,56,67,74, 04,15,26,37
  QuadGLL,  // tensor-product Lagrange quadrilateral on GLL points, order 1..8, lexicographic (x fastest)
  HexGLL,   // tensor-product Lagrange hexahedron on GLL points, order 1..8, lexicographic (x fastest)
};

constexpr int max_gll_order = 8;

// Spatial dimension of the reference element (2 or 3).
TREMOR_HOST_DEVICE constexpr int dimension(ElementType type) {
  switch (type) {
    case ElementType::Tri3:
    case ElementType::Tri6:
    case ElementType::Quad4:
    case ElementType::Quad8:
    case ElementType::QuadGLL: return 2;
    default: return 3;
  }
}

// Nodes per element; `order` matters for the GLL types only.
TREMOR_HOST_DEVICE constexpr int nodes_per_element(ElementType type, int order = 1) {
  switch (type) {
    case ElementType::Tri3: return 3;
    case ElementType::Tri6: return 6;
    case ElementType::Quad4: return 4;
    case ElementType::Quad8: return 8;
    case ElementType::Tet4: return 4;
    case ElementType::Tet10: return 10;
    case ElementType::Hex8: return 8;
    case ElementType::Hex20: return 20;
    case ElementType::QuadGLL: return (order + 1) * (order + 1);
    case ElementType::HexGLL: return (order + 1) * (order + 1) * (order + 1);
  }
  return 0;
}

// Vertices (corner nodes) per element; corner nodes come first except for the GLL types.
TREMOR_HOST_DEVICE constexpr int vertices_per_element(ElementType type) {
  switch (type) {
    case ElementType::Tri3:
    case ElementType::Tri6: return 3;
    case ElementType::Quad4:
    case ElementType::Quad8:
    case ElementType::QuadGLL:
    case ElementType::Tet4:
    case ElementType::Tet10: return 4;
    default: return 8;
  }
}

TREMOR_HOST_DEVICE constexpr bool is_gll(ElementType type) {
  return type == ElementType::QuadGLL || type == ElementType::HexGLL;
}

// Polynomial order of the shape functions (complete degree for simplices, per direction otherwise).
TREMOR_HOST_DEVICE constexpr int polynomial_order(ElementType type, int order = 1) {
  switch (type) {
    case ElementType::Tri3:
    case ElementType::Quad4:
    case ElementType::Tet4:
    case ElementType::Hex8: return 1;
    case ElementType::QuadGLL:
    case ElementType::HexGLL: return order;
    default: return 2;
  }
}

// "tri3", ..., "hex20", "quad-gll3", "hex-gll5".
std::string element_name(ElementType type, int order = 1);
// Parses the names element_name() produces, plus "quad9"/"hex27" (GLL order 2); throws on others.
void parse_element_name(std::string_view name, ElementType& type, int& order);

}  // namespace tremor
