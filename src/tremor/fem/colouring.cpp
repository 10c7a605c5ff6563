#include "tremor/fem/colouring.hpp"

#include <algorithm>

namespace tremor::fem {

namespace {

// Global element indices touching each node, in compressed rows.
struct NodeElements {
  std::vector<Size> offsets;
  std::vector<Index> elements;
};

NodeElements node_elements(const Mesh& mesh) {
  NodeElements out;
  const auto n = static_cast<std::size_t>(mesh.n_nodes());
  out.offsets.assign(n + 1, 0);
  for (const auto& block : mesh.blocks)
    for (Index node : block.connectivity) ++out.offsets[static_cast<std::size_t>(node) + 1];
  for (std::size_t i = 0; i < n; ++i) out.offsets[i + 1] += out.offsets[i];
  out.elements.resize(static_cast<std::size_t>(out.offsets.back()));
  std::vector<Size> fill(out.offsets.begin(), out.offsets.end() - 1);
  Index global = 0;
  for (const auto& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global)
      for (Index node : block.nodes(e)) out.elements[static_cast<std::size_t>(fill[static_cast<std::size_t>(node)]++)] = global;
  return out;
}

}  // namespace

ElementColouring colour_elements(const Mesh& mesh) {
  const NodeElements incidence = node_elements(mesh);
  ElementColouring out;
  out.colour.assign(static_cast<std::size_t>(mesh.n_elements()), -1);
  // seen[c] == e marks colour c as taken by a neighbour of element e.
  std::vector<Index> seen;
  Index global = 0;
  for (const auto& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global) {
      for (Index node : block.nodes(e))
        for (Size k = incidence.offsets[static_cast<std::size_t>(node)];
             k < incidence.offsets[static_cast<std::size_t>(node) + 1]; ++k) {
          const int c = out.colour[static_cast<std::size_t>(incidence.elements[static_cast<std::size_t>(k)])];
          if (c >= 0) seen[static_cast<std::size_t>(c)] = global;
        }
      int c = 0;
      while (c < out.n_colours && seen[static_cast<std::size_t>(c)] == global) ++c;
      if (c == out.n_colours) {
        ++out.n_colours;
        seen.push_back(-1);
      }
      out.colour[static_cast<std::size_t>(global)] = c;
    }
  // Bucket each block's elements by colour (a stable counting sort keeps them ascending).
  out.blocks.resize(mesh.blocks.size());
  global = 0;
  for (std::size_t b = 0; b < mesh.blocks.size(); ++b) {
    const Index n = mesh.blocks[b].n_elements();
    auto& bucket = out.blocks[b];
    bucket.offsets.assign(static_cast<std::size_t>(out.n_colours) + 1, 0);
    for (Index e = 0; e < n; ++e) ++bucket.offsets[static_cast<std::size_t>(out.colour[static_cast<std::size_t>(global + e)]) + 1];
    for (std::size_t c = 0; c < static_cast<std::size_t>(out.n_colours); ++c) bucket.offsets[c + 1] += bucket.offsets[c];
    std::vector<Index> fill(bucket.offsets.begin(), bucket.offsets.end() - 1);
    bucket.elements.resize(static_cast<std::size_t>(n));
    for (Index e = 0; e < n; ++e)
      bucket.elements[static_cast<std::size_t>(fill[static_cast<std::size_t>(out.colour[static_cast<std::size_t>(global + e)])]++)] = e;
    global += n;
  }
  return out;
}

bool is_valid_colouring(const Mesh& mesh, const ElementColouring& colouring) {
  if (colouring.colour.size() != static_cast<std::size_t>(mesh.n_elements())) return false;
  const NodeElements incidence = node_elements(mesh);
  for (std::size_t node = 0; node + 1 < incidence.offsets.size(); ++node) {
    std::vector<int> colours;
    for (Size k = incidence.offsets[node]; k < incidence.offsets[node + 1]; ++k)
      colours.push_back(colouring.colour[static_cast<std::size_t>(incidence.elements[static_cast<std::size_t>(k)])]);
    std::sort(colours.begin(), colours.end());
    if (std::adjacent_find(colours.begin(), colours.end()) != colours.end()) return false;
    if (!colours.empty() && colours.front() < 0) return false;
  }
  return true;
}

}  // namespace tremor::fem
