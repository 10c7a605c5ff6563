// model/absorbing: the per-element damping and stiffness profiles of absorbing layers (faces,
// corners, element sets, srm), their checks, their assembly into C and K, and the stability of
// the central-difference scheme with the added mass-proportional damping.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/explicit/central_difference.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/fem/time_step.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/model.hpp"
#include "tremor/sparse/assemble.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

constexpr double pi = std::numbers::pi;

// [0, 1] x [0, 1], 10 x 10 quad4 cells of 0.1, plane-strain steel.
Model square() {
  Model model;
  model.source = "square";
  model.mesh = generate_rectangle({0.0, 0.0}, {1.0, 1.0}, {10, 10}, ElementType::Quad4);
  model.materials.push_back(Material::from_speeds("steel", 5960.0, 3260.0, 7850.0));
  model.sections.push_back({"all", "steel", Formulation::PlaneStrain, 1.0});
  return model;
}

AbsorbingLayer layer(AbsorbingKind kind, std::vector<BoxFace> faces, double thickness, double alpha_max) {
  AbsorbingLayer l;
  l.kind = kind;
  l.faces = std::move(faces);
  l.thickness = thickness;
  l.alpha_max = alpha_max;
  l.frequency = 1e4;
  return l;
}

// Centroid of global element e of the 10 x 10 square (elements row by row, x fastest).
double centre_x(std::size_t e) { return 0.05 + 0.1 * static_cast<double>(e % 10); }
double centre_y(std::size_t e) { return 0.05 + 0.1 * static_cast<double>(e / 10); }

TEST(AbsorbingProfile, AlidOnOneFaceFollowsTheCubicLaw) {
  Model model = square();
  model.absorbing.push_back(layer(AbsorbingKind::Alid, {BoxFace::XMax}, 0.3, 1000.0));
  const AbsorbingProfile profile = absorbing_profile(model);
  ASSERT_EQ(profile.alpha.size(), 100u);
  int inside = 0;
  for (std::size_t e = 0; e < 100; ++e) {
    const double depth = centre_x(e) - 0.7;  // into the layer from its inner plane x = 0.7
    // Exact up to the rounding of centroids and pow (a few ulps): 1e-12 relative.
    if (depth > 0.0) {
      ++inside;
      const double X = depth / 0.3;
      EXPECT_NEAR(profile.depth[e], X, 1e-12);
      EXPECT_NEAR(profile.alpha[e], 1000.0 * X * X * X, 1e-9);
    } else {
      EXPECT_EQ(profile.alpha[e], 0.0);
    }
    EXPECT_EQ(profile.stiffness_factor[e], 1.0);  // alid keeps the stiffness
  }
  EXPECT_EQ(inside, 30);  // three columns of cells
}

TEST(AbsorbingProfile, CornersTakeTheDeeperFaceAndPowerIsHonoured) {
  Model model = square();
  AbsorbingLayer l = layer(AbsorbingKind::Alid, {BoxFace::XMax, BoxFace::YMin}, 0.2, 500.0);
  l.power = 2.0;
  model.absorbing.push_back(l);
  const AbsorbingProfile profile = absorbing_profile(model);
  for (std::size_t e = 0; e < 100; ++e) {
    const double d = std::max(centre_x(e) - 0.8, 0.2 - centre_y(e));
    const double expected = d > 0.0 ? 500.0 * (d / 0.2) * (d / 0.2) : 0.0;
    EXPECT_NEAR(profile.alpha[e], expected, 1e-9) << "element " << e;
  }
}

TEST(AbsorbingProfile, SrmStiffnessFallsAsDampingRises) {
  Model model = square();
  const double f0 = 1e4, alpha_max = 3.0 * 2.0 * pi * f0;
  model.absorbing.push_back(layer(AbsorbingKind::Srm, {BoxFace::XMin}, 0.4, alpha_max));
  const AbsorbingProfile profile = absorbing_profile(model);
  double previous_factor = 0.0;
  for (std::size_t e = 0; e < 10; ++e) {  // the first row, x increasing: out of the layer
    const double d = 0.4 - centre_x(e);
    const double alpha = d > 0.0 ? alpha_max * std::pow(d / 0.4, 3.0) : 0.0;
    const double ratio = alpha / (2.0 * pi * f0);
    EXPECT_NEAR(profile.alpha[e], alpha, 1e-9 * alpha_max);
    // s = 1 / |1 - i alpha / omega0|: the impedance magnitude of the undamped medium.
    EXPECT_NEAR(profile.stiffness_factor[e], 1.0 / std::sqrt(1.0 + ratio * ratio), 1e-14);
    EXPECT_GE(profile.stiffness_factor[e], previous_factor);  // rises towards the interior
    previous_factor = profile.stiffness_factor[e];
  }
  EXPECT_LT(profile.stiffness_factor[0], 0.5);  // outermost: alpha ~ 2.0 omega0, s ~ 0.45
  EXPECT_EQ(profile.stiffness_factor[9], 1.0);
}

