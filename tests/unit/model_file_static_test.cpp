// [static] and [[body_force]] in the model file, loads without signals in a static model, the
// checks Model::validate makes of them, and the documented static examples.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/fem/loads.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/model/model.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// A 2 x 1 x 1 m box of 2 x 1 x 1 hex8 cells, steel, the element set "left" (first cell): lines 1-14.
const std::string box =
    "[mesh]\n"
    "generator = \"box\"\n"
    "element = \"hex8\"\n"
    "size = [2, 1, 1]\n"
    "divisions = [2, 1, 1]\n"
    "[[mesh.element_set]]\n"
    "name = \"left\"\n"
    "min = [0, 0, 0]\n"
    "max = [1, 1, 1]\n"
    "[[material]]\n"
    "name = \"steel\"\n"
    "density = 7850\n"
    "youngs_modulus = 210e9\n"
    "poisson_ratio = 0.3\n";
// A 2D plate, 0.2 x 0.1 m, 4 x 2 quad4: lines 1-10.
const std::string plate =
    "[mesh]\n"
    "generator = \"rectangle\"\n"
    "element = \"quad4\"\n"
    "size = [0.2, 0.1]\n"
    "divisions = [4, 2]\n"
    "[[material]]\n"
    "name = \"steel\"\n"
    "density = 7850\n"
    "youngs_modulus = 210e9\n"
    "poisson_ratio = 0.3\n";

class ModelFileStatic : public ::testing::Test {
 protected:
  const log::Quiet quiet_;  // stderr silenced, earlier warnings set aside
};

Model parse(const std::string& text) { return io::read_model_buffer(text, "m.toml", ""); }

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// The message must start "m.toml:LINE: " and contain every piece.
void expect_error(const std::string& text, long line, const std::vector<std::string>& pieces) {
  const std::string message = error_of(text);
  const std::string prefix = str("m.toml:", line, ": ");
  EXPECT_EQ(message.substr(0, prefix.size()), prefix) << message;
  for (const auto& piece : pieces)
    EXPECT_NE(message.find(piece), std::string::npos) << "'" << piece << "' not in: " << message;
}

TEST_F(ModelFileStatic, StaticSettingsAndTheirDefaults) {
  const Model defaults = parse(box + "[static]\n");
  ASSERT_TRUE(defaults.static_settings.has_value());
  const StaticSettings& d = *defaults.static_settings;
  const StaticSettings expected;
  EXPECT_EQ(d.backend, expected.backend);
  EXPECT_EQ(d.precision, expected.precision);
  EXPECT_EQ(d.preconditioner, expected.preconditioner);
  EXPECT_EQ(d.tolerance, expected.tolerance);
  EXPECT_EQ(d.max_iterations, expected.max_iterations);
  EXPECT_EQ(d.format, expected.format);
  EXPECT_EQ(d.assembly, expected.assembly);
  EXPECT_EQ(d.origin, "m.toml:15");
  EXPECT_TRUE(d.step_name.empty());
  EXPECT_TRUE(log::take_warnings().empty());  // [static] is no longer reserved

  const Model given = parse(box +
                            "[static]\nbackend = \"openmp\"\nprecision = \"float\"\npreconditioner = \"jacobi\"\n"
                            "tolerance = 1e-10\nmax_iterations = 500\nformat = \"block_csr\"\nassembly = \"atomics\"\n");
  const StaticSettings& s = *given.static_settings;
  EXPECT_EQ(s.backend, Backend::OpenMP);
  EXPECT_EQ(s.precision, Precision::Float);
  EXPECT_EQ(s.preconditioner, PreconditionerKind::Jacobi);
  EXPECT_EQ(s.tolerance, 1e-10);
  EXPECT_EQ(s.max_iterations, 500);
  EXPECT_EQ(s.format, StaticFormat::BlockCsr);
  EXPECT_EQ(s.assembly, StaticAssembly::Atomics);
  // Both solvers' tables in one model: each reads its own.
  const Model both = parse(box + "[explicit]\nduration = 1e-5\n[static]\ntolerance = 1e-6\n");
  EXPECT_TRUE(both.explicit_settings.has_value());
  EXPECT_EQ(both.static_settings->tolerance, 1e-6);
}

