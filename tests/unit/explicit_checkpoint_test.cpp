// Snapshots and checkpoints of the explicit solver (explicit/solver.hpp): snapshots at step 0 and
// every n steps with the receivers' central-difference velocity, and a run stopped at a
// checkpoint and resumed from it recording exactly what the uninterrupted run records.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "explicit_test_models.hpp"
#include "support/runs.hpp"
#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::RunOptions;
using explicit_fe::SolverState;

// A 10 mm plane-strain steel square, 12 x 12 quad4, a Ricker force on its centre node; a velocity
// receiver at two nodes, a displacement receiver at a position every 2nd step; snapshots of
// displacement and velocity every 5 steps.
// Snapshots of displacement and velocity every 5 steps, the model validated.
Model with_snapshots(Model model) {
  OutputSettings output;
  output.snapshot_every = 5;
  output.velocity = true;
  model.output = output;
  model.validate();
  return model;
}

Model snapshot_block(const std::string& precision) {
  Model model = test::loaded_block(2e-6, 2e6, 2);
  model.explicit_settings->precision = precision;
  return with_snapshots(std::move(model));
}

struct Taken {
  long long step;
  double time;
  std::vector<double> displacement, velocity, pressure;
};

// Keeps the snapshots and the last checkpoint; asks to stop once `stop_after` steps are done.
class Keeper final : public explicit_fe::Observer {
 public:
  explicit Keeper(long long stop_after = 0) : stop_after_(stop_after) {}
  void on_snapshot(const explicit_fe::Snapshot& s) override {
    snapshots.push_back({s.step, s.time, {s.displacement.begin(), s.displacement.end()},
                         {s.velocity.begin(), s.velocity.end()}, {s.pressure.begin(), s.pressure.end()}});
  }
  void on_checkpoint(const SolverState& state) override { checkpoints.push_back(state); }
  void on_progress(long long step, long long, double) override { step_ = step; }
  bool stop_requested() override { return stop_after_ > 0 && step_ >= stop_after_; }

  std::vector<Taken> snapshots;
  std::vector<SolverState> checkpoints;

 private:
  long long stop_after_ = 0;
  long long step_ = 0;
};

TEST(ExplicitSnapshots, EveryNStepsFromStepZeroWithTheReceiversVelocity) {
  const Model model = snapshot_block("double");
  Keeper keeper;
  const auto run = explicit_fe::run_explicit(model, RunOptions{}, &keeper);
  ASSERT_TRUE(run.ok()) << run.message;
  EXPECT_EQ(run.preflight.snapshot_every, 5);
  // Steps 0, 5, 10, ... below the last (a velocity snapshot at the last step would need u_N+1).
  ASSERT_EQ(keeper.snapshots.size(), static_cast<std::size_t>((run.steps - 1) / 5 + 1));
  const std::size_t n_values = static_cast<std::size_t>(model.mesh.n_nodes()) * 2;
  for (std::size_t s = 0; s < keeper.snapshots.size(); ++s) {
    const Taken& taken = keeper.snapshots[s];
    EXPECT_EQ(taken.step, static_cast<long long>(5 * s));
    EXPECT_EQ(taken.time, static_cast<double>(taken.step) * run.dt);
    ASSERT_EQ(taken.displacement.size(), n_values);
    ASSERT_EQ(taken.velocity.size(), n_values);
  }
  // Step 0: the model starts at rest.
  for (double u : keeper.snapshots[0].displacement) EXPECT_EQ(u, 0.0);
  // The snapshot's velocity at the receiver nodes is the receiver's sample at that time, bit for
  // bit: both are (u_k+1 - u_k-1) / (2 dt) from the same state values.
  const explicit_fe::History& r = run.histories[0];
  int compared = 0;
  for (const Taken& taken : keeper.snapshots)
    for (std::size_t sample = 0; sample < r.n_samples(); ++sample) {
      if (r.times[sample] != taken.time) continue;
      for (Index point = 0; point < 2; ++point)
        for (int c = 0; c < 2; ++c) {
          const auto dof = static_cast<std::size_t>(r.nodes[static_cast<std::size_t>(point)] * 2 + c);
          EXPECT_EQ(taken.velocity[dof], r.value(sample, point, explicit_fe::Quantity::Velocity, c));
          EXPECT_EQ(taken.displacement[dof], r.value(sample, point, explicit_fe::Quantity::Displacement, c));
        }
      ++compared;
    }
  EXPECT_EQ(compared, static_cast<int>(keeper.snapshots.size()));
  // The wave reaches the receivers within the run: the comparison is not one of zeros.
  EXPECT_GT(std::abs(keeper.snapshots.back().velocity[static_cast<std::size_t>(r.nodes[0] * 2 + 1)]), 0.0);
}

