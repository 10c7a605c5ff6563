#include "tremor/mesh/faces.hpp"

#include <algorithm>

#include "tremor/core/error.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor {

namespace {

// Fixed tables, in the face numbering and orientation of faces.hpp: corners first, then the
// mid-edge nodes of the face's edges c0c1, c1c2, (c2c3,) and back to c0.
constexpr int tri3_faces[3][2] = {{0, 1}, {1, 2}, {2, 0}};
constexpr int tri6_faces[3][3] = {{0, 1, 3}, {1, 2, 4}, {2, 0, 5}};
constexpr int quad4_faces[4][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
constexpr int quad8_faces[4][3] = {{0, 1, 4}, {1, 2, 5}, {2, 3, 6}, {3, 0, 7}};
// Vertex 3 lies on the positive side of face 012, so 012 seen from outside turns clockwise.
constexpr int tet4_faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}};
constexpr int tet10_faces[4][6] = {{0, 2, 1, 6, 5, 4}, {0, 1, 3, 4, 8, 7}, {1, 2, 3, 5, 9, 8}, {0, 3, 2, 7, 9, 6}};
constexpr int hex8_faces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
constexpr int hex20_faces[6][8] = {{0, 3, 2, 1, 11, 10, 9, 8},   {4, 5, 6, 7, 12, 13, 14, 15},
                                   {0, 1, 5, 4, 8, 17, 12, 16},  {1, 2, 6, 5, 9, 18, 13, 17},
                                   {2, 3, 7, 6, 10, 19, 14, 18}, {3, 0, 4, 7, 11, 16, 15, 19}};

template <std::size_t Faces, std::size_t Nodes>
int copy_row(const int (&table)[Faces][Nodes], int face, int count, int* local) {
  for (int k = 0; k < count; ++k) local[k] = table[face][k];
  return count;
}

// Lattice coordinates (i, j, k), each 0 or P, of vertex v of a GLL element (element_type.hpp:
// vertices counter-clockwise, bottom then top).
void gll_vertex(int v, int order, int* ijk) {
  ijk[0] = (v == 1 || v == 2 || v == 5 || v == 6) ? order : 0;
  ijk[1] = (v == 2 || v == 3 || v == 6 || v == 7) ? order : 0;
  ijk[2] = v >= 4 ? order : 0;
}

// Nodes of a GLL face: the lattice points c0 + a (c1 - c0) / P (+ b (c3 - c0) / P), a fastest,
// which is the lexicographic order of a GLL line or quadrilateral running from corner c0.
int gll_face_nodes(ElementType type, int order, int face, int* local) {
  const int n = order + 1;
  if (type == ElementType::QuadGLL) {
    int from[3], to[3];
    gll_vertex(quad4_faces[face][0], order, from);
    gll_vertex(quad4_faces[face][1], order, to);
    for (int a = 0; a <= order; ++a) {
      const int i = from[0] + a * (to[0] - from[0]) / order, j = from[1] + a * (to[1] - from[1]) / order;
      local[a] = i + n * j;
    }
    return n;
  }
  int c0[3], c1[3], c3[3];
  gll_vertex(hex8_faces[face][0], order, c0);
  gll_vertex(hex8_faces[face][1], order, c1);
  gll_vertex(hex8_faces[face][3], order, c3);
  for (int b = 0; b <= order; ++b)
    for (int a = 0; a <= order; ++a) {
      int ijk[3];
      for (int d = 0; d < 3; ++d) ijk[d] = c0[d] + (a * (c1[d] - c0[d]) + b * (c3[d] - c0[d])) / order;
      local[a + n * b] = ijk[0] + n * (ijk[1] + n * ijk[2]);
    }
  return n * n;
}

void check_face(ElementType type, int order, int face) {
  TREMOR_CHECK(face >= 0 && face < n_faces(type), "face ", face, " of a ", element_name(type, order),
               " element (it has ", n_faces(type), " faces, 0..", n_faces(type) - 1, ")");
  TREMOR_CHECK(!is_gll(type) || (order >= 1 && order <= max_gll_order), "face of a ", element_name(type, order),
               " element: GLL order must be 1..", max_gll_order);
}

}  // namespace

