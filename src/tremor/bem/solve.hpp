#pragma once
// The boundary-element solver, frequency by frequency: H and G (assembly.hpp), the mixed boundary
// conditions rearranged into A x = b (each component at each collocation node has either its
// traction or its displacement prescribed; the other is the unknown), the dense LU solve (dense.hpp), and the displacements at interior points.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "tremor/backend/exec.hpp"
#include "tremor/bem/assembly.hpp"
#include "tremor/bem/boundary_mesh.hpp"
#include "tremor/bem/complex.hpp"
#include "tremor/bem/dense.hpp"
#include "tremor/bem/hmatrix.hpp"

namespace tremor::bem {

enum class Prescribed : std::uint8_t { Traction, Displacement };

// Per collocation node and component (3 per node): which quantity is given, and its value.
struct BoundaryConditions {
  std::vector<Prescribed> kind;
  std::vector<Complex> value;
};

struct FreeTermChoice {
  FreeTerm method = FreeTerm::RigidBody;
  double rigid_alpha = 0.0;  // 0: solid inside the closed surface; 1: solid outside
};

// Dense: H and G assembled whole on the Exec, LU-factored (dense.hpp). Compressed: the
// hierarchical matrix of [H G] built on the host and GMRES (hmatrix_source.hpp), memory and time
// growing as N log N.
enum class SolverMethod : std::uint8_t { Dense, Compressed };

struct SolverOptions {
  ElementOrder elements = ElementOrder::Constant;
  IntegrationOptions integration;
  FreeTermChoice free_term;
  SolverMethod method = SolverMethod::Dense;
  HMatrixOptions hmatrix;  // Compressed: tolerance (also GMRES's), admissibility, leaf size
  // Compressed: the cluster tree of this boundary, order and leaf size where the caller built it
  // already (plan_bem does, for its memory estimate); built here when null.
  std::shared_ptr<const ClusterTree> tree;
};

struct FrequencyResult {
  double omega = 0.0;
  std::vector<Complex> u, t;      // 3 per collocation node (assembly.hpp numbers them)
  std::vector<Complex> interior;  // 3 per interior point
  DenseSolveReport solve;          // Dense
  bool compressed = false;         // solved with the compressed matrix: the report below
  HMatrixSolveReport hmatrix;
  double assembly_seconds = 0.0, row_sum_seconds = 0.0, solve_seconds = 0.0, interior_seconds = 0.0;
};

// Called with each frequency's result as soon as it is solved; may throw to stop the run.
using FrequencyObserver = std::function<void(FrequencyResult&)>;

// Solves the boundary-element problem at each circular frequency omega (> 0; 0 is the static
// problem) in turn: H and G are assembled on exec, rearranged in place, factored and solved; or,
// with the compressed method, the hierarchical matrix is built on exec and solved by GMRES,
// each frequency starting from the previous one's solution (the cluster tree, the collocation
// points and the rigid-body sums are built once).
// Material: density rho, Lame lambda and mu, hysteretic damping ratio beta. The rigid-body sums
// are computed once (they do not depend on the frequency).
void solve_frequencies(const Exec& exec, const BoundaryMesh& boundary, double rho, double lambda, double mu, double beta,
                       const std::vector<double>& omegas, const BoundaryConditions& conditions,
                       const SolverOptions& options, const std::vector<double>& interior_points,
                       const FrequencyObserver& each);

// The same, every frequency's result returned.
std::vector<FrequencyResult> solve_frequencies(const Exec& exec, const BoundaryMesh& boundary, double rho, double lambda,
                                               double mu, double beta, const std::vector<double>& omegas,
                                               const BoundaryConditions& conditions, const SolverOptions& options,
                                               const std::vector<double>& interior_points);

// Conditions given per element (3 per element), the same at each of its nodes; but where
// `pressure` (empty, or one per element) holds a value p for a curved element, the traction at each
// of its nodes is -p n with the surface's normal there (a curved element's normal turns across it).
BoundaryConditions conditions_at_nodes(const BoundaryMesh& boundary, ElementOrder order,
                                       const BoundaryConditions& per_element,
                                       const std::vector<std::optional<Complex>>& pressure = {});

// The collocation nodes' positions, 3 per node.
std::vector<double> node_positions(const BoundaryMesh& boundary, ElementOrder order);

// int_S N_p dS of each collocation node p: the area a nodal traction acts on (a resultant force
// is sum_p t_p of these).
std::vector<double> node_areas(const BoundaryMesh& boundary, ElementOrder order);

// Nodal values (3 per node) at each element's reference centre (3 per element): the element's
// value for constant elements, the interpolated centre value for linear ones.
std::vector<Complex> element_centre_values(const BoundaryMesh& boundary, ElementOrder order,
                                           const std::vector<Complex>& nodal);

}  // namespace tremor::bem
