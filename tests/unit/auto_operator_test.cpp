// What "auto" chooses (op::Registry::choose_auto over explicit_fe::operators()): on a GPU without
// --deterministic, matrix_free on hex8, quad4 and tri3 meshes, where it was measured faster than
// every assembled kind; the backend's default elsewhere, unless the default's estimated memory does
// not fit the GPU's free memory and matrix_free's does; on the host matrix_free on hex8 meshes,
// block_csr elsewhere. No GPU needed: the choice is a function of the backend, the mesh, the flag
// and the free memory given.
#include <gtest/gtest.h>

#include <cstddef>
#include <limits>
#include <string>

#include "sparse_test_models.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/operator/registry.hpp"
#include "support/support.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

const op::Registry& registry() { return explicit_fe::operators(); }
const op::OperatorEntry& matrix_free() { return *registry().find("matrix_free"); }
const op::OperatorEntry& gpu_default() { return registry().default_for(Backend::Cuda); }

// The pre-flight's estimate of a GPU run in float (elements without colour lists: atomics), K's
// entries and longest row from the node graph.
op::BytesOf gpu_bytes(const Mesh& mesh) {
  const NodeGraph graph = node_graph(mesh);
  Index longest = 0;
  for (Index node = 0; node < mesh.n_nodes(); ++node)
    longest = std::max(longest, static_cast<Index>(graph.offsets[node + 1] - graph.offsets[node]));
  const Size nnz = graph.n_entries() * mesh.dim() * mesh.dim();
  return [&mesh, nnz, longest](const op::OperatorEntry& entry) {
    return explicit_fe::memory_estimate(mesh, entry, nnz, sizeof(float), false, false, longest);
  };
}

constexpr std::size_t plenty = std::size_t(1) << 40;  // 1 TB free: every kind fits these meshes

TEST(AutoOperator, Hex8Quad4AndTri3OnAGpuAreMatrixFree) {
  for (const ElementType type : {ElementType::Hex8, ElementType::Quad4, ElementType::Tri3}) {
    const Model model = test::two_section_model(type, 1, 3, 0.1);
    SCOPED_TRACE(element_name(type));
    // Before the free memory is known (the pre-flight's first call) and with it.
    for (const std::size_t free_bytes : {std::size_t(0), plenty}) {
      const op::AutoChoice choice =
          registry().choose_auto(Backend::Cuda, model.mesh, false, free_bytes, gpu_bytes(model.mesh));
      EXPECT_EQ(choice.entry, &matrix_free());
      EXPECT_TRUE(choice.fits);
      test::expect_contains(choice.reason, {element_name(type) + " elements: matrix_free in tiles measured 2.5x",
                                            "quad4 by analogy", "docs/benchmarks.md"});
    }
  }
}

TEST(AutoOperator, DeterministicKeepsTheGpusDefault) {
  // --deterministic runs matrix_free colour by colour, the slow reference: not what was measured.
  const Model model = test::two_section_model(ElementType::Hex8, 1, 3, 0.1);
  EXPECT_EQ(registry().choose_auto(Backend::Cuda, model.mesh, true).entry, &gpu_default());
  const op::AutoChoice choice = registry().choose_auto(Backend::Cuda, model.mesh, true, plenty, gpu_bytes(model.mesh));
  EXPECT_EQ(choice.entry, &gpu_default());
  EXPECT_EQ(gpu_default().name, "block_ell");
  test::expect_contains(choice.reason, {"block_ell, the default on cuda, needs ", "; the GPU has 1.1 TB free"});
}

TEST(AutoOperator, Tet4AndMixedMeshesKeepTheGpusDefault) {
  // matrix_free in tiles was measured slower than block ELL on tet4 (float and double).
  Model mixed = test::two_section_model(ElementType::Hex8, 1, 2, 0.0);
  ElementBlock tets;
  tets.type = ElementType::Tet4;
  tets.connectivity = {0, 1, 3, 9};
  tets.labels = {100};
  mixed.mesh.blocks.push_back(tets);
  for (const Model& model : {test::two_section_model(ElementType::Tet4, 1, 3, 0.1), mixed}) {
    const op::AutoChoice choice =
        registry().choose_auto(Backend::Cuda, model.mesh, false, plenty, gpu_bytes(model.mesh));
    EXPECT_EQ(choice.entry, &gpu_default());
    EXPECT_TRUE(choice.fits);
  }
}

TEST(AutoOperator, MatrixFreeWhereTheDefaultDoesNotFitTheGpu) {
  const Model model = test::two_section_model(ElementType::Tet4, 1, 4, 0.1);
  const op::BytesOf bytes = gpu_bytes(model.mesh);
  const std::size_t assembled = bytes(gpu_default()), elements = bytes(matrix_free());
  ASSERT_LT(elements, assembled);
  const std::size_t between = (elements + assembled) / 2;
  for (const bool deterministic : {false, true}) {
    const op::AutoChoice choice = registry().choose_auto(Backend::Cuda, model.mesh, deterministic, between, bytes);
    EXPECT_EQ(choice.entry, &matrix_free());
    EXPECT_TRUE(choice.fits);
    test::expect_contains(choice.reason, {"block_ell needs ", ", the GPU has ", " free; matrix_free needs "});
  }
  // One byte short of the default: the fallback; exactly enough: the default.
  EXPECT_EQ(registry().choose_auto(Backend::Cuda, model.mesh, false, assembled - 1, bytes).entry, &matrix_free());
  EXPECT_EQ(registry().choose_auto(Backend::Cuda, model.mesh, false, assembled, bytes).entry, &gpu_default());
  // Quadratic elements are not computed in tiles: no fallback, the default.
  const Model tet10 = test::two_section_model(ElementType::Tet10, 1, 2, 0.0);
  EXPECT_EQ(registry().choose_auto(Backend::Cuda, tet10.mesh, false, 1, gpu_bytes(tet10.mesh)).entry, &gpu_default());
}

