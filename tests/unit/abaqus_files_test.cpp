// Reads the Abaqus / CalculiX inputs in tests/data/abaqus (see the README there) and checks every
// part of the model they describe.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/abaqus.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// Reads a test file with warnings recorded but not printed; returns the model and the warnings.
struct Loaded {
  Model model;
  std::vector<std::string> warnings;
};

Loaded load(const std::string& name) {
  const log::Quiet quiet;
  Loaded loaded{io::read_abaqus(test::data_path("abaqus/" + name)), {}};
  loaded.warnings = log::take_warnings();
  return loaded;
}

Index node_of(const Mesh& mesh, Label label) {
  const auto it = std::find(mesh.node_labels.begin(), mesh.node_labels.end(), label);
  EXPECT_NE(it, mesh.node_labels.end()) << "no node " << label;
  return static_cast<Index>(it - mesh.node_labels.begin());
}

std::vector<Label> node_labels(const Mesh& mesh, const std::vector<Index>& nodes) {
  std::vector<Label> labels;
  for (Index i : nodes) labels.push_back(mesh.node_labels[static_cast<std::size_t>(i)]);
  std::sort(labels.begin(), labels.end());
  return labels;
}

std::vector<Label> node_set(const Mesh& mesh, const std::string& name) {
  const auto it = mesh.node_sets.find(name);
  EXPECT_NE(it, mesh.node_sets.end()) << "no node set " << name;
  return it == mesh.node_sets.end() ? std::vector<Label>{} : node_labels(mesh, it->second);
}

std::vector<Label> element_set(const Mesh& mesh, const std::string& name) {
  const auto it = mesh.element_sets.find(name);
  EXPECT_NE(it, mesh.element_sets.end()) << "no element set " << name;
  std::vector<Label> labels;
  if (it != mesh.element_sets.end())
    for (Index e : it->second) labels.push_back(mesh.element_label(e));
  std::sort(labels.begin(), labels.end());
  return labels;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

using Point = std::array<double, 3>;

Point point(const Mesh& mesh, Index node) {
  Point p{0.0, 0.0, 0.0};
  for (int d = 0; d < mesh.dim(); ++d) p[static_cast<std::size_t>(d)] = mesh.node(node)[static_cast<std::size_t>(d)];
  return p;
}

// Six times the signed volume of tetrahedron (a, b, c, d): positive when d lies on the side of
// face abc from which a, b, c turn counter-clockwise.
double six_volume(const Point& a, const Point& b, const Point& c, const Point& d) {
  const Point u{b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v{c[0] - a[0], c[1] - a[1], c[2] - a[2]},
      w{d[0] - a[0], d[1] - a[1], d[2] - a[2]};
  return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) + u[2] * (v[0] * w[1] - v[1] * w[0]);
}

// Signed volume of a straight-edged hexahedron in tremor's ordering (bottom 0123 counter-clockwise
// seen from the top 4567): six tetrahedra around the diagonal 0-6, each positive for a valid element.
double hex_volume(const std::vector<Point>& v, int* negative_parts) {
  static constexpr int tets[6][4] = {{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6},
                                     {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}};
  double total = 0.0;
  *negative_parts = 0;
  for (const auto& t : tets) {
    const double part = six_volume(v[static_cast<std::size_t>(t[0])], v[static_cast<std::size_t>(t[1])],
                                   v[static_cast<std::size_t>(t[2])], v[static_cast<std::size_t>(t[3])]) /
                        6.0;
    if (part <= 0.0) ++*negative_parts;
    total += part;
  }
  return total;
}

std::vector<Point> element_points(const Mesh& mesh, const ElementBlock& block, Index element) {
  std::vector<Point> points;
  for (Index n : block.nodes(element)) points.push_back(point(mesh, n));
  return points;
}

// Mid-edge nodes of straight-sided quadratic elements sit at the midpoints of tremor's edges.
void expect_midpoints(const std::vector<Point>& p, const std::vector<std::array<int, 2>>& edges, int first_mid) {
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const Point& mid = p[static_cast<std::size_t>(first_mid) + k];
    const Point& a = p[static_cast<std::size_t>(edges[k][0])];
    const Point& b = p[static_cast<std::size_t>(edges[k][1])];
    for (int d = 0; d < 3; ++d)
      // Coordinates are decimals below 0.05 m written exactly; parsing rounds each to within
      // 1e-17 m, so 1e-15 m only absorbs rounding while any misplaced node is off by > 1e-4 m.
      EXPECT_NEAR(mid[static_cast<std::size_t>(d)],
                  0.5 * (a[static_cast<std::size_t>(d)] + b[static_cast<std::size_t>(d)]), 1e-15)
          << "mid-edge node " << first_mid + static_cast<int>(k) << " of edge " << edges[k][0] << "-" << edges[k][1];
  }
}

