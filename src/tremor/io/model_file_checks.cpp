// Checks that the model file's readers share (model_file_parts.hpp).
#include "tremor/io/model_file_parts.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>

#include "tremor/core/error.hpp"

namespace tremor::io::model_file {


std::vector<std::string_view> views(const std::vector<std::string>& names) {
  return std::vector<std::string_view>(names.begin(), names.end());
}

// "a, b, c" (at most `shown` names, then "and N more").
std::string listing(const std::vector<std::string>& names, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) out += str(i ? ", " : "", "'", names[i], "'");
  if (names.size() > shown) out += str(" and ", names.size() - shown, " more");
  return out.empty() ? "none" : out;
}

// The file a table's `key` names, resolved against the model file's folder: refused, naming the
// key, when the name is empty, when the model has no folder (given in memory) or when no regular
// file is there. `what` names the kind ("mesh file"), `expected` what an empty name should be,
// `hint` ends the not-found message.
std::filesystem::path referenced_file(const Table& table, std::string_view key, std::string_view what,
                                      std::string_view expected, const std::string& base_dir,
                                      std::string_view hint) {
  namespace fs = std::filesystem;
  const std::string file = *table.string(key);
  if (file.empty()) table.fail(key, str("'", key, "' is empty; expected ", expected));
  if (base_dir.empty())
    table.fail(key, str(what, " '", file,
                        "' cannot be read: this model was given in memory with no folder to resolve it against"));
  const fs::path path = fs::path(base_dir) / fs::path(file);
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (fs::is_directory(status))
    table.fail(key, str(what, " '", file, "' is a folder (", path.string(), "); expected ", expected));
  if (fs::exists(status) && !fs::is_regular_file(status))
    table.fail(key, str(what, " '", file, "' is not a regular file (", path.string(), "); expected ", expected));
  if (!fs::is_regular_file(status))
    table.fail(key, str(what, " '", file, "' not found (looked for ", path.string(), ")", hint));
  std::vector<std::string>* files_read = table.files_read();  // Model::inputs
  if (files_read && std::find(files_read->begin(), files_read->end(), path.string()) == files_read->end())
    files_read->push_back(path.string());
  return path;
}

std::string origin_of(const Table& table) { return str(table.file(), ":", table.line()); }

// The entries of `key`: a non-empty array of strings, each one of `options` and none twice; the
// index in `options` of each, in order. `form` describes the array ("an array such as [...]"),
// `entry` what each must be ("a string"); `unknown(i, name)` words the message for entry i when
// it is not an option. Every message names the entry's line.
std::vector<std::size_t> choice_list(const Table& table, std::string_view key, std::span<const std::string_view> options,
                                     std::string_view form, std::string_view entry,
                                     const std::function<std::string(std::size_t, const std::string&)>& unknown) {
  const toml::node& node = *table.node(key);
  const auto* array = node.as_array();
  if (!array || array->empty()) table.fail(key, str("'", key, "' must be ", form, ", got ", detail::describe(node)));
  std::vector<std::size_t> picked;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const auto* name = (*array)[i].as_string();
    const long line = detail::line_of((*array)[i]);
    if (!name) table.fail_at(line, str("'", key, "'[", i, "] must be ", entry, ", got ", detail::describe((*array)[i])));
    const auto found = std::find(options.begin(), options.end(), name->get());
    if (found == options.end()) table.fail_at(line, unknown(i, name->get()));
    const auto index = static_cast<std::size_t>(found - options.begin());
    if (std::find(picked.begin(), picked.end(), index) != picked.end())
      table.fail_at(line, str("'", key, "' lists '", name->get(), "' twice"));
    picked.push_back(index);
  }
  return picked;
}

double positive(const Table& table, std::string_view key, std::string_view meaning) {
  const double value = table.required_number(key, meaning);
  if (!(value > 0.0)) table.fail(key, str("'", key, "' is ", value, "; expected a positive number (", meaning, ")"));
  return value;
}

double non_negative(const Table& table, std::string_view key, std::string_view meaning) {
  const double value = table.number(key, 0.0);
  if (!(value >= 0.0)) table.fail(key, str("'", key, "' is ", value, "; expected a non-negative number (", meaning, ")"));
  return value;
}

// The name of an existing, non-empty node set given by `key`, and its nodes.
std::pair<std::string, std::vector<Index>> node_set_of(const Table& table, const Mesh& mesh,
                                                       std::string_view key) {
  const std::string name = *table.string(key);
  const auto set = mesh.node_sets.find(name);
  if (set == mesh.node_sets.end()) {
    const auto names = names_of(mesh.node_sets);
    table.fail(key, str("no node set named '", name, "'", suggestion(name, views(names)), "; the mesh has ",
                        listing(names)));
  }
  if (set->second.empty()) table.fail(key, str("node set '", name, "' is empty"));
  return {name, set->second};
}

