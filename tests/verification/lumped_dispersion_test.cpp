// Plane waves through lumped-mass elements of each family at the same node spacing
// (docs/elements.md, "Lumped mass and wave speed"): P and S waves down a column whose other
// displacement components are held everywhere, driven by a Ricker displacement at x = 0 and
// recorded at two distances; the phase velocity from the two records' spectra U1, U2 at f,
// Delta x apart, c(f) = 2 pi f Delta x / arg(U1 / U2), against the material's.
//
// The linear elements and GLL elements of order 2 (hex27's nodes, `--order 2`) keep a plane wave
// plane and disperse as their node spacing says. The quadratic elements with HRZ lumping (hex20,
// tet10, quad8) do not: their lumped masses are not in proportion to their consistent nodal loads
// (a corner's is negative), so that a motion uniform across the column is not a solution of the
// lumped system; their nodes across the section part ways, and the phase velocity measured at the
// column's centre is off by several percent whatever the spacing along the wave. The pre-flight
// warns of it (solver.cpp, warn_quadratic_lumping); the test keeps the warning's reason true.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <vector>

#include "plane_wave_column.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

constexpr double c_p = 2000.0, c_s = 1000.0, rho = 2000.0;  // m/s, kg/m^3
constexpr double f0 = 10.0;                                  // Hz, the S wave's Ricker peak (P: 20 Hz)
constexpr double length = 800.0, width = 20.0;               // m
constexpr double x1 = 200.0, x2 = 600.0;                     // m, the receivers

struct Column {
  ElementType type;
  int order;
  int along;   // elements along x
  int across;  // elements across, in y (and z)
  int dim = 3;  // 2: a plane-strain strip
};

// The column of `mesh` elements, its wave along x with displacement in `component` (0: P, 1: S).
Model column(const Column& mesh, int component) {
  Model model;
  model.source = "column";
  const int dim = mesh.dim;
  model.mesh = dim == 3 ? generate_box({0.0, 0.0, 0.0}, {length, width, width},
                                       {mesh.along, mesh.across, mesh.across}, mesh.type, mesh.order)
                        : generate_rectangle({0.0, 0.0}, {length, width}, {mesh.along, mesh.across}, mesh.type,
                                             mesh.order);
  model.materials.push_back(Material::from_speeds("rock", c_p, c_s, rho));
  model.sections.push_back({"all", "rock", dim == 3 ? Formulation::Solid : Formulation::PlaneStrain, 1.0});
  test::drive_plane_wave(model, component, component == 0 ? 2.0 * f0 : f0, x1, x2, {0.5 * width, 0.5 * width});
  ExplicitSettings settings;
  // S: the pulse passes x2 by ~0.85 s, the far end's reflection reaches it at 1.0 s; P: 0.42 s and 0.51 s.
  settings.duration = component == 0 ? 0.5 : 1.0;
  model.explicit_settings = settings;
  model.validate();
  return model;
}

// The phase velocity's relative error at the S wave's 1 and 1.6 f0 (P: twice them, the same
// wavelengths), the larger in magnitude.
double worst_speed_error(const Column& mesh, int component) {
  const log::Quiet quiet;
  const Model model = column(mesh, component);
  explicit_fe::RunOptions options;
  options.backend = "openmp";
  const explicit_fe::ExplicitRun run = explicit_fe::run_explicit(model, options);
  EXPECT_TRUE(run.ok()) << run.message;
  if (!run.ok()) return NAN;
  const std::vector<std::vector<double>> records = test::receiver_records(run, component, mesh.dim);
  const double speed = component == 0 ? c_p : c_s;
  double worst = 0.0;
  for (const double f_s : {f0, 1.6 * f0}) {
    const double f = (component == 0 ? 2.0 : 1.0) * f_s;
    const std::complex<double> ratio = test::spectrum(records[0], run.dt, f) / test::spectrum(records[1], run.dt, f);
    const double error = test::phase_velocity(ratio, f, x2 - x1, speed) / speed - 1.0;
    std::printf("%-8s %3d x %d%s  %s wave at %4.1f Hz: c %+.2e\n", element_name(mesh.type, mesh.order).c_str(),
                mesh.along, mesh.across, mesh.dim == 3 ? str(" x ", mesh.across).c_str() : "",
                component == 0 ? "P" : "S", f, error);
    if (std::abs(error) > std::abs(worst)) worst = error;
  }
  return worst;
}

// Node spacing 2.5 m along x in each (16 nodes per wavelength of the P wave's 32 Hz and the S
// wave's 16 Hz): the linear elements of 2.5 m, the quadratic ones and GLL order 2 of 5 m; in 3D
// (hex, tet) or plane strain (quad, tri).
void expect_families(int dim) {
  const bool solid = dim == 3;
  for (const int component : {0, 1}) {
    SCOPED_TRACE(component == 0 ? "P" : "S");
    // The lumped linear elements' spatial dispersion, (k h)^2 / 24 at 16 nodes per wavelength:
    // 0.64%, the central difference's lead taking some back (measured: 0.21% hex8, 0.24% tet4).
    for (const ElementType linear : solid ? std::vector{ElementType::Hex8, ElementType::Tet4}
                                          : std::vector{ElementType::Quad4, ElementType::Tri3})
      EXPECT_LT(std::abs(worst_speed_error({linear, 1, 320, 1, dim}, component)), 0.0064);
    // GLL order 2 with its nodal quadrature disperses far less (Seriani and Oliveira 2008); 0.3%
    // allows the time step's (omega dt)^2 / 24, about 0.06% at 32 Hz, and the spectra's leakage
    // from the records' ends (measured: 0.14%).
    const ElementType gll = solid ? ElementType::HexGLL : ElementType::QuadGLL;
    EXPECT_LT(std::abs(worst_speed_error({gll, 2, 160, 1, dim}, component)), 0.003);
    // The quadratic elements with HRZ lumping at the same spacing, one element across and two.
    // Measured: hex20 2.4% to 11.6% (P and S), tet10 3.1% to 5.3% (P; S 0.6% to 2.0%), quad8 2.6% to
    // 4.6% (P; S 0.3% to 0.7%): more than 1.5% in each case the pre-flight's warning names. tri6
    // 1.6% and 0.4% (P; S 0.1%), shrinking across: within 2%, not warned of.
    for (const int across : {1, 2}) {
      SCOPED_TRACE(str(across, " across"));
      const ElementType brick = solid ? ElementType::Hex20 : ElementType::Quad8;
      const ElementType simplex_type = solid ? ElementType::Tet10 : ElementType::Tri6;
      const double serendipity = worst_speed_error({brick, 1, 160, across, dim}, component);
      const double simplex = worst_speed_error({simplex_type, 1, 160, across, dim}, component);
      if (solid || component == 0) {
        EXPECT_GT(std::abs(serendipity), 0.015);
      }
      if (solid && component == 0) {
        EXPECT_GT(std::abs(simplex), 0.015);
      }
      if (!solid) {
        EXPECT_LT(std::abs(simplex), 0.02);
      }
    }
  }
}

TEST(LumpedDispersion, PlaneWavesOnLinearAndGllElementsKeepTheirSpeedAndOnHex20AndTet10DoNot) { expect_families(3); }
TEST(LumpedDispersion, PlaneStrainOnLinearAndGllElementsKeepTheirSpeedAndOnQuad8DoesNot) { expect_families(2); }

}  // namespace
}  // namespace tremor
