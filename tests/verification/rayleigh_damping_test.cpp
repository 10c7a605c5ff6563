// Rayleigh damping, C = alpha M + beta K, on the longitudinal modes of a bar held at both ends
// (docs/verification.md, "Rayleigh damping"): each mode decays at alpha / 2 + beta omega^2 / 2, on
// every operator, in double and float, on the host and a GPU; the stable step shrinks as
// stiffness_damping.hpp says; elements of different beta weigh their own K_e.
//
// With Poisson's ratio 0 a displacement along the bar that is the same over each cross-section
// couples to nothing else, and the lumped hex8 (or GLL order 1) bar is a chain of linear 1D
// elements: u_x = sin(k pi x / L) is a mode exactly, of omega_k = (2 c / h) sin(k pi h / 2 L).
// Started in it, every node's displacement follows u_n+1 = p u_n - q u_n-1 with q = |z|^2 the
// roots' product: a least-squares fit of p and q over the run measures the decay per step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "unit/explicit_test_models.hpp"
#include "tremor/core/format.hpp"
#include "tremor/explicit/central_difference.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/explicit/stiffness_damping.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/sparse/assemble.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

constexpr double length = 0.2, youngs = 200e9, density = 8000.0;  // c = 5000 m/s
constexpr Size cells = 20;
constexpr double h = length / cells;

// The bar, hex8 or GLL order 1, one element across; a second material of other betas (`beta2`) on
// the elements past the middle when given.
Model bar(double alpha, double beta, ElementType type = ElementType::Hex8, double beta2 = -1.0) {
  Model model;
  model.source = "bar";
  model.mesh = generate_box({0.0, 0.0, 0.0}, {length, h, h}, {cells, 1, 1}, type, 1);
  Material steel = Material::from_youngs("steel", youngs, 0.0, density);
  steel.damping_alpha = alpha;
  steel.damping_beta = beta;
  model.materials.push_back(steel);
  model.sections.push_back({"all", "steel", Formulation::Solid, 1.0});
  if (beta2 >= 0.0) test::second_beta_beyond(model, 0.5 * length, beta2);
  model.validate();
  return model;
}

double omega(int mode) {
  const double c = std::sqrt(youngs / density);
  return 2.0 * c / h * std::sin(mode * std::numbers::pi * h / (2.0 * length));
}

std::vector<Index> held_ends(const Mesh& mesh) {
  std::vector<Index> fixed;
  for (const char* end : {"xmin", "xmax"})
    for (Index node : mesh.node_sets.at(end))
      for (Index c = 0; c < 3; ++c) fixed.push_back(node * 3 + c);
  return fixed;
}

// The bar's operator `kind` on exec with its stiffness-proportional damping as the run sets them up.
template <class Real>
struct Stepper {
  std::unique_ptr<op::Operator<Real>> K;
  std::unique_ptr<explicit_fe::CentralDifference<Real>> scheme;
  std::unique_ptr<explicit_fe::StiffnessDamping<Real>> term;

  Stepper(const Model& model, const std::string& kind, const Exec& exec, double dt) {
    const fem::SectionTable table = fem::section_table(model);
    const fem::ElementColouring colouring = fem::colour_elements(model.mesh);
    const auto elements = std::make_shared<const fem::DeviceElements>(exec, model.mesh, table, colouring);
    K = explicit_fe::make_stiffness_operator<Real>(model, kind, elements, sparse::RaceStrategy::Colouring);
    const auto mass = sparse::assemble_lumped_mass(model);
    const auto damping = sparse::assemble_lumped_damping(model);
    scheme = std::make_unique<explicit_fe::CentralDifference<Real>>(exec, *K, mass, damping, dt,
                                                                     held_ends(model.mesh), 3);
    const explicit_fe::ElementBetas betas = explicit_fe::element_betas(table);
    if (betas.uniform && *betas.uniform > 0.0) {
      term = std::make_unique<explicit_fe::StiffnessDamping<Real>>(*K, *betas.uniform, dt);
    } else if (betas.any()) {
      const auto weighted = std::make_shared<const fem::DeviceElements>(exec, model.mesh,
                                                                        explicit_fe::beta_weighted(table), colouring);
      term = std::make_unique<explicit_fe::StiffnessDamping<Real>>(
          explicit_fe::make_stiffness_operator<Real>(model, kind, weighted, sparse::RaceStrategy::Colouring), dt);
    }
  }
  void step() {
    const View<Real> forces = scheme->apply_stiffness();
    if (term) term->add_forces(*scheme, forces);
    scheme->advance({}, {});
  }
};

