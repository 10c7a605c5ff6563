#include "tremor/explicit/central_difference.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <utility>

#include "tremor/backend/forall.hpp"
#include "tremor/backend/memory.hpp"
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
    // (-1 exactly where undamped: the same bits as an undamped model's there)
    if (cp_out)
      cp_out[i] = still ? Real(0) : ci == 0.0 ? Real(-1) : static_cast<Real>(a * (ci * inv_2dt - mi * inv_dt2));
  });
  const auto massless = static_cast<Index>(
      sum<double>(exec, n, [=] TREMOR_LAMBDA(Index i) { return !is_held[i] && m[i] == 0.0 ? 1.0 : 0.0; }));
  exec.synchronize();  // before `held` and `list` are released
  return massless;
}

// The mass of a DOF from its coefficients, M / dt^2 = (1 - C') / (2 A); 0 where held.
template <class Real>
TREMOR_HOST_DEVICE inline double mass_over_dt2(Real a, Real cp) {
  return a == Real(0) ? 0.0 : (1.0 - static_cast<double>(cp)) / (2.0 * static_cast<double>(a));
}

template <int Per = 0, bool Shots = false, class Real>
Coefficients<Real, Per, Shots> coefficients_of(const DeviceArray<Real>& a, const DeviceArray<Real>& cp, int per,
                                               Index damped_from, int columns = 1) {
  return {a.data(), cp.size() > 0 ? cp.data() : nullptr, per, columns, damped_from};
}

// The update of every DOF (Eq. 4 fused): per DOF U_prev, U_curr and K u read and U_next written,
// A (and C') per entry; K u zeroed for an operator that adds into it (one more write here instead
// of a pass of its own).
// Decelerates: -a_n at every DOF that moves and is not held as well, into `deceleration`
// (minus_acceleration).
// Apart: the entries [first, last) skipped but for the `n_listed` of `listed` (an operator's own
// step takes the others: update_apart).
struct Apart {
  Index first = 0, last = 0, n_listed = 0;
  const Index* listed = nullptr;
};

template <bool Decelerates, class Real, int Per, bool Shots>
void update(const Exec& exec, Index n, Coefficients<Real, Per, Shots> k, const Real* uc, Real* u, Real* ku, bool adds,
            Real* deceleration, double dt, Apart apart) {
  const auto inv_dt2 = static_cast<Real>(1.0 / (dt * dt));
  const Index gap = apart.last - apart.first, first = apart.first, before = n - gap;
  const Index* listed = apart.listed;
  forall(exec, before + apart.n_listed, [=] TREMOR_LAMBDA(Index t) {
    const Index i = t >= before ? listed[t - before] : t < first ? t : t + gap;
    const Real a = k.force_scale(i), cp = k.prev_scale(i), up = u[i], now = uc[i], f = ku[i];
    u[i] = next_level(a, cp, f, up, now);
    if (Decelerates && a != Real(0)) deceleration[i] = minus_acceleration(a, cp, f, up, now, inv_dt2);
    if (adds) ku[i] = Real(0);
  });
}

// Entries i of a (and cp) that differ from their node's first (i - i % per).
template <class Real>
double count_unequal(const Exec& exec, Index n, int per, const Real* a, const Real* cp) {
  return sum<double>(exec, n, [=] TREMOR_LAMBDA(Index i) {
    const Index first = i - i % per;
    return a[i] != a[first] || (cp && cp[i] != cp[first]) ? 1.0 : 0.0;
  });
}

// Every per-th entry of `in`: one per node.
template <class Real>
DeviceArray<Real> per_node(const Exec& exec, const DeviceArray<Real>& in, int per) {
  DeviceArray<Real> out(exec, in.size() / per);
  const Real* from = in.data();
  Real* to = out.data();
  forall(exec, out.size(), [=] TREMOR_LAMBDA(Index j) { to[j] = from[static_cast<Size>(j) * per]; });
  return out;
}