// The backend, preconditioner and format are parsed by their Named tables where the file is read: an
// unknown name is refused whole, naming the file, the line and the table's names in order.
TEST_F(ModelFileStatic, UnknownChoiceNamesTheFileAndLine) {
  const std::string head = box + "[static]\n";  // [static] on line 15
  EXPECT_EQ(error_of(head + "backend = \"gpu\"\n"),
            "m.toml:16: [static]: unknown backend 'gpu'; expected \"auto\", \"serial\", \"openmp\" or \"cuda\"");
  EXPECT_EQ(error_of(head + "preconditioner = \"block-jacobi\"\n"),
            "m.toml:16: [static]: unknown preconditioner 'block-jacobi' (did you mean 'block_jacobi'?); expected "
            "\"none\", \"jacobi\" or \"block_jacobi\"");
  EXPECT_EQ(error_of(head + "format = \"ell\"\n"),
            "m.toml:16: [static]: unknown format 'ell'; expected \"csr\" or \"block_csr\"");
}

TEST_F(ModelFileStatic, BadStaticSettingsNameTheLineAndTheChoices) {
  const std::string head = box + "[static]\n";  // [static] on line 15
  expect_error(head + "backend = \"gpu\"\n", 16,
               {"[static]: unknown backend 'gpu'; expected \"auto\", \"serial\", \"openmp\" or \"cuda\""});
  expect_error(head + "precision = \"half\"\n", 16, {"unknown precision 'half'", "\"double\" or \"float\""});
  expect_error(head + "preconditioner = \"ilu\"\n", 16,
               {"unknown preconditioner 'ilu'", "\"none\", \"jacobi\" or \"block_jacobi\""});
  expect_error(head + "preconditioner = \"block-jacobi\"\n", 16, {"did you mean 'block_jacobi'?"});
  expect_error(head + "format = \"ell\"\n", 16, {"unknown format 'ell'", "\"csr\" or \"block_csr\""});
  expect_error(head + "assembly = \"locks\"\n", 16,
               {"unknown assembly 'locks'", "\"auto\", \"colouring\" or \"atomics\""});
  expect_error(head + "tolerance = 0\n", 16, {"'tolerance' is 0", "in (0, 1)"});
  expect_error(head + "tolerance = 1.5\n", 16, {"'tolerance' is 1.5"});
  expect_error(head + "tolerance = \"tight\"\n", 16, {"'tolerance' must be a number, got a string"});
  expect_error(head + "max_iterations = 0\n", 16, {"'max_iterations' is 0", "from 1 to"});
  expect_error(head + "max_iterations = 1e4\n", 16, {"'max_iterations' must be an integer"});
  expect_error(head + "max_iterations = 3000000000\n", 16, {"'max_iterations' is 3000000000"});
  expect_error(head + "\ntol = 1e-6\n", 17, {"unknown key 'tol'", "did you mean 'tolerance'?"});
  expect_error(head + "backend = 1\n", 16, {"'backend' must be a string, got an integer"});
  expect_error(box + "[[static]]\ntolerance = 1e-6\n", 15, {"'static' must be a table ([static])"});
}

