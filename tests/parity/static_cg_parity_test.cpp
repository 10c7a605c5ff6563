// The static solver's numerics on every backend against Serial: constraints eliminated from an
// assembled stiffness, preconditioner built, CG run, in CSR and nodal-block CSR, on a distorted
// two-material hex8 box of 3993 DOFs (many warps and blocks of the reductions). Solution vectors
// are poisoned with NaN before each run (a zero initial guess must overwrite them).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "../unit/sparse_test_models.hpp"
#include "support/support.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/sparse/block_csr.hpp"
#include "tremor/sparse/csr.hpp"
#include "tremor/static/cg.hpp"
#include "tremor/static/constraints.hpp"
#include "tremor/static/preconditioner.hpp"

namespace tremor::static_fe {
namespace TREMOR_TEST_FILE {

struct Problem {
  Model model;
  sparse::CsrMatrix stiffness;
  Constraints constraints;
  std::vector<double> load;
};

// 10 x 10 x 10 hex8 cells (1331 nodes, 3993 DOFs); xmin clamped with prescribed non-zero values,
// a load of the order of K u everywhere.
const Problem& problem() {
  static const Problem p = [] {
    Problem out;
    out.model = test::two_section_model(ElementType::Hex8, 1, 10, 0.2);
    out.stiffness = sparse::assemble_stiffness(out.model, Exec::openmp());
    std::vector<Index> dofs;
    std::vector<double> values;
    for (Index node : out.model.mesh.node_sets.at("xmin"))
      for (int c = 0; c < 3; ++c) {
        dofs.push_back(node * 3 + c);
        values.push_back(1e-5 * test::hash_unit(static_cast<std::uint64_t>(node * 3 + c)));
      }
    out.constraints = make_constraints(out.model.mesh, dofs, values);
    for (Index i = 0; i < out.stiffness.n_rows; ++i) out.load.push_back(1e5 * test::hash_unit(77 + i));
    return out;
  }();
  return p;
}

struct Outcome {
  CgResult result;
  std::vector<double> x;
};

// The whole numerical path on one Exec: elimination, preconditioner, CG (double).
Outcome solve(const Exec& exec, bool block_format, PreconditionerKind kind, double tolerance) {
  const Problem& p = problem();
  const DeviceConstraints constraints(exec, p.constraints);
  DeviceArray<double> rhs(exec, std::span<const double>(p.load));
  const std::vector<double> poison(p.load.size(), std::numeric_limits<double>::quiet_NaN());
  DeviceArray<double> x(exec, std::span<const double>(poison));
  CgSettings settings;
  settings.tolerance = tolerance;
  Outcome out;
  if (block_format) {
    sparse::DeviceBlockCsr<double> matrix(exec, sparse::to_block_csr<double>(p.stiffness, 3));
    apply_constraints(exec, constraints, matrix, rhs.data());
    const auto precond = Preconditioner<double>::build(exec, kind, matrix, p.model.mesh.node_labels);
    out.result = cg(exec, *block_csr_operator(exec, matrix), precond, rhs.data(), x.data(), settings);
  } else {
    sparse::DeviceCsr<double> matrix(exec, p.stiffness);
    apply_constraints(exec, constraints, matrix, rhs.data());
    const auto precond = Preconditioner<double>::build(exec, kind, matrix, 3, p.model.mesh.node_labels);
    out.result = cg(exec, *csr_operator(exec, matrix), precond, rhs.data(), x.data(), settings);
  }
  out.x = x.to_host();
  return out;
}

// Both runs satisfy ||b - K x|| <= tol ||b||; their difference is the propagation of the rounding
// differences of the two backends (FMA contraction in the SpMV, the block order of the dot
// products: about 1e-16 relative per operation) through an iteration that follows the same
// Krylov path. Measured between Serial and OpenMP on this problem at tolerance 1e-12: 1e-14 of
// the solution with a preconditioner (251 and 246 iterations, the same count), 1.1e-12 without
// (670 and 668). 1e-10 leaves two orders of margin and is far below what the tolerance alone
// would allow runs that did not follow the same path (cond(K) times 1e-12).
constexpr double parity_tolerance = 1e-12;
constexpr double solution_tolerance = 1e-10;

void compare(const Exec& exec, const char* suite) {
  for (const bool block_format : {false, true})
    for (const auto kind : {PreconditionerKind::None, PreconditionerKind::Jacobi, PreconditionerKind::BlockJacobi}) {
      const std::string what = str(suite, ": ", block_format ? "block CSR" : "CSR", ", ", to_string(kind));
      const Outcome reference = solve(Exec::serial(), block_format, kind, parity_tolerance);
      const Outcome other = solve(exec, block_format, kind, parity_tolerance);
      ASSERT_TRUE(reference.result.converged()) << what << ": " << reference.result.report;
      ASSERT_TRUE(other.result.converged()) << what << ": " << other.result.report;
      // Rounding may move the step at which the tolerance is crossed by one. Without a
      // preconditioner CG loses orthogonality over its hundreds of steps on the stiffness, and
      // the order of the dot products' sums shifts its convergence: OpenMP 668 against Serial's
      // 670, CUDA's block tree 634 (H100). 10% of the count is allowed; the solutions must still
      // agree to solution_tolerance.
      const double allowed = kind == PreconditionerKind::None ? 0.1 * reference.result.iterations : 1.0;
      EXPECT_NEAR(other.result.iterations, reference.result.iterations, allowed) << what;
      const double distance = test::l2_distance(other.x, reference.x) / test::l2_norm(reference.x);
      EXPECT_LE(distance, solution_tolerance) << what;  // false for NaN: an unwritten entry fails
      EXPECT_LE(other.result.relative_residual, parity_tolerance) << what;
    }
}

TEST(StaticCgParity, OpenMPMatchesSerial) { compare(Exec::openmp(), "openmp"); }

TEST(StaticCgParity, CudaMatchesSerialGpu) {
  TREMOR_REQUIRE_GPU();
  compare(Exec::cuda(), "cuda");
}

TEST(StaticCgParity, CudaIsRepeatableBitForBitGpu) {
  // The reductions add block partials in a fixed order: two CUDA runs give the same bits.
  TREMOR_REQUIRE_GPU();
  const Outcome first = solve(Exec::cuda(), true, PreconditionerKind::BlockJacobi, parity_tolerance);
  const Outcome second = solve(Exec::cuda(), true, PreconditionerKind::BlockJacobi, parity_tolerance);
  EXPECT_EQ(first.result.history, second.result.history);
  EXPECT_EQ(first.x, second.x);
}

}  // namespace
}  // namespace tremor::static_fe