std::pair<std::string, std::vector<Index>> element_set_of(const Table& table, const Mesh& mesh,
                                                          std::string_view key) {
  const std::string name = *table.string(key);
  const auto set = mesh.element_sets.find(name);
  if (set == mesh.element_sets.end()) {
    const auto names = names_of(mesh.element_sets);
    table.fail(key, str("no element set named '", name, "'", suggestion(name, views(names)), "; the mesh has ",
                        listing(names)));
  }
  if (set->second.empty()) table.fail(key, str("element set '", name, "' is empty"));
  return {name, set->second};
}

// dim numbers as a 3-vector (z = 0 in 2D).
std::array<double, 3> vector_of(const Table& table, std::string_view key, int dim, std::string_view meaning) {
  const auto values = table.numbers(key, static_cast<std::size_t>(dim));
  if (!values) table.fail(key, str("missing '", key, "' (", meaning, ")"));
  std::array<double, 3> out{0.0, 0.0, 0.0};
  for (std::size_t d = 0; d < values->size(); ++d) out[d] = (*values)[d];
  return out;
}

// A unit vector from `key`; a zero vector is an error.
std::array<double, 3> direction_of(const Table& table, std::string_view key, int dim) {
  std::array<double, 3> direction =
      vector_of(table, key, dim, str(dim, " components of the direction; they are normalised"));
  // Scaled by its largest component first, so that neither [1e308, 1e308] nor [1e-320, 0]
  // overflows or underflows the norm.
  const double largest = std::max({std::abs(direction[0]), std::abs(direction[1]), std::abs(direction[2])});
  if (!(largest > 0.0)) table.fail(key, str("'", key, "' is the zero vector; expected a direction"));
  for (double& c : direction) c /= largest;
  const double norm = std::sqrt(direction[0] * direction[0] + direction[1] * direction[1] + direction[2] * direction[2]);
  for (double& c : direction) c /= norm;
  return direction;
}

// A position inside the mesh's bounding box (widened as the box sets are).
std::array<double, 3> position_in(const Table& table, const toml::node& node, const Bounds& bounds,
                                  const std::string& what) {
  const int dim = bounds.dim;
  const auto* array = node.as_array();
  if (!array || array->size() != static_cast<std::size_t>(dim))
    table.fail_at(detail::line_of(node),
                  str(what, " must be an array of ", dim, " coordinates, m; got ", detail::describe(node)));
  std::array<double, 3> x{0.0, 0.0, 0.0};
  for (std::size_t d = 0; d < array->size(); ++d) x[d] = detail::number_of((*array)[d], table, str(what, "[", d, "]"));
  for (int d = 0; d < dim; ++d) {
    const auto k = static_cast<std::size_t>(d);
    if (x[k] < bounds.lower[d] - bounds.tolerance || x[k] > bounds.upper[d] + bounds.tolerance)
      table.fail_at(detail::line_of(node), str(what, " lies outside the mesh, which spans ", bounds.span()));
  }
  return x;
}

// Two numbers (a point or a spacing in the x-y plane), m.
std::array<double, 2> plane_pair(const Table& table, std::string_view key, std::string_view meaning) {
  const auto values = table.numbers(key, 2);
  if (!values) table.fail_at(table.line(), str("missing '", key, "' (", meaning, ")"));
  return {(*values)[0], (*values)[1]};
}

// The surface a table's 'surface' names, and its faces; refused when there is none or it is empty.
std::pair<std::string, std::vector<Face>> surface_of(const Table& table, const Mesh& mesh) {
  std::string name = table.required_string("surface", "the name of a surface of the mesh");
  const auto set = mesh.face_sets.find(name);
  if (set == mesh.face_sets.end()) {
    const auto names = names_of(mesh.face_sets);
    table.fail("surface", str("no surface named '", name, "'", suggestion(name, views(names)), "; the mesh has ",
                              listing(names)));
  }
  if (set->second.empty()) table.fail("surface", str("surface '", name, "' is empty"));
  return {std::move(name), set->second};
}

// "[[source]] #2 'name'" where the table names itself.
void name_where(Table& table) {
  if (const auto name = table.string("name")) {
    // Shown escaped when it holds control characters or quotes (a NUL would cut the message).
    const std::string quoted = quoted_name(*name);
    table.set_where(str(table.where(), " ", quoted.size() == name->size() + 2 ? str("'", *name, "'") : quoted));
  }
}

}  // namespace tremor::io::model_file
