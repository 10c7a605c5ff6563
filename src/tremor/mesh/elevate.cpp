#include "tremor/mesh/elevate.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <iterator>
#include <limits>

#include "tremor/core/error.hpp"
#include "tremor/core/polynomials.hpp"

namespace tremor {

namespace {

using Point = std::array<int, 3>;
using Layout = OrderElevation::Layout;

// Where coordinate i of a grid of order n lies along its axis: 0 the lower end, 2 the upper end,
// 1 inside. An element's edges, faces and interior are the tuples of these with at least one 1.
int side(int i, int n) { return i == 0 ? 0 : (i == n ? 2 : 1); }

// Whether grid point p (order n) lies on the closure of the entity with `sides`.
bool on_closure(const Point& p, int n, const Point& sides, int dim) {
  for (int d = 0; d < dim; ++d) {
    const auto a = static_cast<std::size_t>(d);
    if (sides[a] != 1 && side(p[a], n) != sides[a]) return false;
  }
  return true;
}

// Grid point (order n) of tremor's vertex v: bottom 0123 counter-clockwise seen from +z, top 4567
// above it (element_type.hpp).
Point vertex_point(int v, int n) {
  const int c = v % 4;
  return {(c == 1 || c == 2) ? n : 0, c >= 2 ? n : 0, v >= 4 ? n : 0};
}

Point midpoint(const Point& a, const Point& b) { return {(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2}; }

Index grid_index(const Point& p, int n) { return p[0] + (n + 1) * (p[1] + (n + 1) * p[2]); }

Layout layout_of(const Mesh& mesh, int block_index, std::string_view source) {
  const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(block_index)];
  Layout layout;
  switch (block.type) {
    case ElementType::Quad4:
    case ElementType::Hex8:
      for (int v = 0; v < vertices_per_element(block.type); ++v) layout.grid.push_back(vertex_point(v, 1));
      break;
    case ElementType::Quad8:
      layout.order = 2;
      layout.serendipity = true;
      for (int v = 0; v < 4; ++v) layout.grid.push_back(vertex_point(v, 2));
      for (int e = 0; e < 4; ++e) layout.grid.push_back(midpoint(vertex_point(e, 2), vertex_point((e + 1) % 4, 2)));
      break;
    case ElementType::Hex20:
      layout.order = 2;
      layout.serendipity = true;
      for (int v = 0; v < 8; ++v) layout.grid.push_back(vertex_point(v, 2));
      // Mid-edges 01, 12, 23, 30, then 45, 56, 67, 74, then the vertical edges 04, 15, 26, 37.
      for (int e = 0; e < 8; ++e) {
        const int base = 4 * (e / 4), c = e % 4;
        layout.grid.push_back(midpoint(vertex_point(base + c, 2), vertex_point(base + (c + 1) % 4, 2)));
      }
      for (int c = 0; c < 4; ++c) layout.grid.push_back(midpoint(vertex_point(c, 2), vertex_point(c + 4, 2)));
      break;
    case ElementType::QuadGLL:
    case ElementType::HexGLL: {
      layout.order = block.order;
      const int top = dimension(block.type) == 3 ? block.order : 0;
      for (int k = 0; k <= top; ++k)
        for (int j = 0; j <= block.order; ++j)
          for (int i = 0; i <= block.order; ++i) layout.grid.push_back({i, j, k});
      break;
    }
    default:
      throw Error(str(source, ": block ", block_index + 1, " holds ", element_name(block.type, block.order),
                      " elements (element ", block.labels.empty() ? Label{0} : block.labels.front(),
                      " first); order elevation takes hex8, hex20, hex27 and hex-gllQ (3D) or quad4, quad8, "
                      "quad9 and quad-gllQ (2D) elements only"));
  }
  const int dim = mesh.dim();
  for (int bits = 0; bits < (1 << dim); ++bits) {
    const Point corner = {(bits & 1) ? layout.order : 0, (bits & 2) ? layout.order : 0,
                          (bits & 4) ? layout.order : 0};
    const auto found = std::find(layout.grid.begin(), layout.grid.end(), corner);
    layout.corner[static_cast<std::size_t>(bits)] = static_cast<int>(found - layout.grid.begin());
  }
  return layout;
}

}  // namespace

OrderElevation::Layout OrderElevation::layout(const Mesh& mesh, int block, std::string_view source) {
  return layout_of(mesh, block, source);
}

std::vector<double> OrderElevation::grid_positions(ElementType type, int order) {
  std::vector<double> at(static_cast<std::size_t>(order) + 1);
  if (is_gll(type)) {
    gll_points(order + 1, at.data());
    for (double& x : at) x = 0.5 * (1.0 + x);
  } else {
    for (int i = 0; i <= order; ++i) at[static_cast<std::size_t>(i)] = static_cast<double>(i) / order;
  }
  return at;
}

namespace {

// The element's geometry on its grid of order g: its nodes where they are; for serendipity
// elements also the face and cell centres their shape functions give there (quad8 and a hex20
// face: -1/4 per corner, 1/2 per mid-edge; hex20's centre: -1/4 per corner, 1/4 per mid-edge).
void element_geometry(const Mesh& input, std::span<const Index> nodes, const Layout& layout,
                      std::vector<double>& geometry) {
  const int dim = input.dim();
  const auto udim = static_cast<std::size_t>(dim);
  const auto g1 = static_cast<std::size_t>(layout.order + 1);
  const std::size_t n_grid = g1 * g1 * (dim == 3 ? g1 : 1);
  geometry.assign(n_grid * udim, 0.0);
  std::vector<char> present(n_grid, 0);
  for (std::size_t a = 0; a < nodes.size(); ++a) {
    const auto at = static_cast<std::size_t>(grid_index(layout.grid[a], layout.order));
    present[at] = 1;
    for (std::size_t c = 0; c < udim; ++c) geometry[at * udim + c] = input.node(nodes[a])[c];
  }
  if (!layout.serendipity) return;
  const auto point = [&](std::size_t at) {
    return Point{static_cast<int>(at % g1), static_cast<int>(at / g1 % g1), static_cast<int>(at / (g1 * g1))};
  };
  for (std::size_t at = 0; at < n_grid; ++at) {
    if (present[at]) continue;
    const Point centre = point(at);
    int inside = 0;
    for (int d = 0; d < dim; ++d) inside += centre[static_cast<std::size_t>(d)] == 1;
    // The corners and mid-edges of the face (or cell) whose centre this is.
    for (std::size_t q = 0; q < n_grid; ++q) {
      if (!present[q]) continue;
      const Point other = point(q);
      int off = 0;
      bool same_entity = true;
      for (int d = 0; d < dim; ++d) {
        const auto a = static_cast<std::size_t>(d);
        if (centre[a] != 1 && other[a] != centre[a]) same_entity = false;
        if (centre[a] == 1 && other[a] == 1) ++off;
      }
      if (!same_entity) continue;
      const double weight = off == 0 ? -0.25 : (inside == 2 ? 0.5 : 0.25);
      for (std::size_t c = 0; c < udim; ++c) geometry[at * udim + c] += weight * geometry[q * udim + c];
    }
  }
}

// The longest distance between two corners of the element: the length scale of the det J check.
double corner_span(const Mesh& input, std::span<const Index> nodes, const Layout& layout) {
  const int dim = input.dim();
  double length = 0.0;
  for (int u = 0; u < (1 << dim); ++u)
    for (int v = u + 1; v < (1 << dim); ++v) {
      const auto x = input.node(nodes[static_cast<std::size_t>(layout.corner[static_cast<std::size_t>(u)])]);
      const auto y = input.node(nodes[static_cast<std::size_t>(layout.corner[static_cast<std::size_t>(v)])]);
      double squared = 0.0;
      for (int c = 0; c < dim; ++c) squared += (x[static_cast<std::size_t>(c)] - y[static_cast<std::size_t>(c)]) * (x[static_cast<std::size_t>(c)] - y[static_cast<std::size_t>(c)]);
      length = std::max(length, std::sqrt(squared));
    }
  return length;
}

std::vector<double> gll(int order) {
  std::vector<double> x(static_cast<std::size_t>(order) + 1);
  gll_points(order + 1, x.data());
  return x;
}

// Values and derivatives of the Lagrange polynomials on the GLL points of order `from` at the GLL
// points of order `to`: row i holds the from + 1 values at point i.
struct Interpolation {
  std::vector<double> value, derivative;
  Interpolation(int from, int to) {
    const std::vector<double> nodes = gll(from), at = gll(to);
    value.resize(at.size() * nodes.size());
    derivative.resize(value.size());
    for (std::size_t i = 0; i < at.size(); ++i)
      lagrange(from + 1, nodes.data(), at[i], &value[i * nodes.size()], &derivative[i * nodes.size()]);
  }
};

// Edge keys hold two corners and -1, -1; face keys four sorted corners.
using EntityKey = std::array<Index, 4>;

// The entities of an element's grid of order p with a coordinate inside (edges, faces and, with
// every coordinate inside, the interior), in the order a scan of the grid (x fastest) first meets
// them: the order in which an element creates their nodes.
struct Grid {
  struct Entity {
    int n_inside = 0;
    int inside[3] = {-1, -1, -1};  // the axes along which it extends
    int upper = 0;                 // the axes (bits) along which it sits at the upper end
    int nodes = 0;                 // (p - 1)^n_inside
    int shared = -1;               // its rank among the edges and faces; -1: the interior
  };
  std::vector<Entity> entities;
  std::vector<int> entity_at;  // per grid point: its entity, -1 at a corner
  std::vector<int> of_shared;  // per rank among the edges and faces: the entity
  int n_shared = 0;

