#include "tremor/bench/exchange.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>

#include "tremor/backend/device_array.hpp"
#include "tremor/bench/report.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/parallel/communicator.hpp"
#include "tremor/parallel/exchange.hpp"
#include "tremor/parallel/nccl_exchange.hpp"
#include "tremor/partition/domains.hpp"

namespace tremor::bench {

namespace {

struct Row {
  long long side = 0;
  Index dofs = 0, shared_nodes = 0, most_shared = 0;  // the model's shared nodes; the most one subdomain holds
  std::string exchange, memory;
  double microseconds = 0.0;  // per exchange, the slowest process
};

// Seconds per exchange over `repeats` after 20 not timed, the slowest process's.
template <class Real>
double time_exchange(const parallel::Communicator& world, parallel::Exchange<Real>& exchange, const Exec& exec,
                     View<Real> values, int repeats) {
  const std::span<const View<Real>> one(&values, 1);
  for (int i = 0; i < 20; ++i) exchange.sum_forces(one);
  exec.synchronize();
  world.barrier();
  const auto start = Clock::now();
  for (int i = 0; i < repeats; ++i) exchange.sum_forces(one);
  exec.synchronize();
  const double mine = seconds_between(start, Clock::now()) / repeats;
  const std::vector<double> all = world.all_gather(mine);
  return *std::max_element(all.begin(), all.end());
}

template <class Real>
std::vector<Row> measure(const ExchangeArgs& args, const parallel::Communicator& world, bool gpu) {
  std::vector<Row> rows;
  for (const long long side : args.sizes) {
    TREMOR_CHECK(side >= 2, "bench exchange: a plate of ", side, " elements a side; at least 2");
    // 2 mm elements, one through the 2 mm thickness: the paper's plate, order 4.
    const Mesh mesh = generate_box({0.0, 0.0, 0.0}, {0.002 * double(side), 0.002 * double(side), 0.002},
                                   {Size(side), Size(side), 1}, ElementType::HexGLL, 4);
    // The first process decomposes; the others take its answer (as a run does).
    std::vector<char> answer;
    if (world.root()) {
      const partition::Decomposition d = partition::decompose(mesh, world.size());
      answer.resize(d.element_domain.size() * sizeof(int));
      std::memcpy(answer.data(), d.element_domain.data(), answer.size());
    }
    world.broadcast(answer);
    std::vector<int> element_domain(answer.size() / sizeof(int));
    std::memcpy(element_domain.data(), answer.data(), answer.size());
    const partition::Decomposition decomposition =
        partition::decomposition_of(mesh, std::move(element_domain), world.size());
    const partition::Subdomain& mine = decomposition.domains[static_cast<std::size_t>(world.rank())];
    Row row;
    row.side = side;
    row.dofs = mesh.n_nodes() * 3;
    row.shared_nodes = parallel::SharedSlots(decomposition, 0).n_slots;
    const std::vector<double> shared = world.all_gather(static_cast<double>(mine.n_shared()));
    row.most_shared = static_cast<Index>(*std::max_element(shared.begin(), shared.end()));
    const Index n = static_cast<Index>(mine.nodes.size()) * 3;
    for (const parallel::Strategy strategy : {parallel::Strategy::PointToPoint, parallel::Strategy::AllReduce}) {
      const std::string name(parallel::to_string(strategy));
      if (gpu) {
        const Exec exec = Exec::cuda(world.local_rank() % cuda_device_count());
        const std::vector<Real> ones(static_cast<std::size_t>(n), Real(1));
        DeviceArray<Real> values(exec, std::span<const Real>(ones));
        parallel::NcclExchange<Real> nccl(exec, decomposition, 3, world, strategy);
        row.exchange = "nccl " + name;
        row.memory = "GPU";
        row.microseconds = 1e6 * time_exchange<Real>(world, nccl, exec, values.view(), args.repeats);
        rows.push_back(row);
      }
      const Exec host = Exec::serial();
      std::vector<Real> values(static_cast<std::size_t>(n), Real(1));
      parallel::MpiExchange<Real> mpi(host, decomposition, 3, world, strategy);
      row.exchange = "mpi " + name;
      row.memory = "host";
      row.microseconds = 1e6 * time_exchange<Real>(world, mpi, host, View<Real>{values.data(), n, MemorySpace::Host},
                                                   args.repeats);
      rows.push_back(row);
    }
    if (world.root())
      std::printf("  plate %lld x %lld: %s DOF, %s shared nodes\n", side, side, group_digits(row.dofs).c_str(),
                  group_digits(row.shared_nodes).c_str());
  }
  return rows;
}

}  // namespace

void run_exchange(const ExchangeArgs& args) {
  const parallel::Communicator& world = parallel::Communicator::world();
  TREMOR_CHECK(world.size() > 1, "bench exchange measures an exchange between processes: run it under mpirun with "
                                 "2 or more (mpirun -np 2 tremor bench exchange)");
  if (world.root() && !args.output_dir.empty()) make_output_dir(args.output_dir);
  RunRecord run(args.commit, args.note);
  const bool gpu = parallel::nccl_compiled() && cuda_device_count() > 0 && world.local_rank() < cuda_device_count();
  const std::vector<double> gpus = world.all_gather(gpu ? 1.0 : 0.0);
  const bool all_gpu = std::all_of(gpus.begin(), gpus.end(), [](double g) { return g != 0.0; });
  if (world.root())
    std::printf("bench exchange: %d processes, %s, %s%s\n", world.size(), args.precision.c_str(),
                all_gpu ? "a GPU each (NCCL) and host memory (MPI)" : "host memory (MPI)",
                all_gpu ? "" : "; no NCCL exchange: not every process has a GPU of its own with NCCL");
  const std::vector<Row> rows = args.precision == "double" ? measure<double>(args, world, all_gpu)
                                                           : measure<float>(args, world, all_gpu);
  run.finish();
  if (!world.root()) return;
  std::ostringstream json, md;
  json << "{\n  \"benchmark\": \"exchange\"";
  run.json_provenance(json);
  run.json_machine(json);
  json << ",\n  \"processes\": " << world.size() << ",\n  \"precision\": " << json_string(args.precision)
       << ",\n  \"gpu\": " << json_string(all_gpu ? Exec::cuda(0).describe() : "none")
       << ",\n  \"repeats\": " << args.repeats << ",\n  \"cases\": [";
  md << "# Interface exchange, " << world.size() << " processes (" << args.precision << ")\n\n"
     << "Date " << run.date << ", commit " << run.commit << ", GPU " << (all_gpu ? Exec::cuda(0).describe() : "none")
     << ". Plates of GLL hexahedra of order 4, one element through the thickness, METIS subdomains; time of one "
        "sum of the shared nodes' forces (3 values a node), the slowest process's mean over "
     << args.repeats << ".\n\n| plate | DOF | shared nodes | most in one subdomain | exchange | memory | us per exchange |\n"
     << "|---|---|---|---|---|---|---|\n";
  std::printf("\n%-10s %14s %12s %10s %-15s %-5s %12s\n", "plate", "DOF", "shared", "most", "exchange", "mem",
              "us/exchange");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    json << (i ? "," : "") << "\n    {\"side\": " << r.side << ", \"dofs\": " << r.dofs
         << ", \"shared_nodes\": " << r.shared_nodes << ", \"most_shared\": " << r.most_shared
         << ", \"exchange\": " << json_string(r.exchange) << ", \"memory\": " << json_string(r.memory)
         << ", \"microseconds\": " << fixed(r.microseconds, 2) << "}";
    md << "| " << r.side << " x " << r.side << " | " << group_digits(r.dofs) << " | " << group_digits(r.shared_nodes)
       << " | " << group_digits(r.most_shared) << " | " << r.exchange << " | " << r.memory << " | "
       << fixed(r.microseconds, 1) << " |\n";
    std::printf("%4lld x %-4lld %14s %12s %10s %-15s %-5s %12.1f\n", r.side, r.side, group_digits(r.dofs).c_str(),
                group_digits(r.shared_nodes).c_str(), group_digits(r.most_shared).c_str(), r.exchange.c_str(),
                r.memory.c_str(), r.microseconds);
  }
  json << "\n  ]\n}\n";
  if (!args.output_dir.empty()) write_report_to(args.output_dir, "exchange", json.str(), md.str());
}

}  // namespace tremor::bench
