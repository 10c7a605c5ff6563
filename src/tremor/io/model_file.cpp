// The tremor model file: TOML, documented key by key in docs/model-file.md.
#include "tremor/io/file.hpp"
#include "tremor/io/model_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>

#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/abaqus.hpp"
#include "tremor/io/gmsh.hpp"
#include "tremor/io/limits.hpp"
#include "tremor/io/model_file_table.hpp"
#include "tremor/mesh/defect.hpp"
#include "tremor/mesh/elevate.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/elevate.hpp"

namespace tremor::io {

namespace {

using detail::choice;
using detail::Table;

constexpr std::string_view top_keys[] = {"title",    "mesh",   "material",  "section",    "explicit",
                                         "static",   "source", "traction",  "body_force", "prescribed_displacement",
                                         "receiver", "output", "absorbing", "transducer", "shot"};
// Tables the solvers will read; until they do, the reader warns and ignores them.
constexpr std::string_view reserved_keys[] = {"sem", "bem"};
constexpr std::string_view mesh_keys[] = {"file",    "generator", "element",     "origin",  "size",  "divisions",
                                          "grading", "node_set",  "element_set", "surface", "order", "defect"};
constexpr std::string_view generator_only_keys[] = {"element", "origin", "size", "divisions", "grading"};
constexpr std::string_view generators[] = {"rectangle", "box"};
constexpr std::string_view set_keys[] = {"name", "min", "max"};
constexpr std::string_view material_keys[] = {
    "name",         "density",      "damping_alpha", "youngs_modulus", "poisson_ratio",  "lame_lambda", "shear_modulus",
    "p_wave_speed", "s_wave_speed", "stiffness",     "youngs_moduli",  "poisson_ratios", "shear_moduli"};
constexpr std::string_view section_keys[] = {"element_set", "material", "formulation", "thickness"};
constexpr std::string_view formulations[] = {"solid", "plane_strain", "plane_stress"};


std::vector<std::string_view> views(const std::vector<std::string>& names) {
  return std::vector<std::string_view>(names.begin(), names.end());
}

template <class Map>
std::vector<std::string> names_of(const Map& map) {
  std::vector<std::string> names;
  for (const auto& entry : map) names.push_back(entry.first);
  return names;
}

// "a, b, c" (at most `shown` names, then "and N more").
std::string listing(const std::vector<std::string>& names, std::size_t shown = 12) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) out += str(i ? ", " : "", "'", names[i], "'");
  if (names.size() > shown) out += str(" and ", names.size() - shown, " more");
  return out.empty() ? "none" : out;
}

// ---------------------------------------------------------------------------------------------
// [mesh]

Mesh generate_mesh(const Table& mesh) {
  const std::string generator = mesh.required_string("generator", "\"rectangle\" or \"box\", or 'file'");
  if (std::find(std::begin(generators), std::end(generators), generator) == std::end(generators))
    mesh.fail("generator", str("unknown generator '", generator, "'; expected \"rectangle\" or \"box\"",
                               suggestion(generator, generators)));
  const int dim = generator == "rectangle" ? 2 : 3;
  const auto axes = static_cast<std::size_t>(dim);

  const std::string name = mesh.required_string(
      "element", dim == 2 ? "tri3, tri6, quad4, quad8 or quad-gllP" : "tet4, tet10, hex8, hex20 or hex-gllP");
  ElementType type{};
  int order = 1;
  try {
    parse_element_name(name, type, order);
  } catch (const Error& e) {
    mesh.fail("element", e.what());
  }
  if (dimension(type) != dim)
    mesh.fail("element",
              str("element '", name, "' is ", dimension(type), "D; the ", generator, " generator takes ",
                  dim == 2 ? "tri3, tri6, quad4, quad8 or quad-gllP" : "tet4, tet10, hex8, hex20 or hex-gllP"));

  const std::vector<double> origin = mesh.numbers("origin", axes).value_or(std::vector<double>(axes, 0.0));
  const auto size = mesh.numbers("size", axes);
  if (!size) mesh.fail("size", str("missing 'size' (", dim, " lengths along x, y", dim == 3 ? ", z" : "", ", m)"));
  const auto divisions = mesh.integers("divisions", axes);
  if (!divisions) mesh.fail("divisions", str("missing 'divisions' (", dim, " numbers of cells along each axis)"));
  const std::vector<double> grading = mesh.numbers("grading", axes).value_or(std::vector<double>(axes, 1.0));
  for (std::size_t d = 0; d < axes; ++d) {
    if (!((*size)[d] > 0.0)) mesh.fail("size", str("'size'[", d, "] is ", (*size)[d], "; lengths must be positive"));
    if (!std::isfinite(origin[d] + (*size)[d])) mesh.fail("size", str("'origin'[", d, "] + 'size'[", d, "] overflows"));
    if ((*divisions)[d] < 1)
      mesh.fail("divisions", str("'divisions'[", d, "] is ", (*divisions)[d], "; expected at least 1 cell"));
    if (!(grading[d] > 0.0))
      mesh.fail("grading", str("'grading'[", d, "] is ", grading[d], "; expected a positive ratio of cell sizes"));
  }
  try {
    if (dim == 2)
      return generate_rectangle({origin[0], origin[1]}, {(*size)[0], (*size)[1]}, {(*divisions)[0], (*divisions)[1]},
                                type, order, {grading[0], grading[1]});
    return generate_box({origin[0], origin[1], origin[2]}, {(*size)[0], (*size)[1], (*size)[2]},
                        {(*divisions)[0], (*divisions)[1], (*divisions)[2]}, type, order,
                        {grading[0], grading[1], grading[2]});
  } catch (const Error& e) {
    // What is left after the checks above: too many cells, or grading too strong for them.
    mesh.fail("divisions", e.what());
  }
}

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The files referenced_file() resolved while a model file is read (Model::inputs): set by
// read_model_buffer and read_excitation_buffer for the time they read.
thread_local std::vector<std::string>* files_read = nullptr;

struct CollectFilesRead {
  explicit CollectFilesRead(std::vector<std::string>& into) : previous(files_read) { files_read = &into; }
  ~CollectFilesRead() { files_read = previous; }
  CollectFilesRead(const CollectFilesRead&) = delete;
  CollectFilesRead& operator=(const CollectFilesRead&) = delete;
  std::vector<std::string>* previous;
};

// The file a table's `key` names, resolved against the model file's folder: refused, naming the
// key, when the name is empty, when the model has no folder (given in memory) or when no regular
// file is there. `what` names the kind ("mesh file"), `expected` what an empty name should be,
// `hint` ends the not-found message.
std::filesystem::path referenced_file(const Table& table, std::string_view key, std::string_view what,
                                      std::string_view expected, const std::string& base_dir,
                                      std::string_view hint = "") {
  namespace fs = std::filesystem;
  const std::string file = *table.string(key);
  if (file.empty()) table.fail(key, str("'", key, "' is empty; expected ", expected));
  if (base_dir.empty())
    table.fail(key, str(what, " '", file,
                        "' cannot be read: this model was given in memory with no folder to resolve it against"));
  const fs::path path = fs::path(base_dir) / fs::path(file);
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (fs::is_directory(status))
    table.fail(key, str(what, " '", file, "' is a folder (", path.string(), "); expected ", expected));
  if (fs::exists(status) && !fs::is_regular_file(status))
    table.fail(key, str(what, " '", file, "' is not a regular file (", path.string(), "); expected ", expected));
  if (!fs::is_regular_file(status))
    table.fail(key, str(what, " '", file, "' not found (looked for ", path.string(), ")", hint));
  if (files_read && std::find(files_read->begin(), files_read->end(), path.string()) == files_read->end())
    files_read->push_back(path.string());
  return path;
}

Mesh read_mesh_file(const Table& mesh, const std::string& base_dir) {
  namespace fs = std::filesystem;
  for (std::string_view key : generator_only_keys)
    if (mesh.has(key))
      mesh.fail(key, str("'", key, "' belongs to generated meshes; a mesh 'file' defines its own elements and nodes"));
  const fs::path path = referenced_file(mesh, "file", "mesh file", "the path of a .msh or .inp mesh", base_dir);
  const std::string extension = lowercase(path.extension().string());
  if (extension == ".msh") {
    Mesh result = read_gmsh(path.string());
    result.validate(path.string());
    return result;
  }
  if (extension == ".inp") {
    Mesh result = read_abaqus_mesh(path.string());
    result.validate(path.string());
    return result;
  }
  mesh.fail("file", str("mesh file '", *mesh.string("file"), "' has extension '", path.extension().string(),
                        "'; expected .msh (Gmsh) or .inp (Abaqus/CalculiX)"));
}

