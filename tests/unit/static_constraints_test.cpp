// Prescribed displacements (static/constraints.hpp) applied to an assembled stiffness by symmetric
// elimination, against the reduced system solved densely; and the rigid-body check
// (static/rigid_modes.hpp) on free, partly held and held bodies in 3D and 2D.
#include <gtest/gtest.h>

#include <algorithm>
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
#include "tremor/static/rigid_modes.hpp"

namespace tremor::static_fe {
namespace TREMOR_TEST_FILE {

using sparse::CsrMatrix;
using test::cholesky;
using test::cholesky_solve;
using test::csr_to_dense;

double norm(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

std::vector<double> multiply(const std::vector<double>& a, const std::vector<double>& x) {
  const std::size_t n = x.size();
  std::vector<double> y(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) y[i] += a[i * n + j] * x[j];
  return y;
}

// The 2-norm condition number of an SPD matrix: the largest eigenvalue by power iteration, the
// smallest as the inverse of the largest of A^-1 (through its Cholesky factor). 300 steps on
// these matrices of a few hundred rows settle both to a few digits, enough for a tolerance.
double condition_number(const std::vector<double>& a, std::size_t n) {
  const std::vector<double> l = cholesky(a, n);
  std::vector<double> v(n, 1.0), w(n, 1.0);
  double largest = 0.0, inverse_largest = 0.0;
  for (int step = 0; step < 300; ++step) {
    std::vector<double> av = multiply(a, v), aw = cholesky_solve(l, w);
    largest = norm(av) / norm(v);
    inverse_largest = norm(aw) / norm(w);
    const double nv = norm(av), nw = norm(aw);
    for (std::size_t i = 0; i < n; ++i) {
      v[i] = av[i] / nv;
      w[i] = aw[i] / nw;
    }
  }
  return largest * inverse_largest;
}

// The box of the stiffness tests: 3 x 3 x 3 distorted hex8 cells, two materials (64 nodes).
// Constraints: xmin clamped with non-zero prescribed values, ymin held in y only (nodes with
// some components free and some prescribed exercise the mixed blocks).
struct ConstrainedBox {
  Model model;
  CsrMatrix stiffness;
  Constraints constraints;
  std::vector<double> load;
};

ConstrainedBox constrained_box() {
  ConstrainedBox box;
  box.model = test::two_section_model(ElementType::Hex8, 1, 3, 0.2);
  box.stiffness = sparse::assemble_stiffness(box.model, Exec::serial());
  const Mesh& mesh = box.model.mesh;
  std::vector<Index> dofs;
  std::vector<double> values;
  for (Index node : mesh.node_sets.at("xmin"))
    for (int c = 0; c < 3; ++c) {
      dofs.push_back(node * 3 + c);
      values.push_back(1e-4 * test::hash_unit(static_cast<std::uint64_t>(node * 3 + c)));
    }
  for (Index node : mesh.node_sets.at("ymin")) {
    if (std::find(dofs.begin(), dofs.end(), node * 3 + 1) != dofs.end()) continue;  // corner: already clamped
    dofs.push_back(node * 3 + 1);
    values.push_back(0.0);
  }
  box.constraints = make_constraints(mesh, dofs, values);
  // Forces of the order of K u (1e11 Pa x 0.3 m x 1e-4 m): prescribed motion and load both matter.
  for (Index i = 0; i < box.stiffness.n_rows; ++i) box.load.push_back(3e6 * test::hash_unit(1000 + i));
  return box;
}

// The reduced system solved densely: K_ff u_f = f_f - K_fc u_c, u_c prescribed. Also returns
// the reduced right-hand side and cond(K_ff).
struct DenseReference {
  std::vector<double> solution;
  std::vector<double> rhs;        // the eliminated right-hand side: f_f - K_fc u_c and u_c
  std::vector<double> rhs_scale;  // |f_i| + sum_c |K_ic u_c|: the size of the terms of rhs_i
  double condition = 0.0;
};

DenseReference dense_reference(const ConstrainedBox& box) {
  const auto n = static_cast<std::size_t>(box.stiffness.n_rows);
  const std::vector<double> k = csr_to_dense(box.stiffness);
  std::vector<double> u(n, 0.0);
  std::vector<bool> fixed(n, false);
  for (std::size_t i = 0; i < box.constraints.dofs.size(); ++i) {
    u[static_cast<std::size_t>(box.constraints.dofs[i])] = box.constraints.values[i];
    fixed[static_cast<std::size_t>(box.constraints.dofs[i])] = true;
  }
  std::vector<std::size_t> free;
  for (std::size_t i = 0; i < n; ++i)
    if (!fixed[i]) free.push_back(i);
  const std::size_t nf = free.size();
  std::vector<double> kff(nf * nf), rhs_f(nf);
  DenseReference out;
  out.rhs.assign(n, 0.0);
  out.rhs_scale.assign(n, 0.0);
  for (std::size_t a = 0; a < nf; ++a) {
    double moved = 0.0, scale = std::abs(box.load[free[a]]);
    for (std::size_t j = 0; j < n; ++j)
      if (fixed[j]) {
        moved += k[free[a] * n + j] * u[j];
        scale += std::abs(k[free[a] * n + j] * u[j]);
      }
    out.rhs_scale[free[a]] = scale;
    rhs_f[a] = box.load[free[a]] - moved;
    out.rhs[free[a]] = rhs_f[a];
    for (std::size_t b = 0; b < nf; ++b) kff[a * nf + b] = k[free[a] * n + free[b]];
  }
  const std::vector<double> xf = cholesky_solve(cholesky(kff, nf), rhs_f);
  out.solution = u;
  for (std::size_t i = 0; i < n; ++i)
    if (fixed[i]) out.rhs[i] = u[i];
  for (std::size_t a = 0; a < nf; ++a) out.solution[free[a]] = xf[a];
  out.condition = condition_number(kff, nf);
  return out;
}

TEST(StaticConstraints, NormalisesAndChecksThePrescribedDofs) {
  const Mesh mesh = generate_box({0, 0, 0}, {1, 1, 1}, {1, 1, 1}, ElementType::Hex8);  // labels 1..8
  const std::vector<Index> dofs = {7, 2, 7, 0};
  const std::vector<double> values = {0.5, 0.25, 0.5, -1.0};
  const Constraints c = make_constraints(mesh, dofs, values);
  EXPECT_EQ(c.dim, 3);
  EXPECT_EQ(c.n_dofs, 24);
  EXPECT_EQ(c.dofs, (std::vector<Index>{0, 2, 7}));
  EXPECT_EQ(c.values, (std::vector<double>{-1.0, 0.25, 0.5}));
  try {
    make_constraints(mesh, std::vector<Index>{7, 7}, std::vector<double>{0.5, 0.75});
    ADD_FAILURE() << "conflicting values were accepted";
  } catch (const Error& e) {
    // DOF 7 = node index 2 (label 3), component y.
    EXPECT_NE(std::string(e.what()).find("node 3, component y is prescribed twice, to 0.5 m and to 0.75 m"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(make_constraints(mesh, std::vector<Index>{24}, std::vector<double>{0.0}), Error);
  EXPECT_THROW(make_constraints(mesh, std::vector<Index>{3}, std::vector<double>{std::nan("")}), Error);
}

TEST(StaticConstraints, HoldsIsolatedNodes) {
  Mesh mesh = generate_box({0, 0, 0}, {1, 1, 1}, {1, 1, 1}, ElementType::Hex8);
  const double far[3] = {5.0, 5.0, 5.0};
  mesh.add_node(99, far);  // node index 8, in no element
  const Constraints given = make_constraints(mesh, std::vector<Index>{0, 25}, std::vector<double>{0.0, 0.125});
  const Constraints held = hold_isolated_nodes(mesh, given);
  EXPECT_EQ(held.dofs, (std::vector<Index>{0, 24, 25, 26}));
  EXPECT_EQ(held.values, (std::vector<double>{0.0, 0.0, 0.125, 0.0}));  // the user's 0.125 kept
}

template <class Real>
void check_elimination_and_solve(const Exec& exec, bool block_format) {
  const ConstrainedBox box = constrained_box();
  const DenseReference reference = dense_reference(box);
  const std::string what =
      str(exec.describe(), block_format ? ", block CSR" : ", CSR", ", ", sizeof(Real) == 8 ? "double" : "float");
  const DeviceConstraints constraints(exec, box.constraints);
  std::vector<Real> load(box.load.begin(), box.load.end());
  DeviceArray<Real> rhs(exec, std::span<const Real>(load));
  const auto n = static_cast<std::size_t>(box.stiffness.n_rows);

  sparse::DeviceCsr<Real> csr;
  sparse::DeviceBlockCsr<Real> blocks;
  CsrMatrix eliminated = box.stiffness;  // the matrix after elimination, in scalar CSR, as doubles
  if (block_format) {
    blocks = sparse::DeviceBlockCsr<Real>(exec, sparse::to_block_csr<Real>(box.stiffness, 3));
    apply_constraints(exec, constraints, blocks, rhs.data());
    // Back to scalar CSR through the pattern of the original.
    const std::vector<Real> values = blocks.values.to_host();
    const sparse::BlockCsrMatrixT<Real> pattern = sparse::to_block_csr<Real>(box.stiffness, 3);
    for (Index node = 0; node < pattern.n_block_rows; ++node)
      for (Size k = pattern.offsets[static_cast<std::size_t>(node)];
           k < pattern.offsets[static_cast<std::size_t>(node) + 1]; ++k)
        for (Index r = 0; r < 3; ++r)
          for (Index c = 0; c < 3; ++c)
            eliminated.values[static_cast<std::size_t>(
                eliminated.find(node * 3 + r, pattern.columns[static_cast<std::size_t>(k)] * 3 + c))] =
                static_cast<double>(values[static_cast<std::size_t>(k * 9 + r * 3 + c)]);
  } else {
    csr = sparse::DeviceCsr<Real>(exec, sparse::convert<Real>(box.stiffness));
    apply_constraints(exec, constraints, csr, rhs.data());
    const std::vector<Real> values = csr.values.to_host();
    eliminated.values.assign(values.begin(), values.end());
  }

  // The eliminated matrix: symmetric to the bit, identity rows and columns at constrained DOFs,
  // the free block unchanged (the original rounded to Real).
  std::vector<bool> fixed(n, false);
  for (Index dof : box.constraints.dofs) fixed[static_cast<std::size_t>(dof)] = true;
  for (Index row = 0; row < eliminated.n_rows; ++row)
    for (Size k = eliminated.offsets[static_cast<std::size_t>(row)];
         k < eliminated.offsets[static_cast<std::size_t>(row) + 1]; ++k) {
      const Index column = eliminated.columns[static_cast<std::size_t>(k)];
      const double value = eliminated.values[static_cast<std::size_t>(k)];
      ASSERT_EQ(value, eliminated.values[static_cast<std::size_t>(eliminated.find(column, row))])
          << what << ": (" << row << ", " << column << ")";
      if (fixed[static_cast<std::size_t>(row)] || fixed[static_cast<std::size_t>(column)])
        ASSERT_EQ(value, row == column ? 1.0 : 0.0) << what << ": (" << row << ", " << column << ")";
      else
        ASSERT_EQ(value, static_cast<double>(static_cast<Real>(box.stiffness.values[static_cast<std::size_t>(k)])))
            << what;
    }
  // The right-hand side: u_c at constrained DOFs, f_f - K_fc u_c elsewhere. The sum over a row's
  // constrained columns is carried in double in both, in different orders, from K and f rounded
  // to Real: they differ by at most a few units of Real's rounding (and a row's 81 terms of
  // double rounding) of the terms' absolute sum.
  const std::vector<Real> eliminated_rhs = rhs.to_host();
  const double unit = std::numeric_limits<Real>::epsilon();
  for (std::size_t i = 0; i < n; ++i) {
    if (fixed[i])
      ASSERT_EQ(eliminated_rhs[i], static_cast<Real>(reference.rhs[i])) << what << ": " << i;
    else
      ASSERT_NEAR(eliminated_rhs[i], reference.rhs[i], (3 * unit + 100 * 1.1e-16) * reference.rhs_scale[i])
          << what << ": " << i;
  }

  // CG on the eliminated system from a guess holding u_c.
  DeviceArray<Real> x(exec, static_cast<Index>(n));
  std::vector<Real> zero(n, Real(0));
  x.copy_from_host(zero);
  impose_values(exec, constraints, x.data());
  CgSettings settings;
  settings.tolerance = sizeof(Real) == 8 ? 1e-12 : 1e-5;
  settings.use_initial_guess = true;
  CgResult result;
  if (block_format) {
    const auto op = block_csr_operator(exec, blocks);
    result = cg(exec, *op, Preconditioner<Real>::build(exec, PreconditionerKind::BlockJacobi, blocks), rhs.data(),
                x.data(), settings);
  } else {
    const auto op = csr_operator(exec, csr);
    result = cg(exec, *op, Preconditioner<Real>::build(exec, PreconditionerKind::BlockJacobi, csr, 3), rhs.data(),
                x.data(), settings);
  }
  ASSERT_TRUE(result.converged()) << what << ": " << result.report;
  const std::vector<Real> solution = x.to_host();
  // Constrained DOFs start at u_c and never move: their search directions stay exactly zero.
  for (std::size_t i = 0; i < box.constraints.dofs.size(); ++i)
    EXPECT_EQ(solution[static_cast<std::size_t>(box.constraints.dofs[i])], static_cast<Real>(box.constraints.values[i]))
        << what;
  // ||u - u*|| / ||u*|| <= cond(K_ff) * the relative residual (measured in double against the
  // reference's exact elimination; in float the rounding of K and f to float, 6e-8 relative,
  // adds cond * 6e-8 on top).
  double error = 0.0, size = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    error += std::pow(static_cast<double>(solution[i]) - reference.solution[i], 2);
    size += std::pow(reference.solution[i], 2);
  }
  const double bound = reference.condition * (settings.tolerance + (sizeof(Real) == 8 ? 1e-15 : 6e-8));
  EXPECT_LE(std::sqrt(error / size), bound) << what << ", cond(K_ff) " << reference.condition;
}

TEST(StaticConstraints, EliminationSolvesTheReducedSystemCsr) {
  for (const Exec& exec : {Exec::serial(), Exec::openmp()}) check_elimination_and_solve<double>(exec, false);
  check_elimination_and_solve<float>(Exec::serial(), false);
}

TEST(StaticConstraints, EliminationSolvesTheReducedSystemBlockCsr) {
  for (const Exec& exec : {Exec::serial(), Exec::openmp()}) check_elimination_and_solve<double>(exec, true);
  check_elimination_and_solve<float>(Exec::serial(), true);
}

TEST(StaticConstraints, CsrAndBlockCsrEliminateTheSameBits) {
  // Both sum a row's constrained columns in column order: the same right-hand side, bit for bit.
  const ConstrainedBox box = constrained_box();
  const Exec exec = Exec::serial();
  const DeviceConstraints constraints(exec, box.constraints);
  std::vector<double> from_csr = box.load, from_blocks = box.load;
  sparse::DeviceCsr<double> csr(exec, box.stiffness);
  sparse::DeviceBlockCsr<double> blocks(exec, sparse::to_block_csr<double>(box.stiffness, 3));
  apply_constraints(exec, constraints, csr, from_csr.data());
  apply_constraints(exec, constraints, blocks, from_blocks.data());
  EXPECT_EQ(0, std::memcmp(from_csr.data(), from_blocks.data(), from_csr.size() * sizeof(double)));
}

TEST(StaticConstraints, RefusesAConstrainedRowWithoutADiagonal) {
  CsrMatrix m;  // [[0, 1], [1, 0]]: no diagonal entries in the pattern
  m.n_rows = 2;
  m.offsets = {0, 1, 2};
  m.columns = {1, 0};
  m.values = {1.0, 1.0};
  Mesh mesh(2);
  const double p[2] = {0.0, 0.0};
  mesh.add_node(1, p);
  const Exec exec = Exec::serial();
  const DeviceConstraints constraints(exec, make_constraints(mesh, std::vector<Index>{1}, std::vector<double>{0.0}));
  sparse::DeviceCsr<double> matrix(exec, m);
  std::vector<double> rhs = {1.0, 1.0};
  try {
    apply_constraints(exec, constraints, matrix, rhs.data());
    ADD_FAILURE() << "a constrained row without a diagonal entry was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("row 1 hold a prescribed DOF but no diagonal entry"), std::string::npos)
        << e.what();
  }
}

// --- rigid-body modes ---

// The DOFs of `nodes`, the given components of each.
std::vector<Index> dofs_of(const std::vector<Index>& nodes, std::initializer_list<int> components, int dim) {
  std::vector<Index> out;
  for (Index node : nodes)
    for (int c : components) out.push_back(node * dim + c);
  return out;
}

// The node at a position of a generated mesh.
Index node_at(const Mesh& mesh, std::initializer_list<double> position) {
  const std::vector<double> p(position);
  for (Index i = 0; i < mesh.n_nodes(); ++i) {
    bool same = true;
    for (int a = 0; a < mesh.dim(); ++a)
      same = same && std::abs(mesh.node(i)[static_cast<std::size_t>(a)] - p[static_cast<std::size_t>(a)]) < 1e-12;
    if (same) return i;
  }
  ADD_FAILURE() << "no node there";
  return -1;
}

std::string singular_message(const Mesh& mesh, const std::vector<Index>& dofs) {
  try {
    check_rigid_modes(mesh, dofs);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

int count(const MobileBody& body, FreeMotion::Kind kind) {
  return static_cast<int>(
      std::count_if(body.motions.begin(), body.motions.end(), [&](const FreeMotion& m) { return m.kind == kind; }));
}

// [0, 2] x [0, 1] x [0, 1] in 4 x 2 x 2 hex8 cells: 45 nodes labelled 1..45, x fastest.
Mesh bar() { return generate_box({0, 0, 0}, {2, 1, 1}, {4, 2, 2}, ElementType::Hex8); }

TEST(StaticRigidModes, AFreeBodyCanMoveEveryWay) {
  const Mesh mesh = bar();
  const RigidModeReport report = find_free_rigid_motions(mesh, {});
  EXPECT_EQ(report.n_bodies, 1);
  ASSERT_EQ(report.mobile.size(), 1u);
  EXPECT_EQ(count(report.mobile[0], FreeMotion::Kind::Translation), 3);
  EXPECT_EQ(count(report.mobile[0], FreeMotion::Kind::Rotation), 3);
  const std::string message = singular_message(mesh, {});
  EXPECT_NE(message.find("the body holding node 1 (the only body, 45 nodes, no displacement fixed) can still move: "
                         "translation along x, y and z, rotation about x, y and z through (1, 0.5, 0.5)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("fix more displacements (*BOUNDARY / [[prescribed_displacement]])"), std::string::npos)
      << message;
}

TEST(StaticRigidModes, OneFixedNodeLeavesRotationsAboutIt) {
  const Mesh mesh = bar();
  const Index corner = node_at(mesh, {2, 1, 1});
  const std::vector<Index> dofs = dofs_of({corner}, {0, 1, 2}, 3);
  const RigidModeReport report = find_free_rigid_motions(mesh, dofs);
  ASSERT_EQ(report.mobile.size(), 1u);
  EXPECT_EQ(count(report.mobile[0], FreeMotion::Kind::Translation), 0);
  EXPECT_EQ(count(report.mobile[0], FreeMotion::Kind::Rotation), 3);
  const std::string message = singular_message(mesh, dofs);
  EXPECT_NE(message.find("(the only body, 45 nodes) can still move: rotation about x, y and z through (2, 1, 1) —"),
            std::string::npos)
      << message;
}

TEST(StaticRigidModes, ALineOfFixedNodesLeavesTheRotationAboutIt) {
  const Mesh mesh = bar();
  std::vector<Index> edge;  // y = z = 0: along x
  for (Index i = 0; i < mesh.n_nodes(); ++i)
    if (mesh.node(i)[1] == 0.0 && mesh.node(i)[2] == 0.0) edge.push_back(i);
  ASSERT_EQ(edge.size(), 5u);
  const std::vector<Index> dofs = dofs_of(edge, {0, 1, 2}, 3);
  const RigidModeReport report = find_free_rigid_motions(mesh, dofs);
  ASSERT_EQ(report.mobile.size(), 1u);
  ASSERT_EQ(report.mobile[0].motions.size(), 1u);
  const FreeMotion& motion = report.mobile[0].motions[0];
  EXPECT_EQ(motion.kind, FreeMotion::Kind::Rotation);
  EXPECT_NEAR(std::abs(motion.direction[0]), 1.0, 1e-12);  // about x; rounding of the eigenvectors
  EXPECT_EQ(motion.pitch, 0.0);
  const std::string message = singular_message(mesh, dofs);
  EXPECT_NE(message.find("can still move: rotation about x through (1, 0, 0) —"), std::string::npos) << message;

  // A diagonal line, (0, 0, 0) to (2, 1, 1) is not a line of nodes; (0, 0, 0), (1, 0.5, 0.5) and
  // (2, 1, 1) are: the axis is then named by its direction.
  const std::vector<Index> diagonal = {node_at(mesh, {0, 0, 0}), node_at(mesh, {1, 0.5, 0.5}),
                                       node_at(mesh, {2, 1, 1})};
  const std::string diagonal_message = singular_message(mesh, dofs_of(diagonal, {0, 1, 2}, 3));
  EXPECT_NE(diagonal_message.find("rotation about (0.816497, 0.408248, 0.408248) through (1, 0.5, 0.5)"),
            std::string::npos)
      << diagonal_message;
}

TEST(StaticRigidModes, ASymmetryPlaneLeavesInPlaneMotions) {
  const Mesh mesh = bar();
  const std::vector<Index> dofs = dofs_of(mesh.node_sets.at("xmin"), {0}, 3);
  const std::string message = singular_message(mesh, dofs);
  EXPECT_NE(message.find("can still move: translation along y and z, rotation about x through (0, 0.5, 0.5)"),
            std::string::npos)
      << message;
  // One more node held in y away from the plane's centre: the rotation about x now turns about
  // that node's height (z = 1), and z translation stays free.
  std::vector<Index> more = dofs;
  more.push_back(node_at(mesh, {0, 0, 1}) * 3 + 1);
  const std::string more_message = singular_message(mesh, more);
  EXPECT_NE(more_message.find("can still move: translation along z, rotation about x through (0, 0.5, 1)"),
            std::string::npos)
      << more_message;
}

TEST(StaticRigidModes, EnoughConstraintsHoldTheBody) {
  const Mesh mesh = bar();
  EXPECT_NO_THROW(check_rigid_modes(mesh, dofs_of(mesh.node_sets.at("xmin"), {0, 1, 2}, 3)));
  // The minimal 3-2-1 support: six DOFs on three non-collinear nodes.
  const Index a = node_at(mesh, {0, 0, 0}), b = node_at(mesh, {2, 0, 0}), c = node_at(mesh, {0, 1, 0});
  const std::vector<Index> minimal = {a * 3, a * 3 + 1, a * 3 + 2, b * 3 + 1, b * 3 + 2, c * 3 + 2};
  EXPECT_TRUE(find_free_rigid_motions(mesh, minimal).mobile.empty());
  // Dropping any one of the six frees the body.
  for (std::size_t skip = 0; skip < minimal.size(); ++skip) {
    std::vector<Index> fewer = minimal;
    fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(skip));
    const RigidModeReport report = find_free_rigid_motions(mesh, fewer);
    ASSERT_EQ(report.mobile.size(), 1u) << skip;
    EXPECT_EQ(report.mobile[0].motions.size(), 1u) << skip;
  }
  // A slender bar (100 x 1 x 1) clamped at one end is held: its rotation about its axis is
  // stopped by nodes half a width from the axis, 1/200 of its length, well above the tolerance.
  const Mesh slender = generate_box({0, 0, 0}, {100, 1, 1}, {100, 1, 1}, ElementType::Hex8);
  EXPECT_NO_THROW(check_rigid_modes(slender, dofs_of(slender.node_sets.at("xmin"), {0, 1, 2}, 3)));
}

TEST(StaticRigidModes, NamesTheUnheldBodyOfTwo) {
  // The bar, and a cube at x = 5..6 labelled from 1001: two bodies; the bar clamped.
  Mesh mesh = bar();
  const Mesh cube = generate_box({5, 0, 0}, {1, 1, 1}, {2, 2, 2}, ElementType::Hex8);
  const Index offset = mesh.n_nodes();
  for (Index i = 0; i < cube.n_nodes(); ++i)
    mesh.add_node(1000 + cube.node_labels[static_cast<std::size_t>(i)], cube.node(i));
  ElementBlock& block = mesh.block_for(ElementType::Hex8);
  for (const auto& from : cube.blocks) {
    for (Index node : from.connectivity) block.connectivity.push_back(node + offset);
    for (Label label : from.labels) block.labels.push_back(1000 + label);
  }
  const std::vector<Index> dofs = dofs_of(mesh.node_sets.at("xmin"), {0, 1, 2}, 3);
  const RigidModeReport report = find_free_rigid_motions(mesh, dofs);
  EXPECT_EQ(report.n_bodies, 2);
  ASSERT_EQ(report.mobile.size(), 1u);
  EXPECT_EQ(report.mobile[0].body, 1);
  EXPECT_EQ(report.mobile[0].first_node, offset);
  EXPECT_EQ(report.mobile[0].n_nodes, 27);
  const std::string message = singular_message(mesh, dofs);
  EXPECT_NE(message.find("the body holding node 1001 (2 of 2 bodies, 27 nodes, no displacement fixed) can still move: "
                         "translation along x, y and z, rotation about x, y and z through (5.5, 0.5, 0.5)"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find("node 1 "), std::string::npos) << message;  // the held bar is not named
  // Both held: no error.
  std::vector<Index> both = dofs;
  for (Index node = offset; node < mesh.n_nodes(); ++node)
    if (mesh.node(node)[0] == 5.0)
      for (int c = 0; c < 3; ++c) both.push_back(node * 3 + c);
  EXPECT_NO_THROW(check_rigid_modes(mesh, both));
}

TEST(StaticRigidModes, IsolatedNodesBelongToNoBody) {
  Mesh mesh = bar();
  const double far[3] = {9.0, 9.0, 9.0};
  mesh.add_node(500, far);
  EXPECT_EQ(find_free_rigid_motions(mesh, {}).n_bodies, 1);
  EXPECT_NO_THROW(check_rigid_modes(mesh, dofs_of(mesh.node_sets.at("xmin"), {0, 1, 2}, 3)));
}

TEST(StaticRigidModes, TwoDimensionalBodies) {
  // [0, 2] x [0, 1] in 4 x 2 quad4 cells: 15 nodes.
  const Mesh mesh = generate_rectangle({0, 0}, {2, 1}, {4, 2}, ElementType::Quad4);
  const RigidModeReport free = find_free_rigid_motions(mesh, {});
  ASSERT_EQ(free.mobile.size(), 1u);
  EXPECT_EQ(free.mobile[0].motions.size(), 3u);
  EXPECT_NE(singular_message(mesh, {}).find(
                "can still move: translation along x and y, rotation in the plane about (1, 0.5)"),
            std::string::npos)
      << singular_message(mesh, {});
  const Index a = node_at(mesh, {0, 0}), b = node_at(mesh, {2, 0});
  const std::string pinned = singular_message(mesh, {a * 2, a * 2 + 1});
  EXPECT_NE(pinned.find("can still move: rotation in the plane about (0, 0) —"), std::string::npos) << pinned;
  // A roller at b moving along x (held in x) does not stop the rotation about a: b moves along y.
  const std::string roller_x = singular_message(mesh, {a * 2, a * 2 + 1, b * 2});
  EXPECT_NE(roller_x.find("can still move: rotation in the plane about (0, 0) —"), std::string::npos) << roller_x;
  // Held in y, it does.
  EXPECT_NO_THROW(check_rigid_modes(mesh, std::vector<Index>{a * 2, a * 2 + 1, b * 2 + 1}));
  // Tri6 mesh of the same rectangle, a side held in y only: sliding along x is left.
  const Mesh tri = generate_rectangle({0, 0}, {2, 1}, {4, 2}, ElementType::Tri6);
  const std::string sliding = singular_message(tri, dofs_of(tri.node_sets.at("ymin"), {1}, 2));
  EXPECT_NE(sliding.find("can still move: translation along x —"), std::string::npos) << sliding;
}

}  // namespace
}  // namespace tremor::static_fe
