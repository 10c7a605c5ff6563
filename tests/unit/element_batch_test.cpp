// sparse/element_batch.hpp: the element matrices of a whole block computed by one kernel launch
// equal the host fem functions (fem/element_matrices.hpp) element by element, for every element
// family, on Serial and OpenMP; the upper-triangle storage is the full matrix's upper triangle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "assembly_test_helpers.hpp"
#include "sparse_test_models.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/sparse/element_batch.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using sparse::ElementMatrix;
using sparse::MatrixStorage;

// The matrices of every element of block 0, element-major, computed on the host by the fem
// functions one element at a time (full storage; the lumped mass as its DOF diagonal), each
// stiffness times the element's factor as the table gives it.
std::vector<double> host_matrices(const Model& model, const fem::SectionTable& table, ElementMatrix matrix) {
  const Mesh& mesh = model.mesh;
  const ElementBlock& block = mesh.blocks[0];
  std::vector<double> out;
  fem::with_element(block.type, block.order, [&](auto element) {
    using E = decltype(element);
    constexpr int dim = E::dim, n = E::n_nodes, n_dof = n * dim;
    std::vector<double> x(n_dof), K(static_cast<std::size_t>(n_dof * n_dof)), M(static_cast<std::size_t>(n * n)), m(n);
    for (Index e = 0; e < block.n_elements(); ++e) {
      const auto nodes = block.nodes(e);
      for (int a = 0; a < n; ++a)
        for (int c = 0; c < dim; ++c)
          x[static_cast<std::size_t>(a * dim + c)] =
              mesh.node(nodes[static_cast<std::size_t>(a)])[static_cast<std::size_t>(c)];
      const auto s = static_cast<std::size_t>(table.element_section[static_cast<std::size_t>(e)]);
      const double rho_t = table.density[s] * table.thickness[s];
      switch (matrix) {
        case ElementMatrix::Stiffness: {
          fem::element_stiffness<E>(x.data(), table.D[s].data(), table.thickness[s], K.data());
          const double f = table.stiffness_factor(static_cast<std::size_t>(e));
          for (double v : K) out.push_back(f * v);
          break;
        }
        case ElementMatrix::ConsistentMass:
          fem::consistent_mass<E>(x.data(), rho_t, fem::mass_rule<E>(), M.data());
          fem::consistent_mass_dofs<E>(M.data(), K.data());
          out.insert(out.end(), K.begin(), K.end());
          break;
        case ElementMatrix::LumpedMass:
          fem::lumped_mass<E>(x.data(), rho_t, m.data());
          for (int a = 0; a < n; ++a)
            for (int c = 0; c < dim; ++c) out.push_back(m[static_cast<std::size_t>(a)]);
          break;
      }
    }
  });
  return out;
}

// The upper triangles (row by row) of consecutive n_dof x n_dof matrices.
std::vector<double> upper_of(const std::vector<double>& full, int n_dof) {
  std::vector<double> out;
  const auto per = static_cast<std::size_t>(n_dof * n_dof);
  for (std::size_t begin = 0; begin < full.size(); begin += per)
    for (int r = 0; r < n_dof; ++r)
      for (int c = r; c < n_dof; ++c) out.push_back(full[begin + static_cast<std::size_t>(r * n_dof + c)]);
  return out;
}

class ElementBatchTest : public ::testing::TestWithParam<test::ModelCase> {};

