// The central-difference integrator (pogo paper section 2.1, Eq. 4) on small plane-strain steel
// blocks: exact conservation of the discrete energy without damping, the decay rate of
// mass-proportional damping, second-order convergence in dt, held degrees of freedom.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "tremor/explicit/central_difference.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/fem/time_step.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/sparse/assemble.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

constexpr double side = 0.01;  // m

Model block(double damping_alpha, Size divisions = 12) {
  Model model;
  model.source = "block";
  model.mesh = generate_rectangle({0.0, 0.0}, {side, side}, {divisions, divisions}, ElementType::Quad4);
  Material steel = Material::from_youngs("steel", 210e9, 0.3, 7850.0);
  steel.damping_alpha = damping_alpha;
  model.materials.push_back(steel);
  model.sections.push_back({"all", "steel", Formulation::PlaneStrain, 1.0});
  model.validate();
  return model;
}

// A smooth initial displacement: a bump in both components, zero on the boundary.
template <class Real>
std::vector<Real> bump(const Mesh& mesh) {
  std::vector<Real> u(static_cast<std::size_t>(mesh.n_nodes()) * 2);
  for (Index i = 0; i < mesh.n_nodes(); ++i) {
    const double x = mesh.node(i)[0] / side, y = mesh.node(i)[1] / side;
    const double s = std::sin(std::numbers::pi * x) * std::sin(std::numbers::pi * y);
    u[static_cast<std::size_t>(i) * 2] = static_cast<Real>(1e-6 * s);
    u[static_cast<std::size_t>(i) * 2 + 1] = static_cast<Real>(0.5e-6 * s * x);
  }
  return u;
}

struct Trace {
  std::vector<double> energy;  // kinetic + strain after each step
  std::vector<double> final_displacement;
};

// node_dofs: the scheme's DOFs per node (1: its coefficients kept per DOF; 2: per node where the
// components' are equal, `coefficient_dofs` says which it chose).
template <class Real>
Trace run(const Model& model, double dt, int steps, std::span<const Index> fixed = {}, int node_dofs = 2,
          int* coefficient_dofs = nullptr) {
  const Exec exec = Exec::openmp();
  const auto stiffness = explicit_fe::make_stiffness_operator<Real>(model, "assembled");
  const auto mass = sparse::assemble_lumped_mass(model);
  const auto damping = sparse::assemble_lumped_damping(model);
  explicit_fe::CentralDifference<Real> scheme(exec, *stiffness, mass, damping, dt, fixed, node_dofs);
  if (coefficient_dofs) *coefficient_dofs = scheme.coefficient_dofs();
  const auto u0 = bump<Real>(model.mesh);
  const std::vector<Real> v0(u0.size(), Real(0));
  scheme.set_initial_conditions(u0, v0);
  Trace result;
  for (int n = 0; n < steps; ++n) {
    scheme.step({}, {});
    result.energy.push_back(scheme.kinetic_energy() + scheme.strain_energy());
  }
  const View<const Real> u = scheme.displacement();
  for (Index i = 0; i < u.size; ++i) result.final_displacement.push_back(static_cast<double>(u[i]));
  return result;
}

double stable_dt(const Model& model) { return fem::stable_time_step(model).dt; }

TEST(CentralDifference, UndampedEnergyIsConserved) {
  const Model model = block(0.0);
  const double dt = 0.9 * stable_dt(model);
  const Trace d = run<double>(model, dt, 400);
  // The leapfrog energy 1/2 v^T M v + 1/2 u_n+1^T K u_n is an exact invariant; what remains is
  // rounding, ~1e-16 per step over 400 steps with condition ~1e2.
  for (double e : d.energy) EXPECT_NEAR(e, d.energy.front(), 1e-11 * d.energy.front());
  const Trace f = run<float>(model, dt, 400);
  // Single precision: the same invariant, with float rounding (~6e-8 per step) accumulating over
  // the run (observed ~7e-7 after 400 steps).
  for (double e : f.energy) EXPECT_NEAR(e, f.energy.front(), 2e-5 * f.energy.front());
  double drift_d = 0.0, drift_f = 0.0;
  for (double e : d.energy) drift_d = std::max(drift_d, std::abs(e / d.energy.front() - 1.0));
  for (double e : f.energy) drift_f = std::max(drift_f, std::abs(e / f.energy.front() - 1.0));
  std::printf("energy drift over 400 steps: double %.2e, float %.2e\n", drift_d, drift_f);
  EXPECT_NEAR(f.energy.front(), d.energy.front(), 1e-5 * d.energy.front());
}

