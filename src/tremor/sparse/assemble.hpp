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
#include <vector>

#include "tremor/backend/exec.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/model/model.hpp"
#include "tremor/sparse/csr.hpp"

namespace tremor::sparse {

// K = sum_e K_e on stiffness_pattern(model.mesh). Entries are located by bisection in each row.
CsrMatrix assemble_stiffness(const Model& model, const Exec& exec = Exec::openmp());

// Lumped mass per DOF: sum over elements of the element's lumped nodal mass (fem::lumped_mass
// with rho * thickness), the same for each component of a node.
std::vector<double> assemble_lumped_mass(const Model& model, const Exec& exec = Exec::openmp());

// Mass-proportional damping per DOF, C = sum_e alpha_e M_e (lumped): diagonal, so the central
// difference step stays explicit. alpha_e is the material's damping_alpha plus the absorbing
// layers' (model/absorbing.hpp).
std::vector<double> assemble_lumped_damping(const Model& model, const Exec& exec = Exec::openmp());

// The same three from a table and a colouring built once (fem::section_table(), fem::colour_elements()),
// for a solver that assembles several of them: the checks, the absorbing profile and the
// colouring are then done once.
CsrMatrix assemble_stiffness(const Model& model, const fem::SectionTable& table, const fem::ElementColouring& colouring,
                             const Exec& exec);
std::vector<double> assemble_lumped_mass(const Model& model, const fem::SectionTable& table,
                                         const fem::ElementColouring& colouring, const Exec& exec);
std::vector<double> assemble_lumped_damping(const Model& model, const fem::SectionTable& table,
                                            const fem::ElementColouring& colouring, const Exec& exec);

}  // namespace tremor::sparse
