#include "tremor/bem/hmatrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "tremor/backend/async_copy.hpp"
#include "tremor/backend/memory.hpp"
#include "tremor/bem/assembly.hpp"
#include "tremor/bem/hmatrix_product.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"

// LAPACK (Fortran 77 interface, 32-bit integers; hidden character lengths last, as dense.cpp).
extern "C" {
void zgesvd_(const char* jobu, const char* jobvt, const int* m, const int* n, std::complex<double>* a, const int* lda,
             double* s, std::complex<double>* u, const int* ldu, std::complex<double>* vt, const int* ldvt,
             std::complex<double>* work, const int* lwork, double* rwork, int* info, std::size_t jobu_length,
             std::size_t jobvt_length);
void zgetrf_(const int* m, const int* n, std::complex<double>* a, const int* lda, int* ipiv, int* info);
void zgetri_(const int* n, std::complex<double>* a, const int* lda, const int* ipiv, std::complex<double>* work,
             const int* lwork, int* info);
// OpenBLAS's own entry points, weak so that another LAPACK links too (they are then null).
int openblas_get_num_threads() __attribute__((weak));
void openblas_set_num_threads(int threads) __attribute__((weak));
}

namespace tremor::bem {

namespace {

using Box = std::array<double, 3>;

// LAPACK on one thread while it lives: the blocks are factored in parallel (OpenMP), one block a
// thread, and OpenBLAS's threads, which do not know OpenMP's, would contend for the same cores
// and serialise its calls on its own lock.
class SerialBlas {
 public:
  SerialBlas() : previous_(openblas_get_num_threads != nullptr ? openblas_get_num_threads() : 0) {
    if (previous_ > 1 && openblas_set_num_threads != nullptr) openblas_set_num_threads(1);
  }
  ~SerialBlas() {
    if (previous_ > 1 && openblas_set_num_threads != nullptr) openblas_set_num_threads(previous_);
  }
  SerialBlas(const SerialBlas&) = delete;
  SerialBlas& operator=(const SerialBlas&) = delete;

