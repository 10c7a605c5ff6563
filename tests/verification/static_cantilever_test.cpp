// A cantilever beam under an end load, solved by the static solver end to end (two-kernel
// assembly paper, section VI and Fig. 7): the tip deflection against Timoshenko beam theory and
// its convergence rate under refinement.
//
// The beam [0, L] x [0, h] x [0, b] is clamped on x = 0 (every component held) and carries a
// uniform shear traction on x = L whose resultant is P along -y. Timoshenko's tip deflection
//   delta = P L^3 / (3 E I) + P L / (kappa G A),   I = b h^3 / 12, A = b h,
// with Cowper's shear coefficient of a rectangle kappa = 10 (1 + nu) / (12 + 11 nu) (Cowper,
// J. Appl. Mech. 33, 1966). 3D elasticity differs from the beam theory near the clamp (the
// section cannot warp there, and Poisson's contraction is held) and where the load enters; at
// L / h = 10 both effects are a fraction of a percent of delta, so the converged deflection lies
// within 1% of it. The deflection is measured as the mean u_y over the end face's nodes.
//
// hex8 (full 2 x 2 x 2 integration) is stiff in bending on coarse meshes (shear locking) and
// converges like h^2; hex20 converges faster. The rate is asserted on hex8 from three nested
// meshes (Richardson: p = log2((d1 - d2) / (d2 - d3))), the 1% on the finest hex20.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "tremor/mesh/generate.hpp"
#include "tremor/static/solve.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

constexpr double youngs = 210e9, poisson = 0.3, density = 7850.0;
constexpr double length = 1.0, height = 0.1, width = 0.1;  // m
constexpr double load = 1.0e3;                              // N, along -y

double timoshenko_deflection() {
  const double inertia = width * height * height * height / 12.0, area = width * height;
  const double shear_modulus = youngs / (2.0 * (1.0 + poisson));
  const double kappa = 10.0 * (1.0 + poisson) / (12.0 + 11.0 * poisson);
  return load * length * length * length / (3.0 * youngs * inertia) + load * length / (kappa * shear_modulus * area);
}

Model cantilever(ElementType type, Size cells_through_height) {
  const Size n = cells_through_height;
  Model model;
  model.source = "cantilever";
  model.mesh = generate_box({0.0, 0.0, 0.0}, {length, height, width}, {10 * n, n, n}, type);
  model.materials.push_back(Material::from_youngs("steel", youngs, poisson, density));
  model.sections.push_back({"all", "steel", Formulation::Solid, 1.0});
  for (int c = 0; c < 3; ++c) model.fixed.push_back({model.mesh.node_sets.at("xmin"), c, 0.0, "", "clamp"});
  SurfaceLoad shear;
  shear.name = "end load";
  shear.surface = "xmax";
  shear.faces = model.mesh.face_sets.at("xmax");
  shear.traction = {0.0, -load / (height * width), 0.0};
  shear.origin = "end load";
  model.surface_loads.push_back(shear);
  return model;
}

// Mean tip deflection (positive downwards) of the solved cantilever.
double tip_deflection(ElementType type, Size cells, Precision precision = Precision::Double) {
  const Model model = cantilever(type, cells);
  static_fe::SolveOptions options;
  options.backend = Backend::OpenMP;
  options.precision = precision;
  // CG to 1e-9 in double (the rounding floor of these slender beams is near 1e-10): the tip
  // deflection then changes by less than 1e-7 relative, far below the discretisation errors
  // compared here.
  options.tolerance = precision == Precision::Double ? 1e-9 : 1e-6;
  const static_fe::StaticResult result = static_fe::solve_static(model, options);
  EXPECT_TRUE(result.cg.converged()) << result.cg.report;
  const auto& end = model.mesh.node_sets.at("xmax");
  double sum = 0.0;
  for (Index node : end) sum += result.displacement[static_cast<std::size_t>(node * 3 + 1)];
  std::printf("  %s, %lld cells through the height, %s: %d CG iterations, tip %.6e m\n",
              element_name(type).c_str(), static_cast<long long>(cells), std::string(to_string(precision)).c_str(),
              result.cg.iterations,
              -sum / static_cast<double>(end.size()));
  return -sum / static_cast<double>(end.size());
}

// Richardson's observed rate from deflections on meshes refined twice by 2.
double observed_rate(double coarse, double middle, double fine) { return std::log2((middle - coarse) / (fine - middle)); }

