// `tremor bench`: throughput of the explicit time step for every stiffness operator and precision
// on standard problems generated in process (or model files), against the device's copy bandwidth
// and the cuSPARSE CSR baseline measured in the same run (docs/benchmarks.md). JSON plus markdown:
// every case; the setup of every problem; and the block-partitioned layout's cases side by side
// with the baseline, as the pogo paper's Table 2 compares its partitioners (section 3).
//
// Per problem: the mesh is generated (or read) once, then for each node ordering renumbered, and
// K (assembled once on the host per ordering), the lumped mass and the stable step are set up.
// Each case builds its operator from that K, the central-difference integrator, starts from a
// smooth displacement field, takes `warmup` untimed steps, then times `steps` steps (one operator
// apply plus the fused update each; no loads or receivers), and more in chunks of `steps` until
// `min-seconds` have passed, between two synchronisations of the Exec: the cost of the time loop
// itself.
//
// Counted bytes per step: the operator's own arrays (op::Operator::bytes(): matrix values,
// indices, padding; the matrix-free operator's geometry and connectivity), plus u read once and
// K u written once by the operator, plus the fused update's 7 reads and 1 write per DOF (Eq. 4 of
// the pogo paper: A, F, K u, C', U_prev, K'', U_curr -> U_next): 10 values of sizeof(Real) per DOF.
// u is counted once, as if every reuse hit the cache: the figure is the least traffic the step
// needs, so achieved GB/s = counted bytes / time is a lower bound of what the memory moved.
// Counted flops per step (operators that count them, op::Operator::flops(): sem) plus the update's
// 6 per DOF, against the multiply-add peak of the precision measured in the same run; the
// roofline is the longer of bytes / copy bandwidth and flops / peak.
#include "tremor/bench/operators.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/backend/bandwidth.hpp"
#include "tremor/backend/memory.hpp"
#include "tremor/bench/report.hpp"
#include "tremor/bench/timing.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/explicit/central_difference.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/partitioned_operator.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/fem/time_step.hpp"
#include "tremor/io/load.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/mesh/perturbed.hpp"
#include "tremor/mesh/reorder.hpp"
#include "tremor/model/renumber.hpp"
#include "tremor/partition/partition.hpp"
#include "tremor/sem/operator.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/fem/colouring.hpp"

