#include "tremor/mesh/cracks.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/vec3.hpp"
#include "tremor/mesh/faces.hpp"

namespace tremor {

namespace {

using vec3::Vec;
using vec3::minus;
using vec3::dot;
using vec3::cross;
using vec3::norm;
using vec3::scaled;

Vec point_of(const Mesh& mesh, Index node) {
  Vec x{0.0, 0.0, 0.0};
  const std::span<const double> p = mesh.node(node);
  for (std::size_t d = 0; d < p.size(); ++d) x[d] = p[d];
  return x;
}

// A crack's plane (its unit normal through its first point) and extent: along the segment in 2D,
// inside the polygon in 3D (in the plane's coordinates along u and v).
struct Shape {
  int dim = 2;
  Vec origin{}, normal{}, u{}, v{};
  double length = 0.0;                        // 2D
  std::vector<std::array<double, 2>> polygon;  // 3D
  double size = 0.0;                          // length, or area

  double off(const Vec& x) const { return dot(minus(x, origin), normal); }

  // Whether x, on the plane, lies on the crack, `tol` beyond its edges included.
  bool within(const Vec& x, double tol) const {
    const Vec r = minus(x, origin);
    if (dim == 2) {
      const double s = dot(r, u);
      return s >= -tol && s <= length + tol;
    }
    const double a = dot(r, u), b = dot(r, v);
    bool inside = false;  // crossings of a ray along +a
    const std::size_t n = polygon.size();
    for (std::size_t i = 0, j = n - 1; i < n; j = i++) {
      const auto& p = polygon[i];
      const auto& q = polygon[j];
      // Within tol of the edge q-p: on it.
      const double ex = p[0] - q[0], ey = p[1] - q[1], l2 = ex * ex + ey * ey;
      const double t = l2 > 0.0 ? std::clamp(((a - q[0]) * ex + (b - q[1]) * ey) / l2, 0.0, 1.0) : 0.0;
      const double dx = a - (q[0] + t * ex), dy = b - (q[1] + t * ey);
      if (dx * dx + dy * dy <= tol * tol) return true;
      if ((p[1] > b) != (q[1] > b) && a < (q[0] - p[0]) * (b - p[1]) / (q[1] - p[1]) + p[0]) inside = !inside;
    }
    return inside;
  }
};

// The shape of `points` (a crack's, or a piece of one), `at` naming it in messages.
Shape shape_of(const std::vector<Vec>& points, int dim, const std::string& at) {
  for (const Vec& p : points)
    for (const double c : p) TREMOR_CHECK(std::isfinite(c), at, ": a point is not finite");
  Shape s;
  s.dim = dim;
  if (dim == 2) {
    TREMOR_CHECK(points.size() == 2, at, ": ", points.size(),
                 " points; a 2D crack is a segment, its two ends");
    s.origin = {points[0][0], points[0][1], 0.0};
    const Vec along = minus({points[1][0], points[1][1], 0.0}, s.origin);
    s.length = norm(along);
    TREMOR_CHECK(s.length > 0.0, at, ": its ends are one point");
    s.u = scaled(along, 1.0 / s.length);
    s.normal = {-s.u[1], s.u[0], 0.0};
    s.size = s.length;
    return s;
  }
  TREMOR_CHECK(points.size() >= 3, at, ": ", points.size(),
               " points; a 3D crack is a planar polygon, its vertices in order (3 or more)");
  s.origin = points[0];
  Vec newell{0.0, 0.0, 0.0};  // twice the area along the normal
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Vec& p = points[i];
    const Vec& q = points[(i + 1) % points.size()];
    newell = {newell[0] + (p[1] - q[1]) * (p[2] + q[2]), newell[1] + (p[2] - q[2]) * (p[0] + q[0]),
              newell[2] + (p[0] - q[0]) * (p[1] + q[1])};
  }
  const double twice = norm(newell);
  TREMOR_CHECK(twice > 0.0, at, ": its polygon has no area");
  s.normal = scaled(newell, 1.0 / twice);
  s.size = 0.5 * twice;
  const double scale = std::sqrt(s.size);
  for (std::size_t i = 0; i < points.size(); ++i)
    TREMOR_CHECK(std::abs(s.off(points[i])) <= 1e-6 * scale, at, ": its point ", i + 1, " lies ",
                 std::abs(s.off(points[i])), " m off the plane of the others; a crack is planar");
  const Vec first = minus(points[1], s.origin);
  s.u = minus(first, scaled(s.normal, dot(first, s.normal)));
  s.u = scaled(s.u, 1.0 / norm(s.u));
  s.v = cross(s.normal, s.u);
  for (const Vec& p : points) s.polygon.push_back({dot(minus(p, s.origin), s.u), dot(minus(p, s.origin), s.v)});
  return s;
}

// The node indices of `face`: every node (face_nodes()), or its corners alone (face_vertices()).
std::vector<Index> nodes_of(const Mesh& mesh, const Face& face, bool corners = false) {
  const ElementRef ref = mesh.locate(face.element);
  const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
  int local[max_face_nodes];
  const int n = corners ? face_vertices(block.type, block.order, face.face, local)
                        : face_nodes(block.type, block.order, face.face, local);
  std::vector<Index> out;
  const std::span<const Index> element = block.nodes(ref.element);
  for (int a = 0; a < n; ++a) out.push_back(element[static_cast<std::size_t>(local[a])]);
  return out;
}

// Union-find over a node's elements.
struct Groups {
  std::vector<Index> elements;  // sorted
  std::vector<int> parent;
  int index(Index element) const {
    return static_cast<int>(std::lower_bound(elements.begin(), elements.end(), element) - elements.begin());
  }
  int root(int i) {
    while (parent[static_cast<std::size_t>(i)] != i) i = parent[static_cast<std::size_t>(i)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(i)])];
    return i;
  }
  void join(Index a, Index b) {
    const int ra = root(index(a)), rb = root(index(b));
    if (ra != rb) parent[static_cast<std::size_t>(std::max(ra, rb))] = std::min(ra, rb);
  }
};

}  // namespace

