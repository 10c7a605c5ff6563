// The sem operator on a GPU against the same body on the host (Serial), for every order 1..8, on
// GLL hexahedra and quadrilaterals, curved two-material meshes (test::two_section_model): colour by colour and with atomics, double
// and float; and the GPU's colour-by-colour scatter repeats itself bit for bit.
#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <vector>

#include "support/support.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/model/elevate.hpp"
#include "tremor/sem/operator.hpp"
#include "unit/sparse_test_models.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using test::max_abs;
using test::max_difference;
using test::same_bits;

template <class Real>
std::vector<Real> apply_on(const op::Operator<Real>& op, const std::vector<double>& u) {
  const std::vector<Real> in(u.begin(), u.end());
  DeviceArray<Real> x(op.exec(), std::span<const Real>(in));
  DeviceArray<Real> y(op.exec(), std::span<const Real>(std::vector<Real>(u.size(), Real(-7))));  // every entry written
  op.apply(x.view(), y.view());
  return y.to_host();
}

template <class Real>
std::unique_ptr<sem::SemOperator<Real>> make(const Model& model, const Exec& exec, bool coloured,
                                             sem::Kernel kernel = sem::Kernel::Auto) {
  const fem::ElementColouring colouring = coloured ? fem::colour_elements(model.mesh) : fem::ElementColouring{};
  return std::make_unique<sem::SemOperator<Real>>(
      std::make_shared<const fem::DeviceElements>(exec, model.mesh, fem::section_table(model), colouring), coloured,
      sem::Geometry::Auto, kernel);
}

void expect_parity(const Model& model);

class SemParity : public ::testing::TestWithParam<int> {};

// Parity on three meshes of `cells` per direction at `order`: curved GLL elements (smaller moves
// above order 4, as in the unit test; the factors stored per point), a distorted linear mesh
// raised to the order (multilinear elements, Jacobians from the vertices) and a box (J per
// element).
void expect_parity_on_every_shape(ElementType gll, ElementType linear, int order, Size cells) {
  const Model curved = test::two_section_model(gll, order, cells, order <= 4 ? 0.15 : 0.6 / (order * order));
  Model multilinear = test::two_section_model(linear, 1, cells, 0.15);
  elevate_order(multilinear, order);
  Model affine = test::two_section_model(linear, 1, cells, 0.0);
  elevate_order(affine, order);
  for (const Model* model : {&curved, static_cast<const Model*>(&multilinear), static_cast<const Model*>(&affine)}) {
    SCOPED_TRACE(model == &curved ? "curved" : model == &affine ? "affine" : "multilinear");
    expect_parity(*model);
  }
}

// Three cells per direction (27 elements: more than one GPU block at every order, partial blocks
// at orders 1 to 3).
TEST_P(SemParity, GpuEqualsHost) {
  TREMOR_REQUIRE_GPU();
  expect_parity_on_every_shape(ElementType::HexGLL, ElementType::Hex8, GetParam(), 3);
}

// The same in 2D: GLL quadrilaterals, 6 cells per direction (36 elements), plane strain and plane
// stress sections of two thicknesses.
TEST_P(SemParity, GpuEqualsHostOnQuadrilaterals) {
  TREMOR_REQUIRE_GPU();
  expect_parity_on_every_shape(ElementType::QuadGLL, ElementType::Quad4, GetParam(), 6);
}

void expect_parity(const Model& model) {
  const auto u = test::test_vector(model.mesh.n_nodes() * model.mesh.dim(), 11);
  const auto host = apply_on(*make<double>(model, Exec::serial(), true), u);
  const double scale = max_abs(host);
  ASSERT_GT(scale, 0.0);
  for (const bool coloured : {true, false}) {
    SCOPED_TRACE(coloured ? "colours" : "atomics");
    const auto gpu = make<double>(model, Exec::cuda(), coloured);
    const auto first = apply_on(*gpu, u);
    // The same operations; the GPU contracts products into FMAs and (atomics) sums in another
    // order: rounding of ~1e-16 per operation, far below 1e-12.
    EXPECT_LE(max_difference(first, host), 1e-12 * scale);
    if (coloured) {
      EXPECT_TRUE(same_bits(first, apply_on(*gpu, u)));
    }
    // Float: rounding of 2^-24 per operation over O(10 P) operations per value, ~1e-6 of the largest.
    const auto gpu_f = apply_on(*make<float>(model, Exec::cuda(), coloured), u);
    EXPECT_LE(max_difference(gpu_f, host), 2e-5 * scale);
  }
  if (model.mesh.dim() == 3)  // both steps of the hexahedra's kernel, whichever the order's default
    for (const sem::Kernel kernel : {sem::Kernel::Points, sem::Kernel::Columns}) {
      SCOPED_TRACE(kernel == sem::Kernel::Points ? "points" : "columns");
      EXPECT_LE(max_difference(apply_on(*make<double>(model, Exec::cuda(), false, kernel), u), host), 1e-12 * scale);
      EXPECT_LE(max_difference(apply_on(*make<float>(model, Exec::cuda(), false, kernel), u), host), 2e-5 * scale);
    }
}

INSTANTIATE_TEST_SUITE_P(Orders, SemParity, ::testing::Range(1, 9),
                         [](const auto& param_info) { return "P" + std::to_string(param_info.param); });

}  // namespace
}  // namespace tremor
