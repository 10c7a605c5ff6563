// A PML over a fluid's elements (explicit/pml.hpp with PmlField::Fluid, in the FluidTerm): the
// layer's elements leave K_f, its nodes' damping joins the fluid's, and its state goes through
// decomposed runs, checkpoints and the GPU as the solid's does. Its absorption is measured in
// tests/verification/absorbing_reflection_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "explicit_test_models.hpp"
#include "support/runs.hpp"
#include "support/support.hpp"
#include "tremor/core/format.hpp"
#include "tremor/explicit/fluid.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/fem/pml_law.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::History;
using explicit_fe::RunOptions;
using explicit_fe::SolverState;

// A square of water [0, 2]^2 m in 20 x 20 quadrilaterals around a steel square [0.8, 1.2]^2, a
// 3 kHz volume source at (0.5, 1), lined by a PML 0.4 m thick (four elements) on every face;
// receivers of pressure at every third node of the water before the layers.
Model lined_pool(const std::string& precision, double duration) {
  Mesh mesh = generate_rectangle({0.0, 0.0}, {2.0, 2.0}, {20, 20}, ElementType::Quad4, 1);
  for (Index e = 0; e < mesh.n_elements(); ++e) {
    const double x = test::element_centre(mesh, e, 0), y = test::element_centre(mesh, e, 1);
    mesh.element_sets[x > 0.8 && x < 1.2 && y > 0.8 && y < 1.2 ? "steel" : "water"].push_back(e);
  }
  Model model;
  model.source = "m.toml";
  model.mesh = std::move(mesh);
  test::add_water_and_steel(model);
  ExplicitSettings settings;
  settings.duration = duration;
  settings.precision = precision;
  model.explicit_settings = settings;
  PointSource source;
  source.nodes = {10 * 21 + 5};  // (0.5, 1)
  source.volume = true;
  source.amplitude = 1e-6;
  source.signal = Signal::ricker(3000.0);
  source.origin = "m.toml:20";
  model.point_sources.push_back(source);
  Receiver pressure;
  pressure.name = "p";
  pressure.displacement = false;
  pressure.pressure = true;
  for (Index node = 0; node < model.mesh.n_nodes(); node += 3) {
    const auto x = model.mesh.node(node);
    const bool inside = x[0] > 0.45 && x[0] < 1.55 && x[1] > 0.45 && x[1] < 1.55;
    const bool steel = x[0] > 0.85 && x[0] < 1.15 && x[1] > 0.85 && x[1] < 1.15;
    if (inside && !steel) pressure.nodes.push_back(node);
  }
  model.receivers = {pressure};
  AbsorbingLayer layer;
  layer.kind = AbsorbingKind::Pml;
  layer.faces = {BoxFace::XMin, BoxFace::XMax, BoxFace::YMin, BoxFace::YMax};
  layer.thickness = 0.4;
  layer.power = 2.0;
  layer.origin = "m.toml:70";
  model.absorbing.push_back(layer);
  model.validate();
  return model;
}

using test::by_name;

// Every history of `b` within tolerance x its largest value of `a`'s, sample by sample, and
// reached by the wave (not a comparison of zeros).
void expect_close(const std::vector<History>& a, const std::vector<History>& b, double tolerance) {
  const auto want = by_name(a), got = by_name(b);
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [name, history] : want) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(got.count(name));
    const std::vector<double>& values = got.at(name).values;
    ASSERT_EQ(values.size(), history.values.size());
    const double largest = test::largest(history.values);
    EXPECT_GT(largest, 0.0);
    EXPECT_LE(test::difference(history.values, values), tolerance * largest);
  }
}