TEST(StaticCantilever, Hex8ConvergesAtSecondOrder) {
  const double d2 = tip_deflection(ElementType::Hex8, 2);
  const double d4 = tip_deflection(ElementType::Hex8, 4);
  const double d8 = tip_deflection(ElementType::Hex8, 8);
  const double rate = observed_rate(d2, d4, d8);
  std::printf("  hex8 observed rate %.3f; finest %.4f of Timoshenko\n", rate, d8 / timoshenko_deflection());
  // Trilinear displacements converge like h^2; shear locking makes coarse hex8 beams too stiff and
  // the observed rate approaches 2 from below (1.35 from 1, 2, 4 cells; 1.76 from 2, 4, 8).
  EXPECT_GT(rate, 1.6);
  EXPECT_LT(rate, 2.3);
  EXPECT_LT(d2, d4);  // locking fades monotonically under refinement
  EXPECT_LT(d4, d8);
}

TEST(StaticCantilever, Hex20TipWithinOnePercentOfTimoshenko) {
  const double reference = timoshenko_deflection();
  const double d1 = tip_deflection(ElementType::Hex20, 1);
  const double d2 = tip_deflection(ElementType::Hex20, 2);
  const double d4 = tip_deflection(ElementType::Hex20, 4);
  const double rate = observed_rate(d1, d2, d4);
  const double extrapolated = d4 + (d4 - d2) / (std::pow(2.0, rate) - 1.0);
  std::printf("  hex20 observed rate %.3f; tip %.6e m, extrapolated %.6e m, Timoshenko %.6e m (ratios %.5f, %.5f)\n",
              rate, d4, extrapolated, reference, d4 / reference, extrapolated / reference);
  // The clamped edges, where held displacements meet traction-free faces, carry a stress
  // singularity that caps the rate below the 4 of smooth solutions; measured 2.0.
  EXPECT_GT(rate, 1.7);
  EXPECT_LT(rate, 2.5);
  // The 1% of beam theory: the converged 3D deflection lies 0.7% below it (clamp and load-entry
  // effects, header); the 4-cell mesh within 0.1% of the converged one.
  EXPECT_NEAR(d4 / reference, 1.0, 0.01);
  EXPECT_NEAR(extrapolated / reference, 1.0, 0.01);
  EXPECT_NEAR(d4 / extrapolated, 1.0, 0.002);
}

// Paper Fig. 8: the average relative error of a single-precision solve against the double one.
TEST(StaticCantilever, SinglePrecisionErrorIsReported) {
  const Model model = cantilever(ElementType::Hex8, 4);
  static_fe::SolveOptions options;
  options.backend = Backend::OpenMP;
  options.tolerance = 1e-9;
  const static_fe::StaticResult reference = static_fe::solve_static(model, options);
  options.precision = Precision::Float;
  options.tolerance = 1e-4;
  const static_fe::StaticResult single = static_fe::solve_static(model, options);
  ASSERT_TRUE(reference.cg.converged()) << reference.cg.report;
  // In float the true residual b - K u cannot fall much below eps_float ||K|| ||u|| / ||b||, ~1e6
  // times 6e-8 on a slender beam: the solve stops there (stagnated) with its best iterate.
  ASSERT_TRUE(single.cg.converged() || single.cg.status == static_fe::CgStatus::Stagnated) << single.cg.report;
  std::printf("  float: %s at %.3e after %d iterations\n", std::string(static_fe::to_string(single.cg.status)).c_str(),
              single.cg.relative_residual, single.cg.iterations);
  double sum = 0.0;
  int count = 0;
  for (Index n = 0; n < model.mesh.n_nodes(); ++n) {
    double diff = 0.0, norm = 0.0;
    for (int c = 0; c < 3; ++c) {
      const auto i = static_cast<std::size_t>(n * 3 + c);
      diff += (single.displacement[i] - reference.displacement[i]) * (single.displacement[i] - reference.displacement[i]);
      norm += reference.displacement[i] * reference.displacement[i];
    }
    if (norm == 0.0) continue;  // the clamped nodes
    sum += std::sqrt(diff / norm);
    ++count;
  }
  const double average = sum / count;
  std::printf("  average relative error float vs double: %.3e (%d nodes, %d and %d iterations)\n", average, count,
              single.cg.iterations, reference.cg.iterations);
  // Rounding K to float perturbs each entry by up to 6e-8 relative and breaks the exact balance
  // of its rows (rigid motions no longer cost nothing); a slender beam's soft bending mode
  // amplifies that by its conditioning (~1e5 here): measured 6.0e-3. The paper's Fig. 8 shows the
  // same order of single-precision error. 2e-2 catches a float path that is wrong, not merely
  // rounded; double is the static solver's default for this reason (docs/static.md).
  EXPECT_LT(average, 2e-2);
  EXPECT_GT(average, 1e-9);  // not the double solve again
}

}  // namespace
}  // namespace tremor

