// Grain microstructures through the explicit solver (docs/verification.md, "Grains: one grain
// turned, and a polycrystal's wave speed between the Voigt and Reuss bounds").
//
// One grain: a block whose every element is iron turned 45 degrees about [001] by its grain
// orientation runs as the same block given the turned stiffness in closed form (the cube in its
// <110> axes): the two runs agree to rounding.
//
// A polycrystal: a bar of random iron grains carries a plane P wave (a smooth step of
// displacement on one end, the sides on rollers) at a speed between the Voigt and Reuss averages
// of the crystal (Hill 1952): the effective stiffness of an untextured aggregate lies between the
// mean stiffness and the inverse of the mean compliance. Each bound is run as its own isotropic
// medium on the same mesh and step, so the discretisation's dispersion, the same in all three, is
// compared away; the speed is the distance between two planes over the time between the plane
// means' half-amplitude crossings.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/material_field.hpp"
#include "tremor/model/microstructure.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

constexpr double pi = std::numbers::pi;
// Iron (Pa, kg/m^3): A = 2 C44 / (C11 - C12) = 2.4, a gap of 3.5% between the bounds' P speeds.
constexpr double c11 = 231.4e9, c12 = 134.7e9, c44 = 116.4e9, rho = 7870.0;

Model block(const Mesh& mesh, Material material) {
  Model model;
  model.source = "polycrystal";
  model.mesh = mesh;
  model.materials.push_back(std::move(material));
  model.sections.push_back({"all", model.materials[0].name, Formulation::Solid, 1.0});
  return model;
}

explicit_fe::ExplicitRun run(Model& model, double duration) {
  ExplicitSettings settings;
  settings.duration = duration;
  model.explicit_settings = settings;
  model.validate();
  explicit_fe::RunOptions options;
  options.backend = "openmp";
  options.precision = "double";
  const explicit_fe::ExplicitRun result = explicit_fe::run_explicit(model, options);
  EXPECT_TRUE(result.ok()) << result.message;
  return result;
}

TEST(Grains, OneGrainTurnedIsItsRotatedStiffness) {
  const log::Quiet quiet;
  const Mesh mesh = generate_box({0.0, 0.0, 0.0}, {0.01, 0.01, 0.01}, {6, 6, 6}, ElementType::Hex8);
  const auto with_source = [&](Model model) {
    PointSource source;
    source.position = std::array<double, 3>{0.0043, 0.0051, 0.0062};
    source.direction = {0.6, 0.0, 0.8};
    source.signal = Signal::ricker(1e6);
    source.origin = "force";
    model.point_sources.push_back(source);
    Receiver receiver;
    receiver.name = "r";
    receiver.positions = {{0.0012, 0.0087, 0.0031}, {0.0091, 0.0022, 0.0078}};
    model.receivers.push_back(receiver);
    return model;
  };
  // Grained: every element's orientation phi1 = 45 degrees.
  Material crystal = Material::from_stiffness("iron", cubic_stiffness(c11, c12, c44), rho);
  auto micro = std::make_shared<Microstructure>();
  micro->origin = micro->file = "one grain";
  for (Index e = 0; e < mesh.n_elements(); ++e) {
    micro->labels.push_back(mesh.element_label(e));
    micro->orientations.push_back(bunge_orientation(pi / 4.0, 0.0, 0.0));
  }
  crystal.grains = micro;
  Model grained = with_source(block(mesh, crystal));
  // The cube in its <110> axes, in closed form.
  Voigt6 turned = cubic_stiffness(c11, c12, c44);
  turned[0] = turned[7] = 0.5 * (c11 + c12 + 2 * c44);
  turned[1] = turned[6] = 0.5 * (c11 + c12 - 2 * c44);
  turned[35] = 0.5 * (c11 - c12);
  Model given = with_source(block(mesh, Material::from_stiffness("iron", turned, rho)));
  const explicit_fe::ExplicitRun a = run(grained, 4e-6), b = run(given, 4e-6);
  const explicit_fe::History &ha = a.histories.at(0), &hb = b.histories.at(0);
  ASSERT_EQ(ha.values.size(), hb.values.size());
  double peak = 0.0;
  for (const double v : hb.values) peak = std::max(peak, std::abs(v));
  ASSERT_GT(peak, 0.0);
  // The rotated stiffness differs from the closed form by rounding (1e-16 of C11), which the run
  // carries through its steps: 1e-12 of the peak is far above it and far below any other crystal.
  EXPECT_LT(test::l2_distance(ha.values, hb.values), 1e-12 * peak * std::sqrt(static_cast<double>(ha.values.size())));
}

struct Measured {
  double speed = 0.0;  // m/s
  std::size_t grains = 0;
};

// The bar: 48 x 20 x 20 hex8 of 1 mm; a smooth step of u_x on x = 0 (its rate a Gaussian of 2 us
// full width at half maximum: wavelengths of about 12 mm and more, four grains and more), the other
// sides on rollers; the mean u_x over the planes x = 12 mm and x = 32 mm.
constexpr double h = 1e-3, near_plane = 12e-3, far_plane = 32e-3;
constexpr double sharpness = 4.0 * 0.6931471805599453 / (2e-6 * 2e-6);  // 1/s^2

