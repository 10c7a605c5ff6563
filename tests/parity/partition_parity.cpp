// explicit/block_partitioned_matrix: the block layout's reference apply against CSR SpMV on every element
// family, in double and float, on Serial and OpenMP; the partitioned operator through the
// op::Operator interface; on a GPU the shared-memory kernel against the reference (and both
// against the host). Outputs are poisoned with NaN, so an entry an apply fails to write fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/explicit/block_partitioned_matrix.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/partitioned_operator.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/partition/partition.hpp"
#include "tremor/sparse/assemble.hpp"
#include "unit/sparse_test_models.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::BlockPartitionedMatrix;

// Families with more nodes than one small block (so loads between blocks are exercised): the
// two-section models of the operator tests, refined.
struct Family {
  ElementType type;
  int order;
  Size cells;
  const char* label;
};
const Family families[] = {{ElementType::Tri3, 1, 24, "tri3"},         {ElementType::Quad4, 1, 24, "quad4"},
                           {ElementType::Tri6, 1, 12, "tri6"},         {ElementType::Quad8, 1, 14, "quad8"},
                           {ElementType::QuadGLL, 3, 10, "quad_gll3"}, {ElementType::Tet4, 1, 8, "tet4"},
                           {ElementType::Hex8, 1, 8, "hex8"},          {ElementType::Tet10, 1, 4, "tet10"},
                           {ElementType::Hex20, 1, 5, "hex20"}};

struct Problem {
  Model model;
  sparse::CsrMatrix K;
  partition::BlockPartition blocks;
  std::vector<double> u;
};

Problem make_setup(const Family& f, partition::Partitioner which, int block_size) {
  Problem s;
  s.model = test::two_section_model(f.type, f.order, f.cells, 0.15);
  s.K = sparse::assemble_stiffness(s.model, Exec::serial());
  partition::PartitionOptions options;
  options.partitioner = which;
  options.layout = partition::default_layout(s.model.mesh, block_size);
  s.blocks = partition::partition_mesh(s.model.mesh, options);
  s.u = test::test_vector(s.K.n_rows, 17);
  return s;
}

template <class Real>
std::vector<Real> to_real(const std::vector<double>& v) {
  return {v.begin(), v.end()};
}

template <class Real>
std::vector<Real> apply_on(const Exec& exec, const BlockPartitionedMatrix<Real>& A, const std::vector<Real>& u,
                           bool reference) {
  DeviceArray<Real> du(exec, std::span<const Real>(u));
  const std::vector<Real> poison(u.size(), std::numeric_limits<Real>::quiet_NaN());
  DeviceArray<Real> dy(exec, std::span<const Real>(poison));
  if (reference)
    A.apply_reference(du.data(), dy.data());
  else
    A.apply(du.data(), dy.data());
  exec.synchronize();
  return dy.to_host();
}

// |y - z| per row within `ulps` roundings of the row's sum of |K_ij u_j| (each product and partial
// sum rounds once in Real; the two orders of summation or an FMA contraction differ by at most a
// few roundings of that magnitude).
template <class Real>
void expect_close(const std::vector<Real>& y, const std::vector<Real>& z, const sparse::CsrMatrix& K,
                  const std::vector<double>& u, double ulps, const std::string& what) {
  ASSERT_EQ(y.size(), z.size());
  const double eps = std::numeric_limits<Real>::epsilon();
  for (Index r = 0; r < K.n_rows; ++r) {
    double magnitude = 0.0;
    for (Size k = K.offsets[static_cast<std::size_t>(r)]; k < K.offsets[static_cast<std::size_t>(r) + 1]; ++k)
      magnitude += std::abs(K.values[static_cast<std::size_t>(k)] * u[static_cast<std::size_t>(K.columns[static_cast<std::size_t>(k)])]);
    const auto i = static_cast<std::size_t>(r);
    ASSERT_TRUE(std::isfinite(static_cast<double>(y[i]))) << what << ": row " << r << " not written";
    ASSERT_LE(std::abs(static_cast<double>(y[i]) - static_cast<double>(z[i])), ulps * eps * magnitude + 1e-300)
        << what << ": row " << r << " (" << y[i] << " vs " << z[i] << ")";
  }
}

