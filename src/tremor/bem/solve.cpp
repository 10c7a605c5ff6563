#include "tremor/bem/solve.hpp"

#include <chrono>
#include <span>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"

namespace tremor::bem {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

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

}  // namespace

std::vector<FrequencyResult> solve_frequencies(const Exec& exec, const BoundaryMesh& boundary, double rho, double lambda,
                                               double mu, double beta, const std::vector<double>& omegas,
                                               const BoundaryConditions& conditions, const IntegrationOptions& options,
                                               const FreeTermChoice& free_term,
                                               const std::vector<double>& interior_points) {
  const Index n = boundary.n_elements();
  const Index n_dof = 3 * n;
  TREMOR_CHECK(static_cast<Index>(conditions.kind.size()) == n_dof && static_cast<Index>(conditions.value.size()) == n_dof,
               "boundary conditions for ", conditions.kind.size() / 3, " elements, the boundary has ", n);
  TREMOR_CHECK(interior_points.size() % 3 == 0, "interior points need 3 coordinates each");
  const Index n_points = static_cast<Index>(interior_points.size() / 3);
  check_element_count(n);

  DeviceArray<double> coordinates(exec, std::span<const double>(boundary.coordinates));
  DeviceArray<Index> connectivity(exec, std::span<const Index>(boundary.connectivity));
  const BoundaryView view{coordinates.data(), connectivity.data(), n};
  DeviceArray<Prescribed> kind(exec, std::span<const Prescribed>(conditions.kind));
  DeviceArray<Complex> value(exec, std::span<const Complex>(conditions.value));
  DeviceArray<double> points(exec, std::span<const double>(interior_points));

  std::vector<FrequencyResult> results;
  DeviceArray<Complex> row_sums;
  double row_sum_seconds = 0.0;
  if (free_term.method == FreeTerm::RigidBody) {
    // Frequency-independent: the static kernel with the (complex, hysteretic) moduli.
    const auto start = std::chrono::steady_clock::now();
    row_sums = static_row_sums(exec, view, make_medium(rho, lambda, mu, beta, 0.0), options);
    row_sum_seconds = seconds_since(start);
  }
  for (const double omega : omegas) {
    TREMOR_CHECK(omega >= 0.0, "frequency ", omega, " rad/s: frequencies must be positive (0 for the static problem)");
    FrequencyResult result;
    result.omega = omega;
    result.row_sum_seconds = results.empty() ? row_sum_seconds : 0.0;
    const Medium medium = make_medium(rho, lambda, mu, beta, omega);
    // H and G: 2 x 9 n^2 complex values in exec's space; A is written over H.
    DeviceArray<Complex> H(exec, 9 * n * n), G(exec, 9 * n * n), b(exec, n_dof);
    auto start = std::chrono::steady_clock::now();
    assemble_constant(exec, view, medium, options, free_term.method, free_term.rigid_alpha, row_sums.data(), H.data(),
                      G.data());
    result.assembly_seconds = seconds_since(start);

    start = std::chrono::steady_clock::now();
    rearrange(exec, n_dof, kind.data(), value.data(), H.data(), G.data(), b.data());
    G = DeviceArray<Complex>();  // the GPU's memory goes to the factorisation
    result.solve = solve_dense(exec, n_dof, 1, H.data(), b.data());
    result.solve_seconds = seconds_since(start);

    // x holds the unknown of each component: u where the traction was given, t where u was.
    const std::vector<Complex> x = b.to_host();
    result.u.resize(n_dof);
    result.t.resize(n_dof);
    for (Index k = 0; k < n_dof; ++k) {
      const bool traction_given = conditions.kind[k] == Prescribed::Traction;
      result.u[k] = traction_given ? x[k] : conditions.value[k];
      result.t[k] = traction_given ? conditions.value[k] : x[k];
    }
    if (n_points > 0) {
      start = std::chrono::steady_clock::now();
      DeviceArray<Complex> u(exec, std::span<const Complex>(result.u)), t(exec, std::span<const Complex>(result.t));
      DeviceArray<Complex> out(exec, 3 * n_points);
      interior_displacements(exec, view, medium, options, points.data(), n_points, u.data(), t.data(), out.data());
      result.interior = out.to_host();
      result.interior_seconds = seconds_since(start);
    }
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace tremor::bem
