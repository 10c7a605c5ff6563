#pragma once
// How the sem operator's kernels lay a block of elements over a GPU's threads and shared memory
// (Layout), the steps every kernel starts with (the basis loaded, u or the coordinates gathered),
// how a block's Jacobians are had (Mode), and the switch from a block's runtime (dim, order) to
// the templates, a trilinear block's vertices: what operator_apply.hpp's kernels, operator_setup.cpp's
// set-up and the fluid's kernels (fluid.cpp) share. Internal to sem/.
#include <cstddef>
#include <type_traits>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall_blocks.hpp"
#include "tremor/core/config.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/mesh/element_type.hpp"
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
// With Shots > 1 (several vectors applied at once, Operator::apply_batch) each column takes Shots
// threads, one per vector, neighbours in the block: thread t is column t / Shots's, vector
// t % Shots's, and entry (array a, point p) of that vector at (a n^3 + p) Shots + t % Shots of its
// element's arrays, so that a warp's lanes read and write consecutive words.
template <int P, int Components, int Shots = 1>
struct ColumnLayout : Layout<3, P> {
  static constexpr int n2 = (P + 1) * (P + 1);
  static constexpr int per_block = n2 * Shots >= 128 ? 1 : 128 / (n2 * Shots);
  static constexpr int threads = (per_block * n2 * Shots + 31) / 32 * 32;
  static constexpr int arrays = 3 * Components;  // the values, then the flux's x and y parts per component
  // Each element's arrays `stride` values apart: padded to n^2 Shots modulo the 32 banks, so that
  // the two elements a warp can hold meet the banks as consecutive columns of one element would.
  static constexpr int used = arrays * Layout<3, P>::points * Shots;
  static constexpr int stride = used + ((n2 * Shots - used) % 32 + 32) % 32;
  template <class T>
  static constexpr std::size_t shared_bytes() {
    return (Layout<3, P>::basis_size + static_cast<std::size_t>(per_block) * stride) * sizeof(T);
  }
  static Index blocks(Index n_elements) { return (n_elements + per_block - 1) / per_block; }
};

// A column kernel thread's own values (Carried: its registers on a GPU): its column's Components
// values at its n nodes, as gathered, and the z part of the transposed sums at them.
template <int P, int Components, class Real>
struct Column {
  Real values[Components][P + 1], z[Components][P + 1];
};

// The column kernels' gather: each thread's column of `values` (Components per node, node-major)
// into its Column and into the shared arrays that arrays(t) points to (component c of point p at
// (c n^3 + p) Shots), for the elements element(t) >= 0. With Shots > 1, `values` holds `columns`
// vectors interleaved (entry i of vector s at i columns + s) and thread t reads vector shot(t).
// No barrier.
template <int P, int Components, int Shots = 1, class Real, class Columns, class Element, class Arrays,
          class Shot = int>
TREMOR_HOST_DEVICE inline void gather_columns(const BlockContext& ctx, Columns& columns, const Element& element,
                                              const Arrays& arrays, const Index* connectivity, const Real* values,
                                              int n_columns = 1, const Shot& shot = 0) {
  using L = ColumnLayout<P, Components, Shots>;
  constexpr int n1 = L::n, n2 = L::n2, n3 = L::points;
  for_each_thread(ctx, L::per_block * n2 * Shots, [&](int t) {
    const Index e = element(t);
    if (e < 0) return;
    Real* v = arrays(t);
    auto& mine = columns[t];
    Size stride = 1, first = 0;
    if constexpr (Shots > 1) {
      stride = static_cast<Size>(n_columns);
      first = static_cast<Size>(shot(t));
    }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int k = 0; k < n1; ++k) {
      const int p = t / Shots % n2 + n2 * k;
      const Index node = connectivity[static_cast<Size>(e) * n3 + p];
      for (int c = 0; c < Components; ++c)
        v[(c * n3 + p) * Shots] = mine.values[c][k] =
            values[(static_cast<Size>(node) * Components + c) * stride + first];
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
// are list[i] (or i without a list) for i < n. Returns G.
template <int Dim, int P, class T>
TREMOR_HOST_DEVICE inline T* load_and_gather(const BlockContext& ctx, const T* basis, Index n, const Index* list,
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
