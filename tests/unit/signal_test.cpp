#include "tremor/model/signal.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <functional>
#include <limits>
#include <numbers>
#include <string>
#include <type_traits>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/model/model.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

constexpr double pi = std::numbers::pi;

static_assert(std::is_trivially_copyable_v<SignalParameters>, "kernels take the analytic part by value");

using test::error_of;
using test::expect_contains;

// |S(f)| of the signal, S(f) = integral of s(t) exp(-2 pi i f t) over [begin, end], by the midpoint
// rule with `samples` points. The signals are smooth and sampled at 40 points per period of the
// highest frequency asked for, so the rule's error is far below the 1% levels compared.
double spectrum(const Signal& signal, double f, double begin, double end, int samples) {
  const double dt = (end - begin) / samples;
  std::complex<double> sum = 0.0;
  for (int i = 0; i < samples; ++i) {
    const double t = begin + (i + 0.5) * dt;
    sum += signal.value(t) * std::polar(1.0, -2.0 * pi * f * t);
  }
  return std::abs(sum) * dt;
}

struct SpectrumCheck {
  double peak = 0.0;          // largest |S| below highest_frequency()
  double above = 0.0;         // largest |S| from highest_frequency() to 4 times it
  double at_fraction = 0.0;   // |S| at `fraction` * highest_frequency()
};

SpectrumCheck check_spectrum(const Signal& signal, double begin, double end, double fraction) {
  const double top = signal.highest_frequency();
  const int samples = static_cast<int>(std::ceil((end - begin) * 4.0 * top * 40.0));
  SpectrumCheck out;
  constexpr int steps = 400;
  for (int k = 0; k <= steps; ++k) out.peak = std::max(out.peak, spectrum(signal, top * k / steps, begin, end, samples));
  for (int k = 0; k <= 3 * steps; ++k)
    out.above = std::max(out.above, spectrum(signal, top * (1.0 + static_cast<double>(k) / steps), begin, end, samples));
  out.at_fraction = spectrum(signal, fraction * top, begin, end, samples);
  return out;
}

TEST(Signal, ToneBurstClosedForm) {
  const double f = 5e6, n = 5;
  const Signal s = Signal::tone_burst(f, n);
  EXPECT_EQ(s.kind, SignalKind::ToneBurst);
  // At the window's centre the envelope is 1 and the carrier sin(5 pi) is 0.
  EXPECT_NEAR(s.value(n / (2 * f)), 0.0, 1e-14);
  // A quarter period before the centre the carrier is sin(4.5 pi) = 1 and the window
  // (1 - cos(0.9 pi)) / 2 = (1 + cos(0.1 pi)) / 2.
  EXPECT_NEAR(s.value(2.25 / f), 0.5 * (1.0 + std::cos(0.1 * pi)), 1e-14);
  // One period in: sin(2 pi) = 0; a quarter period in: (1 - cos(pi / 10)) / 2.
  EXPECT_NEAR(s.value(1.0 / f), 0.0, 1e-14);
  EXPECT_NEAR(s.value(0.25 / f), 0.5 * (1.0 - std::cos(0.1 * pi)), 1e-14);
  // Symmetry about the centre: odd for an odd number of cycles.
  for (double tau : {0.1, 0.37, 1.3, 2.4}) EXPECT_NEAR(s.value((2.5 + tau) / f), -s.value((2.5 - tau) / f), 1e-13);
  // Zero outside [0, n / f], exactly.
  EXPECT_EQ(s.value(-1e-12), 0.0);
  EXPECT_EQ(s.value(n / f * (1 + 1e-12)), 0.0);
  EXPECT_EQ(s.value(1.0), 0.0);
  EXPECT_NEAR(s.value(0.0), 0.0, 1e-300);
  EXPECT_NEAR(s.value(n / f), 0.0, 1e-14);
  EXPECT_DOUBLE_EQ(s.duration(), n / f);
  EXPECT_DOUBLE_EQ(s.highest_frequency(), f * (1.0 + 3.0 / n));
  // Non-integer cycles are allowed.
  const Signal half = Signal::tone_burst(1.0, 2.5);
  EXPECT_NEAR(half.value(1.25), std::sin(2.5 * pi), 1e-14);
  // The device path is the same function.
  const SignalParameters device_copy = s;
  EXPECT_EQ(analytic_signal(device_copy, 2.25 / f), s.value(2.25 / f));
}