  Grid(int dim, int p) {
    const int top = dim == 3 ? p : 0;
    int seen[27];
    std::fill(std::begin(seen), std::end(seen), -1);
    for (int k = 0; k <= top; ++k)
      for (int j = 0; j <= p; ++j)
        for (int i = 0; i <= p; ++i) {
          const Point pt = {i, j, k};
          Entity entity;
          int id = 0, scale = 1;
          for (int d = 0; d < dim; ++d) {
            const int at = side(pt[static_cast<std::size_t>(d)], p);
            if (at == 1) entity.inside[entity.n_inside++] = d;
            if (at == 2) entity.upper |= 1 << d;
            id += at * scale;
            scale *= 3;
          }
          if (entity.n_inside > 0 && seen[id] < 0) {
            entity.nodes = 1;
            for (int n = 0; n < entity.n_inside; ++n) entity.nodes *= p - 1;
            if (entity.n_inside < dim) {
              entity.shared = n_shared++;
              of_shared.push_back(static_cast<int>(entities.size()));
            }
            seen[id] = static_cast<int>(entities.size());
            entities.push_back(entity);
          }
          entity_at.push_back(entity.n_inside > 0 ? seen[id] : -1);
        }
  }

  // The key of edge or face `rank` of an element with these corners (indexed by x bit 0, y bit 1,
  // z bit 2): an edge's two corners, smaller first, and -1, -1; a face's four, sorted.
  EntityKey key(int rank, const Index vertex[8]) const {
    const Entity& entity = entities[static_cast<std::size_t>(of_shared[static_cast<std::size_t>(rank)])];
    const int u = entity.upper;
    if (entity.n_inside == 1) {
      const Index v0 = vertex[u], v1 = vertex[u | (1 << entity.inside[0])];
      return {std::min(v0, v1), std::max(v0, v1), -1, -1};
    }
    const int a = entity.inside[0], c = entity.inside[1];
    EntityKey key = {vertex[u], vertex[u | (1 << a)], vertex[u | (1 << a) | (1 << c)], vertex[u | (1 << c)]};
    std::sort(key.begin(), key.end());
    return key;
  }
};

// Keeps the corner nodes and the nodes no element uses (in input order, with their labels); the
// nodes used only off the corners go. `kept`: per input node its elevated index, -1 when dropped.
// Returns the largest input label.
Label keep_corner_nodes(const Mesh& input, const std::vector<Layout>& layouts, Mesh& mesh, std::vector<Index>& kept) {
  const int dim = input.dim();
  const auto n_input = static_cast<std::size_t>(input.n_nodes());
  std::vector<char> corner(n_input, 0), used(n_input, 0);
  for (std::size_t b = 0; b < input.blocks.size(); ++b) {
    const ElementBlock& block = input.blocks[b];
    for (Index e = 0; e < block.n_elements(); ++e) {
      const auto nodes = block.nodes(e);
      for (const Index n : nodes) used[static_cast<std::size_t>(n)] = 1;
      for (int bits = 0; bits < (1 << dim); ++bits)
        corner[static_cast<std::size_t>(nodes[static_cast<std::size_t>(layouts[b].corner[static_cast<std::size_t>(bits)])])] = 1;
    }
  }
  kept.assign(n_input, -1);
  Label largest = 0;
  for (std::size_t n = 0; n < n_input; ++n) {
    largest = std::max(largest, input.node_labels[n]);
    if (corner[n] || !used[n]) kept[n] = mesh.add_node(input.node_labels[n], input.node(static_cast<Index>(n)));
  }
  return largest;
}

// Where the nodes every element creates are numbered. Each element's edges and faces (its
// occurrences of them, n_shared per element) are keyed by their corners; the first occurrence
// of a key in element order creates the entity's nodes.
struct Numbering {
  std::vector<Index> entity_start;   // per occurrence: its entity's first node
  std::vector<char> creates;         // per occurrence: whether it is the first
  std::vector<Size> first_new;       // per element: its first created node; last, the node count
  std::vector<Index> interior_start; // per element: its interior's first node
};

// A GLL point of an element where det J is not above the threshold.
struct PointFailure {
  double det = 0.0, threshold = 0.0;
  int i = -1, j = -1, k = -1;  // the GLL point; i < 0: none
};

// The elevation of an input mesh's elements to GLL order p, what its steps share.
struct Elevation {
  const Mesh& input;
  const std::vector<Layout>& layouts;
  const std::vector<Index>& kept;
  int dim, p, n1, nz;
  std::size_t udim;
  std::vector<Interpolation> maps;  // per input order 1..8
  Grid grid;
  std::size_t n_shared;
  std::vector<Index> block_start;  // each block's first global element
  std::size_t n_elements;

