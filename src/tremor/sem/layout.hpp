#pragma once
// How the sem operator's kernels lay a block of elements over a GPU's threads and shared memory
// (Layout), the steps every kernel starts with (the basis loaded, u or the coordinates gathered),
// how a block's Jacobians are had (Mode), and the switch from a block's runtime (dim, order) to
// the templates, a trilinear block's vertices: what operator_apply.hpp's kernels, operator_setup.cpp's
// set-up and the fluid's kernels (fluid.cpp) share. Internal to sem/.
#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall_blocks.hpp"
#include "tremor/core/config.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/mesh/element_type.hpp"
#include "tremor/sem/point_state.hpp"
#include "tremor/sem/sum_factorised.hpp"

namespace tremor::sem {

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

// The column kernels' layout (operator_apply.hpp's apply_columns, fluid.cpp's): a thread per (i, j)
// column of a hexahedron's points, several elements per block where n^2 < 128. Shared memory per
// element: the gathered values and the flux's x and y parts, 3 arrays of n^3 per component (the
// z part stays in the column's registers), padded against bank conflicts.
// Several vectors applied at once (Operator::apply_batch): each column takes Lanes threads, each
// thread Each vectors, Lanes x Each = V in all, neighbours in the block: thread t is column
// t / Lanes's, its vectors (t % Lanes) Each + q for q < Each, and entry (array a, point p) of vector
// w at (a n^3 + p) V + w of its element's arrays, so that a warp's lanes read and write consecutive
// words, a thread's Each vectors in one load (8 or 16 bytes).
template <int P, int Components, int Lanes = 1, int Each = 1>
struct ColumnLayout : Layout<3, P> {
  static constexpr int n2 = (P + 1) * (P + 1), V = Lanes * Each;
  static_assert(V == 1 || 32 % V == 0, "vectors a block takes: a power of 2 up to 32");
  static constexpr int per_block = n2 * Lanes >= 128 ? 1 : 128 / (n2 * Lanes);
  static constexpr int threads = (per_block * n2 * Lanes + 31) / 32 * 32;
  static constexpr int arrays = 3 * Components;  // the values, then the flux's x and y parts per component
  // Each element's arrays `stride` values apart: padded to n^2 V modulo the 32 banks, so that the
  // two elements a warp can hold meet the banks as consecutive columns of one element would (and
  // a multiple of V: each thread's Each values aligned).
  static constexpr int used = arrays * Layout<3, P>::points * V;
  static constexpr int stride = used + ((n2 * V - used) % 32 + 32) % 32;
  // Where the elements' arrays start: after the 1D basis, at 16 bytes for Each > 1.
  static constexpr int work_at = Each == 1 ? Layout<3, P>::basis_size : (Layout<3, P>::basis_size + 3) / 4 * 4;
  template <class T>
  static constexpr std::size_t shared_bytes() {
    return (work_at + static_cast<std::size_t>(per_block) * stride) * sizeof(T);
  }
  static Index blocks(Index n_elements) { return (n_elements + per_block - 1) / per_block; }
};

// A column kernel thread's own values (Carried: its registers on a GPU): its column's Components
// values at its n nodes, as gathered, and the z part of the transposed sums at them.
template <int P, int Components, class Real>
struct Column {
  Real values[Components][P + 1], z[Components][P + 1];
};
// A thread's Each vectors' columns.
template <int P, int Components, class Real, int Each>
struct Columns {
  Column<P, Components, Real> of[Each];
};
template <int P, int Components, class Real>
TREMOR_HOST_DEVICE inline Column<P, Components, Real>& column_at(Column<P, Components, Real>& column, int) {
  return column;
}
template <int P, int Components, class Real, int Each>
TREMOR_HOST_DEVICE inline Column<P, Components, Real>& column_at(Columns<P, Components, Real, Each>& columns, int q) {
  return columns.of[q];
}

// Each consecutive values at `at` (aligned to Each values): on a GPU one 8- or 16-byte access where
// a vector type holds them.
template <int Each, class Real>
TREMOR_HOST_DEVICE inline void load_each(const Real* at, Real (&out)[Each]) {
#if defined(__CUDA_ARCH__)
  if constexpr (Each == 2 && std::is_same_v<Real, float>) {
    const float2 x = *reinterpret_cast<const float2*>(at);
    out[0] = x.x, out[1] = x.y;
  } else if constexpr (Each == 4 && std::is_same_v<Real, float>) {
    const float4 x = *reinterpret_cast<const float4*>(at);
    out[0] = x.x, out[1] = x.y, out[2] = x.z, out[3] = x.w;
  } else if constexpr (Each == 2 && std::is_same_v<Real, double>) {
    const double2 x = *reinterpret_cast<const double2*>(at);
    out[0] = x.x, out[1] = x.y;
  } else {
    for (int q = 0; q < Each; ++q) out[q] = at[q];
  }
#else
  for (int q = 0; q < Each; ++q) out[q] = at[q];
#endif
}
template <int Each, class Real>
TREMOR_HOST_DEVICE inline void store_each(Real* at, const Real (&in)[Each]) {
#if defined(__CUDA_ARCH__)
  if constexpr (Each == 2 && std::is_same_v<Real, float>) {
    *reinterpret_cast<float2*>(at) = make_float2(in[0], in[1]);
  } else if constexpr (Each == 4 && std::is_same_v<Real, float>) {
    *reinterpret_cast<float4*>(at) = make_float4(in[0], in[1], in[2], in[3]);
  } else if constexpr (Each == 2 && std::is_same_v<Real, double>) {
    *reinterpret_cast<double2*>(at) = make_double2(in[0], in[1]);
  } else {
    for (int q = 0; q < Each; ++q) at[q] = in[q];
  }
#else
  for (int q = 0; q < Each; ++q) at[q] = in[q];
#endif
}

// The column kernels' gather: each thread's column of `values` (Components per node, node-major)
// into its Column(s) and into the shared arrays that arrays(t) points to (component c of point p
// at (c n^3 + p) V), for the elements element(t) >= 0. With several vectors (V > 1) `values`
// holds `n_columns` interleaved (entry i of vector s at i n_columns + s) and thread t reads
// vectors first(t) + q, q < Each (0 for those past the last); with one (V 1) and a `first`
// given, thread t reads vector first(t) of them (each element's own: the fluid's shots stepped
// together, sem/fluid.hpp). No barrier.
template <int P, int Components, int Lanes = 1, int Each = 1, class Real, class Held, class Element, class Arrays,
          class First = int>
TREMOR_HOST_DEVICE inline void gather_columns(const BlockContext& ctx, Held& columns, const Element& element,
                                              const Arrays& arrays, const Index* connectivity, const Real* values,
                                              int n_columns = 1, const First& first_of = 0) {
  using L = ColumnLayout<P, Components, Lanes, Each>;
  constexpr int n1 = L::n, n2 = L::n2, n3 = L::points, V = L::V;
  for_each_thread(ctx, L::per_block * n2 * Lanes, [&](int t) {
    const Index e = element(t);
    if (e < 0) return;
    Real* v = arrays(t);
    auto& mine = columns[t];
    Size stride = 1, first = 0;
    int valid = Each;
    if constexpr (V > 1) {
      stride = static_cast<Size>(n_columns);
      first = static_cast<Size>(first_of(t));
      valid = static_cast<int>(std::min<Size>(Each, stride - first));
    } else if constexpr (!std::is_same_v<First, int>) {
      stride = static_cast<Size>(n_columns);
      first = static_cast<Size>(first_of(t));
    }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int k = 0; k < n1; ++k) {
      const int p = t / Lanes % n2 + n2 * k;
      const Index node = connectivity[static_cast<Size>(e) * n3 + p];
      for (int c = 0; c < Components; ++c) {
        const Real* from = values + (static_cast<Size>(node) * Components + c) * stride + first;
        Real x[Each];
        for (int q = 0; q < Each; ++q) x[q] = q < valid ? from[q] : Real(0);
        for (int q = 0; q < Each; ++q) column_at(mine, q).values[c][k] = x[q];
        store_each<Each>(v + (c * n3 + p) * V, x);
      }
    }
  });
}

