// Point sources between nodes and moment tensors (fem/point_sources.hpp), and the seismic files that
// bring them: CMTSOLUTION, FORCESOLUTION and STATIONS (io/seismic_files.hpp; the model file's
// [[source]] and [[receiver]]).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/fem/point_sources.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/io/seismic_files.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/elevate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

Model solid(Mesh mesh) {
  Model model;
  model.source = "test";
  model.mesh = std::move(mesh);
  model.materials.push_back(Material::from_speeds("rock", 6000.0, 3464.0, 2700.0));
  model.sections.push_back({"all", "rock", model.mesh.dim() == 3 ? Formulation::Solid : Formulation::PlaneStrain, 1.0});
  return model;
}

PointSource force_at(std::array<double, 3> x, std::array<double, 3> direction) {
  PointSource source;
  source.position = x;
  source.direction = direction;
  source.signal = Signal::ricker(2e5);
  source.origin = "m.toml:12";
  return source;
}

// A 0.2 x 0.1 m rectangle of 4 x 2 quad4 cells, 0.05 m.
Model plate() { return solid(generate_rectangle({0.0, 0.0}, {0.2, 0.1}, {4, 2}, ElementType::Quad4)); }

TEST(PointSources, AForceBetweenNodesTakesItsElementsShapeFunctions) {
  Model model = plate();
  model.point_sources.push_back(force_at({0.11, 0.04, 0.0}, {0.0, -1.0, 0.0}));
  model.validate();
  const std::vector<PointSource> placed = fem::placed_sources(model);
  ASSERT_EQ(placed.size(), 1u);
  const PointSource& p = placed[0];
  ASSERT_EQ(p.nodes.size(), 4u);
  ASSERT_EQ(p.weights.size(), 4u);
  // The cell from (0.1, 0) to (0.15, 0.05): xi = 0.2 of the way along x, 0.8 along y.
  double sum = 0.0, x = 0.0, y = 0.0;
  for (std::size_t a = 0; a < 4; ++a) {
    const auto node = model.mesh.node(p.nodes[a]);
    const double along_x = (node[0] - 0.1) / 0.05, along_y = node[1] / 0.05;
    const double want = (along_x > 0.5 ? 0.2 : 0.8) * (along_y > 0.5 ? 0.8 : 0.2);
    EXPECT_NEAR(p.weights[a], want, 1e-12) << a;  // Newton's inversion converges to 1e-12 of the cell
    sum += p.weights[a];
    x += p.weights[a] * node[0];
    y += p.weights[a] * node[1];
  }
  EXPECT_NEAR(sum, 1.0, 1e-14);
  EXPECT_NEAR(x, 0.11, 1e-14);
  EXPECT_NEAR(y, 0.04, 1e-14);
  EXPECT_EQ(p.direction, (std::array<double, 3>{0.0, -1.0, 0.0}));
  EXPECT_EQ(p.origin, "m.toml:12");
}

TEST(PointSources, AtANodeItIsThatNodesForce) {
  Model model = plate();
  model.point_sources.push_back(force_at({0.1, 0.05, 0.0}, {1.0, 0.0, 0.0}));
  const PointSource p = fem::placed_sources(model).at(0);
  ASSERT_EQ(p.nodes.size(), 1u);  // the others' N_a, 0 but for rounding, dropped
  const auto node = model.mesh.node(p.nodes[0]);
  EXPECT_EQ(node[0], 0.1);
  EXPECT_EQ(node[1], 0.05);
  EXPECT_EQ(p.weights, std::vector<double>{1.0});
}

