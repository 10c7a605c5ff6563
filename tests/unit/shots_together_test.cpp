// Shots stepped together (RunOptions::shots_together): k shots' fields side by side, DOF i of shot s
// at i * k + s, one operator apply for all of them (op::Operator::apply_batch) and one update.
// Each shot's histories are the bits it has stepped alone, on every operator and backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "explicit_test_models.hpp"
#include "support/runs.hpp"
#include "support/support.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/model/absorbing.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using test::error_of;
using test::expect_contains;

// Every kind that takes `model`'s mesh and runs on exec: apply_batch on k vectors gives each the
// bits of apply() on it alone; on a GPU, where a kind scatters with atomic adds (matrix_free, sem,
// partitioned) or is cuSPARSE's, within rounding of the largest value (each apply sums in the
// order its adds land). Returns how many kinds were checked.
template <class Real>
int check_columns(const Model& model, const Exec& exec, int k) {
  int checked = 0;
  std::mt19937 random(7);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (const op::OperatorEntry& entry : explicit_fe::operators().entries()) {
    if (!entry.runs_on(exec.backend()) || !entry.takes(model.mesh)) continue;
    const auto K = explicit_fe::make_stiffness_operator<Real>(model, entry.name, exec);
    const Index n = K->n_dofs();
    std::vector<Real> x(static_cast<std::size_t>(n) * k);
    for (Real& v : x) v = static_cast<Real>(value(random));
    const DeviceArray<Real> xs(exec, std::span<const Real>(x));
    DeviceArray<Real> ys(exec, n * k);
    K->apply_batch(xs.view(), ys.view(), k);
    const std::vector<Real> together = ys.to_host();
    for (int s = 0; s < k; ++s) {
      std::vector<Real> column(static_cast<std::size_t>(n));
      for (Index i = 0; i < n; ++i) column[i] = x[static_cast<std::size_t>(i) * k + s];
      const DeviceArray<Real> xc(exec, std::span<const Real>(column));
      DeviceArray<Real> yc(exec, n);
      K->apply(xc.view(), yc.view());
      const std::vector<Real> alone = yc.to_host();
      const bool bits = exec.space() == MemorySpace::Host || (entry.needs_assembly && entry.name != "cusparse");
      double largest = 0.0;
      for (const Real v : alone) largest = std::max(largest, std::abs(static_cast<double>(v)));
      // (100 roundings of the largest: a sum of up to 81 products per row in another order)
      const double tolerance = bits ? 0.0 : 100.0 * std::numeric_limits<Real>::epsilon() * largest;
      Index differ = 0;
      for (Index i = 0; i < n; ++i)
        differ += std::abs(static_cast<double>(together[static_cast<std::size_t>(i) * k + s]) -
                           static_cast<double>(alone[static_cast<std::size_t>(i)])) > tolerance;
      EXPECT_EQ(differ, 0) << entry.name << ", vector " << s << " of " << k;
      EXPECT_GT(largest, 0.0) << entry.name;
    }
    ++checked;
  }
  return checked;
}

TEST(ShotsTogether, EveryOperatorAppliesColumnsAsOneByOne) {
  const Model hex8 = test::loaded_bar(ElementType::Hex8, 1, 2);
  const Model gll = test::loaded_bar(ElementType::HexGLL, 3, 2);  // sem's mesh
  for (const Exec& exec : {Exec::serial(), Exec::openmp()}) {
    // assembled, block_csr, ell, sell, jds, block_ell, matrix_free, partitioned
    EXPECT_GE(check_columns<double>(hex8, exec, 3), 8);
    EXPECT_GE(check_columns<float>(hex8, exec, 4), 8);  // block_ell's loads of four vectors
    EXPECT_GE(check_columns<float>(hex8, exec, 6), 8);  // of two
    EXPECT_GE(check_columns<double>(gll, exec, 4), 2);  // sem among them
  }
}

TEST(ShotsTogether, EveryOperatorAppliesColumnsAsOneByOneOnAGpu) {
  TREMOR_REQUIRE_GPU();
  const Model hex8 = test::loaded_bar(ElementType::Hex8, 1, 2);
  const Model gll = test::loaded_bar(ElementType::HexGLL, 3, 2);
  EXPECT_GE(check_columns<double>(hex8, Exec::cuda(), 16), 8);  // cusparse's one by one too
  EXPECT_GE(check_columns<float>(hex8, Exec::cuda(), 3), 8);
  EXPECT_GE(check_columns<float>(gll, Exec::cuda(), 16), 2);
}

// The array capture (test::array_capture_toml) and a receiver inside the block recording motion.
const std::string capture =
    test::array_capture_toml() +
    "[[receiver]]\nname = \"inside\"\npositions = [[0.0041, 0.0023]]\nrecord = [\"displacement\", \"velocity\", \"acceleration\"]\n";

Model capture_model(bool absorbing) {
  Model model = io::read_model_buffer(capture, "capture.toml", "");
  if (absorbing) {  // mass-proportional damping: the integrator's C' per DOF
    AbsorbingLayer layer;
    layer.faces = {BoxFace::YMin};
    layer.thickness = 1.5e-3;
    layer.frequency = 2e6;
    layer.origin = "layer";
    model.absorbing.push_back(layer);
    model.validate();
  }
  return model;
}

