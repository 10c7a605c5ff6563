// Kernel 1 of the two-kernel assembly (two_kernel.hpp; paper section IV.A.1): the nodal pattern
// from the connectivity alone, and the index arrays of the formats built on it.
#include <algorithm>
#include <functional>
#include <span>
#include <vector>

#include "tremor/backend/atomic.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/backend/forall_blocks.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/search.hpp"
#include "tremor/sparse/element_kernels.hpp"
#include "tremor/sparse/scan.hpp"
#include "tremor/sparse/two_kernel.hpp"
#include "tremor/sparse/two_kernel_detail.hpp"

namespace tremor::sparse {

namespace {

// A non-empty element block as kernel 1 sees it: elements first .. first + n - 1 (global).
struct BlockRef {
  const Index* connectivity;
  Index first;
  int n_element_nodes;
};

// The node -> element incidence (global element indices) and the blocks to find their nodes.
struct Incidence {
  const Size* offsets;    // n_nodes + 1
  const Index* elements;  // global element indices touching each node
  const BlockRef* blocks;
  int n_blocks;
};

// The nodes of global element e: its block found by bisection on the blocks' first elements
// (a handful of blocks: a few cached loads).
TREMOR_HOST_DEVICE inline const Index* element_nodes(const BlockRef* blocks, int n_blocks, Index e, int& n) {
  int lo = 0, hi = n_blocks - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (blocks[mid].first <= e)
      lo = mid;
    else
      hi = mid - 1;
  }
  n = blocks[lo].n_element_nodes;
  return blocks[lo].connectivity + static_cast<Size>(e - blocks[lo].first) * n;
}

// Calls visit(c) once for every node c != node sharing an element with `node`, at the first
// place it occurs among the nodes of the node's elements (in incidence order): a candidate is
// new when it is neither earlier in its own element nor in an earlier element of the list. No
// buffer, so no cap on the neighbours; O(m^2) comparisons for m candidates (64 for an interior
// hex8 node, a few hundred for tetrahedral meshes), all on connectivity already in cache.
template <class Visit>
TREMOR_HOST_DEVICE inline void for_each_new_neighbour(const Incidence& in, Index node, Visit&& visit) {
  const Size begin = in.offsets[node], end = in.offsets[node + 1];
  for (Size k = begin; k < end; ++k) {
    int n = 0;
    const Index* nodes = element_nodes(in.blocks, in.n_blocks, in.elements[k], n);
    for (int a = 0; a < n; ++a) {
      const Index candidate = nodes[a];
      if (candidate == node) continue;
      bool seen = false;
      for (int b = 0; b < a && !seen; ++b) seen = nodes[b] == candidate;
      for (Size earlier = begin; earlier < k && !seen; ++earlier) {
        int m = 0;
        const Index* other = element_nodes(in.blocks, in.n_blocks, in.elements[earlier], m);
        for (int b = 0; b < m && !seen; ++b) seen = other[b] == candidate;
      }
      if (!seen) visit(candidate);
    }
  }
}

// Incidence count: one thread per connectivity entry of a block, an atomic increment of its
// node's count (paper section IV.C: atomics where threads share a node).
// Traffic per entry: 4 B connectivity read, one 4 B atomic.
void count_incidence(const Exec& exec, const fem::DeviceElementBlock& block, Index* counts) {
  const Index* connectivity = block.connectivity.data();
  forall(exec, block.connectivity.size(),
         [=] TREMOR_LAMBDA(Index k) { atomic_add(counts + connectivity[k], Index(1)); });
}

// Incidence fill: each entry takes the next free place of its node's list (an atomic cursor).
// The order within a list varies run to run; nothing downstream depends on it (the neighbour
// lists are sorted).
// Traffic per entry: 4 B connectivity, 8 B offset read, one 4 B atomic, 4 B element write.
void fill_incidence(const Exec& exec, const fem::DeviceElementBlock& block, const Size* offsets, Index* cursor,
                    Index* elements) {
  const Index* connectivity = block.connectivity.data();
  const Index first = block.first;
  const int per = block.n_element_nodes;
  forall(exec, block.connectivity.size(), [=] TREMOR_LAMBDA(Index k) {
    const Index node = connectivity[k];
    const Index place = atomic_add(cursor + node, Index(1));
    elements[offsets[node] + place] = first + k / per;
  });
}

// The candidates of a node: the nodes of its elements in incidence order, itself and repeats
// included (m of them: the sizes of its elements summed; 64 for an interior hex8 node).
TREMOR_HOST_DEVICE inline Index candidate_count(const Incidence& in, Index node) {
  if (in.n_blocks == 1) return static_cast<Index>(in.offsets[node + 1] - in.offsets[node]) * in.blocks[0].n_element_nodes;
  Index m = 0;
  for (Size k = in.offsets[node]; k < in.offsets[node + 1]; ++k) {
    int n = 0;
    element_nodes(in.blocks, in.n_blocks, in.elements[k], n);
    m += n;
  }
  return m;
}

// Candidate j < candidate_count(in, node): with one element block, two loads; otherwise a walk
// along the node's elements.
TREMOR_HOST_DEVICE inline Index candidate(const Incidence& in, Index node, Index j) {
  if (in.n_blocks == 1) {
    const BlockRef& block = in.blocks[0];
    const Index e = in.elements[in.offsets[node] + j / block.n_element_nodes];
    return block.connectivity[static_cast<Size>(e - block.first) * block.n_element_nodes + j % block.n_element_nodes];
  }
  for (Size k = in.offsets[node];; ++k) {
    int n = 0;
    const Index* nodes = element_nodes(in.blocks, in.n_blocks, in.elements[k], n);
    if (j < n) return nodes[j];
    j -= n;
  }
}

// How the neighbour passes spread nodes over blocks of block_threads threads: `per_block` nodes a
// block, `cap` threads (and shared slots) a node, one per candidate. A node with more candidates
// than cap (a hub of many elements, or elements of many nodes) is left to one thread of its block,
// which finds its neighbours without a buffer (for_each_new_neighbour).
constexpr int block_threads = 256;
struct NodeSets {
  int cap = 32;
  int per_block = block_threads / 32;