// The first k of [0, entries) where holds(k) is false, holds being true up to some k and false from
// it on (entries where it holds everywhere): by bisection, a reduction a test.
template <class Holds>
Index bisect(Index entries, const Holds& holds) {
  Index low = 0, high = entries;
  while (low < high) {
    const Index middle = low + (high - low) / 2;
    if (holds(middle))
      low = middle + 1;
    else
      high = middle;
  }
  return high;
}

// The entries of `scale` up to its last that is not 0 (0 where none is): the first entry from which
// none is.
template <class Real>
Index entries_with_a(const Exec& exec, const Real* scale, Index entries) {
  return bisect(entries, [&](Index k) {
    return sum<double>(exec, entries - k, [=] TREMOR_LAMBDA(Index i) { return scale[k + i] != Real(0) ? 1.0 : 0.0; }) >
           0.0;
  });
}

// The first entry that moves damped (A not 0, C' not -1); `entries` where none does. A model
// numbering its damped nodes last (a PML's: explicit/subdomain.hpp, one_domain_numbering) keeps C'
// for those alone, and the update reads none before them.
template <class Real>
Index first_damped(const Exec& exec, const Real* a, const Real* cp, Index entries) {
  // (whether none of [0, k] is damped: true up to the first damped entry, false from it on)
  return bisect(entries, [&](Index k) {
    return sum<double>(exec, k + 1, [=] TREMOR_LAMBDA(Index i) {
             return a[i] != Real(0) && cp[i] != Real(-1) ? 1.0 : 0.0;
           }) == 0.0;
  });
}

// Entries [from, from + size) of `in`.
template <class Real>
DeviceArray<Real> slice(const Exec& exec, const DeviceArray<Real>& in, Index from, Index size) {
  DeviceArray<Real> out(exec, size);
  memory::copy(exec, out.data(), exec.space(), in.data() + from, exec.space(),
               sizeof(Real) * static_cast<std::size_t>(size));
  return out;
}

}  // namespace

template <class Real>
CentralDifference<Real>::CentralDifference(const Exec& exec, const op::Operator<Real>& stiffness,
                                           std::span<const double> mass, std::span<const double> damping, double dt,
                                           std::span<const Index> fixed, int node_dofs, int columns)
    : CentralDifference(exec, stiffness, DeviceArray<double>(exec, mass), DeviceArray<double>(exec, damping), dt,
                        fixed, node_dofs, columns) {}

template <class Real>
CentralDifference<Real>::CentralDifference(const Exec& exec, const op::Operator<Real>& stiffness,
                                           DeviceArray<double> mass, DeviceArray<double> damping, double dt,
                                           std::span<const Index> fixed, int node_dofs, int columns)
    : exec_(exec), stiffness_(stiffness), n_(stiffness.n_dofs()), columns_(columns), dt_(dt) {
  set_up(std::move(mass), std::move(damping), fixed, node_dofs);
}

