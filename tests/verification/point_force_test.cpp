// A point force in an unbounded viscoelastic solid (docs/verification.md, "Attenuation: a point
// force in an unbounded solid"): the explicit solver's displacement against the exact solution by
// the correspondence principle, at two distances.
//
// Exact solution. For a force F X(t) along z at the origin of an elastic full space, Stokes'
// solution (Aki and Richards 2002, Eq. 4.23), with r = |x|, g = x / r, alpha and beta the P and
// S speeds, is
//
//   u_i(t) = F / (4 pi rho) { (3 g_i g_z - d_iz) / r^3 int_{r/alpha}^{r/beta} tau X(t - tau) dtau
//                             + g_i g_z / (alpha^2 r) X(t - r/alpha)
//                             - (g_i g_z - d_iz) / (beta^2 r) X(t - r/beta) }.
//
// Transformed with U(omega) = int u(t) exp(-i omega t) dt (the convention in which the solids'
// complex modulus M(omega) = M_U [1 - sum_l Y_l omega_l / (omega_l + i omega)] of
// model/attenuation.hpp holds), with k_p = omega / alpha, k_s = omega / beta:
//
//   U_i(omega) = F X(omega) / (4 pi) { (3 g_i g_z - d_iz) / (rho omega^2 r^3)
//                                        [(1 + i k_s r) e^{-i k_s r} - (1 + i k_p r) e^{-i k_p r}]
//                                      + g_i g_z e^{-i k_p r} / (M_p r) - (g_i g_z - d_iz) e^{-i k_s r} / (mu r) },
//
// M_p = rho alpha^2 = lambda + 2 mu. It is analytic in the moduli and solves the Navier equation
// -rho omega^2 U = (lambda + 2 mu) grad div U - mu curl curl U + F X delta for each omega, so for a
// viscoelastic solid it holds with the complex moduli M_p(omega) = kappa(omega) + 4/3 mu(omega) and
// mu(omega) (the correspondence principle; e.g. Carcione 2015, "Wave fields in real media", 3rd
// ed., Sec. 2.10), k = omega sqrt(rho / M) taken with Im k < 0 (outgoing waves that decay). The
// moduli are the FITTED solids' exact ones (resolve_attenuation), so that what is checked is the
// solver, not the fit. The time series is u(t) = (1 / pi) Re int_0^inf U(omega) e^{i omega t}
// d omega (u real), summed at frequencies df apart: an inverse DFT at the sample times, exact up
// to the wrap-around of period 1 / df.
//
// Model: an eighth of a cube of GLL hexahedra (sem) lined with a C-PML on its three far faces; the
// symmetry planes hold the components that vanish there for a force along z at the corner
// (u_x = 0 on x = 0, u_y = 0 on y = 0, u_x = u_y = 0 on z = 0), so that the run is that of the
// whole cube, PML on all six faces, with the force at its centre: an eighth of the force on the
// corner node, whose lumped mass is an eighth of the whole cube's centre node. A nodal force is a
// point force exactly in the weak form (the GLL basis is interpolatory). Receivers at the nodes
// nearest the diagonal (1, 1, 1) / sqrt 3, 54.7 degrees off the force, where P, S and the near
// field all contribute to every component.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "sem_runs.hpp"
#include "support/support.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/attenuation.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using complex = std::complex<double>;
constexpr double pi = std::numbers::pi;
constexpr double c_p = 2000.0, c_s = 1000.0, rho = 2000.0;  // m/s, kg/m^3 (at the reference frequency)
constexpr double q_p = 30.0, q_s = 20.0;
constexpr double f0 = 10.0;                // Hz, the Ricker's peak: the shear wavelength 100 m
constexpr double force = 1e9;              // N, the whole force
constexpr double lambda_s = c_s / f0;      // m

