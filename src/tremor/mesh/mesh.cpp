#include "tremor/mesh/mesh.hpp"

#include <algorithm>
#include <cmath>

#include "tremor/core/error.hpp"

namespace tremor {

Index Mesh::n_elements() const {
  Index total = 0;
  for (const auto& block : blocks) total += block.n_elements();
  return total;
}

Index Mesh::add_node(Label label, std::span<const double> xyz) {
  TREMOR_CHECK(static_cast<int>(xyz.size()) >= dim_, "node ", label, " has ", xyz.size(), " coordinates, expected ",
               dim_);
  for (int d = 0; d < dim_; ++d) coordinates.push_back(xyz[static_cast<std::size_t>(d)]);
  node_labels.push_back(label);
  return static_cast<Index>(node_labels.size() - 1);
}

ElementBlock& Mesh::block_for(ElementType type, int order) {
  if (!is_gll(type)) order = 1;
  for (auto& block : blocks)
    if (block.type == type && block.order == order) return block;
  blocks.push_back(ElementBlock{type, order, {}, {}});
  return blocks.back();
}

ElementRef Mesh::locate(Index global_element) const {
  Index offset = 0;
  for (int b = 0; b < n_blocks(); ++b) {
    const Index n = blocks[static_cast<std::size_t>(b)].n_elements();
    if (global_element < offset + n) return {b, global_element - offset};
    offset += n;
  }
  throw Error(str("element index ", global_element, " out of range (", n_elements(), " elements)"));
}

Index Mesh::global_index(ElementRef ref) const {
  Index offset = 0;
  for (int b = 0; b < ref.block; ++b) offset += blocks[static_cast<std::size_t>(b)].n_elements();
  return offset + ref.element;
}

Label Mesh::element_label(Index global_element) const {
  const ElementRef ref = locate(global_element);
  return blocks[static_cast<std::size_t>(ref.block)].labels[static_cast<std::size_t>(ref.element)];
}

void Mesh::reduce_to_2d(std::string_view source) {
  if (dim_ == 2) return;
  TREMOR_CHECK(dim_ == 3, "mesh of dimension ", dim_);
  const Index n = n_nodes();
  if (n == 0) {
    dim_ = 2;
    return;
  }
  double lower[3], upper[3];
  bounding_box(lower, upper);
  const double extent = std::max({upper[0] - lower[0], upper[1] - lower[1], upper[2] - lower[2]});
  const double z0 = coordinates[2];
  // Coordinates in files carry ~1e-12 relative noise; anything beyond 1e-9 of the extent is a real
  // out-of-plane offset that a 2D analysis would silently drop.
  const double tolerance = 1e-9 * std::max(extent, 1e-300);
  std::vector<double> planar;
  planar.reserve(static_cast<std::size_t>(n) * 2);
  for (Index i = 0; i < n; ++i) {
    const double* p = coordinates.data() + static_cast<std::size_t>(i) * 3;
    if (std::abs(p[2] - z0) > tolerance)
      throw Error(str(source, ": the mesh has only 2D elements but node ", node_labels[static_cast<std::size_t>(i)],
                      " has z = ", p[2], " while node ", node_labels[0], " has z = ", z0,
                      "; 2D meshes must lie in a plane z = const"));
    planar.push_back(p[0]);
    planar.push_back(p[1]);
  }
  coordinates = std::move(planar);
  dim_ = 2;
}

void Mesh::validate(std::string_view source) const { validate_with(source, dim_); }

void Mesh::validate_surface(std::string_view source) const {
  TREMOR_CHECK(dim_ == 3, source, ": a surface mesh of dimension ", dim_, " (expected 3)");
  validate_with(source, 2);
}

void Mesh::validate_with(std::string_view source, int element_dim) const {
  TREMOR_CHECK(dim_ == 2 || dim_ == 3, source, ": mesh dimension ", dim_, " (expected 2 or 3)");
  TREMOR_CHECK(coordinates.size() == static_cast<std::size_t>(n_nodes()) * dim_, source,
               ": coordinate array does not match the node count");
  const Index nodes = n_nodes();
  for (const auto& block : blocks) {
    TREMOR_CHECK(dimension(block.type) == element_dim, source, ": ", element_name(block.type, block.order),
                 " elements in a ", element_dim == dim_ ? "" : "surface ", dim_, "D mesh (",
                 element_dim == dim_ ? "mixing 2D and 3D elements is not supported" : "expected 2D elements only",
                 ")");
    const std::size_t per = static_cast<std::size_t>(block.n_element_nodes());
    TREMOR_CHECK(block.connectivity.size() == per * block.labels.size(), source, ": ",
                 element_name(block.type, block.order), " connectivity does not match the element count");
    for (std::size_t k = 0; k < block.connectivity.size(); ++k) {
      const Index node = block.connectivity[k];
      TREMOR_CHECK(node >= 0 && node < nodes, source, ": element ", block.labels[k / per], " refers to node index ",
                   node, " outside 0..", nodes - 1);
    }
  }
  const Index elements = n_elements();
  for (const auto& [name, members] : node_sets)
    for (Index i : members)
      TREMOR_CHECK(i >= 0 && i < nodes, source, ": node set '", name, "' holds node index ", i, " out of range");
  for (const auto& [name, members] : element_sets)
    for (Index i : members)
      TREMOR_CHECK(i >= 0 && i < elements, source, ": element set '", name, "' holds element index ", i,
                   " out of range");
  for (const auto& [name, faces] : face_sets)
    for (const Face& face : faces) {
      TREMOR_CHECK(face.element >= 0 && face.element < elements, source, ": surface '", name,
                   "' holds element index ", face.element, " out of range");
      const ElementBlock& block = blocks[static_cast<std::size_t>(locate(face.element).block)];
      TREMOR_CHECK(face.face >= 0 && face.face < n_faces(block.type), source, ": surface '", name, "' holds face ",
                   face.face, " of element ", element_label(face.element), ", a ",
                   element_name(block.type, block.order), " with faces 0..", n_faces(block.type) - 1);
    }
}

void Mesh::bounding_box(double lower[3], double upper[3]) const {
  for (int d = 0; d < 3; ++d) {
    lower[d] = 0.0;
    upper[d] = 0.0;
  }
  if (n_nodes() == 0) return;
  double low[3] = {0.0, 0.0, 0.0}, high[3] = {0.0, 0.0, 0.0};
  for (int d = 0; d < dim_; ++d) low[d] = high[d] = coordinates[static_cast<std::size_t>(d)];
  const Index n = n_nodes();
  const auto d_count = static_cast<std::size_t>(dim_);
  // One pass, in parallel: every node of meshes of up to billions of DOF.
#pragma omp parallel for reduction(min : low[:3]) reduction(max : high[:3]) schedule(static)
  for (Index i = 0; i < n; ++i)
    for (std::size_t d = 0; d < d_count; ++d) {
      const double x = coordinates[static_cast<std::size_t>(i) * d_count + d];
      low[d] = std::min(low[d], x);
      high[d] = std::max(high[d], x);
    }
  for (int d = 0; d < dim_; ++d) {
    lower[d] = low[d];
    upper[d] = high[d];
  }
}

void normalise_set(std::vector<Index>& members) {
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
}

}  // namespace tremor
