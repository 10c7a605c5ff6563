// The explicit solver end to end on small blocks (explicit/solver.hpp): time-step choice and
// refusal, the NaN/Inf stop, float against double, the observer, the pre-flight numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "explicit_test_models.hpp"
#include "sparse_test_models.hpp"
#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/partition/block_file.hpp"
#include "tremor/fem/time_step.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/attenuation.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::Quantity;
using explicit_fe::RunOptions;

// The shared block (explicit_test_models.hpp): 1 MHz Ricker, receiver nodes 4 from the centre.
Model loaded_block(double duration = 3e-6) { return test::loaded_block(duration, 1e6, 4); }

TEST(ExplicitSolver, AutomaticStepIsSafetyTimesStable) {
  const Model model = loaded_block();
  const double stable = fem::stable_time_step(model).dt;
  const auto p = explicit_fe::preflight(model);
  EXPECT_DOUBLE_EQ(p.stable_dt, stable);
  EXPECT_DOUBLE_EQ(p.dt, 0.9 * stable);
  EXPECT_EQ(p.dt_source, "automatic");
  EXPECT_EQ(p.steps, static_cast<long long>(std::ceil(3e-6 / (0.9 * stable))));
  EXPECT_EQ(p.n_dofs, 13 * 13 * 2);
  // Points per wavelength: slowest speed (shear) / Ricker's highest frequency / element size
  // (the diagonal of a 10/12 mm square).
  const double shear = model.materials[0].min_wave_speed(), h = std::sqrt(2.0) * 0.01 / 12;
  EXPECT_NEAR(p.points_per_wavelength, shear / Signal::ricker(1e6).highest_frequency() / h, 1e-9);
  EXPECT_GT(p.memory_bytes, 0u);
  RunOptions options;
  options.safety_factor = 0.5;
  EXPECT_DOUBLE_EQ(explicit_fe::preflight(model, options).dt, 0.5 * stable);
}

TEST(ExplicitSolver, UnstableUserStepIsRefusedWithBothNumbers) {
  Model model = loaded_block();
  const fem::TimeStepEstimate stable = fem::stable_time_step(model);
  model.explicit_settings->time_step = 1.2 * stable.dt;
  try {
    (void)explicit_fe::run_explicit(model);
    FAIL() << "no error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(str("time step ", 1.2 * stable.dt, " s is above the stable time step ", stable.dt,
                               " s (set by element ", stable.label, ")")),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("allow_unstable = true in [explicit] (or --allow-unstable)"), std::string::npos)
        << message;
  }
  {
    // Given as an option (--dt), the option that allows it is named.
    explicit_fe::RunOptions options;
    options.time_step = 1.2 * stable.dt;
    const std::string message = test::error_of([&] { (void)explicit_fe::preflight(model, options); });
    EXPECT_NE(message.find("--dt: time step"), std::string::npos) << message;
    EXPECT_NE(message.find("or --allow-unstable to run it anyway"), std::string::npos) << message;
  }
  model.explicit_settings->time_step = 0.5 * stable.dt;  // a stable user step is taken as given
  EXPECT_DOUBLE_EQ(explicit_fe::preflight(model).dt, 0.5 * stable.dt);
  EXPECT_EQ(explicit_fe::preflight(model).dt_source, "user");
}

TEST(ExplicitSolver, UnstableAbaqusIncrementFallsBackToTheEstimateWithAWarning) {
  Model model = loaded_block();
  model.explicit_settings.reset();
  const double stable = fem::stable_time_step(model).dt;
  model.explicit_step = ExplicitStep{"STEP-1", 2e-6, 3.0 * stable};
  const log::Quiet quiet;
  const auto p = explicit_fe::preflight(model);
  const auto warnings = log::take_warnings();
  EXPECT_DOUBLE_EQ(p.dt, 0.9 * stable);
  EXPECT_DOUBLE_EQ(p.duration, 2e-6);
  const auto about_increment = std::count_if(warnings.begin(), warnings.end(), [](const std::string& warning) {
    return warning.find("the fixed time increment") != std::string::npos;
  });
  EXPECT_EQ(about_increment, 1);
  model.explicit_step->fixed_increment = 0.7 * stable;
  EXPECT_DOUBLE_EQ(explicit_fe::preflight(model).dt, 0.7 * stable);
}

