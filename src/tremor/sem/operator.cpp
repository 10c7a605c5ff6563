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
#include "tremor/sem/sum_factorised.hpp"

namespace tremor::sem {

namespace {

// How a block of threads covers elements of dimension Dim and order P: one thread per point,
// several elements per block where an element has fewer than 128 points (so a block keeps 4
// warps busy), the threads rounded up to whole warps. Shared memory per element: `arrays` arrays
// of n^Dim values (the gathered u, Dim, and the flux, Dim^2), plus the 1D basis (basis_size
// values, Basis1d::values). Geometric values: per element (affine) or per point (stored) J^-1 and
// the scale, Dim^2 + 1; per element the 2^Dim vertices and the scale (multilinear).
template <int Dim, int P>
struct Layout {
  static constexpr int n = P + 1, points = Dim == 3 ? n * n * n : n * n;
  static constexpr int per_block = points >= 128 ? 1 : 128 / points;
  static constexpr int threads = (per_block * points + 31) / 32 * 32;
  static constexpr int arrays = Dim + Dim * Dim;
  static constexpr int basis_size = Basis1d<P>::size;
  static constexpr int factors = Dim * Dim + 1, vertices = 1 << Dim, corners = Dim * vertices + 1;
  template <class T>
  static constexpr std::size_t shared_bytes() {
    return (basis_size + static_cast<std::size_t>(per_block) * arrays * points) * sizeof(T);
  }
  static Index blocks(Index n_elements) { return (n_elements + per_block - 1) / per_block; }
};

template <int Dim, int P, class T>
using Steps = Collocated<Dim, P, T>;

// The product of the GLL weights at point p (lexicographic, x fastest).
template <int Dim, int n, class T>
TREMOR_HOST_DEVICE T weight(const T* w, int p) {
  T product = w[p % n] * w[p / n % n];
  if constexpr (Dim == 3) product *= w[p / (n * n)];
  return product;
}

// The element of a block's thread t, whose elements take `per_element` threads each, `per_block`
// of them: list[i] (or i without a list) for the block's i-th element, -1 past the last of n.
TREMOR_HOST_DEVICE inline Index element_of(const BlockContext& ctx, int per_block, int per_element, int t, Index n,
                                           const Index* list) {
  const Index i = ctx.block * per_block + t / per_element;
  return i >= n ? Index(-1) : list ? list[i] : i;
}

// The start of every element's work in a block (forall_blocks body): the 1D basis copied into
// shared memory (Basis1d::values: G, the points, the weights, B), each element's Dim values per node (u, or the
// coordinates) gathered into the first Dim arrays of its work, a barrier. The block's elements
// are list[i] (or i without a list) for i < n. Returns G.
template <int Dim, int P, class T>
TREMOR_HOST_DEVICE T* load_and_gather(const BlockContext& ctx, const T* basis, Index n, const Index* list,
                                      const Index* connectivity, const T* values) {
  using L = Layout<Dim, P>;
  constexpr int np = L::points;
  T* G = ctx.shared<T>();
  T* work = G + L::basis_size;
  for_each_thread(ctx, L::basis_size, [&](int t) { G[t] = basis[t]; });
  for_each_thread(ctx, L::per_block * np, [&](int t) {
    const Index e = element_of(ctx, L::per_block, np, t, n, list);
    if (e < 0) return;
    const int p = t % np;
    const Index node = connectivity[static_cast<Size>(e) * np + p];
    T* v = work + t / np * L::arrays * np;
    for (int c = 0; c < Dim; ++c) v[c * np + p] = values[static_cast<Size>(node) * Dim + c];
  });
  ctx.sync();
  return G;
}

// f(dim, order) for a block of GLL hexahedra or quadrilaterals (std::integral_constant each),
// through fem::with_element (the one runtime-to-template switch); nothing for a block of another
// type (only empty ones reach here: the constructor refuses the others).
template <class F>
void with_order(const fem::DeviceElementBlock& block, F&& f) {
  fem::with_element(block.type, block.order, [&](auto element) {
    using E = decltype(element);
    if constexpr (E::type == ElementType::HexGLL || E::type == ElementType::QuadGLL)
      f(std::integral_constant<int, E::dim>{}, std::integral_constant<int, E::order>{});
  });
}

// The geometric factors of one block's n elements: per element and GLL point q,
// geometry[(e * F + m) * n^Dim + q] = J^-1 [m / Dim][m % Dim] for m < Dim^2 and
// w det J * scale[e] for m = Dim^2 (F = Dim^2 + 1). The node coordinates take the gradient of the
// apply (in double), so the Jacobian is exact for the element's geometry of order P.
// bad[e] = 1 where det J <= 0 at some point.
template <int Dim, int P, class Real>
void compute_geometry(const Exec& exec, Index n, const Index* connectivity, const double* coordinates,
                      const double* scale, const double* basis, Real* geometry, int* bad) {
  using L = Layout<Dim, P>;
  constexpr int n1 = L::n, np = L::points, F = L::factors;
  forall(exec, n, [=] TREMOR_LAMBDA(Index e) { bad[e] = 0; });
  forall_blocks<L::threads>(exec, L::blocks(n), L::threads, L::template shared_bytes<double>(),
                            [=] TREMOR_LAMBDA(const BlockContext& ctx) {
    const double* G = load_and_gather<Dim, P, double>(ctx, basis, n, nullptr, connectivity, coordinates);
    const double* work = G + L::basis_size;
    for_each_thread(ctx, L::per_block * np, [&](int t) {
      const Index e = element_of(ctx, L::per_block, np, t, n, nullptr);
      if (e < 0) return;
      const int p = t % np;
      double J[Dim][Dim], inv[Dim][Dim];
      Steps<Dim, P, double>::gradient(G, p, work + t / np * L::arrays * np, J);
      const double det = invert_jacobian(J, inv);
      const double* w = G + n1 * n1 + n1;  // the GLL weights follow G and the points
      Real* out = geometry + static_cast<Size>(e) * F * np + p;
      for (int m = 0; m < Dim * Dim; ++m) out[m * np] = static_cast<Real>(inv[m / Dim][m % Dim]);
      out[Dim * Dim * np] = static_cast<Real>(weight<Dim, n1>(w, p) * det * scale[e]);
      if (!(det > 0.0)) bad[e] = 1;
    });
  });
}

// The Jacobian of the multilinear map of an element's vertices (x relative to vertex 0).
template <class T>
TREMOR_HOST_DEVICE void vertex_jacobian(const T* x, const T* xi, T (&J)[3][3]) {
  trilinear_jacobian(x, xi[0], xi[1], xi[2], J);
}
template <class T>
TREMOR_HOST_DEVICE void vertex_jacobian(const T* x, const T* xi, T (&J)[2][2]) {
  bilinear_jacobian(x, xi[0], xi[1], J);
}

// How each of a block's n elements is shaped (Shape): on the multilinear (trilinear, bilinear)
// map of its vertices when every node is within 1e-12 of the element's diagonal of that map (a
// generated or elevated hex8 or quad4 mesh, to rounding), and then affine (a parallelepiped or
// parallelogram) when its vertices are too; inverted when det J <= 0 at a GLL point of that map.
// corners[C e ..] = the vertices relative to vertex 0 (Dim 2^Dim values) and the element's scale
// (the absorbing layers' stiffness factor times the section's thickness), what the multilinear
// apply reads; affine[F e ..] = J^-1 (Dim^2 values) and det J times the scale, what the affine
// apply reads.
enum Shape : int { Affine = 0, Curved = 1, Inverted = 2, Trilinear = 3 };

template <int Dim, int P, class Real>
void survey_corners(const Exec& exec, Index n, const Index* connectivity, const double* coordinates,
                    const double* scale, const double* basis, Real* corners, Real* affine, int* flags) {
  using E = fem::GllElement<Dim, P>;
  using L = Layout<Dim, P>;
  constexpr int n1 = L::n, np = L::points, V = L::vertices, C = L::corners, F = L::factors;
  forall(exec, n, [=] TREMOR_LAMBDA(Index e) {
    const Index* nodes = connectivity + static_cast<Size>(e) * np;
    const double* origin = coordinates + static_cast<Size>(nodes[0]) * Dim;
    double x[Dim * V], size2 = 0.0;
    for (int v = 0; v < V; ++v) {
      const double* at = coordinates + static_cast<Size>(nodes[fem::vertex_node<E>(v)]) * Dim;
      double length2 = 0.0;
      for (int c = 0; c < Dim; ++c) {
        x[Dim * v + c] = at[c] - origin[c];
        length2 += x[Dim * v + c] * x[Dim * v + c];
      }
      size2 = size2 > length2 ? size2 : length2;
    }
    double gll[n1];
    gll_points(n1, gll);
    int flag = Affine;
    for (int a = 0; a < np && flag == Affine; ++a) {
      const double xi[3] = {gll[a % n1], gll[a / n1 % n1], Dim == 3 ? gll[a / (n1 * n1)] : 0.0};
      const double* at = coordinates + static_cast<Size>(nodes[a]) * Dim;
      double off2 = 0.0;
      for (int c = 0; c < Dim; ++c) {
        double mapped = 0.0;
        for (int v = 1; v < V; ++v) {
          double s[3];
          vertex_signs(v, s[0], s[1], s[2]);
          double shape = 1.0;
          for (int d = 0; d < Dim; ++d) shape *= 0.5 * (1.0 + s[d] * xi[d]);
          mapped += shape * x[Dim * v + c];
        }
        const double d = at[c] - origin[c] - mapped;
        off2 += d * d;
      }
      if (off2 > 1e-24 * size2) flag = Curved;
    }
    const double* points = basis + n1 * n1;
    for (int q = 0; q < np && flag == Affine; ++q) {
      const double xi[3] = {points[q % n1], points[q / n1 % n1], Dim == 3 ? points[q / (n1 * n1)] : 0.0};
      double J[Dim][Dim], inv[Dim][Dim];
      vertex_jacobian(x, xi, J);
      if (!(invert_jacobian(J, inv) > 0.0)) flag = Inverted;
    }
    // Affine: every vertex at x0 + i a + j b (+ k c) (a, b, c the edges from vertex 0 to vertices
    // 1, 3 and 4, i, j, k in {0, 1}); then J = [a b c] / 2 everywhere.
    constexpr int edge[3] = {1, 3, 4};
    for (int v = 1; v < V && flag == Affine; ++v) {
      double s[3];
      vertex_signs(v, s[0], s[1], s[2]);
      double off2 = 0.0;
      for (int c = 0; c < Dim; ++c) {
        double d = x[Dim * v + c];
        for (int k = 0; k < Dim; ++k)
          if (s[k] > 0) d -= x[Dim * edge[k] + c];
        off2 += d * d;
      }
      if (off2 > 1e-24 * size2) flag = Trilinear;
    }
    if (flag == Affine) {
      double J[Dim][Dim], inv[Dim][Dim];
      for (int c = 0; c < Dim; ++c)
        for (int k = 0; k < Dim; ++k) J[c][k] = 0.5 * x[Dim * edge[k] + c];
      const double det = invert_jacobian(J, inv);
      for (int m = 0; m < Dim * Dim; ++m) affine[static_cast<Size>(e) * F + m] = static_cast<Real>(inv[m / Dim][m % Dim]);
      affine[static_cast<Size>(e) * F + Dim * Dim] = static_cast<Real>(det * scale[e]);
    }
    for (int k = 0; k < Dim * V; ++k) corners[static_cast<Size>(e) * C + k] = static_cast<Real>(x[k]);
    corners[static_cast<Size>(e) * C + Dim * V] = static_cast<Real>(scale[e]);
    flags[e] = flag;
  });
}

// The kernels below: ku += K_e u_e for the n elements of one block (list[i] for i < n, or i itself
// without a list). coloured: the elements are one colour's, which share no node (plain adds); else
// they add by atomics. Each reads the geometry by Mode (the Geometry of a block): the stored
// factors (compute_geometry), the corners or the affine factors (survey_corners).
enum Mode : int { StoredMode = 0, TrilinearMode = 1, AffineMode = 2 };

// The pointwise physics of element e: what every point of it shares, read once (its material;
// the Jacobian of an affine element), then at(p) the flux f from the gradient d at point p, with
// the Jacobian as the block's Mode has it. G is the 1D basis in shared memory (G, then the GLL
// points and weights follow). A thread that computes several points of one element (the column
// kernel) reads the shared values once rather than at each point: fewer L1 requests where they
// limit the kernel.
// The memory variables of a block's elements (fem/viscoelastic.hpp), element by element: value k
// of solid l at point p of element e at values[e per_element + (l n_voigt + k) points + p] (an
// element's together, each value's points in a row: a warp's points read and write runs of
// neighbours); the sections' step coefficients, fem::solids_stride each.
// A PML's elements (explicit/pml.hpp) add their own: value k of point p at pml[e pml_per_element
// + k points + p] (fem::pml_point_values of them), and the stretching there, d_k at stretch[e 2
// Dim points + k points + p] and alpha_k Dim points further; the element's axes (fem::pml_flux:
// only theirs are read and written) at axes[e]; dt, the step they advance by.
template <class Real>
struct Memory {
  const Real* records = nullptr;
  Real* values = nullptr;
  Size per_element = 0;
  Real* pml = nullptr;
  const Real* stretch = nullptr;
  const int* axes = nullptr;
  Real dt = Real(0);
};

// What the law at each point is: the section's (Elastic); the section's with its memory variables
// (Viscous, Memory), advanced by a step; or a PML's flux (fem/pml_law.hpp) of the section's law,
// with the PML's own (Pml), or of the section's viscoelastic law where the block keeps memory
// variables (PmlViscous: a kernel of its own, the elastic layer's registers not the viscous one's).
// The elastic kernels are built without either.
enum Physics : int { Elastic = 0, Viscous = 1, Pml = 2, PmlViscous = 3 };

template <int Dim, int P, class Real, int Mode, int Law = Elastic>
struct ElementPhysics {
  using L = Layout<Dim, P>;
  static constexpr int n1 = L::n;
  const Real* factors;
  Index e;
  fem::SectionLaw<Dim, Real> law;
  Real inv[Dim][Dim], det;  // affine elements only
  static constexpr bool is_pml = Law == Pml || Law == PmlViscous;
  const Real* record = nullptr;  // Viscous, PmlViscous: the section's solids
  Real* memory = nullptr;        // Viscous, PmlViscous: the first point's memory variables (L::points apart)
  Real* pml = nullptr;           // is_pml: the element's first point's PML variables (L::points apart)
  const Real* stretch = nullptr;  // is_pml: the element's d and alpha
  int axes = 0;                   // is_pml: the element's stretched axes
  Real dt = Real(0);