TEST(ExplicitSnapshots, NodeSubsetAndDisplacementOnlyIncludeTheLastStep) {
  Model model = snapshot_block("double");
  model.output->velocity = false;
  model.output->snapshot_every = 1;
  model.output->snapshot_nodes = {0, 6 * 13 + 6};
  Keeper keeper;
  const auto run = explicit_fe::run_explicit(model, RunOptions{}, &keeper);
  ASSERT_TRUE(run.ok());
  ASSERT_EQ(keeper.snapshots.size(), static_cast<std::size_t>(run.steps + 1));  // steps 0..N
  for (const Taken& taken : keeper.snapshots) {
    EXPECT_EQ(taken.displacement.size(), 4u);
    EXPECT_TRUE(taken.velocity.empty());
  }
}

// A 3 x 3 x 2 steel box of 1 mm GLL hexahedra of order 3 (the sem operator), a Ricker force at
// an interior node, a velocity receiver at two nodes and a displacement receiver at a position
// (GLL interpolation), snapshots of displacement and velocity every 5 steps.
Model gll_block(const std::string& precision) {
  Model model;
  model.source = "gll block";
  model.mesh = generate_box({0.0, 0.0, 0.0}, {0.003, 0.003, 0.002}, {3, 3, 2}, ElementType::HexGLL, 3);
  model.materials.push_back(Material::from_youngs("steel", 210e9, 0.3, 7850.0));
  model.sections.push_back({"all", "steel", Formulation::Solid, 1.0});
  const Index row = 10, layer = 100;  // 10 x 10 x 7 nodes
  PointSource source;
  source.nodes = {3 * layer + 4 * row + 4};
  source.direction = {0.0, 0.0, 1.0};
  source.amplitude = 1e3;
  source.signal = Signal::ricker(3e5);  // content to ~0.8 MHz: 6 GLL points per shear wavelength
  source.origin = "inner force";
  model.point_sources.push_back(source);
  test::add_test_receivers(model, {3 * layer + 4 * row + 6, 6 * layer + 4 * row + 4}, {0.0021, 0.0013, 0.0017});
  ExplicitSettings settings;
  settings.duration = 1e-6;
  settings.precision = precision;
  model.explicit_settings = settings;
  return with_snapshots(std::move(model));
}

