#pragma once
// Dense references for the sparse solvers' tests: a CSR matrix as a dense row-major one, its
// Cholesky factor and solves with it (small matrices only: O(n^3)).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tremor/sparse/csr.hpp"

namespace tremor::test {

inline std::vector<double> csr_to_dense(const sparse::CsrMatrix& m) {
  const auto n = static_cast<std::size_t>(m.n_rows);
  std::vector<double> a(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (Size k = m.offsets[i]; k < m.offsets[i + 1]; ++k)
      a[i * n + static_cast<std::size_t>(m.columns[static_cast<std::size_t>(k)])] =
          m.values[static_cast<std::size_t>(k)];
  return a;
}

// Cholesky factor L (lower, row-major, upper triangle zeroed) of a symmetric positive definite
// matrix; a non-positive pivot fails the calling test.
inline std::vector<double> cholesky(std::vector<double> a, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    EXPECT_GT(d, 0.0) << "not positive definite at " << j;
    a[j * n + j] = std::sqrt(d);
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / a[j * n + j];
    }
    for (std::size_t i = 0; i < j; ++i) a[i * n + j] = 0.0;
  }
  return a;
}

// x = (L L^T)^-1 b.
inline std::vector<double> cholesky_solve(const std::vector<double>& l, std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < i; ++k) b[i] -= l[i * n + k] * b[k];
    b[i] /= l[i * n + i];
  }
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t k = i + 1; k < n; ++k) b[i] -= l[k * n + i] * b[k];
    b[i] /= l[i * n + i];
  }
  return b;
}

// x = A^-1 b for a symmetric positive definite A (row-major).
inline std::vector<double> dense_solve(const std::vector<double>& a, const std::vector<double>& b) {
  return cholesky_solve(cholesky(a, b.size()), b);
}

}  // namespace tremor::test
