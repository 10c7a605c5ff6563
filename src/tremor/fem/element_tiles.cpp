#include "tremor/fem/element_tiles.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/linear_evaluation.hpp"

namespace tremor::fem {

namespace {

// The bits of v (21 used) spread to every third (3D) or second (2D) position.
std::uint64_t spread(std::uint64_t v, int dim) {
  std::uint64_t out = 0;
  for (int b = 0; b < 21; ++b) out |= ((v >> b) & 1u) << (b * dim);
  return out;
}

// Each element's Morton code: its centroid on a grid of 2^21 cubes along the longest side of the
// bounding box (cubes, so that a thin plate's elements are grouped in compact bricks).
std::vector<std::uint64_t> morton_codes(const std::vector<double>& coordinates, const std::vector<Index>& connectivity,
                                        int n_element_nodes, int dim) {
  const std::size_t n = connectivity.size() / static_cast<std::size_t>(n_element_nodes);
  std::vector<double> centroids(n * static_cast<std::size_t>(dim), 0.0);
  double low[3] = {1e300, 1e300, 1e300}, high[3] = {-1e300, -1e300, -1e300};
#pragma omp parallel for schedule(static) reduction(min : low[:3]) reduction(max : high[:3])
  for (std::size_t e = 0; e < n; ++e)
    for (int c = 0; c < dim; ++c) {
      double sum = 0.0;
      for (int a = 0; a < n_element_nodes; ++a)
        sum += coordinates[static_cast<std::size_t>(connectivity[e * n_element_nodes + a]) * dim + c];
      const double centroid = sum / n_element_nodes;
      centroids[e * dim + c] = centroid;
      low[c] = std::min(low[c], centroid);
      high[c] = std::max(high[c], centroid);
    }
  double side = 0.0;
  for (int c = 0; c < dim; ++c) side = std::max(side, high[c] - low[c]);
  const double cells = double((1u << 21) - 1);
  const double scale = side > 0.0 ? cells / side : 0.0;
  std::vector<std::uint64_t> codes(n);
#pragma omp parallel for schedule(static)
  for (std::size_t e = 0; e < n; ++e) {
    std::uint64_t code = 0;
    for (int c = 0; c < dim; ++c) {
      const auto cell = static_cast<std::uint64_t>(std::clamp((centroids[e * dim + c] - low[c]) * scale, 0.0, cells));
      code |= spread(cell, dim) << c;
    }
    codes[e] = code;
  }
  return codes;
}

// Whether every element of the block is a parallelogram or parallelepiped: each vertex at x0 plus
// the edges from vertex 0 along the directions its corner index has (linear_corner),
// within 1e-12 of the element's size. Simplices always are.
bool all_affine(const std::vector<double>& coordinates, const std::vector<Index>& connectivity, int n_element_nodes,
                int dim, bool simplex) {
  if (simplex) return true;
  if (n_element_nodes != (1 << dim)) return false;
  const std::size_t n = connectivity.size() / static_cast<std::size_t>(n_element_nodes);
  bool affine = true;
#pragma omp parallel for schedule(static) reduction(&& : affine)
  for (std::size_t e = 0; e < n; ++e) {
    if (!affine) continue;  // this thread has found one that is not
    auto x = [&](int L, int c) {
      return coordinates[static_cast<std::size_t>(connectivity[e * n_element_nodes + linear_corner(L)]) * dim + c];
    };
    double size2 = 0.0, off2 = 0.0;
    for (int d = 0; d < dim; ++d)
      for (int c = 0; c < dim; ++c) size2 += (x(1 << d, c) - x(0, c)) * (x(1 << d, c) - x(0, c));
    for (int L = 3; L < (1 << dim); ++L) {
      for (int c = 0; c < dim; ++c) {
        double expected = x(0, c);
        for (int d = 0; d < dim; ++d)
          if ((L >> d) & 1) expected += x(1 << d, c) - x(0, c);
        off2 += (x(L, c) - expected) * (x(L, c) - expected);
      }
    }
    if (off2 > 1e-24 * size2) affine = false;
  }
  return affine;
}

// The tiles in chunks of `chunk` consecutive tiles (in Morton order: a chunk is a compact region),
// coloured so that no two chunks of a colour share a node (greedy, chunk by chunk: each takes the
// first colour none of its neighbours has): colour c's chunks at colour_chunks[colour_offsets[c]
// to colour_offsets[c + 1]), ascending.
void colour_chunks(const std::vector<Index>& offsets, const std::vector<Index>& nodes, std::size_t n_nodes, int chunk,
                   std::vector<Index>& colour_offsets, std::vector<Index>& colour_chunks) {
  const auto n_tiles = static_cast<Index>(offsets.size()) - 1;
  const Index n_chunks = (n_tiles + chunk - 1) / chunk;
  const auto nodes_of = [&](Index k) {  // chunk k's tile nodes (with repeats): [first, last) of nodes
    const auto [first_tile, end_tile] = chunk_tiles(k, chunk, n_tiles);
    return std::pair<Index, Index>{offsets[static_cast<std::size_t>(first_tile)],
                                   offsets[static_cast<std::size_t>(end_tile)]};
  };
  // visit(node, k) once for each node of chunk k, chunk by chunk.
  std::vector<Index> last(n_nodes);
  const auto each_node_once = [&](auto&& visit) {
    std::fill(last.begin(), last.end(), -1);
    for (Index k = 0; k < n_chunks; ++k) {
      const auto [first, end] = nodes_of(k);
      for (Index j = first; j < end; ++j) {
        const auto node = static_cast<std::size_t>(nodes[static_cast<std::size_t>(j)]);
        if (last[node] != k) last[node] = k, visit(node, k);
      }
    }
  };
  // Each node's chunks (ascending: filled chunk by chunk).
  std::vector<Index> starts(n_nodes + 1, 0);
  each_node_once([&](std::size_t node, Index) { ++starts[node + 1]; });
  std::partial_sum(starts.begin(), starts.end(), starts.begin());
  std::vector<Index> chunks_of(static_cast<std::size_t>(starts.back()));
  std::vector<Index> fill(starts.begin(), starts.end() - 1);
  each_node_once([&](std::size_t node, Index k) { chunks_of[static_cast<std::size_t>(fill[node]++)] = k; });
  std::vector<int> colour(static_cast<std::size_t>(n_chunks), -1);
  std::vector<Index> taken;  // taken[c] == k: colour c is a neighbour's of chunk k
  int n_colours = 0;
  for (Index k = 0; k < n_chunks; ++k) {
    const auto [first, end] = nodes_of(k);
    for (Index j = first; j < end; ++j) {
      const auto node = static_cast<std::size_t>(nodes[static_cast<std::size_t>(j)]);
      for (Index i = starts[node]; i < starts[node + 1]; ++i) {
        const Index other = chunks_of[static_cast<std::size_t>(i)];
        if (other >= k) break;  // the later chunks are not coloured yet
        taken[static_cast<std::size_t>(colour[static_cast<std::size_t>(other)])] = k;
      }
    }
    int c = 0;
    while (c < n_colours && taken[static_cast<std::size_t>(c)] == k) ++c;
    if (c == n_colours) {
      ++n_colours;
      taken.push_back(-1);
    }
    colour[static_cast<std::size_t>(k)] = c;
  }
  colour_offsets.assign(static_cast<std::size_t>(n_colours) + 1, 0);
  for (const int c : colour) ++colour_offsets[static_cast<std::size_t>(c) + 1];
  std::partial_sum(colour_offsets.begin(), colour_offsets.end(), colour_offsets.begin());
  colour_chunks.resize(static_cast<std::size_t>(n_chunks));
  fill.assign(colour_offsets.begin(), colour_offsets.end() - 1);
  for (Index k = 0; k < n_chunks; ++k)
    colour_chunks[static_cast<std::size_t>(fill[static_cast<std::size_t>(colour[static_cast<std::size_t>(k)])]++)] = k;
}

// Where each tile starts in the Morton `order` of a block's elements (connectivity, nn nodes each,
// of the mesh's n_nodes), and the element count last. Runs of the Morton order of at most `tile`
// elements and max_tile_nodes nodes: an element that would bring the tile past either starts the
// next. Where the numbering is close in space (at
// most a tenth of these runs span more than max_tile_span node numbers: a Morton run that joins
// distant parts of the mesh; 2.5% of the benchmark's 2M-triangle grid in RCM order) the runs are
// cut at that span too, if that leaves none wider for at most a tenth more tiles (that grid:
// 7,813 -> 7,938), so that a GPU keeps every tile's nodes as 16-bit steps. A numbering without
// such locality keeps its runs (cutting would leave tiles of a few elements) and 32-bit nodes, as
// do 3D meshes whose RCM levels are wider than the span. Host and GPU tiles are the same.
std::vector<Index> cut_runs(const std::vector<Index>& order, const std::vector<Index>& connectivity, int nn,
                            std::size_t n_nodes, int tile) {
  const auto n_elements = static_cast<Index>(order.size());
  const auto cut = [&](bool limit_span, Index& wide) {
    std::vector<Index> starts{0};
    std::vector<Index> seen(n_nodes, -1);  // the last run to hold a node
    int nodes_in_run = 0;
    Index lowest = 0, highest = 0;  // the run's node numbers
    wide = 0;
    for (Index i = 0; i < n_elements; ++i) {
      const auto e = static_cast<std::size_t>(order[static_cast<std::size_t>(i)]);
      const Index* nodes = connectivity.data() + e * nn;
      int fresh = 0;
      const Index low = *std::min_element(nodes, nodes + nn), high = *std::max_element(nodes, nodes + nn);
      for (int a = 0; a < nn; ++a) fresh += seen[static_cast<std::size_t>(nodes[a])] != Index(starts.size()) ? 1 : 0;
      const bool span = std::max(high, highest) - std::min(low, lowest) > max_tile_span;
      if (i > 0 && (i - starts.back() == tile || nodes_in_run + fresh > max_tile_nodes || (limit_span && span))) {
        wide += highest - lowest > max_tile_span ? 1 : 0;
        starts.push_back(i);
        nodes_in_run = 0;
        lowest = low;
        highest = high;
      } else if (i == 0) {
        lowest = low;
        highest = high;
      } else {
        lowest = std::min(low, lowest);
        highest = std::max(high, highest);
      }
      for (int a = 0; a < nn; ++a) {
        Index& mark = seen[static_cast<std::size_t>(nodes[a])];
        if (mark != Index(starts.size())) {
          mark = Index(starts.size());
          ++nodes_in_run;
        }
      }
    }
    if (n_elements > 0) wide += highest - lowest > max_tile_span ? 1 : 0;
    starts.push_back(n_elements);
    return starts;
  };
  Index wide = 0;
  std::vector<Index> starts = cut(false, wide);
  const auto runs = static_cast<Size>(starts.size()) - 1;
  if (wide > 0 && static_cast<Size>(wide) * 10 <= runs) {
    // Kept where it leaves no run too wide (an element alone may span more) for at most a tenth
    // more tiles.
    Index still = 0;
    std::vector<Index> narrow = cut(true, still);
    if (still == 0 && static_cast<Size>(narrow.size()) - 1 <= runs + runs / 10) starts = std::move(narrow);
  }
  return starts;
}

// Per tile and slot of triangles (tile t's elements order[starts[t] ..]): the inverse Jacobian and
// det J, LinearEvaluation's in double, rounded to Real, [tile][k][slot] (TileBlock::geometry);
// empty slots zero.
template <class Real>
std::vector<Real> triangle_geometry(const std::vector<Index>& order, const std::vector<Index>& starts,
                                    const std::vector<Index>& connectivity, const std::vector<double>& coordinates,
                                    int tile) {
  constexpr int values = 5;
  const auto n_tiles = static_cast<Index>(starts.size()) - 1;
  std::vector<Real> out(static_cast<std::size_t>(n_tiles) * values * tile, Real(0));
#pragma omp parallel for schedule(static)
  for (Index t = 0; t < n_tiles; ++t)
    for (Index i = starts[static_cast<std::size_t>(t)]; i < starts[static_cast<std::size_t>(t) + 1]; ++i) {
      const Index* nodes = connectivity.data() + static_cast<std::size_t>(order[static_cast<std::size_t>(i)]) * 3;
      LinearEvaluation<Tri3, double> ev;
      ev.gather_evaluate([&](int a, int c) { return coordinates[static_cast<std::size_t>(nodes[a]) * 2 + c]; },
                         [](int, int) { return 0.0; });
      Real* slot = out.data() + static_cast<std::size_t>(t) * values * tile + (i - starts[static_cast<std::size_t>(t)]);
      for (int k = 0; k < 4; ++k)
        slot[static_cast<std::size_t>(k) * tile] = static_cast<Real>(ev.inverse[k / 2][k % 2]);
      slot[static_cast<std::size_t>(4) * tile] = static_cast<Real>(ev.det);
    }
  return out;
}

// Per tile node (tile t's at [offsets[t], offsets[t + 1]) of nodes) its coordinates less the middle
// of its tile's nodes' bounding box, taken in double and rounded to Real (TileBlock::coordinates).
template <class Real>
std::vector<Real> tile_coordinates(const std::vector<Index>& offsets, const std::vector<Index>& nodes,
                                   const std::vector<double>& coordinates, int dim) {
  std::vector<Real> out(nodes.size() * static_cast<std::size_t>(dim));
  const auto n_tiles = static_cast<Index>(offsets.size()) - 1;
#pragma omp parallel for schedule(static)
  for (Index t = 0; t < n_tiles; ++t) {
    const auto begin = static_cast<std::size_t>(offsets[static_cast<std::size_t>(t)]),
               end = static_cast<std::size_t>(offsets[static_cast<std::size_t>(t) + 1]);
    for (int c = 0; c < dim; ++c) {
      double low = 1e300, high = -1e300;
      for (std::size_t k = begin; k < end; ++k) {
        const double x = coordinates[static_cast<std::size_t>(nodes[k]) * dim + c];
        low = std::min(low, x);
        high = std::max(high, x);
      }
      const double centre = 0.5 * (low + high);
      for (std::size_t k = begin; k < end; ++k)
        out[k * dim + c] = static_cast<Real>(coordinates[static_cast<std::size_t>(nodes[k]) * dim + c] - centre);
    }
  }
  return out;
}

// Section and scale once per tile where every tile is uniform in both: then `section` and `scale`
// (per slot, `tile` slots a tile, counts[t] of them used) keep their first slot's per tile, and it
// returns true; else they stay per slot.
template <class Real>
bool once_per_tile(std::vector<int>& section, std::vector<Real>& scale, const std::vector<std::uint16_t>& counts,
                   int tile) {
  const std::size_t n_tiles = counts.size();
  for (std::size_t t = 0; t < n_tiles; ++t) {
    const std::size_t first = t * static_cast<std::size_t>(tile);
    for (std::size_t i = first + 1; i < first + counts[t]; ++i)
      if (section[i] != section[first] || scale[i] != scale[first]) return false;
  }
  for (std::size_t t = 0; t < n_tiles; ++t) {
    section[t] = section[t * static_cast<std::size_t>(tile)];
    scale[t] = scale[t * static_cast<std::size_t>(tile)];
  }
  section.resize(n_tiles);
  scale.resize(n_tiles);
  return true;
}

// The tiles' node lists (`nodes`, tile t's from offsets[t]) to out: where `steps` (a GPU) and every
// tile's span fits, each tile's first node and 16-bit steps from it; else the nodes themselves.
template <class Real>
void upload_tile_nodes(const Exec& exec, const std::vector<Index>& offsets, const std::vector<Index>& nodes,
                       bool steps, TileBlock<Real>& out) {
  for (Index t = 0; t < out.n_tiles && steps; ++t)
    steps = nodes[static_cast<std::size_t>(offsets[static_cast<std::size_t>(t) + 1]) - 1] -
                nodes[static_cast<std::size_t>(offsets[static_cast<std::size_t>(t)])] <=
            max_tile_span;
  if (!steps) {
    out.nodes = DeviceArray<Index>(exec, std::span<const Index>(nodes));
    return;
  }
  std::vector<Index> first_nodes(static_cast<std::size_t>(out.n_tiles));
  std::vector<std::uint16_t> node_steps(nodes.size());
  for (Index t = 0; t < out.n_tiles; ++t) {
    const auto begin = static_cast<std::size_t>(offsets[static_cast<std::size_t>(t)]);
    first_nodes[static_cast<std::size_t>(t)] = nodes[begin];
    for (auto k = begin; k < static_cast<std::size_t>(offsets[static_cast<std::size_t>(t) + 1]); ++k)
      node_steps[k] = static_cast<std::uint16_t>(nodes[k] - nodes[begin]);
  }
  out.first_nodes = DeviceArray<Index>(exec, std::span<const Index>(first_nodes));
  out.node_steps = DeviceArray<std::uint16_t>(exec, std::span<const std::uint16_t>(node_steps));
}

template <class Real>
TileBlock<Real> make_tiles(const Exec& exec, const DeviceElementBlock& block, const std::vector<double>& coordinates,
                           const std::vector<double>& thickness, int dim, int tile, bool kernel_coordinates) {
  TileBlock<Real> out;
  out.type = block.type;
  out.order = block.order;
  out.n_element_nodes = block.n_element_nodes;
  out.n_elements = block.n_elements;
  out.tile = tile;
  const int nn = block.n_element_nodes;
  // Element nodes (a x tile + slot) and tile nodes are indexed in 16 bits.
  TREMOR_CHECK(nn * tile < 65536, "element tiles: ", tile, " elements of ", nn,
               " nodes per tile exceed 16-bit indices; use fewer elements per tile");
  const std::vector<Index> connectivity = block.connectivity.to_host();
  const std::vector<int> sections = block.section.to_host();
  const std::vector<double> factors = block.stiffness_factor.to_host();
  const std::vector<std::uint64_t> codes = morton_codes(coordinates, connectivity, nn, dim);
  const bool simplex = with_element(block.type, block.order, [](auto element) { return decltype(element)::simplex; });
  out.affine = all_affine(coordinates, connectivity, nn, dim, simplex);
  std::vector<Index> order(static_cast<std::size_t>(block.n_elements));
  std::iota(order.begin(), order.end(), Index(0));
  std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) { return codes[a] < codes[b]; });

