// Settings that are one of a few names (core/choice.hpp): each is one table, parsed once with the
// uniform "unknown WHAT 'x' (did you mean ...); expected ..." and printed back by the same table.
#include <gtest/gtest.h>

#include <string>

#include "tremor/backend/exec.hpp"
#include "tremor/core/error.hpp"
#include "tremor/model/source.hpp"
#include "tremor/parallel/exchange.hpp"
#include "tremor/partition/partition.hpp"
#include "tremor/sparse/operators.hpp"
#include "tremor/static/preconditioner.hpp"
#include "support/support.hpp"

namespace tremor {
namespace {

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

}  // namespace
}  // namespace tremor
