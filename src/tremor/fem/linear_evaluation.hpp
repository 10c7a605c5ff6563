#pragma once
// Element evaluation of the linear elements (tri3, quad4, tet4, hex8) in a kernel's precision T,
// by differences along the element's edges: the matrix-free K u of explicit/matrix_free.hpp.
// The same verbs as PointEvaluation (element_matrices.hpp), with the work of a low-order element
// cut to what its shape functions need:
//   - a simplex's reference gradient is the difference of two vertices' values (one point);
//   - on a quadrilateral or hexahedron with 2^d Gauss points, the derivative along direction d
//     is constant along d, so it takes 2^(d-1) values per element, each a bilinear (or linear)
//     interpolation of the differences along the 2^(d-1) edges parallel to d. In 3D: 12
//     differences and 3 x 16 multiply-adds per field instead of 8 points x 8 nodes x 3.
// The transposed steps integrate: fluxes summed over each line of points, interpolated back to
// the edges, added to one end of each edge and taken from the other.
//
// Geometry: the coordinates' differences are taken in the precision the caller's x returns, then
// T: double where x is a mesh's coordinates (a float coordinate loses digits where a part is large
// against its elements); the GPU kernel's are relative to their tile (fem/element_tiles.hpp), in
// T. Verified against apply_element_stiffness in double (LinearEvaluation tests): the same
// K_e u_e to rounding.
//
// Affine elements (simplices always; parallelograms and parallelepipeds where the caller knows
// them so: Affine = true) take J from one edge per direction and invert it once per element.
//
// Use, per element (x(a, c): the coordinate c of the element's node a, in double or T; u(a, c): its
// nodal value, in T; accessors, so that a kernel reads them where they are, shared memory):
//   LinearEvaluation<E, T> ev;  ev.gather_evaluate(x, u);
//   for (int q = 0; q < ev.n_points; ++q) { T grad[dim][dim]; const T det = ev.gradient(q, grad);
//     ... stress from grad (the section's law) ...; ev.submit(q, stress, w * det * scale); }
//   ev.integrate(f);  // f[a * dim + c] = (K_e u_e)[a * dim + c]
#include <type_traits>

#include "tremor/core/config.hpp"
#include "tremor/fem/elements.hpp"
#include "tremor/fem/laws.hpp"

namespace tremor::fem {

// det and inverse of a 2 x 2 Jacobian.
template <class T>
TREMOR_HOST_DEVICE inline T invert_jacobian(const T (&J)[2][2], T (&inv)[2][2]) {
  const T det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  const T r = T(1) / det;
  inv[0][0] = J[1][1] * r;
  inv[0][1] = -J[0][1] * r;
  inv[1][0] = -J[1][0] * r;
  inv[1][1] = J[0][0] * r;
  return det;
}

// det and inverse of the Jacobian J[c][alpha] = d x_c / d xi_alpha: inv[alpha][beta].
template <class T>
TREMOR_HOST_DEVICE inline T invert_jacobian(const T (&J)[3][3], T (&inv)[3][3]) {
  const T c00 = J[1][1] * J[2][2] - J[1][2] * J[2][1], c01 = J[1][2] * J[2][0] - J[1][0] * J[2][2],
          c02 = J[1][0] * J[2][1] - J[1][1] * J[2][0];
  const T det = J[0][0] * c00 + J[0][1] * c01 + J[0][2] * c02;
  const T r = T(1) / det;
  inv[0][0] = c00 * r;
  inv[1][0] = c01 * r;
  inv[2][0] = c02 * r;
  inv[0][1] = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) * r;
  inv[1][1] = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) * r;
  inv[2][1] = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) * r;
  inv[0][2] = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) * r;
  inv[1][2] = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) * r;
  inv[2][2] = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) * r;
  return det;
}

// Lexicographic corner index L (bit d: the +1 end along direction d) to the node of tremor's
// quadrilaterals and hexahedra, which run counter-clockwise (elements.hpp, cube_vertex).
TREMOR_HOST_DEVICE constexpr int linear_corner(int L) {
  constexpr int order[8] = {0, 1, 3, 2, 4, 5, 7, 6};
  return order[L];
}

// Whether LinearEvaluation takes element family E.
template <class E>
constexpr bool linear_evaluation_takes =
    E::type == ElementType::Tri3 || E::type == ElementType::Tet4 || E::type == ElementType::Quad4 ||
    E::type == ElementType::Hex8;

