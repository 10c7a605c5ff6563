#include "tremor/mesh/defect.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/text_rows.hpp"
#include "tremor/mesh/elevate.hpp"

namespace tremor {

namespace {

// splitmix64's finaliser: a fixed, well-mixed hash of 64 bits.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A number in [0, 1) from the seed and two integers: the same on every machine.
double unit(std::uint64_t seed, std::int64_t a, std::int64_t b) {
  const std::uint64_t h = mix(mix(mix(seed) ^ static_cast<std::uint64_t>(a)) ^ static_cast<std::uint64_t>(b));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

// A coordinate rounded to 1 nm: the key of a corner's random depth.
std::int64_t nanometres(double x) { return std::llround(x * 1e9); }

}  // namespace

double DepthGrid::at(double x, double y) const {
  if (nx < 1 || ny < 1) return 0.0;
  const double u = (x - origin[0]) / spacing[0], v = (y - origin[1]) / spacing[1];
  const double last_u = static_cast<double>(nx - 1), last_v = static_cast<double>(ny - 1);
  // Outside the grid (to rounding: a corner on its edge is in it).
  if (u < -1e-9 || v < -1e-9 || u > last_u + 1e-9 || v > last_v + 1e-9) return 0.0;
  const double cu = std::clamp(u, 0.0, last_u), cv = std::clamp(v, 0.0, last_v);
  const Index i = std::min<Index>(static_cast<Index>(cu), std::max<Index>(nx - 2, 0));
  const Index j = std::min<Index>(static_cast<Index>(cv), std::max<Index>(ny - 2, 0));
  const double s = nx > 1 ? cu - static_cast<double>(i) : 0.0, t = ny > 1 ? cv - static_cast<double>(j) : 0.0;
  const auto value = [&](Index a, Index b) {
    return depth[static_cast<std::size_t>(std::min(b, ny - 1) * nx + std::min(a, nx - 1))];
  };
  return (1 - s) * (1 - t) * value(i, j) + s * (1 - t) * value(i + 1, j) + (1 - s) * t * value(i, j + 1) +
         s * t * value(i + 1, j + 1);
}

DepthGrid parse_depth_grid(std::string_view text, const std::string& file, std::array<double, 2> origin,
                           std::array<double, 2> spacing) {
  DepthGrid grid;
  grid.origin = origin;
  grid.spacing = spacing;
  for (const TextRow& row : text_rows(text)) {
    if (grid.ny == 0) grid.nx = static_cast<Index>(row.fields.size());
    if (static_cast<Index>(row.fields.size()) != grid.nx)
      throw_input_error(file, row.line, str("a row of ", row.fields.size(), " depths; the first row has ", grid.nx,
                                            " (every row of the grid is as long)"));
    for (std::size_t i = 0; i < row.fields.size(); ++i) {
      double depth = 0.0;
      if (!finite_number(row.fields[i], depth) || depth < 0.0)
        throw_input_error(file, row.line, str("depth ", i + 1, " '", row.fields[i],
                                              "' is not a finite number of at least 0 (m)"));
      grid.depth.push_back(depth);
    }
    ++grid.ny;
  }
  if (grid.ny == 0) throw_input_error(file, 0, "no row of depths; expected lines of depths in m, x along each line");
  return grid;
}

std::vector<std::array<double, 2>> Defect::outline() const {
  std::vector<std::array<double, 2>> points;
  if (map) return points;
  for (int k = 0; k < outline_points; ++k) {
    const double angle = 2.0 * std::numbers::pi * k / outline_points;
    const double radius = inner_radius + (outer_radius - inner_radius) * unit(seed, k, -1);
    points.push_back({centre[0] + radius * std::cos(angle), centre[1] + radius * std::sin(angle)});
  }
  return points;
}

bool Defect::inside(double x, double y) const {
  if (map) return map->at(x, y) > 0.0;
  // Crossings of a ray towards +x with the outline's edges (the polygon is star-shaped about the
  // centre, and simple).
  const std::vector<std::array<double, 2>> points = outline();
  bool in = false;
  for (std::size_t a = 0, b = points.size() - 1; a < points.size(); b = a++) {
    const auto& p = points[a];
    const auto& q = points[b];
    if ((p[1] > y) != (q[1] > y) && x < p[0] + (y - p[1]) * (q[0] - p[0]) / (q[1] - p[1])) in = !in;
  }
  return in;
}

double Defect::corner_depth(double x, double y) const {
  if (map) return map->at(x, y);
  if (!inside(x, y)) return 0.0;
  return max_depth * (1.0 - unit(seed, nanometres(x), nanometres(y)));  // in (0, max_depth]
}

double Defect::deepest() const {
  if (!map) return max_depth;
  return map->depth.empty() ? 0.0 : *std::max_element(map->depth.begin(), map->depth.end());
}

void defects_at(const Mesh& mesh, std::span<const Defect> defects, std::span<const std::array<double, 3>> points,
                std::vector<unsigned char>& footprint, std::vector<double>& depth) {
  double lower[3], upper[3];
  mesh.bounding_box(lower, upper);
  double mean = 0.0;
  for (const auto& p : points) mean += p[2] / static_cast<double>(points.size());
  const bool top = mean > 0.5 * (lower[2] + upper[2]);
  footprint.clear();
  depth.clear();
  for (const auto& p : points) {
    bool inside = false;
    for (const Defect& d : defects) inside = inside || d.inside(p[0], p[1]);
    footprint.push_back(inside ? 1 : 0);
    depth.push_back(std::max(0.0, top ? upper[2] - p[2] : p[2] - lower[2]));
  }
}

std::vector<DefectEffect> apply_defects(Mesh& mesh, std::span<const Defect> defects, std::string_view source) {
  std::vector<DefectEffect> effects(defects.size());
  if (defects.empty()) return effects;
  const auto named = [&](const Defect& d) {
    return str(d.origin.empty() ? std::string(source) : d.origin, ": defect '", d.name, "'");
  };
  TREMOR_CHECK(mesh.dim() == 3, named(defects.front()), ": thickness-loss defects take a 3D plate; the mesh is 2D");
  const Index n_nodes = mesh.n_nodes();
  double z0 = std::numeric_limits<double>::infinity(), z1 = -z0;
  for (Index n = 0; n < n_nodes; ++n) {
    z0 = std::min(z0, mesh.node(n)[2]);
    z1 = std::max(z1, mesh.node(n)[2]);
  }
  const double thickness = z1 - z0;
  std::vector<OrderElevation::Layout> layouts;
  for (int b = 0; b < mesh.n_blocks(); ++b) {
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(b)];
    if (block.n_elements() == 0) {
      layouts.emplace_back();
      continue;
    }
    TREMOR_CHECK(block.type == ElementType::Hex8 || block.type == ElementType::Hex20 || block.type == ElementType::HexGLL,
                 named(defects.front()), ": thickness-loss defects take meshes of hexahedra (hex8, hex20, hex-gllP); "
                 "block ", b + 1, " holds ", element_name(block.type, block.order), " elements");
    layouts.push_back(OrderElevation::layout(mesh, b, source));
  }
  for (const Defect& d : defects)
    TREMOR_CHECK(d.deepest() < 0.9 * thickness, named(d), ": ", d.deepest() * 1e3, " mm deep in a plate of ",
                 thickness * 1e3, " mm: a defect may take at most 90% of the thickness");