// The layer's fluid elements leave K_f for the PML; the pre-flight takes the model, with the
// fluid's d0 from the water's sound speed (the reflection it is designed for is the water's), and
// its stable step is the same as without the layer (K_f whole bounds it, as the solid's K does
// its own).
TEST(FluidPml, TheLayersElementsLeaveTheFluidsStiffness) {
  const Model model = lined_pool("double", 1e-3);
  RunOptions options;
  options.backend = "serial";
  const explicit_fe::Preflight lined = explicit_fe::preflight(model, options);
  ASSERT_TRUE(lined.pml.any());
  ASSERT_TRUE(lined.fluid);
  ASSERT_TRUE(lined.fluid->pml.any());
  // d0 = (N + 1) c ln(1 / R) / (2 L): c the steel's P speed for the solid, the water's for the fluid.
  EXPECT_NEAR(lined.fluid->pml.sides[0][0].d0 / lined.pml.sides[0][0].d0, 1480.0 / 5960.0, 1e-12);
  // The pre-flight's lines: the layer's for the solid, then for the fluid, each with its d0.
  ASSERT_EQ(lined.pml_layers.size(), 2u);
  EXPECT_NE(lined.pml_layers[1].find(", in the fluid"), std::string::npos) << lined.pml_layers[1];
  EXPECT_NE(lined.pml_layers[1].find(str("d0 ", lined.fluid->pml.sides[0][0].d0, " 1/s")), std::string::npos)
      << lined.pml_layers[1];
  Model bare = model;
  bare.absorbing.clear();
  EXPECT_EQ(explicit_fe::preflight(bare, options).dt, lined.dt);
  // Its water elements in the layer: the 400 less the 12 x 12 inside.
  EXPECT_EQ(pml_elements(lined.fluid->mesh.model, lined.fluid->pml).size(), 256u);
}

// Decomposed, the parts' layers are the whole's: 3 subdomains against one within rounding (sums
// in another order over ~120 steps; the bound allows 100 times what double's rounding gives).
// Without the layer the receivers see the rigid faces' echo.
TEST(FluidPml, ADecomposedRunEqualsOneDomain) {
  const Model model = lined_pool("double", 1.5e-3);
  RunOptions options;
  options.backend = "serial";
  const auto one = explicit_fe::run_explicit(model, options);
  ASSERT_TRUE(one.ok()) << one.message;
  options.domains = 3;
  const auto three = explicit_fe::run_explicit(model, options);
  ASSERT_TRUE(three.ok()) << three.message;
  expect_close(one.histories, three.histories, 1e-12);
  Model bare = model;
  bare.absorbing.clear();
  options.domains = 1;
  const auto unlined = explicit_fe::run_explicit(bare, options);
  ASSERT_TRUE(unlined.ok()) << unlined.message;
  const History lined = by_name(one.histories).at("p"), rigid = by_name(unlined.histories).at("p");
  EXPECT_GT(test::difference(lined.values, rigid.values), 0.1 * test::largest(lined.values));
}

// A checkpoint holds the layer's state in the fluid (its elements' by the model's elements, its
// nodes' dim values each): resumed on one domain the run goes on with the same bits, on 3 within
// rounding; a checkpoint without it is refused.
TEST(FluidPml, ACheckpointHoldsTheLayersState) {
  const Model model = lined_pool("double", 1.5e-3);
  RunOptions options;
  options.backend = "serial";
  options.check_every = 5;
  const auto full = explicit_fe::run_explicit(model, options);
  ASSERT_TRUE(full.ok()) << full.message;
  const long long stop = full.steps * 8 / 10 / 10 * 10;  // as the pulse crosses the layers
  options.checkpoint_every = static_cast<int>(stop);
  test::Kept first;
  first.stop_after = stop;
  const auto stopped = explicit_fe::run_explicit(model, options, &first);
  ASSERT_EQ(stopped.status, explicit_fe::RunStatus::Stopped);
  ASSERT_EQ(first.checkpoints.size(), 1u);
  const SolverState& state = first.checkpoints.back();
  ASSERT_EQ(state.fluid_pml_offsets.size(), static_cast<std::size_t>(model.mesh.n_elements()) + 1);
  // 256 Quad4 elements of 4 Gauss points, 2 x 2 values a point; the 21 x 21 nodes less the 11 x
  // 11 clear of the layers' elements (the inner planes' own d from the layer's side:
  // explicit_fe::PmlNodeProfile), 2 values each.
  EXPECT_EQ(state.fluid_pml.size(), 256u * 4 * fem::pml_fluid_point_values<2>);
  EXPECT_EQ(state.fluid_pml_nodes.size(), 320u);
  EXPECT_EQ(state.fluid_pml_node_values.size(), 2 * state.fluid_pml_nodes.size());
  EXPECT_GT(test::largest(state.fluid_pml), 0.0);  // the wave reached the layer
  options.checkpoint_every = 0;
  options.resume = &state;
  const auto before = by_name(stopped.histories);
  for (const int domains : {1, 3}) {
    SCOPED_TRACE(domains);
    options.domains = domains;
    const auto resumed = explicit_fe::run_explicit(model, options);
    ASSERT_TRUE(resumed.ok()) << resumed.message;
    std::vector<History> joined;
    for (const History& history : resumed.histories) {
      History whole = before.at(history.name);
      whole.values.insert(whole.values.end(), history.values.begin(), history.values.end());
      joined.push_back(whole);
    }
    expect_close(full.histories, joined, domains == 1 ? 0.0 : 1e-12);
  }
  // A layer on xmax alone, which some of 3 subdomains hold none of: their checkpoint resumes on 3
  // with the same bits (every part's fluid steps with a damping: a shared node's potential is the
  // same in each).
  Model one_face = model;
  one_face.absorbing.front().faces = {BoxFace::XMax};
  one_face.validate();
  options.resume = nullptr;
  options.domains = 3;
  options.checkpoint_every = 0;
  const auto whole = explicit_fe::run_explicit(one_face, options);
  ASSERT_TRUE(whole.ok()) << whole.message;
  options.checkpoint_every = static_cast<int>(stop);
  test::Kept kept;
  kept.stop_after = stop;
  const auto halted = explicit_fe::run_explicit(one_face, options, &kept);
  ASSERT_EQ(kept.checkpoints.size(), 1u);
  options.checkpoint_every = 0;
  options.resume = &kept.checkpoints.back();
  const auto rest = explicit_fe::run_explicit(one_face, options);
  ASSERT_TRUE(rest.ok()) << rest.message;
  History joined = by_name(halted.histories).at("p");
  const History& after = rest.histories.at(0);
  joined.values.insert(joined.values.end(), after.values.begin(), after.values.end());
  expect_close(whole.histories, {joined}, 0.0);
  SolverState without = state;
  without.fluid_pml_offsets.clear();
  without.fluid_pml.clear();
  options.domains = 1;
  options.resume = &without;
  test::expect_contains(test::error_of([&] { (void)explicit_fe::run_explicit(model, options); }),
                        {"holds no state of the PML in the fluid"});
}

