#pragma once
// The convolutional PML's pointwise parts (model/pml.hpp for the stretching s_k = 1 + d_k /
// (alpha_k + i w)). Multiplying the elastic wave equation in stretched coordinates by S = prod s_k
// (Komatitsch and Martin 2007; Xie et al. 2014, GJI 198, for the second-order form in finite
// elements) gives, as s_k depends on x_k alone,
//
//   -w^2 rho S u_i = d_j F_ij,   F_ij = (S / s_j) sigma~_ij,   sigma~ = C : sym(eps~),
//   eps~_kl = (1 / s_l) d_l u_k
//
// Each factor is a chain of single-pole filters, each a convolution with exp(-beta t) kept as one
// memory variable psi, psi' = x - beta psi, and no partial fractions (which fail where two
// alphas meet, at an edge or corner where two layers have the same depth):
//
//   1 / s_l:  y = x - d_l psi,  beta = alpha_l + d_l     (the stretched gradient, a value per
//                                                         component of grad u: dim^2)
//   s_m:      y = x + d_m psi,  beta = alpha_m           (F's column j through s_m for m != j, in
//                                                         turn: dim (dim - 1) x dim values)
//
// and the law is any strain -> stress law (elastic, anisotropic, viscoelastic with its own state)
// evaluated on sym(eps~). The mass side, rho S u'' with S u = s_1 (s_2 (s_3 u)) the same chain on
// the nodes' displacement, expands exactly, stage m's input x_m and memory psi_m (x_1 = u, x_m+1 =
// x_m + d_m psi_m), into
//
//   rho [u'' + (sum d_m) u' + R],   R = sum_m d_m [sum_n<m d_n (x_n - alpha_n psi_n) - alpha_m x_m + alpha_m^2 psi_m]
//
// a lumped damping rho sum d_m (the integrator's C) and a nodal force rho R per unit volume.
// Every memory variable is stepped at half steps by the trapezoidal rule, second order and
// unconditionally stable, as the viscoelastic law's (fem/viscoelastic.hpp):
//
//   psi(n+1/2) = a psi(n-1/2) + b x(n),  a = (1 - beta dt/2) / (1 + beta dt/2),  b = dt / (1 + beta dt/2)
//
// with psi(n) = (psi(n-1/2) + psi(n+1/2)) / 2 where x(n) is filtered. Inside the layer and at
// its inner edge (d = 0) every filter passes its input: F = sigma, R = 0.
#include <type_traits>

#include "tremor/core/config.hpp"
#include "tremor/fem/laws.hpp"
#include "tremor/fem/linear_evaluation.hpp"