// The mesh's bounding box, and the tolerance of 1e-9 of its extent by which boxes and positions
// are widened (a box drawn on a face of a generated mesh catches the nodes whose coordinates carry
// rounding): one pass over the nodes, once per model rather than once per box or position.
struct Bounds {
  int dim = 3;
  double lower[3] = {0.0, 0.0, 0.0}, upper[3] = {0.0, 0.0, 0.0};
  double tolerance = 0.0;
  explicit Bounds(const Mesh& mesh) : dim(mesh.dim()) {
    mesh.bounding_box(lower, upper);
    double extent = 0.0;
    for (int d = 0; d < dim; ++d) extent = std::max(extent, upper[d] - lower[d]);
    tolerance = 1e-9 * extent;
  }
  std::string span() const {
    std::string text;
    for (int d = 0; d < dim; ++d) text += str(d ? " x " : "", "[", lower[d], ", ", upper[d], "]");
    return text;
  }
};

// Nodes (or element centroids) within the closed box [min, max], widened by the bounds' tolerance.
void add_box_sets(Mesh& mesh, const Table& table, const Bounds& bounds, bool nodes) {
  const std::string_view kind = nodes ? "node_set" : "element_set";
  const auto axes = static_cast<std::size_t>(mesh.dim());
  const double tolerance = bounds.tolerance;
  for (Table set : table.tables(kind)) {
    set.only(set_keys);
    const std::string name = set.required_string("name", str("the ", nodes ? "node" : "element", " set's name"));
    if (name.empty()) set.fail("name", "'name' is empty");
    set.set_where(str(set.where(), " '", name, "'"));
    const auto& existing = nodes ? mesh.node_sets : mesh.element_sets;
    if (existing.count(name)) set.fail("name", str(nodes ? "node" : "element", " set '", name, "' already exists"));
    const auto box_min = set.numbers("min", axes), box_max = set.numbers("max", axes);
    if (!box_min) set.fail("min", str("missing 'min' (the box's lower corner, ", axes, " coordinates, m)"));
    if (!box_max) set.fail("max", str("missing 'max' (the box's upper corner, ", axes, " coordinates, m)"));
    for (std::size_t d = 0; d < axes; ++d)
      if ((*box_max)[d] < (*box_min)[d])
        set.fail("max", str("'max'[", d, "] = ", (*box_max)[d], " is below 'min'[", d, "] = ", (*box_min)[d]));
    const auto inside = [&](const double* x) {
      for (std::size_t d = 0; d < axes; ++d)
        if (x[d] < (*box_min)[d] - tolerance || x[d] > (*box_max)[d] + tolerance) return false;
      return true;
    };
    std::vector<Index> members;
    if (nodes) {
      for (Index i = 0; i < mesh.n_nodes(); ++i)
        if (inside(mesh.node(i).data())) members.push_back(i);
    } else {
      Index global = 0;
      for (const auto& block : mesh.blocks)
        for (Index e = 0; e < block.n_elements(); ++e, ++global) {
          double centroid[3] = {0.0, 0.0, 0.0};
          const auto element = block.nodes(e);
          for (Index node : element)
            for (std::size_t d = 0; d < axes; ++d) centroid[d] += mesh.node(node)[d];
          for (std::size_t d = 0; d < axes; ++d) centroid[d] /= static_cast<double>(element.size());
          if (inside(centroid)) members.push_back(global);
        }
    }
    if (members.empty())
      set.fail("min", str("the box holds no ", nodes ? "node" : "element centroid", "; the mesh spans ", bounds.span()));
    (nodes ? mesh.node_sets : mesh.element_sets)[name] = std::move(members);
  }
}

// Surfaces of the boundary faces whose nodes all lie within the box [min, max] (widened as for
// the node sets).
void add_box_surfaces(Mesh& mesh, const Table& table, const Bounds& bounds) {
  const auto axes = static_cast<std::size_t>(mesh.dim());
  const double tolerance = bounds.tolerance;
  for (Table set : table.tables("surface")) {
    set.only(set_keys);
    const std::string name = set.required_string("name", "the surface's name, used by [[traction]]");
    if (name.empty()) set.fail("name", "'name' is empty");
    set.set_where(str(set.where(), " '", name, "'"));
    if (mesh.face_sets.count(name)) set.fail("name", str("surface '", name, "' already exists"));
    const auto box_min = set.numbers("min", axes), box_max = set.numbers("max", axes);
    if (!box_min) set.fail("min", str("missing 'min' (the box's lower corner, ", axes, " coordinates, m)"));
    if (!box_max) set.fail("max", str("missing 'max' (the box's upper corner, ", axes, " coordinates, m)"));
    for (std::size_t d = 0; d < axes; ++d)
      if ((*box_max)[d] < (*box_min)[d])
        set.fail("max", str("'max'[", d, "] = ", (*box_max)[d], " is below 'min'[", d, "] = ", (*box_min)[d]));
    const auto inside = [&](std::span<const double> x) {
      for (std::size_t d = 0; d < axes; ++d)
        if (x[d] < (*box_min)[d] - tolerance || x[d] > (*box_max)[d] + tolerance) return false;
      return true;
    };
    // Only faces with every corner in the box can qualify: index those alone.
    std::vector<bool> in_box(static_cast<std::size_t>(mesh.n_nodes()));
    for (Index i = 0; i < mesh.n_nodes(); ++i) in_box[static_cast<std::size_t>(i)] = inside(mesh.node(i));
    std::vector<Face> members;
    for (const Face& face : FaceIndex(mesh, &in_box).boundary()) {
      const ElementRef ref = mesh.locate(face.element);
      const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
      const auto nodes = block.nodes(ref.element);
      int local[max_face_nodes];
      const int n = face_nodes(block.type, block.order, face.face, local);
      bool all = true;
      for (int a = 0; a < n && all; ++a)
        all = in_box[static_cast<std::size_t>(nodes[static_cast<std::size_t>(local[a])])];
      if (all) members.push_back(face);
    }
    if (members.empty())
      set.fail("min", str("the box holds no boundary face (a face is in it when all its nodes are); the mesh spans ",
                          bounds.span()));
    mesh.face_sets[name] = std::move(members);
  }
}

// The GLL order the mesh is raised to: `order` (the caller's, e.g. `tremor run --order`) when
// given, else [mesh] order; 0 when neither asks.
int mesh_order(const Table& mesh, std::optional<int> order) {
  const auto value = mesh.integer("order");
  if (value && (*value < 1 || *value > max_gll_order))
    mesh.fail("order", str("'order' is ", *value, "; expected the GLL order of the elements, 1..", max_gll_order));
  if (order) return *order;
  return value ? static_cast<int>(*value) : 0;
}

Mesh read_mesh(const Table& mesh, const std::string& base_dir, std::optional<int> order, const Mesh* given) {
  mesh.only(mesh_keys);
  const bool from_file = mesh.has("file"), generated = mesh.has("generator");
  if (given && (from_file || generated))
    mesh.fail(from_file ? "file" : "generator",
              str("[mesh] takes no '", from_file ? "file" : "generator", "' for a model whose mesh is given with it"));
  if (given) {
    for (std::string_view key : generator_only_keys)
      if (mesh.has(key)) mesh.fail(key, str("'", key, "' is a generator's; this model's mesh is given with it"));
  } else if (from_file && generated)
    mesh.fail("generator", "[mesh] takes either 'file' (a mesh file) or 'generator' (a structured mesh), not both");
  else if (!from_file && !generated)
    mesh.fail_at(mesh.line(), "missing 'file' (a .msh or .inp mesh) or 'generator' (\"rectangle\" or \"box\")");
  if (from_file) (void)mesh.string("file");  // type check before anything else
  const int elevate_to = mesh_order(mesh, order);
  Mesh result = given ? *given : from_file ? read_mesh_file(mesh, base_dir) : generate_mesh(mesh);
  // Raised to GLL order before anything else (box sets, sources at positions) sees the mesh, so
  // they find the GLL nodes. Errors name the mesh file; for a generated mesh, the model file at
  // its 'order' line when that asked.
  if (elevate_to > 0) {
    std::string source = mesh.file();
    if (from_file)
      source = referenced_file(mesh, "file", "mesh file", "", base_dir).string();
    else if (!order && mesh.has("order"))
      source = str(mesh.file(), ":", mesh.line("order"));
    check_elevation_fits(result, elevate_to, source);  // before any of it is allocated
    result = elevate_order(result, elevate_to, source);
  }
  // Every mesh has the element set "all", which the default section uses.
  if (!result.element_sets.count("all")) {
    std::vector<Index> all(static_cast<std::size_t>(result.n_elements()));
    for (std::size_t e = 0; e < all.size(); ++e) all[e] = static_cast<Index>(e);
    result.element_sets["all"] = std::move(all);
  }
  const Bounds bounds(result);
  add_box_sets(result, mesh, bounds, true);
  add_box_sets(result, mesh, bounds, false);
  add_box_surfaces(result, mesh, bounds);
  return result;
}

// ---------------------------------------------------------------------------------------------
// [[material]]

