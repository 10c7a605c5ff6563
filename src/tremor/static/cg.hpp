#pragma once
// Preconditioned conjugate gradients for the static system K u = f (two-kernel assembly paper,
// section V: the assembled stiffness, made non-singular by the essential boundary conditions, is
// solved by a Krylov method). One implementation for every backend: vector updates are forall
// kernels and dot products the deterministic sum() of backend/reduce.hpp, so a solve gives the
// same bits on every run of a given backend (and OpenMP thread count).
//
// Precision: vectors and the operator are in Real (float or double); every dot product and norm is
// accumulated in double, also for Real = float, and the scalars alpha, beta are computed in double
// and rounded to Real where a kernel applies them. A float solve thus loses accuracy only through
// its vectors and matrix, not through its reductions. Its attainable relative residual is still
// limited, to roughly float's rounding (6e-8) times ||A|| ||x|| / ||b||: 1e-5 on a compact
// well-supported body, 4e-2 on the slender verification cantilever (docs/static.md). The solver
// detects that floor (CgStatus::Stagnated) instead of running to the iteration limit.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/model/source.hpp"
#include "tremor/operator/operator.hpp"
#include "tremor/sparse/block_csr.hpp"
#include "tremor/sparse/csr.hpp"

namespace tremor::static_fe {

template <class Real>
class Preconditioner;

// CG's A: a symmetric positive definite op::Operator (operator/operator.hpp) on vectors in the
// memory of the Exec the solve runs on; one apply per iteration reads its bytes() and x, writes y.

// The operator of an assembled matrix held in exec's memory: sparse::spmv on it. The matrix must
// outlive the operator (it is referenced, not copied: the preconditioner and the constraints
// read it too).
// Per application: CSR reads nnz (sizeof(Real) + 4) + 8 (n + 1) bytes of matrix and writes n Real;
// block CSR reads n_blocks (B^2 sizeof(Real) + 4) + 8 (nodes + 1) bytes.
template <class Real>
std::unique_ptr<op::Operator<Real>> csr_operator(const Exec& exec, const sparse::DeviceCsr<Real>& matrix);
template <class Real>
std::unique_ptr<op::Operator<Real>> block_csr_operator(const Exec& exec, const sparse::DeviceBlockCsr<Real>& matrix);

struct CgSettings {
  double tolerance = 1e-8;     // on the relative residual ||b - A x|| / ||b||, > 0
  int max_iterations = 10000;  // > 0
  // false: start from x = 0 (x's contents are ignored); true: x holds the initial guess on entry.
  bool use_initial_guess = false;
};

// What the caller of a static solve is asked between iterations, as the explicit and
// boundary-element solvers ask theirs (explicit_fe::Observer, bem::Observer).
class Observer {
 public:
  virtual ~Observer();
  // Polled before each iteration; true stops the solve there as CgStatus::Interrupted, x holding
  // the last iterate (e.g. on SIGINT).
  virtual bool stop_requested() { return false; }
};

// The solver settings a model file or *STEP gives (StaticSettings::tolerance, max_iterations),
// checked: a non-positive tolerance or iteration limit throws tremor::Error naming its origin.
CgSettings cg_settings(const StaticSettings& settings);

enum class CgStatus {
  Converged,      // the true relative residual is at most the tolerance
  MaxIterations,  // the iteration limit was reached first
  Stagnated,      // the true residual stopped decreasing above the tolerance (rounding limit)
  Breakdown,      // p.Ap <= 0 or a non-finite value: the matrix (or preconditioner) is not SPD
  Interrupted,    // Observer::stop_requested asked to stop
};
std::string_view to_string(CgStatus status);

struct CgResult {
  CgStatus status = CgStatus::Converged;
  int iterations = 0;
  // ||b - A x|| / ||b|| of the returned x, recomputed from b and A (not the recurrence's value);
  // 0 for b = 0. At a breakdown: the recurrence's last value.
  double relative_residual = 0.0;
  // history[k]: the relative residual after k iterations (history[0] from the initial guess).
  // The recurrence's value, except where the true residual was recomputed (a convergence check):
  // there the true one.
  std::vector<double> history;
  double seconds = 0.0;  // wall time of the solve, the device synchronised
  // Empty when converged; otherwise what happened and what to try, written for the user.
  std::string report;

  bool converged() const { return status == CgStatus::Converged; }
};

// Solves A x = b by preconditioned conjugate gradients on exec. b and x hold A.n_rows entries in
// exec's memory space; b is not modified; x receives the solution (the last iterate when the
// solve fails or `observer` stops it). Never throws for a numerical outcome: non-convergence, stagnation and breakdown
// are returned with a report (require_converged() turns them into tremor::Error); throws for bad
// arguments (sizes, settings) and a non-finite b.
//
// b = 0 returns x = 0 at once (0 iterations). When the recurrence residual falls below the
// tolerance, the true residual b - A x is computed: if it is below too, the solve has converged;
// otherwise the recurrence's residual is replaced by it and the iteration continues (residual
// replacement). From then on the solve stops as Stagnated when two successive checks fail to
// halve the true residual, or when the residual fails to halve within as many iterations as the
// recurrence first took to reach the tolerance (at least 100): the signature of the rounding
// floor, typically reached in float with a tolerance below about 1e-5.
//
// Cost per iteration: one operator application (op::Operator::bytes() + x and y), one
// preconditioner application (Jacobi 3 n Real, block-Jacobi about (dim + 2) n Real; none: z is r
// itself, no traffic) and 14 n Real of vector reads and writes: p.q 2, the x and r update 6, r.r 1,
// r.z 2 (skipped without a preconditioner: it is r.r), the p update 3. In double with 3D CSR (about
// 81 entries of 12 B per row) vectors and preconditioner add 10 to 15% to the SpMV's traffic. Each
// of the three dot products is a reduction that ends with a device-to-host copy of its block
// partials on CUDA (a synchronisation point).
template <class Real>
CgResult cg(const Exec& exec, const op::Operator<Real>& A, const Preconditioner<Real>& M, const Real* b, Real* x,
            const CgSettings& settings, Observer* observer = nullptr);

// Throws tremor::Error with result.report when the solve did not converge.
void require_converged(const CgResult& result);

extern template CgResult cg<float>(const Exec&, const op::Operator<float>&, const Preconditioner<float>&,
                                   const float*, float*, const CgSettings&, Observer*);
extern template CgResult cg<double>(const Exec&, const op::Operator<double>&, const Preconditioner<double>&,
                                    const double*, double*, const CgSettings&, Observer*);
extern template std::unique_ptr<op::Operator<float>> csr_operator<float>(const Exec&, const sparse::DeviceCsr<float>&);
extern template std::unique_ptr<op::Operator<double>> csr_operator<double>(const Exec&, const sparse::DeviceCsr<double>&);
extern template std::unique_ptr<op::Operator<float>> block_csr_operator<float>(const Exec&, const sparse::DeviceBlockCsr<float>&);
extern template std::unique_ptr<op::Operator<double>> block_csr_operator<double>(const Exec&, const sparse::DeviceBlockCsr<double>&);

}  // namespace tremor::static_fe
