#include "tremor/model/elevate.hpp"

#include "tremor/mesh/elevate.hpp"

namespace tremor {

void elevate_order(Model& model, int order) {
  OrderElevation elevation(model.mesh, order, model.mesh_source());
  const auto map = [&](std::vector<Index>& nodes) {
    if (!nodes.empty()) nodes = elevation.map_nodes(nodes);
  };
  for (FixedDof& fixed : model.fixed) map(fixed.nodes);
  for (NodalLoad& load : model.loads) map(load.nodes);
  for (HistoryOutput& history : model.histories) map(history.nodes);
  for (PointSource& source : model.point_sources) map(source.nodes);
  for (PrescribedDisplacement& prescribed : model.prescribed) map(prescribed.nodes);
  for (Receiver& receiver : model.receivers) map(receiver.nodes);
  if (model.output) map(model.output->snapshot_nodes);
  model.mesh = elevation.take_mesh();
}

}  // namespace tremor
