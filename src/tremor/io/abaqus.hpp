#pragma once
// Abaqus / CalculiX .inp reader.
#include <string>
#include <string_view>

#include "tremor/model/model.hpp"

namespace tremor::io {

// Reads the model in `path`, following *INCLUDE relative to the including file. Keywords it does
// not support are listed in one warning (tremor::log::warn), never dropped silently. Errors name
// the file, the line and what was expected.
Model read_abaqus(const std::string& path);
// The same from text in memory; `name` stands for the file in messages and *INCLUDE paths are
// resolved against `base_dir` (empty: *INCLUDE is an error).
Model read_abaqus_buffer(std::string_view text, const std::string& name, const std::string& base_dir = "");

}  // namespace tremor::io
