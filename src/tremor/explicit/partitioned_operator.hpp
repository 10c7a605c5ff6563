#pragma once
// "partitioned": the stiffness operator in the pogo paper's GPU block layout (section 2.3, 3):
// nodes partitioned into blocks of up to 512 (partition/partition.hpp), each block staging the u
// values it needs into shared memory through a table of 32/16/8-node loads, then each thread
// summing its node's outputs over a fixed number of links (block_partitioned_matrix.hpp).
//
// On a Cuda Exec the shared-memory kernel runs; on Serial and OpenMP the portable reference of
// the same layout (it reads u from global memory, so it is no faster than CSR there: the layout is
// for GPUs). u and ku are in the original DOF order (node-major), like every operator's.
#include <cstddef>
#include <string>

#include "tremor/backend/exec.hpp"
#include "tremor/explicit/block_partitioned_matrix.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/mesh/mesh.hpp"
#include "tremor/partition/partition.hpp"
#include "tremor/sparse/csr.hpp"

namespace tremor::explicit_fe {

template <class Real>
class PartitionedOperator final : public op::Operator<Real> {
 public:
  // Partitions `mesh` with `options` (aligned partitioner, 512-node blocks by default), then lays
  // out K (assembled on that mesh, sparse::assemble_stiffness), values rounded to Real.
  PartitionedOperator(const Exec& exec, const sparse::CsrMatrix& K, const Mesh& mesh,
                      const partition::PartitionOptions& options = {});
  // With a partition made before (partition::read_block_file): refused, naming both meshes, when
  // it was made for a mesh with another node graph.
  PartitionedOperator(const Exec& exec, const sparse::CsrMatrix& K, const Mesh& mesh,
                      partition::BlockPartition partition);

  Index n_dofs() const override { return matrix_.n_dofs(); }
  void apply_unchecked(const Real* u, Real* ku) const override { matrix_.apply(u, ku); }
  std::string_view name() const override { return "partitioned"; }
  const Exec& exec() const override { return matrix_.exec(); }
  // The layout's arrays: slot table, link table, 16-bit link targets, values
  // (block_partitioned_matrix.hpp).
  std::size_t bytes() const override { return matrix_.bytes(); }
  // Global memory one apply reads and writes, counted as the paper's Appendix A does (u and ku
  // included, K counted per warp up to its longest node's links).
  std::size_t traffic_bytes() const { return matrix_.traffic().total(); }

  const partition::BlockPartition& partition() const { return partition_; }
  const BlockPartitionedMatrix<Real>& matrix() const { return matrix_; }

 private:
  partition::BlockPartition partition_;
  BlockPartitionedMatrix<Real> matrix_;
};

extern template class PartitionedOperator<float>;
extern template class PartitionedOperator<double>;

}  // namespace tremor::explicit_fe
