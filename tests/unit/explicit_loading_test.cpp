// Loads and constraints of the explicit solver (explicit/loading.hpp): point-source forces at the
// right DOFs, *CLOAD with and without an amplitude, body forces (gravity), held and prescribed
// DOFs and their precedence.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/backend/memory.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/loading.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::Loading;

Model steel_block(Size cells = 4, double side = 0.01) {
  Model model;
  model.source = "block";
  model.mesh = generate_rectangle({0.0, 0.0}, {side, side}, {cells, cells}, ElementType::Quad4);
  model.materials.push_back(Material::from_youngs("steel", 210e9, 0.3, 7850.0));
  model.sections.push_back({"all", "steel", Formulation::PlaneStrain, 1.0});
  return model;
}

PointSource source_at(std::vector<Index> nodes, std::array<double, 3> direction, double amplitude, Signal signal,
                      double delay) {
  PointSource source;
  source.nodes = std::move(nodes);
  source.direction = direction;
  source.amplitude = amplitude;
  source.signal = std::move(signal);
  source.delay = delay;
  source.origin = "test source";
  return source;
}

TEST(ExplicitLoading, PointSourceForceIsAmplitudeTimesDirectionTimesDelayedSignal) {
  Model model = steel_block();
  const Signal ricker = Signal::ricker(1e6);
  model.point_sources.push_back(source_at({7, 12}, {0.6, 0.8, 0.0}, 3.0, ricker, 0.5e-6));
  model.validate();
  const Loading loading(model);
  EXPECT_EQ(loading.loaded_dofs(), (std::vector<Index>{14, 15, 24, 25}));
  EXPECT_TRUE(loading.held_dofs().empty());
  EXPECT_TRUE(loading.prescribed_dofs().empty());
  EXPECT_DOUBLE_EQ(loading.highest_frequency(), ricker.highest_frequency());
  std::vector<double> f(4);
  for (double t : {0.0, 0.7e-6, 2.0e-6, 2.3e-6, 5e-6}) {
    loading.forces(t, f);
    const double s = ricker.value(t - 0.5e-6);
    EXPECT_DOUBLE_EQ(f[0], 3.0 * 0.6 * s);
    EXPECT_DOUBLE_EQ(f[1], 3.0 * 0.8 * s);
    EXPECT_DOUBLE_EQ(f[2], 3.0 * 0.6 * s);
    EXPECT_DOUBLE_EQ(f[3], 3.0 * 0.8 * s);
  }
  // The forces on the device: one value per loaded DOF, at the DOFs Loading lists.
  explicit_fe::DeviceLoading<double> force(Exec::serial(), loading, 0.5e-6);
  force.update(4);  // t = 4 x 0.5 us, exactly 2 us (a power-of-two multiple)
  const View<const double> F = force.loads();
  const View<const Index> dofs = force.loaded_dofs();
  ASSERT_EQ(F.size, 4);
  ASSERT_EQ(dofs.size, 4);
  for (Index k = 0; k < F.size; ++k) {
    EXPECT_EQ(dofs[k], loading.loaded_dofs()[static_cast<std::size_t>(k)]);
    EXPECT_DOUBLE_EQ(F[k], (dofs[k] % 2 ? 2.4 : 1.8) * ricker.value(1.5e-6)) << "DOF " << dofs[k];
  }
}

// DeviceLoading against Loading at every step of a run across several table refills (chunk 3):
// forces at step dt, prescribed values at (step + 1) dt, on the DOFs Loading lists.
template <class Real>
void check_device_loading(const Exec& exec, double tolerance) {
  Model model = steel_block();
  model.amplitudes.push_back({"ramp", {{0.0, 0.0}, {1e-6, 1.0}}});
  model.point_sources.push_back(source_at({7, 12}, {0.6, 0.8, 0.0}, 3.0, Signal::ricker(1e6), 0.5e-6));
  model.loads.push_back({{12}, 1, 1.5, "ramp", "cload on a source node"});  // two terms on one DOF
  model.fixed.push_back({{1}, 0, 1e-6, "ramp", "move x"});
  model.fixed.push_back({{2}, 1, 2e-6, "", "constant y"});
  model.validate();
  const Loading loading(model);
  const double dt = 0.13e-6;
  explicit_fe::DeviceLoading<Real> device(exec, loading, dt, 3);
  std::vector<double> f(loading.loaded_dofs().size()), u(loading.prescribed_dofs().size());
  const auto to_host = [&](View<const Real> view) {
    std::vector<Real> out(static_cast<std::size_t>(view.size));
    memory::copy(exec, out.data(), MemorySpace::Host, view.data, exec.space(), sizeof(Real) * out.size());
    return out;
  };
  for (long long step = 0; step < 11; ++step) {
    device.update(step);
    loading.forces(static_cast<double>(step) * dt, f);
    loading.prescribed(static_cast<double>(step + 1) * dt, u);
    const std::vector<Real> F = to_host(device.loads()), U = to_host(device.prescribed_values());
    ASSERT_EQ(F.size(), f.size());
    for (std::size_t k = 0; k < f.size(); ++k)
      EXPECT_NEAR(F[k], static_cast<Real>(f[k]), tolerance * std::abs(f[k])) << "step " << step << " slot " << k;
    for (std::size_t k = 0; k < u.size(); ++k)
      EXPECT_NEAR(U[k], static_cast<Real>(u[k]), tolerance * std::abs(u[k])) << "step " << step << " slot " << k;
  }
}

