#pragma once
// Dense complex LU solve of the boundary-element system A x = b (A dense, non-symmetric, 3N x 3N
// for N boundary elements): LAPACK (zgetrf, zgetrs, zgecon) on the host backends, cuSOLVER's
// 64-bit API (cusolverDnXgetrf, cusolverDnXgetrs) on the GPU.
//
// Threads: Serial and OpenMP both call the LAPACK the build links. OpenBLAS threads its own
// kernels, so on either host backend the thread count is OpenBLAS's: OPENBLAS_NUM_THREADS, else
// OMP_NUM_THREADS, else every core. The Exec's backend only says where A and B live.
#include <functional>
#include <string>
#include <vector>

#include "tremor/backend/exec.hpp"
#include "tremor/bem/complex.hpp"
#include "tremor/core/config.hpp"

namespace tremor::bem {

struct DenseSolveReport {
  // 1 / (||A||_1 * estimate of ||A^-1||_1): zgecon on the host, Higham's estimator with solves on
  // the GPU factors on the GPU (estimate_inverse_norm_1). NaN when not estimated.
  double reciprocal_condition = 0;
  double factor_seconds = 0;     // the LU factorisation (getrf) alone
  double solve_seconds = 0;      // the solve with the factors (getrs) for all right-hand sides
  double condition_seconds = 0;  // ||A||_1 and the estimate of ||A^-1||_1 (0 when not estimated)
  std::string backend;           // "LAPACK (OpenBLAS)", "LAPACK" or "cuSOLVER"
  int threads = 0;               // OpenBLAS's thread count; 0 when unknown or on the GPU
};

// Solves A X = B in place: A (n x n, column-major, leading dimension n) is overwritten by its LU
// factors (unit lower L below the diagonal, U on and above it, rows permuted by partial pivoting),
// B (n x n_rhs, column-major, leading dimension n) by X. A and B live in exec's memory space (host
// for Serial/OpenMP, device for Cuda). n_rhs = 0 only factors (B may then be null); n = 0 does
// nothing. Throws tremor::Error when A is exactly singular (naming the zero pivot), when A holds
// non-finite values (found by the norm of the condition estimate), when the GPU's free memory
// cannot hold cuSOLVER's workspace, or on any LAPACK/cuSOLVER failure (naming the routine and its
// info).
DenseSolveReport solve_dense(const Exec& exec, Index n, Index n_rhs, Complex* A, Complex* B,
                             bool estimate_condition = true);

// ||A||_1 = max_j sum_i |A(i,j)|, the column-sum norm, of a rows x cols column-major matrix
// (leading dimension rows) in exec's memory space. NaN when A holds a NaN.
double norm_1(const Exec& exec, Index rows, Index cols, const Complex* A);

// A lower bound of ||A^-1||_1, usually within a factor 3 of it, from at most 11 solves: Higham's
// 1-norm estimator (N. J. Higham, ACM TOMS 14 (1988) 381-396, Algorithm 4.1, the complex
// version LAPACK's zlacn2 implements; Hager's method with an extra safeguard vector), keeping the
// largest lower bound seen. solve(x, adjoint) overwrites x (n values on the host) by A^-1 x, or
// by A^-H x when adjoint is true.
using InverseSolve = std::function<void(std::vector<Complex>& x, bool adjoint)>;
double estimate_inverse_norm_1(Index n, const InverseSolve& solve);

}  // namespace tremor::bem
