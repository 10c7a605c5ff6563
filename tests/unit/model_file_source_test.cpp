// [explicit], [[source]], [[prescribed_displacement]] and [[receiver]] in the model file, their
// errors, nearest_node and the checks Model::validate makes of them.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/source.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// A 0.2 x 0.1 m rectangle of 4 x 2 quad4 cells (nodes 0.05 m apart) and one material: lines 1-10.
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
// The same as a 3D box, 2 x 2 x 2 cells of 1 m: lines 1-10.
const std::string box =
    "[mesh]\n"
    "generator = \"box\"\n"
    "element = \"hex8\"\n"
    "size = [2, 2, 2]\n"
    "divisions = [2, 2, 2]\n"
    "[[material]]\n"
    "name = \"steel\"\n"
    "density = 7850\n"
    "youngs_modulus = 210e9\n"
    "poisson_ratio = 0.3\n";
const std::string burst = "signal = { kind = \"tone_burst\", frequency = 1e5, cycles = 3 }\n";

class ModelFileSource : public ::testing::Test {
 protected:
  const log::Quiet quiet_;  // stderr silenced, earlier warnings set aside
};

Model parse(const std::string& text, const std::string& base_dir = "") {
  return io::read_model_buffer(text, "m.toml", base_dir);
}

std::string error_of(const std::string& text, const std::string& base_dir = "") {
  try {
    parse(text, base_dir);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// The message must start "m.toml:LINE: " and contain every piece.
void expect_error(const std::string& text, long line, const std::vector<std::string>& pieces,
                  const std::string& base_dir = "") {
  const std::string message = error_of(text, base_dir);
  const std::string prefix = str("m.toml:", line, ": ");
  EXPECT_EQ(message.substr(0, prefix.size()), prefix) << message;
  for (const auto& piece : pieces)
    EXPECT_NE(message.find(piece), std::string::npos) << "'" << piece << "' not in: " << message;
}

TEST_F(ModelFileSource, ExplicitSettings) {
  const Model defaults = parse(plate + "[explicit]\nduration = 1e-4\n");
  ASSERT_TRUE(defaults.explicit_settings);
  const ExplicitSettings& d = *defaults.explicit_settings;
  EXPECT_DOUBLE_EQ(d.duration, 1e-4);
  EXPECT_EQ(d.time_step, 0.0);
  EXPECT_DOUBLE_EQ(d.safety_factor, 0.9);
  EXPECT_EQ(d.precision, "double");
  EXPECT_EQ(d.backend, "auto");
  EXPECT_EQ(d.operator_kind, "auto");
  EXPECT_FALSE(d.allow_unstable);
  EXPECT_EQ(d.origin, "m.toml:11");
  EXPECT_FALSE(parse(plate).explicit_settings.has_value());

  const Model all = parse(plate +
                          "[explicit]\nduration = 2e-5\ntime_step = 1e-8\nsafety_factor = 1\nprecision = \"float\"\n"
                          "backend = \"openmp\"\noperator = \"matrix_free\"\nallow_unstable = true\n");
  const ExplicitSettings& a = *all.explicit_settings;
  EXPECT_DOUBLE_EQ(a.time_step, 1e-8);
  EXPECT_DOUBLE_EQ(a.safety_factor, 1.0);
  EXPECT_EQ(a.precision, "float");
  EXPECT_EQ(a.backend, "openmp");
  EXPECT_EQ(a.operator_kind, "matrix_free");
  EXPECT_TRUE(a.allow_unstable);
  EXPECT_TRUE(log::take_warnings().empty());
}

TEST_F(ModelFileSource, ExplicitErrors) {
  const std::string e = plate + "[explicit]\n";  // keys from line 12
  expect_error(e + "time_step = 1e-8\n", 11, {"[explicit]: missing 'duration' (simulated time, s)"});
  expect_error(e + "duration = 0\n", 12, {"[explicit]: 'duration' is 0; expected a positive number"});
  expect_error(e + "duration = \"1 ms\"\n", 12, {"'duration' must be a number, got a string"});
  expect_error(e + "duration = 1e-5\ntime_step = -1e-9\n", 13, {"'time_step' is -1e-09; expected a non-negative"});
  expect_error(e + "duration = 1e-5\ntime_step = 1e-4\n", 13, {"'time_step' 0.0001 exceeds 'duration' 1e-05"});
  expect_error(e + "duration = 1e-5\nsafety_factor = 1.5\n", 13, {"'safety_factor' is 1.5; expected a number in (0, 1]"});
  expect_error(e + "duration = 1e-5\nsafety_factor = 0\n", 13, {"'safety_factor' is 0"});
  expect_error(e + "duration = 1e-5\nprecision = \"single\"\n", 13,
               {"unknown precision 'single'", "expected \"double\" or \"float\""});
  expect_error(e + "duration = 1e-5\nbackend = \"cud\"\n", 13,
               {"unknown backend 'cud' (did you mean 'cuda'?)", "\"auto\", \"serial\", \"openmp\" or \"cuda\""});
  expect_error(e + "duration = 1e-5\noperator = 3\n", 13, {"'operator' must be a string"});
  // The operator's name is kept with its line; the run's pre-flight parses it against the operator
  // registry (a layer above the reader) and names that line.
  const Model misspelt = parse(e + "duration = 1e-5\noperator = \"matrixfree\"\n");
  EXPECT_EQ(misspelt.explicit_settings->operator_origin, "m.toml:13");
  try {
    (void)explicit_fe::preflight(misspelt);
    ADD_FAILURE() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("m.toml:13: unknown stiffness operator 'matrixfree' (did you mean "
                                             "'matrix_free'?)"),
              std::string::npos)
        << error.what();
  }
  expect_error(e + "duration = 1e-5\nallow_unstable = 1\n", 13, {"'allow_unstable' must be true or false"});
  expect_error(e + "duration = 1e-5\ntimestep = 1e-9\n", 13, {"unknown key 'timestep'; did you mean 'time_step'?"});
  expect_error(plate + "[[explicit]]\nduration = 1\n", 11, {"'explicit' must be a table ([explicit])"});
  expect_error(e + "duration = 1e-5\nblocks = \"\"\n", 13, {"'blocks' is empty"});
  expect_error(e + "duration = 1e-5\nblocks = \"m.blocks\"\n", 13,
               {"block file 'm.blocks' cannot be read: this model was given in memory"});
  expect_error(e + "duration = 1e-5\nblocks = \"none.blocks\"\n", 13,
               {"block file 'none.blocks' not found (looked for ", "tremor partition MODEL -o FILE"}, "/nonexistent");
}

TEST_F(ModelFileSource, BlockFileResolvedAgainstTheModelsFolder) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "tremor_model_blocks";
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "m.blocks") << "read when a run builds its operator";
  const Model model = parse(plate + "[explicit]\nduration = 1e-5\nblocks = \"m.blocks\"\n", folder.string());
  EXPECT_EQ(model.explicit_settings->blocks, (folder / "m.blocks").string());
  EXPECT_TRUE(parse(plate + "[explicit]\nduration = 1e-5\n").explicit_settings->blocks.empty());
  std::filesystem::remove_all(folder);
}