  TREMOR_CHECK(nn <= max_tile_nodes, "element tiles: an element of ", nn, " nodes exceeds a tile's ", max_tile_nodes,
               " nodes");
  const std::vector<Index> starts =
      cut_runs(order, connectivity, nn, coordinates.size() / static_cast<std::size_t>(dim), tile);
  out.n_tiles = static_cast<Index>(starts.size()) - 1;
  const auto slots = static_cast<std::size_t>(out.n_tiles) * static_cast<std::size_t>(tile);
  std::vector<Index> offsets(static_cast<std::size_t>(out.n_tiles) + 1, 0);
  std::vector<std::uint8_t> local(slots * static_cast<std::size_t>(nn), 0);
  std::vector<std::uint16_t> incidences(local.size(), 0), tile_counts(static_cast<std::size_t>(out.n_tiles));
  std::vector<int> section(slots, 0);
  std::vector<Real> scale(slots, Real(0));
  // Tile by tile, in parallel (each tile writes its own slots): its sorted node list and its
  // slots; then, with the lists' offsets, its nodes, their incidences and where they end.
  std::vector<std::vector<Index>> lists(static_cast<std::size_t>(out.n_tiles));
#pragma omp parallel for schedule(dynamic, 16)
  for (Index t = 0; t < out.n_tiles; ++t) {
    const Index begin = starts[static_cast<std::size_t>(t)], end = starts[static_cast<std::size_t>(t) + 1];
    tile_counts[static_cast<std::size_t>(t)] = static_cast<std::uint16_t>(end - begin);
    std::vector<Index>& list = lists[static_cast<std::size_t>(t)];
    for (Index i = begin; i < end; ++i)
      for (int a = 0; a < nn; ++a) list.push_back(connectivity[static_cast<std::size_t>(order[i]) * nn + a]);
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    const auto first_slot = static_cast<std::size_t>(t) * tile;
    for (Index i = begin; i < end; ++i) {
      const auto e = static_cast<std::size_t>(order[i]);
      const auto s = static_cast<std::size_t>(i - begin);
      for (int a = 0; a < nn; ++a) {
        const Index node = connectivity[e * nn + a];
        const auto at = std::lower_bound(list.begin(), list.end(), node) - list.begin();
        local[(first_slot * nn) + static_cast<std::size_t>(a) * tile + s] = static_cast<std::uint8_t>(at);
      }
      section[first_slot + s] = sections[e];
      scale[first_slot + s] = static_cast<Real>(factors[e] * thickness[static_cast<std::size_t>(sections[e])]);
    }
  }
  for (Index t = 0; t < out.n_tiles; ++t) {
    const std::size_t size = lists[static_cast<std::size_t>(t)].size();
    offsets[static_cast<std::size_t>(t) + 1] = offsets[static_cast<std::size_t>(t)] + static_cast<Index>(size);
    out.max_nodes = std::max(out.max_nodes, static_cast<int>(size));
  }
  std::vector<Index> nodes(static_cast<std::size_t>(offsets.back()));
  std::vector<std::uint16_t> incidence_ends(nodes.size());
#pragma omp parallel
  {
    std::vector<std::uint16_t> counts;
#pragma omp for schedule(dynamic, 16)
    for (Index t = 0; t < out.n_tiles; ++t) {
      const std::vector<Index>& list = lists[static_cast<std::size_t>(t)];
      const Index begin = starts[static_cast<std::size_t>(t)], end = starts[static_cast<std::size_t>(t) + 1];
      const auto first = static_cast<std::size_t>(offsets[static_cast<std::size_t>(t)]);
      // Each node's element nodes, in order of slot (a counting sort of the tile's local indices).
      const auto base = static_cast<std::size_t>(t) * tile * nn;
      counts.assign(list.size() + 1, 0);
      for (Index i = begin; i < end; ++i)
        for (int a = 0; a < nn; ++a) ++counts[local[base + static_cast<std::size_t>(a) * tile + (i - begin)] + 1u];
      for (std::size_t k = 1; k < counts.size(); ++k) counts[k] = static_cast<std::uint16_t>(counts[k] + counts[k - 1]);
      std::copy(counts.begin() + 1, counts.end(), incidence_ends.begin() + static_cast<std::ptrdiff_t>(first));
      for (Index i = begin; i < end; ++i)
        for (int a = 0; a < nn; ++a) {
          const std::uint8_t k = local[base + static_cast<std::size_t>(a) * tile + (i - begin)];
          incidences[base + counts[k]++] = static_cast<std::uint16_t>(a * tile + (i - begin));
        }
      std::copy(list.begin(), list.end(), nodes.begin() + static_cast<std::ptrdiff_t>(first));
    }
  }
  lists = {};
  out.per_slot = !once_per_tile(section, scale, tile_counts, tile);
  const bool host = exec.backend() != Backend::Cuda;
  if (host) {
    out.chunk = host_chunk(out.n_tiles);
    colour_chunks(offsets, nodes, coordinates.size() / static_cast<std::size_t>(dim), out.chunk, out.colour_offsets,
                  out.colour_chunks);
  }
  // (host_keeps_geometry, triangles only: kept for tetrahedra, the table is 40 B per element in
  // float against the tile coordinates' 6, and the host's tet4 apply at 1.5M DOF on one thread took
  // 52-73 ms a step in float against 45-50 reading the tile coordinates, 69-82 in double against 61-65.)
  if (host && host_keeps_geometry(block.type))
    out.geometry = triangle_geometry<Real>(order, starts, connectivity, coordinates, tile);
  out.local = DeviceArray<std::uint8_t>(exec, std::span<const std::uint8_t>(local));
  out.counts = DeviceArray<std::uint16_t>(exec, std::span<const std::uint16_t>(tile_counts));
  out.node_offsets = DeviceArray<Index>(exec, std::span<const Index>(offsets));
  out.n_tile_nodes = static_cast<Index>(nodes.size());
  upload_tile_nodes(exec, offsets, nodes, !host, out);
  if (kernel_coordinates || (host && !host_keeps_geometry(block.type)))
    out.coordinates =
        DeviceArray<Real>(exec, std::span<const Real>(tile_coordinates<Real>(offsets, nodes, coordinates, dim)));
  out.incidence_ends = DeviceArray<std::uint16_t>(exec, std::span<const std::uint16_t>(incidence_ends));
  out.incidences = DeviceArray<std::uint16_t>(exec, std::span<const std::uint16_t>(incidences));
  out.section = DeviceArray<int>(exec, std::span<const int>(section));
  out.scale = DeviceArray<Real>(exec, std::span<const Real>(scale));
  return out;
}

}  // namespace

