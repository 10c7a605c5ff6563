// Values at the edge of double and names that cannot be a group's: each refused at its key's line,
// naming the key and the value, before anything is built from it (docs/model-file.md, the
// "Magnitudes" paragraphs and [[shot]]).
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/backend/memory.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/model/signal.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using test::error_of;
using test::expect_contains;

// Lines 1-5: a 2 x 2 x 1 box of 1 mm hex8 cells; 6-10: steel; 11-12: [explicit].
const std::string box =
    "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\nsize = [0.002, 0.002, 0.001]\ndivisions = [2, 2, 1]\n";
const std::string steel =
    "[[material]]\nname = \"steel\"\ndensity = 7850\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n";
const std::string run = "[explicit]\nduration = 1e-6\n";

Model read(const std::string& text) { return io::read_model_buffer(text, "m.toml", ""); }

std::string refusal(const std::string& text) {
  return error_of([&] { (void)read(text); });
}

std::string with_material(const std::string& density, const std::string& modulus) {
  return box + "[[material]]\nname = \"m\"\ndensity = " + density + "\nyoungs_modulus = " + modulus +
         "\npoisson_ratio = 0.3\n" + run;
}

std::string with_source(const std::string& direction, const std::string& signal) {
  return box + steel + run + "[[source]]\nposition = [0.001, 0.001, 0.001]\ndirection = " + direction +
         "\nsignal = " + signal + "\n";
}

class ModelFileLimits : public ::testing::Test {
 protected:
  const log::Quiet quiet_;  // stderr silenced, earlier warnings set aside
};

