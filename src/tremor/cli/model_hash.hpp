#pragma once
// What identifies the input of a run: the `model_hash` of a result file's metadata and of a
// checkpoint (docs/output-format.md), so that a resume is refused when the model changed.
#include <string>

#include "tremor/model/model.hpp"

namespace tremor::cli {

// "fnv1a64:<model file>:<inputs>": FNV-1a of the model file's bytes, and of what it read from
// other files (the mesh: coordinates, labels, connectivity; tabulated signals and amplitudes).
std::string model_hash(const std::string& path, const Model& model);

}  // namespace tremor::cli
