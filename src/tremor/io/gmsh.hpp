#pragma once
// Gmsh MSH 4.1 reader, ASCII and binary.
#include <string>
#include <string_view>

#include "tremor/mesh/mesh.hpp"

namespace tremor::io {

// Reads the mesh in `path`. Elements of the highest dimension present form the mesh; Gmsh node
// orderings are mapped to tremor's (docs/elements.md). Each physical group becomes a node set
// (the nodes of its entities' elements) and, for groups of the mesh's dimension, an element set,
// both named by the group's name ("physical<tag>" when unnamed). A mesh whose elements are all 2D
// is returned as a 2D mesh. Errors name the file and the line (ASCII) or byte offset (binary).
Mesh read_gmsh(const std::string& path);
// The same from bytes in memory; `name` stands for the file in messages.
Mesh read_gmsh_buffer(std::string_view bytes, const std::string& name);

}  // namespace tremor::io
