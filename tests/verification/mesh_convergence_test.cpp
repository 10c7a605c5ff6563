// Convergence in the element size h (issue 3, verification 11(c) in h): standing waves of an
// elastic box whose every face is a roller (normal displacement 0, no shear traction), through
// the stiffness operator, lumped mass and the central-difference integrator.
//
// With rollers on all faces, a box [0, L]^d has exact normal modes (k = (a, b, c), a = m pi / L ...):
//   P mode  u = grad(cos ax cos by cos cz),                       omega = c_p |k|;
//   S mode  u = curl(sin ax sin by cos cz e_z)
//             = (b sin ax cos by cos cz, -a cos ax sin by cos cz, 0),  omega = c_s |k|.
// Each vanishes in its normal component on the faces it is normal to, and its shear stresses carry
// a factor sin(...) that vanishes there too (in 2D: drop z, c = 0). The exact solution from u0 = a
// sum of such shapes and v0 = 0 is u(x, t) = sum shape(x) cos(omega t). The test starts from the
// nodal values of u0 (CentralDifference::set_initial_conditions, Taylor start), steps to a fixed
// time T with dt proportional to h (or to h^2, below), and measures the nodal error against
// u(x_node, T).
//
// What theory says for the nodal error at fixed T: the error is the phase error of the discrete
// modes, (omega_h - omega) T, plus the projection of the initial interpolant on the other discrete
// modes. For linear elements with lumped mass, omega_h - omega = O(h^2) (the lumped-mass
// dispersion relation, e.g. 1D: omega_h^2 = 4c^2/h^2 sin^2(kh/2), omega_h / omega = 1 - (kh)^2/24
// + ...), and central differences add omega^3 dt^2 T / 24 = O(h^2) with dt ~ h: second order.
// For quadratic elements the spatial eigenvalue error is O(h^4) with GLL (nodal) lumping, which
// integrates the mass of degree-2 shape functions exactly enough (degree 2p - 2 = 2, Simpson's rule
// does 3) to keep the consistent-mass rate; but the integrator stays second order in dt, so with
// dt ~ h the total is still O(h^2). The quadratic cases therefore take dt ~ h^2 (same ratio to
// the stable step at the coarsest mesh) so the time error falls as h^4 and the spatial one shows.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "tremor/explicit/central_difference.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/fem/time_step.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/sparse/assemble.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

constexpr double youngs = 210e9, poisson = 0.3, density = 7850.0;
constexpr double side = 0.01;         // m, the box is [0, side]^d
constexpr double amplitude = 1e-6;    // m, displacement scale of each mode
constexpr double end_time = 3e-6;     // s, about one period of the modes below
constexpr double pi = std::numbers::pi;

struct Speeds {
  double p, s;
};
Speeds speeds() {
  const double lambda = youngs * poisson / ((1 + poisson) * (1 - 2 * poisson)), mu = youngs / (2 * (1 + poisson));
  return {std::sqrt((lambda + 2 * mu) / density), std::sqrt(mu / density)};
}

// The exact solution: a P mode (1, 1[, 1]) plus an S mode (2, 1[, 1]), so both wave speeds, both
// directions and (in 3D) all three components take part.
std::array<double, 3> exact(int dim, const std::array<double, 3>& x, double t) {
  const Speeds c = speeds();
  const double k = pi / side;
  std::array<double, 3> u{0.0, 0.0, 0.0};
  {  // P, wavenumbers (k, k, k): u = -grad(cos cos cos) / |k| scaled to `amplitude`
    const double a = k, b = k, cz = dim == 3 ? k : 0.0;
    const double norm = std::sqrt(a * a + b * b + cz * cz);
    const double time = std::cos(speeds().p * norm * t) * amplitude / norm;
    const double zc = std::cos(cz * x[2]), zs = std::sin(cz * x[2]);
    u[0] += a * std::sin(a * x[0]) * std::cos(b * x[1]) * zc * time;
    u[1] += b * std::cos(a * x[0]) * std::sin(b * x[1]) * zc * time;
    u[2] += cz * std::cos(a * x[0]) * std::cos(b * x[1]) * zs * time;
  }
  {  // S, wavenumbers (2k, k, k)
    const double a = 2 * k, b = k, cz = dim == 3 ? k : 0.0;
    const double norm = std::sqrt(a * a + b * b + cz * cz);
    const double time = std::cos(c.s * norm * t) * 0.5 * amplitude / std::sqrt(a * a + b * b);
    const double zc = std::cos(cz * x[2]);
    u[0] += b * std::sin(a * x[0]) * std::cos(b * x[1]) * zc * time;
    u[1] += -a * std::cos(a * x[0]) * std::sin(b * x[1]) * zc * time;
  }
  return u;
}

struct Errors {
  double h = 0.0, dt = 0.0;
  int steps = 0;
  double relative_l2 = 0.0;   // sqrt(sum |e|^2 / sum |u_exact(T)|^2) over the nodes
  double relative_max = 0.0;  // max |e| / max |u_exact(T)|
};