  Elevation(const Mesh& input_, const std::vector<Layout>& layouts_, const std::vector<Index>& kept_, int order)
      : input(input_), layouts(layouts_), kept(kept_), dim(input.dim()), p(order), n1(order + 1),
        nz(dim == 3 ? order + 1 : 1), udim(static_cast<std::size_t>(dim)), grid(dim, order),
        n_shared(static_cast<std::size_t>(grid.n_shared)), block_start(input.blocks.size() + 1, 0) {
    for (int g = 1; g <= max_gll_order; ++g) maps.emplace_back(g, p);
    for (std::size_t b = 0; b < input.blocks.size(); ++b)
      block_start[b + 1] = block_start[b] + input.blocks[b].n_elements();
    n_elements = static_cast<std::size_t>(block_start.back());
  }

  // The elevated indices of element e of block b's corners, indexed by x bit 0, y bit 1, z bit 2.
  void corners_of(std::size_t b, Index e, Index vertex[8]) const {
    const auto nodes = input.blocks[b].nodes(e);
    for (int bits = 0; bits < (1 << dim); ++bits)
      vertex[bits] = kept[static_cast<std::size_t>(nodes[static_cast<std::size_t>(layouts[b].corner[static_cast<std::size_t>(bits)])])];
  }

  // The numbering, in parallel, is the one of creating the nodes element by element: the first
  // occurrence of each key (found by bucketing the keys on their smallest corner and sorting each
  // bucket) creates; a prefix sum over the elements and their entities in creation order then
  // places every entity's nodes after the `n_kept` kept ones.
  Numbering number(Index n_kept, std::string_view source) const {
    Numbering out;
    out.entity_start.resize(n_elements * n_shared);
    out.creates.assign(n_elements * n_shared, 0);
    out.first_new.assign(n_elements + 1, 0);
    out.interior_start.resize(n_elements);
    const std::vector<Size> owner = first_occurrences(entity_keys(), n_kept);
    const auto n_occurrences = static_cast<Size>(owner.size());
#pragma omp parallel for schedule(static)
    for (Size o = 0; o < n_occurrences; ++o)
      out.creates[static_cast<std::size_t>(o)] = owner[static_cast<std::size_t>(o)] == o;
#pragma omp parallel for schedule(static)
    for (std::size_t g = 0; g < n_elements; ++g) {
      Size created = 0;
      for (const Grid::Entity& entity : grid.entities)
        if (entity.shared < 0 || out.creates[g * n_shared + static_cast<std::size_t>(entity.shared)])
          created += entity.nodes;
      out.first_new[g + 1] = created;
    }
    out.first_new[0] = n_kept;
    for (std::size_t g = 1; g <= n_elements; ++g) out.first_new[g] += out.first_new[g - 1];
    TREMOR_CHECK(out.first_new.back() <= std::numeric_limits<Index>::max(), source, ": the mesh elevated to order ",
                 p, " needs more than ", std::numeric_limits<Index>::max(), " nodes");
#pragma omp parallel for schedule(static)
    for (std::size_t g = 0; g < n_elements; ++g) {
      auto next = static_cast<Index>(out.first_new[g]);
      for (const Grid::Entity& entity : grid.entities)
        if (entity.shared >= 0 && out.creates[g * n_shared + static_cast<std::size_t>(entity.shared)]) {
          out.entity_start[g * n_shared + static_cast<std::size_t>(entity.shared)] = next;
          next += entity.nodes;
        } else if (entity.shared < 0) {
          out.interior_start[g] = next;
          next += entity.nodes;
        }
    }
#pragma omp parallel for schedule(static)
    for (Size o = 0; o < n_occurrences; ++o)
      if (!out.creates[static_cast<std::size_t>(o)])
        out.entity_start[static_cast<std::size_t>(o)] =
            out.entity_start[static_cast<std::size_t>(owner[static_cast<std::size_t>(o)])];
    return out;
  }

