#include "tremor/imaging/tfm.hpp"

#include <cmath>
#include <complex>
#include <limits>

#include "tremor/core/error.hpp"
#include "tremor/imaging/envelope.hpp"

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

GridMap total_focusing(const Fmc& fmc, Index nx, Index ny, const std::array<double, 2>& min,
                       const std::array<double, 2>& max, double c_transmit, double c_receive) {
  fmc.check();
  TREMOR_CHECK(nx >= 1 && ny >= 1 && static_cast<long long>(nx) * ny <= std::numeric_limits<Index>::max(),
               "an image of ", nx, " x ", ny, " pixels; expected at least 1 x 1 and at most 2^31 - 1 pixels");
  for (int d = 0; d < 2; ++d)
    TREMOR_CHECK(std::isfinite(min[d]) && std::isfinite(max[d]), "the image's extent (", min[d], " to ", max[d],
                 ") is not finite");
  TREMOR_CHECK(std::isfinite(c_transmit) && c_transmit > 0.0 && std::isfinite(c_receive) && c_receive > 0.0,
               "wave speeds ", c_transmit, " and ", c_receive, " m/s; expected finite speeds above 0");
  const std::size_t n = fmc.n_elements(), samples = fmc.n_samples;
  // The A-scans' analytic signals, once.
  std::vector<std::complex<double>> analytic(n * n * samples);
  const Envelopes hilbert(samples);
  const auto pairs = static_cast<long long>(n * n);
#pragma omp parallel for schedule(dynamic, 4)
  for (long long ij = 0; ij < pairs; ++ij) {
    const auto at = static_cast<std::size_t>(ij) * samples;
    hilbert.analytic(std::span<const double>(fmc.data.data() + at, samples),
                     std::span<std::complex<double>>(analytic.data() + at, samples));
  }
  GridMap image;
  image.nx = nx;
  image.ny = ny;
  image.min = min;
  image.max = max;
  image.values.assign(static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny), 0.0);
  const double last = static_cast<double>(samples - 1), first = -fmc.t0 / fmc.dt;  // in samples
#pragma omp parallel
  {
    // The samples at which element i's wave reaches p (from the first sample), and the delay of
    // the way back from p to element i.
    std::vector<double> to(n), from(n);
#pragma omp for schedule(dynamic, 16)
    for (Index p = 0; p < nx * ny; ++p) {
      const std::array<double, 2> x = image.point(p);
      for (std::size_t i = 0; i < n; ++i) {
        const double distance = std::hypot(x[0] - fmc.elements[i][0], x[1] - fmc.elements[i][1]);
        to[i] = first + distance / (c_transmit * fmc.dt);
        from[i] = distance / (c_receive * fmc.dt);
      }
      std::complex<double> sum = 0.0;
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          const double s = to[i] + from[j];
          if (!(s >= 0.0 && s <= last)) continue;
          const auto k = static_cast<std::size_t>(s);
          const double w = s - static_cast<double>(k);
          const std::complex<double>* h = analytic.data() + (i * n + j) * samples + k;
          sum += w == 0.0 ? h[0] : (1.0 - w) * h[0] + w * h[1];
        }
      image.values[static_cast<std::size_t>(p)] = std::abs(sum);
    }
  }
  return image;
}

}  // namespace tremor::imaging
