// Abaqus *SURFACE, *DSLOAD and *DLOAD: surfaces read from tests/data/abaqus (face numbering of
// C3D8 and CPE4 as Abaqus defines it), the loads they carry and the forces those total, and
// broken inputs whose messages name the file and line.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/loading.hpp"
#include "tremor/fem/loads.hpp"
#include "tremor/io/abaqus.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

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

// Total force per component of a surface load (time function 1).
std::array<double, 3> total_force(const Model& model, const SurfaceLoad& load) {
  std::array<double, 3> sum{0.0, 0.0, 0.0};
  const int dim = model.mesh.dim();
  for (const auto& [dof, force] : fem::surface_forces(model, load))
    sum[static_cast<std::size_t>(dof % dim)] += force;
  return sum;
}

// Labels of the nodes of one face, sorted.
std::vector<Label> face_labels(const Mesh& mesh, const Face& face) {
  const ElementRef ref = mesh.locate(face.element);
  const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
  int local[max_face_nodes];
  const int n = face_nodes(block.type, block.order, face.face, local);
  std::vector<Label> labels;
  for (int a = 0; a < n; ++a)
    labels.push_back(
        mesh.node_labels[static_cast<std::size_t>(block.nodes(ref.element)[static_cast<std::size_t>(local[a])])]);
  std::sort(labels.begin(), labels.end());
  return labels;
}

TEST(AbaqusSurfaces, SurfacesAndDistributedLoadsOfABrickBar) {
  const Loaded loaded = load("surface_loads.inp");
  const Model& model = loaded.model;
  const Mesh& mesh = model.mesh;
  // END = brick 2, S4: Abaqus face 4 is nodes 2-3-7-6 of the brick, here 9, 10, 12, 11 (x = 2).
  ASSERT_EQ(mesh.face_sets.at("END").size(), 1u);
  EXPECT_EQ(face_labels(mesh, mesh.face_sets.at("END")[0]), (std::vector<Label>{9, 10, 11, 12}));
  // TOPS: S2 (nodes 5-6-7-8 of each brick, z = 1).
  const std::vector<Face>& tops = mesh.face_sets.at("TOPS");
  ASSERT_EQ(tops.size(), 2u);
  EXPECT_EQ(face_labels(mesh, tops[0]), (std::vector<Label>{5, 6, 7, 8}));
  EXPECT_EQ(face_labels(mesh, tops[1]), (std::vector<Label>{6, 7, 11, 12}));
  // SKIN: every exterior face of the two bricks (12 faces, less the shared one twice).
  EXPECT_EQ(mesh.face_sets.at("SKIN").size(), 10u);

  // Loads in file order: END pressure with RAMP, P2 on EALL, TRVEC on TOPS; GRAV is a body force.
  ASSERT_EQ(model.surface_loads.size(), 3u);
  const SurfaceLoad& end = model.surface_loads[0];
  EXPECT_EQ(end.surface, "END");
  EXPECT_EQ(end.amplitude, "RAMP");
  ASSERT_TRUE(end.pressure.has_value());
  EXPECT_DOUBLE_EQ(*end.pressure, 2e6);
  EXPECT_NE(end.origin.find("surface_loads.inp:42"), std::string::npos) << end.origin;
  const SurfaceLoad& p2 = model.surface_loads[1];
  EXPECT_EQ(p2.faces, tops);  // P2 of both bricks: the same faces as TOPS
  EXPECT_TRUE(p2.amplitude.empty());
  const SurfaceLoad& trvec = model.surface_loads[2];
  EXPECT_FALSE(trvec.pressure.has_value());
  // Magnitude 10 along (0, 3, 4) / 5.
  EXPECT_DOUBLE_EQ(trvec.traction[1], 6.0);
  EXPECT_DOUBLE_EQ(trvec.traction[2], 8.0);
  EXPECT_TRUE(loaded.warnings.empty()) << loaded.warnings.front();
  ASSERT_EQ(model.body_forces.size(), 1u);
  EXPECT_EQ(model.body_forces[0].element_set, "EALL");
  EXPECT_EQ(model.body_forces[0].elements, (std::vector<Index>{0, 1}));
  EXPECT_EQ(model.body_forces[0].acceleration, (std::array<double, 3>{0.0, 0.0, -9.81}));

  // Totals: -p * area along the outward normal; traction * area. Rounding only.
  const auto f_end = total_force(model, end);
  EXPECT_NEAR(f_end[0], -2e6, 1e-6);
  EXPECT_NEAR(f_end[1], 0.0, 1e-6);
  const auto f_p2 = total_force(model, p2);
  EXPECT_NEAR(f_p2[2], -2e5, 1e-6);
  const auto f_trvec = total_force(model, trvec);
  EXPECT_NEAR(f_trvec[1], 12.0, 1e-12);
  EXPECT_NEAR(f_trvec[2], 16.0, 1e-12);

  // The amplitude drives the pressure in time: RAMP is 0 at t = 0 and 1 from 1e-5 s.
  Model only_end = model;
  only_end.surface_loads = {end};
  only_end.body_forces.clear();
  const explicit_fe::Loading loading(only_end);
  ASSERT_EQ(loading.loaded_dofs().size(), 4u);
  std::vector<double> f(4);
  for (double t : {0.0, 2.5e-6, 1e-5, 2e-5}) {
    loading.forces(t, f);
    double sum = 0.0;
    for (double v : f) sum += v;
    EXPECT_NEAR(sum, -2e6 * std::min(t / 1e-5, 1.0), 1e-6) << t;
  }
}

