#pragma once
// Signals: the time functions that drive sources and prescribed displacements.
//
// A Signal is a small value type: a kind and its parameters, plus a host table for the tabulated
// kind. Its SignalParameters base is trivially copyable, so a kernel can take the analytic kinds
// by value and evaluate them with analytic_signal(); the tabulated kind (and any kind, for that
// matter) is cheapest sampled once per time step on the host.
//
// Time t is measured from the signal's own start: a source with delay d applies value(t - d).
// Analytic signals are normalised: the tone burst's envelope, the Gaussian and the Ricker wavelet
// peak at 1. The source's amplitude scales them.
//
// highest_frequency() bounds the significant spectrum with one criterion for every kind: above
// it, the amplitude spectrum |S(f)| stays below 1% (-40 dB) of its peak.
#include <cmath>
#include <numbers>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tremor/core/config.hpp"

namespace tremor {

struct Amplitude;

// A signal's frequencies (Hz) lie within [1e-30, 1e30]: outside, no physical signal, and 2 pi f t,
// a period or the highest frequency overflow or underflow double. Sharpness b (1/s^2) is a
// frequency squared: within [1e-60, 1e60].
inline constexpr double smallest_signal_frequency = 1e-30;
inline constexpr double largest_signal_frequency = 1e30;

enum class SignalKind : int {
  // sin(2 pi f t) * (1 - cos(2 pi f t / n)) / 2 on [0, n / f], zero outside: n cycles of a
  // sine at f under a Hann window.
  ToneBurst,
  // exp(-b (t - t0)^2), as the pogo paper's geology source exp(-1000 (t - 0.25)^2).
  Gaussian,
  // Ricker wavelet of peak frequency f: (1 - 2 pi^2 f^2 s^2) exp(-pi^2 f^2 s^2), s = t - t0.
  Ricker,
  // Points (t, v), linearly interpolated; before the first point the first value holds, after
  // the last point the last value holds (as Abaqus amplitudes do).
  Tabulated,
};

std::string_view to_string(SignalKind kind);

// What a kernel needs to evaluate the analytic kinds; trivially copyable.
struct SignalParameters {
  SignalKind kind = SignalKind::ToneBurst;
  double frequency = 0.0;  // Hz: tone burst centre frequency, Ricker peak frequency
  double cycles = 0.0;     // tone burst: number of cycles n (need not be an integer)
  double sharpness = 0.0;  // Gaussian: b, 1/s^2
  double centre = 0.0;     // s: Gaussian t0, Ricker t0
};

// Value of an analytic kind at t (the tabulated kind gives 0 here: it lives on the host).
TREMOR_HOST_DEVICE inline double analytic_signal(const SignalParameters& p, double t) {
  constexpr double pi = std::numbers::pi;
  switch (p.kind) {
    case SignalKind::ToneBurst: {
      const double end = p.cycles / p.frequency;
      if (!(t >= 0.0 && t <= end)) return 0.0;
      const double phase = 2.0 * pi * p.frequency * t;
      return std::sin(phase) * 0.5 * (1.0 - std::cos(phase / p.cycles));
    }
    case SignalKind::Gaussian: {
      const double s = t - p.centre;
      return std::exp(-p.sharpness * s * s);
    }
    case SignalKind::Ricker: {
      const double a = pi * p.frequency * (t - p.centre);
      return (1.0 - 2.0 * a * a) * std::exp(-a * a);
    }
    case SignalKind::Tabulated:
      break;
  }
  return 0.0;
}

struct Signal : SignalParameters {
  std::vector<std::pair<double, double>> table;  // tabulated: (time s, value), times increasing
  std::string name;                              // tabulated: the amplitude or file it came from

  // Hann-windowed tone burst of `cycles` cycles at `frequency` Hz.
  static Signal tone_burst(double frequency, double cycles);
  // exp(-sharpness (t - centre)^2). Without a centre (NaN), centre = sqrt(ln(1e6) / sharpness):
  // the signal starts at 1e-6 of its peak, and is symmetric about the centre.
  static Signal gaussian(double sharpness, double centre = std::nan(""));
  // Ricker wavelet peaking at `frequency` Hz. Without a centre (NaN), centre = 1.5 / frequency,
  // where the wavelet is below 1e-8 of its peak, so it starts smoothly from rest.
  static Signal ricker(double frequency, double centre = std::nan(""));
  // Tabulated; `name` identifies it in messages. Checked as check() does.
  static Signal tabulated(std::vector<std::pair<double, double>> points, std::string name);
  // The points of an *AMPLITUDE (same interpolation and holding).
  static Signal from_amplitude(const Amplitude& amplitude);
  // Parses a table of "time,value" lines: comma-, semicolon- or whitespace-separated; blank lines
  // and lines starting with '#' skipped; a first line that does not start with a number is a
  // header. Errors name `file`:LINE. Times must increase strictly and values be finite.
  static Signal parse_table(std::string_view text, const std::string& file);

  double value(double t) const;
  // The signal integrated `times` (1 or 2) times in time from its start, int_0^t value and
  // int_0^t int_0^tau value, 0 for t <= 0: a piston's displacement from its velocity, a potential
  // from a pressure. Closed forms for the analytic kinds (the tone burst's three sines, the Ricker's
  // and the Gaussian's primitives through exp and erf); a table's exactly, piecewise linear as
  // value() is (holding its ends), in O(points before t).
  double integral(double t, int times) const;
  // End of the support, s: value(t) is exactly 0 for t > duration() (tone burst, or a table
  // ending at 0), or for the Gaussian and Ricker, |value| < 1e-6 of the peak for t > duration()
  // (their effective support). Infinity where the signal never ends (a table ending non-zero).
  double duration() const;
  // Hz; above it |S(f)| < 1% of its peak:
  //   tone burst: f (1 + 3 / n), the Hann window's second spectral null (the -40 dB point is
  //               f (1 + 2.79 / n) for any n; the sidelobe beyond is at -41 dB);
  //   Gaussian:   sqrt(b ln 100) / pi (S(f) ~ exp(-pi^2 f^2 / b));
  //   Ricker:     2.7638 f (S(f) ~ (f / f_p)^2 exp(-(f / f_p)^2), peak at f_p);
  //   tabulated:  the Nyquist frequency of the finest spacing, 1 / (2 min dt): the highest
  //               frequency the table resolves (a bound of what it was sampled from, not of
  //               the kinks of linear interpolation).
  double highest_frequency() const;

  // Throws tremor::Error naming the problem (non-positive frequency, cycles, sharpness; a frequency
  // outside [smallest_signal_frequency, largest_signal_frequency] or a highest frequency above it;
  // a table with no point, times not increasing, values not finite, points closer than 1 /
  // largest_signal_frequency). `where` prefixes the message. One pass over a table, formatting
  // nothing unless it fails.
  void check(std::string_view where) const;
};

}  // namespace tremor
