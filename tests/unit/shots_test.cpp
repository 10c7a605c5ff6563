// Shots ([[shot]], model/transducer.hpp): transducers fired together, stepped one shot after
// another on one set-up. Each shot's histories equal a run of the model with that shot's
// transducers alone; loads of no transducer act in every shot; checkpoints name their shot, and a
// run resumed in a later shot gives the uninterrupted run's bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

#include "support/runs.hpp"
#include "support/support.hpp"
#include "tremor/explicit/loading.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/model_file.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::ExplicitRun;
using explicit_fe::History;
using explicit_fe::RunOptions;
using test::error_of;
using test::expect_contains;

// A 20 x 20 x 2 mm aluminium plate of 1 mm hex8 cells, two point transducers, a force of no
// transducer (acting in every shot), a receiver with velocity (samples waiting a step: what a
// checkpoint carries) and a grid on the top surface.
const std::string plate =
    "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\norigin = [-0.01, -0.01, 0.0]\nsize = [0.02, 0.02, 0.002]\n"
    "divisions = [20, 20, 2]\n"
    "[[material]]\nname = \"al\"\ndensity = 2700.0\nyoungs_modulus = 70e9\npoisson_ratio = 0.33\n"
    "[explicit]\nduration = 1e-5\n"
    "[[transducer]]\nname = \"one\"\nposition = [-0.005, 0.0]\namplitude = 10.0\n"
    "signal = { kind = \"tone_burst\", frequency = 1e6, cycles = 3 }\n"
    "[[transducer]]\nname = \"two\"\nposition = [0.005, 0.003]\nmode = \"S0\"\namplitude = 5.0\n"
    "signal = { kind = \"tone_burst\", frequency = 1e6, cycles = 3 }\n"
    "[[source]]\nposition = [0.0, -0.008, 0.002]\ndirection = [0.0, 1.0, 0.0]\namplitude = 1.0\n"
    "signal = { kind = \"ricker\", frequency = 1e6 }\n"
    "[[receiver]]\nname = \"probe\"\npositions = [[0.002, 0.002, 0.002]]\nrecord = [\"displacement\", \"velocity\"]\n"
    "[[receiver]]\nname = \"area\"\ngrid = { min = [-0.004, -0.004], max = [0.004, 0.004], count = [5, 4], surface = \"zmax\" }\n";

const std::string two_shots =
    "[[shot]]\nname = \"first\"\ntransducers = [\"one\"]\n[[shot]]\nname = \"second\"\ntransducers = [\"two\", \"one\"]\n";

Model read(const std::string& text) { return io::read_model_buffer(text, "m.toml", ""); }

RunOptions serial() {
  RunOptions options;
  options.backend = "serial";
  options.check_every = 10;
  return options;
}

// The same histories, bit for bit, and moving (a comparison that means something).
void expect_same(const std::vector<History>& got, const std::vector<History>& want) {
  test::expect_histories_close(want, got, 0.0);
}

TEST(Shots, AreReadWithTheirTransducers) {
  const Model model = read(plate + two_shots);
  ASSERT_EQ(model.shots.size(), 2u);
  EXPECT_EQ(model.shots[1].name, "second");
  EXPECT_EQ(model.shots[1].transducers, (std::vector<std::string>{"two", "one"}));
  EXPECT_EQ(model.shots[0].origin, "m.toml:" + std::to_string(std::count(plate.begin(), plate.end(), '\n') + 1));
  // Each load knows its transducer: the [[source]] (read first) none, one point force for "one",
  // two (top and bottom) for "two".
  ASSERT_EQ(model.point_sources.size(), 4u);
  EXPECT_EQ(model.point_sources[0].transducer, "");
  EXPECT_EQ(model.point_sources[1].transducer, "one");
  EXPECT_EQ(model.point_sources[2].transducer, "two");
  EXPECT_EQ(model.point_sources[3].transducer, "two");
  EXPECT_TRUE(fires(&model.shots[0], ""));
  EXPECT_TRUE(fires(&model.shots[0], "one"));
  EXPECT_FALSE(fires(&model.shots[0], "two"));
  EXPECT_TRUE(fires(nullptr, "two"));
}