template <class E, class T, bool Affine = E::simplex>
struct LinearEvaluation {
  static_assert(linear_evaluation_takes<E>, "LinearEvaluation: tri3, quad4, tet4 or hex8");
  static constexpr int dim = E::dim, n_nodes = E::n_nodes;
  static constexpr bool simplex = E::simplex, affine = Affine || E::simplex;
  // Quadrature points: the simplex's centroid, or 2^dim Gauss points (the default stiffness rules).
  static constexpr int n_points = simplex ? 1 : (1 << dim);
  // Distinct values of a derivative along one direction: one per line of points along it.
  static constexpr int n_lines = simplex ? 1 : (1 << (dim - 1));
  static constexpr int geometry_lines = affine ? 1 : n_lines;

  T J[dim][dim][geometry_lines];  // dx_i / dxi_d on line m: [i][d][m]
  T G[dim][dim][n_lines];         // du_c / dxi_d on line m: [c][d][m]
  T F[dim][dim][n_lines];         // fluxes submitted, summed over the points of line m: [c][d][m]
  T inverse[dim][dim];            // dxi_d / dx_i at the point of the last gradient() (affine: everywhere)
  T det;                          // det J there

  // The rule's weight of each point: the reference simplex's measure, or 1 (Gauss, 2 points).
  TREMOR_HOST_DEVICE static constexpr T weight() {
    return simplex ? (dim == 2 ? T(0.5) : T(1) / T(6)) : T(1);
  }

  TREMOR_HOST_DEVICE static constexpr int corner(int L) { return linear_corner(L); }
  // The corner index with `bit` at direction d and the other directions' bits from m (in order).
  TREMOR_HOST_DEVICE static constexpr int with_bit(int d, int bit, int m) {
    const int low = m & ((1 << d) - 1), high = m >> d;
    return low | (bit << d) | (high << (d + 1));
  }
  // The line of point q (lexicographic bits) along direction d: q without bit d.
  TREMOR_HOST_DEVICE static constexpr int line(int d, int q) {
    return (q & ((1 << d) - 1)) | ((q >> (d + 1)) << d);
  }
  // The weight of edge m' in the interpolation to line m: the product over the other directions of
  // (1 + s' s g) / 2, s, s' = +-1 the line's and the edge's side, g = 1/sqrt(3) (the Gauss point).
  TREMOR_HOST_DEVICE static constexpr T edge_weight(int m, int m_edge) {
    constexpr double g = 0.57735026918962576451;  // 1/sqrt(3)
    double w = 1.0;
    for (int o = 0; o < dim - 1; ++o) w *= ((m >> o) & 1) == ((m_edge >> o) & 1) ? 0.5 * (1.0 + g) : 0.5 * (1.0 - g);
    return static_cast<T>(w);
  }

  // The reference gradient of one field on `lines` lines (n_lines, or 1: an affine element's
  // geometry, from the first edge along each direction), from its differences along the edges
  // (value(a, c): component c at node a, double for coordinates, T for u).
  template <int Lines, class Value>
  TREMOR_HOST_DEVICE static void reference_gradient(const Value& value, int c, T (&out)[dim][Lines]) {
    if constexpr (simplex) {
      TREMOR_UNROLL
      for (int d = 0; d < dim; ++d) out[d][0] = static_cast<T>(value(d + 1, c) - value(0, c));
    } else {
      TREMOR_UNROLL
      for (int d = 0; d < dim; ++d) {
        T edge[n_lines];
        TREMOR_UNROLL
        for (int m = 0; m < Lines; ++m)
          edge[m] = static_cast<T>(value(corner(with_bit(d, 1, m)), c) - value(corner(with_bit(d, 0, m)), c));
        if constexpr (Lines == 1) {
          out[d][0] = T(0.5) * edge[0];
        } else {
          TREMOR_UNROLL
          for (int m = 0; m < Lines; ++m) {
            T sum = T(0);
            TREMOR_UNROLL
            for (int k = 0; k < Lines; ++k) sum += edge_weight(m, k) * edge[k];
            out[d][m] = T(0.5) * sum;  // d/dxi of the linear interpolant over [-1, 1]: half the difference
          }
        }
      }
    }
  }