 private:
  int previous_;
};

double box_distance(const Cluster& a, const Cluster& b) {
  double sum = 0.0;
  for (std::size_t d = 0; d < 3; ++d) {
    const double gap = std::max({0.0, a.lower[d] - b.upper[d], b.lower[d] - a.upper[d]});
    sum += gap * gap;
  }
  return std::sqrt(sum);
}

// Splits clusters[at] (elements [begin, end) of `order`) while it holds more than leaf_size.
void split(std::vector<Cluster>& clusters, int at, std::vector<Index>& order, const std::vector<double>& centroid,
           const std::vector<Box>& lower, const std::vector<Box>& upper, Index leaf_size) {
  Cluster c = clusters[static_cast<std::size_t>(at)];
  c.lower = {std::numeric_limits<double>::max(), std::numeric_limits<double>::max(),
             std::numeric_limits<double>::max()};
  c.upper = {-c.lower[0], -c.lower[1], -c.lower[2]};
  for (Index p = c.begin; p < c.end; ++p)
    for (std::size_t d = 0; d < 3; ++d) {
      const auto e = static_cast<std::size_t>(order[static_cast<std::size_t>(p)]);
      c.lower[d] = std::min(c.lower[d], lower[e][d]);
      c.upper[d] = std::max(c.upper[d], upper[e][d]);
    }
  clusters[static_cast<std::size_t>(at)] = c;
  if (c.end - c.begin <= leaf_size) return;
  std::size_t axis = 0;
  for (std::size_t d = 1; d < 3; ++d)
    if (c.upper[d] - c.lower[d] > c.upper[axis] - c.lower[axis]) axis = d;
  const Index middle = c.begin + (c.end - c.begin) / 2;
  // The median along the axis, ties broken by element index: the same tree on every machine.
  std::nth_element(order.begin() + c.begin, order.begin() + middle, order.begin() + c.end, [&](Index a, Index b) {
    const double xa = centroid[3 * static_cast<std::size_t>(a) + axis], xb = centroid[3 * static_cast<std::size_t>(b) + axis];
    return xa < xb || (xa == xb && a < b);
  });
  for (int k = 0; k < 2; ++k) {
    Cluster child;
    child.begin = k == 0 ? c.begin : middle;
    child.end = k == 0 ? middle : c.end;
    clusters[static_cast<std::size_t>(at)].child[k] = static_cast<int>(clusters.size());
    clusters.push_back(child);
    split(clusters, clusters[static_cast<std::size_t>(at)].child[k], order, centroid, lower, upper, leaf_size);
  }
}

void collect_leaves(const ClusterTree& tree, int row, int col, double eta, std::vector<BlockLeaf>& out) {
  const Cluster& r = tree.clusters[static_cast<std::size_t>(row)];
  const Cluster& c = tree.clusters[static_cast<std::size_t>(col)];
  if (admissible(r, c, eta)) {
    out.push_back({row, col, true});
    return;
  }
  if (r.leaf() && c.leaf()) {
    out.push_back({row, col, false});
    return;
  }
  const bool split_rows = !r.leaf() && (c.leaf() || r.diameter() >= c.diameter());
  const bool split_cols = !c.leaf() && (r.leaf() || c.diameter() >= r.diameter());
  for (int i = 0; i < (split_rows ? 2 : 1); ++i)
    for (int j = 0; j < (split_cols ? 2 : 1); ++j)
      collect_leaves(tree, split_rows ? r.child[i] : row, split_cols ? c.child[j] : col, eta, out);
}

double norm2(const Scalar* x, Index n) {
  double sum = 0.0;
  for (Index i = 0; i < n; ++i) sum += std::norm(x[i]);
  return sum;
}

// The host's complex kernels of ACA and the recompression, written here rather than called from
// BLAS: OpenBLAS takes a process-wide lock for its workspace in each call (blas_memory_alloc, unless
// built with USE_TLS), and the many small calls of blocks worked on by every thread at once would
// queue on it. Each loop is vectorised (omp simd) with its sums' order fixed by the build.

// Compiled for AVX-512, AVX2 and the baseline, chosen when the library loads (the build targets
// the baseline, where a complex product takes two SSE2 lanes).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define TREMOR_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TREMOR_VECTOR_CLONES
#endif

// sum_i conj(a_i) b_i.
TREMOR_VECTOR_CLONES Scalar dotc(const Scalar* a, const Scalar* b, Index n) {
  const auto* x = reinterpret_cast<const double*>(a);
  const auto* y = reinterpret_cast<const double*>(b);
  double re = 0.0, im = 0.0;
#pragma omp simd reduction(+ : re, im)
  for (Index i = 0; i < n; ++i) {
    re += x[2 * i] * y[2 * i] + x[2 * i + 1] * y[2 * i + 1];
    im += x[2 * i] * y[2 * i + 1] - x[2 * i + 1] * y[2 * i];
  }
  return {re, im};
}

// y -= s x.
TREMOR_VECTOR_CLONES void subtract_scaled(Scalar s, const Scalar* x, Scalar* y, Index n) {
  const auto* xx = reinterpret_cast<const double*>(x);
  auto* yy = reinterpret_cast<double*>(y);
  const double sr = s.real(), si = s.imag();
#pragma omp simd
  for (Index i = 0; i < n; ++i) {
    const double xr = xx[2 * i], xi = xx[2 * i + 1];
    yy[2 * i] -= sr * xr - si * xi;
    yy[2 * i + 1] -= sr * xi + si * xr;
  }
}

// C (m x p) -= A (m x k) B (k x p), column-major, A read once (p is at most 3 here).
void subtract_product(const Scalar* A, Index m, Index k, const Scalar* B, Index ldb, Index p, Scalar* C, Index ldc) {
  for (Index l = 0; l < k; ++l)
    for (Index j = 0; j < p; ++j)
      subtract_scaled(B[l + static_cast<std::size_t>(j) * ldb], A + static_cast<std::size_t>(l) * m,
                      C + static_cast<std::size_t>(j) * ldc, m);
}

// G (k x p) = A^H B for A m x k, B m x p.
void adjoint_product(const Scalar* A, Index m, Index k, const Scalar* B, Index p, Scalar* G) {
  for (Index l = 0; l < k; ++l)
    for (Index j = 0; j < p; ++j)
      G[l + static_cast<std::size_t>(j) * k] =
          dotc(A + static_cast<std::size_t>(l) * m, B + static_cast<std::size_t>(j) * m, m);
}

// Householder QR of the m x k column-major A (m >= k) in place, as LAPACK's zgeqr2 leaves it: R on
// and above the diagonal, reflector j's v = (1, A[j+1.., j]) below, H_j = I - tau_j v v^H, A = H_0
// H_1 ... H_{k-1} R.
void householder_qr(Scalar* A, Index m, Index k, Scalar* tau) {
  for (Index j = 0; j < k; ++j) {
    Scalar* a = A + static_cast<std::size_t>(j) * m;
    const Scalar alpha = a[j];
    const double below = std::sqrt(std::max(0.0, dotc(a + j + 1, a + j + 1, m - j - 1).real()));
    if (below == 0.0 && alpha.imag() == 0.0) {
      tau[j] = 0.0;
      continue;
    }
    const double beta = -std::copysign(std::hypot(std::abs(alpha), below), alpha.real());
    tau[j] = (beta - alpha) / beta;
    const Scalar scale = 1.0 / (alpha - beta);
    for (Index r = j + 1; r < m; ++r) a[r] *= scale;
    a[j] = beta;
    // A[j.., j+1..] <- H_j^H A[j.., j+1..].
    for (Index c = j + 1; c < k; ++c) {
      Scalar* x = A + static_cast<std::size_t>(c) * m;
      const Scalar f = std::conj(tau[j]) * (x[j] + dotc(a + j + 1, x + j + 1, m - j - 1));
      x[j] -= f;
      subtract_scaled(f, a + j + 1, x + j + 1, m - j - 1);
    }
  }
}

// B (m x p) <- H_0 ... H_{k-1} B, the reflectors of householder_qr.
void apply_reflectors(const Scalar* A, Index m, Index k, const Scalar* tau, Scalar* B, Index p) {
  for (Index j = k - 1; j >= 0; --j) {
    if (tau[j] == Scalar(0.0)) continue;
    const Scalar* v = A + static_cast<std::size_t>(j) * m;
    for (Index c = 0; c < p; ++c) {
      Scalar* x = B + static_cast<std::size_t>(c) * m;
      const Scalar f = tau[j] * (x[j] + dotc(v + j + 1, x + j + 1, m - j - 1));
      x[j] -= f;
      subtract_scaled(f, v + j + 1, x + j + 1, m - j - 1);
    }
  }
}

}  // namespace

double Cluster::diameter() const {
  const double dx = upper[0] - lower[0], dy = upper[1] - lower[1], dz = upper[2] - lower[2];
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

ClusterTree cluster_tree(const BoundaryMesh& mesh, ElementOrder order, Index leaf_size) {
  TREMOR_CHECK(leaf_size >= 1, "cluster tree: leaf size ", leaf_size, " (at least 1 element)");
  const Index ne = mesh.n_elements();
  const std::vector<Index> first = first_nodes(mesh, order);
  std::vector<double> centroid(3 * static_cast<std::size_t>(ne));
  std::vector<Box> lower(static_cast<std::size_t>(ne)), upper(static_cast<std::size_t>(ne));
  const Index* mids = mesh.quadratic() ? mesh.mid_nodes.data() : nullptr;
  for (Index e = 0; e < ne; ++e) {
    const ElementNodes nodes = gather_element(mesh.coordinates.data(), mesh.connectivity.data(), mids, e);
    const int count = std::max(nodes.n_nodes, nodes.n_vertices);
    Box lo = {nodes.x[0][0], nodes.x[0][1], nodes.x[0][2]}, hi = lo;
    for (int a = 1; a < count; ++a)
      for (std::size_t d = 0; d < 3; ++d) {
        lo[d] = std::min(lo[d], nodes.x[a][d]);
        hi[d] = std::max(hi[d], nodes.x[a][d]);
      }
    lower[static_cast<std::size_t>(e)] = lo;
    upper[static_cast<std::size_t>(e)] = hi;
    for (std::size_t d = 0; d < 3; ++d) centroid[3 * static_cast<std::size_t>(e) + d] = 0.5 * (lo[d] + hi[d]);
  }
  ClusterTree tree;
  tree.elements.resize(static_cast<std::size_t>(ne));
  std::iota(tree.elements.begin(), tree.elements.end(), Index{0});
  Cluster root;
  root.end = ne;
  tree.clusters.push_back(root);
  split(tree.clusters, 0, tree.elements, centroid, lower, upper, leaf_size);
  // The nodes in the tree's order, element by element; each cluster's a contiguous range.
  std::vector<Index> start(static_cast<std::size_t>(ne) + 1, 0);
  for (Index p = 0; p < ne; ++p) {
    const auto e = static_cast<std::size_t>(tree.elements[static_cast<std::size_t>(p)]);
    start[static_cast<std::size_t>(p) + 1] = start[static_cast<std::size_t>(p)] + (first[e + 1] - first[e]);
    for (Index node = first[e]; node < first[e + 1]; ++node) {
      tree.mesh_node.push_back(node);
      tree.position.push_back(p);
    }
  }
  for (Cluster& c : tree.clusters) {
    c.first = start[static_cast<std::size_t>(c.begin)];
    c.last = start[static_cast<std::size_t>(c.end)];
  }
  tree.start = std::move(start);
  return tree;
}

bool admissible(const Cluster& a, const Cluster& b, double eta) {
  return std::min(a.diameter(), b.diameter()) <= eta * box_distance(a, b);
}

std::vector<BlockLeaf> block_leaves(const ClusterTree& tree, double eta) {
  std::vector<BlockLeaf> out;
  if (!tree.clusters.empty()) collect_leaves(tree, 0, 0, eta, out);
  return out;
}

HMatrixEstimate estimate_hmatrix(const ClusterTree& tree, double eta, int width, Index rank) {
  HMatrixEstimate out;
  for (const BlockLeaf& leaf : block_leaves(tree, eta)) {
    const double m = 3.0 * tree.clusters[static_cast<std::size_t>(leaf.row)].n_nodes();
    const double n = static_cast<double>(width) * tree.clusters[static_cast<std::size_t>(leaf.col)].n_nodes();
    if (leaf.admissible && static_cast<double>(rank) * (m + n) < m * n) {
      ++out.far_blocks;
      out.far_values += static_cast<double>(rank) * (m + n);
    } else {
      ++out.near_blocks;
      out.near_values += m * n;
    }
  }
  return out;
}

EntrySource::~EntrySource() = default;

void EntrySource::node_rows(Index node, Index begin, Index end, Scalar* out) const {
  const Request r{node, begin, end, out};
  rows({&r, 1});
}

void EntrySource::node_columns(Index node, Index begin, Index end, Scalar* out) const {
  const Request r{node, begin, end, out};
  columns({&r, 1});
}

void EntrySource::block(const Cluster& rows, const Cluster& cols, Scalar* out) const {
  const BlockRequest r{&rows, &cols, 0};
  blocks(Exec::serial(), {&r, 1}, out);
}

void DenseSource::rows(std::span<const Request> requests) const {
  for (const Request& q : requests) {
    const Size n = 3 * static_cast<Size>(q.end - q.begin);
    for (Size c = 0; c < n; ++c)
      for (Size r = 0; r < 3; ++r)
        q.out[r + 3 * c] = A_[(3 * static_cast<Size>(q.node) + r) + (3 * static_cast<Size>(q.begin) + c) * n_];
  }
}

void DenseSource::columns(std::span<const Request> requests) const {
  for (const Request& q : requests) {
    const Size m = 3 * static_cast<Size>(q.end - q.begin);
    for (Size c = 0; c < 3; ++c) {
      if (q.column >= 0 && static_cast<Size>(q.column) != c) continue;
      Scalar* out = q.out + (q.column >= 0 ? 0 : c * m);
      std::copy_n(A_ + (3 * static_cast<Size>(q.node) + c) * n_ + 3 * static_cast<Size>(q.begin), m, out);
    }
  }
}

void DenseSource::blocks(const Exec& exec, std::span<const BlockRequest> requests, Scalar* out) const {
  std::vector<Scalar> values;
  for (const BlockRequest& q : requests) {
    const Size m = 3 * static_cast<Size>(q.rows->n_nodes()), n = 3 * static_cast<Size>(q.cols->n_nodes());
    values.resize(m * n);
    for (Size c = 0; c < n; ++c)
      for (Size r = 0; r < m; ++r)
        values[r + c * m] = A_[(3 * static_cast<Size>(q.rows->first) + r) + (3 * static_cast<Size>(q.cols->first) + c) * n_];
    memory::copy(exec, out + q.offset, exec.space(), values.data(), MemorySpace::Host, sizeof(Scalar) * values.size());
  }
}

AcaBlock::AcaBlock(const Cluster& rows, const Cluster& cols, int width, double tolerance, Index max_rank)
    : rows_(rows), cols_(cols), w_(width), tolerance_(tolerance) {
  out_.m = 3 * rows.n_nodes();
  out_.n = width * cols.n_nodes();
  max_rank_ = std::min({max_rank, out_.m, out_.n});
  node_used_.assign(static_cast<std::size_t>(rows.n_nodes()), 0);
  column_used_.assign(static_cast<std::size_t>(out_.n), 0);
  pull_.assign(static_cast<std::size_t>(rows.n_nodes()), 0.0);
  finished_ = max_rank_ <= 0;
  converged_ = finished_ && out_.rank == std::min(out_.m, out_.n);
}

// The residual of each of the node's rows: A's row less the terms so far, the step's new ones
// included, whose u values in these rows are the residual rows' values at their pivots (a
// residual column and row agree where they cross).
void AcaBlock::take_rows(const Scalar* rows3) {
  const Index m = out_.m, n = out_.n, k = out_.rank;
  node_used_[static_cast<std::size_t>(next_)] = 1;
  double largest2 = 0.0;
  for (Index c = 0; c < 3 * n; ++c) largest2 = std::max(largest2, std::norm(rows3[c]));
  largest_seen_ = std::max(largest_seen_, std::sqrt(largest2));
  pivots_.clear();
  pending_v_.clear();
  wanted_.clear();
  // The three rows less the terms so far at once, R = A(i.., :)^T - V U(i.., :)^T (n x 3): V read
  // once a step.
  // (Scratch per thread, not per call: the blocks' many small allocations would otherwise map and
  // unmap fresh pages, which threads serialise on.)
  thread_local std::vector<Scalar> R, Ui;
  R.resize(3 * static_cast<std::size_t>(n));
  Ui.resize(3 * static_cast<std::size_t>(k));
  for (Index a = 0; a < 3; ++a) {
    for (Index c = 0; c < n; ++c) R[static_cast<std::size_t>(c + a * n)] = rows3[a + 3 * c];
    for (Index l = 0; l < k; ++l)
      Ui[static_cast<std::size_t>(l + a * k)] = out_.U[static_cast<std::size_t>(l) * m + 3 * next_ + a];
  }
  subtract_product(out_.V.data(), n, k, Ui.data(), k, 3, R.data(), n);
  for (Index a = 0; a < 3 && k + static_cast<Index>(pivots_.size()) < max_rank_; ++a) {
    Scalar* row = R.data() + static_cast<std::size_t>(a) * n;
    for (std::size_t p = 0; p < pivots_.size(); ++p) {
      const Scalar u = row[pivots_[p]];
      const Scalar* v = pending_v_.data() + p * static_cast<std::size_t>(n);
      subtract_scaled(u, v, row, n);
    }
    Index j = -1;
    double best2 = 0.0;
    for (Index c = 0; c < n; ++c)
      if (!column_used_[static_cast<std::size_t>(c)] && std::norm(row[c]) > best2) {
        best2 = std::norm(row[c]);
        j = c;
      }
    // A row the sum already holds to rounding: no pivot (dividing by it would amplify noise).
    if (j < 0 || std::sqrt(best2) <= 1e-14 * largest_seen_) continue;
    const Scalar pivot = row[j];
    for (Index c = 0; c < n; ++c) row[c] /= pivot;
    column_used_[static_cast<std::size_t>(j)] = 1;
    pivots_.push_back(j);
    pending_v_.insert(pending_v_.end(), row, row + n);
    wanted_.push_back(static_cast<Index>(w_) * cols_.first + j);
  }
  if (pivots_.empty()) end_step(false, 0.0);
}

void AcaBlock::column_requests(Scalar* out, std::vector<EntrySource::Request>& into) const {
  const Size m = 3 * static_cast<Size>(rows_.n_nodes());
  for (std::size_t k = 0; k < wanted_.size(); ++k)
    into.push_back({wanted_[k] / w_, rows_.first, rows_.last, out + k * m, static_cast<int>(wanted_[k] % w_)});
}

// The step's columns less every term before theirs, then the sum's norm updated exactly: U read
// twice and V once a step, whatever the step's pivots (up to 3), not twice and once per pivot.
void AcaBlock::take_columns(const Scalar* columns) {
  const Index m = out_.m, n = out_.n, k0 = out_.rank;
  const std::size_t P = pivots_.size();
  const auto um = static_cast<std::size_t>(m), un = static_cast<std::size_t>(n);
  // C = A(:, J) - U V(J, :)^T over the terms before this step, then each column less the step's
  // earlier terms (their u values at its pivot), in the order the terms were made.
  thread_local std::vector<Scalar> C, Vj, gu, gv;  // scratch per thread, as take_rows's
  C.assign(columns, columns + P * um);
  Vj.resize(static_cast<std::size_t>(k0) * P);
  for (Index l = 0; l < k0; ++l)
    for (std::size_t p = 0; p < P; ++p)
      Vj[static_cast<std::size_t>(l) + p * static_cast<std::size_t>(k0)] =
          out_.V[static_cast<std::size_t>(l) * un + static_cast<std::size_t>(pivots_[p])];
  const auto p_count = static_cast<Index>(P);
  subtract_product(out_.U.data(), m, k0, Vj.data(), k0, p_count, C.data(), m);
  for (std::size_t p = 1; p < P; ++p)
    for (std::size_t q = 0; q < p; ++q) {
      const Scalar v = pending_v_[q * un + static_cast<std::size_t>(pivots_[p])];
      const Scalar* u = C.data() + q * um;
      Scalar* c = C.data() + p * um;
      subtract_scaled(v, u, c, m);
    }
  // |S + u v^T|^2 = |S|^2 + 2 Re sum_l (u_l^H u)(v_l^H v) + |u|^2 |v|^2, term after term: the
  // products with the earlier terms' u_l and v_l, U^H C and V^H R, in one pass over each.
  gu.resize(static_cast<std::size_t>(k0) * P);
  gv.resize(static_cast<std::size_t>(k0) * P);
  adjoint_product(out_.U.data(), m, k0, C.data(), p_count, gu.data());
  adjoint_product(out_.V.data(), n, k0, pending_v_.data(), p_count, gv.data());
  double step2 = 0.0;
  for (std::size_t p = 0; p < P; ++p) {
    const Scalar* c = C.data() + p * um;
    const Scalar* row = pending_v_.data() + p * un;
    const double nu2 = norm2(c, m), nv2 = norm2(row, n);
    double cross = 0.0;
    for (Index l = 0; l < k0; ++l)
      cross += 2.0 * (gu[static_cast<std::size_t>(l) + p * static_cast<std::size_t>(k0)] *
                      gv[static_cast<std::size_t>(l) + p * static_cast<std::size_t>(k0)]).real();
    for (std::size_t q = 0; q < p; ++q) {
      const Scalar uu = dotc(C.data() + q * um, c, m), vv = dotc(pending_v_.data() + q * un, row, n);
      cross += 2.0 * (uu * vv).real();
    }
    frobenius2_ = std::max(0.0, frobenius2_ + cross + nu2 * nv2);
    step2 += nu2 * nv2;
    for (Index r = 0; r < m; ++r) pull_[static_cast<std::size_t>(r / 3)] += std::norm(c[r]);
  }
  // Room for the ranks blocks reach at the usual tolerances at once: growing U and V by doubling
  // would copy them and touch fresh pages each time.
  if (out_.U.capacity() == 0) {
    const auto room = static_cast<std::size_t>(std::min<Index>(max_rank_, 40));
    out_.U.reserve(room * um);
    out_.V.reserve(room * un);
  }
  out_.U.insert(out_.U.end(), C.begin(), C.end());
  out_.V.insert(out_.V.end(), pending_v_.begin(), pending_v_.end());
  out_.rank += static_cast<Index>(P);
  end_step(true, step2);
}

// After a node: stop when nodes add nothing or two in a row add less than the tolerance, or at the
// rank limit; else the unused node where the step's columns were largest.
void AcaBlock::end_step(bool any, double step2) {
  pivots_.clear();
  pending_v_.clear();
  wanted_.clear();
  bool done = false;
  if (!any) {
    done = ++empty_nodes_ > 8;  // rows the sum holds, node after node: the block is done
  } else {
    empty_nodes_ = 0;
    quiet_ = std::sqrt(step2) <= tolerance_ * std::sqrt(frobenius2_) ? quiet_ + 1 : 0;
    done = quiet_ >= 2;
  }
  double best = -1.0;
  Index next = -1;
  for (Index node = 0; node < rows_.n_nodes(); ++node)
    if (!node_used_[static_cast<std::size_t>(node)] && pull_[static_cast<std::size_t>(node)] > best) {
      best = pull_[static_cast<std::size_t>(node)];
      next = node;
    }
  std::fill(pull_.begin(), pull_.end(), 0.0);
  if (next < 0) done = true;  // every row taken: the sum is the block
  if (done || out_.rank >= max_rank_) {
    finished_ = true;
    converged_ = done || out_.rank == std::min(out_.m, out_.n);
    return;
  }
  next_ = next;
}

LowRank aca(const EntrySource& source, const Cluster& rows, const Cluster& cols, double tolerance, Index max_rank,
            bool* converged) {
  AcaBlock block(rows, cols, source.width(), tolerance, max_rank);
  std::vector<Scalar> rows3(3 * static_cast<std::size_t>(source.width()) * cols.n_nodes()), columns;
  while (!block.finished()) {
    source.node_rows(block.next_node(), cols.first, cols.last, rows3.data());
    block.take_rows(rows3.data());
    if (block.wanted_columns().empty()) continue;
    const Size m = 3 * static_cast<Size>(rows.n_nodes());
    columns.resize(block.wanted_columns().size() * m);
    std::vector<EntrySource::Request> requests;
    block.column_requests(columns.data(), requests);
    source.columns(requests);
    block.take_columns(columns.data());
  }
  if (converged) *converged = block.converged();
  return block.take_result();
}

void recompress(LowRank& b, double tolerance) {
  const int k = static_cast<int>(b.rank), m = static_cast<int>(b.m), n = static_cast<int>(b.n);
  if (k == 0 || k >= std::min(m, n)) return;
  int info = 0;
  // QR of U and V (each taller than the rank), their reflectors kept in place: R_U, R_V upper
  // triangular k x k.
  const auto qr = [&](std::vector<Scalar>& A, int rows, std::vector<Scalar>& tau, std::vector<Scalar>& R) {
    tau.resize(static_cast<std::size_t>(k));
    householder_qr(A.data(), rows, k, tau.data());
    R.assign(static_cast<std::size_t>(k) * k, Scalar(0.0));
    for (int c = 0; c < k; ++c)
      for (int r = 0; r <= c; ++r) R[static_cast<std::size_t>(r + c * k)] = A[static_cast<std::size_t>(r + c * rows)];
  };
  std::vector<Scalar> Ru, Rv, tau_u, tau_v;
  qr(b.U, m, tau_u, Ru);
  qr(b.V, n, tau_v, Rv);
  // C = R_U R_V^T = W S Z^H.
  std::vector<Scalar> C(static_cast<std::size_t>(k) * k, Scalar(0.0));
  for (int c = 0; c < k; ++c)
    for (int r = 0; r < k; ++r) {
      Scalar sum = 0.0;
      for (int l = 0; l < k; ++l) sum += Ru[static_cast<std::size_t>(r + l * k)] * Rv[static_cast<std::size_t>(c + l * k)];
      C[static_cast<std::size_t>(r + c * k)] = sum;
    }
  std::vector<double> s(static_cast<std::size_t>(k)), rwork(5 * static_cast<std::size_t>(k));
  std::vector<Scalar> W(static_cast<std::size_t>(k) * k), Zh(static_cast<std::size_t>(k) * k);
  Scalar size_query;
  int lwork = -1;
  zgesvd_("A", "A", &k, &k, C.data(), &k, s.data(), W.data(), &k, Zh.data(), &k, &size_query, &lwork, rwork.data(),
          &info, 1, 1);
  lwork = std::max(1, static_cast<int>(size_query.real()));
  std::vector<Scalar> work(static_cast<std::size_t>(lwork));
  zgesvd_("A", "A", &k, &k, C.data(), &k, s.data(), W.data(), &k, Zh.data(), &k, work.data(), &lwork, rwork.data(),
          &info, 1, 1);
  TREMOR_CHECK(info == 0, "recompression: zgesvd failed with info = ", info);
  int keep = 0;
  while (keep < k && s[static_cast<std::size_t>(keep)] > tolerance * s[0]) ++keep;
  keep = std::max(keep, 1);
  // U' = Q_U [W_r S_r; 0] (m x keep), V' = Q_V [conj(Z_r); 0] (n x keep), Z_r^H the first rows of
  // Zh: the reflectors applied to the small factors, Q never formed; written into scratch per
  // thread, then over the block's own storage (no fresh allocation).
  thread_local std::vector<Scalar> out;
  const auto apply_q = [&](std::vector<Scalar>& reflectors, int rows, const std::vector<Scalar>& tau,
                           const auto& top) {
    out.assign(static_cast<std::size_t>(rows) * keep, Scalar(0.0));
    for (int c = 0; c < keep; ++c)
      for (int l = 0; l < k; ++l) out[static_cast<std::size_t>(l + c * rows)] = top(l, c);
    apply_reflectors(reflectors.data(), rows, k, tau.data(), out.data(), keep);
    reflectors.assign(out.begin(), out.end());
  };
  apply_q(b.U, m, tau_u, [&](int l, int c) {
    return W[static_cast<std::size_t>(l + c * k)] * s[static_cast<std::size_t>(c)];
  });
  apply_q(b.V, n, tau_v, [&](int l, int c) {
    return Zh[static_cast<std::size_t>(c + l * k)];  // (Z^H)_{c,l} = conj(Z_{l,c})
  });
  b.rank = keep;
}

namespace {

// n values of host memory for exec's copies: page-locked where the system grants it, else ordinary
// memory (the copies then run slower, but the run goes on).
PinnedArray<Scalar> host_buffer(const Exec& exec, Index n) {
  try {
    return PinnedArray<Scalar>(exec, n);
  } catch (const Error&) {
    return PinnedArray<Scalar>(Exec::serial(), n);
  }
}

// ACA on every admissible block, step by step: all the blocks' rows in one request, then all
// their pivot columns, the arithmetic per block in parallel. Returns the finished blocks.
std::vector<AcaBlock> aca_together(const Exec& exec, const EntrySource& source, const ClusterTree& tree,
                                   const std::vector<BlockLeaf>& far, const HMatrixOptions& options,
                                   HMatrixStats& stats) {
  const Index w = source.width();
  const auto cluster = [&](int c) -> const Cluster& { return tree.clusters[static_cast<std::size_t>(c)]; };
  std::vector<AcaBlock> acas;
  acas.reserve(far.size());
  for (const BlockLeaf& f : far) {
    const Index limit = std::min(3 * cluster(f.row).n_nodes(), w * cluster(f.col).n_nodes());
    acas.emplace_back(cluster(f.row), cluster(f.col), w, options.tolerance, limit);
  }
  // One buffer for every step's rows and columns, page-locked for a GPU's copies (several times
  // faster than into pageable memory): the first step's rows are the most (every block asks),
  // and a step's columns at most 3 per block.
  Size most = 0, columns_most = 0;
  for (const BlockLeaf& f : far) {
    most += 3 * static_cast<Size>(w) * cluster(f.col).n_nodes();
    columns_most += 9 * static_cast<Size>(cluster(f.row).n_nodes());
  }
  most = std::max(most, columns_most);
  TREMOR_CHECK(most <= std::numeric_limits<Index>::max(), "hierarchical matrix: ACA's rows of one step take ", most,
               " values, beyond one array's 2^31 - 1: a larger leaf size or fewer unknowns");
  PinnedArray<Scalar> buffer = host_buffer(exec, static_cast<Index>(most));
  std::vector<EntrySource::Request> requests;
  std::vector<Size> at(acas.size());
  const auto n_far = static_cast<std::ptrdiff_t>(acas.size());
  for (;;) {
    Size total = 0;
    for (std::size_t b = 0; b < acas.size(); ++b) {
      at[b] = total;
      if (!acas[b].finished()) total += 3 * static_cast<Size>(w) * cluster(far[b].col).n_nodes();
    }
    if (total == 0) break;
    ++stats.aca_steps;
    requests.clear();
    for (std::size_t b = 0; b < acas.size(); ++b)
      if (!acas[b].finished())
        requests.push_back(
            {acas[b].next_node(), cluster(far[b].col).first, cluster(far[b].col).last, buffer.data() + at[b]});
    auto asked = Clock::now();
    source.rows(requests);
    stats.aca_entry_seconds += seconds_since(asked);
#pragma omp parallel for schedule(dynamic)
    for (std::ptrdiff_t b = 0; b < n_far; ++b)
      if (!acas[static_cast<std::size_t>(b)].finished())
        acas[static_cast<std::size_t>(b)].take_rows(buffer.data() + at[static_cast<std::size_t>(b)]);
    total = 0;
    for (std::size_t b = 0; b < acas.size(); ++b) {
      at[b] = total;
      total += acas[b].wanted_columns().size() * 3 * static_cast<Size>(cluster(far[b].row).n_nodes());
    }
    if (total == 0) continue;
    requests.clear();
    for (std::size_t b = 0; b < acas.size(); ++b) acas[b].column_requests(buffer.data() + at[b], requests);
    asked = Clock::now();
    source.columns(requests);
    stats.aca_entry_seconds += seconds_since(asked);
#pragma omp parallel for schedule(dynamic)
    for (std::ptrdiff_t b = 0; b < n_far; ++b)
      if (!acas[static_cast<std::size_t>(b)].wanted_columns().empty())
        acas[static_cast<std::size_t>(b)].take_columns(buffer.data() + at[static_cast<std::size_t>(b)]);
  }
  return acas;
}

// A low-rank block written out whole, U V^T (m x n, column-major).
std::vector<Scalar> expand(const LowRank& l) {
  std::vector<Scalar> d(static_cast<std::size_t>(l.m) * l.n, Scalar(0.0));
  for (Index r = 0; r < l.rank; ++r)
    for (Index c = 0; c < l.n; ++c) {
      const Scalar v = l.V[static_cast<std::size_t>(r) * l.n + c];
      const Scalar* u = l.U.data() + static_cast<std::size_t>(r) * l.m;
      for (Index i = 0; i < l.m; ++i) d[static_cast<std::size_t>(i + c * l.m)] += u[i] * v;
    }
  return d;
}

// The parts one after another in one array of exec's memory: copied straight in, in parallel, on
// the host; through page-locked chunks to a GPU (a copy from pageable memory runs at a fraction of
// the link's speed).
DeviceArray<Complex> gather(const Exec& exec, const std::vector<std::span<const Scalar>>& parts, Size total) {
  DeviceArray<Complex> out(exec, static_cast<Index>(total));
  std::vector<Size> at(parts.size() + 1, 0);
  Size largest = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    at[k + 1] = at[k] + static_cast<Size>(parts[k].size());
    largest = std::max(largest, static_cast<Size>(parts[k].size()));
  }
  TREMOR_CHECK(at.back() == total, "hierarchical matrix: ", at.back(), " values to store where ", total,
               " were counted");
  const auto copy_parts = [&](std::size_t from, std::size_t to, Scalar* dst, Size base) {
#pragma omp parallel for schedule(dynamic, 16)
    for (std::ptrdiff_t k = static_cast<std::ptrdiff_t>(from); k < static_cast<std::ptrdiff_t>(to); ++k) {
      const auto part = parts[static_cast<std::size_t>(k)];
      std::copy(part.begin(), part.end(), dst + (at[static_cast<std::size_t>(k)] - base));
    }
  };
  if (exec.space() == MemorySpace::Host) {
    copy_parts(0, parts.size(), reinterpret_cast<Scalar*>(out.data()), 0);
    return out;
  }
  const Size chunk = std::min(total, std::max(largest, Size{1} << 24));  // 256 MiB of values
  PinnedArray<Scalar> staging = host_buffer(exec, static_cast<Index>(chunk));
  for (std::size_t k = 0; k < parts.size();) {
    std::size_t end = k;
    while (end < parts.size() && at[end + 1] - at[k] <= chunk) ++end;
    copy_parts(k, end, staging.data(), at[k]);
    memory::copy(exec, out.data() + at[k], exec.space(), staging.data(), MemorySpace::Host,
                 sizeof(Scalar) * static_cast<std::size_t>(at[end] - at[k]));
    k = end;
  }
  return out;
}

}  // namespace

HMatrix::HMatrix(const Exec& exec, const ClusterTree& tree, const EntrySource& source, const HMatrixOptions& options)
    : exec_(exec), tree_(&tree), n_nodes_(tree.n_nodes()), width_(source.width()) {
  TREMOR_CHECK(options.tolerance > 0.0 && options.tolerance < 0.1, "hierarchical matrix: tolerance ", options.tolerance,
               " outside (0, 0.1)");
  const auto cluster = [&](int c) -> const Cluster& { return tree.clusters[static_cast<std::size_t>(c)]; };
  std::vector<BlockLeaf> near, far;
  for (const BlockLeaf& leaf : block_leaves(tree, options.eta)) (leaf.admissible ? far : near).push_back(leaf);

  const SerialBlas serial_blas;
  auto started = Clock::now();
  std::vector<AcaBlock> acas = aca_together(exec, source, tree, far, options, stats_);
  const auto n_far = static_cast<std::ptrdiff_t>(acas.size());
  stats_.aca_seconds = seconds_since(started);
  started = Clock::now();
  std::vector<LowRank> low_rank(acas.size());
  std::vector<char> converged(acas.size());
#pragma omp parallel for schedule(dynamic)
  for (std::ptrdiff_t b = 0; b < n_far; ++b) {
    const auto k = static_cast<std::size_t>(b);
    converged[k] = acas[k].converged() ? 1 : 0;
    low_rank[k] = acas[k].take_result();
    recompress(low_rank[k], options.tolerance);
  }
  std::vector<AcaBlock>().swap(acas);
  stats_.recompress_seconds = seconds_since(started);
  const auto storing = Clock::now();

  double rank_sum = 0.0;
  for (const LowRank& l : low_rank) {
    stats_.max_rank = std::max(stats_.max_rank, l.rank);
    rank_sum += static_cast<double>(l.rank);
    if (!converged[static_cast<std::size_t>(&l - low_rank.data())]) ++stats_.unconverged;
  }
  stats_.mean_rank = low_rank.empty() ? 0.0 : rank_sum / static_cast<double>(low_rank.size());

  // Storage: the near field and the admissible blocks whose rank leaves U and V larger than the
  // block itself (kept dense, as U V^T) in one array; the other blocks' U and V in two.
  Size near_size = 0, u_size = 0, v_size = 0;
  const auto add_dense = [&](const BlockLeaf& leaf) {
    blocks_.push_back({leaf.row, leaf.col, near_size, 0, -1});
    near_size += 3 * static_cast<Size>(cluster(leaf.row).n_nodes()) * width_ * cluster(leaf.col).n_nodes();
  };
  for (const BlockLeaf& leaf : near) add_dense(leaf);
  const std::size_t n_near = blocks_.size();
  std::vector<std::size_t> kept;
  for (std::size_t b = 0; b < far.size(); ++b) {
    const LowRank& l = low_rank[b];
    const double low_rank_values = static_cast<double>(l.rank) * static_cast<double>(l.m + l.n);
    if (low_rank_values >= static_cast<double>(l.m) * static_cast<double>(l.n)) {
      kept.push_back(b);
      add_dense(far[b]);
      ++stats_.kept_dense;
    }
  }
  for (std::size_t b = 0, k = 0; b < far.size(); ++b) {
    if (k < kept.size() && kept[k] == b) {
      ++k;
      continue;
    }
    const LowRank& l = low_rank[b];
    blocks_.push_back({far[b].row, far[b].col, u_size, v_size, l.rank});
    u_size += static_cast<Size>(l.U.size());
    v_size += static_cast<Size>(l.V.size());
  }
  for (const Size size : {near_size, u_size, v_size})
    TREMOR_CHECK(size <= std::numeric_limits<Index>::max(), "hierarchical matrix: ", size,
                 " values in one array, beyond its 2^31 - 1 entries: a looser tolerance or fewer unknowns");
  started = Clock::now();
  near_ = DeviceArray<Complex>(exec, static_cast<Index>(near_size));
  std::vector<EntrySource::BlockRequest> wanted;
  for (std::size_t b = 0; b < n_near; ++b)
    wanted.push_back({&cluster(blocks_[b].row), &cluster(blocks_[b].col), blocks_[b].offset});
  auto* near_values = reinterpret_cast<Scalar*>(near_.data());
  source.blocks(exec, wanted, near_values);
  stats_.near_seconds = seconds_since(started);
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const std::vector<Scalar> d = expand(low_rank[kept[k]]);
    memory::copy(exec, near_values + blocks_[n_near + k].offset, exec.space(), d.data(), MemorySpace::Host,
                 sizeof(Scalar) * d.size());
  }
  std::vector<std::span<const Scalar>> u_parts, v_parts;
  for (std::size_t b = 0, k = 0; b < far.size(); ++b) {
    if (k < kept.size() && kept[k] == b) {
      ++k;
      continue;
    }
    u_parts.emplace_back(low_rank[b].U);
    v_parts.emplace_back(low_rank[b].V);
  }
  U_ = gather(exec, u_parts, u_size);
  V_ = gather(exec, v_parts, v_size);
  std::vector<LowRank>().swap(low_rank);
  for (std::size_t b = 0; b < n_near; ++b)
    if (blocks_[b].row == blocks_[b].col) diagonal_.push_back(static_cast<int>(b));
  std::vector<ProductBlock> product(blocks_.size());
  for (std::size_t b = 0; b < blocks_.size(); ++b)
    product[b] = {blocks_[b].row, blocks_[b].col, blocks_[b].offset, blocks_[b].v_offset, blocks_[b].rank};
  product_ = std::make_unique<BlockProduct>(exec, tree, width_, product);
  x_ = DeviceArray<Complex>(exec, columns());
  y_ = DeviceArray<Complex>(exec, rows());
  stats_.store_seconds = seconds_since(storing) - stats_.near_seconds;

