// Constant-Q viscoelasticity through a whole run (docs/verification.md, "Attenuation"): plane P and
// S waves down a long column of GLL hexahedra (sem, memory variables at every GLL point). The
// column's other two displacement components are held everywhere, so the wave is exactly plane;
// it is driven by a Ricker displacement at x = 0 and recorded at two distances before the far end's
// reflection returns. From the two records' spectra U1, U2 at frequency f, Delta x apart:
//   Q(f) = pi f Delta x / (c(f) ln |U1 / U2|)   (spectral ratio; no spreading for a plane wave),
//   c(f) = 2 pi f Delta x / arg(U1 / U2)        (phase velocity),
// against the target Q and against the solids' exact complex modulus M(omega) (model/attenuation.hpp):
// k = omega sqrt(rho / M), c = omega / Re k, amplitude ratio exp(Im k Delta x). An orthotropic
// column relaxes in its stiffness's bulk and deviatoric parts: M is the xx (P) or xy (S) entry of
// its complex stiffness C(omega).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "plane_wave_column.hpp"
#include "support/support.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/attenuation.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using test::two_pi;
constexpr double c_p = 2000.0, c_s = 1000.0, rho = 2000.0;  // m/s, kg/m^3
// Hz, the Ricker's peak: for S, and twice it for P, so that both waves span the same wavelengths.
constexpr double f0 = 10.0;
constexpr double length = 800.0, h = 20.0;                  // m: 40 elements of order 4 along x
constexpr double x1 = 200.0, x2 = 600.0;                    // m, the receivers
constexpr double q_p = 30.0, q_s = 20.0;

