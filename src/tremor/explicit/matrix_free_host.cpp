#include "tremor/explicit/matrix_free_host.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

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

// scale K_e u_e of a batch of elements (f[a * dim + c], a vector per element node and component):
// linear_stiffness_action's steps, on the batch.
template <class E, bool Affine, class Real, int W, class Law>
TREMOR_BATCH_INLINE inline void batch_action(const BatchValues<E, double, W>& x, const BatchValues<E, Real, W>& u,
                                             const Law& law, Lanes<Real, W> scale, Lanes<Real, W>* f) {
  fem::LinearEvaluation<E, Lanes<Real, W>, Affine> ev;
  ev.gather_evaluate([&](int a, int c) TREMOR_BATCH_INLINE { return x[a][c]; },
                     [&](int a, int c) TREMOR_BATCH_INLINE { return u[a][c]; });
  for (int q = 0; q < ev.n_points; ++q) (void)fem::linear_stiffness_at(ev, q, law, scale);
  ev.integrate(f);
}

// Per thread: one tile's nodes' coordinates and u, and its element nodes' forces [c][a x tile + slot]
// (up to 8 nodes per element in 3D).
template <class Real>
struct Scratch {
  double x[fem::max_tile_nodes * 3];
  Real u[fem::max_tile_nodes * 3];
  alignas(64) Real f[3 * 8 * fem::max_tile];
};

// ku += the forces of tiles list[0, n) of block t (no two of them sharing a node).
template <class E, bool Affine, class Real>
TREMOR_BATCH_INLINE inline void tiles_body(const fem::TileView<Real>& t, const Index* list, Index n,
                                           const double* coordinates, const fem::MaterialView<Real>& material,
                                           const Real* u, Real* ku, Scratch<Real>& scratch) {
  constexpr int dim = E::dim, nn = E::n_nodes, nv = fem::voigt_size<dim>;
  constexpr int W = 64 / sizeof(Real);  // a 512-bit register of Real
  using L = Lanes<Real, W>;
  for (Index i = 0; i < n; ++i) {
    const Index tile = list[i];
    const Index first = t.node_offsets[tile];
    const int n_nodes = static_cast<int>(t.node_offsets[tile + 1] - first), count = t.counts[tile];
    for (int k = 0; k < n_nodes; ++k) {
      const Size at = static_cast<Size>(t.nodes[first + k]) * dim;
      for (int c = 0; c < dim; ++c) {
        scratch.x[k * dim + c] = coordinates[at + c];
        scratch.u[k * dim + c] = u[at + c];
      }
    }
    const std::uint8_t* local = t.local + static_cast<Size>(tile) * nn * t.tile;
    // The tile's slots in batches of W: action(x, u, s0, lanes, f) computes the forces f of the
    // batch's element nodes x, u (lanes past the tile's count repeat the batch's first element),
    // kept per element node and component for the sums below.
    auto batches = [&](auto&& action) TREMOR_BATCH_INLINE {
      for (int s0 = 0; s0 < count; s0 += W) {
        const int lanes = std::min(W, count - s0);
        int at[nn][W];  // each lane's element nodes' offsets in the tile's arrays
        if (lanes == W) {
          for (int a = 0; a < nn; ++a)
            for (int l = 0; l < W; ++l) at[a][l] = local[a * t.tile + s0 + l] * dim;
        } else {
          for (int a = 0; a < nn; ++a)
            for (int l = 0; l < W; ++l) at[a][l] = local[a * t.tile + s0 + (l < lanes ? l : 0)] * dim;
        }
        alignas(64) double xb[nn][dim][W];
        alignas(64) Real ub[nn][dim][W];
        for (int a = 0; a < nn; ++a)
          for (int c = 0; c < dim; ++c)
            for (int l = 0; l < W; ++l) {
              xb[a][c][l] = scratch.x[at[a][l] + c];
              ub[a][c][l] = scratch.u[at[a][l] + c];
            }
        BatchValues<E, double, W> x;
        BatchValues<E, Real, W> ue;
        std::memcpy(&x, xb, sizeof xb);
        std::memcpy(&ue, ub, sizeof ub);
        L fe[nn * dim];
        action(x, ue, s0, lanes, fe);
        for (int a = 0; a < nn; ++a)
          for (int c = 0; c < dim; ++c) {
            Real* into = scratch.f + (c * nn + a) * t.tile + s0;
            if (s0 + W <= t.tile)
              std::memcpy(into, &fe[a * dim + c], sizeof(L));
            else  // a tile of fewer slots than W past s0: its own lanes only
              for (int l = 0; l < lanes; ++l) into[l] = fe[a * dim + c].v[l];
          }
      }
    };
    if (t.slot_stride == 0) {  // one section and scale for the tile: its law once
      const Size at = t.property(tile, 0);
      const int section = t.section[at];
      const L scale(t.scale[at]);
      if (material.kind(section) == fem::LawKind::Isotropic) {
        const auto law = fem::IsotropicLaw<dim, Real>::of(material.voigt(section));
        const fem::IsotropicLaw<dim, L> lanes_law{L(law.lambda), L(law.mu)};
        batches([&](const auto& x, const auto& ue, int, int, L* fe) TREMOR_BATCH_INLINE {
          batch_action<E, Affine, Real, W>(x, ue, lanes_law, scale, fe);
        });
      } else {
        L D[nv * nv];
        for (int k = 0; k < nv * nv; ++k) D[k] = L(material.voigt(section)[k]);
        batches([&](const auto& x, const auto& ue, int, int, L* fe) TREMOR_BATCH_INLINE {
          batch_action<E, Affine, Real, W>(x, ue, fem::AnisotropicLaw<dim, L>{D}, scale, fe);
        });
      }
    } else {  // per slot: D and scale per lane (an isotropic section's D is its tangent: the same
              // law to rounding)
      batches([&](const auto& x, const auto& ue, int s0, int lanes, L* fe) TREMOR_BATCH_INLINE {
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
        batch_action<E, Affine, Real, W>(x, ue, fem::AnisotropicLaw<dim, L>{Dv}, scales, fe);
      });
    }
    // Each tile node's element nodes' forces in the order of its incidences (slot after slot,
    // element node after element node, as on a GPU), the sum added to ku.
    const std::uint16_t* incidences = t.incidences + static_cast<Size>(tile) * nn * t.tile;
    const std::uint16_t* ends = t.incidence_ends + first;
    for (int k = 0, j = 0; k < n_nodes; ++k) {
      Real sum[dim] = {};
      for (; j < ends[k]; ++j)
        for (int c = 0; c < dim; ++c) sum[c] += scratch.f[c * nn * t.tile + incidences[j]];
      const Size at = static_cast<Size>(t.nodes[first + k]) * dim;
      for (int c = 0; c < dim; ++c) ku[at + c] += sum[c];
    }
  }
}

