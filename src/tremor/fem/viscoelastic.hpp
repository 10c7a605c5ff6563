#pragma once
// The viscoelastic law with state (docs/architecture.md, "Pointwise laws with state"): a section's
// elastic law at its unrelaxed stiffness C_U, less the stress of N standard linear solids' memory
// variables, each a strain kept at every point where the law is evaluated (model/attenuation.hpp
// for the solids, their fit to a constant Q and the parts of C_U that relax).
//
//   sigma = C_U eps - P_v C_U P_v sum_l Y_kappa_l xi_l - P_d C_U P_d sum_l Y_mu_l xi_l,
//   d xi_l / dt = omega_l (eps - xi_l)
//
// (Moczo and Kristek 2005, with the bulk and shear parts relaxing apart; P_v C_U P_v xi = kappa_U
// tr(xi) I, and for an isotropic C_U, P_d C_U P_d xi = 2 mu_U dev(xi)). The memory variables are
// stepped at half steps by the trapezoidal rule, second order and unconditionally stable
// (Robertsson, Blanch and Symes 1994): with eps at t_n (the step's K u),
//   xi_l(n+1/2) = a_l xi_l(n-1/2) + b_l eps(n),  a_l = (1 - omega_l dt/2) / (1 + omega_l dt/2), b_l = 1 - a_l,
// and the stress at t_n takes xi_l(n) = (xi_l(n-1/2) + xi_l(n+1/2)) / 2. Each evaluation advances
// the state by one step: an operator holding it applies once per step.
//
// In 2D (plane strain) xi keeps (xx, yy, xy); xi_zz follows eps_zz = 0 and stays 0, but the
// deviator of xi has a zz part, -tr(xi) / 3, which the deviatoric part's in-plane rows take in
// (2 mu_U (xi_xx - tr(xi) / 3) for an isotropic section).
//
// Memory: N x n_voigt values per point in Real (3 solids: 18 in 3D, 9 in 2D), read and written
// once per step.
//
// Coarse-grained (a material's q_coarse_grained; Day 1998, BSSA 88, for finite differences; van
// Driel and Nissen-Meyer 2014, GJI 199, for spectral elements): the N solids are spread over an
// element's points, point (i, j, k) of its tensor-product rule keeping only solid
// l = (i + j + k) mod N, whose Y_kappa_l and Y_mu_l it takes times W / W_l (W the sum of the
// element's point weights, W_l that of solid l's points): over the element each solid weighs what
// it weighs at every point in full. A wave of several points per wavelength sees the element's
// mean modulus, the solids' M(omega); n_voigt values per point, N times fewer (docs/model-file.md,
// "Attenuation", for what the plane-wave tests measure of it).
#include <cstddef>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/fem/laws.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/model/attenuation.hpp"

