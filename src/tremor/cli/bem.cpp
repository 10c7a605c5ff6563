// `tremor bem MODEL [-o RESULT]`: the boundary-element solver from the command line (docs/bem.md,
// "Running `tremor bem`"). Reads a [bem] model file, has bem::plan_bem build and check the surface
// mesh, its resolution, the conditions and the interior points, prints what it will solve, and
// has bem::run_bem solve each frequency in turn, printing what it solved and how and writing the
// boundary displacements and tractions, the interior displacements and the forces on sets with
// prescribed displacements into one result file (docs/output-format.md, /bem) with its XDMF file
// as each frequency arrives. A frequency that fails keeps the ones solved before it in the file
// (status "failed: ..."), and the command exits 1.
#include <array>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tremor/backend/exec.hpp"
#include "tremor/bem/driver.hpp"
#include "tremor/cli/commands.hpp"
#include "tremor/cli/options.hpp"
#include "tremor/cli/signals.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/format.hpp"
#include "tremor/cli/git_commit.hpp"
#include "tremor/record/bem_run.hpp"
#include "tremor/record/explicit_run.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/bem_model_file.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/result_file.hpp"
#include "tremor/model/bem_problem.hpp"
#include "tremor/model/model.hpp"

namespace tremor::cli {

namespace {

// Interior points of the printed table; the result file and the CSV hold them all.
constexpr std::size_t printed_points = 8;

struct BemArgs {
  std::string model;
  std::string output;
  std::string csv;
  std::string backend;  // names, parsed into bem::RunOptions
  std::string free_term;
  std::string elements;
  std::string solver;
  double tolerance = 0.0;
  int gauss = 0;
  bool allow_coarse = false;
  bool plan_only = false;  // --plan: print what would be solved, solve nothing, write nothing
};

// "1.23e-04 - 4.5e-05i", or "1.23e-04" for a real value.
std::string complex_text(std::complex<double> z) {
  char text[64];
  if (z.imag() == 0.0) return number(z.real());
  std::snprintf(text, sizeof text, "%.4g %c %.4gi", z.real(), z.imag() < 0 ? '-' : '+', std::abs(z.imag()));
  return text;
}

std::string point_text(const std::array<double, 3>& p) {
  return str("(", number(p[0]), ", ", number(p[1]), ", ", number(p[2]), ")");
}

// "'foundation' (6 elements): uz 0.001 m": one boundary condition as the header lists it.
std::string condition_text(const BemBoundaryCondition& condition, Index n_elements) {
  std::string what;
  if (condition.pressure) {
    what = str("pressure ", complex_text(*condition.pressure), " Pa");
  } else {
    for (int c = 0; c < 3; ++c) {
      const auto& component = condition.components[static_cast<std::size_t>(c)];
      if (!component) continue;
      const bool displacement = component->kind == BemPrescribed::Displacement;
      what += str(what.empty() ? "" : ", ", displacement ? "u" : "t", "xyz"[c], " ", complex_text(component->value),
                  displacement ? " m" : " Pa");
    }
  }
  return str("'", condition.element_set, "' (", group_digits(n_elements), " elements): ", what);
}

// "linear (discontinuous, 3 nodes per triangle)": what the element type means on this mesh.
std::string element_text(bem::ElementOrder order, const bem::BoundaryMesh& mesh, const bem::MeshReport& report) {
  if (order == bem::ElementOrder::Constant) return "constant (one node per element)";
  std::string per;
  if (order == bem::ElementOrder::Linear) {
    if (report.n_triangles > 0) per += "3 nodes per triangle";
    if (report.n_quadrilaterals > 0) per += str(per.empty() ? "" : ", ", "4 per quadrilateral");
    return str("linear (discontinuous, ", per, ")");
  }
  bool eight = false, nine = false;
  for (Index e = 0; e < mesh.n_elements(); ++e) {
    eight = eight || mesh.n_geometry_nodes(e) == 8;
    nine = nine || mesh.n_geometry_nodes(e) == 9;
  }
  if (report.n_triangles > 0) per += "6 nodes per triangle";
  if (eight) per += str(per.empty() ? "" : ", ", "8 per 8-node quadrilateral");
  if (nine) per += str(per.empty() ? "" : ", ", "9 per 9-node quadrilateral");
  return str("quadratic (discontinuous, ", per, ")");
}

// What will be solved: the mesh, the elements, the solid, the material, the resolution, the
// integration, the boundary conditions and the interior points.
void print_plan(const std::string& model, const BemProblem& problem, const bem::Plan& plan) {
  const bem::MeshReport& report = plan.report;
  const bem::BoundaryMesh& mesh = plan.mesh;
  const BemMaterial& material = problem.material;
  const bem::IntegrationOptions& integration = plan.integration;
  const std::size_t nf = problem.frequencies.size();
  std::printf("bem               %s: %s elements, %zu frequenc%s (%s", model.c_str(),
              group_digits(mesh.n_elements()).c_str(), nf, nf == 1 ? "y" : "ies", number(plan.lowest).c_str());
  if (nf > 1) std::printf(" .. %s", number(plan.highest).c_str());
  std::printf(" Hz), backend %s\n", std::string(to_string(plan.exec.backend())).c_str());
  std::string shapes;
  if (report.n_triangles > 0) shapes += str(group_digits(report.n_triangles), " triangles");
  if (report.n_quadrilaterals > 0)
    shapes += str(shapes.empty() ? "" : " and ", group_digits(report.n_quadrilaterals), " quadrilaterals");
  std::printf("  mesh            %s: %s nodes, %s, %s, area %s m^2, elements %s .. %s m across\n", mesh.source.c_str(),
              group_digits(report.n_nodes).c_str(), shapes.c_str(),
              report.closed ? "closed" : str("open (", group_digits(report.n_boundary_edges), " rim edges)").c_str(),
              number(report.area).c_str(), number(report.min_diameter).c_str(), number(report.max_diameter).c_str());
  std::printf("  elements        %s: %s nodes, %s unknowns\n", element_text(plan.order, mesh, report).c_str(),
              group_digits(plan.n_nodes).c_str(), group_digits(3 * static_cast<long long>(plan.n_nodes)).c_str());
  std::printf("  solid           %s%s\n", to_string(problem.mesh.solid),
              plan.solid == bem::Solid::Inside    ? " the surface (a body): normals outward"
              : plan.solid == bem::Solid::Outside ? " the surface (a cavity): normals into the hole"
                                                  : ": on the side the normals point away from");
  std::printf("  material        density %s kg/m^3, E %sPa, nu %s, damping ratio %s; c_s %s m/s, c_p %s m/s\n",
              number(material.density).c_str(), si(material.youngs_modulus()).c_str(),
              number(material.poisson_ratio()).c_str(), number(material.damping_ratio).c_str(),
              number(material.shear_wave_speed()).c_str(), number(material.p_wave_speed()).c_str());
  const bool quadratic = plan.order == bem::ElementOrder::Quadratic;
  std::printf("  resolution      %s elements per shear wavelength%s at %s Hz (element %lld, %s m across; minimum %s)\n",
              number(plan.resolution.elements_per_wavelength).c_str(),
              quadratic ? str(" (", number(plan.resolution.points_per_wavelength), " points)").c_str() : "",
              number(plan.highest).c_str(), static_cast<long long>(plan.resolution.label),
              number(plan.resolution.diameter).c_str(), number(plan.min_per_wavelength).c_str());
  std::printf(
      "  integration     %d x %d Gauss points (%d per singular triangle), near ratio %s, depth %d, free term %s%s\n",
      integration.gauss, integration.gauss, integration.singular_gauss, number(integration.near_ratio).c_str(),
      integration.max_depth, std::string(name_of(plan.free_term, bem_free_term_names)).c_str(),
      plan.exec.backend() == Backend::Cuda
          ? str(", ", name_of(plan.settings.layout, bem_layout_names), " per pair").c_str()
          : "");
  if (plan.method == bem::SolverMethod::Compressed) {
    const bem::HMatrixEstimate& e = plan.hmatrix_estimate;
    std::printf("  solver          hierarchical matrix of [H G] (ACA, tolerance %s, leaves of %lld elements, eta %s) "
                "and GMRES with block Jacobi, blocks on %s; about %sB (near field %sB, %lld admissible blocks %sB at "
                "rank %lld); %s\n",
                number(plan.hmatrix.tolerance).c_str(), static_cast<long long>(plan.hmatrix.leaf_size),
                number(plan.hmatrix.eta).c_str(), plan.exec.backend() == Backend::Cuda ? "the GPU" : "the host",
                si(e.bytes()).c_str(), si(16.0 * e.near_values).c_str(),
                static_cast<long long>(e.far_blocks), si(16.0 * e.far_values).c_str(),
                static_cast<long long>(bem::hmatrix_estimate_rank), plan.solver_why.c_str());
  } else {
    std::printf("  solver          dense LU of H and G; %s\n", plan.solver_why.c_str());
  }
  for (std::size_t b = 0; b < problem.boundary.size(); ++b)
    std::printf("  boundary        %s\n", condition_text(problem.boundary[b], plan.conditions.set_sizes[b]).c_str());
  if (plan.conditions.n_free > 0)
    std::printf("  boundary        %s elements in no set: zero traction\n",
                group_digits(plan.conditions.n_free).c_str());
  if (!problem.interior_points.empty())
    std::printf("  interior        %s points\n",
                group_digits(static_cast<long long>(problem.interior_points.size())).c_str());
  std::fflush(stdout);
}

// What one frequency gave: times, condition, the largest boundary displacement, the forces (and
// stiffnesses) of the sets with prescribed displacements, the first interior points.
void print_frequency(const bem::FrequencySolution& s, const bem::Plan& plan, const BemProblem& problem) {
  const bem::FrequencyResult& r = s.result;
  const std::string row_sums =
      r.row_sum_seconds > 0.0 ? str(" + row sums ", number(r.row_sum_seconds), " s") : std::string();
  if (r.compressed) {
    const bem::HMatrixStats& h = r.hmatrix.stats;
    std::printf("  %-15s hmatrix %.3g s%s (near field %.3g s, ACA %.3g s in %lld steps (entries %.3g s), "
                "recompression %.3g s, storing %.3g s; %s%% of the dense values, ranks up to %lld), GMRES %d "
                "iterations to %s in %.3g s, interior %.3g s\n",
                str(number(s.frequency), " Hz").c_str(), r.assembly_seconds, row_sums.c_str(), h.near_seconds,
                h.aca_seconds, static_cast<long long>(h.aca_steps), h.aca_entry_seconds, h.recompress_seconds,
                h.store_seconds, number(100.0 * h.compression).c_str(), static_cast<long long>(h.max_rank),
                r.hmatrix.gmres.iterations, number(r.hmatrix.gmres.residual).c_str(), r.solve_seconds,
                r.interior_seconds);
  } else {
    std::printf(
        "  %-15s assembly %.3g s%s, solve %.3g s (%s), interior %.3g s, condition %s\n",
        str(number(s.frequency), " Hz").c_str(), r.assembly_seconds, row_sums.c_str(), r.solve_seconds,
        r.solve.backend.c_str(), r.interior_seconds,
        std::isnan(r.solve.reciprocal_condition) ? "not estimated" : number(1.0 / r.solve.reciprocal_condition).c_str());
  }
  const std::size_t worst = s.largest_element;
  const std::vector<std::complex<double>>& u = s.displacement;
  std::printf("    max |u|       %sm at element %lld: (%s, %s, %s) m\n", si(s.largest_displacement).c_str(),
              static_cast<long long>(plan.mesh.element_labels[worst]), complex_text(u[3 * worst]).c_str(),
              complex_text(u[3 * worst + 1]).c_str(), complex_text(u[3 * worst + 2]).c_str());
  const bem::ElementConditions& conditions = plan.conditions;
  for (std::size_t f = 0; f < conditions.force_sets.size(); ++f) {
    std::printf("    force on set %s: (%s, %s, %s) N\n", conditions.force_sets[f].c_str(),
                complex_text(s.forces[3 * f]).c_str(), complex_text(s.forces[3 * f + 1]).c_str(),
                complex_text(s.forces[3 * f + 2]).c_str());
    for (std::size_t c = 0; c < 3; ++c) {
      const std::complex<double> given = conditions.set_displacement[f][c];
      if (std::isnan(given.real()) || std::abs(given) == 0.0) continue;
      const std::complex<double> stiffness = s.stiffness[3 * f + c];
      std::printf("      stiffness   K_%c%c = F_%c / u_%c = %s N/m (|K| %s N/m, phase %.3g deg)\n", "xyz"[c], "xyz"[c],
                  "xyz"[c], "xyz"[c], complex_text(stiffness).c_str(), number(std::abs(stiffness)).c_str(),
                  std::arg(stiffness) * 180.0 / std::numbers::pi);
    }
  }
  if (!problem.interior_points.empty()) {
    std::printf("    interior      %-8s %-26s %-11s %s\n", "point", "position (m)", "|u| (m)", "u_x, u_y, u_z (m)");
    for (std::size_t k = 0; k < problem.interior_points.size() && k < printed_points; ++k) {
      const std::complex<double>* v = s.interior.data() + 3 * k;
      std::printf("                  %-8zu %-26s %-11.4g %s, %s, %s\n", k + 1,
                  point_text(problem.interior_points[k]).c_str(),
                  std::sqrt(std::norm(v[0]) + std::norm(v[1]) + std::norm(v[2])), complex_text(v[0]).c_str(),
                  complex_text(v[1]).c_str(), complex_text(v[2]).c_str());
    }
    if (problem.interior_points.size() > printed_points)
      std::printf("                  ... and %zu more points in the result file\n",
                  problem.interior_points.size() - printed_points);
  }
}

// Interior displacements as CSV: one row per frequency and point, real and imaginary parts.
void write_interior_csv(const std::filesystem::path& path, const BemProblem& problem,
                        const std::vector<double>& frequencies,
                        const std::vector<std::vector<std::complex<double>>>& interior) {
  std::string text = "frequency,point,x,y,z,ux_re,ux_im,uy_re,uy_im,uz_re,uz_im,u_magnitude\n";
  char row[512];
  for (std::size_t f = 0; f < frequencies.size(); ++f)
    for (std::size_t k = 0; k < problem.interior_points.size(); ++k) {
      const auto& p = problem.interior_points[k];
      const std::complex<double>* u = interior[f].data() + 3 * k;
      const double magnitude = std::sqrt(std::norm(u[0]) + std::norm(u[1]) + std::norm(u[2]));
      std::snprintf(row, sizeof row, "%.17g,%zu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
                    frequencies[f], k + 1, p[0], p[1], p[2], u[0].real(), u[0].imag(), u[1].real(), u[1].imag(),
                    u[2].real(), u[2].imag(), magnitude);
      text += row;
    }
  io::write_file_atomically(path, text, "CSV file");
}

// Prints each frequency as soon as it is solved (after record::BemRecording wrote it), and passes
// SIGINT and SIGTERM on as a stop request between frequencies.
class BemConsole final : public bem::Observer {
 public:
  explicit BemConsole(const BemProblem& problem) : problem_(problem) {}
  void on_frequency(const bem::Plan& plan, const bem::FrequencySolution& s) override {
    print_frequency(s, plan, problem_);
    std::fflush(stdout);
  }
  bool stop_requested() override { return stop_signal() != 0; }

