// Reverse Cuthill-McKee (mesh/reorder.hpp) and node renumbering of a model (model/renumber.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "sparse_test_models.hpp"
#include "tremor/core/error.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/mesh/reorder.hpp"
#include "tremor/model/renumber.hpp"
#include "tremor/sparse/assemble.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

std::vector<Index> identity(Index n) {
  std::vector<Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  return order;
}

// A deterministic shuffle (Fisher-Yates on a hash, the same on every standard library).
std::vector<Index> shuffled(Index n, std::uint64_t seed) {
  std::vector<Index> order = identity(n);
  for (Index i = n - 1; i > 0; --i) {
    const double u = 0.5 * (test::hash_unit(seed * 1000003u + static_cast<std::uint64_t>(i)) + 1.0);  // [0, 1)
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(static_cast<Index>(u * (i + 1)))]);
  }
  return order;
}

bool is_permutation_of(const std::vector<Index>& order, Index n) {
  if (order.size() != static_cast<std::size_t>(n)) return false;
  std::vector<Index> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  return sorted == identity(n);
}

// A graph from undirected edges, each node its own neighbour (as node_graph lists it).
NodeGraph graph_of(Index n, const std::vector<std::pair<Index, Index>>& edges) {
  std::vector<std::vector<Index>> rows(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)].push_back(i);
  for (const auto& [a, b] : edges) {
    rows[static_cast<std::size_t>(a)].push_back(b);
    rows[static_cast<std::size_t>(b)].push_back(a);
  }
  NodeGraph graph;
  graph.offsets.push_back(0);
  for (auto& row : rows) {
    std::sort(row.begin(), row.end());
    graph.neighbours.insert(graph.neighbours.end(), row.begin(), row.end());
    graph.offsets.push_back(static_cast<Size>(graph.neighbours.size()));
  }
  return graph;
}

// The mesh with its nodes numbered in the order new_to_old (a model carries it through).
Mesh renumbered(const Mesh& mesh, const std::vector<Index>& new_to_old) {
  Model model;
  model.mesh = mesh;
  return renumber_nodes(model, new_to_old).mesh;
}

TEST(ReverseCuthillMcKee, PathNeedsAPeripheralStart) {
  // A path numbered 2 - 0 - 3 - 1 - 4. From node 0 (the middle) breadth-first search would give
  // bandwidth 2; George-Liu moves the start to an end (node 4), and RCM numbers the path in order.
  const NodeGraph graph = graph_of(5, {{2, 0}, {0, 3}, {3, 1}, {1, 4}});
  EXPECT_EQ(bandwidth(graph, identity(5)), 3);
  const auto order = reverse_cuthill_mckee(graph);
  EXPECT_EQ(order, (std::vector<Index>{2, 0, 3, 1, 4}));
  EXPECT_EQ(bandwidth(graph, order), 1);
  // A path numbered in order: Cuthill-McKee from node 0 gives 0 1 2 3, reversed.
  EXPECT_EQ(reverse_cuthill_mckee(graph_of(4, {{0, 1}, {1, 2}, {2, 3}})), (std::vector<Index>{3, 2, 1, 0}));
}

TEST(ReverseCuthillMcKee, SeveralComponents) {
  // A path 5 - 0 - 7 - 2, an isolated node 3, a triangle 1 - 4 - 6, a pair 8 - 9.
  const NodeGraph graph = graph_of(10, {{5, 0}, {0, 7}, {7, 2}, {1, 4}, {4, 6}, {6, 1}, {8, 9}});
  const auto order = reverse_cuthill_mckee(graph);
  ASSERT_TRUE(is_permutation_of(order, 10));
  // Each component occupies consecutive positions.
  const std::vector<std::vector<Index>> components = {{0, 2, 5, 7}, {3}, {1, 4, 6}, {8, 9}};
  const auto position = invert_permutation(order, 10, "test");
  for (const auto& component : components) {
    Index lo = 10, hi = -1;
    for (Index node : component) {
      lo = std::min(lo, position[static_cast<std::size_t>(node)]);
      hi = std::max(hi, position[static_cast<std::size_t>(node)]);
    }
    EXPECT_EQ(hi - lo + 1, static_cast<Index>(component.size())) << "component of node " << component.front();
  }
  // Path and pair numbered along themselves, triangle within 2.
  EXPECT_EQ(bandwidth(graph, order), 2);
  EXPECT_EQ(bandwidth(graph_of(6, {{5, 0}, {0, 3}, {3, 2}}), reverse_cuthill_mckee(graph_of(6, {{5, 0}, {0, 3}, {3, 2}}))),
            1);
}

