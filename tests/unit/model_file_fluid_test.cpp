// Fluid materials ([[material]] kind = "fluid"): the keys, the material they make, their errors
// (file:line), and the solvers' refusal of fluid sections until a run path takes them.
#include <gtest/gtest.h>

#include <string>

#include "tremor/core/error.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/model/material.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// A 0.2 x 0.1 m rectangle of 4 x 2 quad4 cells: lines 1-5; the material's table starts at line 6.
const std::string rectangle =
    "[mesh]\n"
    "generator = \"rectangle\"\n"
    "element = \"quad4\"\n"
    "size = [0.2, 0.1]\n"
    "divisions = [4, 2]\n";

Model parse(const std::string& text) { return io::read_model_buffer(text, "m.toml", ""); }

std::string error_of(const std::string& text) {
  try {
    (void)parse(text);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

// "[[material]]" (line 6), a fluid named water with `keys` from line 9.
std::string water(const std::string& keys) {
  return rectangle + "[[material]]\nname = \"water\"\nkind = \"fluid\"\n" + keys;
}

TEST(ModelFileFluid, SoundSpeedOrBulkModulus) {
  const Model by_speed = parse(water("density = 1000\nsound_speed = 1480\n"));
  ASSERT_EQ(by_speed.materials.size(), 1u);
  const Material& m = by_speed.materials[0];
  EXPECT_TRUE(m.fluid);
  EXPECT_FALSE(m.isotropic);  // no solid law applies
  // kappa = rho c^2 = 1000 x 1480^2; the speeds back to 1 ulp-ish (a square root of a product).
  EXPECT_DOUBLE_EQ(m.bulk_modulus, 2.1904e9);
  EXPECT_DOUBLE_EQ(m.sound_speed(), 1480.0);
  EXPECT_DOUBLE_EQ(m.max_wave_speed(), 1480.0);
  EXPECT_DOUBLE_EQ(m.min_wave_speed(), 1480.0);
  EXPECT_EQ(m.pml_margin(0, 2), 0.0);
  for (const double c : m.stiffness) EXPECT_EQ(c, 0.0);
  EXPECT_THROW((void)m.lambda(), Error);
  EXPECT_THROW((void)m.mu(), Error);

  const Model by_modulus = parse(water("density = 1.2\nbulk_modulus = 1.42e5\n"));  // air
  EXPECT_TRUE(by_modulus.materials[0].fluid);
  EXPECT_DOUBLE_EQ(by_modulus.materials[0].bulk_modulus, 1.42e5);
  EXPECT_NEAR(by_modulus.materials[0].sound_speed(), 344.0, 0.1);

  // A section on a fluid takes the dimension's default formulation and no formulation key.
  ASSERT_EQ(by_speed.sections.size(), 1u);
  EXPECT_TRUE(by_speed.has_fluids());
}

TEST(ModelFileFluid, ASolidIsUnchanged) {
  const Model steel =
      parse(rectangle + "[[material]]\nname = \"steel\"\nkind = \"solid\"\ndensity = 7850\nyoungs_modulus = 210e9\n"
                        "poisson_ratio = 0.3\n");
  EXPECT_FALSE(steel.materials[0].fluid);
  EXPECT_TRUE(steel.materials[0].isotropic);
  EXPECT_FALSE(steel.has_fluids());
  EXPECT_THROW((void)steel.materials[0].sound_speed(), Error);
}

TEST(ModelFileFluid, ErrorsNameTheLineAndKey) {
  const auto has = [](const std::string& error, const std::string& part) {
    return error.find(part) != std::string::npos;
  };
  // A shear constant on a fluid: refused at its own line.
  std::string e = error_of(water("density = 1000\nsound_speed = 1480\nshear_modulus = 1e9\n"));
  EXPECT_TRUE(has(e, "m.toml:11:") && has(e, "'shear_modulus' is not a fluid's")) << e;
  e = error_of(water("density = 1000\npoisson_ratio = 0.49\nsound_speed = 1480\n"));
  EXPECT_TRUE(has(e, "m.toml:10:") && has(e, "'poisson_ratio' is not a fluid's")) << e;
  e = error_of(water("density = 1000\nsound_speed = 1480\nq_p = 50\n"));
  EXPECT_TRUE(has(e, "m.toml:11:") && has(e, "'q_p' is not a fluid's")) << e;
  // Neither or both of the fluid's constants.
  e = error_of(water("density = 1000\n"));
  EXPECT_TRUE(has(e, "m.toml:6:") && has(e, "give exactly one of sound_speed (m/s) and bulk_modulus (Pa)")) << e;
  e = error_of(water("density = 1000\nsound_speed = 1480\nbulk_modulus = 2.2e9\n"));
  EXPECT_TRUE(has(e, "m.toml:11:") && has(e, "give exactly one of sound_speed")) << e;
  // Values out of range.
  e = error_of(water("density = 1000\nsound_speed = -1480\n"));
  EXPECT_TRUE(has(e, "m.toml:10:") && has(e, "'sound_speed' is -1480; expected a positive speed, m/s")) << e;
  e = error_of(water("density = 1000\nbulk_modulus = 1e40\n"));
  EXPECT_TRUE(has(e, "m.toml:10:") && has(e, "the magnitudes of a material")) << e;
  // A fluid's key on a solid, an unknown kind.
  e = error_of(rectangle + "[[material]]\nname = \"steel\"\ndensity = 7850\nsound_speed = 5900\n");
  EXPECT_TRUE(has(e, "m.toml:9:") && has(e, "'sound_speed' is a fluid's: give kind = \"fluid\"")) << e;
  e = error_of(rectangle + "[[material]]\nname = \"water\"\nkind = \"liquid\"\ndensity = 1000\nsound_speed = 1480\n");
  EXPECT_TRUE(has(e, "m.toml:8:") && has(e, "'liquid'") && has(e, "fluid")) << e;
  // A formulation on a fluid's section.
  e = error_of(water("density = 1000\nsound_speed = 1480\n") +
               "[[section]]\nelement_set = \"all\"\nmaterial = \"water\"\nformulation = \"plane_stress\"\n");
  EXPECT_TRUE(has(e, "m.toml:14:") && has(e, "'formulation' is a solid's; 'water' is a fluid")) << e;
}

TEST(ModelFileFluid, SolversRefuseFluidSectionsNamingThem) {
  const Model model = parse(water("density = 1000\nsound_speed = 1480\n") + "[explicit]\nduration = 1e-5\n");
  const auto refusal = [&](auto&& call) -> std::string {
    try {
      call();
    } catch (const Error& error) {
      return error.what();
    }
    return "no error";
  };
  const std::string run = refusal([&] { (void)explicit_fe::preflight(model); });
  EXPECT_NE(run.find("m.toml: the model has no solid element: a fluid runs coupled to a solid"), std::string::npos)
      << run;
  const std::string table = refusal([&] { (void)fem::section_table(model); });
  EXPECT_NE(table.find("is of the fluid 'water'"), std::string::npos) << table;
}

TEST(Material, FluidFromSoundSpeedValidates) {
  const Material water = Material::from_sound_speed("water", 1480.0, 1000.0);
  EXPECT_NO_THROW(water.validate());
  EXPECT_THROW((void)Material::from_sound_speed("w", 0.0, 1000.0), Error);
  EXPECT_THROW((void)Material::from_sound_speed("w", 1480.0, -1.0), Error);
  Material solid_stiffness = water;
  solid_stiffness.stiffness[0] = 1e9;  // a fluid with an elastic entry is no fluid
  EXPECT_THROW(solid_stiffness.validate(), Error);
}

// A volume source: `volume` in m^3 in place of a force's direction and amplitude; refused beside
// them, and in a model without a fluid.
TEST(ModelFileFluid, AVolumeSourceTakesVolumeAlone) {
  const auto has = [](const std::string& error, const std::string& part) {
    return error.find(part) != std::string::npos;
  };
  const std::string model = water("density = 1000\nsound_speed = 1480\n") +
                            "[[section]]\nelement_set = \"all\"\nmaterial = \"water\"\n"
                            "[[source]]\nposition = [0.1, 0.05]\nvolume = 2e-9\n"
                            "signal = { kind = \"ricker\", frequency = 1e4 }\n";
  const Model read = parse(model);
  ASSERT_EQ(read.point_sources.size(), 1u);
  EXPECT_TRUE(read.point_sources[0].volume);
  EXPECT_DOUBLE_EQ(read.point_sources[0].amplitude, 2e-9);
  std::string e = error_of(model + "direction = [0, 1]\n");
  EXPECT_TRUE(has(e, "m.toml:") && has(e, "a volume source (in a fluid) takes 'volume' (m^3) alone")) << e;
  e = error_of(rectangle + "[[material]]\nname = \"steel\"\nyoungs_modulus = 2e11\npoisson_ratio = 0.3\n"
               "density = 7850\n[[section]]\nelement_set = \"all\"\nmaterial = \"steel\"\n"
               "[[source]]\nposition = [0.1, 0.05]\nvolume = 2e-9\n"
               "signal = { kind = \"ricker\", frequency = 1e4 }\n");
  EXPECT_TRUE(has(e, "a volume source injects volume into a fluid, and the model has no fluid section")) << e;
  // A pressure release in a model without a fluid: its table's line, in the file's own terms.
  e = error_of(rectangle + "[[material]]\nname = \"steel\"\nyoungs_modulus = 2e11\npoisson_ratio = 0.3\n"
               "density = 7850\n[[section]]\nelement_set = \"all\"\nmaterial = \"steel\"\n"
               "[[pressure_release]]\nsurface = \"ymax\"\n");
  EXPECT_TRUE(has(e, "m.toml:") && has(e, "a pressure-release boundary holds a fluid's pressure, and the model has no "
                                          "fluid section") && !has(e, "degree of freedom")) << e;
}

// record = ["pressure"] makes a receiver of pressure; beside motion it is refused at the
// receiver's line (line 14).
TEST(ModelFileFluid, AReceiverRecordsPressureAlone) {
  const std::string model = water("density = 1000\nsound_speed = 1480\n") +
                            "[[section]]\nelement_set = \"all\"\nmaterial = \"water\"\n"
                            "[[receiver]]\nname = \"hydrophone\"\npositions = [[0.1, 0.05]]\n";
  const Model read = parse(model + "record = [\"pressure\"]\n");
  ASSERT_EQ(read.receivers.size(), 1u);
  EXPECT_TRUE(read.receivers[0].pressure);
  EXPECT_FALSE(read.receivers[0].displacement);
  const std::string e = error_of(model + "record = [\"pressure\", \"velocity\"]\n");
  EXPECT_NE(e.find("m.toml:14: receiver 'hydrophone' records pressure beside motion"), std::string::npos) << e;
}

// [output] snapshot_fields takes "pressure" in a model with a fluid (OutputSettings::pressure);
// without one it is refused at the [output] table's line (line 14, after the material's five
// lines and the section's three).
TEST(ModelFileFluid, SnapshotsTakeTheFluidsPressure) {
  const std::string output = "[output]\nsnapshot_every = 10\nsnapshot_fields = [\"velocity\", \"pressure\"]\n";
  const Model read = parse(water("density = 1000\nsound_speed = 1480\n") +
                           "[[section]]\nelement_set = \"all\"\nmaterial = \"water\"\n" + output);
  ASSERT_TRUE(read.output);
  EXPECT_TRUE(read.output->pressure);
  EXPECT_TRUE(read.output->velocity);
  EXPECT_FALSE(read.output->magnitude);
  const std::string dry = rectangle + "[[material]]\nname = \"steel\"\ndensity = 7850\nyoungs_modulus = 2e11\n"
                          "poisson_ratio = 0.3\n[[section]]\nelement_set = \"all\"\nmaterial = \"steel\"\n";
  const std::string e = error_of(dry + output);
  EXPECT_NE(e.find("m.toml:14: [output] snapshot_fields asks for pressure, which a fluid has, and the model has no "
                   "fluid section"),
            std::string::npos)
      << e;
}

// [[pressure_release]] holds the pressure of a node set's nodes, or of a surface's, at 0
// (FixedDof::pressure); it takes one of the two, at its line (line 14).
TEST(ModelFileFluid, APressureReleaseTakesANodeSetOrASurface) {
  const std::string model = water("density = 1000\nsound_speed = 1480\n") +
                            "[[section]]\nelement_set = \"all\"\nmaterial = \"water\"\n[[pressure_release]]\n";
  Model read = parse(model + "node_set = \"ymax\"\n");
  ASSERT_EQ(read.fixed.size(), 1u);
  EXPECT_EQ(read.fixed[0].component, FixedDof::pressure);
  EXPECT_EQ(read.fixed[0].nodes.size(), 5u);  // 4 cells along x
  read = parse(model + "surface = \"ymax\"\n");
  ASSERT_EQ(read.fixed.size(), 1u);
  EXPECT_EQ(read.fixed[0].nodes.size(), 5u);
  EXPECT_EQ(read.fixed[0].origin, "m.toml:14");
  const std::string e = error_of(model + "node_set = \"ymax\"\nsurface = \"ymax\"\n");
  EXPECT_NE(e.find("m.toml:14"), std::string::npos) << e;
  EXPECT_NE(e.find("a pressure-release boundary takes one of 'node_set' (its nodes) and 'surface'"), std::string::npos)
      << e;
}

// [[transducer]] mode = "piston" (line 14) on a fluid's surface: its centre (2 numbers in 2D),
// radius, drive; the faces it keeps; its errors at their lines.
TEST(ModelFileFluid, APistonStandsOnAFluidsSurface) {
  const std::string model = water("density = 1000\nsound_speed = 1480\n") +
                            "[[section]]\nelement_set = \"all\"\nmaterial = \"water\"\n[[transducer]]\n"
                            "name = \"probe\"\nmode = \"piston\"\nsurface = \"ymax\"\n"
                            "signal = { kind = \"ricker\", frequency = 1e4 }\n";
  const std::string at = "position = [0.1, 0.1]\nradius = 0.03\n";
  Model read = parse(model + at + "amplitude = 0.01\n");
  ASSERT_EQ(read.transducers.size(), 1u);
  const Transducer& t = read.transducers[0];
  EXPECT_EQ(t.mode, Transducer::Mode::Piston);
  EXPECT_EQ(t.drive, Transducer::Drive::Velocity);
  EXPECT_EQ(t.origin, "m.toml:14");
  EXPECT_DOUBLE_EQ(t.position[0], 0.1);
  EXPECT_DOUBLE_EQ(t.position[1], 0.1);
  EXPECT_DOUBLE_EQ(t.amplitude, 0.01);
  EXPECT_EQ(t.piston_faces.size(), 2u);  // the top's faces centred 0.025 m either side of it
  EXPECT_TRUE(read.point_sources.empty() && read.surface_loads.empty());
  EXPECT_EQ(parse(model + at + "drive = \"pressure\"\n").transducers[0].drive, Transducer::Drive::Pressure);
  const auto expect_error = [&](const std::string& text, const std::string& line, const std::string& part) {
    const std::string e = error_of(text);
    EXPECT_EQ(e.rfind(line, 0), 0u) << e;
    EXPECT_NE(e.find(part), std::string::npos) << e;
  };
  expect_error(model + "position = [0.1, 0.1, 0.0]\nradius = 0.03\n", "m.toml:19:",
               "'position' must be an array of 2");
  expect_error(model + "position = [0.1, 0.1]\n", "m.toml:14:",
               "missing 'radius' (the piston's, m; in 2D the strip's half-width)");
  expect_error(model + at + "drive = \"force\"\n", "m.toml:21:", "'force'");
  expect_error(model + at + "opposite = \"ymin\"\n", "m.toml:21:", "a piston has no 'opposite' surface");
  expect_error(model + "position = [0.1, 0.3]\nradius = 0.03\n", "m.toml:19:", "'position' lies outside the mesh");
  const std::string plate = water("density = 1000\nsound_speed = 1480\n") +
                            "[[section]]\nelement_set = \"all\"\nmaterial = \"water\"\n[[transducer]]\n"
                            "position = [0.1, 0.1]\ndrive = \"velocity\"\n"
                            "signal = { kind = \"ricker\", frequency = 1e4 }\n";
  expect_error(plate, "m.toml:16:", "'drive' is a piston's");
}

}  // namespace
}  // namespace tremor
