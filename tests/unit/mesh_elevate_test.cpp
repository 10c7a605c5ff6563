// Order elevation (mesh/elevate.hpp): hex8/quad4 boxes against the hex-gllP / quad-gllP
// generator, orientation-independent sharing, curved quadratic input, sets, errors, and the
// model file's [mesh] order.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/core/polynomials.hpp"
#include "tremor/io/load.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/mesh/elevate.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/elevate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// Node coordinates are computed by Lagrange interpolation in double on meshes of extent ~1:
// rounding of a few ulps, far below 1e-12.
constexpr double tolerance = 1e-12;

using test::error_of;
using test::expect_contains;

// The mesh's node coordinates, keyed to 1e-9 (well above the rounding, far below any spacing).
std::map<std::array<long long, 3>, Index> by_position(const Mesh& mesh) {
  std::map<std::array<long long, 3>, Index> positions;
  for (Index i = 0; i < mesh.n_nodes(); ++i) {
    std::array<long long, 3> key{0, 0, 0};
    for (int d = 0; d < mesh.dim(); ++d) key[static_cast<std::size_t>(d)] = std::llround(mesh.node(i)[d] * 1e9);
    positions.emplace(key, i);
  }
  return positions;
}

// Every node of `elevated` lies on a distinct node of `reference` (the GLL generator's mesh), the
// counts agree, and so element by element at every local position: then the elevated mesh shares
// exactly the nodes the generator shares. Returns the map elevated -> reference node.
std::vector<Index> expect_same_mesh(const Mesh& elevated, const Mesh& reference) {
  EXPECT_EQ(elevated.n_nodes(), reference.n_nodes());
  EXPECT_EQ(elevated.n_elements(), reference.n_elements());
  const auto positions = by_position(reference);
  EXPECT_EQ(by_position(elevated).size(), static_cast<std::size_t>(elevated.n_nodes())) << "two nodes at one point";
  std::vector<Index> to_reference(static_cast<std::size_t>(elevated.n_nodes()), -1);
  for (Index i = 0; i < elevated.n_nodes(); ++i) {
    std::array<long long, 3> key{0, 0, 0};
    for (int d = 0; d < elevated.dim(); ++d) key[static_cast<std::size_t>(d)] = std::llround(elevated.node(i)[d] * 1e9);
    const auto found = positions.find(key);
    if (found == positions.end()) {
      ADD_FAILURE() << "elevated node " << i << " is at no node of the reference mesh";
      continue;
    }
    for (int d = 0; d < elevated.dim(); ++d)
      EXPECT_NEAR(elevated.node(i)[d], reference.node(found->second)[d], tolerance);
    to_reference[static_cast<std::size_t>(i)] = found->second;
  }
  return to_reference;
}

Mesh box(ElementType type, int order = 1) {
  // Graded, so the GLL points differ from cell to cell.
  return generate_box({0.0, -0.5, 0.25}, {1.0, 0.75, 0.5}, {3, 2, 2}, type, order, {1.3, 1.0, 0.8});
}

Mesh rectangle(ElementType type, int order = 1) {
  return generate_rectangle({0.0, -0.5}, {1.0, 0.75}, {3, 2}, type, order, {1.3, 0.8});
}

