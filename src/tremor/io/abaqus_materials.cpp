// The Abaqus reader's materials and sections: *MATERIAL with *ELASTIC, *DENSITY and *DAMPING,
// element-wise values by *DISTRIBUTION TABLE and *DISTRIBUTION, *SOLID SECTION, and the Materials
// and Formulations built from them after the last line.
#include "tremor/io/abaqus_reader.hpp"

#include <algorithm>
#include <cmath>

#include "tremor/core/error.hpp"
#include "tremor/model/material_field.hpp"

namespace tremor::io::abaqus {

void Reader::material(const KeywordLine& keyword) {
  check_parameters(keyword, {"NAME"});
  const std::string name = required_name(keyword, "NAME");
  for (const auto& draft : materials_)
    if (draft.name == name)
      fail(keyword.where, "material '" + name + "' is defined twice (first at " + src_.where(draft.where) + ")");
  no_data(keyword);
  materials_.push_back({});
  materials_.back().name = name;
  materials_.back().where = keyword.where;
  material_ = static_cast<int>(materials_.size()) - 1;
}

MaterialDraft& Reader::current_material(const KeywordLine& keyword) {
  if (material_ < 0) fail(keyword.where, keyword.display + " must follow a *MATERIAL keyword");
  return materials_[static_cast<std::size_t>(material_)];
}

void Reader::check_no_dependencies(const KeywordLine& keyword) {
  if (keyword.has("DEPENDENCIES") && parameter_integer(keyword, "DEPENDENCIES") != 0)
    fail(keyword.where, keyword.display + ": field-variable dependencies are not supported");
}

// All values of a material option's data lines; more than `count` plus a temperature means the
// constants depend on temperature, which a linear model cannot hold.
// With `distribution`: one name instead of numbers is a *DISTRIBUTION's (returned there, no values).
std::vector<Field> Reader::material_values(const KeywordLine& keyword, std::size_t count, const std::string& what,
                                           std::string* distribution) {
  std::vector<Field> values;
  for (Record& record : read_records()) values.insert(values.end(), record.fields.begin(), record.fields.end());
  if (values.empty()) fail(keyword.where, str(keyword.display, " needs a data line with ", what));
  if (distribution && values.size() == 1 && !values[0].text.empty() && !abaqus::parse_real(values[0].text)) {
    *distribution = abaqus::to_name(values[0].text);
    return {};
  }
  if (values.size() < count)
    fail(values.back().where, str(keyword.display, " expects ", count, " values (", what, "), got ", values.size()));
  if (values.size() > count + 1)
    fail(values[count + 1].where,
         str(keyword.display, " has ", values.size(), " values; expected ", what,
             " and an optional temperature (temperature-dependent constants are not supported)"));
  values.resize(count);
  return values;
}

void Reader::elastic(const KeywordLine& keyword) {
  check_parameters(keyword, {"TYPE", "MODULI", "DEPENDENCIES"});
  MaterialDraft& draft = current_material(keyword);
  check_no_dependencies(keyword);
  if (draft.elastic != MaterialDraft::Elastic::None)
    fail(keyword.where,
         "material '" + draft.name + "' has a second *ELASTIC (first at " + src_.where(draft.elastic_where) + ")");
  draft.elastic_where = keyword.where;
  const std::string type = option(keyword, "TYPE");
  if (type.empty() || type == "ISOTROPIC" || type == "ISO") {
    const auto values = material_values(keyword, 2, "Young's modulus and Poisson's ratio", &draft.elastic_distribution);
    draft.elastic = MaterialDraft::Elastic::Isotropic;
    if (!draft.elastic_distribution.empty()) return;  // per element: build()
    draft.constants = {real_or(values[0], 0.0, "Young's modulus"), real_or(values[1], 0.0, "Poisson's ratio")};
  } else if (type == "ENGINEERINGCONSTANTS") {
    const auto values = material_values(keyword, 9, "E1, E2, E3, nu12, nu13, nu23, G12, G13, G23");
    draft.elastic = MaterialDraft::Elastic::EngineeringConstants;
    for (const Field& field : values) draft.constants.push_back(real_or(field, 0.0, "an engineering constant"));
  } else if (type == "ORTHOTROPIC" || type == "ORTHO") {
    const auto values = material_values(keyword, 9, "D1111, D1122, D2222, D1133, D2233, D3333, D1212, D1313, D2323");
    // Abaqus pairs (row, column) in its Voigt order 11, 22, 33, 12, 13, 23.
    static constexpr int pairs[9][2] = {{0, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2}, {2, 2}, {3, 3}, {4, 4}, {5, 5}};
    draft.elastic = MaterialDraft::Elastic::Stiffness;
    draft.stiffness = to_tremor_voigt(values, pairs);
  } else if (type == "ANISOTROPIC" || type == "ANISO") {
    const auto values = material_values(keyword, 21, "D1111 ... D2323");
    // The upper triangle column by column in Abaqus's Voigt order 11, 22, 33, 12, 13, 23:
    // D1111; D1122 D2222; D1133 D2233 D3333; D1112 D2212 D3312 D1212; ...; D1123 ... D2323.
    static constexpr int pairs[21][2] = {{0, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2}, {2, 2}, {0, 3},
                                         {1, 3}, {2, 3}, {3, 3}, {0, 4}, {1, 4}, {2, 4}, {3, 4},
                                         {4, 4}, {0, 5}, {1, 5}, {2, 5}, {3, 5}, {4, 5}, {5, 5}};
    draft.elastic = MaterialDraft::Elastic::Stiffness;
    draft.stiffness = to_tremor_voigt(values, pairs);
  } else {
    fail(keyword.where, "*ELASTIC, TYPE=" + shown(type) +
                            " is not supported (ISOTROPIC, ENGINEERING CONSTANTS, ORTHOTROPIC or ANISOTROPIC)");
  }
}

// *DISTRIBUTION TABLE, NAME=t: its one data line names the columns' kinds, of those a material
// takes per element here: MODULUS and POISSON (an isotropic *ELASTIC's), DENSITY.
void Reader::distribution_table(const KeywordLine& keyword) {
  check_parameters(keyword, {"NAME"});
  const std::string name = required_name(keyword, "NAME");
  if (distribution_tables_.count(name))
    fail(keyword.where, "*DISTRIBUTION TABLE '" + name + "' is defined twice (first at " +
                            src_.where(distribution_tables_[name].where) + ")");
  if (!src_.data_follows()) fail(keyword.where, "*DISTRIBUTION TABLE needs a data line naming its columns");
  const Record record = read_record();
  DistributionTable table{{}, keyword.where};
  for (const Field& field : record.fields) {
    const std::string kind = abaqus::to_name(field.text);
    if (kind != "MODULUS" && kind != "POISSON" && kind != "DENSITY")
      fail(field.where, "*DISTRIBUTION TABLE column '" + shown(field.text) +
                            "' is not supported (MODULUS and POISSON for an isotropic *ELASTIC, DENSITY)");
    table.columns.push_back(kind);
  }
  no_data(keyword);
  distribution_tables_[name] = std::move(table);
}

// *DISTRIBUTION, NAME=d, LOCATION=ELEMENT, TABLE=t: the first data line's first field empty and the
// defaults after it; then an element number or element set name and its values per line (a later
// line for the same element wins, as in Abaqus).
void Reader::distribution(const KeywordLine& keyword) {
  check_parameters(keyword, {"NAME", "LOCATION", "TABLE"});
  DistributionDraft draft;
  draft.name = required_name(keyword, "NAME");
  draft.where = keyword.where;
  if (distributions_.count(draft.name))
    fail(keyword.where, "*DISTRIBUTION '" + draft.name + "' is defined twice (first at " +
                            src_.where(distributions_[draft.name].where) + ")");
  const std::string location = option(keyword, "LOCATION");
  if (location != "ELEMENT")
    fail(keyword.where, "*DISTRIBUTION, LOCATION=" + (location.empty() ? std::string("(none)") : shown(location)) +
                            " is not supported: give LOCATION=ELEMENT (values per element)");
  draft.table = required_name(keyword, "TABLE");
  const auto table = distribution_tables_.find(draft.table);
  if (table == distribution_tables_.end())
    fail(keyword.where, "*DISTRIBUTION '" + draft.name + "': no *DISTRIBUTION TABLE '" + draft.table +
                            "' before it");
  const std::size_t n = table->second.columns.size();
  bool first = true;
  for (const Record& record : read_records()) {
    if (record.fields.size() != n + 1)
      fail(record.where, str("*DISTRIBUTION '", draft.name, "' expects an element and ", n, " value",
                             n == 1 ? "" : "s", " (table '", draft.table, "') per line, got ", record.fields.size(),
                             " fields"));
    std::vector<double> values;
    for (std::size_t k = 1; k <= n; ++k) values.push_back(real(record.fields[k], "a distribution value"));
    if (first) {
      if (!record.fields[0].text.empty())
        fail(record.fields[0].where, "*DISTRIBUTION '" + draft.name +
                                         "': the first data line gives the defaults, its element left empty");
      draft.defaults = std::move(values);
      first = false;
      continue;
    }
    draft.entries.push_back({elements_of(record.fields[0]), std::move(values), record.where});
  }
  if (first) fail(keyword.where, "*DISTRIBUTION '" + draft.name + "' needs a data line of defaults");
  distributions_[draft.name] = std::move(draft);
}

// The distribution `name` that a material's option at `where` names, whose table must hold `columns`.
const DistributionDraft& Reader::distribution_named(const std::string& name, const std::vector<std::string>& columns,
                                                    Location where, const std::string& what) const {
  const auto it = distributions_.find(name);
  if (it == distributions_.end())
    fail(where, what + " names '" + name + "', which is no number and no *DISTRIBUTION");
  const std::vector<std::string>& has = distribution_tables_.at(it->second.table).columns;
  if (has != columns) {
    std::string wanted;
    for (const std::string& column : columns) wanted += (wanted.empty() ? "" : ", ") + column;
    fail(where, what + " takes a *DISTRIBUTION of " + wanted + "; '" + name + "''s table '" + it->second.table +
                    "' holds other columns");
  }
  return it->second;
}

// A material's element data from its distributions: every element of the mesh its values (the
// distribution's line for it, else its defaults; the material's own constant where only the
// density or only the elastic constants are distributed), as lambda, mu and density.
std::shared_ptr<const MaterialField> Reader::distributed(const MaterialDraft& draft, const Material& nominal) const {
  const std::size_t n = elements_.size();
  std::vector<double> youngs(n), poisson(n), density(n, nominal.density);
  const std::vector<double>& k = draft.constants;
  const auto fill = [&](const std::string& name, auto&& set) {
    const DistributionDraft& d = distributions_.at(name);
    for (std::size_t e = 0; e < n; ++e) set(e, d.defaults, d.where);
    for (const DistributionDraft::Entry& entry : d.entries)
      for (const Index e : entry.elements) set(static_cast<std::size_t>(e), entry.values, entry.where);
  };
  std::vector<Location> elastic_at(n, draft.elastic_where), density_at(n, draft.density_where);
  if (!draft.elastic_distribution.empty()) {
    fill(draft.elastic_distribution, [&](std::size_t e, const std::vector<double>& v, Location at) {
      youngs[e] = v[0], poisson[e] = v[1], elastic_at[e] = at;
    });
  } else {
    std::fill(youngs.begin(), youngs.end(), k[0]);
    std::fill(poisson.begin(), poisson.end(), k[1]);
  }
  if (!draft.density_distribution.empty())
    fill(draft.density_distribution, [&](std::size_t e, const std::vector<double>& v, Location at) {
      density[e] = v[0], density_at[e] = at;
    });
  auto field = std::make_shared<MaterialField>();
  field->file = str(src_.where(draft.where), " (material '", draft.name, "''s *DISTRIBUTION)");
  field->dim = mesh_dim_;
  field->properties = FieldProperties::Moduli;
  field->names = {"lame_lambda", "shear_modulus", "density", "q_p", "q_s"};
  for (std::size_t e = 0; e < n; ++e) {
    const double E = youngs[e], nu = poisson[e];
    if (!(E > 0.0) || !(nu > -1.0 && nu < 0.5))
      fail(elastic_at[e], str("material '", draft.name, "': element ", label_of(static_cast<Index>(e)),
                              " takes Young's modulus ", E, " and Poisson's ratio ", nu,
                              " (a positive modulus and a ratio within (-1, 0.5) are a material)"));
    if (!(density[e] > 0.0))
      fail(density_at[e], str("material '", draft.name, "': element ", label_of(static_cast<Index>(e)),
                              " takes the density ", density[e], " (positive)"));
    field->elements.push_back(label_of(static_cast<Index>(e)));
    field->values[0].push_back(E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu)));
    field->values[1].push_back(E / (2.0 * (1.0 + nu)));
    field->values[2].push_back(density[e]);
  }
  field->validate();
  return field;
}

