// The Abaqus reader's mesh: *HEADING, *NODE, *ELEMENT, *NSET, *ELSET and *SURFACE.
#include "tremor/io/abaqus_reader.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "tremor/core/error.hpp"

namespace tremor::io::abaqus {

namespace {

struct ElementKind {
  std::string_view name;
  ElementType type;
  Plane plane;
};

// Abaqus numbers the nodes of these elements as tremor does (Abaqus Analysis User's Guide, "Solid
// (continuum) elements"; CalculiX manual, "Element Types"): corner nodes first, counter-clockwise in
// 2D and, for hexahedra, on the face 1-2-3-4 seen from the face 5-6-7-8; node 4 of a tetrahedron on
// the side of face 1-2-3 from which 1-2-3 turns counter-clockwise. Mid-edge nodes follow the edges
// tri 12,23,31; quad 12,23,34,41; tet 12,23,31,14,24,34; hex 12,23,34,41, 56,67,78,85, 15,26,37,48
// (1-based), which are tremor's 0-based edge lists in element_type.hpp. Connectivity is therefore
// copied unchanged; the reduced-integration variants (R) share the node layout of the full ones.
constexpr ElementKind element_kinds[] = {
    {"CPE3", ElementType::Tri3, Plane::Strain},  {"CPS3", ElementType::Tri3, Plane::Stress},
    {"CPE4", ElementType::Quad4, Plane::Strain}, {"CPE4R", ElementType::Quad4, Plane::Strain},
    {"CPS4", ElementType::Quad4, Plane::Stress}, {"CPS4R", ElementType::Quad4, Plane::Stress},
    {"CPE6", ElementType::Tri6, Plane::Strain},  {"CPS6", ElementType::Tri6, Plane::Stress},
    {"CPE8", ElementType::Quad8, Plane::Strain}, {"CPE8R", ElementType::Quad8, Plane::Strain},
    {"CPS8", ElementType::Quad8, Plane::Stress}, {"CPS8R", ElementType::Quad8, Plane::Stress},
    {"C3D4", ElementType::Tet4, Plane::Solid},   {"C3D8", ElementType::Hex8, Plane::Solid},
    {"C3D8R", ElementType::Hex8, Plane::Solid},  {"C3D10", ElementType::Tet10, Plane::Solid},
    {"C3D20", ElementType::Hex20, Plane::Solid}, {"C3D20R", ElementType::Hex20, Plane::Solid},
    // Acoustic elements (a fluid's, one pressure unknown per node in Abaqus): the same node layouts.
    {"AC2D3", ElementType::Tri3, Plane::Acoustic},   {"AC2D4", ElementType::Quad4, Plane::Acoustic},
    {"AC2D6", ElementType::Tri6, Plane::Acoustic},   {"AC2D8", ElementType::Quad8, Plane::Acoustic},
    {"AC3D4", ElementType::Tet4, Plane::Acoustic},   {"AC3D8", ElementType::Hex8, Plane::Acoustic},
    {"AC3D10", ElementType::Tet10, Plane::Acoustic}, {"AC3D20", ElementType::Hex20, Plane::Acoustic},
};

const ElementKind* find_element_kind(std::string_view name) {
  for (const auto& kind : element_kinds)
    if (kind.name == name) return &kind;
  return nullptr;
}

std::string supported_element_list() {
  std::string list;
  for (const auto& kind : element_kinds) list += (list.empty() ? "" : ", ") + std::string(kind.name);
  return list;
}

// Abaqus limits data lines to 16 entries; a full line of an element with more nodes continues on
// the next line even without a trailing comma (as CalculiX reads it).
constexpr std::size_t max_entries_per_line = 16;

}  // namespace

void Reader::heading(const KeywordLine&) {
  while (src_.data_follows()) {
    const auto line = src_.next();
    if (!model_.title.empty()) model_.title += '\n';
    model_.title += line->text;
  }
}

void Reader::node(const KeywordLine& keyword) {
  check_parameters(keyword, {"NSET", "SYSTEM", "INPUT"});
  if (keyword.has("INPUT")) fail(keyword.where, "*NODE, INPUT= is not supported; use *INCLUDE, INPUT= instead");
  const std::string system = option(keyword, "SYSTEM");
  if (!system.empty() && system != "R")
    fail(keyword.where, "*NODE, SYSTEM=" + system + " is not supported (only rectangular coordinates, SYSTEM=R)");
  const std::string set_name = optional_name(keyword, "NSET");
  std::vector<Index>* set = set_name.empty() ? nullptr : &model_.mesh.node_sets[set_name];
  while (src_.data_follows()) {
    const Record record = read_line_record();
    const Label id = label(record.fields[0], "node number");
    double xyz[3] = {0.0, 0.0, 0.0};
    // Entries after z (a normal direction for shells) do not concern solids.
    for (std::size_t d = 0; d < 3 && d + 1 < record.fields.size(); ++d)
      xyz[d] = real_or(record.fields[d + 1], 0.0, "a node coordinate");
    const auto [it, added] = node_index_.try_emplace(id, model_.mesh.n_nodes());
    if (!added)
      fail(record.where, str("node ", id, " is defined twice (first at ",
                             src_.where(node_where_[static_cast<std::size_t>(it->second)]), ")"));
    if (model_.mesh.n_nodes() == std::numeric_limits<Index>::max())
      fail(record.where, "too many nodes for 32-bit indices");
    model_.mesh.add_node(id, xyz);
    node_where_.push_back(record.where);
    if (set != nullptr) set->push_back(it->second);
  }
  if (set != nullptr) normalise_set(*set);
}

void Reader::element(const KeywordLine& keyword) {
  check_parameters(keyword, {"TYPE", "ELSET", "INPUT"});
  if (keyword.has("INPUT")) fail(keyword.where, "*ELEMENT, INPUT= is not supported; use *INCLUDE, INPUT= instead");
  const std::string type_name = option(keyword, "TYPE");
  if (type_name.empty()) fail(keyword.where, "*ELEMENT needs TYPE=<element type>");
  const ElementKind* kind = find_element_kind(type_name);
  if (kind == nullptr)
    fail(keyword.where,
         "unknown or unsupported element type '" + shown(type_name) + "'; tremor reads " + supported_element_list());
  if (type_name.back() == 'R')
    ignore(str("*ELEMENT, TYPE=", type_name, " (reduced integration): read as ", kind->name.substr(0, kind->name.size() - 1),
               " with full integration, as tremor's ", element_name(kind->type), " is"),
           keyword.where);
  const int dim = dimension(kind->type);
  if (mesh_dim_ == 0) {
    mesh_dim_ = dim;
    mesh_dim_where_ = keyword.where;
  } else if (mesh_dim_ != dim) {
    fail(keyword.where,
         str("element type ", type_name, " is ", dim, "D but the elements at ", src_.where(mesh_dim_where_), " are ",
             mesh_dim_, "D; mixing 2D and 3D elements is not supported"));
  }
  const std::string set_name = optional_name(keyword, "ELSET");
  std::vector<Index>* set = set_name.empty() ? nullptr : &element_sets_[set_name];

  ElementBlock& created = model_.mesh.block_for(kind->type);
  const int block = static_cast<int>(&created - model_.mesh.blocks.data());
  const std::size_t n_nodes = static_cast<std::size_t>(nodes_per_element(kind->type));

  std::vector<Field> fields;
  while (src_.data_follows()) {
    fields.clear();
    const auto first = src_.next();
    bool continued = abaqus::split_fields(first->text, first->where, fields);
    std::size_t on_line = fields.size();
    while (fields.size() < n_nodes + 1 && (continued || on_line >= max_entries_per_line) && src_.data_follows()) {
      const auto line = src_.next();
      const std::size_t before = fields.size();
      continued = abaqus::split_fields(line->text, line->where, fields);
      on_line = fields.size() - before;
    }
    const Label id = label(fields[0], "element number");
    if (fields.size() < n_nodes + 1)
      fail(first->where, str("element ", id, " (", type_name, ") has only ", fields.size() - 1, " of its ", n_nodes,
                             " nodes (a line ending in a comma continues on the next line)"));
    if (fields.size() > n_nodes + 1)
      fail(fields[n_nodes + 1].where,
           str("element ", id, " (", type_name, ") takes ", n_nodes, " nodes but ", fields.size() - 1, " follow"));
    const auto [it, added] = element_index_.try_emplace(id, static_cast<Index>(elements_.size()));
    if (!added)
      fail(first->where, str("element ", id, " is defined twice (first at ",
                             src_.where(element_where_[static_cast<std::size_t>(it->second)]), ")"));
    if (elements_.size() >= static_cast<std::size_t>(std::numeric_limits<Index>::max()))
      fail(first->where, "too many elements for 32-bit indices");
    ElementBlock& target = model_.mesh.blocks[static_cast<std::size_t>(block)];
    for (std::size_t k = 1; k <= n_nodes; ++k) {
      const Label node_id = label(fields[k], "node number");
      const auto node = node_index_.find(node_id);
      if (node == node_index_.end())
        fail(fields[k].where, str("element ", id, " refers to node ", node_id,
                                  ", which is not defined (nodes must be defined before the elements using them)"));
      target.connectivity.push_back(node->second);
    }
    target.labels.push_back(id);
    elements_.push_back({block, target.n_elements() - 1, kind->plane});
    element_where_.push_back(first->where);
    if (set != nullptr) set->push_back(it->second);
  }
  if (set != nullptr) normalise_set(*set);
}

// Members of *NSET / *ELSET data: labels, set names, or GENERATE ranges.
template <class Lookup>
void Reader::read_set(const KeywordLine& keyword, std::vector<Index>& members, std::string_view noun, Index n_defined,
              const std::map<std::string, std::vector<Index>>& sets, Lookup lookup) {
  const bool generate = keyword.has("GENERATE");
  std::vector<Index> added;
  std::unordered_set<std::string> referenced;
  while (src_.data_follows()) {
    const Record record = read_record();
    if (generate) {
      if (record.fields.size() < 2 || record.fields.size() > 3)
        fail(record.where, str("GENERATE expects: first ", noun, ", last ", noun, "[, increment]"));
      const long long first = label(record.fields[0], str("first ", noun));
      const long long last = label(record.fields[1], str("last ", noun));
      long long step = 1;
      if (record.fields.size() == 3 && !record.fields[2].text.empty()) step = integer(record.fields[2], "increment");
      if (step <= 0)
        fail(record.where,
             str("GENERATE increment must be positive, got ", step, " (range ", first, " to ", last, ")"));
      if (last < first) fail(record.where, str("GENERATE range runs backwards: ", first, " to ", last));
      const long long count = (last - first) / step + 1;
      // Every generated id must exist, so a range longer than the defined count must fail; saying
      // so first keeps a huge span from becoming a huge loop.
      if (count > n_defined)
        fail(record.where, str("GENERATE range ", first, " to ", last, " step ", step, " names ", count, " ", noun,
                               "s, more than the ", n_defined, " defined"));
      for (long long k = 0; k < count; ++k) added.push_back(lookup(first + k * step, record.where));
      // Repeated ranges must not grow the list beyond the defined count.
      if (added.size() > 2 * static_cast<std::size_t>(n_defined)) normalise_set(added);
    } else {
      for (const Field& field : record.fields) {
        if (field.text.empty()) continue;
        if (abaqus::parse_integer(field.text)) {
          added.push_back(lookup(label(field, str(noun, " number")), field.where));
          continue;
        }
        const std::string name = abaqus::to_name(field.text);
        if (!referenced.insert(name).second) continue;
        const auto it = sets.find(name);
        if (it == sets.end()) fail(field.where, str("undefined ", noun, " set '", name, "'"));
        added.insert(added.end(), it->second.begin(), it->second.end());
        // Bounded by the defined count, however often sets are nested.
        normalise_set(added);
      }
    }
  }
  members.insert(members.end(), added.begin(), added.end());
  normalise_set(members);
}

void Reader::node_set_keyword(const KeywordLine& keyword) {
  check_parameters(keyword, {"NSET", "GENERATE", "INTERNAL", "UNSORTED", "INSTANCE", "ELSET"});
  if (keyword.has("INSTANCE"))
    fail(keyword.where, "*NSET, INSTANCE= needs parts and assemblies, which are not supported");
  if (keyword.has("ELSET")) fail(keyword.where, "*NSET, ELSET= is not supported; list the nodes");
  const std::string name = required_name(keyword, "NSET");
  std::vector<Index> members = model_.mesh.node_sets[name];
  read_set(keyword, members, "node", model_.mesh.n_nodes(), model_.mesh.node_sets,
           [this](Label id, Location where) { return node_index(id, where); });
  model_.mesh.node_sets[name] = std::move(members);
}

void Reader::element_set_keyword(const KeywordLine& keyword) {
  check_parameters(keyword, {"ELSET", "GENERATE", "INTERNAL", "UNSORTED", "INSTANCE"});
  if (keyword.has("INSTANCE"))
    fail(keyword.where, "*ELSET, INSTANCE= needs parts and assemblies, which are not supported");
  const std::string name = required_name(keyword, "ELSET");
  std::vector<Index> members = element_sets_[name];
  read_set(keyword, members, "element", static_cast<Index>(elements_.size()), element_sets_,
           [this](Label id, Location where) { return element_index(id, where); });
  element_sets_[name] = std::move(members);
}

void Reader::surface(const KeywordLine& keyword) {
  check_parameters(keyword, {"NAME", "TYPE"});
  const std::string name = required_name(keyword, "NAME");
  const std::string type = option(keyword, "TYPE");
  if (!type.empty() && type != "ELEMENT") {
    ignore(str("*SURFACE, TYPE=", shown(type), " (only element-based surfaces carry loads)"), keyword.where);
    skip_data();
    return;
  }
  const auto [where, added] = surface_where_.try_emplace(name, keyword.where);
  if (!added)
    fail(keyword.where, str("surface '", name, "' is defined twice (first at ", src_.where(where->second), ")"));
  std::vector<PendingFace>& faces = surfaces_[name];
  while (src_.data_follows()) {
    const Record record = read_line_record();
    const auto& f = record.fields;
    if (f.size() > 2) fail(f[2].where, "*SURFACE, TYPE=ELEMENT expects: element or element set[, face S1 to S6]");
    const std::vector<PendingFace> more =
        faces_of(elements_of(f[0]), f.size() > 1 ? f[1] : Field{}, 'S', "a face identifier");
    faces.insert(faces.end(), more.begin(), more.end());
  }
  if (faces.empty()) fail(keyword.where, str("surface '", name, "' has no data lines"));
}

// Definition indices of an element number or an element set name.
std::vector<Index> Reader::elements_of(const Field& field) {
  if (field.text.empty()) fail(field.where, "missing element number or element set name");
  if (abaqus::parse_integer(field.text)) return {element_index(label(field, "element number"), field.where)};
  const std::string name = abaqus::to_name(field.text);
  const auto it = element_sets_.find(name);
  if (it == element_sets_.end()) fail(field.where, "undefined element set '" + name + "'");
  return it->second;
}

ElementType Reader::type_of(Index definition) const {
  const ElementRecord& e = elements_[static_cast<std::size_t>(definition)];
  return model_.mesh.blocks[static_cast<std::size_t>(e.block)].type;
}

// The faces "<prefix>1" .. "<prefix>6" of `elements`: tremor's face k - 1 (mesh/faces.hpp
// numbers faces as Abaqus does), checked against each element's type. Empty text: -1.
std::vector<PendingFace> Reader::faces_of(const std::vector<Index>& elements, const Field& field, char prefix,
                                  std::string_view usage) {
  int face = -1;
  if (!field.text.empty()) {
    const std::string id = abaqus::to_name(field.text);
    const auto number = id.size() == 2 && id[0] == prefix ? abaqus::parse_integer(id.substr(1)) : std::nullopt;
    if (!number || *number < 1 || *number > 6)
      fail(field.where, str("'", shown(field.text), "' where ", usage, " was expected (", prefix, "1 to ", prefix,
                            "6: the element's face)"));
    face = static_cast<int>(*number) - 1;
  }
  std::vector<PendingFace> faces;
  faces.reserve(elements.size());
  for (Index definition : elements) {
    const ElementType type = type_of(definition);
    if (face >= n_faces(type))
      fail(field.where, str("element ", label_of(definition), " (", element_name(type), ") has faces ", prefix,
                            "1 to ", prefix, n_faces(type), ", not ", prefix, face + 1));
    faces.push_back({definition, face});
  }
  return faces;
}

Label Reader::label_of(Index definition) const {
  const ElementRecord& e = elements_[static_cast<std::size_t>(definition)];
  return model_.mesh.blocks[static_cast<std::size_t>(e.block)].labels[static_cast<std::size_t>(e.local)];
}

// The rule of Mesh::reduce_to_2d, checked here to name the line of the node off the plane.
void Reader::check_planar() const {
  const Mesh& mesh = model_.mesh;
  if (mesh.n_nodes() == 0) return;
  double lower[3], upper[3];
  mesh.bounding_box(lower, upper);
  const double extent = std::max({upper[0] - lower[0], upper[1] - lower[1], upper[2] - lower[2]});
  const double tolerance = 1e-9 * std::max(extent, 1e-300);
  const double z0 = mesh.coordinates[2];
  for (Index i = 0; i < mesh.n_nodes(); ++i) {
    const double z = mesh.node(i)[2];
    if (std::abs(z - z0) > tolerance)
      fail(node_where_[static_cast<std::size_t>(i)],
           str("the elements are 2D but node ", mesh.node_labels[static_cast<std::size_t>(i)], " has z = ", z,
               " while node ", mesh.node_labels[0], " (", src_.where(node_where_[0]), ") has z = ", z0,
               "; a 2D mesh must lie in a plane z = const"));
  }
}

}  // namespace tremor::io::abaqus
