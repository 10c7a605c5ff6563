// The Abaqus reader on small inputs held in the test: syntax corners, and broken inputs whose
// messages must name the file, the line and what was wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/abaqus.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// Two C3D8 bricks sharing a face, a material and a section: the base the broken inputs modify.
const std::string mesh_3d = R"(*NODE, NSET=NALL
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
)";
const std::string steel = R"(*MATERIAL, NAME=STEEL
*ELASTIC
210.E9, 0.3
*DENSITY
7800.
)";

Model read(const std::string& text, std::vector<std::string>* warnings = nullptr, const std::string& base_dir = "") {
  const log::Quiet quiet;
  Model model = io::read_abaqus_buffer(text, "broken.inp", base_dir);
  if (warnings != nullptr) *warnings = log::take_warnings();
  return model;
}

// The message of the tremor::Error that reading `text` throws ("" when it reads without error).
std::string error_of(const std::string& text, const std::string& base_dir = "") {
  try {
    read(text, nullptr, base_dir);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

void expect_error(const std::string& text, const std::vector<std::string>& parts, const std::string& base_dir = "") {
  const std::string message = error_of(text, base_dir);
  ASSERT_FALSE(message.empty()) << "no error for:\n" << text;
  for (const auto& part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

TEST(AbaqusErrors, UnknownElementType) {
  expect_error("*NODE\n1, 0, 0, 0\n*ELEMENT, TYPE=C3D99\n1, 1, 1, 1, 1\n",
               {"broken.inp:3:", "element type 'C3D99'", "C3D20R"});
  // A real Abaqus type tremor does not read (a shell) is refused the same way.
  expect_error("*NODE\n1, 0, 0, 0\n*ELEMENT, TYPE=S4R\n1, 1, 1, 1, 1\n", {"broken.inp:3:", "'S4R'"});
}

// A parameter given twice on a keyword line (the first was read, silently) is refused, naming it.
TEST(AbaqusErrors, AParameterGivenTwice) {
  expect_error(mesh_3d + "*MATERIAL, NAME=STEEL\n*ELASTIC\n210.E9, 0.3\n*DENSITY\n7800.\n*DAMPING, ALPHA=1e6, alpha = 2e6\n",
               {"broken.inp:22:", "parameter ALPHA is given twice on *DAMPING"});
  expect_error(mesh_3d + "*NSET, NSET=A, nset=B\n1\n", {"broken.inp:17:", "NSET is given twice on *NSET"});
}

TEST(AbaqusErrors, MissingNode) {
  expect_error(mesh_3d + "*ELEMENT, TYPE=C3D8\n3, 9, 13, 10, 3, 6, 11, 12, 7\n",
               {"broken.inp:18:", "element 3 refers to node 13, which is not defined"});
  expect_error(mesh_3d + "*NSET, NSET=A\n1, 2, 40\n", {"broken.inp:18:", "node 40 is not defined"});
}

TEST(AbaqusErrors, BadNumber) {
  expect_error("*NODE\n1, 0.0, abc, 0.0\n", {"broken.inp:2:", "bad number 'abc'", "node coordinate"});
  expect_error("*NODE\n1.5, 0.0, 0.0, 0.0\n", {"broken.inp:2:", "bad number '1.5'", "node number"});
  expect_error(
      mesh_3d + steel + "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n*STEP\n*DYNAMIC, EXPLICIT\n, 1.e-3x\n*END STEP\n",
      {"broken.inp:25:", "bad number '1.e-3x'", "time period"});
}

TEST(AbaqusErrors, GenerateRanges) {
  expect_error(mesh_3d + "*NSET, NSET=A, GENERATE\n1, 8, 0\n", {"broken.inp:18:", "increment must be positive, got 0"});
  expect_error(mesh_3d + "*NSET, NSET=A, GENERATE\n1, 8, -2\n", {"broken.inp:18:", "increment must be positive"});
  expect_error(mesh_3d + "*ELSET, ELSET=A, GENERATE\n2, 1\n", {"broken.inp:18:", "runs backwards"});
  // A huge span is refused at once, not walked through.
  expect_error(mesh_3d + "*NSET, NSET=A, GENERATE\n1, 9000000000000000000, 1\n",
               {"broken.inp:18:", "names 9000000000000000000 nodes, more than the 12 defined"});
  expect_error(mesh_3d + "*NSET, NSET=A, GENERATE\n1, 12, 2\n1, 13, 4\n", {"broken.inp:19:", "node 13 is not defined"});
}

TEST(AbaqusErrors, UndefinedSetsAndMaterials) {
  expect_error(mesh_3d + "*BOUNDARY\nNOPE, 1, 3\n", {"broken.inp:18:", "undefined node set 'NOPE'"});
  expect_error(mesh_3d + "*ELSET, ELSET=B\nEALL, MISSING\n", {"broken.inp:18:", "undefined element set 'MISSING'"});
  expect_error(mesh_3d + steel + "*SOLID SECTION, ELSET=ELSEWHERE, MATERIAL=STEEL\n",
               {"broken.inp:22:", "undefined element set 'ELSEWHERE'"});
  expect_error(mesh_3d + "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n",
               {"broken.inp:17:", "undefined material 'STEEL'"});
  expect_error(mesh_3d + steel + "*ELSET, ELSET=ONE\n1\n*SOLID SECTION, ELSET=ONE, MATERIAL=STEEL\n",
               {"broken.inp:16:", "element 2 is in no *SOLID SECTION"});
  expect_error(
      mesh_3d + steel + "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n",
      {"broken.inp:23:", "element 1 of set 'EALL' already has the section at broken.inp:22"});
  expect_error(mesh_3d + steel +
                   "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n*STEP\n*DYNAMIC, EXPLICIT\n, 1.\n"
                   "*CLOAD, AMPLITUDE=GONE\n7, 1, 1.\n*END STEP\n",
               {"broken.inp:27:", "undefined amplitude 'GONE'"});
}

TEST(AbaqusErrors, TruncatedConnectivity) {
  expect_error("*NODE\n1, 0, 0, 0\n2, 1, 0, 0\n*ELEMENT, TYPE=C3D8\n1, 1, 2, 1, 2, 1, 2\n2, 1, 2, 1, 2, 1, 2, 1, 2\n",
               {"broken.inp:5:", "element 1 (C3D8) has only 6 of its 8 nodes"});
  // A C3D20 line ending in a comma whose continuation never comes.
  expect_error(
      "*NODE\n1, 0, 0, 0\n*ELEMENT, TYPE=C3D20\n1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,\n*NSET, NSET=A\n1\n",
      {"broken.inp:4:", "has only 15 of its 20 nodes"});
  expect_error("*NODE\n1, 0, 0, 0\n*ELEMENT, TYPE=C3D4\n1, 1, 1, 1, 1, 1\n",
               {"broken.inp:4:", "takes 4 nodes but 5 follow"});
}

TEST(AbaqusErrors, DuplicateIds) {
  expect_error("*NODE\n1, 0, 0, 0\n2, 1, 0, 0\n** again\n1, 5, 5, 5\n",
               {"broken.inp:5:", "node 1 is defined twice (first at broken.inp:2)"});
  expect_error(mesh_3d + "*ELEMENT, TYPE=C3D8\n2, 1, 2, 3, 4, 5, 6, 7, 8\n",
               {"broken.inp:18:", "element 2 is defined twice (first at broken.inp:16)"});
  expect_error(mesh_3d + steel + steel, {"broken.inp:22:", "material 'STEEL' is defined twice"});
}

TEST(AbaqusErrors, StructuralMistakes) {
  expect_error("1, 0, 0, 0\n", {"broken.inp:1:", "does not belong to any keyword"});
  expect_error("*\n", {"broken.inp:1:", "must name its keyword"});
  expect_error("*NODE\n1, 0, 0\n*ELEMENT, TYPE=CPE3\n1, 1, 1, 1\n*ELEMENT, TYPE=C3D4\n2, 1, 1, 1, 1\n",
               {"broken.inp:5:", "mixing 2D and 3D elements"});
  expect_error(mesh_3d + "*ELASTIC\n1., 0.3\n", {"broken.inp:17:", "*ELASTIC must follow a *MATERIAL"});
  expect_error(mesh_3d + "*CLOAD\n1, 1, 1.\n", {"broken.inp:17:", "*CLOAD belongs inside a *STEP"});
  expect_error(mesh_3d + "*STEP\n*DYNAMIC, EXPLICIT\n, 1.\n", {"broken.inp:17:", "*STEP has no matching *END STEP"});
  expect_error(mesh_3d + "*STEP\n*NODE\n13, 0, 0, 0\n*END STEP\n", {"broken.inp:18:", "model data"});
  expect_error(mesh_3d + "*STEP\n*END STEP\n*STEP\n*END STEP\n", {"broken.inp:19:", "a second *STEP"});
  expect_error(mesh_3d + "*BOUNDARY\n1, 1, 7\n1, 0, 3\n", {"broken.inp:19:", "degree of freedom 0 is out of range"});
  expect_error(mesh_3d + "*BOUNDARY\n1, SIDEWAYS\n", {"broken.inp:18:", "'SIDEWAYS'", "ENCASTRE"});
  expect_error(mesh_3d + steel + "*ELASTIC\n1., 0.3\n", {"broken.inp:22:", "second *ELASTIC"});
  expect_error(mesh_3d + "*MATERIAL, NAME=SOFT\n*ELASTIC\n1.E9, 0.3, 20.\n2.E9, 0.3, 100.\n*DENSITY\n1000.\n",
               {"broken.inp:20:", "temperature-dependent"});
  expect_error(mesh_3d + "*MATERIAL, NAME=SOFT\n*ELASTIC\n1.E9, 0.5\n*DENSITY\n1000.\n",
               {"broken.inp:18:", "Poisson's ratio"});
  expect_error(mesh_3d + "*MATERIAL, NAME=SOFT\n*ELASTIC\n1.E9, 0.3\n", {"broken.inp:17:", "has no *DENSITY"});
  expect_error(mesh_3d + "*AMPLITUDE, NAME=A\n0., 0., 1., 1., 1., 2.\n", {"broken.inp:18:", "times must increase"});
  expect_error(mesh_3d + "*AMPLITUDE, NAME=A\n0., 0., 1.\n", {"broken.inp:18:", "pairs"});
  expect_error(mesh_3d + "*PART, NAME=P\n", {"broken.inp:17:", "parts and assemblies are not supported"});
  expect_error("*NODE, SYSTEM=C\n1, 1., 0., 0.\n", {"broken.inp:1:", "SYSTEM=C"});
  expect_error("*NODE\n1, 0., 0.\n2, 1., 0.\n3, 1., 1., 0.5\n*ELEMENT, TYPE=CPE3\n1, 1, 2, 3\n",
               {"broken.inp:4:", "node 3 has z = 0.5", "must lie in a plane"});
}

TEST(AbaqusErrors, IncludeFailures) {
  namespace fs = std::filesystem;
  // In memory without a base directory, *INCLUDE cannot be followed.
  expect_error("*HEADING\nx\n*INCLUDE, INPUT=mesh.inp\n", {"broken.inp:3:", "INPUT=mesh.inp"});

  const fs::path dir = test::temporary_directory("abaqus-include");
  expect_error("** header\n*INCLUDE, INPUT=absent.inp\n",
               {"broken.inp:2:", "no such included file", "absent.inp"}, dir.string());

  write_file(dir / "a.inp", "*NODE\n1, 0, 0, 0\n*INCLUDE, INPUT=b.inp\n");
  write_file(dir / "b.inp", "** b includes a again\n*INCLUDE, INPUT=a.inp\n");
  const std::string cycle = error_of("*INCLUDE, INPUT=a.inp\n", dir.string());
  for (const char* part : {"b.inp:2:", "include cycle", "a.inp -> ", "b.inp -> "})
    EXPECT_NE(cycle.find(part), std::string::npos) << part << " not in: " << cycle;

  // Errors inside an included file name that file and its own line numbers.
  write_file(dir / "nodes.inp", "** nodes\n1, 0, 0, 0\n2, 1, oops, 0\n");
  const std::string inner = error_of("*NODE\n*INCLUDE, INPUT=nodes.inp\n", dir.string());
  EXPECT_NE(inner.find("nodes.inp:3:"), std::string::npos) << inner;
  EXPECT_NE(inner.find("bad number 'oops'"), std::string::npos) << inner;

  // A chain of twelve files, each including the next, is deeper than the ten levels allowed.
  for (int k = 0; k < 12; ++k)
    write_file(dir / ("level" + std::to_string(k) + ".inp"),
               "*INCLUDE, INPUT=level" + std::to_string(k + 1) + ".inp\n");
  write_file(dir / "level12.inp", "*NODE\n1, 0, 0, 0\n");
  const std::string deep = error_of("*INCLUDE, INPUT=level0.inp\n", dir.string());
  EXPECT_NE(deep.find("level9.inp:1:"), std::string::npos) << deep;
  EXPECT_NE(deep.find("deeper than 10 levels"), std::string::npos) << deep;
  fs::remove_all(dir);
}

// A *BOUNDARY in the step on a degree of freedom fixed in model data replaces it (Abaqus OP=MOD):
// one prescribed value per degree of freedom reaches the solver, the later one.
TEST(AbaqusSyntax, LaterBoundaryReplacesEarlier) {
  const Model model = io::read_abaqus_buffer("*NODE\n1, 0, 0, 0\n2, 1, 0, 0\n3, 0, 1, 0\n4, 0, 0, 1\n"
                                         "*ELEMENT, TYPE=C3D4\n1, 1, 2, 3, 4\n"
                                         "*BOUNDARY\n1, 1, 3\n2, 1, 1\n"
                                         "*STEP\n*DYNAMIC, EXPLICIT\n, 1e-6\n*BOUNDARY\n1, 1, 1, 0.001\n*END STEP\n",
                                         "override.inp");
  int prescribed_1x = 0;
  double value_1x = -1.0;
  int total = 0;
  for (const FixedDof& f : model.fixed) {
    total += static_cast<int>(f.nodes.size());
    for (Index node : f.nodes)
      if (model.mesh.node_labels[static_cast<std::size_t>(node)] == 1 && f.component == 0) {
        ++prescribed_1x;
        value_1x = f.value;
      }
  }
  EXPECT_EQ(prescribed_1x, 1);
  EXPECT_EQ(value_1x, 0.001);
  EXPECT_EQ(total, 4);  // node 1: x (replaced), y, z; node 2: x
}

TEST(AbaqusSyntax, ReducedIntegrationIsReported) {
  const log::Quiet quiet;
  (void)io::read_abaqus_buffer("*NODE\n1,0,0,0\n2,1,0,0\n3,1,1,0\n4,0,1,0\n5,0,0,1\n6,1,0,1\n7,1,1,1\n8,0,1,1\n"
                           "*ELEMENT, TYPE=C3D8R\n1, 1, 2, 3, 4, 5, 6, 7, 8\n",
                           "reduced.inp");
  const auto warnings = log::take_warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("TYPE=C3D8R (reduced integration): read as C3D8 with full integration"), std::string::npos)
      << warnings[0];
}

TEST(AbaqusSyntax, MeshOnlyLoads) {
  std::vector<std::string> warnings;
  const Model model = read(mesh_3d, &warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(model.mesh.n_nodes(), 12);
  EXPECT_EQ(model.mesh.n_elements(), 2);
  EXPECT_TRUE(model.materials.empty());
  EXPECT_TRUE(model.sections.empty());
  EXPECT_FALSE(model.explicit_step.has_value());
  EXPECT_EQ(model.source, "broken.inp");
}

TEST(AbaqusSyntax, CommentsBlankLinesCaseAndContinuation) {
  // Windows line ends, blank lines, comments between continued lines, lower-case keywords, a
  // quoted set name, D exponents, and a C3D20 written as CalculiX does (16 entries, no comma).
  std::string text = "** comment\r\n\r\n*node, nset=\"Corner Nodes\"\r\n";
  const double xyz[20][3] = {{0, 0, 0}, {2, 0, 0}, {2, 2, 0}, {0, 2, 0}, {0, 0, 2}, {2, 0, 2}, {2, 2, 2},
                             {0, 2, 2}, {1, 0, 0}, {2, 1, 0}, {1, 2, 0}, {0, 1, 0}, {1, 0, 2}, {2, 1, 2},
                             {1, 2, 2}, {0, 1, 2}, {0, 0, 1}, {2, 0, 1}, {2, 2, 1}, {0, 2, 1}};
  for (int k = 0; k < 20; ++k)
    text += std::to_string(k + 1) + ", " + std::to_string(xyz[k][0]) + "D0, " + std::to_string(xyz[k][1]) + ", " +
            std::to_string(xyz[k][2]) + "\r\n";
  text +=
      "\n*Element, TYPE=c3d20r,\n** a comment inside the continued keyword line\n  ELSET=brick\n"
      "7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15\n16, 17, 18, 19, 20\n"
      "*nset, nset=\"corner nodes\"\n9,\n\n10,\n"
      "*ElSet, ElSet=Both\nBRICK,\n";
  const Model model = read(text);
  ASSERT_EQ(model.mesh.n_elements(), 1);
  EXPECT_EQ(model.mesh.blocks[0].type, ElementType::Hex20);
  EXPECT_EQ(model.mesh.blocks[0].labels[0], 7);
  EXPECT_EQ(model.mesh.blocks[0].connectivity[19], 19);  // node 20, the last of the second line
  EXPECT_DOUBLE_EQ(model.mesh.node(1)[0], 2.0);          // "2.000000D0"
  ASSERT_EQ(model.mesh.node_sets.count("CORNER NODES"), 1u);
  EXPECT_EQ(model.mesh.node_sets.at("CORNER NODES").size(), 20u);  // nodes 9 and 10 listed again
  EXPECT_EQ(model.mesh.element_sets.at("BOTH"), (std::vector<Index>{0}));
}

TEST(AbaqusSyntax, IgnoredDegreesOfFreedomAreReportedOnce) {
  const std::string plate = R"(*NODE
1, 0., 0.
2, 1., 0.
3, 1., 1.
4, 0., 1.
*ELEMENT, TYPE=CPS4, ELSET=PLATE
1, 1, 2, 3, 4
*MATERIAL, NAME=STEEL
*ELASTIC
210.E9, 0.3
*DENSITY
7800.
*SOLID SECTION, ELSET=PLATE, MATERIAL=STEEL
*BOUNDARY
1, 1, 6
2, ENCASTRE
*STEP
*DYNAMIC, EXPLICIT
, 1.E-3
*CLOAD
3, 2, 5.
3, 3, 5.
3, 6, 5.
*NODE OUTPUT, NSET=NOWHERE
*END STEP
)";
  EXPECT_NE(error_of(plate).find("undefined node set 'NOWHERE'"), std::string::npos);
  std::string fixed_plate = plate;
  fixed_plate.replace(fixed_plate.find("NSET=NOWHERE"), 12, "FREQUENCY=0\nU");
  std::vector<std::string> warnings;
  const Model model = read(fixed_plate, &warnings);
  EXPECT_EQ(model.mesh.dim(), 2);
  EXPECT_EQ(model.sections[0].formulation, Formulation::PlaneStress);
  EXPECT_DOUBLE_EQ(model.sections[0].thickness, 1.0);  // no data line: Abaqus's default
  // Node 1: dofs 1 and 2 (3 does not exist in 2D, 4-6 are rotations); node 2: ENCASTRE -> 1, 2.
  ASSERT_EQ(model.fixed.size(), 4u);
  ASSERT_EQ(model.loads.size(), 1u);
  EXPECT_EQ(model.loads[0].component, 1);
  EXPECT_TRUE(model.histories.empty());  // FREQUENCY=0 asks for no output
  ASSERT_EQ(warnings.size(), 1u);
  for (const char* part :
       {"*BOUNDARY on degrees of freedom 4 to 7 and above 8 (", "broken.inp:15",
        "*BOUNDARY on degree of freedom 3 of a 2D model",
        "*CLOAD on degree of freedom 3 of a 2D model (at broken.inp:22)",
        "*CLOAD on degrees of freedom 4 to 7 and above 8 (moments and others that solids and fluids lack) (at "
        "broken.inp:23)"})
    EXPECT_NE(warnings[0].find(part), std::string::npos) << part << " not in: " << warnings[0];
}

TEST(AbaqusSyntax, OutputSchedulesAndReleasedBoundaries) {
  const std::string text = mesh_3d + steel + R"(*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL
*NSET, NSET=FAR
9, 10, 11, 12
*BOUNDARY
1, 1, 3
*STEP, NAME=Shake
*DYNAMIC, EXPLICIT, FIXED TIME INCREMENTATION
, 2.E-4
*BOUNDARY, OP=NEW, AMPLITUDE=WAVE
2, 1, 1, 1.E-6
*BOUNDARY, OP=NEW
3, 2
*OUTPUT, HISTORY, NUMBER INTERVAL=40
*NODE OUTPUT, NSET=FAR
V1, VT
*NODE OUTPUT, NSET=FAR, FREQUENCY=7
A
*NODE PRINT
U3, RF
*END STEP
*AMPLITUDE, NAME=WAVE, DEFINITION=TABULAR
0., 0., 1.E-4, 1.
)";
  std::vector<std::string> warnings;
  const Model model = read(text, &warnings);
  // OP=NEW released the model-data condition on node 1; both in-step conditions remain.
  ASSERT_EQ(model.fixed.size(), 2u);
  EXPECT_EQ(model.fixed[0].component, 0);
  EXPECT_DOUBLE_EQ(model.fixed[0].value, 1e-6);
  EXPECT_EQ(model.fixed[0].amplitude, "WAVE");
  EXPECT_EQ(model.fixed[1].component, 1);
  ASSERT_TRUE(model.explicit_step);
  EXPECT_EQ(model.explicit_step->name, "SHAKE");
  EXPECT_DOUBLE_EQ(model.explicit_step->fixed_increment, 0.0);  // fixed, at the solver's stable increment
  ASSERT_EQ(model.histories.size(), 3u);
  EXPECT_EQ(model.histories[0].variables, (std::vector<std::string>{"V"}));
  // NUMBER INTERVAL=40 over 2e-4 s: one division.
  EXPECT_DOUBLE_EQ(model.histories[0].every_time, 5e-6);
  EXPECT_EQ(model.histories[1].every_n_steps, 7);
  EXPECT_DOUBLE_EQ(model.histories[1].every_time, 0.0);
  EXPECT_EQ(model.histories[2].name, "ALL");  // *NODE PRINT without NSET: every node
  EXPECT_EQ(model.histories[2].nodes.size(), 12u);
  EXPECT_EQ(model.histories[2].every_n_steps, 1);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("*NODE PRINT variable RF (at broken.inp:40)"), std::string::npos) << warnings[0];
}

}  // namespace
}  // namespace tremor
