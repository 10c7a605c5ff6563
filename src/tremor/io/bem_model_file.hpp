#pragma once
// The boundary-element model file: TOML whose problem lies in a `[bem]` table (docs/bem.md,
// "Running `tremor bem`"; key by key in docs/model-file.md, "Boundary-element model files").
// A model file for the finite-element solvers (a [mesh] table) is refused with a message saying
// so, and such a reader ignores [bem], so neither is ever taken for the other.
//
// Every error is a tremor::Error "FILE:LINE: WHERE: message" naming the key at fault, as the
// finite-element model file's are. A surface mesh file is read here (io::read_gmsh_surface), so
// element sets the boundary conditions name are checked against it; a generated mesh's sets are
// known from its generator.
#include <string>
#include <string_view>

#include "tremor/model/bem_problem.hpp"

namespace tremor::io {

// Reads a boundary-element model file; a mesh file it names is read relative to its folder.
BemProblem read_bem_model_file(const std::string& path);
// The same from text in memory; `name` stands for the file in messages, mesh files are resolved
// against `base_dir` (none when it is empty).
BemProblem read_bem_model_buffer(std::string_view text, const std::string& name, const std::string& base_dir);

}  // namespace tremor::io
