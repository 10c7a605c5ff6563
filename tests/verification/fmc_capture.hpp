#pragma once
// A simulated full-matrix capture for the imaging tests: a model whose array fires each element in
// a shot of its own, run on the host, its A-scans gathered as imaging::Fmc::data holds them.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "tremor/explicit/solver.hpp"

namespace tremor::test {

// [transmitter][receiver][sample]: `sign` times the receiver's `component` of `quantity` (the
// array's receiver, the model's first); `samples` and `dt` (s) set to the A-scans'.
inline std::vector<double> capture_of(const Model& model, explicit_fe::Quantity quantity, int component, double sign,
                                      std::size_t& samples, double& dt) {
  explicit_fe::RunOptions options;
  options.backend = "openmp";
  const explicit_fe::ExplicitRun run = explicit_fe::run_explicit(model, options);
  EXPECT_TRUE(run.ok()) << run.message;
  const std::size_t n = run.shots.size();
  samples = run.shots.at(0).at(0).n_samples();
  dt = run.shots[0][0].times[1] - run.shots[0][0].times[0];
  std::vector<double> data(n * n * samples);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t k = 0; k < samples; ++k)
        data[(i * n + j) * samples + k] = sign * run.shots[i].at(0).value(k, static_cast<Index>(j), quantity, component);
  return data;
}

}  // namespace tremor::test
