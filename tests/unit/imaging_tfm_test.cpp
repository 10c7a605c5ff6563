// The total focusing method (imaging/tfm.hpp) on full-matrix captures made here in closed form: the
// echoes of point scatterers, each A-scan a Gaussian-windowed 5 MHz burst delayed by the path
// from the transmitter to the scatterer and back to the receiver. The image focuses on each
// scatterer, its peak there is the N^2 bursts' coherent sum, transmitter and receiver are told
// apart in a mixed mode, and bad input is refused. Ways that turn at planes (the half-skip views
// off a back wall, an interface under the array) take Fermat's least time, checked against a
// search of every turning point; a view's image focuses on a scatterer whose echo came its way;
// the GPU's sum is the host's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/imaging/tfm.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

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

// Adds the echo of a point scatterer: out[i] the time from element i to it, back[j] from it to
// element j.
void add_echo(imaging::Fmc& fmc, const std::vector<double>& out, const std::vector<double>& back) {
  const std::size_t n = fmc.n_elements();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const double delay = out[i] + back[j];
      for (std::size_t k = 0; k < samples; ++k) {
        const double t = static_cast<double>(k) * dt - delay - centre;
        fmc.data[(i * n + j) * samples + k] +=
            std::exp(-(t / width) * (t / width)) * std::cos(2.0 * std::numbers::pi * frequency * t);
      }
    }
}

// Adds the echo of a point scatterer at `at`: out by speed c_out, back by c_back.
void add_scatterer(imaging::Fmc& fmc, std::array<double, 2> at, double c_out, double c_back) {
  std::vector<double> out, back;
  for (const auto& e : fmc.elements) {
    out.push_back(std::hypot(at[0] - e[0], at[1] - e[1]) / c_out);
    back.push_back(std::hypot(at[0] - e[0], at[1] - e[1]) / c_back);
  }
  add_echo(fmc, out, back);
}

// The least value of f over [lo, hi], by a search apart from the code under test: `tries` + 1 points
// evenly spaced, then golden sections about the best of them.
template <class F>
double least(F&& f, double lo, double hi, int tries, int sections) {
  double best = lo;
  for (int k = 0; k <= tries; ++k) {
    const double x = lo + (hi - lo) * k / tries;
    if (f(x) < f(best)) best = x;
  }
  const double h = (hi - lo) / tries;
  lo = best - h;
  hi = best + h;
  const double golden = (std::sqrt(5.0) - 1.0) / 2.0;
  for (int k = 0; k < sections; ++k) {
    const double x1 = hi - golden * (hi - lo), x2 = lo + golden * (hi - lo);
    (f(x1) < f(x2) ? hi : lo) = f(x1) < f(x2) ? x2 : x1;
  }
  return f(0.5 * (lo + hi));
}

// The least time from a to b turning once at z = plane (speed c1 before, c2 after): the turning
// point's x lies between a's and b's, for a reflection and a refraction alike.
double least_time_once(std::array<double, 2> a, std::array<double, 2> b, double plane, double c1, double c2) {
  const auto time = [&](double x) {
    return std::hypot(x - a[0], plane - a[1]) / c1 + std::hypot(b[0] - x, b[1] - plane) / c2;
  };
  return least(time, std::min(a[0], b[0]), std::max(a[0], b[0]), 4000, 200);
}

