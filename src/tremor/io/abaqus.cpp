#include "tremor/io/file.hpp"
#include "tremor/io/abaqus.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/abaqus_keywords.hpp"
#include "tremor/io/abaqus_lexer.hpp"

namespace tremor::io::abaqus {

// What a 2D element type says about the out-of-plane state; 3D types are Solid.
enum class Plane : std::uint8_t { Solid, Strain, Stress };

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
// Degrees of freedom beyond this are not Abaqus dofs; the bound also keeps dof loops short.
constexpr long long max_dof = 30;

// Text of a field for a message: bounded, so fuzzed megabyte fields do not flood the terminal.
std::string shown(std::string_view text) {
  if (text.size() <= 40) return std::string(text);
  return std::string(text.substr(0, 37)) + "...";
}

struct Record {
  std::vector<Field> fields;
  Location where;
};

struct MaterialDraft {
  enum class Elastic { None, Isotropic, EngineeringConstants, Stiffness };
  std::string name;
  Location where;
  Elastic elastic = Elastic::None;
  Location elastic_where;
  std::vector<double> constants;  // E, nu / E1..G23 as Abaqus orders them
  Voigt6 stiffness{};             // tremor's Voigt order
  std::optional<double> density;
  double damping_alpha = 0.0;
};

struct PendingSection {
  std::string element_set, material;
  double thickness = 1.0;
  Location where;
};

struct PendingFixed {
  FixedDof dof;
  Location where;
  bool implied = false;  // from a named type (ENCASTRE, ...): components a 2D model lacks are dropped quietly
};

struct PendingLoad {
  NodalLoad load;
  Location where;
};

// A face by the element's definition index; face -1 stands for every exterior face of the element
// (a *SURFACE data line without a face identifier).
struct PendingFace {
  Index definition = 0;
  int face = 0;
};

struct PendingSurfaceLoad {
  SurfaceLoad load;  // all but the faces
  std::vector<PendingFace> faces;
  Location where;
};

// A *DLOAD body force by element definition indices; `everywhere` for a GRAV line without an
// element or set (Abaqus applies it to the whole model).
struct PendingBodyForce {
  BodyForce force;  // all but the elements
  std::vector<Index> definitions;
  bool everywhere = false;
  Location where;
};

// When nodal history is recorded.
struct Schedule {
  int every_n_steps = 1;
  double every_time = 0.0;
  bool none = false;  // FREQUENCY=0: no output
};

enum class OutputMode { None, Field, History };

class Reader {
 public:
  friend std::span<const Keyword> keywords();

  // mesh_only: materials, sections, conditions, loads, outputs and the step are parsed but neither
  // built nor cross-checked, and one warning says what was left out.
  Reader(LineSource& source, std::string source_name, bool mesh_only = false) : src_(source), mesh_only_(mesh_only) {
    model_.source = std::move(source_name);
  }

  Model run() {
    while (auto line = src_.next()) {
      if (!line->keyword) fail(line->where, "data line '" + shown(line->text) + "' does not belong to any keyword");
      dispatch(abaqus::parse_keyword(src_, *line));
    }
    if (in_step_) fail(step_where_, "*STEP has no matching *END STEP");
    finish();
    return std::move(model_);
  }

 private:
  // ---- helpers -----------------------------------------------------------------------------

  [[noreturn]] void fail(Location where, const std::string& message) const { src_.fail(where, message); }

  // Remembers something read but not applied, for the one warning at the end.
  void ignore(const std::string& what, Location where) {
    const auto [it, added] = ignored_index_.try_emplace(what, ignored_.size());
    if (added)
      ignored_.push_back({what, 1, where});
    else
      ++ignored_[it->second].count;
  }

  void check_parameters(const KeywordLine& keyword, std::initializer_list<std::string_view> known) {
    for (const auto& parameter : keyword.parameters)
      if (std::find(known.begin(), known.end(), parameter.key) == known.end())
        ignore(keyword.display + ", " + parameter.key, keyword.where);
  }

  std::string required_name(const KeywordLine& keyword, std::string_view key) {
    const abaqus::Parameter* parameter = keyword.find(key);
    if (parameter == nullptr || parameter->value.empty())
      fail(keyword.where, str(keyword.display, " needs ", key, "=<name>"));
    return abaqus::to_name(parameter->value);
  }

  std::string optional_name(const KeywordLine& keyword, std::string_view key) {
    const abaqus::Parameter* parameter = keyword.find(key);
    if (parameter == nullptr) return {};
    if (parameter->value.empty()) fail(keyword.where, str(keyword.display, ": ", key, "= needs a name"));
    return abaqus::to_name(parameter->value);
  }

  // The value of KEY= as a name with blanks removed ("ENGINEERINGCONSTANTS"), or "" when absent.
  std::string option(const KeywordLine& keyword, std::string_view key) {
    const abaqus::Parameter* parameter = keyword.find(key);
    if (parameter == nullptr) return {};
    std::string value;
    for (char c : abaqus::to_name(parameter->value))
      if (c != ' ') value += c;
    return value;
  }

  double parameter_real(const KeywordLine& keyword, std::string_view key) {
    const abaqus::Parameter* parameter = keyword.find(key);
    const auto value = abaqus::parse_real(parameter->value);
    if (!value) fail(keyword.where, str(keyword.display, ": bad number '", shown(parameter->value), "' for ", key));
    return *value;
  }

  long long parameter_integer(const KeywordLine& keyword, std::string_view key) {
    const abaqus::Parameter* parameter = keyword.find(key);
    const auto value = abaqus::parse_integer(parameter->value);
    if (!value)
      fail(keyword.where,
           str(keyword.display, ": bad number '", shown(parameter->value), "' for ", key, " (expected an integer)"));
    return *value;
  }

  void no_data(const KeywordLine& keyword) {
    if (src_.data_follows()) fail(src_.peek()->where, keyword.display + " takes no data lines");
  }

  void skip_data() {
    while (src_.data_follows()) src_.next();
  }

  // One data line and those continuing it (a line ending in a comma continues on the next).
  Record read_record() {
    const auto line = src_.next();
    Record record;
    record.where = line->where;
    bool more = abaqus::split_fields(line->text, line->where, record.fields);
    while (more && src_.data_follows()) {
      const auto next = src_.next();
      more = abaqus::split_fields(next->text, next->where, record.fields);
    }
    return record;
  }

  // One data line alone, for options whose data never continue (a trailing comma only ends the line).
  Record read_line_record() {
    const auto line = src_.next();
    Record record;
    record.where = line->where;
    abaqus::split_fields(line->text, line->where, record.fields);
    return record;
  }

  std::vector<Record> read_records() {
    std::vector<Record> records;
    while (src_.data_follows()) records.push_back(read_record());
    return records;
  }

  double real(const Field& field, std::string_view what) {
    if (field.text.empty()) fail(field.where, str("missing ", what));
    const auto value = abaqus::parse_real(field.text);
    if (!value) fail(field.where, str("bad number '", shown(field.text), "' where ", what, " was expected"));
    return *value;
  }

  // Abaqus reads an omitted numeric entry as zero unless the option gives another default.
  double real_or(const Field& field, double fallback, std::string_view what) {
    return field.text.empty() ? fallback : real(field, what);
  }

  long long integer(const Field& field, std::string_view what) {
    if (field.text.empty()) fail(field.where, str("missing ", what));
    const auto value = abaqus::parse_integer(field.text);
    if (!value)
      fail(field.where, str("bad number '", shown(field.text), "' where ", what, " (an integer) was expected"));
    return *value;
  }

