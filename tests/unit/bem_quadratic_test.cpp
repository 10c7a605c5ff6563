// Second-order boundary elements: the geometry's shape functions, the quadratic field's, the
// tangent-plane free term on curved elements, the generators' curved surfaces, the checks that
// refuse a misplaced or non-conforming mid-edge node, and a Gmsh second-order surface read in.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>

#include "tremor/bem/assembly_kernels.hpp"
#include "tremor/bem/boundary_mesh.hpp"
#include "tremor/bem/generate.hpp"
#include "tremor/bem/solve.hpp"
#include "tremor/core/error.hpp"
#include "tremor/io/gmsh.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor::bem {
namespace TREMOR_TEST_FILE {

constexpr double pi = std::numbers::pi;

template <class F>
void expect_throw_with(F&& f, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing: " << what;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

// Every geometry type's shape functions: 1 at their own node and 0 at the others, summing to 1,
// derivatives matching central differences (h = 1e-6: truncation ~1e-12, rounding ~1e-10).
TEST(BemQuadratic, GeometryShapeFunctions) {
  for (const auto& [vertices, nodes] : {std::pair{3, 6}, std::pair{4, 8}, std::pair{4, 9}}) {
    for (int a = 0; a < nodes; ++a) {
      double st[2], N[9], Ns[9], Nt[9];
      geometry_node_reference(vertices, a, st);
      quadratic_shape(vertices, nodes, st[0], st[1], N, Ns, Nt);
      for (int b = 0; b < nodes; ++b) EXPECT_NEAR(N[b], a == b ? 1.0 : 0.0, 1e-15) << nodes << " " << a << " " << b;
    }
    const double s = vertices == 3 ? 0.23 : 0.31, t = vertices == 3 ? 0.41 : -0.57, h = 1e-6;
    double N[9], Ns[9], Nt[9], Np[9], Nm[9], dummy[9], dummy2[9];
    quadratic_shape(vertices, nodes, s, t, N, Ns, Nt);
    double sum = 0;
    for (int a = 0; a < nodes; ++a) sum += N[a];
    EXPECT_NEAR(sum, 1.0, 1e-14);
    quadratic_shape(vertices, nodes, s + h, t, Np, dummy, dummy2);
    quadratic_shape(vertices, nodes, s - h, t, Nm, dummy, dummy2);
    for (int a = 0; a < nodes; ++a) EXPECT_NEAR(Ns[a], (Np[a] - Nm[a]) / (2 * h), 1e-8) << nodes << " " << a;
    quadratic_shape(vertices, nodes, s, t + h, Np, dummy, dummy2);
    quadratic_shape(vertices, nodes, s, t - h, Nm, dummy, dummy2);
    for (int a = 0; a < nodes; ++a) EXPECT_NEAR(Nt[a], (Np[a] - Nm[a]) / (2 * h), 1e-8) << nodes << " " << a;
  }
}

// The quadratic field interpolates through its own (pulled) nodes and reproduces any quadratic
// function of (s, t) exactly (the 6-node and 9-node spaces hold all of them; the 8-node one all
// but s^2 t^2, so the test's s t + s^2 - 2 t^2 + ...).
TEST(BemQuadratic, FieldInterpolatesThroughItsNodes) {
  const auto f = [](double s, double t) { return 0.3 + 1.2 * s - 0.7 * t + 0.5 * s * t + s * s - 2 * t * t; };
  for (const auto& [vertices, nodes] : {std::pair{3, 6}, std::pair{4, 8}, std::pair{4, 9}}) {
    EXPECT_EQ(nodes_per_element(ElementOrder::Quadratic, vertices, nodes), nodes);
    double value[9];
    for (int a = 0; a < nodes; ++a) {
      double st[2], N[9];
      node_reference(ElementOrder::Quadratic, vertices, a, st);
      value[a] = f(st[0], st[1]);
      shape_values(ElementOrder::Quadratic, vertices, nodes, st[0], st[1], N);
      for (int b = 0; b < nodes; ++b) EXPECT_NEAR(N[b], a == b ? 1.0 : 0.0, 1e-14);
    }
    for (const auto& [s, t] : {std::pair{0.1, 0.2}, std::pair{0.0, 0.0}, std::pair{0.6, 0.35}}) {
      const double ss = vertices == 3 ? s : 2 * s - 0.4, tt = vertices == 3 ? t : 1.5 * t - 0.9;
      double N[9], sum = 0;
      shape_values(ElementOrder::Quadratic, vertices, nodes, ss, tt, N);
      for (int a = 0; a < nodes; ++a) sum += N[a] * value[a];
      EXPECT_NEAR(sum, f(ss, tt), 1e-12) << nodes;
    }
  }
}

// A flat element given as a second-order one (mid-edge nodes at the midpoints) has the flat
// element's free term: the curved form (a contour integral of 1/|q| along the edges, 8 pieces of 8
// points) against the polar one (4 arcs of 8 points). Measured 2.0e-8 apart at most: the quadratic
// nodes lie 0.11 of the element's width from its edges, where both integrands peak (the linear
// nodes' 0.21 gave the polar form 1e-6 against a 2e5-ray sum); bound 5e-8.
TEST(BemQuadratic, CurvedFreeTermOfAFlatElementIsTheFlatOne) {
  const Medium m = make_medium(2000.0, 1e8, 1e8, 0.0, 0.0);
  const GaussRule rule = gauss_rule(8);
  ElementNodes quad{};
  const double corners[4][3] = {{0, 0, 0}, {2.0, 0.1, 0}, {1.8, 1.5, 0}, {-0.2, 1.2, 0}};
  quad.n_vertices = 4;
  quad.n_nodes = 9;
  for (int a = 0; a < 4; ++a)
    for (int c = 0; c < 3; ++c) {
      quad.x[a][c] = corners[a][c];
      quad.x[4 + a][c] = 0.5 * (corners[a][c] + corners[(a + 1) % 4][c]);
      quad.x[8][c] = 0.0;
    }
  for (int a = 0; a < 4; ++a)
    for (int c = 0; c < 3; ++c) quad.x[8][c] += 0.25 * corners[a][c];
  ElementNodes straight = quad;
  straight.n_nodes = 4;
  for (int a = 0; a < 9; ++a) {
    double st[2];
    node_reference(ElementOrder::Quadratic, 4, a, st);
    Complex curved[9], flat[9];
    detail::curved_free_term(m, quad, st, rule, curved);
    detail::flat_free_term(m, straight, st, rule, flat);
    for (int k = 0; k < 9; ++k) EXPECT_LT(abs(curved[k] - flat[k]), 5e-8) << a << " " << k;
  }
}

// The generators' second-order surfaces: every node of a quadratic sphere on the sphere, its area
// and enclosed volume within 2e-3 of the sphere's at n = 4 (measured: 9-node 1.1e-4, 6-node
// 4.7e-4, 8-node 1.2e-3; the inscribed flat elements' are off by more than 1e-2), an 8-node mesh
// without centre nodes, and flip_orientation keeping it consistent.
TEST(BemQuadratic, GeneratedSecondOrderSurfaces) {
  for (const SurfaceElements kind : {SurfaceElements(ElementShape::Quadrilateral, 2),
                                     SurfaceElements(ElementShape::Triangle, 2),
                                     SurfaceElements(ElementShape::Quadrilateral, 2, true)}) {
    BoundaryMesh mesh = sphere(1.5, 4, kind);
    ASSERT_TRUE(mesh.quadratic());
    const int per = kind.shape == ElementShape::Triangle ? 6 : kind.serendipity ? 8 : 9;
    EXPECT_EQ(mesh.n_geometry_nodes(0), per);
    for (Index i = 0; i < mesh.n_nodes(); ++i) {
      const double* x = mesh.coordinates.data() + 3 * i;
      EXPECT_NEAR(std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), 1.5, 1e-14);
    }
    const MeshReport report = check_boundary_mesh(mesh, Solid::Inside);  // no unused nodes, conforming
    const double area = 4 * pi * 1.5 * 1.5, volume = 4.0 / 3.0 * pi * 1.5 * 1.5 * 1.5;
    EXPECT_LT(std::abs(report.area - area) / area, 2e-3) << mesh.source << " " << report.area;
    EXPECT_LT(std::abs(report.signed_volume - volume) / volume, 2e-3) << mesh.source << " " << report.signed_volume;
    flip_orientation(mesh);
    EXPECT_NEAR(check_boundary_mesh(mesh, Solid::Outside).signed_volume, -report.signed_volume, 1e-12);
  }
  const BoundaryMesh flat = sphere(1.5, 4);
  const double area = 4 * pi * 1.5 * 1.5;
  EXPECT_GT(std::abs(check_boundary_mesh(flat, Solid::Inside).area - area) / area, 1e-2);
  // Flat generators: the mid-edge nodes on the straight edges, areas exact.
  const MeshReport patch = check_boundary_mesh(halfspace_patch(4.0, 3.0, 4, 3, {ElementShape::Triangle, 2}));
  EXPECT_NEAR(patch.area, 12.0, 1e-12);
  EXPECT_EQ(patch.n_nodes, 9 * 7);
  const MeshReport block = check_boundary_mesh(box(2.0, 1.0, 1.5, 2, 1, 2, {ElementShape::Quadrilateral, 2, true}));
  EXPECT_NEAR(block.signed_volume, 3.0, 1e-12);
}

// Second-order checks: a mid-edge node far off its edge, neighbours that do not share their edge's
// mid-edge node, a fold, quadratic elements on a straight-sided mesh, all named.
TEST(BemQuadratic, ChecksNameTheBadNode) {
  BoundaryMesh mesh = halfspace_patch(2.0, 2.0, 2, 1, {ElementShape::Quadrilateral, 2});
  ASSERT_NO_THROW(check_boundary_mesh(mesh));
  {
    BoundaryMesh off = mesh;
    const Index mid = off.mid_nodes[0];  // edge 01 of element 1, along y = -1
    off.coordinates[3 * mid + 1] += 0.3;  // the edge is 1 long
    expect_throw_with([&] { check_boundary_mesh(off); }, "element 1's mid-edge node " + std::to_string(mid + 1));
  }
  {
    BoundaryMesh split = mesh;
    // Element 2's edge 30 is element 1's edge 12: give element 2 a node of its own there.
    split.coordinates.insert(split.coordinates.end(), {0.02, 0.0, 0.0});
    split.node_labels.push_back(split.n_nodes());
    split.mid_nodes[5 + 3] = split.n_nodes() - 1;
    expect_throw_with([&] { check_boundary_mesh(split); }, "but not its mid-edge node");
  }
  {
    BoundaryMesh folded = mesh;
    const Index centre = folded.mid_nodes[4];
    folded.coordinates[3 * centre + 2] = 0.0;
    folded.coordinates[3 * centre + 0] += 0.45;  // within a quarter of the diameter, but the map folds
    expect_throw_with([&] { check_boundary_mesh(folded); }, "folds");
  }
  const BoundaryMesh straight = halfspace_patch(2.0, 2.0, 2, 1);
  expect_throw_with([&] { first_nodes(straight, ElementOrder::Quadratic); }, "need a second-order mesh");
}

// A Gmsh second-order surface: a unit square of two 6-node triangles and, separately, one 9-node
// quadrilateral, read and converted (the quad9's lexicographic nodes back to vertices, mid-edges,
// centre); mixing orders in one file is refused naming both elements.
TEST(BemQuadratic, GmshSecondOrderSurfaces) {
  const std::string nodes9 =
      "$Nodes\n1 9 1 9\n2 1 0 9\n1\n2\n3\n4\n5\n6\n7\n8\n9\n"
      "0 0 0\n1 0 0\n1 1 0\n0 1 0\n0.5 0 0\n1 0.5 0\n0.5 1 0\n0 0.5 0\n0.5 0.5 0\n$EndNodes\n";
  const std::string head = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n";
  const std::string tri6 = head + nodes9 + "$Elements\n1 2 1 2\n2 1 9 2\n1 1 2 3 5 6 9\n2 1 3 4 9 7 8\n$EndElements\n";
  const BoundaryMesh triangles = boundary_mesh(io::read_gmsh_surface_buffer(tri6, "tri6.msh"), "tri6.msh");
  ASSERT_TRUE(triangles.quadratic());
  EXPECT_EQ(triangles.n_geometry_nodes(1), 6);
  EXPECT_NEAR(check_boundary_mesh(triangles).area, 1.0, 1e-14);
  const std::string quad9 = head + nodes9 + "$Elements\n1 1 1 1\n2 1 10 1\n7 1 2 3 4 5 6 7 8 9\n$EndElements\n";
  const BoundaryMesh quad = boundary_mesh(io::read_gmsh_surface_buffer(quad9, "quad9.msh"), "quad9.msh");
  ASSERT_EQ(quad.n_geometry_nodes(0), 9);
  const Index expected_mids[5] = {4, 5, 6, 7, 8};  // Gmsh's 5 6 7 8 9, 0-based
  for (int k = 0; k < 5; ++k) EXPECT_EQ(quad.mid_nodes[k], expected_mids[k]);
  EXPECT_NEAR(check_boundary_mesh(quad).area, 1.0, 1e-14);
  const std::string mixed =
      head + nodes9 + "$Elements\n2 2 1 2\n2 1 9 1\n1 1 2 3 5 6 9\n2 1 2 1\n2 1 3 4\n$EndElements\n";
  expect_throw_with([&] { boundary_mesh(io::read_gmsh_surface_buffer(mixed, "mixed.msh"), "mixed.msh"); },
                    "straight-sided and second-order elements mixed (element 2 is a tri3, element 1 a tri6");
}

}  // namespace
}  // namespace tremor::bem
