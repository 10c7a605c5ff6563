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

namespace tremor {
namespace {

template <class Body>
std::string error_of(Body body) {
  try {
    body();
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

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
