#include "tremor/explicit/central_difference.hpp"

#include <cmath>
#include <utility>

#include "tremor/backend/forall.hpp"
#include "tremor/backend/reduce.hpp"
#include "tremor/core/error.hpp"

namespace tremor::explicit_fe {

template <class Real>
CentralDifference<Real>::CentralDifference(const Exec& exec, const StiffnessOperator<Real>& stiffness,
                                           std::span<const double> mass, std::span<const double> damping, double dt,
                                           std::span<const Index> fixed)
    : exec_(exec), stiffness_(stiffness), n_(stiffness.n_dofs()), dt_(dt) {
  TREMOR_CHECK(std::isfinite(dt) && dt > 0.0, "time step must be positive and finite, got ", dt);
  TREMOR_CHECK(static_cast<Index>(mass.size()) == n_, "mass has ", mass.size(), " entries for ", n_, " DOFs");
  TREMOR_CHECK(damping.empty() || static_cast<Index>(damping.size()) == n_, "damping has ", damping.size(),
               " entries for ", n_, " DOFs");
  const auto n = static_cast<std::size_t>(n_);
  std::vector<unsigned char> held(n, 0);
  for (Index dof : fixed) {
    TREMOR_CHECK(dof >= 0 && dof < n_, "fixed DOF ", dof, " out of range 0..", n_ - 1);
    held[static_cast<std::size_t>(dof)] = 1;
  }
  // Held DOFs get all three coefficients zero, so the update leaves them at zero with no branch.
  std::vector<Real> force_scale(n, Real(0)), prev_scale(n, Real(0)), curr_scale(n, Real(0)), inv_mass(n, Real(0));
  const double inv_dt2 = 1.0 / (dt * dt), inv_2dt = 0.5 / dt;
  for (std::size_t i = 0; i < n; ++i) {
    const double m = mass[i], c = damping.empty() ? 0.0 : damping[i];
    TREMOR_CHECK(std::isfinite(m) && m >= 0.0, "mass of DOF ", i, " is ", m);
    TREMOR_CHECK(std::isfinite(c) && c >= 0.0, "damping of DOF ", i, " is ", c);
    if (held[i]) continue;
    if (m == 0.0) {
      // A node no element uses: no inertia and no stiffness; hold it rather than divide by zero.
      ++massless_;
      continue;
    }
    const double a = 1.0 / (m * inv_dt2 + c * inv_2dt);  // the diagonal inverse of Eq. (3)
    force_scale[i] = static_cast<Real>(a);
    prev_scale[i] = static_cast<Real>(a * (c * inv_2dt - m * inv_dt2));
    curr_scale[i] = static_cast<Real>(a * 2.0 * m * inv_dt2);
    inv_mass[i] = static_cast<Real>(1.0 / m);
  }
  force_scale_ = DeviceArray<Real>(exec, std::span<const Real>(force_scale));
  prev_scale_ = DeviceArray<Real>(exec, std::span<const Real>(prev_scale));
  curr_scale_ = DeviceArray<Real>(exec, std::span<const Real>(curr_scale));
  mass_ = DeviceArray<double>(exec, mass);
  inv_mass_ = DeviceArray<Real>(exec, std::span<const Real>(inv_mass));
  const std::vector<Real> zero(n, Real(0));
  prev_ = DeviceArray<Real>(exec, std::span<const Real>(zero));
  curr_ = DeviceArray<Real>(exec, std::span<const Real>(zero));
  next_ = DeviceArray<Real>(exec, std::span<const Real>(zero));
  ku_ = DeviceArray<Real>(exec, std::span<const Real>(zero));
}

template <class Real>
void CentralDifference<Real>::step(View<const Real> f, View<const Index> prescribed_dofs, View<const Real> prescribed) {
  TREMOR_CHECK(f.size == n_, "force has ", f.size, " entries for ", n_, " DOFs");
  TREMOR_CHECK(prescribed.size == prescribed_dofs.size, "prescribed values and DOFs differ in count");
  stiffness_.apply(curr_.data(), ku_.data());
  const View<const Real> a = force_scale_.view(), cp = prev_scale_.view(), kc = curr_scale_.view();
  const View<const Real> ku = std::as_const(ku_).view(), up = std::as_const(prev_).view(),
                         uc = std::as_const(curr_).view();
  const View<Real> un = next_.view();
  // Eq. (4) fused, 7 values read and 1 written per DOF: U_next = A (F - K U_curr) + C' U_prev + K'' U_curr.
  forall(exec_, n_, [=] TREMOR_LAMBDA(Index i) { un[i] = a[i] * (f[i] - ku[i]) + cp[i] * up[i] + kc[i] * uc[i]; });
  // DOF indices are the caller's (Loading checks them against the mesh).
  forall(exec_, prescribed_dofs.size,
         [=] TREMOR_LAMBDA(Index k) { un[prescribed_dofs[k]] = prescribed[k]; });
  std::swap(prev_, curr_);
  std::swap(curr_, next_);
  ++steps_;
}

template <class Real>
void CentralDifference<Real>::set_state(std::span<const Real> previous, std::span<const Real> current, long long steps) {
  TREMOR_CHECK(static_cast<Index>(previous.size()) == n_ && static_cast<Index>(current.size()) == n_,
               "state of ", previous.size(), " and ", current.size(), " entries for ", n_, " DOFs");
  TREMOR_CHECK(steps >= 0, "negative step count ", steps);
  prev_.copy_from_host(previous);
  curr_.copy_from_host(current);
  steps_ = steps;
}

template <class Real>
void CentralDifference<Real>::get_state(std::vector<Real>& previous, std::vector<Real>& current) const {
  previous = prev_.to_host();
  current = curr_.to_host();
}

template <class Real>
void CentralDifference<Real>::set_initial_conditions(std::span<const Real> u0, std::span<const Real> v0) {
  TREMOR_CHECK(static_cast<Index>(u0.size()) == n_ && static_cast<Index>(v0.size()) == n_, "initial conditions of ",
               u0.size(), " and ", v0.size(), " entries for ", n_, " DOFs");
  const DeviceArray<Real> velocity(exec_, v0);
  curr_.copy_from_host(u0);
  const View<const Real> inv_m = inv_mass_.view(), ku = std::as_const(ku_).view(), v = velocity.view();
  const View<Real> uc = curr_.view(), up = prev_.view();
  forall(exec_, n_, [=] TREMOR_LAMBDA(Index i) {
    if (inv_m[i] == Real(0)) uc[i] = Real(0);  // held DOFs start, and stay, at zero
  });
  stiffness_.apply(curr_.data(), ku_.data());
  const Real dt = static_cast<Real>(dt_), half_dt2 = static_cast<Real>(0.5 * dt_ * dt_);
  forall(exec_, n_, [=] TREMOR_LAMBDA(Index i) {
    up[i] = inv_m[i] == Real(0) ? Real(0) : uc[i] - dt * v[i] - half_dt2 * inv_m[i] * ku[i];
  });
  exec_.synchronize();
  steps_ = 0;
}

template <class Real>
double CentralDifference<Real>::kinetic_energy() const {
  const View<const double> m = mass_.view();
  const View<const Real> up = prev_.view(), uc = curr_.view();
  const double inv_dt = 1.0 / dt_;
  return 0.5 * sum<double>(exec_, n_, [=] TREMOR_LAMBDA(Index i) {
           const double v = (static_cast<double>(uc[i]) - static_cast<double>(up[i])) * inv_dt;
           return m[i] * v * v;
         });
}

template <class Real>
double CentralDifference<Real>::strain_energy() const {
  DeviceArray<Real> k_prev(exec_, n_);
  stiffness_.apply(prev_.data(), k_prev.data());
  const View<const Real> kp = std::as_const(k_prev).view(), uc = curr_.view();
  return 0.5 * sum<double>(exec_, n_, [=] TREMOR_LAMBDA(Index i) {
           return static_cast<double>(uc[i]) * static_cast<double>(kp[i]);
         });
}

template class CentralDifference<float>;
template class CentralDifference<double>;

}  // namespace tremor::explicit_fe
