#include "tremor/imaging/tfm.hpp"

#include <cmath>
#include <complex>
#include <limits>
#include <span>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/imaging/envelope.hpp"
#include "tremor/imaging/tfm_sum.hpp"

namespace tremor::imaging {

void Fmc::check() const {
  TREMOR_CHECK(!elements.empty(), "full-matrix capture of no element");
  for (std::size_t i = 0; i < elements.size(); ++i)
    TREMOR_CHECK(std::isfinite(elements[i][0]) && std::isfinite(elements[i][1]), "element ", i, "'s centre (",
                 elements[i][0], ", ", elements[i][1], ") is not finite");
  TREMOR_CHECK(std::isfinite(dt) && dt > 0.0, "full-matrix capture's sample interval ", dt,
               " s; expected a finite time above 0");
  TREMOR_CHECK(std::isfinite(t0), "full-matrix capture's first sample at ", t0, " s; expected a finite time");
  TREMOR_CHECK(n_samples >= 1, "full-matrix capture of no sample");
  const std::size_t n = elements.size();
  TREMOR_CHECK(data.size() == n * n * n_samples, "full-matrix capture of ", n, " elements and ", n_samples,
               " samples holds ", data.size(), " values; expected ", n * n * n_samples);
  for (std::size_t k = 0; k < data.size(); ++k)
    TREMOR_CHECK(std::isfinite(data[k]), "A-scan ", k / n_samples / n, " -> ", k / n_samples % n, ", sample ",
                 k % n_samples, " is ", data[k]);
}

void Path::check() const {
  TREMOR_CHECK(!speeds.empty(), "a path of no leg");
  for (const double c : speeds)
    TREMOR_CHECK(std::isfinite(c) && c > 0.0, "a path's speed of ", c, " m/s; expected a finite speed above 0");
  TREMOR_CHECK(planes.size() + 1 == speeds.size(), "a path of ", speeds.size(), " legs turns at ", planes.size(),
               " planes; expected ", speeds.size() - 1);
  for (const double z : planes) TREMOR_CHECK(std::isfinite(z), "a path's plane at z = ", z, " m; expected a finite depth");
}

double travel_time(const Path& path, const std::array<double, 2>& a, const std::array<double, 2>& b) {
  const std::size_t m = path.planes.size();  // turning points x[1..m]; x[0] = a, x[m + 1] = b
  if (m == 0) return std::hypot(b[0] - a[0], b[1] - a[1]) / path.speeds[0];
  std::vector<double> x(m + 2), z(m + 2), w(m + 1), g(m + 2, 0.0), diag(m + 2), step(m + 2);
  x[0] = a[0];
  z[0] = a[1];
  x[m + 1] = b[0];
  z[m + 1] = b[1];
  double depth = 0.0;  // the depth the legs cover, all told
  for (std::size_t k = 1; k <= m; ++k) z[k] = path.planes[k - 1];
  for (std::size_t k = 0; k <= m; ++k) {
    if (z[k + 1] == z[k]) return std::numeric_limits<double>::quiet_NaN();
    depth += std::abs(z[k + 1] - z[k]);
  }
  // The first guess: the path unfolded into a straight line, each turning point as far along it as
  // the depth covered before it.
  double covered = 0.0;
  for (std::size_t k = 1; k <= m; ++k) {
    covered += std::abs(z[k] - z[k - 1]);
    x[k] = a[0] + (b[0] - a[0]) * covered / depth;
  }
  const auto time = [&](const std::vector<double>& at) {
    double t = 0.0;
    for (std::size_t k = 0; k <= m; ++k) t += std::hypot(at[k + 1] - at[k], z[k + 1] - z[k]) / path.speeds[k];
    return t;
  };
  const double scale = depth + std::abs(b[0] - a[0]);
  double t = time(x);
  for (int iteration = 0; iteration < 100; ++iteration) {
    // The gradient of the time in the turning points, and its Hessian: tridiagonal, leg k adding
    // w_k = dz_k^2 / (c_k L_k^3) to the points at its ends and -w_k between them.
    for (std::size_t k = 0; k <= m; ++k) {
      const double dx = x[k + 1] - x[k], dz = z[k + 1] - z[k], length = std::hypot(dx, dz);
      const double slowness = 1.0 / (path.speeds[k] * length);
      w[k] = dz * dz * slowness / (length * length);
      if (k >= 1) g[k] -= dx * slowness;
      if (k + 1 <= m) g[k + 1] = dx * slowness;
    }
    // Thomas's algorithm on H step = -g: diagonal w_(k-1) + w_k, off-diagonal -w_k between k and
    // k + 1 (forward elimination into diag and step, then back substitution).
    for (std::size_t k = 1; k <= m; ++k) {
      diag[k] = w[k - 1] + w[k];
      step[k] = -g[k];
      if (k > 1) {
        const double f = w[k - 1] / diag[k - 1];  // row k less -f times row k - 1
        diag[k] -= f * w[k - 1];
        step[k] += f * step[k - 1];
      }
    }
    for (std::size_t k = m; k >= 1; --k) step[k] = (step[k] + (k < m ? w[k] * step[k + 1] : 0.0)) / diag[k];
    // Halved until the time falls (Armijo): Newton's step is taken whole near the least time.
    double slope = 0.0, largest = 0.0;
    for (std::size_t k = 1; k <= m; ++k) {
      slope += g[k] * step[k];
      largest = std::max(largest, std::abs(step[k]));
    }
    std::vector<double> trial = x;
    double fraction = 1.0, t_trial = t;
    for (int halving = 0; halving < 60; ++halving, fraction *= 0.5) {
      for (std::size_t k = 1; k <= m; ++k) trial[k] = x[k] + fraction * step[k];
      t_trial = time(trial);
      if (t_trial <= t + 1e-4 * fraction * slope) break;
    }
    if (!(t_trial <= t)) break;  // no step lowers it: at the least time, to rounding
    x.swap(trial);
    t = t_trial;
    if (fraction * largest <= 1e-14 * scale) break;
  }
  return t;
}

namespace {

void check_image(const Fmc& fmc, Index nx, Index ny, const std::array<double, 2>& min, const std::array<double, 2>& max) {
  fmc.check();
  TREMOR_CHECK(nx >= 1 && ny >= 1 && static_cast<long long>(nx) * ny <= std::numeric_limits<Index>::max(),
               "an image of ", nx, " x ", ny, " pixels; expected at least 1 x 1 and at most 2^31 - 1 pixels");
  for (int d = 0; d < 2; ++d)
    TREMOR_CHECK(std::isfinite(min[d]) && std::isfinite(max[d]), "the image's extent (", min[d], " to ", max[d],
                 ") is not finite");
}

}  // namespace

GridMap total_focusing(const Fmc& fmc, Index nx, Index ny, const std::array<double, 2>& min,
                       const std::array<double, 2>& max, const Path& transmit, const Path& receive,
                       const Exec& exec) {
  check_image(fmc, nx, ny, min, max);
  transmit.check();
  receive.check();
  const std::size_t n = fmc.n_elements(), samples = fmc.n_samples;
  GridMap image;
  image.nx = nx;
  image.ny = ny;
  image.min = min;
  image.max = max;
  image.values.assign(static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny), 0.0);
  const Index pixels = nx * ny;
  // The A-scans' analytic signals, once: real and imaginary parts apart.
  std::vector<double> real(n * n * samples), imaginary(n * n * samples);
  {
    const Envelopes hilbert(samples);
    const auto pairs = static_cast<long long>(n * n);
#pragma omp parallel
    {
      std::vector<std::complex<double>> analytic(samples);
#pragma omp for schedule(dynamic, 4)
      for (long long ij = 0; ij < pairs; ++ij) {
        const auto at = static_cast<std::size_t>(ij) * samples;
        hilbert.analytic(std::span<const double>(fmc.data.data() + at, samples), analytic);
        for (std::size_t k = 0; k < samples; ++k) {
          real[at + k] = analytic[k].real();
          imaginary[at + k] = analytic[k].imag();
        }
      }
    }
  }
  DelayAndSum sum(exec, n, samples, -fmc.t0 / fmc.dt, fmc.dt, real, imaginary);
  real = {};
  imaginary = {};
  // The delays [element][pixel] (s) of a block of pixels at a time: 2^24 of each path's at most.
  const bool same = receive.speeds == transmit.speeds && receive.planes == transmit.planes;
  const Index block = std::max<Index>(1, static_cast<Index>((std::size_t{1} << 24) / n));
  std::vector<double> out, back;
  for (Index start = 0; start < pixels; start += block) {
    const Index count = std::min(block, pixels - start);
    const auto table = [&](const Path& path, std::vector<double>& delays) {
      delays.resize(n * static_cast<std::size_t>(count));
      const auto entries = static_cast<long long>(n) * count;
#pragma omp parallel for schedule(dynamic, 256)
      for (long long ip = 0; ip < entries; ++ip) {
        const auto i = static_cast<std::size_t>(ip / count);
        const Index p = start + static_cast<Index>(ip % count);
        delays[static_cast<std::size_t>(ip)] = travel_time(path, fmc.elements[i], image.point(p));
      }
    };
    table(transmit, out);
    if (!same) table(receive, back);
    sum(out, same ? out : back, count, image.values.data() + start);
  }
  return image;
}

GridMap total_focusing(const Fmc& fmc, Index nx, Index ny, const std::array<double, 2>& min,
                       const std::array<double, 2>& max, double c_transmit, double c_receive) {
  TREMOR_CHECK(std::isfinite(c_transmit) && c_transmit > 0.0 && std::isfinite(c_receive) && c_receive > 0.0,
               "wave speeds ", c_transmit, " and ", c_receive, " m/s; expected finite speeds above 0");
  return total_focusing(fmc, nx, ny, min, max, Path{{c_transmit}, {}}, Path{{c_receive}, {}}, Exec::openmp());
}

}  // namespace tremor::imaging
