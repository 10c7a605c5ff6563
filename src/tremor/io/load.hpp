#pragma once
// One entry point for every input a user may hand tremor.
#include <optional>
#include <string>

#include "tremor/model/model.hpp"

namespace tremor::io {

// By extension: .toml (model file), .inp (Abaqus/CalculiX), .msh (Gmsh mesh only: no materials).
// `order`, when given, raises the mesh to GLL elements of that order (1..8) as it is read, in place
// of a model file's [mesh] order (mesh/elevate.hpp, model/elevate.hpp).
Model load_model(const std::string& path, std::optional<int> order = std::nullopt);

}  // namespace tremor::io
