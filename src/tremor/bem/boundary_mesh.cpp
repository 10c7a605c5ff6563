#include "tremor/bem/boundary_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <unordered_map>
#include <utility>

#include "tremor/bem/cell_grid.hpp"
#include "tremor/bem/integration.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/vec3.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor::bem {
namespace {

using vec3::Vec;
using vec3::dot;
using vec3::cross;
using vec3::norm;

Vec operator-(const Vec& a, const Vec& b) { return vec3::minus(a, b); }
Vec operator+(const Vec& a, const Vec& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Vec operator*(double s, const Vec& a) { return vec3::scaled(a, s); }

Vec node_position(const BoundaryMesh& mesh, Index node) {
  const double* x = mesh.coordinates.data() + 3 * static_cast<std::size_t>(node);
  return {x[0], x[1], x[2]};
}

const Index* vertices_of(const BoundaryMesh& mesh, Index e) {
  return mesh.connectivity.data() + 4 * static_cast<std::size_t>(e);
}

Index node_label(const BoundaryMesh& mesh, Index node) { return mesh.node_labels[static_cast<std::size_t>(node)]; }

// The element's geometry nodes' indices: vertices, then a second-order element's mid-edge nodes
// and centre (integration.hpp's ElementNodes order). Returns their count.
int geometry_nodes(const BoundaryMesh& mesh, Index e, Index* out) {
  const int n = mesh.n_vertices(e), count = mesh.n_geometry_nodes(e);
  const Index* v = vertices_of(mesh, e);
  for (int k = 0; k < n; ++k) out[k] = v[k];
  for (int k = n; k < count; ++k) out[k] = mesh.mid_nodes[5 * static_cast<std::size_t>(e) + (k - n)];
  return count;
}

ElementNodes nodes_of(const BoundaryMesh& mesh, Index e) {
  return gather_element(mesh.coordinates.data(), mesh.connectivity.data(),
                        mesh.quadratic() ? mesh.mid_nodes.data() : nullptr, e);
}
Index element_label(const BoundaryMesh& mesh, Index e) { return mesh.element_labels[static_cast<std::size_t>(e)]; }

std::string position_text(const Vec& x) { return str("(", x[0], ", ", x[1], ", ", x[2], ")"); }

// "3, 9, 12" : the labels of an element's vertices.
std::string vertex_labels(const BoundaryMesh& mesh, Index e) {
  const Index* v = vertices_of(mesh, e);
  std::string out;
  for (int k = 0; k < mesh.n_vertices(e); ++k) out += (k ? ", " : "") + str(node_label(mesh, v[k]));
  return out;
}

Index to_index_label(Label label, const std::string& source, const char* what) {
  TREMOR_CHECK(label >= std::numeric_limits<Index>::min() && label <= std::numeric_limits<Index>::max(), source, ": ",
               what, " label ", label, " is beyond the range of boundary-mesh labels (", std::numeric_limits<Index>::max(),
               "); renumber the mesh");
  return static_cast<Index>(label);
}

// ---- Checks ---------------------------------------------------------------------------------

// Array sizes, index ranges, finite coordinates and distinct labels: what every later check and
// every message relies on.
void check_structure(const BoundaryMesh& mesh) {
  const std::string& source = mesh.source;
  TREMOR_CHECK(mesh.coordinates.size() % 3 == 0, source, ": ", mesh.coordinates.size(),
               " coordinates, not 3 per node");
  TREMOR_CHECK(mesh.connectivity.size() % 4 == 0, source, ": ", mesh.connectivity.size(),
               " connectivity entries, not 4 per element");
  const Index n_nodes = mesh.n_nodes(), n_elements = mesh.n_elements();
  TREMOR_CHECK(mesh.node_labels.size() == static_cast<std::size_t>(n_nodes), source, ": ", mesh.node_labels.size(),
               " node labels for ", n_nodes, " nodes");
  TREMOR_CHECK(mesh.element_labels.size() == static_cast<std::size_t>(n_elements), source, ": ",
               mesh.element_labels.size(), " element labels for ", n_elements, " elements");
  TREMOR_CHECK(n_elements > 0, source, ": the boundary mesh has no elements");
  TREMOR_CHECK(mesh.mid_nodes.empty() || mesh.mid_nodes.size() == 5 * static_cast<std::size_t>(n_elements), source,
               ": ", mesh.mid_nodes.size(), " second-order node entries, not 5 per element");

  std::unordered_map<Index, Index> seen;
  seen.reserve(static_cast<std::size_t>(n_nodes));
  for (Index i = 0; i < n_nodes; ++i) {
    const auto [it, inserted] = seen.emplace(node_label(mesh, i), i);
    TREMOR_CHECK(inserted, source, ": node label ", node_label(mesh, i), " is used by two nodes (indices ", it->second,
                 " and ", i, "); labels must be distinct");
    const Vec x = node_position(mesh, i);
    TREMOR_CHECK(std::isfinite(x[0]) && std::isfinite(x[1]) && std::isfinite(x[2]), source, ": node ",
                 node_label(mesh, i), " has a coordinate that is not finite: ", position_text(x));
  }
  seen.clear();
  seen.reserve(static_cast<std::size_t>(n_elements));
  for (Index e = 0; e < n_elements; ++e) {
    const auto [it, inserted] = seen.emplace(element_label(mesh, e), e);
    TREMOR_CHECK(inserted, source, ": element label ", element_label(mesh, e), " is used by two elements (indices ",
                 it->second, " and ", e, "); labels must be distinct");
    const Index* v = vertices_of(mesh, e);
    for (int k = 0; k < 4; ++k) {
      if (k == 3 && v[k] == -1) continue;  // a triangle
      TREMOR_CHECK(v[k] >= 0 && v[k] < n_nodes, source, ": element ", element_label(mesh, e), " refers to node index ",
                   v[k], " (vertex ", k, ") outside 0..", n_nodes - 1,
                   k == 3 ? " (a triangle's 4th entry is -1)" : "");
    }
    if (!mesh.quadratic()) continue;
    const Index* m = mesh.mid_nodes.data() + 5 * static_cast<std::size_t>(e);
    const int n = mesh.n_vertices(e);
    for (int k = 0; k < 5; ++k) {
      const bool optional = k == 4 && n == 4;  // an 8-node quadrilateral has no centre
      if (k >= n && !optional)
        TREMOR_CHECK(m[k] == -1, source, ": element ", element_label(mesh, e), " (a triangle) has a second-order node entry ",
                     k, " (", m[k], ") where -1 belongs: a triangle has 3 mid-edge nodes");
      else if (!(optional && m[k] == -1))
        TREMOR_CHECK(m[k] >= 0 && m[k] < n_nodes, source, ": element ", element_label(mesh, e),
                     " refers to node index ", m[k], " (", k < n ? "mid-edge node " : "centre node ", k, ") outside 0..",
                     n_nodes - 1);
    }
  }
  for (const auto& [name, members] : mesh.element_sets)
    for (Index e : members)
      TREMOR_CHECK(e >= 0 && e < n_elements, source, ": element set '", name, "' holds element index ", e,
                   " outside 0..", n_elements - 1);
}

// Distinct nodes closer than 1e-9 x the bounding-box diagonal: a grid of cells of that size, each
// node compared with the nodes of its own and the 26 neighbouring cells (two nodes that close lie
// in cells at most one apart along each axis). Linear in the node count.
void check_duplicate_nodes(const BoundaryMesh& mesh, const BoundingBox& box) {
  const Index n_nodes = mesh.n_nodes();
  if (n_nodes < 2) return;
  const double diagonal = box.diagonal();
  // Coordinates written with ~16 significant digits differ by ~1e-15 of the extent; nodes meant to
  // be distinct are many orders further apart than 1e-9 of it in any mesh a solver can use.
  const double tolerance = 1e-9 * diagonal;
  const auto report = [&](Index a, Index b) {
    const Vec xa = node_position(mesh, a), xb = node_position(mesh, b);
    throw Error(str(mesh.source, ": nodes ", node_label(mesh, a), " and ", node_label(mesh, b), " are distinct but lie ",
                    norm(xb - xa), " apart at ", position_text(xa), ", closer than 1e-9 x the bounding-box diagonal (",
                    diagonal, "); elements meeting there must share one node: merge the duplicates (in Gmsh, "
                    "Coherence Mesh)"));
  };
  if (diagonal == 0.0) report(0, 1);
  const auto cell = [&](const Vec& x) {
    return CellKey{static_cast<std::int64_t>(std::floor((x[0] - box.lower[0]) / tolerance)),
                   static_cast<std::int64_t>(std::floor((x[1] - box.lower[1]) / tolerance)),
                   static_cast<std::int64_t>(std::floor((x[2] - box.lower[2]) / tolerance))};
  };
  std::unordered_map<CellKey, Index, CellHash> first;  // cell -> its first node; more via `next`
  first.reserve(static_cast<std::size_t>(n_nodes));
  std::vector<Index> next(static_cast<std::size_t>(n_nodes), -1);
  for (Index i = 0; i < n_nodes; ++i) {
    const Vec x = node_position(mesh, i);
    const CellKey c = cell(x);
    for (std::int64_t dx = -1; dx <= 1; ++dx)
      for (std::int64_t dy = -1; dy <= 1; ++dy)
        for (std::int64_t dz = -1; dz <= 1; ++dz) {
          const auto it = first.find({c.x + dx, c.y + dy, c.z + dz});
          if (it == first.end()) continue;
          for (Index j = it->second; j >= 0; j = next[static_cast<std::size_t>(j)])
            if (norm(node_position(mesh, j) - x) < tolerance) report(j, i);
        }
    const auto [it, inserted] = first.emplace(c, i);
    if (!inserted) {
      next[static_cast<std::size_t>(i)] = it->second;
      it->second = i;
    }
  }
}

// A second-order element: each mid-edge node within a quarter of its edge's length of the
// edge's midpoint (a mesher's mid-edge node lies on the edge or on the curve through it; one
// further off is a misplaced node, whose element folds), a 9-node quadrilateral's centre within a
// quarter of the diameter of where the 8 others put it, and dx/ds x dx/dt on the normal's side at
// 4 x 4 points spread over the element (a fold turns it against the normal).
void check_curved_shape(const BoundaryMesh& mesh, Index e, const ElementGeometry& g) {
  const Index* v = vertices_of(mesh, e);
  const Index* m = mesh.mid_nodes.data() + 5 * static_cast<std::size_t>(e);
  const int n = mesh.n_vertices(e);
  for (int k = 0; k < n; ++k) {
    const Vec a = node_position(mesh, v[k]), b = node_position(mesh, v[(k + 1) % n]);
    const double length = norm(b - a), off = norm(node_position(mesh, m[k]) - 0.5 * (a + b));
    TREMOR_CHECK(off <= 0.25 * length, mesh.source, ": element ", element_label(mesh, e), "'s mid-edge node ",
                 node_label(mesh, m[k]), " lies ", off, " from the midpoint of its edge (nodes ", node_label(mesh, v[k]),
                 " to ", node_label(mesh, v[(k + 1) % n]), ", ", length,
                 " long), more than a quarter of the edge's length: a second-order element's mid-edge node lies on "
                 "or near its edge; the node is misplaced or the element's nodes are out of order (vertices, then "
                 "the mid-edge nodes of edges 01, 12, ...)");
  }
  if (n == 4 && m[4] >= 0) {
    Vec serendipity{};  // the 8-node element's centre: -1/4 of the vertices and 1/2 of the mid-edge nodes
    for (int k = 0; k < 4; ++k) serendipity = serendipity + (-0.25 * node_position(mesh, v[k])) + 0.5 * node_position(mesh, m[k]);
    const double off = norm(node_position(mesh, m[4]) - serendipity);
    TREMOR_CHECK(off <= 0.25 * g.diameter, mesh.source, ": element ", element_label(mesh, e), "'s centre node ",
                 node_label(mesh, m[4]), " lies ", off, " from the centre its other 8 nodes give, more than a quarter "
                 "of its diameter (", g.diameter, "): the node is misplaced");
  }
  const ElementNodes nodes = nodes_of(mesh, e);
  const GaussRule rule = gauss_rule(4);
  const double small = 1e-12 * g.diameter * g.diameter;
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 4; ++k) {
      double s = rule.x[i], t = rule.x[k];
      if (n == 3) {  // the square's points collapsed onto the triangle
        const double u = 0.5 * (1 + s), w = 0.5 * (1 + t);
        s = u * (1 - w);
        t = u * w;
      }
      double x[3], j[3];
      element_map(nodes, s, t, x, j);
      TREMOR_CHECK(j[0] * g.normal[0] + j[1] * g.normal[1] + j[2] * g.normal[2] > small, mesh.source, ": element ",
                   element_label(mesh, e), " (vertices ", vertex_labels(mesh, e),
                   ") folds: its surface turns against its normal near ", position_text({x[0], x[1], x[2]}),
                   "; check the positions of its mid-edge nodes");
    }
}

// Repeated vertices, vanishing area, quadrilaterals folded or concave.
void check_element_shape(const BoundaryMesh& mesh, Index e, const ElementGeometry& g) {
  const Index* v = vertices_of(mesh, e);
  const int n = mesh.n_vertices(e);
  Index all[max_geometry_nodes];
  const int count = geometry_nodes(mesh, e, all);
  for (int a = 0; a < count; ++a)
    for (int b = a + 1; b < count; ++b)
      TREMOR_CHECK(all[a] != all[b], mesh.source, ": element ", element_label(mesh, e), " repeats node ",
                   node_label(mesh, all[a]), " (its vertices: ", vertex_labels(mesh, e),
                   "); an element's nodes must be distinct");
  // Rounding leaves ~1e-16 d^2 of area in an element whose vertices are collinear; 1e-12 d^2 is
  // far above that and far below any element worth integrating over (aspect ratio 1e12).
  const double small = 1e-12 * g.diameter * g.diameter;
  TREMOR_CHECK(g.area >= small && g.area > 0.0, mesh.source, ": element ", element_label(mesh, e),
               " is degenerate: its area ", g.area, " is below 1e-12 x its diameter^2 (diameter ", g.diameter,
               "); its vertices ", vertex_labels(mesh, e), " are collinear or coincide");
  if (count > n) check_curved_shape(mesh, e, g);
  if (n == 4 && count == n) {
    // The bilinear map is invertible when the Jacobian at every corner points the normal's way;
    // at a reflex corner (concave) or a crossed pair of edges (folded) it turns against it.
    for (int k = 0; k < 4; ++k) {
      const Vec x = node_position(mesh, v[k]);
      const Vec to_next = node_position(mesh, v[(k + 1) % 4]) - x, to_previous = node_position(mesh, v[(k + 3) % 4]) - x;
      TREMOR_CHECK(dot(cross(to_next, to_previous), g.normal) > small, mesh.source, ": element ",
                   element_label(mesh, e), " (a quadrilateral with vertices ", vertex_labels(mesh, e),
                   ") is folded or concave at node ", node_label(mesh, v[k]),
                   ": its corner there turns against the element's normal; move the node or split the element "
                   "into two triangles");
    }
  }
}

// Every use of one edge (at most three are kept: a third is already an error).
struct EdgeUse {
  Index count = 0;
  Index element[3] = {-1, -1, -1};
  bool forward[3] = {false, false, false};  // walked from the smaller node index to the larger
  Index mid[3] = {-1, -1, -1};              // a second-order element's mid-edge node
};

std::uint64_t edge_key(Index a, Index b) {
  const auto lo = static_cast<std::uint64_t>(static_cast<std::uint32_t>(std::min(a, b)));
  const auto hi = static_cast<std::uint64_t>(static_cast<std::uint32_t>(std::max(a, b)));
  return (lo << 32) | hi;
}

struct Topology {
  Index n_edges = 0;
  Index n_boundary_edges = 0;
  Index boundary_element = -1;  // an element with a boundary edge, and that edge's nodes
  Index boundary_from = -1, boundary_to = -1;
};

// Edges shared by more than two elements, and pairs of elements running a shared edge the same
// way (their normals point to opposite sides), found through one hash of the edges.
Topology check_edges(const BoundaryMesh& mesh) {
  std::unordered_map<std::uint64_t, EdgeUse> edges;
  edges.reserve(4 * static_cast<std::size_t>(mesh.n_elements()));
  const auto for_each_edge = [&](Index e, auto&& body) {
    const Index* v = vertices_of(mesh, e);
    const int n = mesh.n_vertices(e);
    for (int k = 0; k < n; ++k)
      body(v[k], v[(k + 1) % n], mesh.quadratic() ? mesh.mid_nodes[5 * static_cast<std::size_t>(e) + k] : Index{-1});
  };
  for (Index e = 0; e < mesh.n_elements(); ++e)
    for_each_edge(e, [&](Index from, Index to, Index mid) {
      EdgeUse& use = edges[edge_key(from, to)];
      if (use.count < 3) {
        use.element[use.count] = e;
        use.forward[use.count] = from < to;
        use.mid[use.count] = mid;
      }
      ++use.count;
    });

  Topology topology;
  topology.n_edges = static_cast<Index>(edges.size());
  // Reported in element order, so the first problem in the mesh is the one named.
  for (Index e = 0; e < mesh.n_elements(); ++e)
    for_each_edge(e, [&](Index from, Index to, Index) {
      const EdgeUse& use = edges.at(edge_key(from, to));
      if (use.count > 2)
        throw Error(str(mesh.source, ": the edge between nodes ", node_label(mesh, from), " and ", node_label(mesh, to),
                        " is shared by ", use.count, " elements (", element_label(mesh, use.element[0]), ", ",
                        element_label(mesh, use.element[1]), ", ", element_label(mesh, use.element[2]),
                        use.count > 3 ? ", ..." : "", "); a boundary mesh is a manifold surface: each edge "
                        "belongs to two elements, or to one on the rim of an open mesh"));
      if (use.count == 2 && use.forward[0] == use.forward[1] && use.element[0] == e) {
        const Index other = use.element[1];
        throw Error(str(mesh.source, ": elements ", element_label(mesh, e), " and ", element_label(mesh, other),
                        " both run their shared edge from node ", node_label(mesh, from), " to node ",
                        node_label(mesh, to), ", so their normals point to opposite sides (inconsistent "
                        "orientation); neighbouring elements run a shared edge in opposite directions: reverse the "
                        "vertex order of one so both normals point out of the solid"));
      }
      if (use.count == 2 && use.mid[0] != use.mid[1] && use.element[0] == e)
        throw Error(str(mesh.source, ": elements ", element_label(mesh, e), " and ", element_label(mesh, use.element[1]),
                        " share the edge from node ", node_label(mesh, from), " to node ", node_label(mesh, to),
                        " but not its mid-edge node (", node_label(mesh, use.mid[0]), " and ",
                        node_label(mesh, use.mid[1]), "): the mesh is not conforming; neighbouring second-order "
                        "elements share their edge's three nodes"));
      if (use.count == 1) {
        ++topology.n_boundary_edges;
        if (topology.boundary_element < 0) {
          topology.boundary_element = e;
          topology.boundary_from = from;
          topology.boundary_to = to;
        }
      }
    });
  return topology;
}

void warn_unused_nodes(const BoundaryMesh& mesh) {
  std::vector<bool> used(static_cast<std::size_t>(mesh.n_nodes()), false);
  for (Index e = 0; e < mesh.n_elements(); ++e) {
    Index all[max_geometry_nodes];
    const int count = geometry_nodes(mesh, e, all);
    for (int k = 0; k < count; ++k) used[static_cast<std::size_t>(all[k])] = true;
  }
  const auto unused = std::count(used.begin(), used.end(), false);
  if (unused == 0) return;
  const auto first = static_cast<Index>(std::find(used.begin(), used.end(), false) - used.begin());
  log::warn(str(mesh.source, ": ", unused, " node", unused > 1 ? "s are" : " is", " used by no element (first: node ",
                node_label(mesh, first), "); they carry no unknowns of the boundary integral equation"));
}

const char* solid_name(Solid solid) {
  switch (solid) {
    case Solid::Inside: return "Solid::Inside";
    case Solid::Outside: return "Solid::Outside";
    case Solid::Open: return "Solid::Open";
  }
  return "";
}

}  // namespace

