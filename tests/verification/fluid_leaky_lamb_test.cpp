// A leaky Lamb wave: the A0 mode of an aluminium plate immersed in water loses its energy into the
// water on both sides as it goes (its phase velocity exceeds the water's sound speed), decaying as
// exp(-alpha x). Its complex wavenumber k = k' + i alpha at a real frequency is a root of the
// fluid-loaded Rayleigh-Lamb equation (Viktorov 1967, ch. 2; Chimenti 1997, Appl. Mech. Rev. 50):
// in the plate |y| <= d the antisymmetric potentials phi = A sinh(q y), psi = B cosh(s y)
// (u = grad phi + curl(psi z)), in the water above phi_f = F e^{i k_f (y - d)} radiating away
// (k_f = sqrt(w^2 / c_f^2 - k^2), Re k_f >= 0) and below its mirror image, with q^2 = k^2 - w^2 / c_P^2,
// s^2 = k^2 - w^2 / c_S^2; at y = d the normal displacement continuous, sigma_yy = -p_f = -rho_f w^2 phi_f,
// sigma_xy = 0 (the face y = -d follows by the symmetry). With rho_f = 0 it is the free plate's A0,
// (k^2 + s^2)^2 tanh(q d) = 4 k^2 q s tanh(s d). The root is followed from the free plate's as
// rho_f rises to the water's (Newton's method on the conditions' determinant).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/mesh/generate.hpp"
#include "unit/explicit_test_models.hpp"

