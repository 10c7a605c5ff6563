// Dense complex LU solve (bem/dense.hpp) on the host backends: residuals of random systems, the
// condition estimate against matrices whose condition number is known or computed exactly, the
// LU factors left in A, singular and empty systems, and the 1-norm.
//
// Tolerances:
//   residual ||A X - B||_1 / (||A||_1 ||X||_1) < 1e-13: LU with partial pivoting is backward stable,
//     the computed X solves (A + E) X = B with ||E|| <= about 3 n u rho ||A|| in the worst case
//     (Higham, Accuracy and Stability, Thm 9.4; u = 1.1e-16, growth factor rho small for random
//     matrices); observed 7e-17 to 4e-16 here (rounding errors add like a random walk), so 1e-13
//     leaves a margin of three orders yet fails a wrong pivot, a transposed factor or a lost
//     right-hand side (which give residuals of order 1).
//   condition estimates: Higham's estimator gives a lower bound of ||A^-1||_1 (so rcond is at least
//     the true one, to rounding: 1e-10) that is within a factor 3 in nearly all cases (Higham 1988,
//     sec. 5); the tests allow a factor 10. For a (permuted) diagonal matrix it is exact: 1e-12.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sparse_test_models.hpp"
#include "bem_dense_test_helpers.hpp"
#include "tremor/bem/dense.hpp"
#include "tremor/core/error.hpp"