// ---- Reading --------------------------------------------------------------------------------

BoundaryMesh boundary_mesh(const Mesh& mesh, std::string source) {
  TREMOR_CHECK(mesh.dim() == 3, source, ": a ", mesh.dim(),
               "D mesh; a boundary mesh is a surface in 3D (read it with io::read_gmsh_surface)");
  BoundaryMesh out;
  out.source = std::move(source);
  out.coordinates = mesh.coordinates;
  out.node_labels.reserve(static_cast<std::size_t>(mesh.n_nodes()));
  for (Label label : mesh.node_labels) out.node_labels.push_back(to_index_label(label, out.source, "node"));
  out.connectivity.reserve(4 * static_cast<std::size_t>(mesh.n_elements()));
  out.element_labels.reserve(static_cast<std::size_t>(mesh.n_elements()));
  const ElementBlock* straight = nullptr;  // the first block of each kind, for the mixing error
  const ElementBlock* curved = nullptr;
  for (const ElementBlock& block : mesh.blocks) {
    const bool quad9 = block.type == ElementType::QuadGLL && block.order == 2;
    const bool second = block.type == ElementType::Tri6 || block.type == ElementType::Quad8 || quad9;
    TREMOR_CHECK(block.type == ElementType::Tri3 || block.type == ElementType::Quad4 || second, out.source, ": ",
                 element_name(block.type, block.order), " elements (first: element ",
                 block.labels.empty() ? Label{0} : block.labels.front(),
                 "); a boundary mesh holds triangles and quadrilaterals, straight-sided (tri3, quad4) or of the "
                 "second order (tri6, quad8, quad9)");
    if (block.n_elements() == 0) continue;
    const ElementBlock*& first = second ? curved : straight;
    if (!first) first = &block;
    if (straight && curved)
      throw Error(str(out.source, ": straight-sided and second-order elements mixed (element ", straight->labels.front(),
                      " is a ", element_name(straight->type, straight->order), ", element ", curved->labels.front(),
                      " a ", element_name(curved->type, curved->order),
                      "); a boundary mesh is all of one order (in Gmsh, one Mesh.ElementOrder for the whole surface)"));
    for (Index e = 0; e < block.n_elements(); ++e) {
      const std::span<const Index> nodes = block.nodes(e);
      if (quad9) {
        // QuadGLL's lexicographic order (x fastest) to vertices, mid-edges 01, 12, 23, 30, centre.
        out.connectivity.insert(out.connectivity.end(), {nodes[0], nodes[2], nodes[8], nodes[6]});
        out.mid_nodes.insert(out.mid_nodes.end(), {nodes[1], nodes[5], nodes[7], nodes[3], nodes[4]});
      } else {
        const std::size_t n = second ? nodes.size() / 2 : nodes.size();
        out.connectivity.insert(out.connectivity.end(), nodes.begin(), nodes.begin() + static_cast<std::ptrdiff_t>(n));
        if (n == 3) out.connectivity.push_back(-1);
        if (second) {
          out.mid_nodes.insert(out.mid_nodes.end(), nodes.begin() + static_cast<std::ptrdiff_t>(n), nodes.end());
          out.mid_nodes.insert(out.mid_nodes.end(), 5 - n, Index{-1});
        }
      }
      out.element_labels.push_back(to_index_label(block.labels[static_cast<std::size_t>(e)], out.source, "element"));
    }
  }
  // Blocks are flattened in order, so the Mesh's global element indices carry over.
  out.element_sets = mesh.element_sets;
  return out;
}


