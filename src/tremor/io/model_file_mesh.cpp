// The model file's [mesh]: a mesh file or a generator, the GLL order, box sets and surfaces, and
// the thickness-loss defects of [[mesh.defect]] (docs/model-file.md).
#include "tremor/io/model_file_parts.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <span>

#include "tremor/core/error.hpp"
#include "tremor/io/abaqus.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/gmsh.hpp"
#include "tremor/mesh/defect.hpp"
#include "tremor/mesh/elevate.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/elevate.hpp"

namespace tremor::io::model_file {

using detail::choice;

constexpr std::string_view mesh_keys[] = {"file",    "generator", "element",     "origin",  "size",  "divisions",
                                          "grading", "node_set",  "element_set", "surface", "order", "defect",
                                          "hole",    "notch",       "crack"};
constexpr std::string_view generator_only_keys[] = {"element", "origin", "size", "divisions", "grading"};
constexpr std::string_view generators[] = {"rectangle", "box"};
constexpr std::string_view set_keys[] = {"name", "min", "max"};

namespace {

// A set's box, 'min' and 'max' (axes coordinates each, m), min <= max on every axis.
std::pair<std::vector<double>, std::vector<double>> box_of(const Table& set, std::size_t axes) {
  const auto box_min = set.numbers("min", axes), box_max = set.numbers("max", axes);
  if (!box_min) set.fail("min", str("missing 'min' (the box's lower corner, ", axes, " coordinates, m)"));
  if (!box_max) set.fail("max", str("missing 'max' (the box's upper corner, ", axes, " coordinates, m)"));
  for (std::size_t d = 0; d < axes; ++d)
    if ((*box_max)[d] < (*box_min)[d])
      set.fail("max", str("'max'[", d, "] = ", (*box_max)[d], " is below 'min'[", d, "] = ", (*box_min)[d]));
  return {*box_min, *box_max};
}

Mesh generate_mesh(const Table& mesh, Size limit) {
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
                                type, order, {grading[0], grading[1]}, limit);
    return generate_box({origin[0], origin[1], origin[2]}, {(*size)[0], (*size)[1], (*size)[2]},
                        {(*divisions)[0], (*divisions)[1], (*divisions)[2]}, type, order,
                        {grading[0], grading[1], grading[2]}, limit);
  } catch (const Error& e) {
    // What is left after the checks above: too many cells, or grading too strong for them.
    mesh.fail("divisions", e.what());
  }
}

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
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
    const auto box = box_of(set, axes);
    const std::vector<double>& box_min = box.first;
    const std::vector<double>& box_max = box.second;
    const auto inside = [&](const double* x) {
      for (std::size_t d = 0; d < axes; ++d)
        if (x[d] < box_min[d] - tolerance || x[d] > box_max[d] + tolerance) return false;
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
    const auto box = box_of(set, axes);
    const std::vector<double>& box_min = box.first;
    const std::vector<double>& box_max = box.second;
    const auto inside = [&](std::span<const double> x) {
      for (std::size_t d = 0; d < axes; ++d)
        if (x[d] < box_min[d] - tolerance || x[d] > box_max[d] + tolerance) return false;
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

}  // namespace

Mesh read_mesh(const Table& mesh, const std::string& base_dir, std::optional<int> order, const Mesh* given,
               Size limit) {
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
  Mesh result = given ? *given : from_file ? read_mesh_file(mesh, base_dir) : generate_mesh(mesh, limit);
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

constexpr std::string_view defect_keys[] = {"name",       "side", "centre", "inner_radius", "outer_radius", "points",
                                            "max_depth", "seed", "map",    "origin",       "spacing"};
constexpr std::string_view random_defect_keys[] = {"centre", "inner_radius", "outer_radius", "points", "max_depth", "seed"};
constexpr std::string_view map_defect_keys[] = {"map", "origin", "spacing"};
constexpr std::string_view plate_sides[] = {"top", "bottom"};
// A depth map is a grid of numbers; a larger file is not one.
constexpr std::uintmax_t largest_depth_map = 256u << 20;

namespace {

// A defect's 'name' (`fallback` without one), which names the surface the cut makes (`what`):
// refused when empty or holding '/'.
std::string surface_name(const Table& table, std::string fallback, std::string_view whose, std::string_view what) {
  std::string name = table.string("name").value_or(std::move(fallback));
  if (name.empty() || name.find('/') != std::string::npos)
    table.fail("name", str(whose, " '", name, "' names ", what, ": not empty, without '/'"));
  return name;
}

}  // namespace

constexpr std::string_view hole_keys[] = {"name", "centre", "bottom", "radius", "axis"};

Hole read_hole(const Table& table, const Mesh& mesh, int number) {
  table.only(hole_keys);
  Hole h;
  h.origin = origin_of(table);
  h.name = surface_name(table, str("hole", number), "the hole's name", "its wall's surface");
  const Bounds bounds(mesh);
  if (table.has("centre") == table.has("bottom"))
    table.fail_at(table.line(), table.has("centre") ? "both 'centre' and 'bottom'; a side-drilled hole takes 'centre', "
                                                      "a flat-bottom hole 'bottom'"
                                                    : "missing 'centre' (a side-drilled hole's centre, m) or 'bottom' "
                                                      "(a flat-bottom hole's bottom centre, m)");
  const bool flat = table.has("bottom");
  h.kind = flat ? Hole::Kind::flat_bottom : Hole::Kind::side_drilled;
  const char* key = flat ? "bottom" : "centre";
  h.centre = position_in(table, *table.node(key), bounds, str("'", key, "'"));
  h.radius = positive(table, "radius", "m, the hole's radius");
  if (flat) {
    if (!table.has("axis"))
      table.fail_at(table.line(), "missing 'axis' (the direction from the hole's bottom out of the part, to the surface "
                                  "it is drilled from)");
    h.axis = direction_of(table, "axis", mesh.dim());
  } else if (mesh.dim() == 3) {
    if (!table.has("axis")) table.fail_at(table.line(), "missing 'axis' (the direction the hole runs through the part)");
    h.axis = direction_of(table, "axis", 3);
  } else if (table.has("axis")) {
    table.fail("axis", "'axis' is a 3D or flat-bottom hole's; a 2D side-drilled hole is a disc of the section");
  }
  return h;
}

constexpr std::string_view notch_keys[] = {"name", "bottom", "axis", "width", "along", "length"};

Hole read_notch(const Table& table, const Mesh& mesh, int number) {
  table.only(notch_keys);
  Hole h;
  h.kind = Hole::Kind::notch;
  h.origin = origin_of(table);
  h.name = surface_name(table, str("notch", number), "the notch's name", "its wall's surface");
  const Bounds bounds(mesh);
  if (!table.has("bottom")) table.fail_at(table.line(), "missing 'bottom' (the centre of the notch's end inside the part, m)");
  h.centre = position_in(table, *table.node("bottom"), bounds, "'bottom'");
  if (!table.has("axis"))
    table.fail_at(table.line(), "missing 'axis' (the direction from the notch's bottom out of the part, to the surface "
                                "it breaks)");
  h.axis = direction_of(table, "axis", mesh.dim());
  h.width = positive(table, "width", "m, the notch's width across it");
  if (mesh.dim() == 3) {
    if (!table.has("along"))
      table.fail_at(table.line(), "missing 'along' (the direction of the notch's length, in the surface it breaks)");
    h.along = direction_of(table, "along", 3);
    h.length = positive(table, "length", "m, the notch's length along 'along'");
  } else {
    for (const char* k : {"along", "length"})
      if (table.has(k)) table.fail(k, str("'", k, "' is a 3D notch's; a 2D notch is a slot of the section"));
  }
  return h;
}

constexpr std::string_view crack_keys[] = {"name", "points", "surface"};

Crack read_crack(const Table& table, const Mesh& mesh, int number) {
  table.only(crack_keys);
  Crack c;
  c.origin = origin_of(table);
  const char* example = mesh.dim() == 2 ? "[[0.02, 0.04], [0.02, 0.035]] (a segment's two ends)"
                                        : "[[0.02, 0.0, 0.04], [0.02, 0.01, 0.04], [0.02, 0.01, 0.035], [0.02, 0.0, "
                                          "0.035]] (a planar polygon's vertices in order)";
  if (table.has("points") && table.has("surface"))
    table.fail("surface", "both 'points' and 'surface'; a crack is one or the other");
  if (table.has("surface")) {
    c.surface = *table.string("surface");
    if (c.surface.empty()) table.fail("surface", "'surface' is empty; expected the name of a surface of the mesh");
    // Its faces' surface: the one it opens, both sides now, unless named otherwise.
    c.name = surface_name(table, c.surface, "the crack's name", "its faces' surface");
    return c;
  }
  c.name = surface_name(table, str("crack", number), "the crack's name", "its faces' surface");
  if (!table.has("points"))
    table.fail_at(table.line(), str("missing 'points', such as ", example, ", or 'surface' (a surface of the mesh)"));
  const toml::node& node = *table.node("points");
  const auto* array = node.as_array();
  if (!array || array->empty())
    table.fail("points", str("'points' must be an array of points such as ", example, ", got ", detail::describe(node)));
  const Bounds bounds(mesh);
  for (std::size_t i = 0; i < array->size(); ++i)
    c.points.push_back(position_in(table, (*array)[i], bounds, str("'points'[", i, "]")));
  if (mesh.dim() == 2 && c.points.size() != 2)
    table.fail("points", str(c.points.size(), " points; a 2D crack is a segment: its two ends, such as ", example));
  if (mesh.dim() == 3 && c.points.size() < 3)
    table.fail("points", str(c.points.size(), " points; a 3D crack is a planar polygon: 3 or more vertices, such as ",
                             example));
  return c;
}

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

}  // namespace tremor::io::model_file
