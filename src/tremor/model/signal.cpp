#include "tremor/model/signal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "tremor/core/error.hpp"
#include "tremor/core/text_rows.hpp"
#include "tremor/model/model.hpp"

namespace tremor {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();
// sqrt(ln 1e6): exp(-x^2) = 1e-6 at x = this, the Gaussian's effective half-width times sqrt(b).
constexpr double gaussian_half_width = 3.7169221888498383;
// pi f |t - t0| beyond which |Ricker| < 1e-6: the root u = 17.3319 of (2u - 1) e^-u = 1e-6, as
// sqrt(u) / pi = 1.3252 periods.
constexpr double ricker_half_width = 1.3251763074617884;
// The Ricker spectrum x^2 exp(1 - x^2) (1 at its peak x = 1) falls to 0.01 at x = this.
constexpr double ricker_highest = 2.7637568757026756;
// A Hann window's spectrum has its second null 3 / T from its centre.
constexpr double hann_nulls = 3.0;

}  // namespace

std::string_view to_string(SignalKind kind) {
  switch (kind) {
    case SignalKind::ToneBurst:
      return "tone_burst";
    case SignalKind::Gaussian:
      return "gaussian";
    case SignalKind::Ricker:
      return "ricker";
    case SignalKind::Tabulated:
      return "tabulated";
  }
  return "unknown";
}

Signal Signal::tone_burst(double frequency, double cycles) {
  Signal s;
  s.kind = SignalKind::ToneBurst;
  s.frequency = frequency;
  s.cycles = cycles;
  s.check("tone burst");
  return s;
}

Signal Signal::gaussian(double sharpness, double centre) {
  Signal s;
  s.kind = SignalKind::Gaussian;
  s.sharpness = sharpness;
  s.check("Gaussian");
  s.centre = std::isnan(centre) ? gaussian_half_width / std::sqrt(sharpness) : centre;
  s.check("Gaussian");
  return s;
}

Signal Signal::ricker(double frequency, double centre) {
  Signal s;
  s.kind = SignalKind::Ricker;
  s.frequency = frequency;
  s.check("Ricker wavelet");
  s.centre = std::isnan(centre) ? 1.5 / frequency : centre;
  s.check("Ricker wavelet");
  return s;
}

Signal Signal::tabulated(std::vector<std::pair<double, double>> points, std::string name) {
  Signal s;
  s.kind = SignalKind::Tabulated;
  s.table = std::move(points);
  s.name = std::move(name);
  s.check(str("table '", s.name, "'"));
  return s;
}

Signal Signal::from_amplitude(const Amplitude& amplitude) {
  return tabulated(amplitude.points, amplitude.name);
}

Signal Signal::parse_table(std::string_view text, const std::string& file) {
  std::vector<std::pair<double, double>> points;
  for (const TextRow& row : text_rows(text)) {
    double time = 0.0, value = 0.0;
    if (row.fields.size() != 2)
      throw_input_error(file, row.line,
                        str("expected 2 fields, time and value; got ", row.fields.size(), ": '", row.text, "'"));
    if (!finite_number(row.fields[0], time))
      throw_input_error(file, row.line, str("time '", row.fields[0], "' is not a finite number"));
    if (!finite_number(row.fields[1], value))
      throw_input_error(file, row.line, str("value '", row.fields[1], "' is not a finite number"));
    if (!points.empty() && !(time > points.back().first))
      throw_input_error(file, row.line,
                        str("time ", time, " does not increase (the previous point is at ", points.back().first,
                            "); times must increase strictly"));
    points.emplace_back(time, value);
  }
  if (points.empty()) throw_input_error(file, 0, "no (time, value) point; expected lines \"time,value\"");
  Signal s;
  s.kind = SignalKind::Tabulated;
  s.table = std::move(points);
  s.name = file;
  return s;
}

