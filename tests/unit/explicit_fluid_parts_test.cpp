// Decomposed runs of models with fluids (explicit/coupled_parts.hpp): the parts of the solid and
// of the fluid, the faces between them, and runs on several subdomains against one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "explicit_test_models.hpp"
#include "support/runs.hpp"
#include "support/support.hpp"
#include "tremor/core/format.hpp"
#include "tremor/explicit/coupled_parts.hpp"
#include "tremor/explicit/processes.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/fem/coupling.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/parallel/communicator.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::History;
using explicit_fe::RunOptions;
using explicit_fe::SolverState;

// water_field without its snapshots (a decomposed run with fluids records its receivers alone).
Model water_field_receivers(const std::string& precision) {
  Model model = test::water_field(precision, 5, true);
  model.output.reset();
  return model;
}

using test::water_on_steel_box;
using test::by_name;

// Runs `model` on 1 and on `domains` subdomains and compares every history, sample by sample,
// within `tolerance` of its largest value.
void expect_decomposed_equals_one(const Model& model, const std::string& backend, int domains, double tolerance,
                                  bool deterministic = true, const std::string& operator_kind = "") {
  RunOptions options;
  options.backend = backend;
  options.deterministic = deterministic;
  if (!operator_kind.empty()) options.operator_kind = operator_kind;
  const auto one = explicit_fe::run_explicit(model, options);
  ASSERT_TRUE(one.ok()) << one.message;
  options.domains = domains;
  const auto split = explicit_fe::run_explicit(model, options);
  ASSERT_TRUE(split.ok()) << split.message;
  EXPECT_EQ(split.preflight.domains, domains);
  ASSERT_EQ(split.histories.size(), one.histories.size());
  const auto a = by_name(one.histories), b = by_name(split.histories);
  for (const auto& [name, history] : a) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(b.count(name));
    const History& other = b.at(name);
    ASSERT_EQ(other.values.size(), history.values.size());
    ASSERT_EQ(other.times, history.times);
    // Positions in the elements one domain names (the whole model's numbers).
    ASSERT_EQ(other.locations.size(), history.locations.size());
    for (std::size_t p = 0; p < history.locations.size(); ++p)
      EXPECT_EQ(other.locations[p].element, history.locations[p].element);
    double largest = 0.0, difference = 0.0;
    for (std::size_t k = 0; k < history.values.size(); ++k) {
      largest = std::max(largest, std::abs(history.values[k]));
      difference = std::max(difference, std::abs(history.values[k] - other.values[k]));
    }
    EXPECT_GT(largest, 0.0);  // the wave reached it: not a comparison of zeros
    EXPECT_LE(difference, tolerance * largest);
    ::testing::Test::RecordProperty(name + " difference", str(difference / largest));
  }
}