TEST(AbsorbingProfile, ElementSetDepthIsMeasuredFromItsInnerBoundary) {
  Model model = square();
  std::vector<Index> outer;
  for (Index e = 0; e < 100; ++e)
    if (centre_x(static_cast<std::size_t>(e)) > 0.7) outer.push_back(e);
  model.mesh.element_sets["outer"] = outer;
  AbsorbingLayer l = layer(AbsorbingKind::Alid, {}, 0.3, 1000.0);
  l.element_set = "outer";
  model.absorbing.push_back(l);
  const AbsorbingProfile profile = absorbing_profile(model);
  for (std::size_t e = 0; e < 100; ++e) {
    if (centre_x(e) < 0.7) {
      EXPECT_EQ(profile.alpha[e], 0.0);
      continue;
    }
    // The nearest node of the inner boundary x = 0.7 is half a cell off in y (nodes on 0.1 steps).
    const double d = std::hypot(centre_x(e) - 0.7, 0.05);
    EXPECT_NEAR(profile.alpha[e], 1000.0 * std::pow(std::min(d / 0.3, 1.0), 3.0), 1e-9) << "element " << e;
  }

  // With faces as well, the faces give the depth and the set restricts: only y < 0.5 here.
  std::vector<Index> lower_outer;
  for (Index e : outer)
    if (centre_y(static_cast<std::size_t>(e)) < 0.5) lower_outer.push_back(e);
  model.mesh.element_sets["lower_outer"] = lower_outer;
  model.absorbing[0].element_set = "lower_outer";
  model.absorbing[0].faces = {BoxFace::XMax};
  const AbsorbingProfile restricted = absorbing_profile(model);
  for (std::size_t e = 0; e < 100; ++e) {
    const bool in = centre_x(e) > 0.7 && centre_y(e) < 0.5;
    const double X = (centre_x(e) - 0.7) / 0.3;
    EXPECT_NEAR(restricted.alpha[e], in ? 1000.0 * X * X * X : 0.0, 1e-9) << "element " << e;
  }
}

TEST(AbsorbingProfile, DefaultAlphaMaxAndDesignFrequency) {
  // (p + 1) ln(1000) f0 / 1.5: a 60 dB round trip through 1.5 wavelengths in the weak-damping limit.
  EXPECT_NEAR(default_alpha_max(3.0, 1e5), 4.0 * std::log(1000.0) * 1e5 / 1.5, 1e-9);
  Model model = square();
  AbsorbingLayer l = layer(AbsorbingKind::Alid, {BoxFace::XMax}, 0.3, 0.0);
  l.frequency = 0.0;  // from the sources
  PointSource source;
  source.nodes = {0};
  source.direction = {1.0, 0.0, 0.0};
  source.signal = Signal::tone_burst(2e4, 5.0);
  model.point_sources.push_back(source);
  model.absorbing.push_back(l);
  const double highest = source.signal.highest_frequency();  // 2e4 (1 + 3 / 5)
  EXPECT_NEAR(highest_source_frequency(model), 3.2e4, 1e-6);
  EXPECT_DOUBLE_EQ(design_frequency(model, l), highest);
  EXPECT_DOUBLE_EQ(layer_alpha_max(model, l), default_alpha_max(3.0, highest));
}

TEST(AbsorbingProfile, SurfaceLoadsSetTheDesignFrequencyToo) {
  // A model driven only by a pressure on a surface: its signal sets f0 as a point source's would,
  // and agrees with what the solver's loading reports to the pre-flight.
  Model model = square();
  SurfaceLoad load;
  load.surface = "xmin";
  load.faces = model.mesh.face_sets.at("xmin");  // generated meshes carry their side surfaces
  load.pressure = 1e6;
  load.signal = Signal::tone_burst(3e4, 4.0);
  model.surface_loads.push_back(load);
  AbsorbingLayer l = layer(AbsorbingKind::Srm, {BoxFace::XMax}, 0.3, 0.0);
  l.frequency = 0.0;
  model.absorbing.push_back(l);
  const double highest = load.signal->highest_frequency();
  EXPECT_GT(highest, 3e4);
  EXPECT_DOUBLE_EQ(highest_source_frequency(model), highest);
  EXPECT_DOUBLE_EQ(design_frequency(model, l), highest);
  EXPECT_NO_THROW(model.validate());
}

