#include "tremor/explicit/stiffness_damping.hpp"

#include <algorithm>
#include <cmath>

#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"

namespace tremor::explicit_fe {

ElementBetas element_betas(const fem::SectionTable& table) {
  ElementBetas betas;
  for (const int section : table.element_section) betas.take(table.damping_beta[static_cast<std::size_t>(section)]);
  if (!betas.taken) betas.uniform = 0.0;  // no element: nothing damps
  return betas;
}

fem::SectionTable beta_weighted(const fem::SectionTable& table) {
  fem::SectionTable weighted = table;
  weighted.element_stiffness_factor.resize(table.element_section.size());
  for (std::size_t e = 0; e < table.element_section.size(); ++e)
    weighted.element_stiffness_factor[e] =
        table.stiffness_factor(e) * table.damping_beta[static_cast<std::size_t>(table.element_section[e])];
  return weighted;
}

double stable_step_with_damping(double undamped_dt, double beta) {
  if (!(beta > 0.0)) return undamped_dt;
  const double xi = beta / undamped_dt;  // beta omega_max / 2 with omega_max = 2 / dt
  return undamped_dt / (std::sqrt(1.0 + xi * xi) + xi);  // sqrt(1 + xi^2) - xi, without its cancellation
}

template <class Real>
StiffnessDamping<Real>::StiffnessDamping(const op::Operator<Real>& stiffness, double beta, double dt, int columns)
    : StiffnessDamping(nullptr, &stiffness, beta / dt, columns) {
  TREMOR_CHECK(beta > 0.0 && std::isfinite(beta) && dt > 0.0, "stiffness-proportional damping: beta ", beta,
               " s and dt ", dt, " s must be positive");
}

template <class Real>
StiffnessDamping<Real>::StiffnessDamping(std::unique_ptr<op::Operator<Real>> weighted, double dt, int columns)
    : StiffnessDamping(std::move(weighted), nullptr, 1.0 / dt, columns) {
  TREMOR_CHECK(dt > 0.0, "stiffness-proportional damping: dt ", dt, " s not positive");
}

template <class Real>
StiffnessDamping<Real>::StiffnessDamping(std::unique_ptr<op::Operator<Real>> own, const op::Operator<Real>* K,
                                         double scale, int columns)
    : own_(std::move(own)), K_(own_ ? own_.get() : K), scale_(scale), columns_(columns) {
  TREMOR_CHECK(K_, "stiffness-proportional damping: no operator");
  TREMOR_CHECK(columns >= 1, "stiffness-proportional damping for ", columns, " shots");
  const auto n = static_cast<Index>(static_cast<Size>(K_->n_dofs()) * columns);
  velocity_ = DeviceArray<Real>(K_->exec(), n);
  if (!K_->adds()) product_ = DeviceArray<Real>(K_->exec(), n);
}

template <class Real>
void StiffnessDamping<Real>::add_forces(const CentralDifference<Real>& scheme, View<Real> forces) {
  const Exec& exec = K_->exec();
  TREMOR_CHECK(scheme.field_size() == velocity_.size(), "stiffness-proportional damping set up for ", columns_,
               " shot(s), stepped with ", scheme.columns());
  const Real* u = scheme.displacement().data;
  const Real* up = scheme.previous_displacement().data;
  Real* v = velocity_.data();
  const auto scale = static_cast<Real>(scale_);
  forall(exec, velocity_.size(), [=] TREMOR_LAMBDA(Index i) { v[i] = scale * (u[i] - up[i]); });
  if (K_->adds()) {
    K_->add_batch(velocity_.view(), forces, columns_);
    return;
  }
  K_->apply_batch(velocity_.view(), product_.view(), columns_);
  const Real* kv = product_.data();
  Real* f = forces.data;
  forall(exec, product_.size(), [=] TREMOR_LAMBDA(Index i) { f[i] += kv[i]; });
}

template <class Real>
std::size_t StiffnessDamping<Real>::bytes() const {
  return (velocity_.size() + product_.size()) * sizeof(Real) + (own_ ? own_->bytes() : 0);
}

template class StiffnessDamping<float>;
template class StiffnessDamping<double>;

}  // namespace tremor::explicit_fe
