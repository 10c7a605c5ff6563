// explicit/matrix_free: the tiled kernel (the linear elements in tiles, the others with atomic
// adds or colour by colour) against the deterministic reference (colour by colour in double), on
// every element family, on the host backends (tiles colour by colour: the same bits on any thread
// count); and the tiles it builds (fem/element_tiles.hpp), with their colours.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "sparse_test_models.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/matrix_free.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/model/renumber.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::MatrixFreeOperator;
using test::max_abs;
using test::max_difference;
using test::same_bits;

template <class Real>
std::vector<Real> apply_operator(const op::Operator<Real>& op, const std::vector<double>& u) {
  std::vector<Real> in(u.begin(), u.end()), out(u.size(), Real(-7));  // poisoned: every entry must be written
  op.apply_unchecked(in.data(), out.data());
  return out;
}

// The tiled operator on exec, with `tile` elements per tile (the elements without a colouring).
template <class Real>
std::unique_ptr<MatrixFreeOperator<Real>> tiled(const Model& model, const Exec& exec, int tile) {
  return std::make_unique<MatrixFreeOperator<Real>>(
      exec, std::make_shared<const fem::DeviceElements>(exec, model.mesh, fem::section_table(model), fem::ElementColouring{}),
      false, tile);
}

bool is_linear(ElementType type) {
  return type == ElementType::Tri3 || type == ElementType::Quad4 || type == ElementType::Tet4 || type == ElementType::Hex8;
}

class MatrixFreeFamilies : public ::testing::TestWithParam<test::ModelCase> {};

// Curved two-section meshes (isotropic plane strain and anisotropic plane stress in 2D, of two
// thicknesses). Tiles of 8 elements: many tiles, elements shared between them, a short last tile.
TEST_P(MatrixFreeFamilies, TiledAgreesWithTheReference) {
  const auto& c = GetParam();
  const Model model = test::two_section_model(c.type, c.order, test::cells_for(c.type), 0.15);
  const auto u = test::test_vector(model.mesh.n_nodes() * model.mesh.dim(), 5);
  const auto reference = explicit_fe::make_stiffness_operator<double>(model, "matrix_free", Exec::serial());
  const auto expected = apply_operator(*reference, u);
  const double scale = max_abs(expected);
  ASSERT_GT(scale, 0.0);

  const auto op = tiled<double>(model, Exec::serial(), 8);
  // Not deterministic: the GPU's kernel body (forall_blocks, atomic adds), run here on the host.
  EXPECT_FALSE(op->deterministic());
  EXPECT_FALSE(op->reference());
  EXPECT_EQ(op->n_dofs(), reference->n_dofs());
  const auto ku = apply_operator(*op, u);
  // Double: the same K_e u_e (edge differences or every shape function) summed in another order:
  // rounding, ~1e-15 of max |K u| per term; 1e-12 as AssembledAndElementAgree.
  EXPECT_LE(max_difference(ku, expected), 1e-12 * scale);
  // On the host the tiles' sums run in order: the same bits again.
  EXPECT_TRUE(same_bits(ku, apply_operator(*op, u)));
  // Tiles of 7: a tile's shared arrays padded to 16 bytes.
  EXPECT_LE(max_difference(apply_operator(*tiled<double>(model, Exec::serial(), 7), u), expected), 1e-12 * scale);
  // u and K u one entry into larger vectors (2D pairs off their alignment: read one at a time).
  {
    std::vector<double> in(u.size() + 1, 0.0), out(u.size() + 1, -7.0);
    std::copy(u.begin(), u.end(), in.begin() + 1);
    op->apply_unchecked(in.data() + 1, out.data() + 1);
    EXPECT_EQ(out[0], -7.0);
    EXPECT_TRUE(same_bits(std::vector<double>(out.begin() + 1, out.end()), ku));
  }
  if (is_linear(c.type)) {
    EXPECT_NE(op->details().find("tiles of 8 elements"), std::string::npos) << op->details();
    EXPECT_GT(op->flops(), 0.0);
  }

  // Float: K_e u_e computed in float (u, the law and the geometry's differences rounded to float,
  // 6e-8 relative) over a few dozen terms per element and up to 8 elements per node; 1e-5 of
  // max |K u| as the float operators of operator_test.cpp.
  const auto ku_f = apply_operator(*tiled<float>(model, Exec::serial(), 8), u);
  EXPECT_LE(max_difference(ku_f, expected), 1e-5 * scale);

  // OpenMP: tiles in parallel, a node shared by two tiles summed in either order: rounding.
  const int threads = omp_get_max_threads();
  omp_set_num_threads(4);  // several threads even on a small machine
  const auto parallel = apply_operator(*tiled<double>(model, Exec::openmp(), 8), u);
  omp_set_num_threads(threads);
  EXPECT_LE(max_difference(parallel, ku), 1e-14 * scale);
}

