#pragma once
// What the verifications of sources in unbounded and half-space solids share (point_force_test,
// moment_tensor_test, lamb_problem_test): a cube of GLL hexahedra cut by its planes of symmetry,
// C-PML layers on its far faces, and the run itself, sem in double.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tremor/explicit/solver.hpp"

namespace tremor::test {

// C-PML layers `thickness` m thick on `faces`, tuned to the frequency f0 (quadratic profile).
inline AbsorbingLayer pml_layers(std::vector<BoxFace> faces, double thickness, double f0) {
  AbsorbingLayer pml;
  pml.kind = AbsorbingKind::Pml;
  pml.faces = std::move(faces);
  pml.thickness = thickness;
  pml.frequency = f0;
  pml.power = 2.0;
  return pml;
}

// `model` run for `duration` at `time_step` on `backend` with the sem operator in double, its size
// and times printed as `what`'s.
inline explicit_fe::ExplicitRun run_sem(Model& model, const std::string& backend, double duration, double time_step,
                                        const char* what) {
  ExplicitSettings settings;
  settings.duration = duration;
  settings.time_step = time_step;
  model.explicit_settings = settings;
  model.validate();
  explicit_fe::RunOptions options;
  options.backend = backend;
  options.precision = "double";
  options.operator_kind = "sem";
  explicit_fe::ExplicitRun run = explicit_fe::run_explicit(model, options);
  EXPECT_TRUE(run.ok()) << run.message;
  std::printf("%s, %s: %lld DOF, %lld steps of %.3g s; set-up %.2f s, stepping %.2f s\n", what, backend.c_str(),
              static_cast<long long>(run.preflight.n_dofs), run.steps, run.dt, run.setup_seconds, run.wall_seconds);
  return run;
}

}  // namespace tremor::test
