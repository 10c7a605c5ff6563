// Model files whose mesh comes from a Gmsh or Abaqus file (tests/data/model/README.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/load.hpp"
#include "tremor/io/model_file.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

class ModelFileMesh : public ::testing::Test {
 protected:
  const log::Quiet quiet_;  // stderr silenced, earlier warnings set aside
};

TEST_F(ModelFileMesh, GmshMesh) {
  const Model model = io::read_model_file(test::data_path("model/strip_msh.toml"));
  EXPECT_EQ(model.title, "strip from Gmsh");
  EXPECT_EQ(model.mesh.dim(), 2);
  EXPECT_EQ(model.mesh.n_nodes(), 15);
  EXPECT_EQ(model.mesh.n_elements(), 8);
  ASSERT_EQ(model.mesh.n_blocks(), 1);
  EXPECT_EQ(model.mesh.blocks[0].type, ElementType::Quad4);
  EXPECT_EQ(model.mesh.element_sets.at("strip").size(), 8u);
  EXPECT_EQ(model.mesh.element_sets.at("all").size(), 8u);  // added by the reader
  EXPECT_EQ(model.mesh.node_sets.at("left").size(), 3u);
  const auto& right = model.mesh.node_sets.at("right");
  ASSERT_EQ(right.size(), 3u);
  for (Index i : right) EXPECT_NEAR(model.mesh.node(i)[0], 0.04, 1e-15);  // Gmsh writes 0.04 to 16 digits
  ASSERT_EQ(model.sections.size(), 1u);
  EXPECT_EQ(model.sections[0].formulation, Formulation::PlaneStress);
  EXPECT_EQ(model.sections[0].thickness, 2e-3);
  EXPECT_TRUE(log::take_warnings().empty());
  // The mesh file is among the model's inputs (a result may not overwrite it), once.
  ASSERT_EQ(model.inputs.size(), 1u);
  EXPECT_EQ(std::filesystem::path(model.inputs[0]).filename(), "strip.msh");
  // load_model on the mesh alone: the same mesh, nothing else.
  const Model mesh_only = io::load_model(test::data_path("model/strip.msh"));
  EXPECT_EQ(mesh_only.mesh.n_elements(), 8);
  EXPECT_TRUE(mesh_only.materials.empty());
}

TEST_F(ModelFileMesh, AbaqusMeshIgnoresTheRest) {
  const Model model = io::read_model_file(test::data_path("model/block_inp.toml"));
  EXPECT_EQ(model.mesh.dim(), 3);
  EXPECT_EQ(model.mesh.n_nodes(), 12);
  EXPECT_EQ(model.mesh.n_elements(), 2);
  EXPECT_EQ(model.mesh.element_sets.at("BLOCK").size(), 2u);
  EXPECT_EQ(model.mesh.element_sets.at("FIRST").size(), 1u);
  EXPECT_EQ(model.mesh.node_sets.at("END").size(), 4u);
  ASSERT_EQ(model.materials.size(), 1u);
  EXPECT_EQ(model.materials[0].name, "glass");
  ASSERT_EQ(model.sections.size(), 1u);
  EXPECT_EQ(model.sections[0].material, "glass");
  bool warned = false;
  for (const auto& warning : log::take_warnings())
    warned = warned || (warning.find("block.inp: only the mesh and sets are used; ignored 1 material(s), 1 section(s)") !=
                        std::string::npos);
  EXPECT_TRUE(warned);
  // load_model on the .inp itself keeps its material and section.
  const Model input = io::load_model(test::data_path("model/block.inp"));
  EXPECT_EQ(input.materials.size(), 1u);
}

// A deck exported for another analysis may hold data tremor could not use as a model (here a
// material without *DENSITY, a section on an undefined material): as a mesh it must still load.
TEST_F(ModelFileMesh, AbaqusMeshNeedsOnlyAValidMesh) {
  const std::string dir = test::temporary_directory("model-file-inp-mesh");
  {
    std::ofstream(dir + "/static.inp") << "*NODE\n1, 0, 0, 0\n2, 1, 0, 0\n3, 0, 1, 0\n4, 0, 0, 1\n"
                                          "*ELEMENT, TYPE=C3D4, ELSET=PART\n1, 1, 2, 3, 4\n"
                                          "*MATERIAL, NAME=STEEL\n*ELASTIC\n210e9, 0.3\n"
                                          "*SOLID SECTION, ELSET=PART, MATERIAL=NOSUCH\n"
                                          "*BOUNDARY\n1, 1, 3\n";
    std::ofstream(dir + "/model.toml") << "[mesh]\nfile = \"static.inp\"\n[[material]]\nname = \"steel\"\n"
                                          "density = 7850.0\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n";
  }
  const Model model = io::read_model_file(dir + "/model.toml");
  EXPECT_EQ(model.mesh.n_elements(), 1);
  ASSERT_EQ(model.sections.size(), 1u);
  EXPECT_EQ(model.sections[0].material, "steel");
  EXPECT_TRUE(model.fixed.empty());
  // As a model of its own the deck is refused, naming what is wrong.
  EXPECT_THROW(io::load_model(dir + "/static.inp"), Error);
}

TEST_F(ModelFileMesh, ErrorsInTheMeshFileNameIt) {
  const std::string dir = test::temporary_directory("model-file-mesh");
  {
    std::ofstream broken(dir + "/broken.msh");
    broken << "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 2 1 2\n";
  }
  try {
    io::read_model_buffer("[mesh]\nfile = \"broken.msh\"\n", "m.toml", dir);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("broken.msh"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tremor