int n_faces(ElementType type) {
  switch (type) {
    case ElementType::Tri3:
    case ElementType::Tri6: return 3;
    case ElementType::Quad4:
    case ElementType::Quad8:
    case ElementType::QuadGLL:
    case ElementType::Tet4:
    case ElementType::Tet10: return 4;
    case ElementType::Hex8:
    case ElementType::Hex20:
    case ElementType::HexGLL: return 6;
  }
  return 0;
}

FaceType face_type(ElementType type) {
  switch (type) {
    case ElementType::Tri3:
    case ElementType::Quad4: return FaceType::Line2;
    case ElementType::Tri6:
    case ElementType::Quad8: return FaceType::Line3;
    case ElementType::QuadGLL: return FaceType::LineGLL;
    case ElementType::Tet4: return FaceType::Tri3;
    case ElementType::Tet10: return FaceType::Tri6;
    case ElementType::Hex8: return FaceType::Quad4;
    case ElementType::Hex20: return FaceType::Quad8;
    case ElementType::HexGLL: return FaceType::QuadGLL;
  }
  return FaceType::Line2;
}

int face_dimension(FaceType type) {
  return (type == FaceType::Line2 || type == FaceType::Line3 || type == FaceType::LineGLL) ? 1 : 2;
}

int nodes_per_face(FaceType type, int order) {
  switch (type) {
    case FaceType::Line2: return 2;
    case FaceType::Line3: return 3;
    case FaceType::LineGLL: return order + 1;
    case FaceType::Tri3: return 3;
    case FaceType::Tri6: return 6;
    case FaceType::Quad4: return 4;
    case FaceType::Quad8: return 8;
    case FaceType::QuadGLL: return (order + 1) * (order + 1);
  }
  return 0;
}

int vertices_per_face(FaceType type) {
  switch (type) {
    case FaceType::Line2:
    case FaceType::Line3:
    case FaceType::LineGLL: return 2;
    case FaceType::Tri3:
    case FaceType::Tri6: return 3;
    default: return 4;
  }
}

std::string face_type_name(FaceType type, int order) {
  switch (type) {
    case FaceType::Line2: return "line2";
    case FaceType::Line3: return "line3";
    case FaceType::LineGLL: return str("line-gll", order);
    case FaceType::Tri3: return "tri3";
    case FaceType::Tri6: return "tri6";
    case FaceType::Quad4: return "quad4";
    case FaceType::Quad8: return "quad8";
    case FaceType::QuadGLL: return str("quad-gll", order);
  }
  return "unknown";
}

int face_nodes(ElementType type, int order, int face, int* local) {
  check_face(type, order, face);
  switch (type) {
    case ElementType::Tri3: return copy_row(tri3_faces, face, 2, local);
    case ElementType::Tri6: return copy_row(tri6_faces, face, 3, local);
    case ElementType::Quad4: return copy_row(quad4_faces, face, 2, local);
    case ElementType::Quad8: return copy_row(quad8_faces, face, 3, local);
    case ElementType::Tet4: return copy_row(tet4_faces, face, 3, local);
    case ElementType::Tet10: return copy_row(tet10_faces, face, 6, local);
    case ElementType::Hex8: return copy_row(hex8_faces, face, 4, local);
    case ElementType::Hex20: return copy_row(hex20_faces, face, 8, local);
    case ElementType::QuadGLL:
    case ElementType::HexGLL: return gll_face_nodes(type, order, face, local);
  }
  return 0;
}

int face_vertices(ElementType type, int order, int face, int* local) {
  int nodes[max_face_nodes];
  face_nodes(type, order, face, nodes);
  const FaceType shape = face_type(type);
  const int n_vertices = vertices_per_face(shape);
  if (!is_gll(type)) {
    std::copy(nodes, nodes + n_vertices, local);
    return n_vertices;
  }
  const int n = order + 1;
  if (shape == FaceType::LineGLL) {
    local[0] = nodes[0];
    local[1] = nodes[order];
    return 2;
  }
  local[0] = nodes[0];
  local[1] = nodes[order];
  local[2] = nodes[n * n - 1];
  local[3] = nodes[n * order];
  return 4;
}

