#include "tremor/model/attenuation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/model/material.hpp"
#include "tremor/model/model.hpp"

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

RelaxationFit fit_constant_q(double q, double f_min, double f_max, int solids, double spread) {
  TREMOR_CHECK(std::isinf(q) || (q > smallest_quality && q < largest_quality), "a quality factor of ", q,
               "; expected one within (", smallest_quality, ", ", largest_quality, ")");
  TREMOR_CHECK(f_min > 0.0 && f_max > f_min && std::isfinite(f_max), "an attenuation band [", f_min, ", ", f_max,
               "] Hz; expected 0 < f_min < f_max");
  TREMOR_CHECK(solids >= 1 && solids <= largest_solids, solids, " standard linear solids; expected 1 to ",
               largest_solids);
  RelaxationFit best;
  best.q = q;
  best.spread = std::max(spread, 0.0);
  best.omega = log_spaced(f_min, f_max, solids, best.spread);
  best.y.assign(best.omega.size(), 0.0);
  if (std::isinf(q)) return best;
  const long double inverse = 1.0L / static_cast<long double>(q);
  const std::vector<double> at = log_spaced(f_min, f_max, 10 * solids), check = log_spaced(f_min, f_max, 400);
  // Solids at the band's ends leave Q low there (2.6% with 3 over a decade); relaxation frequencies
  // spread a little beyond it do better (0.2% at a fifth of the width each side): the spread of
  // the smallest worst error, 0 to half the width in steps of 1/40.
  const bool given = spread >= 0.0;
  for (int step = 0; step <= (solids > 1 && !given ? 20 : 0); ++step) {
    RelaxationFit fit;
    fit.q = q;
    fit.spread = given ? spread : 0.025 * step;
    fit.omega = log_spaced(f_min, f_max, solids, fit.spread);
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

double ResolvedAttenuation::worst_error() const { return std::max(bulk.worst_error, shear.worst_error); }

std::array<double, 2> source_frequencies(const Model& model) {
  double lowest = std::numeric_limits<double>::infinity(), highest = 0.0;
  const auto take = [&](const Signal& signal) {
    if (!(signal.frequency > 0.0)) return;
    lowest = std::min(lowest, signal.frequency);
    highest = std::max(highest, signal.frequency);
  };
  for (const Signal* signal : source_signals(model)) take(*signal);
  for (const Transducer& t : model.transducers)
    if (t.mode != Transducer::Mode::Piston) take(t.signal);  // (a piston's: a source signal above)
  if (highest == 0.0) return {0.0, 0.0};
  return {lowest, highest};
}

namespace {

// The P modulus's unrelaxed bulk part kappa_U for which the P phase velocity at omega is
// sqrt(p_ref / rho): Re (kappa_U m_kappa + 4/3 mu_U m_mu)^-1/2 = p_ref^-1/2, decreasing in
// kappa_U; by bisection (to double's resolution: 200 halvings of the bracket).
double unrelaxed_bulk(double p_ref, double mu_u, const RelaxationFit& bulk, const RelaxationFit& shear, double omega) {
  const std::complex<double> m_kappa = bulk.relative_modulus(omega), shear_part = 4.0 / 3.0 * mu_u * shear.relative_modulus(omega);
  const auto slowness = [&](double kappa) { return (1.0 / std::sqrt(kappa * m_kappa + shear_part)).real(); };
  const double target = 1.0 / std::sqrt(p_ref);
  double low = 0.0, high = 4.0 * p_ref;
  if (slowness(low) < target) return -1.0;  // the shear part alone is too stiff
  for (int k = 0; k < 200; ++k) {
    const double mid = 0.5 * (low + high);
    (slowness(mid) > target ? low : high) = mid;
  }
  return 0.5 * (low + high);
}

using Voigt = std::array<double, 36>;

// a + f b, entry by entry.
Voigt plus(const Voigt& a, double f, const Voigt& b) {
  Voigt c;
  for (std::size_t k = 0; k < c.size(); ++k) c[k] = a[k] + f * b[k];
  return c;
}

}  // namespace

double voigt_bulk(const Voigt& c) {
  double sum = 0.0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) sum += c[static_cast<std::size_t>(6 * i + j)];
  return sum / 9.0;
}

double voigt_shear(const Voigt& c) {
  return (c[0] + c[7] + c[14] - c[1] - c[2] - c[8] + 3.0 * (c[21] + c[28] + c[35])) / 15.0;
}

Voigt bulk_part(const Voigt& c) {
  const double kappa = voigt_bulk(c);
  Voigt b{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) b[static_cast<std::size_t>(6 * i + j)] = kappa;
  return b;
}

Voigt deviatoric_part(const Voigt& c) {
  // P_d C P_d: P_d's rows on the normal block are e_i - 1_3 / 3; the shears pass unchanged.
  const auto p = [](int i, int k) { return (i == k ? 1.0 : 0.0) - (i < 3 && k < 3 ? 1.0 / 3.0 : 0.0); };
  const auto at = [](int i, int j) { return static_cast<std::size_t>(6 * i + j); };
  Voigt cp{}, d{};
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j)
      for (int k = 0; k < 6; ++k) cp[at(i, j)] += c[at(i, k)] * p(k, j);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j)
      for (int k = 0; k < 6; ++k) d[at(i, j)] += p(i, k) * cp[at(k, j)];
  return d;
}