void expect_error(const Model& model, const std::string& part) {
  try {
    model.validate();
    FAIL() << "no error; expected one mentioning " << part;
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(part), std::string::npos) << error.what();
  }
}

TEST(AbsorbingProfile, BadLayersAreRefused) {
  Model model = square();
  model.absorbing.push_back(layer(AbsorbingKind::Alid, {BoxFace::ZMax}, 0.3, 1000.0));
  expect_error(model, "face 'zmax' does not exist in a 2D model");
  model.absorbing[0] = layer(AbsorbingKind::Alid, {BoxFace::XMax}, 1.5, 1000.0);
  expect_error(model, "exceeds the model's extent");
  model.absorbing[0] = layer(AbsorbingKind::Alid, {BoxFace::XMax}, 0.0, 1000.0);
  expect_error(model, "thickness is 0");
  model.absorbing[0] = layer(AbsorbingKind::Alid, {}, 0.3, 1000.0);
  expect_error(model, "give the faces");
  model.mesh.element_sets["none"] = {};
  model.absorbing[0].element_set = "none";
  expect_error(model, "element set 'none' is empty");
  model.absorbing[0] = layer(AbsorbingKind::Srm, {BoxFace::XMax}, 0.3, 1000.0);
  model.absorbing[0].frequency = 0.0;  // srm needs one, and the model has no source
  expect_error(model, "needs a design frequency");
  // The whole mesh as the set: no inner boundary to measure from.
  model.absorbing[0] = layer(AbsorbingKind::Alid, {}, 0.3, 1000.0);
  model.absorbing[0].element_set = "all";
  try {
    (void)absorbing_profile(model);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("shares no node"), std::string::npos) << error.what();
  }
}

// ------------------------------------------------------------------------------------ assembly

TEST(AbsorbingAssembly, DampingIsAlphaTimesElementMassAndAddsToTheMaterials) {
  Model model = square();
  model.materials[0].damping_alpha = 50.0;
  model.absorbing.push_back(layer(AbsorbingKind::Alid, {BoxFace::XMax, BoxFace::YMax}, 0.3, 1000.0));
  const AbsorbingProfile profile = absorbing_profile(model);
  const std::vector<double> C = sparse::assemble_lumped_damping(model, Exec::serial());
  const std::vector<double> M = sparse::assemble_lumped_mass(model, Exec::serial());
  // Each element's lumped mass sums to rho * area (thickness 1), the same for both components.
  const double element_mass = 7850.0 * 0.01;
  double expected = 0.0, total = 0.0, mass = 0.0;
  for (double a : profile.alpha) expected += 2.0 * (50.0 + a) * element_mass;
  for (double c : C) total += c;
  for (double m : M) mass += m;
  EXPECT_NEAR(total, expected, 1e-12 * expected);  // sums of ~400 terms: rounding only
  EXPECT_NEAR(mass, 2.0 * 100 * element_mass, 1e-12 * mass);  // the mass is not touched
}

TEST(AbsorbingAssembly, SrmScalesEachElementStiffness) {
  // K with an srm layer equals sum_e s_e K_e: check on u = a rigid-free field, element by element
  // through the energy u^T K u = sum_e s_e u_e^T K_e u_e of a field living in one element column.
  Model plain = square();
  Model srm = square();
  srm.absorbing.push_back(layer(AbsorbingKind::Srm, {BoxFace::XMax}, 0.3, 6.0 * pi * 1e4));
  const AbsorbingProfile profile = absorbing_profile(srm);
  const sparse::CsrMatrix K0 = sparse::assemble_stiffness(plain, Exec::serial());
  const sparse::CsrMatrix K1 = sparse::assemble_stiffness(srm, Exec::serial());
  ASSERT_EQ(K0.values.size(), K1.values.size());
  // The row of a node at x = 1 (interior of the last element column) only sees elements with
  // centroid x = 0.95: its entries scale by that column's factor, exactly up to rounding.
  const Index node = 5 * 11 + 10;  // (1.0, 0.5)
  const double s = profile.stiffness_factor[5 * 10 + 9];
  EXPECT_LT(s, 0.6);
  for (Size k = K0.offsets[static_cast<std::size_t>(2 * node)]; k < K0.offsets[static_cast<std::size_t>(2 * node) + 1]; ++k)
    EXPECT_NEAR(K1.values[static_cast<std::size_t>(k)], s * K0.values[static_cast<std::size_t>(k)],
                1e-12 * std::abs(K0.values[static_cast<std::size_t>(k)]) + 1e-3);
  // Rows of nodes left of the layer (x <= 0.6) are untouched: bit for bit.
  const Index left = 5 * 11 + 3;
  for (Size k = K0.offsets[static_cast<std::size_t>(2 * left)]; k < K0.offsets[static_cast<std::size_t>(2 * left) + 2]; ++k)
    EXPECT_EQ(K1.values[static_cast<std::size_t>(k)], K0.values[static_cast<std::size_t>(k)]);
}