  TREMOR_HOST_DEVICE ElementPhysics(const Real* geometry, const int* section, const fem::MaterialView<Real>& material,
                                    Index element, const Memory<Real>& state = {})
      : factors(geometry), e(element), law(material, section[element]) {
    if constexpr (Law != Elastic) {
      if (state.records) {
        record = state.records + static_cast<Size>(fem::solids_stride) * section[element];
        memory = state.values + static_cast<Size>(element) * state.per_element;
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
  // H200); the point kernel's, with memory variables or a PML's, did not gain (the PML's lost 6%).
  TREMOR_HOST_DEVICE static void prefetch(const int* section, const Memory<Real>& state, Index e, int p) {
#if defined(__CUDA_ARCH__)
    if constexpr (Law == Viscous) {
      if (!state.records) return;
      const int solids = static_cast<int>(state.records[static_cast<Size>(fem::solids_stride) * section[e]]);
      const Real* at = state.values + static_cast<Size>(e) * state.per_element + p;
      for (int k = 0; k < solids * fem::voigt_size<Dim>; ++k) prefetch_l2(at + k * L::points);
    }
#else
    (void)section, (void)state, (void)e, (void)p;
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
    using Viscoelastic = fem::ViscoelasticPoint<Dim, Real, fem::SectionLaw<Dim, Real>>;
    if constexpr (Law == PmlViscous) {
      pml_at(p, w, xi, d, f, Viscoelastic{law, record, memory + p, L::points});
    } else if constexpr (Law == Pml) {
      pml_at(p, w, xi, d, f, law);
    } else if constexpr (Law == Viscous) {
      at(p, w, xi, d, f, Viscoelastic{law, record, memory + p, L::points});
    } else {
      at(p, w, xi, d, f, law);
    }
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
                    const Memory<Real> memory, const Real* u, Real* ku) {
  using L = Layout<Dim, P>;
  using S = Steps<Dim, P, Real>;
  constexpr int np = L::points;
  forall_blocks<L::threads>(exec, L::blocks(n), L::threads, L::template shared_bytes<Real>(),
                            [=] TREMOR_LAMBDA(const BlockContext& ctx) {
    const Real* G = load_and_gather<Dim, P, Real>(ctx, basis, n, list, connectivity, u);
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

// The 1D basis of order P in Real (Basis1d's G, points and weights), passed to the column kernel
// by value: on a GPU it sits among the kernel's parameters, in the constant bank, so that its
// entries at indices known at compile time (the same for every thread: the loop over the points
// along z, unrolled) are operands of the multiply-adds rather than shared-memory loads or
// registers (80 registers per thread in float at P = 4 instead of 96).
template <int P, class Real>
struct Line {
  static constexpr int n = P + 1;
  Real G[n * n], points[n], w[n];
  static Line make() {
    const Basis1d<P> basis;
    Line line{};
    for (int m = 0; m < n * n; ++m) line.G[m] = static_cast<Real>(basis.G[m]);
    for (int m = 0; m < n; ++m) {
      line.points[m] = static_cast<Real>(basis.points[m]);
      line.w[m] = static_cast<Real>(basis.w[m]);
    }
    return line;
  }
};

// The column kernel of hexahedra (Kernel::Columns): a thread per (i, j) column of an element's
// points through every step, each looping over the n points along z (so every phase keeps all
// threads busy), several elements per block where n^2 < 128. What only the column's own thread
// reads stays in its registers from one phase to the next (Carried): the column's u, gathered by
// that thread, and the z part of the transposed sums at its n nodes (6 n values). Shared memory
// holds the gathered u and the flux's x and y parts, 9 arrays per element (padded against bank
// conflicts); per point 12 n reads and 9 writes there, against the point kernel's 18 n and 12.
// The forces go out through add_forces_by_warp, each warp's in the order of their addresses.
template <int P>
struct ColumnLayout : Layout<3, P> {
  static constexpr int n2 = (P + 1) * (P + 1);
  static constexpr int per_block = n2 >= 128 ? 1 : 128 / n2;
  static constexpr int threads = (per_block * n2 + 31) / 32 * 32;
  static constexpr int arrays = 3 + 6;  // u, then the flux's x and y parts per component
  // Each element's arrays `stride` values apart: padded to n^2 modulo the 32 banks, so that the
  // two elements a warp can hold meet the banks as consecutive columns of one element would.
  static constexpr int used = arrays * Layout<3, P>::points;
  static constexpr int stride = used + ((n2 - used) % 32 + 32) % 32;
  template <class T>
  static constexpr std::size_t shared_bytes() {
    return (Layout<3, P>::basis_size + static_cast<std::size_t>(per_block) * stride) * sizeof(T);
  }
  static Index blocks(Index n_elements) { return (n_elements + per_block - 1) / per_block; }
};

template <int P, class Real, int Mode, int Law>
void apply_columns(const Exec& exec, Index n, const Index* list, bool coloured, const Index* connectivity,
                   const int* section, const Real* geometry, const fem::MaterialView<Real> material, const Real* basis,
                   const Memory<Real> memory, const Real* u, Real* ku) {
  static_assert(collocated<P>, "the column kernel sums along lines of nodes: GLL quadrature, order 2 and more");
  using L = ColumnLayout<P>;
  constexpr int n1 = L::n, n2 = L::n2, n3 = L::points;
  static const Line<P, Real> constants = Line<P, Real>::make();
  const Line<P, Real> line = constants;
  forall_blocks<L::threads>(exec, L::blocks(n), L::threads, L::template shared_bytes<Real>(),
                            [=] TREMOR_LAMBDA(const BlockContext& ctx) {
    Real* G = ctx.shared<Real>();
    Real* work = G + L::basis_size;
    // The element of thread t's column (-1 past the last), and its work arrays.
    const auto element = [&](int t) { return element_of(ctx, L::per_block, n2, t, n, list); };
    if (Law == Viscous)  // (a constant: an extended lambda takes no first capture inside if constexpr)
      for_each_thread(ctx, L::per_block * n2, [&](int t) {
        const Index e = element(t);
        if (e < 0) return;
        for (int k = 0; k < n1; ++k)
          ElementPhysics<3, P, Real, Mode, Law>::prefetch(section, memory, e, t % n2 + n2 * k);
      });
    for_each_thread(ctx, L::basis_size, [&](int t) { G[t] = basis[t]; });
    const auto arrays = [&](int t) { return work + t / n2 * L::stride; };
    // Each column's u along z, then the z sums of the transposed step at its nodes.
    struct Column {
      Real u[3][n1], z[3][n1];
    };
    Carried<Column, L::threads> columns;
    for_each_thread(ctx, L::per_block * n2, [&](int t) {
      const Index e = element(t);
      if (e < 0) return;
      Real* v = arrays(t);
      Column& mine = columns[t];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int k = 0; k < n1; ++k) {
        const int p = t % n2 + n2 * k;
        const Index node = connectivity[static_cast<Size>(e) * n3 + p];
        for (int c = 0; c < 3; ++c) v[c * n3 + p] = mine.u[c][k] = u[static_cast<Size>(node) * 3 + c];
      }
    });
    ctx.sync();
    for_each_thread(ctx, L::per_block * n2, [&](int t) {
      const Index e = element(t);
      if (e < 0) return;
      Real* v = arrays(t);
      Column& mine = columns[t];
      const int c2 = t % n2;
      for (int c = 0; c < 3; ++c)
        for (int k = 0; k < n1; ++k) mine.z[c][k] = Real(0);
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
      const ElementPhysics<3, P, Real, Mode, Law> physics(geometry, section, material, e, memory);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int qk = 0; qk < n1; ++qk) {
        const int p = c2 + n2 * qk;
        Real gk[n1];
        for (int m = 0; m < n1; ++m) gk[m] = line.G[qk * n1 + m];
        Real d[3][3], f[3][3];
        for (int c = 0; c < 3; ++c) {
          Real dx = Real(0), dy = Real(0), dz = Real(0);
          for (int m = 0; m < n1; ++m) {
            dx += gi[m] * v[c * n3 + p - i + m];
            dy += gj[m] * v[c * n3 + p + n1 * (m - j)];
            dz += gk[m] * mine.u[c][m];
          }
          d[c][0] = dx;
          d[c][1] = dy;
          d[c][2] = dz;
        }
        physics.at(p, wij * line.w[qk], {xi, eta, line.points[qk]}, d, f);
        for (int c = 0; c < 3; ++c) {
          v[(3 + 2 * c + 0) * n3 + p] = f[c][0];
          v[(3 + 2 * c + 1) * n3 + p] = f[c][1];
          for (int k = 0; k < n1; ++k) mine.z[c][k] += gk[k] * f[c][2];
        }
      }
    });
    ctx.sync();
    // Every thread of the block, those without a column too: the scatter passes values between
    // the threads of a warp (add_forces_by_warp).
    for_each_thread(ctx, L::threads, [&](int t) {
      const Index e = t < L::per_block * n2 ? element(t) : Index(-1);
      const Real* flux = arrays(t) + 3 * n3;
      const Column& mine = columns[t];
      const int c2 = t % n2, i = c2 % n1, j = c2 / n1;
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
        Real force[3] = {Real(0), Real(0), Real(0)};
        Index node = -1;
        if (e >= 0) {
          for (int c = 0; c < 3; ++c) {
            Real sum = mine.z[c][k];
            for (int q = 0; q < n1; ++q)
              sum += ti[q] * flux[(2 * c + 0) * n3 + a + q - i] + tj[q] * flux[(2 * c + 1) * n3 + a + n1 * (q - j)];
            force[c] = sum;
          }
          node = connectivity[static_cast<Size>(e) * n3 + a];
        }
        add_forces_by_warp<3>(ku, node, force, coloured);
      }
    });
  });
}

// Each element's scale of w det J: the absorbing layers' stiffness factor times the section's
// thickness (1 in 3D; 2D integrals are per unit thickness).
DeviceArray<double> element_scale(const Exec& exec, const fem::DeviceElements& els, const fem::DeviceElementBlock& block) {
  DeviceArray<double> scale(exec, block.n_elements);
  double* out = scale.data();
  const double *factor = block.stiffness_factor.data(), *thickness = els.thickness.data();
  const int* section = block.section.data();
  forall(exec, block.n_elements, [=] TREMOR_LAMBDA(Index e) { out[e] = factor[e] * thickness[section[e]]; });
  return scale;
}

// Floating-point operations of one element's apply, counted from the steps above (a multiply-add
// is 2): the sums along the lines (per point Dim^2 n multiply-adds for the gradient and as many
// back: 3D 36 n^4 per element, 2D 16 n^3; order 1, Dim^2 n^Dim each way), then per point the
// gradient d inv, the strain, the
// stress, the flux with its scale, the Jacobian where it is recomputed (and the weight product),
// and the scatter's adds.
double element_flops(int dim, int order, int mode, bool isotropic) {
  const double n = order + 1, points = dim == 3 ? n * n * n : n * n;
  const double sweeps = order == 1 ? 4.0 * dim * dim * points * points  // every shape function, both ways
                        : dim == 3 ? 36.0 * n * n * n * n : 16.0 * n * n * n;
  double point = 0.0;
  if (dim == 3) {
    point = 54 + 3 + (isotropic ? 15 : 72) + 63 + 3;  // gradient, strain, stress, flux, scatter
    point += mode == AffineMode ? 3 : mode == TrilinearMode ? 270 : 0;
  } else {
    point = 16 + 1 + (isotropic ? 9 : 18) + 20 + 2;
    point += mode == AffineMode ? 2 : mode == TrilinearMode ? 53 : 0;
  }
  return sweeps + points * point;
}

// Whether the hexahedra of an order take the column kernel (apply_columns) unless told: where it
// was measured faster with the atomic scatter (H100, 20M-DOF plates, docs/benchmarks.md), orders
// 2 to 8 in float and double, by 1-17%; at order 1 the point kernel's 16 elements per block do
// better. Colour by colour, each launch one colour's elements, the point kernel.
bool columns_by_default(int order, bool coloured) { return !coloured && order >= 2; }

bool gll(ElementType type) { return type == ElementType::HexGLL || type == ElementType::QuadGLL; }

// Why element block b (0-based) of this type stops the sem operator, and what to do.
std::string refusal(std::size_t b, ElementType type, int order) {
  return str("the sem operator takes GLL hexahedra and quadrilaterals (order 1..", max_gll_order, "); element block ",
             b + 1, " holds ",
             element_name(type, order),
             " elements: raise a hex8, hex20 or hex27 (2D: quad4, quad8 or quad9) mesh to GLL order P with "
             "`[mesh] order = P` in the model file or `--order P`, generate `hex-gllP` or `quad-gllP` elements, or "
             "choose another operator");
}

}  // namespace

std::string unsupported_mesh(const Mesh& mesh) {
  for (std::size_t b = 0; b < mesh.blocks.size(); ++b) {
    const ElementBlock& block = mesh.blocks[b];
    if (!gll(block.type) && block.n_elements() > 0) return refusal(b, block.type, block.order);
  }
  return {};
}

std::size_t loop_bytes(const Mesh& mesh, std::size_t real_size, std::size_t geometry_values) {
  std::size_t total = 0;
  for (const ElementBlock& block : mesh.blocks) {
    if (!gll(block.type) || block.n_elements() == 0) continue;
    const auto points = static_cast<std::size_t>(block.n_element_nodes());
    const auto n_elements = static_cast<std::size_t>(block.n_elements());
    const std::size_t factors = block.type == ElementType::QuadGLL ? 5 : 10;  // J^-1 and w det J per point
    if (geometry_values == 0) total += n_elements * points * factors * real_size;
    // The 1D basis (Basis1d<P>::values: G, points, weights, B), at most 4 (P + 1)^2 values.
    total += 4 * static_cast<std::size_t>(block.order + 1) * static_cast<std::size_t>(block.order + 1) * real_size;
  }
  // (The materials, 36 values and a flag per section, are a few hundred bytes.)
  return total + geometry_values * real_size;
}

std::size_t setup_bytes(const Mesh& mesh, std::size_t real_size) {
  std::size_t most = 0;
  for (const ElementBlock& block : mesh.blocks) {
    if (!gll(block.type)) continue;
    const bool quad = block.type == ElementType::QuadGLL;
    most = std::max(most, static_cast<std::size_t>(block.n_elements()) *
                              ((quad ? 9 + 5 : 25 + 10) * real_size + sizeof(int) + sizeof(double)));
  }
  return most;
}

template <class Real>
SemOperator<Real>::SemOperator(std::shared_ptr<const fem::DeviceElements> elements, bool deterministic,
                               Geometry geometry, Kernel kernel, double time_step, const PmlProfile* pml)
    : exec_(elements->exec), n_dofs_(elements->n_dofs()), elements_(std::move(elements)) {
  const fem::DeviceElements& els = *elements_;
  for (std::size_t b = 0; b < els.blocks.size(); ++b)
    TREMOR_CHECK(gll(els.blocks[b].type) || els.blocks[b].n_elements == 0,
                 refusal(b, els.blocks[b].type, els.blocks[b].order));
  coloured_ = deterministic && els.n_colours > 0;
  TREMOR_CHECK(!deterministic || coloured_ || els.n_elements() == 0,
               "the sem operator: a deterministic scatter needs the elements built with a colouring");
  const std::vector<double> D = els.D.to_host();
  const std::vector<int> kinds = els.law.to_host();
  material_ = DeviceArray<Real>(exec_, std::span<const Real>(rounded<Real>(D)));
  kinds_ = DeviceArray<int>(exec_, std::span<const int>(kinds));
  for (std::size_t b = 0; b < els.blocks.size(); ++b) {
    const fem::DeviceElementBlock& block = els.blocks[b];
    if (!gll(block.type)) {  // an empty block of another type: nothing to apply
      basis_.emplace_back();
      geometry_.emplace_back();
      mode_.push_back(StoredMode);
      columns_.push_back(false);
      continue;
    }
    const DeviceArray<double> scale = element_scale(exec_, els, block);
    with_order(block, [&](auto dim, auto order) {
      constexpr int Dim = decltype(dim)::value, P = decltype(order)::value;
      using L = Layout<Dim, P>;
      const std::vector<double> host = Basis1d<P>().values();
      basis_.emplace_back(exec_, std::span<const Real>(rounded<Real>(host)));
      const DeviceArray<double> exact(exec_, std::span<const double>(host));
      const auto inverted = [&](const std::vector<int>& flags, int value) {
        const auto first = std::find(flags.begin(), flags.end(), value);
        TREMOR_CHECK(first == flags.end(), "the sem operator: element ", block.first + (first - flags.begin()) + 1,
                     " (", element_name(block.type, block.order), ", element block ", b + 1,
                     ") has a Jacobian that is not positive at a GLL point: the element is inverted or degenerate");
      };
      // The shapes first, with the corners and the affine factors: one is kept when every element
      // of the block is trilinear, or affine.
      DeviceArray<Real> corners(exec_, block.n_elements * L::corners), affine(exec_, block.n_elements * L::factors);
      DeviceArray<int> flags(exec_, block.n_elements);
      survey_corners<Dim, P, Real>(exec_, block.n_elements, block.connectivity.data(), els.coordinates.data(),
                                   scale.data(), exact.data(), corners.data(), affine.data(), flags.data());
      const std::vector<int> shapes = flags.to_host();  // waits for the kernel
      inverted(shapes, Inverted);
      const auto all = [&](auto is) { return std::all_of(shapes.begin(), shapes.end(), is); };
      const bool stored = geometry == Geometry::Stored;
      mode_.push_back(!stored && all([](int s) { return s == Affine; }) ? AffineMode
                      : !stored && all([](int s) { return s == Affine || s == Trilinear; }) ? TrilinearMode
                                                                                           : StoredMode);
      if (mode_.back() != StoredMode) {
        geometry_.push_back(std::move(mode_.back() == AffineMode ? affine : corners));
        return;
      }
      corners = DeviceArray<Real>();
      affine = DeviceArray<Real>();
      geometry_.emplace_back(exec_, block.n_elements * L::factors * L::points);
      compute_geometry<Dim, P, Real>(exec_, block.n_elements, block.connectivity.data(), els.coordinates.data(),
                                     scale.data(), exact.data(), geometry_.back().data(), flags.data());
      inverted(flags.to_host(), 1);  // compute_geometry's flag
    });
    const int dim = block.type == ElementType::HexGLL ? 3 : 2;
    const bool columns = kernel == Kernel::Columns ||
                         (kernel == Kernel::Auto && columns_by_default(block.order, coloured_));
    columns_.push_back(dim == 3 && columns && block.order >= 2);  // order 1: points (not collocated)
    std::vector<double> per_section(kinds.size(), 0.0);
    for (std::size_t s = 0; s < per_section.size(); ++s)
      per_section[s] = element_flops(dim, block.order, mode_.back(), kinds[s] == int(fem::LawKind::Isotropic));
    const std::vector<int> sections = block.section.to_host();
    const std::vector<double> factors = block.stiffness_factor.to_host();
    for (std::size_t e = 0; e < sections.size(); ++e)
      flops_ += factors[e] != 0.0 ? per_section[static_cast<std::size_t>(sections[e])] : 0.0;
  }
  leave_out_unstiffened();
  if (time_step > 0.0 && els.attenuates()) keep_memory_variables(time_step);
  if (pml) keep_pml(*pml, time_step);
}

// An element whose stiffness factor is 0 adds nothing: a PML's (explicit/pml.hpp), 9.5% of the
// gll4 plate's elements in bench/models/plate-gll4-pml.toml, evaluated here for nothing before.
template <class Real>
void SemOperator<Real>::leave_out_unstiffened() {
  const fem::DeviceElements& els = *elements_;
  for (const fem::DeviceElementBlock& block : els.blocks) {
    const std::vector<double> factors = block.stiffness_factor.to_host();
    std::vector<Index> list, offsets{0};
    if (std::find(factors.begin(), factors.end(), 0.0) != factors.end()) {
      const std::vector<Index> all = coloured_ ? block.colour_elements.to_host() : std::vector<Index>();
      const std::vector<Index> bounds = coloured_ ? block.colour_offsets : std::vector<Index>{0, block.n_elements};
      for (std::size_t c = 0; c + 1 < bounds.size(); ++c) {
        for (Index k = bounds[c]; k < bounds[c + 1]; ++k) {
          const Index e = coloured_ ? all[static_cast<std::size_t>(k)] : k;
          if (factors[static_cast<std::size_t>(e)] != 0.0) list.push_back(e);
        }
        offsets.push_back(static_cast<Index>(list.size()));
      }
    } else {
      offsets.clear();
    }
    evaluated_.emplace_back(exec_, std::span<const Index>(list));
    evaluated_offsets_.push_back(std::move(offsets));
  }
}

template <class Real>
void SemOperator<Real>::apply_unchecked(const Real* u, Real* ku) const {
  fill_zero(exec_, ku, n_dofs_);
  add_unchecked(u, ku);
}

template <class Real>
void SemOperator<Real>::add_unchecked(const Real* u, Real* ku) const {
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
      if (viscous)
        memory = Memory<Real>{records_.data(), memory_[b].data(),
                              static_cast<Size>(memory_[b].size()) / std::max<Size>(block.n_elements, 1)};
      if (pml) {
        memory.pml = pml_[b].data();
        memory.stretch = stretch_[b].data();
        memory.axes = pml_axes_[b].data();
        memory.dt = static_cast<Real>(time_step_);
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
        auto launch = viscous ? pick(ViscousLaw{}) : pick(ElasticLaw{});
        if constexpr (collocated<P>)  // (a PML takes GLL orders from 2: its points are the nodes)
          if (pml)
            launch = viscous ? pick(std::integral_constant<int, PmlViscous>{})
                             : pick(std::integral_constant<int, Pml>{});
        launch(exec_, n, list, coloured_, block.connectivity.data(), block.section.data(), geometry_[b].data(),
               fem::MaterialView<Real>{material_.data(), kinds_.data()}, basis_[b].data(), memory, u, ku);
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
    const Size memory = memory_.empty() ? 0 : memory_[b].size();
    const double per_element = static_cast<double>(geometry_[b].size() + 2 * memory) * sizeof(Real) +
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
  return str("GLL order ", orders, ", ", geometry, columns ? ", a thread per column" : "", ", ",
             coloured_ ? str(elements_->n_colours, " colours") : std::string("atomic scatter"));
}

namespace {

template <class Real>
std::unique_ptr<op::Operator<Real>> make_sem(const op::OperatorInputs& inputs) {
  return std::make_unique<SemOperator<Real>>(inputs.elements, inputs.deterministic, Geometry::Auto, Kernel::Auto,
                                             inputs.time_step);
}

// The reference: the elements built on the Exec from the section table and colouring, scattered
// colour by colour.
template <class Real>
std::unique_ptr<op::Operator<Real>> sem_from_host(const op::ReferenceInputs& inputs) {
  return std::make_unique<SemOperator<Real>>(
      std::make_shared<const fem::DeviceElements>(*inputs.exec, inputs.model->mesh, *inputs.table, *inputs.colouring),
      true);
}

// The memory model: the elements it keeps and its own arrays; building it, the corners and
// affine factors of the largest block besides.
std::size_t sem_loop_bytes(const op::OperatorSizes& s) {
  std::size_t points = 0;  // GLL points, every element's own: where the memory variables are kept
  for (const ElementBlock& block : s.mesh->blocks) points += block.connectivity.size();
  return s.element_bytes + loop_bytes(*s.mesh, s.real_size, s.geometry_values) +
         points * s.memory_per_point * s.real_size;
}
std::size_t sem_setup_bytes(const op::OperatorSizes& s) {
  return loop_bytes(*s.mesh, s.real_size, s.geometry_values) + setup_bytes(*s.mesh, s.real_size);
}

}  // namespace

void register_operators(op::Registry& registry) {
  op::OperatorEntry entry{"sem",
                          "no K: GLL hexahedra and quadrilaterals by sum factorisation (1D matrices along each direction), "
                          "geometric factors per GLL point",
                          false,
                          false,
                          false,
                          op::all_backends,
                          sem_loop_bytes,
                          sem_setup_bytes,
                          make_sem<float>,
                          make_sem<double>};
  entry.unsupported = unsupported_mesh;
  entry.splits = true;  // by elements: it adds into K u
  entry.auto_where_it_takes = true;
  entry.evaluates_laws = true;
  entry.carries_memory_variables = true;
  entry.reference_float = sem_from_host<float>;
  entry.reference_double = sem_from_host<double>;
  registry.add(entry);
}

template class SemOperator<float>;
template class SemOperator<double>;

}  // namespace tremor::sem
