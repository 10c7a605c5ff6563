#pragma once
// The checkpoint of an explicit run (`tremor run --checkpoint-every N`, docs/running.md): one
// small HDF5 file, `<result>.checkpoint`, holding the solver's state at a step, what the result
// file held at that step, and what identifies the run, so `tremor run --resume` continues it and
// refuses a different model or different settings.
//
// Written atomically: to `<path>.tmp`, synced, then renamed over `<path>`, so a kill at any
// moment leaves either the previous checkpoint or the new one, never a torn file.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace tremor::io {

// A sample waiting for the next step (explicit_fe::PendingSample, without the dependency).
struct CheckpointPending {
  bool active = false;
  std::int64_t step = 0;
  std::vector<double> before, at;
};

struct Checkpoint {
  // The run: a resume must match every one of these.
  std::string model_hash;     // of the model file and what it read (cli/run.cpp model_hash)
  std::string precision;      // "float" or "double"
  std::string operator_kind;  // the operator's name (explicit_fe::operators())
  std::string backend;        // as it ran: "serial", "openmp", "cuda"
  std::string ordering = "none";  // node ordering: "none" or "rcm" (the state is stored in the model's order)
  double time_step = 0.0;     // s
  std::int64_t total_steps = 0;
  std::int64_t checkpoint_every = 0;  // steps; the resumed run's default
  std::int64_t shots_together = 1;    // shots stepped at once (a resume asks for it again)
  bool shots_parallel = false;        // whole shots side by side over processes or GPUs (the same)

  // The state at `step` of shot `shot` (0 for a model without shots).
  std::int64_t shot = 0;
  std::int64_t step = 0;
  // Before shot `shot` begins (step 0, the state below empty): a resumed run starts it from rest
  // (explicit_fe::SolverState::at_rest). Absent from a checkpoint within a shot.
  bool at_rest = false;
  double wall_time = 0.0;  // s of time loop up to here, over all sessions of the run
  std::vector<double> previous, current;         // u_step-1, u_step; a float state widened exactly
  std::vector<CheckpointPending> receivers;      // one per history, in the solver's order
  CheckpointPending snapshot;                    // a velocity snapshot waiting for u_step+1
  // The memory variables of attenuating sections by the model's elements: element e's at
  // [memory_offsets[e], memory_offsets[e + 1]) of memory (explicit_fe::SolverState). Both empty
  // for a run without them.
  std::vector<std::int64_t> memory_offsets;
  std::vector<double> memory;
  // A PML's nodes (the model's) and their variables, the same count each; empty without a PML.
  std::vector<std::int64_t> pml_nodes;
  std::vector<double> pml_node_values;
  // A fluid's potential at step - 1 and step per fluid node (explicit_fe::SolverState); empty
  // without fluids.
  std::vector<double> fluid_previous, fluid_current;
  // A PML over fluid elements (explicit_fe::SolverState's fluid_pml_*): its elements' variables by
  // the model's elements, as memory_offsets and memory, and its nodes' (the model's), the same
  // count each; empty without one.
  std::vector<std::int64_t> fluid_pml_offsets;
  std::vector<double> fluid_pml;
  std::vector<std::int64_t> fluid_pml_nodes;
  std::vector<double> fluid_pml_node_values;

  // What the result file held at `step`.
  // per history name (a shot's: "<shot>/<name>", ResultFile::sample_counts)
  std::map<std::string, std::int64_t> history_samples;
  std::int64_t n_snapshots = 0;
};

// Writes `checkpoint` to `path` atomically (above). Throws tremor::Error naming the file.
void write_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint);

// Reads a checkpoint; throws tremor::Error naming the file when it is missing or not a checkpoint.
Checkpoint read_checkpoint(const std::filesystem::path& path);

// Why a run described by `now` (its run fields; the state is ignored) may not continue
// `saved`: one line per difference ("precision: the checkpoint's run used float, this one
// double"); empty when it may.
std::vector<std::string> checkpoint_mismatches(const Checkpoint& saved, const Checkpoint& now);

}  // namespace tremor::io
