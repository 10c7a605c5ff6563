// The patch test through the whole static solver: on a distorted patch of elements, every
// boundary node held at the displacement of a linear field u = A x + c and no load, the solver
// must return that field at every interior node and its constant stress everywhere: section
// table, two-kernel assembly, elimination of the held DOFs, block-Jacobi CG and stress recovery
// together. Elements whose default rule integrates adj(J) grad N exactly on the distorted patch
// (static_recovery_test.cpp says which); curved tet10 and GLL elements pass it only to their
// quadrature error and are left out.
#include <gtest/gtest.h>

#include <cmath>

#include "../unit/sparse_test_models.hpp"
#include "tremor/static/solve.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

constexpr double A[3][3] = {{1.0e-4, -2.0e-4, 0.5e-4}, {3.0e-4, -1.5e-4, 2.5e-4}, {-0.7e-4, 1.2e-4, 0.9e-4}};
constexpr double c0[3] = {1e-5, -2e-5, 3e-5};

struct Case {
  ElementType type;
  int order;
};

class StaticPatchTest : public ::testing::TestWithParam<Case> {};

TEST_P(StaticPatchTest, LinearFieldIsReproduced) {
  Model model = test::two_section_model(GetParam().type, GetParam().order, 4, 0.3, false);
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  const auto field = [&](Index n, int i) {
    double value = c0[i];
    for (int j = 0; j < dim; ++j) value += A[i][j] * mesh.node(n)[static_cast<std::size_t>(j)];
    return value;
  };
  const double upper[3] = {1.0, 0.8, 0.6};
  std::vector<bool> interior(static_cast<std::size_t>(mesh.n_nodes()), true);
  for (Index n = 0; n < mesh.n_nodes(); ++n) {
    for (int d = 0; d < dim; ++d) {
      const double x = mesh.node(n)[static_cast<std::size_t>(d)];
      if (std::abs(x) < 1e-12 || std::abs(x - upper[d]) < 1e-12) interior[static_cast<std::size_t>(n)] = false;
    }
    if (interior[static_cast<std::size_t>(n)]) continue;
    for (int i = 0; i < dim; ++i) model.fixed.push_back({{n}, i, field(n, i), "", "patch boundary"});
  }
  static_fe::SolveOptions options;
  options.backend = Backend::Serial;
  options.tolerance = 1e-12;  // a small, well-conditioned patch: CG reaches it
  const static_fe::StaticResult result = static_fe::solve_static(model, options);
  ASSERT_TRUE(result.cg.converged()) << result.cg.report;
  double largest = 0.0;
  for (Index n = 0; n < mesh.n_nodes(); ++n)
    for (int i = 0; i < dim; ++i) largest = std::max(largest, std::abs(field(n, i)));
  int n_interior = 0;
  for (Index n = 0; n < mesh.n_nodes(); ++n) {
    if (!interior[static_cast<std::size_t>(n)]) continue;
    ++n_interior;
    for (int i = 0; i < dim; ++i)
      // CG to 1e-12 on a patch whose condition number is ~1e3: 1e-8 of the field's size bounds
      // what rounding and the residual leave; a wrong assembly or elimination is off by far more.
      ASSERT_NEAR(result.displacement[static_cast<std::size_t>(n * dim + i)], field(n, i), 1e-8 * largest)
          << "node " << n << " component " << i;
  }
  ASSERT_GT(n_interior, 0);
  // The stress is D eps everywhere, so von Mises is the same at every node.
  const double reference = result.recovery.von_mises[0];
  ASSERT_GT(reference, 0.0);
  for (double value : result.recovery.von_mises) ASSERT_NEAR(value, reference, 1e-7 * reference);
  // No load: the reactions balance among themselves.
  for (int i = 0; i < dim; ++i) {
    double sum = 0.0, scale = 0.0;
    for (Index n = 0; n < mesh.n_nodes(); ++n) {
      sum += result.reaction[static_cast<std::size_t>(n * dim + i)];
      scale = std::max(scale, std::abs(result.reaction[static_cast<std::size_t>(n * dim + i)]));
    }
    EXPECT_NEAR(sum, 0.0, 1e-9 * scale);
  }
}

INSTANTIATE_TEST_SUITE_P(Elements, StaticPatchTest,
                         ::testing::Values(Case{ElementType::Tri3, 1}, Case{ElementType::Tri6, 2},
                                           Case{ElementType::Quad4, 1}, Case{ElementType::Quad8, 2},
                                           Case{ElementType::Tet4, 1}, Case{ElementType::Hex8, 1},
                                           Case{ElementType::Hex20, 2}),
                         [](const auto& param_info) {
                           std::string name = element_name(param_info.param.type, param_info.param.order);
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace tremor
