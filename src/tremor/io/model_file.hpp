#pragma once
// The tremor model file (TOML), documented in docs/model-file.md.
#include <string>
#include <string_view>

#include "tremor/model/model.hpp"

namespace tremor::io {

// Reads a model file; a mesh file it names is read relative to the model file's folder.
Model read_model_file(const std::string& path);
// The same from text in memory; `name` stands for the file in messages, mesh files are resolved
// against `base_dir`.
Model read_model_buffer(std::string_view text, const std::string& name, const std::string& base_dir);

}  // namespace tremor::io
