#pragma once
// The boundary-element solver end to end (docs/bem.md, "Running `tremor bem`"): from a BemProblem
// (model/bem_problem.hpp, as a [bem] model file states it) to the solution at each frequency.
//
//   1. plan_bem: the settings (RunOptions where given, else the problem's [bem] table), the
//      surface mesh built from the problem's source and oriented with its normals out of the
//      solid, its checks (check_boundary_mesh), the size of H and G, the backend, the free term,
//      the resolution at the highest frequency, the boundary conditions per element and the
//      interior points' side of the surface. Every refusal is a tremor::Error naming the model
//      file's line; nothing is integrated yet.
//   2. run_bem: refuses a mesh far too coarse (unless allow_coarse; a warning when merely coarse),
//      then solves each frequency in turn (bem::solve_frequencies) and hands each to the Observer
//      as soon as it is solved, with what a caller reports of it: the values at the elements'
//      centres, the resultant force and dynamic stiffness of each set with a prescribed
//      displacement, the largest boundary displacement. Between frequencies the Observer may ask
//      to stop (status Stopped); a frequency that fails (a singular system) ends the run with
//      status Failed, keeping those solved before it.
//
// Writing files and printing belong to the caller (the CLI writes each frequency through
// io::ResultFile from Observer::on_frequency).
#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tremor/backend/exec.hpp"
#include "tremor/bem/assembly.hpp"
#include "tremor/bem/boundary_mesh.hpp"
#include "tremor/bem/solve.hpp"
#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"
#include "tremor/model/bem_problem.hpp"

