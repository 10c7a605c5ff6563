#pragma once
// The boundary mesh of the boundary-element solver: what it reads, generates and checks before any
// integral is computed. Host side, SI units (metres).
//
// Orientation: each element's vertices turn counter-clockwise seen from the side its normal points
// to, n = (x1 - x0) x (x2 - x0) / |.| for a triangle and dx/dxi x dx/deta / |.| for a bilinear
// quadrilateral. The normal points OUT OF THE SOLID, away from the material, for closed and open
// meshes alike: outward on the surface of a body (the solid inside), into the hole on the wall of
// a cavity (the solid outside), upward (+z) on the free surface of a half-space below z = 0.
// check_boundary_mesh() tells a mesh that breaks this from one that keeps it.
#include <array>
#include <map>
#include <string>
#include <vector>

#include "tremor/core/config.hpp"

namespace tremor {
class Mesh;
}

namespace tremor::bem {

// A surface mesh of triangles and quadrilaterals in 3D, straight-sided (3 and 4 nodes) or curved of
// the second order (6-node triangles, 8-node serendipity and 9-node Lagrange quadrilaterals).
// Vertices are ordered counter-clockwise seen from the side the normal points to; the normal points
// OUT OF THE SOLID (away from the material), for closed and open meshes alike. A mesh is all
// straight-sided or all second-order.
struct BoundaryMesh {
  std::vector<double> coordinates;   // x, y, z per node
  std::vector<Index> connectivity;   // 4 entries per element, the vertices; a triangle's 4th entry is -1
  // Second-order meshes: 5 entries per element, the mid-edge nodes (edges 01, 12, 20 of a
  // triangle, 01, 12, 23, 30 of a quadrilateral) then a 9-node quadrilateral's centre, -1 where
  // absent (a triangle's 4th and 5th, an 8-node quadrilateral's 5th). Empty for straight sides.
  std::vector<Index> mid_nodes;
  std::vector<Index> node_labels;    // the file's labels (generated meshes: 1-based), for messages
  std::vector<Index> element_labels;
  std::map<std::string, std::vector<Index>> element_sets;  // named groups of elements (0-based)
  std::string source;                // the file's path, or the generator and its parameters

