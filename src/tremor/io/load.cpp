#include "tremor/io/load.hpp"

#include <cctype>
#include <filesystem>

#include "tremor/core/error.hpp"
#include "tremor/io/abaqus.hpp"
#include "tremor/io/gmsh.hpp"
#include "tremor/io/model_file.hpp"

namespace tremor::io {

Model load_model(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension == ".toml") return read_model_file(path);
  if (extension == ".inp") return read_abaqus(path);
  if (extension == ".msh") {
    Model model;
    model.source = path;
    model.mesh = read_gmsh(path);
    return model;
  }
  throw Error(str(path, ": unknown kind of input '", extension.empty() ? std::string("(no extension)") : extension,
                  "'; expected .toml (tremor model file), .inp (Abaqus/CalculiX input) or .msh (Gmsh mesh)"));
}

}  // namespace tremor::io