// On structured meshes RCM gives a bandwidth close to the lexicographic one (one grid row, or
// plane in 3D, plus one). Not below it in general: the Cuthill-McKee levels
// from a corner are the shells of nodes at equal graph distance, which with diagonal couplings
// (quad and hex elements) are L-shaped, up to two rows long in 2D and three planes in 3D, and a
// node's neighbours lie in its own and the adjacent levels. Measured: 1.0 to 1.9 times the
// lexicographic bandwidth in 2D, 1.1 to 2.4 in 3D (3.0 on a 151^3 hex8 box); the bounds leave room
// above those.
constexpr double factor_2d = 3.0;
constexpr double factor_3d = 4.0;

TEST(ReverseCuthillMcKee, TwoMeshesSideBySide) {
  // Two rectangles in one mesh, no shared node: two components of a real mesh.
  Mesh mesh = generate_rectangle({0.0, 0.0}, {1.0, 1.0}, {6, 4}, ElementType::Quad4);
  const Mesh other = generate_rectangle({2.0, 0.0}, {1.0, 1.0}, {3, 5}, ElementType::Tri3);
  const Index offset = mesh.n_nodes();
  for (Index i = 0; i < other.n_nodes(); ++i) mesh.add_node(1000 + i, other.node(i));
  auto& block = mesh.block_for(ElementType::Tri3);
  for (Index node : other.blocks.front().connectivity) block.connectivity.push_back(node + offset);
  block.labels = other.blocks.front().labels;
  const NodeGraph graph = node_graph(mesh);
  const auto order = reverse_cuthill_mckee(graph);
  ASSERT_TRUE(is_permutation_of(order, mesh.n_nodes()));
  const auto position = invert_permutation(order, mesh.n_nodes(), "test");
  // All of one rectangle, then all of the other: the first one's positions are contiguous.
  const auto first = std::span<const Index>(position).first(static_cast<std::size_t>(offset));
  const auto [lo, hi] = std::minmax_element(first.begin(), first.end());
  EXPECT_EQ(*hi - *lo + 1, offset);
  EXPECT_LE(bandwidth(graph, order), factor_2d * bandwidth(graph, identity(mesh.n_nodes())));
}

// Randomly numbered structured meshes: RCM recovers a bandwidth close to the lexicographic one.
TEST(ReverseCuthillMcKee, RecoversStructuredBandwidth) {
  struct Case {
    Mesh mesh;
    double factor;
  };
  Case cases[] = {
      {generate_rectangle({0.0, 0.0}, {1.0, 1.0}, {30, 30}, ElementType::Quad4), factor_2d},
      {generate_rectangle({0.0, 0.0}, {1.0, 1.0}, {20, 20}, ElementType::Tri6), factor_2d},
      {generate_box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {8, 8, 8}, ElementType::Hex8), factor_3d},
      {generate_box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {5, 5, 5}, ElementType::Tet10), factor_3d},
  };
  for (const auto& c : cases) {
    const Index n = c.mesh.n_nodes();
    const Index natural = bandwidth(node_graph(c.mesh), identity(n));
    const Mesh random = renumbered(c.mesh, shuffled(n, 17));
    const NodeGraph graph = node_graph(random);
    const Index scrambled = bandwidth(graph, identity(n));
    const auto order = reverse_cuthill_mckee(graph);
    ASSERT_TRUE(is_permutation_of(order, n));
    const Index rcm = bandwidth(graph, order);
    EXPECT_GT(scrambled, n / 2);  // the shuffle did scramble
    EXPECT_LE(rcm, c.factor * natural);
    // Deterministic: the same order again.
    EXPECT_EQ(reverse_cuthill_mckee(graph), order);
  }
  // On a long strip RCM numbers across the short side: narrower than x-fastest numbering.
  const Mesh strip = generate_rectangle({0.0, 0.0}, {10.0, 1.0}, {100, 6}, ElementType::Quad4);
  const NodeGraph graph = node_graph(renumbered(strip, shuffled(strip.n_nodes(), 5)));
  EXPECT_LT(bandwidth(graph, reverse_cuthill_mckee(graph)), bandwidth(node_graph(strip), identity(strip.n_nodes())));
}

TEST(ReverseCuthillMcKee, BandwidthRefusesANonPermutation) {
  const NodeGraph graph = graph_of(3, {{0, 1}});
  EXPECT_THROW((void)bandwidth(graph, {0, 1}), Error);
  EXPECT_THROW((void)bandwidth(graph, {0, 1, 1}), Error);
  EXPECT_THROW((void)bandwidth(graph, {0, 1, 3}), Error);
  EXPECT_EQ(bandwidth(graph, {1, 2, 0}), 2);
}

