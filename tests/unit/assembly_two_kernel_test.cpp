// sparse/two_kernel.hpp on the host backends: kernel 1's nodal pattern against node_graph() and
// the paper's Eq. 9; kernel 2's K, consistent M and lumped mass against the host assembly
// (sparse/assemble.hpp) on distorted two-section models of every element family; COO, CSR, ELL
// and block CSR holding the same matrix, K bit for bit the element matrices of
// fem::element_stiffness; colouring against atomics; colouring deterministic.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <numbers>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "assembly_test_helpers.hpp"
#include "sparse_test_models.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/sparse/element_batch.hpp"
#include "tremor/sparse/two_kernel.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using sparse::CsrMatrix;
using sparse::GlobalMatrix;
using sparse::RaceStrategy;
using test::check_pattern;
using test::compare;
using test::max_elements_per_node;
using test::on_host;
using test::pattern_only_table;
using test::rounding_bound;
using test::u_double;
using test::u_float;
using test::widen;

struct CaseData {
  Model model;
  fem::SectionTable table;
  fem::ElementColouring colouring;
  Index m = 0;  // most elements per node
};

CaseData make_setup(const test::ModelCase& param) {
  CaseData s;
  s.model = test::two_section_model(param.type, param.order, test::cells_for(param.type), 0.3);
  s.table = fem::section_table(s.model);
  s.colouring = fem::colour_elements(s.model.mesh);
  s.m = max_elements_per_node(s.model.mesh);
  return s;
}

// ------------------------------------------------------------------------------------ kernel 1

TEST(TwoKernelPattern, EqualsNodeGraphOnEveryElementFamily) {
  for (const auto& param : test::operator_cases()) {
    const Model model = test::two_section_model(param.type, param.order, test::cells_for(param.type), 0.3);
    for (const Exec& exec : {Exec::serial(), Exec::openmp()})
      EXPECT_EQ(check_pattern(exec, model.mesh), "") << param.label << " " << exec.describe();
  }
}

// Two blocks of different types sharing nodes, an empty block, and a node in no element (its
// row holds itself only, as node_graph gives it).
TEST(TwoKernelPattern, EqualsNodeGraphOnAMixedMesh) {
  Mesh mesh = generate_box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {2, 2, 2}, ElementType::Hex8);
  mesh.block_for(ElementType::Hex20);  // stays empty
  ElementBlock& tets = mesh.block_for(ElementType::Tet4);
  tets.connectivity = {0, 13, 26, 4, 2, 8, 6, 13, 20, 24, 18, 26};
  tets.labels = {101, 102, 103};
  const double far[3] = {5.0, 5.0, 5.0};
  mesh.add_node(1000, far);
  for (const Exec& exec : {Exec::serial(), Exec::openmp()}) EXPECT_EQ(check_pattern(exec, mesh), "") << exec.describe();
}

// A fan of 3000 triangles around one node: its row has 3001 neighbours (no fixed cap).
TEST(TwoKernelPattern, NodeWithThousandsOfNeighbours) {
  Mesh mesh(2);
  const int n = 3000;
  const double centre[2] = {0.0, 0.0};
  mesh.add_node(1, centre);
  for (int i = 0; i < n; ++i) {
    const double angle = 2.0 * std::numbers::pi * i / n;
    const double xy[2] = {std::cos(angle), std::sin(angle)};
    mesh.add_node(i + 2, xy);
  }
  ElementBlock& block = mesh.block_for(ElementType::Tri3);
  for (int i = 0; i < n; ++i) {
    block.connectivity.insert(block.connectivity.end(), {0, 1 + i, 1 + (i + 1) % n});
    block.labels.push_back(i + 1);
  }
  for (const Exec& exec : {Exec::serial(), Exec::openmp()}) {
    EXPECT_EQ(check_pattern(exec, mesh), "") << exec.describe();
    const fem::DeviceElements elements(exec, mesh, pattern_only_table(mesh), fem::colour_elements(mesh));
    EXPECT_EQ(sparse::build_nodal_pattern(exec, elements).max_neighbours, n + 1);
  }
}

