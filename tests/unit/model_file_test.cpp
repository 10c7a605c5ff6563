#include "tremor/io/model_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/load.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/attenuation.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// Most models below start from these blocks; their line counts matter for the line assertions.
const std::string box_mesh =  // lines 1-5
    "[mesh]\n"
    "generator = \"box\"\n"
    "element = \"hex8\"\n"
    "size = [1, 2, 3]\n"
    "divisions = [2, 2, 2]\n";
const std::string rectangle_mesh =  // lines 1-5
    "[mesh]\n"
    "generator = \"rectangle\"\n"
    "element = \"quad4\"\n"
    "size = [0.2, 0.1]\n"
    "divisions = [4, 2]\n";
const std::string steel =  // 5 lines
    "[[material]]\n"
    "name = \"steel\"\n"
    "density = 7850\n"
    "youngs_modulus = 210e9\n"
    "poisson_ratio = 0.3\n";

constexpr double E = 210e9, nu = 0.3, rho = 7850.0;

class ModelFile : public ::testing::Test {
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

// The message must start "m.toml:LINE: " (LINE 0: no line) and contain every piece.
void expect_error(const std::string& text, long line, const std::vector<std::string>& pieces) {
  const std::string message = error_of(text);
  const std::string prefix = line > 0 ? str("m.toml:", line, ": ") : std::string("m.toml: ");
  EXPECT_EQ(message.substr(0, prefix.size()), prefix) << message;
  for (const auto& piece : pieces)
    EXPECT_NE(message.find(piece), std::string::npos) << "'" << piece << "' not in: " << message;
}

void expect_same_stiffness(const Material& a, const Material& b) {
  // Conversions between constants go through a few divisions: 1e-12 relative to the modulus.
  const double scale = std::max(std::abs(b.c(0, 0)), 1.0);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_NEAR(a.c(i, j), b.c(i, j), 1e-12 * scale) << "C" << i + 1 << j + 1;
}

TEST_F(ModelFile, FullGeneratedModel) {
  const Model model = parse(R"(title = "two-layer block"
[mesh]
generator = "box"
element = "hex20"
origin = [1.0, -0.5, 0]
size = [0.4, 0.2, 0.1]
divisions = [4, 2, 2]
grading = [1, 1.5, 1]

[[mesh.node_set]]
name = "source"
min = [1.2, -0.5, 0.1]
max = [1.2, 1, 0.1]

[[mesh.element_set]]
name = "top"
min = [-10, -10, 0.05]
max = [10, 10, 10]

[[mesh.element_set]]
name = "bottom"
min = [-10, -10, -10]
max = [10, 10, 0.05]

[[material]]
name = "steel"
density = 7850
youngs_modulus = 210e9
poisson_ratio = 0.3
damping_alpha = 12.5
damping_beta = 2e-8

[[material]]
name = "aluminium"
density = 2700.0
p_wave_speed = 6320.0
s_wave_speed = 3130.0

[[section]]
element_set = "bottom"
material = "steel"

[[section]]
element_set = "top"
material = "aluminium"
formulation = "solid"
)");
  EXPECT_EQ(model.title, "two-layer block");
  EXPECT_EQ(model.source, "m.toml");
  EXPECT_EQ(model.mesh.dim(), 3);
  EXPECT_EQ(model.mesh.n_elements(), 16);
  // hex20 on 4 x 2 x 2 cells: 45 vertices + 36 + 30 + 30 mid-edge nodes on x, y and z edges.
  EXPECT_EQ(model.mesh.n_nodes(), 141);
  double lower[3], upper[3];
  model.mesh.bounding_box(lower, upper);
  // The generator places the end points at origin and origin + size up to one rounding.
  const double expected_lower[3] = {1.0, -0.5, 0.0}, expected_upper[3] = {1.4, -0.3, 0.1};
  for (int d = 0; d < 3; ++d) {
    EXPECT_NEAR(lower[d], expected_lower[d], 1e-15);
    EXPECT_NEAR(upper[d], expected_upper[d], 1e-15);
  }
  // y grading 1.5 over 2 cells: sizes 0.08 and 0.12.
  bool found = false;
  for (Index i = 0; i < model.mesh.n_nodes(); ++i) found = found || std::abs(model.mesh.node(i)[1] + 0.42) < 1e-14;
  EXPECT_TRUE(found);

  // The line x = 1.2, z = 0.1 along y holds 3 vertices and 2 mid-edge nodes.
  const auto& source = model.mesh.node_sets.at("source");
  EXPECT_EQ(source.size(), 5u);
  for (Index i : source) {
    EXPECT_NEAR(model.mesh.node(i)[0], 1.2, 1e-15);  // rounding of 1.0 + 0.4 * 2/4
    EXPECT_NEAR(model.mesh.node(i)[2], 0.1, 1e-15);
  }
  EXPECT_EQ(model.mesh.element_sets.at("top").size(), 8u);
  EXPECT_EQ(model.mesh.element_sets.at("bottom").size(), 8u);
  EXPECT_EQ(model.mesh.element_sets.at("all").size(), 16u);
  EXPECT_TRUE(model.mesh.node_sets.count("zmax"));

  ASSERT_EQ(model.materials.size(), 2u);
  expect_same_stiffness(model.materials[0], Material::from_youngs("x", E, nu, rho));
  EXPECT_EQ(model.materials[0].density, 7850.0);
  EXPECT_EQ(model.materials[0].damping_alpha, 12.5);
  EXPECT_EQ(model.materials[1].damping_alpha, 0.0);
  EXPECT_EQ(model.materials[0].damping_beta, 2e-8);
  EXPECT_EQ(model.materials[1].damping_beta, 0.0);
  // mu = rho c_s^2 exactly as the definition of the shear speed.
  EXPECT_NEAR(model.materials[1].mu(), 2700.0 * 3130.0 * 3130.0, 1e-6);
  ASSERT_EQ(model.sections.size(), 2u);
  EXPECT_EQ(model.sections[0].element_set, "bottom");
  EXPECT_EQ(model.sections[0].material, "steel");
  EXPECT_EQ(model.sections[0].formulation, Formulation::Solid);
  EXPECT_EQ(model.sections[1].material, "aluminium");
  const auto owners = model.element_sections();
  EXPECT_EQ(std::count(owners.begin(), owners.end(), 0), 8);
  EXPECT_EQ(std::count(owners.begin(), owners.end(), 1), 8);
}

TEST_F(ModelFile, EveryFormOfElasticConstants) {
  const Material reference = Material::from_youngs("r", E, nu, rho);
  const double lambda = reference.lambda(), mu = reference.mu();
  const std::string rows = [&] {
    std::string text = "[";
    for (int i = 0; i < 6; ++i) {
      text += i ? ",\n  [" : "\n  [";
      for (int j = 0; j < 6; ++j) text += str(j ? ", " : "", reference.c(i, j));
      text += "]";
    }
    return text + "]";
  }();
  std::string triangle = "[";
  for (int i = 0; i < 6; ++i)
    for (int j = i; j < 6; ++j) triangle += str(triangle.size() > 1 ? ", " : "", reference.c(i, j));
  triangle += "]";
  const double G = E / (2.0 * (1.0 + nu));
  const std::vector<std::string> forms = {
      str("youngs_modulus = ", E, "\npoisson_ratio = ", nu),
      str("lame_lambda = ", lambda, "\nshear_modulus = ", mu),
      str("p_wave_speed = ", reference.max_wave_speed(), "\ns_wave_speed = ", reference.min_wave_speed()),
      str("stiffness = ", rows),
      str("stiffness = ", triangle),
      str("youngs_moduli = [", E, ", ", E, ", ", E, "]\npoisson_ratios = [", nu, ", ", nu, ", ", nu,
          "]\nshear_moduli = [", G, ", ", G, ", ", G, "]"),
  };
  for (const auto& form : forms) {
    SCOPED_TRACE(form);
    // str() writes 10 significant digits, so the constants agree to ~1e-10 relative.
    const Model model = parse(box_mesh + "[[material]]\nname = \"m\"\ndensity = 7850\n" + form + "\n");
    ASSERT_EQ(model.materials.size(), 1u);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) EXPECT_NEAR(model.materials[0].c(i, j), reference.c(i, j), 1e-9 * E);
  }
  // A genuinely anisotropic stiffness keeps its off-diagonal terms, in Voigt order.
  const Model model = parse(box_mesh + R"([[material]]
name = "crystal"
density = 2330
stiffness = [165.7e9, 63.9e9, 63.9e9, 0, 0, 1e9,
                      165.7e9, 63.9e9, 0, 0, 0,
                               165.7e9, 0, 0, 0,
                                    79.6e9, 0, 0,
                                        79.6e9, 0,
                                            79.6e9]
)");
  const Material& crystal = model.materials[0];
  EXPECT_FALSE(crystal.isotropic);
  EXPECT_EQ(crystal.c(0, 1), 63.9e9);
  EXPECT_EQ(crystal.c(5, 0), 1e9);
  EXPECT_EQ(crystal.c(0, 5), 1e9);
  EXPECT_EQ(crystal.c(3, 3), 79.6e9);
}

