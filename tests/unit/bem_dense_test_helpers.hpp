#pragma once
// Random dense complex matrices and an independent 1-norm for the dense-solve tests (unit and
// parity).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "sparse_test_models.hpp"
#include "tremor/bem/complex.hpp"

namespace tremor::bem::test_dense {

using Matrix = std::vector<Complex>;  // column-major

inline std::size_t at(Index i, Index j, Index rows) { return static_cast<std::size_t>(Size(j) * rows + i); }

// Entries with real and imaginary parts in [-1, 1): random complex matrices of these sizes have
// condition numbers of tens to thousands, and partial pivoting swaps rows at most steps.
inline Matrix random_matrix(Index rows, Index cols, std::uint64_t seed) {
  Matrix a(static_cast<std::size_t>(Size(rows) * cols));
  for (std::size_t k = 0; k < a.size(); ++k)
    a[k] = Complex(test::hash_unit(seed * 1000003u + 2 * k), test::hash_unit(seed * 1000003u + 2 * k + 1));
  return a;
}

// Independent of the library's norm_1: max_j sum_i |A(i,j)|.
inline double column_sum_norm(const Matrix& a, Index rows, Index cols) {
  double largest = 0.0;
  for (Index j = 0; j < cols; ++j) {
    double sum = 0.0;
    for (Index i = 0; i < rows; ++i) sum += std::hypot(a[at(i, j, rows)].re, a[at(i, j, rows)].im);
    largest = std::max(largest, sum);
  }
  return largest;
}

}  // namespace tremor::bem::test_dense
