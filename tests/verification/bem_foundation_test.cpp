// The boundary-element solver on a half-space: the vertical dynamic stiffness of a rigid circular
// foundation on its surface against Luco & Westmann's (1971) solution of the mixed boundary-value
// problem (relaxed contact), which this file computes from their integral equation.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <vector>

#include "tremor/bem/assembly.hpp"
#include "tremor/bem/generate.hpp"
#include "tremor/bem/solve.hpp"

namespace tremor::bem {
namespace TREMOR_TEST_FILE {

constexpr double pi = std::numbers::pi;

// Gauss-Legendre points and weights on [0, 1].
void gauss_unit(int n, std::vector<double>& x, std::vector<double>& w) {
  x.resize(static_cast<std::size_t>(n));
  w.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    double z = std::cos(pi * (i + 0.75) / (n + 0.5)), dp = 1;
    for (int it = 0; it < 100; ++it) {
      double p1 = 1, p2 = 0;
      for (int j = 1; j <= n; ++j) {
        const double p3 = p2;
        p2 = p1;
        p1 = ((2 * j - 1) * z * p2 - (j - 1) * p3) / j;
      }
      dp = n * (z * p1 - p2) / (z * z - 1);
      const double step = p1 / dp;
      z -= step;
      if (std::abs(step) < 1e-15) break;
    }
    x[static_cast<std::size_t>(i)] = 0.5 * (1 - z);
    w[static_cast<std::size_t>(i)] = 1 / ((1 - z * z) * dp * dp);
  }
}

// The vertical or rocking impedance of a massless rigid disc of radius a on the surface of a
// half-space with shear modulus G (1 + 2 i beta) and Poisson's ratio nu, in relaxed contact (no
// shear stress under it), at a0 = omega a / c_s (c_s of the real G), e^{i omega t}; returned over
// the static elastic value, 4 G a / (1 - nu) (vertical) or 8 G a^3 / (3 (1 - nu)) (rocking), so 1
// at a0 = 0, beta = 0.
//
// Luco & Westmann (1971). The surface displacement under a vertical pressure p(r) cos(m theta) is
// (1 - nu) / G* int_0^inf H(k) P_m(k) J_m(k r) dk, P_m the order-m Hankel transform of p, with
// H = -k k_s^2 nu_p / ((1 - nu) R(k)) (-> 1 as k -> inf: Boussinesq's static kernel), R the
// Rayleigh function (2 k^2 - k_s^2)^2 - 4 k^2 nu_p nu_s, nu_j = sqrt(k^2 - k_j^2) with Re >= 0.
// Writing P_0 = int_0^a theta(t) cos(k t) dt (vertical, m = 0) or P_1 = int_0^a theta(t) sin(k t)
// dt (rocking, m = 1), the rigid motion under the disc (u_z constant, or proportional to r) turns,
// by Abel's inversion, into a Fredholm equation of the second kind (lengths over a):
//   theta(x) + int_0^1 [L(x - t) +- L(x + t)] theta(t) dt = 1 or x,
//   L(s) = 1/pi int_0^inf (H - 1) cos(k s) dk,
// and the force is int_0^1 theta, the moment 3 int_0^1 theta x, over their static values (times
// 1 + 2 i beta). H - 1 tends to C / k^2, C = k_s^2 (D - gamma^2 / 2) (gamma = c_s / c_p, D below):
// that tail is subtracted as C / (k^2 + 1), whose cosine transform is pi C e^{-|s|} / 2, and the
// rest, O(k^-4), integrated to 50 max(1, a0) by 16-point Gauss panels (0.01 min(1, a0) wide up to
// 3 a0, past the branch points and the Rayleigh pole, which the damping moves off the axis; 0.01
// up to 2 a0 + 1; wider beyond), tabulated at 801 values of s in [0, 2] and interpolated
// linearly. Nystrom on 64 Gauss points. Refining each of these (panels 0.005, 1601 values of s,
// 128 points, the integral to 400 a0) changes the vertical K by less than 3e-4.
enum class Motion { Vertical, Rocking };

std::complex<double> disc_impedance(double nu, double beta, double a0, Motion motion = Motion::Vertical) {
  const double sign = motion == Motion::Vertical ? 1.0 : -1.0;
  using C = std::complex<double>;
  const double gamma2 = (1 - 2 * nu) / (2 * (1 - nu));
  const C ks2 = a0 * a0 / C(1, 2 * beta), kp2 = gamma2 * ks2;
  const auto H = [&](double k) {
    const C vp = std::sqrt(C(k * k) - kp2), vs = std::sqrt(C(k * k) - ks2);
    const C R = (2 * k * k - ks2) * (2 * k * k - ks2) - 4 * k * k * vp * vs;
    return -k * ks2 * vp / ((1 - nu) * R);
  };
  const double D = (1.5 - gamma2 + 0.5 * gamma2 * gamma2) / (2 * (1 - gamma2));
  const C tail = ks2 * (D - 0.5 * gamma2);
  constexpr int n_s = 801;
  constexpr double s_max = 2;
  std::vector<C> L(n_s, C(0));
  std::vector<double> gx, gw;
  gauss_unit(16, gx, gw);
  const double k_max = 50 * std::max(1.0, a0);
  for (double lo = 0; lo < k_max;) {
    const double width = lo < 3 * a0       ? 0.01 * std::min(1.0, a0)
                         : lo < 2 * a0 + 1 ? 0.01
                                           : std::min(0.5, 0.05 + 0.01 * lo);
    const double hi = std::min(lo + width, k_max);
    for (std::size_t i = 0; i < gx.size(); ++i) {
      const double k = lo + (hi - lo) * gx[i];
      const C f = (H(k) - 1.0 - tail / (k * k + 1)) * ((hi - lo) * gw[i]);
      for (int j = 0; j < n_s; ++j) L[static_cast<std::size_t>(j)] += f * std::cos(k * s_max * j / (n_s - 1));
    }
    lo = hi;
  }
  const auto kernel = [&](double s) {
    s = std::abs(s);
    const double u = s / s_max * (n_s - 1);
    const int j = std::min(static_cast<int>(u), n_s - 2);
    const double f = u - j;
    const C smooth = L[static_cast<std::size_t>(j)] * (1 - f) + L[static_cast<std::size_t>(j) + 1] * f;
    return (smooth + tail * (pi / 2) * std::exp(-s)) / pi;
  };
  constexpr int n = 64;
  std::vector<double> x, w;
  gauss_unit(n, x, w);
  std::vector<C> A(n * n), b(n, C(1));
  if (motion == Motion::Rocking)
    for (int i = 0; i < n; ++i) b[i] = x[i];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      A[i * n + j] = (i == j ? 1.0 : 0.0) + w[j] * (kernel(x[i] - x[j]) + sign * kernel(x[i] + x[j]));
  for (int c = 0; c < n; ++c) {  // Gaussian elimination, partial pivoting
    int p = c;
    for (int r = c + 1; r < n; ++r)
      if (std::abs(A[r * n + c]) > std::abs(A[p * n + c])) p = r;
    for (int k = 0; k < n; ++k) std::swap(A[c * n + k], A[p * n + k]);
    std::swap(b[c], b[p]);
    for (int r = c + 1; r < n; ++r) {
      const C f = A[r * n + c] / A[c * n + c];
      for (int k = c; k < n; ++k) A[r * n + k] -= f * A[c * n + k];
      b[r] -= f * b[c];
    }
  }
  C integral = 0;
  for (int r = n - 1; r >= 0; --r) {
    C v = b[r];
    for (int k = r + 1; k < n; ++k) v -= A[r * n + k] * b[k];
    b[r] = v / A[r * n + r];
    integral += w[r] * b[r] * (motion == Motion::Vertical ? 1.0 : 3 * x[r]);
  }
  return C(1, 2 * beta) * integral;
}

// The reference itself: at a0 -> 0 the static elastic value times 1 + 2 i beta (the disc's
// static stiffness is 4 G* a / (1 - nu), Boussinesq's); at a0 = 1 the value the verification
// below uses. With beta 0.05 and nu 1/3 it gives 0.9496 + 0.4969i, 0.8453 + 0.9236i, 0.7106 +
// 1.4039i and 0.5824 + 1.9434i at a0 = 0.5, 1, 1.5, 2; nearly elastic (beta 0.005, the damping's
// share taken out) the real parts 0.971, 0.887, 0.772, 0.666, within 1.5% of the vertical k(a0)
// of Gazetas's (1991) chart for near-square foundations up to a0 = 1.5.
TEST(BemFoundation, LucoWestmannReference) {
  const std::complex<double> near_static = disc_impedance(1.0 / 3, 0.05, 1e-3);
  // 1 + 2 i beta and the radiation's i c a0 times it, c about 0.8 at low a0: 8e-4 here.
  EXPECT_NEAR(near_static.real(), 1.0, 2e-4);
  EXPECT_NEAR(near_static.imag(), 0.1, 1e-3);
  const std::complex<double> rocking = disc_impedance(1.0 / 3, 0.05, 1e-3, Motion::Rocking);
  EXPECT_NEAR(rocking.real(), 1.0, 2e-4);  // 8 G* a^3 / (3 (1 - nu)); radiation O(a0^3) in rocking
  EXPECT_NEAR(rocking.imag(), 0.1, 2e-4);
  const std::complex<double> one = disc_impedance(1.0 / 3, 0.05, 1.0);
  EXPECT_NEAR(one.real(), 0.8453, 5e-4);  // the value above, to the quadrature's accuracy
  EXPECT_NEAR(one.imag(), 0.9236, 5e-4);
}

// The BEM's disc: radius a = 1 m, nu = 1/3 (rho 1800 kg/m^3, c_s 150 m/s), hysteretic damping
// 5%, on the free surface truncated at 6 a (`halfspace_disc(6a, a, n, 1.5a)`; n = 2: 100 9-node
// quadrilaterals, 12 under the disc, 2 x 2 and four blocks of 2 x 1, cells up to 1.5 a outside it;
// n = 3: 165, 33 under it), quadratic elements, dense solver. Relaxed contact: under the disc u_z
// is given (lifted 1 mm, or turned by 1 mrad about y: u_z = psi x) and t_x = t_y = 0; the rest is
// traction-free. Returns the force (the moment about y) the tractions under the disc add up to,
// over the displacement (the rotation) and over the static elastic stiffness, at each
// a0 = omega a / c_s.
std::vector<std::complex<double>> disc_by_elements(Motion motion, const std::vector<double>& a0s, Index n = 2) {
  const double a = 1.0, rho = 1800, cs = 150, nu = 1.0 / 3, beta = 0.05;
  const double G = rho * cs * cs, lambda = 2 * G * nu / (1 - 2 * nu);
  const BoundaryMesh mesh = halfspace_disc(6 * a, a, n, 1.5 * a, {ElementShape::Quadrilateral, 2});
  check_boundary_mesh(mesh, Solid::Open);
  const ElementOrder order = ElementOrder::Quadratic;
  const std::vector<Index> first = first_nodes(mesh, order);
  const std::vector<double> at = node_positions(mesh, order), areas = node_areas(mesh, order);
  const std::vector<Index>& under = mesh.element_sets.at("foundation");
  BoundaryConditions bc;
  bc.kind.assign(3 * static_cast<std::size_t>(first.back()), Prescribed::Traction);
  bc.value.assign(bc.kind.size(), Complex());
  constexpr double motion_size = 1e-3;  // m, or rad
  // u_z at node p and the arm its traction acts on (1 for the force, x for the moment).
  const auto arm = [&](Index p) { return motion == Motion::Vertical ? 1.0 : at[3 * static_cast<std::size_t>(p)]; };
  for (const Index e : under)
    for (Index p = first[static_cast<std::size_t>(e)]; p < first[static_cast<std::size_t>(e) + 1]; ++p) {
      bc.kind[3 * static_cast<std::size_t>(p) + 2] = Prescribed::Displacement;
      bc.value[3 * static_cast<std::size_t>(p) + 2] = Complex(motion_size * arm(p));
    }
  std::vector<double> omegas;
  for (const double a0 : a0s) omegas.push_back(a0 * cs / a);
  const SolverOptions options{order, {}, {FreeTerm::Direct, 0.0}, SolverMethod::Dense, {}, {}};
  const auto results = solve_frequencies(Exec::openmp(), mesh, rho, lambda, G, beta, omegas, bc, options, {});
  const double stiffness = motion == Motion::Vertical ? 4 * G * a / (1 - nu) : 8 * G * a * a * a / (3 * (1 - nu));
  std::vector<std::complex<double>> out;
  for (const FrequencyResult& result : results) {
    std::complex<double> resultant = 0;
    for (const Index e : under)
      for (Index p = first[static_cast<std::size_t>(e)]; p < first[static_cast<std::size_t>(e) + 1]; ++p) {
        const Complex t = result.t[3 * static_cast<std::size_t>(p) + 2];
        resultant += std::complex<double>(t.re, t.im) * areas[static_cast<std::size_t>(p)] * arm(p);
      }
    out.push_back(resultant / motion_size / stiffness);
  }
  return out;
}

// The vertical impedance against Luco & Westmann's from nearly static to a0 = 2. Measured (real,
// imaginary parts): a0 0.1: -1.2%, -4.5%; 0.5: -0.05%, -2.9%; 1: -1.4%, -0.4%; 1.5: -2.1%, -3.7%;
// 2: +2.3%, -2.9%. Cells up to a outside the disc change these by less than 0.15%; 3 x 3 cells a
// quarter under it by up to 1.2% (at a0 0.1: -0.5%, -3.6%; 2: +2.8%, -1.6%), and 4 x 4 by less than
// 0.05% more; a surface to 10 a (468 elements) leaves every part within 3%, the errors' signs
// changed. What is left is the truncation (the waves along the surface are not absorbed where it
// ends), not the elements. Bound: 5%, the accuracy asked of a foundation's impedance.
TEST(BemFoundation, RigidDiscMatchesLucoWestmann) {
  const std::vector<double> a0s = {0.1, 0.5, 1.0, 1.5, 2.0};
  const std::vector<std::complex<double>> K = disc_by_elements(Motion::Vertical, a0s);
  for (std::size_t f = 0; f < a0s.size(); ++f) {
    const std::complex<double> reference = disc_impedance(1.0 / 3, 0.05, a0s[f]);
    std::printf("a0 %.2f: K / K_static = %.4f %+.4fi, Luco & Westmann %.4f %+.4fi (%+.2f%%, %+.2f%%)\n", a0s[f],
                K[f].real(), K[f].imag(), reference.real(), reference.imag(),
                100 * (K[f].real() / reference.real() - 1), 100 * (K[f].imag() / reference.imag() - 1));
    EXPECT_NEAR(K[f].real(), reference.real(), 0.05 * reference.real()) << "a0 = " << a0s[f];
    EXPECT_NEAR(K[f].imag(), reference.imag(), 0.05 * reference.imag()) << "a0 = " << a0s[f];
  }
}

// The rocking impedance, a turn about y, against Luco & Westmann's: the contact pressure rises
// towards the rim as r / sqrt(a^2 - r^2), so the rim's cells matter more than for the lift. With 2
// cells a quarter under the disc (n = 2) measured -3.5%, -3.7% at a0 0.5; -3.5%, -5.3% at 1;
// -2.9%, -4.6% at 2 (real, imaginary); with 3 (n = 3, asserted) -1.7%, -1.4%; -1.7%, -2.7%;
// -1.1%, -1.8%; with 4 within 0.05% of these: the elements have converged, the rest is the
// truncation. Bound: 5%, as for the lift.
TEST(BemFoundation, RockingDiscMatchesLucoWestmann) {
  const std::vector<double> a0s = {0.5, 1.0, 2.0};
  const std::vector<std::complex<double>> K = disc_by_elements(Motion::Rocking, a0s, 3);
  for (std::size_t f = 0; f < a0s.size(); ++f) {
    const std::complex<double> reference = disc_impedance(1.0 / 3, 0.05, a0s[f], Motion::Rocking);
    std::printf("a0 %.2f: K_r / K_r,static = %.4f %+.4fi, Luco & Westmann %.4f %+.4fi (%+.2f%%, %+.2f%%)\n",
                a0s[f], K[f].real(), K[f].imag(), reference.real(), reference.imag(),
                100 * (K[f].real() / reference.real() - 1), 100 * (K[f].imag() / reference.imag() - 1));
    EXPECT_NEAR(K[f].real(), reference.real(), 0.05 * reference.real()) << "a0 = " << a0s[f];
    EXPECT_NEAR(K[f].imag(), reference.imag(), 0.05 * reference.imag()) << "a0 = " << a0s[f];
  }
}

}  // namespace
}  // namespace tremor::bem
