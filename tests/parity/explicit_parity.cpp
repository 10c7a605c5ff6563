// The explicit solver on the GPU against the CPU: every operator, both precisions, on the
// examples and on distorted two-material meshes of several element types with every feature of a
// run (point sources, prescribed motion, absorbing layers, receivers at nodes and positions with
// velocity and acceleration, snapshots with velocity, checkpoint and resume).
//
// Tolerances (relative L2 over each history, against the largest history of the run):
//   double 1e-10: the GPU contracts multiply-adds into FMAs, so each step differs from the CPU in
//                 the last bits; over a few hundred steps of a stable scheme those differences
//                 stay near 1e-13 relative. 1e-10 leaves room and still catches any real error
//                 (a wrong entry, a missed term or a race shows at 1e-3 or more).
//   float   1e-4: the same with a 2^-24 unit roundoff instead of 2^-53.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/load.hpp"
#include "tremor/mesh/generate.hpp"
#include "unit/sparse_test_models.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::ExplicitRun;
using explicit_fe::RunOptions;

std::string example(const std::string& name) {
  return test::source_path("examples/" + name + "/model.toml");
}

struct Collector : explicit_fe::Observer {
  std::vector<std::vector<double>> snapshots;  // displacement then velocity, per snapshot
  std::vector<long long> steps;
  std::vector<explicit_fe::SolverState> checkpoints;
  void on_snapshot(const explicit_fe::Snapshot& snapshot) override {
    std::vector<double> values(snapshot.displacement.begin(), snapshot.displacement.end());
    values.insert(values.end(), snapshot.velocity.begin(), snapshot.velocity.end());
    snapshots.push_back(std::move(values));
    steps.push_back(snapshot.step);
  }
  void on_checkpoint(const explicit_fe::SolverState& state) override { checkpoints.push_back(state); }
};

// Histories and snapshots of `gpu` equal those of `cpu` within `tolerance` (see the top).
void expect_close(const ExplicitRun& cpu, const Collector& cpu_seen, const ExplicitRun& gpu, const Collector& gpu_seen,
                  double tolerance) {
  ASSERT_TRUE(cpu.ok()) << cpu.message;
  ASSERT_TRUE(gpu.ok()) << gpu.message;
  ASSERT_EQ(cpu.histories.size(), gpu.histories.size());
  double scale = 0.0;
  for (const auto& history : cpu.histories) scale = std::max(scale, test::l2_norm(history.values));
  ASSERT_GT(scale, 0.0) << "nothing moved: the comparison would prove nothing";
  for (std::size_t h = 0; h < cpu.histories.size(); ++h) {
    SCOPED_TRACE(cpu.histories[h].name);
    EXPECT_EQ(cpu.histories[h].times, gpu.histories[h].times);
    ASSERT_EQ(cpu.histories[h].values.size(), gpu.histories[h].values.size());
    EXPECT_LE(test::l2_distance(cpu.histories[h].values, gpu.histories[h].values), tolerance * scale);
  }
  ASSERT_EQ(cpu_seen.steps, gpu_seen.steps);
  for (std::size_t s = 0; s < cpu_seen.snapshots.size(); ++s) {
    const double size = std::max(test::l2_norm(cpu_seen.snapshots[s]), scale);
    EXPECT_LE(test::l2_distance(cpu_seen.snapshots[s], gpu_seen.snapshots[s]), tolerance * size) << "snapshot " << s;
  }
}

// Runs `model` for `steps` steps on the CPU (OpenMP; cuSPARSE's reference is tremor's CSR) and
// on the GPU with each operator and precision, and compares.
void compare_backends(const Model& model, long long steps, const std::vector<std::string>& operators) {
  RunOptions options;
  options.backend = "openmp";
  const double dt = explicit_fe::preflight(model, options).dt;
  options.duration = static_cast<double>(steps) * dt;
  for (const std::string precision : {"double", "float"})
    for (const std::string& kind : operators) {
      if (!explicit_fe::operators().find(kind)->takes(model.mesh)) continue;  // sem: GLL hexahedra only
      SCOPED_TRACE(precision + " " + kind);
      options.precision = precision;
      options.backend = "openmp";
      options.operator_kind = kind == "cusparse" ? "assembled" : kind;
      Collector cpu_seen, gpu_seen;
      const ExplicitRun cpu = explicit_fe::run_explicit(model, options, &cpu_seen);
      options.backend = "cuda";
      options.operator_kind = kind;
      const ExplicitRun gpu = explicit_fe::run_explicit(model, options, &gpu_seen);
      EXPECT_EQ(gpu.preflight.backend, Backend::Cuda);
      expect_close(cpu, cpu_seen, gpu, gpu_seen, precision == "double" ? 1e-10 : 1e-4);
    }
}

