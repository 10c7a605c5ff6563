#include "tremor/mesh/holes.hpp"

#include <algorithm>
#include <cmath>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/vec3.hpp"

namespace tremor {

namespace {

using vec3::Vec;
using vec3::dot;

// `v` made unit; refused (naming `what`) where it has no length.
void normalise(Vec& v, const std::string& at, const char* what) {
  const double length = vec3::norm(v);
  TREMOR_CHECK(std::isfinite(length) && length > 0.0, at, ": its ", what, " has no direction");
  for (double& c : v) c /= length;
}

void check_positive(double value, const std::string& at, const char* what) {
  TREMOR_CHECK(std::isfinite(value) && value > 0.0, at, ": its ", what, " is ", value, " m; expected a positive length");
}

// Checks a hole's shape and makes its directions unit.
void check_shape(Hole& hole, int dim) {
  const std::string at = str(hole.origin, ": ", hole.kind_name(), " '", hole.name, "'");
  for (const double c : hole.centre) TREMOR_CHECK(std::isfinite(c), at, ": its centre is not finite");
  if (dim == 2 && hole.kind != Hole::Kind::side_drilled) hole.axis[2] = 0.0;  // in the section's plane
  if (hole.kind == Hole::Kind::notch) {
    check_positive(hole.width, at, "width");
  } else {
    check_positive(hole.radius, at, "radius");
  }
  if (dim == 3 || hole.kind != Hole::Kind::side_drilled) normalise(hole.axis, at, "axis");
  if (hole.kind == Hole::Kind::notch && dim == 3) {
    check_positive(hole.length, at, "length");
    normalise(hole.along, at, "'along'");
    TREMOR_CHECK(std::abs(dot(hole.along, hole.axis)) <= 1e-6, at, ": its 'along' is not at right angles to its axis "
                 "(their cosine is ", dot(hole.along, hole.axis), "); 'along' lies in the surface the notch breaks");
  }
}

}  // namespace

const char* Hole::kind_name() const {
  switch (kind) {
    case Kind::side_drilled: return "side-drilled hole";
    case Kind::flat_bottom: return "flat-bottom hole";
    case Kind::notch: return "notch";
  }
  return "hole";
}

bool Hole::contains(const std::array<double, 3>& x, int dim) const {
  Vec r{x[0] - centre[0], x[1] - centre[1], dim == 3 ? x[2] - centre[2] : 0.0};
  // Along the axis (a side-drilled hole in 2D has none), then what is left across it.
  const double out = kind == Kind::side_drilled && dim == 2 ? 0.0 : dot(r, axis);
  if (kind != Kind::side_drilled && out < 0.0) return false;  // below the bottom
  for (std::size_t d = 0; d < 3; ++d) r[d] -= out * axis[d];
  if (kind != Kind::notch) return dot(r, r) <= radius * radius;
  if (dim == 3) {
    const double a = dot(r, along);
    if (std::abs(a) > 0.5 * length) return false;
    for (std::size_t d = 0; d < 3; ++d) r[d] -= a * along[d];
  }
  return dot(r, r) <= 0.25 * width * width;
}

namespace {

// The elements whose centroids lie in `hole`'s shape, in global order; `seed` the one of them
// nearest its bottom (smallest distance out along its axis), -1 when none.
std::vector<Index> elements_inside(const Mesh& mesh, const Hole& hole, Index& seed) {
  const int dim = mesh.dim();
  std::vector<Index> inside;
  std::vector<double> x;
  seed = -1;
  double lowest = 0.0;
  Index global = 0;
  for (const ElementBlock& block : mesh.blocks) {
    const auto n = static_cast<std::size_t>(block.n_element_nodes());
    x.resize(n * static_cast<std::size_t>(dim));
    for (Index e = 0; e < block.n_elements(); ++e, ++global) {
      mesh.element_coordinates(block, e, x.data());
      Vec c{0.0, 0.0, 0.0};
      for (std::size_t a = 0; a < n; ++a)
        for (int d = 0; d < dim; ++d)
          c[static_cast<std::size_t>(d)] +=
              x[a * static_cast<std::size_t>(dim) + static_cast<std::size_t>(d)] / static_cast<double>(n);
      if (!hole.contains(c, dim)) continue;
      inside.push_back(global);
      const Vec r{c[0] - hole.centre[0], c[1] - hole.centre[1], c[2] - hole.centre[2]};
      if (seed < 0 || dot(r, hole.axis) < lowest) {
        seed = global;
        lowest = dot(r, hole.axis);
      }
    }
  }
  return inside;
}

// Of `inside`, the elements reached from `seed` through shared faces (`neighbours`): an open cavity
// runs from its bottom out to the surface it opens on, not on through the part beyond (across a
// bore to the far wall). `mark`: one flag an element, all 0, left so.
std::vector<Index> reached_from(Index seed, const std::vector<Index>& inside,
                                const std::vector<std::vector<Index>>& neighbours, std::vector<char>& mark) {
  for (const Index e : inside) mark[static_cast<std::size_t>(e)] = 1;
  std::vector<Index> reached{seed}, stack{seed};
  mark[static_cast<std::size_t>(seed)] = 0;
  while (!stack.empty()) {
    const Index e = stack.back();
    stack.pop_back();
    for (const Index f : neighbours[static_cast<std::size_t>(e)])
      if (mark[static_cast<std::size_t>(f)]) {
        mark[static_cast<std::size_t>(f)] = 0;
        reached.push_back(f);
        stack.push_back(f);
      }
  }
  for (const Index e : inside) mark[static_cast<std::size_t>(e)] = 0;
  return reached;
}

// Refuses a removed element's face on the mesh's boundary where its hole may not have one, and an
// open cavity with none. Such a face is where a flat-bottom hole or a notch opens, or a 3D
// side-drilled hole's open end (its normal along the axis, a hole drilled through); else the
// side-drilled hole breaks out of the part's side.
void check_openings(const Mesh& mesh, std::span<const Face> boundary, const std::vector<int>& hole_of,
                    std::span<const Hole> holes) {
  const int dim = mesh.dim();
  std::vector<char> opens(holes.size(), 0);
  for (const Face& face : boundary) {
    const int h = hole_of[static_cast<std::size_t>(face.element)];
    if (h < 0) continue;
    const Hole& hole = holes[static_cast<std::size_t>(h)];
    opens[static_cast<std::size_t>(h)] = 1;
    if (hole.kind != Hole::Kind::side_drilled) continue;
    const FacePlane plane = face_plane(mesh, face);
    const double size = vec3::norm(plane.normal);
    // Within about 25 degrees of the axis: an end.
    if (dim == 3 && std::abs(dot(plane.normal, hole.axis)) >= 0.9 * size) continue;
    throw Error(str(hole.origin, ": hole '", hole.name, "' reaches the mesh's boundary", dim == 3 ? " sideways" : "",
                    " (element ", mesh.element_label(face.element), "); a side-drilled hole lies inside the part (a "
                    "flat-bottom hole, 'bottom', or a [[mesh.notch]] opens on its surface)"));
  }
  for (std::size_t h = 0; h < holes.size(); ++h)
    TREMOR_CHECK(holes[h].kind == Hole::Kind::side_drilled || opens[h], holes[h].origin, ": ", holes[h].kind_name(), " '",
                 holes[h].name, "' does not reach the mesh's boundary along its axis (", holes[h].axis[0], ", ",
                 holes[h].axis[1], dim == 3 ? str(", ", holes[h].axis[2]) : std::string(),
                 "): it opens on the surface it is cut from, its axis pointing out of the part");
}

// `mesh` without the elements hole_of marks (elements renumbered in order, unused nodes dropped,
// every set following), each hole's wall its surface.
Mesh without_holes(const Mesh& mesh, const std::vector<int>& hole_of, std::span<Hole> holes,
                   const std::vector<std::vector<Face>>& walls) {
  const Index n_elements = mesh.n_elements();
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
  Mesh out(mesh.dim());
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
  return out;
}

}  // namespace

void drill_holes(Mesh& mesh, std::span<Hole> holes) {
  if (holes.empty()) return;
  const Index n_elements = mesh.n_elements();
  const FaceIndex index(mesh);
  const std::vector<std::array<Face, 2>> shared = index.shared();
  // Elements sharing a face, for the open cavities' fill (made when one needs them).
  std::vector<std::vector<Index>> neighbours;
  std::vector<int> hole_of(static_cast<std::size_t>(n_elements), -1);
  std::vector<char> mark(static_cast<std::size_t>(n_elements), 0);
  for (std::size_t h = 0; h < holes.size(); ++h) {
    Hole& hole = holes[h];
    const std::string at = str(hole.origin, ": ", hole.kind_name(), " '", hole.name, "'");
    check_shape(hole, mesh.dim());
    TREMOR_CHECK(mesh.face_sets.count(hole.name) == 0, at, ": the mesh has a surface '", hole.name,
                 "' already; the hole's wall takes its name");
    for (std::size_t other = 0; other < h; ++other)
      TREMOR_CHECK(holes[other].name != hole.name, at, ": ", holes[other].kind_name(), " '", hole.name, "' (",
                   holes[other].origin, ") has that name already; each wall is a surface of its own name");
    Index seed = -1;
    std::vector<Index> inside = elements_inside(mesh, hole, seed);
    if (hole.kind != Hole::Kind::side_drilled && seed >= 0) {
      if (neighbours.empty()) {
        neighbours.resize(static_cast<std::size_t>(n_elements));
        for (const std::array<Face, 2>& pair : shared) {
          neighbours[static_cast<std::size_t>(pair[0].element)].push_back(pair[1].element);
          neighbours[static_cast<std::size_t>(pair[1].element)].push_back(pair[0].element);
        }
      }
      inside = reached_from(seed, inside, neighbours, mark);
    }
    for (const Index e : inside) {
      int& owner = hole_of[static_cast<std::size_t>(e)];
      TREMOR_CHECK(owner < 0, at, " overlaps ", holes[static_cast<std::size_t>(owner)].kind_name(), " '",
                   holes[static_cast<std::size_t>(owner)].name, "' (", holes[static_cast<std::size_t>(owner)].origin,
                   ")");
      owner = static_cast<int>(h);
      ++hole.removed;
    }
    TREMOR_CHECK(hole.removed > 0, at, hole.kind == Hole::Kind::notch ? str(" of width ", hole.width)
                                                                      : str(" of radius ", hole.radius),
                 " m holds no element's centre; refine the mesh there (a hole a few elements across)");
  }
  check_openings(mesh, index.boundary(), hole_of, holes);
  // Two cavities whose removed elements share a face would be one, without the wall between them:
  // refused as overlapping.
  for (const std::array<Face, 2>& pair : shared) {
    const int a = hole_of[static_cast<std::size_t>(pair[0].element)];
    const int b = hole_of[static_cast<std::size_t>(pair[1].element)];
    if (a < 0 || b < 0 || a == b) continue;
    const Hole& first = holes[static_cast<std::size_t>(std::min(a, b))];
    const Hole& second = holes[static_cast<std::size_t>(std::max(a, b))];
    throw Error(str(second.origin, ": ", second.kind_name(), " '", second.name, "' touches ", first.kind_name(), " '",
                    first.name, "' (", first.origin, "): the elements they remove share a face (elements ",
                    mesh.element_label(pair[0].element), " and ", mesh.element_label(pair[1].element),
                    "), so the two would be one cavity; move them apart by an element or more"));
  }
  // The walls: each removed element's faces that a kept element shares.
  std::vector<std::vector<Face>> walls(holes.size());
  for (const std::array<Face, 2>& pair : shared) {
    const int a = hole_of[static_cast<std::size_t>(pair[0].element)];
    const int b = hole_of[static_cast<std::size_t>(pair[1].element)];
    if ((a >= 0) == (b >= 0)) continue;
    const Face& kept = a >= 0 ? pair[1] : pair[0];
    walls[static_cast<std::size_t>(a >= 0 ? a : b)].push_back(kept);
  }
  mesh = without_holes(mesh, hole_of, holes, walls);
}

}  // namespace tremor
