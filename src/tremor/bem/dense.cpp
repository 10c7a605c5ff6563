// Dense complex LU solve (dense.hpp). The host backends call LAPACK through its Fortran symbols
// (no LAPACKE: the build links only the Fortran library); the GPU calls cuSOLVER's 64-bit dense
// API on the Exec's stream. ||A||_1 is one forall kernel for every backend.
#include "tremor/bem/dense.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/backend/memory_info.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"

#if defined(TREMOR_HAVE_CUDA)
#include <cusolverDn.h>
#include <dlfcn.h>

#include "tremor/backend/cuda_check.hpp"
#endif

// LAPACK (Fortran 77 interface, 32-bit integers). Character arguments carry a hidden length
// after the others (size_t since gfortran 8); a LAPACK translated to C ignores the extra argument.
extern "C" {
void zgetrf_(const int* m, const int* n, tremor::bem::Complex* a, const int* lda, int* ipiv, int* info);
void zgetrs_(const char* trans, const int* n, const int* nrhs, const tremor::bem::Complex* a, const int* lda,
             const int* ipiv, tremor::bem::Complex* b, const int* ldb, int* info, std::size_t trans_length);
double zlange_(const char* norm, const int* m, const int* n, const tremor::bem::Complex* a, const int* lda,
               double* work, std::size_t norm_length);
void zgecon_(const char* norm, const int* n, const tremor::bem::Complex* a, const int* lda, const double* anorm,
             double* rcond, tremor::bem::Complex* work, double* rwork, int* info, std::size_t norm_length);
// OpenBLAS's own entry points, weak so that another LAPACK links too (they are then null).
char* openblas_get_config() __attribute__((weak));
int openblas_get_num_threads() __attribute__((weak));
}

namespace tremor::bem {

namespace {

// Index is 32-bit, so every n and n_rhs tremor can hold fits LAPACK's integers; sizes of arrays
// (n * n, n * n_rhs) are formed in 64 bits, and LAPACK itself (OpenBLAS) indexes in 64 bits.
static_assert(sizeof(Index) <= sizeof(int), "LAPACK's 32-bit integers must hold any Index");

[[noreturn]] void throw_singular(const char* routine, Size pivot, Index n) {
  throw Error(str("dense solve: the matrix is exactly singular: ", routine, " found a zero pivot U(", pivot, ",", pivot,
                  ") = 0 at row and column ", pivot, " of ", n, " (counting from 1)"));
}

// Segments per column in norm_1: 32 consecutive work items share a column, so a GPU warp reads
// 32 consecutive entries (coalesced) and the column's sum is split over 32 threads.
constexpr Index norm_segments = 32;

// Partial column sums of |A(i,j)| (the 1-norm's column sums, Watkins' definition used by the
// BEM paper's verification, sec. 4): item t sums rows s, s + 32, ... of column j = t / 32, s = t
// % 32. Reads rows / 32 complex values (16 B each), writes 8 B per item.
void column_partial_sums(const Exec& exec, Index rows, Index cols, const Complex* A, double* partial) {
  forall(exec, cols * norm_segments, [=] TREMOR_LAMBDA(Index t) {
    const Size column = t / norm_segments;
    const Complex* a = A + column * Size(rows);
    double acc = 0.0;
    for (Size i = t % norm_segments; i < rows; i += norm_segments) acc += abs(a[i]);
    partial[t] = acc;
  });
}

// Column sums from their 32 partials, in a fixed order (deterministic). Reads 256 B, writes 8 B
// per column.
void column_sums(const Exec& exec, Index cols, const double* partial, double* sums) {
  forall(exec, cols, [=] TREMOR_LAMBDA(Index j) {
    double acc = 0.0;
    for (Index s = 0; s < norm_segments; ++s) acc += partial[Size(j) * norm_segments + s];
    sums[j] = acc;
  });
}

double one_norm_of(const std::vector<Complex>& x) {
  double sum = 0.0;
  for (const Complex& value : x) sum += abs(value);
  return sum;
}

std::size_t index_of_largest(const std::vector<Complex>& x) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < x.size(); ++i)
    if (abs(x[i]) > abs(x[best])) best = i;
  return best;
}

