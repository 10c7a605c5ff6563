// explicit_fe::Simulation: one set-up, many runs. A run equals run_explicit of the same model bit
// for bit, the first and every later one (each from rest, whatever the run before left); a run with
// other loads, receivers or duration equals run_explicit of that model; shots run as run_explicit
// runs them; what the set-up holds cannot change between runs, and saying so names it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "support/runs.hpp"
#include "support/support.hpp"
#include "tremor/explicit/simulation.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/model_file.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::ExplicitRun;
using explicit_fe::RunOptions;
using explicit_fe::Simulation;
using test::error_of;
using test::expect_contains;

// A 20 x 20 x 2 mm aluminium plate of 1 mm hex8 cells, clamped along one edge (constraints the
// integrator holds), with material damping: mass-proportional (a damped integrator) and
// stiffness-proportional (a per-step term).
const std::string setup =
    "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\norigin = [-0.01, -0.01, 0.0]\nsize = [0.02, 0.02, 0.002]\n"
    "divisions = [20, 20, 2]\n"
    "[[material]]\nname = \"al\"\ndensity = 2700.0\nyoungs_modulus = 70e9\npoisson_ratio = 0.33\ndamping_alpha = 2e3\n"
    "damping_beta = 5e-9\n"
    "[[prescribed_displacement]]\nnode_set = \"xmin\"\ncomponents = [\"x\", \"y\", \"z\"]\namplitude = 0.0\n"
    "signal = { kind = \"ricker\", frequency = 1e6 }\n";

std::string excitation(double frequency, double x, const std::string& duration = "1e-5") {
  return "[explicit]\nduration = " + duration +
         "\n[[source]]\nposition = [" + std::to_string(x) + ", 0.0, 0.002]\ndirection = [0.0, 0.0, -1.0]\n"
         "signal = { kind = \"tone_burst\", frequency = " + std::to_string(frequency) + ", cycles = 3 }\n"
         "[[receiver]]\nname = \"probe\"\npositions = [[0.004, 0.002, 0.002]]\nrecord = [\"displacement\", \"velocity\"]\n";
}

Model read(const std::string& text) { return io::read_model_buffer(text, "m.toml", ""); }

RunOptions options(const char* precision = "double") {
  RunOptions o;
  o.backend = "serial";
  o.precision = precision;
  o.check_every = 10;
  return o;
}

void expect_same(const ExplicitRun& got, const ExplicitRun& want) {
  ASSERT_TRUE(got.ok()) << got.message;
  EXPECT_EQ(got.steps, want.steps);
  EXPECT_EQ(got.dt, want.dt);
  test::expect_histories_close(want.histories, got.histories, 0.0);  // the same arithmetic: the same bits
}

TEST(Simulation, RunsEqualRunExplicitEveryTime) {
  for (const char* precision : {"double", "float"}) {
    const Model model = read(setup + excitation(1e6, -0.005));
    const ExplicitRun want = explicit_fe::run_explicit(model, options(precision));
    Simulation simulation(model, options(precision));
    EXPECT_GT(simulation.setup_seconds(), 0.0);
    expect_same(simulation.run(model, options(precision)), want);
    expect_same(simulation.run(model, options(precision)), want);  // from rest again
  }
}

// An attenuating model (sem keeps memory variables at its GLL points): each run starts them at
// rest again, so the second equals the first and run_explicit bit for bit.
TEST(Simulation, AttenuatingRunsStartTheirMemoryVariablesAtRest) {
  const std::string gll =
      "[mesh]\ngenerator = \"box\"\nelement = \"hex-gll3\"\norigin = [-0.01, -0.01, 0.0]\nsize = [0.02, 0.02, 0.004]\n"
      "divisions = [5, 5, 1]\n"
      "[[material]]\nname = \"polymer\"\ndensity = 1200.0\np_wave_speed = 2500.0\ns_wave_speed = 1100.0\n"
      "q_p = 40\nq_s = 20\n";
  const Model model = read(gll + excitation(2e5, -0.005, "2e-5"));
  const ExplicitRun want = explicit_fe::run_explicit(model, options());
  ASSERT_EQ(want.preflight.operator_kind(), "sem");
  ASSERT_EQ(want.preflight.attenuation.size(), 1u);
  Simulation simulation(model, options());
  expect_same(simulation.run(model, options()), want);
  expect_same(simulation.run(model, options()), want);
}

TEST(Simulation, RunsOtherLoadsReceiversAndDurations) {
  const Model model = read(setup + excitation(1e6, -0.005));
  Simulation simulation(model, options());
  for (const auto& [frequency, x, duration] :
       {std::tuple{2e6, 0.003, "8e-6"}, std::tuple{5e5, -0.002, "1.2e-5"}, std::tuple{1e6, -0.005, "1e-5"}}) {
    const std::string text = excitation(frequency, x, duration);
    const Model variant = read(setup + text);
    const Model run_model = io::read_excitation_buffer(text, "run.toml", "", simulation.model());
    expect_same(simulation.run(run_model, options()), explicit_fe::run_explicit(variant, options()));
  }
  // The duration given as an option.
  RunOptions shorter = options();
  shorter.duration = 4e-6;
  const ExplicitRun run = simulation.run(model, shorter);
  expect_same(run, explicit_fe::run_explicit(model, shorter));
  EXPECT_EQ(run.steps, explicit_fe::preflight(model, shorter).steps);
}

