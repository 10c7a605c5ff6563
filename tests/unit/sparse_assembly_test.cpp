// sparse/: the CSR pattern of a mesh, element colouring, and the assembled stiffness, lumped mass
// and damping of a model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "sparse_test_models.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/sparse/csr.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using sparse::CsrMatrix;
using test::two_section_model;

double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// y = K x on the host, for checks independent of spmv().
std::vector<double> multiply(const CsrMatrix& K, const std::vector<double>& x, std::vector<double>* scale = nullptr) {
  std::vector<double> y(static_cast<std::size_t>(K.n_rows), 0.0);
  if (scale) scale->assign(y.size(), 0.0);
  for (Index r = 0; r < K.n_rows; ++r)
    for (Size k = K.offsets[static_cast<std::size_t>(r)]; k < K.offsets[static_cast<std::size_t>(r) + 1]; ++k) {
      const double term = K.values[static_cast<std::size_t>(k)] * x[static_cast<std::size_t>(K.columns[static_cast<std::size_t>(k)])];
      y[static_cast<std::size_t>(r)] += term;
      if (scale) (*scale)[static_cast<std::size_t>(r)] += std::abs(term);
    }
  return y;
}

// --------------------------------------------------------------------------------------- pattern

// Distinct (row, column) DOF pairs coupled by some element, counted by brute force.
std::set<std::pair<Index, Index>> coupled_pairs(const Mesh& mesh) {
  std::set<std::pair<Index, Index>> pairs;
  const int dim = mesh.dim();
  for (const auto& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e)
      for (Index a : block.nodes(e))
        for (Index b : block.nodes(e))
          for (int i = 0; i < dim; ++i)
            for (int j = 0; j < dim; ++j) pairs.insert({a * dim + i, b * dim + j});
  return pairs;
}

void expect_pattern_matches(const Mesh& mesh, Size expected_entries) {
  const CsrMatrix pattern = sparse::stiffness_pattern(mesh);
  const auto d2 = static_cast<Size>(mesh.dim() * mesh.dim());
  EXPECT_EQ(node_graph(mesh).n_entries(), expected_entries);
  EXPECT_EQ(pattern.nnz(), expected_entries * d2);
  EXPECT_EQ(pattern.n_rows, mesh.n_nodes() * mesh.dim());
  const auto pairs = coupled_pairs(mesh);
  EXPECT_EQ(static_cast<Size>(pairs.size()), pattern.nnz());
  std::set<std::pair<Index, Index>> stored;
  for (Index r = 0; r < pattern.n_rows; ++r)
    for (Size k = pattern.offsets[static_cast<std::size_t>(r)]; k < pattern.offsets[static_cast<std::size_t>(r) + 1]; ++k) {
      if (k > pattern.offsets[static_cast<std::size_t>(r)]) {
        EXPECT_LT(pattern.columns[static_cast<std::size_t>(k) - 1], pattern.columns[static_cast<std::size_t>(k)]);
      }
      stored.insert({r, pattern.columns[static_cast<std::size_t>(k)]});
      EXPECT_EQ(pattern.find(r, pattern.columns[static_cast<std::size_t>(k)]), k);
    }
  EXPECT_EQ(stored, pairs);
}

TEST(SparsePattern, Quad4GridNnzIsTheNeighbourFormula) {
  // Node i along an axis of n cells has 3 neighbours (itself included) inside, 2 at the ends:
  // summed over the n + 1 nodes, 3n + 1; the grid's entries are the product over the axes.
  const Mesh mesh = generate_rectangle({0.0, 0.0}, {1.0, 1.0}, {5, 3}, ElementType::Quad4);
  expect_pattern_matches(mesh, (3 * 5 + 1) * (3 * 3 + 1));
}

TEST(SparsePattern, Hex8GridNnzIsTheNeighbourFormula) {
  const Mesh mesh = generate_box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {3, 4, 2}, ElementType::Hex8);
  expect_pattern_matches(mesh, (3 * 3 + 1) * (3 * 4 + 1) * (3 * 2 + 1));
  // An interior node couples to 27 nodes: its 3 rows hold 27 x 3 entries each, 27 x 9 in all.
  const CsrMatrix pattern = sparse::stiffness_pattern(mesh);
  const Index interior = 1 + 4 * (1 + 5 * 1);  // (i, j, k) = (1, 1, 1), x fastest, 4 x 5 x 3 nodes
  const Size row_start = pattern.offsets[static_cast<std::size_t>(interior * 3)];
  const Size row_end = pattern.offsets[static_cast<std::size_t>(interior * 3 + 3)];
  EXPECT_EQ(row_end - row_start, 27 * 9);
}

