// A point source in free water against the analytic Green's function of the wave equation, in
// 2D: the fluid's pieces (explicit/fluid.hpp: its mesh, lumped mass and stiffness) stepped by the
// central differences (CentralDifference, one value per node), as a run steps the fluid field.
//
// With the displacement potential chi (rho u = grad chi, p = -chi_tt), a nodal load F(t) at the
// origin of a section of thickness h gives chi_tt - c^2 lap chi = (kappa F / h) delta(x), whose
// solution in the plane (Morse and Feshbach 1953, sec. 7.3; the 2D Green's function
// H(ct - r) / (2 pi c sqrt(c^2 t^2 - r^2))), with c (t - tau) = r cosh s, is
//
//   chi(r, t) = kappa / (2 pi c^2 h) int_0^acosh(ct/r) F(t - (r/c) cosh s) ds,
//
// a smooth integral. The pressure p = -chi_tt is compared by the second difference of chi at the
// step, the same for the run and the solution.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/explicit/central_difference.hpp"
#include "tremor/explicit/fluid.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/operator/spectrum.hpp"

namespace tremor::explicit_fe {
namespace {

constexpr double pi = std::numbers::pi;
constexpr double rho = 1000.0, c = 1480.0, kappa = rho * c * c, thickness = 0.5;
constexpr double f0 = 10e3, t0 = 1.5 / f0, amplitude = 1e-9;  // a Ricker load of 10 kHz, N

double ricker(double t) {
  const double a = pi * f0 * (t - t0);
  return amplitude * (1.0 - 2.0 * a * a) * std::exp(-a * a);
}

// chi at distance r and time t by the integral above (trapezoids in s: the integrand is smooth
// and falls to nothing within a few units of s; 4000 of them, converged to 1e-9).
double analytic_chi(double r, double t) {
  if (c * t <= r) return 0.0;
  const double top = std::acosh(c * t / r);
  const int n = 4000;
  const double ds = top / n;
  double sum = 0.0;
  for (int k = 0; k <= n; ++k) {
    const double s = k * ds;
    sum += (k == 0 || k == n ? 0.5 : 1.0) * ricker(t - r / c * std::cosh(s));
  }
  return kappa / (2.0 * pi * c * c * thickness) * sum * ds;
}

// Water in [-0.45, 0.45]^2 m, 45 x 45 GLL quadrilaterals of order 4 (0.02 m: about 12 nodes per
// wavelength at 25 kHz, where the Ricker's spectrum has fallen to 2% of its peak); the load at the
// node at the origin; receivers at nodes 0.15 m and 0.3 m along x and 0.283 m on the diagonal.
// Reflections from the edges (0.45 m away) reach the farthest receiver after 0.33 ms, the end.
TEST(FluidGreen, PointSourceInWaterMatchesTheGreensFunctionIn2d) {
  Model model;
  model.source = "water";
  model.mesh = generate_rectangle({-0.45, -0.45}, {0.9, 0.9}, {45, 45}, ElementType::QuadGLL, 4);
  model.materials.push_back(Material::from_sound_speed("water", c, rho));
  model.sections.push_back({"all", "water", Formulation::PlaneStrain, thickness});
  const FluidMesh fluid = fluid_mesh(model);
  ASSERT_EQ(fluid.n_nodes(), model.mesh.n_nodes());
  const Exec exec = Exec::openmp();
  const auto elements = std::make_shared<const fem::DeviceElements>(exec, fluid.model.mesh, fluid.table,
                                                                     fem::colour_elements(fluid.model.mesh));
  const FluidOperator<double> K(exec, elements);
  const std::vector<double> mass = fluid_lumped_mass(fluid, exec);
  const double lambda = op::largest_eigenvalue(K, mass.data()).largest;
  const double dt = 0.5 * 2.0 / std::sqrt(lambda);  // half the stable step: time error below 0.1%
  const double duration = 3.3e-4;
  const auto steps = static_cast<int>(std::ceil(duration / dt));
  CentralDifference<double> scheme(exec, K, mass, {}, dt, {}, 1);

  const auto node_at = [&](double x, double y) {
    const double at[2] = {x, y};
    const Index node = nearest_node(fluid.model.mesh, at);
    const auto p = fluid.model.mesh.node(node);
    EXPECT_LT(std::hypot(p[0] - x, p[1] - y), 1e-9) << "no node at (" << x << ", " << y << ")";
    return node;
  };
  const Index source = node_at(0.0, 0.0);
  const std::vector<Index> receivers = {node_at(0.15, 0.0), node_at(0.3, 0.0), node_at(0.2, 0.2)};
  DeviceArray<Index> loaded(exec, std::vector<Index>{source});
  DeviceArray<double> load(exec, 1);
  std::vector<std::vector<double>> chi(receivers.size());
  for (int n = 0; n < steps; ++n) {
    for (std::size_t k = 0; k < receivers.size(); ++k)
      chi[k].push_back(scheme.displacement().data[receivers[k]]);
    load.copy_from_host(std::vector<double>{ricker(n * dt)});
    scheme.step(loaded.view(), load.view());
  }
  // p = -chi_tt at steps 1 .. steps - 2, run and solution alike; the L2 error over the window
  // relative to the solution's norm: 1% (the bound), the measured figure printed.
  for (std::size_t k = 0; k < receivers.size(); ++k) {
    const auto x = fluid.model.mesh.node(receivers[k]);
    const double r = std::hypot(x[0], x[1]);
    double error = 0.0, norm = 0.0;
    for (int n = 1; n + 1 < steps; ++n) {
      const auto at = static_cast<std::size_t>(n);
      const double p = -(chi[k][at + 1] - 2.0 * chi[k][at] + chi[k][at - 1]) / (dt * dt);
      const double exact =
          -(analytic_chi(r, (n + 1) * dt) - 2.0 * analytic_chi(r, n * dt) + analytic_chi(r, (n - 1) * dt)) / (dt * dt);
      error += (p - exact) * (p - exact);
      norm += exact * exact;
    }
    const double relative = std::sqrt(error / norm);
    std::printf("r = %.3f m: pressure L2 error %.2e\n", r, relative);
    EXPECT_LT(relative, 0.01) << "r = " << r;
  }
}

}  // namespace
}  // namespace tremor::explicit_fe