// ---- Geometry -------------------------------------------------------------------------------

ElementGeometry element_geometry(const BoundaryMesh& mesh, Index e) {
  const Index* v = vertices_of(mesh, e);
  const int n = mesh.n_vertices(e);
  Vec x[4];
  for (int k = 0; k < n; ++k) x[k] = node_position(mesh, v[k]);
  ElementGeometry g;
  Vec jacobian{};  // dx/dxi x dx/deta at the reference centre
  if (mesh.quadratic()) {
    const ElementNodes nodes = nodes_of(mesh, e);
    double st[2], centre[3], j[3];
    reference_centre(n, st);
    element_map(nodes, st[0], st[1], centre, j);
    g.centroid = {centre[0], centre[1], centre[2]};
    jacobian = {j[0], j[1], j[2]};
    integrate_piece(nodes, whole_element(n), gauss_rule(4), 0, 1, [&](const double*, const double*, const double* jx, double w) {
      g.area += w * std::sqrt(jx[0] * jx[0] + jx[1] * jx[1] + jx[2] * jx[2]);
    });
    for (int a = 0; a < nodes.n_nodes; ++a)
      for (int b = a + 1; b < nodes.n_nodes; ++b) {
        const Vec xa{nodes.x[a][0], nodes.x[a][1], nodes.x[a][2]}, xb{nodes.x[b][0], nodes.x[b][1], nodes.x[b][2]};
        g.diameter = std::max(g.diameter, norm(xb - xa));
      }
  } else if (n == 3) {
    const Vec sum = x[0] + x[1] + x[2];
    g.centroid = {sum[0] / 3, sum[1] / 3, sum[2] / 3};
    jacobian = cross(x[1] - x[0], x[2] - x[0]);
    g.area = 0.5 * norm(jacobian);
  } else {
    g.centroid = 0.25 * (x[0] + x[1] + x[2] + x[3]);
    // x(xi, eta) = sum N_k x_k with N_k = (1 + xi xi_k)(1 + eta eta_k) / 4, vertices at (-1, -1),
    // (1, -1), (1, 1), (-1, 1); the tangents are linear in the other coordinate.
    const auto tangents = [&](double xi, double eta) {
      const Vec dxi = 0.25 * ((1 - eta) * (x[1] - x[0]) + (1 + eta) * (x[2] - x[3]));
      const Vec deta = 0.25 * ((1 - xi) * (x[3] - x[0]) + (1 + xi) * (x[2] - x[1]));
      return cross(dxi, deta);
    };
    jacobian = tangents(0.0, 0.0);
    // 2x2 Gauss (points +-1/sqrt 3, weights 1): exact for a flat quadrilateral, whose |J| is linear.
    const double p = 1.0 / std::sqrt(3.0);
    for (double xi : {-p, p})
      for (double eta : {-p, p}) g.area += norm(tangents(xi, eta));
  }
  const double length = norm(jacobian);
  // Divided, not multiplied by 1 / length: an axis-aligned normal comes out exactly a unit vector.
  if (length > 0.0) g.normal = {jacobian[0] / length, jacobian[1] / length, jacobian[2] / length};
  if (!mesh.quadratic())
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b) g.diameter = std::max(g.diameter, norm(x[b] - x[a]));
  return g;
}