// Runs uninterrupted, then stopped at step `stop` (a checkpoint every stop / 2 steps) and resumed
// from the last checkpoint; the concatenated histories and snapshots must equal the uninterrupted
// ones exactly: the resumed run repeats the same operations on the same values.
void expect_resume_is_exact(const Model& model, const std::string& backend = "", int domains = 1,
                            const std::string& operator_kind = "", long long stop = 10) {
  RunOptions options;
  options.backend = backend;
  options.domains = domains;
  options.check_every = 5;
  options.deterministic = true;  // (on a GPU atomic adds need not give two runs the same bits)
  if (!operator_kind.empty()) options.operator_kind = operator_kind;
  Keeper whole;
  const auto full = explicit_fe::run_explicit(model, options, &whole);
  ASSERT_TRUE(full.ok());
  if (!operator_kind.empty()) {
    EXPECT_EQ(full.preflight.operator_kind(), operator_kind);
  }

  options.checkpoint_every = static_cast<int>(stop / 2);
  Keeper first(stop);
  const auto stopped = explicit_fe::run_explicit(model, options, &first);
  ASSERT_EQ(stopped.status, explicit_fe::RunStatus::Stopped);
  EXPECT_EQ(stopped.steps, stop);
  ASSERT_EQ(first.checkpoints.size(), 2u);  // steps stop / 2 and stop
  const SolverState state = first.checkpoints.back();
  EXPECT_EQ(state.step, stop);
  // The velocity snapshot of step `stop` and the velocity receiver's sample wait for the next.
  EXPECT_TRUE(state.snapshot.active);
  if (model.receivers[0].velocity) {
    EXPECT_TRUE(state.receivers[0].active);
  }

  options.resume = &state;
  Keeper second;
  const auto resumed = explicit_fe::run_explicit(model, options, &second);
  ASSERT_TRUE(resumed.ok()) << resumed.message;
  EXPECT_EQ(resumed.steps, full.steps);

  for (std::size_t h = 0; h < full.histories.size(); ++h) {
    const auto& a = stopped.histories[h];
    const auto& b = resumed.histories[h];
    std::vector<double> times(a.times), values(a.values);
    times.insert(times.end(), b.times.begin(), b.times.end());
    values.insert(values.end(), b.values.begin(), b.values.end());
    EXPECT_EQ(times, full.histories[h].times) << full.histories[h].name;
    EXPECT_EQ(values, full.histories[h].values) << full.histories[h].name;
  }
  std::vector<Taken> snapshots(first.snapshots);
  snapshots.insert(snapshots.end(), second.snapshots.begin(), second.snapshots.end());
  ASSERT_EQ(snapshots.size(), whole.snapshots.size());
  for (std::size_t s = 0; s < snapshots.size(); ++s) {
    EXPECT_EQ(snapshots[s].step, whole.snapshots[s].step);
    EXPECT_EQ(snapshots[s].displacement, whole.snapshots[s].displacement) << s;
    EXPECT_EQ(snapshots[s].velocity, whole.snapshots[s].velocity) << s;
    // (NaN where no fluid element holds the node: compared as bits.)
    ASSERT_EQ(snapshots[s].pressure.size(), whole.snapshots[s].pressure.size());
    EXPECT_EQ(std::memcmp(snapshots[s].pressure.data(), whole.snapshots[s].pressure.data(),
                          sizeof(double) * snapshots[s].pressure.size()),
              0)
        << s;
  }
}

TEST(ExplicitCheckpoint, ResumedRunEqualsUninterruptedInDouble) { expect_resume_is_exact(snapshot_block("double")); }
TEST(ExplicitCheckpoint, ResumedRunEqualsUninterruptedInFloat) { expect_resume_is_exact(snapshot_block("float")); }

// A decomposed run's checkpoint holds the model's state and pending samples, merged from the
// subdomains', and a resume with the same subdomains splits them again: the same bits.
TEST(ExplicitCheckpoint, ResumedDecomposedRunEqualsUninterrupted) {
  expect_resume_is_exact(snapshot_block("double"), "openmp", 3);
}

// Through matrix_free on the host: the quad4 block's tiles colour by colour (the same bits on every
// run and thread count), in one domain and in two.
TEST(ExplicitCheckpoint, MatrixFreeTilesResumedRunEqualsUninterrupted) {
  for (const char* precision : {"double", "float"}) {
    SCOPED_TRACE(precision);
    expect_resume_is_exact(snapshot_block(precision), "openmp", 1, "matrix_free");
  }
  expect_resume_is_exact(snapshot_block("double"), "openmp", 2, "matrix_free");
}

// Stiffness-proportional damping reads U_prev and U_curr only, both in the checkpoint: one beta
// (the run's K), and betas by element (an operator of its own), in one domain and in two.
TEST(ExplicitCheckpoint, StiffnessDampedResumedRunEqualsUninterrupted) {
  for (const bool per_element : {false, true}) {
    SCOPED_TRACE(per_element ? "betas by element" : "one beta");
    expect_resume_is_exact(with_snapshots(test::damped_bar(per_element)), "serial");
  }
  expect_resume_is_exact(with_snapshots(test::damped_bar(true)), "openmp", 2, "matrix_free");
}

