#include "tremor/bem/solve.hpp"

#include <chrono>
#include <cmath>
#include <numbers>
#include <optional>
#include <span>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/bem/hmatrix_source.hpp"
#include "tremor/core/error.hpp"

namespace tremor::bem {

namespace {

// b = sum over columns of G t (traction given) - H u (displacement given), one thread per row,
// columns in order (deterministic); then A = H's columns where the displacement is unknown and
// -G's where the traction is, written over H. Traffic: H and G read twice, A written once.
void rearrange(const Exec& exec, Index n_dof, const Prescribed* kind, const Complex* value, Complex* H, const Complex* G,
               Complex* b) {
  const Size ld = n_dof;
  forall(exec, n_dof, [=] TREMOR_LAMBDA(Index row) {
    Complex sum;
    for (Index col = 0; col < n_dof; ++col) {
      const Size at = row + static_cast<Size>(col) * ld;
      if (kind[col] == Prescribed::Traction)
        sum += G[at] * value[col];
      else
        sum -= H[at] * value[col];
    }
    b[row] = sum;
  });
  forall(exec, n_dof, [=] TREMOR_LAMBDA(Index col) {
    if (kind[col] == Prescribed::Traction) return;
    for (Index row = 0; row < n_dof; ++row) {
      const Size at = row + static_cast<Size>(col) * ld;
      H[at] = -G[at];
    }
  });
}

// The compressed method: [H sG] by parts on exec, ACA's arithmetic and GMRES on the host, GMRES
// from the previous frequency's solution. What does not depend on the frequency is found once:
// the cluster tree, the boundary and collocation points on exec, the rigid-body sums.
void solve_compressed_frequencies(const Exec& exec, const BoundaryMesh& boundary, double rho, double lambda, double mu,
                                  double beta, const std::vector<double>& omegas, const BoundaryConditions& conditions,
                                  const SolverOptions& options, const std::vector<double>& interior_points,
                                  const FrequencyObserver& each) {
  const DeviceBoundary device_boundary(exec, boundary, options.elements);
  const BoundaryView view = device_boundary.view();
  const Index m = device_boundary.n_nodes();
  TREMOR_CHECK(static_cast<Index>(conditions.kind.size()) == 3 * m && static_cast<Index>(conditions.value.size()) == 3 * m,
               "boundary conditions for ", conditions.kind.size() / 3, " nodes, the boundary has ", m);
  DeviceArray<double> points(exec, 3 * m);
  collocation_points(exec, view, points.data());
  auto start = Clock::now();
  const FreeTermChoice& free_term = options.free_term;
  DeviceArray<Complex> row_sums;
  double row_sum_seconds = 0.0;
  if (free_term.method == FreeTerm::RigidBody) {
    row_sums = static_row_sums(exec, view, make_medium(rho, lambda, mu, beta, 0.0), options.integration);
    row_sum_seconds = seconds_since(start);
  }
  const std::shared_ptr<const ClusterTree> held =
      options.tree ? options.tree
                   : std::make_shared<const ClusterTree>(
                         cluster_tree(boundary, options.elements, options.hmatrix.leaf_size));
  const ClusterTree& tree = *held;
  TREMOR_CHECK(tree.n_nodes() == m && static_cast<Index>(tree.elements.size()) == boundary.n_elements(),
               "the cluster tree given holds ", tree.n_nodes(), " nodes of ", tree.elements.size(),
               " elements, the boundary ", m, " of ", boundary.n_elements());
  const double scale = g_scale(boundary, make_medium(rho, lambda, mu, beta, 0.0));
  const Index n_points = static_cast<Index>(interior_points.size() / 3);
  DeviceArray<double> device_points;
  if (n_points > 0) device_points = DeviceArray<double>(exec, std::span<const double>(interior_points));
  std::vector<Scalar> guess;
  bool first_frequency = true;
  for (const double omega : omegas) {
    FrequencyResult result;
    result.omega = omega;
    result.compressed = true;
    result.row_sum_seconds = first_frequency ? row_sum_seconds : 0.0;
    first_frequency = false;
    const Medium medium = make_medium(rho, lambda, mu, beta, omega);
    const PairIntegration pairs{view, medium, options.integration, free_term.method, free_term.rigid_alpha,
                                row_sums.data(), points.data()};
    result.hmatrix = solve_compressed(exec, tree, pairs, scale, conditions, options.hmatrix, guess, result.u, result.t);
    result.assembly_seconds = result.hmatrix.build_seconds;
    result.solve_seconds = result.hmatrix.solve_seconds;
    TREMOR_CHECK(result.hmatrix.gmres.converged, "GMRES did not converge at ", omega / (2.0 * std::numbers::pi),
                 " Hz: relative residual ", result.hmatrix.gmres.residual, " after ", result.hmatrix.gmres.iterations,
                 " iterations, where ", options.hmatrix.tolerance, " was asked for");
    if (n_points > 0) {
      start = Clock::now();
      DeviceArray<Complex> u(exec, std::span<const Complex>(result.u)), t(exec, std::span<const Complex>(result.t));
      DeviceArray<Complex> out(exec, 3 * n_points);
      interior_displacements(exec, view, medium, options.integration, device_points.data(), n_points,
                             u.data(), t.data(), out.data());
      result.interior = out.to_host();
      result.interior_seconds = seconds_since(start);
    }
    each(result);
  }
}

}  // namespace

void solve_frequencies(const Exec& exec, const BoundaryMesh& boundary, double rho, double lambda, double mu, double beta,
                       const std::vector<double>& omegas, const BoundaryConditions& conditions,
                       const SolverOptions& options, const std::vector<double>& interior_points,
                       const FrequencyObserver& each) {
  TREMOR_CHECK(interior_points.size() % 3 == 0, "interior points need 3 coordinates each");
  for (const double omega : omegas)
    TREMOR_CHECK(omega >= 0.0, "frequency ", omega, " rad/s: frequencies must be positive (0 for the static problem)");
  const Index n_points = static_cast<Index>(interior_points.size() / 3);
  const Index m = first_nodes(boundary, options.elements).back();
  const Index n_dof = 3 * m;
  if (options.method == SolverMethod::Compressed) {
    solve_compressed_frequencies(exec, boundary, rho, lambda, mu, beta, omegas, conditions, options, interior_points,
                                 each);
    return;
  }
  check_node_count(m);
  TREMOR_CHECK(static_cast<Index>(conditions.kind.size()) == n_dof &&
                   static_cast<Index>(conditions.value.size()) == n_dof,
               "boundary conditions for ", conditions.kind.size() / 3, " nodes, the boundary has ", m);
  const std::vector<Prescribed>& node_kind = conditions.kind;
  const std::vector<Complex>& node_value = conditions.value;

  const DeviceBoundary device_boundary(exec, boundary, options.elements);
  const BoundaryView view = device_boundary.view();
  DeviceArray<Prescribed> kind(exec, std::span<const Prescribed>(node_kind));
  DeviceArray<Complex> value(exec, std::span<const Complex>(node_value));
  DeviceArray<double> points(exec, std::span<const double>(interior_points));

  DeviceArray<Complex> row_sums;
  double row_sum_seconds = 0.0;
  const FreeTermChoice& free_term = options.free_term;
  if (free_term.method == FreeTerm::RigidBody) {
    // Frequency-independent: the static kernel with the (complex, hysteretic) moduli.
    const auto start = Clock::now();
    row_sums = static_row_sums(exec, view, make_medium(rho, lambda, mu, beta, 0.0), options.integration);
    row_sum_seconds = seconds_since(start);
  }
  bool first_frequency = true;
  for (const double omega : omegas) {
    FrequencyResult result;
    result.omega = omega;
    result.row_sum_seconds = first_frequency ? row_sum_seconds : 0.0;
    first_frequency = false;
    const Medium medium = make_medium(rho, lambda, mu, beta, omega);
    // H and G: 2 x 9 m^2 complex values in exec's space; A is written over H.
    DeviceArray<Complex> H(exec, n_dof * n_dof), G(exec, n_dof * n_dof), b(exec, n_dof);
    auto start = Clock::now();
    assemble(exec, view, medium, options.integration, free_term.method, free_term.rigid_alpha, row_sums.data(),
             H.data(), G.data());
    result.assembly_seconds = seconds_since(start);

    start = Clock::now();
    rearrange(exec, n_dof, kind.data(), value.data(), H.data(), G.data(), b.data());
    G = DeviceArray<Complex>();  // the GPU's memory goes to the factorisation
    result.solve = solve_dense(exec, n_dof, 1, H.data(), b.data());
    result.solve_seconds = seconds_since(start);

    // x holds the unknown of each component: u where the traction was given, t where u was.
    const std::vector<Complex> x = b.to_host();
    result.u.resize(static_cast<std::size_t>(n_dof));
    result.t.resize(static_cast<std::size_t>(n_dof));
    for (std::size_t k = 0; k < static_cast<std::size_t>(n_dof); ++k) {
      const bool traction_given = node_kind[k] == Prescribed::Traction;
      result.u[k] = traction_given ? x[k] : node_value[k];
      result.t[k] = traction_given ? node_value[k] : x[k];
    }
    if (n_points > 0) {
      start = Clock::now();
      DeviceArray<Complex> u(exec, std::span<const Complex>(result.u)), t(exec, std::span<const Complex>(result.t));
      DeviceArray<Complex> out(exec, 3 * n_points);
      interior_displacements(exec, view, medium, options.integration, points.data(), n_points, u.data(), t.data(),
                             out.data());
      result.interior = out.to_host();
      result.interior_seconds = seconds_since(start);
    }
    each(result);
  }
}

std::vector<FrequencyResult> solve_frequencies(const Exec& exec, const BoundaryMesh& boundary, double rho, double lambda,
                                               double mu, double beta, const std::vector<double>& omegas,
                                               const BoundaryConditions& conditions, const SolverOptions& options,
                                               const std::vector<double>& interior_points) {
  std::vector<FrequencyResult> results;
  solve_frequencies(exec, boundary, rho, lambda, mu, beta, omegas, conditions, options, interior_points,
                    [&](FrequencyResult& r) { results.push_back(std::move(r)); });
  return results;
}

BoundaryConditions conditions_at_nodes(const BoundaryMesh& boundary, ElementOrder order,
                                       const BoundaryConditions& per_element,
                                       const std::vector<std::optional<Complex>>& pressure) {
  const Index n = boundary.n_elements();
  TREMOR_CHECK(static_cast<Index>(per_element.kind.size()) == 3 * n &&
                   static_cast<Index>(per_element.value.size()) == 3 * n,
               "boundary conditions for ", per_element.kind.size() / 3, " elements, the boundary has ", n);
  TREMOR_CHECK(pressure.empty() || static_cast<Index>(pressure.size()) == n, "pressures for ", pressure.size(),
               " elements, the boundary has ", n);
  const std::vector<Index> first = first_nodes(boundary, order);
  const Index* mids = boundary.quadratic() ? boundary.mid_nodes.data() : nullptr;
  BoundaryConditions out;
  out.kind.resize(3 * static_cast<std::size_t>(first.back()));
  out.value.resize(out.kind.size());
  for (Index e = 0; e < n; ++e) {
    const std::size_t ei = static_cast<std::size_t>(e);
    const bool turning = mids && !pressure.empty() && pressure[ei].has_value();
    const ElementNodes nodes = gather_element(boundary.coordinates.data(), boundary.connectivity.data(), mids, e);
    for (Index p = first[ei]; p < first[ei + 1]; ++p) {
      double normal[3] = {0, 0, 0};
      if (turning) {
        double st[2], x[3];
        node_reference(order, nodes.n_vertices, static_cast<int>(p - first[ei]), st);
        element_map(nodes, st[0], st[1], x, normal);
        const double length = std::sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
        for (double& c : normal) c /= length;
      }
      for (int c = 0; c < 3; ++c) {
        out.kind[static_cast<std::size_t>(3 * p + c)] = per_element.kind[3 * ei + static_cast<std::size_t>(c)];
        out.value[static_cast<std::size_t>(3 * p + c)] =
            turning ? -(*pressure[ei]) * normal[c] : per_element.value[3 * ei + static_cast<std::size_t>(c)];
      }
    }
  }
  return out;
}

std::vector<double> node_positions(const BoundaryMesh& boundary, ElementOrder order) {
  const Exec host = Exec::serial();
  const DeviceBoundary nodes(host, boundary, order);
  std::vector<double> out(3 * static_cast<std::size_t>(nodes.n_nodes()));
  collocation_points(host, nodes.view(), out.data());
  return out;
}

std::vector<double> node_areas(const BoundaryMesh& boundary, ElementOrder order) {
  const std::vector<Index> first = first_nodes(boundary, order);
  std::vector<double> out(static_cast<std::size_t>(first.back()), 0.0);
  // Bilinear N times a bilinear |j|: exact with 4 points; quadratic N times a curved element's
  // |j| (not a polynomial): 6 points.
  const GaussRule rule = gauss_rule(boundary.quadratic() ? 6 : 4);
  const Index* mids = boundary.quadratic() ? boundary.mid_nodes.data() : nullptr;
  for (Index e = 0; e < boundary.n_elements(); ++e) {
    const ElementNodes nodes = gather_element(boundary.coordinates.data(), boundary.connectivity.data(), mids, e);
    double* area = out.data() + first[static_cast<std::size_t>(e)];
    integrate_piece(nodes, whole_element(nodes.n_vertices), rule, 0, 1,
                    [&](const double* st, const double*, const double* j, double w) {
                      double N[max_element_nodes];
                      shape_values(order, nodes, st[0], st[1], N);
                      const double dS = w * std::sqrt(j[0] * j[0] + j[1] * j[1] + j[2] * j[2]);
                      for (int b = 0; b < nodes_per_element(order, nodes); ++b) area[b] += N[b] * dS;
                    });
  }
  return out;
}

std::vector<Complex> element_centre_values(const BoundaryMesh& boundary, ElementOrder order,
                                           const std::vector<Complex>& nodal) {
  const std::vector<Index> first = first_nodes(boundary, order);
  TREMOR_CHECK(nodal.size() == 3 * static_cast<std::size_t>(first.back()), "nodal values for ", nodal.size() / 3,
               " nodes, the boundary has ", first.back());
  std::vector<Complex> out(3 * static_cast<std::size_t>(boundary.n_elements()));
  for (Index e = 0; e < boundary.n_elements(); ++e) {
    const int vertices = boundary.n_vertices(e), geometry = boundary.n_geometry_nodes(e);
    double st[2], N[max_element_nodes];
    reference_centre(vertices, st);
    shape_values(order, vertices, geometry, st[0], st[1], N);
    for (int b = 0; b < nodes_per_element(order, vertices, geometry); ++b)
      for (int c = 0; c < 3; ++c)
        out[3 * static_cast<std::size_t>(e) + c] +=
            N[b] * nodal[3 * static_cast<std::size_t>(first[static_cast<std::size_t>(e)] + b) + c];
  }
  return out;
}

}  // namespace tremor::bem