double signed_volume(const BoundaryMesh& mesh) {
  if (mesh.quadratic()) {
    const GaussRule rule = gauss_rule(4);
    double three_volume = 0.0;
    for (Index e = 0; e < mesh.n_elements(); ++e) {
      const ElementNodes nodes = nodes_of(mesh, e);
      integrate_piece(nodes, whole_element(nodes.n_vertices), rule, 0, 1,
                      [&](const double*, const double* x, const double* j, double w) {
                        three_volume += w * (x[0] * j[0] + x[1] * j[1] + x[2] * j[2]);
                      });
    }
    return three_volume / 3.0;
  }
  // V = (1/3) sum over flat triangles of integral x.n dA = sum of x0 . (x1 x x2) / 6.
  double six_volume = 0.0;
  for (Index e = 0; e < mesh.n_elements(); ++e) {
    const Index* v = vertices_of(mesh, e);
    const Vec x0 = node_position(mesh, v[0]), x2 = node_position(mesh, v[2]);
    six_volume += dot(x0, cross(node_position(mesh, v[1]), x2));
    if (v[3] >= 0) six_volume += dot(x0, cross(x2, node_position(mesh, v[3])));
  }
  return six_volume / 6.0;
}

double BoundingBox::diagonal() const { return norm(upper - lower); }