TEST(Signal, GaussianClosedForm) {
  // The pogo paper's geology source: exp(-1000 (t - 0.25)^2).
  const Signal s = Signal::gaussian(1000.0, 0.25);
  EXPECT_DOUBLE_EQ(s.value(0.25), 1.0);
  EXPECT_NEAR(s.value(0.35), std::exp(-10.0), 1e-16);
  EXPECT_NEAR(s.value(0.15), std::exp(-10.0), 1e-16);
  EXPECT_NEAR(s.value(0.0), std::exp(-62.5), 1e-30);
  // Effective support: 1e-6 of the peak at duration(), below beyond.
  EXPECT_NEAR(s.value(s.duration()), 1e-6, 1e-12);
  EXPECT_LT(s.value(s.duration() * 1.01), 1e-6);
  EXPECT_NEAR(s.highest_frequency(), std::sqrt(1000.0 * std::log(100.0)) / pi, 1e-12);
  // Default centre: the signal starts at 1e-6 and is symmetric, lasting twice that.
  const Signal d = Signal::gaussian(1000.0);
  EXPECT_NEAR(d.value(0.0), 1e-6, 1e-12);
  EXPECT_NEAR(d.duration(), 2.0 * d.centre, 1e-15);
}

TEST(Signal, RickerClosedForm) {
  const double f = 1e5;
  const Signal s = Signal::ricker(f);
  EXPECT_DOUBLE_EQ(s.centre, 1.5 / f);
  EXPECT_DOUBLE_EQ(s.value(s.centre), 1.0);
  // Zeros at pi f tau = 1/sqrt(2), minima -2 exp(-3/2) at pi f tau = sqrt(3/2).
  for (double sign : {-1.0, 1.0}) {
    EXPECT_NEAR(s.value(s.centre + sign / (std::sqrt(2.0) * pi * f)), 0.0, 1e-15);
    EXPECT_NEAR(s.value(s.centre + sign * std::sqrt(1.5) / (pi * f)), -2.0 * std::exp(-1.5), 1e-15);
  }
  // Starts from rest: below 1e-8 at t = 0 with the default centre.
  EXPECT_LT(std::abs(s.value(0.0)), 1e-8);
  EXPECT_NEAR(std::abs(s.value(s.duration())), 1e-6, 1e-9);
  EXPECT_LT(std::abs(s.value(s.duration() + 0.01 / f)), 1e-6);
  EXPECT_NEAR(s.highest_frequency(), 2.7637568757026756 * f, 1e-6);
  const Signal moved = Signal::ricker(f, 3e-5);
  EXPECT_DOUBLE_EQ(moved.value(3e-5), 1.0);
}

// Above highest_frequency() the amplitude spectrum stays below 1% of its peak (-40 dB), and the
// bound is tight: a little below it the spectrum is still above 1%. For the Gaussian and Ricker the
// bound is exactly the 1% point, so the comparison allows 1e-4 relative: the peak is sampled on a
// grid (the Ricker's peak may fall between points, 1e-5 low) and the integral carries rounding.
constexpr double at_most = 0.01 * (1.0 + 1e-4);
TEST(Signal, HighestFrequencyBoundsTheSpectrumAtMinus40dB) {
  for (double n : {2.0, 3.0, 5.0, 10.0}) {
    SCOPED_TRACE(n);
    const double f = 1e6;
    const Signal s = Signal::tone_burst(f, n);
    // At f (1 + 2.5/n), the middle of the Hann window's first sidelobe (-31.5 dB), it is above 1%.
    const SpectrumCheck c = check_spectrum(s, 0.0, n / f, (1.0 + 2.5 / n) / (1.0 + 3.0 / n));
    EXPECT_LT(c.above, at_most * c.peak);
    EXPECT_GT(c.at_fraction, 0.01 * c.peak);
  }
  {
    const Signal s = Signal::gaussian(1000.0, 0.25);
    const double half = 8.0 / std::sqrt(1000.0);  // exp(-64): the truncation is negligible
    const SpectrumCheck c = check_spectrum(s, 0.25 - half, 0.25 + half, 0.97);
    EXPECT_LT(c.above, at_most * c.peak);
    EXPECT_GT(c.at_fraction, 0.01 * c.peak);
  }
  {
    const double f = 2e5;
    const Signal s = Signal::ricker(f, 5.0 / f);
    const SpectrumCheck c = check_spectrum(s, 0.0, 10.0 / f, 0.97);
    EXPECT_LT(c.above, at_most * c.peak);
    EXPECT_GT(c.at_fraction, 0.01 * c.peak);
  }
}

