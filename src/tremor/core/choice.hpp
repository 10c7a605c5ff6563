#pragma once
// Settings that are one of a few names become enums where they enter (the model reader, the
// options of a run): parsed once by one table of names, printed back by the same table.
#include <array>
#include <cstddef>
#include <string_view>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"

namespace tremor {

template <class Enum>
struct Named {
  std::string_view name;
  Enum value;
};

// The value `text` names; an unknown name throws "unknown WHAT 'text' (did you mean ...);
// expected ..." (the caller adds where the text came from).
template <class Enum, std::size_t N>
Enum parse_named(std::string_view text, const std::array<Named<Enum>, N>& table, std::string_view what) {
  std::array<std::string_view, N> names{};
  for (std::size_t i = 0; i < N; ++i) {
    if (table[i].name == text) return table[i].value;
    names[i] = table[i].name;
  }
  throw Error(unknown_choice(what, text, names));
}

template <class Enum, std::size_t N>
constexpr std::string_view name_of(Enum value, const std::array<Named<Enum>, N>& table) {
  for (const Named<Enum>& entry : table)
    if (entry.value == value) return entry.name;
  return "unknown";
}

// The names of a table, in its order: the choices a reader or command line accepts.
template <class Enum, std::size_t N>
constexpr std::array<std::string_view, N> names_of(const std::array<Named<Enum>, N>& table) {
  std::array<std::string_view, N> names{};
  for (std::size_t i = 0; i < N; ++i) names[i] = table[i].name;
  return names;
}

// The precision of a solver's state and operator values.
enum class Precision { Double, Float };
inline constexpr std::array<Named<Precision>, 2> precision_names{{{"double", Precision::Double},
                                                                  {"float", Precision::Float}}};
constexpr std::string_view to_string(Precision p) { return name_of(p, precision_names); }
constexpr std::size_t real_size(Precision p) { return p == Precision::Float ? sizeof(float) : sizeof(double); }

}  // namespace tremor