// Starts `stepper` in mode k and returns the x displacement of the node nearest to where the mode is
// largest, after each of `steps` steps.
template <class Real>
std::vector<double> ring(Stepper<Real>& stepper, const Mesh& mesh, int mode, int steps) {
  std::vector<Real> u0(static_cast<std::size_t>(mesh.n_nodes()) * 3, Real(0)), v0(u0.size(), Real(0));
  Index watched = 0;
  double largest = -1.0;
  for (Index i = 0; i < mesh.n_nodes(); ++i) {
    const double shape = std::sin(mode * std::numbers::pi * mesh.node(i)[0] / length);
    u0[static_cast<std::size_t>(i) * 3] = static_cast<Real>(1e-6 * shape);
    if (std::abs(shape) > largest) largest = std::abs(shape), watched = i;
  }
  stepper.scheme->set_initial_conditions(u0, v0);
  std::vector<double> trace;
  std::vector<Real> previous, current;
  for (int n = 0; n < steps; ++n) {
    stepper.step();
    stepper.scheme->get_state(previous, current);
    trace.push_back(static_cast<double>(current[static_cast<std::size_t>(watched) * 3]));
  }
  return trace;
}

// q of the least-squares fit u_n+1 = p u_n - q u_n-1 over the trace: |z|^2 per step.
double fitted_q(const std::vector<double>& u) {
  double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
  for (std::size_t n = 1; n + 1 < u.size(); ++n) {
    a11 += u[n] * u[n];
    a12 -= u[n] * u[n - 1];
    a22 += u[n - 1] * u[n - 1];
    b1 += u[n] * u[n + 1];
    b2 -= u[n - 1] * u[n + 1];
  }
  const double det = a11 * a22 - a12 * a12;
  return (a11 * b2 - a12 * b1) / det;
}

struct Case {
  std::string kind;
  ElementType type;
};

double stable_dt(const Model& model) { return explicit_fe::stable_step(model, Exec::serial()).dt; }

template <class Real>
void expect_modes_decay(const Exec& exec, const std::vector<Case>& cases, double tolerance_discrete) {
  // alpha and beta of similar effect on mode 1 (250 and ~770 s^-1), 1% of critical and beta
  // omega_max / 2 ~ 0.25 at the highest mode: the stable step ~ 0.78 of the undamped one.
  const double alpha = 500.0, beta = 2.5e-7;
  for (const Case& c : cases) {
    const Model model = bar(alpha, beta, c.type);
    const double dt = 0.9 * stable_dt(model);
    for (int mode : {1, 2}) {
      SCOPED_TRACE(str(c.kind, " ", element_name(c.type), " mode ", mode, " ", sizeof(Real) == 4 ? "float" : "double"));
      const double w = omega(mode), continuous = alpha / 2.0 + beta * w * w / 2.0;
      const int steps = static_cast<int>(std::ceil(1.5 / (continuous * dt)));  // 1.5 e-folds
      Stepper<Real> stepper(model, c.kind, exec, dt);
      const double q = fitted_q(ring(stepper, model.mesh, mode, steps));
      const double rate = -std::log(q) / (2.0 * dt);
      // The scheme's own: (1 + c) z^2 - (2 - b - a^2) z + (1 - c - b) = 0 (stiffness_damping.hpp),
      // c = alpha dt / 2 implicit, b = beta omega^2 dt lagged.
      const double cc = 0.5 * alpha * dt, b = beta * w * w * dt;
      const double discrete = -std::log((1.0 - cc - b) / (1.0 + cc)) / (2.0 * dt);
      // Against the continuous alpha / 2 + beta omega^2 / 2, the criterion of docs/verification.md:
      // the lag's relative error is about b / 2 = xi omega dt, 1.2e-3 at mode 1 and 5e-3 at mode 2
      // (40 and 20 elements per wavelength; 1.1e-2 at mode 3).
      EXPECT_NEAR(rate, continuous, 0.01 * continuous);
      // Against the scheme's own: the fit of a pure mode is exact to rounding, and the
      // discrete omega_k of the chain is the mode's to rounding too.
      EXPECT_NEAR(rate, discrete, tolerance_discrete * discrete);
      std::printf("%-12s %-8s %s mode %d: decay %.6g 1/s, alpha/2 + beta omega^2/2 %.6g (%+.2e), scheme %.6g\n",
                  c.kind.c_str(), element_name(c.type).c_str(), sizeof(Real) == 4 ? "float " : "double", mode, rate,
                  continuous, rate / continuous - 1.0, discrete);
    }
  }
}