TEST(CoupledParts, InterfaceFacesLieInOnePartAndEveryPartStepsBoth) {
  const Model model = water_field_receivers("double");
  const Exec exec = Exec::serial();
  const Model solid = fem::solid_part(model);
  const explicit_fe::FluidSetup fluid = explicit_fe::fluid_setup(model, exec);
  for (const int n : {2, 3, 4}) {
    SCOPED_TRACE(n);
    const explicit_fe::CoupledDecomposition parts = explicit_fe::decompose_coupled(solid, fluid, n);
    ASSERT_EQ(parts.solid.n_domains(), n);
    ASSERT_EQ(parts.fluid.n_domains(), n);
    for (int d = 0; d < n; ++d) {
      EXPECT_FALSE(parts.solid.domains[static_cast<std::size_t>(d)].elements.empty());
      EXPECT_FALSE(parts.fluid.domains[static_cast<std::size_t>(d)].elements.empty());
    }
    // Each face's two elements in one part: the solid's numbering (the model's elements less the
    // fluid's) and the fluid mesh's.
    std::vector<Index> solid_of(static_cast<std::size_t>(model.mesh.n_elements()), -1), fluid_of(solid_of);
    for (std::size_t k = 0; k < fluid.mesh.elements.size(); ++k)
      fluid_of[static_cast<std::size_t>(fluid.mesh.elements[k])] = static_cast<Index>(k);
    Index next = 0;
    for (std::size_t g = 0; g < solid_of.size(); ++g)
      if (fluid_of[g] < 0) solid_of[g] = next++;
    ASSERT_FALSE(fluid.interface.faces.empty());
    for (const fem::CouplingFace& face : fluid.interface.faces)
      EXPECT_EQ(parts.solid.element_domain[static_cast<std::size_t>(solid_of[static_cast<std::size_t>(face.solid.element)])],
                parts.fluid.element_domain[static_cast<std::size_t>(fluid_of[static_cast<std::size_t>(face.fluid.element)])]);
  }
  // As a decomposition file has it (the model's elements in order), and back.
  const explicit_fe::CoupledDecomposition three = explicit_fe::decompose_coupled(solid, fluid, 3);
  const std::vector<int> whole = explicit_fe::whole_element_domains(three, fluid);
  ASSERT_EQ(whole.size(), static_cast<std::size_t>(model.mesh.n_elements()));
  const explicit_fe::CoupledDecomposition again = explicit_fe::decompose_coupled(solid, fluid, 3, &whole);
  EXPECT_EQ(again.solid.element_domain, three.solid.element_domain);
  EXPECT_EQ(again.fluid.element_domain, three.fluid.element_domain);
  // A decomposition that leaves a part without steel is refused, naming it: every element of the
  // water in part 1, the steel in part 2.
  std::vector<int> element_domain(static_cast<std::size_t>(model.mesh.n_elements()), 1);
  for (const Index e : fluid.mesh.elements) element_domain[static_cast<std::size_t>(e)] = 0;
  const std::string error = test::error_of([&] { (void)explicit_fe::decompose_coupled(solid, fluid, 2, &element_domain); });
  EXPECT_NE(error.find("subdomain 1 of 2 holds no solid element"), std::string::npos) << error;
  // From a decomposition file: the file is named, and fewer subdomains are not what to ask.
  const std::string from_file =
      test::error_of([&] { (void)explicit_fe::decompose_coupled(solid, fluid, 2, &element_domain, "split.dec"); });
  test::expect_contains(from_file, {"split.dec: subdomain 1 of 2 holds no solid element", "some of each"});
  EXPECT_EQ(from_file.find("fewer"), std::string::npos) << from_file;
}

// Sums over shared nodes in another order: the runs differ by rounding, which ~150 steps carry on
// (seen: up to 2.4e-14 of the largest value in double, 3e-6 in float; the bounds allow 40 and 10
// times that). Without the fluid's exchange the differences are of the values' size.
TEST(ExplicitFluidParts, ADecomposedRunEqualsOneDomain2d) {
  expect_decomposed_equals_one(water_field_receivers("double"), "serial", 3, 1e-12);
  // An assembled K: not split by rows (whose second part would overwrite the coupling's forces).
  expect_decomposed_equals_one(water_field_receivers("double"), "serial", 3, 1e-12, true, "block_ell");
  expect_decomposed_equals_one(water_field_receivers("float"), "serial", 2, 3e-5);
}

TEST(ExplicitFluidParts, ADecomposedRunEqualsOneDomain3d) {
  expect_decomposed_equals_one(water_on_steel_box("double"), "serial", 2, 1e-12);
}

// On a GPU, colour by colour; and by atomic adds (the default), whose sums land in any order in
// both runs (float: as the decomposition's rounding).
TEST(ExplicitFluidPartsGpu, ADecomposedRunEqualsOneDomain) {
  TREMOR_REQUIRE_GPU();
  expect_decomposed_equals_one(water_field_receivers("double"), "cuda", 3, 1e-12);
  expect_decomposed_equals_one(water_on_steel_box("float"), "cuda", 2, 3e-5);
  expect_decomposed_equals_one(water_on_steel_box("double"), "cuda", 3, 1e-12, false);
  expect_decomposed_equals_one(water_field_receivers("float"), "cuda", 2, 3e-5, false);
}

