// The total focusing method through water on a simulated immersion capture: a 2D steel block,
// 12 mm wide and 6 mm deep, under 2.25 mm of water, 0.15 mm cells raised to GLL order 2 (nodes
// 0.075 mm apart, 9.9 a water wavelength at 2 MHz: linear quad4 at that spacing carry the burst's
// envelope some 5% slow in the water, which alone puts an L-L image 0.5 mm deep), with two
// side-drilled holes of 0.2 mm radius at known places, and a 16-element 2 MHz array immersed on
// the water's top ([[array]] on a fluid's surface: each element a piston, each receiver its
// footprint's mean pressure). The block without the holes gives the baseline; less it, the
// capture holds the holes' echoes alone. Imaged in L-L through the water's surface by Fermat's
// principle, each hole's image peaks within a fifth of the L wavelength of its centre.
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
constexpr double water_path = 2.25e-3, steel_top = 6e-3, centre_x = 6e-3;  // m
// The holes: x along the array from its centre, and depth under the steel's surface (m).
constexpr std::array<std::array<double, 2>, 2> holes{{{-1.2e-3, 2e-3}, {1.2e-3, 3.5e-3}}};

std::string block(bool drilled) {
  std::string text =
      "[mesh]\ngenerator = \"rectangle\"\nelement = \"quad4\"\nsize = [0.012, 0.00825]\ndivisions = [80, 55]\norder = 2\n"
      "[[mesh.element_set]]\nname = \"steel\"\nmin = [0.0, 0.0]\nmax = [0.012, 0.006]\n"
      "[[mesh.element_set]]\nname = \"water\"\nmin = [0.0, 0.006]\nmax = [0.012, 0.00825]\n";
  if (drilled)
    for (const auto& [x, depth] : holes)
      text += str("[[mesh.hole]]\ncentre = [", centre_x + x, ", ", steel_top - depth, "]\nradius = 0.2e-3\n");
  text += "[[material]]\nname = \"steel\"\ndensity = 7850.0\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n"
          "[[material]]\nname = \"water\"\nkind = \"fluid\"\ndensity = 1000.0\nsound_speed = 1480.0\n"
          "[[section]]\nelement_set = \"steel\"\nmaterial = \"steel\"\nformulation = \"plane_strain\"\n"
          "[[section]]\nelement_set = \"water\"\nmaterial = \"water\"\n"
          // 7.5 us: the far hole's L-L echo from the farthest elements (2 x 2.25 mm of water at
          // 1.48 mm/us and 2 x 5 mm of steel at 6 mm/us), after the 1.5 us burst, ends by 6.2 us.
          // One time step for both (the holes could change the automatic one).
          "[explicit]\nduration = 7.5e-6\ntime_step = 5e-9\n"
          // Elements 0.3 mm wide (two faces) at 0.6 mm, moving the water at 1 mm/s.
          "[[array]]\nname = \"probe\"\nelements = 16\npitch = 0.6e-3\nwidth = 0.3e-3\n"
          "centre = [0.006, 0.00825]\nsurface = \"ymax\"\namplitude = 1e-3\nfmc = true\n"
          "signal = { kind = \"tone_burst\", frequency = 2e6, cycles = 3 }\n";
  return text;
}

TEST(TotalFocusing, ImagesHolesThroughWaterOnAnImmersionCapture) {
  const Model model = io::read_model_buffer(block(true), "immersed.toml", "");
  ASSERT_EQ(model.holes.size(), 2u);
  const TransducerArray& array = model.arrays.at(0);
  ASSERT_TRUE(array.immersion);
  imaging::Fmc fmc;
  for (const auto& e : array.element_centres) fmc.elements.push_back({e[0] - centre_x, 0.0});
  fmc.data = test::capture_of(model, explicit_fe::Quantity::Pressure, 0, 1.0, fmc.n_samples, fmc.dt);
  std::size_t samples = 0;
  double dt = 0.0;
  const std::vector<double> baseline = test::capture_of(io::read_model_buffer(block(false), "sound.toml", ""),
                                                         explicit_fe::Quantity::Pressure, 0, 1.0, samples, dt);
  ASSERT_EQ(samples, fmc.n_samples);
  ASSERT_EQ(dt, fmc.dt);
  double echoes = 0.0, direct = 0.0;  // the holes' and the front wall's, for the printout
  for (std::size_t k = 0; k < baseline.size(); ++k) {
    fmc.data[k] -= baseline[k];
    echoes = std::max(echoes, std::abs(fmc.data[k]));
    direct = std::max(direct, std::abs(baseline[k]));
  }
  std::printf("immersion capture: the holes' echoes peak at %.3g Pa, the front wall's and the direct field's at "
              "%.3g Pa\n", echoes, direct);
  ASSERT_GT(echoes, 1e-4 * direct);  // the holes are seen, above rounding
  fmc.t0 = -1.5 / frequency;         // the 3-cycle burst's centre: a wave leaves the element then

  const Material& steel = model.material("steel");
  const double c_l = std::sqrt((steel.lambda() + 2.0 * steel.mu()) / steel.density), c_w = 1480.0;
  const imaging::Path through{{c_w, c_l}, {water_path}};
  for (const auto& [x, depth] : holes) {
    // A 2 x 2 mm window about the hole, 0.025 mm pixels, in depth under the array: clear of the
    // back wall 2.5 mm under the deeper hole, whose shadow (the back wall's echo the hole takes
    // away) the baseline leaves, as bright as the hole and some 2 mm long in depth in L-L.
    const double z = water_path + depth;
    const imaging::GridMap image = imaging::total_focusing(fmc, 81, 81, {x - 1e-3, z - 1e-3}, {x + 1e-3, z + 1e-3},
                                                           through, through, Exec::openmp());
    const auto peak = std::max_element(image.values.begin(), image.values.end()) - image.values.begin();
    const auto at = image.point(static_cast<Index>(peak));
    const double miss = std::hypot(at[0] - x, at[1] - z);
    std::printf("L-L through water, hole at (%g, %g) mm under the steel's surface: the image peaks %.3f mm from its "
                "centre\n", x * 1e3, depth * 1e3, miss * 1e3);
    // Within a fifth of the L wavelength (0.60 mm); seen 0.19 and 0.33 mm, the hole's radius
    // (0.2 mm) the scale of what separates its echo's origin (its lit wall) from its centre.
    EXPECT_LT(miss, c_l / frequency / 5.0) << "hole at depth " << depth << ": peak at (" << at[0] << ", " << at[1]
                                          << ")";
    // The hole's image, not the window's edge: the peak stands inside.
    EXPECT_LT(std::abs(at[0] - x), 0.95e-3);
    EXPECT_LT(std::abs(at[1] - z), 0.95e-3);
  }
}

}  // namespace
}  // namespace tremor
