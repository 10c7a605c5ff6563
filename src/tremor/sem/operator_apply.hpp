#pragma once
// The sem operator's kernels and its apply (operator.hpp), as templates: operator_float.cpp and
// operator_double.cpp instantiate SemOperator with one precision each, two translation units that
// build side by side (the kernels of every order, mode and law are most of the layer's build).
// Included by those two only.
#include "tremor/sem/operator.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <span>
#include <type_traits>

#include "tremor/backend/atomic.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/backend/forall_blocks.hpp"
#include "tremor/backend/prefetch.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/polynomials.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/elements.hpp"
#include "tremor/fem/pml_law.hpp"
#include "tremor/fem/viscoelastic.hpp"
#include "tremor/mesh/element_type.hpp"
#include "tremor/operator/element_state.hpp"
#include "tremor/sem/layout.hpp"
#include "tremor/sem/sum_factorised.hpp"

namespace tremor::sem {

namespace {

// The kernels below: ku += K_e u_e for the n elements of one block (list[i] for i < n, or i itself
// without a list). coloured: the elements are one colour's, which share no node (plain adds); else
// they add by atomics. Each reads the geometry by Mode (layout.hpp).

// The pointwise physics of element e: what every point of it shares, read once (its material;
// the Jacobian of an affine element), then at(p) the flux f from the gradient d at point p, with
// the Jacobian as the block's Mode has it. G is the 1D basis in shared memory (G, then the GLL
// points and weights follow). A thread that computes several points of one element (the column
// kernel) reads the shared values once rather than at each point: fewer L1 requests where they
// limit the kernel.
// The memory variables of a block's elements (fem/viscoelastic.hpp) as point_state.hpp's
// PointState lays them: value k of solid l at point p of element e at values[S.element(e,
// per_group) + (l n_voigt + k) S.stride() + S.point(p)] (S = point_state(Dim, P, Rows); per_group:
// a group's values, an element's where element by element); the sections' step coefficients,
// fem::solids_stride each; the weights of coarse-grained solids on the block's points
// (fem::coarse_weights).
// A PML's elements (explicit/pml.hpp) add their own: value k of point p at pml[e pml_per_element
// + k points + p] (fem::pml_point_values of them), and the stretching there, d_k at stretch[e 2
// Dim points + k points + p] and alpha_k Dim points further; the element's axes (fem::pml_flux:
// only theirs are read and written) at axes[e]; dt, the step they advance by.
template <class Real>
struct Memory {
  const Real* records = nullptr;
  Real* values = nullptr;
  Size per_group = 0;
  Real* pml = nullptr;
  const Real* stretch = nullptr;
  const int* axes = nullptr;
  Real dt = Real(0);
  const Real* coarse = nullptr;
  // Isotropic moduli per point (a material field's at the GLL points, fem/point_materials.hpp):
  // element e's lambda at moduli[2 e points + p], its mu `points` further; null where the block's
  // elements take their row's.
  const Real* moduli = nullptr;
  // A PML's grid damping (model/pml.hpp): the displacement a step back and each element's beta / dt;
  // its elements' flux then of u + (beta / dt) (u - previous). Null: none.
  const Real* previous = nullptr;
  const Real* rate = nullptr;
};

// What the law at each point is: the section's (Elastic); the section's with its memory variables
// (Viscous, Memory), advanced by a step; or a PML's flux (fem/pml_law.hpp) of the section's law,
// with the PML's own (Pml), or of the section's viscoelastic law where the block keeps memory
// variables (PmlViscous: a kernel of its own, the elastic layer's registers not the viscous one's).
// The elastic kernels are built without either. ViscousCoarse: Viscous where every attenuating
// section is coarse-grained, with one solid's registers (fem::ViscoelasticPoint's Slots).
// ElasticPoints, ViscousPoints: Elastic and Viscous with a material field's moduli at each point
// (Memory::moduli), kernels of their own: the branch and the point's loads in the elastic column
// kernel held 96 registers a thread where it holds 80 (float, order 4), a sixth fewer blocks
// resident. A PML's kernels read the moduli where they are given, at run time.
enum Physics : int { Elastic = 0, Viscous = 1, Pml = 2, PmlViscous = 3, ViscousCoarse = 4, ElasticPoints = 5,
                     ViscousPoints = 6 };

// Rows: the memory variables in PointState's rows (the column kernel's blocks), else element by element.
template <int Dim, int P, class Real, int Mode, int Law = Elastic, bool Rows = false>
struct ElementPhysics {
  using L = Layout<Dim, P>;
  static constexpr int n1 = L::n;
  const Real* factors;
  Index e;
  fem::SectionLaw<Dim, Real> law;
  Real inv[Dim][Dim], det;  // affine elements only
  static constexpr bool is_pml = Law == Pml || Law == PmlViscous;
  static constexpr bool viscous = Law == Viscous || Law == ViscousCoarse || Law == PmlViscous || Law == ViscousPoints;
  // Whether the kernel reads a material field's moduli at each point (Memory::moduli).
  static constexpr bool at_points = Law == ElasticPoints || Law == ViscousPoints || is_pml;
  const Real* record = nullptr;  // Viscous, PmlViscous: the section's solids
  Real* memory = nullptr;        // Viscous, PmlViscous: the element's first memory variable (Memory, S)
  const Real* coarse = nullptr;  // a coarse-grained section's: its solids' weights (fem::coarse_weights)
  int solids = 0;                // and its solids,
  unsigned by_solids = 0;        // 2^16 / solids rounded up: s / solids for the small s of coarse_solid
  Real* pml = nullptr;           // is_pml: the element's first point's PML variables (L::points apart)
  const Real* stretch = nullptr;  // is_pml: the element's d and alpha
  int axes = 0;                   // is_pml: the element's stretched axes
  Real dt = Real(0);
  const Real* moduli = nullptr;   // the element's lambda at its points, then mu (Memory::moduli)

