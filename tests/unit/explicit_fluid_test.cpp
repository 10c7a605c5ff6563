// The fluid field's pieces (explicit/fluid.hpp): the fluid's own mesh and numbering, its lumped
// mass, its stiffness action against the element matrices assembled by the test (on the host in
// both precisions, colour by colour and by atomics, and on a GPU, atomics and colours, against the
// host) and its largest eigenvalue.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "explicit_test_models.hpp"
#include "fem_test_helpers.hpp"
#include "support/support.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/explicit/fluid.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/receivers.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/explicit/subdomain.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/coupling.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/renumber.hpp"
#include "tremor/sparse/assemble.hpp"

namespace tremor::explicit_fe {
namespace TREMOR_TEST_FILE {

// A 2 x 2 (x 2) block: steel below 1 along the last axis, water (1000 kg/m^3, 1480 m/s) above,
// 2D sections 0.5 m thick.
Model water_on_steel(ElementType type, int order) {
  const bool two = dimension(type) == 2;
  return test::water_on_steel(two ? generate_rectangle({0.0, 0.0}, {2.0, 2.0}, {2, 2}, type, order)
                                  : generate_box({0.0, 0.0, 0.0}, {2.0, 2.0, 2.0}, {2, 2, 2}, type, order),
                              0.5, 0.5);
}

// K_f chi by the fluid elements' matrices (fem::fluid_stiffness), assembled by the test.
std::vector<double> assembled_action(const FluidMesh& fluid, const std::vector<double>& chi) {
  const Mesh& mesh = fluid.model.mesh;
  std::vector<double> f(chi.size(), 0.0);
  Index global = 0;
  for (const ElementBlock& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global)
      fem::with_element(block.type, block.order, [&](auto element) {
        using E = decltype(element);
        std::vector<double> x(E::n_nodes * E::dim), K(E::n_nodes * E::n_nodes);
        mesh.element_coordinates(block, e, x.data());
        const auto s = static_cast<std::size_t>(fluid.table.element_section[static_cast<std::size_t>(global)]);
        const double factor = fluid.table.stiffness_factor(static_cast<std::size_t>(global));  // an srm layer's
        (void)fem::fluid_stiffness<E>(x.data(), fluid.table.D[s][0] * factor, fluid.table.thickness[s], K.data());
        const auto nodes = block.nodes(e);
        for (int a = 0; a < E::n_nodes; ++a)
          for (int b = 0; b < E::n_nodes; ++b) {
            const auto row = static_cast<std::size_t>(nodes[static_cast<std::size_t>(a)]);
            const auto column = static_cast<std::size_t>(nodes[static_cast<std::size_t>(b)]);
            f[row] += K[static_cast<std::size_t>(a * E::n_nodes + b)] * chi[column];
          }
      });
  return f;
}

// A smooth field at the fluid's nodes.
std::vector<double> field(const FluidMesh& fluid) {
  std::vector<double> chi;
  for (Index i = 0; i < fluid.n_nodes(); ++i) {
    const auto x = fluid.model.mesh.node(i);
    double value = 1.0;
    for (std::size_t c = 0; c < x.size(); ++c) value *= std::cos(0.7 * x[c] + 0.3 * static_cast<double>(c));
    chi.push_back(value);
  }
  return chi;
}

template <class Real>
std::vector<double> operator_action(const Exec& exec, const FluidMesh& fluid, const std::vector<double>& chi,
                                    bool atomic) {
  const auto elements = std::make_shared<const fem::DeviceElements>(exec, fluid.model.mesh, fluid.table,
                                                                     fem::colour_elements(fluid.model.mesh));
  const FluidOperator<Real> K(exec, elements, atomic);
  std::vector<Real> in(chi.begin(), chi.end());
  DeviceArray<Real> x(exec, std::span<const Real>(in)), y(exec, static_cast<Index>(chi.size()));
  K.apply(x.view(), y.view());
  const std::vector<Real> out = y.to_host();
  return {out.begin(), out.end()};
}

// The fluid's nodes are those of its elements, in the model's order, their coordinates the
// model's; its element sets the model's, restricted; its table D[0] = 1 / rho, density 1 / kappa.
TEST(ExplicitFluid, TheFluidMeshNumbersItsOwnNodes) {
  const Model model = water_on_steel(ElementType::Hex8, 1);
  const FluidMesh fluid = fluid_mesh(model);
  ASSERT_EQ(fluid.n_nodes(), 18);  // z = 1 and z = 2: two planes of 3 x 3
  ASSERT_EQ(fluid.elements.size(), 4u);
  for (Index i = 0; i < fluid.n_nodes(); ++i) {
    if (i > 0) {
      EXPECT_LT(fluid.nodes[static_cast<std::size_t>(i - 1)], fluid.nodes[static_cast<std::size_t>(i)]);
    }
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ(fluid.model.mesh.node(i)[static_cast<std::size_t>(c)],
                model.mesh.node(fluid.nodes[static_cast<std::size_t>(i)])[static_cast<std::size_t>(c)]);
    EXPECT_GE(fluid.model.mesh.node(i)[2], 1.0);
  }
  EXPECT_EQ(fluid.model.mesh.element_sets.at("water").size(), 4u);
  EXPECT_TRUE(fluid.model.mesh.element_sets.at("steel").empty());
  for (const int s : fluid.table.element_section) EXPECT_EQ(s, 1);
  EXPECT_DOUBLE_EQ(fluid.table.D[1][0], 1e-3);
  EXPECT_DOUBLE_EQ(fluid.table.density[1], 1.0 / (1000.0 * 1480.0 * 1480.0));
  // Without fluid: nothing.
  Model solid = model;
  solid.sections[1].material = "steel";
  EXPECT_EQ(fluid_mesh(solid).n_nodes(), 0);
}

// The lumped mass sums to the fluid's volume over kappa (t = 0.5 in 2D); positive everywhere.
TEST(ExplicitFluid, LumpedMassTotalsVolumeOverKappa) {
  const double kappa = 1000.0 * 1480.0 * 1480.0;
  for (const auto& [type, order] : {std::pair{ElementType::Quad4, 1}, {ElementType::Tri6, 2}, {ElementType::Hex8, 1},
                                    {ElementType::Tet10, 2}, {ElementType::HexGLL, 3}}) {
    SCOPED_TRACE(element_name(type, order));
    const FluidMesh fluid = fluid_mesh(water_on_steel(type, order));
    const std::vector<double> mass = fluid_lumped_mass(fluid, Exec::openmp());
    ASSERT_EQ(mass.size(), static_cast<std::size_t>(fluid.n_nodes()));
    double total = 0.0;
    for (const double m : mass) {
      EXPECT_GT(m, 0.0);
      total += m;
    }
    const double volume = dimension(type) == 2 ? 2.0 * 0.5 : 4.0;
    EXPECT_NEAR(total * kappa, volume, 1e-12 * volume);  // sums of a few terms: round-off
  }
}

// The block of water_on_steel with every node moved smoothly (by up to 0.06 of an element's 1 m):
// elements that are no parallelepipeds, whose factors sem::FluidKernels keeps per point.
Model curved(Model model) {
  const int dim = model.mesh.dim();
  for (Index i = 0; i < model.mesh.n_nodes(); ++i) {
    double* x = model.mesh.coordinates.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(dim);
    const double y = x[1], z = dim == 3 ? x[2] : 0.0;
    x[0] += 0.06 * std::sin(1.3 * y + 0.4 * z);
    x[1] += 0.05 * std::cos(0.9 * x[0] + 0.7 * z);
  }
  return model;
}

// The block of water_on_steel (3D) with every node moved by a bilinear function of its coordinates:
// elements on the trilinear map of their vertices, no parallelepipeds (sem::FluidKernels recomputes
// their Jacobians from the vertices).
Model trilinear(Model model) {
  for (Index i = 0; i < model.mesh.n_nodes(); ++i) {
    double* x = model.mesh.coordinates.data() + static_cast<std::size_t>(i) * 3;
    const double X = x[0], Y = x[1], Z = x[2];
    x[0] += 0.03 * Y * Z;
    x[1] += 0.02 * X * Z;
    x[2] += 0.025 * X * Y;
  }
  return model;
}

enum class Shape { Box, Curved, Trilinear };

Model shaped(Model model, Shape shape) {
  return shape == Shape::Curved ? curved(std::move(model)) : shape == Shape::Trilinear ? trilinear(std::move(model)) : model;
}

// The operator's action is the assembled matrices' (double: round-off of the sums; float: the
// field and forces rounded to float, 1e-6 of the largest force, and the GLL elements of order 2 or
// more summed in float by sem::FluidKernels, a few float roundings of the largest: 1e-5); a
// constant potential is in its null space. On boxes (the kernels' factors per element) and, for GLL
// elements, curved blocks (per point) and trilinear ones (recomputed from the vertices).
TEST(ExplicitFluid, OperatorActionIsTheAssembledStiffnessAction) {
  for (const auto& [type, order, shape] :
       {std::tuple{ElementType::Quad4, 1, Shape::Box}, {ElementType::Tri6, 2, Shape::Box},
        {ElementType::Hex8, 1, Shape::Box}, {ElementType::Hex20, 2, Shape::Box}, {ElementType::Tet10, 2, Shape::Box},
        {ElementType::HexGLL, 1, Shape::Box}, {ElementType::HexGLL, 2, Shape::Box},
        {ElementType::HexGLL, 3, Shape::Box}, {ElementType::QuadGLL, 2, Shape::Box},
        {ElementType::QuadGLL, 8, Shape::Box}, {ElementType::HexGLL, 3, Shape::Curved},
        {ElementType::HexGLL, 5, Shape::Curved}, {ElementType::QuadGLL, 4, Shape::Curved},
        {ElementType::HexGLL, 3, Shape::Trilinear}, {ElementType::HexGLL, 6, Shape::Trilinear}}) {
    SCOPED_TRACE(element_name(type, order) + (shape == Shape::Curved ? " curved" : shape == Shape::Trilinear ? " trilinear" : ""));
    const FluidMesh fluid = fluid_mesh(shaped(water_on_steel(type, order), shape));
    const std::vector<double> chi = field(fluid);
    const std::vector<double> expected = assembled_action(fluid, chi);
    double largest = 0.0;
    for (const double v : expected) largest = std::max(largest, std::abs(v));
    ASSERT_GT(largest, 0.0);
    const std::vector<double> in_double = operator_action<double>(Exec::serial(), fluid, chi, false);
    const std::vector<double> in_float = operator_action<float>(Exec::openmp(), fluid, chi, false);
    const double float_bound = (type == ElementType::HexGLL || type == ElementType::QuadGLL) && order >= 2 ? 1e-5 : 1e-6;
    for (std::size_t i = 0; i < chi.size(); ++i) {
      EXPECT_NEAR(in_double[i], expected[i], 1e-13 * largest) << i;
      EXPECT_NEAR(in_float[i], expected[i], float_bound * largest) << i;
    }
    const std::vector<double> constant = operator_action<double>(Exec::serial(), fluid,
                                                                 std::vector<double>(chi.size(), 3.0), false);
    for (const double v : constant) EXPECT_NEAR(v, 0.0, 1e-13 * largest);
    // GLL blocks of order 2 or more are the sum-factorised kernels'; the others the element kernel's.
    const fem::DeviceElements elements(Exec::serial(), fluid.model.mesh, fluid.table, fem::ElementColouring{});
    const sem::FluidKernels<double> kernels(elements);
    EXPECT_EQ(kernels.takes(0), (type == ElementType::HexGLL || type == ElementType::QuadGLL) && order >= 2);
    if (kernels.takes(0)) {  // (quadrilaterals keep their factors per point where not parallelograms)
      EXPECT_EQ(std::string(kernels.geometry(0)), shape == Shape::Box      ? "per element"
                                                  : shape == Shape::Curved ? "per point"
                                                                           : "trilinear");
      EXPECT_EQ(std::string(sem::FluidKernels<double>(elements, sem::Geometry::Stored).geometry(0)), "per point");
    }
  }
}

// The column kernel's atomic adds (one shot, sem::FluidKernels::add, on the host threads) give the
// assembled matrices' action on a water box of 7 x 2 x 2 GLL hexahedra whatever the numbering of
// the elements and their points: numbered along x (consecutive elements, a block's, share the face
// i = n - 1 of one and i = 0 of the next, but at the rows' ends), numbered backwards (they share
// i = 0 of one and i = n - 1 of the next), and with every other element's points turned a quarter
// about its x axis (of such a face only the nodes on the axis in the same place, at even orders).
// Bounds as OperatorActionIsTheAssembledStiffnessAction's: round-off of the sums in double, a few
// float roundings of the largest force in float.
TEST(ExplicitFluid, KernelsAtomicAddsAreTheAssembledActionInAnyNumbering) {
  enum class Numbering { AlongX, Backwards, Turned };
  for (const int order : {2, 3, 4})
    for (const Numbering numbering : {Numbering::AlongX, Numbering::Backwards, Numbering::Turned}) {
      SCOPED_TRACE("order " + std::to_string(order) + " numbering " + std::to_string(static_cast<int>(numbering)));
      FluidMesh fluid = fluid_mesh(
          test::water_on_steel(generate_box({0.0, 0.0, 1.0}, {7.0, 2.0, 3.0}, {7, 2, 2}, ElementType::HexGLL, order)));
      ElementBlock& block = fluid.model.mesh.blocks.at(0);
      ASSERT_EQ(block.n_elements(), 28);
      const int n = order + 1, np = n * n * n;
      const Index last = block.n_elements() - 1;
      const auto at = [&](Index element, int a, int b, int c) {  // point (a, b, c) of an element
        return static_cast<std::size_t>(element) * np + static_cast<std::size_t>(a + n * (b + n * c));
      };
      std::vector<Index> connectivity = block.connectivity;
      for (Index e = 0; e <= last; ++e)
        for (int k = 0; k < n; ++k)
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i)
              connectivity[at(e, i, j, k)] =
                  numbering == Numbering::Backwards             ? block.connectivity[at(last - e, i, j, k)]
                  : numbering == Numbering::Turned && e % 2 == 1 ? block.connectivity[at(e, i, n - 1 - k, j)]
                                                                 : block.connectivity[at(e, i, j, k)];
      block.connectivity = connectivity;  // (every element water: the table's sections alike)
      const std::vector<double> chi = field(fluid);
      const std::vector<double> expected = assembled_action(fluid, chi);
      double largest = 0.0;
      for (const double v : expected) largest = std::max(largest, std::abs(v));
      ASSERT_GT(largest, 0.0);
      const auto action = [&]<class Real>(const Exec& exec, Real) {
        const fem::DeviceElements elements(exec, fluid.model.mesh, fluid.table, fem::ElementColouring{});
        const sem::FluidKernels<Real> kernels(elements);
        EXPECT_EQ(std::string(kernels.geometry(0)), "per element");
        const std::vector<Real> in(chi.begin(), chi.end()), zero(chi.size(), Real(0));
        const DeviceArray<Real> x(exec, std::span<const Real>(in));
        DeviceArray<Real> y(exec, std::span<const Real>(zero));  // (add adds to it)
        kernels.add(exec, 0, block.n_elements(), nullptr, true, x.data(), y.data());
        const std::vector<Real> out = y.to_host();
        return std::vector<double>(out.begin(), out.end());
      };
      const std::vector<double> in_double = action(Exec::serial(), 0.0);
      const std::vector<double> in_float = action(Exec::openmp(), 0.0f);
      for (std::size_t i = 0; i < chi.size(); ++i) {
        EXPECT_NEAR(in_double[i], expected[i], 1e-13 * largest) << i;
        EXPECT_NEAR(in_float[i], expected[i], 1e-5 * largest) << i;
      }
    }
}

// K_f applied to k shots at once (apply_batch: a thread, or group of threads, per element and shot)
// gives each shot the bits of its apply alone: every kernel (the element kernel, the point kernel
// of quadrilaterals, the column kernel of hexahedra, per element, per point and trilinear), by
// colours in both precisions. On a GPU the same, by colours and by atomics (within 100 roundings
// of the largest force: the adds land in another order).
template <class Real>
void expect_batch_as_one_by_one(const Exec& exec, const FluidMesh& fluid, int k, bool atomic) {
  const auto elements = std::make_shared<const fem::DeviceElements>(exec, fluid.model.mesh, fluid.table,
                                                                     fem::colour_elements(fluid.model.mesh));
  const FluidOperator<Real> K(exec, elements, atomic);
  EXPECT_TRUE(K.fuses_batch());
  const std::vector<double> chi = field(fluid);
  const auto n = static_cast<std::size_t>(fluid.n_nodes());
  std::vector<Real> together_in(n * static_cast<std::size_t>(k));
  for (std::size_t i = 0; i < n; ++i)
    for (int s = 0; s < k; ++s) together_in[i * static_cast<std::size_t>(k) + static_cast<std::size_t>(s)] =
        static_cast<Real>(chi[i] * (1.0 + 0.25 * s) + 0.1 * s * std::sin(static_cast<double>(i)));
  const DeviceArray<Real> x(exec, std::span<const Real>(together_in));
  DeviceArray<Real> y(exec, static_cast<Index>(n * static_cast<std::size_t>(k)));
  K.apply_batch(x.view(), y.view(), k);
  const std::vector<Real> together = y.to_host();
  for (int s = 0; s < k; ++s) {
    std::vector<Real> column(n);
    for (std::size_t i = 0; i < n; ++i) column[i] = together_in[i * static_cast<std::size_t>(k) + static_cast<std::size_t>(s)];
    const DeviceArray<Real> xc(exec, std::span<const Real>(column));
    DeviceArray<Real> yc(exec, static_cast<Index>(n));
    K.apply(xc.view(), yc.view());
    const std::vector<Real> alone = yc.to_host();
    double largest = 0.0;
    for (const Real v : alone) largest = std::max(largest, std::abs(static_cast<double>(v)));
    ASSERT_GT(largest, 0.0);
    const double tolerance = atomic ? 100.0 * std::numeric_limits<Real>::epsilon() * largest : 0.0;
    Index differ = 0;
    for (std::size_t i = 0; i < n; ++i)
      differ += std::abs(static_cast<double>(together[i * static_cast<std::size_t>(k) + static_cast<std::size_t>(s)]) -
                         static_cast<double>(alone[i])) > tolerance;
    EXPECT_EQ(differ, 0) << "shot " << s << " of " << k;
  }
}

const std::vector<std::tuple<ElementType, int, Shape>> batch_cases = {
    {ElementType::Quad4, 1, Shape::Box},        {ElementType::Tet10, 2, Shape::Box},
    {ElementType::HexGLL, 1, Shape::Box},       {ElementType::QuadGLL, 3, Shape::Box},
    {ElementType::QuadGLL, 4, Shape::Curved},   {ElementType::HexGLL, 3, Shape::Box},
    {ElementType::HexGLL, 3, Shape::Curved},    {ElementType::HexGLL, 4, Shape::Trilinear},
    {ElementType::HexGLL, 2, Shape::Box}};

TEST(ExplicitFluid, OperatorAppliesShotsTogetherAsOneByOne) {
  for (const auto& [type, order, shape] : batch_cases) {
    SCOPED_TRACE(element_name(type, order) + (shape == Shape::Curved ? " curved" : shape == Shape::Trilinear ? " trilinear" : ""));
    const FluidMesh fluid = fluid_mesh(shaped(water_on_steel(type, order), shape));
    expect_batch_as_one_by_one<double>(Exec::serial(), fluid, 3, false);
    expect_batch_as_one_by_one<float>(Exec::openmp(), fluid, 5, false);
  }
}

TEST(ExplicitFluidGpu, OperatorAppliesShotsTogetherAsOneByOneOnAGpu) {
  TREMOR_REQUIRE_GPU();
  for (const auto& [type, order, shape] : batch_cases) {
    SCOPED_TRACE(element_name(type, order) + (shape == Shape::Curved ? " curved" : shape == Shape::Trilinear ? " trilinear" : ""));
    const FluidMesh fluid = fluid_mesh(shaped(water_on_steel(type, order), shape));
    for (const bool atomic : {false, true}) {
      expect_batch_as_one_by_one<double>(Exec::cuda(), fluid, 3, atomic);
      expect_batch_as_one_by_one<float>(Exec::cuda(), fluid, 16, atomic);
    }
  }
}

// The Lanczos estimate of the largest eigenvalue of M_f^-1 K_f is the dense one's: K_f assembled by
// the test (its action on unit vectors), M_f^-1/2 K_f M_f^-1/2 by Jacobi rotations. Lanczos on a
// system of at most a few hundred values converges to rounding before it stops: 1e-8.
TEST(ExplicitFluid, SpectrumIsTheLumpedSystemsLargestEigenvalue) {
  for (const auto& [type, order] : {std::pair{ElementType::Quad4, 1}, {ElementType::Tri6, 2}, {ElementType::Hex8, 1},
                                    {ElementType::HexGLL, 2}}) {
    SCOPED_TRACE(element_name(type, order));
    const FluidMesh fluid = fluid_mesh(water_on_steel(type, order));
    const auto n = static_cast<std::size_t>(fluid.n_nodes());
    const std::vector<double> mass = fluid_lumped_mass(fluid, Exec::serial());
    std::vector<double> A(n * n);
    for (std::size_t j = 0; j < n; ++j) {
      std::vector<double> unit(n, 0.0);
      unit[j] = 1.0;
      const std::vector<double> column = assembled_action(fluid, unit);
      for (std::size_t i = 0; i < n; ++i) A[i * n + j] = column[i] / std::sqrt(mass[i] * mass[j]);
    }
    const std::vector<double> eigenvalues = fem::test::symmetric_eigenvalues(A, static_cast<int>(n));
    const double largest = *std::max_element(eigenvalues.begin(), eigenvalues.end());
    EXPECT_NEAR(fluid_spectrum(fluid, Exec::openmp()).largest, largest, 1e-8 * largest);
  }
  Model solid = water_on_steel(ElementType::Quad4, 1);
  solid.sections[1].material = "steel";
  EXPECT_THROW((void)fluid_spectrum(fluid_mesh(solid), Exec::serial()), Error);
}

// On a GPU, by colours and by atomics, against the host: double to round-off (the same element
// arithmetic, sums in another order with atomics), float to 1e-5 of the largest force (the GLL
// blocks' sums in float, contracted into FMAs on the GPU).
TEST(ExplicitFluidGpu, OperatorOnTheGpuEqualsTheHost) {
  TREMOR_REQUIRE_GPU();
  for (const auto& [type, order, shape] :
       {std::tuple{ElementType::Quad4, 1, Shape::Box}, {ElementType::Hex8, 1, Shape::Box},
        {ElementType::Tet10, 2, Shape::Box}, {ElementType::HexGLL, 4, Shape::Box}, {ElementType::QuadGLL, 6, Shape::Box},
        {ElementType::HexGLL, 4, Shape::Curved}, {ElementType::HexGLL, 4, Shape::Trilinear},
        {ElementType::HexGLL, 2, Shape::Box}}) {
    SCOPED_TRACE(element_name(type, order) + (shape == Shape::Curved ? " curved" : shape == Shape::Trilinear ? " trilinear" : ""));
    const FluidMesh fluid = fluid_mesh(shaped(water_on_steel(type, order), shape));
    const std::vector<double> chi = field(fluid);
    const std::vector<double> host = operator_action<double>(Exec::serial(), fluid, chi, false);
    double largest = 0.0;
    for (const double v : host) largest = std::max(largest, std::abs(v));
    for (const bool atomic : {false, true}) {
      const std::vector<double> gpu = operator_action<double>(Exec::cuda(), fluid, chi, atomic);
      const std::vector<double> gpu_float = operator_action<float>(Exec::cuda(), fluid, chi, atomic);
      for (std::size_t i = 0; i < chi.size(); ++i) {
        EXPECT_NEAR(gpu[i], host[i], 1e-13 * largest) << i << (atomic ? " atomic" : " colours");
        EXPECT_NEAR(gpu_float[i], host[i], 1e-5 * largest) << i << (atomic ? " atomic" : " colours");
      }
    }
  }
}

// A volume source V(t) loads its fluid node (the fluid's numbering) by -V(t); forces on the
// solid are not the fluid's; a volume source where no fluid element is, is refused.
TEST(ExplicitFluid, VolumeSourcesLoadTheFluidNodes) {
  Model model = water_on_steel(ElementType::Quad4, 1);  // nodes 3 to 8 (y >= 1) are the fluid's 0 to 5
  PointSource volume;
  volume.nodes = {7};
  volume.volume = true;
  volume.amplitude = 2e-9;
  volume.signal = Signal::ricker(1e3);
  volume.origin = "m.toml:30";
  model.point_sources.push_back(volume);
  PointSource force;
  force.nodes = {1};
  force.direction = {0.0, 1.0, 0.0};
  force.origin = "m.toml:40";
  model.point_sources.push_back(force);
  const FluidMesh fluid = fluid_mesh(model);
  const Loading loading = fluid_loading(model, fluid);
  EXPECT_EQ(loading.n_dofs(), 6);
  EXPECT_EQ(loading.loaded_dofs(), std::vector<Index>{4});
  EXPECT_TRUE(loading.constrained_dofs().empty());
  std::vector<double> value(1);
  loading.forces(1.2e-3, value);
  EXPECT_DOUBLE_EQ(value[0], -2e-9 * Signal::ricker(1e3).value(1.2e-3));
  // The solid's loading leaves the volume out.
  const Loading solid(model);
  EXPECT_EQ(solid.loaded_dofs(), std::vector<Index>{3});
  model.point_sources.front().nodes = {1};
  test::expect_contains(test::error_of([&] { (void)fluid_loading(model, fluid); }),
                        {"m.toml:30: a volume source at node 2, which no fluid element holds"});
}

// A piston on the water's top (z = 2) of a 3D block: driven by velocity, the volume sources at its
// faces' nodes total -pi r^2 v int s dt (the disc's area whatever the mesh: r = 0.6 on faces of
// 0.25), each node's share of it; driven by pressure, chi held at -P int int s dt at the nodes within
// the radius. Refused: a radius of 0, a surface the mesh lacks, a centre off the surface, a piston
// on the solid's face, one in a model without fluid.
TEST(ExplicitFluid, APistonLoadsItsShareOfTheDisc) {
  Model model = test::water_on_steel(generate_box({0.0, 0.0, 0.0}, {2.0, 2.0, 2.0}, {8, 8, 8}, ElementType::Hex8, 1));
  Transducer piston;
  piston.name = "probe";
  piston.mode = Transducer::Mode::Piston;
  piston.position = {1.1, 0.9, 2.0};
  piston.radius = 0.6;
  piston.surface = "zmax";
  piston.amplitude = 0.01;  // m/s
  piston.signal = Signal::ricker(1e3);
  piston.origin = "m.toml:70";
  add_transducer(model, piston);
  model.validate();
  const FluidMesh fluid = fluid_mesh(model);
  const Loading loading = fluid_loading(model, fluid);
  EXPECT_TRUE(loading.constrained_dofs().empty());
  std::vector<double> values(loading.loaded_dofs().size());
  const double t = 1.3e-3, disc = std::numbers::pi * 0.36;
  loading.forces(t, values);
  double total = 0.0;
  for (std::size_t k = 0; k < values.size(); ++k) {
    total += values[k];
    const Index node = fluid.nodes[static_cast<std::size_t>(loading.loaded_dofs()[k])];
    EXPECT_NEAR(model.mesh.node(node)[2], 2.0, 1e-12);  // the top's nodes only
  }
  // Bound: the disc's edge within 1e-4 of a face's area (fem::disc_weights), relative 1e-4.
  EXPECT_NEAR(total, -0.01 * disc * Signal::ricker(1e3).integral(t, 1), 1e-4 * std::abs(total));
  EXPECT_EQ(Loading(model).loaded_dofs().size(), 0u);  // the solid takes none of it
  // The run's subdomains load the fluid from the model's solid part, numbered without the fluid's
  // elements: the same loads.
  const Loading from_solid = fluid_loading(fem::solid_part(model), fluid);
  EXPECT_EQ(from_solid.loaded_dofs(), loading.loaded_dofs());
  std::vector<double> again(values.size());
  from_solid.forces(t, again);
  EXPECT_EQ(again, values);

  // Driven by pressure: the potential held at the nodes within 0.6 m of the centre.
  Model pressed = model;
  pressed.transducers.back().drive = Transducer::Drive::Pressure;
  pressed.transducers.back().amplitude = 2e3;  // Pa
  const Loading held = fluid_loading(pressed, fluid);
  EXPECT_TRUE(held.loaded_dofs().empty());
  std::size_t within = 0;
  for (Index node = 0; node < model.mesh.n_nodes(); ++node) {
    const auto x = model.mesh.node(node);
    if (std::abs(x[2] - 2.0) < 1e-12 && std::hypot(x[0] - 1.1, x[1] - 0.9) <= 0.6) ++within;
  }
  ASSERT_EQ(held.prescribed_dofs().size(), within);
  std::vector<double> chi(within);
  held.prescribed(t, chi);
  for (const double value : chi) EXPECT_DOUBLE_EQ(value, -2e3 * Signal::ricker(1e3).integral(t, 2));

  const auto refused = [&](Transducer bad) {
    Model copy = test::water_on_steel(generate_box({0.0, 0.0, 0.0}, {2.0, 2.0, 2.0}, {8, 8, 8}, ElementType::Hex8, 1));
    return test::error_of([&] {
      add_transducer(copy, bad);
      copy.validate();
      (void)fluid_loading(copy, fluid_mesh(copy));
    });
  };
  Transducer bad = piston;
  bad.radius = 0.0;
  test::expect_contains(refused(bad), {"m.toml:70: piston 'probe': its radius is 0 m"});
  bad = piston;
  bad.surface = "top";
  test::expect_contains(refused(bad), {"m.toml:70: piston 'probe': the mesh has no surface 'top'"});
  bad = piston;
  bad.position = {1.0, 1.0, 5.0};
  test::expect_contains(refused(bad), {"m.toml:70: piston 'probe' centred at (1, 1, 5) is not on surface 'zmax' (its "
                                       "nearest node of the surface is 3 m away)"});
  bad = piston;
  bad.surface = "zmin";
  bad.position = {1.0, 1.0, 0.0};
  test::expect_contains(refused(bad), {"m.toml:70: piston 'probe' on surface 'zmin': element",
                                       "is no fluid's: a piston stands on a fluid's surface"});
  Model dry = test::water_on_steel(generate_box({0.0, 0.0, 0.0}, {2.0, 2.0, 2.0}, {8, 8, 8}, ElementType::Hex8, 1));
  dry.sections.back().material = "steel";
  add_transducer(dry, piston);
  test::expect_contains(test::error_of([&] { dry.validate(); }),
                        {"m.toml:70: piston 'probe' drives a fluid, and the model has no fluid section"});
  // Wholly on a pressure-release boundary it would move nothing: refused, naming both lines. A soft
  // baffle sharing some of its nodes is taken.
  std::vector<Index> driven;
  for (const Index dof : loading.loaded_dofs()) driven.push_back(fluid.nodes[static_cast<std::size_t>(dof)]);
  Model soft = model;
  soft.fixed.push_back({driven, FixedDof::pressure, 0.0, "", "m.toml:80"});
  soft.validate();
  test::expect_contains(test::error_of([&] { (void)fluid_loading(soft, fluid_mesh(soft)); }),
                        {"m.toml:70: piston 'probe' on surface 'zmax': every node it drives is held at p = 0 by the "
                         "pressure-release boundary of m.toml:80, where it would radiate nothing"});
  soft.fixed.back().nodes.pop_back();
  EXPECT_NO_THROW((void)fluid_loading(soft, fluid_mesh(soft)));
}

// A pressure-release boundary holds chi at 0 at its nodes (the fluid's numbering) and leaves the
// solid's loading alone; one at a node no fluid element holds is refused, naming its line; the
// acoustic pressure in a model without fluids, or a pressure other than 0, at validation.
TEST(ExplicitFluid, APressureReleaseHoldsThePotential) {
  Model model = water_on_steel(ElementType::Quad4, 1);  // nodes 3 to 8 (y >= 1) are the fluid's 0 to 5
  model.fixed.push_back({{6, 7, 8}, FixedDof::pressure, 0.0, "", "m.toml:60"});
  model.validate();
  const FluidMesh fluid = fluid_mesh(model);
  EXPECT_EQ(fluid_loading(model, fluid).constrained_dofs(), (std::vector<Index>{3, 4, 5}));
  EXPECT_TRUE(Loading(model).constrained_dofs().empty());
  model.fixed.back().nodes = {7, 1};
  test::expect_contains(test::error_of([&] { (void)fluid_loading(model, fluid); }),
                        {"m.toml:60: a pressure-release boundary at node 2, which no fluid element holds"});
  model.fixed.back().value = 3.0;
  test::expect_contains(test::error_of([&] { model.validate(); }),
                        {"m.toml:60: a prescribed pressure of 3: a fluid's pressure is held at 0"});
  Model dry = water_on_steel(ElementType::Quad4, 1);
  dry.sections.back().material = "steel";
  dry.fixed.push_back({{6}, FixedDof::pressure, 0.0, "", "m.toml:61"});
  test::expect_contains(test::error_of([&] { dry.validate(); }),
                        {"m.toml:61: the acoustic pressure (degree of freedom 8) is a fluid's"});
}

// What acts on a displacement acts on solids: a displacement held or prescribed where every node
// it names is only a fluid's, and a body force on fluid elements, are refused naming their line; a
// held face spanning both holds the solid's nodes, and a body force on the solid's elements is
// renumbered with them.
TEST(ExplicitFluid, DisplacementsAndBodyForcesOnTheFluidAreRefused) {
  const Model base = water_on_steel(ElementType::Quad4, 1);  // nodes 6 to 8 (y = 2) only the water's
  Model model = base;
  PrescribedDisplacement motion;
  motion.nodes = {6, 7};
  motion.components = {1};
  motion.factor = {0.0, 1.0, 0.0};
  motion.signal = Signal::ricker(600.0);
  motion.origin = "m.toml:40";
  model.prescribed.push_back(motion);
  test::expect_contains(test::error_of([&] { (void)fem::solid_part(model); }),
                        {"m.toml:40: a prescribed displacement at 2 nodes (node 7) which only fluid elements hold"});
  model.prescribed.back().nodes = {3, 6};  // the interface's node 3 is the steel's too
  EXPECT_EQ(fem::solid_part(model).prescribed.size(), 1u);
  model = base;
  model.fixed.push_back({{6, 7, 8}, 0, 0.0, "", "m.inp:12"});
  test::expect_contains(test::error_of([&] { (void)fem::solid_part(model); }),
                        {"m.inp:12: a held displacement at 3 nodes (node 7) which only fluid elements hold"});
  model = base;
  BodyForce gravity;
  gravity.elements = {0, 1, 2, 3};  // every element: 2 and 3 are the water's
  gravity.acceleration = {0.0, -9.81, 0.0};
  gravity.origin = "m.toml:50";
  model.body_forces.push_back(gravity);
  test::expect_contains(test::error_of([&] { (void)fem::solid_part(model); }),
                        {"m.toml:50: the body force on every element acts on 2 fluid elements (element 3)",
                         "give the solid's element set"});
  model.body_forces.back().elements = {0, 1};
  const Model solid = fem::solid_part(model);
  EXPECT_EQ(solid.body_forces.front().elements, (std::vector<Index>{0, 1}));
}

// Steel (y < 0.01) under water (to 0.02) of 4 x 4 quad4 in a model file, `tail` after its sections
// (line 31 on).
Model water_on_steel_file(const std::string& tail) {
  return io::read_model_buffer(
      "[mesh]\ngenerator = \"rectangle\"\nelement = \"quad4\"\nsize = [0.02, 0.02]\ndivisions = [4, 4]\n"
      "[[mesh.element_set]]\nname = \"steel\"\nmin = [0.0, 0.0]\nmax = [0.02, 0.01]\n"
      "[[mesh.element_set]]\nname = \"water\"\nmin = [0.0, 0.01]\nmax = [0.02, 0.02]\n"
      "[[material]]\nname = \"steel\"\ndensity = 7850.0\nyoungs_modulus = 210e9\npoisson_ratio = 0.3\n"
      "[[material]]\nname = \"water\"\nkind = \"fluid\"\ndensity = 1000.0\nsound_speed = 1480.0\n"
      "[[section]]\nelement_set = \"steel\"\nmaterial = \"steel\"\nformulation = \"plane_strain\"\n"
      "[[section]]\nelement_set = \"water\"\nmaterial = \"water\"\n" + tail,
      "m.toml", "");
}

// A piston on the water's top driven by pressure (line 31), its signal `signal`.
std::string pressure_piston(const std::string& name, double x, const std::string& signal) {
  return str("[[transducer]]\nname = \"", name, "\"\nmode = \"piston\"\nsurface = \"ymax\"\nposition = [", x,
             ", 0.02]\nradius = 0.005\ndrive = \"pressure\"\namplitude = 1e5\nsignal = ", signal, "\n");
}

// A piston whose signal's integral is not zero (a Gaussian) makes the fluid's potential grow behind
// its pulse, which float's pressure does not keep: the pre-flight of a float run names it once;
// a tone burst, or a double run, is not warned.
TEST(ExplicitFluid, AFloatRunWarnsOfAPistonWhoseSignalDoesNotAverageZero) {
  const auto model = [](const std::string& signal, const std::string& precision) {
    return water_on_steel_file(pressure_piston("probe", 0.01, signal) + "[explicit]\nduration = 2e-5\nprecision = \"" +
                               precision + "\"\n");
  };
  const auto drift = [](const Model& m) {
    const explicit_fe::Preflight p = explicit_fe::preflight(m);
    return std::count_if(p.warnings.begin(), p.warnings.end(), [](const std::string& w) {
      return w.find("m.toml:31: piston 'probe' in the fluid: a signal whose time integral is not zero") !=
             std::string::npos;
    });
  };
  const log::Quiet quiet;
  const std::string gaussian = "{ kind = \"gaussian\", sharpness = 1e13 }";
  EXPECT_EQ(drift(model(gaussian, "float")), 1);
  EXPECT_EQ(drift(model(gaussian, "double")), 0);
  EXPECT_EQ(drift(model("{ kind = \"tone_burst\", frequency = 1e6, cycles = 3 }", "float")), 0);
  EXPECT_EQ(drift(model("{ kind = \"ricker\", frequency = 1e6 }", "float")), 0);
}

// Holds of one fluid node's pressure that cannot both act are refused naming both: a piston driven by
// pressure on a pressure release's nodes, or on another's; and a volume source every node of which
// is held, which would inject nothing.
TEST(ExplicitFluid, ConflictingPressureHoldsAreRefused) {
  const std::string ricker = "{ kind = \"ricker\", frequency = 1e5 }";
  const auto loading_error = [](const Model& model) {
    return test::error_of([&] { (void)fluid_loading(model, fluid_mesh(model)); });
  };
  const std::string released = "[[pressure_release]]\nnode_set = \"ymax\"\n";
  test::expect_contains(loading_error(water_on_steel_file(pressure_piston("probe", 0.01, ricker) + released)),
                        {"m.toml:31: piston 'probe' driven by pressure holds node", "which the pressure-release "
                         "boundary of m.toml:40 holds at p = 0"});
  test::expect_contains(
      loading_error(water_on_steel_file(pressure_piston("a", 0.008, ricker) + pressure_piston("b", 0.012, ricker))),
      {"m.toml:40: piston 'b' driven by pressure holds node", "which piston 'a' (m.toml:31) holds too"});
  const Model apart = water_on_steel_file(pressure_piston("a", 0.004, ricker) + pressure_piston("b", 0.016, ricker));
  EXPECT_NO_THROW((void)fluid_loading(apart, fluid_mesh(apart)));
  const std::string source = "[[source]]\nnode_set = \"ymax\"\nvolume = 1e-9\nsignal = " + ricker + "\n";
  test::expect_contains(loading_error(water_on_steel_file(source + released)),
                        {"m.toml:31: the volume source at node", "would inject nothing"});
}

// An alid or srm layer over fluid elements damps them as a solid's (model/absorbing.hpp): the fluid
// mesh's table holds the model's profile at its elements, the lumped damping is alpha M_f lumped,
// an srm layer scales K_f (the element kernel's and the sum-factorised one's), and the run takes
// it (a PML over fluid elements: explicit_fluid_pml_test.cpp).
TEST(ExplicitFluid, AbsorbingLayersDampTheFluid) {
  Model model = water_on_steel(ElementType::Quad4, 1);  // elements 0, 1 steel (y < 1), 2, 3 water
  AbsorbingLayer layer;
  layer.faces = {BoxFace::XMax};
  layer.thickness = 1.0;  // the elements x > 1: steel 1, water 3 (indices)
  layer.alpha_max = 1e3;
  layer.origin = "m.toml:70";
  model.absorbing.push_back(layer);
  ExplicitSettings settings;
  settings.duration = 1e-4;
  model.explicit_settings = settings;
  model.validate();
  FluidMesh fluid = fluid_mesh(model);
  // Element 3's centroid lies half way into the layer: alpha = 1e3 x 0.5^3.
  EXPECT_EQ(fluid.table.element_alpha, (std::vector<double>{0.0, 125.0}));
  EXPECT_EQ(fluid.table.element_stiffness_factor, (std::vector<double>{1.0, 1.0}));  // alid: K unchanged
  // Fluid node (j - 1) 3 + i at (i, j): x = 2 only element 3's (alpha M), x = 1 half its (the two
  // elements' equal shares), x = 0 none.
  const std::vector<double> mass = fluid_lumped_mass(fluid, Exec::serial());
  const std::vector<double> damping = fluid_lumped_damping(fluid, Exec::serial());
  ASSERT_EQ(damping.size(), 6u);
  for (std::size_t n = 0; n < 6; ++n) {
    const double share = std::array{0.0, 0.5, 1.0}[n % 3];
    EXPECT_NEAR(damping[n], 125.0 * share * mass[n], 1e-12 * 125.0 * mass[n]) << n;
  }
  RunOptions options;
  options.backend = "serial";
  EXPECT_NO_THROW((void)preflight(model, options));
  // srm: K_f of element 3 scaled (the factor at X = 0.5 of 1 / sqrt(1 + (alpha / omega0)^2)).
  for (const auto& [type, order] : {std::pair{ElementType::Quad4, 1}, {ElementType::QuadGLL, 3}}) {
    SCOPED_TRACE(element_name(type, order));
    Model srm = water_on_steel(type, order);
    srm.absorbing = {layer};
    srm.absorbing.front().kind = AbsorbingKind::Srm;
    srm.absorbing.front().frequency = 100.0;
    srm.validate();
    fluid = fluid_mesh(srm);
    const double omega0 = 2.0 * std::acos(-1.0) * 100.0;
    EXPECT_NEAR(fluid.table.element_stiffness_factor.at(1), 1.0 / std::sqrt(1.0 + std::pow(125.0 / omega0, 2)),
                1e-15);
    const std::vector<double> chi = field(fluid);
    const std::vector<double> expected = assembled_action(fluid, chi);
    const std::vector<double> action = operator_action<double>(Exec::serial(), fluid, chi, false);
    double largest = 0.0;
    for (const double v : expected) largest = std::max(largest, std::abs(v));
    for (std::size_t i = 0; i < chi.size(); ++i) EXPECT_NEAR(action[i], expected[i], 1e-13 * largest) << i;
  }
}

// A receiver of pressure lies in the fluid: nodes fluid elements hold (an interface node too),
// positions located among the fluid's elements (a point on the interface in a fluid element). A
// receiver of motion records the solid's where a solid element holds its points, else the
// fluid's from its potential (u = grad chi / rho: each point's gradients of the shape functions
// over rho, at a node those of a fluid element holding it); its points on both sides, or pressure
// in the solid, are refused, naming the receiver and the points. The solid part leaves the
// fluid's receivers out.
TEST(ExplicitFluid, ReceiversOfPressureLieInTheFluid) {
  Model model = water_on_steel(ElementType::Quad4, 1);  // elements 0, 1 steel (y < 1), 2, 3 water
  const auto receiver = [](std::string name, bool pressure, std::vector<Index> nodes,
                           std::vector<std::array<double, 3>> positions) {
    Receiver r;
    r.name = std::move(name);
    r.origin = "m.toml:50";
    r.displacement = !pressure;
    r.pressure = pressure;
    r.nodes = std::move(nodes);
    r.positions = std::move(positions);
    return r;
  };
  model.receivers = {receiver("top", true, {7, 4}, {}),
                     receiver("inside", true, {}, {{0.5, 1.5, 0.0}, {1.5, 1.0, 0.0}}),
                     receiver("steel", false, {}, {{0.5, 1.0, 0.0}}), receiver("water node", false, {7}, {}),
                     receiver("water", false, {}, {{0.25, 1.5, 0.0}})};
  model.validate();
  const std::vector<History> histories = make_histories(model, 1e-7);
  ASSERT_EQ(histories.size(), 5u);
  EXPECT_EQ(histories[0].quantities, std::vector<Quantity>{Quantity::Pressure});
  EXPECT_EQ(histories[0].components(), 1);
  EXPECT_EQ(histories[0].sample_size(), 2u);
  EXPECT_EQ(histories[1].locations[0].element, 2);
  EXPECT_EQ(histories[1].locations[1].element, 3);  // on the interface: the water's element
  EXPECT_EQ(histories[2].locations[0].element, 0);  // on the interface: the steel's element
  EXPECT_EQ(histories[2].components(), 2);
  EXPECT_FALSE(histories[0].potential || histories[2].potential);
  // In the water, motion from the potential: at (0.25, 1.5) in element 2 ([0, 1] x [1, 2]) the
  // bilinear shape functions' gradients over rho = 1000 (node 3 at (0, 1): -(1 - xi) / 2... in x).
  const History& water = histories[4];
  EXPECT_TRUE(water.potential && histories[3].potential);
  ASSERT_EQ(water.locations[0].gradients.size(), 8u);  // 4 nodes x 2 components
  double sum_x = 0.0, sum_y = 0.0;
  for (int a = 0; a < 4; ++a) {
    sum_x += water.locations[0].gradients[static_cast<std::size_t>(2 * a)];
    sum_y += water.locations[0].gradients[static_cast<std::size_t>(2 * a + 1)];
  }
  EXPECT_NEAR(sum_x, 0.0, 1e-15);  // the gradient of a constant
  EXPECT_NEAR(sum_y, 0.0, 1e-15);
  // d N / d x of the node at (0, 1) (node 3): -(1 - y') / 1 with y' = 0.5: -0.5, over rho.
  const auto at = std::find(water.locations[0].nodes.begin(), water.locations[0].nodes.end(), 3);
  ASSERT_NE(at, water.locations[0].nodes.end());
  const auto a = static_cast<std::size_t>(at - water.locations[0].nodes.begin());
  EXPECT_NEAR(water.locations[0].gradients[2 * a], -0.5 / 1000.0, 1e-15);
  EXPECT_NEAR(water.locations[0].gradients[2 * a + 1], -0.75 / 1000.0, 1e-15);  // -(1 - x') with x' = 0.25
  EXPECT_EQ(histories[3].locations.size(), 1u);  // the node's own, in a water element
  const Model solid = fem::solid_part(model);
  for (const Receiver& kept : solid.receivers) EXPECT_TRUE(kept.name == "steel" || kept.name == "water") << kept.name;

  const auto refused = [&](Receiver r) {
    Model one = model;
    one.receivers = {std::move(r)};
    return test::error_of([&] { (void)make_histories(one, 1e-7); });
  };
  test::expect_contains(refused(receiver("p", true, {1}, {})),
                        {"m.toml:50: receiver 'p' records node 2, which only solid elements hold: it lies in the "
                         "solid: pressure is recorded in a fluid"});
  test::expect_contains(refused(receiver("u", false, {1, 7}, {})),
                        {"m.toml:50: receiver 'u' records node 2 in the solid and node 8 in the fluid: a history's "
                         "points lie on one side; give each side its own receiver"});
  test::expect_contains(refused(receiver("p", true, {}, {{0.5, 0.5, 0.0}})),
                        {"receiver 'p': position (0.5, 0.5) lies in the solid: pressure is recorded in a fluid"});
  test::expect_contains(refused(receiver("u", false, {}, {{0.5, 1.5, 0.0}, {0.5, 0.5, 0.0}})),
                        {"receiver 'u' records position (0.5, 0.5) in the solid and position (0.5, 1.5) in the fluid"});
  test::expect_contains(refused(receiver("u", false, {}, {{0.5, 2.5, 0.0}})),
                        {"receiver 'u': position (0.5, 2.5) lies outside the mesh"});
  // Pressure beside motion, and pressure in a model without fluids.
  Receiver both = receiver("both", true, {7}, {});
  both.velocity = true;
  model.receivers = {both};
  test::expect_contains(test::error_of([&] { model.validate(); }),
                        {"m.toml:50: receiver 'both' records pressure beside motion"});
  Model dry = model;
  dry.receivers = {receiver("p", true, {7}, {})};
  dry.sections.back().material = "steel";
  test::expect_contains(test::error_of([&] { dry.validate(); }), {"receiver 'p' records pressure, which a fluid has"});
}

// Keeps the pressure of every snapshot offered.
class TakesSnapshots : public Observer {
 public:
  void on_snapshot(const Snapshot& snapshot) override {
    pressure.emplace_back(snapshot.pressure.begin(), snapshot.pressure.end());
  }
  std::vector<std::vector<double>> pressure;
};

// An absorbing layer 0.5 m thick on the right (x max) of the fluid models below: damped nodes.
AbsorbingLayer right_layer() {
  AbsorbingLayer layer = test::alid_layer({BoxFace::XMax}, 0.5);
  layer.alpha_max = 2e3;
  layer.origin = "m.toml:70";
  return layer;
}

// `model` given snapshots of pressure every step at `snapshot_nodes`; returned, the same with them
// at every node.
Model with_pressure_snapshots(Model& model, const std::vector<Index>& snapshot_nodes) {
  OutputSettings output;
  output.snapshot_every = 1;
  output.pressure = true;
  Model everywhere = model;
  everywhere.output = output;
  everywhere.validate();
  output.snapshot_nodes = snapshot_nodes;
  model.output = output;
  model.validate();
  return everywhere;
}

// The fluid's term of `model` as its run on the host sets it up (its receivers in the fluid).
struct PlannedFluid {
  explicit PlannedFluid(const Model& model) : p(preflight(model)) {
    std::vector<History> in_fluid;
    for (const History& history : *p.histories)
      if (records_fluid(history)) in_fluid.push_back(history);
    term = std::make_unique<FluidTerm<double>>(Exec::serial(), *p.fluid, one_domain_numbering(*p.solid, p),
                                               fluid_loading(model, p.fluid->mesh), std::move(in_fluid), p.dt, false);
  }
  Preflight p;
  std::unique_ptr<FluidTerm<double>> term;
};

// Runs `model` (snapshots of pressure at `snapshot_nodes`) and `everywhere` (the same with them at
// every node) on `backend`, colour by colour, and asserts every history and the snapshots' pressure
// equal bit for bit, each reached by the pulse (not zeros compared); on a GPU, first that a run
// repeats itself.
void expect_same_runs(const Model& model, const Model& everywhere, const std::vector<Index>& snapshot_nodes,
                      const std::string& backend) {
  RunOptions options;
  options.backend = backend;
  options.deterministic = true;
  TakesSnapshots few, every;
  const auto read = explicit_fe::run_explicit(model, options, &few);
  const auto all = explicit_fe::run_explicit(everywhere, options, &every);
  ASSERT_TRUE(read.ok() && all.ok()) << read.message << all.message;
  // (The same step: the pre-flight's Lanczos repeats itself; and on a GPU a run repeats itself.)
  ASSERT_EQ(read.dt, all.dt);
  ASSERT_EQ(read.histories.size(), model.receivers.size());
  ASSERT_EQ(all.histories.size(), read.histories.size());
  if (backend == "cuda") {
    TakesSnapshots again_taken;
    const auto again = explicit_fe::run_explicit(everywhere, options, &again_taken);
    ASSERT_TRUE(again.ok()) << again.message;
    for (std::size_t h = 0; h < all.histories.size(); ++h)
      EXPECT_EQ(again.histories[h].values, all.histories[h].values) << "again: " << all.histories[h].name;
  }
  for (std::size_t h = 0; h < read.histories.size(); ++h) {
    const std::vector<double>& values = read.histories[h].values;
    EXPECT_EQ(values, all.histories[h].values) << read.histories[h].name;
    double largest = 0.0;
    for (const double v : values) largest = std::max(largest, std::abs(v));
    EXPECT_GT(largest, 0.0) << read.histories[h].name;  // the pulse reached it: not zeros compared
  }
  ASSERT_GT(few.pressure.size(), 100u);
  ASSERT_EQ(few.pressure.size(), every.pressure.size());
  double largest = 0.0;
  for (std::size_t t = 0; t < few.pressure.size(); ++t)
    for (std::size_t k = 0; k < snapshot_nodes.size(); ++k) {
      ASSERT_EQ(few.pressure[t][k], every.pressure[t][static_cast<std::size_t>(snapshot_nodes[k])]) << t;
      largest = std::max(largest, std::abs(few.pressure[t][k]));
    }
  EXPECT_GT(largest, 0.0);
}

// The pressure computed where it is read (at the interface's nodes, the receivers' and the
// snapshots', from the step's forces before the update; FluidTerm::read_pressure_at) is the
// update's own, bit for bit: a run whose receivers and snapshots read p at a few nodes against the
// same run with snapshots of pressure at every node (the update then writes it at every one). On
// quadrilaterals (interface rows with other columns: p at the interface's nodes apart, C p after
// it) and GLL ones (each row its own column: p and C p in one pass), in double and float, with an
// absorbing layer on the right (damped nodes: C' read) and the water's top a pressure release (held
// nodes, p 0), receivers in both: the solid's motion (which the fluid's C p moves), the water's, the
// pressure, and the snapshots' pressure at their nodes. `backend` "cuda" colours (deterministic):
// a GPU's atomics sum in another order every run.
void expect_pressure_where_read_is_the_updates(const std::string& backend) {
  for (const auto& [type, order] : {std::pair{ElementType::Quad4, 1}, {ElementType::QuadGLL, 3}})
    for (const std::string precision : {"double", "float"}) {
      SCOPED_TRACE(element_name(type, order) + " " + precision + " on " + backend);
      // (Fine enough that the nodes read are fewer than an eighth of the fluid's: 561 fluid nodes,
      // 33 on the interface, at most 16 of the receivers and 3 of the snapshots for quadrilaterals;
      // 1,225, at most 64 and 3 for GLL ones.)
      const int n = type == ElementType::Quad4 ? 32 : 16;
      Model model = test::water_pulse(generate_rectangle({0.0, 0.0}, {2.0, 2.0}, {n, n}, type, order), precision);
      ASSERT_EQ(model.point_sources[0].nodes.size(), 1u);
      model.absorbing.push_back(right_layer());
      std::vector<Index> top, snapshot_nodes;
      for (Index node = 0; node < model.mesh.n_nodes(); ++node) {
        const double x = model.mesh.coordinates[2 * static_cast<std::size_t>(node)];
        const double y = model.mesh.coordinates[2 * static_cast<std::size_t>(node) + 1];
        if (std::abs(y - 2.0) < 1e-9) top.push_back(node);
        if (std::abs(y - 1.25) < 1e-9 && (std::abs(x - 0.5) < 1e-9 || std::abs(x - 1.0) < 1e-9 ||
                                          std::abs(x - 1.75) < 1e-9))
          snapshot_nodes.push_back(node);
      }
      ASSERT_EQ(snapshot_nodes.size(), 3u);
      model.fixed.push_back({top, FixedDof::pressure, 0.0, "", "m.toml:60"});
      Receiver steel, water, pressure;
      steel.name = "steel";
      steel.positions = {{0.6, 0.8, 0.0}, {1.3, 1.0, 0.0}};
      water.name = "water";
      water.positions = {{0.7, 1.3, 0.0}};
      pressure.name = "p";
      pressure.displacement = false;
      pressure.pressure = true;
      // in the water, on the interface, in the layer, at the pressure release
      pressure.positions = {{0.3, 1.6, 0.0}, {1.1, 1.0, 0.0}, {1.8, 1.4, 0.0}, {0.9, 2.0, 0.0}};
      for (Receiver* r : {&steel, &water, &pressure}) r->origin = "m.toml:30";
      model.receivers = {steel, water, pressure};
      const Model everywhere = with_pressure_snapshots(model, snapshot_nodes);
      {  // the two ways, as the runs below take them (on the host: the same plan)
        const PlannedFluid planned(model);
        FluidTerm<double>& term = *planned.term;
        EXPECT_EQ(term.diagonal_coupling(), type == ElementType::QuadGLL);
        std::vector<Index> in_snapshots;
        for (const Index node : snapshot_nodes) in_snapshots.push_back(term.fluid_node(node));
        term.read_pressure_at(in_snapshots);
        EXPECT_FALSE(term.writes_pressure_everywhere());
        std::vector<Index> all(static_cast<std::size_t>(term.n_fluid_nodes()));
        std::iota(all.begin(), all.end(), Index(0));
        term.read_pressure_at(all);
        EXPECT_TRUE(term.writes_pressure_everywhere());
      }
      expect_same_runs(model, everywhere, snapshot_nodes, backend);
    }
}

TEST(ExplicitFluid, ThePressureWhereItIsReadIsTheUpdatesOwn) { expect_pressure_where_read_is_the_updates("openmp"); }

TEST(ExplicitFluidGpu, ThePressureWhereItIsReadIsTheUpdatesOwnOnAGpu) {
  TREMOR_REQUIRE_GPU();
  expect_pressure_where_read_is_the_updates("cuda");
}

// The step of the fluid's nodes that one element alone holds, taken by that element's kernel where
// it would add K chi there (op::InnerStep: the update skips them), is the update's own, bit for
// bit: a box of GLL hexahedra of order 3 (8 inner nodes an element) with a volume source at an
// element's inner node (left to the update: its load joins K chi first), receivers of pressure at
// another's and snapshots at three nodes, one of them inner (their elements' inner nodes left to
// the update: p read from K chi there), an absorbing layer on the right (damped inner nodes),
// against the same run with snapshots of pressure at every
// node (the update then steps every node: FluidTerm::inner_nodes_stepped 0). Double and float;
// `backend` "cuda" colours (deterministic): a GPU's atomics sum in another order every run.
void expect_inner_nodes_step_as_the_update(const std::string& backend) {
  for (const std::string precision : {"double", "float"}) {
    SCOPED_TRACE(precision + " on " + backend);
    Model model = test::water_on_steel_box(precision, 3);
    const auto near = [&](double x, double y, double z) { return test::nearest_node(model.mesh, x, y, z); };
    // (Elements of 0.5 m: GLL points at 0.138 and 0.362 of an element, each of these inside one.)
    model.point_sources[0].nodes = {near(1.1, 1.1, 1.6)};
    model.absorbing.push_back(right_layer());  // damped inner nodes: C' read where the elements step them
    std::vector<Index> snapshot_nodes = {near(0.6, 0.4, 1.4), near(1.0, 1.0, 1.25), near(1.5, 1.5, 2.0)};
    std::sort(snapshot_nodes.begin(), snapshot_nodes.end());
    Receiver inner;
    inner.name = "p at an inner node";
    inner.displacement = false;
    inner.pressure = true;
    inner.nodes = {near(0.4, 1.6, 1.6)};
    inner.origin = "m.toml:30";
    model.receivers.push_back(inner);
    const Model everywhere = with_pressure_snapshots(model, snapshot_nodes);
    {  // the plan, as the runs below take it (on the host: the same)
      const PlannedFluid planned(model);
      FluidTerm<double>& term = *planned.term;
      // 32 elements of water, 8 inner nodes each: all but the source's (loaded: the update's) and
      // those of the elements where pressure is read at one, the receiver's at an inner node and the
      // two receivers' at positions (interpolated from every node of their element).
      const Index stepped = term.inner_nodes_stepped();
      EXPECT_EQ(stepped, 32 * 8 - 1 - 3 * 8);
      std::vector<Index> in_snapshots;
      for (const Index node : snapshot_nodes) in_snapshots.push_back(term.fluid_node(node));
      term.read_pressure_at(in_snapshots);
      EXPECT_FALSE(term.writes_pressure_everywhere());
      EXPECT_EQ(term.inner_nodes_stepped(), stepped - 8);  // the inner snapshot node's element's left
      // A run's loads at another inner node (a kept set-up's next run): its element's left too, and
      // back with the first loads.
      Model moved = model;
      moved.point_sources[0].nodes = {near(0.6, 1.4, 1.9)};
      term.load_shot(fluid_loading(moved, planned.p.fluid->mesh));
      EXPECT_EQ(term.inner_nodes_stepped(), stepped - 16);
      term.load_shot(fluid_loading(model, planned.p.fluid->mesh));
      EXPECT_EQ(term.inner_nodes_stepped(), stepped - 8);
      std::vector<Index> all(static_cast<std::size_t>(term.n_fluid_nodes()));
      std::iota(all.begin(), all.end(), Index(0));
      term.read_pressure_at(all);
      EXPECT_TRUE(term.writes_pressure_everywhere());
      EXPECT_EQ(term.inner_nodes_stepped(), 0);
    }
    expect_same_runs(model, everywhere, snapshot_nodes, backend);
  }
}

TEST(ExplicitFluid, InnerNodesStepInTheirElementAsInTheUpdate) { expect_inner_nodes_step_as_the_update("openmp"); }

TEST(ExplicitFluidGpu, InnerNodesStepInTheirElementAsInTheUpdateOnAGpu) {
  TREMOR_REQUIRE_GPU();
  expect_inner_nodes_step_as_the_update("cuda");
}

// A fluid stepped beside the solid as the step's critical path (three times the solid's own nodes:
// steel below 0.5 m of the 2 m box) starts each step's K_f as soon as its own last update is done,
// without waiting for the solid's (FluidTerm::leads), but where the solid's stream reads its
// potential (a receiver of its motion, snapshots of it); its run on a GPU, by atomics, against the
// same run waiting for the solid's update and against the host's. Atomics sum in another order
// each run: the runs differ by rounding carried over about 200 steps (1e-9 of the largest sample in
// double, 2e-4 in float, where a step's coupling read a level leading or late, or the inner nodes'
// step overwrote a level still read, is of the order of the sample itself).
TEST(ExplicitFluidGpu, AFluidLeadingTheSolidEqualsItsRunWaitingForTheSolidsUpdate) {
  TREMOR_REQUIRE_GPU();
  for (const std::string precision : {"double", "float"}) {
    SCOPED_TRACE(precision);
    Model model = test::water_on_steel_box(precision, 3);
    model.mesh.element_sets.clear();
    for (Index e = 0; e < model.mesh.n_elements(); ++e)
      model.mesh.element_sets[test::element_centre(model.mesh, e, 2) > 0.5 ? "water" : "steel"].push_back(e);
    // The steel's receivers in the steel; 3.5 ms: the pulse crosses the interface.
    ASSERT_EQ(model.receivers.front().name, "steel");
    const auto near = [&](double x, double y, double z) { return test::nearest_node(model.mesh, x, y, z); };
    model.receivers.front().nodes = {near(1.0, 1.0, 0.25), near(0.5, 1.5, 0.5), near(2.0, 0.0, 0.0)};
    model.explicit_settings->duration = 3.5e-3;
    Model moving = model;
    // (the water's motion: the last receiver; the steel's and the pressure's kept)
    ASSERT_EQ(model.receivers.back().name, "water");
    model.receivers.pop_back();
    model.validate();
    // (one step for the host's run and the GPU's: the host pre-flight's)
    model.explicit_settings->time_step = preflight(model).dt;
    {
      const Preflight p = preflight(model);
      const Numbering numbering = one_domain_numbering(*p.solid, p);
      const auto term_of = [&](const Model& m, bool lead, const Exec& exec) {
        const Preflight pm = preflight(m);
        std::vector<History> in_fluid;
        for (const History& history : *pm.histories)
          if (records_fluid(history)) in_fluid.push_back(history);
        return std::make_unique<FluidTerm<double>>(exec, *pm.fluid, numbering,
                                                   fluid_loading(m, pm.fluid->mesh), std::move(in_fluid), pm.dt, true,
                                                   1, true, lead);
      };
      const auto term = term_of(model, true, Exec::cuda());
      EXPECT_TRUE(term->leads());
      term->read_motion_by_snapshots(true);
      EXPECT_FALSE(term->leads());
      term->read_motion_by_snapshots(false);
      EXPECT_TRUE(term->leads());
      EXPECT_FALSE(term_of(model, false, Exec::cuda())->leads());
      EXPECT_FALSE(term_of(moving, true, Exec::cuda())->leads());  // its motion recorded on the solid's stream
      EXPECT_FALSE(term_of(model, true, Exec::openmp())->leads());  // one stream
    }
    RunOptions options;
    options.backend = "cuda";
    Preflight p = preflight(model, options);
    options.preflight = &p;
    const ExplicitRun leading = run_explicit(model, options);
    p.fluid_leads = false;
    const ExplicitRun waiting = run_explicit(model, options);
    RunOptions host;
    host.backend = "openmp";
    const ExplicitRun reference = run_explicit(model, host);
    ASSERT_TRUE(leading.ok() && waiting.ok() && reference.ok())
        << leading.message << waiting.message << reference.message;
    ASSERT_EQ(leading.steps, reference.steps);
    ASSERT_EQ(leading.histories.size(), model.receivers.size());
    const double tolerance = precision == "double" ? 1e-9 : 2e-4;
    for (std::size_t h = 0; h < leading.histories.size(); ++h) {
      const std::vector<double>& values = reference.histories[h].values;
      double largest = 0.0;
      for (const double v : values) largest = std::max(largest, std::abs(v));
      ASSERT_GT(largest, 0.0) << reference.histories[h].name;  // the pulse reached it: not zeros compared
      ASSERT_EQ(leading.histories[h].values.size(), values.size());
      ASSERT_EQ(waiting.histories[h].values.size(), values.size());
      for (std::size_t i = 0; i < values.size(); ++i) {
        EXPECT_NEAR(leading.histories[h].values[i], values[i], tolerance * largest) << reference.histories[h].name << i;
        EXPECT_NEAR(leading.histories[h].values[i], waiting.histories[h].values[i], tolerance * largest)
            << reference.histories[h].name << i;
      }
    }
  }
}

// The coupling's first pass, f_f += C^T u, against the faces' matrices (fem::fluid_solid_interface)
// summed face by face on the host: GLL faces take their nodal rule, each row its own column only
// (read without the row's offsets), other faces the exact rule's full rows. Round-off of sums of a
// few terms: 1e-13 of the largest.
TEST(ExplicitFluid, TheCouplingsRowsAreTheFacesMatrices) {
  for (const auto& [type, order, diagonal] :
       {std::tuple{ElementType::HexGLL, 3, true}, {ElementType::QuadGLL, 4, true}, {ElementType::Hex8, 1, false},
        {ElementType::Tri6, 2, false}}) {
    SCOPED_TRACE(element_name(type, order));
    Model model = water_on_steel(type, order);
    model.explicit_settings = ExplicitSettings{};
    model.explicit_settings->duration = 1e-3;
    const Preflight p = preflight(model);
    ASSERT_TRUE(p.solid && p.fluid);
    const FluidSetup& fluid = *p.fluid;
    const Numbering numbering = one_domain_numbering(*p.solid, p);
    const FluidTerm<double> term(Exec::serial(), fluid, numbering, fluid_loading(model, fluid.mesh), {}, p.dt, false);
    EXPECT_EQ(term.diagonal_coupling(), diagonal);
    const int dim = model.mesh.dim();
    const auto d = static_cast<std::size_t>(dim);
    std::vector<double> u(static_cast<std::size_t>(numbering.n_local_nodes()) * d);
    for (Index node = 0; node < model.mesh.n_nodes(); ++node) {
      const Index local = numbering.local_node(node);
      if (local < 0) continue;
      const auto x = model.mesh.node(node);
      for (std::size_t c = 0; c < d; ++c)
        u[static_cast<std::size_t>(local) * d + c] = std::sin(1.1 * x[0] + 0.3 * static_cast<double>(c)) + x[1];
    }
    std::vector<double> expected(static_cast<std::size_t>(fluid.mesh.n_nodes()), 0.0);
    for (const fem::CouplingFace& face : fluid.interface.faces) {
      const std::size_t n = face.nodes.size();
      for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = 0; b < n; ++b)
          for (std::size_t c = 0; c < d; ++c)
            expected[static_cast<std::size_t>(term.fluid_node(face.nodes[a]))] +=
                face.C[(a * n + b) * d + c] * u[static_cast<std::size_t>(numbering.local_node(face.nodes[b])) * d + c];
    }
    const DeviceArray<double> on_solid(Exec::serial(), std::span<const double>(u));
    DeviceArray<double> f(Exec::serial(), std::vector<double>(expected.size(), 0.0));
    term.add_solid_motion(on_solid.view(), f.view());
    const std::vector<double> got = f.to_host();
    double largest = 0.0;
    for (const double v : expected) largest = std::max(largest, std::abs(v));
    ASSERT_GT(largest, 0.0);
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-13 * largest) << i;
  }
}