TEST(ExplicitSolver, NonFiniteStateStopsWithStepAndNode) {
  Model model = loaded_block(200e-6);
  const double stable = fem::stable_time_step(model).dt;
  RunOptions options;
  options.time_step = 4.0 * stable;  // unstable: modes near the top grow ~60x per step
  options.allow_unstable = true;
  options.check_every = 10;
  const log::Quiet quiet;
  const auto run = explicit_fe::run_explicit(model, options);
  (void)log::take_warnings();
  ASSERT_EQ(run.status, explicit_fe::RunStatus::Failed);
  EXPECT_FALSE(run.ok());
  EXPECT_GT(run.bad_step, 0);
  EXPECT_EQ(run.bad_step % 10, 0);
  EXPECT_EQ(run.steps, run.bad_step);
  EXPECT_LT(run.steps, run.preflight.steps);
  EXPECT_NE(run.message.find(str("at step ", run.bad_step, " (t = ")), std::string::npos) << run.message;
  EXPECT_NE(run.message.find(str("node ", run.bad_node, " has u")), std::string::npos) << run.message;
  EXPECT_GE(run.bad_node, 1);
  EXPECT_LE(run.bad_node, 13 * 13);
  // What was recorded up to the stop is returned.
  ASSERT_EQ(run.histories.size(), 2u);
  EXPECT_EQ(run.histories[0].n_samples(), static_cast<std::size_t>(run.steps));
}

// A fluid's potential is checked as the solid's displacement is: here the water (a square 1 m above
// a steel one, no face between them) grows without bound at a step 10 times the stable one while
// the steel, unloaded, stays at rest, so only the fluid's check can stop the run.
TEST(ExplicitSolver, ANonFiniteFluidStopsTheRunNamingItsNode) {
  Mesh mesh(2);
  for (const double y : {0.0, 1.0, 2.0, 3.0})
    for (const double x : {0.0, 1.0}) {
      const double xy[2] = {x, y};
      mesh.add_node(mesh.n_nodes() + 1, xy);
    }
  ElementBlock& block = mesh.block_for(ElementType::Quad4);
  block.connectivity = {0, 1, 3, 2, 4, 5, 7, 6};  // steel [0, 1]^2, water [0, 1] x [2, 3]
  block.labels = {1, 2};
  Model model = test::water_on_steel(std::move(mesh));
  PointSource source;
  source.nodes = {6};  // (0, 3), a water node
  source.volume = true;
  source.amplitude = 1e-6;
  source.signal = Signal::ricker(600.0);
  source.origin = "m.toml:20";
  model.point_sources.push_back(source);
  ExplicitSettings settings;
  settings.duration = 1.0;
  model.explicit_settings = settings;
  const log::Quiet quiet;
  const double stable = explicit_fe::preflight(model).stable_dt;  // the steel's, a quarter of the water's
  // The water, apart from the steel, is said to be uncoupled, naming its element.
  const std::vector<std::string> warned = log::take_warnings();
  EXPECT_EQ(std::count_if(warned.begin(), warned.end(),
                          [](const std::string& w) {
                            return w.find("a region of the fluid (1 element, with element 2) shares no face with "
                                          "a solid") != std::string::npos;
                          }),
            1);
  model.explicit_settings->duration = 5000 * stable;  // 500 steps: a thousandfold growth per 3 or so
  RunOptions options;
  options.time_step = 10.0 * stable;  // unstable in the water too
  options.allow_unstable = true;
  options.check_every = 10;
  for (const std::string precision : {"double", "float"}) {
    options.precision = precision;
    const auto run = explicit_fe::run_explicit(model, options);
    (void)log::take_warnings();
    ASSERT_EQ(run.status, explicit_fe::RunStatus::Failed) << precision;
    EXPECT_LT(run.steps, run.preflight.steps);
    EXPECT_GE(run.bad_node, 5);  // a water node: labels 5 to 8
    EXPECT_NE(run.message.find(str("node ", run.bad_node, " has the fluid's p")), std::string::npos) << run.message;
  }
}

// A model nothing loads stays at rest: the pre-flight says so, naming the model (a deck's acoustic
// loads, which are not read, can leave one so); one that is loaded is not warned.
TEST(ExplicitSolver, AModelNothingLoadsIsSaidToStayAtRest) {
  Model model = loaded_block();
  const auto at_rest = [](const explicit_fe::Preflight& p) {
    return std::count_if(p.warnings.begin(), p.warnings.end(), [](const std::string& w) {
      return w.find("block: nothing loads the model") != std::string::npos;
    });
  };
  const log::Quiet quiet;
  EXPECT_EQ(at_rest(explicit_fe::preflight(model)), 0);
  model.point_sources.clear();
  EXPECT_EQ(at_rest(explicit_fe::preflight(model)), 1);
}

