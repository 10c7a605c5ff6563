// Consistent nodal forces of surface loads (fem/faces.hpp): the textbook distributions on flat
// faces, totals equal to pressure or traction times area on flat and curved faces, and the
// forces the explicit solver's loading builds from a model (thickness, constraints, time).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <numbers>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/explicit/loading.hpp"
#include "tremor/fem/faces.hpp"
#include "tremor/fem/loads.hpp"
#include "tremor/fem/quadrature.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// A flat face of `type` in 3D: the reference face scaled by (sx, sy), in the plane z = 0 when
// lying in 3D, or a straight edge of length sx along x in 2D (then sy is unused).
std::vector<double> flat_face(FaceType type, int order, double sx, double sy) {
  const int dim = face_dimension(type) + 1;
  std::vector<double> x;
  for (int a = 0; a < nodes_per_face(type, order); ++a) {
    double xi[2];
    fem::face_node(type, order, a, xi);
    x.push_back(sx * xi[0]);
    if (dim == 3) {
      x.push_back(sy * xi[1]);
      x.push_back(0.0);
    } else {
      x.push_back(0.0);
    }
  }
  return x;
}

// Sum over the face nodes of component c.
double total(const std::vector<double>& forces, int dim, int c) {
  double sum = 0.0;
  for (std::size_t k = static_cast<std::size_t>(c); k < forces.size(); k += static_cast<std::size_t>(dim))
    sum += forces[k];
  return sum;
}

// Textbook consistent loads of a uniform traction (Zienkiewicz & Taylor vol. 1, the "equivalent
// nodal forces" of a uniform edge or face load): line2 1/2 1/2; line3 1/6 1/6 2/3 (ends, middle);
// tri3 1/3 each; tri6 0 at the corners, 1/3 at the mid-edges; quad4 1/4 each; quad8 -1/12 at the
// corners, 1/3 at the mid-edges; each times the force t * area.
TEST(FemFaces, TextbookDistributionsOfAUniformTraction) {
  struct Case {
    FaceType type;
    std::vector<double> share;
  };
  const Case cases[] = {
      {FaceType::Line2, {0.5, 0.5}},
      {FaceType::Line3, {1.0 / 6.0, 1.0 / 6.0, 2.0 / 3.0}},
      {FaceType::Tri3, {1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0}},
      {FaceType::Tri6, {0.0, 0.0, 0.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0}},
      {FaceType::Quad4, {0.25, 0.25, 0.25, 0.25}},
      {FaceType::Quad8, {-1.0 / 12, -1.0 / 12, -1.0 / 12, -1.0 / 12, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0}},
  };
  const std::array<double, 3> traction{3.0e6, -1.0e6, 2.0e6};
  for (const Case& c : cases) {
    const int dim = face_dimension(c.type) + 1;
    const std::vector<double> x = flat_face(c.type, 1, 0.02, 0.03);
    const double area = fem::face_area(c.type, 1, dim, x);
    // Reference areas: line 2, triangle 1/2, square 4, scaled by 0.02 (and 0.03).
    const double expected_area = dim == 2                                                 ? 2 * 0.02
                                 : (c.type == FaceType::Tri3 || c.type == FaceType::Tri6) ? 0.5 * 0.02 * 0.03
                                                                                          : 4 * 0.02 * 0.03;
    EXPECT_NEAR(area, expected_area, 1e-12 * expected_area) << face_type_name(c.type);  // rounding
    std::vector<double> forces;
    fem::traction_forces(c.type, 1, dim, x, traction, forces);
    // Exact rules on an affine face: rounding of a few dozen operations, relative to the force.
    const double rounding = 1e-13 * 5.0e6 * area;
    for (std::size_t a = 0; a < c.share.size(); ++a)
      for (int d = 0; d < dim; ++d) {
        const double expected = c.share[a] * area * traction[static_cast<std::size_t>(d)];
        EXPECT_NEAR(forces[a * static_cast<std::size_t>(dim) + static_cast<std::size_t>(d)], expected, rounding)
            << face_type_name(c.type) << " node " << a << " component " << d;
      }
    // A pressure acts against the outward normal: +z here (or -y for a line from -x to +x, whose
    // element lies on its +y side), so the force is -p area along it, shared the same way.
    fem::pressure_forces(c.type, 1, dim, x, 5.0e6, forces);
    const int normal_axis = dim == 2 ? 1 : 2;
    const double sign = dim == 2 ? 1.0 : -1.0;  // -p n, n = -y in 2D, +z in 3D
    for (std::size_t a = 0; a < c.share.size(); ++a)
      EXPECT_NEAR(forces[a * static_cast<std::size_t>(dim) + static_cast<std::size_t>(normal_axis)],
                  sign * 5.0e6 * c.share[a] * area, rounding)
          << face_type_name(c.type) << " node " << a;
  }
}

