#pragma once
// Gmsh MSH 4.1 reader, ASCII and binary.
#include <string>
#include <string_view>

#include "tremor/mesh/mesh.hpp"

namespace tremor::io {

// Reads the mesh in `path`.
//
// Elements of the highest dimension present form the mesh (tri3, tri6, quad4, quad8, quad9 in 2D;
// tet4, tet10, hex8, hex20, hex27 in 3D); Gmsh node orderings are mapped to tremor's, quad9 and
// hex27 becoming GLL elements of order 2 (docs/elements.md). Lower-dimensional elements (faces,
// lines, points) only contribute to node sets and surfaces. A mesh whose elements are all 2D is
// returned as a 2D mesh (it must lie in a plane z = const; a surface in 3D is read with
// read_gmsh_surface). Node and element labels are Gmsh's tags; nodes no mesh element uses are
// dropped.
//
// Each physical group becomes a node set (the nodes of its elements, whatever their dimension) and,
// for groups of the mesh's dimension, an element set, both named by the group's $PhysicalNames
// name, or "physical<tag>" when unnamed ("physical<tag>_dim<d>" when unnamed groups of different
// dimensions share the tag). Groups that share a name share one set. When no element belongs to
// a physical group of the mesh's dimension, an element set "all" holds every element. Groups of
// dimension one less (lines of a 2D mesh, surfaces of a 3D one) also become surfaces (face sets,
// mesh/faces.hpp) of the same names: each of their elements is matched by its corner nodes to a
// face of a mesh element (on an interior face, of the first element sharing it), and one that is
// no such face is an error naming its tag. Physical groups of partitioned meshes
// ($PartitionedEntities) are read the same way.
//
// Sections tremor does not use are skipped ($Periodic and unknown ones with a warning). Errors
// name the file and the line (ASCII) or byte offset (binary) and say what was expected.
Mesh read_gmsh(const std::string& path);
// The same from bytes in memory; `name` stands for the file in messages.
Mesh read_gmsh_buffer(std::string_view bytes, const std::string& name);

// Reads the boundary surface in `path` for the boundary-element solver (bem/boundary_mesh.hpp):
// a Mesh(3) whose blocks are Tri3 and Quad4, or of a second-order mesh Tri6, Quad8 and QuadGLL of
// order 2 (quad9), the 2D elements of a surface in 3D (not required to be planar), in the
// orientation the file gives them (Gmsh's node order is tremor's, quad9 as read_gmsh maps it).
// Volume elements are an error (a boundary-element mesh holds surface elements only), and so are
// other surface elements (third order and above, incomplete ones), the message naming the first
// such element's tag. Lines and points contribute node sets only.
// Physical groups give node sets as read_gmsh's do, and 2D groups element sets (named, else
// "physical<tag>"; "all" when no element is in a 2D group); no face sets. Nodes no surface
// element uses are dropped. Errors name the file and line or byte offset as read_gmsh's do.
Mesh read_gmsh_surface(const std::string& path);
// The same from bytes in memory; `name` stands for the file in messages.
Mesh read_gmsh_surface_buffer(std::string_view bytes, const std::string& name);

}  // namespace tremor::io
