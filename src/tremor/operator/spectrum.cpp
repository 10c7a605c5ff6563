#include "tremor/operator/spectrum.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/backend/reduce.hpp"
#include "tremor/core/error.hpp"

namespace tremor::op {

double largest_tridiagonal_eigenvalue(const double* a, const double* b, int n) {
  TREMOR_CHECK(n > 0, "largest_tridiagonal_eigenvalue: an empty matrix");
  // Gershgorin bounds every eigenvalue.
  double lo = a[0], hi = a[0];
  for (int i = 0; i < n; ++i) {
    const double radius = (i > 0 ? std::abs(b[i - 1]) : 0.0) + (i + 1 < n ? std::abs(b[i]) : 0.0);
    lo = std::min(lo, a[i] - radius);
    hi = std::max(hi, a[i] + radius);
  }
  // Eigenvalues below x: the negative pivots of T - x I (Sturm).
  const auto below = [&](double x) {
    int count = 0;
    double q = 1.0;
    const double tiny = 1e-300 + 1e-16 * (std::abs(lo) + std::abs(hi));
    for (int i = 0; i < n; ++i) {
      q = a[i] - x - (i > 0 ? b[i - 1] * b[i - 1] / q : 0.0);
      if (q == 0.0) q = -tiny;
      if (q < 0.0) ++count;
    }
    return count;
  };
  for (int step = 0; step < 200 && hi - lo > 1e-15 * std::max(std::abs(lo), std::abs(hi)); ++step) {
    const double mid = 0.5 * (lo + hi);
    (below(mid) < n ? lo : hi) = mid;  // the largest lies above mid while fewer than n are below it
  }
  return hi;
}

Spectrum largest_eigenvalue(const Operator<double>& K, const double* mass, double tolerance, int max_iterations) {
  const Exec& exec = K.exec();
  const Index n = K.n_dofs();
  TREMOR_CHECK(n > 0, "largest eigenvalue: the ", K.name(), " operator has no DOFs");
  DeviceArray<double> scale(exec, n), v(exec, n), previous(exec, n), w(exec, n), x(exec, n);
  double* s = scale.data();
  double* pv = previous.data();
  double* pw = w.data();
  double* px = x.data();
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) {
    // A massless DOF (a node no element of the operator holds, which the integrator holds at rest)
    // is left out: 0 in the scaling and the start.
    s[i] = mass[i] > 0.0 ? 1.0 / sqrt(mass[i]) : 0.0;
    pv[i] = 0.0;
    // A fixed pseudo-random start in [-1, 1): no eigenvector is missed by symmetry.
    std::uint64_t k = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    k ^= k >> 31;
    k *= 0x94D049BB133111EBull;
    k ^= k >> 29;
    px[i] = mass[i] > 0.0 ? static_cast<double>(k >> 11) * 0x1.0p-52 - 1.0 : 0.0;
  });
  const double start = std::sqrt(sum<double>(exec, n, [=] TREMOR_LAMBDA(Index i) { return px[i] * px[i]; }));
  double* pu = v.data();
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) { pu[i] = px[i] / start; });
  std::vector<double> alpha, beta;
  std::vector<double> history;  // the largest Ritz value per iteration
  Spectrum out;
  double b_prev = 0.0;
  for (int k = 0; k < max_iterations; ++k) {
    // w = M^-1/2 K M^-1/2 v
    forall(exec, n, [=] TREMOR_LAMBDA(Index i) { px[i] = s[i] * pu[i]; });
    K.apply_unchecked(px, pw);
    forall(exec, n, [=] TREMOR_LAMBDA(Index i) { pw[i] *= s[i]; });
    const double a = sum<double>(exec, n, [=] TREMOR_LAMBDA(Index i) { return pu[i] * pw[i]; });
    forall(exec, n, [=] TREMOR_LAMBDA(Index i) { pw[i] -= a * pu[i] + b_prev * pv[i]; });
    const double b = std::sqrt(sum<double>(exec, n, [=] TREMOR_LAMBDA(Index i) { return pw[i] * pw[i]; }));
    alpha.push_back(a);
    const double theta = largest_tridiagonal_eigenvalue(alpha.data(), beta.data(), static_cast<int>(alpha.size()));
    history.push_back(theta);
    out.largest = theta;
    out.iterations = k + 1;
    TREMOR_CHECK(theta > 0.0 || k > 0, "largest eigenvalue: the ", K.name(), " operator gives no force (no stiffness)");
    if (k >= 10) {
      out.change = (theta - history[static_cast<std::size_t>(k - 10)]) / theta;
      if (out.change <= tolerance) break;
    }
    if (!(b > 1e-14 * theta)) break;  // an invariant subspace: theta is an eigenvalue
    beta.push_back(b);
    // previous <- v, v <- w / b
    forall(exec, n, [=] TREMOR_LAMBDA(Index i) {
      pv[i] = pu[i];
      pu[i] = pw[i] / b;
    });
    b_prev = b;
  }
  return out;
}

}  // namespace tremor::op