template <int Dim, int P, class T>
using Steps = Collocated<Dim, P, T>;

// The product of the GLL weights at point p (lexicographic, x fastest).
template <int Dim, int n, class T>
TREMOR_HOST_DEVICE inline T weight(const T* w, int p) {
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
// are list[i] (or i without a list) for i < n. With `previous` and `rate` (per element), u + rate
// (u - previous) instead: a PML's grid damping (model/pml.hpp), rate = beta / dt. Returns G.
template <int Dim, int P, class T>
TREMOR_HOST_DEVICE inline T* load_and_gather(const BlockContext& ctx, const T* basis, Index n, const Index* list,
                                      const Index* connectivity, const T* values, const T* previous = nullptr,
                                      const T* rate = nullptr) {
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
    if (previous) {
      const T r = rate[e];
      for (int c = 0; c < Dim; ++c) {
        const T now = values[static_cast<Size>(node) * Dim + c];
        v[c * np + p] = now + r * (now - previous[static_cast<Size>(node) * Dim + c]);
      }
      return;
    }
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

// How a block's kernels have each point's Jacobian (the Geometry of operator.hpp): the stored
// factors per point (operator_setup.cpp's compute_geometry), the corners of a trilinear element
// or the affine factors per element (survey_corners).
enum Mode : int { StoredMode = 0, TrilinearMode = 1, AffineMode = 2 };

inline bool gll(ElementType type) { return type == ElementType::HexGLL || type == ElementType::QuadGLL; }

// The vertices of a block of hexahedra (relative to each element's first, 24 values) and t / rho
// times its stiffness factor (1), in Real per element, where every element of the block is on the
// trilinear map of its vertices (operator_setup.cpp's survey of shapes, on the elements' Exec):
// what the fluid's column kernel reads in TrilinearMode (fluid.cpp). Empty otherwise.
template <class Real>
DeviceArray<Real> trilinear_corners(const fem::DeviceElements& elements, const fem::DeviceElementBlock& block);
extern template DeviceArray<float> trilinear_corners(const fem::DeviceElements&, const fem::DeviceElementBlock&);
extern template DeviceArray<double> trilinear_corners(const fem::DeviceElements&, const fem::DeviceElementBlock&);

}  // namespace tremor::sem
