// Grain microstructures (model/microstructure.hpp): Bunge's orientations, the rotated stiffness,
// Voronoi grains and textures, a grains file, the polycrystal averages, and the model file's
// [material.grains].
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/material_field.hpp"
#include "tremor/model/microstructure.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

constexpr double pi = std::numbers::pi, degree = pi / 180.0;

// Iron's cubic constants (Pa): strongly anisotropic, A = 2 C44 / (C11 - C12) = 2.4.
constexpr double c11 = 231.4e9, c12 = 134.7e9, c44 = 116.4e9;

TEST(Microstructure, BungeAnglesAreRotationsAboutZXZ) {
  // phi1 alone turns the crystal about z: its x axis lies at phi1 from the model's x.
  const Orientation g = bunge_orientation(30.0 * degree, 0.0, 0.0);
  EXPECT_NEAR(g[0], std::cos(30.0 * degree), 1e-15);
  EXPECT_NEAR(g[1], std::sin(30.0 * degree), 1e-15);
  EXPECT_NEAR(g[8], 1.0, 1e-15);
  // Phi tilts the crystal's z axis (the third row) away from the model's z, towards -y for phi1 = 0.
  const Orientation tilt = bunge_orientation(0.0, 20.0 * degree, 0.0);
  EXPECT_NEAR(tilt[7], -std::sin(20.0 * degree), 1e-15);
  EXPECT_NEAR(tilt[8], std::cos(20.0 * degree), 1e-15);
  // Orthonormal and proper, and the angles come back.
  std::mt19937 random(3);
  std::uniform_real_distribution<double> angle(0.0, 1.0);
  for (int k = 0; k < 200; ++k) {
    const double phi1 = 2 * pi * angle(random), Phi = pi * angle(random), phi2 = 2 * pi * angle(random);
    const Orientation m = bunge_orientation(phi1, Phi, phi2);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double dot = 0.0;
        for (int c = 0; c < 3; ++c) dot += m[3 * i + c] * m[3 * j + c];
        EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, 1e-14);
      }
    const std::array<double, 3> back = bunge_angles(m);
    const Orientation again = bunge_orientation(back[0], back[1], back[2]);
    for (std::size_t i = 0; i < 9; ++i) EXPECT_NEAR(again[i], m[i], 1e-12) << k;
  }
}

// A cube turned 45 degrees about [001]: the stiffness in the <110> axes in closed form,
// C'11 = (C11 + C12 + 2 C44) / 2, C'12 = (C11 + C12 - 2 C44) / 2, C'66 = (C11 - C12) / 2, the rest
// unchanged (C'13 = C12, C'33 = C11, C'44 = C'55 = C44) and no coupling.
TEST(Microstructure, ACubeTurned45DegreesHasItsClosedForm) {
  const Voigt6 c = rotated_stiffness(cubic_stiffness(c11, c12, c44), bunge_orientation(45.0 * degree, 0.0, 0.0));
  Voigt6 want = cubic_stiffness(c11, c12, c44);
  want[0] = want[7] = 0.5 * (c11 + c12 + 2 * c44);
  want[1] = want[6] = 0.5 * (c11 + c12 - 2 * c44);
  want[35] = 0.5 * (c11 - c12);
  for (std::size_t k = 0; k < 36; ++k) EXPECT_NEAR(c[k], want[k], 1e-15 * c11 * 8) << k;  // rounding of sums of ~8 terms
}

