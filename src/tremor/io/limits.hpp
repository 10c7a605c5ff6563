#pragma once
// The sizes of the text inputs tremor reads, one limit per kind of input for every way it comes
// in: a model file read from disk (tremor run, tremor.Model.load) and the text of a model built in
// Python (tremor.Model, a kept set-up's runs) are held to the same limit.
#include <cstdint>
#include <string_view>

#include "tremor/core/error.hpp"

namespace tremor::io {

// Model files are hand-written text; anything larger is not one.
inline constexpr std::uintmax_t largest_model_text = std::uintmax_t{64} << 20;

// Refuses a model's text of more than largest_model_text bytes, naming it (`name`: a file, or
// "<python model>") with both sizes, as io::read_file refuses a file.
inline void check_model_text(std::string_view name, std::uintmax_t bytes) {
  if (bytes > largest_model_text)
    throw Error(str(name, ": ", bytes, " bytes is too large for a model file (the limit is ", largest_model_text,
                    ")"));
}

}  // namespace tremor::io
