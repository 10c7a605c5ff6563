#include "tremor/bem/assembly.hpp"

#include <algorithm>
#include <limits>
#include <span>

#include "tremor/backend/forall.hpp"
#include "tremor/backend/forall_blocks.hpp"
#include "tremor/bem/assembly_kernels.hpp"
#include "tremor/core/error.hpp"

namespace tremor::bem {

namespace {

// Pairs index one launch and 9 values per pair one array (DeviceArray sizes are Index).
void check_pairs(Index rows, Index columns) {
  TREMOR_CHECK(9 * static_cast<Size>(rows) * columns <= std::numeric_limits<Index>::max(),
               "boundary-element assembly of ", rows, " x ", columns,
               " node pairs: 9 values per pair exceed the 2^31 - 1 entries of one array (at most 15,446 collocation "
               "nodes: as many constant elements, 5,148 linear triangles, 3,861 linear quadrilaterals, 2,574 "
               "quadratic triangles or 1,716 9-node quadrilaterals)");
}

// Adds c_i + PV int t*_static to the block of i's own node when element j holds node i (and the
// sums hold that node: all of j's, or `only`).
template <int K>
TREMOR_HOST_DEVICE inline void add_free_term(Index i, Index j, BoundaryView boundary, bool rigid, double rigid_alpha,
                                             const Complex* row_sums, const Medium& medium, const ElementNodes& e,
                                             const detail::Quadrature& q, detail::PairSums<K>& sums, int only = -1) {
  if (boundary.node_element[i] != j) return;
  const int a = static_cast<int>(i - boundary.first_node[j]);
  if (only >= 0 && a != only) return;
  const int slot = only >= 0 ? 0 : a;
  Complex c[9];
  if (rigid) {
    for (int k = 0; k < 9; ++k)
      c[k] = (k % 4 == 0 ? Complex(rigid_alpha) : Complex()) - row_sums[9 * static_cast<Size>(i) + k];
  } else {
    double st[2];
    node_reference(boundary.order, e.n_vertices, a, st);
    if (e.curved())
      detail::curved_free_term(medium, e, st, q.regular, c);
    else
      detail::flat_free_term(medium, e, st, q.regular, c);
    if (e.n_vertices == 4 || e.curved()) detail::add_warped_correction(medium, e, st, q.singular, c);
  }
  for (int k = 0; k < 9; ++k) sums.H[9 * slot + k] += c[k];
}

// Writes pair (node i, element j)'s blocks, adding c_i + PV int t*_static to the block of i's own
// node when j holds i.
template <int K>
TREMOR_HOST_DEVICE inline void write_pair(Index i, Index j, BoundaryView boundary, bool rigid, double rigid_alpha,
                                          const Complex* row_sums, const Medium& medium, const ElementNodes& e,
                                          const detail::Quadrature& q, detail::PairSums<K>& sums, Complex* H,
                                          Complex* G) {
  const Index first = boundary.first_node[j];
  const int nodes = boundary.first_node[j + 1] - first;
  add_free_term(i, j, boundary, rigid, rigid_alpha, row_sums, medium, e, q, sums);
  const Size ld = 3 * static_cast<Size>(boundary.n_nodes);
  for (int b = 0; b < nodes; ++b)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        const Size at = (3 * static_cast<Size>(i) + r) + (3 * static_cast<Size>(first + b) + c) * ld;
        H[at] = sums.H[9 * b + 3 * r + c];
        G[at] = sums.G[9 * b + 3 * r + c];
      }
}

// The sums of pair (node i at xi, element j), lanes sharing the quadrature points.
template <int K>
TREMOR_HOST_DEVICE inline void pair_sums(Index i, Index j, BoundaryView boundary, const Medium& medium,
                                         const ElementNodes& e, const double* xi, const detail::Quadrature& q,
                                         int lane, int lanes, detail::PairSums<K>& sums, int only = -1) {
  if (boundary.node_element[i] != j)
    detail::regular_pair(medium, boundary.order, e, xi, q, KernelPart::Full, true, lane, lanes, sums, only);
  else
    detail::singular_pair(medium, boundary.order, e, static_cast<int>(i - boundary.first_node[j]), q, lane, lanes,
                          sums, only);
}

// The pairs of one launch: pair_of(item, i, j, only) names node i and element j of each (and the
// one node of j wanted, or -1 for all), write(item, i, j, only, e, sums) stores their sums. Two layouts of the same sums:
//
// Paper section 3.1 (PairLayout::BlockPerPair, the CUDA backend): a block of g x g threads per
// pair, each integrating its quadrature points of every piece (a near pair's subdivision, or the
// Duffy triangles), then a reduction of the 36 K doubles of the pair's complex 3 x 3 blocks: warp
// sums, then the warps' partial sums in shared memory added in warp order (the same bits every
// run). The host backends, and ThreadPerPair, run one thread per pair. Traffic per pair: element
// j's nodes (96-216 B, cached across the pairs of an element) and xi_i (24 B); what write stores.
// The quadrature points (g^2 per piece, more near xi) dominate: each evaluates u* and t* (two
// complex exponentials).
constexpr int max_block_lanes = max_gauss * max_gauss;

template <int K, class PairOf, class Write>
void for_pairs(const Exec& exec, PairLayout layout, Index n_pairs, BoundaryView boundary, const Medium& medium,
               const detail::Quadrature& q, int gauss, const double* xi_all, PairOf pair_of, Write write) {
  if (n_pairs <= 0) return;
  if (exec.backend() != Backend::Cuda || layout == PairLayout::ThreadPerPair) {
    forall(exec, n_pairs, [=] TREMOR_LAMBDA(Index item) {
      Index i = 0, j = 0;
      int only = -1;
      pair_of(item, i, j, only);
      const ElementNodes e = boundary.element(j);
      detail::PairSums<K> sums{};
      pair_sums(i, j, boundary, medium, e, xi_all + 3 * static_cast<Size>(i), q, 0, 1, sums, only);
      write(item, i, j, only, e, sums);
    });
    exec.synchronize();
    return;
  }
  constexpr int n_values = 36 * K;  // PairSums<K>: G then H, re/im
  static_assert(sizeof(detail::PairSums<K>) == n_values * sizeof(double));
  // g^2 lanes rounded up to whole warps; the spare lanes of the last warp hold zeros.
  const int lanes = (gauss * gauss + 31) / 32 * 32;
  // partial[warp][value], sized for the largest block as the kernel always was.
  const std::size_t shared_bytes = sizeof(double) * (max_block_lanes / 32) * n_values;
  forall_blocks<max_block_lanes>(exec, n_pairs, lanes, shared_bytes, [=] TREMOR_LAMBDA(const BlockContext& ctx) {
    double* partial = ctx.shared<double>();
    Index i = 0, j = 0;
    int only = -1;
    pair_of(ctx.block, i, j, only);
    const ElementNodes e = boundary.element(j);
    for_each_thread(ctx, lanes, [&](int lane) {
      detail::PairSums<K> sums{};
      pair_sums(i, j, boundary, medium, e, xi_all + 3 * static_cast<Size>(i), q, lane, lanes, sums, only);
      const double* values = &sums.G[0].re;
      for (int k = 0; k < n_values; ++k) warp_sum(lane, values[k], &partial[(lane / 32) * n_values + k]);
    });
    ctx.sync();
    for_each_thread(ctx, 1, [&](int) {
      detail::PairSums<K> sums;
      double* values = &sums.G[0].re;
      for (int k = 0; k < n_values; ++k) {
        double v = partial[k];
        for (int w = 1; w < lanes / 32; ++w) v += partial[w * n_values + k];
        values[k] = v;
      }
      write(ctx.block, i, j, only, e, sums);
    });
  });
  exec.synchronize();
}

// Every pair (node i, element j), i fastest so that neighbouring pairs write neighbouring rows of
// the column-major matrices: 2 x 9 K complex written per pair (288 K B).
template <int K>
void assemble_pairs(const Exec& exec, BoundaryView boundary, const Medium& medium, const IntegrationOptions& options,
                    bool rigid, double rigid_alpha, const Complex* row_sums, const double* xi_all, Complex* H,
                    Complex* G) {
  const Index m = boundary.n_nodes, n = boundary.n_elements;
  const detail::Quadrature q = detail::quadrature_of(options);
  for_pairs<K>(
      exec, options.layout, m * n, boundary, medium, q, options.gauss, xi_all,
      [=] TREMOR_LAMBDA(Index item, Index& i, Index& j, int&) {
        i = item % m;
        j = item / m;
      },
      [=] TREMOR_LAMBDA(Index, Index i, Index j, int, const ElementNodes& e, detail::PairSums<K>& sums) {
        write_pair(i, j, boundary, rigid, rigid_alpha, row_sums, medium, e, q, sums, H, G);
      });
}

// The listed pairs, each written where its target says (integrate_pairs): K the element's nodes,
// or 1 where the targets name one node each. Traffic per pair: its target (28 B) and 18 K
// complex written.
template <int K>
void target_pairs(const Exec& exec, const PairIntegration& p, const PairTargets& targets, double g_scale,
                  Complex* out) {
  const BoundaryView boundary = p.boundary;
  const Medium medium = p.medium;
  const bool rigid = p.free_term == FreeTerm::RigidBody;
  const double rigid_alpha = p.rigid_alpha;
  const Complex* row_sums = p.row_sums;
  const detail::Quadrature q = detail::quadrature_of(p.options);
  const PairTargets t = targets;
  for_pairs<K>(
      exec, p.options.layout, t.n_pairs, boundary, medium, q, p.options.gauss, p.points,
      [=] TREMOR_LAMBDA(Index item, Index& i, Index& j, int& only) {
        i = t.node[item];
        j = t.element[item];
        only = t.only != nullptr ? t.only[item] : -1;
      },
      [=] TREMOR_LAMBDA(Index item, Index i, Index j, int only, const ElementNodes& e, detail::PairSums<K>& sums) {
        add_free_term(i, j, boundary, rigid, rigid_alpha, row_sums, medium, e, q, sums, only);
        Complex* at = out + t.offset[item];
        if (t.column != nullptr && t.column[item] >= 0) {
          const int k = t.column[item];
          for (int a = 0; a < 3; ++a)
            at[a] = k < 3 ? sums.H[3 * a + k] : g_scale * sums.G[3 * a + k - 3];
          return;
        }
        const int nodes = only >= 0 ? 1 : boundary.first_node[j + 1] - boundary.first_node[j];
        const Size stride = t.stride[item];
        for (int b = 0; b < nodes; ++b)
          for (int a = 0; a < 3; ++a)
            for (int c = 0; c < 3; ++c) {
              at[a + (6 * static_cast<Size>(b) + c) * stride] = sums.H[9 * b + 3 * a + c];
              at[a + (6 * static_cast<Size>(b) + 3 + c) * stride] = g_scale * sums.G[9 * b + 3 * a + c];
            }
      });
}

// One work item per (point, chunk of elements), the chunk's elements in order, then the chunks'
// partial sums added in chunk order per point (deterministic, and the same on every backend): a
// few points still fill a GPU. Traffic per item: the chunk's elements' vertices and their nodes'
// u and t (96 + 96 K B each, cached), 3 complex written and read back once.
template <int K>
void interior_points(const Exec& exec, BoundaryView boundary, const Medium& medium, const IntegrationOptions& options,
                     const double* points, Index n_points, const Complex* u, const Complex* t, Complex* out) {
  const Index n = boundary.n_elements;
  if (n_points == 0) return;
  const Index chunks = std::max<Index>(1, std::min<Index>(n, 65536 / n_points));
  check_pairs(n_points, chunks);
  const detail::Quadrature q = detail::quadrature_of(options);
  DeviceArray<Complex> partial(exec, 3 * n_points * chunks);
  Complex* parts = partial.data();
  forall(exec, n_points * chunks, [=] TREMOR_LAMBDA(Index item) {
    const Index p = item % n_points, chunk = item / n_points;
    const Index begin = static_cast<Index>(static_cast<Size>(n) * chunk / chunks);
    const Index end = static_cast<Index>(static_cast<Size>(n) * (chunk + 1) / chunks);
    const double* x = points + 3 * static_cast<Size>(p);
    Complex sum[3];
    for (Index j = begin; j < end; ++j) {
      const ElementNodes e = boundary.element(j);
      detail::PairSums<K> s{};
      detail::regular_pair(medium, boundary.order, e, x, q, KernelPart::Full, true, 0, 1, s);
      const Index first = boundary.first_node[j];
      const int nodes = boundary.first_node[j + 1] - first;
      for (int b = 0; b < nodes; ++b) {
        const Complex* ub = u + 3 * static_cast<Size>(first + b);
        const Complex* tb = t + 3 * static_cast<Size>(first + b);
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) sum[r] += s.G[9 * b + 3 * r + c] * tb[c] - s.H[9 * b + 3 * r + c] * ub[c];
      }
    }
    for (int r = 0; r < 3; ++r) parts[3 * static_cast<Size>(item) + r] = sum[r];
  });
  forall(exec, n_points, [=] TREMOR_LAMBDA(Index p) {
    Complex total[3];
    for (Index chunk = 0; chunk < chunks; ++chunk)
      for (int r = 0; r < 3; ++r) total[r] += parts[3 * (static_cast<Size>(chunk) * n_points + p) + r];
    for (int r = 0; r < 3; ++r) out[3 * static_cast<Size>(p) + r] = total[r];
  });
  exec.synchronize();
}

}  // namespace

