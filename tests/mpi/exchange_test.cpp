// The interface exchange over processes (parallel::MpiExchange), run by mpirun with 2 and 3
// processes (tests/CMakeLists.txt): each process holds one subdomain of a METIS decomposition and
// its exchange is compared with the in-process exchange over all the subdomains, which every
// process also computes. Point to point sums in the same (subdomain) order as the in-process
// exchange, so equality is exact; the all-reduce sums in MPI's order, in double.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tremor/mesh/generate.hpp"
#include "tremor/parallel/communicator.hpp"
#include "support/support.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/parallel/exchange.hpp"
#include "tremor/parallel/nccl_exchange.hpp"
#include "tremor/partition/domains.hpp"

namespace tremor {
namespace {

using parallel::Communicator;

// A value per (subdomain, node, component) whose sums round differently in different orders.
double value(std::size_t s, Index node, int c) { return std::sin(1.0 + 0.37 * double(s) + 0.013 * double(node) + 0.7 * c) * 1e3; }

template <class T>
void expect_exchange_matches(const Mesh& mesh, int dim, parallel::Strategy strategy = parallel::Strategy::PointToPoint) {
  const Communicator& world = Communicator::world();
  if (world.size() < 2) GTEST_SKIP() << "run under mpirun with several processes";
  const partition::Decomposition decomposition = partition::decompose(mesh, world.size());
  std::vector<std::vector<T>> all;
  for (std::size_t s = 0; s < decomposition.domains.size(); ++s) {
    const std::vector<Index>& nodes = decomposition.domains[s].nodes;
    all.emplace_back(nodes.size() * static_cast<std::size_t>(dim));
    for (std::size_t i = 0; i < nodes.size(); ++i)
      for (int c = 0; c < dim; ++c) all[s][i * static_cast<std::size_t>(dim) + c] = static_cast<T>(value(s, nodes[i], c));
  }
  const auto rank = static_cast<std::size_t>(world.rank());
  std::vector<T> mine = all[rank];
  // The reference: every subdomain in this process.
  std::vector<View<T>> views;
  for (auto& v : all) views.push_back({v.data(), static_cast<Index>(v.size()), MemorySpace::Host});
  parallel::InProcessExchange<T> in_process(Exec::serial(), decomposition, dim);
  if constexpr (std::is_same_v<T, double>)
    in_process.sum_mass(views);
  else
    in_process.sum_forces(views);
  parallel::MpiExchange<T> over_processes(Exec::serial(), decomposition, dim, world, strategy);
  EXPECT_FALSE(over_processes.neighbours().empty());
  const View<T> view{mine.data(), static_cast<Index>(mine.size()), MemorySpace::Host};
  if constexpr (std::is_same_v<T, double>)
    over_processes.sum_mass(std::span<const View<double>>(&view, 1));
  else
    over_processes.sum_forces(std::span<const View<T>>(&view, 1));
  if (strategy == parallel::Strategy::PointToPoint) {
    EXPECT_EQ(mine, all[rank]) << "process " << rank;
  } else {
    // Up to four copies of values below 1e3, summed in another order: a few units of the last
    // place of the type (the sum in double rounded once to float).
    const double tolerance = 1e3 * (std::is_same_v<T, double> ? 1e-14 : 1e-6);
    ASSERT_EQ(mine.size(), all[rank].size());
    for (std::size_t k = 0; k < mine.size(); ++k) EXPECT_NEAR(mine[k], all[rank][k], tolerance) << "value " << k;
  }
  // Not a trivial comparison: the shared nodes changed.
  const partition::Subdomain& d = decomposition.domains[rank];
  ASSERT_GT(d.n_shared(), 0);
  const auto first_shared = static_cast<std::size_t>(d.n_owned) * static_cast<std::size_t>(dim);
  EXPECT_NE(mine[first_shared], static_cast<T>(value(rank, d.nodes[static_cast<std::size_t>(d.n_owned)], 0)));
}

TEST(MpiExchange, EqualsTheInProcessExchangeBitForBitIn3dDouble) {
  expect_exchange_matches<double>(generate_box({0.0, 0.0, 0.0}, {1.0, 0.6, 0.4}, {10, 6, 4}, ElementType::Hex8), 3);
}

TEST(MpiExchange, EqualsTheInProcessExchangeBitForBitIn2dFloat) {
  expect_exchange_matches<float>(generate_rectangle({0.0, 0.0}, {1.0, 1.0}, {12, 12}, ElementType::Quad8), 2);
}

TEST(MpiExchange, AllReduceEqualsTheInProcessExchangeToRounding) {
  expect_exchange_matches<double>(generate_box({0.0, 0.0, 0.0}, {1.0, 0.6, 0.4}, {10, 6, 4}, ElementType::Hex8), 3,
                                  parallel::Strategy::AllReduce);
  expect_exchange_matches<float>(generate_rectangle({0.0, 0.0}, {1.0, 1.0}, {12, 12}, ElementType::Quad8), 2,
                                 parallel::Strategy::AllReduce);
}

// Started, then finished after other work (the overlap): the same bits as in one call, and the
// values left alone between the halves.
TEST(MpiExchange, StartedAndFinishedEqualsOneSum) {
  const Communicator& world = Communicator::world();
  const Mesh mesh = generate_box({0.0, 0.0, 0.0}, {1.0, 0.6, 0.4}, {10, 6, 4}, ElementType::Hex8);
  const partition::Decomposition decomposition = partition::decompose(mesh, world.size());
  const std::vector<Index>& nodes = decomposition.domains[static_cast<std::size_t>(world.rank())].nodes;
  for (const parallel::Strategy strategy : {parallel::Strategy::PointToPoint, parallel::Strategy::AllReduce}) {
    std::vector<double> once(nodes.size() * 3);
    for (std::size_t k = 0; k < once.size(); ++k) once[k] = value(static_cast<std::size_t>(world.rank()), nodes[k / 3], int(k % 3));
    std::vector<double> halves = once;
    parallel::MpiExchange<double> exchange(Exec::serial(), decomposition, 3, world, strategy);
    const View<double> a{once.data(), static_cast<Index>(once.size()), MemorySpace::Host};
    const View<double> b{halves.data(), static_cast<Index>(halves.size()), MemorySpace::Host};
    exchange.sum_forces(std::span<const View<double>>(&a, 1));
    exchange.start_forces(std::span<const View<double>>(&b, 1));
    EXPECT_THROW(exchange.start_forces(std::span<const View<double>>(&b, 1)), Error);  // one at a time
    exchange.finish_forces(std::span<const View<double>>(&b, 1));
    EXPECT_EQ(halves, once);
  }
}

// On GPUs: the NCCL exchange gives the host exchange's bits (the same sums in the same order).
TEST(NcclExchangeGpu, EqualsTheHostExchangeBitForBit) {
  TREMOR_REQUIRE_GPU();
  const Communicator& world = Communicator::world();
  if (world.size() > cuda_device_count()) GTEST_SKIP() << "NCCL needs a GPU per process";
  const Exec gpu = Exec::cuda(world.local_rank() % cuda_device_count());
  const Mesh mesh = generate_box({0.0, 0.0, 0.0}, {1.0, 0.6, 0.4}, {10, 6, 4}, ElementType::Hex8);
  const partition::Decomposition decomposition = partition::decompose(mesh, world.size());
  const auto rank = static_cast<std::size_t>(world.rank());
  const std::vector<Index>& nodes = decomposition.domains[rank].nodes;
  std::vector<double> host(nodes.size() * 3);
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (int c = 0; c < 3; ++c) host[i * 3 + c] = value(rank, nodes[i], c);
  DeviceArray<double> device(gpu, std::span<const double>(host));
  DeviceArray<double> device_all(gpu, std::span<const double>(host));
  std::vector<double> host_all = host;
  parallel::MpiExchange<double> on_host(Exec::serial(), decomposition, 3, world);
  parallel::NcclExchange<double> on_gpu(gpu, decomposition, 3, world);
  const View<double> host_view{host.data(), static_cast<Index>(host.size()), MemorySpace::Host};
  on_host.sum_forces(std::span<const View<double>>(&host_view, 1));
  const View<double> device_view = device.view();
  on_gpu.sum_forces(std::span<const View<double>>(&device_view, 1));
  EXPECT_EQ(device.to_host(), host);
  // The all-reduce over NCCL against MPI's: both in double, in the libraries' orders.
  parallel::MpiExchange<double> all_on_host(Exec::serial(), decomposition, 3, world, parallel::Strategy::AllReduce);
  parallel::NcclExchange<double> all_on_gpu(gpu, decomposition, 3, world, parallel::Strategy::AllReduce);
  const View<double> host_all_view{host_all.data(), static_cast<Index>(host_all.size()), MemorySpace::Host};
  all_on_host.sum_forces(std::span<const View<double>>(&host_all_view, 1));
  const View<double> device_all_view = device_all.view();
  all_on_gpu.start_forces(std::span<const View<double>>(&device_all_view, 1));
  all_on_gpu.finish_forces(std::span<const View<double>>(&device_all_view, 1));
  const std::vector<double> got = device_all.to_host();
  for (std::size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], host_all[k], 1e-11) << "value " << k;  // 1e3 x 1e-14
  EXPECT_NE(got, std::vector<double>(host.size(), 0.0));
}

TEST(MpiCommunicator, SumsAndGathersInRankOrder) {
  const Communicator& world = Communicator::world();
  const double mine = 0.1 * (world.rank() + 1);
  double expected = 0.0;
  for (int r = 0; r < world.size(); ++r) expected += 0.1 * (r + 1);
  EXPECT_EQ(world.sum(mine), expected);
  const std::vector<double> all = world.all_gather(mine);
  ASSERT_EQ(all.size(), static_cast<std::size_t>(world.size()));
  for (int r = 0; r < world.size(); ++r) EXPECT_EQ(all[static_cast<std::size_t>(r)], 0.1 * (r + 1));
  const std::string text(static_cast<std::size_t>(world.rank() + 1), static_cast<char>('a' + world.rank()));
  const std::vector<std::vector<char>> gathered = world.gather(std::span<const char>(text.data(), text.size()));
  if (world.root()) {
    ASSERT_EQ(gathered.size(), static_cast<std::size_t>(world.size()));
    for (int r = 0; r < world.size(); ++r)
      EXPECT_EQ(std::string(gathered[static_cast<std::size_t>(r)].begin(), gathered[static_cast<std::size_t>(r)].end()),
                std::string(static_cast<std::size_t>(r + 1), static_cast<char>('a' + r)));
  } else {
    EXPECT_TRUE(gathered.empty());
  }
  std::vector<char> message;
  if (world.root()) message = {'g', 'o'};
  world.broadcast(message);
  EXPECT_EQ(std::string(message.begin(), message.end()), "go");
}

}  // namespace
}  // namespace tremor
