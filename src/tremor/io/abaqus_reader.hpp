#pragma once
// Private to the Abaqus reader (io/abaqus.hpp): the Reader that turns the lines of a deck into a
// Model, and what it keeps while it reads. Its work is split by what is read:
//   abaqus.cpp            entry points, dispatch through the keyword table (abaqus_keywords.hpp),
//                         parameters, data lines and numbers, the one warning
//   abaqus_mesh.cpp       *HEADING, *NODE, *ELEMENT, *NSET, *ELSET, *SURFACE
//   abaqus_materials.cpp  *MATERIAL with its options, *SOLID SECTION; the Materials and Sections built
//   abaqus_step.cpp       *AMPLITUDE, *BOUNDARY, the loads, *STEP with its procedure and output requests
//   abaqus_build.cpp      after the last line: definition order to the mesh's, sections, conditions, loads
//   abaqus_keywords.cpp   the keyword table: each keyword's function here
// Keywords are read in file order into drafts (Pending*, MaterialDraft) that keep their lines, so
// that checks needing the whole deck (abaqus_build.cpp) can name the line at fault.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tremor/io/abaqus_keywords.hpp"
#include "tremor/io/abaqus_lexer.hpp"
#include "tremor/model/model.hpp"

namespace tremor::io::abaqus {

// What a 2D element type says about the out-of-plane state; 3D types are Solid.
enum class Plane : std::uint8_t { Solid, Strain, Stress, Acoustic };  // Acoustic: AC2D*, AC3D*

// Text of a field for a message: bounded, so fuzzed megabyte fields do not flood the terminal.
std::string shown(std::string_view text);

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
  Location density_where;
  // *ELASTIC or *DENSITY naming a *DISTRIBUTION (values per element) instead of giving values.
  std::string elastic_distribution, density_distribution;
  std::optional<double> bulk_modulus;  // *ACOUSTIC MEDIUM: a fluid
  Location acoustic_where;
  double damping_alpha = 0.0;
  double damping_beta = 0.0;
};

// *DISTRIBUTION TABLE: the kinds of a distribution's columns (MODULUS, POISSON, DENSITY).
struct DistributionTable {
  std::vector<std::string> columns;
  Location where;
};

// *DISTRIBUTION, LOCATION=ELEMENT: the default values (the first data line's, without an element),
// then per data line the elements it names (definition indices; an element set's) and its values.
struct DistributionDraft {
  std::string name, table;
  Location where;
  std::vector<double> defaults;
  struct Entry {
    std::vector<Index> elements;
    std::vector<double> values;
    Location where;
  };
  std::vector<Entry> entries;
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

  // Reads every line, then builds the model (abaqus_build.cpp).
  Model run();

 private:
  // abaqus.cpp: dispatch, the one warning, parameters, data lines, numbers and labels
  [[noreturn]] void fail(Location where, const std::string& message) const { src_.fail(where, message); }
  void dispatch(const KeywordLine& keyword);
  void result_request(const KeywordLine& keyword);
  void ignore(const std::string& what, Location where);
  void warn_ignored();
  void check_parameters(const KeywordLine& keyword, std::initializer_list<std::string_view> known);
  std::string required_name(const KeywordLine& keyword, std::string_view key);
  std::string optional_name(const KeywordLine& keyword, std::string_view key);
  std::string option(const KeywordLine& keyword, std::string_view key);
  double parameter_real(const KeywordLine& keyword, std::string_view key);
  long long parameter_integer(const KeywordLine& keyword, std::string_view key);
  void no_data(const KeywordLine& keyword);
  void skip_data();
  Record read_record();
  Record read_line_record();
  std::vector<Record> read_records();
  double real(const Field& field, std::string_view what);
  double real_or(const Field& field, double fallback, std::string_view what);
  long long integer(const Field& field, std::string_view what);
  Label label(const Field& field, std::string_view what);
  Index node_index(Label id, Location where);
  Index element_index(Label id, Location where);
  const std::vector<Index>& node_set(const std::string& name, Location where);
  std::vector<Index> nodes_of(const Field& field);
  int dof(const Field& field);