// Every history of every shot, bit for bit.
void expect_same_shots(const explicit_fe::ExplicitRun& a, const explicit_fe::ExplicitRun& b, const std::string& what) {
  ASSERT_TRUE(a.ok() && b.ok()) << what << ": " << a.message << b.message;
  ASSERT_EQ(a.shots.size(), b.shots.size()) << what;
  double peak = 0.0;
  for (std::size_t i = 0; i < a.shots.size(); ++i) {
    ASSERT_EQ(a.shots[i].size(), b.shots[i].size()) << what;
    for (std::size_t h = 0; h < a.shots[i].size(); ++h) {
      const explicit_fe::History& x = a.shots[i][h];
      const explicit_fe::History& y = b.shots[i][h];
      EXPECT_EQ(x.name, y.name) << what;
      EXPECT_EQ(x.times, y.times) << what << ", shot " << i << ", " << x.name;
      ASSERT_EQ(x.values.size(), y.values.size()) << what;
      Size differ = 0;
      for (std::size_t k = 0; k < x.values.size(); ++k) {
        differ += x.values[k] != y.values[k];
        peak = std::max(peak, std::abs(x.values[k]));
      }
      EXPECT_EQ(differ, 0) << what << ", shot " << i << ", " << x.name;
    }
  }
  EXPECT_GT(peak, 1e-12) << what;  // they move (a comparison of zeros could not fail)
}

// `model` run with `options` one after another and `k` shots at a time: every history of every shot
// the same bits, and the first and last shots' first histories apart (each column its own shot's).
// Returns the run stepped together.
explicit_fe::ExplicitRun expect_together_as_alone(const Model& model, explicit_fe::RunOptions options, int k,
                                                  const std::string& what) {
  options.shots_together = 1;
  const explicit_fe::ExplicitRun alone = explicit_fe::run_explicit(model, options);
  EXPECT_EQ(alone.preflight.shots_together, 1) << what;
  options.shots_together = k;
  explicit_fe::ExplicitRun together = explicit_fe::run_explicit(model, options);
  EXPECT_EQ(together.preflight.shots_together, k) << what;
  expect_same_shots(alone, together, what);
  if (together.shots.size() > 1) {
    EXPECT_NE(together.shots.front()[0].values, together.shots.back()[0].values) << what;
  }
  return together;
}

// 8 shots 3 at a time in double (3, 3, then 2 and a repeated one) and 4 at a time in float against
// one after another: the same bits, undamped and damped, on the kinds that fuse the shots and one
// that does not.
TEST(ShotsTogether, ACaptureSteppedTogetherEqualsOneByOne) {
  for (const bool absorbing : {false, true}) {
    const Model model = capture_model(absorbing);
    for (const char* kind : {"block_csr", "assembled", "block_ell", "matrix_free"})
      for (const char* precision : {"double", "float"}) {
        explicit_fe::RunOptions options;
        options.backend = "openmp";
        options.operator_kind = kind;
        options.precision = precision;
        // (3: two batches and one short by a repeated shot; 4: block_ell's loads of four)
        const int k = std::string(precision) == "double" ? 3 : 4;
        const explicit_fe::ExplicitRun together =
            expect_together_as_alone(model, options, k, str(kind, ", ", precision, absorbing ? ", damped" : ""));
        EXPECT_EQ(together.shots.size(), 8u);
      }
  }
}

// Decomposed into 3 subdomains in one process, each stepping 3 shots together (3, 3, then 2 and a
// repeated one), its shared nodes' forces summed for the three at once: the bits of the same
// decomposition one after another (each shot's sums in the same order); against one domain,
// within rounding (the shared nodes' sums in another order), as a decomposed run is. The assembled
// kinds apply each subdomain's shared nodes' rows first (op::RowBlock), each block's rows of every
// shot at once.
TEST(ShotsTogether, ADecomposedCaptureSteppedTogetherEqualsOneByOne) {
  for (const bool absorbing : {false, true}) {
    const Model model = capture_model(absorbing);
    for (const char* kind : {"block_csr", "matrix_free", "block_ell", "assembled"}) {
      explicit_fe::RunOptions options;
      options.backend = "serial";
      options.operator_kind = kind;
      options.shots_together = 1;
      const explicit_fe::ExplicitRun one_domain = explicit_fe::run_explicit(model, options);
      options.domains = 3;
      const explicit_fe::ExplicitRun alone = explicit_fe::run_explicit(model, options);
      options.shots_together = 3;
      const explicit_fe::ExplicitRun together = explicit_fe::run_explicit(model, options);
      EXPECT_EQ(together.preflight.shots_together, 3);
      EXPECT_EQ(together.preflight.domains, 3);
      expect_same_shots(alone, together, str(kind, " over 3 subdomains", absorbing ? ", damped" : ""));
      ASSERT_EQ(together.shots.size(), 8u);
      EXPECT_NE(together.shots[0][0].values, together.shots[7][0].values);
      // Rounding of the shared nodes' sums: 1e-9 of each history's largest value (velocities and
      // accelerations amplify a displacement's rounding by 1/dt and 1/dt^2 relative to theirs).
      for (std::size_t i = 0; i < 8; ++i) test::expect_histories_close(one_domain.shots[i], together.shots[i], 1e-9);
    }
  }
}