// The operator a host run builds (the elements with colour lists, deterministic): tiles colour by
// colour for the linear types and the reference's kernel colour by colour for the others; equal
// to the reference to rounding in both precisions, and the same bits with 1, 2 and 4 threads.
TEST_P(MatrixFreeFamilies, HostRunIsDeterministicOnAnyThreadCount) {
  const auto& c = GetParam();
  const Model model = test::two_section_model(c.type, c.order, test::cells_for(c.type), 0.15);
  const auto u = test::test_vector(model.mesh.n_nodes() * model.mesh.dim(), 6);
  const auto expected = apply_operator(*explicit_fe::make_stiffness_operator<double>(model, "matrix_free"), u);
  const double scale = max_abs(expected);
  const fem::SectionTable table = fem::section_table(model);
  const fem::ElementColouring colouring = fem::colour_elements(model.mesh);
  const auto elements = std::make_shared<const fem::DeviceElements>(Exec::openmp(), model.mesh, table, colouring);
  auto run = [&](auto precision, int tile) {
    using Real = decltype(precision);
    std::vector<std::vector<Real>> results;
    const int threads = omp_get_max_threads();
    for (const int n : {1, 2, 4}) {
      omp_set_num_threads(n);
      const MatrixFreeOperator<Real> op(Exec::openmp(), elements, true, tile);
      EXPECT_TRUE(op.deterministic());
      EXPECT_FALSE(op.reference());
      results.push_back(apply_operator(op, u));
    }
    omp_set_num_threads(threads);
    EXPECT_TRUE(same_bits(results[0], results[1]));
    EXPECT_TRUE(same_bits(results[0], results[2]));
    return results[0];
  };
  // The registry's matrix_free for a host run is this operator.
  const auto from_registry =
      explicit_fe::make_stiffness_operator<double>(model, "matrix_free", elements, sparse::RaceStrategy::Colouring);
  EXPECT_TRUE(same_bits(apply_operator(*from_registry, u), run(double(), 0)));
  // As in TiledAgreesWithTheReference: rounding, in double and in float. Tiles of 8: many tiles
  // and colours, and batches shorter than a SIMD register's 8 or 16 elements.
  EXPECT_LE(max_difference(run(double(), 0), expected), 1e-12 * scale);
  EXPECT_LE(max_difference(run(double(), 8), expected), 1e-12 * scale);
  EXPECT_LE(max_difference(run(float(), 0), expected), 1e-5 * scale);
  EXPECT_LE(max_difference(run(float(), 8), expected), 1e-5 * scale);
}

INSTANTIATE_TEST_SUITE_P(Families, MatrixFreeFamilies, ::testing::ValuesIn(test::operator_cases()),
                         [](const auto& param_info) { return param_info.param.label; });

