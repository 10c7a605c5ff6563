#pragma once
// Helpers of the two-kernel assembly tests (unit/assembly_two_kernel_test.cpp,
// parity/assembly_parity_test.cpp): device matrices back on the host as CSR, comparisons with
// rounding bounds that can fail, host references the library does not provide.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/model/model.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/sparse/csr.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/sparse/element_batch.hpp"
#include "tremor/sparse/two_kernel.hpp"

namespace tremor::test {

using sparse::CsrMatrix;

// A section table that only sizes things: kernel 1 reads the connectivity alone.
inline fem::SectionTable pattern_only_table(const Mesh& mesh) {
  fem::SectionTable table;
  table.dim = mesh.dim();
  table.n_voigt = table.dim == 2 ? 3 : 6;
  table.D = {{}};
  table.thickness = {1.0};
  table.density = {1.0};
  table.damping_alpha = {0.0};
  table.element_section.assign(static_cast<std::size_t>(mesh.n_elements()), 0);
  return table;
}

inline NodeGraph pattern_on_host(const sparse::NodalPattern& pattern) {
  NodeGraph graph;
  graph.offsets = pattern.offsets.to_host();
  graph.neighbours = pattern.neighbours.to_host();
  return graph;
}

// "" when kernel 1 gives node_graph(mesh) on exec, else the first difference.
inline std::string check_pattern(const Exec& exec, const Mesh& mesh) {
  const fem::DeviceElements elements(exec, mesh, pattern_only_table(mesh), fem::colour_elements(mesh));
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
inline Index max_elements_per_node(const Mesh& mesh) {
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
inline double rounding_bound(Index m, double u) { return 2.0 * (m + 1) * m * u; }
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
      const auto k =
          static_cast<std::size_t>(s) * static_cast<std::size_t>(matrix.n_rows) + static_cast<std::size_t>(r);
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

inline std::vector<double> diagonal(const CsrMatrix& matrix) {
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
inline std::string compare(const CsrMatrix& result, const CsrMatrix& reference, double relative) {
  if (result.n_rows != reference.n_rows) return "row counts differ";
  if (result.offsets != reference.offsets) return "row offsets differ";
  if (result.columns != reference.columns) return "columns differ";
  const std::vector<double> d = diagonal(reference);
  for (Index r = 0; r < reference.n_rows; ++r)
    for (Size k = reference.offsets[static_cast<std::size_t>(r)];
         k < reference.offsets[static_cast<std::size_t>(r) + 1]; ++k) {
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
inline std::string compare(const std::vector<double>& result, const std::vector<double>& reference, double relative) {
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

// The coordinates of element `nodes` of `mesh`, x[a * dim + c].
template <class Nodes>
void element_coordinates(const Mesh& mesh, const Nodes& nodes, int n_nodes, std::vector<double>& x) {
  const int dim = mesh.dim();
  for (int a = 0; a < n_nodes; ++a)
    for (int c = 0; c < dim; ++c)
      x[static_cast<std::size_t>(a * dim + c)] =
          mesh.node(nodes[static_cast<std::size_t>(a)])[static_cast<std::size_t>(c)];
}

// The consistent mass assembled on the host, element by element, from the fem functions: the
// reference for kernel 2's M.
inline CsrMatrix host_consistent_mass(const Model& model, const fem::SectionTable& table) {
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
        element_coordinates(mesh, nodes, E::n_nodes, x);
        const auto s = static_cast<std::size_t>(table.element_section[static_cast<std::size_t>(global)]);
        fem::consistent_mass<E>(x.data(), table.density[s] * table.thickness[s], fem::mass_rule<E>(), Me.data());
        for (int a = 0; a < E::n_nodes; ++a)
          for (int b = 0; b < E::n_nodes; ++b)
            for (int r = 0; r < dim; ++r) {
              const Size k =
                  M.find(nodes[static_cast<std::size_t>(a)] * dim + r, nodes[static_cast<std::size_t>(b)] * dim + r);
              M.values[static_cast<std::size_t>(k)] += Me[static_cast<std::size_t>(a * E::n_nodes + b)];
            }
      }
    });
  return M;
}

// "" when consecutive blocks of `per_element` values are within `relative` of the reference's,
// relative to the block's largest reference magnitude (an entry that cancels to near zero is
// judged on its element's scale); else the first difference. NaN (an unwritten, poisoned value)
// fails.
inline std::string compare_elementwise(const std::vector<double>& result, const std::vector<double>& reference,
                                       Size per_element, double relative) {
  if (result.size() != reference.size()) return "sizes differ";
  for (std::size_t begin = 0; begin < reference.size(); begin += static_cast<std::size_t>(per_element)) {
    double scale = 0.0;
    for (Size k = 0; k < per_element; ++k)
      scale = std::max(scale, std::abs(reference[begin + static_cast<std::size_t>(k)]));
    for (Size k = 0; k < per_element; ++k) {
      const std::size_t i = begin + static_cast<std::size_t>(k);
      if (!(std::abs(result[i] - reference[i]) <= relative * scale)) {
        std::ostringstream message;
        message << "value " << i << " (element " << begin / static_cast<std::size_t>(per_element) << ", entry " << k
                << ") is " << result[i] << ", expected " << reference[i];
        return message.str();
      }
    }
  }
  return "";
}

// The element matrices of block 0 on exec into an output poisoned with NaN first, on the host.
inline std::vector<double> poisoned_batch(const Exec& exec, const fem::DeviceElements& elements,
                                          sparse::ElementMatrix matrix, sparse::MatrixStorage storage) {
  const auto& block = elements.blocks[0];
  const Size n = sparse::values_per_element(matrix, storage, block.n_element_nodes * elements.dim) * block.n_elements;
  const std::vector<double> poison(static_cast<std::size_t>(n), std::numeric_limits<double>::quiet_NaN());
  DeviceArray<double> out(exec, std::span<const double>(poison));
  sparse::element_matrices(exec, elements, 0, matrix, storage, out.data());
  exec.synchronize();
  return out.to_host();
}

}  // namespace tremor::test