// The paper's Eq. 9 equals kernel 1's count on boxes of x, y, z nodes (cells + 1 per direction).
TEST(TwoKernelPattern, StructuredHex8CountIsEquation9) {
  const std::array<Size, 3> boxes[] = {{1, 1, 1}, {2, 2, 2}, {1, 3, 2}, {4, 1, 5}, {6, 5, 4}, {9, 2, 7}};
  for (const auto& cells : boxes) {
    const Mesh mesh = generate_box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, cells, ElementType::Hex8);
    const fem::DeviceElements elements(Exec::openmp(), mesh, pattern_only_table(mesh),
                                          fem::colour_elements(mesh));
    const sparse::NodalPattern pattern = sparse::build_nodal_pattern(Exec::openmp(), elements);
    EXPECT_EQ(pattern.nnz(), sparse::structured_hex8_nnz(cells[0] + 1, cells[1] + 1, cells[2] + 1))
        << cells[0] << " x " << cells[1] << " x " << cells[2] << " cells";
  }
  EXPECT_EQ(sparse::structured_hex8_nnz(2, 2, 2), 576);  // one hex8: 24 x 24
  // 2 x 2 x 2 cells: 8 corner nodes of 8 neighbours, 12 edge nodes of 12, 6 face nodes of 18 and
  // the centre of 27 (each counting itself): 343 node pairs, 9 entries each.
  EXPECT_EQ(sparse::structured_hex8_nnz(3, 3, 3), 343 * 9);
  EXPECT_THROW(sparse::structured_hex8_nnz(1, 3, 3), Error);
}

// The greedy colouring of a structured hex8 box takes the paper's 8 colours (section IV.C).
TEST(TwoKernelColouring, StructuredHex8TakesEightColours) {
  const std::array<Size, 3> boxes[] = {{2, 2, 2}, {3, 4, 5}, {8, 8, 8}};
  for (const auto& cells : boxes) {
    const Mesh mesh = generate_box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, cells, ElementType::Hex8);
    const fem::ElementColouring colouring = fem::colour_elements(mesh);
    EXPECT_EQ(colouring.n_colours, 8) << cells[0] << " x " << cells[1] << " x " << cells[2];
    EXPECT_TRUE(fem::is_valid_colouring(mesh, colouring));
  }
}

// ------------------------------------------------------------------------------------ kernel 2

class TwoKernelAssembly : public ::testing::TestWithParam<test::ModelCase> {};

// K in CSR equals the host assembly on both host backends with both strategies: double within
// 1e-12 of sqrt(K_ii K_jj) (above rounding_bound(m, u_double) <= 1.3e-13: the only difference is
// the order of a sum), float within rounding_bound(m, u_float).
TEST_P(TwoKernelAssembly, StiffnessEqualsHostAssembly) {
  const CaseData s = make_setup(GetParam());
  const CsrMatrix reference = sparse::assemble_stiffness(s.model, s.table, s.colouring, Exec::openmp());
  ASSERT_LE(rounding_bound(s.m, u_double), 1e-12);
  for (const Exec& exec : {Exec::serial(), Exec::openmp()}) {
    const fem::DeviceElements elements(exec, s.model.mesh, s.table, s.colouring);
    for (RaceStrategy strategy : {RaceStrategy::Colouring, RaceStrategy::Atomics}) {
      const std::string what =
          GetParam().label + " " + exec.describe() + (strategy == RaceStrategy::Colouring ? " colouring" : " atomics");
      EXPECT_EQ(compare(on_host(sparse::assemble_csr<double>(exec, elements, GlobalMatrix::Stiffness, strategy)),
                        reference, 1e-12),
                "")
          << what;
      EXPECT_EQ(compare(on_host(sparse::assemble_csr<float>(exec, elements, GlobalMatrix::Stiffness, strategy)),
                        reference, rounding_bound(s.m, u_float)),
                "")
          << what << " float";
    }
  }
}

// The consistent mass against the fem functions assembled on the host, tolerances as for K.
TEST_P(TwoKernelAssembly, ConsistentMassEqualsHostReference) {
  const CaseData s = make_setup(GetParam());
  const CsrMatrix reference = test::host_consistent_mass(s.model, s.table);
  const fem::DeviceElements elements(Exec::openmp(), s.model.mesh, s.table, s.colouring);
  for (RaceStrategy strategy : {RaceStrategy::Colouring, RaceStrategy::Atomics}) {
    EXPECT_EQ(
        compare(on_host(sparse::assemble_csr<double>(Exec::openmp(), elements, GlobalMatrix::ConsistentMass, strategy)),
                reference, 1e-12),
        "");
    EXPECT_EQ(
        compare(on_host(sparse::assemble_csr<float>(Exec::openmp(), elements, GlobalMatrix::ConsistentMass, strategy)),
                reference, rounding_bound(s.m, u_float)),
        "");
  }
}

