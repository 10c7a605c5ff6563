// Body forces (fem/loads.hpp, element_body_force): the total equals mass times acceleration on
// every element type, the per-node split of single elements matches the textbook values, forces
// per volume ignore the density, and bad input names the load and the element.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "sparse_test_models.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/fem/loads.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

BodyForce everywhere(const Model& model, std::array<double, 3> acceleration,
                     std::array<double, 3> force_per_volume = {0.0, 0.0, 0.0}) {
  BodyForce force;
  force.elements.resize(static_cast<std::size_t>(model.mesh.n_elements()));
  for (std::size_t e = 0; e < force.elements.size(); ++e) force.elements[e] = static_cast<Index>(e);
  force.acceleration = acceleration;
  force.force_per_volume = force_per_volume;
  force.origin = "gravity.toml:7";
  return force;
}

std::array<double, 3> total(const std::vector<std::pair<Index, double>>& forces, int dim) {
  std::array<double, 3> sum{0.0, 0.0, 0.0};
  for (const auto& [dof, force] : forces) sum[static_cast<std::size_t>(dof % dim)] += force;
  return sum;
}

// Sum over elements of rho t volume, the volume by the mass rule (fem::element_volume): what the
// forces of a uniform acceleration total, whatever the rule's exactness.
double rule_mass(const Model& model) {
  const std::vector<int> section = model.element_sections();
  double mass = 0.0;
  Index global = 0;
  for (const ElementBlock& block : model.mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global) {
      const Section& s = model.sections[static_cast<std::size_t>(section[static_cast<std::size_t>(global)])];
      const double rho_t = model.material(s.material).density * (model.mesh.dim() == 2 ? s.thickness : 1.0);
      fem::with_element(block.type, block.order, [&](auto element) {
        using E = decltype(element);
        std::vector<double> x;
        for (Index node : block.nodes(e))
          for (double c : model.mesh.node(node)) x.push_back(c);
        mass += rho_t * fem::element_volume<E>(x.data());
      });
    }
  return mass;
}

// Every element type, undistorted (affine: the mass rule is exact) and distorted.
TEST(FemLoads, TotalBodyForceIsMassTimesAccelerationOnEveryElementType) {
  std::vector<test::ModelCase> cases = test::operator_cases();
  cases.push_back({ElementType::QuadGLL, 1, "quad_gll1"});
  cases.push_back({ElementType::HexGLL, 4, "hex_gll4"});
  for (const test::ModelCase& c : cases) {
    SCOPED_TRACE(c.label);
    const int dim = dimension(c.type);
    const std::array<double, 3> g{1.5, -9.81, dim == 3 ? 0.7 : 0.0};
    // Undistorted: halves of [0, 1] x [0, 0.8] (x [0, 0.6]), steel 7850 kg/m^3 (2D thickness 0.25)
    // on the left, 2700 kg/m^3 (thickness 0.5) on the right.
    const Model model = test::two_section_model(c.type, c.order, 2, 0.0);
    const double mass = dim == 2 ? 0.4 * (7850.0 * 0.25 + 2700.0 * 0.5) : 0.24 * (7850.0 + 2700.0);
    const auto forces = fem::body_forces(model, everywhere(model, g));
    const auto sum = total(forces, dim);
    for (int d = 0; d < dim; ++d)
      // Quadrature exact on affine elements: rounding only, over a few hundred terms.
      EXPECT_NEAR(sum[static_cast<std::size_t>(d)], mass * g[static_cast<std::size_t>(d)], 1e-12 * mass * 9.81) << d;
    // Sorted by DOF, one entry each.
    for (std::size_t k = 1; k < forces.size(); ++k) ASSERT_LT(forces[k - 1].first, forces[k].first);
    // Distorted and curved: the same rule gives the same mass (rounding only).
    const Model bent = test::two_section_model(c.type, c.order, test::cells_for(c.type), 0.15);
    const double bent_mass = rule_mass(bent);
    const auto bent_sum = total(fem::body_forces(bent, everywhere(bent, g)), dim);
    for (int d = 0; d < dim; ++d)
      EXPECT_NEAR(bent_sum[static_cast<std::size_t>(d)], bent_mass * g[static_cast<std::size_t>(d)],
                  1e-12 * bent_mass * 9.81)
          << d;
  }
}

