#pragma once
// The boundary-element system through the hierarchical matrix (hmatrix.hpp): H and G side by side,
// [H s G], as its EntrySource, their entries integrated pair by pair where ACA and the near field
// ask for them, a batch per launch (integrate_pairs); and the mixed boundary conditions solved by
// GMRES on it.
//
// With u given on some components and t on the others, A x = b has A's columns from H where u is
// unknown and from -G where t is, b = G t_given - H u_given: both are products of [H s G] with a
// vector of 6 values per node, so one compressed matrix gives both. G's columns are scaled by
// s = mu / h (h the mean element diameter): near the diagonal G ~ H r / mu, and ACA's relative
// accuracy is of each block as a whole, which would lose G's columns beside H's otherwise; the
// traction unknowns are t / s.
#include <algorithm>
#include <vector>

#include "tremor/bem/assembly.hpp"
#include "tremor/bem/hmatrix.hpp"
#include "tremor/bem/solve.hpp"

namespace tremor::bem {

// The Gauss points per direction of ACA's rows and columns. Their pairs lie in admissible blocks,
// never on the collocation point's element, and the adaptive subdivision keeps every piece at
// least near_ratio (2) diameters from the point: there the integrand is analytic within a Bernstein
// ellipse of rho >= 4 + sqrt(15) = 7.9 (reference coordinates), and g points err by about
// rho^(-2g) = 1e-9 at g = 5, far below the tolerances (>= 1e-7 is asked for in practice); the
// near field keeps the full rule. 25 points a piece instead of 64, one warp a pair on a GPU.
constexpr int far_gauss = 5;

class PairSource : public EntrySource {
 public:
  // `pairs` in exec's memory space, where the pairs are integrated; the tree on the host (its
  // numbering copied to exec, where each request is expanded into its pairs).
  PairSource(const Exec& exec, const ClusterTree& tree, const PairIntegration& pairs, double g_scale);
  int width() const override { return 6; }
  void rows(std::span<const Request> requests) const override;
  void columns(std::span<const Request> requests) const override;
  void blocks(const Exec& exec, std::span<const BlockRequest> requests, Scalar* out) const override;

  // The tree's numbering in exec's memory.
  struct DeviceTree {
    const Index* elements;   // per position, its element
    const Index* start;      // per position, its first tree node
    const Index* mesh_node;  // per tree node, its mesh node
  };

 private:
  Exec exec_;
  const ClusterTree& tree_;
  PairIntegration pairs_, far_;  // far_: the rows' and columns' (far_gauss)
  double g_scale_;
  DeviceArray<Index> elements_, start_, mesh_node_;
  DeviceTree device_tree() const { return {elements_.data(), start_.data(), mesh_node_.data()}; }
};

// The scale of G's columns: the shear modulus's magnitude over the mean element diameter.
double g_scale(const BoundaryMesh& mesh, const Medium& medium);

// Solves one frequency's mixed problem with the compressed matrix, its entries integrated and its
// products run on exec: u and t (3 per node, the mesh's numbering) of which `conditions` give one
// per component. `guess`, when not empty, starts GMRES (the previous frequency's solution, the
// tree's numbering, scaled unknowns) and returns this frequency's.
HMatrixSolveReport solve_compressed(const Exec& exec, const ClusterTree& tree, const PairIntegration& pairs,
                                    double g_scale, const BoundaryConditions& conditions,
                                    const HMatrixOptions& options, std::vector<Scalar>& guess, std::vector<Complex>& u,
                                    std::vector<Complex>& t);

}  // namespace tremor::bem