TEST(Shots, RefuseWhatTheyCannotFire) {
  const auto fails = [&](const std::string& shots) { return error_of([&] { (void)read(plate + shots); }); };
  expect_contains(fails("[[shot]]\nname = \"a\"\ntransducers = [\"three\"]\n"),
                  {"m.toml:", "shot 'a' fires transducer 'three', which the model does not have"});
  expect_contains(fails("[[shot]]\nname = \"a\"\ntransducers = [\"one\"]\n[[shot]]\nname = \"a\"\ntransducers = [\"two\"]\n"),
                  {"shot 'a' is named already (m.toml:"});
  expect_contains(fails("[[shot]]\nname = \"a\"\ntransducers = []\n"), {"shot 'a' fires no transducer"});
  expect_contains(fails("[[shot]]\nname = \"a\"\n"), {"shot 'a' fires no transducer"});
  expect_contains(fails("[[shot]]\nname = \"a/b\"\ntransducers = [\"one\"]\n"), {"a shot needs a name without '/'"});
  expect_contains(fails("[[shot]]\nname = \"a\"\ntransducers = [\"one\", \"one\"]\n"),
                  {"shot 'a' lists transducer 'one' twice"});
  expect_contains(fails("[[shot]]\ntransducers = [\"one\"]\n"), {"missing 'name'"});
  expect_contains(fails("[[shot]]\nname = \"a\"\ntransducers = \"one\"\n"), {"'transducers' must be an array of strings"});
  expect_contains(fails("[[shot]]\nname = \"a\"\ntransducers = [\"one\"]\nmode = \"S0\"\n"), {"mode"});
  const std::string twins = "[[transducer]]\nname = \"one\"\nposition = [0.0, 0.0]\n"
                            "signal = { kind = \"ricker\", frequency = 1e6 }\n";
  expect_contains(fails(twins + "[[shot]]\nname = \"a\"\ntransducers = [\"one\"]\n"),
                  {"fires transducer 'one', a name 2 transducers share"});
  // Snapshots would put the shots' fields in one series.
  const Model snapshots = read(plate + two_shots + "[output]\nsnapshot_every = 10\n");
  expect_contains(error_of([&] { (void)explicit_fe::preflight(snapshots, serial()); }),
                  {"m.toml:", "a model with shots takes no snapshots"});
}

TEST(Shots, LoadOnlyTheirTransducers) {
  const Model model = read(plate + two_shots);
  const explicit_fe::Loading all(model), first(model, &model.shots[0]), second(model, &model.shots[1]);
  // "one": one node, its z; "two": two nodes, z each; the [[source]]: one node, y.
  EXPECT_EQ(all.loaded_dofs().size(), 4u);
  EXPECT_EQ(first.loaded_dofs().size(), 2u);
  EXPECT_EQ(second.loaded_dofs().size(), 4u);
  EXPECT_EQ(first.held_dofs(), all.held_dofs());
}

// Shot k of one run against a run of the model with shot k's transducers alone: the same set-up
// (the loads do not change the operator or the time step), and so the same bits.
TEST(Shots, EachEqualsItsTransducersAlone) {
  const Model model = read(plate + two_shots);
  test::Kept kept;
  const ExplicitRun run = explicit_fe::run_explicit(model, serial(), &kept);
  ASSERT_TRUE(run.ok()) << run.message;
  ASSERT_EQ(run.shots.size(), 2u);
  EXPECT_TRUE(run.histories.empty());
  EXPECT_EQ(run.first_shot, 0);
  const Model first = read(plate + "[[shot]]\nname = \"first\"\ntransducers = [\"one\"]\n");
  const Model second = read(plate + "[[shot]]\nname = \"second\"\ntransducers = [\"one\", \"two\"]\n");
  expect_same(run.shots[0], explicit_fe::run_explicit(first, serial()).shots.at(0));
  expect_same(run.shots[1], explicit_fe::run_explicit(second, serial()).shots.at(0));
  // A model without shots fires everything: "second" with the [[source]] is all of it.
  expect_same(run.shots[1], explicit_fe::run_explicit(read(plate), serial()).histories);
  // And the shots differ from each other.
  EXPECT_NE(run.shots[0][0].values, run.shots[1][0].values);
}

