// Abaqus/CalculiX static steps: *STEP with *STATIC sets the static settings, *DLOAD GRAV, BX, BY,
// BZ become body forces, output requests of the step are listed in the warning, and broken inputs
// (a missing or zero direction, an unknown set, two procedures or two steps) name file and line.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/fem/loads.hpp"
#include "tremor/io/abaqus.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// Two C3D8 bricks of 1 m side along x sharing a face, steel (7800 kg/m^3), one section: lines 1-22.
const std::string bricks = R"(*NODE, NSET=NALL
1, 0., 0., 0.
2, 1., 0., 0.
3, 1., 1., 0.
4, 0., 1., 0.
5, 0., 0., 1.
6, 1., 0., 1.
7, 1., 1., 1.
8, 0., 1., 1.
9, 2., 0., 0.
10, 2., 1., 0.
11, 2., 0., 1.
12, 2., 1., 1.
*ELEMENT, TYPE=C3D8, ELSET=EALL
1, 1, 2, 3, 4, 5, 6, 7, 8
2, 2, 9, 10, 3, 6, 11, 12, 7
*MATERIAL, NAME=STEEL
*ELASTIC
210.E9, 0.3
*DENSITY
7800.
*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL
)";

// Two CPE4 squares of 1 m, 0.5 m thick, plane strain: lines 1-17.
const std::string squares = R"(*NODE
1, 0., 0.
2, 1., 0.
3, 2., 0.
4, 0., 1.
5, 1., 1.
6, 2., 1.
*ELEMENT, TYPE=CPE4, ELSET=PLATE
1, 1, 2, 5, 4
2, 2, 3, 6, 5
*MATERIAL, NAME=STEEL
*ELASTIC
210.E9, 0.3
*DENSITY
7800.
*SOLID SECTION, ELSET=PLATE, MATERIAL=STEEL
0.5
)";

struct Read {
  Model model;
  std::vector<std::string> warnings;
};

Read read_text(const std::string& text) {
  const log::Quiet quiet;
  Read read{io::read_abaqus_buffer(text, "static.inp"), {}};
  read.warnings = log::take_warnings();
  return read;
}

