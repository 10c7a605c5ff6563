#include "tremor/static/constraints.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tremor/backend/forall.hpp"
#include "tremor/backend/reduce.hpp"
#include "tremor/core/error.hpp"

namespace tremor::static_fe {

namespace {

char component_name(int c) { return static_cast<char>('x' + c); }

// One CSR row: a constrained row becomes the identity row with rhs = u_c; a free row moves its
// constrained columns' K_ic u_c to the rhs and zeroes them. Returns, per row, 1 when a
// constrained row lacks its diagonal entry.
template <class Real>
void eliminate_csr(const Exec& exec, sparse::CsrView<Real> matrix, Real* values, const std::uint8_t* constrained,
                   const double* prescribed, Real* rhs, int* missing_diagonal) {
  const Size* offsets = matrix.offsets;
  const Index* columns = matrix.columns;
  forall(exec, matrix.n_rows, [=] TREMOR_LAMBDA(Index row) {
    const Size begin = offsets[row], end = offsets[row + 1];
    if (constrained[row] != 0) {
      int found = 0;
      for (Size k = begin; k < end; ++k) {
        const bool diagonal = columns[k] == row;
        found |= diagonal ? 1 : 0;
        values[k] = diagonal ? Real(1) : Real(0);
      }
      rhs[row] = static_cast<Real>(prescribed[row]);
      missing_diagonal[row] = 1 - found;
      return;
    }
    double moved = 0.0;
    for (Size k = begin; k < end; ++k) {
      const Index column = columns[k];
      if (constrained[column] != 0) {
        moved += static_cast<double>(values[k]) * prescribed[column];
        values[k] = Real(0);
      }
    }
    rhs[row] = static_cast<Real>(static_cast<double>(rhs[row]) - moved);
    missing_diagonal[row] = 0;
  });
}

// The same per node row of a nodal-block matrix (B x B blocks, row-major).
template <int B, class Real>
void eliminate_blocks(const Exec& exec, Index n_nodes, const Size* offsets, const Index* columns, Real* values,
                      const std::uint8_t* constrained, const double* prescribed, Real* rhs, int* missing_diagonal) {
  forall(exec, n_nodes, [=] TREMOR_LAMBDA(Index node) {
    const Size begin = offsets[node], end = offsets[node + 1];
    double moved[B];
    int found[B];
    for (int r = 0; r < B; ++r) {
      moved[r] = 0.0;
      found[r] = 0;
    }
    for (Size k = begin; k < end; ++k) {
      const Index column_node = columns[k];
      Real* block = values + k * (B * B);
      for (int r = 0; r < B; ++r) {
        const Index row = node * B + r;
        const bool row_fixed = constrained[row] != 0;
        for (int c = 0; c < B; ++c) {
          const Index column = column_node * B + c;
          if (row_fixed) {
            const bool diagonal = column == row;
            found[r] |= diagonal ? 1 : 0;
            block[r * B + c] = diagonal ? Real(1) : Real(0);
          } else if (constrained[column] != 0) {
            moved[r] += static_cast<double>(block[r * B + c]) * prescribed[column];
            block[r * B + c] = Real(0);
          }
        }
      }
    }
    int missing = 0;
    for (int r = 0; r < B; ++r) {
      const Index row = node * B + r;
      if (constrained[row] != 0) {
        rhs[row] = static_cast<Real>(prescribed[row]);
        missing |= 1 - found[r];
      } else {
        rhs[row] = static_cast<Real>(static_cast<double>(rhs[row]) - moved[r]);
      }
    }
    missing_diagonal[node] = missing;
  });
}

void check_missing_diagonal(const Exec& exec, const DeviceArray<int>& missing, int rows_per_item) {
  const int* m = missing.data();
  const Index count = sum<Index>(exec, missing.size(), [=] TREMOR_LAMBDA(Index i) { return Index(m[i]); });
  if (count == 0) return;
  const std::vector<int> host = missing.to_host();
  const auto first = static_cast<Index>(std::find(host.begin(), host.end(), 1) - host.begin());
  throw Error(str("constraints: ", rows_per_item == 1 ? "row " : "the rows of node index ", first,
                  " hold a prescribed DOF but no diagonal entry (", count, rows_per_item == 1 ? " rows" : " nodes",
                  " in all): the matrix does not have the nodal pattern of a stiffness"));
}

}  // namespace

Constraints make_constraints(const Mesh& mesh, std::span<const Index> dofs, std::span<const double> values) {
  const int dim = mesh.dim();
  TREMOR_CHECK(dofs.size() == values.size(), "constraints: ", dofs.size(), " DOFs and ", values.size(), " values");
  Constraints out;
  out.dim = dim;
  out.n_dofs = mesh.n_nodes() * dim;
  const auto name = [&](Index dof) {
    return str("node ", mesh.node_labels[static_cast<std::size_t>(dof / dim)], ", component ",
               component_name(dof % dim));
  };
  std::vector<std::size_t> order(dofs.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  for (std::size_t i = 0; i < dofs.size(); ++i) {
    TREMOR_CHECK(dofs[i] >= 0 && dofs[i] < out.n_dofs, "constraints: DOF ", dofs[i], " is outside the mesh's ",
                 out.n_dofs, " DOFs");
    TREMOR_CHECK(std::isfinite(values[i]), "constraints: the prescribed displacement of ", name(dofs[i]), " is ",
                 values[i]);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return dofs[a] < dofs[b]; });
  for (const std::size_t i : order) {
    if (!out.dofs.empty() && out.dofs.back() == dofs[i]) {
      TREMOR_CHECK(out.values.back() == values[i], "constraints: ", name(dofs[i]), " is prescribed twice, to ",
                   out.values.back(), " m and to ", values[i], " m");
      continue;
    }
    out.dofs.push_back(dofs[i]);
    out.values.push_back(values[i]);
  }
  return out;
}

Constraints hold_isolated_nodes(const Mesh& mesh, const Constraints& constraints) {
  std::vector<std::uint8_t> used(static_cast<std::size_t>(mesh.n_nodes()), 0);
  for (const auto& block : mesh.blocks)
    for (const Index node : block.connectivity) used[static_cast<std::size_t>(node)] = 1;
  std::vector<Index> dofs = constraints.dofs;
  std::vector<double> values = constraints.values;
  const int dim = mesh.dim();
  // An isolated DOF the user prescribed keeps its value: only unprescribed ones are added.
  for (Index node = 0; node < mesh.n_nodes(); ++node)
    if (used[static_cast<std::size_t>(node)] == 0)
      for (int c = 0; c < dim; ++c)
        if (!std::binary_search(constraints.dofs.begin(), constraints.dofs.end(), node * dim + c)) {
          dofs.push_back(node * dim + c);
          values.push_back(0.0);
        }
  return make_constraints(mesh, dofs, values);
}

DeviceConstraints::DeviceConstraints(const Exec& exec, const Constraints& host)
    : n_dofs(host.n_dofs),
      n_constrained(host.n_constrained()),
      dofs(exec, std::span<const Index>(host.dofs)),
      values(exec, std::span<const double>(host.values)) {
  std::vector<std::uint8_t> flags(static_cast<std::size_t>(host.n_dofs), 0);
  std::vector<double> dense(static_cast<std::size_t>(host.n_dofs), 0.0);
  for (std::size_t i = 0; i < host.dofs.size(); ++i) {
    flags[static_cast<std::size_t>(host.dofs[i])] = 1;
    dense[static_cast<std::size_t>(host.dofs[i])] = host.values[i];
  }
  constrained = DeviceArray<std::uint8_t>(exec, std::span<const std::uint8_t>(flags));
  prescribed = DeviceArray<double>(exec, std::span<const double>(dense));
}

template <class Real>
void apply_constraints(const Exec& exec, const DeviceConstraints& constraints, sparse::DeviceCsr<Real>& matrix,
                       Real* rhs) {
  TREMOR_CHECK(matrix.n_rows == constraints.n_dofs, "constraints: ", constraints.n_dofs, " DOFs, the matrix has ",
               matrix.n_rows, " rows");
  DeviceArray<int> missing(exec, matrix.n_rows);
  eliminate_csr(exec, matrix.view(), matrix.values.data(), constraints.constrained.data(),
                constraints.prescribed.data(), rhs, missing.data());
  check_missing_diagonal(exec, missing, 1);
}

template <class Real>
void apply_constraints(const Exec& exec, const DeviceConstraints& constraints, sparse::DeviceBlockCsr<Real>& matrix,
                       Real* rhs) {
  TREMOR_CHECK(matrix.n_rows() == constraints.n_dofs, "constraints: ", constraints.n_dofs, " DOFs, the matrix has ",
               matrix.n_rows(), " rows");
  DeviceArray<int> missing(exec, matrix.n_block_rows);
  const Size* offsets = matrix.offsets.data();
  const Index* columns = matrix.columns.data();
  Real* values = matrix.values.data();
  const std::uint8_t* constrained = constraints.constrained.data();
  const double* prescribed = constraints.prescribed.data();
  const Index nodes = matrix.n_block_rows;
  switch (matrix.block) {
    case 1:
      eliminate_blocks<1>(exec, nodes, offsets, columns, values, constrained, prescribed, rhs, missing.data());
      break;
    case 2:
      eliminate_blocks<2>(exec, nodes, offsets, columns, values, constrained, prescribed, rhs, missing.data());
      break;
    case 3:
      eliminate_blocks<3>(exec, nodes, offsets, columns, values, constrained, prescribed, rhs, missing.data());
      break;
    default: throw Error(str("constraints: block size ", matrix.block, " is not 1, 2 or 3"));
  }
  check_missing_diagonal(exec, missing, matrix.block);
}

template <class Real>
void impose_values(const Exec& exec, const DeviceConstraints& constraints, Real* x) {
  const Index* dofs = constraints.dofs.data();
  const double* values = constraints.values.data();
  forall(exec, constraints.n_constrained, [=] TREMOR_LAMBDA(Index i) { x[dofs[i]] = static_cast<Real>(values[i]); });
}

template void apply_constraints<float>(const Exec&, const DeviceConstraints&, sparse::DeviceCsr<float>&, float*);
template void apply_constraints<double>(const Exec&, const DeviceConstraints&, sparse::DeviceCsr<double>&, double*);
template void apply_constraints<float>(const Exec&, const DeviceConstraints&, sparse::DeviceBlockCsr<float>&, float*);
template void apply_constraints<double>(const Exec&, const DeviceConstraints&, sparse::DeviceBlockCsr<double>&,
                                        double*);
template void impose_values<float>(const Exec&, const DeviceConstraints&, float*);
template void impose_values<double>(const Exec&, const DeviceConstraints&, double*);

}  // namespace tremor::static_fe