Measured plane_wave(const Material& material) {
  const log::Quiet quiet;
  Mesh mesh = generate_box({0.0, 0.0, 0.0}, {48 * h, 20 * h, 20 * h}, {48, 20, 20}, ElementType::Hex8);
  for (const auto& [name, x] : {std::pair<std::string, double>{"near", near_plane}, {"far", far_plane}}) {
    std::vector<Index> plane;
    for (Index n = 0; n < mesh.n_nodes(); ++n)
      if (std::abs(mesh.node(n)[0] - x) < 1e-9) plane.push_back(n);
    mesh.node_sets[name] = plane;
  }
  Model model = block(mesh, material);
  for (const auto& [set, component] : {std::pair<const char*, int>{"ymin", 1}, {"ymax", 1}, {"zmin", 2}, {"zmax", 2}})
    model.fixed.push_back({model.mesh.node_sets.at(set), component, 0.0, "", "roller"});
  PrescribedDisplacement push;
  push.node_set = "xmin";
  push.nodes = model.mesh.node_sets.at("xmin");
  push.components = {0};
  push.factor = {1.0, 0.0, 0.0};
  push.amplitude = 1e-9;
  push.signal = Signal::gaussian(sharpness);
  push.integrated = 1;
  push.origin = "push";
  model.prescribed.push_back(push);
  for (const char* name : {"near", "far"}) {
    Receiver receiver;
    receiver.name = name;
    receiver.node_set = name;
    receiver.nodes = model.mesh.node_sets.at(name);
    model.receivers.push_back(receiver);
  }
  // The far plane's half crossing comes at about 4.5 + 5.4 us; the end's echo reaches it after 12 us.
  const explicit_fe::ExplicitRun result = run(model, 11e-6);
  const double final_value = push.amplitude * std::sqrt(pi / sharpness);
  double crossing[2] = {0.0, 0.0};
  for (std::size_t r = 0; r < 2; ++r) {
    const explicit_fe::History& history = result.histories.at(r);
    std::vector<double> mean(history.n_samples(), 0.0);
    for (std::size_t k = 0; k < history.n_samples(); ++k) {
      for (Index p = 0; p < history.n_points(); ++p)
        mean[k] += history.value(k, p, explicit_fe::Quantity::Displacement, 0);
      mean[k] /= static_cast<double>(history.n_points());
    }
    for (std::size_t k = 1; k < mean.size(); ++k)
      if (mean[k - 1] < 0.5 * final_value && mean[k] >= 0.5 * final_value) {
        const double w = (0.5 * final_value - mean[k - 1]) / (mean[k] - mean[k - 1]);
        crossing[r] = history.times[k - 1] + w * (history.times[k] - history.times[k - 1]);
        break;
      }
    EXPECT_GT(crossing[r], 0.0) << "the plane's mean never reached half the step";
  }
  Measured out;
  out.speed = (far_plane - near_plane) / (crossing[1] - crossing[0]);
  if (material.grains) out.grains = element_materials(model).rows.size() - 1;
  return out;
}

Material isotropic_of(const char* name, double bulk, double shear) {
  return Material::from_lame(name, bulk - 2.0 / 3.0 * shear, shear, rho);
}

TEST(Grains, APolycrystalsWaveSpeedLiesBetweenVoigtAndReuss) {
  const PolycrystalModuli m = polycrystal_moduli(cubic_stiffness(c11, c12, c44));
  Material iron = Material::from_stiffness("iron", cubic_stiffness(c11, c12, c44), rho);
  auto micro = std::make_shared<Microstructure>();
  micro->origin = "polycrystal";
  micro->size = 3e-3;  // about 700 grains, each some 27 elements
  micro->seed = 2026;
  iron.grains = micro;
  const Measured poly = plane_wave(iron);
  const Measured voigt = plane_wave(isotropic_of("voigt", m.bulk_voigt, m.shear_voigt));
  const Measured reuss = plane_wave(isotropic_of("reuss", m.bulk_reuss, m.shear_reuss));
  const Measured hill = plane_wave(isotropic_of("hill", m.bulk_hill(), m.shear_hill()));
  const Measured crystal = plane_wave(Material::from_stiffness("iron", cubic_stiffness(c11, c12, c44), rho));
  const auto exact = [&](double bulk, double shear) { return std::sqrt((bulk + 4.0 / 3.0 * shear) / rho); };
  std::printf("P speed (m/s), measured (exact plane wave): polycrystal of %zu grains %.1f; Voigt %.1f (%.1f), Hill "
              "%.1f (%.1f), Reuss %.1f (%.1f); one crystal along [100] %.1f (%.1f)\n",
              poly.grains, poly.speed, voigt.speed, exact(m.bulk_voigt, m.shear_voigt), hill.speed,
              exact(m.bulk_hill(), m.shear_hill()), reuss.speed, exact(m.bulk_reuss, m.shear_reuss), crystal.speed,
              std::sqrt(c11 / rho));
  EXPECT_GT(poly.grains, 500u);
  // The homogeneous runs measure their own speed to the mesh's dispersion (below 1%): a check of
  // the measurement itself.
  EXPECT_NEAR(voigt.speed, exact(m.bulk_voigt, m.shear_voigt), 0.01 * voigt.speed);
  EXPECT_NEAR(reuss.speed, exact(m.bulk_reuss, m.shear_reuss), 0.01 * reuss.speed);
  // The requirement: between the bounds, each measured on the same mesh and step.
  EXPECT_LT(poly.speed, voigt.speed);
  EXPECT_GT(poly.speed, reuss.speed);
  // Grains left in crystal axes would carry C11's speed along x, below Reuss's: the test tells a
  // polycrystal from one crystal.
  EXPECT_LT(crystal.speed, reuss.speed);
}

}  // namespace
}  // namespace tremor