  TREMOR_HOST_DEVICE ElementPhysics(const Real* geometry, const int* section, const fem::MaterialView<Real>& material,
                                    Index element, const Memory<Real>& state = {})
      : factors(geometry), e(element), law(material, section[element]) {
    if constexpr (at_points)
      if (state.moduli) moduli = state.moduli + static_cast<Size>(element) * 2 * L::points;
    if constexpr (viscous) {
      if (state.records) {
        record = state.records + static_cast<Size>(fem::solids_stride) * section[element];
        constexpr PointState S = point_state(Dim, P, Rows);
        memory = state.values + S.element(element, state.per_group);
        if (record[fem::solids_coarse_at] != Real(0)) {
          solids = static_cast<int>(record[0]);
          coarse = state.coarse + (solids - 1) * fem::max_solids;
          by_solids = (65536u + static_cast<unsigned>(solids) - 1u) / static_cast<unsigned>(solids);
        }
      }
    }
    if constexpr (is_pml) {
      pml = state.pml + static_cast<Size>(element) * fem::pml_point_values<Dim> * L::points;
      stretch = state.stretch + static_cast<Size>(element) * 2 * Dim * L::points;
      axes = state.axes[element];
      dt = state.dt;
    }
    if constexpr (Mode == AffineMode) {
      const Real* g = factors + static_cast<Size>(e) * L::factors;
      for (int m = 0; m < Dim * Dim; ++m) inv[m / Dim][m % Dim] = g[m];
      det = g[Dim * Dim];
    }
  }

  // Asks for point p's memory variables, those of its section's solids, ahead of its law
  // (backend/prefetch.hpp), before the kernel gathers u and computes the gradient there: the
  // column kernel's, where it measured 21.5 -> 25.9 GDOF-steps/s on the gll4 plate (float, an
  // H200; its blocks without an element list now ask by rows, prefetch_values); the point
  // kernel's, with memory variables or a PML's, did not gain (the PML's lost 6%).
  TREMOR_HOST_DEVICE static void prefetch(const int* section, const Memory<Real>& state, Index e, int p) {
#if defined(__CUDA_ARCH__)
    if constexpr (Law == Viscous || Law == ViscousCoarse || Law == ViscousPoints) {
      if (!state.records) return;
      const Real* record = state.records + static_cast<Size>(fem::solids_stride) * section[e];
      const int solids = record[fem::solids_coarse_at] != Real(0) ? 1 : static_cast<int>(record[0]);
      constexpr PointState S = point_state(Dim, P, Rows);
      const Real* at = state.values + S.element(e, state.per_group) + S.point(p);
      for (int k = 0; k < solids * fem::voigt_size<Dim>; ++k) prefetch_l2(at + k * S.stride());
    }
#else
    (void)section, (void)state, (void)e, (void)p;
#endif
  }

  // The same for the column kernel's block that takes elements `first` on, list-free, PointState's
  // group of them: value k's rows (its levels, in a row) by one bulk prefetch, from thread k, the
  // values some section of the group's elements keeps. A thread asked for each of its points' values
  // apart: 90 requests a thread in float at order 4, where now 18 of the block's threads ask once.
  TREMOR_HOST_DEVICE static void prefetch_values(const int* section, const Memory<Real>& state, Index first, Index n,
                                                 int k) {
#if defined(__CUDA_ARCH__)
    if constexpr (Law == Viscous || Law == ViscousCoarse || Law == ViscousPoints) {
      constexpr PointState S = point_state(Dim, P, Rows);
      if (!state.records) return;
      int solids = 0;
      for (int g = 0; g < S.group && first + g < n; ++g) {
        const Real* record = state.records + static_cast<Size>(fem::solids_stride) * section[first + g];
        const int own = record[fem::solids_coarse_at] != Real(0) ? 1 : static_cast<int>(record[0]);
        solids = own > solids ? own : solids;
      }
      if (k >= solids * fem::voigt_size<Dim>) return;
      prefetch_l2_bulk(state.values + S.element(first, state.per_group) + k * S.stride(),
                       static_cast<unsigned>(S.stride() * sizeof(Real)));
    }
#else
    (void)section, (void)state, (void)first, (void)n, (void)k;
#endif
  }

  TREMOR_HOST_DEVICE void at(const Real* G, int p, const Real (&d)[Dim][Dim], Real (&f)[Dim][Dim]) const {
    const Real* points = G + n1 * n1;
    const Real xi[3] = {points[p % n1], points[p / n1 % n1], Dim == 3 ? points[p / (n1 * n1)] : Real(0)};
    at(p, weight<Dim, n1>(G + n1 * n1 + n1, p), xi, d, f);
  }

