#include "tremor/partition/partitioners.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <queue>
#include <utility>

#include "tremor/core/error.hpp"
#include "tremor/partition/graph_tools.hpp"

namespace tremor::partition {

using detail::isolated;
using detail::neighbours;

namespace {

void check_block_size(int block_size) {
  TREMOR_CHECK(block_size >= 1, "block size ", block_size, " must be positive");
}

// Renumbers blocks 0.. in order of first use by increasing block id, dropping empty ids.
Index compact(std::vector<Index>& block_of, Index n_ids) {
  std::vector<Index> count(static_cast<std::size_t>(n_ids), 0);
  for (Index b : block_of)
    if (b >= 0) ++count[static_cast<std::size_t>(b)];
  std::vector<Index> new_id(static_cast<std::size_t>(n_ids), -1);
  Index n_blocks = 0;
  for (Index b = 0; b < n_ids; ++b)
    if (count[static_cast<std::size_t>(b)] > 0) new_id[static_cast<std::size_t>(b)] = n_blocks++;
  for (Index& b : block_of)
    if (b >= 0) b = new_id[static_cast<std::size_t>(b)];
  return n_blocks;
}

}  // namespace

// ----------------------------------------------------------------------------------------- greedy

std::vector<Index> greedy_blocks(const NodeGraph& graph, const Mesh& mesh, int block_size) {
  check_block_size(block_size);
  const Index n = graph.n_nodes();
  std::vector<Index> block_of(static_cast<std::size_t>(n), -1);
  // Seeds in breadth-first order of the whole graph from an extreme node (then from the first
  // node of each further connected part).
  std::vector<Index> order;
  order.reserve(static_cast<std::size_t>(n));
  std::vector<bool> seen(static_cast<std::size_t>(n), false);
  std::vector<Index> all(static_cast<std::size_t>(n));
  for (Index v = 0; v < n; ++v) all[static_cast<std::size_t>(v)] = v;
  Index start = n > 0 ? detail::extreme_node(mesh, all) : -1;
  Index next_unseen = 0;
  while (start >= 0) {
    if (!isolated(graph, start)) {
      const std::size_t head0 = order.size();
      order.push_back(start);
      seen[static_cast<std::size_t>(start)] = true;
      for (std::size_t head = head0; head < order.size(); ++head)
        for (Index w : neighbours(graph, order[head]))
          if (!seen[static_cast<std::size_t>(w)]) {
            seen[static_cast<std::size_t>(w)] = true;
            order.push_back(w);
          }
    } else {
      seen[static_cast<std::size_t>(start)] = true;
    }
    while (next_unseen < n && seen[static_cast<std::size_t>(next_unseen)]) ++next_unseen;
    start = next_unseen < n ? next_unseen : -1;
  }
  Index n_blocks = 0;
  std::vector<Index> queue;
  for (Index seed : order) {
    if (block_of[static_cast<std::size_t>(seed)] >= 0) continue;
    const Index b = n_blocks++;
    queue.assign(1, seed);
    block_of[static_cast<std::size_t>(seed)] = b;
    Index size = 1;
    for (std::size_t head = 0; head < queue.size() && size < block_size; ++head)
      for (Index w : neighbours(graph, queue[head])) {
        if (block_of[static_cast<std::size_t>(w)] >= 0) continue;
        block_of[static_cast<std::size_t>(w)] = b;
        queue.push_back(w);
        if (++size == block_size) break;
      }
  }
  detail::place_isolated(graph, block_of, n_blocks, block_size);
  return block_of;
}

// ---------------------------------------------------------------------------------------- aligned

AlignedParameters aligned_parameters(int block_size, int dim) {
  check_block_size(block_size);
  AlignedParameters p;
  const double n = block_size;
  // The top of the range: sqrt(2 n) in 2D (the paper's 32 at 512), (2 n)^(2/3) in 3D.
  const double length = dim == 2 ? std::sqrt(2.0 * n) : std::pow(2.0 * n, 2.0 / 3.0);
  p.boundary_length = std::max(1, static_cast<int>(std::floor(length + 1e-9)));
  p.test_rows = std::max(1, static_cast<int>(std::lround(n / p.boundary_length * 1.25)));
  const double mean = static_cast<double>(p.test_rows) * p.boundary_length;  // S_m = R B
  p.lower = static_cast<int>(std::lround(0.6 * mean));
  p.upper = static_cast<int>(std::lround(1.55 * mean));
  return p;
}

namespace {

class Aligned {
 public:
  Aligned(const NodeGraph& graph, const Mesh& mesh, int block_size)
      : graph_(graph),
        mesh_(mesh),
        block_size_(block_size),
        params_(aligned_parameters(block_size, mesh.dim())),
        owner_(static_cast<std::size_t>(graph.n_nodes()), -1),
        mark_(static_cast<std::size_t>(graph.n_nodes()), 0),
        splitter_(graph.n_nodes()) {
    for (Index v = 0; v < graph.n_nodes(); ++v)
      if (isolated(graph, v)) owner_[static_cast<std::size_t>(v)] = isolated_node;
  }