const std::vector<Case> host_cases = {{"assembled", ElementType::Hex8},
                                      {"block_csr", ElementType::Hex8},
                                      {"matrix_free", ElementType::Hex8},
                                      {"sem", ElementType::HexGLL}};

TEST(RayleighDamping, ModesDecayAtHalfAlphaPlusHalfBetaOmegaSquared) {
  // Double: rounding of ~1e-16 per step through the fit, well below 1e-6.
  expect_modes_decay<double>(Exec::openmp(), host_cases, 1e-6);
  // Float: the fit sees float rounding of u (~6e-8 relative), growing with the steps; 1e-3.
  expect_modes_decay<float>(Exec::openmp(), {{"block_csr", ElementType::Hex8}, {"matrix_free", ElementType::Hex8}},
                            1e-3);
}

TEST(RayleighDamping, GpuModesDecayAtHalfAlphaPlusHalfBetaOmegaSquared) {
  TREMOR_REQUIRE_GPU();
  const std::vector<Case> cases = {{"block_ell", ElementType::Hex8}, {"ell", ElementType::Hex8},
                                   {"matrix_free", ElementType::Hex8}, {"sem", ElementType::HexGLL}};
  expect_modes_decay<double>(Exec::cuda(), cases, 1e-6);
  expect_modes_decay<float>(Exec::cuda(), cases, 1e-3);
}

// The stable step of the lagged damping: the bar's highest mode alone (k = cells - 1, omega near
// the mesh's largest) at 0.99 of (2 / omega) (sqrt(1 + xi^2) - xi) decays, at 1.01 grows.
TEST(RayleighDamping, StableStepIsTheDampedRootsLimit) {
  const double beta = 2.5e-7;
  const Model model = bar(0.0, beta);
  const int mode = static_cast<int>(cells) - 1;
  const double w = omega(mode), xi = beta * w / 2.0;
  const double limit = 2.0 / w * (std::sqrt(1.0 + xi * xi) - xi);
  EXPECT_NEAR(explicit_fe::stable_step_with_damping(2.0 / w, beta), limit, 1e-15 * limit);
  // Where beta omega / 2 is large the limit tends to 1 / (beta omega^2 / 2) = dt / (2 xi): taken
  // without cancellation (the difference of the roots lost every digit from xi ~ 1e8 on).
  for (const double large : {1e4, 1e8, 1e12})
    EXPECT_NEAR(explicit_fe::stable_step_with_damping(1.0, large) * 2.0 * large, 1.0, 1.0 / (large * large) + 1e-15);
  for (double factor : {0.99, 1.01}) {
    Stepper<double> stepper(model, "block_csr", Exec::serial(), factor * limit);
    const std::vector<double> u = ring(stepper, model.mesh, mode, 400);  // 1.1^400: no overflow
    double early = 0.0, late = 0.0;
    for (std::size_t n = 0; n < 100; ++n) early = std::max(early, std::abs(u[n]));
    for (std::size_t n = u.size() - 100; n < u.size(); ++n) late = std::max(late, std::abs(u[n]));
    if (factor < 1.0)
      EXPECT_LT(late, early) << "at 0.99 x the limit the mode decays";
    else
      EXPECT_GT(late, 10.0 * early) << "at 1.01 x the limit the mode grows";
  }
}