  Label label(const Field& field, std::string_view what) {
    const long long value = integer(field, what);
    if (value <= 0) fail(field.where, str(what, " ", value, " is not positive"));
    return value;
  }

  Index node_index(Label id, Location where) {
    const auto it = node_index_.find(id);
    if (it == node_index_.end())
      fail(where, str("node ", id, " is not defined (nodes must be defined before they are used)"));
    return it->second;
  }

  Index element_index(Label id, Location where) {
    const auto it = element_index_.find(id);
    if (it == element_index_.end())
      fail(where, str("element ", id, " is not defined (elements must be defined before they are used)"));
    return it->second;
  }

  const std::vector<Index>& node_set(const std::string& name, Location where) {
    const auto it = model_.mesh.node_sets.find(name);
    if (it == model_.mesh.node_sets.end()) fail(where, "undefined node set '" + name + "'");
    return it->second;
  }

  // A node number or a node set name, as *BOUNDARY and *CLOAD take them.
  std::vector<Index> nodes_of(const Field& field) {
    if (field.text.empty()) fail(field.where, "missing node number or node set name");
    if (abaqus::parse_integer(field.text)) return {node_index(label(field, "node number"), field.where)};
    return node_set(abaqus::to_name(field.text), field.where);
  }

  // Degree of freedom 1..max_dof.
  int dof(const Field& field) {
    const long long value = integer(field, "degree of freedom");
    if (value < 1 || value > max_dof)
      fail(field.where, str("degree of freedom ", value, " is out of range (1 to ", max_dof, ")"));
    return static_cast<int>(value);
  }

  // ---- dispatch ----------------------------------------------------------------------------

  // Through the keyword table (abaqus_keywords.hpp); a keyword outside it is listed in the warning.
  void dispatch(const KeywordLine& keyword) {
    const Keyword* entry = find_keyword(keyword.name);
    if (entry == nullptr) {
      ignore(keyword.display, keyword.where);
      skip_data();
      return;
    }
    if (in_step_ && entry->place == Place::Model)
      fail(keyword.where,
           keyword.display + " is model data and cannot appear inside the step begun at " + src_.where(step_where_));
    if (!in_step_ && entry->place == Place::Step)
      fail(keyword.where, keyword.display + " belongs inside a *STEP ... *END STEP block");
    // A material's options follow its *MATERIAL; any other keyword read ends them.
    if (entry->use == Use::Read && !entry->material_option) material_ = -1;
    if (entry->use == Use::Refused) fail(keyword.where, keyword.display + std::string(entry->why));
    TREMOR_ASSERT(entry->read != nullptr);  // only *INCLUDE has none, and the line source follows it
    (this->*entry->read)(keyword);
  }

  // A result-file request: in a *STATIC step, listed as one (the static solver writes its own
  // result file); elsewhere, as any keyword tremor does not read.
  void result_request(const KeywordLine& keyword) {
    if (static_step()) return ignore_static_output(keyword);
    ignore(keyword.display, keyword.where);
    skip_data();
  }

  // ---- model data --------------------------------------------------------------------------

  void heading(const KeywordLine&) {
    while (src_.data_follows()) {
      const auto line = src_.next();
      if (!model_.title.empty()) model_.title += '\n';
      model_.title += line->text;
    }
  }

