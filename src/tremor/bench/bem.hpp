#pragma once
// `tremor bench bem`: the boundary-element H and G assembly and the dense solve, timed on every
// backend of one run at the BEM paper's sizes.
#include <optional>
#include <string>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/model/bem_problem.hpp"

namespace tremor::bench {

struct BemArgs {
  std::vector<std::string> backends;  // empty: serial, openmp, and cuda when a GPU is present
  std::vector<Index> sizes;           // elements of the patches; empty: the paper's
  std::optional<BemLayout> layout;    // CUDA's pair layout; std::nullopt: both, block then thread
  std::string large = "auto";
  bool no_solve = false;
  std::string output_dir;
  bool dry_run = false;
  double min_seconds = 0.0;
  int repeats = 3;
  double max_serial_seconds = 120.0;
  int copy_mb = 0;  // 0: 1024 on a GPU, 256 on the host
  int gauss = 8;
  std::string note;
  std::string commit;  // the build's, for the report
  // --hmatrix: sphere divisions of the compressed solver's cavity (bench/bem_hmatrix.hpp), run
  // instead of the paper's sizes; its tolerance.
  std::vector<Index> hmatrix;
  double tolerance = 1e-5;
};

struct Device;  // bench/report.hpp

// Why `d` cannot hold H and G of n collocation nodes (and the dense solve's reserve on a GPU);
// empty when it can.
std::string memory_refusal(const Device& d, Index n);

// Times every case that fits, prints each and the tables, (with an output folder) writes bem.json
// and bem.md; throws tremor::Error naming the first failed case after writing them.
void run_bem(const BemArgs& args);

}  // namespace tremor::bench