namespace tremor::bench {

const std::vector<std::string>& standard_problems() {
  static const std::vector<std::string> names{"tri2d", "hex8", "tet4", "gll1", "gll2", "gll3", "gll4",
                                              "gll5", "gll6", "gll7", "gll8"};
  return names;
}

const std::vector<std::string>& default_problems() {
  static const std::vector<std::string> names{"tri2d", "hex8", "tet4"};
  return names;
}

const std::vector<std::string>& known_orderings() {
  static const std::vector<std::string> names{"none", "rcm", "block"};
  return names;
}

namespace {

// An operator as the benchmark names it: a kind of make_stiffness_operator(),
// "partitioned:greedy" / "partitioned:aligned" (plain "partitioned" is the aligned one), or
// "sem:atomic" (sem scattering with atomics; plain "sem" goes colour by colour) or "sem:stored"
// (colour by colour with the geometric factors stored per Gauss point even on trilinear elements),
// "sem:points" and "sem:columns" (sem:atomic with the kernel's step for hexahedra forced,
// sem::Kernel), "sem:atomic:stored" (sem:atomic with the factors stored per point: the geometry a
// curved mesh reads, on any mesh).
struct OperatorChoice {
  std::string name;  // as reported
  std::string kind;  // as make_stiffness_operator() takes it
  std::optional<partition::Partitioner> partitioner;
  bool atomic = false, stored = false;
  sem::Kernel kernel = sem::Kernel::Auto;
  int tile = 0;  // matrix_free's elements per tile (0: the default)
};

// The benchmark's variants of the registry's operators (and the registry kinds they are timed
// beside), by the name a run asks for: what is reported, the kind built, how, and whether a run
// naming no operator times it, in this order, in place of its kind.
struct Variant {
  std::string_view name, reported, kind;
  std::optional<partition::Partitioner> partitioner;
  bool atomic = false, stored = false;
  sem::Kernel kernel = sem::Kernel::Auto;
  bool by_default = false;
  int tile = 0;
};
// matrix_free: colour by colour (the reference, a GPU run's with --deterministic) and in tiles (a
// run's otherwise: on the host colour by colour), with the tile sizes compared in docs/benchmarks.md.
const std::array<Variant, 15> variants{{
    {"partitioned:greedy", "partitioned:greedy", "partitioned", partition::Partitioner::Greedy, false, false,
     sem::Kernel::Auto, true},
    {"partitioned:aligned", "partitioned:aligned", "partitioned", partition::Partitioner::Aligned, false, false,
     sem::Kernel::Auto, true},
    {"sem", "sem", "sem", std::nullopt, false, false, sem::Kernel::Auto, true},
    {"sem:atomic", "sem:atomic", "sem", std::nullopt, true, false, sem::Kernel::Auto, true},
    {"sem:stored", "sem:stored", "sem", std::nullopt, false, true, sem::Kernel::Auto, true},
    {"sem:points", "sem:points", "sem", std::nullopt, true, false, sem::Kernel::Points, false},
    {"sem:columns", "sem:columns", "sem", std::nullopt, true, false, sem::Kernel::Columns, false},
    {"sem:atomic:stored", "sem:atomic:stored", "sem", std::nullopt, true, true, sem::Kernel::Auto, false},
    {"partitioned", "partitioned:aligned", "partitioned", partition::Partitioner::Aligned, false, false,
     sem::Kernel::Auto, false},
    {"matrix_free", "matrix_free", "matrix_free", std::nullopt, false, false, sem::Kernel::Auto, true},
    {"matrix_free:atomic", "matrix_free:atomic", "matrix_free", std::nullopt, true, false, sem::Kernel::Auto, true},
    {"matrix_free:tiles32", "matrix_free:tiles32", "matrix_free", std::nullopt, true, false, sem::Kernel::Auto, false, 32},
    {"matrix_free:tiles64", "matrix_free:tiles64", "matrix_free", std::nullopt, true, false, sem::Kernel::Auto, false, 64},
    {"matrix_free:tiles128", "matrix_free:tiles128", "matrix_free", std::nullopt, true, false, sem::Kernel::Auto, false,
     128},
    {"matrix_free:tiles256", "matrix_free:tiles256", "matrix_free", std::nullopt, true, false, sem::Kernel::Auto, false,
     256},
}};

std::optional<OperatorChoice> parse_operator(const std::string& name) {
  for (const Variant& v : variants)
    if (v.name == name)
      return OperatorChoice{std::string(v.reported), std::string(v.kind), v.partitioner, v.atomic, v.stored, v.kernel,
                            v.tile};
  if (!explicit_fe::operators().find(name)) return std::nullopt;
  return OperatorChoice{name, name, std::nullopt};
}

}  // namespace

bool is_operator(const std::string& name) { return parse_operator(name).has_value(); }

std::string operator_names() {
  std::string names;
  for (const std::string& kind : explicit_fe::operators().names()) names += (names.empty() ? "" : ", ") + kind;
  for (const Variant& v : variants)
    if (!explicit_fe::operators().find(std::string(v.name))) names += str(", ", v.name);
  return names;
}

namespace {

// The operators of a run: those asked for (duplicates dropped), or every kind the backend runs
// with the partitioned one under both partitioners and sem in its three variants.
std::vector<OperatorChoice> operator_choices(const std::vector<std::string>& asked, Backend backend) {
  std::vector<std::string> names = asked;
  if (names.empty())
    for (const std::string& kind : explicit_fe::operators().names(backend)) {
      const std::size_t before = names.size();
      for (const Variant& v : variants)
        if (v.kind == kind && v.by_default) names.emplace_back(v.name);
      if (names.size() == before) names.push_back(kind);  // a kind without variants
    }
  const auto runnable = explicit_fe::operators().names(backend);
  std::vector<OperatorChoice> out;
  for (const std::string& name : names) {
    const auto choice = parse_operator(name);
    TREMOR_CHECK(choice, "--operators: '", name, "' is not an operator: expected one of ", operator_names());
    TREMOR_CHECK(std::find(runnable.begin(), runnable.end(), choice->kind) != runnable.end(), "--operators: ",
                 name, " does not run on the ", to_string(backend), " backend");
    if (std::none_of(out.begin(), out.end(), [&](const OperatorChoice& c) { return c.name == choice->name; }))
      out.push_back(*choice);
  }
  return out;
}

struct Problem {
  std::string name, description;
  Model model;
  bool from_file = false;
  bool gll = false;  // GLL hexahedra: the stable step from explicit_fe::stable_step on the run's Exec
};

// The standard problems at `scale` x their DOF count (cells scale with its square or cube root).
//   tri2d  2D plane-strain steel, tri3 (perturbed_triangles: random diagonals, jittered nodes,
//          random node numbering), ~2M DOF: the size of the pogo paper's weld model.
//   hex8   3D aluminium plate, 4 hex8 through its thickness, ~10M DOF, the generator's numbering.
//   tet4   3D steel block, tet4 (perturbed_tetrahedra: 6 per cell, jittered nodes, random node
//          numbering), ~5M DOF.
// The unstructured two are numbered as a mesher might leave them, with no locality: the "none"
// ordering is then the poor case that RCM or the block order repair.
Problem make_problem(const std::string& name, double scale) {
  constexpr std::uint64_t seed = 20260101;  // fixed: every run times the same meshes
  Problem p;
  p.name = name;
  Model& model = p.model;
  model.source = "tremor bench " + name;
  const auto cells = [&](double full, double root) {
    return std::max<Size>(2, static_cast<Size>(std::llround(full * std::pow(scale, 1.0 / root))));
  };
  if (name == "tri2d") {
    const Size n = cells(1000, 2);  // (n + 1)^2 nodes x 2 DOF
    model.mesh = perturbed_triangles({0.05, 0.05}, {n, n}, seed);
    model.materials.push_back(Material::from_youngs("steel", 210e9, 0.3, 7850.0));
    model.sections.push_back({"all", "steel", Formulation::PlaneStrain, 1.0});
    p.description = str("2D tri3 ", n, " x ", n, " cells x 2, perturbed, random numbering");
  } else if (name == "hex8") {
    const Size n = cells(816, 2);  // (n + 1)^2 x 5 nodes x 3 DOF
    model.mesh = generate_box({0, 0, 0}, {0.5e-3 * double(n), 0.5e-3 * double(n), 2e-3}, {n, n, 4}, ElementType::Hex8);
    model.materials.push_back(Material::from_youngs("aluminium", 70e9, 0.33, 2700.0));
    model.sections.push_back({"all", "aluminium", Formulation::Solid, 1.0});
    p.description = str("3D hex8 plate ", n, " x ", n, " x 4 cells");
  } else if (name == "tet4") {
    const Size n = cells(118, 3);  // (n + 1)^3 nodes x 3 DOF
    model.mesh = perturbed_tetrahedra({0.05, 0.05, 0.05}, {n, n, n}, seed);
    model.materials.push_back(Material::from_youngs("steel", 210e9, 0.3, 7850.0));
    model.sections.push_back({"all", "steel", Formulation::Solid, 1.0});
    p.description = str("3D tet4 block ", n, "^3 cells x 6, perturbed, random numbering");
  } else if (name.size() == 4 && name.starts_with("gll") && name[3] >= '1' && name[3] <= '8') {
    // A 2 mm aluminium plate of cubic GLL elements of order P, ceil(4 / P) through the thickness
    // (4 hex8 layers' worth of nodes at P = 1), n x n in the plane: 3 (P n + 1)^2 (P nz + 1) DOF,
    // ~20M at scale 1.
    const int order = name[3] - '0';
    const Size nz = (4 + order - 1) / order, layers = order * nz + 1;
    const double side = std::sqrt(20e6 * scale / (3.0 * double(layers)));
    const Size n = std::max<Size>(2, static_cast<Size>(std::llround((side - 1.0) / order)));
    const double h = 2e-3 / double(nz);
    model.mesh = generate_box({0, 0, 0}, {h * double(n), h * double(n), 2e-3}, {n, n, nz}, ElementType::HexGLL, order);
    model.materials.push_back(Material::from_youngs("aluminium", 70e9, 0.33, 2700.0));
    model.sections.push_back({"all", "aluminium", Formulation::Solid, 1.0});
    p.description = str("3D hex-gll", order, " plate ", n, " x ", n, " x ", nz, " cells");
    p.gll = true;
  } else {
    throw Error(str("unknown benchmark problem '", name, "': expected tri2d, hex8, tet4 or gll1 .. gll8"));
  }
  model.validate();
  return p;
}

Problem load_problem(const std::string& path) {
  Problem p;
  p.name = path;
  p.model = io::load_model(path);
  p.from_file = true;
  // GLL hexahedra of order 2 and more: the global stable step, as for the gll problems (the
  // element bound's eigenvalue problem per element is slow there, and 2x too small).
  p.gll = explicit_fe::global_stable_step(p.model.mesh);
  std::set<std::string> types;
  for (const auto& block : p.model.mesh.blocks) types.insert(element_name(block.type, block.order));
  std::string type_list;
  for (const auto& t : types) type_list += (type_list.empty() ? "" : ", ") + t;
  p.description = str("model file, ", p.model.mesh.dim(), "D ", type_list);
  return p;
}

// A standard problem by its name, else the model file of that path.
Problem problem_named(const std::string& name, double scale) {
  const std::vector<std::string>& standard = standard_problems();
  return std::find(standard.begin(), standard.end(), name) != standard.end() ? make_problem(name, scale)
                                                                              : load_problem(name);
}

// What one ordering of a problem cost to set up, and its figures.
struct OrderingSetup {
  std::string ordering;
  double order_seconds = 0.0;  // RCM, or the aligned partition of the block order; renumbering included
  double colouring_seconds = 0.0, assemble_seconds = 0.0, mass_seconds = 0.0;
  Index bandwidth = 0;  // max |i - j| over the node graph's edges in this numbering
  long long nnz = 0;
  std::string error;  // set when the ordering could not be set up
  double seconds() const { return order_seconds + colouring_seconds + assemble_seconds + mass_seconds; }
};

struct ProblemSetup {
  std::string name, description;
  Index nodes = 0, dofs = 0, elements = 0;
  long long graph_entries = 0;
  double generate_seconds = 0.0, graph_seconds = 0.0;
  std::vector<OrderingSetup> orderings;
};

// The block layout of a partitioned case (pogo paper section 3, Table 2).
struct PartitionRecord {
  std::string partitioner;
  bool reused = false;  // the block order's own partition, renumbered with the mesh
  int block_size = 0, links = 0, passes = 0;
  Index blocks = 0, initial_blocks = 0, splits = 0;
  double efficiency = 0.0;
  double partition_seconds = 0.0;  // node graph, partitioner and memory arrangement (stages 1 and 2)
  double arrange_seconds = 0.0;    // of which the memory arrangement with its splits
  double layout_seconds = 0.0;     // the operator's arrays from K and the partition, copied to the device
  std::size_t traffic_bytes = 0;   // per apply, counted as the paper's Appendix A does
};

struct Case {
  std::string problem, ordering, operator_name, precision;
  Index dofs = 0;
  int shots = 1;  // stepped together (CentralDifference's columns): DOF-steps count every shot's
  int steps = 0;
  double operator_seconds = 0.0, setup_seconds = 0.0, seconds = 0.0;
  std::size_t operator_bytes = 0, counted_bytes = 0;  // per step
  double flops = 0.0;                                 // per step, counted (0: the operator does not count)
  std::size_t device_bytes = 0;                       // the Exec's memory the case holds: operator, elements, state
  std::string details;                                // the operator's storage (padding)
  std::optional<PartitionRecord> partition;
  double ms_per_step() const { return 1e3 * seconds / steps; }
  double gdof_steps() const { return 1e-9 * double(dofs) * shots * steps / seconds; }
  double gbytes_per_second() const { return 1e-9 * double(counted_bytes) * steps / seconds; }
  double flops_per_second() const { return flops * steps / seconds; }
  double percent_of_peak(double peak) const { return 100.0 * flops_per_second() / peak; }
  // The roofline's time per step: the counted bytes at the copy bandwidth or the counted flops at
  // the multiply-add peak of the case's precision, whichever is longer; as a percentage of the
  // measured time.
  double percent_of_roofline(double bytes_per_second, double peak) const {
    const double bound = std::max(double(counted_bytes) / bytes_per_second, peak > 0.0 ? flops / peak : 0.0);
    return 100.0 * bound * steps / seconds;
  }
};

struct CaseFailure {
  std::string problem, ordering, operator_name, precision, error;
};

// Everything the cases of one problem in one ordering share.
struct CaseInputs {
  const Model& model;
  const fem::SectionTable& table;
  const fem::ElementColouring& colouring;
  const sparse::CsrMatrix& K;
  const std::vector<double>& mass;
  double dt = 0.0;
  // The block order's aligned partition, for this numbering (only with ordering "block").
  const partition::BlockPartition* block_partition = nullptr;
  double block_partition_seconds = 0.0;
  // Partitions made for this numbering, by partitioner: the second precision lays out the same
  // blocks (the partition does not depend on it) instead of partitioning again.
  std::map<partition::Partitioner, partition::BlockPartition>* partitions = nullptr;
};

template <class Real>
std::unique_ptr<op::Operator<Real>> build_operator(const OperatorChoice& choice, const Exec& exec,
                                                                     const CaseInputs& in, Case& c) {
  // An attenuating model's memory variables, stepped as a run steps them (only the kinds that
  // keep them: the others are refused, naming those).
  const double memory_dt = in.table.attenuates() ? in.dt : 0.0;
  if (memory_dt > 0.0) explicit_fe::check_memory_variables(*explicit_fe::operators().find(choice.kind), in.model);
  if (choice.atomic && choice.kind == "matrix_free") {  // in tiles, as a run takes them: on a GPU with
    // atomic adds (no colour lists), on the host colour by colour (deterministic, with colour lists)
    const bool host = exec.backend() != Backend::Cuda;
    return std::make_unique<explicit_fe::MatrixFreeOperator<Real>>(
        exec,
        std::make_shared<const fem::DeviceElements>(exec, in.model.mesh, in.table,
                                                    host ? in.colouring : fem::ElementColouring{}),
        host, choice.tile);
  }
  if (choice.atomic)  // the elements without colour lists: sem scatters with atomics
    return std::make_unique<sem::SemOperator<Real>>(
        std::make_shared<const fem::DeviceElements>(exec, in.model.mesh, in.table, fem::ElementColouring{}), false,
        choice.stored ? sem::Geometry::Stored : sem::Geometry::Auto, choice.kernel, memory_dt);
  if (choice.stored)
    return std::make_unique<sem::SemOperator<Real>>(
        std::make_shared<const fem::DeviceElements>(exec, in.model.mesh, in.table, in.colouring), true,
        sem::Geometry::Stored, sem::Kernel::Auto, memory_dt);
  if (memory_dt > 0.0 && choice.kind == "sem")
    return std::make_unique<sem::SemOperator<Real>>(
        std::make_shared<const fem::DeviceElements>(exec, in.model.mesh, in.table, in.colouring), true,
        sem::Geometry::Auto, sem::Kernel::Auto, memory_dt);
  if (!choice.partitioner)
    return explicit_fe::make_stiffness_operator<Real>(in.model, choice.kind, exec, in.table, in.colouring, in.K);
  // The block order was made by the aligned partitioner: its partition, renumbered with the mesh,
  // is the one whose u reads are contiguous; partitioning again could give another.
  const bool reuse = in.block_partition != nullptr && *choice.partitioner == partition::Partitioner::Aligned;
  const auto made = in.partitions->find(*choice.partitioner);
  const bool again = !reuse && made != in.partitions->end();  // made for the other precision
  partition::PartitionOptions options;
  options.partitioner = *choice.partitioner;
  const auto start = Clock::now();
  auto op = reuse   ? std::make_unique<explicit_fe::PartitionedOperator<Real>>(exec, in.K, in.model.mesh,
                                                                               *in.block_partition)
            : again ? std::make_unique<explicit_fe::PartitionedOperator<Real>>(exec, in.K, in.model.mesh, made->second)
                    : std::make_unique<explicit_fe::PartitionedOperator<Real>>(exec, in.K, in.model.mesh, options);
  exec.synchronize();
  if (!reuse && !again) in.partitions->emplace(*choice.partitioner, op->partition());
  const double seconds = seconds_since(start);
  const partition::BlockPartition& blocks = op->partition();
  PartitionRecord r;
  r.partitioner = blocks.partitioner;
  r.reused = reuse;
  r.block_size = blocks.layout.block_size;
  r.links = op->matrix().links();
  r.blocks = blocks.n_blocks;
  r.initial_blocks = blocks.stats.initial_blocks;
  r.splits = blocks.stats.split_blocks;
  r.passes = blocks.stats.arrange_passes;
  r.efficiency = blocks.efficiency();
  r.arrange_seconds = blocks.stats.arrange_seconds;
  if (reuse) {
    r.partition_seconds = in.block_partition_seconds;
    r.layout_seconds = seconds;
  } else if (again) {  // the partition's own times, from when it was made
    r.partition_seconds = blocks.stats.partition_seconds + blocks.stats.arrange_seconds;
    r.layout_seconds = seconds;
  } else {
    r.partition_seconds = blocks.stats.partition_seconds + blocks.stats.arrange_seconds;
    r.layout_seconds = std::max(0.0, seconds - r.partition_seconds);
  }
  r.traffic_bytes = op->traffic_bytes();
  c.partition = r;
  return op;
}

template <class Real>
void time_case(const OperatorChoice& choice, const Exec& exec, const CaseInputs& in, const OperatorArgs& args,
               Case& c, int shots) {
  const Model& model = in.model;
  const std::size_t held_before = exec.account().usage(exec.space()).current;
  const auto setup = Clock::now();
  const auto stiffness = build_operator<Real>(choice, exec, in, c);
  exec.synchronize();
  c.operator_seconds = seconds_since(setup);
  const int dim = model.mesh.dim();
  explicit_fe::CentralDifference<Real> scheme(exec, *stiffness, in.mass, {}, in.dt, {}, dim, shots);
  // A smooth field, so the values are neither zero nor denormal; every shot's the same, shifted.
  std::vector<Real> u0(static_cast<std::size_t>(scheme.field_size()));
  for (Index i = 0; i < model.mesh.n_nodes(); ++i)
    for (int d = 0; d < dim; ++d)
      for (int s = 0; s < shots; ++s)
        u0[static_cast<std::size_t>((i * dim + d) * shots + s)] =
            static_cast<Real>(1e-9 * std::sin(1e3 * model.mesh.node(i)[d] + d + s));
  scheme.set_state(u0, u0, 0);
  exec.synchronize();
  c.setup_seconds = seconds_since(setup);
  c.dofs = stiffness->n_dofs();
  c.shots = shots;
  c.operator_bytes = stiffness->bytes();
  c.details = stiffness->details();
  // Per DOF: the apply reads u and writes K u; the update (undamped, unloaded) reads K u, U_prev and
  // U_curr, writes U_next and, for an operator that adds into K u, zeroes it; A is read per node
  // (per DOF where a node's components differ).
  // Shots stepped together: the vectors of each, the operator's data once where it fuses them (else
  // once per shot), A once.
  const std::size_t vectors = stiffness->adds() ? 7 : 6;
  const auto each = static_cast<std::size_t>(shots);
  c.counted_bytes = c.operator_bytes * (shots > 1 && !stiffness->fuses_batch() ? each : 1) +
                    each * vectors * static_cast<std::size_t>(c.dofs) * sizeof(Real) +
                    static_cast<std::size_t>(c.dofs / scheme.coefficient_dofs()) * sizeof(Real);
  // The fused update: a (0 - K u) + c' u_prev + k'' u_curr, 6 flops per DOF.
  if (stiffness->flops() > 0.0) c.flops = double(shots) * (stiffness->flops() + 6.0 * double(c.dofs));
  const std::size_t held = exec.account().usage(exec.space()).current;
  c.device_bytes = held > held_before ? held - held_before : 0;
  // `warmup` untimed steps, then runs of `steps` steps.
  for (int k = 0; k < args.warmup; ++k) scheme.step({}, {});
  exec.synchronize();
  const std::vector<double> runs = repeat_timed(1, args.min_seconds, [&] {
    const auto start = Clock::now();
    for (int k = 0; k < args.steps; ++k) scheme.step({}, {});
    exec.synchronize();
    return seconds_since(start);
  });
  c.steps = args.steps * int(runs.size());
  c.seconds = std::accumulate(runs.begin(), runs.end(), 0.0);
}

// --dry-run: the problems' sizes, without assembling or timing (K's non-zeros from the node graph:
// dim^2 per graph entry, the node itself included).
void print_sizes(const OperatorArgs& args, const std::vector<std::string>& problems) {
  for (const std::string& name : problems) {
    const auto start = Clock::now();
    const Problem p = problem_named(name, args.scale);
    const double generate = seconds_since(start);
    const NodeGraph graph = node_graph(p.model.mesh);
    const int dim = p.model.mesh.dim();
    std::printf("problem %-6s %s: %s nodes, %s elements, %s DOF, %s non-zeros of K (%s in %.1f s)\n",
                p.name.c_str(), p.description.c_str(), group_digits(p.model.mesh.n_nodes()).c_str(),
                group_digits(p.model.mesh.n_elements()).c_str(),
                group_digits(static_cast<long long>(p.model.mesh.n_nodes()) * dim).c_str(),
                group_digits(static_cast<long long>(graph.n_entries()) * dim * dim).c_str(),
                p.from_file ? "read" : "generated", generate);
  }
}

// A problem's model in one node ordering: the problem's own for "none", a renumbered copy
// otherwise; for "block" also the partition that made the order, renumbered with the mesh.
struct OrderedModel {
  std::optional<Model> renumbered;
  std::optional<partition::BlockPartition> block_partition;
  double block_partition_seconds = 0.0;
  const Model& model(const Problem& problem) const { return renumbered ? *renumbered : problem.model; }
};

// What the cases of one ordering are built from, set up on the host (the stable step on the Exec
// for GLL meshes).
struct OrderingData {
  fem::SectionTable table;
  fem::ElementColouring colouring;
  sparse::CsrMatrix K;
  std::vector<double> mass;
  double dt = 0.0;
};

// The host's multiply-add peak in Real: each of `threads` OpenMP threads runs 12 independent
// chains of 512-bit vectors (the width of the host kernels' batches, explicit/matrix_free_host.hpp),
// compiled as those are for AVX-512, AVX2 and the baseline, the CPU's taken at run time. The
// backend's measure_fma_rate times scalar chains, a GPU thread's work: on the host a fraction of
// what the SIMD kernels reach.
template <class Real>
__attribute__((target_clones("avx512f", "avx2", "default"))) Real simd_multiply_adds(long steps, Real seed) {
  typedef Real V __attribute__((vector_size(64)));
  constexpr int chains = 12;
  V acc[chains];
  const V a = V{} + Real(0.5), b = V{} + seed;  // acc -> 2 seed: no overflow, no subnormal
  for (int k = 0; k < chains; ++k) acc[k] = V{} + seed * Real(k + 1);
  for (long s = 0; s < steps; ++s)
    for (int k = 0; k < chains; ++k) acc[k] = acc[k] * a + b;
  Real total = 0;
  for (int k = 0; k < chains; ++k)
    for (std::size_t l = 0; l < 64 / sizeof(Real); ++l) total += acc[k][l];
  return total;
}

template <class Real>
FmaRate host_fma_rate(int threads, int repeats = 5) {
  constexpr long steps = 1L << 20;
  FmaRate result;
  result.flops = 2.0 * 12 * double(64 / sizeof(Real)) * double(steps) * threads;
  result.repeats = repeats;
  result.seconds = std::numeric_limits<double>::infinity();
  volatile Real sink = 0;  // the sums used: the chains cannot be dropped
  for (int r = 0; r <= repeats; ++r) {  // the first untimed: clocks up
    const auto start = Clock::now();
#pragma omp parallel num_threads(threads)
    {
      const Real sum = simd_multiply_adds<Real>(steps, Real(1e-3));
#pragma omp critical
      sink = sink + sum;
    }
    if (r > 0) result.seconds = std::min(result.seconds, seconds_since(start));
  }
  return result;
}

// A run of the benchmark: its Exec and operators, the ceilings measured, the problems' set-ups and
// the cases timed and failed.
struct OperatorBench {
  const OperatorArgs& args;
  Exec exec;
  std::vector<OperatorChoice> operators;
  Exec host;
  bool assembled;  // whether an operator needs K
  CopyBandwidth copy;
  FmaRate fma_float, fma_double;
  std::vector<Case> cases;
  std::vector<ProblemSetup> setups;
  std::vector<CaseFailure> failures;

