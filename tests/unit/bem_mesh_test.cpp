// Boundary meshes: the generators against the shapes they mesh, element geometry against hand
// computations, and every check on a small hand-written mesh that breaks it, the message naming
// the labels involved.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <set>
#include <string>
#include <vector>

#include "tremor/bem/boundary_mesh.hpp"
#include "tremor/bem/generate.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor::bem {
namespace TREMOR_TEST_FILE {

using Vec = std::array<double, 3>;

#define EXPECT_CONTAINS(text, part) EXPECT_NE((text).find(part), std::string::npos) << "'" << (text) << "'"

// The message of the Error `body` throws; fails the test when none is thrown.
template <class Body>
std::string error_of(Body&& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

double dot(const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
double norm(const Vec& a) { return std::sqrt(dot(a, a)); }

// A hand-written mesh: nodes labelled 10, 20, 30, ... and elements 100, 200, ... so that a message
// naming a label cannot be confused with one naming an index.
BoundaryMesh hand_mesh(const std::vector<Vec>& nodes, const std::vector<std::array<Index, 4>>& elements) {
  BoundaryMesh mesh;
  mesh.source = "hand.msh";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    mesh.coordinates.insert(mesh.coordinates.end(), nodes[i].begin(), nodes[i].end());
    mesh.node_labels.push_back(static_cast<Index>(10 * (i + 1)));
  }
  for (std::size_t e = 0; e < elements.size(); ++e) {
    mesh.connectivity.insert(mesh.connectivity.end(), elements[e].begin(), elements[e].end());
    mesh.element_labels.push_back(static_cast<Index>(100 * (e + 1)));
  }
  return mesh;
}

// The unit tetrahedron's surface, normals outward: (0 2 1) is the face z = 0 seen from below.
BoundaryMesh tetrahedron() {
  return hand_mesh({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
                   {{0, 2, 1, -1}, {0, 1, 3, -1}, {1, 2, 3, -1}, {0, 3, 2, -1}});
}

class BemMesh : public ::testing::Test {
 protected:
  const log::Quiet quiet_;  // stderr silenced, earlier warnings set aside
};

// ---- Generators -----------------------------------------------------------------------------

TEST_F(BemMesh, SphereCountsClosedAndOutward) {
  for (const ElementShape shape : {ElementShape::Quadrilateral, ElementShape::Triangle}) {
    for (const Index n : {1, 2, 5}) {
      const double radius = 2.5;
      const BoundaryMesh mesh = sphere(radius, n, shape);
      const bool triangles = shape == ElementShape::Triangle;
      ASSERT_EQ(mesh.n_elements(), (triangles ? 12 : 6) * n * n);
      // The cube's surface lattice: (n+1)^3 - (n-1)^3 points, each edge and corner point once.
      ASSERT_EQ(mesh.n_nodes(), 6 * n * n + 2);
      const MeshReport report = check_boundary_mesh(mesh, Solid::Inside);
      EXPECT_TRUE(report.closed);
      EXPECT_EQ(report.n_boundary_edges, 0);
      // Euler: V - E + F = 2 for a sphere.
      EXPECT_EQ(report.n_nodes - report.n_edges + report.n_elements, 2);
      EXPECT_EQ(report.n_triangles, triangles ? mesh.n_elements() : 0);
      EXPECT_GT(report.signed_volume, 0.0);
      for (Index i = 0; i < mesh.n_nodes(); ++i) {
        const Vec x{mesh.coordinates[3 * i], mesh.coordinates[3 * i + 1], mesh.coordinates[3 * i + 2]};
        // Projected: every node on the sphere to rounding.
        EXPECT_NEAR(norm(x), radius, 1e-14 * radius);
      }
      for (Index e = 0; e < mesh.n_elements(); ++e) {
        const ElementGeometry g = element_geometry(mesh, e);
        // Outward: the normal at the centroid points away from the centre, by a margin (the
        // triangles of n = 1 lean 25 degrees from the radius, the most of these meshes).
        EXPECT_GT(dot(g.normal, g.centroid) / norm(g.centroid), 0.5) << e;
      }
      EXPECT_EQ(mesh.node_labels.front(), 1);
      EXPECT_EQ(mesh.element_labels.back(), mesh.n_elements());
      EXPECT_EQ(mesh.element_sets.at("all").size(), static_cast<std::size_t>(mesh.n_elements()));
      EXPECT_CONTAINS(mesh.source, "sphere(radius=2.5");
    }
  }
}

TEST_F(BemMesh, SphereAreaAndVolumeConvergeAtRateTwo) {
  const double radius = 1.5;
  const double area = 4 * std::numbers::pi * radius * radius;
  const double volume = 4.0 / 3.0 * std::numbers::pi * radius * radius * radius;
  for (const ElementShape shape : {ElementShape::Quadrilateral, ElementShape::Triangle}) {
    std::vector<double> area_error, volume_error;
    for (const Index n : {4, 8, 16, 32}) {
      const BoundaryMesh mesh = sphere(radius, n, shape);
      const MeshReport report = check_boundary_mesh(mesh, Solid::Inside);
      area_error.push_back(std::abs(report.area - area) / area);
      volume_error.push_back(std::abs(report.signed_volume - volume) / volume);
      // The inscribed polyhedron holds less volume than the sphere.
      EXPECT_LT(report.signed_volume, volume);
    }
    for (std::size_t k = 1; k < area_error.size(); ++k) {
      // Flat (or bilinear) elements with chords h approximate the sphere to O(h^2); halving h
      // divides the error by 4. Measured rates are 1.96 to 2.00 from n = 4 on; the band of 0.1
      // leaves room for the pre-asymptotic n = 4 and nothing for first order.
      const double area_rate = std::log2(area_error[k - 1] / area_error[k]);
      const double volume_rate = std::log2(volume_error[k - 1] / volume_error[k]);
      EXPECT_NEAR(area_rate, 2.0, 0.1) << "n = " << (2 << k) << " shape " << static_cast<int>(shape);
      EXPECT_NEAR(volume_rate, 2.0, 0.1) << "n = " << (2 << k) << " shape " << static_cast<int>(shape);
    }
    // And the level: at n = 32 the relative errors are 5e-4 (area) and 1.1e-3 (volume).
    EXPECT_LT(area_error.back(), 1e-3);
    EXPECT_LT(volume_error.back(), 2e-3);
  }
}

TEST_F(BemMesh, BoxCountsSetsAndOrientation) {
  for (const ElementShape shape : {ElementShape::Quadrilateral, ElementShape::Triangle}) {
    const double lx = 2, ly = 3, lz = 4;
    const Index nx = 2, ny = 3, nz = 5;
    const BoundaryMesh mesh = box(lx, ly, lz, nx, ny, nz, shape);
    const Index per = shape == ElementShape::Triangle ? 2 : 1;
    ASSERT_EQ(mesh.n_elements(), per * 2 * (nx * ny + ny * nz + nx * nz));
    ASSERT_EQ(mesh.n_nodes(), (nx + 1) * (ny + 1) * (nz + 1) - (nx - 1) * (ny - 1) * (nz - 1));
    const MeshReport report = check_boundary_mesh(mesh, Solid::Inside);
    EXPECT_TRUE(report.closed);
    // Flat faces: area and volume exact to rounding.
    EXPECT_NEAR(report.area, 2 * (lx * ly + ly * lz + lx * lz), 1e-12);
    EXPECT_NEAR(report.signed_volume, lx * ly * lz, 1e-12);
    EXPECT_EQ(report.box.lower, (Vec{-lx / 2, -ly / 2, -lz / 2}));
    EXPECT_EQ(report.box.upper, (Vec{lx / 2, ly / 2, lz / 2}));
    const std::array<double, 3> half{lx / 2, ly / 2, lz / 2};
    const char* const names[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
    const Index cells[3] = {ny * nz, nx * nz, nx * ny};
    std::size_t total = 0;
    for (int f = 0; f < 6; ++f) {
      const int axis = f / 2;
      const double side = f % 2 == 0 ? -1.0 : 1.0;
      const std::vector<Index>& set = mesh.element_sets.at(names[f]);
      EXPECT_EQ(set.size(), static_cast<std::size_t>(per * cells[axis])) << names[f];
      total += set.size();
      for (Index e : set) {
        const ElementGeometry g = element_geometry(mesh, e);
        Vec outward{0, 0, 0};
        outward[static_cast<std::size_t>(axis)] = side;
        EXPECT_EQ(g.normal, outward) << names[f] << " element " << e;
        EXPECT_EQ(g.centroid[static_cast<std::size_t>(axis)], side * half[static_cast<std::size_t>(axis)]);
      }
    }
    EXPECT_EQ(total, static_cast<std::size_t>(mesh.n_elements()));
  }
}

TEST_F(BemMesh, HalfspacePatchIsOpenWithNormalsUp) {
  for (const ElementShape shape : {ElementShape::Quadrilateral, ElementShape::Triangle}) {
    const Index nx = 10, ny = 6;
    const BoundaryMesh mesh = halfspace_patch(20.0, 12.0, nx, ny, shape);
    const Index per = shape == ElementShape::Triangle ? 2 : 1;
    ASSERT_EQ(mesh.n_elements(), per * nx * ny);
    ASSERT_EQ(mesh.n_nodes(), (nx + 1) * (ny + 1));
    const MeshReport report = check_boundary_mesh(mesh, Solid::Open);
    EXPECT_FALSE(report.closed);
    EXPECT_EQ(report.n_boundary_edges, 2 * (nx + ny));
    EXPECT_NEAR(report.area, 240.0, 1e-12);  // flat: exact to rounding
    EXPECT_TRUE(log::take_warnings().empty());
    for (Index i = 0; i < mesh.n_nodes(); ++i) EXPECT_EQ(mesh.coordinates[3 * i + 2], 0.0);
    for (Index e = 0; e < mesh.n_elements(); ++e) EXPECT_EQ(element_geometry(mesh, e).normal, (Vec{0, 0, 1}));
    EXPECT_EQ(report.box.lower, (Vec{-10, -6, 0}));
    EXPECT_EQ(report.box.upper, (Vec{10, 6, 0}));
    EXPECT_EQ(mesh.element_sets.size(), 1u);  // "all" only, without a foundation
  }
}

TEST_F(BemMesh, HalfspacePatchFoundationSets) {
  for (const ElementShape shape : {ElementShape::Quadrilateral, ElementShape::Triangle}) {
    // 1 m cells; a 4 x 2 m foundation covers 8 of them.
    const BoundaryMesh mesh = halfspace_patch(10.0, 8.0, 10, 8, shape, std::array<double, 2>{4.0, 2.0});
    const std::size_t per = shape == ElementShape::Triangle ? 2 : 1;
    const auto& foundation = mesh.element_sets.at("foundation");
    const auto& free = mesh.element_sets.at("free");
    const auto& all = mesh.element_sets.at("all");
    EXPECT_EQ(foundation.size(), 8 * per);
    EXPECT_EQ(free.size(), 72 * per);
    std::vector<Index> both = foundation;
    both.insert(both.end(), free.begin(), free.end());
    std::sort(both.begin(), both.end());
    EXPECT_EQ(both, all);
    double foundation_area = 0;
    for (Index e : foundation) {
      const ElementGeometry g = element_geometry(mesh, e);
      EXPECT_LT(std::abs(g.centroid[0]), 2.0);
      EXPECT_LT(std::abs(g.centroid[1]), 1.0);
      foundation_area += g.area;
    }
    EXPECT_NEAR(foundation_area, 8.0, 1e-12);  // flat cells: exact to rounding
    for (Index e : free) {
      const ElementGeometry g = element_geometry(mesh, e);
      EXPECT_TRUE(std::abs(g.centroid[0]) > 2.0 || std::abs(g.centroid[1]) > 1.0);
    }
    EXPECT_CONTAINS(mesh.source, "foundation=4 x 2");
  }
  // A foundation smaller than a cell holds no centroid.
  EXPECT_CONTAINS(error_of([] { halfspace_patch(10.0, 10.0, 2, 2, ElementShape::Quadrilateral, std::array<double, 2>{1.0, 1.0}); }),
                  "no element centroid lies under the foundation");
}

// The disc around a circular foundation: counts, sets, orientation, the circles' areas (the
// second-order rim on the true circle), cells about as wide as deep, and the argument checks.
TEST_F(BemMesh, HalfspaceDiscAroundACircularFoundation) {
  constexpr double pi = std::numbers::pi;
  for (const ElementShape shape : {ElementShape::Quadrilateral, ElementShape::Triangle})
    for (const int order : {1, 2}) {
      const BoundaryMesh mesh = halfspace_disc(6.0, 1.0, 2, 1.0, {shape, order});
      const Index per = shape == ElementShape::Triangle ? 2 : 1;
      // Core 2 x 2 and four blocks of 2 x 1 under the foundation; six rings of 8, 16, 16, 32, 32
      // and 32 cells around it.
      const auto& under = mesh.element_sets.at("foundation");
      const auto& free = mesh.element_sets.at("free");
      ASSERT_EQ(static_cast<Index>(under.size()), 12 * per);
      ASSERT_EQ(mesh.n_elements(), 148 * per);
      ASSERT_EQ(static_cast<Index>(free.size()), 136 * per);
      const MeshReport report = check_boundary_mesh(mesh, Solid::Open);
      EXPECT_FALSE(report.closed);
      EXPECT_TRUE(log::take_warnings().empty());
      double under_area = 0, free_area = 0;
      for (const Index e : under) {
        const ElementGeometry g = element_geometry(mesh, e);
        EXPECT_LT(std::hypot(g.centroid[0], g.centroid[1]), 1.0);
        EXPECT_GT(g.normal[2], 0.999999);
        under_area += g.area;
      }
      for (const Index e : free) {
        const ElementGeometry g = element_geometry(mesh, e);
        EXPECT_GT(std::hypot(g.centroid[0], g.centroid[1]), 1.0);
        EXPECT_GT(g.normal[2], 0.999999);
        free_area += g.area;
      }
      for (Index i = 0; i < mesh.n_nodes(); ++i) {
        EXPECT_EQ(mesh.coordinates[3 * static_cast<std::size_t>(i) + 2], 0.0);
        EXPECT_LE(std::hypot(mesh.coordinates[3 * static_cast<std::size_t>(i)],
                             mesh.coordinates[3 * static_cast<std::size_t>(i) + 1]),
                  6.0 * (1 + 1e-14));
      }
      if (order == 2) {
        // The arcs are the 9-node (6-node) map's parabolas through three points of the circle:
        // measured 7.8e-4 of pi under the foundation (arcs of 45 degrees), 3e-6 of 36 pi in all.
        EXPECT_NEAR(under_area, pi, 1e-3 * pi);
        EXPECT_NEAR(under_area + free_area, 36 * pi, 1e-4 * 36 * pi);
      } else {
        // Chords: under the foundation the inscribed octagon; in all the inscribed polygons less
        // the slivers where the cells around double (a coarse chord beside two fine ones).
        EXPECT_NEAR(under_area, 4 * std::sin(pi / 4), 1e-12);
        EXPECT_NEAR(under_area + free_area, 36 * pi, 0.03 * 36 * pi);
      }
    }
  // Cells about as wide as deep along the rings, up to max_cell deep (a 20 m surface, cells <= 1 m).
  const BoundaryMesh wide = halfspace_disc(20.0, 1.0, 3, 1.0);
  for (const Index e : wide.element_sets.at("free")) {
    const Index* v = wide.connectivity.data() + 4 * static_cast<std::size_t>(e);
    const auto at = [&](Index node) {
      return std::array<double, 2>{wide.coordinates[3 * static_cast<std::size_t>(node)],
                                   wide.coordinates[3 * static_cast<std::size_t>(node) + 1]};
    };
    const auto length = [&](Index p, Index q) { return std::hypot(at(p)[0] - at(q)[0], at(p)[1] - at(q)[1]); };
    // The ring's depth along a radius; its width at the middle, the mean of its two arcs' chords.
    const double depth = length(v[0], v[1]), width = 0.5 * (length(v[1], v[2]) + length(v[0], v[3]));
    EXPECT_LE(depth, 1.0 + 1e-12);
    EXPECT_GT(width / depth, 0.7);
    EXPECT_LT(width / depth, 1.65);
  }
  EXPECT_CONTAINS(error_of([] { halfspace_disc(1.0, 1.0, 2, 0.5); }), "must be below the surface's radius");
  EXPECT_CONTAINS(error_of([] { halfspace_disc(2.0, 1.0, 0, 0.5); }), "n must be at least 1");
  EXPECT_CONTAINS(error_of([] { halfspace_disc(2.0, 1.0, 2, 0.0); }), "max_cell must be a positive length");
  EXPECT_CONTAINS(error_of([] { halfspace_disc(2.0, -1.0, 2, 0.5); }), "the foundation's radius must be a positive");
  EXPECT_CONTAINS(error_of([] { halfspace_disc(1e7, 1.0, 2, 1e-3); }), "exceeds the generator limit");
}

TEST_F(BemMesh, FlipOrientationReversesNormalsAndVolume) {
  for (const ElementShape shape : {ElementShape::Quadrilateral, ElementShape::Triangle}) {
    const BoundaryMesh body = sphere(1.0, 3, shape);
    BoundaryMesh cavity = body;
    flip_orientation(cavity);
    for (Index e = 0; e < body.n_elements(); ++e) {
      const ElementGeometry a = element_geometry(body, e), b = element_geometry(cavity, e);
      // The same element walked backwards: the same area and centroid, the opposite normal.
      EXPECT_NEAR(dot(a.normal, b.normal), -1.0, 1e-14);
      EXPECT_NEAR(a.area, b.area, 1e-15);
    }
    EXPECT_NEAR(signed_volume(cavity), -signed_volume(body), 1e-14);
    const MeshReport report = check_boundary_mesh(cavity, Solid::Outside);
    EXPECT_TRUE(report.closed);
    EXPECT_LT(report.signed_volume, 0.0);
    BoundaryMesh twice = cavity;
    flip_orientation(twice);
    EXPECT_NE(twice.connectivity, cavity.connectivity);
    EXPECT_EQ(twice.connectivity, body.connectivity);
  }
}

TEST_F(BemMesh, GeneratorArgumentsAreChecked) {
  EXPECT_CONTAINS(error_of([] { sphere(0.0, 4); }), "sphere: the radius must be a positive length");
  EXPECT_CONTAINS(error_of([] { sphere(1.0, 0); }), "sphere: n must be at least 1");
  EXPECT_CONTAINS(error_of([] { sphere(1.0, 100000); }), "exceed the generator limit");
  EXPECT_CONTAINS(error_of([] { box(1.0, std::nan(""), 1.0, 1, 1, 1); }), "box: ly must be a positive length");
  EXPECT_CONTAINS(error_of([] { box(1.0, 1.0, 1.0, 1, -2, 1); }), "box: ny must be at least 1");
  EXPECT_CONTAINS(error_of([] { halfspace_patch(1.0, 1.0, 1, 1, ElementShape::Triangle, std::array<double, 2>{0.0, 1.0}); }),
                  "the foundation's x size must be a positive length");
}

// ---- Geometry -------------------------------------------------------------------------------

TEST_F(BemMesh, TriangleGeometry) {
  // A right triangle with legs 3 and 4 in the plane x = 1, counter-clockwise seen from +x.
  const BoundaryMesh mesh = hand_mesh({{1, 0, 0}, {1, 3, 0}, {1, 0, 4}}, {{0, 1, 2, -1}});
  const ElementGeometry g = element_geometry(mesh, 0);
  EXPECT_DOUBLE_EQ(g.area, 6.0);
  EXPECT_DOUBLE_EQ(g.diameter, 5.0);
  EXPECT_EQ(g.normal, (Vec{1, 0, 0}));
  EXPECT_DOUBLE_EQ(g.centroid[0], 1.0);
  EXPECT_DOUBLE_EQ(g.centroid[1], 1.0);
  EXPECT_DOUBLE_EQ(g.centroid[2], 4.0 / 3.0);
}

TEST_F(BemMesh, QuadrilateralGeometry) {
  // A flat trapezoid (parallel sides 4 and 2, height 3) in z = 2: area 9 exactly, centroid at the
  // image of (0, 0), the vertex average (not the area centroid), normal -z (clockwise from above).
  const BoundaryMesh flat = hand_mesh({{0, 0, 2}, {1, 3, 2}, {3, 3, 2}, {4, 0, 2}}, {{0, 1, 2, 3}});
  const ElementGeometry g = element_geometry(flat, 0);
  EXPECT_NEAR(g.area, 9.0, 1e-14);  // 2x2 Gauss is exact for the linear |J| of a flat quadrilateral
  EXPECT_EQ(g.normal, (Vec{0, 0, -1}));
  EXPECT_EQ(g.centroid, (Vec{2.0, 1.5, 2.0}));
  EXPECT_DOUBLE_EQ(g.diameter, std::sqrt(18.0));

  // A warped quadrilateral: the unit square with one corner lifted by 1, the surface z = x y.
  // At the centre the tangents along x and y are (1, 0, 1/2) and (0, 1, 1/2), so
  // n = (-1/2, -1/2, 1) / sqrt(3/2).
  const BoundaryMesh warped = hand_mesh({{0, 0, 0}, {1, 0, 0}, {1, 1, 1}, {0, 1, 0}}, {{0, 1, 2, 3}});
  const ElementGeometry w = element_geometry(warped, 0);
  const double length = std::sqrt(1.5);
  EXPECT_NEAR(w.normal[0], -0.5 / length, 1e-15);  // rounding of a few operations on O(1) values
  EXPECT_NEAR(w.normal[1], -0.5 / length, 1e-15);
  EXPECT_NEAR(w.normal[2], 1.0 / length, 1e-15);
  EXPECT_EQ(w.centroid, (Vec{0.5, 0.5, 0.25}));
  // |J| = sqrt(1 + x^2 + y^2) on the unit square: the 2x2 Gauss sum, (1/4) sum over x, y in
  // (1 -+ 1/sqrt 3)/2 of |J|, is 1.2809241071215176 (to rounding); the exact area 1.2807893 (a
  // 2000^2 midpoint sum) differs by 1.3e-4, the rule's error on this smooth integrand.
  EXPECT_NEAR(w.area, 1.2809241071215176, 1e-14);
  EXPECT_NEAR(w.area, 1.2807893, 2e-4);
  EXPECT_DOUBLE_EQ(w.diameter, std::sqrt(3.0));
}

TEST_F(BemMesh, SignedVolumeOfATetrahedron) {
  BoundaryMesh mesh = tetrahedron();
  EXPECT_NEAR(signed_volume(mesh), 1.0 / 6.0, 1e-16);
  // The divergence theorem does not depend on the origin for a closed surface.
  for (std::size_t i = 0; i < mesh.coordinates.size(); ++i) mesh.coordinates[i] += 100.0 + static_cast<double>(i % 3);
  EXPECT_NEAR(signed_volume(mesh), 1.0 / 6.0, 1e-12);
  const BoundingBox box = bounding_box(mesh);
  EXPECT_EQ(box.lower, (Vec{100, 101, 102}));
  EXPECT_EQ(box.upper, (Vec{101, 102, 103}));
  EXPECT_DOUBLE_EQ(box.diagonal(), std::sqrt(3.0));
}

// ---- Checks ---------------------------------------------------------------------------------

TEST_F(BemMesh, ValidTetrahedronReport) {
  const MeshReport report = check_boundary_mesh(tetrahedron(), Solid::Inside);
  EXPECT_TRUE(report.closed);
  EXPECT_EQ(report.n_edges, 6);
  EXPECT_EQ(report.n_elements, 4);
  EXPECT_EQ(report.n_triangles, 4);
  EXPECT_NEAR(report.area, 1.5 + std::sqrt(3.0) / 2, 1e-15);
  // Every face has two vertices on different axes at distance sqrt 2, the largest.
  EXPECT_DOUBLE_EQ(report.min_diameter, std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(report.max_diameter, std::sqrt(2.0));
}

TEST_F(BemMesh, DuplicateNodesNameBothLabelsAndThePosition) {
  // Two triangles of the unit square whose diagonal ends are doubled: node 50 sits 1e-12 from
  // node 10 (1e-9 x the diagonal sqrt 2 is 1.4e-9).
  const BoundaryMesh mesh =
      hand_mesh({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {1e-12, 0, 0}}, {{0, 1, 2, -1}, {4, 2, 3, -1}});
  const std::string message = error_of([&] { check_boundary_mesh(mesh); });
  EXPECT_CONTAINS(message, "hand.msh: nodes 10 and 50 are distinct");
  EXPECT_CONTAINS(message, "at (0, 0, 0)");
  // Nodes 1e-6 apart are distinct nodes: no error.
  BoundaryMesh apart = mesh;
  apart.coordinates[12] = 1e-6;
  EXPECT_NO_THROW(check_boundary_mesh(apart));
  // A duplicate in a large mesh is found as well (the sphere's last node moved onto its first).
  BoundaryMesh large = sphere(1.0, 40, ElementShape::Triangle);
  const Index last = large.n_nodes() - 1;
  for (int d = 0; d < 3; ++d) large.coordinates[3 * last + d] = large.coordinates[d] + 1e-11;
  EXPECT_CONTAINS(error_of([&] { check_boundary_mesh(large); }), str("nodes 1 and ", last + 1, " are distinct"));
}

TEST_F(BemMesh, DegenerateElements) {
  // A repeated vertex.
  const BoundaryMesh repeated = hand_mesh({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}}, {{0, 1, 0, -1}});
  std::string message = error_of([&] { check_boundary_mesh(repeated); });
  EXPECT_CONTAINS(message, "hand.msh: element 100 repeats node 10");
  // Collinear vertices: no area.
  const BoundaryMesh collinear = hand_mesh({{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}, {{0, 1, 2, -1}});
  message = error_of([&] { check_boundary_mesh(collinear); });
  EXPECT_CONTAINS(message, "hand.msh: element 100 is degenerate");
  EXPECT_CONTAINS(message, "vertices 10, 20, 30 are collinear");
  // Nearly collinear: area 1e-13 x diameter^2 is below the limit, 1e-10 above it.
  BoundaryMesh sliver = hand_mesh({{0, 0, 0}, {1, 0, 0}, {0.5, 2e-13, 0}}, {{0, 1, 2, -1}});
  EXPECT_CONTAINS(error_of([&] { check_boundary_mesh(sliver); }), "element 100 is degenerate");
  sliver.coordinates[7] = 2e-10;
  EXPECT_NO_THROW(check_boundary_mesh(sliver));
  // A concave quadrilateral: vertex 30 pushed inside.
  const BoundaryMesh concave = hand_mesh({{0, 0, 0}, {2, 0, 0}, {0.5, 0.5, 0}, {0, 2, 0}}, {{0, 1, 2, 3}});
  message = error_of([&] { check_boundary_mesh(concave); });
  EXPECT_CONTAINS(message, "hand.msh: element 100 (a quadrilateral with vertices 10, 20, 30, 40) is folded or "
                           "concave at node 30");
  // A folded (bow-tie) quadrilateral.
  const BoundaryMesh folded = hand_mesh({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}, {{0, 1, 2, 3}});
  EXPECT_CONTAINS(error_of([&] { check_boundary_mesh(folded); }), "is folded or concave");
}

TEST_F(BemMesh, NonManifoldEdge) {
  // Three triangles on the edge 10-20 (a book of three pages).
  const BoundaryMesh mesh = hand_mesh({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}},
                                      {{0, 1, 2, -1}, {1, 0, 3, -1}, {0, 1, 4, -1}});
  const std::string message = error_of([&] { check_boundary_mesh(mesh); });
  EXPECT_CONTAINS(message, "hand.msh: the edge between nodes 10 and 20 is shared by 3 elements (100, 200, 300)");
}

TEST_F(BemMesh, InconsistentOrientationNamesBothElementsAndTheEdge) {
  // Elements 100 and 200 both run 20 -> 30.
  const BoundaryMesh mesh =
      hand_mesh({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}, {{0, 1, 2, -1}, {3, 1, 2, -1}});
  const std::string message = error_of([&] { check_boundary_mesh(mesh); });
  EXPECT_CONTAINS(message, "hand.msh: elements 100 and 200 both run their shared edge from node 20 to node 30");
  EXPECT_CONTAINS(message, "inconsistent orientation");
  // One element of the tetrahedron flipped.
  BoundaryMesh tet = tetrahedron();
  std::swap(tet.connectivity[9], tet.connectivity[10]);  // element 300: 1 2 3 -> 1 3 2
  EXPECT_CONTAINS(error_of([&] { check_boundary_mesh(tet); }), "elements 100 and 300 both run their shared edge");
}

TEST_F(BemMesh, OrientationAgainstTheDeclaredSolid) {
  const BoundaryMesh body = sphere(1.0, 2);
  BoundaryMesh cavity = body;
  flip_orientation(cavity);
  EXPECT_NO_THROW(check_boundary_mesh(body, Solid::Inside));
  EXPECT_NO_THROW(check_boundary_mesh(cavity, Solid::Outside));
  std::string message = error_of([&] { check_boundary_mesh(cavity, Solid::Inside); });
  EXPECT_CONTAINS(message, "sphere(radius=1, n=2, quadrilaterals): the solid was declared inside");
  EXPECT_CONTAINS(message, "they point inward");
  message = error_of([&] { check_boundary_mesh(body, Solid::Outside); });
  EXPECT_CONTAINS(message, "declared outside the mesh (Solid::Outside, a cavity)");
  EXPECT_CONTAINS(message, "they point outward");
  EXPECT_TRUE(log::take_warnings().empty());

  // A closed mesh declared Open: a warning, no error.
  EXPECT_NO_THROW(check_boundary_mesh(body, Solid::Open));
  const std::vector<std::string> warnings = log::take_warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_CONTAINS(warnings[0], "the mesh is closed");
  EXPECT_CONTAINS(warnings[0], "declared Solid::Open");

  // An open mesh declared Inside or Outside: an error naming a rim edge.
  const BoundaryMesh patch = halfspace_patch(2.0, 2.0, 2, 2);
  message = error_of([&] { check_boundary_mesh(patch, Solid::Inside); });
  EXPECT_CONTAINS(message, "but the mesh is open: 8 edges belong to one element only (first: the edge from node 1 "
                           "to node 2 of element 1)");
  EXPECT_CONTAINS(error_of([&] { check_boundary_mesh(patch, Solid::Outside); }), "Declare Solid::Open");

  // A closed surface enclosing nothing: one triangle twice, back to back.
  const BoundaryMesh sheet = hand_mesh({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {{0, 1, 2, -1}, {0, 2, 1, -1}});
  EXPECT_TRUE(check_boundary_mesh(sheet).closed);
  EXPECT_CONTAINS(error_of([&] { check_boundary_mesh(sheet, Solid::Inside); }), "encloses no volume");
}

TEST_F(BemMesh, StructuralErrors) {
  BoundaryMesh mesh = tetrahedron();
  mesh.connectivity[5] = 7;
  EXPECT_CONTAINS(error_of([&] { check_boundary_mesh(mesh); }),
                  "hand.msh: element 200 refers to node index 7 (vertex 1) outside 0..3");
  mesh = tetrahedron();
  mesh.connectivity[3] = -2;
  EXPECT_CONTAINS(error_of([&] { check_boundary_mesh(mesh); }), "(a triangle's 4th entry is -1)");
  mesh = tetrahedron();
  mesh.element_labels.pop_back();
  EXPECT_CONTAINS(error_of([&] { check_boundary_mesh(mesh); }), "3 element labels for 4 elements");
  mesh = tetrahedron();
  mesh.node_labels[3] = 20;
  EXPECT_CONTAINS(error_of([&] { check_boundary_mesh(mesh); }), "node label 20 is used by two nodes");
  mesh = tetrahedron();
  mesh.element_labels[1] = 100;
  EXPECT_CONTAINS(error_of([&] { check_boundary_mesh(mesh); }), "element label 100 is used by two elements");
  mesh = tetrahedron();
  mesh.coordinates[4] = std::nan("");
  EXPECT_CONTAINS(error_of([&] { check_boundary_mesh(mesh); }), "node 20 has a coordinate that is not finite");
  mesh = tetrahedron();
  mesh.element_sets["top"] = {4};
  EXPECT_CONTAINS(error_of([&] { check_boundary_mesh(mesh); }), "element set 'top' holds element index 4");
  mesh = tetrahedron();
  mesh.coordinates.push_back(1.0);
  EXPECT_CONTAINS(error_of([&] { check_boundary_mesh(mesh); }), "13 coordinates, not 3 per node");
}

TEST_F(BemMesh, UnusedNodesAreAWarning) {
  BoundaryMesh mesh = tetrahedron();
  mesh.coordinates.insert(mesh.coordinates.end(), {5.0, 5.0, 5.0});
  mesh.node_labels.push_back(77);
  EXPECT_NO_THROW(check_boundary_mesh(mesh, Solid::Inside));
  const std::vector<std::string> warnings = log::take_warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_CONTAINS(warnings[0], "1 node is used by no element (first: node 77)");
}

TEST_F(BemMesh, WavelengthNamesTheWorstElement) {
  // 1 m cells (diameter sqrt 2); the last corner node pulled out enlarges the last element only.
  BoundaryMesh mesh = halfspace_patch(4.0, 4.0, 4, 4);
  const Index corner = mesh.n_nodes() - 1;
  mesh.coordinates[3 * corner] = 3.0;
  mesh.coordinates[3 * corner + 1] = 3.0;  // the last cell spans (1, 1) to (3, 3): diameter 2 sqrt 2
  WavelengthReport report = check_wavelength(mesh, 40.0, 10.0);
  EXPECT_EQ(report.element, 15);
  EXPECT_EQ(report.label, 16);
  EXPECT_DOUBLE_EQ(report.diameter, 2 * std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(report.elements_per_wavelength, 40.0 / (2 * std::sqrt(2.0)));  // 14.1
  EXPECT_TRUE(report.sufficient);
  EXPECT_TRUE(report.message.empty());
  report = check_wavelength(mesh, 20.0, 10.0);  // 7.1 per wavelength
  EXPECT_FALSE(report.sufficient);
  EXPECT_CONTAINS(report.message,
                  "halfspace_patch(lx=4, ly=4, nx=4, ny=4, quadrilaterals): element 16 is 2.828 m across: 7.071 elements "
                  "per shear wavelength (20 m)");
  EXPECT_CONTAINS(report.message, "where 10 are asked for");
  // Exactly the minimum is enough: cells of 1 x 0.75 have diameter 1.25, exactly.
  const WavelengthReport exact = check_wavelength(halfspace_patch(4.0, 3.0, 4, 4), 12.5, 10.0);
  EXPECT_EQ(exact.diameter, 1.25);
  EXPECT_EQ(exact.elements_per_wavelength, 10.0);
  EXPECT_TRUE(exact.sufficient);
  EXPECT_CONTAINS(error_of([&] { check_wavelength(mesh, 0.0, 10.0); }), "the shear wavelength must be positive");
  mesh.connectivity[2] = 99;  // arrays are checked before any geometry is computed
  EXPECT_CONTAINS(error_of([&] { check_wavelength(mesh, 20.0, 10.0); }), "element 1 refers to node index 99");
}

TEST_F(BemMesh, LargeMeshIsCheckedInLinearTime) {
  // 10^5 elements: a pairwise search would take minutes here, hashing well under a second.
  const BoundaryMesh mesh = sphere(1.0, 130, ElementShape::Quadrilateral);
  ASSERT_EQ(mesh.n_elements(), 101400);
  const MeshReport report = check_boundary_mesh(mesh, Solid::Inside);
  EXPECT_TRUE(report.closed);
  EXPECT_EQ(report.n_edges, 2 * mesh.n_elements());
}

// ---- From a Mesh ----------------------------------------------------------------------------

TEST_F(BemMesh, FromASurfaceMesh) {
  // Two blocks, quads then triangles: the unit square x in [0, 1] at z = 0 as one quad (label 7)
  // and the square above it at z = 1 as two triangles (labels 3, 5), labels from a file.
  Mesh mesh(3);
  for (int i = 0; i < 8; ++i) {
    const double x[3] = {static_cast<double>(i % 2), static_cast<double>((i / 2) % 2), static_cast<double>(i / 4)};
    mesh.add_node(1000 + i, x);
  }
  ElementBlock& quads = mesh.block_for(ElementType::Quad4);
  quads.connectivity = {0, 1, 3, 2};
  quads.labels = {7};
  ElementBlock& triangles = mesh.block_for(ElementType::Tri3);
  triangles.connectivity = {4, 5, 7, 4, 7, 6};
  triangles.labels = {3, 5};
  mesh.element_sets["roof"] = {1, 2};
  mesh.validate_surface("two.msh");
  const BoundaryMesh boundary = boundary_mesh(mesh, "two.msh");
  EXPECT_EQ(boundary.source, "two.msh");
  EXPECT_EQ(boundary.n_elements(), 3);
  EXPECT_EQ(boundary.connectivity, (std::vector<Index>{0, 1, 3, 2, 4, 5, 7, -1, 4, 7, 6, -1}));
  EXPECT_EQ(boundary.n_vertices(0), 4);
  EXPECT_EQ(boundary.n_vertices(2), 3);
  EXPECT_EQ(boundary.element_labels, (std::vector<Index>{7, 3, 5}));
  EXPECT_EQ(boundary.node_labels[7], 1007);
  EXPECT_EQ(boundary.coordinates, mesh.coordinates);
  EXPECT_EQ(boundary.element_sets.at("roof"), (std::vector<Index>{1, 2}));

  // Refused: a 2D mesh, a volume element type, labels beyond Index.
  Mesh planar(2);
  EXPECT_CONTAINS(error_of([&] { boundary_mesh(planar, "flat.msh"); }), "flat.msh: a 2D mesh");
  Mesh volume(3);
  volume.block_for(ElementType::Tet4).labels = {42};
  volume.blocks[0].connectivity = {0, 0, 0, 0};
  EXPECT_CONTAINS(error_of([&] { boundary_mesh(volume, "solid.msh"); }), "solid.msh: tet4 elements (first: element 42)");
  Mesh big = mesh;
  big.node_labels[2] = Label{1} << 40;
  EXPECT_CONTAINS(error_of([&] { boundary_mesh(big, "big.msh"); }), "node label 1099511627776 is beyond the range");
  // validate_surface refuses a volume element, validate a surface element.
  EXPECT_CONTAINS(error_of([&] { volume.validate_surface("solid.msh"); }), "tet4 elements in a surface 3D mesh");
  EXPECT_CONTAINS(error_of([&] { mesh.validate("two.msh"); }), "quad4 elements in a 3D mesh");
}

}  // namespace
}  // namespace tremor::bem