TEST_F(ModelFileSource, PointSources) {
  const Model model = parse(plate +
                            "[[source]]\n"                    // 11
                            "name = \"left\"\n"               // 12
                            "node_set = \"xmin\"\n"           // 13
                            "direction = [3, 4]\n"            // 14
                            "amplitude = 2.5\n"               // 15
                            "delay = 1e-6\n" +                // 16
                            burst +                           // 17
                            "[[source]]\n"                    // 18
                            "position = [0.11, 0.04]\n"       // 19
                            "direction = [0, -1]\n"           // 20
                            "[source.signal]\n"               // 21
                            "kind = \"ricker\"\n"             // 22
                            "frequency = 2e5\n");
  ASSERT_EQ(model.point_sources.size(), 2u);
  const PointSource& left = model.point_sources[0];
  EXPECT_EQ(left.node_set, "xmin");
  EXPECT_EQ(left.nodes, model.mesh.node_sets.at("xmin"));
  EXPECT_FALSE(left.position);
  EXPECT_DOUBLE_EQ(left.direction[0], 0.6);
  EXPECT_DOUBLE_EQ(left.direction[1], 0.8);
  EXPECT_EQ(left.direction[2], 0.0);
  EXPECT_DOUBLE_EQ(left.amplitude, 2.5);
  EXPECT_DOUBLE_EQ(left.delay, 1e-6);
  EXPECT_EQ(left.signal.kind, SignalKind::ToneBurst);
  EXPECT_DOUBLE_EQ(left.signal.frequency, 1e5);
  EXPECT_DOUBLE_EQ(left.signal.cycles, 3.0);
  EXPECT_EQ(left.origin, "m.toml:11");

  // At (0.11, 0.04), placed as the solvers set up (fem::placed_sources): no node of its own.
  const PointSource& point = model.point_sources[1];
  ASSERT_TRUE(point.position);
  EXPECT_DOUBLE_EQ((*point.position)[0], 0.11);
  EXPECT_TRUE(point.nodes.empty());
  EXPECT_TRUE(point.node_set.empty());
  EXPECT_EQ(left.name, "left");
  EXPECT_DOUBLE_EQ(point.amplitude, 1.0);
  EXPECT_EQ(point.delay, 0.0);
  EXPECT_EQ(point.signal.kind, SignalKind::Ricker);
  EXPECT_DOUBLE_EQ(point.signal.centre, 1.5 / 2e5);
}