// tiles_body compiled for each instruction set, the CPU's taken at run time.
template <class E, bool Affine, class Real>
__attribute__((target_clones("avx512f", "avx2", "default"), flatten)) void tiles(
    const fem::TileView<Real>& t, const Index* list, Index n, const double* coordinates,
    const fem::MaterialView<Real>& material, const Real* u, Real* ku, Scratch<Real>& scratch) {
  tiles_body<E, Affine, Real>(t, list, n, coordinates, material, u, ku, scratch);
}

#undef TREMOR_BATCH_INLINE

}  // namespace

template <class Real>
void add_tiles_on_host(const Exec& exec, const fem::TileBlock<Real>& block, const double* coordinates,
                       const fem::MaterialView<Real>& material, const Real* u, Real* ku) {
  TREMOR_CHECK(exec.backend() != Backend::Cuda, "matrix-free tiles on the host: ", exec.describe(), " is a GPU");
  if (block.n_tiles == 0) return;
  const fem::TileView<Real> t = block.view();
  const auto n_colours = static_cast<int>(block.colour_offsets.size()) - 1;
  TREMOR_CHECK(n_colours >= 1, "matrix-free tiles on the host: the tiles were built without colours");
  fem::with_element(block.type, block.order, [&](auto element) {
    using E = decltype(element);
    if constexpr (fem::linear_evaluation_takes<E>) {
      auto run = [&](const Index* list, Index n, Scratch<Real>& scratch) {
        if (E::simplex || block.affine)
          tiles<E, true, Real>(t, list, n, coordinates, material, u, ku, scratch);
        else if constexpr (!E::simplex)
          tiles<E, false, Real>(t, list, n, coordinates, material, u, ku, scratch);
      };
      const bool parallel = exec.backend() == Backend::OpenMP;
#pragma omp parallel if (parallel)
      {
        Scratch<Real> scratch;
        const int threads = omp_get_num_threads(), me = omp_get_thread_num();
        for (int c = 0; c < n_colours; ++c) {
          // The colour's tiles in contiguous shares; a barrier before the next colour.
          const Index begin = block.colour_offsets[static_cast<std::size_t>(c)];
          const Index size = block.colour_offsets[static_cast<std::size_t>(c) + 1] - begin;
          const Index lo = begin + static_cast<Index>(static_cast<Size>(size) * me / threads);
          const Index hi = begin + static_cast<Index>(static_cast<Size>(size) * (me + 1) / threads);
          run(block.colour_tiles.data() + lo, hi - lo, scratch);
#pragma omp barrier
        }
      }
    } else {
      TREMOR_CHECK(false, "matrix-free tiles on the host: ", element_name(block.type, block.order),
                   " is not a linear element");
    }
  });
}

template void add_tiles_on_host<float>(const Exec&, const fem::TileBlock<float>&, const double*,
                                       const fem::MaterialView<float>&, const float*, float*);
template void add_tiles_on_host<double>(const Exec&, const fem::TileBlock<double>&, const double*,
                                        const fem::MaterialView<double>&, const double*, double*);

}  // namespace tremor::explicit_fe
