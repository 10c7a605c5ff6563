#include "tremor/model/renumber.hpp"

#include <algorithm>
#include <string>
#include <string_view>

#include "tremor/core/error.hpp"
#include "tremor/mesh/reorder.hpp"

namespace tremor {

namespace {

// Maps every node index of `nodes` through old_to_new, keeping the order; an index outside the
// mesh (a model not yet validated) is refused rather than read past the table.
void map_nodes(std::vector<Index>& nodes, const std::vector<Index>& old_to_new, const std::string& source,
               std::string_view what) {
  for (Index& node : nodes) {
    TREMOR_CHECK(node >= 0 && static_cast<std::size_t>(node) < old_to_new.size(), source, ": ", what,
                 " refers to node index ", node, ", outside the mesh's ", old_to_new.size(), " nodes");
    node = old_to_new[static_cast<std::size_t>(node)];
  }
}

}  // namespace

Model renumber_nodes(const Model& model, const std::vector<Index>& new_to_old) {
  const Mesh& old_mesh = model.mesh;
  const Index n = old_mesh.n_nodes();
  const std::string source = model.source.empty() ? std::string("model") : model.source;
  const std::vector<Index> old_to_new = invert_permutation(new_to_old, n, str(source, ": node renumbering"));
  const auto map = [&](std::vector<Index>& nodes, std::string_view what) { map_nodes(nodes, old_to_new, source, what); };
  Model out = model;
  try {
    renumber_nodes(out.mesh, new_to_old);
  } catch (const Error& error) {
    throw Error(str(source, ": ", error.what()));
  }
  for (auto& fixed : out.fixed) map(fixed.nodes, "a boundary condition");
  for (auto& load : out.loads) map(load.nodes, "a concentrated load");
  for (auto& history : out.histories) map(history.nodes, str("history output '", history.name, "'"));
  for (auto& point : out.point_sources) map(point.nodes, "a point source");
  for (auto& prescribed : out.prescribed) map(prescribed.nodes, "a prescribed displacement");
  for (auto& receiver : out.receivers) map(receiver.nodes, str("receiver '", receiver.name, "'"));
  if (out.output) {
    map(out.output->snapshot_nodes, "[output] snapshot nodes");
    std::sort(out.output->snapshot_nodes.begin(), out.output->snapshot_nodes.end());
  }
  return out;
}

}  // namespace tremor
