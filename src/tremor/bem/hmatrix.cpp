#include "tremor/bem/hmatrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "tremor/bem/assembly.hpp"
#include "tremor/core/error.hpp"

// LAPACK (Fortran 77 interface, 32-bit integers; hidden character lengths last, as dense.cpp).
extern "C" {
void zgeqrf_(const int* m, const int* n, std::complex<double>* a, const int* lda, std::complex<double>* tau,
             std::complex<double>* work, const int* lwork, int* info);
void zungqr_(const int* m, const int* n, const int* k, std::complex<double>* a, const int* lda,
             const std::complex<double>* tau, std::complex<double>* work, const int* lwork, int* info);
void zgesvd_(const char* jobu, const char* jobvt, const int* m, const int* n, std::complex<double>* a, const int* lda,
             double* s, std::complex<double>* u, const int* ldu, std::complex<double>* vt, const int* ldvt,
             std::complex<double>* work, const int* lwork, double* rwork, int* info, std::size_t jobu_length,
             std::size_t jobvt_length);
void zgetrf_(const int* m, const int* n, std::complex<double>* a, const int* lda, int* ipiv, int* info);
void zgetrs_(const char* trans, const int* n, const int* nrhs, const std::complex<double>* a, const int* lda,
             const int* ipiv, std::complex<double>* b, const int* ldb, int* info, std::size_t trans_length);
}