  explicit OperatorBench(const OperatorArgs& args_)
      : args(args_),
        exec(Exec::make(parse_backend(args.backend))),
        operators(operator_choices(args.operators, exec.backend())),
        host(host_exec(exec)),
        assembled(std::any_of(operators.begin(), operators.end(), [](const OperatorChoice& choice) {
          return explicit_fe::operators().find(choice.kind)->needs_assembly;
        })) {}

  // The copy bandwidth and the multiply-add peak of each precision, said on the console.
  void measure_ceilings() {
    copy = measure_copy(exec, args.copy_mb);
    std::printf("device            %s (%d thread%s), host CPU %s\n", exec.describe().c_str(), host_threads(exec),
                host_threads(exec) == 1 ? "" : "s", cpu_model().c_str());
    std::printf("copy bandwidth    %.1f GB/s (a %zu MB array, fastest of %d copies)\n", 1e-9 * copy.bytes_per_second(),
                copy.bytes >> 20, copy.repeats);
    // The compute roofline: on a GPU several times the threads it holds at once; on the host SIMD
    // chains on each thread.
    if (exec.backend() == Backend::Cuda) {
      fma_float = measure_fma_rate<float>(exec, Index(1) << 22);
      fma_double = measure_fma_rate<double>(exec, Index(1) << 22);
    } else {
      fma_float = host_fma_rate<float>(host_threads(exec));
      fma_double = host_fma_rate<double>(host_threads(exec));
    }
    std::printf("multiply-add peak %.3g TFLOP/s float, %.3g TFLOP/s double (fastest of %d runs)\n",
                1e-12 * fma_float.flops_per_second(), 1e-12 * fma_double.flops_per_second(), fma_float.repeats);
  }

