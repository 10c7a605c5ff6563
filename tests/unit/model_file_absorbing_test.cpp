// [[absorbing]] in the model file: the keys, their defaults and their errors (file:line).
#include <gtest/gtest.h>

#include <string>

#include "tremor/core/error.hpp"
#include "tremor/io/model_file.hpp"

namespace tremor {
namespace {

// A 0.2 x 0.1 m rectangle of 20 x 10 quad4 cells and one material: lines 1-10.
const std::string plate =
    "[mesh]\n"
    "generator = \"rectangle\"\n"
    "element = \"quad4\"\n"
    "size = [0.2, 0.1]\n"
    "divisions = [20, 10]\n"
    "[[material]]\n"
    "name = \"steel\"\n"
    "density = 7850\n"
    "youngs_modulus = 210e9\n"
    "poisson_ratio = 0.3\n";

Model parse(const std::string& text) { return io::read_model_buffer(text, "m.toml", ""); }

std::string error_of(const std::string& text) {
  try {
    (void)parse(text);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

TEST(ModelFileAbsorbing, KeysAndDefaults) {
  const Model model = parse(plate +
                            "[[absorbing]]\n"           // line 11
                            "kind = \"srm\"\n"
                            "faces = [\"xmax\", \"ymin\"]\n"
                            "thickness = 0.03\n"
                            "frequency = 2e5\n"
                            "[[absorbing]]\n"           // line 16
                            "kind = \"alid\"\n"
                            "faces = [\"xmin\"]\n"
                            "thickness = 0.02\n"
                            "power = 2\n"
                            "alpha_max = 1e6\n");
  ASSERT_EQ(model.absorbing.size(), 2u);
  const AbsorbingLayer& a = model.absorbing[0];
  EXPECT_EQ(a.kind, AbsorbingKind::Srm);
  ASSERT_EQ(a.faces.size(), 2u);
  EXPECT_EQ(a.faces[0], BoxFace::XMax);
  EXPECT_EQ(a.faces[1], BoxFace::YMin);
  EXPECT_DOUBLE_EQ(a.thickness, 0.03);
  EXPECT_DOUBLE_EQ(a.power, 3.0);       // the default
  EXPECT_DOUBLE_EQ(a.alpha_max, 0.0);   // from the frequency
  EXPECT_DOUBLE_EQ(a.frequency, 2e5);
  EXPECT_EQ(a.origin, "m.toml:11");
  const AbsorbingLayer& b = model.absorbing[1];
  EXPECT_EQ(b.kind, AbsorbingKind::Alid);
  EXPECT_DOUBLE_EQ(b.power, 2.0);
  EXPECT_DOUBLE_EQ(b.alpha_max, 1e6);
  EXPECT_DOUBLE_EQ(layer_alpha_max(model, b), 1e6);
  EXPECT_DOUBLE_EQ(layer_alpha_max(model, a), default_alpha_max(3.0, 2e5));
}

TEST(ModelFileAbsorbing, ElementSetLayer) {
  const Model model = parse(plate +
                            "[[mesh.element_set]]\n"
                            "name = \"sponge\"\n"
                            "min = [0.15, 0.0]\n"
                            "max = [0.2, 0.1]\n"
                            "[[absorbing]]\n"
                            "kind = \"alid\"\n"
                            "element_set = \"sponge\"\n"
                            "thickness = 0.05\n"
                            "frequency = 1e5\n");
  ASSERT_EQ(model.absorbing.size(), 1u);
  EXPECT_EQ(model.absorbing[0].element_set, "sponge");
  EXPECT_TRUE(model.absorbing[0].faces.empty());
  const AbsorbingProfile profile = absorbing_profile(model);
  int inside = 0;
  for (double alpha : profile.alpha) inside += alpha > 0.0;
  EXPECT_EQ(inside, 50);  // the 5 x 10 cells of the set
}

TEST(ModelFileAbsorbing, ErrorsNameTheLine) {
  const auto layer = [](const std::string& keys) { return plate + "[[absorbing]]\n" + keys; };  // table at line 11
  EXPECT_NE(error_of(layer("kind = \"pml\"\nfaces = [\"xmax\"]\nthickness = 0.01\nfrequency = 1e5\n"))
                .find("m.toml:12: [[absorbing]] #1: unknown kind 'pml'"),
            std::string::npos);
  EXPECT_NE(error_of(layer("kind = \"alid\"\nfaces = [\"xmx\"]\nthickness = 0.01\nfrequency = 1e5\n"))
                .find("m.toml:13: [[absorbing]] #1 (alid): unknown face 'xmx' (did you mean 'xmax'?)"),
            std::string::npos)
      << error_of(layer("kind = \"alid\"\nfaces = [\"xmx\"]\nthickness = 0.01\nfrequency = 1e5\n"));
  EXPECT_NE(error_of(layer("kind = \"alid\"\nfaces = [\"zmax\"]\nthickness = 0.01\nfrequency = 1e5\n"))
                .find("m.toml:13: [[absorbing]] #1 (alid): unknown face 'zmax'"),
            std::string::npos);
  EXPECT_NE(error_of(layer("kind = \"alid\"\nfaces = [\"ymax\"]\nthickness = 0.2\nfrequency = 1e5\n"))
                .find("m.toml:14: [[absorbing]] #1 (alid): 'thickness' 0.2 m exceeds the model's extent 0.1 m along y"),
            std::string::npos);
  EXPECT_NE(error_of(layer("kind = \"alid\"\nfaces = [\"ymax\"]\nthickness = -1\nfrequency = 1e5\n"))
                .find("m.toml:14: [[absorbing]] #1 (alid): 'thickness' is -1"),
            std::string::npos);
  EXPECT_NE(error_of(layer("kind = \"alid\"\nthickness = 0.01\nfrequency = 1e5\n"))
                .find("m.toml:11: [[absorbing]] #1 (alid): give 'faces'"),
            std::string::npos);
  EXPECT_NE(error_of(layer("kind = \"alid\"\nelement_set = \"edge\"\nthickness = 0.01\nfrequency = 1e5\n"))
                .find("m.toml:13: [[absorbing]] #1 (alid): no element set named 'edge'"),
            std::string::npos);
  EXPECT_NE(error_of(layer("kind = \"srm\"\nfaces = [\"xmax\"]\nthickness = 0.01\n"))
                .find("m.toml:11: [[absorbing]] #1 (srm): no design frequency"),
            std::string::npos);
  EXPECT_NE(error_of(layer("kind = \"alid\"\nfaces = [\"xmax\"]\nthickness = 0.01\nfrequency = 1e5\ndamping = 3\n"))
                .find("m.toml:16: [[absorbing]] #1"),
            std::string::npos);
}

}  // namespace
}  // namespace tremor
