#pragma once
// The rules a number given by a user follows, wherever it comes from: an option of the command
// line (cli/options.hpp turns a rule into a CLI11 validator) or an argument of the Python package.
// One rule, one wording: a refusal names the value and states its bounds briefly,
// "duration: must be a finite number above 0, got nan". NaN and infinities are never admitted,
// never read as "not given".
#include <string>
#include <string_view>

namespace tremor {

// A finite number in [low, high], or (low, high] when `low_open`.
struct NumberRule {
  double low = 0.0;
  double high = 0.0;
  bool low_open = false;
  std::string description;  // "a finite number above 0"

  bool admits(double value) const;
  // `value` when admitted; else throws tremor::Error "NAME: must be DESCRIPTION, got VALUE".
  double check(std::string_view name, double value) const;
  // "must be DESCRIPTION, got GOT": a refusal's words for a value given as text (the command line
  // quotes it, CLI11 puts the option's name before it).
  std::string refusal(std::string_view got) const;
};

// A whole number in [low, high] (counts, orders, iteration limits).
struct WholeRule {
  long long low = 0;
  long long high = 0;
  std::string description;  // "a whole number in [1, 2147483647]"

  bool admits(long long value) const;
  long long check(std::string_view name, long long value) const;
  std::string refusal(std::string_view got) const;  // a value too large for a long long: its text
};

NumberRule finite_number();                                                    // any finite number
NumberRule positive_number();                                                  // finite, > 0
NumberRule non_negative_number();                                              // finite, >= 0
NumberRule number_within(double low, double high, bool low_open = false);     // finite, in [low, high]
WholeRule whole_number(long long low, long long high);

}  // namespace tremor
