#pragma once
// A set-up kept for many runs (parametric studies: a sweep of sources, frequencies or receiver
// layouts): the stiffness operator, the lumped mass and damping, the integrator and the time step
// of a model are built once; each run then steps the model from rest with the loads, receivers,
// shots and duration it is given, and costs no set-up beyond its loads and receivers. A run equals
// run_explicit of the same model, bit for bit.
//
// What a run may change is what the set-up does not hold: point sources, surface and body loads,
// prescribed displacements (on the DOFs the set-up constrains), transducers and shots, receivers
// and the duration. The mesh, materials, sections, absorbing layers and time step are the
// set-up's (io::read_excitation_buffer reads a run's tables against them). One domain, in the
// model's node order; no snapshots or checkpoints (tremor run writes those). A model with fluids
// sets up its solid and its fluid as run_explicit does; a run changes the fluid's sources, pistons
// driven by velocity and receivers too (its pressure-release boundaries and pistons driven by
// pressure, which hold the fluid's nodes, are the set-up's).
#include <memory>

#include "tremor/explicit/solver.hpp"
#include "tremor/model/model.hpp"

namespace tremor::explicit_fe {

class Simulation {
 public:
  // Pre-flight and set-up of `model` (kept, a copy) with `options` (backend, precision, operator,
  // time step, safety factor; one domain): throws tremor::Error as run_explicit would.
  explicit Simulation(const Model& model, const RunOptions& options = {});
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  const Model& model() const;
  const Preflight& preflight() const;
  // The set-up's phases and wall time (pre-flight included).
  const std::vector<SetupPhase>& setup() const;
  double setup_seconds() const;

  // Steps `excitation` from rest: a model whose mesh, materials, sections and absorbing layers are
  // this one's (a copy of model() with other loads and receivers, or io::read_excitation_buffer's),
  // for options.duration or its own. Its constrained DOFs must be the set-up's. Returns the run as
  // run_explicit does (setup_seconds 0: nothing was set up); `observer` sees its progress and
  // samples and may stop it. One run at a time: a run called while another is running (from
  // another thread) throws tremor::Error at once and leaves that run alone.
  ExplicitRun run(const Model& excitation, const RunOptions& options = {}, Observer* observer = nullptr);

 private:
  struct Runner;
  template <class Real>
  struct Typed;
  std::unique_ptr<Runner> runner_;
};

}  // namespace tremor::explicit_fe
