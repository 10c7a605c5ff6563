// Set-up on the operator's Exec (explicit/operator.hpp, make_stiffness_operator from device
// elements): K, the lumped mass and damping assembled by the two-kernel assembly on the Exec and K
// converted there to each format must equal the host assembly (the reference) bit for bit on the
// host backends, colour by colour; on a GPU to rounding. The pre-flight's memory estimate must
// track what the set-up and the time loop hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "sparse_test_models.hpp"
#include "tremor/backend/memory.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/fem/geometry.hpp"
#include "tremor/fem/time_step.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/sparse/element_survey.hpp"
#include "tremor/sparse/two_kernel.hpp"
#include "support/support.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::make_stiffness_operator;
using op::Operator;
using test::max_abs;
using test::max_difference;
using test::same_bits;

template <class Real>
std::vector<Real> apply_on(const Exec& exec, const op::Operator<Real>& op, const std::vector<double>& u) {
  std::vector<Real> host(u.begin(), u.end());
  DeviceArray<Real> in(exec, std::span<const Real>(host));
  std::vector<Real> poison(u.size(), static_cast<Real>(std::nan("")));  // every entry must be written
  DeviceArray<Real> out(exec, std::span<const Real>(poison));
  op.apply(in.view(), out.view());
  exec.synchronize();
  return out.to_host();
}

template <class Body>
void expect_error_containing(Body body, const std::string& text) {
  try {
    body();
    ADD_FAILURE() << "no error; expected one containing '" << text << "'";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(text), std::string::npos) << error.what();
  }
}

Model damped_model(ElementType type, int order) {
  Model model = test::two_section_model(type, order, test::cells_for(type), 0.15);
  for (Material& material : model.materials) material.damping_alpha = 1.5e3;
  return model;
}

std::shared_ptr<const fem::DeviceElements> elements_on(const Exec& exec, const Model& model, bool coloured) {
  return std::make_shared<const fem::DeviceElements>(
      exec, model.mesh, fem::section_table(model),
      coloured ? fem::colour_elements(model.mesh) : fem::ElementColouring{});
}

const char* const device_kinds[] = {"assembled", "block_csr", "ell", "sell", "jds", "block_ell", "matrix_free"};

class SetupFamilies : public ::testing::TestWithParam<test::ModelCase> {};

