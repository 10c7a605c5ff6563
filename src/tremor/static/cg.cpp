#include "tremor/static/cg.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

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

namespace {

// CG's arguments: the operator on the solve's memory space, a preconditioner of its size, the
// settings (cg_settings checked a model's; a caller's own are checked here).
template <class Real>
void check_arguments(const Exec& exec, const op::Operator<Real>& A, const Preconditioner<Real>& M,
                     const CgSettings& settings) {
  const Index n = A.n_dofs();
  TREMOR_CHECK(A.exec().space() == exec.space(), "CG: the operator runs on ", A.exec().describe(), ", the solve on ",
               exec.describe());
  TREMOR_CHECK(M.n_rows() == n, "CG: the preconditioner has ", M.n_rows(), " rows, the operator ", n);
  TREMOR_CHECK(settings.tolerance > 0.0 && std::isfinite(settings.tolerance), "CG: tolerance ", settings.tolerance,
               " must be positive");
  TREMOR_CHECK(settings.max_iterations > 0, "CG: max_iterations ", settings.max_iterations, " must be positive");
}

// Stagnation: after a check found the true residual above the tolerance (the recurrence ran
// ahead of it, as rounding makes it do), the solve stops when two successive checks fail to
// halve the true residual, or when the residual does not halve within as many iterations as the
// recurrence first took to reach the tolerance (at least 100): a healthy iteration halves it far
// sooner, since it reduced it by 1/tolerance in that many.
struct Stagnation {
  double last_checked = std::numeric_limits<double>::infinity();  // true residual at the last failed check
  int weak_checks = 0;      // successive checks that did not halve the true residual
  int first_check_at = -1;  // iterations the recurrence took to reach the tolerance first
  double progress_level = std::numeric_limits<double>::infinity();  // residual at the last halving
  int progress_at = 0;                                              // iteration of the last halving

  // After a check at iteration k found the true residual `relative` above the tolerance: whether
  // the solve stagnated.
  bool after_failed_check(double relative, int k) {
    weak_checks = relative > 0.5 * last_checked ? weak_checks + 1 : 0;
    last_checked = relative;
    if (first_check_at < 0) first_check_at = k;
    progress_level = relative;
    progress_at = k;
    return weak_checks >= 2;
  }

  // After iteration k left the recurrence's residual `relative` above the tolerance: whether the
  // solve stagnated (never before a first check).
  bool after_iteration(double relative, int k) {
    if (first_check_at < 0) return false;
    if (relative <= 0.5 * progress_level) {
      progress_level = relative;
      progress_at = k;
      return false;
    }
    return k - progress_at > std::max(100, first_check_at);
  }
};

// The quantity that broke down, when one did.
struct Breakdown {
  const char* what = nullptr;
  bool preconditioner = false;  // r.z: the preconditioner is not positive definite
  double value = 0.0;
};

// One solve of A x = b from a b of finite, non-zero norm: the vectors and the initial residual,
// the iterations, the report of a solve that stopped short. Its steps call the kernels above with
// the vectors' pointers (no kernel captures the solve).
template <class Real>
class CgSolve {
 public:
  CgSolve(const Exec& exec, const op::Operator<Real>& A, const Preconditioner<Real>& M, const Real* b, Real* x,
          const CgSettings& settings, Observer* observer, double b_norm)
      : exec_(exec), A_(A), M_(M), b_(b), x_(x), settings_(settings), observer_(observer), n_(A.n_dofs()),
        b_norm_(b_norm), r_array_(exec, n_), p_array_(exec, n_), q_array_(exec, n_),
        z_array_(exec, M.is_identity() ? 0 : n_), r_(r_array_.data()), p_(p_array_.data()), q_(q_array_.data()),
        z_(M.is_identity() ? r_ : z_array_.data()) {}  // without a preconditioner z is r itself

  // The result, its time not yet set.
  CgResult run() {
    if (!start()) return std::move(result_);
    while (k_ < settings_.max_iterations) {
      const Step step = iterate();
      if (step == Step::Converged) return std::move(result_);
      if (step == Step::Stop) break;
    }
    result_.iterations = k_;
    if (breakdown_.what != nullptr) report_breakdown();
    else report_stop();
    return std::move(result_);
  }

