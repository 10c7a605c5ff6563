// The viscoelastic law with state (fem/viscoelastic.hpp) at one point, driven by a sinusoidal strain:
// once the start has died away, the stress is the solids' complex modulus times the strain (shear,
// bulk, and in 2D the plane-strain mix whose zz part the law corrects), to the trapezoidal rule's
// second order in dt.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <vector>

#include "tremor/fem/viscoelastic.hpp"
#include "tremor/model/attenuation.hpp"

namespace tremor {
namespace {

constexpr double two_pi = 2.0 * std::numbers::pi;
constexpr double frequency = 1e5, kappa_u = 150e9, mu_u = 80e9;

// Drives the law (isotropic D_U, 3 solids of Q_kappa 40 and Q_mu 25 over a decade around the
// frequency) with strain = shape sin(omega t) for 30 periods of `per_period` steps; returns the
// complex amplitude of stress component `component` over the last 5 periods: sigma = Im(S e^{i omega t}).
template <int Dim>
std::complex<double> response(const double (&shape)[fem::voigt_size<Dim>], int component, int per_period,
                              const RelaxationFit& bulk, const RelaxationFit& shear) {
  constexpr int nv = fem::voigt_size<Dim>;
  const double dt = 1.0 / (frequency * per_period), omega = two_pi * frequency;
  const double lambda = kappa_u - 2.0 / 3.0 * mu_u;
  double record[fem::solids_stride];
  fem::solids_record(3, bulk.omega.data(), bulk.y.data(), shear.y.data(), lambda, dt, record);
  const fem::IsotropicLaw<Dim, double> elastic{lambda, mu_u};
  std::vector<double> state(3 * nv, 0.0);
  const fem::ViscoelasticPoint<Dim, double, fem::IsotropicLaw<Dim, double>> law{elastic, record, state.data(), 1};
  double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
  const int steps = 30 * per_period;
  for (int n = 0; n < steps; ++n) {
    const double t = n * dt, s = std::sin(omega * t), c = std::cos(omega * t);
    double strain[nv], sigma[nv];
    for (int k = 0; k < nv; ++k) strain[k] = shape[k] * s;
    law.stress(strain, sigma);
    if (n < steps - 5 * per_period) continue;
    a11 += s * s, a12 += s * c, a22 += c * c, b1 += s * sigma[component], b2 += c * sigma[component];
  }
  const double det = a11 * a22 - a12 * a12;
  return {(a22 * b1 - a12 * b2) / det, (a11 * b2 - a12 * b1) / det};
}

struct Fits {
  RelaxationFit bulk = fit_constant_q(40.0, frequency / std::sqrt(10.0), frequency * std::sqrt(10.0), 3);
  RelaxationFit shear = fit_constant_q(25.0, frequency / std::sqrt(10.0), frequency * std::sqrt(10.0), 3);
  std::complex<double> kappa() const { return kappa_u * bulk.relative_modulus(two_pi * frequency); }
  std::complex<double> mu() const { return mu_u * shear.relative_modulus(two_pi * frequency); }
};

TEST(ViscoelasticLaw, StressIsTheComplexModulusTimesTheStrain) {
  const Fits fits;
  const double shear[6] = {0, 0, 0, 0, 0, 1e-6}, volume[6] = {1e-6, 1e-6, 1e-6, 0, 0, 0};
  const double plane[3] = {1e-6, 1e-6, 0}, plane_shear[3] = {0, 0, 1e-6};
  struct Check {
    const char* what;
    std::complex<double> got, want;
  };
  const Check checks[] = {
      {"3D shear: sigma_xy = mu gamma", response<3>(shear, 5, 400, fits.bulk, fits.shear), fits.mu() * 1e-6},
      {"3D volume: sigma_xx = 3 kappa eps", response<3>(volume, 0, 400, fits.bulk, fits.shear), 3.0 * fits.kappa() * 1e-6},
      {"3D volume: no shear", response<3>(volume, 5, 400, fits.bulk, fits.shear), 0.0},
      // Plane strain, eps_xx = eps_yy = e: sigma_xx = 2 kappa e + 2 mu (e - 2e/3) with eps_zz = 0.
      {"2D: sigma_xx", response<2>(plane, 0, 400, fits.bulk, fits.shear), (2.0 * fits.kappa() + 2.0 / 3.0 * fits.mu()) * 1e-6},
      {"2D shear: sigma_xy = mu gamma", response<2>(plane_shear, 2, 400, fits.bulk, fits.shear), fits.mu() * 1e-6},
  };
  for (const Check& c : checks) {
    // The trapezoidal rule's second-order error (1.3e-4 of the stress at 25 steps a period, 5e-7
    // at the 400 here; the start has decayed by e^-60 when the fit's 5 periods begin): 1e-5.
    const double scale = std::abs(checks[0].want);
    EXPECT_NEAR(c.got.real(), c.want.real(), 1e-5 * scale) << c.what;
    EXPECT_NEAR(c.got.imag(), c.want.imag(), 1e-5 * scale) << c.what;
    if (c.want != 0.0)
      std::printf("%-32s Q %.3f (solids' %.3f), |S| error %.2e\n", c.what, c.got.real() / c.got.imag(),
                  c.want.real() / c.want.imag(), std::abs(c.got - c.want) / std::abs(c.want));
  }
}

// The error in the complex modulus falls by 4 when dt halves: second order.
TEST(ViscoelasticLaw, SecondOrderInTheTimeStep) {
  const Fits fits;
  const double shear[6] = {0, 0, 0, 0, 0, 1e-6};
  std::vector<double> errors;
  for (const int per_period : {25, 50, 100})
    errors.push_back(std::abs(response<3>(shear, 5, per_period, fits.bulk, fits.shear) - fits.mu() * 1e-6));
  for (std::size_t k = 1; k < errors.size(); ++k) {
    // The asymptotic rate (omega_max dt ~ 0.8 at 25 steps a period, 0.2 at 100).
    EXPECT_NEAR(std::log2(errors[k - 1] / errors[k]), 2.0, 0.15) << errors[k - 1] << " -> " << errors[k];
    std::printf("dt/%d: error %.3e -> %.3e, rate %.3f\n", 1 << k, errors[k - 1], errors[k], std::log2(errors[k - 1] / errors[k]));
  }
}

}  // namespace
}  // namespace tremor
