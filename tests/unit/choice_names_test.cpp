// Settings that are one of a few names (core/choice.hpp): each is one table, parsed once with the
// uniform "unknown WHAT 'x' (did you mean ...); expected ..." and printed back by the same table.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "tremor/backend/exec.hpp"
#include "tremor/core/error.hpp"
#include "tremor/model/backend_setting.hpp"
#include "tremor/model/bem_problem.hpp"
#include "tremor/model/source.hpp"
#include "tremor/parallel/exchange.hpp"
#include "tremor/partition/partition.hpp"
#include "tremor/sparse/operators.hpp"
#include "tremor/static/preconditioner.hpp"
#include "support/support.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using test::error_of;

TEST(ChoiceNames, BackendsAreOneTable) {
  for (const Backend backend : {Backend::Serial, Backend::OpenMP, Backend::Cuda})
    EXPECT_EQ(parse_backend(to_string(backend)), backend);
  EXPECT_EQ(parse_backend("auto"), cuda_device_count() > 0 ? Backend::Cuda : Backend::OpenMP);
  EXPECT_EQ(error_of([] { (void)parse_backend("cud"); }),
            "unknown backend 'cud' (did you mean 'cuda'?); expected \"auto\", \"serial\", \"openmp\" or \"cuda\"");
  // The model file's and the command line's lists are the table's names, in its order.
  ASSERT_EQ(solver_backends().size(), 4u);
  EXPECT_EQ(solver_backends()[0], "auto");
  EXPECT_EQ(backend_choice_names(), (std::vector<std::string>{"auto", "serial", "openmp", "cuda"}));
  EXPECT_EQ(backend_choice_names(false), (std::vector<std::string>{"serial", "openmp", "cuda"}));
}

TEST(ChoiceNames, ExchangePartitionerPreconditionerAndFormatsAreOneTableEach) {
  for (const auto strategy : {parallel::Strategy::PointToPoint, parallel::Strategy::AllReduce})
    EXPECT_EQ(parallel::parse_strategy(parallel::to_string(strategy)), strategy);
  const std::string exchange = error_of([] { (void)parallel::parse_strategy("ring"); });
  EXPECT_EQ(exchange.rfind("unknown exchange 'ring'", 0), 0u) << exchange;
  EXPECT_NE(exchange.find("; expected \"p2p\" or \"allreduce\""), std::string::npos) << exchange;
  for (const auto partitioner : {partition::Partitioner::Greedy, partition::Partitioner::Aligned})
    EXPECT_EQ(partition::parse_partitioner(partition::to_string(partitioner)), partitioner);
  EXPECT_EQ(error_of([] { (void)partition::parse_partitioner("aligne"); }),
            "unknown partitioner 'aligne' (did you mean 'aligned'?); expected \"greedy\" or \"aligned\"");
  const std::string preconditioner = error_of([] { (void)static_fe::parse_preconditioner("ilu"); });
  EXPECT_EQ(preconditioner.rfind("unknown preconditioner 'ilu'", 0), 0u) << preconditioner;
  EXPECT_NE(preconditioner.find("; expected \"none\", \"jacobi\" or \"block_jacobi\""), std::string::npos)
      << preconditioner;
  ASSERT_EQ(static_preconditioners().size(), 3u);
  EXPECT_EQ(static_preconditioners()[2], "block_jacobi");
  EXPECT_EQ(static_formats()[1], "block_csr");
  // FormatOperator's kinds carry their registry names.
  EXPECT_EQ(name_of(sparse::FormatKind::BlockEll, sparse::format_kind_names), "block_ell");
  EXPECT_EQ(parse_named("sell", sparse::format_kind_names, "format"), sparse::FormatKind::Sell);
}

// Every name of `table` parses to its value, which prints back as that name.
template <class Enum, std::size_t N>
void expect_round_trip(const std::array<Named<Enum>, N>& table, std::string_view what) {
  for (const Named<Enum>& entry : table) {
    EXPECT_EQ(parse_named(entry.name, table, what), entry.value) << entry.name;
    EXPECT_EQ(name_of(entry.value, table), entry.name);
  }
}