TEST(AutoOperator, NeitherFitsKeepsTheDefaultAndSaysSo) {
  const Model model = test::two_section_model(ElementType::Tet4, 1, 4, 0.1);
  const op::BytesOf bytes = gpu_bytes(model.mesh);
  const op::AutoChoice choice = registry().choose_auto(Backend::Cuda, model.mesh, false, bytes(matrix_free()) - 1, bytes);
  EXPECT_EQ(choice.entry, &gpu_default());
  EXPECT_FALSE(choice.fits);
  test::expect_contains(choice.reason, {"block_ell needs ", "; matrix_free needs ", ": neither fits"});
}

// On the host: matrix_free on hex8 meshes (measured faster than block_csr there, with or without
// --deterministic: the host's tiles are coloured either way), block_csr on the others; no fallback
// by memory, whatever memory is given.
TEST(AutoOperator, TheHostTakesTilesOnHex8Only) {
  for (const ElementType type : {ElementType::Hex8, ElementType::Quad4, ElementType::Tet4, ElementType::Tri3}) {
    Model model = test::two_section_model(type, 1, 3, 0.1);
    SCOPED_TRACE(element_name(type));
    const bool tiles = type == ElementType::Hex8;
    for (const Backend backend : {Backend::Serial, Backend::OpenMP}) {
      for (const bool deterministic : {false, true}) {
        const op::AutoChoice choice = registry().choose_auto(backend, model.mesh, deterministic);
        EXPECT_EQ(choice.entry->name, tiles ? "matrix_free" : "block_csr");
        if (tiles)
          test::expect_contains(choice.reason, {"hex8 elements: ", "block_csr's speed on 2 CPU threads"});
        else
          EXPECT_TRUE(choice.reason.empty()) << choice.reason;
        EXPECT_EQ(registry().choose_auto(backend, model.mesh, deterministic, 1, gpu_bytes(model.mesh)).entry,
                  choice.entry);
      }
    }
    // The pre-flight says so (the "operator" line where auto chose by a rule).
    ExplicitSettings settings;
    settings.duration = 1e-3;  // some steps of the stable step, which is all the pre-flight plans
    model.explicit_settings = settings;
    explicit_fe::RunOptions options;
    options.backend = "openmp";
    options.operator_kind = "auto";
    const explicit_fe::Preflight p = explicit_fe::preflight(model, options);
    EXPECT_EQ(p.operator_kind(), tiles ? "matrix_free" : "block_csr");
    EXPECT_TRUE(p.operator_auto);
    EXPECT_EQ(p.operator_why.empty(), !tiles) << p.operator_why;
  }
}

TEST(AutoOperator, TheRulesAreTheEntrysData) {
  // Only matrix_free carries them: a rule for the GPU, one for the host; the fallback by memory on
  // the GPU alone.
  for (const op::OperatorEntry& entry : registry().entries()) {
    SCOPED_TRACE(std::string(entry.name));
    const bool mf = &entry == &matrix_free();
    EXPECT_EQ(entry.auto_prefers.size(), mf ? 2u : 0u);
    EXPECT_EQ(entry.auto_fits.backends, mf ? op::backend_bit(Backend::Cuda) : 0);
  }
  const op::AutoPreference& gpu = matrix_free().auto_prefers[0];
  const op::AutoPreference& host = matrix_free().auto_prefers[1];
  EXPECT_EQ(gpu.backends, op::backend_bit(Backend::Cuda));
  EXPECT_TRUE(gpu.atomics_only);
  EXPECT_EQ(gpu.types,
            op::type_bit(ElementType::Hex8) | op::type_bit(ElementType::Quad4) | op::type_bit(ElementType::Tri3));
  EXPECT_EQ(host.backends, op::backend_bit(Backend::OpenMP) | op::backend_bit(Backend::Serial));
  EXPECT_FALSE(host.atomics_only);
  EXPECT_EQ(host.types, op::type_bit(ElementType::Hex8));
  // A registry whose kind prefers the host too takes it there: the rule is read, not a name.
  op::Registry custom;
  explicit_fe::register_operators(custom);
  sparse::register_operators(custom);
  custom.set_default(Backend::OpenMP, "block_csr");
  op::OperatorEntry everywhere = *custom.find("matrix_free");
  everywhere.name = "everywhere";
  everywhere.auto_prefers = {{op::all_backends, op::type_bit(ElementType::Quad4), false, "a test"}};
  custom.add(everywhere);
  const Model model = test::two_section_model(ElementType::Quad4, 1, 2, 0.0);
  const op::AutoChoice choice = custom.choose_auto(Backend::OpenMP, model.mesh, false);
  EXPECT_EQ(choice.entry->name, "everywhere");
  EXPECT_EQ(choice.reason, "quad4 elements: a test");
}

}  // namespace
}  // namespace tremor