// The lumped mass: positive contributions, so the bound is relative to each entry.
TEST_P(TwoKernelAssembly, LumpedMassEqualsHostAssembly) {
  const CaseData s = make_setup(GetParam());
  const std::vector<double> reference = sparse::assemble_lumped_mass(s.model, s.table, s.colouring, Exec::openmp());
  for (const Exec& exec : {Exec::serial(), Exec::openmp()}) {
    const fem::DeviceElements elements(exec, s.model.mesh, s.table, s.colouring);
    for (RaceStrategy strategy : {RaceStrategy::Colouring, RaceStrategy::Atomics}) {
      EXPECT_EQ(compare(sparse::assemble_lumped_mass<double>(exec, elements, strategy).to_host(), reference, 1e-12),
                "");
      EXPECT_EQ(compare(widen(sparse::assemble_lumped_mass<float>(exec, elements, strategy).to_host()), reference,
                        rounding_bound(s.m, u_float)),
                "");
    }
  }
}

// COO, CSR, ELL and block CSR hold the same matrix. With colouring each entry's sum is taken in
// colour order whatever the format, so the values are the same bits; with atomics the order
// varies, so within the double rounding bound.
TEST_P(TwoKernelAssembly, FormatsHoldTheSameMatrix) {
  const CaseData s = make_setup(GetParam());
  const Exec exec = Exec::openmp();
  const fem::DeviceElements elements(exec, s.model.mesh, s.table, s.colouring);
  for (GlobalMatrix matrix : {GlobalMatrix::Stiffness, GlobalMatrix::ConsistentMass})
    for (RaceStrategy strategy : {RaceStrategy::Colouring, RaceStrategy::Atomics}) {
      const double tolerance = strategy == RaceStrategy::Colouring ? 0.0 : rounding_bound(s.m, u_double);
      const CsrMatrix csr = on_host(sparse::assemble_csr<double>(exec, elements, matrix, RaceStrategy::Colouring));
      const std::string what = GetParam().label + (matrix == GlobalMatrix::Stiffness ? " K" : " M") +
                               (strategy == RaceStrategy::Colouring ? " colouring" : " atomics");
      EXPECT_EQ(compare(on_host(sparse::assemble_coo<double>(exec, elements, matrix, strategy)), csr, tolerance), "")
          << what << " COO";
      EXPECT_EQ(compare(on_host(sparse::assemble_ell<double>(exec, elements, matrix, strategy)), csr, tolerance), "")
          << what << " ELL";
      EXPECT_EQ(compare(on_host(sparse::assemble_block_csr<double>(exec, elements, matrix, strategy)), csr, tolerance),
                "")
          << what << " block CSR";
      EXPECT_EQ(compare(on_host(sparse::assemble_csr<float>(exec, elements, matrix, strategy)),
                        on_host(sparse::assemble_block_csr<float>(exec, elements, matrix, RaceStrategy::Colouring)),
                        strategy == RaceStrategy::Colouring ? 0.0 : rounding_bound(s.m, u_float)),
                "")
          << what << " float CSR against block CSR";
    }
}