// An immersed capture: the array in 2 mm of water over a steel block (test/array_test.cpp's), 8
// shots, receivers of pressure and of motion in the water and of motion in the steel; the steel
// damped in proportion to its stiffness where `beta`, the sides (water and steel) lined by a PML
// where `pml`.
Model immersed_capture(bool beta, bool pml = false) {
  std::string toml = test::immersed_array_toml();
  if (beta) {
    const std::string poisson = "poisson_ratio = 0.3\n";
    toml.replace(toml.find(poisson), poisson.size(), poisson + "damping_beta = 2e-10\n");
  }
  toml += "[[receiver]]\nname = \"in_water\"\npositions = [[0.0041, 0.0049]]\nrecord = [\"pressure\"]\n"
          "[[receiver]]\nname = \"water_motion\"\npositions = [[0.0071, 0.0046]]\nrecord = [\"velocity\"]\n"
          "[[receiver]]\nname = \"in_steel\"\npositions = [[0.0041, 0.0023]]\nrecord = [\"displacement\", "
          "\"velocity\"]\n";
  if (pml) toml += "[[absorbing]]\nkind = \"pml\"\nfaces = [\"xmin\", \"xmax\"]\nthickness = 1e-3\n";
  return io::read_model_buffer(toml, "immersed.toml", "");
}

// An immersed capture (and its steel damped by beta K, or its sides lined by a PML in the water and
// the steel) stepped 3 at a time in double (3, 3, then 2 and a repeated one) and 4 at a time in
// float: every history of every shot, the array's pressure, the water's and the steel's receivers,
// the bits of one after another. The fluid's potential, its forces and pressure hold the shots side
// by side as the solid's fields do; K_f is applied shot by shot, the coupling's passes and the
// update at once; the PMLs keep each shot's variables.
TEST(ShotsTogether, AnImmersedCaptureSteppedTogetherEqualsOneByOne) {
  for (const int variant : {0, 1, 2}) {
    const bool beta = variant == 1, pml = variant == 2;
    const Model model = immersed_capture(beta, pml);
    for (const char* kind : {"matrix_free", "block_csr"})
      for (const char* precision : {"double", "float"}) {
        if (variant > 0 && std::string(kind) == "block_csr" && std::string(precision) == "float") continue;  // (enough)
        explicit_fe::RunOptions options;
        options.backend = "openmp";
        options.operator_kind = kind;
        options.precision = precision;
        const std::string what = str("immersed, ", kind, ", ", precision, beta ? ", beta K" : "", pml ? ", PML" : "");
        const explicit_fe::ExplicitRun together =
            expect_together_as_alone(model, options, std::string(precision) == "double" ? 3 : 4, what);
        ASSERT_EQ(together.shots.size(), 8u) << what;
        // The array's scans, the water's and the steel's receivers, each shot's own.
        ASSERT_EQ(together.shots[0].size(), 4u) << what;
        for (std::size_t h = 0; h < 4; ++h)
          EXPECT_NE(together.shots[0][h].values, together.shots[7][h].values) << what << ", " << h;
      }
  }
}

// The immersed capture (with its PML, and beta K) over 3 subdomains in one process, each holding
// a part of the water and of the steel, 3 at a time: the fluid's forces on shared nodes summed for
// the 3 shots at once, each part's samples merged shot by shot; bit for bit the same decomposition
// one after another.
TEST(ShotsTogether, ADecomposedImmersedCaptureSteppedTogetherEqualsOneByOne) {
  for (const int variant : {0, 1}) {
    const Model model = immersed_capture(variant == 1, variant == 1);
    explicit_fe::RunOptions options;
    options.backend = "serial";
    options.operator_kind = "matrix_free";
    options.domains = 3;
    const explicit_fe::ExplicitRun together = expect_together_as_alone(
        model, options, 3, variant == 1 ? "immersed over 3 subdomains, PML, beta K" : "immersed over 3 subdomains");
    EXPECT_EQ(together.preflight.domains, 3);
    ASSERT_EQ(together.shots.size(), 8u);
    for (std::size_t h = 0; h < together.shots[0].size(); ++h)
      EXPECT_NE(together.shots[0][h].values, together.shots[7][h].values) << h;
  }
}

// 8 shots 3 at a time (3, 3, then 2 and a repeated one): one domain, immersed (the fluid's
// histories beside the solid's), and over 3 subdomains (merged): every shot's samples passed on as
// recorded are its histories whole, the batches announced before their first shot.
TEST(ShotsTogether, EachShotsSamplesArePassedOnAsTheBatchStepsThem) {
  struct Case {
    std::string what;
    Model model;
    int domains;
  };
  const std::vector<Case> cases{{"one domain", capture_model(false), 1},
                                {"immersed", immersed_capture(false), 1},
                                {"immersed over 3 subdomains", immersed_capture(false), 3},
                                {"over 3 subdomains", capture_model(true), 3}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    explicit_fe::RunOptions options;
    options.backend = "serial";
    options.operator_kind = "matrix_free";
    options.domains = c.domains;
    options.check_every = 7;
    options.shots_together = 3;
    test::Streamed streamed;
    const explicit_fe::ExplicitRun run = explicit_fe::run_explicit(c.model, options, &streamed);
    ASSERT_TRUE(run.ok()) << run.message;
    ASSERT_EQ(run.shots.size(), 8u);
    EXPECT_EQ(streamed.one_by_one, 0u);
    EXPECT_EQ(streamed.columns, 3u);
    // (A batch's first shot begins with it; the others' lines come at its end.)
    const std::vector<std::string> expected{
        "batch 0 3", "begin 0", "end 0", "begin 1", "end 1", "begin 2", "end 2", "batch 3 3", "begin 3",
        "end 3",     "begin 4", "end 4", "begin 5", "end 5", "batch 6 2", "begin 6", "end 6", "begin 7", "end 7"};
    EXPECT_EQ(streamed.events, expected);
    // Every sample of every shot once: 8 shots' and the last batch's repeated column.
    std::size_t recorded = 0;
    for (const auto& shot : run.shots)
      for (const explicit_fe::History& h : shot) recorded += h.n_samples();
    EXPECT_EQ(streamed.samples, recorded + recorded / 8);
    // Passed on as the batch steps, not at its end: by its last check (7 steps or fewer before its
    // end), most of each batch's samples.
    ASSERT_EQ(streamed.by_progress.size(), 3u);
    for (const auto& [by_check, all] : streamed.by_progress) EXPECT_GT(by_check, all / 2) << by_check << " of " << all;
  }
}