TEST(MeshElevate, BoxMatchesTheGllGenerator) {
  const Mesh hex8 = box(ElementType::Hex8);
  for (int p = 1; p <= max_gll_order; ++p) {
    SCOPED_TRACE(p);
    const Mesh elevated = elevate_order(hex8, p, "box");
    ASSERT_EQ(elevated.n_blocks(), 1);
    EXPECT_EQ(elevated.blocks[0].type, ElementType::HexGLL);
    EXPECT_EQ(elevated.blocks[0].order, p);
    EXPECT_EQ(elevated.n_nodes(), (3 * p + 1) * (2 * p + 1) * (2 * p + 1));
    const Mesh reference = box(ElementType::HexGLL, p);
    const std::vector<Index> to_reference = expect_same_mesh(elevated, reference);
    // Element by element, lexicographic position by position: the same point.
    for (std::size_t k = 0; k < elevated.blocks[0].connectivity.size(); ++k)
      EXPECT_EQ(to_reference[static_cast<std::size_t>(elevated.blocks[0].connectivity[k])],
                reference.blocks[0].connectivity[k]);
    // Vertex nodes keep their indices, labels and coordinates; new labels follow the largest.
    for (Index i = 0; i < hex8.n_nodes(); ++i) {
      EXPECT_EQ(elevated.node_labels[static_cast<std::size_t>(i)], hex8.node_labels[static_cast<std::size_t>(i)]);
      for (int d = 0; d < 3; ++d) EXPECT_EQ(elevated.node(i)[d], hex8.node(i)[d]);
    }
    for (Index i = hex8.n_nodes(); i < elevated.n_nodes(); ++i)
      EXPECT_EQ(elevated.node_labels[static_cast<std::size_t>(i)], i + 1);
    EXPECT_EQ(elevated.blocks[0].labels, hex8.blocks[0].labels);
    // Sets: element sets and surfaces as they were, node sets of whole faces take their GLL nodes.
    EXPECT_EQ(elevated.element_sets, hex8.element_sets);
    EXPECT_EQ(elevated.face_sets, hex8.face_sets);
    for (const auto& [name, members] : reference.node_sets) {
      std::vector<Index> mapped;
      for (Index i : elevated.node_sets.at(name)) mapped.push_back(to_reference[static_cast<std::size_t>(i)]);
      std::sort(mapped.begin(), mapped.end());
      EXPECT_EQ(mapped, members) << name;
    }
    elevated.validate("box");
  }
}

TEST(MeshElevate, RectangleMatchesTheGllGenerator) {
  const Mesh quad4 = rectangle(ElementType::Quad4);
  for (int p : {1, 2, 5, 8}) {
    SCOPED_TRACE(p);
    const Mesh elevated = elevate_order(quad4, p, "rectangle");
    EXPECT_EQ(elevated.blocks[0].type, ElementType::QuadGLL);
    EXPECT_EQ(elevated.n_nodes(), (3 * p + 1) * (2 * p + 1));
    const Mesh reference = rectangle(ElementType::QuadGLL, p);
    const std::vector<Index> to_reference = expect_same_mesh(elevated, reference);
    for (std::size_t k = 0; k < elevated.blocks[0].connectivity.size(); ++k)
      EXPECT_EQ(to_reference[static_cast<std::size_t>(elevated.blocks[0].connectivity[k])],
                reference.blocks[0].connectivity[k]);
  }
}

// Corner v of tremor's hexahedron as bits (x, y, z) and back (element_type.hpp).
std::array<int, 3> corner_bits(int v) {
  const int c = v % 4;
  return {(c == 1 || c == 2) ? 1 : 0, c >= 2 ? 1 : 0, v / 4};
}
int corner_of(const std::array<int, 3>& bits) {
  const int c = bits[1] ? (bits[0] ? 2 : 3) : (bits[0] ? 1 : 0);
  return c + 4 * bits[2];
}

