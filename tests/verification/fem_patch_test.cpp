// The patch test on multi-element patches of every element type with a displaced interior vertex:
// a linear displacement field gives the exact constant strain at every quadrature point, zero
// force at every interior node, and the exact virtual work of the constant stress.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../unit/fem_test_helpers.hpp"
#include "fem_mesh_helpers.hpp"
#include "tremor/fem/geometry.hpp"

namespace tremor::fem {
namespace TREMOR_TEST_FILE {

template <class E>
class PatchTest : public ::testing::Test {};
using PatchElements = ::testing::Types<Tri3, Tri6, Quad4, Quad8, Tet4, Tet10, Hex8, Hex20, QuadGll<1>, QuadGll<3>,
                                       QuadGll<8>, HexGll<1>, HexGll<2>, HexGll<3>>;
TYPED_TEST_SUITE(PatchTest, PatchElements);

template <int Dim>
void strain_of(const double (*A)[3], double* strain) {
  if (Dim == 2) {
    strain[0] = A[0][0];
    strain[1] = A[1][1];
    strain[2] = A[0][1] + A[1][0];
  } else {
    strain[0] = A[0][0];
    strain[1] = A[1][1];
    strain[2] = A[2][2];
    strain[3] = A[1][2] + A[2][1];
    strain[4] = A[0][2] + A[2][0];
    strain[5] = A[0][1] + A[1][0];
  }
}

TYPED_TEST(PatchTest, LinearFieldIsReproducedAndInteriorForcesVanish) {
  using E = TypeParam;
  constexpr int dim = E::dim, nv = voigt_size<dim>, n_dof_e = E::n_nodes * dim;
  const double offset[3] = {0.13, -0.09, 0.11};
  const Mesh mesh = test::structured_mesh<E>(2, offset);
  check_geometry(mesh);
  const auto D = test::anisotropic_D(dim);
  const double A[3][3] = {{1e-3, 4e-4, -2e-4}, {-3e-4, 2e-3, 5e-4}, {7e-4, -1e-4, -1.5e-3}};
  const double B[3][3] = {{-2e-3, 1e-3, 3e-4}, {6e-4, 5e-4, -8e-4}, {2e-4, 9e-4, 1e-3}};
  double strain_a[6], strain_b[6], stress[6] = {};
  strain_of<dim>(A, strain_a);
  strain_of<dim>(B, strain_b);
  for (int k = 0; k < nv; ++k)
    for (int l = 0; l < nv; ++l) stress[k] += D[static_cast<std::size_t>(k * nv + l)] * strain_a[l];
  const auto n_dof = static_cast<std::size_t>(mesh.n_nodes() * dim);
  std::vector<double> u(n_dof), v(n_dof), f(n_dof, 0.0);
  for (Index i = 0; i < mesh.n_nodes(); ++i)
    for (int r = 0; r < dim; ++r) {
      double ur = 0.01 * (r + 1), vr = -0.02;
      for (int c = 0; c < dim; ++c) {
        ur += A[r][c] * mesh.node(i)[static_cast<std::size_t>(c)];
        vr += B[r][c] * mesh.node(i)[static_cast<std::size_t>(c)];
      }
      u[static_cast<std::size_t>(i * dim + r)] = ur;
      v[static_cast<std::size_t>(i * dim + r)] = vr;
    }
  const ElementBlock& block = mesh.blocks[0];
  const StiffnessRule<E> rule = stiffness_rule<E>();
  std::vector<double> K(static_cast<std::size_t>(n_dof_e * n_dof_e));
  for (Index e = 0; e < block.n_elements(); ++e) {
    double x[E::n_nodes * dim], ue[n_dof_e];
    const auto nodes = block.nodes(e);
    for (int a = 0; a < E::n_nodes; ++a)  // gather
      for (int c = 0; c < dim; ++c) {
        x[a * dim + c] = mesh.node(nodes[static_cast<std::size_t>(a)])[static_cast<std::size_t>(c)];
        ue[a * dim + c] = u[static_cast<std::size_t>(nodes[static_cast<std::size_t>(a)] * dim + c)];
      }
    for (int q = 0; q < rule.n_points; ++q) {
      double strain[6];
      element_strain<E>(x, ue, rule.point(q), strain);
      // Rounding of a sum over up to 729 nodes of terms |dN/dx| |u| ~ 10 * 0.03: about 1e-14.
      for (int k = 0; k < nv; ++k) ASSERT_NEAR(strain[k], strain_a[k], 2e-14) << "element " << e << " point " << q;
    }
    element_stiffness<E>(x, D.data(), 1.0, rule, K.data());
    for (int r = 0; r < n_dof_e; ++r) {  // scatter-add K_e u_e
      double sum = 0.0;
      for (int c = 0; c < n_dof_e; ++c) sum += K[static_cast<std::size_t>(r * n_dof_e + c)] * ue[c];
      f[static_cast<std::size_t>(nodes[static_cast<std::size_t>(r / dim)] * dim + r % dim)] += sum;
    }
  }
  double scale = 0.0;
  for (double value : f) scale = std::max(scale, std::abs(value));
  ASSERT_GT(scale, 0.0);
  int interior = 0;
  for (Index i = 0; i < mesh.n_nodes(); ++i) {
    bool inside = true;
    for (int c = 0; c < dim; ++c) {
      const double xc = mesh.node(i)[static_cast<std::size_t>(c)];
      inside = inside && xc > 1e-12 && xc < 1.0 - 1e-12;
    }
    if (!inside) continue;
    ++interior;
    for (int c = 0; c < dim; ++c)
      // Equilibrium of the constant stress: the element contributions cancel up to rounding
      // (|K| |u| n_terms eps ~ 1e-13 of the boundary forces).
      EXPECT_NEAR(f[static_cast<std::size_t>(i * dim + c)], 0.0, 1e-11 * scale) << "interior node " << i;
  }
  EXPECT_GT(interior, 0);
  // Virtual work of the linear field v: v . K u = int eps(v) : sigma dV = eps(v) . sigma (|patch| = 1).
  double work = 0.0, exact = 0.0;
  for (std::size_t k = 0; k < n_dof; ++k) work += v[k] * f[k];
  for (int k = 0; k < nv; ++k) exact += strain_b[k] * stress[k];
  // f carries the cancellation of the rigid offsets (|u| ~ 30 |A x|) over many terms: 1e-10.
  EXPECT_NEAR(work, exact, 1e-10 * std::abs(exact));
}

}  // namespace
}  // namespace tremor::fem
