// The boundary-element solver against analytic solutions: a spherical cavity in an infinite
// medium under uniform pressure, static (Lame) and time-harmonic (radiating P wave), with the
// convergence rate under refinement; and the rigid-body consistency of H.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <numbers>
#include <optional>
#include <vector>

#include "tremor/bem/assembly.hpp"
#include "tremor/bem/generate.hpp"
#include "tremor/bem/solve.hpp"

namespace tremor::bem {
namespace TREMOR_TEST_FILE {

constexpr double pi = std::numbers::pi;
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
  double boundary_error;  // RMS of u_r - exact over the nodes, relative to |exact|
  double mean_error;      // of the area-weighted mean u_r
  double interior_error;  // the worst of the interior points
};

// The cavity of `kind` elements (n divisions), the solid outside, under pressure (each curved
// element's nodes take -p n with their own normal), the interior points at each of `radii` on
// the three axes (the second negative) and on the diagonal (1, 1, 1).
CavityRun solve_cavity(Index n, double beta, double omega, FreeTerm method, SurfaceElements kind = ElementShape::Triangle,
                       ElementOrder order = ElementOrder::Constant, const std::vector<double>& radii = {2.0}) {
  BoundaryMesh mesh = sphere(radius, n, kind);
  flip_orientation(mesh);  // the solid outside
  check_boundary_mesh(mesh, Solid::Outside);
  const Index ne = mesh.n_elements();
  BoundaryConditions bc;
  bc.kind.assign(3 * ne, Prescribed::Traction);
  bc.value.resize(3 * ne);
  for (Index e = 0; e < ne; ++e) {
    const ElementGeometry g = element_geometry(mesh, e);
    for (int c = 0; c < 3; ++c) bc.value[3 * e + c] = Complex(-pressure * g.normal[c]);  // t = -p n, n out of the solid
  }
  const std::vector<std::optional<Complex>> pressures(static_cast<std::size_t>(ne), Complex(pressure));
  const double directions[4][3] = {{1, 0, 0}, {0, -1, 0}, {0, 0, 1}, {1 / std::sqrt(3.0), 1 / std::sqrt(3.0), 1 / std::sqrt(3.0)}};
  const int n_directions = radii.size() == 1 ? 3 : 4;
  std::vector<double> points;
  for (const double r : radii)
    for (int d = 0; d < n_directions; ++d)
      for (int c = 0; c < 3; ++c) points.push_back(r * radius * directions[d][c]);
  FreeTermChoice free_term{method, 1.0};
  const auto results = solve_frequencies(Exec::openmp(), mesh, rho, lambda, mu, beta, {omega},
                                         conditions_at_nodes(mesh, order, bc, pressures),
                                         {order, {}, free_term, SolverMethod::Dense, {}, {}}, points);
  const FrequencyResult& r = results.at(0);
  const Complex exact = cavity_radial(beta, omega, radius);
  const std::vector<double> x = node_positions(mesh, order), node_area = node_areas(mesh, order);
  double num = 0, den = 0, area = 0;
  Complex mean;
  for (std::size_t p = 0; p < node_area.size(); ++p) {
    const double* xp = x.data() + 3 * p;
    const double len = std::sqrt(xp[0] * xp[0] + xp[1] * xp[1] + xp[2] * xp[2]);
    Complex ur;
    for (int c = 0; c < 3; ++c) ur += (xp[c] / len) * r.u[3 * p + c];
    num += std::pow(abs(ur - exact), 2);
    den += std::pow(abs(exact), 2);
    mean += node_area[p] * ur;
    area += node_area[p];
  }
  mean = mean / area;
  double worst = 0;
  for (std::size_t k = 0; k < radii.size(); ++k) {
    const Complex exact_r = cavity_radial(beta, omega, radii[k] * radius);
    for (int d = 0; d < n_directions; ++d) {
      Complex ur;
      for (int c = 0; c < 3; ++c) ur += directions[d][c] * r.interior[3 * (k * n_directions + d) + c];
      worst = std::max(worst, abs(ur - exact_r) / abs(exact_r));
    }
  }
  const char* names[] = {"constant", "linear", "quadratic"};
  std::printf("  n = %d, %s: rms %.3e, mean %.3e, interior %.3e\n", static_cast<int>(n),
              names[static_cast<int>(order)], std::sqrt(num / den), abs(mean - exact) / abs(exact), worst);
  return {std::sqrt(num / den), abs(mean - exact) / abs(exact), worst};
}

double rate(double coarse, double fine) { return std::log2(coarse / fine); }

// The meshes below are the coarsest whose errors still show the asymptotic rates (measured at
// n = 2 to 8): the fine mesh's dense solve and H, G grow as the 6th and 4th power of n, and these
// tests stay a few seconds each.

// Static limit: Lame's solution u_r = p a^3 / (4 mu r^2) (item (c)), both free terms, on flat
// triangles of the cube-projected sphere (n = 3, 6: 108 and 432 elements). Measured: boundary
// RMS error 7.15e-2 -> 3.24e-2 (rate 1.14; 5.13e-2 -> 2.35e-2, rate 1.12, at n = 4, 8), almost all
// of it a uniform bias (the mean u_r is off by as much). Constant elements converge at first order
// here; the boundary bound is the fine error with 15% margin, the rate at least 1. Interior points
// at r = 2a: 3.3e-2 -> 1.2e-3, but their error changes sign near n = 6 (5.4e-3 at n = 5, 2.3e-3
// at n = 8): the bound, 3e-3, is the trend's, not a margin over a cancellation.
TEST(BemCavity, StaticLameSolution) {
  CavityRun runs[2][2];
  for (const FreeTerm method : {FreeTerm::RigidBody, FreeTerm::Direct}) {
    const int m = method == FreeTerm::RigidBody ? 0 : 1;
    runs[m][0] = solve_cavity(3, 0.0, 0.0, method);
    runs[m][1] = solve_cavity(6, 0.0, 0.0, method);
    const CavityRun &coarse = runs[m][0], &fine = runs[m][1];
    std::printf("static cavity, %s: boundary error %.3e -> %.3e (rate %.2f), interior %.3e -> %.3e\n",
                m == 0 ? "rigid body" : "direct", coarse.boundary_error, fine.boundary_error,
                rate(coarse.boundary_error, fine.boundary_error), coarse.interior_error, fine.interior_error);
    EXPECT_LT(fine.boundary_error, 3.7e-2);
    EXPECT_LT(fine.interior_error, 3e-3);
    EXPECT_GT(rate(coarse.boundary_error, fine.boundary_error), 1.0);
  }
  // On flat elements the two free terms differ only by quadrature error (1e-9, RigidBodyConsistency).
  EXPECT_NEAR(runs[0][1].boundary_error, runs[1][1].boundary_error, 1e-6);
}

// A radiating cavity at k_s a = 1.5 with 5% hysteretic damping: 6 and 12 elements per shear
// wavelength at n = 3, 6 (items (b)). Measured: boundary RMS error 7.76e-2 -> 3.41e-2 (rate 1.19;
// 5.45e-2 -> 2.48e-2, rate 1.14, at n = 4, 8), interior (r = 2a) 1.0e-2 -> 6.7e-3. Within 1% would
// take about n = 20 (4,800 elements) with constant elements; linear ones get there at n = 6
// (LinearElementsConverge). Bounds: the fine boundary error with 15% margin, the interior within 1%.
TEST(BemCavity, HarmonicPressure) {
  const double cs = std::sqrt(mu / rho), omega = 1.5 * cs / radius;
  const CavityRun coarse = solve_cavity(3, 0.05, omega, FreeTerm::RigidBody);
  const CavityRun fine = solve_cavity(6, 0.05, omega, FreeTerm::RigidBody);
  std::printf("harmonic cavity: boundary error %.3e -> %.3e (rate %.2f), interior %.3e -> %.3e\n",
              coarse.boundary_error, fine.boundary_error, rate(coarse.boundary_error, fine.boundary_error),
              coarse.interior_error, fine.interior_error);
  EXPECT_LT(fine.boundary_error, 3.9e-2);
  EXPECT_LT(fine.interior_error, 1e-2);
  EXPECT_GT(rate(coarse.boundary_error, fine.boundary_error), 1.0);
}

// The discretisation alone, without the sphere's geometric error: the field of a point load at a
// point inside the cavity (outside the solid) is an exact elastodynamic state of the solid around
// any closed surface. Its tractions at the collocation points are prescribed and its displacements
// recovered, static and at k_s a = 1.5, both with 5% damping. Measured (RMS relative) at 108 ->
// 432 triangles (n = 3, 6): static 3.30e-2 -> 1.00e-2 (rate 1.72), harmonic 3.65e-2 -> 1.23e-2
// (rate 1.57); at n = 4, 8 1.61 and 1.44: faster than the cavity's 1.1, the sphere's geometry, not
// the integration, limits that one. The bounds are the measured values with 15% margin, the rate's
// about 10%.
double kelvin_error(Index n, double omega, double beta, ElementOrder order = ElementOrder::Constant,
                    ElementShape shape = ElementShape::Triangle) {
  BoundaryMesh mesh = sphere(radius, n, shape);
  flip_orientation(mesh);
  const Index ne = mesh.n_elements();
  const Medium m = make_medium(rho, lambda, mu, beta, omega);
  const std::vector<Index> first = first_nodes(mesh, order);
  const std::vector<double> x = node_positions(mesh, order);
  const std::size_t n_nodes = static_cast<std::size_t>(first.back());
  BoundaryConditions bc;
  bc.kind.assign(3 * n_nodes, Prescribed::Traction);
  bc.value.resize(3 * n_nodes);
  std::vector<Complex> exact(3 * n_nodes);
  const double source[3] = {0.1, -0.2, 0.15}, load[3] = {0.3, 0.5, 0.8};
  for (Index e = 0; e < ne; ++e) {
    const ElementGeometry g = element_geometry(mesh, e);
    for (Index p = first[e]; p < first[e + 1]; ++p) {
      const double d[3] = {x[3 * p] - source[0], x[3 * p + 1] - source[1], x[3 * p + 2] - source[2]};
      Complex u[9], t[9];
      fundamental(m, d, g.normal.data(), KernelPart::Full, u, t);
      for (int j = 0; j < 3; ++j) {
        Complex su, st;
        for (int i = 0; i < 3; ++i) {
          su += load[i] * u[3 * i + j];
          st += load[i] * t[3 * i + j];
        }
        exact[3 * p + j] = su;
        bc.value[3 * p + j] = st;
      }
    }
  }
  const FreeTermChoice free_term{FreeTerm::RigidBody, 1.0};
  const auto r = solve_frequencies(Exec::openmp(), mesh, rho, lambda, mu, beta, {omega}, bc,
                                   {order, {}, free_term, SolverMethod::Dense, {}, {}}, {});
  double num = 0, den = 0;
  for (std::size_t k = 0; k < 3 * n_nodes; ++k) {
    num += std::pow(abs(r[0].u[k] - exact[k]), 2);
    den += std::pow(abs(exact[k]), 2);
  }
  return std::sqrt(num / den);
}

// Linear elements (discontinuous, a node per vertex at the Gauss points) on the quadrilateral
// sphere, n = 3 and 6 (54 and 216 elements, 216 and 864 nodes): static with no damping (Lame),
// and the radiating cavity at k_s a = 3 with 5% damping, where n = 6 has 8 elements per
// shear wavelength (edges pi / 12 a = 0.262 a) and n = 3 four. Measured: static boundary RMS
// error 3.25e-2 -> 8.44e-3 (rate 1.94), interior (r = 2a) 9.1e-2 -> 2.5e-2; k_s a = 3: 3.28e-2 ->
// 8.64e-3 (rate 1.92), interior 2.9e-2 -> 7.8e-3 (at n = 4, 8 and k_s a = 4, again 8 elements per
// wavelength: rates 1.95 and 1.90, 4.27e-3 at n = 8). Second order: what is left is mostly the
// inscribed polyhedron's smaller cavity (the mean u_r carries most of the error, and the
// point-load test below, free of it, converges at 2.4). The bounds are the measured values with
// about 15% margin; the rate at least 1.7.
TEST(BemCavity, LinearElementsConverge) {
  const double cs = std::sqrt(mu / rho);
  for (const double ka : {0.0, 3.0}) {
    const double beta = ka == 0.0 ? 0.0 : 0.05;
    const CavityRun coarse = solve_cavity(3, beta, ka * cs / radius, FreeTerm::RigidBody, ElementShape::Quadrilateral,
                                          ElementOrder::Linear);
    const CavityRun fine = solve_cavity(6, beta, ka * cs / radius, FreeTerm::RigidBody, ElementShape::Quadrilateral,
                                        ElementOrder::Linear);
    std::printf("linear cavity, k_s a = %g: boundary error %.3e -> %.3e (rate %.2f), interior %.3e -> %.3e\n", ka,
                coarse.boundary_error, fine.boundary_error, rate(coarse.boundary_error, fine.boundary_error),
                coarse.interior_error, fine.interior_error);
    EXPECT_LT(fine.boundary_error, ka == 0.0 ? 9.7e-3 : 9.9e-3);
    EXPECT_LT(fine.boundary_error, 1e-2);  // within 1% at 8 elements per shear wavelength
    EXPECT_LT(fine.interior_error, ka == 0.0 ? 2.9e-2 : 9e-3);
    EXPECT_GT(rate(coarse.boundary_error, fine.boundary_error), 1.7);
  }
}

TEST(BemCavity, FieldOfAPointLoadInsideTheCavity) {
  const double cs = std::sqrt(mu / rho);
  for (const double omega : {0.0, 1.5 * cs / radius}) {
    const double coarse = kelvin_error(3, omega, 0.05), fine = kelvin_error(6, omega, 0.05);
    std::printf("point-load field, omega = %g: %.3e -> %.3e (rate %.2f)\n", omega, coarse, fine, rate(coarse, fine));
    EXPECT_LT(fine, omega == 0.0 ? 1.15e-2 : 1.4e-2);
    EXPECT_GT(rate(coarse, fine), 1.4);
  }
}

// The same with linear elements, triangles n = 2 and 4 (48 and 192 elements, 144 and 576 nodes).
// Measured: static 2.50e-2 -> 4.54e-3 (rate 2.46), harmonic 3.46e-2 -> 6.54e-3 (rate 2.40): second
// order (at n = 3, 6: 2.25 and 2.20; the coarse mesh raises the rate, but constant elements, 1.5 at
// n = 3, 6, still give only 1.9 at n = 2, 4). Bounds: the measured values with 15% margin, the rate
// at least 2.
TEST(BemCavity, FieldOfAPointLoadLinearElements) {
  const double cs = std::sqrt(mu / rho);
  for (const double omega : {0.0, 1.5 * cs / radius}) {
    const double coarse = kelvin_error(2, omega, 0.05, ElementOrder::Linear),
                 fine = kelvin_error(4, omega, 0.05, ElementOrder::Linear);
    std::printf("point-load field, linear, omega = %g: %.3e -> %.3e (rate %.2f)\n", omega, coarse, fine,
                rate(coarse, fine));
    EXPECT_LT(fine, omega == 0.0 ? 5.2e-3 : 7.5e-3);
    EXPECT_GT(rate(coarse, fine), 2.0);
  }
}

// Rigid-body consistency (item (d)), constant and linear elements: the static H times a rigid
// translation is alpha I at every collocation point: by construction with the rigid-body free term
// (to rounding), and with the direct one to quadrature accuracy: flat elements (triangulated
// sphere, box of quadrilaterals) and warped quadrilaterals (the quadrilateral sphere), whose
// difference from their tangent-plane projection is integrated by Duffy's triangles (it was 6.5e-3
// with the projection alone).
TEST(BemCavity, RigidBodyConsistency) {
  auto defect = [](const BoundaryMesh& mesh, FreeTerm method, double alpha, ElementOrder order) {
    const Exec exec = Exec::openmp();
    const DeviceBoundary boundary(exec, mesh, order);
    const BoundaryView view = boundary.view();
    const Index ne = boundary.n_nodes();
    const Medium m = make_medium(rho, lambda, mu, 0.0, 0.0);
    // The rigid-body sums only where the free term uses them (assemble ignores them otherwise).
    DeviceArray<Complex> sums;
    if (method == FreeTerm::RigidBody) sums = static_row_sums(exec, view, m, IntegrationOptions{});
    DeviceArray<Complex> H(exec, 9 * ne * ne), G(exec, 9 * ne * ne);
    assemble(exec, view, m, IntegrationOptions{}, method, alpha, sums.data(), H.data(), G.data());
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
  BoundaryMesh cavity = sphere(radius, 3, ElementShape::Triangle);
  flip_orientation(cavity);
  const BoundaryMesh body = sphere(radius, 3, ElementShape::Triangle), block = box(2.0, 1.0, 1.5, 4, 2, 3);
  const BoundaryMesh warped = sphere(radius, 4, ElementShape::Quadrilateral);
  // Direct free term bounds, constant and linear: measured 5.4e-12, 4.3e-8 (triangulated sphere,
  // n = 3; 1.1e-11, 4.9e-8 at n = 4), 1e-14, 9e-13 (box), 3.2e-11, 4.0e-7 (warped quadrilaterals):
  // the adaptive 8 x 8 Gauss of the neighbours, nearer to a linear element's nodes (pulled halfway
  // to the corners), and on warped elements the 8 x 8 Duffy points of the warp's correction (5.6e-7,
  // 5.1e-5 before the Duffy triangles were cut at 60 degrees); bounds about twice those (the
  // constant sphere's kept at n = 4's, the warped quadrilaterals' as they were).
  struct Bound {
    const BoundaryMesh* mesh;
    double alpha, constant, linear;
  };
  const Bound cases[] = {
      {&body, 0.0, 1e-10, 1e-7}, {&cavity, 1.0, 1e-10, 1e-7}, {&block, 0.0, 1e-12, 1e-11}, {&warped, 0.0, 1.2e-6, 1e-4}};
  for (const ElementOrder order : {ElementOrder::Constant, ElementOrder::Linear})
    for (const Bound& c : cases) {
      // Sums of 3n entries of size up to 1/2: rounding.
      EXPECT_LT(defect(*c.mesh, FreeTerm::RigidBody, c.alpha, order), 1e-12) << c.mesh->source;
      const double direct = defect(*c.mesh, FreeTerm::Direct, c.alpha, order);
      std::printf("rigid-body defect of the direct free term, %s, %s: %.3e\n", c.mesh->source.c_str(),
                  order == ElementOrder::Constant ? "constant" : "linear", direct);
      EXPECT_LT(direct, order == ElementOrder::Constant ? c.constant : c.linear) << c.mesh->source;
    }
  // Quadratic elements on curved 9-node quadrilaterals and 6-node triangles of the sphere (n = 2)
  // and a box of 8-node ones: the direct free term's tangent-plane part along the projected curved
  // edges plus the curve's correction. Measured 2.1e-7 (9-node), 4.0e-5 (6-node: their nodes lie a
  // tenth of the height from the edges, where the neighbours' adaptive Gauss is least accurate) and
  // 4.5e-11 (the box's flat elements); bounds about twice those.
  BoundaryMesh curved_cavity = sphere(radius, 2, {ElementShape::Triangle, 2});
  flip_orientation(curved_cavity);
  const BoundaryMesh curved = sphere(radius, 2, {ElementShape::Quadrilateral, 2});
  const BoundaryMesh eight = box(2.0, 1.0, 1.5, 2, 1, 2, {ElementShape::Quadrilateral, 2, true});
  const Bound quadratic[] = {{&curved, 0.0, 0.0, 5e-7}, {&curved_cavity, 1.0, 0.0, 8e-5}, {&eight, 0.0, 0.0, 1e-10}};
  for (const Bound& c : quadratic) {
    EXPECT_LT(defect(*c.mesh, FreeTerm::RigidBody, c.alpha, ElementOrder::Quadratic), 1e-12) << c.mesh->source;
    const double direct = defect(*c.mesh, FreeTerm::Direct, c.alpha, ElementOrder::Quadratic);
    std::printf("rigid-body defect of the direct free term, %s, quadratic: %.3e\n", c.mesh->source.c_str(), direct);
    EXPECT_LT(direct, c.linear) << c.mesh->source;
  }
}

// The slope of log(error) against log(n) by least squares: the convergence rate in the element
// size over all the refinements.
double fitted_rate(const std::vector<double>& n, const std::vector<double>& error) {
  double mx = 0, my = 0;
  for (std::size_t k = 0; k < n.size(); ++k) {
    mx += std::log(n[k]) / static_cast<double>(n.size());
    my += std::log(error[k]) / static_cast<double>(n.size());
  }
  double sxy = 0, sxx = 0;
  for (std::size_t k = 0; k < n.size(); ++k) {
    sxy += (std::log(n[k]) - mx) * (std::log(error[k]) - my);
    sxx += (std::log(n[k]) - mx) * (std::log(n[k]) - mx);
  }
  return -sxy / sxx;
}

// Quadratic elements (discontinuous, a node per node of the 9-node quadrilaterals, which lie on
// the sphere itself) on the radiating cavity with 5% damping at k_s a = 1.5 and 3, over three
// refinements n = 2, 3, 4 (24 to 96 elements, 216 to 864 nodes; at n = 4 and k_s a = 3, 2.7
// elements, 5.3 points, per shear wavelength), interior points at 1.5, 3 and 6 radii on the axes
// and a diagonal. Measured at n = 2, 3, 4: boundary RMS 4.44e-3, 1.45e-3, 6.25e-4 (k_s a = 1.5)
// and 7.06e-3, 1.92e-3, 7.72e-4 (3): rates 2.82 and 3.19 fitted over the three, where linear
// elements converge at 1.9 (LinearElementsConverge) and the inscribed flat facets leave them 0.86%
// off at n = 6; the worst interior point 3.54e-3, 9.16e-4, 2.77e-4 and 8.49e-3, 1.75e-3, 5.20e-4
// (rates 3.7, 4.0). 6-node triangles at n = 3 (108 elements): 3.53e-3, interior 4.48e-3. Bounds:
// within 0.3% at n = 4 (what the elements are for), the measured values with 15% margin, the
// rates at least 2.6.
TEST(BemCavity, QuadraticElementsConverge) {
  const double cs = std::sqrt(mu / rho);
  const std::vector<double> radii = {1.5, 3.0, 6.0};
  const double boundary_bound[2] = {7.2e-4, 8.9e-4}, interior_bound[2] = {3.2e-4, 6.0e-4};
  for (int f = 0; f < 2; ++f) {
    const double ka = f == 0 ? 1.5 : 3.0;
    std::vector<double> boundary, interior;
    for (const Index n : {2, 3, 4}) {
      const CavityRun run = solve_cavity(n, 0.05, ka * cs / radius, FreeTerm::RigidBody,
                                         {ElementShape::Quadrilateral, 2}, ElementOrder::Quadratic, radii);
      boundary.push_back(run.boundary_error);
      interior.push_back(run.interior_error);
    }
    const double rate_boundary = fitted_rate({2, 3, 4}, boundary), rate_interior = fitted_rate({2, 3, 4}, interior);
    std::printf("quadratic cavity, k_s a = %g: boundary %.3e, %.3e, %.3e (rate %.2f), interior %.3e, %.3e, %.3e "
                "(rate %.2f)\n",
                ka, boundary[0], boundary[1], boundary[2], rate_boundary, interior[0], interior[1], interior[2],
                rate_interior);
    EXPECT_LT(boundary[2], 3e-3);  // within 0.3%
    EXPECT_LT(interior[2], 3e-3);
    EXPECT_LT(boundary[2], boundary_bound[f]);
    EXPECT_LT(interior[2], interior_bound[f]);
    EXPECT_GT(rate_boundary, 2.6);
    EXPECT_GT(rate_interior, 2.6);
  }
  const CavityRun triangles = solve_cavity(3, 0.05, 3.0 * cs / radius, FreeTerm::RigidBody,
                                           {ElementShape::Triangle, 2}, ElementOrder::Quadratic, radii);
  EXPECT_LT(triangles.boundary_error, 4.1e-3);
  EXPECT_LT(triangles.interior_error, 5.2e-3);
}

}  // namespace
}  // namespace tremor::bem