TEST(AbaqusSurfaces, EdgePressureOnAPlaneStrainPlateCarriesTheThickness) {
  const Loaded loaded = load("plate_surface_cpe4.inp");
  EXPECT_TRUE(loaded.warnings.empty()) << loaded.warnings.front();
  const Model& model = loaded.model;
  ASSERT_EQ(model.surface_loads.size(), 1u);
  const SurfaceLoad& load = model.surface_loads[0];
  ASSERT_EQ(load.faces.size(), 1u);
  // P2 of a CPE4 is its edge 2-3: nodes 3 and 6 of the plate (x = 2 mm).
  EXPECT_EQ(face_labels(model.mesh, load.faces[0]), (std::vector<Label>{3, 6}));
  // 5 MPa * 1 mm edge * 2 mm thickness = 10 N against the outward normal +x; rounding only.
  const auto f = total_force(model, load);
  EXPECT_NEAR(f[0], -10.0, 1e-12);
  EXPECT_NEAR(f[1], 0.0, 1e-12);
}

// ------------------------------------------------------------------------------- broken inputs

const std::string bricks = R"(*NODE
1, 0., 0., 0.
2, 1., 0., 0.
3, 1., 1., 0.
4, 0., 1., 0.
5, 0., 0., 1.
6, 1., 0., 1.
7, 1., 1., 1.
8, 0., 1., 1.
9, 0.5, 0.5, 2.
*ELEMENT, TYPE=C3D8, ELSET=BRICK
1, 1, 2, 3, 4, 5, 6, 7, 8
*ELEMENT, TYPE=C3D4, ELSET=TET
2, 5, 6, 7, 9
*MATERIAL, NAME=STEEL
*ELASTIC
210.E9, 0.3
*DENSITY
7800.
*SOLID SECTION, ELSET=BRICK, MATERIAL=STEEL
*SOLID SECTION, ELSET=TET, MATERIAL=STEEL
)";  // 21 lines

std::string error_of(const std::string& text) {
  const log::Quiet quiet;
  std::string message;
  try {
    io::read_abaqus_buffer(text, "broken.inp");
  } catch (const Error& error) {
    message = error.what();
  }
  return message;
}

void expect_error(const std::string& text, const std::vector<std::string>& parts) {
  const std::string message = error_of(text);
  ASSERT_FALSE(message.empty()) << "no error for:\n" << text;
  for (const auto& part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
}

TEST(AbaqusSurfaces, BrokenSurfacesAndLoadsNameTheLine) {
  expect_error(bricks + "*SURFACE, NAME=S\nTET, S5\n", {"broken.inp:23:", "element 2 (tet4) has faces S1 to S4"});
  expect_error(bricks + "*SURFACE, NAME=S\nBRICK, S7\n", {"broken.inp:23:", "'S7'", "S1 to S6"});
  expect_error(bricks + "*SURFACE, NAME=S\nBRICK, F1\n", {"broken.inp:23:", "'F1'", "a face identifier"});
  expect_error(bricks + "*SURFACE, NAME=S\nNOSET, S1\n", {"broken.inp:23:", "undefined element set 'NOSET'"});
  expect_error(bricks + "*SURFACE, NAME=S\n99, S1\n", {"broken.inp:23:", "element 99 is not defined"});
  expect_error(bricks + "*SURFACE, NAME=S\n1, S1\n*SURFACE, NAME=S\n1, S2\n",
               {"broken.inp:24:", "surface 'S' is defined twice", "broken.inp:22"});
  expect_error(bricks + "*SURFACE\n1, S1\n", {"broken.inp:22:", "*SURFACE needs NAME="});
  expect_error(bricks + "*STEP\n*DYNAMIC, EXPLICIT\n, 1.E-5\n*DSLOAD\nNOSURF, P, 1.\n*END STEP\n",
               {"broken.inp:26:", "undefined surface 'NOSURF'"});
  expect_error(bricks + "*STEP\n*DYNAMIC, EXPLICIT\n, 1.E-5\n*DLOAD\nTET, P6, 1.\n*END STEP\n",
               {"broken.inp:26:", "element 2 (tet4) has faces P1 to P4, not P6"});
  expect_error(
      bricks + "*SURFACE, NAME=S\n1, S1\n*STEP\n*DYNAMIC, EXPLICIT\n, 1.E-5\n*DSLOAD\nS, TRVEC, 1.\n*END STEP\n",
      {"broken.inp:28:", "TRVEC traction needs a non-zero direction"});
  expect_error(bricks +
                   "*SURFACE, NAME=S\n1, S1\n*STEP\n*DYNAMIC, EXPLICIT\n, 1.E-5\n*DSLOAD, AMPLITUDE=NONE\nS, P, "
                   "1.\n*END STEP\n",
               {"broken.inp:28:", "undefined amplitude 'NONE'"});
  expect_error(bricks + "*DLOAD\nBRICK, P1, 1.\n", {"broken.inp:22:", "belongs inside a *STEP"});
}

}  // namespace
}  // namespace tremor
