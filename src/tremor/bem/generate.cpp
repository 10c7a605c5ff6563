#include "tremor/bem/generate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numbers>
#include <string>
#include <unordered_map>
#include <utility>

#include "tremor/bem/cell_grid.hpp"
#include "tremor/core/error.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor::bem {
namespace {

std::string shape_name(const SurfaceElements& elements) {
  if (elements.order == 1) return elements.shape == ElementShape::Triangle ? "triangles" : "quadrilaterals";
  return elements.shape == ElementShape::Triangle ? "6-node triangles"
         : elements.serendipity                   ? "8-node quadrilaterals"
                                                  : "9-node quadrilaterals";
}

void check_elements(const char* generator, const SurfaceElements& elements) {
  TREMOR_CHECK(elements.order == 1 || elements.order == 2, generator, ": element order ", elements.order,
               " (1: straight-sided, 2: second order)");
}

void check_length(const char* generator, const char* name, double value) {
  TREMOR_CHECK(std::isfinite(value) && value > 0, generator, ": ", name, " must be a positive length, got ", value);
}

void check_divisions(const char* generator, const char* name, Index value) {
  TREMOR_CHECK(value >= 1, generator, ": ", name, " must be at least 1 division, got ", value);
}

// Refuses, before anything is allocated, a mesh beyond what Index addresses or the caller allows.
void check_size(const char* generator, Size nodes, Size elements) {
  const Size limit = max_generated;
  TREMOR_CHECK(nodes <= limit && 4 * elements <= limit, generator, ": ", elements, " elements and ", nodes,
               " nodes exceed the generator limit (", limit, " nodes or connectivity entries); use fewer divisions");
}

// Appends the cell whose nodes node(di, dj) lie at the steps di, dj = 0 .. order along its sides
// (corners a = (0, 0), b = (order, 0), c = (order, order), d = (0, order), counter-clockwise seen
// from its normal) as one quadrilateral or as the triangles abc and acd, which keep its
// orientation. Second order: the mid-edge nodes at the half steps, the cell's centre the mid-edge
// node of the diagonal ac, or the 9-node quadrilateral's centre. node() places a node when first
// asked, so an 8-node cell's centre is never made.
template <class Node>
void add_cell(BoundaryMesh& mesh, const SurfaceElements& elements, Node&& node) {
  const Index o = elements.order;
  const Index a = node(0, 0), b = node(o, 0), c = node(o, o), d = node(0, o);
  const bool triangles = elements.shape == ElementShape::Triangle;
  if (triangles)
    mesh.connectivity.insert(mesh.connectivity.end(), {a, b, c, -1, a, c, d, -1});
  else
    mesh.connectivity.insert(mesh.connectivity.end(), {a, b, c, d});
  if (o == 1) return;
  const Index ab = node(1, 0), bc = node(2, 1), cd = node(1, 2), da = node(0, 1);
  if (triangles) {
    const Index centre = node(1, 1);
    mesh.mid_nodes.insert(mesh.mid_nodes.end(), {ab, bc, centre, -1, -1, centre, cd, da, -1, -1});
  } else {
    mesh.mid_nodes.insert(mesh.mid_nodes.end(), {ab, bc, cd, da, elements.serendipity ? Index{-1} : node(1, 1)});
  }
}

void finish(BoundaryMesh& mesh) {
  const Index n_nodes = mesh.n_nodes(), n_elements = mesh.n_elements();
  mesh.node_labels.resize(static_cast<std::size_t>(n_nodes));
  for (Index i = 0; i < n_nodes; ++i) mesh.node_labels[static_cast<std::size_t>(i)] = i + 1;
  mesh.element_labels.resize(static_cast<std::size_t>(n_elements));
  std::vector<Index>& all = mesh.element_sets["all"];
  all.resize(static_cast<std::size_t>(n_elements));
  for (Index e = 0; e < n_elements; ++e) {
    mesh.element_labels[static_cast<std::size_t>(e)] = e + 1;
    all[static_cast<std::size_t>(e)] = e;
  }
}

using Lattice = std::array<Index, 3>;

// The surface of the lattice [0, n[0]] x [0, n[1]] x [0, n[2]], cells cut into elements, nodes
// placed by `place`. The six faces in the order xmin, xmax, ymin, ymax, zmin, zmax, each in set
// `face_sets[f]` when given. Lattice points on cube edges and corners belong to two or three
// faces; a hash of their lattice coordinates makes each one node.
// Second order: the lattice of 2n, its cells taken 2 x 2 (`place` sees the fine lattice).
void lattice_surface(BoundaryMesh& mesh, const Lattice& cells, const SurfaceElements& elements,
                     const std::function<std::array<double, 3>(const Lattice&)>& place, bool face_sets) {
  const Index o = elements.order;
  const Lattice n{o * cells[0], o * cells[1], o * cells[2]};
  std::unordered_map<std::uint64_t, Index> nodes;
  const auto node = [&](const Lattice& at) {
    // 21 bits per coordinate: the generator limit keeps every division count below 2^21.
    const std::uint64_t key = (static_cast<std::uint64_t>(at[0]) << 42) | (static_cast<std::uint64_t>(at[1]) << 21) |
                              static_cast<std::uint64_t>(at[2]);
    const auto [it, inserted] = nodes.emplace(key, mesh.n_nodes());
    if (inserted) {
      const std::array<double, 3> x = place(at);
      mesh.coordinates.insert(mesh.coordinates.end(), x.begin(), x.end());
    }
    return it->second;
  };
  static const char* const kFaceNames[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
  for (int axis = 0; axis < 3; ++axis) {
    for (int side = 0; side < 2; ++side) {
      // (e_u, e_v, e_axis) is right-handed on the max side, so cells walked u then v turn
      // counter-clockwise seen from outside; on the min side u and v swap.
      int u = (axis + 1) % 3, v = (axis + 2) % 3;
      if (side == 0) std::swap(u, v);
      const Index first = mesh.n_elements();
      for (Index j = 0; j < cells[static_cast<std::size_t>(v)]; ++j)
        for (Index i = 0; i < cells[static_cast<std::size_t>(u)]; ++i)
          add_cell(mesh, elements, [&](Index di, Index dj) {
            Lattice at{};
            at[static_cast<std::size_t>(axis)] = side == 0 ? 0 : n[static_cast<std::size_t>(axis)];
            at[static_cast<std::size_t>(u)] = o * i + di;
            at[static_cast<std::size_t>(v)] = o * j + dj;
            return node(at);
          });
      if (face_sets) {
        std::vector<Index>& set = mesh.element_sets[kFaceNames[2 * axis + side]];
        for (Index e = first; e < mesh.n_elements(); ++e) set.push_back(e);
      }
    }
  }
}

// Nodes (at most) and elements of the surface of a lattice with these divisions.
std::pair<Size, Size> lattice_surface_size(const Lattice& n, const SurfaceElements& elements) {
  const Size o = elements.order, nx = o * n[0], ny = o * n[1], nz = o * n[2];
  const Size cells = 2 * (Size{n[0]} * n[1] + Size{n[1]} * n[2] + Size{n[0]} * n[2]);
  const Size nodes = (nx + 1) * (ny + 1) * (nz + 1) - (nx - 1) * (ny - 1) * (nz - 1);
  return {nodes, elements.shape == ElementShape::Triangle ? 2 * cells : cells};
}

}  // namespace

BoundaryMesh sphere(double radius, Index n, SurfaceElements kind) {
  check_length("sphere", "the radius", radius);
  check_divisions("sphere", "n", n);
  check_elements("sphere", kind);
  // 2^20 divisions per edge are far beyond any limit; checked first so the counts below cannot overflow.
  TREMOR_CHECK(n < (Index{1} << 20), "sphere: n = ", n, " divisions exceed the generator limit");
  const auto [nodes, elements] = lattice_surface_size({n, n, n}, kind);
  check_size("sphere", nodes, elements);
  BoundaryMesh mesh;
  mesh.source = str("sphere(radius=", radius, ", n=", n, ", ", shape_name(kind), ")");
  const Index fine = kind.order * n;
  mesh.coordinates.reserve(3 * static_cast<std::size_t>(nodes));
  mesh.connectivity.reserve(4 * static_cast<std::size_t>(elements));
  const double quarter_pi = std::atan(1.0);
  const auto place = [&](const Lattice& at) {
    std::array<double, 3> x{};
    double norm = 0.0;
    for (int d = 0; d < 3; ++d) {
      // Equiangular: s uniform in [-1, 1] (exactly +-1 at the ends), the cube coordinate tan(pi/4 s).
      const double s = 2.0 * at[static_cast<std::size_t>(d)] / fine - 1.0;
      x[static_cast<std::size_t>(d)] = std::tan(quarter_pi * s);
      norm += x[static_cast<std::size_t>(d)] * x[static_cast<std::size_t>(d)];
    }
    const double scale = radius / std::sqrt(norm);
    for (double& c : x) c *= scale;
    return x;
  };
  lattice_surface(mesh, {n, n, n}, kind, place, false);
  finish(mesh);
  return mesh;
}

BoundaryMesh box(double lx, double ly, double lz, Index nx, Index ny, Index nz, SurfaceElements kind) {
  check_length("box", "lx", lx);
  check_length("box", "ly", ly);
  check_length("box", "lz", lz);
  check_divisions("box", "nx", nx);
  check_divisions("box", "ny", ny);
  check_divisions("box", "nz", nz);
  check_elements("box", kind);
  for (Index d : {nx, ny, nz})
    TREMOR_CHECK(d < (Index{1} << 20), "box: ", d, " divisions exceed the generator limit");
  const Lattice n{nx, ny, nz};
  const auto [nodes, elements] = lattice_surface_size(n, kind);
  check_size("box", nodes, elements);
  BoundaryMesh mesh;
  mesh.source = str("box(lx=", lx, ", ly=", ly, ", lz=", lz, ", nx=", nx, ", ny=", ny, ", nz=", nz, ", ",
                    shape_name(kind), ")");
  mesh.coordinates.reserve(3 * static_cast<std::size_t>(nodes));
  mesh.connectivity.reserve(4 * static_cast<std::size_t>(elements));
  const std::array<double, 3> length{lx, ly, lz};
  const auto place = [&](const Lattice& at) {
    std::array<double, 3> x{};
    // (i/n - 1/2) l is exactly -l/2 and l/2 at the ends.
    for (std::size_t d = 0; d < 3; ++d)
      x[d] = (static_cast<double>(at[d]) / (kind.order * n[d]) - 0.5) * length[d];
    return x;
  };
  lattice_surface(mesh, n, kind, place, true);
  finish(mesh);
  return mesh;
}

BoundaryMesh halfspace_patch(double lx, double ly, Index nx, Index ny, SurfaceElements kind,
                             std::optional<std::array<double, 2>> foundation) {
  check_length("halfspace_patch", "lx", lx);
  check_length("halfspace_patch", "ly", ly);
  check_divisions("halfspace_patch", "nx", nx);
  check_divisions("halfspace_patch", "ny", ny);
  check_elements("halfspace_patch", kind);
  if (foundation) {
    check_length("halfspace_patch", "the foundation's x size", (*foundation)[0]);
    check_length("halfspace_patch", "the foundation's y size", (*foundation)[1]);
  }
  const Index o = kind.order;
  TREMOR_CHECK(nx < (Index{1} << 20) && ny < (Index{1} << 20), "halfspace_patch: ", nx, " x ", ny,
               " divisions exceed the generator limit");
  const Size nodes = (Size{o} * nx + 1) * (Size{o} * ny + 1);
  const Size elements = Size{nx} * ny * (kind.shape == ElementShape::Triangle ? 2 : 1);
  check_size("halfspace_patch", nodes, elements);
  BoundaryMesh mesh;
  mesh.source = str("halfspace_patch(lx=", lx, ", ly=", ly, ", nx=", nx, ", ny=", ny, ", ", shape_name(kind));
  if (foundation) mesh.source += str(", foundation=", (*foundation)[0], " x ", (*foundation)[1]);
  mesh.source += ")";
  mesh.coordinates.reserve(3 * static_cast<std::size_t>(nodes));
  mesh.connectivity.reserve(4 * static_cast<std::size_t>(elements));
  // The lattice's points x fastest, then y; an 8-node cell's centre is no node.
  const Index fx = o * nx, fy = o * ny;
  std::vector<Index> index(static_cast<std::size_t>(nodes), -1);
  for (Index j = 0; j <= fy; ++j)
    for (Index i = 0; i <= fx; ++i) {
      if (o == 2 && kind.serendipity && kind.shape == ElementShape::Quadrilateral && i % 2 == 1 && j % 2 == 1) continue;
      index[static_cast<std::size_t>(j * (fx + 1) + i)] = mesh.n_nodes();
      mesh.coordinates.insert(mesh.coordinates.end(), {(static_cast<double>(i) / fx - 0.5) * lx,
                                                       (static_cast<double>(j) / fy - 0.5) * ly, 0.0});
    }
  // Cells walked x then y turn counter-clockwise seen from +z, the side away from the solid.
  for (Index j = 0; j < ny; ++j)
    for (Index i = 0; i < nx; ++i)
      add_cell(mesh, kind, [&](Index di, Index dj) {
        return index[static_cast<std::size_t>((o * j + dj) * (fx + 1) + o * i + di)];
      });
  finish(mesh);
  if (foundation) {
    std::vector<Index>& under = mesh.element_sets["foundation"];
    std::vector<Index>& free = mesh.element_sets["free"];
    for (Index e = 0; e < mesh.n_elements(); ++e) {
      const ElementGeometry g = element_geometry(mesh, e);
      const bool inside = std::abs(g.centroid[0]) < 0.5 * (*foundation)[0] && std::abs(g.centroid[1]) < 0.5 * (*foundation)[1];
      (inside ? under : free).push_back(e);
    }
    TREMOR_CHECK(!under.empty(), mesh.source, ": no element centroid lies under the foundation ", (*foundation)[0],
                 " x ", (*foundation)[1], "; use more divisions (cells of ", lx / nx, " x ", ly / ny, ")");
  }
  return mesh;
}

namespace {

// Nodes placed by position: a point within `tolerance` of one already placed (the same point
// computed along another cell's edge, equal to rounding) is that node. Cells of the tolerance's
// size (cell_grid.hpp), each point compared with its own and the 8 neighbouring cells (z = 0).
class PlanarNodes {
 public:
  PlanarNodes(BoundaryMesh& mesh, double tolerance) : mesh_(mesh), tolerance_(tolerance) {}
  Index at(double x, double y) {
    const CellKey cell{std::llround(x / tolerance_), std::llround(y / tolerance_), 0};
    for (std::int64_t dx = -1; dx <= 1; ++dx)
      for (std::int64_t dy = -1; dy <= 1; ++dy) {
        const auto found = cells_.find(CellKey{cell.x + dx, cell.y + dy, 0});
        if (found == cells_.end()) continue;
        const double* p = mesh_.coordinates.data() + 3 * static_cast<std::size_t>(found->second);
        if (std::abs(p[0] - x) <= tolerance_ && std::abs(p[1] - y) <= tolerance_) return found->second;
      }
    const Index node = mesh_.n_nodes();
    mesh_.coordinates.insert(mesh_.coordinates.end(), {x, y, 0.0});
    cells_.emplace(cell, node);
    return node;
  }

