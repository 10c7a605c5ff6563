#include "tremor/mesh/elevate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

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
struct EntityHash {
  std::size_t operator()(const EntityKey& key) const {
    std::size_t h = 0;
    for (Index v : key) h = (h ^ static_cast<std::size_t>(static_cast<std::uint32_t>(v))) * 0x100000001b3ull;
    return h;
  }
};

}  // namespace

OrderElevation::OrderElevation(const Mesh& input, int order, std::string_view source)
    : mesh_(input.dim()), order_(order), n_input_nodes_(input.n_nodes()), input_blocks_(input.blocks) {
  TREMOR_CHECK(order >= 1 && order <= max_gll_order, source, ": mesh order ", order, " outside 1..", max_gll_order);
  const int dim = input.dim();
  const auto udim = static_cast<std::size_t>(dim);
  for (int b = 0; b < input.n_blocks(); ++b) layouts_.push_back(layout_of(input, b, source));

  // Corner nodes and nodes no element uses stay; nodes used only off the corners go.
  const auto n_input = static_cast<std::size_t>(input.n_nodes());
  std::vector<char> corner(n_input, 0), used(n_input, 0);
  for (std::size_t b = 0; b < input.blocks.size(); ++b) {
    const ElementBlock& block = input.blocks[b];
    for (Index e = 0; e < block.n_elements(); ++e) {
      const auto nodes = block.nodes(e);
      for (const Index n : nodes) used[static_cast<std::size_t>(n)] = 1;
      for (int bits = 0; bits < (1 << dim); ++bits)
        corner[static_cast<std::size_t>(nodes[static_cast<std::size_t>(layouts_[b].corner[static_cast<std::size_t>(bits)])])] = 1;
    }
  }
  kept_.assign(n_input, -1);
  Label next_label = 0;
  for (std::size_t n = 0; n < n_input; ++n) {
    next_label = std::max(next_label, input.node_labels[n]);
    if (corner[n] || !used[n]) kept_[n] = mesh_.add_node(input.node_labels[n], input.node(static_cast<Index>(n)));
  }
  const Index n_kept = mesh_.n_nodes();

  const int p = order;
  const int n1 = p + 1;
  const int nz = dim == 3 ? n1 : 1;
  const std::vector<double> xi = gll(p);
  std::vector<Interpolation> maps;  // per input order 1..8
  for (int g = 1; g <= max_gll_order; ++g) maps.emplace_back(g, p);

  ElementBlock& out = mesh_.block_for(dim == 3 ? ElementType::HexGLL : ElementType::QuadGLL, order);
  const auto per_element = static_cast<std::size_t>(nodes_per_element(out.type, order));
  out.connectivity.reserve(static_cast<std::size_t>(input.n_elements()) * per_element);
  out.labels.reserve(static_cast<std::size_t>(input.n_elements()));

  std::unordered_map<EntityKey, Index, EntityHash> entities;
  const auto create = [&](Size count) {
    TREMOR_CHECK(static_cast<Size>(mesh_.n_nodes()) + count <= std::numeric_limits<Index>::max(), source,
                 ": the mesh elevated to order ", p, " needs more than ", std::numeric_limits<Index>::max(),
                 " nodes");
    const Index base = mesh_.n_nodes();
    const double unset[3] = {std::nan(""), std::nan(""), std::nan("")};
    for (Size c = 0; c < count; ++c) mesh_.add_node(++next_label, std::span<const double>(unset, udim));
    return base;
  };
  const auto find_or_create = [&](const EntityKey& key, Size count) {
    const auto [entry, inserted] = entities.try_emplace(key, 0);
    if (inserted) entry->second = create(count);
    return entry->second;
  };

  // Each element's GLL points and det J there, chunk by chunk in parallel (the work of the
  // elevation: (g + 1)^dim terms at each of (p + 1)^dim points), then the chunk's nodes numbered in
  // element order (sequential: shared edges and faces take the numbers their first element gives).
  Index chunk = 0;  // elements a chunk holds: 16384, fewer where no block has as many
  for (const ElementBlock& block : input.blocks) chunk = std::max(chunk, std::min<Index>(16384, block.n_elements()));
  std::vector<double> positions(static_cast<std::size_t>(chunk) * per_element * udim);
  struct Failure {
    double det = 0.0, threshold = 0.0;
    int i = -1, j = -1, k = -1;  // the GLL point; i < 0: none
  };
  std::vector<Failure> failures(static_cast<std::size_t>(chunk));
  for (std::size_t b = 0; b < input.blocks.size(); ++b) {
    const ElementBlock& block = input.blocks[b];
    const Layout& layout = layouts_[b];
    const int g = layout.order;
    const int gz = dim == 3 ? g + 1 : 1;
    const Interpolation& map = maps[static_cast<std::size_t>(g - 1)];
    const auto g1 = static_cast<std::size_t>(g + 1);
    for (Index first = 0; first < block.n_elements(); first += chunk) {
      const Index n_chunk = std::min(chunk, block.n_elements() - first);
#pragma omp parallel
      {
        std::vector<double> geometry;
#pragma omp for schedule(static)
        for (Index m = 0; m < n_chunk; ++m) {
          const Index e = first + m;
          const auto nodes = block.nodes(e);
          element_geometry(input, nodes, layout, geometry);
          double* x = positions.data() + static_cast<std::size_t>(m) * per_element * udim;
          Failure& failure = failures[static_cast<std::size_t>(m)];
          failure = Failure{};
          // Positions and det J at the GLL points of order p (tensor products of the 1D tables).
          const double length = corner_span(input, nodes, layout);
          const double threshold = 1e-10 * std::pow(length, dim) / std::pow(2.0, dim);
          for (int k = 0; k < nz && failure.i < 0; ++k)
            for (int j = 0; j < n1 && failure.i < 0; ++j)
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
                if (!(det > threshold)) {
                  failure = Failure{det, threshold, i, j, k};
                  break;
                }
                const auto at = static_cast<std::size_t>(grid_index({i, j, k}, p)) * udim;
                for (std::size_t c = 0; c < udim; ++c) x[at + c] = position[c];
              }
        }
      }
      for (Index m = 0; m < n_chunk; ++m) {
        const Index e = first + m;
        const auto nodes = block.nodes(e);
        const double* x = positions.data() + static_cast<std::size_t>(m) * per_element * udim;
        const Failure& failure = failures[static_cast<std::size_t>(m)];
        if (failure.i >= 0)  // the first such element in order, at its first such point
          throw Error(str(source, ": element ", block.labels[static_cast<std::size_t>(e)], " (block ", b + 1, ", ",
                          element_name(block.type, block.order), ") has det J = ", failure.det, " at the GLL point (",
                          xi[static_cast<std::size_t>(failure.i)], ", ", xi[static_cast<std::size_t>(failure.j)],
                          dim == 3 ? str(", ", xi[static_cast<std::size_t>(failure.k)]) : std::string(), ") of order ",
                          p, ": ",
                          failure.det < -failure.threshold ? "inverted (wrong node order or a node on the wrong side)"
                                                           : "degenerate (collapsed or flat)",
                          "; order elevation needs det J > 0 at every GLL point"));

        // Number the element's nodes: corners keep theirs, edges, faces and the interior share.
        Index vertex[8];
        for (int bits = 0; bits < (1 << dim); ++bits)
          vertex[bits] = kept_[static_cast<std::size_t>(nodes[static_cast<std::size_t>(layout.corner[static_cast<std::size_t>(bits)])])];
        Index interior = -1;
        for (int k = 0; k < nz; ++k)
          for (int j = 0; j < n1; ++j)
            for (int i = 0; i < n1; ++i) {
              const Point pt = {i, j, k};
              int inside[3], n_inside = 0, bits = 0;
              for (int d = 0; d < dim; ++d) {
                const auto a = static_cast<std::size_t>(d);
                if (side(pt[a], p) == 1)
                  inside[n_inside++] = d;
                else if (pt[a] == p)
                  bits |= 1 << d;
              }
              Index node;
              if (n_inside == 0) {
                node = vertex[bits];
              } else if (n_inside == 1) {
                // From the smaller corner index to the larger.
                const int axis = inside[0];
                const Index v0 = vertex[bits], v1 = vertex[bits | (1 << axis)];
                const int t = pt[static_cast<std::size_t>(axis)];
                node = find_or_create({std::min(v0, v1), std::max(v0, v1), -1, -1}, p - 1) + (v0 < v1 ? t : p - t) - 1;
              } else if (n_inside == 2 && dim == 3) {
                // From the smallest corner towards its smaller neighbour, then across.
                const int a = inside[0], c = inside[1];
                const auto at = [&](int s0, int t0) { return vertex[bits | (s0 << a) | (t0 << c)]; };
                int s0 = 0, t0 = 0;
                for (int s = 0; s < 2; ++s)
                  for (int t = 0; t < 2; ++t)
                    if (at(s, t) < at(s0, t0)) {
                      s0 = s;
                      t0 = t;
                    }
                const int s = s0 ? p - pt[static_cast<std::size_t>(a)] : pt[static_cast<std::size_t>(a)];
                const int t = t0 ? p - pt[static_cast<std::size_t>(c)] : pt[static_cast<std::size_t>(c)];
                const bool along_s = at(1 - s0, t0) < at(s0, 1 - t0);
                const int u = along_s ? s : t, w = along_s ? t : s;
                EntityKey key = {at(0, 0), at(1, 0), at(1, 1), at(0, 1)};
                std::sort(key.begin(), key.end());
                node = find_or_create(key, Size{p - 1} * (p - 1)) + (u - 1) + (p - 1) * (w - 1);
              } else {
                if (interior < 0) interior = create(n_inside == 3 ? Size{p - 1} * (p - 1) * (p - 1) : Size{p - 1} * (p - 1));
                node = interior + (i - 1) + (p - 1) * ((j - 1) + (dim == 3 ? (p - 1) * (k - 1) : 0));
              }
              out.connectivity.push_back(node);
              double* target = mesh_.coordinates.data() + static_cast<std::size_t>(node) * udim;
              if (node >= n_kept && std::isnan(target[0])) {
                const auto at = static_cast<std::size_t>(grid_index(pt, p)) * udim;
                for (std::size_t c = 0; c < udim; ++c) target[c] = x[at + c];
              }
            }
        out.labels.push_back(block.labels[static_cast<std::size_t>(e)]);
      }
    }
  }

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
  Index global = 0;
  for (std::size_t b = 0; b < input_blocks_.size(); ++b) {
    const ElementBlock& block = input_blocks_[b];
    const Layout& layout = layouts_[b];
    for (Index e = 0; e < block.n_elements(); ++e, ++global) {
      const auto nodes = block.nodes(e);
      if (std::none_of(nodes.begin(), nodes.end(), [&](Index n) { return in_set[static_cast<std::size_t>(n)]; }))
        continue;
      const auto targets = elevated.nodes(global);
      for (int entity = 0; entity < n_entities; ++entity) {
        const Point sides = {entity % 3, entity / 3 % 3, entity / 9};
        if (std::find(sides.begin(), sides.begin() + dim, 1) == sides.begin() + dim) continue;  // a corner
        bool all = true;
        for (std::size_t a = 0; a < nodes.size() && all; ++a)
          if (on_closure(layout.grid[a], layout.order, sides, dim)) all = in_set[static_cast<std::size_t>(nodes[a])];
        if (!all) continue;
        for (std::size_t a = 0; a < nodes.size(); ++a)
          if (on_closure(layout.grid[a], layout.order, sides, dim)) covered[static_cast<std::size_t>(nodes[a])] = 1;
        for (int k = 0; k <= (dim == 3 ? p : 0); ++k)
          for (int j = 0; j <= p; ++j)
            for (int i = 0; i <= p; ++i)
              if (on_closure({i, j, k}, p, sides, dim)) out.push_back(targets[static_cast<std::size_t>(grid_index({i, j, k}, p))]);
      }
    }
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
  normalise_set(out);
  return out;
}

Mesh elevate_order(const Mesh& mesh, int order, std::string_view source) {
  return OrderElevation(mesh, order, source).take_mesh();
}

}  // namespace tremor