// Water over steel (2D, 10 x 10 mm of 0.5 mm quad4 cells, the interface at y = 5 mm), two pistons
// on the water's top, a hydrophone and a receiver in the steel; shots firing each piston.
const std::string tank =
    "[mesh]\ngenerator = \"rectangle\"\nelement = \"quad4\"\nsize = [0.01, 0.01]\ndivisions = [20, 20]\n"
    "[[mesh.element_set]]\nname = \"water\"\nmin = [0.0, 0.005]\nmax = [0.01, 0.01]\n"
    "[[mesh.element_set]]\nname = \"steel\"\nmin = [0.0, 0.0]\nmax = [0.01, 0.005]\n"
    "[[material]]\nname = \"steel\"\ndensity = 7850.0\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n"
    "[[material]]\nname = \"water\"\nkind = \"fluid\"\ndensity = 1000.0\nsound_speed = 1480.0\n"
    "[[section]]\nelement_set = \"steel\"\nmaterial = \"steel\"\n"
    "[[section]]\nelement_set = \"water\"\nmaterial = \"water\"\n"
    "[explicit]\nduration = 4e-6\n"
    "[[transducer]]\nname = \"left\"\nmode = \"piston\"\nsurface = \"ymax\"\nposition = [0.003, 0.01]\n"
    "radius = 0.001\namplitude = 0.01\nsignal = { kind = \"ricker\", frequency = 1e6 }\n"
    "[[transducer]]\nname = \"right\"\nmode = \"piston\"\nsurface = \"ymax\"\nposition = [0.007, 0.01]\n"
    "radius = 0.001\namplitude = 0.01\nsignal = { kind = \"ricker\", frequency = 1e6 }\n";
const std::string receivers =
    "[[receiver]]\nname = \"hydrophone\"\npositions = [[0.004, 0.007]]\nrecord = [\"pressure\"]\n"
    "[[receiver]]\nname = \"steel\"\npositions = [[0.005, 0.003]]\nrecord = [\"velocity\"]\n";
const std::string shot_left = "[[shot]]\nname = \"left\"\ntransducers = [\"left\"]\n";
const std::string shot_right = "[[shot]]\nname = \"right\"\ntransducers = [\"right\"]\n";

// A model of two shots decomposed into 3 subdomains in one process: each shot's histories are the
// one-domain run's to rounding (the shared nodes' forces summed in another order: 1e-12 of the
// largest value).
void expect_two_shots_decomposed_as_one_domain(const Model& model) {
  const ExplicitRun single = explicit_fe::run_explicit(model, serial());
  RunOptions options = serial();
  options.domains = 3;
  const ExplicitRun decomposed = explicit_fe::run_explicit(model, options);
  ASSERT_TRUE(decomposed.ok()) << decomposed.message;
  ASSERT_EQ(decomposed.shots.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) test::expect_histories_close(single.shots[k], decomposed.shots[k], 1e-12);
}

// The tank's pistons fired in shots: each shot's histories equal a run of that shot alone, bit
// for bit (the fluid's loads replaced on the same set-up), and differ. A piston
// driven by pressure is refused in a model with shots, naming its line.
TEST(Shots, InAFluidFireItsPistons) {
  const ExplicitRun run = explicit_fe::run_explicit(read(tank + receivers + shot_left + shot_right), serial());
  ASSERT_TRUE(run.ok()) << run.message;
  ASSERT_EQ(run.shots.size(), 2u);
  expect_same(run.shots[0], explicit_fe::run_explicit(read(tank + receivers + shot_left), serial()).shots.at(0));
  expect_same(run.shots[1], explicit_fe::run_explicit(read(tank + receivers + shot_right), serial()).shots.at(0));
  ASSERT_EQ(run.shots[0].size(), 2u);  // the solid's receivers, then the fluid's
  EXPECT_EQ(run.shots[0][1].name, "hydrophone");
  EXPECT_TRUE(run.shots[0][1].records(explicit_fe::Quantity::Pressure));
  for (const std::size_t r : {0u, 1u}) EXPECT_NE(run.shots[0][r].values, run.shots[1][r].values);
  const std::string pressed = tank + "drive = \"pressure\"\n" + receivers + shot_left + shot_right;
  expect_contains(error_of([&] { (void)explicit_fe::run_explicit(read(pressed), serial()); }),
                  {"piston 'right' is driven by pressure", "drive pistons by velocity"});
}

// The same shots decomposed (3 subdomains, each a part of the steel and of the water): each
// shot's histories are the one-domain run's within 1e-12 of their largest value (sums at shared
// nodes in another order), the pistons' loads at the nodes parts share acting in each.
TEST(Shots, InAFluidDecomposed) {
  expect_two_shots_decomposed_as_one_domain(read(tank + receivers + shot_left + shot_right));
}