namespace tremor::bem {
namespace TREMOR_TEST_FILE {

using test_dense::at;
using test_dense::column_sum_norm;
using test_dense::Matrix;
using test_dense::random_matrix;

Matrix multiply(const Matrix& a, const Matrix& x, Index n, Index cols) {
  Matrix y(static_cast<std::size_t>(Size(n) * cols));
  for (Index c = 0; c < cols; ++c)
    for (Index k = 0; k < n; ++k) {
      const Complex xk = x[at(k, c, n)];
      for (Index i = 0; i < n; ++i) y[at(i, c, n)] += a[at(i, k, n)] * xk;
    }
  return y;
}

double relative_residual(const Matrix& a, const Matrix& x, const Matrix& b, Index n, Index cols) {
  Matrix r = multiply(a, x, n, cols);
  for (std::size_t k = 0; k < r.size(); ++k) r[k] -= b[k];
  return column_sum_norm(r, n, cols) / (column_sum_norm(a, n, n) * column_sum_norm(x, n, cols));
}

Matrix identity(Index n) {
  Matrix e(static_cast<std::size_t>(Size(n) * n));
  for (Index i = 0; i < n; ++i) e[at(i, i, n)] = Complex(1.0);
  return e;
}

// A^-1 by solving A X = I (on the Serial backend).
Matrix inverse(Matrix a, Index n) {
  Matrix x = identity(n);
  solve_dense(Exec::serial(), n, n, a.data(), x.data(), false);
  return x;
}

const Exec host_execs[] = {Exec::serial(), Exec::openmp()};

TEST(BemDense, RandomSystemsHaveSmallResiduals) {
  for (const Exec& exec : host_execs)
    for (Index n : {1, 7, 100, 300})
      for (Index n_rhs : {1, 3}) {
        const Matrix a = random_matrix(n, n, 17 + n);
        const Matrix b = random_matrix(n, n_rhs, 31 + n);
        Matrix lu = a, x = b;
        const DenseSolveReport report = solve_dense(exec, n, n_rhs, lu.data(), x.data());
        const std::string where = exec.describe() + " n " + std::to_string(n) + " rhs " + std::to_string(n_rhs);
        EXPECT_LT(relative_residual(a, x, b, n, n_rhs), 1e-13) << where;
        if (n > 1) {
          EXPECT_NE(lu, a) << where << ": A not overwritten by its factors";
        }
        EXPECT_TRUE(report.backend == "LAPACK (OpenBLAS)" || report.backend == "LAPACK") << report.backend;
        EXPECT_GT(report.reciprocal_condition, 0.0) << where;
        EXPECT_LE(report.reciprocal_condition, 1.0) << where;
        EXPECT_GE(report.factor_seconds, 0.0);
        EXPECT_GE(report.solve_seconds, 0.0);
      }
}

// A known solution comes back to within the forward-error bound: cond * backward error.
TEST(BemDense, ForwardErrorWithinConditionTimesBackwardError) {
  const Index n = 100, n_rhs = 3;
  const Matrix a = random_matrix(n, n, 5);
  const Matrix solution = random_matrix(n, n_rhs, 6);
  Matrix lu = a, x = multiply(a, solution, n, n_rhs);
  const DenseSolveReport report = solve_dense(Exec::openmp(), n, n_rhs, lu.data(), x.data());
  Matrix error = x;
  for (std::size_t k = 0; k < error.size(); ++k) error[k] -= solution[k];
  // Backward error 1e-13 (above) times the condition number, for which the estimate's reciprocal
  // is a lower bound within a factor 10 (header).
  const double bound = 10.0 / report.reciprocal_condition * 1e-13;
  EXPECT_LT(column_sum_norm(error, n, n_rhs) / column_sum_norm(solution, n, n_rhs), bound);
}

// The estimate against the exact condition number ||A||_1 ||A^-1||_1 from the computed inverse.
TEST(BemDense, ConditionEstimateBracketsTheExactOne) {
  for (const Exec& exec : host_execs)
    for (Index n : {7, 100, 300}) {
      const Matrix a = random_matrix(n, n, 40 + n);
      const double exact = 1.0 / (column_sum_norm(a, n, n) * column_sum_norm(inverse(a, n), n, n));
      Matrix lu = a;
      const DenseSolveReport report = solve_dense(exec, n, 0, lu.data(), nullptr);
      EXPECT_GE(report.reciprocal_condition, exact * (1 - 1e-10)) << exec.describe() << " n " << n;
      EXPECT_LE(report.reciprocal_condition, 10 * exact) << exec.describe() << " n " << n;
    }
}

// P D with D = diag(d_k), |d_k| from 1 to 1e6 and P a cyclic shift (so every column pivots):
// ||A||_1 = 1e6, ||A^-1||_1 = 1, rcond = 1e-6 exactly; the estimator finds it (A^-1 has one
// entry per column).
TEST(BemDense, ConditionOfAPermutedDiagonalMatrixIsExact) {
  for (const Exec& exec : host_execs)
    for (Index n : {1, 7, 100}) {
      Matrix a(static_cast<std::size_t>(n) * n);
      for (Index k = 0; k < n; ++k) {
        const double magnitude = n == 1 ? 1.0 : std::pow(1e6, double(k) / (n - 1));
        const double phase = 0.7 * k;
        a[at((k + 3) % n, k, n)] = Complex(magnitude * std::cos(phase), magnitude * std::sin(phase));
      }
      Matrix b = random_matrix(n, 1, 9);
      const Matrix rhs = b;
      const DenseSolveReport report = solve_dense(exec, n, 1, a.data(), b.data());
      const double expected = n == 1 ? 1.0 : 1e-6;
      EXPECT_NEAR(report.reciprocal_condition, expected, 1e-12 * expected) << exec.describe() << " n " << n;
      // x_k = b_{(k+3) % n} / d_k.
      for (Index k = 0; k < n; ++k) {
        const double magnitude = n == 1 ? 1.0 : std::pow(1e6, double(k) / (n - 1));
        const Complex d(magnitude * std::cos(0.7 * k), magnitude * std::sin(0.7 * k));
        const Complex expected_x = rhs[static_cast<std::size_t>((k + 3) % n)] / d;
        // One complex division: a few ulps of |x_k|.
        EXPECT_LT(abs(b[static_cast<std::size_t>(k)] - expected_x), 1e-15 * abs(expected_x)) << k;
      }
    }
}

// A column-diagonally-dominant matrix needs no row swaps, so the factors left in A multiply back
// to A: L U = A to rounding (up to n terms of |L||U| <= 2n, each rounded: n u 2n, below 1e-14 2n
// for n = 40).
TEST(BemDense, FactorsAreLeftInA) {
  const Index n = 40;
  Matrix a = random_matrix(n, n, 77);
  for (Index k = 0; k < n; ++k) a[at(k, k, n)] += Complex(2.0 * n);
  Matrix lu = a;
  solve_dense(Exec::serial(), n, 0, lu.data(), nullptr, false);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j) {
      Complex product;
      for (Index k = 0; k <= std::min(i, j); ++k) {
        const Complex lower = k == i ? Complex(1.0) : lu[at(i, k, n)];
        product += lower * lu[at(k, j, n)];
      }
      EXPECT_LT(abs(product - a[at(i, j, n)]), 1e-14 * 2.0 * n) << i << ", " << j;
    }
}

TEST(BemDense, NoConditionEstimateWhenNotAsked) {
  Matrix a = random_matrix(7, 7, 3), b = random_matrix(7, 1, 4);
  const DenseSolveReport report = solve_dense(Exec::serial(), 7, 1, a.data(), b.data(), false);
  EXPECT_TRUE(std::isnan(report.reciprocal_condition));
  EXPECT_EQ(report.condition_seconds, 0.0);
}

std::string singular_message(const Exec& exec, Matrix a, Index n) {
  Matrix b = random_matrix(n, 1, 2);
  try {
    solve_dense(exec, n, 1, a.data(), b.data());
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(BemDense, SingularMatrixNamesTheZeroPivot) {
  for (const Exec& exec : host_execs) {
    // [[2, 4], [1, 2]]: rank 1, elimination exact in binary (multiplier 1/2), U(2,2) = 2 - 4/2 = 0.
    const Matrix rank_one = {Complex(2.0), Complex(1.0), Complex(4.0), Complex(2.0)};
    const std::string message = singular_message(exec, rank_one, 2);
    EXPECT_NE(message.find("singular"), std::string::npos) << message;
    EXPECT_NE(message.find("U(2,2)"), std::string::npos) << message;
    EXPECT_NE(message.find("zgetrf"), std::string::npos) << message;

    // Column 4 (counting from 1) of a random 7 x 7 matrix zero: no pivot is left at step 4.
    Matrix zero_column = random_matrix(7, 7, 12);
    for (Index i = 0; i < 7; ++i) zero_column[at(i, 3, 7)] = Complex();
    const std::string column_message = singular_message(exec, zero_column, 7);
    EXPECT_NE(column_message.find("U(4,4)"), std::string::npos) << column_message;
    EXPECT_NE(column_message.find("of 7"), std::string::npos) << column_message;
  }
}

TEST(BemDense, NonFiniteMatrixIsRefused) {
  Matrix a = random_matrix(5, 5, 8), b = random_matrix(5, 1, 9);
  a[at(2, 3, 5)] = Complex(std::numeric_limits<double>::quiet_NaN());
  EXPECT_THROW(solve_dense(Exec::serial(), 5, 1, a.data(), b.data()), Error);
}

TEST(BemDense, EmptyAndInvalidSystems) {
  for (const Exec& exec : host_execs) {
    const DenseSolveReport report = solve_dense(exec, 0, 1, nullptr, nullptr);
    EXPECT_EQ(report.reciprocal_condition, 1.0);  // zgecon's value for n = 0
    EXPECT_TRUE(std::isnan(solve_dense(exec, 0, 0, nullptr, nullptr, false).reciprocal_condition));
  }
  Matrix a = random_matrix(3, 3, 1);
  EXPECT_THROW(solve_dense(Exec::serial(), -1, 1, a.data(), a.data()), Error);
  EXPECT_THROW(solve_dense(Exec::serial(), 3, -1, a.data(), a.data()), Error);
  EXPECT_THROW(solve_dense(Exec::serial(), 3, 1, nullptr, a.data()), Error);
  EXPECT_THROW(solve_dense(Exec::serial(), 3, 1, a.data(), nullptr), Error);
}

// ------------------------------------------------------------------------------------------------

TEST(BemDenseNorm, ColumnSumNorm) {
  // Columns (3+4i, 1, 0) and (-2, 0, 5i): sums 6 and 7.
  const Matrix a = {Complex(3, 4), Complex(1), Complex(), Complex(-2), Complex(), Complex(0, 5)};
  for (const Exec& exec : host_execs) {
    EXPECT_EQ(norm_1(exec, 3, 2, a.data()), 7.0);
    EXPECT_EQ(norm_1(exec, 0, 2, nullptr), 0.0);
    EXPECT_EQ(norm_1(exec, 3, 0, nullptr), 0.0);
    // Rows not a multiple of the 32 segments: against the direct sum. Same terms, another order
    // of addition: rounding of 100 terms, 1e-14 relative.
    const Matrix b = random_matrix(100, 37, 5);
    EXPECT_NEAR(norm_1(exec, 100, 37, b.data()), column_sum_norm(b, 100, 37), 1e-14 * column_sum_norm(b, 100, 37));
    Matrix c = b;
    c[at(60, 20, 100)] = Complex(std::numeric_limits<double>::quiet_NaN());
    EXPECT_TRUE(std::isnan(norm_1(exec, 100, 37, c.data())));
  }
}

// ------------------------------------------------------------------------------------------------

// Higham's estimator with exact solves (the computed inverse), the one the GPU path runs.
TEST(BemDenseEstimate, LowerBoundWithinFactorTenAndAtMostElevenSolves) {
  for (Index n : {1, 2, 7, 100, 300}) {
    const Matrix a = random_matrix(n, n, 90 + n);
    const Matrix inv = inverse(a, n);
    int solves = 0;
    const double estimate = estimate_inverse_norm_1(n, [&](std::vector<Complex>& x, bool adjoint) {
      ++solves;
      std::vector<Complex> y(x.size());
      for (Index i = 0; i < n; ++i)
        for (Index k = 0; k < n; ++k)
          y[static_cast<std::size_t>(i)] +=
              (adjoint ? conj(inv[at(k, i, n)]) : inv[at(i, k, n)]) * x[static_cast<std::size_t>(k)];
      x = y;
    });
    const double exact = column_sum_norm(inv, n, n);
    EXPECT_LE(estimate, exact * (1 + 1e-10)) << n;
    EXPECT_GE(estimate, exact / 10) << n;
    EXPECT_LE(solves, 11) << n;
    EXPECT_GE(solves, 1) << n;
  }
  EXPECT_EQ(estimate_inverse_norm_1(0, [](std::vector<Complex>&, bool) { FAIL() << "no solve for n = 0"; }), 0.0);
}

// A diagonal matrix: the ascent reaches the largest column of A^-1 at its first step.
TEST(BemDenseEstimate, ExactForDiagonalMatrices) {
  const Index n = 50;
  std::vector<Complex> d(n);
  for (Index k = 0; k < n; ++k) d[static_cast<std::size_t>(k)] = Complex(1.0 + k, 0.5 * k - 3.0);
  const double exact = [&] {
    double largest = 0.0;
    for (const Complex& value : d) largest = std::max(largest, 1.0 / abs(value));
    return largest;
  }();
  const double estimate = estimate_inverse_norm_1(n, [&](std::vector<Complex>& x, bool adjoint) {
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = x[k] / (adjoint ? conj(d[k]) : d[k]);
  });
  EXPECT_NEAR(estimate, exact, 1e-14 * exact);
}

}  // namespace
}  // namespace tremor::bem