// Any rotation keeps the strain energy: eps_s : C_s : eps_s = eps_c : C_c : eps_c with
// eps_c = g eps_s g^T, the strain in crystal axes.
TEST(Microstructure, TheRotatedStiffnessKeepsTheStrainEnergy) {
  Voigt6 crystal{};  // a triclinic crystal: every entry its own, positive definite
  std::mt19937 random(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = i; j < 6; ++j) crystal[6 * i + j] = crystal[6 * j + i] = (i == j ? 10.0 : 0.0) + u(random);
  const int pairs[6][2] = {{0, 0}, {1, 1}, {2, 2}, {1, 2}, {0, 2}, {0, 1}};
  const auto energy = [&](const Voigt6& c, const double e[3][3]) {
    double v[6], w = 0.0;
    for (int I = 0; I < 6; ++I) v[I] = (I < 3 ? 1.0 : 2.0) * e[pairs[I][0]][pairs[I][1]];  // engineering shear
    for (int I = 0; I < 6; ++I)
      for (int J = 0; J < 6; ++J) w += v[I] * c[static_cast<std::size_t>(6 * I + J)] * v[J];
    return w;
  };
  for (int k = 0; k < 50; ++k) {
    const Orientation g = bunge_orientation(7 * u(random), 3 * std::abs(u(random)), 7 * u(random));
    double es[3][3], ec[3][3] = {};
    for (int i = 0; i < 3; ++i)
      for (int j = i; j < 3; ++j) es[i][j] = es[j][i] = u(random);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int m = 0; m < 3; ++m)
          for (int n = 0; n < 3; ++n) ec[i][j] += g[3 * i + m] * es[m][n] * g[3 * j + n];
    const Voigt6 sample = rotated_stiffness(crystal, g);
    EXPECT_NEAR(energy(sample, es), energy(crystal, ec), 1e-12 * 100.0) << k;
    for (std::size_t i = 0; i < 6; ++i)
      for (std::size_t j = 0; j < 6; ++j) EXPECT_EQ(sample[6 * i + j], sample[6 * j + i]);
  }
}

TEST(Microstructure, VoigtAndReussAveragesOfACrystal) {
  // An isotropic "crystal" is its own average.
  const Material steel = Material::from_youngs("steel", 210e9, 0.3, 7850.0);
  const PolycrystalModuli iso = polycrystal_moduli(steel.stiffness);
  const double mu = steel.mu(), kappa = steel.lambda() + 2.0 / 3.0 * mu;
  EXPECT_NEAR(iso.bulk_voigt, kappa, 1e-12 * kappa);
  EXPECT_NEAR(iso.bulk_reuss, kappa, 1e-12 * kappa);
  EXPECT_NEAR(iso.shear_voigt, mu, 1e-12 * mu);
  EXPECT_NEAR(iso.shear_reuss, mu, 1e-12 * mu);
  // Cubic: K = (C11 + 2 C12) / 3 both ways; G_V = (C11 - C12 + 3 C44) / 5, G_R = 5 (C11 - C12) C44 /
  // (4 C44 + 3 (C11 - C12)) (Hill 1952).
  const PolycrystalModuli fe = polycrystal_moduli(cubic_stiffness(c11, c12, c44));
  EXPECT_NEAR(fe.bulk_voigt, (c11 + 2 * c12) / 3, 1e-12 * c11);
  EXPECT_NEAR(fe.bulk_reuss, (c11 + 2 * c12) / 3, 1e-12 * c11);
  EXPECT_NEAR(fe.shear_voigt, (c11 - c12 + 3 * c44) / 5, 1e-12 * c11);
  EXPECT_NEAR(fe.shear_reuss, 5 * (c11 - c12) * c44 / (4 * c44 + 3 * (c11 - c12)), 1e-12 * c11);
}

Mesh box(Size n) { return generate_box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {n, n, n}, ElementType::Hex8); }

std::vector<Index> all_elements(const Mesh& mesh) {
  std::vector<Index> out(static_cast<std::size_t>(mesh.n_elements()));
  for (Index e = 0; e < mesh.n_elements(); ++e) out[static_cast<std::size_t>(e)] = e;
  return out;
}