// GLL faces of every order: a uniform load's total is traction times area, shared symmetrically.
TEST(FemFaces, GllFacesCarryTheTotalLoadSymmetrically) {
  for (int order = 1; order <= 8; ++order)
    for (FaceType type : {FaceType::LineGLL, FaceType::QuadGLL}) {
      const int dim = face_dimension(type) + 1;
      const std::vector<double> x = flat_face(type, order, 0.5, 0.25);
      const double area = dim == 2 ? 1.0 : 0.5;
      std::vector<double> forces;
      const std::array<double, 3> traction{1.0, 2.0, -3.0};
      fem::traction_forces(type, order, dim, x, traction, forces);
      for (int d = 0; d < dim; ++d)
        EXPECT_NEAR(total(forces, dim, d), area * traction[static_cast<std::size_t>(d)], 1e-13)
            << face_type_name(type, order);
      // Node 0 and the last node are mirror images.
      const std::size_t last = forces.size() - static_cast<std::size_t>(dim);
      EXPECT_NEAR(forces[0], forces[last], 1e-14) << face_type_name(type, order);
    }
}

// A pressure on a curved face: -p int n dA depends only on the face's boundary (it is the
// vector area), so its total is known exactly even where the area is not.
TEST(FemFaces, PressureOnCurvedFacesTotalsTheVectorArea) {
  // 2D: a line3 arc through (R, 0), (R cos 45, R sin 45), (0, R), the element inside (x, y < R).
  // int n ds over a curve from a to b, n = (dy, -dx) / ds, is (b_y - a_y, a_x - b_x).
  const double R = 0.05, p = 2.0e6;
  const double s = std::sqrt(0.5);
  const std::vector<double> arc = {R, 0.0, 0.0, R, R * s, R * s};
  std::vector<double> forces;
  fem::pressure_forces(FaceType::Line3, 1, 2, arc, p, forces);
  // Exact (polynomial integrand); rounding on 1e5 N.
  EXPECT_NEAR(total(forces, 2, 0), -p * R, 1e-9);
  EXPECT_NEAR(total(forces, 2, 1), -p * R, 1e-9);
  // The arc's true length is pi R / 2; the parabola through three points of it differs by the
  // interpolation error of a 90 degree arc (measured -2.0e-3 relative): within 0.64% (0.01 R).
  EXPECT_NEAR(fem::face_area(FaceType::Line3, 1, 2, arc), std::numbers::pi * R / 2, 0.01 * R);

  // 3D: a quarter cylinder of radius R and length L (axis z) as one GLL face of order 4, nodes
  // on the cylinder at the GLL points of the angle. Its vector area is R L (1, 1, 0): the
  // projections of its boundary onto the yz and xz planes are R x L rectangles whatever the
  // interpolation between the boundary nodes.
  const double L = 0.08;
  for (int order : {2, 4, 6}) {
    const int n = order + 1;
    std::vector<double> x;
    for (int b = 0; b < n; ++b)
      for (int a = 0; a < n; ++a) {
        double xi[2];
        fem::face_node(FaceType::QuadGLL, order, a + n * b, xi);
        // Angle from 0 to pi/2 as xi_1 runs from -1 to 1, z from 0 to L: dx/dxi_1 x dx/dxi_2
        // points away from the axis, so the element lies inside the cylinder.
        const double theta = std::numbers::pi / 4 * (1.0 + xi[0]);
        x.insert(x.end(), {R * std::cos(theta), R * std::sin(theta), L * 0.5 * (1.0 + xi[1])});
      }
    fem::pressure_forces(FaceType::QuadGLL, order, 3, x, p, forces);
    // Exact rule for a polynomial integrand: rounding on 1e4 N.
    EXPECT_NEAR(total(forces, 3, 0), -p * R * L, 1e-8) << order;
    EXPECT_NEAR(total(forces, 3, 1), -p * R * L, 1e-8) << order;
    EXPECT_NEAR(total(forces, 3, 2), 0.0, 1e-8) << order;
    // A traction: the total is t times the face's area, which approaches pi R L / 2 as fast as
    // the GLL interpolation of the arc converges (measured relative errors -5.6e-3, -7.3e-7 and
    // -1.8e-11 for orders 2, 4, 6); the bounds leave a margin of 2 to 50 over them.
    const std::array<double, 3> traction{0.0, 0.0, 1.5e6};
    fem::traction_forces(FaceType::QuadGLL, order, 3, x, traction, forces);
    const double area = fem::face_area(FaceType::QuadGLL, order, 3, x);
    EXPECT_NEAR(total(forces, 3, 2), traction[2] * area, 1e-8) << order;
    const double exact_area = std::numbers::pi * R * L / 2;
    const double tolerance = order == 2 ? 1e-2 : order == 4 ? 5e-6 : 1e-9;
    EXPECT_NEAR(area / exact_area, 1.0, tolerance) << order;
  }
}