// Checkpoints between batches (SolverState::at_rest): a capture of 8 shots, 3 at a time, stopped
// within its second batch and at its second batch's end. Each stop leaves the checkpoint of the
// next batch's first shot at rest (and the first batch's at its start), none within a batch;
// resumed from either, 3 at a time, the shots from there are the uninterrupted run's bits. A
// checkpoint within a shot is refused to a run of shots stepped together. One domain and 3
// subdomains.
TEST(ShotsTogether, CheckpointsBetweenBatchesResumeACaptureBitForBit) {
  // Stops in shot `stop_shot` once its batch has stepped `stop_step` steps.
  struct Stopping final : explicit_fe::Observer {
    std::size_t stop_shot = 0, shot = 0;
    long long stop_step = 0, step = 0;
    std::vector<explicit_fe::SolverState> checkpoints;
    void on_shot(std::size_t index, bool) override { shot = index; }
    void on_progress(long long s, long long, double) override { step = s; }
    void on_checkpoint(const explicit_fe::SolverState& state) override { checkpoints.push_back(state); }
    bool stop_requested() override { return shot >= stop_shot && step >= stop_step; }
  };
  const Model model = capture_model(true);
  for (const int domains : {1, 3}) {
    SCOPED_TRACE(str(domains, " domain(s)"));
    explicit_fe::RunOptions options;
    options.backend = "serial";
    options.operator_kind = "block_csr";
    options.domains = domains;
    options.shots_together = 3;
    options.check_every = 5;
    const explicit_fe::ExplicitRun whole = explicit_fe::run_explicit(model, options);
    ASSERT_TRUE(whole.ok()) << whole.message;
    ASSERT_EQ(whole.shots.size(), 8u);
    const long long steps = whole.preflight.steps;
    options.checkpoint_every = 10;  // (within a batch, not applied)
    for (const long long stop_step : {steps / 2, steps}) {
      SCOPED_TRACE(str("stopped at step ", stop_step, " of ", steps, " of the second batch"));
      Stopping stopping;
      stopping.stop_shot = 3;  // (its batch: shots 3, 4 and 5)
      stopping.stop_step = stop_step;
      const explicit_fe::ExplicitRun stopped = explicit_fe::run_explicit(model, options, &stopping);
      ASSERT_EQ(stopped.status, explicit_fe::RunStatus::Stopped) << stopped.message;
      // The first batch's start and end; the second's where it was stopped at its end.
      const std::size_t next = stop_step == steps ? 6 : 3;
      ASSERT_EQ(stopping.checkpoints.size(), next / 3 + 1);
      for (std::size_t c = 0; c < stopping.checkpoints.size(); ++c) {
        const explicit_fe::SolverState& state = stopping.checkpoints[c];
        EXPECT_TRUE(state.at_rest);
        EXPECT_EQ(state.shot, static_cast<int>(3 * c));
        EXPECT_EQ(state.step, 0);
        EXPECT_TRUE(state.current.empty() && state.receivers.empty() && state.memory.empty());
      }
      explicit_fe::RunOptions again = options;
      again.resume = &stopping.checkpoints.back();
      const explicit_fe::ExplicitRun resumed = explicit_fe::run_explicit(model, again);
      ASSERT_TRUE(resumed.ok()) << resumed.message;
      EXPECT_EQ(resumed.first_shot, static_cast<int>(next));
      EXPECT_EQ(resumed.preflight.shots_together, 3);
      ASSERT_EQ(resumed.shots.size(), 8 - next);
      explicit_fe::ExplicitRun rest = whole;
      rest.shots.erase(rest.shots.begin(), rest.shots.begin() + static_cast<std::ptrdiff_t>(next));
      expect_same_shots(rest, resumed, "resumed from a checkpoint between batches");
      if (stop_step == steps) continue;
      again.resume = &stopping.checkpoints.front();  // a stop in the first batch resumes from its start
      const explicit_fe::ExplicitRun from_start = explicit_fe::run_explicit(model, again);
      ASSERT_TRUE(from_start.ok()) << from_start.message;
      EXPECT_EQ(from_start.first_shot, 0);
      expect_same_shots(whole, from_start, "resumed from the first batch's start");
    }
  }
  // A checkpoint within a shot, by a run one shot at a time, holds that shot alone.
  explicit_fe::RunOptions options;
  options.backend = "serial";
  options.operator_kind = "block_csr";
  options.shots_together = 1;
  options.checkpoint_every = 10;
  test::Kept kept;
  kept.stop_after = 15;
  const explicit_fe::ExplicitRun stopped = explicit_fe::run_explicit(model, options, &kept);
  ASSERT_EQ(stopped.status, explicit_fe::RunStatus::Stopped) << stopped.message;
  ASSERT_FALSE(kept.checkpoints.empty());
  EXPECT_FALSE(kept.checkpoints.back().at_rest);
  options.resume = &kept.checkpoints.back();
  options.shots_together = 3;
  expect_contains(error_of([&] { (void)explicit_fe::run_explicit(model, options); }),
                  {"3 shots stepped together asked for, but the run resumes from a checkpoint within shot 1"});
}

