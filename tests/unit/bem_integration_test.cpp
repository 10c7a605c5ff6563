// Element integration of the boundary-element solver (bem/integration.hpp, assembly_kernels.hpp):
// areas, the weakly singular 1/r integral by Duffy's triangles, the adaptive subdivision near a
// point, and the flat-element principal value against quadrature on a fine polar grid.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "tremor/bem/assembly_kernels.hpp"
#include "tremor/bem/integration.hpp"

namespace tremor::bem {
namespace TREMOR_TEST_FILE {

ElementNodes quad(double a, double b, double warp = 0.0) {
  ElementNodes e{};
  const double x[4][3] = {{-a, -b, 0}, {a, -b, warp}, {a, b, 0}, {-a, b, warp}};
  for (int k = 0; k < 4; ++k)
    for (int c = 0; c < 3; ++c) e.x[k][c] = x[k][c];
  e.n_vertices = 4;
  return e;
}

ElementNodes triangle(const double (&x)[3][3]) {
  ElementNodes e{};
  for (int k = 0; k < 4; ++k)
    for (int c = 0; c < 3; ++c) e.x[k][c] = x[k < 3 ? k : 2][c];
  e.n_vertices = 3;
  return e;
}

double norm3(const double* v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

TEST(BemIntegration, AreasWholeSubdividedAndCollapsed) {
  const GaussRule rule = gauss_rule(4);
  const ElementNodes q = quad(1.5, 0.5);  // area 3
  const ElementNodes t = triangle({{0, 0, 0}, {2, 0, 0}, {0, 1, 1}});  // area |(2,0,0) x (0,1,1)| / 2 = sqrt(2)
  for (const ElementNodes& e : {q, t}) {
    const double exact = e.n_vertices == 4 ? 3.0 : std::sqrt(2.0);
    double whole = 0, near = 0, singular = 0;
    integrate_piece(e, whole_element(e.n_vertices), rule, 0, 1,
                    [&](const double*, const double*, const double* j, double w) { whole += w * norm3(j); });
    const double xi[3] = {0.1, 0.0, 0.05};  // close to the element: several levels of pieces
    integrate_near(e, xi, rule, 2.0, 5, 0, 1, [&](const double*, const double*, const double* j, double w) { near += w * norm3(j); });
    double c[2];
    reference_centre(e.n_vertices, c);
    integrate_singular(e, c, rule, 0, 1, [&](const double*, const double*, const double* j, double w) { singular += w * norm3(j); });
    // Flat elements: the integrand is constant, every rule is exact to rounding.
    EXPECT_NEAR(whole, exact, 1e-14);
    EXPECT_NEAR(near, exact, 1e-13);
    EXPECT_NEAR(singular, exact, 1e-14);
  }
}

// The rules hold at most max_gauss points: beyond it, an error rather than an overrun.
TEST(BemIntegration, GaussPointsOutOfRangeAreRefused) {
  EXPECT_THROW(gauss_rule(0), Error);
  EXPECT_THROW(gauss_rule(max_gauss + 1), Error);
  EXPECT_EQ(gauss_rule(max_gauss).g, max_gauss);
}

// The same area split over 8 lanes adds up to the one-lane sum.
TEST(BemIntegration, LanesShareThePoints) {
  const GaussRule rule = gauss_rule(8);
  const ElementNodes e = quad(1.0, 2.0, 0.3);
  const double xi[3] = {0.0, 2.5, 0.0};
  double one = 0, shared = 0;
  integrate_near(e, xi, rule, 2.0, 4, 0, 1, [&](const double*, const double* x, const double*, double w) { one += w * x[0] * x[0]; });
  for (int lane = 0; lane < 8; ++lane)
    integrate_near(e, xi, rule, 2.0, 4, lane, 8, [&](const double*, const double* x, const double*, double w) { shared += w * x[0] * x[0]; });
  EXPECT_NEAR(one, shared, 1e-14 * std::abs(one));
}

// int 1/r over the square [-a, a]^2 from its centre = 8 a ln(1 + sqrt 2); over a triangle from
// its centroid by the same Duffy rule against a fine polar sum.
TEST(BemIntegration, WeaklySingularByDuffy) {
  const double a = 0.7;
  const ElementNodes q = quad(a, a);
  auto duffy = [&](int g) {
    double c[2], xi[3], j[3], sum = 0;
    reference_centre(4, c);
    element_map(q, c[0], c[1], xi, j);
    integrate_singular(q, c, gauss_rule(g), 0, 1, [&](const double*, const double* x, const double* jx, double w) {
      const double d[3] = {x[0] - xi[0], x[1] - xi[1], x[2] - xi[2]};
      sum += w * norm3(jx) / norm3(d);
    });
    return sum;
  };
  // 1/r times Duffy's Jacobian is constant along each ray and smooth across (1/|a + v(b - a)|):
  // Gauss error 3e-7 with 8 points, rounding with 16.
  const double exact = 8.0 * a * std::log(1.0 + std::sqrt(2.0));
  EXPECT_NEAR(duffy(8), exact, 1e-6 * exact);
  EXPECT_NEAR(duffy(16), exact, 1e-12 * exact);
}

// Near-singular: the integral of 1/r^3 (the order of t*'s gradient) over a square from a point
// 0.05 side lengths above its centre, against the closed form; without subdivision g = 8 is far
// off, with it the error falls below 1e-6.
TEST(BemIntegration, SubdivisionResolvesNearPoints) {
  const GaussRule rule = gauss_rule(8);
  const double a = 0.5, h = 0.05;
  const ElementNodes q = quad(a, a);
  const double xi[3] = {0, 0, h};
  auto integral = [&](int depth) {
    double sum = 0;
    integrate_near(q, xi, rule, 2.0, depth, 0, 1, [&](const double*, const double* x, const double* jx, double w) {
      const double d[3] = {x[0] - xi[0], x[1] - xi[1], x[2] - xi[2]};
      const double r = norm3(d);
      sum += w * norm3(jx) * h / (r * r * r);
    });
    return sum;
  };
  // h int dA / r^3 over [-a,a]^2 at height h = the solid angle = 4 asin(a^2 / (a^2 + h^2)).
  const double exact = 4.0 * std::asin(a * a / (a * a + h * h));
  EXPECT_GT(std::abs(integral(0) - exact), 1e-2 * exact);
  EXPECT_LT(std::abs(integral(8) - exact), 1e-6 * exact);
}

// The flat free term: c = I/2 plus the principal value of the in-plane static traction kernel,
// against a direct polar-coordinate sum of the same principal value on an irregular triangle, at
// its centre (a constant element's node) and at a linear element's node near a corner.
class BemFlatPrincipalValue : public ::testing::TestWithParam<int> {};

TEST_P(BemFlatPrincipalValue, MatchesPolarSum) {
  const Medium m = make_medium(2000.0, 2e8, 1e8, 0.0, 0.0);
  const ElementNodes e = triangle({{0, 0, 0}, {3, 0.2, 0}, {0.4, 1.7, 0}});
  double xi[3], j[3], st[2];
  if (GetParam() < 0)
    reference_centre(3, st);
  else
    node_reference(ElementOrder::Linear, 3, GetParam(), st);
  Complex c[9];
  detail::flat_free_term(m, e, st, gauss_rule(8), c);
  // Reference: PV int r_i / r^2 dS = int e_i(theta) ln R(theta) dtheta, R by ray casting.
  element_map(e, st[0], st[1], xi, j);
  const int n_theta = 200000;
  double pv[2] = {0, 0};
  for (int k = 0; k < n_theta; ++k) {
    const double theta = 2.0 * std::numbers::pi * (k + 0.5) / n_theta;
    const double dir[2] = {std::cos(theta), std::sin(theta)};
    double R = 1e300;
    for (int a = 0; a < 3; ++a) {
      const double* p = e.x[a];
      const double* q = e.x[(a + 1) % 3];
      const double ex = q[0] - p[0], ey = q[1] - p[1];
      const double den = dir[0] * ey - dir[1] * ex;
      if (std::abs(den) < 1e-15) continue;
      const double s = ((p[0] - xi[0]) * ey - (p[1] - xi[1]) * ex) / den;
      const double u = ((p[0] - xi[0]) * dir[1] - (p[1] - xi[1]) * dir[0]) / den;
      if (s > 0 && u >= 0 && u <= 1) R = std::min(R, s);
    }
    for (int i = 0; i < 2; ++i) pv[i] += dir[i] * std::log(R) * 2.0 * std::numbers::pi / n_theta;
  }
  const double qv = 1e8 / (2e8 + 2e8), four_pi = 4.0 * std::numbers::pi;
  // n = +z: entry (i, z) = pv_i q / 4 pi, entry (z, i) = -pv_i q / 4 pi; the midpoint rule in theta
  // converges slowly at the triangle's corners: 1e-6 of the values.
  EXPECT_NEAR(c[0].re, 0.5, 1e-15);
  EXPECT_NEAR(c[8].re, 0.5, 1e-15);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(c[3 * i + 2].re, pv[i] * qv / four_pi, 1e-6 * std::abs(pv[i] * qv / four_pi) + 1e-12) << i;
    EXPECT_NEAR(c[3 * 2 + i].re, -pv[i] * qv / four_pi, 1e-6 * std::abs(pv[i] * qv / four_pi) + 1e-12) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(CentreAndNodes, BemFlatPrincipalValue, ::testing::Values(-1, 0, 1, 2));

}  // namespace
}  // namespace tremor::bem