TEST(FemFaces, DegenerateFaceIsAnError) {
  const std::vector<double> collapsed = {0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0};  // collinear tri3
  std::vector<double> forces;
  try {
    fem::pressure_forces(FaceType::Tri3, 1, 3, collapsed, 1.0, forces);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("degenerate tri3 face"), std::string::npos) << error.what();
  }
}

// ------------------------------------------------------------------- through the solver's loading

Model plate(ElementType type, double thickness) {
  Model model;
  model.source = "plate";
  model.mesh = generate_rectangle({0.0, 0.0}, {0.04, 0.01}, {8, 2}, type);
  model.materials.push_back(Material::from_youngs("steel", 210e9, 0.3, 7850.0));
  model.sections.push_back({"all", "steel", Formulation::PlaneStrain, thickness});
  return model;
}

SurfaceLoad pressure_on(const Mesh& mesh, const std::string& surface, double p) {
  SurfaceLoad load;
  load.surface = surface;
  load.faces = mesh.face_sets.at(surface);
  load.pressure = p;
  load.origin = "test load";
  return load;
}

TEST(FemFaces, SurfaceForcesOfAModelCarryTheSectionThickness) {
  for (ElementType type : {ElementType::Quad4, ElementType::Tri6, ElementType::Quad8}) {
    Model model = plate(type, 0.002);
    // xmax: x = 0.04, height 0.01, outward normal +x; the pressure pushes along -x.
    const SurfaceLoad load = pressure_on(model.mesh, "xmax", 3.0e6);
    const auto forces = fem::surface_forces(model, load);
    double fx = 0.0, fy = 0.0;
    for (const auto& [dof, f] : forces) {
      const Index node = dof / 2;
      EXPECT_NEAR(model.mesh.node(node)[0], 0.04, 1e-15) << "a force off the loaded side";
      (dof % 2 == 0 ? fx : fy) += f;
    }
    // p * height * thickness = 3e6 * 0.01 * 0.002 = 60 N; rounding only.
    EXPECT_NEAR(fx, -60.0, 1e-10) << element_name(type);
    EXPECT_NEAR(fy, 0.0, 1e-10) << element_name(type);
  }
}

