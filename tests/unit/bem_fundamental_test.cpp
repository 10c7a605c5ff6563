// The 3D elastodynamic fundamental solutions (bem/fundamental.hpp) against independent facts:
// Kelvin's static kernels in closed form, the tractions from finite differences of u*, the Navier
// equation, the known limit of u*_dynamic - u*_static at r = 0, and the two evaluation paths
// (power series, closed form) against each other.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <numbers>

#include "tremor/bem/fundamental.hpp"

namespace tremor::bem {
namespace TREMOR_TEST_FILE {

constexpr double pi = std::numbers::pi;

// Moduli of a stiff soil; nu = 0.25 (lambda = mu).
constexpr double rho = 2000.0, lambda = 1.0e8, mu = 1.0e8;

double max_abs(const Complex* a, int n) {
  double m = 0.0;
  for (int k = 0; k < n; ++k) m = std::max(m, abs(a[k]));
  return m;
}

struct Displacements {
  std::array<Complex, 9> u;
};

// u*(xi = 0, x) at the point x.
Displacements u_at(const Medium& m, const double* x, KernelPart part) {
  Displacements out;
  fundamental(m, x, x, part, out.u.data(), nullptr);
  return out;
}

TEST(BemFundamental, StaticPartIsKelvin) {
  const double nu = lambda / (2.0 * (lambda + mu));
  const Medium m = make_medium(rho, lambda, mu, 0.0, 2.0 * pi * 50.0);
  const double d[3] = {0.3, -0.7, 0.4}, n[3] = {0.6, 0.0, 0.8};
  std::array<Complex, 9> u, t;
  fundamental(m, d, n, KernelPart::Static, u.data(), t.data());
  const double r = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  const double dr[3] = {d[0] / r, d[1] / r, d[2] / r};
  const double drdn = dr[0] * n[0] + dr[1] * n[1] + dr[2] * n[2];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const double dij = i == j ? 1.0 : 0.0;
      const double uk = ((3.0 - 4.0 * nu) * dij + dr[i] * dr[j]) / (16.0 * pi * mu * (1.0 - nu) * r);
      const double tk = -1.0 / (8.0 * pi * (1.0 - nu) * r * r) *
                        (drdn * ((1.0 - 2.0 * nu) * dij + 3.0 * dr[i] * dr[j]) -
                         (1.0 - 2.0 * nu) * (dr[i] * n[j] - dr[j] * n[i]));
      // Two formulas of the same closed form: rounding only.
      EXPECT_NEAR(u[3 * i + j].re, uk, 1e-14 * std::abs(1.0 / (mu * r))) << i << j;
      EXPECT_NEAR(u[3 * i + j].im, 0.0, 1e-30);
      EXPECT_NEAR(t[3 * i + j].re, tk, 1e-14 / (r * r)) << i << j;
    }
}

// t*_ij = lambda n_j div_i + mu (d_k u*_ij + d_j u*_ik) n_k, the derivatives by central
// differences of u*, at |k_s r| from 0.05 (series) to 6 (closed form), with damping.
TEST(BemFundamental, TractionIsTheStressOfTheDisplacement) {
  const Medium m = make_medium(rho, lambda, mu, 0.05, 2.0 * pi * 40.0);
  const double n[3] = {0.48, -0.6, 0.64};
  for (const double kr : {0.05, 0.4, 0.99, 1.01, 2.5, 6.0}) {
    const double r = kr / abs(m.ks);
    const double dir[3] = {0.5, 0.5, std::sqrt(0.5)};
    const double x[3] = {r * dir[0], r * dir[1], r * dir[2]};
    std::array<Complex, 9> u, t;
    fundamental(m, x, n, KernelPart::Full, u.data(), t.data());
    const double h = 1e-5 * r;
    Complex grad[3][3][3];  // grad[i][j][k] = d_k u*_ij
    for (int k = 0; k < 3; ++k) {
      double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
      xp[k] += h;
      xm[k] -= h;
      const Displacements up = u_at(m, xp, KernelPart::Full), um = u_at(m, xm, KernelPart::Full);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) grad[i][j][k] = (up.u[3 * i + j] - um.u[3 * i + j]) / (2.0 * h);
    }
    std::array<Complex, 9> t_fd;
    for (int i = 0; i < 3; ++i) {
      const Complex div = grad[i][0][0] + grad[i][1][1] + grad[i][2][2];
      for (int j = 0; j < 3; ++j) {
        Complex shear;
        for (int k = 0; k < 3; ++k) shear += (grad[i][j][k] + grad[i][k][j]) * n[k];
        t_fd[3 * i + j] = m.lambda * div * n[j] + m.mu * shear;
      }
    }
    const double scale = max_abs(t.data(), 9);
    // Central differences: truncation (h/r)^2 = 1e-10, rounding 1e-16 r / h = 1e-11 of the terms.
    for (int k = 0; k < 9; ++k) EXPECT_LT(abs(t[k] - t_fd[k]), 1e-7 * scale) << "k r = " << kr << " entry " << k;
  }
}