void integrate_pairs(const Exec& exec, const PairIntegration& pairs, const PairTargets& targets, double g_scale,
                     Complex* out) {
  TREMOR_CHECK(pairs.free_term != FreeTerm::RigidBody || pairs.row_sums != nullptr || targets.n_pairs == 0,
               "the rigid-body free term needs the static row sums");
  if (targets.only != nullptr || pairs.boundary.order == ElementOrder::Constant) {
    target_pairs<1>(exec, pairs, targets, g_scale, out);
    return;
  }
  switch (pairs.boundary.order) {
    case ElementOrder::Linear: target_pairs<4>(exec, pairs, targets, g_scale, out); break;
    default: target_pairs<9>(exec, pairs, targets, g_scale, out); break;
  }
}

void check_node_count(Index n) { check_pairs(n, n); }

std::vector<Index> first_nodes(const BoundaryMesh& mesh, ElementOrder order) {
  TREMOR_CHECK(mesh.connectivity.size() % 4 == 0, "boundary connectivity needs 4 entries per element");
  TREMOR_CHECK(mesh.mid_nodes.empty() || mesh.mid_nodes.size() == 5 * (mesh.connectivity.size() / 4),
               "second-order boundary nodes need 5 entries per element");
  TREMOR_CHECK(order != ElementOrder::Quadratic || mesh.quadratic(), mesh.source,
               ": quadratic elements need a second-order mesh (6-node triangles, 8- or 9-node quadrilaterals; in "
               "Gmsh, Mesh.ElementOrder = 2)");
  const std::size_t n = mesh.connectivity.size() / 4;
  std::vector<Index> first(n + 1, 0);
  for (std::size_t e = 0; e < n; ++e) {
    const Index ei = static_cast<Index>(e);
    const Size next = static_cast<Size>(first[e]) + nodes_per_element(order, mesh.n_vertices(ei), mesh.n_geometry_nodes(ei));
    TREMOR_CHECK(next <= std::numeric_limits<Index>::max(), "too many boundary-element nodes");
    first[e + 1] = static_cast<Index>(next);
  }
  return first;
}

