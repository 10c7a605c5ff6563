// The explicit run's seam between set-up and time loop (explicit/subdomain.hpp): a subdomain's
// numbering maps to the model's and back, and the time loop hands the internal forces to the
// exchange after every operator apply (and the per-step terms' forces) and before the update, and
// the lumped mass once in the set-up, so what an exchange does to them is what the run computes
// with.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/explicit/pml.hpp"
#include "tremor/explicit/subdomain.hpp"
#include "tremor/explicit/time_loop.hpp"
#include "unit/explicit_test_models.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::Numbering;

TEST(ExplicitSubdomain, NumberingMapsDofVectorsAndHistoriesBothWays) {
  // Three of the model's five nodes, in the order 4, 0, 2; two DOFs per node.
  const Numbering numbering(5, 2, {4, 0, 2});
  EXPECT_FALSE(numbering.identity());
  EXPECT_EQ(numbering.n_local_nodes(), 3);
  EXPECT_EQ(numbering.global_node(0), 4);
  EXPECT_EQ(numbering.local_node(2), 2);
  EXPECT_EQ(numbering.local_node(4), 0);
  EXPECT_EQ(numbering.local_node(3), -1);  // not in the subdomain
  const std::vector<double> local = {40, 41, 0, 1, 20, 21};
  std::vector<double> global(10, -1.0);
  numbering.to_global(local, global);
  EXPECT_EQ(global, (std::vector<double>{0, 1, -1, -1, 20, 21, -1, -1, 40, 41}));  // others untouched
  EXPECT_EQ(numbering.to_local(global), local);
  explicit_fe::History history;
  history.nodes = {1, 2};
  explicit_fe::Location location;
  location.nodes = {0, 1};
  location.weights = {0.5, 0.5};
  history.locations.push_back(location);
  numbering.to_global(history);
  EXPECT_EQ(history.nodes, (std::vector<Index>{0, 2}));
  EXPECT_EQ(history.locations[0].nodes, (std::vector<Index>{4, 0}));

  const Numbering identity(5, 3);
  EXPECT_TRUE(identity.identity());
  EXPECT_EQ(identity.n_local_nodes(), 5);
  EXPECT_EQ(identity.global_node(3), 3);
  EXPECT_EQ(identity.to_local(std::vector<double>(15, 2.0)), std::vector<double>(15, 2.0));
}

// A set-up clock tells the caller that outlives it which phase completed last (for a message about
// running out of memory in the next), and a clock given nowhere to write tells no one.
TEST(ExplicitSubdomain, TheSetupClockNamesTheLastPhaseForItsCaller) {
  std::string last;
  {
    explicit_fe::SetupClock clock(Exec::serial(), Clock::now(), &last);
    EXPECT_EQ(last, "");
    clock.lap("mass");
    clock.lap("stiffness");
    EXPECT_EQ(clock.take().size(), 2u);
  }
  EXPECT_EQ(last, "stiffness");
  explicit_fe::SetupClock elsewhere(Exec::serial());
  elsewhere.lap("loads");
  EXPECT_EQ(last, "stiffness");
}

TEST(ExplicitSubdomain, NumberingRefusesRepeatedOrForeignNodes) {
  EXPECT_THROW(Numbering(5, 2, {1, 3, 1}), Error);  // node 1 twice
  EXPECT_THROW(Numbering(5, 2, {0, 5}), Error);     // no node 5
  EXPECT_THROW(Numbering(5, 2, {-1}), Error);
  const Numbering numbering(5, 2, {4, 0, 2});
  std::vector<double> global(8);  // four nodes, not five
  EXPECT_THROW(numbering.to_global(std::vector<double>(6), global), Error);
}

// An exchange that records its calls and scales what it is given: a stand-in for the sum over
// neighbouring subdomains.
struct ScalingExchange : explicit_fe::Exchange<double> {
  double force_factor = 1.0;
  int force_calls = 0, mass_calls = 0;
  void start_forces(std::span<const View<double>>) override {}
  void finish_forces(std::span<const View<double>> forces) override {
    ++force_calls;
    ASSERT_EQ(forces.size(), 1u);
    for (Index i = 0; i < forces[0].size; ++i) forces[0][i] *= force_factor;
  }
  void sum_mass(std::span<const View<double>> mass) override {
    ++mass_calls;
    ASSERT_EQ(mass.size(), 1u);
  }
};