// The absorbing layers' stiffness factor scales each element's forces in the tiles as in the
// reference (and it does change K u).
TEST(MatrixFreeTiles, AbsorbingLayersScaleTheElementForces) {
  for (const ElementType type : {ElementType::Quad4, ElementType::Hex8}) {
    SCOPED_TRACE(element_name(type, 1));
    Model model = test::two_section_model(type, 1, 6, 0.15);
    AbsorbingLayer layer;
    layer.kind = AbsorbingKind::Srm;
    layer.faces = {BoxFace::XMax, BoxFace::YMin};
    layer.thickness = 0.3;
    layer.frequency = 1e4;
    layer.alpha_max = 6.0 * 3.14159 * 1e4;  // s ~ 0.3 at the outer edge
    model.absorbing.push_back(layer);
    const auto u = test::test_vector(model.mesh.n_nodes() * model.mesh.dim(), 3);
    const auto expected = apply_operator(*explicit_fe::make_stiffness_operator<double>(model, "assembled"), u);
    const double scale = max_abs(expected);
    // As in TiledAgreesWithTheReference.
    EXPECT_LE(max_difference(apply_operator(*tiled<double>(model, Exec::serial(), 16), u), expected), 1e-12 * scale);
    // A host run's operator (the tiles colour by colour, in SIMD batches) scales them alike.
    const auto coloured = std::make_shared<const fem::DeviceElements>(Exec::openmp(), model.mesh, fem::section_table(model),
                                                                      fem::colour_elements(model.mesh));
    EXPECT_LE(max_difference(apply_operator(MatrixFreeOperator<double>(Exec::openmp(), coloured, true, 16), u), expected),
              1e-12 * scale);
    // The factor varies within tiles: section and scale are kept per slot.
    const fem::DeviceElements elements(Exec::serial(), model.mesh, fem::section_table(model), fem::ElementColouring{});
    const fem::ElementTiles<double> tiles(elements, [](ElementType, int) { return true; }, 16);
    EXPECT_TRUE(tiles.blocks[0].per_slot);
    EXPECT_EQ(tiles.blocks[0].section.size(), tiles.blocks[0].n_tiles * 16);
    const Model plain = test::two_section_model(type, 1, 6, 0.15);
    EXPECT_GT(max_difference(apply_operator(*tiled<double>(plain, Exec::serial(), 16), u), expected), 0.05 * scale);
  }
}

// A host's triangle tiles keep each slot's inverse Jacobian and det J (computed in double, kept in
// Real): J of the slot's element times the kept inverse is the identity, and det J is J's, to
// float rounding (1e-6 relative); empty slots hold zeros; they keep no coordinates. Tetrahedra keep
// no geometry but each tile node's coordinates relative to the tile, in Real: any two nodes of a
// tile differ by what the mesh's differ, to float rounding of values below the tile's size.
TEST(MatrixFreeTiles, HostTrianglesKeepTheirInverseJacobians) {
  const Model model = test::two_section_model(ElementType::Tri3, 1, 9, 0.15);
  const fem::DeviceElements elements(Exec::serial(), model.mesh, fem::section_table(model), fem::ElementColouring{});
  const fem::ElementTiles<float> tiles(elements, [](ElementType, int) { return true; }, 16);
  const fem::TileBlock<float>& t = tiles.blocks[0];
  ASSERT_EQ(t.geometry.size(), static_cast<std::size_t>(t.n_tiles) * 5 * 16);
  EXPECT_EQ(t.coordinates.size(), 0);
  const std::vector<Index> nodes = t.nodes.to_host(), offsets = t.node_offsets.to_host();
  const std::vector<std::uint8_t> local = t.local.to_host();
  const std::vector<std::uint16_t> counts = t.counts.to_host();
  for (Index tile = 0; tile < t.n_tiles; ++tile)
    for (int s = 0; s < 16; ++s) {
      const float* g = t.geometry.data() + static_cast<std::size_t>(tile) * 5 * 16 + s;
      if (s >= counts[static_cast<std::size_t>(tile)]) {
        for (int k = 0; k < 5; ++k) EXPECT_EQ(g[k * 16], 0.0f);
        continue;
      }
      double x[3][2];
      for (int a = 0; a < 3; ++a) {
        const Index node = nodes[static_cast<std::size_t>(offsets[static_cast<std::size_t>(tile)]) +
                                 local[static_cast<std::size_t>(tile) * 3 * 16 + a * 16 + s]];
        for (int c = 0; c < 2; ++c) x[a][c] = model.mesh.node(node)[c];
      }
      const double J[2][2] = {{x[1][0] - x[0][0], x[2][0] - x[0][0]}, {x[1][1] - x[0][1], x[2][1] - x[0][1]}};
      const double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
      EXPECT_NEAR(g[4 * 16], det, 1e-6 * std::abs(det));
      for (int d = 0; d < 2; ++d)
        for (int e = 0; e < 2; ++e) {  // (inverse J)[d][e] = sum_i inverse[d][i] J[i][e]
          const double product = g[(d * 2) * 16] * J[0][e] + g[(d * 2 + 1) * 16] * J[1][e];
          EXPECT_NEAR(product, d == e ? 1.0 : 0.0, 1e-6);
        }
    }
  const Model tets = test::two_section_model(ElementType::Tet4, 1, 3, 0.15);
  const fem::DeviceElements tet_elements(Exec::serial(), tets.mesh, fem::section_table(tets), fem::ElementColouring{});
  const fem::ElementTiles<float> tet_tiles(tet_elements, [](ElementType, int) { return true; }, 16);
  const fem::TileBlock<float>& tt = tet_tiles.blocks[0];
  EXPECT_TRUE(tt.geometry.empty());
  const std::vector<float> kept = tt.coordinates.to_host();
  const std::vector<Index> tet_nodes = tt.nodes.to_host(), tet_offsets = tt.node_offsets.to_host();
  ASSERT_EQ(kept.size(), tet_nodes.size() * 3);
  for (Index tile = 0; tile < tt.n_tiles; ++tile) {
    const auto first = static_cast<std::size_t>(tet_offsets[static_cast<std::size_t>(tile)]);
    for (auto k = first; k < static_cast<std::size_t>(tet_offsets[static_cast<std::size_t>(tile) + 1]); ++k)
      for (int c = 0; c < 3; ++c) {
        const double mesh = tets.mesh.node(tet_nodes[k])[c] - tets.mesh.node(tet_nodes[first])[c];
        // Kept values below 1 in magnitude: 6e-8 rounding each.
        EXPECT_NEAR(double(kept[k * 3 + c]) - double(kept[first * 3 + c]), mesh, 1e-6);
      }
  }
}