TEST(Microstructure, VoronoiGrainsAreTheNearestSeedsCells) {
  const Mesh mesh = box(20);
  Microstructure micro;
  micro.size = 0.2;  // 0.95^3 / 0.2^3: 107 seeds over the box of the element centres
  micro.seed = 42;
  const Grains a = assign_grains(micro, mesh, all_elements(mesh), "iron");
  const Grains b = assign_grains(micro, mesh, all_elements(mesh), "iron");
  EXPECT_EQ(a.grain_of, b.grain_of);  // the same seed, the same grains
  EXPECT_GT(a.orientations.size(), 80u);
  EXPECT_LE(a.orientations.size(), 107u);
  micro.seed = 43;
  EXPECT_NE(assign_grains(micro, mesh, all_elements(mesh), "iron").grain_of, a.grain_of);
  // Each grain is a Voronoi cell: elements of one grain are nearer each other than the grain's
  // size many times over; and the cells are convex, so a grain's elements' centroid holds one of
  // its elements' grain... a direct check: elements of one grain have one nearest seed, which the
  // tessellation must have placed within the grain (all its elements within 2 sizes of its
  // centroid, a loose bound of a cell's extent).
  std::vector<std::array<double, 4>> sum(a.orientations.size(), {0.0, 0.0, 0.0, 0.0});
  std::vector<std::array<double, 3>> centre(static_cast<std::size_t>(mesh.n_elements()));
  for (Index e = 0; e < mesh.n_elements(); ++e) {
    std::array<double, 3> c{};
    for (const Index n : mesh.blocks[0].nodes(e))
      for (int d = 0; d < 3; ++d) c[static_cast<std::size_t>(d)] += mesh.node(n)[static_cast<std::size_t>(d)] / 8.0;
    centre[static_cast<std::size_t>(e)] = c;
    auto& s = sum[static_cast<std::size_t>(a.grain_of[static_cast<std::size_t>(e)])];
    for (int d = 0; d < 3; ++d) s[static_cast<std::size_t>(d)] += c[static_cast<std::size_t>(d)];
    s[3] += 1.0;
  }
  for (Index e = 0; e < mesh.n_elements(); ++e) {
    const auto& s = sum[static_cast<std::size_t>(a.grain_of[static_cast<std::size_t>(e)])];
    const double dx = centre[static_cast<std::size_t>(e)][0] - s[0] / s[3], dy = centre[static_cast<std::size_t>(e)][1] - s[1] / s[3],
                 dz = centre[static_cast<std::size_t>(e)][2] - s[2] / s[3];
    EXPECT_LT(std::sqrt(dx * dx + dy * dy + dz * dz), 2.0 * micro.size) << e;
  }
  // Random orientations average to zero (the Haar measure's mean rotation matrix): each entry's
  // mean within 4 standard errors (1 / sqrt(3 n)).
  double mean[9] = {};
  for (const Orientation& g : a.orientations)
    for (std::size_t i = 0; i < 9; ++i) mean[i] += g[i] / static_cast<double>(a.orientations.size());
  for (double m : mean) EXPECT_LT(std::abs(m), 4.0 / std::sqrt(3.0 * static_cast<double>(a.orientations.size())));
}

TEST(Microstructure, ElongatedGrainsAndAFibreTexture) {
  const Mesh mesh = box(20);
  Microstructure micro;
  micro.size = 0.1;
  micro.elongation = {1.0, 1.0, 10.0};  // columns along z
  micro.fibre_texture = true;
  micro.fibre = {0.0, 0.0, 1.0};
  const Grains g = assign_grains(micro, mesh, all_elements(mesh), "weld");
  // Every grain's <001> along z, and the grains span z: the elements of a column (the same x, y)
  // share few grains.
  for (const Orientation& o : g.orientations) EXPECT_NEAR(o[8], 1.0, 1e-12);
  std::size_t changes = 0, steps = 0;
  for (Index e = 0; e + 400 < mesh.n_elements(); ++e, ++steps)
    changes += g.grain_of[static_cast<std::size_t>(e)] != g.grain_of[static_cast<std::size_t>(e + 400)];  // next in z
  EXPECT_LT(static_cast<double>(changes), 0.05 * static_cast<double>(steps));
  // A spread tilts them: mean |tilt| of a Gaussian of 10 degrees, sqrt(2 / pi) x 10 = 8.0 degrees.
  micro.spread = 10.0 * degree;
  double tilt = 0.0;
  const Grains spread = assign_grains(micro, mesh, all_elements(mesh), "weld");
  for (const Orientation& o : spread.orientations) tilt += std::acos(std::min(1.0, o[8])) / degree;
  tilt /= static_cast<double>(spread.orientations.size());
  EXPECT_NEAR(tilt, 8.0, 2.5);  // few grains (about 100): a loose bound
}

class Grained : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::temporary_directory("grains"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  const log::Quiet quiet_;
  std::string dir_;
};

const std::string iron_box =
    "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\nsize = [1, 1, 1]\ndivisions = [2, 2, 2]\n"  // 1-5
    "[[material]]\nname = \"iron\"\ndensity = 7870\n"                                              // 6-8
    "stiffness = [231.4e9, 134.7e9, 134.7e9, 0, 0, 0, 231.4e9, 134.7e9, 0, 0, 0, 231.4e9, 0, 0, 0, "
    "116.4e9, 0, 0, 116.4e9, 0, 116.4e9]\n";                                                        // 9