// Sets up the model as one subdomain in its own numbering on the serial backend, runs it with
// `exchange`, and returns its histories.
// `with` (when given) is called on the subdomain once it is set up.
// `numbered`: the run's numbering from the pre-flight (the mesh's where not given).
std::vector<explicit_fe::History> run_through(
    const Model& model, explicit_fe::Exchange<double>& exchange, const explicit_fe::RunOptions& options,
    const std::function<void(explicit_fe::Subdomain<double>&)>& with = {},
    const std::function<Numbering(const explicit_fe::Preflight&)>& numbered = {}) {
  const explicit_fe::Preflight preflight = explicit_fe::preflight(model, options);
  const Exec exec = Exec::serial();
  explicit_fe::SetupClock clock(exec);
  std::mutex guard;
  auto subdomain = explicit_fe::set_up_subdomain<double>(
      exec, model, numbered ? numbered(preflight) : Numbering(model.mesh.n_nodes(), model.mesh.dim()), preflight,
      exchange, clock, nullptr, guard);
  if (with) with(*subdomain);
  subdomain->recorder->record(0, subdomain->scheme->previous_displacement(), subdomain->scheme->displacement());
  explicit_fe::LoopSettings settings;
  settings.model = &model;
  settings.preflight = &preflight;
  settings.observer_guard = &guard;
  explicit_fe::ExplicitRun run;
  explicit_fe::Subdomain<double>* const subdomains[] = {subdomain.get()};
  explicit_fe::run_subdomains<double>(subdomains, exchange, settings, run);
  EXPECT_TRUE(run.ok()) << run.message;
  EXPECT_EQ(run.steps, preflight.steps);
  subdomain->recorder->flush();
  return subdomain->recorder->take_histories();
}

TEST(ExplicitSubdomain, TheExchangeActsOnTheInternalForcesOfEveryStep) {
  Model model = test::loaded_block(4e-6, 2e6, 2);
  explicit_fe::RunOptions options;
  options.backend = "serial";
  options.precision = "double";
  options.time_step = 2e-8;  // below the stable step of the model and of its twice-as-stiff copy
  // An exchange that doubles K u computes the model whose Young's modulus is doubled: doubling is
  // exact in binary, so D, every element matrix, K and K u of that model are exactly twice this
  // one's, and the two runs agree bit for bit.
  ScalingExchange doubling;
  doubling.force_factor = 2.0;
  const std::vector<explicit_fe::History> doubled = run_through(model, doubling, options);
  EXPECT_EQ(doubling.mass_calls, 1);  // undamped: the mass only
  EXPECT_EQ(doubling.force_calls, 200);  // one per step: 4 us / 20 ns

  ScalingExchange none;
  const std::vector<explicit_fe::History> plain = run_through(model, none, options);
  Model stiffer = model;
  stiffer.materials[0] = Material::from_youngs("steel", 2 * 210e9, 0.3, 7850.0);
  const explicit_fe::ExplicitRun reference = explicit_fe::run_explicit(stiffer, options);
  ASSERT_TRUE(reference.ok());
  ASSERT_EQ(doubled.size(), reference.histories.size());
  for (std::size_t h = 0; h < doubled.size(); ++h) {
    SCOPED_TRACE(doubled[h].name);
    EXPECT_EQ(doubled[h].nodes, reference.histories[h].nodes);
    EXPECT_EQ(doubled[h].times, reference.histories[h].times);
    EXPECT_EQ(doubled[h].values, reference.histories[h].values);
    EXPECT_NE(plain[h].values, reference.histories[h].values);  // the exchange made the difference
  }
}

// A per-step term that adds K u once more: the smallest term, and the shape of stiffness-
// proportional damping (beta K v would apply K to the velocity). On the serial backend, so the
// sum is a host loop.
struct StiffnessAgain : explicit_fe::StepTerm<double> {
  const op::Operator<double>* stiffness = nullptr;
  DeviceArray<double> ku{Exec::serial(), 0};
  int* calls = nullptr;
  int* restarts = nullptr;
  std::string_view name() const override { return "K u once more"; }
  void add_forces(const explicit_fe::CentralDifference<double>& scheme, View<double> forces) override {
    ++*calls;
    stiffness->apply(scheme.displacement(), ku.view());
    for (Index i = 0; i < forces.size; ++i) forces[i] += ku.data()[i];
  }
  void start_from_rest() override { ++*restarts; }
};

