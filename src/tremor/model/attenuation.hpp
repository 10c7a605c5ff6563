#pragma once
// Constant-Q viscoelasticity by N standard linear solids (a generalized Maxwell body: Emmerich and
// Korn 1987, GJI 90; Moczo and Kristek 2005, GRL 32), the material's part of it: what a
// [[material]] gives (q_p and q_s, or q_kappa and q_mu; a reference frequency; a band; N), the
// fit of the N solids' anelastic coefficients to a constant Q over the band, and the unrelaxed
// moduli that keep the given wave speeds at the reference frequency.
//
// A modulus M relaxes as M(omega) = M_U m(omega), m(omega) = 1 - sum_l Y_l omega_l / (omega_l + i
// omega), with relaxation frequencies omega_l spaced evenly in log frequency around the band; in the
// time domain sigma = M_U (eps - sum_l Y_l xi_l), d xi_l / dt = omega_l (eps - xi_l): a memory
// variable xi_l per solid, a strain. Q(omega) = Re m / Im m, so a constant Q^-1 is the linear
// condition sum_l Y_l (omega_l omega + Q^-1 omega_l^2) / (omega_l^2 + omega^2) = Q^-1 (Moczo and
// Kristek 2005, Eq. 12), solved here in the least-squares sense at frequencies across the band.
// The bulk and the shear modulus each have their own Y_l (Q_kappa, Q_mu) over the same omega_l.
//
// An anisotropic stiffness C relaxes in its bulk part P_v C P_v and its deviatoric part P_d C P_d
// (P_v = 1_3 1_3^T / 3 the volumetric projection of a Voigt strain, P_d = I - P_v):
//   C(omega) = C_U - (1 - m_kappa(omega)) P_v C_U P_v - (1 - m_mu(omega)) P_d C_U P_d,
// symmetric, and for an isotropic C the moduli kappa and mu above; the coupling of volume and shape
// that anisotropy adds (P_v C P_d and its transpose) does not relax.
#include <array>
#include <complex>
#include <limits>
#include <string>
#include <vector>