struct ElasticForm {
  std::vector<std::string_view> keys;
};

const ElasticForm elastic_forms[] = {{{"youngs_modulus", "poisson_ratio"}},
                                     {{"lame_lambda", "shear_modulus"}},
                                     {{"p_wave_speed", "s_wave_speed"}},
                                     {{"stiffness"}},
                                     {{"youngs_moduli", "poisson_ratios", "shear_moduli"}}};

Voigt6 read_stiffness(const Table& material) {
  const toml::node& node = *material.node("stiffness");
  const auto* array = node.as_array();
  Voigt6 c{};
  const std::string expected =
      "'stiffness' must be 6 rows of 6 numbers or 21 numbers (the upper triangle row by row), Pa";
  if (!array) material.fail("stiffness", str(expected, "; got ", detail::describe(node)));
  if (array->size() == 21) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < 6; ++i)
      for (std::size_t j = i; j < 6; ++j, ++k) {
        const double value = detail::number_of((*array)[k], material, str("'stiffness'[", k, "]"));
        c[6 * i + j] = c[6 * j + i] = value;
      }
    return c;
  }
  if (array->size() != 6) material.fail("stiffness", str(expected, "; got ", detail::describe(node)));
  for (std::size_t i = 0; i < 6; ++i) {
    const auto* row = (*array)[i].as_array();
    if (!row || row->size() != 6)
      material.fail_at(detail::line_of((*array)[i]),
                       str(expected, "; row ", i + 1, " is ", detail::describe((*array)[i])));
    for (std::size_t j = 0; j < 6; ++j)
      c[6 * i + j] = detail::number_of((*row)[j], material, str("'stiffness'[", i, "][", j, "]"));
  }
  return c;
}

Material read_material(Table& material) {
  material.only(material_keys);
  const std::string name = material.required_string("name", "the material's name, used by [[section]]");
  if (name.empty()) material.fail("name", "'name' is empty");
  material.set_where(str(material.where(), " '", name, "'"));
  const double density = material.required_number("density", "kg/m^3");
  if (!(density > 0.0))
    material.fail("density", str("'density' is ", density, "; expected a positive density, kg/m^3"));
  if (density < smallest_material_constant || density > largest_material_constant)
    material.fail("density", str("'density' is ", density, "; expected a density within [", smallest_material_constant,
                                 ", ", largest_material_constant, "] kg/m^3, the magnitudes of a material"));
  const double damping = material.number("damping_alpha", 0.0);
  if (!(damping >= 0.0))
    material.fail("damping_alpha", str("'damping_alpha' is ", damping, "; expected a non-negative rate, 1/s"));

  // The elastic keys given, in the order they appear.
  std::vector<std::string_view> given;
  for (const auto& form : elastic_forms)
    for (std::string_view key : form.keys)
      if (material.has(key)) given.push_back(key);
  std::sort(given.begin(), given.end(),
            [&](std::string_view a, std::string_view b) { return material.line(a) < material.line(b); });
  const ElasticForm* chosen = nullptr;
  for (const auto& form : elastic_forms) {
    const bool all_given = std::all_of(form.keys.begin(), form.keys.end(), [&](auto key) { return material.has(key); });
    if (all_given && form.keys.size() == given.size()) chosen = &form;
  }
  if (!chosen) {
    std::string got;
    for (std::size_t i = 0; i < given.size(); ++i) got += str(i ? ", " : "", given[i]);
    material.fail_at(given.empty() ? material.line() : material.line(given.front()),
                     str("give exactly one set of elastic constants: youngs_modulus + poisson_ratio, lame_lambda + "
                         "shear_modulus, p_wave_speed + s_wave_speed, stiffness (6x6 or 21 values), or youngs_moduli + "
                         "poisson_ratios + shear_moduli (orthotropic); got ",
                         given.empty() ? std::string("none") : got));
  }
  // Types are checked here, each error naming its own key; what the constructors reject
  // (Poisson's ratio out of range, a stiffness that is not positive definite) is reported at the
  // first elastic key given.
  const std::string_view first = chosen->keys.front();
  std::vector<double> values;  // the pair, or E1 E2 E3 nu12 nu13 nu23 G12 G13 G23
  Voigt6 stiffness{};
  if (first == "stiffness") {
    stiffness = read_stiffness(material);
  } else if (first == "youngs_moduli") {
    for (std::string_view key : chosen->keys) {
      const std::vector<double> triple = *material.numbers(key, 3);
      values.insert(values.end(), triple.begin(), triple.end());
    }
  } else {
    for (std::string_view key : chosen->keys) values.push_back(*material.number(key));
  }
  // Each modulus within the magnitudes of a material, named by its key (Poisson's ratios are
  // ratios; wave speeds are checked through the moduli they give).
  for (std::string_view key : chosen->keys) {
    if (key.find("poisson") != std::string_view::npos || key.find("speed") != std::string_view::npos) continue;
    const std::vector<double> given_values =
        key == "stiffness" ? std::vector<double>(stiffness.begin(), stiffness.end())
        : key.ends_with("moduli") ? *material.numbers(key, 3)
                             : std::vector<double>{*material.number(key)};
    for (const double value : given_values)
      if (std::abs(value) > largest_material_constant || (value != 0.0 && std::abs(value) < smallest_material_constant))
        material.fail(key, str("'", key, "' holds ", value, " Pa; expected moduli within [",
                               smallest_material_constant, ", ", largest_material_constant,
                               "] Pa in magnitude, the magnitudes of a material"));
  }
  Material result;
  try {
    if (first == "youngs_modulus") {
      result = Material::from_youngs(name, values[0], values[1], density);
    } else if (first == "lame_lambda") {
      result = Material::from_lame(name, values[0], values[1], density);
    } else if (first == "p_wave_speed") {
      result = Material::from_speeds(name, values[0], values[1], density);
    } else if (first == "stiffness") {
      result = Material::from_stiffness(name, stiffness, density);
    } else {
      result = Material::from_engineering_constants(name, values[0], values[1], values[2], values[3], values[4],
                                                    values[5], values[6], values[7], values[8], density);
    }
  } catch (const Error& error) {
    throw_input_error(material.file(), material.line(given.front()), error.what());
  }
  result.damping_alpha = damping;
  return result;
}

// ---------------------------------------------------------------------------------------------
// [[section]]

Section read_section(const Table& section, const Model& model) {
  section.only(section_keys);
  Section result;
  const Mesh& mesh = model.mesh;
  result.element_set = section.string("element_set").value_or("all");
  if (!mesh.element_sets.count(result.element_set)) {
    const auto names = names_of(mesh.element_sets);
    section.fail("element_set",
                 str("no element set named '", result.element_set, "'",
                     suggestion(result.element_set, views(names)), "; the mesh has ", listing(names)));
  }
  result.material = section.required_string("material", "the name of a [[material]]");
  std::vector<std::string> materials;
  for (const auto& m : model.materials) materials.push_back(m.name);
  if (std::find(materials.begin(), materials.end(), result.material) == materials.end())
    section.fail("material",
                 str("no material named '", result.material, "'", suggestion(result.material, views(materials)),
                     "; the model defines ", listing(materials)));
  const std::string formulation = section.string("formulation").value_or(mesh.dim() == 2 ? "plane_strain" : "solid");
  if (formulation == "solid") {
    result.formulation = Formulation::Solid;
  } else if (formulation == "plane_strain") {
    result.formulation = Formulation::PlaneStrain;
  } else if (formulation == "plane_stress") {
    result.formulation = Formulation::PlaneStress;
  } else {
    section.fail("formulation",
                 str("unknown formulation '", formulation, "'", suggestion(formulation, formulations),
                     "; expected \"plane_strain\" or \"plane_stress\" (2D) or \"solid\" (3D)"));
  }
  if ((result.formulation == Formulation::Solid) != (mesh.dim() == 3))
    section.fail("formulation", str("formulation '", formulation, "' does not fit a ", mesh.dim(), "D mesh; expected ",
                                    mesh.dim() == 2 ? "\"plane_strain\" or \"plane_stress\"" : "\"solid\""));
  if (section.has("thickness")) {
    if (mesh.dim() == 3) section.fail("thickness", "'thickness' applies to 2D sections only");
    result.thickness = *section.number("thickness");
    if (!(result.thickness > 0.0))
      section.fail("thickness", str("'thickness' is ", result.thickness, "; expected a positive length, m"));
  }
  return result;
}