// A model with every kind of node reference (and the sets of the generator).
Model referenced_model(ElementType type) {
  Model model = test::two_section_model(type, 1, test::cells_for(type), 0.2);
  const Mesh& mesh = model.mesh;
  model.title = "renumber";
  model.fixed.push_back({mesh.node_sets.at("xmin"), 0, 0.0, "", "fixed"});
  model.loads.push_back({{5, 2, 9}, 1, 3.5, "", "load"});
  model.histories.push_back({"h", {7, 3, 11}, {"U"}, 1, 0.0});
  PointSource source;
  source.nodes = {4, 1};
  source.direction = {0.0, 1.0, 0.0};
  source.signal.frequency = 1e5;
  source.signal.cycles = 3;
  model.point_sources.push_back(source);
  PrescribedDisplacement prescribed;
  prescribed.node_set = "ymax";
  prescribed.nodes = mesh.node_sets.at("ymax");
  prescribed.components = {0};
  prescribed.factor = {1.0, 0.0, 0.0};
  prescribed.signal.frequency = 1e5;
  prescribed.signal.cycles = 3;
  model.prescribed.push_back(prescribed);
  Receiver receiver;
  receiver.name = "r";
  receiver.nodes = {8, 0, 6};
  model.receivers.push_back(receiver);
  OutputSettings output;
  output.snapshot_every = 10;
  output.snapshot_nodes = {0, 3, 6, 10, 12};
  model.output = output;
  model.validate();
  return model;
}

void expect_same_nodes(const Model& a, const Model& b) {
  EXPECT_EQ(a.mesh.coordinates, b.mesh.coordinates);
  EXPECT_EQ(a.mesh.node_labels, b.mesh.node_labels);
  ASSERT_EQ(a.mesh.blocks.size(), b.mesh.blocks.size());
  for (std::size_t k = 0; k < a.mesh.blocks.size(); ++k) {
    EXPECT_EQ(a.mesh.blocks[k].connectivity, b.mesh.blocks[k].connectivity);
    EXPECT_EQ(a.mesh.blocks[k].labels, b.mesh.blocks[k].labels);
  }
  EXPECT_EQ(a.mesh.node_sets, b.mesh.node_sets);
  EXPECT_EQ(a.mesh.element_sets, b.mesh.element_sets);
  EXPECT_EQ(a.mesh.face_sets, b.mesh.face_sets);
  ASSERT_EQ(a.fixed.size(), b.fixed.size());
  EXPECT_EQ(a.fixed[0].nodes, b.fixed[0].nodes);
  EXPECT_EQ(a.loads[0].nodes, b.loads[0].nodes);
  EXPECT_EQ(a.histories[0].nodes, b.histories[0].nodes);
  EXPECT_EQ(a.point_sources[0].nodes, b.point_sources[0].nodes);
  EXPECT_EQ(a.prescribed[0].nodes, b.prescribed[0].nodes);
  EXPECT_EQ(a.receivers[0].nodes, b.receivers[0].nodes);
  EXPECT_EQ(a.output->snapshot_nodes, b.output->snapshot_nodes);
  EXPECT_EQ(a.title, b.title);
  EXPECT_EQ(a.sections.size(), b.sections.size());
}

TEST(RenumberNodes, RoundTripRestoresTheModel) {
  for (ElementType type : {ElementType::Quad8, ElementType::Tet4}) {
    const Model model = referenced_model(type);
    const Index n = model.mesh.n_nodes();
    const auto p = shuffled(n, 3);
    const Model there = renumber_nodes(model, p);
    there.validate();  // sets sorted, snapshot nodes ascending, indices in range
    EXPECT_NE(there.mesh.node_labels, model.mesh.node_labels);
    const Model back = renumber_nodes(there, invert_permutation(p, n, "test"));
    expect_same_nodes(back, model);
  }
}