// A decomposed run's checkpoint holds the model's state: the fluid's potential merged from its
// parts, its receivers' pending samples after the solid's. Resumed on the same subdomains the run
// goes on with the same bits; on one domain, within rounding (sums in another order).
TEST(ExplicitFluidParts, ACheckpointOfADecomposedRunResumesOnAnyDomains) {
  const Model model = water_field_receivers("double");
  RunOptions options;
  options.backend = "serial";
  options.domains = 3;
  options.check_every = 5;
  const auto full = explicit_fe::run_explicit(model, options);
  ASSERT_TRUE(full.ok()) << full.message;
  // Stopped at 9/10 of the run, as the pulse crosses the interface (a multiple of 10: a check every
  // 5 steps, a checkpoint every stop / 2).
  const long long stop = full.steps * 9 / 10 / 10 * 10;
  options.checkpoint_every = static_cast<int>(stop / 2);
  test::Kept first;
  first.stop_after = stop;
  const auto stopped = explicit_fe::run_explicit(model, options, &first);
  ASSERT_EQ(stopped.status, explicit_fe::RunStatus::Stopped);
  ASSERT_EQ(first.checkpoints.size(), 2u);
  const SolverState& state = first.checkpoints.back();
  test::expect_water_field_checkpoint(state);
  options.checkpoint_every = 0;
  options.resume = &state;
  const auto whole = by_name(full.histories), before = by_name(stopped.histories);
  for (const int domains : {3, 1}) {
    SCOPED_TRACE(domains);
    options.domains = domains;
    const auto resumed = explicit_fe::run_explicit(model, options);
    ASSERT_TRUE(resumed.ok()) << resumed.message;
    const auto after = by_name(resumed.histories);
    for (const auto& [name, history] : whole) {
      SCOPED_TRACE(name);
      std::vector<double> values = before.at(name).values;
      values.insert(values.end(), after.at(name).values.begin(), after.at(name).values.end());
      ASSERT_EQ(values.size(), history.values.size());
      double largest = 0.0, difference = 0.0;
      for (std::size_t k = 0; k < values.size(); ++k) {
        largest = std::max(largest, std::abs(history.values[k]));
        difference = std::max(difference, std::abs(values[k] - history.values[k]));
      }
      EXPECT_GT(largest, 0.0);
      // The same subdomains: the same sums, bit for bit; one domain: as ADecomposedRunEqualsOneDomain.
      EXPECT_LE(difference, domains == 3 ? 0.0 : 1e-12 * largest);
    }
  }
}