// A constant-Q fit worse than the 5% the solids are verified to hold is warned, naming the material:
// one solid over the default decade (about 50%); three over it (0.24%) are not.
TEST(ExplicitSolver, APoorConstantQFitIsWarned) {
  Model model = loaded_block();
  Attenuation q;
  q.q_p = 60.0;
  q.q_s = 30.0;
  q.reference_frequency = 1e6;
  model.materials[0].attenuation = q;
  model.materials[0].origin = "m.toml:7";
  const auto poor = [](const explicit_fe::Preflight& p) {
    return std::count_if(p.warnings.begin(), p.warnings.end(), [](const std::string& w) {
      return w.find("m.toml:7: material 'steel': its 1 standard linear solid fit a constant Q over [") !=
                 std::string::npos &&
             w.find("raise q_solids") != std::string::npos;
    });
  };
  const log::Quiet quiet;
  explicit_fe::RunOptions options;
  options.operator_kind = "matrix_free";
  EXPECT_EQ(poor(explicit_fe::preflight(model, options)), 0);
  model.materials[0].attenuation->solids = 1;
  const explicit_fe::Preflight one = explicit_fe::preflight(model, options);
  EXPECT_EQ(poor(one), 1);
  ASSERT_EQ(one.attenuation.size(), 1u);
  EXPECT_NE(one.attenuation[0].find(", 1 solid over ["), std::string::npos) << one.attenuation[0];
}

TEST(ExplicitSolver, FloatAndDoubleAgree) {
  const Model model = loaded_block();
  RunOptions options;
  options.precision = "double";
  const auto d = explicit_fe::run_explicit(model, options);
  options.precision = "float";
  options.operator_kind = "matrix_free";
  const auto f = explicit_fe::run_explicit(model, options);
  ASSERT_TRUE(d.ok() && f.ok());
  ASSERT_EQ(d.steps, f.steps);
  EXPECT_EQ(d.preflight.precision, Precision::Double);
  EXPECT_EQ(f.preflight.operator_kind(), "matrix_free");
  EXPECT_GT(d.dof_steps_per_second, 0.0);
  for (std::size_t h = 0; h < d.histories.size(); ++h) {
    const auto& a = d.histories[h].values;
    const auto& b = f.histories[h].values;
    ASSERT_EQ(a.size(), b.size());
    ASSERT_GT(a.size(), 0u);
    double scale = 0.0, difference = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      scale = std::max(scale, std::abs(a[i]));
      difference = std::max(difference, std::abs(a[i] - b[i]));
    }
    // Float rounding (6e-8) accumulates over ~200 steps of a well-conditioned update (the
    // scheme is stable, errors do not grow) to ~1e-6 of the peak; 1e-5 leaves margin.
    EXPECT_GT(scale, 0.0);
    EXPECT_LE(difference, 1e-5 * scale) << d.histories[h].name;
  }
}

struct Counting : explicit_fe::Observer {
  int starts = 0, samples = 0, progress = 0;
  long long last_step = 0;
  void on_start(const explicit_fe::Preflight&) override { ++starts; }
  void on_sample(const explicit_fe::History&, std::size_t) override { ++samples; }
  void on_progress(long long step, long long, double) override {
    ++progress;
    last_step = step;
  }
};

TEST(ExplicitSolver, ObserverSeesEverySample) {
  const Model model = loaded_block(1e-6);
  Counting observer;
  RunOptions options;
  options.check_every = 7;
  const auto run = explicit_fe::run_explicit(model, options, &observer);
  ASSERT_TRUE(run.ok());
  std::size_t samples = 0;
  for (const auto& history : run.histories) samples += history.n_samples();
  EXPECT_EQ(observer.starts, 1);
  EXPECT_EQ(static_cast<std::size_t>(observer.samples), samples);
  EXPECT_EQ(observer.last_step, run.steps);
  EXPECT_EQ(observer.progress, static_cast<int>((run.steps + 6) / 7));
  // The position receiver records every second step, displacement only: steps 0, 2, 4, ...
  EXPECT_EQ(run.histories[1].n_samples(), static_cast<std::size_t>(run.steps / 2 + 1));
}