void read_sections(const Table& root, Model& model) {
  const std::vector<Table> sections = root.tables("section");
  if (sections.empty()) {
    if (model.materials.size() == 1) {
      Section only;
      only.element_set = "all";
      only.material = model.materials.front().name;
      only.formulation = model.mesh.dim() == 2 ? Formulation::PlaneStrain : Formulation::Solid;
      model.sections.push_back(only);
    } else if (model.materials.size() > 1) {
      root.fail("material", str(model.materials.size(),
                                " materials but no [[section]] assigns them to element sets (only a model with one "
                                "material may leave sections out)"));
    }
    return;
  }
  // Owner of each element, to report overlaps and gaps at the section's line.
  std::vector<int> owner(static_cast<std::size_t>(model.mesh.n_elements()), -1);
  for (std::size_t s = 0; s < sections.size(); ++s) {
    const Table& table = sections[s];
    Section section = read_section(table, model);
    for (Index e : model.mesh.element_sets.at(section.element_set)) {
      int& o = owner[static_cast<std::size_t>(e)];
      if (o >= 0)
        table.fail("element_set",
                   str("element ", model.mesh.element_label(e), " of set '", section.element_set,
                       "' already has a section: the one on '", model.sections[static_cast<std::size_t>(o)].element_set,
                       "' at line ", sections[static_cast<std::size_t>(o)].line()));
      o = static_cast<int>(s);
    }
    model.sections.push_back(std::move(section));
  }
  const auto gap = std::find(owner.begin(), owner.end(), -1);
  if (gap != owner.end()) {
    const auto missing = std::count(owner.begin(), owner.end(), -1);
    sections.front().fail_at(sections.front().line(),
                             str("element ", model.mesh.element_label(static_cast<Index>(gap - owner.begin())),
                                 missing > 1 ? str(" and ", missing - 1, " others have") : std::string(" has"),
                                 " no section; every element needs one [[section]]"));
  }
}

// ---------------------------------------------------------------------------------------------
// [explicit], [static], [[source]], [[traction]], [[body_force]], [[prescribed_displacement]],
// [[receiver]]

std::string origin_of(const Table& table) { return str(table.file(), ":", table.line()); }

// The entries of `key`: a non-empty array of strings, each one of `options` and none twice; the
// index in `options` of each, in order. `form` describes the array ("an array such as [...]"),
// `entry` what each must be ("a string"); `unknown(i, name)` words the message for entry i when
// it is not an option. Every message names the entry's line.
std::vector<std::size_t> choice_list(const Table& table, std::string_view key, std::span<const std::string_view> options,
                                     std::string_view form, std::string_view entry,
                                     const std::function<std::string(std::size_t, const std::string&)>& unknown) {
  const toml::node& node = *table.node(key);
  const auto* array = node.as_array();
  if (!array || array->empty()) table.fail(key, str("'", key, "' must be ", form, ", got ", detail::describe(node)));
  std::vector<std::size_t> picked;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const auto* name = (*array)[i].as_string();
    const long line = detail::line_of((*array)[i]);
    if (!name) table.fail_at(line, str("'", key, "'[", i, "] must be ", entry, ", got ", detail::describe((*array)[i])));
    const auto found = std::find(options.begin(), options.end(), name->get());
    if (found == options.end()) table.fail_at(line, unknown(i, name->get()));
    const auto index = static_cast<std::size_t>(found - options.begin());
    if (std::find(picked.begin(), picked.end(), index) != picked.end())
      table.fail_at(line, str("'", key, "' lists '", name->get(), "' twice"));
    picked.push_back(index);
  }
  return picked;
}

double positive(const Table& table, std::string_view key, std::string_view meaning) {
  const double value = table.required_number(key, meaning);
  if (!(value > 0.0)) table.fail(key, str("'", key, "' is ", value, "; expected a positive number (", meaning, ")"));
  return value;
}

double non_negative(const Table& table, std::string_view key, std::string_view meaning) {
  const double value = table.number(key, 0.0);
  if (!(value >= 0.0)) table.fail(key, str("'", key, "' is ", value, "; expected a non-negative number (", meaning, ")"));
  return value;
}

// The name of an existing, non-empty node set given by `key`, and its nodes.
std::pair<std::string, std::vector<Index>> node_set_of(const Table& table, const Mesh& mesh,
                                                       std::string_view key = "node_set") {
  const std::string name = *table.string(key);
  const auto set = mesh.node_sets.find(name);
  if (set == mesh.node_sets.end()) {
    const auto names = names_of(mesh.node_sets);
    table.fail(key, str("no node set named '", name, "'", suggestion(name, views(names)), "; the mesh has ",
                        listing(names)));
  }
  if (set->second.empty()) table.fail(key, str("node set '", name, "' is empty"));
  return {name, set->second};
}

// dim numbers as a 3-vector (z = 0 in 2D).
std::array<double, 3> vector_of(const Table& table, std::string_view key, int dim, std::string_view meaning) {
  const auto values = table.numbers(key, static_cast<std::size_t>(dim));
  if (!values) table.fail(key, str("missing '", key, "' (", meaning, ")"));
  std::array<double, 3> out{0.0, 0.0, 0.0};
  for (std::size_t d = 0; d < values->size(); ++d) out[d] = (*values)[d];
  return out;
}

// A unit vector from `key`; a zero vector is an error.
std::array<double, 3> direction_of(const Table& table, std::string_view key, int dim) {
  std::array<double, 3> direction =
      vector_of(table, key, dim, str(dim, " components of the direction; they are normalised"));
  // Scaled by its largest component first, so that neither [1e308, 1e308] nor [1e-320, 0]
  // overflows or underflows the norm.
  const double largest = std::max({std::abs(direction[0]), std::abs(direction[1]), std::abs(direction[2])});
  if (!(largest > 0.0)) table.fail(key, str("'", key, "' is the zero vector; expected a direction"));
  for (double& c : direction) c /= largest;
  const double norm = std::sqrt(direction[0] * direction[0] + direction[1] * direction[1] + direction[2] * direction[2]);
  for (double& c : direction) c /= norm;
  return direction;
}

// A position inside the mesh's bounding box (widened as the box sets are).
std::array<double, 3> position_in(const Table& table, const toml::node& node, const Bounds& bounds,
                                  const std::string& what) {
  const int dim = bounds.dim;
  const auto* array = node.as_array();
  if (!array || array->size() != static_cast<std::size_t>(dim))
    table.fail_at(detail::line_of(node),
                  str(what, " must be an array of ", dim, " coordinates, m; got ", detail::describe(node)));
  std::array<double, 3> x{0.0, 0.0, 0.0};
  for (std::size_t d = 0; d < array->size(); ++d) x[d] = detail::number_of((*array)[d], table, str(what, "[", d, "]"));
  for (int d = 0; d < dim; ++d) {
    const auto k = static_cast<std::size_t>(d);
    if (x[k] < bounds.lower[d] - bounds.tolerance || x[k] > bounds.upper[d] + bounds.tolerance)
      table.fail_at(detail::line_of(node), str(what, " lies outside the mesh, which spans ", bounds.span()));
  }
  return x;
}

constexpr std::string_view signal_kinds[] = {"tone_burst", "gaussian", "ricker", "tabulated"};
constexpr std::string_view tone_burst_keys[] = {"kind", "frequency", "cycles"};
constexpr std::string_view gaussian_keys[] = {"kind", "sharpness", "centre"};
constexpr std::string_view ricker_keys[] = {"kind", "frequency", "centre"};
constexpr std::string_view tabulated_keys[] = {"kind", "file", "points"};
// Signal tables are small; a larger file is not one.
constexpr std::uintmax_t largest_signal_file = 64u << 20;

Signal read_tabulated(const Table& signal, const std::string& base_dir) {
  namespace fs = std::filesystem;
  if (signal.has("file") == signal.has("points"))
    signal.fail_at(signal.line(), "a tabulated signal takes either 'file' (a CSV of time,value) or 'points', not both");
  if (signal.has("points")) {
    const toml::node& node = *signal.node("points");
    const auto* array = node.as_array();
    if (!array || array->empty())
      signal.fail("points", str("'points' must be an array of [time, value] pairs, got ", detail::describe(node)));
    std::vector<std::pair<double, double>> points;
    points.reserve(array->size());
    // A finite float or an integer, read without formatting anything unless it fails (a table
    // from Python holds millions of points).
    const auto number = [&](const toml::node& node, std::size_t i, int k) {
      if (const auto* real = node.as_floating_point(); real && std::isfinite(real->get())) return real->get();
      if (const auto* integer = node.as_integer()) return static_cast<double>(integer->get());
      return detail::number_of(node, signal, str("'points'[", i, "][", k, "]"));  // throws, naming it
    };
    for (std::size_t i = 0; i < array->size(); ++i) {
      const toml::node& pair = (*array)[i];
      const auto* two = pair.as_array();
      if (!two || two->size() != 2)
        signal.fail_at(detail::line_of(pair),
                       str("'points'[", i, "] must be a pair [time, value], got ", detail::describe(pair)));
      const double t = number((*two)[0], i, 0);
      const double v = number((*two)[1], i, 1);
      if (!points.empty() && !(t > points.back().first))
        signal.fail_at(detail::line_of(pair), str("'points'[", i, "] has time ", t, ", not after the previous ",
                                                  points.back().first, "; times must increase strictly"));
      points.emplace_back(t, v);
    }
    try {
      return Signal::tabulated(std::move(points), str(signal.where(), " points"));
    } catch (const Error& error) {  // what the points give (their spacing), at the table's line
      throw_input_error(signal.file(), signal.line("points"), error.what());
    }
  }
  const fs::path path =
      referenced_file(signal, "file", "signal file", "the path of a CSV file of time,value lines", base_dir);
  Signal table = Signal::parse_table(read_file(path.string(), "signal file", largest_signal_file), path.string());
  try {
    table.check(path.string());
  } catch (const Error& error) {
    signal.fail("file", error.what());
  }
  return table;
}

