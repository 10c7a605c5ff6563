#pragma once
// A short damped, loaded run of the central-difference scheme on a matrix-free operator, with the
// update fused into the apply (explicit/update.hpp) or not: the fused-update tests' model run, on
// the host (tests/unit) and on a GPU (tests/parity).
#include <cmath>
#include <span>
#include <vector>

#include "sparse_test_models.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/explicit/central_difference.hpp"
#include "tremor/explicit/matrix_free.hpp"

namespace tremor::test {

// Steps of a damped scheme on `op` with a held DOF (`per_dof`: one component of node 0, so the
// coefficients are kept per DOF) and three loaded DOFs, fused (the loaded DOFs and the last two
// nodes kept, as a subdomain's shared nodes) or not, on op's Exec; returns U_curr then U_prev.
// `stepped` gets the nodes the kernel steps.
template <class Real>
std::vector<Real> run_scheme(const explicit_fe::MatrixFreeOperator<Real>& op, int dim, bool fuse, bool per_dof,
                             Index& stepped) {
  const Index n = op.n_dofs(), n_nodes = n / dim;
  std::vector<double> mass(static_cast<std::size_t>(n)), damping(mass.size());
  for (Index i = 0; i < n; ++i) {
    mass[static_cast<std::size_t>(i)] = 50.0 * (1.0 + 0.3 * std::sin(0.7 * double(i / dim)));
    damping[static_cast<std::size_t>(i)] = 2e3 * (1.0 + 0.5 * std::cos(1.3 * double(i / dim)));
  }
  const std::vector<Index> held = per_dof ? std::vector<Index>{1} : std::vector<Index>{};
  // dt against the stiffest element: dt^2 K / M well below 4.
  explicit_fe::CentralDifference<Real> scheme(op.exec(), op, mass, damping, 2e-7, held, dim);
  const std::vector<Index> loaded{Index(dim * (n_nodes / 2)), Index(dim * (n_nodes / 3) + dim - 1), Index(n - 1)};
  const DeviceArray<Index> loaded_dofs(op.exec(), std::span<const Index>(loaded));
  DeviceArray<Real> loads(op.exec(), static_cast<Index>(loaded.size()));
  stepped = fuse ? scheme.fuse_update(loaded_dofs.view(), n_nodes - 2) : 0;
  const auto u0 = test::rounded_vector<Real>(n, 11), v0 = test::rounded_vector<Real>(n, 12);
  std::vector<Real> small(u0.size()), velocity(v0.size());
  for (std::size_t i = 0; i < u0.size(); ++i) {
    small[i] = Real(1e-6) * u0[i];
    velocity[i] = Real(1e-2) * v0[i];
  }
  scheme.set_initial_conditions(small, velocity);
  for (int step = 0; step < 12; ++step) {
    const std::vector<Real> f{Real(1e3 * std::sin(0.5 * step)), Real(-2e3), Real(5e2 * step)};
    loads.copy_from_host(f);
    scheme.step(loaded_dofs.view(), loads.view());
  }
  std::vector<Real> previous, current;
  scheme.get_state(previous, current);
  current.insert(current.end(), previous.begin(), previous.end());
  return current;
}

}  // namespace tremor::test