TEST(FemFaces, LoadingAppliesSurfaceLoadsWithTheirTimeFunctionAndDropsConstrainedDofs) {
  Model model = plate(ElementType::Quad4, 1.0);
  SurfaceLoad traction;
  traction.surface = "ymax";
  traction.faces = model.mesh.face_sets.at("ymax");
  traction.traction = {1.0e5, 0.0, 0.0};  // shear along +x on the top, 0.04 m long
  traction.signal = Signal::ricker(1e6);
  traction.delay = 0.2e-6;
  traction.origin = "test traction";
  model.surface_loads.push_back(traction);
  // Hold the x displacement of the corner (0.04, 0.01): its load is dropped.
  const Index corner = model.mesh.n_nodes() - 1;
  model.fixed.push_back({{corner}, 0, 0.0, "", "hold"});
  model.validate();
  const explicit_fe::Loading loading(model);
  // Top row: 9 nodes, x components, the held one dropped.
  ASSERT_EQ(loading.loaded_dofs().size(), 8u);
  for (Index dof : loading.loaded_dofs()) EXPECT_EQ(dof % 2, 0);
  EXPECT_DOUBLE_EQ(loading.highest_frequency(), Signal::ricker(1e6).highest_frequency());
  std::vector<double> f(8);
  for (double t : {0.0, 1.0e-6, 1.7e-6}) {
    loading.forces(t, f);
    double sum = 0.0;
    for (double v : f) sum += v;
    // 1e5 Pa * 0.04 m = 4000 N, less the corner's half element (0.005 m / 2 of it: 250 N).
    EXPECT_NEAR(sum, 3750.0 * traction.signal->value(t - 0.2e-6), 1e-9) << t;
  }
}

// A face of `type` on a curved surface: the reference face's node (xi, eta) mapped to a cylinder of
// radius 1 (3D: angle 0.6 xi, height 0.7 eta; 2D: the arc of angle 0.6 xi), with a twist (0.1 xi eta
// in z) so that g varies in every direction. Triangles take (xi, eta) on the unit triangle.
std::vector<double> curved_face(FaceType type, int order) {
  const int dim = face_dimension(type) + 1;
  std::vector<double> x;
  for (int a = 0; a < nodes_per_face(type, order); ++a) {
    double xi[2] = {0.0, 0.0};
    fem::face_node(type, order, a, xi);
    const double angle = 0.6 * xi[0];
    x.push_back(std::cos(angle));
    x.push_back(std::sin(angle));
    if (dim == 3) x.push_back(0.7 * xi[1] + 0.1 * xi[0] * xi[1]);
  }
  return x;
}

// int N_a N_b g by a rule of the test's own: 16 Gauss points per direction (exact to degree 31 on
// lines and quadrilaterals: every face type's N_a N_b g up to GLL order 7), or for triangles the
// collapsed square (Duffy) with 16 x 16 points, exact to degree 30 there.
std::vector<double> coupling_by_brute_force(FaceType type, int order, const std::vector<double>& x) {
  const int fd = face_dimension(type), dim = fd + 1, n = nodes_per_face(type, order);
  double t[max_points_1d], w[max_points_1d];
  gauss_legendre(16, t, w);
  std::vector<double> C(static_cast<std::size_t>(n * n * dim), 0.0), N(static_cast<std::size_t>(n)),
      dN(static_cast<std::size_t>(n * fd));
  const bool triangle = type == FaceType::Tri3 || type == FaceType::Tri6;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < (fd == 2 ? 16 : 1); ++j) {
      double xi[2] = {t[i], fd == 2 ? t[j] : 0.0}, weight = w[i] * (fd == 2 ? w[j] : 1.0);
      if (triangle) {  // (u, v) in [-1, 1]^2 -> xi = (1 + u)/2, eta = (1 - xi)(1 + v)/2
        const double a = 0.5 * (1.0 + t[i]);
        xi[0] = a;
        xi[1] = (1.0 - a) * 0.5 * (1.0 + t[j]);
        weight *= 0.25 * (1.0 - a);
      }
      fem::face_shape(type, order, xi, N.data(), dN.data());
      double d[2][3] = {};
      for (int a = 0; a < n; ++a)
        for (int k = 0; k < fd; ++k)
          for (int c = 0; c < dim; ++c)
            d[k][c] += dN[static_cast<std::size_t>(a * fd + k)] * x[static_cast<std::size_t>(a * dim + c)];
      double g[3];
      if (dim == 2) {
        g[0] = d[0][1];
        g[1] = -d[0][0];
      } else {
        g[0] = d[0][1] * d[1][2] - d[0][2] * d[1][1];
        g[1] = d[0][2] * d[1][0] - d[0][0] * d[1][2];
        g[2] = d[0][0] * d[1][1] - d[0][1] * d[1][0];
      }
      for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b)
          for (int c = 0; c < dim; ++c)
            C[static_cast<std::size_t>((a * n + b) * dim + c)] +=
                weight * N[static_cast<std::size_t>(a)] * N[static_cast<std::size_t>(b)] * g[c];
    }
  return C;
}