// The constructors' common work: checks, then the coefficients computed on the Exec.
template <class Real>
void CentralDifference<Real>::set_up(DeviceArray<double> mass, DeviceArray<double> damping,
                                     std::span<const Index> fixed, int node_dofs) {
  const Exec& exec = exec_;
  const double dt = dt_;
  TREMOR_CHECK(std::isfinite(dt) && dt > 0.0, "time step must be positive and finite, got ", dt);
  TREMOR_CHECK(node_dofs >= 1 && node_dofs <= 3, "DOFs per node ", node_dofs, "; expected 1 to 3");
  TREMOR_CHECK(columns_ >= 1, columns_, " shots stepped together");
  TREMOR_CHECK(static_cast<Size>(n_) * columns_ <= std::numeric_limits<Index>::max(), columns_, " shots of ", n_,
               " DOFs stepped together: more values than a field's index holds; step fewer at once");
  TREMOR_CHECK(columns_ == 1 || stiffness_.state_size() == 0 || stiffness_.state_columns() == columns_, columns_,
               " shots stepped together by ", stiffness_.name(), ", which keeps state for ", stiffness_.state_columns(),
               " (op::Operator::keep_states)");
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
  // One A (and C') per node where each node's components have the same: a node held in some
  // components only, or damped per component, keeps them per DOF.
  per_ = 1;
  if (node_dofs > 1 && n % node_dofs == 0 &&
      count_unequal<Real>(exec, n, node_dofs, force_scale_.data(), c ? prev_scale_.data() : nullptr) == 0.0) {
    per_ = node_dofs;
    force_scale_ = per_node(exec, force_scale_, per_);
    if (c) prev_scale_ = per_node(exec, prev_scale_, per_);
  }
  // The DOFs after the last that moves (A not 0) or is held: massless, at zero for good (the nodes no
  // element holds, which a model with fluids numbers last: explicit/subdomain.hpp,
  // one_domain_numbering), which the update leaves out.
  Index last_held = -1;
  for (const Index dof : fixed) last_held = std::max(last_held, dof);
  moving_ = std::max(entries_with_a<Real>(exec, force_scale_.data(), force_scale_.size()) * per_, last_held + 1);
  // C' from the first entry that moves damped on: none where no entry does.
  if (c) {
    const Index entries = prev_scale_.size();
    damped_from_ = first_damped<Real>(exec, force_scale_.data(), prev_scale_.data(), entries);
    prev_scale_ = damped_from_ == entries ? DeviceArray<Real>()
                                          : slice(exec, prev_scale_, damped_from_, entries - damped_from_);
  }
  // The mass and damping are not kept (the coefficients give both back): released before the state
  // is allocated, so the set-up's peak is theirs or the state's, not both.
  mass = DeviceArray<double>();
  damping = DeviceArray<double>();
  for (DeviceArray<Real>* state : {&prev_, &curr_, &ku_}) {
    *state = DeviceArray<Real>(exec, field_size());
    fill_zero(exec, state->data(), field_size());
  }
  exec.synchronize();
}

template <class Real>
void CentralDifference<Real>::step(View<const Index> loaded_dofs, View<const Real> loads,
                                   View<const Index> prescribed_dofs, View<const Real> prescribed) {
  TREMOR_CHECK(apart_first_ == apart_last_, "a whole step of an update that an operator takes in part (update_apart): "
               "its caller applies the operator with inner_step()");
  apply_stiffness();
  advance(loaded_dofs, loads, prescribed_dofs, prescribed);
}

template <class Real>
View<Real> CentralDifference<Real>::apply_stiffness() {
  // An operator that adds into K u finds it zeroed by the last update (or the set-up).
  if (stiffness_.adds())
    stiffness_.add_batch(curr_.view(), ku_.view(), columns_);
  else
    stiffness_.apply_batch(curr_.view(), ku_.view(), columns_);
  return ku_.view();
}

template <class Real>
View<Real> CentralDifference<Real>::apply_stiffness(const op::Operator<Real>& part) {
  TREMOR_CHECK(stiffness_.adds() == part.adds(), "a part of the stiffness that ", part.adds() ? "adds" : "does not add",
               " into K u, of a stiffness that ", stiffness_.adds() ? "does" : "does not");
  if (part.adds())
    part.add_batch(curr_.view(), ku_.view(), columns_);
  else
    part.apply_batch(curr_.view(), ku_.view(), columns_);
  return ku_.view();
}

