// Memory arrangement within blocks and the link tables between them (pogo paper section 3.2).
//
// Boundary order. The paper walks a 2D block's boundary loop from a join between two neighbours,
// so that the nodes each neighbour needs are contiguous. Here the walk is over groups of boundary
// nodes with the same signature (the set of other blocks they link to): in 2D these are the sides
// ({N}, {E}, ...) and the corners between them ({N, E}, ...); the walk goes from group to an
// adjacent group sharing the most neighbour blocks (side, corner, next side, ...), which is the
// paper's loop, starting at a side group, and within a group breadth-first from the node next to
// the previous group. In 3D the groups are faces, edges and corners of the block's surface: no
// order keeps every face's nodes together (a face borders four edge groups), so the walk keeps a
// face with two of its edges and the loads pick up the rest in 8 and 16-node pieces.
//
// Loads (Fig. 5). Per block, the 8-node sections of other blocks' boundary rows it needs are
// gathered per (block, row) as a 4-bit mask. The 32-node loads go to whole rows in the order of
// Fig. 5(d): rows needing 4 sections first, then 3, then 2 apart (which would take two smaller
// loads), then 2 adjacent, then 1 (the figure itself is not in the text we follow; this ranks the
// patterns by what a 32-node load saves). Then the 16-node loads take two consecutive sections
// where a row has them, single sections after that (wasting half a load); the 8-node loads take
// what remains. Sections left over make the block fail.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <utility>

#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/partition/graph_tools.hpp"
#include "tremor/partition/partition.hpp"

namespace tremor::partition {

using detail::neighbours;

namespace {

int priority_32(unsigned mask) {
  const int bits = std::popcount(mask);
  if (bits == 4) return 5;
  if (bits == 3) return 4;
  if (bits == 2) return (mask == 0b0011u || mask == 0b0110u || mask == 0b1100u) ? 2 : 3;
  return bits;  // 1 or 0
}

class Arranger {
 public:
  Arranger(const NodeGraph& graph, std::vector<Index> block_of, const BlockLayout& layout)
      : graph_(graph),
        layout_(layout),
        block_of_(std::move(block_of)),
        local_slot_(static_cast<std::size_t>(graph.n_nodes()), -1),
        group_of_(static_cast<std::size_t>(graph.n_nodes()), -1),
        placed_(static_cast<std::size_t>(graph.n_nodes()), 0),
        visit_(static_cast<std::size_t>(graph.n_nodes()), 0),
        splitter_(graph.n_nodes()) {}

  BlockPartition run();

 private:
  Index n_blocks() const { return static_cast<Index>(members_.size()); }
  bool arrange_memory(Index b);
  Index farthest_in_group(Index start, Index g, Index b);
  bool build_links(Index b);
  std::vector<Index> neighbour_blocks(Index b) const;
  Index split(Index b);