  // The same with the point's GLL weight product w and coordinates xi given (what a mode does
  // not use, the compiler drops).
  TREMOR_HOST_DEVICE void at(int p, Real w, const Real (&xi)[3], const Real (&d)[Dim][Dim], Real (&f)[Dim][Dim]) const {
    const fem::SectionLaw<Dim, Real> here = law_at(p);
    if constexpr (Law == PmlViscous) {
      pml_at(p, w, xi, d, f, viscoelastic(p, here));
    } else if constexpr (Law == Pml) {
      pml_at(p, w, xi, d, f, here);
    } else if constexpr (Law == Viscous || Law == ViscousCoarse || Law == ViscousPoints) {
      at(p, w, xi, d, f, viscoelastic(p, here));
    } else {
      at(p, w, xi, d, f, here);
    }
  }

  // The element's law at point p: its row's, with the point's own isotropic moduli where the
  // block has them (an anisotropic row's D is read as before: its kind is kept).
  TREMOR_HOST_DEVICE fem::SectionLaw<Dim, Real> law_at(int p) const {
    fem::SectionLaw<Dim, Real> here = law;
    if constexpr (at_points)
      if (moduli) {
        here.isotropic.lambda = moduli[p];
        here.isotropic.mu = moduli[L::points + p];
      }
    (void)p;
    return here;
  }

  // at() for Each vectors at point p, the elastic law's: the Jacobian had once for all of them
  // (from the vertices in TrilinearMode), each vector's flux the one at() gives it.
  template <int Each>
  TREMOR_HOST_DEVICE void at_each(int p, Real w, const Real (&xi)[3], const Real (&d)[Each][Dim][Dim],
                                  Real (&f)[Each][Dim][Dim]) const {
    static_assert(Law == Elastic, "vectors applied together: the elastic law (fuses_batch: no moduli per point)");
    const fem::SectionLaw<Dim, Real> here = law_at(p);
    with_jacobian(p, w, xi, [&](const Real(&inverse)[Dim][Dim], Real scale) {
      for (int q = 0; q < Each; ++q) flux(d[q], inverse, scale, here, f[q]);
    });
  }

  // The viscoelastic law at point p of elastic law `here` (law_at(p)): every solid's memory
  // variables, or the coarse-grained one's (fem::coarse_solid of the point's indices along the
  // element's lines: (i + j + k) mod solids, by a multiply and a shift, exact for sums below
  // 2^16 / solids); with the point's own moduli relaxing where it has them.
  using PointLaw = fem::ViscoelasticPoint<Dim, Real, fem::SectionLaw<Dim, Real>, Law == ViscousCoarse ? 1 : 0>;
  TREMOR_HOST_DEVICE PointLaw viscoelastic(int p, const fem::SectionLaw<Dim, Real>& here) const {
    constexpr PointState S = point_state(Dim, P, Rows);
    PointLaw point{here, record, memory + S.point(p), S.stride()};
    if (moduli && here.is_isotropic) {
      point.own = true;
      point.own_lambda = here.isotropic.lambda;
      point.own_mu = here.isotropic.mu;
    }
    if (coarse) {
      const auto sum = static_cast<unsigned>(p % n1 + p / n1 % n1 + (Dim == 3 ? p / (n1 * n1) : 0));
      point.solid = static_cast<int>(sum - static_cast<unsigned>(solids) * (sum * by_solids >> 16));
      point.weight = coarse[point.solid];
    }
    return point;
  }

  // The same with the point's law given.
  template <class PointLaw>
  TREMOR_HOST_DEVICE void at(int p, Real w, const Real (&xi)[3], const Real (&d)[Dim][Dim], Real (&f)[Dim][Dim],
                             const PointLaw& point_law) const {
    with_jacobian(p, w, xi, [&](const Real(&inverse)[Dim][Dim], Real scale) { flux(d, inverse, scale, point_law, f); });
  }

  // A PML's: the physical gradient, the flux F of the stretched coordinates (fem::pml_flux, its
  // variables L::points apart), f[c][alpha] = scale sum_beta F[c][beta] J^-1[alpha][beta].
  template <class PointLaw>
  TREMOR_HOST_DEVICE void pml_at(int p, Real w, const Real (&xi)[3], const Real (&d)[Dim][Dim], Real (&f)[Dim][Dim],
                                 const PointLaw& point_law) const {
    with_jacobian(p, w, xi, [&](const Real(&inverse)[Dim][Dim], Real scale) {
      Real grad[Dim][Dim], F[Dim][Dim], dk[Dim], ak[Dim];
      for (int c = 0; c < Dim; ++c)
        for (int beta = 0; beta < Dim; ++beta) {
          Real sum = Real(0);
          for (int alpha = 0; alpha < Dim; ++alpha) sum += d[c][alpha] * inverse[alpha][beta];
          grad[c][beta] = sum;
        }
      for (int k = 0; k < Dim; ++k) {  // (an axis not stretched: neither read nor used)
        const bool stretched = axes >> k & 1;
        dk[k] = stretched ? stretch[k * L::points + p] : Real(0);
        ak[k] = stretched ? stretch[(Dim + k) * L::points + p] : Real(0);
      }
      fem::pml_flux<Dim>(grad, dk, ak, dt, point_law, fem::Strided<Real>{pml + p, L::points}, F, axes);
      for (int c = 0; c < Dim; ++c)
        for (int alpha = 0; alpha < Dim; ++alpha) {
          Real sum = Real(0);
          for (int beta = 0; beta < Dim; ++beta) sum += F[c][beta] * inverse[alpha][beta];
          f[c][alpha] = scale * sum;
        }
    });
  }

