#pragma once
// Cracks: zero-volume cuts, the defects arrays look for (docs/model-file.md). A crack is a segment
// in 2D (its two ends) and a planar polygon in 3D (its vertices in order), or a named surface of the
// mesh (a Gmsh physical group, an Abaqus *SURFACE) whose faces lie inside the part, any shape. It
// is cut into a conforming mesh along element faces: the interior faces that lie on it become two faces, one of
// each element, by giving the elements on one side their own copies of the nodes on it. A node is
// copied where the crack's faces separate the elements around it (the elements that share a face
// through the node, not a crack face, stay together): so a node inside the crack, or on its mouth
// where it reaches the mesh's boundary, is split in two, and a node of its front (the tip, inside
// the mesh) stays one, as it must for the crack to close there. The copies keep the original's
// coordinates and sets and take new labels after the mesh's largest.
//
// What is refused, and why: a surface that is not the mesh's, or one of whose faces lies on the
// mesh's boundary (a crack lies inside the part; its mouth is where it meets the boundary); a crack
// whose faces do not cover it (it runs through elements, not
// along their faces, or leaves the mesh: a crack is cut where elements conform to it; refine the
// mesh so that its faces lie on the crack, or read a mesh with the crack's surface), a 3D polygon
// that is not planar, and cracks that cross or touch (their node splits would not be a crack's).
#include <array>
#include <span>
#include <string>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor {

struct Crack {
  std::string name;                             // its faces' surface, both sides
  std::vector<std::array<double, 3>> points;    // 2D: the segment's ends (z = 0); 3D: the polygon's vertices
  std::string surface;                          // or the mesh's surface it opens (points empty)
  std::string origin;                           // "file:line"
  // Its shape, for outlines: its points as one piece, or (a surface's) each face's corners, a
  // segment in 2D and triangles in 3D (a quadrilateral face in two). Filled by cut_cracks.
  std::vector<std::vector<std::array<double, 3>>> pieces;
  // What cutting did: the faces on it (one side's count; the surface holds both) and the nodes
  // copied.
  Index faces = 0;
  Index copied_nodes = 0;

  // Whether point x (m; z = 0 in 2D) lies within `tol` (m) of the crack's pieces (its points
  // where it has none), in a mesh of `dim`: an image's outline of it. Throws as cut_cracks does
  // for a piece that is not a segment or a planar polygon.
  bool near(const std::array<double, 3>& x, int dim, double tol) const;
};

// Cuts `cracks` into `mesh` (filling each's faces, copied_nodes and pieces). Throws tremor::Error
// naming the crack's origin for what the header says is refused, for a crack of zero length or
// area, and for a name the mesh has as a surface already (other than the surface it opens: that
// surface then holds both sides).
void cut_cracks(Mesh& mesh, std::span<Crack> cracks);

}  // namespace tremor