void check_finite_norm(double anorm) {
  TREMOR_CHECK(std::isfinite(anorm), "dense solve: the matrix holds non-finite values (its 1-norm is ", anorm, ")");
}

// ------------------------------------------------------------------------------------------------
// Host: LAPACK.

std::string lapack_name() { return openblas_get_config != nullptr ? "LAPACK (OpenBLAS)" : "LAPACK"; }

DenseSolveReport solve_dense_host(Index n, Index n_rhs, Complex* A, Complex* B, bool estimate_condition) {
  DenseSolveReport report;
  report.backend = lapack_name();
  report.threads = openblas_get_num_threads != nullptr ? openblas_get_num_threads() : 0;
  report.reciprocal_condition = std::numeric_limits<double>::quiet_NaN();
  const int size = n, rhs = n_rhs, lead = n;
  int info = 0;

  double anorm = 0.0;
  if (estimate_condition) {
    const auto start = Clock::now();
    anorm = zlange_("1", &size, &size, A, &lead, nullptr, 1);  // work is referenced only for "I"
    report.condition_seconds += seconds_since(start);
    check_finite_norm(anorm);
  }

  std::vector<int> pivots(static_cast<std::size_t>(n));
  auto start = Clock::now();
  zgetrf_(&size, &size, A, &lead, pivots.data(), &info);
  report.factor_seconds = seconds_since(start);
  TREMOR_CHECK(info >= 0, "dense solve: zgetrf failed with info = ", info, " (argument ", -info, " is invalid)");
  if (info > 0) throw_singular("zgetrf", info, n);

  if (estimate_condition) {
    start = Clock::now();
    std::vector<Complex> work(2 * static_cast<std::size_t>(n));
    std::vector<double> rwork(2 * static_cast<std::size_t>(n));
    double rcond = 0.0;
    zgecon_("1", &size, A, &lead, &anorm, &rcond, work.data(), rwork.data(), &info, 1);
    report.condition_seconds += seconds_since(start);
    TREMOR_CHECK(info == 0, "dense solve: zgecon failed with info = ", info);
    report.reciprocal_condition = rcond;
  }

  if (n_rhs > 0) {
    start = Clock::now();
    zgetrs_("N", &size, &rhs, A, &lead, pivots.data(), B, &lead, &info, 1);
    report.solve_seconds = seconds_since(start);
    TREMOR_CHECK(info == 0, "dense solve: zgetrs failed with info = ", info, " (argument ", -info, " is invalid)");
  }
  return report;
}

// ------------------------------------------------------------------------------------------------
// GPU: cuSOLVER.

#if defined(TREMOR_HAVE_CUDA)

std::string gigabytes(std::size_t bytes) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << static_cast<double>(bytes) / 1e9 << " GB";
  return out.str();
}

const char* status_name(cusolverStatus_t status) {
  switch (status) {
    case CUSOLVER_STATUS_SUCCESS: return "success";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "not initialized";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "allocation failed";
    case CUSOLVER_STATUS_INVALID_VALUE: return "invalid value";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "architecture mismatch";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "execution failed";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "internal error";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "not supported";
    case CUSOLVER_STATUS_INVALID_WORKSPACE: return "invalid workspace";
    default: return "error";
  }
}

void check(cusolverStatus_t status, const char* call) {
  if (status != CUSOLVER_STATUS_SUCCESS)
    throw Error(str("cuSOLVER: ", call, " failed: status ", static_cast<int>(status), " (", status_name(status), ")"));
}

// cuSOLVER's functions, loaded (dlopen) when a GPU solve first needs them rather than linked: the
// library and the cuBLAS it pulls in take about 0.15 s to load, which every tremor command and
// test program would otherwise pay at start. First its soname on the library path, then the file
// the build found (TREMOR_CUSOLVER_FILE); kept loaded for the process.
struct CusolverApi {
  decltype(&cusolverDnCreate) create = nullptr;
  decltype(&cusolverDnDestroy) destroy = nullptr;
  decltype(&cusolverDnSetStream) set_stream = nullptr;
  decltype(&cusolverDnCreateParams) create_params = nullptr;
  decltype(&cusolverDnDestroyParams) destroy_params = nullptr;
  decltype(&cusolverDnXgetrf_bufferSize) getrf_buffer_size = nullptr;
  decltype(&cusolverDnXgetrf) getrf = nullptr;
  decltype(&cusolverDnXgetrs) getrs = nullptr;