  // abaqus_mesh.cpp: nodes, elements, sets and surfaces
  void heading(const KeywordLine&);
  void node(const KeywordLine& keyword);
  void element(const KeywordLine& keyword);
  template <class Lookup>
  void read_set(const KeywordLine& keyword, std::vector<Index>& members, std::string_view noun, Index n_defined,
                const std::map<std::string, std::vector<Index>>& sets, Lookup lookup);
  void node_set_keyword(const KeywordLine& keyword);
  void element_set_keyword(const KeywordLine& keyword);
  void surface(const KeywordLine& keyword);
  std::vector<Index> elements_of(const Field& field);
  ElementType type_of(Index definition) const;
  std::vector<PendingFace> faces_of(const std::vector<Index>& elements, const Field& field, char prefix,
                                    std::string_view usage);
  Label label_of(Index definition) const;
  void check_planar() const;

  // abaqus_materials.cpp: materials and sections
  void material(const KeywordLine& keyword);
  MaterialDraft& current_material(const KeywordLine& keyword);
  void check_no_dependencies(const KeywordLine& keyword);
  std::vector<Field> material_values(const KeywordLine& keyword, std::size_t count, const std::string& what,
                                     std::string* distribution = nullptr);
  void distribution_table(const KeywordLine& keyword);
  void distribution(const KeywordLine& keyword);
  const DistributionDraft& distribution_named(const std::string& name, const std::vector<std::string>& columns,
                                              Location where, const std::string& what) const;
  std::shared_ptr<const MaterialField> distributed(const MaterialDraft& draft, const Material& nominal) const;
  void elastic(const KeywordLine& keyword);
  template <std::size_t N>
  Voigt6 to_tremor_voigt(const std::vector<Field>& values, const int (&pairs)[N][2]);
  void density(const KeywordLine& keyword);
  void acoustic_medium(const KeywordLine& keyword);
  void damping(const KeywordLine& keyword);
  void solid_section(const KeywordLine& keyword);
  Formulation formulation(const std::vector<Index>& members, const PendingSection& section);
  Material build(const MaterialDraft& draft);

  // abaqus_step.cpp: amplitudes, boundary conditions and loads; the step, its procedure and outputs
  void amplitude(const KeywordLine& keyword);
  void boundary(const KeywordLine& keyword);
  void cload(const KeywordLine& keyword);
  bool surface_load_value(const std::string& load_type, const std::vector<Field>& f, std::size_t magnitude_at,
                          SurfaceLoad& load);
  void dsload(const KeywordLine& keyword);
  void dload(const KeywordLine& keyword);
  void body_force(const Record& record, const std::string& load_type, const std::string& amplitude_name);
  // True inside a step whose procedure is *STATIC.
  bool static_step() const { return in_step_ && procedure_ == "*STATIC"; }
  void step(const KeywordLine& keyword);
  void dynamic(const KeywordLine& keyword);
  void set_procedure(const KeywordLine& keyword, const char* name);
  void static_procedure(const KeywordLine& keyword);
  void ignore_static_output(const KeywordLine& keyword);
  Schedule schedule(const KeywordLine& keyword, const Schedule& inherited);
  void output(const KeywordLine& keyword);
  void node_output(const KeywordLine& keyword);
  void end_step(const KeywordLine& keyword);

  // abaqus_build.cpp: after the last line
  void finish();
  std::vector<Index> finish_sets(std::vector<std::vector<int>>& exterior);
  void finish_sections();
  void finish_conditions(const std::vector<Index>& global_of, const std::vector<std::vector<int>>& exterior);
  void finish_mesh_only();
  std::vector<Face> resolve_faces(const std::vector<PendingFace>& pending, const std::vector<Index>& global,
                                  const std::vector<std::vector<int>>& exterior) const;
  void resolve_boundary_overrides();

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
  std::map<std::string, DistributionTable> distribution_tables_;
  std::map<std::string, DistributionDraft> distributions_;
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

}  // namespace tremor::io::abaqus
