#pragma once
// Where points lie relative to a boundary mesh: the solid angle a triangle subtends at a point,
// the distance from a point to a triangle, and, over a whole mesh, each point's winding number
// and nearest element. The driver (driver.hpp) refuses interior points on the boundary or on the
// wrong side of it with these: the representation u(p) = G t - H u holds inside the solid only.
#include <array>
#include <vector>

#include "tremor/bem/boundary_mesh.hpp"
#include "tremor/core/config.hpp"

namespace tremor::bem {

// The solid angle the triangle abc subtends at p, positive when its normal (abc counter-clockwise)
// points away from p (Van Oosterom and Strackee, IEEE Trans. Biomed. Eng. 30 (1983) 125).
double solid_angle(const std::array<double, 3>& p, const std::array<double, 3>& a, const std::array<double, 3>& b,
                   const std::array<double, 3>& c);

// Distance from p to the triangle abc (Ericson, Real-Time Collision Detection, 5.1.5).
double triangle_distance(const std::array<double, 3>& p, const std::array<double, 3>& a,
                         const std::array<double, 3>& b, const std::array<double, 3>& c);

struct PointLocation {
  // The solid angle of the whole surface about the point over 4 pi: 1 inside a closed surface
  // whose normals point outward, 0 outside it, -1 inside one whose normals point inward; between
  // 0 and 1/2 on the side an open surface's normals point away from, between -1/2 and 0 on the
  // other.
  double winding = 0.0;
  double distance = 0.0;  // to the nearest element, m
  Index nearest = 0;      // that element (0-based)
};

// The location of each point (a quadrilateral counts as its triangles 012 and 023); points in
// parallel over OpenMP, elements in order, so the result does not depend on the thread count.
std::vector<PointLocation> locate_points(const BoundaryMesh& mesh, const std::vector<std::array<double, 3>>& points);

// Whether a point of this winding number lies in the solid: above 1/2 for Solid::Inside, above
// -1/2 for Solid::Outside, above -1/4 for Solid::Open (a truncated patch cannot say where its
// surface would continue, so a point far beyond its edge, winding near 0, passes).
bool in_solid(double winding, Solid solid);

}  // namespace tremor::bem