TEST(SparsePattern, MatchesDistinctPairsOnHigherOrderAndSimplexMeshes) {
  for (const auto& c : test::operator_cases()) {
    SCOPED_TRACE(c.label);
    const Model model = two_section_model(c.type, c.order, 2, 0.0);
    expect_pattern_matches(model.mesh, node_graph(model.mesh).n_entries());
  }
}

// ------------------------------------------------------------------------------------- colouring

TEST(SparseColouring, ValidDeterministicAndSmall) {
  const Mesh quads = generate_rectangle({0.0, 0.0}, {1.0, 1.0}, {6, 5}, ElementType::Quad4);
  const auto colouring = fem::colour_elements(quads);
  EXPECT_TRUE(fem::is_valid_colouring(quads, colouring));
  EXPECT_EQ(colouring.n_colours, 4);  // greedy in lexicographic order finds the 2 x 2 checkerboard
  const Mesh hexes = generate_box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {3, 3, 3}, ElementType::Hex8);
  EXPECT_EQ(fem::colour_elements(hexes).n_colours, 8);
  for (const auto& c : test::operator_cases()) {
    SCOPED_TRACE(c.label);
    const Model model = two_section_model(c.type, c.order, 3, 0.1);
    const auto a = fem::colour_elements(model.mesh), b = fem::colour_elements(model.mesh);
    EXPECT_TRUE(fem::is_valid_colouring(model.mesh, a));
    EXPECT_EQ(a.colour, b.colour);
    Index listed = 0;
    for (int blk = 0; blk < model.mesh.n_blocks(); ++blk)
      for (int col = 0; col < a.n_colours; ++col) listed += a.n_in(blk, col);
    EXPECT_EQ(listed, model.mesh.n_elements());
  }
}

// ------------------------------------------------------------------------------------- stiffness

TEST(SparseStiffness, SymmetricAndRigidBodyModesInTheNullSpace) {
  for (const auto& c : test::operator_cases()) {
    SCOPED_TRACE(c.label);
    const Model model = two_section_model(c.type, c.order, test::cells_for(c.type), 0.15);
    const CsrMatrix K = sparse::assemble_stiffness(model);
    const double scale = max_abs(K.values);
    ASSERT_GT(scale, 0.0);
    // K_e is symmetric by construction and each (i, j), (j, i) pair is summed over the same
    // elements in the same colour order, so the transpose matches to rounding at most.
    for (Index r = 0; r < K.n_rows; ++r)
      for (Size k = K.offsets[static_cast<std::size_t>(r)]; k < K.offsets[static_cast<std::size_t>(r) + 1]; ++k) {
        const Index col = K.columns[static_cast<std::size_t>(k)];
        const Size t = K.find(col, r);
        ASSERT_GE(t, 0);
        EXPECT_LE(std::abs(K.values[static_cast<std::size_t>(k)] - K.values[static_cast<std::size_t>(t)]), 1e-14 * scale);
      }
    // Rigid-body modes: translations and infinitesimal rotations give no force. Relative to the
    // row's sum of |K_ij r_j|: the residual is cancellation rounding, ~n_terms x 1e-16.
    const Mesh& mesh = model.mesh;
    const int dim = mesh.dim();
    std::vector<std::vector<double>> modes;
    for (int t = 0; t < dim; ++t) {
      std::vector<double> r(static_cast<std::size_t>(K.n_rows), 0.0);
      for (Index n = 0; n < mesh.n_nodes(); ++n) r[static_cast<std::size_t>(n * dim + t)] = 1.0;
      modes.push_back(r);
    }
    const int axes[3][2] = {{0, 1}, {1, 2}, {2, 0}};
    for (int a = 0; a < (dim == 2 ? 1 : 3); ++a) {
      std::vector<double> r(static_cast<std::size_t>(K.n_rows), 0.0);
      const int p = axes[a][0], q = axes[a][1];
      for (Index n = 0; n < mesh.n_nodes(); ++n) {
        r[static_cast<std::size_t>(n * dim + p)] = -mesh.node(n)[static_cast<std::size_t>(q)];
        r[static_cast<std::size_t>(n * dim + q)] = mesh.node(n)[static_cast<std::size_t>(p)];
      }
      modes.push_back(r);
    }
    EXPECT_EQ(modes.size(), dim == 2 ? 3u : 6u);
    for (std::size_t m = 0; m < modes.size(); ++m) {
      std::vector<double> row_scale;
      const auto force = multiply(K, modes[m], &row_scale);
      const double norm = max_abs(row_scale);
      EXPECT_LE(max_abs(force), 1e-12 * norm) << "mode " << m;
    }
  }
}

