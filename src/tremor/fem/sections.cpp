#include "tremor/fem/sections.hpp"

#include <algorithm>
#include <string>

#include "tremor/core/error.hpp"
#include "tremor/fem/geometry.hpp"
#include "tremor/model/absorbing.hpp"
#include "tremor/model/material_field.hpp"

namespace tremor::fem {

namespace {

std::string prefix(const Model& model) { return model.source.empty() ? std::string() : str(model.source, ": "); }
// A section's line where it has one.
std::string prefix(const Model& model, const Section& section) {
  return section.origin.empty() ? prefix(model) : str(section.origin, ": ");
}

}  // namespace

SectionTable section_table(const Model& model, bool check_geometry) {
  const Mesh& mesh = model.mesh;
  SectionTable table;
  table.dim = mesh.dim();
  table.n_voigt = table.dim == 2 ? 3 : 6;
  model.refuse_fluids("a solid's element kernel");
  // A row per section, and beyond them one per distinct sample of a material field
  // (model/material_field.hpp): the kernels read an element's row where they read its section's.
  ElementMaterials materials = element_materials(model);
  // Solids are kept per row only where some row attenuates (a field's rows may be millions).
  const bool attenuates = std::any_of(materials.rows.begin(), materials.rows.end(),
                                      [](const Material& m) { return m.attenuation.has_value(); });
  table.D.reserve(materials.rows.size());
  std::vector<RowField> fields;
  bool any_field_row = false;
  for (std::size_t row = 0; row < materials.rows.size(); ++row) {
    const Section& section = model.sections[static_cast<std::size_t>(materials.row_section[row])];
    const Material& given = materials.rows[row];
    given.validate();
    // An attenuating material's D holds its unrelaxed moduli: the stiffness the step sees first,
    // which sets the stable step.
    SectionSolids solids;
    Material material = given;
    if (given.attenuation) {
      const ResolvedAttenuation r = resolve_attenuation(model, given);
      TREMOR_CHECK(table.dim == 3 || section.formulation == Formulation::PlaneStrain,
                   prefix(model, section), "section on '",
                   section.element_set, "': attenuating material '", given.name,
                   "' takes plane strain or 3D (plane stress's condensed zz stress has no memory variables here)");
      material = given.isotropic
                     ? Material::from_lame(given.name, r.kappa_u - 2.0 / 3.0 * r.mu_u, r.mu_u, given.density)
                     : Material::from_stiffness(given.name, r.unrelaxed, given.density);
      material.damping_alpha = given.damping_alpha;
      material.damping_beta = given.damping_beta;
      solids.n = static_cast<int>(r.shear.omega.size());
      solids.coarse = given.attenuation->coarse_grained;
      for (int l = 0; l < solids.n; ++l) {
        const auto k = static_cast<std::size_t>(l);
        solids.omega[k] = r.shear.omega[k];
        solids.y_kappa[k] = r.bulk.y[k];
        solids.y_mu[k] = r.shear.y[k];
      }
      solids.kappa = r.kappa_u;
      if (given.isotropic) {
        solids.mu = r.mu_u;
      } else {
        // Plane strain: the in-plane rows and columns of the 3D part, which holds the zz strain
        // that a plane anelastic strain's deviator has.
        const std::array<double, 36> part = deviatoric_part(r.unrelaxed);
        if (table.dim == 3) {
          solids.deviatoric = part;
        } else {
          const Voigt3 plane = in_plane(part);
          std::copy(plane.begin(), plane.end(), solids.deviatoric.begin());
        }
      }
    }
    if (attenuates) table.solids.push_back(solids);
    RowField field;
    const Material& nominal = model.material(section.material);
    if (materials.row_sampled(row) && nominal.field && !nominal.field->by_element()) {
      field.field = nominal.field;
      field.sample = materials.row_sample[row];
      if (given.attenuation) {  // the centre's fit, at each point: its moduli's factors
        field.kappa_factor = solids.kappa / voigt_bulk(given.stiffness);
        field.mu_factor = solids.mu / voigt_shear(given.stiffness);
      }
      any_field_row = true;
    }
    field.formulation = section.formulation;
    std::array<double, 36> D{};
    if (table.dim == 2) {
      const Voigt3 d = plane_stiffness(material, section.formulation);
      std::copy(d.begin(), d.end(), D.begin());
      TREMOR_CHECK(section.thickness > 0.0, prefix(model, section), "section on '", section.element_set,
                   "' has non-positive thickness ", section.thickness);
    } else {
      D = material.stiffness;
    }
    table.D.push_back(D);
    table.thickness.push_back(table.dim == 2 ? section.thickness : 1.0);
    table.density.push_back(material.density);
    field.isotropic = law_kind(D.data(), table.n_voigt) == LawKind::Isotropic;
    if (field.isotropic) {
      const IsotropicLaw<3, double> law3 = IsotropicLaw<3, double>::of(D.data());
      const IsotropicLaw<2, double> law2 = IsotropicLaw<2, double>::of(D.data());
      field.lambda = table.dim == 3 ? law3.lambda : law2.lambda;
      field.mu = table.dim == 3 ? law3.mu : law2.mu;
    }
    field.density = material.density;
    fields.push_back(std::move(field));
    table.damping_alpha.push_back(material.damping_alpha);
    table.damping_beta.push_back(material.damping_beta);
  }
  if (std::none_of(table.solids.begin(), table.solids.end(), [](const SectionSolids& s) { return s.n > 0; }))
    table.solids.clear();
  if (any_field_row) table.fields = std::move(fields);
  table.element_section = std::move(materials.element_row);
  for (std::size_t e = 0; e < table.element_section.size(); ++e)
    TREMOR_CHECK(table.element_section[e] >= 0, prefix(model), "element ", mesh.element_label(static_cast<Index>(e)),
                 " has no section (no material assigned)");
  if (check_geometry) fem::check_geometry(mesh, model.mesh_source());
  AbsorbingProfile profile = absorbing_profile(model);
  table.element_alpha = std::move(profile.alpha);
  table.element_stiffness_factor = std::move(profile.stiffness_factor);
  return table;
}

}  // namespace tremor::fem