// Abaqus states D with engineering shear strains (gamma_12 = 2 eps_12), as tremor does, so the
// constants carry over unscaled; only the Voigt order differs: Abaqus 11, 22, 33, 12, 13, 23,
// tremor xx, yy, zz, yz, xz, xy.
template <std::size_t N>
Voigt6 Reader::to_tremor_voigt(const std::vector<Field>& values, const int (&pairs)[N][2]) {
  static constexpr int to_tremor[6] = {0, 1, 2, 5, 4, 3};
  Voigt6 c{};
  for (std::size_t k = 0; k < N; ++k) {
    const double value = real_or(values[k], 0.0, "an elastic constant");
    const int i = to_tremor[pairs[k][0]], j = to_tremor[pairs[k][1]];
    c[static_cast<std::size_t>(6 * i + j)] = value;
    c[static_cast<std::size_t>(6 * j + i)] = value;
  }
  return c;
}

void Reader::density(const KeywordLine& keyword) {
  check_parameters(keyword, {"DEPENDENCIES"});
  MaterialDraft& draft = current_material(keyword);
  check_no_dependencies(keyword);
  if (draft.density) fail(keyword.where, "material '" + draft.name + "' has a second *DENSITY");
  draft.density_where = keyword.where;
  const auto values = material_values(keyword, 1, "the mass density", &draft.density_distribution);
  if (!draft.density_distribution.empty()) {  // per element: build()
    draft.density = 0.0;
    return;
  }
  draft.density = real(values[0], "the mass density");
  if (!(*draft.density > 0.0)) fail(values[0].where, str("the mass density must be positive, got ", *draft.density));
}

