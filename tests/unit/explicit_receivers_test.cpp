// Receivers of the explicit solver (explicit/receivers.hpp): locating positions, interpolating
// with the shape functions, sample times of velocity and acceleration, Abaqus output intervals.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/explicit/receivers.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::History;
using explicit_fe::Quantity;
using explicit_fe::Recorder;

Model block(ElementType type, std::array<double, 2> grading = {1.0, 1.0}) {
  Model model;
  model.source = "block";
  model.mesh = generate_rectangle({0.0, 0.0}, {0.01, 0.008}, {5, 4}, type, 1, grading);
  model.materials.push_back(Material::from_youngs("steel", 210e9, 0.3, 7850.0));
  model.sections.push_back({"all", "steel", Formulation::PlaneStrain, 1.0});
  return model;
}

// u_x = 1 + 200 x - 300 y, u_y = -2 + 50 x + 400 y at every node.
std::vector<double> linear_field(const Mesh& mesh) {
  std::vector<double> u;
  for (Index i = 0; i < mesh.n_nodes(); ++i) {
    const double x = mesh.node(i)[0], y = mesh.node(i)[1];
    u.push_back(1.0 + 200.0 * x - 300.0 * y);
    u.push_back(-2.0 + 50.0 * x + 400.0 * y);
  }
  return u;
}

TEST(ExplicitReceivers, ValueAtAnElementCentreIsTheMeanOfALinearField) {
  for (ElementType type : {ElementType::Quad4, ElementType::Tri3, ElementType::Quad8, ElementType::Tri6}) {
    SCOPED_TRACE(element_name(type, 1));
    Model model = block(type, {1.3, 0.8});  // graded: elements of different sizes
    // The centre of element 7: the mean of its corner nodes.
    const ElementBlock& elements = model.mesh.blocks[0];
    const int corners = type == ElementType::Tri3 || type == ElementType::Tri6 ? 3 : 4;
    std::array<double, 3> centre{0.0, 0.0, 0.0};
    for (int a = 0; a < corners; ++a)
      for (int i = 0; i < 2; ++i) centre[static_cast<std::size_t>(i)] += model.mesh.node(elements.nodes(7)[static_cast<std::size_t>(a)])[static_cast<std::size_t>(i)] / corners;
    Receiver receiver;
    receiver.name = "probe";
    receiver.positions = {centre, {0.0071, 0.0013, 0.0}};
    model.receivers.push_back(receiver);
    model.validate();
    std::vector<History> histories = explicit_fe::make_histories(model, 1e-8);
    ASSERT_EQ(histories.size(), 1u);
    ASSERT_EQ(histories[0].locations.size(), 2u);
    EXPECT_EQ(histories[0].locations[0].element, 7);
    const std::vector<double> u = linear_field(model.mesh);
    std::vector<double> mean(2, 0.0);
    for (int a = 0; a < corners; ++a)
      for (int c = 0; c < 2; ++c)
        mean[static_cast<std::size_t>(c)] += u[static_cast<std::size_t>(elements.nodes(7)[static_cast<std::size_t>(a)]) * 2 + static_cast<std::size_t>(c)] / corners;
    const Exec exec = Exec::serial();
    Recorder<double> recorder(exec, std::move(histories), 1e-8, model.mesh.n_nodes() * 2);
    const View<const double> field{u.data(), static_cast<Index>(u.size())};
    recorder.record(0, field, field);
    recorder.flush();
    const History& history = recorder.histories()[0];
    ASSERT_EQ(history.n_samples(), 1u);
    // Isoparametric elements reproduce linear fields exactly: rounding only.
    for (int c = 0; c < 2; ++c)
      EXPECT_NEAR(history.value(0, 0, Quantity::Displacement, c), mean[static_cast<std::size_t>(c)], 1e-13);
    EXPECT_NEAR(history.value(0, 1, Quantity::Displacement, 0), 1.0 + 200.0 * 0.0071 - 300.0 * 0.0013, 1e-13);
    EXPECT_NEAR(history.value(0, 1, Quantity::Displacement, 1), -2.0 + 50.0 * 0.0071 + 400.0 * 0.0013, 1e-13);
  }
}