// Runs the box with `n` elements per side from the exact u0 to `end_time` in `steps` steps.
Errors run_mode(int dim, ElementType type, int order, Size n, int steps) {
  Model model;
  model.source = "box";
  model.mesh = dim == 2 ? generate_rectangle({0, 0}, {side, side}, {n, n}, type, order)
                        : generate_box({0, 0, 0}, {side, side, side}, {n, n, n}, type, order);
  model.materials.push_back(Material::from_youngs("steel", youngs, poisson, density));
  model.sections.push_back({"all", "steel", dim == 2 ? Formulation::PlaneStrain : Formulation::Solid, 1.0});
  model.validate();
  // Rollers: the normal component held on each face.
  std::vector<Index> fixed;
  const char* faces[3][2] = {{"xmin", "xmax"}, {"ymin", "ymax"}, {"zmin", "zmax"}};
  for (int d = 0; d < dim; ++d)
    for (const char* face : faces[d])
      for (Index node : model.mesh.node_sets.at(face)) fixed.push_back(node * dim + d);

  Errors result;
  result.h = side / static_cast<double>(n);
  result.dt = end_time / steps;
  result.steps = steps;
  const double stable = fem::stable_time_step(model).dt;
  EXPECT_LT(result.dt, stable) << "n = " << n;

  // Serial: these meshes are small, and OpenMP barriers every step cost more than they save when
  // ctest runs tests side by side on a few cores.
  const Exec exec = Exec::serial();
  // GLL elements through the sem operator, what a run of them uses (the assembled GLL K gives the
  // same K u to 1e-12: SemOrders), the others assembled.
  const bool gll = type == ElementType::QuadGLL || type == ElementType::HexGLL;
  const auto stiffness = explicit_fe::make_stiffness_operator<double>(model, gll ? "sem" : "assembled", exec);
  const auto mass = sparse::assemble_lumped_mass(model);
  explicit_fe::CentralDifference<double> scheme(exec, *stiffness, mass, {}, result.dt, fixed);
  const Index n_nodes = model.mesh.n_nodes();
  std::vector<double> u0(static_cast<std::size_t>(n_nodes * dim)), v0(u0.size(), 0.0);
  const auto position = [&](Index node) {
    std::array<double, 3> x{0.0, 0.0, 0.0};
    for (int d = 0; d < dim; ++d) x[d] = model.mesh.node(node)[d];
    return x;
  };
  for (Index i = 0; i < n_nodes; ++i) {
    const auto u = exact(dim, position(i), 0.0);
    for (int d = 0; d < dim; ++d) u0[static_cast<std::size_t>(i * dim + d)] = u[d];
  }
  scheme.set_initial_conditions(u0, v0);
  for (int k = 0; k < steps; ++k) scheme.step({}, {});

  const View<const double> u = scheme.displacement();
  double error2 = 0.0, norm2 = 0.0, error_max = 0.0, norm_max = 0.0;
  for (Index i = 0; i < n_nodes; ++i) {
    const auto ue = exact(dim, position(i), scheme.time());
    for (int d = 0; d < dim; ++d) {
      const double e = u[i * dim + d] - ue[d];
      error2 += e * e;
      norm2 += ue[d] * ue[d];
      error_max = std::max(error_max, std::abs(e));
      norm_max = std::max(norm_max, std::abs(ue[d]));
    }
  }
  result.relative_l2 = std::sqrt(error2 / norm2);
  result.relative_max = error_max / norm_max;
  return result;
}

// Runs the refinements n0, 2 n0, 4 n0, ... with steps0 * refine (dt ~ h) or steps0 * refine^2
// (dt ~ h^2), prints the table and returns the observed rates log2(e_k-1 / e_k) in L2 and max.
struct Rates {
  std::vector<Errors> errors;
  std::vector<double> l2, max;
};
Rates convergence(const char* name, int dim, ElementType type, int order, Size n0, int levels, int steps0,
                  bool dt_like_h_squared) {
  Rates rates;
  for (int level = 0; level < levels; ++level) {
    const int refine = 1 << level;
    const int steps = steps0 * (dt_like_h_squared ? refine * refine : refine);
    rates.errors.push_back(run_mode(dim, type, order, n0 * refine, steps));
  }
  std::printf("%s, dt ~ %s:\n", name, dt_like_h_squared ? "h^2" : "h");
  for (std::size_t k = 0; k < rates.errors.size(); ++k) {
    const Errors& e = rates.errors[k];
    std::printf("  h = %.4g mm, %d steps of %.4g ns: relative error L2 %.3e, max %.3e", e.h * 1e3, e.steps,
                e.dt * 1e9, e.relative_l2, e.relative_max);
    if (k > 0) {
      rates.l2.push_back(std::log2(rates.errors[k - 1].relative_l2 / e.relative_l2));
      rates.max.push_back(std::log2(rates.errors[k - 1].relative_max / e.relative_max));
      std::printf("; rates %.3f, %.3f", rates.l2.back(), rates.max.back());
    }
    std::printf("\n");
  }
  return rates;
}