// Every operator the GPU runs: CSR, nodal-block CSR, ELL, SELL, JDS, block ELL, the partitioned
// layout, element by element, cuSPARSE, and on GLL hexahedra sum-factorised.
const std::vector<std::string> all_operators = explicit_fe::operators().names(Backend::Cuda);

// Receivers at the first source's first node, or its point (velocity and acceleration every step),
// so the comparison sees motion from the first steps whatever the example's own receivers record.
Model with_source_receiver(Model model) {
  Receiver receiver;
  receiver.name = "at_source";
  const PointSource& source = model.point_sources.at(0);
  if (!source.nodes.empty())
    receiver.nodes = {source.nodes.front()};
  else
    receiver.positions = {source.position.value()};
  receiver.velocity = receiver.acceleration = true;
  model.receivers.push_back(receiver);
  return model;
}

TEST(ExplicitParityGpu, WeldExample) {
  TREMOR_REQUIRE_GPU();
  compare_backends(with_source_receiver(io::load_model(example("weld-block-2d"))), 300, all_operators);
}

TEST(ExplicitParityGpu, LayeredGeologyExample) {
  TREMOR_REQUIRE_GPU();
  compare_backends(with_source_receiver(io::load_model(example("layered-geology-2d"))), 300, all_operators);
}

TEST(ExplicitParityGpu, PlateExample) {
  TREMOR_REQUIRE_GPU();
  compare_backends(with_source_receiver(io::load_model(example("plate-a0-3d"))), 150, all_operators);
}

// The examples (tri3, quad4 and hex8) through the tiled matrix-free kernel, a GPU run's
// matrix_free, in double against the CPU's assembled run, to 1e-12: the tiles evaluate K_e u_e by
// edge differences and sum each node's forces in another order than the assembled product, and the
// GPU contracts multiply-adds: differences in the last bits each step that the stable scheme
// carries without growth, ~1e-14 of the largest history after a few hundred steps.
TEST(ExplicitParityGpu, ExamplesThroughTheTiledKernelInDouble) {
  TREMOR_REQUIRE_GPU();
  for (const auto& [name, steps] : {std::pair{"weld-block-2d", 300}, {"layered-geology-2d", 300}, {"plate-a0-3d", 150}}) {
    SCOPED_TRACE(name);
    const Model model = with_source_receiver(io::load_model(example(name)));
    RunOptions options;
    options.backend = "openmp";
    options.precision = "double";
    options.operator_kind = "assembled";
    options.duration = static_cast<double>(steps) * explicit_fe::preflight(model, options).dt;
    Collector cpu_seen, gpu_seen;
    const ExplicitRun cpu = explicit_fe::run_explicit(model, options, &cpu_seen);
    options.backend = "cuda";
    options.operator_kind = "matrix_free";
    const ExplicitRun gpu = explicit_fe::run_explicit(model, options, &gpu_seen);
    expect_close(cpu, cpu_seen, gpu, gpu_seen, 1e-12);
    double scale = 0.0, largest = 0.0;
    for (const auto& history : cpu.histories) scale = std::max(scale, test::l2_norm(history.values));
    for (std::size_t h = 0; h < cpu.histories.size() && h < gpu.histories.size(); ++h)
      largest = std::max(largest, test::l2_distance(cpu.histories[h].values, gpu.histories[h].values) / scale);
    std::printf("%s, %d steps: tiled matrix_free on the GPU against assembled on the CPU, double: %.2e\n", name,
                steps, largest);
  }
}

