#include "tremor/explicit/matrix_free_host.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/linear_evaluation.hpp"

namespace tremor::explicit_fe {

namespace {

// Inlined into the instruction set's clone that calls it (a call would run the baseline's code).
#define TREMOR_BATCH_INLINE __attribute__((always_inline))

// W values of type S, one per element of a batch, in one GCC vector: the arithmetic operators act
// lane by lane, a scalar is broadcast (so that LinearEvaluation's T(0), T(0.5) and weights mean
// the same on a batch), and a batch of doubles converts to one of floats lane by lane.
template <class S, int W>
struct Lanes {
  typedef S V __attribute__((vector_size(sizeof(S) * W)));
  V v;

  Lanes() = default;
  template <class A>
    requires std::is_arithmetic_v<A>
  constexpr Lanes(A s) : v(V{} + static_cast<S>(s)) {}  // implicit, as a scalar T converts
  constexpr explicit Lanes(V values) : v(values) {}
  template <class O>
    requires(!std::is_same_v<O, S>)
  explicit Lanes(const Lanes<O, W>& other) : v(__builtin_convertvector(other.v, V)) {}

  friend Lanes operator+(Lanes a, Lanes b) { return Lanes(a.v + b.v); }
  friend Lanes operator-(Lanes a, Lanes b) { return Lanes(a.v - b.v); }
  friend Lanes operator*(Lanes a, Lanes b) { return Lanes(a.v * b.v); }
  friend Lanes operator/(Lanes a, Lanes b) { return Lanes(a.v / b.v); }
  friend Lanes operator-(Lanes a) { return Lanes(-a.v); }
  Lanes& operator+=(Lanes b) { return v += b.v, *this; }
  Lanes& operator-=(Lanes b) { return v -= b.v, *this; }
};

// A batch's element nodes: per element node and component one vector of the batch's values.
template <class E, class S, int W>
using BatchValues = Lanes<S, W>[E::n_nodes][E::dim];

// N values of S in one GCC vector: a tile node's row (its dim components and zeros to a power of
// two, P) or a batch's lanes.
template <class S, int N>
struct VecOf {
  typedef S type __attribute__((vector_size(sizeof(S) * N)));
};
template <class S, int N>
using Vec = typename VecOf<S, N>::type;

// The shuffles between rows and lanes (GCC lowers each to the clone's permutes): out[i] = the i-th
// value of a then b at Pick::at(i). (Vectors by reference: a function taking or returning a wider
// vector than the baseline's registers is an ABI warning, even when inlined.)
template <class Pick, class Out, class V, std::size_t... I>
TREMOR_BATCH_INLINE inline void pick(Out& out, const V& a, const V& b, std::index_sequence<I...>) {
  out = __builtin_shufflevector(a, b, Pick::at(I)...);
}
template <class Pick, class V>
TREMOR_BATCH_INLINE inline void pick(V& out, const V& a, const V& b) {
  pick<Pick>(out, a, b, std::make_index_sequence<sizeof(V) / sizeof(a[0])>());
}
struct Concat {  // a then b
  static constexpr int at(std::size_t i) { return static_cast<int>(i); }
};
template <class S, int P, int N>  // rows[at[0]] to rows[at[N - 1]], one after the other
TREMOR_BATCH_INLINE inline void concat_rows(Vec<S, N * P>& out, const Vec<S, P>* rows, const int* at) {
  if constexpr (N == 1) {
    out = rows[at[0]];
  } else {
    Vec<S, N * P / 2> lo, hi;
    concat_rows<S, P, N / 2>(lo, rows, at);
    concat_rows<S, P, N / 2>(hi, rows, at + N / 2);
    pick<Concat>(out, lo, hi, std::make_index_sequence<N * P>());
  }
}
// Of W rows of P values laid out one after the other in a then b (P = 2), or of W / 2 rows in a
// then b (P = 4): component C of every row (P = 2) or components C and C + 1, W / 2 each (P = 4).
template <int W, int P, int C>
struct Components {
  static constexpr int at(std::size_t i) {
    const int k = static_cast<int>(i);
    return P == 2 ? k * 2 + C : (k % (W / 2)) * 4 + C + k / (W / 2);
  }
};
template <int W, int Half>  // half Half (0 or 1) of a, then the same half of b
struct Halves {
  static constexpr int at(std::size_t i) {
    const int k = static_cast<int>(i);
    return (k < W / 2 ? k : W + k - W / 2) + Half * (W / 2);
  }
};
// The inverse of Components: rows J x W / P on of W rows of P values, of a (component 0) and b
// (component 1) in P = 2; of a (components 0 and 1 of the W / 2 rows of Halves) and b
// (components 2 and 3) in P = 4.
template <int W, int P, int J>
struct Rows {
  static constexpr int at(std::size_t i) {
    const int k = static_cast<int>(i), row = J * (W / P) + k / P, c = k % P;
    return P == 2 ? c * W + row : (c / 2) * W + (c % 2) * (W / 2) + row;
  }
};

// Lanes l < W of one element node: the rows rows[at[l]] (P values, the tile node's components and
// zeros) as Dim vectors of W, out[c] lane l = rows[at[l]][c].
template <class S, int W, int P, int Dim>
TREMOR_BATCH_INLINE inline void rows_to_lanes(const Vec<S, P>* rows, const int* at, Vec<S, W>* out) {
  if constexpr (sizeof(S) * W > 64) {  // more than a 512-bit register: in halves, stored as such
    Vec<S, W / 2> half[Dim];           // (GCC builds a wider vector from two lane by lane)
    for (int h = 0; h < 2; ++h) {
      rows_to_lanes<S, W / 2, P, Dim>(rows, at + h * (W / 2), half);
      for (int c = 0; c < Dim; ++c)
        std::memcpy(reinterpret_cast<char*>(&out[c]) + h * sizeof half[c], &half[c], sizeof half[c]);
    }
  } else {
    Vec<S, W> chunk[P];  // W / P rows each
    for (int j = 0; j < P; ++j) concat_rows<S, P, W / P>(chunk[j], rows, at + j * (W / P));
    if constexpr (P == 2) {
      pick<Components<W, 2, 0>>(out[0], chunk[0], chunk[1]);
      pick<Components<W, 2, 1>>(out[1], chunk[0], chunk[1]);
    } else {
      Vec<S, W> xy_lo, xy_hi, zw_lo, zw_hi;  // components 0 and 1 (2 and 3) of rows [0, W / 2), [W / 2, W)
      pick<Components<W, 4, 0>>(xy_lo, chunk[0], chunk[1]);
      pick<Components<W, 4, 0>>(xy_hi, chunk[2], chunk[3]);
      pick<Components<W, 4, 2>>(zw_lo, chunk[0], chunk[1]);
      pick<Components<W, 4, 2>>(zw_hi, chunk[2], chunk[3]);
      pick<Halves<W, 0>>(out[0], xy_lo, xy_hi);
      pick<Halves<W, 1>>(out[1], xy_lo, xy_hi);
      pick<Halves<W, 0>>(out[2], zw_lo, zw_hi);
    }
  }
}

// The inverse: Dim vectors of W lanes as W rows of P values (zeros past Dim), row l at rows[l x P].
template <class S, int W, int P, int Dim>
TREMOR_BATCH_INLINE inline void lanes_to_rows(const Lanes<S, W>* lanes, S* rows) {
  using V = Vec<S, W>;
  V chunk[P];
  if constexpr (P == 2) {
    pick<Rows<W, 2, 0>>(chunk[0], lanes[0].v, lanes[1].v);
    pick<Rows<W, 2, 1>>(chunk[1], lanes[0].v, lanes[1].v);
  } else {
    const V zero = V{}, z = Dim > 2 ? lanes[Dim > 2 ? 2 : 0].v : zero;
    V xy_lo, xy_hi, zw_lo, zw_hi;
    pick<Halves<W, 0>>(xy_lo, lanes[0].v, lanes[1].v);
    pick<Halves<W, 1>>(xy_hi, lanes[0].v, lanes[1].v);
    pick<Halves<W, 0>>(zw_lo, z, zero);
    pick<Halves<W, 1>>(zw_hi, z, zero);
    pick<Rows<W, 4, 0>>(chunk[0], xy_lo, zw_lo);
    pick<Rows<W, 4, 1>>(chunk[1], xy_lo, zw_lo);
    pick<Rows<W, 4, 0>>(chunk[2], xy_hi, zw_hi);
    pick<Rows<W, 4, 1>>(chunk[3], xy_hi, zw_hi);
  }
  std::memcpy(rows, chunk, sizeof chunk);
}

// scale K_e u_e of a batch of elements (f[a * dim + c], a vector per element node and component):
// linear_stiffness_action's steps, on the batch.
template <class E, bool Affine, class Real, int W, class Law>
TREMOR_BATCH_INLINE inline void batch_action(const BatchValues<E, Real, W>& x, const BatchValues<E, Real, W>& u,
                                             const Law& law, Lanes<Real, W> scale, Lanes<Real, W>* f) {
  fem::LinearEvaluation<E, Lanes<Real, W>, Affine> ev;
  ev.gather_evaluate([&](int a, int c) TREMOR_BATCH_INLINE { return x[a][c]; },
                     [&](int a, int c) TREMOR_BATCH_INLINE { return u[a][c]; });
  for (int q = 0; q < ev.n_points; ++q) (void)fem::linear_stiffness_at(ev, q, law, scale);
  ev.integrate(f);
}

// The same with the batch's inverse Jacobians and det J given (triangles: TileView::geometry).
template <class E, class Real, int W, class Law>
TREMOR_BATCH_INLINE inline void batch_action(const Lanes<Real, W> (&inverse)[E::dim][E::dim], const Lanes<Real, W>& det,
                                             const BatchValues<E, Real, W>& u, const Law& law, Lanes<Real, W> scale,
                                             Lanes<Real, W>* f) {
  fem::LinearEvaluation<E, Lanes<Real, W>, true> ev;
  ev.gather_evaluate(inverse, det, [&](int a, int c) TREMOR_BATCH_INLINE { return u[a][c]; });
  (void)fem::linear_stiffness_at(ev, 0, law, scale);
  ev.integrate(f);
}

// Per thread: one tile's nodes' coordinates (less its first node's, in Real), u and force sums, a
// row of P values per node (its dim components, then zeros).
template <class Real, int P>
struct Scratch {
  Vec<Real, P> x[fem::max_tile_nodes];
  Vec<Real, P> u[fem::max_tile_nodes];
  Vec<Real, P> f[fem::max_tile_nodes];
};

// Tile list[i]'s successors' own arrays, ahead of their reads (a colour's tiles lie apart: each
// tile's misses its own, half of the tet4 kernel's stalls on them when not prefetched): where the
// tile three on starts, the node list of the tile two on (its start prefetched a tile ago), the
// local indices of the next.
template <class Real>
TREMOR_BATCH_INLINE inline void prefetch_tiles_ahead(const fem::TileView<Real>& t, const Index* list, Index i, Index n,
                                                     int nn) {
  if (i + 3 < n) {
    __builtin_prefetch(t.node_offsets + list[i + 3]);
    __builtin_prefetch(t.counts + list[i + 3]);
  }
  if (i + 2 < n) {
    const Index begin = t.node_offsets[list[i + 2]], end = t.node_offsets[list[i + 2] + 1];
    for (Index k = begin; k < end; k += 64 / sizeof(Index)) __builtin_prefetch(t.nodes + k);
    __builtin_prefetch(t.nodes + end - 1);
  }
  if (i + 1 < n) {
    const std::uint8_t* next_local = t.local + static_cast<Size>(list[i + 1]) * nn * t.tile;
    for (int k = 0; k < nn * t.tile; k += 64) __builtin_prefetch(next_local + k);
  }
}

// The tile's nodes (t.nodes[first, first + n_nodes)) into the scratch rows: u, the coordinates
// unless the tile keeps its geometry (Given), and a zero force sum. The coordinates are the tile's
// own (TileView::coordinates: relative to the tile, in Real), read in order: gathered from the
// mesh's doubles instead, their misses cost tet4 in float 16% of its time on one thread.
template <bool Given, int Dim, class Real, int P>
TREMOR_BATCH_INLINE inline void stage_tile(const fem::TileView<Real>& t, Index first, int n_nodes, const Real* u,
                                           Scratch<Real, P>& scratch) {
  const Real* x_kept = Given ? nullptr : t.coordinates + static_cast<Size>(first) * Dim;
  for (int k = 0; k < n_nodes; ++k) {
    const Size at = static_cast<Size>(t.nodes[first + k]) * Dim;
    Vec<Real, P> uk{};
    for (int c = 0; c < Dim; ++c) uk[c] = u[at + c];
    if constexpr (!Given) {
      Vec<Real, P> x{};
      for (int c = 0; c < Dim; ++c) x[c] = x_kept[k * Dim + c];
      scratch.x[k] = x;
    }
    scratch.u[k] = uk;
    scratch.f[k] = Vec<Real, P>{};
  }
}

// The kept inverse Jacobians and det J of slots [s0, s0 + W) of a tile's geometry ([k][slot], tile
// slots per row) as lanes; lanes past the tile's slots zero (their forces are dropped).
template <int Dim, class Real, int W>
TREMOR_BATCH_INLINE inline void kept_geometry(const Real* geometry, int s0, int tile,
                                              Lanes<Real, W> (&inverse)[Dim][Dim], Lanes<Real, W>& det) {
  constexpr int values = Dim * Dim + 1;
  alignas(64) Real padded[values][W];
  const Real* from = geometry + s0;
  Size stride = tile;
  if (s0 + W > tile) {  // a tile of a size not a multiple of W: its last batch's lanes
    std::fill(&padded[0][0], &padded[0][0] + values * W, Real(0));
    for (int k = 0; k < values; ++k)
      for (int l = 0; l < tile - s0; ++l) padded[k][l] = from[static_cast<Size>(k) * tile + l];
    from = &padded[0][0];
    stride = W;
  }
  for (int d = 0; d < Dim; ++d)
    for (int c = 0; c < Dim; ++c) std::memcpy(&inverse[d][c], from + (d * Dim + c) * stride, sizeof(inverse[d][c]));
  std::memcpy(&det, from + Dim * Dim * stride, sizeof(det));
}

// A batch's forces fe (a vector per element node and component) added to its element nodes' tile
// sums, lane after lane (slot order) and element node after element node.
template <int NN, int Dim, class Real, int W, int P>
TREMOR_BATCH_INLINE inline void add_batch_forces(const Lanes<Real, W>* fe, const int (&at)[NN][W], int lanes,
                                                 Scratch<Real, P>& scratch) {
  alignas(64) Real rows[NN][W * P];
  for (int a = 0; a < NN; ++a) lanes_to_rows<Real, W, P, Dim>(fe + a * Dim, rows[a]);
  for (int l = 0; l < lanes; ++l)
    for (int a = 0; a < NN; ++a) {
      Vec<Real, P> r;
      std::memcpy(&r, rows[a] + l * P, sizeof r);
      scratch.f[at[a][l]] += r;
    }
}

// ku += the forces of tiles list[0, n) of block t (no two of them sharing a node).
template <class E, bool Affine, class Real, int P>
TREMOR_BATCH_INLINE inline void tiles_body(const fem::TileView<Real>& t, const Index* list, Index n,
                                           const fem::MaterialView<Real>& material, const Real* u, Real* ku,
                                           Scratch<Real, P>& scratch) {
  constexpr int dim = E::dim, nn = E::n_nodes, nv = fem::voigt_size<dim>;
  constexpr int W = 64 / sizeof(Real);  // a 512-bit register of Real
  using L = Lanes<Real, W>;
  // Triangles read their inverse Jacobians and det J (TileView::geometry), not the coordinates.
  constexpr bool given = fem::host_keeps_geometry(E::type);
  for (Index i = 0; i < n; ++i) {
    const Index tile = list[i];
    const Index first = t.node_offsets[tile];
    const int n_nodes = static_cast<int>(t.node_offsets[tile + 1] - first), count = t.counts[tile];
    // The next tile's nodes on their way to the cache while this one computes, a share after each
    // batch (all at once, they would fill the core's queue of misses and stall it).
    const Index next_first = i + 1 < n ? t.node_offsets[list[i + 1]] : 0;
    const Index next_nodes = i + 1 < n ? t.node_offsets[list[i + 1] + 1] - next_first : 0;
    const int n_batches = (count + W - 1) / W;
    prefetch_tiles_ahead(t, list, i, n, nn);
    auto prefetch_next = [&](int batch) TREMOR_BATCH_INLINE {
      const Index end = next_first + static_cast<Index>(static_cast<Size>(next_nodes) * (batch + 1) / n_batches);
      for (Index k = next_first + static_cast<Index>(static_cast<Size>(next_nodes) * batch / n_batches); k < end; ++k) {
        const Size at = static_cast<Size>(t.nodes[k]) * dim;
        __builtin_prefetch(u + at);
        __builtin_prefetch(ku + at, 1);
      }
    };
    stage_tile<given, dim>(t, first, n_nodes, u, scratch);
    const Real* geometry = given ? t.geometry + static_cast<Size>(tile) * (dim * dim + 1) * t.tile : nullptr;
    const std::uint8_t* local = t.local + static_cast<Size>(tile) * nn * t.tile;
    // The tile's slots in batches of W: law_of(s0, lanes, compute) calls compute(law, scale) with
    // the batch's law and scale, which computes the forces of the batch's element nodes (lanes
    // past the tile's count repeat the batch's first element) from their coordinates, or their
    // kept inverse Jacobians and det J where given, and u.
    // Each element node's forces are added to its tile node's sum slot after slot (and element node
    // after element node): each node's sum takes its elements' forces in the order of its
    // incidences, as on a GPU.
    auto batches = [&](auto&& law_of) TREMOR_BATCH_INLINE {
      for (int s0 = 0; s0 < count; s0 += W) {
        const int lanes = std::min(W, count - s0);
        int at[nn][W];  // each lane's element nodes in the tile
        if (lanes == W) {
          for (int a = 0; a < nn; ++a)
            for (int l = 0; l < W; ++l) at[a][l] = local[a * t.tile + s0 + l];
        } else {
          for (int a = 0; a < nn; ++a)
            for (int l = 0; l < W; ++l) at[a][l] = local[a * t.tile + s0 + (l < lanes ? l : 0)];
        }
        BatchValues<E, Real, W> x, ue;
        for (int a = 0; a < nn; ++a) {
          Vec<Real, W> ua[dim];
          rows_to_lanes<Real, W, P, dim>(scratch.u, at[a], ua);
          for (int c = 0; c < dim; ++c) ue[a][c] = L(ua[c]);
          if constexpr (!given) {
            Vec<Real, W> xa[dim];
            rows_to_lanes<Real, W, P, dim>(scratch.x, at[a], xa);
            for (int c = 0; c < dim; ++c) x[a][c] = L(xa[c]);
          }
        }
        L inverse[dim][dim], det;
        if constexpr (given) kept_geometry<dim>(geometry, s0, t.tile, inverse, det);
        L fe[nn * dim];
        law_of(s0, lanes, [&](const auto& law, L scale) TREMOR_BATCH_INLINE {
          if constexpr (given)
            batch_action<E, Real, W>(inverse, det, ue, law, scale, fe);
          else
            batch_action<E, Affine, Real, W>(x, ue, law, scale, fe);
        });
        add_batch_forces<nn, dim>(fe, at, lanes, scratch);
        prefetch_next(s0 / W);
      }
    };
    if (t.slot_stride == 0) {  // one section and scale for the tile: its law once
      const Size at = t.property(tile, 0);
      const int section = t.section[at];
      const L scale(t.scale[at]);
      if (material.kind(section) == fem::LawKind::Isotropic) {
        const auto law = fem::IsotropicLaw<dim, Real>::of(material.voigt(section));
        const fem::IsotropicLaw<dim, L> lanes_law{L(law.lambda), L(law.mu)};
        batches([&](int, int, auto&& compute) TREMOR_BATCH_INLINE { compute(lanes_law, scale); });
      } else {
        L D[nv * nv];
        for (int k = 0; k < nv * nv; ++k) D[k] = L(material.voigt(section)[k]);
        batches([&](int, int, auto&& compute) TREMOR_BATCH_INLINE { compute(fem::AnisotropicLaw<dim, L>{D}, scale); });
      }
    } else {  // per slot: D and scale per lane (an isotropic section's D is its tangent: the same
              // law to rounding)
      batches([&](int s0, int lanes, auto&& compute) TREMOR_BATCH_INLINE {
        alignas(64) Real scale[W], D[nv * nv][W];
        for (int l = 0; l < W; ++l) {
          const Size at = t.property(tile, s0 + (l < lanes ? l : 0));
          scale[l] = t.scale[at];
          const Real* voigt = material.voigt(t.section[at]);
          for (int k = 0; k < nv * nv; ++k) D[k][l] = voigt[k];
        }
        L scales, Dv[nv * nv];
        std::memcpy(&scales, scale, sizeof scale);
        std::memcpy(&Dv, D, sizeof D);
        compute(fem::AnisotropicLaw<dim, L>{Dv}, scales);
      });
    }
    // Each tile node's sum added to ku.
    for (int k = 0; k < n_nodes; ++k) {
      const Size at = static_cast<Size>(t.nodes[first + k]) * dim;
      for (int c = 0; c < dim; ++c) ku[at + c] += scratch.f[k][c];
    }
  }
}

// tiles_body compiled for each instruction set, the CPU's taken at run time.
template <class E, bool Affine, class Real, int P>
__attribute__((target_clones("avx512f", "avx2", "default"), flatten)) void tiles(
    const fem::TileView<Real>& t, const Index* list, Index n, const fem::MaterialView<Real>& material, const Real* u,
    Real* ku, Scratch<Real, P>& scratch) {
  tiles_body<E, Affine, Real, P>(t, list, n, material, u, ku, scratch);
}

#undef TREMOR_BATCH_INLINE

}  // namespace

template <class Real>
void add_tiles_on_host(const Exec& exec, const fem::TileBlock<Real>& block, const fem::MaterialView<Real>& material,
                       const Real* u, Real* ku) {
  TREMOR_CHECK(exec.backend() != Backend::Cuda, "matrix-free tiles on the host: ", exec.describe(), " is a GPU");
  if (block.n_tiles == 0) return;
  const fem::TileView<Real> t = block.view();
  const auto n_colours = static_cast<int>(block.colour_offsets.size()) - 1;
  TREMOR_CHECK(n_colours >= 1, "matrix-free tiles on the host: the tiles were built without colours");
  fem::with_element(block.type, block.order, [&](auto element) {
    using E = decltype(element);
    if constexpr (fem::linear_evaluation_takes<E>) {
      constexpr int P = E::dim == 3 ? 4 : 2;  // a tile node's row: dim values padded to a power of two
      auto run = [&](const Index* list, Index n, Scratch<Real, P>& scratch) {
        if (E::simplex || block.affine)
          tiles<E, true, Real, P>(t, list, n, material, u, ku, scratch);
        else if constexpr (!E::simplex)
          tiles<E, false, Real, P>(t, list, n, material, u, ku, scratch);
      };
      const bool parallel = exec.backend() == Backend::OpenMP;
#pragma omp parallel if (parallel)
      {
        Scratch<Real, P> scratch;
        std::vector<Index> list;  // this thread's share of a colour: its chunks' tiles, in order
        list.reserve(static_cast<std::size_t>(block.n_tiles));
        const int threads = omp_get_num_threads(), me = omp_get_thread_num();
        for (int c = 0; c < n_colours; ++c) {
          // The colour's chunks in contiguous shares; a barrier before the next colour.
          const Index begin = block.colour_offsets[static_cast<std::size_t>(c)];
          const Index size = block.colour_offsets[static_cast<std::size_t>(c) + 1] - begin;
          const Index lo = begin + static_cast<Index>(static_cast<Size>(size) * me / threads);
          const Index hi = begin + static_cast<Index>(static_cast<Size>(size) * (me + 1) / threads);
          list.clear();
          for (Index k = lo; k < hi; ++k) {
            const auto [first, end] = fem::chunk_tiles(block.colour_chunks[static_cast<std::size_t>(k)], block.chunk,
                                                       block.n_tiles);
            for (Index tile = first; tile < end; ++tile) list.push_back(tile);
          }
          run(list.data(), static_cast<Index>(list.size()), scratch);
#pragma omp barrier
        }
      }
    } else {
      TREMOR_CHECK(false, "matrix-free tiles on the host: ", element_name(block.type, block.order),
                   " is not a linear element");
    }
  });
}

template void add_tiles_on_host<float>(const Exec&, const fem::TileBlock<float>&, const fem::MaterialView<float>&,
                                       const float*, float*);
template void add_tiles_on_host<double>(const Exec&, const fem::TileBlock<double>&, const fem::MaterialView<double>&,
                                        const double*, double*);

}  // namespace tremor::explicit_fe
