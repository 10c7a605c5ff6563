// Imaging (imaging/, io/png.hpp): the Hilbert envelope against the exact envelope of a Hann tone
// burst, maps' thresholds, overlaps and centroids, their colour images with the footprint's
// outline, and PNG files read back with zlib.
#include <gtest/gtest.h>

#include <zlib.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/imaging/envelope.hpp"
#include "tremor/imaging/maps.hpp"
#include "tremor/io/png.hpp"
#include "tremor/model/signal.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// The paper's excitation, F(t) = sin(2 pi f t) sin^2(pi f t / 10), is tremor's 10-cycle tone burst:
// sin^2(x) = (1 - cos 2x) / 2. Its envelope is the Hann window (1 - cos(2 pi f t / 10)) / 2, exactly
// where the window's spectrum lies below f (Bedrosian's theorem); the Hann window's leaks past f
// by less than 1e-4 of its peak, which bounds the difference.
TEST(Envelope, OfTheHannToneBurstIsItsWindow) {
  const double f = 200e3, cycles = 10.0, dt = 1.0 / (100 * f);  // 100 samples a cycle
  const Signal burst = Signal::tone_burst(f, cycles);
  const std::size_t n = static_cast<std::size_t>(3 * cycles / f / dt);  // the burst, then silence
  std::vector<double> s(n), window(n);
  for (std::size_t k = 0; k < n; ++k) {
    const double t = static_cast<double>(k) * dt;
    s[k] = burst.value(t);
    const double paper = std::sin(2 * std::numbers::pi * f * t) * std::pow(std::sin(std::numbers::pi * f * t / 10), 2);
    if (t <= cycles / f) {
      EXPECT_NEAR(s[k], paper, 1e-12) << t;
    }
    window[k] = t <= cycles / f ? 0.5 * (1 - std::cos(2 * std::numbers::pi * f * t / cycles)) : 0.0;
  }
  const std::vector<double> e = imaging::envelope(s);
  double worst = 0.0;
  for (std::size_t k = 0; k < n; ++k) worst = std::max(worst, std::abs(e[k] - window[k]));
  EXPECT_LT(worst, 1e-3);
  const imaging::Envelopes plan(n);
  EXPECT_NEAR(plan.peak(s, 0, n), 1.0, 1e-3);           // the window's peak, at 5 cycles
  // Over the first half cycle: the window's value at its end, 0.024.
  EXPECT_NEAR(plan.peak(s, 0, static_cast<std::size_t>(0.5 / f / dt) + 1), 0.5 * (1 - std::cos(std::numbers::pi / cycles)),
              1e-3);
}

// An excitation peaks at its delay plus its burst's centre, wherever a run of it would end: a 3-cycle
// 2 MHz burst 1.5 us late at 2.25 us, 1 s late at 1 s + 0.75 us; a Ricker wavelet at its centre.
TEST(Envelope, AnExcitationPeaksOverItsWholeSupport) {
  const double dt = 1e-9;
  const Signal burst = Signal::tone_burst(2e6, 3.0);
  EXPECT_NEAR(imaging::excitation_peak(burst, 0.0, dt, 2e-6), 0.75e-6, 2 * dt);
  EXPECT_NEAR(imaging::excitation_peak(burst, 1.5e-6, dt, 2e-6), 2.25e-6, 2 * dt);
  EXPECT_NEAR(imaging::excitation_peak(burst, 1.0, dt, 2e-6), 1.0 + 0.75e-6, 2 * dt);
  const Signal ricker = Signal::ricker(1e6);
  EXPECT_NEAR(imaging::excitation_peak(ricker, 0.0, dt, 1e-6), ricker.centre, 2 * dt);
}

// A cosine's envelope is 1 away from the ends of the record (where its cut rings).
TEST(Envelope, OfACosine) {
  std::vector<double> cosine(1000);
  for (std::size_t k = 0; k < cosine.size(); ++k) cosine[k] = std::cos(2 * std::numbers::pi * 0.05 * static_cast<double>(k));
  const std::vector<double> e = imaging::envelope(cosine);
  for (std::size_t k = 200; k < 800; ++k) EXPECT_NEAR(e[k], 1.0, 0.02) << k;
}

imaging::GridMap ramp() {
  imaging::GridMap map;
  map.nx = 5;
  map.ny = 4;
  map.min = {0.0, 0.0};
  map.max = {0.004, 0.003};
  for (Index p = 0; p < 20; ++p) map.values.push_back(static_cast<double>(p % 5) * 0.5);  // 0 .. 2 along x
  return map;
}