// What a load of a static model without a signal holds: 1 at all times (a step at t = 0 should
// an explicit run be made of the model anyway).
Signal constant_signal() { return Signal::tabulated({{0.0, 1.0}}, "constant"); }

Signal read_signal(const Table& owner, const std::string& base_dir) {
  if (!owner.has("signal"))
    owner.fail_at(owner.line(), "missing 'signal' (a table such as { kind = \"tone_burst\", frequency = 5e6, "
                                "cycles = 5 })");
  const toml::node& node = *owner.node("signal");
  if (!node.as_table())
    owner.fail("signal", str("'signal' must be a table such as { kind = \"ricker\", frequency = 1e5 }, got ",
                             detail::describe(node)));
  Table signal(*node.as_table(), owner.file(), str(owner.where(), ": signal"));
  const std::string kind = signal.required_string("kind", choices(signal_kinds));
  if (std::find(std::begin(signal_kinds), std::end(signal_kinds), kind) == std::end(signal_kinds))
    signal.fail("kind", str("unknown signal kind '", kind, "'", suggestion(kind, signal_kinds),
                            "; expected ", choices(signal_kinds)));
  signal.set_where(str(owner.where(), ": ", kind, " signal"));
  const double no_centre = std::nan("");
  // A frequency (or, squared, a sharpness) within the signals' magnitudes, named by its key.
  const auto rate = [&](std::string_view key, std::string_view meaning, int power) {
    const double value = positive(signal, key, meaning);
    const double lowest = std::pow(smallest_signal_frequency, power), highest = std::pow(largest_signal_frequency, power);
    if (value < lowest || value > highest)
      signal.fail(key, str("'", key, "' is ", value, "; expected ", lowest, " to ", highest, " (", meaning,
                           "): beyond, no signal, and its phase or period overflows"));
    return value;
  };
  // What the signal derives from its keys (the highest frequency) is refused at the table's line.
  try {
    if (kind == "tone_burst") {
      signal.only(tone_burst_keys);
      const double frequency = rate("frequency", "Hz", 1);
      return Signal::tone_burst(frequency, positive(signal, "cycles", "the number of cycles"));
    }
    if (kind == "gaussian") {
      signal.only(gaussian_keys);
      return Signal::gaussian(rate("sharpness", "b in exp(-b (t - centre)^2), 1/s^2", 2),
                              signal.number("centre").value_or(no_centre));
    }
    if (kind == "ricker") {
      signal.only(ricker_keys);
      return Signal::ricker(rate("frequency", "peak frequency, Hz", 1), signal.number("centre").value_or(no_centre));
    }
  } catch (const Error& error) {
    if (std::string_view(error.what()).starts_with(signal.file())) throw;  // named its line already
    throw_input_error(signal.file(), signal.line(), error.what());
  }
  signal.only(tabulated_keys);
  return read_tabulated(signal, base_dir);
}

// "[[source]] #2 'name'" where the table names itself.
void name_where(Table& table) {
  if (const auto name = table.string("name")) {
    // Shown escaped when it holds control characters or quotes (a NUL would cut the message).
    const std::string quoted = quoted_name(*name);
    table.set_where(str(table.where(), " ", quoted.size() == name->size() + 2 ? str("'", *name, "'") : quoted));
  }
}

constexpr std::string_view explicit_keys[] = {"duration", "time_step", "safety_factor", "precision", "backend",
                                              "operator", "allow_unstable", "ordering", "blocks"};
constexpr std::string_view orderings[] = {"none", "rcm"};

ExplicitSettings read_explicit(const Table& table, const std::string& base_dir) {
  table.only(explicit_keys);
  ExplicitSettings settings;
  settings.origin = origin_of(table);
  settings.duration = positive(table, "duration", "simulated time, s");
  settings.time_step = non_negative(table, "time_step", "s; 0 or absent: the stable step times safety_factor");
  settings.safety_factor = table.number("safety_factor", 0.9);
  if (!(settings.safety_factor > 0.0 && settings.safety_factor <= 1.0))
    table.fail("safety_factor",
               str("'safety_factor' is ", settings.safety_factor, "; expected a number in (0, 1]"));
  settings.precision = choice(table, "precision", solver_precisions()).value_or("double");
  settings.backend = choice(table, "backend", solver_backends()).value_or("auto");
  // Parsed against the operator registry by the run's pre-flight, which names this line.
  settings.operator_kind = table.string("operator").value_or("auto");
  if (table.has("operator")) settings.operator_origin = str(table.file(), ":", table.line("operator"));
  settings.allow_unstable = table.boolean("allow_unstable").value_or(false);
  settings.ordering = choice(table, "ordering", orderings).value_or("none");
  if (table.has("blocks")) {
    // Checked here for existence; read, and matched to the mesh, when a run builds its operator.
    settings.blocks = referenced_file(table, "blocks", "block file", "the path of a block file (tremor partition)",
                                      base_dir, "; `tremor partition MODEL -o FILE` writes one")
                          .string();
  }
  if (settings.time_step > settings.duration)
    table.fail("time_step", str("'time_step' ", settings.time_step, " exceeds 'duration' ", settings.duration));
  return settings;
}

constexpr std::string_view static_keys[] = {"backend", "precision",      "preconditioner", "tolerance",
                                            "format",  "max_iterations", "assembly"};

StaticSettings read_static(const Table& table) {
  table.only(static_keys);
  StaticSettings settings;
  settings.origin = origin_of(table);
  settings.backend = choice(table, "backend", solver_backends()).value_or(settings.backend);
  settings.precision = choice(table, "precision", solver_precisions()).value_or(settings.precision);
  settings.preconditioner = choice(table, "preconditioner", static_preconditioners()).value_or(settings.preconditioner);
  settings.format = choice(table, "format", static_formats()).value_or(settings.format);
  settings.assembly = choice(table, "assembly", static_assemblies()).value_or(settings.assembly);
  if (table.has("tolerance")) {
    settings.tolerance = *table.number("tolerance");
    if (!(settings.tolerance > 0.0 && settings.tolerance < 1.0))
      table.fail("tolerance", str("'tolerance' is ", settings.tolerance,
                                  "; expected a relative residual ||f - K u|| / ||f|| in (0, 1), such as 1e-8"));
  }
  if (const auto iterations = table.integer("max_iterations")) {
    if (*iterations < 1 || *iterations > std::numeric_limits<int>::max())
      table.fail("max_iterations", str("'max_iterations' is ", *iterations, "; expected a count from 1 to ",
                                       std::numeric_limits<int>::max()));
    settings.max_iterations = static_cast<int>(*iterations);
  }
  return settings;
}

constexpr std::string_view source_keys[] = {"name", "node_set", "position", "direction", "amplitude", "signal",
                                            "delay"};

// `signal_optional`: the model is static (a [static] table and no [explicit]), where a load without
// a signal is constant.
PointSource read_source(Table& table, const Mesh& mesh, const Bounds& bounds, const std::string& base_dir,
                        bool signal_optional) {
  name_where(table);
  table.only(source_keys);
  PointSource source;
  source.origin = origin_of(table);
  if (table.has("node_set") == table.has("position"))
    table.fail_at(table.line(), "a source takes either 'node_set' (a set of nodes) or 'position' (the node nearest "
                                "a point), not both");
  if (table.has("node_set")) {
    std::tie(source.node_set, source.nodes) = node_set_of(table, mesh);
  } else {
    const auto x = position_in(table, *table.node("position"), bounds, "'position'");
    source.position = x;
    source.nodes = {nearest_node(mesh, x)};
  }
  source.direction = direction_of(table, "direction", mesh.dim());
  source.amplitude = table.number("amplitude", 1.0);
  source.delay = non_negative(table, "delay", "s");
  source.signal = signal_optional && !table.has("signal") ? constant_signal() : read_signal(table, base_dir);
  return source;
}

// Two numbers (a point or a spacing in the x-y plane), m.
std::array<double, 2> plane_pair(const Table& table, std::string_view key, std::string_view meaning) {
  const auto values = table.numbers(key, 2);
  if (!values) table.fail_at(table.line(), str("missing '", key, "' (", meaning, ")"));
  return {(*values)[0], (*values)[1]};
}

