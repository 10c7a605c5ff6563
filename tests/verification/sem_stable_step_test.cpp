// The stable step of meshes of GLL hexahedra and quadrilaterals (explicit_fe::stable_step: the largest eigenvalue of
// M^-1 K by Lanczos on the sem operator) against the true limit, 2 / sqrt(lambda_max), with
// lambda_max from a long power iteration on M^-1 K: the step is below the limit (else the scheme
// grows without bound) and within 5% of it; the element-by-element bound it replaces is well
// below. On distorted two-material meshes (3D, and 2D in plane strain and plane stress) raised to
// orders 2, 4 and 6.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/fem/time_step.hpp"
#include "tremor/model/elevate.hpp"
#include "tremor/sparse/assemble.hpp"
#include "unit/sparse_test_models.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// lambda_max of M^-1 K by 3000 power iterations on M^-1/2 K M^-1/2 (the Rayleigh quotient rises
// to it from below): a lower bound of lambda_max that the estimate must not fall short of.
double power_iteration(const Model& model) {
  const auto K = explicit_fe::make_stiffness_operator<double>(model, "sem", Exec::serial());
  const std::vector<double> mass = sparse::assemble_lumped_mass(model);
  const std::size_t n = mass.size();
  std::vector<double> v = test::test_vector(static_cast<Index>(n), 17), x(n), y(n);
  double lambda = 0.0;
  for (int k = 0; k < 3000; ++k) {
    double norm = 0.0;
    for (const double value : v) norm += value * value;
    norm = std::sqrt(norm);
    for (std::size_t i = 0; i < n; ++i) x[i] = v[i] / norm / std::sqrt(mass[i]);
    K->apply_unchecked(x.data(), y.data());
    lambda = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      v[i] = y[i] / std::sqrt(mass[i]);
      lambda += v[i] * x[i] * std::sqrt(mass[i]);
    }
  }
  return lambda;
}

TEST(SemStableStep, WithinFivePercentOfTheTrueLimit) {
  for (const ElementType linear : {ElementType::Hex8, ElementType::Quad4})
    for (const int order : {2, 4, 6}) {
      const bool quad = linear == ElementType::Quad4;
      SCOPED_TRACE(std::string(quad ? "quad" : "hex") + " order " + std::to_string(order));
      Model model = test::two_section_model(linear, 1, quad ? 4 : order <= 4 ? 3 : 2, 0.15);
      elevate_order(model, order);
      ASSERT_TRUE(explicit_fe::global_stable_step(model.mesh));
      const explicit_fe::StableStep step = explicit_fe::stable_step(model, Exec::serial());
      const double limit = 2.0 / std::sqrt(power_iteration(model));
      const double element_bound = fem::stable_time_step(model).dt;
      std::printf("%s order %d: stable step %.6g s (%s), power-iteration limit %.6g s, element bound %.6g s\n",
                  quad ? "quad" : "hex", order, step.dt, step.by.c_str(), limit, element_bound);
      EXPECT_LE(step.dt, limit);         // never above a limit the power iteration has shown
      EXPECT_GE(step.dt, 0.95 * limit);  // the 5% required of it
      EXPECT_GT(step.dt, 1.08 * element_bound);  // and a real gain over the element bound (9-32% here, 2026-11-27)
    }
}

}  // namespace
}  // namespace tremor
