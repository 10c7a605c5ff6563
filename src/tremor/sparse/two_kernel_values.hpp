#pragma once
// Kernel 2 of the two-kernel assembly (two_kernel.hpp; paper section IV.A.2) and the assembly
// entry points, templated on the value type; two_kernel_float.cpp and two_kernel_double.cpp
// instantiate them (one nvcc translation unit per precision keeps compile times apart).
#include <chrono>
#include <span>
#include <vector>

#include "tremor/backend/atomic.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/backend/forall_blocks.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/search.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/fem/point_materials.hpp"
#include "tremor/sparse/element_kernels.hpp"
#include "tremor/sparse/two_kernel.hpp"
#include "tremor/sparse/two_kernel_detail.hpp"

namespace tremor::sparse::detail {

// Where the value of entry (row node r, its k-th neighbour, components i, j) lives, per format.
enum class SlotOrder {
  NodalBlocks,  // block CSR: block (offsets[r] + k), row-major within the block
  ScalarRows,   // CSR and COO: row r * dim + i starts at offsets[r] dim^2 + i count dim
  EllColumns,   // ELL: slot k * dim + j of row r * dim + i, column-major
};

struct ValueSlots {
  SlotOrder order = SlotOrder::ScalarRows;
  int dim = 3;
  Size n_rows = 0;  // scalar rows (ELL's column stride)