// Model (the header): GLL elements of order 5, 50 m (2 elements, 10 GLL intervals, per shear
// wavelength at f0; 0.72 elements per shear wavelength at the Ricker's highest significant frequency,
// 2.76 f0); the eighth 250 m before its layers, which are 100 m thick (half a P wavelength at f0).
// The receivers' nodes lie 168 m at most from the symmetry planes, 82 m or more in front of the
// layers. Measured: layers of 150 m changed the errors by 2e-4 at most; with the layers 50 m
// closer the near receiver's error grew from 0.34% to 0.39%.
constexpr double h = 50.0;
constexpr int order = 5;
constexpr double interior = 250.0, layer = 100.0;  // m
// A step of 0.7 ms, 0.43 of the stable 1.6 ms: at the automatic step (0.9 x stable) the central
// difference's own dispersion (a relative frequency error (omega dt)^2 / 24) makes most of the
// difference from the exact solution (0.69% and 1.07% at the two distances, against 0.34% and 0.29%
// here); the smaller step keeps the discretisation error well below the attenuation the test
// resolves. The window: the S pulse at the far receiver (centre 0.15 + 0.29 s, the wavelet's half
// width 0.13 s) has passed by 0.6 s.
constexpr double time_step = 0.7e-3, duration = 0.65;  // s

struct Record {
  std::array<double, 3> at;   // the receiver's node, m
  std::vector<double> times;  // s
  std::vector<double> u;      // [sample][component], m
};

struct Outcome {
  std::vector<Record> records;
  ResolvedAttenuation attenuation;
  ResolvedAttenuation weaker;  // Q_P and Q_S 10% higher, the same speeds at f0
  double dt = 0.0, setup = 0.0, stepping = 0.0;  // s
  long long steps = 0;
  Index n_dofs = 0;
};

Outcome run_eighth(const std::string& backend) {
  const log::Quiet quiet;
  Model model;
  model.source = "eighth of a cube";
  const double side = interior + layer;
  const auto cells = static_cast<Size>(std::llround(side / h));
  model.mesh = generate_box({0.0, 0.0, 0.0}, {side, side, side}, {cells, cells, cells}, ElementType::HexGLL, order);
  Material rock = Material::from_speeds("rock", c_p, c_s, rho);
  Attenuation attenuation;
  attenuation.q_p = q_p;
  attenuation.q_s = q_s;
  rock.attenuation = attenuation;  // 3 solids; band: a decade around f0; reference frequency: f0
  model.materials.push_back(rock);
  model.sections.push_back({"all", "rock", Formulation::Solid, 1.0});
  model.fixed.push_back({model.mesh.node_sets.at("xmin"), 0, 0.0, "", "symmetry x = 0"});
  model.fixed.push_back({model.mesh.node_sets.at("ymin"), 1, 0.0, "", "symmetry y = 0"});
  model.fixed.push_back({model.mesh.node_sets.at("zmin"), 0, 0.0, "", "antisymmetry z = 0"});
  model.fixed.push_back({model.mesh.node_sets.at("zmin"), 1, 0.0, "", "antisymmetry z = 0"});
  PointSource source;
  source.nodes = {0};  // the corner (0, 0, 0)
  source.direction = {0.0, 0.0, 1.0};
  source.amplitude = force / 8.0;
  source.signal = Signal::ricker(f0);
  source.origin = "force";
  model.point_sources.push_back(source);
  // The nodes nearest the diagonal points 1.5 and 3 shear wavelengths from the force.
  for (const double r : {1.5 * lambda_s, 3.0 * lambda_s}) {
    const double a = r / std::sqrt(3.0);
    Index nearest = 0;
    double distance = std::numeric_limits<double>::infinity();
    for (Index n = 0; n < model.mesh.n_nodes(); ++n) {
      const auto x = model.mesh.node(n);
      const double d = std::hypot(x[0] - a, x[1] - a, x[2] - a);
      if (d < distance) nearest = n, distance = d;
    }
    Receiver receiver;
    receiver.name = str("near r = ", r);
    receiver.nodes = {nearest};
    model.receivers.push_back(receiver);
  }
  model.absorbing.push_back(test::pml_layers({BoxFace::XMax, BoxFace::YMax, BoxFace::ZMax}, layer, f0));
  const explicit_fe::ExplicitRun run = test::run_sem(model, backend, duration, time_step, "point force");
  Outcome out;
  out.setup = run.setup_seconds;
  out.stepping = run.wall_seconds;
  out.dt = run.dt;
  out.steps = run.steps;
  out.n_dofs = run.preflight.n_dofs;
  out.attenuation = resolve_attenuation(model, model.materials[0]);
  Material weaker = model.materials[0];
  weaker.attenuation->q_p *= 1.1;
  weaker.attenuation->q_s *= 1.1;
  out.weaker = resolve_attenuation(model, weaker);
  for (const explicit_fe::History& history : run.histories) {
    Record record;
    const auto x = model.mesh.node(history.nodes.at(0));
    record.at = {x[0], x[1], x[2]};
    record.times = history.times;
    for (std::size_t k = 0; k < history.n_samples(); ++k)
      for (int c = 0; c < 3; ++c) record.u.push_back(history.value(k, 0, explicit_fe::Quantity::Displacement, c));
    out.records.push_back(record);
  }
  return out;
}