// One element of type E on the affine image x = A xi + b of its reference element, density rho.
template <class E>
Model single_element(double rho) {
  constexpr int dim = E::dim;
  const double A[3][3] = {{2.0, 0.3, 0.1}, {-0.2, 1.0, 0.25}, {0.1, -0.15, 0.5}};
  const double b[3] = {0.4, -0.7, 1.1};
  Model model;
  model.source = "one element";
  model.mesh = Mesh(dim);
  ElementBlock& block = model.mesh.block_for(E::type);
  for (int a = 0; a < E::n_nodes; ++a) {
    double xi[3] = {0.0, 0.0, 0.0};
    E::node(a, xi);
    double x[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < dim; ++i) {
      x[i] = b[i];
      for (int j = 0; j < dim; ++j) x[i] += A[i][j] * xi[j];
    }
    model.mesh.add_node(a + 1, std::span<const double>(x, static_cast<std::size_t>(dim)));
    block.connectivity.push_back(a);
  }
  block.labels.push_back(1);
  model.mesh.element_sets["all"] = {0};
  model.materials.push_back(Material::from_youngs("m", 1e9, 0.25, rho));
  model.sections.push_back({"all", "m", dim == 2 ? Formulation::PlaneStress : Formulation::Solid, dim == 2 ? 0.1 : 1.0});
  model.validate();
  return model;
}

// The share of the element's load at each node, f_a / (rho t V g), for a load along the last axis.
template <class E>
std::vector<double> shares() {
  const Model model = single_element<E>(3.0);
  constexpr int dim = E::dim;
  std::array<double, 3> g{0.0, 0.0, 0.0};
  g[dim - 1] = -2.0;
  std::vector<double> x;
  for (Index node = 0; node < model.mesh.n_nodes(); ++node)
    for (double c : model.mesh.node(node)) x.push_back(c);
  const double load = 3.0 * (dim == 2 ? 0.1 : 1.0) * fem::element_volume<E>(x.data()) * -2.0;
  std::vector<double> out(static_cast<std::size_t>(E::n_nodes), 0.0);
  for (const auto& [dof, force] : fem::body_forces(model, everywhere(model, g))) {
    EXPECT_EQ(dof % dim, dim - 1) << "a force across the acceleration";
    out[static_cast<std::size_t>(dof / dim)] = force / load;
  }
  return out;
}

void expect_shares(const std::vector<double>& got, const std::vector<double>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  // Exact quadrature of polynomials: rounding only.
  for (std::size_t a = 0; a < got.size(); ++a) EXPECT_NEAR(got[a], expected[a], 1e-14) << "node " << a;
}

TEST(FemLoads, NodalSharesOfSingleElementsAreTheTextbookOnes) {
  // Linear elements: equal shares (int N_a dV = V / n on any affine element).
  expect_shares(shares<fem::Hex8>(), std::vector<double>(8, 1.0 / 8.0));
  expect_shares(shares<fem::Tet4>(), std::vector<double>(4, 1.0 / 4.0));
  expect_shares(shares<fem::Tri3>(), std::vector<double>(3, 1.0 / 3.0));
  expect_shares(shares<fem::Quad4>(), std::vector<double>(4, 1.0 / 4.0));
  // Quadratic elements: corners first, then mid-edge nodes. Serendipity quad8 -1/12 and 1/3; tri6
  // 0 and 1/3; tet10 -1/20 and 1/5 (Zienkiewicz, Taylor & Zhu, vol. 1, the consistent load of a
  // uniform body force).
  expect_shares(shares<fem::Quad8>(), {-1.0 / 12, -1.0 / 12, -1.0 / 12, -1.0 / 12, 1.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 3});
  expect_shares(shares<fem::Tri6>(), {0.0, 0.0, 0.0, 1.0 / 3, 1.0 / 3, 1.0 / 3});
  std::vector<double> tet10(4, -1.0 / 20);
  tet10.resize(10, 1.0 / 5);
  expect_shares(shares<fem::Tet10>(), tet10);
}