 private:
  BoundaryMesh& mesh_;
  double tolerance_;
  std::unordered_map<CellKey, Index, CellHash> cells_;
};

// A ring of the disc: from r0 to r1, `cells` around.
struct Ring {
  double r0, r1;
  Index cells;
};

// The rings from the foundation's rim (cells `around` of width w = 2 pi a / around) to `radius`:
// radial sizes w, 1.25 w, ... up to max_cell until they pass `radius`, then all scaled down
// together to end on it (by no less than a half, about 0.8 or more once several rings are
// capped); the cells around double where the width at a ring's middle would pass 1.6 x its depth.
std::vector<Ring> disc_rings(double a, double radius, Index around, double max_cell) {
  std::vector<double> edges{a};
  for (double depth = std::min(2 * std::numbers::pi * a / static_cast<double>(around), max_cell);
       edges.back() < radius; depth = std::min(1.25 * depth, max_cell))
    edges.push_back(edges.back() + depth);
  const double scale = (radius - a) / (edges.back() - a);
  for (double& r : edges) r = a + (r - a) * scale;
  edges.back() = radius;
  std::vector<Ring> rings;
  for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
    const double r0 = edges[i], r1 = edges[i + 1];
    while (std::numbers::pi * (r0 + r1) / static_cast<double>(around) > 1.6 * (r1 - r0)) around *= 2;
    rings.push_back({r0, r1, around});
  }
  return rings;
}

}  // namespace