// The 24 rotations of the cube as maps of corner numbers: axis permutations and flips whose
// determinant is +1, so every element keeps a positive volume.
std::vector<std::array<int, 8>> cube_rotations() {
  std::vector<std::array<int, 8>> rotations;
  std::array<int, 3> axes = {0, 1, 2};
  do {
    int inversions = 0;
    for (int a = 0; a < 3; ++a)
      for (int b = a + 1; b < 3; ++b) inversions += axes[static_cast<std::size_t>(a)] > axes[static_cast<std::size_t>(b)];
    for (int flips = 0; flips < 8; ++flips) {
      const int sign = (inversions % 2 ? -1 : 1) * ((__builtin_popcount(static_cast<unsigned>(flips)) % 2) ? -1 : 1);
      if (sign < 0) continue;
      std::array<int, 8> map{};
      for (int v = 0; v < 8; ++v) {
        const auto bits = corner_bits(v);
        std::array<int, 3> moved{};
        for (std::size_t a = 0; a < 3; ++a)
          moved[a] = bits[static_cast<std::size_t>(axes[a])] ^ ((flips >> a) & 1);
        map[static_cast<std::size_t>(v)] = corner_of(moved);
      }
      rotations.push_back(map);
    }
  } while (std::next_permutation(axes.begin(), axes.end()));
  return rotations;
}

TEST(MeshElevate, SharedNodesWhateverTheElementOrientation) {
  const auto rotations = cube_rotations();
  ASSERT_EQ(rotations.size(), 24u);
  Mesh rotated = box(ElementType::Hex8);
  ElementBlock& block = rotated.blocks[0];
  // Element e turned by rotation (7 e + 3) mod 24: neighbours see their shared faces in
  // different local orientations, every rotation used.
  for (Index e = 0; e < block.n_elements(); ++e) {
    const auto nodes = block.nodes(e);
    const std::vector<Index> original(nodes.begin(), nodes.end());
    const auto& map = rotations[static_cast<std::size_t>((7 * e + 3) % 24)];
    for (int v = 0; v < 8; ++v)
      block.connectivity[static_cast<std::size_t>(e) * 8 + static_cast<std::size_t>(v)] =
          original[static_cast<std::size_t>(map[static_cast<std::size_t>(v)])];
  }
  rotated.face_sets.clear();  // face numbers no longer name the sides of the box
  for (int p : {2, 3, 4}) {
    SCOPED_TRACE(p);
    const Mesh elevated = elevate_order(rotated, p, "rotated box");
    expect_same_mesh(elevated, box(ElementType::HexGLL, p));
    // Each element's node at its local GLL point (i, j, k) is its own trilinear image of that point:
    // a shared face read in the wrong orientation puts another GLL point's node there.
    double xi[max_points_1d];
    gll_points(p + 1, xi);
    for (Index e = 0; e < block.n_elements(); ++e) {
      const auto corners = block.nodes(e);
      const auto nodes = elevated.blocks[0].nodes(e);
      for (int k = 0; k <= p; ++k)
        for (int j = 0; j <= p; ++j)
          for (int i = 0; i <= p; ++i) {
            const double at[3] = {xi[i], xi[j], xi[k]};
            double expected[3] = {0.0, 0.0, 0.0};
            for (int v = 0; v < 8; ++v) {
              const auto bits = corner_bits(v);
              double weight = 1.0;
              for (std::size_t a = 0; a < 3; ++a) weight *= 0.5 * (1.0 + (bits[a] ? at[a] : -at[a]));
              for (int d = 0; d < 3; ++d) expected[d] += weight * rotated.node(corners[static_cast<std::size_t>(v)])[d];
            }
            const Index node = nodes[static_cast<std::size_t>(i + (p + 1) * (j + (p + 1) * k))];
            for (int d = 0; d < 3; ++d) EXPECT_NEAR(elevated.node(node)[d], expected[d], tolerance);
          }
    }
    // The node sets of the box's sides (vertex sets, given before the turn) take their GLL nodes.
    EXPECT_EQ(elevated.node_sets.at("xmin").size(), static_cast<std::size_t>((2 * p + 1) * (2 * p + 1)));
    for (Index i : elevated.node_sets.at("xmin")) EXPECT_NEAR(elevated.node(i)[0], 0.0, tolerance);
  }
}

