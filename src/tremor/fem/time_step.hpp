#pragma once
// Stable time step of the explicit central-difference scheme with lumped mass.
//
// Central differences are stable for dt <= 2 / omega_max, omega_max^2 the largest eigenvalue of
// M^-1 K. With lumped M = sum_e M_e and K = sum_e K_e, u^T K u = sum_e u_e^T K_e u_e <=
// sum_e lambda_e u_e^T M_e u_e <= (max_e lambda_e) u^T M u, so the element maximum of
// lambda_e = lambda_max(M_e^-1 K_e) bounds the global one and dt = 2 / sqrt(max_e lambda_e) is safe.
#include <span>

#include "tremor/core/config.hpp"
#include "tremor/mesh/element_type.hpp"
#include "tremor/model/model.hpp"

namespace tremor::fem {

// lambda_max(M_e^-1 K_e) of one element: x its node coordinates (node-major), D the constitutive
// matrix (3x3 in 2D, 6x6 in 3D, row-major), lumped mass from density * thickness. Power iteration
// on M^-1/2 K M^-1/2 (dense K up to 200 DOFs, matrix-free beyond) from a fixed pseudo-random start,
// until the residual is below 1e-8 of the Rayleigh quotient (at most 3000 iterations): the
// quotient converges from below, within that residual of an eigenvalue.
double element_max_eigenvalue(ElementType type, int order, std::span<const double> x, std::span<const double> D,
                              double density, double thickness);

struct TimeStepEstimate {
  double dt = 0.0;        // 2 / sqrt(max lambda_e), seconds
  Index element = -1;     // global index of the element setting it
  Label label = 0;        // its label in the input
};

// The smallest element time step over the model, with each element's section (material,
// formulation, thickness). Throws tremor::Error naming the element when one has no section or
// is inverted.
TimeStepEstimate stable_time_step(const Model& model);

}  // namespace tremor::fem
