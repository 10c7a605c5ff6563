#include "tremor/bem/hmatrix_source.hpp"

#include <cmath>

#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"

namespace tremor::bem {

namespace {

Scalar scalar(Complex v) { return {v.re, v.im}; }

}  // namespace

void PairSource::node_rows(Index node, Index begin, Index end, Scalar* out) const {
  const Index i = tree_.mesh_node[static_cast<std::size_t>(node)];
  const double* xi = points_ + 3 * static_cast<Size>(i);
  const Size w = 6 * static_cast<Size>(end - begin);
  Complex H[9 * max_element_nodes], G[9 * max_element_nodes];
  const Index last = tree_.position[static_cast<std::size_t>(end) - 1];
  for (Index p = tree_.position[static_cast<std::size_t>(begin)]; p <= last; ++p) {
    const int nodes = pairs_(i, xi, tree_.elements[static_cast<std::size_t>(p)], H, G);
    const Size column = static_cast<Size>(tree_.start[static_cast<std::size_t>(p)] - begin);
    for (int b = 0; b < nodes; ++b)
      for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) {
          Scalar* at = out + static_cast<Size>(a) * w + 6 * (column + static_cast<Size>(b)) + c;
          at[0] = scalar(H[9 * b + 3 * a + c]);
          at[3] = g_scale_ * scalar(G[9 * b + 3 * a + c]);
        }
  }
}

void PairSource::node_columns(Index node, Index begin, Index end, Scalar* out) const {
  const Index p = tree_.position[static_cast<std::size_t>(node)];
  const Index element = tree_.elements[static_cast<std::size_t>(p)];
  const int b = static_cast<int>(node - tree_.start[static_cast<std::size_t>(p)]);
  const Size m = 3 * static_cast<Size>(end - begin);
  Complex H[9 * max_element_nodes], G[9 * max_element_nodes];
  for (Index r = begin; r < end; ++r) {
    const Index i = tree_.mesh_node[static_cast<std::size_t>(r)];
    pairs_(i, points_ + 3 * static_cast<Size>(i), element, H, G);
    const Size row = 3 * static_cast<Size>(r - begin);
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c) {
        out[static_cast<Size>(c) * m + row + a] = scalar(H[9 * b + 3 * a + c]);
        out[static_cast<Size>(c + 3) * m + row + a] = g_scale_ * scalar(G[9 * b + 3 * a + c]);
      }
  }
}

void PairSource::block(const Cluster& rows, const Cluster& cols, Scalar* out) const {
  const Size m = 3 * static_cast<Size>(rows.n_nodes());
  Complex H[9 * max_element_nodes], G[9 * max_element_nodes];
  for (Index r = rows.first; r < rows.last; ++r) {
    const Index i = tree_.mesh_node[static_cast<std::size_t>(r)];
    const double* xi = points_ + 3 * static_cast<Size>(i);
    const Size row = 3 * static_cast<Size>(r - rows.first);
    for (Index p = cols.begin; p < cols.end; ++p) {
      const int nodes = pairs_(i, xi, tree_.elements[static_cast<std::size_t>(p)], H, G);
      const Size column = static_cast<Size>(tree_.start[static_cast<std::size_t>(p)] - cols.first);
      for (int b = 0; b < nodes; ++b)
        for (int a = 0; a < 3; ++a)
          for (int c = 0; c < 3; ++c) {
            const Size j = 6 * (column + static_cast<Size>(b)) + static_cast<Size>(c);
            out[row + a + j * m] = scalar(H[9 * b + 3 * a + c]);
            out[row + a + (j + 3) * m] = g_scale_ * scalar(G[9 * b + 3 * a + c]);
          }
    }
  }
}

double g_scale(const BoundaryMesh& mesh, const Medium& medium) {
  double sum = 0.0;
  for (Index e = 0; e < mesh.n_elements(); ++e) sum += element_geometry(mesh, e).diameter;
  const double h = sum / static_cast<double>(std::max<Index>(mesh.n_elements(), 1));
  const double mu = std::sqrt(medium.mu.re * medium.mu.re + medium.mu.im * medium.mu.im);
  return h > 0.0 ? mu / h : 1.0;
}