// The first moment of a moment tensor's forces, sum_a x_a f_a^T, is M and their sum zero, for any
// isoparametric element: on distorted hex8, GLL hexahedra of order 3 and 2D GLL quadrilaterals.
void expect_the_moment(Model model, const std::array<double, 3>& at, const std::array<double, 6>& m) {
  const int dim = model.mesh.dim();
  PointSource source;
  source.position = at;
  source.moment = m;
  source.amplitude = 2.0;
  source.signal = Signal::ricker(10.0);
  source.origin = "cmt";
  model.point_sources.push_back(source);
  model.validate();
  const std::vector<PointSource> forces = fem::placed_sources(model);
  ASSERT_EQ(forces.size(), static_cast<std::size_t>(dim));
  const double M[3][3] = {{m[0], m[3], m[4]}, {m[3], m[1], m[5]}, {m[4], m[5], m[2]}};
  double size = 0.0;
  for (const double v : m) size = std::max(size, std::abs(v));
  for (int i = 0; i < dim; ++i) {
    const PointSource& f = forces[static_cast<std::size_t>(i)];
    EXPECT_FALSE(f.moment);
    EXPECT_EQ(f.direction[static_cast<std::size_t>(i)], 1.0);
    EXPECT_EQ(f.amplitude, 2.0);
    EXPECT_EQ(f.signal.kind, SignalKind::Ricker);
    double net = 0.0, first[3] = {0.0, 0.0, 0.0}, largest = 0.0;
    for (std::size_t a = 0; a < f.nodes.size(); ++a) {
      const auto x = model.mesh.node(f.nodes[a]);
      net += f.weights[a];
      largest = std::max(largest, std::abs(f.weights[a]));
      for (int k = 0; k < dim; ++k) first[k] += x[static_cast<std::size_t>(k)] * f.weights[a];
    }
    // Each is a sum of products of the forces (as large as `largest`) and coordinates of order 1:
    // rounding leaves a few 1e-16 of the largest.
    EXPECT_NEAR(net, 0.0, 1e-13 * largest) << "axis " << i;
    for (int k = 0; k < dim; ++k) EXPECT_NEAR(first[k], M[i][k], 1e-12 * largest + 1e-14 * size) << i << k;
  }
}

TEST(PointSources, AMomentTensorsForcesHaveNoSumAndItsMomentIsM) {
  const std::array<double, 6> m{1.0, -0.4, 0.7, 0.3, -0.2, 0.5};
  {
    SCOPED_TRACE("distorted hex8");
    Model model = solid(generate_box({0.0, 0.0, 0.0}, {3.0, 3.0, 3.0}, {3, 3, 3}, ElementType::Hex8));
    std::mt19937 random(7);
    std::uniform_real_distribution<double> shift(-0.15, 0.15);
    for (Index n = 0; n < model.mesh.n_nodes(); ++n) {
      double* x = model.mesh.coordinates.data() + 3 * n;
      const bool inner = x[0] > 0.5 && x[0] < 2.5 && x[1] > 0.5 && x[1] < 2.5 && x[2] > 0.5 && x[2] < 2.5;
      if (inner)
        for (int k = 0; k < 3; ++k) x[k] += shift(random);
    }
    expect_the_moment(model, {1.3, 1.6, 1.45}, m);
  }
  {
    SCOPED_TRACE("GLL order 3");
    Model model = solid(generate_box({0.0, 0.0, 0.0}, {2.0, 2.0, 2.0}, {2, 2, 2}, ElementType::Hex8));
    elevate_order(model, 3);
    expect_the_moment(model, {0.7, 1.2, 0.35}, m);
  }
  {
    SCOPED_TRACE("2D GLL order 4");
    Model model = solid(generate_rectangle({0.0, 0.0}, {2.0, 1.0}, {4, 2}, ElementType::Quad4));
    elevate_order(model, 4);
    expect_the_moment(model, {1.1, 0.3, 0.0}, {2.0, -1.0, 0.0, 0.5, 0.0, 0.0});
  }
}

TEST(PointSources, ErrorsNameTheSource) {
  const log::Quiet quiet;
  {
    // A cell taken out: its centre lies inside the bounding box and in no element.
    Model model = plate();
    ElementBlock& block = model.mesh.blocks[0];
    Index hole = -1;
    for (Index e = 0; e < block.n_elements(); ++e) {
      double x = 0.0, y = 0.0;
      for (const Index n : block.nodes(e)) x += model.mesh.node(n)[0] / 4.0, y += model.mesh.node(n)[1] / 4.0;
      if (std::abs(x - 0.125) < 1e-9 && std::abs(y - 0.075) < 1e-9) hole = e;
    }
    ASSERT_GE(hole, 0);
    block.connectivity.erase(block.connectivity.begin() + 4 * hole, block.connectivity.begin() + 4 * (hole + 1));
    block.labels.erase(block.labels.begin() + hole);
    PointSource source = force_at({0.125, 0.075, 0.0}, {1.0, 0.0, 0.0});
    source.name = "hammer";
    model.point_sources.push_back(source);
    test::expect_contains(test::error_of([&] { fem::placed_sources(model); }),
                          {"m.toml:12: the point force 'hammer' at (0.125, 0.075) lies in no element of the mesh"});
  }
  Model model = plate();
  PointSource source;
  source.position = {0.1, 0.05, 0.0};
  source.moment = std::array<double, 6>{1.0, 1.0, 1.0, 0.0, 0.0, 0.0};
  source.signal = Signal::ricker(1e5);
  source.origin = "m.toml:20";
  model.point_sources = {source};
  test::expect_contains(test::error_of([&] { model.validate(); }),
                        {"m.toml:20: a 2D model's moment tensor has M_xx, M_yy and M_xy alone"});
  model.point_sources[0].moment = std::array<double, 6>{};
  test::expect_contains(test::error_of([&] { model.validate(); }), {"m.toml:20: the moment tensor has a zero scalar moment"});
  model.point_sources[0].moment = std::array<double, 6>{1.0, 1.0, 0.0, 0.0, 0.0, 0.0};
  model.point_sources[0].position.reset();
  model.point_sources[0].nodes = {3};
  test::expect_contains(test::error_of([&] { model.validate(); }), {"a moment tensor acts at a position, not at nodes"});
}

