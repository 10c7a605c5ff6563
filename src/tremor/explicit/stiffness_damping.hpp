#pragma once
// Stiffness-proportional (Rayleigh beta) damping, C = beta K, as a per-step term (step_term.hpp):
// forces += sum_e beta_e K_e v with the velocity half a step back, v = (u_n - u_n-1) / dt.
//
// K is not diagonal, so C cannot join the lumped damping that central differences treat implicitly
// (central_difference.hpp); with the lagged velocity the step stays explicit, a mode of angular
// frequency omega decays at beta omega^2 / 2 (to O(beta omega^2 dt), its exponent exact where
// omega dt is small: |z|^2 = 1 - beta omega^2 dt per step), and the stable step shrinks to
// dt <= (2 / omega_max) (sqrt(1 + xi^2) - xi), xi = beta omega_max / 2 (the roots of
// z^2 - (2 - b - a^2) z + (1 - b), a = omega dt, b = beta omega^2 dt, stay in the unit circle:
// Jury's conditions; Abaqus/Explicit's rule), which the pre-flight applies (stable_step_with_damping).
//
// Per step: one pass forming beta/dt (u_n - u_n-1) (2 reads, 1 write per DOF) and one apply of K,
// added into the forces (an element-by-element operator adds; an assembled one applies into a
// vector of its own, then a pass adds it). Where every element has the same beta the subdomain's
// own K serves; otherwise an operator of its own of the same kind, with each element's K_e scaled
// by beta_e (fem::SectionTable::element_stiffness_factor), about the memory of K once more. Shots
// stepped together (`columns`, central_difference.hpp): the velocity of every shot, one batched
// apply (op::Operator::add_batch), each shot's forces the bits of its own run.
#include <algorithm>
#include <memory>
#include <optional>
#include <string_view>

#include "tremor/backend/device_array.hpp"
#include "tremor/explicit/step_term.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/operator/operator.hpp"

namespace tremor::explicit_fe {

// The elements' beta (fem::SectionTable::damping_beta of their sections): the largest, and the
// one value every element has, if they all have the same.
struct ElementBetas {
  double largest = 0.0;
  std::optional<double> uniform;
  bool taken = false;
  bool any() const { return largest > 0.0; }
  // Counts one more element's (or section's) beta.
  void take(double beta) {
    if (!taken) uniform = beta;
    if (uniform && *uniform != beta) uniform.reset();
    largest = std::max(largest, beta);
    taken = true;
  }
};
ElementBetas element_betas(const fem::SectionTable& table);

// The table whose element stiffness factors are the given table's times each element's beta
// (s): the elements of sum_e beta_e K_e.
fem::SectionTable beta_weighted(const fem::SectionTable& table);

// The stable step of central differences with the lagged stiffness-proportional damping above,
// from the undamped one (2 / omega_max) and the largest beta: (2 / omega_max) (sqrt(1 + xi^2) -
// xi), xi = beta omega_max / 2. Mass-proportional damping, implicit in the scheme, leaves it as is.
double stable_step_with_damping(double undamped_dt, double beta);

template <class Real>
class StiffnessDamping final : public StepTerm<Real> {
 public:
  // beta K through `stiffness` (every element's beta is `beta`), an operator the caller keeps.
  StiffnessDamping(const op::Operator<Real>& stiffness, double beta, double dt, int columns = 1);
  // sum_e beta_e K_e through `weighted`, built with the elements of beta_weighted(); kept here.
  StiffnessDamping(std::unique_ptr<op::Operator<Real>> weighted, double dt, int columns = 1);

  std::string_view name() const override { return "stiffness-proportional damping"; }
  void add_forces(const CentralDifference<Real>& scheme, View<Real> forces) override;
  // Its arrays: the velocity and, where the operator does not add, its product (and an operator
  // of its own).
  std::size_t bytes() const;

 private:
  // The velocity (and product) for K, `own` or the caller's.
  StiffnessDamping(std::unique_ptr<op::Operator<Real>> own, const op::Operator<Real>* K, double scale, int columns);
  std::unique_ptr<op::Operator<Real>> own_;
  const op::Operator<Real>* K_;
  double scale_;     // beta / dt, or 1 / dt for an operator weighted by beta
  int columns_ = 1;  // shots stepped together
  DeviceArray<Real> velocity_, product_;
};

extern template class StiffnessDamping<float>;
extern template class StiffnessDamping<double>;

}  // namespace tremor::explicit_fe
