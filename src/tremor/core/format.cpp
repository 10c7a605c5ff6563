#include "tremor/core/format.hpp"

#include <cmath>
#include <cstdio>

namespace tremor {

std::string group_digits(long long value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

std::string si(double value) {
  if (value == 0.0 || !std::isfinite(value)) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g ", value);
    return buffer;
  }
  static const char* prefixes[] = {"f", "p", "n", "u", "m", "", "k", "M", "G", "T", "P"};
  int exponent = static_cast<int>(std::floor(std::log10(std::abs(value)) / 3.0));
  exponent = exponent < -5 ? -5 : exponent > 5 ? 5 : exponent;
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.4g %s", value / std::pow(10.0, 3 * exponent), prefixes[exponent + 5]);
  return buffer;
}

}  // namespace tremor
