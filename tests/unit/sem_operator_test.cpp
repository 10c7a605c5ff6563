// The sem operator (sem/operator.hpp): sum-factorised K u on GLL hexahedra of order 1..8 against
// the element-by-element action of the assembled GLL elements (matrix_free: fem::apply_element_
// stiffness with the same Gauss rule) on distorted, curved, two-material (isotropic and fully
// anisotropic) meshes; colour-by-colour and atomic scatter; OpenMP against Serial; float;
// absorbing layers; rigid motions; the refusals.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "sparse_test_models.hpp"
#include "support/support.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/explicit/matrix_free.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/io/load.hpp"
#include "tremor/model/elevate.hpp"
#include "tremor/sem/operator.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::make_stiffness_operator;
using test::max_abs;
using test::max_difference;
using test::same_bits;

template <class Real>
std::vector<Real> apply_operator(const op::Operator<Real>& op, const std::vector<double>& u) {
  std::vector<Real> in(u.begin(), u.end()), out(u.size(), Real(-7));  // poisoned: every entry must be written
  op.apply_unchecked(in.data(), out.data());
  return out;
}

// Two cells per direction: eight elements, each touching both sections' boundary. The moves
// scale with the cell, the GLL spacing near a corner with 1 / P^2: above order 4 they are smaller,
// so that no element inverts.
Model curved_model(int order, ElementType type = ElementType::HexGLL) {
  return test::two_section_model(type, order, 2, order <= 4 ? 0.15 : 0.6 / (order * order));
}

template <class Real>
std::unique_ptr<sem::SemOperator<Real>> atomic_sem(const Model& model, const Exec& exec) {
  auto elements = std::make_shared<const fem::DeviceElements>(exec, model.mesh, fem::section_table(model),
                                                               fem::ElementColouring{});
  return std::make_unique<sem::SemOperator<Real>>(elements, false);
}

class SemOrders : public ::testing::TestWithParam<int> {};