TEST(Simulation, RunsShots) {
  const std::string transducers =
      "[explicit]\nduration = 6e-6\n"
      "[[transducer]]\nname = \"one\"\nposition = [-0.005, 0.0]\nsignal = { kind = \"tone_burst\", frequency = 1e6, cycles = 3 }\n"
      "[[transducer]]\nname = \"two\"\nposition = [0.005, 0.003]\nmode = \"S0\"\n"
      "signal = { kind = \"tone_burst\", frequency = 1e6, cycles = 3 }\n"
      "[[receiver]]\nname = \"probe\"\npositions = [[0.002, 0.002, 0.002]]\n"
      "[[shot]]\nname = \"a\"\ntransducers = [\"one\"]\n[[shot]]\nname = \"b\"\ntransducers = [\"two\"]\n";
  const Model base = read(setup + excitation(1e6, -0.005));
  Simulation simulation(base, options());
  const ExplicitRun got = simulation.run(io::read_excitation_buffer(transducers, "run.toml", "", base), options());
  const ExplicitRun want = explicit_fe::run_explicit(read(setup + transducers), options());
  ASSERT_TRUE(got.ok()) << got.message;
  ASSERT_EQ(got.shots.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) test::expect_histories_close(want.shots[k], got.shots[k], 0.0);
}

// A model with fluids (water on steel, 2D): the solid set up with the fluid as its term. Runs equal
// run_explicit, the first and the next; a run with another volume source and other receivers (of
// pressure and of the water's motion) equals run_explicit of that model. A piston driven by
// pressure holds fluid nodes the set-up does not: refused.
TEST(Simulation, RunsAModelWithFluids) {
  const Model base = io::read_model_file(test::data_path("cli/water_on_steel.toml"));
  Simulation simulation(base, options());
  const ExplicitRun want = explicit_fe::run_explicit(base, options());
  ASSERT_EQ(want.histories.size(), 3u);
  expect_same(simulation.run(base, options()), want);
  expect_same(simulation.run(base, options()), want);  // from rest again, the fluid too
  const std::string other =
      "[explicit]\nduration = 6e-6\n"
      "[[source]]\nposition = [0.008, 0.014]\nvolume = 1e-9\nsignal = { kind = \"ricker\", frequency = 400e3 }\n"
      "[[receiver]]\nname = \"p\"\npositions = [[0.012, 0.013]]\nrecord = [\"pressure\"]\n"
      "[[receiver]]\nname = \"water\"\npositions = [[0.012, 0.0125]]\nrecord = [\"velocity\"]\n"
      "[[receiver]]\nname = \"steel\"\npositions = [[0.009, 0.009]]\nrecord = [\"velocity\"]\n";
  const Model excitation = io::read_excitation_buffer(other, "run.toml", "", base);
  const ExplicitRun got = simulation.run(excitation, options());
  const ExplicitRun expected = explicit_fe::run_explicit(excitation, options());
  expect_same(got, expected);
  // The solid's receiver, then the fluid's (pressure first); each saw the pulse.
  ASSERT_EQ(got.histories.size(), 3u);
  EXPECT_EQ(got.histories[1].name, "p");
  for (const explicit_fe::History& h : got.histories) {
    double largest = 0.0;
    for (const double v : h.values) largest = std::max(largest, std::abs(v));
    EXPECT_GT(largest, 0.0) << h.name;
  }
  const std::string piston =
      "[[transducer]]\nname = \"piston\"\nmode = \"piston\"\nsurface = \"ymax\"\nposition = [0.01, 0.02]\n"
      "radius = 0.002\ndrive = \"pressure\"\namplitude = 1e3\nsignal = { kind = \"ricker\", frequency = 400e3 }\n";
  const Model pressed = io::read_excitation_buffer(piston, "run.toml", "", base);
  expect_contains(error_of([&] { (void)simulation.run(pressed, options()); }),
                  {"other nodes of the fluid than the set-up's", "pistons driven by pressure"});
  // And the set-up still runs.
  expect_same(simulation.run(base, options()), want);
}

TEST(Simulation, RefusesToChangeTheSetUp) {
  const Model base = read(setup + excitation(1e6, -0.005));
  const auto fails = [&](const std::string& text) {
    return error_of([&] { (void)io::read_excitation_buffer(text, "run.toml", "", base); });
  };
  expect_contains(fails("[[material]]\nname = \"steel\"\ndensity = 7850.0\n"),
                  {"run.toml:1", "'material' belongs to the set-up"});
  expect_contains(fails("[explicit]\ntime_step = 1e-8\n"), {"run.toml:2", "[explicit] time_step is the set-up's"});
  expect_contains(fails("[[source]]\nposition = [0.0, 0.0, 0.002]\n"), {"run.toml:1", "missing 'direction'"});
  Simulation simulation(base, options());
  // Other constrained DOFs than the integrator holds.
  const Model free = read(setup.substr(0, setup.find("[[prescribed")) + excitation(1e6, -0.005));
  expect_contains(error_of([&] { (void)simulation.run(free, options()); }),
                  {"holds other DOFs fixed or prescribed than the set-up"});
  const Model smaller = read(
      "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\nsize = [0.02, 0.02, 0.002]\ndivisions = [10, 10, 1]\n"
      "[[material]]\nname = \"al\"\ndensity = 2700.0\nyoungs_modulus = 70e9\npoisson_ratio = 0.33\n" +
      excitation(1e6, 0.005));
  expect_contains(error_of([&] { (void)simulation.run(smaller, options()); }), {"takes its mesh"});
  RunOptions decomposed = options();
  decomposed.domains = 2;
  expect_contains(error_of([&] { Simulation s(base, decomposed); }), {"one domain in one process"});
}

}  // namespace
}  // namespace tremor
