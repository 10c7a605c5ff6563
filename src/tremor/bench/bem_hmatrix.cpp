// `tremor bench bem --hmatrix D1,D2,...`: the hierarchical matrix and GMRES (bem/hmatrix.hpp)
// against the dense LU (docs/benchmarks.md, "The hierarchical matrix on the GPU"):
//
//   the model  the radiating spherical cavity of tests/data/cli/bem_quadratic.toml (radius 1 m,
//       c_s 223.6 m/s, 5% damping, 1e5 Pa pressure on the wall) at 100 Hz (k_s a = 2.8), the
//       sphere of 9-node quadrilaterals at D divisions (6 D^2 elements, 54 D^2 nodes, 162 D^2
//       unknowns; 14 elements per shear wavelength at D = 10), quadratic elements, rigid-body
//       free term;
//   per size and backend  the compressed solve timed once (a frequency's build, its parts, GMRES),
//       what it stores against the dense matrices' 18 N^2 values (N nodes), its largest rank; the
//       dense solve where H and G fit the backend's free memory and one array (check_node_count),
//       timed once, and the largest difference of the two solutions' |u| over the largest |u|;
//   the fits  the stored values' exponent over all sizes (least squares in log-log), the dense
//       blocks' and the low-rank factors' apart, stored / (N log2 N) per size, and the
//       crossover: the smallest size whose compressed solve beat the dense one.
//
// Each case runs once: at these sizes a run takes seconds to minutes, and the first run's launch
// costs are milliseconds of them.
#include "tremor/bench/bem_hmatrix.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <numbers>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tremor/bem/assembly.hpp"
#include "tremor/bem/generate.hpp"
#include "tremor/bem/solve.hpp"
#include "tremor/bench/report.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"

