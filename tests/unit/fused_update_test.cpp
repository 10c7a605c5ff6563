// explicit/update.hpp: the tiled matrix-free kernel steps the nodes whose elements are all in one
// tile (CentralDifference::fuse_update). Run on Serial, where the tiled kernel's atomic adds come in
// one order, so that a fused run and an unfused one can be compared bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "fused_update_runs.hpp"
#include "sparse_test_models.hpp"
#include "tremor/explicit/central_difference.hpp"
#include "tremor/explicit/matrix_free.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/sections.hpp"

namespace tremor {
namespace {

using explicit_fe::CentralDifference;
using explicit_fe::MatrixFreeOperator;
using test::run_scheme;

template <class Real>
MatrixFreeOperator<Real> tiled(const Model& model, int tile) {
  return MatrixFreeOperator<Real>(
      Exec::serial(),
      std::make_shared<const fem::DeviceElements>(Exec::serial(), model.mesh, fem::section_table(model),
                                                  fem::ElementColouring{}),
      false, tile);
}

// A fused run is the same bits as an unfused one (a stepped node's K u is its tile's sum either
// way, and Eq. 4 one formula), damped, with coefficients per node or per DOF, and loads on DOFs the
// update keeps. Tiles of 16 elements in 2D and 64 in 3D: several tiles, and nodes on their borders
// that the update steps.
TEST(FusedUpdate, SameBitsAsTheUpdatePass) {
  for (const ElementType type : {ElementType::Tri3, ElementType::Quad4, ElementType::Tet4, ElementType::Hex8}) {
    SCOPED_TRACE(element_name(type, 1));
    const Model model = test::two_section_model(type, 1, dimension(type) == 2 ? 12 : 4, 0.15);
    const int dim = model.mesh.dim();
    const Index n_nodes = model.mesh.n_nodes();
    const int tile = dim == 2 ? 16 : 64;
    for (const bool per_dof : {false, true}) {
      Index none = 0, stepped = 0;
      const auto op = tiled<float>(model, tile);
      const std::vector<float> unfused = run_scheme(op, dim, false, per_dof, none);
      const std::vector<float> fused = run_scheme(op, dim, true, per_dof, stepped);
      EXPECT_TRUE(test::same_bits(fused, unfused)) << (per_dof ? "per DOF" : "per node");
      // Some nodes in the kernel, not all (tile borders, the kept ones).
      EXPECT_GT(stepped, 0);
      EXPECT_LT(stepped, n_nodes - 2);
      const auto op_double = tiled<double>(model, tile);
      EXPECT_TRUE(test::same_bits(run_scheme(op_double, dim, true, per_dof, stepped), run_scheme(op_double, dim, false, per_dof, none)));
    }
    // 2D tiles of 256 elements hold most nodes whole (a 12 x 12 grid of 288 triangles: two tiles).
    if (dim == 2) {
      Index stepped = 0;
      run_scheme(tiled<float>(model, 256), dim, true, false, stepped);
      EXPECT_GT(stepped, n_nodes / 2);
    }
  }
}

// Which nodes are complete: a node in one tile only. Counted against the tiles' own node lists; an
// operator without node-stepping tiles (the reference, the host's coloured tiles) has none, and its
// scheme steps every DOF in the update.
TEST(FusedUpdate, CompleteNodesAreThoseOfOneTile) {
  const Model model = test::two_section_model(ElementType::Quad4, 1, 9, 0.1);
  const Index n_nodes = model.mesh.n_nodes();
  const fem::DeviceElements elements(Exec::serial(), model.mesh, fem::section_table(model), fem::ElementColouring{});
  const fem::ElementTiles<float> tiles(elements, [](ElementType, int) { return true; }, 8);
  std::vector<int> places(static_cast<std::size_t>(n_nodes), 0);
  const fem::TileBlock<float>& b = tiles.blocks[0];
  const std::vector<Index> offsets = b.node_offsets.to_host(), nodes = b.nodes.to_host();
  for (Index at = 0; at < offsets.back(); ++at) ++places[static_cast<std::size_t>(nodes[static_cast<std::size_t>(at)])];
  const auto op = tiled<float>(model, 8);
  DeviceArray<std::uint8_t> complete(Exec::serial(), n_nodes);
  const Index count = op.complete_nodes(complete.data());
  const std::vector<std::uint8_t> host = complete.to_host();
  Index expected = 0;
  for (Index i = 0; i < n_nodes; ++i) {
    const bool one = places[static_cast<std::size_t>(i)] == 1;
    expected += one ? 1 : 0;
    EXPECT_EQ(host[static_cast<std::size_t>(i)], one ? 1 : 0) << "node " << i;
  }
  EXPECT_EQ(count, expected);
  EXPECT_GT(count, 0);
  EXPECT_LT(count, n_nodes);

  const MatrixFreeOperator<float> reference(Exec::serial(), model);
  EXPECT_EQ(reference.complete_nodes(complete.data()), 0);
  const auto coloured = std::make_shared<const fem::DeviceElements>(Exec::serial(), model.mesh, fem::section_table(model),
                                                                    fem::colour_elements(model.mesh));
  const MatrixFreeOperator<float> host_tiles(Exec::serial(), coloured, true, 8);
  EXPECT_EQ(host_tiles.complete_nodes(complete.data()), 0);
  std::vector<double> mass(static_cast<std::size_t>(n_nodes * 2), 1.0);
  CentralDifference<float> scheme(Exec::serial(), host_tiles, mass, {}, 1e-7, {}, 2);
  EXPECT_EQ(scheme.fuse_update({}, n_nodes), 0);
  EXPECT_EQ(scheme.fused_nodes(), 0);
}

}  // namespace
}  // namespace tremor
