#include "tremor/model/attenuation.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"

namespace tremor {

namespace {

// n frequencies (rad/s) spaced evenly in log frequency over [f_min, f_max] Hz widened by `beyond`
// of its log width at each end, ends included; the geometric centre for n = 1.
std::vector<double> log_spaced(double f_min, double f_max, int n, double beyond = 0.0) {
  std::vector<double> omega(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    const double t = n == 1 ? 0.5 : -beyond + (1.0 + 2.0 * beyond) * static_cast<double>(k) / (n - 1);
    omega[static_cast<std::size_t>(k)] = 2.0 * std::numbers::pi * f_min * std::pow(f_max / f_min, t);
  }
  return omega;
}

// The least-squares solution of A y = b (rows of A: m x n, m >= n, full column rank) by modified
// Gram-Schmidt QR, in long double (the columns of nearby omega_l are alike).
std::vector<double> least_squares(std::vector<std::vector<long double>> columns, std::vector<long double> b) {
  const std::size_t n = columns.size(), m = b.size();
  std::vector<std::vector<long double>> r(n, std::vector<long double>(n, 0.0L));
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = 0; i < j; ++i) {
      long double dot = 0.0L;
      for (std::size_t k = 0; k < m; ++k) dot += columns[i][k] * columns[j][k];
      r[i][j] = dot;
      for (std::size_t k = 0; k < m; ++k) columns[j][k] -= dot * columns[i][k];
    }
    long double norm = 0.0L;
    for (std::size_t k = 0; k < m; ++k) norm += columns[j][k] * columns[j][k];
    norm = std::sqrt(norm);
    TREMOR_CHECK(norm > 0.0L, "constant-Q fit: the relaxation frequencies are not distinct");
    r[j][j] = norm;
    for (std::size_t k = 0; k < m; ++k) columns[j][k] /= norm;
  }
  std::vector<long double> qtb(n, 0.0L);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t k = 0; k < m; ++k) qtb[j] += columns[j][k] * b[k];
  std::vector<double> y(n);
  for (std::size_t j = n; j-- > 0;) {
    long double sum = qtb[j];
    for (std::size_t i = j + 1; i < n; ++i) sum -= r[j][i] * static_cast<long double>(y[i]);
    y[j] = static_cast<double>(sum / r[j][j]);
  }
  return y;
}

}  // namespace

std::complex<double> RelaxationFit::relative_modulus(double angular_frequency) const {
  std::complex<double> m = 1.0;
  for (std::size_t l = 0; l < omega.size(); ++l) m -= y[l] * omega[l] / std::complex<double>(omega[l], angular_frequency);
  return m;
}

double RelaxationFit::quality(double angular_frequency) const {
  const std::complex<double> m = relative_modulus(angular_frequency);
  return m.imag() == 0.0 ? std::numeric_limits<double>::infinity() : m.real() / m.imag();
}

double RelaxationFit::unrelaxed_over_reference(double angular_frequency) const {
  const double slowness = (1.0 / std::sqrt(relative_modulus(angular_frequency))).real();
  return slowness * slowness;
}

RelaxationFit fit_constant_q(double q, double f_min, double f_max, int solids) {
  TREMOR_CHECK(std::isinf(q) || (q > smallest_quality && q < largest_quality), "a quality factor of ", q,
               "; expected one within (", smallest_quality, ", ", largest_quality, ")");
  TREMOR_CHECK(f_min > 0.0 && f_max > f_min && std::isfinite(f_max), "an attenuation band [", f_min, ", ", f_max,
               "] Hz; expected 0 < f_min < f_max");
  TREMOR_CHECK(solids >= 1 && solids <= largest_solids, solids, " standard linear solids; expected 1 to ",
               largest_solids);
  RelaxationFit best;
  best.q = q;
  best.omega = log_spaced(f_min, f_max, solids);
  best.y.assign(best.omega.size(), 0.0);
  if (std::isinf(q)) return best;
  const long double inverse = 1.0L / static_cast<long double>(q);
  const std::vector<double> at = log_spaced(f_min, f_max, 10 * solids), check = log_spaced(f_min, f_max, 400);
  // Solids at the band's ends leave Q low there (2.6% with 3 over a decade); relaxation frequencies
  // spread a little beyond it do better (0.2% at a fifth of the width each side): the spread of
  // the smallest worst error, 0 to half the width in steps of 1/40.
  for (int step = 0; step <= (solids > 1 ? 20 : 0); ++step) {
    RelaxationFit fit;
    fit.q = q;
    fit.omega = log_spaced(f_min, f_max, solids, 0.025 * step);
    std::vector<std::vector<long double>> columns(fit.omega.size(), std::vector<long double>(at.size()));
    for (std::size_t l = 0; l < fit.omega.size(); ++l)
      for (std::size_t k = 0; k < at.size(); ++k) {
        const long double wl = fit.omega[l], w = at[k];
        columns[l][k] = (wl * w + inverse * wl * wl) / (wl * wl + w * w);
      }
    fit.y = least_squares(std::move(columns), std::vector<long double>(at.size(), inverse));
    for (const double w : check) fit.worst_error = std::max(fit.worst_error, std::abs(fit.quality(w) / q - 1.0));
    if (step == 0 || fit.worst_error < best.worst_error) best = std::move(fit);
  }
  return best;
}

std::array<double, 2> bulk_and_shear_quality(double q_p, double q_s, double shear_ratio) {
  const double bulk_loss = (1.0 / q_p - shear_ratio / q_s) / (1.0 - shear_ratio);
  // A bulk loss below 0 by rounding only (Q_P = Q_S / L given to a few digits) is none.
  TREMOR_CHECK(bulk_loss >= -1e-9 / q_p, "q_p ", q_p, " and q_s ", q_s, " need a negative bulk loss (1/Q_kappa = ",
               bulk_loss, "): q_p may be at most q_s / L = ", q_s / shear_ratio, " with L = 4/3 (c_s/c_p)^2 = ",
               shear_ratio);
  return {bulk_loss <= 0.0 ? std::numeric_limits<double>::infinity() : 1.0 / bulk_loss, q_s};
}

}  // namespace tremor