// The tolerances: an observed rate carries the next term of the error expansion, relative size
// ~(kh)^2 at the finest mesh (kh ~ 0.1 for the S mode at the finest 2D mesh), so rates within
// 0.1 of the theoretical order are asymptotic; coarser pairs are held to what they are
// measured to be, still approaching the asymptotic rate.

TEST(MeshConvergence, Quad4IsSecondOrderInH) {
  const Rates r = convergence("quad4", 2, ElementType::Quad4, 1, 8, 4, 64, false);
  // Measured L2 1.985, 1.997, 1.999; max 1.946, 1.987, 1.997 (8 to 64 elements per side).
  for (double rate : r.l2) EXPECT_NEAR(rate, 2.0, 0.1);
  for (double rate : r.max) EXPECT_NEAR(rate, 2.0, 0.1);
}

TEST(MeshConvergence, Tri3IsSecondOrderInH) {
  const Rates r = convergence("tri3", 2, ElementType::Tri3, 1, 8, 4, 64, false);
  // Measured L2 2.002, 1.996, 2.000; max 1.878, 1.956, 1.996: the max norm, set by one node,
  // reaches the asymptote a level later.
  for (double rate : r.l2) EXPECT_NEAR(rate, 2.0, 0.1);
  EXPECT_NEAR(r.max[1], 2.0, 0.1);
  EXPECT_NEAR(r.max[2], 2.0, 0.1);
}

TEST(MeshConvergence, Hex8IsSecondOrderInH) {
  const Rates r = convergence("hex8", 3, ElementType::Hex8, 1, 4, 4, 32, false);
  // Measured L2 1.43, 1.71, 1.93 (4 to 32 elements per side): the 3D S mode (2, 1, 1) has
  // kh = 0.48 at 16 elements, so the coarse pairs still carry the (kh)^4 term of the dispersion
  // error; the rate rises towards 2 with each refinement and the finest pair is within 0.1 of it.
  EXPECT_NEAR(r.l2.back(), 2.0, 0.1);
  EXPECT_NEAR(r.max.back(), 2.0, 0.1);
  for (std::size_t k = 1; k < r.l2.size(); ++k) EXPECT_GT(r.l2[k], r.l2[k - 1]);
}

TEST(MeshConvergence, QuadGll2IsFourthOrderInHWithDtLikeHSquared) {
  // GLL-lumped quadratic Lagrange elements: the eigenvalue error is O(h^4), and with dt ~ h^2 the
  // time error O(dt^2) = O(h^4) as well. Measured L2 4.10, 4.00; max 3.86, 3.98 (4 to 16 elements).
  const Rates r = convergence("quad-gll2", 2, ElementType::QuadGLL, 2, 4, 3, 72, true);
  EXPECT_NEAR(r.l2.back(), 4.0, 0.3);
  EXPECT_NEAR(r.max.back(), 4.0, 0.3);
  EXPECT_LT(r.errors.back().relative_l2, 1e-4);  // 5.0e-5 measured: far below the linear elements'
}

TEST(MeshConvergence, QuadGll2IsSecondOrderWithDtLikeH) {
  // The same elements with dt ~ h: the central-difference error omega^3 dt^2 T / 24 takes over
  // from the O(h^4) spatial error once that has fallen below it, and the scheme as a whole is
  // second order. Measured L2 2.88, 1.82, 1.95 (4 to 32 elements; 3.81, 1.51, 1.88 with the
  // Gauss rule for K before the GLL one): the rate falls from above 2, where the spatial error
  // still counts, to the temporal 2 as the error changes hands.
  const Rates r = convergence("quad-gll2", 2, ElementType::QuadGLL, 2, 4, 4, 72, false);
  EXPECT_GT(r.l2.front(), r.l2.back() + 0.5);
  EXPECT_NEAR(r.l2.back(), 2.0, 0.2);
}

TEST(MeshConvergence, Quad8WithHrzLumpingIsSecondOrderInH) {
  // The serendipity quad8 with HRZ lumping (diagonal of the consistent mass, scaled to the element
  // mass) is not a quadrature rule of the element's degree: measured, the nodal error stays O(h^2)
  // even with dt ~ h^2, as for the linear elements, where GLL lumping keeps O(h^4). Measured L2
  // 2.01, 1.96; max 2.08, 1.79 (4 to 16 elements).
  const Rates r = convergence("quad8", 2, ElementType::Quad8, 1, 4, 3, 72, true);
  for (double rate : r.l2) EXPECT_NEAR(rate, 2.0, 0.15);
}

TEST(MeshConvergence, HexGll2IsFourthOrderInHWithDtLikeHSquared) {
  // Measured L2 4.86, 3.87; max 4.83, 3.73 (2 to 8 elements per side; the 2-element mesh is far
  // from the asymptotic range).
  const Rates r = convergence("hex-gll2", 3, ElementType::HexGLL, 2, 2, 3, 36, true);
  EXPECT_NEAR(r.l2.back(), 4.0, 0.35);
  EXPECT_NEAR(r.max.back(), 4.0, 0.35);
}

}  // namespace
}  // namespace tremor