// *ACOUSTIC MEDIUM, BULK MODULUS (the default): the fluid's bulk modulus; with *DENSITY a fluid
// (docs/model-file.md, "Fluids"). VOLUMETRIC DRAG, CAVITATION LIMIT and the others give other
// quantities on their data lines: not supported, so the block is skipped whole (its data lines are
// no bulk modulus) and named among what was ignored.
void Reader::acoustic_medium(const KeywordLine& keyword) {
  MaterialDraft& draft = current_material(keyword);
  for (const auto& parameter : keyword.parameters)
    if (parameter.key != "BULKMODULUS" && parameter.key != "DEPENDENCIES") {
      ignore(str(keyword.display, ", ", parameter.key, " (the block and its data lines)"), keyword.where);
      skip_data();
      return;
    }
  check_no_dependencies(keyword);
  if (draft.bulk_modulus)
    fail(keyword.where, "material '" + draft.name + "' has a second *ACOUSTIC MEDIUM (first at " +
                            src_.where(draft.acoustic_where) + ")");
  draft.acoustic_where = keyword.where;
  const auto values = material_values(keyword, 1, "the bulk modulus");
  draft.bulk_modulus = real(values[0], "the bulk modulus");
  if (!(*draft.bulk_modulus > 0.0))
    fail(values[0].where, str("the bulk modulus must be positive, got ", *draft.bulk_modulus));
}