// ------------------------------------------------------------------------------ exact solution

struct Moduli {
  complex p, s;  // M_p = lambda + 2 mu, and mu, Pa
};

// U_i(omega) / (F X(omega)), the header's formula.
std::array<complex, 3> green(const std::array<double, 3>& x, double omega, const Moduli& m) {
  const complex i(0.0, 1.0);
  const double r = std::hypot(x[0], x[1], x[2]);
  const complex k_p = omega * std::sqrt(rho / m.p), k_s = omega * std::sqrt(rho / m.s);
  const complex e_p = std::exp(-i * k_p * r), e_s = std::exp(-i * k_s * r);
  const complex near = ((1.0 + i * k_s * r) * e_s - (1.0 + i * k_p * r) * e_p) / (rho * omega * omega * r * r * r);
  std::array<complex, 3> out;
  for (int c = 0; c < 3; ++c) {
    const double g = x[static_cast<std::size_t>(c)] * x[2] / (r * r), d = c == 2 ? 1.0 : 0.0;
    out[static_cast<std::size_t>(c)] =
        ((3.0 * g - d) * near + g * e_p / (m.p * r) - (g - d) * e_s / (m.s * r)) / (4.0 * pi);
  }
  return out;
}

// The Ricker wavelet's spectrum, int X(t) e^{-i omega t} dt: (2 / sqrt pi) f^2 / f0^3 e^{-f^2 / f0^2}
// (the second derivative of a Gaussian) delayed by its centre.
complex ricker_spectrum(const Signal& w, double f) {
  const double amplitude = 2.0 / std::sqrt(pi) * f * f / (w.frequency * w.frequency * w.frequency) *
                           std::exp(-f * f / (w.frequency * w.frequency));
  return amplitude * std::exp(complex(0.0, -2.0 * pi * f * w.centre));
}

// u at `x` at `times`, [sample][component], by the inverse transform summed over f = df, 2 df, ...
// up to 6 f0 (the Ricker's spectrum is 1e-14 of its peak there); df = 0.05 Hz wraps around every
// 20 s, long after the motion has died out.
std::vector<double> exact(const std::array<double, 3>& x, const std::vector<double>& times, const Signal& w,
                          const std::function<Moduli(double)>& moduli) {
  constexpr double df = 0.05;
  const int n_frequencies = static_cast<int>(std::lround(6.0 * w.frequency / df));
  std::vector<double> u(3 * times.size(), 0.0);
  for (int m = 1; m <= n_frequencies; ++m) {
    const double f = m * df, omega = 2.0 * pi * f;
    const std::array<complex, 3> g = green(x, omega, moduli(omega));
    const complex spectrum = force * ricker_spectrum(w, f);
    for (std::size_t k = 0; k < times.size(); ++k) {
      const complex turn = std::exp(complex(0.0, omega * times[k])) * spectrum * 2.0 * df;
      for (std::size_t c = 0; c < 3; ++c) u[3 * k + c] += (g[c] * turn).real();
    }
  }
  return u;
}

// The elastic solution straight from Aki and Richards Eq. 4.23 (the header), the near field's
// integral by Simpson's rule: a check of the transform's conventions and of the near-field term.
std::vector<double> stokes(const std::array<double, 3>& x, const std::vector<double>& times, const Signal& w) {
  const double r = std::hypot(x[0], x[1], x[2]), t_p = r / c_p, t_s = r / c_s;
  constexpr int n = 4000;
  std::vector<double> u(3 * times.size(), 0.0);
  for (std::size_t k = 0; k < times.size(); ++k) {
    const double t = times[k], step = (t_s - t_p) / n;
    double integral = 0.0;
    for (int j = 0; j <= n; ++j) {
      const double tau = t_p + j * step;
      integral += (j == 0 || j == n ? 1.0 : (j % 2 == 1 ? 4.0 : 2.0)) * tau * w.value(t - tau);
    }
    integral *= step / 3.0;
    for (std::size_t c = 0; c < 3; ++c) {
      const double g = x[c] * x[2] / (r * r), d = c == 2 ? 1.0 : 0.0;
      u[3 * k + c] = force / (4.0 * pi * rho) *
                     ((3.0 * g - d) / (r * r * r) * integral + g / (c_p * c_p * r) * w.value(t - t_p) -
                      (g - d) / (c_s * c_s * r) * w.value(t - t_s));
    }
  }
  return u;
}

