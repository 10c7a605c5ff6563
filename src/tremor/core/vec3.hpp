#pragma once
// Points and directions in 3D as std::array<double, 3>: the few operations the host's geometry
// code (boundary meshes, cracks, holes, arrays, grains) takes on them, in one place.
#include <array>
#include <cmath>

namespace tremor::vec3 {

using Vec = std::array<double, 3>;

inline double dot(const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
inline Vec cross(const Vec& a, const Vec& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
inline double norm(const Vec& a) { return std::sqrt(dot(a, a)); }
inline Vec minus(const Vec& a, const Vec& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
inline Vec scaled(const Vec& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }

}  // namespace tremor::vec3
