// The linear elements' evaluation by edge differences (fem/linear_evaluation.hpp) against the
// general element evaluation (apply_element_stiffness: every shape function's gradient at every
// point of the default stiffness rule).
#include <gtest/gtest.h>

#include <vector>

#include "fem_test_helpers.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/fem/linear_evaluation.hpp"

namespace tremor::fem {
namespace TREMOR_TEST_FILE {

template <class E>
class LinearEvaluationTest : public ::testing::Test {};
using LinearElements = ::testing::Types<Tri3, Quad4, Tet4, Hex8>;
TYPED_TEST_SUITE(LinearEvaluationTest, LinearElements);

// K_e u_e of distorted elements (non-affine quadrilaterals and hexahedra), isotropic and
// anisotropic, with a thickness and stiffness scale, in double: equal to the general evaluation to
// rounding.
TYPED_TEST(LinearEvaluationTest, EqualsTheGeneralEvaluationInDouble) {
  using E = TypeParam;
  constexpr int dim = E::dim, n_dof = E::n_nodes * dim;
  const StiffnessRule<E> rule = stiffness_rule<E>();
  for (const auto& D : {test::isotropic_D(dim, 2.1, 0.8), test::anisotropic_D(dim)})
    for (std::uint64_t seed : {3u, 11u, 29u}) {
      const std::vector<double> x = test::distorted_element<E>(0.15, 0.0, seed);
      test::Random random(seed + 100);
      std::vector<double> u(n_dof), expected(n_dof), f(n_dof);
      for (double& value : u) value = random.next();
      const int kinds[1] = {static_cast<int>(law_kind(D.data(), voigt_size<dim>))};
      std::vector<double> table(material_stride, 0.0);
      std::copy(D.begin(), D.end(), table.begin());
      const SectionLaw<dim, double> law(MaterialView<double>{table.data(), kinds}, 0);
      const double scale = 1.7;  // a thickness times an absorbing-layer factor
      apply_element_stiffness<E>(x.data(), law, scale, rule, u.data(), expected.data());
      const double min_det = linear_stiffness_action<E>(x.data(), u.data(), law, scale, f.data());
      EXPECT_GT(min_det, 0.0);
      // Both sum the same products in another order: rounding, 1e-14 of the largest force.
      const double size = test::max_abs(expected);
      for (int k = 0; k < n_dof; ++k) EXPECT_NEAR(f[k], expected[k], 1e-13 * size) << "dof " << k << " seed " << seed;
    }
}

// On parallelograms and parallelepipeds (scaled, rotated, shifted squares and cubes) the affine
// form (J from one edge per direction, inverted once) equals the general one to rounding.
TYPED_TEST(LinearEvaluationTest, AffineFormEqualsTheGeneralOnParallelepipeds) {
  using E = TypeParam;
  constexpr int dim = E::dim, n_dof = E::n_nodes * dim;
  std::vector<double> x = test::distorted_element<E>(0.0, 0.0, 17);
  for (int a = 0; a < E::n_nodes; ++a) x[a * dim] += 0.4 * x[a * dim + 1];  // sheared
  const std::vector<double> D = test::anisotropic_D(dim);
  std::vector<double> table(material_stride, 0.0);
  std::copy(D.begin(), D.end(), table.begin());
  const int kinds[1] = {static_cast<int>(LawKind::Anisotropic)};
  const SectionLaw<dim, double> law(MaterialView<double>{table.data(), kinds}, 0);
  test::Random random(2);
  std::vector<double> u(n_dof), general(n_dof), affine(n_dof);
  for (double& value : u) value = random.next();
  linear_stiffness_action<E, false>(x.data(), u.data(), law, 1.0, general.data());
  linear_stiffness_action<E, true>(x.data(), u.data(), law, 1.0, affine.data());
  // The same J (exactly, up to the rounding of the edge sums): 1e-14 of the largest force.
  const double size = test::max_abs(general);
  for (int k = 0; k < n_dof; ++k) EXPECT_NEAR(affine[k], general[k], 1e-13 * size) << "dof " << k;
}

// In float, with the coordinates' differences taken in double: an element far from the origin
// (a part a thousand elements across) keeps its K_e u_e to float rounding, where float
// coordinates would lose three digits.
TYPED_TEST(LinearEvaluationTest, FloatKeepsItsDigitsFarFromTheOrigin) {
  using E = TypeParam;
  constexpr int dim = E::dim, n_dof = E::n_nodes * dim;
  const StiffnessRule<E> rule = stiffness_rule<E>();
  std::vector<double> x = test::distorted_element<E>(0.15, 0.0, 5);
  for (int a = 0; a < E::n_nodes; ++a) x[a * dim] += 1000.0;
  const std::vector<double> D = test::isotropic_D(dim, 2.1, 0.8);
  const int kinds[1] = {static_cast<int>(LawKind::Isotropic)};
  std::vector<double> table(material_stride, 0.0);
  std::copy(D.begin(), D.end(), table.begin());
  std::vector<float> table_f(table.begin(), table.end());
  test::Random random(1);
  std::vector<double> u(n_dof), expected(n_dof);
  std::vector<float> u_f(n_dof), f(n_dof);
  for (int k = 0; k < n_dof; ++k) u_f[k] = static_cast<float>(u[k] = random.next());
  apply_element_stiffness<E>(x.data(), SectionLaw<dim, double>(MaterialView<double>{table.data(), kinds}, 0), 1.0,
                             rule, u.data(), expected.data());
  linear_stiffness_action<E>(x.data(), u_f.data(), SectionLaw<dim, float>(MaterialView<float>{table_f.data(), kinds}, 0),
                             1.0f, f.data());
  // Float rounding of sums of a few dozen terms whose sizes reach |K| |u| ~ 10 |f|: 1e-5 of the
  // largest force (float epsilon 6e-8, 1e3 worse were x rounded to float before the differences).
  const double size = test::max_abs(expected);
  for (int k = 0; k < n_dof; ++k) EXPECT_NEAR(f[k], expected[k], 1e-5 * size) << "dof " << k;
}

// The rigid motions give no force, and an inverted element a negative det J.
TYPED_TEST(LinearEvaluationTest, RigidMotionsGiveNoForceAndInversionANegativeDeterminant) {
  using E = TypeParam;
  constexpr int dim = E::dim, n_dof = E::n_nodes * dim;
  std::vector<double> x = test::distorted_element<E>(0.1, 0.0, 13);
  const std::vector<double> D = test::anisotropic_D(dim);
  std::vector<double> table(material_stride, 0.0);
  std::copy(D.begin(), D.end(), table.begin());
  const int kinds[1] = {static_cast<int>(LawKind::Anisotropic)};
  const SectionLaw<dim, double> law(MaterialView<double>{table.data(), kinds}, 0);
  // A translation plus a small rotation about z (linearised: u = w x r).
  std::vector<double> u(n_dof), f(n_dof);
  for (int a = 0; a < E::n_nodes; ++a) {
    u[a * dim] = 0.3 - 0.01 * x[a * dim + 1];
    u[a * dim + 1] = -0.2 + 0.01 * x[a * dim];
    if (dim == 3) u[a * dim + 2] = 0.1;
  }
  linear_stiffness_action<E>(x.data(), u.data(), law, 1.0, f.data());
  // D ~ 1 and |u| ~ 0.3: the forces cancel to rounding, 1e-15.
  for (int k = 0; k < n_dof; ++k) EXPECT_NEAR(f[k], 0.0, 1e-14) << "dof " << k;
  // Mirror the element through x = 0: inverted.
  for (int a = 0; a < E::n_nodes; ++a) x[a * dim] = -x[a * dim];
  EXPECT_LT(linear_stiffness_action<E>(x.data(), u.data(), law, 1.0, f.data()), 0.0);
}

}  // namespace
}  // namespace tremor::fem