// A dense K assembled element by element in element order, independently of the pattern.
std::vector<double> dense_stiffness(const Model& model) {
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  const auto n = static_cast<std::size_t>(mesh.n_nodes() * dim);
  std::vector<double> dense(n * n, 0.0);
  const auto sections = model.element_sections();
  Index global = 0;
  for (const auto& block : mesh.blocks)
    fem::with_element(block.type, block.order, [&](auto element) {
      using E = decltype(element);
      constexpr int n_dof = E::n_nodes * E::dim;
      for (Index e = 0; e < block.n_elements(); ++e, ++global) {
        const Section& section = model.sections[static_cast<std::size_t>(sections[static_cast<std::size_t>(global)])];
        const Material& material = model.material(section.material);
        std::vector<double> D(36), x(n_dof), Ke(n_dof * n_dof);
        double thickness = 1.0;
        if (dim == 2) {
          const Voigt3 d = plane_stiffness(material, section.formulation);
          std::copy(d.begin(), d.end(), D.begin());
          thickness = section.thickness;
        } else {
          std::copy(material.stiffness.begin(), material.stiffness.end(), D.begin());
        }
        const auto nodes = block.nodes(e);
        for (int a = 0; a < E::n_nodes; ++a)
          for (int c = 0; c < dim; ++c) x[static_cast<std::size_t>(a * dim + c)] = mesh.node(nodes[static_cast<std::size_t>(a)])[static_cast<std::size_t>(c)];
        fem::element_stiffness<E>(x.data(), D.data(), thickness, Ke.data());
        for (int i = 0; i < n_dof; ++i)
          for (int j = 0; j < n_dof; ++j) {
            const auto r = static_cast<std::size_t>(nodes[static_cast<std::size_t>(i / dim)] * dim + i % dim);
            const auto col = static_cast<std::size_t>(nodes[static_cast<std::size_t>(j / dim)] * dim + j % dim);
            dense[r * n + col] += Ke[static_cast<std::size_t>(i * n_dof + j)];
          }
      }
    });
  return dense;
}

TEST(SparseStiffness, EqualsDenseAssembly) {
  for (const auto& c : {test::ModelCase{ElementType::Quad8, 1, "quad8"}, test::ModelCase{ElementType::Tri3, 1, "tri3"},
                        test::ModelCase{ElementType::Hex8, 1, "hex8"}, test::ModelCase{ElementType::Tet10, 1, "tet10"}}) {
    SCOPED_TRACE(c.label);
    const Model model = two_section_model(c.type, c.order, 2, 0.15);
    const CsrMatrix K = sparse::assemble_stiffness(model);
    const auto dense = dense_stiffness(model);
    const auto n = static_cast<std::size_t>(K.n_rows);
    const double scale = max_abs(dense);
    // The same element matrices summed in another order (colours vs elements): rounding only.
    std::vector<double> expanded(n * n, 0.0);
    for (Index r = 0; r < K.n_rows; ++r)
      for (Size k = K.offsets[static_cast<std::size_t>(r)]; k < K.offsets[static_cast<std::size_t>(r) + 1]; ++k)
        expanded[static_cast<std::size_t>(r) * n + static_cast<std::size_t>(K.columns[static_cast<std::size_t>(k)])] =
            K.values[static_cast<std::size_t>(k)];
    for (std::size_t k = 0; k < n * n; ++k) ASSERT_NEAR(expanded[k], dense[k], 1e-14 * scale) << "entry " << k;
  }
}

TEST(SparseStiffness, OpenMpEqualsSerialBitForBit) {
  const Model model = two_section_model(ElementType::Hex20, 1, 3, 0.15);
  const CsrMatrix a = sparse::assemble_stiffness(model, Exec::serial());
  const CsrMatrix b = sparse::assemble_stiffness(model, Exec::openmp());
  ASSERT_EQ(a.values.size(), b.values.size());
  EXPECT_EQ(std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(double)), 0);
  const auto ma = sparse::assemble_lumped_mass(model, Exec::serial());
  const auto mb = sparse::assemble_lumped_mass(model, Exec::openmp());
  EXPECT_EQ(std::memcmp(ma.data(), mb.data(), ma.size() * sizeof(double)), 0);
}

TEST(SparseStiffness, RefusesAnInvertedElementNamingIt) {
  Model model = two_section_model(ElementType::Quad4, 1, 4, 0.0);
  auto& connectivity = model.mesh.blocks[0].connectivity;
  std::swap(connectivity[4 * 6 + 1], connectivity[4 * 6 + 3]);  // element label 7, clockwise
  try {
    (void)sparse::assemble_stiffness(model);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("element 7 "), std::string::npos) << error.what();
  }
  EXPECT_THROW((void)sparse::assemble_lumped_mass(model), Error);
}

TEST(SparseStiffness, RefusesAnElementWithoutSection) {
  Model model = two_section_model(ElementType::Quad4, 1, 4, 0.0);
  model.mesh.element_sets["left"].erase(model.mesh.element_sets["left"].begin());
  try {
    (void)sparse::assemble_stiffness(model);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("element 1 has no section"), std::string::npos) << error.what();
  }
}

