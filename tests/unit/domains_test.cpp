// Domain decomposition (partition/domains.hpp): every element in exactly one subdomain, balanced
// parts, each subdomain's nodes owned first and shared last, interface elements first, and the
// same subdomains on every call.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "support/support.hpp"
#include "tremor/mesh/elevate.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/partition/domains.hpp"

namespace tremor::partition {
namespace TREMOR_TEST_FILE {

// The structure every decomposition must have, checked against the mesh itself.
void expect_consistent(const Mesh& mesh, const Decomposition& d) {
  const Index n_elements = mesh.n_elements();
  ASSERT_EQ(static_cast<Index>(d.element_domain.size()), n_elements);
  // Every element is listed by its subdomain, once.
  std::vector<int> listed(static_cast<std::size_t>(n_elements), 0);
  for (int s = 0; s < d.n_domains(); ++s)
    for (const Index e : d.domains[static_cast<std::size_t>(s)].elements) {
      EXPECT_EQ(d.element_domain[static_cast<std::size_t>(e)], s);
      ++listed[static_cast<std::size_t>(e)];
    }
  EXPECT_TRUE(std::all_of(listed.begin(), listed.end(), [](int n) { return n == 1; }));
  // The subdomains using each node, from the elements.
  std::vector<std::set<int>> users(static_cast<std::size_t>(mesh.n_nodes()));
  for (Index e = 0; e < n_elements; ++e) {
    const ElementRef ref = mesh.locate(e);
    for (const Index node : mesh.blocks[static_cast<std::size_t>(ref.block)].nodes(ref.element))
      users[static_cast<std::size_t>(node)].insert(d.element_domain[static_cast<std::size_t>(e)]);
  }
  for (Index node = 0; node < mesh.n_nodes(); ++node)
    EXPECT_EQ(d.node_multiplicity[static_cast<std::size_t>(node)], static_cast<int>(users[static_cast<std::size_t>(node)].size()));
  for (int s = 0; s < d.n_domains(); ++s) {
    const Subdomain& domain = d.domains[static_cast<std::size_t>(s)];
    std::set<Index> expected;
    for (Index node = 0; node < mesh.n_nodes(); ++node)
      if (users[static_cast<std::size_t>(node)].count(s) > 0) expected.insert(node);
    EXPECT_EQ(std::set<Index>(domain.nodes.begin(), domain.nodes.end()), expected);
    EXPECT_EQ(domain.nodes.size(), expected.size());  // no node twice
    // Owned nodes, then shared nodes, each group in the model's order; likewise the interface
    // elements, then the rest.
    const auto owned_end = domain.nodes.begin() + domain.n_owned;
    EXPECT_TRUE(std::is_sorted(domain.nodes.begin(), owned_end));
    EXPECT_TRUE(std::is_sorted(owned_end, domain.nodes.end()));
    const auto interface_end = domain.elements.begin() + domain.n_interface;
    EXPECT_TRUE(std::is_sorted(domain.elements.begin(), interface_end));
    EXPECT_TRUE(std::is_sorted(interface_end, domain.elements.end()));
    for (std::size_t i = 0; i < domain.nodes.size(); ++i) {
      const bool shared = users[static_cast<std::size_t>(domain.nodes[i])].size() > 1;
      EXPECT_EQ(shared, static_cast<Index>(i) >= domain.n_owned) << "subdomain " << s << ", local node " << i;
    }
    for (std::size_t k = 0; k < domain.elements.size(); ++k) {
      const ElementRef ref = mesh.locate(domain.elements[k]);
      const auto nodes = mesh.blocks[static_cast<std::size_t>(ref.block)].nodes(ref.element);
      const bool interface = std::any_of(nodes.begin(), nodes.end(),
                                         [&](Index n) { return users[static_cast<std::size_t>(n)].size() > 1; });
      EXPECT_EQ(interface, static_cast<Index>(k) < domain.n_interface) << "subdomain " << s << ", element " << k;
    }
  }
}

TEST(Domains, SplitsABoxIntoBalancedSubdomainsWithSharedNodesLast) {
  const Mesh mesh = generate_box({0, 0, 0}, {1, 1, 0.25}, {12, 12, 3}, ElementType::Hex8);
  for (const int n : {1, 2, 3, 4}) {
    SCOPED_TRACE(n);
    const Decomposition d = decompose(mesh, n);
    ASSERT_EQ(d.n_domains(), n);
    expect_consistent(mesh, d);
    // METIS balances the element weights to within its default 3% (here every element weighs the
    // same), plus one element of rounding.
    const double mean = static_cast<double>(mesh.n_elements()) / n;
    for (const Subdomain& domain : d.domains) EXPECT_LE(static_cast<double>(domain.elements.size()), 1.03 * mean + 1);
    if (n == 1) {
      EXPECT_EQ(d.domains[0].n_shared(), 0);
      EXPECT_EQ(d.domains[0].n_interface, 0);
    } else {
      // A k-way cut of a 12 x 12 x 3 box shares a few planes of nodes, far fewer than all of them.
      for (const Subdomain& domain : d.domains) {
        EXPECT_GT(domain.n_shared(), 0);
        EXPECT_LT(domain.n_shared(), static_cast<Index>(domain.nodes.size()) / 2);
      }
    }
    // The same subdomains on a second call (METIS's seed is fixed), and METIS's answer alone is
    // the same as the decomposition's.
    EXPECT_EQ(decompose(mesh, n).element_domain, d.element_domain);
    EXPECT_EQ(element_domains(mesh, n), d.element_domain);
  }
}

TEST(Domains, WeighsElementsByTheirCost) {
  // Two blocks: the left half of a strip costs ten times the right half per element; two
  // subdomains of equal cost put far fewer elements on the left.
  Mesh mesh = generate_rectangle({0, 0}, {2, 0.1}, {80, 4}, ElementType::Quad4);
  std::vector<double> cost(static_cast<std::size_t>(mesh.n_elements()));
  for (Index e = 0; e < mesh.n_elements(); ++e) {
    const ElementRef ref = mesh.locate(e);
    const Index first = mesh.blocks[static_cast<std::size_t>(ref.block)].nodes(ref.element)[0];
    cost[static_cast<std::size_t>(e)] = mesh.node(first)[0] < 1.0 ? 10.0 : 1.0;
  }
  const Decomposition d = decompose(mesh, 2, cost);
  expect_consistent(mesh, d);
  double domain_cost[2] = {0, 0};
  for (Index e = 0; e < mesh.n_elements(); ++e) domain_cost[d.element_domain[static_cast<std::size_t>(e)]] += cost[static_cast<std::size_t>(e)];
  // Equal halves of the total 1760 to METIS's 3% tolerance, where equal element counts would give
  // 1600 and 160.
  EXPECT_NEAR(domain_cost[0], domain_cost[1], 0.07 * (domain_cost[0] + domain_cost[1]) / 2);
}

TEST(Domains, GllElementsShareWholeFaces) {
  const Mesh mesh = generate_box({0, 0, 0}, {1, 1, 0.5}, {4, 4, 2}, ElementType::HexGLL, 3);
  const Decomposition d = decompose(mesh, 3);
  expect_consistent(mesh, d);
}

// METIS sees an element's corners only: a mesh raised to GLL order 4 splits exactly as the hex8
// (quad4) mesh it came from, whose corners it keeps, and the faces it shares are whole.
TEST(Domains, AMeshRaisedToGllOrderSplitsAsItsLinearMesh) {
  for (const Mesh& linear : {generate_box({0, 0, 0}, {1, 1, 0.25}, {10, 9, 3}, ElementType::Hex8),
                             generate_rectangle({0, 0}, {2, 1}, {20, 11}, ElementType::Quad4)}) {
    const Mesh raised = OrderElevation(linear, 4, "box").mesh();
    SCOPED_TRACE(raised.dim());
    for (const int n : {2, 3, 4}) {
      const Decomposition d = decompose(raised, n);
      expect_consistent(raised, d);
      EXPECT_EQ(d.element_domain, decompose(linear, n).element_domain) << n << " subdomains";
    }
  }
}

TEST(Domains, RefusesImpossibleRequests) {
  const Mesh mesh = generate_rectangle({0, 0}, {1, 1}, {2, 2}, ElementType::Quad4);
  test::expect_contains(test::error_of([&] { (void)decompose(mesh, 0); }), {"at least 1, got 0"});
  test::expect_contains(test::error_of([&] { (void)decompose(mesh, 5); }),
                        {"5 subdomains were asked for a mesh of 4 elements"});
  const std::vector<double> short_list(3, 1.0), negative{1.0, -1.0, 1.0, 1.0};
  test::expect_contains(test::error_of([&] { (void)decompose(mesh, 2, short_list); }), {"3 values for 4 elements"});
  test::expect_contains(test::error_of([&] { (void)decompose(mesh, 2, negative); }),
                        {"element cost -1 of element 2 must be a positive number"});
}

}  // namespace
}  // namespace tremor::partition