// An attenuating run's checkpoint holds the memory variables by the model's elements: a resumed
// run equals the uninterrupted one in one domain and in two (sem split into the elements touching
// shared nodes and the rest, each with its own), in double and in float; coarse-grained too.
TEST(ExplicitCheckpoint, AttenuatingResumedRunEqualsUninterrupted) {
  for (const char* precision : {"double", "float"}) {
    SCOPED_TRACE(precision);
    Model model = with_snapshots(test::attenuating_bar());
    model.explicit_settings->precision = precision;
    expect_resume_is_exact(model, "serial");
  }
  expect_resume_is_exact(with_snapshots(test::attenuating_bar()), "openmp", 2);
  Model coarse = with_snapshots(test::attenuating_bar());  // one solid's variables per GLL point
  coarse.materials[0].attenuation->coarse_grained = true;
  expect_resume_is_exact(coarse, "openmp", 2);
  // matrix_free's, at the Gauss points of hex20 elements: serial, and two domains each split
  // into the elements touching shared nodes and the rest.
  const Model hex20 = with_snapshots(test::attenuating_bar(ElementType::Hex20, 2, 3));
  expect_resume_is_exact(hex20, "serial", 1, "matrix_free");
  expect_resume_is_exact(hex20, "openmp", 2, "matrix_free");
}

// matrix_free on GLL elements integrates at the same points as sem (their nodes), so an
// attenuating run through either is the same run: in double to rounding (sem sums along lines of
// nodes, matrix_free through each element's shape functions; 1e-10 of the largest value is many
// orders above that and far below any attenuation: Q 25 takes 4% of an amplitude per wavelength).
TEST(ExplicitAttenuation, MatrixFreeEqualsSemOnGllElements) {
  const Model model = test::attenuating_bar();
  std::vector<std::vector<double>> values;
  for (const char* kind : {"sem", "matrix_free"}) {
    RunOptions options;
    options.backend = "openmp";
    options.operator_kind = kind;
    const auto run = explicit_fe::run_explicit(model, options);
    ASSERT_TRUE(run.ok()) << run.message;
    values.push_back(run.histories.front().values);
  }
  ASSERT_EQ(values[0].size(), values[1].size());
  double largest = 0.0, difference = 0.0;
  for (std::size_t k = 0; k < values[0].size(); ++k) {
    largest = std::max(largest, std::abs(values[0][k]));
    difference = std::max(difference, std::abs(values[0][k] - values[1][k]));
  }
  ASSERT_GT(largest, 0.0);
  EXPECT_LT(difference, 1e-10 * largest);
  // And the memory variables matter: the elastic run differs by far more.
  Model elastic = model;
  elastic.materials[0].attenuation.reset();
  RunOptions options;
  options.backend = "openmp";
  options.operator_kind = "matrix_free";
  const auto run = explicit_fe::run_explicit(elastic, options);
  ASSERT_TRUE(run.ok()) << run.message;
  double apart = 0.0;
  const std::vector<double>& without = run.histories.front().values;
  for (std::size_t k = 0; k < values[1].size(); ++k) apart = std::max(apart, std::abs(values[1][k] - without[k]));
  EXPECT_GT(apart, 1e-3 * largest);
}

// A PML's variables, at its elements' points and at its nodes, are in the checkpoint too: the
// sem kernel's (GLL, with the attenuating bar's memory variables beside them) and the general
// kernel's (hex8), in one domain and in two.
TEST(ExplicitCheckpoint, PmlResumedRunEqualsUninterrupted) {
  for (const char* precision : {"double", "float"}) {
    SCOPED_TRACE(precision);
    Model model = with_snapshots(test::pml_bar(ElementType::HexGLL, 3, 2));
    model.explicit_settings->precision = precision;
    expect_resume_is_exact(model, "serial");
  }
  Model attenuating = test::pml_bar(ElementType::HexGLL, 3, 2);
  attenuating.materials[0].attenuation = test::attenuating_bar().materials[0].attenuation;
  expect_resume_is_exact(with_snapshots(attenuating), "openmp", 2);
  expect_resume_is_exact(with_snapshots(test::pml_bar(ElementType::Hex8, 1, 4)), "openmp", 2, "matrix_free");
}

