// [[absorbing]] in the model file: the keys, their defaults and their errors (file:line).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/explicit/stiffness_damping.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/model/pml.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

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
  EXPECT_NE(error_of(layer("kind = \"pm\"\nfaces = [\"xmax\"]\nthickness = 0.01\nfrequency = 1e5\n"))
                .find("m.toml:12: [[absorbing]] #1: unknown kind 'pm'"),
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

// A PML: its keys, defaults and profile (model/pml.hpp), d0 from the fastest wave, the design
// reflection and the thickness, alpha_max from the design frequency.
TEST(ModelFileAbsorbing, PmlKeysDefaultsAndProfile) {
  const Model model = parse(plate +
                            "[[absorbing]]\n"  // line 11
                            "kind = \"pml\"\n"
                            "faces = [\"xmax\", \"ymin\"]\n"
                            "thickness = 0.03\n"
                            "frequency = 1e5\n"
                            "[[absorbing]]\n"
                            "kind = \"pml\"\n"
                            "faces = [\"xmin\"]\n"
                            "thickness = 0.02\n"
                            "frequency = 2e5\n"
                            "power = 3\n"
                            "reflection = 1e-3\n"
                            "multiaxial = 0.1\n");
  ASSERT_EQ(model.absorbing.size(), 2u);
  const AbsorbingLayer& a = model.absorbing[0];
  EXPECT_EQ(a.kind, AbsorbingKind::Pml);
  EXPECT_DOUBLE_EQ(a.power, 2.0);  // a PML's default
  EXPECT_DOUBLE_EQ(a.reflection, 0.0);
  const PmlProfile profile = pml_profile(model);
  const double c = model.materials[0].max_wave_speed();
  const PmlSide& xmax = profile.sides[0][1];
  ASSERT_TRUE(xmax.active);
  EXPECT_DOUBLE_EQ(xmax.inner, 0.17);
  EXPECT_NEAR(xmax.d0, 3.0 * c * std::log(1e4) / (2.0 * 0.03), 1e-9 * xmax.d0);
  EXPECT_NEAR(xmax.alpha_max, std::numbers::pi * 1e5, 1e-6);
  const PmlSide& xmin = profile.sides[0][0];
  EXPECT_NEAR(xmin.d0, 4.0 * c * std::log(1e3) / (2.0 * 0.02), 1e-9 * xmin.d0);
  EXPECT_DOUBLE_EQ(profile.multiaxial, 0.1);
  EXPECT_FALSE(profile.sides[1][1].active);  // ymax
  // Halfway into the xmax layer: d = d0 / 4, alpha = alpha_max / 2; y is stretched by p d there.
  double d[3], alpha[3];
  const double x[3] = {0.185, 0.05, 0.0};
  profile.at(x, d, alpha);
  EXPECT_NEAR(d[0], xmax.d0 / 4.0, 1e-9 * xmax.d0);
  EXPECT_NEAR(alpha[0], xmax.alpha_max / 2.0, 1e-9 * xmax.alpha_max);
  EXPECT_NEAR(d[1], 0.1 * xmax.d0 / 4.0, 1e-9 * xmax.d0);
  // In the ymin-xmax corner both axes have their own.
  const double corner[3] = {0.2, 0.0, 0.0};
  profile.at(corner, d, alpha);
  EXPECT_NEAR(d[0], xmax.d0 * (1.0 + 0.1), 1e-9 * xmax.d0);
  EXPECT_NEAR(alpha[0], 0.0, 1e-9);
  const std::vector<Index> inside = pml_elements(model, profile);
  EXPECT_EQ(inside.size(), 20u * 10u - 15u * 7u);  // all but the 15 x 7 cells clear of the three layers
}

// The grid damping (model/pml.hpp): eta 0.3 by default, the layer's own; beta = eta (dt_s / 2)^2
// max_k d_k (each axis's own d, not the multi-axial share), none without the step; the pre-flight
// shortens the stable step for its largest element's (at most eta d0 (dt_s / 2)^2), as for
// Rayleigh beta.
TEST(ModelFileAbsorbing, PmlGridDamping) {
  const std::string layers = plate +
                             "[[absorbing]]\n"
                             "kind = \"pml\"\n"
                             "faces = [\"xmax\", \"ymin\"]\n"
                             "thickness = 0.03\n"
                             "frequency = 1e5\n"
                             "multiaxial = 0.1\n"
                             "[[absorbing]]\n"
                             "kind = \"pml\"\n"
                             "faces = [\"xmin\"]\n"
                             "thickness = 0.02\n"
                             "frequency = 1e5\n"
                             "grid_damping = 2\n";
  Model model = parse(layers);
  EXPECT_DOUBLE_EQ(model.absorbing[0].grid_damping, -1.0);  // (the default)
  EXPECT_DOUBLE_EQ(model.absorbing[1].grid_damping, 2.0);
  PmlProfile profile = pml_profile(model);
  const PmlSide &xmax = profile.sides[0][1], &xmin = profile.sides[0][0];
  EXPECT_DOUBLE_EQ(xmax.grid_damping, default_pml_grid_damping);
  EXPECT_DOUBLE_EQ(xmin.grid_damping, 2.0);
  const double halfway[3] = {0.185, 0.05, 0.0};  // d_x = d0 / 4, d_y = p d0 / 4 (multi-axial)
  EXPECT_EQ(profile.beta(halfway), 0.0);          // no step: none
  EXPECT_FALSE(profile.grid_damped());
  const double dt = 1e-7;
  profile.grid_step = dt;
  EXPECT_NEAR(profile.beta(halfway), 0.3 * dt * dt / 4.0 * xmax.d0 / 4.0, 1e-12 * dt * dt * xmax.d0);
  const double inside[3] = {0.1, 0.05, 0.0};
  EXPECT_EQ(profile.beta(inside), 0.0);
  // The ymin-xmax corner: the larger of the two axes' own.
  const double corner[3] = {0.2, 0.0, 0.0};
  EXPECT_NEAR(profile.beta(corner), 0.3 * dt * dt / 4.0 * std::max(xmax.d0, profile.sides[1][0].d0),
              1e-12 * dt * dt * xmax.d0);
  // (xmin's, 2 d0 (dt / 2)^2, is past the cap, 0.1 dt: d0 dt 4.1)
  EXPECT_GT(dt * dt / 4.0 * std::max(2.0 * xmin.d0, 0.3 * xmax.d0), pml_grid_beta_cap * dt);
  EXPECT_DOUBLE_EQ(profile.largest_beta(), pml_grid_beta_cap * dt);
  EXPECT_TRUE(profile.grid_damped());
  // An element's: the mean over its nodes (two at the layer's inner plane, two at depth 0.01).
  const double coordinates[] = {0.17, 0.05, 0.18, 0.05, 0.18, 0.06, 0.17, 0.06};
  const Index nodes[] = {0, 1, 2, 3};
  EXPECT_NEAR(profile.element_beta(coordinates, nodes, 4), 0.5 * 0.3 * dt * dt / 4.0 * xmax.d0 / 9.0,
              1e-12 * dt * dt * xmax.d0);

  // The pre-flight: the step of the model without grid damping, shortened by its largest beta.
  const log::Quiet quiet;
  model.explicit_settings = ExplicitSettings{};
  model.explicit_settings->duration = 1e-5;
  const explicit_fe::Preflight damped = explicit_fe::preflight(model);
  EXPECT_GT(damped.stable_undamped, 0.0);
  EXPECT_DOUBLE_EQ(damped.pml.grid_step, damped.stable_undamped);
  EXPECT_NEAR(damped.stable_dt,
              explicit_fe::stable_step_with_damping(damped.stable_undamped, largest_element_beta(model, damped.pml)),
              1e-12 * damped.stable_dt);
  // (xmin's elements at the cap: the step 9.5% shorter, no more)
  EXPECT_LE(largest_element_beta(model, damped.pml), damped.pml.largest_beta());
  EXPECT_GT(largest_element_beta(model, damped.pml), 0.5 * damped.pml.largest_beta());
  EXPECT_GE(damped.stable_dt, 0.9049 * damped.stable_undamped);  // sqrt(1.01) - 0.1
  EXPECT_LT(damped.stable_dt, damped.stable_undamped);
  EXPECT_NE(damped.stable_by.find("for the PML's grid damping"), std::string::npos) << damped.stable_by;
  model.absorbing[0].grid_damping = 0.0;
  model.absorbing[1].grid_damping = 0.0;
  const explicit_fe::Preflight plain = explicit_fe::preflight(model);
  EXPECT_DOUBLE_EQ(plain.stable_dt, plain.stable_undamped);
  EXPECT_DOUBLE_EQ(plain.stable_undamped, damped.stable_undamped);
  EXPECT_FALSE(plain.pml.grid_damped());
}

// A C-PML (no multi-axial ratio) with faces not lined running through it warns that guided waves
// can grow there, naming the faces and the ratio; in a material of high Poisson's ratio it names
// the material's ratio too (not at nu 1/3). With every face lined, or the ratio set, neither.
TEST(ModelFileAbsorbing, PmlWithoutMultiaxialWarnsAndNamesAHighPoissonsRatio) {
  const std::string layer = "[explicit]\nduration = 1e-6\n[[absorbing]]\nkind = \"pml\"\nfaces = [\"xmax\", \"ymin\"]\n"
                            "thickness = 0.03\nfrequency = 1e5\n";
  const auto warnings = [&](const std::string& text, double nu) {
    Model model = parse(text);
    model.materials[0] = Material::from_youngs(model.materials[0].name, 200e9, nu, 7800.0);
    const log::Quiet quiet;
    return explicit_fe::preflight(model).warnings;
  };
  const auto mentions = [](const std::vector<std::string>& all, const char* what) {
    return std::any_of(all.begin(), all.end(), [&](const std::string& w) { return w.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(mentions(warnings(plate + layer, 0.405), "Poisson's ratio 0.405"));
  EXPECT_TRUE(mentions(warnings(plate + layer, 0.405), "multiaxial = 0.05 to 0.1"));
  EXPECT_FALSE(mentions(warnings(plate + layer, 1.0 / 3.0), "Poisson's ratio"));
  EXPECT_TRUE(mentions(warnings(plate + layer, 1.0 / 3.0),
                       "faces xmin, ymax are not lined and run through the PML on xmax, ymin"));
  EXPECT_TRUE(mentions(warnings(plate + layer, 1.0 / 3.0), "multiaxial = 0.05 to 0.2"));
  EXPECT_FALSE(mentions(warnings(plate + layer + "multiaxial = 0.05\n", 0.405), "multiaxial"));
  std::string every = layer;
  every.replace(every.find("[\"xmax\", \"ymin\"]"), 16, "[\"xmin\", \"xmax\", \"ymin\", \"ymax\"]");
  EXPECT_FALSE(mentions(warnings(plate + every, 0.405), "multiaxial"));
}

TEST(ModelFileAbsorbing, PmlErrorsNameTheLine) {
  const auto layer = [](const std::string& keys) { return plate + "[[absorbing]]\nkind = \"pml\"\n" + keys; };
  const auto expect = [&](const std::string& keys, const std::string& piece) {
    const std::string error = error_of(layer(keys));
    EXPECT_NE(error.find(piece), std::string::npos) << error;
  };
  // Cells of 0.01 m: 0.015 is less than two.
  expect("faces = [\"xmax\"]\nthickness = 0.015\nfrequency = 1e5\n",
         "m.toml:11: absorbing layer (pml): thickness 0.015 m is less than two of its elements along x (face 'xmax': "
         "elements up to 0.01 m)");
  expect("faces = [\"xmax\"]\nthickness = 0.03\nfrequency = 1e5\nreflection = 2\n",
         "m.toml:16: [[absorbing]] #1 (pml): 'reflection' is 2; expected the amplitude ratio");
  expect("faces = [\"xmax\"]\nthickness = 0.03\nfrequency = 1e5\nmultiaxial = 1\n",
         "m.toml:16: [[absorbing]] #1 (pml): 'multiaxial' is 1; expected a ratio in [0, 1)");
  expect("faces = [\"xmax\"]\nthickness = 0.03\nfrequency = 1e5\ngrid_damping = -0.1\n",
         "m.toml:16: [[absorbing]] #1 (pml): 'grid_damping' is -0.1; expected a ratio in [0, 10] (default 0.3");
  expect("faces = [\"xmax\"]\nthickness = 0.03\nfrequency = 1e5\ngrid_damping = 11\n",
         "m.toml:16: [[absorbing]] #1 (pml): 'grid_damping' is 11; expected a ratio in [0, 10]");
  expect("element_set = \"all\"\nthickness = 0.03\nfrequency = 1e5\n",
         "m.toml:13: [[absorbing]] #1 (pml): a pml layer lines faces of the model's bounding box: give 'faces' only");
  expect("faces = [\"xmax\"]\nthickness = 0.03\n", "m.toml:11: [[absorbing]] #1 (pml): no design frequency");
  expect("faces = [\"ymax\"]\nthickness = 0.03\nfrequency = 1e5\npower = 2\n[[absorbing]]\nkind = \"pml\"\n"
         "faces = [\"ymax\"]\nthickness = 0.03\nfrequency = 1e5\n",
         "m.toml:17: absorbing layer (pml): face 'ymax' has a PML already");
  EXPECT_NE(error_of(plate + "[[absorbing]]\nkind = \"alid\"\nfaces = [\"xmax\"]\nthickness = 0.03\nfrequency = 1e5\n"
                             "reflection = 1e-3\n")
                .find("m.toml:16: [[absorbing]] #1 (alid): 'reflection' is a key of a pml layer"),
            std::string::npos);
  EXPECT_NE(error_of(plate + "[[absorbing]]\nkind = \"srm\"\nfaces = [\"xmax\"]\nthickness = 0.03\nfrequency = 1e5\n"
                             "grid_damping = 0.5\n")
                .find("m.toml:16: [[absorbing]] #1 (srm): 'grid_damping' is a key of a pml layer"),
            std::string::npos);
}

// A face of the bounding box the mesh only touches (the right-angled triangle's corner at x = 1)
// is no boundary to line.
TEST(ModelFileAbsorbing, PmlOnAFaceThatIsNotABoundaryIsRefused) {
  Model model = parse(plate);
  Mesh mesh(2);
  const double corners[3][2] = {{0.0, 0.0}, {1.0, 0.0}, {0.0, 1.0}};
  for (int n = 0; n < 3; ++n) mesh.add_node(n + 1, corners[n]);
  ElementBlock& block = mesh.block_for(ElementType::Tri3, 1);
  block.connectivity = {0, 1, 2};
  block.labels = {1};
  model.mesh = std::move(mesh);
  model.mesh.element_sets["all"] = {0};
  AbsorbingLayer layer;
  layer.kind = AbsorbingKind::Pml;
  layer.faces = {BoxFace::YMax};
  layer.thickness = 0.5;
  layer.frequency = 1e5;
  layer.origin = "m.toml:20";
  model.absorbing.push_back(layer);
  try {
    check_pml_layer(model, layer);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("m.toml:20: absorbing layer (pml): face 'ymax' is not a boundary of the "
                                             "mesh"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace tremor