std::array<std::complex<double>, 36> ResolvedAttenuation::stiffness(double angular_frequency) const {
  const Voigt b = bulk_part(unrelaxed), d = deviatoric_part(unrelaxed);
  const std::complex<double> lose_bulk = 1.0 - bulk.relative_modulus(angular_frequency),
                             lose_shear = 1.0 - shear.relative_modulus(angular_frequency);
  std::array<std::complex<double>, 36> c;
  for (std::size_t k = 0; k < c.size(); ++k) c[k] = unrelaxed[k] - lose_bulk * b[k] - lose_shear * d[k];
  return c;
}

ResolvedAttenuation resolve_attenuation(const Model& model, const Material& material) {
  TREMOR_CHECK(material.attenuation, "material '", material.name, "' has no attenuation");
  const Attenuation& given = *material.attenuation;
  const std::string where = str(material.origin.empty() ? model.source : material.origin, ": material '",
                                material.name, "'");
  ResolvedAttenuation r;
  const std::array<double, 2> sources = source_frequencies(model);
  if (given.band[1] > 0.0) {
    r.band = given.band;
    if (sources[1] > 0.0)
      TREMOR_CHECK(sources[0] >= r.band[0] && sources[1] <= r.band[1], where, ": its q_band [", r.band[0], ", ",
                   r.band[1], "] Hz does not contain the sources' centre frequencies (",
                   sources[0] == sources[1] ? str(sources[0]) : str(sources[0], " to ", sources[1]),
                   " Hz): a constant Q holds over the band only");
  } else {
    TREMOR_CHECK(sources[1] > 0.0, where, ": no q_band given and no source with a centre frequency to take one from; "
                 "give q_band = [f_min, f_max] (Hz)");
    r.band = {sources[0] / std::sqrt(10.0), sources[1] * std::sqrt(10.0)};
  }
  r.reference_frequency =
      given.reference_frequency > 0.0 ? given.reference_frequency : std::sqrt(r.band[0] * r.band[1]);
  const double mu_ref = voigt_shear(material.stiffness), kappa_ref = voigt_bulk(material.stiffness);
  const double p_ref = kappa_ref + 4.0 / 3.0 * mu_ref;
  try {
    if (given.by_waves) {
      const auto [q_kappa, q_mu] = bulk_and_shear_quality(given.q_p, given.q_s, 4.0 / 3.0 * mu_ref / p_ref);
      r.q_kappa = q_kappa;
      r.q_mu = q_mu;
    } else {
      r.q_kappa = given.q_kappa;
      r.q_mu = given.q_mu;
    }
    // A bulk loss under 1 / largest_quality (q_p at q_s / L, to the digits given) is none, as one
    // below 0 by rounding is (bulk_and_shear_quality): the same either side of q_s / L.
    if (given.by_waves && r.q_kappa >= largest_quality) r.q_kappa = std::numeric_limits<double>::infinity();
    if (given.by_waves && !std::isinf(r.q_kappa))
      TREMOR_CHECK(r.q_kappa > smallest_quality && r.q_kappa < largest_quality, "q_p ", given.q_p, " and q_s ",
                   given.q_s, " give a bulk quality factor Q_kappa = ", r.q_kappa, ", outside (", smallest_quality,
                   ", ", largest_quality, ")");
    // One set of omega_l for both (the memory variables are the strain's): the finite Q's best.
    const bool shear_first = !std::isinf(r.q_mu);
    RelaxationFit& first = shear_first ? r.shear : r.bulk;
    first = fit_constant_q(shear_first ? r.q_mu : r.q_kappa, r.band[0], r.band[1], given.solids);
    (shear_first ? r.bulk : r.shear) =
        fit_constant_q(shear_first ? r.q_kappa : r.q_mu, r.band[0], r.band[1], given.solids, first.spread);
  } catch (const Error& error) {
    throw Error(str(where, ": ", error.what()));
  }
  const double omega = 2.0 * std::numbers::pi * r.reference_frequency;
  if (material.isotropic) {
    r.mu_u = mu_ref * r.shear.unrelaxed_over_reference(omega);
    r.kappa_u = unrelaxed_bulk(p_ref, r.mu_u, r.bulk, r.shear, omega);
    TREMOR_CHECK(r.kappa_u > 0.0, where, ": no positive unrelaxed bulk modulus keeps its P wave speed at ",
                 r.reference_frequency, " Hz with this shear attenuation; raise q_s or the P wave speed");
    r.unrelaxed = Material::from_lame(material.name, r.kappa_u - 2.0 / 3.0 * r.mu_u, r.mu_u, 1.0).stiffness;
  } else {
    const Voigt& given_c = material.stiffness;
    r.unrelaxed = plus(plus(given_c, r.bulk.unrelaxed_over_reference(omega) - 1.0, bulk_part(given_c)),
                       r.shear.unrelaxed_over_reference(omega) - 1.0, deviatoric_part(given_c));
    r.kappa_u = voigt_bulk(r.unrelaxed);
    r.mu_u = voigt_shear(r.unrelaxed);
  }
  // The relaxed stiffness C(0) = C_U - sum Y_kappa P_v C_U P_v - sum Y_mu P_d C_U P_d must hold a
  // static strain; for an isotropic material it does (kappa_U and mu_U times 1 - sum Y > 0).
  double y_kappa = 0.0, y_mu = 0.0;
  for (const double y : r.bulk.y) y_kappa += y;
  for (const double y : r.shear.y) y_mu += y;
  const Voigt relaxed = plus(plus(r.unrelaxed, -y_kappa, bulk_part(r.unrelaxed)), -y_mu, deviatoric_part(r.unrelaxed));
  TREMOR_CHECK(positive_definite(relaxed.data(), 6), where, ": its relaxed stiffness (the bulk part times ",
               1.0 - y_kappa, ", the deviatoric part times ", 1.0 - y_mu,
               ") is not positive definite: the coupling of volume and shape in this anisotropic stiffness, which "
               "does not relax, is too large for Q_kappa ", r.q_kappa, " and Q_mu ", r.q_mu, "; raise them");
  return r;
}

