#pragma once
// One entry point for every input a user may hand tremor.
#include <string>

#include "tremor/model/model.hpp"

namespace tremor::io {

// By extension: .toml (model file), .inp (Abaqus/CalculiX), .msh (Gmsh mesh only: no materials).
Model load_model(const std::string& path);

}  // namespace tremor::io
