// explicit/operator: the assembled (CSR), nodal-block CSR and element-by-element (matrix-free)
// stiffness operators agree on every element family, in double and float, and are deterministic.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "sparse_test_models.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/sparse/assemble.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::make_stiffness_operator;
using op::Operator;
using test::max_abs;
using test::max_difference;
using test::same_bits;

template <class Real>
std::vector<Real> apply_operator(const op::Operator<Real>& op, const std::vector<double>& u) {
  std::vector<Real> in(u.size()), out(u.size(), Real(-7));  // poisoned: every entry must be written
  std::transform(u.begin(), u.end(), in.begin(), [](double v) { return static_cast<Real>(v); });
  op.apply_unchecked(in.data(), out.data());
  return out;
}

class OperatorFamilies : public ::testing::TestWithParam<test::ModelCase> {};

TEST_P(OperatorFamilies, AssembledAndElementAgree) {
  const auto& c = GetParam();
  const Model model = test::two_section_model(c.type, c.order, test::cells_for(c.type), 0.15);
  const auto assembled = make_stiffness_operator<double>(model, "assembled");
  const auto element = make_stiffness_operator<double>(model, "matrix_free");
  ASSERT_EQ(assembled->n_dofs(), model.mesh.n_nodes() * model.mesh.dim());
  ASSERT_EQ(element->n_dofs(), assembled->n_dofs());
  EXPECT_EQ(assembled->name(), "assembled");
  EXPECT_EQ(element->name(), "matrix_free");
  EXPECT_GT(assembled->bytes(), 0u);
  EXPECT_GT(element->bytes(), 0u);
  const auto u = test::test_vector(assembled->n_dofs(), 1);
  const auto ka = apply_operator(*assembled, u), ke = apply_operator(*element, u);
  // Double: the same K_e u_e, summed as (sum_e K_e) u or sum_e (K_e u_e) with K_e applied in
  // B^T D B form: only the order of rounding differs; ~1e-15 relative per term, far below 1e-12.
  const double scale = max_abs(ka);
  ASSERT_GT(scale, 0.0);
  EXPECT_LE(max_difference(ka, ke), 1e-12 * scale);

  // Float: K or u_e rounded to float (2^-24 ~ 6e-8 relative per entry) and sums of up to a few
  // hundred terms carried in float; random u has little cancellation, so errors stay ~1e-6 of
  // max |K u|, and 1e-5 leaves margin while catching any indexing or precision-path mistake.
  const auto assembled_f = make_stiffness_operator<float>(model, "assembled");
  const auto element_f = make_stiffness_operator<float>(model, "matrix_free");
  const auto kaf = apply_operator(*assembled_f, u), kef = apply_operator(*element_f, u);
  EXPECT_LE(max_difference(kaf, kef), 1e-5 * scale);
  EXPECT_LE(max_difference(kaf, ka), 1e-5 * scale);
  EXPECT_LE(max_difference(kef, ka), 1e-5 * scale);
  EXPECT_LT(assembled_f->bytes(), assembled->bytes());

  // Nodal-block CSR holds the same values and sums each row in the same column order: equal to
  // scalar CSR up to the rounding of a reordered compiler evaluation (a few ulp of max |K u|).
  const auto blocks = make_stiffness_operator<double>(model, "block_csr");
  EXPECT_EQ(blocks->name(), "block_csr");
  EXPECT_EQ(blocks->n_dofs(), assembled->n_dofs());
  EXPECT_LT(blocks->bytes(), assembled->bytes());  // one column index per dim^2 values
  EXPECT_LE(max_difference(apply_operator(*blocks, u), ka), 1e-14 * scale);
  const auto blocks_f = make_stiffness_operator<float>(model, "block_csr");
  EXPECT_LT(blocks_f->bytes(), assembled_f->bytes());
  EXPECT_LE(max_difference(apply_operator(*blocks_f, u), kaf), 1e-6 * scale);
}

