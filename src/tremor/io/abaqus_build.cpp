// The Abaqus reader after the last line: elements in the mesh's order, sets and surfaces, sections,
// materials, boundary conditions and loads checked against each other and put in the Model.
#include "tremor/io/abaqus_reader.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"

namespace tremor::io::abaqus {

void Reader::finish() {
  if (mesh_dim_ == 2) {
    check_planar();
    model_.mesh.reduce_to_2d(model_.source);
  }
  std::vector<std::vector<int>> exterior;
  const std::vector<Index> global_of = finish_sets(exterior);
  if (mesh_only_) {
    finish_mesh_only();
    return;
  }
  finish_sections();
  for (const MaterialDraft& draft : materials_) {
    model_.materials.push_back(build(draft));
    model_.materials.back().origin = src_.where(draft.where);
  }
  finish_conditions(global_of, exterior);
  warn_ignored();
  resolve_boundary_overrides();
  model_.validate();
}

// Element sets and surfaces in the mesh's element numbers; returns each definition's element. A
// surface's data line without a face identifier takes the element's faces on the boundary of the
// mesh: `exterior` then holds each element's boundary faces.
std::vector<Index> Reader::finish_sets(std::vector<std::vector<int>>& exterior) {
  Mesh& mesh = model_.mesh;
  // Definition order -> global element index (blocks in order, elements in order).
  std::vector<Index> offset(mesh.blocks.size(), 0);
  for (std::size_t b = 1; b < mesh.blocks.size(); ++b) offset[b] = offset[b - 1] + mesh.blocks[b - 1].n_elements();
  auto global = [&](Index definition) {
    const auto& e = elements_[static_cast<std::size_t>(definition)];
    return offset[static_cast<std::size_t>(e.block)] + e.local;
  };
  for (auto& [name, members] : element_sets_) {
    std::vector<Index> converted;
    converted.reserve(members.size());
    for (Index definition : members) converted.push_back(global(definition));
    normalise_set(converted);
    mesh.element_sets[name] = std::move(converted);
  }
  std::vector<Index> global_of(elements_.size());
  for (std::size_t d = 0; d < elements_.size(); ++d) global_of[d] = global(static_cast<Index>(d));
  const auto needs_exterior = [](const std::vector<PendingFace>& faces) {
    return std::any_of(faces.begin(), faces.end(), [](const PendingFace& face) { return face.face < 0; });
  };
  bool exterior_needed = false;
  for (const auto& [name, faces] : surfaces_) exterior_needed = exterior_needed || needs_exterior(faces);
  if (exterior_needed) {
    exterior.resize(static_cast<std::size_t>(mesh.n_elements()));
    for (const Face& face : boundary_faces(mesh)) exterior[static_cast<std::size_t>(face.element)].push_back(face.face);
  }
  for (const auto& [name, faces] : surfaces_) {
    mesh.face_sets[name] = resolve_faces(faces, global_of, exterior);
    if (mesh.face_sets[name].empty())
      fail(surface_where_.at(name), str("surface '", name, "' holds no face: its elements have no face on the "
                                        "boundary of the mesh"));
  }
  return global_of;
}

// Each element in exactly one section, checked here so that messages can name lines.
void Reader::finish_sections() {
  std::vector<int> owner(elements_.size(), -1);
  for (std::size_t s = 0; s < sections_.size(); ++s) {
    const PendingSection& pending = sections_[s];
    const auto set = element_sets_.find(pending.element_set);
    if (set == element_sets_.end()) fail(pending.where, "undefined element set '" + pending.element_set + "'");
    for (Index definition : set->second) {
      int& o = owner[static_cast<std::size_t>(definition)];
      if (o >= 0)
        fail(pending.where,
             str("element ", label_of(definition), " of set '", pending.element_set, "' already has the section at ",
                 src_.where(sections_[static_cast<std::size_t>(o)].where)));
      o = static_cast<int>(s);
    }
    const bool known = std::any_of(materials_.begin(), materials_.end(),
                                   [&](const MaterialDraft& m) { return m.name == pending.material; });
    if (!known) fail(pending.where, "undefined material '" + pending.material + "'");
    Section section;
    section.element_set = pending.element_set;
    section.material = pending.material;
    section.formulation = formulation(set->second, pending);
    if (section.formulation != Formulation::Solid) section.thickness = pending.thickness;
    section.origin = src_.where(pending.where);
    model_.sections.push_back(std::move(section));
  }

  if (!sections_.empty())
    for (std::size_t e = 0; e < owner.size(); ++e)
      if (owner[e] < 0)
        fail(element_where_[e],
             str("element ", label_of(static_cast<Index>(e)), " is in no *SOLID SECTION, so it has no material"));
}

// Boundary conditions, body forces, surface loads and nodal loads into the model, each amplitude
// checked; what a 2D model or a static step does not apply is listed in the warning.
void Reader::finish_conditions(const std::vector<Index>& global_of, const std::vector<std::vector<int>>& exterior) {
  const Mesh& mesh = model_.mesh;
  auto check_amplitude = [&](const std::string& name, Location where) {
    if (name.empty()) return;
    const bool known = std::any_of(model_.amplitudes.begin(), model_.amplitudes.end(),
                                   [&](const Amplitude& a) { return a.name == name; });
    if (!known) fail(where, "undefined amplitude '" + name + "'");
  };
  if (model_.static_settings) {
    // A static step applies its loads and boundary values at their full magnitude.
    const std::string note =
        "AMPLITUDE= in a *STATIC step (the static solver applies loads and boundary values at full magnitude)";
    for (const PendingFixed& entry : fixed_)
      if (!entry.dof.amplitude.empty()) ignore(note, entry.where);
    for (const PendingLoad& entry : loads_)
      if (!entry.load.amplitude.empty()) ignore(note, entry.where);
    for (const PendingSurfaceLoad& entry : surface_loads_)
      if (!entry.load.amplitude.empty()) ignore(note, entry.where);
    for (const PendingBodyForce& entry : body_forces_)
      if (!entry.force.amplitude.empty()) ignore(note, entry.where);
  }
  const int dim = mesh.dim();
  for (PendingFixed& entry : fixed_) {
    check_amplitude(entry.dof.amplitude, entry.where);
    if (entry.dof.component >= dim && entry.dof.component != FixedDof::pressure) {
      if (!entry.implied) ignore("*BOUNDARY on degree of freedom 3 of a 2D model", entry.where);
      continue;
    }
    model_.fixed.push_back(std::move(entry.dof));
  }
  for (PendingBodyForce& entry : body_forces_) {
    check_amplitude(entry.force.amplitude, entry.where);
    std::vector<Index>& elements = entry.force.elements;
    if (entry.everywhere) {
      elements.resize(static_cast<std::size_t>(mesh.n_elements()));
      for (std::size_t e = 0; e < elements.size(); ++e) elements[e] = static_cast<Index>(e);
    } else {
      for (Index definition : entry.definitions) elements.push_back(global_of[static_cast<std::size_t>(definition)]);
      normalise_set(elements);
    }
    model_.body_forces.push_back(std::move(entry.force));
  }
  for (PendingSurfaceLoad& entry : surface_loads_) {
    check_amplitude(entry.load.amplitude, entry.where);
    entry.load.faces = resolve_faces(entry.faces, global_of, exterior);
    model_.surface_loads.push_back(std::move(entry.load));
  }
  for (PendingLoad& entry : loads_) {
    check_amplitude(entry.load.amplitude, entry.where);
    if (entry.load.component >= dim) {
      ignore("*CLOAD on degree of freedom 3 of a 2D model", entry.where);
      continue;
    }
    model_.loads.push_back(std::move(entry.load));
  }
}

// What a mesh-only read leaves out, in the one warning with the unsupported items.
void Reader::finish_mesh_only() {
  std::vector<std::string> dropped;
  auto count = [&](std::size_t n, const char* what) {
    if (n > 0) dropped.push_back(str(n, " ", what));
  };
  count(materials_.size(), "material(s)");
  count(sections_.size(), "section(s)");
  count(fixed_.size(), "boundary condition(s)");
  count(loads_.size() + surface_loads_.size() + body_forces_.size(), "load(s)");
  count(model_.amplitudes.size(), "amplitude(s)");
  count(model_.histories.size(), "history output(s)");
  if (model_.explicit_step || model_.static_settings) dropped.push_back("the step");
  if (!dropped.empty()) {
    std::string list;
    for (std::size_t i = 0; i < dropped.size(); ++i) list += (i ? ", " : "") + dropped[i];
    log::warn(str(model_.source, ": only the mesh and sets are used; ignored ", list));
  }
  warn_ignored();
  const std::string source = model_.source;
  Mesh mesh = std::move(model_.mesh);
  model_ = Model{};
  model_.source = source;
  model_.mesh = std::move(mesh);
  model_.mesh.validate(model_.source);
}

// Global faces of pending ones, a face -1 standing for the element's faces on the boundary.
std::vector<Face> Reader::resolve_faces(const std::vector<PendingFace>& pending, const std::vector<Index>& global,
                                const std::vector<std::vector<int>>& exterior) const {
  std::vector<Face> faces;
  for (const PendingFace& face : pending) {
    const Index element = global[static_cast<std::size_t>(face.definition)];
    if (face.face >= 0) {
      faces.push_back({element, face.face});
      continue;
    }
    for (int f : exterior[static_cast<std::size_t>(element)]) faces.push_back({element, f});
  }
  normalise_faces(faces);
  return faces;
}

// A later *BOUNDARY on the same node and component replaces an earlier one, as Abaqus's default
// OP=MOD does; without this a solver would see two prescribed values for one degree of freedom.
void Reader::resolve_boundary_overrides() {
  std::unordered_map<std::int64_t, std::size_t> last;  // (node, component) -> group
  auto key = [](Index node, int component) { return static_cast<std::int64_t>(node) * 8 + component; };
  for (std::size_t g = 0; g < model_.fixed.size(); ++g)
    for (Index node : model_.fixed[g].nodes) last[key(node, model_.fixed[g].component)] = g;
  for (std::size_t g = 0; g < model_.fixed.size(); ++g) {
    auto& nodes = model_.fixed[g].nodes;
    const int component = model_.fixed[g].component;
    nodes.erase(std::remove_if(nodes.begin(), nodes.end(), [&](Index node) { return last[key(node, component)] != g; }),
                nodes.end());
  }
  model_.fixed.erase(std::remove_if(model_.fixed.begin(), model_.fixed.end(),
                                    [](const FixedDof& f) { return f.nodes.empty(); }),
                     model_.fixed.end());
}

}  // namespace tremor::io::abaqus