// The fluid-solid coupling C_ab = int N_a N_b n dA on flat linear faces: the face's mass matrix
// times its normal, the textbook consistent mass (line2 L (2 1; 1 2) / 6, tri3 A (1 + delta_ab) / 12,
// a rectangle's quad4 A (4 2 1 2) / 36 by the number of coordinates two nodes differ in).
TEST(FemFaces, CouplingOfFlatLinearFacesIsTheFaceMassTimesItsNormal) {
  std::vector<double> C;
  // line2 from (0, 0) to (2, 0): g = (dy, -dx)/dxi: n = (0, -1), L = 2.
  fem::coupling_matrix(FaceType::Line2, 1, 2, std::vector<double>{0.0, 0.0, 2.0, 0.0}, false, C);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      EXPECT_NEAR(C[static_cast<std::size_t>((a * 2 + b) * 2)], 0.0, 1e-15);
      EXPECT_NEAR(C[static_cast<std::size_t>((a * 2 + b) * 2 + 1)], -2.0 * (a == b ? 2.0 : 1.0) / 6.0, 1e-15);
    }
  // tri3 (0,0,0), (3,0,0), (0,2,0): A = 3, n = +z.
  fem::coupling_matrix(FaceType::Tri3, 1, 3, std::vector<double>{0, 0, 0, 3, 0, 0, 0, 2, 0}, false, C);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      EXPECT_NEAR(C[static_cast<std::size_t>((a * 3 + b) * 3 + 2)], 3.0 * (a == b ? 2.0 : 1.0) / 12.0, 1e-14);
      EXPECT_NEAR(C[static_cast<std::size_t>((a * 3 + b) * 3)], 0.0, 1e-15);
    }
  // quad4, a 2 x 1 rectangle in z = 0 (flat_face: the reference square scaled by 1 and 0.5): A = 2.
  const std::vector<double> x = flat_face(FaceType::Quad4, 1, 1.0, 0.5);
  fem::coupling_matrix(FaceType::Quad4, 1, 3, x, false, C);
  const double share[3] = {4.0, 2.0, 1.0};
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      const int differ = (x[static_cast<std::size_t>(3 * a)] != x[static_cast<std::size_t>(3 * b)]) +
                         (x[static_cast<std::size_t>(3 * a + 1)] != x[static_cast<std::size_t>(3 * b + 1)]);
      EXPECT_NEAR(C[static_cast<std::size_t>((a * 4 + b) * 3 + 2)], 2.0 * share[differ] / 36.0, 1e-14) << a << " " << b;
    }
}

