#pragma once
// Element faces: the sides (edges of 2D elements, faces of 3D ones) on which surface loads act.
//
// A face is named by its element's global index and a local face number. Local numbers follow
// the Abaqus/CalculiX surface identifiers S1, S2, ... minus one (Abaqus Analysis User's Guide,
// "Solid (continuum) elements"; CalculiX manual, "*DLOAD"), and the GLL types number like their
// order-1 counterparts:
//   triangles       0: 01, 1: 12, 2: 20
//   quadrilaterals  0: 01, 1: 12, 2: 23, 3: 30
//   tetrahedra      0: 012, 1: 013, 2: 123, 3: 023
//   hexahedra       0: 0123 (z = -1), 1: 4567 (z = +1), 2: 0154 (y = -1), 3: 1265 (x = +1),
//                   4: 2376 (y = +1), 5: 3047 (x = -1)
// (vertex numbers of element_type.hpp). face_nodes() lists a face's nodes in the node ordering
// of its own type, oriented so that the outward normal follows from the face's parametrisation
// x(xi): in 2D the element lies to the left of the edge walked from its node 0 to node 1, so
// n = (dx/dxi_y, -dx/dxi_x) / |.|; in 3D the vertices turn counter-clockwise seen from outside,
// so n = (dx/dxi_1 x dx/dxi_2) / |.|.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/element_type.hpp"

namespace tremor {

class Mesh;

// The types of faces, with their node orderings: lines from end to end (line3: ends, then the
// middle; GLL lines: the P + 1 GLL points in order), triangles and quadrilaterals as the 2D
// element types of the same names (element_type.hpp).
enum class FaceType : std::uint8_t { Line2, Line3, LineGLL, Tri3, Tri6, Quad4, Quad8, QuadGLL };

// One face of one element.
struct Face {
  Index element = 0;  // global element index
  int face = 0;       // local face number, 0 .. n_faces(type) - 1

  friend bool operator==(const Face&, const Face&) = default;
  friend bool operator<(const Face& a, const Face& b) {
    return a.element < b.element || (a.element == b.element && a.face < b.face);
  }
};

// Largest number of nodes on one face (a face of an order-8 GLL hexahedron).
constexpr int max_face_nodes = (max_gll_order + 1) * (max_gll_order + 1);

int n_faces(ElementType type);
// The type of every face of `type` (the GLL order carries over to GLL faces).
FaceType face_type(ElementType type);
// Parametric dimension of a face: 1 for lines, 2 for triangles and quadrilaterals.
int face_dimension(FaceType type);
int nodes_per_face(FaceType type, int order = 1);
// Corner nodes of a face: 2, 3 or 4; they come first in face_nodes() except for GLL faces.
int vertices_per_face(FaceType type);
// "line2", "line3", "line-gll4", "tri3", ..., "quad-gll4".
std::string face_type_name(FaceType type, int order = 1);

// Local node numbers (positions in the element's connectivity) of face `face`, in the face type's
// node ordering and orientation; `local` must hold nodes_per_face() entries. Returns their count.
// Throws tremor::Error for a face number out of range.
int face_nodes(ElementType type, int order, int face, int* local);
// The corner nodes alone, in the same orientation (positions in the element's connectivity).
int face_vertices(ElementType type, int order, int face, int* local);

// Sorts and removes duplicates (the invariant of face sets).
void normalise_faces(std::vector<Face>& faces);

// Finds faces by their corner nodes, whatever order those are given in. Built once per mesh:
// O(faces log faces) time, 24 bytes per face indexed.
class FaceIndex {
 public:
  // With `corners` (one flag per mesh node), only the faces whose corner nodes are all flagged are
  // indexed, which bounds the memory by the region of interest; find() and boundary() are exact
  // for those faces (any face with the same corners is flagged too).
  explicit FaceIndex(const Mesh& mesh, const std::vector<bool>* corners = nullptr);
  // Every face whose corner nodes (mesh node indices) are exactly `corners`: none, one (a boundary
  // face) or two (an interior face, once per element), by increasing element.
  std::vector<Face> find(std::span<const Index> corners) const;
  // Faces that belong to one element only (the boundary of the mesh), sorted.
  std::vector<Face> boundary() const;
  // Faces that two elements share, each pair once (by increasing element within a pair), in the
  // order of their corner nodes.
  std::vector<std::array<Face, 2>> shared() const;

 private:
  using Key = std::array<Index, 4>;  // sorted corner nodes, -1 padded
  static Key key_of(std::span<const Index> corners);
  std::vector<std::pair<Key, Face>> entries_;  // sorted by key, then face
};

// The boundary faces of `mesh` (shorthand for FaceIndex(mesh).boundary()).
std::vector<Face> boundary_faces(const Mesh& mesh);

// The nodes of `faces` (mesh node indices: every node of each face, face_nodes()), ascending, once.
std::vector<Index> nodes_of_faces(const Mesh& mesh, std::span<const Face> faces);

// A face's centre (the mean of its corners) and its outward normal times its area (3D, Newell's
// vector of its corners) or length (2D, (dy, -dx) of its ends), from the corners' orientation:
// exact for flat faces, z = 0 in 2D.
struct FacePlane {
  std::array<double, 3> centre{0.0, 0.0, 0.0};
  std::array<double, 3> normal{0.0, 0.0, 0.0};
};
FacePlane face_plane(const Mesh& mesh, const Face& face);

// The interface between two regions of a conforming mesh: the elements flagged in `inside` (one
// flag per global element: a fluid's, say) and the others. `faces`: each face an inside element
// shares with an outside one, as {the inside element's face, the outside element's}, sorted. The
// nodes of both regions that lie on no such face, each with an element of either side, are where
// they touch at an edge or a corner only (`touching`: the caller refuses them, naming both
// elements). Regions that meet without sharing nodes (a non-conforming interface, or duplicated
// nodes) share no face here.
struct RegionInterface {
  struct Touch {
    Index node = 0, inside = 0, outside = 0;  // a node, and a global element on each side
  };
  std::vector<std::array<Face, 2>> faces;
  std::vector<Touch> touching;
};
RegionInterface region_interface(const Mesh& mesh, const std::vector<bool>& inside);

}  // namespace tremor
