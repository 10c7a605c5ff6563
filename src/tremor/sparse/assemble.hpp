#pragma once
// Global matrices of the explicit scheme M U'' + C U' + K U = F (pogo paper section 2.1, Eq. 1):
// the stiffness K in CSR, and the lumped (diagonal) mass M and mass-proportional damping C per
// DOF. DOFs node-major (node * dim + component). Element matrices are computed in double from
// fem/element_matrices.hpp with each element's section: its material (D = the 6x6 stiffness in
// 3D, plane_stiffness() in 2D; a 2D Solid section is read as plane strain) and thickness (2D).
//
// Every routine first checks the model: each element has a section, each section a material,
// and fem::check_geometry() passes (an inverted or degenerate element throws tremor::Error naming
// its label). Parallel loops run over element colours (colouring.hpp), so results are the same
// bits for every thread count and for Serial and OpenMP.
#include <array>
#include <vector>

#include "tremor/backend/exec.hpp"
#include "tremor/model/model.hpp"
#include "tremor/sparse/colouring.hpp"
#include "tremor/sparse/csr.hpp"

namespace tremor::sparse {

// What the element kernels need of each section, and which section each element belongs to.
struct SectionTable {
  int dim = 3;
  int n_voigt = 6;                           // 3 in 2D, 6 in 3D
  std::vector<std::array<double, 36>> D;     // per section: n_voigt x n_voigt, row-major
  std::vector<double> thickness;             // per section: the section's thickness in 2D, 1 in 3D
  std::vector<double> density;               // per section, kg/m^3
  std::vector<double> damping_alpha;         // per section, s^-1
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

// K = sum_e K_e on stiffness_pattern(model.mesh). Entries are located by bisection in each row.
CsrMatrix assemble_stiffness(const Model& model, const Exec& exec = Exec::openmp());

// Lumped mass per DOF: sum over elements of the element's lumped nodal mass (fem::lumped_mass
// with rho * thickness), the same for each component of a node.
std::vector<double> assemble_lumped_mass(const Model& model, const Exec& exec = Exec::openmp());

// Mass-proportional damping per DOF, C = sum_e alpha_e M_e (lumped): diagonal, so the central
// difference step stays explicit. alpha_e is the material's damping_alpha plus the absorbing
// layers' (model/absorbing.hpp).
std::vector<double> assemble_lumped_damping(const Model& model, const Exec& exec = Exec::openmp());

// The same three from a table and a colouring built once (section_table(), colour_elements()),
// for a solver that assembles several of them: the checks, the absorbing profile and the
// colouring are then done once.
CsrMatrix assemble_stiffness(const Model& model, const SectionTable& table, const ElementColouring& colouring,
                             const Exec& exec);
std::vector<double> assemble_lumped_mass(const Model& model, const SectionTable& table,
                                         const ElementColouring& colouring, const Exec& exec);
std::vector<double> assemble_lumped_damping(const Model& model, const SectionTable& table,
                                            const ElementColouring& colouring, const Exec& exec);

}  // namespace tremor::sparse