// [1e308, 1e308] has a norm of inf in double; scaled first, it is the direction (1, 1)/sqrt 2.
TEST_F(ModelFileLimits, HugeDirectionIsADirection) {
  const Model model = read(with_source("[1e308, 1e308, 0]", "{ kind = \"ricker\", frequency = 1e6 }"));
  ASSERT_EQ(model.point_sources.size(), 1u);
  // Two divisions of exact powers of two and one rounded sqrt: 1 ulp.
  EXPECT_NEAR(model.point_sources[0].direction[0], std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(model.point_sources[0].direction[1], std::sqrt(0.5), 1e-15);
  // A subnormal one too; zero is still refused.
  EXPECT_NEAR(read(with_source("[0, 1e-320, 0]", "{ kind = \"ricker\", frequency = 1e6 }"))
                  .point_sources[0].direction[1], 1.0, 1e-15);
  expect_contains(refusal(with_source("[0, 0, 0]", "{ kind = \"ricker\", frequency = 1e6 }")),
                  {"m.toml:15:", "'direction' is the zero vector"});
}

// The density and the modulus are named at their own lines, not blamed on the geometry.
TEST_F(ModelFileLimits, MaterialMagnitudesNamedAtTheirKeys) {
  expect_contains(refusal(with_material("1e-308", "210e9")),
                  {"m.toml:8:", "'density' is 1e-308", "within [1e-30, 1e+30] kg/m^3"});
  expect_contains(refusal(with_material("1e308", "210e9")), {"m.toml:8:", "'density' is 1e+308"});
  expect_contains(refusal(with_material("7850", "1e308")),
                  {"m.toml:9:", "'youngs_modulus' holds 1e+308 Pa", "within [1e-30, 1e+30] Pa"});
  expect_contains(refusal(with_material("7850", "1e-308")), {"m.toml:9:", "'youngs_modulus' holds 1e-308 Pa"});
  // Within the bounds, but Poisson's ratio a hair below 0.5 makes lambda 1e41: the constants.
  expect_contains(refusal(box + "[[material]]\nname = \"m\"\ndensity = 7850\nyoungs_modulus = 1e30\n"
                                "poisson_ratio = 0.4999999999999\n" + run),
                  {"m.toml:9:", "material 'm': its largest stiffness entry is", "outside [1e-30, 1e+30]"});
  // Wave speeds are checked through the moduli they give: rho c^2 = 1e3 * 1e40.
  expect_contains(refusal(box + "[[material]]\nname = \"m\"\ndensity = 1e3\np_wave_speed = 1e20\n"
                                "s_wave_speed = 1e19\n" + run),
                  {"m.toml:9:", "largest stiffness entry"});
}

TEST_F(ModelFileLimits, SignalMagnitudesNamedAtTheirKeys) {
  expect_contains(refusal(with_source("[0, 0, 1]", "{ kind = \"tone_burst\", frequency = 1e308, cycles = 3 }")),
                  {"m.toml:16:", "'frequency' is 1e+308; expected 1e-30 to 1e+30"});
  expect_contains(refusal(with_source("[0, 0, 1]", "{ kind = \"ricker\", frequency = 1e-308 }")),
                  {"m.toml:16:", "'frequency' is 1e-308"});
  expect_contains(refusal(with_source("[0, 0, 1]", "{ kind = \"gaussian\", sharpness = 1e300 }")),
                  {"m.toml:16:", "'sharpness' is 1e+300; expected 1e-60 to 1e+60"});
  // A fraction of a cycle so small that f (1 + 3 / n) passes 1e30 Hz.
  expect_contains(refusal(with_source("[0, 0, 1]", "{ kind = \"tone_burst\", frequency = 1e6, cycles = 1e-30 }")),
                  {"m.toml:16:", "the highest frequency f (1 + 3 / cycles) is 3e+36 Hz"});
  // Points 1e-40 s apart: a Nyquist frequency of 5e39 Hz.
  expect_contains(refusal(with_source("[0, 0, 1]", "{ kind = \"tabulated\", points = [[0, 0], [1e-40, 1]] }")),
                  {"m.toml:16:", "points 1 and 2 are 1e-40 s apart"});
}

// A step longer than the whole run (1e145 s from a material of no physical stiffness) once ran as
// one step past the end and called that complete. An automatic one is shortened to the duration,
// with a warning naming both and what set it; one given is refused.
TEST_F(ModelFileLimits, StepLongerThanTheDuration) {
  const Model model = read(box + steel + "[explicit]\nduration = 1e-12\n");
  explicit_fe::RunOptions options;
  options.backend = "serial";
  const explicit_fe::Preflight p = explicit_fe::preflight(model, options);
  EXPECT_EQ(p.dt, 1e-12);
  EXPECT_EQ(p.steps, 1);
  EXPECT_EQ(p.dt_source, "automatic, shortened to the duration");
  ASSERT_EQ(p.warnings.size(), 2u);  // and that nothing loads it
  expect_contains(p.warnings[1], {"nothing loads the model"});
  expect_contains(p.warnings[0], {"the automatic time step", "(0.9 x the stable step", "set by element",
                                  "is longer than the duration 1e-12 s: the run is one step of the duration"});
  options.time_step = 1e-11;
  expect_contains(error_of([&] { (void)explicit_fe::preflight(model, options); }),
                  {"the time step 1e-11 s (--dt) is longer than the duration 1e-12 s (the duration in m.toml)",
                   "one step past its end"});
  options.time_step.reset();
  options.duration = 1e-3;  // the same model for longer runs: the automatic step
  EXPECT_GT(explicit_fe::preflight(model, options).steps, 1);
}

// A shot's name is its group /shots/<name>: what HDF5 cannot hold, or would cut at a NUL, is
// refused at the name's line, shown escaped.
TEST_F(ModelFileLimits, ShotNamesThatCannotBeGroups) {
  const std::string plate = box + steel + run +
                            "[[transducer]]\nname = \"t\"\nposition = [0.001, 0.001]\n"
                            "signal = { kind = \"tone_burst\", frequency = 1e6, cycles = 3 }\n";
  const auto shot = [&](const std::string& name) {
    return refusal(plate + "[[shot]]\nname = " + name + "\ntransducers = [\"t\"]\n");
  };
  expect_contains(shot("\".\""), {"m.toml:18:", "the shot's name \".\" is not a group's name"});
  expect_contains(shot("\"..\""), {"m.toml:18:", "\"..\" is not a group's name"});
  expect_contains(shot("\"a\\u0000b\""), {"m.toml:18:", "\"a\\x00b\" holds a control character"});
  expect_contains(shot("\"a/b\""), {"m.toml:18:", "\"a/b\" holds '/'"});
  expect_contains(shot("\"\""), {"m.toml:18:", "the shot's name is empty"});
  // The message holds no NUL: it would be cut there when printed.
  EXPECT_EQ(shot("\"a\\u0000b\"").find('\0'), std::string::npos);
  EXPECT_EQ(read(plate + "[[shot]]\nname = \"A0 at 3 mm\"\ntransducers = [\"t\"]\n").shots.at(0).name, "A0 at 3 mm");
}

// host_available() names the address-space limit when it binds: set just above what the process
// maps now, restored after.
TEST(HostMemory, AvailableNamesTheAddressSpaceLimit) {
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &saved), 0);
  const memory::HostAvailable unlimited = memory::host_available();
  // statm's first field: the pages mapped now.
  std::size_t pages = 0;
  {
    FILE* statm = std::fopen("/proc/self/statm", "r");
    ASSERT_NE(statm, nullptr);
    ASSERT_EQ(std::fscanf(statm, "%zu", &pages), 1);
    std::fclose(statm);
  }
  const std::size_t mapped = pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t headroom = 64u << 20;
  if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < mapped + headroom) GTEST_SKIP() << "hard limit too low";
  rlimit tight = saved;
  tight.rlim_cur = mapped + headroom;
  ASSERT_EQ(setrlimit(RLIMIT_AS, &tight), 0);
  const memory::HostAvailable limited = memory::host_available();
  ASSERT_EQ(setrlimit(RLIMIT_AS, &saved), 0);
  EXPECT_TRUE(limited.known());
  expect_contains(limited.by, {"left under the address-space limit (ulimit -v)"});
  // What the call itself mapped in between (a file buffer or two): at most a few MB.
  EXPECT_LE(limited.bytes, headroom);
  EXPECT_GE(limited.bytes, headroom - (8u << 20));
  if (unlimited.known()) {
    EXPECT_GE(unlimited.bytes, limited.bytes);
  }
}

}  // namespace
}  // namespace tremor