TEST(CentralDifference, MassProportionalDampingDecaysAtAlpha) {
  // C = alpha M damps every mode alike: the roots z, z* of each mode's characteristic equation
  // have |z|^2 = z z* = (1 - alpha dt/2)/(1 + alpha dt/2) = r, so the energy (~ |z|^2n) falls by r per
  // step: exp(-alpha t) to O((alpha dt)^2), the continuous decay of C = alpha M.
  const double alpha = 1e4;  // 1/s, ~1% of the lowest angular frequency (~1e6 rad/s) of the block
  const Model model = block(alpha);
  const double dt = 0.9 * stable_dt(model);
  const int steps = static_cast<int>(std::ceil(1.0 / (alpha * dt)));  // alpha t ~ 1: e-fold decay
  const Trace d = run<double>(model, dt, steps);
  const double r = (1.0 - 0.5 * alpha * dt) / (1.0 + 0.5 * alpha * dt);
  const double expected = d.energy.front() * std::pow(r, steps - 1);
  // Within a cycle the energy falls where the velocity is large (dE/dt = -alpha v^T M v, not
  // -alpha E): a wobble of relative size below ~alpha / omega_min ~ 1% around the exponential.
  EXPECT_NEAR(d.energy.back(), expected, 0.01 * expected) << "initial " << d.energy.front() << " steps " << steps;
  EXPECT_LT(d.energy.back(), 0.5 * d.energy.front());  // and it did decay (exp(-1) ~ 0.37)
  std::printf("alpha t = %.4f: energy ratio %.5f, r^n %.5f\n", alpha * dt * (steps - 1),
              d.energy.back() / d.energy.front(), expected / d.energy.front());
}

TEST(CentralDifference, SecondOrderInTimeStep) {
  const Model model = block(0.0, 6);
  // dt0 small enough (omega_max dt0 ~ 0.2) that even the mesh's highest modes are in the
  // asymptotic range, where the phase error omega^3 dt^2 t / 24 dominates.
  const double dt0 = 0.1 * stable_dt(model);
  const int base = 64;  // steps at dt0; T = 64 dt0 is a whole number of steps for every dt below
  const auto reference = run<double>(model, dt0 / 64, base * 64).final_displacement;
  double norm = 0.0;
  for (double v : reference) norm += v * v;
  std::vector<double> errors;
  for (int refine : {1, 2, 4}) {
    const auto u = run<double>(model, dt0 / refine, base * refine).final_displacement;
    double e = 0.0;
    for (std::size_t i = 0; i < u.size(); ++i) e += (u[i] - reference[i]) * (u[i] - reference[i]);
    errors.push_back(std::sqrt(e / norm));
  }
  // Central differences with the Taylor start are second order: halving dt divides the error by 4.
  // The reference at dt0/64 carries 1/256 of the finest run's error, so the observed rates sit
  // within a few percent of 2.
  for (std::size_t k = 1; k < errors.size(); ++k) {
    const double rate = std::log2(errors[k - 1] / errors[k]);
    EXPECT_NEAR(rate, 2.0, 0.1) << "errors " << errors[k - 1] << " -> " << errors[k];
    std::printf("dt/%d -> dt/%d: relative error %.3e -> %.3e, rate %.3f\n", 1 << (k - 1), 1 << k, errors[k - 1],
                errors[k], rate);
  }
  EXPECT_GT(errors.front(), 1e-8);  // the errors are discretisation, not rounding
}

TEST(CentralDifference, HeldDegreesOfFreedomStayAtZero) {
  const Model model = block(0.0, 4);
  std::vector<Index> fixed;
  for (Index node : model.mesh.node_sets.at("xmin")) {
    fixed.push_back(node * 2);
    fixed.push_back(node * 2 + 1);
  }
  const Trace d = run<double>(model, 0.9 * stable_dt(model), 50, fixed);
  for (Index dof : fixed) EXPECT_EQ(d.final_displacement[static_cast<std::size_t>(dof)], 0.0);
  double moving = 0.0;
  for (double v : d.final_displacement) moving = std::max(moving, std::abs(v));
  EXPECT_GT(moving, 1e-8);  // the rest of the block does move
}