DeviceBoundary::DeviceBoundary(const Exec& exec, const BoundaryMesh& mesh, ElementOrder order)
    : coordinates_(exec, std::span<const double>(mesh.coordinates)),
      connectivity_(exec, std::span<const Index>(mesh.connectivity)),
      mid_nodes_(exec, std::span<const Index>(mesh.mid_nodes)),
      n_elements_(mesh.n_elements()),
      order_(order) {
  const std::vector<Index> first = first_nodes(mesh, order);
  n_nodes_ = first.back();
  std::vector<Index> element(static_cast<std::size_t>(n_nodes_));
  for (Index e = 0; e < n_elements_; ++e)
    for (Index p = first[static_cast<std::size_t>(e)]; p < first[static_cast<std::size_t>(e) + 1]; ++p)
      element[static_cast<std::size_t>(p)] = e;
  first_node_ = DeviceArray<Index>(exec, std::span<const Index>(first));
  node_element_ = DeviceArray<Index>(exec, std::span<const Index>(element));
}

BoundaryView DeviceBoundary::view() const {
  const Index* mids = mid_nodes_.size() > 0 ? mid_nodes_.data() : nullptr;
  return {coordinates_.data(), connectivity_.data(), mids, n_elements_, order_, first_node_.data(),
          node_element_.data(), n_nodes_};
}