namespace tremor::fem {

// Memory variables per point of an element (dim^2 + dim^2 (dim - 1)) and per node (dim^2).
template <int Dim>
inline constexpr int pml_point_values = Dim * Dim * Dim;
template <int Dim>
inline constexpr int pml_node_values = Dim * Dim;

// A filter's step coefficients for rate beta: a = (1 - beta dt/2) / (1 + beta dt/2), b = dt / (1 +
// beta dt/2) (one division; a point's axes share them among its values).
template <class A>
struct PmlStep {
  A a, b;
  TREMOR_HOST_DEVICE PmlStep(A beta, A dt) {
    const A inverse = A(1) / (A(1) + A(0.5) * beta * dt);
    a = (A(1) - A(0.5) * beta * dt) * inverse;
    b = dt * inverse;
  }
  // psi (held in T) advanced past x by half a step each side; returns psi at the step.
  template <class T>
  TREMOR_HOST_DEVICE A operator()(T& psi, A x) const {
    const A before = static_cast<A>(psi), after = a * before + b * x;
    psi = static_cast<T>(after);
    return A(0.5) * (before + after);
  }
};

// A point's memory variables `stride` apart (the sem kernels keep each value's points in a row).
template <class T>
struct Strided {
  T* base;
  int stride;
  TREMOR_HOST_DEVICE T& operator[](int k) const { return base[k * stride]; }
};

// The axes of a layer's elements: bit k set where d_k is not zero at some point of the element
// (one axis in a face's layer, two at an edge, three at a corner or where the layer is
// multi-axial). An axis with d_k = 0 passes every filter of its own: its variables are neither
// read nor written, and the flux is the same to the bit.
template <int Dim>
inline constexpr int pml_all_axes = (1 << Dim) - 1;

// Whether an element on `axes` is stretched on one axis alone in 3D (a face's layer): F's columns
// j != m pass the one stage s_m, and F_ab and F_ba (a, b the other two axes) are then the same
// value (sigma~ is symmetric) through the same filter: one variable, column min(a, b)'s, serves
// both (pml_flux).
template <int Dim>
TREMOR_HOST_DEVICE constexpr bool pml_one_axis(int axes) {
  return Dim == 3 && axes != 0 && (axes & (axes - 1)) == 0;
}

// Whether a point's memory variable v (pml_flux's order) is read and written on the axes `axes`:
// the stretched gradient's column l on axis l, a stage on the axis of its filter, but for the one
// F_ab and F_ba share (pml_one_axis).
template <int Dim>
TREMOR_HOST_DEVICE constexpr bool pml_value_used(int v, int axes) {
  constexpr int n_grad = Dim * Dim;
  if (v < n_grad) return (axes >> (v % Dim) & 1) != 0;
  const int stage = v - n_grad, j = stage / Dim / (Dim - 1), t = stage / Dim % (Dim - 1), i = stage % Dim;
  const int m = t < j ? t : t + 1;
  if (!(axes >> m & 1)) return false;
  return !(pml_one_axis<Dim>(axes) && i != m && i < j);
}

// How many of a point's memory variables an element on `axes` reads and writes: in 3D 8 on a
// face's layer, 18 on an edge's, 27 at a corner; in 2D 4 and 8.
template <int Dim>
TREMOR_HOST_DEVICE constexpr int pml_values_used(int axes) {
  int used = 0;
  for (int v = 0; v < pml_point_values<Dim>; ++v) used += pml_value_used<Dim>(v, axes) ? 1 : 0;
  return used;
}

// The flux F at a point from the displacement gradient grad[k][l] = d_l u_k, with d and alpha
// there (model/pml.hpp PmlProfile::at), the law (stress(strain, sigma), Voigt in laws.hpp's order)
// and the point's memory variables state[0 .. pml_point_values<Dim>) (the stretched gradient's
// first, then F's; a pointer or a Strided), in arithmetic A, on the axes `axes` (pml_all_axes
// or fewer: those where d may not be zero). Advances the state by one step dt. Each axis's
// variables are in the same places whichever axes are given.
template <int Dim, class A, class State, class Law>
TREMOR_HOST_DEVICE inline void pml_flux(const A (&grad)[Dim][Dim], const A* d, const A* alpha, A dt, const Law& law,
                                        State state, A (&flux)[Dim][Dim], int axes = pml_all_axes<Dim>) {
  constexpr int nv = voigt_size<Dim>, n_grad = Dim * Dim, n_stages = Dim * Dim * (Dim - 1);
  using T = std::remove_reference_t<decltype(state[0])>;
  // Each part's variables are read at once before any is written: every read waits for the
  // writes before it, which could be to the same place as far as the compiler knows (on a GPU
  // one trip to memory per part instead of one per value).
  A held[n_stages] = {};  // (those of axes not stretched never read)
  for (int v = 0; v < n_grad; ++v)
    if (pml_value_used<Dim>(v, axes)) held[v] = static_cast<A>(state[v]);
  A stretched[Dim][Dim];
  for (int l = 0; l < Dim; ++l) {
    if (!(axes >> l & 1)) {
      for (int k = 0; k < Dim; ++k) stretched[k][l] = grad[k][l];
      continue;
    }
    const PmlStep<A> inverse(alpha[l] + d[l], dt);  // 1 / s_l
    for (int k = 0; k < Dim; ++k) {
      stretched[k][l] = grad[k][l] - d[l] * inverse(held[k * Dim + l], grad[k][l]);
      state[k * Dim + l] = static_cast<T>(held[k * Dim + l]);
    }
  }
  // Column j's stages after the stretched gradient: stage t's row i at Dim^2 + (j (Dim - 1) + t) Dim + i,
  // stage t of column j the filter s_m of the t-th axis m other than j.
  for (int v = 0; v < n_stages; ++v)
    if (pml_value_used<Dim>(n_grad + v, axes)) held[v] = static_cast<A>(state[n_grad + v]);
  A strain[nv], sigma[nv], stress[Dim][Dim];
  voigt_strain<Dim>(stretched, strain);  // sym(eps~)
  law.stress(strain, sigma);
  stress_tensor<Dim>(sigma, stress);
  for (int j = 0; j < Dim; ++j)
    for (int i = 0; i < Dim; ++i) flux[i][j] = stress[i][j];
  const bool one_axis = pml_one_axis<Dim>(axes);
  for (int m = 0; m < Dim; ++m) {
    if (!(axes >> m & 1)) continue;
    const PmlStep<A> stage(alpha[m], dt);
    for (int j = 0; j < Dim; ++j) {
      if (m == j) continue;
      const int v = (j * (Dim - 1) + (m < j ? m : m - 1)) * Dim;
      for (int i = 0; i < Dim; ++i) {
        if (one_axis && i != m && i < j) {  // F_ij is F_ji, filtered in column i already
          flux[i][j] = flux[j][i];
          continue;
        }
        flux[i][j] += d[m] * stage(held[v + i], flux[i][j]);
        state[n_grad + v + i] = static_cast<T>(held[v + i]);
      }
    }
  }
}

// An acoustic fluid's flux in the layer. With the displacement potential chi (rho u = grad chi;
// fem::FluidLaw) the scalar wave equation in stretched coordinates, times S, is
//
//   -w^2 (S / kappa) chi = d_j F_j,   F_j = (S / s_j) (1 / rho) g~_j,   g~_j = (1 / s_j) d_j chi,
//
// the solid's chains with one component: per point Dim values of the stretched gradient, then
// Dim (Dim - 1) of F's stages (F_j through s_m for each axis m != j, in turn: at Dim + j (Dim - 1)
// + t, t the place of m among the axes other than j). The mass side, (S / kappa) chi, is the
// solid's with one component a node (pml_node_force on chi, a lumped damping sum d_m / kappa).
template <int Dim>
inline constexpr int pml_fluid_point_values = Dim * Dim;

// The axis of the filter a fluid's point variable v steps (pml_fluid_flux's order).
template <int Dim>
TREMOR_HOST_DEVICE constexpr int pml_fluid_filter(int v) {
  if (v < Dim) return v;
  const int j = (v - Dim) / (Dim - 1), t = (v - Dim) % (Dim - 1);
  return t < j ? t : t + 1;
}

// F at a point from the potential's gradient grad[l] = d_l chi, with d and alpha there, 1 / rho
// (`inverse_density`) and the point's memory variables state[0 .. pml_fluid_point_values<Dim>)
// (a pointer or a Strided), in arithmetic A, on the axes `axes` (those where d may not be zero;
// the others' variables neither read nor written, their filters passing their input). Advances the
// state by one step dt.
template <int Dim, class A, class State>
TREMOR_HOST_DEVICE inline void pml_fluid_flux(const A (&grad)[Dim], const A* d, const A* alpha, A dt,
                                              A inverse_density, State state, A (&flux)[Dim],
                                              int axes = pml_all_axes<Dim>) {
  using T = std::remove_reference_t<decltype(state[0])>;
  constexpr int n_values = pml_fluid_point_values<Dim>;
  A held[n_values] = {};  // read at once before any is written (as pml_flux's)
  for (int v = 0; v < n_values; ++v)
    if (axes >> pml_fluid_filter<Dim>(v) & 1) held[v] = static_cast<A>(state[v]);
  for (int l = 0; l < Dim; ++l) {
    flux[l] = grad[l];
    if (!(axes >> l & 1)) continue;
    const PmlStep<A> inverse(alpha[l] + d[l], dt);  // 1 / s_l
    flux[l] = grad[l] - d[l] * inverse(held[l], grad[l]);
    state[l] = static_cast<T>(held[l]);
  }
  for (int j = 0; j < Dim; ++j) flux[j] *= inverse_density;
  for (int m = 0; m < Dim; ++m) {
    if (!(axes >> m & 1)) continue;
    const PmlStep<A> stage(alpha[m], dt);  // s_m
    for (int j = 0; j < Dim; ++j) {
      if (j == m) continue;
      const int v = Dim + j * (Dim - 1) + (m < j ? m : m - 1);
      flux[j] += d[m] * stage(held[v], flux[j]);
      state[v] = static_cast<T>(held[v]);
    }
  }
}

// The part of R proportional to u alone, sum_m<n d_m d_n u (where layers meet): a stiffness as
// large as d0^2, which an explicit step would take only for d0 dt below about 1. The term steps
// it by the average acceleration instead (explicit/pml.hpp), unconditionally stable: its
// coefficient, per unit mass.
TREMOR_HOST_DEVICE inline double pml_cross(int dim, const double* d) {
  double cross = 0.0;
  for (int m = 0; m < dim; ++m)
    for (int n = m + 1; n < dim; ++n) cross += d[m] * d[n];
  return cross;
}

// Component c of R at a node (the mass side's force per unit mass, above) less its part
// pml_cross(d) u_c, from the node's displacement u_c, with d and alpha there and the component's
// memory variables, stage m's at state[m] (a pointer or a Strided; a node keeps pml_node_values,
// stage m's component c at m Dim + c). Advances them by one step dt. `axes`: the node's stretched
// axes, bit m set where d_m is not 0 (known apart from d, the variables' reads need not wait for
// d's); a stage off them adds nothing and keeps its variable as it is. The components are
// independent: a thread each.
template <int Dim, class State>
TREMOR_HOST_DEVICE inline double pml_node_force(double u, const double* d, const double* alpha, double dt,
                                                State state, int axes) {
  using T = std::remove_reference_t<decltype(state[0])>;
  double held[Dim];  // read at once before any is written (as pml_flux's)
  for (int m = 0; m < Dim; ++m)
    if (axes >> m & 1) held[m] = static_cast<double>(state[m]);
  double x = u, carried = 0.0, R = 0.0;  // x_m, and sum_n<m d_n (x_n - alpha_n psi_n)
  for (int m = 0; m < Dim; ++m) {
    if (!(axes >> m & 1)) continue;
    const PmlStep<double> stage(alpha[m], dt);
    const double psi = stage(held[m], x);
    state[m] = static_cast<T>(held[m]);
    R += d[m] * (carried - alpha[m] * x + alpha[m] * alpha[m] * psi);
    carried += d[m] * (x - alpha[m] * psi);
    x += d[m] * psi;
  }
  return R - pml_cross(Dim, d) * u;
}

}  // namespace tremor::fem