TEST_F(ModelFile, DefaultSectionAndDefaults) {
  {
    const Model model = parse(rectangle_mesh + steel);
    EXPECT_EQ(model.title, "");
    EXPECT_EQ(model.mesh.dim(), 2);
    ASSERT_EQ(model.sections.size(), 1u);
    EXPECT_EQ(model.sections[0].element_set, "all");
    EXPECT_EQ(model.sections[0].material, "steel");
    EXPECT_EQ(model.sections[0].formulation, Formulation::PlaneStrain);
    EXPECT_EQ(model.sections[0].thickness, 1.0);
    // origin defaults to 0 and grading to 1: the first cell is 0.2 / 4 wide.
    EXPECT_EQ(model.mesh.node(0)[0], 0.0);
    EXPECT_NEAR(model.mesh.node(1)[0], 0.05, 1e-17);  // one rounding
  }
  {
    const Model model = parse(box_mesh + steel);
    ASSERT_EQ(model.sections.size(), 1u);
    EXPECT_EQ(model.sections[0].formulation, Formulation::Solid);
  }
  {
    // A section naming only its material and formulation takes every element.
    const Model model = parse(rectangle_mesh + steel +
                              "[[section]]\nmaterial = \"steel\"\nformulation = \"plane_stress\"\nthickness = 2e-3\n");
    ASSERT_EQ(model.sections.size(), 1u);
    EXPECT_EQ(model.sections[0].element_set, "all");
    EXPECT_EQ(model.sections[0].formulation, Formulation::PlaneStress);
    EXPECT_EQ(model.sections[0].thickness, 2e-3);
  }
  {
    // A mesh alone is a valid model (nothing to run yet, but `tremor info` can describe it).
    const Model model = parse(box_mesh);
    EXPECT_TRUE(model.materials.empty());
    EXPECT_TRUE(model.sections.empty());
    EXPECT_EQ(model.mesh.n_elements(), 8);
  }
  {
    // Every element type the generators know, by its model-file name.
    const std::pair<const char*, const char*> rectangles[] = {
        {"tri3", "tri3"}, {"tri6", "tri6"}, {"quad8", "quad8"}, {"quad9", "quad-gll2"}, {"quad-gll4", "quad-gll4"}};
    for (const auto& [element, name] : rectangles) {
      const Model model = parse(
          str("[mesh]\ngenerator = \"rectangle\"\nelement = \"", element, "\"\nsize = [1, 1]\ndivisions = [2, 3]\n"));
      EXPECT_EQ(element_name(model.mesh.blocks[0].type, model.mesh.blocks[0].order), name);
    }
    const std::pair<const char*, const char*> boxes[] = {
        {"tet4", "tet4"}, {"tet10", "tet10"}, {"hex27", "hex-gll2"}, {"hex-gll3", "hex-gll3"}};
    for (const auto& [element, name] : boxes) {
      const Model model = parse(
          str("[mesh]\ngenerator = \"box\"\nelement = \"", element, "\"\nsize = [1, 1, 1]\ndivisions = [1, 2, 1]\n"));
      EXPECT_EQ(element_name(model.mesh.blocks[0].type, model.mesh.blocks[0].order), name);
    }
  }
}

