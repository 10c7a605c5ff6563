// A moment tensor in an unbounded elastic solid (docs/verification.md, "A moment tensor in an
// unbounded solid"): the explicit solver's displacement against Aki & Richards (2002) Eq. 4.29 at
// three azimuths.
//
// Exact solution. For a moment tensor M_pq X(t) at the origin, r = |x|, g = x / r, alpha and beta
// the P and S speeds (Aki & Richards 2002, Eq. 4.29; d the Kronecker delta),
//
//   4 pi rho u_n = (15 g_n g_p g_q - 3 g_n d_pq - 3 g_p d_nq - 3 g_q d_np) / r^4
//                      int_{r/alpha}^{r/beta} tau M_pq X(t - tau) dtau
//                + (6 g_n g_p g_q - g_n d_pq - g_p d_nq - g_q d_np) / (alpha^2 r^2) M_pq X(t - r/alpha)
//                - (6 g_n g_p g_q - g_n d_pq - g_p d_nq - 2 g_q d_np) / (beta^2 r^2) M_pq X(t - r/beta)
//                + g_n g_p g_q / (alpha^3 r) M_pq X'(t - r/alpha)
//                - (g_n g_p - d_np) g_q / (beta^3 r) M_pq X'(t - r/beta),
//
// the derivative of Stokes' solution (Eq. 4.23) along the source's position, which the test
// checks it against by central differences.
//
// Model: an eighth of a cube of GLL hexahedra lined with a C-PML on its three far faces, as the
// point-force verification (point_force_test.cpp) has it. A diagonal moment tensor (distinct
// entries, so that S waves radiate) is mirror-symmetric in the three planes: u_x = 0 on x = 0,
// u_y = 0 on y = 0, u_z = 0 on z = 0, and the run is the whole cube's with the source at its
// centre. The source is placed at the corner through the gradients of the corner element's shape
// functions, an eighth of the moment: the whole cube's source averaged over the eight elements
// meeting there, of which the eighth holds one (fem/point_sources.hpp). Receivers at positions
// between nodes, interpolated.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "sem_runs.hpp"
#include "support/support.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

constexpr double pi = std::numbers::pi;
constexpr double c_p = 2000.0, c_s = 1000.0, rho = 2000.0;  // m/s, kg/m^3
constexpr double f0 = 10.0;                                 // Hz, the Ricker's peak: shear wavelength 100 m
constexpr std::array<double, 3> moment{1e15, 0.4e15, -0.7e15};  // N m: M_xx, M_yy, M_zz
// The point-force verification's cube (50 m elements; 250 m before 100 m layers) at GLL order 7. A
// moment tensor's forces sit on the nodes of the one element holding it, its shape functions'
// gradients there: the source is a polynomial of the element's degree, and its error falls fast
// with the order. Measured (relative L2 at the three receivers): order 4, 4.5 to 6.3%; order 5,
// 0.9 to 2.0%; order 7, 0.10 to 0.11% at a step of 0.4 ms, 0.35 to 0.41% at the automatic step
// (0.9 of the stable one, whose dispersion adds the rest); layers at 300 m changed nothing.
constexpr double h = 50.0, interior = 250.0, layer = 100.0;  // m
constexpr int order = 7;
constexpr double time_step = 0.4e-3, duration = 0.5;  // s: the S pulse at 180 m has passed by 0.46 s
constexpr double distance = 180.0;                     // m, 1.8 shear wavelengths at f0
// Three azimuths: the diagonal (54.7 degrees off each axis), near the x axis, near the z axis.
const std::array<std::array<double, 3>, 3> directions{{{1.0, 1.0, 1.0}, {0.92, 0.28, 0.28}, {0.3, 0.35, 0.89}}};

std::array<double, 3> receiver_at(const std::array<double, 3>& direction) {
  const double length = std::hypot(direction[0], direction[1], direction[2]);
  return {distance * direction[0] / length, distance * direction[1] / length, distance * direction[2] / length};
}

struct Record {
  std::array<double, 3> at;
  std::vector<double> times, u;  // u [sample][component]
};

