// sparse/two_kernel.hpp on the host backends: kernel 1's nodal pattern against node_graph() and
// the paper's Eq. 9; kernel 2's K, consistent M and lumped mass against the host assembly
// (sparse/assemble.hpp) on distorted two-section models of every element family; COO, CSR, ELL
// and block CSR holding the same matrix; colouring against atomics; colouring deterministic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "sparse_test_models.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/sparse/colouring.hpp"
#include "tremor/sparse/device_elements.hpp"
#include "tremor/sparse/element_batch.hpp"
#include "tremor/sparse/two_kernel.hpp"

namespace tremor {
namespace {

using sparse::CsrMatrix;
using sparse::GlobalMatrix;
using sparse::RaceStrategy;

// ------------------------------------------------------------------------------------ helpers

// A section table that only sizes things: kernel 1 reads the connectivity alone.
sparse::SectionTable pattern_only_table(const Mesh& mesh) {
  sparse::SectionTable table;
  table.dim = mesh.dim();
  table.n_voigt = table.dim == 2 ? 3 : 6;
  table.D = {{}};
  table.thickness = {1.0};
  table.density = {1.0};
  table.damping_alpha = {0.0};
  table.element_section.assign(static_cast<std::size_t>(mesh.n_elements()), 0);
  return table;
}

NodeGraph pattern_on_host(const sparse::NodalPattern& pattern) {
  NodeGraph graph;
  graph.offsets = pattern.offsets.to_host();
  graph.neighbours = pattern.neighbours.to_host();
  return graph;
}

// "" when kernel 1 gives node_graph(mesh) on exec, else the first difference.
std::string check_pattern(const Exec& exec, const Mesh& mesh) {
  const sparse::DeviceElements elements(exec, mesh, pattern_only_table(mesh), sparse::colour_elements(mesh));
  const sparse::NodalPattern pattern = sparse::build_nodal_pattern(exec, elements);
  const NodeGraph expected = node_graph(mesh);
  const NodeGraph result = pattern_on_host(pattern);
  if (result.offsets != expected.offsets) return "offsets differ";
  if (result.neighbours != expected.neighbours) return "neighbours differ";
  Index longest = 0;
  for (Index n = 0; n < expected.n_nodes(); ++n)
    longest = std::max(longest, static_cast<Index>(expected.offsets[static_cast<std::size_t>(n) + 1] -
                                                   expected.offsets[static_cast<std::size_t>(n)]));
  if (pattern.max_neighbours != longest) return "max_neighbours is " + std::to_string(pattern.max_neighbours);
  if (pattern.nnz() != expected.n_entries() * mesh.dim() * mesh.dim()) return "nnz differs";
  return "";
}

// The most elements sharing one node (m): every entry of K sums at most m element contributions.
Index max_elements_per_node(const Mesh& mesh) {
  std::vector<Index> count(static_cast<std::size_t>(mesh.n_nodes()), 0);
  for (const auto& block : mesh.blocks)
    for (Index node : block.connectivity) ++count[static_cast<std::size_t>(node)];
  return *std::max_element(count.begin(), count.end());
}

// Bound on |result - reference| per entry, relative to sqrt(|A_ii A_jj|), for an entry summed
// from at most m element contributions rounded to a unit roundoff u and summed in any order.
// Element matrices are positive semi-definite with non-negative diagonals that add up, so each
// contribution is at most sqrt(A_ii A_jj) in magnitude (Cauchy-Schwarz) and their absolute sum
// at most m sqrt(A_ii A_jj); rounding each (u) and a recursive sum in any order (gamma_m,
// Higham 2002, Eq. 3.5) stay within (m + 1) u of that absolute sum, and two such evaluations
// within twice it: 2 (m + 1) m u. For the test meshes m <= 24: 2.7e-5 (float), 1.3e-13 (double).
double rounding_bound(Index m, double u) { return 2.0 * (m + 1) * m * u; }
constexpr double u_float = 0x1.0p-24, u_double = 0x1.0p-53;

template <class Real>
CsrMatrix widen(const sparse::CsrMatrixT<Real>& matrix) {
  CsrMatrix out;
  out.n_rows = matrix.n_rows;
  out.offsets = matrix.offsets;
  out.columns = matrix.columns;
  out.values.assign(matrix.values.begin(), matrix.values.end());
  return out;
}

template <class Real>
CsrMatrix on_host(const sparse::DeviceCsr<Real>& matrix) {
  sparse::CsrMatrixT<Real> out;
  out.n_rows = matrix.n_rows;
  out.offsets = matrix.offsets.to_host();
  out.columns = matrix.columns.to_host();
  out.values = matrix.values.to_host();
  return widen(out);
}

// COO entries must come in CSR order; the rows array gives the offsets back.
template <class Real>
CsrMatrix on_host(const sparse::DeviceCoo<Real>& matrix) {
  sparse::CsrMatrixT<Real> out;
  out.n_rows = matrix.n_rows;
  const std::vector<Index> rows = matrix.rows.to_host();
  out.columns = matrix.columns.to_host();
  out.values = matrix.values.to_host();
  out.offsets.assign(static_cast<std::size_t>(matrix.n_rows) + 1, 0);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    EXPECT_TRUE(rows[k] >= 0 && rows[k] < matrix.n_rows && (k == 0 || rows[k] >= rows[k - 1])) << "COO row " << k;
    if (rows[k] < 0 || rows[k] >= matrix.n_rows) return {};
    ++out.offsets[static_cast<std::size_t>(rows[k]) + 1];
  }
  for (std::size_t r = 0; r < static_cast<std::size_t>(matrix.n_rows); ++r) out.offsets[r + 1] += out.offsets[r];
  return widen(out);
}

// ELL rows read back in slot order: the entries, then padding (column -1, value 0) only.
template <class Real>
CsrMatrix on_host(const sparse::EllMatrix<Real>& matrix) {
  sparse::CsrMatrixT<Real> out;
  out.n_rows = matrix.n_rows;
  const std::vector<Index> columns = matrix.columns.to_host();
  const std::vector<Real> values = matrix.values.to_host();
  out.offsets.push_back(0);
  for (Index r = 0; r < matrix.n_rows; ++r) {
    bool padding = false;
    for (Index s = 0; s < matrix.width; ++s) {
      const auto k = static_cast<std::size_t>(s) * static_cast<std::size_t>(matrix.n_rows) + static_cast<std::size_t>(r);
      if (columns[k] < 0) {
        padding = true;
        EXPECT_EQ(columns[k], -1) << "ELL row " << r << " slot " << s;
        EXPECT_EQ(values[k], Real(0)) << "ELL padding of row " << r << " slot " << s;
        continue;
      }
      EXPECT_FALSE(padding) << "ELL row " << r << " has an entry after padding";
      out.columns.push_back(columns[k]);
      out.values.push_back(values[k]);
    }
    out.offsets.push_back(static_cast<Size>(out.columns.size()));
  }
  EXPECT_EQ(static_cast<Size>(out.columns.size()), matrix.nnz);
  return widen(out);
}

// Block rows expanded to scalar rows: row (node, r) holds, block after block, the block's row r.
template <class Real>
CsrMatrix on_host(const sparse::DeviceBlockCsr<Real>& matrix) {
  const auto d = static_cast<std::size_t>(matrix.block);
  const std::vector<Size> offsets = matrix.offsets.to_host();
  const std::vector<Index> columns = matrix.columns.to_host();
  const std::vector<Real> values = matrix.values.to_host();
  sparse::CsrMatrixT<Real> out;
  out.n_rows = matrix.n_rows();
  out.offsets.push_back(0);
  for (std::size_t node = 0; node < static_cast<std::size_t>(matrix.n_block_rows); ++node)
    for (std::size_t r = 0; r < d; ++r) {
      for (Size k = offsets[node]; k < offsets[node + 1]; ++k)
        for (std::size_t c = 0; c < d; ++c) {
          out.columns.push_back(columns[static_cast<std::size_t>(k)] * matrix.block + static_cast<Index>(c));
          out.values.push_back(values[static_cast<std::size_t>(k) * d * d + r * d + c]);
        }
      out.offsets.push_back(static_cast<Size>(out.columns.size()));
    }
  return widen(out);
}

std::vector<double> diagonal(const CsrMatrix& matrix) {
  std::vector<double> out(static_cast<std::size_t>(matrix.n_rows), 0.0);
  for (Index r = 0; r < matrix.n_rows; ++r) {
    const Size k = matrix.find(r, r);
    if (k >= 0) out[static_cast<std::size_t>(r)] = matrix.values[static_cast<std::size_t>(k)];
  }
  return out;
}

// "" when `result` has the pattern of `reference` and every entry (i, j) is within
// relative * sqrt(|A_ii A_jj|) of it (relative 0: the same value); else the first difference.
// A NaN never passes.
std::string compare(const CsrMatrix& result, const CsrMatrix& reference, double relative) {
  if (result.n_rows != reference.n_rows) return "row counts differ";
  if (result.offsets != reference.offsets) return "row offsets differ";
  if (result.columns != reference.columns) return "columns differ";
  const std::vector<double> d = diagonal(reference);
  for (Index r = 0; r < reference.n_rows; ++r)
    for (Size k = reference.offsets[static_cast<std::size_t>(r)]; k < reference.offsets[static_cast<std::size_t>(r) + 1]; ++k) {
      const auto i = static_cast<std::size_t>(k);
      const auto c = static_cast<std::size_t>(reference.columns[i]);
      const double scale = std::sqrt(std::abs(d[static_cast<std::size_t>(r)] * d[c]));
      if (!(std::abs(result.values[i] - reference.values[i]) <= relative * scale)) {
        std::ostringstream message;
        message << "entry (" << r << ", " << c << ") is " << result.values[i] << ", expected " << reference.values[i]
                << " (scale " << scale << ")";
        return message.str();
      }
    }
  return "";
}

// The same for vectors, relative to each entry.
std::string compare(const std::vector<double>& result, const std::vector<double>& reference, double relative) {
  if (result.size() != reference.size()) return "sizes differ";
  for (std::size_t i = 0; i < result.size(); ++i)
    if (!(std::abs(result[i] - reference[i]) <= relative * std::abs(reference[i])))
      return "entry " + std::to_string(i) + " is " + std::to_string(result[i]) + ", expected " +
             std::to_string(reference[i]);
  return "";
}

template <class Real>
std::vector<double> widen(const std::vector<Real>& values) {
  return {values.begin(), values.end()};
}

// The consistent mass assembled on the host, element by element, from the fem functions: the
// reference for kernel 2's M.
CsrMatrix host_consistent_mass(const Model& model, const sparse::SectionTable& table) {
  const Mesh& mesh = model.mesh;
  CsrMatrix M = sparse::stiffness_pattern(mesh);
  const int dim = mesh.dim();
  Index global = 0;
  for (const auto& block : mesh.blocks)
    fem::with_element(block.type, block.order, [&](auto element) {
      using E = decltype(element);
      std::vector<double> x(E::n_nodes * E::dim), Me(E::n_nodes * E::n_nodes);
      for (Index e = 0; e < block.n_elements(); ++e, ++global) {
        const auto nodes = block.nodes(e);
        for (int a = 0; a < E::n_nodes; ++a)
          for (int c = 0; c < dim; ++c)
            x[static_cast<std::size_t>(a * dim + c)] = mesh.node(nodes[static_cast<std::size_t>(a)])[static_cast<std::size_t>(c)];
        const auto s = static_cast<std::size_t>(table.element_section[static_cast<std::size_t>(global)]);
        fem::consistent_mass<E>(x.data(), table.density[s] * table.thickness[s], fem::mass_rule<E>(), Me.data());
        for (int a = 0; a < E::n_nodes; ++a)
          for (int b = 0; b < E::n_nodes; ++b)
            for (int r = 0; r < dim; ++r) {
              const Size k = M.find(nodes[static_cast<std::size_t>(a)] * dim + r, nodes[static_cast<std::size_t>(b)] * dim + r);
              M.values[static_cast<std::size_t>(k)] += Me[static_cast<std::size_t>(a * E::n_nodes + b)];
            }
      }
    });
  return M;
}

struct CaseData {
  Model model;
  sparse::SectionTable table;
  sparse::ElementColouring colouring;
  Index m = 0;  // most elements per node
};

CaseData make_setup(const test::ModelCase& param) {
  CaseData s;
  s.model = test::two_section_model(param.type, param.order, test::cells_for(param.type), 0.3);
  s.table = sparse::section_table(s.model);
  s.colouring = sparse::colour_elements(s.model.mesh);
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
    const double angle = 2.0 * 3.14159265358979 * i / n;
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
    const sparse::DeviceElements elements(exec, mesh, pattern_only_table(mesh), sparse::colour_elements(mesh));
    EXPECT_EQ(sparse::build_nodal_pattern(exec, elements).max_neighbours, n + 1);
  }
}

