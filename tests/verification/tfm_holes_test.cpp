// The total focusing method on a simulated full-matrix capture (Holmes, Drinkwater and Wilcox
// 2005): a 2D steel block, 16 x 10 mm of 0.1 mm quad4 cells (16 a shear wavelength at 2 MHz),
// with two side-drilled holes of 0.2 mm radius ([[mesh.hole]]) at known places, and a 16-element
// 2 MHz array on its top face ([[array]], fmc = true). Each element fires in its own shot on one
// set-up. The block without the holes, run the same way, gives the capture's baseline: subtracted,
// it leaves the holes' echoes alone (no direct or surface waves, no back wall). Imaged in L-L and
// T-T, each hole's image peaks within a fifth of the mode's wavelength of its centre.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "fmc_capture.hpp"
#include "tremor/core/format.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/imaging/tfm.hpp"
#include "tremor/io/model_file.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

constexpr double frequency = 2e6;  // Hz
// The holes: x along the array from its centre, and depth under the top face (m).
// Off the array's axis: a normal force on a free surface sends little shear straight down, so T-T
// sees holes at an angle best.
constexpr std::array<std::array<double, 2>, 2> holes{{{-2e-3, 3e-3}, {2e-3, 5.5e-3}}};
constexpr double centre_x = 0.008, top = 0.01;  // the array's centre on the top face

std::string block(bool drilled) {
  std::string text =
      "[mesh]\ngenerator = \"rectangle\"\nelement = \"quad4\"\nsize = [0.016, 0.01]\ndivisions = [160, 100]\n";
  if (drilled)
    for (const auto& [x, depth] : holes)
    text += str("[[mesh.hole]]\ncentre = [", centre_x + x, ", ", top - depth, "]\nradius = 0.2e-3\n");
  // 8 us: the farthest T-T echo (hole 2 from the far element, 2 x 8.5 mm at 3.2 mm/us, after the
  // 1.5 us burst) ends by 6.8 us.
  text += "[[material]]\nname = \"steel\"\ndensity = 7850.0\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n"
          "[[section]]\nelement_set = \"all\"\nmaterial = \"steel\"\nformulation = \"plane_strain\"\nthickness = 1.0\n"
          // One time step for both (the holes could change the automatic one).
          "[explicit]\nduration = 8e-6\ntime_step = 1e-8\n"
          // Elements 0.4 mm wide (four faces, centred on nodes) at 0.6 mm.
          "[[array]]\nname = \"probe\"\nelements = 16\npitch = 0.6e-3\nwidth = 0.4e-3\n"
          "centre = [0.008, 0.01]\nsurface = \"ymax\"\namplitude = 1e6\nfmc = true\n"
          "signal = { kind = \"tone_burst\", frequency = 2e6, cycles = 3 }\n";
  return text;
}

TEST(TotalFocusing, ImagesSideDrilledHolesWhereTheyAre) {
  const Model model = io::read_model_buffer(block(true), "block.toml", "");
  ASSERT_EQ(model.holes.size(), 2u);
  const TransducerArray& array = model.arrays.at(0);
  ASSERT_EQ(array.n_elements, 16);
  imaging::Fmc fmc;
  for (const auto& e : array.element_centres) fmc.elements.push_back({e[0] - centre_x, 0.0});
  // The footprints' mean displacement into the block (-y).
  fmc.data = test::capture_of(model, explicit_fe::Quantity::Displacement, 1, -1.0, fmc.n_samples, fmc.dt);
  std::size_t samples = 0;
  double dt = 0.0;
  const std::vector<double> baseline = test::capture_of(io::read_model_buffer(block(false), "sound.toml", ""),
                                                         explicit_fe::Quantity::Displacement, 1, -1.0, samples, dt);
  ASSERT_EQ(samples, fmc.n_samples);
  ASSERT_EQ(dt, fmc.dt);
  for (std::size_t k = 0; k < baseline.size(); ++k) fmc.data[k] -= baseline[k];
  // The 3-cycle burst's centre, 0.75 us: a wave leaves the transmitter then.
  fmc.t0 = -1.5 / frequency;

  const Material& steel = model.materials.at(0);
  const double c_l = std::sqrt((steel.lambda() + 2.0 * steel.mu()) / steel.density);
  const double c_t = std::sqrt(steel.mu() / steel.density);
  for (const double c : {c_l, c_t}) {
    const double wavelength = c / frequency;
    for (const auto& [x, depth] : holes) {
      // A 3 x 3 mm window about the hole, 0.025 mm pixels: where its image peaks.
      const imaging::GridMap image =
          imaging::total_focusing(fmc, 121, 121, {x - 1.5e-3, depth - 1.5e-3}, {x + 1.5e-3, depth + 1.5e-3}, c, c);
      const auto peak = std::max_element(image.values.begin(), image.values.end()) - image.values.begin();
      const auto at = image.point(static_cast<Index>(peak));
      const double miss = std::hypot(at[0] - x, at[1] - depth);
      std::printf("%s hole at (%g, %g) mm: the image peaks %.3f mm from its centre\n", c == c_l ? "L-L" : "T-T",
                  x * 1e3, depth * 1e3, miss * 1e3);
      // Within a fifth of the mode's wavelength (0.60 mm L, 0.32 mm T); seen 0.08 to 0.2 mm, the
      // hole's radius (0.2 mm) the scale of what separates its echo's origin from its centre.
      EXPECT_LT(miss, wavelength / 5.0) << (c == c_l ? "L-L" : "T-T") << " hole at depth " << depth << ": peak at ("
                                        << at[0] << ", " << at[1] << ")";
      // And it is the hole's image, not the window's edge: the peak stands inside.
      EXPECT_LT(std::abs(at[0] - x), 1.4e-3);
      EXPECT_LT(std::abs(at[1] - depth), 1.4e-3);
    }
  }
}

}  // namespace
}  // namespace tremor