std::vector<Record> run_eighth(const std::string& backend) {
  const log::Quiet quiet;
  Model model;
  model.source = "eighth of a cube";
  const double side = interior + layer;
  const auto cells = static_cast<Size>(std::llround(side / h));
  model.mesh = generate_box({0.0, 0.0, 0.0}, {side, side, side}, {cells, cells, cells}, ElementType::HexGLL, order);
  model.materials.push_back(Material::from_speeds("rock", c_p, c_s, rho));
  model.sections.push_back({"all", "rock", Formulation::Solid, 1.0});
  model.fixed.push_back({model.mesh.node_sets.at("xmin"), 0, 0.0, "", "symmetry x = 0"});
  model.fixed.push_back({model.mesh.node_sets.at("ymin"), 1, 0.0, "", "symmetry y = 0"});
  model.fixed.push_back({model.mesh.node_sets.at("zmin"), 2, 0.0, "", "symmetry z = 0"});
  PointSource source;
  source.position = std::array<double, 3>{0.0, 0.0, 0.0};
  source.moment = std::array<double, 6>{moment[0], moment[1], moment[2], 0.0, 0.0, 0.0};
  source.amplitude = 1.0 / 8.0;
  source.signal = Signal::ricker(f0);
  source.origin = "moment tensor";
  model.point_sources.push_back(source);
  Receiver receiver;
  receiver.name = "azimuths";
  for (const auto& d : directions) receiver.positions.push_back(receiver_at(d));
  model.receivers.push_back(receiver);
  model.absorbing.push_back(test::pml_layers({BoxFace::XMax, BoxFace::YMax, BoxFace::ZMax}, layer, f0));
  const explicit_fe::ExplicitRun run = test::run_sem(model, backend, duration, time_step, "moment tensor");
  std::vector<Record> out;
  const explicit_fe::History& history = run.histories.at(0);
  for (Index p = 0; p < history.n_points(); ++p) {
    Record record;
    record.at = history.positions[static_cast<std::size_t>(p)];
    record.times = history.times;
    for (std::size_t k = 0; k < history.n_samples(); ++k)
      for (int c = 0; c < 3; ++c) record.u.push_back(history.value(k, p, explicit_fe::Quantity::Displacement, c));
    out.push_back(record);
  }
  return out;
}

// int_lo^hi tau X(t - tau) dtau by Simpson's rule (the Ricker is smooth: 4000 panels leave 1e-13).
double near_integral(const Signal& w, double t, double lo, double hi) {
  constexpr int n = 4000;
  const double step = (hi - lo) / n;
  double sum = 0.0;
  for (int j = 0; j <= n; ++j) {
    const double tau = lo + j * step;
    sum += (j == 0 || j == n ? 1.0 : (j % 2 == 1 ? 4.0 : 2.0)) * tau * w.value(t - tau);
  }
  return sum * step / 3.0;
}

// The Ricker's derivative: d/dt (1 - 2 a^2) e^{-a^2}, a = pi f0 (t - t0), is pi f0 (4 a^3 - 6 a) e^{-a^2}.
double ricker_rate(const Signal& w, double t) {
  const double a = pi * w.frequency * (t - w.centre);
  return pi * w.frequency * (4.0 * a * a * a - 6.0 * a) * std::exp(-a * a);
}

// Eq. 4.29 (the header) for a general symmetric M at x, times `times`: [sample][component].
std::vector<double> aki_richards(const std::array<double, 3>& x, const double M[3][3], const std::vector<double>& times,
                                 const Signal& w) {
  const double r = std::hypot(x[0], x[1], x[2]), t_p = r / c_p, t_s = r / c_s;
  const double g[3] = {x[0] / r, x[1] / r, x[2] / r};
  const auto d = [](int i, int j) { return i == j ? 1.0 : 0.0; };
  std::vector<double> u(3 * times.size(), 0.0);
  for (std::size_t k = 0; k < times.size(); ++k) {
    const double t = times[k], near = near_integral(w, t, t_p, t_s);
    const double x_p = w.value(t - t_p), x_s = w.value(t - t_s);
    const double v_p = ricker_rate(w, t - t_p), v_s = ricker_rate(w, t - t_s);
    for (int n = 0; n < 3; ++n) {
      double sum = 0.0;
      for (int p = 0; p < 3; ++p)
        for (int q = 0; q < 3; ++q) {
          if (M[p][q] == 0.0) continue;
          const double ggg = g[n] * g[p] * g[q];
          sum += M[p][q] *
                 ((15.0 * ggg - 3.0 * g[n] * d(p, q) - 3.0 * g[p] * d(n, q) - 3.0 * g[q] * d(n, p)) / (r * r * r * r) * near +
                  (6.0 * ggg - g[n] * d(p, q) - g[p] * d(n, q) - g[q] * d(n, p)) / (c_p * c_p * r * r) * x_p -
                  (6.0 * ggg - g[n] * d(p, q) - g[p] * d(n, q) - 2.0 * g[q] * d(n, p)) / (c_s * c_s * r * r) * x_s +
                  ggg / (c_p * c_p * c_p * r) * v_p - (g[n] * g[p] - d(n, p)) * g[q] / (c_s * c_s * c_s * r) * v_s);
        }
      u[3 * k + static_cast<std::size_t>(n)] = sum / (4.0 * pi * rho);
    }
  }
  return u;
}

