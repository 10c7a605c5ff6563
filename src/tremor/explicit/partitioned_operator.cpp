#include "tremor/explicit/partitioned_operator.hpp"

#include <utility>

#include "tremor/core/error.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/partition/block_file.hpp"

namespace tremor::explicit_fe {

namespace {

partition::BlockPartition checked(partition::BlockPartition partition, const Mesh& mesh) {
  partition::check_fingerprint(partition, node_graph(mesh), "block partition");
  return partition;
}

}  // namespace

template <class Real>
PartitionedOperator<Real>::PartitionedOperator(const Exec& exec, const sparse::CsrMatrix& K, const Mesh& mesh,
                                               const partition::PartitionOptions& options)
    : partition_(partition::partition_mesh(mesh, options)), matrix_(exec, K, mesh.dim(), partition_) {}

template <class Real>
PartitionedOperator<Real>::PartitionedOperator(const Exec& exec, const sparse::CsrMatrix& K, const Mesh& mesh,
                                               partition::BlockPartition partition)
    : partition_(checked(std::move(partition), mesh)), matrix_(exec, K, mesh.dim(), partition_) {}

template class PartitionedOperator<float>;
template class PartitionedOperator<double>;

}  // namespace tremor::explicit_fe