// A distorted two-material mesh (test::two_section_model) with a point source, a prescribed
// displacement on the xmin side, an ALID layer on xmax, receivers at a node and at positions,
// and snapshots with velocity every 7 steps.
Model featured_model(ElementType type, int order, Size cells) {
  Model model = test::two_section_model(type, order, cells, 0.15);
  const int dim = model.mesh.dim();
  const Index centre = model.mesh.n_nodes() / 2;
  PointSource source;
  source.nodes = {centre};
  source.direction = {0.6, 0.8, dim == 3 ? 0.3 : 0.0};
  source.amplitude = 1e3;
  source.signal = Signal::ricker(2e5);
  source.origin = "parity source";
  model.point_sources.push_back(source);
  PrescribedDisplacement motion;
  motion.node_set = "xmin";
  motion.nodes = model.mesh.node_sets.at("xmin");
  motion.components = {0};
  motion.factor = {1.0, 0.0, 0.0};
  motion.amplitude = 1e-9;
  motion.signal = Signal::ricker(1e5);
  motion.origin = "parity motion";
  model.prescribed.push_back(motion);
  AbsorbingLayer layer;
  layer.faces = {BoxFace::XMax};
  layer.thickness = 0.25;
  layer.frequency = 2e5;
  layer.origin = "parity layer";
  model.absorbing.push_back(layer);
  Receiver at_node;
  at_node.name = "node";
  at_node.nodes = {centre};
  at_node.velocity = at_node.acceleration = true;
  model.receivers.push_back(at_node);
  Receiver at_positions;
  at_positions.name = "positions";
  at_positions.positions = {{0.31, 0.27, dim == 3 ? 0.22 : 0.0}, {0.74, 0.52, dim == 3 ? 0.41 : 0.0}};
  at_positions.velocity = true;
  at_positions.every_n_steps = 3;
  model.receivers.push_back(at_positions);
  OutputSettings output;
  output.snapshot_every = 7;
  output.velocity = true;
  model.output = output;
  ExplicitSettings settings;
  settings.duration = 1.0;  // replaced by the step count
  model.explicit_settings = settings;
  model.validate();
  return model;
}

const struct FeaturedCase {
  ElementType type;
  int order;
  Size cells;
} featured_cases[] = {{ElementType::Tri3, 1, 24}, {ElementType::Quad8, 1, 12}, {ElementType::QuadGLL, 4, 6},
                      {ElementType::Tet4, 1, 8},  {ElementType::Tet10, 1, 4}, {ElementType::Hex8, 1, 8},
                      {ElementType::Hex20, 1, 4}, {ElementType::HexGLL, 3, 3}};

// On the host: OpenMP equals Serial bit for bit on the featured models (every feature of a run,
// every element family), for the CSR, nodal-block ELL, matrix-free and (GLL hexahedra) sem operators.
TEST(ExplicitParity, FeaturedModelsOpenMpEqualsSerial) {
  for (const auto& c : featured_cases) {
    SCOPED_TRACE(element_name(c.type, c.order));
    const Model model = featured_model(c.type, c.order, c.cells);
    for (const char* kind : {"assembled", "block_ell", "matrix_free", "sem"}) {
      if (!explicit_fe::operators().find(kind)->takes(model.mesh)) continue;
      SCOPED_TRACE(kind);
      RunOptions options;
      options.operator_kind = kind;
      options.backend = "serial";
      options.duration = 30 * explicit_fe::preflight(model, options).dt;
      Collector serial_seen, openmp_seen;
      const ExplicitRun serial = explicit_fe::run_explicit(model, options, &serial_seen);
      options.backend = "openmp";
      const ExplicitRun openmp = explicit_fe::run_explicit(model, options, &openmp_seen);
      expect_close(serial, serial_seen, openmp, openmp_seen, 0.0);
    }
  }
}

// A whole run through the sem operator (every feature of featured_model on curved GLL hexahedra
// of order 3) equals the run through the assembled K: the same K u to rounding each step, so the
// histories and snapshots agree to 1e-10 after 120 steps.
TEST(ExplicitParity, SemRunEqualsAssembledRun) {
  const Model model = featured_model(ElementType::HexGLL, 3, 3);
  RunOptions options;
  options.backend = "openmp";
  options.duration = 120 * explicit_fe::preflight(model, options).dt;
  options.operator_kind = "assembled";
  Collector assembled_seen, sem_seen;
  const ExplicitRun assembled = explicit_fe::run_explicit(model, options, &assembled_seen);
  options.operator_kind = "sem";
  const ExplicitRun sem = explicit_fe::run_explicit(model, options, &sem_seen);
  EXPECT_EQ(sem.preflight.op->name, "sem");
  expect_close(assembled, assembled_seen, sem, sem_seen, 1e-10);
}

TEST(ExplicitParityGpu, DistortedMeshesOfEveryFamily) {
  TREMOR_REQUIRE_GPU();
    for (const auto& c : featured_cases) {
    SCOPED_TRACE(element_name(c.type, c.order));
    compare_backends(featured_model(c.type, c.order, c.cells), 120, all_operators);
  }
}

