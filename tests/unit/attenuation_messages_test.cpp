// What an attenuating model that cannot run is told: each refusal names the line that asked for
// what cannot be (the operator's key, the section, the material), and offers only operators that
// keep memory variables and take the mesh.
#include <gtest/gtest.h>

#include <string>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/model_file.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// A small sediment block with Q; `element`, the material's extra keys and the file's tail as given.
// The material is at line 8; with one line of extra keys, the section at line 16, the tail at 22.
std::string sediment(const std::string& element, const std::string& material, const std::string& formulation,
                     const std::string& tail) {
  return "[mesh]\ngenerator = \"rectangle\"\nelement = \"" + element +
         "\"\norigin = [0.0, 0.0]\nsize = [200.0, 100.0]\ndivisions = [4, 2]\n\n"
         "[[material]]\nname = \"sed\"\ndensity = 2000.0\np_wave_speed = 2000.0\ns_wave_speed = 800.0\n"
         "q_p = 60\nq_s = 30\n" + material + "\n"
         "[[section]]\nelement_set = \"all\"\nmaterial = \"sed\"\nformulation = \"" + formulation + "\"\n"
         "[explicit]\nduration = 0.01\n" + tail +
         "\n[[source]]\nposition = [100.0, 100.0]\ndirection = [0.0, -1.0]\n"
         "signal = { kind = \"ricker\", frequency = 8.0 }\n";
}

std::string refusal(const std::string& text) {
  try {
    const Model model = io::read_model_buffer(text, "m.toml", "");
    explicit_fe::RunOptions options;
    options.backend = "serial";
    (void)explicit_fe::preflight(model, options);
  } catch (const Error& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(AttenuationMessages, EachRefusalNamesItsLine) {
  // An assembled operator asked for in the file: its key's line (22), and on quad4 only the
  // operators that run there.
  const std::string assembled = refusal(sediment("quad4", "", "plane_strain", "operator = \"block_csr\""));
  test::expect_contains(assembled, {"m.toml:22: attenuating materials", "'sed'", "the block_csr operator",
                                    "use matrix_free"});
  EXPECT_EQ(assembled.find(", sem"), std::string::npos) << assembled;
  // Plane stress: the section's line.
  test::expect_contains(refusal(sediment("quad-gll4", "", "plane_stress", "")),
                        {"m.toml:16: section on 'all': attenuating material 'sed' takes plane strain or 3D"});
  // Coarse-grained memory variables of more solids than an element's points spread: the material's.
  test::expect_contains(refusal(sediment("quad-gll1", "q_solids = 4\nq_coarse_grained = true", "plane_strain", "")),
                        {"m.toml:8: material 'sed': coarse-grained memory variables", "4 solids"});
}

}  // namespace TREMOR_TEST_FILE
}  // namespace tremor
