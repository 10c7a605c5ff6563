#include "tremor/static/preconditioner.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "tremor/backend/forall.hpp"
#include "tremor/backend/reduce.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/search.hpp"

namespace tremor::static_fe {

namespace {

// rows x dim, refused (not wrapped) beyond what one array can index.
Index checked_product(Index rows, int dim) {
  const Size product = static_cast<Size>(rows) * dim;
  TREMOR_CHECK(product <= Size{2147483647}, "preconditioner: ", rows, " x ", dim,
               " values exceed what one array can index (2^31 - 1)");
  return static_cast<Index>(product);
}

// Position of `column` in the sorted columns [begin, end), -1 when absent.
TREMOR_HOST_DEVICE inline Size find_column(const Index* columns, Size begin, Size end, Index column) {
  const Size low = lower_bound(columns, begin, end, column);
  return low < end && columns[low] == column ? low : Size(-1);
}

// The dim x dim diagonal block of every node (row-major, in double) from a scalar CSR matrix with
// node-major DOFs: one bisection per entry within its row; an entry absent from the pattern is 0.
// Traffic per node: dim^2 log2(row length) column reads, dim^2 values read, dim^2 doubles written.
template <class Real>
void csr_diagonal_blocks(const Exec& exec, const sparse::CsrView<Real> matrix, int dim, double* blocks) {
  const Size* offsets = matrix.offsets;
  const Index* columns = matrix.columns;
  const Real* values = matrix.values;
  forall(exec, matrix.n_rows / dim, [=] TREMOR_LAMBDA(Index node) {
    for (int r = 0; r < dim; ++r) {
      const Index row = node * dim + r;
      const Size begin = offsets[row], end = offsets[row + 1];
      for (int c = 0; c < dim; ++c) {
        const Size at = find_column(columns, begin, end, node * dim + c);
        blocks[(static_cast<Size>(node) * dim + r) * dim + c] = at >= 0 ? static_cast<double>(values[at]) : 0.0;
      }
    }
  });
}

// The same from a nodal-block matrix: one bisection per node among its block columns.
// Traffic per node: log2(blocks per row) column reads, dim^2 values read, dim^2 doubles written.
template <class Real>
void block_csr_diagonal_blocks(const Exec& exec, Index n_nodes, int dim, const Size* offsets, const Index* columns,
                               const Real* values, double* blocks) {
  forall(exec, n_nodes, [=] TREMOR_LAMBDA(Index node) {
    const Size begin = offsets[node], end = offsets[node + 1];
    const Size at = find_column(columns, begin, end, node);
    for (int k = 0; k < dim * dim; ++k)
      blocks[static_cast<Size>(node) * dim * dim + k] = at >= 0 ? static_cast<double>(values[at * dim * dim + k]) : 0.0;
  });
}

// Jacobi: inverse[i] = 1 / a_ii. status[i] = 0, or 1 when a_ii is not positive (or not finite).
// Traffic per row: one double read, one Real and one int written.
template <class Real>
void invert_diagonal(const Exec& exec, Index n_rows, int dim, const double* blocks, Real* inverse, int* status) {
  forall(exec, n_rows, [=] TREMOR_LAMBDA(Index row) {
    const Index node = row / dim;
    const int r = row - node * dim;
    const double a = blocks[(static_cast<Size>(node) * dim + r) * dim + r];
    const bool ok = a > 0.0 && a <= 1.7976931348623157e308;  // rejects 0, negatives, NaN and inf
    inverse[row] = ok ? static_cast<Real>(1.0 / a) : Real(0);
    status[row] = ok ? 0 : 1;
  });
}

// Block-Jacobi: the inverse of each node's block by Cholesky of its symmetric part, in double:
// A = L L^T, A^-1 = L^-T L^-1 (symmetric, as PCG needs). status[node] = 0; 1 + c when diagonal
// entry c is not positive; 1 + dim + c when the pivot of column c falls to `pivot_tolerance` of
// its diagonal entry or below (the block is singular or indefinite).
// Traffic per node: dim^2 doubles read, dim^2 Real and one int written; O(dim^3) flops.
template <int B, class Real>
void invert_blocks(const Exec& exec, Index n_nodes, const double* blocks, double pivot_tolerance, Real* inverse,
                   int* status) {
  forall(exec, n_nodes, [=] TREMOR_LAMBDA(Index node) {
    const double* a = blocks + static_cast<Size>(node) * B * B;
    Real* out = inverse + static_cast<Size>(node) * B * B;
    int failure = 0;
    for (int c = 0; c < B && failure == 0; ++c)
      if (!(a[c * B + c] > 0.0 && a[c * B + c] <= 1.7976931348623157e308)) failure = 1 + c;
    double lower[B][B] = {};
    for (int j = 0; j < B && failure == 0; ++j) {
      double pivot = a[j * B + j];
      for (int k = 0; k < j; ++k) pivot -= lower[j][k] * lower[j][k];
      if (!(pivot > pivot_tolerance * a[j * B + j])) {
        failure = 1 + B + j;
        break;
      }
      lower[j][j] = sqrt(pivot);
      for (int i = j + 1; i < B; ++i) {
        double s = 0.5 * (a[i * B + j] + a[j * B + i]);
        for (int k = 0; k < j; ++k) s -= lower[i][k] * lower[j][k];
        lower[i][j] = s / lower[j][j];
      }
    }
    status[node] = failure;
    if (failure != 0) {
      for (int k = 0; k < B * B; ++k) out[k] = Real(0);
      return;
    }
    // L^-1 by forward substitution, column by column; then A^-1 = L^-T L^-1.
    double inv_lower[B][B] = {};
    for (int j = 0; j < B; ++j) {
      inv_lower[j][j] = 1.0 / lower[j][j];
      for (int i = j + 1; i < B; ++i) {
        double s = 0.0;
        for (int k = j; k < i; ++k) s -= lower[i][k] * inv_lower[k][j];
        inv_lower[i][j] = s / lower[i][i];
      }
    }
    for (int i = 0; i < B; ++i)
      for (int j = 0; j < B; ++j) {
        double s = 0.0;
        for (int k = (i > j ? i : j); k < B; ++k) s += inv_lower[k][i] * inv_lower[k][j];
        out[i * B + j] = static_cast<Real>(s);
      }
  });
}

template <class Real>
void invert_blocks_any(const Exec& exec, int dim, Index n_nodes, const double* blocks, double pivot_tolerance,
                       Real* inverse, int* status) {
  switch (dim) {
    case 1: return invert_blocks<1>(exec, n_nodes, blocks, pivot_tolerance, inverse, status);
    case 2: return invert_blocks<2>(exec, n_nodes, blocks, pivot_tolerance, inverse, status);
    case 3: return invert_blocks<3>(exec, n_nodes, blocks, pivot_tolerance, inverse, status);
    default: throw Error(str("block-Jacobi preconditioner: block size ", dim, " is not 1, 2 or 3"));
  }
}

// z = D^-1 r. Traffic per row: 2 Real read, 1 written.
template <class Real>
void apply_jacobi(const Exec& exec, Index n_rows, const Real* inverse, const Real* r, Real* z) {
  forall(exec, n_rows, [=] TREMOR_LAMBDA(Index i) { z[i] = inverse[i] * r[i]; });
}

// z = blockdiag(A)^-1 r, one row per thread (rows of a node read the same B entries of r).
// Traffic per row: B inverse entries and B entries of r read (the latter shared by the node's B
// rows), 1 Real written.
template <int B, class Real>
void apply_block_jacobi(const Exec& exec, Index n_rows, const Real* inverse, const Real* r, Real* z) {
  forall(exec, n_rows, [=] TREMOR_LAMBDA(Index i) {
    const Index node = i / B;
    const Real* row = inverse + static_cast<Size>(node) * B * B + static_cast<Size>(i - node * B) * B;
    const Real* rn = r + static_cast<Size>(node) * B;
    Real s = 0;
    for (int c = 0; c < B; ++c) s += row[c] * rn[c];
    z[i] = s;
  });
}

template <class Real>
void copy_vector(const Exec& exec, Index n, const Real* from, Real* to) {
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) { to[i] = from[i]; });
}

