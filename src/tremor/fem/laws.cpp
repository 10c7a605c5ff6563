#include "tremor/fem/laws.hpp"

#include <cmath>

namespace tremor::fem {

LawKind law_kind(const double* D, int n_voigt) {
  const int normal = n_voigt == 6 ? 3 : 2;  // the normal components come first
  const double lambda = D[1], mu = D[normal * n_voigt + normal], scale = std::abs(D[0]);
  const auto near = [&](double a, double b) { return std::abs(a - b) <= 1e-14 * scale; };
  for (int i = 0; i < n_voigt; ++i)
    for (int j = 0; j < n_voigt; ++j) {
      double expected = 0.0;
      if (i < normal && j < normal) expected = i == j ? lambda + 2.0 * mu : lambda;
      if (i >= normal && i == j) expected = mu;
      if (!near(D[i * n_voigt + j], expected)) return LawKind::Anisotropic;
    }
  return LawKind::Isotropic;
}

}  // namespace tremor::fem
