// Arrays ([[array]], model/array.hpp): N elements in a line on a flat surface, each a uniform
// pressure over its footprint's faces; one receiver of the footprints' mean displacements; with
// fmc, a shot per element. A full-matrix capture is reciprocal: A-scan(i, j) = A-scan(j, i).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "explicit_test_models.hpp"
#include "support/runs.hpp"
#include "support/support.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/receivers.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/partition/domain_file.hpp"
#include "tremor/partition/domains.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using test::error_of;
using test::expect_contains;

// A 2D steel block, 30 x 15 mm of 0.25 mm quad4 cells; the array on its top face, 8 elements of
// three faces each (0.75 mm wide at a 1 mm pitch, each centred on a face), centred at x = 15.125 mm.
const std::string block =
    "[mesh]\ngenerator = \"rectangle\"\nelement = \"quad4\"\nsize = [0.03, 0.015]\ndivisions = [120, 60]\n"
    "[[material]]\nname = \"steel\"\ndensity = 7850.0\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n"
    "[[section]]\nelement_set = \"all\"\nmaterial = \"steel\"\nformulation = \"plane_strain\"\nthickness = 1.0\n"
    "[explicit]\nduration = 3e-6\n";

std::string array(const std::string& extra = "", const std::string& width = "0.75e-3",
                  const std::string& centre = "[0.015125, 0.015]") {
  return "[[array]]\nname = \"probe\"\nelements = 8\npitch = 1e-3\nwidth = " + width + "\ncentre = " + centre +
         "\nsurface = \"ymax\"\namplitude = 1e6\nsignal = { kind = \"tone_burst\", frequency = 1e6, cycles = 3 }\n" +
         extra;
}

Model read(const std::string& text) { return io::read_model_buffer(text, "m.toml", ""); }

TEST(Arrays, BecomeTransducersLoadsAReceiverAndShots) {
  const Model model = read(block + array("fmc = true\n"));
  ASSERT_EQ(model.arrays.size(), 1u);
  const TransducerArray& a = model.arrays[0];
  EXPECT_EQ(a.direction, (std::array<double, 3>{1.0, 0.0, 0.0}));  // the surface's first axis
  EXPECT_EQ(a.normal, (std::array<double, 3>{0.0, -1.0, 0.0}));    // into the block
  EXPECT_NEAR(a.depth, 0.015, 1e-12);
  ASSERT_EQ(a.element_centres.size(), 8u);
  ASSERT_EQ(model.transducers.size(), 8u);
  ASSERT_EQ(model.surface_loads.size(), 8u);
  ASSERT_EQ(model.shots.size(), 8u);
  for (Index k = 0; k < 8; ++k) {
    const auto e = static_cast<std::size_t>(k);
    EXPECT_NEAR(a.element_centres[e][0], 0.015125 + (static_cast<double>(k) - 3.5) * 1e-3, 1e-15);
    EXPECT_EQ(a.footprints[e].size(), 3u);  // 0.75 mm of 0.25 mm faces
    EXPECT_NEAR(a.areas[e], 0.75e-3, 1e-15);
    EXPECT_EQ(model.transducers[e].name, "probe." + std::to_string(k));
    EXPECT_EQ(model.transducers[e].array, "probe");
    EXPECT_EQ(model.surface_loads[e].transducer, model.transducers[e].name);
    EXPECT_NEAR(*model.surface_loads[e].pressure, 1e6, 1e-6);  // the nominal force over the faces covered
    EXPECT_EQ(model.shots[e].transducers, std::vector<std::string>{model.transducers[e].name});
    EXPECT_EQ(model.shots[e].array, "probe");
    EXPECT_EQ(model.shots[e].transmitter, k);
  }
  // The footprints are disjoint, in order along x.
  for (std::size_t e = 1; e < 8; ++e) EXPECT_LT(a.footprints[e - 1].back(), a.footprints[e].front());
  ASSERT_EQ(model.receivers.size(), 1u);
  EXPECT_EQ(model.receivers[0].name, "probe");
  EXPECT_EQ(model.receivers[0].footprints, a.footprints);
  // Without fmc: no shots, every element fires at once; or a [[shot]] fires some of them, after
  // the capture's shots.
  EXPECT_TRUE(read(block + array()).shots.empty());
  const Model some = read(block + array("fmc = true\n") + "[[shot]]\nname = \"pair\"\ntransducers = [\"probe.3\", \"probe.4\"]\n");
  ASSERT_EQ(some.shots.size(), 9u);
  EXPECT_EQ(some.shots[8].name, "pair");
  EXPECT_TRUE(some.shots[8].array.empty());
  // Element names sort: zero-padded to N - 1's digits.
  TransducerArray wide;
  wide.name = "w";
  wide.n_elements = 64;
  EXPECT_EQ(wide.element_name(3), "w.03");
}