Index count_failures(const Exec& exec, const DeviceArray<int>& status) {
  const int* s = status.data();
  return sum<Index>(exec, status.size(), [=] TREMOR_LAMBDA(Index i) { return s[i] != 0 ? Index(1) : Index(0); });
}

std::string node_name(Index node, std::span<const Label> labels) {
  if (!labels.empty() && static_cast<std::size_t>(node) < labels.size())
    return str("node ", labels[static_cast<std::size_t>(node)]);
  return str("node index ", node);
}

char component_name(int c) { return static_cast<char>('x' + c); }

// The relative pivot below which a diagonal block counts as singular: 1000 units of rounding of
// the matrix's precision. A nodal block of a stiffness is well conditioned (its pivots are a fair
// fraction of its diagonal even for distorted elements), so only a block that is singular up to
// the rounding of its entries falls below.
template <class Real>
double pivot_tolerance() {
  return 1e3 * static_cast<double>(std::numeric_limits<Real>::epsilon());
}

// Throws for the first node whose diagonal entry or block failed, with the values that failed.
[[noreturn]] void report_failure(PreconditionerKind kind, int dim, const DeviceArray<int>& status_array,
                                 const DeviceArray<double>& blocks_array, std::span<const Label> labels,
                                 Index n_failures) {
  const std::vector<int> status = status_array.to_host();
  const std::vector<double> blocks = blocks_array.to_host();
  const auto d = static_cast<std::size_t>(dim);
  std::size_t first = 0;
  while (first < status.size() && status[first] == 0) ++first;
  const bool block = kind == PreconditionerKind::BlockJacobi;
  const Index node = block ? static_cast<Index>(first) : static_cast<Index>(first / d);
  int component = block ? 0 : static_cast<int>(first % d);
  const char* what = block ? "block-Jacobi preconditioner" : "Jacobi preconditioner";
  const std::string others =
      n_failures > 1 ? str(" (and ", n_failures - 1, block ? " more nodes" : " more rows", ")") : "";
  const int code = status[first];
  if (!block || code <= dim) {
    if (block) component = code - 1;
    const double value = blocks[(static_cast<std::size_t>(node) * d + static_cast<std::size_t>(component)) * d +
                                static_cast<std::size_t>(component)];
    throw Error(str(what, ": ", node_name(node, labels), ", component ", component_name(component),
                    ": the diagonal entry of the matrix is ", value,
                    ", not positive: the node has no stiffness in that direction (is it in an element?) or the matrix "
                    "is not a positive definite stiffness",
                    others));
  }
  component = code - 1 - dim;
  std::string entries;
  for (std::size_t r = 0; r < d; ++r) {
    entries += r == 0 ? "[" : "; ";
    for (std::size_t c = 0; c < d; ++c)
      entries += str(c == 0 ? "" : " ", blocks[(static_cast<std::size_t>(node) * d + r) * d + c]);
  }
  entries += "]";
  throw Error(str(what, ": the ", dim, " x ", dim, " diagonal block of ", node_name(node, labels), ", ", entries,
                  ", is singular or not positive definite (Cholesky fails at component ", component_name(component),
                  "): its components are not independently stiff", others));
}

