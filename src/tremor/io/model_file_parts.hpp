#pragma once
// Private to the model-file reader (io/model_file.hpp): the readers of its parts, one file each, and
// the checks they share. model_file_table.hpp reads one TOML table; these read what tremor's tables
// mean:
//   model_file.cpp            the entry points: the top level, and the parts in order
//   model_file_mesh.cpp       [mesh] (a file or a generator, the GLL order, box sets) and [[mesh.defect]]
//   model_file_material.cpp   [[material]], [[section]] and [[absorbing]]
//   model_file_loads.cpp      [explicit], [static], signals, [[source]], [[traction]],
//                             [[prescribed_displacement]], [[body_force]]
//   model_file_receivers.cpp  [[receiver]], [output], [[transducer]], [[shot]]; read_excitation
//   model_file_checks.cpp     the checks below: names, files, numbers, directions, positions, sets
// Every failure throws tremor::Error as "FILE:LINE: WHERE: message" (model_file_table.hpp).
#include <array>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/io/model_file_table.hpp"
#include "tremor/mesh/cracks.hpp"
#include "tremor/model/model.hpp"

namespace tremor::io::model_file {

using detail::Table;

// The mesh's bounding box, and the tolerance of 1e-9 of its extent by which boxes and positions
// are widened (a box drawn on a face of a generated mesh catches the nodes whose coordinates carry
// rounding): one pass over the nodes, once per model rather than once per box or position.
struct Bounds {
  int dim = 3;
  double lower[3] = {0.0, 0.0, 0.0}, upper[3] = {0.0, 0.0, 0.0};
  double tolerance = 0.0;
  explicit Bounds(const Mesh& mesh) : dim(mesh.dim()) {
    mesh.bounding_box(lower, upper);
    double extent = 0.0;
    for (int d = 0; d < dim; ++d) extent = std::max(extent, upper[d] - lower[d]);
    tolerance = 1e-9 * extent;
  }
  std::string span() const {
    std::string text;
    for (int d = 0; d < dim; ++d) text += str(d ? " x " : "", "[", lower[d], ", ", upper[d], "]");
    return text;
  }
};
// ---- the parts -------------------------------------------------------------------------------

// [mesh]: `order`, when given, raises the mesh to GLL elements of that order in place of [mesh]
// order; `given`, when not null, is the mesh (built in memory), to which [mesh]'s order, box sets
// and surfaces apply.
// `limit`: the generator's (mesh/generate.hpp).
Mesh read_mesh(const Table& mesh, const std::string& base_dir, std::optional<int> order, const Mesh* given,
               Size limit);
// One [[mesh.defect]], the `number`th.
Defect read_defect(const Table& table, int number, const std::string& base_dir);
// A [[mesh.hole]]: side-drilled ('centre') or flat-bottom ('bottom'), named "hole<number>" by default.
Hole read_hole(const Table& table, const Mesh& mesh, int number);
// A [[mesh.notch]], named "notch<number>" by default.
Hole read_notch(const Table& table, const Mesh& mesh, int number);
// A [[mesh.crack]]: its name (default "crack<number>") and points (2D: two; 3D: three or more).
Crack read_crack(const Table& table, const Mesh& mesh, int number);
// A [[material]]; one with a `field` reads its grid (resolved against `base_dir`; the mesh's `dim`).
Material read_material(Table& material, const std::string& base_dir, const Mesh& mesh);
// Every [[section]], or the default section over the element set "all".
void read_sections(const Table& root, Model& model);
AbsorbingLayer read_absorbing(Table& table, const Model& model);
// A [[pressure_release]]: its nodes' pressure held at 0 (FixedDof::pressure).
FixedDof read_pressure_release(Table& table, const Model& model);
// [explicit], [static], the loads, receivers, transducers, shots and [output] of `root`, read
// against model.mesh into `model`.
void read_excitation(const Table& root, Model& model, const std::string& base_dir);
// The keys of [explicit] (a run of a kept set-up gives only its duration).
inline constexpr std::string_view explicit_keys[] = {"duration", "time_step", "safety_factor", "precision", "backend",
                                                     "operator", "allow_unstable", "ordering", "blocks"};

// model_file_loads.cpp, for model_file_receivers.cpp
ExplicitSettings read_explicit(const Table& table, const std::string& base_dir);
StaticSettings read_static(const Table& table);
// A table's 'signal'.
Signal read_signal(const Table& owner, const std::string& base_dir);
// `signal_optional`: the model is static (a [static] table and no [explicit]), where a load without
// a signal is constant. One [[source]]: a source, or those of the CMTSOLUTION or FORCESOLUTION file it names.
std::vector<PointSource> read_source(Table& table, const Mesh& mesh, const Bounds& bounds, const std::string& base_dir,
                                     bool signal_optional);
SurfaceLoad read_traction(Table& table, const Mesh& mesh, const std::string& base_dir, bool signal_optional);
PrescribedDisplacement read_prescribed(Table& table, const Mesh& mesh, const std::string& base_dir,
                                       bool signal_optional);
BodyForce read_body_force(const Table& table, const Mesh& mesh);

// ---- shared checks (model_file_checks.cpp) ---------------------------------------------------

std::vector<std::string_view> views(const std::vector<std::string>& names);

template <class Map>
std::vector<std::string> names_of(const Map& map) {
  std::vector<std::string> names;
  for (const auto& entry : map) names.push_back(entry.first);
  return names;
}

// "a, b, c" (at most `shown` names, then "and N more").
std::string listing(const std::vector<std::string>& names, std::size_t shown = 12);


// The file a table's `key` names, resolved against the model file's folder: refused, naming the
// key, when the name is empty, when the model has no folder (given in memory) or when no regular
// file is there. `what` names the kind ("mesh file"), `expected` what an empty name should be,
// `hint` ends the not-found message.
std::filesystem::path referenced_file(const Table& table, std::string_view key, std::string_view what,
                                      std::string_view expected, const std::string& base_dir,
                                      std::string_view hint = "");

// "FILE:LINE" of a table, as a model's items give their origin.
std::string origin_of(const Table& table);
// The entries of `key`: a non-empty array of strings, each one of `options` and none twice; the
// index in `options` of each, in order. `form` describes the array ("an array such as [...]"),
// `entry` what each must be ("a string"); `unknown(i, name)` words the message for entry i when
// it is not an option. Every message names the entry's line.
std::vector<std::size_t> choice_list(const Table& table, std::string_view key, std::span<const std::string_view> options,
                                     std::string_view form, std::string_view entry,
                                     const std::function<std::string(std::size_t, const std::string&)>& unknown);
double positive(const Table& table, std::string_view key, std::string_view meaning);
double non_negative(const Table& table, std::string_view key, std::string_view meaning);
// The name of an existing, non-empty node set given by `key`, and its nodes.
std::pair<std::string, std::vector<Index>> node_set_of(const Table& table, const Mesh& mesh,
                                                       std::string_view key = "node_set");
// The same for an existing, non-empty element set, and its elements.
std::pair<std::string, std::vector<Index>> element_set_of(const Table& table, const Mesh& mesh,
                                                          std::string_view key = "element_set");
// dim numbers as a 3-vector (z = 0 in 2D).
std::array<double, 3> vector_of(const Table& table, std::string_view key, int dim, std::string_view meaning);
// A unit vector from `key`; a zero vector is an error.
std::array<double, 3> direction_of(const Table& table, std::string_view key, int dim);
// A position inside the mesh's bounding box (widened as the box sets are).
std::array<double, 3> position_in(const Table& table, const toml::node& node, const Bounds& bounds,
                                  const std::string& what);
// Two numbers (a point or a spacing in the x-y plane), m.
std::array<double, 2> plane_pair(const Table& table, std::string_view key, std::string_view meaning);
// The surface a table's 'surface' names, and its faces; refused when there is none or it is empty.
std::pair<std::string, std::vector<Face>> surface_of(const Table& table, const Mesh& mesh);
// "[[source]] #2 'name'" where the table names itself.
void name_where(Table& table);

}  // namespace tremor::io::model_file