  // cap: the least power of two from 32 to block_threads holding `candidates` (the most any node
  // may have), so that a warp never spans two nodes.
  static NodeSets for_candidates(Size candidates) {
    NodeSets s;
    while (s.cap < block_threads && static_cast<Size>(s.cap) < candidates) s.cap *= 2;
    s.per_block = block_threads / s.cap;
    return s;
  }
  Index n_blocks(Index n_nodes) const { return (n_nodes + per_block - 1) / per_block; }
  // Candidates and their first-occurrence flags (block_threads each), the nodes' candidate counts.
  std::size_t shared_bytes() const { return (2 * block_threads + per_block) * sizeof(Index); }
};

// A block's shared scratch, filled by gather_candidates: for the node in slot s,
// candidates[s * cap + j] and first[s * cap + j] (1 where no earlier candidate of the node has the
// same value) for j < sizes[s] when sizes[s] <= cap; sizes[s] = 0 past the last node.
struct CandidateScratch {
  Index* candidates;
  Index* first;
  Index* sizes;
};

// Three phases separated by barriers: the candidate counts, the candidates (one thread each,
// adjacent threads reading adjacent connectivity), the first-occurrence flags (each candidate
// compared with the earlier ones of its node: a warp reads the same shared word at once).
TREMOR_HOST_DEVICE inline CandidateScratch gather_candidates(const BlockContext& ctx, const Incidence& in,
                                                             Index n_nodes, NodeSets sets) {
  Index* shared = ctx.shared<Index>();
  const CandidateScratch s{shared, shared + block_threads, shared + 2 * block_threads};
  const Index first_node = ctx.block * sets.per_block;
  for_each_thread(ctx, sets.per_block, [&](int slot) {
    const Index node = first_node + slot;
    s.sizes[slot] = node < n_nodes ? candidate_count(in, node) : 0;
  });
  ctx.sync();
  for_each_thread(ctx, sets.per_block * sets.cap, [&](int t) {
    const int slot = t / sets.cap, j = t % sets.cap;
    const Index m = s.sizes[slot];
    if (m > sets.cap || j >= m) return;
    s.candidates[t] = candidate(in, first_node + slot, j);
  });
  ctx.sync();
  for_each_thread(ctx, sets.per_block * sets.cap, [&](int t) {
    const int slot = t / sets.cap, j = t % sets.cap;
    const Index m = s.sizes[slot];
    if (m > sets.cap || j >= m) return;
    const Index* own = s.candidates + slot * sets.cap;
    const Index value = own[j];
    Index first = 1;
    for (int i = 0; i < j; ++i) first = own[i] == value ? 0 : first;
    s.first[t] = first;
  });
  ctx.sync();
  return s;
}

// Neighbour count (kernel 1, count pass): per node its distinct candidates (itself among them; a
// node of no element has itself only).
// Traffic per node: its incidence list (8 B offsets, 4 B per element), its candidates (4 B each,
// from the connectivity in cache), one 4 B write; m (m - 1) / 2 shared comparisons.
void count_neighbours(const Exec& exec, Index n_nodes, Incidence in, NodeSets sets, Index* counts) {
  forall_blocks<block_threads>(
      exec, sets.n_blocks(n_nodes), block_threads, sets.shared_bytes(), [=] TREMOR_LAMBDA(const BlockContext& ctx) {
        const CandidateScratch s = gather_candidates(ctx, in, n_nodes, sets);
        for_each_thread(ctx, sets.per_block, [&](int slot) {
          const Index node = ctx.block * sets.per_block + slot;
          if (node >= n_nodes) return;
          const Index m = s.sizes[slot];
          Index count = 1;
          if (m > sets.cap) {
            for_each_new_neighbour(in, node, [&](Index) { ++count; });
          } else if (m > 0) {
            count = 0;
            for (Index j = 0; j < m; ++j) count += s.first[slot * sets.cap + j];
          }
          counts[node] = count;
        });
      });
}

// Neighbour fill (kernel 1, fill pass): each first occurrence of a candidate is stored at its rank
// among the node's distinct candidates (the distinct ones less than it, counted over the node's
// candidates in shared memory), so the row comes out sorted with no sort; `sink` writes the
// format's columns of the entry at once. A node past cap: itself, its new neighbours as the
// count pass met them, an insertion sort of the row in place, then the sink entry by entry.
// Traffic per node: as the count pass, plus its row (4 B per neighbour) and the sink's columns;
// m^2 shared comparisons.
void fill_neighbours(const Exec& exec, Index n_nodes, Incidence in, NodeSets sets, const Size* offsets,
                     Index* neighbours, detail::ScalarIndexSink sink) {
  forall_blocks<block_threads>(
      exec, sets.n_blocks(n_nodes), block_threads, sets.shared_bytes(), [=] TREMOR_LAMBDA(const BlockContext& ctx) {
        const CandidateScratch s = gather_candidates(ctx, in, n_nodes, sets);
        for_each_thread(ctx, sets.per_block * sets.cap, [&](int t) {
          const int slot = t / sets.cap, j = t % sets.cap;
          const Index m = s.sizes[slot];
          if (m > sets.cap || j >= m || s.first[t] == 0) return;
          const Index* own = s.candidates + slot * sets.cap;
          const Index* first = s.first + slot * sets.cap;
          const Index value = own[j];
          Index rank = 0;
          for (Index i = 0; i < m; ++i) rank += first[i] != 0 && own[i] < value ? 1 : 0;
          const Index node = ctx.block * sets.per_block + slot;
          const Size begin = offsets[node];
          neighbours[begin + rank] = value;
          sink.write(node, begin, offsets[node + 1] - begin, rank, value);
        });
        for_each_thread(ctx, sets.per_block, [&](int slot) {
          const Index node = ctx.block * sets.per_block + slot;
          if (node >= n_nodes) return;
          const Index m = s.sizes[slot];
          if (m != 0 && m <= sets.cap) return;
          const Size begin = offsets[node];
          Index* row = neighbours + begin;
          Size count = 0;
          row[count++] = node;
          if (m > 0) for_each_new_neighbour(in, node, [&](Index neighbour) { row[count++] = neighbour; });
          for (Size i = 1; i < count; ++i) {
            const Index key = row[i];
            Size j = i;
            for (; j > 0 && row[j - 1] > key; --j) row[j] = row[j - 1];
            row[j] = key;
          }
          for (Size k = 0; k < count; ++k) sink.write(node, begin, count, k, row[k]);
        });
      });
}

}  // namespace

