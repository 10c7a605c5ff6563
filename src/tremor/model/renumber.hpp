#pragma once
// Node renumbering of a whole model, e.g. in a bandwidth-reducing order (mesh/reorder.hpp), so that
// the operators built from it gather x from nearby addresses. Nodes change index only: their
// coordinates, labels and every reference to them travel together, so the renumbered model is the
// same problem (its K is P K P^T, its results the same per node label).
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/model/model.hpp"

namespace tremor {

// A copy of `model` whose node i is the old node new_to_old[i] (a copy rather than in place, so a
// caller keeps the original for output in its own numbering and a throw leaves nothing half done).
// Updated: mesh coordinates and node_labels (labels travel with their nodes), element
// connectivity, node sets (kept sorted), the node lists of fixed, loads, histories,
// point_sources, prescribed and receivers (mapped in place: their order is kept, so histories
// record their nodes in the same order), and output->snapshot_nodes (kept ascending). Elements
// are not renumbered: element sets, face sets and surface loads (faces name elements) are
// unchanged. Throws tremor::Error when new_to_old is not a permutation of the model's nodes.
Model renumber_nodes(const Model& model, const std::vector<Index>& new_to_old);

}  // namespace tremor