// Over a group of threads (--gpus N, as processes under mpirun: each steps its part, the first
// merges the samples): one domain's histories within rounding, and the same decomposition's in one
// process bit for bit (the exchanges sum point to point in the same order); and a stop and a
// resume from the checkpoint the first member gathered, which give the whole run's bits.
TEST(ExplicitFluidParts, OverThreadsAsInOneProcess) {
  const Model model = water_field_receivers("double");
  for (const int n : {2, 3}) {
    SCOPED_TRACE(n);
    const std::vector<parallel::Communicator> members = parallel::Communicator::threads(n);
    RunOptions options;
    options.backend = "serial";
    options.domains = n;
    options.check_every = 13;
    const explicit_fe::ExplicitRun run = explicit_fe::run_threads(model, options, nullptr, members);
    ASSERT_TRUE(run.ok()) << run.message;
    EXPECT_EQ(run.preflight.processes, n);  // a member a part
    const explicit_fe::ExplicitRun same = explicit_fe::run_explicit(model, options);
    test::expect_histories_close(same.histories, run.histories, 0.0);
    options.domains = 1;
    const explicit_fe::ExplicitRun one = explicit_fe::run_explicit(model, options);
    test::expect_histories_close(one.histories, run.histories, 1e-12);  // as ADecomposedRunEqualsOneDomain
  }
  const std::vector<parallel::Communicator> members = parallel::Communicator::threads(2);
  RunOptions options;
  options.backend = "serial";
  options.domains = 2;
  options.check_every = 7;
  test::Kept whole;
  const explicit_fe::ExplicitRun full = explicit_fe::run_threads(model, options, &whole, members);
  ASSERT_TRUE(full.ok());
  options.checkpoint_every = 7;
  test::Kept first;
  first.stop_after = 2 * full.steps / 3 / 7 * 7;  // as the pulse crosses the interface
  const explicit_fe::ExplicitRun stopped = explicit_fe::run_threads(model, options, &first, members);
  ASSERT_EQ(stopped.status, explicit_fe::RunStatus::Stopped);
  ASSERT_FALSE(first.checkpoints.empty());
  const SolverState state = first.checkpoints.back();
  ASSERT_EQ(state.fluid_current.size(), 45u);
  EXPECT_GT(test::largest(state.fluid_current), 0.0);
  options.resume = &state;
  options.checkpoint_every = 0;
  test::Kept second;
  const explicit_fe::ExplicitRun resumed = explicit_fe::run_threads(model, options, &second, members);
  ASSERT_TRUE(resumed.ok()) << resumed.message;
  test::expect_halves_make_the_whole(full, whole, stopped, first, resumed, second);
}

// What a run's snapshots show: per snapshot its step, then displacement, velocity and pressure.
struct Snapshots final : explicit_fe::Observer {
  std::vector<long long> steps;
  std::vector<std::vector<double>> displacement, velocity, pressure;
  std::vector<SolverState> checkpoints;
  long long stop = 0, step = 0;
  void on_snapshot(const explicit_fe::Snapshot& s) override {
    steps.push_back(s.step);
    displacement.emplace_back(s.displacement.begin(), s.displacement.end());
    velocity.emplace_back(s.velocity.begin(), s.velocity.end());
    pressure.emplace_back(s.pressure.begin(), s.pressure.end());
  }
  void on_checkpoint(const SolverState& state) override { checkpoints.push_back(state); }
  void on_progress(long long s, long long, double) override { step = s; }
  bool stop_requested() override { return stop > 0 && step >= stop; }
};

// Each field of `got` within `tolerance` of `want`'s largest value in it, snapshot by snapshot,
// NaN (pressure at a node no fluid element holds) where `want` has NaN.
void expect_snapshots_close(const Snapshots& want, const Snapshots& got, double tolerance) {
  ASSERT_EQ(got.steps, want.steps);
  ASSERT_GT(want.steps.size(), 10u);
  std::size_t nans = 0;
  const auto close = [&](const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b,
                         const char* field) {
    double largest = 0.0, difference = 0.0;
    nans = 0;
    for (std::size_t s = 0; s < a.size(); ++s) {
      ASSERT_EQ(b[s].size(), a[s].size()) << field;
      for (std::size_t i = 0; i < a[s].size(); ++i) {
        if (std::isnan(a[s][i])) {
          EXPECT_TRUE(std::isnan(b[s][i])) << field << " " << i;
          ++nans;
          continue;
        }
        largest = std::max(largest, std::abs(a[s][i]));
        difference = std::max(difference, std::abs(a[s][i] - b[s][i]));
      }
    }
    EXPECT_GT(largest, 0.0) << field;
    EXPECT_LE(difference, tolerance * largest) << field;
  };
  close(want.displacement, got.displacement, "displacement");
  close(want.velocity, got.velocity, "velocity");
  // The steel's nodes below the interface have no pressure: 4 rows of 9 nodes.
  close(want.pressure, got.pressure, "pressure");
  EXPECT_EQ(nans, want.steps.size() * 36);
}