// Reciprocity through the whole explicit solver: a force at A between nodes along a, recorded at B
// between nodes along b, equals the force at B along b recorded at A along a. The load vector is
// N(A) a and the record N(B)^T b u, and the central difference's propagator from load to
// displacement is a polynomial in M^-1 K times M^-1 (M diagonal, K symmetric): symmetric, so the
// two histories agree to rounding. A source placed anywhere but by N(A) (the nearest node, say)
// would break it by the distance to that node.
TEST(PointSources, AForceAndAReceiverBetweenNodesAreReciprocal) {
  const log::Quiet quiet;
  const std::array<double, 3> a{0.0731, 0.0213, 0.0}, b{0.1437, 0.0662, 0.0};
  const auto run = [&](const std::array<double, 3>& from, const std::array<double, 3>& along,
                       const std::array<double, 3>& to, int component) {
    Model model = solid(generate_rectangle({0.0, 0.0}, {0.2, 0.1}, {20, 10}, ElementType::Quad4));
    model.point_sources.push_back(force_at(from, along));
    Receiver receiver;
    receiver.name = "r";
    receiver.positions = {to};
    model.receivers.push_back(receiver);
    ExplicitSettings settings;
    settings.duration = 30e-6;
    model.explicit_settings = settings;
    model.validate();
    explicit_fe::RunOptions options;
    options.backend = "serial";
    options.precision = "double";
    const explicit_fe::ExplicitRun result = explicit_fe::run_explicit(model, options);
    EXPECT_TRUE(result.ok()) << result.message;
    std::vector<double> u;
    const explicit_fe::History& h = result.histories.at(0);
    for (std::size_t k = 0; k < h.n_samples(); ++k)
      u.push_back(h.value(k, 0, explicit_fe::Quantity::Displacement, component));
    return u;
  };
  const std::vector<double> ab = run(a, {1.0, 0.0, 0.0}, b, 1), ba = run(b, {0.0, 1.0, 0.0}, a, 0);
  ASSERT_EQ(ab.size(), ba.size());
  double peak = 0.0;
  for (const double v : ab) peak = std::max(peak, std::abs(v));
  ASSERT_GT(peak, 0.0);
  // Rounding over ~100 steps of a few hundred DOF: 1e-12 of the peak is far above it and far below
  // what a source at the nearest node would leave (1e-2 and more).
  EXPECT_LT(test::l2_distance(ab, ba), 1e-12 * peak * std::sqrt(static_cast<double>(ab.size())));
}

// ---------------------------------------------------------------------------------- the files

std::string write(const std::string& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir + "/" + name) << text;
  return dir + "/" + name;
}

// A 40 km x 40 km x 20 km box: x east, y north, z up, its top (the surface) at z = 20 km.
const std::string box =
    "[mesh]\n"                                                           // 1
    "generator = \"box\"\n"                                              // 2
    "element = \"hex8\"\n"                                               // 3
    "size = [40000, 40000, 20000]\n"                                     // 4
    "divisions = [4, 4, 2]\n"                                            // 5
    "[[material]]\n"                                                     // 6
    "name = \"rock\"\n"                                                  // 7
    "density = 2700\n"                                                   // 8
    "p_wave_speed = 6000\n"                                              // 9
    "s_wave_speed = 3464\n"                                              // 10
    "[explicit]\n"                                                       // 11
    "duration = 5\n";                                                    // 12

