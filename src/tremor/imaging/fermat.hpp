#pragma once
// Fermat's least time along a way that turns at lines z = const (imaging/tfm.hpp's Path, as a
// kernel takes it): legs at speeds c_0 .. c_m, leg k ending and leg k + 1 starting on z = z_k.
// The time T(x_1 .. x_m) = sum_k |P_(k+1) - P_k| / c_k of the turning points' x is convex (a sum of
// norms of affine maps), so its one stationary point is its least: Newton's method on the
// gradient, the Hessian tridiagonal (leg k adds w_k = dz_k^2 / (c_k L_k^3) to the points at its
// ends and -w_k between them), each step halved until the time falls (Armijo). One body for the
// host and the GPU: fixed arrays, no allocation.
#include <cmath>
#include <limits>

#include "tremor/core/config.hpp"

namespace tremor::imaging {

// Legs a way may have: an interface, down to the back wall and up (3), and one more.
inline constexpr int max_legs = 4;

struct Way {
  int legs = 1;
  double speeds[max_legs] = {};      // m/s
  double planes[max_legs - 1] = {};  // m: z of each turn
};

namespace fermat_detail {

template <int M>
TREMOR_HOST_DEVICE inline double time_along(const Way& way, const double (&x)[M], const double (&z)[M]) {
  double t = 0.0;
  for (int k = 0; k < way.legs; ++k) {
    const double dx = x[k + 1] - x[k], dz = z[k + 1] - z[k];
    t += std::sqrt(dx * dx + dz * dz) / way.speeds[k];
  }
  return t;
}

}  // namespace fermat_detail

// The least time (s) from (ax, az) to (bx, bz) along `way`; NaN where a leg would run along its
// plane (an end on a plane the way turns at: no depth to cover).
TREMOR_HOST_DEVICE inline double travel_time(const Way& way, double ax, double az, double bx, double bz) {
  constexpr int M = max_legs + 1;  // points: a, the turning points, b
  const int m = way.legs - 1;      // turning points x[1 .. m]
  double x[M] = {}, z[M] = {};
  x[0] = ax;
  z[0] = az;
  x[m + 1] = bx;
  z[m + 1] = bz;
  for (int k = 1; k <= m; ++k) z[k] = way.planes[k - 1];
  double depth = 0.0;  // the depth the legs cover, all told
  for (int k = 0; k <= m; ++k) {
    if (m > 0 && z[k + 1] == z[k]) return std::numeric_limits<double>::quiet_NaN();
    depth += std::fabs(z[k + 1] - z[k]);
  }
  if (m == 0) return std::sqrt((bx - ax) * (bx - ax) + (bz - az) * (bz - az)) / way.speeds[0];
  // The first guess: the way unfolded into a straight line, each turning point as far along it as
  // the depth covered before it.
  double covered = 0.0;
  for (int k = 1; k <= m; ++k) {
    covered += std::fabs(z[k] - z[k - 1]);
    x[k] = ax + (bx - ax) * covered / depth;
  }
  const double scale = depth + std::fabs(bx - ax);
  double t = fermat_detail::time_along(way, x, z);
  double w[M] = {}, g[M] = {}, diag[M] = {}, step[M] = {}, trial[M] = {};
  for (int iteration = 0; iteration < 100; ++iteration) {
    for (int k = 0; k <= m + 1; ++k) g[k] = 0.0;
    for (int k = 0; k <= m; ++k) {
      const double dx = x[k + 1] - x[k], dz = z[k + 1] - z[k], length = std::sqrt(dx * dx + dz * dz);
      const double slowness = 1.0 / (way.speeds[k] * length);
      w[k] = dz * dz * slowness / (length * length);
      g[k] -= dx * slowness;  // (g[0] unused)
      g[k + 1] += dx * slowness;
    }
    // Thomas's algorithm on H step = -g: forward elimination into diag and step, then back
    // substitution.
    for (int k = 1; k <= m; ++k) {
      diag[k] = w[k - 1] + w[k];
      step[k] = -g[k];
      if (k > 1) {
        const double f = w[k - 1] / diag[k - 1];  // row k less -f times row k - 1
        diag[k] -= f * w[k - 1];
        step[k] += f * step[k - 1];
      }
    }
    for (int k = m; k >= 1; --k) step[k] = (step[k] + (k < m ? w[k] * step[k + 1] : 0.0)) / diag[k];
    double slope = 0.0, largest = 0.0;
    for (int k = 1; k <= m; ++k) {
      slope += g[k] * step[k];
      largest = std::fmax(largest, std::fabs(step[k]));
    }
    for (int k = 0; k <= m + 1; ++k) trial[k] = x[k];
    double fraction = 1.0, t_trial = t;
    for (int halving = 0; halving < 60; ++halving, fraction *= 0.5) {
      for (int k = 1; k <= m; ++k) trial[k] = x[k] + fraction * step[k];
      t_trial = fermat_detail::time_along(way, trial, z);
      if (t_trial <= t + 1e-4 * fraction * slope) break;
    }
    if (!(t_trial <= t)) break;  // no step lowers it: at the least time, to rounding
    for (int k = 1; k <= m; ++k) x[k] = trial[k];
    t = t_trial;
    if (fraction * largest <= 1e-14 * scale) break;
  }
  return t;
}

}  // namespace tremor::imaging