// The numbering elevate.hpp documents, computed the plain way for hex8 input: elements in order,
// each one's GLL points x fastest; corners keep their nodes; an edge's or face's nodes are created
// by the first element meeting it, the edge's from its smaller corner, the face's from its
// smallest corner towards the smaller of that corner's neighbours, then across; the interior's in
// grid order. Returns the connectivity.
std::vector<Index> documented_numbering(const Mesh& input, int p) {
  std::map<std::array<Index, 4>, Index> created;
  Index next = input.n_nodes();
  std::vector<Index> connectivity;
  const ElementBlock& block = input.blocks[0];
  for (Index e = 0; e < block.n_elements(); ++e) {
    const auto nodes = block.nodes(e);
    const auto corner = [&](int x, int y, int z) { return nodes[static_cast<std::size_t>(corner_of({x, y, z}))]; };
    Index interior = -1;
    for (int k = 0; k <= p; ++k)
      for (int j = 0; j <= p; ++j)
        for (int i = 0; i <= p; ++i) {
          const std::array<int, 3> at = {i, j, k};
          std::vector<int> inside;
          std::array<int, 3> end{};  // 1 on the upper end of an axis
          for (int a = 0; a < 3; ++a) {
            if (at[static_cast<std::size_t>(a)] > 0 && at[static_cast<std::size_t>(a)] < p) inside.push_back(a);
            end[static_cast<std::size_t>(a)] = at[static_cast<std::size_t>(a)] == p;
          }
          const auto vertex = [&](int a, int s, int c, int t) {  // the corner s along axis a, t along c
            std::array<int, 3> bits = end;
            if (a >= 0) bits[static_cast<std::size_t>(a)] = s;
            if (c >= 0) bits[static_cast<std::size_t>(c)] = t;
            return corner(bits[0], bits[1], bits[2]);
          };
          const auto make = [&](const std::array<Index, 4>& key, Index count) {
            const auto [entry, fresh] = created.try_emplace(key, next);
            if (fresh) next += count;
            return entry->second;
          };
          Index node = 0;
          if (inside.empty()) {
            node = vertex(-1, 0, -1, 0);
          } else if (inside.size() == 1) {
            const int a = inside[0], t = at[static_cast<std::size_t>(a)];
            const Index v0 = vertex(a, 0, -1, 0), v1 = vertex(a, 1, -1, 0);
            node = make({std::min(v0, v1), std::max(v0, v1), -1, -1}, p - 1) + (v0 < v1 ? t - 1 : p - t - 1);
          } else if (inside.size() == 2) {
            const int a = inside[0], c = inside[1];
            std::array<Index, 4> key = {vertex(a, 0, c, 0), vertex(a, 1, c, 0), vertex(a, 1, c, 1), vertex(a, 0, c, 1)};
            std::sort(key.begin(), key.end());
            const Index base = make(key, (p - 1) * (p - 1));
            int s0 = 0, t0 = 0;  // the smallest corner
            for (int s = 0; s < 2; ++s)
              for (int t = 0; t < 2; ++t)
                if (vertex(a, s, c, t) == key[0]) s0 = s, t0 = t;
            const int s = s0 ? p - at[static_cast<std::size_t>(a)] : at[static_cast<std::size_t>(a)];
            const int t = t0 ? p - at[static_cast<std::size_t>(c)] : at[static_cast<std::size_t>(c)];
            // Along a first when the neighbour across a is the smaller one.
            const bool along_a = vertex(a, 1 - s0, c, t0) < vertex(a, s0, c, 1 - t0);
            node = base + (along_a ? (s - 1) + (p - 1) * (t - 1) : (t - 1) + (p - 1) * (s - 1));
          } else {
            if (interior < 0) {
              interior = next;
              next += (p - 1) * (p - 1) * (p - 1);
            }
            node = interior + (i - 1) + (p - 1) * ((j - 1) + (p - 1) * (k - 1));
          }
          connectivity.push_back(node);
        }
  }
  return connectivity;
}