TEST_F(ModelFileStatic, BodyForcesByAccelerationGravityAndForcePerVolume) {
  const Model model = parse(box +
                            "[[body_force]]\nacceleration = [0, 0, -9.81]\n"
                            "[[body_force]]\nelement_set = \"left\"\ngravity = 10\ndirection = [3, 0, -4]\n"
                            "[[body_force]]\nforce_per_volume = [100, 0, 0]\n");
  ASSERT_EQ(model.body_forces.size(), 3u);
  const BodyForce& everywhere = model.body_forces[0];
  EXPECT_TRUE(everywhere.element_set.empty());
  EXPECT_EQ(everywhere.elements, (std::vector<Index>{0, 1}));
  EXPECT_EQ(everywhere.acceleration, (std::array<double, 3>{0.0, 0.0, -9.81}));
  EXPECT_EQ(everywhere.origin, "m.toml:15");
  const BodyForce& left = model.body_forces[1];
  EXPECT_EQ(left.element_set, "left");
  EXPECT_EQ(left.elements, (std::vector<Index>{0}));
  // 10 along (3, 0, -4) / 5; normalising rounds.
  EXPECT_NEAR(left.acceleration[0], 6.0, 1e-14);
  EXPECT_EQ(left.acceleration[1], 0.0);
  EXPECT_NEAR(left.acceleration[2], -8.0, 1e-14);
  EXPECT_EQ(left.force_per_volume, (std::array<double, 3>{0.0, 0.0, 0.0}));
  const BodyForce& pushed = model.body_forces[2];
  EXPECT_EQ(pushed.acceleration, (std::array<double, 3>{0.0, 0.0, 0.0}));
  EXPECT_EQ(pushed.force_per_volume, (std::array<double, 3>{100.0, 0.0, 0.0}));
  // The weight of the 2 m^3 box, rounding only.
  double weight = 0.0;
  for (const auto& [dof, force] : fem::body_forces(model, everywhere)) weight += dof % 3 == 2 ? force : 0.0;
  EXPECT_NEAR(weight, -7850.0 * 2.0 * 9.81, 1e-9);

  const Model flat = parse(plate + "[[body_force]]\ngravity = 9.81\ndirection = [0, -2]\n");
  EXPECT_EQ(flat.body_forces.at(0).acceleration, (std::array<double, 3>{0.0, -9.81, 0.0}));
}

TEST_F(ModelFileStatic, BadBodyForcesNameTheLine) {
  const std::string head = box + "[[body_force]]\n";  // [[body_force]] on line 15
  expect_error(head + "gravity = 9.81\n", 16, {"[[body_force]] #1: missing 'direction'", "[0, 0, -1]"});
  expect_error(plate + "[[body_force]]\ngravity = 9.81\n", 12, {"missing 'direction'", "[0, -1]"});
  expect_error(head + "gravity = 9.81\ndirection = [0, 0, 0]\n", 17, {"'direction' is the zero vector"});
  expect_error(head + "element_set = \"rigth\"\nacceleration = [0, 0, -9.81]\n", 16,
               {"no element set named 'rigth'", "the mesh has 'all', 'left'"});
  expect_error(head + "element_set = \"lef\"\nacceleration = [0, 0, -9.81]\n", 16, {"did you mean 'left'?"});
  expect_error(head + "element_set = 3\nacceleration = [0, 0, -9.81]\n", 16, {"'element_set' must be a string"});
  expect_error(head, 15, {"give one of 'acceleration'", "'gravity'", "'force_per_volume'"});
  expect_error(head + "acceleration = [0, 0, -9.81]\ngravity = 9.81\n", 15, {"give one of"});
  expect_error(head + "acceleration = [0, 0, -9.81]\ndirection = [0, 0, -1]\n", 17,
               {"'direction' goes with 'gravity'"});
  expect_error(head + "acceleration = [0, -9.81]\n", 16, {"'acceleration' must be an array of 3 numbers"});
  expect_error(plate + "[[body_force]]\nforce_per_volume = [1, 2, 3]\n", 12,
               {"'force_per_volume' must be an array of 2 numbers"});
  expect_error(head + "gravity = \"down\"\ndirection = [0, 0, -1]\n", 16, {"'gravity' must be a number"});
  expect_error(head + "gravity = 9.81\ndirection = [0, 0, -1]\namplitude = 2\n", 18,
               {"unknown key 'amplitude'", "expected one of"});
  expect_error(box + "[body_force]\nacceleration = [0, 0, -9.81]\n", 15, {"must be an array of tables"});
}