  static const CusolverApi& get() {
    static const CusolverApi api = load();  // (a failed load throws, and the next call tries again)
    return api;
  }

 private:
  static CusolverApi load() {
    const std::string soname = str("libcusolver.so.", CUSOLVER_VER_MAJOR);
    void* library = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
    std::string why = library ? "" : dlerror();
#ifdef TREMOR_CUSOLVER_FILE
    if (!library) library = dlopen(TREMOR_CUSOLVER_FILE, RTLD_NOW | RTLD_LOCAL);
    if (!library) why += str("; ", dlerror());
#endif
    if (!library)
      throw Error(str("cuSOLVER, which the GPU's dense solve needs, cannot be loaded (", why,
                      "); put the CUDA toolkit's libraries on LD_LIBRARY_PATH, or solve on the CPU (--backend "
                      "openmp)"));
    CusolverApi api;
    const auto find = [&](auto& function, const char* name) {
      function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(library, name));
      if (!function) throw Error(str("cuSOLVER (", soname, ") has no ", name, ": ", dlerror()));
    };
    find(api.create, "cusolverDnCreate");
    find(api.destroy, "cusolverDnDestroy");
    find(api.set_stream, "cusolverDnSetStream");
    find(api.create_params, "cusolverDnCreateParams");
    find(api.destroy_params, "cusolverDnDestroyParams");
    find(api.getrf_buffer_size, "cusolverDnXgetrf_bufferSize");
    find(api.getrf, "cusolverDnXgetrf");
    find(api.getrs, "cusolverDnXgetrs");
    return api;
  }
};

// The handle and parameter object of one solve, released on every exit.
struct Cusolver {
  const CusolverApi& api = CusolverApi::get();
  cusolverDnHandle_t handle = nullptr;
  cusolverDnParams_t params = nullptr;
  explicit Cusolver(const Exec& exec) {
    check(api.create(&handle), "cusolverDnCreate");
    check(api.set_stream(handle, static_cast<cudaStream_t>(exec.stream())), "cusolverDnSetStream");
    check(api.create_params(&params), "cusolverDnCreateParams");
  }
  Cusolver(const Cusolver&) = delete;
  Cusolver& operator=(const Cusolver&) = delete;
  ~Cusolver() {
    if (params) api.destroy_params(params);
    if (handle) api.destroy(handle);
  }
};

int read_info(const DeviceArray<int>& info) { return info.to_host()[0]; }