namespace detail {

NodalPattern build_nodal_pattern(const Exec& exec, const fem::DeviceElements& elements,
                                 const std::function<ScalarIndexSink(const NodalPattern&)>& make_sink) {
  fem::check_space(exec, elements, "kernel 1 (sparsity)");
  const Index n_nodes = elements.n_nodes;
  NodalPattern pattern;
  pattern.dim = elements.dim;
  pattern.n_nodes = n_nodes;

  // Node -> element incidence: count, scan, fill.
  DeviceArray<Index> counts(exec, n_nodes);
  Index* count = counts.data();
  forall(exec, n_nodes, [=] TREMOR_LAMBDA(Index i) { count[i] = 0; });
  std::vector<BlockRef> refs;
  int largest_element = 0;
  for (const fem::DeviceElementBlock& block : elements.blocks) {
    if (block.n_elements == 0) continue;
    count_incidence(exec, block, counts.data());
    refs.push_back({block.connectivity.data(), block.first, block.n_element_nodes});
    largest_element = std::max(largest_element, block.n_element_nodes);
  }
  DeviceArray<Size> incidence_offsets(exec, n_nodes + 1);
  const ScanTotals incidence_total = exclusive_scan(exec, n_nodes, counts.data(), incidence_offsets.data());
  TREMOR_CHECK(incidence_total.total <= Size(2147483647), "kernel 1: ", incidence_total.total,
               " connectivity entries exceed the 2^31 - 1 of one array");
  DeviceArray<Index> incidence_elements(exec, static_cast<Index>(incidence_total.total));
  forall(exec, n_nodes, [=] TREMOR_LAMBDA(Index i) { count[i] = 0; });
  for (const fem::DeviceElementBlock& block : elements.blocks)
    if (block.n_elements > 0)
      fill_incidence(exec, block, incidence_offsets.data(), counts.data(), incidence_elements.data());
  DeviceArray<BlockRef> blocks(exec, std::span<const BlockRef>(refs));
  const Incidence incidence{incidence_offsets.data(), incidence_elements.data(), blocks.data(),
                            static_cast<int>(refs.size())};

  // Neighbour lists: count, scan (the exact size, before allocation), fill.
  const NodeSets sets = NodeSets::for_candidates(static_cast<Size>(incidence_total.largest) * largest_element);
  count_neighbours(exec, n_nodes, incidence, sets, counts.data());
  pattern.offsets = DeviceArray<Size>(exec, n_nodes + 1);
  const ScanTotals entries = exclusive_scan(exec, n_nodes, counts.data(), pattern.offsets.data());
  TREMOR_CHECK(entries.total <= Size(2147483647), "kernel 1: ", entries.total,
               " node pairs exceed the 2^31 - 1 entries of one array");
  pattern.max_neighbours = entries.largest;
  pattern.neighbours = DeviceArray<Index>(exec, static_cast<Index>(entries.total));
  const ScalarIndexSink sink = make_sink(pattern);
  fill_neighbours(exec, n_nodes, incidence, sets, pattern.offsets.data(), pattern.neighbours.data(), sink);
  return pattern;
}

}  // namespace detail