namespace tremor::bem {

namespace {

using Box = std::array<double, 3>;

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

void DenseSource::node_rows(Index node, Index begin, Index end, Scalar* out) const {
  const Size n = 3 * static_cast<Size>(end - begin);
  for (Size r = 0; r < 3; ++r)
    for (Size c = 0; c < n; ++c) out[r * n + c] = A_[(3 * static_cast<Size>(node) + r) + (3 * static_cast<Size>(begin) + c) * n_];
}

void DenseSource::node_columns(Index node, Index begin, Index end, Scalar* out) const {
  const Size m = 3 * static_cast<Size>(end - begin);
  for (Size c = 0; c < 3; ++c)
    for (Size r = 0; r < m; ++r) out[c * m + r] = A_[(3 * static_cast<Size>(begin) + r) + (3 * static_cast<Size>(node) + c) * n_];
}

void DenseSource::block(const Cluster& rows, const Cluster& cols, Scalar* out) const {
  const Size m = 3 * static_cast<Size>(rows.n_nodes()), n = 3 * static_cast<Size>(cols.n_nodes());
  for (Size c = 0; c < n; ++c)
    for (Size r = 0; r < m; ++r)
      out[r + c * m] = A_[(3 * static_cast<Size>(rows.first) + r) + (3 * static_cast<Size>(cols.first) + c) * n_];
}

LowRank aca(const EntrySource& source, const Cluster& rows, const Cluster& cols, double tolerance, Index max_rank,
            bool* converged) {
  LowRank out;
  const Index w = source.width();
  out.m = 3 * rows.n_nodes();
  out.n = w * cols.n_nodes();
  const Index m = out.m, n = out.n;
  max_rank = std::min({max_rank, m, n});
  std::unordered_map<Index, std::vector<Scalar>> row_cache, column_cache;  // by node, relative
  double largest_seen = 0.0;  // the largest entry fetched: the scale below which a pivot is zero
  const auto row_of = [&](Index r, Scalar* row) {
    std::vector<Scalar>& rows3 = row_cache[r / 3];
    if (rows3.empty()) {
      rows3.resize(3 * static_cast<std::size_t>(n));
      source.node_rows(rows.first + r / 3, cols.first, cols.last, rows3.data());
      for (const Scalar& v : rows3) largest_seen = std::max(largest_seen, std::abs(v));
    }
    std::copy_n(rows3.data() + static_cast<std::size_t>(r % 3) * n, n, row);
  };
  const auto column_of = [&](Index c, Scalar* column) {
    std::vector<Scalar>& columns_w = column_cache[c / w];
    if (columns_w.empty()) {
      columns_w.resize(static_cast<std::size_t>(w) * m);
      source.node_columns(cols.first + c / w, rows.first, rows.last, columns_w.data());
    }
    std::copy_n(columns_w.data() + static_cast<std::size_t>(c % w) * m, m, column);
  };
  std::vector<char> node_used(static_cast<std::size_t>(rows.n_nodes()), 0), column_used(static_cast<std::size_t>(n), 0);
  std::vector<Scalar> row(static_cast<std::size_t>(n)), column(static_cast<std::size_t>(m));
  std::vector<double> pull(static_cast<std::size_t>(rows.n_nodes()), 0.0);  // the last columns' residual per node
  double frobenius2 = 0.0;  // |S|^2 of the sum so far
  Index next = 0, empty_nodes = 0;
  int quiet = 0;
  bool done = false;
  // Pivots a node at a time: each of its 3 rows in turn (a vector problem's components may be
  // uncoupled in a block, as on a flat surface, where one row's pivots never reach the others),
  // then the node where the new columns' residual is largest; stopping when two nodes in a row
  // add less than the tolerance.
  while (out.rank < max_rank) {
    if (node_used[static_cast<std::size_t>(next)]) {
      const auto unused = std::find(node_used.begin(), node_used.end(), 0);
      if (unused == node_used.end()) {
        done = true;  // every row taken: the sum is the block
        break;
      }
      next = static_cast<Index>(unused - node_used.begin());
    }
    node_used[static_cast<std::size_t>(next)] = 1;
    double step2 = 0.0;
    bool any = false;
    for (Index a = 0; a < 3 && out.rank < max_rank; ++a) {
      const Index i = 3 * next + a;
      row_of(i, row.data());
      for (Index l = 0; l < out.rank; ++l) {
        const Scalar u = out.U[static_cast<std::size_t>(l) * m + i];
        const Scalar* v = out.V.data() + static_cast<std::size_t>(l) * n;
        for (Index c = 0; c < n; ++c) row[static_cast<std::size_t>(c)] -= u * v[c];
      }
      Index j = -1;
      double largest = 0.0;
      for (Index c = 0; c < n; ++c)
        if (!column_used[static_cast<std::size_t>(c)] && std::abs(row[static_cast<std::size_t>(c)]) > largest) {
          largest = std::abs(row[static_cast<std::size_t>(c)]);
          j = c;
        }
      // A row the sum already holds to rounding: no pivot (dividing by it would amplify noise).
      if (j < 0 || largest <= 1e-14 * largest_seen) continue;
      const Scalar pivot = row[static_cast<std::size_t>(j)];
      for (Scalar& v : row) v /= pivot;
      column_of(j, column.data());
      for (Index l = 0; l < out.rank; ++l) {
        const Scalar v = out.V[static_cast<std::size_t>(l) * n + j];
        const Scalar* u = out.U.data() + static_cast<std::size_t>(l) * m;
        for (Index r = 0; r < m; ++r) column[static_cast<std::size_t>(r)] -= v * u[r];
      }
      column_used[static_cast<std::size_t>(j)] = 1;
      // |S + u v^T|^2 = |S|^2 + 2 Re sum_l (u_l^H u)(v_l^H v) + |u|^2 |v|^2.
      const double nu2 = norm2(column.data(), m), nv2 = norm2(row.data(), n);
      double cross = 0.0;
      for (Index l = 0; l < out.rank; ++l) {
        Scalar uu = 0.0, vv = 0.0;
        const Scalar* ul = out.U.data() + static_cast<std::size_t>(l) * m;
        const Scalar* vl = out.V.data() + static_cast<std::size_t>(l) * n;
        for (Index r = 0; r < m; ++r) uu += std::conj(ul[r]) * column[static_cast<std::size_t>(r)];
        for (Index c = 0; c < n; ++c) vv += std::conj(vl[c]) * row[static_cast<std::size_t>(c)];
        cross += 2.0 * (uu * vv).real();
      }
      frobenius2 = std::max(0.0, frobenius2 + cross + nu2 * nv2);
      step2 += nu2 * nv2;
      any = true;
      out.U.insert(out.U.end(), column.begin(), column.end());
      out.V.insert(out.V.end(), row.begin(), row.end());
      ++out.rank;
      for (Index r = 0; r < m; ++r) pull[static_cast<std::size_t>(r / 3)] += std::norm(column[static_cast<std::size_t>(r)]);
    }
    if (!any) {
      if (++empty_nodes > 8) {  // rows the sum holds, node after node: the block is done
        done = true;
        break;
      }
    } else {
      empty_nodes = 0;
      quiet = std::sqrt(step2) <= tolerance * std::sqrt(frobenius2) ? quiet + 1 : 0;
      if (quiet >= 2) {
        done = true;
        break;
      }
    }
    double best = -1.0;
    for (Index node = 0; node < rows.n_nodes(); ++node)
      if (!node_used[static_cast<std::size_t>(node)] && pull[static_cast<std::size_t>(node)] > best) {
        best = pull[static_cast<std::size_t>(node)];
        next = node;
      }
    std::fill(pull.begin(), pull.end(), 0.0);
  }
  if (converged) *converged = done || out.rank == std::min(m, n);
  return out;
}

void recompress(LowRank& b, double tolerance) {
  const int k = static_cast<int>(b.rank), m = static_cast<int>(b.m), n = static_cast<int>(b.n);
  if (k == 0 || k >= std::min(m, n)) return;
  int info = 0;
  // QR of U and V (each taller than the rank): R_U, R_V upper triangular k x k.
  const auto qr = [&](std::vector<Scalar>& A, int rows, std::vector<Scalar>& R) {
    std::vector<Scalar> tau(static_cast<std::size_t>(k));
    Scalar size_query;
    int lwork = -1;
    zgeqrf_(&rows, &k, A.data(), &rows, tau.data(), &size_query, &lwork, &info);
    lwork = std::max(1, static_cast<int>(size_query.real()));
    std::vector<Scalar> work(static_cast<std::size_t>(lwork));
    zgeqrf_(&rows, &k, A.data(), &rows, tau.data(), work.data(), &lwork, &info);
    TREMOR_CHECK(info == 0, "recompression: zgeqrf failed with info = ", info);
    R.assign(static_cast<std::size_t>(k) * k, Scalar(0.0));
    for (int c = 0; c < k; ++c)
      for (int r = 0; r <= c; ++r) R[static_cast<std::size_t>(r + c * k)] = A[static_cast<std::size_t>(r + c * rows)];
    lwork = -1;
    zungqr_(&rows, &k, &k, A.data(), &rows, tau.data(), &size_query, &lwork, &info);
    lwork = std::max(1, static_cast<int>(size_query.real()));
    work.resize(static_cast<std::size_t>(lwork));
    zungqr_(&rows, &k, &k, A.data(), &rows, tau.data(), work.data(), &lwork, &info);
    TREMOR_CHECK(info == 0, "recompression: zungqr failed with info = ", info);
  };
  std::vector<Scalar> Ru, Rv;
  qr(b.U, m, Ru);
  qr(b.V, n, Rv);
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
  // U' = Q_U W_r S_r (m x keep); V' = Q_V conj(Z_r) (n x keep), Z_r^H the first rows of Zh.
  std::vector<Scalar> U(static_cast<std::size_t>(m) * keep, Scalar(0.0)), V(static_cast<std::size_t>(n) * keep, Scalar(0.0));
  for (int c = 0; c < keep; ++c) {
    for (int l = 0; l < k; ++l) {
      const Scalar w = W[static_cast<std::size_t>(l + c * k)] * s[static_cast<std::size_t>(c)];
      const Scalar z = Zh[static_cast<std::size_t>(c + l * k)];  // (Z^H)_{c,l} = conj(Z_{l,c})
      for (int r = 0; r < m; ++r) U[static_cast<std::size_t>(r + c * m)] += b.U[static_cast<std::size_t>(r + l * m)] * w;
      for (int r = 0; r < n; ++r) V[static_cast<std::size_t>(r + c * n)] += b.V[static_cast<std::size_t>(r + l * n)] * z;
    }
  }
  b.U.swap(U);
  b.V.swap(V);
  b.rank = keep;
}

HMatrix::HMatrix(const ClusterTree& tree, const EntrySource& source, const HMatrixOptions& options)
    : tree_(&tree), n_nodes_(tree.n_nodes()), width_(source.width()) {
  TREMOR_CHECK(options.tolerance > 0.0 && options.tolerance < 0.1, "hierarchical matrix: tolerance ", options.tolerance,
               " outside (0, 0.1)");
  const std::vector<BlockLeaf> leaves = block_leaves(tree, options.eta);
  for (const BlockLeaf& leaf : leaves) {
    if (leaf.admissible)
      far_.push_back({leaf.row, leaf.col, {}});
    else
      dense_.push_back({leaf.row, leaf.col, {}});
  }
  const auto cluster = [&](int c) -> const Cluster& { return tree.clusters[static_cast<std::size_t>(c)]; };
  std::vector<char> converged(far_.size(), 1);
  const auto n_dense = static_cast<std::ptrdiff_t>(dense_.size()), n_far = static_cast<std::ptrdiff_t>(far_.size());
#pragma omp parallel for schedule(dynamic)
  for (std::ptrdiff_t b = 0; b < n_dense; ++b) {
    Dense& d = dense_[static_cast<std::size_t>(b)];
    d.values.resize(3 * static_cast<std::size_t>(width_) * cluster(d.row).n_nodes() * cluster(d.col).n_nodes());
    source.block(cluster(d.row), cluster(d.col), d.values.data());
  }
#pragma omp parallel for schedule(dynamic)
  for (std::ptrdiff_t b = 0; b < n_far; ++b) {
    Far& f = far_[static_cast<std::size_t>(b)];
    bool ok = true;
    const Index limit = std::min(3 * cluster(f.row).n_nodes(), width_ * cluster(f.col).n_nodes());
    f.block = aca(source, cluster(f.row), cluster(f.col), options.tolerance, limit, &ok);
    recompress(f.block, options.tolerance);
    converged[static_cast<std::size_t>(b)] = ok ? 1 : 0;
  }
  double rank_sum = 0.0;
  for (const Far& f : far_) {
    stats_.max_rank = std::max(stats_.max_rank, f.block.rank);
    rank_sum += static_cast<double>(f.block.rank);
  }
  stats_.mean_rank = far_.empty() ? 0.0 : rank_sum / static_cast<double>(far_.size());
  // A block whose rank leaves U and V larger than the block itself is kept dense (U V^T).
  std::vector<Far> kept;
  std::vector<char> kept_converged;
  for (std::size_t b = 0; b < far_.size(); ++b) {
    const LowRank& l = far_[b].block;
    if (static_cast<double>(l.rank) * static_cast<double>(l.m + l.n) < static_cast<double>(l.m) * static_cast<double>(l.n)) {
      kept.push_back(std::move(far_[b]));
      kept_converged.push_back(converged[b]);
      continue;
    }
    Dense d{far_[b].row, far_[b].col, std::vector<Scalar>(static_cast<std::size_t>(l.m) * l.n, Scalar(0.0))};
    for (Index k = 0; k < l.rank; ++k)
      for (Index c = 0; c < l.n; ++c) {
        const Scalar v = l.V[static_cast<std::size_t>(k) * l.n + c];
        for (Index r = 0; r < l.m; ++r) d.values[static_cast<std::size_t>(r + c * l.m)] += l.U[static_cast<std::size_t>(k) * l.m + r] * v;
      }
    dense_.push_back(std::move(d));
    ++stats_.kept_dense;
    if (!converged[b]) ++stats_.unconverged;
  }
  far_.swap(kept);
  converged.swap(kept_converged);
  dense_by_row_.assign(tree.clusters.size(), {});
  far_by_row_.assign(tree.clusters.size(), {});
  for (std::size_t b = 0; b < dense_.size(); ++b) {
    dense_by_row_[static_cast<std::size_t>(dense_[b].row)].push_back(static_cast<int>(b));
    if (dense_[b].row == dense_[b].col) diagonal_.push_back(static_cast<int>(b));
  }
  for (std::size_t b = 0; b < far_.size(); ++b) far_by_row_[static_cast<std::size_t>(far_[b].row)].push_back(static_cast<int>(b));
  stats_.dense_blocks = static_cast<Index>(dense_.size());
  stats_.low_rank_blocks = static_cast<Index>(far_.size());
  for (std::size_t b = 0; b < dense_.size(); ++b) stats_.dense_values += dense_[b].values.size();
  for (std::size_t b = 0; b < far_.size(); ++b) {
    const LowRank& l = far_[b].block;
    stats_.low_rank_values += l.U.size() + l.V.size();
    if (!converged[b]) ++stats_.unconverged;
  }
  const double full = 3.0 * width_ * static_cast<double>(n_nodes_) * static_cast<double>(n_nodes_);
  stats_.compression = full > 0 ? static_cast<double>(stats_.dense_values + stats_.low_rank_values) / full : 0.0;
}

void HMatrix::multiply(const Scalar* x, Scalar* y) const {
  const ClusterTree& tree = *tree_;
  const auto n_clusters = static_cast<std::ptrdiff_t>(tree.clusters.size());
  std::fill(y, y + rows(), Scalar(0.0));
  // Row clusters in parallel, each summing its blocks into its own vector; the leaves' row
  // clusters may nest (a cluster and its child both own blocks), so the sums are added to y after,
  // in cluster order: the same bits on any thread count.
  std::vector<std::vector<Scalar>> sums(tree.clusters.size());
#pragma omp parallel
  {
    std::vector<Scalar> temp;
#pragma omp for schedule(dynamic)
    for (std::ptrdiff_t c = 0; c < n_clusters; ++c) {
      const Cluster& rows = tree.clusters[static_cast<std::size_t>(c)];
      const auto& dense = dense_by_row_[static_cast<std::size_t>(c)];
      const auto& far = far_by_row_[static_cast<std::size_t>(c)];
      if (dense.empty() && far.empty()) continue;
      const Index m = 3 * rows.n_nodes();
      std::vector<Scalar>& out = sums[static_cast<std::size_t>(c)];
      out.assign(static_cast<std::size_t>(m), Scalar(0.0));
      for (const int b : dense) {
        const Dense& d = dense_[static_cast<std::size_t>(b)];
        const Cluster& cols = tree.clusters[static_cast<std::size_t>(d.col)];
        const Index n = width_ * cols.n_nodes();
        const Scalar* xc = x + static_cast<Size>(width_) * cols.first;
        for (Index j = 0; j < n; ++j) {
          const Scalar xj = xc[j];
          const Scalar* column = d.values.data() + static_cast<std::size_t>(j) * m;
          for (Index i = 0; i < m; ++i) out[static_cast<std::size_t>(i)] += column[i] * xj;
        }
      }
      for (const int b : far) {
        const LowRank& l = far_[static_cast<std::size_t>(b)].block;
        const Cluster& cols = tree.clusters[static_cast<std::size_t>(far_[static_cast<std::size_t>(b)].col)];
        const Scalar* xc = x + static_cast<Size>(width_) * cols.first;
        temp.assign(static_cast<std::size_t>(l.rank), Scalar(0.0));
        for (Index k = 0; k < l.rank; ++k) {
          const Scalar* v = l.V.data() + static_cast<std::size_t>(k) * l.n;
          Scalar sum = 0.0;
          for (Index j = 0; j < l.n; ++j) sum += v[j] * xc[j];
          temp[static_cast<std::size_t>(k)] = sum;
        }
        for (Index k = 0; k < l.rank; ++k) {
          const Scalar* u = l.U.data() + static_cast<std::size_t>(k) * m;
          const Scalar t = temp[static_cast<std::size_t>(k)];
          for (Index i = 0; i < m; ++i) out[static_cast<std::size_t>(i)] += u[i] * t;
        }
      }
    }
  }
  for (std::size_t c = 0; c < sums.size(); ++c) {
    Scalar* yr = y + 3 * static_cast<Size>(tree.clusters[c].first);
    for (std::size_t i = 0; i < sums[c].size(); ++i) yr[i] += sums[c][i];
  }
}

void HMatrix::factor_diagonal(const DiagonalOf& diagonal) {
  factors_.assign(diagonal_.size(), {});
  pivots_.assign(diagonal_.size(), {});
  const auto n = static_cast<std::ptrdiff_t>(diagonal_.size());
  std::vector<int> failed(diagonal_.size(), 0);
#pragma omp parallel for schedule(dynamic)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const Dense& d = dense_[static_cast<std::size_t>(diagonal_[static_cast<std::size_t>(k)])];
    const Cluster& c = tree_->clusters[static_cast<std::size_t>(d.row)];
    const int size = static_cast<int>(3 * c.n_nodes());
    std::vector<Scalar>& f = factors_[static_cast<std::size_t>(k)];
    f.resize(static_cast<std::size_t>(size) * size);
    diagonal(c, d.values.data(), f.data());
    pivots_[static_cast<std::size_t>(k)].resize(static_cast<std::size_t>(size));
    int info = 0;
    zgetrf_(&size, &size, f.data(), &size, pivots_[static_cast<std::size_t>(k)].data(), &info);
    failed[static_cast<std::size_t>(k)] = info;
  }
  for (std::size_t k = 0; k < diagonal_.size(); ++k) {
    const Cluster& c = tree_->clusters[static_cast<std::size_t>(dense_[static_cast<std::size_t>(diagonal_[k])].row)];
    TREMOR_CHECK(failed[k] == 0, "hierarchical matrix: the near-field block of nodes ", c.first, " to ", c.last - 1,
                 " is singular (zgetrf info ", failed[k], ")");
  }
}

void HMatrix::precondition(Scalar* x) const {
  TREMOR_CHECK(factors_.size() == diagonal_.size(), "hierarchical matrix: precondition before factor_diagonal");
  const auto n = static_cast<std::ptrdiff_t>(diagonal_.size());
#pragma omp parallel for schedule(dynamic)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const Dense& d = dense_[static_cast<std::size_t>(diagonal_[static_cast<std::size_t>(k)])];
    const Cluster& c = tree_->clusters[static_cast<std::size_t>(d.row)];
    const int size = static_cast<int>(3 * c.n_nodes()), one = 1;
    int info = 0;
    zgetrs_("N", &size, &one, factors_[static_cast<std::size_t>(k)].data(), &size,
            pivots_[static_cast<std::size_t>(k)].data(), x + 3 * static_cast<Size>(c.first), &size, &info, 1);
  }
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
