// The pointwise constitutive laws (fem/laws.hpp): each section's kind is read from its D, the
// isotropic law is the anisotropic law of its D to rounding, and a SectionLaw evaluates the kind
// its section holds.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "fem_test_helpers.hpp"
#include "tremor/fem/laws.hpp"
#include "tremor/model/material.hpp"

namespace tremor::fem {
namespace TREMOR_TEST_FILE {

std::vector<double> strain_of(int dim) {
  // Normal and shear parts of different sizes and signs, so every entry of D meets a value.
  if (dim == 2) return {1.3e-4, -0.7e-4, 2.9e-4};
  return {1.3e-4, -0.7e-4, 0.4e-4, 2.9e-4, -1.1e-4, 0.6e-4};
}

double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (const double x : v) m = std::max(m, std::abs(x));
  return m;
}

TEST(Laws, KindIsReadFromTheSectionsD) {
  const Material steel = Material::from_youngs("steel", 210e9, 0.29, 7850.0);
  EXPECT_EQ(law_kind(steel.stiffness.data(), 6), LawKind::Isotropic);
  for (const Formulation f : {Formulation::PlaneStrain, Formulation::PlaneStress}) {
    const Voigt3 plane = plane_stiffness(steel, f);
    EXPECT_EQ(law_kind(plane.data(), 3), LawKind::Isotropic) << to_string(f);
  }
  EXPECT_EQ(law_kind(test::anisotropic_D(3, 1e9).data(), 6), LawKind::Anisotropic);
  EXPECT_EQ(law_kind(test::anisotropic_D(2, 1e9).data(), 3), LawKind::Anisotropic);
  const Material ortho = Material::from_engineering_constants("ortho", 120e9, 10e9, 10e9, 0.3, 0.3, 0.4, 5e9, 5e9,
                                                              3.5e9, 1600.0);
  EXPECT_EQ(law_kind(ortho.stiffness.data(), 6), LawKind::Anisotropic);
  // One shear modulus off by 1e-10 relative: no longer isotropic (the check's tolerance is 1e-14).
  Voigt6 nearly = steel.stiffness;
  nearly[35] *= 1.0 + 1e-10;
  EXPECT_EQ(law_kind(nearly.data(), 6), LawKind::Anisotropic);
}

template <int Dim>
void isotropic_is_its_d(double lambda, double mu) {
  const std::vector<double> D = test::isotropic_D(Dim, lambda, mu), strain = strain_of(Dim);
  constexpr int nv = voigt_size<Dim>;
  std::vector<double> a(nv), i(nv);
  AnisotropicLaw<Dim, double>{D.data()}.stress(strain.data(), a.data());
  const IsotropicLaw<Dim, double> law = IsotropicLaw<Dim, double>::of(D.data());
  EXPECT_EQ(law.lambda, lambda);
  EXPECT_EQ(law.mu, mu);
  law.stress(strain.data(), i.data());
  // The two sum the same three products in different orders: rounding of a few terms, 1e-15.
  for (int k = 0; k < nv; ++k) EXPECT_NEAR(i[k], a[k], 1e-15 * max_abs(a)) << "component " << k;
}

TEST(Laws, IsotropicLawIsTheAnisotropicLawOfItsD) {
  isotropic_is_its_d<2>(52e9, 26e9);
  isotropic_is_its_d<3>(52e9, 26e9);
}

// A section's law is its kind's: on two sections (isotropic, anisotropic) each SectionLaw gives
// its own law's stress, and the kind decides (the anisotropic D evaluated as isotropic differs).
TEST(Laws, SectionLawEvaluatesTheSectionsKind) {
  std::vector<double> values(2 * material_stride, 0.0);
  const std::vector<double> iso = test::isotropic_D(3, 52e9, 26e9), aniso = test::anisotropic_D(3, 1e9);
  std::copy(iso.begin(), iso.end(), values.begin());
  std::copy(aniso.begin(), aniso.end(), values.begin() + material_stride);
  std::vector<int> kinds{static_cast<int>(law_kind(iso.data(), 6)), static_cast<int>(law_kind(aniso.data(), 6))};
  ASSERT_EQ(kinds, (std::vector<int>{int(LawKind::Isotropic), int(LawKind::Anisotropic)}));
  const MaterialView<double> material{values.data(), kinds.data()};
  const std::vector<double> strain = strain_of(3);
  std::vector<double> got(6), want(6);
  SectionLaw<3, double>(material, 0).stress(strain.data(), got.data());
  IsotropicLaw<3, double>{52e9, 26e9}.stress(strain.data(), want.data());
  EXPECT_EQ(got, want);  // the same operations: the same bits
  SectionLaw<3, double>(material, 1).stress(strain.data(), got.data());
  material.tangent<3>(1).stress(strain.data(), want.data());
  EXPECT_EQ(got, want);
  kinds[1] = static_cast<int>(LawKind::Isotropic);
  SectionLaw<3, double>(material, 1).stress(strain.data(), got.data());
  double difference = 0.0;
  for (int k = 0; k < 6; ++k) difference = std::max(difference, std::abs(got[static_cast<std::size_t>(k)] - want[static_cast<std::size_t>(k)]));
  EXPECT_GT(difference, 1e-3 * max_abs(want));
}

}  // namespace
}  // namespace tremor::fem
