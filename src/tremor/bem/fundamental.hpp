#pragma once
// Fundamental solutions of 3D time-harmonic elastodynamics (Kelvin/Stokes; Dominguez 1993, ch. 2)
// and their static limits, the kernels u* and t* of the boundary integral equation (paper eq. 1):
//
//   u*_ij = (psi delta_ij - chi r_i r_j) / (4 pi mu)      r_i = (x - xi)_i / r
//
// the displacement in direction j at x of a unit harmonic point load in direction i at xi, and
// t*_ij its traction on the surface through x with unit normal n. Time factor exp(+i omega t):
// outgoing waves are exp(-i k r), and hysteretic damping makes the moduli complex,
// mu* = mu (1 + 2 i beta), so that Im k <= 0 and the waves decay with distance.
//
// With f_k(r) = exp(-i k r) / r and x = i k r, psi and chi come from
//   4 pi rho omega^2 u*_ij = k_s^2 delta_ij f_ks + d_i d_j (f_ks - f_kp)
// as psi = f_ks + (A_s - A_p) / k_s^2, chi = -(B_s - B_p) / k_s^2, A = f'/r = -S_A(x)/r^3,
// B = f'' - f'/r = S_B(x)/r^3, with S_A(x) = e^-x (1 + x), S_B(x) = e^-x (3 + 3x + x^2); and
//   psi' = -S_A(x_s)/r^2 - chi/r,   chi' = (3 dS_B + dS_C) / (k_s^2 r^4),   S_C(x) = x^2 S_A(x),
// where dS = S(x_s) - S(x_p). At small |k r| the differences cancel to O((kr)^2) of their terms,
// so they are summed as power series there (no cancellation); the n = 2 terms of those series are
// the static (Kelvin) kernel, which the "regular" part leaves out exactly: the paper's
// regularisation (eq. 4) integrates t*_dynamic - t*_static, a bounded function, by quadrature.
#include "tremor/bem/complex.hpp"
#include "tremor/core/config.hpp"