// The surface a table's 'surface' names, and its faces; refused when there is none or it is empty.
std::pair<std::string, std::vector<Face>> surface_of(const Table& table, const Mesh& mesh) {
  std::string name = table.required_string("surface", "the name of a surface of the mesh");
  const auto set = mesh.face_sets.find(name);
  if (set == mesh.face_sets.end()) {
    const auto names = names_of(mesh.face_sets);
    table.fail("surface", str("no surface named '", name, "'", suggestion(name, views(names)), "; the mesh has ",
                              listing(names)));
  }
  if (set->second.empty()) table.fail("surface", str("surface '", name, "' is empty"));
  return {std::move(name), set->second};
}

constexpr std::string_view traction_keys[] = {"name", "surface", "pressure", "traction", "signal", "delay"};

SurfaceLoad read_traction(Table& table, const Mesh& mesh, const std::string& base_dir, bool signal_optional) {
  name_where(table);
  table.only(traction_keys);
  SurfaceLoad load;
  load.origin = origin_of(table);
  if (const auto name = table.string("name")) load.name = *name;
  std::tie(load.surface, load.faces) = surface_of(table, mesh);
  if (table.has("pressure") == table.has("traction"))
    table.fail_at(table.line(), "a traction takes either 'pressure' (Pa, acting against the outward normal) or "
                                "'traction' (a vector, Pa, global axes), not both");
  if (table.has("pressure"))
    load.pressure = table.required_number("pressure", "Pa, acting against the outward normal");
  else
    load.traction = vector_of(table, "traction", mesh.dim(), str(mesh.dim(), " components, Pa, global axes"));
  load.delay = non_negative(table, "delay", "s");
  // Without a signal the load is constant (SurfaceLoad: no signal and no amplitude).
  if (!signal_optional || table.has("signal")) load.signal = read_signal(table, base_dir);
  return load;
}

constexpr std::string_view prescribed_keys[] = {"name",      "node_set", "direction", "components",
                                                "amplitude", "signal",   "delay"};
constexpr std::string_view axes_names[] = {"x", "y", "z"};

PrescribedDisplacement read_prescribed(Table& table, const Mesh& mesh, const std::string& base_dir,
                                       bool signal_optional) {
  name_where(table);
  table.only(prescribed_keys);
  PrescribedDisplacement p;
  p.origin = origin_of(table);
  if (!table.has("node_set")) table.fail_at(table.line(), "missing 'node_set' (the nodes whose displacement is given)");
  std::tie(p.node_set, p.nodes) = node_set_of(table, mesh);
  if (table.has("direction") == table.has("components"))
    table.fail_at(table.line(), "give either 'direction' (every component constrained, along it) or 'components' "
                                "(those listed constrained, the others free), not both");
  const int dim = mesh.dim();
  const std::span<const std::string_view> axes(axes_names, static_cast<std::size_t>(dim));
  if (table.has("direction")) {
    p.factor = direction_of(table, "direction", dim);
    for (int c = 0; c < dim; ++c) p.components.push_back(c);
  } else {
    const std::string axis_list = str("\"x\", \"y\"", dim == 3 ? " or \"z\"" : "");
    const char* form = "an array of axis names such as [\"y\"]";
    for (const std::size_t c : choice_list(table, "components", axes, form, axis_list,
                                           [&](std::size_t i, const std::string& name) {
                                             return str("'components'[", i, "] is '", name, "'; expected ",
                                                        choices(axes), " in a ", dim, "D model");
                                           })) {
      p.components.push_back(static_cast<int>(c));
      p.factor[c] = 1.0;
    }
    std::sort(p.components.begin(), p.components.end());
  }
  p.amplitude = table.number("amplitude", 1.0);
  p.delay = non_negative(table, "delay", "s");
  p.signal = signal_optional && !table.has("signal") ? constant_signal() : read_signal(table, base_dir);
  return p;
}

constexpr std::string_view body_force_keys[] = {"element_set", "acceleration", "gravity", "direction",
                                                "force_per_volume"};

BodyForce read_body_force(const Table& table, const Mesh& mesh) {
  table.only(body_force_keys);
  BodyForce force;
  force.origin = origin_of(table);
  const int dim = mesh.dim();
  if (table.has("element_set")) {
    force.element_set = *table.string("element_set");
    const auto set = mesh.element_sets.find(force.element_set);
    if (set == mesh.element_sets.end()) {
      const auto names = names_of(mesh.element_sets);
      table.fail("element_set", str("no element set named '", force.element_set, "'",
                                    suggestion(force.element_set, views(names)), "; the mesh has ",
                                    listing(names)));
    }
    if (set->second.empty()) table.fail("element_set", str("element set '", force.element_set, "' is empty"));
    force.elements = set->second;
    std::sort(force.elements.begin(), force.elements.end());
    force.elements.erase(std::unique(force.elements.begin(), force.elements.end()), force.elements.end());
  } else {
    force.elements.resize(static_cast<std::size_t>(mesh.n_elements()));
    for (std::size_t e = 0; e < force.elements.size(); ++e) force.elements[e] = static_cast<Index>(e);
  }
  const int given = int(table.has("acceleration")) + int(table.has("gravity")) + int(table.has("force_per_volume"));
  if (given != 1)
    table.fail_at(table.line(), "give one of 'acceleration' (m/s^2, a vector), 'gravity' (m/s^2, with 'direction') or "
                                "'force_per_volume' (N/m^3, a vector)");
  if (table.has("direction") && !table.has("gravity"))
    table.fail("direction", "'direction' goes with 'gravity' (its magnitude); 'acceleration' is a whole vector");
  const std::string components = str(dim, " components");
  if (table.has("acceleration")) {
    force.acceleration = vector_of(table, "acceleration", dim, str(components, ", m/s^2, global axes"));
  } else if (table.has("force_per_volume")) {
    force.force_per_volume = vector_of(table, "force_per_volume", dim, str(components, ", N/m^3, global axes"));
  } else {
    const double gravity = table.required_number("gravity", "m/s^2, the magnitude of the acceleration");
    if (!table.has("direction"))
      table.fail("gravity", str("missing 'direction' (", components, ", such as ",
                                dim == 3 ? "[0, 0, -1]" : "[0, -1]", ": the way gravity pulls, normalised)"));
    const std::array<double, 3> direction = direction_of(table, "direction", dim);
    for (std::size_t d = 0; d < 3; ++d) force.acceleration[d] = gravity * direction[d];
  }
  return force;
}

constexpr std::string_view receiver_keys[] = {"name", "node_set", "positions", "grid", "record", "every"};
constexpr std::string_view grid_keys[] = {"min", "max", "count", "surface"};
// A grid's points are one history's; past this a grid is a mistake (or a snapshot's work).
constexpr Index largest_grid = 10'000'000;

ReceiverGrid read_grid(const Table& owner, const Mesh& mesh) {
  const toml::node& node = *owner.node("grid");
  if (!node.as_table())
    owner.fail("grid", str("'grid' must be a table such as { min = [-0.05, -0.05], max = [0.05, 0.05], count = "
                           "[101, 101], surface = \"zmax\" }, got ", detail::describe(node)));
  Table table(*node.as_table(), owner.file(), str(owner.where(), ": grid"));
  table.only(grid_keys);
  if (mesh.dim() != 3) table.fail_at(table.line(), "a grid lies on a surface of a 3D mesh; this mesh is 2D");
  ReceiverGrid grid;
  grid.min = plane_pair(table, "min", "x and y of the grid's first point, m");
  grid.max = plane_pair(table, "max", "x and y of the grid's last point, m");
  const auto count = table.integers("count", 2);
  if (!count) table.fail_at(table.line(), "missing 'count' (the points along x and along y, such as [101, 101])");
  for (std::size_t a = 0; a < 2; ++a) {
    if ((*count)[a] < 1 || (*count)[a] > largest_grid)
      table.fail("count", str("'count'[", a, "] is ", (*count)[a], "; expected a number of points, at least 1"));
    grid.count[a] = static_cast<Index>((*count)[a]);
    if (grid.count[a] > 1 && !(grid.max[a] > grid.min[a]))
      table.fail("max", str("'max'[", a, "] is ", grid.max[a], ", not above 'min'[", a, "] (", grid.min[a], ") with ",
                            grid.count[a], " points along ", "xy"[a]));
  }
  if (grid.count[0] * grid.count[1] > largest_grid)
    table.fail("count", str(grid.count[0], " x ", grid.count[1], " points; a grid holds at most ", largest_grid));
  std::tie(grid.surface, grid.faces) = surface_of(table, mesh);
  return grid;
}
constexpr std::string_view recordable[] = {"displacement", "velocity", "acceleration"};