// Tiles span at most max_tile_span node numbers where the numbering is close in space: a 400 x 400
// triangle grid numbered row by row (401 nodes a row) has a few Morton runs that jump half the
// grid (200 rows, 80K numbers), which are cut. A shuffled numbering keeps its runs (cut by nodes
// alone, not into tiles of a few elements).
TEST(MatrixFreeTiles, TilesSpanFewNodeNumbersWhereTheNumberingAllows) {
  const Model model = test::two_section_model(ElementType::Tri3, 1, 400, 0.0, false);
  const auto spans = [](const Model& m, Index& n_tiles) {
    const fem::DeviceElements elements(Exec::serial(), m.mesh, fem::section_table(m), fem::ElementColouring{});
    const fem::ElementTiles<float> tiles(elements, [](ElementType, int) { return true; });
    const fem::TileBlock<float>& t = tiles.blocks[0];
    n_tiles = t.n_tiles;
    const std::vector<Index> offsets = t.node_offsets.to_host(), nodes = t.nodes.to_host();
    Index widest = 0;
    for (Index k = 0; k < t.n_tiles; ++k) {
      const auto first = static_cast<std::size_t>(offsets[k]), last = static_cast<std::size_t>(offsets[k + 1]) - 1;
      widest = std::max(widest, nodes[last] - nodes[first]);
    }
    return widest;
  };
  Index n_tiles = 0;
  EXPECT_LE(spans(model, n_tiles), fem::max_tile_span);
  const Index n_elements = model.mesh.blocks[0].n_elements();
  EXPECT_LE(n_tiles, n_elements / 256 + n_elements / 256 / 50);  // cut at 256 elements, and 2% more
  // Two corner nodes' numbers swapped: the corners' elements alone span the whole numbering, which
  // no cut narrows, so the runs stay uncut (no more tiles than the cut ones above, rather than the
  // corners' elements each in a tile of its own).
  std::vector<Index> swapped(static_cast<std::size_t>(model.mesh.n_nodes()));
  std::iota(swapped.begin(), swapped.end(), Index(0));
  std::swap(swapped.front(), swapped.back());
  const Index cut_tiles = n_tiles;
  EXPECT_GT(spans(renumber_nodes(model, swapped), n_tiles), fem::max_tile_span);
  EXPECT_LE(n_tiles, cut_tiles);
  std::vector<Index> shuffled(static_cast<std::size_t>(model.mesh.n_nodes()));
  std::iota(shuffled.begin(), shuffled.end(), Index(0));
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(3));
  EXPECT_GT(spans(renumber_nodes(model, shuffled), n_tiles), fem::max_tile_span);
  EXPECT_LE(n_tiles, n_elements / 64);  // about 85 triangles bring 256 nodes
}

