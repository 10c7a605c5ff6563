#include "tremor/imaging/tfm.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <span>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/imaging/envelope.hpp"
#include "tremor/imaging/tfm_sum.hpp"

namespace tremor::imaging {

void Fmc::check() const {
  TREMOR_CHECK(!elements.empty(), "full-matrix capture of no element");
  for (std::size_t i = 0; i < elements.size(); ++i)
    TREMOR_CHECK(std::isfinite(elements[i][0]) && std::isfinite(elements[i][1]), "element ", i, "'s centre (",
                 elements[i][0], ", ", elements[i][1], ") is not finite");
  TREMOR_CHECK(across.empty() || across.size() == elements.size(), "full-matrix capture of ", elements.size(),
               " elements with ", across.size(), " distances off the image's plane");
  for (std::size_t i = 0; i < across.size(); ++i)
    TREMOR_CHECK(std::isfinite(across[i]), "element ", i, "'s distance off the image's plane (", across[i],
                 ") is not finite");
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
  TREMOR_CHECK(speeds.size() <= static_cast<std::size_t>(max_legs), "a path of ", speeds.size(), " legs; at most ",
               max_legs);
  for (const double c : speeds)
    TREMOR_CHECK(std::isfinite(c) && c > 0.0, "a path's speed of ", c, " m/s; expected a finite speed above 0");
  TREMOR_CHECK(planes.size() + 1 == speeds.size(), "a path of ", speeds.size(), " legs turns at ", planes.size(),
               " planes; expected ", speeds.size() - 1);
  for (const double z : planes) TREMOR_CHECK(std::isfinite(z), "a path's plane at z = ", z, " m; expected a finite depth");
}

Way Path::way() const {
  check();
  Way way;
  way.legs = static_cast<int>(speeds.size());
  std::copy(speeds.begin(), speeds.end(), way.speeds);
  std::copy(planes.begin(), planes.end(), way.planes);
  return way;
}

double travel_time(const Path& path, const std::array<double, 2>& a, const std::array<double, 2>& b) {
  return travel_time(path.way(), a[0], a[1], b[0], b[1]);
}

void analytic_signals(const Fmc& fmc, std::vector<double>& real, std::vector<double>& imaginary) {
  const std::size_t n = fmc.n_elements(), samples = fmc.n_samples;
  real.assign(n * n * samples, 0.0);
  imaginary.assign(n * n * samples, 0.0);
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
  const Way out = transmit.way(), back = receive.way();
  const std::size_t n = fmc.n_elements(), samples = fmc.n_samples;
  GridMap image;
  image.nx = nx;
  image.ny = ny;
  image.min = min;
  image.max = max;
  image.values.assign(static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny), 0.0);
  const Index pixels = nx * ny;
  std::vector<double> real, imaginary;
  analytic_signals(fmc, real, imaginary);
  DelayAndSum focus(exec, samples, -fmc.t0 / fmc.dt, fmc.dt, fmc.elements, fmc.across, real, imaginary);
  real = {};
  imaginary = {};
  // A block of pixels at a time: 2^24 delays of each way at most.
  const Index block = std::max<Index>(1, static_cast<Index>((std::size_t{1} << 24) / n));
  for (Index start = 0; start < pixels; start += block) {
    const Index count = std::min(block, pixels - start);
    focus.delays(out, back, image, start, count);
    focus.sum(image.values.data() + start);
  }
  return image;
}

GridMap total_focusing(const Fmc& fmc, Index nx, Index ny, const std::array<double, 2>& min,
                       const std::array<double, 2>& max, double c_transmit, double c_receive) {
  TREMOR_CHECK(std::isfinite(c_transmit) && c_transmit > 0.0 && std::isfinite(c_receive) && c_receive > 0.0,
               "wave speeds ", c_transmit, " and ", c_receive, " m/s; expected finite speeds above 0");
  return total_focusing(fmc, nx, ny, min, max, Path{{c_transmit}, {}}, Path{{c_receive}, {}}, Exec::openmp());
}

Arrivals arrivals(const Fmc& fmc, Index nx, Index ny, const std::array<double, 2>& min,
                  const std::array<double, 2>& max, const Path& transmit, const Path& receive, const Exec& exec) {
  check_image(fmc, nx, ny, min, max);
  const Way out = transmit.way(), back = receive.way();
  GridMap image;
  image.nx = nx;
  image.ny = ny;
  image.min = min;
  image.max = max;
  const Index pixels = nx * ny;
  // The delays alone: no A-scan is read.
  DelayAndSum focus(exec, fmc.n_samples, -fmc.t0 / fmc.dt, fmc.dt, fmc.elements, fmc.across, {}, {});
  Arrivals found{std::nan(""), std::nan("")};
  const Index block = std::max<Index>(1, static_cast<Index>((std::size_t{1} << 24) / fmc.n_elements()));
  for (Index start = 0; start < pixels; start += block) {
    focus.delays(out, back, image, start, std::min(block, pixels - start));
    focus.arrivals(found.earliest, found.latest);
  }
  return found;
}

