// Stiffness operators against exact strain energy: a linear displacement u = G x has the uniform
// strain eps = sym(G), so u^T K u = sum over sections of (thickness x) volume x eps^T D eps.
// The mesh is mapped by a global affine map (shear and stretch), so every element stays affine,
// the default stiffness rules are exact, and the identity holds to rounding. Two sections: steel
// (plane strain) and a fully anisotropic material (plane stress) in 2D; both solid in 3D.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tremor/explicit/operator.hpp"
#include "tremor/sparse/assemble.hpp"
#include "unit/sparse_test_models.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

class OperatorEnergy : public ::testing::TestWithParam<test::ModelCase> {};

TEST_P(OperatorEnergy, LinearFieldEnergyIsExact) {
  const auto& c = GetParam();
  Model model = test::two_section_model(c.type, c.order, 2, 0.0);  // sections split at x = 0.5
  Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  const double A[3][3] = {{1.1, 0.3, -0.2}, {0.1, 0.9, 0.25}, {-0.15, 0.2, 1.2}};
  const double det_a = dim == 2 ? A[0][0] * A[1][1] - A[0][1] * A[1][0]
                                : A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
                                      A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                                      A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
  for (Index n = 0; n < mesh.n_nodes(); ++n) {
    double* x = mesh.coordinates.data() + static_cast<std::size_t>(n * dim);
    double y[3] = {};
    for (int i = 0; i < dim; ++i)
      for (int j = 0; j < dim; ++j) y[i] += A[i][j] * x[j];
    for (int i = 0; i < dim; ++i) x[i] = y[i];
  }
  const double G[3][3] = {{2e-4, -1e-4, 3e-4}, {0.5e-4, -2.5e-4, 1e-4}, {-1e-4, 2e-4, 1.5e-4}};
  std::vector<double> u(static_cast<std::size_t>(mesh.n_nodes() * dim));
  for (Index n = 0; n < mesh.n_nodes(); ++n)
    for (int i = 0; i < dim; ++i) {
      double v = 0.0;
      for (int j = 0; j < dim; ++j) v += G[i][j] * mesh.node(n)[static_cast<std::size_t>(j)];
      u[static_cast<std::size_t>(n * dim + i)] = v;
    }
  // Voigt strain (engineering shear) and the exact energy 2 W = sum_s t_s V_s eps^T D_s eps.
  std::vector<double> eps;
  if (dim == 2)
    eps = {G[0][0], G[1][1], G[0][1] + G[1][0]};
  else
    eps = {G[0][0], G[1][1], G[2][2], G[1][2] + G[2][1], G[0][2] + G[2][0], G[0][1] + G[1][0]};
  const fem::SectionTable table = fem::section_table(model);
  const double half_volume = 0.5 * 0.8 * (dim == 3 ? 0.6 : 1.0) * det_a;
  double expected = 0.0;
  for (std::size_t s = 0; s < table.D.size(); ++s) {
    double quadratic = 0.0;
    for (int k = 0; k < table.n_voigt; ++k)
      for (int l = 0; l < table.n_voigt; ++l)
        quadratic += eps[static_cast<std::size_t>(k)] * table.D[s][static_cast<std::size_t>(k * table.n_voigt + l)] *
                     eps[static_cast<std::size_t>(l)];
    expected += table.thickness[s] * half_volume * quadratic;
  }
  for (const auto& kind : explicit_fe::operators().names(Backend::OpenMP, model.mesh)) {
    SCOPED_TRACE(kind);
    const auto op = explicit_fe::make_stiffness_operator<double>(model, kind);
    std::vector<double> ku(u.size());
    op->apply({u.data(), op->n_dofs()}, {ku.data(), op->n_dofs()});
    double energy = 0.0;
    for (std::size_t i = 0; i < u.size(); ++i) energy += u[i] * ku[i];
    // Exact quadrature on affine elements: rounding only (sums of ~1e3 terms of mixed sign).
    EXPECT_NEAR(energy, expected, 1e-11 * expected);

    const auto op_f = explicit_fe::make_stiffness_operator<float>(model, kind);
    std::vector<float> u_f(u.begin(), u.end()), ku_f(u.size());
    op_f->apply({u_f.data(), op_f->n_dofs()}, {ku_f.data(), op_f->n_dofs()});
    double energy_f = 0.0;
    for (std::size_t i = 0; i < u.size(); ++i) energy_f += static_cast<double>(u_f[i]) * ku_f[i];
    // float u and K (or float accumulation): ~1e-7 per entry, but K u cancels (rigid parts of u
    // give no force), amplifying it by |K||u| / |K u| ~ 10-100; 1e-4 holds it with margin.
    EXPECT_NEAR(energy_f, expected, 1e-4 * expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Families, OperatorEnergy, ::testing::ValuesIn(test::operator_cases()),
                         [](const auto& param_info) { return param_info.param.label; });

}  // namespace
}  // namespace tremor
