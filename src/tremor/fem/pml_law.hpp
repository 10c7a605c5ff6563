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
#include "tremor/core/config.hpp"
#include "tremor/fem/laws.hpp"
#include "tremor/fem/linear_evaluation.hpp"

namespace tremor::fem {

// Memory variables per point of an element (dim^2 + dim^2 (dim - 1)) and per node (dim^2).
template <int Dim>
inline constexpr int pml_point_values = Dim * Dim * Dim;
template <int Dim>
inline constexpr int pml_node_values = Dim * Dim;

// One half-step filter update in arithmetic A: psi (held in T) advanced past x; returns psi at the step.
template <class A, class T>
TREMOR_HOST_DEVICE inline A pml_filter(T& psi, A x, A beta, A dt) {
  const A half = A(0.5) * beta * dt, a = (A(1) - half) / (A(1) + half), b = dt / (A(1) + half);
  const A before = static_cast<A>(psi), after = a * before + b * x;
  psi = static_cast<T>(after);
  return A(0.5) * (before + after);
}

// A point's memory variables `stride` apart (the sem kernels keep each value's points in a row).
template <class T>
struct Strided {
  T* base;
  int stride;
  TREMOR_HOST_DEVICE T& operator[](int k) const { return base[k * stride]; }
};

// The flux F at a point from the displacement gradient grad[k][l] = d_l u_k, with d and alpha
// there (model/pml.hpp PmlProfile::at), the law (stress(strain, sigma), Voigt in laws.hpp's order)
// and the point's memory variables state[0 .. pml_point_values<Dim>) (the stretched gradient's
// first, then F's; a pointer or a Strided), in arithmetic A. Advances the state by one step dt.
template <int Dim, class A, class State, class Law>
TREMOR_HOST_DEVICE inline void pml_flux(const A (&grad)[Dim][Dim], const A* d, const A* alpha, A dt, const Law& law,
                                        State state, A (&flux)[Dim][Dim]) {
  constexpr int nv = voigt_size<Dim>;
  A stretched[Dim][Dim];
  for (int k = 0; k < Dim; ++k)
    for (int l = 0; l < Dim; ++l)
      stretched[k][l] = grad[k][l] - d[l] * pml_filter(state[k * Dim + l], grad[k][l], alpha[l] + d[l], dt);
  A strain[nv], sigma[nv], stress[Dim][Dim];
  voigt_strain<Dim>(stretched, strain);  // sym(eps~)
  law.stress(strain, sigma);
  stress_tensor<Dim>(sigma, stress);
  // Column j's stages after the stretched gradient: stage t's row i at Dim^2 + (j (Dim - 1) + t) Dim + i.
  for (int j = 0; j < Dim; ++j)
    for (int i = 0; i < Dim; ++i) {
      A z = stress[i][j];
      int t = 0;
      for (int m = 0; m < Dim; ++m) {
        if (m == j) continue;
        z += d[m] * pml_filter(state[Dim * Dim + (j * (Dim - 1) + t) * Dim + i], z, alpha[m], dt);
        ++t;
      }
      flux[i][j] = z;
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

// R at a node (the mass side's force per unit mass, above) less its part pml_cross(d) u, from
// its displacement u, with d and alpha there and its memory variables state[pml_node_values<Dim>]
// (stage m's component c at m Dim + c). Advances the state by one step dt.
template <int Dim, class T>
TREMOR_HOST_DEVICE inline void pml_node_force(const double* u, const double* d, const double* alpha, double dt, T* state,
                                              double* R) {
  double x[Dim], carried[Dim];  // x_m, and sum_n<m d_n (x_n - alpha_n psi_n)
  for (int c = 0; c < Dim; ++c) {
    x[c] = u[c];
    carried[c] = 0.0;
    R[c] = 0.0;
  }
  for (int m = 0; m < Dim; ++m)
    for (int c = 0; c < Dim; ++c) {
      const double psi = pml_filter(state[m * Dim + c], x[c], alpha[m], dt);
      R[c] += d[m] * (carried[c] - alpha[m] * x[c] + alpha[m] * alpha[m] * psi);
      carried[c] += d[m] * (x[c] - alpha[m] * psi);
      x[c] += d[m] * psi;
    }
  const double cross = pml_cross(Dim, d);
  for (int c = 0; c < Dim; ++c) R[c] -= cross * u[c];
}

}  // namespace tremor::fem