// The receiver's mean over three linear faces of 0.25 mm: the nodes weigh int N_a dA / A, ends
// half an inside node.
TEST(Arrays, ReceiverIsTheFootprintsMean) {
  const Model model = read(block + array());
  const std::vector<explicit_fe::History> histories = explicit_fe::make_histories(model, 1e-8);
  ASSERT_EQ(histories.size(), 1u);
  const explicit_fe::History& h = histories[0];
  ASSERT_EQ(h.n_points(), 8);
  for (const explicit_fe::Location& location : h.locations) {
    ASSERT_EQ(location.nodes.size(), 4u);
    const std::vector<double> want{1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
    for (std::size_t a = 0; a < 4; ++a) EXPECT_NEAR(location.weights[a], want[a], 1e-14) << a;
  }
  // Its nodes are the footprint's: on the top face, 0.75 mm across about the element's centre.
  for (std::size_t k = 0; k < 8; ++k) {
    double lo = 1.0, hi = -1.0;
    for (const Index node : h.locations[k].nodes) {
      EXPECT_NEAR(model.mesh.node(node)[1], 0.015, 1e-15);
      lo = std::min(lo, model.mesh.node(node)[0]);
      hi = std::max(hi, model.mesh.node(node)[0]);
    }
    EXPECT_NEAR(hi - lo, 0.75e-3, 1e-12);
    EXPECT_NEAR(0.5 * (hi + lo), h.positions[k][0], 1e-12);
  }
}

TEST(Arrays, RefuseWhatCannotStandOnTheSurface) {
  const auto fails = [&](const std::string& text) { return error_of([&] { (void)read(block + text); }); };
  expect_contains(fails(array("", "1.5e-3")), {"m.toml:", "'width' 0.0015 m is above the pitch 0.001 m"});
  expect_contains(fails(array("", "0.75e-3", "[0.015, 0.014]")),
                  {"m.toml:", "array 'probe'", "is not on surface 'ymax'"});
  expect_contains(fails(array("", "0.75e-3", "[0.002, 0.015]")),
                  {"array 'probe': its element 0 centred at (-0.0015, 0.015) runs off surface 'ymax'"});
  // Elements centred on nodes: the faces at their edges count whole, 4 of 0.25 mm for 0.75 mm.
  {
    const log::Quiet quiet;
    (void)read(block + array("", "0.75e-3", "[0.015, 0.015]"));
    const std::vector<std::string> warnings = log::take_warnings();
    ASSERT_EQ(warnings.size(), 1u);
    expect_contains(warnings[0], {"footprints are resolved by few faces (133.3"});
  }
  // 0.1 mm wide about a node, between two face centres: no face there.
  expect_contains(fails(array("", "0.1e-3", "[0.015, 0.015]")),
                  {"no face of surface 'ymax' has its centre within element 0", "refine the mesh"});
  expect_contains(fails(array("direction = [0.0, 1.0]\n")), {"does not lie in surface 'ymax'"});
  expect_contains(fails(array("length = 1e-3\n")), {"'length' is a 3D array's elevation"});
  expect_contains(fails(array("fmc = 1\n")), {"fmc"});
  expect_contains(fails("[[array]]\nname = \"probe\"\nelements = 8\npitch = 1e-3\nwidth = 0.75e-3\n"
                        "centre = [0.015125, 0.015]\nsurface = \"ymax\"\namplitude = 0.0\n"),
                  {"m.toml:25", "'amplitude' is 0", "every A-scan be zero"});
  expect_contains(fails("[[array]]\nname = \"probe\"\nelements = 0\nwidth = 1e-3\n"), {"'elements' makes 0; expected 1 to 4096 elements"});
  expect_contains(fails("[[receiver]]\nname = \"probe\"\npositions = [[0.01, 0.01]]\n" + array()),
                  {"receiver 'probe' exists already"});
  expect_contains(fails(array() + array()), {"receiver 'probe' exists already"});
  // 3D: an elevation is needed.
  const std::string cube =
      "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\nsize = [0.01, 0.01, 0.005]\ndivisions = [20, 20, 10]\n"
      "[[material]]\nname = \"steel\"\ndensity = 7850.0\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n"
      "[explicit]\nduration = 1e-6\n";
  const std::string three_d = "[[array]]\nname = \"probe\"\nelements = 4\npitch = 1e-3\nwidth = 1e-3\n"
                              "centre = [0.005, 0.005, 0.005]\nsurface = \"zmax\"\n"
                              "signal = { kind = \"ricker\", frequency = 1e6 }\n";
  expect_contains(error_of([&] { (void)read(cube + three_d); }), {"missing 'length'"});
  expect_contains(error_of([&] {
                    (void)read(cube + "[[transducer]]\nname = \"probe.1\"\nposition = [0.005, 0.005]\n"
                                      "signal = { kind = \"ricker\", frequency = 1e6 }\n" +
                               three_d + "length = 2e-3\n");
                  }),
                  {"array 'probe': its element 1 is transducer 'probe.1', a name m.toml:"});
  const Model model = read(cube + three_d + "length = 2e-3\n");
  const TransducerArray& a = model.arrays[0];
  EXPECT_EQ(a.normal, (std::array<double, 3>{0.0, 0.0, -1.0}));
  EXPECT_EQ(a.elevation, (std::array<double, 3>{0.0, -1.0, 0.0}));  // normal x direction
  for (std::size_t e = 0; e < 4; ++e) {
    EXPECT_EQ(a.footprints[e].size(), 8u);  // 2 x 4 faces of 0.5 mm
    EXPECT_NEAR(a.areas[e], 2e-6, 1e-18);
  }
}

// An array that starts after the run's end is warned of once, at its line, naming how many of its
// elements act nothing.
TEST(Arrays, StartingAfterTheEndIsWarnedOfOnceForEveryElement) {
  const Model model = read(block + array("delay = 1.0\n"));
  const log::Quiet quiet;
  (void)explicit_fe::preflight(model);
  const std::vector<std::string> warnings = log::take_warnings();
  const auto idle = [](const std::string& w) { return w.find("nothing in this run") != std::string::npos; };
  const auto late = std::count_if(warnings.begin(), warnings.end(), idle);
  ASSERT_EQ(late, 1) << (warnings.empty() ? "" : warnings.front());
  for (const std::string& w : warnings)
    if (idle(w))
      expect_contains(w, {"m.toml:", "8 transducers ('probe.0' to 'probe.7') start at 1 s (their delay)", "they act"});
}

// The full-matrix capture of `model`'s 8-element array on one thread: its largest value, its largest
// asymmetry |A-scan(i, j) - A-scan(j, i)|, and the largest difference of A-scan(0, 0) from A-scan(0,
// other), each A-scan the receiver's `component` of `quantity`.
struct Capture {
  double peak = 0.0, worst = 0.0, apart = 0.0;
};
Capture reciprocity_of(const Model& model, explicit_fe::Quantity quantity, int component, std::size_t other) {
  explicit_fe::RunOptions options;
  options.backend = "serial";
  const explicit_fe::ExplicitRun run = explicit_fe::run_explicit(model, options);
  EXPECT_TRUE(run.ok()) << run.message;
  const auto n = static_cast<std::size_t>(model.arrays.at(0).n_elements);
  EXPECT_EQ(run.shots.size(), n);
  if (run.shots.size() != n) return {};
  const auto scan = [&](std::size_t i, std::size_t j, std::size_t k) {
    return run.shots[i].at(0).value(k, static_cast<Index>(j), quantity, component);
  };
  const std::size_t samples = run.shots[0].at(0).n_samples();
  Capture out;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t k = 0; k < samples; ++k) {
        out.peak = std::max(out.peak, std::abs(scan(i, j, k)));
        out.worst = std::max(out.worst, std::abs(scan(i, j, k) - scan(j, i, k)));
      }
  for (std::size_t k = 0; k < samples; ++k) out.apart = std::max(out.apart, std::abs(scan(0, 0, k) - scan(0, other, k)));
  return out;
}