TEST_F(ModelFileStatic, AStaticModelNeedsNoSignals) {
  // [static] and no [explicit]: loads without a signal are constant, the static solver's loads.
  const Model model = parse(plate +
                            "[static]\n"
                            "[[source]]\nposition = [0.2, 0.1]\ndirection = [0, -1]\namplitude = 50\n"
                            "[[traction]]\nsurface = \"xmax\"\ntraction = [1e3, 0]\n"
                            "[[prescribed_displacement]]\nnode_set = \"xmin\"\ncomponents = [\"x\", \"y\"]\n"
                            "amplitude = 0\n");
  ASSERT_EQ(model.point_sources.size(), 1u);
  const Signal& constant = model.point_sources[0].signal;
  for (double t : {0.0, 1e-6, 1.0, 1e6}) EXPECT_EQ(constant.value(t), 1.0) << t;
  EXPECT_EQ(constant.highest_frequency(), 0.0);
  ASSERT_EQ(model.surface_loads.size(), 1u);
  EXPECT_FALSE(model.surface_loads[0].signal.has_value());  // no signal, no amplitude: constant
  EXPECT_TRUE(model.surface_loads[0].amplitude.empty());
  ASSERT_EQ(model.prescribed.size(), 1u);
  EXPECT_EQ(model.prescribed[0].signal.value(0.5), 1.0);
  EXPECT_EQ(model.prescribed[0].components, (std::vector<int>{0, 1}));
  // A signal given anyway is read (and checked).
  const Model signalled = parse(plate + "[static]\n[[source]]\nposition = [0.2, 0.1]\ndirection = [0, -1]\n"
                                        "signal = { kind = \"ricker\", frequency = 1e5 }\n");
  EXPECT_EQ(signalled.point_sources.at(0).signal.kind, SignalKind::Ricker);
  expect_error(plate + "[static]\n[[source]]\nposition = [0.2, 0.1]\ndirection = [0, -1]\n"
                       "signal = { kind = \"ricker\" }\n",
               15, {"missing 'frequency'"});

  // With an [explicit] table, or without [static], the explicit solver needs every signal.
  expect_error(plate + "[static]\n[explicit]\nduration = 1e-5\n[[source]]\nposition = [0.2, 0.1]\n"
                       "direction = [0, -1]\n",
               14, {"missing 'signal'"});
  expect_error(plate + "[[traction]]\nsurface = \"xmax\"\npressure = 1\n", 11, {"missing 'signal'"});
  expect_error(plate + "[[prescribed_displacement]]\nnode_set = \"xmin\"\ncomponents = [\"x\"]\n", 11,
               {"missing 'signal'"});
}

void fails_with(const Model& model, const std::string& piece) {
  try {
    model.validate();
    ADD_FAILURE() << "no error; expected '" << piece << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(piece), std::string::npos) << e.what();
  }
}

TEST_F(ModelFileStatic, ValidateChecksStaticSettingsAndBodyForces) {
  const Model good = parse(box + "[static]\n[[body_force]]\nacceleration = [0, 0, -9.81]\n");
  EXPECT_NO_THROW(good.validate());
  Model model = good;
  model.static_settings->tolerance = 0.0;
  fails_with(model, "static tolerance is 0");
  model = good;
  model.static_settings->max_iterations = -3;
  fails_with(model, "static max_iterations is -3");
  model = good;
  model.body_forces[0].elements.push_back(7);
  fails_with(model, "m.toml:16: body force refers to element index 7");
  model = good;
  model.body_forces[0].elements = {1, 0};
  fails_with(model, "out of order");
  model = good;
  model.body_forces[0].elements.clear();
  fails_with(model, "body force has no element");
  model = good;
  model.body_forces[0].acceleration[1] = std::nan("");
  fails_with(model, "acceleration is not finite");
  const Model flat = parse(plate + "[[body_force]]\nforce_per_volume = [0, -1]\n");
  model = flat;
  model.body_forces[0].force_per_volume[2] = 1.0;
  fails_with(model, "force per volume has a z component in a 2D model");
}

// The ```toml blocks of docs/model-file.md with a [static] table.
TEST_F(ModelFileStatic, DocumentedStaticExamples) {
  int found = 0;
  for (const std::string& block : test::fenced_blocks("docs/model-file.md", "toml")) {
    if (block.find("[static]") == std::string::npos) continue;
    ++found;
    SCOPED_TRACE(block);
    const Model model = io::read_model_buffer(block, "docs/model-file.md", "");
    ASSERT_TRUE(model.static_settings.has_value());
    EXPECT_FALSE(model.body_forces.empty());
    for (const BodyForce& force : model.body_forces) EXPECT_FALSE(force.elements.empty());
  }
  EXPECT_GE(found, 1);
  EXPECT_TRUE(log::take_warnings().empty());
}

}  // namespace
}  // namespace tremor
