#pragma once
// `tremor bench assembly`: element matrices and the two-kernel assembly of K, timed on every
// backend of one run.
#include <string>
#include <vector>

#include "tremor/core/config.hpp"

namespace tremor::bench {

struct AssemblyArgs {
  std::vector<std::string> backends;  // empty: CUDA when present, and OpenMP
  std::vector<Size> sizes;            // nodes per direction of the hex8 grids; empty: the default list
  std::vector<Size> element_cells;    // cells per direction of the hex8 element-matrix boxes
  Size type_cells = 24;               // tet4, tet10, hex20 element matrices
  Size tet4_cells = 55;               // unstructured assembly mesh: 6 x 55^3 = 998,250 tet4
  Size cpu_max_elements = 120000;
  std::string precision = "double";
  std::string output_dir;
  double min_seconds = 0.0;
  int repeats = 3;
  int copy_mb = 1024;
  bool dry_run = false;
  std::string note;
  std::string commit;  // the build's, for the report
};

// Times every case that fits, prints each, the target line and (with an output folder)
// writes assembly.json and assembly.md; throws tremor::Error naming the first failed case after
// writing them.
void run_assembly(const AssemblyArgs& args);

}  // namespace tremor::bench
