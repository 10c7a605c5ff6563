// The compressed boundary-element solver (bem/hmatrix.hpp) on the GPU against the host: the near
// field, ACA's rows and columns integrated by CUDA, the blocks stored and the products run there,
// against the same solve on OpenMP and the dense one. ACA picks its pivots from computed values,
// so rounding (the GPU's fused multiply-adds) may pick other pivots and give another approximation
// of the same accuracy: the solutions agree within 10x the tolerance, as compressed and dense do.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "support/support.hpp"
#include "tremor/bem/generate.hpp"
#include "tremor/bem/solve.hpp"

namespace tremor::bem {
namespace TREMOR_TEST_FILE {

struct Case {
  const char* name;
  BoundaryMesh mesh;
  ElementOrder order;
  FreeTermChoice free_term;
};

// The largest difference of two solutions' u (and t) relative to the largest |u| (|t|).
double difference(const std::vector<Complex>& a, const std::vector<Complex>& b) {
  double error = 0, largest = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    error = std::max(error, abs(a[k] - b[k]));
    largest = std::max(largest, abs(b[k]));
  }
  return largest > 0 ? error / largest : error;
}

TEST(BemHMatrixParityGpu, CudaMatchesTheHost) {
  TREMOR_REQUIRE_GPU();
  BoundaryMesh cavity = sphere(1.0, 3, {ElementShape::Quadrilateral, 2});
  flip_orientation(cavity);
  const Case cases[] = {
      {"cavity, 9-node quadrilaterals", cavity, ElementOrder::Quadratic, {FreeTerm::RigidBody, 1.0}},
      {"foundation, linear", halfspace_patch(8.0, 8.0, 8, 8, ElementShape::Quadrilateral, std::array<double, 2>{2.0, 2.0}),
       ElementOrder::Linear, {FreeTerm::Direct, 0.0}},
  };
  for (const Case& c : cases) {
    const Index n = first_nodes(c.mesh, c.order).back();
    const std::vector<Index> first = first_nodes(c.mesh, c.order);
    BoundaryConditions bc;
    bc.kind.assign(3 * static_cast<std::size_t>(n), Prescribed::Traction);
    bc.value.assign(bc.kind.size(), Complex());
    std::vector<char> pushed(static_cast<std::size_t>(c.mesh.n_elements()), 0);
    if (c.mesh.element_sets.count("foundation"))
      for (const Index e : c.mesh.element_sets.at("foundation")) pushed[static_cast<std::size_t>(e)] = 1;
    for (Index e = 0; e < c.mesh.n_elements(); ++e) {
      const ElementGeometry g = element_geometry(c.mesh, e);
      for (Index p = first[static_cast<std::size_t>(e)]; p < first[static_cast<std::size_t>(e) + 1]; ++p)
        for (int k = 0; k < 3; ++k) {
          const std::size_t at = 3 * static_cast<std::size_t>(p) + static_cast<std::size_t>(k);
          if (pushed[static_cast<std::size_t>(e)]) {
            bc.kind[at] = Prescribed::Displacement;
            bc.value[at] = Complex(k == 2 ? 1e-3 : 0.0);
          } else if (c.free_term.method == FreeTerm::RigidBody) {
            bc.value[at] = Complex(-1e5 * g.normal[static_cast<std::size_t>(k)]);  // a pressure in the cavity
          }
        }
    }
    SolverOptions dense{c.order, {}, c.free_term, SolverMethod::Dense, {}, {}};
    SolverOptions compressed = dense;
    compressed.method = SolverMethod::Compressed;
    compressed.hmatrix.leaf_size = 2;  // admissible blocks at this size
    const std::vector<double> omegas{300.0, 400.0};
    const auto exact = solve_frequencies(Exec::openmp(), c.mesh, 2000.0, 1e8, 1e8, 0.05, omegas, bc, dense, {});
    const auto host = solve_frequencies(Exec::openmp(), c.mesh, 2000.0, 1e8, 1e8, 0.05, omegas, bc, compressed, {});
    const auto gpu = solve_frequencies(Exec::cuda(), c.mesh, 2000.0, 1e8, 1e8, 0.05, omegas, bc, compressed, {});
    for (std::size_t f = 0; f < omegas.size(); ++f) {
      const double u_host = difference(gpu[f].u, host[f].u), t_host = difference(gpu[f].t, host[f].t);
      const double u_dense = difference(gpu[f].u, exact[f].u), t_dense = difference(gpu[f].t, exact[f].t);
      std::printf("%s, omega %g: GPU against OpenMP u %.2e t %.2e, against dense u %.2e t %.2e; GMRES %d and %d "
                  "iterations, ranks up to %d and %d\n",
                  c.name, omegas[f], u_host, t_host, u_dense, t_dense, gpu[f].hmatrix.gmres.iterations,
                  host[f].hmatrix.gmres.iterations, static_cast<int>(gpu[f].hmatrix.stats.max_rank),
                  static_cast<int>(host[f].hmatrix.stats.max_rank));
      EXPECT_GT(gpu[f].hmatrix.stats.low_rank_blocks, 0) << c.name;  // ACA ran on the GPU's entries
      // 10x the default tolerance (1e-5), as the compressed solver against the dense one.
      EXPECT_LT(u_host, 1e-4) << c.name;
      EXPECT_LT(t_host, 1e-4) << c.name;
      EXPECT_LT(u_dense, 1e-4) << c.name;
      EXPECT_LT(t_dense, 1e-4) << c.name;
    }
  }
}

}  // namespace
}  // namespace tremor::bem