namespace tremor::explicit_fe {
namespace TREMOR_TEST_FILE {

using Complex = std::complex<double>;
constexpr double pi = std::numbers::pi;
constexpr double c_p = 6320.0, c_s = 3130.0, rho_s = 2700.0;  // aluminium
constexpr double c_f = 1480.0, rho_f = 1000.0;                // water
constexpr double thickness = 1e-3, d = 0.5 * thickness;
constexpr double f0 = 1e6;  // the tone burst's centre: 1 MHz mm, below A1's cut-off c_S / (2 thickness), 1.57 MHz

// The determinant of the three conditions at y = d in (A, B, F).
Complex secular(Complex k, double w, double fluid_density) {
  const double mu = rho_s * c_s * c_s, lambda = rho_s * c_p * c_p - 2.0 * mu;
  const Complex i(0.0, 1.0);
  const Complex q = std::sqrt(k * k - w * w / (c_p * c_p)), s = std::sqrt(k * k - w * w / (c_s * c_s));
  const Complex k_f = std::sqrt(w * w / (c_f * c_f) - k * k);  // principal root: Re >= 0, outgoing
  const Complex m[3][3] = {
      {q * std::cosh(q * d), -i * k * std::cosh(s * d), -i * k_f},                                       // u_y
      {(-lambda * w * w / (c_p * c_p) + 2.0 * mu * q * q) * std::sinh(q * d), -2.0 * i * mu * k * s * std::sinh(s * d),
       fluid_density * w * w},                                                                             // sigma_yy
      {2.0 * i * k * q * std::cosh(q * d), (s * s + k * k) * std::cosh(s * d), 0.0}};                       // sigma_xy
  return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
         m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

// The free plate's antisymmetric Rayleigh-Lamb function (real for real k between w / c_S and the
// A0 root), written as the textbooks do: independent of the determinant above.
double rayleigh_lamb_a(double k, double w) {
  const double q = std::sqrt(k * k - w * w / (c_p * c_p)), s = std::sqrt(k * k - w * w / (c_s * c_s));
  return (k * k + s * s) * (k * k + s * s) * std::tanh(q * d) - 4.0 * k * k * q * s * std::tanh(s * d);
}

Complex newton(Complex k, double w, double fluid_density) {
  for (int iteration = 0; iteration < 100; ++iteration) {
    const double step = 1e-7 * std::abs(k);
    const Complex slope = (secular(k + step, w, fluid_density) - secular(k - step, w, fluid_density)) / (2.0 * step);
    const Complex dk = secular(k, w, fluid_density) / slope;
    k -= dk;
    if (std::abs(dk) < 1e-13 * std::abs(k)) break;
  }
  return k;
}

// The free plate's A0 wavenumber (bisection on rayleigh_lamb_a above w / c_S, where the slowest
// mode's root is the largest), then the water's density added in 40 steps; its group velocity by a
// central difference in w.
struct Roots {
  double free_k = 0.0;
  Complex leaky_k;
  double group_velocity = 0.0;  // d w / d Re k of the leaky root
};
Complex leaky_a0(double w, double& free_k);
Roots a0(double w) {
  Roots roots;
  roots.leaky_k = leaky_a0(w, roots.free_k);
  double unused = 0.0;
  const double dw = 1e-4 * w;
  roots.group_velocity = 2.0 * dw / (leaky_a0(w + dw, unused) - leaky_a0(w - dw, unused)).real();
  return roots;
}
Complex leaky_a0(double w, double& free_k) {
  // Above w / c_S the function is positive for large k (flexural waves are slow) and changes sign
  // once at A0; scan down from 8 w / c_S (a phase velocity of 390 m/s) for the sign change.
  double high = 8.0 * w / c_s;
  const double low_end = w / c_s * (1.0 + 1e-9);
  double low = high;
  const double sign = rayleigh_lamb_a(high, w) > 0.0 ? 1.0 : -1.0;
  for (int k = 1; k <= 4000 && low > low_end; ++k) {
    low = high - (high - low_end) * k / 4000.0;
    if (rayleigh_lamb_a(low, w) * sign < 0.0) break;
  }
  double a = low, b = high;
  for (int iteration = 0; iteration < 200; ++iteration) {
    const double middle = 0.5 * (a + b);
    ((rayleigh_lamb_a(middle, w) * sign < 0.0) ? a : b) = middle;
  }
  free_k = 0.5 * (a + b);
  Complex k = newton(free_k, w, 0.0);  // the determinant's own root, to its precision
  for (int step = 1; step <= 40; ++step) k = newton(k, w, rho_f * step / 40.0);
  return k;
}

// The plate on [0, 35] x [-0.5, 0.5] mm between water on both sides to |y| = 10.5 mm, GLL
// quadrilaterals of order 4 of `h` (0.5 mm: 7 GLL points per wavelength in the water at 1.5 MHz,
// the tone burst's band's top, and 12 along A0); alid layers 5 mm thick at the right end and the
// water's top and bottom. A 4-cycle tone burst at f0, a vertical force on the plate's two faces at
// x = 0, on the axis of symmetry (the plate's nodes there held in x, the water's wall rigid):
// antisymmetric, so that A0 alone runs below A1's cut-off. Receivers of displacement on both faces
// at x1 = 14 and x2 = 22 mm, where A0 has passed before the water's wave from the source arrives
// (at x / c_f; A0 by x / c_g + 4 / f0), 8 mm apart: 11.8 dB of leakage.
constexpr double x1 = 14e-3, x2 = 22e-3, length = 35e-3, height = 10.5e-3;

ExplicitRun leaky_run(double h, const std::string& backend) {
  Model model;
  model.source = "leaky lamb";
  const auto nx = static_cast<Size>(std::lround(length / h)), ny = static_cast<Size>(std::lround(2.0 * height / h));
  model.mesh = generate_rectangle({0.0, -height}, {length, 2.0 * height}, {nx, ny}, ElementType::QuadGLL, 4);
  const Mesh& mesh = model.mesh;
  for (Index e = 0; e < mesh.n_elements(); ++e)
    model.mesh.element_sets[std::abs(test::element_centre(mesh, e, 1)) < d ? "plate" : "water"].push_back(e);
  model.materials.push_back(Material::from_speeds("aluminium", c_p, c_s, rho_s));
  model.materials.push_back(Material::from_sound_speed("water", c_f, rho_f));
  model.sections.push_back({"plate", "aluminium", Formulation::PlaneStrain, 1.0});
  model.sections.push_back({"water", "water", Formulation::PlaneStrain, 1.0});
  FixedDof axis{{}, 0, 0.0, "", "axis of symmetry"};
  PointSource force;
  force.direction = {0.0, 1.0, 0.0};
  force.amplitude = 1e3;
  force.signal = Signal::tone_burst(f0, 4);
  force.origin = "force";
  Receiver faces;
  faces.name = "faces";
  faces.nodes.assign(4, -1);  // x1 top, x1 bottom, x2 top, x2 bottom
  for (Index node = 0; node < mesh.n_nodes(); ++node) {
    const auto x = mesh.node(node);
    const bool face = std::abs(std::abs(x[1]) - d) < 1e-9;
    if (x[0] < 1e-9 && std::abs(x[1]) <= d + 1e-9) axis.nodes.push_back(node);
    if (!face) continue;
    const int side = x[1] > 0.0 ? 0 : 1;
    if (x[0] < 1e-9) force.nodes.push_back(node);
    if (std::abs(x[0] - x1) < 1e-9) faces.nodes[static_cast<std::size_t>(side)] = node;
    if (std::abs(x[0] - x2) < 1e-9) faces.nodes[static_cast<std::size_t>(2 + side)] = node;
  }
  EXPECT_EQ(force.nodes.size(), 2u);
  for (const Index node : faces.nodes) EXPECT_GE(node, 0);
  model.fixed.push_back(axis);
  model.point_sources.push_back(force);
  model.receivers.push_back(faces);
  model.absorbing.push_back(test::alid_layer({BoxFace::XMax, BoxFace::YMin, BoxFace::YMax}, 5e-3));
  ExplicitSettings settings;
  settings.duration = x2 / c_f;  // the windows' end at x2 (below)
  model.explicit_settings = settings;
  model.validate();
  RunOptions options;
  options.backend = backend;
  const ExplicitRun run = run_explicit(model, options);
  EXPECT_TRUE(run.ok()) << run.message;
  return run;
}

// The antisymmetric part of the faces' vertical displacement at x (receiver points `top`, `top + 1`),
// its Fourier transform at f0 through a Hann window 8 / f0 long centred on the tone burst's centre
// as A0 carries it (x / c_g + 2 / f0) and cut at x / c_f: A0 alone. Not the wave the water carries
// along the plate from the source (at about c_f), nor the A0 below 0.45 MHz, which is slower than
// the water, leaks nothing and lingers near the source (a rectangular window over t < x / c_f let
// its sidelobes in: 1.1% on the phase velocity, 0.3% on alpha; the Hann window's width between 6
// and 10 / f0 moves alpha by 0.25%).
Complex spectrum_at_f0(const History& h, Index top, double x, double group_velocity, double dt) {
  const double centre = x / group_velocity + 2.0 / f0, width = 8.0 / f0;
  Complex sum = 0.0;
  for (std::size_t s = 0; s < h.n_samples(); ++s) {
    const double t = h.times[s], r = (t - centre) / width + 0.5;
    if (t > x / c_f) break;
    if (r <= 0.0 || r >= 1.0) continue;
    const double a = 0.5 * (h.value(s, top, Quantity::Displacement, 1) + h.value(s, top + 1, Quantity::Displacement, 1));
    sum += a * std::sin(pi * r) * std::sin(pi * r) * std::exp(Complex(0.0, -2.0 * pi * f0 * t)) * dt;
  }
  return sum;
}

struct Measured {
  double alpha = 0.0, phase_velocity = 0.0;
};

Measured measure(double h, const std::string& backend, const Roots& roots) {
  const ExplicitRun run = leaky_run(h, backend);
  const History& h_faces = run.histories.at(0);
  const Complex u1 = spectrum_at_f0(h_faces, 0, x1, roots.group_velocity, run.dt);
  const Complex u2 = spectrum_at_f0(h_faces, 2, x2, roots.group_velocity, run.dt);
  Measured m;
  m.alpha = std::log(std::abs(u1) / std::abs(u2)) / (x2 - x1);
  // The phase lost from x1 to x2, its whole turns those of the exact wavenumber (the speed is
  // then known to within half a turn in 12 mm, 4%).
  const double turns = std::round((roots.leaky_k.real() * (x2 - x1) - std::arg(u1 / u2)) / (2.0 * pi));
  m.phase_velocity = 2.0 * pi * f0 * (x2 - x1) / (std::arg(u1 / u2) + 2.0 * pi * turns);
  return m;
}

TEST(FluidLeakyLamb, TheRootIsTheFreePlatesA0LoadedByTheWater) {
  const double w = 2.0 * pi * f0;
  const Roots roots = a0(w);
  const double free_speed = w / roots.free_k;
  // The free plate's root of the textbook form is the determinant's with no fluid, and the
  // flexural wave lies between the thin plate's (Kirchhoff: sqrt(w) (D / rho h)^(1/4), too fast
  // at f d = 0.5 MHz mm) and the Rayleigh wave's (2920 m/s).
  EXPECT_LT(std::abs(secular(roots.free_k, w, 0.0)) /
                std::abs(secular(roots.free_k * 1.01, w, 0.0)), 1e-6);
  const double youngs = rho_s * c_s * c_s * (3.0 * c_p * c_p - 4.0 * c_s * c_s) / (c_p * c_p - c_s * c_s);
  const double poisson = (c_p * c_p - 2.0 * c_s * c_s) / (2.0 * (c_p * c_p - c_s * c_s));
  const double kirchhoff = std::sqrt(w) * std::pow(youngs * thickness * thickness / (12.0 * rho_s * (1.0 - poisson * poisson)), 0.25);
  EXPECT_LT(free_speed, kirchhoff);
  EXPECT_LT(free_speed, 0.93 * c_s);
  // Loaded by the water it leaks (alpha > 0) and is a little faster (its energy is shared).
  EXPECT_GT(roots.leaky_k.imag(), 0.0);
  EXPECT_GT(w / roots.leaky_k.real(), free_speed);
  EXPECT_GT(w / roots.leaky_k.real(), c_f);
  std::printf("A0 of a %.1f mm aluminium plate at %.2f MHz: free %.1f m/s (Kirchhoff %.1f); in water %.1f m/s, "
              "alpha %.2f Np/m (%.3f dB/mm)\n",
              thickness * 1e3, f0 / 1e6, free_speed, kirchhoff, w / roots.leaky_k.real(), roots.leaky_k.imag(),
              roots.leaky_k.imag() * 20.0 / std::log(10.0) / 1e3);
}

void expect_leaky_a0(double h, const std::string& backend) {
  const double w = 2.0 * pi * f0;
  const Roots roots = a0(w);
  const double alpha = roots.leaky_k.imag(), speed = w / roots.leaky_k.real();
  const Measured got = measure(h, backend, roots);
  std::printf("leaky A0, %.1f mm aluminium in water, %.2f MHz, %.2f mm GLL elements of order 4 on %s: alpha %.2f Np/m "
              "(exact %.2f, %+.2f%%), phase velocity %.1f m/s (exact %.1f, %+.2f%%)\n",
              thickness * 1e3, f0 / 1e6, h * 1e3, backend.c_str(), got.alpha, alpha, 100.0 * (got.alpha / alpha - 1.0),
              got.phase_velocity, speed, 100.0 * (got.phase_velocity / speed - 1.0));
  EXPECT_NEAR(got.alpha / alpha, 1.0, 0.05);  // the bound
  // The phase velocity to 1%: the plate's dispersion at 12 GLL points per wavelength is far below it.
  EXPECT_NEAR(got.phase_velocity / speed, 1.0, 0.01);
}

TEST(FluidLeakyLamb, A0DecaysAsTheLeakyRootSays) { expect_leaky_a0(0.5e-3, "openmp"); }

// The same at half the element size (0.25 mm: 4 times the elements, twice the steps), on a GPU.
TEST(FluidLeakyLambGpu, A0DecaysAsTheLeakyRootSaysOnAFinerMesh) {
  TREMOR_REQUIRE_GPU();
  expect_leaky_a0(0.25e-3, "cuda");
  expect_leaky_a0(0.5e-3, "cuda");
}

}  // namespace
}  // namespace tremor::explicit_fe