// ----------------------------------------------------------------------------------- stability

// Largest omega^2 of M^-1 K (power iteration on the symmetric M^-1/2 K M^-1/2).
double largest_omega_squared(const Model& model) {
  const sparse::CsrMatrix K = sparse::assemble_stiffness(model, Exec::serial());
  const std::vector<double> M = sparse::assemble_lumped_mass(model, Exec::serial());
  const std::size_t n = M.size();
  std::vector<double> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = 1.0 + 0.1 * std::sin(1.7 * static_cast<double>(i));
  double lambda = 0.0;
  for (int it = 0; it < 20000; ++it) {
    double norm = 0.0;
    for (double v : x) norm += v * v;
    norm = std::sqrt(norm);
    for (double& v : x) v /= norm;
    for (std::size_t r = 0; r < n; ++r) {
      double sum = 0.0;
      for (Size k = K.offsets[r]; k < K.offsets[r + 1]; ++k) {
        const auto c = static_cast<std::size_t>(K.columns[static_cast<std::size_t>(k)]);
        sum += K.values[static_cast<std::size_t>(k)] * x[c] / std::sqrt(M[c]);
      }
      y[r] = sum / std::sqrt(M[r]);
    }
    lambda = 0.0;
    for (std::size_t i = 0; i < n; ++i) lambda += x[i] * y[i];
    x = y;
  }
  return lambda;
}

// Largest |u| over `steps` steps of the scheme at time step dt from a rough initial field.
double run_amplitude(const Model& model, double dt, int steps) {
  const auto K = explicit_fe::make_stiffness_operator<double>(model, "assembled", Exec::serial());
  const std::vector<double> M = sparse::assemble_lumped_mass(model, Exec::serial());
  const std::vector<double> C = sparse::assemble_lumped_damping(model, Exec::serial());
  explicit_fe::CentralDifference<double> scheme(Exec::serial(), *K, M, C, dt, {});
  std::vector<double> u0(M.size()), v0(M.size(), 0.0);
  for (std::size_t i = 0; i < u0.size(); ++i) u0[i] = (i % 2 ? 1.0 : -1.0) * (1.0 + 0.3 * std::sin(static_cast<double>(i)));
  scheme.set_initial_conditions(u0, v0);
  double largest = 0.0;
  for (int s = 0; s < steps; ++s) {
    scheme.step({}, {});
    const View<const double> u = scheme.displacement();
    for (Index i = 0; i < u.size; ++i) largest = std::max(largest, std::abs(u[i]));
  }
  return largest;
}

