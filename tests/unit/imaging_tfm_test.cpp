// The total focusing method (imaging/tfm.hpp) on full-matrix captures made here in closed form: the
// echoes of point scatterers, each A-scan a Gaussian-windowed 5 MHz burst delayed by the path
// from the transmitter to the scatterer and back to the receiver. The image focuses on each
// scatterer, its peak there is the N^2 bursts' coherent sum, transmitter and receiver are told
// apart in a mixed mode, and bad input is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/imaging/tfm.hpp"

namespace tremor {
namespace {

constexpr double frequency = 5e6;                // Hz
constexpr double c_l = 5900.0, c_t = 3230.0;     // m/s, steel's longitudinal and shear speeds
constexpr double dt = 1.0 / (20.0 * frequency);  // 20 samples a period
constexpr std::size_t samples = 1200;            // 12 us
constexpr double centre = 0.5e-6;                // s: the burst's centre after the delay
constexpr double width = 0.15e-6;                // s: its Gaussian's 1/e half-width (about 1.5 periods)

// 16 elements 0.5 mm apart on z = 0, centred on x = 0.
imaging::Fmc array_of_16() {
  imaging::Fmc fmc;
  for (int i = 0; i < 16; ++i) fmc.elements.push_back({(i - 7.5) * 0.5e-3, 0.0});
  fmc.dt = dt;
  fmc.t0 = -centre;  // times from the bursts' centres
  fmc.n_samples = samples;
  fmc.data.assign(16 * 16 * samples, 0.0);
  return fmc;
}

// Adds the echo of a point scatterer at `at`: out by speed c_out, back by c_back.
void add_scatterer(imaging::Fmc& fmc, std::array<double, 2> at, double c_out, double c_back) {
  const std::size_t n = fmc.n_elements();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const double delay = std::hypot(at[0] - fmc.elements[i][0], at[1] - fmc.elements[i][1]) / c_out +
                           std::hypot(at[0] - fmc.elements[j][0], at[1] - fmc.elements[j][1]) / c_back;
      for (std::size_t k = 0; k < samples; ++k) {
        const double t = static_cast<double>(k) * dt - delay - centre;
        fmc.data[(i * n + j) * samples + k] +=
            std::exp(-(t / width) * (t / width)) * std::cos(2.0 * std::numbers::pi * frequency * t);
      }
    }
}

struct Peak {
  std::array<double, 2> at;
  double value;
};

// The largest pixel of `image` within `radius` of `near`.
Peak peak_near(const imaging::GridMap& image, std::array<double, 2> near, double radius) {
  Peak best{{0.0, 0.0}, -1.0};
  for (Index p = 0; p < image.nx * image.ny; ++p) {
    const auto x = image.point(p);
    if (std::hypot(x[0] - near[0], x[1] - near[1]) > radius) continue;
    if (image.values[static_cast<std::size_t>(p)] > best.value) best = {x, image.values[static_cast<std::size_t>(p)]};
  }
  return best;
}

// Two scatterers, in L-L: the image's largest pixel within 3 mm of each lies within lambda / 5
// of it (lambda 1.18 mm; pixels of 0.05 mm), and is there the coherent sum of the N^2 = 256 bursts'
// envelopes, 1 each at their centres, within 5% (the samples read linearly at 20 a period lose
// up to 1.2% where they fall midway, and the pixel lies up to 0.035 mm from the scatterer).
TEST(TotalFocusing, FocusesOnEachScattererInLL) {
  imaging::Fmc fmc = array_of_16();
  const std::array<double, 2> a{-2e-3, 10e-3}, b{3e-3, 16e-3};
  add_scatterer(fmc, a, c_l, c_l);
  add_scatterer(fmc, b, c_l, c_l);
  const auto image = imaging::total_focusing(fmc, 241, 301, {-6e-3, 5e-3}, {6e-3, 20e-3}, c_l, c_l);
  const double lambda = c_l / frequency;
  for (const auto& s : {a, b}) {
    const Peak found = peak_near(image, s, 3e-3);
    std::printf("TFM L-L: scatterer at (%.2f, %.2f) mm, peak at (%.2f, %.2f) mm, %.1f of N^2 = 256\n", s[0] * 1e3,
                s[1] * 1e3, found.at[0] * 1e3, found.at[1] * 1e3, found.value);
    EXPECT_LT(std::hypot(found.at[0] - s[0], found.at[1] - s[1]), lambda / 5.0);
    EXPECT_NEAR(found.value, 256.0, 0.05 * 256.0);
  }
  // Between them, 3 mm from each, the image is far below the peaks (seen: 0.0, every path's delay
  // there missing both bursts by several widths).
  const Peak between = peak_near(image, {0.5e-3, 13e-3}, 0.3e-3);
  std::printf("TFM L-L: between the scatterers %.1f\n", between.value);
  EXPECT_LT(between.value, 0.25 * 256.0);
}

// A mixed mode, the wave out as L and back as T: focused with (c_l, c_t) the image peaks at the
// scatterer; with the speeds swapped (T out, L back) its largest pixel near there is less than
// half as large and more than lambda / 5 away: transmitter and receiver are not confused.
TEST(TotalFocusing, TellsTransmitterFromReceiverInAMixedMode) {
  imaging::Fmc fmc = array_of_16();
  const std::array<double, 2> s{1.5e-3, 12e-3};
  add_scatterer(fmc, s, c_l, c_t);
  const double lambda_t = c_t / frequency;
  const auto lt = imaging::total_focusing(fmc, 161, 161, {-2.5e-3, 8e-3}, {5.5e-3, 16e-3}, c_l, c_t);
  const Peak right = peak_near(lt, s, 3e-3);
  EXPECT_LT(std::hypot(right.at[0] - s[0], right.at[1] - s[1]), lambda_t / 5.0);
  EXPECT_NEAR(right.value, 256.0, 0.05 * 256.0);
  const auto tl = imaging::total_focusing(fmc, 161, 161, {-2.5e-3, 8e-3}, {5.5e-3, 16e-3}, c_t, c_l);
  const Peak swapped = peak_near(tl, s, 3e-3);
  std::printf("TFM L-T: %.1f at the scatterer; T-L on the same data %.1f at (%.2f, %.2f) mm\n", right.value,
              swapped.value, swapped.at[0] * 1e3, swapped.at[1] * 1e3);
  EXPECT_LT(swapped.value, 0.5 * right.value);
}

TEST(TotalFocusing, RefusesBadInput) {
  const imaging::Fmc good = array_of_16();
  const auto image = [](const imaging::Fmc& fmc, double c = c_l) {
    return imaging::total_focusing(fmc, 4, 4, {-1e-3, 1e-3}, {1e-3, 3e-3}, c, c);
  };
  EXPECT_NO_THROW(image(good));
  imaging::Fmc bad = good;
  bad.data.pop_back();
  EXPECT_THROW(image(bad), Error);
  bad = good;
  bad.dt = 0.0;
  EXPECT_THROW(image(bad), Error);
  bad = good;
  bad.t0 = std::nan("");
  EXPECT_THROW(image(bad), Error);
  bad = good;
  bad.data[5] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(image(bad), Error);
  bad = good;
  bad.elements.clear();
  bad.data.clear();
  EXPECT_THROW(image(bad), Error);
  EXPECT_THROW(image(good, 0.0), Error);
  EXPECT_THROW(image(good, -c_l), Error);
  EXPECT_THROW(imaging::total_focusing(good, 0, 4, {-1e-3, 1e-3}, {1e-3, 3e-3}, c_l, c_l), Error);
  EXPECT_THROW(imaging::total_focusing(good, 65536, 65536, {-1e-3, 1e-3}, {1e-3, 3e-3}, c_l, c_l), Error);
}

}  // namespace
}  // namespace tremor
