#include "tremor/static/cg.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <type_traits>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/backend/reduce.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/static/preconditioner.hpp"

namespace tremor::static_fe {

namespace {

// sum a_i b_i in double. Traffic per item: 2 Real read.
template <class Real>
double dot(const Exec& exec, Index n, const Real* a, const Real* b) {
  return sum<double>(exec, n,
                     [=] TREMOR_LAMBDA(Index i) { return static_cast<double>(a[i]) * static_cast<double>(b[i]); });
}

// sum a_i^2 in double. Traffic per item: 1 Real read.
template <class Real>
double norm_squared(const Exec& exec, Index n, const Real* a) {
  return sum<double>(exec, n, [=] TREMOR_LAMBDA(Index i) {
    const auto v = static_cast<double>(a[i]);
    return v * v;
  });
}

template <class Real>
void fill(const Exec& exec, Index n, Real* a, Real value) {
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) { a[i] = value; });
}

template <class Real>
void copy(const Exec& exec, Index n, const Real* from, Real* to) {
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) { to[i] = from[i]; });
}

// r = b - r (r holding A x on entry). Traffic per item: 2 Real read, 1 written.
template <class Real>
void residual_from_product(const Exec& exec, Index n, const Real* b, Real* r) {
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) { r[i] = b[i] - r[i]; });
}

// x += alpha p, r -= alpha q (the CG update). Traffic per item: 4 Real read, 2 written.
template <class Real>
void update_solution(const Exec& exec, Index n, Real alpha, const Real* p, const Real* q, Real* x, Real* r) {
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) {
    x[i] += alpha * p[i];
    r[i] -= alpha * q[i];
  });
}

// p = z + beta p (the new search direction). Traffic per item: 2 Real read, 1 written.
template <class Real>
void update_direction(const Exec& exec, Index n, Real beta, const Real* z, Real* p) {
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) { p[i] = z[i] + beta * p[i]; });
}

bool finite(double v) { return std::isfinite(v); }

std::string scientific(double v) {
  std::ostringstream out;
  out.precision(2);
  out << std::scientific << v;
  return out.str();
}

// What to try after a solve that ran out of iterations or stagnated.
template <class Real>
std::string advice(PreconditionerKind kind, bool stagnated) {
  std::string out;
  if (!stagnated) out = "more iterations (max_iterations)";
  if (kind != PreconditionerKind::BlockJacobi)
    out += str(out.empty() ? "" : ", ", "the block_jacobi preconditioner");
  else if (!stagnated)
    out += ", or a finer check of the model: a stiffness contrast of many orders or nearly unconstrained parts slow CG";
  if (std::is_same_v<Real, float>)
    out += str(out.empty() ? "" : ", ", "double precision instead of float");
  else if (stagnated)
    out += str(out.empty() ? "" : ", ", "a looser tolerance");
  return out;
}

}  // namespace

namespace {

// An assembled matrix owned by the caller as CG's operator: spmv on it (a view for CSR, the
// matrix for block CSR, as their spmv take them).
template <class Real, class Matrix>
class MatrixOperator final : public op::Operator<Real> {
 public:
  MatrixOperator(const Exec& exec, Matrix matrix, Index n, std::size_t bytes, std::string_view name)
      : exec_(exec), matrix_(matrix), n_(n), bytes_(bytes), name_(name) {}
  const Exec& exec() const override { return exec_; }
  Index n_dofs() const override { return n_; }
  std::string_view name() const override { return name_; }
  std::size_t bytes() const override { return bytes_; }
  void apply_unchecked(const Real* x, Real* y) const override {
    if constexpr (std::is_pointer_v<Matrix>)
      sparse::spmv(exec_, *matrix_, x, y);
    else
      sparse::spmv(exec_, matrix_, x, y);
  }

 private:
  Exec exec_;
  Matrix matrix_;
  Index n_;
  std::size_t bytes_;
  std::string_view name_;
};

}  // namespace

template <class Real>
std::unique_ptr<op::Operator<Real>> csr_operator(const Exec& exec, const sparse::DeviceCsr<Real>& matrix) {
  return std::make_unique<MatrixOperator<Real, sparse::CsrView<Real>>>(exec, matrix.view(), matrix.n_rows,
                                                                       matrix.bytes(), "csr");
}

template <class Real>
std::unique_ptr<op::Operator<Real>> block_csr_operator(const Exec& exec, const sparse::DeviceBlockCsr<Real>& matrix) {
  return std::make_unique<MatrixOperator<Real, const sparse::DeviceBlockCsr<Real>*>>(
      exec, &matrix, matrix.n_rows(), matrix.bytes(), "block_csr");
}

