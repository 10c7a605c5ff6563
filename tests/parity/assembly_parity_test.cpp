// Two-kernel assembly (sparse/two_kernel.hpp) and batched element matrices
// (sparse/element_batch.hpp) on every backend against Serial, on meshes of hundreds to thousands
// of elements (many warps, several colours per block, workspace chunks): kernel 1's pattern, K
// and M in every format with both race strategies and both precisions, the lumped mass.
//
// Tolerances, per entry relative to sqrt(|A_ii A_jj|) (unit/assembly_test_helpers.hpp):
//   OpenMP, colouring: 0. The same kernels on the host, each entry summed in colour order.
//   double 1e-12: the GPU contracts multiply-adds into FMAs, so each element matrix differs from
//                 the host's in the last bits of its terms (about 1e-15 of the element's scale),
//                 and atomics sum in another order (rounding_bound(m, 2^-53) <= 1.3e-13 here).
//   float  rounding_bound(m, 2^-24): each contribution rounded to float and summed in any order.
// Element batches: 1e-12 of each element's largest entry, for the FMA differences above.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/sparse/element_batch.hpp"
#include "tremor/sparse/two_kernel.hpp"
#include "unit/assembly_test_helpers.hpp"
#include "unit/sparse_test_models.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using sparse::GlobalMatrix;
using sparse::RaceStrategy;
using test::compare;
using test::on_host;
using test::rounding_bound;

struct Case {
  ElementType type;
  int order;
  Size cells;
  const char* label;
  double distortion = 0.3;  // of the cell size; less at order 4, whose GLL nodes are closer
};

// 512 hex8, 1296 tet4, 384 tet10, 900 quad4, 800 tri6 elements; hex20 and hex-gll2 (64 each)
// build their matrices in the workspace; hex-gll4 (8 elements of 125 nodes) is the multi-GPU
// spectral-element paper's assembled path (its K by colouring on the GPU).
const Case cases[] = {{ElementType::Hex8, 1, 8, "hex8"},   {ElementType::Tet4, 1, 6, "tet4"},
                      {ElementType::Tet10, 1, 4, "tet10"}, {ElementType::Quad4, 1, 30, "quad4"},
                      {ElementType::Tri6, 1, 20, "tri6"},  {ElementType::Hex20, 1, 4, "hex20"},
                      {ElementType::HexGLL, 2, 4, "hex_gll2"}, {ElementType::HexGLL, 4, 2, "hex_gll4", 0.1}};

const char* name(RaceStrategy strategy) { return strategy == RaceStrategy::Colouring ? "colouring" : "atomics"; }

