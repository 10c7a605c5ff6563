// The PML's mass side at the layer's nodes (explicit/pml.hpp PmlNodeProfile): d and alpha averaged
// as the lumped mass weighs the points of the node's elements, against the integrals by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <omp.h>

#include "tremor/explicit/pml.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/fem/elements.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::PmlNodeProfile;
using explicit_fe::pml_node_profile;

constexpr double d0 = 1000.0, alpha_max = 30.0;

// A layer 0.5 m thick on xmin of a 2 m square, d linear in depth (power 1): d = d0 X, alpha =
// alpha_max (1 - X), X = (0.5 - x) / 0.5.
PmlProfile xmin_layer() {
  PmlProfile profile;
  profile.dim = 2;
  PmlSide& side = profile.sides[0][0];
  side.active = true;
  side.inner = 0.5;
  side.thickness = 0.5;
  side.d0 = d0;
  side.alpha_max = alpha_max;
  side.power = 1.0;
  profile.alpha_rest = alpha_max;
  return profile;
}

// The place of the mesh's node at (x, y) in the profile's list, or -1.
int place_of(const Mesh& mesh, const PmlNodeProfile& nodes, double x, double y) {
  for (std::size_t i = 0; i < nodes.nodes.size(); ++i) {
    const auto at = mesh.node(nodes.nodes[i]);
    if (std::abs(at[0] - x) < 1e-9 && std::abs(at[1] - y) < 1e-9) return static_cast<int>(i);
  }
  return -1;
}

// Quad4 of h = 0.25 (two across the layer), lumped by row sums: the 2 x 2 Gauss rule integrates
// d N_a (quadratic along x) and d alpha N_a (cubic) exactly, so the averages are the integrals'.
TEST(PmlNodes, Quad4AveragesAreTheLumpedIntegrals) {
  const Mesh mesh = generate_rectangle({0.0, 0.0}, {2.0, 2.0}, {8, 8}, ElementType::Quad4, 1);
  const PmlNodeProfile nodes = pml_node_profile(mesh, xmin_layer());
  ASSERT_EQ(nodes.dim, 2);
  // The layer's elements' nodes: three columns of 9 (x = 0, 0.25, 0.5), the inner plane's too.
  EXPECT_EQ(nodes.size(), 27);
  EXPECT_TRUE(std::is_sorted(nodes.nodes.begin(), nodes.nodes.end()));
  constexpr double h = 0.25, L = 0.5;
  // (relative: sums of a few dozen terms of one sign)
  constexpr double tolerance = 1e-13;
  for (const double y : {0.0, 1.0, 2.0}) {  // along y the weights cancel, at the faces as inside
    // Inside the layer, a symmetric support: the hat's average of a linear d is d at the node;
    // alpha's d-weighted average of X (1 - X) over the hat, 5/12 (by hand), not 1/2.
    const int inside = place_of(mesh, nodes, 0.25, y);
    ASSERT_GE(inside, 0);
    EXPECT_NEAR(nodes.d[2 * static_cast<std::size_t>(inside)], 0.5 * d0, tolerance * d0);
    EXPECT_NEAR(nodes.alpha[2 * static_cast<std::size_t>(inside)], 5.0 / 12.0 * alpha_max, tolerance * alpha_max);
    // The inner plane, d = 0 at the node: int_0^h d0 (s / L) (1 - s / h) ds over the hat's h.
    const int inner = place_of(mesh, nodes, 0.5, y);
    ASSERT_GE(inner, 0);
    EXPECT_NEAR(nodes.d[2 * static_cast<std::size_t>(inner)], d0 * h / (6.0 * L), tolerance * d0);
    // The outer face, one-sided: d0 (1 - h / (3 L)).
    const int outer = place_of(mesh, nodes, 0.0, y);
    ASSERT_GE(outer, 0);
    EXPECT_NEAR(nodes.d[2 * static_cast<std::size_t>(outer)], d0 * (1.0 - h / (3.0 * L)), tolerance * d0);
    for (const int i : {inside, inner, outer}) EXPECT_EQ(nodes.d[2 * static_cast<std::size_t>(i) + 1], 0.0);
  }
  EXPECT_LT(place_of(mesh, nodes, 0.75, 1.0), 0);  // outside the layer's elements
}