// A and C' are kept once per node where a node's components have the same (the common case), per
// DOF where not (a node held in x only); either way the step is the same arithmetic, to the bit.
TEST(CentralDifference, CoefficientsPerNodeStepAsPerDof) {
  const Model model = block(1e4, 4);  // damped: C' is kept too
  const double dt = 0.9 * stable_dt(model);
  int per = 0;
  const Trace by_dof = run<double>(model, dt, 30, {}, 1, &per);
  EXPECT_EQ(per, 1);
  const Trace by_node = run<double>(model, dt, 30, {}, 2, &per);
  EXPECT_EQ(per, 2);
  EXPECT_EQ(by_node.final_displacement, by_dof.final_displacement);
  EXPECT_EQ(by_node.energy, by_dof.energy);
  std::vector<Index> roller;  // x held on the left edge, y free
  for (Index node : model.mesh.node_sets.at("xmin")) roller.push_back(node * 2);
  const Trace rolled = run<float>(model, dt, 30, roller, 2, &per);
  EXPECT_EQ(per, 1);
  for (Index dof : roller) EXPECT_EQ(rolled.final_displacement[static_cast<std::size_t>(dof)], 0.0);
}

// Damping at some entries only (an absorbing layer's nodes): the Taylor start and one step from it
// are Eq. (4) with each DOF's own A and C', computed here in double, whether the coefficients are
// kept per node or per DOF, and whether the first node is damped or C' is kept from a later one on
// (damped_from: the nodes before the first damped one read C' = -1 without keeping it).
TEST(CentralDifference, DampingAtSomeEntriesStepsAsEquation4) {
  const Model model = block(0.0, 12);  // 169 nodes, 338 DOFs
  const double dt = 0.9 * stable_dt(model);
  const auto stiffness = explicit_fe::make_stiffness_operator<double>(model, "assembled");
  const auto mass = sparse::assemble_lumped_mass(model);
  const auto n = static_cast<std::size_t>(stiffness->n_dofs());
  const std::vector<double> u0 = bump<double>(model.mesh);
  std::vector<double> v0(n);
  for (std::size_t i = 0; i < n; ++i) v0[i] = 10.0 * std::cos(0.37 * static_cast<double>(i));  // m/s: dt v0 ~ u0
  std::vector<double> ku(n);
  const auto size = static_cast<Index>(n);
  stiffness->apply(View<const double>(u0.data(), size), View<double>(ku.data(), size));
  for (const std::vector<Index>& damped : {std::vector<Index>{0, 1, 31, 32, 33, 63, 64, 95, 100, 127, 128, 160, 168},
                                           std::vector<Index>{31, 32, 33, 63, 64, 95, 100, 127, 128, 160, 168}}) {
    std::vector<double> damping(n, 0.0);
    for (const Index node : damped)
      for (int d = 0; d < 2; ++d) {
        const auto i = static_cast<std::size_t>(node) * 2 + static_cast<std::size_t>(d);
        // C dt / 2 about M / 2 (C' far from -1), C / M differing from node to node (as C' then does).
        damping[i] = 1e7 * (1.0 + 0.1 * static_cast<double>(node % 7)) * mass[i];
      }
    // Eq. (4) per DOF: A = 1 / (M / dt^2 + C / (2 dt)), C' = A (C / (2 dt) - M / dt^2); the Taylor
    // start U_prev = u0 - dt v0 - A / (1 - C') K u0; then U_next = -A K u0 + C' U_prev + (1 - C') u0.
    std::vector<double> expected(n);
    double largest = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double a = 1.0 / (mass[i] / (dt * dt) + damping[i] / (2.0 * dt));
      const double cp = a * (damping[i] / (2.0 * dt) - mass[i] / (dt * dt));
      const double previous = u0[i] - dt * v0[i] - a / (1.0 - cp) * ku[i];
      expected[i] = -a * ku[i] + cp * previous + (1.0 - cp) * u0[i];
      largest = std::max(largest, std::abs(expected[i]));
    }
    for (const int node_dofs : {2, 1}) {
      explicit_fe::CentralDifference<double> scheme(Exec::serial(), *stiffness, mass, damping, dt, {}, node_dofs);
      EXPECT_EQ(scheme.coefficient_dofs(), node_dofs);
      EXPECT_EQ(scheme.damped_from(), damped.front() * 2);
      scheme.set_initial_conditions(u0, v0);
      scheme.step({}, {});
      const View<const double> u = scheme.displacement();
      // Each value is some ten roundings of terms no larger than the largest (1.1e-16 each).
      for (std::size_t i = 0; i < n; ++i)
        EXPECT_NEAR(u[static_cast<Index>(i)], expected[i], 1e-14 * largest) << "DOF " << i << ", " << node_dofs;
    }
    // The first damped DOF moved otherwise than undamped it would: the test sees C'.
    const auto first = static_cast<std::size_t>(damped.front()) * 2;
    const double a0 = dt * dt / mass[first];
    const double undamped =
        -a0 * ku[first] - (u0[first] - dt * v0[first] - 0.5 * a0 * ku[first]) + 2.0 * u0[first];
    EXPECT_GT(std::abs(undamped - expected[first]), 1e-6 * largest);
  }
}