// A capture damped by beta K alone (no fluid): together equals one by one, on a kind that reads its
// data once for all shots and one that applies them one by one.
TEST(ShotsTogether, ACaptureDampedByStiffnessSteppedTogetherEqualsOneByOne) {
  Model model = io::read_model_buffer(capture, "capture.toml", "");
  model.materials.front().damping_beta = 2e-10;
  for (const char* kind : {"block_ell", "matrix_free"}) {
    explicit_fe::RunOptions options;
    options.backend = "serial";
    options.operator_kind = kind;
    const explicit_fe::ExplicitRun together = expect_together_as_alone(model, options, 3, str(kind, ", beta K"));
    // Damped: its histories not the undamped run's (the term acts).
    options.shots_together = 1;
    Model undamped = model;
    undamped.materials.front().damping_beta = 0.0;
    const explicit_fe::ExplicitRun free = explicit_fe::run_explicit(undamped, options);
    ASSERT_TRUE(free.ok() && !together.shots.empty());
    EXPECT_NE(free.shots[0][0].values, together.shots[0][0].values) << kind;
  }
}

// On a GPU the pre-flight steps them together by itself (block_ell, up to 16): the bits of one
// after another, and the bits of the host's serial run to rounding.
TEST(ShotsTogether, AGpuStepsACaptureTogetherByItself) {
  TREMOR_REQUIRE_GPU();
  const Model model = capture_model(true);
  explicit_fe::RunOptions options;
  options.backend = "cuda";
  options.deterministic = true;  // K's bits the same in both runs
  const explicit_fe::ExplicitRun together = explicit_fe::run_explicit(model, options);
  EXPECT_EQ(together.preflight.shots_together, 8);
  options.shots_together = 1;
  const explicit_fe::ExplicitRun alone = explicit_fe::run_explicit(model, options);
  expect_same_shots(alone, together, "cuda");
}

// A capture of 16 shots on a GPU, operator "auto": block_ell, whose K is read once for all 16, in
// place of matrix_free one after another (which "auto" takes for a run of one shot).
TEST(ShotsTogether, AGpuTakesBlockEllForACaptureOfSixteenShots) {
  TREMOR_REQUIRE_GPU();
  std::string text = capture;
  text.replace(text.find("elements = 8"), 12, "elements = 16");
  text.replace(text.find("size = [0.012, 0.006]"), 21, "size = [0.020, 0.006]");
  text.replace(text.find("divisions = [48, 24]"), 20, "divisions = [80, 24]");
  text.replace(text.find("centre = [0.006125, 0.006]"), 26, "centre = [0.010125, 0.006]");
  const Model model = io::read_model_buffer(text, "sixteen.toml", "");
  explicit_fe::RunOptions options;
  options.backend = "cuda";
  options.precision = "float";
  const explicit_fe::Preflight p = explicit_fe::preflight(model, options);
  EXPECT_EQ(p.operator_kind(), "block_ell");
  expect_contains(p.operator_why, {"16 shots, stepped together on block_ell"});
  EXPECT_EQ(p.shots_together, 16);
  options.shots_together = 1;  // one after another: "auto" as for one shot
  EXPECT_NE(explicit_fe::preflight(model, options).operator_kind(), "block_ell");
}

// A 3D steel bar of GLL order 2 under a 4-element array (one shot each): sem's mesh, where it
// applies the shots together.
const std::string gll_capture =
    "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\nsize = [0.006, 0.003, 0.003]\ndivisions = [12, 6, 6]\n"
    "order = 2\n"
    "[[material]]\nname = \"steel\"\ndensity = 7850.0\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n"
    "[explicit]\nduration = 0.6e-6\n"
    "[[array]]\nname = \"probe\"\nelements = 4\npitch = 1e-3\nwidth = 1e-3\nlength = 2e-3\n"
    "centre = [0.003, 0.0015, 0.003]\nsurface = \"zmax\"\namplitude = 1e6\n"
    "signal = { kind = \"tone_burst\", frequency = 3e6, cycles = 2 }\nfmc = true\n"
    "[[receiver]]\nname = \"inside\"\npositions = [[0.0021, 0.0013, 0.0011]]\nrecord = [\"displacement\"]\n";