// On GLL elements the lumping's points are the nodes: the profile at the node, and the nodes
// where it is not 0 (the inner plane's left out).
TEST(PmlNodes, GllNodesTakeTheProfileAtTheNode) {
  const Mesh mesh = generate_rectangle({0.0, 0.0}, {2.0, 2.0}, {4, 4}, ElementType::QuadGLL, 3);
  const PmlProfile profile = xmin_layer();
  const PmlNodeProfile nodes = pml_node_profile(mesh, profile);
  Index inside = 0;
  for (Index n = 0; n < mesh.n_nodes(); ++n) {
    const double x[3] = {mesh.node(n)[0], mesh.node(n)[1], 0.0};
    inside += profile.inside(x) ? 1 : 0;
  }
  ASSERT_EQ(nodes.size(), inside);
  for (std::size_t i = 0; i < nodes.nodes.size(); ++i) {
    const double x[3] = {mesh.node(nodes.nodes[i])[0], mesh.node(nodes.nodes[i])[1], 0.0};
    double d[3], alpha[3];
    profile.at(x, d, alpha);
    // (a weighted average of equal values: a rounding or two)
    EXPECT_NEAR(nodes.d[2 * i], d[0], 1e-14 * d0);
    EXPECT_NEAR(nodes.alpha[2 * i], alpha[0], 1e-14 * alpha_max);
  }
}

// A subdomain's numbering keeps each node's values; a damping per DOF from them.
TEST(PmlNodes, AnotherNumberingAndTheDamping) {
  const Mesh mesh = generate_rectangle({0.0, 0.0}, {2.0, 2.0}, {8, 8}, ElementType::Quad4, 1);
  const PmlNodeProfile whole = pml_node_profile(mesh, xmin_layer());
  // Local node i is the whole mesh's node n - 1 - i, of every other node.
  std::vector<Index> local_to_whole;
  for (Index n = mesh.n_nodes() - 1; n >= 0; n -= 2) local_to_whole.push_back(n);
  const PmlNodeProfile local = whole.in_numbering(local_to_whole);
  EXPECT_EQ(local.n_mesh_nodes, static_cast<Index>(local_to_whole.size()));
  EXPECT_TRUE(std::is_sorted(local.nodes.begin(), local.nodes.end()));
  Index kept = 0;
  for (const Index n : local_to_whole)
    kept += std::binary_search(whole.nodes.begin(), whole.nodes.end(), n) ? 1 : 0;
  ASSERT_EQ(local.size(), kept);
  for (std::size_t i = 0; i < local.nodes.size(); ++i) {
    const Index n = local_to_whole[static_cast<std::size_t>(local.nodes[i])];
    const auto at = static_cast<std::size_t>(std::lower_bound(whole.nodes.begin(), whole.nodes.end(), n) -
                                             whole.nodes.begin());
    EXPECT_EQ(local.d[2 * i], whole.d[2 * at]);
    EXPECT_EQ(local.alpha[2 * i], whole.alpha[2 * at]);
  }
  // rho sum d per DOF (two a node) at the layer's nodes; nothing elsewhere.
  const std::vector<double> mass(2 * static_cast<std::size_t>(mesh.n_nodes()), 2.0);
  std::vector<double> damping(mass.size(), 0.0);
  explicit_fe::add_pml_damping(whole, 1e-4, mass, damping);
  for (std::size_t i = 0; i < whole.nodes.size(); ++i)
    for (int c = 0; c < 2; ++c)
      EXPECT_DOUBLE_EQ(damping[2 * static_cast<std::size_t>(whole.nodes[i]) + static_cast<std::size_t>(c)],
                       2.0 * whole.d[2 * i]);
  EXPECT_EQ(std::count_if(damping.begin(), damping.end(), [](double v) { return v != 0.0; }),
            2 * static_cast<long>(whole.nodes.size()));
  // A fluid's mass, one a node; an array of another length is refused.
  EXPECT_EQ(explicit_fe::pml_node_mass(whole, std::vector<double>(static_cast<std::size_t>(mesh.n_nodes()), 3.0)),
            std::vector<double>(whole.nodes.size(), 3.0));
  EXPECT_THROW(explicit_fe::pml_node_mass(whole, std::vector<double>(5, 1.0)), Error);
}