int default_tile(ElementType type, bool kernel) { return kernel || type == ElementType::Hex8 ? 128 : 256; }

template <class Real>
ElementTiles<Real>::ElementTiles(const DeviceElements& elements, bool (*takes)(ElementType, int), int tile,
                                 bool kernel_coordinates) {
  TREMOR_CHECK(tile >= 0 && tile <= max_tile, "element tiles: ", tile, " elements per tile; expected 1 to ", max_tile,
               " (0: the default)");
  const Exec& exec = elements.exec;
  const std::vector<double> D_host = elements.D.to_host();
  const std::vector<Real> D_real(D_host.begin(), D_host.end());
  D = DeviceArray<Real>(exec, std::span<const Real>(D_real));
  const std::vector<int> kinds = elements.law.to_host();
  law = DeviceArray<int>(exec, std::span<const int>(kinds));
  bool any = false;
  for (const DeviceElementBlock& block : elements.blocks) any = any || takes(block.type, block.order);
  const std::vector<double> coordinates = any ? elements.coordinates.to_host() : std::vector<double>{};
  const std::vector<double> thickness = elements.thickness.to_host();
  for (const DeviceElementBlock& block : elements.blocks) {
    if (!takes(block.type, block.order) || block.n_elements == 0) {
      TileBlock<Real> empty;
      empty.type = block.type;
      empty.order = block.order;
      empty.n_element_nodes = block.n_element_nodes;
      empty.n_elements = block.n_elements;
      blocks.push_back(std::move(empty));
      continue;
    }
    blocks.push_back(make_tiles<Real>(exec, block, coordinates, thickness, elements.dim,
                                      tile > 0 ? tile : default_tile(block.type, kernel_coordinates),
                                      kernel_coordinates));
  }
}

