// Element stiffness and lumped mass of many distorted elements through forall on every backend,
// against a direct host loop over the same TREMOR_HOST_DEVICE kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "../unit/fem_test_helpers.hpp"
#include "support/support.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/fem/element_matrices.hpp"

namespace tremor::fem {
namespace TREMOR_TEST_FILE {

// More than 1000 and no multiple of a warp or block, so partial blocks are exercised.
constexpr Index n_elements = 1031;

// The constitutive matrix, captured by value into kernels.
struct Constitutive {
  double values[36];
};

template <class E>
std::vector<double> coordinates() {
  std::vector<double> all;
  for (Index e = 0; e < n_elements; ++e) {
    const auto x = test::distorted_element<E>(0.12, E::n_nodes > E::n_vertices ? 0.05 : 0.0, static_cast<std::uint64_t>(e + 1));
    all.insert(all.end(), x.begin(), x.end());
  }
  return all;
}

template <class E>
Constitutive constitutive() {
  Constitutive d{};
  const auto D = test::anisotropic_D(E::dim, 1e10);
  for (std::size_t k = 0; k < D.size(); ++k) d.values[k] = D[k];
  return d;
}

struct Results {
  std::vector<double> K, m;
};

template <class E>
Results run(const Exec& exec, const std::vector<double>& x_host) {
  constexpr int n_xe = E::n_nodes * E::dim, n_ke = n_xe * n_xe;
  const Constitutive d = constitutive<E>();
  const StiffnessRule<E> k_rule = stiffness_rule<E>();
  const LumpingRule<E> m_rule = lumping_rule<E>();
  DeviceArray<double> x(exec, std::span<const double>(x_host));
  // Poisoned outputs: an entry the kernel fails to write stays NaN.
  const std::vector<double> poison_k(static_cast<std::size_t>(n_elements) * n_ke, std::numeric_limits<double>::quiet_NaN());
  const std::vector<double> poison_m(static_cast<std::size_t>(n_elements) * E::n_nodes,
                                     std::numeric_limits<double>::quiet_NaN());
  DeviceArray<double> K(exec, std::span<const double>(poison_k));
  DeviceArray<double> m(exec, std::span<const double>(poison_m));
  const View<const double> vx = x.view();
  const View<double> vK = K.view();
  const View<double> vm = m.view();
  forall(exec, n_elements, [=] TREMOR_LAMBDA(Index e) {
    double xe[n_xe];
    for (int k = 0; k < n_xe; ++k) xe[k] = vx[e * n_xe + k];  // gather
    element_stiffness<E>(xe, d.values, 1.0, k_rule, vK.data + static_cast<Size>(e) * n_ke);
    lumped_mass<E>(xe, 7800.0, m_rule, vm.data + static_cast<Size>(e) * E::n_nodes);
  });
  exec.synchronize();
  return {K.to_host(), m.to_host()};
}

template <class E>
Results host_reference(const std::vector<double>& x) {
  constexpr int n_xe = E::n_nodes * E::dim, n_ke = n_xe * n_xe;
  const Constitutive d = constitutive<E>();
  Results r{std::vector<double>(static_cast<std::size_t>(n_elements) * n_ke),
            std::vector<double>(static_cast<std::size_t>(n_elements) * E::n_nodes)};
  for (Index e = 0; e < n_elements; ++e) {
    element_stiffness<E>(x.data() + static_cast<std::size_t>(e) * n_xe, d.values, 1.0,
                         r.K.data() + static_cast<std::size_t>(e) * n_ke);
    lumped_mass<E>(x.data() + static_cast<std::size_t>(e) * n_xe, 7800.0, r.m.data() + static_cast<std::size_t>(e) * E::n_nodes);
  }
  return r;
}

// Per element, relative to its largest entry: the same arithmetic on every backend except for
// fused multiply-adds a GPU compiler may form, a few roundings over sums of ~100 terms.
void compare(const std::vector<double>& result, const std::vector<double>& reference, int per_element,
             const char* what) {
  ASSERT_EQ(result.size(), reference.size());
  for (std::size_t e = 0; e < reference.size() / static_cast<std::size_t>(per_element); ++e) {
    double scale = 0.0;
    for (int k = 0; k < per_element; ++k) scale = std::max(scale, std::abs(reference[e * per_element + k]));
    for (int k = 0; k < per_element; ++k) {
      const std::size_t i = e * static_cast<std::size_t>(per_element) + static_cast<std::size_t>(k);
      ASSERT_TRUE(std::isfinite(result[i])) << what << ": element " << e << " entry " << k << " not written";
      ASSERT_NEAR(result[i], reference[i], 1e-12 * scale) << what << ": element " << e << " entry " << k;
    }
  }
}

template <class E>
void check(const Exec& exec) {
  const auto x = coordinates<E>();
  const Results reference = host_reference<E>(x);
  const Results result = run<E>(exec, x);
  compare(result.K, reference.K, E::n_nodes * E::dim * E::n_nodes * E::dim, "stiffness");
  compare(result.m, reference.m, E::n_nodes, "lumped mass");
}

// Every element family, linear and quadratic, simplex and tensor, with GLL elements of orders 2
// and 3 (higher orders are the spectral-element solver's, matrix-free, never a dense K per thread).
template <class... Elements>
void check_each(const Exec& exec) {
  (check<Elements>(exec), ...);
}

void check_all(const Exec& exec) {
  check_each<Tri3, Tri6, Quad4, Quad8, QuadGll<3>, Tet4, Tet10, Hex8, Hex20, HexGll<2>>(exec);
}

TEST(FemParity, SerialMatchesHostLoop) { check_all(Exec::serial()); }

TEST(FemParity, OpenMPMatchesHostLoop) { check_all(Exec::openmp()); }

TEST(FemParityGpu, CudaMatchesHostLoop) {
  TREMOR_REQUIRE_GPU();
  check_all(Exec::cuda());
}

}  // namespace
}  // namespace tremor::fem
