#include "tremor/bem/interior.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>

#include "tremor/core/vec3.hpp"

namespace tremor::bem {
namespace {

using vec3::Vec;
using vec3::minus;
using vec3::dot;
using vec3::cross;
using vec3::norm;

}  // namespace

double solid_angle(const Vec& p, const Vec& a, const Vec& b, const Vec& c) {
  const Vec r1 = minus(a, p), r2 = minus(b, p), r3 = minus(c, p);
  const double l1 = norm(r1), l2 = norm(r2), l3 = norm(r3);
  const double numerator = dot(r1, cross(r2, r3));
  const double denominator = l1 * l2 * l3 + dot(r1, r2) * l3 + dot(r1, r3) * l2 + dot(r2, r3) * l1;
  return 2.0 * std::atan2(numerator, denominator);
}

double triangle_distance(const Vec& p, const Vec& a, const Vec& b, const Vec& c) {
  const Vec ab = minus(b, a), ac = minus(c, a), ap = minus(p, a);
  const double d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return norm(ap);
  const Vec bp = minus(p, b);
  const double d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return norm(bp);
  const double vc = d1 * d4 - d3 * d2;
  const auto at = [&](const Vec& origin, const Vec& edge, double t) {
    return norm(minus(p, {origin[0] + t * edge[0], origin[1] + t * edge[1], origin[2] + t * edge[2]}));
  };
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return at(a, ab, d1 / (d1 - d3));
  const Vec cp = minus(p, c);
  const double d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return norm(cp);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return at(a, ac, d2 / (d2 - d6));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) return at(b, minus(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6)));
  const double denominator = 1.0 / (va + vb + vc);
  const double v = vb * denominator, w = vc * denominator;
  return norm(minus(p, {a[0] + ab[0] * v + ac[0] * w, a[1] + ab[1] * v + ac[1] * w, a[2] + ab[2] * v + ac[2] * w}));
}

std::vector<PointLocation> locate_points(const BoundaryMesh& mesh, const std::vector<Vec>& points) {
  const Index ne = mesh.n_elements();
  const auto vertex = [&](Index e, int v) {
    const Index node = mesh.connectivity[4 * static_cast<std::size_t>(e) + static_cast<std::size_t>(v)];
    const double* x = mesh.coordinates.data() + 3 * static_cast<std::size_t>(node);
    return Vec{x[0], x[1], x[2]};
  };
  std::vector<PointLocation> out(points.size());
#pragma omp parallel for schedule(dynamic, 16)
  for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(points.size()); ++k) {
    const Vec& p = points[static_cast<std::size_t>(k)];
    double angle = 0.0, closest = std::numeric_limits<double>::infinity();
    Index which = 0;
    for (Index e = 0; e < ne; ++e) {
      const Vec a = vertex(e, 0), b = vertex(e, 1), c = vertex(e, 2);
      angle += solid_angle(p, a, b, c);
      double d = triangle_distance(p, a, b, c);
      if (mesh.n_vertices(e) == 4) {
        const Vec q = vertex(e, 3);
        angle += solid_angle(p, a, c, q);
        d = std::min(d, triangle_distance(p, a, c, q));
      }
      if (d < closest) {
        closest = d;
        which = e;
      }
    }
    out[static_cast<std::size_t>(k)] = {angle / (4.0 * std::numbers::pi), closest, which};
  }
  return out;
}

bool in_solid(double winding, Solid solid) {
  switch (solid) {
    case Solid::Inside: return winding > 0.5;
    case Solid::Outside: return winding > -0.5;
    case Solid::Open: return winding > -0.25;
  }
  return false;
}

}  // namespace tremor::bem