// The inverse of the diagonal (Jacobi) or of the diagonal blocks (block-Jacobi) from the blocks
// extracted in double; throws for the first failing node.
template <class Real>
DeviceArray<Real> invert(const Exec& exec, PreconditionerKind kind, Index n_rows, int dim,
                         const DeviceArray<double>& blocks, std::span<const Label> labels) {
  const Index n_nodes = n_rows / dim;
  const bool block = kind == PreconditionerKind::BlockJacobi;
  DeviceArray<Real> inverse(exec, block ? checked_product(n_rows, dim) : n_rows);
  DeviceArray<int> status(exec, block ? n_nodes : n_rows);
  if (block)
    invert_blocks_any(exec, dim, n_nodes, blocks.data(), pivot_tolerance<Real>(), inverse.data(), status.data());
  else
    invert_diagonal(exec, n_rows, dim, blocks.data(), inverse.data(), status.data());
  const Index failures = count_failures(exec, status);
  if (failures > 0) report_failure(kind, dim, status, blocks, labels, failures);
  return inverse;
}

void check_dim(int dim, Index n_rows, std::span<const Label> labels) {
  TREMOR_CHECK(dim >= 1 && dim <= 3, "preconditioner: ", dim, " DOFs per node, expected 1, 2 or 3");
  TREMOR_CHECK(n_rows % dim == 0, "preconditioner: ", n_rows, " rows are not a whole number of nodes of ", dim,
               " DOFs");
  TREMOR_CHECK(labels.empty() || static_cast<Index>(labels.size()) == n_rows / dim, "preconditioner: ", labels.size(),
               " node labels for ", n_rows / dim, " nodes");
}

}  // namespace