// The paper's Eq. 9 equals kernel 1's count on boxes of x, y, z nodes (cells + 1 per direction).
TEST(TwoKernelPattern, StructuredHex8CountIsEquation9) {
  const std::array<Size, 3> boxes[] = {{1, 1, 1}, {2, 2, 2}, {1, 3, 2}, {4, 1, 5}, {6, 5, 4}, {9, 2, 7}};
  for (const auto& cells : boxes) {
    const Mesh mesh = generate_box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, cells, ElementType::Hex8);
    const sparse::DeviceElements elements(Exec::openmp(), mesh, pattern_only_table(mesh), sparse::colour_elements(mesh));
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
    const sparse::ElementColouring colouring = sparse::colour_elements(mesh);
    EXPECT_EQ(colouring.n_colours, 8) << cells[0] << " x " << cells[1] << " x " << cells[2];
    EXPECT_TRUE(sparse::is_valid_colouring(mesh, colouring));
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
    const sparse::DeviceElements elements(exec, s.model.mesh, s.table, s.colouring);
    for (RaceStrategy strategy : {RaceStrategy::Colouring, RaceStrategy::Atomics}) {
      const std::string what = GetParam().label + " " + exec.describe() +
                               (strategy == RaceStrategy::Colouring ? " colouring" : " atomics");
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
  const CsrMatrix reference = host_consistent_mass(s.model, s.table);
  const sparse::DeviceElements elements(Exec::openmp(), s.model.mesh, s.table, s.colouring);
  for (RaceStrategy strategy : {RaceStrategy::Colouring, RaceStrategy::Atomics}) {
    EXPECT_EQ(compare(on_host(sparse::assemble_csr<double>(Exec::openmp(), elements, GlobalMatrix::ConsistentMass,
                                                           strategy)),
                      reference, 1e-12),
              "");
    EXPECT_EQ(compare(on_host(sparse::assemble_csr<float>(Exec::openmp(), elements, GlobalMatrix::ConsistentMass,
                                                          strategy)),
                      reference, rounding_bound(s.m, u_float)),
              "");
  }
}

// The lumped mass: positive contributions, so the bound is relative to each entry.
TEST_P(TwoKernelAssembly, LumpedMassEqualsHostAssembly) {
  const CaseData s = make_setup(GetParam());
  const std::vector<double> reference = sparse::assemble_lumped_mass(s.model, s.table, s.colouring, Exec::openmp());
  for (const Exec& exec : {Exec::serial(), Exec::openmp()}) {
    const sparse::DeviceElements elements(exec, s.model.mesh, s.table, s.colouring);
    for (RaceStrategy strategy : {RaceStrategy::Colouring, RaceStrategy::Atomics}) {
      EXPECT_EQ(compare(sparse::assemble_lumped_mass<double>(exec, elements, strategy).to_host(), reference, 1e-12), "");
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
  const sparse::DeviceElements elements(exec, s.model.mesh, s.table, s.colouring);
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
  const sparse::DeviceElements serial(Exec::serial(), s.model.mesh, s.table, s.colouring);
  const sparse::DeviceElements openmp(Exec::openmp(), s.model.mesh, s.table, s.colouring);
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
  EXPECT_EQ(compare(sparse::assemble_lumped_mass<double>(Exec::openmp(), openmp, RaceStrategy::Colouring).to_host(),
                    sparse::assemble_lumped_mass<double>(Exec::serial(), serial, RaceStrategy::Colouring).to_host(),
                    0.0),
            "");
}

INSTANTIATE_TEST_SUITE_P(Elements, TwoKernelAssembly, ::testing::ValuesIn(test::operator_cases()),
                         [](const ::testing::TestParamInfo<test::ModelCase>& p) { return p.param.label; });

// The absorbing layers' per-element factor scales K_e as the host assembly scales it.
TEST(TwoKernelAssemblyExtra, StiffnessCarriesTheAbsorbingFactor) {
  const Model model = test::two_section_model(ElementType::Tet4, 1, 3, 0.3);
  sparse::SectionTable table = sparse::section_table(model);
  table.element_stiffness_factor.resize(static_cast<std::size_t>(model.mesh.n_elements()));
  for (std::size_t e = 0; e < table.element_stiffness_factor.size(); ++e)
    table.element_stiffness_factor[e] = 1.0 + 0.5 * static_cast<double>(e % 3);
  const sparse::ElementColouring colouring = sparse::colour_elements(model.mesh);
  const CsrMatrix reference = sparse::assemble_stiffness(model, table, colouring, Exec::openmp());
  const sparse::DeviceElements elements(Exec::openmp(), model.mesh, table, colouring);
  for (RaceStrategy strategy : {RaceStrategy::Colouring, RaceStrategy::Atomics})
    EXPECT_EQ(compare(on_host(sparse::assemble_csr<double>(Exec::openmp(), elements, GlobalMatrix::Stiffness, strategy)),
                      reference, 1e-12),
              "");
  // The same without the factors differs: the check can fail.
  const CsrMatrix plain = sparse::assemble_stiffness(model, sparse::section_table(model), colouring, Exec::openmp());
  EXPECT_NE(compare(on_host(sparse::assemble_csr<double>(Exec::openmp(), elements, GlobalMatrix::Stiffness,
                                                         RaceStrategy::Colouring)),
                    plain, 1e-12),
            "");
}

// hex20 stiffness is built in the workspace; launches cut into chunks give the same bits.
TEST(TwoKernelAssemblyExtra, WorkspaceChunksGiveTheSameMatrix) {
  const Model model = test::two_section_model(ElementType::Hex20, 1, 3, 0.3);
  const sparse::SectionTable table = sparse::section_table(model);
  const sparse::ElementColouring colouring = sparse::colour_elements(model.mesh);
  const sparse::DeviceElements elements(Exec::openmp(), model.mesh, table, colouring);
  const CsrMatrix whole =
      on_host(sparse::assemble_csr<double>(Exec::openmp(), elements, GlobalMatrix::Stiffness, RaceStrategy::Colouring));
  const std::size_t saved = sparse::element_workspace_budget();
  for (std::size_t per_chunk : {1, 2, 5}) {
    sparse::set_element_workspace_budget(per_chunk * 3600 * sizeof(double));
    for (RaceStrategy strategy : {RaceStrategy::Colouring, RaceStrategy::Atomics})
      EXPECT_EQ(compare(on_host(sparse::assemble_csr<double>(Exec::openmp(), elements, GlobalMatrix::Stiffness, strategy)),
                        whole, strategy == RaceStrategy::Colouring ? 0.0 : rounding_bound(8, u_double)),
                "")
          << per_chunk << " elements per chunk";
  }
  sparse::set_element_workspace_budget(saved);
}

// Timed assembly reports both kernels and gives the same matrix.
TEST(TwoKernelAssemblyExtra, TimesAreReported) {
  const Model model = test::two_section_model(ElementType::Hex8, 1, 4, 0.3);
  const sparse::SectionTable table = sparse::section_table(model);
  const sparse::ElementColouring colouring = sparse::colour_elements(model.mesh);
  const sparse::DeviceElements elements(Exec::openmp(), model.mesh, table, colouring);
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

// The comparisons can fail: one perturbed entry, a NaN, a moved column.
TEST(TwoKernelAssemblyExtra, ComparisonsDetectAPerturbedEntry) {
  const Model model = test::two_section_model(ElementType::Quad4, 1, 4, 0.3);
  const sparse::SectionTable table = sparse::section_table(model);
  const sparse::ElementColouring colouring = sparse::colour_elements(model.mesh);
  const sparse::DeviceElements elements(Exec::openmp(), model.mesh, table, colouring);
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