  stats_.low_rank_blocks = static_cast<Index>(blocks_.size() - n_near - kept.size());
  stats_.dense_blocks = static_cast<Index>(n_near + kept.size());
  stats_.dense_values = static_cast<std::size_t>(near_size);
  stats_.low_rank_values = static_cast<std::size_t>(u_size + v_size);
  const double full = 3.0 * width_ * static_cast<double>(n_nodes_) * static_cast<double>(n_nodes_);
  stats_.compression = full > 0 ? static_cast<double>(stats_.dense_values + stats_.low_rank_values) / full : 0.0;
}

HMatrix::~HMatrix() = default;

void HMatrix::multiply(const Scalar* x, Scalar* y) const {
  memory::copy(exec_, x_.data(), exec_.space(), x, MemorySpace::Host, sizeof(Scalar) * static_cast<std::size_t>(columns()));
  product_->apply(near_.data(), U_.data(), V_.data(), x_.data(), y_.data());
  memory::copy(exec_, y, MemorySpace::Host, y_.data(), exec_.space(), sizeof(Scalar) * static_cast<std::size_t>(rows()));
}

void HMatrix::factor_diagonal(const DiagonalOf& diagonal) {
  const auto n = static_cast<std::ptrdiff_t>(diagonal_.size());
  std::vector<Size> offset(diagonal_.size() + 1, 0);
  for (std::size_t k = 0; k < diagonal_.size(); ++k) {
    const Block& d = blocks_[static_cast<std::size_t>(diagonal_[k])];
    const Size size = 3 * static_cast<Size>(tree_->clusters[static_cast<std::size_t>(d.row)].n_nodes());
    offset[k + 1] = offset[k] + size * size;
  }
  // The diagonal blocks on the host (3n x w n each), then inverted in parallel.
  std::vector<Scalar> inverses(offset.back()), blocks(static_cast<std::size_t>(width_ / 3) * offset.back());
  const auto* near_values = reinterpret_cast<const Scalar*>(near_.data());
  for (std::size_t k = 0; k < diagonal_.size(); ++k)
    memory::copy(exec_, blocks.data() + static_cast<Size>(width_ / 3) * offset[k], MemorySpace::Host,
                 near_values + blocks_[static_cast<std::size_t>(diagonal_[k])].offset, exec_.space(),
                 sizeof(Scalar) * static_cast<Size>(width_ / 3) * (offset[k + 1] - offset[k]));
  std::vector<int> failed(diagonal_.size(), 0);
  const SerialBlas serial_blas;
#pragma omp parallel for schedule(dynamic)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const Block& d = blocks_[static_cast<std::size_t>(diagonal_[static_cast<std::size_t>(k)])];
    const Cluster& c = tree_->clusters[static_cast<std::size_t>(d.row)];
    const int size = static_cast<int>(3 * c.n_nodes());
    Scalar* f = inverses.data() + offset[static_cast<std::size_t>(k)];
    diagonal(c, blocks.data() + static_cast<Size>(width_ / 3) * offset[static_cast<std::size_t>(k)], f);
    std::vector<int> pivots(static_cast<std::size_t>(size));
    int info = 0;
    zgetrf_(&size, &size, f, &size, pivots.data(), &info);
    if (info == 0) {
      Scalar size_query;
      int lwork = -1;
      zgetri_(&size, f, &size, pivots.data(), &size_query, &lwork, &info);
      lwork = std::max(1, static_cast<int>(size_query.real()));
      std::vector<Scalar> work(static_cast<std::size_t>(lwork));
      zgetri_(&size, f, &size, pivots.data(), work.data(), &lwork, &info);
    }
    failed[static_cast<std::size_t>(k)] = info;
  }
  for (std::size_t k = 0; k < diagonal_.size(); ++k) {
    const Cluster& c = tree_->clusters[static_cast<std::size_t>(blocks_[static_cast<std::size_t>(diagonal_[k])].row)];
    TREMOR_CHECK(failed[k] == 0, "hierarchical matrix: the near-field block of nodes ", c.first, " to ", c.last - 1,
                 " is singular (LAPACK info ", failed[k], ")");
  }
  std::vector<ProductBlock> inverse_blocks(diagonal_.size());
  for (std::size_t k = 0; k < diagonal_.size(); ++k) {
    const int c = blocks_[static_cast<std::size_t>(diagonal_[k])].row;
    inverse_blocks[k] = {c, c, offset[k], 0, -1};
  }
  inverses_ = DeviceArray<Complex>(
      exec_, std::span<const Complex>(reinterpret_cast<const Complex*>(inverses.data()), inverses.size()));
  preconditioner_ = std::make_unique<BlockProduct>(exec_, *tree_, 3, inverse_blocks);
}