  // Per occurrence (element by element, n_shared each): its edge's or face's key.
  std::vector<EntityKey> entity_keys() const {
    std::vector<EntityKey> keys(n_elements * n_shared);
    for (std::size_t b = 0; b < input.blocks.size(); ++b) {
      const Index count = input.blocks[b].n_elements();
#pragma omp parallel for schedule(static)
      for (Index e = 0; e < count; ++e) {
        Index vertex[8];
        corners_of(b, e, vertex);
        const std::size_t o = static_cast<std::size_t>(block_start[b] + e) * n_shared;
        for (std::size_t s = 0; s < n_shared; ++s) keys[o + s] = grid.key(static_cast<int>(s), vertex);
      }
    }
    return keys;
  }

  // Per occurrence: the first occurrence of its key, found among the keys of its smallest corner
  // (one of the `n_kept` nodes).
  static std::vector<Size> first_occurrences(const std::vector<EntityKey>& keys, Index n_kept) {
    const auto n_occurrences = static_cast<Size>(keys.size());
    std::vector<Size> bucket(static_cast<std::size_t>(n_kept) + 1, 0);
#pragma omp parallel for schedule(static)
    for (Size o = 0; o < n_occurrences; ++o)
      std::atomic_ref<Size>(bucket[static_cast<std::size_t>(keys[static_cast<std::size_t>(o)][0]) + 1])
          .fetch_add(1, std::memory_order_relaxed);
    for (std::size_t v = 1; v < bucket.size(); ++v) bucket[v] += bucket[v - 1];
    std::vector<Size> members(keys.size());  // the buckets' occurrences
    {
      std::vector<Size> filled(bucket.begin(), bucket.end() - 1);
#pragma omp parallel for schedule(static)
      for (Size o = 0; o < n_occurrences; ++o) {
        const auto v = static_cast<std::size_t>(keys[static_cast<std::size_t>(o)][0]);
        members[static_cast<std::size_t>(std::atomic_ref<Size>(filled[v]).fetch_add(1, std::memory_order_relaxed))] = o;
      }
    }
    std::vector<Size> first(keys.size());
#pragma omp parallel for schedule(dynamic, 4096)
    for (Index v = 0; v < n_kept; ++v) {
      const auto begin = members.begin() + bucket[static_cast<std::size_t>(v)];
      const auto end = members.begin() + bucket[static_cast<std::size_t>(v) + 1];
      std::sort(begin, end, [&](Size a, Size c) {
        const EntityKey& ka = keys[static_cast<std::size_t>(a)];
        const EntityKey& kc = keys[static_cast<std::size_t>(c)];
        return ka != kc ? ka < kc : a < c;
      });
      Size run = -1;
      for (auto it = begin; it != end; ++it) {
        if (it == begin || keys[static_cast<std::size_t>(*it)] != keys[static_cast<std::size_t>(*(it - 1))]) run = *it;
        first[static_cast<std::size_t>(*it)] = run;
      }
    }
    return first;
  }