void collocation_points(const Exec& exec, BoundaryView boundary, double* points) {
  forall(exec, boundary.n_nodes, [=] TREMOR_LAMBDA(Index i) {
    const Index j = boundary.node_element[i];
    const ElementNodes nodes = boundary.element(j);
    detail::node_position(boundary.order, nodes, static_cast<int>(i - boundary.first_node[j]),
                          points + 3 * static_cast<Size>(i));
  });
}

// Traffic per (node, chunk) item: the chunk's elements (4 vertices x 24 B, cached), 9 complex
// written; the sum over chunks reads them back in order.
DeviceArray<Complex> static_row_sums(const Exec& exec, BoundaryView boundary, const Medium& medium,
                                     const IntegrationOptions& options) {
  const Index m = boundary.n_nodes, n = boundary.n_elements;
  const Index chunks = n < 64 ? (n > 0 ? n : 1) : 64;
  check_pairs(m, chunks);
  const detail::Quadrature q = detail::quadrature_of(options);
  DeviceArray<double> points(exec, 3 * m);
  collocation_points(exec, boundary, points.data());
  DeviceArray<Complex> partial(exec, 9 * m * chunks);
  const double* xi_all = points.data();
  Complex* parts = partial.data();
  forall(exec, m * chunks, [=] TREMOR_LAMBDA(Index item) {
    const Index i = item % m, c = item / m;
    const Index begin = static_cast<Index>(static_cast<Size>(n) * c / chunks);
    const Index end = static_cast<Index>(static_cast<Size>(n) * (c + 1) / chunks);
    const Index own = boundary.node_element[i];
    detail::PairSums<1> sums{};
    for (Index j = begin; j < end; ++j) {
      if (j == own) continue;
      const ElementNodes e = boundary.element(j);
      detail::regular_pair(medium, ElementOrder::Constant, e, xi_all + 3 * static_cast<Size>(i), q,
                           KernelPart::Static, false, 0, 1, sums);
    }
    for (int k = 0; k < 9; ++k) parts[9 * static_cast<Size>(item) + k] = sums.H[k];
  });
  DeviceArray<Complex> sums(exec, 9 * m);
  Complex* out = sums.data();
  forall(exec, m, [=] TREMOR_LAMBDA(Index i) {
    Complex total[9];
    for (Index c = 0; c < chunks; ++c)
      for (int k = 0; k < 9; ++k) total[k] += parts[9 * (static_cast<Size>(c) * m + i) + k];
    for (int k = 0; k < 9; ++k) out[9 * static_cast<Size>(i) + k] = total[k];
  });
  exec.synchronize();
  return sums;
}