void normalise_faces(std::vector<Face>& faces) {
  std::sort(faces.begin(), faces.end());
  faces.erase(std::unique(faces.begin(), faces.end()), faces.end());
}

FaceIndex::Key FaceIndex::key_of(std::span<const Index> corners) {
  TREMOR_CHECK(corners.size() >= 2 && corners.size() <= 4, "a face has 2 to 4 corners, not ", corners.size());
  Key key{-1, -1, -1, -1};
  std::copy(corners.begin(), corners.end(), key.begin());
  std::sort(key.begin(), key.begin() + static_cast<std::ptrdiff_t>(corners.size()));
  return key;
}

FaceIndex::FaceIndex(const Mesh& mesh, const std::vector<bool>* corners_filter) {
  TREMOR_CHECK(!corners_filter || corners_filter->size() == static_cast<std::size_t>(mesh.n_nodes()),
               "face index: a node filter of ", corners_filter ? corners_filter->size() : 0, " flags for ",
               mesh.n_nodes(), " nodes");
  if (!corners_filter) {
    Size total = 0;
    for (const auto& block : mesh.blocks) total += static_cast<Size>(block.n_elements()) * n_faces(block.type);
    entries_.reserve(static_cast<std::size_t>(total));
  }
  Index global = 0;
  for (const auto& block : mesh.blocks) {
    const int faces = n_faces(block.type);
    for (Index e = 0; e < block.n_elements(); ++e, ++global) {
      const auto nodes = block.nodes(e);
      for (int f = 0; f < faces; ++f) {
        int local[4];
        const int n = face_vertices(block.type, block.order, f, local);
        Index corners[4];
        bool kept = true;
        for (int k = 0; k < n; ++k) {
          corners[k] = nodes[static_cast<std::size_t>(local[k])];
          kept = kept && (!corners_filter || (*corners_filter)[static_cast<std::size_t>(corners[k])]);
        }
        if (!kept) continue;
        entries_.emplace_back(key_of({corners, static_cast<std::size_t>(n)}), Face{global, f});
      }
    }
  }
  std::sort(entries_.begin(), entries_.end());
}

std::vector<Face> FaceIndex::find(std::span<const Index> corners) const {
  const Key key = key_of(corners);
  auto it = std::lower_bound(entries_.begin(), entries_.end(), std::pair<Key, Face>{key, Face{-1, -1}});
  std::vector<Face> found;
  for (; it != entries_.end() && it->first == key; ++it) found.push_back(it->second);
  return found;
}

std::vector<Face> FaceIndex::boundary() const {
  std::vector<Face> faces;
  for (std::size_t i = 0; i < entries_.size();) {
    std::size_t j = i + 1;
    while (j < entries_.size() && entries_[j].first == entries_[i].first) ++j;
    if (j == i + 1) faces.push_back(entries_[i].second);
    i = j;
  }
  std::sort(faces.begin(), faces.end());
  return faces;
}

std::vector<std::array<Face, 2>> FaceIndex::shared() const {
  std::vector<std::array<Face, 2>> pairs;
  for (std::size_t i = 0; i + 1 < entries_.size(); ++i)
    if (entries_[i + 1].first == entries_[i].first) pairs.push_back({entries_[i].second, entries_[i + 1].second});
  return pairs;
}

std::vector<Face> boundary_faces(const Mesh& mesh) { return FaceIndex(mesh).boundary(); }