// Shots through matrix_free (the hex8 plate in tiles, colour by colour on the host): each shot
// equals the assembled run's to rounding (double; K_e u_e by edge differences against the
// assembled K's products, a few ulps each step: 1e-10 of each history's largest value, as the GPU
// parity suite's double runs), and a shot equals its transducers alone through the tiles bit for bit.
TEST(Shots, ThroughMatrixFreeTiles) {
  const Model model = read(plate + two_shots);
  RunOptions options = serial();
  options.operator_kind = "matrix_free";
  const ExplicitRun tiles = explicit_fe::run_explicit(model, options);
  ASSERT_TRUE(tiles.ok()) << tiles.message;
  EXPECT_EQ(tiles.preflight.operator_kind(), "matrix_free");
  const ExplicitRun assembled = explicit_fe::run_explicit(model, serial());
  ASSERT_EQ(tiles.shots.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) test::expect_histories_close(assembled.shots[k], tiles.shots[k], 1e-10);
  const Model first = read(plate + "[[shot]]\nname = \"first\"\ntransducers = [\"one\"]\n");
  expect_same(tiles.shots[0], explicit_fe::run_explicit(first, options).shots.at(0));
}

// Decomposed into 3 subdomains in one process: each shot equals the one-domain run's to rounding.
TEST(Shots, DecomposedEqualOneDomain) { expect_two_shots_decomposed_as_one_domain(read(plate + two_shots)); }

// The observer's view: a shot begins before its samples and ends with them; checkpoints name
// their shot, one at each later shot's start; a run resumed in the second shot completes it bit
// for bit.
struct Shots final : explicit_fe::Observer {
  std::vector<std::string> events;
  std::vector<explicit_fe::SolverState> checkpoints;
  std::vector<std::size_t> samples;  // per shot begun, on_sample calls
  void on_shot(std::size_t index, bool resumed) override {
    events.push_back(str("begin ", index, resumed ? " resumed" : ""));
    samples.push_back(0);
  }
  void on_shot_end(std::size_t index, const std::vector<History>& histories) override {
    events.push_back(str("end ", index, " ", histories.size()));
  }
  void on_sample(const History&, std::size_t) override { ++samples.back(); }
  void on_checkpoint(const explicit_fe::SolverState& state) override {
    events.push_back(str("checkpoint ", state.shot, " ", state.step));
    checkpoints.push_back(state);
  }
};

// A stop asked while a shot runs stops the run at its end at the latest, however far apart the
// checks are (a Ctrl-C with --check-every above a shot's steps): the shot's histories kept whole,
// the next not begun, the message saying how many were left out.
TEST(Shots, AStopAskedDuringAShotStopsTheRunAtItsEnd) {
  struct Asking final : explicit_fe::Observer {
    std::vector<std::string> events;
    void on_shot(std::size_t index, bool) override { events.push_back(str("begin ", index)); }
    void on_shot_end(std::size_t index, const std::vector<History>& histories) override {
      events.push_back(str("end ", index, " ", histories.size(), " ", histories.front().times.size()));
    }
    bool stop_requested() override { return ask; }
    bool ask = true;
  };
  const Model model = read(plate + two_shots);
  RunOptions options = serial();
  options.check_every = 1000000;  // no check before a shot's last step
  Asking whole;
  whole.ask = false;
  const ExplicitRun full = explicit_fe::run_explicit(model, options, &whole);
  ASSERT_TRUE(full.ok()) << full.message;
  ASSERT_EQ(whole.events.size(), 4u);
  Asking asking;
  const ExplicitRun run = explicit_fe::run_explicit(model, options, &asking);
  EXPECT_EQ(run.status, explicit_fe::RunStatus::Stopped);
  expect_contains(run.message, {"stopped on request at the end of a shot, 1 shot after it not stepped"});
  // The first shot's histories with every sample of the whole run's; the second not begun.
  EXPECT_EQ(asking.events, std::vector<std::string>(whole.events.begin(), whole.events.begin() + 2));
}

// A transducer whose delay reaches the run's end, and a receiver sampling more rarely than the run
// steps, are warned of at their lines: they would give zeros, or one sample, silently.
TEST(Shots, IdleLoadsAndRareReceiversAreWarnedOf) {
  std::string text = plate + two_shots;
  const std::string second = "name = \"two\"\n";
  text.insert(text.find(second) + second.size(), "delay = 1.0\n");
  text += "[[receiver]]\nname = \"rare\"\npositions = [[0.0, 0.0, 0.002]]\nevery = 100000\n";
  const explicit_fe::Preflight p = explicit_fe::preflight(read(text), serial());
  const auto warned = [&](const std::string& piece) {
    return std::count_if(p.warnings.begin(), p.warnings.end(),
                         [&](const std::string& w) { return w.find(piece) != std::string::npos; });
  };
  EXPECT_EQ(warned("transducer 'two' starts at 1 s (its delay), at or after the run's end (1e-05 s): it acts "
                   "nothing in this run"),
            1);
  EXPECT_EQ(warned(str("receiver 'rare' samples every 100000 steps, more than the run's ", p.steps,
                       ": it records its first sample only")),
            1);
  EXPECT_EQ(warned("transducer 'one'"), 0);
  EXPECT_EQ(warned("receiver 'probe'"), 0);
}

