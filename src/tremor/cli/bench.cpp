// `tremor bench`: throughput of the explicit time step for every stiffness operator and precision
// on standard problems generated in process, against the device's copy bandwidth and the cuSPARSE
// CSR baseline measured in the same run (docs/benchmarks.md). JSON plus a markdown table.
//
// Each case builds the operator from one assembly of K per problem, the lumped mass and the
// central-difference integrator, starts from a smooth displacement field, takes `warmup` untimed
// steps, then times `steps` steps (one operator apply plus the fused update each; no loads or
// receivers) between two synchronisations of the Exec: the cost of the time loop itself.
//
// Counted bytes per step: the operator's own arrays (StiffnessOperator::bytes(): matrix values,
// indices, padding; the matrix-free operator's geometry and connectivity), plus u read once and
// K u written once by the operator, plus the fused update's 7 reads and 1 write per DOF (Eq. 4 of
// the pogo paper: A, F, K u, C', U_prev, K'', U_curr -> U_next): 10 values of sizeof(Real) per DOF.
// u is counted once, as if every reuse hit the cache: the figure is the least traffic the step
// needs, so achieved GB/s = counted bytes / time is a lower bound of what the memory moved.
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tremor/backend/bandwidth.hpp"
#include "tremor/cli/commands.hpp"
#include "tremor/cli/git_commit.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/central_difference.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/fem/time_step.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/mesh/reorder.hpp"
#include "tremor/model/renumber.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/sparse/colouring.hpp"