double Signal::value(double t) const {
  if (kind != SignalKind::Tabulated) return analytic_signal(*this, t);
  if (table.empty()) return 0.0;
  if (t <= table.front().first) return table.front().second;
  if (t >= table.back().first) return table.back().second;
  const auto upper = std::upper_bound(table.begin(), table.end(), t,
                                      [](double time, const std::pair<double, double>& p) { return time < p.first; });
  const auto lower = upper - 1;
  const double w = (t - lower->first) / (upper->first - lower->first);
  return (1.0 - w) * lower->second + w * upper->second;
}

namespace {

// int_0^t sin(k tau) dtau (times 1) and int_0^t int_0^tau sin(k s) ds dtau (times 2), written so
// that no digit is lost to cancellation for small k t: 2 sin^2(k t / 2) / k, and (k t - sin k t) / k^2
// by its series where k t is small.
double sine_integral(double k, double t, int times) {
  if (k == 0.0) return 0.0;
  const double x = k * t;
  if (times == 1) {
    const double half = std::sin(0.5 * x);
    return 2.0 * half * half / k;
  }
  if (std::abs(x) < 1e-2) {  // the series' next term is below 1e-19 of the first
    const double x2 = x * x;
    return t * t * x / 6.0 * (1.0 - x2 / 20.0 * (1.0 - x2 / 42.0));
  }
  return (x - std::sin(x)) / (k * k);
}

}  // namespace

double Signal::integral(double t, int times) const {
  TREMOR_CHECK(times == 1 || times == 2, "Signal::integral: ", times, " times; 1 or 2");
  if (!(t > 0.0)) return 0.0;
  constexpr double pi = std::numbers::pi;
  switch (kind) {
    case SignalKind::ToneBurst: {
      // sin(w t) (1 - cos(w t / n)) / 2 = sin(w t) / 2 - sin(w+ t) / 4 - sin(w- t) / 4, w+- = w (1 +- 1 / n);
      // after the burst's end T the first integral holds and the second grows linearly.
      const double w = 2.0 * pi * frequency, end = cycles / frequency;
      const double up = w * (1.0 + 1.0 / cycles), down = w * (1.0 - 1.0 / cycles);
      const auto burst = [&](double s, int n) {
        return 0.5 * sine_integral(w, s, n) - 0.25 * (sine_integral(up, s, n) + sine_integral(down, s, n));
      };
      if (t <= end) return burst(t, times);
      return times == 1 ? burst(end, 1) : burst(end, 2) + burst(end, 1) * (t - end);
    }
    case SignalKind::Ricker: {
      // (1 - 2 a s^2) e^{-a s^2} = d/ds [s e^{-a s^2}], a = (pi f)^2, s = t - t0.
      const double a = (pi * frequency) * (pi * frequency), s = t - centre;
      const double start = std::exp(-a * centre * centre), now = std::exp(-a * s * s);
      if (times == 1) return s * now + centre * start;
      return (start - now) / (2.0 * a) + t * centre * start;
    }
    case SignalKind::Gaussian: {
      // int e^{-b s^2} = sqrt(pi) erf(q s) / (2 q), q = sqrt(b); int erf(q s) ds = s erf(q s) + e^{-q^2 s^2} / (q sqrt(pi)).
      const double q = std::sqrt(sharpness), s = t - centre, scale = std::sqrt(pi) / (2.0 * q);
      const double from = std::erf(q * centre), to = std::erf(q * s);
      if (times == 1) return scale * (to + from);
      return scale * (s * (to + from) + (std::exp(-sharpness * s * s) - std::exp(-sharpness * centre * centre)) /
                                            (q * std::sqrt(pi)));
    }
    case SignalKind::Tabulated:
      break;
  }
  if (table.empty()) return 0.0;
  // Piece by piece from 0: the first value held before the first point, linear between points,
  // the last value held after; on a linear piece of length h from value f0 to f1,
  //   I1 += h (f0 + f1) / 2,   I2 += I1 h + h^2 (2 f0 + f1) / 6.
  double first = 0.0, second = 0.0, from = 0.0;
  const auto piece = [&](double to) {  // [from, to] within [0, t], linear there
    if (!(to > from)) return;
    const double h = to - from, f0 = value(from), f1 = value(to);
    second += first * h + h * h * (2.0 * f0 + f1) / 6.0;
    first += 0.5 * h * (f0 + f1);
    from = to;
  };
  for (const auto& point : table) {
    if (point.first >= t) break;
    piece(point.first);
  }
  piece(t);
  return times == 1 ? first : second;
}