HMatrixSolveReport solve_compressed(const ClusterTree& tree, const PairIntegrator& pairs, const double* points,
                                    double scale, const BoundaryConditions& conditions,
                                    const HMatrixOptions& options, std::vector<Scalar>& guess, std::vector<Complex>& u,
                                    std::vector<Complex>& t) {
  HMatrixSolveReport report;
  const Index n = tree.n_nodes();
  const auto size = static_cast<std::size_t>(n);
  TREMOR_CHECK(conditions.kind.size() == 3 * size && conditions.value.size() == 3 * size,
               "boundary conditions for ", conditions.kind.size() / 3, " nodes, the boundary has ", n);
  // Per tree node and component: is the displacement the unknown (the traction given)?
  std::vector<char> u_unknown(3 * size);
  for (std::size_t k = 0; k < 3 * size; ++k) {
    const std::size_t mesh = 3 * static_cast<std::size_t>(tree.mesh_node[k / 3]) + k % 3;
    u_unknown[k] = conditions.kind[mesh] == Prescribed::Traction ? 1 : 0;
  }
  auto started = Clock::now();
  const PairSource source(tree, pairs, points, scale);
  HMatrix h(tree, source, options);
  report.build_seconds = seconds_since(started);
  report.stats = h.stats();

  started = Clock::now();
  // A x = [H sG] (P_u x, -P_t x); b = [H sG] (-u_given, t_given / s).
  std::vector<Scalar> wide(6 * size), b(3 * size);
  for (std::size_t k = 0; k < 3 * size; ++k) {
    const std::size_t mesh = 3 * static_cast<std::size_t>(tree.mesh_node[k / 3]) + k % 3;
    const Scalar given = scalar(conditions.value[mesh]);
    wide[6 * (k / 3) + k % 3] = u_unknown[k] ? Scalar(0.0) : -given;
    wide[6 * (k / 3) + 3 + k % 3] = u_unknown[k] ? given / scale : Scalar(0.0);
  }
  h.multiply(wide.data(), b.data());
  const Operator apply = [&](const Scalar* x, Scalar* y) {
    for (std::size_t k = 0; k < 3 * size; ++k) {
      wide[6 * (k / 3) + k % 3] = u_unknown[k] ? x[k] : Scalar(0.0);
      wide[6 * (k / 3) + 3 + k % 3] = u_unknown[k] ? Scalar(0.0) : -x[k];
    }
    h.multiply(wide.data(), y);
  };
  h.factor_diagonal([&](const Cluster& c, const Scalar* block, Scalar* out) {
    const Size m = 3 * static_cast<Size>(c.n_nodes());
    for (Size j = 0; j < m; ++j) {
      const std::size_t k = 3 * static_cast<std::size_t>(c.first) + j;
      const Size from = 6 * (j / 3) + (u_unknown[k] ? 0 : 3) + j % 3;
      const double sign = u_unknown[k] ? 1.0 : -1.0;
      for (Size r = 0; r < m; ++r) out[r + j * m] = sign * block[r + from * m];
    }
  });
  if (guess.size() != 3 * size) guess.assign(3 * size, Scalar(0.0));
  report.gmres = gmres(3 * n, apply, [&](Scalar* x) { h.precondition(x); }, b.data(), guess.data(), options.tolerance);
  report.solve_seconds = seconds_since(started);
  u.assign(3 * size, Complex());
  t.assign(3 * size, Complex());
  for (std::size_t k = 0; k < 3 * size; ++k) {
    const std::size_t mesh = 3 * static_cast<std::size_t>(tree.mesh_node[k / 3]) + k % 3;
    const Scalar x = u_unknown[k] ? guess[k] : scale * guess[k];
    const Complex value{x.real(), x.imag()};
    u[mesh] = u_unknown[k] ? value : conditions.value[mesh];
    t[mesh] = u_unknown[k] ? conditions.value[mesh] : value;
  }
  return report;
}

}  // namespace tremor::bem
