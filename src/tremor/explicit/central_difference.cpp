#include "tremor/explicit/central_difference.hpp"

#include <cmath>
#include <initializer_list>
#include <utility>

#include "tremor/backend/forall.hpp"
#include "tremor/backend/reduce.hpp"
#include "tremor/core/error.hpp"

namespace tremor::explicit_fe {

namespace {

// Entries of mass or damping that are negative or not finite (device reduction).
double count_bad(const Exec& exec, Index n, const double* m, const double* c) {
  return sum<double>(exec, n, [=] TREMOR_LAMBDA(Index i) {
    const double ci = c ? c[i] : 0.0;
    return std::isfinite(m[i]) && m[i] >= 0.0 && std::isfinite(ci) && ci >= 0.0 ? 0.0 : 1.0;
  });
}

// The diagonal coefficients of Eq. (4) per DOF on exec, A and, where damped (c not null), C';
// returns the DOFs left without mass (no element uses their node: held rather than divided by
// zero). Held DOFs get A = 0 (and C' = 0), which the update reads as "stays at zero".
template <class Real>
Index coefficients(const Exec& exec, Index n, const double* m, const double* c, std::span<const Index> fixed,
                   double dt, Real* a_out, Real* cp_out) {
  DeviceArray<unsigned char> held(exec, n);
  unsigned char* is_held = held.data();
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) { is_held[i] = 0; });
  const DeviceArray<Index> list(exec, fixed);
  const Index* dofs = list.data();
  forall(exec, list.size(), [=] TREMOR_LAMBDA(Index k) { is_held[dofs[k]] = 1; });
  const double inv_dt2 = 1.0 / (dt * dt), inv_2dt = 0.5 / dt;
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) {
    const double mi = m[i], ci = c ? c[i] : 0.0;
    const bool still = is_held[i] || mi == 0.0;
    const double a = still ? 0.0 : 1.0 / (mi * inv_dt2 + ci * inv_2dt);  // the diagonal inverse of Eq. (3)
    a_out[i] = static_cast<Real>(a);
    if (cp_out) cp_out[i] = static_cast<Real>(a * (ci * inv_2dt - mi * inv_dt2));
  });
  const auto massless = static_cast<Index>(
      sum<double>(exec, n, [=] TREMOR_LAMBDA(Index i) { return !is_held[i] && m[i] == 0.0 ? 1.0 : 0.0; }));
  exec.synchronize();  // before `held` and `list` are released
  return massless;
}

// Eq. (4) for one DOF from A, C' and K' = 1 - C' (1 + C' = A C / dt and 1 - C' = 2 A M / dt^2);
// a held DOF (A = 0) stays at zero.
template <class Real>
TREMOR_HOST_DEVICE inline Real next_displacement(Real a, Real cp, Real f, Real ku, Real up, Real uc) {
  const Real next = a * (f - ku) + cp * up + (Real(1) - cp) * uc;
  return a == Real(0) ? Real(0) : next;
}

// The mass of a DOF from its coefficients, M / dt^2 = (1 - C') / (2 A); 0 where held.
template <class Real>
TREMOR_HOST_DEVICE inline double mass_over_dt2(Real a, Real cp) {
  return a == Real(0) ? 0.0 : (1.0 - static_cast<double>(cp)) / (2.0 * static_cast<double>(a));
}

}  // namespace

template <class Real>
CentralDifference<Real>::CentralDifference(const Exec& exec, const op::Operator<Real>& stiffness,
                                           std::span<const double> mass, std::span<const double> damping, double dt,
                                           std::span<const Index> fixed)
    : CentralDifference(exec, stiffness, DeviceArray<double>(exec, mass), DeviceArray<double>(exec, damping), dt,
                        fixed) {}

template <class Real>
CentralDifference<Real>::CentralDifference(const Exec& exec, const op::Operator<Real>& stiffness,
                                           DeviceArray<double> mass, DeviceArray<double> damping, double dt,
                                           std::span<const Index> fixed)
    : exec_(exec), stiffness_(stiffness), n_(stiffness.n_dofs()), dt_(dt) {
  set_up(std::move(mass), std::move(damping), fixed);
}

