// Surfaces and surface loads in the model file: the side surfaces of generated meshes,
// [[mesh.surface]] boxes, [[traction]] with a pressure or a traction vector, and their errors
// (each naming the file and line).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/model_file.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// A 0.2 x 0.1 m rectangle of 4 x 2 quad4 cells and one material: lines 1-10.
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
// 2 x 2 x 2 tet4 cells of 1 m: lines 1-10.
const std::string box =
    "[mesh]\n"
    "generator = \"box\"\n"
    "element = \"tet4\"\n"
    "size = [2, 2, 2]\n"
    "divisions = [2, 2, 2]\n"
    "[[material]]\n"
    "name = \"steel\"\n"
    "density = 7850\n"
    "youngs_modulus = 210e9\n"
    "poisson_ratio = 0.3\n";
const std::string ricker = "signal = { kind = \"ricker\", frequency = 1e5 }\n";

class ModelFileTraction : public ::testing::Test {
 protected:
  const log::Quiet quiet_;  // stderr silenced, earlier warnings set aside
};

Model parse(const std::string& text) { return io::read_model_buffer(text, "m.toml", ""); }

void expect_error(const std::string& text, long line, const std::vector<std::string>& pieces) {
  std::string message = "no error";
  try {
    parse(text);
  } catch (const Error& e) {
    message = e.what();
  }
  const std::string prefix = str("m.toml:", line, ": ");
  EXPECT_EQ(message.substr(0, prefix.size()), prefix) << message;
  for (const auto& piece : pieces)
    EXPECT_NE(message.find(piece), std::string::npos) << "'" << piece << "' not in: " << message;
}