namespace tremor::bem {

// An isotropic viscoelastic medium at one circular frequency omega (0: the static problem), with
// the quotients the kernels take at every point found once (a complex division costs a dozen
// multiplications and a branch; the kernels would take six a point).
struct Medium {
  Complex mu, lambda;  // complex Lame moduli, mu (1 + 2 i beta), lambda (1 + 2 i beta)
  Complex ks, kp;      // shear and compressional wave numbers, omega sqrt(rho / modulus), Im <= 0
  double omega = 0.0;
  Complex inv_ks2;         // 1 / ks^2 (0 when omega = 0)
  Complex q;               // mu / (lambda + 2 mu) = (kp / ks)^2
  Complex inv_four_pi_mu;  // 1 / (4 pi mu)
  Complex lambda_over_mu;
  double abs_ks = 0.0;     // |ks|
};

// rho, lambda, mu real (the elastic moduli), beta the hysteretic damping ratio (loss factor 2 beta).
inline Medium make_medium(double rho, double lambda, double mu, double beta, double omega) {
  Medium m;
  m.mu = Complex(mu, 2.0 * beta * mu);
  m.lambda = Complex(lambda, 2.0 * beta * lambda);
  m.omega = omega;
  if (omega > 0.0) {
    // sqrt(rho / mu*) has Im <= 0 when Im mu* >= 0: the principal root is the decaying wave.
    m.ks = omega * sqrt(Complex(rho) / m.mu);
    m.kp = omega * sqrt(Complex(rho) / (m.lambda + 2.0 * m.mu));
    m.inv_ks2 = Complex(1.0) / (m.ks * m.ks);
    m.abs_ks = abs(m.ks);
  }
  m.q = m.mu / (m.lambda + 2.0 * m.mu);
  m.inv_four_pi_mu = Complex(1.0) / (12.566370614359172954 * m.mu);
  m.lambda_over_mu = m.lambda / m.mu;
  return m;
}

// Which part of the kernels to evaluate.
enum class KernelPart : int {
  Full,     // dynamic (static when omega = 0)
  Static,   // Kelvin's static kernels with the same complex moduli
  Regular,  // dynamic minus static: bounded at r -> 0 (u* tends to a constant, t* to bounded values)
};

namespace detail {

// The radial functions and their derivatives, times the factors they carry in u* and t*.
struct Radial {
  Complex psi, chi, dpsi, dchi;
};

// Kelvin: psi = (1 + q) / (2r), chi = -(1 - q) / (2r), q = mu / (lambda + 2 mu) = (kp/ks)^2.
TREMOR_HOST_DEVICE inline Radial static_radial(const Medium& m, double r) {
  const Complex one_plus = Complex(1.0) + m.q, one_minus = Complex(1.0) - m.q;
  const double half_r = 0.5 / r, half_r2 = half_r / r;
  return {one_plus * half_r, -(one_minus * half_r), -(one_plus * half_r2), one_minus * half_r2};
}

// |k_s r| below this: power series (24 terms reach 1e-17 of the sum's first term).
constexpr double series_limit = 1.0;
constexpr int series_terms = 24;
// The series stop once a term's bound, |x|^n n^3 / n! (the largest of e^-x's, a_n's, b_n's and
// c_n's coefficients times |x_s|^n >= |x_p|^n), falls below this fraction of |x|^3 (the order of
// the regular part's first term; the full kernels' first terms are larger): at |x| = 1 after 23
// terms, at 0.1 after 13.
constexpr double series_tolerance = 1e-17;

// Series of e^-x (from n0), dS_A, dS_B, dS_C (each from its first dynamic term when `regular`).
TREMOR_HOST_DEVICE inline Radial series_radial(const Medium& m, double r, bool regular) {
  const Complex xs = Complex(0.0, r) * m.ks, xp = Complex(0.0, r) * m.kp;
  Complex e_sum, sa_s, da, db, dc;  // e^-xs (- 1), S_A(xs) (- 1), dS_A, dS_B, dS_C
  Complex ps(1.0), pp(1.0);        // xs^n, xp^n
  double inv_factorial = 1.0, sign = 1.0;
  // a_n = (-1)^n (1 - n) / n!, b_n = (-1)^n (n - 1)(n - 3) / n!, c_n = a_{n-2}.
  double a_prev1 = 0.0, a_prev2 = 0.0;  // a_{n-1}, a_{n-2}
  const double ax = m.abs_ks * r, smallest = series_tolerance * ax * ax * ax;
  double power = 1.0;  // |x_s|^n
  for (int n = 0; n < series_terms; ++n) {
    const double cube = (n + 1.0) * (n + 1.0) * (n + 1.0);
    if (n > 3 && power * inv_factorial * cube < smallest) break;
    const double a_n = sign * (1.0 - n) * inv_factorial;
    const double b_n = sign * (n - 1.0) * (n - 3.0) * inv_factorial;
    const double c_n = a_prev2;
    const Complex diff = ps - pp;
    if (!(regular && n == 0)) e_sum += sign * inv_factorial * ps;
    if (!(regular && n == 0)) sa_s += a_n * ps;
    if (!(regular && n == 2)) {
      da += a_n * diff;
      db += b_n * diff;
      dc += c_n * diff;
    }
    a_prev2 = a_prev1;
    a_prev1 = a_n;
    ps = ps * xs;
    pp = pp * xp;
    power *= ax;
    inv_factorial /= (n + 1);
    sign = -sign;
  }
  const double inv_r = 1.0 / r, inv_r2 = inv_r * inv_r;
  const Complex over = m.inv_ks2 * (inv_r2 * inv_r);  // 1 / (ks^2 r^3)
  Radial out;
  out.chi = -(db * over);
  out.psi = e_sum * inv_r - da * over;
  out.dpsi = -(sa_s * inv_r2) - out.chi * inv_r;
  out.dchi = (3.0 * db + dc) * (over * inv_r);
  return out;
}

TREMOR_HOST_DEVICE inline Radial closed_radial(const Medium& m, double r) {
  const Complex xs = Complex(0.0, r) * m.ks, xp = Complex(0.0, r) * m.kp;
  const Complex es = exp(-xs), ep = exp(-xp);
  const Complex sa_s = es * (Complex(1.0) + xs), sa_p = ep * (Complex(1.0) + xp);
  const Complex sb_s = es * (Complex(3.0) + 3.0 * xs + xs * xs), sb_p = ep * (Complex(3.0) + 3.0 * xp + xp * xp);
  const Complex sc_s = xs * xs * sa_s, sc_p = xp * xp * sa_p;
  const double inv_r = 1.0 / r, inv_r2 = inv_r * inv_r;
  const Complex over = m.inv_ks2 * (inv_r2 * inv_r);  // 1 / (ks^2 r^3)
  Radial out;
  out.chi = -((sb_s - sb_p) * over);
  out.psi = es * inv_r - (sa_s - sa_p) * over;
  out.dpsi = -(sa_s * inv_r2) - out.chi * inv_r;
  out.dchi = (3.0 * (sb_s - sb_p) + (sc_s - sc_p)) * (over * inv_r);
  return out;
}

TREMOR_HOST_DEVICE inline Radial radial(const Medium& m, double r, KernelPart part) {
  if (part == KernelPart::Static || m.omega == 0.0) {
    if (part == KernelPart::Regular) return {};
    return static_radial(m, r);
  }
  if (m.abs_ks * r < series_limit) return series_radial(m, r, part == KernelPart::Regular);
  Radial out = closed_radial(m, r);
  if (part == KernelPart::Regular) {
    const Radial s = static_radial(m, r);
    out.psi -= s.psi;
    out.chi -= s.chi;
    out.dpsi -= s.dpsi;
    out.dchi -= s.dchi;
  }
  return out;
}

}  // namespace detail

// u*[3 i + j] and t*[3 i + j] at the field point x = xi + d (d = x - xi, nonzero) with unit normal
// n at x; either output may be null. Pointwise: 2 complex exponentials (or a 24-term series).
TREMOR_HOST_DEVICE inline void fundamental(const Medium& m, const double* d, const double* n, KernelPart part,
                                           Complex* u, Complex* t) {
  const double r = ::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  const double inv_r = 1.0 / r;
  const double dr[3] = {d[0] * inv_r, d[1] * inv_r, d[2] * inv_r};
  const detail::Radial f = detail::radial(m, r, part);
  constexpr double inv_four_pi = 1.0 / 12.566370614359172954;
  if (u) {
    const Complex scale = m.inv_four_pi_mu;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        u[3 * i + j] = scale * ((i == j ? f.psi : Complex()) - dr[i] * dr[j] * f.chi);
  }
  if (t) {
    // t*_ij = sigma_jk(u*_i.) n_k from the gradient of u*:
    //   4 pi t*_ij = (psi' - chi/r)(delta_ij dr/dn + r_j n_i) - 2 (chi/r) r_i n_j
    //              - 2 (chi' - 2 chi/r) r_i r_j dr/dn + (lambda/mu)(psi' - chi' - 2 chi/r) r_i n_j
    const double drdn = dr[0] * n[0] + dr[1] * n[1] + dr[2] * n[2];
    const Complex chi_r = f.chi * inv_r;
    const Complex a = (f.dpsi - chi_r) * inv_four_pi;
    const Complex b =
        (-2.0 * inv_four_pi) * chi_r + m.lambda_over_mu * (f.dpsi - f.dchi - 2.0 * chi_r) * inv_four_pi;
    const Complex c = (-2.0 * inv_four_pi) * (f.dchi - 2.0 * chi_r) * drdn;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        t[3 * i + j] = ((i == j ? drdn : 0.0) + dr[j] * n[i]) * a + (dr[i] * n[j]) * b + (dr[i] * dr[j]) * c;
  }
}

}  // namespace tremor::bem