// A-scan(i, j), the mean normal displacement of element j's footprint when element i fires, equals
// A-scan(j, i): the discrete system is reciprocal (K and the lumped M symmetric, the load and the
// receiver the same weights), so only rounding separates them.
TEST(Arrays, FullMatrixCaptureIsReciprocal) {
  // The mean displacement along y (into the block: its sign does not matter here).
  const Capture capture =
      reciprocity_of(read(block + array("fmc = true\n")), explicit_fe::Quantity::Displacement, 1, 1);
  EXPECT_GT(capture.peak, 1e-12);  // it moves: 1 MPa over 0.75 mm of steel
  // A criterion of 1e-6 of the peak; rounding alone leaves about 1e-13.
  EXPECT_LT(capture.worst, 1e-6 * capture.peak);
  // And the scans differ across pairs (a test that can fail): a neighbour is not the element itself.
  EXPECT_GT(capture.apart, 0.1 * capture.peak);
}

// `model`'s capture on one domain and decomposed into 3 subdomains by the first corner x of each
// cell (`part_of(x)`, through a decomposition file named `name`): the first history's largest
// value over every shot, and the largest difference between the two runs.
struct SplitCapture {
  double peak = 0.0, worst = 0.0;
};
SplitCapture split_capture(const Model& model, const std::function<int(std::span<const double>)>& part_of,
                           const std::string& name) {
  explicit_fe::RunOptions options;
  options.backend = "serial";
  const explicit_fe::ExplicitRun one = explicit_fe::run_explicit(model, options);
  std::vector<int> element_domain;
  for (Index e = 0; e < model.mesh.n_elements(); ++e) {
    element_domain.push_back(part_of(model.mesh.node(model.mesh.blocks[0].nodes(e)[0])));  // its first corner
  }
  const std::filesystem::path file = std::filesystem::path(test::temporary_directory(name)) / "split.blocks";
  {
    std::ofstream out(file, std::ios::binary);
    out << partition::encode_domain_file(model.mesh, partition::decomposition_of(model.mesh, element_domain, 3));
  }
  options.decomposition = file.string();
  const explicit_fe::ExplicitRun three = explicit_fe::run_explicit(model, options);
  SplitCapture out;
  EXPECT_TRUE(one.ok() && three.ok()) << three.message;
  EXPECT_EQ(three.shots.size(), one.shots.size());
  for (std::size_t i = 0; i < std::min(one.shots.size(), three.shots.size()); ++i) {
    const std::vector<double>& a = one.shots[i].at(0).values;
    const std::vector<double>& b = three.shots[i].at(0).values;
    EXPECT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
      out.peak = std::max(out.peak, std::abs(a[k]));
      out.worst = std::max(out.worst, std::abs(a[k] - b[k]));
    }
  }
  return out;
}