// GLL hexahedra and, in 2D, quadrilaterals: a plane-strain isotropic section 0.25 thick and a
// plane-stress anisotropic one 0.5 thick (the thickness scales each element's integral).
TEST_P(SemOrders, EqualsTheElementActionOnCurvedAnisotropicMeshes) {
  for (const ElementType type : {ElementType::HexGLL, ElementType::QuadGLL}) {
    SCOPED_TRACE(element_name(type, GetParam()));
    const int order = GetParam();
    const Model model = curved_model(order, type);
    const auto reference = make_stiffness_operator<double>(model, "matrix_free", Exec::serial());
    const auto sem = make_stiffness_operator<double>(model, "sem", Exec::serial());
    EXPECT_EQ(sem->name(), "sem");
    EXPECT_EQ(sem->n_dofs(), reference->n_dofs());
    const auto u = test::test_vector(sem->n_dofs(), 5);
    const auto expected = apply_operator(*reference, u), got = apply_operator(*sem, u);
    const double scale = max_abs(expected);
    ASSERT_GT(scale, 0.0);
    // The same quadrature and products in another order: rounding of ~1e-16 per operation over
    // sums of O(P) terms per sweep, far below 1e-12 of the largest force.
    EXPECT_LE(max_difference(expected, got), 1e-12 * scale);
    // Atomic scatter: the same sums in another order of elements.
    EXPECT_LE(max_difference(expected, apply_operator(*atomic_sem<double>(model, Exec::serial()), u)), 1e-12 * scale);
    // Float: every sweep and the geometry in float (2^-24 relative per operation over O(10 P)
    // operations per value) with little cancellation for a random u: ~1e-6 of max |K u|.
    const auto sem_f = make_stiffness_operator<float>(model, "sem", Exec::serial());
    EXPECT_LE(max_difference(expected, apply_operator(*sem_f, u)), 2e-5 * scale);
    if (type == ElementType::HexGLL) {
      // Both hexahedron kernels, whichever the order's default: the same sums (order 1, whose
      // points are not the nodes, takes the point kernel either way).
      const auto elements = std::make_shared<const fem::DeviceElements>(
          Exec::serial(), model.mesh, fem::section_table(model), fem::colour_elements(model.mesh));
      for (const sem::Kernel kernel : {sem::Kernel::Points, sem::Kernel::Columns}) {
        const sem::SemOperator<double> forced(elements, true, sem::Geometry::Auto, kernel);
        EXPECT_EQ(forced.details().find("a thread per column") != std::string::npos,
                  kernel == sem::Kernel::Columns && order >= 2);
        EXPECT_LE(max_difference(expected, apply_operator(forced, u)), 1e-12 * scale);
        const sem::SemOperator<float> forced_f(elements, true, sem::Geometry::Auto, kernel);
        EXPECT_LE(max_difference(expected, apply_operator(forced_f, u)), 2e-5 * scale);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Orders, SemOrders, ::testing::Range(1, 9),
                         [](const auto& param_info) { return "P" + std::to_string(param_info.param); });

// Elements on the trilinear map of their vertices (a distorted hex8 mesh raised to order P, so
// every element is a general trilinear hexahedron, not a parallelepiped) take their Jacobians from
// the vertices at each GLL point, parallelepipeds once per element: the same K u as the stored
// factors and as matrix_free.
TEST(SemOperator, TrilinearAndAffineElementsFromTheirVertices) {
  for (const int order : {1, 2, 4, 7}) {
    SCOPED_TRACE(order);
    Model model = test::two_section_model(ElementType::Hex8, 1, 3, 0.15);
    elevate_order(model, order);
    const auto reference = make_stiffness_operator<double>(model, "matrix_free", Exec::serial());
    const auto sem = make_stiffness_operator<double>(model, "sem", Exec::serial());
    EXPECT_NE(sem->details().find("trilinear: J from the vertices"), std::string::npos) << sem->details();
    const auto u = test::test_vector(sem->n_dofs(), 9);
    const auto expected = apply_operator(*reference, u);
    const double scale = max_abs(expected);
    // As for the stored factors: the same quadrature, rounding only.
    EXPECT_LE(max_difference(expected, apply_operator(*sem, u)), 1e-12 * scale);
    const auto elements = std::make_shared<const fem::DeviceElements>(Exec::serial(), model.mesh, fem::section_table(model),
                                                                      fem::colour_elements(model.mesh));
    const sem::SemOperator<double> stored(elements, true, sem::Geometry::Stored);
    EXPECT_NE(stored.details().find("stored per GLL point"), std::string::npos) << stored.details();
    EXPECT_LE(max_difference(expected, apply_operator(stored, u)), 1e-12 * scale);
    // Float, trilinear: the corners relative to vertex 0 in float, the Jacobian from them.
    const auto sem_f = make_stiffness_operator<float>(model, "sem", Exec::serial());
    EXPECT_LE(max_difference(expected, apply_operator(*sem_f, u)), 2e-5 * scale);  // as in SemOrders
  }
  // A sheared two-material box raised to the order: every element a parallelepiped, J^-1 and
  // det J once per element.
  for (const int order : {1, 3, 8}) {
    SCOPED_TRACE(order);
    Model model = test::two_section_model(ElementType::Hex8, 1, 2, 0.0);
    for (Index node = 0; node < model.mesh.n_nodes(); ++node) {  // a linear map: shear and stretch
      double* x = model.mesh.coordinates.data() + 3 * node;
      const double y = x[1], z = x[2];
      x[0] += 0.3 * y - 0.2 * z;
      x[1] = 1.1 * y + 0.25 * z;
    }
    elevate_order(model, order);
    const auto reference = make_stiffness_operator<double>(model, "matrix_free", Exec::serial());
    const auto sem = make_stiffness_operator<double>(model, "sem", Exec::serial());
    EXPECT_NE(sem->details().find("affine: J per element"), std::string::npos) << sem->details();
    const auto u = test::test_vector(sem->n_dofs(), 4);
    const auto expected = apply_operator(*reference, u);
    EXPECT_LE(max_difference(expected, apply_operator(*sem, u)), 1e-12 * max_abs(expected));  // as above
    const auto sem_f = make_stiffness_operator<float>(model, "sem", Exec::serial());
    EXPECT_LE(max_difference(expected, apply_operator(*sem_f, u)), 2e-5 * max_abs(expected));
  }
  // A curved mesh (GLL nodes moved off the map) keeps the stored factors.
  const auto curved = make_stiffness_operator<double>(curved_model(2), "sem", Exec::serial());
  EXPECT_NE(curved->details().find("stored per GLL point"), std::string::npos) << curved->details();
}

// The same in 2D: a distorted quad4 mesh raised to order P (bilinear quadrilaterals, J from the
// 4 vertices), a sheared rectangle (parallelograms, J once per element), the stored factors.
TEST(SemOperator, BilinearAndAffineQuadrilateralsFromTheirVertices) {
  for (const int order : {1, 2, 5, 8}) {
    SCOPED_TRACE(order);
    for (const bool sheared : {false, true}) {
      Model model = test::two_section_model(ElementType::Quad4, 1, 3, sheared ? 0.0 : 0.15);
      if (sheared)
        for (Index node = 0; node < model.mesh.n_nodes(); ++node) {
          double* x = model.mesh.coordinates.data() + 2 * node;
          x[0] += 0.3 * x[1];
          x[1] *= 1.1;
        }
      elevate_order(model, order);
      const auto reference = make_stiffness_operator<double>(model, "matrix_free", Exec::serial());
      const auto sem = make_stiffness_operator<double>(model, "sem", Exec::serial());
      EXPECT_NE(sem->details().find(sheared ? "affine: J per element" : "bilinear: J from the vertices"),
                std::string::npos)
          << sem->details();
      const auto u = test::test_vector(sem->n_dofs(), 11);
      const auto expected = apply_operator(*reference, u);
      const double scale = max_abs(expected);
      EXPECT_LE(max_difference(expected, apply_operator(*sem, u)), 1e-12 * scale);  // as in SemOrders
      const auto elements = std::make_shared<const fem::DeviceElements>(
          Exec::serial(), model.mesh, fem::section_table(model), fem::colour_elements(model.mesh));
      const sem::SemOperator<double> stored(elements, true, sem::Geometry::Stored);
      EXPECT_LE(max_difference(expected, apply_operator(stored, u)), 1e-12 * scale);
      const auto sem_f = make_stiffness_operator<float>(model, "sem", Exec::serial());
      EXPECT_LE(max_difference(expected, apply_operator(*sem_f, u)), 2e-5 * scale);
    }
  }
}

TEST(SemOperator, OpenMpEqualsSerialAndRepeats) {
  const Model model = curved_model(4);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(4);  // several threads even on a small machine
  const auto u = test::test_vector(model.mesh.n_nodes() * 3, 7);
  const auto serial = apply_operator(*make_stiffness_operator<double>(model, "sem", Exec::serial()), u);
  const auto parallel = make_stiffness_operator<double>(model, "sem", Exec::openmp());
  // Colour by colour: each DOF receives its elements' forces in the same order on every backend.
  EXPECT_TRUE(same_bits(serial, apply_operator(*parallel, u)));
  EXPECT_TRUE(same_bits(apply_operator(*parallel, u), apply_operator(*parallel, u)));
  // Atomics on several threads: the same sums in an order that may vary, to rounding.
  const auto atomic = apply_operator(*atomic_sem<double>(model, Exec::openmp()), u);
  EXPECT_LE(max_difference(serial, atomic), 1e-13 * max_abs(serial));
  omp_set_num_threads(threads);
}

// A rigid motion (translation plus a small rotation) strains nothing: K u = 0 to rounding.
TEST(SemOperator, RigidMotionGivesNoForce) {
  const Model model = curved_model(3);
  const auto sem = make_stiffness_operator<double>(model, "sem", Exec::serial());
  std::vector<double> u(static_cast<std::size_t>(sem->n_dofs())), ones(u.size());
  for (Index node = 0; node < model.mesh.n_nodes(); ++node) {
    const auto x = model.mesh.node(node);
    const double t[3] = {1e-6, -2e-6, 0.5e-6}, w[3] = {1e-6, 2e-6, -1e-6};  // translation, rotation
    const double motion[3] = {t[0] + w[1] * x[2] - w[2] * x[1], t[1] + w[2] * x[0] - w[0] * x[2],
                              t[2] + w[0] * x[1] - w[1] * x[0]};
    for (int c = 0; c < 3; ++c) u[static_cast<std::size_t>(node * 3 + c)] = motion[c];
  }
  // The force of a unit-size strain for scale: K applied to a field of O(1e-6) gradients.
  const auto scale = max_abs(apply_operator(*sem, test::test_vector(sem->n_dofs(), 1))) * 1e-6;
  EXPECT_LE(max_abs(apply_operator(*sem, u)), 1e-9 * scale);
}

// Absorbing (SRM) layers scale K_e: folded into the stored w det J, as matrix_free scales K_e u_e.
TEST(SemOperator, AbsorbingLayersScaleTheStiffness) {
  Model model = curved_model(3);
  AbsorbingLayer layer;
  layer.kind = AbsorbingKind::Srm;
  layer.faces = {BoxFace::XMax, BoxFace::YMin};
  layer.thickness = 0.4;
  layer.frequency = 1e4;
  layer.alpha_max = 6.0 * 3.14159 * 1e4;
  model.absorbing.push_back(layer);
  const auto reference = make_stiffness_operator<double>(model, "matrix_free", Exec::serial());
  const auto sem = make_stiffness_operator<double>(model, "sem", Exec::serial());
  const auto u = test::test_vector(sem->n_dofs(), 3);
  const auto expected = apply_operator(*reference, u), got = apply_operator(*sem, u);
  EXPECT_LE(max_difference(expected, got), 1e-12 * max_abs(expected));  // as above
  const auto plain = apply_operator(*make_stiffness_operator<double>(curved_model(3), "sem", Exec::serial()), u);
  EXPECT_GT(max_difference(plain, got), 0.05 * max_abs(expected));  // the layer does change K u
}

// Elements whose stiffness factor is 0 (a PML's, which its own term evaluates) are left out of
// the launches, coloured and atomic: K u as the reference's with those elements scaled by 0, and
// their flops not counted.
TEST(SemOperator, ElementsWithoutStiffnessAreLeftOut) {
  const Model model = test::two_section_model(ElementType::HexGLL, 3, 2, 0.15, false);  // curved, one section
  fem::SectionTable table = fem::section_table(model);
  const std::size_t n = table.element_section.size();
  table.element_stiffness_factor.assign(n, 1.0);
  for (const std::size_t e : {std::size_t(0), std::size_t(3), n - 1}) table.element_stiffness_factor[e] = 0.0;
  const fem::ElementColouring colouring = fem::colour_elements(model.mesh);
  const explicit_fe::MatrixFreeOperator<double> reference(Exec::serial(), model, table, colouring);
  const auto u = test::test_vector(reference.n_dofs(), 9);
  const auto expected = apply_operator(reference, u);
  const auto all = make_stiffness_operator<double>(model, "sem", Exec::serial());
  EXPECT_GT(max_difference(apply_operator(*all, u), expected), 0.05 * max_abs(expected));  // the three do count
  for (const Exec& exec : {Exec::serial(), Exec::openmp()})
    for (const bool coloured : {true, false}) {
      SCOPED_TRACE(str(exec.describe(), coloured ? ", colours" : ", atomics"));
      const auto elements = std::make_shared<const fem::DeviceElements>(
          exec, model.mesh, table, coloured ? colouring : fem::ElementColouring{});
      const sem::SemOperator<double> sem(elements, coloured);
      EXPECT_LE(max_difference(expected, apply_operator(sem, u)), 1e-12 * max_abs(expected));  // as above
      EXPECT_DOUBLE_EQ(sem.flops(), all->flops() * static_cast<double>(n - 3) / static_cast<double>(n));
    }
}

TEST(SemOperator, OtherElementTypesAreRefused) {
  const Model model = test::two_section_model(ElementType::Hex8, 1, 2, 0.0);
  const std::string message = test::error_of([&] { (void)make_stiffness_operator<double>(model, "sem"); });
  test::expect_contains(message, {"the sem operator takes GLL hexahedra and quadrilaterals", "element block 1 holds hex8",
                                  "[mesh] order = P", "--order P"});
  EXPECT_FALSE(explicit_fe::operators().find("sem")->takes(model.mesh));
  EXPECT_TRUE(explicit_fe::operators().find("sem")->takes(curved_model(2).mesh));
  EXPECT_TRUE(explicit_fe::operators().find("sem")->takes(curved_model(2, ElementType::QuadGLL).mesh));
  EXPECT_FALSE(explicit_fe::operators().find("sem")->takes(test::two_section_model(ElementType::Quad4, 1, 2, 0.0).mesh));
  const auto names = explicit_fe::operators().names(Backend::Serial, model.mesh);
  EXPECT_EQ(std::find(names.begin(), names.end(), "sem"), names.end());
}

// The pre-flight of a plate raised to GLL order 4: the stable step from the global estimate, and
// the resolution counted in GLL points (largest element / 4 apart) against the spectral elements'
// 5, not in elements against the linear ones' 10.
TEST(SemOperator, PreflightCountsGllPointsAndEstimatesTheStepGlobally) {
  const Model model = io::load_model(test::data_path("cli/tiny_plate.toml"), 4);
  explicit_fe::RunOptions options;
  options.backend = "serial";
  options.operator_kind = "sem";
  const explicit_fe::Preflight p = explicit_fe::preflight(model, options);
  EXPECT_EQ(p.gll_order, 4);
  EXPECT_EQ(p.stable_element, 0);
  EXPECT_NE(p.stable_by.find("Lanczos iterations"), std::string::npos) << p.stable_by;
  EXPECT_DOUBLE_EQ(p.points_per_wavelength, p.min_wave_speed / p.highest_frequency / (p.largest_element / 4));
  EXPECT_STREQ(p.wavelength_unit(), "GLL points");
  EXPECT_EQ(p.wanted_per_wavelength(), 5.0);
  // The 3-cycle 300 kHz burst has content to ~600 kHz: 5.2 mm shear waves over 1 mm cubes (1.73 mm
  // diagonals, GLL points 0.43 mm apart), about 12 points: no warning.
  EXPECT_GT(p.points_per_wavelength, 5.0);
  for (const std::string& warning : p.warnings) EXPECT_EQ(warning.find("per shortest wavelength"), std::string::npos) << warning;
  // "auto" is sem on GLL hexahedra, not on the same plate of hex8 (there the host's rule for hex8:
  // matrix_free in tiles).
  options.operator_kind = "auto";
  EXPECT_EQ(explicit_fe::preflight(model, options).op->name, "sem");
  EXPECT_EQ(explicit_fe::preflight(io::load_model(test::data_path("cli/tiny_plate.toml")), options).op->name,
            "matrix_free");
}

// The model's geometry check names an inverted element before the operator is built (the sem
// operator's own check at its GLL points is a second guard).
TEST(SemOperator, InvertedElementIsNamed) {
  Model model = test::two_section_model(ElementType::HexGLL, 2, 2, 0.0);
  // Mirror the second element's nodes through its centre in x: it turns inside out.
  ElementBlock& block = model.mesh.blocks[0];
  const auto nodes = block.nodes(1);
  std::vector<Index> mirrored(nodes.begin(), nodes.end());
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 3; ++j) std::swap(mirrored[static_cast<std::size_t>(9 * k + 3 * j)], mirrored[static_cast<std::size_t>(9 * k + 3 * j + 2)]);
  std::copy(mirrored.begin(), mirrored.end(), block.connectivity.begin() + 27);
  const std::string message = test::error_of([&] { (void)make_stiffness_operator<double>(model, "sem"); });
  test::expect_contains(message, {"element 2 (hex-gll2) is inverted"});
}

// The counted flops of one apply (the benchmark's roofline): for a box of isotropic affine order-4
// hexahedra, per element the line sums 36 x 5^4 = 22,500 and per point 141 (gradient 54, strain
// 3, stress 15, flux 63, weights 3, scatter 3) x 125 = 17,625: 40,125 per element. The anisotropic
// section's stress is a 6 x 6 product (72 instead of 15).
TEST(SemOperator, CountsItsFlops) {
  Model box = test::two_section_model(ElementType::Hex8, 1, 2, 0.0, false);  // steel only
  elevate_order(box, 4);
  const auto sem = make_stiffness_operator<double>(box, "sem", Exec::serial());
  EXPECT_NE(sem->details().find("affine"), std::string::npos);
  EXPECT_DOUBLE_EQ(sem->flops(), 8 * 40125.0);
  Model two = test::two_section_model(ElementType::Hex8, 1, 2, 0.0);  // half the elements anisotropic
  elevate_order(two, 4);
  EXPECT_DOUBLE_EQ(make_stiffness_operator<double>(two, "sem", Exec::serial())->flops(), 8 * 40125.0 + 4 * 125 * 57.0);
  // 2D, affine isotropic quadrilaterals of order 4: 16 x 5^3 = 2,000 and 50 x 25 = 1,250 per element.
  Model quads = test::two_section_model(ElementType::Quad4, 1, 3, 0.0, false);
  elevate_order(quads, 4);
  EXPECT_DOUBLE_EQ(make_stiffness_operator<double>(quads, "sem", Exec::serial())->flops(), 9 * 3250.0);
}

TEST(SemOperator, MemoryModelCountsItsArrays) {
  const Model model = curved_model(4);
  const auto sem = make_stiffness_operator<float>(model, "sem", Exec::serial());
  // Per GLL point 10 floats (curved: stored per point, what an unknown count assumes) and the 1D
  // bases: the model's count; besides, the elements it keeps (a node index per point, per element
  // its section and colour place) and its 36 constants and a flag per section.
  const auto* kept = dynamic_cast<const sem::SemOperator<float>*>(sem.get());
  ASSERT_NE(kept, nullptr);
  const std::size_t counted = sem::loop_bytes(model.mesh, sizeof(float), kept->geometry_values());
  EXPECT_EQ(counted, sem::loop_bytes(model.mesh, sizeof(float), 0));
  std::size_t elements = 0;
  for (const ElementBlock& block : model.mesh.blocks)
    elements += block.connectivity.size() * sizeof(Index) + static_cast<std::size_t>(block.n_elements()) * 8;
  EXPECT_GE(sem->bytes() + 4 * 25 * sizeof(float), counted + elements);  // the model's bases: at most 4 n^2
  EXPECT_LE(sem->bytes(), counted + elements + 2 * (36 + 1) * sizeof(float) + 2 * sizeof(int));
  EXPECT_NE(sem->details().find("stored per GLL point"), std::string::npos) << sem->details();  // curved
  EXPECT_NE(sem->details().find("GLL order 4"), std::string::npos) << sem->details();
}

// Vectors applied together (op::Operator::apply_batch, the shots a run steps together): the column
// kernel a thread per column and vector, 8 floats or 4 doubles a block. Each vector's K u is the
// bits of apply() on it alone: on every geometry mode (stored, trilinear, affine), orders 2 and 4,
// colour by colour and by atomics, elements left out, for fewer vectors than a block takes (3) and
// a count no block size divides (11). Colour by colour and on one thread every order of adds is
// the single vector's; atomics from several threads (OpenMP, a GPU) land in another order: within
// 100 roundings of the largest force (a node's sum over its up to 8 elements, reordered).
template <class Real>
void expect_vectors_together_as_one_by_one(const Exec& exec) {
  Model sheared = test::two_section_model(ElementType::Hex8, 1, 2, 0.0);
  for (Index node = 0; node < sheared.mesh.n_nodes(); ++node) {
    double* x = sheared.mesh.coordinates.data() + 3 * node;
    x[0] += 0.3 * x[1];
  }
  elevate_order(sheared, 4);
  Model trilinear = test::two_section_model(ElementType::Hex8, 1, 2, 0.15);
  elevate_order(trilinear, 2);
  struct Case {
    const char* name;
    Model model;
    const char* geometry;
  };
  const Case cases[] = {{"curved, order 2", curved_model(2), "stored per GLL point"},
                        {"curved, order 4", curved_model(4), "stored per GLL point"},
                        {"trilinear, order 2", trilinear, "trilinear"},
                        {"sheared, order 4", sheared, "affine"}};
  for (const Case& c : cases)
    for (const bool coloured : {true, false}) {
      fem::SectionTable table = fem::section_table(c.model);
      table.element_stiffness_factor.assign(table.element_section.size(), 1.0);
      table.element_stiffness_factor[1] = 0.0;  // one element left out: the blocks' lists
      const auto elements = std::make_shared<const fem::DeviceElements>(
          exec, c.model.mesh, table, coloured ? fem::colour_elements(c.model.mesh) : fem::ElementColouring{});
      // (colour by colour the default is the point kernel, which applies vectors one by one: the
      // column kernel asked for)
      const sem::SemOperator<Real> sem(elements, coloured, sem::Geometry::Auto, sem::Kernel::Columns);
      SCOPED_TRACE(str(c.name, coloured ? ", colours, " : ", atomics, ", exec.describe()));
      EXPECT_NE(sem.details().find(c.geometry), std::string::npos) << sem.details();
      EXPECT_TRUE(sem.fuses_batch());
      EXPECT_EQ(sem::SemOperator<Real>(elements, coloured).fuses_batch(), !coloured);
      const Index n = sem.n_dofs();
      for (const int k : {3, 11}) {
        const auto x = test::test_vector(n * k, 5 + k);
        const std::vector<Real> xr(x.begin(), x.end());
        const DeviceArray<Real> xs(exec, std::span<const Real>(xr));
        const std::vector<Real> poison(xr.size(), Real(-7));  // apply_batch writes every entry
        DeviceArray<Real> ys(exec, std::span<const Real>(poison));
        sem.apply_batch(xs.view(), ys.view(), k);
        const std::vector<Real> together = ys.to_host();
        // add_batch: K u added to what is there (here the same K u: twice it)
        sem.add_batch(xs.view(), ys.view(), k);
        const std::vector<Real> twice = ys.to_host();
        for (int s = 0; s < k; ++s) {
          std::vector<Real> column(static_cast<std::size_t>(n));
          for (Index i = 0; i < n; ++i) column[i] = xr[static_cast<std::size_t>(i) * k + s];
          const DeviceArray<Real> xc(exec, std::span<const Real>(column));
          DeviceArray<Real> yc(exec, n);
          sem.apply(xc.view(), yc.view());
          const std::vector<Real> alone = yc.to_host();
          double largest = 0.0;
          for (const Real v : alone) largest = std::max(largest, std::abs(static_cast<double>(v)));
          ASSERT_GT(largest, 0.0);
          const bool bits = exec.backend() == Backend::Serial || coloured;
          const double tolerance = bits ? 0.0 : 100.0 * std::numeric_limits<Real>::epsilon() * largest;
          Index differ = 0, differ_twice = 0;
          for (Index i = 0; i < n; ++i) {
            const auto at = static_cast<std::size_t>(i) * k + s;
            differ += std::abs(static_cast<double>(together[at]) - static_cast<double>(alone[i])) > tolerance;
            // (the second K u's element forces added into the first's sum, not into 0: a few
            // roundings of the largest force)
            differ_twice += std::abs(static_cast<double>(twice[at]) - 2.0 * static_cast<double>(alone[i])) >
                            2.0 * tolerance + 16.0 * std::numeric_limits<Real>::epsilon() * largest;
          }
          EXPECT_EQ(differ, 0) << "vector " << s << " of " << k;
          EXPECT_EQ(differ_twice, 0) << "vector " << s << " of " << k << ", added";
        }
      }
    }
  // Quadrilaterals and order 1 (the point kernel): vector by vector.
  const auto quads = std::make_shared<const fem::DeviceElements>(exec, curved_model(2, ElementType::QuadGLL).mesh,
                                                                 fem::section_table(curved_model(2, ElementType::QuadGLL)),
                                                                 fem::ElementColouring{});
  EXPECT_FALSE(sem::SemOperator<Real>(quads, false).fuses_batch());
  const Model first = curved_model(1);
  const auto order1 = std::make_shared<const fem::DeviceElements>(exec, first.mesh, fem::section_table(first),
                                                                  fem::ElementColouring{});
  EXPECT_FALSE(sem::SemOperator<Real>(order1, false).fuses_batch());
  const op::OperatorEntry* entry = explicit_fe::operators().find("sem");
  ASSERT_NE(entry, nullptr);
  EXPECT_TRUE(entry->fuses(sheared.mesh, false));
  EXPECT_FALSE(entry->fuses(sheared.mesh, true));  // colour by colour: the point kernel, one by one
  EXPECT_FALSE(entry->fuses(first.mesh, false));
}

TEST(SemOperator, AppliesVectorsTogetherAsOneByOne) {
  for (const Exec& exec : {Exec::serial(), Exec::openmp()}) {
    expect_vectors_together_as_one_by_one<double>(exec);
    expect_vectors_together_as_one_by_one<float>(exec);
  }
}

TEST(SemOperator, AppliesVectorsTogetherAsOneByOneOnAGpu) {
  TREMOR_REQUIRE_GPU();
  expect_vectors_together_as_one_by_one<double>(Exec::cuda());
  expect_vectors_together_as_one_by_one<float>(Exec::cuda());
}

}  // namespace
}  // namespace tremor
