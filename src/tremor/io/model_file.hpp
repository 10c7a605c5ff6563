#pragma once
// The tremor model file (TOML), documented in docs/model-file.md.
#include <optional>
#include <string>
#include <string_view>

#include "tremor/mesh/generate.hpp"
#include "tremor/model/model.hpp"

namespace tremor::io {

// Reads a model file; a mesh file it names is read relative to the model file's folder. `order`,
// when given, raises the mesh to GLL elements of that order (1..8, mesh/elevate.hpp) in place of
// [mesh] order.
Model read_model_file(const std::string& path, std::optional<int> order = std::nullopt);
// The same from text in memory; `name` stands for the file in messages, mesh files are resolved
// against `base_dir`. With `mesh`, the model's mesh is that one (built in memory: the Python
// package's models): [mesh] then names no file or generator, and its order, box sets and
// defects apply to the mesh given. A [mesh] generator is refused beyond `generator_limit` degrees
// of freedom, elements or connectivity entries (mesh/generate.hpp), before anything is allocated.
Model read_model_buffer(std::string_view text, const std::string& name, const std::string& base_dir,
                        std::optional<int> order = std::nullopt, const Mesh* mesh = nullptr,
                        Size generator_limit = max_generated);

// The loads, receivers, shots and duration of one run of a model already set up
// (explicit_fe::Simulation): `text` holds only [[source]], [[traction]], [[body_force]],
// [[prescribed_displacement]], [[receiver]], [[transducer]], [[shot]] and [explicit] duration,
// read against base's mesh; the result is base with those in place of its own (its prescribed
// displacements kept where the text gives none: constraints belong to the set-up). Anything of the
// set-up (mesh, materials, sections, absorbing layers, the time step) is refused, naming it.
Model read_excitation_buffer(std::string_view text, const std::string& name, const std::string& base_dir,
                             const Model& base);

}  // namespace tremor::io