TEST(ExplicitReceivers, LocateFindsCornersAndRefusesOutside) {
  const Model model = block(ElementType::Quad4);
  const double corner[2] = {0.01, 0.008}, outside[2] = {0.0101, 0.004};
  const auto location = explicit_fe::locate(model.mesh, corner);
  ASSERT_TRUE(location.has_value());
  EXPECT_EQ(location->element, 19);
  EXPECT_FALSE(explicit_fe::locate(model.mesh, outside).has_value());
}

TEST(ExplicitReceivers, PositionOutsideTheMeshNamesReceiverAndPosition) {
  Model model = block(ElementType::Quad4);
  Receiver receiver;
  receiver.name = "far away";
  receiver.origin = "model.toml:31";
  receiver.positions = {{0.005, 0.004, 0.0}, {0.02, 0.004, 0.0}};
  model.receivers.push_back(receiver);
  try {
    (void)explicit_fe::make_histories(model, 1e-8);
    FAIL() << "no error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("model.toml:31: receiver 'far away': position (0.02, 0.004) lies outside the mesh"),
              std::string::npos)
        << message;
  }
}

TEST(ExplicitReceivers, VelocityAndAccelerationBelongToTheMiddleStep) {
  Model model = block(ElementType::Quad4);
  Receiver receiver;
  receiver.name = "node";
  receiver.nodes = {3};
  receiver.velocity = true;
  receiver.acceleration = true;
  receiver.every_n_steps = 3;
  model.receivers.push_back(receiver);
  Receiver plain = receiver;
  plain.name = "plain";
  plain.velocity = plain.acceleration = false;
  model.receivers.push_back(plain);
  const double dt = 0.5;
  const Index n = model.mesh.n_nodes() * 2;
  Recorder<double> recorder(Exec::serial(), explicit_fe::make_histories(model, dt), dt, n);
  // u_k = k^3 at every DOF: central differences give v_k = (3k^2 + 1) / dt-scaled, a_k = 6k.
  const auto level = [&](long long k) { return std::vector<double>(static_cast<std::size_t>(n), double(k * k * k)); };
  for (long long k = 0; k <= 10; ++k) {
    const auto previous = level(k - 1), current = level(k);
    recorder.record(k, {previous.data(), n}, {current.data(), n});
  }
  recorder.flush();
  const History& history = recorder.histories()[0];
  ASSERT_EQ(history.times, (std::vector<double>{0.0, 1.5, 3.0, 4.5}));  // steps 0, 3, 6, 9; none at 10
  for (std::size_t s = 0; s < history.n_samples(); ++s) {
    const double k = history.times[s] / dt;
    EXPECT_DOUBLE_EQ(history.value(s, 0, Quantity::Displacement, 1), k * k * k);
    EXPECT_DOUBLE_EQ(history.value(s, 0, Quantity::Velocity, 0), ((k + 1) * (k + 1) * (k + 1) - (k - 1) * (k - 1) * (k - 1)) / (2 * dt));
    EXPECT_DOUBLE_EQ(history.value(s, 0, Quantity::Acceleration, 0), 6.0 * k / (dt * dt));
  }
  EXPECT_EQ(recorder.histories()[1].times, (std::vector<double>{0.0, 1.5, 3.0, 4.5}));  // 10 is not a multiple of 3
}

TEST(ExplicitReceivers, AbaqusOutputEveryTimeBecomesSteps) {
  Model model = block(ElementType::Quad4);
  model.histories.push_back({"TIP", {1, 2}, {"U", "A"}, 1, 2.6e-8});
  model.histories.push_back({"STRESS", {1}, {"S"}, 1, 0.0});  // nothing tremor records
  model.histories.push_back({"EVERY", {4}, {"V"}, 5, 0.0});
  const auto histories = explicit_fe::make_histories(model, 1e-8);
  ASSERT_EQ(histories.size(), 2u);
  EXPECT_EQ(histories[0].every_n_steps, 3);
  EXPECT_EQ(histories[0].quantities, (std::vector<Quantity>{Quantity::Displacement, Quantity::Acceleration}));
  EXPECT_EQ(histories[0].node_labels, (std::vector<Label>{2, 3}));
  EXPECT_EQ(histories[1].every_n_steps, 5);
}

}  // namespace
}  // namespace tremor