// Forces at a list of DOFs: from rest, one step moves each loaded DOF by dt^2 F / M (Eq. 4 with
// U_prev = U_curr = 0) and no other.
TEST(CentralDifference, LoadsMoveTheLoadedDofsOnly) {
  const Model model = block(0.0, 4);
  const double dt = 0.9 * stable_dt(model);
  const auto stiffness = explicit_fe::make_stiffness_operator<double>(model, "assembled");
  const auto mass = sparse::assemble_lumped_mass(model);
  explicit_fe::CentralDifference<double> scheme(Exec::serial(), *stiffness, mass, {}, dt, {}, 2);
  const std::vector<Index> dofs{3, 10, 17};
  const std::vector<double> loads{2.0, -1.5, 0.25};  // N
  scheme.step(View<const Index>(dofs.data(), 3), View<const double>(loads.data(), 3));
  const View<const double> u = scheme.displacement();
  for (Index i = 0; i < u.size; ++i) {
    const auto at = std::find(dofs.begin(), dofs.end(), i);
    const double expected = at == dofs.end() ? 0.0 : dt * dt * loads[at - dofs.begin()] / mass[i];
    // A = 1 / (M / dt^2) and the expected value are each a few roundings (~8 in all, 1.1e-16 each).
    EXPECT_NEAR(u[i], expected, 2e-15 * std::abs(expected)) << "DOF " << i;
  }
  const std::vector<double> one{1.0};
  EXPECT_THROW(scheme.step(View<const Index>(dofs.data(), 3), View<const double>(one.data(), 1)), Error);
}

TEST(CentralDifference, RejectsBadTimeStepsAndSizes) {
  const Model model = block(0.0, 2);
  const auto stiffness = explicit_fe::make_stiffness_operator<double>(model, "assembled");
  const auto mass = sparse::assemble_lumped_mass(model);
  EXPECT_THROW(explicit_fe::CentralDifference<double>(Exec::serial(), *stiffness, mass, {}, 0.0, {}), Error);
  EXPECT_THROW(explicit_fe::CentralDifference<double>(Exec::serial(), *stiffness, mass, {}, NAN, {}), Error);
  const std::vector<double> short_mass(mass.begin(), mass.end() - 1);
  EXPECT_THROW(explicit_fe::CentralDifference<double>(Exec::serial(), *stiffness, short_mass, {}, 1e-8, {}), Error);
  const std::vector<Index> bad_fixed{static_cast<Index>(mass.size())};
  EXPECT_THROW(explicit_fe::CentralDifference<double>(Exec::serial(), *stiffness, mass, {}, 1e-8, bad_fixed), Error);
  EXPECT_THROW(explicit_fe::CentralDifference<double>(Exec::serial(), *stiffness, mass, {}, 1e-8, {}, 4), Error);
}

}  // namespace
}  // namespace tremor
