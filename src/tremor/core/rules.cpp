#include "tremor/core/rules.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "tremor/core/error.hpp"

namespace tremor {

namespace {

// "%g": the bounds as a reader writes them (1e+06 rather than 1000000.000000).
std::string brief(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// Enough digits to tell the value refused from the bound it missed (1e-09 against 0, 1.0000001).
std::string exact(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

}  // namespace

bool NumberRule::admits(double value) const {
  return std::isfinite(value) && (low_open ? value > low : value >= low) && value <= high;
}

double NumberRule::check(std::string_view name, double value) const {
  if (!admits(value)) throw Error(str(name, ": ", refusal(exact(value))));
  return value;
}

std::string NumberRule::refusal(std::string_view got) const { return str("must be ", description, ", got ", got); }

bool WholeRule::admits(long long value) const { return value >= low && value <= high; }

long long WholeRule::check(std::string_view name, long long value) const {
  if (!admits(value)) throw Error(str(name, ": ", refusal(std::to_string(value))));
  return value;
}

std::string WholeRule::refusal(std::string_view got) const { return str("must be ", description, ", got ", got); }

NumberRule finite_number() {
  const double most = std::numeric_limits<double>::max();
  return {-most, most, false, "a finite number"};
}

NumberRule positive_number() { return {0.0, std::numeric_limits<double>::max(), true, "a finite number above 0"}; }

NumberRule non_negative_number() {
  return {0.0, std::numeric_limits<double>::max(), false, "a finite number, 0 or more"};
}

NumberRule number_within(double low, double high, bool low_open) {
  return {low, high, low_open,
          std::string("a number in ") + (low_open ? "(" : "[") + brief(low) + ", " + brief(high) + "]"};
}

WholeRule whole_number(long long low, long long high) {
  return {low, high, "a whole number in [" + std::to_string(low) + ", " + std::to_string(high) + "]"};
}

}  // namespace tremor