// The memory variables of the model's elements, whatever the subdomains that held them: a
// checkpoint of two subdomains holds those of one (to rounding: the shared nodes' forces are summed
// in another order), and a state without them is refused by the run that keeps them.
TEST(ExplicitCheckpoint, MemoryVariablesAreTheModelsElements) {
  const Model model = with_snapshots(test::attenuating_bar());
  std::vector<SolverState> states;
  for (const int domains : {1, 2}) {
    RunOptions options;
    options.backend = domains == 1 ? "serial" : "openmp";
    options.domains = domains;
    options.check_every = 5;
    options.checkpoint_every = 10;
    Keeper keeper(10);
    (void)explicit_fe::run_explicit(model, options, &keeper);
    ASSERT_FALSE(keeper.checkpoints.empty());
    states.push_back(keeper.checkpoints.back());
  }
  const SolverState& one = states[0];
  const SolverState& two = states[1];
  // 3 solids x 6 values x 64 points of each of the bar's GLL elements of order 3.
  ASSERT_EQ(one.memory_offsets.size(), static_cast<std::size_t>(model.mesh.n_elements()) + 1);
  EXPECT_EQ(one.memory_offsets[1], 3 * 6 * 64);
  EXPECT_EQ(two.memory_offsets, one.memory_offsets);
  ASSERT_EQ(two.memory.size(), one.memory.size());
  double largest = 0.0, difference = 0.0;
  for (std::size_t k = 0; k < one.memory.size(); ++k) {
    largest = std::max(largest, std::abs(one.memory[k]));
    difference = std::max(difference, std::abs(one.memory[k] - two.memory[k]));
  }
  EXPECT_GT(largest, 0.0);  // the wave has reached elements by step 10: not a comparison of zeros
  // Ten steps of sums in another order, in double: a few ulps of the largest value.
  EXPECT_LE(difference, 1e-12 * largest);

  SolverState stateless = one;
  stateless.memory_offsets.clear();
  stateless.memory.clear();
  RunOptions options;
  options.backend = "serial";
  options.resume = &stateless;
  const std::string error = test::error_of([&] { (void)explicit_fe::run_explicit(model, options); });
  EXPECT_NE(error.find("the checkpoint holds no memory variables"), std::string::npos) << error;
}

// The same on GLL hexahedra through the sem operator (its colour-by-colour scatter on the host
// gives the same bits on every run, so a resumed run can equal the whole one exactly). Serial: a
// small mesh, where OpenMP barriers every step cost more than they save beside other tests.
TEST(ExplicitCheckpoint, SemResumedRunEqualsUninterrupted) {
  for (const char* precision : {"double", "float"}) {
    const Model model = gll_block(precision);
    RunOptions options;
    options.backend = "serial";
    const auto run = explicit_fe::run_explicit(model, options);
    ASSERT_TRUE(run.ok()) << run.message;
    EXPECT_EQ(run.preflight.operator_kind(), "sem");
    EXPECT_GT(run.steps, 20);  // stopped at 10, resumed for the rest
    // The wave reaches the nodal receivers: the comparison is not one of zeros.
    double largest = 0.0;
    for (double v : run.histories[0].values) largest = std::max(largest, std::abs(v));
    EXPECT_GT(largest, 0.0);
    expect_resume_is_exact(model, "serial");
  }
}

// A model with fluids: the checkpoint holds the fluid's potential at both levels and its
// receivers' pending samples after the solid's, and the snapshot's rows of the water's motion wait
// for the next step as the solid's do. Stopped at 9/10 of the run, as the pulse (its peak at 5/6
// of the run) crosses the interface: an earlier stop would compare the zeros before it. In double
// and in float, with and without velocity (a snapshot of pressure alone waits for p_k, no values).
// Where the water_field run stops: 9/10 of its steps, a multiple of 10 (a check every 5 steps, a
// checkpoint every stop / 2).
long long water_stop() {
  const long long steps = explicit_fe::preflight(test::water_field("double", 5, true)).steps;
  return steps * 9 / 10 / 10 * 10;
}