TEST(AbaqusFiles, PlaneStrainPlateWithToneBurst) {
  const Loaded loaded = load("plate_cpe4r.inp");
  const Model& model = loaded.model;
  const Mesh& mesh = model.mesh;
  EXPECT_EQ(model.title, "Aluminium plate, plane strain, 3-cycle 1 MHz tone burst");
  EXPECT_TRUE(contains(model.source, "plate_cpe4r.inp"));

  ASSERT_EQ(mesh.dim(), 2);
  EXPECT_EQ(mesh.n_nodes(), 15);
  ASSERT_EQ(mesh.n_blocks(), 1);
  EXPECT_EQ(mesh.blocks[0].type, ElementType::Quad4);
  ASSERT_EQ(mesh.n_elements(), 8);
  const Point corner = point(mesh, node_of(mesh, 15));
  // Exact decimals: parsing rounds to the nearest double, well inside 1e-15 m.
  EXPECT_NEAR(corner[0], 0.004, 1e-15);
  EXPECT_NEAR(corner[1], 0.002, 1e-15);
  for (Index e = 0; e < 8; ++e) {
    EXPECT_EQ(mesh.blocks[0].labels[static_cast<std::size_t>(e)], e + 1);
    const auto p = element_points(mesh, mesh.blocks[0], e);
    double twice_area = 0.0;  // shoelace formula: positive for counter-clockwise corners
    for (std::size_t k = 0; k < 4; ++k) twice_area += p[k][0] * p[(k + 1) % 4][1] - p[(k + 1) % 4][0] * p[k][1];
    // 1 mm squares: area 1e-6 m^2; rounding of 0.001-multiples is ~1e-22 m^2.
    EXPECT_NEAR(0.5 * twice_area, 1e-6, 1e-18) << "element " << e + 1;
  }

  EXPECT_EQ(node_set(mesh, "ALLNODES").size(), 15u);
  EXPECT_EQ(node_set(mesh, "LEFT"), (std::vector<Label>{1, 6, 11}));
  EXPECT_EQ(node_set(mesh, "SOURCE"), (std::vector<Label>{15}));
  EXPECT_EQ(node_set(mesh, "RECEIVERS"), (std::vector<Label>{13, 14}));
  EXPECT_EQ(element_set(mesh, "PLATE"), (std::vector<Label>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(element_set(mesh, "LEFTCOLUMN"), (std::vector<Label>{1, 5}));

  ASSERT_EQ(model.materials.size(), 1u);
  const Material& aluminium = model.materials[0];
  EXPECT_EQ(aluminium.name, "ALUMINIUM");
  EXPECT_TRUE(aluminium.isotropic);
  const double E = 7e10, nu = 0.33;
  // Lame constants from E and nu; a few roundings in the conversion, so 1e-12 relative.
  EXPECT_NEAR(aluminium.mu(), E / (2.0 * (1.0 + nu)), 1e-12 * E);
  EXPECT_NEAR(aluminium.lambda(), E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu)), 1e-12 * E);
  EXPECT_DOUBLE_EQ(aluminium.density, 2700.0);
  EXPECT_DOUBLE_EQ(aluminium.damping_alpha, 1000.0);

  ASSERT_EQ(model.sections.size(), 1u);
  EXPECT_EQ(model.sections[0].element_set, "PLATE");
  EXPECT_EQ(model.sections[0].material, "ALUMINIUM");
  EXPECT_EQ(model.sections[0].formulation, Formulation::PlaneStrain);
  EXPECT_DOUBLE_EQ(model.sections[0].thickness, 0.002);

  ASSERT_EQ(model.amplitudes.size(), 1u);
  const Amplitude& burst = model.amplitudes[0];
  EXPECT_EQ(burst.name, "BURST");
  ASSERT_EQ(burst.points.size(), 25u);
  const double f = 1e6, period = 3e-6;
  for (std::size_t k = 0; k < burst.points.size(); ++k) {
    const double t = period * static_cast<double>(k) / 24.0;
    const double hann = 0.5 * (1.0 - std::cos(2.0 * std::numbers::pi * t / period));
    // The file holds 9 significant digits: at most 5e-10 off the Hann-windowed sine.
    EXPECT_NEAR(burst.points[k].first, t, 1e-9 * period);
    EXPECT_NEAR(burst.points[k].second, std::sin(2.0 * std::numbers::pi * f * t) * hann, 1e-9);
  }

  // XSYMM fixes U1 on the left edge (its rotations do not exist); node 1 is pinned in y.
  ASSERT_EQ(model.fixed.size(), 2u);
  EXPECT_EQ(model.fixed[0].component, 0);
  EXPECT_EQ(node_labels(mesh, model.fixed[0].nodes), (std::vector<Label>{1, 6, 11}));
  EXPECT_TRUE(contains(model.fixed[0].origin, "plate_cpe4r.inp:73"));
  EXPECT_EQ(model.fixed[1].component, 1);
  EXPECT_EQ(node_labels(mesh, model.fixed[1].nodes), (std::vector<Label>{1}));
  EXPECT_DOUBLE_EQ(model.fixed[1].value, 0.0);
  EXPECT_TRUE(model.fixed[1].amplitude.empty());
  EXPECT_TRUE(contains(model.fixed[1].origin, "plate_cpe4r.inp:76"));

  ASSERT_EQ(model.loads.size(), 1u);
  EXPECT_EQ(node_labels(mesh, model.loads[0].nodes), (std::vector<Label>{15}));
  EXPECT_EQ(model.loads[0].component, 1);
  EXPECT_DOUBLE_EQ(model.loads[0].magnitude, -1.0);
  EXPECT_EQ(model.loads[0].amplitude, "BURST");
  EXPECT_TRUE(contains(model.loads[0].origin, "plate_cpe4r.inp:91"));

  ASSERT_TRUE(model.explicit_step.has_value());
  EXPECT_EQ(model.explicit_step->name, "BURST");
  EXPECT_DOUBLE_EQ(model.explicit_step->duration, 2e-5);
  EXPECT_DOUBLE_EQ(model.explicit_step->fixed_increment, 0.0);

  // Field output is not held by the model; the history request is.
  ASSERT_EQ(model.histories.size(), 1u);
  const HistoryOutput& history = model.histories[0];
  EXPECT_EQ(history.name, "RECEIVERS");
  EXPECT_EQ(node_labels(mesh, history.nodes), (std::vector<Label>{13, 14}));
  EXPECT_EQ(history.variables, (std::vector<std::string>{"U", "V"}));
  EXPECT_DOUBLE_EQ(history.every_time, 1e-7);

  ASSERT_EQ(loaded.warnings.size(), 1u);
  const std::string& warning = loaded.warnings[0];
  for (const char* part : {"*PREPRINT", "*BULK VISCOSITY", "*OUTPUT, FIELD", "plate_cpe4r.inp:5"})
    EXPECT_TRUE(contains(warning, part)) << part << " missing from: " << warning;
}