void Reader::damping(const KeywordLine& keyword) {
  check_parameters(keyword, {"ALPHA", "BETA", "COMPOSITE", "STRUCTURAL"});
  MaterialDraft& draft = current_material(keyword);
  if (keyword.has("ALPHA")) draft.damping_alpha = parameter_real(keyword, "ALPHA");
  if (draft.damping_alpha < 0.0)
    fail(keyword.where, str("*DAMPING, ALPHA must not be negative, got ", draft.damping_alpha));
  if (keyword.has("BETA")) draft.damping_beta = parameter_real(keyword, "BETA");
  if (draft.damping_beta < 0.0)
    fail(keyword.where, str("*DAMPING, BETA must not be negative, got ", draft.damping_beta));
  if (keyword.has("COMPOSITE")) ignore("*DAMPING, COMPOSITE", keyword.where);
  if (keyword.has("STRUCTURAL")) ignore("*DAMPING, STRUCTURAL", keyword.where);
  no_data(keyword);
}

void Reader::solid_section(const KeywordLine& keyword) {
  check_parameters(keyword, {"ELSET", "MATERIAL", "ORIENTATION", "CONTROLS"});
  PendingSection section;
  section.where = keyword.where;
  section.element_set = required_name(keyword, "ELSET");
  section.material = required_name(keyword, "MATERIAL");
  if (keyword.has("ORIENTATION")) ignore("*SOLID SECTION, ORIENTATION (material axes = global axes)", keyword.where);
  if (src_.data_follows()) {
    const Record record = read_line_record();
    // The first entry is the out-of-plane thickness of 2D elements; blank means 1.
    if (!record.fields.empty()) section.thickness = real_or(record.fields[0], 1.0, "the section thickness");
    if (section.thickness <= 0.0)
      fail(record.where, str("section thickness must be positive, got ", section.thickness));
    no_data(keyword);
  }
  sections_.push_back(std::move(section));
}

