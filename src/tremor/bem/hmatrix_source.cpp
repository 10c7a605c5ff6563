#include "tremor/bem/hmatrix_source.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tremor/backend/forall.hpp"
#include "tremor/backend/memory.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/search.hpp"

namespace tremor::bem {

namespace {

Scalar scalar(Complex v) { return {v.re, v.im}; }

// A request as its pairs, expanded on exec (integrate_requests). Rows (element < 0): `node`
// against each element of the tree's positions [first, first + count), element p's node b's six
// columns at packed + (6 (start[p] - start[first]) + c) stride. Columns: each row node first + k
// of the tree against `element`, its node `only`, at packed + 3 k, all six columns (column -1,
// `stride` apart) or `column` alone.
struct RequestPairs {
  Index node = 0, element = -1, first = 0, count = 0;
  int only = -1, column = -1;
  Size packed = 0, stride = 3;
};

// A launch's size: pairs (each a block of threads) and values written at once.
constexpr Index max_batch_pairs = Index{1} << 22;
constexpr Size max_batch_values = Size{1} << 26;  // 1 GiB of complex values

using TreeView = PairSource::DeviceTree;

// The requests' pairs written on exec (one thread per pair, its request found by bisection of the
// pairs' prefix sums `first_pair`), then integrated into out (exec's space): the host sends a
// request's 40 bytes, not 32 per pair.
void integrate_requests(const Exec& exec, const PairIntegration& pairs, TreeView tree,
                        const std::vector<RequestPairs>& requests, double g_scale, Complex* out) {
  if (requests.empty()) return;
  const bool columns = requests.front().element >= 0;
  std::vector<Index> first_pair(requests.size() + 1, 0);
  for (std::size_t k = 0; k < requests.size(); ++k) first_pair[k + 1] = first_pair[k] + requests[k].count;
  const Index n_pairs = first_pair.back();
  if (n_pairs == 0) return;
  const DeviceArray<RequestPairs> spans(exec, std::span<const RequestPairs>(requests));
  const DeviceArray<Index> starts(exec, std::span<const Index>(first_pair));
  DeviceArray<Index> node(exec, n_pairs), element(exec, n_pairs);
  DeviceArray<int> only, column;
  if (columns) {
    only = DeviceArray<int>(exec, n_pairs);
    column = DeviceArray<int>(exec, n_pairs);
  }
  DeviceArray<Size> offset(exec, n_pairs), stride(exec, n_pairs);
  const RequestPairs* s = spans.data();
  const Index* fp = starts.data();
  const Index n_requests = static_cast<Index>(requests.size());
  Index* node_out = node.data();
  Index* element_out = element.data();
  int* only_out = only.data();
  int* column_out = column.data();
  Size* offset_out = offset.data();
  Size* stride_out = stride.data();
  forall(exec, n_pairs, [=] TREMOR_LAMBDA(Index pair) {
    const Index at = last_not_greater(fp, Index{0}, n_requests, pair);
    const RequestPairs q = s[at];
    const Index k = pair - fp[at];
    if (q.element < 0) {
      const Index p = q.first + k;
      node_out[pair] = q.node;
      element_out[pair] = tree.elements[p];
      offset_out[pair] = q.packed + 6 * q.stride * static_cast<Size>(tree.start[p] - tree.start[q.first]);
      stride_out[pair] = q.stride;
    } else {
      node_out[pair] = tree.mesh_node[q.first + k];
      element_out[pair] = q.element;
      only_out[pair] = q.only;
      column_out[pair] = q.column;
      offset_out[pair] = q.packed + 3 * static_cast<Size>(k);
      stride_out[pair] = q.stride;
    }
  });
  const PairTargets targets{node.data(),   element.data(), columns ? only.data() : nullptr,
                            columns ? column.data() : nullptr, offset.data(), stride.data(), n_pairs};
  integrate_pairs(exec, pairs, targets, g_scale, out);
}

// Requests packed one after another (request k's `values` at its place), in launches of at most
// max_batch_pairs and max_batch_values, integrated on exec and copied to each request's out: in
// one copy where the caller packed them so too (ACA's, in page-locked memory).
template <class Describe>
void run_requests(const Exec& exec, const PairIntegration& pairs, TreeView tree, double g_scale,
                  std::span<const EntrySource::Request> requests, Describe describe) {
  std::vector<RequestPairs> batch;
  std::size_t k = 0;
  while (k < requests.size()) {
    batch.clear();
    Size packed = 0;
    Index n_pairs = 0;
    const std::size_t from = k;
    std::vector<Size> at;
    for (; k < requests.size(); ++k) {
      RequestPairs q = describe(requests[k]);
      const Size values = (q.element < 0 ? 18 : q.column >= 0 ? 3 : 18) *
                          static_cast<Size>(requests[k].end - requests[k].begin);
      if (k > from && (n_pairs + q.count > max_batch_pairs || packed + values > max_batch_values)) break;
      q.packed = packed;
      at.push_back(packed);
      batch.push_back(q);
      packed += values;
      n_pairs += q.count;
    }
    TREMOR_CHECK(packed <= static_cast<Size>(std::numeric_limits<Index>::max()), "hierarchical matrix: a request of ",
                 packed, " values");
    DeviceArray<Complex> out(exec, static_cast<Index>(packed));
    integrate_requests(exec, pairs, tree, batch, g_scale, out.data());
    bool packed_there = true;
    for (std::size_t q = from; q < k && packed_there; ++q) packed_there = requests[q].out == requests[from].out + at[q - from];
    if (packed_there) {
      memory::copy(exec, requests[from].out, MemorySpace::Host, out.data(), exec.space(), sizeof(Complex) * packed);
      continue;
    }
    const std::vector<Complex> host = out.to_host();
    for (std::size_t q = from; q < k; ++q) {
      const Size end = q + 1 < k ? at[q + 1 - from] : packed;
      std::copy_n(reinterpret_cast<const Scalar*>(host.data()) + at[q - from], end - at[q - from], requests[q].out);
    }
  }
}

}  // namespace

PairSource::PairSource(const Exec& exec, const ClusterTree& tree, const PairIntegration& pairs, double g_scale)
    : exec_(exec),
      tree_(tree),
      pairs_(pairs),
      far_(pairs),
      g_scale_(g_scale),
      elements_(exec, std::span<const Index>(tree.elements)),
      start_(exec, std::span<const Index>(tree.start)),
      mesh_node_(exec, std::span<const Index>(tree.mesh_node)) {
  far_.options.gauss = std::min(far_.options.gauss, far_gauss);
}

// A node's rows: the node against each element of the columns' range, every node of each.
void PairSource::rows(std::span<const Request> requests) const {
  const ClusterTree& tree = tree_;
  run_requests(exec_, far_, device_tree(), g_scale_, requests, [&](const Request& q) {
    RequestPairs r;
    r.node = tree.mesh_node[static_cast<std::size_t>(q.node)];
    r.first = tree.position[static_cast<std::size_t>(q.begin)];
    r.count = tree.position[static_cast<std::size_t>(q.end) - 1] + 1 - r.first;
    return r;
  });
}

// A node's columns: each row node of the range against the node's element, that node alone.
void PairSource::columns(std::span<const Request> requests) const {
  const ClusterTree& tree = tree_;
  run_requests(exec_, far_, device_tree(), g_scale_, requests, [&](const Request& q) {
    const Index p = tree.position[static_cast<std::size_t>(q.node)];
    RequestPairs r;
    r.element = tree.elements[static_cast<std::size_t>(p)];
    r.only = static_cast<int>(q.node - tree.start[static_cast<std::size_t>(p)]);
    r.column = q.column;  // -1: all six
    r.first = q.begin;
    r.count = q.end - q.begin;
    r.stride = 3 * static_cast<Size>(r.count);
    return r;
  });
}

// Each row node of a block against each element of its columns, written in place.
void PairSource::blocks(const Exec& exec, std::span<const BlockRequest> requests, Scalar* out) const {
  // Written where they belong when exec shares the source's memory space; else through a copy.
  DeviceArray<Complex> staging;
  Complex* target = reinterpret_cast<Complex*>(out);
  if (exec.space() != exec_.space()) {
    Size total = 0;
    for (const BlockRequest& q : requests)
      total = std::max(total, q.offset + 18 * static_cast<Size>(q.rows->n_nodes()) * q.cols->n_nodes());
    staging = DeviceArray<Complex>(exec_, static_cast<Index>(total));
    target = staging.data();
  }
  std::vector<RequestPairs> batch;
  Index n_pairs = 0;
  const auto flush = [&] {
    integrate_requests(exec_, pairs_, device_tree(), batch, g_scale_, target);
    batch.clear();
    n_pairs = 0;
  };
  for (const BlockRequest& q : requests) {
    const Cluster& rows = *q.rows;
    const Cluster& cols = *q.cols;
    const Size ld = 3 * static_cast<Size>(rows.n_nodes());
    for (Index r = rows.first; r < rows.last; ++r) {
      RequestPairs row;
      row.node = tree_.mesh_node[static_cast<std::size_t>(r)];
      row.first = cols.begin;
      row.count = cols.end - cols.begin;
      row.packed = q.offset + 3 * static_cast<Size>(r - rows.first);
      row.stride = ld;
      batch.push_back(row);
      n_pairs += row.count;
    }
    if (n_pairs >= max_batch_pairs) flush();
  }
  flush();
  if (staging.size() > 0)
    memory::copy(exec, out, exec.space(), staging.data(), exec_.space(), sizeof(Complex) * static_cast<Size>(staging.size()));
}

double g_scale(const BoundaryMesh& mesh, const Medium& medium) {
  double sum = 0.0;
  for (Index e = 0; e < mesh.n_elements(); ++e) sum += element_geometry(mesh, e).diameter;
  const double h = sum / static_cast<double>(std::max<Index>(mesh.n_elements(), 1));
  const double mu = std::sqrt(medium.mu.re * medium.mu.re + medium.mu.im * medium.mu.im);
  return h > 0.0 ? mu / h : 1.0;
}

HMatrixSolveReport solve_compressed(const Exec& exec, const ClusterTree& tree, const PairIntegration& pairs,
                                    double scale, const BoundaryConditions& conditions,
                                    const HMatrixOptions& options, std::vector<Scalar>& guess, std::vector<Complex>& u,
                                    std::vector<Complex>& t) {
  HMatrixSolveReport report;
  const Index n = tree.n_nodes();
  const auto size = static_cast<std::size_t>(n);
  TREMOR_CHECK(conditions.kind.size() == 3 * size && conditions.value.size() == 3 * size,
               "boundary conditions for ", conditions.kind.size() / 3, " nodes, the boundary has ", n);
  // Per tree node and component: is the displacement the unknown (the traction given)?
  std::vector<char> u_unknown(3 * size);
  for (std::size_t k = 0; k < 3 * size; ++k) {
    const std::size_t mesh = 3 * static_cast<std::size_t>(tree.mesh_node[k / 3]) + k % 3;
    u_unknown[k] = conditions.kind[mesh] == Prescribed::Traction ? 1 : 0;
  }
  auto started = Clock::now();
  const PairSource source(exec, tree, pairs, scale);
  HMatrix h(exec, tree, source, options);
  report.build_seconds = seconds_since(started);
  report.stats = h.stats();

  started = Clock::now();
  // A x = [H sG] (P_u x, -P_t x); b = [H sG] (-u_given, t_given / s).
  std::vector<Scalar> wide(6 * size), b(3 * size);
  for (std::size_t k = 0; k < 3 * size; ++k) {
    const std::size_t mesh = 3 * static_cast<std::size_t>(tree.mesh_node[k / 3]) + k % 3;
    const Scalar given = scalar(conditions.value[mesh]);
    wide[6 * (k / 3) + k % 3] = u_unknown[k] ? Scalar(0.0) : -given;
    wide[6 * (k / 3) + 3 + k % 3] = u_unknown[k] ? given / scale : Scalar(0.0);
  }
  h.multiply(wide.data(), b.data());
  const Operator apply = [&](const Scalar* x, Scalar* y) {
    for (std::size_t k = 0; k < 3 * size; ++k) {
      wide[6 * (k / 3) + k % 3] = u_unknown[k] ? x[k] : Scalar(0.0);
      wide[6 * (k / 3) + 3 + k % 3] = u_unknown[k] ? Scalar(0.0) : -x[k];
    }
    h.multiply(wide.data(), y);
  };
  h.factor_diagonal([&](const Cluster& c, const Scalar* block, Scalar* out) {
    const Size m = 3 * static_cast<Size>(c.n_nodes());
    for (Size j = 0; j < m; ++j) {
      const std::size_t k = 3 * static_cast<std::size_t>(c.first) + j;
      const Size from = 6 * (j / 3) + (u_unknown[k] ? 0 : 3) + j % 3;
      const double sign = u_unknown[k] ? 1.0 : -1.0;
      for (Size r = 0; r < m; ++r) out[r + j * m] = sign * block[r + from * m];
    }
  });
  if (guess.size() != 3 * size) guess.assign(3 * size, Scalar(0.0));
  report.gmres = gmres(3 * n, apply, [&](Scalar* x) { h.precondition(x); }, b.data(), guess.data(), options.tolerance);
  report.solve_seconds = seconds_since(started);
  u.assign(3 * size, Complex());
  t.assign(3 * size, Complex());
  for (std::size_t k = 0; k < 3 * size; ++k) {
    const std::size_t mesh = 3 * static_cast<std::size_t>(tree.mesh_node[k / 3]) + k % 3;
    const Scalar x = u_unknown[k] ? guess[k] : scale * guess[k];
    const Complex value{x.real(), x.imag()};
    u[mesh] = u_unknown[k] ? value : conditions.value[mesh];
    t[mesh] = u_unknown[k] ? conditions.value[mesh] : value;
  }
  return report;
}

}  // namespace tremor::bem
