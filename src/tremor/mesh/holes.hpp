#pragma once
// Side-drilled holes, the reference reflectors of ultrasonic testing: a cylinder of `radius`
// about the line through `centre` along `axis` in 3D (a hole drilled through the part), a disc in
// 2D. A hole is cut from the mesh by removing the elements whose centroids lie inside it; the
// faces the remaining elements had against the removed ones become the hole's wall, the surface
// `name`. The wall follows the elements, stair-stepped at their size: a hole a few elements across
// scatters as a hole of its radius does to within the element size (docs/model-file.md). Nodes
// that no element keeps are dropped and the rest renumbered in order, their labels kept; node,
// element and face sets follow.
#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor {

struct Hole {
  std::string name;                            // its wall's surface
  std::array<double, 3> centre{0.0, 0.0, 0.0};  // m (z = 0 in 2D)
  std::array<double, 3> axis{0.0, 0.0, 1.0};    // 3D: unit, along the hole
  double radius = 0.0;                          // m
  std::string origin;                           // "file:line"
  // What drilling did: elements removed, and its wall's faces.
  Index removed = 0;
  Index wall_faces = 0;
};

// Drills `holes` into `mesh` (filling each's removed and wall_faces). Throws tremor::Error naming
// the hole's origin: a radius not positive and finite, an axis of zero length, a hole that holds
// no element's centroid (too small for the mesh: refine it), one that reaches the mesh's boundary
// (it would be a notch, not a hole), a wall's name the mesh has already as a surface, holes that
// overlap (removing an element twice).
void drill_holes(Mesh& mesh, std::span<Hole> holes);

}  // namespace tremor
