// The boundary-element model file (io/bem_model_file.hpp): every key read into a BemProblem with
// its default, the three mesh generators and a Gmsh surface file with its element sets, and every
// error naming the file, the line and the key; the documented examples parse as written.
#include "tremor/io/bem_model_file.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/bem/driver.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

#define EXPECT_CONTAINS(text, part) EXPECT_NE((text).find(part), std::string::npos) << "'" << (text) << "'"

// A spherical cavity: the smallest complete model (lines 1-13).
const std::string cavity =
    "title = \"cavity\"\n"
    "[bem]\n"
    "frequencies = [10.0, 20]\n"
    "[bem.mesh]\n"
    "generator = \"sphere\"\n"
    "radius = 2.0\n"
    "divisions = 4\n"
    "solid = \"cavity\"\n"
    "[bem.material]\n"
    "density = 2000\n"
    "youngs_modulus = 250e6\n"
    "poisson_ratio = 0.25\n"
    "[[bem.boundary]]\n"
    "element_set = \"all\"\n"
    "pressure = 1e5\n";

// A half-space patch with a foundation (lines 1-15): the sets "all", "foundation", "free".
const std::string ground =
    "[bem]\n"
    "frequencies = { start = 5.0, stop = 25.0, count = 5 }\n"
    "[bem.mesh]\n"
    "generator = \"halfspace\"\n"
    "size = [8.0, 6.0]\n"
    "divisions = [8, 6]\n"
    "foundation = [2.0, 2.0]\n"
    "[bem.material]\n"
    "density = 1800\n"
    "s_wave_speed = 150\n"
    "p_wave_speed = 300\n"
    "damping_ratio = 0.025\n";

// A flat patch of two quadrilaterals in z = 0, normals +z, in the physical groups "foundation"
// (element 1) and "free" (element 2).
const std::string patch_msh =
    "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
    "$PhysicalNames\n2\n2 1 \"foundation\"\n2 2 \"free\"\n$EndPhysicalNames\n"
    "$Entities\n0 0 2 0\n1 0 0 0 1 1 0 1 1 0\n2 1 0 0 2 1 0 1 2 0\n$EndEntities\n"
    "$Nodes\n1 6 1 6\n2 1 0 6\n1\n2\n3\n4\n5\n6\n0 0 0\n1 0 0\n2 0 0\n0 1 0\n1 1 0\n2 1 0\n$EndNodes\n"
    "$Elements\n2 2 1 2\n2 1 3 1\n1 1 2 5 4\n2 2 3 1\n2 2 3 6 5\n$EndElements\n";

BemProblem parse(const std::string& text, const std::string& base_dir = "") {
  return io::read_bem_model_buffer(text, "m.toml", base_dir);
}