// Stokes' solution (Eq. 4.23) for a unit force along p at the origin: u_n at x, time t.
double stokes(const std::array<double, 3>& x, int n, int p, double t, const Signal& w) {
  const double r = std::hypot(x[0], x[1], x[2]), t_p = r / c_p, t_s = r / c_s;
  const double g = x[static_cast<std::size_t>(n)] * x[static_cast<std::size_t>(p)] / (r * r), dl = n == p ? 1.0 : 0.0;
  return ((3.0 * g - dl) / (r * r * r) * near_integral(w, t, t_p, t_s) + g / (c_p * c_p * r) * w.value(t - t_p) -
          (g - dl) / (c_s * c_s * r) * w.value(t - t_s)) /
         (4.0 * pi * rho);
}

double relative_l2(const std::vector<double>& got, const std::vector<double>& want) {
  return test::l2_distance(got, want) / test::l2_norm(want);
}

// The reference itself: Eq. 4.29 for a general tensor against -M_pq d/dx_q of Stokes' solution
// by central differences of 1 mm (their error is 1e-7 of the motion, the sum's rounding less).
TEST(MomentTensor, AkiRichardsIsTheDerivativeOfStokes) {
  const double M[3][3] = {{1.0, 0.3, -0.2}, {0.3, 0.4, 0.5}, {-0.2, 0.5, -0.6}};
  const Signal w = Signal::ricker(f0);
  const std::array<double, 3> x{90.0, 60.0, 110.0};
  const std::vector<double> times{0.2, 0.25, 0.3, 0.35};
  const std::vector<double> exact = aki_richards(x, M, times, w);
  std::vector<double> differences(exact.size(), 0.0);
  constexpr double e = 1e-3;
  for (std::size_t k = 0; k < times.size(); ++k)
    for (int n = 0; n < 3; ++n)
      for (int p = 0; p < 3; ++p)
        for (int q = 0; q < 3; ++q) {
          std::array<double, 3> plus = x, minus = x;
          plus[static_cast<std::size_t>(q)] += e;
          minus[static_cast<std::size_t>(q)] -= e;
          differences[3 * k + static_cast<std::size_t>(n)] -=
              M[p][q] * (stokes(plus, n, p, times[k], w) - stokes(minus, n, p, times[k], w)) / (2.0 * e);
        }
  EXPECT_LT(relative_l2(differences, exact), 1e-6);
}

void expect_matches_aki_richards(const std::string& backend) {
  SCOPED_TRACE(backend);
  const std::vector<Record> records = run_eighth(backend);
  ASSERT_EQ(records.size(), directions.size());
  const Signal w = Signal::ricker(f0);
  const double M[3][3] = {{moment[0], 0.0, 0.0}, {0.0, moment[1], 0.0}, {0.0, 0.0, moment[2]}};
  const double flipped[3][3] = {{-moment[0], 0.0, 0.0}, {0.0, -moment[1], 0.0}, {0.0, 0.0, -moment[2]}};
  for (const Record& record : records) {
    const double r = std::hypot(record.at[0], record.at[1], record.at[2]);
    SCOPED_TRACE(str("at (", record.at[0], ", ", record.at[1], ", ", record.at[2], ")"));
    const double error = relative_l2(record.u, aki_richards(record.at, M, record.times, w));
    const double wrong = relative_l2(record.u, aki_richards(record.at, flipped, record.times, w));
    std::printf("  (%.1f, %.1f, %.1f) m, r %.1f m, %.1f deg off z: relative L2 %.4f (against -M: %.2f)\n", record.at[0],
                record.at[1], record.at[2], r, std::acos(record.at[2] / r) * 180.0 / pi, error, wrong);
    // The requirement, 1%: measured 0.10 to 0.11% (above), and 2% at order 5, which it rejects.
    EXPECT_LT(error, 0.01);
    EXPECT_GT(wrong, 1.9);  // the sign of the convention: -M is 200% off
  }
}

TEST(MomentTensor, AnUnboundedSolidAtThreeAzimuths) { expect_matches_aki_richards("openmp"); }

// The same on a GPU: the same bound.
TEST(MomentTensor, GpuAnUnboundedSolidAtThreeAzimuths) {
  TREMOR_REQUIRE_GPU();
  expect_matches_aki_richards("cuda");
}

}  // namespace
}  // namespace tremor
