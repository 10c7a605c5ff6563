#pragma once
// Mesh: node coordinates, element blocks (one ElementType each, homogeneous for launches) and
// named node, element and face sets (surfaces, mesh/faces.hpp). Host side, backend-free, SI units (metres).
//
// Indices are 0-based and dense; the labels the input file used are kept (node_labels,
// ElementBlock::labels) for messages and exports. Elements have a global index: blocks in order,
// elements in order within a block.
#include <map>
#include <span>
#include <string>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/element_type.hpp"
#include "tremor/mesh/faces.hpp"

namespace tremor {

struct ElementBlock {
  ElementType type = ElementType::Tri3;
  int order = 1;                   // GLL types only
  std::vector<Index> connectivity;  // nodes_per_element() node indices per element
  std::vector<Label> labels;        // element ids from the input file

  int n_element_nodes() const { return nodes_per_element(type, order); }
  Index n_elements() const { return static_cast<Index>(labels.size()); }
  std::span<const Index> nodes(Index element) const {
    const auto n = static_cast<std::size_t>(n_element_nodes());
    return {connectivity.data() + static_cast<std::size_t>(element) * n, n};
  }
};

// A reference to one element: its block and its index within the block.
struct ElementRef {
  int block = 0;
  Index element = 0;
};

class Mesh {
 public:
  Mesh() = default;
  explicit Mesh(int dim) : dim_(dim) {}

  int dim() const { return dim_; }
  Index n_nodes() const { return static_cast<Index>(node_labels.size()); }
  Index n_elements() const;
  int n_blocks() const { return static_cast<int>(blocks.size()); }

  // Appends a node and returns its index.
  Index add_node(Label label, std::span<const double> xyz);
  std::span<const double> node(Index i) const {
    return {coordinates.data() + static_cast<std::size_t>(i) * dim_, static_cast<std::size_t>(dim_)};
  }
  // The coordinates of `block`'s element `element` into x: node-major, dim() values per node (the
  // layout of every element routine in fem/).
  void element_coordinates(const ElementBlock& block, Index element, double* x) const {
    const auto d = static_cast<std::size_t>(dim_);
    std::size_t k = 0;
    for (const Index n : block.nodes(element))
      for (std::size_t c = 0; c < d; ++c) x[k++] = coordinates[static_cast<std::size_t>(n) * d + c];
  }
  // The block holding `type`/`order`, created on first use.
  ElementBlock& block_for(ElementType type, int order = 1);

  // Global element index <-> (block, element).
  ElementRef locate(Index global_element) const;
  Index global_index(ElementRef ref) const;
  Label element_label(Index global_element) const;

  // Drops the z coordinate of a mesh read in 3D whose elements are all 2D; every node must lie in
  // one plane z = const (tolerance relative to the extent). Throws naming the first node off it.
  void reduce_to_2d(std::string_view source);

  // Checks indices in range, set members in range (faces: element and face number), element
  // dimension equal to the mesh's.
  void validate(std::string_view source) const;
  // The same for a surface mesh (boundary elements, io::read_gmsh_surface): a 3D mesh whose
  // elements are all 2D (triangles and quadrilaterals, not required to be planar).
  void validate_surface(std::string_view source) const;

  // Axis-aligned bounding box: lower[0..dim), upper[0..dim).
  void bounding_box(double lower[3], double upper[3]) const;

  std::vector<double> coordinates;  // dim values per node
  std::vector<Label> node_labels;
  std::vector<ElementBlock> blocks;
  std::map<std::string, std::vector<Index>> node_sets;     // sorted, unique node indices
  std::map<std::string, std::vector<Index>> element_sets;  // sorted, unique global element indices
  std::map<std::string, std::vector<Face>> face_sets;      // surfaces: sorted, unique faces

 private:
  void validate_with(std::string_view source, int element_dim) const;

  int dim_ = 3;
};

// Sorts and removes duplicates in place (the invariant of node and element sets).
void normalise_set(std::vector<Index>& members);

}  // namespace tremor