// mu lap u + (lambda + mu) grad div u + rho omega^2 u = 0 away from the load, for each load
// direction i: checks psi, chi and the wave numbers themselves.
TEST(BemFundamental, SatisfiesTheNavierEquation) {
  const double omega = 2.0 * pi * 40.0;
  const Medium m = make_medium(rho, lambda, mu, 0.03, omega);
  for (const double kr : {0.3, 1.7, 4.0}) {
    const double r = kr / abs(m.ks);
    const double x0[3] = {0.6 * r, -0.48 * r, 0.64 * r};
    const double h = 1e-3 * r;
    auto u = [&](int dx, int dy, int dz) {
      const double x[3] = {x0[0] + dx * h, x0[1] + dy * h, x0[2] + dz * h};
      return u_at(m, x, KernelPart::Full).u;
    };
    const auto u0 = u(0, 0, 0);
    for (int i = 0; i < 3; ++i) {
      Complex residual[3];
      for (int j = 0; j < 3; ++j) {
        // Laplacian and grad div by second differences (error h^2 / r^2 = 1e-6 of the terms).
        Complex lap;
        for (int k = 0; k < 3; ++k) {
          const int e[3] = {k == 0, k == 1, k == 2};
          lap += (u(e[0], e[1], e[2])[3 * i + j] - 2.0 * u0[3 * i + j] + u(-e[0], -e[1], -e[2])[3 * i + j]) / (h * h);
        }
        Complex grad_div;
        for (int k = 0; k < 3; ++k) {
          // d_j d_k u_ik
          const int ej[3] = {j == 0, j == 1, j == 2}, ek[3] = {k == 0, k == 1, k == 2};
          auto at = [&](int sj, int sk) {
            return u(sj * ej[0] + sk * ek[0], sj * ej[1] + sk * ek[1], sj * ej[2] + sk * ek[2])[3 * i + k];
          };
          if (j == k)
            grad_div += (at(1, 0) - 2.0 * u0[3 * i + k] + at(-1, 0)) / (h * h);
          else
            grad_div += (at(1, 1) - at(1, -1) - at(-1, 1) + at(-1, -1)) / (4.0 * h * h);
        }
        residual[j] = m.mu * lap + (m.lambda + m.mu) * grad_div + (rho * omega * omega) * u0[3 * i + j];
      }
      // Scale of each term: mu |u| / r^2 (the elastic terms) and rho omega^2 |u|.
      const double scale = (abs(m.mu) / (r * r) + rho * omega * omega) * max_abs(u0.data(), 9);
      for (int j = 0; j < 3; ++j) EXPECT_LT(abs(residual[j]), 2e-5 * scale) << "k r = " << kr << " i " << i << " j " << j;
    }
  }
}