namespace tremor::cli {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct BenchArgs {
  std::vector<std::string> problems{"tri2d", "hex8", "tet4"};
  std::vector<std::string> operators;  // empty: every kind the backend runs
  std::vector<std::string> precisions{"float", "double"};
  std::vector<std::string> orderings{"none", "rcm"};
  std::string backend = "auto";
  double scale = 1.0;
  int steps = 200, warmup = 20;
  std::string json, markdown, note;
};

struct Problem {
  std::string name, description;
  Model model;
};

// The standard problems at `scale` x their DOF count (cells scale with its square or cube root).
//   tri2d  2D plane-strain steel, tri3, ~2M DOF: the size of the pogo paper's weld model.
//   hex8   3D aluminium plate, 4 hex8 through its thickness, ~10M DOF.
//   tet4   3D steel block, tet4 (6 per cell), ~5M DOF.
Problem make_problem(const std::string& name, double scale) {
  Problem p;
  p.name = name;
  Model& model = p.model;
  model.source = "tremor bench " + name;
  const auto cells = [&](double full, double root) {
    return std::max<Size>(2, static_cast<Size>(std::llround(full * std::pow(scale, 1.0 / root))));
  };
  if (name == "tri2d") {
    const Size n = cells(1000, 2);  // (n + 1)^2 nodes x 2 DOF
    model.mesh = generate_rectangle({0, 0}, {0.05, 0.05}, {n, n}, ElementType::Tri3);
    model.materials.push_back(Material::from_youngs("steel", 210e9, 0.3, 7850.0));
    model.sections.push_back({"all", "steel", Formulation::PlaneStrain, 1.0});
    p.description = str("2D tri3 ", n, " x ", n, " cells x 2");
  } else if (name == "hex8") {
    const Size n = cells(816, 2);  // (n + 1)^2 x 5 nodes x 3 DOF
    model.mesh = generate_box({0, 0, 0}, {0.5e-3 * double(n), 0.5e-3 * double(n), 2e-3}, {n, n, 4}, ElementType::Hex8);
    model.materials.push_back(Material::from_youngs("aluminium", 70e9, 0.33, 2700.0));
    model.sections.push_back({"all", "aluminium", Formulation::Solid, 1.0});
    p.description = str("3D hex8 plate ", n, " x ", n, " x 4 cells");
  } else if (name == "tet4") {
    const Size n = cells(118, 3);  // (n + 1)^3 nodes x 3 DOF
    model.mesh = generate_box({0, 0, 0}, {0.05, 0.05, 0.05}, {n, n, n}, ElementType::Tet4);
    model.materials.push_back(Material::from_youngs("steel", 210e9, 0.3, 7850.0));
    model.sections.push_back({"all", "steel", Formulation::Solid, 1.0});
    p.description = str("3D tet4 block ", n, "^3 cells x 6");
  } else {
    throw Error(str("unknown benchmark problem '", name, "': expected tri2d, hex8 or tet4"));
  }
  model.validate();
  return p;
}

struct Case {
  std::string problem, ordering, operator_kind, precision;
  Index dofs = 0;
  int steps = 0;
  double setup_seconds = 0.0, seconds = 0.0;
  std::size_t operator_bytes = 0, counted_bytes = 0;  // per step
  std::string details;                                // the operator's storage (padding)
  double ms_per_step() const { return 1e3 * seconds / steps; }
  double gdof_steps() const { return 1e-9 * double(dofs) * steps / seconds; }
  double gbytes_per_second() const { return 1e-9 * double(counted_bytes) * steps / seconds; }
};

template <class Real>
void time_case(const Problem& problem, const Exec& exec, const sparse::SectionTable& table,
               const sparse::ElementColouring& colouring, const sparse::CsrMatrix& K, const std::vector<double>& mass,
               double dt, int warmup, Case& c) {
  const Model& model = problem.model;
  const auto setup = Clock::now();
  const auto stiffness = explicit_fe::make_stiffness_operator<Real>(model, c.operator_kind, exec, table, colouring, K);
  explicit_fe::CentralDifference<Real> scheme(exec, *stiffness, mass, {}, dt, {});
  const int dim = model.mesh.dim();
  std::vector<Real> u0(static_cast<std::size_t>(stiffness->n_dofs())), v0(u0.size(), Real(0));
  // A smooth field, so the values are neither zero nor denormal.
  for (Index i = 0; i < model.mesh.n_nodes(); ++i)
    for (int d = 0; d < dim; ++d)
      u0[static_cast<std::size_t>(i * dim + d)] = static_cast<Real>(1e-9 * std::sin(1e3 * model.mesh.node(i)[d] + d));
  scheme.set_initial_conditions(u0, v0);
  const DeviceArray<Real> force(exec, std::span<const Real>(std::vector<Real>(u0.size(), Real(0))));
  exec.synchronize();
  c.setup_seconds = seconds_since(setup);
  c.dofs = stiffness->n_dofs();
  c.operator_bytes = stiffness->bytes();
  c.details = stiffness->details();
  c.counted_bytes = c.operator_bytes + 10 * static_cast<std::size_t>(c.dofs) * sizeof(Real);
  for (int k = 0; k < warmup; ++k) scheme.step(force.view());
  exec.synchronize();
  const auto start = Clock::now();
  for (int k = 0; k < c.steps; ++k) scheme.step(force.view());
  exec.synchronize();
  c.seconds = seconds_since(start);
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) >= 0x20) out += ch;
  }
  return out + "\"";
}

// Writes `text` to `path` through a temporary name, so a failed write leaves no half file.
void write_file(const std::string& path, const std::string& text) {
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial);
    out << text;
    TREMOR_CHECK(out.good(), "cannot write ", partial);
  }
  TREMOR_CHECK(std::rename(partial.c_str(), path.c_str()) == 0, "cannot rename ", partial, " to ", path);
}