TEST(ExplicitCheckpoint, AFluidsResumedRunEqualsUninterrupted) {
  const long long stop = water_stop();
  ASSERT_GE(stop, 50);
  for (const bool velocity : {true, false})
    for (const char* precision : {"double", "float"}) {
      SCOPED_TRACE(std::string(precision) + (velocity ? " with velocity" : ""));
      const Model model = test::water_field(precision, 5, velocity);
      expect_resume_is_exact(model, "serial", 1, "", stop);
    }
  // The water moved by then (so the comparison is not of zeros), and the state holds it.
  RunOptions options;
  options.backend = "serial";
  options.check_every = 5;
  options.checkpoint_every = static_cast<int>(stop / 2);
  Keeper keeper(stop);
  (void)explicit_fe::run_explicit(test::water_field("double", 5, true), options, &keeper);
  ASSERT_EQ(keeper.checkpoints.size(), 2u);
  const SolverState& state = keeper.checkpoints.back();
  test::expect_water_field_checkpoint(state);
  // A checkpoint without the fluid is refused by its run.
  SolverState dry = state;
  dry.fluid_previous.clear();
  dry.fluid_current.clear();
  options.resume = &dry;
  options.checkpoint_every = 0;
  const std::string error = test::error_of([&] { (void)explicit_fe::run_explicit(test::water_field("double", 5, true), options); });
  EXPECT_NE(error.find("checkpoint holds the potential at 0 fluid nodes; the model's fluid has 45"), std::string::npos)
      << error;
}

// A fluid of GLL hexahedra, whose inner nodes its run keeps last (FluidTerm: their element's kernel
// takes their step): its checkpoint holds the potential in the whole fluid's order, the model's
// nodes ascending, as a decomposed run's (no such order: its parts step every node by the update)
// holds it, to its rounding (1e-12 of the largest: the parts sum shared nodes' forces in another
// order); and the resumed run equals the uninterrupted one.
TEST(ExplicitCheckpoint, AFluidOfGllHexahedraResumedRunEqualsUninterrupted) {
  Model model = test::water_on_steel_box("double", 3);
  OutputSettings output;
  output.snapshot_every = 5;
  output.velocity = true;
  output.pressure = true;
  model.output = output;
  model.receivers[0].velocity = true;
  model.validate();
  const long long stop = explicit_fe::preflight(model).steps * 9 / 10 / 10 * 10;
  ASSERT_GE(stop, 50);
  expect_resume_is_exact(model, "serial", 1, "", stop);
  std::vector<SolverState> states;
  for (const int domains : {1, 2}) {
    RunOptions options;
    options.backend = "serial";
    options.domains = domains;
    options.check_every = 5;
    options.checkpoint_every = static_cast<int>(stop);
    Keeper keeper(stop);
    (void)explicit_fe::run_explicit(model, options, &keeper);
    ASSERT_EQ(keeper.checkpoints.size(), 1u);
    states.push_back(keeper.checkpoints.back());
  }
  for (const auto level : {&SolverState::fluid_previous, &SolverState::fluid_current}) {
    const std::vector<double>& one = states[0].*level;
    const std::vector<double>& parts = states[1].*level;
    ASSERT_EQ(one.size(), parts.size());
    double largest = 0.0, difference = 0.0;
    for (std::size_t i = 0; i < one.size(); ++i) {
      largest = std::max(largest, std::abs(one[i]));
      difference = std::max(difference, std::abs(one[i] - parts[i]));
    }
    EXPECT_GT(largest, 0.0);
    EXPECT_LE(difference, 1e-12 * largest);
  }
}

// The same on a GPU (deterministic: colour by colour, the fluid's K_f too): the fluid's state and
// rows come back from the device and go to it again.
TEST(ExplicitCheckpointGpu, AFluidsResumedRunEqualsUninterrupted) {
  TREMOR_REQUIRE_GPU();
  for (const char* precision : {"double", "float"}) {
    SCOPED_TRACE(precision);
    expect_resume_is_exact(test::water_field(precision, 5, true), "cuda", 1, "", water_stop());
  }
}

TEST(ExplicitSnapshots, SnapshotNodesOutsideTheMeshAreRefused) {
  Model model = snapshot_block("double");
  model.output->snapshot_nodes = {3, 169};  // 13 x 13 nodes: 0..168
  EXPECT_THROW(explicit_fe::run_explicit(model), Error);
  model.output->snapshot_nodes = {5, 3};
  EXPECT_THROW(explicit_fe::run_explicit(model), Error);
}

TEST(ExplicitCheckpoint, StateOfAnotherModelIsRefused) {
  const Model model = snapshot_block("double");
  SolverState state;
  state.step = 3;
  state.previous.assign(10, 0.0);
  state.current.assign(10, 0.0);
  RunOptions options;
  options.resume = &state;
  try {
    explicit_fe::run_explicit(model, options);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("checkpoint holds 10 DOFs; the model has 338"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace tremor