BoundingBox bounding_box(const BoundaryMesh& mesh) {
  BoundingBox box;
  if (mesh.n_nodes() == 0) return box;
  box.lower = box.upper = node_position(mesh, 0);
  for (Index i = 1; i < mesh.n_nodes(); ++i) {
    const Vec x = node_position(mesh, i);
    for (std::size_t d = 0; d < 3; ++d) {
      box.lower[d] = std::min(box.lower[d], x[d]);
      box.upper[d] = std::max(box.upper[d], x[d]);
    }
  }
  return box;
}

// ---- Checks ---------------------------------------------------------------------------------

namespace {

MeshReport check_mesh(const BoundaryMesh& mesh, Topology& topology) {
  check_structure(mesh);
  MeshReport report;
  report.n_nodes = mesh.n_nodes();
  report.n_elements = mesh.n_elements();
  report.box = bounding_box(mesh);
  check_duplicate_nodes(mesh, report.box);
  report.min_diameter = std::numeric_limits<double>::infinity();
  for (Index e = 0; e < mesh.n_elements(); ++e) {
    const ElementGeometry g = element_geometry(mesh, e);
    check_element_shape(mesh, e, g);
    (mesh.n_vertices(e) == 3 ? report.n_triangles : report.n_quadrilaterals) += 1;
    report.area += g.area;
    report.min_diameter = std::min(report.min_diameter, g.diameter);
    report.max_diameter = std::max(report.max_diameter, g.diameter);
  }
  topology = check_edges(mesh);
  report.n_edges = topology.n_edges;
  report.n_boundary_edges = topology.n_boundary_edges;
  report.closed = topology.n_boundary_edges == 0;
  report.signed_volume = signed_volume(mesh);
  warn_unused_nodes(mesh);
  return report;
}

}  // namespace