// Long after the pulse has gone into the layers nothing grows: about 20,000 steps, the largest
// pressure of the second half below a tenth of the pulse's, and of the last tenth below the
// second half's. (What lingers is the lowest frequencies, below alpha_max = pi f0, which a C-PML
// absorbs least: seen decaying by about 1.6 every 3,000 steps.)
TEST(FluidPml, TwentyThousandStepsWithoutGrowth) {
  const Model model = lined_pool("double", 0.25);
  RunOptions options;
  options.backend = "serial";
  const auto run = explicit_fe::run_explicit(model, options);
  ASSERT_TRUE(run.ok()) << run.message;
  EXPECT_GT(run.steps, 19000);
  const History p = by_name(run.histories).at("p");
  const std::size_t n = p.n_samples(), per_sample = p.values.size() / n;
  double peak = 0.0, second_half = 0.0, last_tenth = 0.0;
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t i = 0; i < per_sample; ++i) {
      const double value = std::abs(p.values[k * per_sample + i]);
      peak = std::max(peak, value);
      if (2 * k >= n) second_half = std::max(second_half, value);
      if (10 * k >= 9 * n) last_tenth = std::max(last_tenth, value);
    }
  std::printf("pressure: largest %.3e, in the second half %.3e, in the last tenth %.3e\n", peak, second_half,
              last_tenth);
  EXPECT_GT(peak, 0.0);
  EXPECT_LT(second_half, 0.1 * peak);
  EXPECT_LT(last_tenth, second_half);
}

// On a GPU the layer's kernels are the host's: the run within rounding of the host's (fused
// multiply-adds in double; float within its own rounding over ~120 steps).
TEST(FluidPmlGpu, TheGpuMatchesTheHost) {
  TREMOR_REQUIRE_GPU();
  for (const std::string precision : {"double", "float"}) {
    SCOPED_TRACE(precision);
    const Model model = lined_pool(precision, 1.5e-3);
    RunOptions options;
    options.backend = "serial";
    const auto host = explicit_fe::run_explicit(model, options);
    ASSERT_TRUE(host.ok()) << host.message;
    options.backend = "cuda";
    for (const bool deterministic : {true, false}) {
      SCOPED_TRACE(deterministic);
      options.deterministic = deterministic;
      const auto gpu = explicit_fe::run_explicit(model, options);
      ASSERT_TRUE(gpu.ok()) << gpu.message;
      expect_close(host.histories, gpu.histories, precision == "double" ? 1e-10 : 1e-4);
    }
  }
}

}  // namespace
}  // namespace tremor