std::string describe(const ResolvedAttenuation& r, const Material& material) {
  const auto q = [](double value) { return std::isinf(value) ? std::string("none") : str(value); };
  const Attenuation& given = *material.attenuation;
  const std::string qualities = given.by_waves ? str("Q_P ", q(given.q_p), ", Q_S ", q(given.q_s), " (Q_kappa ",
                                                     q(r.q_kappa), ", Q_mu ", q(r.q_mu), ")")
                                               : str("Q_kappa ", q(r.q_kappa), ", Q_mu ", q(r.q_mu));
  char error[32];
  std::snprintf(error, sizeof error, "%.2g%%", 100.0 * r.worst_error());
  const double rho = material.density;
  const std::string head = str("material '", material.name, "': ", qualities, ", ", r.shear.omega.size(),
                               r.shear.omega.size() == 1 ? " solid" : " solids",
                               given.coarse_grained ? " (coarse-grained)" : "", " over [",
                               si(r.band[0]), "Hz, ", si(r.band[1]), "Hz], worst Q error ", error);
  if (!material.isotropic) {
    const double omega = 2.0 * std::numbers::pi * r.reference_frequency;
    char factors[96];
    std::snprintf(factors, sizeof factors, "bulk part x %.4f, deviatoric part x %.4f",
                  r.bulk.unrelaxed_over_reference(omega), r.shear.unrelaxed_over_reference(omega));
    // Q of the axes' longitudinal and shear moduli (a wave along an axis of an orthotropic
    // material has the Q of its modulus).
    const std::array<std::complex<double>, 36> c = r.stiffness(omega);
    std::string axes;
    for (const int v : {0, 7, 14, 21, 28, 35}) {
      char one[16];
      std::snprintf(one, sizeof one, "%s%.3g", v == 0 || v == 21 ? "" : "/", c[static_cast<std::size_t>(v)].real() /
                                                                                 c[static_cast<std::size_t>(v)].imag());
      axes += one;
      if (v == 14) axes += ", shear C44/C55/C66 ";
    }
    return str(head, "; Q of the moduli at ", si(r.reference_frequency), "Hz: longitudinal C11/C22/C33 ", axes,
               "; unrelaxed stiffness: the given one with its ", factors);
  }
  return str(head, "; unrelaxed speeds ", std::round(std::sqrt((r.kappa_u + 4.0 / 3.0 * r.mu_u) / rho)), " and ",
             std::round(std::sqrt(r.mu_u / rho)), " m/s (the given ones at ", si(r.reference_frequency), "Hz)");
}

}  // namespace tremor