  // row_begin, count: the row node's place and length in the nodal pattern.
  TREMOR_HOST_DEVICE Size operator()(Size row_begin, Size count, Index row_node, Size k, int i, int j) const {
    const Size d = dim;
    switch (order) {
      case SlotOrder::NodalBlocks: return (row_begin + k) * d * d + i * d + j;
      case SlotOrder::ScalarRows: return row_begin * d * d + i * count * d + k * d + j;
      case SlotOrder::EllColumns: break;
    }
    return (k * d + j) * n_rows + static_cast<Size>(row_node) * d + i;
  }
};

struct PatternView {
  const Size* offsets;
  const Index* neighbours;
};

// The place of `node` in the sorted list[0, count) by bisection: the paper's search within the
// row's short target range (7 to 27 neighbours for hex8) rather than the whole matrix. The
// pattern was built from the same connectivity, so the node is there.
TREMOR_HOST_DEVICE inline Size find_neighbour(const Index* list, Size count, Index node) {
  return lower_bound(list, Size{0}, count, node);
}

template <class Real>
TREMOR_HOST_DEVICE inline void add_value(Real* target, Real value, bool atomic) {
  if (atomic)
    atomic_add(target, value);
  else
    *target += value;
}

// An element's gradients at every quadrature point fit a small slice of shared memory (at most
// 256 doubles; hex8: 8 points x 8 nodes x 3): kernel 2 then integrates each node pair's block
// directly (add_stiffness_blocks) instead of forming K_e.
template <class E>
constexpr int stiffness_points = fem::rule_points<E>(E::stiffness_degree);
template <class E>
constexpr bool direct_blocks = stiffness_points<E> * E::n_nodes * E::dim <= 256;

// Block (a, b), a <= b, of fem::element_stiffness's K_e from the gradients g[q][node][dim] and
// scale[q] = w_q det J_q t, into block[r * dim + c] = K_e(a dim + r, b dim + c): each entry by the
// same operations in the same order as that function (it integrates the upper triangle point by
// point, the stress of the row DOF first, and mirrors it), so the values are its bits. Node a's
// stress for component r is formed once per point for the block's row rather than once per
// entry; one row's stress at a time (not the block's three) keeps the kernel's registers down.
template <class E>
TREMOR_HOST_DEVICE void stiffness_block(const double* g, const double* scale,
                                        const fem::AnisotropicLaw<E::dim, double>& tangent, int a, int b, double* block) {
  constexpr int dim = E::dim, nv = fem::voigt_size<dim>, per_point = E::n_nodes * dim;
  for (int k = 0; k < dim * dim; ++k) block[k] = 0.0;
  for (int q = 0; q < stiffness_points<E>; ++q) {
    const double* ga = g + q * per_point + a * dim;
    const double* gb = g + q * per_point + b * dim;
    for (int r = 0; r < dim; ++r) {
      double column[nv], sigma[nv];
      fem::strain_column<dim>(ga, r, column);
      tangent.stress(column, sigma);
      for (int c = 0; c < dim; ++c) {
        if (a == b && r > c) continue;  // the lower triangle mirrors the upper one below
        fem::strain_column<dim>(gb, c, column);
        double sum = 0.0;
        for (int k = 0; k < nv; ++k) sum += column[k] * sigma[k];
        block[r * dim + c] += scale[q] * sum;
      }
    }
  }
  if (a == b)
    for (int r = 0; r < dim; ++r)
      for (int c = 0; c < r; ++c) block[r * dim + c] = block[c * dim + r];
}

// The upper node pairs (a, b), a <= b, of an element of n nodes, numbered row by row: pair p of
// (0, 0), (0, 1), ..., (0, n - 1), (1, 1), ...; a thread of kernel 2's direct path each.
template <class E>
constexpr int upper_pairs = E::n_nodes * (E::n_nodes + 1) / 2;

TREMOR_HOST_DEVICE inline void upper_pair(int n, int p, int& a, int& b) {
  a = 0;
  while (p >= n - a) p -= n - a++;
  b = a + p;
}

// Elements per thread block of the direct path: as many whole elements as 192 threads hold. The
// blocks' registers (hex8: 152 a thread, so 13 warps an SM) then fit two blocks of 6 warps an SM
// (hex8: 5 elements, 180 threads), where 256 threads (8 warps) would fit one.
constexpr int pair_block_threads = 192;
template <class E>
constexpr int pair_block_elements = upper_pairs<E> < pair_block_threads ? pair_block_threads / upper_pairs<E> : 1;

// Kernel 2's direct path (direct_blocks<E>): a thread block holds pair_block_elements<E> elements
// of `list` (all n of the element block when list is null) and their threads cooperate in two
// phases through shared memory:
//   1. a thread per element and quadrature point computes the physical gradients and the scale
//      w_q det J_q t there (fem::physical_gradients, as fem::element_stiffness does) into the
//      element's slice: Q x n_nodes x dim gradients and Q scales;
//   2. a thread per element and upper node pair (a, b) integrates block (a, b) (stiffness_block:
//      fem::element_stiffness's operations in its order, so the host values are its bits), finds
//      the pair in both rows' neighbour lists and adds the block at (a, b) and, transposed, at
//      (b, a): each of the n_nodes^2 dim^2 values of f K_e added once, none computed twice.
// On the host the blocks, their elements and each phase's threads run in order, so each global
// entry sums its elements' values element by element (Serial with atomics: in mesh order).
// Per element, hex8 (Q = 8, 36 pairs, 4-byte indices, double):
//   flops: a block row per point 36 multiply-adds for node a's stress (D 6 x 6, the unit strain's
//     zeros included: fem::element_stiffness multiplies them) and 3 entries x (6 multiply-adds + a
//     scaled add), 2 or 1 entries in the diagonal block's rows, so 28 x 8 x 3 x 57 + 8 x 8 x (57 +
//     50 + 43) ~ 48k multiply-adds, plus ~1.6k for the gradients: for 1M hex8 ~2.9 ms of the
//     H200's vector FP64 (34 TFLOP/s);
//   registers (ptxas, sm_90): 152 a thread, no local memory (D's 36 entries are kept in registers
//     across the points); 5 elements (180 threads, 6 warps) a block, two blocks an SM;
//   shared memory: (Q n_nodes dim + Q) doubles = 1600 B an element, 8000 B a block;
//   loads (mostly L1/L2 hits): the 8 nodes and their 24 coordinates (192 B) read by the Q point
//     threads, D (288 B) by every thread, per pair the two rows' offsets (32 B) and two bisections
//     over 27 neighbours (~5 dependent 4-byte reads each);
//   atomics: 576 read-modify-writes of sizeof(Real), 18 a thread, to 2 x 3 runs of 3 adjacent
//     values (9 adjacent in block CSR). These are the estimated bound: 576M atomics for 1M hex8
//     (~4 ms at an L2 atomic rate of ~150G a second; kernel 2 measured 8.3 ms on an H200, 70G
//     atomics a second, docs/benchmarks.md "Assembly") into a values array (CSR
//     double: 1M nodes x 27 neighbours x 9 x 8 B = 1.9 GB) far larger than L2, each value read and
//     written at least once (>= 0.8 ms of DRAM) and more where the elements sharing it are further
//     apart in the launch than L2 holds; the flops can run under them on other warps.
template <class E, class Real>
void add_stiffness_blocks(const Exec& exec, fem::ElementArrays in, Index n, const Index* list, PatternView pattern,
                          ValueSlots slots, bool atomic, Real* values) {
  constexpr int dim = E::dim, n_nodes = E::n_nodes, n_dof = n_nodes * dim;
  constexpr int Q = stiffness_points<E>, per_point = n_nodes * dim, per_element = Q * per_point + Q;
  constexpr int P = upper_pairs<E>, block_elements = pair_block_elements<E>;
  static_assert(P <= pair_block_threads, "a thread block holds at least one element's node pairs");
  const fem::StiffnessRule<E> rule = fem::stiffness_rule<E>();
  const Index n_blocks = (n + block_elements - 1) / block_elements;
  const std::size_t shared = static_cast<std::size_t>(block_elements) * per_element * sizeof(double);
  const int threads = block_elements * P;
  forall_blocks<pair_block_threads>(exec, n_blocks, threads, shared, [=] TREMOR_LAMBDA(const BlockContext& ctx) {
    const Index first = ctx.block * block_elements;
    const int count = static_cast<int>(n - first < block_elements ? n - first : block_elements);
    // [element 0: gradients g[q][node][i], scales[q] | element 1: ... ]
    double* slices = ctx.shared<double>();
    for_each_thread(ctx, count * Q, [&](int t) {
      const int l = t / Q, q = t % Q;
      const Index item = first + l;
      const Index e = list ? list[item] : item;
      double x[n_dof], g[per_point];
      fem::gather_coordinates<E>(in.coordinates, in.connectivity + static_cast<Size>(e) * n_nodes, x);
      const double det = fem::physical_gradients<E>(x, rule.point(q), g);
      double* slice = slices + l * per_element;
      for (int k = 0; k < per_point; ++k) slice[q * per_point + k] = g[k];
      slice[Q * per_point + q] = rule.weights[q] * det * in.thickness[in.section[e]];
    });
    ctx.sync();
    for_each_thread(ctx, count * P, [&](int t) {
      const int l = t / P;
      int a, b;
      upper_pair(n_nodes, t % P, a, b);
      const Index item = first + l;
      const Index e = list ? list[item] : item;
      const Index* nodes = in.connectivity + static_cast<Size>(e) * n_nodes;
      const double* slice = slices + l * per_element;
      double block[dim * dim];
      stiffness_block<E>(slice, slice + Q * per_point, in.material.tangent<dim>(in.section[e]), a, b, block);
      const double f = in.factor[e];
      // f x the block at row node `row`'s entry for `column`, transposed for block (b, a) (K_e is
      // symmetric: block (b, a) is block (a, b) transposed).
      const auto add = [&](Index row, Index column, bool transposed) {
        const Size begin = pattern.offsets[row];
        const Size count = pattern.offsets[row + 1] - begin;
        const Size k = find_neighbour(pattern.neighbours + begin, count, column);
        for (int r = 0; r < dim; ++r)
          for (int c = 0; c < dim; ++c)
            add_value(values + (transposed ? slots(begin, count, row, k, c, r) : slots(begin, count, row, k, r, c)),
                      static_cast<Real>(f * block[r * dim + c]), atomic);
      };
      add(nodes[a], nodes[b], false);
      if (b != a) add(nodes[b], nodes[a], true);
    });
  });
}

// Kernel 2's K_e path (elements too large for direct_blocks<E>): one thread per element,
// fem::element_stiffness into the thread's memory or its workspace slot (element_kernels.hpp),
// then scattered, each of the n_nodes^2 node pairs costing one bisection in the row node's
// neighbour list. Traffic per element: n_nodes indices (4 B), n_nodes * dim coordinates (8 B), D
// (n_voigt^2 x 8 B), thickness, section, factor; per node pair the row's offsets (16 B) and a
// bisection over its neighbours (log2(count) 4 B reads, cached); n_dof^2 value read-modify-writes
// of sizeof(Real) (plus n_dof^2 workspace doubles for elements larger than tet10).
template <class E, class Real>
void add_stiffness_matrices(const Exec& exec, fem::ElementArrays in, Index n, const Index* list, PatternView pattern,
                            ValueSlots slots, bool atomic, Real* values, Workspace& workspace) {
  constexpr int dim = E::dim, n_nodes = E::n_nodes, n_dof = n_nodes * dim, N = n_dof * n_dof;
  const fem::StiffnessRule<E> rule = fem::stiffness_rule<E>();
  const Size per_item = fits_local<N> ? 0 : N;
  const Index chunk = workspace.chunk_items(n, per_item);
  double* scratch = workspace.reserve(per_item * chunk);
  for (Index begin = 0; begin < n; begin += chunk) {
    const Index count = n - begin < chunk ? n - begin : chunk;
    forall(exec, count, [=] TREMOR_LAMBDA(Index i) {
      const Index item = begin + i;
      const Index e = list ? list[item] : item;
      const Index* nodes = in.connectivity + static_cast<Size>(e) * n_nodes;
      double x[n_dof];
      fem::gather_coordinates<E>(in.coordinates, nodes, x);
      double local[local_doubles<N>];
      double* K = fits_local<N> ? local : scratch + static_cast<Size>(i) * N;
      const int s = in.section[e];
      fem::element_stiffness<E>(x, in.material.voigt(s), in.thickness[s], rule, K);
      const double f = in.factor[e];
      for (int a = 0; a < n_nodes; ++a) {
        const Index row_node = nodes[a];
        const Size row_begin = pattern.offsets[row_node];
        const Size row_count = pattern.offsets[row_node + 1] - row_begin;
        for (int b = 0; b < n_nodes; ++b) {
          const Size k = find_neighbour(pattern.neighbours + row_begin, row_count, nodes[b]);
          for (int r = 0; r < dim; ++r)
            for (int c = 0; c < dim; ++c)
              add_value(values + slots(row_begin, row_count, row_node, k, r, c),
                        static_cast<Real>(f * K[(a * dim + r) * n_dof + b * dim + c]), atomic);
        }
      }
    });
  }
}

// Stiffness values of the n elements of `list` (all n of the block when list is null), plain adds
// for one colour, atomics otherwise. Two paths with the same values: direct (small elements,
// direct_blocks<E>: add_stiffness_blocks, each node pair's dim x dim block integrated once for
// both orders, K_e being symmetric, by a thread of its own from the element's gradients in shared
// memory, and added at once: no K_e array, which would be read and written once per quadrature
// point) and K_e (larger elements: add_stiffness_matrices).
template <class E, class Real>
void add_stiffness(const Exec& exec, fem::ElementArrays in, Index n, const Index* list, PatternView pattern,
                   ValueSlots slots, bool atomic, Real* values, Workspace& workspace) {
  if constexpr (direct_blocks<E>)
    add_stiffness_blocks<E, Real>(exec, in, n, list, pattern, slots, atomic, values);
  else
    add_stiffness_matrices<E, Real>(exec, in, n, list, pattern, slots, atomic, values, workspace);
}

// Consistent mass values: as add_stiffness with the scalar mass M_ab (fem::consistent_mass with
// rho * thickness), added to the dim diagonal entries (r, r) of each node pair's block: the DOF
// matrix M_ab delta_rc, whose off-diagonal block entries stay structural zeros.
// Traffic per element: n_nodes indices, n_nodes * dim coordinates, density, thickness, section;
// per node pair the offsets and a bisection; n_nodes^2 dim value read-modify-writes.
template <class E, class Real>
void add_mass(const Exec& exec, fem::ElementArrays in, Index n, const Index* list, PatternView pattern, ValueSlots slots,
              bool atomic, Real* values, Workspace& workspace) {
  constexpr int dim = E::dim, n_nodes = E::n_nodes, n_dof = n_nodes * dim, N = n_nodes * n_nodes;
  const fem::MassRule<E> rule = fem::mass_rule<E>();
  const Size per_item = fits_local<N> ? 0 : N;
  const Index chunk = workspace.chunk_items(n, per_item);
  double* scratch = workspace.reserve(per_item * chunk);
  for (Index begin = 0; begin < n; begin += chunk) {
    const Index count = n - begin < chunk ? n - begin : chunk;
    forall(exec, count, [=] TREMOR_LAMBDA(Index i) {
      const Index item = begin + i;
      const Index e = list ? list[item] : item;
      const Index* nodes = in.connectivity + static_cast<Size>(e) * n_nodes;
      double x[n_dof];
      fem::gather_coordinates<E>(in.coordinates, nodes, x);
      double local[local_doubles<N>];
      double* M = fits_local<N> ? local : scratch + static_cast<Size>(i) * N;
      const int s = in.section[e];
      fem::consistent_mass<E>(x, in.density[s] * in.thickness[s], rule, M);
      for (int a = 0; a < n_nodes; ++a) {
        const Index row_node = nodes[a];
        const Size row_begin = pattern.offsets[row_node];
        const Size row_count = pattern.offsets[row_node + 1] - row_begin;
        for (int b = 0; b < n_nodes; ++b) {
          const Size k = find_neighbour(pattern.neighbours + row_begin, row_count, nodes[b]);
          const Real value = static_cast<Real>(M[a * n_nodes + b]);
          for (int r = 0; r < dim; ++r)
            add_value(values + slots(row_begin, row_count, row_node, k, r, r), value, atomic);
        }
      }
    });
  }
}

// Lumped mass per DOF: one thread per element, fem::lumped_mass (rho * thickness, the element's
// lumping rule) added to the first component of each of its nodes (copied to the others after:
// summed by atomics in each component's own order they would differ in their last bits, and the
// integrator keeps one coefficient per node only where its components' are equal); no pattern.
// Traffic per element: n_nodes indices, n_nodes * dim coordinates, density, thickness, section;
// n_nodes value read-modify-writes of sizeof(Real).
// With `weighted`, each element's mass is scaled by its damping alpha: the lumped damping C.
// With `density` (GLL elements taking a material field at their nodes, fem/point_materials.hpp),
// each element's density at its nodes over its row's, n_nodes per element: the mass rule's points.
template <class E, class Real>
void add_lumped(const Exec& exec, fem::ElementArrays in, Index n, const Index* list, bool atomic, bool weighted,
                Real* values, const double* density = nullptr) {
  constexpr int dim = E::dim, n_nodes = E::n_nodes, n_dof = n_nodes * dim;
  const fem::LumpingRule<E> rule = fem::lumping_rule<E>();
  forall(exec, n, [=] TREMOR_LAMBDA(Index item) {
    const Index e = list ? list[item] : item;
    const Index* nodes = in.connectivity + static_cast<Size>(e) * n_nodes;
    double x[n_dof], m[n_nodes];
    fem::gather_coordinates<E>(in.coordinates, nodes, x);
    const int s = in.section[e];
    fem::lumped_mass<E>(x, in.density[s] * in.thickness[s], rule, m,
                        density ? density + static_cast<Size>(e) * n_nodes : nullptr);
    const double w = weighted ? in.alpha[e] : 1.0;
    for (int a = 0; a < n_nodes; ++a)
      add_value(values + static_cast<Size>(nodes[a]) * dim, static_cast<Real>(w * m[a]), atomic);
  });
}

// Runs launch(block, n, list, atomic) for every launch of the strategy: Colouring, colour by
// colour and block by block within a colour, the colour's list; Atomics, block by block, all of
// it (list null).
template <class Launch>
void for_each_launch(const fem::DeviceElements& elements, RaceStrategy strategy, Launch&& launch) {
  TREMOR_CHECK(strategy == RaceStrategy::Atomics || elements.n_colours > 0 || elements.n_elements() == 0,
               "assembly by colouring: the device elements were built without a colouring");
  if (strategy == RaceStrategy::Atomics) {
    for (const fem::DeviceElementBlock& block : elements.blocks)
      if (block.n_elements > 0) launch(block, block.n_elements, static_cast<const Index*>(nullptr), true);
    return;
  }
  for (int c = 0; c < elements.n_colours; ++c)
    for (const fem::DeviceElementBlock& block : elements.blocks)
      if (block.n_in(c) > 0) launch(block, block.n_in(c), block.in(c), false);
}

// Kernel 2 for a global matrix into values (zeroed by the caller).
template <class Real>
void add_matrix_values(const Exec& exec, const fem::DeviceElements& elements, GlobalMatrix matrix, RaceStrategy strategy,
                       PatternView pattern, ValueSlots slots, Real* values) {
  Workspace workspace(exec);
  for_each_launch(elements, strategy, [&](const fem::DeviceElementBlock& block, Index n, const Index* list, bool atomic) {
    fem::with_element(block.type, block.order, [&](auto element) {
      using E = decltype(element);
      if (matrix == GlobalMatrix::Stiffness)
        add_stiffness<E, Real>(exec, fem::arrays_of(elements, block), n, list, pattern, slots, atomic, values, workspace);
      else
        add_mass<E, Real>(exec, fem::arrays_of(elements, block), n, list, pattern, slots, atomic, values, workspace);
    });
  });
}

template <class Real>
void zero(const Exec& exec, Real* values, Index n) {
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) { values[i] = Real(0); });
}