bool Crack::near(const std::array<double, 3>& x, int dim, double tol) const {
  const Vec p{x[0], x[1], dim == 3 ? x[2] : 0.0};
  const auto close = [&](const std::vector<Vec>& piece) {
    const Shape shape = shape_of(piece, dim, str(origin, ": crack '", name, "'"));
    return std::abs(shape.off(p)) <= tol && shape.within(p, tol);
  };
  if (pieces.empty()) return close(points);
  return std::any_of(pieces.begin(), pieces.end(), close);
}

void cut_cracks(Mesh& mesh, std::span<Crack> cracks) {
  if (cracks.empty()) return;
  const int dim = mesh.dim();
  const FaceIndex index(mesh);
  const std::vector<std::array<Face, 2>> shared = index.shared();
  // Each crack's faces: the interior faces whose corners lie on it.
  std::map<Face, int> crack_of_face;  // by the pair's first face
  std::map<Index, int> crack_of_node;
  // Each interior face's pair, by either face: where a named surface's faces lie.
  std::map<Face, std::size_t> pair_of;
  for (std::size_t k = 0; k < shared.size(); ++k) {
    pair_of.emplace(shared[k][0], k);
    pair_of.emplace(shared[k][1], k);
  }
  for (std::size_t c = 0; c < cracks.size(); ++c) {
    Crack& crack = cracks[c];
    const std::string at = str(crack.origin, ": crack '", crack.name, "'");
    const bool named = !crack.surface.empty();
    for (std::size_t earlier = 0; earlier < c; ++earlier)
      TREMOR_CHECK(cracks[earlier].name != crack.name, at, ": crack '", crack.name, "' at ", cracks[earlier].origin,
                   " has that name already: give each crack its own");
    TREMOR_CHECK(!crack.name.empty() && (mesh.face_sets.count(crack.name) == 0 || (named && crack.name == crack.surface)),
                 at, ": ",
                 crack.name.empty() ? "it needs a name (its faces' surface)"
                                    : "the mesh has a surface of that name already; the crack's faces take it");
    std::vector<Face> faces;
    // The pair of faces on the crack: its first face names it in crack_of_face.
    const auto take = [&](const std::array<Face, 2>& pair) {
      faces.push_back(pair[0]);
      faces.push_back(pair[1]);
      const auto [where, added] = crack_of_face.emplace(pair[0], static_cast<int>(c));
      TREMOR_CHECK(added, at, " overlaps crack '", cracks[static_cast<std::size_t>(where->second)].name, "' (",
                   cracks[static_cast<std::size_t>(where->second)].origin, ")");
      ++crack.faces;
    };
    crack.pieces.clear();
    if (named) {
      const auto set = mesh.face_sets.find(crack.surface);
      TREMOR_CHECK(set != mesh.face_sets.end(), at, ": the mesh has no surface '", crack.surface,
                   "' (a Gmsh physical group or an Abaqus *SURFACE of faces inside the part)");
      std::set<std::size_t> pairs;  // each interior face once, whichever side the set names
      for (const Face& face : set->second) {
        const auto pair = pair_of.find(face);
        TREMOR_CHECK(pair != pair_of.end(), at, ": face ", face.face + 1, " of element ",
                     mesh.element_label(face.element), " of surface '", crack.surface,
                     "' lies on the mesh's boundary; a crack's faces lie inside the part (its mouth is where they "
                     "meet the boundary)");
        pairs.insert(pair->second);
      }
      TREMOR_CHECK(!pairs.empty(), at, ": surface '", crack.surface, "' holds no face");
      for (const std::size_t k : pairs) {
        take(shared[k]);
        std::vector<Vec> corners;
        for (const Index node : nodes_of(mesh, shared[k][0], true)) corners.push_back(point_of(mesh, node));
        if (dim == 2 || corners.size() == 3) {
          crack.pieces.push_back(corners);
        } else {  // a quadrilateral in two triangles: planar, whatever its corners
          crack.pieces.push_back({corners[0], corners[1], corners[2]});
          crack.pieces.push_back({corners[0], corners[2], corners[3]});
        }
      }
    } else {
      const Shape shape = shape_of(crack.points, dim, at);
      double covered = 0.0;
      for (const std::array<Face, 2>& pair : shared) {
        const FacePlane plane = face_plane(mesh, pair[0]);
        const double size = norm(plane.normal);
        const double tol = 1e-6 * (dim == 2 ? size : std::sqrt(size));
        if (std::abs(shape.off(plane.centre)) > tol || !shape.within(plane.centre, tol)) continue;
        bool on = true;
        for (const Index node : nodes_of(mesh, pair[0], true)) {
          const Vec x = point_of(mesh, node);
          on = on && std::abs(shape.off(x)) <= tol && shape.within(x, tol);
        }
        if (!on) continue;
        covered += size;
        take(pair);
      }
      const char* unit = dim == 2 ? " m" : " m^2";
      TREMOR_CHECK(std::abs(covered - shape.size) <= 1e-6 * shape.size, at, ": element faces cover ", covered, unit,
                   " of its ", shape.size, unit,
                   ": it runs through elements rather than along their faces, or leaves the mesh. A crack is cut "
                   "along the faces of a conforming mesh: place it on the mesh's lines (a generated block's cell "
                   "boundaries) or refine the mesh so that they lie on it");
      crack.pieces.push_back(crack.points);
    }
    for (const Index node : nodes_of_faces(mesh, faces)) {  // (each once)
      const auto [where, added] = crack_of_node.emplace(node, static_cast<int>(c));
      if (added) continue;
      std::string position;
      for (const double x : mesh.node(node)) position += str(position.empty() ? "(" : ", ", x);
      throw Error(str(at, " crosses or touches crack '", cracks[static_cast<std::size_t>(where->second)].name, "' (",
                      cracks[static_cast<std::size_t>(where->second)].origin, ") at ", position, ") (node ",
                      mesh.node_labels[static_cast<std::size_t>(node)], "); cracks are cut apart from each other"));
    }
    normalise_faces(faces);
    mesh.face_sets[crack.name] = std::move(faces);
  }

  // The elements around each node on a crack, joined through the faces that hold the node and are
  // not a crack's: the groups the crack separates.
  std::map<Index, Groups> around;
  for (const auto& [node, crack] : crack_of_node) around[node];
  {
    Index global = 0;
    for (const ElementBlock& block : mesh.blocks)
      for (Index e = 0; e < block.n_elements(); ++e, ++global)
        for (const Index node : block.nodes(e))
          if (const auto g = around.find(node); g != around.end()) g->second.elements.push_back(global);
  }
  for (auto& [node, groups] : around) {
    normalise_set(groups.elements);
    groups.parent.resize(groups.elements.size());
    std::iota(groups.parent.begin(), groups.parent.end(), 0);
  }
  for (const std::array<Face, 2>& pair : shared) {
    if (crack_of_face.count(pair[0])) continue;
    for (const Index node : nodes_of(mesh, pair[0]))
      if (const auto g = around.find(node); g != around.end()) g->second.join(pair[0].element, pair[1].element);
  }

  // A copy of the node for each group after the first (the one holding its lowest element).
  Label next_label = 0;
  for (const Label label : mesh.node_labels) next_label = std::max(next_label, label);
  std::map<Index, std::vector<Index>> copies;  // node -> its copies, for the node sets
  for (auto& [node, groups] : around) {
    std::map<int, Index> node_of_group;  // root -> the node its elements hold
    for (std::size_t i = 0; i < groups.elements.size(); ++i) {
      const int root = groups.root(static_cast<int>(i));
      auto [where, added] = node_of_group.emplace(root, node);
      if (added && root != 0) {
        const std::vector<double> x(mesh.node(node).begin(), mesh.node(node).end());
        where->second = mesh.add_node(++next_label, x);
        copies[node].push_back(where->second);
        ++cracks[static_cast<std::size_t>(crack_of_node.at(node))].copied_nodes;
      }
      if (where->second == node) continue;
      const ElementRef ref = mesh.locate(groups.elements[i]);
      ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
      const auto n = static_cast<std::size_t>(block.n_element_nodes());
      for (std::size_t a = 0; a < n; ++a) {
        Index& held = block.connectivity[static_cast<std::size_t>(ref.element) * n + a];
        if (held == node) held = where->second;
      }
    }
  }
  for (auto& [name, set] : mesh.node_sets) {
    const std::size_t before = set.size();
    for (std::size_t k = 0; k < before; ++k)
      if (const auto c = copies.find(set[k]); c != copies.end()) set.insert(set.end(), c->second.begin(), c->second.end());
    normalise_set(set);
  }
}

}  // namespace tremor