  // Gather: the reference gradients of the geometry and of u (x(a, c) in double, u(a, c) in T);
  // zeroes the fluxes. An affine element's inverse Jacobian here, once.
  template <class X, class U>
  TREMOR_HOST_DEVICE void gather_evaluate(const X& x, const U& u) {
    TREMOR_UNROLL
    for (int i = 0; i < dim; ++i) {
      reference_gradient<geometry_lines>(x, i, J[i]);
      reference_gradient<n_lines>(u, i, G[i]);
    }
    zero_fluxes();
    if constexpr (affine) invert(0);
  }

  // The same for an affine element whose inverse Jacobian and det J the caller keeps (computed once,
  // not every apply): the reference gradients of u only.
  template <class U>
  TREMOR_HOST_DEVICE void gather_evaluate(const T (&given_inverse)[dim][dim], T given_det, const U& u) {
    static_assert(affine, "LinearEvaluation: a kept inverse Jacobian is an affine element's");
    TREMOR_UNROLL
    for (int i = 0; i < dim; ++i) reference_gradient<n_lines>(u, i, G[i]);
    zero_fluxes();
    TREMOR_UNROLL
    for (int c = 0; c < dim; ++c)
      TREMOR_UNROLL
      for (int d = 0; d < dim; ++d) inverse[c][d] = given_inverse[c][d];
    det = given_det;
  }

  TREMOR_HOST_DEVICE void zero_fluxes() {
    TREMOR_UNROLL
    for (int c = 0; c < dim; ++c)
      TREMOR_UNROLL
      for (int d = 0; d < dim; ++d)
        TREMOR_UNROLL
        for (int m = 0; m < n_lines; ++m) F[c][d][m] = T(0);
  }

  // inverse and det at point q, from J on its lines.
  TREMOR_HOST_DEVICE void invert(int q) {
    T Jq[dim][dim];
    TREMOR_UNROLL
    for (int i = 0; i < dim; ++i)
      TREMOR_UNROLL
      for (int d = 0; d < dim; ++d) Jq[i][d] = J[i][d][affine ? 0 : line(d, q)];
    det = invert_jacobian(Jq, inverse);
  }

  // The physical gradient grad[c][i] = du_c / dx_i at point q; returns det J there (inverse kept
  // for submit()).
  TREMOR_HOST_DEVICE T gradient(int q, T (&grad)[dim][dim]) {
    if constexpr (!affine) invert(q);
    TREMOR_UNROLL
    for (int c = 0; c < dim; ++c)
      TREMOR_UNROLL
      for (int i = 0; i < dim; ++i) {
        T sum = T(0);
        TREMOR_UNROLL
        for (int d = 0; d < dim; ++d) sum += G[c][d][simplex ? 0 : line(d, q)] * inverse[d][i];
        grad[c][i] = sum;
      }
    return det;
  }

  // Submit the stress tensor at point q (the point of the last gradient()), times `scale`
  // (w det J and the element's factors): the flux along each reference direction.
  TREMOR_HOST_DEVICE void submit(int q, const T (&stress)[dim][dim], T scale) {
    TREMOR_UNROLL
    for (int c = 0; c < dim; ++c)
      TREMOR_UNROLL
      for (int d = 0; d < dim; ++d) {
        T sum = T(0);
        TREMOR_UNROLL
        for (int i = 0; i < dim; ++i) sum += stress[c][i] * inverse[d][i];
        F[c][d][simplex ? 0 : line(d, q)] += scale * sum;
      }
  }

  // Integrate: the nodal forces f[a * dim + c] of the fluxes submitted (overwritten).
  TREMOR_HOST_DEVICE void integrate(T* f) const {
    TREMOR_UNROLL
    for (int k = 0; k < n_nodes * dim; ++k) f[k] = T(0);
    TREMOR_UNROLL
    for (int c = 0; c < dim; ++c)
      TREMOR_UNROLL
      for (int d = 0; d < dim; ++d) {
        if constexpr (simplex) {
          f[(d + 1) * dim + c] += F[c][d][0];
          f[c] -= F[c][d][0];
        } else {
          TREMOR_UNROLL
          for (int k = 0; k < n_lines; ++k) {
            T sum = T(0);
            TREMOR_UNROLL
            for (int m = 0; m < n_lines; ++m) sum += edge_weight(m, k) * F[c][d][m];
            f[corner(with_bit(d, 1, k)) * dim + c] += T(0.5) * sum;
            f[corner(with_bit(d, 0, k)) * dim + c] -= T(0.5) * sum;
          }
        }
      }
  }
};

