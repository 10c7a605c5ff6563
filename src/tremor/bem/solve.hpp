#pragma once
// One frequency of the boundary-element solver: H and G (assembly.hpp), the mixed boundary
// conditions rearranged into A x = b (each component of each element has either its traction or
// its displacement prescribed; the other is the unknown), the dense LU solve (dense.hpp), and the
// displacements at interior points.
#include <cstdint>
#include <vector>

#include "tremor/backend/exec.hpp"
#include "tremor/bem/assembly.hpp"
#include "tremor/bem/boundary_mesh.hpp"
#include "tremor/bem/complex.hpp"
#include "tremor/bem/dense.hpp"

namespace tremor::bem {

enum class Prescribed : std::uint8_t { Traction, Displacement };

// Per element and component (3 per element): which quantity is given, and its value.
struct BoundaryConditions {
  std::vector<Prescribed> kind;
  std::vector<Complex> value;
};

struct FreeTermChoice {
  FreeTerm method = FreeTerm::RigidBody;
  double rigid_alpha = 0.0;  // 0: solid inside the closed surface; 1: solid outside
};

struct FrequencyResult {
  double omega = 0.0;
  std::vector<Complex> u, t;      // 3 per element
  std::vector<Complex> interior;  // 3 per interior point
  DenseSolveReport solve;
  double assembly_seconds = 0.0, row_sum_seconds = 0.0, solve_seconds = 0.0, interior_seconds = 0.0;
};

// Solves the boundary-element problem at each circular frequency omega (> 0; 0 is the static
// problem) in turn: H and G are assembled on exec, rearranged in place, factored and solved.
// Material: density rho, Lame lambda and mu, hysteretic damping ratio beta. The rigid-body sums
// are computed once (they do not depend on the frequency).
std::vector<FrequencyResult> solve_frequencies(const Exec& exec, const BoundaryMesh& boundary, double rho, double lambda,
                                               double mu, double beta, const std::vector<double>& omegas,
                                               const BoundaryConditions& conditions, const IntegrationOptions& options,
                                               const FreeTermChoice& free_term,
                                               const std::vector<double>& interior_points);

}  // namespace tremor::bem
