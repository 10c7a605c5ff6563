#include "tremor/mesh/holes.hpp"

#include <algorithm>
#include <cmath>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"

namespace tremor {

void drill_holes(Mesh& mesh, std::span<Hole> holes) {
  if (holes.empty()) return;
  const int dim = mesh.dim();
  const Index n_elements = mesh.n_elements();
  std::vector<int> hole_of(static_cast<std::size_t>(n_elements), -1);
  std::vector<double> x;
  for (std::size_t h = 0; h < holes.size(); ++h) {
    Hole& hole = holes[h];
    const std::string at = str(hole.origin, ": hole '", hole.name, "'");
    TREMOR_CHECK(std::isfinite(hole.radius) && hole.radius > 0.0, at, ": its radius is ", hole.radius,
                 " m; expected a positive length");
    for (const double c : hole.centre) TREMOR_CHECK(std::isfinite(c), at, ": its centre is not finite");
    if (dim == 3) {
      const double length = std::sqrt(hole.axis[0] * hole.axis[0] + hole.axis[1] * hole.axis[1] +
                                      hole.axis[2] * hole.axis[2]);
      TREMOR_CHECK(std::isfinite(length) && length > 0.0, at, ": its axis has no direction");
      for (double& c : hole.axis) c /= length;
    }
    TREMOR_CHECK(mesh.face_sets.count(hole.name) == 0, at, ": the mesh has a surface '", hole.name,
                 "' already; the hole's wall takes its name");
    Index global = 0;
    for (const ElementBlock& block : mesh.blocks) {
      const auto n = static_cast<std::size_t>(block.n_element_nodes());
      x.resize(n * static_cast<std::size_t>(dim));
      for (Index e = 0; e < block.n_elements(); ++e, ++global) {
        mesh.element_coordinates(block, e, x.data());
        // The centroid of the element's nodes, and its distance from the hole's axis.
        std::array<double, 3> r{0.0, 0.0, 0.0};
        for (std::size_t a = 0; a < n; ++a)
          for (int d = 0; d < dim; ++d)
            r[static_cast<std::size_t>(d)] += x[a * static_cast<std::size_t>(dim) + static_cast<std::size_t>(d)] /
                                              static_cast<double>(n);
        for (std::size_t d = 0; d < 3; ++d) r[d] -= hole.centre[d];
        if (dim == 3) {
          const double along = r[0] * hole.axis[0] + r[1] * hole.axis[1] + r[2] * hole.axis[2];
          for (std::size_t d = 0; d < 3; ++d) r[d] -= along * hole.axis[d];
        }
        if (r[0] * r[0] + r[1] * r[1] + r[2] * r[2] > hole.radius * hole.radius) continue;
        int& owner = hole_of[static_cast<std::size_t>(global)];
        TREMOR_CHECK(owner < 0, at, " overlaps hole '", holes[static_cast<std::size_t>(owner)].name, "' (",
                     holes[static_cast<std::size_t>(owner)].origin, ")");
        owner = static_cast<int>(h);
        ++hole.removed;
      }
    }
    TREMOR_CHECK(hole.removed > 0, at, " of radius ", hole.radius,
                 " m holds no element's centre; refine the mesh there (a hole a few elements across)");
  }

  // The walls: each removed element's faces that a kept element shares. A removed element's face
  // that none shares lies on the mesh's boundary: a 3D hole's open end (its normal along the axis,
  // a hole drilled through), else the hole breaks out of the part's side.
  const FaceIndex index(mesh);
  for (const Face& face : index.boundary()) {
    const int h = hole_of[static_cast<std::size_t>(face.element)];
    if (h < 0) continue;
    const Hole& hole = holes[static_cast<std::size_t>(h)];
    const FacePlane plane = face_plane(mesh, face);
    const double size = std::sqrt(plane.normal[0] * plane.normal[0] + plane.normal[1] * plane.normal[1] +
                                  plane.normal[2] * plane.normal[2]);
    const double along = plane.normal[0] * hole.axis[0] + plane.normal[1] * hole.axis[1] + plane.normal[2] * hole.axis[2];
    // Within about 25 degrees of the axis: an end.
    if (dim == 3 && std::abs(along) >= 0.9 * size) continue;
    throw Error(str(hole.origin, ": hole '", hole.name, "' reaches the mesh's boundary", dim == 3 ? " sideways" : "",
                    " (element ", mesh.element_label(face.element), "); a hole lies inside the part"));
  }
  std::vector<std::vector<Face>> walls(holes.size());
  for (const std::array<Face, 2>& pair : index.shared()) {
    const int a = hole_of[static_cast<std::size_t>(pair[0].element)];
    const int b = hole_of[static_cast<std::size_t>(pair[1].element)];
    if ((a >= 0) == (b >= 0)) continue;
    const Face& kept = a >= 0 ? pair[1] : pair[0];
    walls[static_cast<std::size_t>(a >= 0 ? a : b)].push_back(kept);
  }

  // The mesh without the removed elements: elements renumbered in order, unused nodes dropped.
  std::vector<Index> new_element(static_cast<std::size_t>(n_elements), -1);
  Index kept_elements = 0;
  for (Index e = 0; e < n_elements; ++e)
    if (hole_of[static_cast<std::size_t>(e)] < 0) new_element[static_cast<std::size_t>(e)] = kept_elements++;
  std::vector<Index> new_node(static_cast<std::size_t>(mesh.n_nodes()), -1);
  {
    Index global = 0;
    for (const ElementBlock& block : mesh.blocks)
      for (Index e = 0; e < block.n_elements(); ++e, ++global)
        if (new_element[static_cast<std::size_t>(global)] >= 0)
          for (const Index node : block.nodes(e)) new_node[static_cast<std::size_t>(node)] = 0;
  }
  Mesh out(dim);
  for (Index node = 0; node < mesh.n_nodes(); ++node)
    if (new_node[static_cast<std::size_t>(node)] >= 0)
      new_node[static_cast<std::size_t>(node)] = out.add_node(mesh.node_labels[static_cast<std::size_t>(node)], mesh.node(node));
  {
    Index global = 0;
    for (const ElementBlock& block : mesh.blocks) {
      ElementBlock kept;
      kept.type = block.type;
      kept.order = block.order;
      for (Index e = 0; e < block.n_elements(); ++e, ++global) {
        if (new_element[static_cast<std::size_t>(global)] < 0) continue;
        for (const Index node : block.nodes(e)) kept.connectivity.push_back(new_node[static_cast<std::size_t>(node)]);
        kept.labels.push_back(block.labels[static_cast<std::size_t>(e)]);
      }
      if (!kept.labels.empty()) out.blocks.push_back(std::move(kept));
    }
  }
  for (const auto& [name, nodes] : mesh.node_sets) {
    std::vector<Index>& set = out.node_sets[name];
    for (const Index node : nodes)
      if (const Index n = new_node[static_cast<std::size_t>(node)]; n >= 0) set.push_back(n);
  }
  for (const auto& [name, elements] : mesh.element_sets) {
    std::vector<Index>& set = out.element_sets[name];
    for (const Index e : elements)
      if (const Index n = new_element[static_cast<std::size_t>(e)]; n >= 0) set.push_back(n);
  }
  const auto renumbered = [&](std::span<const Face> faces) {
    std::vector<Face> set;
    for (const Face& face : faces)
      if (const Index n = new_element[static_cast<std::size_t>(face.element)]; n >= 0)
        set.push_back(Face{n, face.face});
    normalise_faces(set);
    return set;
  };
  for (const auto& [name, faces] : mesh.face_sets) out.face_sets[name] = renumbered(faces);
  for (std::size_t h = 0; h < holes.size(); ++h) {
    out.face_sets[holes[h].name] = renumbered(walls[h]);
    holes[h].wall_faces = static_cast<Index>(walls[h].size());
  }
  mesh = std::move(out);
}

}  // namespace tremor