// The constructors' common work: checks, then the coefficients computed on the Exec.
template <class Real>
void CentralDifference<Real>::set_up(DeviceArray<double> mass, DeviceArray<double> damping,
                                     std::span<const Index> fixed) {
  const Exec& exec = exec_;
  const double dt = dt_;
  TREMOR_CHECK(std::isfinite(dt) && dt > 0.0, "time step must be positive and finite, got ", dt);
  TREMOR_CHECK(mass.size() == n_, "mass has ", mass.size(), " entries for ", n_, " DOFs");
  TREMOR_CHECK(damping.size() == 0 || damping.size() == n_, "damping has ", damping.size(), " entries for ", n_,
               " DOFs");
  TREMOR_CHECK(mass.exec().space() == exec.space() && (damping.size() == 0 || damping.exec().space() == exec.space()),
               "mass and damping must be in the memory of ", exec.describe());
  for (Index dof : fixed) TREMOR_CHECK(dof >= 0 && dof < n_, "fixed DOF ", dof, " out of range 0..", n_ - 1);
  const Index n = n_;
  const double* m = std::as_const(mass).data();
  const double* c = damping.size() > 0 ? std::as_const(damping).data() : nullptr;
  // A negative or non-finite mass or damping is refused, naming the first such DOF.
  if (count_bad(exec, n, m, c) > 0.0) {
    const std::vector<double> host_mass = mass.to_host();
    const std::vector<double> host_damping = damping.to_host();
    for (std::size_t i = 0; i < host_mass.size(); ++i) {
      TREMOR_CHECK(std::isfinite(host_mass[i]) && host_mass[i] >= 0.0, "mass of DOF ", i, " is ", host_mass[i]);
      const double ci = host_damping.empty() ? 0.0 : host_damping[i];
      TREMOR_CHECK(std::isfinite(ci) && ci >= 0.0, "damping of DOF ", i, " is ", ci);
    }
  }
  force_scale_ = DeviceArray<Real>(exec, n);
  if (c) prev_scale_ = DeviceArray<Real>(exec, n);
  massless_ = coefficients<Real>(exec, n, m, c, fixed, dt, force_scale_.data(), c ? prev_scale_.data() : nullptr);
  // The mass and damping are not kept (the coefficients give both back): released before the state
  // is allocated, so the set-up's peak is theirs or the state's, not both.
  mass = DeviceArray<double>();
  damping = DeviceArray<double>();
  for (DeviceArray<Real>* state : {&prev_, &curr_, &ku_}) {
    *state = DeviceArray<Real>(exec, n);
    fill_zero(exec, state->data(), n);
  }
  exec.synchronize();
}

template <class Real>
void CentralDifference<Real>::step(View<const Real> f, View<const Index> prescribed_dofs, View<const Real> prescribed) {
  apply_stiffness();
  advance(f, prescribed_dofs, prescribed);
}

template <class Real>
View<Real> CentralDifference<Real>::apply_stiffness() {
  // An operator that adds into K u finds it zeroed by the last update (or the set-up).
  if (stiffness_.adds())
    stiffness_.add(curr_.view(), ku_.view());
  else
    stiffness_.apply(curr_.view(), ku_.view());
  return ku_.view();
}

template <class Real>
View<Real> CentralDifference<Real>::apply_stiffness(const op::Operator<Real>& part) {
  TREMOR_CHECK(stiffness_.adds() == part.adds(), "a part of the stiffness that ", part.adds() ? "adds" : "does not add",
               " into K u, of a stiffness that ", stiffness_.adds() ? "does" : "does not");
  if (part.adds())
    part.add(curr_.view(), ku_.view());
  else
    part.apply(curr_.view(), ku_.view());
  return ku_.view();
}