namespace tremor::bem {

// Overrides of the problem's [bem] settings (not given or 0: the problem's).
struct RunOptions {
  BackendOverride backend;
  std::optional<BemFreeTerm> free_term;
  std::optional<BemElements> elements;
  std::optional<BemSolver> solver;
  double tolerance = 0.0;  // the compressed solver's, in (0, 0.1)
  int gauss = 0;          // Gauss points per direction per element piece, 1 to 16
  // Solve a mesh with fewer than half the minimum elements per shear wavelength (warned, not
  // refused).
  bool allow_coarse = false;
  // Keep each frequency's boundary fields (u and t per element and node) in RunResult; a caller
  // that writes them as they come (Observer::on_frequency) keeps only the interior values and
  // forces, which are small.
  bool keep_boundary_fields = true;
};

// The boundary conditions of BemProblem::boundary translated per element.
struct ElementConditions {
  BoundaryConditions values;              // 3 per element: a pressure p is the traction -p n
  // Per element, the pressure where one is given: a curved element's nodes take -p n with the
  // normal at each (conditions_at_nodes).
  std::vector<std::optional<Complex>> pressure;
  std::vector<std::int32_t> prescribed;   // 3 per element: 1 where the displacement is given
  std::vector<Index> set_sizes;           // per BemProblem::boundary entry: the elements of its set
  // The sets with a prescribed displacement, whose resultant force each frequency reports.
  std::vector<std::string> force_sets;
  std::vector<std::vector<Index>> force_members;
  // Per force set and component: the displacement given, NaN where that component is not given.
  std::vector<std::array<std::complex<double>, 3>> set_displacement;
  Index n_free = 0;  // elements no condition names (zero traction)
};

// Everything run_bem needs, resolved and checked.
struct Plan {
  BemOptions settings;  // the problem's [bem] settings with the RunOptions applied
  bool allow_coarse = false;
  bool keep_boundary_fields = true;
  BoundaryMesh mesh;    // oriented with its normals out of the solid
  Solid solid = Solid::Open;
  MeshReport report;
  ElementOrder order = ElementOrder::Constant;
  Index n_nodes = 0;    // collocation nodes (3 unknowns each)
  // Dense, or the hierarchical matrix ("auto" resolved: dense while H and G fit the backend's
  // memory and the unknowns are at most gpu_dense_unknowns on a GPU, host_dense_unknowns on a CPU).
  SolverMethod method = SolverMethod::Dense;
  std::string solver_why;  // "asked for", or what "auto" weighed
  HMatrixOptions hmatrix;
  // The hierarchical matrix's memory before it is built: the near field exactly, the admissible
  // blocks at rank hmatrix_estimate_rank (the largest the blocks reached at tolerance 1e-5 on the
  // measured cavities was 26 to 31; the run prints its own).
  HMatrixEstimate hmatrix_estimate;
  std::shared_ptr<const ClusterTree> tree;  // the compressed method's, built once for the estimate and the solve
  Exec exec = Exec::serial();
  IntegrationOptions integration;
  BemFreeTerm free_term = BemFreeTerm::Direct;  // RigidBody or Direct ("auto" resolved)
  FreeTermChoice free_choice;
  double lowest = 0.0, highest = 0.0;  // frequencies, Hz
  double min_per_wavelength = 6.0;     // the settings' minimum, or the element order's default
  WavelengthReport resolution;         // at the highest frequency, c_s of the undamped moduli
  ElementConditions conditions;
  std::vector<double> interior_points;  // 3 per point, m
  // Per element (for results): centroid and unit normal (3 each), area.
  std::vector<double> centroids, normals, areas;
  // Linear and quadratic elements (empty for constant ones): the collocation nodes' positions (3
  // each) and the element holding each.
  std::vector<double> node_positions;
  std::vector<Index> node_elements;
  double setup_seconds = 0.0;  // wall time of plan_bem
};

// One solved frequency, as the Observer receives it.
struct FrequencySolution {
  std::size_t index = 0;   // into BemProblem::frequencies
  double frequency = 0.0;  // Hz
  FrequencyResult result;  // nodal u and t, the solve's report and the times (solve.hpp)
  // At each element's reference centre, 3 per element: the element's value for constant
  // elements, interpolated for linear and quadratic ones.
  std::vector<std::complex<double>> displacement, traction;
  // Linear and quadratic elements: the nodal solution, 3 per collocation node (empty for constant elements).
  std::vector<std::complex<double>> node_displacement, node_traction;
  std::vector<std::complex<double>> interior;  // 3 per interior point, m
  // Per force set, 3 each: the resultant force sum_p t_p A_p over its elements' nodes (N), and
  // the dynamic stiffness F_c / u_c (N/m) where u_c is given and not zero, else NaN.
  std::vector<std::complex<double>> forces, stiffness;
  std::size_t largest_element = 0;  // the element whose centre has the largest |u|
  double largest_displacement = 0.0;  // that |u| = (sum_c |u_c|^2)^1/2, m
  // Wall time from the end of the previous frequency's on_frequency (or from the start of the
  // solve) to this result: assembly, solve and interior points, without the Observer's time.
  double wall_seconds = 0.0;
};

enum class RunStatus { Completed, Failed, Stopped };

struct RunResult {
  RunStatus status = RunStatus::Completed;
  // Failed: what went wrong (the exception's message; the frequency is
  // BemProblem::frequencies[frequencies.size()]).
  std::string message;
  std::vector<FrequencySolution> frequencies;  // those solved, in order (fields per RunOptions)
  double setup_seconds = 0.0;                  // plan_bem
  double solve_seconds = 0.0;                  // sum of the frequencies' wall_seconds
  bool ok() const { return status == RunStatus::Completed; }
};

// Called by run_bem, in this order: on_start once, then on_frequency per frequency, each followed
// (but the last) by stop_requested.
class Observer {
 public:
  virtual ~Observer();
  // After the resolution check, before anything is integrated (the CLI creates its result file).
  // An exception thrown here leaves run_bem.
  virtual void on_start(const Plan& /*plan*/) {}
  // Each frequency as soon as it is solved. An exception thrown here fails the run at this
  // frequency as a solve that fails does (status Failed, its message; this frequency is not in
  // RunResult::frequencies).
  virtual void on_frequency(const Plan& /*plan*/, const FrequencySolution& /*solution*/) {}
  // Polled after each frequency but the last; true stops the run there with status Stopped
  // (e.g. on SIGINT), the frequencies solved so far returned.
  virtual bool stop_requested() { return false; }
};

// The boundary mesh the problem's [bem.mesh] describes, oriented with its normals out of the solid
// (a cavity's generated sphere or box is flipped; `flip` reverses any). A generator's refusal
// names the [bem.mesh] table. Generators make second-order elements where the source's order says
// so or, not given, for quadratic `elements`.
BoundaryMesh build_boundary_mesh(const BemMeshSource& source, BemElements elements = BemElements::Constant);

Solid solid_of(BemSolid solid);

// The surface as a Mesh (a block of tri3 and one of quad4, the labels kept), for result files.
Mesh surface_mesh(const BoundaryMesh& boundary);

constexpr Index hmatrix_estimate_rank = 32;

// Above this many unknowns "auto" takes the hierarchical matrix, where the compressed solve
// overtook the dense one (assembly and LU) on the quadratic cavity (docs/benchmarks.md). On a CPU
// (OpenMP on 2 cores): 7,938 unknowns 39.9 s against 36.9 s, 13,122 unknowns 75 s against 102 s.
// On a GPU (an H200; ACA's arithmetic on its host's 16 cores): 16,200 unknowns 3.0 to 3.8 s
// against 2.8 to 3.1 s over two runs, 41,472 unknowns 9.6 to 10.5 s against 13.0 to 13.2 s.
constexpr Index host_dense_unknowns = 9000;
constexpr Index gpu_dense_unknowns = 24000;

// Resolves and checks everything before the solve (step 1 above); throws tremor::Error.
Plan plan_bem(const BemProblem& problem, const RunOptions& options = {});

// Refuses (tremor::Error) a mesh far too coarse for the plan's highest frequency, fewer than half
// the minimum elements per shear wavelength, unless allow_coarse; warns when it is merely coarse.
// run_bem calls it first; `tremor bem --plan` too.
void check_resolution(const Plan& plan);

// Solves a planned problem (step 2 above). Throws tremor::Error for a mesh far too coarse (before
// Observer::on_start) and whatever on_start throws; a failing frequency returns status Failed.
RunResult run_bem(const BemProblem& problem, const Plan& plan, Observer* observer = nullptr);

// plan_bem, then run_bem.
RunResult run_bem(const BemProblem& problem, const RunOptions& options = {}, Observer* observer = nullptr);

}  // namespace tremor::bem