 private:
  const BemProblem& problem_;
};

// The command line's settings over the model's.
bem::RunOptions run_options(const BemArgs& args) {
  bem::RunOptions options;
  options.backend = given_backend(args.backend);
  options.free_term = given_choice(args.free_term, bem_free_term_names, "free term");
  options.elements = given_choice(args.elements, bem_element_names, "element kind");
  options.solver = given_choice(args.solver, bem_solver_names, "solver");
  options.tolerance = args.tolerance;
  options.gauss = args.gauss;
  options.allow_coarse = args.allow_coarse;
  options.keep_boundary_fields = false;  // written to the result file as they come
  return options;
}

// --plan: the model read, the mesh built and checked, the plan printed and its resolution judged
// as a run would; no output is claimed or written.
void plan_only(const BemArgs& args) {
  const BemProblem problem = io::read_bem_model_file(args.model);
  const bem::Plan plan = bem::plan_bem(problem, run_options(args));
  print_plan(args.model, problem, plan);
  bem::check_resolution(plan);
  std::printf("  plan            %.3g s; --plan: nothing solved, no file written\n", plan.setup_seconds);
  std::fflush(stdout);
}

// The run and its files, `output` claimed. `output_is_input`: set when the output is refused for
// naming one of the model's files.
void solve_and_write(BemArgs& args, const std::filesystem::path& output, io::OutputClaim claim,
                     const Clock::time_point started, bool& output_is_input) {
  const BemProblem problem = io::read_bem_model_file(args.model);
  // Nothing the run reads may be written over: the model file, its surface mesh.
  std::vector<std::filesystem::path> inputs = record::bem_inputs(problem);
  output_is_input = true;
  record::refuse_output_over_inputs(output, inputs);
  output_is_input = false;
  if (!args.csv.empty()) {
    std::filesystem::path partial = output;
    partial += ".partial";
    for (const std::filesystem::path& other : {output, partial, io::result_xdmf_path(output)})
      inputs.push_back(other);
    for (const std::filesystem::path& other : inputs)
      if (io::same_file(args.csv, other))
        throw Error(str(args.csv, ": refusing to write the CSV file there: it is ", other.string(),
                        ", which this run reads or writes; choose another name"));
  }
  const bem::Plan plan = bem::plan_bem(problem, run_options(args));
  print_plan(args.model, problem, plan);

  BemConsole console(problem);
  record::BemRecording recording(problem, args.model, git_commit, output, std::move(claim), &console);
  const bem::RunResult run = bem::run_bem(problem, plan, &recording);
  io::ResultFile& file = recording.file();
  const std::size_t n_solved = recording.solved().size();
  const std::string status = recording.finish(run);
  if (!recording.note().empty()) {  // failed before its first frequency: nothing written
    std::fprintf(stderr, "error: %s\n%s\n", status.substr(std::string("failed: ").size()).c_str(),
                 recording.note().c_str());
    throw ExitStatus{1};
  }
  if (run.status == bem::RunStatus::Stopped) {
    std::fprintf(stderr, "interrupted by %s after %zu of %zu frequencies; %s holds them (status incomplete)\n",
                 stop_signal_name(), n_solved, problem.frequencies.size(), file.path().string().c_str());
    throw ExitStatus{128 + stop_signal()};
  }
  if (run.status == bem::RunStatus::Failed) {
    const std::string why = status.substr(std::string("failed: ").size());
    if (file.stopped_writing())  // the message says what the file keeps
      std::fprintf(stderr, "error: %s\n", why.c_str());
    else
      std::fprintf(stderr, "error: %s\n%s holds the %zu frequenc%s solved before it (status failed)\n", why.c_str(),
                   file.path().string().c_str(), n_solved, n_solved == 1 ? "y" : "ies");
    throw ExitStatus{1};
  }
  if (!args.csv.empty() && !problem.interior_points.empty()) {
    write_interior_csv(args.csv, problem, recording.solved(), recording.interior_rows());
    std::printf("  csv             %s\n", args.csv.c_str());
  } else if (!args.csv.empty()) {
    log::warn(str("--csv ", args.csv, ": the model has no interior points; no CSV written"));
  }
  std::printf("  output          %s (complete), %s; %.3g s in all\n", file.path().string().c_str(),
              file.xdmf_path().string().c_str(),
              seconds_since(started));
  std::fflush(stdout);
}

void bem_command(BemArgs& args) {
  if (args.plan_only) return plan_only(args);
  const auto started = Clock::now();
  catch_stop_signals();
  // The outputs are checked and the result file claimed before any work: a device, a link, a
  // missing folder or a second writer is refused now, not after the solve.
  const std::filesystem::path output = output_path(args.output, args.model);
  if (!args.csv.empty()) io::check_output_path(args.csv, "CSV file");
  const record::EarlierResult earlier(output);
  io::OutputClaim claim = io::claim_result_file(output, false);
  bool output_is_input = false;
  // Refused, or failed before anything was written: an earlier result there stays as it was.
  keeping_earlier_result(earlier, [&] { return output_is_input; },
                         [&] { solve_and_write(args, output, std::move(claim), started, output_is_input); });
}

}  // namespace

void add_bem_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "bem", "Solve 3D elastodynamics in the frequency domain with boundary elements on a [bem] model file (.toml)");
  auto args = std::make_shared<BemArgs>();
  cmd->add_option("MODEL", args->model, "boundary-element model file (.toml with a [bem] table)")->required();
  cmd->add_option("-o,--output", args->output, "result file (default: <model stem>.h5 in the current directory)");
  cmd->add_option("--backend", args->backend, "backend (overrides the model; auto: cuda when a GPU is usable)")
      ->check(CLI::IsMember(backend_choice_names()));
  cmd->add_option("--gauss", args->gauss, "Gauss points per direction per element piece (overrides the model; 1-16)")
      ->check(whole(1, 16));
  cmd->add_option("--free-term", args->free_term,
                  "strongly singular part: auto (rigid_body on closed meshes, direct on open), rigid_body, direct")
      ->check(CLI::IsMember(choice_names(bem_free_term_names)));
  cmd->add_option("--elements", args->elements,
                  "element type (overrides the model): constant (one node per element), linear (one per vertex, "
                  "discontinuous) or quadratic (one per node of a second-order mesh, discontinuous)")
      ->check(CLI::IsMember(choice_names(bem_element_names)));
  cmd->add_option("--solver", args->solver,
                  str("solver (overrides the model): auto (dense where H and G fit and it is the faster: up to ",
                      group_digits(bem::gpu_dense_unknowns), " unknowns on a GPU, ",
                      group_digits(bem::host_dense_unknowns),
                      " on a CPU; else hmatrix), dense (LU), hmatrix (hierarchical matrix and GMRES)"))
      ->check(CLI::IsMember(choice_names(bem_solver_names)));
  cmd->add_option("--tolerance", args->tolerance,
                  "the hierarchical matrix's relative accuracy, also GMRES's (overrides the model; default 1e-5)")
      ->check(CLI::Range(1e-300, 0.1 * (1.0 - 1e-15)));
  cmd->add_option("--csv", args->csv, "also write the interior displacements to this CSV file");
  cmd->add_flag("--allow-coarse", args->allow_coarse,
                "run a mesh with fewer than half the minimum elements per shear wavelength (warned, not refused)");
  cmd->add_flag("--plan", args->plan_only,
                "build and check the mesh, print what would be solved (sizes, resolution, solver, memory) and stop: "
                "nothing solved, no file written");
  cmd->callback([args] { bem_command(*args); });
}

}  // namespace tremor::cli
