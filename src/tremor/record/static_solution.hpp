#pragma once
// The result file of a static solve (docs/output-format.md, /static): `tremor static` and the
// Python package's tremor.static(output=...) write it through this one function.
#include <filesystem>
#include <string>

#include "tremor/io/result_file.hpp"
#include "tremor/model/model.hpp"
#include "tremor/static/solve.hpp"

namespace tremor::record {

struct WrittenFile {
  std::filesystem::path path;  // the result file's
  std::string status;          // as finished
};

// Writes the solution `result` of `model` and the solve's record into `output` (claimed by the
// caller before the solve, so that a model the solver refuses leaves no file), finished as
// "complete", "incomplete" (the solve was stopped) or "failed: <why>" (not converged: its last
// iterate). `metadata` gives the build and the model's path and hash; the rest is the solve's.
// Refused, writing nothing, when the file would be written over one of the model's inputs
// (refuse_output_over_inputs).
WrittenFile write_static_result(const std::filesystem::path& output, io::OutputClaim claim, const Model& model,
                                io::RunMetadata metadata, const static_fe::StaticResult& result);

}  // namespace tremor::record
