#include "tremor/cli/options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tremor/core/error.hpp"
#include "tremor/mesh/element_type.hpp"

namespace tremor::cli {

namespace {

// The value as a finite double, or NaN when it is not one (junk after the number included).
double finite_value(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(value)) return std::nan("");
  return value;
}

std::string brief(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

CLI::Validator bounded(std::string description, double low, bool low_open, double high) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const double value = finite_value(text);
        const bool ok = std::isfinite(value) && (low_open ? value > low : value >= low) && value <= high;
        if (ok) return {};
        return "must be " + description + ", got '" + text + "'";
      },
      description);
}

}  // namespace

CLI::Validator positive() { return bounded("a finite number above 0", 0.0, true, HUGE_VAL); }

CLI::Validator non_negative() { return bounded("a finite number, 0 or more", 0.0, false, HUGE_VAL); }

CLI::Validator within(double low, double high, bool low_open) {
  return bounded(std::string("a number in ") + (low_open ? "(" : "[") + brief(low) + ", " + brief(high) + "]", low,
                 low_open, high);
}

CLI::Validator whole(long long low, long long high) {
  const std::string description = "a whole number in [" + std::to_string(low) + ", " + std::to_string(high) + "]";
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long long value = std::strtoll(text.c_str(), &end, 10);
        const bool ok = end != text.c_str() && *end == '\0' && errno != ERANGE && value >= low && value <= high;
        return ok ? std::string() : "must be " + description + ", got '" + text + "'";
      },
      description);
}

CLI::Option* add_order_option(CLI::App* command, std::optional<int>& order) {
  return command
      ->add_option("--order", order,
                   str("raise the mesh (hex8/hex20/hex27, quad4/quad8/quad9) to GLL elements of this order, 1-",
                       max_gll_order, " (overrides the model's [mesh] order)"))
      ->check(whole(1, max_gll_order));
}

}  // namespace tremor::cli