// Snapshots of a decomposed run: the steel's motion, the water's from its potential at the nodes
// only it holds, the pressure at the water's nodes; each node taken by one part (the interface's
// by a part holding it on both sides, the water's by the part of the element a receiver there
// reads). As one domain's within rounding, in one process and over threads.
TEST(ExplicitFluidParts, SnapshotsOfADecomposedRunAreOneDomains) {
  const Model model = test::water_field("double", 5, true);
  RunOptions options;
  options.backend = "serial";
  Snapshots one;
  ASSERT_TRUE(explicit_fe::run_explicit(model, options, &one).ok());
  for (const int n : {2, 3}) {
    SCOPED_TRACE(n);
    options.domains = n;
    Snapshots split;
    ASSERT_TRUE(explicit_fe::run_explicit(model, options, &split).ok());
    expect_snapshots_close(one, split, 1e-12);  // as ADecomposedRunEqualsOneDomain
    const std::vector<parallel::Communicator> members = parallel::Communicator::threads(n);
    Snapshots threads;
    ASSERT_TRUE(explicit_fe::run_threads(model, options, &threads, members).ok());
    expect_snapshots_close(split, threads, 0.0);
  }
}

// The same on a GPU (colour by colour), in float: the fields within the decomposition's rounding
// (as ADecomposedRunEqualsOneDomain's 3e-5).
TEST(ExplicitFluidPartsGpu, SnapshotsOfADecomposedRunAreOneDomains) {
  TREMOR_REQUIRE_GPU();
  const Model model = test::water_field("float", 5, true);
  RunOptions options;
  options.backend = "cuda";
  options.deterministic = true;
  Snapshots one, split;
  ASSERT_TRUE(explicit_fe::run_explicit(model, options, &one).ok());
  options.domains = 3;
  ASSERT_TRUE(explicit_fe::run_explicit(model, options, &split).ok());
  expect_snapshots_close(one, split, 3e-5);
}

// A decomposed run's checkpoint holds the pending velocity snapshot as one domain's does (the
// water's motion in place at its nodes), so a run stopped on 3 subdomains resumes on one with its
// snapshots, and one stopped on one domain on 3.
TEST(ExplicitFluidParts, APendingSnapshotResumesOnOtherDomains) {
  const Model model = test::water_field("double", 5, true);
  RunOptions options;
  options.backend = "serial";
  options.check_every = 5;
  Snapshots whole;
  ASSERT_TRUE(explicit_fe::run_explicit(model, options, &whole).ok());
  const long long stop = static_cast<long long>(whole.steps.back()) * 9 / 10 / 10 * 10;
  for (const auto& [from, to] : {std::pair{3, 1}, std::pair{1, 3}}) {
    SCOPED_TRACE(str(from, " to ", to));
    options.domains = from;
    options.checkpoint_every = static_cast<int>(stop / 2);
    options.resume = nullptr;
    Snapshots first;
    first.stop = stop;
    ASSERT_EQ(explicit_fe::run_explicit(model, options, &first).status, explicit_fe::RunStatus::Stopped);
    ASSERT_EQ(first.checkpoints.size(), 2u);
    const SolverState state = first.checkpoints.back();
    EXPECT_TRUE(state.snapshot.active);  // the velocity snapshot of step `stop` waits for the next
    options.domains = to;
    options.checkpoint_every = 0;
    options.resume = &state;
    Snapshots second;
    ASSERT_TRUE(explicit_fe::run_explicit(model, options, &second).ok());
    Snapshots both = first;
    both.checkpoints.clear();
    for (std::size_t s = 0; s < second.steps.size(); ++s) {
      both.steps.push_back(second.steps[s]);
      both.displacement.push_back(second.displacement[s]);
      both.velocity.push_back(second.velocity[s]);
      both.pressure.push_back(second.pressure[s]);
    }
    expect_snapshots_close(whole, both, 1e-12);
  }
}

}  // namespace
}  // namespace tremor