TEST(ExplicitSolver, AutoOperatorIsTheBackendsFastest) {
  const Model model = loaded_block();
  RunOptions options;
  options.backend = "openmp";
  EXPECT_EQ(explicit_fe::preflight(model, options).operator_kind(), "block_csr");
  options.operator_kind = "auto";
  EXPECT_EQ(explicit_fe::preflight(model, options).operator_kind(), "block_csr");
  options.operator_kind = "ell";  // an explicit choice stays
  EXPECT_EQ(explicit_fe::preflight(model, options).operator_kind(), "ell");
  EXPECT_EQ(explicit_fe::operators().default_for(Backend::Cuda).name, "block_ell");
}

TEST(ExplicitSolver, MemoryEstimateOfThePartitionedLayout) {
  // The estimate sizes the layout the operator builds: within a factor 2 of its bytes() (the
  // estimate assumes 95% full blocks and the largest degree on every node). 10,201 nodes: blocks
  // are full, as on the meshes the estimate is for.
  const Model model = test::two_section_model(ElementType::Tri3, 1, 100, 0.1);
  const auto op = explicit_fe::make_stiffness_operator<double>(model, "partitioned", Exec::serial());
  const auto dim = static_cast<Size>(model.mesh.dim());
  const std::size_t estimate = explicit_fe::memory_estimate(model.mesh, *explicit_fe::operators().find("partitioned"),
                                                            node_graph(model.mesh).n_entries() * dim * dim, 8);
  const std::size_t state = static_cast<std::size_t>(op->n_dofs()) * (9 * 8 + 8);
  EXPECT_GT(estimate - state, op->bytes() / 2);
  EXPECT_LT(estimate - state, op->bytes() * 2);
}

// A run from a saved partition (tremor partition's block file) records what the run that
// partitions the mesh itself records, bit for bit, in the model's numbering and after RCM: each
// node sums its links in CSR's column order whatever the blocks (block_partitioned_matrix.hpp).
TEST(ExplicitSolver, BlockFileRunsEqualRunsThatPartition) {
  const Model model = loaded_block();
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "tremor_solver_blocks";
  std::filesystem::create_directories(folder);
  const std::string greedy = (folder / "greedy.blocks").string();
  partition::PartitionOptions options;
  options.partitioner = partition::Partitioner::Greedy;  // not the operator's own (aligned) choice
  options.block_size = 64;                               // several blocks on 169 nodes
  partition::write_block_file(greedy, partition::partition_mesh(model.mesh, options));
  for (const std::string ordering : {"none", "rcm"}) {
    SCOPED_TRACE(ordering);
    RunOptions run;
    run.backend = "serial";
    run.operator_kind = "partitioned";
    run.ordering = ordering;
    const auto own = explicit_fe::run_explicit(model, run);
    run.blocks = greedy;
    EXPECT_EQ(explicit_fe::preflight(model, run).blocks, greedy);
    const auto saved = explicit_fe::run_explicit(model, run);
    ASSERT_TRUE(own.ok() && saved.ok());
    ASSERT_EQ(own.histories.size(), saved.histories.size());
    for (std::size_t h = 0; h < own.histories.size(); ++h) {
      ASSERT_GT(own.histories[h].values.size(), 0u);
      EXPECT_EQ(own.histories[h].values, saved.histories[h].values) << own.histories[h].name;
    }
  }
  // Another mesh's file is refused before the run, naming it; another operator leaves it unused.
  Model other = loaded_block();
  other.mesh = generate_rectangle({0.0, 0.0}, {0.01, 0.01}, {12, 11}, ElementType::Quad4);
  RunOptions run;
  run.backend = "serial";
  run.operator_kind = "partitioned";
  run.blocks = greedy;
  try {
    (void)explicit_fe::preflight(other, run);
    ADD_FAILURE() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("the partition was made for another mesh"), std::string::npos)
        << error.what();
  }
  run.operator_kind = "ell";
  const auto p = explicit_fe::preflight(model, run);
  EXPECT_TRUE(p.blocks.empty());
  EXPECT_EQ(std::count_if(p.warnings.begin(), p.warnings.end(),
                          [](const std::string& w) { return w.find("is not used: the operator is ell") != std::string::npos; }),
            1);
  std::filesystem::remove_all(folder);
}