  Index n_nodes() const;
  Index n_elements() const;
  int n_vertices(Index e) const;     // 3 or 4
  bool quadratic() const { return !mid_nodes.empty(); }
  int n_geometry_nodes(Index e) const;  // 3, 4; 6, 8, 9
};

inline Index BoundaryMesh::n_nodes() const { return static_cast<Index>(coordinates.size() / 3); }
inline Index BoundaryMesh::n_elements() const { return static_cast<Index>(connectivity.size() / 4); }
inline int BoundaryMesh::n_vertices(Index e) const { return connectivity[4 * static_cast<std::size_t>(e) + 3] < 0 ? 3 : 4; }
inline int BoundaryMesh::n_geometry_nodes(Index e) const {
  const int n = n_vertices(e);
  if (mid_nodes.empty()) return n;
  return 2 * n + (mid_nodes[5 * static_cast<std::size_t>(e) + 4] >= 0 ? 1 : 0);
}

// ---- Reading --------------------------------------------------------------------------------

// The surface mesh `mesh` (3D, io::read_gmsh_surface: Tri3 and Quad4 blocks, or Tri6, Quad8 and
// QuadGLL of order 2 for 9-node quadrilaterals) as a BoundaryMesh: blocks flattened in order (so
// element indices, and the element sets, are the Mesh's global indices), labels and element sets
// kept. `source` names it in messages. Throws for a 2D mesh, other element types, straight-sided
// and second-order elements mixed (naming one of each) and labels beyond Index's range.
BoundaryMesh boundary_mesh(const Mesh& mesh, std::string source);


// ---- Geometry -------------------------------------------------------------------------------
// These trust the mesh's indices: call them on a mesh check_boundary_mesh() has accepted.

// The geometry of one element, from its nodes.
struct ElementGeometry {
  std::array<double, 3> centroid{};  // image of the reference centre: tri (1/3, 1/3), quad (0, 0)
  std::array<double, 3> normal{};    // unit normal at the centroid; zero for a degenerate element
  double area = 0.0;                 // exact for flat triangles and quadrilaterals (2x2 Gauss), 4x4 Gauss when curved
  double diameter = 0.0;             // largest distance between two of its nodes
};

ElementGeometry element_geometry(const BoundaryMesh& mesh, Index e);

// The volume the mesh encloses, (1/3) sum of the integrals of x.n over the elements (divergence
// theorem), each straight-sided quadrilateral taken as its triangles 012 and 023 (exact for flat
// elements), each curved element by 4x4 Gauss (exact: x.j is a polynomial of degree 3 in s and t).
// Positive for a closed mesh whose normals point outward (a body), negative for one whose
// normals point inward (a cavity); for an open mesh it depends on the origin and means nothing.
double signed_volume(const BoundaryMesh& mesh);

// Axis-aligned bounding box of the nodes (all zero for a mesh without nodes).
struct BoundingBox {
  std::array<double, 3> lower{};
  std::array<double, 3> upper{};
  double diagonal() const;
};

BoundingBox bounding_box(const BoundaryMesh& mesh);

// ---- Checks ---------------------------------------------------------------------------------

// Where the solid lies, as the caller states it: inside a closed mesh (a body, a foundation
// block: normals outward, signed volume > 0), outside a closed mesh (a cavity, a tunnel: normals
// inward, signed volume < 0), or on one side of an open mesh (a half-space's free surface: the
// orientation of each element is all there is to check).
enum class Solid { Inside, Outside, Open };

struct MeshReport {
  Index n_nodes = 0;
  Index n_elements = 0;
  Index n_triangles = 0;
  Index n_quadrilaterals = 0;
  Index n_edges = 0;           // distinct edges
  Index n_boundary_edges = 0;  // edges of one element only: the rim of an open mesh
  bool closed = false;         // every edge shared by exactly two elements
  double area = 0.0;           // total, as element_geometry() integrates it
  double signed_volume = 0.0;  // signed_volume(); meaningful when closed
  double min_diameter = 0.0;   // smallest and largest element diameters
  double max_diameter = 0.0;
  BoundingBox box;
};

// Checks the mesh and describes it. Throws tremor::Error, naming `mesh.source` and the node and
// element labels involved, for:
//  - inconsistent arrays (sizes, node indices out of range, set members out of range) and
//    coordinates that are not finite;
//  - duplicate nodes: distinct nodes closer than 1e-9 x the bounding-box diagonal;
//  - degenerate elements: a vertex repeated, area below 1e-12 x diameter^2, or a quadrilateral
//    folded or concave (a corner turning against its normal);
//  - second-order elements: a mid-edge node further than a quarter of its edge's length from the
//    edge's midpoint (a 9-node quadrilateral's centre: a quarter of its diameter from the 8-node
//    element's centre), a surface folded within the element (dx/ds x dx/dt turning against the
//    normal at its centre at one of 4 x 4 sample points), and neighbours sharing an edge's
//    vertices but not its mid-edge node (a mesh that is not conforming);
//  - non-manifold edges (shared by more than two elements);
//  - inconsistent orientation: two elements running a shared edge in the same direction.
// Nodes no element uses are reported with a warning (tremor's log). Runs in time linear in the
// mesh size (hashing, no pairwise search).
MeshReport check_boundary_mesh(const BoundaryMesh& mesh);

// The same, then checks the orientation against where the caller says the solid lies: a closed
// mesh must have signed volume > 0 for Solid::Inside and < 0 for Solid::Outside (each an error
// saying to flip the orientation otherwise, or to declare the other side), Inside and Outside
// require a closed mesh, and a closed mesh declared Open gets a warning.
MeshReport check_boundary_mesh(const BoundaryMesh& mesh, Solid solid);

// The resolution of the mesh against the shortest wave it must carry: elements per shear
// wavelength, lambda_s / diameter, at the element with the largest diameter, and the points per
// wavelength they give (the intervals between a field's nodes: one per element for constant and
// linear elements, two for quadratic ones).
struct WavelengthReport {
  Index element = -1;                    // the worst element (0-based)
  Index label = 0;                       // and its label
  double diameter = 0.0;                 // its diameter
  double elements_per_wavelength = 0.0;  // shear_wavelength / diameter
  double points_per_wavelength = 0.0;    // elements_per_wavelength x the intervals per element
  bool sufficient = true;                // elements_per_wavelength >= the minimum asked for
  std::string message;                   // when not sufficient: what to warn, naming the element
};

// `shear_wavelength` = c_s / f for the highest frequency solved; `min_per_wavelength` is the
// caller's requirement in elements (linear elements commonly need 6 to 10, quadratic ones 3 to 5);
// `intervals` is 2 for quadratic elements, else 1. Returns the report; the caller decides whether
// to warn or refuse. Throws for inconsistent arrays as check_boundary_mesh does.
WavelengthReport check_wavelength(const BoundaryMesh& mesh, double shear_wavelength, double min_per_wavelength,
                                  int intervals = 1);

}  // namespace tremor::bem