// Tiles hold every element once, their node lists ascending, and a tile of a box is a compact
// brick: a 64-element tile of hex8 in Z-order is 4 x 4 x 4 elements, 125 nodes (1.95 per element).
TEST(MatrixFreeTiles, TilesAreCompactAndHoldEveryElementOnce) {
  Model model = test::two_section_model(ElementType::Hex8, 1, 8, 0.0, false);
  for (Index n = 0; n < model.mesh.n_nodes(); ++n) {  // the unit cube: cubic elements
    model.mesh.coordinates[static_cast<std::size_t>(n) * 3 + 1] /= 0.8;
    model.mesh.coordinates[static_cast<std::size_t>(n) * 3 + 2] /= 0.6;
  }
  const fem::DeviceElements elements(Exec::serial(), model.mesh, fem::section_table(model), fem::ElementColouring{});
  const fem::ElementTiles<float> tiles(elements, [](ElementType, int) { return true; }, 64);
  ASSERT_EQ(tiles.blocks.size(), 1u);
  const fem::TileBlock<float>& t = tiles.blocks[0];
  EXPECT_EQ(t.n_tiles, 8);  // 512 elements
  const std::vector<Index> offsets = t.node_offsets.to_host(), nodes = t.nodes.to_host();
  const std::vector<std::uint8_t> local = t.local.to_host();
  const std::vector<std::uint16_t> counts = t.counts.to_host();
  // One section, no absorbing layer: section and scale once per tile.
  EXPECT_FALSE(t.per_slot);
  EXPECT_EQ(t.section.size(), t.n_tiles);
  // Each element's nodes, as the tiles name them, sorted: the mesh's elements, each once.
  std::vector<std::vector<Index>> seen, expected;
  for (Index e = 0; e < model.mesh.blocks[0].n_elements(); ++e) {
    const auto n = model.mesh.blocks[0].nodes(e);
    expected.emplace_back(n.begin(), n.end());
    std::sort(expected.back().begin(), expected.back().end());
  }
  for (Index tile = 0; tile < t.n_tiles; ++tile) {
    EXPECT_TRUE(std::is_sorted(nodes.begin() + offsets[tile], nodes.begin() + offsets[tile + 1]));
    EXPECT_EQ(std::adjacent_find(nodes.begin() + offsets[tile], nodes.begin() + offsets[tile + 1]),
              nodes.begin() + offsets[tile + 1]);
    for (int s = 0; s < 64; ++s) {
      if (s >= counts[tile]) continue;
      std::vector<Index> element;
      for (int a = 0; a < 8; ++a) element.push_back(nodes[offsets[tile] + local[(tile * 8 + a) * 64 + s]]);
      std::sort(element.begin(), element.end());
      seen.push_back(element);
    }
  }
  std::sort(seen.begin(), seen.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(t.max_nodes, 125);
  EXPECT_NEAR(tiles.nodes_per_element(), 125.0 / 64.0, 1e-12);
  // Each tile node's incidences name element nodes that are it, every element node once.
  const std::vector<std::uint16_t> ends = t.incidence_ends.to_host(), incidences = t.incidences.to_host();
  ASSERT_EQ(ends.size(), nodes.size());
  for (Index tile = 0; tile < t.n_tiles; ++tile) {
    const int n = offsets[tile + 1] - offsets[tile];
    const std::uint16_t* end = ends.data() + offsets[tile];
    EXPECT_EQ(end[n - 1], counts[tile] * 8);
    for (int k = 0; k < n; ++k)
      for (int j = k ? end[k - 1] : 0; j < end[k]; ++j) {
        const int entry = incidences[tile * 512 + j], a = entry / 64, s = entry % 64;
        EXPECT_EQ(local[(tile * 8 + a) * 64 + s], k);
      }
  }
  // The cube's elements are parallelepipeds; the curved mesh's are not.
  EXPECT_TRUE(t.affine);
  const Model curved = test::two_section_model(ElementType::Hex8, 1, 3, 0.15);
  const fem::DeviceElements curved_elements(Exec::serial(), curved.mesh, fem::section_table(curved),
                                            fem::ElementColouring{});
  EXPECT_FALSE(fem::ElementTiles<float>(curved_elements, [](ElementType, int) { return true; }, 64).blocks[0].affine);
}

// On a host Exec the tiles are coloured in chunks of consecutive tiles: every chunk in one colour,
// ascending, and no two chunks of a colour share a node (so a colour's chunks add to K u in
// parallel without a race); several colours, since neighbouring chunks share nodes. A block of few
// tiles has chunks of one tile; one of 400 tiles (a 40 x 40 triangle grid in tiles of 8) chunks of
// 6 (host_chunk: a colour then holds chunks for several threads). On a GPU they are not coloured.
TEST(MatrixFreeTiles, ColoursShareNoNode) {
  struct Case {
    ElementType type;
    int cells, chunk;
  };
  for (const Case c : {Case{ElementType::Tri3, 12, 1}, Case{ElementType::Quad4, 12, 1}, Case{ElementType::Tet4, 5, 1},
                       Case{ElementType::Hex8, 5, 1}, Case{ElementType::Tri3, 40, 6}}) {
    SCOPED_TRACE(element_name(c.type, 1) + " " + std::to_string(c.cells));
    const Model model = test::two_section_model(c.type, 1, c.cells, 0.15);
    const fem::DeviceElements elements(Exec::openmp(), model.mesh, fem::section_table(model), fem::ElementColouring{});
    const fem::ElementTiles<float> tiles(elements, [](ElementType, int) { return true; }, 8);
    const fem::TileBlock<float>& t = tiles.blocks[0];
    EXPECT_EQ(t.chunk, c.chunk);
    EXPECT_EQ(t.chunk, fem::host_chunk(t.n_tiles));
    const Index n_chunks = (t.n_tiles + t.chunk - 1) / t.chunk;
    const std::vector<Index> offsets = t.node_offsets.to_host(), nodes = t.nodes.to_host();
    ASSERT_GE(t.colour_offsets.size(), 3u);  // two colours or more
    EXPECT_EQ(t.colour_offsets.front(), 0);
    EXPECT_EQ(t.colour_offsets.back(), n_chunks);
    std::vector<int> seen(static_cast<std::size_t>(n_chunks), 0);
    for (std::size_t colour = 0; colour + 1 < t.colour_offsets.size(); ++colour) {
      EXPECT_LT(t.colour_offsets[colour], t.colour_offsets[colour + 1]);  // no empty colour
      std::vector<Index> holder(static_cast<std::size_t>(model.mesh.n_nodes()), -1);
      for (Index i = t.colour_offsets[colour]; i < t.colour_offsets[colour + 1]; ++i) {
        const Index chunk = t.colour_chunks[static_cast<std::size_t>(i)];
        if (i > t.colour_offsets[colour]) {
          EXPECT_LT(t.colour_chunks[static_cast<std::size_t>(i) - 1], chunk);
        }
        ++seen[static_cast<std::size_t>(chunk)];
        const auto [first_tile, end_tile] = fem::chunk_tiles(chunk, t.chunk, t.n_tiles);
        for (Index tile = first_tile; tile < end_tile; ++tile)
          for (Index k = offsets[tile]; k < offsets[tile + 1]; ++k) {
            Index& h = holder[static_cast<std::size_t>(nodes[k])];
            EXPECT_TRUE(h == -1 || h == chunk)
                << "colour " << colour << ": node " << nodes[k] << " in chunks " << h << " and " << chunk;
            h = chunk;
          }
      }
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  }
  // Through chunks of 6: K u the reference's to rounding (as TiledAgreesWithTheReference), the same
  // bits on 1, 2 and 4 threads.
  const Model model = test::two_section_model(ElementType::Tri3, 1, 40, 0.15);
  const auto u = test::test_vector(model.mesh.n_nodes() * 2, 5);
  const auto expected = apply_operator(*explicit_fe::make_stiffness_operator<double>(model, "matrix_free"), u);
  const auto elements = std::make_shared<const fem::DeviceElements>(
      Exec::openmp(), model.mesh, fem::section_table(model), fem::colour_elements(model.mesh));
  const int threads = omp_get_max_threads();
  std::vector<std::vector<double>> results;
  for (const int n : {1, 2, 4}) {
    omp_set_num_threads(n);
    results.push_back(apply_operator(MatrixFreeOperator<double>(Exec::openmp(), elements, true, 8), u));
  }
  omp_set_num_threads(threads);
  EXPECT_LE(max_difference(results[0], expected), 1e-12 * max_abs(expected));
  EXPECT_TRUE(same_bits(results[0], results[1]));
  EXPECT_TRUE(same_bits(results[0], results[2]));
}

// Tiles index their element nodes in 16 bits: 128 elements of 729 nodes (GLL order 8) are refused
// by name rather than wrapped.
TEST(MatrixFreeTiles, TooManyElementNodesPerTileIsAClearError) {
  const Model model = test::two_section_model(ElementType::HexGLL, 8, 1, 0.0, false);
  const fem::DeviceElements elements(Exec::serial(), model.mesh, fem::section_table(model), fem::ElementColouring{});
  try {
    (void)fem::ElementTiles<float>(elements, [](ElementType, int) { return true; }, 128);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("128 elements of 729 nodes per tile exceed 16-bit indices"),
              std::string::npos)
        << error.what();
  }
  // 729 nodes do not fit a tile's 256 (one-byte indices) at all.
  try {
    (void)fem::ElementTiles<float>(elements, [](ElementType, int) { return true; }, 64);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("an element of 729 nodes exceeds a tile's 256 nodes"), std::string::npos)
        << error.what();
  }
}

