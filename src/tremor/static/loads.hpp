#pragma once
// The right-hand side and the constraints of K u = f for a static model, on the host in double,
// DOFs node-major (node * dim + component):
//
//   Abaqus *CLOAD           f[dof] += magnitude
//   model-file [[source]]   f[dof] += amplitude * direction[c]     (its signal is not used)
//   surface loads           f += consistent nodal forces of the pressure or traction (fem/loads.hpp)
//   body forces             f += t int rho g N_a dV                 (gravity, *DLOAD GRAV)
//   Abaqus *BOUNDARY        u[dof] = value
//   [[prescribed_displacement]]  u[dof] = amplitude * factor[c]     (its signal is not used)
//
// A static solve applies every load at its full magnitude: an *AMPLITUDE named by a load or a
// boundary condition is not evaluated (a warning says so). Of two prescriptions of one DOF the
// later in the model wins, with a warning when their values differ. A force on a constrained DOF
// goes into that DOF's reaction (it does not move the model); a warning counts the point forces
// (*CLOAD, [[source]]) among them.
#include <string>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/model/model.hpp"

namespace tremor::static_fe {

struct StaticLoads {
  Index n_dofs = 0;
  std::vector<double> force;         // n_dofs, N; zero at constrained DOFs
  std::vector<double> applied;       // n_dofs, N; every applied force, constrained DOFs included
  std::vector<Index> fixed_dofs;     // sorted, unique
  std::vector<double> fixed_values;  // per fixed DOF, m
  std::vector<std::string> warnings; // also sent to log::warn
};

// Throws tremor::Error naming the item's origin for a component beyond the mesh's dimension or a
// model the static solver cannot take (absorbing layers belong to explicit runs).
StaticLoads static_loads(const Model& model);

}  // namespace tremor::static_fe