std::string error_of(const std::string& text, const std::string& base_dir = "") {
  try {
    parse(text, base_dir);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// The message must start "m.toml:LINE: " ("m.toml: " for line 0, the file as a whole) and contain
// every piece.
void expect_error(const std::string& text, long line, const std::vector<std::string>& pieces,
                  const std::string& base_dir = "") {
  const std::string message = error_of(text, base_dir);
  const std::string prefix = line > 0 ? str("m.toml:", line, ": ") : std::string("m.toml: ");
  EXPECT_EQ(message.substr(0, prefix.size()), prefix) << message;
  for (const auto& piece : pieces) EXPECT_CONTAINS(message, piece);
}

// `text` with the first line holding `from` replaced by `to` (whole lines, so line numbers of the
// rest stay).
std::string replace_line(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  const std::size_t begin = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
  const std::size_t end = text.find('\n', at);
  return text.replace(begin, end - begin, to);
}

TEST(BemModelFile, CavityWithDefaults) {
  const BemProblem p = parse(cavity);
  EXPECT_EQ(p.source, "m.toml");
  EXPECT_EQ(p.title, "cavity");
  EXPECT_EQ(p.frequencies, (std::vector<double>{10.0, 20.0}));
  EXPECT_EQ(p.mesh.kind, BemMeshKind::Sphere);
  EXPECT_EQ(p.mesh.sphere.radius, 2.0);
  EXPECT_EQ(p.mesh.sphere.divisions, 4);
  EXPECT_EQ(p.mesh.shape, BemElementShape::Quadrilateral);
  EXPECT_EQ(p.mesh.solid, BemSolid::Outside);
  EXPECT_FALSE(p.mesh.flip);
  EXPECT_EQ(p.mesh.element_sets, (std::vector<std::string>{"all"}));
  EXPECT_EQ(p.mesh.origin, "m.toml:4: [bem.mesh]");
  // E = 250 MPa, nu = 0.25: mu = E / 2.5 = 100 MPa, lambda = E nu / (1.25 x 0.5) = 100 MPa.
  EXPECT_NEAR(p.material.mu, 1e8, 1e-6);
  EXPECT_NEAR(p.material.lambda, 1e8, 1e-6);
  EXPECT_EQ(p.material.density, 2000.0);
  EXPECT_EQ(p.material.damping_ratio, 0.0);
  EXPECT_NEAR(p.material.youngs_modulus(), 250e6, 1e-4);
  EXPECT_NEAR(p.material.poisson_ratio(), 0.25, 1e-15);
  EXPECT_NEAR(p.material.shear_wave_speed(), std::sqrt(1e8 / 2000.0), 1e-12);
  EXPECT_NEAR(p.material.p_wave_speed(), std::sqrt(3e8 / 2000.0), 1e-12);
  ASSERT_EQ(p.boundary.size(), 1u);
  EXPECT_EQ(p.boundary[0].element_set, "all");
  ASSERT_TRUE(p.boundary[0].pressure.has_value());
  EXPECT_EQ(*p.boundary[0].pressure, std::complex<double>(1e5, 0.0));
  EXPECT_FALSE(p.boundary[0].prescribes_displacement());
  EXPECT_EQ(p.boundary[0].origin, "m.toml:13: [[bem.boundary]] #1 'all'");
  EXPECT_TRUE(p.interior_points.empty());
  // The defaults of the solver's settings.
  EXPECT_EQ(p.options.gauss, 8);
  EXPECT_EQ(p.options.singular_gauss, 8);
  EXPECT_EQ(p.options.near_ratio, 2.0);
  EXPECT_EQ(p.options.max_depth, 6);
  EXPECT_EQ(p.options.free_term, BemFreeTerm::Auto);
  EXPECT_EQ(p.options.elements, BemElements::Constant);  // the paper's elements
  EXPECT_EQ(p.options.layout, BemLayout::Block);
  EXPECT_EQ(p.options.backend, std::nullopt);  // "auto"
  EXPECT_FALSE(p.options.min_elements_per_wavelength.has_value());  // by element order
  EXPECT_EQ(bem_min_per_wavelength(p.options), 6.0);
}

TEST(BemModelFile, EverySetting) {
  const std::string text = replace_line(cavity, "frequencies",
                                        "frequencies = [10.0]\ngauss = 6\nsingular_gauss = 12\nnear_ratio = 3.5\n"
                                        "max_depth = 4\nfree_term = \"direct\"\nelements = \"linear\"\n"
                                        "layout = \"thread\"\nsolver = \"hmatrix\"\ntolerance = 1e-7\n"
                                        "backend = \"serial\"\nmin_elements_per_wavelength = 10");
  const BemProblem p = parse(text);
  EXPECT_EQ(p.options.gauss, 6);
  EXPECT_EQ(p.options.singular_gauss, 12);
  EXPECT_EQ(p.options.near_ratio, 3.5);
  EXPECT_EQ(p.options.max_depth, 4);
  EXPECT_EQ(p.options.free_term, BemFreeTerm::Direct);
  EXPECT_EQ(p.options.elements, BemElements::Linear);
  EXPECT_EQ(p.options.layout, BemLayout::Thread);
  EXPECT_EQ(p.options.backend, Backend::Serial);
  EXPECT_EQ(p.options.min_elements_per_wavelength, 10.0);
  EXPECT_EQ(p.options.solver, BemSolver::HMatrix);
  EXPECT_EQ(p.options.tolerance, 1e-7);
  for (const auto& [term, value] : bem_free_term_names)
    EXPECT_EQ(parse(replace_line(text, "free_term", str("free_term = \"", term, "\""))).options.free_term, value);
  EXPECT_EQ(parse(replace_line(text, "elements", "elements = \"constant\"")).options.elements, BemElements::Constant);
  EXPECT_EQ(parse(replace_line(text, "layout", "layout = \"block\"")).options.layout, BemLayout::Block);
  for (const auto& [name, backend] : backend_names)
    EXPECT_EQ(parse(replace_line(text, "backend", str("backend = \"", name, "\""))).options.backend, backend);
}

TEST(BemModelFile, HalfspaceWithFoundationAndFrequencyRange) {
  const BemProblem p = parse(ground +
                             "[[bem.boundary]]\n"
                             "element_set = \"foundation\"\n"
                             "displacement = { z = 1e-3 }\n"
                             "[[bem.boundary]]\n"
                             "element_set = \"free\"\n"
                             "traction = [0, [1.5, -2], 0]\n");
  // start 5, stop 25, count 5: both ends included.
  EXPECT_EQ(p.frequencies, (std::vector<double>{5.0, 10.0, 15.0, 20.0, 25.0}));
  EXPECT_EQ(p.mesh.kind, BemMeshKind::Halfspace);
  EXPECT_EQ(p.mesh.solid, BemSolid::Open);  // implied
  EXPECT_EQ(p.mesh.halfspace.size, (std::array<double, 2>{8.0, 6.0}));
  EXPECT_EQ(p.mesh.halfspace.divisions, (std::array<Index, 2>{8, 6}));
  ASSERT_TRUE(p.mesh.halfspace.foundation.has_value());
  EXPECT_EQ(*p.mesh.halfspace.foundation, (std::array<double, 2>{2.0, 2.0}));
  EXPECT_EQ(p.mesh.element_sets, (std::vector<std::string>{"all", "foundation", "free"}));
  // c_s = 150, c_p = 300 m/s, rho = 1800: mu = rho c_s^2, lambda = rho c_p^2 - 2 mu.
  EXPECT_NEAR(p.material.mu, 1800.0 * 150.0 * 150.0, 1e-6);
  EXPECT_NEAR(p.material.lambda, 1800.0 * (300.0 * 300.0 - 2.0 * 150.0 * 150.0), 1e-6);
  EXPECT_EQ(p.material.damping_ratio, 0.025);
  ASSERT_EQ(p.boundary.size(), 2u);
  const BemBoundaryCondition& foundation = p.boundary[0];
  EXPECT_TRUE(foundation.prescribes_displacement());
  EXPECT_FALSE(foundation.pressure.has_value());
  EXPECT_FALSE(foundation.components[0].has_value());
  EXPECT_FALSE(foundation.components[1].has_value());
  ASSERT_TRUE(foundation.components[2].has_value());
  EXPECT_EQ(foundation.components[2]->kind, BemPrescribed::Displacement);
  EXPECT_EQ(foundation.components[2]->value, std::complex<double>(1e-3, 0.0));
  const BemBoundaryCondition& free = p.boundary[1];
  EXPECT_FALSE(free.prescribes_displacement());
  for (int c = 0; c < 3; ++c) {
    ASSERT_TRUE(free.components[c].has_value());
    EXPECT_EQ(free.components[c]->kind, BemPrescribed::Traction);
  }
  EXPECT_EQ(free.components[1]->value, std::complex<double>(1.5, -2.0));
  EXPECT_EQ(free.components[0]->value, std::complex<double>(0.0, 0.0));
  // One frequency from a range: start = stop.
  EXPECT_EQ(parse(replace_line(ground, "frequencies", "frequencies = { start = 7, stop = 7, count = 1 }")).frequencies,
            (std::vector<double>{7.0}));
}

TEST(BemModelFile, MixedComponentsAndComplexPressure) {
  const BemProblem p = parse(
      replace_line(cavity, "pressure = 1e5", "traction = { x = [1, 2] }\ndisplacement = { y = -1e-3, z = [0, 1e-3] }"));
  const auto& c = p.boundary.at(0).components;
  EXPECT_EQ(c[0]->kind, BemPrescribed::Traction);
  EXPECT_EQ(c[0]->value, std::complex<double>(1.0, 2.0));
  EXPECT_EQ(c[1]->kind, BemPrescribed::Displacement);
  EXPECT_EQ(c[1]->value, std::complex<double>(-1e-3, 0.0));
  EXPECT_EQ(c[2]->kind, BemPrescribed::Displacement);
  EXPECT_EQ(c[2]->value, std::complex<double>(0.0, 1e-3));
  const BemProblem q = parse(replace_line(cavity, "pressure = 1e5", "pressure = [1e5, -2e4]"));
  EXPECT_EQ(*q.boundary.at(0).pressure, std::complex<double>(1e5, -2e4));
  // Components left out are left unset (zero traction, the command's default).
  const BemProblem r = parse(replace_line(cavity, "pressure = 1e5", "displacement = { x = 0 }"));
  EXPECT_TRUE(r.boundary.at(0).components[0].has_value());
  EXPECT_FALSE(r.boundary.at(0).components[1].has_value());
  EXPECT_FALSE(r.boundary.at(0).components[2].has_value());
}

TEST(BemModelFile, BoxTrianglesAndMaterialFromLame) {
  const std::string box =
      replace_line(replace_line(replace_line(cavity, "radius", "size = [2, 1, 0.5]\nshape = \"triangle\""),
                                "divisions = 4", "divisions = [4, 2, 1]"),
                   "generator", "generator = \"box\"");
  const std::string text = replace_line(replace_line(box, "youngs_modulus", "lame_lambda = 2e8\ndamping_ratio = 0.05"),
                                        "poisson_ratio", "shear_modulus = 1e8");
  const BemProblem p = parse(replace_line(text, "solid", "solid = \"body\""));
  EXPECT_EQ(p.mesh.kind, BemMeshKind::Box);
  EXPECT_EQ(p.mesh.box.size, (std::array<double, 3>{2.0, 1.0, 0.5}));
  EXPECT_EQ(p.mesh.box.divisions, (std::array<Index, 3>{4, 2, 1}));
  EXPECT_EQ(p.mesh.shape, BemElementShape::Triangle);
  EXPECT_EQ(p.mesh.solid, BemSolid::Inside);
  EXPECT_EQ(p.mesh.element_sets, (std::vector<std::string>{"all", "xmax", "xmin", "ymax", "ymin", "zmax", "zmin"}));
  EXPECT_EQ(p.material.lambda, 2e8);
  EXPECT_EQ(p.material.mu, 1e8);
  EXPECT_EQ(p.material.damping_ratio, 0.05);
  // "inside" and "outside" are the same as "body" and "cavity".
  EXPECT_EQ(parse(replace_line(text, "solid", "solid = \"inside\"")).mesh.solid, BemSolid::Inside);
  EXPECT_EQ(parse(replace_line(text, "solid", "solid = \"outside\"")).mesh.solid, BemSolid::Outside);
  // The faces are sets the boundary conditions may name.
  EXPECT_EQ(parse(replace_line(text, "element_set", "element_set = \"zmax\"")).boundary.at(0).element_set, "zmax");
  // Second-order elements: the order not given follows the elements (bem::build_boundary_mesh).
  EXPECT_FALSE(p.mesh.order.has_value());
  const BemProblem second = parse(replace_line(text, "solid", "solid = \"body\"\norder = 2"));
  EXPECT_EQ(second.mesh.order, 2);
  EXPECT_FALSE(second.mesh.serendipity);
  const std::string quads = replace_line(replace_line(text, "solid", "solid = \"body\"\norder = 2\nserendipity = true"),
                                         "shape", "shape = \"quadrilateral\"");
  EXPECT_TRUE(parse(quads).mesh.serendipity);
}

TEST(BemModelFile, InteriorPointsLinesAndGrids) {
  const BemProblem p = parse(cavity +
                             "[bem.interior]\n"
                             "points = [[3, 0, 0], [0, -4, 0.5]]\n"
                             "line = { from = [3, 0, 0], to = [6, 0, 0], count = 4 }\n"
                             "[[bem.interior.grid]]\n"
                             "from = [3, -1, 2]\n"
                             "to = [5, 1, 2]\n"
                             "count = [3, 2, 1]\n");
  const std::vector<std::array<double, 3>> expected = {{3, 0, 0},  {0, -4, 0.5},                         // points
                                                       {3, 0, 0},  {4, 0, 0},    {5, 0, 0},  {6, 0, 0},  // line
                                                       {3, -1, 2}, {4, -1, 2},   {5, -1, 2}, {3, 1, 2},
                                                       {4, 1, 2},  {5, 1, 2}};  // grid, x fastest
  ASSERT_EQ(p.interior_points.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    for (int c = 0; c < 3; ++c) EXPECT_DOUBLE_EQ(p.interior_points[i][c], expected[i][c]) << i << " " << c;
  ASSERT_EQ(p.point_groups.size(), 3u);
  EXPECT_EQ(p.point_groups[0].kind, "points");
  EXPECT_EQ(p.point_groups[0].first, 0u);
  EXPECT_EQ(p.point_groups[0].count, 2u);
  EXPECT_EQ(p.point_groups[0].origin, "m.toml:17");
  EXPECT_EQ(p.point_groups[1].kind, "line");
  EXPECT_EQ(p.point_groups[1].first, 2u);
  EXPECT_EQ(p.point_groups[1].count, 4u);
  EXPECT_EQ(p.point_groups[2].kind, "grid");
  EXPECT_EQ(p.point_groups[2].count, 6u);
  EXPECT_EQ(p.point_groups[2].origin, "m.toml:19");
  // Several lines as an array of tables.
  const BemProblem q = parse(cavity +
                             "[[bem.interior.line]]\nfrom = [3, 0, 0]\nto = [4, 0, 0]\ncount = 2\n"
                             "[[bem.interior.line]]\nfrom = [0, 3, 0]\nto = [0, 5, 0]\ncount = 3\n");
  EXPECT_EQ(q.interior_points.size(), 5u);
  EXPECT_EQ(q.point_groups.size(), 2u);
  EXPECT_DOUBLE_EQ(q.interior_points[3][1], 4.0);
}

TEST(BemModelFile, GmshSurfaceFileWithSets) {
  const std::string dir = test::temporary_directory("bem_model_file");
  std::ofstream(dir + "/patch.msh") << patch_msh;
  const std::string text = replace_line(
      replace_line(replace_line(replace_line(cavity, "generator", "file = \"patch.msh\""), "radius", "flip = true"),
                   "divisions", "# two quadrilaterals"),
      "solid", "solid = \"open\"");
  const BemProblem p = parse(replace_line(text, "element_set", "element_set = \"foundation\""), dir);
  EXPECT_EQ(p.mesh.kind, BemMeshKind::File);
  EXPECT_EQ(p.mesh.file, "patch.msh");
  EXPECT_EQ(p.mesh.path, (std::filesystem::path(dir) / "patch.msh").string());
  EXPECT_EQ(p.mesh.solid, BemSolid::Open);
  EXPECT_TRUE(p.mesh.flip);
  EXPECT_EQ(p.mesh.surface.n_elements(), 2);
  EXPECT_EQ(p.mesh.surface.dim(), 3);
  // The file's physical groups, and "all", which every mesh has.
  EXPECT_EQ(p.mesh.element_sets, (std::vector<std::string>{"all", "foundation", "free"}));
  EXPECT_EQ(p.mesh.surface.element_sets.at("all").size(), 2u);
  EXPECT_EQ(p.boundary.at(0).element_set, "foundation");
  // A set the file does not have is named with the sets it has.
  expect_error(replace_line(text, "element_set", "element_set = \"fundation\""), 14,
               {"[[bem.boundary]] #1: no element set named 'fundation' (did you mean 'foundation'?); the mesh has "
                "'all', 'foundation', 'free'"},
               dir);
  // Where the solid lies must be said for a file.
  expect_error(replace_line(text, "solid", "# no solid"), 4, {"[bem.mesh]: missing 'solid'", "\"inside\"", "\"open\""},
               dir);
  expect_error(replace_line(text, "file", "file = \"missing.msh\""), 5,
               {"[bem.mesh]: mesh file 'missing.msh' not found (looked for ", "missing.msh)"}, dir);
  std::ofstream(dir + "/patch.inp") << "*NODE\n";
  expect_error(replace_line(text, "file", "file = \"patch.inp\""), 5,
               {"mesh file 'patch.inp' has extension '.inp'; a boundary-element mesh is a Gmsh surface mesh (.msh)"},
               dir);
  expect_error(replace_line(text, "file", "file = \"\""), 5, {"'file' is empty"}, dir);
  expect_error(text, 5, {"this model was given in memory with no folder"});
  expect_error(replace_line(text, "flip", "radius = 1.0"), 6,
               {"'radius' belongs to generated meshes; a mesh 'file' defines its own elements"}, dir);
  // The mesh file's own errors name the mesh file.
  std::ofstream(dir + "/broken.msh") << "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 2\n";
  EXPECT_CONTAINS(error_of(replace_line(text, "file", "file = \"broken.msh\""), dir), "broken.msh");
  // From disk: the mesh is found beside the model file.
  std::ofstream(dir + "/model.toml") << replace_line(text, "element_set", "element_set = \"free\"");
  const BemProblem from_disk = io::read_bem_model_file(dir + "/model.toml");
  EXPECT_EQ(from_disk.source, dir + "/model.toml");
  EXPECT_EQ(from_disk.boundary.at(0).element_set, "free");
  std::filesystem::remove_all(dir);
}

TEST(BemModelFile, FileErrors) {
  const std::string dir = test::temporary_directory("bem_model_file_errors");
  const auto error_of_file = [](const std::string& path) {
    try {
      io::read_bem_model_file(path);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_CONTAINS(error_of_file(dir + "/none.toml"), "none.toml: no such model file");
  // Errors in a file on disk name it as the user gave it.
  std::ofstream(dir + "/bad.toml") << replace_line(cavity, "frequencies", "frequencies = [0]");
  EXPECT_EQ(error_of_file(dir + "/bad.toml").rfind(dir + "/bad.toml:3: [bem]: 'frequencies'[0] is 0 Hz", 0), 0u)
      << error_of_file(dir + "/bad.toml");
  std::filesystem::remove_all(dir);
}

TEST(BemModelFile, TopLevelErrors) {
  expect_error("title = 3\n[bem]\n", 1, {"'title' must be a string"});
  expect_error("[bem\n", 1, {"TOML syntax error"});
  expect_error("title = \"x\"\n", 0, {"missing [bem]"});
  expect_error("title = \"x\"\ncolour = 1\n[bem]\n", 2, {"unknown key 'colour'"});
  // A finite-element model file is named as one.
  expect_error("[mesh]\ngenerator = \"box\"\n", 1,
               {"[mesh] belongs to a finite-element model file (tremor run, tremor static)", "[bem]"});
  expect_error(cavity + "[static]\n", 16, {"[static] belongs to a finite-element model file"});
  expect_error("[bem]\nfrequencies = [1]\n", 1, {"[bem]: missing [bem.mesh]"});
  expect_error(replace_line(cavity, "[bem.material]", "[bem.materials]"), 9,
               {"[bem]: unknown key 'materials'; did you mean 'material'?"});
  expect_error("bem = 1\n", 1, {"'bem' must be a table ([bem])"});
}

TEST(BemModelFile, FrequencyErrors) {
  const auto with = [](const std::string& line) { return replace_line(cavity, "frequencies", line); };
  expect_error(with("frequencies = [10.0, 0.0]"), 3, {"[bem]: 'frequencies'[1] is 0 Hz; frequencies must be positive"});
  expect_error(with("frequencies = [\n  10.0,\n  -5\n]"), 5, {"'frequencies'[1] is -5 Hz"});
  expect_error(with("frequencies = []"), 3, {"'frequencies' is empty"});
  expect_error(with("frequencies = 10.0"), 3,
               {"'frequencies' must be a list of frequencies (Hz) or { start, stop, count }"});
  expect_error(with("frequencies = [10, \"x\"]"), 3, {"'frequencies'[1] must be a number, got a string"});
  expect_error(with("# none"), 2, {"[bem]: missing 'frequencies' (Hz)"});
  expect_error(with("frequencies = { start = 0, stop = 10, count = 3 }"), 3,
               {"[bem.frequencies]: 'start' is 0 Hz; frequencies must be positive"});
  expect_error(with("frequencies = { start = 20, stop = 10, count = 3 }"), 3,
               {"'stop' is 10 Hz; expected a frequency above 'start' (20 Hz)"});
  expect_error(with("frequencies = { start = 1, stop = 10, count = 0 }"), 3, {"'count' is 0; expected 1 to 10000"});
  expect_error(with("frequencies = { start = 1, stop = 10, count = 1 }"), 3,
               {"'count' is 1 but 'stop' (10) differs from 'start' (1)"});
  expect_error(with("frequencies = { start = 1, stop = 10 }"), 3, {"missing 'count'"});
  expect_error(with("frequencies = { start = 1, end = 10, count = 2 }"), 3, {"unknown key 'end'"});
}

TEST(BemModelFile, SettingErrors) {
  const auto with = [](const std::string& line) {
    return replace_line(cavity, "frequencies", "frequencies = [1]\n" + line);
  };
  expect_error(with("gauss = 0"), 4, {"[bem]: 'gauss' is 0; expected 1 to 16"});
  expect_error(with("gauss = 17"), 4, {"'gauss' is 17; expected 1 to 16"});
  expect_error(with("gauss = 2.5"), 4, {"'gauss' must be an integer"});
  expect_error(with("singular_gauss = 20"), 4, {"'singular_gauss' is 20; expected 1 to 16"});
  expect_error(with("max_depth = 9"), 4, {"'max_depth' is 9; expected 0 to 8"});
  expect_error(with("near_ratio = 0"), 4, {"'near_ratio' is 0; expected a positive number"});
  expect_error(
      with("free_term = \"rigid\""), 4,
      {"unknown free_term 'rigid' (did you mean 'rigid_body'?); expected \"auto\", \"rigid_body\" or \"direct\""});
  expect_error(with("elements = \"cubic\""), 4,
               {"[bem]: unknown elements 'cubic'; expected \"constant\", \"linear\" or \"quadratic\""});
  expect_error(with("elements = \"linar\""), 4, {"unknown elements 'linar' (did you mean 'linear'?)"});
  expect_error(with("elements = 1"), 4, {"'elements'"});
  expect_error(with("layout = \"warp\""), 4, {"unknown layout 'warp'", "\"block\" or \"thread\""});
  expect_error(with("solver = \"lu\""), 4, {"unknown solver 'lu'", "\"auto\", \"dense\" or \"hmatrix\""});
  expect_error(with("tolerance = 0.5"), 4,
               {"'tolerance' is 0.5; the compressed solver's relative accuracy lies in (0, 0.1)"});
  expect_error(with("tolerance = 0"), 4, {"'tolerance' is 0; expected a positive number"});
  expect_error(with("backend = \"gpu\""), 4, {"unknown backend 'gpu'", "\"cuda\""});
  expect_error(with("min_elements_per_wavelength = -1"), 4, {"'min_elements_per_wavelength' is -1"});
  expect_error(with("gausss = 4"), 4, {"[bem]: unknown key 'gausss'; did you mean 'gauss'?"});
  expect_error(with("colour = 4"), 4, {"[bem]: unknown key 'colour'; expected one of: mesh, material, boundary"});
}

// The solver's choices are parsed by their Named tables where the file is read: an unknown name is
// refused whole, naming the file, the line and the table's names in order.
TEST(BemModelFile, UnknownChoiceNamesTheFileAndLine) {
  const auto with = [](const std::string& line) {
    return replace_line(cavity, "frequencies", "frequencies = [1]\n" + line);
  };
  EXPECT_EQ(error_of(with("free_term = \"rigid\"")),
            "m.toml:4: [bem]: unknown free_term 'rigid' (did you mean 'rigid_body'?); expected \"auto\", "
            "\"rigid_body\" or \"direct\"");
  EXPECT_EQ(error_of(with("elements = \"cubic\"")),
            "m.toml:4: [bem]: unknown elements 'cubic'; expected \"constant\", \"linear\" or \"quadratic\"");
  EXPECT_EQ(error_of(with("layout = \"warp\"")),
            "m.toml:4: [bem]: unknown layout 'warp'; expected \"block\" or \"thread\"");
  EXPECT_EQ(error_of(with("backend = \"cud\"")),
            "m.toml:4: [bem]: unknown backend 'cud' (did you mean 'cuda'?); expected \"auto\", \"serial\", "
            "\"openmp\" or \"cuda\"");
}

TEST(BemModelFile, MeshErrors) {
  const auto with = [](const std::string& from, const std::string& to) { return replace_line(cavity, from, to); };
  expect_error(with("generator", "generator = \"cylinder\""), 5,
               {"[bem.mesh]: unknown generator 'cylinder'; expected \"sphere\", \"box\", \"halfspace\" or "
                "\"halfspace_disc\""});
  expect_error(with("generator", "file = \"x.msh\"\ngenerator = \"sphere\""), 6,
               {"takes either 'file' (a Gmsh surface mesh) or 'generator', not both"});
  expect_error(with("generator", "# nothing"), 4,
               {"[bem.mesh]: missing 'file' (a Gmsh surface mesh, .msh) or 'generator'"});
  expect_error(with("radius", "radius = -2"), 6, {"'radius' is -2; expected a positive number"});
  expect_error(with("radius", "# none"), 4, {"missing 'radius'"});
  expect_error(with("divisions", "divisions = 0"), 7, {"'divisions' is 0; expected at least 1 cell per cube edge"});
  expect_error(with("divisions", "# none"), 4, {"missing 'divisions'"});
  expect_error(with("solid", "# none"), 4, {"missing 'solid': \"body\" (the solid inside the surface) or \"cavity\""});
  expect_error(with("solid", "solid = \"open\""), 8, {"a generated sphere or box is closed"});
  expect_error(with("solid", "solid = \"hole\""), 8, {"unknown solid 'hole'", "\"cavity\""});
  expect_error(with("solid", "solid = \"cavity\"\nflip = true"), 9, {"'flip' does not apply to a generated sphere"});
  expect_error(with("solid", "solid = \"cavity\"\nflip = 1"), 9, {"'flip' does not apply"});
  expect_error(with("solid", "solid = \"cavity\"\norder = 3"), 9,
               {"[bem.mesh]: 'order' is 3; expected 1 (straight-sided elements) or 2"});
  expect_error(with("solid", "solid = \"cavity\"\nserendipity = true\nshape = \"triangle\""), 9,
               {"'serendipity' (8-node quadrilaterals) applies to second-order quadrilaterals"});
  expect_error(with("solid", "solid = \"cavity\"\norder = 1\nserendipity = true"), 10,
               {"'serendipity' (8-node quadrilaterals) applies to second-order quadrilaterals"});
  expect_error(with("solid", "solid = \"cavity\"\nshape = \"hexagon\""), 9,
               {"unknown shape 'hexagon'; expected \"quadrilateral\" or \"triangle\""});
  expect_error(with("solid", "solid = \"cavity\"\nsize = [1, 1, 1]"), 9,
               {"'size' does not apply to the sphere generator"});
  expect_error(with("solid", "solid = \"cavity\"\nradius2 = 1"), 9, {"[bem.mesh]: unknown key 'radius2'"});
  // The box.
  const std::string box = replace_line(
      replace_line(replace_line(cavity, "radius", "size = [2, 1, 0.5]"), "divisions = 4", "divisions = [4, 2, 1]"),
      "generator", "generator = \"box\"");
  ASSERT_EQ(parse(box).mesh.kind, BemMeshKind::Box);
  expect_error(replace_line(box, "size", "size = [2, 0, 1]"), 6, {"'size'[1] is 0; lengths must be positive"});
  expect_error(replace_line(box, "size", "size = [2, 1]"), 6, {"'size' must be an array of 3 numbers"});
  expect_error(replace_line(box, "divisions", "divisions = [4, 0, 1]"), 7,
               {"'divisions'[1] is 0; expected at least 1"});
  expect_error(replace_line(box, "divisions", "divisions = 4"), 7, {"'divisions' must be an array of 3 integers"});
  expect_error(replace_line(box, "size", "radius = 1"), 6, {"'radius' does not apply to the box generator"});
  // The half-space patch.
  expect_error(replace_line(ground, "foundation", "foundation = [9.0, 2.0]"), 7,
               {"'foundation'[0] = 9 m exceeds the patch's 'size'[0] = 8 m"});
  expect_error(replace_line(ground, "foundation", "foundation = [2.0, 2.0]\nsolid = \"body\""), 8,
               {"a halfspace's surface is open: 'solid' is \"open\" (or left out), got \"body\""});
  expect_error(replace_line(ground, "foundation", "radius = 2"), 7, {"'radius' does not apply to the halfspace"});
  EXPECT_TRUE(parse(replace_line(ground, "foundation", "flip = true")).mesh.flip);
  EXPECT_EQ(parse(replace_line(ground, "foundation", "solid = \"open\"")).mesh.element_sets,
            (std::vector<std::string>{"all"}));
}

// The disc around a circular foundation: its keys, its sets, and the errors naming the line.
TEST(BemModelFile, HalfspaceDisc) {
  const std::string disc = replace_line(
      replace_line(replace_line(replace_line(ground, "generator", "generator = \"halfspace_disc\""), "size",
                                "radius = 6.0"),
                   "divisions", "divisions = 2"),
      "foundation", "foundation_radius = 1.0\nmax_cell = 1.5");
  const BemProblem p = parse(disc);
  EXPECT_EQ(p.mesh.kind, BemMeshKind::HalfspaceDisc);
  EXPECT_EQ(p.mesh.solid, BemSolid::Open);
  EXPECT_EQ(p.mesh.disc.radius, 6.0);
  EXPECT_EQ(p.mesh.disc.foundation_radius, 1.0);
  EXPECT_EQ(p.mesh.disc.divisions, 2);
  EXPECT_EQ(p.mesh.disc.max_cell, 1.5);
  EXPECT_EQ(p.mesh.element_sets, (std::vector<std::string>{"all", "foundation", "free"}));
  // The generator itself, as the driver builds it: 100 second-order cells for quadratic elements.
  const bem::BoundaryMesh mesh = bem::build_boundary_mesh(p.mesh, BemElements::Quadratic);
  EXPECT_EQ(mesh.n_elements(), 100);
  EXPECT_TRUE(mesh.quadratic());
  expect_error(replace_line(disc, "foundation_radius", "foundation_radius = 6.0"), 7,
               {"'foundation_radius' = 6 m must be below the surface's 'radius' = 6 m"});
  expect_error(replace_line(disc, "max_cell", "# none"), 3, {"missing 'max_cell'"});  // the table's line
  expect_error(replace_line(disc, "max_cell", "max_cell = -1"), 8, {"'max_cell'"});
  expect_error(replace_line(disc, "divisions", "divisions = 0"), 6, {"'divisions' is 0; expected 1 to 65535"});
  expect_error(replace_line(disc, "divisions", "divisions = [2, 2]"), 6, {"'divisions'"});
  expect_error(replace_line(disc, "radius", "size = [6, 6]\nradius = 6"), 5,
               {"'size' does not apply to the halfspace_disc generator"});
  expect_error(replace_line(disc, "max_cell", "max_cell = 1\nsolid = \"body\""), 9,
               {"a halfspace's surface is open"});
  expect_error(replace_line(ground, "foundation", "max_cell = 1"), 7,
               {"'max_cell' does not apply to the halfspace generator"});
  EXPECT_TRUE(parse(replace_line(disc, "max_cell", "max_cell = 1\nflip = true")).mesh.flip);
  // The example (examples/bem-foundation/README.md: 148 cells, 12 under the foundation).
  const BemProblem example = io::read_bem_model_file(test::source_path("examples/bem-foundation/disc.toml"));
  const bem::BoundaryMesh example_mesh = bem::build_boundary_mesh(example.mesh, example.options.elements);
  EXPECT_EQ(example_mesh.n_elements(), 148);
  EXPECT_EQ(example_mesh.element_sets.at("foundation").size(), 12u);
  // The 52,544-element example for a GPU (the README's section "52,544 elements on a GPU").
  const BemProblem large = io::read_bem_model_file(test::source_path("examples/bem-foundation/large.toml"));
  const bem::BoundaryMesh large_mesh = bem::build_boundary_mesh(large.mesh, large.options.elements);
  EXPECT_EQ(large_mesh.n_elements(), 52544);
  EXPECT_EQ(large_mesh.element_sets.at("foundation").size(), 768u);
  EXPECT_EQ(large.options.solver, BemSolver::HMatrix);
  EXPECT_EQ(large.options.backend, Backend::Cuda);
}

TEST(BemModelFile, MaterialErrors) {
  const auto with = [](const std::string& from, const std::string& to) { return replace_line(cavity, from, to); };
  expect_error(with("density", "density = 0"), 10, {"[bem.material]: 'density' is 0; expected a positive number"});
  expect_error(with("density", "# none"), 9, {"[bem.material]: missing 'density'"});
  expect_error(with("poisson_ratio", "poisson_ratio = 0.5"), 12,
               {"'poisson_ratio' is 0.5; expected a value in (-1, 0.5)"});
  expect_error(with("youngs_modulus", "youngs_modulus = -1"), 11,
               {"'youngs_modulus' is -1; expected a positive modulus"});
  expect_error(with("poisson_ratio", "# none"), 11,
               {"give exactly one pair of elastic constants", "got youngs_modulus"});
  expect_error(with("poisson_ratio", "poisson_ratio = 0.25\nshear_modulus = 1e8"), 11,
               {"give exactly one pair", "got youngs_modulus, poisson_ratio, shear_modulus"});
  expect_error(with("youngs_modulus", "lame_lambda = -1e9"), 11, {"lame_lambda"});
  expect_error(replace_line(with("youngs_modulus", "lame_lambda = -1e9"), "poisson_ratio", "shear_modulus = 1e8"), 11,
               {"'lame_lambda' is -1000000000; the bulk modulus lambda + 2 mu / 3 must be positive"});
  const std::string lame =
      replace_line(with("youngs_modulus", "lame_lambda = 1e8"), "poisson_ratio", "shear_modulus = 0");
  expect_error(lame, 12, {"'shear_modulus' is 0; expected a positive modulus"});
  const std::string speeds =
      replace_line(with("youngs_modulus", "p_wave_speed = 100"), "poisson_ratio", "s_wave_speed = 100");
  expect_error(speeds, 11, {"'p_wave_speed' is 100 m/s; it must exceed 2/sqrt(3) x 's_wave_speed'"});
  expect_error(replace_line(speeds, "s_wave_speed", "s_wave_speed = 0"), 12,
               {"'s_wave_speed' is 0; expected a positive speed"});
  expect_error(with("density", "density = 2000\ndamping_ratio = -0.01"), 11,
               {"'damping_ratio' is -0.01; expected the hysteretic damping ratio beta >= 0"});
  expect_error(with("density", "density = 2000\ndamping_alpha = 1"), 11,
               {"[bem.material]: unknown key 'damping_alpha'; expected one of: density", "damping_ratio"});
  expect_error(with("[bem.material]", "# none"), 2, {"[bem]: missing [bem.material]"});
}

TEST(BemModelFile, BoundaryErrors) {
  const auto with = [](const std::string& line) { return replace_line(cavity, "pressure = 1e5", line); };
  expect_error(replace_line(cavity, "element_set", "element_set = \"wall\""), 14,
               {"[[bem.boundary]] #1: no element set named 'wall' (did you mean 'all'?); the mesh has 'all'"});
  expect_error(replace_line(cavity, "element_set", "# none"), 13, {"missing 'element_set'"});
  expect_error(with("pressure = [1, 2, 3]"), 15,
               {"[[bem.boundary]] #1 'all': 'pressure' must be a number or [re, im], got an array of 3"});
  expect_error(with("pressure = \"high\""), 15, {"'pressure' must be a number or [re, im], got a string"});
  expect_error(with("pressure = 1\ntraction = [0, 0, 1]"), 16,
               {"'traction' with 'pressure': a pressure prescribes the traction in every component"});
  expect_error(with("pressure = 1\ndisplacement = { z = 0 }"), 16, {"'displacement' with 'pressure'"});
  expect_error(with("# nothing"), 13, {"give 'pressure', 'traction' or 'displacement'"});
  expect_error(with("traction = { x = 1 }\ndisplacement = { x = 0 }"), 16,
               {"component x is given as both a traction and a displacement"});
  expect_error(with("traction = [1, 2]"), 15,
               {"'traction' must be [x, y, z] or a table such as { z = 1e-3 }, got an array of 2"});
  expect_error(with("traction = 5"), 15, {"'traction' must be [x, y, z]"});
  expect_error(with("traction = { w = 1 }"), 15, {"[bem.boundary.traction]: unknown key 'w'"});
  expect_error(with("displacement = { z = [1, 2, 3] }"), 15,
               {"'displacement.z' must be a number or [re, im], got an array of 3"});
  expect_error(with("displacement = [0, 0, \"up\"]"), 15,
               {"'displacement'[2] must be a number or [re, im], got a string"});
  expect_error(with("displacement = [0, 0, [1, \"i\"]]"), 15, {"'displacement'[2] must be a number or [re, im]"});
  expect_error(with("pressure = 1\nforce = 2"), 16, {"unknown key 'force'"});
  // One condition per set.
  expect_error(cavity + "[[bem.boundary]]\nelement_set = \"all\"\npressure = 2\n", 17,
               {"[[bem.boundary]] #2 'all': element set 'all' already has a boundary condition, at line 14"});
}

TEST(BemModelFile, InteriorErrors) {
  const auto with = [](const std::string& text) { return cavity + "[bem.interior]\n" + text; };
  expect_error(with("points = [[1, 2]]"), 17, {"[bem.interior]: 'points'[0] must be [x, y, z], got an array of 2"});
  expect_error(with("points = []"), 17, {"'points' must be a list of points"});
  expect_error(with("points = [[1, 2, \"z\"]]"), 17, {"'points'[0][2] must be a number, got a string"});
  expect_error(with("line = { from = [0, 0, 3], to = [0, 0, 5], count = 1 }"), 17,
               {"[bem.interior.line]: 'count' is 1; expected 2 to 1000000"});
  expect_error(with("line = { from = [0, 0, 3], count = 3 }"), 17, {"missing 'to'"});
  expect_error(with("line = { to = [0, 0, 3], count = 3 }"), 17, {"missing 'from'"});
  expect_error(with("line = { from = [0, 0, 3], to = [0, 0, 5] }"), 17, {"missing 'count'"});
  expect_error(with("line = { from = [0, 0, 3], to = [0, 0, 5], count = 3, step = 1 }"), 17, {"unknown key 'step'"});
  expect_error(with("line = 3"), 17, {"'line' must be an array of tables"});
  expect_error(with("grid = { from = [0, 0, 3], to = [1, 1, 4], count = [2, 2, 1] }"), 17,
               {"[bem.interior.grid]: 'count'[2] is 1 but 'from'[2] (3) differs from 'to'[2] (4)"});
  expect_error(with("grid = { from = [0, 0, 3], to = [1, 1, 3], count = [2, 0, 1] }"), 17, {"'count'[1] is 0"});
  expect_error(with("grid = { from = [0, 0, 3], to = [1, 1, 4], count = [1000, 1000, 2] }"), 17,
               {"the grid holds more than 1000000 points"});
  expect_error(with("surface = 1"), 17, {"[bem.interior]: unknown key 'surface'"});
}

// The model files of docs/bem.md parse as written, with the meshes they name beside them.
TEST(BemModelFile, DocumentedExamples) {
  const std::vector<std::string> blocks = test::fenced_blocks("docs/bem.md", "toml");
  ASSERT_FALSE(blocks.empty());
  const std::string dir = test::temporary_directory("bem_model_file_docs");
  std::ofstream(dir + "/ground.msh") << patch_msh;
  for (const std::string& block : blocks) {
    SCOPED_TRACE(block);
    EXPECT_NO_THROW(parse(block, dir));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tremor