// Decomposed into 3 subdomains, the footprints that straddle them are split by node owner and
// their shares added: the capture equals one domain's to rounding (the sums in another order).
// Two subdomains split at x = 15.5 mm, through element 4's footprint (15.25 to 16 mm), and a third
// below 5 mm holding none of the array.
TEST(Arrays, ADecomposedCaptureEqualsOneDomains) {
  const SplitCapture capture = split_capture(
      read(block + array("fmc = true\n")),
      [](std::span<const double> x) { return x[1] < 0.005 ? 2 : x[0] < 0.0155 ? 0 : 1; }, "array_split");
  EXPECT_GT(capture.peak, 1e-12);
  // The shared nodes' forces and the shares summed in another order: rounding, 1e-12 of the peak.
  EXPECT_LT(capture.worst, 1e-12 * capture.peak);
}

// 3D: elements = [along, across] stand in rows across the array (a matrix array), element k in row
// k / columns and column k % columns.
TEST(Arrays, AMatrixArrayStandsInRows) {
  const std::string cube =
      "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\nsize = [0.01, 0.01, 0.005]\ndivisions = [20, 20, 10]\n"
      "[[material]]\nname = \"steel\"\ndensity = 7850.0\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n"
      "[explicit]\nduration = 1e-6\n";
  const auto matrix = [&](const std::string& keys, const std::string& centre = "[0.005, 0.005, 0.005]") {
    return cube + "[[array]]\nname = \"m\"\ncentre = " + centre + "\nsurface = \"zmax\"\nwidth = 1e-3\n"
                  "signal = { kind = \"ricker\", frequency = 1e6 }\nfmc = true\n" + keys;
  };
  const Model model = read(matrix("elements = [4, 3]\npitch = [2e-3, 2e-3]\nlength = 1e-3\n"));
  const TransducerArray& a = model.arrays.at(0);
  EXPECT_EQ(a.n_elements, 12);
  EXPECT_EQ(a.rows, 3);
  EXPECT_EQ(a.columns(), 4);
  EXPECT_EQ(a.row_pitch, 2e-3);
  ASSERT_EQ(a.element_centres.size(), 12u);
  ASSERT_EQ(model.shots.size(), 12u);
  for (Index k = 0; k < 12; ++k) {
    const auto e = static_cast<std::size_t>(k);
    // Along x from the centre by column, along the elevation (-y) by row.
    EXPECT_NEAR(a.element_centres[e][0], 0.005 + (static_cast<double>(k % 4) - 1.5) * 2e-3, 1e-15) << k;
    EXPECT_NEAR(a.element_centres[e][1], 0.005 - (static_cast<double>(k / 4) - 1.0) * 2e-3, 1e-15) << k;
    EXPECT_EQ(a.footprints[e].size(), 4u);  // 2 x 2 faces of 0.5 mm, the elements centred on nodes
    EXPECT_NEAR(a.areas[e], 1e-6, 1e-18);
  }
  const auto fails = [&](const std::string& keys, const std::string& centre = "[0.005, 0.005, 0.005]") {
    return error_of([&] { (void)read(matrix(keys, centre)); });
  };
  expect_contains(fails("elements = [4, 3]\npitch = 1.5e-3\nlength = 1e-3\n"),
                  {"m.toml:", "a matrix array of 3 rows needs 'pitch' = [along, across]"});
  expect_contains(fails("elements = [4, 3]\npitch = [1.5e-3, 1e-3]\nlength = 1.5e-3\n"),
                  {"'length' 0.0015 m is above the row pitch 0.001 m"});
  expect_contains(fails("elements = [4, 3]\npitch = [1.5e-3, 2e-3]\nlength = 2e-3\n", "[0.005, 0.0015, 0.005]"),
                  {"its element 8 centred at", "runs off surface 'zmax'"});
  expect_contains(fails("elements = [100, 100]\npitch = [1e-4, 1e-4]\nlength = 1e-5\n"),
                  {"'elements' makes 10000 (100 x 100); expected 1 to 4096"});
  expect_contains(fails("elements = 4\npitch = [1.5e-3, 2e-3]\nlength = 1e-3\n"), {"is a matrix array's"});
  expect_contains(error_of([&] { (void)read(block + array("", "0.75e-3") + "[[array]]\nname = \"n\"\n"
                                            "elements = [2, 2]\npitch = [1e-3, 1e-3]\nwidth = 1e-3\n"); }),
                  {"is a 3D model's matrix array"});
}