  // use(J^-1, w det J) at point p, as the block's Mode has the Jacobian.
  template <class Use>
  TREMOR_HOST_DEVICE void with_jacobian(int p, Real w, const Real (&xi)[3], Use&& use) const {
    if constexpr (Mode == AffineMode) {
      use(inv, w * det);
    } else if constexpr (Mode == TrilinearMode) {
      const Real* corners = factors + static_cast<Size>(e) * L::corners;
      Real J[Dim][Dim], inverse[Dim][Dim];
      vertex_jacobian(corners, xi, J);
      const Real scale = w * invert_jacobian(J, inverse) * corners[L::corners - 1];
      use(inverse, scale);
    } else {
      constexpr int np = L::points;
      const Real* g = factors + static_cast<Size>(e) * L::factors * np + p;
      Real inverse[Dim][Dim];
      for (int m = 0; m < Dim * Dim; ++m) inverse[m / Dim][m % Dim] = g[m * np];
      use(inverse, g[Dim * Dim * np]);
    }
  }
};

// out += force for one node's Dim components: plain adds colour by colour (a colour's elements
// share no node), atomics otherwise.
template <int Dim, class Real>
TREMOR_HOST_DEVICE void add_force(Real* out, const Real (&force)[Dim], bool coloured) {
  if (coloured) {
    for (int c = 0; c < Dim; ++c) out[c] += force[c];
  } else {
    for (int c = 0; c < Dim; ++c) atomic_add(out + c, force[c]);
  }
}

// ku[Dim node + c] += force[c] for a node (none where node < 0), plain adds colour by colour,
// atomics otherwise. On a GPU every thread of the warp calls it at once, and the warp's Dim x 32
// values go out in the order of their addresses: in each of Dim rounds, lane L adds value
// 32 r + L of the warp's list (component c of the node of lane s, by shuffles), so that an
// instruction's 32 adds cover runs of consecutive entries (a node's components, then the next
// node's along a line of the element) instead of one component of 32 nodes Dim values apart.
// The atomics reach L2 in about a third of the sectors (3D), what bounds the column kernel at the
// H100's clocks (docs/benchmarks.md).
template <int Dim, class Real>
TREMOR_HOST_DEVICE void add_forces_by_warp(Real* ku, Index node, const Real (&force)[Dim], bool coloured) {
#if defined(__CUDA_ARCH__)
  const int lane = static_cast<int>(threadIdx.x % 32);
  for (int r = 0; r < Dim; ++r) {
    const int g = 32 * r + lane, s = g / Dim, c = g % Dim;
    Real value = Real(0);
    for (int m = 0; m < Dim; ++m) {
      const Real x = __shfl_sync(0xffffffffu, force[m], s);
      if (c == m) value = x;
    }
    const Index at = __shfl_sync(0xffffffffu, node, s);
    if (at < 0) continue;
    Real* out = ku + static_cast<Size>(at) * Dim + c;
    if (coloured)
      *out += value;
    else
      atomic_add(out, value);
  }
#else
  if (node >= 0) add_force<Dim>(ku + static_cast<Size>(node) * Dim, force, coloured);
#endif
}

// The point kernel: a thread per point of each element in the block. Gather u; the gradient and
// the flux at each point, the flux into shared memory; the force at each node from the fluxes
// along its Dim lines, scattered. Two barriers; per point Dim^2 n shared-memory reads of u and as
// many of the flux (3D: 9 n each way), Dim^2 writes (order 1, not collocated: every node's u and
// every point's flux, n^Dim each).
template <int Dim, int P, class Real, int Mode, int Law>
void apply_elements(const Exec& exec, Index n, const Index* list, bool coloured, const Index* connectivity,
                    const int* section, const Real* geometry, const fem::MaterialView<Real> material, const Real* basis,
                    const Memory<Real> memory, const Real* u, Real* ku, [[maybe_unused]] int n_columns = 1) {
  // (n_columns: apply_columns's launch signature; the point kernel applies one vector)
  using L = Layout<Dim, P>;
  using S = Steps<Dim, P, Real>;
  constexpr int np = L::points;
  forall_blocks<L::threads>(exec, L::blocks(n), L::threads, L::template shared_bytes<Real>(),
                            [=] TREMOR_LAMBDA(const BlockContext& ctx) {
    constexpr bool is_pml = Law == Pml || Law == PmlViscous;
    const Real* G = load_and_gather<Dim, P, Real>(ctx, basis, n, list, connectivity, u,
                                                  is_pml ? memory.previous : nullptr, memory.rate);
    Real* work = ctx.shared<Real>() + L::basis_size;
    // The element of thread t (-1 past the last), its point and its work arrays: u, then the flux.
    const auto element = [&](int t) { return element_of(ctx, L::per_block, np, t, n, list); };
    for_each_thread(ctx, L::per_block * np, [&](int t) {
      const Index e = element(t);
      if (e < 0) return;
      const int p = t % np;
      Real* v = work + t / np * L::arrays * np;
      Real d[Dim][Dim], f[Dim][Dim];
      S::gradient(G, p, v, d);
      ElementPhysics<Dim, P, Real, Mode, Law>(geometry, section, material, e, memory).at(G, p, d, f);
      for (int c = 0; c < Dim; ++c)
        for (int alpha = 0; alpha < Dim; ++alpha) v[(Dim + Dim * c + alpha) * np + p] = f[c][alpha];
    });
    ctx.sync();
    for_each_thread(ctx, L::per_block * np, [&](int t) {
      const Index e = element(t);
      if (e < 0) return;
      const int a = t % np;
      Real force[Dim];
      S::divergence(G, a, work + t / np * L::arrays * np + Dim * np, force);
      const Index node = connectivity[static_cast<Size>(e) * np + a];
      add_force<Dim>(ku + static_cast<Size>(node) * Dim, force, coloured);
    });
  });
}

// The memory variables a block of the column kernel reads (one vector: the laws that keep them
// apply one), fetched into L2 ahead of its sums: where the blocks take the elements in order, each
// value's row of the block's group at once (PointState's rows, one bulk prefetch each), else each
// column's points one by one. Nothing for a law without them. No barrier.
template <int P, class Real, int Mode, int Law, class Element>
TREMOR_HOST_DEVICE inline void prefetch_block_memory(const BlockContext& ctx, const int* section,
                                                     const Memory<Real>& memory, Index n, const Index* list,
                                                     const Element& element) {
  if constexpr (Law == Viscous || Law == ViscousCoarse || Law == ViscousPoints) {
    using L = ColumnLayout<P, 3>;
    using Physics = ElementPhysics<3, P, Real, Mode, Law, true>;
    if (!list) {
      for_each_thread(ctx, static_cast<int>(memory.per_group / point_state(3, P, true).stride()),
                      [&](int k) { Physics::prefetch_values(section, memory, ctx.block * L::per_block, n, k); });
      return;
    }
    for_each_thread(ctx, L::per_block * L::n2, [&](int t) {
      const Index e = element(t);
      if (e < 0) return;
      for (int k = 0; k < L::n; ++k) Physics::prefetch(section, memory, e, t % L::n2 + L::n2 * k);
    });
  }
}

// The column kernel of hexahedra (Kernel::Columns): a thread per (i, j) column of an element's
// points through every step, each looping over the n points along z (so every phase keeps all
// threads busy), several elements per block where n^2 < 128. What only the column's own thread
// reads stays in its registers from one phase to the next (Carried): the column's u, gathered by
// that thread, and the z part of the transposed sums at its n nodes (6 n values). Shared memory
// holds the gathered u and the flux's x and y parts, 9 arrays per element (padded against bank
// conflicts); per point 12 n reads and 9 writes there, against the point kernel's 18 n and 12.
// The forces go out through add_forces_by_warp, each warp's in the order of their addresses.
// Several vectors (Lanes x Each = V > 1): `n_columns` vectors interleaved in u and ku (entry i of
// vector s at i n_columns + s, Operator::apply_batch), V of them per block, Lanes threads per
// column with Each vectors each (ColumnLayout). Each vector's sums are the single vector's, in the
// same order; the block's element indices, geometry and material are read once for its V vectors,
// and a thread's Jacobian, rows of G and node indices serve its Each. The x and y sums read a
// thread's Each values in one shared-memory access: fewer instructions, as many wavefronts (the
// kernel's bound: docs/benchmarks.md, "sem at order 4: 16 shots together"). A warp's gathers and
// scatters touch V consecutive entries per node and component, so its adds go out as they are.
// The blocks take the elements in groups of per_block, each group's vectors V at a time in
// consecutive blocks.
template <int P, class Real, int Mode, int Law, int Lanes = 1, int Each = 1>
void apply_columns(const Exec& exec, Index n, const Index* list, bool coloured, const Index* connectivity,
                   const int* section, const Real* geometry, const fem::MaterialView<Real> material, const Real* basis,
                   const Memory<Real> memory, const Real* u, Real* ku, int n_columns = 1) {
  static_assert(collocated<P>, "the column kernel sums along lines of nodes: GLL quadrature, order 2 and more");
  using L = ColumnLayout<P, 3, Lanes, Each>;
  constexpr int n1 = L::n, n2 = L::n2, n3 = L::points, V = L::V;
  static_assert(V == 1 || Law == Elastic, "vectors applied together: an operator without state");
  static_assert(V > 1 || point_state(3, P, true).group == L::per_block, "the memory variables' groups are the blocks'");
  static const Line<P, Real> constants = Line<P, Real>::make();
  const Line<P, Real> line = constants;
  const Index chunks = V == 1 ? 1 : (n_columns + V - 1) / V;  // blocks per group of elements
  const Size stride = V == 1 ? 1 : static_cast<Size>(n_columns);  // between a DOF's vectors
  forall_blocks<L::threads>(exec, L::blocks(n) * chunks, L::threads, L::template shared_bytes<Real>(),
                            [=] TREMOR_LAMBDA(const BlockContext& ctx) {
    Real* G = ctx.shared<Real>();
    Real* work = G + L::work_at;
    // The first vector of thread t (0 for one), and the element of its column (-1 past the last,
    // or where its vectors are past the last). (V 1: one chunk, no division.)
    const auto first = [&](int t) {
      return V == 1 ? 0 : static_cast<int>(ctx.block % chunks) * V + t % Lanes * Each;
    };
    const auto element = [&](int t) -> Index {
      if (V > 1 && first(t) >= n_columns) return -1;
      const Index i = (V == 1 ? ctx.block : ctx.block / chunks) * L::per_block + t / Lanes / n2;
      return i >= n ? Index(-1) : list ? list[i] : i;
    };
    prefetch_block_memory<P, Real, Mode, Law>(ctx, section, memory, n, list, element);
    for_each_thread(ctx, L::basis_size, [&](int t) { G[t] = basis[t]; });
    // Thread t's work arrays: its element's, at its first vector (entry (a, p) at (a n3 + p) V).
    const auto arrays = [&](int t) { return work + t / Lanes / n2 * L::stride + t % Lanes * Each; };
    // Each column's u along z, then the z sums of the transposed step at its nodes.
    using Held = std::conditional_t<Each == 1, Column<P, 3, Real>, Columns<P, 3, Real, Each>>;
    Carried<Held, L::threads> columns;
    gather_columns<P, 3, Lanes, Each>(ctx, columns, element, arrays, connectivity, u, n_columns, first);
    ctx.sync();
    for_each_thread(ctx, L::per_block * n2 * Lanes, [&](int t) {
      const Index e = element(t);
      if (e < 0) return;
      Real* v = arrays(t);
      Held& mine = columns[t];
      const int c2 = t / Lanes % n2;
      for (int q = 0; q < Each; ++q)
        for (int c = 0; c < 3; ++c)
          for (int k = 0; k < n1; ++k) column_at(mine, q).z[c][k] = Real(0);
      // The rows of G the column's sums take, in registers: the flux's stores into shared
      // memory would otherwise make the compiler reload them.
      const int i = c2 % n1, j = c2 / n1;
      Real gi[n1], gj[n1];
      for (int m = 0; m < n1; ++m) {
        gi[m] = G[i * n1 + m];
        gj[m] = G[j * n1 + m];
      }
      const Real* points = G + n1 * n1;
      const Real xi = points[i], eta = points[j], wij = points[n1 + i] * points[n1 + j];
      const ElementPhysics<3, P, Real, Mode, Law, true> physics(geometry, section, material, e, memory);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int qk = 0; qk < n1; ++qk) {
        const int p = c2 + n2 * qk;
        Real gk[n1];
        for (int m = 0; m < n1; ++m) gk[m] = line.G[qk * n1 + m];
        Real d[Each][3][3], f[Each][3][3];
        for (int c = 0; c < 3; ++c) {
          Real dx[Each], dy[Each], dz[Each];
          for (int q = 0; q < Each; ++q) dx[q] = dy[q] = dz[q] = Real(0);
          for (int m = 0; m < n1; ++m) {
            Real x[Each], y[Each];
            load_each<Each>(v + (c * n3 + p - i + m) * V, x);
            load_each<Each>(v + (c * n3 + p + n1 * (m - j)) * V, y);
            for (int q = 0; q < Each; ++q) {
              dx[q] += gi[m] * x[q];
              dy[q] += gj[m] * y[q];
              dz[q] += gk[m] * column_at(mine, q).values[c][m];
            }
          }
          for (int q = 0; q < Each; ++q) {
            d[q][c][0] = dx[q];
            d[q][c][1] = dy[q];
            d[q][c][2] = dz[q];
          }
        }
        const Real w = wij * line.w[qk];
        if constexpr (Each == 1)
          physics.at(p, w, {xi, eta, line.points[qk]}, d[0], f[0]);
        else
          physics.template at_each<Each>(p, w, {xi, eta, line.points[qk]}, d, f);
        for (int c = 0; c < 3; ++c) {
          Real fx[Each], fy[Each];
          for (int q = 0; q < Each; ++q) {
            fx[q] = f[q][c][0];
            fy[q] = f[q][c][1];
            for (int k = 0; k < n1; ++k) column_at(mine, q).z[c][k] += gk[k] * f[q][c][2];
          }
          store_each<Each>(v + ((3 + 2 * c + 0) * n3 + p) * V, fx);
          store_each<Each>(v + ((3 + 2 * c + 1) * n3 + p) * V, fy);
        }
      }
    });
    ctx.sync();
    // Every thread of the block, those without a column too: the scatter passes values between
    // the threads of a warp (add_forces_by_warp).
    for_each_thread(ctx, L::threads, [&](int t) {
      const Index e = t < L::per_block * n2 * Lanes ? element(t) : Index(-1);
      const Real* flux = arrays(t) + 3 * n3 * V;
      Held& mine = columns[t];
      const int c2 = t / Lanes % n2, i = c2 % n1, j = c2 / n1;
      // The vectors of the thread's that exist (Each where all do).
      const int valid = V == 1 ? 1 : static_cast<int>(std::min<Size>(Each, stride - static_cast<Size>(first(t))));
      Real ti[n1], tj[n1];  // the columns of G, held across the scatter's global stores
      for (int q = 0; q < n1; ++q) {
        ti[q] = G[q * n1 + i];
        tj[q] = G[q * n1 + j];
      }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int k = 0; k < n1; ++k) {
        const int a = c2 + n2 * k;
        Real force[Each][3];
        Index node = -1;
        if (e >= 0) {
          for (int c = 0; c < 3; ++c) {
            Real sum[Each];
            for (int r = 0; r < Each; ++r) sum[r] = column_at(mine, r).z[c][k];
            for (int q = 0; q < n1; ++q) {
              Real x[Each], y[Each];
              load_each<Each>(flux + ((2 * c + 0) * n3 + a + q - i) * V, x);
              load_each<Each>(flux + ((2 * c + 1) * n3 + a + n1 * (q - j)) * V, y);
              for (int r = 0; r < Each; ++r) sum[r] += ti[q] * x[r] + tj[q] * y[r];
            }
            for (int r = 0; r < Each; ++r) force[r][c] = sum[r];
          }
          node = connectivity[static_cast<Size>(e) * n3 + a];
        } else {
          for (int r = 0; r < Each; ++r) force[r][0] = force[r][1] = force[r][2] = Real(0);
        }
        if (V == 1) {
          add_forces_by_warp<3>(ku, node, force[0], coloured);
        } else if (node >= 0) {
          Real* out = ku + static_cast<Size>(node) * 3 * stride + first(t);
          for (int r = 0; r < Each; ++r) {
            if (r >= valid) break;
            for (int c = 0; c < 3; ++c) {
              if (coloured)
                out[c * stride + r] += force[r][c];
              else
                atomic_add(out + c * stride + r, force[r][c]);
            }
          }
        }
      }
    });
  });
}

}  // namespace



