// The model file's media: [[material]], [[section]], [[absorbing]] and [[pressure_release]]
// (docs/model-file.md).
#include "tremor/io/model_file_parts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "tremor/core/error.hpp"
#include "tremor/mesh/faces.hpp"
#include "tremor/io/material_field_file.hpp"
#include "tremor/core/text_rows.hpp"
#include "tremor/io/file.hpp"
#include "tremor/model/attenuation.hpp"
#include "tremor/model/microstructure.hpp"
#include "tremor/model/pml.hpp"

namespace tremor::io::model_file {

using detail::choice;

constexpr std::string_view material_keys[] = {
    "name",          "density",      "damping_alpha", "damping_beta",  "youngs_modulus", "poisson_ratio", "lame_lambda",
    "shear_modulus", "p_wave_speed", "s_wave_speed",  "stiffness",     "youngs_moduli",  "poisson_ratios",
    "shear_moduli",  "q_p",          "q_s",           "q_kappa",       "q_mu",           "reference_frequency",
    "q_band",        "q_solids",      "q_coarse_grained", "kind",          "sound_speed",    "bulk_modulus",
    "field",         "field_interpolation", "grains"};
constexpr std::string_view grain_keys[] = {"file", "size", "seed", "texture", "fibre", "spread", "elongation"};
constexpr std::string_view textures[] = {"random", "fibre"};
constexpr std::string_view field_interpolations[] = {"linear", "nearest"};
constexpr std::string_view material_kinds[] = {"solid", "fluid"};
constexpr std::string_view section_keys[] = {"element_set", "material", "formulation", "thickness"};
constexpr std::string_view formulations[] = {"solid", "plane_strain", "plane_stress"};

namespace {

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

}  // namespace

namespace {

// A quality factor key: within (1, 1e5) where given, infinity (none) where not.
double quality_of(const Table& material, std::string_view key) {
  const std::optional<double> q = material.number(key);
  if (!q) return std::numeric_limits<double>::infinity();
  if (!(*q > smallest_quality && *q < largest_quality))
    material.fail(key, str("'", key, "' is ", *q, "; expected a quality factor within (", smallest_quality, ", ",
                           largest_quality, ") (leave it out for none)"));
  return *q;
}

// The attenuation keys (docs/model-file.md, "Attenuation"): none given, none; q_band, q_solids,
// q_coarse_grained or reference_frequency without a quality factor, an error at the first.
// `field_quality`: a material field gives Q_P and Q_S per point (model/material_field.hpp); the
// keys then give the fit's settings only, and a quality factor among them is refused.
std::optional<Attenuation> read_attenuation(const Table& material, bool field_quality = false) {
  static constexpr std::string_view others[] = {"reference_frequency", "q_band", "q_solids", "q_coarse_grained"};
  const bool waves = material.has("q_p") || material.has("q_s"), moduli = material.has("q_kappa") || material.has("q_mu");
  if (field_quality) {
    for (std::string_view key : {"q_p", "q_s", "q_kappa", "q_mu"})
      if (material.has(key))
        material.fail(key, str("'", key, "' and the field's q_p and q_s both given; the field gives Q per point"));
  } else if (!waves && !moduli) {
    for (std::string_view key : others)
      if (material.has(key))
        material.fail(key, str("'", key, "' without a quality factor: give q_p and q_s, or q_kappa and/or q_mu"));
    return std::nullopt;
  }
  if (waves && moduli)
    material.fail(material.has("q_kappa") ? "q_kappa" : "q_mu",
                  "give either q_p and q_s (P and S waves) or q_kappa and/or q_mu (bulk and shear moduli), not both");
  if (waves && !(material.has("q_p") && material.has("q_s")))
    material.fail(material.has("q_p") ? "q_p" : "q_s", "give q_p and q_s together (or q_kappa and/or q_mu)");
  Attenuation a;
  a.by_waves = waves || field_quality;
  if (field_quality) {
    // (each element's from the field: MaterialField::material)
  } else if (waves) {
    a.q_p = quality_of(material, "q_p");
    a.q_s = quality_of(material, "q_s");
  } else {
    a.q_kappa = quality_of(material, "q_kappa");
    a.q_mu = quality_of(material, "q_mu");
  }
  a.reference_frequency = material.number("reference_frequency", 0.0);
  if (material.has("reference_frequency") && !(a.reference_frequency > 0.0))
    material.fail("reference_frequency",
                  str("'reference_frequency' is ", a.reference_frequency, "; expected a positive frequency, Hz"));
  if (const auto band = material.numbers("q_band", 2)) {
    if (!((*band)[0] > 0.0 && (*band)[1] > (*band)[0]))
      material.fail("q_band", str("'q_band' is [", (*band)[0], ", ", (*band)[1],
                                  "]; expected [f_min, f_max] with 0 < f_min < f_max, Hz"));
    a.band = {(*band)[0], (*band)[1]};
  }
  if (const auto solids = material.integer("q_solids")) {
    if (*solids < 1 || *solids > largest_solids)
      material.fail("q_solids", str("'q_solids' is ", *solids, "; expected 1 to ", largest_solids,
                                    " standard linear solids"));
    a.solids = static_cast<int>(*solids);
  }
  if (const auto coarse = material.boolean("q_coarse_grained")) a.coarse_grained = *coarse;
  return a;
}

// An acoustic fluid: density and one of sound_speed and bulk_modulus; no shear, no other key.
Material read_fluid(const Table& material, const std::string& name, double density) {
  for (const std::string_view key : material_keys)
    if (material.has(key) && key != "name" && key != "kind" && key != "density" && key != "sound_speed" &&
        key != "bulk_modulus")
      material.fail(key, str("'", key, "' is not a fluid's: a fluid (kind = \"fluid\") takes density and sound_speed ",
                             "(or bulk_modulus), and has no shear modulus, Poisson's ratio, damping or Q"));
  const bool speed = material.has("sound_speed"), modulus = material.has("bulk_modulus");
  if (speed == modulus)
    material.fail_at(speed ? material.line("bulk_modulus") : material.line(),
                     "give exactly one of sound_speed (m/s) and bulk_modulus (Pa) for a fluid");
  const std::string_view key = speed ? "sound_speed" : "bulk_modulus";
  const double value = *material.number(key);
  if (!(value > 0.0) || !std::isfinite(value))
    material.fail(key, str("'", key, "' is ", value, "; expected a positive ", speed ? "speed, m/s" : "modulus, Pa"));
  const double kappa = speed ? density * value * value : value;
  if (kappa < smallest_material_constant || kappa > largest_material_constant)
    material.fail(key, str("'", key, "' gives a bulk modulus of ", kappa, " Pa; expected one within [",
                           smallest_material_constant, ", ", largest_material_constant,
                           "] Pa, the magnitudes of a material"));
  return Material::from_sound_speed(name, std::sqrt(kappa / density), density);
}

// A solid's losses: Rayleigh damping (damping_alpha, damping_beta) and constant Q (a field's Q
// per point where `field_quality`).
void read_losses(Table& material, Material& result, bool field_quality = false) {
  const double damping = material.number("damping_alpha", 0.0);
  if (!(damping >= 0.0))
    material.fail("damping_alpha", str("'damping_alpha' is ", damping, "; expected a non-negative rate, 1/s"));
  const double beta = material.number("damping_beta", 0.0);
  if (!(beta >= 0.0 && std::isfinite(beta)))
    material.fail("damping_beta", str("'damping_beta' is ", beta, "; expected a non-negative time, s"));
  result.damping_alpha = damping;
  result.damping_beta = beta;
  result.attenuation = read_attenuation(material, field_quality);
}

// A material whose properties come from a gridded file (model/material_field.hpp): no density or
// elastic constants of its own; damping and attenuation as any solid's.
Material read_field_material(Table& material, const std::string& name, const std::string& base_dir,
                             const Mesh& mesh) {
  const int dim = mesh.dim();
  for (const auto& form : elastic_forms)
    for (std::string_view key : form.keys)
      if (material.has(key))
        material.fail(key, str("'", key, "' and 'field' both give the material's elastic properties; a field gives "
                               "them per point (give one)"));
  for (std::string_view key : {"density", "sound_speed", "bulk_modulus"})
    if (material.has(key))
      material.fail(key, str("'", key, "' and 'field' both given; the field gives the density per point"));
  const auto path = referenced_file(material, "field", "material field",
                                    "the path of an HDF5, NetCDF-4 or CSV grid of wave speeds (or moduli) and density",
                                    base_dir);
  std::shared_ptr<MaterialField> field;
  try {
    field = io::read_material_field(path.string(), dim);
  } catch (const Error& error) {
    material.fail("field", error.what());
  }
  if (const auto interpolation = choice(material, "field_interpolation", field_interpolations)) {
    if (field->by_element())
      material.fail("field_interpolation", "'field_interpolation' interpolates a grid; element data give each "
                                           "element its own values");
    field->interpolation = *interpolation == "nearest" ? FieldInterpolation::Nearest : FieldInterpolation::Linear;
  }
  if (field->by_element()) {  // every label an element's
    std::unordered_set<Label> labels;
    for (Index e = 0; e < mesh.n_elements(); ++e) labels.insert(mesh.element_label(e));
    for (const Label label : field->elements)
      if (!labels.count(label))
        material.fail("field", str(path.string(), ": element ", label, " is not an element of the mesh"));
  }
  // The nominal constants: the grid's first point's (every element samples the field).
  Material result;
  read_losses(material, result, field->has_quality());
  FieldSample first{field->values[0][0], field->values[1][0], field->values[2][0], INFINITY, INFINITY};
  if (field->has_quality()) first = {first[0], first[1], first[2], field->values[3][0], field->values[4][0]};
  const Material losses = result;
  result = field->material(name, first, losses.attenuation);
  result.damping_alpha = losses.damping_alpha;
  result.damping_beta = losses.damping_beta;
  result.field = std::move(field);
  return result;
}

// A grains file: a line an element, its label and Bunge's angles phi1, Phi, phi2 in degrees
// (commas, semicolons or blanks; a header line and '#' comments allowed).
void read_grains_file(const std::string& file, const Mesh& mesh, Microstructure& micro) {
  std::unordered_map<Label, long> line_of;
  std::unordered_set<Label> labels;
  for (Index e = 0; e < mesh.n_elements(); ++e) labels.insert(mesh.element_label(e));
  const std::string text = read_file(file, "grains file");  // the rows' views point into it
  for (const TextRow& row : text_rows(text)) {
    if (row.fields.size() != 4)
      throw Error(str(file, ":", row.line, ": ", row.fields.size(), " fields; a grain line takes 4: the element's "
                      "label, then phi1, Phi and phi2 (Bunge's Euler angles, degrees)"));
    double v[4];
    for (std::size_t k = 0; k < 4; ++k)
      if (!finite_number(row.fields[k], v[k]))
        throw Error(str(file, ":", row.line, ": field ", k + 1, " '", row.fields[k], "' is not a finite number"));
    const auto label = static_cast<Label>(v[0]);
    if (static_cast<double>(label) != v[0] || !labels.count(label))
      throw Error(str(file, ":", row.line, ": ", row.fields[0], " is not the label of an element of the mesh"));
    if (const auto [it, inserted] = line_of.emplace(label, row.line); !inserted)
      throw Error(str(file, ":", row.line, ": element ", label, " is given an orientation twice (also at line ",
                      it->second, ")"));
    constexpr double degree = std::numbers::pi / 180.0;
    micro.labels.push_back(label);
    micro.orientations.push_back(bunge_orientation(v[1] * degree, v[2] * degree, v[3] * degree));
  }
  if (micro.labels.empty()) throw Error(str(file, ": no grain line in the file (it is empty or all comments)"));
}

// [material.grains]: a file of orientations per element, or a Voronoi tessellation's size, seed,
// texture and elongation (model/microstructure.hpp).
std::shared_ptr<const Microstructure> read_grains(const Table& material, const std::string& base_dir,
                                                  const Mesh& mesh) {
  const toml::node& node = *material.node("grains");
  if (!node.as_table())
    material.fail("grains", str("'grains' must be a table such as { size = 50e-6, seed = 1 } or { file = "
                                "\"grains.csv\" }, got ", detail::describe(node)));
  const Table table = material.inline_table(*node.as_table(), str(material.where(), ": grains"));
  table.only(grain_keys);
  auto micro = std::make_shared<Microstructure>();
  micro->origin = origin_of(table);
  const int dim = mesh.dim();
  if (table.has("file") == table.has("size"))
    table.fail_at(table.line(), "grains take either 'file' (an orientation per element) or 'size' (m: a Voronoi "
                                "tessellation of that mean grain size), not both");
  if (table.has("file")) {
    for (const char* key : {"seed", "texture", "fibre", "spread", "elongation"})
      if (table.has(key)) table.fail(key, str("'", key, "' shapes generated grains; a grains file gives each element's"));
    micro->file = referenced_file(table, "file", "grains file", "the path of a grains file (CSV)", base_dir).string();
    read_grains_file(micro->file, mesh, *micro);
    return micro;
  }
  micro->size = positive(table, "size", "m, the mean grain size");
  if (const auto seed = table.integer("seed")) {
    if (*seed < 0) table.fail("seed", str("'seed' is ", *seed, "; expected a non-negative integer"));
    micro->seed = static_cast<std::uint64_t>(*seed);
  }
  if (table.has("elongation")) {
    const std::vector<double> e = *table.numbers("elongation", static_cast<std::size_t>(dim));
    for (int d = 0; d < dim; ++d) {
      if (!(e[static_cast<std::size_t>(d)] > 0.0))
        table.fail("elongation", str("'elongation'[", d, "] is ", e[static_cast<std::size_t>(d)],
                                     "; expected a positive factor (grains that many times longer along that axis)"));
      micro->elongation[static_cast<std::size_t>(d)] = e[static_cast<std::size_t>(d)];
    }
  }
  micro->fibre_texture = choice(table, "texture", textures).value_or("random") == "fibre";
  for (const char* key : {"fibre", "spread"})
    if (table.has(key) && !micro->fibre_texture)
      table.fail(key, str("'", key, "' shapes a fibre texture: give texture = \"fibre\""));
  if (micro->fibre_texture) {
    if (!table.has("fibre")) table.fail_at(table.line(), "a fibre texture needs 'fibre' (3 numbers: the axis its "
                                                          "grains' <001> lie along, in the model's axes)");
    micro->fibre = direction_of(table, "fibre", 3);
    const double spread = table.has("spread") ? non_negative(table, "spread", "degrees") : 0.0;
    if (spread > 90.0) table.fail("spread", str("'spread' is ", spread, " degrees; expected at most 90"));
    micro->spread = spread * std::numbers::pi / 180.0;
  }
  return micro;
}

}  // namespace

Material read_material(Table& material, const std::string& base_dir, const Mesh& mesh) {
  material.only(material_keys);
  const std::string name = material.required_string("name", "the material's name, used by [[section]]");
  if (name.empty()) material.fail("name", "'name' is empty");
  material.set_where(str(material.where(), " '", name, "'"));
  const bool fluid = choice(material, "kind", material_kinds).value_or("solid") == "fluid";
  if (material.has("grains") && (fluid || material.has("field")))
    material.fail("grains", fluid ? "'grains' orient a crystal; a fluid has none"
                                  : "'grains' orient one crystal's stiffness; a material 'field' varies isotropic "
                                    "properties instead: give the crystal's 'stiffness'");
  if (material.has("field")) {
    if (fluid) material.fail("field", "'field' describes a solid's wave speeds or moduli; a fluid takes 'sound_speed'");
    return read_field_material(material, name, base_dir, mesh);
  }
  if (material.has("field_interpolation"))
    material.fail("field_interpolation", "'field_interpolation' belongs to a material with a 'field'");
  const double density = material.required_number("density", "kg/m^3");
  if (!(density > 0.0))
    material.fail("density", str("'density' is ", density, "; expected a positive density, kg/m^3"));
  if (density < smallest_material_constant || density > largest_material_constant)
    material.fail("density", str("'density' is ", density, "; expected a density within [", smallest_material_constant,
                                 ", ", largest_material_constant, "] kg/m^3, the magnitudes of a material"));
  if (fluid) return read_fluid(material, name, density);
  for (const std::string_view key : {"sound_speed", "bulk_modulus"})
    if (material.has(key))
      material.fail(key, str("'", key, "' is a fluid's: give kind = \"fluid\" (a solid takes elastic constants)"));
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
  read_losses(material, result);
  if (material.has("grains")) {
    if (result.isotropic)
      material.fail("grains", str("'grains' orient an anisotropic crystal; material '", name,
                                  "' is isotropic (give its crystal's 'stiffness', in crystal axes)"));
    result.grains = read_grains(material, base_dir, mesh);
  }
  return result;
}

namespace {

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
  if (model.material(result.material).fluid) {  // one scalar per node: no formulation
    if (section.has("formulation"))
      section.fail("formulation", str("'formulation' is a solid's; '", result.material,
                                      "' is a fluid (one pressure potential per node, in 2D and 3D)"));
    result.formulation = mesh.dim() == 2 ? Formulation::PlaneStrain : Formulation::Solid;
  }
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

}  // namespace

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
    section.origin = origin_of(table);
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

constexpr std::string_view release_keys[] = {"node_set", "surface"};

FixedDof read_pressure_release(Table& table, const Model& model) {
  table.only(release_keys);
  if (int(table.has("node_set")) + int(table.has("surface")) != 1)
    table.fail_at(table.line(), "a pressure-release boundary takes one of 'node_set' (its nodes) and 'surface' (the "
                                "nodes of its faces)");
  // (Read after the sections: a model without a fluid is told here in the file's own terms.)
  if (!model.has_fluids())
    table.fail_at(table.line(), "a pressure-release boundary holds a fluid's pressure, and the model has no fluid "
                                "section (a [[material]] with kind = \"fluid\")");
  FixedDof release;
  release.component = FixedDof::pressure;
  release.origin = origin_of(table);
  release.nodes = table.has("node_set") ? node_set_of(table, model.mesh).second
                                        : nodes_of_faces(model.mesh, surface_of(table, model.mesh).second);
  return release;
}

constexpr std::string_view absorbing_keys[] = {"kind",      "faces",     "thickness",  "element_set", "power",
                                               "alpha_max", "frequency", "reflection", "multiaxial",
                                               "grid_damping"};
constexpr std::string_view absorbing_kinds[] = {"alid", "srm", "pml"};
constexpr std::string_view face_names[] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};