  // The corners' displacement in z, each defect's in turn on the corners as they were.
  std::vector<double> original(static_cast<std::size_t>(n_nodes));
  for (Index n = 0; n < n_nodes; ++n) original[static_cast<std::size_t>(n)] = mesh.node(n)[2];
  std::vector<double> dz(static_cast<std::size_t>(n_nodes), 0.0);
  std::vector<char> corner(static_cast<std::size_t>(n_nodes), 0);
  for (std::size_t b = 0; b < mesh.blocks.size(); ++b) {
    const ElementBlock& block = mesh.blocks[b];
    for (Index e = 0; e < block.n_elements(); ++e)
      for (const int local : layouts[b].corner) corner[static_cast<std::size_t>(block.nodes(e)[static_cast<std::size_t>(local)])] = 1;
  }
  for (std::size_t k = 0; k < defects.size(); ++k) {
    const Defect& d = defects[k];
    for (Index n = 0; n < n_nodes; ++n) {
      const auto i = static_cast<std::size_t>(n);
      if (!corner[i]) continue;
      const double depth = d.corner_depth(mesh.node(n)[0], mesh.node(n)[1]);
      if (depth <= 0.0) continue;
      const double z = original[i];
      dz[i] += d.side == Defect::Side::Top ? -depth * (z - z0) / thickness : depth * (z1 - z) / thickness;
      // A corner on the surface the defect takes: counted.
      if (std::abs(z - (d.side == Defect::Side::Top ? z1 : z0)) <= 1e-9 * thickness) {
        ++effects[k].corners;
        effects[k].deepest = std::max(effects[k].deepest, depth);
      }
    }
    TREMOR_CHECK(effects[k].corners > 0, named(d), ": its footprint holds no element corner of the plate's ",
                 d.side == Defect::Side::Top ? "top" : "bottom",
                 " surface, so it would change nothing; widen it or refine the mesh there");
  }