  // Element e of block b's positions and det J at its GLL points of order p (tensor products of
  // the 1D tables), checked point by point until one fails; into x, per_element * dim values.
  PointFailure place(std::size_t b, Index e, std::vector<double>& geometry, double* x) const {
    const ElementBlock& block = input.blocks[b];
    const Layout& layout = layouts[b];
    const int g = layout.order;
    const int gz = dim == 3 ? g + 1 : 1;
    const Interpolation& map = maps[static_cast<std::size_t>(g - 1)];
    const auto g1 = static_cast<std::size_t>(g + 1);
    const auto nodes = block.nodes(e);
    element_geometry(input, nodes, layout, geometry);
    const double length = corner_span(input, nodes, layout);
    const double threshold = 1e-10 * std::pow(length, dim) / std::pow(2.0, dim);
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < n1; ++j)
        for (int i = 0; i < n1; ++i) {
          double position[3] = {0.0, 0.0, 0.0}, jacobian[3][3] = {};
          for (int c3 = 0; c3 < gz; ++c3)
            for (int c2 = 0; c2 <= g; ++c2)
              for (int c1 = 0; c1 <= g; ++c1) {
                const auto row = [&](int at) { return static_cast<std::size_t>(at) * g1; };
                const double v1 = map.value[row(i) + static_cast<std::size_t>(c1)],
                             v2 = map.value[row(j) + static_cast<std::size_t>(c2)],
                             v3 = dim == 3 ? map.value[row(k) + static_cast<std::size_t>(c3)] : 1.0;
                const double d1 = map.derivative[row(i) + static_cast<std::size_t>(c1)],
                             d2 = map.derivative[row(j) + static_cast<std::size_t>(c2)],
                             d3 = dim == 3 ? map.derivative[row(k) + static_cast<std::size_t>(c3)] : 0.0;
                const double* gx = &geometry[static_cast<std::size_t>(grid_index({c1, c2, c3}, g)) * udim];
                for (std::size_t c = 0; c < udim; ++c) {
                  position[c] += v1 * v2 * v3 * gx[c];
                  jacobian[c][0] += d1 * v2 * v3 * gx[c];
                  jacobian[c][1] += v1 * d2 * v3 * gx[c];
                  jacobian[c][2] += v1 * v2 * d3 * gx[c];
                }
              }
          const double det =
              dim == 2 ? jacobian[0][0] * jacobian[1][1] - jacobian[0][1] * jacobian[1][0]
                       : jacobian[0][0] * (jacobian[1][1] * jacobian[2][2] - jacobian[1][2] * jacobian[2][1]) -
                             jacobian[0][1] * (jacobian[1][0] * jacobian[2][2] - jacobian[1][2] * jacobian[2][0]) +
                             jacobian[0][2] * (jacobian[1][0] * jacobian[2][1] - jacobian[1][1] * jacobian[2][0]);
          if (!(det > threshold)) return PointFailure{det, threshold, i, j, k};
          const auto at = static_cast<std::size_t>(grid_index({i, j, k}, p)) * udim;
          for (std::size_t c = 0; c < udim; ++c) x[at + c] = position[c];
        }
    return PointFailure{};
  }