// Every assembly on exec against the Serial colouring result.
void check_backend(const Exec& exec) {
  const bool host = exec.space() == MemorySpace::Host;
  for (const Case& c : cases) {
    const Model model = test::two_section_model(c.type, c.order, c.cells, c.distortion);
    const fem::SectionTable table = fem::section_table(model);
    const fem::ElementColouring colouring = fem::colour_elements(model.mesh);
    const Index m = test::max_elements_per_node(model.mesh);
    const fem::DeviceElements serial(Exec::serial(), model.mesh, table, colouring);
    const fem::DeviceElements elements(exec, model.mesh, table, colouring);

    EXPECT_EQ(test::check_pattern(exec, model.mesh), "") << c.label;

    for (GlobalMatrix matrix : {GlobalMatrix::Stiffness, GlobalMatrix::ConsistentMass}) {
      const std::string what = std::string(c.label) + (matrix == GlobalMatrix::Stiffness ? " K " : " M ");
      const test::CsrMatrix reference =
          on_host(sparse::assemble_csr<double>(Exec::serial(), serial, matrix, RaceStrategy::Colouring));
      const test::CsrMatrix reference_float =
          on_host(sparse::assemble_csr<float>(Exec::serial(), serial, matrix, RaceStrategy::Colouring));
      for (RaceStrategy strategy : {RaceStrategy::Colouring, RaceStrategy::Atomics}) {
        const bool exact = host && strategy == RaceStrategy::Colouring;
        const double tolerance = exact ? 0.0 : 1e-12;
        const std::string where = what + name(strategy);
        EXPECT_EQ(compare(on_host(sparse::assemble_csr<double>(exec, elements, matrix, strategy)), reference, tolerance),
                  "")
            << where << " CSR";
        EXPECT_EQ(compare(on_host(sparse::assemble_coo<double>(exec, elements, matrix, strategy)), reference, tolerance),
                  "")
            << where << " COO";
        EXPECT_EQ(compare(on_host(sparse::assemble_ell<double>(exec, elements, matrix, strategy)), reference, tolerance),
                  "")
            << where << " ELL";
        EXPECT_EQ(compare(on_host(sparse::assemble_block_csr<double>(exec, elements, matrix, strategy)), reference,
                          tolerance),
                  "")
            << where << " block CSR";
        // float against float: two evaluations differ by at most rounding_bound(m, 2^-24).
        EXPECT_EQ(compare(on_host(sparse::assemble_csr<float>(exec, elements, matrix, strategy)), reference_float,
                          exact ? 0.0 : rounding_bound(m, test::u_float)),
                  "")
            << where << " float CSR";
        EXPECT_EQ(compare(on_host(sparse::assemble_block_csr<float>(exec, elements, matrix, strategy)),
                          reference_float, exact ? 0.0 : rounding_bound(m, test::u_float)),
                  "")
            << where << " float block CSR";
      }
      // Colouring is deterministic on every backend: another run, into another format, gives the
      // same bits.
      EXPECT_EQ(compare(on_host(sparse::assemble_ell<double>(exec, elements, matrix, RaceStrategy::Colouring)),
                        on_host(sparse::assemble_csr<double>(exec, elements, matrix, RaceStrategy::Colouring)), 0.0),
                "")
          << what << "colouring, run to run";
    }

    const std::vector<double> lumped =
        sparse::assemble_lumped_mass<double>(Exec::serial(), serial, RaceStrategy::Colouring).to_host();
    for (RaceStrategy strategy : {RaceStrategy::Colouring, RaceStrategy::Atomics})
      EXPECT_EQ(compare(sparse::assemble_lumped_mass<double>(exec, elements, strategy).to_host(), lumped,
                        host && strategy == RaceStrategy::Colouring ? 0.0 : 1e-12),
                "")
          << c.label << " lumped " << name(strategy);
    // A node's components: summed once and copied, bit-equal whatever order atomics add in (the
    // integrator keeps one coefficient per node only where they are; per DOF, two more arrays).
    for (RaceStrategy strategy : {RaceStrategy::Colouring, RaceStrategy::Atomics}) {
      const std::vector<double> mass = sparse::assemble_lumped_mass<double>(exec, elements, strategy).to_host();
      const auto dim = static_cast<std::size_t>(model.mesh.dim());
      std::size_t unequal = 0;
      for (std::size_t i = 0; i + dim <= mass.size(); i += dim)
        for (std::size_t k = 1; k < dim; ++k) unequal += mass[i + k] != mass[i] ? 1 : 0;
      EXPECT_EQ(unequal, 0u) << c.label << " lumped " << name(strategy) << ": components of a node that differ";
    }

    const int n_dof = model.mesh.blocks[0].n_element_nodes() * model.mesh.dim();
    for (auto matrix : {sparse::ElementMatrix::Stiffness, sparse::ElementMatrix::ConsistentMass,
                        sparse::ElementMatrix::LumpedMass})
      for (auto storage : {sparse::MatrixStorage::Full, sparse::MatrixStorage::Upper})
        EXPECT_EQ(test::compare_elementwise(test::poisoned_batch(exec, elements, matrix, storage),
                                            test::poisoned_batch(Exec::serial(), serial, matrix, storage),
                                            sparse::values_per_element(matrix, storage, n_dof), host ? 0.0 : 1e-12),
                  "")
            << c.label << " element batch " << static_cast<int>(matrix) << " " << static_cast<int>(storage);
  }
}

// hex20 launches cut into chunks of 7 elements (several chunks per colour) agree with Serial.
void check_chunks(const Exec& exec) {
  const Model model = test::two_section_model(ElementType::Hex20, 1, 4, 0.3);
  const fem::SectionTable table = fem::section_table(model);
  const fem::ElementColouring colouring = fem::colour_elements(model.mesh);
  const fem::DeviceElements serial(Exec::serial(), model.mesh, table, colouring);
  const fem::DeviceElements elements(exec, model.mesh, table, colouring);
  const test::CsrMatrix reference =
      on_host(sparse::assemble_csr<double>(Exec::serial(), serial, GlobalMatrix::Stiffness, RaceStrategy::Colouring));
  const std::vector<double> batch = test::poisoned_batch(Exec::serial(), serial, sparse::ElementMatrix::Stiffness,
                                                         sparse::MatrixStorage::Upper);
  const Exec chunked = exec.with_workspace_budget(7 * 3600 * sizeof(double));
  for (RaceStrategy strategy : {RaceStrategy::Colouring, RaceStrategy::Atomics})
    EXPECT_EQ(compare(on_host(sparse::assemble_csr<double>(chunked, elements, GlobalMatrix::Stiffness, strategy)),
                      reference, 1e-12),
              "")
        << name(strategy);
  EXPECT_EQ(test::compare_elementwise(test::poisoned_batch(chunked, elements, sparse::ElementMatrix::Stiffness,
                                                           sparse::MatrixStorage::Upper),
                                      batch, 60 * 61 / 2, 1e-12),
            "");
}

TEST(AssemblyParity, OpenMPEqualsSerial) {
  check_backend(Exec::openmp());
  check_chunks(Exec::openmp());
}

TEST(AssemblyParityGpu, CudaEqualsSerial) {
  TREMOR_REQUIRE_GPU();
  check_backend(Exec::cuda());
}

TEST(AssemblyParityGpu, CudaWorkspaceChunksEqualSerial) {
  TREMOR_REQUIRE_GPU();
  check_chunks(Exec::cuda());
}

}  // namespace
}  // namespace tremor