// A tile holds at most 256 nodes: 256 hex8 of a cube would hold about 400, so the runs are cut
// by nodes; every element is in one tile, and K u is the reference's.
TEST(MatrixFreeTiles, TilesAreCutAt256Nodes) {
  const Model model = test::two_section_model(ElementType::Hex8, 1, 8, 0.1);
  const fem::DeviceElements elements(Exec::serial(), model.mesh, fem::section_table(model), fem::ElementColouring{});
  const fem::ElementTiles<double> tiles(elements, [](ElementType, int) { return true; }, 256);
  const fem::TileBlock<double>& t = tiles.blocks[0];
  EXPECT_GT(t.n_tiles, 2);  // 512 elements: more than two tiles of 256
  EXPECT_LE(t.max_nodes, 256);
  EXPECT_GT(t.max_nodes, 200);  // the runs are filled up to the limit, not cut short
  const std::vector<std::uint16_t> counts = t.counts.to_host();
  EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), 0), 512);
  EXPECT_TRUE(t.per_slot);  // two sections
  const auto u = test::test_vector(model.mesh.n_nodes() * 3, 4);
  const auto expected = apply_operator(*explicit_fe::make_stiffness_operator<double>(model, "matrix_free"), u);
  // As in TiledAgreesWithTheReference.
  EXPECT_LE(max_difference(apply_operator(*tiled<double>(model, Exec::serial(), 256), u), expected),
            1e-12 * max_abs(expected));
}

// With every block tiled, the operator keeps its tiles only (with their coordinates): fewer bytes than
// the reference's connectivity, colour lists and factors in double.
TEST(MatrixFreeTiles, TiledHoldsLessThanTheReference) {
  const Model model = test::two_section_model(ElementType::Tet4, 1, 4, 0.1);
  const auto reference = explicit_fe::make_stiffness_operator<float>(model, "matrix_free", Exec::serial());
  const auto op = tiled<float>(model, Exec::serial(), 0);
  EXPECT_LT(op->bytes(), reference->bytes());
  EXPECT_EQ(reference->flops(), 0.0);  // not counted
  EXPECT_NE(op->details().find("tiles of 128 elements"), std::string::npos) << op->details();
}

}  // namespace
}  // namespace tremor