BoundaryMesh halfspace_disc(double radius, double foundation, Index n, double max_cell, SurfaceElements kind) {
  check_length("halfspace_disc", "radius", radius);
  check_length("halfspace_disc", "the foundation's radius", foundation);
  check_length("halfspace_disc", "max_cell", max_cell);
  check_divisions("halfspace_disc", "n", n);
  check_elements("halfspace_disc", kind);
  TREMOR_CHECK(foundation < radius, "halfspace_disc: the foundation's radius ", foundation,
               " must be below the surface's radius ", radius);
  TREMOR_CHECK(n < (Index{1} << 16), "halfspace_disc: n = ", n, " exceeds the generator limit");
  TREMOR_CHECK(radius / max_cell < 1e6, "halfspace_disc: radius ", radius, " over max_cell ", max_cell,
               " exceeds the generator limit");
  const Index across = (n + 1) / 2;  // a block's cells from the core's edge to the rim
  const std::vector<Ring> rings = disc_rings(foundation, radius, 4 * n, max_cell);
  Size cells = Size{n} * n + 4 * Size{n} * across;
  for (const Ring& ring : rings) cells += static_cast<Size>(ring.cells);
  // Nodes: a cell adds about one (straight-sided) or four (second order) to its neighbours';
  // twice that bounds them, the rings' ends and where the cells around double included.
  const Size per_cell = kind.order == 1 ? 2 : 8;
  check_size("halfspace_disc", per_cell * cells + 1, cells * (kind.shape == ElementShape::Triangle ? 2 : 1));

  BoundaryMesh mesh;
  mesh.source = str("halfspace_disc(radius=", radius, ", foundation=", foundation, ", n=", n, ", max_cell=", max_cell,
                    ", ", shape_name(kind), ")");
  PlanarNodes nodes(mesh, 1e-9 * radius);
  const Index o = kind.order;
  // A cell of the parameter rectangle [s0, s1] x [t0, t1] of `map`, walked so its normal is +z:
  // each map below turns counter-clockwise seen from +z as s, then t, increases.
  const auto add = [&](auto&& map, double s0, double s1, double t0, double t1) {
    add_cell(mesh, kind, [&](Index ds, Index dt) {
      const std::array<double, 2> p = map(s0 + (s1 - s0) * static_cast<double>(ds) / static_cast<double>(o),
                                          t0 + (t1 - t0) * static_cast<double>(dt) / static_cast<double>(o));
      return nodes.at(p[0], p[1]);
    });
  };
  // The core: the square of half-width a/2, n x n cells.
  const double a = foundation, h = 0.5 * a;
  const auto core = [&](double s, double t) { return std::array<double, 2>{h * s, h * t}; };
  for (Index j = 0; j < n; ++j)
    for (Index i = 0; i < n; ++i)
      add(core, -1 + 2.0 * static_cast<double>(i) / n, -1 + 2.0 * static_cast<double>(i + 1) / n,
          -1 + 2.0 * static_cast<double>(j) / n, -1 + 2.0 * static_cast<double>(j + 1) / n);
  // Four blocks, the one on +x turned by quarter turns: s from the core's edge (s = 0) to the
  // rim (s = 1) blending the edge x = h with the arc of angles pi/4 t, t in [-1, 1].
  for (int quarter = 0; quarter < 4; ++quarter) {
    const double c = std::cos(0.5 * std::numbers::pi * quarter), s = std::sin(0.5 * std::numbers::pi * quarter);
    const auto block = [&](double u, double t) {
      const double angle = 0.25 * std::numbers::pi * t;
      const double x = (1 - u) * h + u * a * std::cos(angle), y = (1 - u) * h * t + u * a * std::sin(angle);
      return std::array<double, 2>{c * x - s * y, s * x + c * y};
    };
    for (Index j = 0; j < n; ++j)
      for (Index i = 0; i < across; ++i)
        add(block, static_cast<double>(i) / across, static_cast<double>(i + 1) / across,
            -1 + 2.0 * static_cast<double>(j) / n, -1 + 2.0 * static_cast<double>(j + 1) / n);
  }
  const Index under = mesh.n_elements();
  // The rings on the polar map, angles from -pi/4 so the first ring's corners meet the blocks'.
  const auto polar = [&](double r, double angle) {
    return std::array<double, 2>{r * std::cos(angle), r * std::sin(angle)};
  };
  for (const Ring& ring : rings)
    for (Index k = 0; k < ring.cells; ++k) {
      const double step = 2 * std::numbers::pi / static_cast<double>(ring.cells);
      add(polar, ring.r0, ring.r1, -0.25 * std::numbers::pi + step * static_cast<double>(k),
          -0.25 * std::numbers::pi + step * static_cast<double>(k + 1));
    }
  finish(mesh);
  std::vector<Index>& inside = mesh.element_sets["foundation"];
  std::vector<Index>& free = mesh.element_sets["free"];
  for (Index e = 0; e < mesh.n_elements(); ++e) (e < under ? inside : free).push_back(e);
  return mesh;
}

void flip_orientation(BoundaryMesh& mesh) {
  for (Index e = 0; e < mesh.n_elements(); ++e) {
    Index* v = mesh.connectivity.data() + 4 * static_cast<std::size_t>(e);
    // Keeping vertex 0 and reversing the rest reverses the cycle; the edges then run 03, 32, 21,
    // 10 (02, 21, 10 for a triangle): their mid-edge nodes in reverse.
    const int n = v[3] < 0 ? 3 : 4;
    std::swap(v[1], v[n - 1]);
    if (mesh.quadratic()) {
      Index* m = mesh.mid_nodes.data() + 5 * static_cast<std::size_t>(e);
      std::reverse(m, m + n);
    }
  }
}

}  // namespace tremor::bem