// The update's deceleration (CentralDifference::advance) is -(U_next - 2 U_curr + U_prev) / dt^2,
// undamped and in an absorbing layer (damped), under a load, from a rough field: to 1e-9 of its
// largest entry (the test's second difference of levels of order 1 rounds by about 1e-16 / dt^2,
// far below that for a field that moves by more than 1e-7 of itself a step, as this rough one does
// at half the stable step). A held DOF's entry is not touched.
TEST(AbsorbingStability, TheUpdatesDecelerationIsTheSecondDifference) {
  for (const bool damped : {false, true}) {
    SCOPED_TRACE(damped ? "damped" : "undamped");
    Model model = square();
    if (damped) model.absorbing.push_back(layer(AbsorbingKind::Alid, {BoxFace::XMin}, 0.6, 2e3));
    const double dt = 0.5 * 2.0 / std::sqrt(largest_omega_squared(model));
    const auto K = explicit_fe::make_stiffness_operator<double>(model, "assembled", Exec::serial());
    const std::vector<double> M = sparse::assemble_lumped_mass(model, Exec::serial());
    const std::vector<double> C = damped ? sparse::assemble_lumped_damping(model, Exec::serial()) : std::vector<double>{};
    const std::vector<Index> held = {0, 1};
    explicit_fe::CentralDifference<double> scheme(Exec::serial(), *K, M, C, dt, held);
    std::vector<double> u0(M.size()), v0(M.size());
    for (std::size_t i = 0; i < u0.size(); ++i) {
      u0[i] = i < 2 ? 0.0 : std::sin(0.37 * static_cast<double>(i));
      v0[i] = i < 2 ? 0.0 : 1e3 * std::cos(0.11 * static_cast<double>(i));
    }
    scheme.set_initial_conditions(u0, v0);
    const std::vector<Index> loaded = {7};
    const std::vector<double> load = {2.5e5};
    std::vector<double> deceleration(M.size(), 7.0);
    for (int s = 0; s < 5; ++s) {
      const std::vector<double> before(scheme.previous_displacement().data,
                                       scheme.previous_displacement().data + M.size());
      const std::vector<double> now(scheme.displacement().data, scheme.displacement().data + M.size());
      scheme.apply_stiffness();
      scheme.advance({loaded.data(), 1}, {load.data(), 1}, {}, {},
                     {deceleration.data(), static_cast<Index>(deceleration.size())});
      const View<const double> next = scheme.displacement();
      double largest = 0.0;
      for (std::size_t i = 2; i < M.size(); ++i) largest = std::max(largest, std::abs(deceleration[i]));
      ASSERT_GT(largest, 0.0);
      for (std::size_t i = 2; i < M.size(); ++i)
        EXPECT_NEAR(deceleration[i], -(next[static_cast<Index>(i)] - 2.0 * now[i] + before[i]) / (dt * dt),
                    1e-9 * largest) << i;
      EXPECT_EQ(deceleration[0], 7.0);
      EXPECT_EQ(deceleration[1], 7.0);
    }
  }
}

TEST(AbsorbingStability, MassProportionalDampingKeepsTheUndampedLimit) {
  // Eq. (4) with C = alpha M centred: for a mode omega, (1 + a) z^2 - (2 - w^2) z + (1 - a) = 0
  // with a = alpha dt / 2, w = omega dt. The roots stay in |z| <= 1 iff w < 2 for every a >= 0
  // (P(-1) = 4 - w^2 > 0, |1 - a| < 1 + a): damping neither lowers nor raises the limit
  // dt < 2 / omega_max. A layer covering every element with alpha ~ alpha_max (p -> 0) checks it.
  Model base = square();
  base.mesh = generate_rectangle({0.0, 0.0}, {1.0, 1.0}, {4, 4}, ElementType::Quad4);
  const double omega = std::sqrt(largest_omega_squared(base));
  const double limit = 2.0 / omega;
  // The element estimate the solver uses is a bound from below of the true limit.
  EXPECT_LE(fem::stable_time_step(base).dt, limit * (1.0 + 1e-9));
  for (double alpha_ratio : {0.0, 1.0, 1000.0}) {
    Model model = base;
    if (alpha_ratio > 0.0) {
      AbsorbingLayer l = layer(AbsorbingKind::Alid, {BoxFace::XMin}, 1.0, alpha_ratio * omega);
      l.power = 1e-9;  // X^p = 1 to 1e-8 for every centroid: uniform damping
      model.absorbing.push_back(l);
    }
    SCOPED_TRACE(alpha_ratio);
    // 0.99 of the limit: bounded. Undamped leapfrog near the limit amplifies the top mode's
    // displacement by up to 1 / sqrt(1 - (w/2)^2) ~ 7 over its initial value; 20 leaves room.
    EXPECT_LT(run_amplitude(model, 0.99 * limit, 2000), 20.0 * 1.3);
    // 1.02 of the limit: a root below -1, |z| ~ 1 + 0.16 / (2 + 2 a) per step: for a <= ~1
    // that is > 1e30 growth in 2000 steps. (Very heavy damping, a ~ 1e3, makes the growth too
    // slow to see in a short run, but it is still there: P(-1) < 0.)
    if (alpha_ratio <= 1.0) {
      EXPECT_GT(run_amplitude(model, 1.02 * limit, 2000), 1e6);
    }
  }
  // An srm layer only lowers the stiffness: the element estimate (from the unscaled material)
  // stays below the true limit, which rises.
  Model srm = base;
  srm.absorbing.push_back(layer(AbsorbingKind::Srm, {BoxFace::XMin}, 1.0, 6.0 * pi * 1e4));
  EXPECT_GE(2.0 / std::sqrt(largest_omega_squared(srm)), limit * (1.0 - 1e-9));
  EXPECT_LE(fem::stable_time_step(srm).dt, limit * (1.0 + 1e-9));
}

}  // namespace
}  // namespace tremor
