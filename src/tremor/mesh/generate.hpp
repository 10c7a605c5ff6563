#pragma once
// Structured meshes of a rectangle (2D) or a box (3D), for tests, examples and model files.
//
// The domain [origin, origin + size] is cut into divisions[d] cells along each axis d. With a
// grading g != 1 along an axis, successive cell sizes grow geometrically: h[i+1] = g * h[i]
// (g > 1 refines towards the lower end, g < 1 towards the upper end), the sizes summing to the
// length. Each cell becomes one quadrilateral or hexahedron, two triangles (split along its
// diagonal from the lowest to the highest corner) or six tetrahedra (Kuhn's subdivision: every
// cell is split along its main diagonal, so neighbouring cells cut their shared face along the
// same diagonal and the mesh is conforming). Every element has positive area or volume in
// tremor's node ordering (element_type.hpp). Mid-edge nodes lie at edge midpoints and GLL nodes
// at the Gauss-Lobatto-Legendre points of each cell; nodes on a shared edge or face are shared.
//
// Nodes are numbered lexicographically (x fastest, then y, then z) and labelled from 1; elements
// are numbered cell by cell in the same order, also labelled from 1. Sets: element set "all";
// node sets "xmin", "xmax", "ymin", "ymax" (and "zmin", "zmax" in 3D) with the nodes on each side
// of the domain, and surfaces (face sets) of the same names with the element faces on it.
#include <array>
#include <limits>

#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor {

// The generators refuse (tremor::Error naming the counts), before allocating anything, a mesh
// whose degrees of freedom (nodes x dimension), elements or connectivity entries (elements x
// nodes per element) exceed their `limit`: by default 2^31 - 1, what Index can address; callers
// with a smaller memory budget (the fuzz targets) pass a lower one (1 or more).
inline constexpr Size max_generated = std::numeric_limits<Index>::max();

// tri3, tri6, quad4, quad8 or quad-gllP; `order` is the GLL order P (1..8) and ignored otherwise.
Mesh generate_rectangle(const std::array<double, 2>& origin, const std::array<double, 2>& size,
                        const std::array<Size, 2>& divisions, ElementType type, int order = 1,
                        const std::array<double, 2>& grading = {1.0, 1.0}, Size limit = max_generated);

// tet4, tet10, hex8, hex20 or hex-gllP.
Mesh generate_box(const std::array<double, 3>& origin, const std::array<double, 3>& size,
                  const std::array<Size, 3>& divisions, ElementType type, int order = 1,
                  const std::array<double, 3>& grading = {1.0, 1.0, 1.0}, Size limit = max_generated);

}  // namespace tremor