// Colouring: the same bits on Serial and OpenMP, and run after run.
TEST_P(TwoKernelAssembly, ColouringIsBitIdenticalAcrossHostBackends) {
  const CaseData s = make_setup(GetParam());
  const fem::DeviceElements serial(Exec::serial(), s.model.mesh, s.table, s.colouring);
  const fem::DeviceElements openmp(Exec::openmp(), s.model.mesh, s.table, s.colouring);
  for (GlobalMatrix matrix : {GlobalMatrix::Stiffness, GlobalMatrix::ConsistentMass}) {
    const CsrMatrix reference =
        on_host(sparse::assemble_csr<double>(Exec::serial(), serial, matrix, RaceStrategy::Colouring));
    for (int run = 0; run < 2; ++run)
      EXPECT_EQ(compare(on_host(sparse::assemble_csr<double>(Exec::openmp(), openmp, matrix, RaceStrategy::Colouring)),
                        reference, 0.0),
                "");
    const CsrMatrix reference_float =
        on_host(sparse::assemble_csr<float>(Exec::serial(), serial, matrix, RaceStrategy::Colouring));
    EXPECT_EQ(compare(on_host(sparse::assemble_csr<float>(Exec::openmp(), openmp, matrix, RaceStrategy::Colouring)),
                      reference_float, 0.0),
              "");
  }
  EXPECT_EQ(
      compare(sparse::assemble_lumped_mass<double>(Exec::openmp(), openmp, RaceStrategy::Colouring).to_host(),
              sparse::assemble_lumped_mass<double>(Exec::serial(), serial, RaceStrategy::Colouring).to_host(), 0.0),
      "");
}

// K as fem::element_stiffness gives it, scaled by each element's factor, rounded to Real and
// summed element by element in mesh order into the CSR pattern: the order of Serial's atomics.
template <class Real>
CsrMatrix stiffness_in_element_order(const Model& model, const fem::SectionTable& table) {
  const Mesh& mesh = model.mesh;
  CsrMatrix K = sparse::stiffness_pattern(mesh);
  std::vector<Real> sums(K.values.size(), Real(0));
  const int dim = mesh.dim();
  std::size_t global = 0;
  for (const auto& block : mesh.blocks)
    fem::with_element(block.type, block.order, [&](auto element) {
      using E = decltype(element);
      constexpr int n_dof = E::n_nodes * E::dim;
      std::vector<double> x(n_dof), Ke(n_dof * n_dof);
      for (Index e = 0; e < block.n_elements(); ++e, ++global) {
        const auto nodes = block.nodes(e);
        test::element_coordinates(mesh, nodes, E::n_nodes, x);
        const auto s = static_cast<std::size_t>(table.element_section[global]);
        fem::element_stiffness<E>(x.data(), table.D[s].data(), table.thickness[s], fem::stiffness_rule<E>(),
                                  Ke.data());
        const double f = table.stiffness_factor(global);
        for (int i = 0; i < n_dof; ++i)
          for (int j = 0; j < n_dof; ++j) {
            const Size k = K.find(nodes[static_cast<std::size_t>(i / dim)] * dim + i % dim,
                                  nodes[static_cast<std::size_t>(j / dim)] * dim + j % dim);
            sums[static_cast<std::size_t>(k)] += static_cast<Real>(f * Ke[static_cast<std::size_t>(i * n_dof + j)]);
          }
      }
    });
  K.values.assign(sums.begin(), sums.end());
  return K;
}

// "" when result holds reference's pattern and each value's bits (widening float is exact).
std::string compare_bits(const CsrMatrix& result, const CsrMatrix& reference) {
  if (result.offsets != reference.offsets || result.columns != reference.columns) return "patterns differ";
  for (std::size_t i = 0; i < reference.values.size(); ++i)
    if (std::bit_cast<std::uint64_t>(result.values[i]) != std::bit_cast<std::uint64_t>(reference.values[i]))
      return "value " + std::to_string(i) + " is " + std::to_string(result.values[i]) + ", expected " +
             std::to_string(reference.values[i]);
  return "";
}