// The regular part tends to a constant at r -> 0: u*_dyn - u*_sta = -i omega (2/cs^3 + 1/cp^3)
// delta_ij / (12 pi rho), the radiated part of a point load (Dominguez 1993, eq. 2.3.27 form).
TEST(BemFundamental, RegularPartIsBoundedWithTheKnownLimit) {
  const double omega = 2.0 * pi * 25.0;
  const Medium m = make_medium(rho, lambda, mu, 0.0, omega);
  const double cs = std::sqrt(mu / rho), cp = std::sqrt((lambda + 2.0 * mu) / rho);
  const double limit = -omega * (2.0 / (cs * cs * cs) + 1.0 / (cp * cp * cp)) / (12.0 * pi * rho);
  const double n[3] = {0.0, 0.0, 1.0};
  for (const double r : {1e-9, 1e-6, 1e-4}) {
    const double x[3] = {0.6 * r, 0.0, 0.8 * r};
    std::array<Complex, 9> u, t;
    fundamental(m, x, n, KernelPart::Regular, u.data(), t.data());
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        // The next term is O(k r) smaller (k r <= 2e-5 here); the real part O((k r)^1) too.
        EXPECT_NEAR(u[3 * i + j].im, i == j ? limit : 0.0, 1e-3 * std::abs(limit)) << r;
        EXPECT_NEAR(u[3 * i + j].re, 0.0, 1e-3 * std::abs(limit)) << r;
      }
    // t*_dyn - t*_sta stays bounded (O(k^2) with a direction-dependent limit), while t*_sta ~ 1/r^2.
    std::array<Complex, 9> ts;
    fundamental(m, x, n, KernelPart::Static, nullptr, ts.data());
    EXPECT_LT(max_abs(t.data(), 9), 1.0);
    EXPECT_GT(max_abs(ts.data(), 9), 1e-3 / (r * r));
  }
}

// Full = Static + Regular on both sides of the series limit, and the series and the closed form
// agree where both are accurate.
TEST(BemFundamental, PartsAndPathsAgree) {
  const Medium m = make_medium(rho, lambda, mu, 0.04, 2.0 * pi * 60.0);
  const double n[3] = {0.0, 0.6, 0.8};
  for (const double kr : {0.02, 0.5, 0.999, 1.001, 3.0}) {
    const double r = kr / abs(m.ks);
    const double x[3] = {0.0, -0.6 * r, 0.8 * r};
    std::array<Complex, 9> uf, tf, us, ts, ur, tr;
    fundamental(m, x, n, KernelPart::Full, uf.data(), tf.data());
    fundamental(m, x, n, KernelPart::Static, us.data(), ts.data());
    fundamental(m, x, n, KernelPart::Regular, ur.data(), tr.data());
    // The sum is formed in rounding of the larger (static) terms: 1e-15 of them, times the
    // cancellation the regular part avoids.
    for (int k = 0; k < 9; ++k) {
      EXPECT_LT(abs(uf[k] - us[k] - ur[k]), 1e-12 * max_abs(us.data(), 9)) << kr;
      EXPECT_LT(abs(tf[k] - ts[k] - tr[k]), 1e-12 * max_abs(ts.data(), 9)) << kr;
    }
  }
  for (const double kr : {0.3, 0.8, 1.5}) {
    const double r = kr / abs(m.ks);
    const detail::Radial a = detail::series_radial(m, r, false), b = detail::closed_radial(m, r);
    // The closed form loses (k r)^-2 of eps to cancellation: 1e-15 / 0.09 at k r = 0.3.
    EXPECT_LT(abs(a.psi - b.psi), 1e-13 * abs(a.psi)) << kr;
    EXPECT_LT(abs(a.chi - b.chi), 1e-13 * abs(a.psi)) << kr;
    EXPECT_LT(abs(a.dpsi - b.dpsi), 1e-13 * abs(a.dpsi)) << kr;
    EXPECT_LT(abs(a.dchi - b.dchi), 1e-13 * abs(a.dpsi)) << kr;
  }
}

// Reciprocity and the static limit of the dynamic kernel at low frequency.
TEST(BemFundamental, SymmetricAndStaticAtLowFrequency) {
  const Medium m = make_medium(rho, lambda, mu, 0.0, 1e-4);
  const double x[3] = {1.0, 2.0, -0.5}, n[3] = {1.0, 0.0, 0.0};
  std::array<Complex, 9> uf, us;
  fundamental(m, x, n, KernelPart::Full, uf.data(), nullptr);
  fundamental(m, x, n, KernelPart::Static, us.data(), nullptr);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(uf[3 * i + j], uf[3 * j + i]);
      // k r ~ 1e-8: the dynamic correction is O(k r) of u.
      EXPECT_LT(abs(uf[3 * i + j] - us[3 * i + j]), 1e-6 * max_abs(us.data(), 9));
    }
}

}  // namespace
}  // namespace tremor::bem