// A capture lined by a PML and attenuating (Q_P 60, Q_S 40), stepped 3 at a time: each shot keeps its
// own variables (op::StateColumns: the PML's, the memory variables), each shot's histories the bits
// of one after another. quad4 on matrix_free (the PML's generic kernel, memory variables in double)
// and GLL order 2 on sem (the PML's point kernel, memory variables in Real), in double and float.
TEST(ShotsTogether, ACaptureInAPmlAndAttenuatingSteppedTogetherEqualsOneByOne) {
  const auto lossy = [](std::string toml, const char* faces) {
    const std::string poisson = "poisson_ratio = 0.3\n";
    toml.replace(toml.find(poisson), poisson.size(), poisson + "q_p = 60.0\nq_s = 40.0\n");
    return io::read_model_buffer(toml + "[[absorbing]]\nkind = \"pml\"\nfaces = " + faces + "\nthickness = 1e-3\n",
                                 "lossy.toml", "");
  };
  const Model quad4 = lossy(capture, "[\"ymin\", \"xmin\", \"xmax\"]");
  const Model gll = lossy(gll_capture, "[\"zmin\", \"xmin\"]");
  for (const auto& [model, kind] : {std::pair{&quad4, "matrix_free"}, std::pair{&gll, "sem"}})
    for (const char* precision : {"double", "float"}) {
      explicit_fe::RunOptions options;
      options.backend = "serial";
      options.operator_kind = kind;
      options.precision = precision;
      const explicit_fe::ExplicitRun together =
          expect_together_as_alone(*model, options, 3, str(kind, ", ", precision, ", PML and Q"));
      EXPECT_FALSE(together.preflight.attenuation.empty());
      EXPECT_TRUE(together.preflight.pml.any());
    }
}

// sem on a GPU, "auto": the shots together in float (its column kernel a thread per column and
// shot), one after another in double (measured no faster together); each shot's histories those
// of one after another within rounding (atomic adds land in another order, as from one run to the
// next: 1e-4 of the history's peak in float, far above 2^-24 rounding, far below any change of
// the physics).
TEST(ShotsTogether, AGpuStepsAGllCaptureTogetherOnSem) {
  TREMOR_REQUIRE_GPU();
  const Model model = io::read_model_buffer(gll_capture, "gll.toml", "");
  explicit_fe::RunOptions options;
  options.backend = "cuda";
  options.precision = "double";
  const explicit_fe::Preflight in_double = explicit_fe::preflight(model, options);
  EXPECT_EQ(in_double.operator_kind(), "sem");
  EXPECT_EQ(in_double.shots_together, 1);
  expect_contains(in_double.shots_why, {"sem in double steps shots together no faster"});
  options.precision = "float";
  const explicit_fe::ExplicitRun together = explicit_fe::run_explicit(model, options);
  EXPECT_EQ(together.preflight.operator_kind(), "sem");
  EXPECT_EQ(together.preflight.shots_together, 4);
  expect_contains(together.preflight.shots_why, {"sem elements' data read once"});
  options.shots_together = 1;
  const explicit_fe::ExplicitRun alone = explicit_fe::run_explicit(model, options);
  ASSERT_TRUE(alone.ok() && together.ok()) << alone.message << together.message;
  ASSERT_EQ(alone.shots.size(), together.shots.size());
  for (std::size_t i = 0; i < alone.shots.size(); ++i) {
    const auto& x = alone.shots[i];
    const auto& y = together.shots[i];
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t h = 0; h < x.size(); ++h) {
      ASSERT_EQ(x[h].values.size(), y[h].values.size());
      double peak = 0.0, differ = 0.0;
      for (std::size_t k = 0; k < x[h].values.size(); ++k) {
        peak = std::max(peak, std::abs(x[h].values[k]));
        differ = std::max(differ, std::abs(x[h].values[k] - y[h].values[k]));
      }
      EXPECT_GT(peak, 0.0) << x[h].name;
      EXPECT_LE(differ, 1e-4 * peak) << "shot " << i << ", " << x[h].name;
    }
  }
}

// Decomposed on a GPU (3 subdomains in one process, the interface's elements first and the
// exchange on its own stream), 4 shots together: block_ell with its deterministic sums gives the
// bits of the same decomposition one after another; sem (atomic adds, the shots in its column
// kernel) within 1e-4 of each history's peak in float, as one domain's sem does.
TEST(ShotsTogether, AGpuStepsADecomposedCaptureTogether) {
  TREMOR_REQUIRE_GPU();
  {
    const Model model = capture_model(true);
    explicit_fe::RunOptions options;
    options.backend = "cuda";
    options.operator_kind = "block_ell";
    options.deterministic = true;
    options.domains = 3;
    options.shots_together = 4;
    const explicit_fe::ExplicitRun together = explicit_fe::run_explicit(model, options);
    EXPECT_EQ(together.preflight.shots_together, 4);
    options.shots_together = 1;
    const explicit_fe::ExplicitRun alone = explicit_fe::run_explicit(model, options);
    expect_same_shots(alone, together, "block_ell over 3 subdomains on cuda");
  }
  const Model gll = io::read_model_buffer(gll_capture, "gll.toml", "");
  explicit_fe::RunOptions options;
  options.backend = "cuda";
  options.operator_kind = "sem";
  options.precision = "float";
  options.domains = 3;
  options.shots_together = 4;
  const explicit_fe::ExplicitRun together = explicit_fe::run_explicit(gll, options);
  ASSERT_TRUE(together.ok()) << together.message;
  EXPECT_EQ(together.preflight.shots_together, 4);
  options.shots_together = 1;
  const explicit_fe::ExplicitRun alone = explicit_fe::run_explicit(gll, options);
  ASSERT_TRUE(alone.ok()) << alone.message;
  ASSERT_EQ(together.shots.size(), alone.shots.size());
  for (std::size_t i = 0; i < alone.shots.size(); ++i)
    for (std::size_t h = 0; h < alone.shots[i].size(); ++h) {
      const std::vector<double>& a = alone.shots[i][h].values;
      const std::vector<double>& b = together.shots[i][h].values;
      ASSERT_EQ(a.size(), b.size());
      double peak = 0.0, worst = 0.0;
      for (std::size_t k = 0; k < a.size(); ++k) {
        peak = std::max(peak, std::abs(a[k]));
        worst = std::max(worst, std::abs(a[k] - b[k]));
      }
      EXPECT_GT(peak, 0.0);
      EXPECT_LT(worst, 1e-4 * peak) << "shot " << i << ", " << alone.shots[i][h].name;
    }
}

