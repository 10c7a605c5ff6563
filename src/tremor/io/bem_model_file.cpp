// The boundary-element model file: TOML, documented key by key in docs/model-file.md
// ("Boundary-element model files") and docs/bem.md.
#include "tremor/io/bem_model_file.hpp"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <filesystem>
#include <limits>
#include <map>

#include "tremor/backend/exec.hpp"
#include "tremor/core/error.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/gmsh.hpp"
#include "tremor/io/limits.hpp"
#include "tremor/io/model_file_table.hpp"

namespace tremor::io {

namespace {

using detail::choice;
using detail::named_choice;
using detail::Table;

constexpr std::string_view top_keys[] = {"title", "bem"};
// Tables of the finite-element model file: a file holding one is for `tremor run` or `static`.
constexpr std::string_view finite_element_keys[] = {"mesh",     "material",   "section",
                                                    "explicit", "static",     "source",
                                                    "traction", "body_force", "prescribed_displacement",
                                                    "receiver", "output",     "absorbing"};
constexpr std::string_view bem_keys[] = {
    "mesh",           "material",   "boundary",  "interior",  "frequencies", "backend", "gauss",
    "singular_gauss", "near_ratio", "max_depth", "free_term", "elements",    "layout",  "min_elements_per_wavelength",
    "solver",         "tolerance"};
constexpr std::string_view mesh_keys[] = {"file",       "generator", "solid",       "flip",
                                          "radius",     "size",      "divisions",   "shape",
                                          "foundation", "order",     "serendipity", "foundation_radius",
                                          "max_cell"};
constexpr std::string_view generators[] = {"sphere", "box", "halfspace", "halfspace_disc"};
constexpr std::string_view solids[] = {"inside", "outside", "open", "body", "cavity"};
constexpr std::string_view shapes[] = {"quadrilateral", "triangle"};
constexpr std::string_view material_keys[] = {"density",       "youngs_modulus", "poisson_ratio", "lame_lambda",
                                              "shear_modulus", "p_wave_speed",   "s_wave_speed",  "damping_ratio"};
constexpr std::string_view boundary_keys[] = {"element_set", "pressure", "traction", "displacement"};
constexpr std::string_view component_names[] = {"x", "y", "z"};
constexpr std::string_view interior_keys[] = {"points", "line", "grid"};
constexpr std::string_view line_keys[] = {"from", "to", "count"};
constexpr std::string_view range_keys[] = {"start", "stop", "count"};

// Each frequency is a dense assembly and solve: a count beyond this is a typo, not a plan.
constexpr std::int64_t most_frequencies = 10000;
// Interior points cost a row of H and G each per frequency; beyond this a grid is a typo.
constexpr std::size_t most_interior_points = 1000000;
// bem/integration.hpp: Gauss rules of 1 to 16 points, at most 8 halvings of a near piece.
constexpr std::int64_t most_gauss = 16;
constexpr std::int64_t deepest_subdivision = 8;

// "'a', 'b' and 3 more" (at most `shown` names).
std::string listing(const std::vector<std::string>& names, std::size_t shown = 12) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) out += str(i ? ", " : "", "'", names[i], "'");
  if (names.size() > shown) out += str(" and ", names.size() - shown, " more");
  return out.empty() ? "none" : out;
}

std::string origin_of(const Table& table) { return str(table.file(), ":", table.line(), ": ", table.where()); }

double positive(const Table& table, std::string_view key, std::string_view meaning) {
  const double value = table.required_number(key, meaning);
  if (!(value > 0.0)) table.fail(key, str("'", key, "' is ", value, "; expected a positive number (", meaning, ")"));
  return value;
}

