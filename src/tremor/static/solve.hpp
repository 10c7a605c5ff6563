#pragma once
// The static solver end to end (docs/static.md): K u = f for a linear elastic model, on the
// CPU or the GPU.
//
//   1. settings: SolveOptions where given, else the model's [static] table or Abaqus *STATIC
//      step, else the defaults of StaticSettings; every value checked;
//   2. loads and constraints (loads.hpp); a singular system (a body that can still move) is
//      refused before anything is assembled, naming the body and its free motions
//      (rigid_modes.hpp);
//   3. K assembled on the Exec by the two-kernel assembly (sparse/two_kernel.hpp) in Real, as CSR
//      or nodal-block CSR, with the chosen race strategy;
//   4. constraints by symmetric elimination (constraints.hpp), the preconditioner (none, Jacobi
//      or nodal block-Jacobi), preconditioned CG (cg.hpp) from an initial guess holding the
//      prescribed values;
//   5. on the host in double: nodal stresses, von Mises, internal forces and reactions
//      (recovery.hpp).
// A solve that does not converge still returns its last iterate with the CG report: the caller
// decides (the CLI writes it and exits non-zero).
#include <optional>
#include <string>
#include <vector>

#include "tremor/model/model.hpp"
#include "tremor/static/cg.hpp"
#include "tremor/static/recovery.hpp"

namespace tremor::static_fe {

// Overrides of the model's settings (unset: the model's).
struct SolveOptions {
  BackendOverride backend;
  std::optional<PreconditionerKind> preconditioner;
  std::optional<StaticFormat> format;
  std::optional<Precision> precision;
  std::optional<StaticAssembly> assembly;
  std::optional<double> tolerance;
  std::optional<int> max_iterations;
};

// The settings a solve uses, "auto" resolved (backend: cuda when a GPU is usable, else openmp;
// assembly: colouring, whose sums are the same bits on every run). Throws tremor::Error naming the
// setting, its origin and the allowed values.
StaticSettings resolve_settings(const Model& model, const SolveOptions& options = {});

// Wall times, s (the device synchronised at each boundary).
struct StaticTimings {
  double setup = 0.0;           // section table, colouring, loads, constraint checks, uploads
  double pattern = 0.0;         // kernel 1 of the assembly (with the format's index arrays)
  double values = 0.0;          // kernel 2
  double preconditioner = 0.0;  // constraints applied and the preconditioner built
  double solve = 0.0;           // CG
  double recovery = 0.0;        // stresses and reactions on the host
};

struct StaticResult {
  StaticSettings settings;     // as used: the backend resolved, never "auto"
  Index n_dofs = 0;
  Index n_constrained = 0;
  Size nnz = 0;                // entries of the assembled K
  std::size_t matrix_bytes = 0;
  std::vector<double> displacement;  // dim per node, m
  std::vector<double> applied;       // dim per node, N: the applied nodal forces
  std::vector<double> reaction;      // dim per node, N: K u - f at constrained DOFs, 0 elsewhere
  Recovery recovery;
  CgResult cg;
  StaticTimings timings;
  std::vector<std::string> warnings;
};

// `observer` is asked before each CG iteration (cg.hpp); one that asks to stop leaves the last
// iterate in the result, its CG status Interrupted.
StaticResult solve_static(const Model& model, const SolveOptions& options = {}, Observer* observer = nullptr);

}  // namespace tremor::static_fe