MeshReport check_boundary_mesh(const BoundaryMesh& mesh) {
  Topology topology;
  return check_mesh(mesh, topology);
}

MeshReport check_boundary_mesh(const BoundaryMesh& mesh, Solid solid) {
  Topology topology;
  const MeshReport report = check_mesh(mesh, topology);
  if (solid == Solid::Open) {
    if (report.closed)
      log::warn(str(mesh.source, ": the mesh is closed (every edge is shared by two elements) but declared ",
                    solid_name(solid), "; declare Solid::Inside (a body) or Solid::Outside (a cavity) so its "
                    "orientation is checked"));
    return report;
  }
  const bool inside = solid == Solid::Inside;
  if (!report.closed) {
    throw Error(str(mesh.source, ": the solid was declared ", inside ? "inside" : "outside", " the mesh (",
                    solid_name(solid), ") but the mesh is open: ", report.n_boundary_edges,
                    " edges belong to one element only (first: the edge from node ",
                    node_label(mesh, topology.boundary_from), " to node ", node_label(mesh, topology.boundary_to),
                    " of element ", element_label(mesh, topology.boundary_element),
                    "); a closed mesh shares every edge between two elements. Declare Solid::Open for a surface "
                    "that does not enclose the solid (a half-space's free surface)"));
  }
  // A closed surface enclosing a solid of size L has |V| ~ L^3 and area ~ L^2; 1e-12 A^1.5 is a
  // sliver thinner than 1e-12 of its extent, i.e. a surface that encloses nothing (two elements
  // back to back), not a body.
  TREMOR_CHECK(std::abs(report.signed_volume) > 1e-12 * std::pow(report.area, 1.5), mesh.source,
               ": the closed mesh encloses no volume (signed volume ", report.signed_volume, ", area ", report.area,
               "); its elements come in pairs back to back or cancel each other");
  if (inside && report.signed_volume < 0)
    throw Error(str(mesh.source, ": the solid was declared inside the mesh (Solid::Inside), so its normals must point "
                    "outward, but they point inward (signed volume ", report.signed_volume,
                    " < 0); reverse the orientation (flip_orientation) or declare Solid::Outside for a cavity"));
  if (!inside && report.signed_volume > 0)
    throw Error(str(mesh.source, ": the solid was declared outside the mesh (Solid::Outside, a cavity), so its "
                    "normals must point inward, into the cavity, but they point outward (signed volume ",
                    report.signed_volume, " > 0); reverse the orientation (flip_orientation) or declare "
                    "Solid::Inside for a body"));
  return report;
}