// 1e-12: the batch runs the host's own functions on the host, so any difference is rounding in
// a different evaluation order at most, far below 1e-12 of the element's largest entry.
TEST_P(ElementBatchTest, EqualsHostFemFunctions) {
  const auto& param = GetParam();
  const Model model = test::two_section_model(param.type, param.order, test::cells_for(param.type), 0.3);
  const fem::SectionTable table = fem::section_table(model);
  const fem::ElementColouring colouring = fem::colour_elements(model.mesh);
  const int n_dof = model.mesh.blocks[0].n_element_nodes() * model.mesh.dim();
  for (const Exec& exec : {Exec::serial(), Exec::openmp()}) {
    const fem::DeviceElements elements(exec, model.mesh, table, colouring);
    for (ElementMatrix matrix : {ElementMatrix::Stiffness, ElementMatrix::ConsistentMass, ElementMatrix::LumpedMass}) {
      const std::string what =
          param.label + " " + exec.describe() + " matrix " + std::to_string(static_cast<int>(matrix));
      const std::vector<double> reference = host_matrices(model, table, matrix);
      const std::vector<double> full = test::poisoned_batch(exec, elements, matrix, MatrixStorage::Full);
      const Size per = sparse::values_per_element(matrix, MatrixStorage::Full, n_dof);
      EXPECT_EQ(test::compare_elementwise(full, reference, per, 1e-12), "") << what;
      if (matrix == ElementMatrix::LumpedMass) continue;
      // The upper triangle is stored from the same element matrix: the same bits.
      const std::vector<double> upper = test::poisoned_batch(exec, elements, matrix, MatrixStorage::Upper);
      EXPECT_EQ(test::compare_elementwise(upper, upper_of(full, n_dof), Size(n_dof) * (n_dof + 1) / 2, 0.0), "")
          << what << " upper";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Elements, ElementBatchTest, ::testing::ValuesIn(test::operator_cases()),
                         [](const ::testing::TestParamInfo<test::ModelCase>& p) { return p.param.label; });

// Each element's absorbing-layer factor scales its stiffness (and only the stiffness).
TEST(ElementBatch, StiffnessCarriesTheAbsorbingFactor) {
  const Model model = test::two_section_model(ElementType::Hex8, 1, 3, 0.3);
  fem::SectionTable table = fem::section_table(model);
  table.element_stiffness_factor.resize(static_cast<std::size_t>(model.mesh.n_elements()));
  for (std::size_t e = 0; e < table.element_stiffness_factor.size(); ++e)
    table.element_stiffness_factor[e] = 1.0 + 0.25 * static_cast<double>(e % 4);
  const fem::DeviceElements elements(Exec::openmp(), model.mesh, table, fem::colour_elements(model.mesh));
  const std::vector<double> reference = host_matrices(model, table, ElementMatrix::Stiffness);
  for (MatrixStorage storage : {MatrixStorage::Full, MatrixStorage::Upper}) {
    const std::vector<double> result =
        test::poisoned_batch(Exec::openmp(), elements, ElementMatrix::Stiffness, storage);
    const std::vector<double> expected = storage == MatrixStorage::Full ? reference : upper_of(reference, 24);
    EXPECT_EQ(test::compare_elementwise(result, expected, storage == MatrixStorage::Full ? 576 : 300, 1e-12), "");
  }
  // Without the factor the first element with factor != 1 differs: the check above can fail.
  fem::SectionTable plain = fem::section_table(model);
  EXPECT_NE(test::compare_elementwise(
                test::poisoned_batch(Exec::openmp(), elements, ElementMatrix::Stiffness, MatrixStorage::Full),
                host_matrices(model, plain, ElementMatrix::Stiffness), 576, 1e-12),
            "");
}

// Matrices built in the workspace (hex20: 3600 doubles, over the 1024 kept in a thread's memory)
// come out the same when a launch is cut into chunks of one, two or several elements.
TEST(ElementBatch, WorkspaceChunksGiveTheSameMatrices) {
  const Model model = test::two_section_model(ElementType::Hex20, 1, 3, 0.3);
  const fem::SectionTable table = fem::section_table(model);
  const fem::DeviceElements elements(Exec::openmp(), model.mesh, table, fem::colour_elements(model.mesh));
  const std::vector<double> reference = upper_of(host_matrices(model, table, ElementMatrix::Stiffness), 60);
  for (std::size_t elements_per_chunk : {1, 3, 64}) {
    const Exec exec = Exec::openmp().with_workspace_budget(elements_per_chunk * 3600 * sizeof(double));
    EXPECT_EQ(test::compare_elementwise(
                  test::poisoned_batch(exec, elements, ElementMatrix::Stiffness, MatrixStorage::Upper),
                  reference, 60 * 61 / 2, 1e-12),
              "")
        << elements_per_chunk << " elements per chunk";
  }
}

// The comparison catches one wrong value and an unwritten (NaN) one.
TEST(ElementBatch, ComparisonDetectsAPerturbedValue) {
  const Model model = test::two_section_model(ElementType::Tet4, 1, 2, 0.3);
  const fem::SectionTable table = fem::section_table(model);
  const std::vector<double> reference = host_matrices(model, table, ElementMatrix::Stiffness);
  ASSERT_EQ(test::compare_elementwise(reference, reference, 144, 1e-12), "");
  std::vector<double> perturbed = reference;
  perturbed[150] *= 1.0 + 1e-9;
  EXPECT_NE(test::compare_elementwise(perturbed, reference, 144, 1e-12), "");
  perturbed = reference;
  perturbed[7] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(test::compare_elementwise(perturbed, reference, 144, 1e-12), "");
}

TEST(ElementBatch, ValuesPerElement) {
  EXPECT_EQ(sparse::values_per_element(ElementMatrix::Stiffness, MatrixStorage::Full, 24), 576);
  EXPECT_EQ(sparse::values_per_element(ElementMatrix::Stiffness, MatrixStorage::Upper, 24), 300);  // the paper's 300
  EXPECT_EQ(sparse::values_per_element(ElementMatrix::LumpedMass, MatrixStorage::Upper, 24), 24);
  const Model model = test::two_section_model(ElementType::Quad4, 1, 2, 0.0);
  const fem::DeviceElements elements(Exec::serial(), model.mesh, fem::section_table(model),
                                        fem::colour_elements(model.mesh));
  EXPECT_THROW(sparse::element_matrices(Exec::serial(), elements, 1, ElementMatrix::Stiffness, MatrixStorage::Full),
               Error);
}

}  // namespace
}  // namespace tremor