// Every format holds, bit for bit, the element matrices of fem::element_stiffness with their
// factors summed in element order (Serial's atomics add in that order): a block added at the
// wrong place, transposed where it should not be, or left out fails on these distorted elements,
// whose off-diagonal blocks are not symmetric.
TEST_P(TwoKernelAssembly, StiffnessIsTheElementMatricesBitForBit) {
  CaseData s = make_setup(GetParam());
  s.table.element_stiffness_factor.resize(static_cast<std::size_t>(s.model.mesh.n_elements()));
  for (std::size_t e = 0; e < s.table.element_stiffness_factor.size(); ++e)
    s.table.element_stiffness_factor[e] = 1.0 + 0.25 * static_cast<double>(e % 3);
  const Exec exec = Exec::serial();
  const fem::DeviceElements elements(exec, s.model.mesh, s.table, s.colouring);
  const RaceStrategy atomics = RaceStrategy::Atomics;
  const GlobalMatrix K = GlobalMatrix::Stiffness;
  const CsrMatrix reference = stiffness_in_element_order<double>(s.model, s.table);
  const std::string& what = GetParam().label;
  EXPECT_EQ(compare_bits(on_host(sparse::assemble_csr<double>(exec, elements, K, atomics)), reference), "") << what;
  EXPECT_EQ(compare_bits(on_host(sparse::assemble_coo<double>(exec, elements, K, atomics)), reference), "") << what;
  EXPECT_EQ(compare_bits(on_host(sparse::assemble_ell<double>(exec, elements, K, atomics)), reference), "") << what;
  EXPECT_EQ(compare_bits(on_host(sparse::assemble_block_csr<double>(exec, elements, K, atomics)), reference), "")
      << what;
  const CsrMatrix reference_float = stiffness_in_element_order<float>(s.model, s.table);
  EXPECT_EQ(compare_bits(on_host(sparse::assemble_csr<float>(exec, elements, K, atomics)), reference_float), "")
      << what << " float";
  EXPECT_EQ(compare_bits(on_host(sparse::assemble_block_csr<float>(exec, elements, K, atomics)), reference_float), "")
      << what << " float";
}

INSTANTIATE_TEST_SUITE_P(Elements, TwoKernelAssembly, ::testing::ValuesIn(test::operator_cases()),
                         [](const ::testing::TestParamInfo<test::ModelCase>& p) { return p.param.label; });

// The absorbing layers' per-element factor scales K_e as the host assembly scales it.
TEST(TwoKernelAssemblyExtra, StiffnessCarriesTheAbsorbingFactor) {
  const Model model = test::two_section_model(ElementType::Tet4, 1, 3, 0.3);
  fem::SectionTable table = fem::section_table(model);
  table.element_stiffness_factor.resize(static_cast<std::size_t>(model.mesh.n_elements()));
  for (std::size_t e = 0; e < table.element_stiffness_factor.size(); ++e)
    table.element_stiffness_factor[e] = 1.0 + 0.5 * static_cast<double>(e % 3);
  const fem::ElementColouring colouring = fem::colour_elements(model.mesh);
  const CsrMatrix reference = sparse::assemble_stiffness(model, table, colouring, Exec::openmp());
  const fem::DeviceElements elements(Exec::openmp(), model.mesh, table, colouring);
  for (RaceStrategy strategy : {RaceStrategy::Colouring, RaceStrategy::Atomics})
    EXPECT_EQ(
        compare(on_host(sparse::assemble_csr<double>(Exec::openmp(), elements, GlobalMatrix::Stiffness, strategy)),
                reference, 1e-12),
        "");
  // The same without the factors differs: the check can fail.
  const CsrMatrix plain = sparse::assemble_stiffness(model, fem::section_table(model), colouring, Exec::openmp());
  EXPECT_NE(compare(on_host(sparse::assemble_csr<double>(Exec::openmp(), elements, GlobalMatrix::Stiffness,
                                                         RaceStrategy::Colouring)),
                    plain, 1e-12),
            "");
}

// hex20 stiffness is built in the workspace; launches cut into chunks give the same bits.
TEST(TwoKernelAssemblyExtra, WorkspaceChunksGiveTheSameMatrix) {
  const Model model = test::two_section_model(ElementType::Hex20, 1, 3, 0.3);
  const fem::SectionTable table = fem::section_table(model);
  const fem::ElementColouring colouring = fem::colour_elements(model.mesh);
  const fem::DeviceElements elements(Exec::openmp(), model.mesh, table, colouring);
  const CsrMatrix whole =
      on_host(sparse::assemble_csr<double>(Exec::openmp(), elements, GlobalMatrix::Stiffness, RaceStrategy::Colouring));
  for (std::size_t per_chunk : {1, 2, 5}) {
    const Exec exec = Exec::openmp().with_workspace_budget(per_chunk * 3600 * sizeof(double));
    for (RaceStrategy strategy : {RaceStrategy::Colouring, RaceStrategy::Atomics})
      EXPECT_EQ(
          compare(on_host(sparse::assemble_csr<double>(exec, elements, GlobalMatrix::Stiffness, strategy)),
                  whole, strategy == RaceStrategy::Colouring ? 0.0 : rounding_bound(8, u_double)),
          "")
          << per_chunk << " elements per chunk";
  }
}