// ------------------------------------------------------------------------------ mass and damping

TEST(SparseMass, TotalIsDensityTimesVolume) {
  // Undistorted, split at x = 0.5 on a grid line: each section's volume is exact. The lumped
  // masses sum to the consistent total (rounding only). Per node, every component gets the same.
  for (const auto& c : test::operator_cases()) {
    SCOPED_TRACE(c.label);
    const Model model = two_section_model(c.type, c.order, 2, 0.0);
    const auto mass = sparse::assemble_lumped_mass(model);
    const int dim = model.mesh.dim();
    double total = 0.0;
    for (std::size_t i = 0; i < mass.size(); ++i) {
      total += mass[i];
      EXPECT_EQ(mass[i], mass[i - i % static_cast<std::size_t>(dim)]);
    }
    total /= dim;
    const double half = dim == 2 ? 0.5 * 0.8 : 0.5 * 0.8 * 0.6;
    const double expected = dim == 2 ? 7850.0 * half * 0.25 + 2700.0 * half * 0.5 : (7850.0 + 2700.0) * half;
    EXPECT_NEAR(total, expected, 1e-12 * expected);
    for (double m : mass) EXPECT_GT(m, 0.0);
  }
}

TEST(SparseDamping, UniformAlphaIsAlphaTimesMass) {
  const Model model = two_section_model(ElementType::Hex20, 1, 2, 0.15, false);
  const auto mass = sparse::assemble_lumped_mass(model);
  const auto damping = sparse::assemble_lumped_damping(model);
  ASSERT_EQ(mass.size(), damping.size());
  // alpha * (sum of m_e) vs sum of (alpha * m_e): one rounding per term.
  for (std::size_t i = 0; i < mass.size(); ++i) EXPECT_NEAR(damping[i], 1000.0 * mass[i], 1e-14 * 1000.0 * mass[i]);
}

TEST(SparseDamping, EachDofGetsItsElementsShare) {
  for (const auto& c : {test::ModelCase{ElementType::Quad8, 1, "quad8"}, test::ModelCase{ElementType::Tet4, 1, "tet4"},
                        test::ModelCase{ElementType::HexGLL, 2, "hex_gll2"}}) {
    SCOPED_TRACE(c.label);
    const Model model = two_section_model(c.type, c.order, 3, 0.15);
    const auto damping = sparse::assemble_lumped_damping(model);
    const auto mass = sparse::assemble_lumped_mass(model);
    // Expected: sum over the node's elements of alpha_e * m_e(node), element by element.
    const Mesh& mesh = model.mesh;
    const int dim = mesh.dim();
    std::vector<double> expected(damping.size(), 0.0);
    const auto sections = model.element_sections();
    Index global = 0;
    for (const auto& block : mesh.blocks)
      fem::with_element(block.type, block.order, [&](auto element) {
        using E = decltype(element);
        for (Index e = 0; e < block.n_elements(); ++e, ++global) {
          const Section& section = model.sections[static_cast<std::size_t>(sections[static_cast<std::size_t>(global)])];
          const Material& material = model.material(section.material);
          std::vector<double> x(E::n_nodes * E::dim), m(E::n_nodes);
          const auto nodes = block.nodes(e);
          for (int a = 0; a < E::n_nodes; ++a)
            for (int k = 0; k < dim; ++k) x[static_cast<std::size_t>(a * dim + k)] = mesh.node(nodes[static_cast<std::size_t>(a)])[static_cast<std::size_t>(k)];
          fem::lumped_mass<E>(x.data(), material.density * (dim == 2 ? section.thickness : 1.0), m.data());
          for (int a = 0; a < E::n_nodes; ++a)
            for (int k = 0; k < dim; ++k)
              expected[static_cast<std::size_t>(nodes[static_cast<std::size_t>(a)] * dim + k)] +=
                  material.damping_alpha * m[static_cast<std::size_t>(a)];
        }
      });
    int mixed = 0;
    for (std::size_t i = 0; i < damping.size(); ++i) {
      EXPECT_NEAR(damping[i], expected[i], 1e-13 * expected[i]);
      // Between the two alphas (1000 and 3000 s^-1) times the mass, strictly inside on the interface.
      EXPECT_GE(damping[i], 1000.0 * mass[i] * (1 - 1e-13));
      EXPECT_LE(damping[i], 3000.0 * mass[i] * (1 + 1e-13));
      if (damping[i] > 1000.0 * mass[i] * (1 + 1e-6) && damping[i] < 3000.0 * mass[i] * (1 - 1e-6)) ++mixed;
    }
    EXPECT_GT(mixed, 0);
  }
}

}  // namespace
}  // namespace tremor
