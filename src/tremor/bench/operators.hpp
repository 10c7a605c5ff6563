#pragma once
// `tremor bench`: the explicit time step of every stiffness operator and precision on standard
// problems (or model files), against the copy bandwidth and cuSPARSE measured in the same run.
#include <string>
#include <vector>

namespace tremor::bench {

struct OperatorArgs {
  std::vector<std::string> problems;   // empty: the standard ones, unless model files are given
  std::vector<std::string> models;     // model files, timed besides (or instead of) the problems
  std::vector<std::string> operators;  // empty: every kind the backend runs, both partitioners
  std::vector<std::string> precisions{"float", "double"};
  std::vector<std::string> orderings{"none", "rcm"};
  std::string backend = "auto";
  double scale = 1.0;
  int steps = 200, warmup = 20;
  // Shots stepped together (CentralDifference's columns): each case is timed with one shot and, where
  // above 1, with this many at once, their aggregate DOF-steps/s against one shot's.
  int shots = 1;
  double min_seconds = 0.0;
  int copy_mb = 1024;
  bool dry_run = false;
  std::string json, markdown, note;
  std::string commit;  // the build's, for the report
};

// tri2d, hex8, tet4 (the FE problems, run when none is named), and gll1 .. gll8 (2 mm aluminium
// plates of GLL hexahedra of order 1 .. 8, ~20M DOF each, for the sem operator).
const std::vector<std::string>& standard_problems();
const std::vector<std::string>& default_problems();
// none, rcm, block.
const std::vector<std::string>& known_orderings();

// Whether `name` is an operator the benchmark times: a kind of the run's registry, or
// partitioned:greedy, partitioned:aligned, sem:atomic, sem:stored.
bool is_operator(const std::string& name);
// The names is_operator accepts, comma-separated.
std::string operator_names();

// Times every case, prints each and the tables, writes the JSON and markdown asked for; throws
// tremor::Error naming the first failed case after writing them.
void run_operators(const OperatorArgs& args);

}  // namespace tremor::bench
