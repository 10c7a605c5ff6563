#pragma once
// `tremor bench fluid`: what a fluid node costs a step beside a solid node (three components),
// from whole runs (the time loop of run_explicit: the solid's operator and update, the fluid's
// term with its coupling) of one box of GLL hexahedra in three fillings: all steel (`solid`),
// steel below half its height and water above (`mixed`), one element of steel under water
// (`water`). A solid node's cost is the solid run's step over its nodes (the solid box is run
// twice, the faster kept: the first run of a process pays its cold start); a fluid node's is a
// run's step less its solid nodes at that cost, over its fluid's own nodes (docs/benchmarks.md).
#include <string>
#include <vector>

namespace tremor::bench {

struct FluidArgs {
  std::vector<long long> sizes{40};  // elements along each side of the box (1 mm each)
  int order = 4;                     // GLL order of the hexahedra
  std::string precision = "float";
  std::string backend = "auto";
  int steps = 300;  // timed steps of each run (the time loop's own rate)
  // "box": parallelepipeds; "trilinear": the box sheared by a bilinear map of its coordinates, its
  // elements on the trilinear map of their vertices (a hex8 mesh raised to order P), not affine.
  std::string shape = "box";
  std::string output_dir, note, commit;
};

// Throws tremor::Error naming a failed run.
void run_fluid(const FluidArgs& args);

}  // namespace tremor::bench
