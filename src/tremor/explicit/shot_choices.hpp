#pragma once
// The pre-flight's choices for a model's shots (solver.cpp, preflight): whole shots side by side
// over several GPUs or processes, or a subdomain of every shot on each; how many shots one set-up
// steps together (Preflight::shots_together) and the bytes they add; and the operator kind a
// capture of many shots prefers on a GPU. Each says why in the Preflight it fills.
#include <cstddef>
#include <functional>
#include <string>

#include "tremor/explicit/pml.hpp"
#include "tremor/explicit/solver.hpp"

namespace tremor::explicit_fe {

// What stops a model's shots from being stepped together on this run, in a phrase; empty: nothing.
std::string why_one_shot_at_a_time(const Model& model, const RunOptions& options);

// Whether a fluid's elements are all hexahedra of GLL order 2 and more, whose operator steps a
// batch's shots by the column kernel (sem::FluidKernels): where shots together are measured faster.
bool fluid_in_columns(const FluidSetup& fluid);

// What applies a batch's shots one by one where the operator would read its data once for all of
// them (a gain on a GPU not measured there, so not the default): a PML's term, attenuation's memory
// variables, in a phrase; empty: none.
std::string applied_one_by_one(const Preflight& p);

// Preflight::shots_parallel_why, and whether a run over `processes` members (RunOptions::
// communicator) steps whole shots side by side, each member the whole model (`one_domain` bytes
// estimated) and shots of its own, rather than a subdomain of every shot: asked for, or chosen on
// GPUs where the whole model fits one (by the first GPU's free memory for --gpus, decided once; by
// each process's GPU's total memory under mpirun, the same on every process of alike GPUs) and the
// shots keep every member busy (idle members' turns at most an eighth of the rounds). Throws
// tremor::Error where asked for and refused.
bool choose_shots_parallel(Preflight& p, const Model& whole, const RunOptions& options, std::size_t one_domain,
                           const std::function<std::size_t()>& free_gpu_bytes);

// Preflight::shots_together and shots_why for a run whose other arrays take `run` bytes; returns
// the bytes the extra shots' fields and receivers add, with `state` bytes a shot of variables
// (a PML's, attenuation's) and `once` bytes for any batch (the vectors a shot is gathered into).
// Throws tremor::Error where more than one is asked for and something stops it.
std::size_t choose_shots_together(Preflight& p, const Model& model, const RunOptions& options, std::size_t run,
                                  std::size_t real_size, std::size_t state, std::size_t once,
                                  const std::function<std::size_t()>& free_gpu_bytes);

// A capture of 16 shots or more on a GPU, operator "auto": stepped 16 at a time on block_ell (K
// read once for all of them) its shots outrun an element-by-element kind's one after another
// (docs/benchmarks.md, "Shots stepped together"), where K fits the GPU (half its free memory, by
// `run_bytes`, and one array of 32-bit indices: `k_fits`); not in place of sem, far faster on its
// GLL meshes. Changes p.op and says why.
void prefer_a_kind_for_shots(Preflight& p, const Model& whole, const Mesh& mesh, const RunOptions& options,
                             bool k_fits, const op::BytesOf& run_bytes,
                             const std::function<std::size_t()>& free_gpu_bytes);

// What each shot stepped beside the first keeps besides its fields (choose_shots_together): its
// PMLs' variables (the solid's `pml`, the fluid's) and its memory variables (the estimate's
// difference with and without them), and once for any batch the 3 vectors a PML's term gathers a
// shot's fields into and the 2 an operator that applies a batch one by one does (op::Operator).
struct ShotBytes {
  std::size_t state = 0, once = 0;
};
ShotBytes shot_state_bytes(const Preflight& p, const Model& model, Size nnz, std::size_t real_size,
                           const PmlBytes& pml);

}  // namespace tremor::explicit_fe