// The time loop adds each term's force at every step, after the apply and before the exchange:
// with the term (2 K u) and an exchange that doubles what it is given, the run is that of the
// model with 4 times the Young's modulus, bit for bit (2 K u and 4 K u are exact in binary, as in
// the test above); a term added after the exchange would give 3 K u. A shot's start from rest
// resets the term.
TEST(ExplicitSubdomain, StepTermsAddTheirForcesBeforeTheExchange) {
  Model model = test::loaded_block(4e-6, 2e6, 2);
  explicit_fe::RunOptions options;
  options.backend = "serial";
  options.precision = "double";
  options.time_step = 1e-8;  // below the stable step of the 4 times stiffer copy
  ScalingExchange doubling;
  doubling.force_factor = 2.0;
  int calls = 0, restarts = 0;
  const std::vector<explicit_fe::History> with_term =
      run_through(model, doubling, options, [&](explicit_fe::Subdomain<double>& d) {
        auto term = std::make_unique<StiffnessAgain>();
        term->stiffness = d.stiffness.get();
        term->ku = DeviceArray<double>(d.exec, d.stiffness->n_dofs());
        term->calls = &calls;
        term->restarts = &restarts;
        d.terms.push_back(std::move(term));
        explicit_fe::start_from_rest(d, *options.time_step);
      });
  EXPECT_EQ(calls, 400);  // one per step: 4 us / 10 ns
  EXPECT_EQ(restarts, 1);
  Model stiffer = model;
  stiffer.materials[0] = Material::from_youngs("steel", 4 * 210e9, 0.3, 7850.0);
  const explicit_fe::ExplicitRun reference = explicit_fe::run_explicit(stiffer, options);
  ASSERT_TRUE(reference.ok());
  ASSERT_EQ(with_term.size(), reference.histories.size());
  for (std::size_t h = 0; h < with_term.size(); ++h) {
    SCOPED_TRACE(with_term[h].name);
    EXPECT_EQ(with_term[h].times, reference.histories[h].times);
    EXPECT_EQ(with_term[h].values, reference.histories[h].values);
  }
}

// A PML's nodes come last in a run's numbering, grouped by their stretched axes as its term steps
// them, and the integrator keeps C' from the first of them on only; the run's histories are those
// of the run numbered as the mesh is, within the roundings of sums taken in another order.
TEST(ExplicitSubdomain, APmlsNodesAreNumberedLastAndAloneKeepTheirDamping) {
  Model model = test::pml_bar(ElementType::Hex8, 1, 4);  // 9 x 5 x 4 nodes
  model.absorbing.erase(model.absorbing.begin());  // its alid layer: the PML's nodes alone damped
  model.absorbing.front().faces = {BoxFace::XMax, BoxFace::YMax};
  model.absorbing.front().thickness = 1e-3;  // two elements
  model.validate();
  explicit_fe::RunOptions options;
  options.backend = "serial";
  options.precision = "double";
  const explicit_fe::Preflight p = explicit_fe::preflight(model, options);
  const Numbering numbering = explicit_fe::one_domain_numbering(model, p);
  const explicit_fe::PmlNodeProfile layer = explicit_fe::pml_node_profile(model.mesh, p.pml);
  const std::vector<Index>& order = numbering.local_to_global();
  ASSERT_EQ(order.size(), static_cast<std::size_t>(model.mesh.n_nodes()));
  const std::size_t first = order.size() - layer.nodes.size();
  const auto axes_of = [&](Index node) {  // -1 off the layer
    const auto at = std::lower_bound(layer.nodes.begin(), layer.nodes.end(), node);
    if (at == layer.nodes.end() || *at != node) return -1;
    return layer.axes(static_cast<std::size_t>(at - layer.nodes.begin()));
  };
  std::vector<int> groups;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const int axes = axes_of(order[k]);
    ASSERT_EQ(axes >= 0, k >= first) << "local node " << k << ", the mesh's " << order[k];
    if (k > 0 && k != first) {
      const int before = axes_of(order[k - 1]);
      ASSERT_TRUE(before < axes || (before == axes && order[k - 1] < order[k])) << "local node " << k;
    }
    if (axes >= 0 && (groups.empty() || groups.back() != axes)) groups.push_back(axes);
  }
  EXPECT_EQ(groups, (std::vector<int>{1, 2, 3}));  // stretched along x, y, both
  ScalingExchange plain;
  Index damped_from = -1;
  const std::vector<explicit_fe::History> renumbered = run_through(
      model, plain, options, [&](explicit_fe::Subdomain<double>& d) { damped_from = d.scheme->damped_from(); },
      [&](const explicit_fe::Preflight& preflight) { return explicit_fe::one_domain_numbering(model, preflight); });
  EXPECT_EQ(damped_from, static_cast<Index>(first) * 3);
  const std::vector<explicit_fe::History> as_meshed = run_through(model, plain, options);
  ASSERT_EQ(renumbered.size(), as_meshed.size());
  std::size_t moved = 0;
  for (std::size_t h = 0; h < as_meshed.size(); ++h) {
    SCOPED_TRACE(as_meshed[h].name);
    ASSERT_EQ(renumbered[h].values.size(), as_meshed[h].values.size());
    double largest = 0.0;
    for (const double v : as_meshed[h].values) largest = std::max(largest, std::abs(v));
    moved += largest > 0.0 ? 1 : 0;
    // Sums of a node's element forces, K's rows in another order: a few roundings a step.
    for (std::size_t i = 0; i < as_meshed[h].values.size(); ++i)
      ASSERT_NEAR(renumbered[h].values[i], as_meshed[h].values[i], 1e-12 * largest) << "value " << i;
  }
  EXPECT_GT(moved, 0u);
}

}  // namespace
}  // namespace tremor
