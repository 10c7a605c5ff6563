// `tremor bench bem`: how fast the boundary-element matrices H and G are assembled and the dense
// system is solved, on every backend of one run (docs/benchmarks.md, "Boundary elements"), after
// the BEM paper (bem-stationary-elastodynamics-gpu, sections 3-5: H and G of constant elements for
// 240, 960, 2160 and 4000 mesh elements, g = 8, serial against OpenMP against CUDA):
//
//   the paper's sizes  half-space ground patches of n quadrilaterals (0.5 m cells; 240 = 20 x 12,
//       960 = 40 x 24, 2160 = 60 x 36, 4000 = 80 x 50), the soil application, Direct free term.
//       H and G here are 3n x 3n (one collocation point per element); the paper's were 3m x 3n
//       with m = 100, 400, 900, 1600 boundary elements (its Table 1: 5n/12, and 0.4 n at 4000), so
//       each size here is 2.4 to 2.5 x the paper's pairs.
//       Per size and backend (both CUDA pair layouts): the assembly time, pairs/s, Gauss points/s
//       (counted exactly by walking the adaptive subdivision on the host) and the speed-ups over
//       serial and OpenMP in the same run.
//   the solve  a rigid square foundation (2 x 2 m) in the patch moved 1 mm vertically, the rest of
//       the ground free: H's columns of the foundation replaced by G's, LU on the host (LAPACK) and
//       on the GPU (cuSOLVER); factor time and GFLOP/s, (8/3) (3n)^3 real flops for the complex LU.
//   the large case  a sphere (a body, the rigid-body free term, its static row sums timed apart)
//       with as many elements as the GPU's free memory holds for H + G and the solve, at most
//       check_node_count's limit (15,446 elements); a cap of it pushed 1 mm for the solve.
//   the guard  H and G of every backend and layout against the OpenMP (else serial) ones at the
//       smallest size, ||H - H_ref||_1 / ||H_ref||_1 and the same for G: a failure above 1e-12.
//
// Every case runs once untimed, then is timed (exec.synchronize() and steady_clock around the
// call) `--repeats` times and more until `--min-seconds` have passed; the median is reported. A
// case whose untimed run took longer than 5 s is timed by that run alone (H and G are touched
// before any run, so a first run adds only launch costs, milliseconds). Serial sizes whose
// estimated time (the previous size's time x (n / n_prev)^2) passes `--max-serial-seconds` are not
// run, and said so.
#include "tremor/bench/bem.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "tremor/backend/bandwidth.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/backend/memory.hpp"
#include "tremor/backend/memory_info.hpp"
#include "tremor/bem/assembly.hpp"
#include "tremor/bem/boundary_mesh.hpp"
#include "tremor/bem/dense.hpp"
#include "tremor/bem/generate.hpp"
#include "tremor/bem/integration.hpp"
#include "tremor/bem/solve.hpp"
#include "tremor/model/bem_problem.hpp"
#include "tremor/bench/bem_hmatrix.hpp"
#include "tremor/bench/report.hpp"
#include "tremor/bench/timing.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"