// The GPU formats hold the assembled K and sum each row in column order, as CSR does: on the host
// the same bits as the "assembled" operator, in both precisions.
TEST_P(OperatorFamilies, FormatOperatorsEqualCsrBitForBit) {
  const auto& c = GetParam();
  const Model model = test::two_section_model(c.type, c.order, test::cells_for(c.type), 0.15);
  const auto u = test::test_vector(model.mesh.n_nodes() * model.mesh.dim(), 3);
  const auto csr = apply_operator(*make_stiffness_operator<double>(model, "assembled"), u);
  const auto csr_f = apply_operator(*make_stiffness_operator<float>(model, "assembled"), u);
  for (const char* kind : {"ell", "sell", "jds", "block_ell"}) {
    SCOPED_TRACE(kind);
    const auto op = make_stiffness_operator<double>(model, kind);
    EXPECT_EQ(op->name(), kind);
    EXPECT_FALSE(op->details().empty());
    EXPECT_TRUE(same_bits(apply_operator(*op, u), csr));
    EXPECT_TRUE(same_bits(apply_operator(*make_stiffness_operator<float>(model, kind), u), csr_f));
  }
}

TEST_P(OperatorFamilies, DeterministicAndOpenMpEqualsSerial) {
  const auto& c = GetParam();
  const Model model = test::two_section_model(c.type, c.order, test::cells_for(c.type), 0.15);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(4);  // several threads even on a small machine
  for (const std::string& kind : explicit_fe::operators().names(Backend::Serial, model.mesh)) {
    SCOPED_TRACE(kind);
    const auto u = test::test_vector(model.mesh.n_nodes() * model.mesh.dim(), 2);
    const auto serial = make_stiffness_operator<double>(model, kind, Exec::serial());
    const auto parallel = make_stiffness_operator<double>(model, kind, Exec::openmp());
    const auto first = apply_operator(*parallel, u);
    EXPECT_TRUE(same_bits(first, apply_operator(*parallel, u)));
    EXPECT_TRUE(same_bits(first, apply_operator(*serial, u)));
    const auto serial_f = make_stiffness_operator<float>(model, kind, Exec::serial());
    const auto parallel_f = make_stiffness_operator<float>(model, kind, Exec::openmp());
    const auto first_f = apply_operator(*parallel_f, u);
    EXPECT_TRUE(same_bits(first_f, apply_operator(*parallel_f, u)));
    EXPECT_TRUE(same_bits(first_f, apply_operator(*serial_f, u)));
  }
  omp_set_num_threads(threads);
}

INSTANTIATE_TEST_SUITE_P(Families, OperatorFamilies, ::testing::ValuesIn(test::operator_cases()),
                         [](const auto& param_info) { return param_info.param.label; });

// Absorbing layers scale K_e by the srm stiffness factor: the assembled operator scales K_e
// before summing, the matrix-free one K_e u_e after; they must still agree to rounding, on the
// anisotropic half (x > 0.5) as on the isotropic one, in 2D and 3D.
TEST(Operator, AbsorbingLayersAgreeAssembledAndMatrixFree) {
  for (const ElementType type : {ElementType::Quad4, ElementType::Hex8}) {
    SCOPED_TRACE(element_name(type, 1));
    Model model = test::two_section_model(type, 1, 6, 0.15);
    AbsorbingLayer layer;
    layer.kind = AbsorbingKind::Srm;
    layer.faces = {BoxFace::XMax, BoxFace::YMin};
    layer.thickness = 0.3;
    layer.frequency = 1e4;
    layer.alpha_max = 6.0 * 3.14159 * 1e4;  // s ~ 0.3 at the outer edge
    model.absorbing.push_back(layer);
    const Model plain = test::two_section_model(type, 1, 6, 0.15);
    const auto assembled = make_stiffness_operator<double>(model, "assembled");
    const auto element = make_stiffness_operator<double>(model, "matrix_free");
    const auto u = test::test_vector(assembled->n_dofs(), 3);
    const auto ka = apply_operator(*assembled, u), ke = apply_operator(*element, u);
    const double scale = max_abs(ka);
    ASSERT_GT(scale, 0.0);
    // As in AssembledAndElementAgree: only the order of rounding differs.
    EXPECT_LE(max_difference(ka, ke), 1e-12 * scale);
    // And the layer does change K: the difference from the model without it is of order K u.
    const auto kp = apply_operator(*make_stiffness_operator<double>(plain, "assembled"), u);
    EXPECT_GT(max_difference(ka, kp), 0.05 * scale);
  }
}