CgSettings cg_settings(const StaticSettings& settings) {
  const std::string at = settings.origin.empty() ? std::string("static solver") : settings.origin;
  TREMOR_CHECK(settings.tolerance > 0.0 && std::isfinite(settings.tolerance), at, ": tolerance ", settings.tolerance,
               " must be a positive number (a relative residual such as 1e-8)");
  TREMOR_CHECK(settings.max_iterations > 0, at, ": max_iterations ", settings.max_iterations, " must be positive");
  CgSettings out;
  out.tolerance = settings.tolerance;
  out.max_iterations = settings.max_iterations;
  return out;
}

std::string_view to_string(CgStatus status) {
  switch (status) {
    case CgStatus::Converged: return "converged";
    case CgStatus::MaxIterations: return "iteration limit reached";
    case CgStatus::Stagnated: return "stagnated";
    case CgStatus::Breakdown: return "breakdown";
    case CgStatus::Interrupted: return "interrupted";
  }
  return "converged";
}

void require_converged(const CgResult& result) {
  if (!result.converged()) throw Error(result.report);
}

Observer::~Observer() = default;

template <class Real>
CgResult cg(const Exec& exec, const op::Operator<Real>& A, const Preconditioner<Real>& M, const Real* b, Real* x,
            const CgSettings& settings, Observer* observer) {
  const auto start = Clock::now();
  const Index n = A.n_dofs();
  TREMOR_CHECK(A.exec().space() == exec.space(), "CG: the operator runs on ", A.exec().describe(), ", the solve on ",
               exec.describe());
  TREMOR_CHECK(M.n_rows() == n, "CG: the preconditioner has ", M.n_rows(), " rows, the operator ", n);
  TREMOR_CHECK(settings.tolerance > 0.0 && std::isfinite(settings.tolerance), "CG: tolerance ", settings.tolerance,
               " must be positive");
  TREMOR_CHECK(settings.max_iterations > 0, "CG: max_iterations ", settings.max_iterations, " must be positive");
  const double tolerance = settings.tolerance;
  CgResult result;
  const auto finish = [&](CgResult& out) -> CgResult {
    exec.synchronize();
    out.seconds = seconds_since(start);
    return out;
  };

  const double b_norm = std::sqrt(norm_squared(exec, n, b));
  TREMOR_CHECK(finite(b_norm), "CG: the right-hand side (load vector) holds a non-finite value");
  if (b_norm == 0.0) {
    fill(exec, n, x, Real(0));
    result.history.push_back(0.0);
    return finish(result);
  }

  DeviceArray<Real> r_array(exec, n), p_array(exec, n), q_array(exec, n);
  DeviceArray<Real> z_array(exec, M.is_identity() ? 0 : n);
  Real* r = r_array.data();
  Real* p = p_array.data();
  Real* q = q_array.data();
  Real* z = M.is_identity() ? r : z_array.data();  // without a preconditioner z is r itself

  // r = b - A x0.
  if (settings.use_initial_guess) {
    A.apply_unchecked(x, r);
    residual_from_product(exec, n, b, r);
  } else {
    fill(exec, n, x, Real(0));
    copy(exec, n, b, r);
  }
  double r_norm = std::sqrt(norm_squared(exec, n, r));
  result.history.push_back(r_norm / b_norm);
  result.relative_residual = r_norm / b_norm;
  if (!finite(r_norm)) {
    result.status = CgStatus::Breakdown;
    result.report =
        "CG cannot start: the initial residual b - A x is not finite (the matrix or the initial guess holds a "
        "non-finite value)";
    return finish(result);
  }
  if (result.relative_residual <= tolerance) return finish(result);

  if (!M.is_identity()) M.apply(exec, r, z);
  double rz = M.is_identity() ? r_norm * r_norm : dot(exec, n, r, z);
  copy(exec, n, z, p);

  // Stagnation: after a check found the true residual above the tolerance (the recurrence ran
  // ahead of it, as rounding makes it do), the solve stops when two successive checks fail to
  // halve the true residual, or when the residual does not halve within as many iterations as the
  // recurrence first took to reach the tolerance (at least 100): a healthy iteration halves it far
  // sooner, since it reduced it by 1/tolerance in that many.
  double last_checked = std::numeric_limits<double>::infinity();  // true residual at the last failed check
  int weak_checks = 0;      // successive checks that did not halve the true residual
  int first_check_at = -1;  // iterations the recurrence took to reach the tolerance first
  double progress_level = std::numeric_limits<double>::infinity();  // residual at the last halving
  int progress_at = 0;                                              // iteration of the last halving
  const char* breakdown = nullptr;                                  // the quantity that broke down, when one did
  bool preconditioner_broke = false;
  double breakdown_value = 0.0;
  int k = 0;
  for (; k < settings.max_iterations;) {
    if (observer != nullptr && observer->stop_requested()) {
      result.status = CgStatus::Interrupted;
      break;
    }
    if (!(rz > 0.0) || !finite(rz)) {  // r.z: the preconditioner is not positive definite
      breakdown = "r.z (the residual times the preconditioned residual)";
      preconditioner_broke = true;
      breakdown_value = rz;
      break;
    }
    A.apply_unchecked(p, q);
    const double pq = dot(exec, n, p, q);
    if (!(pq > 0.0) || !finite(pq)) {
      breakdown = "p.Ap";
      breakdown_value = pq;
      break;
    }
    const double alpha = rz / pq;
    update_solution(exec, n, static_cast<Real>(alpha), p, q, x, r);
    ++k;
    r_norm = std::sqrt(norm_squared(exec, n, r));
    double relative = r_norm / b_norm;
    if (!finite(relative)) {
      breakdown = "the residual norm";
      breakdown_value = relative;
      result.history.push_back(relative);
      break;
    }
    if (relative <= tolerance) {
      // The recurrence claims convergence: check the true residual, and replace r by it.
      A.apply_unchecked(x, r);
      residual_from_product(exec, n, b, r);
      r_norm = std::sqrt(norm_squared(exec, n, r));
      relative = r_norm / b_norm;
      result.history.push_back(relative);
      result.relative_residual = relative;
      if (relative <= tolerance) {
        result.iterations = k;
        return finish(result);
      }
      weak_checks = relative > 0.5 * last_checked ? weak_checks + 1 : 0;
      last_checked = relative;
      if (first_check_at < 0) first_check_at = k;
      progress_level = relative;
      progress_at = k;
      if (weak_checks >= 2) {
        result.status = CgStatus::Stagnated;
        break;
      }
    } else {
      result.history.push_back(relative);
      result.relative_residual = relative;
      if (first_check_at >= 0) {
        if (relative <= 0.5 * progress_level) {
          progress_level = relative;
          progress_at = k;
        } else if (k - progress_at > std::max(100, first_check_at)) {
          result.status = CgStatus::Stagnated;
          break;
        }
      }
    }
    if (!M.is_identity()) M.apply(exec, r, z);
    const double rz_next = M.is_identity() ? r_norm * r_norm : dot(exec, n, r, z);
    const double beta = rz_next / rz;
    rz = rz_next;
    update_direction(exec, n, static_cast<Real>(beta), z, p);
  }
  result.iterations = k;

  const std::string_view precision = std::is_same_v<Real, float> ? "float" : "double";
  if (breakdown != nullptr) {
    result.status = CgStatus::Breakdown;
    const bool nan = !finite(breakdown_value);
    result.report =
        str("CG broke down at iteration ", k + 1, ": ", breakdown, " is ", breakdown_value,
            nan ? ": the matrix, the load or the preconditioner holds a non-finite value (or the solve overflowed)"
                : str(", not positive: the ", preconditioner_broke ? "preconditioner" : "matrix",
                      " is not positive definite. In a static analysis this usually means missing constraints: a body "
                      "that can still move rigidly; fix more displacements (*BOUNDARY / [[prescribed_displacement]])"),
            " (relative residual reached: ", scientific(result.relative_residual), ")");
    return finish(result);
  }
  // Out of iterations, stagnated or interrupted: report the true residual of the returned x.
  A.apply_unchecked(x, q);
  residual_from_product(exec, n, b, q);
  result.relative_residual = std::sqrt(norm_squared(exec, n, q)) / b_norm;
  if (result.status == CgStatus::Interrupted) {
    result.report = str("CG interrupted after ", k, " iterations at a relative residual of ",
                        scientific(result.relative_residual));
  } else if (result.status != CgStatus::Stagnated) {
    result.status = CgStatus::MaxIterations;
    result.report = str("CG did not converge: ", k, " iterations (the limit) reached a relative residual of ",
                        scientific(result.relative_residual), ", above the tolerance ", tolerance, " (", precision,
                        ", ", to_string(M.kind()), " preconditioner). Try: ", advice<Real>(M.kind(), false));
  } else {
    result.report = str("CG stagnated after ", k, " iterations at a relative residual of ",
                        scientific(result.relative_residual), ", above the tolerance ", tolerance, ": the rounding of ",
                        precision, " arithmetic on this matrix limits the attainable accuracy (", to_string(M.kind()),
                        " preconditioner). Try: ", advice<Real>(M.kind(), true));
  }
  return finish(result);
}

template CgResult cg<float>(const Exec&, const op::Operator<float>&, const Preconditioner<float>&, const float*,
                            float*, const CgSettings&, Observer*);
template CgResult cg<double>(const Exec&, const op::Operator<double>&, const Preconditioner<double>&, const double*,
                             double*, const CgSettings&, Observer*);
template std::unique_ptr<op::Operator<float>> csr_operator<float>(const Exec&, const sparse::DeviceCsr<float>&);
template std::unique_ptr<op::Operator<double>> csr_operator<double>(const Exec&, const sparse::DeviceCsr<double>&);
template std::unique_ptr<op::Operator<float>> block_csr_operator<float>(const Exec&, const sparse::DeviceBlockCsr<float>&);
template std::unique_ptr<op::Operator<double>> block_csr_operator<double>(const Exec&, const sparse::DeviceBlockCsr<double>&);

}  // namespace tremor::static_fe