namespace tremor::bench {

namespace {

constexpr double radius = 1.0;        // m
constexpr double density = 2000.0;    // kg/m^3
constexpr double lame_lambda = 1e8;   // Pa
constexpr double shear_modulus = 1e8; // Pa: c_s = 223.6 m/s
constexpr double damping_ratio = 0.05;
constexpr double frequency = 100.0;   // Hz
constexpr double pressure = 1e5;      // Pa

struct Case {
  Index divisions = 0, nodes = 0;
  std::string backend;
  bem::HMatrixSolveReport report;
  double seconds = 0.0;  // the compressed solve, all of it
  std::optional<double> dense_seconds;
  std::string dense_why;   // why no dense solve
  double difference = -1;  // max ||u_h| - |u_d|| / max |u_d|, where both ran
  double largest_u = 0.0;  // m
  double stored() const { return static_cast<double>(report.stats.dense_values + report.stats.low_rank_values); }
};

bem::BoundaryMesh cavity(Index divisions) {
  bem::BoundaryMesh mesh = bem::sphere(radius, divisions, {bem::ElementShape::Quadrilateral, 2});
  bem::flip_orientation(mesh);  // the soil outside: normals into the hole
  return mesh;
}

// The pressure on every element, -p n at each node with its own normal.
bem::BoundaryConditions pressure_everywhere(const bem::BoundaryMesh& mesh) {
  bem::BoundaryConditions per_element;
  const auto n = static_cast<std::size_t>(mesh.n_elements());
  per_element.kind.assign(3 * n, bem::Prescribed::Traction);
  per_element.value.assign(3 * n, bem::Complex());
  const std::vector<std::optional<bem::Complex>> p(n, bem::Complex(pressure));
  return bem::conditions_at_nodes(mesh, bem::ElementOrder::Quadratic, per_element, p);
}

std::vector<bem::FrequencyResult> solve(const Exec& exec, const bem::BoundaryMesh& mesh,
                                        const bem::BoundaryConditions& bc, bem::SolverMethod method, double tolerance) {
  bem::SolverOptions options{bem::ElementOrder::Quadratic, {}, {bem::FreeTerm::RigidBody, 1.0}, method, {}, {}};
  options.hmatrix.tolerance = tolerance;
  return bem::solve_frequencies(exec, mesh, density, lame_lambda, shear_modulus, damping_ratio,
                                {2.0 * std::numbers::pi * frequency}, bc, options, {});
}

// Why `d` cannot solve the dense system of n nodes; empty when it can.
std::string dense_refusal(const Device& d, Index n) {
  try {
    bem::check_node_count(n);
  } catch (const Error&) {
    return "H and G exceed one array (check_node_count)";
  }
  return memory_refusal(d, n);
}

// "1.23e-05".
std::string two_digits(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2e", v);
  return text;
}

// Least-squares slope of log y against log x over the points with y > 0 (a small model may have
// no low-rank blocks); "-" where fewer than two are left.
std::optional<double> loglog_slope(const std::vector<double>& x, const std::vector<double>& y) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(y[i] > 0)) continue;
    n += 1;
    const double lx = std::log(x[i]), ly = std::log(y[i]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  if (n < 2) return std::nullopt;
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

std::string exponent_text(std::optional<double> e) { return e ? fixed(*e, 2) : std::string("-"); }
std::string exponent_json(std::optional<double> e) { return e ? str(*e) : std::string("null"); }

// One size on one backend: the compressed solve timed, and the dense one where it fits, compared;
// the line printed. Throws what the solves throw.
Case measure_case(const Device& device, Index d, double tolerance) {
  Case c;
  c.divisions = d;
  c.backend = device.name();
  const bem::BoundaryMesh mesh = cavity(d);
  const bem::BoundaryConditions bc = pressure_everywhere(mesh);
  c.nodes = bem::first_nodes(mesh, bem::ElementOrder::Quadratic).back();
  auto started = Clock::now();
  const std::vector<bem::FrequencyResult> h =
      solve(device.exec, mesh, bc, bem::SolverMethod::Compressed, tolerance);
  c.seconds = seconds_since(started);
  c.report = h[0].hmatrix;
  for (const bem::Complex& v : h[0].u) c.largest_u = std::max(c.largest_u, abs(v));
  c.dense_why = dense_refusal(device, c.nodes);
  if (c.dense_why.empty()) {
    started = Clock::now();
    const std::vector<bem::FrequencyResult> dense =
        solve(device.exec, mesh, bc, bem::SolverMethod::Dense, tolerance);
    c.dense_seconds = seconds_since(started);
    double largest = 0.0, worst = 0.0;
    for (std::size_t k = 0; k < dense[0].u.size(); ++k) {
      largest = std::max(largest, abs(dense[0].u[k]));
      worst = std::max(worst, abs(h[0].u[k] - dense[0].u[k]));
    }
    c.difference = largest > 0 ? worst / largest : 0.0;
  }
  const bem::HMatrixStats& s = c.report.stats;
  std::printf("  %s, %d divisions (%s unknowns): %.3g s (build %.3g s: near field %.3g s, ACA %.3g s in %d steps, "
              "entries %.3g s, recompression %.3g s, storing %.3g s; GMRES %d iterations %.3g s), "
              "%.2f%% of 18 N^2 stored, ranks up to %d; dense %s\n",
              c.backend.c_str(), static_cast<int>(d), group_digits(3 * static_cast<long long>(c.nodes)).c_str(),
              c.seconds, c.report.build_seconds, s.near_seconds, s.aca_seconds, static_cast<int>(s.aca_steps),
              s.aca_entry_seconds, s.recompress_seconds, s.store_seconds, c.report.gmres.iterations,
              c.report.solve_seconds, 100.0 * s.compression, static_cast<int>(s.max_rank),
              c.dense_seconds ? str(fixed(*c.dense_seconds, 3), " s, u ", two_digits(c.difference), " apart").c_str()
                              : str("not run: ", c.dense_why).c_str());
  return c;
}

// The cases as a JSON array and a markdown table.
void write_cases(std::ostringstream& json, std::ostringstream& md, const std::vector<Case>& cases) {
  markdown_head(md, {"backend", "divisions", "unknowns", "compressed s", "build s", "near s", "ACA s (entries)",
                     "recompression s", "storing s", "GMRES", "stored", "dense GB", "low-rank GB", "rank", "dense s",
                     "u apart"},
                "llrrrrrrrrrrrrrr");
  JsonArray entries(json);
  for (const Case& c : cases) {
    const bem::HMatrixStats& s = c.report.stats;
    entries.next() << "{\"backend\": " << json_string(c.backend) << ", \"divisions\": " << c.divisions
                   << ", \"nodes\": " << c.nodes << ", \"unknowns\": " << 3 * c.nodes << ", \"seconds\": " << c.seconds
                   << ", \"build_seconds\": " << c.report.build_seconds << ", \"near_seconds\": " << s.near_seconds
                   << ", \"aca_seconds\": " << s.aca_seconds << ", \"aca_entry_seconds\": " << s.aca_entry_seconds
                   << ", \"aca_steps\": " << s.aca_steps << ", \"recompress_seconds\": " << s.recompress_seconds
                   << ", \"store_seconds\": " << s.store_seconds
                   << ", \"gmres_iterations\": " << c.report.gmres.iterations << ", \"gmres_seconds\": "
                   << c.report.solve_seconds << ", \"stored_values\": " << c.stored() << ", \"dense_values\": "
                   << s.dense_values << ", \"low_rank_values\": " << s.low_rank_values << ", \"compression\": "
                   << s.compression << ", \"max_rank\": " << s.max_rank << ", \"mean_rank\": " << s.mean_rank
                   << ", \"largest_u_m\": " << c.largest_u
                   << ", \"dense_seconds\": " << (c.dense_seconds ? str(*c.dense_seconds) : std::string("null"))
                   << ", \"dense_not_run\": " << json_string(c.dense_why) << ", \"u_apart\": "
                   << (c.difference >= 0 ? str(c.difference) : std::string("null")) << "}";
    markdown_row(md, {c.backend, str(c.divisions), group_digits(3 * static_cast<long long>(c.nodes)),
                      fixed(c.seconds, 2), fixed(c.report.build_seconds, 2), fixed(s.near_seconds, 2),
                      str(fixed(s.aca_seconds, 2), " (", fixed(s.aca_entry_seconds, 2), ")"),
                      fixed(s.recompress_seconds, 2), fixed(s.store_seconds, 2), str(c.report.gmres.iterations, " it."),
                      str(fixed(100.0 * s.compression, 2), "%"), fixed(16e-9 * static_cast<double>(s.dense_values), 2),
                      fixed(16e-9 * static_cast<double>(s.low_rank_values), 2),
                      str(s.max_rank, " (mean ", fixed(s.mean_rank, 1), ")"),
                      c.dense_seconds ? fixed(*c.dense_seconds, 2) : std::string("-"),
                      c.difference >= 0 ? two_digits(c.difference) : std::string("-")});
  }
  entries.close();
}

// Per backend: the stored values' exponents (all, the dense blocks', the low-rank factors'), stored
// / (N log2 N) per size, and the crossover, into a JSON array and the summary.
void write_fits(std::ostringstream& json, std::ostringstream& summary, const std::vector<Device>& devices,
                const std::vector<Case>& cases) {
  JsonArray fits(json);
  for (const Device& device : devices) {
    std::vector<double> x, y, y_dense, y_low, per_n_log_n;
    std::optional<Index> crossover;
    Index largest_dense = 0;
    for (const Case& c : cases) {
      if (c.backend != device.name()) continue;
      x.push_back(static_cast<double>(c.nodes));
      y.push_back(c.stored());
      y_dense.push_back(static_cast<double>(c.report.stats.dense_values));
      y_low.push_back(static_cast<double>(c.report.stats.low_rank_values));
      per_n_log_n.push_back(c.stored() / (x.back() * std::log2(x.back())));
      if (c.dense_seconds) largest_dense = std::max(largest_dense, 3 * c.nodes);
      if (c.dense_seconds && c.seconds < *c.dense_seconds && !crossover) crossover = 3 * c.nodes;
    }
    if (x.size() < 2) continue;
    const std::optional<double> exponent = loglog_slope(x, y);
    // N log N would hold stored / (N log2 N) constant; the parts say which grows faster.
    const std::optional<double> dense_exponent = loglog_slope(x, y_dense), low_rank_exponent = loglog_slope(x, y_low);
    std::string ratios;
    for (double r : per_n_log_n) {
      if (!ratios.empty()) ratios += ", ";
      ratios += fixed(r, 0);
    }
    const std::string cross =
        crossover ? str("the compressed solve first faster at ", group_digits(*crossover), " unknowns")
        : largest_dense > 0
            ? str("the dense solve faster at every size it ran (up to ", group_digits(largest_dense), " unknowns)")
            : std::string("no dense solve ran");
    summary << device.name() << ": stored values grow as N^" << exponent_text(exponent) << " over " << x.size()
            << " sizes (dense blocks N^" << exponent_text(dense_exponent) << ", low-rank N^"
            << exponent_text(low_rank_exponent)
            << "; stored / (N log2 N) " << ratios << "); " << cross << ". ";
    fits.next() << "{\"backend\": " << json_string(device.name())
                << ", \"stored_exponent\": " << exponent_json(exponent)
                << ", \"dense_exponent\": " << exponent_json(dense_exponent)
                << ", \"low_rank_exponent\": " << exponent_json(low_rank_exponent)
                << ", \"crossover_unknowns\": " << (crossover ? str(*crossover) : std::string("null"))
                << ", \"largest_dense_unknowns\": " << largest_dense << "}";
  }
  fits.close();
}

}  // namespace

void run_bem_hmatrix(const BemArgs& args) {
  TREMOR_CHECK(args.tolerance > 0.0 && args.tolerance < 0.1, "--tolerance ", args.tolerance, " outside (0, 0.1)");
  for (const Index d : args.hmatrix)
    TREMOR_CHECK(d >= 1 && d <= 200, "--hmatrix ", d, ": sphere divisions from 1 to 200");
  if (!args.output_dir.empty() && !args.dry_run) make_output_dir(args.output_dir);
  std::vector<std::string> names = args.backends;
  if (names.empty()) names.emplace_back(cuda_device_count() > 0 ? "cuda" : "openmp");
  std::vector<Device> devices = make_devices(names);
  if (!args.dry_run)
    for (Device& d : devices) d.copy = measure_copy(d.exec, args.copy_mb > 0 ? args.copy_mb : (d.host() ? 256 : 1024));
  std::printf("tremor bench bem --hmatrix: the radiating cavity (radius %s m, c_s %s m/s, damping %s, %s Hz) of "
              "9-node quadrilaterals, quadratic elements, tolerance %s; the compressed solve against the dense one\n",
              fixed(radius, 0).c_str(), fixed(std::sqrt(shear_modulus / density), 1).c_str(),
              fixed(damping_ratio, 2).c_str(), fixed(frequency, 0).c_str(), str(args.tolerance).c_str());
  print_devices(devices, !args.dry_run);
  if (args.dry_run) {
    for (const Index d : args.hmatrix)
      std::printf("  %d divisions: %d elements, %d nodes, %d unknowns\n", static_cast<int>(d),
                  static_cast<int>(6 * d * d), static_cast<int>(54 * d * d), static_cast<int>(162 * d * d));
    return;
  }
  RunRecord run{args.commit, args.note};
  std::vector<Case> cases;
  std::vector<Failure> failures;
  for (const Device& device : devices)
    for (const Index d : args.hmatrix) {
      try {
        cases.push_back(measure_case(device, d, args.tolerance));
      } catch (const std::exception& e) {
        failures.push_back({str(device.name(), " ", d, " divisions"), e.what()});
        std::printf("  %s, %d divisions failed: %s\n", device.name().c_str(), static_cast<int>(d), e.what());
      }
    }
  run.finish();

  // The report: the devices, the cases, the fits and the crossover per backend.
  std::ostringstream json, md, summary;
  json << "{\n  \"benchmark\": \"boundary-element compressed solver against the dense one\"";
  run.json_provenance(json);
  run.json_machine(json);
  json << ",\n  \"tolerance\": " << args.tolerance << ",\n  \"frequency_hz\": " << frequency << ",\n  \"backends\": [";
  md << "The compressed boundary-element solver against the dense one, " << run.date << ", commit " << run.commit
     << ": the radiating cavity of 9-node quadrilaterals at " << frequency << " Hz, tolerance " << args.tolerance
     << ".\n\n";
  write_devices(json, md, devices);
  json << "\n  ],\n  \"cases\": ";
  md << "\n";
  write_cases(json, md, cases);
  json << ",\n  \"fits\": ";
  write_fits(json, summary, devices, cases);
  std::printf("%s\n", summary.str().c_str());
  md << "\n" << summary.str() << "\n";
  json << ",\n  \"summary\": " << json_string(summary.str()) << ",\n  ";
  write_skips_and_failures(json, md, {}, failures);
  if (!args.output_dir.empty()) write_report_to(args.output_dir, "bem_hmatrix", json.str(), md.str());
  check_no_failures(failures);
}

}  // namespace tremor::bench