TEST(AbaqusFiles, OrthotropicBarWithEncastre) {
  const Loaded loaded = load("bar_c3d8r.inp");
  const Model& model = loaded.model;
  const Mesh& mesh = model.mesh;
  EXPECT_EQ(model.title, "CFRP bar, clamped at x = 0, pulled at the tip");
  ASSERT_EQ(mesh.dim(), 3);
  EXPECT_EQ(mesh.n_nodes(), 20);
  ASSERT_EQ(mesh.n_blocks(), 1);
  EXPECT_EQ(mesh.blocks[0].type, ElementType::Hex8);
  ASSERT_EQ(mesh.n_elements(), 4);
  for (Index e = 0; e < 4; ++e) {
    int negative = 0;
    // 10 mm cubes: 1e-6 m^3; rounding of the 0.01-multiples is ~1e-22 m^3.
    EXPECT_NEAR(hex_volume(element_points(mesh, mesh.blocks[0], e), &negative), 1e-6, 1e-18);
    EXPECT_EQ(negative, 0);
  }

  EXPECT_EQ(node_set(mesh, "FIXED"), (std::vector<Label>{1, 6, 11, 16}));
  EXPECT_EQ(node_set(mesh, "TIP"), (std::vector<Label>{5, 10, 15, 20}));
  EXPECT_EQ(node_set(mesh, "ENDS"), (std::vector<Label>{1, 3, 5, 6, 10, 11, 15, 16, 20}));
  EXPECT_EQ(element_set(mesh, "FIRST"), (std::vector<Label>{1}));
  EXPECT_EQ(element_set(mesh, "REST"), (std::vector<Label>{2, 3, 4}));

  // Engineering constants: C must invert the compliance built here from the Abaqus order
  // E1, E2, E3, nu12, nu13, nu23, G12, G13, G23 (tremor's Voigt order xx, yy, zz, yz, xz, xy).
  ASSERT_EQ(model.materials.size(), 1u);
  const Material& cfrp = model.materials[0];
  EXPECT_EQ(cfrp.name, "CFRP");
  EXPECT_FALSE(cfrp.isotropic);
  EXPECT_DOUBLE_EQ(cfrp.density, 1600.0);
  const double e1 = 135e9, e2 = 10e9, e3 = 10e9, nu12 = 0.3, nu13 = 0.3, nu23 = 0.4, g12 = 5e9, g13 = 5e9,
               g23 = 3.5714e9;
  double s[6][6] = {};
  s[0][0] = 1 / e1, s[1][1] = 1 / e2, s[2][2] = 1 / e3;
  s[0][1] = s[1][0] = -nu12 / e1, s[0][2] = s[2][0] = -nu13 / e1, s[1][2] = s[2][1] = -nu23 / e2;
  s[3][3] = 1 / g23, s[4][4] = 1 / g13, s[5][5] = 1 / g12;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      double cs = 0.0;
      for (int k = 0; k < 6; ++k) cs += cfrp.c(i, k) * s[k][j];
      // C S = I up to the rounding of a 6x6 inversion whose condition number is ~E1/G23 ~ 40.
      EXPECT_NEAR(cs, i == j ? 1.0 : 0.0, 1e-12) << "(C S)(" << i << "," << j << ")";
    }

  ASSERT_EQ(model.sections.size(), 1u);
  EXPECT_EQ(model.sections[0].element_set, "BAR");
  EXPECT_EQ(model.sections[0].formulation, Formulation::Solid);

  // ENCASTRE on a solid fixes the three translations.
  ASSERT_EQ(model.fixed.size(), 3u);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(model.fixed[static_cast<std::size_t>(c)].component, c);
    EXPECT_EQ(node_labels(mesh, model.fixed[static_cast<std::size_t>(c)].nodes), (std::vector<Label>{1, 6, 11, 16}));
    EXPECT_TRUE(contains(model.fixed[static_cast<std::size_t>(c)].origin, "bar_c3d8r.inp:62"));
  }
  ASSERT_EQ(model.loads.size(), 1u);
  EXPECT_EQ(model.loads[0].component, 0);
  EXPECT_DOUBLE_EQ(model.loads[0].magnitude, 250.0);
  EXPECT_EQ(model.loads[0].amplitude, "RAMP");
  EXPECT_EQ(node_labels(mesh, model.loads[0].nodes), (std::vector<Label>{5, 10, 15, 20}));

  ASSERT_EQ(model.amplitudes.size(), 2u);
  EXPECT_EQ(model.amplitudes[0].points, (std::vector<std::pair<double, double>>{{0.0, 0.0}, {1e-5, 1.0}}));
  const Amplitude& stairs = model.amplitudes[1];
  EXPECT_EQ(stairs.name, "STAIRS");
  ASSERT_EQ(stairs.points.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    // BEGIN + k * FIXED INTERVAL: one multiplication and addition, so within an ulp or two.
    EXPECT_NEAR(stairs.points[k].first, 2e-5 + 1e-5 * static_cast<double>(k), 1e-20);
    EXPECT_DOUBLE_EQ(stairs.points[k].second, 0.5 * static_cast<double>(k));
  }

  ASSERT_TRUE(model.explicit_step.has_value());
  EXPECT_EQ(model.explicit_step->name, "PULL");
  EXPECT_DOUBLE_EQ(model.explicit_step->duration, 5e-5);
  EXPECT_DOUBLE_EQ(model.explicit_step->fixed_increment, 1e-7);

  ASSERT_EQ(model.histories.size(), 1u);
  EXPECT_EQ(model.histories[0].name, "TIP");
  EXPECT_EQ(model.histories[0].variables, (std::vector<std::string>{"U", "A"}));
  EXPECT_EQ(model.histories[0].every_n_steps, 10);
  EXPECT_DOUBLE_EQ(model.histories[0].every_time, 0.0);

  // *SURFACE TIPFACE: face S4 of brick 4 (Abaqus face 4 = nodes 2-6-7-3 of the element), tremor's face 3.
  ASSERT_EQ(mesh.face_sets.count("TIPFACE"), 1u);
  const Index tip_element = mesh.global_index({0, static_cast<Index>(
      std::find(mesh.blocks[0].labels.begin(), mesh.blocks[0].labels.end(), 4) - mesh.blocks[0].labels.begin())});
  EXPECT_EQ(mesh.face_sets.at("TIPFACE"), (std::vector<Face>{{tip_element, 3}}));

  // Everything unsupported is in one warning, with where it first appears.
  ASSERT_EQ(loaded.warnings.size(), 1u);
  const std::string& warning = loaded.warnings[0];
  for (const char* part : {"*ORIENTATION (at ", "*SOLID SECTION, ORIENTATION", "*RESTART", "*OUTPUT, FIELD",
                           "*ELEMENT OUTPUT", "*EL PRINT", "bar_c3d8r.inp:44"})
    EXPECT_TRUE(contains(warning, part)) << part << " missing from: " << warning;
  EXPECT_FALSE(contains(warning, "*SURFACE")) << warning;
}

