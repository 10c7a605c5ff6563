// [[mesh.crack]] in the model file: read, cut into the mesh (mesh/cracks.hpp), and its faces free:
// a crack through the whole block leaves the far side at rest, a crack part of the way does not.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "support/support.hpp"
#include "tremor/mesh/cracks.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/model_file.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using test::error_of;
using test::expect_contains;

// A 2D steel block 8 x 4 mm of 0.25 mm quad4 cells, a vertical force on its top face at x = 2 mm,
// a receiver on the top face at x = 6 mm; `crack` appended to [mesh].
std::string block(const std::string& crack) {
  return "[mesh]\ngenerator = \"rectangle\"\nelement = \"quad4\"\nsize = [0.008, 0.004]\ndivisions = [32, 16]\n" +
         crack +
         "[[material]]\nname = \"steel\"\ndensity = 7850.0\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n"
         "[[section]]\nelement_set = \"all\"\nmaterial = \"steel\"\nformulation = \"plane_strain\"\nthickness = 1.0\n"
         "[[source]]\nname = \"push\"\nposition = [0.002, 0.004]\ndirection = [0.0, -1.0]\namplitude = 1e3\n"
         "signal = { kind = \"ricker\", frequency = 2e6 }\n"
         "[[receiver]]\nname = \"far\"\npositions = [[0.006, 0.004]]\n"
         "[explicit]\nduration = 3e-6\n";
}

Model read(const std::string& text) { return io::read_model_buffer(text, "m.toml", ""); }

double largest_far_motion(const Model& model) {
  explicit_fe::RunOptions options;
  options.backend = "serial";
  const explicit_fe::ExplicitRun run = explicit_fe::run_explicit(model, options);
  EXPECT_TRUE(run.ok()) << run.message;
  double largest = 0.0;
  for (const double v : run.histories.at(0).values) largest = std::max(largest, std::abs(v));
  return largest;
}

TEST(ModelFileCrack, ACrackThroughTheBlockLeavesItsFarSideAtRest) {
  const Model whole = read(block(""));
  const Model through = read(block("[[mesh.crack]]\nname = \"cut\"\npoints = [[0.004, 0.004], [0.004, 0.0]]\n"));
  const Model part = read(block("[[mesh.crack]]\nname = \"cut\"\npoints = [[0.004, 0.004], [0.004, 0.002]]\n"));
  EXPECT_EQ(through.mesh.n_nodes(), whole.mesh.n_nodes() + 17);  // every node of the line x = 4 mm
  EXPECT_EQ(part.mesh.n_nodes(), whole.mesh.n_nodes() + 8);      // the mouth and 7 below; the tip closed
  EXPECT_EQ(through.mesh.face_sets.at("cut").size(), 32u);
  const double moved = largest_far_motion(whole);
  EXPECT_GT(moved, 1e-12);  // the wave reaches x = 6 mm within 3 us (the Rayleigh wave in ~1.3 us)
  EXPECT_EQ(largest_far_motion(through), 0.0);  // nothing crosses a crack through the block
  const double around = largest_far_motion(part);  // around the tip and under it
  EXPECT_GT(around, 1e-3 * moved);
  EXPECT_LT(around, moved);  // the crack shields the surface behind it
}

// In 3D: a bar 4 x 2 x 2 mm of 0.25 mm hex8 cells, cut across at x = 2 mm by a square crack over
// its whole section (a polygon of four vertices), and by one over its upper half only. A push on
// its left end reaches a receiver on its right end through the half-cut bar, not through the cut
// one: its faces are free and its nodes two.
TEST(ModelFileCrack, A3DCrackAcrossTheBarStopsTheWave) {
  const auto bar = [](const std::string& crack) {
    return "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\nsize = [0.004, 0.002, 0.002]\ndivisions = [16, 8, 8]\n" +
           crack +
           "[[material]]\nname = \"steel\"\ndensity = 7850.0\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n"
           "[[section]]\nelement_set = \"all\"\nmaterial = \"steel\"\n"
           "[[source]]\nname = \"push\"\nposition = [0.0, 0.001, 0.001]\ndirection = [1.0, 0.0, 0.0]\namplitude = 1e3\n"
           "signal = { kind = \"ricker\", frequency = 2e6 }\n"
           "[[receiver]]\nname = \"far\"\npositions = [[0.004, 0.001, 0.001]]\n"
           "[explicit]\nduration = 2e-6\n";
  };
  const Model cut = read(bar("[[mesh.crack]]\nname = \"cut\"\npoints = [[0.002, 0.0, 0.0], [0.002, 0.002, 0.0], "
                             "[0.002, 0.002, 0.002], [0.002, 0.0, 0.002]]\n"));
  const Model half = read(bar("[[mesh.crack]]\nname = \"cut\"\npoints = [[0.002, 0.0, 0.001], [0.002, 0.002, 0.001], "
                              "[0.002, 0.002, 0.002], [0.002, 0.0, 0.002]]\n"));
  const Model whole = read(bar(""));
  EXPECT_EQ(cut.cracks.at(0).faces, 64);                                 // 8 x 8 faces
  EXPECT_EQ(cut.mesh.n_nodes(), whole.mesh.n_nodes() + 81);             // every node of the section
  EXPECT_EQ(half.mesh.n_nodes(), whole.mesh.n_nodes() + 9 * 4);  // above z = 1 mm; its front (z = 1 mm) stays one
  const double moved = largest_far_motion(whole);
  EXPECT_GT(moved, 1e-12);  // the P wave crosses 4 mm in 0.7 us
  EXPECT_EQ(largest_far_motion(cut), 0.0);
  const double around = largest_far_motion(half);
  EXPECT_GT(around, 1e-3 * moved);
}

