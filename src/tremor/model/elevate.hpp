#pragma once
// Order elevation of a whole model: its mesh becomes GLL elements of order P (mesh/elevate.hpp)
// and every node list the model holds (Abaqus *BOUNDARY, *CLOAD and history nodes, point
// sources, prescribed displacements, receivers, snapshot nodes) follows the mesh's node-set rule
// (OrderElevation::map_nodes): a list of whole faces takes their GLL nodes, a single node stays
// that node. Element lists and surfaces keep their meaning, as element indices and face numbers
// do not change. Errors name the mesh's source (Model::mesh_source()).
#include <cstddef>
#include <string_view>

#include "tremor/model/model.hpp"

namespace tremor {

// Refuses (naming the mesh's source) a mesh that the elevation would not fit in the host memory left.
void elevate_order(Model& model, int order);

// Host bytes `mesh` raised to order P holds, about: its nodes' coordinates and labels, its
// connectivity, and the elevation's per-element work. The node count is that of a mesh whose
// interior dominates: V + E (P - 1) + F (P - 1)^2 + C (P - 1)^3 with F = 3C faces and, by Euler's
// formula, E = V + F - C - 1 edges for C hexahedra (2D: E = 2C edges), V the corners; exact for
// the interior of a structured box, up to a fifth too small for a plate one element thick.
std::size_t elevated_bytes(const Mesh& mesh, int order);

// Throws tremor::Error naming `where` ("FILE:LINE" of the order) when elevated_bytes exceeds
// what the process may still allocate (memory::host_available), with both numbers.
void check_elevation_fits(const Mesh& mesh, int order, std::string_view where);

}  // namespace tremor