// Host backends: the same sums in the same order, so the same bits.
TEST(ExplicitLoading, DeviceLoadingEqualsLoadingOnTheHost) {
  check_device_loading<double>(Exec::serial(), 0.0);
  check_device_loading<float>(Exec::openmp(), 0.0);
}

// The GPU may contract weight * value + sum into one FMA: a few units in the last place.
TEST(ExplicitLoadingGpu, DeviceLoadingEqualsLoadingOnTheGpu) {
  TREMOR_REQUIRE_GPU();
  check_device_loading<double>(Exec::cuda(), 1e-14);
  check_device_loading<float>(Exec::cuda(), 1e-6);
}

TEST(ExplicitLoading, CloadWithAndWithoutAmplitude) {
  Model model = steel_block();
  model.amplitudes.push_back({"ramp", {{0.0, 0.0}, {1e-6, 1.0}}});
  model.loads.push_back({{3}, 1, -5.0, "", "cload 1"});
  model.loads.push_back({{3, 4}, 0, 2.0, "ramp", "cload 2"});
  model.loads.push_back({{3}, 1, 1.0, "ramp", "cload 3"});  // adds to cload 1 on DOF 7
  model.validate();
  const Loading loading(model);
  EXPECT_EQ(loading.loaded_dofs(), (std::vector<Index>{6, 7, 8}));
  EXPECT_EQ(loading.n_functions(), 2u);  // the constant and one per amplitude name
  std::vector<double> f(3);
  loading.forces(0.25e-6, f);
  EXPECT_DOUBLE_EQ(f[0], 2.0 * 0.25);
  EXPECT_DOUBLE_EQ(f[1], -5.0 + 0.25);
  EXPECT_DOUBLE_EQ(f[2], 2.0 * 0.25);
  loading.forces(3e-6, f);  // after the last point the amplitude holds its last value
  EXPECT_DOUBLE_EQ(f[1], -4.0);
}

TEST(ExplicitLoading, MissingAmplitudeNamesTheLoad) {
  Model model = steel_block();
  model.loads.push_back({{3}, 1, 1.0, "nowhere", "loads.inp:12"});
  try {
    const Loading loading(model);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("loads.inp:12: amplitude 'nowhere'"), std::string::npos) << error.what();
  }
}

TEST(ExplicitLoading, ConstraintsWinOverLoadsAndPrescriptionsOverHolds) {
  Model model = steel_block();
  model.amplitudes.push_back({"ramp", {{0.0, 0.0}, {1e-6, 1.0}}});
  model.fixed.push_back({{0, 1}, 0, 0.0, "", "hold x"});       // DOFs 0, 2 held
  model.fixed.push_back({{1}, 0, 1e-6, "ramp", "move x"});     // DOF 2 prescribed instead
  model.fixed.push_back({{2}, 1, 2e-6, "", "constant y"});     // DOF 5 prescribed, constant
  model.loads.push_back({{0, 1, 2}, 0, 7.0, "", "load x"});     // only DOF 4 stays loaded
  model.validate();
  const Loading loading(model);
  EXPECT_EQ(loading.held_dofs(), (std::vector<Index>{0}));
  EXPECT_EQ(loading.prescribed_dofs(), (std::vector<Index>{2, 5}));
  EXPECT_EQ(loading.loaded_dofs(), (std::vector<Index>{4}));
  EXPECT_EQ(loading.constrained_dofs(), (std::vector<Index>{0, 2, 5}));
  std::vector<double> u(2);
  loading.prescribed(0.5e-6, u);
  EXPECT_DOUBLE_EQ(u[0], 0.5e-6);
  EXPECT_DOUBLE_EQ(u[1], 2e-6);
}