TEST_F(ModelFile, ReservedTablesWarnWithTheirLine) {
  const Model model = parse(box_mesh + steel + "\n[sem]\norder = 4\n\n[[bem]]\nname = \"r\"\n");
  EXPECT_EQ(model.materials.size(), 1u);
  const auto warnings = log::take_warnings();
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("m.toml:12: [sem] is reserved"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("m.toml:15: [bem] is reserved"), std::string::npos) << warnings[1];
}

TEST_F(ModelFile, SyntaxAndTopLevelErrors) {
  expect_error("title = \"x\"\n[mesh]\nsize = [1, 2\ngenerator = \"box\"\n", 4, {"TOML syntax error"});
  expect_error("title = \"x\"\ntitle = \"y\"\n", 2, {"TOML syntax error", "title"});
  expect_error("title = 3\n" + box_mesh, 1, {"top level", "'title' must be a string, got an integer"});
  expect_error(box_mesh + "\n[materal]\nname = \"x\"\n", 7, {"unknown key 'materal'", "did you mean 'material'?"});
  expect_error(box_mesh + "\n[sources]\nx = 1\n", 7, {"unknown key 'sources'", "did you mean 'source'?"});
  expect_error("zzz = 1\n" + box_mesh, 1, {"unknown key 'zzz'", "expected one of: title, mesh, material, section"});
  expect_error(box_mesh + "\nzzz = 1\n", 7, {"[mesh]: unknown key 'zzz'", "expected one of: file, generator"});
  expect_error(std::string(100, 'm') + " = 1\n" + box_mesh, 1, {"expected one of: title"});  // too long to be a typo
  expect_error(box_mesh + steel + "poisson = 0.3\n", 11, {"unknown key 'poisson'; did you mean 'poisson_ratio'?"});
  expect_error("title = \"no mesh\"\n", 0, {"missing [mesh]"});
  expect_error("mesh = 3\n", 1, {"'mesh' must be a table ([mesh]), got an integer"});
  expect_error(box_mesh + "[material]\nname = \"steel\"\n", 6,
               {"'material' must be an array of tables", "[[material]]"});
  expect_error(box_mesh + steel + "[section]\nmaterial = \"steel\"\n", 11, {"[[section]]"});
}