template <class Real>
void CentralDifference<Real>::advance(View<const Real> f, View<const Index> prescribed_dofs,
                                      View<const Real> prescribed) {
  TREMOR_CHECK(f.size == n_, "force has ", f.size, " entries for ", n_, " DOFs");
  TREMOR_CHECK(prescribed.size == prescribed_dofs.size, "prescribed values and DOFs differ in count");
  const View<const Real> a = force_scale_.view(), cp = prev_scale_.view(), uc = std::as_const(curr_).view();
  const View<Real> u = prev_.view(), ku = ku_.view();  // U_prev in, U_next out
  // Eq. (4) fused, per DOF 5 values read (6 damped) and 1 written: U_next = A (F - K U_curr) +
  // C' U_prev + (1 - C') U_curr. For an operator that adds into K u, K u is zeroed here for the
  // next apply: one more write in this pass instead of a pass of its own.
  const bool adds = stiffness_.adds();
  if (cp.size > 0)
    forall(exec_, n_, [=] TREMOR_LAMBDA(Index i) {
      u[i] = next_displacement(a[i], cp[i], f[i], ku[i], u[i], uc[i]);
      if (adds) ku[i] = Real(0);
    });
  else
    forall(exec_, n_, [=] TREMOR_LAMBDA(Index i) {
      u[i] = next_displacement(a[i], Real(-1), f[i], ku[i], u[i], uc[i]);
      if (adds) ku[i] = Real(0);
    });
  // DOF indices are the caller's (Loading checks them against the mesh).
  forall(exec_, prescribed_dofs.size, [=] TREMOR_LAMBDA(Index k) { u[prescribed_dofs[k]] = prescribed[k]; });
  std::swap(prev_, curr_);
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
  const View<const Real> a = force_scale_.view(), cp = prev_scale_.view(), ku = std::as_const(ku_).view(),
                         v = velocity.view();
  const View<Real> uc = curr_.view(), up = prev_.view();
  forall(exec_, n_, [=] TREMOR_LAMBDA(Index i) {
    if (a[i] == Real(0)) uc[i] = Real(0);  // held DOFs start, and stay, at zero
  });
  stiffness_.apply(curr_.view(), ku_.view());
  // dt^2/2 M^-1 = A / (1 - C'): A / 2 undamped.
  const Real dt = static_cast<Real>(dt_);
  forall(exec_, n_, [=] TREMOR_LAMBDA(Index i) {
    const Real half_dt2_over_m = a[i] / (Real(1) - (cp.size > 0 ? cp[i] : Real(-1)));
    up[i] = a[i] == Real(0) ? Real(0) : uc[i] - dt * v[i] - half_dt2_over_m * ku[i];
  });
  fill_zero(exec_, ku_.data(), n_);  // as apply_stiffness() expects it
  exec_.synchronize();
  steps_ = 0;
}

template <class Real>
double CentralDifference<Real>::kinetic_energy() const {
  const View<const Real> a = force_scale_.view(), cp = prev_scale_.view(), up = prev_.view(), uc = curr_.view();
  // 1/2 M v^2 = 1/2 (M / dt^2) (U_curr - U_prev)^2.
  return 0.5 * sum<double>(exec_, n_, [=] TREMOR_LAMBDA(Index i) {
           const double du = static_cast<double>(uc[i]) - static_cast<double>(up[i]);
           return mass_over_dt2(a[i], cp.size > 0 ? cp[i] : Real(-1)) * du * du;
         });
}

template <class Real>
double CentralDifference<Real>::strain_energy() const {
  DeviceArray<Real> k_prev(exec_, n_);
  stiffness_.apply(prev_.view(), k_prev.view());
  const View<const Real> kp = std::as_const(k_prev).view(), uc = curr_.view();
  return 0.5 * sum<double>(exec_, n_, [=] TREMOR_LAMBDA(Index i) {
           return static_cast<double>(uc[i]) * static_cast<double>(kp[i]);
         });
}

template class CentralDifference<float>;
template class CentralDifference<double>;

}  // namespace tremor::explicit_fe
