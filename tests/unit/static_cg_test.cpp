// Preconditioned CG (static/cg.hpp) and its preconditioners (static/preconditioner.hpp) on the
// host backends: solutions against a dense Cholesky solve, what each preconditioner buys on
// ill-scaled systems, and the reports of solves that fail.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "sparse_test_models.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/core/error.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/sparse/block_csr.hpp"
#include "tremor/sparse/csr.hpp"
#include "dense_test_helpers.hpp"
#include "tremor/static/cg.hpp"
#include "tremor/static/constraints.hpp"
#include "tremor/static/preconditioner.hpp"
#include "tremor/static/solve.hpp"

namespace tremor::static_fe {
namespace TREMOR_TEST_FILE {

using sparse::CsrMatrix;
using test::csr_to_dense;
using test::dense_solve;

// A dense row-major n x n matrix as CSR, every entry kept (so the pattern is the full square).
CsrMatrix dense_to_csr(const std::vector<double>& a, Index n) {
  CsrMatrix m;
  m.n_rows = n;
  m.offsets.push_back(0);
  for (Index i = 0; i < n; ++i) {
    for (Index j = 0; j < n; ++j) {
      const double v = a[static_cast<std::size_t>(i * n + j)];
      if (v == 0.0 && i != j) continue;
      m.columns.push_back(j);
      m.values.push_back(v);
    }
    m.offsets.push_back(static_cast<Size>(m.columns.size()));
  }
  return m;
}

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    norm += b[i] * b[i];
  }
  return std::sqrt(diff / norm);
}

template <class Real>
std::vector<double> to_double(const std::vector<Real>& v) {
  return {v.begin(), v.end()};
}

std::vector<double> random_vector(std::size_t n, std::uint64_t seed) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = test::hash_unit(seed * 1000003 + i);
  return v;
}

// A = B B^T / n + I with B's entries in [-1, 1): its eigenvalues lie in [1, 1 + n/3] at most and
// in practice in [1, 5] for these sizes, so cond(A) <= 5.
std::vector<double> random_spd(std::size_t n, std::uint64_t seed) {
  const std::vector<double> b = random_vector(n * n, seed);
  std::vector<double> a(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (std::size_t k = 0; k < n; ++k) s += b[i * n + k] * b[j * n + k];
      a[i * n + j] = s / static_cast<double>(n) + (i == j ? 1.0 : 0.0);
    }
  return a;
}

// tridiag(-1, 2 + shift, -1): a 1D Laplacian, condition number about 4 / (shift + (pi/n)^2).
CsrMatrix laplacian_1d(Index n, double shift) {
  std::vector<double> a(static_cast<std::size_t>(n * n), 0.0);
  for (Index i = 0; i < n; ++i) {
    a[static_cast<std::size_t>(i * n + i)] = 2.0 + shift;
    if (i > 0) a[static_cast<std::size_t>(i * n + i - 1)] = -1.0;
    if (i + 1 < n) a[static_cast<std::size_t>(i * n + i + 1)] = -1.0;
  }
  return dense_to_csr(a, n);
}

// D A D.
CsrMatrix scaled(const CsrMatrix& a, const std::vector<double>& d) {
  CsrMatrix out = a;
  for (Index i = 0; i < a.n_rows; ++i)
    for (Size k = a.offsets[static_cast<std::size_t>(i)]; k < a.offsets[static_cast<std::size_t>(i) + 1]; ++k)
      out.values[static_cast<std::size_t>(k)] *=
          d[static_cast<std::size_t>(i)] * d[static_cast<std::size_t>(a.columns[static_cast<std::size_t>(k)])];
  return out;
}

template <class Real>
struct Solve {
  CgResult result;
  std::vector<Real> x;
};

// CG on exec with the matrix as DeviceCsr, x poisoned with NaN (a zero initial guess must
// overwrite it) unless an initial guess is given.
template <class Real>
Solve<Real> solve_csr(const Exec& exec, const CsrMatrix& a, const std::vector<double>& b, PreconditionerKind kind,
                      int dim, CgSettings settings, const std::vector<double>& guess = {},
                      Observer* observer = nullptr) {
  const sparse::DeviceCsr<Real> matrix(exec, sparse::convert<Real>(a));
  const auto op = csr_operator(exec, matrix);
  const auto precond = Preconditioner<Real>::build(exec, kind, matrix, dim);
  std::vector<Real> b_real(b.begin(), b.end());
  std::vector<Real> x0(b.size(), std::numeric_limits<Real>::quiet_NaN());
  if (!guess.empty()) {
    x0.assign(guess.begin(), guess.end());
    settings.use_initial_guess = true;
  }
  DeviceArray<Real> b_device(exec, std::span<const Real>(b_real)), x_device(exec, std::span<const Real>(x0));
  Solve<Real> out;
  out.result = cg(exec, *op, precond, b_device.data(), x_device.data(), settings, observer);
  out.x = x_device.to_host();
  return out;
}

