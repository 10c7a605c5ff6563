#include "tremor/record/static_solution.hpp"

#include <utility>
#include <vector>

#include "tremor/record/explicit_run.hpp"

namespace tremor::record {

WrittenFile write_static_result(const std::filesystem::path& output, io::OutputClaim claim, const Model& model,
                                io::RunMetadata metadata, const static_fe::StaticResult& result) {
  metadata.backend = name_of(result.settings.backend, backend_names);
  metadata.precision = to_string(result.settings.precision);
  metadata.solver = "static";
  const std::vector<std::filesystem::path> inputs = model_inputs(model);
  refuse_output_over_inputs(output, inputs);
  io::ResultFile file = io::ResultFile::create(output, model, metadata, {}, std::move(claim));
  io::StaticFields fields;
  fields.displacement = result.displacement;
  fields.stress = result.recovery.stress;
  fields.von_mises = result.recovery.von_mises;
  fields.reaction = result.reaction;
  fields.converged = result.cg.converged();
  fields.iterations = result.cg.iterations;
  fields.relative_residual = result.cg.relative_residual;
  fields.tolerance = result.settings.tolerance;
  fields.preconditioner = name_of(result.settings.preconditioner, preconditioner_names);
  fields.residual_history = result.cg.history;
  file.write_static(fields);
  const bool interrupted = result.cg.status == static_fe::CgStatus::Interrupted;
  const std::string status = result.cg.converged() ? "complete" : interrupted ? "incomplete" : "failed: " + result.cg.report;
  file.finish(status, 0, result.cg.seconds);
  return {file.path(), status};
}

}  // namespace tremor::record