template <class Real>
void CentralDifference<Real>::advance(View<const Index> loaded_dofs, View<const Real> loads,
                                      View<const Index> prescribed_dofs, View<const Real> prescribed,
                                      View<Real> deceleration) {
  TREMOR_CHECK(prescribed.size == prescribed_dofs.size, "prescribed values and DOFs differ in count");
  TREMOR_CHECK(deceleration.size == 0 || deceleration.size == field_size(), "the deceleration's ", deceleration.size,
               " entries for ", n_, " DOFs of ", columns_, " shot(s)");
  const View<Real> u = prev_.view(), ku = ku_.view();  // U_prev in, U_next out
  // Eq. (4): U_next = A (F - K U_curr) + C' U_prev + (1 - C') U_curr, F moved into K u first.
  load(loaded_dofs, loads);
  const DeviceArray<Real>& a = force_scale_;
  const DeviceArray<Real>& cp = prev_scale_;
  const Real* uc = std::as_const(curr_).data();
  const bool adds = stiffness_.adds();
  Real* out = deceleration.size > 0 ? deceleration.data : nullptr;
  // (The DOFs that move, of every shot: the first moving_ DOFs, moving_ * columns_ entries.)
  const auto moving = static_cast<Index>(static_cast<Size>(moving_) * columns_);
  // (The entries an operator steps itself skipped, but for those listed: update_apart.)
  const Apart apart{apart_first_ * columns_, apart_last_ * columns_, apart_listed_.size, apart_listed_.data};
  TREMOR_CHECK(out == nullptr || apart.first == apart.last,
               "the deceleration at every DOF of an update that an operator takes in part");
  const auto run = [&](auto k) {
    if (out)
      update<true>(exec_, moving, k, uc, u.data, ku.data, adds, out, dt_, apart);
    else
      update<false>(exec_, moving, k, uc, u.data, ku.data, adds, out, dt_, apart);
  };
  if (columns_ > 1) {
    switch (per_) {
      case 2: run(coefficients_of<2, true>(a, cp, 2, damped_from_, columns_)); break;
      case 3: run(coefficients_of<3, true>(a, cp, 3, damped_from_, columns_)); break;
      default: run(coefficients_of<1, true>(a, cp, 1, damped_from_, columns_)); break;
    }
  } else {
    switch (per_) {
      case 2: run(coefficients_of<2>(a, cp, 2, damped_from_)); break;
      case 3: run(coefficients_of<3>(a, cp, 3, damped_from_)); break;
      default: run(coefficients_of<1>(a, cp, 1, damped_from_)); break;
    }
  }
  // DOF indices are the caller's (Loading checks them against the mesh).
  forall(exec_, prescribed_dofs.size, [=] TREMOR_LAMBDA(Index k) { u[prescribed_dofs[k]] = prescribed[k]; });
  std::swap(prev_, curr_);
  ++steps_;
}

template <class Real>
void CentralDifference<Real>::load(View<const Index> loaded_dofs, View<const Real> loads) {
  TREMOR_CHECK(loads.size == loaded_dofs.size, "loads and loaded DOFs differ in count");
  // At the loaded DOFs (A (0 - (K u - F)) is A (F - K u) to the bit: a rounded difference changes
  // sign exactly).
  const View<Real> ku = ku_.view();
  forall(exec_, loaded_dofs.size, [=] TREMOR_LAMBDA(Index k) { ku[loaded_dofs[k]] -= loads[k]; });
}

template <class Real>
void CentralDifference<Real>::update_apart(Index first, Index last, View<const Index> listed) {
  TREMOR_CHECK(first >= 0 && first <= last && last <= moving_, "an update apart from DOFs ", first, " to ", last,
               " of ", moving_, " that move");
  TREMOR_CHECK(first == last || per_ == 1, "an update apart from some DOFs of nodes of ", per_, " DOFs");
  apart_first_ = first;
  apart_last_ = last;
  apart_listed_ = listed;
}

template <class Real>
op::InnerStep<Real> CentralDifference<Real>::inner_step() {
  op::InnerStep<Real> step;
  if (apart_first_ == apart_last_) return step;
  step.k = coefficients_of<1>(force_scale_, prev_scale_, 1, damped_from_);
  step.u = prev_.data();
  step.first = apart_first_;
  step.last = apart_last_;
  return step;
}

template <class Real>
Deceleration<Real> CentralDifference<Real>::deceleration() const {
  Deceleration<Real> d;
  d.k = coefficients_of<0, true>(force_scale_, prev_scale_, per_, damped_from_, columns_);
  d.uc = curr_.data();
  d.up = prev_.data();
  d.ku = ku_.data();
  d.inv_dt2 = static_cast<Real>(1.0 / (dt_ * dt_));
  return d;
}