  double peak(const Case& c) const {
    return c.precision == "float" ? fma_float.flops_per_second() : fma_double.flops_per_second();
  }
  // The case's flop rate as a percentage of the peak, or "-" where either is unknown.
  std::string percent_of_peak(const Case& c) const {
    return c.flops > 0.0 && peak(c) > 0.0 ? fixed(c.percent_of_peak(peak(c)), 1) : "-";
  }

  // --- the cases ------------------------------------------------------------------------------------
  // A problem made or read, its node graph, and every ordering's cases.
  void run_problem(const std::string& name) {
    ProblemSetup setup;
    auto start = Clock::now();
    Problem problem = problem_named(name, args.scale);
    setup.generate_seconds = seconds_since(start);
    setup.name = problem.name;
    setup.description = problem.description;
    const Mesh& mesh = problem.model.mesh;
    setup.nodes = mesh.n_nodes();
    setup.dofs = mesh.n_nodes() * mesh.dim();
    setup.elements = mesh.n_elements();
    // The node graph serves K's pattern, the orderings and the bandwidth: a run of element-by-
    // element operators in the mesh's own numbering does without (at high GLL order it is large).
    const bool graph_needed =
        assembled || std::any_of(args.orderings.begin(), args.orderings.end(), [](const std::string& o) { return o != "none"; });
    start = Clock::now();
    const NodeGraph graph = graph_needed ? node_graph(mesh) : NodeGraph{};
    setup.graph_seconds = seconds_since(start);
    setup.graph_entries = graph_needed ? static_cast<long long>(graph.n_entries()) : 0;
    std::printf("\nproblem %-6s %s: %s nodes, %s elements, %s DOF; %s in %.2f s, node graph %.2f s\n",
                name.c_str(), problem.description.c_str(), group_digits(setup.nodes).c_str(),
                group_digits(setup.elements).c_str(), group_digits(setup.dofs).c_str(),
                problem.from_file ? "read" : "generated", setup.generate_seconds, setup.graph_seconds);
    for (const std::string& ordering : args.orderings) run_ordering(name, problem, graph, graph_needed, ordering, setup);
    setups.push_back(std::move(setup));
  }