template <class Real>
void SemOperator<Real>::apply_unchecked(const Real* u, Real* ku) const {
  fill_zero(exec_, ku, n_dofs_);
  add_unchecked(u, ku);
}

template <class Real>
void SemOperator<Real>::add_unchecked(const Real* u, Real* ku) const {
  add_on(exec_, u, ku);
}

// How the column kernel applies several vectors (ColumnLayout): in float 8 threads per column, 2
// vectors each (a node's component of 16 vectors, 64 bytes, per warp access), in double 4 threads
// per column, 1 each (2 would not fit a thread's registers), a node's component of the block's
// vectors in one 32-byte sector (docs/benchmarks.md, "Shots stepped together").
template <class Real>
constexpr int batch_lanes = std::is_same_v<Real, float> ? 8 : 4;
template <class Real>
constexpr int batch_each = std::is_same_v<Real, float> ? 2 : 1;

template <class Real>
void SemOperator<Real>::apply_batch_unchecked(const Real* u, Real* ku, int columns) const {
  if (!fuses_batch()) return op::Operator<Real>::apply_batch_unchecked(u, ku, columns);
  fill_zero(exec_, ku, static_cast<Index>(static_cast<Size>(n_dofs_) * columns));
  add_columns(exec_, u, ku, columns);
}