template <class Real>
void CentralDifference<Real>::set_state(std::span<const Real> previous, std::span<const Real> current, long long steps) {
  TREMOR_CHECK(static_cast<Index>(previous.size()) == field_size() &&
                   static_cast<Index>(current.size()) == field_size(),
               "state of ", previous.size(), " and ", current.size(), " entries for ", n_, " DOFs",
               columns_ > 1 ? str(" of ", columns_, " shots") : "");
  TREMOR_CHECK(steps >= 0, "negative step count ", steps);
  prev_.copy_from_host(previous);
  curr_.copy_from_host(current);
  // (K u zeroed too: a step stopped between the apply and the update leaves none behind, where an
  // operator stepping some DOFs itself would not zero it: update_apart.)
  fill_zero(exec_, ku_.data(), ku_.size());
  exec_.synchronize();
  steps_ = steps;
}

template <class Real>
void CentralDifference<Real>::get_state(std::vector<Real>& previous, std::vector<Real>& current) const {
  previous = prev_.to_host();
  current = curr_.to_host();
}

template <class Real>
void CentralDifference<Real>::set_initial_conditions(std::span<const Real> u0, std::span<const Real> v0) {
  TREMOR_CHECK(columns_ == 1, "initial conditions for ", columns_, " shots stepped together: one at a time");
  TREMOR_CHECK(static_cast<Index>(u0.size()) == n_ && static_cast<Index>(v0.size()) == n_, "initial conditions of ",
               u0.size(), " and ", v0.size(), " entries for ", n_, " DOFs");
  const DeviceArray<Real> velocity(exec_, v0);
  curr_.copy_from_host(u0);
  const Coefficients<Real> k =
      coefficients_of(std::as_const(force_scale_), std::as_const(prev_scale_), per_, damped_from_);
  const View<const Real> ku = std::as_const(ku_).view(), v = velocity.view();
  const View<Real> uc = curr_.view(), up = prev_.view();
  forall(exec_, n_, [=] TREMOR_LAMBDA(Index i) {
    if (k.force_scale(i) == Real(0)) uc[i] = Real(0);  // held DOFs start, and stay, at zero
  });
  stiffness_.apply(curr_.view(), ku_.view());
  // dt^2/2 M^-1 = A / (1 - C'): A / 2 undamped.
  const Real dt = static_cast<Real>(dt_);
  forall(exec_, n_, [=] TREMOR_LAMBDA(Index i) {
    const Real a = k.force_scale(i), half_dt2_over_m = a / (Real(1) - k.prev_scale(i));
    up[i] = a == Real(0) ? Real(0) : uc[i] - dt * v[i] - half_dt2_over_m * ku[i];
  });
  fill_zero(exec_, ku_.data(), n_);  // as apply_stiffness() expects it
  exec_.synchronize();
  steps_ = 0;
}

template <class Real>
double CentralDifference<Real>::kinetic_energy() const {
  const Coefficients<Real, 0, true> k =
      coefficients_of<0, true>(std::as_const(force_scale_), std::as_const(prev_scale_), per_, damped_from_, columns_);
  const View<const Real> up = prev_.view(), uc = curr_.view();
  // 1/2 M v^2 = 1/2 (M / dt^2) (U_curr - U_prev)^2.
  return 0.5 * sum<double>(exec_, field_size(), [=] TREMOR_LAMBDA(Index i) {
           const double du = static_cast<double>(uc[i]) - static_cast<double>(up[i]);
           return mass_over_dt2(k.force_scale(i), k.prev_scale(i)) * du * du;
         });
}

template <class Real>
double CentralDifference<Real>::strain_energy() const {
  DeviceArray<Real> k_prev(exec_, field_size());
  stiffness_.apply_batch(prev_.view(), k_prev.view(), columns_);
  const View<const Real> kp = std::as_const(k_prev).view(), uc = curr_.view();
  return 0.5 * sum<double>(exec_, field_size(), [=] TREMOR_LAMBDA(Index i) {
           return static_cast<double>(uc[i]) * static_cast<double>(kp[i]);
         });
}

template class CentralDifference<float>;
template class CentralDifference<double>;

}  // namespace tremor::explicit_fe
