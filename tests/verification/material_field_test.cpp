// A material field against the same model meshed as sections (docs/verification.md, "Material
// fields"): a two-layer field, slow rock under fast rock, given as the nearest of grid points a
// quarter of the plate above and below the interface, samples each element's layer exactly: at its
// centre (quad4), and on GLL elements at each node, those on the interface too, from inside the
// element (fem/point_materials.hpp), so the run through the whole explicit solver (loads, the
// stable step, the lumped mass, the operator, receivers) must equal the run of two sections, one
// per layer, within rounding. On quad4 (the matrix-free operator) and on GLL order 2 (sem); elastic, and with
// Q_P and Q_S per layer (the field's q_p and q_s against each section's constant Q: the memory
// variables of each element's own solids).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>

#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/model/material_field.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

namespace fs = std::filesystem;

// A 20 x 10 mm plane-strain plate of 0.5 mm cells (raised to GLL `order`), a Ricker force on the
// top, receivers across the interface at y = 5 mm; `media` its materials and sections.
std::string model_text(const std::string& media, int order) {
  return str("[mesh]\ngenerator = \"rectangle\"\nelement = \"quad4\"\nsize = [0.02, 0.01]\ndivisions = [40, 20]\n",
             order > 1 ? str("order = ", order, "\n") : std::string(), media,
             "[explicit]\nduration = 4e-6\n"
             "[[source]]\nposition = [0.01, 0.01]\ndirection = [0.0, -1.0]\n"
             "signal = { kind = \"ricker\", frequency = 1e6 }\n"
             "[[receiver]]\nname = \"across\"\n"
             "positions = [[0.01, 0.0075], [0.012, 0.0052], [0.014, 0.0048], [0.01, 0.002], [0.016, 0.009]]\n"
             "record = [\"displacement\"]\n");
}

const std::string two_sections =
    "[[mesh.element_set]]\nname = \"lower\"\nmin = [0.0, 0.0]\nmax = [0.02, 0.005]\n"
    "[[mesh.element_set]]\nname = \"upper\"\nmin = [0.0, 0.005]\nmax = [0.02, 0.01]\n"
    "[[material]]\nname = \"sediment\"\ndensity = 2100\np_wave_speed = 2600\ns_wave_speed = 1200\n"
    "[[material]]\nname = \"granite\"\ndensity = 2650\np_wave_speed = 5800\ns_wave_speed = 3300\n"
    "[[section]]\nelement_set = \"lower\"\nmaterial = \"sediment\"\nformulation = \"plane_strain\"\n"
    "[[section]]\nelement_set = \"upper\"\nmaterial = \"granite\"\nformulation = \"plane_strain\"\n";

// The same layers attenuating: sediment Q_P 40, Q_S 20; granite Q_P 200, Q_S 100 (3 solids each,
// the band a decade around the source).
const std::string two_attenuating_sections = [] {
  std::string text = two_sections;
  const auto after = [&](const std::string& line, const std::string& keys) {
    text.insert(text.find(line) + line.size(), keys);
  };
  after("s_wave_speed = 1200\n", "q_p = 40\nq_s = 20\n");
  after("s_wave_speed = 3300\n", "q_p = 200\nq_s = 100\n");
  return text;
}();

const std::string one_field =
    "[[material]]\nname = \"layers\"\nfield = \"layers.csv\"\nfield_interpolation = \"nearest\"\n"
    "[[section]]\nelement_set = \"all\"\nmaterial = \"layers\"\nformulation = \"plane_strain\"\n";

// The field: sediment at y = 0 and 2.5 mm, granite at 7.5 and 10 mm, on a grid of 3 x 4 points,
// taken as the nearest point's: the layers meet at y = 5 mm, on the elements' faces.
// `quality`: with the layers' Q_P and Q_S as two more columns.
std::string layers_csv(bool quality) {
  std::string text = quality ? "x,y,vp,vs,rho,q_p,q_s\n" : "x,y,vp,vs,rho\n";
  for (const double y : {0.0, 0.0025, 0.0075, 0.01})
    for (const double x : {0.0, 0.01, 0.02}) {
      const bool lower = y < 0.005;
      text += str(x, ",", y, lower ? ",2600,1200,2100" : ",5800,3300,2650");
      text += quality ? (lower ? ",40,20\n" : ",200,100\n") : "\n";
    }
  return text;
}

// (order, whether the layers attenuate)
class MaterialFieldRun : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(MaterialFieldRun, ATwoLayerFieldRunsAsTwoSections) {
  const log::Quiet quiet;
  const auto [order, attenuating] = GetParam();
  const fs::path folder = fs::temp_directory_path() / str("tremor_field_layers_", order, attenuating ? "_q" : "");
  fs::remove_all(folder);
  fs::create_directories(folder);
  std::ofstream(folder / "layers.csv") << layers_csv(attenuating);
  const auto read = [&](const std::string& media) {
    return io::read_model_buffer(model_text(media, order), (folder / "m.toml").string(), folder.string());
  };
  const Model sections = read(attenuating ? two_attenuating_sections : two_sections);
  const Model field = read(one_field);
  // Two distinct samples: a row per layer beyond the field's nominal one.
  EXPECT_EQ(element_materials(field).rows.size(), 3u);
  const explicit_fe::ExplicitRun a = explicit_fe::run_explicit(sections);
  const explicit_fe::ExplicitRun b = explicit_fe::run_explicit(field);
  fs::remove_all(folder);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.dt, b.dt);  // the stable step: the same fastest element and material
  EXPECT_EQ(a.steps, b.steps);
  ASSERT_EQ(a.histories.size(), 1u);
  ASSERT_EQ(b.histories.size(), 1u);
  const std::vector<double>& x = a.histories[0].values;
  const std::vector<double>& y = b.histories[0].values;
  ASSERT_EQ(x.size(), y.size());
  double peak = 0.0, difference = 0.0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    peak = std::max(peak, std::abs(x[k]));
    difference = std::max(difference, std::abs(x[k] - y[k]));
  }
  ASSERT_GT(peak, 0.0);
  std::printf("order %d%s: %lld steps of %.4g s, largest difference %.3g of the peak %.3g\n", order, attenuating ? ", attenuating" : "", b.steps, b.dt,
              difference, peak);
  // The same materials element by element, so the same arithmetic: rounding at most (the rows'
  // order differs, which no sum over elements depends on).
  EXPECT_LE(difference, 1e-12 * peak) << "order " << order << ": " << difference << " of " << peak;
}

INSTANTIATE_TEST_SUITE_P(Orders, MaterialFieldRun, ::testing::Combine(::testing::Values(1, 2), ::testing::Bool()));

}  // namespace
}  // namespace tremor