template <class Real>
void check_reference_against_csr(const Exec& exec, const Family& f, partition::Partitioner which, int block_size) {
  const Problem s = make_setup(f, which, block_size);
  const int dim = s.model.mesh.dim();
  const BlockPartitionedMatrix<Real> A(exec, s.K, dim, s.blocks);
  ASSERT_EQ(A.n_dofs(), s.K.n_rows);
  // Every family here spans several blocks, so links reach through loads.
  ASSERT_GT(A.n_blocks(), 1) << f.label;
  // L is the largest node degree.
  const NodeGraph graph = node_graph(s.model.mesh);
  Size degree = 0;
  for (Index v = 0; v < graph.n_nodes(); ++v)
    degree = std::max(degree, graph.offsets[static_cast<std::size_t>(v) + 1] - graph.offsets[static_cast<std::size_t>(v)]);
  EXPECT_EQ(A.links(), degree);
  const sparse::CsrMatrixT<Real> K = sparse::convert<Real>(s.K);
  const std::vector<Real> u = to_real<Real>(s.u);
  std::vector<Real> expected(u.size());
  sparse::spmv(Exec::serial(), K, u.data(), expected.data());
  const std::vector<Real> y = apply_on(exec, A, u, true);
  // The reference sums each row's links in neighbour order, CSR's column order: the same products
  // and sums, so at most an FMA contraction apart; 4 roundings of the row's magnitude bound that.
  expect_close(y, expected, s.K, s.u, 4.0, std::string(f.label) + " " + s.blocks.partitioner);
  // apply() is the reference on the host.
  EXPECT_EQ(apply_on(exec, A, u, false), y);
}

TEST(PartitionParity, ReferenceEqualsCsrOnEveryFamily) {
  for (const Family& f : families)
    for (int block_size : {64, 512}) {
      SCOPED_TRACE(std::string(f.label) + " blocks of " + std::to_string(block_size));
      check_reference_against_csr<double>(Exec::serial(), f, partition::Partitioner::Aligned, block_size);
      check_reference_against_csr<float>(Exec::openmp(), f, partition::Partitioner::Greedy, block_size);
    }
}

TEST(PartitionParity, OperatorMatchesAssembled) {
  const Family f{ElementType::Tri3, 1, 40, "tri3"};
  const Problem s = make_setup(f, partition::Partitioner::Aligned, 128);
  const explicit_fe::PartitionedOperator<double> op(Exec::openmp(), s.K, s.model.mesh, s.blocks);
  const sparse::CsrOperator<double> csr(Exec::openmp(), s.K);
  EXPECT_EQ(op.name(), "partitioned");
  EXPECT_EQ(op.n_dofs(), csr.n_dofs());
  EXPECT_GT(op.bytes(), 0u);
  // Appendix A's count: at least K's values once (every link of every node) and u and ku once.
  EXPECT_GE(op.traffic_bytes(), s.K.nnz() * sizeof(double) + 2 * s.K.n_rows * sizeof(double));
  std::vector<double> y(s.u.size(), std::numeric_limits<double>::quiet_NaN()), z(s.u.size());
  op.apply_unchecked(s.u.data(), y.data());
  csr.apply_unchecked(s.u.data(), z.data());
  expect_close(y, z, s.K, s.u, 4.0, "operator");
  // And one made by the operator itself (default options) agrees too.
  const explicit_fe::PartitionedOperator<float> own(Exec::serial(), s.K, s.model.mesh);
  const std::vector<float> uf = to_real<float>(s.u);
  std::vector<float> yf(uf.size(), std::numeric_limits<float>::quiet_NaN()), zf(uf.size());
  own.apply_unchecked(uf.data(), yf.data());
  sparse::spmv(Exec::serial(), sparse::convert<float>(s.K), uf.data(), zf.data());
  expect_close(yf, zf, s.K, s.u, 4.0, "operator float");
}