namespace tremor::fem {

inline constexpr int max_solids = largest_solids;  // model/attenuation.hpp

// One section's solids for a time step, as a kernel reads them: `solids` (0: elastic), then per
// solid a_l, b_l, Y_kappa_l and Y_mu_l, then kappa, mu, the deviatoric part (SectionSolids) and
// 1 where coarse-grained. solids_stride values per section.
inline constexpr int solids_kappa_at = 1 + 4 * max_solids, solids_mu_at = solids_kappa_at + 1;
inline constexpr int solids_deviatoric_at = solids_mu_at + 1;
inline constexpr int solids_coarse_at = solids_deviatoric_at + 36;
inline constexpr int solids_stride = solids_coarse_at + 1;

// The solids whose memory variables a point of the section keeps: 1 where coarse-grained.
inline int solids_per_point(const SectionSolids& solids) { return solids.coarse ? (solids.n > 0 ? 1 : 0) : solids.n; }

// The solid that point (i, j, k) of a tensor-product rule keeps where coarse-grained, of n.
TREMOR_HOST_DEVICE inline int coarse_solid(int i, int j, int k, int n) { return (i + j + k) % n; }

// The weights W / W_l of coarse-grained solids on a tensor-product rule of n1 points a direction
// in `dim` directions with 1D weights w: entry (n - 1) max_solids + l for solid l of n. Solid l of
// n has no point where n exceeds the dim (n1 - 1) + 1 values of i + j + k: its entry is 0 (a
// section with that many solids is refused on such elements: coarse_solids_fit).
inline std::vector<double> coarse_weights(const double* w, int n1, int dim) {
  std::vector<double> out(static_cast<std::size_t>(max_solids * max_solids), 0.0);
  for (int n = 1; n <= max_solids; ++n) {
    double total = 0.0, part[max_solids] = {};
    for (int k = 0; k < (dim == 3 ? n1 : 1); ++k)
      for (int j = 0; j < n1; ++j)
        for (int i = 0; i < n1; ++i) {
          const double weight = w[i] * w[j] * (dim == 3 ? w[k] : 1.0);
          total += weight;
          part[coarse_solid(i, j, k, n)] += weight;
        }
    for (int l = 0; l < n; ++l)
      out[static_cast<std::size_t>((n - 1) * max_solids + l)] = part[l] > 0.0 ? total / part[l] : 0.0;
  }
  return out;
}

// The most coarse-grained solids a tensor-product rule of n1 points a direction in `dim`
// directions takes, each with points: its dim (n1 - 1) + 1 values of i + j + k; and whether n fit.
inline int coarse_solids_most(int n1, int dim) { return dim * (n1 - 1) + 1; }
inline bool coarse_solids_fit(int n, int n1, int dim) { return n <= coarse_solids_most(n1, dim); }

// The record of a section's solids for a step dt: out[solids_stride].
inline void solids_record(const SectionSolids& solids, double dt, double* out) {
  for (int k = 0; k < solids_stride; ++k) out[k] = 0.0;
  out[0] = solids.n;
  for (int l = 0; l < solids.n; ++l) {
    const auto k = static_cast<std::size_t>(l);
    const double half = 0.5 * solids.omega[k] * dt, a = (1.0 - half) / (1.0 + half);
    out[1 + 4 * l] = a;
    out[2 + 4 * l] = 2.0 * half / (1.0 + half);  // 1 - a, without its cancellation
    out[3 + 4 * l] = solids.y_kappa[k];
    out[4 + 4 * l] = solids.y_mu[k];
  }
  out[solids_kappa_at] = solids.kappa;
  out[solids_mu_at] = solids.mu;
  for (int k = 0; k < 36; ++k) out[solids_deviatoric_at + k] = solids.deviatoric[static_cast<std::size_t>(k)];
  out[solids_coarse_at] = solids.coarse ? 1.0 : 0.0;
}

// The records of every section (solids_record of its SectionSolids, solids_stride apart) for a
// step dt; `most` is raised to the most solids a point of any section keeps (solids_per_point).
inline std::vector<double> solids_records(const std::vector<SectionSolids>& sections, double dt, int& most) {
  std::vector<double> records(sections.size() * solids_stride);
  for (std::size_t s = 0; s < sections.size(); ++s) {
    const SectionSolids& solids = sections[s];
    solids_record(solids, dt, records.data() + s * solids_stride);
    most = most > solids_per_point(solids) ? most : solids_per_point(solids);
  }
  return records;
}

// Whether any section is coarse-grained.
inline bool any_coarse(const std::vector<SectionSolids>& sections) {
  for (const SectionSolids& solids : sections)
    if (solids.coarse && solids.n > 0) return true;
  return false;
}

// The law at one point: `elastic` (D_U) with the point's memory variables, n_voigt x solids
// values, value k of solid l at state[(l n_voigt + k) stride] (stride: between a point's values,
// so that neighbouring points' values are neighbours; sem/point_state.hpp). Coarse-grained:
// `solid` >= 0, the one solid the point keeps (n_voigt values from state), its Y_kappa and Y_mu
// times `weight` (coarse_weights).
// Slots 1: a kernel whose sections are all coarse-grained (or elastic), one solid's registers.
template <int Dim, class T, class Elastic, int Slots = 0>
struct ViscoelasticPoint {
  static constexpr int nv = voigt_size<Dim>;
  const Elastic& elastic;
  const T* record;  // the section's: solids_stride values from solids_stride x its index
  T* state;
  Size stride;
  int solid = -1;
  T weight = T(1);
  // A point with unrelaxed moduli of its own (an isotropic material field's at a GLL point,
  // fem/point_materials.hpp), whose bulk and shear parts relax in place of the record's.
  bool own = false;
  T own_lambda = T(0), own_mu = T(0);

