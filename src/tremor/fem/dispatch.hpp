#pragma once
// The one place where a runtime (ElementType, order) becomes a compile-time element type:
//   with_element(type, order, [&](auto element) { using E = decltype(element); ... });
// Every host routine that launches or loops over a block goes through it (homogeneous launches,
// one template instantiation per type). Host only: an unknown GLL order throws tremor::Error.
#include <utility>

#include "tremor/core/error.hpp"
#include "tremor/fem/elements.hpp"
#include "tremor/mesh/element_type.hpp"

namespace tremor::fem {

template <class F>
decltype(auto) with_element(ElementType type, int order, F&& f) {
  switch (type) {
    case ElementType::Tri3: return std::forward<F>(f)(Tri3{});
    case ElementType::Tri6: return std::forward<F>(f)(Tri6{});
    case ElementType::Quad4: return std::forward<F>(f)(Quad4{});
    case ElementType::Quad8: return std::forward<F>(f)(Quad8{});
    case ElementType::Tet4: return std::forward<F>(f)(Tet4{});
    case ElementType::Tet10: return std::forward<F>(f)(Tet10{});
    case ElementType::Hex8: return std::forward<F>(f)(Hex8{});
    case ElementType::Hex20: return std::forward<F>(f)(Hex20{});
    case ElementType::QuadGLL:
      switch (order) {
        case 1: return std::forward<F>(f)(QuadGll<1>{});
        case 2: return std::forward<F>(f)(QuadGll<2>{});
        case 3: return std::forward<F>(f)(QuadGll<3>{});
        case 4: return std::forward<F>(f)(QuadGll<4>{});
        case 5: return std::forward<F>(f)(QuadGll<5>{});
        case 6: return std::forward<F>(f)(QuadGll<6>{});
        case 7: return std::forward<F>(f)(QuadGll<7>{});
        case 8: return std::forward<F>(f)(QuadGll<8>{});
        default: break;
      }
      break;
    case ElementType::HexGLL:
      switch (order) {
        case 1: return std::forward<F>(f)(HexGll<1>{});
        case 2: return std::forward<F>(f)(HexGll<2>{});
        case 3: return std::forward<F>(f)(HexGll<3>{});
        case 4: return std::forward<F>(f)(HexGll<4>{});
        case 5: return std::forward<F>(f)(HexGll<5>{});
        case 6: return std::forward<F>(f)(HexGll<6>{});
        case 7: return std::forward<F>(f)(HexGll<7>{});
        case 8: return std::forward<F>(f)(HexGll<8>{});
        default: break;
      }
      break;
  }
  throw Error(str("element type ", element_name(type, order), ": GLL order must be 1..", max_gll_order));
}

}  // namespace tremor::fem
