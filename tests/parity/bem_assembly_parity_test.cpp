// H and G of the boundary-element solver on every backend against Serial: OpenMP computes each
// pair by the same body (the same bits); CUDA's two layouts within 1e-12 in the 1-norm (paper
// section 4 checked 1e-4, absolute), on a closed quadrilateral sphere with the rigid-body free term,
// a triangulated cavity, and an open half-space patch with the direct free term; constant elements
// and linear ones (a closed quadrilateral sphere, an open patch of triangles).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "support/support.hpp"
#include "tremor/bem/assembly.hpp"
#include "tremor/bem/generate.hpp"

namespace tremor::bem {
namespace TREMOR_TEST_FILE {

struct Case {
  const char* name;
  BoundaryMesh mesh;
  FreeTerm free_term;
  double alpha;
  double omega;
  ElementOrder order = ElementOrder::Constant;
};

// `small`: the OpenMP assembly check's smaller closed meshes (96 quadrilaterals, 108 triangles, 54
// linear quadrilaterals). OpenMP runs each pair through the same body as Serial, so the bits of
// every kind of pair (own element, near, far), not their number, are what it checks; with over 64
// elements (the first two) the rigid-body sums still add chunks of more than one element. The
// GPU's cases are those of its measured table (docs/bem.md).
std::vector<Case> cases(bool small = false) {
  std::vector<Case> out;
  out.push_back({"sphere quads, rigid body", sphere(1.0, small ? 4 : 6), FreeTerm::RigidBody, 0.0, 300.0});
  BoundaryMesh cavity = sphere(1.0, small ? 3 : 4, ElementShape::Triangle);
  flip_orientation(cavity);
  out.push_back({"cavity triangles, rigid body", std::move(cavity), FreeTerm::RigidBody, 1.0, 500.0});
  out.push_back({"half-space patch, direct", halfspace_patch(4.0, 3.0, 14, 11), FreeTerm::Direct, 0.0, 800.0});
  out.push_back({"sphere quads, linear, rigid body", sphere(1.0, small ? 3 : 4), FreeTerm::RigidBody, 0.0, 300.0,
                 ElementOrder::Linear});
  out.push_back({"half-space patch of triangles, linear, direct",
                 halfspace_patch(4.0, 3.0, 6, 5, ElementShape::Triangle), FreeTerm::Direct, 0.0, 800.0,
                 ElementOrder::Linear});
  out.push_back({"curved sphere quads, quadratic, rigid body", sphere(1.0, 2, {ElementShape::Quadrilateral, 2}),
                 FreeTerm::RigidBody, 0.0, 300.0, ElementOrder::Quadratic});
  BoundaryMesh curved_cavity = sphere(1.0, 2, {ElementShape::Triangle, 2});
  flip_orientation(curved_cavity);
  out.push_back({"curved cavity triangles, quadratic, direct", std::move(curved_cavity), FreeTerm::Direct, 1.0, 500.0,
                 ElementOrder::Quadratic});
  return out;
}

struct Matrices {
  std::vector<Complex> H, G, sums;
  Size rows = 0;
};

Matrices assemble(const Exec& exec, const Case& c, PairLayout layout) {
  const DeviceBoundary boundary(exec, c.mesh, c.order);
  const Index n = boundary.n_nodes();
  const BoundaryView view = boundary.view();
  IntegrationOptions options;
  options.layout = layout;
  const Medium medium = make_medium(2000.0, 2.0e8, 1.0e8, 0.03, c.omega);
  Matrices out;
  out.rows = 3 * static_cast<Size>(n);
  DeviceArray<Complex> sums;
  if (c.free_term == FreeTerm::RigidBody) {
    sums = static_row_sums(exec, view, make_medium(2000.0, 2.0e8, 1.0e8, 0.03, 0.0), options);
    out.sums = sums.to_host();
  }
  DeviceArray<Complex> H(exec, 9 * n * n), G(exec, 9 * n * n);
  // Poisoned: an entry the kernel does not write fails the comparison.
  std::vector<Complex> nan(static_cast<std::size_t>(9 * n * n), Complex(std::nan(""), std::nan("")));
  H.copy_from_host(nan);
  G.copy_from_host(nan);
  assemble(exec, view, medium, options, c.free_term, c.alpha, sums.data(), H.data(), G.data());
  out.H = H.to_host();
  out.G = G.to_host();
  return out;
}

// ||A - B||_1 / ||A||_1, column sums; NaN anywhere gives infinity.
double relative_norm_1(const std::vector<Complex>& a, const std::vector<Complex>& b, Size rows) {
  const Size cols = static_cast<Size>(a.size()) / rows;
  double diff = 0, ref = 0;
  for (Size j = 0; j < cols; ++j) {
    double d = 0, r = 0;
    for (Size i = 0; i < rows; ++i) {
      const Size k = i + j * rows;
      const double e = abs(a[k] - b[k]);
      if (!std::isfinite(e) || !std::isfinite(abs(a[k]))) return INFINITY;
      d += e;
      r += abs(a[k]);
    }
    diff = std::max(diff, d);
    ref = std::max(ref, r);
  }
  return diff / ref;
}

TEST(BemAssemblyParity, OpenMPMatchesSerialBitForBit) {
  for (const Case& c : cases(true)) {
    const Matrices s = assemble(Exec::serial(), c, PairLayout::ThreadPerPair);
    const Matrices o = assemble(Exec::openmp(), c, PairLayout::ThreadPerPair);
    EXPECT_TRUE(std::equal(s.H.begin(), s.H.end(), o.H.begin())) << c.name;
    EXPECT_TRUE(std::equal(s.G.begin(), s.G.end(), o.G.begin())) << c.name;
    EXPECT_EQ(relative_norm_1(s.H, o.H, s.rows), 0.0) << c.name;
  }
}

TEST(BemAssemblyParityGpu, CudaMatchesSerial) {
  TREMOR_REQUIRE_GPU();
  for (const Case& c : cases()) {
    const Matrices s = assemble(Exec::serial(), c, PairLayout::ThreadPerPair);
    for (const PairLayout layout : {PairLayout::ThreadPerPair, PairLayout::BlockPerPair}) {
      const Matrices g = assemble(Exec::cuda(), c, layout);
      const Size rows = s.rows;
      const double dh = relative_norm_1(s.H, g.H, rows), dg = relative_norm_1(s.G, g.G, rows);
      std::printf("%s, %s: ||H_cpu - H_gpu||_1 / ||H_cpu||_1 = %.2e, G %.2e\n", c.name,
                  layout == PairLayout::BlockPerPair ? "block per pair" : "thread per pair", dh, dg);
      // The same operations; the GPU contracts multiply-adds (FMA) and sums the block layout's
      // points in another order: rounding of sums of ~64 terms per piece, 1e-15 relative.
      EXPECT_LT(dh, 1e-12) << c.name;
      EXPECT_LT(dg, 1e-12) << c.name;
      if (!s.sums.empty()) {
        EXPECT_LT(relative_norm_1(s.sums, g.sums, 9), 1e-12) << c.name;
      }
    }
  }
}

// Interior displacements from a made-up boundary solution (every node and component different):
// chunked sums over the elements in a fixed order on every backend.
std::vector<Complex> interior(const Exec& exec, const Case& c) {
  const DeviceBoundary boundary(exec, c.mesh, c.order);
  const Index m = boundary.n_nodes();
  std::vector<Complex> u(3 * static_cast<std::size_t>(m)), t(u.size());
  for (std::size_t k = 0; k < u.size(); ++k) {
    const double d = static_cast<double>(k);
    u[k] = Complex(std::sin(0.7 * d), std::cos(1.3 * d));
    t[k] = Complex(1e5 * std::cos(0.3 * d), 1e5 * std::sin(0.9 * d));
  }
  const std::vector<double> points = {0.3, -0.2, 2.5, 1.9, 0.4, -0.7, -0.5, 0.1, -1.6, 3.0, 2.0, 1.0};
  DeviceArray<double> x(exec, std::span<const double>(points));
  DeviceArray<Complex> du(exec, std::span<const Complex>(u)), dt(exec, std::span<const Complex>(t)), out(exec, 12);
  interior_displacements(exec, boundary.view(), make_medium(2000.0, 2.0e8, 1.0e8, 0.03, c.omega), IntegrationOptions{},
                         x.data(), 4, du.data(), dt.data(), out.data());
  return out.to_host();
}

TEST(BemAssemblyParity, InteriorPointsOpenMPMatchesSerialBitForBit) {
  for (const Case& c : cases()) {
    const std::vector<Complex> s = interior(Exec::serial(), c), o = interior(Exec::openmp(), c);
    EXPECT_TRUE(std::equal(s.begin(), s.end(), o.begin())) << c.name;
  }
}

TEST(BemAssemblyParityGpu, InteriorPointsCudaMatchesSerial) {
  TREMOR_REQUIRE_GPU();
  for (const Case& c : cases()) {
    const std::vector<Complex> s = interior(Exec::serial(), c), g = interior(Exec::cuda(), c);
    double diff = 0, ref = 0;
    for (std::size_t k = 0; k < s.size(); ++k) {
      diff = std::max(diff, abs(s[k] - g[k]));
      ref = std::max(ref, abs(s[k]));
    }
    // The same sums in the same order; FMA contraction on the GPU: rounding.
    EXPECT_LT(diff, 1e-12 * ref) << c.name;
  }
}

}  // namespace
}  // namespace tremor::bem