DenseSolveReport solve_dense_cuda(const Exec& exec, Index n, Index n_rhs, Complex* A, Complex* B,
                                  bool estimate_condition) {
  TREMOR_CUDA_CHECK(cudaSetDevice(exec.device()));
  DenseSolveReport report;
  report.backend = "cuSOLVER";
  report.reciprocal_condition = std::numeric_limits<double>::quiet_NaN();
  const std::int64_t size = n;

  double anorm = 0.0;
  if (estimate_condition) {
    const auto start = Clock::now();
    anorm = norm_1(exec, n, n, A);
    report.condition_seconds += seconds_since(start);
    check_finite_norm(anorm);
  }

  Cusolver solver(exec);
  std::size_t device_bytes = 0, host_bytes = 0;
  check(solver.api.getrf_buffer_size(solver.handle, solver.params, size, size, CUDA_C_64F, A, size, CUDA_C_64F,
                                    &device_bytes, &host_bytes),
        "cusolverDnXgetrf_bufferSize");
  // Everything this solve allocates beyond A and B, checked against the free memory before
  // cuSOLVER runs (the norm's partial sums, 264 B per column, are freed by now).
  const std::size_t pivot_bytes = sizeof(std::int64_t) * static_cast<std::size_t>(n);
  const std::size_t estimate_bytes = estimate_condition ? sizeof(Complex) * static_cast<std::size_t>(n) : 0;
  const std::size_t needed = device_bytes + pivot_bytes + estimate_bytes + sizeof(int);
  const MemoryInfo memory = memory_info(exec);
  TREMOR_CHECK(needed <= memory.free_bytes, "dense solve on ", exec.describe(), ": the LU of n = ", n, " (A takes ",
               gigabytes(sizeof(Complex) * static_cast<std::size_t>(Size(n) * n)), ") needs ", gigabytes(needed),
               " more GPU memory (cuSOLVER workspace ", gigabytes(device_bytes), ", pivots ", gigabytes(pivot_bytes),
               "), but only ", gigabytes(memory.free_bytes), " of ", gigabytes(memory.total_bytes), " is free");

  // The workspace in 16-byte units: an Index count then reaches 32 GB.
  const Size workspace_units = static_cast<Size>((device_bytes + sizeof(Complex) - 1) / sizeof(Complex));
  TREMOR_CHECK(workspace_units <= std::numeric_limits<Index>::max(), "dense solve: cuSOLVER asks for ",
               gigabytes(device_bytes), " of workspace, more than one array can hold");
  DeviceArray<Complex> workspace(exec, static_cast<Index>(workspace_units));
  DeviceArray<std::int64_t> pivots(exec, n);
  DeviceArray<int> info(exec, 1);
  std::vector<unsigned char> host_workspace(host_bytes);

  exec.synchronize();
  auto start = Clock::now();
  check(solver.api.getrf(solver.handle, solver.params, size, size, CUDA_C_64F, A, size, pivots.data(), CUDA_C_64F,
                         workspace.data(), device_bytes, host_workspace.data(), host_bytes, info.data()),
        "cusolverDnXgetrf");
  int status = read_info(info);  // waits for the factorisation
  report.factor_seconds = seconds_since(start);
  TREMOR_CHECK(status >= 0, "dense solve: cusolverDnXgetrf failed with info = ", status, " (argument ", -status,
               " is invalid)");
  if (status > 0) throw_singular("cusolverDnXgetrf", status, n);

  // op(A)^-1 x with the factors, for the solve and the condition estimate.
  const auto getrs = [&](cublasOperation_t operation, Index columns, Complex* X) {
    check(solver.api.getrs(solver.handle, solver.params, operation, size, columns, CUDA_C_64F, A, size, pivots.data(),
                           CUDA_C_64F, X, size, info.data()),
          "cusolverDnXgetrs");
    const int result = read_info(info);
    TREMOR_CHECK(result == 0, "dense solve: cusolverDnXgetrs failed with info = ", result, " (argument ", -result,
                 " is invalid)");
  };

  if (n_rhs > 0) {
    start = Clock::now();
    getrs(CUBLAS_OP_N, n_rhs, B);
    report.solve_seconds = seconds_since(start);
  }

  if (estimate_condition) {
    start = Clock::now();
    DeviceArray<Complex> vector(exec, n);
    const double inverse_norm = estimate_inverse_norm_1(n, [&](std::vector<Complex>& x, bool adjoint) {
      vector.copy_from_host(x);
      getrs(adjoint ? CUBLAS_OP_C : CUBLAS_OP_N, 1, vector.data());
      x = vector.to_host();
    });
    report.reciprocal_condition = 1.0 / (anorm * inverse_norm);
    report.condition_seconds += seconds_since(start);
  }
  return report;
}

#endif

}  // namespace

double norm_1(const Exec& exec, Index rows, Index cols, const Complex* A) {
  TREMOR_CHECK(rows >= 0 && cols >= 0, "norm_1: a ", rows, " x ", cols, " matrix");
  if (rows == 0 || cols == 0) return 0.0;
  TREMOR_CHECK(A != nullptr, "norm_1: no matrix given for ", rows, " x ", cols);
  TREMOR_CHECK(Size(cols) * norm_segments <= std::numeric_limits<Index>::max(), "norm_1: ", cols,
               " columns are more than one launch covers");
  DeviceArray<double> partial(exec, cols * norm_segments);
  DeviceArray<double> sums(exec, cols);
  column_partial_sums(exec, rows, cols, A, partial.data());
  column_sums(exec, cols, partial.data(), sums.data());
  const std::vector<double> host = sums.to_host();  // ordered on exec's stream: the kernels are done
  double largest = 0.0;
  for (double sum : host) {
    if (std::isnan(sum)) return sum;
    largest = std::max(largest, sum);
  }
  return largest;
}