// On a GPU: an immersed capture lined by a PML (the fluid stepped beside the solid on a stream of
// its own, its K_f and the coupling by atomics where the run adds so; on one domain and over two,
// where the shots together leave the overlap off) and an attenuating sem capture in a PML (the
// PML's point kernel, the memory variables in Real), 3 shots together against one after another:
// with atomics in the sums, within 1e-6 of each history's peak in double (another order of a few
// adds a value per step over a few hundred steps); with colours, bit for bit.
TEST(ShotsTogether, AGpuStepsImmersedAndLossyCapturesTogether) {
  TREMOR_REQUIRE_GPU();
  const auto compare = [](const Model& model, explicit_fe::RunOptions options, const std::string& what) {
    options.backend = "cuda";
    options.shots_together = 3;
    const explicit_fe::ExplicitRun together = explicit_fe::run_explicit(model, options);
    ASSERT_TRUE(together.ok()) << what << ": " << together.message;
    EXPECT_EQ(together.preflight.shots_together, 3) << what;
    // (decomposed: the fluid's traction added shot by shot keeps the interface's part off the
    // exchange's stream)
    if (options.domains > 1) {
      EXPECT_FALSE(together.preflight.overlap) << what;
    }
    options.shots_together = 1;
    const explicit_fe::ExplicitRun alone = explicit_fe::run_explicit(model, options);
    if (options.domains > 1) {
      EXPECT_TRUE(alone.preflight.overlap) << what;
    }
    if (options.deterministic) {
      expect_same_shots(alone, together, what);
      return;
    }
    ASSERT_EQ(together.shots.size(), alone.shots.size()) << what;
    for (std::size_t i = 0; i < alone.shots.size(); ++i)
      for (std::size_t h = 0; h < alone.shots[i].size(); ++h) {
        const std::vector<double>& a = alone.shots[i][h].values;
        const std::vector<double>& b = together.shots[i][h].values;
        ASSERT_EQ(a.size(), b.size()) << what;
        double peak = 0.0, worst = 0.0;
        for (std::size_t k = 0; k < a.size(); ++k) {
          peak = std::max(peak, std::abs(a[k]));
          worst = std::max(worst, std::abs(a[k] - b[k]));
        }
        EXPECT_GT(peak, 0.0) << what;
        EXPECT_LT(worst, 1e-6 * peak) << what << ", shot " << i << ", " << alone.shots[i][h].name;
      }
  };
  const Model immersed = immersed_capture(true, true);
  for (const bool deterministic : {true, false}) {
    explicit_fe::RunOptions options;
    options.operator_kind = "matrix_free";
    options.deterministic = deterministic;
    compare(immersed, options, str("immersed, PML, beta K on cuda", deterministic ? ", deterministic" : ""));
  }
  {
    explicit_fe::RunOptions options;
    options.operator_kind = "matrix_free";
    options.domains = 2;
    compare(immersed_capture(false, true), options, "immersed, PML, over 2 subdomains on cuda");
  }
  std::string toml = gll_capture;
  const std::string poisson = "poisson_ratio = 0.3\n";
  toml.replace(toml.find(poisson), poisson.size(), poisson + "q_p = 60.0\nq_s = 40.0\n");
  const Model lossy = io::read_model_buffer(
      toml + "[[absorbing]]\nkind = \"pml\"\nfaces = [\"zmin\", \"xmin\"]\nthickness = 1e-3\n", "lossy.toml", "");
  explicit_fe::RunOptions options;
  options.operator_kind = "sem";
  compare(lossy, options, "sem, PML and Q on cuda");
}