// ||b - A x|| / ||b|| in double on the host.
double true_relative_residual(const CsrMatrix& a, const std::vector<double>& b, const std::vector<double>& x) {
  std::vector<double> ax(b.size());
  sparse::spmv(Exec::serial(), a, x.data(), ax.data());
  double r = 0.0, n = 0.0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    r += (b[i] - ax[i]) * (b[i] - ax[i]);
    n += b[i] * b[i];
  }
  return std::sqrt(r / n);
}

TEST(StaticCg, SolvesSmallSpdSystemsAsADenseCholeskySolveDoes) {
  for (const std::size_t n : {1u, 7u, 40u}) {
    const std::vector<double> a = random_spd(n, 3 + n);
    const std::vector<double> b = random_vector(n, 5 + n);
    const std::vector<double> expected = dense_solve(a, b);
    const CsrMatrix csr = dense_to_csr(a, static_cast<Index>(n));
    CgSettings settings;
    settings.tolerance = 1e-13;
    for (const Exec& exec : {Exec::serial(), Exec::openmp()})
      for (const auto kind : {PreconditionerKind::None, PreconditionerKind::Jacobi, PreconditionerKind::BlockJacobi}) {
        const auto solve = solve_csr<double>(exec, csr, b, kind, 1, settings);
        const std::string what = str("n ", n, ", ", exec.describe(), ", ", to_string(kind));
        ASSERT_TRUE(solve.result.converged()) << what << ": " << solve.result.report;
        // ||x - x*|| / ||x*|| <= cond(A) * relative residual <= 5 * 1e-13 (cond <= 5, random_spd).
        EXPECT_LE(relative_difference(to_double(solve.x), expected), 5e-13) << what;
        // CG on an n x n system converges in at most n steps in exact arithmetic; rounding adds a few.
        EXPECT_LE(solve.result.iterations, static_cast<int>(n) + 5) << what;
        // The reported residual is the true one, recomputed here in double.
        EXPECT_NEAR(solve.result.relative_residual, true_relative_residual(csr, b, to_double(solve.x)), 1e-15) << what;
        EXPECT_LE(solve.result.relative_residual, settings.tolerance) << what;
        EXPECT_EQ(solve.result.history.size(), static_cast<std::size_t>(solve.result.iterations) + 1) << what;
        EXPECT_EQ(solve.result.history.front(), 1.0) << what;  // zero initial guess: r0 = b
        EXPECT_EQ(solve.result.history.back(), solve.result.relative_residual) << what;
        EXPECT_TRUE(solve.result.report.empty()) << what;
      }
  }
}

TEST(StaticCg, FloatSolvesReachTheirPrecisionWithDoubleReductions) {
  const std::size_t n = 40;
  const std::vector<double> a = random_spd(n, 11);
  const std::vector<double> b = random_vector(n, 12);
  const std::vector<double> expected = dense_solve(a, b);
  CgSettings settings;
  settings.tolerance = 1e-6;
  const auto solve = solve_csr<float>(Exec::serial(), dense_to_csr(a, static_cast<Index>(n)), b,
                                      PreconditionerKind::Jacobi, 1, settings);
  ASSERT_TRUE(solve.result.converged()) << solve.result.report;
  // cond <= 5 times the 1e-6 residual, plus the rounding of A and b to float (6e-8 relative,
  // amplified by cond): below 1e-5.
  EXPECT_LE(relative_difference(to_double(solve.x), expected), 1e-5);
}