const std::string cmt =
    "PDE  1999 01 01 00 00 00.00  67000 67000 -25000 4.2 4.2 homog_test\n"
    "event name:       homog_test\n"
    "time shift:       0.5000\n"
    "half duration:    0.8\n"
    "latorUTM:       25000.0\n"
    "longorUTM:      15000.0\n"
    "depth:          8.0\n"
    "Mrr:      -7.600000e+22\n"
    "Mtt:       7.700000e+22\n"
    "Mpp:      -2.000000e+21\n"
    "Mrt:      -2.500000e+23\n"
    "Mrp:       4.000000e+21\n"
    "Mtp:      -2.500000e+22\n";

class SeismicFiles : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::temporary_directory("seismic"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  Model parse(const std::string& text) { return io::read_model_buffer(text, "m.toml", dir_); }
  std::string error(const std::string& text) {
    return test::error_of([&] { parse(text); });
  }
  const log::Quiet quiet_;
  std::string dir_;
};

TEST_F(SeismicFiles, ACmtSolutionIsAMomentTensorInXEastYNorthZUp) {
  write(dir_, "CMTSOLUTION", cmt);
  const Model model = parse(box + "[[source]]\ncmtsolution = \"CMTSOLUTION\"\n");
  ASSERT_EQ(model.point_sources.size(), 1u);
  const PointSource& s = model.point_sources[0];
  EXPECT_EQ(s.name, "homog_test");
  EXPECT_EQ(s.origin, dir_ + "/CMTSOLUTION:1");
  ASSERT_TRUE(s.position);
  EXPECT_EQ(*s.position, (std::array<double, 3>{15000.0, 25000.0, 20000.0 - 8000.0}));  // depth below the top
  ASSERT_TRUE(s.moment);
  // dyne cm to N m (1e-7); x = p (east), y = -t (north), z = r (up): M_xy = -M_tp, M_xz = M_rp,
  // M_yz = -M_rt.
  const std::array<double, 6> want{-2.0e14, 7.7e15, -7.6e15, 2.5e15, 4.0e14, 2.5e16};
  for (std::size_t k = 0; k < 6; ++k) EXPECT_NEAR((*s.moment)[k], want[k], 1e-12 * std::abs(want[k])) << k;
  // The moment a step: the Gaussian rate integrated, scaled to reach 1; tau = 0.8 / 1.628 s,
  // centred after the time shift and the onset where the rate is 1e-6 of its peak.
  const double tau = 0.8 / 1.628, b = 1.0 / (tau * tau);
  EXPECT_EQ(s.integrated, 1);
  EXPECT_EQ(s.signal.kind, SignalKind::Gaussian);
  EXPECT_NEAR(s.signal.sharpness, b, 1e-12 * b);
  EXPECT_NEAR(s.signal.centre, 0.5 + std::sqrt(std::log(1e6) / b), 1e-12);
  EXPECT_NEAR(s.amplitude * s.signal.integral(20.0, 1), 1.0, 1e-9);  // the whole step: M
  EXPECT_NEAR(s.amplitude * s.signal.integral(s.signal.centre, 1), 0.5, 1e-9);  // half at the centroid

  // "gaussian": the moment itself a pulse of peak M.
  const Model pulse = parse(box + "[[source]]\ncmtsolution = \"CMTSOLUTION\"\nsource_time_function = \"gaussian\"\n"
                                  "surface = 15000\nname = \"quake\"\n");
  EXPECT_EQ(pulse.point_sources[0].integrated, 0);
  EXPECT_EQ(pulse.point_sources[0].amplitude, 1.0);
  EXPECT_EQ(pulse.point_sources[0].name, "quake");
  EXPECT_EQ((*pulse.point_sources[0].position)[2], 7000.0);

  // Two blocks: two sources (a finite fault's points).
  write(dir_, "TWO", cmt + "\n" + cmt);
  EXPECT_EQ(parse(box + "[[source]]\ncmtsolution = \"TWO\"\n").point_sources.size(), 2u);
}

