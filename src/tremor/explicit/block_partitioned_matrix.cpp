#include "tremor/explicit/block_partitioned_matrix.hpp"

#include <algorithm>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tremor/backend/forall.hpp"
#include "tremor/backend/forall_blocks.hpp"
#include "tremor/core/error.hpp"

namespace tremor::explicit_fe {

using partition::BlockLayout;
using partition::BlockPartition;
using partition::row_width;

namespace {

// The node in `slot_node` behind shared position p of block b: its own slot p, or offset into
// the load that fills position p (-1 for a load the block does not use).
TREMOR_HOST_DEVICE inline Index staged_node(const BlockLayout& layout, Index b, int p, const Index* slot_node,
                                            const Index* load_start) {
  const int bs = layout.block_size;
  if (p < bs) return slot_node[static_cast<Size>(b) * bs + p];
  int load = 0, offset = 0;
  layout.locate(p - bs, load, offset);
  const Index start = load_start[static_cast<Size>(b) * layout.n_loads() + load];
  return start < 0 ? Index(-1) : slot_node[start + offset];
}

// The reference apply (section 2.3's sum, without shared memory): one iteration per slot, its
// node's dim outputs summed over its links in neighbour order, u read from global memory through
// the link targets, the link table and slot_node. Traffic per occupied slot: its slot entry (4 B),
// per link a target (2 B), a load start and a slot entry (8 B) for a loaded neighbour, dim u
// values, dim^2 K values; dim y values written.
template <class Real, int Dim>
void reference_apply(const Exec& exec, BlockLayout layout, int links, Index n_blocks, const Index* slot_node,
                     const Index* load_start, const std::int16_t* target, const Real* values, const Real* u, Real* y) {
  const Index n_slots = n_blocks * layout.block_size;
  forall(exec, n_slots, [=] TREMOR_LAMBDA(Index slot) {
    const Index node = slot_node[slot];
    if (node < 0) return;
    const int bs = layout.block_size;
    const Index b = slot / bs;
    const int t = static_cast<int>(slot % bs);
    Real sum[Dim];
    for (int a = 0; a < Dim; ++a) sum[a] = Real(0);
    for (int l = 0; l < links; ++l) {
      const Size link = static_cast<Size>(b) * links + l;
      const int p = target[link * bs + t];
      if (p < 0) break;
      const Index j = staged_node(layout, b, p, slot_node, load_start);
      const Real* K = values + link * (Dim * Dim) * bs + t;
      for (int a = 0; a < Dim; ++a)
        for (int c = 0; c < Dim; ++c) sum[a] += K[(a * Dim + c) * bs] * u[static_cast<Size>(j) * Dim + c];
    }
    for (int a = 0; a < Dim; ++a) y[static_cast<Size>(node) * Dim + a] = sum[a];
  });
}

// The pogo kernel (section 2.3, Fig. 3), one thread block per partition block, one thread per
// slot. Stage: each thread copies the u values of shared positions t, t + bs, ...: its own slot,
// then the loads' slots (Fig. 3(c): own rows directly, the rest through the link table); a
// barrier; then each thread sums its node's dim outputs over its links from shared memory,
// components in separate planes. Traffic per block: bs slot entries and the link table (4 B
// each), u of the own and loaded nodes (dim values each, through slot_node: 4 B per loaded slot),
// per warp its longest node's links of targets (2 B) and K (dim^2 values) for 32 threads, y.
// The second phase reads the thread's own slot entry again (the first phase's line, from cache).
template <class Real, int Dim>
void shared_apply(const Exec& exec, BlockLayout layout, int links, Index n_blocks, const Index* slot_node,
                  const Index* load_start, const std::int16_t* target, const Real* values, const Real* u, Real* y) {
  if (n_blocks == 0) return;
  const auto shared = static_cast<std::size_t>(layout.shared_slots()) * Dim * sizeof(Real);
  if (shared > 48 * 1024) {  // beyond the default: forall_blocks opts in, up to the device's limit
    const std::size_t device_limit = max_block_shared_bytes(exec);
    TREMOR_CHECK(shared <= device_limit, "the block layout needs ", shared, " bytes of shared memory per block; the "
                 "device has ", device_limit, ": use fewer loads or a smaller block size");
  }
  const int bs = layout.block_size;
  forall_blocks(exec, n_blocks, bs, shared, [=] TREMOR_LAMBDA(const BlockContext& ctx) {
    Real* staged = ctx.shared<Real>();
    const int n_shared = layout.shared_slots();
    const Index b = ctx.block;
    for_each_thread(ctx, n_shared, [&](int p) {
      const Index node = staged_node(layout, b, p, slot_node, load_start);  // p < bs: the own slot
      if (node >= 0)
        for (int c = 0; c < Dim; ++c) staged[c * n_shared + p] = u[static_cast<Size>(node) * Dim + c];
    });
    ctx.sync();
    for_each_thread(ctx, bs, [&](int t) {
      const Index own = slot_node[static_cast<Size>(b) * bs + t];
      if (own < 0) return;
      Real sum[Dim];
      for (int a = 0; a < Dim; ++a) sum[a] = Real(0);
      for (int l = 0; l < links; ++l) {
        const Size link = static_cast<Size>(b) * links + l;
        const int p = target[link * bs + t];
        if (p < 0) break;
        const Real* K = values + link * (Dim * Dim) * bs + t;
        for (int a = 0; a < Dim; ++a)
          for (int c = 0; c < Dim; ++c) sum[a] += K[(a * Dim + c) * bs] * staged[c * n_shared + p];
      }
      for (int a = 0; a < Dim; ++a) y[static_cast<Size>(own) * Dim + a] = sum[a];
    });
  });
}

}  // namespace

template <class Real>
BlockPartitionedMatrix<Real>::BlockPartitionedMatrix(const Exec& exec, const sparse::CsrMatrix& K, int dim,
                                                     const BlockPartition& partition)
    : exec_(exec), layout_(partition.layout), dim_(dim), n_nodes_(partition.n_nodes), n_blocks_(partition.n_blocks) {
  TREMOR_CHECK(dim == 2 || dim == 3, "the block layout serves 2 or 3 DOFs per node, not ", dim);
  TREMOR_CHECK(K.n_rows == partition.n_nodes * dim, "the matrix has ", K.n_rows, " rows; the partition's ",
               partition.n_nodes, " nodes have ", Size(partition.n_nodes) * dim, " DOFs");
  layout_.validate();
  const int bs = layout_.block_size, n_loads = layout_.n_loads();
  const auto n_slots = static_cast<std::size_t>(n_blocks_) * static_cast<std::size_t>(bs);
  TREMOR_CHECK(partition.slot_node.size() == n_slots &&
                   partition.load_start.size() == static_cast<std::size_t>(n_blocks_) * n_loads,
               "the partition's arrays do not match its ", n_blocks_, " blocks");
  const std::vector<Index> node_slot = partition.node_slot();
  for (Index v = 0; v < n_nodes_; ++v)
    TREMOR_CHECK(node_slot[static_cast<std::size_t>(v)] >= 0, "node ", v, " is in no block of the partition");

  // Links of each node: the distinct neighbour nodes of its dim rows, ascending.
  auto row_links = [&](Index v, std::vector<Index>& out) {
    out.clear();
    for (int a = 0; a < dim; ++a) {
      const Size row = static_cast<Size>(v) * dim + a;
      for (Size k = K.offsets[static_cast<std::size_t>(row)]; k < K.offsets[static_cast<std::size_t>(row) + 1]; ++k)
        out.push_back(K.columns[static_cast<std::size_t>(k)] / dim);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  };
  {
    std::vector<Index> scratch;
    for (Index v = 0; v < n_nodes_; ++v) {
      row_links(v, scratch);
      links_ = std::max(links_, static_cast<int>(scratch.size()));
    }
  }
  const Size link_entries = static_cast<Size>(n_slots) * links_;
  TREMOR_CHECK(link_entries * dim * dim <= std::numeric_limits<Index>::max(), "the block layout of this matrix needs ",
               link_entries * dim * dim, " values, beyond the 2^31 an array can hold");

  std::vector<std::int16_t> target(static_cast<std::size_t>(link_entries), -1);
  std::vector<Real> values(static_cast<std::size_t>(link_entries) * dim * dim, Real(0));
  const std::size_t dd = static_cast<std::size_t>(dim) * dim;
  std::string failure;
#pragma omp parallel
  {
    std::vector<std::pair<Index, int>> loaded;  // (global slot, shared position), by slot
    std::vector<Index> neighbours;
#pragma omp for schedule(dynamic, 16)
    for (Index b = 0; b < n_blocks_; ++b) {
      loaded.clear();
      for (int k = 0; k < n_loads; ++k) {
        const Index start = partition.load_start[static_cast<std::size_t>(b) * n_loads + k];
        if (start < 0) continue;
        for (int off = 0; off < layout_.load_length(k); ++off)
          loaded.emplace_back(start + off, bs + layout_.load_offset(k) + off);
      }
      std::sort(loaded.begin(), loaded.end());  // a slot loaded twice: the first position serves
      for (int t = 0; t < bs; ++t) {
        const Index v = partition.slot_node[static_cast<std::size_t>(b) * bs + t];
        if (v < 0) continue;
        row_links(v, neighbours);
        for (std::size_t l = 0; l < neighbours.size(); ++l) {
          const Index j = neighbours[l];
          const Index slot = node_slot[static_cast<std::size_t>(j)];
          int p = -1;
          if (slot / bs == b) {
            p = slot % bs;
          } else {
            const auto it = std::lower_bound(loaded.begin(), loaded.end(), std::make_pair(slot, 0));
            if (it != loaded.end() && it->first == slot) p = it->second;
          }
          if (p < 0) {
#pragma omp critical
            if (failure.empty())
              failure = str("the partition does not serve this matrix: node ", v, " (block ", b, ") links to node ", j,
                            " (block ", slot / bs, "), which no load of block ", b,
                            " brings in; was the partition made for another mesh?");
            continue;
          }
          const Size link = (static_cast<Size>(b) * links_ + static_cast<Size>(l));
          target[static_cast<std::size_t>(link * bs + t)] = static_cast<std::int16_t>(p);
        }
        // Values: walk each row's entries against the sorted link list.
        for (int a = 0; a < dim; ++a) {
          const Size row = static_cast<Size>(v) * dim + a;
          for (Size k = K.offsets[static_cast<std::size_t>(row)]; k < K.offsets[static_cast<std::size_t>(row) + 1]; ++k) {
            const Index column = K.columns[static_cast<std::size_t>(k)];
            const auto l = static_cast<Size>(
                std::lower_bound(neighbours.begin(), neighbours.end(), column / dim) - neighbours.begin());
            const Size link = static_cast<Size>(b) * links_ + l;
            const auto c = static_cast<std::size_t>(column % dim);
            values[(static_cast<std::size_t>(link) * dd + static_cast<std::size_t>(a) * dim + c) * bs + static_cast<std::size_t>(t)] =
                static_cast<Real>(K.values[static_cast<std::size_t>(k)]);
          }
        }
      }
    }
  }
  TREMOR_CHECK(failure.empty(), failure);

  // Appendix A's count for this kernel.
  const std::size_t real = sizeof(Real);
  for (Index b = 0; b < n_blocks_; ++b) {
    traffic_.slot_table += static_cast<std::size_t>(bs) * sizeof(Index);
    traffic_.link_table += static_cast<std::size_t>(n_loads) * sizeof(Index);
    for (int k = 0; k < n_loads; ++k) {
      const Index start = partition.load_start[static_cast<std::size_t>(b) * n_loads + k];
      if (start < 0) continue;
      for (int off = 0; off < layout_.load_length(k); ++off) {
        traffic_.slot_table += sizeof(Index);
        if (partition.slot_node[static_cast<std::size_t>(start + off)] >= 0) traffic_.u_linked += dim * real;
      }
    }
    for (int warp = 0; warp < bs / row_width; ++warp) {
      int longest = -1;  // -1: no occupied slot in the warp
      for (int t = warp * row_width; t < (warp + 1) * row_width; ++t) {
        const std::size_t slot = static_cast<std::size_t>(b) * bs + t;
        if (partition.slot_node[slot] < 0) continue;
        traffic_.u_own += dim * real;
        traffic_.y += dim * real;
        int count = 0;
        while (count < links_ && target[(static_cast<std::size_t>(b) * links_ + count) * bs + t] >= 0) ++count;
        longest = std::max(longest, count);
      }
      if (longest < 0) continue;
      traffic_.link_targets += static_cast<std::size_t>(std::min(longest + 1, links_)) * row_width * sizeof(std::int16_t);
      traffic_.values += static_cast<std::size_t>(longest) * row_width * dd * real;
    }
  }

  slot_node_ = DeviceArray<Index>(exec, std::span<const Index>(partition.slot_node));
  load_start_ = DeviceArray<Index>(exec, std::span<const Index>(partition.load_start));
  link_target_ = DeviceArray<std::int16_t>(exec, std::span<const std::int16_t>(target));
  values_ = DeviceArray<Real>(exec, std::span<const Real>(values));
}

template <class Real>
void BlockPartitionedMatrix<Real>::apply_reference(const Real* u, Real* y) const {
  if (dim_ == 2)
    reference_apply<Real, 2>(exec_, layout_, links_, n_blocks_, slot_node_.data(), load_start_.data(),
                             link_target_.data(), values_.data(), u, y);
  else
    reference_apply<Real, 3>(exec_, layout_, links_, n_blocks_, slot_node_.data(), load_start_.data(),
                             link_target_.data(), values_.data(), u, y);
}

template <class Real>
void BlockPartitionedMatrix<Real>::apply(const Real* u, Real* y) const {
  if (exec_.backend() != Backend::Cuda) {
    apply_reference(u, y);
    return;
  }
  if (dim_ == 2)
    shared_apply<Real, 2>(exec_, layout_, links_, n_blocks_, slot_node_.data(), load_start_.data(), link_target_.data(),
                          values_.data(), u, y);
  else
    shared_apply<Real, 3>(exec_, layout_, links_, n_blocks_, slot_node_.data(), load_start_.data(), link_target_.data(),
                          values_.data(), u, y);
}

template <class Real>
std::size_t BlockPartitionedMatrix<Real>::bytes() const {
  return static_cast<std::size_t>(slot_node_.size() + load_start_.size()) * sizeof(Index) +
         static_cast<std::size_t>(link_target_.size()) * sizeof(std::int16_t) +
         static_cast<std::size_t>(values_.size()) * sizeof(Real);
}

template <class Real>
std::size_t BlockPartitionedMatrix<Real>::shared_bytes() const {
  return static_cast<std::size_t>(layout_.shared_slots()) * static_cast<std::size_t>(dim_) * sizeof(Real);
}

template class BlockPartitionedMatrix<float>;
template class BlockPartitionedMatrix<double>;

}  // namespace tremor::explicit_fe
