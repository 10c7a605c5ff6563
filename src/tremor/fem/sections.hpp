#pragma once
// The section table: what every element kernel needs of each section (its material's D in Voigt
// form, 3x3 plane in 2D; thickness; density; damping) and which section each element belongs to,
// with the absorbing layers' per-element damping and stiffness factor. A "section" here is a row:
// each model section's, then one per distinct sample of a material field (ElementMaterials,
// model/material_field.hpp), so a field costs a row read per element, not a kernel. Built once
// per run from the model on the host; DeviceElements (device_elements.hpp) carries it to an Exec.
#include <array>
#include <memory>
#include <vector>

#include "tremor/fem/laws.hpp"
#include "tremor/model/model.hpp"

namespace tremor::fem {

// A section's standard linear solids (model/attenuation.hpp, fem/viscoelastic.hpp): n 0 where it
// does not attenuate. omega_l (rad/s), Y_kappa_l and Y_mu_l, and the relaxing parts of the
// unrelaxed stiffness C_U: kappa (P_v C_U P_v = kappa 1_3 1_3^T) and, for an isotropic section, mu
// (P_d C_U P_d = 2 mu dev); for an anisotropic one mu 0 and `deviatoric`, P_d C_U P_d, n_voigt x
// n_voigt row-major (plane strain: its xx, yy, xy rows and columns). coarse: each point keeps one
// solid's memory variables (fem/viscoelastic.hpp, coarse_solid).
struct SectionSolids {
  int n = 0;
  bool coarse = false;
  std::array<double, largest_solids> omega{}, y_kappa{}, y_mu{};
  double kappa = 0.0, mu = 0.0;
  std::array<double, 36> deviatoric{};
};

// A row sampled from a material field's grid, for the elements that take the field at points of
// their own (GLL elements of order 2 and more: their nodes, where K and the lumped mass are
// integrated; fem/point_materials.hpp): the field, and what turns its sample at a point into the
// row's law. Every row has one; `field` null for the others (a section's material, element data,
// a grain), which keep the row's values at every point.
struct RowField {
  std::shared_ptr<const MaterialField> field;
  // An attenuating row's unrelaxed over given bulk and shear moduli (its centre's fit, the same
  // at each of its element's points), 1 otherwise.
  double kappa_factor = 1.0, mu_factor = 1.0;
  Formulation formulation = Formulation::Solid;  // 2D: plane strain or plane stress
  // The row's own: its sample (where a point's equals it, the point takes the row's values to the
  // bit: a layered field's elements are their layer's), its isotropic law's lambda and mu (D's
  // form: plane stress condensed; 0 for an anisotropic row) and its density.
  std::array<double, 5> sample{};
  bool isotropic = false;
  double lambda = 0.0, mu = 0.0, density = 0.0;
};

// What the element kernels need of each section, and which section each element belongs to.
struct SectionTable {
  int dim = 3;
  int n_voigt = 6;                           // 3 in 2D, 6 in 3D
  std::vector<std::array<double, material_stride>> D;  // per section: n_voigt x n_voigt, row-major
  std::vector<double> thickness;             // per section: the section's thickness in 2D, 1 in 3D
  std::vector<double> density;               // per section, kg/m^3
  std::vector<double> damping_alpha;         // per section, s^-1
  std::vector<double> damping_beta;          // per section, s (stiffness-proportional)
  // Per section where any attenuates (D then holds its unrelaxed moduli), else empty.
  std::vector<SectionSolids> solids;
  bool attenuates() const { return !solids.empty(); }
  // Per row where some row samples a grid field (RowField), else empty.
  std::vector<RowField> fields;
  std::vector<int> element_section;          // per global element
  // Absorbing layers (model/absorbing.hpp), per global element: damping added to the section's
  // alpha, and the factor K_e is scaled by (D scaled as a whole, so anisotropic materials keep
  // their anisotropy). Empty when the model has no layer: 0 and 1 everywhere.
  std::vector<double> element_alpha;
  std::vector<double> element_stiffness_factor;
  double stiffness_factor(std::size_t element) const {
    return element_stiffness_factor.empty() ? 1.0 : element_stiffness_factor[element];
  }
  double alpha(std::size_t element) const {
    return damping_alpha[static_cast<std::size_t>(element_section[element])] +
           (element_alpha.empty() ? 0.0 : element_alpha[element]);
  }
};

// Builds the table and runs the checks above (`model.source` prefixes messages), with the
// absorbing layers' per-element profile (absorbing_profile()).
// `check_geometry` false leaves out fem::check_geometry (a pass over the mesh on the host), for a
// caller that checks the elements on its Exec instead (element_survey.hpp).
SectionTable section_table(const Model& model, bool check_geometry = true);

}  // namespace tremor::fem
