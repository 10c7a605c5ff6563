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
// lines, points) only contribute to node sets. A mesh whose elements are all 2D is returned as a
// 2D mesh (it must lie in a plane z = const). Node and element labels are Gmsh's tags; nodes no
// mesh element uses are dropped.
//
// Each physical group becomes a node set (the nodes of its elements, whatever their dimension) and,
// for groups of the mesh's dimension, an element set, both named by the group's $PhysicalNames
// name, or "physical<tag>" when unnamed ("physical<tag>_dim<d>" when unnamed groups of different
// dimensions share the tag). Groups that share a name share one set. When no element belongs to
// a physical group of the mesh's dimension, an element set "all" holds every element. Physical
// groups of partitioned meshes ($PartitionedEntities) are read the same way.
//
// Sections tremor does not use are skipped ($Periodic and unknown ones with a warning). Errors
// name the file and the line (ASCII) or byte offset (binary) and say what was expected.
Mesh read_gmsh(const std::string& path);
// The same from bytes in memory; `name` stands for the file in messages.
Mesh read_gmsh_buffer(std::string_view bytes, const std::string& name);

}  // namespace tremor::io