  const NodeGraph& graph_;
  BlockLayout layout_;
  std::vector<Index> block_of_;
  std::vector<std::vector<Index>> members_;  // per block, in slot order once arranged
  std::vector<Index> boundary_count_;        // per block: its boundary nodes lead its slots
  std::vector<Index> local_slot_;            // per node: slot within its block
  std::vector<Index> loads_;                 // n_loads per block: global slot starts, -1 unused
  std::vector<Index> needed_;                // per block: sections it needs from others
  // Scratch for arrange_memory: group of each boundary node, placement stamps.
  std::vector<Index> group_of_;
  std::vector<unsigned> placed_, visit_;
  unsigned stamp_ = 0, visit_stamp_ = 0;
  std::vector<Index> search_;
  detail::Splitter splitter_;
  Index splits_ = 0;
};

std::vector<Index> Arranger::neighbour_blocks(Index b) const {
  std::vector<Index> blocks;
  for (Index v : members_[static_cast<std::size_t>(b)])
    for (Index w : neighbours(graph_, v))
      if (block_of_[static_cast<std::size_t>(w)] != b) blocks.push_back(block_of_[static_cast<std::size_t>(w)]);
  std::sort(blocks.begin(), blocks.end());
  blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  return blocks;
}

// The unplaced node of group g (of block b) farthest from `start` by breadth-first search within
// the group: an end of it, so that walking the group from there keeps it in one line.
Index Arranger::farthest_in_group(Index start, Index g, Index b) {
  ++visit_stamp_;
  search_.assign(1, start);
  visit_[static_cast<std::size_t>(start)] = visit_stamp_;
  for (std::size_t head = 0; head < search_.size(); ++head)
    for (Index w : neighbours(graph_, search_[head])) {
      const auto k = static_cast<std::size_t>(w);
      if (block_of_[k] != b || group_of_[k] != g || placed_[k] == stamp_ || visit_[k] == visit_stamp_) continue;
      visit_[k] = visit_stamp_;
      search_.push_back(w);
    }
  return search_.back();
}

// Orders block b's nodes in its slots: boundary nodes first in walk order (above), then the
// interior breadth-first inwards from the boundary. Returns false when the boundary does not fit
// in the boundary rows (the slots are still assigned, in the old order).
bool Arranger::arrange_memory(Index b) {
  auto& members = members_[static_cast<std::size_t>(b)];
  std::vector<Index> boundary, interior;
  for (Index v : members) {
    bool on_boundary = false;
    for (Index w : neighbours(graph_, v))
      if (block_of_[static_cast<std::size_t>(w)] != b) {
        on_boundary = true;
        break;
      }
    (on_boundary ? boundary : interior).push_back(v);
  }
  if (static_cast<int>(boundary.size()) > layout_.boundary_capacity()) {
    for (std::size_t i = 0; i < members.size(); ++i) local_slot_[static_cast<std::size_t>(members[i])] = static_cast<Index>(i);
    return false;
  }
  // Signatures and groups.
  const std::size_t n_boundary = boundary.size();
  std::vector<std::vector<Index>> signature(n_boundary);
  for (std::size_t i = 0; i < n_boundary; ++i) {
    for (Index w : neighbours(graph_, boundary[i]))
      if (block_of_[static_cast<std::size_t>(w)] != b) signature[i].push_back(block_of_[static_cast<std::size_t>(w)]);
    std::sort(signature[i].begin(), signature[i].end());
    signature[i].erase(std::unique(signature[i].begin(), signature[i].end()), signature[i].end());
  }
  std::vector<std::size_t> by_signature(n_boundary);
  for (std::size_t i = 0; i < n_boundary; ++i) by_signature[i] = i;
  std::stable_sort(by_signature.begin(), by_signature.end(),
                   [&](std::size_t x, std::size_t y) { return signature[x] < signature[y]; });
  std::vector<std::vector<Index>> groups;       // nodes of each group, in member order
  std::vector<const std::vector<Index>*> group_signature;
  for (std::size_t k = 0; k < n_boundary; ++k) {
    const std::size_t i = by_signature[k];
    if (k == 0 || signature[i] != signature[by_signature[k - 1]]) {
      groups.emplace_back();
      group_signature.push_back(&signature[i]);
    }
    groups.back().push_back(boundary[i]);
    group_of_[static_cast<std::size_t>(boundary[i])] = static_cast<Index>(groups.size()) - 1;
  }
  const std::size_t n_groups = groups.size();
  std::vector<char> adjacent(n_groups * n_groups, 0);
  for (Index v : boundary)
    for (Index w : neighbours(graph_, v))
      if (block_of_[static_cast<std::size_t>(w)] == b && w != v) {
        const Index gw = group_of_[static_cast<std::size_t>(w)];
        const Index gv = group_of_[static_cast<std::size_t>(v)];
        if (gw >= 0 && gw != gv) adjacent[static_cast<std::size_t>(gv) * n_groups + static_cast<std::size_t>(gw)] = 1;
      }
  auto overlap = [&](std::size_t g, std::size_t h) {
    const auto& x = *group_signature[g];
    const auto& y = *group_signature[h];
    std::size_t common = 0;
    for (std::size_t i = 0, j = 0; i < x.size() && j < y.size();) {
      if (x[i] < y[j]) ++i;
      else if (y[j] < x[i]) ++j;
      else {
        ++common;
        ++i;
        ++j;
      }
    }
    return common;
  };
  // The walk over groups: start at the first single-neighbour group (a side), then repeatedly the
  // unvisited group adjacent to the current one sharing the most neighbours (any unvisited group
  // sharing the most, when none is adjacent).
  std::vector<std::size_t> walk;
  std::vector<char> visited(n_groups, 0);
  std::size_t current = 0;
  for (std::size_t g = 0; g < n_groups; ++g)
    if (group_signature[g]->size() == 1) {
      current = g;
      break;
    }
  while (n_groups > 0) {
    visited[current] = 1;
    walk.push_back(current);
    if (walk.size() == n_groups) break;
    std::size_t best = n_groups;
    std::pair<int, std::size_t> best_score{-1, 0};
    for (std::size_t h = 0; h < n_groups; ++h) {
      if (visited[h]) continue;
      const std::pair<int, std::size_t> score{adjacent[current * n_groups + h], overlap(current, h)};
      if (score > best_score) {
        best_score = score;
        best = h;
      }
    }
    current = best;
  }
  // Nodes group by group, breadth-first within a group from a node next to what is placed.
  ++stamp_;
  std::vector<Index> order;
  order.reserve(members.size());
  std::vector<Index> queue;
  for (std::size_t g : walk) {
    const auto& nodes = groups[g];
    std::size_t done = 0;
    while (done < nodes.size()) {
      Index seed = -1;
      if (!order.empty())
        for (Index w : neighbours(graph_, order.back()))
          if (group_of_[static_cast<std::size_t>(w)] == static_cast<Index>(g) && block_of_[static_cast<std::size_t>(w)] == b &&
              placed_[static_cast<std::size_t>(w)] != stamp_) {
            seed = w;
            break;
          }
      if (seed < 0) {  // nothing placed next to it: start at an end of the group
        for (Index v : nodes)
          if (placed_[static_cast<std::size_t>(v)] != stamp_) {
            seed = v;
            break;
          }
        seed = farthest_in_group(seed, static_cast<Index>(g), b);
      }
      placed_[static_cast<std::size_t>(seed)] = stamp_;
      queue.assign(1, seed);
      for (std::size_t head = 0; head < queue.size(); ++head)
        for (Index w : neighbours(graph_, queue[head]))
          if (block_of_[static_cast<std::size_t>(w)] == b && group_of_[static_cast<std::size_t>(w)] == static_cast<Index>(g) &&
              placed_[static_cast<std::size_t>(w)] != stamp_) {
            placed_[static_cast<std::size_t>(w)] = stamp_;
            queue.push_back(w);
          }
      order.insert(order.end(), queue.begin(), queue.end());
      done += queue.size();
    }
  }
  for (Index v : boundary) group_of_[static_cast<std::size_t>(v)] = -1;
  // Interior: breadth-first from the boundary inwards; unreachable pieces after.
  for (std::size_t head = 0; head < order.size(); ++head)
    for (Index w : neighbours(graph_, order[head]))
      if (block_of_[static_cast<std::size_t>(w)] == b && placed_[static_cast<std::size_t>(w)] != stamp_) {
        placed_[static_cast<std::size_t>(w)] = stamp_;
        order.push_back(w);
      }
  for (Index v : interior)
    if (placed_[static_cast<std::size_t>(v)] != stamp_) {
      placed_[static_cast<std::size_t>(v)] = stamp_;
      order.push_back(v);
    }
  TREMOR_ASSERT(order.size() == members.size());
  members = std::move(order);
  boundary_count_[static_cast<std::size_t>(b)] = static_cast<Index>(n_boundary);
  for (std::size_t i = 0; i < members.size(); ++i) local_slot_[static_cast<std::size_t>(members[i])] = static_cast<Index>(i);
  return true;
}

// Block b's link table (above). Returns false when its loads cannot bring in every section it needs.
bool Arranger::build_links(Index b) {
  const Size bs = layout_.block_size;
  const auto& members = members_[static_cast<std::size_t>(b)];
  // Needed sections as (block, row) * sections_per_row + section keys.
  std::vector<Size> keys;
  for (Index i = 0; i < boundary_count_[static_cast<std::size_t>(b)]; ++i)
    for (Index w : neighbours(graph_, members[static_cast<std::size_t>(i)])) {
      const Index d = block_of_[static_cast<std::size_t>(w)];
      if (d == b) continue;
      const Index slot = local_slot_[static_cast<std::size_t>(w)];
      keys.push_back((static_cast<Size>(d) * layout_.n_rows() + slot / row_width) * sections_per_row +
                     (slot % row_width) / section_width);
    }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  needed_[static_cast<std::size_t>(b)] = static_cast<Index>(keys.size());
  struct Row {
    Size start;  // global slot of the row's first node
    unsigned mask;
  };
  std::vector<Row> rows;
  for (Size key : keys) {
    const Size row_key = key / sections_per_row;
    const Size start = (row_key / layout_.n_rows()) * bs + (row_key % layout_.n_rows()) * row_width;
    if ((row_key % layout_.n_rows()) >= layout_.boundary_rows) return false;  // outside the boundary rows
    if (rows.empty() || rows.back().start != start) rows.push_back({start, 0u});
    rows.back().mask |= 1u << (key % sections_per_row);
  }
  Index* table = loads_.data() + static_cast<std::size_t>(b) * static_cast<std::size_t>(layout_.n_loads());
  std::fill(table, table + layout_.n_loads(), Index(-1));
  int k = 0;
  // 32-node loads, by the priorities of Fig. 5(d).
  for (int used = 0; used < layout_.loads[0]; ++used) {
    Row* best = nullptr;
    for (Row& row : rows)
      if (row.mask != 0 && (best == nullptr || priority_32(row.mask) > priority_32(best->mask))) best = &row;
    if (best == nullptr) break;
    table[k + used] = static_cast<Index>(best->start);
    best->mask = 0;
  }
  k = layout_.loads[0];
  // 16-node loads: two consecutive sections first, then single ones.
  for (int used = 0; used < layout_.loads[1]; ++used) {
    Row* best = nullptr;
    int first = -1;
    for (Row& row : rows)
      for (int s = 0; s + 1 < sections_per_row && first < 0; ++s)
        if ((row.mask >> s & 3u) == 3u) {
          best = &row;
          first = s;
        }
    if (best == nullptr)
      for (Row& row : rows)
        if (row.mask != 0) {
          best = &row;
          first = std::min(std::countr_zero(row.mask), sections_per_row - 2);
          break;
        }
    if (best == nullptr) break;
    table[k + used] = static_cast<Index>(best->start + first * section_width);
    best->mask &= ~(3u << first);
  }
  k = layout_.loads[0] + layout_.loads[1];
  // 8-node loads: what remains.
  int used = 0;
  for (Row& row : rows)
    while (row.mask != 0) {
      if (used == layout_.loads[2]) return false;
      const int s = std::countr_zero(row.mask);
      table[k + used++] = static_cast<Index>(row.start + s * section_width);
      row.mask &= row.mask - 1;
    }
  return true;
}

// Splits block b in two (advancing from its two ends until the halves meet); the second half
// becomes a new block. Throws when b has a single node.
Index Arranger::split(Index b) {
  auto& members = members_[static_cast<std::size_t>(b)];
  if (members.size() < 2) {
    TREMOR_ASSERT(members.size() == 1);
    const Index v = members.front();
    throw Error(str("the block layout (", layout_.boundary_rows, " boundary rows, loads ", layout_.loads[0], " x 32, ",
                    layout_.loads[1], " x 16, ", layout_.loads[2], " x 8) cannot serve node ", v, " (",
                    neighbours(graph_, v).size() - 1,
                    " neighbours) even in a block of its own: raise the loads or the boundary rows"));
  }
  const std::vector<Index> half = splitter_.split(graph_, members, members);
  const Index c = n_blocks();
  for (Index v : half) block_of_[static_cast<std::size_t>(v)] = c;
  std::erase_if(members, [&](Index v) { return block_of_[static_cast<std::size_t>(v)] == c; });
  members_.push_back(half);
  boundary_count_.push_back(0);
  needed_.push_back(0);
  loads_.resize(static_cast<std::size_t>(n_blocks()) * static_cast<std::size_t>(layout_.n_loads()), -1);
  ++splits_;
  return c;
}

BlockPartition Arranger::run() {
  const auto t0 = Clock::now();
  const Index n = graph_.n_nodes();
  Index count = 0;
  for (Index v = 0; v < n; ++v) {
    const Index b = block_of_[static_cast<std::size_t>(v)];
    TREMOR_CHECK(b >= 0, "node ", v, " is in no block");
    count = std::max(count, b + 1);
  }
  members_.assign(static_cast<std::size_t>(count), {});
  for (Index v = 0; v < n; ++v) members_[static_cast<std::size_t>(block_of_[static_cast<std::size_t>(v)])].push_back(v);
  for (Index b = 0; b < count; ++b) {
    const auto size = members_[static_cast<std::size_t>(b)].size();
    TREMOR_CHECK(size > 0, "block ", b, " is empty (blocks must be numbered 0..", count - 1, ")");
    TREMOR_CHECK(size <= static_cast<std::size_t>(layout_.block_size), "block ", b, " has ", size,
                 " nodes, more than the block size ", layout_.block_size);
  }
  boundary_count_.assign(static_cast<std::size_t>(count), 0);
  needed_.assign(static_cast<std::size_t>(count), 0);
  loads_.assign(static_cast<std::size_t>(count) * static_cast<std::size_t>(layout_.n_loads()), -1);

  // Blocks whose memory is (re)arranged next; a split block's pieces and its neighbours (whose
  // boundary groups change with it) are arranged again, and every block next to a block whose
  // slots changed rebuilds its link table.
  std::vector<Index> to_arrange(static_cast<std::size_t>(count));
  for (Index b = 0; b < count; ++b) to_arrange[static_cast<std::size_t>(b)] = b;
  std::vector<char> queued(static_cast<std::size_t>(count), 1), table_dirty(static_cast<std::size_t>(count), 1);
  auto split_and_queue = [&](Index b, std::vector<Index>& queue) {
    const Index c = split(b);
    queued.resize(static_cast<std::size_t>(n_blocks()), 0);
    table_dirty.resize(static_cast<std::size_t>(n_blocks()), 0);
    for (Index piece : {b, c}) {
      std::vector<Index> around = neighbour_blocks(piece);
      around.push_back(piece);
      for (Index d : around)
        if (!queued[static_cast<std::size_t>(d)]) {
          queued[static_cast<std::size_t>(d)] = 1;
          queue.push_back(d);
        }
    }
  };
  int passes = 0;
  for (;;) {
    // Memory first: a block whose boundary overflows its rows is split until the pieces fit.
    while (!to_arrange.empty()) {
      std::vector<Index> next;
      for (Index b : to_arrange) queued[static_cast<std::size_t>(b)] = 0;
      for (Index b : to_arrange) {
        if (!arrange_memory(b)) {
          split_and_queue(b, next);
          continue;
        }
        table_dirty[static_cast<std::size_t>(b)] = 1;
        for (Index d : neighbour_blocks(b)) table_dirty[static_cast<std::size_t>(d)] = 1;
      }
      to_arrange.swap(next);
    }
    ++passes;
    TREMOR_CHECK(passes < 100000, "the memory arrangement did not settle after ", passes, " passes");
    std::vector<Index> failed;
    for (Index b = 0; b < n_blocks(); ++b) {
      if (!table_dirty[static_cast<std::size_t>(b)]) continue;
      table_dirty[static_cast<std::size_t>(b)] = 0;
      if (!build_links(b)) failed.push_back(b);
    }
    if (failed.empty()) break;
    // Split the failed blocks largest first, but not two neighbours in one pass: splitting a block
    // changes what its neighbours need, and a cluster of failed blocks split all at once breaks
    // up into ever smaller pieces with ever more neighbours.
    std::stable_sort(failed.begin(), failed.end(), [&](Index x, Index y) {
      return members_[static_cast<std::size_t>(x)].size() > members_[static_cast<std::size_t>(y)].size();
    });
    std::vector<char> blocked(static_cast<std::size_t>(n_blocks()), 0);
    std::vector<Index> chosen;
    for (Index b : failed) {
      if (blocked[static_cast<std::size_t>(b)]) {
        table_dirty[static_cast<std::size_t>(b)] = 1;  // looked at again next pass
        continue;
      }
      chosen.push_back(b);
      for (Index d : neighbour_blocks(b)) blocked[static_cast<std::size_t>(d)] = 1;
    }
    for (Index b : chosen) split_and_queue(b, to_arrange);
  }

  BlockPartition result;
  result.layout = layout_;
  result.n_nodes = n;
  result.n_blocks = n_blocks();
  result.fingerprint = graph_fingerprint(graph_);
  result.partitioner = "given";
  const auto bs = static_cast<std::size_t>(layout_.block_size);
  result.slot_node.assign(static_cast<std::size_t>(n_blocks()) * bs, -1);
  for (Index b = 0; b < n_blocks(); ++b) {
    const auto& members = members_[static_cast<std::size_t>(b)];
    std::copy(members.begin(), members.end(), result.slot_node.begin() + static_cast<std::ptrdiff_t>(b * bs));
  }
  result.load_start = std::move(loads_);
  PartitionStats& stats = result.stats;
  stats.initial_blocks = count;
  stats.split_blocks = splits_;
  stats.arrange_passes = passes;
  for (Index b = 0; b < n_blocks(); ++b) {
    stats.needed_sections += needed_[static_cast<std::size_t>(b)];
    for (int k = 0; k < layout_.n_loads(); ++k)
      if (result.load_start[static_cast<std::size_t>(b) * layout_.n_loads() + k] >= 0) {
        ++stats.loads_used[layout_.load_kind(k)];
        stats.loaded_slots += layout_.load_length(k);
      }
  }
  stats.arrange_seconds = seconds_since(t0);
  return result;
}

}  // namespace

BlockPartition arrange_blocks(const NodeGraph& graph, std::vector<Index> block_of_node, const BlockLayout& layout) {
  layout.validate();
  TREMOR_CHECK(static_cast<Index>(block_of_node.size()) == graph.n_nodes(), "a block per node: ",
               block_of_node.size(), " given for ", graph.n_nodes(), " nodes");
  return Arranger(graph, std::move(block_of_node), layout).run();
}

}  // namespace tremor::partition