void check_image_shows(const GridMap& image, const Fmc& fmc, const Path& transmit, const Path& receive,
                       const Exec& exec, double fired, const std::string& less, const std::string& what) {
  for (const double v : image.values)
    TREMOR_CHECK(std::isfinite(v), what, ": the image holds a value that is not a number (", v, ")");
  if (std::any_of(image.values.begin(), image.values.end(), [](double v) { return v != 0.0; })) return;
  const bool silent = std::all_of(fmc.data.begin(), fmc.data.end(), [](double v) { return v == 0.0; });
  TREMOR_CHECK(!silent, what, ": the capture", less, " is zero in every A-scan: no image to make");
  const Arrivals at = arrivals(fmc, image.nx, image.ny, image.min, image.max, transmit, receive, exec);
  TREMOR_CHECK(!std::isnan(at.earliest), what, ": no way reaches a pixel of the image (each lies on a plane a ",
               "way turns at)");
  const double end = fmc.t0 + static_cast<double>(fmc.n_samples - 1) * fmc.dt;  // the A-scans' time
  const double record = fired + end;                                               // the run's
  TREMOR_CHECK(at.earliest <= end, what, ": every pixel's way takes longer than the record (", record,
               " s): the nearest pixel's echo comes at ", fired + at.earliest, " s, the farthest's at ",
               fired + at.latest, " s; lengthen [explicit] duration to at least ", fired + at.earliest,
               " s (", fired + at.latest, " s for the whole image), or image nearer pixels (--extent)");
  throw Error(str(what, ": the image is zero: the capture", less, " is zero where the ways reach it (",
                  fired + at.earliest, " to ", fired + std::min(at.latest, end), " s of the record)"));
}

ImagePlan plan_image(const PartExtent& part, const std::array<double, 2>& min, const std::array<double, 2>& max,
                     double pixel, double at, double back_wall, bool contact, const std::string& what) {
  const auto range = [](double lo, double hi) { return str(lo, " to ", hi, " m"); };
  const std::string image = str("x ", range(min[0], max[0]), ", depth ", range(min[1], max[1]));
  const std::string whole = str("x ", range(part.min[0], part.max[0]), ", depth ", range(part.min[1], part.max[1]));
  // Rounding's residue of the part's extent (its corners projected) is not outside it.
  const double slack = 1e-9 * std::max({std::abs(part.min[0]), std::abs(part.max[0]), std::abs(part.min[1]),
                                        std::abs(part.max[1]), std::abs(part.across_min), std::abs(part.across_max)});
  // [lo, hi] wholly beyond [part_lo, part_hi], or not within it (NaN, unknown: neither).
  const auto beyond = [&](double lo, double hi, double part_lo, double part_hi) {
    return hi < part_lo - slack || lo > part_hi + slack;
  };
  const auto within = [&](double lo, double hi, double part_lo, double part_hi) {
    return !(lo < part_lo - slack) && !(hi > part_hi + slack);
  };
  TREMOR_CHECK(!(contact && min[1] < 0.0), what, ": --extent starts ", -min[1], " m above the surface the array ",
               "stands on (depth ", min[1], " m): the part lies below it, from depth 0");
  TREMOR_CHECK(!(back_wall > part.max[1] + slack), what, ": --back-wall ", back_wall, " m lies below the part, which ",
               "reaches ", part.max[1], " m under the array");
  TREMOR_CHECK(!beyond(at, at, part.across_min, part.across_max), what, ": --at ", at, " m puts the image's plane ",
               "outside the part, which spans ", range(part.across_min, part.across_max), " across it from the ",
               "array's centre");
  TREMOR_CHECK(!beyond(min[0], max[0], part.min[0], part.max[0]) && !beyond(min[1], max[1], part.min[1], part.max[1]),
               what, ": the image (--extent: ", image, ") lies wholly outside the part (", whole, ")");
  TREMOR_CHECK(pixel <= max[0] - min[0] && pixel <= max[1] - min[1], what, ": --pixel ", pixel, " m is larger than ",
               "the image (", max[0] - min[0], " m across, ", max[1] - min[1], " m deep); give at most its shorter ",
               "side");
  ImagePlan plan;
  if (!within(min[0], max[0], part.min[0], part.max[0]) || !within(min[1], max[1], part.min[1], part.max[1]))
    plan.warnings.push_back(str(what, ": the image (", image, ") runs outside the part (", whole,
                                "): nothing is seen there"));
  const double nx = std::round((max[0] - min[0]) / pixel) + 1.0, ny = std::round((max[1] - min[1]) / pixel) + 1.0;
  const auto count = [](double n) { return n < 1e18 ? group_digits(static_cast<long long>(n)) : str(n); };
  TREMOR_CHECK(nx * ny <= 4e7, what, ": ", count(nx), " x ", count(ny), " pixels of ", si(pixel), "m: too many (at ",
               "most 40,000,000); give a larger --pixel");
  plan.nx = static_cast<Index>(nx);
  plan.ny = static_cast<Index>(ny);
  return plan;
}

}  // namespace tremor::imaging