TEST(StaticCg, ZeroRightHandSideGivesZeroAtOnce) {
  const CsrMatrix a = laplacian_1d(10, 0.1);
  const std::vector<double> b(10, 0.0);
  for (const bool guess : {false, true}) {
    const auto solve = solve_csr<double>(Exec::serial(), a, b, PreconditionerKind::Jacobi, 1, CgSettings{},
                                         guess ? random_vector(10, 1) : std::vector<double>{});
    EXPECT_TRUE(solve.result.converged());
    EXPECT_EQ(solve.result.iterations, 0);
    EXPECT_EQ(solve.result.relative_residual, 0.0);
    for (double v : solve.x) EXPECT_EQ(v, 0.0);  // the NaN poison or the guess overwritten
  }
}

TEST(StaticCg, StartsFromTheInitialGuess) {
  const CsrMatrix a = laplacian_1d(30, 0.05);
  const std::vector<double> b = random_vector(30, 2);
  const std::vector<double> exact = dense_solve(csr_to_dense(a), b);
  CgSettings settings;
  settings.tolerance = 1e-10;
  // The exact solution as the guess: the true residual is already below the tolerance.
  const auto from_exact = solve_csr<double>(Exec::serial(), a, b, PreconditionerKind::None, 1, settings, exact);
  EXPECT_TRUE(from_exact.result.converged());
  EXPECT_EQ(from_exact.result.iterations, 0);
  EXPECT_EQ(from_exact.x, exact);
  // A guess near the solution needs fewer iterations than zero.
  std::vector<double> near = exact;
  for (std::size_t i = 0; i < near.size(); ++i) near[i] += 1e-6 * test::hash_unit(i);
  const auto from_near = solve_csr<double>(Exec::serial(), a, b, PreconditionerKind::None, 1, settings, near);
  const auto from_zero = solve_csr<double>(Exec::serial(), a, b, PreconditionerKind::None, 1, settings);
  ASSERT_TRUE(from_near.result.converged() && from_zero.result.converged());
  EXPECT_LT(from_near.result.iterations, from_zero.result.iterations);
  EXPECT_GT(from_near.result.history.front(), 0.0);
  EXPECT_LT(from_near.result.history.front(), 1e-4);
}

