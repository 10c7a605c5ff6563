// The PML's mass side at the layer's nodes (explicit/pml.hpp PmlNodeProfile): d and alpha averaged
// as the lumped mass weighs the points of the node's elements, against the integrals by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tremor/explicit/pml.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace {

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

}  // namespace
}  // namespace tremor
