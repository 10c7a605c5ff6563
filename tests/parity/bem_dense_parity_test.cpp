// Dense complex LU solve (bem/dense.hpp) with cuSOLVER against LAPACK on the host: the same
// random systems (n up to 1000, so cuSOLVER's blocked path runs), the condition estimates, the
// singular-matrix error and the 1-norm kernel.
//
// Tolerances:
//   residual ||A X - B||_1 / (||A||_1 ||X||_1) < 1e-13: the backward error of LU with partial
//     pivoting, as on the host (unit/bem_dense_test.cpp says why).
//   ||X_gpu - X_cpu||_1 / ||X_cpu||_1 < 2 kappa 1e-13: each solution is the exact one of a system
//     perturbed by a backward error of at most 1e-13, so each is within kappa 1e-13 of the exact
//     X (to first order), with kappa = ||A||_1 ||A^-1||_1 computed exactly from the inverse.
//   condition estimates: a lower bound of ||A^-1||_1 (rcond at least the exact one, to rounding:
//     1e-10) within a factor 10 (Higham's estimator is within 3 in nearly all cases).
//   norm_1: the same partial sums in the same order on both; only hypot may differ by an ulp
//     (CUDA's and glibc's), so 1e-14 relative.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "../unit/sparse_test_models.hpp"
#include "support/support.hpp"
#include "tremor/backend/device_array.hpp"
#include "../unit/bem_dense_test_helpers.hpp"
#include "tremor/bem/dense.hpp"
#include "tremor/core/error.hpp"