TEST_F(ModelFile, MeshErrors) {
  const auto mesh = [](const std::string& lines) { return "title = \"t\"\n[mesh]\n" + lines; };  // keys from line 3
  expect_error(mesh("generator = \"box\"\nfile = \"a.msh\"\n"), 3, {"[mesh]", "either 'file'", "not both"});
  expect_error(mesh("element = \"hex8\"\n"), 2, {"missing 'file'", "or 'generator'"});
  expect_error(mesh("generator = \"rectangel\"\n"), 3, {"unknown generator 'rectangel'", "did you mean 'rectangle'?"});
  expect_error(mesh("generator = \"box\"\nsize = [1, 1, 1]\ndivisions = [1, 1, 1]\n"), 2, {"missing 'element'"});
  expect_error(mesh("generator = \"box\"\nelement = \"hex9\"\n"), 4, {"unknown element type 'hex9'", "hex20"});
  expect_error(mesh("generator = \"box\"\nelement = \"hex-gll12\"\n"), 4, {"GLL order must be 1..8"});
  expect_error(mesh("generator = \"rectangle\"\nelement = \"hex8\"\n"), 4,
               {"element 'hex8' is 3D", "rectangle generator takes tri3"});
  expect_error(mesh("generator = \"box\"\nelement = \"hex8\"\ndivisions = [1, 1, 1]\n"), 2, {"missing 'size'", "m)"});
  expect_error(mesh("generator = \"box\"\nelement = \"hex8\"\nsize = [1, 1]\n"), 5,
               {"'size' must be an array of 3 numbers, got an array of 2"});
  expect_error(mesh("generator = \"box\"\nelement = \"hex8\"\nsize = \"big\"\n"), 5,
               {"'size' must be an array of 3 numbers, got a string"});
  expect_error(mesh("generator = \"box\"\nelement = \"hex8\"\nsize = [1,\n 1,\n true]\n"), 7,
               {"'size'[2] must be a number, got a boolean"});
  expect_error(mesh("generator = \"box\"\nelement = \"hex8\"\nsize = [1, nan, 1]\n"), 5,
               {"'size'[1] must be a finite number"});
  expect_error(mesh("generator = \"box\"\nelement = \"hex8\"\nsize = [1, -1, 1]\ndivisions = [1, 1, 1]\n"), 5,
               {"'size'[1] is -1", "positive"});
  expect_error(mesh("generator = \"box\"\nelement = \"hex8\"\nsize = [1, 1, 1]\n"), 2, {"missing 'divisions'"});
  expect_error(mesh("generator = \"box\"\nelement = \"hex8\"\nsize = [1, 1, 1]\ndivisions = [1, 2.0, 1]\n"), 6,
               {"'divisions'[1] must be an integer, got a floating-point number"});
  expect_error(mesh("generator = \"box\"\nelement = \"hex8\"\nsize = [1, 1, 1]\ndivisions = [1, 1, 0]\n"), 6,
               {"'divisions'[2] is 0", "at least 1"});
  expect_error(mesh("generator = \"box\"\nelement = \"hex8\"\nsize = [1, 1, 1]\ndivisions = [1, 1, 1]\n"
                    "grading = [1, 0, 1]\n"),
               7, {"'grading'[1] is 0"});
  expect_error(mesh("generator = \"box\"\nelement = \"hex8\"\norigin = [0, 0, 1e308]\nsize = [1, 1, 1e308]\n"
                    "divisions = [1, 1, 1]\n"),
               6, {"'origin'[2] + 'size'[2] overflows"});
  // 10^12 cells: an error naming the counts, at the divisions line, before any allocation.
  expect_error(mesh("generator = \"box\"\nelement = \"tet4\"\nsize = [1, 1, 1]\n"
                    "divisions = [10000, 10000, 10000]\n"),
               6, {"10000 x 10000 x 10000 of tet4", "the limit is"});
  expect_error(mesh("generator = \"box\"\nelement = \"hex8\"\nsize = [1, 1, 1]\n"
                    "divisions = [9223372036854775807, 9223372036854775807, 9223372036854775807]\n"),
               6, {"the limit is"});
  expect_error(mesh("generator = \"rectangle\"\nelement = \"quad4\"\nsize = [1, 1]\ndivisions = [3000, 1]\n"
                    "grading = [0.5, 1]\n"),
               6, {"coincide"});
  expect_error(mesh("generator = \"box\"\nelement = \"hex8\"\nsize = [1, 1, 1]\ndivisons = [1, 1, 1]\n"), 6,
               {"[mesh]: unknown key 'divisons'", "did you mean 'divisions'?"});
  expect_error(mesh("file = \"a.msh\"\nelement = \"hex8\"\n"), 4, {"'element' belongs to generated meshes"});
  expect_error(mesh("file = 12\n"), 3, {"'file' must be a string, got an integer"});
  expect_error(mesh("file = \"\"\n"), 3, {"'file' is empty"});
  expect_error(mesh("file = \"part.msh\"\n"), 3, {"mesh file 'part.msh' cannot be read", "in memory"});
}