TEST(AbaqusFiles, QuadraticElementsThroughInclude) {
  const Loaded loaded = load("quadratic.inp");
  const Model& model = loaded.model;
  const Mesh& mesh = model.mesh;
  EXPECT_TRUE(loaded.warnings.empty()) << loaded.warnings.front();
  ASSERT_EQ(mesh.n_nodes(), 30);
  ASSERT_EQ(mesh.n_blocks(), 2);
  const ElementBlock& tets = mesh.blocks[0];
  const ElementBlock& hexes = mesh.blocks[1];
  ASSERT_EQ(tets.type, ElementType::Tet10);
  ASSERT_EQ(hexes.type, ElementType::Hex20);
  ASSERT_EQ(tets.labels, (std::vector<Label>{1}));
  ASSERT_EQ(hexes.labels, (std::vector<Label>{10}));

  const auto tet = element_points(mesh, tets, 0);
  // Vertices (0,0,0), (12,1,0), (2,11,1), (1,2,10) mm: 6V = 1277 mm^3; coordinates are exact
  // decimals, so only rounding (~1e-16 relative) separates the two.
  EXPECT_NEAR(six_volume(tet[0], tet[1], tet[2], tet[3]) / 6.0, 1277e-9 / 6.0, 1e-12 * 1277e-9 / 6.0);
  expect_midpoints(tet, {{{0, 1}}, {{1, 2}}, {{2, 0}}, {{0, 3}}, {{1, 3}}, {{2, 3}}}, 4);

  const auto hex = element_points(mesh, hexes, 0);
  int negative = 0;
  // A parallelepiped on a = (10,1,0), b = (2,9,0), c = (1,1,8) mm: det(a, b, c) = 704 mm^3.
  EXPECT_NEAR(hex_volume(hex, &negative), 704e-9, 1e-12 * 704e-9);
  EXPECT_EQ(negative, 0);
  expect_midpoints(hex,
                   {{{0, 1}},
                    {{1, 2}},
                    {{2, 3}},
                    {{3, 0}},
                    {{4, 5}},
                    {{5, 6}},
                    {{6, 7}},
                    {{7, 4}},
                    {{0, 4}},
                    {{1, 5}},
                    {{2, 6}},
                    {{3, 7}}},
                   8);

  EXPECT_EQ(element_set(mesh, "TETS"), (std::vector<Label>{1}));
  EXPECT_EQ(element_set(mesh, "HEXES"), (std::vector<Label>{10}));
  EXPECT_EQ(element_set(mesh, "ALL"), (std::vector<Label>{1, 10}));
  EXPECT_EQ(node_set(mesh, "NALL").size(), 30u);
  EXPECT_EQ(node_set(mesh, "TETBASE"), (std::vector<Label>{1, 2, 3}));
  EXPECT_EQ(node_set(mesh, "HEXBASE"), (std::vector<Label>{101, 102, 103, 104, 109, 110, 111, 112}));
  EXPECT_EQ(node_set(mesh, "HEXTOP"), (std::vector<Label>{105, 106, 107, 108, 113, 114, 115, 116}));

  ASSERT_EQ(model.materials.size(), 2u);
  EXPECT_EQ(model.materials[0].name, "TITANIUM");
  EXPECT_TRUE(model.materials[0].isotropic);
  const Material& aniso = model.materials[1];
  EXPECT_EQ(aniso.name, "CFRP_ROTATED");
  EXPECT_FALSE(aniso.isotropic);
  EXPECT_DOUBLE_EQ(aniso.density, 1550.0);
  // The file's constants, named by their tensor indices. Each D_ijkl must land where tremor's
  // Voigt order (xx, yy, zz, yz, xz, xy) puts the pairs ij and kl, unscaled, because both use
  // engineering shear strains.
  const std::pair<const char*, double> constants[21] = {
      {"1111", 8.831875e+10}, {"1122", 2.639134998e+10}, {"2222", 2.120102872e+10}, {"1133", 8939900015},
      {"2233", 7149994607},   {"3333", 1.371773207e+10}, {"1112", 3.895039152e+10}, {"2212", 1.268031515e+10},
      {"3312", 1347522378},   {"1212", 2.582116332e+10}, {"1113", 1.417678313e+10}, {"2213", 3993241199},
      {"3313", 1112474114},   {"1213", 7514588899},      {"1313", 7910086682},      {"1123", 7321752617},
      {"2223", 2433822793},   {"3323", 705792938.5},     {"1223", 4348678958},      {"1323", 2324079596},
      {"2323", 4849994607}};
  auto voigt = [](char a, char b) {
    const int i = a - '1', j = b - '1';
    if (i == j) return i;
    return 6 - i - j;  // pairs 23 -> 3 (yz), 13 -> 4 (xz), 12 -> 5 (xy)
  };
  for (const auto& [name, value] : constants) {
    const int row = voigt(name[0], name[1]), column = voigt(name[2], name[3]);
    // The same decimal literal is parsed in both places: equal to the last bit.
    EXPECT_EQ(aniso.c(row, column), value) << "D" << name;
    EXPECT_EQ(aniso.c(column, row), value) << "D" << name;
  }

  ASSERT_EQ(model.sections.size(), 2u);
  EXPECT_EQ(model.sections[0].element_set, "TETS");
  EXPECT_EQ(model.sections[0].material, "TITANIUM");
  EXPECT_EQ(model.sections[1].element_set, "HEXES");
  EXPECT_EQ(model.sections[1].material, "CFRP_ROTATED");
  EXPECT_EQ(model.sections[1].formulation, Formulation::Solid);

  ASSERT_EQ(model.fixed.size(), 2u);
  EXPECT_EQ(model.fixed[0].component, 2);
  EXPECT_EQ(node_labels(mesh, model.fixed[0].nodes), (std::vector<Label>{1, 2, 3}));
  EXPECT_EQ(model.fixed[1].component, 2);  // the last dof left out: only the first one
  EXPECT_TRUE(contains(model.fixed[1].origin, "quadratic.inp:33"));
  ASSERT_EQ(model.loads.size(), 2u);
  EXPECT_EQ(node_labels(mesh, model.loads[1].nodes), (std::vector<Label>{4}));
  EXPECT_EQ(model.loads[1].component, 2);
  EXPECT_DOUBLE_EQ(model.loads[1].magnitude, -10.0);
  ASSERT_EQ(model.amplitudes.size(), 1u);
  EXPECT_EQ(model.amplitudes[0].points.size(), 5u);  // pairs continued over two lines
  EXPECT_DOUBLE_EQ(model.amplitudes[0].value(2e-6), 1.0);

  ASSERT_TRUE(model.explicit_step.has_value());
  EXPECT_EQ(model.explicit_step->name, "STEP-1");
  EXPECT_DOUBLE_EQ(model.explicit_step->duration, 4e-6);
  EXPECT_DOUBLE_EQ(model.explicit_step->fixed_increment, 0.0);  // no DIRECT: the solver picks it
  ASSERT_EQ(model.histories.size(), 1u);
  EXPECT_EQ(model.histories[0].variables, (std::vector<std::string>{"U"}));
  EXPECT_EQ(model.histories[0].every_n_steps, 50);
}