TEST(MeshElevate, NumberingIsTheDocumentedOneWhateverTheThreads) {
  // Nodes renumbered (n -> 37 n mod N), elements in reverse order and each turned: the numbering
  // depends on the input's numbering, which no longer follows the geometry.
  const Mesh plain = box(ElementType::Hex8);
  const auto rotations = cube_rotations();
  const Index n = plain.n_nodes();
  ASSERT_NE(n % 37, 0);
  Mesh input(3);
  std::vector<Index> to(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) to[static_cast<std::size_t>(i)] = static_cast<Index>((37 * static_cast<long long>(i)) % n);
  input.coordinates.resize(plain.coordinates.size());
  input.node_labels.resize(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) {
    const auto at = static_cast<std::size_t>(to[static_cast<std::size_t>(i)]);
    for (std::size_t d = 0; d < 3; ++d) input.coordinates[at * 3 + d] = plain.node(i)[d];
    input.node_labels[at] = 100 + 2 * static_cast<Label>(i);
  }
  ElementBlock& block = input.block_for(ElementType::Hex8);
  const ElementBlock& original = plain.blocks[0];
  for (Index e = original.n_elements() - 1; e >= 0; --e) {
    const auto nodes = original.nodes(e);
    const auto& turn = rotations[static_cast<std::size_t>((5 * e + 1) % 24)];
    for (int v = 0; v < 8; ++v)
      block.connectivity.push_back(to[static_cast<std::size_t>(nodes[static_cast<std::size_t>(turn[static_cast<std::size_t>(v)])])]);
    block.labels.push_back(original.labels[static_cast<std::size_t>(e)]);
  }
  const Label largest = *std::max_element(input.node_labels.begin(), input.node_labels.end());
  const int threads = omp_get_max_threads();
  for (int p : {2, 3, 5}) {
    SCOPED_TRACE(p);
    omp_set_num_threads(1);
    const Mesh one = elevate_order(input, p, "turned box");
    omp_set_num_threads(4);  // several threads even on a small machine
    const Mesh four = elevate_order(input, p, "turned box");
    omp_set_num_threads(threads);
    EXPECT_EQ(one.blocks[0].connectivity, documented_numbering(input, p));
    // New labels follow the largest input label in index order.
    for (Index i = n; i < one.n_nodes(); ++i) ASSERT_EQ(one.node_labels[static_cast<std::size_t>(i)], largest + 1 + (i - n));
    // Any number of threads: the same mesh, bit for bit.
    EXPECT_EQ(four.blocks[0].connectivity, one.blocks[0].connectivity);
    EXPECT_EQ(four.node_labels, one.node_labels);
    EXPECT_EQ(0, std::memcmp(four.coordinates.data(), one.coordinates.data(), one.coordinates.size() * sizeof(double)));
    EXPECT_EQ(four.node_sets, one.node_sets);
    expect_same_mesh(one, box(ElementType::HexGLL, p));
  }
}