double Signal::duration() const {
  switch (kind) {
    case SignalKind::ToneBurst:
      return cycles / frequency;
    case SignalKind::Gaussian:
      return centre + gaussian_half_width / std::sqrt(sharpness);
    case SignalKind::Ricker:
      return centre + ricker_half_width / frequency;
    case SignalKind::Tabulated:
      if (table.empty()) return 0.0;
      return table.back().second == 0.0 ? table.back().first : infinity;
  }
  return infinity;
}

double Signal::highest_frequency() const {
  switch (kind) {
    case SignalKind::ToneBurst:
      return frequency * (1.0 + hann_nulls / cycles);
    case SignalKind::Gaussian:
      return std::sqrt(sharpness * std::log(100.0)) / std::numbers::pi;
    case SignalKind::Ricker:
      return ricker_highest * frequency;
    case SignalKind::Tabulated: {
      double finest = infinity;
      for (std::size_t k = 1; k < table.size(); ++k) finest = std::min(finest, table[k].first - table[k - 1].first);
      return std::isfinite(finest) ? 0.5 / finest : 0.0;
    }
  }
  return 0.0;
}

void Signal::check(std::string_view where) const {
  const auto positive = [&](double v, const char* what) {
    TREMOR_CHECK(std::isfinite(v) && v > 0.0, where, ": ", what, " is ", v, "; expected a positive number");
  };
  const auto within = [&](double v, double lowest, double highest, const char* what, const char* unit) {
    TREMOR_CHECK(v >= lowest && v <= highest, where, ": ", what, " is ", v, " ", unit, "; expected ", lowest, " to ",
                 highest, " ", unit, " (docs/model-file.md, signals)");
  };
  const auto frequency_in_range = [&](double v, const char* what) {
    within(v, smallest_signal_frequency, largest_signal_frequency, what, "Hz");
  };
  switch (kind) {
    case SignalKind::ToneBurst:
      positive(frequency, "frequency");
      positive(cycles, "cycles");
      frequency_in_range(frequency, "frequency");
      // Its spectrum reaches f (1 + 3 / n): a fraction of a cycle widens it past any frequency.
      frequency_in_range(highest_frequency(), "the highest frequency f (1 + 3 / cycles)");
      break;
    case SignalKind::Gaussian:
      positive(sharpness, "sharpness");
      within(sharpness, smallest_signal_frequency * smallest_signal_frequency,
             largest_signal_frequency * largest_signal_frequency, "sharpness", "1/s^2");
      TREMOR_CHECK(std::isfinite(centre), where, ": centre is ", centre, "; expected a finite time");
      break;
    case SignalKind::Ricker:
      positive(frequency, "frequency");
      frequency_in_range(frequency, "frequency");
      TREMOR_CHECK(std::isfinite(centre), where, ": centre is ", centre, "; expected a finite time");
      break;
    case SignalKind::Tabulated: {
      TREMOR_CHECK(!table.empty(), where, ": the table has no point");
      // The finest spacing sets the highest frequency, 1 / (2 dt): at most the largest frequency.
      const double closest = 0.5 / largest_signal_frequency;
      for (std::size_t k = 0; k < table.size(); ++k) {
        const auto [time, value] = table[k];
        if (!std::isfinite(time) || !std::isfinite(value))
          throw Error(str(where, ": point ", k + 1, " (", time, ", ", value, ") is not finite"));
        if (k == 0) continue;
        const double before = table[k - 1].first;
        if (!(time > before))
          throw Error(str(where, ": times must increase strictly (", before, " then ", time, ")"));
        if (!(time - before >= closest))
          throw Error(str(where, ": points ", k, " and ", k + 1, " are ", time - before, " s apart (", before, " then ",
                          time, "); expected at least ", closest, " s, a frequency of at most ",
                          largest_signal_frequency, " Hz"));
      }
      break;
    }
  }
}

}  // namespace tremor
