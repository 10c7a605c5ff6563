#pragma once
// The tremor model file (TOML), documented in docs/model-file.md.
#include <optional>
#include <string>
#include <string_view>

#include "tremor/model/model.hpp"

namespace tremor::io {

// Reads a model file; a mesh file it names is read relative to the model file's folder. `order`,
// when given, raises the mesh to GLL elements of that order (1..8, mesh/elevate.hpp) in place of
// [mesh] order.
Model read_model_file(const std::string& path, std::optional<int> order = std::nullopt);
// The same from text in memory; `name` stands for the file in messages, mesh files are resolved
// against `base_dir`.
Model read_model_buffer(std::string_view text, const std::string& name, const std::string& base_dir,
                        std::optional<int> order = std::nullopt);

}  // namespace tremor::io
