// The matrix_free operator's tiled kernel on a GPU against the host's tiles (Serial: the same
// element arithmetic on SIMD batches of a tile's elements, explicit/matrix_free_host.hpp), on
// every element family (the linear ones in tiles, the others by the reference kernel with atomic
// adds), double and float, tiles of the default size and of 32 elements; and the GPU's
// deterministic (colour by colour) reference against the host's.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <vector>

#include "support/support.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/explicit/matrix_free.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/model/renumber.hpp"
#include "unit/sparse_test_models.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::MatrixFreeOperator;
using test::max_abs;
using test::max_difference;

template <class Real>
std::vector<Real> apply_on(const op::Operator<Real>& op, const std::vector<double>& u) {
  const std::vector<Real> in(u.begin(), u.end());
  DeviceArray<Real> x(op.exec(), std::span<const Real>(in));
  DeviceArray<Real> y(op.exec(), std::span<const Real>(std::vector<Real>(u.size(), Real(-7))));  // every entry written
  op.apply(x.view(), y.view());
  return y.to_host();
}

// The same with u and K u one entry into larger vectors: 2D pairs that start off their size
// (the kernel then reads and adds them one component at a time).
template <class Real>
std::vector<Real> apply_off_by_one(const op::Operator<Real>& op, const std::vector<double>& u) {
  std::vector<Real> in(u.size() + 1, Real(0));
  std::copy(u.begin(), u.end(), in.begin() + 1);
  DeviceArray<Real> x(op.exec(), std::span<const Real>(in));
  DeviceArray<Real> y(op.exec(), std::span<const Real>(std::vector<Real>(in.size(), Real(-7))));
  op.apply_unchecked(x.data() + 1, y.data() + 1);
  std::vector<Real> out = y.to_host();
  EXPECT_EQ(out[0], Real(-7));  // nothing written before the range
  return {out.begin() + 1, out.end()};
}

template <class Real>
std::unique_ptr<MatrixFreeOperator<Real>> tiled(const Model& model, const Exec& exec, int tile) {
  return std::make_unique<MatrixFreeOperator<Real>>(
      exec, std::make_shared<const fem::DeviceElements>(exec, model.mesh, fem::section_table(model), fem::ElementColouring{}),
      false, tile);
}

class MatrixFreeParity : public ::testing::TestWithParam<test::ModelCase> {};

TEST_P(MatrixFreeParity, GpuEqualsHost) {
  TREMOR_REQUIRE_GPU();
  const auto& c = GetParam();
  const Model model = test::two_section_model(c.type, c.order, test::cells_for(c.type) + 2, 0.15);
  const auto u = test::test_vector(model.mesh.n_nodes() * model.mesh.dim(), 9);
  const Exec gpu = Exec::cuda();
  for (int tile : {0, 32}) {
    SCOPED_TRACE(tile);
    const auto host = apply_on(*tiled<double>(model, Exec::serial(), tile), u);
    const double scale = max_abs(host);
    ASSERT_GT(scale, 0.0);
    // The same products; the GPU's shared and global atomic adds sum each node's terms (at most
    // a few dozen) in another order: rounding, 1e-15 per term; 1e-13 of max |K u|.
    EXPECT_LE(max_difference(apply_on(*tiled<double>(model, gpu, tile), u), host), 1e-13 * scale);
    // Float: the same, 6e-8 per term: 1e-6 of max |K u|. (FMA contraction, on the device and in
    // the host's AVX-512 and AVX2 code, rounds some products once instead of twice: within the
    // same bound.)
    const auto host_f = apply_on(*tiled<float>(model, Exec::serial(), tile), u);
    EXPECT_LE(max_difference(apply_on(*tiled<float>(model, gpu, tile), u), host_f), 1e-6 * scale);
    EXPECT_LE(max_difference(apply_off_by_one(*tiled<float>(model, gpu, tile), u), host_f), 1e-6 * scale);
  }
  // The deterministic reference on the GPU: each DOF sums its elements in colour order on both;
  // FMA contraction on the device only: 1e-13.
  const auto reference = apply_on(*explicit_fe::make_stiffness_operator<double>(model, "matrix_free", Exec::serial()), u);
  const auto reference_gpu = apply_on(*explicit_fe::make_stiffness_operator<double>(model, "matrix_free", gpu), u);
  EXPECT_LE(max_difference(reference_gpu, reference), 1e-13 * max_abs(reference));
}

// Tiles whose nodes span more than 16 bits of node numbers (a shuffled numbering of 76K nodes)
// keep 32-bit node lists on the GPU: equal to the host to rounding as above; and the steps that
// an ordered numbering takes hold less memory.
TEST(MatrixFreeTilesGpu, NodesOfAnyNumberingSpan) {
  TREMOR_REQUIRE_GPU();
  Model model = test::two_section_model(ElementType::Tri3, 1, 275, 0.15);
  const Index n = model.mesh.n_nodes();
  ASSERT_GT(n, 70000);
  std::vector<Index> shuffled(static_cast<std::size_t>(n));
  std::iota(shuffled.begin(), shuffled.end(), Index(0));
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(7));
  const Model scattered = renumber_nodes(model, shuffled);
  const auto u = test::test_vector(n * 2, 4);
  const auto host = apply_on(*tiled<float>(scattered, Exec::serial(), 0), u);
  const auto gpu = tiled<float>(scattered, Exec::cuda(), 0);
  EXPECT_LE(max_difference(apply_on(*gpu, u), host), 1e-6 * max_abs(host));  // as GpuEqualsHost
  const auto ordered = tiled<float>(model, Exec::cuda(), 0);
  EXPECT_LT(ordered->bytes(), gpu->bytes());
}

INSTANTIATE_TEST_SUITE_P(Families, MatrixFreeParity, ::testing::ValuesIn(test::operator_cases()),
                         [](const auto& param_info) { return param_info.param.label; });

}  // namespace
}  // namespace tremor