// On curved faces of every type the rule is exact: C against the test's own 16-point integration
// (round-off only: 1e-13 of the largest entry), symmetric in a and b, and its row sums are the
// pressure loads' int N_a n dA (fem::pressure_forces with p = -1, by its own rule).
TEST(FemFaces, CouplingIsExactOnCurvedFaces) {
  const struct {
    FaceType type;
    int order;
  } cases[] = {{FaceType::Line2, 1},   {FaceType::Line3, 2}, {FaceType::LineGLL, 5}, {FaceType::Tri3, 1},
               {FaceType::Tri6, 2},    {FaceType::Quad4, 1}, {FaceType::Quad8, 2},   {FaceType::QuadGLL, 4},
               {FaceType::QuadGLL, 7}};
  for (const auto& c : cases) {
    SCOPED_TRACE(face_type_name(c.type, c.order));
    const int dim = face_dimension(c.type) + 1, n = nodes_per_face(c.type, c.order);
    const std::vector<double> x = curved_face(c.type, c.order);
    std::vector<double> C, loads;
    fem::coupling_matrix(c.type, c.order, dim, x, false, C);
    const std::vector<double> reference = coupling_by_brute_force(c.type, c.order, x);
    double largest = 0.0;
    for (const double v : reference) largest = std::max(largest, std::abs(v));
    ASSERT_EQ(C.size(), reference.size());
    for (std::size_t k = 0; k < C.size(); ++k) EXPECT_NEAR(C[k], reference[k], 1e-13 * largest) << k;
    fem::pressure_forces(c.type, c.order, dim, x, -1.0, loads);
    for (int a = 0; a < n; ++a)
      for (int k = 0; k < dim; ++k) {
        double row = 0.0;
        for (int b = 0; b < n; ++b) {
          row += C[static_cast<std::size_t>((a * n + b) * dim + k)];
          EXPECT_NEAR(C[static_cast<std::size_t>((a * n + b) * dim + k)],
                      C[static_cast<std::size_t>((b * n + a) * dim + k)], 1e-14 * largest);
        }
        EXPECT_NEAR(row, loads[static_cast<std::size_t>(a * dim + k)], 1e-13 * largest) << a << " " << k;
      }
  }
}

// The nodal (GLL) coupling of a spectral element's face: diagonal; on a flat face its diagonal is
// the consistent coupling's row sums (the GLL rule exact for N_a g there); refused off GLL faces.
TEST(FemFaces, NodalCouplingOfGllFacesIsDiagonal) {
  for (const FaceType type : {FaceType::LineGLL, FaceType::QuadGLL}) {
    const int order = 3, dim = face_dimension(type) + 1, n = nodes_per_face(type, order);
    const std::vector<double> x = flat_face(type, order, 0.3, 0.2);
    std::vector<double> nodal, consistent;
    fem::coupling_matrix(type, order, dim, x, true, nodal);
    fem::coupling_matrix(type, order, dim, x, false, consistent);
    double largest = 0.0;
    for (const double v : consistent) largest = std::max(largest, std::abs(v));
    for (int a = 0; a < n; ++a)
      for (int k = 0; k < dim; ++k) {
        double row = 0.0;
        for (int b = 0; b < n; ++b) {
          row += consistent[static_cast<std::size_t>((a * n + b) * dim + k)];
          if (b != a) {
            EXPECT_NEAR(nodal[static_cast<std::size_t>((a * n + b) * dim + k)], 0.0, 1e-15 * largest);
          }
        }
        EXPECT_NEAR(nodal[static_cast<std::size_t>((a * n + a) * dim + k)], row, 1e-13 * largest);
      }
  }
  std::vector<double> C;
  EXPECT_THROW(fem::coupling_matrix(FaceType::Quad8, 2, 3, flat_face(FaceType::Quad8, 2, 1.0, 1.0), true, C), Error);
}