TEST(StaticCg, JacobiUndoesADiagonalScaling) {
  // A has a constant diagonal, so Jacobi-preconditioned CG on (D A D) x = b runs the iterates of
  // plain CG on A y = D^-1 b, with x = D^-1 y (a constant factor in M changes nothing). After the
  // same number of steps the two agree up to rounding, while unpreconditioned CG on D A D (D over
  // 6 decades) converges far more slowly.
  const Index n = 200;
  const CsrMatrix a = laplacian_1d(n, 0.02);
  std::vector<double> d(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = std::pow(10.0, 3.0 * test::hash_unit(7 * i + 1));
  const CsrMatrix dad = scaled(a, d);
  const std::vector<double> b = random_vector(static_cast<std::size_t>(n), 3);
  std::vector<double> b_scaled(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) b_scaled[i] = b[i] / d[i];
  CgSettings steps;
  steps.tolerance = 1e-30;  // never reached: both run the same 40 steps
  steps.max_iterations = 40;
  const auto plain = solve_csr<double>(Exec::serial(), a, b_scaled, PreconditionerKind::None, 1, steps);
  const auto jacobi = solve_csr<double>(Exec::serial(), dad, b, PreconditionerKind::Jacobi, 1, steps);
  ASSERT_EQ(plain.result.iterations, 40);
  ASSERT_EQ(jacobi.result.iterations, 40);
  std::vector<double> y(b.size());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = d[i] * jacobi.x[i];
  // 40 steps on a matrix of condition 200 (4 / 0.02): rounding differences of 1e-16 per
  // operation grow to well below 1e-10.
  EXPECT_LE(relative_difference(y, plain.x), 1e-10);

  CgSettings settings;
  settings.tolerance = 1e-8;
  const auto scaled_none = solve_csr<double>(Exec::serial(), dad, b, PreconditionerKind::None, 1, settings);
  const auto scaled_jacobi = solve_csr<double>(Exec::serial(), dad, b, PreconditionerKind::Jacobi, 1, settings);
  ASSERT_TRUE(scaled_jacobi.result.converged()) << scaled_jacobi.result.report;
  EXPECT_GT(scaled_none.result.iterations, 3 * scaled_jacobi.result.iterations)
      << "none " << scaled_none.result.iterations << ", jacobi " << scaled_jacobi.result.iterations;
}

// A constrained stiffness of a small box (hex8, 3 x 3 x 3 cells, distorted, two materials, xmin clamped) in CSR.
CsrMatrix constrained_box_stiffness() {
  Model model = test::two_section_model(ElementType::Hex8, 1, 3, 0.2);
  CsrMatrix k = sparse::assemble_stiffness(model, Exec::serial());
  const auto& xmin = model.mesh.node_sets.at("xmin");
  std::vector<Index> dofs;
  for (Index node : xmin)
    for (int c = 0; c < 3; ++c) dofs.push_back(node * 3 + c);
  const Constraints constraints = make_constraints(model.mesh, dofs, std::vector<double>(dofs.size(), 0.0));
  const Exec exec = Exec::serial();
  const DeviceConstraints device(exec, constraints);
  sparse::DeviceCsr<double> matrix(exec, k);
  std::vector<double> rhs(static_cast<std::size_t>(k.n_rows), 0.0);
  apply_constraints(exec, device, matrix, rhs.data());
  k.values = matrix.values.to_host();
  return k;
}

TEST(StaticCg, BlockJacobiIsInvariantToPerNodeTransformsWhereJacobiIsNot) {
  // K' = T^T K T with T block diagonal: per node a random 3 x 3 matrix mixing the components
  // with scales over 4 decades. Block-Jacobi CG on K' is block-Jacobi CG on K in other
  // coordinates (the same iterates up to rounding: counts within 2); Jacobi only sees the
  // diagonal of the mixed blocks and needs clearly more.
  const CsrMatrix k = constrained_box_stiffness();
  const Index n_nodes = k.n_rows / 3;
  std::vector<std::array<double, 9>> t(static_cast<std::size_t>(n_nodes));
  for (std::size_t node = 0; node < t.size(); ++node) {
    const double scale = std::pow(10.0, 2.0 * test::hash_unit(node * 17 + 3));
    for (std::size_t e = 0; e < 9; ++e)
      t[node][e] = scale * ((e % 4 == 0 ? 1.0 : 0.0) + 0.6 * test::hash_unit(node * 31 + e));
  }
  CsrMatrix transformed = k;
  // Entry (3I + r, 3J + c) of T^T K T = sum_{a,b} T_I(a, r) K(3I + a, 3J + b) T_J(b, c).
  for (Index row = 0; row < k.n_rows; ++row) {
    const Index node = row / 3, r = row % 3;
    for (Size e = k.offsets[static_cast<std::size_t>(row)]; e < k.offsets[static_cast<std::size_t>(row) + 1]; ++e) {
      const Index column = k.columns[static_cast<std::size_t>(e)];
      const Index other = column / 3, c = column % 3;
      double s = 0.0;
      for (Index ai = 0; ai < 3; ++ai)
        for (Index bi = 0; bi < 3; ++bi) {
          const Size at = k.find(node * 3 + ai, other * 3 + bi);
          if (at >= 0)
            s += t[static_cast<std::size_t>(node)][static_cast<std::size_t>(ai * 3 + r)] *
                 k.values[static_cast<std::size_t>(at)] *
                 t[static_cast<std::size_t>(other)][static_cast<std::size_t>(bi * 3 + c)];
        }
      transformed.values[static_cast<std::size_t>(e)] = s;
    }
  }
  const std::vector<double> b = random_vector(static_cast<std::size_t>(k.n_rows), 9);
  // b' = T^T b, so that the transformed problem is the same problem.
  std::vector<double> b_transformed(b.size(), 0.0);
  for (Index row = 0; row < k.n_rows; ++row)
    for (Index a = 0; a < 3; ++a)
      b_transformed[static_cast<std::size_t>(row)] +=
          t[static_cast<std::size_t>(row / 3)][static_cast<std::size_t>(a * 3 + row % 3)] *
          b[static_cast<std::size_t>(row - row % 3 + a)];
  CgSettings settings;
  settings.tolerance = 1e-8;
  const auto base = solve_csr<double>(Exec::serial(), k, b, PreconditionerKind::BlockJacobi, 3, settings);
  const auto block =
      solve_csr<double>(Exec::serial(), transformed, b_transformed, PreconditionerKind::BlockJacobi, 3, settings);
  const auto jacobi =
      solve_csr<double>(Exec::serial(), transformed, b_transformed, PreconditionerKind::Jacobi, 3, settings);
  const auto none =
      solve_csr<double>(Exec::serial(), transformed, b_transformed, PreconditionerKind::None, 3, settings);
  ASSERT_TRUE(base.result.converged() && block.result.converged() && jacobi.result.converged())
      << block.result.report << jacobi.result.report;
  EXPECT_NEAR(block.result.iterations, base.result.iterations, 2);
  EXPECT_GT(jacobi.result.iterations, block.result.iterations * 3 / 2)
      << "jacobi " << jacobi.result.iterations << ", block-Jacobi " << block.result.iterations;
  EXPECT_GT(none.result.iterations, jacobi.result.iterations)
      << "none " << none.result.iterations << ", jacobi " << jacobi.result.iterations;
}

TEST(StaticCg, CsrAndBlockCsrGiveTheSameBits) {
  // The block CSR SpMV sums each row in the order the CSR one does, and both build the same
  // preconditioner: the whole solve is the same on the Serial backend, bit for bit.
  const CsrMatrix k = constrained_box_stiffness();
  const std::vector<double> b = random_vector(static_cast<std::size_t>(k.n_rows), 4);
  const Exec exec = Exec::serial();
  for (const auto kind : {PreconditionerKind::Jacobi, PreconditionerKind::BlockJacobi}) {
    const auto from_csr = solve_csr<double>(exec, k, b, kind, 3, CgSettings{});
    const sparse::DeviceBlockCsr<double> blocks(exec, sparse::to_block_csr<double>(k, 3));
    const auto op = block_csr_operator(exec, blocks);
    const auto precond = Preconditioner<double>::build(exec, kind, blocks);
    DeviceArray<double> b_device(exec, std::span<const double>(b)), x(exec, k.n_rows);
    const CgResult result = cg(exec, *op, precond, b_device.data(), x.data(), CgSettings{});
    ASSERT_TRUE(result.converged()) << result.report;
    EXPECT_EQ(result.iterations, from_csr.result.iterations);
    EXPECT_EQ(result.history, from_csr.result.history);
    const std::vector<double> x_host = x.to_host();
    EXPECT_EQ(0, std::memcmp(x_host.data(), from_csr.x.data(), x_host.size() * sizeof(double))) << to_string(kind);
  }
}

TEST(StaticCg, RunsAreRepeatableBitForBit) {
  const CsrMatrix k = constrained_box_stiffness();
  const std::vector<double> b = random_vector(static_cast<std::size_t>(k.n_rows), 6);
  for (const Exec& exec : {Exec::serial(), Exec::openmp()}) {
    const auto first = solve_csr<double>(exec, k, b, PreconditionerKind::BlockJacobi, 3, CgSettings{});
    const auto second = solve_csr<double>(exec, k, b, PreconditionerKind::BlockJacobi, 3, CgSettings{});
    EXPECT_EQ(first.result.history, second.result.history) << exec.describe();
    EXPECT_EQ(0, std::memcmp(first.x.data(), second.x.data(), first.x.size() * sizeof(double))) << exec.describe();
  }
}

TEST(StaticCg, ReportsTheIterationLimitWithWhatToTry) {
  const CsrMatrix a = laplacian_1d(100, 0.0);
  const std::vector<double> b = random_vector(100, 8);
  CgSettings settings;
  settings.max_iterations = 5;
  const auto solve = solve_csr<double>(Exec::serial(), a, b, PreconditionerKind::Jacobi, 1, settings);
  EXPECT_EQ(solve.result.status, CgStatus::MaxIterations);
  EXPECT_FALSE(solve.result.converged());
  EXPECT_EQ(solve.result.iterations, 5);
  EXPECT_EQ(solve.result.history.size(), 6u);
  EXPECT_NEAR(solve.result.relative_residual, true_relative_residual(a, b, solve.x), 1e-15);
  const std::string& report = solve.result.report;
  EXPECT_NE(report.find("did not converge: 5 iterations"), std::string::npos) << report;
  EXPECT_NE(report.find("max_iterations"), std::string::npos) << report;
  EXPECT_NE(report.find("block_jacobi"), std::string::npos) << report;
  EXPECT_EQ(report.find("float"), std::string::npos) << report;  // already double
  EXPECT_THROW(require_converged(solve.result), Error);
  const auto in_float = solve_csr<float>(Exec::serial(), a, b, PreconditionerKind::BlockJacobi, 1, settings);
  EXPECT_NE(in_float.result.report.find("double precision instead of float"), std::string::npos)
      << in_float.result.report;
}

// The observer's stop request (a signal `tremor static` caught): polled before each iteration, it
// ends the solve as Interrupted with the last iterate in x and its true residual, not as a failure
// to converge.
struct StopAtPoll final : Observer {
  explicit StopAtPoll(int at) : stop_at(at) {}
  bool stop_requested() override { return ++polls >= stop_at; }
  int stop_at;
  int polls = 0;
};

TEST(StaticCg, StopsWhenAskedWithTheLastIterate) {
  const CsrMatrix a = laplacian_1d(100, 0.0);
  const std::vector<double> b = random_vector(100, 8);
  StopAtPoll observer(4);
  const auto solve = solve_csr<double>(Exec::serial(), a, b, PreconditionerKind::Jacobi, 1, {}, {}, &observer);
  EXPECT_EQ(solve.result.status, CgStatus::Interrupted);
  EXPECT_EQ(observer.polls, 4);
  EXPECT_EQ(solve.result.iterations, 3);  // three polls said go on
  EXPECT_EQ(to_string(solve.result.status), "interrupted");
  EXPECT_NEAR(solve.result.relative_residual, true_relative_residual(a, b, solve.x), 1e-15);
  EXPECT_GT(solve.result.relative_residual, 1e-3);  // far from converged: the stop was honoured
  EXPECT_NE(solve.result.report.find("interrupted after 3 iterations"), std::string::npos) << solve.result.report;
}

// The observer given to solve_static reaches CG: the solve it stops returns its last iterate, the
// held values exact, with status Interrupted rather than an error.
TEST(StaticSolve, ObserverStopsTheSolveWithItsLastIterate) {
  Model model = test::two_section_model(ElementType::Quad4, 1, 4, 0.0, false);
  const Mesh& mesh = model.mesh;
  // The left edge held, the right one pulled 1 mm along x: a load CG needs many iterations for.
  for (Index n = 0; n < mesh.n_nodes(); ++n) {
    const double x = mesh.node(n)[0];
    if (x < 1e-12)
      for (int i = 0; i < 2; ++i) model.fixed.push_back({{n}, i, 0.0, "", "left edge"});
    else if (x > 1.0 - 1e-12)
      model.fixed.push_back({{n}, 0, 1e-3, "", "right edge"});
  }
  SolveOptions options;
  options.backend = Backend::Serial;
  StopAtPoll observer(3);
  const StaticResult stopped = solve_static(model, options, &observer);
  EXPECT_EQ(stopped.cg.status, CgStatus::Interrupted) << stopped.cg.report;
  EXPECT_EQ(observer.polls, 3);
  EXPECT_EQ(stopped.cg.iterations, 2);  // two polls said go on
  EXPECT_GT(stopped.cg.relative_residual, 1e-3);  // far from converged: the stop was honoured
  for (Index n = 0; n < mesh.n_nodes(); ++n)
    if (mesh.node(n)[0] > 1.0 - 1e-12) {
      EXPECT_EQ(stopped.displacement[static_cast<std::size_t>(2 * n)], 1e-3);
    }
  // Without an observer the same solve converges.
  const StaticResult converged = solve_static(model, options);
  EXPECT_TRUE(converged.cg.converged()) << converged.cg.report;
  EXPECT_GT(converged.cg.iterations, 2);
}

TEST(StaticCg, FloatStopsWhereItsRoundingStagnates) {
  // 1D Laplacian of 400 unknowns, cond about 6.5e4: float CG's recurrence keeps shrinking while
  // the true residual stays near cond * 6e-8; the solve stops as Stagnated long before the
  // iteration limit, and says to use double.
  const CsrMatrix a = laplacian_1d(400, 0.0);
  const std::vector<double> b = random_vector(400, 10);
  CgSettings settings;
  settings.tolerance = 1e-11;
  settings.max_iterations = 100000;
  const auto solve = solve_csr<float>(Exec::serial(), a, b, PreconditionerKind::Jacobi, 1, settings);
  EXPECT_EQ(solve.result.status, CgStatus::Stagnated) << solve.result.report;
  EXPECT_LT(solve.result.iterations, 5000);
  EXPECT_GT(solve.result.relative_residual, settings.tolerance);
  EXPECT_NE(solve.result.report.find("stagnated"), std::string::npos) << solve.result.report;
  EXPECT_NE(solve.result.report.find("double precision"), std::string::npos) << solve.result.report;
  // The same solve in double converges.
  const auto in_double = solve_csr<double>(Exec::serial(), a, b, PreconditionerKind::Jacobi, 1, settings);
  EXPECT_TRUE(in_double.result.converged()) << in_double.result.report;
}

TEST(StaticCg, BreaksDownOnAnIndefiniteMatrix) {
  // diag(1, -1, 1, ...): p = b = e_1 gives p.Ap = -1 at once.
  std::vector<double> a(16, 0.0);
  for (int i = 0; i < 4; ++i) a[static_cast<std::size_t>(i * 5)] = i == 1 ? -1.0 : 1.0;
  const std::vector<double> b = {0.0, 1.0, 0.0, 0.0};
  const auto solve =
      solve_csr<double>(Exec::serial(), dense_to_csr(a, 4), b, PreconditionerKind::None, 1, CgSettings{});
  EXPECT_EQ(solve.result.status, CgStatus::Breakdown);
  const std::string& report = solve.result.report;
  EXPECT_NE(report.find("broke down at iteration 1: p.Ap is -1"), std::string::npos) << report;
  EXPECT_NE(report.find("not positive definite"), std::string::npos) << report;
  EXPECT_NE(report.find("missing constraints"), std::string::npos) << report;
  EXPECT_NE(report.find("*BOUNDARY"), std::string::npos) << report;
}

TEST(StaticCg, BreaksDownOnANonFiniteMatrix) {
  std::vector<double> a = random_spd(5, 2);
  a[7] = a[5] = std::numeric_limits<double>::quiet_NaN();
  const auto solve = solve_csr<double>(Exec::serial(), dense_to_csr(a, 5), random_vector(5, 3),
                                       PreconditionerKind::None, 1, CgSettings{});
  EXPECT_EQ(solve.result.status, CgStatus::Breakdown);
  EXPECT_NE(solve.result.report.find("non-finite"), std::string::npos) << solve.result.report;
  // A non-finite initial guess: reported before the first step.
  std::vector<double> guess(5, 1.0);
  guess[3] = std::numeric_limits<double>::infinity();
  const auto from_guess = solve_csr<double>(Exec::serial(), dense_to_csr(random_spd(5, 2), 5), random_vector(5, 3),
                                            PreconditionerKind::None, 1, CgSettings{}, guess);
  EXPECT_EQ(from_guess.result.status, CgStatus::Breakdown);
  EXPECT_EQ(from_guess.result.iterations, 0);
  EXPECT_NE(from_guess.result.report.find("cannot start"), std::string::npos) << from_guess.result.report;
}

TEST(StaticCg, RejectsBadArguments) {
  const CsrMatrix a = laplacian_1d(4, 0.1);
  std::vector<double> b = {1.0, std::numeric_limits<double>::infinity(), 0.0, 0.0};
  try {
    solve_csr<double>(Exec::serial(), a, b, PreconditionerKind::None, 1, CgSettings{});
    ADD_FAILURE() << "a non-finite load was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("non-finite"), std::string::npos) << e.what();
  }
  b[1] = 1.0;
  CgSettings settings;
  settings.tolerance = 0.0;
  EXPECT_THROW(solve_csr<double>(Exec::serial(), a, b, PreconditionerKind::None, 1, settings), Error);
  StaticSettings model_settings;
  model_settings.origin = "model.toml:12";
  model_settings.max_iterations = 0;
  try {
    cg_settings(model_settings);
    ADD_FAILURE() << "max_iterations 0 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("model.toml:12: max_iterations 0"), std::string::npos) << e.what();
  }
  model_settings.max_iterations = 50;
  model_settings.tolerance = 1e-6;
  const CgSettings converted = cg_settings(model_settings);
  EXPECT_EQ(converted.max_iterations, 50);
  EXPECT_EQ(converted.tolerance, 1e-6);
}

TEST(StaticPreconditioner, ParsesTheModelFileNames) {
  EXPECT_EQ(parse_preconditioner("none"), PreconditionerKind::None);
  EXPECT_EQ(parse_preconditioner("jacobi"), PreconditionerKind::Jacobi);
  EXPECT_EQ(parse_preconditioner("block_jacobi"), PreconditionerKind::BlockJacobi);
  for (const auto kind : {PreconditionerKind::None, PreconditionerKind::Jacobi, PreconditionerKind::BlockJacobi})
    EXPECT_EQ(parse_preconditioner(to_string(kind)), kind);
  try {
    parse_preconditioner("ilu");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'ilu'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("block_jacobi"), std::string::npos) << e.what();
  }
}