  // One ordering of a problem: set up, recorded in `setup`, and its cases timed; a failure to set
  // it up recorded as the ordering's.
  void run_ordering(const std::string& name, const Problem& problem, const NodeGraph& graph, bool graph_needed,
                    const std::string& ordering, ProblemSetup& setup) {
    OrderingSetup os;
    os.ordering = ordering;
    bool recorded = false;
    try {
      const OrderedModel ordered = order_nodes(problem, graph, graph_needed, ordering, setup.graph_seconds, os);
      const Model& model = ordered.model(problem);
      const OrderingData data = set_up_ordering(model, problem.gll, os);
      std::printf("ordering %-6s %s non-zeros, half-bandwidth %s nodes; order %.2f s, colouring %.2f s, K %.2f s, "
                  "mass %.2f s\n",
                  ordering.c_str(), group_digits(os.nnz).c_str(), group_digits(os.bandwidth).c_str(), os.order_seconds,
                  os.colouring_seconds, os.assemble_seconds, os.mass_seconds);
      setup.orderings.push_back(os);
      recorded = true;
      std::map<partition::Partitioner, partition::BlockPartition> partitions;
      const CaseInputs inputs{model,
                              data.table,
                              data.colouring,
                              data.K,
                              data.mass,
                              data.dt,
                              ordered.block_partition ? &*ordered.block_partition : nullptr,
                              ordered.block_partition_seconds,
                              &partitions};
      for (const OperatorChoice& choice : operators)
        for (const std::string& precision : args.precisions) {
          // Kinds for other element types (sem) are left out unless asked for (then their refusal is recorded).
          const op::OperatorEntry& entry = *explicit_fe::operators().find(choice.kind);
          if (args.operators.empty() && !entry.takes(model.mesh)) continue;
          // and, for an attenuating model, kinds that keep no memory variables.
          if (args.operators.empty() && data.table.attenuates() && !entry.carries_memory_variables) continue;
          run_case(name, ordering, choice, precision, inputs);
        }
    } catch (const std::exception& e) {
      std::printf("ordering %-6s failed: %s\n", ordering.c_str(), e.what());
      os.error = e.what();
      if (!recorded) setup.orderings.push_back(os);
      failures.push_back({name, ordering, "", "", e.what()});
    }
  }