// Resumed from each of shot 1's checkpoints at `steps` (0: the one between the shots), a run
// completes shot 1 with the whole run's last samples, bit for bit.
void expect_resumes_in_the_second_shot(const Model& model, const RunOptions& options, const Shots& whole,
                                       const ExplicitRun& full, std::initializer_list<long long> steps) {
  for (const long long at : steps) {
    SCOPED_TRACE(str("resumed at step ", at));
    const auto from = std::find_if(whole.checkpoints.begin(), whole.checkpoints.end(),
                                   [&](const auto& c) { return c.shot == 1 && c.step == at; });
    ASSERT_NE(from, whole.checkpoints.end());
    RunOptions again = options;
    again.resume = &*from;
    Shots resumed;
    const ExplicitRun rest = explicit_fe::run_explicit(model, again, &resumed);
    ASSERT_TRUE(rest.ok()) << rest.message;
    EXPECT_EQ(rest.first_shot, 1);
    ASSERT_EQ(rest.shots.size(), 1u);
    EXPECT_EQ(resumed.events.front(), "begin 1 resumed");
    // The samples after the checkpoint's step are the whole run's last ones.
    for (std::size_t h = 0; h < rest.shots[0].size(); ++h) {
      const History& got = rest.shots[0][h];
      const History& want = full.shots[1][h];
      ASSERT_LE(got.times.size(), want.times.size());
      ASSERT_GT(got.times.size(), 0u);
      const std::size_t skip = want.times.size() - got.times.size();
      EXPECT_EQ(got.times, std::vector<double>(want.times.begin() + static_cast<std::ptrdiff_t>(skip), want.times.end()));
      EXPECT_EQ(got.values, std::vector<double>(want.values.begin() + static_cast<std::ptrdiff_t>(skip * want.sample_size()),
                                                want.values.end()))
          << want.name;
    }
  }
}

// From shot 1's second checkpoint, and from its start (the checkpoint between the shots).
TEST(Shots, CheckpointAndResumeInALaterShot) {
  const Model model = read(plate + two_shots);
  RunOptions options = serial();
  options.checkpoint_every = 40;
  Shots whole;
  const ExplicitRun full = explicit_fe::run_explicit(model, options, &whole);
  ASSERT_TRUE(full.ok()) << full.message;
  const long long steps = full.steps;
  ASSERT_GT(steps, 80);
  // Shot 0's checkpoints, shot 1's start and its own.
  std::vector<std::string> expected{"begin 0"};
  for (long long s = 40; s < steps; s += 40) expected.push_back(str("checkpoint 0 ", s));
  expected.push_back("end 0 2");
  expected.push_back("begin 1");
  expected.push_back("checkpoint 1 0");
  for (long long s = 40; s < steps; s += 40) expected.push_back(str("checkpoint 1 ", s));
  expected.push_back("end 1 2");
  EXPECT_EQ(whole.events, expected);
  ASSERT_EQ(whole.samples.size(), 2u);
  EXPECT_EQ(whole.samples[0], whole.samples[1]);
  EXPECT_GT(whole.samples[0], 0u);

  expect_resumes_in_the_second_shot(model, options, whole, full, {80, 0});
}

// With fluids: the checkpoints hold the water's potential and its receivers' waiting samples, a
// run resumed in the second shot (mid-shot, and at its start) completes it bit for bit.
TEST(Shots, AFluidsCheckpointAndResumeInALaterShot) {
  const Model model = read(tank + receivers + shot_left + shot_right);
  RunOptions options = serial();
  options.checkpoint_every = 20;
  Shots whole;
  const ExplicitRun full = explicit_fe::run_explicit(model, options, &whole);
  ASSERT_TRUE(full.ok()) << full.message;
  ASSERT_GT(full.steps, 40);
  // The second shot's hydrophone hears its piston after step 40: the resumed samples are not zeros.
  const History& hydrophone = full.shots[1][1];
  double late = 0.0;
  for (std::size_t k = 0; k < hydrophone.times.size(); ++k)
    if (hydrophone.times[k] > 40.5 * full.dt) late = std::max(late, std::abs(hydrophone.values[k]));
  EXPECT_GT(late, 1.0);  // Pa
  expect_resumes_in_the_second_shot(model, options, whole, full, {40, 0});
}

}  // namespace
}  // namespace tremor
