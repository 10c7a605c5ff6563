#pragma once
// Numbers as terminal output and messages print them.
#include <span>
#include <string>
#include <string_view>

namespace tremor {

// 1234567 -> "1,234,567".
std::string group_digits(long long value);
// 16 lowercase hex digits ("00000000000000ff"): a 64-bit fingerprint or checksum.
std::string hex16(unsigned long long value);
// Engineering notation with an SI prefix: 2.1e11 -> "210 G", 1.5e-7 -> "150 n", 7850 -> "7.85 k".
std::string si(double value);
// Four significant digits, "%.4g": 0.000123456 -> "0.0001235", 2.5e9 -> "2.5e+09".
std::string number(double value);

// Closest of `candidates` to `word` when it is plausibly a typo of it (edit distance small for
// its length, or one a prefix of the other); empty otherwise.
std::string closest_match(std::string_view word, std::span<const std::string_view> candidates);
// " (did you mean 'x'?)" or "".
std::string suggestion(std::string_view word, std::span<const std::string_view> candidates);
// The names listed with ", " between them: "a, b, c".
std::string listed(std::span<const std::string> names);
// The names listed as a sentence says them: "a", "a and b", "a, b and c".
std::string listed_and(std::span<const std::string> names);
// The options quoted and listed: "a", "b" or "c".
std::string choices(std::span<const std::string_view> options);
// "unknown WHAT 'word' (did you mean 'x'?); expected "a", "b" or "c"".
std::string unknown_choice(std::string_view what, std::string_view word, std::span<const std::string_view> options);

}  // namespace tremor