// A GPU run resumed from a checkpoint records exactly what the uninterrupted GPU run records
// after that step, bit for bit (the same kernels in the same order), when both assemble K colour
// by colour (--deterministic): atomic adds sum in the order they land, so two set-ups' K may
// differ in the last bits, and so may two GPU runs, resumed or not.
TEST(ExplicitParityGpu, ResumeFromACheckpointIsBitIdentical) {
  TREMOR_REQUIRE_GPU();
  const Model model = featured_model(ElementType::Quad4, 1, 16);
  for (const std::string precision : {"double", "float"}) {
    SCOPED_TRACE(precision);
    RunOptions options;
    options.backend = "cuda";
    options.precision = precision;
    options.operator_kind = "block_csr";
    options.deterministic = true;
    options.duration = 100 * explicit_fe::preflight(model, options).dt;
    options.checkpoint_every = 40;
    Collector whole;
    const ExplicitRun full = explicit_fe::run_explicit(model, options, &whole);
    ASSERT_TRUE(full.ok()) << full.message;
    ASSERT_FALSE(whole.checkpoints.empty());
    const explicit_fe::SolverState& state = whole.checkpoints.front();
    options.resume = &state;
    Collector rest;
    const ExplicitRun resumed = explicit_fe::run_explicit(model, options, &rest);
    ASSERT_TRUE(resumed.ok()) << resumed.message;
    for (std::size_t h = 0; h < full.histories.size(); ++h) {
      const auto& a = full.histories[h];
      const auto& b = resumed.histories[h];
      ASSERT_LE(b.times.size(), a.times.size());
      const std::size_t skip = a.times.size() - b.times.size();
      const std::size_t width = a.sample_size();
      for (std::size_t s = 0; s < b.times.size(); ++s) {
        EXPECT_EQ(a.times[skip + s], b.times[s]);
        for (std::size_t k = 0; k < width; ++k)
          ASSERT_EQ(a.values[(skip + s) * width + k], b.values[s * width + k]) << a.name << " sample " << s;
      }
    }
    const std::size_t skip = whole.snapshots.size() - rest.snapshots.size();
    for (std::size_t s = 0; s < rest.snapshots.size(); ++s) EXPECT_EQ(whole.snapshots[skip + s], rest.snapshots[s]);
  }
}

// A run decomposed into subdomains on one GPU (the in-process exchange's kernels there) equals the
// single-domain CPU run, as the single-domain GPU run does: every operator, both precisions, 3
// subdomains, the featured model's every feature (snapshots with velocity included).
TEST(ExplicitParityGpu, DecomposedRunOnOneGpu) {
  TREMOR_REQUIRE_GPU();
  for (const auto& c : featured_cases) {
    SCOPED_TRACE(element_name(c.type, c.order));
    const Model model = featured_model(c.type, c.order, c.cells);
    RunOptions options;
    options.backend = "openmp";
    options.duration = 120 * explicit_fe::preflight(model, options).dt;
    for (const std::string precision : {"double", "float"})
      for (const std::string& kind : all_operators) {
        if (kind == "partitioned" || !explicit_fe::operators().find(kind)->takes(model.mesh)) continue;
        SCOPED_TRACE(precision + " " + kind);
        options.precision = precision;
        options.backend = "openmp";
        options.operator_kind = kind == "cusparse" ? "assembled" : kind;
        options.domains = 1;
        Collector cpu_seen, gpu_seen;
        const ExplicitRun cpu = explicit_fe::run_explicit(model, options, &cpu_seen);
        options.backend = "cuda";
        options.operator_kind = kind;
        options.domains = 3;
        const ExplicitRun gpu = explicit_fe::run_explicit(model, options, &gpu_seen);
        expect_close(cpu, cpu_seen, gpu, gpu_seen, precision == "double" ? 1e-10 : 1e-4);
      }
  }
}

// A run that blows up on the GPU stops with the step and the node, as on the CPU.
TEST(ExplicitParityGpu, NonFiniteStateIsReported) {
  TREMOR_REQUIRE_GPU();
  Model model = featured_model(ElementType::Quad4, 1, 8);
  RunOptions options;
  options.backend = "cuda";
  options.allow_unstable = true;
  options.time_step = 3.0 * explicit_fe::preflight(model, options).stable_dt;
  options.duration = 400 * *options.time_step;
  const ExplicitRun run = explicit_fe::run_explicit(model, options);
  EXPECT_EQ(run.status, explicit_fe::RunStatus::Failed);
  EXPECT_GT(run.bad_step, 0);
  EXPECT_NE(run.message.find("not finite"), std::string::npos) << run.message;
}

}  // namespace
}  // namespace tremor
