#pragma once
// The largest eigenvalue of M^-1 K for a stiffness operator K and a lumped (diagonal) mass M: what
// sets the stable step of central differences, dt <= 2 / sqrt(lambda_max) (the pogo paper's
// Eq. 4 scheme; Cook et al., Concepts and Applications of FEA, section 11.4).
//
// By Lanczos on the symmetric M^-1/2 K M^-1/2 from a fixed pseudo-random start, on the operator's
// Exec: one apply and four vector passes per iteration. The largest Ritz value (the largest
// eigenvalue of the Lanczos tridiagonal, by Sturm bisection) rises to lambda_max from below; the
// iteration stops when it has changed by less than `tolerance` (relative) over 10 iterations, or
// after max_iterations. Without reorthogonalisation: lost orthogonality repeats converged Ritz
// values, it does not move the largest. A global estimate: unlike the element-by-element bound
// max_e lambda_max(M_e^-1 K_e), it sees that neighbouring elements stiffen each other's modes.
#include "tremor/core/config.hpp"
#include "tremor/operator/operator.hpp"

namespace tremor::op {

struct Spectrum {
  double largest = 0.0;  // the largest Ritz value, 1/s^2
  int iterations = 0;
  double change = 0.0;   // its relative change over the last 10 iterations
};

// mass: the lumped mass per DOF in the memory of K's Exec, positive, or 0 for a DOF no element
// holds (left out, as the integrator holds it). Throws
// tremor::Error when K has no DOFs or K u = 0 for the start vector (no stiffness).
Spectrum largest_eigenvalue(const Operator<double>& K, const double* mass, double tolerance = 1e-5,
                            int max_iterations = 500);

// The largest eigenvalue of the symmetric tridiagonal matrix with diagonal a[0 .. n) and
// off-diagonal b[0 .. n - 1), to rounding (Sturm bisection).
double largest_tridiagonal_eigenvalue(const double* a, const double* b, int n);

}  // namespace tremor::op
