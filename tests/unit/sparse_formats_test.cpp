// ELL, SELL-C-sigma, JDS and nodal-block ELL (sparse/formats.hpp) against the CSR SpMV on the
// host: every format sums each row in column order in Real, as CSR does, so the results must be
// the same bits on Serial and OpenMP, in float and double.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "sparse_test_models.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/core/error.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/sparse/csr.hpp"
#include "tremor/sparse/formats.hpp"

namespace tremor::sparse {
namespace TREMOR_TEST_FILE {

using test::hash_unit;

// A matrix from its rows' (sorted) columns, values from a hash.
CsrMatrix from_rows(const std::vector<std::vector<Index>>& rows, std::uint64_t seed) {
  CsrMatrix m;
  m.n_rows = static_cast<Index>(rows.size());
  m.offsets.push_back(0);
  for (const auto& row : rows) {
    for (Index c : row) {
      m.columns.push_back(c);
      m.values.push_back(hash_unit(seed * 7919u + m.columns.size()) * 1e3);
    }
    m.offsets.push_back(static_cast<Size>(m.columns.size()));
  }
  return m;
}

// 77 rows (not a multiple of any slice height tried), lengths 0 .. 8 in a ragged pattern, five
// empty rows (one at each end), and row 33 with 70 entries: ELL pads every row to 70, SELL
// only row 33's slice, JDS nothing.
CsrMatrix ragged_matrix() {
  const Index n = 77;
  std::vector<std::vector<Index>> rows(static_cast<std::size_t>(n));
  for (Index r = 0; r < n; ++r) {
    Index length = (r * 7 + 3) % 9;
    if (r == 0 || r == 12 || r == 13 || r == 50 || r == n - 1) length = 0;
    if (r == 33) length = 70;
    std::set<Index> columns;
    for (std::uint64_t k = 0; static_cast<Index>(columns.size()) < length; ++k)
      columns.insert(static_cast<Index>((hash_unit(static_cast<std::uint64_t>(r) * 1000u + k) + 1.0) * 0.5 * n));
    rows[static_cast<std::size_t>(r)].assign(columns.begin(), columns.end());
  }
  return from_rows(rows, 11);
}

// A nodal-block matrix (blocks of `dim`) from each node's block columns.
CsrMatrix block_matrix(const std::vector<std::vector<Index>>& node_rows, int dim, std::uint64_t seed) {
  std::vector<std::vector<Index>> rows;
  for (const auto& blocks : node_rows)
    for (int r = 0; r < dim; ++r) {
      std::vector<Index> row;
      for (Index node : blocks)
        for (int c = 0; c < dim; ++c) row.push_back(node * dim + c);
      rows.push_back(row);
    }
  return from_rows(rows, seed);
}

// 37 nodes in 2D: node rows of 0 .. 5 blocks, three empty, node 20 coupled to 30 nodes.
CsrMatrix ragged_block_matrix() {
  const Index n = 37;
  std::vector<std::vector<Index>> nodes(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) {
    Index count = (i * 5 + 1) % 6;
    if (i == 0 || i == 17 || i == n - 1) count = 0;
    if (i == 20) count = 30;
    std::set<Index> columns;
    for (std::uint64_t k = 0; static_cast<Index>(columns.size()) < count; ++k)
      columns.insert(static_cast<Index>((hash_unit(static_cast<std::uint64_t>(i) * 977u + k) + 1.0) * 0.5 * n));
    nodes[static_cast<std::size_t>(i)].assign(columns.begin(), columns.end());
  }
  return block_matrix(nodes, 2, 5);
}

using test::apply;
using test::expect_same_bits;
using test::rounded_vector;

template <class Real>
std::vector<Real> csr_reference(const CsrMatrix& matrix, const std::vector<Real>& x) {
  const CsrMatrixT<Real> csr = convert<Real>(matrix);
  std::vector<Real> y(x.size(), std::numeric_limits<Real>::quiet_NaN());
  spmv(Exec::serial(), csr, x.data(), y.data());
  return y;
}

// Every scalar format (and the block format when dim > 0) on Serial and OpenMP against CSR.
template <class Real>
void check_formats(const CsrMatrix& matrix, int dim) {
  const auto x = rounded_vector<Real>(matrix.n_rows, 3);
  const auto reference = csr_reference(matrix, x);
  // The test must not pass on a zero product: most rows have a non-zero sum.
  Index non_zero = 0;
  for (Real v : reference) non_zero += v != Real(0);
  EXPECT_GT(non_zero, matrix.n_rows / 2);
  const struct {
    int chunk;
    Index sigma;
  } sell_cases[] = {{32, 256}, {32, 1}, {4, 8}, {7, 5}, {1, 1}, {32, 1 << 20}};
  for (const Exec& exec : {Exec::serial(), Exec::openmp()}) {
    const std::string on = str(" on ", exec.describe(), " in ", sizeof(Real) == 4 ? "float" : "double");
    expect_same_bits(apply(exec, to_ell<Real>(exec, matrix), x), reference, "ELL" + on);
    for (const auto& c : sell_cases)
      expect_same_bits(apply(exec, to_sell<Real>(exec, matrix, c.chunk, c.sigma), x), reference,
                       str("SELL-", c.chunk, "-", c.sigma, on));
    expect_same_bits(apply(exec, to_jds<Real>(exec, matrix), x), reference, "JDS" + on);
    if (dim > 0) expect_same_bits(apply(exec, to_block_ell<Real>(exec, matrix, dim), x), reference, "block ELL" + on);
  }
}

TEST(SparseFormats, StiffnessMatricesEqualCsrBitForBit) {
  const test::ModelCase cases[] = {{ElementType::Tri3, 1, "tri3"},
                                   {ElementType::Quad8, 1, "quad8"},
                                   {ElementType::QuadGLL, 3, "quad_gll3"},
                                   {ElementType::Tet10, 1, "tet10"},
                                   {ElementType::Hex8, 1, "hex8"},
                                   {ElementType::HexGLL, 2, "hex_gll2"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.label);
    const Model model = test::two_section_model(c.type, c.order, test::cells_for(c.type), 0.2);
    const CsrMatrix K = assemble_stiffness(model, Exec::serial());
    check_formats<double>(K, model.mesh.dim());
    check_formats<float>(K, model.mesh.dim());
  }
}

TEST(SparseFormats, RaggedMatrixEqualsCsrBitForBit) {
  const CsrMatrix matrix = ragged_matrix();
  check_formats<double>(matrix, 0);
  check_formats<float>(matrix, 0);
  // The block format refuses a matrix without the nodal-block pattern, naming it.
  try {
    (void)to_block_ell<double>(Exec::serial(), matrix, 3);
    FAIL() << "to_block_ell accepted a matrix without nodal blocks";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nodal-block"), std::string::npos) << e.what();
  }
}

TEST(SparseFormats, RaggedBlockMatrixEqualsCsrBitForBit) {
  const CsrMatrix matrix = ragged_block_matrix();
  check_formats<double>(matrix, 2);
  check_formats<float>(matrix, 2);
}

// Padding never reads x: an infinite x entry reaches only the rows that hold its column (a
// padding "column = own row, value 0" would make 0 * inf = NaN in rows that do not).
TEST(SparseFormats, PaddingDoesNotReadX) {
  const CsrMatrix matrix = ragged_matrix();
  auto x = rounded_vector<double>(matrix.n_rows, 9);
  x[0] = std::numeric_limits<double>::infinity();  // row 0 is empty; column 0 appears in few rows
  const auto reference = csr_reference(matrix, x);
  const Exec exec = Exec::serial();
  expect_same_bits(apply(exec, to_ell<double>(exec, matrix), x), reference, "ELL");
  expect_same_bits(apply(exec, to_sell<double>(exec, matrix, 8, 16), x), reference, "SELL");
  expect_same_bits(apply(exec, to_jds<double>(exec, matrix), x), reference, "JDS");
  EXPECT_EQ(reference[0], 0.0);
}

// A 5-row matrix small enough to count by hand: row lengths 2, 0, 3, 1, 1 (nnz 7).
CsrMatrix tiny_matrix() { return from_rows({{0, 3}, {}, {1, 2, 4}, {2}, {0}}, 1); }

TEST(SparseFormats, BytesAndLayoutCountedByHand) {
  const CsrMatrix matrix = tiny_matrix();
  const Exec exec = Exec::serial();
  // ELL: width 3, 5 x 3 = 15 slots (8 padding) of a 4 B column and a value.
  const auto ell = to_ell<double>(exec, matrix);
  EXPECT_EQ(ell.bytes(), 15u * (4 + 8));
  EXPECT_EQ(to_ell<float>(exec, matrix).bytes(), 15u * (4 + 4));
  EXPECT_EQ(ell.stats().padding(), 8);
  // Column-major: slot k of row r at k * 5 + r, -1 where a row has no entry k.
  EXPECT_EQ(ell.columns.to_host(), (std::vector<Index>{0, -1, 1, 2, 0, 3, -1, 2, -1, -1, -1, -1, 4, -1, -1}));

  // SELL, C = 2, no sort: slices {0, 1} width 2, {2, 3} width 3, {4} width 1: 4 + 6 + 1 = 11
  // entries; 4 slice offsets of 8 B; 5 row indices of 4 B.
  const auto sell = to_sell<double>(exec, matrix, 2, 1);
  EXPECT_EQ(sell.bytes(), 11u * 12 + 4 * 8 + 5 * 4);
  EXPECT_EQ(sell.stats().padding(), 4);
  // sigma = 4 sorts rows 0-3 to 2, 0, 3, 1 (lengths 3, 2, 1, 0); row 4 alone: slices {2, 0}
  // width 3, {3, 1} width 1, {4} width 1: 6 + 2 + 1 = 9 entries.
  const auto sorted = to_sell<double>(exec, matrix, 2, 4);
  EXPECT_EQ(sorted.bytes(), 9u * 12 + 4 * 8 + 5 * 4);
  EXPECT_EQ(sorted.row_of.to_host(), (std::vector<Index>{2, 0, 3, 1, 4}));
  EXPECT_EQ(sorted.width, 3);

  // JDS: 7 entries, 3 diagonals (4 offsets), 5 row indices; sorted rows 2, 0, 3, 4, 1; diagonal
  // lengths 4, 2, 1.
  const auto jds = to_jds<double>(exec, matrix);
  EXPECT_EQ(jds.bytes(), 7u * 12 + 4 * 8 + 5 * 4);
  EXPECT_EQ(jds.stats().padding(), 0);
  EXPECT_EQ(jds.row_of.to_host(), (std::vector<Index>{2, 0, 3, 4, 1}));
  EXPECT_EQ(jds.diagonal_offsets.to_host(), (std::vector<Size>{0, 4, 6, 7}));

  // Nodal-block ELL, blocks of 2: node rows of 2, 0 and 1 blocks; width 2, 3 x 2 = 6 slots of one
  // 4 B index and 4 values of 8 B.
  const CsrMatrix blocks = block_matrix({{0, 2}, {}, {1}}, 2, 4);
  const auto block_ell = to_block_ell<double>(exec, blocks, 2);
  EXPECT_EQ(block_ell.bytes(), 6u * (4 + 4 * 8));
  EXPECT_EQ(to_block_ell<float>(exec, blocks, 2).bytes(), 6u * (4 + 4 * 4));
  EXPECT_EQ(block_ell.stats().nnz, 12);
  EXPECT_EQ(block_ell.stats().stored, 24);
  EXPECT_EQ(block_ell.columns.to_host(), (std::vector<Index>{0, -1, 1, 2, -1, -1}));
}

TEST(SparseFormats, StatsOfAStiffnessMatrix) {
  const Model model = test::two_section_model(ElementType::Hex8, 1, 3, 0.2);
  const CsrMatrix K = assemble_stiffness(model, Exec::serial());
  const Exec exec = Exec::serial();
  const auto ell = to_ell<double>(exec, K).stats();
  const auto sell = to_sell<double>(exec, K).stats();
  const auto jds = to_jds<double>(exec, K).stats();
  const auto block = to_block_ell<double>(exec, K, 3).stats();
  for (const auto& s : {ell, sell, jds, block}) {
    EXPECT_EQ(s.nnz, K.nnz()) << s.format;
    EXPECT_EQ(s.n_rows, K.n_rows) << s.format;
  }
  // A hex8 node couples to at most 27 nodes: 81 entries per row.
  EXPECT_EQ(ell.width, 81);
  EXPECT_EQ(block.width, 27);
  EXPECT_EQ(ell.stored, Size(81) * K.n_rows);
  // Interior rows are full, boundary rows shorter: ELL pads, sorting slices pads less, JDS not.
  EXPECT_GT(ell.padding_fraction(), 0.0);
  EXPECT_LT(sell.padding(), ell.padding());
  EXPECT_EQ(jds.padding(), 0);
  EXPECT_EQ(block.padding(), ell.padding());  // the same rows padded, by whole blocks
  // The block format carries one 4 B index per 9 values: 8 + 4/9 B per stored value in double.
  EXPECT_DOUBLE_EQ(static_cast<double>(block.bytes) / static_cast<double>(block.stored), 8.0 + 4.0 / 9.0);
  EXPECT_NE(describe(sell).find("sell-32-256"), std::string::npos) << describe(sell);
}

TEST(SparseFormats, BadParametersAreRefused) {
  const CsrMatrix matrix = tiny_matrix();
  EXPECT_THROW((void)to_sell<double>(Exec::serial(), matrix, 0, 1), Error);
  EXPECT_THROW((void)to_sell<double>(Exec::serial(), matrix, 32, 0), Error);
  CsrMatrix broken = matrix;
  broken.offsets.pop_back();
  EXPECT_THROW((void)to_ell<double>(Exec::serial(), broken), Error);
}

}  // namespace
}  // namespace tremor::sparse
