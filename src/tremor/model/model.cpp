#include "tremor/model/model.hpp"

#include <algorithm>

#include "tremor/core/error.hpp"

namespace tremor {

double Amplitude::value(double time) const {
  if (points.empty()) return 0.0;
  if (time <= points.front().first) return points.front().second;
  if (time >= points.back().first) return points.back().second;
  const auto upper = std::upper_bound(points.begin(), points.end(), time,
                                      [](double t, const std::pair<double, double>& p) { return t < p.first; });
  const auto lower = upper - 1;
  const double w = (time - lower->first) / (upper->first - lower->first);
  return (1.0 - w) * lower->second + w * upper->second;
}

const Material& Model::material(std::string_view name) const {
  for (const auto& m : materials)
    if (m.name == name) return m;
  throw Error(str(source, ": no material named '", name, "'"));
}

bool Model::has_fluids() const {
  return std::any_of(sections.begin(), sections.end(), [&](const Section& s) { return material(s.material).fluid; });
}

void Model::refuse_fluids(std::string_view what) const {
  for (const Section& section : sections)
    if (material(section.material).fluid)
      throw Error(str(source.empty() ? std::string() : str(source, ": "), "the section on '", section.element_set,
                      "' is of the fluid '", section.material, "': ", what,
                      " takes solid sections only (the explicit solver runs fluids: docs/model-file.md, \"Fluids\")"));
}

std::vector<int> Model::element_sections() const {
  std::vector<int> owner(static_cast<std::size_t>(mesh.n_elements()), -1);
  for (std::size_t s = 0; s < sections.size(); ++s) {
    const auto it = mesh.element_sets.find(sections[s].element_set);
    if (it == mesh.element_sets.end()) continue;
    for (Index e : it->second) owner[static_cast<std::size_t>(e)] = static_cast<int>(s);
  }
  return owner;
}

void Model::validate() const {
  mesh.validate(source);
  for (const auto& m : materials) m.validate();
  for (std::size_t i = 0; i < materials.size(); ++i)
    for (std::size_t j = i + 1; j < materials.size(); ++j)
      TREMOR_CHECK(materials[i].name != materials[j].name, source, ": material '", materials[i].name,
                   "' is defined twice");
  std::vector<int> owner(static_cast<std::size_t>(mesh.n_elements()), -1);
  for (std::size_t s = 0; s < sections.size(); ++s) {
    const Section& section = sections[s];
    const auto it = mesh.element_sets.find(section.element_set);
    TREMOR_CHECK(it != mesh.element_sets.end(), source, ": section refers to element set '", section.element_set,
                 "', which does not exist");
    (void)material(section.material);
    TREMOR_CHECK(section.thickness > 0.0, source, ": section on '", section.element_set,
                 "' has non-positive thickness ", section.thickness);
    const bool planar = section.formulation != Formulation::Solid;
    TREMOR_CHECK(planar == (mesh.dim() == 2), source, ": section on '", section.element_set, "' is ",
                 to_string(section.formulation), " but the mesh is ", mesh.dim(), "D");
    for (Index e : it->second) {
      int& o = owner[static_cast<std::size_t>(e)];
      TREMOR_CHECK(o < 0, source, ": element ", mesh.element_label(e), " is in the sections of both '",
                   sections[static_cast<std::size_t>(o)].element_set, "' and '", section.element_set, "'");
      o = static_cast<int>(s);
    }
  }
  if (!sections.empty())
    for (std::size_t e = 0; e < owner.size(); ++e)
      TREMOR_CHECK(owner[e] >= 0, source, ": element ", mesh.element_label(static_cast<Index>(e)),
                   " has no section (no material assigned)");
  for (const auto& a : amplitudes)
    for (std::size_t k = 1; k < a.points.size(); ++k)
      TREMOR_CHECK(a.points[k].first > a.points[k - 1].first, source, ": amplitude '", a.name,
                   "' times must increase (", a.points[k - 1].first, " then ", a.points[k].first, ")");
  const int dim = mesh.dim();
  for (const auto& f : fixed) {
    if (f.component == FixedDof::pressure) {
      TREMOR_CHECK(has_fluids(), f.origin, ": the acoustic pressure (degree of freedom 8) is a fluid's, and the "
                   "model has no fluid section");
      TREMOR_CHECK(f.value == 0.0 && f.amplitude.empty(), f.origin, ": a prescribed pressure of ", f.value,
                   f.amplitude.empty() ? "" : str(" x amplitude '", f.amplitude, "'"),
                   ": a fluid's pressure is held at 0 (a pressure-release boundary) and not prescribed otherwise");
      continue;
    }
    TREMOR_CHECK(f.component >= 0 && f.component < dim, f.origin, ": degree of freedom ", f.component + 1,
                 " does not exist in a ", dim, "D model");
  }
  for (const auto& l : loads)
    TREMOR_CHECK(l.component >= 0 && l.component < dim, l.origin, ": degree of freedom ", l.component + 1,
                 " does not exist in a ", dim, "D model");
  validate_excitation(*this);
  for (const PointSource& s : point_sources)
    TREMOR_CHECK(!s.volume || has_fluids(), s.origin,
                 ": a volume source injects volume into a fluid, and the model has no fluid section");
  for (const Transducer& t : transducers)
    TREMOR_CHECK(t.mode != Transducer::Mode::Piston || has_fluids(), t.origin.empty() ? source : t.origin,
                 ": piston '", t.name, "' drives a fluid, and the model has no fluid section");
  // An array in contact pushes on a solid, an immersed one's pistons move a fluid (add_array
  // settles which from the sections it was added with: these must still say so).
  if (!arrays.empty() && !sections.empty())
    for (const TransducerArray& a : arrays)
      for (const std::vector<Face>& footprint : a.footprints)
        for (const Face& face : footprint) {
          const int s = owner[static_cast<std::size_t>(face.element)];
          const bool fluid = s >= 0 && material(sections[static_cast<std::size_t>(s)].material).fluid;
          TREMOR_CHECK(fluid == a.immersion, a.origin.empty() ? source : a.origin, ": array '", a.name,
                       "' stands on surface '", a.surface, "', a face of ",
                       s < 0 ? std::string("no section") : str("the ", fluid ? "fluid" : "solid", " '",
                                                              sections[static_cast<std::size_t>(s)].material, "'"),
                       ", and was added ", a.immersion ? "immersed in a fluid" : "in contact with a solid");
        }
  for (const Receiver& r : receivers)
    TREMOR_CHECK(!r.pressure || has_fluids(), r.origin.empty() ? source : r.origin, ": receiver '", r.name,
                 "' records pressure, which a fluid has, and the model has no fluid section");
  if (output) {
    output->check(mesh, source);
    TREMOR_CHECK(!output->pressure || has_fluids(), output->origin.empty() ? source : output->origin,
                 ": [output] snapshot_fields asks for pressure, which a fluid has, and the model has no fluid section");
  }
  validate_absorbing(*this);
}

}  // namespace tremor