// An orthotropic rock with the same speeds along x (C_xxxx = rho c_p^2, C_xyxy = rho c_s^2), Pa:
// slower across, its normal stiffnesses coupled.
Material orthotropic_rock() {
  std::array<double, 36> c{};
  const double normal[3][3] = {{8e9, 2.5e9, 2.5e9}, {2.5e9, 5e9, 2e9}, {2.5e9, 2e9, 5e9}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c[static_cast<std::size_t>(6 * i + j)] = normal[i][j];
  c[21] = 1.5e9, c[28] = 2e9, c[35] = 2e9;
  return Material::from_stiffness("rock", c, rho);
}

// The column, its wave along x with displacement in `component` (0: P, 1: S) and the others held;
// in 2D a plane-strain strip of GLL quadrilaterals. `type` (3D): HexGLL of order 4, 40 elements of
// 20 m, or hex8, 320 elements of 2.5 m (25 per wavelength at the highest frequency measured: the
// lumped linear element's dispersion (k h)^2 / 24 is 0.26% there), whose memory variables are at
// its 8 Gauss points, none of them a node.
Model column(int component, int dim = 3, ElementType type = ElementType::HexGLL, bool anisotropic = false,
             bool coarse = false) {
  const double peak = component == 0 ? 2.0 * f0 : f0;
  Model model;
  model.source = "column";
  const bool gll = type == ElementType::HexGLL;
  model.mesh = dim == 3 ? generate_box({0.0, 0.0, 0.0}, {length, h, h}, {gll ? 40 : 320, 1, 1}, type, gll ? 4 : 1)
                        : generate_rectangle({0.0, 0.0}, {length, h}, {40, 1}, ElementType::QuadGLL, 4);
  Material rock = anisotropic ? orthotropic_rock() : Material::from_speeds("rock", c_p, c_s, rho);
  Attenuation attenuation;
  attenuation.q_p = q_p;
  attenuation.q_s = q_s;
  attenuation.coarse_grained = coarse;
  rock.attenuation = attenuation;  // band: a decade around the peak; reference: the peak
  model.materials.push_back(rock);
  model.sections.push_back({"all", "rock", dim == 3 ? Formulation::Solid : Formulation::PlaneStrain, 1.0});
  test::drive_plane_wave(model, component, peak, x1, x2, {0.5 * h, 0.5 * h});
  ExplicitSettings settings;
  // S: the pulse passes x2 by ~0.85 s, the far end's reflection reaches it at 1.0 s; P: 0.42 s
  // and 0.51 s.
  settings.duration = component == 0 ? 0.5 : 1.0;
  model.explicit_settings = settings;
  model.validate();
  return model;
}

void expect_plane_wave_attenuates(int component, const char* backend = "openmp", const char* precision = "double",
                                  int dim = 3, const char* operator_kind = "sem",
                                  ElementType type = ElementType::HexGLL, bool anisotropic = false,
                                  bool coarse = false) {
  SCOPED_TRACE(str(backend, " ", precision, " ", dim, "D ", operator_kind, " ", element_name(type, 2),
                   anisotropic ? " orthotropic" : "", coarse ? " coarse-grained" : ""));
  const log::Quiet quiet;
  const Model model = column(component, dim, type, anisotropic, coarse);
  explicit_fe::RunOptions options;
  options.backend = backend;
  options.precision = precision;
  options.operator_kind = "auto";
  const explicit_fe::ExplicitRun run = explicit_fe::run_explicit(model, options);
  ASSERT_TRUE(run.ok()) << run.message;
  // "auto" takes a kind that keeps the memory variables: sem on GLL, matrix_free otherwise.
  ASSERT_EQ(run.preflight.operator_kind(), operator_kind);
  const std::vector<std::vector<double>> records = test::receiver_records(run, component, dim);
  const ResolvedAttenuation resolved = resolve_attenuation(model, model.materials[0]);
  const double target = component == 0 ? q_p : q_s;
  for (const double f_s : {0.6 * f0, f0, 1.6 * f0}) {
    const double f = (component == 0 ? 2.0 : 1.0) * f_s;
    const std::complex<double> ratio = test::spectrum(records[0], run.dt, f) / test::spectrum(records[1], run.dt, f);
    const double c = test::phase_velocity(ratio, f, x2 - x1, component == 0 ? c_p : c_s);  // near the elastic speed
    const double q = std::numbers::pi * f * (x2 - x1) / (c * std::log(std::abs(ratio)));
    // The solids' exact wave: M = M_U m(omega) for P (bulk and shear parts) or S.
    const double omega = two_pi * f;
    const std::complex<double> m =
        anisotropic ? resolved.stiffness(omega)[component == 0 ? 0 : 35]
        : component == 0 ? resolved.kappa_u * resolved.bulk.relative_modulus(omega) +
                               4.0 / 3.0 * resolved.mu_u * resolved.shear.relative_modulus(omega)
                         : resolved.mu_u * resolved.shear.relative_modulus(omega);
    const std::complex<double> k = omega * std::sqrt(rho / m);
    const double c_exact = omega / k.real();
    const double q_exact = k.real() / (2.0 * std::abs(k.imag()));
    // Q within 5% of the target (the criterion; the fit's own error is ~0.3% here) and within 2% of
    // the solids' own (the spectra's leakage from the records' ends, the discretisation).
    // An orthotropic P wave's Q is its own mix of Q_kappa and Q_mu; its S wave's strain is a
    // deviator, its Q Q_mu = q_s.
    if (!anisotropic || component == 1) {
      EXPECT_NEAR(q, target, 0.05 * target) << f << " Hz";
    }
    EXPECT_NEAR(q, q_exact, 0.02 * q_exact) << f << " Hz";
    // The phase velocity within 0.5% of the solids' exact dispersion (SEM order 4 at 8 or more GLL
    // intervals per wavelength disperses far less).
    EXPECT_NEAR(c, c_exact, 0.005 * c_exact) << f << " Hz";
    std::printf("%s %s %s %dD %s%s%s wave at %4.1f Hz: Q %.2f (target %.0f, solids' %.2f), c %.2f m/s (solids' "
                "%.2f, %+.2e)\n",
                operator_kind, backend, precision, dim, coarse ? "coarse-grained " : "",
                anisotropic ? "orthotropic " : "",
                component == 0 ? "P" : "S", f, q, target, q_exact, c, c_exact, c / c_exact - 1.0);
  }
}

TEST(Attenuation, PlaneSWaveHasItsQualityFactorAndDispersion) { expect_plane_wave_attenuates(1); }
TEST(Attenuation, PlanePWaveHasItsQualityFactorAndDispersion) { expect_plane_wave_attenuates(0); }
TEST(Attenuation, FloatPlaneSWave) { expect_plane_wave_attenuates(1, "openmp", "float"); }
// Plane strain: the in-plane memory variables and the zz part of the anelastic strain (P).
TEST(Attenuation, PlaneStrainPAndSWaves) {
  for (const int component : {0, 1}) expect_plane_wave_attenuates(component, "openmp", "double", 2);
}

// An orthotropic column: the deviatoric part's matrix in the record, in 3D and in plane strain (its
// in-plane rows and columns, the zz part of a plane deviator).
TEST(Attenuation, OrthotropicPlaneWavesHaveTheirComplexStiffness) {
  for (const int component : {0, 1}) expect_plane_wave_attenuates(component, "openmp", "double", 3, "sem",
                                                                   ElementType::HexGLL, true);
  expect_plane_wave_attenuates(0, "openmp", "double", 2, "sem", ElementType::HexGLL, true);
}

// matrix_free: the memory variables at the Gauss points of hex8 elements (8 per element, none a
// node), the reference's kernel in double.
TEST(Attenuation, MatrixFreeAtGaussPoints) {
  for (const int component : {0, 1}) expect_plane_wave_attenuates(component, "openmp", "double", 3, "matrix_free",
                                                                   ElementType::Hex8);
}

// Coarse-grained memory variables (a third of them: one solid per GLL point, fem/viscoelastic.hpp):
// the same tolerances, P and S, 3D and plane strain, double and float.
TEST(Attenuation, CoarseGrainedPlaneWaves) {
  for (const int dim : {3, 2})
    for (const int component : {0, 1})
      expect_plane_wave_attenuates(component, "openmp", "double", dim, "sem", ElementType::HexGLL, false, true);
  expect_plane_wave_attenuates(1, "openmp", "float", 3, "sem", ElementType::HexGLL, false, true);
}

// The same on a GPU (the column kernel at order 4, atomics), in both precisions.
TEST(Attenuation, GpuPlaneWaves) {
  TREMOR_REQUIRE_GPU();
  for (const char* precision : {"double", "float"})
    for (const int component : {0, 1}) expect_plane_wave_attenuates(component, "cuda", precision);
  for (const int component : {0, 1})
    expect_plane_wave_attenuates(component, "cuda", "float", 3, "matrix_free", ElementType::Hex8);
  for (const int component : {0, 1})
    expect_plane_wave_attenuates(component, "cuda", "float", 3, "sem", ElementType::HexGLL, true);
  for (const char* precision : {"double", "float"})
    for (const int component : {0, 1})
      expect_plane_wave_attenuates(component, "cuda", precision, 3, "sem", ElementType::HexGLL, false, true);
}

}  // namespace
}  // namespace tremor