// Synchronised wall-clock laps of the kernels, when the caller asked for times.
class Stopwatch {
 public:
  Stopwatch(const Exec& exec, bool enabled) : exec_(exec), enabled_(enabled) { restart(); }
  void restart() {
    if (!enabled_) return;
    exec_.synchronize();
    start_ = std::chrono::steady_clock::now();
  }
  double elapsed_ms() const {
    if (!enabled_) return 0.0;
    exec_.synchronize();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  const Exec& exec_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_{};
};

// Sizes the formats can hold: rows and entries within one array's 2^31 - 1.
inline void check_sizes(const NodalPattern& pattern, Size stored, const char* format) {
  TREMOR_CHECK(stored <= Size(2147483647), "assembly into ", format, ": ", stored, " stored entries (",
               pattern.n_entries(), " node pairs x ", pattern.dim * pattern.dim,
               ") exceed the 2^31 - 1 entries of one array");
}

}  // namespace tremor::sparse::detail

namespace tremor::sparse {

template <class Real>
DeviceCoo<Real> assemble_coo(const Exec& exec, const fem::DeviceElements& elements, GlobalMatrix matrix,
                             RaceStrategy strategy, AssemblyTimes* times) {
  fem::check_space(exec, elements, "assembly into COO");
  detail::Stopwatch watch(exec, times != nullptr);
  DeviceCoo<Real> out;
  out.n_rows = elements.n_dofs();
  const NodalPattern pattern = detail::build_nodal_pattern(exec, elements, [&](const NodalPattern& p) {
    detail::check_sizes(p, p.nnz(), "COO");
    out.rows = DeviceArray<Index>(exec, static_cast<Index>(p.nnz()));
    out.columns = DeviceArray<Index>(exec, static_cast<Index>(p.nnz()));
    return detail::ScalarIndexSink{out.columns.data(), out.rows.data(), p.dim};
  });
  const auto nnz = static_cast<Index>(pattern.nnz());
  if (times) times->pattern_ms = watch.elapsed_ms();
  out.values = DeviceArray<Real>(exec, nnz);
  watch.restart();
  detail::zero(exec, out.values.data(), nnz);
  detail::add_matrix_values(exec, elements, matrix, strategy, {pattern.offsets.data(), pattern.neighbours.data()},
                            {detail::SlotOrder::ScalarRows, elements.dim, out.n_rows}, out.values.data());
  if (times) times->values_ms = watch.elapsed_ms();
  return out;
}

template <class Real>
DeviceCsr<Real> assemble_csr(const Exec& exec, const fem::DeviceElements& elements, GlobalMatrix matrix,
                             RaceStrategy strategy, AssemblyTimes* times) {
  fem::check_space(exec, elements, "assembly into CSR");
  detail::Stopwatch watch(exec, times != nullptr);
  DeviceCsr<Real> out;
  out.n_rows = elements.n_dofs();
  const NodalPattern pattern = detail::build_nodal_pattern(exec, elements, [&](const NodalPattern& p) {
    detail::check_sizes(p, p.nnz(), "CSR");
    out.columns = DeviceArray<Index>(exec, static_cast<Index>(p.nnz()));
    return detail::ScalarIndexSink{out.columns.data(), nullptr, p.dim};
  });
  const auto nnz = static_cast<Index>(pattern.nnz());
  out.offsets = DeviceArray<Size>(exec, out.n_rows + 1);
  detail::scalar_row_offsets(exec, pattern, out.offsets.data());
  if (times) times->pattern_ms = watch.elapsed_ms();
  out.values = DeviceArray<Real>(exec, nnz);
  watch.restart();
  detail::zero(exec, out.values.data(), nnz);
  detail::add_matrix_values(exec, elements, matrix, strategy, {pattern.offsets.data(), pattern.neighbours.data()},
                            {detail::SlotOrder::ScalarRows, elements.dim, out.n_rows}, out.values.data());
  if (times) times->values_ms = watch.elapsed_ms();
  return out;
}

template <class Real>
EllMatrix<Real> assemble_ell(const Exec& exec, const fem::DeviceElements& elements, GlobalMatrix matrix,
                             RaceStrategy strategy, AssemblyTimes* times) {
  fem::check_space(exec, elements, "assembly into ELL");
  detail::Stopwatch watch(exec, times != nullptr);
  const NodalPattern pattern = build_nodal_pattern(exec, elements);
  const Size width = static_cast<Size>(pattern.max_neighbours) * elements.dim;
  const Size stored = width * elements.n_dofs();
  detail::check_sizes(pattern, stored, "ELL");
  EllMatrix<Real> out;
  out.n_rows = elements.n_dofs();
  out.width = static_cast<Index>(width);
  out.nnz = pattern.nnz();
  out.columns = DeviceArray<Index>(exec, static_cast<Index>(stored));
  detail::ell_indices(exec, pattern, pattern.max_neighbours, out.columns.data());
  if (times) times->pattern_ms = watch.elapsed_ms();
  out.values = DeviceArray<Real>(exec, static_cast<Index>(stored));
  watch.restart();
  detail::zero(exec, out.values.data(), static_cast<Index>(stored));
  detail::add_matrix_values(exec, elements, matrix, strategy, {pattern.offsets.data(), pattern.neighbours.data()},
                            {detail::SlotOrder::EllColumns, elements.dim, out.n_rows}, out.values.data());
  if (times) times->values_ms = watch.elapsed_ms();
  return out;
}

template <class Real>
DeviceBlockCsr<Real> assemble_block_csr(const Exec& exec, const fem::DeviceElements& elements, GlobalMatrix matrix,
                                        RaceStrategy strategy, AssemblyTimes* times) {
  fem::check_space(exec, elements, "assembly into block CSR");
  detail::Stopwatch watch(exec, times != nullptr);
  NodalPattern pattern = build_nodal_pattern(exec, elements);
  detail::check_sizes(pattern, pattern.nnz(), "block CSR");
  if (times) times->pattern_ms = watch.elapsed_ms();
  DeviceBlockCsr<Real> out;
  out.block = elements.dim;
  out.n_block_rows = elements.n_nodes;
  out.values = DeviceArray<Real>(exec, static_cast<Index>(pattern.nnz()));
  watch.restart();
  detail::zero(exec, out.values.data(), out.values.size());
  detail::add_matrix_values(exec, elements, matrix, strategy, {pattern.offsets.data(), pattern.neighbours.data()},
                            {detail::SlotOrder::NodalBlocks, elements.dim, elements.n_dofs()}, out.values.data());
  if (times) times->values_ms = watch.elapsed_ms();
  out.offsets = std::move(pattern.offsets);  // the nodal pattern is the block CSR index
  out.columns = std::move(pattern.neighbours);
  return out;
}

namespace detail {

template <class Real>
DeviceArray<Real> assemble_lumped(const Exec& exec, const fem::DeviceElements& elements, RaceStrategy strategy,
                                  bool weighted, AssemblyTimes* times) {
  fem::check_space(exec, elements, weighted ? "lumped damping assembly" : "lumped mass assembly");
  DeviceArray<Real> out(exec, elements.n_dofs());
  Stopwatch watch(exec, times != nullptr);
  zero(exec, out.data(), out.size());
  Real* values = out.data();
  // Per block whose elements take a material field at their nodes: their density there over the row's.
  std::vector<DeviceArray<double>> density(elements.blocks.size());
  for (std::size_t b = 0; b < elements.blocks.size(); ++b) {
    const fem::PointMaterials points = fem::point_materials(elements, elements.blocks[b]);
    if (points.empty()) continue;
    const std::vector<double> ratio =
        fem::density_ratios(points, elements.fields, elements.blocks[b].section.to_host());
    density[b] = DeviceArray<double>(exec, std::span<const double>(ratio));
  }
  for_each_launch(elements, strategy, [&](const fem::DeviceElementBlock& block, Index n, const Index* list, bool atomic) {
    const DeviceArray<double>& ratio = density[static_cast<std::size_t>(&block - elements.blocks.data())];
    fem::with_element(block.type, block.order, [&](auto element) {
      using E = decltype(element);
      add_lumped<E, Real>(exec, fem::arrays_of(elements, block), n, list, atomic, weighted, values,
                          ratio.size() > 0 ? ratio.data() : nullptr);
    });
  });
  const int dim = elements.dim;
  forall(exec, elements.n_dofs() / dim, [=] TREMOR_LAMBDA(Index node) {
    for (int c = 1; c < dim; ++c) values[static_cast<Size>(node) * dim + c] = values[static_cast<Size>(node) * dim];
  });
  if (times) {
    times->pattern_ms = 0.0;
    times->values_ms = watch.elapsed_ms();
  }
  return out;
}

}  // namespace detail

template <class Real>
DeviceArray<Real> assemble_lumped_mass(const Exec& exec, const fem::DeviceElements& elements, RaceStrategy strategy,
                                       AssemblyTimes* times) {
  return detail::assemble_lumped<Real>(exec, elements, strategy, false, times);
}

template <class Real>
DeviceArray<Real> assemble_lumped_damping(const Exec& exec, const fem::DeviceElements& elements, RaceStrategy strategy,
                                          AssemblyTimes* times) {
  return detail::assemble_lumped<Real>(exec, elements, strategy, true, times);
}

}  // namespace tremor::sparse
