#pragma once
// Holes and notches, the reference reflectors of ultrasonic testing, cut from a mesh by removing
// the elements whose centroids lie inside them; the faces the remaining elements had against the
// removed ones become the cavity's wall, the surface `name`. The wall follows the elements,
// stair-stepped at their size: a cavity a few elements across scatters as its true shape does to
// within the element size (docs/model-file.md). Nodes that no element keeps are dropped and the
// rest renumbered in order, their labels kept; node, element and face sets follow.
//
//   side-drilled: a cylinder of `radius` about the line through `centre` along `axis` in 3D (a
//     hole drilled through the part), a disc in 2D; it lies inside the part.
//   flat-bottom: a cylinder of `radius` (a slot of width 2 radius in 2D) from its flat bottom,
//     centred on `centre`, along `axis` out of the part: drilled from the surface it opens on.
//   notch: a slot of `width` (and in 3D of `length` along `along`) from its flat end at `centre`
//     along `axis` out of the part, breaking its surface: a saw cut, an EDM notch.
// A flat-bottom hole or a notch runs from its bottom to the first surface it meets: of the elements
// inside its shape, those reached from the one nearest its bottom through shared faces (not on
// across a bore to the far wall).
#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor {

struct Hole {
  enum class Kind { side_drilled, flat_bottom, notch };
  Kind kind = Kind::side_drilled;
  std::string name;                            // its wall's surface
  // side-drilled: a point of its axis; flat-bottom: its bottom's centre; notch: its end's centre.
  std::array<double, 3> centre{0.0, 0.0, 0.0};  // m (z = 0 in 2D)
  // Unit. side-drilled (3D): along the hole; flat-bottom and notch: from the bottom out of the part.
  std::array<double, 3> axis{0.0, 0.0, 1.0};
  double radius = 0.0;                          // m: side-drilled and flat-bottom
  double width = 0.0;                           // m: a notch's, across it
  double length = 0.0;                          // m: a 3D notch's, along `along`
  std::array<double, 3> along{0.0, 0.0, 0.0};   // a 3D notch's: unit, at right angles to `axis`
  std::string origin;                           // "file:line"
  // What drilling did: elements removed, and its wall's faces.
  Index removed = 0;
  Index wall_faces = 0;

  // Whether point x (m; z = 0 in 2D) lies in the cavity: its shape above, for the `dim` of the mesh.
  bool contains(const std::array<double, 3>& x, int dim) const;
  // "side-drilled hole", "flat-bottom hole", "notch".
  const char* kind_name() const;
};

// Drills `holes` into `mesh` (filling each's removed and wall_faces). Throws tremor::Error naming
// the hole's origin: a radius, width or length not positive and finite, an axis of zero length (a
// 3D notch's `along` not at right angles to it), a hole that holds no element's centroid (too small
// for the mesh: refine it), a side-drilled hole that reaches the mesh's boundary (it would be a
// notch) or a flat-bottom hole or notch that does not (it would be inside the part: it must open on
// a surface), a wall's name the mesh has already as a surface or another hole has, holes that
// overlap (removing an element twice).
void drill_holes(Mesh& mesh, std::span<Hole> holes);

}  // namespace tremor