template <class Real>
void SemOperator<Real>::add_batch_unchecked(const Real* u, Real* ku, int columns) const {
  if (!fuses_batch()) return op::Operator<Real>::add_batch_unchecked(u, ku, columns);
  add_columns(exec_, u, ku, columns);
}

template <class Real>
void SemOperator<Real>::add_on(const Exec& exec, const Real* u, Real* ku, const Real* previous) const {
  add_columns(exec, u, ku, 1, previous);
}

template <class Real>
void SemOperator<Real>::add_columns(const Exec& exec, const Real* u, Real* ku, int n_columns,
                                    const Real* previous) const {
  const fem::DeviceElements& els = *elements_;
  const int n_passes = coloured_ ? els.n_colours : 1;
  for (int c = 0; c < n_passes; ++c)
    for (std::size_t b = 0; b < els.blocks.size(); ++b) {
      const fem::DeviceElementBlock& block = els.blocks[b];
      Index n = coloured_ ? block.n_in(c) : block.n_elements;
      const Index* list = coloured_ ? block.in(c) : nullptr;
      if (!evaluated_offsets_[b].empty()) {  // some of the block's elements left out
        const std::vector<Index>& at = evaluated_offsets_[b];
        n = at[static_cast<std::size_t>(c) + 1] - at[static_cast<std::size_t>(c)];
        list = evaluated_[b].data() + at[static_cast<std::size_t>(c)];
      }
      if (n == 0) continue;
      const bool viscous = !memory_.empty(), pml = !pml_.empty();
      Memory<Real> memory;
      if (viscous) {
        const Size groups = memory_layout(b).groups(block.n_elements);
        memory = Memory<Real>{records_.data(), memory_[b].data(),
                              static_cast<Size>(memory_[b].size()) / std::max<Size>(groups, 1)};
        memory.coarse = coarse_[b].data();
      }
      memory.moduli = moduli_[b].size() > 0 ? moduli_[b].data() : nullptr;
      if (pml) {
        memory.pml = pml_[b].data();
        memory.stretch = stretch_[b].data();
        memory.axes = pml_axes_[b].data();
        memory.dt = static_cast<Real>(time_step_);
        if (previous && !grid_rate_.empty()) {
          memory.previous = previous;
          memory.rate = grid_rate_[b].data();
        }
      }
      with_order(block, [&](auto dim, auto order) {
        constexpr int Dim = decltype(dim)::value, P = decltype(order)::value;
        const auto pick = [&](auto physics) {
          constexpr int V = decltype(physics)::value;
          using Launch = decltype(&apply_elements<Dim, P, Real, AffineMode, V>);
          Launch launch = mode_[b] == AffineMode      ? apply_elements<Dim, P, Real, AffineMode, V>
                          : mode_[b] == TrilinearMode ? apply_elements<Dim, P, Real, TrilinearMode, V>
                                                      : apply_elements<Dim, P, Real, StoredMode, V>;
          // (a PML's blocks take the point kernel: measured faster, explicit/pml.cpp)
          if constexpr (Dim == 3 && collocated<P> && V != Pml && V != PmlViscous)
            if (columns_[b])
              launch = mode_[b] == AffineMode      ? apply_columns<P, Real, AffineMode, V>
                       : mode_[b] == TrilinearMode ? apply_columns<P, Real, TrilinearMode, V>
                                                   : apply_columns<P, Real, StoredMode, V>;
          return launch;
        };
        using ElasticLaw = std::integral_constant<int, Elastic>;
        using ViscousLaw = std::integral_constant<int, Viscous>;
        // (moduli per point exist on GLL orders 2 and more only: fem/point_materials.hpp)
        auto launch = !viscous       ? pick(ElasticLaw{})
                      : coarse_only_ ? pick(std::integral_constant<int, ViscousCoarse>{})
                                     : pick(ViscousLaw{});
        if constexpr (collocated<P>)
          if (memory.moduli)
            launch = viscous ? pick(std::integral_constant<int, ViscousPoints>{})
                             : pick(std::integral_constant<int, ElasticPoints>{});
        if constexpr (collocated<P>)  // (a PML takes GLL orders from 2: its points are the nodes)
          if (pml)
            launch = viscous ? pick(std::integral_constant<int, PmlViscous>{})
                             : pick(std::integral_constant<int, Pml>{});
        // Several vectors (fuses_batch: hexahedra of GLL order 2 and more, no state): the column
        // kernel, batch_lanes x batch_each of them a block.
        if constexpr (Dim == 3 && collocated<P>)
          if (n_columns > 1) {
            constexpr int A = batch_lanes<Real>, B = batch_each<Real>;
            launch = mode_[b] == AffineMode      ? apply_columns<P, Real, AffineMode, Elastic, A, B>
                     : mode_[b] == TrilinearMode ? apply_columns<P, Real, TrilinearMode, Elastic, A, B>
                                                 : apply_columns<P, Real, StoredMode, Elastic, A, B>;
          }
        launch(exec, n, list, coloured_, block.connectivity.data(), block.section.data(), geometry_[b].data(),
               fem::MaterialView<Real>{material_.data(), kinds_.data()}, basis_[b].data(), memory, u, ku, n_columns);
      });
    }
}

