// The viscoelastic law with state (fem/viscoelastic.hpp) at one point, driven by a sinusoidal strain:
// once the start has died away, the stress is the solids' complex modulus times the strain (shear,
// bulk, and in 2D the plane-strain mix whose deviator has a zz part), to the trapezoidal rule's
// second order in dt; an anisotropic section's stress is its complex stiffness C(omega)
// (model/attenuation.hpp) times the strain, every component.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <vector>

#include "tremor/core/polynomials.hpp"
#include "tremor/fem/viscoelastic.hpp"
#include "tremor/model/attenuation.hpp"
#include "tremor/model/material.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

constexpr double two_pi = 2.0 * std::numbers::pi;
constexpr double frequency = 1e5, kappa_u = 150e9, mu_u = 80e9;

// Drives the law (`elastic` at C_U, the record of `solids`) with strain = shape sin(omega t) for 30
// periods of `per_period` steps; returns the complex amplitude of each stress component over the
// last 5 periods: sigma = Im(S e^{i omega t}).
template <int Dim, class Law>
std::array<std::complex<double>, fem::voigt_size<Dim>> response(const Law& elastic, const fem::SectionSolids& solids,
                                                                const double* shape, int per_period) {
  constexpr int nv = fem::voigt_size<Dim>;
  const double dt = 1.0 / (frequency * per_period), omega = two_pi * frequency;
  double record[fem::solids_stride];
  fem::solids_record(solids, dt, record);
  std::vector<double> state(static_cast<std::size_t>(solids.n * nv), 0.0);
  const fem::ViscoelasticPoint<Dim, double, Law> law{elastic, record, state.data(), 1};
  double a11 = 0, a12 = 0, a22 = 0, b1[nv] = {}, b2[nv] = {};
  const int steps = 30 * per_period;
  for (int n = 0; n < steps; ++n) {
    const double t = n * dt, s = std::sin(omega * t), c = std::cos(omega * t);
    double strain[nv], sigma[nv];
    for (int k = 0; k < nv; ++k) strain[k] = shape[k] * s;
    law.stress(strain, sigma);
    if (n < steps - 5 * per_period) continue;
    a11 += s * s, a12 += s * c, a22 += c * c;
    for (int k = 0; k < nv; ++k) b1[k] += s * sigma[k], b2[k] += c * sigma[k];
  }
  const double det = a11 * a22 - a12 * a12;
  std::array<std::complex<double>, nv> amplitude;
  for (int k = 0; k < nv; ++k)
    amplitude[static_cast<std::size_t>(k)] = {(a22 * b1[k] - a12 * b2[k]) / det, (a11 * b2[k] - a12 * b1[k]) / det};
  return amplitude;
}