template <class Real>
std::size_t ElementTiles<Real>::bytes() const {
  std::size_t total =
      static_cast<std::size_t>(D.size()) * sizeof(Real) + static_cast<std::size_t>(law.size()) * sizeof(int);
  for (const TileBlock<Real>& b : blocks)
    total += static_cast<std::size_t>(b.node_offsets.size() + b.nodes.size() + b.first_nodes.size()) *
                 sizeof(Index) +
             static_cast<std::size_t>(b.local.size()) +
             static_cast<std::size_t>(b.counts.size() + b.node_steps.size() + b.incidence_ends.size() +
                                      b.incidences.size()) *
                 sizeof(std::uint16_t) +
             static_cast<std::size_t>(b.section.size()) * sizeof(int) +
             static_cast<std::size_t>(b.scale.size() + b.geometry.size() + b.coordinates.size()) * sizeof(Real);
  return total;
}

template <class Real>
double ElementTiles<Real>::nodes_per_element() const {
  double nodes = 0.0, elements = 0.0;
  for (const TileBlock<Real>& b : blocks)
    if (b.n_tiles > 0) {
      nodes += static_cast<double>(b.n_tile_nodes);
      elements += static_cast<double>(b.n_elements);
    }
  return elements > 0.0 ? nodes / elements : 0.0;
}

template struct ElementTiles<float>;
template struct ElementTiles<double>;

}  // namespace tremor::fem
