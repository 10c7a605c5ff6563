#pragma once
// Checks of numeric command-line options, shared by every command: the rules of core/rules.hpp,
// which the Python package applies to its arguments too. A value must parse whole as a finite
// number (NaN and infinities are refused, never read as "not given"), and a refusal states its
// bounds briefly ("--dt: must be a finite number above 0, got 'nan'"). An option naming a choice
// takes the names of its Named table (core/choice.hpp).
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "tremor/core/choice.hpp"
#include "tremor/model/backend_setting.hpp"

namespace tremor::cli {

CLI::Validator finite();        // finite
CLI::Validator positive();      // finite, > 0
CLI::Validator non_negative();  // finite, >= 0
// finite, in [low, high]; `low_open`: (low, high].
CLI::Validator within(double low, double high, bool low_open = false);
// A whole number in [low, high], for counts ("--check-every: must be a whole number in [1, 2147483647], got '0.5'").
CLI::Validator whole(long long low, long long high);

// `--order P`: raise the model's mesh to GLL elements of order P (1..8) as it is loaded, in place
// of the model file's [mesh] order (docs/model-file.md). Every command that loads a model for a
// solver takes it, so a block file, a run and its summary see the same mesh.
CLI::Option* add_order_option(CLI::App* command, std::optional<int>& order);

// The names of a Named table for CLI::IsMember: an option takes the names the model file does.
template <class Enum, std::size_t N>
std::vector<std::string> choice_names(const std::array<Named<Enum>, N>& table) {
  std::vector<std::string> names;
  for (const Named<Enum>& entry : table) names.emplace_back(entry.name);
  return names;
}

// An option checked by CLI::IsMember(choice_names(table)) as its value; empty (not given): none.
template <class Enum, std::size_t N>
std::optional<Enum> given_choice(const std::string& text, const std::array<Named<Enum>, N>& table,
                                 std::string_view what) {
  if (text.empty()) return std::nullopt;
  return parse_named(text, table, what);
}

// A --backend option checked by CLI::IsMember(backend_choice_names()) as its value; empty (not
// given): none, the model's backend stands.
inline BackendOverride given_backend(const std::string& text) {
  return text.empty() ? BackendOverride() : BackendOverride::named(text);
}

}  // namespace tremor::cli