TEST_F(SeismicFiles, AForceSolutionIsAForceAlongEastNorthUp) {
  write(dir_, "FORCESOLUTION",
        "FORCE  001\ntime shift:     0.0000\nf0:             0.5\nlatorUTM:       20000.0\nlongorUTM:      10000.0\n"
        "depth:          3.0\nfactor force source:             1.d10\ncomponent dir vect source E:     1.d0\n"
        "component dir vect source N:     -2.d0\ncomponent dir vect source Z_UP:  -2.d0\n");
  const Model model = parse(box + "[[source]]\nforcesolution = \"FORCESOLUTION\"\n");
  const PointSource& s = model.point_sources.at(0);
  EXPECT_EQ(s.name, "FORCE 001");
  EXPECT_EQ(*s.position, (std::array<double, 3>{10000.0, 20000.0, 17000.0}));
  EXPECT_NEAR(s.direction[0], 1.0 / 3.0, 1e-15);
  EXPECT_NEAR(s.direction[1], -2.0 / 3.0, 1e-15);
  EXPECT_NEAR(s.direction[2], -2.0 / 3.0, 1e-15);
  // SPECFEM's Gaussian force: factor exp(-(t/tau)^2) / (tau sqrt pi), unit area times the factor.
  const double tau = 0.5 / 1.628;
  EXPECT_EQ(s.integrated, 0);
  EXPECT_NEAR(s.amplitude, 1e10 / (tau * std::sqrt(std::numbers::pi)), 1e-3);
  const Model ricker = parse(box + "[[source]]\nforcesolution = \"FORCESOLUTION\"\nsource_time_function = \"ricker\"\n");
  EXPECT_EQ(ricker.point_sources[0].signal.kind, SignalKind::Ricker);
  EXPECT_EQ(ricker.point_sources[0].signal.frequency, 0.5);
  EXPECT_EQ(ricker.point_sources[0].amplitude, 1e10);
}

TEST_F(SeismicFiles, StationsAreNamedPositionsBelowTheSurface) {
  write(dir_, "STATIONS",
        "# name net y x elevation burial\nX20 DB 20000.00 22732.14 0.0 0.0\n\nX30 DB 20000.00 34696.43 0.0 150.0\n");
  const Model model = parse(box + "[[receiver]]\nname = \"quake\"\nstations = \"STATIONS\"\nrecord = [\"velocity\"]\n");
  const Receiver& r = model.receivers.at(0);
  ASSERT_EQ(r.positions.size(), 2u);
  EXPECT_EQ(r.point_names, (std::vector<std::string>{"DB.X20", "DB.X30"}));
  EXPECT_EQ(r.positions[0], (std::array<double, 3>{22732.14, 20000.0, 20000.0}));
  EXPECT_EQ(r.positions[1], (std::array<double, 3>{34696.43, 20000.0, 19850.0}));
  EXPECT_TRUE(r.velocity);
  // A 2D model reads SPECFEM2D's order: x the third field, y the fourth less the burial.
  write(dir_, "STATIONS2D", "S1 AA 300.0 900.0 0.0 100.0\n");
  const Model plane = parse("[mesh]\ngenerator = \"rectangle\"\nelement = \"quad4\"\nsize = [1000, 1000]\n"
                            "divisions = [2, 2]\n[[material]]\nname = \"rock\"\ndensity = 2700\np_wave_speed = 6000\n"
                            "s_wave_speed = 3464\n[[receiver]]\nname = \"s\"\nstations = \"STATIONS2D\"\n");
  EXPECT_EQ(plane.receivers.at(0).positions.at(0), (std::array<double, 3>{300.0, 800.0, 0.0}));
  EXPECT_EQ(plane.receivers.at(0).point_names, std::vector<std::string>{"AA.S1"});
}