void assemble(const Exec& exec, BoundaryView boundary, const Medium& medium, const IntegrationOptions& options,
              FreeTerm free_term, double rigid_alpha, const Complex* row_sums, Complex* H, Complex* G) {
  const Index m = boundary.n_nodes;
  check_pairs(m, m);
  check_pairs(m, boundary.n_elements);
  TREMOR_CHECK(free_term != FreeTerm::RigidBody || row_sums != nullptr || m == 0,
               "the rigid-body free term needs the static row sums");
  DeviceArray<double> points(exec, 3 * m);
  collocation_points(exec, boundary, points.data());
  const bool rigid = free_term == FreeTerm::RigidBody;
  switch (boundary.order) {
    case ElementOrder::Constant:
      assemble_pairs<1>(exec, boundary, medium, options, rigid, rigid_alpha, row_sums, points.data(), H, G);
      break;
    case ElementOrder::Linear:
      assemble_pairs<4>(exec, boundary, medium, options, rigid, rigid_alpha, row_sums, points.data(), H, G);
      break;
    case ElementOrder::Quadratic:
      assemble_pairs<9>(exec, boundary, medium, options, rigid, rigid_alpha, row_sums, points.data(), H, G);
      break;
  }
}

void interior_displacements(const Exec& exec, BoundaryView boundary, const Medium& medium,
                            const IntegrationOptions& options, const double* points, Index n_points,
                            const Complex* u, const Complex* t, Complex* out) {
  switch (boundary.order) {
    case ElementOrder::Constant: interior_points<1>(exec, boundary, medium, options, points, n_points, u, t, out); break;
    case ElementOrder::Linear: interior_points<4>(exec, boundary, medium, options, points, n_points, u, t, out); break;
    case ElementOrder::Quadratic:
      interior_points<9>(exec, boundary, medium, options, points, n_points, u, t, out);
      break;
  }
}

}  // namespace tremor::bem