TEST_F(Grained, AGrainsFileOrientsEachElement) {
  std::ofstream(dir_ + "/grains.csv") << "element,phi1,Phi,phi2\n1,45,0,0\n2,45,0,0\n3,0,0,0\n4,0,0,0\n"
                                         "5,10,20,30\n6,10,20,30\n7,0,0,0\n8,45,0,0\n";
  const Model model = io::read_model_buffer(iron_box + "grains = { file = \"grains.csv\" }\n", "m.toml", dir_);
  ASSERT_TRUE(model.materials[0].grains);
  const ElementMaterials rows = element_materials(model);
  ASSERT_EQ(rows.rows.size(), 1u + 3u);  // the section, then three distinct orientations
  const Voigt6 turned = rotated_stiffness(model.materials[0].stiffness, bunge_orientation(45 * degree, 0, 0));
  for (Index e = 0; e < 8; ++e) {
    const Label label = model.mesh.element_label(e);
    const Material& m = *rows.of(e);
    if (label == 1 || label == 2 || label == 8) {
      EXPECT_EQ(m.stiffness, turned) << label;
    }
    if (label == 3 || label == 4 || label == 7) {
      EXPECT_EQ(m.stiffness, model.materials[0].stiffness) << label;
    }
  }
  const auto fails = [&](const std::string& text, const std::string& file) {
    std::ofstream(dir_ + "/g.csv") << file;
    return test::error_of([&] { (void)element_materials(io::read_model_buffer(iron_box + text, "m.toml", dir_)); });
  };
  const std::string g = dir_ + "/g.csv";
  test::expect_contains(fails("grains = { file = \"g.csv\" }\n", "1,0,0,0\n2,0,0\n"), {g + ":2: 3 fields"});
  test::expect_contains(fails("grains = { file = \"g.csv\" }\n", "1,0,0,0\n9,0,0,0\n"),
                        {g + ":2: 9 is not the label of an element"});
  test::expect_contains(fails("grains = { file = \"g.csv\" }\n", "1,0,0,0\n1,0,5,0\n"),
                        {g + ":2: element 1 is given an orientation twice (also at line 1)"});
  test::expect_contains(fails("grains = { file = \"g.csv\" }\n", "1,0,x,0\n"), {g + ":1: field 3 'x'"});
  test::expect_contains(fails("grains = { file = \"g.csv\" }\n", "1,0,0,0\n"),
                        {"m.toml:10: element 2 of material 'iron' has no orientation in " + g});
}

TEST_F(Grained, GrainsInTheModelFile) {
  const Model model = io::read_model_buffer(iron_box + "[material.grains]\nsize = 0.5\nseed = 9\n", "m.toml", dir_);
  ASSERT_TRUE(model.materials[0].grains);
  EXPECT_EQ(model.materials[0].grains->seed, 9u);
  EXPECT_EQ(model.materials[0].grains->origin, "m.toml:10");
  const auto error = [&](const std::string& text) {
    return test::error_of([&] { (void)io::read_model_buffer(text, "m.toml", dir_); });
  };
  test::expect_contains(error(iron_box + "grains = { size = 0.5, file = \"x\" }\n"), {"m.toml:10", "not both"});
  test::expect_contains(error(iron_box + "grains = { size = -1 }\n"), {"m.toml:10", "'size'"});
  test::expect_contains(error(iron_box + "grains = { size = 0.5, fibre = [0, 0, 1] }\n"),
                        {"m.toml:10", "give texture = \"fibre\""});
  test::expect_contains(error(iron_box + "grains = { size = 0.5, texture = \"fibre\" }\n"),
                        {"m.toml:10", "needs 'fibre'"});
  test::expect_contains(error(iron_box + "grains = { size = 0.5, elongation = [1, 0, 1] }\n"),
                        {"m.toml:10", "'elongation'[1] is 0"});
  test::expect_contains(error("[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\nsize = [1, 1, 1]\ndivisions = [2, 2, 2]\n"
                              "[[material]]\nname = \"steel\"\ndensity = 7850\nyoungs_modulus = 210e9\n"
                              "poisson_ratio = 0.3\ngrains = { size = 0.5 }\n"),
                        {"m.toml:11", "'grains' orient an anisotropic crystal; material 'steel' is isotropic"});
}

}  // namespace
}  // namespace tremor