TEST(AbaqusFiles, CalculixExplicitDeck) {
  const Loaded loaded = load("calculix_explicit.inp");
  const Model& model = loaded.model;
  const Mesh& mesh = model.mesh;
  EXPECT_EQ(model.title, "CalculiX explicit bar");
  ASSERT_EQ(mesh.n_nodes(), 20);
  ASSERT_EQ(mesh.n_elements(), 4);
  for (Index e = 0; e < 4; ++e) {
    int negative = 0;
    // As for the Abaqus bar: 1e-6 m^3 up to rounding of the coordinates.
    EXPECT_NEAR(hex_volume(element_points(mesh, mesh.blocks[0], e), &negative), 1e-6, 1e-18);
    EXPECT_EQ(negative, 0);
  }
  EXPECT_EQ(node_set(mesh, "NFIX"), (std::vector<Label>{1, 6, 11, 16}));
  EXPECT_EQ(node_set(mesh, "NTIP"), (std::vector<Label>{5, 10, 15, 20}));
  EXPECT_EQ(element_set(mesh, "EALL").size(), 4u);

  ASSERT_EQ(model.materials.size(), 1u);
  const Material& steel = model.materials[0];
  const double E = 210e9, nu = 0.3;
  // Lame constants from E and nu, 1e-12 relative for the rounding of the conversion.
  EXPECT_NEAR(steel.mu(), E / (2.0 * (1.0 + nu)), 1e-12 * E);
  EXPECT_NEAR(steel.lambda(), E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu)), 1e-12 * E);
  EXPECT_DOUBLE_EQ(steel.density, 7800.0);

  ASSERT_EQ(model.fixed.size(), 3u);
  for (int c = 0; c < 3; ++c) EXPECT_EQ(model.fixed[static_cast<std::size_t>(c)].component, c);
  ASSERT_EQ(model.loads.size(), 1u);
  EXPECT_EQ(model.loads[0].amplitude, "PULSE");
  EXPECT_DOUBLE_EQ(model.amplitudes[0].value(0.5e-6), 0.5);

  ASSERT_TRUE(model.explicit_step.has_value());
  EXPECT_DOUBLE_EQ(model.explicit_step->duration, 1e-5);
  EXPECT_DOUBLE_EQ(model.explicit_step->fixed_increment, 1e-7);  // DIRECT
  ASSERT_EQ(model.histories.size(), 1u);
  EXPECT_EQ(model.histories[0].name, "NTIP");
  EXPECT_EQ(model.histories[0].every_n_steps, 10);

  ASSERT_EQ(loaded.warnings.size(), 1u);
  EXPECT_TRUE(contains(loaded.warnings[0], "*NODE FILE")) << loaded.warnings[0];
  EXPECT_TRUE(contains(loaded.warnings[0], "*EL FILE")) << loaded.warnings[0];
}

}  // namespace
}  // namespace tremor