// An immersed array: 2D, 2 mm of water over the steel block, the array on the water's top.
const std::string immersed = test::immersed_array_toml();

// On a fluid's surface each element is a piston of its footprint's faces (no load on the solid),
// and the receiver records the footprints' mean pressure.
TEST(Arrays, InAFluidBecomePistonsAndListenForPressure) {
  const Model model = read(immersed);
  const TransducerArray& a = model.arrays.at(0);
  EXPECT_TRUE(a.immersion);
  EXPECT_TRUE(model.surface_loads.empty());
  ASSERT_EQ(model.transducers.size(), 8u);
  for (const Transducer& t : model.transducers) {
    EXPECT_EQ(t.mode, Transducer::Mode::Piston);
    EXPECT_EQ(t.drive, Transducer::Drive::Velocity);
    EXPECT_EQ(t.piston_faces.size(), 3u);  // 0.75 mm of 0.25 mm faces
    EXPECT_NEAR(t.amplitude, 1e-3, 1e-15);  // the footprint's area the nominal one
  }
  ASSERT_EQ(model.receivers.size(), 1u);
  EXPECT_TRUE(model.receivers[0].pressure);
  EXPECT_FALSE(model.receivers[0].displacement);
  // Not on both sides: an array down the block's side, across water and steel.
  expect_contains(error_of([&] {
                    (void)read(immersed + "[[array]]\nname = \"side\"\nelements = 4\npitch = 1e-3\nwidth = 1e-3\n"
                                          "centre = [0.0, 0.004]\nsurface = \"xmin\"\n"
                                          "signal = { kind = \"ricker\", frequency = 1e6 }\n");
                  }),
                  {"array 'side': its array element 2 centred at (0, 0.0045) stands on a fluid's face (mesh element",
                   "in a fluid (immersion) or on a solid (contact), not on both"});
  // Immersed, its depth is the whole mesh's below the water's top (6 mm); a contact array on the
  // steel's bottom takes the steel's (4 mm): its back wall is the steel's face under the water.
  EXPECT_NEAR(a.depth, 0.006, 1e-12);
  const Model below = read(immersed + "[[array]]\nname = \"below\"\nelements = 4\npitch = 1e-3\nwidth = 0.75e-3\n"
                                      "centre = [0.006125, 0.0]\nsurface = \"ymin\"\namplitude = 1e6\n"
                                      "signal = { kind = \"ricker\", frequency = 1e6 }\n");
  ASSERT_EQ(below.arrays.size(), 2u);
  EXPECT_FALSE(below.arrays[1].immersion);
  EXPECT_NEAR(below.arrays[1].depth, 0.004, 1e-12);
}

