#include "tremor/bem/generate.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>

#include "tremor/core/error.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor::bem {
namespace {

const char* shape_name(ElementShape shape) {
  return shape == ElementShape::Triangle ? "triangles" : "quadrilaterals";
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

// Appends the quadrilateral abcd (counter-clockwise seen from its normal) as one element or as
// the triangles abc and acd, which keep its orientation.
void add_cell(BoundaryMesh& mesh, ElementShape shape, Index a, Index b, Index c, Index d) {
  if (shape == ElementShape::Quadrilateral) {
    mesh.connectivity.insert(mesh.connectivity.end(), {a, b, c, d});
  } else {
    mesh.connectivity.insert(mesh.connectivity.end(), {a, b, c, -1, a, c, d, -1});
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
void lattice_surface(BoundaryMesh& mesh, const Lattice& n, ElementShape shape,
                     const std::function<std::array<double, 3>(const Lattice&)>& place, bool face_sets) {
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
      for (Index j = 0; j < n[static_cast<std::size_t>(v)]; ++j)
        for (Index i = 0; i < n[static_cast<std::size_t>(u)]; ++i) {
          const auto corner = [&](Index di, Index dj) {
            Lattice at{};
            at[static_cast<std::size_t>(axis)] = side == 0 ? 0 : n[static_cast<std::size_t>(axis)];
            at[static_cast<std::size_t>(u)] = i + di;
            at[static_cast<std::size_t>(v)] = j + dj;
            return node(at);
          };
          const Index a = corner(0, 0), b = corner(1, 0), c = corner(1, 1), d = corner(0, 1);
          add_cell(mesh, shape, a, b, c, d);
        }
      if (face_sets) {
        std::vector<Index>& set = mesh.element_sets[kFaceNames[2 * axis + side]];
        for (Index e = first; e < mesh.n_elements(); ++e) set.push_back(e);
      }
    }
  }
}

// Nodes and elements of the surface of a lattice with these divisions.
std::pair<Size, Size> lattice_surface_size(const Lattice& n, ElementShape shape) {
  const Size nx = n[0], ny = n[1], nz = n[2];
  const Size cells = 2 * (nx * ny + ny * nz + nx * nz);
  const Size nodes = (nx + 1) * (ny + 1) * (nz + 1) - (nx - 1) * (ny - 1) * (nz - 1);
  return {nodes, shape == ElementShape::Triangle ? 2 * cells : cells};
}

}  // namespace

BoundaryMesh sphere(double radius, Index n, ElementShape shape) {
  check_length("sphere", "the radius", radius);
  check_divisions("sphere", "n", n);
  // 2^21 divisions per edge are far beyond any limit; checked first so the counts below cannot overflow.
  TREMOR_CHECK(n < (Index{1} << 21), "sphere: n = ", n, " divisions exceed the generator limit");
  const auto [nodes, elements] = lattice_surface_size({n, n, n}, shape);
  check_size("sphere", nodes, elements);
  BoundaryMesh mesh;
  mesh.source = str("sphere(radius=", radius, ", n=", n, ", ", shape_name(shape), ")");
  mesh.coordinates.reserve(3 * static_cast<std::size_t>(nodes));
  mesh.connectivity.reserve(4 * static_cast<std::size_t>(elements));
  const double quarter_pi = std::atan(1.0);
  const auto place = [&](const Lattice& at) {
    std::array<double, 3> x{};
    double norm = 0.0;
    for (int d = 0; d < 3; ++d) {
      // Equiangular: s uniform in [-1, 1] (exactly +-1 at the ends), the cube coordinate tan(pi/4 s).
      const double s = 2.0 * at[static_cast<std::size_t>(d)] / n - 1.0;
      x[static_cast<std::size_t>(d)] = std::tan(quarter_pi * s);
      norm += x[static_cast<std::size_t>(d)] * x[static_cast<std::size_t>(d)];
    }
    const double scale = radius / std::sqrt(norm);
    for (double& c : x) c *= scale;
    return x;
  };
  lattice_surface(mesh, {n, n, n}, shape, place, false);
  finish(mesh);
  return mesh;
}

BoundaryMesh box(double lx, double ly, double lz, Index nx, Index ny, Index nz, ElementShape shape) {
  check_length("box", "lx", lx);
  check_length("box", "ly", ly);
  check_length("box", "lz", lz);
  check_divisions("box", "nx", nx);
  check_divisions("box", "ny", ny);
  check_divisions("box", "nz", nz);
  for (Index d : {nx, ny, nz})
    TREMOR_CHECK(d < (Index{1} << 21), "box: ", d, " divisions exceed the generator limit");
  const Lattice n{nx, ny, nz};
  const auto [nodes, elements] = lattice_surface_size(n, shape);
  check_size("box", nodes, elements);
  BoundaryMesh mesh;
  mesh.source = str("box(lx=", lx, ", ly=", ly, ", lz=", lz, ", nx=", nx, ", ny=", ny, ", nz=", nz, ", ",
                    shape_name(shape), ")");
  mesh.coordinates.reserve(3 * static_cast<std::size_t>(nodes));
  mesh.connectivity.reserve(4 * static_cast<std::size_t>(elements));
  const std::array<double, 3> length{lx, ly, lz};
  const auto place = [&](const Lattice& at) {
    std::array<double, 3> x{};
    // (i/n - 1/2) l is exactly -l/2 and l/2 at the ends.
    for (std::size_t d = 0; d < 3; ++d) x[d] = (static_cast<double>(at[d]) / n[d] - 0.5) * length[d];
    return x;
  };
  lattice_surface(mesh, n, shape, place, true);
  finish(mesh);
  return mesh;
}

BoundaryMesh halfspace_patch(double lx, double ly, Index nx, Index ny, ElementShape shape,
                             std::optional<std::array<double, 2>> foundation) {
  check_length("halfspace_patch", "lx", lx);
  check_length("halfspace_patch", "ly", ly);
  check_divisions("halfspace_patch", "nx", nx);
  check_divisions("halfspace_patch", "ny", ny);
  if (foundation) {
    check_length("halfspace_patch", "the foundation's x size", (*foundation)[0]);
    check_length("halfspace_patch", "the foundation's y size", (*foundation)[1]);
  }
  const Size nodes = (Size{nx} + 1) * (Size{ny} + 1);
  const Size elements = Size{nx} * ny * (shape == ElementShape::Triangle ? 2 : 1);
  check_size("halfspace_patch", nodes, elements);
  BoundaryMesh mesh;
  mesh.source = str("halfspace_patch(lx=", lx, ", ly=", ly, ", nx=", nx, ", ny=", ny, ", ", shape_name(shape));
  if (foundation) mesh.source += str(", foundation=", (*foundation)[0], " x ", (*foundation)[1]);
  mesh.source += ")";
  mesh.coordinates.reserve(3 * static_cast<std::size_t>(nodes));
  mesh.connectivity.reserve(4 * static_cast<std::size_t>(elements));
  for (Index j = 0; j <= ny; ++j)
    for (Index i = 0; i <= nx; ++i)
      mesh.coordinates.insert(mesh.coordinates.end(), {(static_cast<double>(i) / nx - 0.5) * lx,
                                                       (static_cast<double>(j) / ny - 0.5) * ly, 0.0});
  // Cells walked x then y turn counter-clockwise seen from +z, the side away from the solid.
  const auto node = [&](Index i, Index j) { return j * (nx + 1) + i; };
  for (Index j = 0; j < ny; ++j)
    for (Index i = 0; i < nx; ++i) add_cell(mesh, shape, node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1));
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

void flip_orientation(BoundaryMesh& mesh) {
  for (Index e = 0; e < mesh.n_elements(); ++e) {
    Index* v = mesh.connectivity.data() + 4 * static_cast<std::size_t>(e);
    // Keeping vertex 0 and reversing the rest reverses the cycle.
    if (v[3] < 0)
      std::swap(v[1], v[2]);
    else
      std::swap(v[1], v[3]);
  }
}

}  // namespace tremor::bem
