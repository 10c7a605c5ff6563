#include "tremor/mesh/reorder.hpp"

#include <algorithm>
#include <span>
#include <string_view>
#include <utility>

#include "tremor/core/error.hpp"

namespace tremor {

namespace {

// Breadth-first level structure of the component of `root`: the nodes in visiting order, and
// where each level begins among them (one past the last level at the end). `stamp` (one entry per
// node, equal to `mark` once reached in this search) replaces clearing a visited array, so one
// search costs O(component).
struct Levels {
  std::vector<Index> nodes;
  std::vector<Index> starts;
  Index depth() const { return static_cast<Index>(starts.size()) - 1; }
};

void level_structure(const NodeGraph& graph, Index root, std::vector<Size>& stamp, Size mark, Levels& levels) {
  levels.nodes.clear();
  levels.starts.clear();
  levels.nodes.push_back(root);
  stamp[static_cast<std::size_t>(root)] = mark;
  std::size_t begin = 0;
  while (begin < levels.nodes.size()) {
    const std::size_t end = levels.nodes.size();
    levels.starts.push_back(static_cast<Index>(begin));
    for (std::size_t k = begin; k < end; ++k) {
      const auto node = static_cast<std::size_t>(levels.nodes[k]);
      for (Size e = graph.offsets[node]; e < graph.offsets[node + 1]; ++e) {
        const Index next = graph.neighbours[static_cast<std::size_t>(e)];
        if (stamp[static_cast<std::size_t>(next)] == mark) continue;
        stamp[static_cast<std::size_t>(next)] = mark;
        levels.nodes.push_back(next);
      }
    }
    begin = end;
  }
  levels.starts.push_back(static_cast<Index>(levels.nodes.size()));
}

}  // namespace

std::vector<Index> invert_permutation(const std::vector<Index>& new_to_old, Index n, std::string_view what) {
  TREMOR_CHECK(new_to_old.size() == static_cast<std::size_t>(n), what, ": a permutation of ", n, " items has ",
               new_to_old.size(), " entries");
  std::vector<Index> old_to_new(static_cast<std::size_t>(n), -1);
  for (std::size_t i = 0; i < new_to_old.size(); ++i) {
    const Index old = new_to_old[i];
    TREMOR_CHECK(old >= 0 && old < n, what, ": entry ", i, " of the permutation is ", old, ", outside 0 .. ", n - 1);
    TREMOR_CHECK(old_to_new[static_cast<std::size_t>(old)] < 0, what, ": ", old, " appears twice in the permutation");
    old_to_new[static_cast<std::size_t>(old)] = static_cast<Index>(i);
  }
  return old_to_new;
}

std::vector<Index> reverse_cuthill_mckee(const NodeGraph& graph) {
  const Index n = graph.n_nodes();
  std::vector<Index> degree(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    const auto row = std::span<const Index>(graph.neighbours.data() + graph.offsets[u],
                                            static_cast<std::size_t>(graph.offsets[u + 1] - graph.offsets[u]));
    // The graph lists the node among its own neighbours; the degree counts the others.
    degree[u] = static_cast<Index>(row.size()) - static_cast<Index>(std::binary_search(row.begin(), row.end(), i));
  }
  std::vector<Index> order;
  order.reserve(static_cast<std::size_t>(n));
  std::vector<Size> stamp(static_cast<std::size_t>(n), -1);
  std::vector<char> placed(static_cast<std::size_t>(n), 0);
  std::vector<Index> fresh;
  Levels levels;
  Size mark = 0;
  for (Index seed = 0; seed < n; ++seed) {
    if (placed[static_cast<std::size_t>(seed)]) continue;
    // George-Liu: from the seed, move to a least-degree node of the last level while that
    // lengthens the level structure. The eccentricity grows at every move, so this ends.
    Index root = seed;
    level_structure(graph, root, stamp, mark++, levels);
    for (;;) {
      const Index depth = levels.depth();
      const auto last = std::span<const Index>(levels.nodes).subspan(
          static_cast<std::size_t>(levels.starts[static_cast<std::size_t>(depth) - 1]));
      Index candidate = last.front();
      for (Index node : last) {
        const Index d = degree[static_cast<std::size_t>(node)], best = degree[static_cast<std::size_t>(candidate)];
        if (d < best || (d == best && node < candidate)) candidate = node;
      }
      Levels trial;
      level_structure(graph, candidate, stamp, mark++, trial);
      if (trial.depth() <= depth) break;
      root = candidate;
      levels = std::move(trial);
    }
    // Cuthill-McKee from the root: breadth first, unvisited neighbours by increasing degree.
    std::size_t head = order.size();
    order.push_back(root);
    placed[static_cast<std::size_t>(root)] = 1;
    while (head < order.size()) {
      const auto node = static_cast<std::size_t>(order[head++]);
      fresh.clear();
      for (Size e = graph.offsets[node]; e < graph.offsets[node + 1]; ++e) {
        const Index next = graph.neighbours[static_cast<std::size_t>(e)];
        if (placed[static_cast<std::size_t>(next)]) continue;
        placed[static_cast<std::size_t>(next)] = 1;
        fresh.push_back(next);
      }
      std::sort(fresh.begin(), fresh.end(), [&](Index a, Index b) {
        const Index da = degree[static_cast<std::size_t>(a)], db = degree[static_cast<std::size_t>(b)];
        return da < db || (da == db && a < b);
      });
      order.insert(order.end(), fresh.begin(), fresh.end());
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

Index bandwidth(const NodeGraph& graph, const std::vector<Index>& new_to_old) {
  const Index n = graph.n_nodes();
  const std::vector<Index> old_to_new = invert_permutation(new_to_old, n, "bandwidth");
  Index width = 0;
  for (Index i = 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    const Index at = old_to_new[u];
    for (Size e = graph.offsets[u]; e < graph.offsets[u + 1]; ++e) {
      const Index other = old_to_new[static_cast<std::size_t>(graph.neighbours[static_cast<std::size_t>(e)])];
      width = std::max(width, at > other ? at - other : other - at);
    }
  }
  return width;
}

void renumber_nodes(Mesh& mesh, const std::vector<Index>& new_to_old) {
  const Index n = mesh.n_nodes();
  const std::vector<Index> old_to_new = invert_permutation(new_to_old, n, "node renumbering");
  const auto dim = static_cast<std::size_t>(mesh.dim());
  std::vector<double> coordinates(mesh.coordinates.size());
  std::vector<Label> labels(mesh.node_labels.size());
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
    const auto old = static_cast<std::size_t>(new_to_old[i]);
    labels[i] = mesh.node_labels[old];
    std::copy_n(mesh.coordinates.begin() + static_cast<std::ptrdiff_t>(old * dim), dim,
                coordinates.begin() + static_cast<std::ptrdiff_t>(i * dim));
  }
  mesh.coordinates = std::move(coordinates);
  mesh.node_labels = std::move(labels);
  const auto map = [&](Index& node, std::string_view what) {
    TREMOR_CHECK(node >= 0 && node < n, what, " refers to node index ", node, ", outside the mesh's ", n, " nodes");
    node = old_to_new[static_cast<std::size_t>(node)];
  };
  for (auto& block : mesh.blocks)
    for (Index& node : block.connectivity) map(node, "element connectivity");
  for (auto& [name, members] : mesh.node_sets) {
    for (Index& node : members) map(node, "a node set");
    std::sort(members.begin(), members.end());
  }
}

}  // namespace tremor
