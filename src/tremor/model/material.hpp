#pragma once
// Linear elastic materials. Stiffness is stored in Voigt notation, order (xx, yy, zz, yz, xz, xy),
// with engineering shear strains (gamma = 2 epsilon), row-major 6x6. SI units: Pa, kg/m^3.
#include <array>
#include <memory>
#include <optional>
#include <string>

#include "tremor/model/attenuation.hpp"

namespace tremor {

struct MaterialField;
struct Microstructure;

using Voigt6 = std::array<double, 36>;
using Voigt3 = std::array<double, 9>;  // 2D (xx, yy, xy), row-major 3x3

// How a 2D element block is interpreted; 3D blocks are always Solid.
enum class Formulation { Solid, PlaneStrain, PlaneStress };

// Material constants are SI numbers of a physical magnitude: a density (kg/m^3) or an elastic
// modulus (Pa, the largest entry of the stiffness) outside [1e-30, 1e30] is no material, and
// would overflow or underflow the element matrices, the wave speeds and the stable step (whose
// squares reach 1e60 at these bounds, far inside double's 1e308). Smaller moduli beside a largest
// one within the range are allowed (a nearly fluid shear modulus).
inline constexpr double smallest_material_constant = 1e-30;
inline constexpr double largest_material_constant = 1e30;

struct Material {
  std::string name;
  std::string origin;  // "file:line" of its definition, for messages; empty for one made in code
  double density = 0.0;
  Voigt6 stiffness{};
  bool isotropic = false;
  // An acoustic fluid (kind = "fluid"): no shear, its bulk modulus kappa = rho c^2; its stiffness
  // all zero (no solid law takes it: fem/laws.hpp FluidLaw, docs/model-file.md "Fluids").
  bool fluid = false;
  double bulk_modulus = 0.0;
  // Rayleigh damping, C = alpha M + beta K: mass-proportional alpha (s^-1) and
  // stiffness-proportional beta (s), as Abaqus's *DAMPING, ALPHA and BETA. A mode of angular
  // frequency omega decays at alpha / 2 + beta omega^2 / 2.
  double damping_alpha = 0.0;
  double damping_beta = 0.0;
  // Constant-Q viscoelasticity (model/attenuation.hpp): the stiffness above then holds the moduli
  // whose wave speeds are the phase velocities at the reference frequency.
  std::optional<Attenuation> attenuation;
  // A material field (model/material_field.hpp): isotropic properties varying in space, which each
  // element samples (element_materials); the constants above are then its first grid point's,
  // nominal, and the wave speeds below the field's extremes.
  std::shared_ptr<const MaterialField> field;
  // Grains (model/microstructure.hpp): each element its own orientation of this anisotropic
  // crystal, whose stiffness above is in crystal axes; each grain a row of element_materials.
  std::shared_ptr<const Microstructure> grains;

  // Constructors for every pair of isotropic constants; each validates its arguments and throws
  // tremor::Error naming the material and the offending value.
  static Material from_youngs(std::string name, double youngs, double poisson, double density);
  static Material from_lame(std::string name, double lambda, double mu, double density);
  static Material from_speeds(std::string name, double p_speed, double s_speed, double density);
  static Material from_stiffness(std::string name, const Voigt6& stiffness, double density);
  // An acoustic fluid of sound speed c (m/s): kappa = rho c^2.
  static Material from_sound_speed(std::string name, double sound_speed, double density);
  // Orthotropic in the material axes (1, 2, 3) = (x, y, z).
  static Material from_engineering_constants(std::string name, double e1, double e2, double e3, double nu12,
                                             double nu13, double nu23, double g12, double g13, double g23,
                                             double density);

  double c(int i, int j) const { return stiffness[static_cast<std::size_t>(6 * i + j)]; }
  // Isotropic only: Lame constants (throw for anisotropic materials and fluids).
  double lambda() const;
  double mu() const;
  // A fluid's sound speed, sqrt(kappa / rho) (throws for a solid).
  double sound_speed() const;
  // Fastest plane-wave speed over all directions (a field's: over its grid): exact for isotropic materials; for anisotropic
  // ones the largest Christoffel eigenvalue sampled on a ~2 degree net of directions, an estimate
  // within ~1e-4 relative below the true maximum (time steps come from element eigenvalues,
  // fem/time_step.hpp, not from this).
  double max_wave_speed() const;
  // Slowest quasi-shear speed sampled on the same directions (an estimate from above, for
  // points-per-wavelength checks). A fluid's both: its sound speed.
  double min_wave_speed() const;
  // The stability condition of a PML normal to `axis` (Becache, Fauqueux and Joly 2003): every
  // plane wave's slowness n and group velocity V have components along the axis of one sign.
  // The most negative n_axis V_axis / |V| over directions sampled as above (in the x-y plane, and
  // the in-plane waves, for dim 2): 0 where the condition holds (isotropic materials), below it
  // where a C-PML on that axis grows.
  double pml_margin(int axis, int dim) const;

  // Density positive, stiffness symmetric positive definite, the density and the largest stiffness
  // entry within [smallest_material_constant, largest_material_constant]; a fluid's bulk modulus
  // within that range and its stiffness zero; throws naming the material.
  void validate() const;
};

// The 3x3 constitutive matrix of a 2D formulation. Plane strain takes the (xx, yy, xy) rows and
// columns of C; plane stress condenses out sigma_zz = sigma_yz = sigma_xz = 0.
Voigt3 plane_stiffness(const Material& material, Formulation formulation);
// The xx, yy, xy rows and columns of a 3D Voigt matrix (plane strain's).
Voigt3 in_plane(const Voigt6& c);

// Whether a symmetric n x n matrix (row-major, n <= 6) is positive definite (Cholesky).
bool positive_definite(const double* a, int n);

std::string to_string(Formulation formulation);

}  // namespace tremor
