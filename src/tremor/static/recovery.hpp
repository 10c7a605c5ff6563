#pragma once
// What a static solution u gives besides itself, computed element by element on the host in
// double from the element kernels (fem/element_matrices.hpp), independent of the matrices the
// solver used:
//   nodal stress     sigma = D B(xi_a) u_e at each element node a (direct evaluation at the
//                    node's reference position), averaged over the elements sharing the node;
//   von Mises        of that averaged stress; in plane strain with sigma_zz = C_zx e_xx +
//                    C_zy e_yy + C_z,xy g_xy of the 3D material (plane stress: sigma_zz = 0);
//   internal force   K u = sum_e K_e u_e (matrix-free), so reactions are K u - f at the
//                    constrained DOFs and the sum of all of them balances the applied loads.
// Cost: one pass over the elements, O(nodes per element x quadrature work) each.
#include <span>
#include <vector>

#include "tremor/model/model.hpp"
#include "tremor/sparse/assemble.hpp"

namespace tremor::static_fe {

struct Recovery {
  std::vector<double> stress;          // n_voigt per node (Voigt order of model/material.hpp), Pa
  std::vector<double> von_mises;       // one per node, Pa
  std::vector<double> internal_force;  // dim per node, N: (K u) node-major
};

// `u` holds dim values per node, node-major. Nodes no element uses get zero stress.
Recovery recover(const Model& model, const fem::SectionTable& table, std::span<const double> u);

// Von Mises stress of a Voigt stress (3D: xx, yy, zz, yz, xz, xy; 2D: xx, yy, xy plus sigma_zz).
double von_mises_3d(const double* s);
double von_mises_2d(const double* s, double sigma_zz);

}  // namespace tremor::static_fe