// Immersed, the capture is reciprocal as a contact one is: the pistons' volume at node a and the
// receiver's weight there are both int N_a dA over the footprint.
TEST(Arrays, AnImmersedCaptureIsReciprocal) {
  const Capture capture = reciprocity_of(read(immersed), explicit_fe::Quantity::Pressure, 0, 3);
  // 1 mm/s into water: rho c v = 1.5 kPa in a plane wave; a 0.75 mm strip makes less.
  EXPECT_GT(capture.peak, 100.0);
  EXPECT_LT(capture.peak, 3e3);
  // A criterion of 1e-6 of the peak, as the contact capture's; rounding alone leaves far less.
  EXPECT_LT(capture.worst, 1e-6 * capture.peak);
  EXPECT_GT(capture.apart, 0.1 * capture.peak);  // the scans differ across pairs (a test that can fail)
}

// Decomposed, an immersed capture's footprints that straddle parts of the water are split among
// them as the solid's are: each part records its share of the mean pressure and the merge adds
// them; the capture equals one domain's to rounding. Three parts across, each of water and steel
// (every part holds some of the fluid): x below 5.5 mm (through element 3's footprint, 5.25 to 6
// mm), 5.5 to 8.5 mm (through element 6's, 8.25 to 9 mm), and the rest.
TEST(Arrays, ADecomposedImmersedCaptureEqualsOneDomains) {
  const SplitCapture capture = split_capture(
      read(immersed), [](std::span<const double> x) { return x[0] < 0.0055 - 1e-9 ? 0 : x[0] < 0.0085 - 1e-9 ? 1 : 2; },
      "immersed_split");
  EXPECT_GT(capture.peak, 100.0);  // Pa: it sounds (see AnImmersedCaptureIsReciprocal)
  // The shared nodes' forces and the shares summed in another order: rounding, 1e-12 of the peak.
  EXPECT_LT(capture.worst, 1e-12 * capture.peak);
}