// Three shots at twice the stable step (allow_unstable): the loud one's field overflows at step 340,
// the quiet ones' (1e-290 N) would take longer than the run. The failure names the loud shot; one
// after another the quiet shots ran whole before it, stepped together they stop with it, which
// the message says.
TEST(ShotsTogether, AShotThatBlowsUpIsNamedAndSoAreThoseBesideIt) {
  std::string text =
      "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\norigin = [-0.01, -0.01, 0.0]\nsize = [0.02, 0.02, 0.002]\n"
      "divisions = [20, 20, 2]\n[[material]]\nname = \"al\"\ndensity = 2700.0\nyoungs_modulus = 70e9\n"
      "poisson_ratio = 0.33\n[explicit]\nduration = 90e-6\n"
      "[[receiver]]\nname = \"probe\"\npositions = [[0.004, 0.004, 0.002]]\nrecord = [\"displacement\"]\n";
  for (const auto& [name, x, amplitude] : {std::tuple{"q1", -0.006, "1e-290"}, std::tuple{"q2", 0.006, "1e-290"},
                                           std::tuple{"loud", 0.006, "1e10"}})
    text += str("[[transducer]]\nname = \"", name, "\"\nposition = [", x, ", ", name[0] == 'l' ? -0.006 : x,
                "]\namplitude = ", amplitude, "\nsignal = { kind = \"tone_burst\", frequency = 5e5, cycles = 3 }\n",
                "[[shot]]\nname = \"", name, "\"\ntransducers = [\"", name, "\"]\n");
  const Model model = io::read_model_buffer(text, "shots.toml", "");
  explicit_fe::RunOptions options;
  options.backend = "serial";
  options.time_step = 2.4e-7;  // the stable step is 1.15e-7
  options.allow_unstable = true;
  options.check_every = 10;
  for (const int k : {1, 3}) {
    SCOPED_TRACE(str(k, " together"));
    options.shots_together = k;
    const explicit_fe::ExplicitRun run = explicit_fe::run_explicit(model, options);
    EXPECT_EQ(run.status, explicit_fe::RunStatus::Failed);
    expect_contains(run.message, {"is not finite at step ", "s) in shot 3 'loud': node "});
    ASSERT_EQ(run.shots.size(), 3u);
    const std::size_t samples = run.shots[2].front().times.size();
    if (k == 1) {
      EXPECT_EQ(run.message.find("stepped together"), std::string::npos);
      EXPECT_GT(run.shots[0].front().times.size(), samples);  // the quiet shots whole
    } else {
      expect_contains(run.message, {"The 2 shots stepped together with it stop there too, with their histories up to "
                                    "there (--shots-together 1 steps each alone)."});
      EXPECT_EQ(run.shots[0].front().times.size(), samples);
    }
  }
}

TEST(ShotsTogether, ThePreflightChoosesAndRefuses) {
  const Model model = capture_model(false);
  explicit_fe::RunOptions options;
  options.backend = "openmp";
  explicit_fe::Preflight p = explicit_fe::preflight(model, options);
  EXPECT_EQ(p.shots_together, 1);  // the host steps one after another unless asked
  expect_contains(p.shots_why, {"openmp"});
  options.shots_together = 20;  // more than the model has: all 8
  EXPECT_EQ(explicit_fe::preflight(model, options).shots_together, 8);
  options.shots_together = 4;
  options.domains = 2;  // decomposed: together where asked, one after another by default
  EXPECT_EQ(explicit_fe::preflight(model, options).shots_together, 4);
  options.shots_together = 0;
  p = explicit_fe::preflight(model, options);
  EXPECT_EQ(p.shots_together, 1);
  expect_contains(p.shots_why, {"the run is decomposed (--shots-together K steps them together"});
  options.shots_together = 4;
  options.domains = 1;
  options.checkpoint_every = 100;  // together where asked, checkpointed between batches
  EXPECT_EQ(explicit_fe::preflight(model, options).shots_together, 4);
  options.shots_together = 0;  // one after another by default, every N steps as asked
  p = explicit_fe::preflight(model, options);
  EXPECT_EQ(p.shots_together, 1);
  expect_contains(p.shots_why, {"checkpoints, which shots stepped together write only between batches"});
  options.shots_together = 4;
  options.checkpoint_every = 0;
  // Fluids: together where asked, decomposed too; one after another by default (the fluid's
  // operator applies them one by one).
  const Model water = immersed_capture(false);
  EXPECT_EQ(explicit_fe::preflight(water, options).shots_together, 4);
  options.domains = 2;
  EXPECT_EQ(explicit_fe::preflight(water, options).shots_together, 4);
  options.domains = 1;
  options.shots_together = 0;  // by default one after another with fluids, on a GPU too
  expect_contains(explicit_fe::preflight(water, options).shots_why, {"openmp"});
  options.shots_together = -1;
  expect_contains(error_of([&] { (void)explicit_fe::preflight(model, options); }), {"give 0"});
  // One shot: nothing to step together, whatever is asked.
  Model one = io::read_model_buffer(capture, "one.toml", "");
  one.shots.resize(1);
  options.shots_together = 4;
  p = explicit_fe::preflight(one, options);
  EXPECT_EQ(p.shots_together, 1);
  expect_contains(p.shots_why, {"the model has 1 shot"});
  // An operator that applies them one by one says so.
  options.shots_together = 4;
  options.operator_kind = "matrix_free";
  p = explicit_fe::preflight(model, options);
  EXPECT_EQ(p.shots_together, 4);
  expect_contains(p.shots_why, {"matrix_free applies them one by one"});
  // sem on GLL hexahedra applies them together where it scatters by atomics (a GPU's default); the
  // host's goes colour by colour, one by one.
  const Model gll = io::read_model_buffer(gll_capture, "gll.toml", "");
  options.operator_kind = "sem";
  const explicit_fe::Preflight on_sem = explicit_fe::preflight(gll, options);
  EXPECT_EQ(on_sem.shots_together, 4);
  expect_contains(on_sem.shots_why, {"sem applies them one by one"});
  options.operator_kind = "matrix_free";
  // The fields of the shots beside the first are counted.
  options.shots_together = 1;
  const std::size_t one_at_a_time = explicit_fe::preflight(model, options).memory_bytes;
  EXPECT_GE(p.memory_bytes, one_at_a_time + 3 * 3 * static_cast<std::size_t>(p.n_dofs) * sizeof(double));
}

}  // namespace
}  // namespace tremor