TEST_F(ModelFileTraction, GeneratedMeshesHaveSideSurfaces) {
  const Model flat = parse(plate);
  // 4 cells along x, 2 along y: the sides x = const have 2 edges, y = const 4.
  EXPECT_EQ(flat.mesh.face_sets.at("xmin").size(), 2u);
  EXPECT_EQ(flat.mesh.face_sets.at("xmax").size(), 2u);
  EXPECT_EQ(flat.mesh.face_sets.at("ymin").size(), 4u);
  EXPECT_EQ(flat.mesh.face_sets.at("ymax").size(), 4u);
  const Model solid = parse(box);
  // 2 x 2 cell faces per side, each cut in two triangles.
  for (const char* side : {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"})
    EXPECT_EQ(solid.mesh.face_sets.at(side).size(), 8u) << side;
}

TEST_F(ModelFileTraction, BoxSurfacesAndLoads) {
  const Model model = parse(box +
                            "[[mesh.surface]]\n"             // 11
                            "name = \"patch\"\n"             // 12
                            "min = [0, 0, 2]\n"              // 13
                            "max = [1, 1, 2]\n"              // 14
                            "[[traction]]\n"                 // 15
                            "name = \"knock\"\n"             // 16
                            "surface = \"patch\"\n"          // 17
                            "pressure = 1e6\n"               // 18
                            "delay = 2e-6\n" +               // 19
                            ricker +                         // 20
                            "[[traction]]\n"                 // 21
                            "surface = \"xmax\"\n"           // 22
                            "traction = [0, 3e5, -4e5]\n" +  // 23
                            ricker);
  // The top cell face [0, 1] x [0, 1] at z = 2: two triangles, no face on an edge of the box.
  ASSERT_EQ(model.mesh.face_sets.at("patch").size(), 2u);
  ASSERT_EQ(model.surface_loads.size(), 2u);
  const SurfaceLoad& knock = model.surface_loads[0];
  EXPECT_EQ(knock.name, "knock");
  EXPECT_EQ(knock.surface, "patch");
  EXPECT_EQ(knock.faces, model.mesh.face_sets.at("patch"));
  ASSERT_TRUE(knock.pressure.has_value());
  EXPECT_DOUBLE_EQ(*knock.pressure, 1e6);
  EXPECT_DOUBLE_EQ(knock.delay, 2e-6);
  ASSERT_TRUE(knock.signal.has_value());
  EXPECT_EQ(knock.signal->kind, SignalKind::Ricker);
  EXPECT_EQ(knock.origin, "m.toml:15");
  const SurfaceLoad& shear = model.surface_loads[1];
  EXPECT_FALSE(shear.pressure.has_value());
  EXPECT_EQ(shear.traction, (std::array<double, 3>{0.0, 3e5, -4e5}));
  EXPECT_EQ(shear.faces.size(), 8u);
}

TEST_F(ModelFileTraction, Errors) {
  expect_error(plate + "[[mesh.surface]]\nname = \"none\"\nmin = [0.05, 0.05]\nmax = [0.06, 0.06]\n", 13,
               {"'none'", "holds no boundary face"});
  expect_error(plate + "[[mesh.surface]]\nname = \"xmin\"\nmin = [0, 0]\nmax = [0, 0.1]\n", 12,
               {"surface 'xmin' already exists"});
  expect_error(plate + "[[mesh.surface]]\nname = \"s\"\nmin = [0, 0]\nmax = [0, 0.1]\nnormal = 1\n", 15, {"normal"});
  expect_error(plate + "[[traction]]\nsurface = \"xmaz\"\npressure = 1\n" + ricker, 12,
               {"no surface named 'xmaz'", "did you mean 'xmax'"});
  expect_error(plate + "[[traction]]\npressure = 1\n" + ricker, 11, {"missing 'surface'"});
  expect_error(plate + "[[traction]]\nsurface = \"xmin\"\npressure = 1\ntraction = [1, 0]\n" + ricker, 11,
               {"either 'pressure'", "not both"});
  expect_error(plate + "[[traction]]\nsurface = \"xmin\"\n" + ricker, 11, {"either 'pressure'"});
  expect_error(plate + "[[traction]]\nsurface = \"xmin\"\ntraction = [1, 0, 0]\n" + ricker, 13, {"'traction'"});
  expect_error(plate + "[[traction]]\nsurface = \"xmin\"\npressure = 1\n", 11, {"missing 'signal'"});
  expect_error(plate + "[[traction]]\nsurface = \"xmin\"\npressure = 1\ndelay = -1\n" + ricker, 14, {"'delay'"});
  expect_error(plate + "[[traction]]\nsurface = \"xmin\"\npressure = 1\nforce = 2\n" + ricker, 14, {"force"});
}

// The documented examples with surfaces and tractions read as they are written.
TEST_F(ModelFileTraction, DocumentedExamples) {
  int found = 0;
  for (const std::string& block : test::fenced_blocks("docs/model-file.md", "toml")) {
    // The static example (model_file_static_test.cpp reads it) holds a traction too.
    if (block.find("[[traction]]") == std::string::npos || block.find("[static]") != std::string::npos) continue;
    ++found;
    const Model model = io::read_model_buffer(block, "docs/model-file.md", "");
    ASSERT_FALSE(model.surface_loads.empty());
    for (const SurfaceLoad& load : model.surface_loads) {
      EXPECT_EQ(load.faces, model.mesh.face_sets.at(load.surface));
      EXPECT_FALSE(load.faces.empty());
    }
    if (model.mesh.face_sets.count("patch")) {
      // The 4 mm patch on the 2 mm grid of the top face: 2 x 2 hex8 faces.
      EXPECT_EQ(model.mesh.face_sets.at("patch").size(), 4u);
    } else {
      // The bar: a pressure on xmin (2 edges), a shear traction on ymax (240 edges), rollers.
      ASSERT_EQ(model.surface_loads.size(), 2u);
      EXPECT_EQ(model.surface_loads[0].faces.size(), 2u);
      EXPECT_TRUE(model.surface_loads[0].pressure.has_value());
      EXPECT_EQ(model.surface_loads[1].faces.size(), 240u);
      EXPECT_DOUBLE_EQ(model.surface_loads[1].delay, 2e-6);
      EXPECT_EQ(model.prescribed.size(), 2u);
    }
  }
  EXPECT_EQ(found, 2);
  EXPECT_TRUE(log::take_warnings().empty());
}

}  // namespace
}  // namespace tremor
