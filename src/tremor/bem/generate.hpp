#pragma once
// Boundary meshes of simple shapes, for tests, verification against analytic solutions and
// examples. Each keeps the orientation convention of boundary_mesh.hpp (normals out of the solid)
// for the solid its comment names; flip_orientation() turns a body into a cavity.
//
// Nodes shared by elements are one node (no duplicates along cube edges or at corners); node and
// element labels run from 1 in index order; `source` names the generator and its parameters; the
// element set "all" holds every element. The generators refuse (tremor::Error) non-positive or
// non-finite sizes, divisions below 1 and meshes beyond mesh/generate.hpp's max_generated.
#include <array>
#include <optional>

#include "tremor/bem/boundary_mesh.hpp"
#include "tremor/core/config.hpp"

namespace tremor::bem {

// Quadrilaterals, or each quadrilateral cut into the triangles 012 and 023 (its diagonal from
// its first to its third vertex).
enum class ElementShape { Quadrilateral, Triangle };

// The generated elements: their shape, straight-sided (order 1) or of the second order (order 2:
// 6-node triangles, 9-node quadrilaterals or with `serendipity` 8-node ones), whose mid-edge and
// centre nodes lie on the true surface (a sphere's on the sphere). A second-order mesh of n
// divisions has the nodes of the straight-sided one of 2n, its cells' corners the vertices.
struct SurfaceElements {
  ElementShape shape = ElementShape::Quadrilateral;
  int order = 1;
  bool serendipity = false;
  SurfaceElements() = default;
  SurfaceElements(ElementShape s, int o = 1, bool eight = false) : shape(s), order(o), serendipity(eight) {}
};

// A sphere of `radius` centred at the origin, normals outward: the solid is inside (a body;
// flip_orientation() gives the cavity, the solid outside). The cube [-1, 1]^3 with `n` divisions
// per edge projected radially onto the sphere: 6 n^2 quadrilaterals (12 n^2 triangles) and
// 6 n^2 + 2 nodes, all on the sphere. The divisions are equiangular (a cube coordinate
// tan(pi/4 s) for s uniform in [-1, 1]), so element areas vary by less than a factor 1.5 where
// uniform divisions would give 5 (corner elements against those at face centres).
BoundaryMesh sphere(double radius, Index n, SurfaceElements elements = {});

// The surface of the box [-lx/2, lx/2] x [-ly/2, ly/2] x [-lz/2, lz/2], normals outward: the
// solid is inside. Faces normal to x carry ny x nz cells, normal to y nx x nz, normal to z nx x ny.
// Besides "all", element sets "xmin", "xmax", "ymin", "ymax", "zmin", "zmax" hold each face's
// elements.
BoundaryMesh box(double lx, double ly, double lz, Index nx, Index ny, Index nz, SurfaceElements elements = {});

// The free surface of a half-space, truncated: the rectangle [-lx/2, lx/2] x [-ly/2, ly/2] in the
// plane z = 0 with nx x ny cells, the solid below (z < 0), so normals +z. The mesh is open. With a
// foundation size (fx, fy), the elements whose centroid lies in |x| < fx/2, |y| < fy/2 form the
// element set "foundation" and the others "free" (choose nx, ny so that the foundation's edges
// fall on cell edges for a foundation of exactly that size); "all" holds every element. Nodes
// are numbered x fastest, then y (of the 2n x 2n lattice, for second-order elements).
BoundaryMesh halfspace_patch(double lx, double ly, Index nx, Index ny, SurfaceElements elements = {},
                             std::optional<std::array<double, 2>> foundation = std::nullopt);

// The free surface of a half-space around a circular foundation: the disc of `radius` centred at
// the origin in the plane z = 0, the solid below (normals +z), open. The foundation, the disc of
// radius `foundation` (< radius), is an O-grid: a square core of n x n cells and four blocks
// reaching its rim, n cells along and ceil(n / 2) across each, so 4n cells meet the rim. Outside
// it rings of cells reach `radius`: each ring's radial size grows by 1.25 from the rim's cell size
// (2 pi foundation / 4n) up to `max_cell`, all scaled down together so the last ends on the
// circle, and the cells around double where a cell would grow wider at its ring's middle than 1.6
// x its radial size, so cells stay between about 0.8 and 1.6 times as wide as deep. Where they
// double, a cell's outer edge meets the inner edges of two: no node is shared along it (the
// boundary elements' fields are discontinuous, so this costs nothing; those edges count among
// the open mesh's rim edges). Second order: every node on the polar map of its ring (circles and
// radii) or on the blend of the core's edge and the rim's arc, so the rim and the outer edge are
// true circles. Element sets "foundation" (core and blocks) and "free" (the rings) besides "all".
BoundaryMesh halfspace_disc(double radius, double foundation, Index n, double max_cell, SurfaceElements elements = {});

// Reverses every element's vertex order (0123 -> 0321, 012 -> 021, the mid-edge nodes with their
// edges), so every normal flips: a body becomes a cavity and the solid below a surface moves
// above it.
void flip_orientation(BoundaryMesh& mesh);

}  // namespace tremor::bem