  // Solids whose variables and coefficients are read at once: every read waits for the writes
  // before it, which could be to the same place as far as the compiler knows, so the reads of a
  // chunk go out together, and then its writes (on a GPU one trip to memory per chunk instead of
  // one per value). Three (the default solids) in float; one in double, where more registers
  // held across the law cost more than the trips they save.
  static constexpr int chunk = Slots == 1 ? 1 : sizeof(T) <= 4 ? 3 : 1;

  TREMOR_HOST_DEVICE void stress(const T* strain, T* sigma) const {
    // The solids kept at the point, in slots of n_voigt values: all, or the coarse-grained one.
    const int slots = Slots == 1 || solid >= 0 ? 1 : static_cast<int>(record[0]);
    T volume = T(0);   // sum_l Y_kappa_l tr(xi_l)
    T shape[nv] = {};  // sum_l Y_mu_l xi_l
    for (int first = 0; first < slots; first += chunk) {
      const int count = slots - first < chunk ? slots - first : chunk;
      T held[chunk][nv] = {}, coefficients[chunk][4] = {};
      for (int j = 0; j < count; ++j) {
        const int l = solid < 0 ? first + j : solid;  // (Slots 1, an elastic section: 0, whose Y are 0)
        for (int k = 0; k < 4; ++k) coefficients[j][k] = record[1 + 4 * l + k];
        for (int k = 0; k < nv; ++k) held[j][k] = state[static_cast<Size>((first + j) * nv + k) * stride];
      }
      for (int j = 0; j < count; ++j) {
        const int slot = first + j;
        const T a = coefficients[j][0], b = coefficients[j][1];
        const T y_kappa = weight * coefficients[j][2], y_mu = weight * coefficients[j][3];
        T mid[nv];
        for (int k = 0; k < nv; ++k) {
          const T next = a * held[j][k] + b * strain[k];
          mid[k] = T(0.5) * (held[j][k] + next);
          state[static_cast<Size>(slot * nv + k) * stride] = next;
        }
        volume += y_kappa * (Dim == 3 ? mid[0] + mid[1] + mid[2] : mid[0] + mid[1]);
        for (int k = 0; k < nv; ++k) shape[k] += y_mu * mid[k];
      }
    }
    elastic.stress(strain, sigma);
    const T mu = own ? own_mu : record[solids_mu_at];
    const T mean = (own ? own_lambda + T(2) / T(3) * own_mu : record[solids_kappa_at]) * volume;
    if (mu != T(0)) {  // isotropic: P_d C_U P_d = 2 mu_U dev
      const T third = (Dim == 3 ? shape[0] + shape[1] + shape[2] : shape[0] + shape[1]) / T(3);
      for (int k = 0; k < Dim; ++k) sigma[k] -= mean + T(2) * mu * (shape[k] - third);
      for (int k = Dim; k < nv; ++k) sigma[k] -= mu * shape[k];
    } else {
      const T* deviatoric = record + solids_deviatoric_at;
      for (int k = 0; k < nv; ++k) {
        T sum = k < Dim ? mean : T(0);
        for (int j = 0; j < nv; ++j) sum += deviatoric[k * nv + j] * shape[j];
        sigma[k] -= sum;
      }
    }
  }
};

}  // namespace tremor::fem
