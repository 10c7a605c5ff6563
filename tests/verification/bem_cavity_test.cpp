// The boundary-element solver against analytic solutions: a spherical cavity in an infinite
// medium under uniform pressure, static (Lame) and time-harmonic (radiating P wave), with the
// convergence rate under refinement; and the rigid-body consistency of H.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tremor/bem/assembly.hpp"
#include "tremor/bem/generate.hpp"
#include "tremor/bem/solve.hpp"

namespace tremor::bem {
namespace {

constexpr double pi = 3.14159265358979323846;
constexpr double rho = 2000.0, mu = 1.0e8, lambda = 1.0e8;  // nu = 0.25, c_s = 223.6 m/s
constexpr double radius = 1.0, pressure = 1.0e5;

// u_r(r) of the cavity r = a under pressure p, e^{i omega t}: u_r = A f'(r), f = e^{-i k_p r} / r,
// sigma_rr(a) = A (-4 mu f'(a)/a - rho omega^2 f(a)) = -p. omega = 0: Lame's p a^3 / (4 mu r^2).
Complex cavity_radial(double beta, double omega, double r) {
  const Medium m = make_medium(rho, lambda, mu, beta, omega);
  if (omega == 0.0) return Complex(pressure * radius * radius * radius / (4.0 * mu * r * r));
  auto f = [&](double s) { return exp(Complex(0.0, -s) * m.kp) / s; };
  auto df = [&](double s) {
    const Complex x = Complex(0.0, s) * m.kp;
    return -(exp(-x) * (Complex(1.0) + x)) / (s * s);
  };
  const Complex A = Complex(pressure) / (4.0 * m.mu * df(radius) / radius + rho * omega * omega * f(radius));
  return A * df(r);
}

struct CavityRun {
  double boundary_error;  // RMS of u_r - exact over the elements, relative to |exact|
  double interior_error;  // at r = 2a on the three axes
};

CavityRun solve_cavity(Index n, double beta, double omega, FreeTerm method) {
  BoundaryMesh mesh = sphere(radius, n);
  flip_orientation(mesh);  // the solid outside
  check_boundary_mesh(mesh, Solid::Outside);
  const Index ne = mesh.n_elements();
  BoundaryConditions bc;
  bc.kind.assign(3 * ne, Prescribed::Traction);
  bc.value.resize(3 * ne);
  std::vector<std::array<double, 3>> centres(ne);
  for (Index e = 0; e < ne; ++e) {
    const ElementGeometry g = element_geometry(mesh, e);
    for (int c = 0; c < 3; ++c) {
      bc.value[3 * e + c] = Complex(-pressure * g.normal[c]);  // t = -p n, n out of the solid
      centres[e][c] = g.centroid[c];
    }
  }
  const std::vector<double> points = {2.0, 0, 0, 0, -2.0, 0, 0, 0, 2.0};
  FreeTermChoice free_term{method, 1.0};
  const auto results =
      solve_frequencies(Exec::openmp(), mesh, rho, lambda, mu, beta, {omega}, bc, IntegrationOptions{}, free_term, points);
  const FrequencyResult& r = results.at(0);
  const Complex exact = cavity_radial(beta, omega, radius);
  double num = 0, den = 0;
  for (Index e = 0; e < ne; ++e) {
    const double len = std::sqrt(centres[e][0] * centres[e][0] + centres[e][1] * centres[e][1] +
                                 centres[e][2] * centres[e][2]);
    Complex ur;
    for (int c = 0; c < 3; ++c) ur += (centres[e][c] / len) * r.u[3 * e + c];
    num += std::pow(abs(ur - exact), 2);
    den += std::pow(abs(exact), 2);
  }
  const Complex exact2 = cavity_radial(beta, omega, 2.0 * radius);
  const double axis[3][3] = {{1, 0, 0}, {0, -1, 0}, {0, 0, 1}};
  double worst = 0;
  for (int p = 0; p < 3; ++p) {
    Complex ur;
    for (int c = 0; c < 3; ++c) ur += axis[p][c] * r.interior[3 * p + c];
    worst = std::max(worst, abs(ur - exact2) / abs(exact2));
  }
  return {std::sqrt(num / den), worst};
}

double rate(double coarse, double fine) { return std::log2(coarse / fine); }

// Static limit: Lame's solution u_r = p a^3 / (4 mu r^2) (issue item (c)), both free terms.
TEST(BemCavity, StaticLameSolution) {
  for (const FreeTerm method : {FreeTerm::RigidBody, FreeTerm::Direct}) {
    const CavityRun coarse = solve_cavity(4, 0.0, 0.0, method), fine = solve_cavity(8, 0.0, 0.0, method);
    std::printf("static cavity, %s: boundary error %.3e -> %.3e (rate %.2f), interior %.3e -> %.3e\n",
                method == FreeTerm::RigidBody ? "rigid body" : "direct", coarse.boundary_error, fine.boundary_error,
                rate(coarse.boundary_error, fine.boundary_error), coarse.interior_error, fine.interior_error);
    // Flat constant elements on a sphere: geometry and collocation errors O(h^2)
    EXPECT_LT(fine.boundary_error, 1e-2);
    EXPECT_LT(fine.interior_error, 1e-2);
    EXPECT_GT(rate(coarse.boundary_error, fine.boundary_error), 1.5);
  }
}

// A radiating cavity at k_s a = 1.5 with 5% hysteretic damping: 8 (n = 4) and 16 (n = 8)
// elements per shear wavelength (issue item (b)).
TEST(BemCavity, HarmonicPressureWithinOnePercent) {
  const double cs = std::sqrt(mu / rho), omega = 1.5 * cs / radius;
  const CavityRun coarse = solve_cavity(4, 0.05, omega, FreeTerm::RigidBody);
  const CavityRun fine = solve_cavity(8, 0.05, omega, FreeTerm::RigidBody);
  std::printf("harmonic cavity: boundary error %.3e -> %.3e (rate %.2f), interior %.3e -> %.3e\n",
              coarse.boundary_error, fine.boundary_error, rate(coarse.boundary_error, fine.boundary_error),
              coarse.interior_error, fine.interior_error);
  EXPECT_LT(fine.boundary_error, 1e-2);
  EXPECT_LT(fine.interior_error, 1e-2);
  EXPECT_GT(rate(coarse.boundary_error, fine.boundary_error), 1.5);
}

// Rigid-body consistency (item (d)): the static H times a rigid translation is alpha I at every
// collocation point, exactly with the rigid-body free term (by construction, to rounding) and to
// discretisation accuracy with the direct one, converging.
TEST(BemCavity, RigidBodyConsistency) {
  auto defect = [](Index n, FreeTerm method, bool cavity) {
    BoundaryMesh mesh = sphere(radius, n);
    if (cavity) flip_orientation(mesh);
    const Index ne = mesh.n_elements();
    const Exec exec = Exec::openmp();
    DeviceArray<double> x(exec, std::span<const double>(mesh.coordinates));
    DeviceArray<Index> conn(exec, std::span<const Index>(mesh.connectivity));
    const BoundaryView view{x.data(), conn.data(), ne};
    const Medium m = make_medium(rho, lambda, mu, 0.0, 0.0);
    const double alpha = cavity ? 1.0 : 0.0;
    DeviceArray<Complex> sums = static_row_sums(exec, view, m, IntegrationOptions{});
    DeviceArray<Complex> H(exec, 9 * ne * ne), G(exec, 9 * ne * ne);
    assemble_constant(exec, view, m, IntegrationOptions{}, method, alpha, sums.data(), H.data(), G.data());
    const std::vector<Complex> h = H.to_host();
    const Size ld = 3 * static_cast<Size>(ne);
    double worst = 0;
    for (Size row = 0; row < ld; ++row)
      for (int b = 0; b < 3; ++b) {
        Complex sum;
        for (Index j = 0; j < ne; ++j) sum += h[row + (3 * static_cast<Size>(j) + b) * ld];
        worst = std::max(worst, abs(sum - Complex(static_cast<Size>(b) == row % 3 ? alpha : 0.0)));
      }
    return worst;
  };
  for (const bool cavity : {false, true}) {
    // Sums of 3n entries of size up to 1/2: rounding.
    EXPECT_LT(defect(4, FreeTerm::RigidBody, cavity), 1e-12);
    const double coarse = defect(4, FreeTerm::Direct, cavity), fine = defect(8, FreeTerm::Direct, cavity);
    std::printf("rigid-body defect of the direct free term (%s): %.3e -> %.3e\n", cavity ? "cavity" : "body", coarse,
                fine);
    EXPECT_LT(fine, coarse / 2.5);  // at least O(h^1.3): flat elements approximating a sphere
    EXPECT_LT(fine, 2e-2);
  }
}

}  // namespace
}  // namespace tremor::bem