TEST(ChoiceNames, BemAndStaticSettingsAreOneTableEach) {
  expect_round_trip(bem_free_term_names, "free_term");
  expect_round_trip(bem_element_names, "elements");
  expect_round_trip(bem_solver_names, "solver");
  expect_round_trip(bem_layout_names, "layout");
  expect_round_trip(static_assembly_names, "assembly");
  expect_round_trip(precision_names, "precision");
  // The names in the order the model file's and the command line's messages list them.
  using Names3 = std::array<std::string_view, 3>;
  using Names2 = std::array<std::string_view, 2>;
  EXPECT_EQ(names_of(bem_free_term_names), (Names3{"auto", "rigid_body", "direct"}));
  EXPECT_EQ(names_of(bem_element_names), (Names3{"constant", "linear", "quadratic"}));
  EXPECT_EQ(names_of(bem_layout_names), (Names2{"block", "thread"}));
  EXPECT_EQ(names_of(static_assembly_names), (Names3{"auto", "colouring", "atomics"}));
  ASSERT_EQ(static_assemblies().size(), 3u);
  EXPECT_EQ(static_assemblies()[1], "colouring");
  ASSERT_EQ(solver_precisions().size(), 2u);
  EXPECT_EQ(solver_precisions()[1], "float");
  // The defaults are the names they were.
  const BemOptions bem;
  EXPECT_EQ(name_of(bem.free_term, bem_free_term_names), "auto");
  EXPECT_EQ(name_of(bem.elements, bem_element_names), "constant");
  EXPECT_EQ(name_of(bem.layout, bem_layout_names), "block");
  const StaticSettings settings;
  EXPECT_EQ(name_of(settings.assembly, static_assembly_names), "auto");
  EXPECT_EQ(to_string(settings.precision), "double");
  EXPECT_EQ(error_of([] { (void)parse_named("atomic", static_assembly_names, "assembly"); }),
            "unknown assembly 'atomic' (did you mean 'atomics'?); expected \"auto\", \"colouring\" or \"atomics\"");
}

TEST(ChoiceNames, StaticAndBemBackendPreconditionerAndFormatAreValues) {
  expect_round_trip(backend_names, "backend");
  expect_round_trip(preconditioner_names, "preconditioner");
  expect_round_trip(static_format_names, "format");
  using Names3 = std::array<std::string_view, 3>;
  using Names2 = std::array<std::string_view, 2>;
  EXPECT_EQ(names_of(preconditioner_names), (Names3{"none", "jacobi", "block_jacobi"}));
  EXPECT_EQ(names_of(static_format_names), (Names2{"csr", "block_csr"}));
  // The defaults are the names they were.
  const StaticSettings settings;
  EXPECT_EQ(name_of(settings.backend, backend_names), "auto");
  EXPECT_EQ(name_of(settings.preconditioner, preconditioner_names), "block_jacobi");
  EXPECT_EQ(name_of(settings.format, static_format_names), "csr");
  EXPECT_EQ(name_of(BemOptions{}.backend, backend_names), "auto");
  // "auto" resolves as parse_backend resolves it; a backend is its own.
  EXPECT_EQ(resolve_backend(std::nullopt), parse_backend("auto"));
  EXPECT_EQ(resolve_backend(Backend::Serial), Backend::Serial);
}

// An override not given keeps the model's backend; one given replaces it, "auto" included.
TEST(ChoiceNames, ABackendOverrideTellsNotGivenFromAuto) {
  const std::optional<Backend> model = Backend::Serial;
  EXPECT_FALSE(BackendOverride().given());
  EXPECT_EQ(BackendOverride().over(model), Backend::Serial);
  EXPECT_EQ(BackendOverride(Backend::Cuda).over(model), Backend::Cuda);
  EXPECT_EQ(BackendOverride::named("auto").over(model), std::nullopt);
  EXPECT_TRUE(BackendOverride::named("auto").given());
  EXPECT_EQ(BackendOverride::named("openmp").over(std::nullopt), Backend::OpenMP);
  EXPECT_EQ(BackendOverride::of(std::nullopt).over(model), std::nullopt);
  EXPECT_EQ(error_of([] { (void)BackendOverride::named("gpu"); }),
            "unknown backend 'gpu'; expected \"auto\", \"serial\", \"openmp\" or \"cuda\"");
}

}  // namespace
}  // namespace tremor