TEST_F(ModelFileSource, SignalKinds) {
  const auto signal_of = [](const std::string& table) {
    return parse(box + "[[source]]\nnode_set = \"zmax\"\ndirection = [0, 0, 1]\nsignal = " + table + "\n")
        .point_sources.at(0)
        .signal;
  };
  const Signal g = signal_of("{ kind = \"gaussian\", sharpness = 1000, centre = 0.25 }");
  EXPECT_EQ(g.kind, SignalKind::Gaussian);
  EXPECT_NEAR(g.value(0.35), std::exp(-10.0), 1e-18);  // 0.35 - 0.25 carries rounding
  const Signal g0 = signal_of("{ kind = \"gaussian\", sharpness = 1e10 }");
  EXPECT_NEAR(g0.value(0.0), 1e-6, 1e-12);
  const Signal r = signal_of("{ kind = \"ricker\", frequency = 1e4, centre = 2e-4 }");
  EXPECT_DOUBLE_EQ(r.centre, 2e-4);
  const Signal t = signal_of("{ kind = \"tabulated\", points = [[0, 0], [1e-6, 1], [3e-6, 0]] }");
  EXPECT_EQ(t.kind, SignalKind::Tabulated);
  EXPECT_DOUBLE_EQ(t.value(2e-6), 0.5);
  EXPECT_DOUBLE_EQ(t.duration(), 3e-6);
}

TEST_F(ModelFileSource, TabulatedSignalFromCsvBesideTheModel) {
  const Model model = parse(plate + "[[source]]\nnode_set = \"xmin\"\ndirection = [1, 0]\n"
                                    "signal = { kind = \"tabulated\", file = \"burst.csv\" }\n",
                            test::data_path("model"));
  const Signal& s = model.point_sources.at(0).signal;
  EXPECT_EQ(s.kind, SignalKind::Tabulated);
  EXPECT_EQ(s.table.size(), 76u);
  // The file samples a 3-cycle 500 kHz Hann tone burst, 25 points a cycle, to 9 decimals.
  const Signal exact = Signal::tone_burst(5e5, 3);
  for (std::size_t k = 0; k < s.table.size(); ++k) EXPECT_NEAR(s.table[k].second, exact.value(s.table[k].first), 1e-9);
  EXPECT_DOUBLE_EQ(s.duration(), 6e-6);
  EXPECT_NEAR(s.highest_frequency(), 0.5 * 25 * 5e5, 1e-3);

  // Errors inside the table name the table's file and line.
  const std::string dir = test::temporary_directory("signal_csv");
  std::ofstream(dir + "/bad.csv") << "time,value\n0,0\n2e-6,1\n1e-6,0\n";
  const std::string message =
      error_of(plate + "[[source]]\nnode_set = \"xmin\"\ndirection = [1, 0]\n"
                       "signal = { kind = \"tabulated\", file = \"bad.csv\" }\n",
               dir);
  EXPECT_EQ(message.rfind(dir + "/bad.csv:4: time 1e-06 does not increase", 0), 0u) << message;
  std::filesystem::remove_all(dir);
}

TEST_F(ModelFileSource, SourceErrors) {
  const std::string s = plate + "[[source]]\n";  // keys from line 12
  const std::string ok = "direction = [1, 0]\n" + burst;
  expect_error(s + ok, 11, {"[[source]] #1: a source takes either 'node_set'", "or 'position' (a point"});
  expect_error(s + "node_set = \"xmin\"\nposition = [0, 0]\n" + ok, 11, {"not both"});
  expect_error(s + "node_set = \"xmn\"\n" + ok, 12,
               {"[[source]] #1: no node set named 'xmn' (did you mean 'xmin'?); the mesh has 'xmax', 'xmin'"});
  expect_error(s + "name = \"T1\"\nnode_set = \"xmin\"\ndirection = [0, 0]\n" + burst, 14,
               {"[[source]] #1 'T1': 'direction' is the zero vector"});
  expect_error(s + "node_set = \"xmin\"\ndirection = [0, 0, 1]\n" + burst, 13,
               {"'direction' must be an array of 2 numbers, got an array of 3"});
  expect_error(s + "node_set = \"xmin\"\n" + burst, 11, {"missing 'direction' (2 components of the direction"});
  expect_error(s + "position = [0.3, 0.05]\n" + ok, 12,
               {"'position' lies outside the mesh, which spans [0, 0.2] x [0, 0.1]"});
  expect_error(s + "position = [0.1]\n" + ok, 12, {"'position' must be an array of 2 coordinates"});
  expect_error(s + "node_set = \"xmin\"\ndirection = [1, 0]\ndelay = -1e-6\n" + burst, 14,
               {"'delay' is -1e-06; expected a non-negative number"});
  expect_error(s + "node_set = \"xmin\"\ndirection = [1, 0]\namplitude = \"big\"\n" + burst, 14,
               {"'amplitude' must be a number, got a string"});
  expect_error(s + "node_set = \"xmin\"\ndirection = [1, 0]\nsignl = 1\n", 14,
               {"unknown key 'signl'; did you mean 'signal'?"});
  expect_error(plate + "[source]\nnode_set = \"xmin\"\n", 11, {"'source' must be an array of tables, one [[source]]"});
}

