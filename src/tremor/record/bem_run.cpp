#include "tremor/record/bem_run.hpp"

#include <utility>

#include "tremor/core/format.hpp"
#include "tremor/model/model.hpp"
#include "tremor/record/explicit_run.hpp"

namespace tremor::record {

std::vector<std::filesystem::path> bem_inputs(const BemProblem& problem) {
  std::vector<std::filesystem::path> inputs;
  if (!problem.source.empty()) inputs.emplace_back(problem.source);
  if (problem.mesh.kind == BemMeshKind::File && !problem.mesh.path.empty()) inputs.emplace_back(problem.mesh.path);
  return inputs;
}

BemRecording::BemRecording(const BemProblem& problem, std::string model_path, std::string git_commit,
                           std::filesystem::path output, io::OutputClaim claim, bem::Observer* next)
    : problem_(problem),
      model_path_(std::move(model_path)),
      git_commit_(std::move(git_commit)),
      output_(std::move(output)),
      claim_(std::move(claim)),
      next_(next) {}

BemRecording::~BemRecording() {
  if (file_ && !file_->finished() && solved_.empty()) file_->abandon();
}

void BemRecording::on_start(const bem::Plan& plan) {
  Model model;
  model.source = model_path_;
  model.title = problem_.title;
  model.mesh = bem::surface_mesh(plan.mesh);
  io::RunMetadata metadata;
  metadata.git_commit = git_commit_;
  metadata.model_path = model_path_;
  metadata.model_hash = model_file_hash(model_path_, model);
  metadata.backend = std::string(to_string(plan.exec.backend()));
  metadata.precision = "double";
  metadata.solver = "bem";
  std::vector<std::filesystem::path> inputs = bem_inputs(problem_);
  inputs.emplace_back(model_path_);
  refuse_output_over_inputs(output_, inputs);
  file_.emplace(io::ResultFile::create(output_, model, metadata, {}, std::move(claim_)));

  const std::vector<Label> labels(plan.mesh.element_labels.begin(), plan.mesh.element_labels.end());
  io::BemSetup setup;
  setup.frequencies = problem_.frequencies;
  setup.connectivity = plan.mesh.connectivity;
  setup.element_labels = labels;
  setup.centroids = plan.centroids;
  setup.normals = plan.normals;
  setup.areas = plan.areas;
  setup.prescribed = plan.conditions.prescribed;
  setup.interior_points = plan.interior_points;
  setup.force_sets = plan.conditions.force_sets;
  setup.elements = plan.settings.elements;
  setup.node_positions = plan.node_positions;
  setup.node_elements = plan.node_elements;
  setup.solid = to_string(problem_.mesh.solid);
  setup.free_term = plan.free_term;
  setup.solver = plan.method == bem::SolverMethod::Compressed ? BemSolver::HMatrix : BemSolver::Dense;
  setup.tolerance = plan.hmatrix.tolerance;
  setup.gauss = plan.integration.gauss;
  setup.singular_gauss = plan.integration.singular_gauss;
  setup.max_depth = plan.integration.max_depth;
  setup.near_ratio = plan.integration.near_ratio;
  setup.density = problem_.material.density;
  setup.lame_lambda = problem_.material.lambda;
  setup.shear_modulus = problem_.material.mu;
  setup.damping_ratio = problem_.material.damping_ratio;
  file_->start_bem(setup);
  if (next_) next_->on_start(plan);
}

void BemRecording::on_frequency(const bem::Plan& plan, const bem::FrequencySolution& s) {
  solve_wall_ += s.wall_seconds;
  io::BemFrequencyFields fields;
  fields.frequency = s.frequency;
  fields.displacement = s.displacement;
  fields.traction = s.traction;
  fields.node_displacement = s.node_displacement;
  fields.node_traction = s.node_traction;
  fields.interior = s.interior;
  fields.forces = s.forces;
  fields.reciprocal_condition = s.result.solve.reciprocal_condition;
  fields.assembly_seconds = s.result.assembly_seconds + s.result.row_sum_seconds;
  fields.solve_seconds = s.result.solve_seconds;
  fields.interior_seconds = s.result.interior_seconds;
  file_->write_bem_frequency(fields);
  file_->set_progress(static_cast<std::int64_t>(solved_.size() + 1), solve_wall_);
  file_->flush();
  solved_.push_back(s.frequency);
  interior_rows_.push_back(s.interior);
  if (next_) next_->on_frequency(plan, s);
}

bool BemRecording::stop_requested() { return next_ != nullptr && next_->stop_requested(); }

std::string BemRecording::finish(const bem::RunResult& run) {
  if (!file_) return {};
  const std::size_t n_solved = solved_.size();
  std::string status = "complete";
  if (run.status == bem::RunStatus::Stopped) status = "incomplete";
  if (run.status == bem::RunStatus::Failed)
    status = str("failed: ", n_solved < problem_.frequencies.size()
                                 ? str("at ", number(problem_.frequencies[n_solved]), " Hz: ", run.message)
                                 : run.message);
  if (run.status == bem::RunStatus::Failed && n_solved == 0) {
    note_ = file_->abandon();
    return status;
  }
  file_->finish(status, static_cast<std::int64_t>(n_solved), solve_wall_);
  return status;
}

}  // namespace tremor::record
