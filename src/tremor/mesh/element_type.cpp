#include "tremor/mesh/element_type.hpp"

#include <charconv>

#include "tremor/core/error.hpp"

namespace tremor {

std::string element_name(ElementType type, int order) {
  switch (type) {
    case ElementType::Tri3: return "tri3";
    case ElementType::Tri6: return "tri6";
    case ElementType::Quad4: return "quad4";
    case ElementType::Quad8: return "quad8";
    case ElementType::Tet4: return "tet4";
    case ElementType::Tet10: return "tet10";
    case ElementType::Hex8: return "hex8";
    case ElementType::Hex20: return "hex20";
    case ElementType::QuadGLL: return str("quad-gll", order);
    case ElementType::HexGLL: return str("hex-gll", order);
  }
  return "unknown";
}

void parse_element_name(std::string_view name, ElementType& type, int& order) {
  order = 1;
  struct Fixed {
    std::string_view name;
    ElementType type;
    int order;
  };
  static constexpr Fixed fixed[] = {
      {"tri3", ElementType::Tri3, 1},     {"tri6", ElementType::Tri6, 1},   {"quad4", ElementType::Quad4, 1},
      {"quad8", ElementType::Quad8, 1},   {"tet4", ElementType::Tet4, 1},   {"tet10", ElementType::Tet10, 1},
      {"hex8", ElementType::Hex8, 1},     {"hex20", ElementType::Hex20, 1}, {"quad9", ElementType::QuadGLL, 2},
      {"hex27", ElementType::HexGLL, 2}};
  for (const auto& entry : fixed) {
    if (entry.name == name) {
      type = entry.type;
      order = entry.order;
      return;
    }
  }
  for (const auto& [prefix, gll_type] : {std::pair{std::string_view("quad-gll"), ElementType::QuadGLL},
                                         std::pair{std::string_view("hex-gll"), ElementType::HexGLL}}) {
    if (name.substr(0, prefix.size()) == prefix) {
      const auto digits = name.substr(prefix.size());
      int value = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (ec == std::errc() && end == digits.data() + digits.size() && value >= 1 && value <= max_gll_order) {
        type = gll_type;
        order = value;
        return;
      }
      throw Error(str("element type '", name, "': the GLL order must be 1..", max_gll_order));
    }
  }
  throw Error(str("unknown element type '", name,
                  "': expected tri3, tri6, quad4, quad8, quad9, tet4, tet10, hex8, hex20, hex27, "
                  "quad-gllP or hex-gllP (P = 1..8)"));
}

}  // namespace tremor
