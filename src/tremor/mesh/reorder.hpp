#pragma once
// Node orderings that shrink the bandwidth of nodal operators. With nodes numbered so that
// neighbours get nearby numbers, the x entries one row (or one warp of rows) of K gathers lie
// close together, so they come from the same cache lines: the gather of an SpMV streams x about
// once instead of once per neighbour. Renumbering a model: model/renumber.hpp.
//
// Permutations are `new_to_old`: position i of the new order holds the old index of the node
// that becomes node i.
#include <string_view>
#include <vector>

#include "tremor/core/choice.hpp"
#include "tremor/core/config.hpp"
#include "tremor/mesh/adjacency.hpp"

namespace tremor {

// Reverse Cuthill-McKee (Cuthill and McKee 1969; reversed, George 1971). Each connected
// component, taken in the order of its lowest-numbered node, is ordered breadth first from a
// pseudo-peripheral node (George and Liu 1979: repeat a breadth-first search from a node of
// least degree in the last level while the eccentricity grows), each node's unvisited neighbours
// appended by increasing degree (ties by index); the whole sequence is then reversed.
// Deterministic; O(entries log(max degree)) time and O(nodes) memory besides the graph.
std::vector<Index> reverse_cuthill_mckee(const NodeGraph& graph);

// The node ordering a run asks for: the mesh's own, or reverse Cuthill-McKee's.
enum class NodeOrdering { None, Rcm };
inline constexpr std::array<Named<NodeOrdering>, 2> node_ordering_names{{{"none", NodeOrdering::None},
                                                                         {"rcm", NodeOrdering::Rcm}}};
constexpr std::string_view to_string(NodeOrdering o) { return name_of(o, node_ordering_names); }

// max |new(i) - new(j)| over the graph's edges i - j, with new = the inverse of new_to_old: the
// half-bandwidth of a nodal matrix in that order (0 for a graph without edges). Throws
// tremor::Error when new_to_old is not a permutation of the graph's nodes.
Index bandwidth(const NodeGraph& graph, const std::vector<Index>& new_to_old);

// old_to_new from new_to_old for `n` items; throws tremor::Error (prefixed by `what`) when the
// size is not n or an entry is out of range or repeated.
// Renumbers the nodes of `mesh` in place: new node i is old node new_to_old[i]. Coordinates and
// labels travel with their nodes; connectivity and node sets (kept sorted) follow; element and
// face sets are unchanged (elements keep their numbers). Throws on a bad permutation or a
// connectivity entry outside the mesh.
void renumber_nodes(Mesh& mesh, const std::vector<Index>& new_to_old);

std::vector<Index> invert_permutation(const std::vector<Index>& new_to_old, Index n, std::string_view what);

}  // namespace tremor
