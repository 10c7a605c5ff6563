// A run decomposed into subdomains (RunOptions::domains: METIS parts stepped together in one
// process, their shared nodes' internal forces summed after every apply) against the same run on
// one domain: every history equal to rounding, for point sources, surface tractions, body forces,
// prescribed displacements, held nodes, absorbing layers, receivers at nodes and at positions,
// 2D and 3D, assembled and element-by-element operators, 2, 3 and 4 subdomains.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/explicit/subdomain.hpp"
#include "tremor/mesh/generate.hpp"
#include "support/runs.hpp"
#include "support/support.hpp"
#include "tremor/partition/domain_file.hpp"
#include "tremor/partition/domains.hpp"
#include "unit/explicit_test_models.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using explicit_fe::ExplicitRun;
using explicit_fe::History;
using explicit_fe::RunOptions;

// The snapshots a run passes on.
struct Snapshots final : explicit_fe::Observer {
  std::vector<long long> steps;
  std::vector<std::vector<double>> displacement, velocity;
  void on_snapshot(const explicit_fe::Snapshot& snapshot) override {
    steps.push_back(snapshot.step);
    displacement.emplace_back(snapshot.displacement.begin(), snapshot.displacement.end());
    velocity.emplace_back(snapshot.velocity.begin(), snapshot.velocity.end());
  }
};

ExplicitRun run(const Model& model, RunOptions options, int domains, Snapshots* snapshots = nullptr) {
  options.domains = domains;
  ExplicitRun result = explicit_fe::run_explicit(model, options, snapshots);
  EXPECT_TRUE(result.ok()) << result.message;
  return result;
}

// Snapshots of the same steps and nodes, values to `tolerance` of the largest.
void expect_same_snapshots(const Snapshots& want, const Snapshots& got, double tolerance) {
  ASSERT_EQ(got.steps, want.steps);
  ASSERT_GT(want.steps.size(), 2u);
  for (const auto field : {&Snapshots::displacement, &Snapshots::velocity}) {
    double largest = 0.0, worst = 0.0;
    for (std::size_t k = 0; k < want.steps.size(); ++k) {
      const std::vector<double>& a = (want.*field)[k];
      const std::vector<double>& b = (got.*field)[k];
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        largest = std::max(largest, std::abs(a[i]));
        worst = std::max(worst, std::abs(a[i] - b[i]));
      }
    }
    EXPECT_LE(worst, tolerance * largest) << "largest " << largest;
  }
}

struct DecomposedCase {
  std::string name;
  Model (*model)();
  std::string operator_kind, backend;
};

void PrintTo(const DecomposedCase& c, std::ostream* os) { *os << c.name; }

class Decomposed : public ::testing::TestWithParam<DecomposedCase> {};