template <class Real>
std::size_t SemOperator<Real>::bytes() const {
  // The memory variables are read and written back every apply: counted twice; a PML's, those of
  // its elements' axes, with their d and alpha read. Per element, the elements evaluated only.
  std::size_t total = static_cast<std::size_t>(material_.size() + records_.size() + pml_touched_) * sizeof(Real) +
                      static_cast<std::size_t>(kinds_.size()) * sizeof(int);
  for (std::size_t b = 0; b < geometry_.size(); ++b) {
    const fem::DeviceElementBlock& block = elements_->blocks[b];
    const std::vector<Index>& evaluated = evaluated_offsets_[b];
    const bool listed = coloured_ || !evaluated.empty();
    const double share = evaluated.empty() || block.n_elements == 0 ? 1.0 : double(evaluated.back()) / block.n_elements;
    // (the values themselves: the padding of PointState's rows is neither read nor written)
    const Size memory = memory_.empty() ? 0 : memory_values(b);
    const double per_element = static_cast<double>(geometry_[b].size() + 2 * memory + moduli_[b].size()) * sizeof(Real) +
                               static_cast<double>(block.connectivity.size()) * sizeof(Index) +
                               static_cast<double>(block.section.size()) * (sizeof(int) + (listed ? sizeof(Index) : 0));
    total += static_cast<std::size_t>(basis_[b].size()) * sizeof(Real) + static_cast<std::size_t>(share * per_element);
  }
  return total;
}