WavelengthReport check_wavelength(const BoundaryMesh& mesh, double shear_wavelength, double min_per_wavelength,
                                  int intervals) {
  TREMOR_CHECK(std::isfinite(shear_wavelength) && shear_wavelength > 0, mesh.source,
               ": the shear wavelength must be positive, got ", shear_wavelength);
  TREMOR_CHECK(std::isfinite(min_per_wavelength) && min_per_wavelength > 0, mesh.source,
               ": the minimum number of elements per wavelength must be positive, got ", min_per_wavelength);
  TREMOR_CHECK(intervals == 1 || intervals == 2, "check_wavelength: ", intervals, " intervals per element (1 or 2)");
  check_structure(mesh);  // at least one element, every index in range
  WavelengthReport report;
  for (Index e = 0; e < mesh.n_elements(); ++e) {
    const double diameter = element_geometry(mesh, e).diameter;
    if (report.element < 0 || diameter > report.diameter) {
      report.element = e;
      report.diameter = diameter;
    }
  }
  report.label = element_label(mesh, report.element);
  report.elements_per_wavelength =
      report.diameter > 0 ? shear_wavelength / report.diameter : std::numeric_limits<double>::infinity();
  report.points_per_wavelength = intervals * report.elements_per_wavelength;
  report.sufficient = report.elements_per_wavelength >= min_per_wavelength;
  if (!report.sufficient)
    report.message = str(mesh.source, ": element ", report.label, " is ", number(report.diameter), " m across: ",
                         number(report.elements_per_wavelength), intervals == 2 ? " quadratic" : "",
                         " elements per shear wavelength (", number(shear_wavelength), " m",
                         intervals == 2 ? str(", ", number(report.points_per_wavelength), " points") : std::string(),
                         ") where ", number(min_per_wavelength), " are asked for; refine to elements below ",
                         number(shear_wavelength / min_per_wavelength), " m across or lower the frequency");
  return report;
}

}  // namespace tremor::bem