  // Every element in parallel: its positions, then its nodes into `out` and the coordinates of the
  // nodes it created into `mesh`. Returns the first element (global index) whose det J fails,
  // n_elements when none.
  Size place_all(const Numbering& numbering, ElementBlock& out, Mesh& mesh) const {
    const auto per_element = static_cast<std::size_t>(nodes_per_element(out.type, p));
    auto first_failed = static_cast<Size>(n_elements);
    for (std::size_t b = 0; b < input.blocks.size(); ++b) {
      const Index count = input.blocks[b].n_elements();
#pragma omp parallel
      {
        std::vector<double> geometry, x(per_element * udim);
#pragma omp for schedule(static)
        for (Index e = 0; e < count; ++e) {
          const auto global = static_cast<std::size_t>(block_start[b] + e);
          if (place(b, e, geometry, x.data()).i >= 0) {
            std::atomic_ref<Size> failed(first_failed);
            for (Size seen = failed.load(); static_cast<Size>(global) < seen;)
              if (failed.compare_exchange_weak(seen, static_cast<Size>(global))) break;
            continue;
          }
          Index vertex[8];
          corners_of(b, e, vertex);
          Index* connectivity = out.connectivity.data() + global * per_element;
          for (int k = 0; k < nz; ++k)
            for (int j = 0; j < n1; ++j)
              for (int i = 0; i < n1; ++i) {
                const Point pt = {i, j, k};
                const auto at = static_cast<std::size_t>(grid_index(pt, p));
                bool created = false;
                const Index node = node_at(pt, global, vertex, numbering, created);
                connectivity[at] = node;
                if (created)
                  for (std::size_t c = 0; c < udim; ++c)
                    mesh.coordinates[static_cast<std::size_t>(node) * udim + c] = x[at * udim + c];
              }
        }
      }
    }
    return first_failed;
  }

  // The node at grid point pt of element `global` (its corners `vertex`): corners keep theirs,
  // edges, faces and the interior share; `created` when this element created it.
  Index node_at(const Point& pt, std::size_t global, const Index vertex[8], const Numbering& numbering,
                bool& created) const {
    const int id = grid.entity_at[static_cast<std::size_t>(grid_index(pt, p))];
    int bits = 0;
    for (int d = 0; d < dim; ++d)
      if (pt[static_cast<std::size_t>(d)] == p) bits |= 1 << d;
    if (id < 0) return vertex[bits];
    const Grid::Entity& entity = grid.entities[static_cast<std::size_t>(id)];
    const auto o = global * n_shared + static_cast<std::size_t>(entity.shared);
    if (entity.n_inside == 1) {
      // From the smaller corner index to the larger.
      const int axis = entity.inside[0];
      const Index v0 = vertex[bits], v1 = vertex[bits | (1 << axis)];
      const int t = pt[static_cast<std::size_t>(axis)];
      created = numbering.creates[o];
      return numbering.entity_start[o] + (v0 < v1 ? t : p - t) - 1;
    }
    if (entity.shared >= 0) {
      // From the smallest corner towards its smaller neighbour, then across.
      const int a = entity.inside[0], c = entity.inside[1];
      const auto at_corner = [&](int s0, int t0) { return vertex[bits | (s0 << a) | (t0 << c)]; };
      int s0 = 0, t0 = 0;
      for (int s = 0; s < 2; ++s)
        for (int t = 0; t < 2; ++t)
          if (at_corner(s, t) < at_corner(s0, t0)) {
            s0 = s;
            t0 = t;
          }
      const int s = s0 ? p - pt[static_cast<std::size_t>(a)] : pt[static_cast<std::size_t>(a)];
      const int t = t0 ? p - pt[static_cast<std::size_t>(c)] : pt[static_cast<std::size_t>(c)];
      const bool along_s = at_corner(1 - s0, t0) < at_corner(s0, 1 - t0);
      const int u = along_s ? s : t, w = along_s ? t : s;
      created = numbering.creates[o];
      return numbering.entity_start[o] + (u - 1) + (p - 1) * (w - 1);
    }
    created = true;
    const int i = pt[0], j = pt[1], k = pt[2];
    return numbering.interior_start[global] + (i - 1) + (p - 1) * ((j - 1) + (dim == 3 ? (p - 1) * (k - 1) : 0));
  }

  // The error for the first element in order whose det J fails, at its first such point.
  [[noreturn]] void throw_failure(Size first_failed, std::size_t per_element, std::string_view source) const {
    const auto b = static_cast<std::size_t>(
        std::upper_bound(block_start.begin(), block_start.end(), static_cast<Index>(first_failed)) - block_start.begin() - 1);
    const auto e = static_cast<Index>(first_failed) - block_start[b];
    std::vector<double> geometry, x(per_element * udim);
    const PointFailure failure = place(b, e, geometry, x.data());
    const ElementBlock& block = input.blocks[b];
    const std::vector<double> xi = gll(p);
    throw Error(str(source, ": element ", block.labels[static_cast<std::size_t>(e)], " (block ", b + 1, ", ",
                    element_name(block.type, block.order), ") has det J = ", failure.det, " at the GLL point (",
                    xi[static_cast<std::size_t>(failure.i)], ", ", xi[static_cast<std::size_t>(failure.j)],
                    dim == 3 ? str(", ", xi[static_cast<std::size_t>(failure.k)]) : std::string(), ") of order ", p,
                    ": ",
                    failure.det < -failure.threshold ? "inverted (wrong node order or a node on the wrong side)"
                                                     : "degenerate (collapsed or flat)",
                    "; order elevation needs det J > 0 at every GLL point"));
  }
};

}  // namespace