// Labels travel with their nodes: every reference names the same labelled node (and coordinates)
// before and after.
TEST(RenumberNodes, ReferencesFollowTheirNodes) {
  const Model model = referenced_model(ElementType::Hex8);
  const Index n = model.mesh.n_nodes();
  const Model out = renumber_nodes(model, shuffled(n, 8));
  const auto labels = [](const Model& m, const std::vector<Index>& nodes) {
    std::vector<Label> l;
    for (Index node : nodes) l.push_back(m.mesh.node_labels[static_cast<std::size_t>(node)]);
    return l;
  };
  const auto sorted = [](std::vector<Label> l) {
    std::sort(l.begin(), l.end());
    return l;
  };
  for (Index i = 0; i < n; ++i) {
    // The generator labels node i as i + 1, so the label names the old node.
    const auto old = static_cast<Index>(out.mesh.node_labels[static_cast<std::size_t>(i)] - 1);
    for (int d = 0; d < 3; ++d) EXPECT_EQ(out.mesh.node(i)[static_cast<std::size_t>(d)], model.mesh.node(old)[static_cast<std::size_t>(d)]);
  }
  for (const auto& [name, members] : model.mesh.node_sets) {
    const auto& moved = out.mesh.node_sets.at(name);
    EXPECT_TRUE(std::is_sorted(moved.begin(), moved.end())) << name;
    EXPECT_EQ(sorted(labels(out, moved)), sorted(labels(model, members))) << name;
  }
  // Ordered lists keep their order.
  EXPECT_EQ(labels(out, out.histories[0].nodes), labels(model, model.histories[0].nodes));
  EXPECT_EQ(labels(out, out.receivers[0].nodes), labels(model, model.receivers[0].nodes));
  EXPECT_EQ(labels(out, out.loads[0].nodes), labels(model, model.loads[0].nodes));
  EXPECT_EQ(labels(out, out.point_sources[0].nodes), labels(model, model.point_sources[0].nodes));
  EXPECT_EQ(sorted(labels(out, out.output->snapshot_nodes)), sorted(labels(model, model.output->snapshot_nodes)));
  EXPECT_TRUE(std::is_sorted(out.output->snapshot_nodes.begin(), out.output->snapshot_nodes.end()));
  // Elements keep their nodes (by label) and their index.
  for (Index e = 0; e < model.mesh.blocks[0].n_elements(); ++e) {
    const auto a = model.mesh.blocks[0].nodes(e), b = out.mesh.blocks[0].nodes(e);
    for (std::size_t k = 0; k < a.size(); ++k)
      EXPECT_EQ(out.mesh.node_labels[static_cast<std::size_t>(b[k])], model.mesh.node_labels[static_cast<std::size_t>(a[k])]);
  }
}

// K of the renumbered model is P K P^T: entry (new i, new j) of each dim x dim block is the
// original's (old i, old j). The same element matrices summed in the same element order (the
// colouring depends on which elements share nodes, not on their numbers): equal bit for bit.
TEST(RenumberNodes, StiffnessIsPermuted) {
  for (ElementType type : {ElementType::Quad8, ElementType::Hex8}) {
    const Model model = test::two_section_model(type, 1, test::cells_for(type), 0.2);
    const Index n = model.mesh.n_nodes();
    const auto p = shuffled(n, 21);
    const Model out = renumber_nodes(model, p);
    const sparse::CsrMatrix K = sparse::assemble_stiffness(model, Exec::serial());
    const sparse::CsrMatrix PK = sparse::assemble_stiffness(out, Exec::serial());
    ASSERT_EQ(PK.nnz(), K.nnz());
    const int dim = model.mesh.dim();
    Size compared = 0;
    for (Index row = 0; row < PK.n_rows; ++row) {
      const Index old_row = p[static_cast<std::size_t>(row / dim)] * dim + row % dim;
      for (Size k = PK.offsets[static_cast<std::size_t>(row)]; k < PK.offsets[static_cast<std::size_t>(row) + 1]; ++k) {
        const Index column = PK.columns[static_cast<std::size_t>(k)];
        const Index old_column = p[static_cast<std::size_t>(column / dim)] * dim + column % dim;
        const Size at = K.find(old_row, old_column);
        ASSERT_GE(at, 0) << "entry (" << row << ", " << column << ") has no original";
        ASSERT_EQ(PK.values[static_cast<std::size_t>(k)], K.values[static_cast<std::size_t>(at)]);
        ++compared;
      }
    }
    EXPECT_EQ(compared, K.nnz());
  }
}

TEST(RenumberNodes, RefusesABadPermutation) {
  const Model model = test::two_section_model(ElementType::Tri3, 1, 2, 0.0);
  const Index n = model.mesh.n_nodes();
  auto p = identity(n);
  EXPECT_THROW((void)renumber_nodes(model, std::vector<Index>(p.begin(), p.end() - 1)), Error);
  p[1] = 0;
  try {
    (void)renumber_nodes(model, p);
    FAIL() << "a repeated node was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("appears twice"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tremor