// Voigt strain (engineering shear) of a displacement gradient, and the symmetric stress tensor of
// a Voigt stress, in laws.hpp's order.
template <int Dim, class T>
TREMOR_HOST_DEVICE inline void voigt_strain(const T (&grad)[Dim][Dim], T* strain) {
  if constexpr (Dim == 2) {
    strain[0] = grad[0][0];
    strain[1] = grad[1][1];
    strain[2] = grad[0][1] + grad[1][0];
  } else {
    strain[0] = grad[0][0];
    strain[1] = grad[1][1];
    strain[2] = grad[2][2];
    strain[3] = grad[1][2] + grad[2][1];
    strain[4] = grad[0][2] + grad[2][0];
    strain[5] = grad[0][1] + grad[1][0];
  }
}
template <int Dim, class T>
TREMOR_HOST_DEVICE inline void stress_tensor(const T* sigma, T (&stress)[Dim][Dim]) {
  if constexpr (Dim == 2) {
    stress[0][0] = sigma[0];
    stress[1][1] = sigma[1];
    stress[0][1] = stress[1][0] = sigma[2];
  } else {
    stress[0][0] = sigma[0];
    stress[1][1] = sigma[1];
    stress[2][2] = sigma[2];
    stress[1][2] = stress[2][1] = sigma[3];
    stress[0][2] = stress[2][0] = sigma[4];
    stress[0][1] = stress[1][0] = sigma[5];
  }
}

// Inlined wherever called (a step of a kernel's per-element arithmetic, whose arrays must stay
// in registers on a GPU and in one vectorised body on the host).
#if defined(__CUDA_ARCH__)
#define TREMOR_LINEAR_INLINE __forceinline__
#elif defined(__GNUC__)
#define TREMOR_LINEAR_INLINE inline __attribute__((always_inline))
#else
#define TREMOR_LINEAR_INLINE inline
#endif

// Point q's part of scale K_e u_e, after ev.gather_evaluate: gradient -> strain -> the law ->
// stress -> submit, weighted by the rule's weight, det J and scale. Returns det J there. T may be
// a batch of elements' values (the host's tiles, explicit/matrix_free_host.cpp) where the law
// takes it.
template <class Ev, class Law, class T>
TREMOR_HOST_DEVICE TREMOR_LINEAR_INLINE T linear_stiffness_at(Ev& ev, int q, const Law& law, T scale) {
  constexpr int dim = Ev::dim, nv = voigt_size<dim>;
  T grad[dim][dim], strain[nv], sigma[nv], stress[dim][dim];
  const T det = ev.gradient(q, grad);
  voigt_strain<dim>(grad, strain);
  law.stress(strain, sigma);
  stress_tensor<dim>(sigma, stress);
  ev.submit(q, stress, ev.weight() * det * scale);
  return det;
}

// f = scale K_e u_e of a linear element: gather -> gradient -> the law -> submit -> integrate,
// at each point of the default stiffness rule. x(a, c), u(a, c): LinearEvaluation's accessors.
// scale: the thickness in 2D times the element's absorbing-layer factor. Returns the smallest
// det J met (<= 0: inverted).
template <class E, bool Affine = E::simplex, class T, class X, class U, class Law>
  requires std::is_invocable_v<const X&, int, int> && std::is_invocable_v<const U&, int, int>
TREMOR_HOST_DEVICE T linear_stiffness_action(const X& x, const U& u, const Law& law, T scale, T* f) {
  LinearEvaluation<E, T, Affine> ev;
  ev.gather_evaluate(x, u);
  T min_det = T(0);
  TREMOR_UNROLL
  for (int q = 0; q < ev.n_points; ++q) {
    const T det = linear_stiffness_at(ev, q, law, scale);
    min_det = q == 0 || det < min_det ? det : min_det;
  }
  ev.integrate(f);
  return min_det;
}

// The same on node-major arrays (x[a * dim + c], u[a * dim + c]).
template <class E, bool Affine = E::simplex, class T, class Law>
TREMOR_HOST_DEVICE T linear_stiffness_action(const double* x, const T* u, const Law& law, T scale, T* f) {
  return linear_stiffness_action<E, Affine>([x](int a, int c) { return x[a * E::dim + c]; },
                                            [u](int a, int c) { return u[a * E::dim + c]; }, law, scale, f);
}

}  // namespace tremor::fem