TEST_P(Decomposed, EqualsTheSingleDomainRun) {
  const DecomposedCase& c = GetParam();
  const Model model = c.model();
  RunOptions options;
  options.backend = c.backend;
  options.precision = "double";
  options.operator_kind = c.operator_kind;
  Snapshots single_snapshots;
  const ExplicitRun single = run(model, options, 1, &single_snapshots);
  // With overlap, each subdomain's operator is built in two parts (elements or rows), except
  // block_csr's (K itself), and not with stiffness-proportional damping (nothing to overlap).
  const bool damped = std::any_of(model.materials.begin(), model.materials.end(),
                                  [](const Material& m) { return m.damping_beta > 0.0; });
  // Nor with a PML where the operator splits by rows (assembled: its forces would be overwritten).
  const bool pml = std::any_of(model.absorbing.begin(), model.absorbing.end(),
                               [](const AbsorbingLayer& l) { return l.kind == AbsorbingKind::Pml; });
  const bool splits = c.operator_kind != "block_csr" && !damped && !(pml && c.operator_kind == "assembled");
  for (const int domains : {2, 3, 4})
    for (const bool overlap : {true, false}) {
      if (!overlap && !splits) continue;
      SCOPED_TRACE(str(domains, overlap ? " subdomains, overlap" : " subdomains"));
      options.overlap = overlap;
      Snapshots snapshots;
      const ExplicitRun decomposed = run(model, options, domains, &snapshots);
      const bool split = std::any_of(decomposed.setup.begin(), decomposed.setup.end(), [](const explicit_fe::SetupPhase& p) {
      return p.name.find("in two parts") != std::string::npos;
    });
      // (A subdomain whose elements all touch a shared node is not split: the GLL bar's 16
      // elements in 3 or 4 subdomains.)
      if (!(splits && overlap)) {
        EXPECT_FALSE(split);
      } else if (domains == 2) {
        EXPECT_TRUE(split);
      }
      EXPECT_EQ(decomposed.steps, single.steps);
      // The same element sums, the shared nodes' forces and masses added in another order: rounding
      // of ~1e-16 per step, grown by the steps (a few hundred) and the cancellation in waves that
      // have not yet arrived at a receiver: 1e-12 of the largest value, the target for every history.
      test::expect_histories_close(single.histories, decomposed.histories, 1e-12);
      expect_same_snapshots(single_snapshots, snapshots, 1e-12);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Models, Decomposed,
    ::testing::Values(
        DecomposedCase{"quad4_prescribed_block_csr", test::prescribed_block, "block_csr", "serial"},
        DecomposedCase{"hex8_bar_matrix_free", [] { return test::loaded_bar(ElementType::Hex8, 1, 4); }, "matrix_free", "openmp"},
        DecomposedCase{"hex8_bar_assembled", [] { return test::loaded_bar(ElementType::Hex8, 1, 4); }, "assembled", "serial"},
        DecomposedCase{"quad4_prescribed_block_ell", test::prescribed_block, "block_ell", "openmp"},
        DecomposedCase{"hex8_bar_sell", [] { return test::loaded_bar(ElementType::Hex8, 1, 4); }, "sell", "serial"},
        DecomposedCase{"gll3_bar_sem", [] { return test::loaded_bar(ElementType::HexGLL, 3, 2); }, "sem", "openmp"},
        DecomposedCase{"gll3_attenuating_sem", [] { return test::attenuating_bar(); }, "sem", "openmp"},
        DecomposedCase{"hex20_attenuating_matrix_free", [] { return test::attenuating_bar(ElementType::Hex20, 2, 3); },
                       "matrix_free", "openmp"},
        DecomposedCase{"gll3_pml_sem", [] { return test::pml_bar(ElementType::HexGLL, 3, 2); }, "sem", "openmp"},
        DecomposedCase{"hex8_pml_matrix_free", [] { return test::pml_bar(ElementType::Hex8, 1, 4); }, "matrix_free",
                       "openmp"},
        DecomposedCase{"hex8_pml_assembled", [] { return test::pml_bar(ElementType::Hex8, 1, 4); }, "assembled",
                       "serial"},
        DecomposedCase{"hex8_beta_block_ell", [] { return test::damped_bar(false); }, "block_ell", "serial"},
        DecomposedCase{"hex8_betas_matrix_free", [] { return test::damped_bar(true); }, "matrix_free", "openmp"},
        DecomposedCase{"hex8_betas_assembled", [] { return test::damped_bar(true); }, "assembled", "serial"}),
    [](const ::testing::TestParamInfo<DecomposedCase>& param) { return param.param.name; });

TEST(DecomposedRun, RepeatsItselfBitForBitAndSharedCopiesAgree) {
  const Model model = test::loaded_bar(ElementType::Hex8, 1, 4);
  RunOptions options;
  options.backend = "openmp";
  options.precision = "double";
  const ExplicitRun first = run(model, options, 3), second = run(model, options, 3);
  ASSERT_EQ(first.histories.size(), second.histories.size());
  for (std::size_t h = 0; h < first.histories.size(); ++h) EXPECT_EQ(first.histories[h].values, second.histories[h].values);
}

TEST(DecomposedRun, TheExchangeSumsEachSharedNodeOverItsCopies) {
  // Four subdomains of a 4 x 4 quad mesh: the centre node is held by all four.
  const Mesh mesh = generate_rectangle({0.0, 0.0}, {1.0, 1.0}, {4, 4}, ElementType::Quad4);
  const partition::Decomposition decomposition = partition::decompose(mesh, 4);
  explicit_fe::InProcessExchange<double> exchange(Exec::serial(), decomposition, 2);
  // Subdomain s holds the value s + 1 (x) and 10 (s + 1) (y) at every node: after the sum each
  // copy of a node holds the sum over the subdomains holding it.
  std::vector<std::vector<double>> values;
  for (std::size_t s = 0; s < 4; ++s) {
    const auto n = decomposition.domains[s].nodes.size();
    values.emplace_back(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
      values[s][2 * i] = double(s + 1);
      values[s][2 * i + 1] = 10.0 * double(s + 1);
    }
  }
  std::vector<View<double>> views;
  for (auto& v : values) views.push_back({v.data(), static_cast<Index>(v.size()), MemorySpace::Host});
  exchange.sum_forces(views);
  std::vector<double> expected(static_cast<std::size_t>(mesh.n_nodes()), 0.0);
  for (std::size_t s = 0; s < 4; ++s)
    for (const Index node : decomposition.domains[s].nodes) expected[static_cast<std::size_t>(node)] += double(s + 1);
  Index shared = 0;
  for (std::size_t s = 0; s < 4; ++s) {
    const partition::Subdomain& d = decomposition.domains[s];
    for (std::size_t i = 0; i < d.nodes.size(); ++i) {
      const double want = i < static_cast<std::size_t>(d.n_owned) ? double(s + 1) : expected[static_cast<std::size_t>(d.nodes[i])];
      EXPECT_EQ(values[s][2 * i], want) << "subdomain " << s << " node " << d.nodes[i];
      EXPECT_EQ(values[s][2 * i + 1], 10.0 * want);
    }
    shared += d.n_shared();
  }
  EXPECT_EQ(exchange.n_shared_copies(), shared);
  EXPECT_GT(shared, 0);
  EXPECT_DOUBLE_EQ(expected[12], 10.0);  // the centre node (2, 2): all four subdomains
}

// The observer (the result file's writer) is given each sample once every subdomain has filled it:
// what it sees at that moment is the sample's final values, for a receiver whose nodes (a whole
// side) several subdomains share.
TEST(DecomposedRun, SamplesReachTheObserverComplete) {
  Model model = test::prescribed_block();
  Receiver side;
  side.name = "top side";
  side.nodes = model.mesh.node_sets.at("ymax");
  side.velocity = true;
  model.receivers.push_back(side);
  struct Seen final : explicit_fe::Observer {
    std::vector<std::vector<double>> samples;  // of "top side", as seen when passed on
    void on_sample(const History& history, std::size_t sample) override {
      if (history.name != "top side") return;
      EXPECT_EQ(sample + 1, history.n_samples());
      const auto size = history.sample_size();
      samples.emplace_back(history.values.begin() + static_cast<std::ptrdiff_t>(sample * size),
                           history.values.begin() + static_cast<std::ptrdiff_t>((sample + 1) * size));
    }
  } seen;
  RunOptions options;
  options.backend = "serial";
  options.domains = 3;
  options.check_every = 1000;  // many samples completed in one flush
  const ExplicitRun result = explicit_fe::run_explicit(model, options, &seen);
  ASSERT_TRUE(result.ok()) << result.message;
  const History& top = result.histories.back();
  ASSERT_EQ(top.name, "top side");
  ASSERT_EQ(seen.samples.size(), top.n_samples());
  ASSERT_GT(top.n_samples(), 10u);
  for (std::size_t s = 0; s < top.n_samples(); ++s)
    EXPECT_TRUE(std::equal(seen.samples[s].begin(), seen.samples[s].end(),
                           top.values.begin() + static_cast<std::ptrdiff_t>(s * top.sample_size())))
        << "sample " << s;
}

TEST(DecomposedRun, MoreSubdomainsThanElementsIsAClearError) {
  const Model model = test::loaded_block(1e-7, 2e6, 2);
  RunOptions options;
  options.backend = "serial";
  options.domains = 145;  // 144 elements
  try {
    (void)explicit_fe::run_explicit(model, options);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("145 subdomains were asked for a mesh of 144 elements"), std::string::npos)
        << error.what();
  }
}