NodalPattern build_nodal_pattern(const Exec& exec, const fem::DeviceElements& elements) {
  return detail::build_nodal_pattern(exec, elements, [](const NodalPattern&) { return detail::ScalarIndexSink{}; });
}

Size structured_hex8_nnz(Size x, Size y, Size z) {
  TREMOR_CHECK(x >= 2 && y >= 2 && z >= 2, "structured hex8 nnz: ", x, " x ", y, " x ", z,
               " nodes do not make a box of hex8 elements");
  return 108 * (x + y + z) - 162 * (x * y + y * z + z * x) + 243 * x * y * z - 72;
}

namespace detail {

// CSR row offsets from the pattern (the columns came with kernel 1's fill pass: ScalarIndexSink):
// row (node, i) starts at offsets[node] dim^2 + i count dim. One thread per node (empty ones
// included). Traffic per node: 16 B offsets read, dim offsets (8 B) written.
void scalar_row_offsets(const Exec& exec, const NodalPattern& pattern, Size* offsets) {
  const Size* node_offsets = pattern.offsets.data();
  const int dim = pattern.dim;
  const Index n_nodes = pattern.n_nodes;
  forall(exec, n_nodes, [=] TREMOR_LAMBDA(Index node) {
    const Size d = dim;
    const Size begin = node_offsets[node], count = node_offsets[node + 1] - begin;
    for (int i = 0; i < dim; ++i) offsets[static_cast<Size>(node) * d + i] = begin * d * d + i * count * d;
    if (node == n_nodes - 1) offsets[static_cast<Size>(n_nodes) * d] = (begin + count) * d * d;
  });
}

// ELL column indices (paper section IV.B.3): slot s of row r at s * n_rows + r; row (node, i)
// holds in slot k * dim + j the column of neighbour k's component j, -1 past its neighbours.
// Traffic per node: its pattern row read; width_blocks * dim^2 columns (4 B) written.
void ell_indices(const Exec& exec, const NodalPattern& pattern, Index width_blocks, Index* columns) {
  const Size* node_offsets = pattern.offsets.data();
  const Index* neighbours = pattern.neighbours.data();
  const int dim = pattern.dim;
  const Size n_rows = static_cast<Size>(pattern.n_nodes) * dim;
  forall(exec, pattern.n_nodes, [=] TREMOR_LAMBDA(Index node) {
    const Size begin = node_offsets[node], count = node_offsets[node + 1] - begin;
    for (Index k = 0; k < width_blocks; ++k)
      for (int j = 0; j < dim; ++j)
        for (int i = 0; i < dim; ++i)
          columns[(static_cast<Size>(k) * dim + j) * n_rows + static_cast<Size>(node) * dim + i] =
              k < count ? neighbours[begin + k] * dim + j : Index(-1);
  });
}

}  // namespace detail

}  // namespace tremor::sparse
