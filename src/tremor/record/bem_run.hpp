#pragma once
// A boundary-element run recorded into its result file as it goes (docs/output-format.md, /bem):
// `tremor bem` and the Python package's tremor.bem(output=...) write it through this observer.
#include <complex>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tremor/bem/driver.hpp"
#include "tremor/io/result_file.hpp"
#include "tremor/model/bem_problem.hpp"

namespace tremor::record {

// The files a boundary-element model was read from: its model file and its surface mesh's.
std::vector<std::filesystem::path> bem_inputs(const BemProblem& problem);

// Creates the result file when the run starts (the surface mesh, the set-up) and writes each
// frequency as soon as it is solved, flushed, so a run that stops keeps every frequency written;
// passes every event on to `next` (may be null), whose stop_requested stops the run.
class BemRecording final : public bem::Observer {
 public:
  // `model_path`: the [bem] model file (named and hashed in the metadata); `output` claimed by
  // the caller before any work. The file is refused, before it is created, when it would be
  // written over one of the problem's inputs (refuse_output_over_inputs).
  BemRecording(const BemProblem& problem, std::string model_path, std::string git_commit,
               std::filesystem::path output, io::OutputClaim claim, bem::Observer* next);
  BemRecording(const BemRecording&) = delete;
  BemRecording& operator=(const BemRecording&) = delete;
  // A file not finished and holding no frequency is given up (io::ResultFile::abandon).
  ~BemRecording() override;

  void on_start(const bem::Plan& plan) override;
  void on_frequency(const bem::Plan& plan, const bem::FrequencySolution& solution) override;
  bool stop_requested() override;

  // Finishes the file with the run's status: "complete", "incomplete" (stopped) or "failed: at
  // F Hz: why" (the frequency that failed). Returns the status; nothing when the run failed before
  // the file was created. A run that failed before its first frequency was solved has nothing to
  // keep: its file is given up (io::ResultFile::abandon) and the output path keeps what an
  // earlier run left there; note() says so.
  std::string finish(const bem::RunResult& run);
  const std::string& note() const { return note_; }

  bool created() const { return file_.has_value(); }
  io::ResultFile& file() { return *file_; }
  const std::vector<double>& solved() const { return solved_; }  // the frequencies written, Hz
  // Their interior displacements, a row per frequency.
  const std::vector<std::vector<std::complex<double>>>& interior_rows() const { return interior_rows_; }

 private:
  const BemProblem& problem_;
  std::string model_path_, git_commit_;
  std::filesystem::path output_;
  io::OutputClaim claim_;
  bem::Observer* next_;
  std::optional<io::ResultFile> file_;
  std::vector<double> solved_;
  std::vector<std::vector<std::complex<double>>> interior_rows_;
  double solve_wall_ = 0.0;
  std::string note_;
};

}  // namespace tremor::record