Receiver read_receiver(Table& table, const Mesh& mesh, const Bounds& bounds) {
  table.only(receiver_keys);
  Receiver receiver;
  receiver.origin = origin_of(table);
  receiver.name = table.required_string("name", "the receiver's name, naming its histories");
  if (const std::string problem = receiver_name_problem(receiver.name); !problem.empty()) table.fail("name", problem);
  name_where(table);
  if (int(table.has("node_set")) + int(table.has("positions")) + int(table.has("grid")) != 1)
    table.fail_at(table.line(), "a receiver takes one of 'node_set' (record at its nodes), 'positions' (record at "
                                "points, interpolated) and 'grid' (a grid of points on a surface)");
  if (table.has("node_set")) {
    std::tie(receiver.node_set, receiver.nodes) = node_set_of(table, mesh);
  } else if (table.has("grid")) {
    receiver.grid = read_grid(table, mesh);
  } else {
    const toml::node& node = *table.node("positions");
    const auto* array = node.as_array();
    if (!array || array->empty())
      table.fail("positions", str("'positions' must be an array of points such as [[0.01, 0.0]], got ",
                                  detail::describe(node)));
    for (std::size_t i = 0; i < array->size(); ++i)
      receiver.positions.push_back(position_in(table, (*array)[i], bounds, str("'positions'[", i, "]")));
  }
  if (table.has("record")) {
    receiver.displacement = false;
    for (const std::size_t k : choice_list(table, "record", recordable,
                                           "an array such as [\"displacement\", \"velocity\"]", "a string",
                                           [](std::size_t, const std::string& what) {
                                             return str("cannot record '", what, "'",
                                                        suggestion(what, recordable), "; expected ",
                                                        choices(recordable));
                                           }))
      (k == 0 ? receiver.displacement : k == 1 ? receiver.velocity : receiver.acceleration) = true;
  }
  if (const auto every = table.integer("every")) {
    if (*every < 1 || *every > std::numeric_limits<int>::max())
      table.fail("every", str("'every' is ", *every, "; expected a number of steps, at least 1"));
    receiver.every_n_steps = static_cast<int>(*every);
  }
  return receiver;
}

constexpr std::string_view output_keys[] = {"snapshot_every", "snapshot_interval", "snapshot_fields",
                                            "snapshot_node_set", "flush_seconds"};
constexpr std::string_view snapshot_fields[] = {"displacement", "magnitude", "velocity"};

OutputSettings read_output(const Table& table, const Mesh& mesh) {
  table.only(output_keys);
  OutputSettings output;
  output.origin = origin_of(table);
  if (table.has("snapshot_every") && table.has("snapshot_interval"))
    table.fail("snapshot_interval", "give either 'snapshot_every' (steps) or 'snapshot_interval' (seconds), not both");
  if (const auto every = table.integer("snapshot_every")) {
    if (*every < 1 || *every > std::numeric_limits<int>::max())
      table.fail("snapshot_every", str("'snapshot_every' is ", *every, "; expected a number of steps, at least 1"));
    output.snapshot_every = static_cast<int>(*every);
  }
  output.snapshot_interval = non_negative(table, "snapshot_interval", "s between snapshots");
  if (table.has("snapshot_interval") && output.snapshot_interval == 0.0)
    table.fail("snapshot_interval", "'snapshot_interval' is 0; expected a positive time in s");
  const bool snapshots = output.snapshots();
  for (std::string_view key : {"snapshot_fields", "snapshot_node_set"})
    if (table.has(key) && !snapshots)
      table.fail(key, str("'", key, "' needs 'snapshot_every' or 'snapshot_interval' (when to take snapshots)"));
  if (table.has("snapshot_fields")) {
    for (const std::size_t k : choice_list(table, "snapshot_fields", snapshot_fields,
                                           "an array such as [\"displacement\", \"velocity\"]", "a string",
                                           [](std::size_t, const std::string& what) {
                                             return str("no snapshot field '", what, "'",
                                                        suggestion(what, snapshot_fields), "; expected ",
                                                        choices(snapshot_fields));
                                           })) {
      output.magnitude = output.magnitude || snapshot_fields[k] == "magnitude";
      output.velocity = output.velocity || snapshot_fields[k] == "velocity";
    }
  }
  if (table.has("snapshot_node_set")) {
    std::tie(output.snapshot_node_set, output.snapshot_nodes) = node_set_of(table, mesh, "snapshot_node_set");
    std::sort(output.snapshot_nodes.begin(), output.snapshot_nodes.end());
    output.snapshot_nodes.erase(std::unique(output.snapshot_nodes.begin(), output.snapshot_nodes.end()),
                                output.snapshot_nodes.end());
  }
  if (table.has("flush_seconds")) {
    output.flush_seconds = positive(table, "flush_seconds", "s of wall time between flushes of the result file");
  }
  return output;
}

constexpr std::string_view transducer_keys[] = {"name",   "position", "radius", "mode",    "amplitude",
                                                "signal", "delay",    "surface", "opposite"};
constexpr std::string_view transducer_modes[] = {"A0", "S0"};

Transducer read_transducer(Table& table, const std::string& base_dir) {
  name_where(table);
  table.only(transducer_keys);
  Transducer t;
  t.origin = origin_of(table);
  t.name = table.string("name").value_or(table.where());
  t.position = plane_pair(table, "position", "x and y of the transducer's centre on the plate, m");
  t.radius = non_negative(table, "radius", "m; 0 or absent: a point force");
  t.mode = choice(table, "mode", transducer_modes).value_or("A0") == "S0" ? Transducer::Mode::S0 : Transducer::Mode::A0;
  t.amplitude = table.number("amplitude", 1.0);
  t.delay = non_negative(table, "delay", "s");
  t.surface = table.string("surface").value_or("zmax");
  t.opposite = table.string("opposite").value_or("zmin");
  t.signal = read_signal(table, base_dir);
  return t;
}

constexpr std::string_view shot_keys[] = {"name", "transducers"};

Shot read_shot(Table& table) {
  name_where(table);
  table.only(shot_keys);
  Shot shot;
  shot.origin = origin_of(table);
  shot.name = table.required_string("name", "the shot's name: its group of the result file");
  if (const std::string problem = shot_name_problem(shot.name); !problem.empty()) table.fail("name", problem);
  shot.transducers = table.strings("transducers").value_or(std::vector<std::string>{});
  return shot;
}

void read_excitation(const Table& root, Model& model, const std::string& base_dir) {
  if (const auto table = root.table("explicit")) model.explicit_settings = read_explicit(*table, base_dir);
  if (const auto table = root.table("static")) model.static_settings = read_static(*table);
  // A static model's loads need no signal: the static solver takes them at their full amplitude.
  const bool signal_optional = model.static_settings && !model.explicit_settings;
  const Bounds bounds(model.mesh);
  for (Table table : root.tables("source"))
    model.point_sources.push_back(read_source(table, model.mesh, bounds, base_dir, signal_optional));
  for (Table table : root.tables("traction"))
    model.surface_loads.push_back(read_traction(table, model.mesh, base_dir, signal_optional));
  for (Table table : root.tables("transducer")) add_transducer(model, read_transducer(table, base_dir));
  for (Table table : root.tables("shot")) add_shot(model, read_shot(table));
  if (!model.shots.empty())
    for (const Transducer& t : model.transducers)
      if (std::none_of(model.shots.begin(), model.shots.end(), [&](const Shot& shot) { return fires(&shot, t.name); }))
        log::warn(str(t.origin, ": transducer '", t.name, "' is in no shot: it never fires"));
  for (const Table& table : root.tables("body_force")) model.body_forces.push_back(read_body_force(table, model.mesh));
  for (Table table : root.tables("prescribed_displacement"))
    model.prescribed.push_back(read_prescribed(table, model.mesh, base_dir, signal_optional));
  std::map<std::string, long> receiver_lines;
  for (Table table : root.tables("receiver")) {
    Receiver receiver = read_receiver(table, model.mesh, bounds);
    const auto [first, inserted] = receiver_lines.emplace(receiver.name, table.line("name"));
    if (!inserted)
      table.fail("name", str("receiver '", receiver.name, "' is already defined at line ", first->second));
    model.receivers.push_back(std::move(receiver));
  }
  if (const auto table = root.table("output")) model.output = read_output(*table, model.mesh);
}

// ---------------------------------------------------------------------------------------------
// [[absorbing]]



constexpr std::string_view absorbing_keys[] = {"kind",  "faces",     "thickness", "element_set",
                                               "power", "alpha_max", "frequency"};
constexpr std::string_view absorbing_kinds[] = {"alid", "srm"};
constexpr std::string_view face_names[] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};