Formulation Reader::formulation(const std::vector<Index>& members, const PendingSection& section) {
  std::optional<Plane> plane;
  for (Index definition : members) {
    const Plane p = elements_[static_cast<std::size_t>(definition)].plane;
    if (plane && *plane != p)
      fail(section.where, "element set '" + section.element_set +
                              (p == Plane::Acoustic || *plane == Plane::Acoustic
                                   ? "' mixes acoustic (AC) and solid elements; give each its own section"
                                   : "' mixes plane strain (CPE) and plane stress (CPS) elements; give each its own "
                                     "section"));
    plane = p;
  }
  // Acoustic elements take an *ACOUSTIC MEDIUM, the others an *ELASTIC one.
  const auto draft = std::find_if(materials_.begin(), materials_.end(),
                                  [&](const MaterialDraft& m) { return m.name == section.material; });
  if (draft != materials_.end() && plane) {
    const bool acoustic = *plane == Plane::Acoustic, fluid = draft->bulk_modulus.has_value();
    if (acoustic && !fluid)
      fail(section.where, "element set '" + section.element_set + "' holds acoustic elements (AC2D*, AC3D*) and its "
                              "material '" + draft->name + "' has no *ACOUSTIC MEDIUM");
    if (!acoustic && fluid)
      fail(section.where, "material '" + draft->name + "' is acoustic (*ACOUSTIC MEDIUM) and element set '" +
                              section.element_set +
                              "' holds solid elements; give a fluid acoustic elements (AC3D8, ...)");
  }
  if (!plane) plane = mesh_dim_ == 2 ? Plane::Strain : Plane::Solid;
  if (*plane == Plane::Acoustic) return mesh_dim_ == 2 ? Formulation::PlaneStrain : Formulation::Solid;
  switch (*plane) {
    case Plane::Strain:
      return Formulation::PlaneStrain;
    case Plane::Stress:
      return Formulation::PlaneStress;
    case Plane::Solid:
    case Plane::Acoustic:
      break;
  }
  return Formulation::Solid;
}