// A piston's share of a face (fem::disc_weights): a disc covering the face gives its consistent
// weights int N_a dA exactly (the face's own rule); a disc inside a flat face gives the disc's area
// pi r^2 and its centroid, a circle cutting a line the chord's length, to the 1e-4 of a face the
// refinement at the edge promises.
TEST(FemFaces, DiscWeightsIntegrateThePartOfAFaceWithinTheRadius) {
  const struct {
    FaceType type;
    int order;
  } faces[] = {{FaceType::Line2, 1}, {FaceType::Line3, 2}, {FaceType::LineGLL, 4}, {FaceType::Tri3, 1},
               {FaceType::Tri6, 2},  {FaceType::Quad4, 1}, {FaceType::Quad8, 2},  {FaceType::QuadGLL, 4}};
  for (const auto& face : faces) {
    const int dim = face_dimension(face.type) + 1, n = nodes_per_face(face.type, face.order);
    const std::vector<double> x = flat_face(face.type, face.order, 1.0, 1.0);
    const std::vector<double> centre(static_cast<std::size_t>(dim), 0.0);
    std::vector<double> weights, forces;
    fem::disc_weights(face.type, face.order, dim, x, centre, 10.0, weights);
    std::array<double, 3> up{0.0, 0.0, 0.0};
    up[static_cast<std::size_t>(dim - 1)] = 1.0;
    fem::traction_forces(face.type, face.order, dim, x, up, forces);
    ASSERT_EQ(weights.size(), static_cast<std::size_t>(n));
    for (int a = 0; a < n; ++a)
      EXPECT_NEAR(weights[static_cast<std::size_t>(a)], forces[static_cast<std::size_t>(a * dim + dim - 1)], 1e-14)
          << face_type_name(face.type, face.order) << " node " << a;
  }
  // A disc of radius 0.6 at (0.1, -0.2) inside the square [-1, 1]^2 (area 4).
  for (const auto& face : {faces[5], faces[6], faces[7]}) {
    const int n = nodes_per_face(face.type, face.order);
    const std::vector<double> x = flat_face(face.type, face.order, 1.0, 1.0);
    std::vector<double> weights;
    fem::disc_weights(face.type, face.order, 3, x, std::vector<double>{0.1, -0.2, 0.0}, 0.6, weights);
    double area = 0.0, moment[2] = {0.0, 0.0};
    for (int a = 0; a < n; ++a) {
      area += weights[static_cast<std::size_t>(a)];
      for (int k = 0; k < 2; ++k) moment[k] += weights[static_cast<std::size_t>(a)] * x[static_cast<std::size_t>(a * 3 + k)];
    }
    const double disc = std::numbers::pi * 0.36;
    EXPECT_NEAR(area, disc, 4e-4) << face_type_name(face.type, face.order);
    EXPECT_NEAR(moment[0] / area, 0.1, 1e-4);
    EXPECT_NEAR(moment[1] / area, -0.2, 1e-4);
  }
  // A disc around a triangle's corner: a quarter of it on the right-angled corner (0, 0).
  {
    const std::vector<double> x = flat_face(FaceType::Tri3, 1, 1.0, 1.0);
    std::vector<double> weights;
    fem::disc_weights(FaceType::Tri3, 1, 3, x, std::vector<double>{0.0, 0.0, 0.0}, 0.5, weights);
    EXPECT_NEAR(weights[0] + weights[1] + weights[2], std::numbers::pi * 0.25 / 4.0, 1e-4);
  }
  // A circle around (0.3, 0.4) of radius 0.5 cuts the line y = 0 over the chord x in [0, 0.6].
  for (const auto& face : {faces[0], faces[1], faces[2]}) {
    const std::vector<double> x = flat_face(face.type, face.order, 1.0, 1.0);
    std::vector<double> weights;
    fem::disc_weights(face.type, face.order, 2, x, std::vector<double>{0.3, 0.4}, 0.5, weights);
    double length = 0.0;
    for (const double w : weights) length += w;
    EXPECT_NEAR(length, 0.6, 1e-6) << face_type_name(face.type, face.order);
  }
  // Far from the face: nothing.
  std::vector<double> weights;
  fem::disc_weights(FaceType::Quad4, 1, 3, flat_face(FaceType::Quad4, 1, 1.0, 1.0), std::vector<double>{5.0, 0.0, 0.0},
                    1.0, weights);
  for (const double w : weights) EXPECT_EQ(w, 0.0);
}

}  // namespace
}  // namespace tremor
