#pragma once
// Small explicit-solver models shared by the solver and checkpoint tests.
#include <array>
#include <utility>
#include <vector>

#include "tremor/mesh/generate.hpp"
#include "tremor/model/model.hpp"

namespace tremor::test {

// Receiver "r", displacement and velocity at `nodes`, and receiver "probe", the displacement at
// `position` every 2nd step.
inline void add_test_receivers(Model& model, std::vector<Index> nodes, const std::array<double, 3>& position) {
  Receiver receiver;
  receiver.name = "r";
  receiver.nodes = std::move(nodes);
  receiver.velocity = true;
  model.receivers.push_back(receiver);
  Receiver probe;
  probe.name = "probe";
  probe.positions = {position};
  probe.every_n_steps = 2;
  model.receivers.push_back(probe);
}

// A 10 mm plane-strain steel square, 12 x 12 quad4 (13 x 13 nodes), a 1 kN Ricker point force of
// peak frequency `frequency` on its centre node; receiver "r" records displacement and velocity at
// the nodes `offset` nodes to the right of and above the centre, receiver "probe" the displacement
// at one position every 2nd step; [explicit] duration `duration`, everything else default.
inline Model loaded_block(double duration, double frequency, int offset) {
  Model model;
  model.source = "block";
  model.mesh = generate_rectangle({0.0, 0.0}, {0.01, 0.01}, {12, 12}, ElementType::Quad4);
  model.materials.push_back(Material::from_youngs("steel", 210e9, 0.3, 7850.0));
  model.sections.push_back({"all", "steel", Formulation::PlaneStrain, 1.0});
  PointSource source;
  source.nodes = {6 * 13 + 6};
  source.direction = {0.0, 1.0, 0.0};
  source.amplitude = 1e3;
  source.signal = Signal::ricker(frequency);
  source.origin = "centre force";
  model.point_sources.push_back(source);
  add_test_receivers(model, {6 * 13 + 6 + offset, (6 + offset) * 13 + 6}, {0.0071, 0.0033, 0.0});
  ExplicitSettings settings;
  settings.duration = duration;
  model.explicit_settings = settings;
  model.validate();
  return model;
}

}  // namespace tremor::test