// Timed assembly reports both kernels and gives the same matrix.
TEST(TwoKernelAssemblyExtra, TimesAreReported) {
  const Model model = test::two_section_model(ElementType::Hex8, 1, 4, 0.3);
  const fem::SectionTable table = fem::section_table(model);
  const fem::ElementColouring colouring = fem::colour_elements(model.mesh);
  const fem::DeviceElements elements(Exec::openmp(), model.mesh, table, colouring);
  sparse::AssemblyTimes times{-1.0, -1.0};
  const auto timed =
      sparse::assemble_ell<double>(Exec::openmp(), elements, GlobalMatrix::Stiffness, RaceStrategy::Colouring, &times);
  EXPECT_GT(times.pattern_ms, 0.0);
  EXPECT_GT(times.values_ms, 0.0);
  EXPECT_EQ(compare(on_host(timed),
                    on_host(sparse::assemble_ell<double>(Exec::openmp(), elements, GlobalMatrix::Stiffness,
                                                         RaceStrategy::Colouring)),
                    0.0),
            "");
  EXPECT_EQ(timed.width, 81);  // interior hex8 node: 27 neighbours x 3
}

// The stiffness shorthands are the general calls with GlobalMatrix::Stiffness and colouring.
TEST(TwoKernelAssemblyExtra, StiffnessShorthands) {
  const Model model = test::two_section_model(ElementType::Tri6, 1, 4, 0.3);
  const fem::SectionTable table = fem::section_table(model);
  const fem::ElementColouring colouring = fem::colour_elements(model.mesh);
  const fem::DeviceElements elements(Exec::openmp(), model.mesh, table, colouring);
  const CsrMatrix reference = sparse::assemble_stiffness(model, table, colouring, Exec::openmp());
  const Exec exec = Exec::openmp();
  EXPECT_EQ(compare(on_host(sparse::assemble_stiffness_csr<double>(exec, elements)), reference, 1e-12), "");
  EXPECT_EQ(compare(on_host(sparse::assemble_stiffness_coo<double>(exec, elements)), reference, 1e-12), "");
  EXPECT_EQ(compare(on_host(sparse::assemble_stiffness_ell<double>(exec, elements)), reference, 1e-12), "");
  EXPECT_EQ(compare(on_host(sparse::assemble_stiffness_block_csr<double>(exec, elements)), reference, 1e-12), "");
}

// The comparisons can fail: one perturbed entry, a NaN, a moved column.
TEST(TwoKernelAssemblyExtra, ComparisonsDetectAPerturbedEntry) {
  const Model model = test::two_section_model(ElementType::Quad4, 1, 4, 0.3);
  const fem::SectionTable table = fem::section_table(model);
  const fem::ElementColouring colouring = fem::colour_elements(model.mesh);
  const fem::DeviceElements elements(Exec::openmp(), model.mesh, table, colouring);
  const CsrMatrix result =
      on_host(sparse::assemble_csr<double>(Exec::openmp(), elements, GlobalMatrix::Stiffness, RaceStrategy::Atomics));
  CsrMatrix reference = sparse::assemble_stiffness(model, table, colouring, Exec::openmp());
  ASSERT_EQ(compare(result, reference, 1e-12), "");
  const std::size_t k = reference.values.size() / 3;
  reference.values[k] += 1e-9 * std::abs(reference.values[k]) + 1e-3;
  EXPECT_NE(compare(result, reference, 1e-12), "");
  reference = sparse::assemble_stiffness(model, table, colouring, Exec::openmp());
  reference.values[k] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(compare(result, reference, 1e-12), "");
  reference = sparse::assemble_stiffness(model, table, colouring, Exec::openmp());
  std::swap(reference.columns[k], reference.columns[k + 1]);
  EXPECT_NE(compare(result, reference, 1e-12), "");
  const std::vector<double> lumped = sparse::assemble_lumped_mass(model, table, colouring, Exec::openmp());
  std::vector<double> perturbed = lumped;
  perturbed[5] *= 1.0 + 1e-9;
  EXPECT_NE(compare(perturbed, lumped, 1e-12), "");
}

}  // namespace
}  // namespace tremor
