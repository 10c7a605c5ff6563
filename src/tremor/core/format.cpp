#include "tremor/core/format.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <vector>

#include "tremor/core/error.hpp"

namespace tremor {

std::string hex16(unsigned long long value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", value);
  return text;
}

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

namespace {

// Keys longer than this are not typos of a known key; it also bounds the quadratic distance.
constexpr std::size_t longest_compared = 64;

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Levenshtein distance, case-insensitive.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool starts_with(std::string_view text, std::string_view prefix) {
  if (prefix.size() > text.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (lower(text[i]) != lower(prefix[i])) return false;
  return true;
}

}  // namespace

std::string closest_match(std::string_view word, std::span<const std::string_view> candidates) {
  if (word.empty() || word.size() > longest_compared) return {};
  std::string_view best;
  std::size_t best_distance = 0;
  for (std::string_view candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    const bool prefix =
        std::min(word.size(), candidate.size()) >= 3 && (starts_with(candidate, word) || starts_with(word, candidate));
    const bool close = distance <= std::max<std::size_t>(1, candidate.size() / 3);
    if ((prefix || close) && (best.empty() || distance < best_distance)) {
      best = candidate;
      best_distance = distance;
    }
  }
  return std::string(best);
}

std::string suggestion(std::string_view word, std::span<const std::string_view> candidates) {
  const std::string match = closest_match(word, candidates);
  return match.empty() ? std::string() : str(" (did you mean '", match, "'?)");
}

std::string listed(std::span<const std::string> names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::string listed_and(std::span<const std::string> names) {
  std::string out;
  for (std::size_t k = 0; k < names.size(); ++k) out += str(k == 0 ? "" : k + 1 == names.size() ? " and " : ", ", names[k]);
  return out;
}

std::string choices(std::span<const std::string_view> options) {
  std::string out;
  for (std::size_t i = 0; i < options.size(); ++i)
    out += str(i == 0 ? "" : i + 1 == options.size() ? " or " : ", ", "\"", options[i], "\"");
  return out;
}

std::string unknown_choice(std::string_view what, std::string_view word, std::span<const std::string_view> options) {
  return str("unknown ", what, " '", word, "'", suggestion(word, options), "; expected ", choices(options));
}

}  // namespace tremor