// A read mesh's surface inside the part opened into a crack (tests/data/model/cracked.inp: the
// edge x = 1 mm from the top edge halfway down): its mouth's node split, its tip's kept, both
// sides its surface; a surface on the boundary, or none, refused.
TEST(ModelFileCrack, ASurfaceOfAReadMeshOpensIntoACrack) {
  const auto read_inp = [](const std::string& crack) {
    return io::read_model_buffer("[mesh]\nfile = \"cracked.inp\"\n" + crack, "m.toml", test::data_path("model"));
  };
  const Model whole = read_inp("");
  const Model cut = read_inp("[[mesh.crack]]\nsurface = \"CRACK\"\n");
  ASSERT_EQ(cut.cracks.size(), 1u);
  const Crack& crack = cut.cracks[0];
  EXPECT_EQ(crack.name, "CRACK");
  EXPECT_EQ(crack.faces, 1);
  EXPECT_EQ(crack.copied_nodes, 1);  // the mouth, (1, 2) mm; the tip (1, 1) mm stays one
  EXPECT_EQ(cut.mesh.n_nodes(), whole.mesh.n_nodes() + 1);
  EXPECT_EQ(whole.mesh.face_sets.at("CRACK").size(), 1u);
  EXPECT_EQ(cut.mesh.face_sets.at("CRACK").size(), 2u);  // both sides now
  // Its shape for outlines: the face, a segment from (1, 1) to (1, 2) mm.
  ASSERT_EQ(crack.pieces.size(), 1u);
  EXPECT_TRUE(crack.near({1e-3, 1.5e-3, 0.0}, 2, 1e-9));
  EXPECT_FALSE(crack.near({1e-3, 0.5e-3, 0.0}, 2, 1e-6));
  // Elements 4 and 5 (either side of it) no longer share the mouth's node, and still share the tip's.
  const auto nodes_of = [&](Label label) {
    for (Index e = 0; e < cut.mesh.n_elements(); ++e)
      if (cut.mesh.element_label(e) == label) {
        const ElementRef ref = cut.mesh.locate(e);
        const auto span = cut.mesh.blocks[static_cast<std::size_t>(ref.block)].nodes(ref.element);
        return std::vector<Index>(span.begin(), span.end());
      }
    return std::vector<Index>{};
  };
  const std::vector<Index> left = nodes_of(4), right = nodes_of(5);
  // CPE4 corners in order: element 4 (5, 6, 10, 9), element 5 (6, 7, 11, 10).
  EXPECT_NE(left[2], right[3]);  // node 10, the mouth
  EXPECT_EQ(left[1], right[0]);  // node 6, the tip
  cut.mesh.validate("m.toml");
  expect_contains(error_of([&] { (void)read_inp("[[mesh.crack]]\nsurface = \"EDGE\"\n"); }),
                  {"m.toml:", "crack 'EDGE'", "face 1 of element 1 of surface 'EDGE' lies on the mesh's boundary"});
  expect_contains(error_of([&] { (void)read_inp("[[mesh.crack]]\nsurface = \"NOPE\"\n"); }),
                  {"crack 'NOPE'", "the mesh has no surface 'NOPE'"});
  expect_contains(error_of([&] { (void)read_inp("[[mesh.crack]]\nsurface = \"CRACK\"\npoints = [[0.001, 0.002], [0.001, 0.001]]\n"); }),
                  {"both 'points' and 'surface'"});
}

TEST(ModelFileCrack, BadCracksNameTheirLine) {
  expect_contains(error_of([] { (void)read(block("[[mesh.crack]]\nname = \"c\"\n")); }),
                  {"m.toml:6", "missing 'points', such as [[0.02, 0.04], [0.02, 0.035]]"});
  expect_contains(
      error_of([] { (void)read(block("[[mesh.crack]]\npoints = [[0.004, 0.004], [0.004, 0.002], [0.005, 0.002]]\n")); }),
      {"m.toml:7", "3 points; a 2D crack is a segment"});
  expect_contains(error_of([] { (void)read(block("[[mesh.crack]]\npoints = [[0.0041, 0.004], [0.0041, 0.002]]\n")); }),
                  {"m.toml:6: crack 'crack1': element faces cover 0 m of its 0.002 m"});
  expect_contains(error_of([] { (void)read(block("[[mesh.crack]]\npoints = [[0.004, 0.004], [0.004, 0.009]]\n")); }),
                  {"m.toml:7", "'points'[1]"});
  expect_contains(error_of([] { (void)read(block("[[mesh.crack]]\nname = \"c\"\npoints = [[0.004, 0.004], [0.004, 0.002]]\n"
                                                 "depth = 2\n")); }),
                  {"m.toml:9", "depth"});
}

}  // namespace
}  // namespace tremor
