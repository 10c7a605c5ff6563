// The tremor model file: TOML, documented key by key in docs/model-file.md. This file reads the top
// level and hands each part to its reader (model_file_parts.hpp).
#include "tremor/io/model_file.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "tremor/core/disjoint_sets.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/limits.hpp"
#include "tremor/io/model_file_parts.hpp"
#include "tremor/mesh/defect.hpp"

namespace tremor::io {

namespace {

// The mesh's connected pieces: elements joined through shared nodes (union-find over the nodes).
Index mesh_pieces(const Mesh& mesh) {
  DisjointSets nodes(static_cast<std::size_t>(mesh.n_nodes()));
  std::vector<char> used(static_cast<std::size_t>(mesh.n_nodes()), 0);
  for (const ElementBlock& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e)
      for (const Index n : block.nodes(e)) {
        used[static_cast<std::size_t>(n)] = 1;
        nodes.unite(static_cast<std::size_t>(n), static_cast<std::size_t>(block.nodes(e)[0]));
      }
  Index pieces = 0;
  for (std::size_t i = 0; i < used.size(); ++i)
    if (used[i] && nodes.root(i) == i) ++pieces;
  return pieces;
}

using model_file::explicit_keys;
using model_file::name_where;
using model_file::read_absorbing;
using model_file::read_pressure_release;
using model_file::read_defect;
using model_file::read_crack;
using model_file::read_hole;
using model_file::read_notch;
using model_file::read_excitation;
using model_file::read_material;
using model_file::read_mesh;
using model_file::read_sections;
using model_file::referenced_file;
using model_file::Table;

constexpr std::string_view top_keys[] = {"title",    "mesh",   "material",  "section",    "explicit",
                                         "static",   "source", "traction",  "body_force", "prescribed_displacement",
                                         "receiver", "output", "absorbing", "transducer", "shot",
                                         "array",    "pressure_release"};
// Tables the solvers will read; until they do, the reader warns and ignores them.
constexpr std::string_view reserved_keys[] = {"sem", "bem"};

}  // namespace

Model read_model_buffer(std::string_view text, const std::string& name, const std::string& base_dir,
                        std::optional<int> order, const Mesh* mesh_given, Size generator_limit) {
  const toml::table document = detail::parse_document(text, name);
  Table root(document, name, "top level");
  // A boundary-element model file (docs/bem.md) has [bem] and no [mesh]: point to its command
  // rather than report the [mesh] it does not need.
  if (root.has("bem") && !root.has("mesh"))
    root.fail("bem", str("[bem] holds a boundary-element model: solve it with `tremor bem ", name,
                         "` (docs/bem.md); this command reads finite-element model files ([mesh], [[material]], ...)"));
  std::vector<std::string_view> accepted(std::begin(top_keys), std::end(top_keys));
  accepted.insert(accepted.end(), std::begin(reserved_keys), std::end(reserved_keys));
  root.only(accepted);
  for (std::string_view key : reserved_keys)
    if (root.has(key))
      log::warn(str(name, ":", root.line(key), ": [", key,
                    "] is reserved for the solvers and not read by this version of tremor; ignored"));

  Model model;
  root.collect_files_into(&model.inputs);
  model.source = name;
  model.title = root.string("title").value_or("");
  const auto mesh = root.table("mesh");
  if (!mesh) root.fail_at(0, "missing [mesh] (a 'file' to read or a 'generator')");
  model.mesh = read_mesh(*mesh, base_dir, order, mesh_given, generator_limit);
  if (mesh->has("file"))  // messages about its elements name the mesh file, not this one
    model.mesh_file = referenced_file(*mesh, "file", "mesh file", "the path of a .msh or .inp mesh", base_dir).string();
  // Thickness-loss defects, once the mesh has its order and its sets (found on the plate as it
  // was drawn); sources and receivers at positions then see the lowered surface.
  int defects = 0;
  for (Table table : mesh->tables("defect")) {
    name_where(table);
    model.defects.push_back(read_defect(table, ++defects, base_dir));
  }
  model.defect_effects = apply_defects(model.mesh, model.defects, model.mesh_source());
  // Holes and notches, cut once the mesh has its defects (element and node numbers change).
  int holes = 0;
  for (Table table : mesh->tables("hole")) {
    name_where(table);
    model.holes.push_back(read_hole(table, model.mesh, ++holes));
  }
  int notches = 0;
  for (Table table : mesh->tables("notch")) {
    name_where(table);
    model.holes.push_back(read_notch(table, model.mesh, ++notches));
  }
  // (A cut that splits the part, a notch whose bottom lies on a face or a crack from face to face,
  // leaves a piece free: said, naming the cuts, where they add a piece the mesh had not.)
  const bool cuts = !model.holes.empty() || !mesh->tables("crack").empty();
  const Index pieces = cuts ? mesh_pieces(model.mesh) : 0;
  drill_holes(model.mesh, model.holes);
  // Cracks, cut last: each splits the nodes on it, which a hole's cut would renumber.
  for (Table table : mesh->tables("crack")) {
    name_where(table);
    model.cracks.push_back(read_crack(table, model.mesh, static_cast<int>(model.cracks.size()) + 1));
  }
  cut_cracks(model.mesh, model.cracks);
  if (cuts) {
    const Index after = mesh_pieces(model.mesh);
    if (after > pieces) {
      std::string names;
      for (const Hole& hole : model.holes) names += str(names.empty() ? "" : ", ", "'", hole.name, "'");
      for (const Crack& crack : model.cracks) names += str(names.empty() ? "" : ", ", "'", crack.name, "'");
      log::warn(str(model.source, ": the holes, notches and cracks (", names, ") cut the mesh into ", after,
                    " pieces where it had ", pieces, ": a piece cut off is free (a notch whose bottom lies on a face, "
                    "or a crack from face to face, runs through the part); check them"));
    }
  }

  std::map<std::string, long> material_lines;
  for (Table material : root.tables("material")) {
    Material m = read_material(material, base_dir, model.mesh);
    m.origin = model_file::origin_of(material);
    const auto [first, inserted] = material_lines.emplace(m.name, material.line("name"));
    if (!inserted) material.fail("name", str("material '", m.name, "' is already defined at line ", first->second));
    model.materials.push_back(std::move(m));
  }
  read_sections(root, model);
  read_excitation(root, model, base_dir);
  for (Table table : root.tables("absorbing")) model.absorbing.push_back(read_absorbing(table, model));
  for (Table table : root.tables("pressure_release")) model.fixed.push_back(read_pressure_release(table, model));
  model.validate();
  return model;
}

Model read_excitation_buffer(std::string_view text, const std::string& name, const std::string& base_dir,
                             const Model& base) {
  constexpr std::string_view run_keys[] = {"explicit",                "source",   "traction",   "body_force",
                                           "prescribed_displacement", "receiver", "transducer", "shot",
                                           "array"};
  const toml::table document = detail::parse_document(text, name);
  Table root(document, name, "top level");
  for (const auto& [key, node] : document) {
    const std::string_view k = key.str();
    if (std::find(std::begin(run_keys), std::end(run_keys), k) == std::end(run_keys))
      root.fail(k, str("'", k, "' belongs to the set-up, which its runs keep; a run gives [[source]], [[traction]], "
                       "[[body_force]], [[prescribed_displacement]], [[receiver]], [[transducer]], [[shot]], [[array]] and "
                       "[explicit] duration"));
  }
  if (const auto table = root.table("explicit"))
    for (std::string_view key : explicit_keys)
      if (key != "duration" && table->has(key))
        table->fail(key, str("[explicit] ", key, " is the set-up's; a run gives its duration"));
  Model model = base;
  root.collect_files_into(&model.inputs);  // the set-up's files and the run's
  model.source = name;
  model.point_sources.clear();
  model.surface_loads.clear();
  model.body_forces.clear();
  if (root.has("prescribed_displacement")) model.prescribed.clear();  // else the set-up's constraints
  model.receivers.clear();
  model.transducers.clear();
  model.shots.clear();
  model.arrays.clear();
  model.output.reset();
  const std::optional<ExplicitSettings> kept = model.explicit_settings;
  read_excitation(root, model, base_dir);
  if (root.has("explicit") && kept) {  // the set-up's settings with the run's duration
    const double duration = model.explicit_settings->duration;
    model.explicit_settings = kept;
    if (duration > 0.0) model.explicit_settings->duration = duration;
  }
  model.validate();
  return model;
}

Model read_model_file(const std::string& path, std::optional<int> order) {
  namespace fs = std::filesystem;
  const std::string text = read_file(path, "model file", largest_model_text);
  std::string base_dir = fs::path(path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  return read_model_buffer(text, path, base_dir, order);
}

}  // namespace tremor::io