  // The problem's nodes renumbered in `ordering`; the cost and the half-bandwidth into `os`.
  static OrderedModel order_nodes(const Problem& problem, const NodeGraph& graph, bool graph_needed,
                                  const std::string& ordering, double graph_seconds, OrderingSetup& os) {
    OrderedModel out;
    std::vector<Index> new_to_old;
    const auto start = Clock::now();
    if (ordering == "rcm") {
      new_to_old = reverse_cuthill_mckee(graph);
      out.renumbered = renumber_nodes(problem.model, new_to_old);
    } else if (ordering == "block") {
      partition::BlockPartition blocks = partition::partition_mesh(problem.model.mesh, graph, {});
      // As the operator's own partitioning counts it: the node graph, the partitioner, the arrangement.
      out.block_partition_seconds = graph_seconds + blocks.stats.partition_seconds + blocks.stats.arrange_seconds;
      new_to_old = blocks.node_order();
      out.renumbered = renumber_nodes(problem.model, new_to_old);
      os.order_seconds = seconds_since(start);
      // Not part of the order's cost: the check the partitioned operator repeats on its input.
      out.block_partition = partition::renumbered(std::move(blocks), new_to_old, node_graph(out.renumbered->mesh));
    }
    if (ordering != "block") os.order_seconds = seconds_since(start);
    if (new_to_old.empty()) {
      new_to_old.resize(static_cast<std::size_t>(problem.model.mesh.n_nodes()));
      std::iota(new_to_old.begin(), new_to_old.end(), Index(0));
    }
    os.bandwidth = graph_needed ? bandwidth(graph, new_to_old) : 0;
    return out;
  }

  // The section table, colouring, K (when an operator needs it), lumped mass and stable step of
  // `model`; their times into `os`.
  OrderingData set_up_ordering(const Model& model, bool gll, OrderingSetup& os) const {
    // The generated GLL plates are valid by construction: the host's geometry check, O((P + 1)^6)
    // per element, would take minutes at order 8 (a run checks on its Exec, in the survey).
    OrderingData data{fem::section_table(model, !gll), {}, {}, {}, 0.0};
    auto start = Clock::now();
    data.colouring = fem::colour_elements(model.mesh);
    os.colouring_seconds = seconds_since(start);
    start = Clock::now();
    if (assembled) data.K = sparse::assemble_stiffness(model, data.table, data.colouring, host);
    os.assemble_seconds = seconds_since(start);
    os.nnz = static_cast<long long>(data.K.nnz());
    start = Clock::now();
    data.mass = sparse::assemble_lumped_mass(model, data.table, data.colouring, host);
    os.mass_seconds = seconds_since(start);
    // A GLL mesh's step comes from the largest eigenvalue of M^-1 K on the Exec (seconds); the
    // host's element-by-element bound would power-iterate every element of order up to 8.
    data.dt = 0.9 * (gll ? explicit_fe::stable_step(model, exec).dt : fem::stable_time_step(model).dt);
    return data;
  }

  // One operator in one precision timed, printed and recorded, or its failure.
  void run_case(const std::string& name, const std::string& ordering, const OperatorChoice& choice,
                const std::string& precision, const CaseInputs& inputs) {
    // One shot; with --shots K, K stepped together as well.
    for (const int shots : args.shots > 1 ? std::vector<int>{1, args.shots} : std::vector<int>{1}) {
      Case c;
      c.problem = name;
      c.ordering = ordering;
      c.operator_name = choice.name;
      c.precision = precision;
      try {
        if (precision == "float")
          time_case<float>(choice, exec, inputs, args, c, shots);
        else
          time_case<double>(choice, exec, inputs, args, c, shots);
      } catch (const std::exception& e) {
        std::printf("  %-19s %-6s failed: %s\n", choice.name.c_str(), precision.c_str(), e.what());
        failures.push_back({name, ordering, choice.name, precision, e.what()});
        return;
      }
      print_case(c);
      cases.push_back(c);
    }
  }

  void print_case(const Case& c) const {
    const char* name = c.operator_name.c_str();
    const char* precision = c.precision.c_str();
    std::printf("  %-19s %-6s %9.3f ms/step %7.3f GDOF-steps/s %8.1f GB/s (%5.1f%% of copy)  setup %.2f s%s%s\n",
                name, precision, c.ms_per_step(), c.gdof_steps(), c.gbytes_per_second(),
                percent_of_copy(c.gbytes_per_second(), copy), c.setup_seconds, c.details.empty() ? "" : "  ",
                c.details.c_str());
    if (c.shots > 1) {
      const Case* alone = find_case(c, c.ordering, c.operator_name, 1);
      std::printf("  %-19s %-6s %d shots stepped together: %.2fx the DOF-steps/s of one after another\n", "", "",
                  c.shots, alone ? c.gdof_steps() / alone->gdof_steps() : 0.0);
    }
    if (c.flops > 0.0)
      std::printf("  %-19s %-6s %.0f flops/DOF-step, %.3g TFLOP/s (%s%% of the multiply-add peak), %.1f%% of "
                  "the roofline; %.0f B of device memory per DOF\n",
                  "", "", c.flops / double(c.dofs), 1e-12 * c.flops_per_second(), percent_of_peak(c).c_str(),
                  c.percent_of_roofline(copy.bytes_per_second(), peak(c)), double(c.device_bytes) / double(c.dofs));
    if (c.partition) {
      const PartitionRecord& r = *c.partition;
      std::printf("  %-19s %-6s %s blocks of %d (%s split), eta %.4f; partition %.2f s%s (arrangement %.2f s), "
                  "layout %.2f s\n",
                  "", "", group_digits(r.blocks).c_str(), r.block_size, group_digits(r.splits).c_str(), r.efficiency,
                  r.partition_seconds, r.reused ? ", the block order's" : "", r.arrange_seconds, r.layout_seconds);
    }
    std::fflush(stdout);
  }

  // --- the report -----------------------------------------------------------------------------------
  // The case of `operator_name` in `ordering` on c's problem and precision, null when it did not run.
  const Case* find_case(const Case& c, const std::string& ordering, const std::string& operator_name,
                        int shots = 1) const {
    for (const Case& b : cases)
      if (b.operator_name == operator_name && b.problem == c.problem && b.ordering == ordering &&
          b.precision == c.precision && b.shots == shots)
        return &b;
    return nullptr;
  }

  // Throughput relative to cuSPARSE CSR on the same problem, ordering and precision, when it ran.
  double baseline(const Case& c) const {
    const Case* b = find_case(c, c.ordering, "cusparse");
    return b ? c.gdof_steps() / b->gdof_steps() : 0.0;
  }

