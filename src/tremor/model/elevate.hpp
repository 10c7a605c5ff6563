#pragma once
// Order elevation of a whole model: its mesh becomes GLL elements of order P (mesh/elevate.hpp)
// and every node list the model holds (Abaqus *BOUNDARY, *CLOAD and history nodes, point
// sources, prescribed displacements, receivers, snapshot nodes) follows the mesh's node-set rule
// (OrderElevation::map_nodes): a list of whole faces takes their GLL nodes, a single node stays
// that node. Element lists and surfaces keep their meaning, as element indices and face numbers
// do not change. Errors name the mesh's source (Model::mesh_source()).
#include "tremor/model/model.hpp"

namespace tremor {

void elevate_order(Model& model, int order);

}  // namespace tremor