std::string error_of(const std::string& text) {
  try {
    read_text(text);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

// The message must start with "static.inp:LINE:" and hold every part.
void expect_error(const std::string& text, int line, const std::vector<std::string>& parts) {
  const std::string message = error_of(text);
  ASSERT_FALSE(message.empty()) << "no error for:\n" << text;
  EXPECT_EQ(message.rfind(str("static.inp:", line, ":"), 0), 0u) << message;
  for (const auto& part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Total force per component of a set of (DOF, force) pairs.
std::array<double, 3> total(const std::vector<std::pair<Index, double>>& forces, int dim) {
  std::array<double, 3> sum{0.0, 0.0, 0.0};
  for (const auto& [dof, force] : forces) sum[static_cast<std::size_t>(dof % dim)] += force;
  return sum;
}

std::string static_step(const std::string& body) { return "*STEP\n*STATIC\n" + body + "*END STEP\n"; }

TEST(AbaqusStatic, TheColumnDeckAsCalculixRunsIt) {
  const log::Quiet quiet;
  const Model model = io::read_abaqus(test::data_path("abaqus/static_gravity.inp"));
  const std::vector<std::string> warnings = log::take_warnings();

  ASSERT_TRUE(model.static_settings.has_value());
  const StaticSettings& settings = *model.static_settings;
  EXPECT_EQ(settings.step_name, "SELFWEIGHT");  // blanks in a keyword line are insignificant
  EXPECT_TRUE(contains(settings.origin, "static_gravity.inp:35")) << settings.origin;
  // The deck sets no solver option tremor reads: the defaults.
  const StaticSettings defaults;
  EXPECT_EQ(settings.preconditioner, defaults.preconditioner);
  EXPECT_EQ(settings.tolerance, defaults.tolerance);
  EXPECT_FALSE(model.explicit_step.has_value());
  EXPECT_TRUE(model.histories.empty());  // *NODE PRINT of a static step records no history

  ASSERT_EQ(model.body_forces.size(), 2u);
  const BodyForce& gravity = model.body_forces[0];
  EXPECT_EQ(gravity.element_set, "EALL");
  EXPECT_EQ(gravity.elements, (std::vector<Index>{0, 1}));
  // 9.81 along (0, 0, -2) / 2: exact in binary.
  EXPECT_EQ(gravity.acceleration, (std::array<double, 3>{0.0, 0.0, -9.81}));
  EXPECT_EQ(gravity.force_per_volume, (std::array<double, 3>{0.0, 0.0, 0.0}));
  EXPECT_TRUE(contains(gravity.origin, "static_gravity.inp:38")) << gravity.origin;
  const BodyForce& bz = model.body_forces[1];
  EXPECT_EQ(bz.element_set, "TOP");
  EXPECT_EQ(bz.elements, (std::vector<Index>{1}));
  EXPECT_EQ(bz.acceleration, (std::array<double, 3>{0.0, 0.0, 0.0}));
  EXPECT_EQ(bz.force_per_volume, (std::array<double, 3>{0.0, 0.0, -1000.0}));
  ASSERT_EQ(model.loads.size(), 1u);
  ASSERT_EQ(model.surface_loads.size(), 1u);
  EXPECT_EQ(model.fixed.size(), 3u);

  // One warning: the solver option and the output requests the static solver replaces.
  ASSERT_EQ(warnings.size(), 1u);
  for (const char* part : {"*STATIC, SOLVER (tremor solves by preconditioned conjugate gradients) (at ",
                           "static_gravity.inp:35)", "*NODE PRINT in a *STATIC step", "static_gravity.inp:45)",
                           "*EL PRINT in a *STATIC step", "*NODE FILE in a *STATIC step"})
    EXPECT_TRUE(contains(warnings[0], part)) << part << " not in: " << warnings[0];
  EXPECT_FALSE(contains(warnings[0], "GRAV")) << warnings[0];

  // Weight 7800 kg/m^3 * 2 m^3 * 9.81 m/s^2, 1/8 at each corner of each brick; BZ 1000 N/m^3 on
  // the upper brick's 1 m^3, 1/8 at each of its corners. Rounding only.
  const auto weight = fem::body_forces(model, gravity);
  EXPECT_NEAR(total(weight, 3)[2], -7800.0 * 2.0 * 9.81, 1e-9);
  const auto force = fem::body_forces(model, bz);
  EXPECT_NEAR(total(force, 3)[2], -1000.0, 1e-12);
  for (const auto& [dof, f] : force) EXPECT_NEAR(f, -125.0, 1e-12) << dof;

  // CalculiX 2.20 ran this deck (README.md): the total reaction at BASE was (-100, ~0, 120777) N,
  // the loads on the free nodes (the loads on the clamped nodes go straight into the support), so
  // tremor's loads there must total the opposite. ccx printed 7 digits.
  std::array<double, 3> free_total{0.0, 0.0, 0.0};
  const std::vector<Index>& base = model.mesh.node_sets.at("BASE");
  const auto add = [&](const std::vector<std::pair<Index, double>>& forces) {
    for (const auto& [dof, f] : forces)
      if (!std::binary_search(base.begin(), base.end(), dof / 3)) free_total[static_cast<std::size_t>(dof % 3)] += f;
  };
  add(weight);
  add(force);
  add(fem::surface_forces(model, model.surface_loads[0]));
  free_total[0] += model.loads[0].magnitude * (model.loads[0].component == 0 ? 1.0 : 0.0);
  EXPECT_NEAR(free_total[0], 100.0, 1e-9);
  EXPECT_NEAR(free_total[2], -1.207770e5, 0.5e-6 * 1.207770e5);
}

TEST(AbaqusStatic, GravWithoutAnElementSetActsOnTheWholeModel) {
  const Read read = read_text(bricks + static_step("*DLOAD\n, GRAV, 9.81, 0., 0., -1.\n"));
  ASSERT_EQ(read.model.body_forces.size(), 1u);
  const BodyForce& gravity = read.model.body_forces[0];
  EXPECT_TRUE(gravity.element_set.empty());
  EXPECT_EQ(gravity.elements, (std::vector<Index>{0, 1}));
  EXPECT_TRUE(read.warnings.empty()) << read.warnings.front();
  EXPECT_NEAR(total(fem::body_forces(read.model, gravity), 3)[2], -7800.0 * 2.0 * 9.81, 1e-9);
}

TEST(AbaqusStatic, BodyForcesPerVolumeAndByElementNumber) {
  const Read read = read_text(bricks + static_step("*DLOAD\n2, BX, 10.\nEALL, BY, -3.5\n"));
  ASSERT_EQ(read.model.body_forces.size(), 2u);
  EXPECT_EQ(read.model.body_forces[0].element_set, "2");
  EXPECT_EQ(read.model.body_forces[0].elements, (std::vector<Index>{1}));
  EXPECT_EQ(read.model.body_forces[0].force_per_volume, (std::array<double, 3>{10.0, 0.0, 0.0}));
  EXPECT_EQ(read.model.body_forces[1].force_per_volume, (std::array<double, 3>{0.0, -3.5, 0.0}));
  // Per unit volume: the density does not enter. 1 m^3 and 2 m^3.
  EXPECT_NEAR(total(fem::body_forces(read.model, read.model.body_forces[0]), 3)[0], 10.0, 1e-13);
  EXPECT_NEAR(total(fem::body_forces(read.model, read.model.body_forces[1]), 3)[1], -7.0, 1e-13);
}

TEST(AbaqusStatic, PlaneModelsTakeGravityInTheirPlaneAndTheThickness) {
  const Read read = read_text(squares + static_step("*DLOAD\nPLATE, GRAV, 2., 0., -1.\nPLATE, BZ, 5.\n"));
  ASSERT_EQ(read.model.body_forces.size(), 1u);
  EXPECT_EQ(read.model.body_forces[0].acceleration, (std::array<double, 3>{0.0, -2.0, 0.0}));
  ASSERT_EQ(read.warnings.size(), 1u);
  EXPECT_TRUE(contains(read.warnings[0], "*DLOAD BZ in a 2D model (at static.inp:22)")) << read.warnings[0];
  // 7800 kg/m^3 * 2 m^2 * 0.5 m * 2 m/s^2 = 15600 N down.
  EXPECT_NEAR(total(fem::body_forces(read.model, read.model.body_forces[0]), 2)[1], -15600.0, 1e-9);
  expect_error(squares + static_step("*DLOAD\nPLATE, GRAV, 2., 0., -1., 0.5\n"), 21,
               {"*DLOAD GRAV", "z component", "2D model"});
}

TEST(AbaqusStatic, StaticDataLineAndParametersAreOptional) {
  const Read bare = read_text(bricks + "*STEP\n*STATIC\n*END STEP\n");
  ASSERT_TRUE(bare.model.static_settings.has_value());
  EXPECT_EQ(bare.model.static_settings->step_name, "STEP-1");
  EXPECT_TRUE(contains(bare.model.static_settings->origin, "static.inp:24")) << bare.model.static_settings->origin;
  EXPECT_TRUE(bare.warnings.empty()) << bare.warnings.front();
  // The increments of the data line and DIRECT concern incrementation only: no warning.
  const Read direct = read_text(bricks + "*STEP, NAME=Load\n*STATIC, DIRECT\n0.1, 1., 1e-5, 1.\n*END STEP\n");
  EXPECT_EQ(direct.model.static_settings->step_name, "LOAD");
  EXPECT_TRUE(direct.warnings.empty()) << direct.warnings.front();
  const Read stabilize = read_text(bricks + "*STEP\n*STATIC, STABILIZE\n*END STEP\n");
  ASSERT_EQ(stabilize.warnings.size(), 1u);
  EXPECT_TRUE(contains(stabilize.warnings[0], "*STATIC, STABILIZE")) << stabilize.warnings[0];
  // An arc-length analysis is nonlinear: refused, not solved as a linear step.
  EXPECT_TRUE(contains(error_of(bricks + "*STEP\n*STATIC, RIKS\n*END STEP\n"), "RIKS asks for an arc-length"));
}

TEST(AbaqusStatic, AmplitudesAndOutputsOfAStaticStepAreListed) {
  const Read read = read_text(bricks + "*AMPLITUDE, NAME=RAMP\n0., 0., 1., 1.\n*STEP\n*NODE PRINT\nU\n*STATIC\n"
                                       "*CLOAD, AMPLITUDE=RAMP\n7, 3, -1.\n*DLOAD, AMPLITUDE=RAMP\nEALL, GRAV, 9.81, "
                                       "0., 0., -1.\n*OUTPUT, HISTORY\n*NODE OUTPUT\nU\n*END STEP\n");
  // A history asked for before *STATIC is dropped when *STATIC comes.
  EXPECT_TRUE(read.model.histories.empty());
  // The amplitude names stay on the loads (they are defined); the static solver does not use them.
  EXPECT_EQ(read.model.body_forces.at(0).amplitude, "RAMP");
  ASSERT_EQ(read.warnings.size(), 1u);
  const std::string& warning = read.warnings[0];
  EXPECT_TRUE(contains(warning, "*NODE PRINT in a *STATIC step (the static solver writes its own result file) (at "
                                "static.inp:26)"))
      << warning;
  EXPECT_TRUE(contains(warning, "*OUTPUT in a *STATIC step")) << warning;
  EXPECT_TRUE(contains(warning, "*NODE OUTPUT in a *STATIC step")) << warning;
  EXPECT_TRUE(contains(warning, "AMPLITUDE= in a *STATIC step")) << warning;
  EXPECT_TRUE(contains(warning, "2 times, first at static.inp:30")) << warning;
}

TEST(AbaqusStatic, ExplicitStepsKeepTheirHistoriesAndTakeGravity) {
  const Read read = read_text(bricks + "*STEP\n*DYNAMIC, EXPLICIT\n, 1e-3\n*DLOAD\nEALL, GRAV, 9.81, 0., 0., -1.\n"
                                       "*NODE PRINT, NSET=NALL\nU\n*END STEP\n");
  EXPECT_TRUE(read.model.explicit_step.has_value());
  EXPECT_FALSE(read.model.static_settings.has_value());
  EXPECT_EQ(read.model.histories.size(), 1u);
  EXPECT_EQ(read.model.body_forces.size(), 1u);
  EXPECT_TRUE(read.warnings.empty()) << read.warnings.front();
}

TEST(AbaqusStatic, BodyForceErrorsNameTheLine) {
  // The step's data line is line 26 (after *STEP, *STATIC and *DLOAD).
  expect_error(bricks + static_step("*DLOAD\nEALL, GRAV, 9.81\n"), 26, {"GRAV needs the direction"});
  expect_error(bricks + static_step("*DLOAD\nEALL, GRAV, 9.81, 0., 0., 0.\n"), 26, {"zero vector"});
  expect_error(bricks + static_step("*DLOAD\nEALL, GRAV, 9.81, 0., 0., -1., 2.\n"), 26,
               {"a magnitude and 3 direction components"});
  expect_error(bricks + static_step("*DLOAD\nNOPE, GRAV, 9.81, 0., 0., -1.\n"), 26, {"undefined element set 'NOPE'"});
  expect_error(bricks + static_step("*DLOAD\n99, BY, 1.\n"), 26, {"element 99 is not defined"});
  expect_error(bricks + static_step("*DLOAD\n, BX, 10.\n"), 26, {"BX needs an element or element set"});
  expect_error(bricks + static_step("*DLOAD\nEALL, BZ, 10., 0.\n"), 26, {"BZ takes one magnitude"});
  expect_error(bricks + static_step("*DLOAD\nEALL, GRAV, x, 0., 0., -1.\n"), 26, {"bad number 'x'"});
  expect_error(bricks + static_step("*DLOAD, AMPLITUDE=GONE\nEALL, GRAV, 9.81, 0., 0., -1.\n"), 26,
               {"undefined amplitude 'GONE'"});
}

TEST(AbaqusStatic, OneProcedureAndOneStep) {
  expect_error(bricks + "*STEP\n*STATIC\n*DYNAMIC, EXPLICIT\n, 1.\n*END STEP\n", 25,
               {"*DYNAMIC: the step already has the procedure *STATIC (at static.inp:24)", "one procedure"});
  expect_error(bricks + "*STEP\n*DYNAMIC, EXPLICIT\n, 1.\n*STATIC\n*END STEP\n", 26,
               {"*STATIC: the step already has the procedure *DYNAMIC, EXPLICIT (at static.inp:24)"});
  expect_error(bricks + "*STEP\n*STATIC\n*DYNAMIC\n0.1, 1.\n*END STEP\n", 25, {"already has the procedure *STATIC"});
  expect_error(bricks + "*STEP\n*STATIC\n*STATIC\n*END STEP\n", 25, {"already has the procedure *STATIC"});
  expect_error(bricks + "*STEP\n*STATIC\n*END STEP\n*STEP\n*DYNAMIC, EXPLICIT\n, 1.\n*END STEP\n", 26,
               {"a second *STEP", "one step", "first begins at static.inp:23"});
  expect_error(bricks + "*STATIC\n", 23, {"*STATIC belongs inside a *STEP"});
  expect_error(bricks + "*STEP\n*STATIC\n1., 1.\n2., 2.\n*END STEP\n", 26, {"*STATIC takes one data line"});
  expect_error(bricks + "*STEP\n*STATIC\n1., one\n*END STEP\n", 25, {"bad number 'one'"});
}

TEST(AbaqusStatic, AStaticDeckNeedsDensitiesToo) {
  std::string text = bricks;
  text.replace(text.find("*DENSITY\n7800.\n"), 15, "");
  expect_error(text + static_step(""), 17, {"material 'STEEL' has no *DENSITY", "GRAV"});
}

TEST(AbaqusStatic, AMeshOnlyReadDropsTheStaticStep) {
  const log::Quiet quiet;
  const Mesh mesh = io::read_abaqus_mesh(test::data_path("abaqus/static_gravity.inp"));
  const std::vector<std::string> warnings = log::take_warnings();
  EXPECT_EQ(mesh.n_elements(), 2);
  ASSERT_GE(warnings.size(), 1u);
  EXPECT_TRUE(contains(warnings[0], "4 load(s)")) << warnings[0];  // GRAV, BZ, *CLOAD, P2
  EXPECT_TRUE(contains(warnings[0], "the step")) << warnings[0];
}

}  // namespace
}  // namespace tremor