  void write_json_head(std::ostream& json, const RunRecord& run) const {
    json << "{\n  \"benchmark\": \"explicit time step\",\n  \"device\": " << json_string(exec.describe())
         << ",\n  \"backend\": " << json_string(std::string(to_string(exec.backend())))
         << ",\n  \"threads\": " << host_threads(exec);
    run.json_machine(json);
    run.json_provenance(json);
    json << ",\n  \"scale\": " << args.scale << ",\n  \"steps\": " << args.steps
         << ",\n  \"warmup_steps\": " << args.warmup << ",\n  \"min_seconds\": " << args.min_seconds
         << ",\n  \"copy_bandwidth_GBps\": " << 1e-9 * copy.bytes_per_second()
         << ",\n  \"fma_peak_TFLOPs\": {\"float\": " << 1e-12 * fma_float.flops_per_second()
         << ", \"double\": " << 1e-12 * fma_double.flops_per_second() << "}";
  }

  // The JSON's "problems" (descriptions) and "setup" (sizes and times, per ordering).
  void write_setups_json(std::ostream& json) const {
    json << ",\n  \"problems\": {";
    for (std::size_t i = 0; i < setups.size(); ++i)
      json << (i == 0 ? "\n" : ",\n") << "    " << json_string(setups[i].name) << ": "
           << json_string(setups[i].description);
    json << "\n  },\n  \"setup\": {";
    for (std::size_t i = 0; i < setups.size(); ++i) {
      const ProblemSetup& s = setups[i];
      json << (i == 0 ? "\n" : ",\n") << "    " << json_string(s.name) << ": {\"nodes\": " << s.nodes
           << ", \"dofs\": " << s.dofs << ", \"elements\": " << s.elements << ", \"graph_entries\": " << s.graph_entries
           << ", \"generate_seconds\": " << s.generate_seconds << ", \"graph_seconds\": " << s.graph_seconds
           << ", \"orderings\": {";
      for (std::size_t j = 0; j < s.orderings.size(); ++j) {
        const OrderingSetup& o = s.orderings[j];
        json << (j == 0 ? "\n" : ",\n") << "      " << json_string(o.ordering)
             << ": {\"order_seconds\": " << o.order_seconds << ", \"colouring_seconds\": " << o.colouring_seconds
             << ", \"assemble_seconds\": " << o.assemble_seconds << ", \"mass_seconds\": " << o.mass_seconds
             << ", \"setup_seconds\": " << o.seconds() << ", \"half_bandwidth\": " << o.bandwidth
             << ", \"nnz\": " << o.nnz;
        if (!o.error.empty()) json << ", \"error\": " << json_string(o.error);
        json << "}";
      }
      json << "}}";
    }
    json << "\n  }";
  }

  // Every case: the JSON's "cases" and the markdown's first table, under its head.
  void write_cases(std::ostream& json, std::ostream& md, const RunRecord& run) const {
    md << "Explicit time step on " << exec.describe() << ", " << run.date << ", commit " << run.commit
       << "; copy bandwidth " << std::lround(1e-9 * copy.bytes_per_second()) << " GB/s; multiply-add peak "
       << fixed(1e-12 * fma_float.flops_per_second(), 3) << " TFLOP/s float, "
       << fixed(1e-12 * fma_double.flops_per_second(), 3)
       << " double. Flops and the roofline (the counted bytes at the copy bandwidth or the counted flops at the peak, "
          "whichever takes longer) where the operator counts its flops; device memory: what the case holds, operator, "
          "elements and integrator, per DOF.\n\n";
    markdown_head(md, {"problem", "ordering", "DOF", "operator", "precision", "ms/step", "GDOF-steps/s",
                       "counted MB/step", "GB/s", "% of copy", "flops/DOF-step", "% of FMA peak", "% of roofline",
                       "device B/DOF", "x cuSPARSE"},
                  "llrllrrrrrrrrrr");
    json << ",\n  \"cases\": ";
    JsonArray entries(json, true);
    for (const Case& c : cases) {
      const double percent = percent_of_copy(c.gbytes_per_second(), copy);
      const double roofline = c.percent_of_roofline(copy.bytes_per_second(), peak(c));
      entries.next() << "{\"problem\": " << json_string(c.problem) << ", \"ordering\": " << json_string(c.ordering)
                     << ", \"dofs\": " << c.dofs << ", \"shots\": " << c.shots
                     << ", \"operator\": " << json_string(c.operator_name)
                     << ", \"precision\": " << json_string(c.precision) << ", \"steps\": " << c.steps
                     << ", \"seconds\": " << c.seconds << ", \"setup_seconds\": " << c.setup_seconds
                     << ", \"operator_seconds\": " << c.operator_seconds << ", \"ms_per_step\": " << c.ms_per_step()
                     << ", \"gdof_steps_per_second\": " << c.gdof_steps() << ", \"operator_bytes\": " << c.operator_bytes
                     << ", \"counted_bytes_per_step\": " << c.counted_bytes
                     << ", \"achieved_GBps\": " << c.gbytes_per_second() << ", \"percent_of_copy\": " << percent
                     << ", \"flops_per_step\": " << c.flops << ", \"percent_of_fma_peak\": "
                     << (peak(c) > 0.0 ? c.percent_of_peak(peak(c)) : 0.0)
                     << ", \"percent_of_roofline\": " << roofline << ", \"device_bytes\": " << c.device_bytes
                     << ", \"ratio_to_cusparse\": " << baseline(c) << ", \"storage\": " << json_string(c.details) << "}";
      markdown_row(md, {c.problem, c.ordering, str(c.dofs),
                        c.shots > 1 ? str(c.operator_name, ", ", c.shots, " shots together") : c.operator_name,
                        c.precision, fixed(c.ms_per_step(), 3),
                        fixed(c.gdof_steps(), 3), fixed(1e-6 * double(c.counted_bytes), 1),
                        fixed(c.gbytes_per_second(), 0), fixed(percent, 1),
                        c.flops > 0.0 ? fixed(c.flops / double(c.dofs), 0) : "-",
                        percent_of_peak(c), fixed(roofline, 1),
                        fixed(double(c.device_bytes) / double(c.dofs), 0),
                        baseline(c) > 0.0 ? fixed(baseline(c), 2) : "-"});
    }
    entries.close();
  }

  // The markdown's table of every problem's and ordering's set-up times.
  void write_setup_table(std::ostream& md) const {
    md << "\nSetup per problem and ordering (host: " << host.describe() << "), seconds: node ordering (RCM; for "
       << "\"block\" the aligned partition and the renumbering), element colouring, assembly of K, lumped mass.\n\n";
    markdown_head(md, {"problem", "ordering", "DOF", "non-zeros", "half-bandwidth", "generate", "node graph", "order",
                       "colouring", "K", "mass"},
                  "llrrrrrrrrr");
    for (const ProblemSetup& s : setups)
      for (const OrderingSetup& o : s.orderings)
        markdown_row(md, {s.name, o.ordering, str(s.dofs), str(o.nnz), str(o.bandwidth), fixed(s.generate_seconds, 2),
                          fixed(s.graph_seconds, 2), fixed(o.order_seconds, 2), fixed(o.colouring_seconds, 2),
                          fixed(o.assemble_seconds, 2), fixed(o.mass_seconds, 2)},
                     o.error.empty() ? "" : " failed: " + o.error);
  }

