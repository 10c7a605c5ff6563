#pragma once
// Pointwise constitutive laws: the one place where an element kernel turns a strain into a stress
// (docs/architecture.md, "Element evaluation"; the pointwise part, libCEED's QFunctions). Every
// element kernel (the matrix-free action, the SEM point and column kernels, the element matrices
// of the two-kernel assembly and the batched formats, the element survey, stress recovery) reads
// a section's material through these types, so a new kind of material is one law here, one
// LawKind, and its case in SectionLaw and law_kind().
//
// Laws are TREMOR_HOST_DEVICE values templated on the dimension and the value type T (double in
// the element matrices, float or double in the operators). Voigt order as model/material.hpp:
// (xx, yy, xy) in 2D, (xx, yy, zz, yz, xz, xy) in 3D, engineering shear strains.
//
// Two uses of a law, by what the kernel computes:
//   - its action, stress(strain): the operators that apply K (matrix-free, sem) take each
//     section's own law (SectionLaw), the isotropic one a fifth of the anisotropic one's flops;
//   - its tangent, the Voigt matrix D (AnisotropicLaw over the section's D): element matrices
//     K_e = int B^T D B, the survey's eigenvalue bound and the stress recovery of a static
//     solution, whose values stay those of the assembled K they are checked against.
#include "tremor/core/config.hpp"

namespace tremor::fem {

template <int Dim>
constexpr int voigt_size = Dim == 2 ? 3 : 6;

// The values a material table keeps per section: its Voigt matrix D, n_voigt x n_voigt row-major,
// in the first n_voigt^2 (DeviceElements::D, the sem operator's copy in its own precision).
inline constexpr int material_stride = 36;

// The kinds of elastic material; each is evaluated by its own law below.
enum class LawKind : int { Anisotropic = 0, Isotropic = 1 };

// The kind of a section's D (n_voigt 6 in 3D, 3 in 2D): Isotropic when D has the form of lambda
// and mu (zeros where it must, equal entries to a relative 1e-14), Anisotropic otherwise. Host.
LawKind law_kind(const double* D, int n_voigt);

// sigma = D eps, D row-major, each component summed in column order (the tangent of every law).
template <int Dim, class T>
struct AnisotropicLaw {
  static constexpr int nv = voigt_size<Dim>;
  const T* D;

  TREMOR_HOST_DEVICE void stress(const T* strain, T* sigma) const {
    for (int k = 0; k < nv; ++k) {
      T sum = T(0);
      for (int l = 0; l < nv; ++l) sum += D[k * nv + l] * strain[l];
      sigma[k] = sum;
    }
  }
};

// sigma = lambda tr(eps) I + 2 mu eps: 15 flops in 3D against the anisotropic law's 72.
template <int Dim, class T>
struct IsotropicLaw {
  static constexpr int nv = voigt_size<Dim>;
  T lambda, mu;

  // lambda = D[0][1] and mu = D[Dim][Dim], the first shear's, of an isotropic D (law_kind's form).
  TREMOR_HOST_DEVICE static IsotropicLaw of(const T* D) { return {D[1], D[Dim * (nv + 1)]}; }

  TREMOR_HOST_DEVICE void stress(const T* strain, T* sigma) const {
    if constexpr (Dim == 3) {
      const T volume = lambda * (strain[0] + strain[1] + strain[2]);
      for (int m = 0; m < 3; ++m) sigma[m] = volume + T(2) * mu * strain[m];
      for (int m = 3; m < 6; ++m) sigma[m] = mu * strain[m];
    } else {
      const T area = lambda * (strain[0] + strain[1]);
      sigma[0] = area + T(2) * mu * strain[0];
      sigma[1] = area + T(2) * mu * strain[1];
      sigma[2] = mu * strain[2];
    }
  }
};

// An acoustic fluid's law, for a displacement potential chi (rho u = grad chi, p = -chi_tt; Komatitsch,
// Barnes and Tromp 2000, Geophysics 65): the flux (1 / rho) grad chi, whose divergence balances
// chi_tt / kappa. One value per node, not dim: its element verbs are PointEvaluation's scalar
// ones (element_matrices.hpp).
template <int Dim, class T>
struct FluidLaw {
  T inverse_density;

  TREMOR_HOST_DEVICE void flux(const T* gradient, T* out) const {
    for (int k = 0; k < Dim; ++k) out[k] = inverse_density * gradient[k];
  }
};

// Every section's material as a kernel reads it: material_stride values and a LawKind per section.
template <class T>
struct MaterialView {
  const T* values;
  const int* kinds;

  TREMOR_HOST_DEVICE const T* voigt(int section) const { return values + material_stride * section; }
  TREMOR_HOST_DEVICE LawKind kind(int section) const { return static_cast<LawKind>(kinds[section]); }
  // The section's tangent: its D as an anisotropic law, whatever its kind.
  template <int Dim>
  TREMOR_HOST_DEVICE AnisotropicLaw<Dim, T> tangent(int section) const {
    return {voigt(section)};
  }
};

// The law of one section, read once per element and evaluated at each of its points: the kind the
// section holds. Both laws' values are read (a few loads per element) so that the branch at each
// point is on a register.
template <int Dim, class T>
struct SectionLaw {
  static constexpr int nv = voigt_size<Dim>;
  AnisotropicLaw<Dim, T> anisotropic;
  IsotropicLaw<Dim, T> isotropic;
  bool is_isotropic;

  TREMOR_HOST_DEVICE SectionLaw(const MaterialView<T>& material, int section)
      : anisotropic{material.voigt(section)},
        isotropic(IsotropicLaw<Dim, T>::of(material.voigt(section))),
        is_isotropic(material.kind(section) == LawKind::Isotropic) {}

  TREMOR_HOST_DEVICE void stress(const T* strain, T* sigma) const {
    if (is_isotropic)
      isotropic.stress(strain, sigma);
    else
      anisotropic.stress(strain, sigma);
  }
};

}  // namespace tremor::fem