// The pre-flight's stable step is the undamped one shortened for the largest beta, and says so.
TEST(RayleighDamping, PreflightShortensTheStableStep) {
  const double beta = 2.5e-7;
  explicit_fe::RunOptions options;
  options.duration = 1e-4;
  const Model damped = bar(0.0, beta), undamped = bar(0.0, 0.0);
  const explicit_fe::Preflight with = explicit_fe::preflight(damped, options);
  const explicit_fe::Preflight without = explicit_fe::preflight(undamped, options);
  const double expected = explicit_fe::stable_step_with_damping(without.stable_dt, beta);
  EXPECT_DOUBLE_EQ(with.stable_dt, expected);
  EXPECT_LT(with.stable_dt, 0.9 * without.stable_dt);  // xi ~ 0.2 to 0.3 at this bar's largest omega
  EXPECT_NE(with.stable_by.find("stiffness-proportional damping"), std::string::npos) << with.stable_by;
  EXPECT_EQ(with.warnings.size(), without.warnings.size());  // a ratio far below 1: not overdamped
  // A beta whose damping ratio pi f beta at the loads' highest frequency is above 1 is named.
  Model loaded = bar(0.0, 1e-3);
  PointSource pull;
  pull.nodes = {0};
  pull.direction = {1.0, 0.0, 0.0};
  pull.signal = Signal::ricker(1e4);
  loaded.point_sources.push_back(pull);
  const explicit_fe::Preflight overdamped = explicit_fe::preflight(loaded, options);
  ASSERT_GT(overdamped.highest_frequency, 1.0 / (std::numbers::pi * 1e-3));
  const auto named = std::count_if(overdamped.warnings.begin(), overdamped.warnings.end(), [](const std::string& w) {
    return w.find("damping_beta 0.001 s is a damping ratio of") != std::string::npos &&
           w.find("overdamped") != std::string::npos;
  });
  EXPECT_EQ(named, 1);
}

// Elements of different beta: the term's forces are sum_e beta_e K_e v, checked against K of the
// model whose materials' moduli are scaled by their beta (another route: D scaled, not K_e), on
// every kind; and one beta everywhere through the weighted operator gives the shared K's forces.
TEST(RayleighDamping, ElementsWeighTheirOwnBeta) {
  const double beta1 = 2e-7, beta2 = 7e-7, dt = 1e-7;
  const Model model = bar(0.0, beta1, ElementType::Hex8, beta2);
  Model scaled = model;
  for (Material& m : scaled.materials) {
    const double beta = m.damping_beta;
    m = Material::from_youngs(m.name, youngs * beta, 0.0, density);
  }
  const auto n = static_cast<std::size_t>(model.mesh.n_nodes()) * 3;
  std::vector<double> previous(n), current(n);
  for (std::size_t i = 0; i < n; ++i) {
    current[i] = 1e-6 * std::sin(0.37 * static_cast<double>(i));
    previous[i] = current[i] - 1e-8 * std::cos(0.11 * static_cast<double>(i));
  }
  const auto reference = explicit_fe::make_stiffness_operator<double>(scaled, "assembled");
  std::vector<double> v(n), expected(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = (current[i] - previous[i]) / dt;
  reference->apply(View<const double>(v.data(), static_cast<Index>(n)), View<double>(expected.data(), static_cast<Index>(n)));
  double norm = 0.0;
  for (double e : expected) norm = std::max(norm, std::abs(e));
  for (const char* kind : {"assembled", "block_csr", "ell", "matrix_free"}) {
    SCOPED_TRACE(kind);
    Stepper<double> stepper(model, kind, Exec::serial(), dt);
    stepper.scheme->set_state(previous, current, 0);
    std::vector<double> forces(n, 0.0);
    stepper.term->add_forces(*stepper.scheme, View<double>(forces.data(), static_cast<Index>(n)));
    // Sums of ~30 terms of K's size in another order (D scaled before, not after): 1e-13 of the largest.
    for (std::size_t i = 0; i < n; ++i) EXPECT_NEAR(forces[i], expected[i], 1e-13 * norm) << "DOF " << i;
  }
}

}  // namespace
}  // namespace tremor