// Turning twice, at z = p1 then p2 (speeds c1, c2, c3): the second turn's least time for each first
// turning point, searched as above.
double least_time_twice(std::array<double, 2> a, std::array<double, 2> b, double p1, double p2, double c1, double c2,
                        double c3) {
  const auto time = [&](double x) {
    return std::hypot(x - a[0], p1 - a[1]) / c1 + least_time_once({x, p1}, b, p2, c2, c3);
  };
  return least(time, std::min(a[0], b[0]), std::max(a[0], b[0]), 400, 100);
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

// Fermat's least time along ways that turn: off a back wall (one mode, where the mirror image gives
// it in closed form, and converting L to T), through an interface, and both; the searched times
// agree to 1e-12 of the time (the search narrows the turning point to about 1e-13 m and the time
// is stationary there).
TEST(TotalFocusing, WaysThatTurnTakeTheLeastTime) {
  const double wall = 20e-3, water = 1480.0;
  const std::array<std::array<double, 2>, 4> from{{{-4e-3, 0.0}, {0.0, 0.0}, {3.7e-3, 0.0}, {-9e-3, 0.0}}};
  const std::array<std::array<double, 2>, 3> to{{{2e-3, 12e-3}, {-6e-3, 19e-3}, {0.0, 8e-3}}};
  for (const auto& a : from)
    for (const auto& b : to) {
      // L down and up off the wall: the straight line to b's mirror image.
      const double mirror = std::hypot(b[0] - a[0], 2.0 * wall - b[1] - a[1]) / c_l;
      const double ll = imaging::travel_time(imaging::Path{{c_l, c_l}, {wall}}, a, b);
      EXPECT_NEAR(ll, mirror, 1e-12 * mirror);
      const double lt = imaging::travel_time(imaging::Path{{c_l, c_t}, {wall}}, a, b);
      EXPECT_NEAR(lt, least_time_once(a, b, wall, c_l, c_t), 1e-12 * lt);
      // The array 5 mm above the part in water: through its surface, then straight or half-skip.
      const std::array<double, 2> up{a[0], a[1] - 5e-3};
      const double through = imaging::travel_time(imaging::Path{{water, c_t}, {0.0}}, up, b);
      EXPECT_NEAR(through, least_time_once(up, b, 0.0, water, c_t), 1e-12 * through);
      const double both = imaging::travel_time(imaging::Path{{water, c_l, c_t}, {0.0, wall}}, up, b);
      EXPECT_NEAR(both, least_time_twice(up, b, 0.0, wall, water, c_l, c_t), 1e-12 * both);
      // Any other turning point is slower: the times are least, not merely stationary.
      EXPECT_LT(lt, (wall - a[1]) / c_l + std::hypot(b[0] - a[0], wall - b[1]) / c_t + 1e-15);
    }
  // A way that runs along the plane it turns at has no time.
  EXPECT_TRUE(std::isnan(imaging::travel_time(imaging::Path{{c_l, c_t}, {wall}}, {0.0, 0.0}, {1e-3, wall})));
  EXPECT_THROW((imaging::Path{{c_l, c_t}, {}}.check()), Error);
  EXPECT_THROW((imaging::Path{{c_l, -c_t}, {wall}}.check()), Error);
  EXPECT_THROW((imaging::Path{{}, {}}.check()), Error);
}

// Half-skip: a scatterer 6 mm above a back wall 20 mm deep, its echo out as L down to the wall and
// T up to it, back as T (the view arim calls LT-T). Imaged in that view the image peaks within
// lambda_T / 5 of it, the N^2 bursts' sum; in the direct T-T view, whose way back is the echo's
// but not its way out, its largest pixel near there is lower and more than a wavelength away.
TEST(TotalFocusing, FocusesAHalfSkipView) {
  const double wall = 20e-3;
  imaging::Fmc fmc = array_of_16();
  const std::array<double, 2> s{-1e-3, 14e-3};
  std::vector<double> out, back;
  for (const auto& e : fmc.elements) {
    out.push_back(least_time_once(e, s, wall, c_l, c_t));
    back.push_back(std::hypot(s[0] - e[0], s[1] - e[1]) / c_t);
  }
  add_echo(fmc, out, back);
  const imaging::Path lt{{c_l, c_t}, {wall}}, t{{c_t}, {}};
  const auto image = imaging::total_focusing(fmc, 161, 161, {-5e-3, 10e-3}, {3e-3, 18e-3}, lt, t, Exec::openmp());
  const Peak found = peak_near(image, s, 3e-3);
  std::printf("TFM LT-T: scatterer at (%.2f, %.2f) mm, peak at (%.3f, %.3f) mm, %.1f of 256\n", s[0] * 1e3, s[1] * 1e3,
              found.at[0] * 1e3, found.at[1] * 1e3, found.value);
  EXPECT_LT(std::hypot(found.at[0] - s[0], found.at[1] - s[1]), c_t / frequency / 5.0);
  EXPECT_NEAR(found.value, 256.0, 0.05 * 256.0);
  const auto direct = imaging::total_focusing(fmc, 161, 161, {-5e-3, 10e-3}, {3e-3, 18e-3}, t, t, Exec::openmp());
  const Peak wrong = peak_near(direct, s, 3e-3);
  std::printf("TFM T-T on the same data: %.1f at (%.2f, %.2f) mm\n", wrong.value, wrong.at[0] * 1e3, wrong.at[1] * 1e3);
  // Seen 0.55 of the peak, 1.5 mm deeper: only the way back lines up.
  EXPECT_LT(wrong.value, 0.6 * found.value);
  EXPECT_GT(std::hypot(wrong.at[0] - s[0], wrong.at[1] - s[1]), c_t / frequency);
}

// Through an interface: the array 6 mm above a steel part in water, a scatterer 8 mm into the
// steel; imaged through the surface (Fermat's refraction at it) in L-L, the peak lies within
// lambda_L / 5 of it, the N^2 bursts' sum.
TEST(TotalFocusing, FocusesThroughAnInterface) {
  const double water = 1480.0;
  imaging::Fmc fmc = array_of_16();
  const std::array<double, 2> s{2e-3, 14e-3};  // the surface at z = 6 mm
  std::vector<double> delays;
  for (const auto& e : fmc.elements) delays.push_back(least_time_once(e, s, 6e-3, water, c_l));
  add_echo(fmc, delays, delays);
  const imaging::Path path{{water, c_l}, {6e-3}};
  const auto image = imaging::total_focusing(fmc, 121, 121, {-1e-3, 11e-3}, {5e-3, 17e-3}, path, path, Exec::openmp());
  const Peak found = peak_near(image, s, 3e-3);
  std::printf("TFM through water: scatterer at (%.2f, %.2f) mm, peak at (%.3f, %.3f) mm, %.1f of 256\n", s[0] * 1e3,
              s[1] * 1e3, found.at[0] * 1e3, found.at[1] * 1e3, found.value);
  EXPECT_LT(std::hypot(found.at[0] - s[0], found.at[1] - s[1]), c_l / frequency / 5.0);
  EXPECT_NEAR(found.value, 256.0, 0.05 * 256.0);
}

// A matrix array in 3D (8 x 8 elements, 0.5 mm along and 1 mm across) and a scatterer off its
// centre line, at y = 0.75 mm across: the image in the vertical plane through the scatterer (each
// element 'across' the plane by its row's offset less the plane's) focuses on it, directly and
// through 5 mm of water, the echoes' times computed here in 3D (through the water by a search of
// the turning point over the interface's plane, apart from the code's reduction to the vertical
// plane through the element and the pixel). A plane 3 mm beside the scatterer sees it at half the
// peak or less: the rows focus across too (about lambda z / D = 2 mm across, D the rows' 7 mm).
TEST(TotalFocusing, FocusesAMatrixArraysPlaneIn3D) {
  const double water = 1480.0, depth = 5e-3, y_plane = 0.75e-3;
  const std::array<double, 3> s{1e-3, y_plane, 12e-3};
  std::vector<std::array<double, 3>> elements;
  for (int row = 0; row < 8; ++row)
    for (int column = 0; column < 8; ++column) elements.push_back({(column - 3.5) * 0.5e-3, (row - 3.5) * 1e-3, 0.0});
  const auto capture = [&](bool through, double plane) {
    imaging::Fmc fmc;
    for (const auto& e : elements) {
      fmc.elements.push_back({e[0], 0.0});
      fmc.across.push_back(e[1] - plane);
    }
    fmc.dt = dt;
    fmc.t0 = -centre;
    fmc.n_samples = samples;
    fmc.data.assign(elements.size() * elements.size() * samples, 0.0);
    std::vector<double> times;
    for (const auto& e : elements) {
      if (!through) {
        times.push_back(std::hypot(s[0] - e[0], s[1] - e[1], s[2] - e[2]) / c_l);
        continue;
      }
      // The least time over the turning point (x, y) on the plane z = depth.
      const auto at = [&](double x, double y) {
        return std::hypot(x - e[0], y - e[1], depth - e[2]) / water + std::hypot(s[0] - x, s[1] - y, s[2] - depth) / c_l;
      };
      const auto over_y = [&](double x) {
        return least([&](double y) { return at(x, y); }, std::min(e[1], s[1]) - 1e-3, std::max(e[1], s[1]) + 1e-3,
                     200, 80);
      };
      times.push_back(least(over_y, std::min(e[0], s[0]) - 1e-3, std::max(e[0], s[0]) + 1e-3, 200, 80));
    }
    add_echo(fmc, times, times);
    return fmc;
  };
  const double lambda = c_l / frequency;
  for (const bool through : {false, true}) {
    const imaging::Path path = through ? imaging::Path{{water, c_l}, {depth}} : imaging::Path{{c_l}, {}};
    const auto image = imaging::total_focusing(capture(through, y_plane), 121, 121, {-2e-3, 9e-3}, {4e-3, 15e-3},
                                               path, path, Exec::openmp());
    const Peak found = peak_near(image, {s[0], s[2]}, 3e-3);
    std::printf("matrix array, %s: scatterer at (%.2f, %.2f) mm in its plane, peak at (%.3f, %.3f) mm, %.1f of 4096\n",
                through ? "through water" : "direct", s[0] * 1e3, s[2] * 1e3, found.at[0] * 1e3, found.at[1] * 1e3,
                found.value);
    EXPECT_LT(std::hypot(found.at[0] - s[0], found.at[1] - s[2]), lambda / 5.0);
    // The 64^2 bursts' coherent sum, within 5% (as FocusesOnEachScattererInLL's).
    EXPECT_NEAR(found.value, 4096.0, 0.05 * 4096.0);
    const auto beside = imaging::total_focusing(capture(through, y_plane + 3e-3), 121, 121, {-2e-3, 9e-3},
                                                {4e-3, 15e-3}, path, path, Exec::openmp());
    EXPECT_LT(*std::max_element(beside.values.begin(), beside.values.end()), 0.5 * found.value);
  }
  // An element's distance off the plane: one a centre, finite.
  imaging::Fmc bad = capture(false, 0.0);
  bad.across.pop_back();
  EXPECT_THROW((void)imaging::total_focusing(bad, 4, 4, {-1e-3, 1e-3}, {1e-3, 3e-3}, c_l, c_l), Error);
  bad = capture(false, 0.0);
  bad.across[3] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW((void)imaging::total_focusing(bad, 4, 4, {-1e-3, 1e-3}, {1e-3, 3e-3}, c_l, c_l), Error);
}

// The sum on the GPU is the host's to rounding (the same kernel body; the GPU may contract a
// multiply and an add into one rounding, so within 1e-12 of the peak).
TEST(TotalFocusing, TheGpuSumsAsTheHostDoes) {
  TREMOR_REQUIRE_GPU();
  imaging::Fmc fmc = array_of_16();
  add_scatterer(fmc, {-2e-3, 10e-3}, c_l, c_t);
  add_scatterer(fmc, {3e-3, 16e-3}, c_l, c_l);
  const imaging::Path lt{{c_l, c_t}, {20e-3}}, l{{c_l}, {}};
  const auto host = imaging::total_focusing(fmc, 97, 83, {-6e-3, 5e-3}, {6e-3, 19e-3}, lt, l, Exec::openmp());
  const auto gpu = imaging::total_focusing(fmc, 97, 83, {-6e-3, 5e-3}, {6e-3, 19e-3}, lt, l, Exec::cuda());
  const double peak = *std::max_element(host.values.begin(), host.values.end());
  ASSERT_GT(peak, 0.0);
  for (std::size_t p = 0; p < host.values.size(); ++p) ASSERT_NEAR(gpu.values[p], host.values[p], 1e-12 * peak) << p;
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

// An image that shows nothing is refused with its cause: the capture zero; every pixel's way
// longer than the record, with the record's length and the durations that reach the nearest pixel
// and the whole image. An image with an echo passes.
TEST(TotalFocusing, AnImageOfNothingIsRefusedSayingWhy) {
  const imaging::Path l{{c_l}, {}};
  const Exec exec = Exec::openmp();
  const auto check = [&](const imaging::Fmc& fmc, std::array<double, 2> min, std::array<double, 2> max) {
    const imaging::GridMap image = imaging::total_focusing(fmc, 5, 5, min, max, l, l, exec);
    imaging::check_image_shows(image, fmc, l, l, exec, centre, "", "run.h5: array 'probe', view L-L");
  };
  imaging::Fmc fmc = array_of_16();
  test::expect_contains(test::error_of([&] { check(fmc, {-1e-3, 1e-3}, {1e-3, 3e-3}); }),
                        {"run.h5: array 'probe', view L-L: the capture is zero in every A-scan"});
  add_scatterer(fmc, {0.0, 2e-3}, c_l, c_l);
  EXPECT_NO_THROW(check(fmc, {-1e-3, 1e-3}, {1e-3, 3e-3}));
  // 12 us of record: pixels 40 to 50 mm deep are 13.6 us or more away there and back.
  const std::string late = test::error_of([&] { check(fmc, {-1e-3, 40e-3}, {1e-3, 50e-3}); });
  test::expect_contains(late, {"view L-L: every pixel's way takes longer than the record (" +
                                   str(static_cast<double>(samples - 1) * dt) + " s)",
                               "lengthen [explicit] duration to at least " +
                                   str(centre + 2 * std::hypot(0.25e-3, 40e-3) / c_l) + " s (",
                               "s for the whole image)"});
  // The nearest element is 0.25 mm aside of each pixel, the farthest 4.75 mm of the outer ones.
  const imaging::Arrivals at = imaging::arrivals(fmc, 3, 1, {-1e-3, 2e-3}, {1e-3, 2e-3}, l, l, exec);
  EXPECT_NEAR(at.earliest, 2 * std::hypot(0.25e-3, 2e-3) / c_l, 1e-15);
  EXPECT_NEAR(at.latest, 2 * std::hypot(4.75e-3, 2e-3) / c_l, 1e-15);
}

// Where an image lies against the part (8 mm across from -4 mm, 5 mm deep; 3D, 4 mm across the
// plane): above the surface, wholly outside, a plane outside, a back wall below the part and a pixel
// larger than the image are refused naming the option; partly outside is warned of; too many
// pixels are refused with their counts as asked.
TEST(TotalFocusing, AnImageOutsideThePartIsRefusedNamingTheOption) {
  const imaging::PartExtent part{{-4e-3, 0.0}, {4e-3, 5e-3}, -2e-3, 2e-3};
  const double none = std::nan("");
  const auto plan = [&](std::array<double, 2> min, std::array<double, 2> max, double pixel, double at = 0.0,
                        double back_wall = std::nan(""), bool contact = true) {
    return imaging::plan_image(part, min, max, pixel, at, back_wall, contact, "r.h5: array 'probe'");
  };
  const auto fails = [&](auto&&... args) { return test::error_of([&] { (void)plan(args...); }); };
  const imaging::ImagePlan fine = plan({-1e-3, 0.0}, {1e-3, 4e-3}, 1e-4);
  EXPECT_EQ(fine.nx, 21);
  EXPECT_EQ(fine.ny, 41);
  EXPECT_TRUE(fine.warnings.empty());
  test::expect_contains(fails(std::array{-1e-3, -2e-3}, std::array{1e-3, 4e-3}, 1e-4),
                        {"r.h5: array 'probe': --extent starts 0.002 m above the surface"});
  EXPECT_NO_THROW(plan({-1e-3, -2e-3}, {1e-3, 4e-3}, 1e-4, 0.0, none, false));  // immersed: the water's
  test::expect_contains(fails(std::array{-1e-3, 6e-3}, std::array{1e-3, 10e-3}, 1e-4),
                        {"the image (--extent: x -0.001 to 0.001 m, depth 0.006 to 0.01 m) lies wholly outside the "
                         "part (x -0.004 to 0.004 m, depth 0 to 0.005 m)"});
  test::expect_contains(fails(std::array{-1e-3, 0.0}, std::array{1e-3, 4e-3}, 1e-4, 0.01),
                        {"--at 0.01 m puts the image's plane outside the part"});
  test::expect_contains(fails(std::array{-1e-3, 0.0}, std::array{1e-3, 0.1}, 1e-3, 0.0, 0.1),
                        {"--back-wall 0.1 m lies below the part, which reaches 0.005 m"});
  test::expect_contains(fails(std::array{-1e-3, 0.0}, std::array{1e-3, 4e-3}, 1.0),
                        {"--pixel 1 m is larger than the image (0.002 m across, 0.004 m deep)"});
  const imaging::ImagePlan wide = plan({-0.1, 0.0}, {0.1, 4e-3}, 1e-3);
  ASSERT_EQ(wide.warnings.size(), 1u);
  test::expect_contains(wide.warnings[0], {"runs outside the part"});
  test::expect_contains(fails(std::array{-1.0, 0.0}, std::array{1.0, 1.0}, 1e-5),
                        {"200,001 x 100,001 pixels of 10 ", "m: too many"});
}

}  // namespace
}  // namespace tremor