template <class Real>
std::size_t SemOperator<Real>::geometry_values() const {
  std::size_t total = 0;
  for (const DeviceArray<Real>& factors : geometry_) total += static_cast<std::size_t>(factors.size());
  return total;
}

template <class Real>
std::string SemOperator<Real>::details() const {
  std::string orders;
  for (const fem::DeviceElementBlock& block : elements_->blocks)
    orders += str(orders.empty() ? "" : ", ", block.order);
  std::string geometry;
  for (std::size_t b = 0; b < mode_.size(); ++b) {
    const char mode = mode_[b];
    const bool quad = elements_->blocks[b].type == ElementType::QuadGLL;
    const char* name = mode == AffineMode      ? "affine: J per element"
                       : mode == TrilinearMode ? (quad ? "bilinear: J from the vertices" : "trilinear: J from the vertices")
                                               : "geometric factors stored per GLL point";
    if (geometry.find(name) == std::string::npos) geometry += str(geometry.empty() ? "" : " / ", name);
  }
  const bool columns = std::any_of(columns_.begin(), columns_.end(), [](char c) { return c != 0; });
  const bool per_point = std::any_of(moduli_.begin(), moduli_.end(), [](const DeviceArray<Real>& m) { return m.size() > 0; });
  return str("GLL order ", orders, ", ", geometry, columns ? ", a thread per column" : "",
             per_point ? ", moduli per GLL point (a material field)" : "", ", ",
             coloured_ ? str(elements_->n_colours, " colours") : std::string("atomic scatter"));
}

}  // namespace tremor::sem
