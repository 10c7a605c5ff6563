#pragma once
// An explicit run recorded into one result file as it goes (docs/output-format.md): the
// histories' samples sent in chunks from a thread of their own, the snapshots, the checkpoints, a
// flush every few seconds, and the file finished with the run's status. `tremor run` and the
// Python package's tremor.run(output=...) record through this one path; what is shown meanwhile
// (progress, shots) and what stops a run (signals, Ctrl-C) belong to the observer they pass on.
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/explicit/solver.hpp"
#include "tremor/io/checkpoint_file.hpp"
#include "tremor/io/result_file.hpp"
#include "tremor/model/model.hpp"

namespace tremor::record {

// What identifies the input of a run: the `model_hash` of a result file's metadata and of a
// checkpoint, so that a resume is refused when the model changed. "fnv1a64:<model>:<inputs>":
// FNV-1a of the model file's bytes, and of what it read from other files (the mesh: coordinates,
// labels, connectivity; tabulated signals and amplitudes).
std::string model_hash(std::string_view model_bytes, const Model& model);
// The same of the model file `path` (unreadable: as if empty).
std::string model_file_hash(const std::filesystem::path& path, const Model& model);

// `RESULT.checkpoint`: where the checkpoints of a run to RESULT go (docs/running.md).
std::filesystem::path checkpoint_path(const std::filesystem::path& result);
// Refuses a new run to `result` while an interrupted run's checkpoint lies beside it (the new run
// would orphan it), naming it and how to continue that run (`resume`: "--resume", ...).
void refuse_over_checkpoint(const std::filesystem::path& result, std::string_view resume);

// Every file `model` was read from: its source and Model::inputs.
std::vector<std::filesystem::path> model_inputs(const Model& model);
// Refuses, before any work, a result at `output` of which a file (`output`, `<output>.partial`,
// its XDMF file, `<output>.checkpoint`) is one of `inputs` (io::same_file: the same file however
// spelled, or that would be once created), naming both: the run would write over what it reads.
void refuse_output_over_inputs(const std::filesystem::path& output, std::span<const std::filesystem::path> inputs);
// The file at a command's output before the command: after a failure, kept() says whether it is
// still there as it was (the same file, size and modification time), for the user.
class EarlierResult {
 public:
  explicit EarlierResult(std::filesystem::path output);
  // "OUT is kept as it was: ..." when a regular file was there and still is; else empty.
  std::string kept() const;

 private:
  std::filesystem::path output_;
  bool present_ = false;
  unsigned long long device_ = 0, inode_ = 0, size_ = 0;
  long long modified_ns_ = 0;
};

// The result file's metadata of a run set up by `preflight`.
io::RunMetadata run_metadata(const explicit_fe::Preflight& preflight, std::string model_path, std::string model_hash,
                             std::string git_commit);
// The nodes and fields the model's snapshots hold (none when it takes none).
io::SnapshotOptions snapshot_options(const Model& model, const explicit_fe::Preflight& preflight);

// What a checkpoint records of the run besides the solver's state (io::Checkpoint's run fields).
struct CheckpointPlan {
  std::filesystem::path path;  // empty: no checkpoints
  io::Checkpoint run;          // identity and settings; the state is filled at each checkpoint
  double wall_before = 0.0;    // s of time loop spent by the sessions before this one
};

struct RecordSettings {
  std::filesystem::path output;
  io::OutputClaim claim;  // io::claim_result_file(output, resumed != nullptr), taken before any work
  io::RunMetadata metadata;
  io::SnapshotOptions snapshots;
  CheckpointPlan checkpoints;
  // A run continued from this checkpoint: the file is reopened at its counts of samples and
  // snapshots (it must live as long as the Recording's constructor). Null: a new file.
  const io::Checkpoint* resumed = nullptr;
  double flush_seconds = 5.0;  // between flushes of the file during the run
};

class Recording {
 public:
  // Creates `settings.output` (or reopens it, for a run resumed) and declares the model's
  // histories in it (a model with shots: each shot's, as it begins). `next` (may be null) gets
  // every event of the run after the file has taken it; its stop_requested stops the run.
  // The model's receivers are located and its inputs checked (refuse_output_over_inputs) before
  // the file is created: a model refused there leaves the output path as it was.
  Recording(const Model& model, const explicit_fe::Preflight& preflight, RecordSettings settings, explicit_fe::Observer* next);
  Recording(Recording&&) noexcept;
  Recording& operator=(Recording&&) noexcept;
  ~Recording();

  // Runs `step` (run_explicit, run_threads or Simulation::run with the observer given to it) and
  // finishes the file with the run's status: "complete", "incomplete" (stopped) or "failed: why"
  // (a NaN). On an exception after the time loop started, what was sent reaches the file, which
  // is finished as "failed: what", and the exception goes on. On one before (the set-up failed:
  // out of memory, a model refused) the file is given up (io::ResultFile::abandon): the output
  // path keeps the file an earlier run left there, or a resumed run's file as it was; note() says
  // which. A complete run's checkpoint is deleted; any other keeps it.
  // A Recording destroyed before its run started gives its file up the same way.
  explicit_fe::ExplicitRun run(const std::function<explicit_fe::ExplicitRun(explicit_fe::Observer*)>& step);

  const std::filesystem::path& path() const;  // the result file's
  const std::string& status() const;          // as finished; empty before
  // After run() threw: what the output path holds (a line for the user); empty before.
  const std::string& note() const;
  // The file was reopened for a resumed run and /images (maps of its partial histories) removed.
  bool dropped_images() const;
  // What the newest checkpoint (written by this run, or resumed from) holds, as "the state at
  // step N of shot 'S'" or "the start of shot 'S' ..."; empty: none.
  const std::string& checkpoint_holds() const;
  // What continues the run from it: "--resume", and the flags of how the run that wrote it
  // stepped its shots ("--shots-parallel", "--shots-together K").
  const std::string& checkpoint_resume() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tremor::record
