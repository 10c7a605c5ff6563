// ELL, SELL-C-sigma, JDS and nodal-block ELL on every backend against the host CSR SpMV, on
// stiffness matrices of thousands of rows (many warps, ragged boundary rows, tails of partial
// slices and blocks). Host backends: the same bits. CUDA: within the rounding bound of a
// different but equally valid evaluation (nvcc contracts a * x + s into an FMA).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "../unit/sparse_test_models.hpp"
#include "support/support.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/core/error.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/sparse/csr.hpp"
#include "tremor/sparse/formats.hpp"

namespace tremor::sparse {
namespace TREMOR_TEST_FILE {

struct Case {
  ElementType type;
  int order;
  Size cells;
  const char* label;
};

// 2187, 3993, 7442 and 1275 rows of up to 81, 195, 162 and 243 entries; ELL pads 26% to 168%.
const Case cases[] = {{ElementType::Hex8, 1, 8, "hex8"},
                      {ElementType::Tet10, 1, 5, "tet10"},
                      {ElementType::QuadGLL, 4, 15, "quad_gll4"},
                      {ElementType::Hex20, 1, 4, "hex20"}};

using test::apply;
using test::expect_same_bits;
using test::rounded_vector;

// The CSR result on the host, and per row the bound on the difference of two evaluations of the
// row's sum by recursive summation, with or without FMA: each is within gamma_m sum |a x| of the
// exact sum of the m products (Higham, Accuracy and Stability of Numerical Algorithms, 2002,
// section 3.1, Eq. 3.5; an FMA only drops the product's rounding), so they differ by at most
// 2 gamma_m sum |a x|, gamma_m = m u / (1 - m u), u = 2^-53 (double) or 2^-24 (float). For
// rows of 81 to 243 entries that is 1.8e-14 to 5.4e-14 (double) and 1e-5 to 2.9e-5 (float) of
// the row's absolute sum.
template <class Real>
struct Reference {
  std::vector<Real> y;
  std::vector<double> bound;
};

template <class Real>
Reference<Real> csr_reference(const CsrMatrix& matrix, const std::vector<Real>& x) {
  const CsrMatrixT<Real> csr = convert<Real>(matrix);
  Reference<Real> out;
  out.y.assign(x.size(), std::numeric_limits<Real>::quiet_NaN());
  spmv(Exec::serial(), csr, x.data(), out.y.data());
  const double u = std::numeric_limits<Real>::epsilon() / 2;
  for (Index row = 0; row < csr.n_rows; ++row) {
    double absolute = 0.0;
    const Size begin = csr.offsets[static_cast<std::size_t>(row)], end = csr.offsets[static_cast<std::size_t>(row) + 1];
    for (Size k = begin; k < end; ++k)
      absolute += std::abs(static_cast<double>(csr.values[static_cast<std::size_t>(k)]) *
                           static_cast<double>(x[static_cast<std::size_t>(csr.columns[static_cast<std::size_t>(k)])]));
    const double mu = static_cast<double>(end - begin) * u;
    out.bound.push_back(2.0 * mu / (1.0 - mu) * absolute);
  }
  return out;
}

template <class Real>
void expect_within_bound(const std::vector<Real>& result, const Reference<Real>& reference, const std::string& what) {
  ASSERT_EQ(result.size(), reference.y.size()) << what;
  for (std::size_t i = 0; i < result.size(); ++i) {
    const double difference = std::abs(static_cast<double>(result[i]) - static_cast<double>(reference.y[i]));
    ASSERT_TRUE(difference <= reference.bound[i])  // false for NaN: an unwritten entry fails
        << what << ": entry " << i << " is " << result[i] << ", CSR gives " << reference.y[i] << ", bound "
        << reference.bound[i];
  }
}

// Every format on exec, each compared by `compare`; repeated applies give the same bits (one
// thread per row or node, no atomics).
template <class Real, class Compare>
void run_formats(const Exec& exec, const CsrMatrix& matrix, int dim, const std::vector<Real>& x, Compare compare) {
  const auto check = [&](const auto& stored, const std::string& name) {
    const auto first = apply(exec, stored, x);
    compare(first, name);
    expect_same_bits(apply(exec, stored, x), first, name + " applied again");
  };
  check(to_ell<Real>(exec, matrix), "ELL");
  check(to_sell<Real>(exec, matrix, 32, 256), "SELL-32-256");
  check(to_sell<Real>(exec, matrix, 32, 1), "SELL-32-1");
  check(to_sell<Real>(exec, matrix, 8, 1 << 20), "SELL-8-all");
  check(to_jds<Real>(exec, matrix), "JDS");
  check(to_block_ell<Real>(exec, matrix, dim), "block ELL");
}

template <class Real>
void check_host(const Exec& exec) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.label);
    const Model model = test::two_section_model(c.type, c.order, c.cells, 0.2);
    const CsrMatrix K = assemble_stiffness(model, Exec::openmp());
    const auto x = rounded_vector<Real>(K.n_rows, 7);
    const auto reference = csr_reference(K, x);
    run_formats<Real>(exec, K, model.mesh.dim(), x, [&](const std::vector<Real>& y, const std::string& name) {
      expect_same_bits(y, reference.y, name);
    });
  }
}

template <class Real>
void check_gpu() {
  const Exec exec = Exec::cuda();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.label);
    const Model model = test::two_section_model(c.type, c.order, c.cells, 0.2);
    const CsrMatrix K = assemble_stiffness(model, Exec::openmp());
    const auto x = rounded_vector<Real>(K.n_rows, 7);
    const auto reference = csr_reference(K, x);
    run_formats<Real>(exec, K, model.mesh.dim(), x, [&](const std::vector<Real>& y, const std::string& name) {
      expect_within_bound(y, reference, name);
    });
  }
  // A matrix in device memory is refused by a host Exec (before any pointer is touched).
  const auto ell = to_ell<Real>(exec, assemble_stiffness(test::two_section_model(ElementType::Tri3, 1, 2, 0.0)));
  EXPECT_THROW(spmv(Exec::serial(), ell, static_cast<const Real*>(nullptr), static_cast<Real*>(nullptr)), Error);
}

TEST(SparseFormatsParity, SerialMatchesCsrDouble) { check_host<double>(Exec::serial()); }
TEST(SparseFormatsParity, OpenMPMatchesCsrDouble) { check_host<double>(Exec::openmp()); }
TEST(SparseFormatsParity, OpenMPMatchesCsrFloat) { check_host<float>(Exec::openmp()); }

TEST(SparseFormatsParityGpu, CudaMatchesCsrDouble) {
  TREMOR_REQUIRE_GPU();
  check_gpu<double>();
}

TEST(SparseFormatsParityGpu, CudaMatchesCsrFloat) {
  TREMOR_REQUIRE_GPU();
  check_gpu<float>();
}

}  // namespace
}  // namespace tremor::sparse