void HMatrix::precondition(Scalar* x) const {
  TREMOR_CHECK(preconditioner_ != nullptr, "hierarchical matrix: precondition before factor_diagonal");
  memory::copy(exec_, x_.data(), exec_.space(), x, MemorySpace::Host, sizeof(Scalar) * static_cast<std::size_t>(rows()));
  preconditioner_->apply(inverses_.data(), nullptr, nullptr, x_.data(), y_.data());
  memory::copy(exec_, x, MemorySpace::Host, y_.data(), exec_.space(), sizeof(Scalar) * static_cast<std::size_t>(rows()));
}

GmresReport gmres(Index n, const Operator& apply, const Preconditioner& precondition, const Scalar* b, Scalar* x,
                  double tolerance, int restart, int max_iterations) {
  GmresReport report;
  const auto size = static_cast<std::size_t>(n);
  const double b_norm = std::sqrt(norm2(b, n));
  if (b_norm == 0.0) {
    std::fill(x, x + n, Scalar(0.0));
    report.converged = true;
    return report;
  }
  std::vector<Scalar> r(size), w(size), z(size);
  std::vector<std::vector<Scalar>> V(static_cast<std::size_t>(restart) + 1, std::vector<Scalar>(size));
  std::vector<Scalar> H(static_cast<std::size_t>(restart + 1) * restart), g(static_cast<std::size_t>(restart) + 1);
  std::vector<Scalar> cs(static_cast<std::size_t>(restart)), sn(static_cast<std::size_t>(restart));
  const auto residual = [&] {
    apply(x, r.data());
    for (std::size_t i = 0; i < size; ++i) r[i] = b[i] - r[i];
    return std::sqrt(norm2(r.data(), n));
  };
  double beta = residual();
  while (report.iterations < max_iterations && beta > tolerance * b_norm) {
    for (std::size_t i = 0; i < size; ++i) V[0][i] = r[i] / beta;
    std::fill(g.begin(), g.end(), Scalar(0.0));
    g[0] = beta;
    int k = 0;
    for (; k < restart && report.iterations < max_iterations; ++k) {
      ++report.iterations;
      // w = A M^-1 v_k.
      z = V[static_cast<std::size_t>(k)];
      if (precondition) precondition(z.data());
      apply(z.data(), w.data());
      for (int j = 0; j <= k; ++j) {
        Scalar h = 0.0;
        for (std::size_t i = 0; i < size; ++i) h += std::conj(V[static_cast<std::size_t>(j)][i]) * w[i];
        for (std::size_t i = 0; i < size; ++i) w[i] -= h * V[static_cast<std::size_t>(j)][i];
        H[static_cast<std::size_t>(j + k * (restart + 1))] = h;
      }
      const double h_next = std::sqrt(norm2(w.data(), n));
      H[static_cast<std::size_t>(k + 1 + k * (restart + 1))] = h_next;
      if (h_next > 0.0)
        for (std::size_t i = 0; i < size; ++i) V[static_cast<std::size_t>(k) + 1][i] = w[i] / h_next;
      // The earlier rotations on the new column, then one that zeroes its subdiagonal.
      for (int j = 0; j < k; ++j) {
        Scalar& a = H[static_cast<std::size_t>(j + k * (restart + 1))];
        Scalar& c = H[static_cast<std::size_t>(j + 1 + k * (restart + 1))];
        const Scalar t = std::conj(cs[static_cast<std::size_t>(j)]) * a + std::conj(sn[static_cast<std::size_t>(j)]) * c;
        c = -sn[static_cast<std::size_t>(j)] * a + cs[static_cast<std::size_t>(j)] * c;
        a = t;
      }
      Scalar& a = H[static_cast<std::size_t>(k + k * (restart + 1))];
      const double hypot = std::sqrt(std::norm(a) + h_next * h_next);
      cs[static_cast<std::size_t>(k)] = hypot > 0.0 ? a / hypot : Scalar(1.0);
      sn[static_cast<std::size_t>(k)] = hypot > 0.0 ? Scalar(h_next / hypot) : Scalar(0.0);
      a = hypot;
      H[static_cast<std::size_t>(k + 1 + k * (restart + 1))] = 0.0;
      g[static_cast<std::size_t>(k) + 1] = -sn[static_cast<std::size_t>(k)] * g[static_cast<std::size_t>(k)];
      g[static_cast<std::size_t>(k)] = std::conj(cs[static_cast<std::size_t>(k)]) * g[static_cast<std::size_t>(k)];
      if (std::abs(g[static_cast<std::size_t>(k) + 1]) <= tolerance * b_norm || h_next == 0.0) {
        ++k;
        break;
      }
    }
    // y = H^-1 g (upper triangular k x k), x += M^-1 V y.
    std::vector<Scalar> y(static_cast<std::size_t>(k));
    for (int i = k - 1; i >= 0; --i) {
      Scalar sum = g[static_cast<std::size_t>(i)];
      for (int j = i + 1; j < k; ++j) sum -= H[static_cast<std::size_t>(i + j * (restart + 1))] * y[static_cast<std::size_t>(j)];
      y[static_cast<std::size_t>(i)] = sum / H[static_cast<std::size_t>(i + i * (restart + 1))];
    }
    std::fill(z.begin(), z.end(), Scalar(0.0));
    for (int j = 0; j < k; ++j)
      for (std::size_t i = 0; i < size; ++i) z[i] += y[static_cast<std::size_t>(j)] * V[static_cast<std::size_t>(j)][i];
    if (precondition) precondition(z.data());
    for (std::size_t i = 0; i < size; ++i) x[i] += z[i];
    beta = residual();
  }
  report.residual = beta / b_norm;
  report.converged = beta <= tolerance * b_norm;
  return report;
}

}  // namespace tremor::bem