FacePlane face_plane(const Mesh& mesh, const Face& face) {
  const ElementRef ref = mesh.locate(face.element);
  const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
  int local[8];
  const int n = face_vertices(block.type, block.order, face.face, local);
  const auto nodes = block.nodes(ref.element);
  const int dim = mesh.dim();
  const auto point = [&](int a) {
    std::array<double, 3> p{0.0, 0.0, 0.0};
    const auto x = mesh.node(nodes[static_cast<std::size_t>(local[a])]);
    for (int d = 0; d < dim; ++d) p[static_cast<std::size_t>(d)] = x[d];
    return p;
  };
  FacePlane g;
  for (int a = 0; a < n; ++a)
    for (std::size_t d = 0; d < 3; ++d) g.centre[d] += point(a)[d] / n;
  if (dim == 2) {
    const auto p = point(0), q = point(n - 1);
    g.normal = {q[1] - p[1], p[0] - q[0], 0.0};
    return g;
  }
  for (int a = 0; a < n; ++a) {
    const auto p = point(a), q = point((a + 1) % n);
    g.normal[0] += 0.5 * (p[1] - q[1]) * (p[2] + q[2]);
    g.normal[1] += 0.5 * (p[2] - q[2]) * (p[0] + q[0]);
    g.normal[2] += 0.5 * (p[0] - q[0]) * (p[1] + q[1]);
  }
  return g;
}

std::vector<Index> nodes_of_faces(const Mesh& mesh, std::span<const Face> faces) {
  std::vector<Index> out;
  for (const Face& face : faces) {
    const ElementRef ref = mesh.locate(face.element);
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
    const auto nodes = block.nodes(ref.element);
    int local[max_face_nodes];
    const int n = face_nodes(block.type, block.order, face.face, local);
    for (int a = 0; a < n; ++a) out.push_back(nodes[static_cast<std::size_t>(local[a])]);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

RegionInterface region_interface(const Mesh& mesh, const std::vector<bool>& inside) {
  TREMOR_CHECK(inside.size() == static_cast<std::size_t>(mesh.n_elements()), "an interface of ", inside.size(),
               " element flags for ", mesh.n_elements(), " elements");
  // Per node an element of each side that holds it (-1: none); the nodes both sides hold bound
  // the faces indexed.
  const auto n_nodes = static_cast<std::size_t>(mesh.n_nodes());
  std::vector<Index> in_element(n_nodes, -1), out_element(n_nodes, -1);
  Index global = 0;
  for (const auto& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global)
      for (const Index node : block.nodes(e)) {
        Index& holder = inside[static_cast<std::size_t>(global)] ? in_element[static_cast<std::size_t>(node)]
                                                                  : out_element[static_cast<std::size_t>(node)];
        if (holder < 0) holder = global;
      }
  std::vector<bool> both(n_nodes, false);
  for (std::size_t i = 0; i < n_nodes; ++i) both[i] = in_element[i] >= 0 && out_element[i] >= 0;
  RegionInterface out;
  for (const auto& pair : FaceIndex(mesh, &both).shared()) {
    const bool first_in = inside[static_cast<std::size_t>(pair[0].element)];
    if (first_in == inside[static_cast<std::size_t>(pair[1].element)]) continue;  // within one side
    out.faces.push_back(first_in ? pair : std::array<Face, 2>{pair[1], pair[0]});
  }
  std::sort(out.faces.begin(), out.faces.end());
  // The nodes on the interface's faces, every node of each face (a face's edge and interior nodes
  // too); any other node both sides hold is a touch.
  std::vector<bool> on_face(n_nodes, false);
  for (const auto& pair : out.faces) {
    const ElementRef ref = mesh.locate(pair[0].element);
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
    int local[max_face_nodes];
    const int n = face_nodes(block.type, block.order, pair[0].face, local);
    const auto nodes = block.nodes(ref.element);
    for (int k = 0; k < n; ++k) on_face[static_cast<std::size_t>(nodes[static_cast<std::size_t>(local[k])])] = true;
  }
  for (std::size_t i = 0; i < n_nodes; ++i)
    if (both[i] && !on_face[i]) out.touching.push_back({static_cast<Index>(i), in_element[i], out_element[i]});
  return out;
}

}  // namespace tremor