TEST(StaticPreconditioner, InvertsDiagonalsAndBlocks) {
  // Two nodes of two DOFs: blocks [[4, 1], [1, 2]] and [[9, 0], [0, 1]] plus coupling entries.
  std::vector<double> a = {4, 1, 0.5, 0, 1, 2, 0, 0.25, 0.5, 0, 9, 0, 0, 0.25, 0, 1};
  const sparse::DeviceCsr<double> matrix(Exec::serial(), dense_to_csr(a, 4));
  const auto jacobi = Preconditioner<double>::build(Exec::serial(), PreconditionerKind::Jacobi, matrix, 2);
  EXPECT_EQ(jacobi.inverse_to_host(), (std::vector<double>{0.25, 0.5, 1.0 / 9.0, 1.0}));
  const auto block = Preconditioner<double>::build(Exec::serial(), PreconditionerKind::BlockJacobi, matrix, 2);
  const std::vector<double> inverse = block.inverse_to_host();
  // [[4, 1], [1, 2]]^-1 = [[2, -1], [-1, 4]] / 7; rounding of the Cholesky steps: a few ulps.
  const double expected[] = {2.0 / 7, -1.0 / 7, -1.0 / 7, 4.0 / 7, 1.0 / 9, 0.0, 0.0, 1.0};
  ASSERT_EQ(inverse.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_NEAR(inverse[i], expected[i], 1e-15) << i;
  // Symmetric to the bit: PCG needs a symmetric preconditioner.
  EXPECT_EQ(inverse[1], inverse[2]);
  std::vector<double> z(4);
  const std::vector<double> r = {7.0, 14.0, 9.0, 3.0};
  block.apply(Exec::serial(), r.data(), z.data());
  EXPECT_NEAR(z[0], 0.0, 1e-14);
  EXPECT_NEAR(z[1], 7.0, 1e-14);
  EXPECT_NEAR(z[2], 1.0, 1e-15);
  EXPECT_NEAR(z[3], 3.0, 1e-15);
}

TEST(StaticPreconditioner, NamesTheNodeAndComponentOfABadDiagonal) {
  // Three nodes of three DOFs, labelled 101..103; node 102's y entry is zero.
  std::vector<double> a(81, 0.0);
  for (int i = 0; i < 9; ++i) a[static_cast<std::size_t>(i * 10)] = 2.0;
  a[4 * 10] = 0.0;
  const std::vector<Label> labels = {101, 102, 103};
  const sparse::DeviceCsr<double> matrix(Exec::serial(), dense_to_csr(a, 9));
  for (const auto kind : {PreconditionerKind::Jacobi, PreconditionerKind::BlockJacobi}) {
    try {
      Preconditioner<double>::build(Exec::serial(), kind, matrix, 3, labels);
      ADD_FAILURE() << "a zero diagonal was accepted by " << to_string(kind);
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("node 102, component y"), std::string::npos) << message;
      EXPECT_NE(message.find("not positive"), std::string::npos) << message;
    }
  }
  // Without labels: the 0-based index.
  try {
    Preconditioner<double>::build(Exec::serial(), PreconditionerKind::Jacobi, matrix, 3);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("node index 1, component y"), std::string::npos) << e.what();
  }
}

TEST(StaticPreconditioner, NamesASingularBlock) {
  // Node 2's block [[1, 1], [1, 1]]: positive diagonal, singular block. Jacobi accepts it.
  std::vector<double> a = {3, 0, 0, 0, 0, 3, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1};
  const sparse::DeviceCsr<float> matrix(Exec::serial(), sparse::convert<float>(dense_to_csr(a, 4)));
  const std::vector<Label> labels = {1, 2};
  EXPECT_NO_THROW(Preconditioner<float>::build(Exec::serial(), PreconditionerKind::Jacobi, matrix, 2, labels));
  try {
    Preconditioner<float>::build(Exec::serial(), PreconditionerKind::BlockJacobi, matrix, 2, labels);
    ADD_FAILURE() << "a singular block was accepted";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("diagonal block of node 2, [1 1; 1 1]"), std::string::npos) << message;
    EXPECT_NE(message.find("not positive definite (Cholesky fails at component y)"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace tremor::static_fe