double estimate_inverse_norm_1(Index n, const InverseSolve& solve) {
  TREMOR_CHECK(n >= 0, "estimate_inverse_norm_1: n = ", n);
  if (n == 0) return 0.0;
  constexpr int max_iterations = 5;  // zlacn2's ITMAX
  const auto count = static_cast<std::size_t>(n);
  const auto sign = [](Complex value) {
    const double magnitude = abs(value);
    return magnitude > std::numeric_limits<double>::min() ? value / magnitude : Complex(1.0);
  };

  // x = (1/n, ..., 1/n): y = A^-1 x gives the first lower bound ||y||_1 (||x||_1 = 1).
  std::vector<Complex> x(count, Complex(1.0 / n));
  solve(x, false);
  if (n == 1) return abs(x[0]);
  double estimate = one_norm_of(x);

  // Hager's ascent: z = A^-H sign(y) points to the unit vector e_j (j = argmax |z_j|) whose image
  // A^-1 e_j, column j of A^-1, has the larger 1-norm; stop when the bound stops growing or the
  // column repeats.
  for (auto& value : x) value = sign(value);
  solve(x, true);
  std::size_t j = index_of_largest(x);
  for (int iteration = 2; iteration <= max_iterations; ++iteration) {
    std::fill(x.begin(), x.end(), Complex());
    x[j] = Complex(1.0);
    solve(x, false);
    const double bound = one_norm_of(x);
    if (bound <= estimate) break;
    estimate = bound;
    for (auto& value : x) value = sign(value);
    solve(x, true);
    const std::size_t previous = j;
    j = index_of_largest(x);
    if (abs(x[previous]) == abs(x[j])) break;  // no better column in sight
  }

  // Higham's safeguard against matrices that fool the ascent: x_i = (-1)^i (1 + i / (n - 1)),
  // ||x||_1 about 3n/2, so 2 ||A^-1 x||_1 / (3n) is a lower bound too.
  for (std::size_t i = 0; i < count; ++i)
    x[i] = Complex((i % 2 == 0 ? 1.0 : -1.0) * (1.0 + static_cast<double>(i) / static_cast<double>(n - 1)));
  solve(x, false);
  return std::max(estimate, 2.0 * one_norm_of(x) / (3.0 * n));
}

DenseSolveReport solve_dense(const Exec& exec, Index n, Index n_rhs, Complex* A, Complex* B, bool estimate_condition) {
  TREMOR_CHECK(n >= 0 && n_rhs >= 0, "dense solve: a ", n, " x ", n, " system with ", n_rhs,
               " right-hand sides");
  if (n == 0) {
    DenseSolveReport report;
    report.reciprocal_condition = estimate_condition ? 1.0 : std::numeric_limits<double>::quiet_NaN();  // zgecon's
    report.backend = exec.backend() == Backend::Cuda ? "cuSOLVER" : lapack_name();
    return report;
  }
  TREMOR_CHECK(A != nullptr, "dense solve: no matrix given for n = ", n);
  TREMOR_CHECK(n_rhs == 0 || B != nullptr, "dense solve: no right-hand sides given for ", n_rhs, " columns");
  switch (exec.backend()) {
    case Backend::Serial:
    case Backend::OpenMP: return solve_dense_host(n, n_rhs, A, B, estimate_condition);
    case Backend::Cuda:
#if defined(TREMOR_HAVE_CUDA)
      return solve_dense_cuda(exec, n, n_rhs, A, B, estimate_condition);
#else
      throw Error("the dense GPU solve (cuSOLVER) needs a tremor built with CUDA (configure with -DTREMOR_CUDA=ON)");
#endif
  }
  throw Error("dense solve: unknown backend");
}

}  // namespace tremor::bem