namespace tremor::bench {

namespace {

using bem::Complex;

// The paper's Table 1: mesh elements n (ours: collocation points too) and its boundary elements m
// (its collocation points): H and G were 3m x 3n there, 3n x 3n here.
const std::vector<Index> paper_sizes{240, 960, 2160, 4000};
const std::vector<Index> paper_boundary_elements{100, 400, 900, 1600};
constexpr double guard_limit = 1e-12;                        // the parity tests' bound; ~1e-16 expected
constexpr double single_run_seconds = 5.0;                   // an untimed run this long is timed instead
constexpr double memory_margin = 0.9;                        // of the free memory a case may plan to use
constexpr std::size_t solve_reserve = std::size_t(1) << 30;  // cuSOLVER's workspace, pivots, vectors

// The soil of examples/bem-foundation, at 20 Hz: 10.6 elements per shear wavelength on the
// patch's 0.5 m cells (diagonal 0.71 m).
constexpr double density = 1800.0;     // kg/m^3
constexpr double shear_speed = 150.0;  // m/s
constexpr double p_speed = 300.0;      // m/s
constexpr double damping_ratio = 0.025;
constexpr double frequency = 20.0;            // Hz
constexpr double cell = 0.5;                  // m, the patch's cells
constexpr double foundation_side = 2.0;       // m, the rigid foundation in the middle of the patch
constexpr double sphere_radius = 10.0;        // m, the large case
constexpr double cap_ratio = 0.5;             // the sphere's elements with centroid |x|, |y| < 0.5 z are pushed
constexpr double pushed_displacement = 1e-3;  // m, vertical

// check_node_count's refusal, naming the option that asked for n elements.
void check_option_count(const char* option, Index n) {
  try {
    bem::check_node_count(n);
  } catch (const Error& e) {
    throw Error(str(option, " ", n, ": ", e.what()));
  }
}

// H and G: 2 x 9 n^2 complex values.
std::size_t matrix_bytes(Index n) { return 2 * 9 * std::size_t(n) * std::size_t(n) * sizeof(Complex); }

// A mesh of the benchmark, with the elements whose displacement the solve prescribes.
struct BenchMesh {
  std::string name;  // "patch" or "large"
  std::string grid;  // "20 x 12 cells" or "sphere, 50 divisions"
  bem::BoundaryMesh mesh;
  bem::FreeTerm free_term = bem::FreeTerm::Direct;
  double rigid_alpha = 0.0;
  std::vector<Index> pushed;
  Index n() const { return mesh.n_elements(); }
  bool large() const { return name == "large"; }
};

// nx x ny = n cells with nx >= ny and nx / ny nearest the paper's 5 : 3 (its sizes give 20 x 12,
// 40 x 24, 60 x 36, 80 x 50).
std::array<Index, 2> patch_grid(Index n) {
  std::array<Index, 2> best{n, 1};
  double best_gap = std::numeric_limits<double>::infinity();
  for (Index ny = 1; Size(ny) * ny <= n; ++ny) {
    if (n % ny) continue;
    const double gap = std::fabs(double(n / ny) / double(ny) - 5.0 / 3.0);
    if (gap < best_gap) {
      best_gap = gap;
      best = {n / ny, ny};
    }
  }
  return best;
}

BenchMesh make_patch(Index n) {
  const auto [nx, ny] = patch_grid(n);
  BenchMesh m;
  m.name = "patch";
  m.grid = str(nx, " x ", ny, " cells");
  m.mesh = bem::halfspace_patch(cell * nx, cell * ny, nx, ny, bem::ElementShape::Quadrilateral,
                                std::array<double, 2>{foundation_side, foundation_side});
  m.pushed = m.mesh.element_sets.at("foundation");
  return m;
}

// The sphere of 6 d^2 <= n quadrilaterals, the solid inside.
BenchMesh make_sphere(Index n) {
  const Index divisions = static_cast<Index>(std::floor(std::sqrt(double(n) / 6.0)));
  TREMOR_CHECK(divisions >= 1, "--large ", n, ": the sphere needs at least 6 elements");
  BenchMesh m;
  m.name = "large";
  m.grid = str("sphere, ", divisions, " divisions");
  m.mesh = bem::sphere(sphere_radius, divisions);
  m.free_term = bem::FreeTerm::RigidBody;
  m.rigid_alpha = 0.0;
  // A cap on the top face of the projected cube (about 6% of the surface; the face's middle
  // element at least).
  for (Index e = 0; e < m.n(); ++e) {
    const std::array<double, 3> c = bem::element_geometry(m.mesh, e).centroid;
    if (std::max(std::fabs(c[0]), std::fabs(c[1])) < cap_ratio * c[2]) m.pushed.push_back(e);
  }
  return m;
}

// The quadrature points the assembly evaluates (u* and t* at each), counted by walking the same
// adaptive subdivision (bem/integration.hpp) on the host: with g^2 lanes, lane 0 visits each piece
// once, so the walk costs a piece, not its g^2 points. The rigid-body row sums walk the regular
// pairs again (t*_static only).
struct PointCount {
  long long regular = 0;   // pairs i != j: pieces x g^2
  long long singular = 0;  // pairs i == j: one Duffy triangle per edge, singular_gauss^2 points each
  long long total() const { return regular + singular; }
};

PointCount count_points(const BenchMesh& m, const bem::IntegrationOptions& options) {
  const Index n = m.n();
  const bem::GaussRule rule = bem::gauss_rule(options.gauss);
  const int lanes = options.gauss * options.gauss;
  const std::vector<double> centres = bem::node_positions(m.mesh, bem::ElementOrder::Constant);
  const double* xi = centres.data();
  long long pieces = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : pieces)
  for (Index j = 0; j < n; ++j) {
    const bem::ElementNodes e = bem::gather_element(m.mesh.coordinates.data(), m.mesh.connectivity.data(), nullptr, j);
    long long count = 0;
    for (Index i = 0; i < n; ++i)
      if (i != j)
        bem::integrate_near(e, xi + 3 * std::size_t(i), rule, options.near_ratio, options.max_depth, 0, lanes,
                            [&](const double*, const double*, const double*, double) { ++count; });
    pieces += count;
  }
  PointCount c;
  c.regular = pieces * lanes;
  for (Index e = 0; e < n; ++e)
    c.singular += static_cast<long long>(m.mesh.n_vertices(e)) * options.singular_gauss * options.singular_gauss;
  return c;
}

// The boundary in one Exec's memory: constant elements, the paper's.
struct DeviceBoundary : bem::DeviceBoundary {
  DeviceBoundary(const Exec& exec, const bem::BoundaryMesh& mesh)
      : bem::DeviceBoundary(exec, mesh, bem::ElementOrder::Constant) {}
};

bem::Medium medium_at(double omega) {
  const double mu = density * shear_speed * shear_speed;
  const double lambda = density * p_speed * p_speed - 2.0 * mu;
  return bem::make_medium(density, lambda, mu, damping_ratio, omega);
}
constexpr double two_pi = 6.283185307179586;

// Every assembly of the benchmark goes through these two: H and G, and the rigid-body row sums
// (frequency-independent: the static kernel, as bem::solve_frequencies computes them).
void assemble(const Exec& exec, const DeviceBoundary& boundary, const BenchMesh& m,
              const bem::IntegrationOptions& options, const Complex* row_sums, Complex* H, Complex* G) {
  bem::assemble(exec, boundary.view(), medium_at(two_pi * frequency), options, m.free_term, m.rigid_alpha,
                         row_sums, H, G);
}
DeviceArray<Complex> row_sums_of(const Exec& exec, const DeviceBoundary& boundary,
                                 const bem::IntegrationOptions& options) {
  return bem::static_row_sums(exec, boundary.view(), medium_at(0.0), options);
}

// Host memory written once before any run, in parallel, so that no timed run pays for the first
// touch of its pages (seconds for H and G at 4000 elements). GPU memory is backed when allocated.
void touch(const Device& d, DeviceArray<Complex>& a) {
  if (!d.host()) return;
  Complex* data = a.data();
  const Index n = a.size();
#pragma omp parallel for schedule(static)
  for (Index i = 0; i < n; ++i) data[i] = Complex();
}

// The timing of every case: an untimed first run above single_run_seconds is kept as the first
// timed one and needs no repeats (its warm-up share is below 1%).
template <class Once>
std::vector<double> time_runs(int repeats, double min_seconds, Once&& once) {
  return warm_then_time(repeats, min_seconds, once, single_run_seconds);
}

struct AssemblyCase {
  std::string mesh;  // "patch" or "large"
  Index elements = 0;
  Backend backend = Backend::Serial;
  std::string layout;  // "-" on the host
  int repeats = 0;
  double ms = 0.0;                    // median
  std::optional<double> row_sums_ms;  // the rigid-body free term's static row sums
  std::optional<double> download_ms;  // H and G copied to the host once (the paper's GPU time includes it)
  long long points = 0;
  double pairs_per_second() const { return 1e3 * double(elements) * double(elements) / ms; }
  double points_per_second() const { return 1e3 * double(points) / ms; }
};

struct SolveCase {
  std::string mesh;
  Index elements = 0;
  std::string backend, solver;
  int threads = 0, repeats = 0;
  double factor_s = 0.0, solve_ms = 0.0, condition_ms = 0.0, total_s = 0.0;  // medians
  double reciprocal_condition = 0.0;
  Complex force;  // vertical force on the pushed elements, N
  Index order() const { return 3 * elements; }
  double flops() const { return 8.0 / 3.0 * std::pow(double(order()), 3); }
  double gflops() const { return 1e-9 * flops() / factor_s; }
};

struct GuardCase {
  Index elements = 0;
  std::string backend, layout, reference;
  double h_error = 0.0, g_error = 0.0;
  bool ok() const { return h_error <= guard_limit && g_error <= guard_limit; }
};

struct MeshRecord {
  std::string name, grid, source, free_term;
  Index elements = 0, pushed = 0;
  PointCount points;
  double count_seconds = 0.0;
};

// Device memory around the allocation of H and G (the large case).
struct MemoryRecord {
  std::string backend;
  std::size_t matrix_bytes = 0, free_before = 0, free_after = 0;
};

std::vector<Device> bem_devices(const BemArgs& args) {
  std::vector<std::string> names = args.backends;
  if (names.empty())
    for (Backend b : available_backends()) names.emplace_back(to_string(b));
  std::vector<Device> devices = make_devices(names);
  // CUDA, then OpenMP, then serial: the host backend that solves and serves as the guard's
  // reference is the first host one that ran a size.
  const auto rank = [](const Device& d) {
    return d.exec.backend() == Backend::Cuda ? 0 : d.exec.backend() == Backend::OpenMP ? 1 : 2;
  };
  std::stable_sort(devices.begin(), devices.end(), [&](const Device& a, const Device& b) { return rank(a) < rank(b); });
  return devices;
}

bem::PairLayout pair_layout(BemLayout layout) {
  return layout == BemLayout::Thread ? bem::PairLayout::ThreadPerPair : bem::PairLayout::BlockPerPair;
}
// `layout` std::nullopt: both.
std::vector<bem::PairLayout> layouts_of(const Device& d, std::optional<BemLayout> layout) {
  if (d.host()) return {bem::PairLayout::BlockPerPair};  // unused on the host: one pair per iteration
  if (layout) return {pair_layout(*layout)};
  return {bem::PairLayout::BlockPerPair, bem::PairLayout::ThreadPerPair};
}
std::string layout_name(const Device& d, bem::PairLayout layout) {
  if (d.host()) return "-";
  return std::string(
      name_of(layout == bem::PairLayout::BlockPerPair ? BemLayout::Block : BemLayout::Thread, bem_layout_names));
}

// The system of the pushed elements: their columns of H replaced by G's, so that the unknowns are
// the free elements' displacements and minus the pushed elements' tractions; b = -H_pushed u_z.
// H's columns read before they are replaced; returns b on the host.
std::vector<Complex> rearrange(const Exec& exec, const BenchMesh& m, Complex* H, const Complex* G) {
  const Size order = 3 * Size(m.n());
  std::vector<Complex> b(static_cast<std::size_t>(order)), column(static_cast<std::size_t>(order));
  const std::size_t column_bytes = sizeof(Complex) * std::size_t(order);
  for (Index e : m.pushed) {
    const Size z = 3 * Size(e) + 2;  // only u_z is non-zero
    memory::copy(exec, column.data(), MemorySpace::Host, H + z * order, exec.space(), column_bytes);
    for (Size row = 0; row < order; ++row) b[std::size_t(row)] -= pushed_displacement * column[std::size_t(row)];
    for (Size c = 3 * Size(e); c < 3 * Size(e) + 3; ++c)
      memory::copy(exec, H + c * order, exec.space(), G + c * order, exec.space(), column_bytes);
  }
  return b;
}

// Vertical force on the pushed elements from the solution x (t_z = -x at their z components).
Complex pushed_force(const BenchMesh& m, const std::vector<Complex>& x) {
  Complex force;
  for (Index e : m.pushed) force -= bem::element_geometry(m.mesh, e).area * x[3 * std::size_t(e) + 2];
  return force;
}

std::string complex_text(Complex c) {
  char text[96];
  std::snprintf(text, sizeof text, "%.6g %c %.6gi", c.re, c.im < 0 ? '-' : '+', std::fabs(c.im));
  return text;
}
std::string json_number(std::optional<double> v) { return v ? str(*v) : std::string("null"); }
std::string three_digits(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

// What one run measured.
struct Results {
  std::vector<MeshRecord> meshes;
  std::vector<AssemblyCase> assembly;
  std::vector<SolveCase> solves;
  std::vector<GuardCase> guard;
  std::vector<MemoryRecord> memory;
  std::vector<Failure> failures;
  std::vector<Skip> skips;
};

// The sizes and the large case: none, asked for (`--large N`, on every backend of the run), or on
// a GPU as many elements as its free memory holds for H + G and the solve's reserve, at most
// check_node_count's limit.
struct Plan {
  std::vector<Index> sizes;
  Index smallest = 0;
  Index large_elements = 0;  // 6 d^2 for d divisions; 0: no large case
  Index large_divisions = 0;
  std::string large_why;  // how its size was chosen, or why there is none
  bool large_on_host = false;
};

Plan make_plan(const BemArgs& args, const std::vector<Device>& devices) {
  Plan plan;
  plan.sizes = args.sizes.empty() ? paper_sizes : args.sizes;
  for (Index n : plan.sizes) {
    TREMOR_CHECK(n >= 1, "--sizes: ", n, " elements; at least 1");
    check_option_count("--sizes", n);
  }
  plan.smallest = *std::min_element(plan.sizes.begin(), plan.sizes.end());
  Index asked = 0;
  if (args.large != "auto") {
    long long value = -1;
    std::size_t used = 0;
    try {
      value = std::stoll(args.large, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    TREMOR_CHECK(used > 0 && used == args.large.size() && value >= 0 && value <= std::numeric_limits<Index>::max(),
                 "--large: '", args.large, "' is neither auto nor a number of elements (0: no large case)");
    if (value == 0) {
      plan.large_why = "--large 0";
      return plan;
    }
    TREMOR_CHECK(value >= 6, "--large ", value, ": the sphere needs at least 6 elements");
    asked = static_cast<Index>(value);
    check_option_count("--large", asked);
    plan.large_why = str("--large ", asked);
    plan.large_on_host = true;
  } else {
    const auto gpu = std::find_if(devices.begin(), devices.end(), [](const Device& d) { return !d.host(); });
    if (gpu == devices.end()) {
      plan.large_why = "no GPU in this run; --large N runs one on the host";
      return plan;
    }
    const double usable = memory_margin * double(gpu->memory.free_bytes) - double(solve_reserve);
    asked = usable > 0 ? static_cast<Index>(std::min(std::sqrt(usable / double(matrix_bytes(1))), 15447.0)) : 0;
    for (; asked > 0; --asked) {  // check_node_count's limit, without its error
      try {
        bem::check_node_count(asked);
        break;
      } catch (const Error&) {
      }
    }
    plan.large_why = str("the free memory of ", gpu->exec.describe(), ", ", gib(gpu->memory.free_bytes));
  }
  plan.large_divisions = static_cast<Index>(std::floor(std::sqrt(double(asked) / 6.0)));
  plan.large_elements = 6 * plan.large_divisions * plan.large_divisions;
  if (plan.large_elements == 0) plan.large_why = str("no sphere fits: ", plan.large_why);
  return plan;
}

bool runs_large(const Plan& plan, const Device& d) {
  return plan.large_elements > 0 && (plan.large_on_host || !d.host());
}

void print_dry_run(const BemArgs& args, const Plan& plan, const std::vector<Device>& devices) {
  std::printf("\nthe paper's sizes (half-space patches of %s m cells, Direct free term):\n", fixed(cell, 1).c_str());
  for (Index n : plan.sizes) {
    const auto grid = patch_grid(n);
    std::printf("  %6s elements  %3d x %-3d cells  %14s pairs (at least %s Gauss points)  H + G %s:",
                group_digits(n).c_str(), grid[0], grid[1], group_digits(Size(n) * n).c_str(),
                group_digits(Size(n) * n * args.gauss * args.gauss).c_str(), gib(matrix_bytes(n)).c_str());
    for (const Device& d : devices) {
      const std::string why = memory_refusal(d, n);
      std::printf("  %s %s", d.name().c_str(),
                  !why.empty()                          ? ("no (" + why + ")").c_str()
                  : d.exec.backend() == Backend::Serial ? "yes, unless its estimate passes --max-serial-seconds"
                                                        : "yes");
    }
    std::printf("\n");
  }
  if (plan.large_elements == 0) {
    std::printf("large case: none (%s)\n", plan.large_why.c_str());
    return;
  }
  std::printf("large case: sphere of %d divisions, %s elements (%s), H + G %s:", plan.large_divisions,
              group_digits(plan.large_elements).c_str(), plan.large_why.c_str(),
              gib(matrix_bytes(plan.large_elements)).c_str());
  for (const Device& d : devices)
    if (runs_large(plan, d)) {
      const std::string why = memory_refusal(d, plan.large_elements);
      std::printf("  %s %s", d.name().c_str(), why.empty() ? "yes" : ("no (" + why + ")").c_str());
    }
  std::printf("\n");
}

// H and G on the host, per "backend/layout", at the smallest size: the guard's inputs.
using GuardCopies = std::map<std::string, std::pair<std::vector<Complex>, std::vector<Complex>>>;

// What carries from one mesh to the next.
struct Runner {
  const BemArgs& args;
  bem::IntegrationOptions options;
  Results& results;
  std::optional<std::pair<Index, double>> last_serial;  // serial's last size: elements, seconds
  GuardCopies guard_copies;
};

// The pushed elements' system (rearrange) factored and solved: each run on a fresh copy of A in
// G's memory (G is not needed after the rearrangement), A kept in H.
SolveCase time_solve(const BemArgs& args, const Device& d, const BenchMesh& m, DeviceArray<Complex>& H,
                     DeviceArray<Complex>& G) {
  SolveCase s;
  s.mesh = m.name;
  s.elements = m.n();
  s.backend = d.name();
  const Index order = 3 * m.n();
  const std::vector<Complex> b = rearrange(d.exec, m, H.data(), G.data());
  const DeviceArray<Complex> rhs(d.exec, std::span<const Complex>(b));
  DeviceArray<Complex> x(d.exec, order);
  const std::size_t matrix = sizeof(Complex) * std::size_t(order) * std::size_t(order);
  std::vector<double> factor, solve, condition;
  bem::DenseSolveReport report;
  const std::vector<double> times = time_runs(args.repeats, args.min_seconds, [&] {
    memory::copy(d.exec, G.data(), d.exec.space(), H.data(), d.exec.space(), matrix);
    memory::copy(d.exec, x.data(), d.exec.space(), rhs.data(), d.exec.space(), sizeof(Complex) * b.size());
    d.exec.synchronize();
    const auto start = Clock::now();
    report = bem::solve_dense(d.exec, order, 1, G.data(), x.data());
    d.exec.synchronize();
    factor.push_back(report.factor_seconds);
    solve.push_back(report.solve_seconds);
    condition.push_back(report.condition_seconds);
    return seconds_since(start);
  });
  s.repeats = int(times.size());
  s.total_s = median(times);
  s.factor_s = median(timed_values(factor, times.size()));
  s.solve_ms = 1e3 * median(timed_values(solve, times.size()));
  s.condition_ms = 1e3 * median(timed_values(condition, times.size()));
  s.solver = report.backend;
  s.threads = report.threads;
  s.reciprocal_condition = report.reciprocal_condition;
  s.force = pushed_force(m, x.to_host());
  return s;
}

// Mesh m on device d: the row sums (rigid-body free term), H and G in each layout, the download
// (GPU, not the large case), the guard's copies, and the solve when `solve`.
void run_on_device(Runner& r, const Device& d, const BenchMesh& m, long long points, bool keep_for_guard, bool solve) {
  const Index n = m.n();
  const DeviceBoundary boundary(d.exec, m.mesh);
  const std::size_t free_before = memory_info(d.exec).free_bytes;
  DeviceArray<Complex> H(d.exec, Index(9 * Size(n) * n)), G(d.exec, Index(9 * Size(n) * n));
  touch(d, H);
  touch(d, G);
  if (m.large()) {
    const MemoryRecord memory{d.name(), matrix_bytes(n), free_before, memory_info(d.exec).free_bytes};
    std::printf("  %-7s H and G allocated: %s (free memory %s -> %s)\n", d.name().c_str(),
                gib(memory.matrix_bytes).c_str(), gib(memory.free_before).c_str(), gib(memory.free_after).c_str());
    r.results.memory.push_back(memory);
  }
  DeviceArray<Complex> row_sums;
  std::optional<double> row_sums_ms;
  if (m.free_term == bem::FreeTerm::RigidBody) {
    const std::vector<double> times = time_runs(r.args.repeats, r.args.min_seconds, [&] {
      d.exec.synchronize();
      const auto start = Clock::now();
      row_sums = row_sums_of(d.exec, boundary, r.options);
      d.exec.synchronize();
      return seconds_since(start);
    });
    row_sums_ms = 1e3 * median(times);
  }
  const std::vector<bem::PairLayout> layouts = layouts_of(d, r.args.layout);
  for (std::size_t k = 0; k < layouts.size(); ++k) {
    bem::IntegrationOptions options = r.options;
    options.layout = layouts[k];
    AssemblyCase c;
    c.mesh = m.name;
    c.elements = n;
    c.backend = d.exec.backend();
    c.layout = layout_name(d, layouts[k]);
    c.points = points;
    c.row_sums_ms = row_sums_ms;
    const std::vector<double> times = time_runs(r.args.repeats, r.args.min_seconds, [&] {
      d.exec.synchronize();
      const auto start = Clock::now();
      assemble(d.exec, boundary, m, options, row_sums.data(), H.data(), G.data());
      d.exec.synchronize();
      return seconds_since(start);
    });
    c.repeats = int(times.size());
    c.ms = 1e3 * median(times);
    // The paper's GPU time includes bringing H and G back to the host: timed once, after the last
    // layout, where the host holds them easily (not for the large case).
    const bool download = !d.host() && k + 1 == layouts.size() && !m.large();
    if (keep_for_guard || download) {
      // Into host arrays allocated and touched beforehand, as the paper's were.
      const std::size_t values = std::size_t(H.size());
      std::pair<std::vector<Complex>, std::vector<Complex>> copy{std::vector<Complex>(values),
                                                                 std::vector<Complex>(values)};
      const auto start = Clock::now();
      memory::copy(d.exec, copy.first.data(), MemorySpace::Host, H.data(), d.exec.space(), sizeof(Complex) * values);
      memory::copy(d.exec, copy.second.data(), MemorySpace::Host, G.data(), d.exec.space(), sizeof(Complex) * values);
      if (download) c.download_ms = 1e3 * seconds_since(start);
      if (keep_for_guard) r.guard_copies[d.name() + "/" + c.layout] = std::move(copy);
    }
    std::printf("  %-7s %-6s %3d runs %12.3f ms%s  %10.4g pairs/s %10.4g points/s%s\n",
                std::string(to_string(c.backend)).c_str(),
                c.layout.c_str(), c.repeats, c.ms,
                row_sums_ms ? str(" + row sums ", fixed(*row_sums_ms, 3), " ms").c_str() : "", c.pairs_per_second(),
                c.points_per_second(),
                c.download_ms ? str("  download ", fixed(*c.download_ms, 1), " ms").c_str() : "");
    std::fflush(stdout);
    r.results.assembly.push_back(c);
    if (d.exec.backend() == Backend::Serial) r.last_serial = std::make_pair(n, 1e-3 * c.ms);
  }
  if (!solve) return;
  const SolveCase s = time_solve(r.args, d, m, H, G);
  std::printf(
      "  %-7s solve  %3d runs  LU of order %s: factor %.3f ms (%.1f GFLOP/s), solve %.3f ms, condition %.3f "
      "ms, total %.3f ms, %s%s, 1/cond %.3g; vertical force %s N\n",
      s.backend.c_str(), s.repeats, group_digits(s.order()).c_str(), 1e3 * s.factor_s, s.gflops(), s.solve_ms,
      s.condition_ms, 1e3 * s.total_s, s.solver.c_str(), s.threads > 0 ? str(", ", s.threads, " threads").c_str() : "",
      s.reciprocal_condition, complex_text(s.force).c_str());
  std::fflush(stdout);
  r.results.solves.push_back(s);
}

// Mesh m on the devices `on`: the Gauss points counted, then each device unless serial's estimate
// or the memory rules it out. The first host device that runs it solves on the host (LAPACK runs
// its own threads whichever host backend calls it); the GPU solves with cuSOLVER.
void run_mesh(Runner& r, const BenchMesh& m, const std::vector<const Device*>& on, bool keep_for_guard) {
  const Index n = m.n();
  MeshRecord record{m.name,
                    m.grid,
                    m.mesh.source,
                    std::string(name_of(m.free_term == bem::FreeTerm::RigidBody ? BemFreeTerm::RigidBody
                                                                                : BemFreeTerm::Direct,
                                        bem_free_term_names)),
                    n,
                    Index(m.pushed.size()),
                    {},
                    0.0};
  const auto count_start = Clock::now();
  record.points = count_points(m, r.options);
  record.count_seconds = seconds_since(count_start);
  r.results.meshes.push_back(record);
  std::printf(
      "\n%s: %s elements (%s, %s), %s pairs, %s Gauss points (%.1f per pair; at least %d), H + G %s, %s "
      "pushed elements\n",
      m.name.c_str(), group_digits(n).c_str(), m.grid.c_str(), record.free_term.c_str(),
      group_digits(Size(n) * n).c_str(), group_digits(record.points.total()).c_str(),
      double(record.points.total()) / (double(n) * double(n)), r.options.gauss * r.options.gauss,
      gib(matrix_bytes(n)).c_str(), group_digits(record.pushed).c_str());
  bool host_solved = false;
  for (const Device* device : on) {
    const Device& d = *device;
    std::string why = memory_refusal(d, n);
    if (why.empty() && d.exec.backend() == Backend::Serial && r.last_serial) {
      const double ratio = double(n) / double(r.last_serial->first);
      const double estimate = r.last_serial->second * ratio * ratio;
      if (estimate > r.args.max_serial_seconds)
        why = str("estimated ", fixed(estimate, 0), " s from ", fixed(r.last_serial->second, 2), " s at ",
                  r.last_serial->first, " elements, above --max-serial-seconds ", fixed(r.args.max_serial_seconds, 0));
    }
    if (!why.empty()) {
      r.results.skips.push_back({str(m.name, " ", n, " on ", d.name()), why});
      std::printf("  %-7s not run: %s\n", d.name().c_str(), why.c_str());
      continue;
    }
    const bool solve = !r.args.no_solve && (!d.host() || !host_solved);
    if (d.host() && solve) host_solved = true;
    try {
      run_on_device(r, d, m, record.points.total(), keep_for_guard, solve);
    } catch (const std::exception& e) {
      r.results.failures.push_back({str(m.name, " ", n, " on ", d.name()), e.what()});
      std::printf("  %-7s failed: %s\n", d.name().c_str(), e.what());
    }
  }
}

// Every backend and layout against the first host backend at the smallest size; with no host
// backend in the run, against a host assembly made for the purpose.
void run_guard(Runner& r, const std::vector<Device>& devices, Index smallest) {
  if (r.guard_copies.empty()) return;
  std::string reference;
  for (const Device& d : devices)
    if (d.host() && r.guard_copies.count(d.name() + "/-")) {
      reference = d.name() + "/-";
      break;
    }
  if (reference.empty()) {
    const Exec host = host_exec(devices.front().exec);
    const BenchMesh m = make_patch(smallest);
    const DeviceBoundary boundary(host, m.mesh);
    DeviceArray<Complex> H(host, Index(9 * Size(smallest) * smallest)), G(host, Index(9 * Size(smallest) * smallest));
    assemble(host, boundary, m, r.options, nullptr, H.data(), G.data());
    reference = std::string(to_string(host.backend())) + "/-";
    r.guard_copies[reference] = {H.to_host(), G.to_host()};
  }
  const auto& [H_ref, G_ref] = r.guard_copies.at(reference);
  const Index order = 3 * smallest;
  const Exec serial = Exec::serial();
  const double h_norm = bem::norm_1(serial, order, order, H_ref.data());
  const double g_norm = bem::norm_1(serial, order, order, G_ref.data());
  for (const auto& [key, copy] : r.guard_copies) {
    if (key == reference) continue;
    std::vector<Complex> dh(H_ref.size()), dg(G_ref.size());
    for (std::size_t i = 0; i < dh.size(); ++i) {
      dh[i] = copy.first[i] - H_ref[i];
      dg[i] = copy.second[i] - G_ref[i];
    }
    GuardCase g;
    g.elements = smallest;
    g.backend = key.substr(0, key.find('/'));
    g.layout = key.substr(key.find('/') + 1);
    g.reference = reference.substr(0, reference.find('/'));
    g.h_error = bem::norm_1(serial, order, order, dh.data()) / h_norm;
    g.g_error = bem::norm_1(serial, order, order, dg.data()) / g_norm;
    std::printf("guard at %d elements: %s %s against %s: ||dH||_1 / ||H||_1 = %.3g, ||dG||_1 / ||G||_1 = %.3g%s\n",
                smallest, g.backend.c_str(), g.layout.c_str(), g.reference.c_str(), g.h_error, g.g_error,
                g.ok() ? "" : str(": above ", guard_limit).c_str());
    if (!g.ok())
      r.results.failures.push_back({str("guard ", g.backend, " ", g.layout, " at ", smallest, " elements"),
                                    str("||dH||_1 / ||H||_1 = ", g.h_error, ", ||dG||_1 / ||G||_1 = ", g.g_error,
                                        " against ", g.reference, ", above ", guard_limit)});
    r.results.guard.push_back(g);
  }
}

// The case of `backend` beside c (same mesh and size, its first layout), or null.
const AssemblyCase* find_case(const Results& results, const AssemblyCase& c, Backend backend) {
  for (const AssemblyCase& o : results.assembly)
    if (o.backend == backend && o.mesh == c.mesh && o.elements == c.elements) return &o;
  return nullptr;
}

// Faster backends over slower ones: OpenMP and CUDA over serial, CUDA over OpenMP.
std::optional<double> speedup(const Results& results, const AssemblyCase& c, Backend over) {
  if (c.backend == over || c.backend == Backend::Serial) return std::nullopt;
  const AssemblyCase* o = find_case(results, c, over);
  if (!o) return std::nullopt;
  return o->ms / c.ms;
}

// The paper's comparison at the largest of the patch sizes serial ran.
std::string summary_text(const Results& results) {
  const AssemblyCase* serial = nullptr;
  for (const AssemblyCase& c : results.assembly)
    if (c.mesh == "patch" && c.backend == Backend::Serial && (!serial || c.elements > serial->elements)) serial = &c;
  if (!serial)
    return "No serial run: no speed-up over serial to set beside the paper's (OpenMP 2.7x, CUDA 107x at 4000 mesh "
           "elements).";
  std::ostringstream t;
  t << "At " << serial->elements << " elements (the largest size serial ran), over serial:";
  for (const AssemblyCase& c : results.assembly)
    if (c.mesh == "patch" && c.elements == serial->elements && c.backend != Backend::Serial)
      t << " " << to_string(c.backend) << (c.layout == "-" ? "" : " " + c.layout) << " "
        << fixed(*speedup(results, c, Backend::Serial), 1) << "x;";
  t << " the paper, at 4000 mesh elements and 1600 boundary elements: OpenMP (4 threads) 2.7x, CUDA (GTX 980) 107x.";
  return t.str();
}

void write_results(const BemArgs& args, const std::vector<Device>& devices, const Plan& plan,
                   const bem::IntegrationOptions& options, const Results& results, const RunRecord& run,
                   const std::string& summary) {
  std::ostringstream json, md;
  json << "{\n  \"benchmark\": \"boundary-element H and G assembly and dense solve\"";
  run.json_provenance(json);
  run.json_machine(json);
  json << ",\n  \"repeats\": " << args.repeats
       << ",\n  \"min_seconds\": " << args.min_seconds << ",\n  \"max_serial_seconds\": " << args.max_serial_seconds
       << ",\n  \"single_run_seconds\": " << single_run_seconds
       << ",\n  \"no_solve\": " << (args.no_solve ? "true" : "false")
       << ",\n  \"integration\": {\"gauss\": " << options.gauss << ", \"singular_gauss\": " << options.singular_gauss
       << ", \"near_ratio\": " << options.near_ratio << ", \"max_depth\": " << options.max_depth
       << "},\n  \"material\": {\"density\": " << density << ", \"s_wave_speed\": " << shear_speed
       << ", \"p_wave_speed\": " << p_speed << ", \"damping_ratio\": " << damping_ratio
       << ", \"frequency_hz\": " << frequency << "},\n  \"paper\": {\"sizes\": [";
  for (std::size_t i = 0; i < paper_sizes.size(); ++i) json << (i ? ", " : "") << paper_sizes[i];
  json << "], \"boundary_elements\": [";
  for (std::size_t i = 0; i < paper_sizes.size(); ++i) json << (i ? ", " : "") << paper_boundary_elements[i];
  json << "], \"speedup_openmp_over_serial\": 2.7, \"speedup_cuda_over_serial\": 107, \"gpu\": \"GeForce GTX 980\", "
          "\"openmp_threads\": 4, \"matrices\": \"3m x 3n for m boundary and n mesh elements; here 3n x 3n, n / m = "
          "2.4 to 2.5 times the pairs\"},\n  \"summary\": "
       << json_string(summary) << ",\n  \"backends\": [";
  md << "Boundary-element H and G (BEM paper, sections 3-5), " << run.date << ", commit " << run.commit
     << "; constant quadrilaterals, g = " << options.gauss << " (" << options.singular_gauss
     << " per singular triangle), near ratio " << options.near_ratio << ", depth " << options.max_depth << "; soil "
     << density << " kg/m^3, c_s " << shear_speed << " m/s, c_p " << p_speed << " m/s, damping " << damping_ratio
     << ", " << frequency << " Hz; medians of " << args.repeats << " or more runs after one untimed (a first run over "
     << single_run_seconds << " s is timed alone).\n\n"
     << "H and G here are 3n x 3n for n elements (one collocation point each); the paper's were 3m x 3n with m "
        "boundary elements (its Table 1: 100, 400, 900, 1600 for n = 240, 960, 2160, 4000), so each size here is 2.4 "
        "to 2.5 times the paper's pairs.\n\n";
  write_devices(json, md, devices);

  json << "\n  ],\n  \"meshes\": [";
  md << "\nMeshes: the paper's sizes as half-space patches (Direct free term, a " << foundation_side << " x "
     << foundation_side << " m foundation pushed in the solve), the large case a sphere (rigid-body free term, a cap "
     << "pushed). Gauss points counted exactly by walking the adaptive subdivision (g^2 per piece: near pairs are "
        "split), each evaluating u* and t*.\n\n"
     << "| case | mesh | elements | pairs | Gauss points | per pair | free term | pushed | H + G |\n"
     << "|---|---|---:|---:|---:|---:|---|---:|---:|\n";
  for (std::size_t i = 0; i < results.meshes.size(); ++i) {
    const MeshRecord& r = results.meshes[i];
    const double pairs = double(r.elements) * double(r.elements);
    json << (i ? ",\n" : "\n") << "    {\"case\": " << json_string(r.name) << ", \"mesh\": " << json_string(r.grid)
         << ", \"source\": " << json_string(r.source) << ", \"elements\": " << r.elements
         << ", \"pairs\": " << Size(r.elements) * r.elements << ", \"regular_points\": " << r.points.regular
         << ", \"singular_points\": " << r.points.singular << ", \"gauss_points\": " << r.points.total()
         << ", \"points_per_pair\": " << double(r.points.total()) / pairs << ", \"count_seconds\": " << r.count_seconds
         << ", \"free_term\": " << json_string(r.free_term) << ", \"pushed_elements\": " << r.pushed
         << ", \"matrix_bytes\": " << matrix_bytes(r.elements) << "}";
    md << "| " << r.name << " | " << r.grid << " | " << r.elements << " | "
       << group_digits(Size(r.elements) * r.elements) << " | " << group_digits(r.points.total()) << " | "
       << fixed(double(r.points.total()) / pairs, 1) << " | " << r.free_term << " | " << r.pushed << " | "
       << gib(matrix_bytes(r.elements)) << " |\n";
  }

  json << (results.meshes.empty() ? "" : "\n  ") << "],\n  \"assembly\": [";
  md << "\nAssembly of H and G (bem::assemble, constant elements), median ms; row sums: the rigid-body free term's static sums, "
        "timed apart; download: H and G copied to the host once (the paper's GPU time includes it); speed-ups from "
        "the same run.\n\n"
     << "| case | elements | backend | layout | runs | H and G ms | row sums ms | download ms | pairs/s | Gauss "
        "points/s "
        "| x serial | x OpenMP |\n|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  const auto or_dash = [](std::optional<double> v, int digits) { return v ? fixed(*v, digits) : std::string("-"); };
  for (std::size_t i = 0; i < results.assembly.size(); ++i) {
    const AssemblyCase& c = results.assembly[i];
    const std::optional<double> x_serial = speedup(results, c, Backend::Serial);
    const std::optional<double> x_openmp = speedup(results, c, Backend::OpenMP);
    json << (i ? ",\n" : "\n") << "    {\"case\": " << json_string(c.mesh) << ", \"elements\": " << c.elements
         << ", \"backend\": " << json_string(std::string(to_string(c.backend)))
         << ", \"layout\": " << json_string(c.layout)
         << ", \"repeats\": " << c.repeats << ", \"assembly_ms\": " << c.ms
         << ", \"row_sums_ms\": " << json_number(c.row_sums_ms) << ", \"download_ms\": " << json_number(c.download_ms)
         << ", \"pairs\": " << Size(c.elements) * c.elements << ", \"gauss_points\": " << c.points
         << ", \"pairs_per_second\": " << c.pairs_per_second()
         << ", \"gauss_points_per_second\": " << c.points_per_second()
         << ", \"speedup_over_serial\": " << json_number(x_serial)
         << ", \"speedup_over_openmp\": " << json_number(x_openmp) << "}";
    md << "| " << c.mesh << " | " << c.elements << " | " << to_string(c.backend) << " | " << c.layout << " | "
       << c.repeats
       << " | " << fixed(c.ms, 3) << " | " << or_dash(c.row_sums_ms, 3) << " | " << or_dash(c.download_ms, 1) << " | "
       << si(c.pairs_per_second()) << " | " << si(c.points_per_second()) << " | " << or_dash(x_serial, 1) << " | "
       << or_dash(x_openmp, 1) << " |\n";
  }
  md << "\n" << summary << "\n";

  json << (results.assembly.empty() ? "" : "\n  ") << "],\n  \"solve\": [";
  if (!results.solves.empty())
    md << "\nDense solve (bem::solve_dense: LU with partial pivoting, the condition estimate included in the total), "
          "medians, each run on a fresh copy of A; GFLOP/s of the factorisation, (8/3) (3n)^3 real flops; the "
          "vertical force on the pushed elements, the same problem on every backend. 1/cond is small because H is "
          "dimensionless and G in m/Pa.\n\n"
       << "| case | elements | order | backend | solver | threads | runs | factor ms | GFLOP/s | solve ms | condition "
          "ms | total ms | 1/cond | force N |\n|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (std::size_t i = 0; i < results.solves.size(); ++i) {
    const SolveCase& s = results.solves[i];
    const bool finite = std::isfinite(s.reciprocal_condition);
    json << (i ? ",\n" : "\n") << "    {\"case\": " << json_string(s.mesh) << ", \"elements\": " << s.elements
         << ", \"order\": " << s.order() << ", \"backend\": " << json_string(s.backend)
         << ", \"solver\": " << json_string(s.solver) << ", \"threads\": " << s.threads
         << ", \"repeats\": " << s.repeats << ", \"factor_seconds\": " << s.factor_s << ", \"solve_ms\": " << s.solve_ms
         << ", \"condition_ms\": " << s.condition_ms << ", \"total_seconds\": " << s.total_s
         << ", \"flops\": " << s.flops() << ", \"gflops_per_second\": " << s.gflops()
         << ", \"reciprocal_condition\": " << (finite ? str(s.reciprocal_condition) : std::string("null"))
         << ", \"vertical_force\": [" << s.force.re << ", " << s.force.im << "]}";
    md << "| " << s.mesh << " | " << s.elements << " | " << s.order() << " | " << s.backend << " | " << s.solver
       << " | " << (s.threads > 0 ? str(s.threads) : "-") << " | " << s.repeats << " | " << fixed(1e3 * s.factor_s, 3)
       << " | " << fixed(s.gflops(), 1) << " | " << fixed(s.solve_ms, 3) << " | " << fixed(s.condition_ms, 3) << " | "
       << fixed(1e3 * s.total_s, 3) << " | " << (finite ? three_digits(s.reciprocal_condition) : "-") << " | "
       << complex_text(s.force) << " |\n";
  }

  json << (results.solves.empty() ? "" : "\n  ") << "],\n  \"guard\": {\"limit\": " << guard_limit
       << ", \"elements\": " << plan.smallest << ", \"cases\": [";
  if (!results.guard.empty())
    md << "\nGuard at " << plan.smallest << " elements: ||H - H_ref||_1 / ||H_ref||_1 and the same for G (a failure "
       << "above " << guard_limit << "; the paper checked 1e-4, absolute).\n\n"
       << "| backend | layout | against | H | G |\n|---|---|---|---:|---:|\n";
  for (std::size_t i = 0; i < results.guard.size(); ++i) {
    const GuardCase& g = results.guard[i];
    json << (i ? ",\n" : "\n") << "    {\"backend\": " << json_string(g.backend)
         << ", \"layout\": " << json_string(g.layout) << ", \"reference\": " << json_string(g.reference)
         << ", \"h_relative_error\": " << g.h_error << ", \"g_relative_error\": " << g.g_error
         << ", \"ok\": " << (g.ok() ? "true" : "false") << "}";
    md << "| " << g.backend << " | " << g.layout << " | " << g.reference << " | " << three_digits(g.h_error) << " | "
       << three_digits(g.g_error) << " |\n";
  }

  json << (results.guard.empty() ? "" : "\n  ") << "]},\n  \"large\": {\"elements\": " << plan.large_elements
       << ", \"divisions\": " << plan.large_divisions << ", \"why\": " << json_string(plan.large_why)
       << ", \"matrix_bytes\": " << (plan.large_elements > 0 ? matrix_bytes(plan.large_elements) : 0)
       << ", \"memory\": [";
  if (!results.memory.empty()) md << "\nLarge case, memory around the allocation of H and G:";
  for (std::size_t i = 0; i < results.memory.size(); ++i) {
    const MemoryRecord& m = results.memory[i];
    json << (i ? ", " : "") << "{\"backend\": " << json_string(m.backend) << ", \"matrix_bytes\": " << m.matrix_bytes
         << ", \"free_before_bytes\": " << m.free_before << ", \"free_after_bytes\": " << m.free_after << "}";
    md << (i ? ";" : "") << " " << m.backend << ": H and G " << gib(m.matrix_bytes) << ", free " << gib(m.free_before)
       << " -> " << gib(m.free_after);
  }
  if (!results.memory.empty()) md << ".\n";
  json << "]},\n  ";
  write_skips_and_failures(json, md, results.skips, results.failures);

  std::printf("\n%s", md.str().c_str());
  if (!args.output_dir.empty()) write_report_to(args.output_dir, "bem", json.str(), md.str());
}

}  // namespace

// Why `d` cannot hold H and G of n elements (and the solve's reserve on a GPU); empty when it can.
std::string memory_refusal(const Device& d, Index n) {
  const std::size_t bytes = matrix_bytes(n) + (d.host() ? 0 : solve_reserve);
  if (d.memory.free_bytes > 0 && double(bytes) > memory_margin * double(d.memory.free_bytes))
    return str("H and G need ", gib(matrix_bytes(n)), ", ", gib(d.memory.free_bytes), " free");
  return "";
}

void run_bem(const BemArgs& args) {
  if (!args.hmatrix.empty()) {
    run_bem_hmatrix(args);
    return;
  }
  bem::IntegrationOptions options;
  options.gauss = args.gauss;
  options.singular_gauss = args.gauss;
  (void)bem::gauss_rule(args.gauss);  // an unsupported g refused before anything runs
  if (!args.output_dir.empty() && !args.dry_run) make_output_dir(args.output_dir);
  std::vector<Device> devices = bem_devices(args);
  const Plan plan = make_plan(args, devices);  // sizes and --large checked before anything is measured
  if (!args.dry_run)
    for (Device& d : devices) {
      const int mb = args.copy_mb > 0 ? args.copy_mb : (d.host() ? 256 : 1024);
      d.copy = measure_copy_bandwidth(d.exec, std::size_t(mb) << 20);
    }

  std::printf(
      "tremor bench bem: H and G of constant elements, g = %d (%d per singular triangle), near ratio %s, depth "
      "%d; soil %s kg/m^3, c_s %s m/s, c_p %s m/s, damping %s, %s Hz; every case once untimed, then the median "
      "of %d or more runs (at least %.2f s)\n",
      options.gauss, options.singular_gauss, fixed(options.near_ratio, 1).c_str(), options.max_depth,
      fixed(density, 0).c_str(), fixed(shear_speed, 0).c_str(), fixed(p_speed, 0).c_str(),
      fixed(damping_ratio, 3).c_str(), fixed(frequency, 0).c_str(), args.repeats, args.min_seconds);
  std::printf(
      "our H and G are 3n x 3n for n elements (one collocation point each); the paper's were 3m x 3n with m = "
      "100, 400, 900, 1600 boundary elements at its sizes: 2.4 to 2.5 times its pairs\n");
  print_devices(devices, !args.dry_run);
  if (args.dry_run) {
    print_dry_run(args, plan, devices);
    return;
  }

  RunRecord run{args.commit, args.note};
  Results results;
  Runner runner{args, options, results, std::nullopt, {}};
  std::vector<const Device*> all, large_on;
  for (const Device& d : devices) {
    all.push_back(&d);
    if (runs_large(plan, d)) large_on.push_back(&d);
  }
  std::printf("\nthe paper's sizes: half-space patches of %s m cells, a %s x %s m rigid foundation in the middle\n",
              fixed(cell, 1).c_str(), fixed(foundation_side, 0).c_str(), fixed(foundation_side, 0).c_str());
  for (Index n : plan.sizes) {
    try {
      run_mesh(runner, make_patch(n), all, n == plan.smallest);
    } catch (const std::exception& e) {
      results.failures.push_back({str("patch ", n), e.what()});
      std::printf("  patch %d failed: %s\n", n, e.what());
    }
  }
  try {
    run_guard(runner, devices, plan.smallest);
  } catch (const std::exception& e) {
    results.failures.push_back({"guard", e.what()});
    std::printf("guard failed: %s\n", e.what());
  }
  runner.guard_copies.clear();

  if (plan.large_elements > 0) {
    std::printf(
        "\nlarge case: sphere of radius %s m, %d divisions (%s), rigid-body free term, a cap pushed (the "
        "elements with centroid |x|, |y| < %s z)\n",
        fixed(sphere_radius, 0).c_str(), plan.large_divisions, plan.large_why.c_str(), fixed(cap_ratio, 1).c_str());
    try {
      run_mesh(runner, make_sphere(plan.large_elements), large_on, false);
    } catch (const std::exception& e) {
      results.failures.push_back({"large", e.what()});
      std::printf("  large case failed: %s\n", e.what());
    }
  } else {
    results.skips.push_back({"large case", plan.large_why});
    std::printf("\nlarge case: not run (%s)\n", plan.large_why.c_str());
  }
  run.finish();
  const std::string summary = summary_text(results);
  std::printf("\n%s\n", summary.c_str());
  write_results(args, devices, plan, options, results, run, summary);
  check_no_failures(results.failures);
}

}  // namespace tremor::bench