TEST(ExplicitLoading, TwoPrescriptionsOfOneDofWarnAndTheLaterApplies) {
  Model model = steel_block();
  model.fixed.push_back({{1}, 0, 1e-6, "", "first"});
  model.fixed.push_back({{1}, 0, 3e-6, "", "second"});
  const log::Quiet quiet;
  const Loading loading(model);
  const auto warnings = log::take_warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("second: prescribes degrees of freedom that first prescribed"), std::string::npos);
  std::vector<double> u(1);
  loading.prescribed(0.0, u);
  EXPECT_DOUBLE_EQ(u[0], 3e-6);
}

// Nodes on the left edge (x = 0) of the generated block.
std::vector<Index> left_edge(const Model& model) { return model.mesh.node_sets.at("xmin"); }

TEST(ExplicitLoading, HeldDofStaysZeroUnderLoadInARun) {
  Model model = steel_block(6);
  const std::vector<Index> edge = left_edge(model);
  model.fixed.push_back({edge, 0, 0.0, "", "hold ux"});
  PointSource source = source_at(edge, {0.6, 0.8, 0.0}, 1e3, Signal::ricker(2e6), 0.0);
  model.point_sources.push_back(source);
  Receiver receiver;
  receiver.name = "edge";
  receiver.nodes = edge;
  model.receivers.push_back(receiver);
  ExplicitSettings settings;
  settings.duration = 2e-6;
  model.explicit_settings = settings;
  model.validate();
  const auto run = explicit_fe::run_explicit(model);
  ASSERT_TRUE(run.ok()) << run.message;
  const explicit_fe::History& history = run.histories.at(0);
  ASSERT_EQ(history.n_samples(), static_cast<std::size_t>(run.steps + 1));
  double largest_uy = 0.0;
  for (std::size_t s = 0; s < history.n_samples(); ++s)
    for (Index p = 0; p < history.n_points(); ++p) {
      EXPECT_EQ(history.value(s, p, explicit_fe::Quantity::Displacement, 0), 0.0);
      largest_uy = std::max(largest_uy, std::abs(history.value(s, p, explicit_fe::Quantity::Displacement, 1)));
    }
  EXPECT_GT(largest_uy, 0.0);  // the free component moves
}

TEST(ExplicitLoading, PrescribedDisplacementFollowsItsSignalExactly) {
  Model model = steel_block(6);
  const std::vector<Index> edge = left_edge(model);
  PrescribedDisplacement motion;
  motion.nodes = edge;
  motion.components = {1};
  motion.factor = {0.0, 1.0, 0.0};
  motion.amplitude = 1e-7;
  motion.signal = Signal::tone_burst(2e6, 3.0);
  motion.delay = 0.1e-6;
  motion.origin = "test motion";
  model.prescribed.push_back(motion);
  Receiver receiver;
  receiver.name = "edge";
  receiver.nodes = edge;
  receiver.velocity = true;
  model.receivers.push_back(receiver);
  ExplicitSettings settings;
  settings.duration = 2e-6;
  model.explicit_settings = settings;
  model.validate();
  const auto run = explicit_fe::run_explicit(model);
  ASSERT_TRUE(run.ok()) << run.message;
  const explicit_fe::History& history = run.histories.at(0);
  ASSERT_EQ(history.n_samples(), static_cast<std::size_t>(run.steps));  // the last step has no velocity
  const double dt = run.dt;
  for (std::size_t s = 0; s < history.n_samples(); ++s) {
    const double t = history.times[s];
    EXPECT_DOUBLE_EQ(t, static_cast<double>(s) * dt);
    const double expected = 1e-7 * motion.signal.value(t - 0.1e-6);
    const double velocity =
        1e-7 * (motion.signal.value(t + dt - 0.1e-6) - motion.signal.value(t - dt - 0.1e-6)) / (2.0 * dt);
    for (Index p = 0; p < history.n_points(); ++p) {
      EXPECT_EQ(history.value(s, p, explicit_fe::Quantity::Displacement, 1), expected) << "t = " << t;
      EXPECT_NEAR(history.value(s, p, explicit_fe::Quantity::Velocity, 1), velocity, 1e-12 * 1e-7 / dt);
    }
  }
}

BodyForce body_force(const Model& model, std::array<double, 3> acceleration, std::array<double, 3> force_per_volume,
                     std::string amplitude) {
  BodyForce force;
  force.elements.resize(static_cast<std::size_t>(model.mesh.n_elements()));
  for (std::size_t e = 0; e < force.elements.size(); ++e) force.elements[e] = static_cast<Index>(e);
  force.acceleration = acceleration;
  force.force_per_volume = force_per_volume;
  force.amplitude = std::move(amplitude);
  force.origin = "test body force";
  return force;
}