// A hexahedron curved by X(xi) (reference [-1, 1]^3), given as one element of `type`: its nodes
// at X of their reference points; the elevated nodes must lie at X of the GLL points.
void expect_curved(ElementType type, int input_order, const std::function<std::array<double, 3>(double, double, double)>& X) {
  Mesh mesh(3);
  ElementBlock& block = mesh.block_for(type, input_order);
  std::vector<std::array<double, 3>> reference;
  const auto vertex = [](int v) {
    const auto bits = corner_bits(v);
    return std::array<double, 3>{2.0 * bits[0] - 1.0, 2.0 * bits[1] - 1.0, 2.0 * bits[2] - 1.0};
  };
  if (type == ElementType::Hex20) {
    for (int v = 0; v < 8; ++v) reference.push_back(vertex(v));
    const int edges[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    for (const auto& edge : edges) {
      const auto a = vertex(edge[0]), b = vertex(edge[1]);
      reference.push_back({(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2});
    }
  } else {
    for (int k = 0; k <= input_order; ++k)
      for (int j = 0; j <= input_order; ++j)
        for (int i = 0; i <= input_order; ++i)
          reference.push_back({-1.0 + i, -1.0 + j, -1.0 + k});  // order 2: GLL points -1, 0, 1
  }
  for (const auto& r : reference) {
    const auto x = X(r[0], r[1], r[2]);
    block.connectivity.push_back(mesh.add_node(mesh.n_nodes() + 1, x));
  }
  block.labels.push_back(1);
  for (int p : {2, 3, 4, 6}) {
    SCOPED_TRACE(p);
    const Mesh elevated = elevate_order(mesh, p, "curved");
    EXPECT_EQ(elevated.n_nodes(), (p + 1) * (p + 1) * (p + 1));
    double xi[max_points_1d];
    gll_points(p + 1, xi);
    const auto nodes = elevated.blocks[0].nodes(0);
    for (int k = 0; k <= p; ++k)
      for (int j = 0; j <= p; ++j)
        for (int i = 0; i <= p; ++i) {
          const auto expected = X(xi[i], xi[j], xi[k]);
          const Index node = nodes[static_cast<std::size_t>(i + (p + 1) * (j + (p + 1) * k))];
          for (int d = 0; d < 3; ++d)
            EXPECT_NEAR(elevated.node(node)[d], expected[static_cast<std::size_t>(d)], tolerance)
                << i << " " << j << " " << k;
        }
  }
}

TEST(MeshElevate, Hex20GivesCurvedElementsThroughItsGeometry) {
  // Monomials of the serendipity space (xi^2 eta but not xi^2 eta^2), so X is the hex20 map exactly
  // and the face and cell centres the elevation adds must follow it.
  expect_curved(ElementType::Hex20, 1, [](double a, double b, double c) {
    return std::array<double, 3>{a + 0.1 * b * b + 0.05 * a * a * c, b + 0.1 * c * c - 0.04 * a * b * c,
                                 c + 0.1 * a * a + 0.05 * a * b};
  });
}

TEST(MeshElevate, Hex27GivesCurvedElementsThroughItsGeometry) {
  // Triquadratic terms only hex27 (hex-gll2) holds.
  expect_curved(ElementType::HexGLL, 2, [](double a, double b, double c) {
    return std::array<double, 3>{a + 0.1 * b * b * c * c, b + 0.08 * a * a * c * c, c + 0.1 * a * a * b * b};
  });
}

TEST(MeshElevate, QuadraticBoxesDropTheirMidNodes) {
  // hex20 and hex27 boxes: only the corners stay, the rest is the GLL generator's mesh.
  for (ElementType type : {ElementType::Hex20, ElementType::HexGLL}) {
    const Mesh quadratic = box(type, 2);
    for (int p : {2, 3}) {
      SCOPED_TRACE(p);
      const Mesh elevated = elevate_order(quadratic, p, "box");
      expect_same_mesh(elevated, box(ElementType::HexGLL, p));
      // The node set of a side held mid-edge nodes too: it becomes the side's GLL nodes.
      EXPECT_EQ(elevated.node_sets.at("ymax").size(), static_cast<std::size_t>((3 * p + 1) * (2 * p + 1)));
      for (Index i : elevated.node_sets.at("ymax")) EXPECT_NEAR(elevated.node(i)[1], 0.25, tolerance);
      // New labels start above the largest input label, mid-edge nodes' included.
      const Label largest = *std::max_element(quadratic.node_labels.begin(), quadratic.node_labels.end());
      EXPECT_EQ(elevated.node_labels[4 * 3 * 3], largest + 1);
    }
  }
  const Mesh quad8 = rectangle(ElementType::Quad8);
  expect_same_mesh(elevate_order(quad8, 4, "rectangle"), rectangle(ElementType::QuadGLL, 4));
}

TEST(MeshElevate, NodeSetRules) {
  Mesh hex8 = generate_box({0.0, 0.0, 0.0}, {2.0, 1.0, 1.0}, {2, 1, 1}, ElementType::Hex8);
  const auto nodes0 = hex8.blocks[0].nodes(0);
  hex8.node_sets["element0"] = std::vector<Index>(nodes0.begin(), nodes0.end());
  normalise_set(hex8.node_sets["element0"]);
  hex8.node_sets["single"] = {nodes0[6]};
  hex8.node_sets["diagonal"] = {nodes0[0], nodes0[2]};  // two corners of a face, no edge between them
  hex8.node_sets["edge"] = {nodes0[0], nodes0[1]};
  const int p = 3;
  OrderElevation elevation(hex8, p, "two bricks");
  const Mesh& mesh = elevation.mesh();
  // A whole element: its (p + 1)^3 nodes, interior ones included.
  std::vector<Index> element0(mesh.blocks[0].nodes(0).begin(), mesh.blocks[0].nodes(0).end());
  normalise_set(element0);
  EXPECT_EQ(mesh.node_sets.at("element0"), element0);
  EXPECT_EQ(mesh.node_sets.at("single"), std::vector<Index>{nodes0[6]});
  EXPECT_EQ(mesh.node_sets.at("diagonal"), (std::vector<Index>{nodes0[0], nodes0[2]}));
  const auto& edge = mesh.node_sets.at("edge");
  EXPECT_EQ(edge.size(), static_cast<std::size_t>(p + 1));
  for (Index i : edge) {
    EXPECT_NEAR(mesh.node(i)[1], 0.0, tolerance);
    EXPECT_NEAR(mesh.node(i)[2], 0.0, tolerance);
    EXPECT_LE(mesh.node(i)[0], 1.0 + tolerance);
  }
  // map_nodes applies the same rule to any list.
  EXPECT_EQ(elevation.map_nodes(hex8.node_sets["edge"]), edge);
}

TEST(MeshElevate, IsolatedMidEdgeNode) {
  const Mesh hex20 = generate_box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {1, 1, 1}, ElementType::Hex20);
  const Index mid = hex20.blocks[0].nodes(0)[8];  // middle of edge 01: (0.5, 0, 0)
  for (int p : {3, 4}) {
    OrderElevation elevation(hex20, p, "brick");
    const auto mapped = elevation.map_nodes(std::vector<Index>{mid});
    ASSERT_EQ(mapped.size(), 1u);
    const auto x = elevation.mesh().node(mapped[0]);
    // Even p: the GLL point 0 is the mid-edge node's own place. Odd p: the GLL point nearest to it
    // along the edge, (1 + xi) / 2 with xi = 0.4472 (order 3's interior point 1/sqrt(5)) or its mirror.
    const double expected_x = p % 2 == 0 ? 0.5 : 0.5 * (1.0 - 1.0 / std::sqrt(5.0));
    EXPECT_NEAR(x[0], expected_x, tolerance) << p;
    EXPECT_NEAR(x[1], 0.0, tolerance);
    EXPECT_NEAR(x[2], 0.0, tolerance);
  }
}

TEST(MeshElevate, Errors) {
  const Mesh tet4 = generate_box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {1, 1, 1}, ElementType::Tet4);
  expect_contains(error_of([&] { elevate_order(tet4, 2, "tets.msh"); }),
                  {"tets.msh: ", "block 1", "tet4", "element 1", "hex8"});
  const Mesh hex8 = box(ElementType::Hex8);
  expect_contains(error_of([&] { elevate_order(hex8, 0, "box.inp"); }), {"box.inp: ", "order 0 outside 1..8"});
  expect_contains(error_of([&] { elevate_order(hex8, 9, "box.inp"); }), {"box.inp: ", "order 9 outside 1..8"});
  // Element 5 turned inside out: its bottom and top swapped.
  Mesh inverted = hex8;
  auto* nodes = inverted.blocks[0].connectivity.data() + 4 * 8;
  std::swap_ranges(nodes, nodes + 4, nodes + 4);
  expect_contains(error_of([&] { elevate_order(inverted, 2, "box.inp"); }),
                  {"box.inp: element 5 (block 1, hex8)", "inverted", "det J = -"});
  // A hex20 whose mid-edge node is pulled past the far end of its edge: its corners stay where they
  // were, but the quadratic edge turns back near corner 1, where det J < 0.
  Mesh folded = generate_box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {1, 1, 1}, ElementType::Hex20);
  folded.coordinates[static_cast<std::size_t>(folded.blocks[0].nodes(0)[8]) * 3] = 1.9;
  expect_contains(error_of([&] { elevate_order(folded, 4, "folded.inp"); }),
                  {"folded.inp: element 1 (block 1, hex20)", "GLL point", "of order 4"});
}