// In 3D as in 2D: a 2 x 2 matrix array on 1.5 mm of water over a steel block, each element a
// piston of its 1 mm square footprint (16 faces), its capture of pressure reciprocal.
TEST(Arrays, AnImmersedMatrixCaptureIsReciprocalIn3D) {
  const Model model = read(
      "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\nsize = [0.0045, 0.0045, 0.003]\ndivisions = [18, 18, 12]\n"
      "[[mesh.element_set]]\nname = \"steel\"\nmin = [0.0, 0.0, 0.0]\nmax = [0.0045, 0.0045, 0.0015]\n"
      "[[mesh.element_set]]\nname = \"water\"\nmin = [0.0, 0.0, 0.0015]\nmax = [0.0045, 0.0045, 0.003]\n"
      "[[material]]\nname = \"steel\"\ndensity = 7850.0\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n"
      "[[material]]\nname = \"water\"\nkind = \"fluid\"\ndensity = 1000.0\nsound_speed = 1480.0\n"
      "[[section]]\nelement_set = \"steel\"\nmaterial = \"steel\"\n"
      "[[section]]\nelement_set = \"water\"\nmaterial = \"water\"\n"
      "[explicit]\nduration = 2.5e-6\n"
      "[[array]]\nname = \"matrix\"\nelements = [2, 2]\npitch = [1.5e-3, 1.5e-3]\nwidth = 1e-3\nlength = 1e-3\n"
      "centre = [0.00225, 0.00225, 0.003]\nsurface = \"zmax\"\namplitude = 1e-3\nfmc = true\n"
      "signal = { kind = \"tone_burst\", frequency = 1e6, cycles = 2 }\n");
  const TransducerArray& a = model.arrays.at(0);
  EXPECT_TRUE(a.immersion);
  ASSERT_EQ(model.transducers.size(), 4u);
  for (const Transducer& t : model.transducers) {
    EXPECT_EQ(t.mode, Transducer::Mode::Piston);
    EXPECT_EQ(t.piston_faces.size(), 16u);  // 1 mm square of 0.25 mm faces
  }
  // Element 3, diagonally across from element 0, for the scans that must differ.
  const Capture capture = reciprocity_of(model, explicit_fe::Quantity::Pressure, 0, 3);
  // 1 mm/s into water: rho c v = 1.5 kPa in a plane wave; a 1 mm square piston makes less.
  EXPECT_GT(capture.peak, 100.0);
  EXPECT_LT(capture.peak, 3e3);
  EXPECT_LT(capture.worst, 1e-6 * capture.peak);  // (as in 2D; rounding leaves about 1e-16)
  EXPECT_GT(capture.apart, 0.1 * capture.peak);
}

}  // namespace
}  // namespace tremor