// A run on one domain numbers the solid's nodes first and the fluid's own after them (water below
// the steel here, so that the model numbers the water's first): the integrator's update runs over
// the solid's DOFs only (n_moving), the massless rest untouched at zero. An isolated node in the
// middle of the numbering, or a held DOF at its end, keeps the update over all.
TEST(ExplicitFluid, TheSolidsUpdateLeavesTheFluidsOwnNodesOut) {
  Model model;
  model.source = "m.toml";
  model.mesh = generate_rectangle({0.0, 0.0}, {2.0, 2.0}, {2, 2}, ElementType::Quad4);  // 3 x 3 nodes
  for (Index e = 0; e < model.mesh.n_elements(); ++e)
    model.mesh.element_sets[test::element_centre(model.mesh, e, 1) < 1.0 ? "water" : "steel"].push_back(e);
  test::add_water_and_steel(model);
  model.explicit_settings = ExplicitSettings{};
  model.explicit_settings->duration = 1e-4;
  model.validate();
  const Preflight p = preflight(model);
  ASSERT_TRUE(p.solid);
  const Numbering numbering = one_domain_numbering(*p.solid, p);
  ASSERT_FALSE(numbering.identity());
  // Nodes 0..2 (y = 0) are the water's own: last, in order; the steel's 3..8 first.
  EXPECT_EQ(numbering.local_to_global(), (std::vector<Index>{3, 4, 5, 6, 7, 8, 0, 1, 2}));
  const Model local = renumber_nodes(*p.solid, numbering.local_to_global());
  const auto K = make_stiffness_operator<double>(local, "assembled", Exec::serial());
  const std::vector<double> M = sparse::assemble_lumped_mass(local, Exec::serial());
  CentralDifference<double> scheme(Exec::serial(), *K, M, {}, p.dt, {}, 2);
  EXPECT_EQ(scheme.n_moving(), 12);  // the steel's 6 nodes x 2
  EXPECT_EQ(scheme.n_massless(), 6);
  // The same mass with the massless node first: every DOF is updated; one held at the end too.
  std::vector<double> first(M.begin() + 12, M.end());
  first.insert(first.end(), M.begin(), M.begin() + 12);
  EXPECT_EQ(CentralDifference<double>(Exec::serial(), *K, first, {}, p.dt, {}, 2).n_moving(), 18);
  const std::vector<Index> held{17};
  EXPECT_EQ(CentralDifference<double>(Exec::serial(), *K, M, {}, p.dt, held, 2).n_moving(), 18);
}

}  // namespace
}  // namespace tremor::explicit_fe