  void node(const KeywordLine& keyword) {
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

  void element(const KeywordLine& keyword) {
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
  void read_set(const KeywordLine& keyword, std::vector<Index>& members, std::string_view noun, Index n_defined,
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

  void node_set_keyword(const KeywordLine& keyword) {
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

  void element_set_keyword(const KeywordLine& keyword) {
    check_parameters(keyword, {"ELSET", "GENERATE", "INTERNAL", "UNSORTED", "INSTANCE"});
    if (keyword.has("INSTANCE"))
      fail(keyword.where, "*ELSET, INSTANCE= needs parts and assemblies, which are not supported");
    const std::string name = required_name(keyword, "ELSET");
    std::vector<Index> members = element_sets_[name];
    read_set(keyword, members, "element", static_cast<Index>(elements_.size()), element_sets_,
             [this](Label id, Location where) { return element_index(id, where); });
    element_sets_[name] = std::move(members);
  }

  void material(const KeywordLine& keyword) {
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

  MaterialDraft& current_material(const KeywordLine& keyword) {
    if (material_ < 0) fail(keyword.where, keyword.display + " must follow a *MATERIAL keyword");
    return materials_[static_cast<std::size_t>(material_)];
  }

  void check_no_dependencies(const KeywordLine& keyword) {
    if (keyword.has("DEPENDENCIES") && parameter_integer(keyword, "DEPENDENCIES") != 0)
      fail(keyword.where, keyword.display + ": field-variable dependencies are not supported");
  }

  // All values of a material option's data lines; more than `count` plus a temperature means the
  // constants depend on temperature, which a linear model cannot hold.
  std::vector<Field> material_values(const KeywordLine& keyword, std::size_t count, const std::string& what) {
    std::vector<Field> values;
    for (Record& record : read_records()) values.insert(values.end(), record.fields.begin(), record.fields.end());
    if (values.empty()) fail(keyword.where, str(keyword.display, " needs a data line with ", what));
    if (values.size() < count)
      fail(values.back().where, str(keyword.display, " expects ", count, " values (", what, "), got ", values.size()));
    if (values.size() > count + 1)
      fail(values[count + 1].where,
           str(keyword.display, " has ", values.size(), " values; expected ", what,
               " and an optional temperature (temperature-dependent constants are not supported)"));
    values.resize(count);
    return values;
  }

  void elastic(const KeywordLine& keyword) {
    check_parameters(keyword, {"TYPE", "MODULI", "DEPENDENCIES"});
    MaterialDraft& draft = current_material(keyword);
    check_no_dependencies(keyword);
    if (draft.elastic != MaterialDraft::Elastic::None)
      fail(keyword.where,
           "material '" + draft.name + "' has a second *ELASTIC (first at " + src_.where(draft.elastic_where) + ")");
    draft.elastic_where = keyword.where;
    const std::string type = option(keyword, "TYPE");
    if (type.empty() || type == "ISOTROPIC" || type == "ISO") {
      const auto values = material_values(keyword, 2, "Young's modulus and Poisson's ratio");
      draft.elastic = MaterialDraft::Elastic::Isotropic;
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

  // Abaqus states D with engineering shear strains (gamma_12 = 2 eps_12), as tremor does, so the
  // constants carry over unscaled; only the Voigt order differs: Abaqus 11, 22, 33, 12, 13, 23,
  // tremor xx, yy, zz, yz, xz, xy.
  template <std::size_t N>
  Voigt6 to_tremor_voigt(const std::vector<Field>& values, const int (&pairs)[N][2]) {
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

  void density(const KeywordLine& keyword) {
    check_parameters(keyword, {"DEPENDENCIES"});
    MaterialDraft& draft = current_material(keyword);
    check_no_dependencies(keyword);
    if (draft.density) fail(keyword.where, "material '" + draft.name + "' has a second *DENSITY");
    const auto values = material_values(keyword, 1, "the mass density");
    draft.density = real(values[0], "the mass density");
    if (!(*draft.density > 0.0)) fail(values[0].where, str("the mass density must be positive, got ", *draft.density));
  }

  void damping(const KeywordLine& keyword) {
    check_parameters(keyword, {"ALPHA", "BETA", "COMPOSITE", "STRUCTURAL"});
    MaterialDraft& draft = current_material(keyword);
    if (keyword.has("ALPHA")) draft.damping_alpha = parameter_real(keyword, "ALPHA");
    if (draft.damping_alpha < 0.0)
      fail(keyword.where, str("*DAMPING, ALPHA must not be negative, got ", draft.damping_alpha));
    if (keyword.has("BETA") && parameter_real(keyword, "BETA") != 0.0)
      ignore("*DAMPING, BETA (stiffness-proportional damping)", keyword.where);
    if (keyword.has("COMPOSITE")) ignore("*DAMPING, COMPOSITE", keyword.where);
    if (keyword.has("STRUCTURAL")) ignore("*DAMPING, STRUCTURAL", keyword.where);
    no_data(keyword);
  }

  void solid_section(const KeywordLine& keyword) {
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

  void amplitude(const KeywordLine& keyword) {
    check_parameters(keyword, {"NAME", "DEFINITION", "TIME", "VALUE", "SMOOTH", "FIXEDINTERVAL", "BEGIN", "INPUT"});
    if (keyword.has("INPUT")) fail(keyword.where, "*AMPLITUDE, INPUT= is not supported; use *INCLUDE, INPUT= instead");
    Amplitude result;
    result.name = required_name(keyword, "NAME");
    for (const auto& other : model_.amplitudes)
      if (other.name == result.name) fail(keyword.where, "amplitude '" + result.name + "' is defined twice");
    const std::string definition = option(keyword, "DEFINITION");
    const std::string time = option(keyword, "TIME");
    // tremor's model has one step starting at time 0, where step time and total time agree.
    if (!time.empty() && time != "STEPTIME" && time != "TOTALTIME")
      fail(keyword.where, "*AMPLITUDE, TIME=" + shown(time) + " is not supported (STEP TIME or TOTAL TIME)");
    if (keyword.has("SMOOTH")) ignore("*AMPLITUDE, SMOOTH (interpolation stays piecewise linear)", keyword.where);

    std::vector<Field> values;
    for (Record& record : read_records()) values.insert(values.end(), record.fields.begin(), record.fields.end());
    if (values.empty()) fail(keyword.where, "*AMPLITUDE '" + result.name + "' has no data");

    if (definition.empty() || definition == "TABULAR") {
      if (values.size() % 2 != 0)
        fail(values.back().where,
             str("*AMPLITUDE '", result.name, "' needs (time, value) pairs but has ", values.size(), " entries"));
      for (std::size_t k = 0; k < values.size(); k += 2) {
        const double t = real_or(values[k], 0.0, "a time");
        const double v = real_or(values[k + 1], 0.0, "an amplitude value");
        if (!result.points.empty() && !(t > result.points.back().first))
          fail(values[k].where, str("*AMPLITUDE '", result.name, "': times must increase, but ", t, " follows ",
                                    result.points.back().first));
        result.points.emplace_back(t, v);
      }
    } else if (definition == "EQUALLYSPACED") {
      if (!keyword.has("FIXEDINTERVAL"))
        fail(keyword.where, "*AMPLITUDE, DEFINITION=EQUALLY SPACED needs FIXED INTERVAL=<time step>");
      const double interval = parameter_real(keyword, "FIXEDINTERVAL");
      if (!(interval > 0.0)) fail(keyword.where, str("*AMPLITUDE: FIXED INTERVAL must be positive, got ", interval));
      const double begin = keyword.has("BEGIN") ? parameter_real(keyword, "BEGIN") : 0.0;
      for (std::size_t k = 0; k < values.size(); ++k)
        result.points.emplace_back(begin + interval * static_cast<double>(k),
                                   real_or(values[k], 0.0, "an amplitude value"));
    } else {
      fail(keyword.where,
           "*AMPLITUDE, DEFINITION=" + shown(definition) + " is not supported (TABULAR or EQUALLY SPACED)");
    }
    model_.amplitudes.push_back(std::move(result));
  }

  // ---- boundary conditions and loads -------------------------------------------------------

  void boundary(const KeywordLine& keyword) {
    check_parameters(keyword, {"OP", "AMPLITUDE", "TYPE", "FIXED"});
    const std::string type = option(keyword, "TYPE");
    if (!type.empty() && type != "DISPLACEMENT")
      fail(keyword.where, "*BOUNDARY, TYPE=" + shown(type) + " is not supported (only prescribed displacements)");
    const std::string op = option(keyword, "OP");
    if (!op.empty() && op != "NEW" && op != "MOD")
      fail(keyword.where, "*BOUNDARY, OP=" + shown(op) + " (expected NEW or MOD)");
    // OP=NEW in a step releases the conditions of the model data (there is no earlier step).
    if (op == "NEW" && in_step_ && !released_boundaries_) {
      fixed_.erase(fixed_.begin(), fixed_.begin() + static_cast<std::ptrdiff_t>(fixed_before_step_));
      released_boundaries_ = true;
    }
    const std::string amplitude_name = optional_name(keyword, "AMPLITUDE");
    // FIXED holds the displacement at the start of the step: zero, as tremor's one step starts at rest.
    const bool hold = keyword.has("FIXED");

    while (src_.data_follows()) {
      const Record record = read_line_record();
      const auto& f = record.fields;
      if (f.size() < 2 || f[1].text.empty())
        fail(record.where,
             "*BOUNDARY expects: node or node set, first degree of freedom[, last degree of freedom"
             "[, displacement]], or node or node set and a type such as ENCASTRE");
      const std::vector<Index> nodes = nodes_of(f[0]);
      auto add = [&](int component, double value, bool implied) {
        PendingFixed entry;
        entry.dof.nodes = nodes;
        entry.dof.component = component;
        entry.dof.value = value;
        entry.dof.amplitude = amplitude_name;
        entry.dof.origin = src_.where(record.where);
        entry.where = record.where;
        entry.implied = implied;
        fixed_.push_back(std::move(entry));
      };
      if (!abaqus::parse_integer(f[1].text)) {
        const std::string named = abaqus::to_name(f[1].text);
        // The translations each named type fixes; its rotations do not exist on solid elements.
        static const std::map<std::string, std::vector<int>> named_types = {
            {"ENCASTRE", {0, 1, 2}}, {"PINNED", {0, 1, 2}}, {"XSYMM", {0}},     {"YSYMM", {1}},
            {"ZSYMM", {2}},          {"XASYMM", {1, 2}},    {"YASYMM", {0, 2}}, {"ZASYMM", {0, 1}}};
        const auto it = named_types.find(named);
        if (it == named_types.end())
          fail(f[1].where, "bad number '" + shown(f[1].text) +
                               "' where a degree of freedom or a boundary type (ENCASTRE, PINNED, XSYMM, YSYMM, "
                               "ZSYMM, XASYMM, YASYMM, ZASYMM) was expected");
        for (std::size_t k = 2; k < f.size(); ++k)
          if (!f[k].text.empty()) fail(f[k].where, "*BOUNDARY with type " + named + " takes no further entries");
        for (int component : it->second) add(component, 0.0, true);
        continue;
      }
      if (f.size() > 4) fail(f[4].where, "*BOUNDARY takes at most 4 entries per line");
      const int first = dof(f[1]);
      const int last = (f.size() > 2 && !f[2].text.empty()) ? dof(f[2]) : first;
      if (last < first) fail(f[2].where, str("last degree of freedom ", last, " is below the first, ", first));
      const double value = (f.size() > 3 && !hold) ? real_or(f[3], 0.0, "a displacement") : 0.0;
      for (int d = first; d <= last; ++d) {
        if (d <= 3)
          add(d - 1, value, false);
        else
          ignore("*BOUNDARY on degrees of freedom above 3 (rotations and others that solids lack)", record.where);
      }
    }
  }

  void cload(const KeywordLine& keyword) {
    check_parameters(keyword, {"OP", "AMPLITUDE", "FOLLOWER"});
    if (keyword.has("FOLLOWER")) ignore("*CLOAD, FOLLOWER (loads keep their direction)", keyword.where);
    const std::string amplitude_name = optional_name(keyword, "AMPLITUDE");
    while (src_.data_follows()) {
      const Record record = read_line_record();
      const auto& f = record.fields;
      if (f.size() < 2 || f.size() > 3)
        fail(record.where, "*CLOAD expects: node or node set, degree of freedom, magnitude");
      const std::vector<Index> nodes = nodes_of(f[0]);
      const int component = dof(f[1]);
      const double magnitude = f.size() > 2 ? real_or(f[2], 0.0, "a load magnitude") : 0.0;
      if (component > 3) {
        ignore("*CLOAD on degrees of freedom above 3 (moments and others that solids lack)", record.where);
        continue;
      }
      PendingLoad entry;
      entry.load.nodes = nodes;
      entry.load.component = component - 1;
      entry.load.magnitude = magnitude;
      entry.load.amplitude = amplitude_name;
      entry.load.origin = src_.where(record.where);
      entry.where = record.where;
      loads_.push_back(std::move(entry));
    }
  }

  // ---- surfaces and distributed loads ------------------------------------------------------

  // Definition indices of an element number or an element set name.
  std::vector<Index> elements_of(const Field& field) {
    if (field.text.empty()) fail(field.where, "missing element number or element set name");
    if (abaqus::parse_integer(field.text)) return {element_index(label(field, "element number"), field.where)};
    const std::string name = abaqus::to_name(field.text);
    const auto it = element_sets_.find(name);
    if (it == element_sets_.end()) fail(field.where, "undefined element set '" + name + "'");
    return it->second;
  }

  ElementType type_of(Index definition) const {
    const ElementRecord& e = elements_[static_cast<std::size_t>(definition)];
    return model_.mesh.blocks[static_cast<std::size_t>(e.block)].type;
  }

  // The faces "<prefix>1" .. "<prefix>6" of `elements`: tremor's face k - 1 (mesh/faces.hpp
  // numbers faces as Abaqus does), checked against each element's type. Empty text: -1.
  std::vector<PendingFace> faces_of(const std::vector<Index>& elements, const Field& field, char prefix,
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

  void surface(const KeywordLine& keyword) {
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

  // The pressure or traction of a *DSLOAD or *DLOAD line from its load type and the entries after
  // the magnitude; false for a load type tremor does not apply.
  bool surface_load_value(const std::string& load_type, const std::vector<Field>& f, std::size_t magnitude_at,
                          SurfaceLoad& load) {
    const double magnitude = f.size() > magnitude_at ? real_or(f[magnitude_at], 0.0, "a load magnitude") : 0.0;
    if (load_type == "P") {
      if (f.size() > magnitude_at + 1) fail(f[magnitude_at + 1].where, "a pressure takes one magnitude");
      load.pressure = magnitude;
      return true;
    }
    if (load_type == "TRVEC") {
      // Magnitude, then the direction (x, y, z), normalised as Abaqus does.
      std::array<double, 3> direction{0.0, 0.0, 0.0};
      for (std::size_t d = 0; d < 3 && magnitude_at + 1 + d < f.size(); ++d)
        direction[d] = real_or(f[magnitude_at + 1 + d], 0.0, "a direction component");
      const double norm =
          std::sqrt(direction[0] * direction[0] + direction[1] * direction[1] + direction[2] * direction[2]);
      if (!(norm > 0.0)) fail(f[0].where, "a TRVEC traction needs a non-zero direction after its magnitude");
      for (std::size_t d = 0; d < 3; ++d) load.traction[d] = magnitude * direction[d] / norm;
      return true;
    }
    return false;
  }

  void dsload(const KeywordLine& keyword) {
    check_parameters(keyword, {"OP", "AMPLITUDE"});
    const std::string amplitude_name = optional_name(keyword, "AMPLITUDE");
    while (src_.data_follows()) {
      const Record record = read_line_record();
      const auto& f = record.fields;
      if (f.size() < 2 || f[1].text.empty())
        fail(record.where, "*DSLOAD expects: surface, load type (P or TRVEC), magnitude[, direction]");
      PendingSurfaceLoad entry;
      entry.load.surface = abaqus::to_name(f[0].text);
      const auto surface = surfaces_.find(entry.load.surface);
      if (surface == surfaces_.end())
        fail(f[0].where,
             "undefined surface '" + entry.load.surface + "' (surfaces must be defined before their loads)");
      const std::string load_type = abaqus::to_name(f[1].text);
      if (!surface_load_value(load_type, f, 2, entry.load)) {
        ignore(str("*DSLOAD of type ", shown(load_type), " (tremor applies P and TRVEC)"), record.where);
        continue;
      }
      entry.faces = surface->second;
      entry.load.amplitude = amplitude_name;
      entry.load.origin = src_.where(record.where);
      entry.where = record.where;
      surface_loads_.push_back(std::move(entry));
    }
  }

  void dload(const KeywordLine& keyword) {
    check_parameters(keyword, {"OP", "AMPLITUDE"});
    const std::string amplitude_name = optional_name(keyword, "AMPLITUDE");
    while (src_.data_follows()) {
      const Record record = read_line_record();
      const auto& f = record.fields;
      if (f.size() < 2 || f[1].text.empty())
        fail(record.where,
             "*DLOAD expects: element or element set, load type (P1 to P6, GRAV, BX, BY or BZ), magnitude[, direction]");
      const std::string load_type = abaqus::to_name(f[1].text);
      if (load_type == "GRAV" || load_type == "BX" || load_type == "BY" || load_type == "BZ") {
        body_force(record, load_type, amplitude_name);
        continue;
      }
      // Face pressures are P1..P6; other types (CENTRIF, BXNU, ...) are not applied.
      if (load_type.size() != 2 || load_type[0] != 'P' || load_type[1] < '1' || load_type[1] > '9') {
        ignore(str("*DLOAD of type ", shown(load_type),
                   " (tremor applies the face pressures P1 to P6 and the body forces GRAV, BX, BY, BZ)"),
               record.where);
        continue;
      }
      if (f.size() > 3) fail(f[3].where, "*DLOAD with a face pressure takes one magnitude");
      PendingSurfaceLoad entry;
      entry.faces = faces_of(elements_of(f[0]), f[1], 'P', "a face pressure type");
      entry.load.surface = str(abaqus::to_name(f[0].text), " ", load_type);
      entry.load.pressure = f.size() > 2 ? real_or(f[2], 0.0, "a load magnitude") : 0.0;
      entry.load.amplitude = amplitude_name;
      entry.load.origin = src_.where(record.where);
      entry.where = record.where;
      surface_loads_.push_back(std::move(entry));
    }
  }

  // A *DLOAD body force: GRAV, magnitude, direction (an acceleration of the magnitude along the
  // normalised direction, times each element's density), or BX, BY, BZ, magnitude (a force per
  // unit volume along x, y, z, the same whatever the density). GRAV without an element or set
  // acts on the whole model, as Abaqus/CAE writes a gravity load on the whole model.
  void body_force(const Record& record, const std::string& load_type, const std::string& amplitude_name) {
    const auto& f = record.fields;
    const bool gravity = load_type == "GRAV";
    PendingBodyForce entry;
    if (f[0].text.empty()) {
      if (!gravity)
        fail(f[0].where, str("*DLOAD ", load_type,
                             " needs an element or element set (only GRAV may leave it blank, for the whole model)"));
      entry.everywhere = true;
    } else {
      entry.definitions = elements_of(f[0]);
      entry.force.element_set = abaqus::to_name(f[0].text);
    }
    const double magnitude = f.size() > 2 ? real_or(f[2], 0.0, "a load magnitude") : 0.0;
    if (gravity) {
      if (f.size() < 4)
        fail(record.where, "*DLOAD GRAV needs the direction of gravity after its magnitude: magnitude, x, y, z");
      if (f.size() > 6) fail(f[6].where, "*DLOAD GRAV takes a magnitude and 3 direction components");
      std::array<double, 3> direction{0.0, 0.0, 0.0};
      for (std::size_t d = 0; d + 3 < f.size(); ++d) direction[d] = real_or(f[3 + d], 0.0, "a direction component");
      const double norm =
          std::sqrt(direction[0] * direction[0] + direction[1] * direction[1] + direction[2] * direction[2]);
      if (!(norm > 0.0) || !std::isfinite(norm))
        fail(f[3].where, "*DLOAD GRAV: the direction is the zero vector; expected the direction of gravity");
      if (mesh_dim_ == 2 && direction[2] != 0.0)
        fail(f[5].where, "*DLOAD GRAV: the direction has a z component, but a 2D model's gravity lies in its plane");
      for (std::size_t d = 0; d < 3; ++d) entry.force.acceleration[d] = magnitude * direction[d] / norm;
    } else {
      if (f.size() > 3)
        fail(f[3].where, str("*DLOAD ", load_type, " takes one magnitude (a force per unit volume)"));
      const auto component = static_cast<std::size_t>(load_type[1] - 'X');
      if (component == 2 && mesh_dim_ == 2) {
        ignore("*DLOAD BZ in a 2D model", record.where);
        return;
      }
      entry.force.force_per_volume[component] = magnitude;
    }
    entry.force.amplitude = amplitude_name;
    entry.force.origin = src_.where(record.where);
    entry.where = record.where;
    body_forces_.push_back(std::move(entry));
  }

  // Global faces of pending ones, a face -1 standing for the element's faces on the boundary.
  std::vector<Face> resolve_faces(const std::vector<PendingFace>& pending, const std::vector<Index>& global,
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

  // ---- step --------------------------------------------------------------------------------

  void step(const KeywordLine& keyword) {
    if (in_step_)
      fail(keyword.where, "*STEP inside the step begun at " + src_.where(step_where_) + " (missing *END STEP)");
    if (steps_ > 0)
      fail(keyword.where, "a second *STEP: tremor reads one step, with *STATIC or *DYNAMIC, EXPLICIT (the first "
                          "begins at " + src_.where(step_where_) + "); give each analysis its own deck");
    check_parameters(keyword, {"NAME", "NLGEOM", "INC", "PERTURBATION", "UNSYMM", "EXTRAPOLATION", "AMPLITUDE"});
    const abaqus::Parameter* nlgeom = keyword.find("NLGEOM");
    if (nlgeom != nullptr && (!nlgeom->has_value || abaqus::to_name(nlgeom->value) == "YES"))
      ignore("*STEP, NLGEOM=YES (tremor is geometrically linear)", keyword.where);
    if (keyword.has("AMPLITUDE")) ignore("*STEP, AMPLITUDE (loads without an amplitude are constant)", keyword.where);
    step_name_ = keyword.has("NAME") ? optional_name(keyword, "NAME") : std::string("STEP-1");
    skip_data();  // an optional step title
    in_step_ = true;
    ++steps_;
    step_where_ = keyword.where;
    fixed_before_step_ = fixed_.size();
  }

  void dynamic(const KeywordLine& keyword) {
    check_parameters(keyword, {"EXPLICIT", "DIRECT", "DIRECTUSERCONTROL", "FIXEDTIMEINCREMENTATION", "ELEMENTBYELEMENT",
                               "IMPROVEDDTMETHOD", "ALPHA", "SOLVER", "ADIABATIC", "APPLICATION", "HAFTOL", "HALFINC"});
    // CalculiX writes EXPLICIT=0..3 (2 and 3: explicit structural integration, bare EXPLICIT = 3).
    const abaqus::Parameter* explicit_flag = keyword.find("EXPLICIT");
    bool is_explicit = explicit_flag != nullptr;
    if (is_explicit && explicit_flag->has_value) {
      const auto level = abaqus::parse_integer(explicit_flag->value);
      if (!level || *level < 0 || *level > 3)
        fail(keyword.where, "*DYNAMIC, EXPLICIT=" + shown(explicit_flag->value) + " (expected 0 to 3)");
      is_explicit = *level >= 2;
    }
    set_procedure(keyword, is_explicit ? "*DYNAMIC, EXPLICIT" : "*DYNAMIC");
    if (!is_explicit) {
      ignore("*DYNAMIC (implicit)", keyword.where);
      skip_data();
      return;
    }
    if (!src_.data_follows())
      fail(keyword.where, "*DYNAMIC, EXPLICIT needs a data line: [time increment], time period");
    const Record record = read_line_record();
    no_data(keyword);
    if (record.fields.size() < 2 || record.fields[1].text.empty())
      fail(record.where, "*DYNAMIC, EXPLICIT data line: [time increment], time period (the period is missing)");
    ExplicitStep result;
    result.name = step_name_;
    result.duration = real(record.fields[1], "the time period of the step");
    if (!(result.duration > 0.0))
      fail(record.fields[1].where, str("the time period of the step must be positive, got ", result.duration));
    const double increment = real_or(record.fields[0], 0.0, "a time increment");
    if (increment < 0.0) fail(record.fields[0].where, str("the time increment must not be negative, got ", increment));
    // DIRECT USER CONTROL (Abaqus) and DIRECT (CalculiX) take the increment as given. FIXED TIME
    // INCREMENTATION alone fixes the initial stable increment, which 0 leaves to the solver.
    const bool user_increment = keyword.has("DIRECTUSERCONTROL") || keyword.has("DIRECT");
    if (user_increment && increment == 0.0)
      fail(record.where, "*DYNAMIC, EXPLICIT with DIRECT USER CONTROL needs the time increment as the first entry");
    if (user_increment || keyword.has("FIXEDTIMEINCREMENTATION")) result.fixed_increment = increment;
    if (result.fixed_increment > result.duration)
      fail(record.fields[0].where, str("the time increment ", result.fixed_increment,
                                       " exceeds the time period of the step, ", result.duration));
    model_.explicit_step = result;
  }

  // True inside a step whose procedure is *STATIC.
  bool static_step() const { return in_step_ && procedure_ == "*STATIC"; }

  // An output request of a static step, listed in the warning.
  void ignore_static_output(const KeywordLine& keyword) {
    ignore(keyword.display + " in a *STATIC step (the static solver writes its own result file)", keyword.where);
    skip_data();
  }

  // The step's procedure: one per step (tremor reads one step, so one per deck).
  void set_procedure(const KeywordLine& keyword, const char* name) {
    if (!procedure_.empty())
      fail(keyword.where, str(keyword.display, ": the step already has the procedure ", procedure_, " (at ",
                              src_.where(procedure_where_), "); a step holds one procedure, either *STATIC or "
                              "*DYNAMIC, EXPLICIT"));
    procedure_ = name;
    procedure_where_ = keyword.where;
  }

  // *STATIC: a linear static step, K u = f with the step's loads and boundary conditions. The
  // solver's settings are tremor's defaults (StaticSettings).
  void static_procedure(const KeywordLine& keyword) {
    // DIRECT and the time bookkeeping concern increments, which a linear step does not take.
    check_parameters(keyword, {"DIRECT", "TIMERESET", "TOTALTIMEATSTART", "SOLVER", "RIKS"});
    if (keyword.has("SOLVER"))
      ignore("*STATIC, SOLVER (tremor solves by preconditioned conjugate gradients)", keyword.where);
    if (keyword.has("RIKS"))
      fail(keyword.where, "*STATIC, RIKS asks for an arc-length (nonlinear) analysis; tremor's static solver is "
                          "linear: remove RIKS for a linear solve at the loads' full magnitude");
    set_procedure(keyword, "*STATIC");
    // The data line's initial increment, time period and bounds: a linear step applies its loads
    // at once, so they are read and not used.
    if (src_.data_follows()) {
      const Record record = read_line_record();
      for (const Field& field : record.fields) (void)real_or(field, 0.0, "a time increment or period");
      if (src_.data_follows())
        fail(src_.peek()->where, "*STATIC takes one data line (its time increments), not more");
    }
    StaticSettings settings;
    settings.step_name = step_name_;
    settings.origin = src_.where(keyword.where);
    model_.static_settings = settings;
    // Histories requested before this line belong to the static step too.
    for (const auto& [display, where] : history_origin_)
      ignore(display + " in a *STATIC step (the static solver writes its own result file)", where);
    model_.histories.clear();
    history_origin_.clear();
  }

  Schedule schedule(const KeywordLine& keyword, const Schedule& inherited) {
    const int given =
        int(keyword.has("FREQUENCY")) + int(keyword.has("TIMEINTERVAL")) + int(keyword.has("NUMBERINTERVAL"));
    if (given > 1) fail(keyword.where, keyword.display + ": give one of FREQUENCY, TIME INTERVAL, NUMBER INTERVAL");
    if (keyword.has("TIMEPOINTS"))
      ignore(keyword.display + ", TIME POINTS (output every increment instead)", keyword.where);
    if (given == 0) return inherited;
    Schedule result;
    if (keyword.has("FREQUENCY")) {
      const long long every = parameter_integer(keyword, "FREQUENCY");
      if (every < 0 || every > std::numeric_limits<int>::max())
        fail(keyword.where, str(keyword.display, ": FREQUENCY must be 0 or positive, got ", every));
      result.none = every == 0;
      result.every_n_steps = std::max(1, static_cast<int>(every));
    } else if (keyword.has("TIMEINTERVAL")) {
      result.every_time = parameter_real(keyword, "TIMEINTERVAL");
      if (!(result.every_time > 0.0))
        fail(keyword.where, str(keyword.display, ": TIME INTERVAL must be positive, got ", result.every_time));
    } else {
      const long long intervals = parameter_integer(keyword, "NUMBERINTERVAL");
      if (intervals <= 0)
        fail(keyword.where, str(keyword.display, ": NUMBER INTERVAL must be positive, got ", intervals));
      if (!model_.explicit_step)
        fail(keyword.where, keyword.display + ", NUMBER INTERVAL needs the step's *DYNAMIC, EXPLICIT before it");
      result.every_time = model_.explicit_step->duration / static_cast<double>(intervals);
    }
    return result;
  }

  void output(const KeywordLine& keyword) {
    check_parameters(keyword, {"FIELD", "HISTORY", "FREQUENCY", "TIMEINTERVAL", "NUMBERINTERVAL", "VARIABLE", "OP",
                               "TIMEPOINTS", "TIMEMARKS", "NAME"});
    const bool field = keyword.has("FIELD"), history = keyword.has("HISTORY");
    if (field == history) fail(keyword.where, "*OUTPUT needs exactly one of FIELD or HISTORY");
    if (static_step()) return ignore_static_output(keyword);
    no_data(keyword);
    if (field) {
      output_mode_ = OutputMode::Field;
      ignore("*OUTPUT, FIELD (field output)", keyword.where);
      return;
    }
    output_mode_ = OutputMode::History;
    output_schedule_ = schedule(keyword, Schedule{});
  }

  void node_output(const KeywordLine& keyword) {
    if (static_step()) return ignore_static_output(keyword);
    check_parameters(keyword, {"NSET", "FREQUENCY", "TIMEINTERVAL", "NUMBERINTERVAL", "TIMEPOINTS", "GLOBAL", "TOTALS",
                               "OUTPUT", "SUMMARY", "VARIABLE", "LASTITERATIONS", "CONTACTELEMENTS"});
    // *NODE OUTPUT after *OUTPUT, FIELD asks for field output, which the model does not hold.
    if (keyword.name == "NODEOUTPUT" && output_mode_ == OutputMode::Field) {
      skip_data();
      return;
    }
    const Schedule when = schedule(keyword, output_mode_ == OutputMode::History ? output_schedule_ : Schedule{});
    HistoryOutput history;
    if (keyword.has("NSET")) {
      history.name = optional_name(keyword, "NSET");
      history.nodes = node_set(history.name, keyword.where);
    } else {
      history.name = "ALL";
      history.nodes.resize(static_cast<std::size_t>(model_.mesh.n_nodes()));
      for (Index i = 0; i < model_.mesh.n_nodes(); ++i) history.nodes[static_cast<std::size_t>(i)] = i;
    }
    bool wanted[3] = {false, false, false};  // U, V, A
    for (const Record& record : read_records())
      for (const Field& field : record.fields) {
        if (field.text.empty()) continue;
        const std::string variable = abaqus::to_name(field.text);
        if (variable.empty()) continue;
        // U, V, A and their components (U1, U2, U3) and magnitudes (UT) all select the vector.
        const bool component =
            variable.size() == 1 ||
            (variable.size() == 2 && (variable[1] == 'T' || (variable[1] >= '1' && variable[1] <= '3')));
        const std::size_t kind = std::string_view("UVA").find(variable[0]);
        if (component && kind != std::string_view::npos)
          wanted[kind] = true;
        else
          ignore(keyword.display + " variable " + shown(variable), field.where);
      }
    for (int k = 0; k < 3; ++k)
      if (wanted[k]) history.variables.push_back(std::string(1, "UVA"[k]));
    if (history.variables.empty()) {
      ignore(keyword.display + " without U, V or A", keyword.where);
      return;
    }
    if (when.none) return;
    history.every_n_steps = when.every_n_steps;
    history.every_time = when.every_time;
    model_.histories.push_back(std::move(history));
    history_origin_.emplace_back(keyword.display, keyword.where);
  }

  void end_step(const KeywordLine& keyword) {
    check_parameters(keyword, {});
    no_data(keyword);
    in_step_ = false;
    output_mode_ = OutputMode::None;
  }

  // ---- after the last line -----------------------------------------------------------------

  void finish() {
    Mesh& mesh = model_.mesh;
    if (mesh_dim_ == 2) {
      check_planar();
      mesh.reduce_to_2d(model_.source);
    }

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
    // Surfaces: definition order -> global faces; a data line without a face identifier takes the
    // element's faces on the boundary of the mesh.
    std::vector<Index> global_of(elements_.size());
    for (std::size_t d = 0; d < elements_.size(); ++d) global_of[d] = global(static_cast<Index>(d));
    std::vector<std::vector<int>> exterior;
    const auto needs_exterior = [](const std::vector<PendingFace>& faces) {
      return std::any_of(faces.begin(), faces.end(), [](const PendingFace& face) { return face.face < 0; });
    };
    bool exterior_needed = false;
    for (const auto& [name, faces] : surfaces_) exterior_needed = exterior_needed || needs_exterior(faces);
    if (exterior_needed) {
      exterior.resize(static_cast<std::size_t>(mesh.n_elements()));
      for (const Face& face : boundary_faces(mesh))
        exterior[static_cast<std::size_t>(face.element)].push_back(face.face);
    }
    for (const auto& [name, faces] : surfaces_) {
      mesh.face_sets[name] = resolve_faces(faces, global_of, exterior);
      if (mesh.face_sets[name].empty())
        fail(surface_where_.at(name), str("surface '", name, "' holds no face: its elements have no face on the "
                                          "boundary of the mesh"));
    }
    if (mesh_only_) {
      finish_mesh_only();
      return;
    }

    // Each element in exactly one section, checked here so that messages can name lines.
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
      model_.sections.push_back(std::move(section));
    }

    if (!sections_.empty())
      for (std::size_t e = 0; e < owner.size(); ++e)
        if (owner[e] < 0)
          fail(element_where_[e],
               str("element ", label_of(static_cast<Index>(e)), " is in no *SOLID SECTION, so it has no material"));

    for (const MaterialDraft& draft : materials_) model_.materials.push_back(build(draft));

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
      if (entry.dof.component >= dim) {
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

    warn_ignored();
    resolve_boundary_overrides();
    model_.validate();
  }

  // What a mesh-only read leaves out, in the one warning with the unsupported items.
  void finish_mesh_only() {
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

  // A later *BOUNDARY on the same node and component replaces an earlier one, as Abaqus's default
  // OP=MOD does; without this a solver would see two prescribed values for one degree of freedom.
  void resolve_boundary_overrides() {
    std::unordered_map<std::int64_t, std::size_t> last;  // (node, component) -> group
    auto key = [](Index node, int component) { return static_cast<std::int64_t>(node) * 4 + component; };
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

  void warn_ignored() {
    if (!ignored_.empty()) {
      std::string message = model_.source + ": ignored what tremor does not support: ";
      for (std::size_t k = 0; k < ignored_.size(); ++k) {
        const Ignored& item = ignored_[k];
        message += (k == 0 ? "" : "; ") + item.what;
        message += item.count == 1 ? str(" (at ", src_.where(item.first), ")")
                                   : str(" (", item.count, " times, first at ", src_.where(item.first), ")");
      }
      log::warn(message);
    }
  }

  Label label_of(Index definition) const {
    const ElementRecord& e = elements_[static_cast<std::size_t>(definition)];
    return model_.mesh.blocks[static_cast<std::size_t>(e.block)].labels[static_cast<std::size_t>(e.local)];
  }

  // The rule of Mesh::reduce_to_2d, checked here to name the line of the node off the plane.
  void check_planar() const {
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

  Formulation formulation(const std::vector<Index>& members, const PendingSection& section) {
    std::optional<Plane> plane;
    for (Index definition : members) {
      const Plane p = elements_[static_cast<std::size_t>(definition)].plane;
      if (plane && *plane != p)
        fail(section.where,
             "element set '" + section.element_set +
                 "' mixes plane strain (CPE) and plane stress (CPS) elements; give each its own section");
      plane = p;
    }
    if (!plane) plane = mesh_dim_ == 2 ? Plane::Strain : Plane::Solid;
    switch (*plane) {
      case Plane::Strain:
        return Formulation::PlaneStrain;
      case Plane::Stress:
        return Formulation::PlaneStress;
      case Plane::Solid:
        break;
    }
    return Formulation::Solid;
  }

  Material build(const MaterialDraft& draft) {
    if (draft.elastic == MaterialDraft::Elastic::None)
      fail(draft.where, "material '" + draft.name + "' has no *ELASTIC");
    if (!draft.density)
      fail(draft.where, "material '" + draft.name + "' has no *DENSITY (" +
                            (model_.static_settings ? "every tremor material has one; a *STATIC step uses it for GRAV"
                                                   : "explicit dynamics needs the mass") +
                            ")");
    try {
      Material m;
      const auto& k = draft.constants;
      switch (draft.elastic) {
        case MaterialDraft::Elastic::Isotropic:
          m = Material::from_youngs(draft.name, k[0], k[1], *draft.density);
          break;
        case MaterialDraft::Elastic::EngineeringConstants:
          // Abaqus order: E1, E2, E3, nu12, nu13, nu23, G12, G13, G23.
          m = Material::from_engineering_constants(draft.name, k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8],
                                                   *draft.density);
          break;
        default:
          m = Material::from_stiffness(draft.name, draft.stiffness, *draft.density);
          break;
      }
      m.damping_alpha = draft.damping_alpha;
      return m;
    } catch (const Error& error) {
      fail(draft.elastic_where, error.what());
    }
  }

  struct ElementRecord {
    int block;
    Index local;
    Plane plane;
  };
  struct Ignored {
    std::string what;
    int count;
    Location first;
  };

  LineSource& src_;
  Model model_;

  std::unordered_map<Label, Index> node_index_;
  std::vector<Location> node_where_;
  std::vector<ElementRecord> elements_;  // in definition order
  std::vector<Location> element_where_;
  std::unordered_map<Label, Index> element_index_;          // label -> definition index
  std::map<std::string, std::vector<Index>> element_sets_;  // definition indices
  int mesh_dim_ = 0;
  Location mesh_dim_where_;

  std::vector<MaterialDraft> materials_;
  int material_ = -1;  // the material *ELASTIC, *DENSITY, *DAMPING apply to
  std::vector<PendingSection> sections_;
  std::vector<PendingFixed> fixed_;
  std::vector<PendingLoad> loads_;
  std::map<std::string, std::vector<PendingFace>> surfaces_;  // *SURFACE, definition indices
  std::map<std::string, Location> surface_where_;
  std::vector<PendingSurfaceLoad> surface_loads_;
  std::vector<PendingBodyForce> body_forces_;

  bool in_step_ = false;
  int steps_ = 0;
  Location step_where_;
  std::string step_name_;
  std::string procedure_;  // the step's *STATIC or *DYNAMIC, for messages; empty: none yet
  Location procedure_where_;
  std::vector<std::pair<std::string, Location>> history_origin_;  // keyword and line of each history
  std::size_t fixed_before_step_ = 0;
  bool released_boundaries_ = false;
  OutputMode output_mode_ = OutputMode::None;
  Schedule output_schedule_;

  std::vector<Ignored> ignored_;
  std::unordered_map<std::string, std::size_t> ignored_index_;
  bool mesh_only_ = false;
};

namespace {

constexpr std::string_view parts_refused =
    ": parts and assemblies are not supported; write the input without them (Abaqus/CAE: Model attributes, "
    "'Do not use parts and assemblies in input files')";
constexpr std::string_view generators_refused =
    " is not supported: it generates or transforms mesh data; write the nodes and elements out explicitly";
constexpr std::string_view result_file_request =
    "a result-file request; in a *STATIC step the warning says the static solver writes its own result file";

}  // namespace

std::span<const Keyword> keywords() {
  using R = Reader;
  static constexpr Keyword table[] = {
      {.name = "INCLUDE", .display = "*INCLUDE", .use = Use::Read, .why = "followed by the line source"},
      {.name = "HEADING", .display = "*HEADING", .use = Use::Read, .place = Place::Model, .read = &R::heading},
      {.name = "NODE", .display = "*NODE", .use = Use::Read, .place = Place::Model, .read = &R::node},
      {.name = "ELEMENT", .display = "*ELEMENT", .use = Use::Read, .place = Place::Model, .read = &R::element},
      {.name = "NSET", .display = "*NSET", .use = Use::Read, .place = Place::Model, .read = &R::node_set_keyword},
      {.name = "ELSET", .display = "*ELSET", .use = Use::Read, .place = Place::Model, .read = &R::element_set_keyword},
      {.name = "MATERIAL", .display = "*MATERIAL", .use = Use::Read, .place = Place::Model, .read = &R::material},
      {.name = "ELASTIC",
       .display = "*ELASTIC",
       .use = Use::Read,
       .place = Place::Model,
       .material_option = true,
       .read = &R::elastic},
      {.name = "DENSITY",
       .display = "*DENSITY",
       .use = Use::Read,
       .place = Place::Model,
       .material_option = true,
       .read = &R::density},
      {.name = "DAMPING",
       .display = "*DAMPING",
       .use = Use::Read,
       .place = Place::Model,
       .material_option = true,
       .read = &R::damping},
      {.name = "SOLIDSECTION",
       .display = "*SOLID SECTION",
       .use = Use::Read,
       .place = Place::Model,
       .read = &R::solid_section},
      {.name = "BOUNDARY", .display = "*BOUNDARY", .use = Use::Read, .read = &R::boundary},
      {.name = "AMPLITUDE", .display = "*AMPLITUDE", .use = Use::Read, .read = &R::amplitude},
      {.name = "SURFACE", .display = "*SURFACE", .use = Use::Read, .place = Place::Model, .read = &R::surface},
      {.name = "CLOAD", .display = "*CLOAD", .use = Use::Read, .place = Place::Step, .read = &R::cload},
      {.name = "DSLOAD", .display = "*DSLOAD", .use = Use::Read, .place = Place::Step, .read = &R::dsload},
      {.name = "DLOAD", .display = "*DLOAD", .use = Use::Read, .place = Place::Step, .read = &R::dload},
      {.name = "STEP", .display = "*STEP", .use = Use::Read, .read = &R::step},
      {.name = "ENDSTEP", .display = "*END STEP", .use = Use::Read, .place = Place::Step, .read = &R::end_step},
      {.name = "DYNAMIC", .display = "*DYNAMIC", .use = Use::Read, .place = Place::Step, .read = &R::dynamic},
      {.name = "STATIC", .display = "*STATIC", .use = Use::Read, .place = Place::Step, .read = &R::static_procedure},
      {.name = "OUTPUT", .display = "*OUTPUT", .use = Use::Read, .place = Place::Step, .read = &R::output},
      {.name = "NODEOUTPUT",
       .display = "*NODE OUTPUT",
       .use = Use::Read,
       .place = Place::Step,
       .read = &R::node_output},
      {.name = "NODEPRINT", .display = "*NODE PRINT", .use = Use::Read, .place = Place::Step, .read = &R::node_output},
      // Requests for result files that tremor's own result file stands for.
      {.name = "ELPRINT",
       .display = "*EL PRINT",
       .use = Use::Ignored,
       .why = result_file_request,
       .read = &R::result_request},
      {.name = "NODEFILE",
       .display = "*NODE FILE",
       .use = Use::Ignored,
       .why = result_file_request,
       .read = &R::result_request},
      {.name = "ELFILE",
       .display = "*EL FILE",
       .use = Use::Ignored,
       .why = result_file_request,
       .read = &R::result_request},
      {.name = "ELEMENTOUTPUT",
       .display = "*ELEMENT OUTPUT",
       .use = Use::Ignored,
       .why = result_file_request,
       .read = &R::result_request},
      // Keywords that change the mesh or its numbering: ignoring them would leave a different mesh
      // than the file describes.
      {.name = "PART", .display = "*PART", .use = Use::Refused, .why = parts_refused},
      {.name = "ENDPART", .display = "*END PART", .use = Use::Refused, .why = parts_refused},
      {.name = "ASSEMBLY", .display = "*ASSEMBLY", .use = Use::Refused, .why = parts_refused},
      {.name = "ENDASSEMBLY", .display = "*END ASSEMBLY", .use = Use::Refused, .why = parts_refused},
      {.name = "INSTANCE", .display = "*INSTANCE", .use = Use::Refused, .why = parts_refused},
      {.name = "ENDINSTANCE", .display = "*END INSTANCE", .use = Use::Refused, .why = parts_refused},
      {.name = "NGEN", .display = "*NGEN", .use = Use::Refused, .why = generators_refused},
      {.name = "NFILL", .display = "*NFILL", .use = Use::Refused, .why = generators_refused},
      {.name = "NCOPY", .display = "*NCOPY", .use = Use::Refused, .why = generators_refused},
      {.name = "NMAP", .display = "*NMAP", .use = Use::Refused, .why = generators_refused},
      {.name = "ELGEN", .display = "*ELGEN", .use = Use::Refused, .why = generators_refused},
      {.name = "ELCOPY", .display = "*ELCOPY", .use = Use::Refused, .why = generators_refused},
      {.name = "SYSTEM", .display = "*SYSTEM", .use = Use::Refused, .why = generators_refused},
      {.name = "PARAMETER", .display = "*PARAMETER", .use = Use::Refused, .why = generators_refused},
  };
  return table;
}

const Keyword* find_keyword(std::string_view name) {
  for (const Keyword& keyword : keywords())
    if (keyword.name == name) return &keyword;
  return nullptr;
}

}  // namespace tremor::io::abaqus

namespace tremor::io {
namespace {

using abaqus::LineSource;
using abaqus::Reader;

Model read_abaqus_file(const std::string& path, bool mesh_only) {
  namespace fs = std::filesystem;
  const std::string text = read_file(path, "Abaqus input file");
  std::error_code error;
  const fs::path file(path);
  const std::string dir = file.has_parent_path() ? file.parent_path().string() : std::string(".");
  fs::path identity = fs::weakly_canonical(file, error);
  if (error) identity = fs::absolute(file, error).lexically_normal();
  LineSource source(text, path, dir, identity.string());
  return Reader(source, path, mesh_only).run();
}

}  // namespace

Model read_abaqus(const std::string& path) { return read_abaqus_file(path, false); }

Mesh read_abaqus_mesh(const std::string& path) { return std::move(read_abaqus_file(path, true).mesh); }

Model read_abaqus_buffer(std::string_view text, const std::string& name, const std::string& base_dir) {
  LineSource source(text, name, base_dir, "");
  return Reader(source, name).run();
}

}  // namespace tremor::io
