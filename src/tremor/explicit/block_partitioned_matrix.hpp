#pragma once
// The stiffness K in the pogo paper's block layout (section 2.3, Appendix A): the GPU operator
// y = K u on a partition::BlockPartition. It lives with the operators, not in partition/: it is
// built from an assembled K (sparse/), which the partitioners beside sparse/ do not see.
//
// Every node has a fixed number L of links (L = the largest node degree of K's pattern, the node
// itself included; the paper's L = 12 for free tri3 meshes); a link is a neighbour node and its
// dim x dim block of K. Links of a node are sorted by neighbour number, so every row sums in
// CSR's column order; unused links are marked by a target of -1 and come last. Per block, with
// bs = block_size and t the thread (slot) within the block:
//   link_target[(b L + l) bs + t]              16-bit shared position of link l's neighbour:
//                                              < bs its own slot, else bs + a slot of the loads
//   values[((b L + l) dim^2 + a dim + c) bs + t]   K(node dim + a, neighbour dim + c)
// so a warp reads 32 consecutive entries of each array per link (coalesced).
//
// apply() on a Cuda Exec runs the shared-memory kernel (one thread block per partition block):
// the block's own u values are read into shared memory, then the link table's loads; after a
// barrier each thread sums its node's dim outputs from shared memory. On the host backends, and
// on any backend through apply_reference(), the portable reference runs instead: one forall
// iteration per slot reading u from global memory through the same tables. The reference is what
// the kernel is tested against. y is written in the original DOF order (node dim + component),
// so callers need no permutation; u is read in it too (through slot_node), which costs a gather
// the paper's block-ordered vectors did not: renumbering the mesh by BlockPartition::node_order()
// makes those reads contiguous.
#include <cstddef>
#include <cstdint>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/partition/partition.hpp"
#include "tremor/sparse/csr.hpp"

namespace tremor::explicit_fe {

// Global memory per apply, counted as Appendix A counts it (Table A.5), for this kernel: what a
// block reads and writes, summed over blocks.
struct ApplyTraffic {
  std::size_t slot_table = 0;  // slot_node entries: the block's own slots and every loaded slot (4 B)
  std::size_t link_table = 0;  // load starts (4 B per load per block)
  std::size_t u_own = 0;       // u of the block's own nodes
  std::size_t u_linked = 0;    // u of the nodes the loads bring in (whole loads)
  std::size_t link_targets = 0;  // 2 B per link read: per warp, up to its longest node's links + 1
  std::size_t values = 0;      // K: per warp, its longest node's links x 32 x dim^2 (the paper's L_av)
  std::size_t y = 0;           // outputs written
  std::size_t total() const { return slot_table + link_table + u_own + u_linked + link_targets + values + y; }
};

template <class Real>
class BlockPartitionedMatrix {
 public:
  // From an assembled K (DOFs node-major, `dim` per node; values rounded to Real) and a partition
  // of its nodes. Throws tremor::Error when the partition does not serve K's pattern (a link no
  // load brings in: a partition made for another mesh) or the arrays exceed 2^31 entries.
  BlockPartitionedMatrix(const Exec& exec, const sparse::CsrMatrix& K, int dim,
                         const partition::BlockPartition& partition);

  Index n_dofs() const { return n_nodes_ * dim_; }
  int dim() const { return dim_; }
  int links() const { return links_; }  // L
  Index n_blocks() const { return n_blocks_; }
  const partition::BlockLayout& layout() const { return layout_; }
  const Exec& exec() const { return exec_; }

  // y = K u (y overwritten; u and y in the Exec's memory, n_dofs() each, not overlapping): the
  // shared-memory kernel on Cuda, the reference on the host backends.
  void apply(const Real* u, Real* y) const;
  // The portable reference on every backend.
  void apply_reference(const Real* u, Real* y) const;

  // Memory the arrays hold: slot_node (4 B per slot), load starts (4 B per load), link targets
  // (2 B per link per slot), values (dim^2 x sizeof(Real) per link per slot).
  std::size_t bytes() const;
  // Global memory one apply() of the kernel reads and writes (Appendix A).
  const ApplyTraffic& traffic() const { return traffic_; }
  // Shared memory per thread block, bytes.
  std::size_t shared_bytes() const;

 private:
  Exec exec_;
  partition::BlockLayout layout_;
  int dim_ = 2;
  int links_ = 0;
  Index n_nodes_ = 0;
  Index n_blocks_ = 0;
  DeviceArray<Index> slot_node_;
  DeviceArray<Index> load_start_;
  DeviceArray<std::int16_t> link_target_;
  DeviceArray<Real> values_;
  ApplyTraffic traffic_;
};

extern template class BlockPartitionedMatrix<float>;
extern template class BlockPartitionedMatrix<double>;

}  // namespace tremor::explicit_fe
