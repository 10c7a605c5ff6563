#include "tremor/fem/coupling.hpp"

#include <algorithm>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/fem/faces.hpp"
#include "tremor/fem/point_sources.hpp"

namespace tremor::fem {

std::vector<Index> FluidSolidInterface::nodes() const {
  std::vector<Index> all;
  for (const CouplingFace& face : faces) all.insert(all.end(), face.nodes.begin(), face.nodes.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

namespace {

// Whether each element's section (model.element_sections()) is a fluid's.
std::vector<bool> fluid_of(const Model& model, const std::vector<int>& sections) {
  std::vector<bool> fluid(sections.size(), false);
  for (std::size_t e = 0; e < sections.size(); ++e)
    fluid[e] = sections[e] >= 0 && model.material(model.sections[static_cast<std::size_t>(sections[e])].material).fluid;
  return fluid;
}

// A face's nodes (global numbers, in the face's order) and its type.
struct FaceNodes {
  FaceType type;
  int order = 1;
  std::vector<Index> nodes;
};

FaceNodes nodes_of(const Mesh& mesh, const Face& face) {
  const ElementRef ref = mesh.locate(face.element);
  const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
  int local[max_face_nodes];
  const int n = face_nodes(block.type, block.order, face.face, local);
  FaceNodes out{face_type(block.type), block.order, {}};
  const auto element = block.nodes(ref.element);
  for (int k = 0; k < n; ++k) out.nodes.push_back(element[static_cast<std::size_t>(local[k])]);
  return out;
}

}  // namespace

std::vector<bool> fluid_elements(const Model& model) { return fluid_of(model, model.element_sections()); }

Unknowns count_unknowns(const Model& model) {
  const Mesh& mesh = model.mesh;
  if (!model.has_fluids()) return {static_cast<Size>(mesh.n_nodes()) * mesh.dim(), 0};
  const std::vector<bool> fluid = fluid_elements(model);
  std::vector<char> held(static_cast<std::size_t>(mesh.n_nodes()), 0);  // bit 0 a solid's, bit 1 a fluid's
  Index global = 0;
  for (const ElementBlock& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global)
      for (const Index node : block.nodes(e))
        held[static_cast<std::size_t>(node)] |= static_cast<char>(fluid[static_cast<std::size_t>(global)] ? 2 : 1);
  Unknowns out;
  for (const char h : held) {
    out.displacements += (h & 1) ? mesh.dim() : 0;
    out.potentials += (h & 2) ? 1 : 0;
  }
  return out;
}

FluidSolidInterface fluid_solid_interface(const Model& model) {
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  const std::vector<int> sections = model.element_sections();
  const RegionInterface found = region_interface(mesh, fluid_of(model, sections));
  const std::string& source = model.mesh_source();
  if (!found.touching.empty()) {
    const RegionInterface::Touch& t = found.touching.front();
    throw Error(str(source, ": fluid element ", mesh.element_label(t.inside), " and solid element ",
                    mesh.element_label(t.outside), " share node ", mesh.node_labels[static_cast<std::size_t>(t.node)],
                    " but no face (", found.touching.size(), " such node", found.touching.size() == 1 ? "" : "s",
                    "): a fluid meets a solid across whole faces of a conforming mesh"));
  }
  FluidSolidInterface out;
  std::vector<double> x;
  for (const auto& pair : found.faces) {
    const FaceNodes in = nodes_of(mesh, pair[0]), solid = nodes_of(mesh, pair[1]);
    std::vector<Index> a = in.nodes, b = solid.nodes;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (in.type != solid.type || in.order != solid.order || a != b)
      throw Error(str(source, ": fluid element ", mesh.element_label(pair[0].element), " (face ", pair[0].face + 1,
                      ", a ", face_type_name(in.type, in.order), ") and solid element ",
                      mesh.element_label(pair[1].element), " (face ", pair[1].face + 1, ", a ",
                      face_type_name(solid.type, solid.order),
                      ") share the corners of a face but not all its nodes: a non-conforming interface; a fluid "
                      "meets a solid across faces of the same nodes (elements of the same type and order)"));
    double thickness = 1.0;
    if (dim == 2) {
      const auto section_of = [&](Index e) -> const Section& {
        return model.sections[static_cast<std::size_t>(sections[static_cast<std::size_t>(e)])];
      };
      const Section &s_fluid = section_of(pair[0].element), &s_solid = section_of(pair[1].element);
      if (s_fluid.thickness != s_solid.thickness)
        throw Error(str(s_fluid.origin.empty() ? model.source : s_fluid.origin, ": the fluid section on '",
                        s_fluid.element_set, "' (thickness ", s_fluid.thickness, " m) meets the solid section on '",
                        s_solid.element_set, "'", s_solid.origin.empty() ? "" : str(" (", s_solid.origin, ")"),
                        " (thickness ", s_solid.thickness, " m) at elements ", mesh.element_label(pair[0].element),
                        " and ", mesh.element_label(pair[1].element),
                        ": coupled 2D sections take the same thickness"));
      thickness = s_solid.thickness;
    }
    CouplingFace face{pair[0], pair[1], solid.nodes, {}};
    x.clear();
    for (const Index node : solid.nodes) {
      const auto at = mesh.node(node);
      x.insert(x.end(), at.begin(), at.end());
    }
    const bool gll = solid.type == FaceType::LineGLL || solid.type == FaceType::QuadGLL;
    coupling_matrix(solid.type, solid.order, dim, x, gll, face.C);
    for (double& value : face.C) value *= thickness;
    out.faces.push_back(std::move(face));
  }
  return out;
}

Model solid_part(const Model& model) {
  const Mesh& mesh = model.mesh;
  const std::vector<bool> fluid = fluid_elements(model);
  Model out = model;
  Mesh& into = out.mesh;
  // Each element's number in the solid (-1: a fluid element's).
  std::vector<Index> number(fluid.size(), -1);
  Index global = 0, kept = 0;
  for (ElementBlock& block : into.blocks) {
    const Index n = block.n_elements(), per = block.n_element_nodes();
    Index to = 0;
    for (Index e = 0; e < n; ++e, ++global) {
      if (fluid[static_cast<std::size_t>(global)]) continue;
      number[static_cast<std::size_t>(global)] = kept++;
      std::copy_n(block.connectivity.begin() + static_cast<std::ptrdiff_t>(e * per), per,
                  block.connectivity.begin() + static_cast<std::ptrdiff_t>(to * per));
      block.labels[static_cast<std::size_t>(to)] = block.labels[static_cast<std::size_t>(e)];
      ++to;
    }
    block.connectivity.resize(static_cast<std::size_t>(to * per));
    block.labels.resize(static_cast<std::size_t>(to));
  }
  std::erase_if(into.blocks, [](const ElementBlock& block) { return block.n_elements() == 0; });
  for (auto& [name, members] : into.element_sets) {
    std::vector<Index> solid;
    for (const Index e : members)
      if (number[static_cast<std::size_t>(e)] >= 0) solid.push_back(number[static_cast<std::size_t>(e)]);
    members = std::move(solid);
  }
  const auto renumber = [&](std::vector<Face>& faces) {
    std::vector<Face> solid;
    for (const Face& face : faces)
      if (number[static_cast<std::size_t>(face.element)] >= 0)
        solid.push_back({number[static_cast<std::size_t>(face.element)], face.face});
    faces = std::move(solid);
  };
  for (auto& [name, faces] : into.face_sets) renumber(faces);
  // Body forces act on solids: one on a fluid element (gravity on every element, say) is refused,
  // a fluid's hydrostatic pressure not being modelled; the others renumbered as the sets are.
  for (BodyForce& body : out.body_forces) {
    for (Index& e : body.elements) {
      if (number[static_cast<std::size_t>(e)] >= 0) {
        e = number[static_cast<std::size_t>(e)];
        continue;
      }
      const auto n_fluid = std::count_if(body.elements.begin(), body.elements.end(),
                                         [&](Index f) { return number[static_cast<std::size_t>(f)] < 0; });
      throw Error(str(body.origin.empty() ? model.source : body.origin, ": the body force",
                      body.element_set.empty() ? str(" on every element") : str(" on '", body.element_set, "'"),
                      " acts on ", n_fluid, " fluid element", n_fluid == 1 ? "" : "s", " (element ",
                      mesh.element_label(e), "): a body force acts on solids (a fluid's hydrostatic pressure is not "
                      "modelled); give the solid's element set"));
    }
  }
  std::erase_if(out.sections, [&](const Section& section) { return model.material(section.material).fluid; });
  // Loads and receivers on the fluid alone.
  for (SurfaceLoad& load : out.surface_loads) {
    const std::size_t before = load.faces.size();
    renumber(load.faces);
    TREMOR_CHECK(load.faces.size() == before, load.origin, ": the surface load",
                 load.name.empty() ? std::string() : str(" '", load.name, "'"), " acts on ",
                 before - load.faces.size(), " faces of fluid elements: surface loads act on solids");
  }
  std::vector<bool> solid_node(static_cast<std::size_t>(mesh.n_nodes()), false);
  for (const ElementBlock& block : into.blocks)
    for (const Index node : block.connectivity) solid_node[static_cast<std::size_t>(node)] = true;
  const auto in_fluid = [&](const std::vector<Index>& nodes) -> const Index* {
    for (const Index& node : nodes)
      if (!solid_node[static_cast<std::size_t>(node)]) return &node;
    return nullptr;
  };
  // A displacement held or prescribed where every node it names only fluid elements hold, which have
  // no displacement, is refused (one that names solid nodes too holds those: a face spanning both).
  const auto fluid_nodes = [&](const std::vector<Index>& nodes, const std::string& origin, const char* what) {
    if (nodes.empty() || std::any_of(nodes.begin(), nodes.end(),
                                     [&](Index node) { return solid_node[static_cast<std::size_t>(node)]; }))
      return;
    throw Error(str(origin.empty() ? model.source : origin, ": ", what, " at ", nodes.size(), " node",
                    nodes.size() == 1 ? "" : "s", " (node ", mesh.node_labels[static_cast<std::size_t>(nodes[0])],
                    ") which only fluid elements hold: a fluid has no displacement (its faces are rigid where "
                    "nothing else holds them; [[pressure_release]] holds its pressure at 0, a [[transducer]] "
                    "piston drives it)"));
  };
  for (const PrescribedDisplacement& motion : model.prescribed)
    fluid_nodes(motion.nodes, motion.origin, "a prescribed displacement");
  for (const FixedDof& fixed : model.fixed)
    if (fixed.component != FixedDof::pressure) fluid_nodes(fixed.nodes, fixed.origin, "a held displacement");
  // Sources at positions placed while the fluid's elements are known (a force in the fluid, or a
  // volume source in the solid, refused by name); the nodes keep their numbers in the solid part.
  out.point_sources = placed_sources(model);
  for (PointSource& volume : placed_sources(model, true)) out.point_sources.push_back(std::move(volume));
  for (const PointSource& source : out.point_sources)
    if (const Index* node = source.volume ? nullptr : in_fluid(source.nodes))
      throw Error(str(source.origin, ": a point force on node ", mesh.node_labels[static_cast<std::size_t>(*node)],
                      ", which only fluid elements hold: forces act on solids (a fluid takes a volume source)"));
  // The receivers of pressure, and of motion at nodes only fluid elements hold, are the fluid's
  // (explicit_fe::make_histories locates them).
  std::erase_if(out.receivers,
                [&](const Receiver& receiver) { return receiver.pressure || in_fluid(receiver.nodes) != nullptr; });
  for (const HistoryOutput& history : out.histories)
    if (const Index* node = in_fluid(history.nodes))
      throw Error(str(model.source, ": the history output '", history.name, "' records node ",
                      mesh.node_labels[static_cast<std::size_t>(*node)],
                      ", which only fluid elements hold: history outputs record the solid's motion"));
  return out;
}

}  // namespace tremor::fem
