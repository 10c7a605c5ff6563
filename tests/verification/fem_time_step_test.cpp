// Stable time step: the element eigenvalue against a dense eigen solve, the CFL values of a bar
// of cubes, the element bound against the assembled mesh, and the Model-level estimate.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../unit/fem_test_helpers.hpp"
#include "fem_mesh_helpers.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/time_step.hpp"

namespace tremor::fem {
namespace TREMOR_TEST_FILE {

// lambda_max(M^-1 K) by a full Jacobi eigen solve of M^-1/2 K M^-1/2.
template <class E>
double dense_max_eigenvalue(const std::vector<double>& x, const std::vector<double>& D, double rho) {
  constexpr int n_dof = E::n_nodes * E::dim;
  std::vector<double> K(n_dof * n_dof);
  element_stiffness<E>(x.data(), D.data(), 1.0, K.data());
  double m[E::n_nodes];
  lumped_mass<E>(x.data(), rho, m);
  for (int r = 0; r < n_dof; ++r)
    for (int c = 0; c < n_dof; ++c) K[static_cast<std::size_t>(r * n_dof + c)] /= std::sqrt(m[r / E::dim] * m[c / E::dim]);
  return test::symmetric_eigenvalues(K, n_dof).back();
}

template <class E>
void check_element_eigenvalue() {
  const auto D = test::anisotropic_D(E::dim, 1e10);
  for (double distortion : {0.0, 0.12}) {
    const auto x = test::distorted_element<E>(distortion, E::n_nodes > E::n_vertices ? 0.05 : 0.0);
    const double exact = dense_max_eigenvalue<E>(x, D, 7800.0);
    const double estimate = element_max_eigenvalue(E::type, E::order, x, D, 7800.0, 1.0);
    // Power iteration stops at a residual of 1e-8 of the quotient; the quotient error is below that.
    EXPECT_NEAR(estimate, exact, 1e-7 * exact) << element_name(E::type, E::order) << " distortion " << distortion;
    EXPECT_LE(estimate, exact * (1 + 1e-12)) << "a Rayleigh quotient cannot exceed lambda_max";
  }
}

TEST(TimeStep, ElementEigenvalueMatchesDenseSolve) {
  check_element_eigenvalue<Tri3>();
  check_element_eigenvalue<Tri6>();
  check_element_eigenvalue<Quad4>();
  check_element_eigenvalue<Quad8>();
  check_element_eigenvalue<Tet4>();
  check_element_eigenvalue<Tet10>();
  check_element_eigenvalue<Hex8>();
  check_element_eigenvalue<Hex20>();
  check_element_eigenvalue<QuadGll<4>>();
  check_element_eigenvalue<HexGll<2>>();
  check_element_eigenvalue<HexGll<4>>();  // 375 DOFs: the matrix-free path
}

Model bar_model(int n_elements, double h, double poisson) {
  Model model;
  model.source = "bar";
  Mesh& mesh = model.mesh;
  mesh = Mesh(3);
  for (int i = 0; i <= n_elements; ++i)
    for (int k = 0; k < 2; ++k)
      for (int j = 0; j < 2; ++j) {
        const double xyz[3] = {i * h, j * h, k * h};
        mesh.add_node(static_cast<Label>(mesh.n_nodes() + 1), xyz);
      }
  auto& block = mesh.block_for(ElementType::Hex8);
  // Node (i, j, k) has index 4 i + 2 k + j; hex8 order (0,0,0), (1,0,0), (1,1,0), (0,1,0), then
  // z = 1, with x along the bar (i), y = j, z = k.
  for (int i = 0; i < n_elements; ++i) {
    const Index base = 4 * i;
    block.connectivity.insert(block.connectivity.end(),
                              {base + 0, base + 4, base + 5, base + 1, base + 2, base + 6, base + 7, base + 3});
    block.labels.push_back(1000 + i);
  }
  std::vector<Index> all(static_cast<std::size_t>(n_elements));
  for (int i = 0; i < n_elements; ++i) all[static_cast<std::size_t>(i)] = i;
  mesh.element_sets["bar"] = all;
  model.materials.push_back(Material::from_youngs("steel", 210e9, poisson, 7800.0));
  model.sections.push_back({"bar", "steel", Formulation::Solid, 1.0});
  return model;
}

TEST(TimeStep, BarOfCubesGivesTheCflValue) {
  const double h = 0.01;
  for (double poisson : {0.0, 0.3}) {
    const Model model = bar_model(6, h, poisson);
    model.validate();
    const Material& steel = model.materials[0];
    const double lambda = steel.lambda(), mu = steel.mu(), rho = steel.density;
    const double cp2 = (lambda + 2 * mu) / rho, cs2 = mu / rho;
    // A cube with lumped mass: the highest mode is the uniform dilatation u = x - x_c, with
    // Rayleigh quotient 4 (3 lambda + 2 mu) / (rho h^2) = 4 (3 cp^2 - 4 cs^2) / h^2, so
    // dt = h / sqrt(3 cp^2 - 4 cs^2). For poisson = 0 (lambda = 0) that is the 1D value h / cp.
    const double expected = h / std::sqrt(3 * cp2 - 4 * cs2);
    const TimeStepEstimate estimate = stable_time_step(model);
    // The power iteration's quotient is within 1e-8 (relative) of lambda; dt within half that.
    EXPECT_NEAR(estimate.dt, expected, 1e-8 * expected) << "poisson " << poisson;
    if (poisson == 0.0) {
      EXPECT_NEAR(estimate.dt, h / std::sqrt(cp2), 1e-8 * expected);
    } else {
      EXPECT_LT(estimate.dt, h / std::sqrt(cp2)) << "3D with lambda > 0 is below the 1D value";
    }
  }
}

TEST(TimeStep, SmallestElementSetsTheStepAndIsNamed) {
  Model model = bar_model(6, 0.01, 0.25);
  // Shrink element 1003 along the bar: move the nodes of plane i = 4 towards plane 3.
  for (Index n = 16; n < 20; ++n) model.mesh.coordinates[static_cast<std::size_t>(n * 3)] = 0.034;
  const TimeStepEstimate estimate = stable_time_step(model);
  EXPECT_EQ(estimate.label, 1003);
  EXPECT_EQ(estimate.element, 3);
  // Its length is 0.4 h: the step drops to about half (the cross-section stays h).
  EXPECT_LT(estimate.dt, 0.6 * stable_time_step(bar_model(6, 0.01, 0.25)).dt);
}

TEST(TimeStep, MissingSectionIsAnError) {
  Model model = bar_model(3, 0.01, 0.25);
  model.mesh.element_sets["bar"] = {0, 2};
  try {
    (void)stable_time_step(model);
    FAIL() << "no error for an element without a section";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("element 1001 has no section"), std::string::npos) << e.what();
  }
}

// The element maximum bounds the assembled lambda_max(M^-1 K), and is not far above it.
template <class E>
void check_global_bound() {
  const double offset[3] = {0.15, -0.1, 0.12};
  const Mesh mesh = test::structured_mesh<E>(2, offset);
  const auto D = test::anisotropic_D(E::dim, 1e10);
  const double rho = 2000.0;
  constexpr int dim = E::dim, n_dof_e = E::n_nodes * dim;
  const int n_dof = mesh.n_nodes() * dim;
  std::vector<double> K(static_cast<std::size_t>(n_dof) * n_dof, 0.0), m(static_cast<std::size_t>(mesh.n_nodes()), 0.0);
  double element_max = 0.0;
  const ElementBlock& block = mesh.blocks[0];
  for (Index e = 0; e < block.n_elements(); ++e) {
    std::vector<double> x(n_dof_e), Ke(n_dof_e * n_dof_e);
    double me[E::n_nodes];
    const auto nodes = block.nodes(e);
    for (int a = 0; a < E::n_nodes; ++a)
      for (int c = 0; c < dim; ++c) x[static_cast<std::size_t>(a * dim + c)] = mesh.node(nodes[static_cast<std::size_t>(a)])[static_cast<std::size_t>(c)];
    element_stiffness<E>(x.data(), D.data(), 1.0, Ke.data());
    lumped_mass<E>(x.data(), rho, me);
    for (int r = 0; r < n_dof_e; ++r) {
      const std::size_t gr = static_cast<std::size_t>(nodes[static_cast<std::size_t>(r / dim)] * dim + r % dim);
      for (int c = 0; c < n_dof_e; ++c) {
        const std::size_t gc = static_cast<std::size_t>(nodes[static_cast<std::size_t>(c / dim)] * dim + c % dim);
        K[gr * static_cast<std::size_t>(n_dof) + gc] += Ke[static_cast<std::size_t>(r * n_dof_e + c)];
      }
    }
    for (int a = 0; a < E::n_nodes; ++a) m[static_cast<std::size_t>(nodes[static_cast<std::size_t>(a)])] += me[a];
    element_max = std::max(element_max, element_max_eigenvalue(E::type, E::order, x, D, rho, 1.0));
  }
  for (int r = 0; r < n_dof; ++r)
    for (int c = 0; c < n_dof; ++c)
      K[static_cast<std::size_t>(r) * n_dof + c] /= std::sqrt(m[static_cast<std::size_t>(r / dim)] * m[static_cast<std::size_t>(c / dim)]);
  const double global = test::symmetric_eigenvalues(K, n_dof).back();
  // The bound holds exactly; the element estimate is within 1e-8 below its true value.
  EXPECT_LE(global, element_max * (1 + 1e-7)) << element_name(E::type, E::order);
  // Assembly couples elements, so the global maximum is lower, but of the same size.
  EXPECT_GT(global, 0.2 * element_max) << element_name(E::type, E::order);
}

TEST(TimeStep, ElementMaximumBoundsTheAssembledOperator) {
  check_global_bound<Tri6>();
  check_global_bound<Quad4>();
  check_global_bound<QuadGll<3>>();
  check_global_bound<Hex8>();
  check_global_bound<Tet10>();
}

}  // namespace
}  // namespace tremor::fem
