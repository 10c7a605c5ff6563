#include "tremor/bem/hmatrix_source.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tremor/backend/memory.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"

namespace tremor::bem {

namespace {

Scalar scalar(Complex v) { return {v.re, v.im}; }

// Pairs for one launch, on the host: targets as integrate_pairs takes them.
struct PairBatch {
  std::vector<Index> node, element;
  std::vector<int> only, column;
  std::vector<Size> offset, stride;
  void clear() {
    node.clear();
    element.clear();
    only.clear();
    column.clear();
    offset.clear();
    stride.clear();
  }
  Index size() const { return static_cast<Index>(node.size()); }
};

// A launch's size: pairs (each a block of threads) and values written at once.
constexpr Index max_batch_pairs = Index{1} << 22;
constexpr Size max_batch_values = Size{1} << 26;  // 1 GiB of complex values

// The batch's pairs integrated on exec into out (exec's space).
void integrate_batch(const Exec& exec, const PairIntegration& pairs, const PairBatch& batch, double g_scale,
                     Complex* out) {
  if (batch.size() == 0) return;
  const DeviceArray<Index> node(exec, std::span<const Index>(batch.node)), element(exec, std::span<const Index>(batch.element));
  const DeviceArray<int> only(exec, std::span<const int>(batch.only)), column(exec, std::span<const int>(batch.column));
  const DeviceArray<Size> offset(exec, std::span<const Size>(batch.offset)), stride(exec, std::span<const Size>(batch.stride));
  TREMOR_CHECK(batch.column.empty() || batch.column.size() == batch.node.size(), "pair batch: columns for some pairs");
  const PairTargets targets{node.data(),
                            element.data(),
                            batch.only.empty() ? nullptr : only.data(),
                            batch.column.empty() ? nullptr : column.data(),
                            offset.data(),
                            stride.data(),
                            batch.size()};
  integrate_pairs(exec, pairs, targets, g_scale, out);
}

// Requests packed one after another (request k's `values` at its place), in batches of at most
// max_batch_pairs and max_batch_values, integrated on exec and copied to each request's out.
template <class AddPairs>
void run_requests(const Exec& exec, const PairIntegration& pairs, double g_scale,
                  std::span<const EntrySource::Request> requests, const std::vector<Size>& values, AddPairs add_pairs) {
  PairBatch batch;
  std::size_t k = 0;
  while (k < requests.size()) {
    batch.clear();
    Size packed = 0;
    const std::size_t from = k;
    std::vector<Size> at;
    while (k < requests.size() && (k == from || (batch.size() < max_batch_pairs && packed + values[k] <= max_batch_values))) {
      at.push_back(packed);
      add_pairs(requests[k], packed, batch);
      packed += values[k];
      ++k;
    }
    TREMOR_CHECK(packed <= static_cast<Size>(std::numeric_limits<Index>::max()), "hierarchical matrix: a request of ",
                 packed, " values");
    DeviceArray<Complex> out(exec, static_cast<Index>(packed));
    integrate_batch(exec, pairs, batch, g_scale, out.data());
    // Requests packed one after another in the caller's memory too (ACA's) take one copy.
    bool packed_there = true;
    for (std::size_t q = from; q < k && packed_there; ++q) packed_there = requests[q].out == requests[from].out + at[q - from];
    if (packed_there) {
      memory::copy(exec, requests[from].out, MemorySpace::Host, out.data(), exec.space(), sizeof(Complex) * packed);
      continue;
    }
    const std::vector<Complex> host = out.to_host();
    for (std::size_t q = from; q < k; ++q)
      std::copy_n(reinterpret_cast<const Scalar*>(host.data()) + at[q - from], values[q], requests[q].out);
  }
}

}  // namespace

// A node's rows: the node against each element of the columns' range, every node of each.
void PairSource::rows(std::span<const Request> requests) const {
  std::vector<Size> values;
  for (const Request& q : requests) values.push_back(18 * static_cast<Size>(q.end - q.begin));
  const ClusterTree& tree = tree_;
  run_requests(exec_, far_, g_scale_, requests, values, [&](const Request& q, Size packed, PairBatch& batch) {
    const Index i = tree.mesh_node[static_cast<std::size_t>(q.node)];
    const Index last = tree.position[static_cast<std::size_t>(q.end) - 1];
    for (Index p = tree.position[static_cast<std::size_t>(q.begin)]; p <= last; ++p) {
      batch.node.push_back(i);
      batch.element.push_back(tree.elements[static_cast<std::size_t>(p)]);
      batch.offset.push_back(packed + 18 * static_cast<Size>(tree.start[static_cast<std::size_t>(p)] - q.begin));
      batch.stride.push_back(3);
    }
  });
}

// A node's columns: each row node of the range against the node's element, that node alone.
void PairSource::columns(std::span<const Request> requests) const {
  std::vector<Size> values;
  for (const Request& q : requests) values.push_back((q.column >= 0 ? 3 : 18) * static_cast<Size>(q.end - q.begin));
  const ClusterTree& tree = tree_;
  run_requests(exec_, far_, g_scale_, requests, values, [&](const Request& q, Size packed, PairBatch& batch) {
    const Index p = tree.position[static_cast<std::size_t>(q.node)];
    const Index element = tree.elements[static_cast<std::size_t>(p)];
    const int b = static_cast<int>(q.node - tree.start[static_cast<std::size_t>(p)]);
    const Size m = 3 * static_cast<Size>(q.end - q.begin);
    for (Index r = q.begin; r < q.end; ++r) {
      batch.node.push_back(tree.mesh_node[static_cast<std::size_t>(r)]);
      batch.element.push_back(element);
      batch.only.push_back(b);
      batch.column.push_back(q.column);  // -1: all six
      batch.offset.push_back(packed + 3 * static_cast<Size>(r - q.begin));
      batch.stride.push_back(m);
    }
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
  PairBatch batch;
  const auto flush = [&] {
    integrate_batch(exec_, pairs_, batch, g_scale_, target);
    batch.clear();
  };
  for (const BlockRequest& q : requests) {
    const Cluster& rows = *q.rows;
    const Cluster& cols = *q.cols;
    const Size ld = 3 * static_cast<Size>(rows.n_nodes());
    for (Index r = rows.first; r < rows.last; ++r)
      for (Index p = cols.begin; p < cols.end; ++p) {
        batch.node.push_back(tree_.mesh_node[static_cast<std::size_t>(r)]);
        batch.element.push_back(tree_.elements[static_cast<std::size_t>(p)]);
        batch.offset.push_back(q.offset + 3 * static_cast<Size>(r - rows.first) +
                               6 * static_cast<Size>(tree_.start[static_cast<std::size_t>(p)] - cols.first) * ld);
        batch.stride.push_back(ld);
      }
    if (batch.size() >= max_batch_pairs) flush();
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