// Quadratic elements with HRZ-lumped mass are warned of (tests/verification/lumped_dispersion_test.cpp
// has the reason), once per type, naming the remedy; linear and GLL elements are not.
TEST(ExplicitSolver, QuadraticLumpedElementsAreWarnedOf) {
  RunOptions run;
  run.backend = "serial";
  const auto lumping_warnings = [&](ElementType type, int order, int dim) {
    Model model = dim == 3 ? test::loaded_bar(type, order, 2) : loaded_block();
    if (dim == 2) model.mesh = generate_rectangle({0.0, 0.0}, {0.01, 0.01}, {12, 12}, type, order);
    const auto p = explicit_fe::preflight(model, run);
    std::vector<std::string> found;
    for (const std::string& w : p.warnings)
      if (w.find("elements with lumped mass carry waves") != std::string::npos) found.push_back(w);
    return found;
  };
  for (const auto& [type, dim, remedy] : {std::tuple{ElementType::Hex20, 3, "--order 2"},
                                          std::tuple{ElementType::Tet10, 3, "mesh with tet4"},
                                          std::tuple{ElementType::Quad8, 2, "--order 2"}}) {
    const std::vector<std::string> found = lumping_warnings(type, 1, dim);
    ASSERT_EQ(found.size(), 1u) << element_name(type);
    EXPECT_EQ(found[0].rfind(element_name(type), 0), 0u) << found[0];
    EXPECT_NE(found[0].find(remedy), std::string::npos) << found[0];
  }
  EXPECT_TRUE(lumping_warnings(ElementType::Hex8, 1, 3).empty());
  EXPECT_TRUE(lumping_warnings(ElementType::HexGLL, 2, 3).empty());
  EXPECT_TRUE(lumping_warnings(ElementType::Tri6, 1, 2).empty());
  (void)log::take_warnings();
}

// Coarse-grained memory variables: sem keeps them; matrix_free is refused naming sem; elements with
// fewer values of i + j + k than solids (quad-gll1: 3) are refused naming the material, and the
// run's memory counts one solid's variables per point.
TEST(ExplicitSolver, CoarseGrainedMemoryVariablesWhereTheyFit) {
  const auto error_of = [](const Model& model, const char* kind) {
    RunOptions run;
    run.backend = "serial";
    run.operator_kind = kind;
    try {
      (void)explicit_fe::preflight(model, run);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  Model model = test::attenuating_bar();
  RunOptions run;
  run.backend = "serial";
  const std::size_t full = explicit_fe::preflight(model, run).memory_bytes;
  model.materials[0].attenuation->coarse_grained = true;
  EXPECT_EQ(error_of(model, "sem"), "");
  const std::size_t coarse = explicit_fe::preflight(model, run).memory_bytes;
  // 6 memory variables per GLL point instead of 18.
  EXPECT_LT(coarse, full);
  const std::string refused = error_of(model, "matrix_free");
  EXPECT_NE(refused.find("coarse-grained memory variables (q_coarse_grained)"), std::string::npos) << refused;
  EXPECT_NE(refused.find("use sem"), std::string::npos) << refused;
  Model block = loaded_block();
  block.mesh = generate_rectangle({0.0, 0.0}, {0.01, 0.01}, {12, 12}, ElementType::QuadGLL, 1);
  block.materials[0].attenuation = model.materials[0].attenuation;
  block.materials[0].attenuation->solids = 4;
  const std::string order = error_of(block, "sem");
  EXPECT_NE(order.find("material 'steel'"), std::string::npos) << order;
  EXPECT_NE(order.find("its 4 solids"), std::string::npos) << order;
  EXPECT_NE(order.find("quad-gll1 elements hold 3 of them at most"), std::string::npos) << order;
  block.materials[0].attenuation->solids = 3;
  EXPECT_EQ(error_of(block, "sem"), "");
}

TEST(ExplicitSolver, ConfigurationErrors) {
  Model model = loaded_block();
  RunOptions options;
  options.precision = "half";
  EXPECT_THROW((void)explicit_fe::preflight(model, options), Error);
  options = {};
  options.operator_kind = "element";
  EXPECT_THROW((void)explicit_fe::preflight(model, options), Error);
  model.explicit_settings.reset();
  try {
    (void)explicit_fe::preflight(model);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("no duration"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace tremor
