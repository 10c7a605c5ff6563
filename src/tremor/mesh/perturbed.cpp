#include "tremor/mesh/perturbed.hpp"

#include <algorithm>
#include <utility>

#include "tremor/core/error.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/mesh/reorder.hpp"

namespace tremor {

namespace {

// splitmix64: a fixed, portable stream (std:: distributions differ between libraries, and the
// meshes must be the same everywhere for a seed).
struct Random {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1).
  double symmetric() { return static_cast<double>(next() >> 11) * 0x1.0p-52 - 1.0; }
  // Uniform in [0, n) (the modulo bias is below 2^-40 for the n used here).
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

// Moves every node that is in none of the side node sets by up to `fraction` of the cell size
// along each axis, then numbers the nodes in a random order.
void jitter_and_shuffle(Mesh& mesh, const double* cell, double fraction, Random& random) {
  const int dim = mesh.dim();
  const Index n = mesh.n_nodes();
  std::vector<bool> on_side(static_cast<std::size_t>(n), false);
  for (const auto& [name, members] : mesh.node_sets)
    for (Index node : members) on_side[static_cast<std::size_t>(node)] = true;
  for (Index node = 0; node < n; ++node) {
    if (on_side[static_cast<std::size_t>(node)]) continue;
    for (int d = 0; d < dim; ++d)
      mesh.coordinates[static_cast<std::size_t>(node) * dim + d] += fraction * cell[d] * random.symmetric();
  }
  std::vector<Index> new_to_old(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) new_to_old[static_cast<std::size_t>(i)] = i;
  for (Index i = n - 1; i > 0; --i)  // Fisher-Yates
    std::swap(new_to_old[static_cast<std::size_t>(i)],
              new_to_old[static_cast<std::size_t>(random.below(static_cast<std::uint64_t>(i) + 1))]);
  renumber_nodes(mesh, new_to_old);
  // Labels in the new order, as a mesher numbers its nodes 1..n.
  for (Index j = 0; j < n; ++j) mesh.node_labels[static_cast<std::size_t>(j)] = static_cast<Label>(j) + 1;
}

}  // namespace

Mesh perturbed_triangles(const std::array<double, 2>& size, const std::array<Size, 2>& divisions,
                         std::uint64_t seed) {
  // The quadrilateral grid gives the nodes, sides and surfaces; each quadrilateral n0 n1 n2 n3
  // (counter-clockwise) becomes two triangles, elements 2q and 2q + 1, along n0-n2 or n1-n3.
  const Mesh quads = generate_rectangle({0.0, 0.0}, size, divisions, ElementType::Quad4);
  Mesh mesh(2);
  mesh.coordinates = quads.coordinates;
  mesh.node_labels = quads.node_labels;
  mesh.node_sets = quads.node_sets;
  Random random{seed};
  const ElementBlock& source = quads.blocks.front();
  ElementBlock& block = mesh.block_for(ElementType::Tri3);
  const Index n_quads = source.n_elements();
  block.connectivity.reserve(static_cast<std::size_t>(n_quads) * 6);
  block.labels.reserve(static_cast<std::size_t>(n_quads) * 2);
  // Per quadrilateral face 0..3 (edges 01, 12, 23, 30): which triangle (0 or 1) and which of its
  // faces (01, 12, 20) carries that edge, for each diagonal.
  constexpr int along_02[4][2] = {{0, 0}, {0, 1}, {1, 1}, {1, 2}};  // triangles 012, 023
  constexpr int along_13[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 2}};  // triangles 013, 123
  std::vector<bool> diagonal_13(static_cast<std::size_t>(n_quads));
  for (Index q = 0; q < n_quads; ++q) {
    const auto n = source.nodes(q);
    const bool d13 = (random.next() >> 63) != 0;
    diagonal_13[static_cast<std::size_t>(q)] = d13;
    const Index triangles[2][3] = {{n[0], n[1], d13 ? n[3] : n[2]}, {d13 ? n[1] : n[0], n[2], n[3]}};
    for (const auto& t : triangles) {
      block.connectivity.insert(block.connectivity.end(), t, t + 3);
      block.labels.push_back(static_cast<Label>(block.labels.size()) + 1);
    }
  }
  std::vector<Index> all(block.labels.size());
  for (std::size_t e = 0; e < all.size(); ++e) all[e] = static_cast<Index>(e);
  mesh.element_sets["all"] = std::move(all);
  for (const auto& [name, faces] : quads.face_sets) {
    std::vector<Face>& out = mesh.face_sets[name];
    for (const Face& face : faces) {
      const auto& map = diagonal_13[static_cast<std::size_t>(face.element)] ? along_13 : along_02;
      out.push_back({2 * face.element + map[face.face][0], map[face.face][1]});
    }
    normalise_faces(out);
  }
  const double cell[2] = {size[0] / static_cast<double>(divisions[0]), size[1] / static_cast<double>(divisions[1])};
  jitter_and_shuffle(mesh, cell, 0.15, random);
  return mesh;
}

Mesh perturbed_tetrahedra(const std::array<double, 3>& size, const std::array<Size, 3>& divisions,
                          std::uint64_t seed) {
  Mesh mesh = generate_box({0.0, 0.0, 0.0}, size, divisions, ElementType::Tet4);
  Random random{seed};
  const double cell[3] = {size[0] / static_cast<double>(divisions[0]), size[1] / static_cast<double>(divisions[1]),
                          size[2] / static_cast<double>(divisions[2])};
  jitter_and_shuffle(mesh, cell, 0.1, random);
  return mesh;
}

}  // namespace tremor