// A decomposition file (tremor partition --domains) of strips along the bar, not METIS's: the run
// takes its subdomains, names it in its set-up, and equals one domain as METIS's do. A run asking
// for another number of subdomains is refused before it starts.
TEST(DecomposedRun, TakesItsSubdomainsFromADecompositionFile) {
  const Model model = test::loaded_bar(ElementType::Hex8, 1, 4);
  std::vector<int> strips;
  for (Index e = 0; e < model.mesh.n_elements(); ++e) {
    const ElementRef ref = model.mesh.locate(e);
    const Index first = model.mesh.blocks[static_cast<std::size_t>(ref.block)].nodes(ref.element)[0];
    strips.push_back(std::min(2, static_cast<int>(3.0 * model.mesh.node(first)[0] / 4e-3)));  // the bar is 4 mm long
  }
  ASSERT_EQ(std::set<int>(strips.begin(), strips.end()).size(), 3u);
  const std::filesystem::path path = std::filesystem::path(test::temporary_directory("decomposition_file")) / "bar.domains";
  std::ofstream(path) << partition::encode_domain_file(model.mesh, partition::decomposition_of(model.mesh, strips, 3));
  RunOptions options;
  options.backend = "serial";
  options.precision = "double";
  const ExplicitRun single = run(model, options, 1);
  options.decomposition = path.string();
  const ExplicitRun from_file = run(model, options, 1);
  EXPECT_TRUE(std::any_of(from_file.setup.begin(), from_file.setup.end(), [&](const explicit_fe::SetupPhase& p) {
    return p.name == str("decomposition into 3 subdomains (", path.string(), ")");
  }));
  test::expect_histories_close(single.histories, from_file.histories, 1e-12);  // as METIS's subdomains (above)
  options.domains = 2;
  try {
    (void)explicit_fe::run_explicit(model, options);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("a decomposition into 3 subdomains, and --domains 2"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace tremor