TEST_F(ModelFile, MeshFileErrorsAgainstAFolder) {
  const std::string dir = test::temporary_directory("model-file");
  std::ofstream(dir + "/part.vtk") << "not a mesh\n";
  const auto error = [&](const std::string& text) {
    try {
      io::read_model_buffer(text, "m.toml", dir);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string missing = error("[mesh]\nfile = \"nowhere.msh\"\n");
  EXPECT_EQ(missing.rfind("m.toml:2: [mesh]: mesh file 'nowhere.msh' not found", 0), 0u) << missing;
  EXPECT_NE(missing.find(dir + "/nowhere.msh"), std::string::npos) << missing;
  const std::string extension = error("[mesh]\nfile = \"part.vtk\"\n");
  EXPECT_EQ(extension.rfind("m.toml:2: [mesh]: mesh file 'part.vtk' has extension '.vtk'", 0), 0u) << extension;
  EXPECT_NE(extension.find("expected .msh (Gmsh) or .inp (Abaqus/CalculiX)"), std::string::npos);
  // A folder is not a mesh file.
  std::filesystem::create_directory(dir + "/sub.msh");
  const std::string folder = error("[mesh]\nfile = \"sub.msh\"\n");
  EXPECT_EQ(folder.rfind("m.toml:2: [mesh]: mesh file 'sub.msh' is a folder", 0), 0u) << folder;
}

TEST_F(ModelFile, BoxSetErrors) {
  const auto set = [](const std::string& kind, const std::string& lines) {
    return rectangle_mesh + "[[mesh." + kind + "]]\n" + lines;  // header on line 6, keys from 7
  };
  expect_error(set("node_set", "name = \"a\"\nmin = [0, 0]\nmax = [1, 1]\nmx = 1\n"), 10,
               {"[[mesh.node_set]] #1", "unknown key 'mx'", "did you mean 'max'?"});
  expect_error(set("node_set", "min = [0, 0]\nmax = [1, 1]\n"), 6, {"missing 'name'"});
  expect_error(set("node_set", "name = \"\"\n"), 7, {"'name' is empty"});
  expect_error(set("node_set", "name = \"xmin\"\nmin = [0, 0]\nmax = [1, 1]\n"), 7, {"node set 'xmin' already exists"});
  expect_error(set("element_set", "name = \"all\"\nmin = [0, 0]\nmax = [1, 1]\n"), 7,
               {"element set 'all' already exists"});
  expect_error(set("node_set", "name = \"a\"\nmax = [1, 1]\n"), 6, {"[[mesh.node_set]] #1 'a'", "missing 'min'"});
  expect_error(set("node_set", "name = \"a\"\nmin = [0, 0]\n"), 6, {"missing 'max'"});
  expect_error(set("node_set", "name = \"a\"\nmin = [0, 0, 0]\nmax = [1, 1]\n"), 8,
               {"'min' must be an array of 2 numbers, got an array of 3"});
  expect_error(set("node_set", "name = \"a\"\nmin = [0, 0.5]\nmax = [1, 0.25]\n"), 9,
               {"'max'[1] = 0.25 is below 'min'[1] = 0.5"});
  expect_error(set("element_set", "name = \"a\"\nmin = [5, 5]\nmax = [6, 6]\n"), 8,
               {"[[mesh.element_set]] #1 'a'", "the box holds no element centroid", "[0, 0.2] x [0, 0.1]"});
  expect_error(set("node_set", "name = \"a\"\nmin = [0.01, 0.01]\nmax = [0.02, 0.02]\n"), 8, {"the box holds no node"});
  expect_error(rectangle_mesh + "node_set = 3\n", 6, {"'node_set' must be an array of tables", "[[mesh.node_set]]"});
}

TEST_F(ModelFile, BoxSetsCatchNodesOnTheirFaces) {
  // The generator puts the eighth column of nodes at 0.1 * (7 / 10) = 0.06999999999999999, not
  // at the double nearest 0.07; the box min = max = 0.07 must still catch them.
  ASSERT_NE(0.1 * (7.0 / 10.0), 0.07);
  const Model model = parse(R"([mesh]
generator = "rectangle"
element = "quad8"
size = [0.1, 0.1]
divisions = [10, 10]
[[mesh.node_set]]
name = "line"
min = [0.07, 0]
max = [0.07, 0.1]
[[mesh.element_set]]
name = "corner"
min = [0, 0]
max = [0.01, 0.01]
)");
  // A vertical line of quad8 nodes through vertices: 11 vertices + 10 mid-edge nodes.
  EXPECT_EQ(model.mesh.node_sets.at("line").size(), 21u);
  EXPECT_EQ(model.mesh.element_sets.at("corner"), std::vector<Index>{0});
}

TEST_F(ModelFile, MaterialErrors) {
  const auto material = [](const std::string& lines) { return box_mesh + "[[material]]\n" + lines; };  // from line 7
  expect_error(material("name = \"s\"\ndensity = 1\nyoungs_modulous = 1e9\npoisson_ratio = 0.3\n"), 9,
               {"[[material]] #1: unknown key 'youngs_modulous'", "did you mean 'youngs_modulus'?"});
  expect_error(material("density = 1\n"), 6, {"missing 'name'"});
  expect_error(material("name = \"s\"\nyoungs_modulus = 1e9\npoisson_ratio = 0.3\n"), 6,
               {"[[material]] #1 's'", "missing 'density' (kg/m^3)"});
  expect_error(material("name = \"s\"\ndensity = \"heavy\"\n"), 8, {"'density' must be a number, got a string"});
  expect_error(material("name = \"s\"\ndensity = -1\n"), 8, {"'density' is -1", "positive"});
  expect_error(material("name = \"s\"\ndensity = inf\n"), 8, {"'density' must be a finite number"});
  expect_error(material("name = \"s\"\ndensity = 1\ndamping_alpha = -2\nyoungs_modulus = 1e9\npoisson_ratio = 0.3\n"),
               9, {"'damping_alpha' is -2"});
  expect_error(material("name = \"s\"\ndensity = 1\ndamping_beta = -1e-9\nyoungs_modulus = 1e9\npoisson_ratio = 0.3\n"),
               9, {"'damping_beta' is -1e-09", "non-negative time, s"});
  // Attenuation: quality factors within (1, 1e5), in pairs; its other keys only with one.
  const std::string rock = "name = \"r\"\ndensity = 2000\np_wave_speed = 2000\ns_wave_speed = 1000\n";
  {
    // An anisotropic stiffness takes Q on its bulk and shear parts.
    const Model model = parse(material("name = \"a\"\ndensity = 1500\nstiffness = [1.4e11, 6e9, 6e9, 0, 0, 0, "
                                       "1.2e10, 5e9, 0, 0, 0, 1.2e10, 0, 0, 0, 3.5e9, 0, 0, 5e9, 0, 5e9]\n"
                                       "q_p = 40\nq_s = 25\n"));
    ASSERT_TRUE(model.materials[0].attenuation);
    EXPECT_FALSE(model.materials[0].isotropic);
    EXPECT_EQ(model.materials[0].attenuation->q_s, 25.0);
  }
  expect_error(material(rock + "q_p = 1\nq_s = 20\n"), 11, {"'q_p' is 1", "quality factor within (1, 100000)"});
  expect_error(material(rock + "q_p = 50\nq_s = 1e5\n"), 12, {"'q_s' is 100000"});
  expect_error(material(rock + "q_p = 50\n"), 11, {"give q_p and q_s together"});
  expect_error(material(rock + "q_p = 50\nq_s = 20\nq_mu = 20\n"), 13, {"either q_p and q_s", "not both"});
  expect_error(material(rock + "q_band = [10, 100]\n"), 11, {"'q_band' without a quality factor"});
  expect_error(material(rock + "q_mu = 20\nq_band = [100, 10]\n"), 12, {"'q_band' is [100, 10]", "0 < f_min < f_max"});
  expect_error(material(rock + "q_mu = 20\nq_solids = 9\n"), 12, {"'q_solids' is 9", "1 to 8"});
  expect_error(material(rock + "q_coarse_grained = true\n"), 11, {"'q_coarse_grained' without a quality factor"});
  expect_error(material(rock + "q_mu = 20\nq_coarse_grained = 1\n"), 12, {"'q_coarse_grained' must be"});
  EXPECT_TRUE(parse(material(rock + "q_mu = 20\nq_coarse_grained = true\n")).materials[0].attenuation->coarse_grained);
  EXPECT_FALSE(parse(material(rock + "q_mu = 20\n")).materials[0].attenuation->coarse_grained);
  expect_error(material(rock + "q_mu = 20\nreference_frequency = -1\n"), 12, {"'reference_frequency' is -1"});
  {
    // Found wrong once the sources are known (the band against their frequencies), a material's
    // errors still name its line; so does a section's.
    const Model model = parse(material(rock + "q_mu = 20\nq_band = [10, 100]\n") +
                              "[[source]]\nposition = [0.5, 1.0, 3.0]\ndirection = [0, 0, 1]\namplitude = 1.0\n"
                              "signal = { kind = \"ricker\", frequency = 1e6 }\n");
    EXPECT_EQ(model.materials[0].origin, "m.toml:6");
    test::expect_contains(test::error_of([&] { (void)resolve_attenuation(model, model.materials[0]); }),
                          {"m.toml:6: material 'r': its q_band [10, 100] Hz does not contain"});
    const Model two = parse(material(rock) + "[[section]]\nelement_set = \"all\"\nmaterial = \"r\"\n");
    EXPECT_EQ(two.sections[0].origin, "m.toml:11");
  }
  expect_error(material("name = \"s\"\ndensity = 1\n"), 6, {"give exactly one set of elastic constants", "got none"});
  expect_error(material("name = \"s\"\ndensity = 1\nyoungs_modulus = 1e9\nshear_modulus = 1e9\n"), 9,
               {"exactly one set", "got youngs_modulus, shear_modulus"});
  expect_error(material("name = \"s\"\ndensity = 1\nshear_modulus = 1e9\n"), 9, {"got shear_modulus"});
  expect_error(material("name = \"s\"\ndensity = 1\nyoungs_modulus = 1e9\npoisson_ratio = 0.3\nstiffness = [1, 2]\n"),
               9, {"got youngs_modulus, poisson_ratio, stiffness"});
  expect_error(material("name = \"s\"\ndensity = 1\nyoungs_modulus = 1e9\npoisson_ratio = 0.6\n"), 9,
               {"material 's': Poisson's ratio must lie in (-1, 0.5), got 0.6"});
  expect_error(material("name = \"s\"\ndensity = 1\nyoungs_modulus = 1e9\npoisson_ratio = \"0.3\"\n"), 10,
               {"'poisson_ratio' must be a number, got a string"});
  expect_error(material("name = \"s\"\ndensity = 1\np_wave_speed = 1000\ns_wave_speed = 1000\n"), 9,
               {"c_p = 1000 must exceed"});
  expect_error(material("name = \"s\"\ndensity = 1\nstiffness = [1, 2, 3]\n"), 9,
               {"'stiffness' must be 6 rows of 6 numbers or 21 numbers", "got an array of 3"});
  expect_error(material("name = \"s\"\ndensity = 1\nstiffness = [[1,0,0,0,0,0],[0,1,0,0,0,0],[0,0,1,0,0,0],\n"
                        "[0,0,0,1,0,0],[0,0,0,0,1,0],[0,0,0,0,1]]\n"),
               10, {"row 6 is an array of 5"});
  expect_error(material("name = \"s\"\ndensity = 1\nstiffness = [[1,0,0,0,0,0],[0,1,0,0,0,0],[0,0,1,0,0,0],\n"
                        "[0,0,0,1,0,0],[0,0,0,0,1,0],[0.5,0,0,0,0,1]]\n"),
               9, {"stiffness is not symmetric"});
  expect_error(material("name = \"s\"\ndensity = 1\nstiffness = [1,0,0,0,0,0, 1,0,0,0,0, 1,0,0,0, -1,0,0, 1,0, 1]\n"),
               9, {"not positive definite"});
  expect_error(
      material("name = \"s\"\ndensity = 1\nstiffness = [1,0,0,0,0,0, 1,0,0,0,0, 1,0,0,0, 1,0,0, 1,0, \"x\"]\n"), 9,
      {"'stiffness'[20] must be a number, got a string"});
  expect_error(material("name = \"s\"\ndensity = 1\nyoungs_moduli = [1e9, 1e9]\npoisson_ratios = [0.3, 0.3, 0.3]\n"
                        "shear_moduli = [1e9, 1e9, 1e9]\n"),
               9, {"'youngs_moduli' must be an array of 3 numbers"});
  expect_error(box_mesh + steel + steel, 12, {"material 'steel' is already defined at line 7"});
}

TEST_F(ModelFile, SectionErrors) {
  const std::string two = box_mesh + steel + "[[material]]\nname = \"glass\"\ndensity = 2500\n" +
                          "youngs_modulus = 70e9\npoisson_ratio = 0.22\n";                       // 15 lines
  const auto section = [&](const std::string& lines) { return two + "[[section]]\n" + lines; };  // keys from 17
  expect_error(two, 6, {"2 materials but no [[section]]"});
  expect_error(section("material = \"steel\"\nelement_sett = \"all\"\n"), 18,
               {"[[section]] #1: unknown key 'element_sett'", "did you mean 'element_set'?"});
  expect_error(section("element_set = \"al\"\nmaterial = \"steel\"\n"), 17,
               {"no element set named 'al' (did you mean 'all'?)", "the mesh has 'all'"});
  expect_error(section("element_set = \"all\"\nmaterial = \"stel\"\n"), 18,
               {"no material named 'stel' (did you mean 'steel'?)", "'steel', 'glass'"});
  expect_error(section("element_set = \"all\"\n"), 16, {"missing 'material'"});
  expect_error(section("material = \"steel\"\nformulation = \"solids\"\n"), 18,
               {"unknown formulation 'solids' (did you mean 'solid'?)"});
  expect_error(section("material = \"steel\"\nformulation = \"plane_strain\"\n"), 18,
               {"formulation 'plane_strain' does not fit a 3D mesh", "\"solid\""});
  expect_error(section("material = \"steel\"\nthickness = 1e-3\n"), 18, {"'thickness' applies to 2D sections only"});
  expect_error(section("material = \"steel\"\n[[section]]\nmaterial = \"glass\"\n"), 18,
               {"[[section]] #2", "already has a section: the one on 'all' at line 16"});
  expect_error(two + "[[mesh.element_set]]\nname = \"low\"\nmin = [0, 0, 0]\nmax = [1, 2, 1.4]\n" +
                   "[[section]]\nelement_set = \"low\"\nmaterial = \"glass\"\n",
               20, {"[[section]] #1", "element ", "and 3 others have no section"});
  expect_error(rectangle_mesh + steel + "[[section]]\nmaterial = \"steel\"\nformulation = \"solid\"\n", 13,
               {"formulation 'solid' does not fit a 2D mesh"});
  expect_error(rectangle_mesh + steel + "[[section]]\nmaterial = \"steel\"\nthickness = 0\n", 13, {"'thickness' is 0"});
}

TEST_F(ModelFile, ReadsFilesAndDispatchesByExtension) {
  const Model model = io::read_model_file(test::data_path("model/plate.toml"));
  EXPECT_EQ(model.title, "plate for the reader tests");
  EXPECT_EQ(model.mesh.n_elements(), 12);
  EXPECT_NE(model.source.find("plate.toml"), std::string::npos);
  const Model same = io::load_model(test::data_path("model/plate.toml"));
  EXPECT_EQ(same.mesh.n_nodes(), model.mesh.n_nodes());

  const std::string missing = [] {
    try {
      io::read_model_file("/nonexistent/model.toml");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  }();
  EXPECT_EQ(missing, "/nonexistent/model.toml: no such model file");
  const std::string folder = [] {
    try {
      io::read_model_file(test::data_path("model"));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  }();
  EXPECT_NE(folder.find("model: not a regular file; expected a model file"), std::string::npos) << folder;
  const std::string unknown = [] {
    try {
      io::load_model("part.vtu");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  }();
  EXPECT_NE(unknown.find("part.vtu: unknown kind of input '.vtu'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find(".toml (tremor model file), .inp (Abaqus/CalculiX input) or .msh (Gmsh mesh)"),
            std::string::npos);
  // Errors in a file name the file as given.
  const std::string dir = test::temporary_directory("model-file");
  std::ofstream(dir + "/bad.toml") << box_mesh << "[[material]]\nname = \"x\"\n";
  try {
    io::read_model_file(dir + "/bad.toml");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(dir + "/bad.toml:6: [[material]] #1 'x': missing 'density'", 0), 0u)
        << e.what();
  }
}

// The ```toml blocks of docs/model-file.md, in order.
std::vector<std::string> documented_models() { return test::fenced_blocks("docs/model-file.md", "toml"); }

TEST_F(ModelFile, DocumentedExampleParses) {
  const auto blocks = documented_models();
  ASSERT_GE(blocks.size(), 1u) << "no ```toml block in docs/model-file.md";
  const Model model = io::read_model_buffer(blocks[0], "docs/model-file.md", "");
  // The complete example: a graded 3D steel block with an aluminium layer on top.
  EXPECT_EQ(model.mesh.dim(), 3);
  EXPECT_EQ(model.mesh.blocks[0].type, ElementType::Hex8);
  EXPECT_EQ(model.mesh.n_elements(), 40 * 20 * 8);
  ASSERT_EQ(model.materials.size(), 2u);
  expect_same_stiffness(model.materials[0], Material::from_youngs("steel", E, nu, rho));
  EXPECT_EQ(model.sections.size(), 2u);
  EXPECT_TRUE(model.mesh.node_sets.count("source"));
  EXPECT_TRUE(model.mesh.element_sets.count("coating"));
  // Its [explicit], [[source]] and [[receiver]] are read (model_file_source_test.cpp checks them).
  EXPECT_TRUE(model.explicit_settings.has_value());
  EXPECT_TRUE(log::take_warnings().empty());
  // Every other block is a complete model too; mesh files they name are in tests/data/model.
  ASSERT_GE(blocks.size(), 4u);
  for (std::size_t b = 1; b < blocks.size(); ++b) {
    SCOPED_TRACE(blocks[b]);
    EXPECT_NO_THROW(io::read_model_buffer(blocks[b], "docs/model-file.md", test::data_path("model")));
  }
}

TEST_F(ModelFile, PlateExampleParses) {
  const Model model = io::read_model_file(test::data_path("../../examples/plate-2d/model.toml"));
  EXPECT_EQ(model.mesh.dim(), 2);
  EXPECT_EQ(model.mesh.blocks[0].type, ElementType::Quad4);
  ASSERT_EQ(model.sections.size(), 1u);
  EXPECT_EQ(model.sections[0].formulation, Formulation::PlaneStrain);
  EXPECT_TRUE(model.mesh.node_sets.count("source"));
}

}  // namespace
}  // namespace tremor