TEST_F(ModelFileSource, SignalErrors) {
  const std::string s = plate + "[[source]]\nname = \"T\"\nnode_set = \"xmin\"\ndirection = [1, 0]\n";  // signal: 15
  expect_error(s, 11, {"[[source]] #1 'T': missing 'signal' (a table such as { kind = \"tone_burst\""});
  expect_error(s + "signal = \"ricker\"\n", 15, {"'signal' must be a table", "got a string"});
  expect_error(s + "signal = { frequency = 1e5 }\n", 15,
               {"[[source]] #1 'T': signal: missing 'kind' (\"tone_burst\", \"gaussian\", \"ricker\" or \"tabulated\")"});
  expect_error(s + "signal = { kind = \"riker\", frequency = 1e5 }\n", 15,
               {"unknown signal kind 'riker' (did you mean 'ricker'?)"});
  expect_error(s + "signal = { kind = \"tone_burst\", frequency = 1e5 }\n", 15,
               {"[[source]] #1 'T': tone_burst signal: missing 'cycles' (the number of cycles)"});
  expect_error(s + "signal = { kind = \"tone_burst\", frequency = -1e5, cycles = 3 }\n", 15,
               {"tone_burst signal: 'frequency' is -100000; expected a positive number (Hz)"});
  expect_error(s + "signal = { kind = \"gaussian\", frequency = 1e5 }\n", 15,
               {"gaussian signal: unknown key 'frequency'; expected one of: kind, sharpness, centre"});
  expect_error(s + "signal = { kind = \"ricker\", frequency = 1e5, centre = \"0\" }\n", 15,
               {"ricker signal: 'centre' must be a number, got a string"});
  expect_error(s + "[source.signal]\nkind = \"ricker\"\nfrequency = 0\n", 17, {"ricker signal: 'frequency' is 0"});
  // Tabulated.
  expect_error(s + "signal = { kind = \"tabulated\" }\n", 15, {"either 'file' (a CSV of time,value) or 'points'"});
  expect_error(s + "signal = { kind = \"tabulated\", points = [[0, 0], [0, 1]] }\n", 15,
               {"'points'[1] has time 0, not after the previous 0; times must increase strictly"});
  expect_error(s + "signal = { kind = \"tabulated\", points = [[0, 0, 1]] }\n", 15,
               {"'points'[0] must be a pair [time, value], got an array of 3"});
  expect_error(s + "signal = { kind = \"tabulated\", points = [] }\n", 15, {"'points' must be an array of [time, value]"});
  expect_error(s + "signal = { kind = \"tabulated\", file = \"burst.csv\" }\n", 15,
               {"signal file 'burst.csv' cannot be read: this model was given in memory"});
  expect_error(s + "signal = { kind = \"tabulated\", file = \"nothere.csv\" }\n", 15,
               {"signal file 'nothere.csv' not found (looked for "}, test::data_path("model"));
}

