// Every backend present runs the same small kernels and must agree with the Serial reference.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "support/support.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/backend/reduce.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// Larger than a warp and not a multiple of any block size, so tails are exercised.
constexpr Index n = 100003;

std::vector<double> run_axpy(const Exec& exec, const std::vector<double>& x, const std::vector<double>& y) {
  DeviceArray<double> dx(exec, std::span<const double>(x));
  DeviceArray<double> dy(exec, std::span<const double>(y));
  // Poison the output so an entry the kernel fails to write shows up as NaN.
  std::vector<double> poison(x.size(), std::numeric_limits<double>::quiet_NaN());
  DeviceArray<double> out(exec, std::span<const double>(poison));
  auto vx = dx.view();
  auto vy = dy.view();
  auto vo = out.view();
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) { vo[i] = 2.5 * vx[i] + vy[i] * vy[i]; });
  exec.synchronize();
  return out.to_host();
}

double run_sum(const Exec& exec, const std::vector<double>& x) {
  DeviceArray<double> dx(exec, std::span<const double>(x));
  auto vx = dx.view();
  return sum<double>(exec, n, [=] TREMOR_LAMBDA(Index i) { return vx[i] * vx[i]; });
}

// Extended device lambdas may not live in a TEST body (a private member function): kernels are
// launched from free functions like this one.
double count_ones(const Exec& exec, Index count) {
  return sum<double>(exec, count, [=] TREMOR_LAMBDA(Index) { return 1.0; });
}

struct Inputs {
  std::vector<double> x, y;
  Inputs() : x(n), y(n) {
    for (Index i = 0; i < n; ++i) {
      x[static_cast<std::size_t>(i)] = std::sin(0.001 * i);
      y[static_cast<std::size_t>(i)] = std::cos(0.003 * i) - 0.5;
    }
  }
};

void check_backend(const Exec& exec) {
  const Inputs in;
  const auto reference = run_axpy(Exec::serial(), in.x, in.y);
  const auto result = run_axpy(exec, in.x, in.y);
  ASSERT_EQ(result.size(), reference.size());
  // Same arithmetic per entry on every backend (no reassociation), so equality is exact...
  // except that nvcc may contract a*b+c into an FMA: allow one rounding of the result.
  for (std::size_t i = 0; i < result.size(); ++i)
    ASSERT_NEAR(result[i], reference[i], 4e-16 * (1.0 + std::abs(reference[i]))) << "entry " << i;

  const double s_ref = run_sum(Exec::serial(), in.x);
  const double s = run_sum(exec, in.x);
  // Different summation orders: n roundings of terms <= 1 bound the difference by n * eps * sum.
  EXPECT_NEAR(s, s_ref, n * 2.3e-16 * s_ref);
  // And the sum is right: sum_{i<n} sin^2(a i) = n/2 - sin(n a) cos((n - 1) a) / (2 sin a).
  const double a = 0.001;
  const double closed = 0.5 * n - std::sin(n * a) * std::cos((n - 1) * a) / (2.0 * std::sin(a));
  EXPECT_NEAR(s, closed, n * 2.3e-16 * closed);
  // Repeated runs on one backend give the identical bits (deterministic reduction).
  EXPECT_EQ(run_sum(exec, in.x), s);
}

TEST(BackendParity, OpenMPMatchesSerial) { check_backend(Exec::openmp()); }

TEST(BackendParityGpu, CudaMatchesSerial) {
  TREMOR_REQUIRE_GPU();
  check_backend(Exec::cuda());
}

TEST(BackendParity, EmptyRangesDoNothing) {
  for (Backend backend : available_backends()) {
    const Exec exec = Exec::make(backend);
    EXPECT_EQ(count_ones(exec, 0), 0.0);
    EXPECT_EQ(count_ones(exec, 70001), 70001.0);
  }
}

TEST(BackendParity, CudaUnavailableIsAClearError) {
  if (gpu_present()) GTEST_SKIP() << "a GPU is present";
  try {
    (void)Exec::cuda();
    FAIL() << "Exec::cuda() succeeded without a GPU";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tremor
