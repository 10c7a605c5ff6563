// Element matrices on regular and distorted elements of every type: symmetry, rigid-body null
// space of exactly 3 (2D) or 6 (3D) modes, positive semi-definiteness, constant-strain
// reproduction, mass totals and the lumping rules.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "fem_test_helpers.hpp"

namespace tremor::fem {
namespace TREMOR_TEST_FILE {

template <class E>
class MatrixTest : public ::testing::Test {};
using MatrixElements = test::MatrixElements;
TYPED_TEST_SUITE(MatrixTest, MatrixElements);

template <class E>
std::vector<double> stiffness(const std::vector<double>& x, const std::vector<double>& D) {
  constexpr int n_dof = E::n_nodes * E::dim;
  std::vector<double> K(static_cast<std::size_t>(n_dof * n_dof));
  const double min_det = element_stiffness<E>(x.data(), D.data(), 1.0, K.data());
  EXPECT_GT(min_det, 0.0);
  return K;
}

// Rigid-body modes at the nodes: dim translations and dim (dim - 1) / 2 rotations.
template <class E>
std::vector<std::vector<double>> rigid_modes(const std::vector<double>& x) {
  constexpr int dim = E::dim, n_dof = E::n_nodes * dim;
  std::vector<std::vector<double>> modes;
  for (int c = 0; c < dim; ++c) {
    std::vector<double> r(n_dof, 0.0);
    for (int a = 0; a < E::n_nodes; ++a) r[static_cast<std::size_t>(a * dim + c)] = 1.0;
    modes.push_back(r);
  }
  const int axes[3][2] = {{0, 1}, {1, 2}, {2, 0}};
  for (int k = 0; k < (dim == 2 ? 1 : 3); ++k) {
    std::vector<double> r(n_dof, 0.0);
    const int i = axes[k][0], j = axes[k][1];
    for (int a = 0; a < E::n_nodes; ++a) {
      r[static_cast<std::size_t>(a * dim + i)] = -x[static_cast<std::size_t>(a * dim + j)];
      r[static_cast<std::size_t>(a * dim + j)] = x[static_cast<std::size_t>(a * dim + i)];
    }
    modes.push_back(r);
  }
  return modes;
}

TYPED_TEST(MatrixTest, StiffnessIsSymmetricWithRigidNullSpaceOnly) {
  using E = TypeParam;
  constexpr int n_dof = E::n_nodes * E::dim;
  const auto D = test::anisotropic_D(E::dim, 1e9);
  for (const auto& x : test::matrix_shapes<E>()) {
    const auto K = stiffness<E>(x, D);
    const double norm = test::max_abs(K);
    for (int r = 0; r < n_dof; ++r)
      for (int c = 0; c < r; ++c)  // mirrored by construction: bitwise equal
        ASSERT_EQ(K[static_cast<std::size_t>(r * n_dof + c)], K[static_cast<std::size_t>(c * n_dof + r)]);
    for (const auto& mode : rigid_modes<E>(x)) {
      double worst = 0.0;
      for (int r = 0; r < n_dof; ++r) {
        double sum = 0.0;
        for (int c = 0; c < n_dof; ++c) sum += K[static_cast<std::size_t>(r * n_dof + c)] * mode[static_cast<std::size_t>(c)];
        worst = std::max(worst, std::abs(sum));
      }
      // Cancellation of n_dof terms of size |K| |r| (|r| ~ 1): rounding 1e-16 n_dof, below 1e-12.
      EXPECT_LT(worst, 1e-12 * norm) << "rigid mode not in the null space";
    }
    const auto eigenvalues = test::symmetric_eigenvalues(K, n_dof);
    const double top = eigenvalues.back();
    int zeros = 0;
    for (double value : eigenvalues) {
      // Zero eigenvalues come out at rounding level (1e-14 |K|); the smallest deformation mode of
      // these shapes sits above 1e-4 |K|, so 1e-9 separates the two with margin on both sides.
      if (std::abs(value) < 1e-9 * top) ++zeros;
      EXPECT_GT(value, -1e-12 * top) << "negative eigenvalue: K not positive semi-definite";
    }
    EXPECT_EQ(zeros, E::dim == 2 ? 3 : 6) << "nullity of K";
  }
}

TYPED_TEST(MatrixTest, LinearDisplacementGivesExactStrainAndStressForces) {
  using E = TypeParam;
  constexpr int dim = E::dim, nv = voigt_size<dim>, n_dof = E::n_nodes * dim;
  const auto D = test::anisotropic_D(dim, 1.0);
  // u = A x + b with a general A (symmetric part: strain; skew part: rotation).
  const double A[3][3] = {{1e-3, 4e-4, -2e-4}, {-3e-4, 2e-3, 5e-4}, {7e-4, -1e-4, -1.5e-3}};
  double exact[6];
  if (dim == 2) {
    exact[0] = A[0][0];
    exact[1] = A[1][1];
    exact[2] = A[0][1] + A[1][0];
  } else {
    exact[0] = A[0][0];
    exact[1] = A[1][1];
    exact[2] = A[2][2];
    exact[3] = A[1][2] + A[2][1];
    exact[4] = A[0][2] + A[2][0];
    exact[5] = A[0][1] + A[1][0];
  }
  double stress[6] = {};
  for (int k = 0; k < nv; ++k)
    for (int l = 0; l < nv; ++l) stress[k] += D[static_cast<std::size_t>(k * nv + l)] * exact[l];
  for (const auto& x : test::matrix_shapes<E>()) {
    std::vector<double> u(n_dof);
    for (int a = 0; a < E::n_nodes; ++a)
      for (int i = 0; i < dim; ++i) {
        double value = 0.1 * (i + 1);
        for (int j = 0; j < dim; ++j) value += A[i][j] * x[static_cast<std::size_t>(a * dim + j)];
        u[static_cast<std::size_t>(a * dim + i)] = value;
      }
    const StiffnessRule<E> rule = stiffness_rule<E>();
    // Nodal forces of the constant stress: f_a = int B_a^T sigma dV, assembled point by point.
    std::vector<double> f(n_dof, 0.0);
    for (int q = 0; q < rule.n_points; ++q) {
      double strain[6];
      element_strain<E>(x.data(), u.data(), rule.point(q), strain);
      // Isoparametric elements reproduce linear fields: rounding of the sum over nodes, 1e-15.
      for (int k = 0; k < nv; ++k) ASSERT_NEAR(strain[k], exact[k], 1e-14) << "point " << q << " component " << k;
      double dNdx[E::n_nodes * dim];
      const double det = physical_gradients<E>(x.data(), rule.point(q), dNdx);
      for (int a = 0; a < E::n_nodes; ++a)
        for (int c = 0; c < dim; ++c) {
          double column[6];
          strain_column<dim>(dNdx + a * dim, c, column);
          for (int k = 0; k < nv; ++k) f[static_cast<std::size_t>(a * dim + c)] += rule.weights[q] * det * column[k] * stress[k];
        }
    }
    const auto K = stiffness<E>(x, D);
    std::vector<double> Ku(n_dof, 0.0);
    apply_element_stiffness<E>(x.data(), AnisotropicLaw<dim, double>{D.data()}, 1.0, rule, u.data(), Ku.data());
    const double scale = test::max_abs(f);
    for (int r = 0; r < n_dof; ++r) {
      double sum = 0.0;
      for (int c = 0; c < n_dof; ++c) sum += K[static_cast<std::size_t>(r * n_dof + c)] * u[static_cast<std::size_t>(c)];
      // K u cancels the large rigid part (|K| |b| ~ 1e2 |f|): rounding 1e-14 relative to f.
      EXPECT_NEAR(sum, f[static_cast<std::size_t>(r)], 1e-11 * scale) << "dof " << r;
      EXPECT_NEAR(Ku[static_cast<std::size_t>(r)], f[static_cast<std::size_t>(r)], 1e-11 * scale) << "matrix-free, dof " << r;
    }
  }
}

// Exact measure of a straight-sided element: |det A| |reference| for simplices; the Gauss
// integral of the multilinear map's det J (a polynomial of degree <= 2 per direction, so
// 3 points are exact) for quads and hexes.
template <class E>
double straight_volume(const std::vector<double>& vertices) {
  if constexpr (E::simplex) {
    double J[9] = {};
    double dN[12];
    if constexpr (E::dim == 2) {
      Tri3::gradients(nullptr, dN);
      return 0.5 * jacobian<2>(3, vertices.data(), dN, J);
    } else {
      Tet4::gradients(nullptr, dN);
      return jacobian<3>(4, vertices.data(), dN, J) / 6.0;
    }
  } else {
    QuadratureRule<E::dim, 27> rule;
    tensor_rule(3, false, rule);
    double volume = 0.0;
    for (int q = 0; q < rule.n_points; ++q)
      volume += rule.weights[q] * (E::dim == 2 ? jacobian_determinant<Quad4>(vertices.data(), rule.point(q))
                                               : jacobian_determinant<Hex8>(vertices.data(), rule.point(q)));
    return volume;
  }
}

TYPED_TEST(MatrixTest, MassTotalsAndLumping) {
  using E = TypeParam;
  constexpr int n = E::n_nodes;
  const double rho = 2700.0;
  for (double distortion : {0.0, 0.12}) {
    const auto vertices = test::element_vertices<E>(distortion, 7);
    const auto x = test::element_from_vertices<E>(vertices, 0.0);
    const double volume = straight_volume<E>(vertices);
    const MassRule<E> rule = mass_rule<E>();
    std::vector<double> M(static_cast<std::size_t>(n * n));
    consistent_mass<E>(x.data(), rho, rule, M.data());
    double total = 0.0;
    for (double value : M) total += value;
    // Sums of n^2 positive and negative terms of size rho V / n: rounding 1e-13 relative.
    EXPECT_NEAR(total, rho * volume, 1e-12 * rho * volume) << "consistent mass total";
    EXPECT_NEAR(element_volume<E>(x.data()), volume, 1e-12 * volume);
    std::vector<double> m(n);
    lumped_mass<E>(x.data(), rho, m.data());
    double lumped_total = 0.0;
    for (int a = 0; a < n; ++a) {
      EXPECT_GT(m[static_cast<std::size_t>(a)], 0.0) << "lumped mass of node " << a;
      lumped_total += m[static_cast<std::size_t>(a)];
    }
    if (E::lumping == Lumping::Nodal && E::dim == 3 && E::order == 1 && distortion > 0.0) {
      // The 2-point GLL (trapezoidal) rule does not integrate det J of a non-affine trilinear hex
      // (degree 2 per direction) exactly: the total is the rule's volume, close to the exact one.
      EXPECT_NEAR(lumped_total, rho * volume, 2e-2 * rho * volume) << "lumped mass total";
    } else {
      EXPECT_NEAR(lumped_total, rho * volume, 1e-12 * rho * volume) << "lumped mass total";
    }
    for (int a = 0; a < n; ++a) {
      double row = 0.0;
      for (int b = 0; b < n; ++b) row += M[static_cast<std::size_t>(a * n + b)];
      const double diagonal = M[static_cast<std::size_t>(a * n + a)];
      if constexpr (E::lumping == Lumping::RowSum) {
        EXPECT_NEAR(m[static_cast<std::size_t>(a)], row, 1e-13 * rho * volume) << "row sum, node " << a;
      }
      if constexpr (E::lumping == Lumping::Hrz) {
        double trace = 0.0;
        for (int b = 0; b < n; ++b) trace += M[static_cast<std::size_t>(b * n + b)];
        EXPECT_NEAR(m[static_cast<std::size_t>(a)], diagonal * lumped_total / trace, 1e-13 * rho * volume)
            << "HRZ, node " << a;
      }
    }
    if constexpr (E::lumping == Lumping::Nodal) {
      // M integrated on the GLL nodes is diagonal (N_a(x_b) = delta_ab) and equals the lumped mass.
      const LumpingRule<E> nodal = lumping_rule<E>();
      consistent_mass<E>(x.data(), rho, nodal, M.data());
      for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b)
          ASSERT_NEAR(M[static_cast<std::size_t>(a * n + b)], a == b ? m[static_cast<std::size_t>(a)] : 0.0,
                      1e-14 * rho * volume);
    }
    // The consistent mass is positive definite.
    const auto eigenvalues = test::symmetric_eigenvalues(M, n);
    EXPECT_GT(eigenvalues.front(), 0.0);
  }
}

TEST(Lumping, KnownHrzAndRowSumValues) {
  const double rho = 3.0;
  // Unit right simplices: area 1/2, volume 1/6.
  {
    const auto x = test::element_from_vertices<Tri6>({0, 0, 1, 0, 0, 1}, 0.0);
    double m[6];
    lumped_mass<Tri6>(x.data(), rho, m);
    // HRZ on tri6: diag(M) is rho A (1/30, 8/45), scaled to the total: vertices 1/19, edges 16/57.
    for (int a = 0; a < 6; ++a) EXPECT_NEAR(m[a], rho * 0.5 * (a < 3 ? 1.0 / 19.0 : 16.0 / 57.0), 1e-15);
  }
  {
    const auto x = test::element_from_vertices<Tet10>({0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, 0.0);
    double m[10];
    lumped_mass<Tet10>(x.data(), rho, m);
    // HRZ on tet10: diag(M) is rho V (1/70, 8/105): vertices 1/36, edges 4/27 of the mass.
    for (int a = 0; a < 10; ++a) EXPECT_NEAR(m[a], rho / 6.0 * (a < 4 ? 1.0 / 36.0 : 4.0 / 27.0), 1e-15);
  }
  {
    const auto x = test::element_from_vertices<Tet4>({0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1}, 0.0);
    double m[4];
    lumped_mass<Tet4>(x.data(), rho, m);
    for (double value : m) EXPECT_NEAR(value, rho * (2.0 / 6.0) / 4.0, 1e-15);
  }
  {
    // GLL order 2 on [-1,1]^2: the lumped mass is rho times the GLL weights (1/3, 4/3, 1/3)^2.
    std::vector<double> x(18);
    for (int a = 0; a < 9; ++a) QuadGll<2>::node(a, x.data() + 2 * a);
    double m[9];
    lumped_mass<QuadGll<2>>(x.data(), rho, m);
    const double w[3] = {1.0 / 3.0, 4.0 / 3.0, 1.0 / 3.0};
    for (int a = 0; a < 9; ++a) EXPECT_NEAR(m[a], rho * w[a % 3] * w[a / 3], 1e-15);
  }
}

}  // namespace
}  // namespace tremor::fem
