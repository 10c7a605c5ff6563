// Kernel 1 of the two-kernel assembly (two_kernel.hpp; paper section IV.A.1): the nodal pattern
// from the connectivity alone, and the index arrays of the formats built on it.
#include <span>
#include <vector>

#include "tremor/backend/atomic.hpp"
#include "tremor/backend/forall.hpp"
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

// Neighbour count (kernel 1, count pass): one thread per node, 1 (itself) + its new neighbours.
// Traffic per node: its incidence list (8 B offsets, 4 B per element), the nodes of its elements
// (cached re-reads), one 4 B write.
void count_neighbours(const Exec& exec, Index n_nodes, Incidence in, Index* counts) {
  forall(exec, n_nodes, [=] TREMOR_LAMBDA(Index node) {
    Index count = 1;
    for_each_new_neighbour(in, node, [&](Index) { ++count; });
    counts[node] = count;
  });
}

// Neighbour fill (kernel 1, fill pass): the node, then its new neighbours as the count pass met
// them, then an insertion sort of the row in place (rows are short: 27 for interior hex8 nodes).
// Traffic per node: as the count pass, plus its row written and sorted (4 B per neighbour, a
// few passes in cache).
void fill_neighbours(const Exec& exec, Index n_nodes, Incidence in, const Size* offsets, Index* neighbours) {
  forall(exec, n_nodes, [=] TREMOR_LAMBDA(Index node) {
    Index* row = neighbours + offsets[node];
    Size count = 0;
    row[count++] = node;
    for_each_new_neighbour(in, node, [&](Index candidate) { row[count++] = candidate; });
    for (Size i = 1; i < count; ++i) {
      const Index key = row[i];
      Size j = i;
      for (; j > 0 && row[j - 1] > key; --j) row[j] = row[j - 1];
      row[j] = key;
    }
  });
}

}  // namespace

NodalPattern build_nodal_pattern(const Exec& exec, const fem::DeviceElements& elements) {
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
  for (const fem::DeviceElementBlock& block : elements.blocks) {
    if (block.n_elements == 0) continue;
    count_incidence(exec, block, counts.data());
    refs.push_back({block.connectivity.data(), block.first, block.n_element_nodes});
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
  count_neighbours(exec, n_nodes, incidence, counts.data());
  pattern.offsets = DeviceArray<Size>(exec, n_nodes + 1);
  const ScanTotals entries = exclusive_scan(exec, n_nodes, counts.data(), pattern.offsets.data());
  TREMOR_CHECK(entries.total <= Size(2147483647), "kernel 1: ", entries.total,
               " node pairs exceed the 2^31 - 1 entries of one array");
  pattern.max_neighbours = entries.largest;
  pattern.neighbours = DeviceArray<Index>(exec, static_cast<Index>(entries.total));
  fill_neighbours(exec, n_nodes, incidence, pattern.offsets.data(), pattern.neighbours.data());
  return pattern;
}

Size structured_hex8_nnz(Size x, Size y, Size z) {
  TREMOR_CHECK(x >= 2 && y >= 2 && z >= 2, "structured hex8 nnz: ", x, " x ", y, " x ", z,
               " nodes do not make a box of hex8 elements");
  return 108 * (x + y + z) - 162 * (x * y + y * z + z * x) + 243 * x * y * z - 72;
}

namespace detail {

// Scalar CSR/COO index arrays from the pattern (kernel 1, paper section IV.B.1-2): row (node, i)
// holds, for each neighbour in order, its dim DOF columns. One thread per pattern entry (node,
// neighbour k), which finds its node by bisection in the node offsets and writes that neighbour's
// dim x dim columns: consecutive threads write consecutive columns of a row, so the stores
// coalesce (one thread per node writing its whole rows did not). The row
// offsets are written by a second pass, one thread per node (empty nodes included).
// Traffic per entry: log2(nodes) cached offset reads, its neighbour (4 B) read, dim^2 columns
// (4 B) written (and as many rows for COO); per node dim offsets (8 B) written.
void scalar_row_indices(const Exec& exec, const NodalPattern& pattern, Size* offsets, Index* columns, Index* rows) {
  const Size* node_offsets = pattern.offsets.data();
  const Index* neighbours = pattern.neighbours.data();
  const int dim = pattern.dim;
  const Index n_nodes = pattern.n_nodes;
  const Size n_entries = pattern.n_entries();
  TREMOR_CHECK(n_entries <= Size{2147483647}, "sparsity: ", n_entries, " pattern entries exceed 2^31 - 1");
  forall(exec, static_cast<Index>(n_entries), [=] TREMOR_LAMBDA(Index entry) {
    // The last node whose first entry is at or before `entry` (empty nodes share the next's offset).
    const Index lo = last_not_greater(node_offsets, Index{0}, n_nodes, static_cast<Size>(entry));
    const Size d = dim;
    const Size begin = node_offsets[lo], count = node_offsets[lo + 1] - begin, k = entry - begin;
    for (int i = 0; i < dim; ++i) {
      const Size first = begin * d * d + i * count * d;
      for (int j = 0; j < dim; ++j) {
        columns[first + k * d + j] = neighbours[entry] * dim + j;
        if (rows) rows[first + k * d + j] = lo * dim + i;
      }
    }
  });
  if (!offsets) return;
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
