#include "tremor/static/solve.hpp"

#include <chrono>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/log.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/sparse/two_kernel.hpp"
#include "tremor/static/constraints.hpp"
#include "tremor/static/loads.hpp"
#include "tremor/static/preconditioner.hpp"
#include "tremor/static/rigid_modes.hpp"

namespace tremor::static_fe {

namespace {

std::string where(const std::string& origin) { return origin.empty() ? std::string() : origin + ": "; }

// Steps 3 and 4 of the header in Real, with the assembled matrix of `format`.
template <class Real>
void assemble_and_solve(const Exec& exec, const Model& model, const fem::DeviceElements& elements,
                        const StaticLoads& loads, const Constraints& constraints, const StaticSettings& settings,
                        Observer* observer, StaticResult& out, Clock::time_point& clock) {
  const Mesh& mesh = model.mesh;
  const Index n = loads.n_dofs;
  const sparse::RaceStrategy strategy =
      settings.assembly == StaticAssembly::Atomics ? sparse::RaceStrategy::Atomics : sparse::RaceStrategy::Colouring;
  const PreconditionerKind kind = settings.preconditioner;
  std::vector<Real> force(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < force.size(); ++i) force[i] = static_cast<Real>(loads.force[i]);
  DeviceArray<Real> rhs(exec, std::span<const Real>(force));
  DeviceArray<Real> x(exec, n);
  const DeviceConstraints device_constraints(exec, constraints);
  CgSettings cg = cg_settings(settings);
  cg.use_initial_guess = true;
  // The initial guess: zero, with the prescribed values (their rows then start with no residual).
  fill_zero(exec, x.data(), n);
  impose_values<Real>(exec, device_constraints, x.data());
  lap(clock);

  const auto solve = [&](auto& K, auto make_operator, auto build_preconditioner) {
    out.nnz = static_cast<Size>(K.values.size());  // scalar entries, dim^2 per block in block CSR
    out.matrix_bytes = K.bytes();
    apply_constraints<Real>(exec, device_constraints, K, rhs.data());
    const Preconditioner<Real> M = build_preconditioner(K);
    exec.synchronize();
    out.timings.preconditioner = lap(clock);
    out.cg = static_fe::cg<Real>(exec, *make_operator(K), M, rhs.data(), x.data(), cg, observer);
    out.timings.solve = lap(clock);
  };
  sparse::AssemblyTimes times;
  const std::span<const Label> labels(mesh.node_labels);
  if (settings.format == StaticFormat::BlockCsr) {
    sparse::DeviceBlockCsr<Real> K =
        sparse::assemble_block_csr<Real>(exec, elements, sparse::GlobalMatrix::Stiffness, strategy, &times);
    lap(clock);
    solve(
        K, [&](const auto& A) { return block_csr_operator<Real>(exec, A); },
        [&](const auto& A) { return Preconditioner<Real>::build(exec, kind, A, labels); });
  } else {
    sparse::DeviceCsr<Real> K =
        sparse::assemble_csr<Real>(exec, elements, sparse::GlobalMatrix::Stiffness, strategy, &times);
    lap(clock);
    solve(
        K, [&](const auto& A) { return csr_operator<Real>(exec, A); },
        [&](const auto& A) { return Preconditioner<Real>::build(exec, kind, A, mesh.dim(), labels); });
  }
  out.timings.pattern = times.pattern_ms * 1e-3;
  out.timings.values = times.values_ms * 1e-3;
  const std::vector<Real> u = x.to_host();
  out.displacement.assign(u.begin(), u.end());
  // The prescribed values exactly (a float solve holds them rounded).
  for (std::size_t k = 0; k < constraints.dofs.size(); ++k)
    out.displacement[static_cast<std::size_t>(constraints.dofs[k])] = constraints.values[k];
}

}  // namespace

StaticSettings resolve_settings(const Model& model, const SolveOptions& options) {
  StaticSettings s = model.static_settings.value_or(StaticSettings{});
  s.backend = options.backend.over(s.backend);
  s.preconditioner = options.preconditioner.value_or(s.preconditioner);
  s.format = options.format.value_or(s.format);
  s.precision = options.precision.value_or(s.precision);
  s.assembly = options.assembly.value_or(s.assembly);
  if (options.tolerance) s.tolerance = *options.tolerance;
  if (options.max_iterations) s.max_iterations = *options.max_iterations;
  TREMOR_CHECK(s.tolerance > 0.0 && s.tolerance < 1.0, where(s.origin), "tolerance ", s.tolerance,
               " must lie in (0, 1): it bounds the relative residual ||f - K u|| / ||f||");
  TREMOR_CHECK(s.max_iterations > 0, where(s.origin), "max_iterations ", s.max_iterations, " must be positive");
  s.backend = resolve_backend(s.backend);
  // Colouring gives the same bits on every run and thread count.
  if (s.assembly == StaticAssembly::Auto) s.assembly = StaticAssembly::Colouring;
  return s;
}

StaticResult solve_static(const Model& model, const SolveOptions& options, Observer* observer) {
  StaticResult out;
  Clock::time_point clock = Clock::now();
  out.settings = resolve_settings(model, options);
  const StaticSettings& settings = out.settings;
  const Exec exec = Exec::make(*settings.backend);  // CUDA throws, saying why, without a GPU
  const Mesh& mesh = model.mesh;
  const Size n_dofs = static_cast<Size>(mesh.n_nodes()) * mesh.dim();
  TREMOR_CHECK(n_dofs <= Size{2147483647}, model.source, ": ", n_dofs,
               " degrees of freedom exceed what one array can index (2^31 - 1)");

  model.refuse_fluids("the static solver");
  const fem::SectionTable table = fem::section_table(model);  // checks sections and geometry
  StaticLoads loads = static_loads(model);
  out.warnings = loads.warnings;
  const Constraints constraints =
      hold_isolated_nodes(mesh, make_constraints(mesh, loads.fixed_dofs, loads.fixed_values));
  check_rigid_modes(mesh, constraints.dofs);
  out.n_dofs = loads.n_dofs;
  out.n_constrained = constraints.n_constrained();
  const fem::ElementColouring colouring = fem::colour_elements(mesh);
  const fem::DeviceElements elements(exec, mesh, table, colouring);
  exec.synchronize();
  out.timings.setup = lap(clock);

  if (settings.precision == Precision::Float)
    assemble_and_solve<float>(exec, model, elements, loads, constraints, settings, observer, out, clock);
  else
    assemble_and_solve<double>(exec, model, elements, loads, constraints, settings, observer, out, clock);

  out.recovery = recover(model, table, out.displacement);
  out.applied = std::move(loads.applied);
  out.reaction.assign(out.displacement.size(), 0.0);
  for (Index dof : constraints.dofs) {
    const auto d = static_cast<std::size_t>(dof);
    out.reaction[d] = out.recovery.internal_force[d] - out.applied[d];
  }
  out.timings.recovery = lap(clock);
  return out;
}

}  // namespace tremor::static_fe
