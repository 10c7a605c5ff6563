// Stress recovery and internal forces of a static solution (static/recovery.hpp) on a linear
// displacement field, which every element represents exactly (the patch test): the recovered
// stress is D eps at every node, the internal forces of interior nodes vanish and all of them sum
// to zero.
#include "tremor/static/recovery.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "sparse_test_models.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// u = A x with a full, non-symmetric A (strain and rotation), m.
constexpr double A[3][3] = {{1.0e-4, -2.0e-4, 0.5e-4}, {3.0e-4, -1.5e-4, 2.5e-4}, {-0.7e-4, 1.2e-4, 0.9e-4}};

struct Case {
  ElementType type;
  int order;
};

class RecoveryTest : public ::testing::TestWithParam<Case> {};

TEST_P(RecoveryTest, LinearFieldGivesExactStressAndBalancedForces) {
  const Model model = test::two_section_model(GetParam().type, GetParam().order, 3, 0.3, false);
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim(), nv = dim == 2 ? 3 : 6;
  std::vector<double> u(static_cast<std::size_t>(mesh.n_nodes() * dim));
  for (Index n = 0; n < mesh.n_nodes(); ++n)
    for (int i = 0; i < dim; ++i) {
      double value = 0.0;
      for (int j = 0; j < dim; ++j) value += A[i][j] * mesh.node(n)[static_cast<std::size_t>(j)];
      u[static_cast<std::size_t>(n * dim + i)] = value;
    }
  const fem::SectionTable table = fem::section_table(model);
  const static_fe::Recovery r = static_fe::recover(model, table, u);

  // Voigt strain with engineering shears, and the stress D eps of the one section.
  double strain[6] = {};
  if (dim == 2) {
    strain[0] = A[0][0];
    strain[1] = A[1][1];
    strain[2] = A[0][1] + A[1][0];
  } else {
    strain[0] = A[0][0];
    strain[1] = A[1][1];
    strain[2] = A[2][2];
    strain[3] = A[1][2] + A[2][1];
    strain[4] = A[0][2] + A[2][0];
    strain[5] = A[0][1] + A[1][0];
  }
  double expected[6] = {};
  for (int k = 0; k < nv; ++k)
    for (int l = 0; l < nv; ++l) expected[k] += table.D[0][static_cast<std::size_t>(k * nv + l)] * strain[l];
  // Plane strain: sigma_zz = lambda (e_xx + e_yy).
  const double nu = 0.29, E = 210e9;
  const double lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
  const double sigma_zz = lambda * (strain[0] + strain[1]);
  const double mises = dim == 3 ? static_fe::von_mises_3d(expected) : static_fe::von_mises_2d(expected, sigma_zz);
  double scale = 0.0;
  for (int k = 0; k < nv; ++k) scale = std::max(scale, std::abs(expected[k]));
  for (Index n = 0; n < mesh.n_nodes(); ++n) {
    for (int k = 0; k < nv; ++k)
      // Rounding of the strain evaluation on distorted elements: ~1e-15 of the largest stress,
      // amplified by the inverse Jacobians; 1e-9 leaves room and still catches any wrong term.
      ASSERT_NEAR(r.stress[static_cast<std::size_t>(n * nv + k)], expected[k], 1e-9 * scale) << "node " << n << " " << k;
    ASSERT_NEAR(r.von_mises[static_cast<std::size_t>(n)], mises, 1e-9 * scale) << "node " << n;
  }
  // Internal forces: zero at interior nodes (a uniform stress is in equilibrium), zero in sum.
  double largest = 0.0;
  for (double f : r.internal_force) largest = std::max(largest, std::abs(f));
  ASSERT_GT(largest, 0.0);
  const double upper[3] = {1.0, 0.8, 0.6};
  for (int c = 0; c < dim; ++c) {
    double total = 0.0;
    for (Index n = 0; n < mesh.n_nodes(); ++n) total += r.internal_force[static_cast<std::size_t>(n * dim + c)];
    EXPECT_NEAR(total, 0.0, 1e-10 * largest);  // rounding of a sum of O(100) terms
  }
  // At an interior node the forces are sum_e int grad N_a sigma dV = 0 when the rule integrates
  // adj(J) grad_xi N_a exactly. The default rules do on these elements; on curved tet10 (degree 3
  // there, rule degree 2) and GLL elements (nodal rule) the sum is a quadrature error, not zero.
  const ElementType type = GetParam().type;
  if (type == ElementType::Tet10 || type == ElementType::HexGLL) return;
  for (Index n = 0; n < mesh.n_nodes(); ++n) {
    bool interior = true;
    for (int d = 0; d < dim; ++d) {
      const double x = mesh.node(n)[static_cast<std::size_t>(d)];
      interior = interior && std::abs(x) > 1e-12 && std::abs(x - upper[d]) > 1e-12;
    }
    if (!interior) continue;
    for (int c = 0; c < dim; ++c)
      EXPECT_NEAR(r.internal_force[static_cast<std::size_t>(n * dim + c)], 0.0, 1e-10 * largest) << "node " << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Elements, RecoveryTest,
                         ::testing::Values(Case{ElementType::Tri3, 1}, Case{ElementType::Tri6, 2},
                                           Case{ElementType::Quad4, 1}, Case{ElementType::Quad8, 2},
                                           Case{ElementType::Tet4, 1}, Case{ElementType::Tet10, 2},
                                           Case{ElementType::Hex8, 1}, Case{ElementType::Hex20, 2},
                                           Case{ElementType::HexGLL, 3}),
                         [](const auto& param_info) {
                           std::string name = element_name(param_info.param.type, param_info.param.order);
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

TEST(VonMises, UniaxialAndShear) {
  const double uniaxial[6] = {100.0, 0, 0, 0, 0, 0};
  EXPECT_DOUBLE_EQ(static_fe::von_mises_3d(uniaxial), 100.0);
  const double shear[6] = {0, 0, 0, 0, 0, 10.0};
  EXPECT_NEAR(static_fe::von_mises_3d(shear), std::sqrt(3.0) * 10.0, 1e-12);
  const double hydrostatic[6] = {7.0, 7.0, 7.0, 0, 0, 0};
  EXPECT_DOUBLE_EQ(static_fe::von_mises_3d(hydrostatic), 0.0);
  const double plane[3] = {100.0, 0.0, 0.0};
  EXPECT_DOUBLE_EQ(static_fe::von_mises_2d(plane, 0.0), 100.0);
}

}  // namespace
}  // namespace tremor