double relative_l2(const std::vector<double>& got, const std::vector<double>& want) {
  return test::l2_distance(got, want) / test::l2_norm(want);
}

// The run on `backend` against the exact viscoelastic solution at both receivers, and against the
// elastic one (the same speeds at f0, no loss) to show that the agreement is the attenuation's.
void expect_matches_the_correspondence_solution(const std::string& backend) {
  SCOPED_TRACE(backend);
  const Outcome run = run_eighth(backend);
  ASSERT_EQ(run.records.size(), 2u);
  const Signal w = Signal::ricker(f0);
  const ResolvedAttenuation& a = run.attenuation;
  const auto moduli_of = [](const ResolvedAttenuation& solids) {
    return [&solids](double omega) {
      const complex mu = solids.mu_u * solids.shear.relative_modulus(omega);
      return Moduli{solids.kappa_u * solids.bulk.relative_modulus(omega) + 4.0 / 3.0 * mu, mu};
    };
  };
  const auto elastic = [](double) { return Moduli{rho * c_p * c_p, rho * c_s * c_s}; };
  std::printf("  3 solids over [%.2f, %.2f] Hz, Q_kappa %.1f, Q_mu %.1f\n", a.band[0], a.band[1], a.q_kappa, a.q_mu);
  for (const Record& record : run.records) {
    const double r = std::hypot(record.at[0], record.at[1], record.at[2]);
    SCOPED_TRACE(str("r = ", r));
    const std::vector<double> want = exact(record.at, record.times, w, moduli_of(a));
    const double weaker_error = relative_l2(record.u, exact(record.at, record.times, w, moduli_of(run.weaker)));
    const std::vector<double> want_elastic = exact(record.at, record.times, w, elastic);
    const double error = relative_l2(record.u, want), elastic_error = relative_l2(record.u, want_elastic);
    const double transform = relative_l2(want_elastic, stokes(record.at, record.times, w));
    std::printf("  node (%.2f, %.2f, %.2f) m, r %.2f m (%.2f shear wavelengths at f0, %.1f deg off the force):\n"
                "    relative L2 %.4f against the viscoelastic solution, %.4f against Q 10%% higher, %.4f against the "
                "elastic one;\n    the elastic one by the transform against Eq. 4.23: %.1e\n",
                record.at[0], record.at[1], record.at[2], r, r / lambda_s, std::acos(record.at[2] / r) * 180.0 / pi,
                error, weaker_error, elastic_error, transform);
    // The reference itself: the inverse transform of the elastic U(omega) is Eq. 4.23 to rounding
    // (wrap-around and truncation of the sum are below 1e-14; Simpson's rule on the smooth wavelet).
    EXPECT_LT(transform, 1e-9);
    // The requirement, 2%. Measured 0.34% and 0.29%: the time step's dispersion, the layers and the
    // mesh (above); the bound leaves room for them at other steps and meshes (1.07% at the
    // automatic step) while still rejecting the two wrong solutions below.
    EXPECT_LT(error, 0.02);
    // Without the solids' loss and dispersion the run is 22% and 39% off (the S amplitude alone
    // decays as exp(-pi r / (lambda Q_S)), by 0.80 and 0.63 here): a run whose attenuation were
    // missing could not pass the bound above; 10% is 5 times the bound.
    EXPECT_GT(elastic_error, 0.10);
    // Against solids fitted to Q 10% higher (the same speeds at f0) the run is 2.2% and 4.1% off,
    // 6 and 14 times its error against its own: the run resolves Q to better than 10%.
    EXPECT_GT(weaker_error, 3.0 * error);
  }
}

TEST(PointForce, ViscoelasticFullSpaceAtTwoDistances) { expect_matches_the_correspondence_solution("openmp"); }

// The same on a GPU (the sem kernels with memory variables and the PML's, atomics): the same bound.
TEST(PointForce, GpuViscoelasticFullSpaceAtTwoDistances) {
  TREMOR_REQUIRE_GPU();
  expect_matches_the_correspondence_solution("cuda");
}

}  // namespace
}  // namespace tremor