OrderElevation::OrderElevation(const Mesh& input, int order, std::string_view source)
    : mesh_(input.dim()), order_(order), n_input_nodes_(input.n_nodes()), input_blocks_(input.blocks) {
  TREMOR_CHECK(order >= 1 && order <= max_gll_order, source, ": mesh order ", order, " outside 1..", max_gll_order);
  const int dim = input.dim();
  for (int b = 0; b < input.n_blocks(); ++b) layouts_.push_back(layout_of(input, b, source));
  const Label largest_label = keep_corner_nodes(input, layouts_, mesh_, kept_);
  const Index n_kept = mesh_.n_nodes();

  const Elevation elevation(input, layouts_, kept_, order);
  ElementBlock& out = mesh_.block_for(dim == 3 ? ElementType::HexGLL : ElementType::QuadGLL, order);
  const auto per_element = static_cast<std::size_t>(nodes_per_element(out.type, order));
  const Numbering numbering = elevation.number(n_kept, source);
  const auto n_nodes = static_cast<std::size_t>(numbering.first_new.back());
  mesh_.coordinates.resize(n_nodes * static_cast<std::size_t>(dim));
  mesh_.node_labels.resize(n_nodes);
  // New nodes are labelled from the largest input label + 1, in the order of their indices.
#pragma omp parallel for schedule(static)
  for (std::size_t n = static_cast<std::size_t>(n_kept); n < n_nodes; ++n)
    mesh_.node_labels[n] = largest_label + 1 + static_cast<Label>(n - static_cast<std::size_t>(n_kept));
  out.connectivity.resize(elevation.n_elements * per_element);
  for (const ElementBlock& block : input.blocks) out.labels.insert(out.labels.end(), block.labels.begin(), block.labels.end());

  const Size first_failed = elevation.place_all(numbering, out, mesh_);
  if (first_failed < static_cast<Size>(elevation.n_elements)) elevation.throw_failure(first_failed, per_element, source);

  // Element indices and face numbers are unchanged, so element sets and surfaces carry over.
  mesh_.element_sets = input.element_sets;
  mesh_.face_sets = input.face_sets;
  for (const auto& [name, members] : input.node_sets) mesh_.node_sets[name] = map_nodes(members);
}

void OrderElevation::map_covered(const std::vector<char>& in_set, std::vector<char>& covered,
                                 std::vector<Index>& out) const {
  const int dim = mesh_.dim();
  const int p = order_;
  const ElementBlock& elevated = mesh_.blocks.front();
  const int n_entities = dim == 3 ? 27 : 9;
  // Per edge, face and interior (sides as in on_closure): the elevated grid's points on its closure.
  std::vector<std::vector<int>> targets_on(static_cast<std::size_t>(n_entities));
  for (int entity = 0; entity < n_entities; ++entity) {
    const Point sides = {entity % 3, entity / 3 % 3, entity / 9};
    for (int k = 0; k <= (dim == 3 ? p : 0); ++k)
      for (int j = 0; j <= p; ++j)
        for (int i = 0; i <= p; ++i)
          if (on_closure({i, j, k}, p, sides, dim))
            targets_on[static_cast<std::size_t>(entity)].push_back(static_cast<int>(grid_index({i, j, k}, p)));
  }
  Index global = 0;
  for (std::size_t b = 0; b < input_blocks_.size(); ++b) {
    const ElementBlock& block = input_blocks_[b];
    const Layout& layout = layouts_[b];
    // The edges, faces and interior (not the corners) with the block's local nodes on their closure.
    std::vector<int> entities;
    std::vector<std::vector<int>> nodes_on;
    for (int entity = 0; entity < n_entities; ++entity) {
      const Point sides = {entity % 3, entity / 3 % 3, entity / 9};
      if (std::find(sides.begin(), sides.begin() + dim, 1) == sides.begin() + dim) continue;  // a corner
      entities.push_back(entity);
      nodes_on.emplace_back();
      for (std::size_t a = 0; a < layout.grid.size(); ++a)
        if (on_closure(layout.grid[a], layout.order, sides, dim)) nodes_on.back().push_back(static_cast<int>(a));
    }
    const Index first = global;
    // Element by element in parallel, each thread's finds merged after; a failure (out of
    // memory: a side of a large mesh holds millions of nodes) is rethrown once the threads are done.
    std::exception_ptr failure;
    const auto failed = [&] {
#pragma omp critical(tremor_elevation_failure)
      if (!failure) failure = std::current_exception();
    };
#pragma omp parallel
    {
      std::vector<Index> found;
      std::vector<Index> nodes_covered;
#pragma omp for schedule(static)
      for (Index e = 0; e < block.n_elements(); ++e) {
        const auto nodes = block.nodes(e);
        if (std::none_of(nodes.begin(), nodes.end(), [&](Index n) { return in_set[static_cast<std::size_t>(n)]; }))
          continue;
        const auto targets = elevated.nodes(first + e);
        try {
          for (std::size_t m = 0; m < entities.size(); ++m) {
            const std::vector<int>& on = nodes_on[m];
            if (!std::all_of(on.begin(), on.end(), [&](int a) { return in_set[static_cast<std::size_t>(nodes[static_cast<std::size_t>(a)])]; }))
              continue;
            for (const int a : on) nodes_covered.push_back(nodes[static_cast<std::size_t>(a)]);
            for (const int at : targets_on[static_cast<std::size_t>(entities[m])]) found.push_back(targets[static_cast<std::size_t>(at)]);
          }
        } catch (...) {
          failed();
        }
      }
#pragma omp critical(tremor_elevation_sets)
      {
        try {
          out.insert(out.end(), found.begin(), found.end());
        } catch (...) {
          failed();
        }
        for (const Index n : nodes_covered) covered[static_cast<std::size_t>(n)] = 1;
      }
    }
    if (failure) std::rethrow_exception(failure);
    global += block.n_elements();
  }
}