void run_bench(const BenchArgs& args) {
  TREMOR_CHECK(args.scale > 0.0 && args.scale <= 4.0, "--scale ", args.scale, " outside (0, 4]");
  const Exec exec = Exec::make(parse_backend(args.backend));
  const std::vector<std::string> operators =
      args.operators.empty() ? explicit_fe::stiffness_operator_kinds(exec.backend()) : args.operators;
  for (const std::string& precision : args.precisions)
    TREMOR_CHECK(precision == "float" || precision == "double", "--precisions: '", precision,
                 "' is neither float nor double");
  const CopyBandwidth copy = measure_copy_bandwidth(exec);
  std::printf("device            %s\n", exec.describe().c_str());
  std::printf("copy bandwidth    %.1f GB/s (a %zu MB array, fastest of %d copies)\n", 1e-9 * copy.bytes_per_second(),
              copy.bytes >> 20, copy.repeats);
  std::vector<Case> cases;
  std::map<std::string, std::string> descriptions;
  for (const std::string& name : args.problems)
    for (const std::string& ordering : args.orderings) {
      const auto setup = Clock::now();
      Problem problem = make_problem(name, args.scale);
      descriptions[name] = problem.description;
      if (ordering == "rcm")
        problem.model = renumber_nodes(problem.model, reverse_cuthill_mckee(node_graph(problem.model.mesh)));
      const Exec host = host_exec(exec);
      const sparse::SectionTable table = sparse::section_table(problem.model);
      const sparse::ElementColouring colouring = sparse::colour_elements(problem.model.mesh);
      const bool assembled = std::any_of(operators.begin(), operators.end(),
                                         [](const std::string& kind) { return explicit_fe::is_assembled_kind(kind); });
      const sparse::CsrMatrix K =
          assembled ? sparse::assemble_stiffness(problem.model, table, colouring, host) : sparse::CsrMatrix{};
      const std::vector<double> mass = sparse::assemble_lumped_mass(problem.model, table, colouring, host);
      const double dt = 0.9 * fem::stable_time_step(problem.model).dt;
      std::printf("problem %-6s %s, ordering %s: %d DOF, %lld non-zeros, set up in %.1f s\n", name.c_str(),
                  problem.description.c_str(), ordering.c_str(), problem.model.mesh.n_nodes() * problem.model.mesh.dim(),
                  static_cast<long long>(K.nnz()), seconds_since(setup));
      for (const std::string& kind : operators)
        for (const std::string& precision : args.precisions) {
          Case c;
          c.problem = name;
          c.ordering = ordering;
          c.operator_kind = kind;
          c.precision = precision;
          c.steps = args.steps;
          if (precision == "float")
            time_case<float>(problem, exec, table, colouring, K, mass, dt, args.warmup, c);
          else
            time_case<double>(problem, exec, table, colouring, K, mass, dt, args.warmup, c);
          std::printf("  %-12s %-6s %9.3f ms/step %7.3f GDOF-steps/s %8.1f GB/s (%5.1f%% of copy)  setup %.1f s%s%s\n",
                      kind.c_str(), precision.c_str(), c.ms_per_step(), c.gdof_steps(), c.gbytes_per_second(),
                      100.0 * c.gbytes_per_second() * 1e9 / copy.bytes_per_second(), c.setup_seconds,
                      c.details.empty() ? "" : "  ", c.details.c_str());
          std::fflush(stdout);
          cases.push_back(c);
        }
    }
  // Throughput relative to cuSPARSE CSR on the same problem and precision, when it ran.
  const auto baseline = [&](const Case& c) {
    for (const Case& b : cases)
      if (b.operator_kind == "cusparse" && b.problem == c.problem && b.ordering == c.ordering &&
          b.precision == c.precision)
        return c.gdof_steps() / b.gdof_steps();
    return 0.0;
  };

  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::ostringstream json;
  json << "{\n  \"benchmark\": \"explicit time step\",\n  \"device\": " << json_string(exec.describe())
       << ",\n  \"date\": " << json_string(date) << ",\n  \"git_commit\": " << json_string(git_commit)
       << ",\n  \"note\": " << json_string(args.note) << ",\n  \"scale\": " << args.scale
       << ",\n  \"steps\": " << args.steps << ",\n  \"warmup_steps\": " << args.warmup
       << ",\n  \"copy_bandwidth_GBps\": " << 1e-9 * copy.bytes_per_second() << ",\n  \"problems\": {";
  bool first = true;
  for (const auto& [name, description] : descriptions) {
    json << (first ? "\n" : ",\n") << "    " << json_string(name) << ": " << json_string(description);
    first = false;
  }
  json << "\n  },\n  \"cases\": [\n";
  std::ostringstream md;
  md << "Explicit time step on " << exec.describe() << ", " << date << ", commit " << git_commit
     << "; copy bandwidth " << std::lround(1e-9 * copy.bytes_per_second()) << " GB/s.\n\n"
     << "| problem | ordering | DOF | operator | precision | ms/step | GDOF-steps/s | counted MB/step | GB/s | % of copy | x cuSPARSE |\n"
     << "|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const double percent = 100.0 * c.gbytes_per_second() * 1e9 / copy.bytes_per_second();
    json << "    {\"problem\": " << json_string(c.problem) << ", \"ordering\": " << json_string(c.ordering)
         << ", \"dofs\": " << c.dofs
         << ", \"operator\": " << json_string(c.operator_kind) << ", \"precision\": " << json_string(c.precision)
         << ", \"steps\": " << c.steps << ", \"seconds\": " << c.seconds << ", \"setup_seconds\": " << c.setup_seconds
         << ", \"ms_per_step\": " << c.ms_per_step() << ", \"gdof_steps_per_second\": " << c.gdof_steps()
         << ", \"operator_bytes\": " << c.operator_bytes << ", \"counted_bytes_per_step\": " << c.counted_bytes
         << ", \"achieved_GBps\": " << c.gbytes_per_second() << ", \"percent_of_copy\": " << percent
         << ", \"ratio_to_cusparse\": " << baseline(c) << ", \"storage\": " << json_string(c.details) << "}" << (i + 1 < cases.size() ? ",\n" : "\n");
    char row[256];
    std::snprintf(row, sizeof row, "| %s | %s | %d | %s | %s | %.3f | %.3f | %.1f | %.0f | %.1f | %s |\n",
                  c.problem.c_str(), c.ordering.c_str(), c.dofs, c.operator_kind.c_str(), c.precision.c_str(), c.ms_per_step(), c.gdof_steps(),
                  1e-6 * double(c.counted_bytes), c.gbytes_per_second(), percent,
                  baseline(c) > 0.0 ? str(std::round(baseline(c) * 100.0) / 100.0).c_str() : "-");
    md << row;
  }
  json << "  ]\n}\n";
  if (!args.json.empty()) write_file(args.json, json.str());
  if (!args.markdown.empty()) write_file(args.markdown, md.str());
  std::printf("\n%s", md.str().c_str());
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Time the explicit step of every operator and precision on standard problems");
  auto args = std::make_shared<BenchArgs>();
  cmd->add_option("--problems", args->problems, "tri2d (2D tri3, ~2M DOF), hex8 (plate, ~10M DOF), tet4 (~5M DOF)")
      ->delimiter(',');
  cmd->add_option("--operators", args->operators, "stiffness operators (default: every one the backend runs)")
      ->delimiter(',')
      ->check(CLI::IsMember(explicit_fe::stiffness_operator_kinds()));
  cmd->add_option("--precisions", args->precisions, "float, double")->delimiter(',');
  cmd->add_option("--orderings", args->orderings, "node orderings: none (as generated), rcm (reverse Cuthill-McKee)")
      ->delimiter(',')
      ->check(CLI::IsMember({"none", "rcm"}));
  cmd->add_option("--backend", args->backend, "auto (the GPU when present), cuda, openmp, serial")
      ->check(CLI::IsMember({"auto", "serial", "openmp", "cuda"}));
  cmd->add_option("--scale", args->scale, "problem size relative to the standard one (DOF count), in (0, 4]");
  cmd->add_option("--steps", args->steps, "timed steps per case")->check(CLI::PositiveNumber);
  cmd->add_option("--warmup", args->warmup, "untimed steps before them")->check(CLI::NonNegativeNumber);
  cmd->add_option("-o,--json", args->json, "JSON file to write");
  cmd->add_option("--markdown", args->markdown, "markdown table to write");
  cmd->add_option("--note", args->note, "free text stored in the JSON");
  cmd->callback([args] { run_bench(*args); });
}

}  // namespace tremor::cli