  std::vector<Index> run();

 private:
  Index new_block() {
    first_.emplace_back();
    region_.emplace_back();
    nodes_.emplace_back();
    frontier_.emplace_back();
    deferred_.emplace_back();
    in_layer_.push_back(0);
    dead_.push_back(0);
    return static_cast<Index>(first_.size()) - 1;
  }
  bool free(Index v) const { return owner_[static_cast<std::size_t>(v)] == free_node; }
  void set_tentative(Index v, Index b) { owner_[static_cast<std::size_t>(v)] = -3 - b; }
  static Index tentative_block(Index code) { return code <= -3 ? -3 - code : -1; }
  // The current layer's block holding v in the test advance (first row or tentative), or -1.
  Index region_of(Index v) const {
    const Index o = owner_[static_cast<std::size_t>(v)];
    if (o <= -3) return tentative_block(o);
    return o >= 0 && in_layer_[static_cast<std::size_t>(o)] ? o : -1;
  }
  // The current layer's block owning v (final owner), or -1.
  Index layer_owner(Index v) const {
    const Index o = owner_[static_cast<std::size_t>(v)];
    return o >= 0 && in_layer_[static_cast<std::size_t>(o)] ? o : -1;
  }
  // The current layer's block with the most links to free node w: by region_of in the test
  // advance (Test), by final owner with full blocks left out in the final advance (Advance), by
  // final owner when children are made (Parent). On a tie `prefer` when it is among the
  // strongest, else the lowest block; -1 when none.
  enum class Tally { Test, Advance, Parent };
  Index strongest(Index w, Tally tally, Index prefer) const;
  std::size_t test_size(Index b) const {
    return first_[static_cast<std::size_t>(b)].size() + region_[static_cast<std::size_t>(b)].size();
  }

  std::vector<Index> first_rows(const detail::BoundaryGraph& boundary, Index extreme);
  void test_advance(const std::vector<Index>& layer);
  void fix_sizes(std::vector<Index>& layer);
  bool closed(Index b) const;
  void join(Index from, Index into);
  Index split_region(Index b);
  void final_advance(const std::vector<Index>& layer);
  std::vector<Index> children(const std::vector<Index>& layer);
  void split_pieces(Index b, std::vector<std::vector<Index>>& sets, std::vector<Index>& layer);
  void sweep_remaining();