// The profile sums each element's lumpings from shape functions tabled once a block, on the host's
// threads: the bits of the formula element by element (fem::lumped_mass of d and d alpha per
// stretched axis, of 1 for the volume, the shape functions evaluated at each point), on HRZ-lumped
// quad8 in a corner where two layers meet, on one thread and on several.
TEST(PmlNodes, TheTabledSumsAreTheFormulasBits) {
  const Mesh mesh = generate_rectangle({0.0, 0.0}, {2.0, 2.0}, {8, 8}, ElementType::Quad8, 2);
  PmlProfile profile = xmin_layer();
  PmlSide& bottom = profile.sides[1][0];  // and on ymin, its d quadratic in depth
  bottom = profile.sides[0][0];
  bottom.power = 2.0;
  using E = fem::Quad8;
  const auto rule = fem::lumping_rule<E>();
  const auto n_nodes = static_cast<std::size_t>(mesh.n_nodes());
  std::vector<double> volume(n_nodes, 0.0), d(2 * n_nodes, 0.0), d_alpha(2 * n_nodes, 0.0);
  std::vector<char> layer(n_nodes, 0);
  const ElementBlock& block = mesh.blocks.front();
  for (int pass = 0; pass < 2; ++pass)
    for (Index e = 0; e < block.n_elements(); ++e) {
      const auto nodes = block.nodes(e);
      double x[E::n_nodes * 2], m[E::n_nodes];
      mesh.element_coordinates(block, e, x);
      if (pass == 1) {
        if (std::none_of(nodes.begin(), nodes.end(), [&](Index a) { return layer[static_cast<std::size_t>(a)]; }))
          continue;
        fem::lumped_mass<E>(x, 1.0, rule, m);
        for (int a = 0; a < E::n_nodes; ++a) volume[static_cast<std::size_t>(nodes[a])] += m[a];
        continue;
      }
      std::vector<double> factors(static_cast<std::size_t>(4 * rule.n_points));
      int axes = 0;
      for (int q = 0; q < rule.n_points; ++q) {
        double N[E::n_nodes], at[3] = {0.0, 0.0, 0.0}, at_d[3], at_alpha[3];
        E::shape(rule.point(q), N);
        for (int a = 0; a < E::n_nodes; ++a)
          for (int c = 0; c < 2; ++c) at[c] += N[a] * x[a * 2 + c];
        profile.at(at, at_d, at_alpha);
        for (int c = 0; c < 2; ++c) {
          axes |= at_d[c] != 0.0 ? 1 << c : 0;
          factors[static_cast<std::size_t>(c * rule.n_points + q)] = at_d[c];
          factors[static_cast<std::size_t>((2 + c) * rule.n_points + q)] = at_d[c] * at_alpha[c];
        }
      }
      if (axes == 0) continue;
      for (int c = 0; c < 2; ++c) {
        if (!(axes >> c & 1)) continue;
        for (const int f : {c, 2 + c}) {
          fem::lumped_mass<E>(x, 1.0, rule, m, factors.data() + f * rule.n_points);
          for (int a = 0; a < E::n_nodes; ++a)
            (f < 2 ? d : d_alpha)[2 * static_cast<std::size_t>(nodes[a]) + static_cast<std::size_t>(c)] += m[a];
        }
      }
      for (const Index a : nodes) layer[static_cast<std::size_t>(a)] = 1;
    }
  std::vector<Index> want_nodes;
  std::vector<double> want_d, want_alpha;
  for (std::size_t a = 0; a < n_nodes; ++a) {
    if (!layer[a] || (d[2 * a] == 0.0 && d[2 * a + 1] == 0.0)) continue;
    want_nodes.push_back(static_cast<Index>(a));
    for (std::size_t c = 0; c < 2; ++c) {
      want_d.push_back(d[2 * a + c] / volume[a]);
      want_alpha.push_back(d[2 * a + c] > 0.0 ? d_alpha[2 * a + c] / d[2 * a + c] : profile.alpha_rest);
    }
  }
  ASSERT_GT(want_nodes.size(), 50u);  // both layers and their corner
  for (const int threads : {1, 0}) {
    SCOPED_TRACE(threads == 1 ? "one thread" : "the host's threads");
    const int before = omp_get_max_threads();
    if (threads == 1) omp_set_num_threads(1);
    const PmlNodeProfile got = pml_node_profile(mesh, profile);
    omp_set_num_threads(before);
    EXPECT_EQ(got.nodes, want_nodes);
    EXPECT_EQ(got.d, want_d);
    EXPECT_EQ(got.alpha, want_alpha);
  }
}

}  // namespace
}  // namespace tremor