AbsorbingLayer read_absorbing(Table& table, const Model& model) {
  table.only(absorbing_keys);
  AbsorbingLayer layer;
  layer.origin = origin_of(table);
  const Mesh& mesh = model.mesh;
  const std::string kind = table.required_string("kind", choices(absorbing_kinds));
  (void)choice(table, "kind", absorbing_kinds);
  layer.kind = kind == "srm" ? AbsorbingKind::Srm : AbsorbingKind::Alid;
  table.set_where(str(table.where(), " (", kind, ")"));
  if (!table.has("faces") && !table.has("element_set"))
    table.fail_at(table.line(), "give 'faces' (faces of the model's bounding box, such as [\"xmax\", \"ymin\"]), "
                                "'element_set', or both");
  const int dim = mesh.dim();
  double lower[3], upper[3];
  mesh.bounding_box(lower, upper);
  layer.thickness = positive(table, "thickness", "the layer's thickness, m");
  if (table.has("faces")) {
    const std::span<const std::string_view> known(face_names, static_cast<std::size_t>(2 * dim));
    for (const std::size_t k : choice_list(table, "faces", known,
                                           "an array of face names such as [\"xmax\", \"ymin\"]", "a face name",
                                           [&](std::size_t, const std::string& name) {
                                             return str("unknown face '", name, "'", suggestion(name, known),
                                                        "; a ", dim, "D model has ", choices(known));
                                           })) {
      const auto face = static_cast<BoxFace>(k);
      const int axis = axis_of(face);
      const double extent = upper[axis] - lower[axis];
      if (layer.thickness > extent)
        table.fail("thickness", str("'thickness' ", layer.thickness, " m exceeds the model's extent ", extent,
                                    " m along ", "xyz"[axis], " (face '", known[k], "')"));
      layer.faces.push_back(face);
    }
  }
  if (table.has("element_set")) {
    layer.element_set = *table.string("element_set");
    const auto set = mesh.element_sets.find(layer.element_set);
    if (set == mesh.element_sets.end()) {
      const auto names = names_of(mesh.element_sets);
      table.fail("element_set", str("no element set named '", layer.element_set, "'",
                                    suggestion(layer.element_set, views(names)), "; the mesh has ",
                                    listing(names)));
    }
    if (set->second.empty()) table.fail("element_set", str("element set '", layer.element_set, "' is empty"));
  }
  if (table.has("power")) layer.power = positive(table, "power", "the exponent p of alpha_max (d / L)^p");
  if (table.has("alpha_max")) layer.alpha_max = positive(table, "alpha_max", "the damping at the outer edge, 1/s");
  if (table.has("frequency")) layer.frequency = positive(table, "frequency", "the design frequency, Hz");
  const bool needs_frequency = layer.kind == AbsorbingKind::Srm || layer.alpha_max == 0.0;
  if (needs_frequency && layer.frequency == 0.0 && !(highest_source_frequency(model) > 0.0))
    table.fail_at(table.line(), str("no design frequency: give 'frequency' (Hz)",
                                    layer.kind == AbsorbingKind::Srm ? "" : " or 'alpha_max'",
                                    "; the model has no time-varying source to take one from"));
  return layer;
}

// ---------------------------------------------------------------------------------------------
// [[mesh.defect]]

constexpr std::string_view defect_keys[] = {"name",       "side", "centre", "inner_radius", "outer_radius", "points",
                                            "max_depth", "seed", "map",    "origin",       "spacing"};
constexpr std::string_view random_defect_keys[] = {"centre", "inner_radius", "outer_radius", "points", "max_depth", "seed"};
constexpr std::string_view map_defect_keys[] = {"map", "origin", "spacing"};
constexpr std::string_view plate_sides[] = {"top", "bottom"};
// A depth map is a grid of numbers; a larger file is not one.
constexpr std::uintmax_t largest_depth_map = 256u << 20;

Defect read_defect(const Table& table, int number, const std::string& base_dir) {
  table.only(defect_keys);
  Defect d;
  d.origin = origin_of(table);
  d.name = table.string("name").value_or(str("defect ", number));
  d.side = choice(table, "side", plate_sides).value_or("top") == "top" ? Defect::Side::Top : Defect::Side::Bottom;
  const auto uses = [&](std::span<const std::string_view> keys) {
    return std::any_of(keys.begin(), keys.end(), [&](std::string_view k) { return table.has(k); });
  };
  if (table.has("map")) {
    for (std::string_view key : random_defect_keys)
      if (table.has(key))
        table.fail(key, str("'", key, "' belongs to the random recipe; a defect from a depth map takes 'map', 'origin' "
                            "and 'spacing'"));
    const auto path = referenced_file(table, "map", "depth map", "the path of a CSV grid of depths", base_dir);
    const std::array<double, 2> spacing = plane_pair(table, "spacing", "the grid's spacing in x and y, m");
    if (!(spacing[0] > 0.0 && spacing[1] > 0.0))
      table.fail("spacing", str("'spacing' is [", spacing[0], ", ", spacing[1], "]; expected two positive numbers, m"));
    d.map = parse_depth_grid(read_file(path.string(), "depth map", largest_depth_map), path.string(),
                             plane_pair(table, "origin", "the x and y of the grid's first depth, m"), spacing);
    return d;
  }
  if (!uses(random_defect_keys) && !table.has("map"))
    table.fail_at(table.line(), "a defect takes the random recipe ('centre', 'inner_radius', 'outer_radius', "
                                "'max_depth', ...) or a depth map ('map', 'origin', 'spacing')");
  for (std::string_view key : {"origin", "spacing"})
    if (table.has(key)) table.fail(key, str("'", key, "' belongs to a depth map ('map'); the random recipe takes 'centre'"));
  d.centre = plane_pair(table, "centre", "the x and y of the defect's centre, m");
  d.inner_radius = positive(table, "inner_radius", "R1: the outline's points lie between R1 and R2 from the centre, m");
  d.outer_radius = positive(table, "outer_radius", "R2, m");
  if (!(d.outer_radius > d.inner_radius))
    table.fail("outer_radius", str("'outer_radius' is ", d.outer_radius, "; expected more than 'inner_radius' (",
                                   d.inner_radius, ")"));
  const auto points = table.integer("points");
  d.outline_points = static_cast<int>(points.value_or(16));
  if (d.outline_points < 3 || d.outline_points > 10000)
    table.fail("points", str("'points' is ", points.value_or(0), "; expected the outline's points, 3..10000"));
  d.max_depth = positive(table, "max_depth", "the deepest loss of thickness, m");
  const auto seed = table.integer("seed");
  if (seed && *seed < 0) table.fail("seed", str("'seed' is ", *seed, "; expected a whole number of at least 0"));
  d.seed = static_cast<std::uint64_t>(seed.value_or(1));
  return d;
}

}  // namespace

Model read_model_buffer(std::string_view text, const std::string& name, const std::string& base_dir,
                        std::optional<int> order, const Mesh* mesh_given) {
  const toml::table document = detail::parse_document(text, name);
  const Table root(document, name, "top level");
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
  const CollectFilesRead collect(model.inputs);
  model.source = name;
  model.title = root.string("title").value_or("");
  const auto mesh = root.table("mesh");
  if (!mesh) root.fail_at(0, "missing [mesh] (a 'file' to read or a 'generator')");
  model.mesh = read_mesh(*mesh, base_dir, order, mesh_given);
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

  std::map<std::string, long> material_lines;
  for (Table material : root.tables("material")) {
    Material m = read_material(material);
    const auto [first, inserted] = material_lines.emplace(m.name, material.line("name"));
    if (!inserted) material.fail("name", str("material '", m.name, "' is already defined at line ", first->second));
    model.materials.push_back(std::move(m));
  }
  read_sections(root, model);
  read_excitation(root, model, base_dir);
  for (Table table : root.tables("absorbing")) model.absorbing.push_back(read_absorbing(table, model));
  model.validate();
  return model;
}

Model read_excitation_buffer(std::string_view text, const std::string& name, const std::string& base_dir,
                             const Model& base) {
  constexpr std::string_view run_keys[] = {"explicit",                "source",   "traction",   "body_force",
                                           "prescribed_displacement", "receiver", "transducer", "shot"};
  const toml::table document = detail::parse_document(text, name);
  const Table root(document, name, "top level");
  for (const auto& [key, node] : document) {
    const std::string_view k = key.str();
    if (std::find(std::begin(run_keys), std::end(run_keys), k) == std::end(run_keys))
      root.fail(k, str("'", k, "' belongs to the set-up, which its runs keep; a run gives [[source]], [[traction]], "
                       "[[body_force]], [[prescribed_displacement]], [[receiver]], [[transducer]], [[shot]] and "
                       "[explicit] duration"));
  }
  if (const auto table = root.table("explicit"))
    for (std::string_view key : explicit_keys)
      if (key != "duration" && table->has(key))
        table->fail(key, str("[explicit] ", key, " is the set-up's; a run gives its duration"));
  Model model = base;
  const CollectFilesRead collect(model.inputs);  // the set-up's files and the run's
  model.source = name;
  model.point_sources.clear();
  model.surface_loads.clear();
  model.body_forces.clear();
  if (root.has("prescribed_displacement")) model.prescribed.clear();  // else the set-up's constraints
  model.receivers.clear();
  model.transducers.clear();
  model.shots.clear();
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
