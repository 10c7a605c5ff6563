#pragma once
// Abaqus / CalculiX .inp writer of a mesh, the inverse of read_abaqus_mesh (io/abaqus.hpp): a mesh
// that tremor generated, converted or changed goes to Abaqus, CalculiX or a pre-processor, and
// reading the file back gives the same mesh.
//
// Writes the mesh alone, no materials, sections or step: *NODE (each coordinate in the shortest
// form that reads back to the same double; 2D meshes without z), one *ELEMENT per block (tri3
// CPE3, tri6 CPE6, quad4 CPE4, quad8 CPE8, tet4 C3D4, tet10 C3D10, hex8 C3D8, hex20 C3D20: plane
// strain types for 2D, as the writer knows no section; the connectivity as it is, tremor's node
// order being Abaqus's), *NSET and *ELSET listing labels, and *SURFACE, TYPE=ELEMENT with one
// element label and face identifier S1..S6 per line (face numbers are Abaqus's, mesh/faces.hpp).
// Labels are the mesh's. read_abaqus_mesh of the file gives the same coordinates bit for bit, node
// labels, blocks in order (type, connectivity, element labels) and node, element and face sets.
//
// What the reader would not give back the same is refused (tremor::Error naming the block, node,
// element or set): GLL elements (no Abaqus type that tremor reads; quad9 and hex27 are GLL order
// 2); two blocks of one type (the reader gathers the elements of a type in one block); labels that
// are not positive or repeat; coordinates that are not finite; a 2D mesh without blocks (the
// reader takes the dimension from the element types); an empty surface (a *SURFACE needs data
// lines); and set names other than Abaqus's plain names in upper case: the reader compares names
// without case and stores them upper-cased, as Abaqus does, so a name must begin with a letter,
// hold only A-Z, 0-9, '_' and '-', and have at most 80 characters (Abaqus's limit).
#include <string>

#include "tremor/mesh/mesh.hpp"

namespace tremor::io {

// Writes `mesh` as an Abaqus/CalculiX input of its nodes, elements, node sets, element sets and
// surfaces to `path`, atomically (io/file.hpp, write_file_atomically): an error leaves an existing
// file untouched. Errors are prefixed with `path`.
void write_abaqus_mesh(const Mesh& mesh, const std::string& path);
// The same text in memory; errors are prefixed with "Abaqus mesh".
std::string abaqus_mesh_text(const Mesh& mesh);

}  // namespace tremor::io
