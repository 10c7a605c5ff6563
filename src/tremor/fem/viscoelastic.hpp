#pragma once
// The viscoelastic law with state (docs/architecture.md, "Pointwise laws with state"): a section's
// elastic law at its unrelaxed moduli, less the stress of N standard linear solids' memory
// variables, each a strain kept at every point where the law is evaluated (model/attenuation.hpp
// for the solids and their fit to a constant Q).
//
//   sigma = D_U (eps - eps_a),  eps_a = sum_l Y_kappa_l tr(xi_l) / 3 I + Y_mu_l dev(xi_l),
//   d xi_l / dt = omega_l (eps - xi_l)
//
// (Moczo and Kristek 2005, with the bulk and shear moduli relaxing apart: for an isotropic D_U
// this is kappa_U (tr eps - sum Y_kappa tr xi) I + 2 mu_U (dev eps - sum Y_mu dev xi)). The memory
// variables are stepped at half steps by the trapezoidal rule, second order and unconditionally
// stable (Robertsson, Blanch and Symes 1994): with eps at t_n (the step's K u),
//   xi_l(n+1/2) = a_l xi_l(n-1/2) + b_l eps(n),  a_l = (1 - omega_l dt/2) / (1 + omega_l dt/2), b_l = 1 - a_l,
// and the stress at t_n takes xi_l(n) = (xi_l(n-1/2) + xi_l(n+1/2)) / 2. Each evaluation advances
// the state by one step: an operator holding it applies once per step.
//
// In 2D (plane strain) xi keeps (xx, yy, xy); xi_zz follows eps_zz = 0 and stays 0, but eps_a has
// a zz part, sum (Y_kappa - Y_mu) tr(xi) / 3, whose stress lambda_U eps_a,zz comes off sigma_xx and
// sigma_yy (isotropic D_U).
//
// Memory: N x n_voigt values per point in Real (3 solids: 18 in 3D, 9 in 2D), read and written
// once per step.
#include <cstddef>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/fem/laws.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/model/attenuation.hpp"

namespace tremor::fem {

inline constexpr int max_solids = largest_solids;  // model/attenuation.hpp

// One section's solids for a time step, as a kernel reads them: `solids` (0: elastic), then per
// solid a_l, b_l, Y_kappa_l and Y_mu_l, then lambda_U. solids_stride values per section.
inline constexpr int solids_stride = 2 + 4 * max_solids;

// The record of a section with n solids of relaxation frequencies omega (rad/s) and coefficients
// y_kappa, y_mu, for a step dt: out[solids_stride]. n 0: elastic.
inline void solids_record(int n, const double* omega, const double* y_kappa, const double* y_mu, double lambda_u,
                          double dt, double* out) {
  for (int k = 0; k < solids_stride; ++k) out[k] = 0.0;
  out[0] = n;
  for (int l = 0; l < n; ++l) {
    const double half = 0.5 * omega[l] * dt, a = (1.0 - half) / (1.0 + half);
    out[1 + 4 * l] = a;
    out[2 + 4 * l] = 2.0 * half / (1.0 + half);  // 1 - a, without its cancellation
    out[3 + 4 * l] = y_kappa[l];
    out[4 + 4 * l] = y_mu[l];
  }
  out[solids_stride - 1] = lambda_u;
}

// The records of every section (solids_record of its SectionSolids, solids_stride apart) for a
// step dt; `most` is raised to the most solids of any section.
inline std::vector<double> solids_records(const std::vector<SectionSolids>& sections, double dt, int& most) {
  std::vector<double> records(sections.size() * solids_stride);
  for (std::size_t s = 0; s < sections.size(); ++s) {
    const SectionSolids& solids = sections[s];
    solids_record(solids.n, solids.omega.data(), solids.y_kappa.data(), solids.y_mu.data(), solids.lambda_u, dt,
                  records.data() + s * solids_stride);
    most = most > solids.n ? most : solids.n;
  }
  return records;
}

// The law at one point: `elastic` (D_U) with the point's memory variables, n_voigt x solids
// values, value k of solid l at state[(l n_voigt + k) stride] (stride: the points of the array, so
// that neighbouring points' values are neighbours).
template <int Dim, class T, class Elastic>
struct ViscoelasticPoint {
  static constexpr int nv = voigt_size<Dim>;
  const Elastic& elastic;
  const T* record;  // the section's: solids_stride values from solids_stride x its index
  T* state;
  Size stride;

  // Solids whose variables and coefficients are read at once: every read waits for the writes
  // before it, which could be to the same place as far as the compiler knows, so the reads of a
  // chunk go out together, and then its writes (on a GPU one trip to memory per chunk instead of
  // one per value). Three (the default solids) in float; one in double, where more registers
  // held across the law cost more than the trips they save.
  static constexpr int chunk = sizeof(T) <= 4 ? 3 : 1;

  TREMOR_HOST_DEVICE void stress(const T* strain, T* sigma) const {
    const int n = static_cast<int>(record[0]);
    const T lambda_u = Dim == 2 ? record[solids_stride - 1] : T(0);
    T anelastic[nv] = {};
    T zz = T(0);
    for (int first = 0; first < n; first += chunk) {
      const int count = n - first < chunk ? n - first : chunk;
      T held[chunk][nv] = {}, coefficients[chunk][4] = {};
      for (int j = 0; j < count; ++j) {
        for (int k = 0; k < 4; ++k) coefficients[j][k] = record[1 + 4 * (first + j) + k];
        for (int k = 0; k < nv; ++k) held[j][k] = state[static_cast<Size>((first + j) * nv + k) * stride];
      }
      for (int j = 0; j < count; ++j) {
        const int l = first + j;
        const T a = coefficients[j][0], b = coefficients[j][1], y_kappa = coefficients[j][2], y_mu = coefficients[j][3];
        T mid[nv];
        for (int k = 0; k < nv; ++k) {
          const T next = a * held[j][k] + b * strain[k];
          mid[k] = T(0.5) * (held[j][k] + next);
          state[static_cast<Size>(l * nv + k) * stride] = next;
        }
        const T third = (Dim == 3 ? mid[0] + mid[1] + mid[2] : mid[0] + mid[1]) / T(3);
        for (int k = 0; k < Dim; ++k) anelastic[k] += y_kappa * third + y_mu * (mid[k] - third);
        for (int k = Dim; k < nv; ++k) anelastic[k] += y_mu * mid[k];
        if constexpr (Dim == 2) zz += (y_kappa - y_mu) * third;
      }
    }
    T elastic_strain[nv];
    for (int k = 0; k < nv; ++k) elastic_strain[k] = strain[k] - anelastic[k];
    elastic.stress(elastic_strain, sigma);
    if constexpr (Dim == 2) {
      const T lambda_zz = lambda_u * zz;
      sigma[0] -= lambda_zz;
      sigma[1] -= lambda_zz;
    }
  }
};

}  // namespace tremor::fem