TEST_F(SeismicFiles, BadFilesAreNamedByLine) {
  const std::string with_cmt = box + "[[source]]\ncmtsolution = \"C\"\n";
  const auto cmt_error = [&](const std::string& text) {
    write(dir_, "C", text);
    return error(with_cmt);
  };
  const std::string c = dir_ + "/C";
  std::string no_depth = cmt;
  no_depth.erase(no_depth.find("depth:"), no_depth.find("Mrr") - no_depth.find("depth:"));
  test::expect_contains(cmt_error(no_depth), {c + ":1: the source that starts here has no 'depth:' line"});
  std::string zero = cmt.substr(0, cmt.find("Mrr:")) + "Mrr: 0\nMtt: 0\nMpp: 0\nMrt: 0\nMrp: 0\nMtp: 0.0\n";
  test::expect_contains(cmt_error(zero), {c + ":1: the moment tensor of the source that starts here is zero"});
  std::string typo = cmt;
  typo.replace(typo.find("Mtp"), 3, "Mtq");
  test::expect_contains(cmt_error(typo), {c + ":13: unknown line 'mtq:'"});
  std::string word = cmt;
  word.replace(word.find("8.0"), 3, "deep");
  test::expect_contains(cmt_error(word), {c + ":7: 'depth' is 'deep'; expected the depth in km"});
  std::string instant = cmt;
  instant.replace(instant.find("0.8"), 3, "0.0");
  test::expect_contains(cmt_error(instant), {c + ":1: half duration 0"});
  std::string below = cmt;
  below.replace(below.find("8.0"), 3, "30.0");
  test::expect_contains(cmt_error(below), {c + ":1: the source at (15000, 25000, -10000) lies outside the mesh's "
                                           "bounding box"});
  test::expect_contains(cmt_error("event name: x\n"), {c + ":1: 'event name: x' comes before the CMTSOLUTION"});
  write(dir_, "C", cmt);
  test::expect_contains(error(with_cmt + "position = [1, 1, 1]\n"), {"m.toml:15", "'position' does not go with it"});
  test::expect_contains(error(with_cmt + "source_time_function = \"box\"\n"), {"m.toml:15", "expected \"heaviside\""});

  const std::string with_stations = box + "[[receiver]]\nname = \"s\"\nstations = \"S\"\n";
  const auto station_error = [&](const std::string& text) {
    write(dir_, "S", text);
    return error(with_stations);
  };
  const std::string s = dir_ + "/S";
  test::expect_contains(station_error("A NET 1 2 0 0\nB NET 1 2 0\n"), {s + ":2: 5 fields; a station takes 6"});
  test::expect_contains(station_error("A NET 1 2 0 0\nA NET 3 4 0 0\n"), {s + ":2: station NET.A is listed twice"});
  test::expect_contains(station_error("A NET 1 x 0 0\n"), {s + ":1: field 4 'x' is not a number"});
  test::expect_contains(station_error("A/B NET 1 2 0 0\n"), {s + ":1: station 'A/B' has a character other than"});
  test::expect_contains(station_error("A NET 1 50000 0 0\n"),
                        {s + ":1: station NET.A at (50000, 1, 20000) lies outside the model"});
  test::expect_contains(station_error("# nothing\n"), {s + ": no station in the file"});

  const std::string plate2d = "[mesh]\ngenerator = \"rectangle\"\nelement = \"quad4\"\nsize = [1, 1]\n"
                              "divisions = [2, 2]\n[[material]]\nname = \"rock\"\ndensity = 2700\n"
                              "p_wave_speed = 6000\ns_wave_speed = 3464\n";
  test::expect_contains(error(plate2d + "[[source]]\ncmtsolution = \"C\"\n"),
                        {"m.toml:12", "'cmtsolution' places a source in 3D"});
  test::expect_contains(error(plate2d + "[[source]]\nposition = [0.5, 0.5]\nmoment_tensor = [0, 0, 0]\n"
                                        "signal = { kind = \"ricker\", frequency = 10 }\n"),
                        {"m.toml:13", "the moment tensor is zero"});
  test::expect_contains(error(plate2d + "[[source]]\nposition = [0.5, 0.5]\nmoment_tensor = [1, 1, 0]\n"
                                        "direction = [1, 0]\nsignal = { kind = \"ricker\", frequency = 10 }\n"),
                        {"m.toml:14", "'direction' belongs to a point force"});
}

// docs/model-file.md's CMTSOLUTION and STATIONS are the test data its example reads.
TEST(SeismicFilesDocumented, TheDocumentsFilesAreTheTestData) {
  const std::vector<std::string> texts = test::fenced_blocks("docs/model-file.md", "text");
  for (const char* name : {"CMTSOLUTION", "STATIONS"}) {
    std::ifstream in(test::data_path(std::string("model/") + name));
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(std::find(texts.begin(), texts.end(), data), texts.end()) << name;
  }
}

TEST(SeismicNumbers, FortranExponentsAreRead) {
  double v = 0.0;
  EXPECT_TRUE(io::fortran_number("1.d10", v));
  EXPECT_EQ(v, 1e10);
  EXPECT_TRUE(io::fortran_number("-2.5D-3", v));
  EXPECT_EQ(v, -2.5e-3);
  EXPECT_FALSE(io::fortran_number("1.d400", v));  // not finite
  EXPECT_FALSE(io::fortran_number("x", v));
}

}  // namespace
}  // namespace tremor