TEST(FemLoads, HandValuesOfAUnitCubeAndAUnitTetrahedron) {
  // A hex8 of 2 x 1 x 0.5 m (volume 1 m^3), 3 kg/m^3, g = -2 m/s^2 along y: -6 N in all, -0.75 N
  // at each node; only y DOFs are loaded (the zero x and z components are left out).
  Model model;
  model.source = "box";
  model.mesh = generate_box({0.0, 0.0, 0.0}, {2.0, 1.0, 0.5}, {1, 1, 1}, ElementType::Hex8);
  model.materials = {Material::from_youngs("steel", 210e9, 0.29, 3.0)};
  model.sections = {{"all", "steel", Formulation::Solid, 1.0}};
  const auto forces = fem::body_forces(model, everywhere(model, {0.0, -2.0, 0.0}));
  ASSERT_EQ(forces.size(), 8u);
  for (std::size_t a = 0; a < 8; ++a) {
    EXPECT_EQ(forces[a].first, static_cast<Index>(3 * a + 1));
    EXPECT_NEAR(forces[a].second, -0.75, 1e-15);
  }
  // fem::element_body_force directly on the unit tetrahedron (volume 1/6): rho t g V / 4 each.
  const double x[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double g[3] = {0.0, 0.0, -9.81};
  double f[12];
  EXPECT_DOUBLE_EQ(fem::element_body_force<fem::Tet4>(x, 2.0, g, f), 1.0);  // det J of the unit map
  for (int a = 0; a < 4; ++a) {
    EXPECT_EQ(f[3 * a], 0.0);
    EXPECT_EQ(f[3 * a + 1], 0.0);
    EXPECT_NEAR(f[3 * a + 2], 2.0 * -9.81 / 24.0, 1e-15);
  }
}

TEST(FemLoads, ForcePerVolumeIgnoresTheDensity) {
  // Two materials, one force per volume: b V per component, the 2D thickness times it.
  for (ElementType type : {ElementType::Quad4, ElementType::Tet10}) {
    const Model model = test::two_section_model(type, 1, 2, 0.0);
    const int dim = model.mesh.dim();
    const std::array<double, 3> b{0.0, 1000.0, dim == 3 ? -500.0 : 0.0};
    const auto sum = total(fem::body_forces(model, everywhere(model, {0.0, 0.0, 0.0}, b)), dim);
    // 2D: 0.4 m^2 at t = 0.25 and 0.4 m^2 at t = 0.5; 3D: 0.48 m^3.
    const double measure = dim == 2 ? 0.4 * 0.25 + 0.4 * 0.5 : 0.48;
    for (int d = 0; d < dim; ++d)
      EXPECT_NEAR(sum[static_cast<std::size_t>(d)], measure * b[static_cast<std::size_t>(d)], 1e-12 * 1000.0);
    // Acceleration and force per volume add: rho g + b.
    const auto both = total(fem::body_forces(model, everywhere(model, {0.0, -1.0, 0.0}, b)), dim);
    const double mass = dim == 2 ? 0.4 * (7850.0 * 0.25 + 2700.0 * 0.5) : 0.24 * (7850.0 + 2700.0);
    EXPECT_NEAR(both[1], measure * 1000.0 - mass, 1e-12 * mass);
  }
}

TEST(FemLoads, ASetLoadsOnlyItsElements) {
  const Model model = test::two_section_model(ElementType::Tri3, 1, 4, 0.2);
  BodyForce force = everywhere(model, {0.0, -9.81, 0.0});
  force.element_set = "left";
  force.elements = model.mesh.element_sets.at("left");
  std::vector<bool> in_left(static_cast<std::size_t>(model.mesh.n_nodes()), false);
  for (Index e : force.elements)
    for (Index node : model.mesh.blocks[0].nodes(e)) in_left[static_cast<std::size_t>(node)] = true;
  const auto forces = fem::body_forces(model, force);
  ASSERT_FALSE(forces.empty());
  for (const auto& [dof, f] : forces) {
    EXPECT_TRUE(in_left[static_cast<std::size_t>(dof / 2)]) << "a force on node " << dof / 2;
    EXPECT_EQ(dof % 2, 1);
    EXPECT_LT(f, 0.0);  // tri3 shares are all positive
  }
}

std::string error_of(const Model& model, const BodyForce& force) {
  try {
    fem::body_forces(model, force);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(FemLoads, ErrorsNameTheLoadAndTheElement) {
  Model model = test::two_section_model(ElementType::Quad4, 1, 2, 0.0);
  BodyForce force = everywhere(model, {0.0, -9.81, 0.0});
  force.element_set = "grid";
  force.elements.push_back(99);
  EXPECT_EQ(error_of(model, force).rfind("gravity.toml:7: body force on 'grid' refers to element index 99", 0), 0u)
      << error_of(model, force);
  // An element without a section has no density for an acceleration...
  Model bare = model;
  bare.sections.pop_back();
  const std::string message = error_of(bare, everywhere(bare, {0.0, -9.81, 0.0}));
  EXPECT_EQ(message.rfind("gravity.toml:7: body force: element ", 0), 0u) << message;
  EXPECT_NE(message.find("has no section, so no density"), std::string::npos) << message;
  // ... but a force per volume needs none (thickness 1 there, as for surface loads).
  const auto per_volume = total(fem::body_forces(bare, everywhere(bare, {0.0, 0.0, 0.0}, {0.0, 10.0, 0.0})), 2);
  EXPECT_NEAR(per_volume[1], 10.0 * (0.4 * 0.25 + 0.4 * 1.0), 1e-12);
  // An inverted element.
  Model inverted = model;
  std::swap(inverted.mesh.blocks[0].connectivity[1], inverted.mesh.blocks[0].connectivity[3]);
  const std::string flipped = error_of(inverted, everywhere(inverted, {0.0, -9.81, 0.0}));
  EXPECT_EQ(flipped.rfind("gravity.toml:7: body force: element 1 (quad4) is inverted", 0), 0u) << flipped;
}

}  // namespace
}  // namespace tremor