PreconditionerKind parse_preconditioner(std::string_view name) {
  return parse_named(name, preconditioner_names, "preconditioner");
}

std::string_view to_string(PreconditionerKind kind) { return name_of(kind, preconditioner_names); }

template <class Real>
Preconditioner<Real> Preconditioner<Real>::none(const Exec& exec, Index n_rows) {
  (void)exec;
  TREMOR_CHECK(n_rows >= 0, "preconditioner: negative size ", n_rows);
  Preconditioner out;
  out.n_rows_ = n_rows;
  return out;
}

template <class Real>
Preconditioner<Real> Preconditioner<Real>::build(const Exec& exec, PreconditionerKind kind,
                                                 const sparse::DeviceCsr<Real>& matrix, int dim,
                                                 std::span<const Label> node_labels) {
  check_dim(dim, matrix.n_rows, node_labels);
  Preconditioner out;
  out.kind_ = kind;
  out.n_rows_ = matrix.n_rows;
  out.block_ = kind == PreconditionerKind::BlockJacobi ? dim : 1;
  if (kind == PreconditionerKind::None || matrix.n_rows == 0) return out;
  DeviceArray<double> blocks(exec, checked_product(matrix.n_rows, dim));
  csr_diagonal_blocks(exec, matrix.view(), dim, blocks.data());
  out.inverse_ = invert<Real>(exec, kind, matrix.n_rows, dim, blocks, node_labels);
  return out;
}

template <class Real>
Preconditioner<Real> Preconditioner<Real>::build(const Exec& exec, PreconditionerKind kind,
                                                 const sparse::DeviceBlockCsr<Real>& matrix,
                                                 std::span<const Label> node_labels) {
  const int dim = matrix.block;
  check_dim(dim, matrix.n_rows(), node_labels);
  Preconditioner out;
  out.kind_ = kind;
  out.n_rows_ = matrix.n_rows();
  out.block_ = kind == PreconditionerKind::BlockJacobi ? dim : 1;
  if (kind == PreconditionerKind::None || matrix.n_rows() == 0) return out;
  DeviceArray<double> blocks(exec, checked_product(matrix.n_rows(), dim));
  block_csr_diagonal_blocks(exec, matrix.n_block_rows, dim, matrix.offsets.data(), matrix.columns.data(),
                            matrix.values.data(), blocks.data());
  out.inverse_ = invert<Real>(exec, kind, matrix.n_rows(), dim, blocks, node_labels);
  return out;
}

template <class Real>
void Preconditioner<Real>::apply(const Exec& exec, const Real* r, Real* z) const {
  switch (kind_) {
    case PreconditionerKind::None: return copy_vector(exec, n_rows_, r, z);
    case PreconditionerKind::Jacobi: return apply_jacobi(exec, n_rows_, inverse_.data(), r, z);
    case PreconditionerKind::BlockJacobi:
      switch (block_) {
        case 1: return apply_block_jacobi<1>(exec, n_rows_, inverse_.data(), r, z);
        case 2: return apply_block_jacobi<2>(exec, n_rows_, inverse_.data(), r, z);
        default: return apply_block_jacobi<3>(exec, n_rows_, inverse_.data(), r, z);
      }
  }
}

template class Preconditioner<float>;
template class Preconditioner<double>;

}  // namespace tremor::static_fe
