#include "tremor/imaging/tfm_sum.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "tremor/backend/forall.hpp"

namespace tremor::imaging {

namespace {

std::vector<double> coordinate(const std::vector<std::array<double, 2>>& elements, std::size_t d) {
  std::vector<double> out;
  for (const auto& e : elements) out.push_back(e[d]);
  return out;
}

// The delays along `way` of n elements to pixels [start, start + count) of an nx x ny grid from
// (x0, z0) to (x1, z1), at table[i count + q] for pixel start + q (GridMap::point's coordinates).
// An element `ey` off the plane (null: none is) reaches the pixel in the vertical plane through
// both, its planes of turning horizontal: the way of the in-plane problem over the horizontal
// distance.
void table(const Exec& exec, const Way& way, Index n, const double* ex, const double* ez, const double* ey, Index nx,
           Index ny, double x0, double x1, double z0, double z1, Index start, Index count, double* delays) {
  forall(exec, n * count, [=] TREMOR_LAMBDA(Index iq) {
    const Index i = iq / count, p = start + iq % count;
    const Index a = p % nx, b = p / nx;
    const double lx = static_cast<double>(nx - 1), lz = static_cast<double>(ny - 1);
    const double x = nx > 1 ? (x0 * (lx - static_cast<double>(a)) + x1 * static_cast<double>(a)) / lx : x0;
    const double z = ny > 1 ? (z0 * (lz - static_cast<double>(b)) + z1 * static_cast<double>(b)) / lz : z0;
    delays[iq] = ey ? travel_time(way, 0.0, ez[i], std::hypot(x - ex[i], ey[i]), z)
                    : travel_time(way, ex[i], ez[i], x, z);
  });
}

// The sum at each pixel: one thread a pixel, its N^2 pairs in turn. Pixels side by side read their
// delays side by side ([element][pixel]) and nearby samples of one A-scan at a time.
void focus(const Exec& exec, Index pixels, Index n, Index samples, double first, double per_dt, const double* re,
           const double* im, const double* transmit, const double* receive, double* image) {
  const double last = static_cast<double>(samples - 1);
  forall(exec, pixels, [=] TREMOR_LAMBDA(Index p) {
    double sum_re = 0.0, sum_im = 0.0;
    for (Index i = 0; i < n; ++i) {
      const double out = first + transmit[static_cast<Size>(i) * pixels + p] * per_dt;
      for (Index j = 0; j < n; ++j) {
        const double s = out + receive[static_cast<Size>(j) * pixels + p] * per_dt;
        if (!(s >= 0.0 && s <= last)) continue;  // outside the record, or no way (NaN)
        const auto k = static_cast<Index>(s);
        const double w = s - static_cast<double>(k);
        const Size at = (static_cast<Size>(i) * n + j) * samples + k;
        if (w == 0.0) {
          sum_re += re[at];
          sum_im += im[at];
        } else {
          sum_re += (1.0 - w) * re[at] + w * re[at + 1];
          sum_im += (1.0 - w) * im[at] + w * im[at + 1];
        }
      }
    }
    image[p] = std::sqrt(sum_re * sum_re + sum_im * sum_im);
  });
}

}  // namespace

DelayAndSum::DelayAndSum(const Exec& exec, std::size_t samples, double first, double dt,
                         const std::vector<std::array<double, 2>>& elements, const std::vector<double>& across,
                         const std::vector<double>& real, const std::vector<double>& imaginary)
    : exec_(exec),
      n_(static_cast<Index>(elements.size())),
      samples_(static_cast<Index>(samples)),
      first_(first),
      per_dt_(1.0 / dt),
      x_(exec, std::span<const double>(coordinate(elements, 0))),
      z_(exec, std::span<const double>(coordinate(elements, 1))),
      across_(exec, std::span<const double>(across)),
      real_(exec, std::span<const double>(real)),
      imaginary_(exec, std::span<const double>(imaginary)) {}

void DelayAndSum::delays(const Way& out, const Way& back, const GridMap& grid, Index start, Index count) {
  if (out_.size() < n_ * count) out_ = DeviceArray<double>(exec_, n_ * count);
  const double* off = across_.size() > 0 ? across_.data() : nullptr;
  table(exec_, out, n_, x_.data(), z_.data(), off, grid.nx, grid.ny, grid.min[0], grid.max[0], grid.min[1],
        grid.max[1], start, count, out_.data());
  same_ = out.legs == back.legs && std::equal(out.speeds, out.speeds + out.legs, back.speeds) &&
          std::equal(out.planes, out.planes + out.legs - 1, back.planes);
  if (!same_) {
    if (back_.size() < n_ * count) back_ = DeviceArray<double>(exec_, n_ * count);
    table(exec_, back, n_, x_.data(), z_.data(), off, grid.nx, grid.ny, grid.min[0], grid.max[0], grid.min[1],
          grid.max[1], start, count, back_.data());
  }
  count_ = count;
}

void DelayAndSum::sum(double* image) {
  DeviceArray<double> values(exec_, count_);
  focus(exec_, count_, n_, samples_, first_, per_dt_, real_.data(), imaginary_.data(), out_.data(),
        same_ ? out_.data() : back_.data(), values.data());
  const std::vector<double> host = values.to_host();
  std::copy(host.begin(), host.end(), image);
}

void DelayAndSum::arrivals(double& earliest, double& latest) const {
  const std::vector<double> out = out_.to_host(), other = same_ ? std::vector<double>() : back_.to_host();
  const std::vector<double>& back = same_ ? out : other;
  const double inf = std::numeric_limits<double>::infinity();
  for (Index p = 0; p < count_; ++p) {
    double first_out = inf, first_back = inf, last_out = -inf, last_back = -inf;
    for (Index i = 0; i < n_; ++i) {
      const auto at = static_cast<std::size_t>(i * count_ + p);
      const double o = out[at], b = back[at];
      if (!std::isnan(o)) {
        first_out = std::min(first_out, o);
        last_out = std::max(last_out, o);
      }
      if (!std::isnan(b)) {
        first_back = std::min(first_back, b);
        last_back = std::max(last_back, b);
      }
    }
    if (!(first_out <= last_out && first_back <= last_back)) continue;  // no way reaches this pixel
    earliest = std::isnan(earliest) ? first_out + first_back : std::min(earliest, first_out + first_back);
    latest = std::isnan(latest) ? last_out + last_back : std::max(latest, last_out + last_back);
  }
}

}  // namespace tremor::imaging