TEST(Maps, ThresholdOverlapAndCentroid) {
  imaging::GridMap map = ramp();
  imaging::normalise(map);
  EXPECT_DOUBLE_EQ(map.values[4], 1.0);
  const std::vector<unsigned char> half = imaging::threshold(map, std::pow(10.0, -6.0 / 20.0));  // 0.501
  for (Index p = 0; p < 20; ++p) EXPECT_EQ(half[static_cast<std::size_t>(p)], p % 5 >= 3 ? 1 : 0) << p;  // 0.75 and 1
  const auto c = imaging::centroid(map, half);
  ASSERT_TRUE(c);
  EXPECT_NEAR((*c)[0], 0.0035, 1e-15);
  EXPECT_NEAR((*c)[1], 0.0015, 1e-15);
  std::vector<unsigned char> other(20, 0);
  for (Index p = 0; p < 20; ++p) other[static_cast<std::size_t>(p)] = p % 5 == 4;
  EXPECT_DOUBLE_EQ(imaging::intersection_over_union(half, other), 0.5);  // 4 of 8
  EXPECT_DOUBLE_EQ(imaging::intersection_over_union(std::vector<unsigned char>(20, 0), other), 0.0);
  EXPECT_FALSE(imaging::centroid(map, std::vector<unsigned char>(20, 0)));
}

// Gaussian smoothing: a point spreads as exp(-d^2 / 2 sigma^2) along x and y (separable), sums
// are kept away from the edges, a constant map stays constant up to its edges, sigma 0 does nothing.
TEST(Maps, AddedPointByPoint) {
  imaging::GridMap map = ramp();
  const imaging::GridMap other = ramp();
  imaging::add(map, other);
  for (std::size_t p = 0; p < map.values.size(); ++p) EXPECT_EQ(map.values[p], 2.0 * other.values[p]);
  imaging::GridMap smaller = ramp();
  smaller.nx -= 1;
  smaller.values.resize(static_cast<std::size_t>(smaller.nx * smaller.ny));
  EXPECT_THROW(imaging::add(map, smaller), Error);  // other points: refused, not read past the end
  imaging::GridMap shifted = ramp();
  shifted.max[0] += 1.0;
  EXPECT_THROW(imaging::add(map, shifted), Error);
}

TEST(Maps, SmoothedByAGaussian) {
  imaging::GridMap map;
  map.nx = 41;
  map.ny = 31;
  map.min = {0.0, 0.0};
  map.max = {0.04, 0.03};  // 1 mm spacing
  map.values.assign(41 * 31, 0.0);
  map.values[15 * 41 + 20] = 1.0;  // (20, 15) mm
  imaging::GridMap spread = map;
  imaging::smooth(spread, 2e-3);
  // Weights exp(-k^2 / 8) over |k| <= 6 along each axis, normalised.
  double norm = 0.0;
  for (int k = -6; k <= 6; ++k) norm += std::exp(-k * k / 8.0);
  for (const auto& [i, j] : {std::pair{20, 15}, std::pair{22, 15}, std::pair{21, 17}, std::pair{26, 15}, std::pair{27, 15}}) {
    const int di = i - 20, dj = j - 15;
    const double want = std::abs(di) > 6 || std::abs(dj) > 6 ? 0.0 : std::exp(-(di * di + dj * dj) / 8.0) / (norm * norm);
    EXPECT_NEAR(spread.values[static_cast<std::size_t>(j * 41 + i)], want, 1e-15) << i << ", " << j;
  }
  double sum = 0.0;
  for (const double v : spread.values) sum += v;
  EXPECT_NEAR(sum, 1.0, 1e-14);  // 6 mm from every edge: nothing cut off
  imaging::GridMap flat = map;
  flat.values.assign(flat.values.size(), 2.5);
  imaging::smooth(flat, 3e-3);
  for (const double v : flat.values) EXPECT_NEAR(v, 2.5, 1e-14);  // the edges' weights renormalised
  imaging::GridMap same = map;
  imaging::smooth(same, 0.0);
  EXPECT_EQ(same.values, map.values);
}

