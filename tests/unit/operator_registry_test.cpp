// The operator registry (operator/registry.hpp) and the checked apply of op::Operator: names are
// parsed once into entries with clear errors, every kind's entry is complete, and apply refuses
// views of the wrong size, memory space or overlapping.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sparse_test_models.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/operator/registry.hpp"
#include "support/support.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using test::error_of;

TEST(OperatorRegistry, EveryKindIsComplete) {
  const op::Registry& registry = explicit_fe::operators();
  ASSERT_FALSE(registry.entries().empty());
  for (const op::OperatorEntry& entry : registry.entries()) {
    SCOPED_TRACE(std::string(entry.name));
    EXPECT_FALSE(entry.summary.empty());
    EXPECT_TRUE(entry.make_float && entry.make_double && entry.loop_bytes && entry.setup_bytes);
    // Only element-by-element kinds (no K) may read colours in every apply.
    if (entry.needs_colouring) {
      EXPECT_FALSE(entry.needs_assembly);
    }
    // The kinds without K are matrix_free (every element type) and sem (GLL hexahedra only).
    if (!entry.needs_assembly) {
      EXPECT_TRUE(entry.name == "matrix_free" || entry.name == "sem");
    }
    // A decomposed run splits the kinds without K by elements and every assembled kind but the
    // block CSR (K itself), the partitioned layout and cuSPARSE's square CSR by rows.
    EXPECT_EQ(entry.splits, entry.name != "block_csr" && entry.name != "partitioned" && entry.name != "cusparse");
    EXPECT_EQ(entry.unsupported != nullptr, entry.name == "sem");
  }
  EXPECT_TRUE(registry.default_for(Backend::Cuda).runs_on(Backend::Cuda));
  EXPECT_EQ(registry.default_for(Backend::Serial).name, "block_csr");
  EXPECT_EQ(&registry.parse("auto", Backend::OpenMP), &registry.default_for(Backend::OpenMP));
}

TEST(OperatorRegistry, NamesAreParsedWithClearErrors) {
  const op::Registry& registry = explicit_fe::operators();
  EXPECT_EQ(registry.parse("matrix_free", Backend::Serial).name, "matrix_free");
  const std::string unknown = error_of([&] { (void)registry.parse("block_el", Backend::Serial, "m.toml:9"); });
  EXPECT_NE(unknown.find("m.toml:9: unknown stiffness operator 'block_el' (did you mean 'block_ell'?)"),
            std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("\"partitioned\""), std::string::npos) << unknown;
  const std::string gpu_only = error_of([&] { (void)registry.parse("cusparse", Backend::OpenMP); });
  EXPECT_NE(gpu_only.find("the cusparse operator runs on cuda; the backend is openmp"), std::string::npos) << gpu_only;
}

TEST(OperatorRegistry, AddRefusesDuplicatesAndIncompleteEntries) {
  op::Registry registry;
  explicit_fe::register_operators(registry);
  const op::OperatorEntry copy = registry.entries().front();
  EXPECT_NE(error_of([&] { registry.add(copy); }).find("registered twice"), std::string::npos);
  op::OperatorEntry incomplete = copy;
  incomplete.name = "half";
  incomplete.make_double = nullptr;
  EXPECT_NE(error_of([&] { registry.add(incomplete); }).find("lacks a factory"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)registry.default_for(Backend::Serial); }).find("no default"), std::string::npos);
}

