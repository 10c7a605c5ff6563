#include <gtest/gtest.h>

#include <cmath>

#include "tremor/core/error.hpp"
#include "tremor/model/material.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// Steel-like constants; every pair of isotropic inputs must give the same stiffness.
constexpr double E = 210e9, nu = 0.3, rho = 7850.0;

TEST(Material, IsotropicPairsAgree) {
  const Material a = Material::from_youngs("a", E, nu, rho);
  const Material b = Material::from_lame("b", a.lambda(), a.mu(), rho);
  const Material c = Material::from_speeds("c", a.max_wave_speed(), a.min_wave_speed(), rho);
  for (int i = 0; i < 36; ++i) {
    // Conversions go through a few divisions and a square root: 1e-12 relative covers rounding.
    EXPECT_NEAR(b.stiffness[i], a.stiffness[i], 1e-12 * E);
    EXPECT_NEAR(c.stiffness[i], a.stiffness[i], 1e-12 * E);
  }
  // mu = E / (2 (1 + nu)) exactly as in any elasticity text.
  EXPECT_NEAR(a.mu(), E / 2.6, 1e-12 * E);
  // c_p^2 = E (1 - nu) / ((1 + nu)(1 - 2 nu) rho), rounding only.
  EXPECT_NEAR(a.max_wave_speed(), std::sqrt(E * (1 - nu) / ((1 + nu) * (1 - 2 * nu) * rho)), 1e-9);
}

TEST(Material, EngineeringConstantsOfAnIsotropicSolid) {
  const double G = E / (2.0 * (1.0 + nu));
  const Material iso = Material::from_youngs("iso", E, nu, rho);
  const Material eng = Material::from_engineering_constants("eng", E, E, E, nu, nu, nu, G, G, G, rho);
  // Inverting the 6x6 compliance by elimination loses a few digits at most.
  for (int i = 0; i < 36; ++i) EXPECT_NEAR(eng.stiffness[i], iso.stiffness[i], 1e-9 * E);
}

TEST(Material, AnisotropicWaveSpeedMatchesIsotropicLimit) {
  const Material iso = Material::from_youngs("iso", E, nu, rho);
  const Material aniso = Material::from_stiffness("aniso", iso.stiffness, rho);
  EXPECT_FALSE(aniso.isotropic);
  // The Christoffel search on a 2-degree net is exact for isotropic C (same speed in every direction).
  EXPECT_NEAR(aniso.max_wave_speed(), iso.max_wave_speed(), 1e-9 * iso.max_wave_speed());
  EXPECT_NEAR(aniso.min_wave_speed(), iso.min_wave_speed(), 1e-9 * iso.min_wave_speed());
}

TEST(Material, PlaneStressAndStrain) {
  const Material m = Material::from_youngs("m", E, nu, rho);
  const Voigt3 strain = plane_stiffness(m, Formulation::PlaneStrain);
  const Voigt3 stress = plane_stiffness(m, Formulation::PlaneStress);
  // Textbook plane stress: D = E/(1-nu^2) [[1, nu, 0], [nu, 1, 0], [0, 0, (1-nu)/2]].
  const double f = E / (1.0 - nu * nu);
  EXPECT_NEAR(stress[0], f, 1e-9 * E);
  EXPECT_NEAR(stress[1], f * nu, 1e-9 * E);
  EXPECT_NEAR(stress[8], f * (1.0 - nu) / 2.0, 1e-9 * E);
  EXPECT_NEAR(stress[2], 0.0, 1e-9 * E);
  // Plane strain keeps lambda + 2 mu on the diagonal.
  EXPECT_NEAR(strain[0], m.lambda() + 2.0 * m.mu(), 1e-9 * E);
  EXPECT_NEAR(strain[1], m.lambda(), 1e-9 * E);
}

TEST(Material, BadConstantsAreRejectedByName) {
  auto message = [](auto make) {
    try {
      make();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] { Material::from_youngs("rubber", E, 0.5, rho); }).find("'rubber'"), std::string::npos);
  EXPECT_NE(message([] { Material::from_youngs("x", -E, 0.3, rho); }).find("Young"), std::string::npos);
  EXPECT_NE(message([] { Material::from_speeds("x", 1000.0, 1000.0, rho); }).find("c_p"), std::string::npos);
  EXPECT_NE(message([] { Material::from_youngs("x", E, 0.3, 0.0); }).find("density"), std::string::npos);
  Voigt6 bad{};
  bad[0] = 1.0;
  EXPECT_NE(message([&] { Material::from_stiffness("x", bad, rho); }).find("positive definite"), std::string::npos);
  Voigt6 asym = Material::from_youngs("s", E, nu, rho).stiffness;
  asym[1] *= 1.1;
  EXPECT_NE(message([&] { Material::from_stiffness("x", asym, rho); }).find("symmetric"), std::string::npos);
}

}  // namespace
}  // namespace tremor