// A setting that is not a number in its range is refused naming it, not taken as 0 or stored: NaN
// passes every comparison (a window of every sample, no smoothing, a threshold of no point).
TEST(Maps, RefuseSettingsThatAreNotNumbersInTheirRange) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const auto refused = [](const imaging::MapSettings& settings, const std::string& naming) {
    try {
      settings.check();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(naming), std::string::npos) << e.what();
      return true;
    }
    return false;
  };
  EXPECT_NO_THROW(imaging::MapSettings{}.check());  // the defaults: the whole record, -6 dB, no smoothing
  for (const double bad : {nan, inf, -inf}) {
    EXPECT_TRUE(refused({.from = bad}, "window start (from)")) << bad;
    EXPECT_TRUE(refused({.threshold_db = bad}, "threshold (threshold_db)")) << bad;
    EXPECT_TRUE(refused({.smooth = bad}, "smoothing (smooth)")) << bad;
  }
  EXPECT_TRUE(refused({.to = nan}, "window end (to)"));
  EXPECT_TRUE(refused({.to = -inf}, "window end (to)"));
  EXPECT_TRUE(refused({.threshold_db = 1.0}, "threshold (threshold_db)"));  // above the maximum
  EXPECT_TRUE(refused({.smooth = -1e-3}, "smoothing (smooth)"));
  // Each function that takes one refuses it too, whoever calls it.
  const std::vector<double> time{0.0, 1e-6, 2e-6, 3e-6};
  EXPECT_THROW(imaging::window(time, nan, 3e-6), Error);
  EXPECT_THROW(imaging::window(time, 0.0, nan), Error);
  EXPECT_EQ(imaging::window(time, 0.5e-6, inf), (std::pair<std::size_t, std::size_t>{1, 4}));
  EXPECT_EQ(imaging::window(time, 1e-6, 2e-6), (std::pair<std::size_t, std::size_t>{1, 3}));
  EXPECT_EQ(imaging::window(time, 2.5e-6, 1e-6).first, imaging::window(time, 2.5e-6, 1e-6).second);  // empty
  EXPECT_THROW(imaging::threshold_fraction(nan), Error);
  EXPECT_DOUBLE_EQ(imaging::threshold_fraction(-20.0), 0.1);
  imaging::GridMap map = ramp();
  EXPECT_THROW(imaging::smooth(map, nan), Error);
  EXPECT_THROW(imaging::smooth(map, -inf), Error);
  EXPECT_THROW(imaging::threshold(map, nan), Error);
  EXPECT_THROW(imaging::threshold(map, 1.5), Error);
  const std::vector<double> before = map.values;
  imaging::smooth(map, 1e300);  // finite but wider than the grid: every point reached, no overflowing count
  for (std::size_t p = 0; p < map.values.size(); ++p) EXPECT_TRUE(std::isfinite(map.values[p])) << p;
  EXPECT_NE(map.values, before);
}

// Decodes a PNG of tremor's (one IDAT, no filter) back to RGB rows, checking every chunk's CRC.
std::vector<unsigned char> decode(const std::string& png, std::size_t& width, std::size_t& height) {
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  const auto u32 = [&](std::size_t at) {
    return (static_cast<std::uint32_t>(static_cast<unsigned char>(png[at])) << 24) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + 1])) << 16) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + 2])) << 8) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + 3]));
  };
  std::string idat;
  for (std::size_t at = 8; at < png.size();) {
    const std::uint32_t length = u32(at);
    const std::string type = png.substr(at + 4, 4);
    const auto crc = crc32(0L, reinterpret_cast<const Bytef*>(png.data() + at + 4), length + 4);
    EXPECT_EQ(u32(at + 8 + length), crc) << type;
    if (type == "IHDR") {
      width = u32(at + 8);
      height = u32(at + 12);
    }
    if (type == "IDAT") idat += png.substr(at + 8, length);
    at += 12 + length;
  }
  std::vector<unsigned char> raw(height * (1 + 3 * width));
  uLongf size = raw.size();
  EXPECT_EQ(uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()), Z_OK);
  std::vector<unsigned char> rgb;
  for (std::size_t row = 0; row < height; ++row) {
    EXPECT_EQ(raw[row * (1 + 3 * width)], 0);
    rgb.insert(rgb.end(), raw.begin() + static_cast<std::ptrdiff_t>(row * (1 + 3 * width) + 1),
               raw.begin() + static_cast<std::ptrdiff_t>((row + 1) * (1 + 3 * width)));
  }
  return rgb;
}

TEST(Maps, RenderedWithTheOutlineAndWrittenAsPng) {
  imaging::GridMap map = ramp();
  imaging::normalise(map);
  std::vector<unsigned char> footprint(20, 0);
  for (const Index p : {6, 7, 8, 11, 12, 13}) footprint[static_cast<std::size_t>(p)] = 1;  // 3 x 2 in the middle
  const std::vector<unsigned char> rgb = imaging::render(map, footprint, 2);
  ASSERT_EQ(rgb.size(), 10u * 8u * 3u);
  std::size_t width = 0, height = 0;
  EXPECT_EQ(decode(io::encode_png(rgb, 10, 8), width, height), rgb);
  EXPECT_EQ(width, 10u);
  EXPECT_EQ(height, 8u);
  const auto pixel = [&](std::size_t row, std::size_t column) {
    const std::size_t at = (row * 10 + column) * 3;
    return std::array<int, 3>{rgb[at], rgb[at + 1], rgb[at + 2]};
  };
  // Row 0 of the image is the largest y (j = 3); point (i, j) spans pixels 2i.., 2(3 - j)...
  EXPECT_EQ(pixel(0, 0), (std::array<int, 3>{68, 1, 84}));      // value 0: dark blue
  EXPECT_EQ(pixel(0, 9), (std::array<int, 3>{253, 231, 37}));   // value 1: yellow
  EXPECT_EQ(pixel(2, 2), (std::array<int, 3>{255, 255, 255}));  // (1, 2): on the footprint's edge
  EXPECT_EQ(pixel(0, 2), (std::array<int, 3>{59, 81, 139}));    // (1, 3): outside it, value 0.25
  EXPECT_THROW((void)io::encode_png(rgb, 10, 7), Error);
}

}  // namespace
}  // namespace tremor
