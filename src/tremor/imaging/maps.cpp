#include "tremor/imaging/maps.hpp"

#include <algorithm>
#include <cmath>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/imaging/envelope.hpp"
#include "tremor/model/source.hpp"

namespace tremor::imaging {

std::array<double, 2> GridMap::point(Index p) const {
  return {ReceiverGrid::along(min[0], max[0], nx, p % nx), ReceiverGrid::along(min[1], max[1], ny, p / nx)};
}

namespace {

// Refuses a setting's value that breaks `rule` (!ok), naming the setting and the value.
void require(bool ok, const char* setting, double value, const char* rule) {
  if (!ok) throw Error(str("the map's ", setting, " must be ", rule, ", got ", value));
}

}  // namespace

void MapSettings::check() const {
  require(std::isfinite(from), "window start (from)", from, "a finite time in s");
  require(std::isfinite(to) || to == std::numeric_limits<double>::infinity(), "window end (to)", to,
          "a finite time in s (or infinity: the last sample)");
  threshold_fraction(threshold_db);
  require(std::isfinite(smooth) && smooth >= 0.0, "smoothing (smooth)", smooth,
          "a finite standard deviation in m, at least 0 (0: none)");
}

std::pair<std::size_t, std::size_t> window(std::span<const double> time, double from, double to) {
  MapSettings settings;
  settings.from = from;
  settings.to = to;
  settings.check();
  std::size_t first = 0, last = 0;
  for (std::size_t s = 0; s < time.size(); ++s) {
    if (time[s] < from) first = s + 1;
    if (time[s] <= to) last = s + 1;
  }
  return {first, std::max(first, last)};
}

double threshold_fraction(double db) {
  require(std::isfinite(db) && db <= 0.0, "threshold (threshold_db)", db, "a finite level in dB, at most 0");
  return std::pow(10.0, db / 20.0);
}

GridMap peak_map(Index nx, Index ny, std::size_t n_samples, std::size_t first, std::size_t last,
                 const std::function<void(Index begin, Index end, std::vector<double>& traces)>& read) {
  // Points a block: the traces of 2048 points of a few thousand samples, some tens of MB.
  constexpr Index block = 2048;
  GridMap map;
  map.nx = nx;
  map.ny = ny;
  map.values.assign(static_cast<std::size_t>(nx * ny), 0.0);
  if (n_samples == 0) return map;
  const Envelopes envelopes(n_samples);
  std::vector<double> traces;
  for (Index begin = 0; begin < nx * ny; begin += block) {
    const Index end = std::min(nx * ny, begin + block);
    traces.assign(n_samples * static_cast<std::size_t>(end - begin), 0.0);
    read(begin, end, traces);
    const Index width = end - begin;
#pragma omp parallel for schedule(dynamic, 16)
    for (Index p = 0; p < width; ++p) {
      std::vector<double> signal(n_samples);
      for (std::size_t s = 0; s < n_samples; ++s)
        signal[s] = traces[s * static_cast<std::size_t>(width) + static_cast<std::size_t>(p)];
      map.values[static_cast<std::size_t>(begin + p)] = envelopes.peak(signal, first, last);
    }
  }
  return map;
}

void add(GridMap& map, const GridMap& other) {
  if (other.nx != map.nx || other.ny != map.ny || other.min != map.min || other.max != map.max)
    throw Error(str("maps of ", map.nx, " x ", map.ny, " and ", other.nx, " x ", other.ny,
                    " points over other extents cannot be added"));
  for (std::size_t p = 0; p < map.values.size(); ++p) map.values[p] += other.values[p];
}

void normalise(GridMap& map) {
  double largest = 0.0;
  for (const double v : map.values) largest = std::max(largest, std::abs(v));
  if (largest > 0.0)
    for (double& v : map.values) v /= largest;
}

void smooth(GridMap& map, double sigma) {
  require(std::isfinite(sigma) && sigma >= 0.0, "smoothing (smooth)", sigma,
          "a finite standard deviation in m, at least 0 (0: none)");
  if (sigma == 0.0 || map.values.empty()) return;
  // Separable: along x, then along y, each a 1D convolution with weights renormalised at the edges.
  const auto pass = [&](Index n, double spacing, Index stride, Index lines, Index line_stride) {
    if (n < 2 || !(spacing > 0.0)) return;
    // Beyond the line's length every point is reached: no larger kernel (nor an overflowing count).
    const Index reach = static_cast<Index>(std::min(static_cast<double>(n), std::ceil(3.0 * sigma / spacing)));
    std::vector<double> kernel(static_cast<std::size_t>(reach) + 1);
    for (Index k = 0; k <= reach; ++k) {
      const double x = static_cast<double>(k) * spacing / sigma;
      kernel[static_cast<std::size_t>(k)] = std::exp(-0.5 * x * x);
    }
    std::vector<double> line(static_cast<std::size_t>(n));
    for (Index l = 0; l < lines; ++l) {
      double* values = map.values.data() + static_cast<std::size_t>(l * line_stride);
      for (Index i = 0; i < n; ++i) line[static_cast<std::size_t>(i)] = values[i * stride];
      for (Index i = 0; i < n; ++i) {
        double sum = 0.0, weights = 0.0;
        for (Index j = std::max<Index>(0, i - reach); j <= std::min<Index>(n - 1, i + reach); ++j) {
          const double w = kernel[static_cast<std::size_t>(std::abs(j - i))];
          sum += w * line[static_cast<std::size_t>(j)];
          weights += w;
        }
        values[i * stride] = sum / weights;
      }
    }
  };
  pass(map.nx, map.nx > 1 ? (map.max[0] - map.min[0]) / static_cast<double>(map.nx - 1) : 0.0, 1, map.ny, map.nx);
  pass(map.ny, map.ny > 1 ? (map.max[1] - map.min[1]) / static_cast<double>(map.ny - 1) : 0.0, map.nx, map.nx, 1);
}

std::vector<unsigned char> threshold(const GridMap& map, double fraction) {
  require(fraction >= 0.0 && fraction <= 1.0, "threshold", fraction, "a fraction of its maximum in [0, 1]");
  double largest = 0.0;
  for (const double v : map.values) largest = std::max(largest, v);
  std::vector<unsigned char> mask(map.values.size(), 0);
  if (largest <= 0.0) return mask;
  for (std::size_t p = 0; p < mask.size(); ++p) mask[p] = map.values[p] >= fraction * largest ? 1 : 0;
  return mask;
}

double intersection_over_union(std::span<const unsigned char> a, std::span<const unsigned char> b) {
  TREMOR_CHECK(a.size() == b.size(), "masks of ", a.size(), " and ", b.size(), " points");
  std::size_t both = 0, either = 0;
  for (std::size_t p = 0; p < a.size(); ++p) {
    both += a[p] && b[p];
    either += a[p] || b[p];
  }
  return either == 0 ? 0.0 : static_cast<double>(both) / static_cast<double>(either);
}

std::optional<std::array<double, 2>> centroid(const GridMap& grid, std::span<const unsigned char> mask) {
  double x = 0.0, y = 0.0;
  std::size_t n = 0;
  for (std::size_t p = 0; p < mask.size(); ++p) {
    if (!mask[p]) continue;
    const auto at = grid.point(static_cast<Index>(p));
    x += at[0];
    y += at[1];
    ++n;
  }
  if (n == 0) return std::nullopt;
  return std::array<double, 2>{x / static_cast<double>(n), y / static_cast<double>(n)};
}

namespace {

// Viridis at nine evenly spaced values (matplotlib's table, sampled): dark blue to yellow.
constexpr unsigned char scale_colours[9][3] = {{68, 1, 84},    {71, 44, 122},  {59, 81, 139},
                                               {44, 113, 142}, {33, 144, 141}, {39, 173, 129},
                                               {92, 200, 99},  {170, 220, 50}, {253, 231, 37}};

std::array<unsigned char, 3> colour(double value) {
  const double v = std::clamp(std::isfinite(value) ? value : 0.0, 0.0, 1.0) * 8.0;
  const int k = std::min(static_cast<int>(v), 7);
  const double t = v - k;
  std::array<unsigned char, 3> rgb{};
  for (int c = 0; c < 3; ++c)
    rgb[static_cast<std::size_t>(c)] =
        static_cast<unsigned char>(std::lround((1 - t) * scale_colours[k][c] + t * scale_colours[k + 1][c]));
  return rgb;
}

}  // namespace

std::vector<unsigned char> render(const GridMap& map, std::span<const unsigned char> outline, int scale) {
  TREMOR_CHECK(scale >= 1 && map.nx >= 1 && map.ny >= 1 &&
                   map.values.size() == static_cast<std::size_t>(map.nx * map.ny),
               "a map of ", map.values.size(), " values on ", map.nx, " x ", map.ny, " points at scale ", scale);
  TREMOR_CHECK(outline.empty() || outline.size() == map.values.size(), "an outline of ", outline.size(),
               " points for a map of ", map.values.size());
  const auto inside = [&](Index i, Index j) {
    return i >= 0 && j >= 0 && i < map.nx && j < map.ny && outline[static_cast<std::size_t>(j * map.nx + i)];
  };
  // A point of the region with a neighbour outside it.
  const auto boundary = [&](Index i, Index j) {
    return !outline.empty() && inside(i, j) &&
           (!inside(i - 1, j) || !inside(i + 1, j) || !inside(i, j - 1) || !inside(i, j + 1));
  };
  const auto width = static_cast<std::size_t>(map.nx) * static_cast<std::size_t>(scale);
  const auto height = static_cast<std::size_t>(map.ny) * static_cast<std::size_t>(scale);
  std::vector<unsigned char> pixels(width * height * 3);
  for (std::size_t row = 0; row < height; ++row) {
    const Index j = map.ny - 1 - static_cast<Index>(row / static_cast<std::size_t>(scale));
    for (std::size_t column = 0; column < width; ++column) {
      const Index i = static_cast<Index>(column / static_cast<std::size_t>(scale));
      const std::array<unsigned char, 3> rgb =
          boundary(i, j) ? std::array<unsigned char, 3>{255, 255, 255}
                         : colour(map.values[static_cast<std::size_t>(j * map.nx + i)]);
      std::copy(rgb.begin(), rgb.end(), pixels.begin() + static_cast<std::ptrdiff_t>((row * width + column) * 3));
    }
  }
  return pixels;
}

}  // namespace tremor::imaging