// On the host (Serial and OpenMP), colour by colour: the device path's K is the host assembly's,
// so every assembled operator applies to the same bits as the one built from the host K, in both
// precisions; matrix_free (no K) to rounding.
TEST_P(SetupFamilies, DevicePathEqualsHostAssemblyBitForBit) {
  const auto& c = GetParam();
  const Model model = damped_model(c.type, c.order);
  const auto u = test::test_vector(model.mesh.n_nodes() * model.mesh.dim(), 5);
  for (const Exec& exec : {Exec::serial(), Exec::openmp()}) {
    SCOPED_TRACE(exec.describe());
    const auto elements = elements_on(exec, model, true);
    for (const char* kind : device_kinds) {
      SCOPED_TRACE(kind);
      op::OperatorSetup setup;
      const auto device = make_stiffness_operator<double>(model, kind, elements, sparse::RaceStrategy::Colouring, &setup);
      const auto host = make_stiffness_operator<double>(model, kind, exec);
      EXPECT_EQ(device->name(), kind);
      const auto device_f = make_stiffness_operator<float>(model, kind, elements, sparse::RaceStrategy::Colouring);
      const auto host_f = make_stiffness_operator<float>(model, kind, exec);
      if (std::string(kind) != "matrix_free") {
        EXPECT_EQ(device->bytes(), host->bytes());
        EXPECT_TRUE(same_bits(apply_on(exec, *device, u), apply_on(exec, *host, u)));
        EXPECT_TRUE(same_bits(apply_on(exec, *device_f, u), apply_on(exec, *host_f, u)));
        EXPECT_GT(setup.assembly_bytes, 0u);
      } else {
        // A run's matrix_free on the host is the tiles colour by colour (K_e u_e in Real by edge
        // differences), the model's the reference (in double from every shape function): equal to
        // rounding, double 1e-12 and float 1e-5 of max |K u| as MatrixFreeFamilies.
        const auto expected = apply_on(exec, *host, u);
        const double scale = max_abs(expected);
        EXPECT_LE(max_difference(apply_on(exec, *device, u), expected), 1e-12 * scale);
        EXPECT_LE(max_difference(apply_on(exec, *device_f, u), expected), 1e-5 * scale);
      }
    }
    // The lumped mass and damping, as the host assembles them.
    EXPECT_TRUE(same_bits(sparse::assemble_lumped_mass<double>(exec, *elements, sparse::RaceStrategy::Colouring).to_host(),
                          sparse::assemble_lumped_mass(model)));
    const auto damping =
        sparse::assemble_lumped_damping<double>(exec, *elements, sparse::RaceStrategy::Colouring).to_host();
    EXPECT_TRUE(same_bits(damping, sparse::assemble_lumped_damping(model)));
    EXPECT_GT(max_abs(damping), 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Families, SetupFamilies, ::testing::ValuesIn(test::operator_cases()),
                         [](const auto& param_info) { return param_info.param.label; });

// Elements built without a colouring serve atomics only: assembling colour by colour, or the
// matrix-free operator, is refused with a message saying why.
TEST(OperatorSetup, ColouringNeededIsAClearError) {
  const Model model = damped_model(ElementType::Hex8, 1);
  const auto elements = elements_on(Exec::serial(), model, false);
  expect_error_containing(
      [&] { (void)make_stiffness_operator<double>(model, "block_csr", elements, sparse::RaceStrategy::Colouring); },
      "without a colouring");
  // matrix_free sums colour by colour only where asked to be deterministic; with atomics it tiles.
  expect_error_containing(
      [&] { (void)make_stiffness_operator<double>(model, "matrix_free", elements, sparse::RaceStrategy::Colouring); },
      "without a colouring");
  const auto tiled = make_stiffness_operator<double>(model, "matrix_free", elements, sparse::RaceStrategy::Atomics);
  EXPECT_NE(tiled->details().find("tiles of"), std::string::npos) << tiled->details();
}

// Atomics on the host: the same K up to the order of the sums (OpenMP threads race), so to
// rounding: 1e-12 of |K u| is ~5000 ulp, far above the reordering of <= 8 terms per entry.
TEST(OperatorSetup, AtomicsAgreeWithColouring) {
  const Model model = damped_model(ElementType::Hex8, 1);
  const auto u = test::test_vector(model.mesh.n_nodes() * model.mesh.dim(), 7);
  const Exec exec = Exec::openmp();
  const auto reference = apply_on(exec, *make_stiffness_operator<double>(model, "block_ell", exec), u);
  const auto atomics = make_stiffness_operator<double>(model, "block_ell", elements_on(exec, model, false),
                                                       sparse::RaceStrategy::Atomics);
  EXPECT_LE(max_difference(apply_on(exec, *atomics, u), reference), 1e-12 * max_abs(reference));
}

// The pre-flight's estimate against the arrays a run held at most (the run's Exec's
// memory account), for every kind the host runs and both precisions: within 15% (what is not modelled: the
// loads', receivers' and snapshot arrays, a few node-sized vectors on this small plate).
TEST(OperatorSetup, MemoryEstimateTracksTheRun) {
  Model model = test::two_section_model(ElementType::Hex8, 1, 1, 0.0, false);
  model.mesh = generate_box({0.0, 0.0, 0.0}, {0.02, 0.02, 0.002}, {40, 40, 4}, ElementType::Hex8);
  model.mesh.element_sets["all"] = std::vector<Index>(static_cast<std::size_t>(model.mesh.n_elements()));
  for (Index e = 0; e < model.mesh.n_elements(); ++e) model.mesh.element_sets["all"][static_cast<std::size_t>(e)] = e;
  ExplicitSettings settings;
  settings.duration = 1e-8;
  model.explicit_settings = settings;
  for (const char* kind : device_kinds) {
    for (const char* precision : {"double", "float"}) {
      SCOPED_TRACE(std::string(kind) + " " + precision);
      explicit_fe::RunOptions options;
      options.operator_kind = kind;
      options.precision = precision;
      options.backend = "openmp";
      const explicit_fe::Preflight p = explicit_fe::preflight(model, options);
      const explicit_fe::ExplicitRun run = explicit_fe::run_explicit(model, options);
      ASSERT_TRUE(run.ok()) << run.message;
      ASSERT_GT(run.exec_peak_bytes, 0u);
      const double ratio = static_cast<double>(p.memory_bytes) / static_cast<double>(run.exec_peak_bytes);
      EXPECT_GT(ratio, 0.85) << p.memory_bytes << " estimated, " << run.exec_peak_bytes << " used";
      EXPECT_LT(ratio, 1.15) << p.memory_bytes << " estimated, " << run.exec_peak_bytes << " used";
      EXPECT_FALSE(run.setup.empty());
    }
  }
}

// On a GPU: atomics (the default there) and colouring both agree with the host assembly to
// rounding (nvcc contracts products into FMAs; atomics reorder the sums): 1e-12 of |K u|.
TEST(OperatorSetupGpu, DevicePathAgreesWithHostAssembly) {
  TREMOR_REQUIRE_GPU();
  const Exec gpu = Exec::cuda();
  for (const auto& c : test::operator_cases()) {
    SCOPED_TRACE(c.label);
    const Model model = damped_model(c.type, c.order);
    const auto u = test::test_vector(model.mesh.n_nodes() * model.mesh.dim(), 9);
    const auto reference = apply_on(Exec::serial(), *make_stiffness_operator<double>(model, "assembled"), u);
    const double scale = max_abs(reference);
    for (const bool coloured : {false, true}) {
      const auto elements = elements_on(gpu, model, coloured);
      const auto strategy = coloured ? sparse::RaceStrategy::Colouring : sparse::RaceStrategy::Atomics;
      for (const char* kind : {"assembled", "block_csr", "ell", "sell", "jds", "block_ell", "cusparse"}) {
        SCOPED_TRACE(kind);
        const auto op = make_stiffness_operator<double>(model, kind, elements, strategy);
        EXPECT_LE(max_difference(apply_on(gpu, *op, u), reference), 1e-12 * scale);
        // float: K rounded once to float, sums in float: ~1e-6 relative.
        const auto op_f = make_stiffness_operator<float>(model, kind, elements, strategy);
        EXPECT_LE(max_difference(apply_on(gpu, *op_f, u), reference), 2e-5 * scale);
      }
      const auto mass = sparse::assemble_lumped_mass<double>(gpu, *elements, strategy).to_host();
      const auto host_mass = sparse::assemble_lumped_mass(model);
      EXPECT_LE(max_difference(mass, host_mass), 1e-13 * max_abs(host_mass));
    }
  }
}

// The element survey on an Exec gives the host functions' stable step (the same bits: a run's time
// step must not depend on its backend; the survey's kernel is compiled without FMA contraction),
// the element setting it, and the longest element.
void expect_survey_equals_host(const Exec& exec) {
  for (const auto& c : test::operator_cases()) {
    SCOPED_TRACE(c.label);
    const Model model = damped_model(c.type, c.order);
    const fem::SectionTable table = fem::section_table(model, false);
    const fem::DeviceElements elements(exec, model.mesh, table, fem::ElementColouring{});
    const sparse::ElementSurvey survey = sparse::survey_elements(exec, elements, model, table);
    const fem::TimeStepEstimate host = fem::stable_time_step(model);
    EXPECT_EQ(std::memcmp(&survey.stable_dt, &host.dt, sizeof(double)), 0) << survey.stable_dt << " vs " << host.dt;
    EXPECT_EQ(survey.stable_element, host.element);
    double longest = 0.0;
    for (const fem::ElementSize& size : fem::element_sizes(model.mesh)) longest = std::max(longest, size.max_length);
    EXPECT_EQ(survey.largest_element, longest);
  }
}

TEST(ElementSurvey, EqualsTheHostFunctions) {
  expect_survey_equals_host(Exec::serial());
  expect_survey_equals_host(Exec::openmp());
}

// An inverted element is named by the host check's message (label, where det J is negative).
TEST(ElementSurvey, InvertedElementIsNamed) {
  Model model = damped_model(ElementType::Hex8, 1);
  Mesh& mesh = model.mesh;
  auto& connectivity = mesh.blocks[0].connectivity;
  std::swap(connectivity[0], connectivity[4]);  // element 0 turned inside out along z
  std::swap(connectivity[1], connectivity[5]);
  std::swap(connectivity[2], connectivity[6]);
  std::swap(connectivity[3], connectivity[7]);
  const fem::SectionTable table = fem::section_table(model, false);
  const fem::DeviceElements elements(Exec::openmp(), mesh, table, fem::ElementColouring{});
  expect_error_containing([&] { (void)sparse::survey_elements(Exec::openmp(), elements, model, table); },
                          "is inverted");
}

TEST(ElementSurveyGpu, EqualsTheHostBitForBit) {
  TREMOR_REQUIRE_GPU();
  expect_survey_equals_host(Exec::cuda());
}

}  // namespace
}  // namespace tremor