// What a kind can do is a field of its entry, asked by the pre-flight, the subdomain set-up, the
// kept set-up and `tremor info` instead of its name.
TEST(OperatorRegistry, CapabilitiesAreFieldsOfTheEntry) {
  const op::Registry& registry = explicit_fe::operators();
  for (const op::OperatorEntry& entry : registry.entries()) {
    SCOPED_TRACE(std::string(entry.name));
    EXPECT_TRUE(entry.reference_float && entry.reference_double);
    EXPECT_EQ(entry.whole_mesh_only, entry.name == "partitioned");
    EXPECT_EQ(entry.reads_blocks, entry.name == "partitioned");
    EXPECT_EQ(entry.auto_where_it_takes, entry.name == "sem");
    EXPECT_EQ(entry.reference, entry.name == "assembled");
    EXPECT_EQ(entry.evaluates_laws, entry.name == "sem" || entry.name == "matrix_free");
  }
  EXPECT_EQ(registry.reference().name, "assembled");
  // "auto" is sem on GLL hexahedra on every backend, else (no preference of a kind applying with
  // --deterministic) the backend's default.
  const Model gll = test::two_section_model(ElementType::HexGLL, 2, 1, 0.0);
  const Model quads = test::two_section_model(ElementType::Quad4, 1, 2, 0.0);
  for (const Backend backend : {Backend::Serial, Backend::OpenMP, Backend::Cuda}) {
    EXPECT_EQ(registry.choose_auto(backend, gll.mesh, false).entry->name, "sem");
    EXPECT_EQ(registry.choose_auto(backend, quads.mesh, true).entry, &registry.default_for(backend));
  }
  ExplicitSettings settings;
  settings.duration = 1e-6;
  Model auto_gll = gll;
  auto_gll.explicit_settings = settings;
  EXPECT_EQ(explicit_fe::preflight(auto_gll).operator_kind(), "sem");
}

// The reference set-up is the entry's: each kind from one host K, in its own class.
TEST(OperatorRegistry, TheReferenceSetUpIsTheEntrys) {
  const Model model = test::two_section_model(ElementType::Quad4, 1, 2, 0.0);
  for (const op::OperatorEntry& entry : explicit_fe::operators().entries()) {
    if (!entry.runs_on(Backend::Serial)) continue;
    SCOPED_TRACE(std::string(entry.name));
    if (!entry.takes(model.mesh)) continue;
    const auto built = explicit_fe::make_stiffness_operator<double>(model, entry.name, Exec::serial());
    EXPECT_EQ(built->name(), entry.name);
    EXPECT_EQ(built->n_dofs(), model.mesh.n_nodes() * model.mesh.dim());
  }
  op::Registry registry;
  explicit_fe::register_operators(registry);
  op::OperatorEntry incomplete = registry.entries().front();
  incomplete.name = "half";
  incomplete.reference_float = nullptr;
  EXPECT_NE(error_of([&] { registry.add(incomplete); }).find("lacks a factory"), std::string::npos);
  op::Registry two;
  sparse::register_operators(two);
  op::OperatorEntry second = two.reference();
  second.name = "second";
  EXPECT_NE(error_of([&] { two.add(second); }).find("'second' is a second reference"), std::string::npos);
}

TEST(OperatorRegistry, TheModelFilesOperatorIsNamedByItsLine) {
  Model model = test::two_section_model(ElementType::Quad4, 1, 2, 0.0);
  ExplicitSettings settings;
  settings.duration = 1e-6;
  settings.operator_kind = "banded";
  settings.operator_origin = "plate.toml:12";
  model.explicit_settings = settings;
  const std::string message = error_of([&] { (void)explicit_fe::preflight(model); });
  EXPECT_NE(message.find("plate.toml:12: unknown stiffness operator 'banded'"), std::string::npos) << message;
}

TEST(Operator, ApplyChecksItsViews) {
  const Model model = test::two_section_model(ElementType::Quad4, 1, 2, 0.0);
  const auto op = explicit_fe::make_stiffness_operator<double>(model, "block_csr", Exec::serial());
  const Index n = op->n_dofs();
  std::vector<double> u(static_cast<std::size_t>(n), 1.0), ku(static_cast<std::size_t>(n + 1), 0.0);
  op->apply({u.data(), n}, {ku.data(), n});  // well formed
  EXPECT_NE(error_of([&] { op->apply({u.data(), n - 1}, {ku.data(), n}); }).find("the operator has"),
            std::string::npos);
  EXPECT_NE(error_of([&] { op->apply({u.data(), n}, {ku.data(), n, MemorySpace::Device}); }).find("GPU memory"),
            std::string::npos);
  EXPECT_NE(error_of([&] { op->apply({ku.data(), n}, {ku.data() + 1, n}); }).find("overlap"), std::string::npos);
}

}  // namespace
}  // namespace tremor
