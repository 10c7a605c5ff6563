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

#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <vector>

#include "support/support.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/backend/memory.hpp"
#include "tremor/explicit/central_difference.hpp"
#include "tremor/explicit/fluid.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor::explicit_fe {
namespace TREMOR_TEST_FILE {

constexpr double pi = std::numbers::pi;
constexpr double rho = 1000.0, c = 1480.0, kappa = rho * c * c, amplitude = 1e-9;  // water; the load, N

// A Ricker load of peak frequency f0, centred at 1.5 / f0 (its value at 0 below 1e-9 of the peak).
struct Ricker {
  double f0;
  double operator()(double t) const {
    const double a = pi * f0 * (t - 1.5 / f0);
    return amplitude * (1.0 - 2.0 * a * a) * std::exp(-a * a);
  }
};

// chi at distance r and time t: in 2D by the integral above (trapezoids in s: the integrand is
// smooth and falls to nothing within a few units of s; 4000 of them, converged to 1e-9); in 3D
// kappa F(t - r/c) / (4 pi c^2 r) (a load F per unit volume injected at a point).
double analytic_chi(int dim, const Ricker& F, double thickness, double r, double t) {
  if (c * t <= r) return 0.0;
  if (dim == 3) return kappa * F(t - r / c) / (4.0 * pi * c * c * r);
  const double top = std::acosh(c * t / r);
  const int n = 4000;
  const double ds = top / n;
  double sum = 0.0;
  for (int k = 0; k <= n; ++k) {
    const double s = k * ds;
    sum += (k == 0 || k == n ? 0.5 : 1.0) * F(t - r / c * std::cosh(s));
  }
  return kappa / (2.0 * pi * c * c * thickness) * sum * ds;
}

// The water of `model` (one fluid section of thickness `thickness` in 2D) stepped on `exec` at half
// the stable step (the time error below 0.1%) for `duration`, loaded by share x F at the node at
// the origin; at each receiver (a node) the pressure's L2 error over the window, relative to the
// solution's norm: p = -chi_tt by the second difference of chi at the step, run and solution alike.
std::vector<double> pressure_errors(const Exec& exec, const Model& model, const Ricker& F, double share,
                                    double thickness, double duration,
                                    const std::vector<std::array<double, 3>>& receivers) {
  const int dim = model.mesh.dim();
  const FluidMesh fluid = fluid_mesh(model);
  EXPECT_EQ(fluid.n_nodes(), model.mesh.n_nodes());
  const auto elements = std::make_shared<const fem::DeviceElements>(exec, fluid.model.mesh, fluid.table,
                                                                     fem::colour_elements(fluid.model.mesh));
  const FluidOperator<double> K(exec, elements, exec.space() == MemorySpace::Device);
  const std::vector<double> mass = fluid_lumped_mass(fluid, exec);
  const double lambda = fluid_spectrum(fluid, exec).largest;
  const double dt = 0.5 * 2.0 / std::sqrt(lambda);
  const auto steps = static_cast<int>(std::ceil(duration / dt));
  CentralDifference<double> scheme(exec, K, mass, {}, dt, {}, 1);
  const auto node_at = [&](const std::array<double, 3>& x) {
    const Index node =
        nearest_node(fluid.model.mesh, std::span<const double>(x.data(), static_cast<std::size_t>(dim)));
    const auto p = fluid.model.mesh.node(node);
    double distance = 0.0;
    for (int k = 0; k < dim; ++k) distance += (p[k] - x[k]) * (p[k] - x[k]);
    EXPECT_LT(std::sqrt(distance), 1e-9) << "no node at (" << x[0] << ", " << x[1] << ", " << x[2] << ")";
    return node;
  };
  DeviceArray<Index> loaded(exec, std::vector<Index>{node_at({0.0, 0.0, 0.0})});
  DeviceArray<double> load(exec, 1);
  std::vector<Index> at;
  for (const auto& x : receivers) at.push_back(node_at(x));
  std::vector<std::vector<double>> chi(receivers.size());
  for (int n = 0; n < steps; ++n) {
    for (std::size_t k = 0; k < at.size(); ++k) {
      double value = 0.0;
      memory::copy(exec, &value, MemorySpace::Host, scheme.displacement().data + at[k], exec.space(), sizeof(double));
      chi[k].push_back(value);
    }
    load.copy_from_host(std::vector<double>{share * F(n * dt)});
    scheme.step(loaded.view(), load.view());
  }
  std::vector<double> errors;
  for (std::size_t k = 0; k < at.size(); ++k) {
    double r = 0.0;
    for (int d = 0; d < dim; ++d) r += receivers[k][d] * receivers[k][d];
    r = std::sqrt(r);
    const auto exact_chi = [&](int n) { return analytic_chi(dim, F, thickness, r, n * dt); };
    double error = 0.0, norm = 0.0;
    for (int n = 1; n + 1 < steps; ++n) {
      const auto i = static_cast<std::size_t>(n);
      const double p = -(chi[k][i + 1] - 2.0 * chi[k][i] + chi[k][i - 1]) / (dt * dt);
      const double exact = -(exact_chi(n + 1) - 2.0 * exact_chi(n) + exact_chi(n - 1)) / (dt * dt);
      error += (p - exact) * (p - exact);
      norm += exact * exact;
    }
    errors.push_back(std::sqrt(error / norm));
    std::printf("%dD, r = %.3f m: pressure L2 error %.2e\n", dim, r, errors.back());
  }
  return errors;
}

// Water in [-0.45, 0.45]^2 m, 45 x 45 GLL quadrilaterals of order 4 (0.02 m: about 12 nodes per
// wavelength at 25 kHz, where a 10 kHz Ricker's spectrum has fallen to 2% of its peak), 0.5 m
// thick; receivers at nodes 0.15 m and 0.3 m along x and 0.283 m on the diagonal. Reflections
// from the edges (0.45 m away) reach the farthest receiver after 0.33 ms, the end. Bound: the
// issue's 1%.
TEST(FluidGreen, PointSourceInWaterMatchesTheGreensFunctionIn2d) {
  Model model;
  model.source = "water";
  model.mesh = generate_rectangle({-0.45, -0.45}, {0.9, 0.9}, {45, 45}, ElementType::QuadGLL, 4);
  model.materials.push_back(Material::from_sound_speed("water", c, rho));
  model.sections.push_back({"all", "water", Formulation::PlaneStrain, 0.5});
  for (const double error : pressure_errors(Exec::openmp(), model, Ricker{10e3}, 1.0, 0.5, 3.3e-4,
                                            {{0.15, 0.0, 0.0}, {0.3, 0.0, 0.0}, {0.2, 0.2, 0.0}}))
    EXPECT_LT(error, 0.01);
}

// In 3D, an octant of the water around the source, [0, 0.24]^3 m in 16^3 GLL hexahedra of order
// 4 (0.015 m: 8 nodes per wavelength at 50 kHz, where a 20 kHz Ricker has fallen to 2%): its
// rigid faces (the fluid's natural boundary, u . n = 0) are the planes of symmetry of the full
// space's field, so the source node takes an eighth of the load. Receivers at 0.06 and 0.12 m
// along x and 0.104 m on the diagonal; the far faces' reflections reach them after 0.24 ms. On a
// GPU (275,000 nodes: minutes on a few cores). Bound: the 1%.
TEST(FluidGreenGpu, PointSourceInWaterMatchesTheGreensFunctionIn3d) {
  TREMOR_REQUIRE_GPU();
  Model model;
  model.source = "water";
  model.mesh = generate_box({0.0, 0.0, 0.0}, {0.24, 0.24, 0.24}, {16, 16, 16}, ElementType::HexGLL, 4);
  model.materials.push_back(Material::from_sound_speed("water", c, rho));
  model.sections.push_back({"all", "water", Formulation::Solid, 1.0});
  for (const double error : pressure_errors(Exec::cuda(), model, Ricker{20e3}, 0.125, 1.0, 2.4e-4,
                                            {{0.06, 0.0, 0.0}, {0.12, 0.0, 0.0}, {0.06, 0.06, 0.06}}))
    EXPECT_LT(error, 0.01);
}

}  // namespace
}  // namespace tremor::explicit_fe
