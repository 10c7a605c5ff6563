#include "tremor/cli/options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "tremor/core/error.hpp"
#include "tremor/core/rules.hpp"
#include "tremor/mesh/element_type.hpp"

namespace tremor::cli {

namespace {

// The text as a double, or NaN when it does not parse whole as a number (junk after it) or
// overflows one: the rule then refuses it.
double number_of(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || errno == ERANGE) return std::nan("");
  return value;
}

CLI::Validator validator(const NumberRule& rule) {
  return CLI::Validator(
      [rule](std::string& text) -> std::string {
        return rule.admits(number_of(text)) ? std::string() : rule.refusal("'" + text + "'");
      },
      rule.description);
}

}  // namespace

CLI::Validator finite() { return validator(finite_number()); }

CLI::Validator positive() { return validator(positive_number()); }

CLI::Validator non_negative() { return validator(non_negative_number()); }

CLI::Validator within(double low, double high, bool low_open) { return validator(number_within(low, high, low_open)); }

CLI::Validator whole(long long low, long long high) {
  const WholeRule rule = whole_number(low, high);
  return CLI::Validator(
      [rule](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long long value = std::strtoll(text.c_str(), &end, 10);
        const bool parsed = end != text.c_str() && *end == '\0' && errno != ERANGE;
        return parsed && rule.admits(value) ? std::string() : rule.refusal("'" + text + "'");
      },
      rule.description);
}

CLI::Option* add_order_option(CLI::App* command, std::optional<int>& order) {
  return command
      ->add_option("--order", order,
                   str("raise the mesh (hex8/hex20/hex27, quad4/quad8/quad9) to GLL elements of this order, 1-",
                       max_gll_order, " (overrides the model's [mesh] order)"))
      ->check(whole(1, max_gll_order));
}

}  // namespace tremor::cli
