#include "tremor/partition/graph_tools.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <utility>

#include "tremor/core/error.hpp"
#include "tremor/mesh/faces.hpp"

namespace tremor::partition::detail {

BoundaryGraph boundary_graph(const Mesh& mesh) {
  // Every element face, bucketed by its smallest corner node (a counting sort): a face is on the
  // boundary when no other face in its bucket has the same corners. Linear in the faces, where
  // sorting all faces at once (FaceIndex) is not: this runs on meshes of millions of elements.
  const Index n = mesh.n_nodes();
  struct FaceRef {
    Index element;      // within its block
    std::uint16_t block;
    std::uint8_t face;
  };
  TREMOR_CHECK(mesh.n_blocks() <= 65535, "too many element blocks (", mesh.n_blocks(), ")");
  // Per block, the local corner numbers of each face (-1 padded to 4), looked up once.
  std::vector<std::vector<std::array<int, 4>>> face_corners(static_cast<std::size_t>(mesh.n_blocks()));
  int local[max_face_nodes];
  for (int b = 0; b < mesh.n_blocks(); ++b) {
    const auto& block = mesh.blocks[static_cast<std::size_t>(b)];
    for (int f = 0; f < n_faces(block.type); ++f) {
      std::array<int, 4> c{-1, -1, -1, -1};
      const int k = face_vertices(block.type, block.order, f, local);
      for (int a = 0; a < k; ++a) c[static_cast<std::size_t>(a)] = local[a];
      face_corners[static_cast<std::size_t>(b)].push_back(c);
    }
  }
  // The face's corner nodes, ascending, padded with the largest Index.
  auto corners = [&](int b, Index element, int face, Index* out) {
    const auto& c = face_corners[static_cast<std::size_t>(b)][static_cast<std::size_t>(face)];
    const auto nodes = mesh.blocks[static_cast<std::size_t>(b)].nodes(element);
    for (int a = 0; a < 4; ++a)
      out[a] = c[static_cast<std::size_t>(a)] < 0 ? std::numeric_limits<Index>::max()
                                                 : nodes[static_cast<std::size_t>(c[static_cast<std::size_t>(a)])];
    for (int a = 1; a < 4; ++a)  // insertion sort of four
      for (int j = a; j > 0 && out[j] < out[j - 1]; --j) std::swap(out[j], out[j - 1]);
  };
  std::vector<Size> start(static_cast<std::size_t>(n) + 1, 0);
  Index key[4];
  for (int b = 0; b < mesh.n_blocks(); ++b) {
    const int n_block_faces = static_cast<int>(face_corners[static_cast<std::size_t>(b)].size());
    for (Index e = 0; e < mesh.blocks[static_cast<std::size_t>(b)].n_elements(); ++e)
      for (int f = 0; f < n_block_faces; ++f) {
        corners(b, e, f, key);
        ++start[static_cast<std::size_t>(key[0]) + 1];
      }
  }
  for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
  std::vector<FaceRef> faces(static_cast<std::size_t>(start.back()));
  {
    std::vector<Size> fill(start.begin(), start.end() - 1);
    for (int b = 0; b < mesh.n_blocks(); ++b) {
      const int n_block_faces = static_cast<int>(face_corners[static_cast<std::size_t>(b)].size());
      for (Index e = 0; e < mesh.blocks[static_cast<std::size_t>(b)].n_elements(); ++e)
        for (int f = 0; f < n_block_faces; ++f) {
          corners(b, e, f, key);
          faces[static_cast<std::size_t>(fill[static_cast<std::size_t>(key[0])]++)] = {
              e, static_cast<std::uint16_t>(b), static_cast<std::uint8_t>(f)};
        }
    }
  }
  std::vector<std::pair<Index, Index>> edges;
  std::vector<std::pair<std::array<Index, 4>, std::size_t>> bucket;
  Index nodes[max_face_nodes];
  for (Index v = 0; v < n; ++v) {
    bucket.clear();
    for (Size i = start[static_cast<std::size_t>(v)]; i < start[static_cast<std::size_t>(v) + 1]; ++i) {
      const FaceRef& ref = faces[static_cast<std::size_t>(i)];
      std::array<Index, 4> corner_key;
      corners(ref.block, ref.element, ref.face, corner_key.data());
      bucket.emplace_back(corner_key, static_cast<std::size_t>(i));
    }
    std::sort(bucket.begin(), bucket.end());
    for (std::size_t i = 0; i < bucket.size(); ++i) {
      const bool shared = (i > 0 && bucket[i - 1].first == bucket[i].first) ||
                          (i + 1 < bucket.size() && bucket[i + 1].first == bucket[i].first);
      if (shared) continue;
      const FaceRef& ref = faces[bucket[i].second];
      const auto& block = mesh.blocks[ref.block];
      const int k = face_nodes(block.type, block.order, ref.face, local);
      const auto element = block.nodes(ref.element);
      for (int a = 0; a < k; ++a) nodes[a] = element[static_cast<std::size_t>(local[a])];
      for (int a = 0; a < k; ++a)
        for (int c = 0; c < k; ++c)
          if (a != c) edges.emplace_back(nodes[a], nodes[c]);
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  BoundaryGraph graph;
  graph.offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  graph.neighbours.reserve(edges.size());
  for (const auto& [from, to] : edges) {
    ++graph.offsets[static_cast<std::size_t>(from) + 1];
    graph.neighbours.push_back(to);
  }
  for (std::size_t i = 1; i < graph.offsets.size(); ++i) graph.offsets[i] += graph.offsets[i - 1];
  return graph;
}

Index extreme_node(const Mesh& mesh, std::span<const Index> nodes) {
  Index best = -1;
  for (Index v : nodes) {
    if (best < 0) {
      best = v;
      continue;
    }
    const auto x = mesh.node(v), y = mesh.node(best);
    if (std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end())) best = v;
  }
  return best;
}

Index Splitter::farthest(const NodeGraph& graph, Index start, bool any_member) {
  ++visit_;
  queue_.clear();
  queue_.push_back(start);
  visited_[static_cast<std::size_t>(start)] = visit_;
  Index last = start;
  for (std::size_t head = 0; head < queue_.size(); ++head) {
    const Index v = queue_[head];
    if (any_member || candidate_[static_cast<std::size_t>(v)] == round_) last = v;
    for (Index w : neighbours(graph, v)) {
      const auto k = static_cast<std::size_t>(w);
      if (member_[k] != round_ || visited_[k] == visit_) continue;
      visited_[k] = visit_;
      queue_.push_back(w);
    }
  }
  return last;
}

std::vector<Index> Splitter::split(const NodeGraph& graph, std::span<const Index> nodes,
                                   std::span<const Index> ends_from) {
  if (nodes.size() < 2) return {};
  ++round_;
  for (Index v : nodes) member_[static_cast<std::size_t>(v)] = round_;
  if (ends_from.empty()) ends_from = nodes;
  for (Index v : ends_from) candidate_[static_cast<std::size_t>(v)] = round_;
  const Index a = farthest(graph, ends_from.front(), false);
  Index b = farthest(graph, a, false);
  if (b == a) b = farthest(graph, a, true);  // one candidate: the farthest member
  if (b == a) b = nodes.front() == a ? nodes[1] : nodes.front();  // a alone in its piece
  // Claimed nodes carry visit_ in visited_ and their half in side_.
  ++visit_;
  const std::size_t target[2] = {(nodes.size() + 1) / 2, nodes.size() / 2};
  std::size_t count[2] = {1, 1};
  std::vector<Index> queues[2] = {{a}, {b}};
  std::size_t heads[2] = {0, 0};
  visited_[static_cast<std::size_t>(a)] = visit_;
  side_[static_cast<std::size_t>(a)] = 0;
  visited_[static_cast<std::size_t>(b)] = visit_;
  side_[static_cast<std::size_t>(b)] = 1;
  auto growing = [&](int s) { return heads[s] < queues[s].size() && count[s] < target[s]; };
  while (growing(0) || growing(1)) {
    for (int s = 0; s < 2; ++s) {
      if (!growing(s)) continue;
      const Index v = queues[s][heads[s]++];
      for (Index w : neighbours(graph, v)) {
        const auto k = static_cast<std::size_t>(w);
        if (member_[k] != round_ || visited_[k] == visit_ || count[s] >= target[s]) continue;
        visited_[k] = visit_;
        side_[k] = static_cast<unsigned char>(s);
        queues[s].push_back(w);
        ++count[s];
      }
    }
  }
  std::vector<Index> second;
  second.reserve(target[1]);
  for (Index v : nodes) {
    const auto k = static_cast<std::size_t>(v);
    if (visited_[k] != visit_) {
      visited_[k] = visit_;
      side_[k] = count[0] < target[0] ? 0 : 1;
      ++count[side_[k]];
    }
    if (side_[k] == 1) second.push_back(v);
  }
  return second;
}

Index place_isolated(const NodeGraph& graph, std::vector<Index>& block_of, Index n_blocks, int block_size) {
  std::vector<Index> size(static_cast<std::size_t>(n_blocks), 0);
  for (Index b : block_of)
    if (b >= 0) ++size[static_cast<std::size_t>(b)];
  Index current = 0;
  for (Index v = 0; v < graph.n_nodes(); ++v) {
    if (block_of[static_cast<std::size_t>(v)] >= 0) continue;
    TREMOR_ASSERT(isolated(graph, v));
    while (current < n_blocks && size[static_cast<std::size_t>(current)] >= block_size) ++current;
    if (current == n_blocks) {
      ++n_blocks;
      size.push_back(0);
    }
    block_of[static_cast<std::size_t>(v)] = current;
    ++size[static_cast<std::size_t>(current)];
  }
  return n_blocks;
}

}  // namespace tremor::partition::detail