TEST(Operator, UnknownKindIsAClearError) {
  const Model model = test::two_section_model(ElementType::Quad4, 1, 2, 0.0);
  try {
    (void)make_stiffness_operator<double>(model, "hyb");
    FAIL() << "no error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("'hyb'"), std::string::npos) << message;
    EXPECT_NE(message.find("assembled"), std::string::npos) << message;
    EXPECT_NE(message.find("block_csr"), std::string::npos) << message;
    EXPECT_NE(message.find("matrix_free"), std::string::npos) << message;
  }
  EXPECT_EQ(explicit_fe::operators().names(), (std::vector<std::string>{"assembled", "block_csr", "ell", "sell", "jds",
                                                                       "block_ell", "cusparse", "partitioned",
                                                                       "matrix_free", "sem"}));
}

// The cuSPARSE baseline is GPU-only: on a host Exec (or a build without CUDA) it says so.
TEST(Operator, CusparseOnTheHostIsAClearError) {
  Model model = test::two_section_model(ElementType::Quad4, 1, 2, 0.0);
  try {
    (void)make_stiffness_operator<double>(model, "cusparse", Exec::serial());
    FAIL() << "no error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("the cusparse operator runs on cuda; the backend is serial"), std::string::npos) << message;
  }
  EXPECT_EQ(explicit_fe::operators().names(Backend::Serial),
            (std::vector<std::string>{"assembled", "block_csr", "ell", "sell", "jds", "block_ell", "partitioned",
                                      "matrix_free", "sem"}));
}

TEST(Operator, MatrixFreeOperatorRefusesAnInvertedElement) {
  Model model = test::two_section_model(ElementType::Hex8, 1, 2, 0.0);
  auto& connectivity = model.mesh.blocks[0].connectivity;
  std::swap(connectivity[8 * 3 + 1], connectivity[8 * 3 + 3]);  // element label 4
  try {
    (void)make_stiffness_operator<float>(model, "matrix_free");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("element 4 "), std::string::npos) << error.what();
  }
}

// The operators that scatter element by element add into y (the explicit scheme then zeroes K u
// in its update, not in a pass of its own); the assembled ones overwrite it and refuse to add.
TEST(Operator, ElementOperatorsAddIntoYAndAssembledOnesRefuse) {
  const Model model = test::two_section_model(ElementType::HexGLL, 2, 2, 0.1);
  const auto u = test::test_vector(model.mesh.n_nodes() * 3, 3), y0 = test::test_vector(model.mesh.n_nodes() * 3, 4);
  for (const char* kind : {"matrix_free", "sem"}) {
    SCOPED_TRACE(kind);
    const auto op = make_stiffness_operator<double>(model, kind, Exec::serial());
    ASSERT_TRUE(op->adds());
    const std::vector<double> ku = apply_operator(*op, u);
    std::vector<double> y = y0;
    op->add(View<const double>{u.data(), op->n_dofs(), MemorySpace::Host},
            View<double>{y.data(), op->n_dofs(), MemorySpace::Host});
    double worst = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i) worst = std::max(worst, std::abs(y[i] - (y0[i] + ku[i])));
    // The same sums, each added to y0's entry once: rounding of max |y| only.
    EXPECT_LE(worst, 1e-13 * (max_abs(ku) + max_abs(y0)));
  }
  const auto csr = make_stiffness_operator<double>(model, "assembled", Exec::serial());
  EXPECT_FALSE(csr->adds());
  std::vector<double> y = y0;
  try {
    csr->add(View<const double>{u.data(), csr->n_dofs(), MemorySpace::Host},
             View<double>{y.data(), csr->n_dofs(), MemorySpace::Host});
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("assembled operator: it overwrites y"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace tremor