 private:
  enum class Step { Continue, Converged, Stop };

  // r = b - A x0, z = M r, p = z. False when no iteration follows: the initial guess within the
  // tolerance, or a non-finite initial residual (a breakdown).
  bool start() {
    if (settings_.use_initial_guess) {
      A_.apply_unchecked(x_, r_);
      residual_from_product(exec_, n_, b_, r_);
    } else {
      fill(exec_, n_, x_, Real(0));
      copy(exec_, n_, b_, r_);
    }
    r_norm_ = std::sqrt(norm_squared(exec_, n_, r_));
    result_.history.push_back(r_norm_ / b_norm_);
    result_.relative_residual = r_norm_ / b_norm_;
    if (!finite(r_norm_)) {
      result_.status = CgStatus::Breakdown;
      result_.report =
          "CG cannot start: the initial residual b - A x is not finite (the matrix or the initial guess holds a "
          "non-finite value)";
      return false;
    }
    if (result_.relative_residual <= settings_.tolerance) return false;
    if (!M_.is_identity()) M_.apply(exec_, r_, z_);
    rz_ = M_.is_identity() ? r_norm_ * r_norm_ : dot(exec_, n_, r_, z_);
    copy(exec_, n_, z_, p_);
    return true;
  }

  // One iteration: the observer asked, x and r updated along p, the convergence test, the next p.
  Step iterate() {
    if (observer_ != nullptr && observer_->stop_requested()) {
      result_.status = CgStatus::Interrupted;
      return Step::Stop;
    }
    if (!(rz_ > 0.0) || !finite(rz_)) {
      breakdown_ = {"r.z (the residual times the preconditioned residual)", true, rz_};
      return Step::Stop;
    }
    A_.apply_unchecked(p_, q_);
    const double pq = dot(exec_, n_, p_, q_);
    if (!(pq > 0.0) || !finite(pq)) {
      breakdown_ = {"p.Ap", false, pq};
      return Step::Stop;
    }
    const double alpha = rz_ / pq;
    update_solution(exec_, n_, static_cast<Real>(alpha), p_, q_, x_, r_);
    ++k_;
    r_norm_ = std::sqrt(norm_squared(exec_, n_, r_));
    const double relative = r_norm_ / b_norm_;
    if (!finite(relative)) {
      breakdown_ = {"the residual norm", false, relative};
      result_.history.push_back(relative);
      return Step::Stop;
    }
    const Step step = relative <= settings_.tolerance ? check_true_residual() : follow_recurrence(relative);
    if (step == Step::Continue) next_direction();
    return step;
  }

  // The recurrence claims convergence: check the true residual, and replace r by it.
  Step check_true_residual() {
    A_.apply_unchecked(x_, r_);
    residual_from_product(exec_, n_, b_, r_);
    r_norm_ = std::sqrt(norm_squared(exec_, n_, r_));
    const double relative = r_norm_ / b_norm_;
    result_.history.push_back(relative);
    result_.relative_residual = relative;
    if (relative <= settings_.tolerance) {
      result_.iterations = k_;
      return Step::Converged;
    }
    if (stagnation_.after_failed_check(relative, k_)) {
      result_.status = CgStatus::Stagnated;
      return Step::Stop;
    }
    return Step::Continue;
  }

  // The recurrence's residual, above the tolerance, recorded.
  Step follow_recurrence(double relative) {
    result_.history.push_back(relative);
    result_.relative_residual = relative;
    if (stagnation_.after_iteration(relative, k_)) {
      result_.status = CgStatus::Stagnated;
      return Step::Stop;
    }
    return Step::Continue;
  }

  // z = M r, p = z + beta p.
  void next_direction() {
    if (!M_.is_identity()) M_.apply(exec_, r_, z_);
    const double rz_next = M_.is_identity() ? r_norm_ * r_norm_ : dot(exec_, n_, r_, z_);
    const double beta = rz_next / rz_;
    rz_ = rz_next;
    update_direction(exec_, n_, static_cast<Real>(beta), z_, p_);
  }