const std::string model_text = R"(title = "t"
[mesh]
generator = "box"
element = "hex8"
size = [1.0, 1.0, 0.5]
divisions = [2, 2, 1]
order = 3
node_set = [{ name = "corner", min = [1.0, 1.0, 0.5], max = [1.0, 1.0, 0.5] }]
[[material]]
name = "steel"
density = 7850.0
youngs_modulus = 210e9
poisson_ratio = 0.3
)";

TEST(MeshElevate, ModelFileOrder) {
  const Model model = io::read_model_buffer(model_text, "m.toml", "");
  EXPECT_EQ(model.mesh.n_nodes(), 7 * 7 * 4);
  ASSERT_EQ(model.mesh.n_blocks(), 1);
  EXPECT_EQ(model.mesh.blocks[0].type, ElementType::HexGLL);
  EXPECT_EQ(model.mesh.blocks[0].order, 3);
  EXPECT_EQ(model.mesh.node_sets.at("corner").size(), 1u);
  EXPECT_EQ(model.mesh.node_sets.at("xmin").size(), 7u * 4u);  // the generator's side, elevated
  // The caller's order replaces the file's.
  EXPECT_EQ(io::read_model_buffer(model_text, "m.toml", "", 1).mesh.n_nodes(), 3 * 3 * 2);
  // Out of range, at its line.
  for (const char* bad : {"order = 0", "order = 9"}) {
    std::string text = model_text;
    text.replace(text.find("order = 3"), 9, bad);
    const std::string message = error_of([&] { io::read_model_buffer(text, "m.toml", ""); });
    expect_contains(message, {"m.toml:7: ", "expected the GLL order of the elements, 1..8"});
  }
  // A generated mesh of other elements: refused at the order line.
  std::string tets = model_text;
  tets.replace(tets.find("\"hex8\""), 6, "\"tet4\"");
  expect_contains(error_of([&] { io::read_model_buffer(tets, "m.toml", ""); }),
                  {"m.toml:7: block 1 holds tet4 elements (element 1 first)"});
}

TEST(MeshElevate, AbaqusModelNodeListsFollow) {
  const log::Quiet quiet;  // the deck's ignored keywords warn
  // The bar's *BOUNDARY set FIXED is an end face: after elevation it holds that face's GLL nodes.
  const Model linear = io::load_model(test::data_path("abaqus/bar_c3d8r.inp"));
  const Model elevated = io::load_model(test::data_path("abaqus/bar_c3d8r.inp"), 2);
  EXPECT_EQ(elevated.mesh.blocks[0].type, ElementType::HexGLL);
  ASSERT_FALSE(elevated.fixed.empty());
  ASSERT_EQ(linear.fixed[0].nodes.size(), 4u);
  EXPECT_EQ(elevated.fixed[0].nodes.size(), 9u);
  const double x0 = linear.mesh.node(linear.fixed[0].nodes[0])[0];
  for (Index i : elevated.fixed[0].nodes) EXPECT_NEAR(elevated.mesh.node(i)[0], x0, tolerance);
}

}  // namespace
}  // namespace tremor
