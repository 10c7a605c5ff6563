#pragma once
// Points binned into cubic cells of a tolerance's size, for finding coincident nodes in time
// linear in their number (boundary_mesh.cpp's duplicate check, generate.cpp's node placement): a
// point's cell is its coordinates over the size, rounded; two points closer than the size lie in
// cells at most one apart along each axis.
#include <cstddef>
#include <cstdint>

namespace tremor::bem {

struct CellKey {
  std::int64_t x, y, z;
  bool operator==(const CellKey&) const = default;
};

struct CellHash {
  std::size_t operator()(const CellKey& k) const {
    std::uint64_t h = static_cast<std::uint64_t>(k.x) * 0x9E3779B97F4A7C15ull;
    h ^= static_cast<std::uint64_t>(k.y) + 0x7F4A7C159E3779B9ull + (h << 6) + (h >> 2);
    h ^= static_cast<std::uint64_t>(k.z) + 0x94D049BB133111EBull + (h << 6) + (h >> 2);
    return static_cast<std::size_t>(h);
  }
};

}  // namespace tremor::bem
