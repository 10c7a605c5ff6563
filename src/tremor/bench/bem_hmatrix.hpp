#pragma once
// `tremor bench bem --hmatrix D1,D2,...`: the compressed boundary-element solver at several sizes
// against the dense one where it fits (bench/bem_hmatrix.cpp).
#include "tremor/bench/bem.hpp"

namespace tremor::bench {

// Solves the cavity of each size on the run's backends (CUDA when present, else OpenMP, unless
// --backend says), prints the table, the growth of the stored values and the crossover, and (with
// an output folder) writes bem_hmatrix.json and bem_hmatrix.md; throws tremor::Error naming the
// first failed case after writing them.
void run_bem_hmatrix(const BemArgs& args);

}  // namespace tremor::bench