  // Every other node by its element's corners (the first element holding it: conforming elements
  // agree, as the interpolation on a shared face or edge takes that face's or edge's corners only).
  std::vector<char> moved(corner);
  for (std::size_t b = 0; b < mesh.blocks.size(); ++b) {
    const ElementBlock& block = mesh.blocks[b];
    const OrderElevation::Layout& layout = layouts[b];
    if (block.n_elements() == 0 || block.type == ElementType::Hex8) continue;
    const std::vector<double> at = OrderElevation::grid_positions(block.type, layout.order);
    for (Index e = 0; e < block.n_elements(); ++e) {
      const auto nodes = block.nodes(e);
      double corner_dz[8];
      bool any = false;
      for (int bits = 0; bits < 8; ++bits) {
        corner_dz[bits] = dz[static_cast<std::size_t>(nodes[static_cast<std::size_t>(layout.corner[static_cast<std::size_t>(bits)])])];
        any = any || corner_dz[bits] != 0.0;
      }
      if (!any) continue;
      for (std::size_t a = 0; a < nodes.size(); ++a) {
        const auto n = static_cast<std::size_t>(nodes[a]);
        if (moved[n]) continue;
        moved[n] = 1;
        const double s[3] = {at[static_cast<std::size_t>(layout.grid[a][0])], at[static_cast<std::size_t>(layout.grid[a][1])],
                             at[static_cast<std::size_t>(layout.grid[a][2])]};
        double value = 0.0;
        for (int bits = 0; bits < 8; ++bits)
          value += corner_dz[bits] * ((bits & 1) ? s[0] : 1 - s[0]) * ((bits & 2) ? s[1] : 1 - s[1]) *
                   ((bits & 4) ? s[2] : 1 - s[2]);
        dz[n] = value;
      }
    }
  }
  for (Index n = 0; n < n_nodes; ++n)
    mesh.coordinates[static_cast<std::size_t>(n) * 3 + 2] = original[static_cast<std::size_t>(n)] + dz[static_cast<std::size_t>(n)];

  // The elements the defects changed: no corner folded, no vertical edge below 10% of its length.
  const auto position = [&](Index n, bool before) {
    const auto x = mesh.node(n);
    return std::array<double, 3>{x[0], x[1], before ? original[static_cast<std::size_t>(n)] : x[2]};
  };
  for (std::size_t b = 0; b < mesh.blocks.size(); ++b) {
    const ElementBlock& block = mesh.blocks[b];
    const OrderElevation::Layout& layout = layouts[b];
    for (Index e = 0; e < block.n_elements(); ++e) {
      const auto nodes = block.nodes(e);
      Index at_corner[8];
      bool changed = false;
      for (int bits = 0; bits < 8; ++bits) {
        at_corner[bits] = nodes[static_cast<std::size_t>(layout.corner[static_cast<std::size_t>(bits)])];
        changed = changed || dz[static_cast<std::size_t>(at_corner[bits])] != 0.0;
      }
      if (!changed) continue;
      const auto element = [&] {
        return str(source, ": element ", block.labels[static_cast<std::size_t>(e)], " (block ", b + 1, ")");
      };
      const std::string by = defects.size() == 1 ? str("the defect '", defects.front().name, "'") : "the defects";
      for (int bits = 0; bits < 4; ++bits) {
        const double before = position(at_corner[bits | 4], true)[2] - position(at_corner[bits], true)[2];
        const double after = position(at_corner[bits | 4], false)[2] - position(at_corner[bits], false)[2];
        TREMOR_CHECK(std::abs(after) >= 0.1 * std::abs(before), element(), " is left too thin by ", by, ": an edge of ",
                     std::abs(before) * 1e3, " mm through the thickness becomes ", std::abs(after) * 1e3,
                     " mm (below 10%); take a smaller depth or a thicker plate");
      }
      // det J at each corner from its three edges along the reference axes (x bit 0, y bit 1, z bit 2).
      for (int bits = 0; bits < 8; ++bits) {
        const auto p = position(at_corner[bits], false);
        std::array<double, 3> edge[3];
        for (int axis = 0; axis < 3; ++axis) {
          const auto q = position(at_corner[bits ^ (1 << axis)], false);
          const double sign = (bits & (1 << axis)) ? -1.0 : 1.0;
          for (int c = 0; c < 3; ++c) edge[axis][static_cast<std::size_t>(c)] = sign * (q[static_cast<std::size_t>(c)] - p[static_cast<std::size_t>(c)]);
        }
        const double det = edge[0][0] * (edge[1][1] * edge[2][2] - edge[1][2] * edge[2][1]) -
                           edge[0][1] * (edge[1][0] * edge[2][2] - edge[1][2] * edge[2][0]) +
                           edge[0][2] * (edge[1][0] * edge[2][1] - edge[1][1] * edge[2][0]);
        TREMOR_CHECK(det > 0.0, element(), " is inverted by ", by, " at its corner node ",
                     mesh.node_labels[static_cast<std::size_t>(at_corner[bits])], "; take a smaller depth or a finer mesh");
      }
    }
  }
  return effects;
}

}  // namespace tremor