TEST(PartitionParity, OperatorRefusesAPartitionOfAnotherMesh) {
  const Problem s = make_setup(families[0], partition::Partitioner::Greedy, 128);
  const Model other = test::two_section_model(ElementType::Tri3, 1, 25, 0.15);
  const sparse::CsrMatrix K = sparse::assemble_stiffness(other, Exec::serial());
  EXPECT_THROW(explicit_fe::PartitionedOperator<double>(Exec::serial(), K, other.mesh, s.blocks), Error);
  // A partition of the same node count but unrelated to K is refused by the matrix itself.
  partition::BlockPartition shuffled = s.blocks;
  std::reverse(shuffled.slot_node.begin(), shuffled.slot_node.end());
  EXPECT_THROW(BlockPartitionedMatrix<double>(Exec::serial(), s.K, 2, shuffled), Error);
}

// ------------------------------------------------------------------------------------------ GPU

template <class Real>
void check_kernel(const Family& f, partition::Partitioner which, int block_size) {
  const Problem s = make_setup(f, which, block_size);
  const Exec gpu = Exec::cuda();
  const BlockPartitionedMatrix<Real> A(gpu, s.K, s.model.mesh.dim(), s.blocks);
  const std::vector<Real> u = to_real<Real>(s.u);
  const std::vector<Real> kernel = apply_on(gpu, A, u, false);
  const std::vector<Real> reference = apply_on(gpu, A, u, true);
  // Same products summed in the same order from shared memory instead of global: nvcc may contract
  // the two kernels' multiply-adds differently; 4 roundings of the row's magnitude bound that.
  expect_close(kernel, reference, s.K, s.u, 4.0, std::string(f.label) + " kernel vs reference");
  const BlockPartitionedMatrix<Real> host(Exec::serial(), s.K, s.model.mesh.dim(), s.blocks);
  expect_close(kernel, apply_on(Exec::serial(), host, u, true), s.K, s.u, 4.0, std::string(f.label) + " kernel vs host");
  // Deterministic: the same bits on every apply.
  EXPECT_EQ(apply_on(gpu, A, u, false), kernel);
}

TEST(PartitionParityGpu, SharedMemoryKernelEqualsReference) {
  TREMOR_REQUIRE_GPU();
  for (const Family& f : families)
    for (int block_size : {64, 512}) {
      SCOPED_TRACE(std::string(f.label) + " blocks of " + std::to_string(block_size));
      check_kernel<double>(f, partition::Partitioner::Aligned, block_size);
      check_kernel<float>(f, partition::Partitioner::Greedy, block_size);
    }
}

TEST(PartitionParityGpu, OperatorOnTheGpuMatchesTheHost) {
  TREMOR_REQUIRE_GPU();
  const Family f{ElementType::Tet4, 1, 12, "tet4"};
  const Problem s = make_setup(f, partition::Partitioner::Aligned, 512);
  const Exec gpu = Exec::cuda();
  const explicit_fe::PartitionedOperator<double> op(gpu, s.K, s.model.mesh, s.blocks);
  DeviceArray<double> du(gpu, std::span<const double>(s.u));
  const std::vector<double> poison(s.u.size(), std::numeric_limits<double>::quiet_NaN());
  DeviceArray<double> dy(gpu, std::span<const double>(poison));
  op.apply(du.view(), dy.view());
  gpu.synchronize();
  std::vector<double> expected(s.u.size());
  sparse::spmv(Exec::serial(), s.K, s.u.data(), expected.data());
  expect_close(dy.to_host(), expected, s.K, s.u, 4.0, "operator on the GPU");
}

}  // namespace
}  // namespace tremor