namespace tremor::bem {
namespace TREMOR_TEST_FILE {

using test_dense::at;
using test_dense::column_sum_norm;
using test_dense::Matrix;
using test_dense::random_matrix;

double relative_residual(const Matrix& a, const Matrix& x, const Matrix& b, Index n, Index cols) {
  Matrix r = b;
  for (std::size_t k = 0; k < r.size(); ++k) r[k] = -r[k];
  for (Index c = 0; c < cols; ++c)
    for (Index k = 0; k < n; ++k)
      for (Index i = 0; i < n; ++i) r[at(i, c, n)] += a[at(i, k, n)] * x[at(k, c, n)];
  return column_sum_norm(r, n, cols) / (column_sum_norm(a, n, n) * column_sum_norm(x, n, cols));
}

double relative_distance(const Matrix& x, const Matrix& y, Index n, Index cols) {
  Matrix d = x;
  for (std::size_t k = 0; k < d.size(); ++k) d[k] -= y[k];
  return column_sum_norm(d, n, cols) / column_sum_norm(y, n, cols);
}

// ||A||_1 ||A^-1||_1 with the inverse from the host solve of A X = I.
double exact_condition(Matrix a, Index n) {
  Matrix x(static_cast<std::size_t>(Size(n) * n));
  for (Index i = 0; i < n; ++i) x[at(i, i, n)] = Complex(1.0);
  const double norm = column_sum_norm(a, n, n);
  solve_dense(Exec::openmp(), n, n, a.data(), x.data(), false);
  return norm * column_sum_norm(x, n, n);
}

struct GpuResult {
  DenseSolveReport report;
  Matrix x;
};

GpuResult solve_on_gpu(const Exec& exec, const Matrix& a, const Matrix& b, Index n, Index n_rhs) {
  DeviceArray<Complex> device_a(exec, std::span<const Complex>(a));
  DeviceArray<Complex> device_b(exec, std::span<const Complex>(b));
  GpuResult out;
  out.report = solve_dense(exec, n, n_rhs, device_a.data(), n_rhs > 0 ? device_b.data() : nullptr);
  out.x = device_b.to_host();
  return out;
}

TEST(BemDenseParityGpu, RandomSystemsMatchTheHost) {
  TREMOR_REQUIRE_GPU();
  const Exec gpu = Exec::cuda();
  for (Index n : {1, 7, 100, 300, 1000}) {
    const Matrix a = random_matrix(n, n, 17 + n);
    const double kappa = exact_condition(a, n);
    for (Index n_rhs : {1, 3}) {
      const std::string where = "n " + std::to_string(n) + " rhs " + std::to_string(n_rhs);
      const Matrix b = random_matrix(n, n_rhs, 31 + n);
      Matrix lu = a, host_x = b;
      const DenseSolveReport host = solve_dense(Exec::openmp(), n, n_rhs, lu.data(), host_x.data());
      const GpuResult device = solve_on_gpu(gpu, a, b, n, n_rhs);

      EXPECT_EQ(device.report.backend, "cuSOLVER");
      EXPECT_LT(relative_residual(a, device.x, b, n, n_rhs), 1e-13) << where;
      EXPECT_LT(relative_distance(device.x, host_x, n, n_rhs), 2 * kappa * 1e-13) << where << " kappa " << kappa;
      EXPECT_GE(device.report.reciprocal_condition, (1 - 1e-10) / kappa) << where;
      EXPECT_LE(device.report.reciprocal_condition, 10 / kappa) << where;
      EXPECT_GE(host.reciprocal_condition, (1 - 1e-10) / kappa) << where;
      EXPECT_GT(device.report.factor_seconds, 0.0) << where;
      EXPECT_GT(device.report.solve_seconds, 0.0) << where;
    }
  }
}

// P D with |d_k| from 1 to 1e6 and P a cyclic shift: rcond = 1e-6 exactly (unit test), found by
// the estimator's first ascent step on the GPU factors too.
TEST(BemDenseParityGpu, ConditionOfAPermutedDiagonalMatrix) {
  TREMOR_REQUIRE_GPU();
  const Index n = 100;
  Matrix a(static_cast<std::size_t>(n) * n);
  for (Index k = 0; k < n; ++k) {
    const double magnitude = std::pow(1e6, double(k) / (n - 1));
    a[at((k + 3) % n, k, n)] = Complex(magnitude * std::cos(0.7 * k), magnitude * std::sin(0.7 * k));
  }
  const GpuResult device = solve_on_gpu(Exec::cuda(), a, random_matrix(n, 1, 9), n, 1);
  EXPECT_NEAR(device.report.reciprocal_condition, 1e-6, 1e-12 * 1e-6);
}

TEST(BemDenseParityGpu, SingularMatrixNamesTheZeroPivot) {
  TREMOR_REQUIRE_GPU();
  // [[2, 4], [1, 2]]: elimination exact in binary, U(2,2) = 0.
  const Matrix rank_one = {Complex(2.0), Complex(1.0), Complex(4.0), Complex(2.0)};
  try {
    solve_on_gpu(Exec::cuda(), rank_one, random_matrix(2, 1, 2), 2, 1);
    ADD_FAILURE() << "no error for a singular matrix";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("U(2,2)"), std::string::npos) << message;
    EXPECT_NE(message.find("cusolverDnXgetrf"), std::string::npos) << message;
  }
}

TEST(BemDenseParityGpu, EmptySystemAndFactorOnly) {
  TREMOR_REQUIRE_GPU();
  const Exec gpu = Exec::cuda();
  EXPECT_EQ(solve_dense(gpu, 0, 1, nullptr, nullptr).reciprocal_condition, 1.0);
  // n_rhs = 0 factors only; the estimate still needs the factors and matches the full solve's.
  const Matrix a = random_matrix(50, 50, 4);
  const GpuResult factor_only = solve_on_gpu(gpu, a, Matrix(50), 50, 0);
  const GpuResult full = solve_on_gpu(gpu, a, random_matrix(50, 1, 5), 50, 1);
  // The same factors and solves in both; 1e-12 allows a factorisation that is not bitwise
  // reproducible between calls.
  EXPECT_NEAR(factor_only.report.reciprocal_condition, full.report.reciprocal_condition,
              1e-12 * full.report.reciprocal_condition);
  EXPECT_EQ(factor_only.report.solve_seconds, 0.0);
}

TEST(BemDenseParityGpu, Norm1MatchesTheHost) {
  TREMOR_REQUIRE_GPU();
  const Exec gpu = Exec::cuda();
  for (const auto& [rows, cols] : {std::pair<Index, Index>{1, 1}, {31, 5}, {1000, 333}, {4097, 64}}) {
    const Matrix a = random_matrix(rows, cols, 60 + rows);
    const DeviceArray<Complex> device_a(gpu, std::span<const Complex>(a));
    const double host = norm_1(Exec::serial(), rows, cols, a.data());
    EXPECT_NEAR(norm_1(gpu, rows, cols, device_a.data()), host, 1e-14 * host) << rows << " x " << cols;
  }
}

}  // namespace
}  // namespace tremor::bem