namespace tremor {

struct Model;
struct Material;

// Quality factors are refused outside (1, 1e5): Q <= 1 is no longer a wave, from 1e5 on the loss is
// below what a run can see (give none instead).
inline constexpr double smallest_quality = 1.0;
inline constexpr double largest_quality = 1e5;
inline constexpr int default_solids = 3;
inline constexpr int largest_solids = 8;

// What a material says of its attenuation, as given. Exactly one pair of quality factors: q_p and
// q_s (P and S waves), or q_kappa and q_mu (bulk and shear moduli); infinity means none (a
// material may attenuate in shear only). reference_frequency and band 0: from the model's sources
// (attenuation_band).
struct Attenuation {
  bool by_waves = true;  // q_p, q_s given (else q_kappa, q_mu)
  double q_p = std::numeric_limits<double>::infinity(), q_s = std::numeric_limits<double>::infinity();
  double q_kappa = std::numeric_limits<double>::infinity(), q_mu = std::numeric_limits<double>::infinity();
  double reference_frequency = 0.0;  // Hz
  std::array<double, 2> band{0.0, 0.0};  // Hz
  int solids = default_solids;
  // Coarse-grained memory variables (q_coarse_grained; fem/viscoelastic.hpp): each point of an
  // element keeps one solid's, a third of the memory and traffic for 3 solids; sem only.
  bool coarse_grained = false;
};

// N solids fitted to one constant Q over a band.
struct RelaxationFit {
  std::vector<double> omega;  // rad/s, the relaxation frequencies omega_l
  std::vector<double> y;      // the anelastic coefficients Y_l (all 0 for no attenuation)
  double q = std::numeric_limits<double>::infinity();  // the target
  double worst_error = 0.0;   // max over the band of |Q_fit / Q - 1|
  double spread = 0.0;        // how far beyond the band the omega_l reach, in its log width
  // m(omega) = M(omega) / M_U.
  std::complex<double> relative_modulus(double angular_frequency) const;
  // Q(omega) of the fit: Re m / Im m (infinity where Im m is 0).
  double quality(double angular_frequency) const;
  // M_U / M_ref for the modulus whose phase velocity at `angular_frequency` is sqrt(M_ref / rho):
  // (Re m^-1/2)^2. 1 without attenuation.
  double unrelaxed_over_reference(double angular_frequency) const;
};

// Relaxation frequencies spaced evenly in log frequency over [f_min, f_max] Hz widened at each end
// by the fraction of its log width (0 to 1/2) that gives the smallest worst error (the geometric
// centre for one solid); Y_l by least squares at 10 N frequencies over the band; worst_error
// sampled at 400. Q infinite: every Y_l 0. Throws tremor::Error for a Q outside (1, 1e5), a band
// that is not 0 < f_min < f_max, or solids outside [1, largest_solids].
// `spread` >= 0 takes that spread instead (two fits sharing their omega_l).
RelaxationFit fit_constant_q(double q, double f_min, double f_max, int solids, double spread = -1.0);

// Q_kappa and Q_mu from Q_P and Q_S for a solid whose shear-to-P modulus ratio is
// L = (4/3) c_s^2 / c_p^2: 1/Q_P = L / Q_S + (1 - L) / Q_kappa, Q_mu = Q_S. Throws tremor::Error,
// naming both, where they would need a negative bulk loss (Q_P above Q_S / L).
std::array<double, 2> bulk_and_shear_quality(double q_p, double q_s, double shear_ratio);

// A material's attenuation made definite for a model: its band (given, or a decade around the
// sources' centre frequencies, [f_lo / sqrt 10, f_hi sqrt 10]), reference frequency (given, or the
// band's geometric centre), Q_kappa and Q_mu, the solids fitted to each, and the unrelaxed
// moduli (isotropic: kappa_U and mu_U, such that the P and S phase velocities at the reference
// frequency are the material's).
struct ResolvedAttenuation {
  std::array<double, 2> band{};  // Hz
  double reference_frequency = 0.0;  // Hz
  double q_kappa = 0.0, q_mu = 0.0;
  RelaxationFit bulk, shear;  // over the same relaxation frequencies
  double kappa_u = 0.0, mu_u = 0.0;  // Pa; an anisotropic material's: the Voigt averages of `unrelaxed`
  std::array<double, 36> unrelaxed{};  // C_U, Voigt 6 x 6 row-major, Pa
  double worst_error() const;  // of the two fits, where finite
  // C(omega) as above: the stiffness a harmonic strain of angular frequency omega sees.
  std::array<std::complex<double>, 36> stiffness(double angular_frequency) const;
};

// The relaxing parts of a Voigt stiffness (6 x 6 row-major, engineering shear strains), as above:
// P_v C P_v = kappa_V 1_3 1_3^T and P_d C P_d.
std::array<double, 36> bulk_part(const std::array<double, 36>& c);
std::array<double, 36> deviatoric_part(const std::array<double, 36>& c);
// The Voigt averages of a stiffness: kappa_V = sum_{i,j<3} C_ij / 9, mu_V = (C_00 + C_11 + C_22 -
// C_01 - C_02 - C_12 + 3 (C_33 + C_44 + C_55)) / 15; an isotropic material's kappa and mu.
double voigt_bulk(const std::array<double, 36>& c);
double voigt_shear(const std::array<double, 36>& c);

// The sources' centre frequencies, lowest and highest (Signal::frequency of the point sources,
// tractions, prescribed displacements and transducers that have one), else {0, 0}.
std::array<double, 2> source_frequencies(const Model& model);

// Resolves `material`'s attenuation (it must have one) in `model`. An isotropic material's
// unrelaxed kappa_U and mu_U keep its P and S phase velocities at the reference frequency; an
// anisotropic one's C_U is the given stiffness with its bulk and deviatoric parts each raised by
// the factor that keeps the phase velocity of a wave in that part alone (the given stiffness holds
// at the reference frequency for waves of one part, to O(Q^-2) for the others), and its q_p, q_s are
// turned into Q_kappa and Q_mu with the Voigt averages' L = (4/3) mu_V / (kappa_V + 4/3 mu_V).
// Throws tremor::Error naming the material: a band that does not contain every source centre
// frequency, no band and no source frequency to take one from, Q_P and Q_S that need a negative
// bulk loss, a Q outside (1, 1e5) after the conversion, a relaxed stiffness C(0) that is not
// positive definite (an anisotropic material whose unrelaxing coupling outweighs its relaxed parts).
ResolvedAttenuation resolve_attenuation(const Model& model, const Material& material);

// One line for the pre-flight and `tremor info`: the quality factors, the solids and band, the
// fit's worst Q error, the unrelaxed wave speeds.
std::string describe(const ResolvedAttenuation& attenuation, const Material& material);

}  // namespace tremor