Material Reader::build(const MaterialDraft& draft) {
  if (draft.bulk_modulus) {
    if (!draft.density_distribution.empty())
      fail(draft.density_where, "material '" + draft.name + "' is acoustic: a density per element is not supported");
    if (draft.elastic != MaterialDraft::Elastic::None)
      fail(draft.elastic_where, "material '" + draft.name + "' has both *ELASTIC and *ACOUSTIC MEDIUM (at " +
                                    src_.where(draft.acoustic_where) +
                                    "); give the fluid and the solid a material each");
    if (!draft.density) fail(draft.where, "material '" + draft.name + "' has *ACOUSTIC MEDIUM but no *DENSITY");
    if (draft.damping_alpha != 0.0 || draft.damping_beta != 0.0)
      fail(draft.where, "material '" + draft.name + "' is acoustic: *DAMPING is not supported on a fluid");
    try {
      return Material::from_sound_speed(draft.name, std::sqrt(*draft.bulk_modulus / *draft.density), *draft.density);
    } catch (const Error& error) {
      fail(draft.acoustic_where, error.what());
    }
  }
  if (draft.elastic == MaterialDraft::Elastic::None)
    fail(draft.where, "material '" + draft.name + "' has no *ELASTIC");
  if (!draft.density)
    fail(draft.where, "material '" + draft.name + "' has no *DENSITY (" +
                          (model_.static_settings ? "every tremor material has one; a *STATIC step uses it for GRAV"
                                                 : "explicit dynamics needs the mass") +
                          ")");
  // Values per element (*DISTRIBUTION): the nominal material of the defaults, the element data as
  // a material field (model/material_field.hpp, "Element data").
  std::vector<double> k = draft.constants;
  double density = draft.density.value_or(0.0);
  if (!draft.density_distribution.empty() && draft.elastic != MaterialDraft::Elastic::Isotropic)
    fail(draft.density_where, "material '" + draft.name +
                                  "': a density per element (*DISTRIBUTION) takes an isotropic *ELASTIC");
  if (!draft.elastic_distribution.empty())
    k = distribution_named(draft.elastic_distribution, {"MODULUS", "POISSON"}, draft.elastic_where,
                           "material '" + draft.name + "''s *ELASTIC")
            .defaults;
  if (!draft.density_distribution.empty())
    density = distribution_named(draft.density_distribution, {"DENSITY"}, draft.density_where,
                                 "material '" + draft.name + "''s *DENSITY")
                  .defaults[0];
  try {
    Material m;
    switch (draft.elastic) {
      case MaterialDraft::Elastic::Isotropic:
        m = Material::from_youngs(draft.name, k[0], k[1], density);
        if (!draft.elastic_distribution.empty() || !draft.density_distribution.empty()) m.field = distributed(draft, m);
        break;
      case MaterialDraft::Elastic::EngineeringConstants:
        // Abaqus order: E1, E2, E3, nu12, nu13, nu23, G12, G13, G23.
        m = Material::from_engineering_constants(draft.name, k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8],
                                                 density);
        break;
      default:
        m = Material::from_stiffness(draft.name, draft.stiffness, density);
        break;
    }
    m.damping_alpha = draft.damping_alpha;
    m.damping_beta = draft.damping_beta;
    return m;
  } catch (const Error& error) {
    fail(draft.elastic_where, error.what());
  }
}

}  // namespace tremor::io::abaqus