std::vector<Index> OrderElevation::map_nodes(std::span<const Index> nodes) const {
  const auto n_input = static_cast<std::size_t>(n_input_nodes_);
  std::vector<char> in_set(n_input, 0), covered(n_input, 0);
  std::vector<Index> out;
  for (const Index n : nodes) {
    TREMOR_CHECK(n >= 0 && n < n_input_nodes_, "node index ", n, " outside 0..", n_input_nodes_ - 1);
    in_set[static_cast<std::size_t>(n)] = 1;
    if (kept_[static_cast<std::size_t>(n)] >= 0) out.push_back(kept_[static_cast<std::size_t>(n)]);
  }
  map_covered(in_set, covered, out);

  // Dropped nodes outside every covered edge, face and element: the nearest GLL point of the
  // first element holding them, per axis on the reference element.
  std::vector<char> pending(n_input, 0);
  bool any = false;
  for (const Index n : nodes) {
    const auto at = static_cast<std::size_t>(n);
    if (kept_[at] < 0 && !covered[at]) {
      pending[at] = 1;
      any = true;
    }
  }
  if (any) {
    const int dim = mesh_.dim();
    const std::vector<double> target_points = gll(order_);
    const ElementBlock& elevated = mesh_.blocks.front();
    Index global = 0;
    for (std::size_t b = 0; b < input_blocks_.size(); ++b) {
      const ElementBlock& block = input_blocks_[b];
      const Layout& layout = layouts_[b];
      const std::vector<double> source_points = gll(layout.order);
      for (Index e = 0; e < block.n_elements(); ++e, ++global) {
        const auto element = block.nodes(e);
        for (std::size_t a = 0; a < element.size(); ++a) {
          const auto n = static_cast<std::size_t>(element[a]);
          if (!pending[n]) continue;
          pending[n] = 0;
          Point nearest = {0, 0, 0};
          for (int d = 0; d < dim; ++d) {
            const auto axis = static_cast<std::size_t>(d);
            const double reference = source_points[static_cast<std::size_t>(layout.grid[a][axis])];
            double best = std::numeric_limits<double>::infinity();
            for (int i = 0; i <= order_; ++i)
              if (std::abs(target_points[static_cast<std::size_t>(i)] - reference) < best) {
                best = std::abs(target_points[static_cast<std::size_t>(i)] - reference);
                nearest[axis] = i;
              }
          }
          out.push_back(elevated.nodes(global)[static_cast<std::size_t>(grid_index(nearest, order_))]);
        }
      }
    }
  }
  // Sorted and unique: through marks on the elevated nodes where the set is a large part of them
  // (a side of a big mesh: millions of entries, most of them several times), else by sorting.
  if (static_cast<Size>(out.size()) > Size{mesh_.n_nodes()} / 16) {
    std::vector<char> member(static_cast<std::size_t>(mesh_.n_nodes()), 0);
    for (const Index n : out) member[static_cast<std::size_t>(n)] = 1;
    out.clear();
    for (Index n = 0; n < mesh_.n_nodes(); ++n)
      if (member[static_cast<std::size_t>(n)]) out.push_back(n);
  } else {
    normalise_set(out);
  }
  return out;
}

Mesh elevate_order(const Mesh& mesh, int order, std::string_view source) {
  return OrderElevation(mesh, order, source).take_mesh();
}

}  // namespace tremor