TEST(Signal, TabulatedInterpolatesAndHolds) {
  const Signal s = Signal::tabulated({{0.0, 0.0}, {1.0, 2.0}, {3.0, -2.0}}, "ramp");
  EXPECT_DOUBLE_EQ(s.value(0.5), 1.0);
  EXPECT_DOUBLE_EQ(s.value(2.0), 0.0);
  EXPECT_DOUBLE_EQ(s.value(2.5), -1.0);
  EXPECT_DOUBLE_EQ(s.value(-1.0), 0.0);   // the first value before the first point
  EXPECT_DOUBLE_EQ(s.value(10.0), -2.0);  // the last value after the last point
  EXPECT_EQ(s.duration(), std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(s.highest_frequency(), 0.5);  // finest spacing 1
  const Signal ends = Signal::tabulated({{0.0, 0.0}, {0.25, 1.0}, {2.0, 0.0}}, "pulse");
  EXPECT_DOUBLE_EQ(ends.duration(), 2.0);
  EXPECT_DOUBLE_EQ(ends.highest_frequency(), 2.0);
  EXPECT_EQ(ends.value(5.0), 0.0);

  Amplitude amplitude;
  amplitude.name = "AMP-1";
  amplitude.points = {{0.0, 0.0}, {1e-6, 1.0}, {2e-6, 0.5}};
  const Signal from = Signal::from_amplitude(amplitude);
  EXPECT_EQ(from.name, "AMP-1");
  for (double t : {-1e-6, 0.0, 3e-7, 1e-6, 1.7e-6, 5e-6}) EXPECT_DOUBLE_EQ(from.value(t), amplitude.value(t)) << t;

  expect_contains(error_of([] { Signal::tabulated({}, "empty"); }), {"table 'empty'", "no point"});
  expect_contains(error_of([] { Signal::tabulated({{0.0, 1.0}, {0.0, 2.0}}, "t"); }),
                  {"table 't'", "times must increase strictly (0 then 0)"});
  expect_contains(error_of([] { Signal::tabulated({{0.0, std::nan("")}}, "t"); }), {"point 1", "not finite"});
}

// int_0^t of f by composite Simpson with n (even) panels: the reference for Signal::integral, whose
// closed forms it must meet (the signals are smooth; 20000 panels over a few periods converge to
// 1e-12 of their scale). Twice: the inner integral at each outer node.
double simpson(const std::function<double(double)>& f, double t, int n = 20000) {
  if (t <= 0.0) return 0.0;
  const double h = t / n;
  double sum = f(0.0) + f(t);
  for (int i = 1; i < n; ++i) sum += (i % 2 ? 4.0 : 2.0) * f(i * h);
  return sum * h / 3.0;
}

// Each kind's first and second integrals from 0 against Simpson's rule of its value() (and of the
// first integral), inside and after its support, and 0 at and before the start. Bound: 1e-8 of
// the integral's scale (Simpson's rule is of second order across a table's kinks, 1e-9 there; the
// closed forms lose only rounding).
TEST(Signal, IntegralsMatchQuadratureOfTheValue) {
  const std::vector<Signal> signals = {Signal::tone_burst(1e6, 3.0), Signal::tone_burst(2e6, 2.5),
                                       Signal::tone_burst(1e6, 1.0), Signal::ricker(5e5),
                                       Signal::gaussian(4e12),
                                       Signal::tabulated({{-1e-6, 0.5}, {1e-6, 2.0}, {3e-6, -1.0}, {4e-6, 0.0}}, "t")};
  for (const Signal& s : signals) {
    const double end = std::isfinite(s.duration()) ? s.duration() : 4e-6;
    const double scale1 = simpson([&](double t) { return std::abs(s.value(t)); }, 1.5 * end);
    const double scale2 = scale1 * end;
    for (const double share : {0.13, 0.5, 0.77, 1.0, 1.6}) {
      const double t = share * end;
      const double first = simpson([&](double x) { return s.value(x); }, t);
      const double second = simpson([&](double x) { return s.integral(x, 1); }, t);
      EXPECT_NEAR(s.integral(t, 1), first, 1e-8 * scale1) << to_string(s.kind) << " at " << t;
      EXPECT_NEAR(s.integral(t, 2), second, 1e-8 * scale2) << to_string(s.kind) << " at " << t;
    }
    EXPECT_EQ(s.integral(0.0, 1), 0.0);
    EXPECT_EQ(s.integral(-1e-6, 2), 0.0);
  }
  // A whole number of cycles leaves no net displacement; a Gaussian's integral from 0 to its end is
  // sqrt(pi / b) less the part before 0, sqrt(pi / b) erfc(sqrt(b) t0) / 2 (1e-7 of it).
  EXPECT_NEAR(Signal::tone_burst(1e6, 5.0).integral(1e-5, 1), 0.0, 1e-22);
  const Signal g = Signal::gaussian(4e12);
  const double whole = std::sqrt(pi / 4e12) * (1.0 - 0.5 * std::erfc(std::sqrt(4e12) * g.centre));
  EXPECT_NEAR(g.integral(2.0 * g.duration(), 1), whole, 1e-12 * whole);
  // After the support the second integral grows by the first times the time.
  const Signal burst = Signal::tone_burst(1e6, 2.5);
  EXPECT_NEAR(burst.integral(5e-6, 2) - burst.integral(4e-6, 2), burst.integral(4e-6, 1) * 1e-6,
              1e-12 * std::abs(burst.integral(4e-6, 2)));
  expect_contains(error_of([&] { burst.integral(1e-6, 3); }), {"3 times; 1 or 2"});
}

TEST(Signal, RejectsBadParameters) {
  expect_contains(error_of([] { Signal::tone_burst(0.0, 5.0); }), {"tone burst: frequency is 0"});
  expect_contains(error_of([] { Signal::tone_burst(1e6, -1.0); }), {"tone burst: cycles is -1"});
  expect_contains(error_of([] { Signal::gaussian(-3.0); }), {"Gaussian: sharpness is -3"});
  expect_contains(error_of([] { Signal::ricker(std::numeric_limits<double>::infinity()); }),
                  {"Ricker wavelet: frequency is inf"});
}

TEST(Signal, ParsesTables) {
  const Signal s = Signal::parse_table(
      "time,force\n"
      "# a comment\n"
      "\n"
      "0, 0\n"
      "1e-6 ,2.5\r\n"
      "  2e-6;-1\n"
      "3e-6\t0\n"
      "4E-6   +0.5\n",
      "f.csv");
  EXPECT_EQ(s.kind, SignalKind::Tabulated);
  EXPECT_EQ(s.name, "f.csv");
  ASSERT_EQ(s.table.size(), 5u);
  EXPECT_DOUBLE_EQ(s.table[1].first, 1e-6);
  EXPECT_DOUBLE_EQ(s.table[1].second, 2.5);
  EXPECT_DOUBLE_EQ(s.table[2].second, -1.0);
  EXPECT_DOUBLE_EQ(s.table[4].first, 4e-6);
  EXPECT_DOUBLE_EQ(s.table[4].second, 0.5);
  EXPECT_DOUBLE_EQ(s.value(1.5e-6), 0.75);
  // No header is fine too.
  EXPECT_EQ(Signal::parse_table("0,1\n1,2", "g.csv").table.size(), 2u);
}

TEST(Signal, TableErrorsNameFileAndLine) {
  const auto error = [](const std::string& text) { return error_of([&] { Signal::parse_table(text, "f.csv"); }); };
  EXPECT_EQ(error("t,v\n0,0\n1,2\n1,3\n").rfind("f.csv:4: time 1 does not increase", 0), 0u) << error("t,v\n0,0\n1,2\n1,3\n");
  EXPECT_EQ(error("0,0\n1,x\n").rfind("f.csv:2: value 'x' is not a finite number", 0), 0u);
  EXPECT_EQ(error("0,0\n1,nan\n").rfind("f.csv:2: value 'nan' is not a finite number", 0), 0u);
  EXPECT_EQ(error("0,0\nabc,1\n").rfind("f.csv:2: time 'abc' is not a finite number", 0), 0u);
  EXPECT_EQ(error("# c\n0,0,1\n").rfind("f.csv:2: expected 2 fields, time and value; got 3", 0), 0u);
  EXPECT_EQ(error("0,0\n1\n").rfind("f.csv:2: expected 2 fields", 0), 0u);
  EXPECT_EQ(error("0,0\n1,\n").rfind("f.csv:2: value '' is not a finite number", 0), 0u);
  EXPECT_EQ(error("time,value\n# nothing\n").rfind("f.csv: no (time, value) point", 0), 0u);
  EXPECT_EQ(error("").rfind("f.csv: no (time, value) point", 0), 0u);
  // Only the first content line may be a header.
  EXPECT_EQ(error("t,v\nt,v\n").rfind("f.csv:2: time 't' is not a finite number", 0), 0u);
}

}  // namespace
}  // namespace tremor
