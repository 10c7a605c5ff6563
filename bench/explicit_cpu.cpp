// CPU throughput of the explicit solver's time step: DOF-steps per second for each stiffness
// operator (assembled, block_csr, matrix_free), state precision (float, double) and host backend (serial,
// openmp), on model files given on the command line and on a generated 3D hex8 plate (about one
// million DOF by default). Writes one JSON document.
//
// Each case builds the operator, the lumped mass and the central-difference integrator, starts
// from a smooth displacement field, takes `warmup` steps untimed and then `steps` timed steps
// (one operator apply plus one fused update each, no loads, no receivers; more steps, in chunks
// of `steps`, until `min-seconds` have passed): the cost of the time loop itself. Setup
// (assembly, colouring) is timed separately.
//
//   tremor_bench_explicit_cpu [--steps N] [--warmup N] [--min-seconds S]
//                             [--plate NX,NY,NZ | --no-plate]
//                             [--operators ...] [--precisions ...] [--backends ...]
//                             -o result.json [model files ...]
#include <omp.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "tremor/cli/git_commit.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/central_difference.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/fem/time_step.hpp"
#include "tremor/io/load.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/sparse/assemble.hpp"

namespace {

using namespace tremor;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

// The plate: aluminium, hx = 1 mm elements in-plane, `nz` through a 2 mm thickness.
Model plate(std::array<Size, 3> n) {
  Model model;
  model.source = "generated hex8 plate";
  const double h = 1e-3;
  model.mesh = generate_box({0, 0, 0}, {h * double(n[0]), h * double(n[1]), 2e-3}, n, ElementType::Hex8);
  model.materials.push_back(Material::from_youngs("aluminium", 70e9, 0.33, 2700.0));
  model.sections.push_back({"all", "aluminium", Formulation::Solid, 1.0});
  model.validate();
  return model;
}

struct Case {
  std::string model, operator_kind, precision, backend;
  Index dofs = 0;
  int steps = 0;
  double setup_seconds = 0.0, seconds = 0.0;
  int threads = 1;
};

template <class Real>
void time_case(const Model& model, const Exec& exec, int warmup, double min_seconds, Case& c) {
  const auto setup = Clock::now();
  const auto stiffness = explicit_fe::make_stiffness_operator<Real>(model, c.operator_kind, exec);
  const auto mass = sparse::assemble_lumped_mass(model, exec);
  const double dt = 0.9 * fem::stable_time_step(model).dt;
  explicit_fe::CentralDifference<Real> scheme(exec, *stiffness, mass, {}, dt, {});
  const int dim = model.mesh.dim();
  std::vector<Real> u0(static_cast<std::size_t>(stiffness->n_dofs())), v0(u0.size(), Real(0));
  // A smooth field over the bounding box, so the values are neither zero nor denormal.
  for (Index i = 0; i < model.mesh.n_nodes(); ++i)
    for (int d = 0; d < dim; ++d)
      u0[static_cast<std::size_t>(i * dim + d)] =
          static_cast<Real>(1e-9 * std::sin(1e3 * model.mesh.node(i)[d] + d));
  scheme.set_initial_conditions(u0, v0);
  const DeviceArray<Real> force(exec, std::span<const Real>(std::vector<Real>(u0.size(), Real(0))));
  c.setup_seconds = seconds_since(setup);
  c.dofs = stiffness->n_dofs();
  for (int k = 0; k < warmup; ++k) scheme.step(force.view());
  exec.synchronize();
  // At least `steps`, and more (in chunks of `steps`) until min_seconds have passed, so a small
  // model is timed over enough steps for the clock's resolution and the machine's noise.
  const int chunk = c.steps;
  c.steps = 0;
  const auto start = Clock::now();
  do {
    for (int k = 0; k < chunk; ++k) scheme.step(force.view());
    exec.synchronize();
    c.steps += chunk;
    c.seconds = seconds_since(start);
  } while (c.seconds < min_seconds);
  c.threads = exec.backend() == Backend::OpenMP ? omp_get_max_threads() : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"CPU throughput of tremor's explicit time step, as JSON"};
  int steps = 20, warmup = 3;
  double min_seconds = 1.0;
  std::vector<Size> plate_cells{200, 200, 8};
  bool no_plate = false;
  std::vector<std::string> models, operators = explicit_fe::stiffness_operator_kinds(Backend::OpenMP), precisions{"float", "double"},
      backends{"serial", "openmp"};
  std::string output, note;
  app.add_option("models", models, "model files (.toml, .inp) to time besides the plate");
  app.add_option("--steps", steps, "timed steps per case")->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "untimed steps before them")->check(CLI::NonNegativeNumber);
  app.add_option("--min-seconds", min_seconds, "time more steps (in chunks of --steps) until this long")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--plate", plate_cells, "hex8 plate cells NX,NY,NZ (1 mm x 1 mm x 2 mm / NZ)")->delimiter(',')->expected(3);
  app.add_flag("--no-plate", no_plate, "time only the model files");
  app.add_option("--operators", operators, "assembled, block_csr, matrix_free (default: all)")->delimiter(',');
  app.add_option("--precisions", precisions, "float, double")->delimiter(',');
  app.add_option("--backends", backends, "serial, openmp")->delimiter(',');
  app.add_option("-o,--output", output, "JSON file to write")->required();
  app.add_option("--note", note, "free text stored in the JSON (e.g. what else the machine was doing)");
  CLI11_PARSE(app, argc, argv);

  // Other work on the machine slows every number down: the load average before and after is
  // part of the result.
  double load_start[3] = {-1, -1, -1};
  if (::getloadavg(load_start, 3) < 0) load_start[0] = load_start[1] = load_start[2] = -1;
  try {
    std::vector<std::pair<std::string, Model>> inputs;
    for (const std::string& path : models) inputs.emplace_back(path, io::load_model(path));
    if (!no_plate) {
      std::ostringstream name;
      name << "hex8 plate " << plate_cells[0] << "x" << plate_cells[1] << "x" << plate_cells[2];
      inputs.emplace_back(name.str(), plate({plate_cells[0], plate_cells[1], plate_cells[2]}));
    }
    std::vector<Case> cases;
    for (const auto& [name, model] : inputs)
      for (const std::string& op : operators)
        for (const std::string& precision : precisions)
          for (const std::string& backend : backends) {
            Case c{name, op, precision, backend};
            c.steps = steps;
            const Exec exec = Exec::make(parse_backend(backend));
            TREMOR_CHECK(precision == "float" || precision == "double", "--precisions: '", precision,
                         "' is neither float nor double");
            if (precision == "float")
              time_case<float>(model, exec, warmup, min_seconds, c);
            else
              time_case<double>(model, exec, warmup, min_seconds, c);
            std::printf("%-28s %-11s %-6s %-6s %2d threads  %9lld DOF  setup %7.2f s  %4d steps %8.3f s  %.3e DOF-steps/s\n",
                        name.c_str(), op.c_str(), precision.c_str(), backend.c_str(), c.threads,
                        static_cast<long long>(c.dofs), c.setup_seconds, c.steps, c.seconds,
                        double(c.dofs) * c.steps / c.seconds);
            std::fflush(stdout);
            cases.push_back(c);
          }

    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    double load[3] = {0, 0, 0};
    if (::getloadavg(load, 3) < 0) load[0] = load[1] = load[2] = -1;
    std::ofstream out(output);
    TREMOR_CHECK(out.good(), "cannot write ", output);
    out << "{\n  \"benchmark\": \"explicit time step, CPU\",\n"
        << "  \"device\": " << json_string(cpu_model()) << ",\n"
        << "  \"logical_cpus\": " << ::sysconf(_SC_NPROCESSORS_ONLN) << ",\n"
        << "  \"openmp_threads\": " << omp_get_max_threads() << ",\n"
        << "  \"load_average_at_start\": [" << load_start[0] << ", " << load_start[1] << ", " << load_start[2] << "],\n"
        << "  \"load_average_at_end\": [" << load[0] << ", " << load[1] << ", " << load[2] << "],\n"
        << "  \"note\": " << json_string(note) << ",\n"
        << "  \"date\": " << json_string(date) << ",\n"
        << "  \"git_commit\": "
        << json_string(tremor::cli::git_commit) << ",\n"
        << "  \"warmup_steps\": " << warmup << ",\n  \"cases\": [\n";
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      out << "    {\"model\": " << json_string(c.model) << ", \"operator\": " << json_string(c.operator_kind)
          << ", \"precision\": " << json_string(c.precision) << ", \"backend\": " << json_string(c.backend)
          << ", \"threads\": " << c.threads << ", \"dof\": " << c.dofs << ", \"steps\": " << c.steps
          << ", \"setup_seconds\": " << c.setup_seconds << ", \"seconds\": " << c.seconds
          << ", \"dof_steps_per_second\": " << double(c.dofs) * c.steps / c.seconds
          << ", \"us_per_step_per_dof\": " << 1e6 * c.seconds / (double(c.dofs) * c.steps) << "}"
          << (i + 1 < cases.size() ? ",\n" : "\n");
    }
    out << "  ]\n}\n";
    std::printf("wrote %s\n", output.c_str());
  } catch (const tremor::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
