// `tremor partition MODEL -o FILE`: partitions a model's mesh into GPU blocks (pogo paper
// section 3: a partitioner, then the memory arrangement with split-and-retry) and writes the block
// file the "partitioned" stiffness operator reads (partition/block_file.hpp), atomically. With
// --domains N: decomposes it into N subdomains by METIS (the multi-GPU paper, section 3) and writes
// the decomposition file `tremor run --decomposition` reads (partition/domain_file.hpp).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <system_error>

#include "tremor/cli/commands.hpp"
#include "tremor/cli/options.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/coupled_parts.hpp"
#include "tremor/fem/coupling.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/load.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/partition/block_file.hpp"
#include "tremor/partition/domain_file.hpp"
#include "tremor/partition/domains.hpp"
#include "tremor/partition/partition.hpp"

namespace tremor::cli {

namespace {

namespace fs = std::filesystem;

struct PartitionArguments {
  std::optional<int> order;  // --order
  std::string model;
  std::string output;
  std::string partitioner = "aligned";
  int block_size = 512;
  int domains = 0;  // --domains: a decomposition file instead of a block file
  CLI::Option *partitioner_option = nullptr, *block_size_option = nullptr;
};

// Refuses an output in a folder that is missing (or a file) before the minutes a large mesh's
// partition may take, rather than after.
void check_output_folder(const fs::path& output) {
  const fs::path folder = output.parent_path().empty() ? fs::path(".") : output.parent_path();
  std::error_code error;
  if (fs::is_directory(folder, error)) return;
  throw Error(str(output.string(), ": cannot write the output file: ", folder.string(),
                  fs::exists(folder, error) ? " is not a folder" : " does not exist"));
}

// --domains N: METIS's decomposition, written as a decomposition file.
void run_decomposition(const PartitionArguments& args) {
  TREMOR_CHECK(!args.partitioner_option->count() && !args.block_size_option->count(),
               "--partitioner and --block-size make a block file; --domains makes a decomposition file");
  check_output_folder(args.output);
  const Model model = io::load_model(args.model, args.order);
  const Mesh& mesh = model.mesh;
  const auto start = Clock::now();
  // With fluids, the run's: the solid's and the fluid's elements balanced apart, each face between
  // them in one subdomain (explicit/coupled_parts.hpp).
  const bool fluids = model.has_fluids();
  partition::Decomposition d;
  if (fluids) {
    explicit_fe::FluidSetup fluid;
    fluid.mesh = explicit_fe::fluid_mesh(model);
    fluid.interface = fem::fluid_solid_interface(model);
    const explicit_fe::CoupledDecomposition coupled =
        explicit_fe::decompose_coupled(fem::solid_part(model), fluid, args.domains);
    d = partition::decomposition_of(mesh, explicit_fe::whole_element_domains(coupled, fluid), args.domains);
  } else {
    d = partition::decompose(mesh, args.domains);
  }
  const double seconds = seconds_since(start);
  Index shared = 0, most = 0;
  for (const int m : d.node_multiplicity) shared += m > 1 ? 1 : 0;
  for (const partition::Subdomain& s : d.domains) most = std::max(most, static_cast<Index>(s.elements.size()));
  std::printf("%-14s%dD, %s elements, %s nodes\n", "mesh", mesh.dim(), group_digits(mesh.n_elements()).c_str(),
              group_digits(mesh.n_nodes()).c_str());
  std::printf("%-14s%d (METIS k-way%s), at most %s elements each; %s nodes shared\n", "subdomains", d.n_domains(),
              fluids ? ", the solid's and the fluid's elements balanced apart" : "", group_digits(most).c_str(),
              group_digits(shared).c_str());
  std::printf("%-14s%.2f s\n", "time", seconds);
  io::write_file_atomically(args.output, partition::encode_domain_file(mesh, d), "decomposition file");
  std::printf("wrote %s: reuse it with tremor run %s --decomposition %s\n", args.output.c_str(), args.model.c_str(),
              args.output.c_str());
}

void run_partition(const PartitionArguments& args) {
  if (args.domains > 0) {
    run_decomposition(args);
    return;
  }
  TREMOR_CHECK(args.block_size % partition::row_width == 0, "--block-size ", args.block_size,
               ": not a multiple of 32 (a block is made of rows of one warp)");
  check_output_folder(args.output);
  const Model model = io::load_model(args.model, args.order);
  const Mesh& mesh = model.mesh;
  TREMOR_CHECK(mesh.n_nodes() > 0, args.model, ": the mesh has no nodes");
  partition::PartitionOptions options;
  options.partitioner = partition::parse_partitioner(args.partitioner);
  options.block_size = args.block_size;
  const partition::BlockLayout layout = partition::default_layout(mesh, args.block_size);
  options.layout = layout;

  const auto start = Clock::now();
  const NodeGraph graph = node_graph(mesh);
  const double graph_seconds = seconds_since(start);
  const partition::BlockPartition blocks = partition::partition_mesh(mesh, graph, options);
  const auto problems = partition::check_partition(graph, blocks);
  TREMOR_CHECK(problems.empty(), "internal error: the partition does not serve the mesh: ", problems.front());

  std::set<std::string> types;
  for (const auto& block : mesh.blocks) types.insert(element_name(block.type, block.order));
  std::string type_list;
  for (const auto& t : types) type_list += (type_list.empty() ? "" : ", ") + t;
  const auto& s = blocks.stats;
  std::printf("%-14s%dD, %s nodes (%s)\n", "mesh", mesh.dim(), group_digits(mesh.n_nodes()).c_str(), type_list.c_str());
  std::printf("%-14s%s, blocks of %d nodes: %d boundary rows, loads %d x 32, %d x 16, %d x 8\n", "layout",
              blocks.partitioner.c_str(), layout.block_size, layout.boundary_rows, layout.loads[0], layout.loads[1],
              layout.loads[2]);
  std::printf("%-14s%s (%s from the partitioner, %s failed the memory arrangement and were split, %d passes)\n",
              "blocks", group_digits(blocks.n_blocks).c_str(), group_digits(s.initial_blocks).c_str(),
              group_digits(s.split_blocks).c_str(), s.arrange_passes);
  std::printf("%-14s%.4f (nodes / (blocks x %d))\n", "efficiency", blocks.efficiency(), layout.block_size);
  const double per_block = blocks.n_blocks > 0 ? 1.0 / blocks.n_blocks : 0.0;
  std::printf("%-14s%.1f x 32 + %.1f x 16 + %.1f x 8 per block of %d + %d + %d available; %.1f sections needed, "
              "%.0f slots loaded per block\n",
              "loads used", static_cast<double>(s.loads_used[0]) * per_block,
              static_cast<double>(s.loads_used[1]) * per_block, static_cast<double>(s.loads_used[2]) * per_block,
              layout.loads[0], layout.loads[1], layout.loads[2], static_cast<double>(s.needed_sections) * per_block,
              static_cast<double>(s.loaded_slots) * per_block);
  std::printf("%-14sgraph %.2f s, partitioner %.2f s, arrangement %.2f s\n", "time", graph_seconds,
              s.partition_seconds, s.arrange_seconds);
  // A crash or a full disk leaves the previous block file or the new one, never a torn one.
  io::write_file_atomically(args.output, partition::encode_block_file(blocks), "block file");
  std::error_code error;
  const auto size = fs::file_size(args.output, error);
  std::printf("wrote %s (%s bytes)\n", args.output.c_str(), group_digits(error ? 0 : static_cast<long long>(size)).c_str());
}

}  // namespace

void add_partition_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "partition", "Partition a model's mesh into GPU blocks and write the block file of the partitioned operator, "
                   "or (--domains N) into subdomains for decomposed runs");
  auto args = std::make_shared<PartitionArguments>();
  cmd->add_option("MODEL", args->model, "model file (.toml), Abaqus input (.inp) or Gmsh mesh (.msh)")->required();
  add_order_option(cmd, args->order);
  cmd->add_option("-o,--output", args->output, "block file (or decomposition file) to write, replaced atomically")
      ->required();
  cmd->add_option("--domains", args->domains,
                  "decompose into N subdomains (METIS) and write the decomposition file tremor run --decomposition "
                  "reads, instead of a block file")
      ->check(whole(1, std::numeric_limits<int>::max()));
  args->partitioner_option = cmd->add_option("--partitioner", args->partitioner, "greedy or aligned (default)")
                                 ->check(CLI::IsMember({"greedy", "aligned"}));
  args->block_size_option =
      cmd->add_option("--block-size", args->block_size, "nodes per GPU block: a multiple of 32 from 32 to 1024 (512)")
          ->check(whole(32, 1024));
  cmd->callback([args] { run_partition(*args); });
}

}  // namespace tremor::cli
