#include "tremor/io/load.hpp"

#include <cctype>
#include <filesystem>

#include "tremor/core/error.hpp"
#include "tremor/io/abaqus.hpp"
#include "tremor/io/gmsh.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/model/elevate.hpp"

namespace tremor::io {

namespace {

Model read_any(const std::string& path, std::optional<int> order) {
  std::string extension = std::filesystem::path(path).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension == ".toml") return read_model_file(path, order);
  Model model;
  if (extension == ".inp") {
    model = read_abaqus(path);
  } else if (extension == ".msh") {
    model.source = path;
    model.mesh = read_gmsh(path);
  } else {
    throw Error(str(path, ": unknown kind of input '", extension.empty() ? std::string("(no extension)") : extension,
                    "'; expected .toml (tremor model file), .inp (Abaqus/CalculiX input) or .msh (Gmsh mesh)"));
  }
  if (order) elevate_order(model, *order);
  return model;
}

}  // namespace

Model load_model(const std::string& path, std::optional<int> order) {
  Model model = read_any(path, order);
  // Every solver needs elements; a deck of nodes alone would "solve" to zeros.
  if (model.mesh.n_elements() == 0)
    throw Error(str(model.mesh.n_nodes() > 0 ? model.source : path, ": the mesh has no elements (",
                    model.mesh.n_nodes(), " nodes); tremor needs elements to solve on"));
  return model;
}

}  // namespace tremor::io