  const NodeGraph& graph_;
  const Mesh& mesh_;
  int block_size_;
  AlignedParameters params_;
  // Per node: its final block (>= 0), free_node, isolated_node (in no element: never advanced
  // into), or -3 - b while block b holds it in the test advance. One array, so that the advance
  // (which visits nodes in the mesh's numbering, random for many meshers) reads one entry per node.
  static constexpr Index free_node = -1, isolated_node = -2;
  std::vector<Index> owner_;
  // Per block id: its first row, its test-advance region (beyond the first row), its nodes after
  // the final advance, the last row it added, the free nodes it left to stronger blocks.
  std::vector<std::vector<Index>> first_, region_, nodes_, frontier_, deferred_;
  std::vector<char> in_layer_, dead_;
  std::vector<unsigned> mark_;
  unsigned stamp_ = 0;
  detail::Splitter splitter_;
};

// Steps 1-2: pieces of about B nodes of the outer boundary through `extreme`, grown breadth-first
// along boundary faces, each piece starting next to those before.
std::vector<Index> Aligned::first_rows(const detail::BoundaryGraph& boundary, Index extreme) {
  std::vector<Index> layer;
  if (!boundary.on_boundary(extreme)) {  // no boundary face through the extreme node: seed it alone
    const Index b = new_block();
    owner_[static_cast<std::size_t>(extreme)] = b;
    first_[static_cast<std::size_t>(b)] = {extreme};
    layer.push_back(b);
    return layer;
  }
  std::deque<Index> pending{extreme};
  std::vector<Index> queue;
  while (!pending.empty()) {
    const Index seed = pending.front();
    pending.pop_front();
    if (!free(seed)) continue;
    const Index b = new_block();
    auto& row = first_[static_cast<std::size_t>(b)];
    owner_[static_cast<std::size_t>(seed)] = b;
    row.push_back(seed);
    queue.assign(1, seed);
    for (std::size_t head = 0; head < queue.size() && static_cast<int>(row.size()) < params_.boundary_length; ++head)
      for (Index w : boundary.of(queue[head])) {
        if (!free(w)) continue;
        owner_[static_cast<std::size_t>(w)] = b;
        row.push_back(w);
        queue.push_back(w);
        if (static_cast<int>(row.size()) == params_.boundary_length) break;
      }
    for (Index v : row)
      for (Index w : boundary.of(v))
        if (free(w)) pending.push_back(w);
    layer.push_back(b);
  }
  return layer;
}

// Steps 3-4: every block advances R rows into free nodes, all blocks one row at a time. A free
// node next to several blocks goes to the one with most links to it (strongest(), counted before
// the row is claimed): claimed block by block it would go to whichever block came first, and on
// meshes with diagonal links (quadrilaterals, hexahedra) that block would take a diagonal node of
// every row and lean into its neighbour.
void Aligned::test_advance(const std::vector<Index>& layer) {
  for (Index b : layer) frontier_[static_cast<std::size_t>(b)] = first_[static_cast<std::size_t>(b)];
  std::vector<Index> candidates, decided;
  for (int row = 0; row < params_.test_rows; ++row) {
    candidates.clear();
    ++stamp_;
    for (Index b : layer) {
      for (Index v : frontier_[static_cast<std::size_t>(b)])
        for (Index w : neighbours(graph_, v))
          if (free(w) && mark_[static_cast<std::size_t>(w)] != stamp_) {
            mark_[static_cast<std::size_t>(w)] = stamp_;
            candidates.push_back(w);
          }
      frontier_[static_cast<std::size_t>(b)].clear();
    }
    decided.resize(candidates.size());
    for (std::size_t i = 0; i < candidates.size(); ++i) decided[i] = strongest(candidates[i], Tally::Test, -1);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const Index b = decided[i];
      set_tentative(candidates[i], b);
      region_[static_cast<std::size_t>(b)].push_back(candidates[i]);
      frontier_[static_cast<std::size_t>(b)].push_back(candidates[i]);
    }
    if (candidates.empty()) break;
  }
}

void Aligned::join(Index from, Index into) {
  auto& first_from = first_[static_cast<std::size_t>(from)];
  auto& region_from = region_[static_cast<std::size_t>(from)];
  for (Index v : first_from) owner_[static_cast<std::size_t>(v)] = into;
  for (Index v : region_from) set_tentative(v, into);
  auto& first_into = first_[static_cast<std::size_t>(into)];
  auto& region_into = region_[static_cast<std::size_t>(into)];
  first_into.insert(first_into.end(), first_from.begin(), first_from.end());
  region_into.insert(region_into.end(), region_from.begin(), region_from.end());
  first_from.clear();
  region_from.clear();
  dead_[static_cast<std::size_t>(from)] = 1;
}

// Step 5(b): splits block b's test region in two, advancing from the two ends of its first row
// until the halves meet. Returns the new block, or -1 when b cannot be split.
Index Aligned::split_region(Index b) {
  std::vector<Index> all = first_[static_cast<std::size_t>(b)];
  const auto& region = region_[static_cast<std::size_t>(b)];
  all.insert(all.end(), region.begin(), region.end());
  const std::vector<Index> half = splitter_.split(graph_, all, first_[static_cast<std::size_t>(b)]);
  if (half.empty()) return -1;
  const Index c = new_block();
  in_layer_[static_cast<std::size_t>(c)] = 1;
  for (Index v : half) {
    if (owner_[static_cast<std::size_t>(v)] == b)
      owner_[static_cast<std::size_t>(v)] = c;
    else
      set_tentative(v, c);
  }
  for (Index block : {b, c}) {
    first_[static_cast<std::size_t>(block)].clear();
    region_[static_cast<std::size_t>(block)].clear();
  }
  for (Index v : all) {
    const Index o = owner_[static_cast<std::size_t>(v)];
    if (o == b || o == c)
      first_[static_cast<std::size_t>(o)].push_back(v);
    else
      region_[static_cast<std::size_t>(tentative_block(o))].push_back(v);
  }
  return c;
}

// True when no free node is next to block b's test region.
bool Aligned::closed(Index b) const {
  for (const auto* nodes : {&first_[static_cast<std::size_t>(b)], &region_[static_cast<std::size_t>(b)]})
    for (Index v : *nodes)
      for (Index w : neighbours(graph_, v))
        if (free(w)) return false;
  return true;
}

// Step 5: joins blocks below S_l to their smallest neighbour and splits blocks above S_u, until
// every block is within bounds or nothing changes (a small block with no neighbour stays).
void Aligned::fix_sizes(std::vector<Index>& layer) {
  const auto lower = static_cast<std::size_t>(params_.lower), upper = static_cast<std::size_t>(params_.upper);
  // Joins and splits can undo each other (a join above S_u is split again): bound the rounds.
  const std::size_t max_operations = 4 * layer.size() + 16;
  std::size_t operations = 0;
  bool changed = true;
  while (changed && operations < max_operations) {
    changed = false;
    const std::vector<Index> current = layer;
    for (Index b : current) {
      if (dead_[static_cast<std::size_t>(b)] || operations >= max_operations) continue;
      const std::size_t size = test_size(b);
      if (size < lower) {
        Index best = -1;
        std::size_t best_size = 0;
        auto consider = [&](Index v) {
          for (Index w : neighbours(graph_, v)) {
            const Index r = region_of(w);
            if (r < 0 || r == b) continue;
            const std::size_t s = test_size(r);
            if (best < 0 || s < best_size || (s == best_size && r < best)) {
              best = r;
              best_size = s;
            }
          }
        };
        for (Index v : first_[static_cast<std::size_t>(b)]) consider(v);
        for (Index v : region_[static_cast<std::size_t>(b)]) consider(v);
        if (best < 0) continue;
        join(b, best);
        ++operations;
        changed = true;
      } else if (size > upper) {
        const Index c = split_region(b);
        if (c < 0) continue;
        layer.push_back(c);
        ++operations;
        changed = true;
      }
    }
    std::erase_if(layer, [&](Index b) { return dead_[static_cast<std::size_t>(b)] != 0; });
  }
  // A region the test advance closed (no free node next to it: a pocket between fronts) that
  // holds more than a block would be filled from its first row inwards, leaving a hole the block
  // wraps around, a block of long boundary with a remnant inside: split it until every piece fits.
  for (std::size_t i = 0; i < layer.size(); ++i) {
    const Index b = layer[i];
    while (test_size(b) > static_cast<std::size_t>(block_size_) && closed(b)) {
      const Index c = split_region(b);
      if (c < 0) break;
      layer.push_back(c);
    }
  }
  // A first row longer than a block cannot seed one: halve it until it fits.
  for (std::size_t i = 0; i < layer.size(); ++i) {
    const Index b = layer[i];
    while (static_cast<int>(first_[static_cast<std::size_t>(b)].size()) > block_size_) {
      const std::vector<Index> row = first_[static_cast<std::size_t>(b)];
      const std::vector<Index> half = splitter_.split(graph_, row, row);
      const Index c = new_block();
      in_layer_[static_cast<std::size_t>(c)] = 1;
      for (Index v : half) owner_[static_cast<std::size_t>(v)] = c;
      first_[static_cast<std::size_t>(c)] = half;
      std::erase_if(first_[static_cast<std::size_t>(b)], [&](Index v) { return owner_[static_cast<std::size_t>(v)] == c; });
      layer.push_back(c);
    }
  }
}

// Steps 7-8: the smallest block advances one row at a time, stopping at block_size nodes; a block
// with no free neighbour is trapped and stops.
void Aligned::final_advance(const std::vector<Index>& layer) {
  using Entry = std::pair<std::size_t, Index>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> smallest;
  for (Index b : layer) {
    nodes_[static_cast<std::size_t>(b)] = first_[static_cast<std::size_t>(b)];
    frontier_[static_cast<std::size_t>(b)] = first_[static_cast<std::size_t>(b)];
    deferred_[static_cast<std::size_t>(b)].clear();
    smallest.emplace(nodes_[static_cast<std::size_t>(b)].size(), b);
  }
  const auto full = static_cast<std::size_t>(block_size_);
  std::vector<Index> next, candidates, reachable;
  while (!smallest.empty()) {
    const Index b = smallest.top().second;
    smallest.pop();
    auto& nodes = nodes_[static_cast<std::size_t>(b)];
    if (nodes.size() >= full) continue;
    // The next row: the free nodes next to the last one, and those b left for a stronger block
    // before (which may have gone elsewhere since), where b is (one of) the strongest, decided
    // before any is claimed; taken in order until the block is full. When every one of them is
    // another block's, b takes them all (rather than wait for blocks that may wait on b).
    candidates.clear();
    reachable.clear();
    ++stamp_;
    auto consider = [&](Index w) {
      if (!free(w) || mark_[static_cast<std::size_t>(w)] == stamp_) return;
      mark_[static_cast<std::size_t>(w)] = stamp_;
      reachable.push_back(w);
      if (strongest(w, Tally::Advance, b) == b) candidates.push_back(w);
    };
    auto& deferred = deferred_[static_cast<std::size_t>(b)];
    for (Index w : deferred) consider(w);
    for (Index v : frontier_[static_cast<std::size_t>(b)])
      for (Index w : neighbours(graph_, v)) consider(w);
    if (reachable.empty()) continue;  // trapped
    if (candidates.empty()) candidates = reachable;
    next.clear();
    for (Index w : candidates) {
      owner_[static_cast<std::size_t>(w)] = b;
      next.push_back(w);
      nodes.push_back(w);
      if (nodes.size() == full) break;
    }
    deferred.clear();
    for (Index w : reachable)
      if (free(w)) deferred.push_back(w);
    frontier_[static_cast<std::size_t>(b)].swap(next);
    if (nodes.size() < full) smallest.emplace(nodes.size(), b);
  }
}

// Step 9: each block's free neighbours become the first row of a child (a node next to several
// blocks goes to the strongest); a child in several connected pieces becomes one child per piece.
std::vector<Index> Aligned::children(const std::vector<Index>& layer) {
  std::vector<Index> candidates;
  ++stamp_;
  for (Index b : layer)
    for (Index v : nodes_[static_cast<std::size_t>(b)])
      for (Index w : neighbours(graph_, v))
        if (free(w) && mark_[static_cast<std::size_t>(w)] != stamp_) {
          mark_[static_cast<std::size_t>(w)] = stamp_;
          candidates.push_back(w);
        }
  std::vector<Index> parent(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) parent[i] = strongest(candidates[i], Tally::Parent, -1);
  std::vector<Index> child_of(first_.size(), -1);  // parent block -> its child
  std::vector<Index> next_layer, children_made;
  for (Index b : layer) {
    child_of[static_cast<std::size_t>(b)] = new_block();
    children_made.push_back(child_of[static_cast<std::size_t>(b)]);
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Index child = child_of[static_cast<std::size_t>(parent[i])];
    owner_[static_cast<std::size_t>(candidates[i])] = child;
    first_[static_cast<std::size_t>(child)].push_back(candidates[i]);
  }
  for (Index b : layer) in_layer_[static_cast<std::size_t>(b)] = 0;
  for (Index child : children_made) {
    if (first_[static_cast<std::size_t>(child)].empty()) {
      dead_[static_cast<std::size_t>(child)] = 1;
      continue;
    }
    in_layer_[static_cast<std::size_t>(child)] = 1;
    split_pieces(child, first_, next_layer);
  }
  return next_layer;
}

// Splits block b's set in `sets` (first_: its first row, nodes_: its nodes after the final
// advance) into its connected pieces: b keeps the first, each other becomes a new block of the
// current layer; all are appended to `layer`.
void Aligned::split_pieces(Index b, std::vector<std::vector<Index>>& sets, std::vector<Index>& layer) {
  std::vector<Index> nodes;
  nodes.swap(sets[static_cast<std::size_t>(b)]);
  std::vector<Index> queue;
  ++stamp_;
  for (Index seed : nodes) {
    if (mark_[static_cast<std::size_t>(seed)] == stamp_) continue;
    const Index piece = sets[static_cast<std::size_t>(b)].empty() ? b : new_block();
    mark_[static_cast<std::size_t>(seed)] = stamp_;
    queue.assign(1, seed);
    for (std::size_t head = 0; head < queue.size(); ++head)
      for (Index w : neighbours(graph_, queue[head]))
        if (owner_[static_cast<std::size_t>(w)] == b && mark_[static_cast<std::size_t>(w)] != stamp_) {
          mark_[static_cast<std::size_t>(w)] = stamp_;
          queue.push_back(w);
        }
    for (Index v : queue) owner_[static_cast<std::size_t>(v)] = piece;
    sets[static_cast<std::size_t>(piece)] = queue;
    in_layer_[static_cast<std::size_t>(piece)] = 1;
    layer.push_back(piece);
  }
}

Index Aligned::strongest(Index w, Tally tally, Index prefer) const {
  constexpr int max_tally = 64;  // distinct blocks around one node; beyond that the rest are not counted
  Index blocks[max_tally];
  int counts[max_tally];
  int n = 0;
  for (Index u : neighbours(graph_, w)) {
    const Index r = tally == Tally::Test ? region_of(u) : layer_owner(u);
    if (r < 0) continue;
    if (tally == Tally::Advance && nodes_[static_cast<std::size_t>(r)].size() >= static_cast<std::size_t>(block_size_))
      continue;
    int i = 0;
    while (i < n && blocks[i] != r) ++i;
    if (i == n) {
      if (n == max_tally) continue;
      blocks[n] = r;
      counts[n++] = 0;
    }
    ++counts[i];
  }
  Index best = -1;
  int best_count = 0;
  for (int i = 0; i < n; ++i)
    if (counts[i] > best_count ||
        (counts[i] == best_count && blocks[i] != best && (blocks[i] == prefer || (best != prefer && blocks[i] < best)))) {
      best = blocks[i];
      best_count = counts[i];
    }
  return best;
}

// What the layers left unassigned (none when the advance reached everything, as it does in a
// connected part) is grown into blocks breadth-first.
void Aligned::sweep_remaining() {
  std::vector<Index> queue;
  for (Index seed = 0; seed < graph_.n_nodes(); ++seed) {
    if (!free(seed)) continue;
    const Index b = new_block();
    owner_[static_cast<std::size_t>(seed)] = b;
    queue.assign(1, seed);
    for (std::size_t head = 0; head < queue.size() && static_cast<int>(queue.size()) < block_size_; ++head)
      for (Index w : neighbours(graph_, queue[head])) {
        if (!free(w)) continue;
        owner_[static_cast<std::size_t>(w)] = b;
        queue.push_back(w);
        if (static_cast<int>(queue.size()) == block_size_) break;
      }
  }
}

std::vector<Index> Aligned::run() {
  const Index n = graph_.n_nodes();
  const detail::BoundaryGraph boundary = detail::boundary_graph(mesh_);
  // Connected parts of the graph, each with its extreme node, partitioned one after the other.
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  std::vector<Index> part;
  for (Index start = 0; start < n; ++start) {
    if (seen[static_cast<std::size_t>(start)] || isolated(graph_, start)) continue;
    part.assign(1, start);
    seen[static_cast<std::size_t>(start)] = 1;
    for (std::size_t head = 0; head < part.size(); ++head)
      for (Index w : neighbours(graph_, part[head]))
        if (!seen[static_cast<std::size_t>(w)]) {
          seen[static_cast<std::size_t>(w)] = 1;
          part.push_back(w);
        }
    std::vector<Index> layer = first_rows(boundary, detail::extreme_node(mesh_, part));
    for (Index b : layer) in_layer_[static_cast<std::size_t>(b)] = 1;
    while (!layer.empty()) {
      test_advance(layer);
      fix_sizes(layer);
      for (Index b : layer) {  // step 6: release all but the first rows
        for (Index v : region_[static_cast<std::size_t>(b)]) owner_[static_cast<std::size_t>(v)] = free_node;
        region_[static_cast<std::size_t>(b)].clear();
      }
      final_advance(layer);
      // A join (or a split) can leave a first row in pieces that only the released region
      // connected; when the pieces did not grow together again, each becomes a block of its own.
      std::vector<Index> grown;
      for (Index b : layer) split_pieces(b, nodes_, grown);
      layer.swap(grown);
      layer = children(layer);
    }
  }
  sweep_remaining();
  std::vector<Index> block_of = std::move(owner_);
  for (Index& b : block_of)
    if (b < 0) b = -1;  // isolated nodes, placed below
  Index n_blocks = compact(block_of, static_cast<Index>(first_.size()));
  n_blocks = detail::place_isolated(graph_, block_of, n_blocks, block_size_);
  (void)n_blocks;
  return block_of;
}

}  // namespace

std::vector<Index> aligned_blocks(const NodeGraph& graph, const Mesh& mesh, int block_size) {
  check_block_size(block_size);
  TREMOR_CHECK(mesh.n_nodes() == graph.n_nodes(), "the node graph has ", graph.n_nodes(), " nodes, the mesh ",
               mesh.n_nodes());
  return Aligned(graph, mesh, block_size).run();
}

}  // namespace tremor::partition