AbsorbingLayer read_absorbing(Table& table, const Model& model) {
  table.only(absorbing_keys);
  AbsorbingLayer layer;
  layer.origin = origin_of(table);
  const Mesh& mesh = model.mesh;
  const std::string kind = table.required_string("kind", choices(absorbing_kinds));
  (void)choice(table, "kind", absorbing_kinds);
  layer.kind = kind == "srm" ? AbsorbingKind::Srm : kind == "pml" ? AbsorbingKind::Pml : AbsorbingKind::Alid;
  const bool pml = layer.kind == AbsorbingKind::Pml;
  if (pml) layer.power = default_pml_power;
  table.set_where(str(table.where(), " (", kind, ")"));
  for (const char* key : {"reflection", "multiaxial", "grid_damping"})
    if (!pml && table.has(key)) table.fail(key, str("'", key, "' is a key of a pml layer; this one is ", kind));
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
    layer.element_set = element_set_of(table, mesh).first;
  }
  if (table.has("power"))
    layer.power = positive(table, "power", pml ? "the exponent N of d0 X^N" : "the exponent p of alpha_max (d / L)^p");
  if (table.has("reflection")) {
    layer.reflection = positive(table, "reflection", "the reflection designed for, such as 1e-4");
    if (!(layer.reflection < 1.0))
      table.fail("reflection", str("'reflection' is ", layer.reflection,
                                   "; expected the amplitude ratio designed for, in (0, 1), such as 1e-4 (-80 dB)"));
  }
  if (table.has("multiaxial")) {
    layer.multiaxial = table.number("multiaxial", 0.0);
    if (!(layer.multiaxial >= 0.0 && layer.multiaxial < 1.0))
      table.fail("multiaxial", str("'multiaxial' is ", layer.multiaxial,
                                   "; expected a ratio in [0, 1) (0: the C-PML; about 0.1 for anisotropic media)"));
  }
  if (table.has("grid_damping")) {
    layer.grid_damping = table.number("grid_damping", 0.0);
    if (!(layer.grid_damping >= 0.0 && layer.grid_damping <= max_pml_grid_damping))
      table.fail("grid_damping", str("'grid_damping' is ", layer.grid_damping, "; expected a ratio in [0, ",
                                     max_pml_grid_damping, "] (default ", default_pml_grid_damping,
                                     "; 0: none, docs/model-file.md \"PML\")"));
  }
  if (table.has("alpha_max"))
    layer.alpha_max = positive(table, "alpha_max", pml ? "alpha at the inner edge, 1/s" : "the damping at the outer edge, 1/s");
  if (table.has("frequency")) layer.frequency = positive(table, "frequency", "the design frequency, Hz");
  if (pml) {
    if (table.has("element_set"))
      table.fail("element_set", "a pml layer lines faces of the model's bounding box: give 'faces' only");
    if (!table.has("faces")) table.fail_at(table.line(), "a pml layer needs 'faces' (such as [\"xmax\", \"ymin\"])");
    if (layer.frequency == 0.0 && layer.alpha_max == 0.0 && !(source_frequencies(model)[0] > 0.0))
      table.fail_at(table.line(), "no design frequency: give 'frequency' (Hz) or 'alpha_max'; the model has no "
                                  "source with a centre frequency to take one from");
    return layer;
  }
  const bool needs_frequency = layer.kind == AbsorbingKind::Srm || layer.alpha_max == 0.0;
  if (needs_frequency && layer.frequency == 0.0 && !(highest_source_frequency(model) > 0.0))
    table.fail_at(table.line(), str("no design frequency: give 'frequency' (Hz)",
                                    layer.kind == AbsorbingKind::Srm ? "" : " or 'alpha_max'",
                                    "; the model has no time-varying source to take one from"));
  return layer;
}

}  // namespace tremor::io::model_file