  // What a partitioned case adds before its first step: partition, layout, K, lumped mass, colouring.
  double preprocessing_seconds(const Case& c) const {
    const PartitionRecord& r = *c.partition;
    const ProblemSetup& s =
        *std::find_if(setups.begin(), setups.end(), [&](const ProblemSetup& p) { return p.name == c.problem; });
    const OrderingSetup& o = *std::find_if(s.orderings.begin(), s.orderings.end(),
                                           [&](const OrderingSetup& x) { return x.ordering == c.ordering; });
    return r.partition_seconds + r.layout_seconds + o.assemble_seconds + o.mass_seconds + o.colouring_seconds;
  }

  // The partitioned cases: the JSON's "partitioned" and the markdown's Table 2.
  void write_partitioned(std::ostream& json, std::ostream& md) const {
    md << "\nTable 2: the block-partitioned layout (pogo paper section 3) by partitioner. Partition: node graph, "
          "partitioner and memory arrangement with its splits; layout: the operator's arrays from K, on the device; "
          "pre-processing: partition + layout + K + lumped mass + colouring, what a run adds before its first step. "
          "cuSPARSE, ELL and block-ELL: the same problem and precision, cuSPARSE in the same ordering, the ELL formats "
          "in RCM order.\n\n";
    markdown_head(md, {"problem", "ordering", "partitioner", "precision", "block size", "blocks", "split", "eta",
                       "partition s", "layout s", "pre-processing s", "ms/step", "cuSPARSE ms/step", "x cuSPARSE",
                       "ELL rcm ms/step", "block-ELL rcm ms/step"},
                  "llllrrrrrrrrrrrr");
    const auto ms_or_dash = [](const Case* c) { return c ? fixed(c->ms_per_step(), 3) : std::string("-"); };
    const auto ms_or_null = [](const Case* c) { return c ? str(c->ms_per_step()) : std::string("null"); };
    json << ",\n  \"partitioned\": ";
    JsonArray entries(json, true);
    bool any_reused = false;
    for (const Case& c : cases) {
      if (!c.partition) continue;
      const PartitionRecord& r = *c.partition;
      const double preprocessing = preprocessing_seconds(c);
      const Case* cusparse = find_case(c, c.ordering, "cusparse");
      const Case* ell = find_case(c, "rcm", "ell");
      const Case* block_ell = find_case(c, "rcm", "block_ell");
      entries.next() << "{\"problem\": " << json_string(c.problem) << ", \"ordering\": " << json_string(c.ordering)
                     << ", \"operator\": " << json_string(c.operator_name)
                     << ", \"partitioner\": " << json_string(r.partitioner)
                     << ", \"precision\": " << json_string(c.precision) << ", \"dofs\": " << c.dofs
                     << ", \"block_size\": " << r.block_size << ", \"blocks\": " << r.blocks
                     << ", \"initial_blocks\": " << r.initial_blocks << ", \"split_blocks\": " << r.splits
                     << ", \"arrange_passes\": " << r.passes << ", \"links\": " << r.links
                     << ", \"efficiency\": " << r.efficiency
                     << ", \"reused_partition\": " << (r.reused ? "true" : "false")
                     << ", \"partition_seconds\": " << r.partition_seconds
                     << ", \"arrange_seconds\": " << r.arrange_seconds << ", \"layout_seconds\": " << r.layout_seconds
                     << ", \"preprocessing_seconds\": " << preprocessing
                     << ", \"traffic_bytes_per_apply\": " << r.traffic_bytes << ", \"ms_per_step\": " << c.ms_per_step()
                     << ", \"cusparse_ms_per_step\": " << ms_or_null(cusparse)
                     << ", \"ratio_to_cusparse\": " << baseline(c) << ", \"ell_rcm_ms_per_step\": " << ms_or_null(ell)
                     << ", \"block_ell_rcm_ms_per_step\": " << ms_or_null(block_ell) << "}";
      any_reused = any_reused || r.reused;
      markdown_row(md, {c.problem, c.ordering, r.partitioner + (r.reused ? "*" : ""), c.precision, str(r.block_size),
                        str(r.blocks), str(r.splits), fixed(r.efficiency, 4), fixed(r.partition_seconds, 2),
                        fixed(r.layout_seconds, 2), fixed(preprocessing, 2), fixed(c.ms_per_step(), 3),
                        ms_or_dash(cusparse), baseline(c) > 0.0 ? fixed(baseline(c), 2) : "-", ms_or_dash(ell),
                        ms_or_dash(block_ell)});
    }
    entries.close();
    if (any_reused)
      md << "\n\\* the block order's own partition, renumbered with the mesh (its time is that of the partition "
            "that made the order).\n";
  }

  void write_failures(std::ostream& json) const {
    json << ",\n  \"failures\": ";
    JsonArray entries(json);
    for (const CaseFailure& f : failures)
      entries.next() << "{\"problem\": " << json_string(f.problem) << ", \"ordering\": " << json_string(f.ordering)
                     << ", \"operator\": " << json_string(f.operator_name)
                     << ", \"precision\": " << json_string(f.precision) << ", \"error\": " << json_string(f.error)
                     << "}";
    entries.close();
    json << "\n}\n";
  }

  // The failures as check_no_failures names them: "problem ordering operator precision".
  std::vector<Failure> named_failures() const {
    std::vector<Failure> named;
    for (const CaseFailure& f : failures)
      named.push_back({str(f.problem, " ", f.ordering, " ", f.operator_name, " ", f.precision), f.error});
    return named;
  }
};

}  // namespace

void run_operators(const OperatorArgs& args) {
  TREMOR_CHECK(args.scale > 0.0 && args.scale <= 4.0, "--scale ", args.scale, " outside (0, 4]");
  for (const std::string& precision : args.precisions)
    TREMOR_CHECK(precision == "float" || precision == "double", "--precisions: '", precision,
                 "' is neither float nor double");
  std::vector<std::string> problems = args.problems;
  if (problems.empty() && args.models.empty()) problems = default_problems();
  problems.insert(problems.end(), args.models.begin(), args.models.end());
  if (args.dry_run) {
    print_sizes(args, problems);
    return;
  }
  OperatorBench bench(args);
  RunRecord run{args.commit, args.note};
  bench.measure_ceilings();
  for (const std::string& name : problems) bench.run_problem(name);
  run.finish();

  std::ostringstream json, md;
  bench.write_json_head(json, run);
  bench.write_setups_json(json);
  bench.write_cases(json, md, run);
  bench.write_setup_table(md);
  bench.write_partitioned(json, md);
  bench.write_failures(json);
  write_report(args.json, json.str(), args.markdown, md.str());
  std::printf("\n%s", md.str().c_str());
  check_no_failures(bench.named_failures());
}

}  // namespace tremor::bench
