#include "tremor/io/gmsh_elements.hpp"

#include <array>
#include <cmath>
#include <map>
#include <vector>

#include "tremor/core/error.hpp"

namespace tremor::io::gmsh_detail {
namespace {

using ET = ElementType;

// Node counts from Gmsh's element type list; types past 31 are the higher-order ones Gmsh 4
// writes for -order 3 and 4, listed so that an unsupported mesh is reported by name.
constexpr GmshElementType kTypes[] = {
    {1, "2-node line", 1, 2, false, ET::Tri3, 1},
    {2, "3-node triangle", 2, 3, true, ET::Tri3, 1},
    {3, "4-node quadrangle", 2, 4, true, ET::Quad4, 1},
    {4, "4-node tetrahedron", 3, 4, true, ET::Tet4, 1},
    {5, "8-node hexahedron", 3, 8, true, ET::Hex8, 1},
    {6, "6-node prism", 3, 6, false, ET::Tri3, 1},
    {7, "5-node pyramid", 3, 5, false, ET::Tri3, 1},
    {8, "3-node line", 1, 3, false, ET::Tri3, 1},
    {9, "6-node triangle", 2, 6, true, ET::Tri6, 1},
    {10, "9-node quadrangle", 2, 9, true, ET::QuadGLL, 2},
    {11, "10-node tetrahedron", 3, 10, true, ET::Tet10, 1},
    {12, "27-node hexahedron", 3, 27, true, ET::HexGLL, 2},
    {13, "18-node prism", 3, 18, false, ET::Tri3, 1},
    {14, "14-node pyramid", 3, 14, false, ET::Tri3, 1},
    {15, "1-node point", 0, 1, false, ET::Tri3, 1},
    {16, "8-node quadrangle", 2, 8, true, ET::Quad8, 1},
    {17, "20-node hexahedron", 3, 20, true, ET::Hex20, 1},
    {18, "15-node prism", 3, 15, false, ET::Tri3, 1},
    {19, "13-node pyramid", 3, 13, false, ET::Tri3, 1},
    {20, "9-node triangle", 2, 9, false, ET::Tri3, 1},
    {21, "10-node triangle", 2, 10, false, ET::Tri3, 1},
    {22, "12-node triangle", 2, 12, false, ET::Tri3, 1},
    {23, "15-node triangle", 2, 15, false, ET::Tri3, 1},
    {24, "15-node incomplete triangle", 2, 15, false, ET::Tri3, 1},
    {25, "21-node triangle", 2, 21, false, ET::Tri3, 1},
    {26, "4-node line", 1, 4, false, ET::Tri3, 1},
    {27, "5-node line", 1, 5, false, ET::Tri3, 1},
    {28, "6-node line", 1, 6, false, ET::Tri3, 1},
    {29, "20-node tetrahedron", 3, 20, false, ET::Tri3, 1},
    {30, "35-node tetrahedron", 3, 35, false, ET::Tri3, 1},
    {31, "56-node tetrahedron", 3, 56, false, ET::Tri3, 1},
    {36, "16-node quadrangle", 2, 16, false, ET::Tri3, 1},
    {37, "25-node quadrangle", 2, 25, false, ET::Tri3, 1},
    {39, "12-node quadrangle", 2, 12, false, ET::Tri3, 1},
    {90, "40-node prism", 3, 40, false, ET::Tri3, 1},
    {91, "75-node prism", 3, 75, false, ET::Tri3, 1},
    {92, "64-node hexahedron", 3, 64, false, ET::Tri3, 1},
    {93, "125-node hexahedron", 3, 125, false, ET::Tri3, 1},
};

using Point = std::array<double, 3>;
// A node given as the vertices whose centroid it is (a vertex, an edge midpoint, a face centre...).
using Nodes = std::vector<std::vector<int>>;

// Gmsh's reference elements ("Node ordering" in the Gmsh manual): u along the first axis.
const std::vector<Point> kGmshTriangle = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
const std::vector<Point> kGmshQuadrangle = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
const std::vector<Point> kGmshTetrahedron = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
const std::vector<Point> kGmshHexahedron = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                            {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};

// Gmsh's node lists: vertices, then edge nodes, face nodes and the volume node in Gmsh's order.
Nodes gmsh_nodes(int code) {
  switch (code) {
    case 2: return {{0}, {1}, {2}};
    case 3: return {{0}, {1}, {2}, {3}};
    case 4: return {{0}, {1}, {2}, {3}};
    case 5: return {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
    case 9: return {{0}, {1}, {2}, {0, 1}, {1, 2}, {2, 0}};
    case 16: return {{0}, {1}, {2}, {3}, {0, 1}, {1, 2}, {2, 3}, {3, 0}};
    case 10: return {{0}, {1}, {2}, {3}, {0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 1, 2, 3}};
    case 11: return {{0}, {1}, {2}, {3}, {0, 1}, {1, 2}, {2, 0}, {0, 3}, {2, 3}, {1, 3}};
    case 17:
    case 12: {
      Nodes nodes = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7},
                     {0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3}, {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};
      if (code == 12) {
        for (const std::vector<int>& face : {std::vector<int>{0, 1, 2, 3}, {0, 1, 4, 5}, {0, 3, 4, 7}, {1, 2, 5, 6},
                                             {2, 3, 6, 7}, {4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}})
          nodes.push_back(face);
      }
      return nodes;
    }
    default: return {};
  }
}

const std::vector<Point>& gmsh_vertices(int dim, int n_vertices) {
  if (dim == 2) return n_vertices == 3 ? kGmshTriangle : kGmshQuadrangle;
  return n_vertices == 4 ? kGmshTetrahedron : kGmshHexahedron;
}

// tremor's reference elements, as element_type.hpp describes them: counter-clockwise triangles and
// quadrilaterals, tetrahedron with vertex 3 on the positive side of face 012, hexahedron with the
// bottom face 0123 counter-clockwise seen from above and 4567 above it.
const std::vector<Point> kTremorTriangle = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
const std::vector<Point> kTremorQuadrilateral = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
const std::vector<Point> kTremorTetrahedron = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
const std::vector<Point> kTremorHexahedron = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                              {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};

std::vector<Point> centroids(const std::vector<Point>& vertices, const Nodes& nodes) {
  std::vector<Point> points;
  for (const auto& members : nodes) {
    Point p = {0, 0, 0};
    for (int v : members)
      for (int d = 0; d < 3; ++d) p[d] += vertices[static_cast<std::size_t>(v)][d];
    for (double& x : p) x /= static_cast<double>(members.size());
    points.push_back(p);
  }
  return points;
}

std::vector<Point> tremor_points(ElementType type, int order) {
  switch (type) {
    case ET::Tri3: return centroids(kTremorTriangle, {{0}, {1}, {2}});
    case ET::Tri6: return centroids(kTremorTriangle, {{0}, {1}, {2}, {0, 1}, {1, 2}, {2, 0}});
    case ET::Quad4: return centroids(kTremorQuadrilateral, {{0}, {1}, {2}, {3}});
    case ET::Quad8:
      return centroids(kTremorQuadrilateral, {{0}, {1}, {2}, {3}, {0, 1}, {1, 2}, {2, 3}, {3, 0}});
    case ET::Tet4: return centroids(kTremorTetrahedron, {{0}, {1}, {2}, {3}});
    case ET::Tet10:
      return centroids(kTremorTetrahedron,
                       {{0}, {1}, {2}, {3}, {0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}});
    case ET::Hex8: return centroids(kTremorHexahedron, {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}});
    case ET::Hex20:
      return centroids(kTremorHexahedron, {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {0, 1}, {1, 2}, {2, 3}, {3, 0},
                                           {4, 5}, {5, 6}, {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}});
    case ET::QuadGLL:
    case ET::HexGLL: {
      // Lexicographic, x fastest, on the GLL points of `order` in [-1, 1] (order 2: -1, 0, 1).
      std::vector<Point> points;
      const int nz = type == ET::HexGLL ? order + 1 : 1;
      for (int k = 0; k < nz; ++k)
        for (int j = 0; j <= order; ++j)
          for (int i = 0; i <= order; ++i) {
            const auto at = [&](int n) { return -1.0 + 2.0 * n / order; };
            points.push_back({at(i), at(j), type == ET::HexGLL ? at(k) : 0.0});
          }
      return points;
    }
  }
  return {};
}

std::vector<int> derive_order(const GmshElementType& info) {
  const Nodes nodes = gmsh_nodes(info.code);
  const std::vector<Point> gmsh = centroids(gmsh_vertices(info.dim, vertices_per_element(info.type)), nodes);
  const std::vector<Point> tremor = tremor_points(info.type, info.order);
  TREMOR_CHECK(static_cast<int>(gmsh.size()) == info.n_nodes && gmsh.size() == tremor.size(),
               "internal error: node tables of Gmsh type ", info.code, " disagree in size");
  std::vector<int> order(tremor.size(), -1);
  std::vector<bool> taken(gmsh.size(), false);
  for (std::size_t i = 0; i < tremor.size(); ++i) {
    for (std::size_t j = 0; j < gmsh.size(); ++j) {
      // Reference coordinates are multiples of 1/2: equal ones agree exactly, distinct ones by 0.5.
      const bool same = std::abs(tremor[i][0] - gmsh[j][0]) < 1e-12 && std::abs(tremor[i][1] - gmsh[j][1]) < 1e-12 &&
                        std::abs(tremor[i][2] - gmsh[j][2]) < 1e-12;
      if (!same) continue;
      TREMOR_CHECK(order[i] < 0 && !taken[j], "internal error: Gmsh type ", info.code, " has coincident nodes");
      order[i] = static_cast<int>(j);
      taken[j] = true;
    }
    TREMOR_CHECK(order[i] >= 0, "internal error: tremor node ", i, " has no Gmsh counterpart in type ", info.code);
  }
  return order;
}

}  // namespace

const GmshElementType* find_gmsh_element_type(int code) {
  for (const auto& info : kTypes)
    if (info.code == code) return &info;
  return nullptr;
}

std::span<const int> gmsh_to_tremor_order(int code) {
  static const std::map<int, std::vector<int>> orders = [] {
    std::map<int, std::vector<int>> table;
    for (const auto& info : kTypes)
      if (info.supported) table[info.code] = derive_order(info);
    return table;
  }();
  const auto it = orders.find(code);
  if (it == orders.end()) return {};
  return it->second;
}

std::string supported_gmsh_types() {
  std::string out;
  for (const auto& info : kTypes) {
    if (!info.supported) continue;
    if (!out.empty()) out += ", ";
    out += str(info.code == 10 ? std::string("quad9") : info.code == 12 ? std::string("hex27")
                                                                          : element_name(info.type, info.order),
               " (", info.code, ")");
  }
  return out;
}

}  // namespace tremor::io::gmsh_detail