// An integer option in [lowest, highest].
std::optional<int> bounded_integer(const Table& table, std::string_view key, std::int64_t lowest, std::int64_t highest,
                                   std::string_view meaning) {
  const auto value = table.integer(key);
  if (value && (*value < lowest || *value > highest))
    table.fail(key, str("'", key, "' is ", *value, "; expected ", lowest, " to ", highest, " (", meaning, ")"));
  return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

// A complex amplitude: a number (real) or [re, im].
std::complex<double> complex_of(const toml::node& node, const Table& context, const std::string& what) {
  if (node.is_integer() || node.is_floating_point()) return {detail::number_of(node, context, what), 0.0};
  const auto* pair = node.as_array();
  if (!pair || pair->size() != 2 || !((*pair)[0].is_number()) || !((*pair)[1].is_number()))
    context.fail_at(detail::line_of(node), str(what, " must be a number or [re, im], got ", detail::describe(node)));
  return {detail::number_of((*pair)[0], context, str(what, "[0]")),
          detail::number_of((*pair)[1], context, str(what, "[1]"))};
}

// A point: an array of 3 finite numbers.
std::array<double, 3> point_of(const toml::node& node, const Table& context, const std::string& what) {
  const auto* array = node.as_array();
  if (!array || array->size() != 3)
    context.fail_at(detail::line_of(node), str(what, " must be [x, y, z], got ", detail::describe(node)));
  std::array<double, 3> point{};
  for (std::size_t c = 0; c < 3; ++c) point[c] = detail::number_of((*array)[c], context, str(what, "[", c, "]"));
  return point;
}

// One table or an array of tables under `key` (line = {...} or [[bem.interior.line]]).
std::vector<Table> one_or_more(const Table& table, std::string_view key) {
  const toml::node* node = table.node(key);
  if (node && node->is_table()) return {*table.table(key)};
  return table.tables(key);
}

// ---------------------------------------------------------------------------------------------
// [bem.mesh]

// The generators of a half-space's free surface: open, the solid below.
bool halfspace(BemMeshKind kind) { return kind == BemMeshKind::Halfspace || kind == BemMeshKind::HalfspaceDisc; }

BemSolid solid_of(const Table& mesh, BemMeshKind kind) {
  const bool closed = kind == BemMeshKind::Sphere || kind == BemMeshKind::Box;
  const auto value = choice(mesh, "solid", solids);
  if (!value) {
    if (halfspace(kind)) return BemSolid::Open;
    mesh.fail_at(mesh.line(), closed ? "missing 'solid': \"body\" (the solid inside the surface) or \"cavity\" "
                                       "(the solid outside it, a hole in an infinite medium)"
                                     : "missing 'solid': where the solid lies, \"inside\" the closed surface (a body), "
                                       "\"outside\" it (a cavity) or, for an open surface, \"open\" (the side its "
                                       "normals point away from)");
  }
  const BemSolid solid = *value == "inside" || *value == "body"      ? BemSolid::Inside
                         : *value == "outside" || *value == "cavity" ? BemSolid::Outside
                                                                     : BemSolid::Open;
  if (closed && solid == BemSolid::Open)
    mesh.fail("solid", "a generated sphere or box is closed: 'solid' is \"body\" (inside) or \"cavity\" (outside)");
  if (halfspace(kind) && solid != BemSolid::Open)
    mesh.fail("solid",
              str("a halfspace's surface is open: 'solid' is \"open\" (or left out), got \"", *value, "\""));
  return solid;
}

BemElementShape shape_of(const Table& mesh) {
  const auto value = choice(mesh, "shape", shapes);
  return value && *value == "triangle" ? BemElementShape::Triangle : BemElementShape::Quadrilateral;
}

// `count` positive lengths (m) under `key`.
template <std::size_t N>
std::array<double, N> lengths(const Table& mesh, std::string_view key, std::string_view meaning) {
  const auto values = mesh.numbers(key, N);
  if (!values) mesh.fail(key, str("missing '", key, "' (", meaning, ")"));
  std::array<double, N> out{};
  for (std::size_t d = 0; d < N; ++d) {
    if (!((*values)[d] > 0.0))
      mesh.fail(key, str("'", key, "'[", d, "] is ", (*values)[d], "; lengths must be positive"));
    out[d] = (*values)[d];
  }
  return out;
}

template <std::size_t N>
std::array<Index, N> division_counts(const Table& mesh) {
  const auto values = mesh.integers("divisions", N);
  if (!values) mesh.fail("divisions", str("missing 'divisions' (", N, " numbers of cells)"));
  std::array<Index, N> out{};
  for (std::size_t d = 0; d < N; ++d) {
    // The generators' own limit (mesh/generate.hpp) refuses what is too large for memory.
    if ((*values)[d] < 1 || (*values)[d] > std::numeric_limits<Index>::max())
      mesh.fail("divisions", str("'divisions'[", d, "] is ", (*values)[d], "; expected at least 1 cell"));
    out[d] = static_cast<Index>((*values)[d]);
  }
  return out;
}

void refuse_keys(const Table& mesh, std::span<const std::string_view> keys, const std::string& why) {
  for (std::string_view key : keys)
    if (mesh.has(key)) mesh.fail(key, str("'", key, "' ", why));
}

BemMeshSource read_mesh(const Table& mesh, const std::string& base_dir) {
  namespace fs = std::filesystem;
  mesh.only(mesh_keys);
  BemMeshSource out;
  out.origin = origin_of(mesh);
  const bool from_file = mesh.has("file"), generated = mesh.has("generator");
  if (from_file && generated)
    mesh.fail("generator", "[bem.mesh] takes either 'file' (a Gmsh surface mesh) or 'generator', not both");
  if (!from_file && !generated)
    mesh.fail_at(mesh.line(),
                 str("missing 'file' (a Gmsh surface mesh, .msh) or 'generator' (", choices(generators), ")"));
  if (from_file) {
    constexpr std::string_view generator_keys[] = {"radius", "size",  "divisions",   "shape",           "foundation",
                                                   "order",  "serendipity", "foundation_radius", "max_cell"};
    refuse_keys(mesh, generator_keys, "belongs to generated meshes; a mesh 'file' defines its own elements");
    out.kind = BemMeshKind::File;
    out.file = *mesh.string("file");
    if (out.file.empty()) mesh.fail("file", "'file' is empty; expected the path of a Gmsh surface mesh (.msh)");
    if (base_dir.empty())
      mesh.fail("file", str("mesh file '", out.file,
                            "' cannot be read: this model was given in memory with no folder to resolve it against"));
    const fs::path path = fs::path(base_dir) / fs::path(out.file);
    std::error_code error;
    if (!fs::is_regular_file(path, error))
      mesh.fail("file", str("mesh file '", out.file, "' not found (looked for ", path.string(), ")"));
    std::string extension = path.extension().string();
    for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (extension != ".msh")
      mesh.fail("file", str("mesh file '", out.file, "' has extension '", path.extension().string(),
                            "'; a boundary-element mesh is a Gmsh surface mesh (.msh)"));
    out.solid = solid_of(mesh, out.kind);
    out.path = path.string();
    out.surface = read_gmsh_surface(out.path);
    // Every mesh has the set "all", as a finite-element model's does.
    if (!out.surface.element_sets.count("all")) {
      std::vector<Index>& all = out.surface.element_sets["all"];
      all.resize(static_cast<std::size_t>(out.surface.n_elements()));
      for (std::size_t e = 0; e < all.size(); ++e) all[e] = static_cast<Index>(e);
    }
    for (const auto& [name, members] : out.surface.element_sets) out.element_sets.push_back(name);
  } else {
    const std::string generator = *choice(mesh, "generator", generators);
    out.kind = generator == "sphere"      ? BemMeshKind::Sphere
               : generator == "box"       ? BemMeshKind::Box
               : generator == "halfspace" ? BemMeshKind::Halfspace
                                          : BemMeshKind::HalfspaceDisc;
    out.shape = shape_of(mesh);
    if (const auto order = mesh.integer("order")) {
      if (*order != 1 && *order != 2)
        mesh.fail("order", str("'order' is ", *order, "; expected 1 (straight-sided elements) or 2 (second-order "
                               "elements, their mid-edge nodes on the true surface)"));
      out.order = static_cast<int>(*order);
    }
    out.serendipity = mesh.boolean("serendipity").value_or(false);
    if (out.serendipity && (out.shape != BemElementShape::Quadrilateral || out.order == 1))
      mesh.fail("serendipity", "'serendipity' (8-node quadrilaterals) applies to second-order quadrilaterals: "
                               "shape = \"quadrilateral\" and order = 2 (or quadratic elements)");
    out.element_sets = {"all"};
    if (out.kind == BemMeshKind::Sphere) {
      constexpr std::string_view other[] = {"size", "foundation", "foundation_radius", "max_cell"};
      refuse_keys(mesh, other, "does not apply to the sphere generator (radius, divisions, shape, solid)");
      out.sphere.radius = positive(mesh, "radius", "the sphere's radius, m");
      const auto n = mesh.integer("divisions");
      if (!n)
        mesh.fail("divisions", "missing 'divisions' (cells per edge of the projected cube: 6 n^2 quadrilaterals)");
      if (*n < 1 || *n > std::numeric_limits<Index>::max())
        mesh.fail("divisions", str("'divisions' is ", *n, "; expected at least 1 cell per cube edge"));
      out.sphere.divisions = static_cast<Index>(*n);
    } else if (out.kind == BemMeshKind::Box) {
      constexpr std::string_view other[] = {"radius", "foundation", "foundation_radius", "max_cell"};
      refuse_keys(mesh, other, "does not apply to the box generator (size, divisions, shape, solid)");
      out.box.size = lengths<3>(mesh, "size", "the box's lengths along x, y, z, m");
      out.box.divisions = division_counts<3>(mesh);
      out.element_sets = {"all", "xmax", "xmin", "ymax", "ymin", "zmax", "zmin"};
    } else if (out.kind == BemMeshKind::HalfspaceDisc) {
      constexpr std::string_view other[] = {"size", "foundation"};
      refuse_keys(mesh, other,
                  "does not apply to the halfspace_disc generator (radius, foundation_radius, divisions, max_cell, "
                  "shape)");
      out.disc.radius = positive(mesh, "radius", "the surface's radius, m");
      out.disc.foundation_radius = positive(mesh, "foundation_radius", "the circular foundation's radius, m");
      if (out.disc.foundation_radius >= out.disc.radius)
        mesh.fail("foundation_radius", str("'foundation_radius' = ", out.disc.foundation_radius,
                                           " m must be below the surface's 'radius' = ", out.disc.radius, " m"));
      const auto n = mesh.integer("divisions");
      if (!n)
        mesh.fail("divisions", "missing 'divisions' (cells along a quarter of the foundation's rim: 4 n around it)");
      if (*n < 1 || *n > 65535)
        mesh.fail("divisions", str("'divisions' is ", *n, "; expected 1 to 65535 cells per quarter of the rim"));
      out.disc.divisions = static_cast<Index>(*n);
      out.disc.max_cell = positive(mesh, "max_cell",
                                   "the largest cell outside the foundation, m: about a sixth of the shortest "
                                   "shear wavelength for quadratic elements, a twelfth for constant and linear ones");
      out.element_sets = {"all", "foundation", "free"};
    } else {
      constexpr std::string_view other[] = {"radius", "foundation_radius", "max_cell"};
      refuse_keys(mesh, other, "does not apply to the halfspace generator (size, divisions, shape, foundation)");
      out.halfspace.size = lengths<2>(mesh, "size", "the patch's lengths along x and y, m");
      out.halfspace.divisions = division_counts<2>(mesh);
      if (mesh.has("foundation")) {
        out.halfspace.foundation = lengths<2>(mesh, "foundation", "the foundation's lengths along x and y, m");
        for (std::size_t d = 0; d < 2; ++d)
          if ((*out.halfspace.foundation)[d] > out.halfspace.size[d])
            mesh.fail("foundation", str("'foundation'[", d, "] = ", (*out.halfspace.foundation)[d],
                                        " m exceeds the patch's 'size'[", d, "] = ", out.halfspace.size[d], " m"));
        out.element_sets = {"all", "foundation", "free"};
      }
    }
    out.solid = solid_of(mesh, out.kind);
    if (!halfspace(out.kind) && mesh.has("flip"))
      mesh.fail("flip", str("'flip' does not apply to a generated ", generator,
                            ": 'solid' orients it (\"cavity\": normals into the hole)"));
  }
  out.flip = mesh.boolean("flip").value_or(false);
  return out;
}

// ---------------------------------------------------------------------------------------------
// [bem.material]

BemMaterial read_material(const Table& material) {
  material.only(material_keys);
  BemMaterial out;
  out.origin = origin_of(material);
  out.density = positive(material, "density", "kg/m^3");
  out.damping_ratio = material.number("damping_ratio", 0.0);
  if (!(out.damping_ratio >= 0.0))
    material.fail("damping_ratio", str("'damping_ratio' is ", out.damping_ratio,
                                       "; expected the hysteretic damping ratio beta >= 0 (moduli x (1 + 2 i beta))"));
  const std::pair<std::string_view, std::string_view> forms[] = {
      {"youngs_modulus", "poisson_ratio"}, {"lame_lambda", "shear_modulus"}, {"p_wave_speed", "s_wave_speed"}};
  std::vector<std::string_view> given;
  for (const auto& [a, b] : forms)
    for (std::string_view key : {a, b})
      if (material.has(key)) given.push_back(key);
  std::sort(given.begin(), given.end(),
            [&](std::string_view a, std::string_view b) { return material.line(a) < material.line(b); });
  const std::pair<std::string_view, std::string_view>* chosen = nullptr;
  for (const auto& form : forms)
    if (given.size() == 2 && material.has(form.first) && material.has(form.second)) chosen = &form;
  if (!chosen) {
    std::string got;
    for (std::size_t i = 0; i < given.size(); ++i) got += str(i ? ", " : "", given[i]);
    material.fail_at(given.empty() ? material.line() : material.line(given.front()),
                     str("give exactly one pair of elastic constants: youngs_modulus + poisson_ratio, lame_lambda + "
                         "shear_modulus, or p_wave_speed + s_wave_speed; got ",
                         given.empty() ? std::string("none") : got));
  }
  const double a = *material.number(chosen->first), b = *material.number(chosen->second);
  if (chosen->first == "youngs_modulus") {
    if (!(a > 0.0))
      material.fail("youngs_modulus", str("'youngs_modulus' is ", a, "; expected a positive modulus, Pa"));
    if (!(b > -1.0 && b < 0.5))
      material.fail("poisson_ratio", str("'poisson_ratio' is ", b, "; expected a value in (-1, 0.5)"));
    out.mu = a / (2.0 * (1.0 + b));
    out.lambda = a * b / ((1.0 + b) * (1.0 - 2.0 * b));
  } else if (chosen->first == "lame_lambda") {
    if (!(b > 0.0)) material.fail("shear_modulus", str("'shear_modulus' is ", b, "; expected a positive modulus, Pa"));
    if (!(3.0 * a + 2.0 * b > 0.0))
      material.fail("lame_lambda",
                    str("'lame_lambda' is ", a, "; the bulk modulus lambda + 2 mu / 3 must be positive"));
    out.lambda = a;
    out.mu = b;
  } else {
    if (!(b > 0.0)) material.fail("s_wave_speed", str("'s_wave_speed' is ", b, "; expected a positive speed, m/s"));
    if (!(3.0 * a * a > 4.0 * b * b))
      material.fail("p_wave_speed", str("'p_wave_speed' is ", a, " m/s; it must exceed 2/sqrt(3) x 's_wave_speed' (",
                                        2.0 / std::sqrt(3.0) * b, " m/s) for a positive bulk modulus"));
    out.mu = out.density * b * b;
    out.lambda = out.density * a * a - 2.0 * out.mu;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// frequencies

std::vector<double> read_frequencies(const Table& bem) {
  const toml::node* node = bem.node("frequencies");
  if (!node)
    bem.fail_at(bem.line(),
                "missing 'frequencies' (Hz): a list such as [10.0, 20.0], or "
                "{ start = 10.0, stop = 100.0, count = 10 }");
  std::vector<double> out;
  if (const auto* array = node->as_array()) {
    if (array->empty()) bem.fail("frequencies", "'frequencies' is empty; give at least one frequency, Hz");
    if (static_cast<std::int64_t>(array->size()) > most_frequencies)
      bem.fail("frequencies", str("'frequencies' lists ", array->size(), " frequencies; at most ", most_frequencies));
    for (std::size_t i = 0; i < array->size(); ++i) {
      const double f = detail::number_of((*array)[i], bem, str("'frequencies'[", i, "]"));
      if (!(f > 0.0))
        bem.fail_at(detail::line_of((*array)[i]),
                    str("'frequencies'[", i, "] is ", f, " Hz; frequencies must be positive"));
      out.push_back(f);
    }
    return out;
  }
  if (!node->is_table())
    bem.fail("frequencies", str("'frequencies' must be a list of frequencies (Hz) or { start, stop, count }, got ",
                                detail::describe(*node)));
  const Table range = *bem.table("frequencies");
  range.only(range_keys);
  const double start = range.required_number("start", "the first frequency, Hz");
  const double stop = range.required_number("stop", "the last frequency, Hz");
  const auto count = range.integer("count");
  if (!count) range.fail("count", "missing 'count' (how many frequencies from start to stop, both included)");
  if (!(start > 0.0)) range.fail("start", str("'start' is ", start, " Hz; frequencies must be positive"));
  if (*count < 1 || *count > most_frequencies)
    range.fail("count", str("'count' is ", *count, "; expected 1 to ", most_frequencies));
  if (*count == 1 && stop != start)
    range.fail("count", str("'count' is 1 but 'stop' (", stop, ") differs from 'start' (", start, ")"));
  if (*count > 1 && !(stop > start))
    range.fail("stop", str("'stop' is ", stop, " Hz; expected a frequency above 'start' (", start, " Hz)"));
  for (std::int64_t k = 0; k < *count; ++k)
    out.push_back(*count == 1 ? start
                              : start + (stop - start) * static_cast<double>(k) / static_cast<double>(*count - 1));
  return out;
}

// ---------------------------------------------------------------------------------------------
// [[bem.boundary]]

// traction / displacement: [vx, vy, vz] or { x = ..., z = ... }, each value a number or [re, im].
void read_components(const Table& table, std::string_view key, BemPrescribed kind, BemBoundaryCondition& out) {
  const toml::node* node = table.node(key);
  if (!node) return;
  const auto set = [&](std::size_t c, const toml::node& value, long line, const std::string& what) {
    if (out.components[c])
      table.fail_at(line, str("component ", component_names[c], " is given as both a traction and a displacement"));
    out.components[c] = BemComponent{kind, complex_of(value, table, what)};
  };
  if (const auto* array = node->as_array()) {
    if (array->size() != 3)
      table.fail(key,
                 str("'", key, "' must be [x, y, z] or a table such as { z = 1e-3 }, got ", detail::describe(*node)));
    for (std::size_t c = 0; c < 3; ++c) set(c, (*array)[c], detail::line_of((*array)[c]), str("'", key, "'[", c, "]"));
    return;
  }
  if (!node->is_table())
    table.fail(key,
               str("'", key, "' must be [x, y, z] or a table such as { z = 1e-3 }, got ", detail::describe(*node)));
  const Table components = *table.table(key);
  components.only(component_names);
  for (std::size_t c = 0; c < 3; ++c)
    if (const toml::node* value = components.node(component_names[c]))
      set(c, *value, detail::line_of(*value), str("'", key, ".", component_names[c], "'"));
}

BemBoundaryCondition read_boundary(Table& table, const BemMeshSource& mesh) {
  table.only(boundary_keys);
  BemBoundaryCondition out;
  out.element_set = table.required_string("element_set", "the element set the condition applies to");
  if (!std::binary_search(mesh.element_sets.begin(), mesh.element_sets.end(), out.element_set)) {
    std::vector<std::string_view> names(mesh.element_sets.begin(), mesh.element_sets.end());
    table.fail("element_set",
               str("no element set named '", out.element_set, "'", suggestion(out.element_set, names),
                   "; the mesh has ", listing(mesh.element_sets)));
  }
  table.set_where(str(table.where(), " '", out.element_set, "'"));
  out.origin = origin_of(table);
  if (table.has("pressure")) {
    for (std::string_view key : {"traction", "displacement"})
      if (table.has(key))
        table.fail(key, str("'", key, "' with 'pressure': a pressure prescribes the traction in every component"));
    out.pressure = complex_of(*table.node("pressure"), table, "'pressure'");
    return out;
  }
  read_components(table, "traction", BemPrescribed::Traction, out);
  read_components(table, "displacement", BemPrescribed::Displacement, out);
  if (!table.has("traction") && !table.has("displacement"))
    table.fail_at(table.line(),
                  "give 'pressure', 'traction' or 'displacement' (components not given have zero "
                  "traction, as elements in no [[bem.boundary]] do)");
  return out;
}

// ---------------------------------------------------------------------------------------------
// [bem.interior]

void add_group(BemProblem& problem, std::string kind, std::size_t first, std::string origin) {
  const std::size_t count = problem.interior_points.size() - first;
  if (problem.interior_points.size() > most_interior_points)
    throw Error(str(origin, ": ", problem.interior_points.size(), " interior points; at most ", most_interior_points));
  problem.point_groups.push_back(BemPointGroup{std::move(kind), first, count, std::move(origin)});
}

void read_interior(const Table& interior, BemProblem& problem) {
  interior.only(interior_keys);
  if (const toml::node* node = interior.node("points")) {
    const auto* array = node->as_array();
    if (!array || array->empty())
      interior.fail("points", str("'points' must be a list of points such as [[0, 0, -1], [0, 0, -2]], got ",
                                  detail::describe(*node)));
    const std::size_t first = problem.interior_points.size();
    for (std::size_t i = 0; i < array->size(); ++i)
      problem.interior_points.push_back(point_of((*array)[i], interior, str("'points'[", i, "]")));
    add_group(problem, "points", first, str(interior.file(), ":", interior.line("points")));
  }
  for (Table line : one_or_more(interior, "line")) {
    line.only(line_keys);
    const auto from = line.numbers("from", 3), to = line.numbers("to", 3);
    if (!from) line.fail("from", "missing 'from' (the first point, [x, y, z], m)");
    if (!to) line.fail("to", "missing 'to' (the last point, [x, y, z], m)");
    const auto count = line.integer("count");
    if (!count) line.fail("count", "missing 'count' (points from 'from' to 'to', both included)");
    if (*count < 2 || static_cast<std::uint64_t>(*count) > most_interior_points)
      line.fail("count", str("'count' is ", *count, "; expected 2 to ", most_interior_points));
    const std::size_t first = problem.interior_points.size();
    for (std::int64_t k = 0; k < *count; ++k) {
      const double s = static_cast<double>(k) / static_cast<double>(*count - 1);
      std::array<double, 3> p{};
      for (std::size_t c = 0; c < 3; ++c) p[c] = (*from)[c] + s * ((*to)[c] - (*from)[c]);
      problem.interior_points.push_back(p);
    }
    add_group(problem, "line", first, str(line.file(), ":", line.line()));
  }
  for (Table grid : one_or_more(interior, "grid")) {
    grid.only(line_keys);
    const auto from = grid.numbers("from", 3), to = grid.numbers("to", 3);
    if (!from) grid.fail("from", "missing 'from' (a corner of the grid, [x, y, z], m)");
    if (!to) grid.fail("to", "missing 'to' (the opposite corner, [x, y, z], m)");
    const auto count = grid.integers("count", 3);
    if (!count) grid.fail("count", "missing 'count' (points along x, y, z, corners included)");
    std::uint64_t total = 1;
    for (std::size_t d = 0; d < 3; ++d) {
      if ((*count)[d] < 1 || static_cast<std::uint64_t>((*count)[d]) > most_interior_points)
        grid.fail("count", str("'count'[", d, "] is ", (*count)[d], "; expected at least 1"));
      total *= static_cast<std::uint64_t>((*count)[d]);
      if (total > most_interior_points)
        grid.fail("count", str("the grid holds more than ", most_interior_points, " points"));
      if ((*count)[d] == 1 && (*from)[d] != (*to)[d])
        grid.fail("count", str("'count'[", d, "] is 1 but 'from'[", d, "] (", (*from)[d], ") differs from 'to'[", d,
                               "] (", (*to)[d], "): one point along that axis needs them equal"));
    }
    const std::size_t first = problem.interior_points.size();
    const auto coordinate = [&](std::size_t d, std::int64_t k) {
      return (*count)[d] == 1
                 ? (*from)[d]
                 : (*from)[d] + ((*to)[d] - (*from)[d]) * static_cast<double>(k) / static_cast<double>((*count)[d] - 1);
    };
    // x fastest, then y, then z.
    for (std::int64_t k = 0; k < (*count)[2]; ++k)
      for (std::int64_t j = 0; j < (*count)[1]; ++j)
        for (std::int64_t i = 0; i < (*count)[0]; ++i)
          problem.interior_points.push_back({coordinate(0, i), coordinate(1, j), coordinate(2, k)});
    add_group(problem, "grid", first, str(grid.file(), ":", grid.line()));
  }
}

// ---------------------------------------------------------------------------------------------
// Settings in [bem]

BemOptions read_options(const Table& bem) {
  BemOptions out;
  out.gauss = bounded_integer(bem, "gauss", 1, most_gauss, "Gauss points per direction").value_or(out.gauss);
  out.singular_gauss =
      bounded_integer(bem, "singular_gauss", 1, most_gauss, "Gauss points per direction").value_or(out.singular_gauss);
  if (bem.has("near_ratio"))
    out.near_ratio = positive(bem, "near_ratio", "distance over diameter below which a piece is subdivided");
  out.max_depth =
      bounded_integer(bem, "max_depth", 0, deepest_subdivision, "halvings of a near piece").value_or(out.max_depth);
  out.free_term = named_choice(bem, "free_term", bem_free_term_names).value_or(out.free_term);
  out.elements = named_choice(bem, "elements", bem_element_names).value_or(out.elements);
  out.layout = named_choice(bem, "layout", bem_layout_names).value_or(out.layout);
  out.solver = named_choice(bem, "solver", bem_solver_names).value_or(out.solver);
  if (bem.has("tolerance")) {
    out.tolerance = positive(bem, "tolerance", "the compressed solver's relative accuracy");
    if (out.tolerance >= 0.1)
      bem.fail("tolerance", str("'tolerance' is ", out.tolerance, "; the compressed solver's relative accuracy lies "
                                "in (0, 0.1), 1e-5 when not given"));
  }
  out.backend = named_choice(bem, "backend", backend_names).value_or(out.backend);
  if (bem.has("min_elements_per_wavelength"))
    out.min_elements_per_wavelength =
        positive(bem, "min_elements_per_wavelength", "elements per shear wavelength at the highest frequency");
  return out;
}

}  // namespace

BemProblem read_bem_model_buffer(std::string_view text, const std::string& name, const std::string& base_dir) {
  const toml::table document = detail::parse_document(text, name);
  const Table root(document, name, "top level");
  for (std::string_view key : finite_element_keys)
    if (root.has(key))
      root.fail(key, str("[", key,
                         "] belongs to a finite-element model file (tremor run, tremor static); a "
                         "boundary-element model lies in a [bem] table (docs/bem.md)"));
  root.only(top_keys);
  const auto bem = root.table("bem");
  if (!bem)
    root.fail_at(0,
                 "missing [bem]: a boundary-element model file holds [bem] with 'frequencies', [bem.mesh], "
                 "[bem.material] and [[bem.boundary]] (docs/bem.md)");
  bem->only(bem_keys);

  BemProblem problem;
  problem.source = name;
  problem.title = root.string("title").value_or("");
  const auto mesh = bem->table("mesh");
  if (!mesh) bem->fail_at(bem->line(), "missing [bem.mesh] (a Gmsh surface 'file' or a 'generator')");
  const auto material = bem->table("material");
  if (!material) bem->fail_at(bem->line(), "missing [bem.material] (density and two elastic constants)");
  problem.frequencies = read_frequencies(*bem);
  problem.options = read_options(*bem);
  problem.material = read_material(*material);
  problem.mesh = read_mesh(*mesh, base_dir);

  std::map<std::string, long> set_lines;
  for (Table table : bem->tables("boundary")) {
    BemBoundaryCondition condition = read_boundary(table, problem.mesh);
    const auto [first, inserted] = set_lines.emplace(condition.element_set, table.line("element_set"));
    if (!inserted)
      table.fail("element_set", str("element set '", condition.element_set,
                                    "' already has a boundary condition, at line ", first->second));
    problem.boundary.push_back(std::move(condition));
  }
  if (const auto interior = bem->table("interior")) read_interior(*interior, problem);
  return problem;
}

BemProblem read_bem_model_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::string extension = fs::path(path).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension == ".msh" || extension == ".inp")
    throw Error(str(path, ": tremor bem reads a boundary-element model file (.toml with a [bem] table), not a ",
                    extension == ".msh" ? "Gmsh mesh" : "Abaqus/CalculiX input",
                    "; name the surface mesh in it: [bem.mesh] file = \"", fs::path(path).filename().string(), "\""));
  const std::string text = read_file(path, "model file", largest_model_text);
  std::string base_dir = fs::path(path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  return read_bem_model_buffer(text, path, base_dir);
}

}  // namespace tremor::io