TEST(ExplicitLoading, BodyForcesAreConstantOrFollowTheirAmplitude) {
  Model model = steel_block();  // 10 x 10 mm, plane strain, thickness 1 m: 0.785 kg
  model.amplitudes.push_back({"ramp", {{0.0, 0.0}, {1e-6, 1.0}}});
  model.body_forces.push_back(body_force(model, {0.0, -9.81, 0.0}, {0.0, 0.0, 0.0}, ""));
  model.body_forces.push_back(body_force(model, {0.0, 0.0, 0.0}, {2e4, 0.0, 0.0}, "ramp"));
  model.validate();
  const Loading loading(model);
  EXPECT_EQ(loading.loaded_dofs().size(), static_cast<std::size_t>(2 * model.mesh.n_nodes()));
  EXPECT_EQ(loading.n_functions(), 2u);  // the constant and the ramp
  EXPECT_DOUBLE_EQ(loading.highest_frequency(), 0.5 / 1e-6);  // the ramp's sampling
  std::vector<double> f(loading.loaded_dofs().size());
  const double mass = 7850.0 * 1e-4;
  for (double t : {0.0, 0.25e-6, 1e-6, 5e-6}) {
    loading.forces(t, f);
    double fx = 0.0, fy = 0.0;
    for (std::size_t k = 0; k < f.size(); ++k) (loading.loaded_dofs()[k] % 2 ? fy : fx) += f[k];
    // Rounding only, over 50 terms.
    EXPECT_NEAR(fy, -mass * 9.81, 1e-14 * mass * 9.81 * 50) << t;
    EXPECT_NEAR(fx, 2e4 * 1e-4 * std::min(t / 1e-6, 1.0), 1e-14 * 2.0 * 50) << t;
  }
  // A held DOF takes no body force.
  Model held = model;
  held.fixed.push_back({held.mesh.node_sets.at("ymin"), 1, 0.0, "", "bottom"});
  const Loading on_rollers(held);
  for (Index dof : on_rollers.loaded_dofs())
    EXPECT_FALSE(dof % 2 == 1 && std::binary_search(held.mesh.node_sets.at("ymin").begin(),
                                                    held.mesh.node_sets.at("ymin").end(), dof / 2))
        << dof;
  EXPECT_EQ(on_rollers.loaded_dofs().size(), loading.loaded_dofs().size() - 5);
  // An undefined amplitude names the force.
  Model broken = model;
  broken.body_forces[1].amplitude = "gone";
  try {
    const Loading loading_broken(broken);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("test body force: amplitude 'gone'"), std::string::npos) << error.what();
  }
}

// Free fall: with row-sum lumping (linear elements) each node's force over its mass is g exactly
// and K annihilates a uniform displacement, so from rest every node follows the central
// difference's constant-acceleration solution u_n = g dt^2 n (n + 1) / 2 (u_1 = dt^2 g: the load
// acts from step 0).
TEST(ExplicitLoading, GravityAcceleratesAFreeBodyUniformly) {
  for (ElementType type : {ElementType::Quad4, ElementType::Tri3}) {
    Model model = steel_block(6);
    model.mesh = generate_rectangle({0.0, 0.0}, {0.01, 0.01}, {6, 6}, type);
    const std::array<double, 3> g{3.0, -9.81, 0.0};
    model.body_forces.push_back(body_force(model, g, {0.0, 0.0, 0.0}, ""));
    Receiver receiver;
    receiver.name = "all";
    for (Index n = 0; n < model.mesh.n_nodes(); ++n) receiver.nodes.push_back(n);
    model.receivers.push_back(receiver);
    ExplicitSettings settings;
    settings.duration = 1e-5;
    model.explicit_settings = settings;
    model.validate();
    const auto run = explicit_fe::run_explicit(model);
    ASSERT_TRUE(run.ok()) << run.message;
    ASSERT_GT(run.steps, 20);
    const explicit_fe::History& history = run.histories.at(0);
    ASSERT_EQ(history.n_samples(), static_cast<std::size_t>(run.steps + 1));
    const double dt = run.dt;
    for (std::size_t s = 0; s < history.n_samples(); ++s) {
      const double n = static_cast<double>(s);
      for (int c = 0; c < 2; ++c) {
        const double expected = g[static_cast<std::size_t>(c)] * dt * dt * n * (n + 1.0) / 2.0;
        // Rounding: K u of a uniform u cancels to ~1e-16 |K| |u|, far below m g; 1e-9 leaves room
        // for its accumulation over the steps.
        for (Index p = 0; p < history.n_points(); ++p)
          ASSERT_NEAR(history.value(s, p, explicit_fe::Quantity::Displacement, c), expected,
                      1e-9 * std::abs(expected) + 1e-30)
              << element_name(type) << " step " << s << " node " << p << " component " << c;
      }
    }
  }
}

}  // namespace
}  // namespace tremor