  void report_breakdown() {
    result_.status = CgStatus::Breakdown;
    const bool nan = !finite(breakdown_.value);
    result_.report =
        str("CG broke down at iteration ", k_ + 1, ": ", breakdown_.what, " is ", breakdown_.value,
            nan ? ": the matrix, the load or the preconditioner holds a non-finite value (or the solve overflowed)"
                : str(", not positive: the ", breakdown_.preconditioner ? "preconditioner" : "matrix",
                      " is not positive definite. In a static analysis this usually means missing constraints: a body "
                      "that can still move rigidly; fix more displacements (*BOUNDARY / [[prescribed_displacement]])"),
            " (relative residual reached: ", scientific(result_.relative_residual), ")");
  }

  // Out of iterations, stagnated or interrupted: report the true residual of the returned x.
  void report_stop() {
    A_.apply_unchecked(x_, q_);
    residual_from_product(exec_, n_, b_, q_);
    result_.relative_residual = std::sqrt(norm_squared(exec_, n_, q_)) / b_norm_;
    const std::string_view precision = std::is_same_v<Real, float> ? "float" : "double";
    const double tolerance = settings_.tolerance;
    const int k = k_;
    if (result_.status == CgStatus::Interrupted) {
      result_.report = str("CG interrupted after ", k, " iterations at a relative residual of ",
                           scientific(result_.relative_residual));
    } else if (result_.status != CgStatus::Stagnated) {
      result_.status = CgStatus::MaxIterations;
      result_.report = str("CG did not converge: ", k, " iterations (the limit) reached a relative residual of ",
                           scientific(result_.relative_residual), ", above the tolerance ", tolerance, " (",
                           precision, ", ", to_string(M_.kind()), " preconditioner). Try: ",
                           advice<Real>(M_.kind(), false));
    } else {
      result_.report = str("CG stagnated after ", k, " iterations at a relative residual of ",
                           scientific(result_.relative_residual), ", above the tolerance ", tolerance,
                           ": the rounding of ", precision,
                           " arithmetic on this matrix limits the attainable accuracy (", to_string(M_.kind()),
                           " preconditioner). Try: ", advice<Real>(M_.kind(), true));
    }
  }

  const Exec& exec_;
  const op::Operator<Real>& A_;
  const Preconditioner<Real>& M_;
  const Real* b_;
  Real* x_;
  const CgSettings& settings_;
  Observer* observer_;
  Index n_;
  double b_norm_;
  DeviceArray<Real> r_array_, p_array_, q_array_, z_array_;
  Real *r_, *p_, *q_, *z_;
  CgResult result_;
  double r_norm_ = 0.0;  // ||r||
  double rz_ = 0.0;      // r.z of the current r
  int k_ = 0;            // iterations done
  Stagnation stagnation_;
  Breakdown breakdown_;
};

// The result with the solve's wall time, the device synchronised.
CgResult finished(const Exec& exec, Clock::time_point start, CgResult result) {
  exec.synchronize();
  result.seconds = seconds_since(start);
  return result;
}

}  // namespace

template <class Real>
CgResult cg(const Exec& exec, const op::Operator<Real>& A, const Preconditioner<Real>& M, const Real* b, Real* x,
            const CgSettings& settings, Observer* observer) {
  const auto start = Clock::now();
  check_arguments(exec, A, M, settings);
  const Index n = A.n_dofs();
  const double b_norm = std::sqrt(norm_squared(exec, n, b));
  TREMOR_CHECK(finite(b_norm), "CG: the right-hand side (load vector) holds a non-finite value");
  if (b_norm == 0.0) {
    fill(exec, n, x, Real(0));
    CgResult result;
    result.history.push_back(0.0);
    return finished(exec, start, std::move(result));
  }
  CgSolve<Real> solve(exec, A, M, b, x, settings, observer, b_norm);
  return finished(exec, start, solve.run());  // the solve's vectors freed after the device is done
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