// The isotropic law's component `component` (kappa_U, mu_U; 3 solids of Q_kappa 40 and Q_mu 25
// over a decade around the frequency).
template <int Dim>
std::complex<double> response(const double (&shape)[fem::voigt_size<Dim>], int component, int per_period,
                              const RelaxationFit& bulk, const RelaxationFit& shear) {
  fem::SectionSolids solids;
  solids.n = 3;
  for (std::size_t l = 0; l < 3; ++l)
    solids.omega[l] = bulk.omega[l], solids.y_kappa[l] = bulk.y[l], solids.y_mu[l] = shear.y[l];
  solids.kappa = kappa_u;
  solids.mu = mu_u;
  const fem::IsotropicLaw<Dim, double> elastic{kappa_u - 2.0 / 3.0 * mu_u, mu_u};
  return response<Dim>(elastic, solids, shape, per_period)[static_cast<std::size_t>(component)];
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

// An orthotropic C_U (a fibre composite's stiffness, Pa) with its deviatoric part as a matrix in the
// record: every stress component of a general strain against C(omega) eps, in 3D and plane strain
// (the xx, yy, xy rows and columns), and an isotropic C_U taken the same way against the
// isotropic law.
TEST(ViscoelasticLaw, AnisotropicStressIsTheComplexStiffnessTimesTheStrain) {
  const Fits fits;
  std::array<double, 36> orthotropic{};
  const double normal[3][3] = {{140e9, 6e9, 6e9}, {6e9, 12e9, 5e9}, {6e9, 5e9, 12e9}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) orthotropic[static_cast<std::size_t>(6 * i + j)] = normal[i][j];
  orthotropic[21] = 3.5e9, orthotropic[28] = 5e9, orthotropic[35] = 5e9;
  const std::array<double, 36> isotropic = Material::from_lame("iso", kappa_u - 2.0 / 3.0 * mu_u, mu_u, 1.0).stiffness;
  const double shape[6] = {1e-6, -4e-7, 3e-7, 2e-7, -5e-7, 8e-7};
  const std::array<double, 36>* stiffnesses[] = {&orthotropic, &isotropic};
  for (const std::array<double, 36>* c_u : stiffnesses) {
    ResolvedAttenuation r;  // only what C(omega) reads
    r.bulk = fits.bulk;
    r.shear = fits.shear;
    r.unrelaxed = *c_u;
    const std::array<std::complex<double>, 36> c = r.stiffness(two_pi * frequency);
    const std::array<double, 36> part = deviatoric_part(*c_u);
    for (const int dim : {3, 2}) {
      static constexpr int plane[3] = {0, 1, 5};
      const int nv = dim == 3 ? 6 : 3;
      const auto at = [&](int k) { return dim == 3 ? k : plane[k]; };
      fem::SectionSolids solids;
      solids.n = 3;
      for (std::size_t l = 0; l < 3; ++l)
        solids.omega[l] = fits.bulk.omega[l], solids.y_kappa[l] = fits.bulk.y[l], solids.y_mu[l] = fits.shear.y[l];
      solids.kappa = voigt_bulk(*c_u);
      std::array<double, 36> d{};
      double strain[6];
      for (int i = 0; i < nv; ++i) {
        strain[i] = shape[at(i)];
        for (int j = 0; j < nv; ++j) {
          solids.deviatoric[static_cast<std::size_t>(nv * i + j)] = part[static_cast<std::size_t>(6 * at(i) + at(j))];
          d[static_cast<std::size_t>(nv * i + j)] = (*c_u)[static_cast<std::size_t>(6 * at(i) + at(j))];
        }
      }
      std::vector<std::complex<double>> got;
      if (dim == 3) {
        const auto a = response<3>(fem::AnisotropicLaw<3, double>{d.data()}, solids, strain, 400);
        got.assign(a.begin(), a.end());
      } else {
        const auto a = response<2>(fem::AnisotropicLaw<2, double>{d.data()}, solids, strain, 400);
        got.assign(a.begin(), a.end());
      }
      double scale = 0.0;
      std::vector<std::complex<double>> want(static_cast<std::size_t>(nv));
      for (int i = 0; i < nv; ++i) {
        for (int j = 0; j < nv; ++j)
          want[static_cast<std::size_t>(i)] += c[static_cast<std::size_t>(6 * at(i) + at(j))] * strain[j];
        scale = std::max(scale, std::abs(want[static_cast<std::size_t>(i)]));
      }
      for (int i = 0; i < nv; ++i) {
        // The trapezoidal rule's error at 400 steps a period, as above, of the largest component.
        EXPECT_NEAR(got[static_cast<std::size_t>(i)].real(), want[static_cast<std::size_t>(i)].real(), 1e-5 * scale)
            << dim << "D component " << i << (c_u == &isotropic ? " (isotropic)" : "");
        EXPECT_NEAR(got[static_cast<std::size_t>(i)].imag(), want[static_cast<std::size_t>(i)].imag(), 1e-5 * scale)
            << dim << "D component " << i << (c_u == &isotropic ? " (isotropic)" : "");
      }
      // The loss is there to be seen: each component's imaginary part well above the tolerance.
      EXPECT_GT(std::abs(want[0].imag()), 1e-3 * scale);
    }
  }
}

// Coarse-grained solids (fem::coarse_weights): on each tensor-product rule sem uses (GLL of order
// 2-8, Gauss of order 1; 2D and 3D), each solid's points, at their weights W / W_l, weigh what the
// whole element does; solids beyond dim (n1 - 1) + 1 have no point and are not fitted.
TEST(ViscoelasticLaw, CoarseGrainedSolidsEachWeighTheWholeElement) {
  for (const int dim : {2, 3})
    for (int n1 = 2; n1 <= 9; ++n1) {
      double x[9], w[9];
      if (n1 == 2)
        gauss_legendre(n1, x, w);
      else
        gauss_lobatto(n1, x, w);
      const std::vector<double> weights = fem::coarse_weights(w, n1, dim);
      for (int n = 1; n <= fem::max_solids; ++n) {
        const bool fits = fem::coarse_solids_fit(n, n1, dim);
        double total = 0.0, part[fem::max_solids] = {};
        for (int k = 0; k < (dim == 3 ? n1 : 1); ++k)
          for (int j = 0; j < n1; ++j)
            for (int i = 0; i < n1; ++i) {
              const double weight = w[i] * w[j] * (dim == 3 ? w[k] : 1.0);
              const int l = fem::coarse_solid(i, j, k, n);
              total += weight;
              part[l] += weight * weights[static_cast<std::size_t>((n - 1) * fem::max_solids + l)];
            }
        for (int l = 0; l < n && fits; ++l)  // (rounding only: sums of a few hundred positive weights)
          EXPECT_NEAR(part[l], total, 1e-12 * total) << dim << "D, " << n1 << " points, solid " << l << " of " << n;
        EXPECT_EQ(fits, n <= dim * (n1 - 1) + 1);
        if (!fits) {
          EXPECT_EQ(part[n - 1], 0.0) << dim << "D, " << n1 << " points, " << n << " solids";
        }
      }
    }
}

// A uniform strain history at every point of a GLL element of order 4: the coarse-grained points'
// stresses, averaged with the element's weights, are the full law's (every solid at every point),
// since each solid's memory variable sees the same strain wherever it is kept.
TEST(ViscoelasticLaw, CoarseGrainedStressAveragesToTheFullLaw) {
  constexpr int n1 = 5, points = n1 * n1 * n1, nv = 6;
  double x[n1], w[n1];
  gauss_lobatto(n1, x, w);
  const Fits fits;
  fem::SectionSolids solids;
  solids.n = 3;
  for (std::size_t l = 0; l < 3; ++l)
    solids.omega[l] = fits.bulk.omega[l], solids.y_kappa[l] = fits.bulk.y[l], solids.y_mu[l] = fits.shear.y[l];
  solids.kappa = kappa_u;
  solids.mu = mu_u;
  const fem::IsotropicLaw<3, double> elastic{kappa_u - 2.0 / 3.0 * mu_u, mu_u};
  const double dt = 1.0 / (frequency * 40);
  double full_record[fem::solids_stride], coarse_record[fem::solids_stride];
  fem::solids_record(solids, dt, full_record);
  solids.coarse = true;
  fem::solids_record(solids, dt, coarse_record);
  const std::vector<double> table = fem::coarse_weights(w, n1, 3);
  std::vector<double> full_state(3 * nv, 0.0), coarse_state(static_cast<std::size_t>(points * nv), 0.0);
  using Point = fem::ViscoelasticPoint<3, double, fem::IsotropicLaw<3, double>>;
  const Point full{elastic, full_record, full_state.data(), 1};
  const double shape[nv] = {1e-6, -3e-7, 2e-7, 4e-7, -1e-7, 5e-7};
  double worst = 0.0, largest = 0.0;
  for (int step = 0; step < 200; ++step) {
    double strain[nv], expected[nv], mean[nv] = {}, total = 0.0;
    for (int k = 0; k < nv; ++k) strain[k] = shape[k] * std::sin(two_pi * frequency * step * dt);
    full.stress(strain, expected);
    for (int p = 0; p < points; ++p) {
      const int i = p % n1, j = p / n1 % n1, k = p / (n1 * n1);
      Point point{elastic, coarse_record, coarse_state.data() + p, points};
      point.solid = fem::coarse_solid(i, j, k, 3);
      point.weight = table[static_cast<std::size_t>(2 * fem::max_solids + point.solid)];
      double sigma[nv];
      point.stress(strain, sigma);
      const double weight = w[i] * w[j] * w[k];
      total += weight;
      for (int c = 0; c < nv; ++c) mean[c] += weight * sigma[c];
    }
    for (int c = 0; c < nv; ++c) {
      worst = std::max(worst, std::abs(mean[c] / total - expected[c]));
      largest = std::max(largest, std::abs(expected[c]));
    }
  }
  // Rounding only (a weighted sum of 125 stresses of ~1e5 Pa): 1e-12 of the largest stress.
  EXPECT_LT(worst, 1e-12 * largest);
  EXPECT_GT(largest, 0.0);
}

}  // namespace
}  // namespace tremor