TEST_F(ModelFileSource, PrescribedDisplacements) {
  const Model model = parse(box +
                            "[[prescribed_displacement]]\nnode_set = \"zmin\"\ncomponents = [\"z\", \"x\"]\n"
                            "amplitude = 1e-9\ndelay = 2e-6\n" + burst +
                            "[[prescribed_displacement]]\nname = \"shear\"\nnode_set = \"zmax\"\n"
                            "direction = [0, 2, 0]\n" + burst);
  ASSERT_EQ(model.prescribed.size(), 2u);
  const PrescribedDisplacement& a = model.prescribed[0];
  EXPECT_EQ(a.node_set, "zmin");
  EXPECT_EQ(a.nodes, model.mesh.node_sets.at("zmin"));
  EXPECT_EQ(a.components, (std::vector<int>{0, 2}));
  EXPECT_EQ(a.factor, (std::array<double, 3>{1.0, 0.0, 1.0}));
  EXPECT_DOUBLE_EQ(a.amplitude, 1e-9);
  EXPECT_DOUBLE_EQ(a.delay, 2e-6);
  const PrescribedDisplacement& b = model.prescribed[1];
  EXPECT_EQ(b.components, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(b.factor, (std::array<double, 3>{0.0, 1.0, 0.0}));
  EXPECT_EQ(b.origin, "m.toml:17");

  const std::string p = plate + "[[prescribed_displacement]]\n";  // keys from line 12
  expect_error(p + "components = [\"x\"]\n" + burst, 11, {"[[prescribed_displacement]] #1: missing 'node_set'"});
  expect_error(p + "node_set = \"xmin\"\n" + burst, 11, {"give either 'direction'", "or 'components'"});
  expect_error(p + "node_set = \"xmin\"\ndirection = [1, 0]\ncomponents = [\"x\"]\n" + burst, 11, {"not both"});
  expect_error(p + "node_set = \"xmin\"\ncomponents = [\"z\"]\n" + burst, 13,
               {"'components'[0] is 'z'; expected \"x\" or \"y\" in a 2D model"});
  expect_error(p + "node_set = \"xmin\"\ncomponents = [\"x\", \"x\"]\n" + burst, 13, {"'components' lists 'x' twice"});
  expect_error(p + "node_set = \"xmin\"\ncomponents = [1]\n" + burst, 13,
               {"'components'[0] must be \"x\", \"y\", got an integer"});
  expect_error(p + "node_set = \"xmin\"\ncomponents = []\n" + burst, 13, {"'components' must be an array of axis names"});
  expect_error(p + "node_set = \"xmin\"\ncomponents = [\"y\"]\n", 11, {"missing 'signal'"});
}

TEST_F(ModelFileSource, Receivers) {
  const Model model = parse(plate +
                            "[[receiver]]\nname = \"edge\"\nnode_set = \"xmax\"\n"                               // 11-13
                            "[[receiver]]\nname = \"points\"\npositions = [[0.01, 0.02], [0.2, 0.1]]\n"           // 14-16
                            "record = [\"velocity\", \"acceleration\", \"displacement\"]\nevery = 4\n");
  ASSERT_EQ(model.receivers.size(), 2u);
  const Receiver& edge = model.receivers[0];
  EXPECT_EQ(edge.name, "edge");
  EXPECT_EQ(edge.node_set, "xmax");
  EXPECT_EQ(edge.nodes, model.mesh.node_sets.at("xmax"));
  EXPECT_TRUE(edge.positions.empty());
  EXPECT_TRUE(edge.displacement);
  EXPECT_FALSE(edge.velocity);
  EXPECT_FALSE(edge.acceleration);
  EXPECT_EQ(edge.every_n_steps, 1);
  const Receiver& points = model.receivers[1];
  EXPECT_TRUE(points.nodes.empty());
  ASSERT_EQ(points.positions.size(), 2u);
  EXPECT_EQ(points.positions[0], (std::array<double, 3>{0.01, 0.02, 0.0}));
  EXPECT_EQ(points.positions[1], (std::array<double, 3>{0.2, 0.1, 0.0}));  // on the corner: inside
  EXPECT_TRUE(points.displacement && points.velocity && points.acceleration);
  EXPECT_EQ(points.every_n_steps, 4);
  EXPECT_EQ(points.origin, "m.toml:14");
  const Model velocity_only = parse(plate + "[[receiver]]\nname = \"v\"\nnode_set = \"xmax\"\nrecord = [\"velocity\"]\n");
  EXPECT_FALSE(velocity_only.receivers[0].displacement);
  EXPECT_TRUE(velocity_only.receivers[0].velocity);
}

TEST_F(ModelFileSource, ReceiverErrors) {
  const std::string r = plate + "[[receiver]]\n";  // keys from line 12
  expect_error(r + "node_set = \"xmax\"\n", 11, {"[[receiver]] #1: missing 'name' (the receiver's name"});
  expect_error(r + "name = \"\"\nnode_set = \"xmax\"\n", 12, {"the receiver's name is empty"});
  // A receiver's name is its histories' group of the result file: refused at its line, not by
  // HDF5 once the run has begun.
  expect_error(r + "name = \".\"\nnode_set = \"xmax\"\n", 12, {"the receiver's name \".\" is not a group's name"});
  expect_error(r + "name = \"a/b\"\nnode_set = \"xmax\"\n", 12, {"\"a/b\" holds '/'", "/histories/<name>"});
  expect_error(r + "name = \"a\\u0000b\"\nnode_set = \"xmax\"\n", 12, {"\"a\\x00b\" holds a control character"});
  expect_error(r + "name = \"a\"\n", 11, {"[[receiver]] #1 'a': a receiver takes one of 'node_set'", "'grid'"});
  expect_error(r + "name = \"a\"\nnode_set = \"xmax\"\npositions = [[0, 0]]\n", 11, {"takes one of"});
  expect_error(r + "name = \"a\"\npositions = [[0, 0], [0.05, -0.01]]\n", 13,
               {"[[receiver]] #1 'a': 'positions'[1] lies outside the mesh, which spans [0, 0.2] x [0, 0.1]"});
  expect_error(r + "name = \"a\"\npositions = [0.05, 0.01]\n", 13, {"'positions'[0] must be an array of 2 coordinates"});
  expect_error(r + "name = \"a\"\npositions = []\n", 13, {"'positions' must be an array of points"});
  expect_error(r + "name = \"a\"\nnode_set = \"xmax\"\nrecord = [\"velocty\"]\n", 14,
               {"cannot record 'velocty' (did you mean 'velocity'?)"});
  expect_error(r + "name = \"a\"\nnode_set = \"xmax\"\nrecord = [\"velocity\", \"velocity\"]\n", 14,
               {"'record' lists 'velocity' twice"});
  expect_error(r + "name = \"a\"\nnode_set = \"xmax\"\nrecord = []\n", 14, {"'record' must be an array such as"});
  expect_error(r + "name = \"a\"\nnode_set = \"xmax\"\nevery = 0\n", 14, {"'every' is 0; expected a number of steps"});
  expect_error(r + "name = \"a\"\nnode_set = \"xmax\"\nevery = 2.5\n", 14,
               {"'every' must be an integer, got a floating-point number"});
  expect_error(r + "name = \"a\"\nnode_set = \"xmax\"\nevry = 2\n", 14, {"unknown key 'evry'; did you mean 'every'?"});
  expect_error(r + "name = \"a\"\nnode_set = \"xmax\"\n[[receiver]]\nname = \"a\"\nnode_set = \"xmin\"\n", 15,
               {"[[receiver]] #2 'a': receiver 'a' is already defined at line 12"});
}

TEST_F(ModelFileSource, Output) {
  EXPECT_FALSE(parse(plate).output.has_value());
  const Model defaults = parse(plate + "[output]\nflush_seconds = 2\n");
  ASSERT_TRUE(defaults.output.has_value());
  EXPECT_FALSE(defaults.output->snapshots());
  EXPECT_EQ(defaults.output->flush_seconds, 2.0);
  EXPECT_EQ(defaults.output->origin, "m.toml:11");

  const Model every = parse(plate + "[output]\nsnapshot_every = 25\nsnapshot_fields = [\"magnitude\", \"velocity\"]\n"
                                    "snapshot_node_set = \"xmax\"\n");
  const OutputSettings& output = *every.output;
  EXPECT_EQ(output.snapshot_every, 25);
  EXPECT_EQ(output.snapshot_steps(1e-7), 25);
  EXPECT_TRUE(output.magnitude);
  EXPECT_TRUE(output.velocity);
  EXPECT_EQ(output.flush_seconds, 5.0);
  EXPECT_EQ(output.snapshot_node_set, "xmax");
  // The right edge of the 5 x 3 node grid: indices 4, 9, 14, ascending.
  EXPECT_EQ(output.snapshot_nodes, (std::vector<Index>{4, 9, 14}));

  // An interval becomes a whole number of steps: 1 us / 0.3 us rounds to 3; never fewer than 1.
  const Model interval = parse(plate + "[output]\nsnapshot_interval = 1e-6\n");
  EXPECT_EQ(interval.output->snapshot_steps(0.3e-6), 3);
  EXPECT_EQ(interval.output->snapshot_steps(5e-6), 1);
  EXPECT_FALSE(interval.output->magnitude);
  EXPECT_TRUE(interval.output->snapshot_nodes.empty());
}

TEST_F(ModelFileSource, OutputErrors) {
  const std::string o = plate + "[output]\n";  // keys from line 12
  expect_error(o + "snapshot_every = 0\n", 12, {"[output]: 'snapshot_every' is 0; expected a number of steps"});
  expect_error(o + "snapshot_every = 2.5\n", 12, {"'snapshot_every' must be an integer"});
  expect_error(o + "snapshot_every = 2\nsnapshot_interval = 1e-6\n", 13, {"not both"});
  expect_error(o + "snapshot_interval = -1\n", 12, {"'snapshot_interval' is -1; expected a non-negative number"});
  expect_error(o + "snapshot_interval = 0\n", 12, {"'snapshot_interval' is 0"});
  expect_error(o + "snapshot_fields = [\"velocity\"]\n", 12, {"'snapshot_fields' needs 'snapshot_every'"});
  expect_error(o + "snapshot_every = 2\nsnapshot_fields = [\"magnitud\"]\n", 13,
               {"no snapshot field 'magnitud' (did you mean 'magnitude'?)"});
  expect_error(o + "snapshot_every = 2\nsnapshot_fields = [\"velocity\", \"velocity\"]\n", 13,
               {"'snapshot_fields' lists 'velocity' twice"});
  expect_error(o + "snapshot_every = 2\nsnapshot_fields = []\n", 13, {"'snapshot_fields' must be an array such as"});
  expect_error(o + "snapshot_every = 2\nsnapshot_node_set = \"xmx\"\n", 13,
               {"no node set named 'xmx' (did you mean 'xmax'?)"});
  expect_error(o + "flush_seconds = 0\n", 12, {"'flush_seconds' is 0; expected a positive number"});
  expect_error(o + "snapshots = 1\n", 12, {"[output]: unknown key 'snapshots'"});
}

TEST_F(ModelFileSource, NearestNode) {
  // Nodes of a 4 x 2 grid of 0.05 m cells: index = 5 * row + column.
  const Mesh mesh = generate_rectangle({0.0, 0.0}, {0.2, 0.1}, {4, 2}, ElementType::Quad4);
  const double a[] = {0.0, 0.0}, b[] = {0.19, 0.09}, c[] = {0.074, 0.026}, far[] = {10.0, -3.0};
  EXPECT_EQ(nearest_node(mesh, a), 0);
  EXPECT_EQ(nearest_node(mesh, b), 14);
  EXPECT_EQ(nearest_node(mesh, c), 5 + 1);
  EXPECT_EQ(nearest_node(mesh, far), 4);
  // Equidistant from nodes 0 and 1: the lower index.
  const double tie[] = {0.025, 0.0};
  EXPECT_EQ(nearest_node(mesh, tie), 0);
  // Agrees with a brute-force search on a graded 3D mesh at scattered points.
  const Mesh cube = generate_box({0.0, 0.0, 0.0}, {1.0, 2.0, 3.0}, {3, 4, 5}, ElementType::Tet4, 1, {1.3, 1.0, 0.8});
  for (int k = 0; k < 50; ++k) {
    const double x[] = {std::fmod(0.37 * k, 1.0), std::fmod(0.71 * k, 2.0), std::fmod(1.13 * k, 3.0)};
    Index best = 0;
    double best_distance = 1e300;
    for (Index i = 0; i < cube.n_nodes(); ++i) {
      const auto y = cube.node(i);
      const double distance = std::hypot(y[0] - x[0], y[1] - x[1], y[2] - x[2]);
      if (distance < best_distance) {
        best = i;
        best_distance = distance;
      }
    }
    EXPECT_EQ(nearest_node(cube, x), best) << k;
  }
  EXPECT_EQ(nearest_node(Mesh(2), a), -1);
}

TEST_F(ModelFileSource, ValidateChecksProgrammaticModels) {
  Model model = parse(plate);
  model.source = "prog";
  const auto fails_with = [&](const std::string& piece) {
    try {
      model.validate();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(piece), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "no error; expected " << piece;
  };
  PointSource source;
  source.nodes = {0, 3};
  source.direction = {0.0, 1.0, 0.0};
  source.signal = Signal::tone_burst(1e5, 3);
  model.point_sources = {source};
  EXPECT_NO_THROW(model.validate());
  model.point_sources[0].nodes = {0, 15};
  fails_with("prog: point source refers to node index 15, outside the mesh's 15 nodes");
  model.point_sources[0] = source;
  model.point_sources[0].direction = {0.0, 0.0, 0.0};
  fails_with("point source direction is zero");
  model.point_sources[0] = source;
  model.point_sources[0].direction = {0.0, 0.0, 1.0};
  fails_with("z component in a 2D model");
  model.point_sources[0] = source;
  model.point_sources[0].delay = -1.0;
  model.point_sources[0].origin = "x.toml:3";
  fails_with("x.toml:3: point source has delay -1");
  model.point_sources[0] = source;
  model.point_sources[0].signal.cycles = 0.0;
  fails_with("point source signal: cycles is 0");
  model.point_sources.clear();

  PrescribedDisplacement p;
  p.nodes = {1};
  p.components = {2};
  p.signal = Signal::ricker(1e5);
  model.prescribed = {p};
  fails_with("prescribed displacement component 2 does not exist in a 2D model");
  model.prescribed.clear();

  Receiver r;
  r.name = "r";
  r.positions = {{0.1, 0.1, 0.0}};
  r.every_n_steps = 0;
  model.receivers = {r};
  fails_with("receiver 'r' records every 0 steps");
  model.receivers[0].every_n_steps = 1;
  model.receivers[0].displacement = false;
  fails_with("receiver 'r' records nothing");
  model.receivers[0].displacement = true;
  model.receivers.push_back(model.receivers[0]);
  fails_with("receiver 'r' is defined twice");
  model.receivers.clear();

  ExplicitSettings settings;
  settings.duration = 1e-5;
  model.explicit_settings = settings;
  EXPECT_NO_THROW(model.validate());
  model.explicit_settings->duration = 0.0;
  fails_with("explicit duration is 0");
  model.explicit_settings = settings;
  model.explicit_settings->safety_factor = 1.1;
  fails_with("explicit safety factor is 1.1");
  model.explicit_settings = settings;
  model.explicit_settings->operator_kind = "";
  fails_with("explicit operator is empty");
}


// The ```toml blocks of docs/model-file.md, in order.
std::vector<std::string> documented_models() { return test::fenced_blocks("docs/model-file.md", "toml"); }

TEST_F(ModelFileSource, DocumentedExamples) {
  const auto blocks = documented_models();
  ASSERT_GE(blocks.size(), 1u);
  // The complete example: two sources, two receivers, explicit settings.
  const Model model = io::read_model_buffer(blocks[0], "docs/model-file.md", "");
  ASSERT_TRUE(model.explicit_settings);
  EXPECT_DOUBLE_EQ(model.explicit_settings->duration, 20e-6);
  ASSERT_EQ(model.point_sources.size(), 2u);
  EXPECT_EQ(model.point_sources[0].nodes, model.mesh.node_sets.at("source"));
  EXPECT_EQ(model.point_sources[0].signal.kind, SignalKind::ToneBurst);
  EXPECT_DOUBLE_EQ(model.point_sources[0].signal.highest_frequency(), 2e6 * (1.0 + 3.0 / 5.0));
  ASSERT_TRUE(model.point_sources[1].position);  // placed between nodes as a run sets up
  EXPECT_EQ(*model.point_sources[1].position, (std::array<double, 3>{0.02, 0.02, 0.016}));
  EXPECT_TRUE(model.point_sources[1].nodes.empty());
  EXPECT_NEAR(model.point_sources[1].direction[0], std::sqrt(0.5), 1e-15);
  EXPECT_DOUBLE_EQ(model.point_sources[1].delay, 1e-6);
  ASSERT_EQ(model.receivers.size(), 2u);
  EXPECT_EQ(model.receivers[0].positions.size(), 2u);
  EXPECT_TRUE(model.receivers[0].velocity);
  EXPECT_EQ(model.receivers[0].every_n_steps, 2);
  EXPECT_EQ(model.receivers[1].node_set, "source");
  // The 2D example with a prescribed displacement read from tests/data/model/burst.csv.
  bool found = false;
  for (const auto& block : blocks) {
    // The [[traction]] and static examples hold prescribed displacements too; their own tests
    // are in model_file_traction_test.cpp and model_file_static_test.cpp.
    if (block.find("[[prescribed_displacement]]") == std::string::npos ||
        block.find("[[traction]]") != std::string::npos || block.find("[static]") != std::string::npos)
      continue;
    found = true;
    const Model two_d = io::read_model_buffer(block, "docs/model-file.md", test::data_path("model"));
    ASSERT_EQ(two_d.prescribed.size(), 1u);
    EXPECT_EQ(two_d.prescribed[0].components, std::vector<int>{0});
    EXPECT_EQ(two_d.prescribed[0].signal.kind, SignalKind::Tabulated);
    EXPECT_EQ(two_d.point_sources.at(0).signal.kind, SignalKind::Gaussian);
    EXPECT_EQ(two_d.explicit_settings->precision, "float");
    EXPECT_TRUE(two_d.receivers.at(0).velocity);
    EXPECT_FALSE(two_d.receivers.at(0).displacement);
  }
  EXPECT_TRUE(found) << "no documented example with a [[prescribed_displacement]]";
  EXPECT_TRUE(log::take_warnings().empty());
}

}  // namespace
}  // namespace tremor
