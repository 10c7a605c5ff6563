// The Abaqus reader: its entry points, dispatch through the keyword table, and the checked
// reading of parameters, data lines and numbers that every keyword uses (abaqus_reader.hpp).
#include "tremor/io/abaqus_reader.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>

#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/abaqus.hpp"
#include "tremor/io/file.hpp"

namespace tremor::io::abaqus {

// Degrees of freedom beyond this are not Abaqus dofs; the bound also keeps dof loops short.
constexpr long long max_dof = 30;

// Text of a field for a message: bounded, so fuzzed megabyte fields do not flood the terminal.
std::string shown(std::string_view text) {
  if (text.size() <= 40) return std::string(text);
  return std::string(text.substr(0, 37)) + "...";
}

Model Reader::run() {
  while (auto line = src_.next()) {
    if (!line->keyword) fail(line->where, "data line '" + shown(line->text) + "' does not belong to any keyword");
    dispatch(abaqus::parse_keyword(src_, *line));
  }
  if (in_step_) fail(step_where_, "*STEP has no matching *END STEP");
  finish();
  return std::move(model_);
}

// Through the keyword table (abaqus_keywords.hpp); a keyword outside it is listed in the warning.
void Reader::dispatch(const KeywordLine& keyword) {
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
void Reader::result_request(const KeywordLine& keyword) {
  if (static_step()) return ignore_static_output(keyword);
  ignore(keyword.display, keyword.where);
  skip_data();
}

// Remembers something read but not applied, for the one warning at the end.
void Reader::ignore(const std::string& what, Location where) {
  const auto [it, added] = ignored_index_.try_emplace(what, ignored_.size());
  if (added)
    ignored_.push_back({what, 1, where});
  else
    ++ignored_[it->second].count;
}

void Reader::warn_ignored() {
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

void Reader::check_parameters(const KeywordLine& keyword, std::initializer_list<std::string_view> known) {
  for (const auto& parameter : keyword.parameters)
    if (std::find(known.begin(), known.end(), parameter.key) == known.end())
      ignore(keyword.display + ", " + parameter.key, keyword.where);
}

std::string Reader::required_name(const KeywordLine& keyword, std::string_view key) {
  const abaqus::Parameter* parameter = keyword.find(key);
  if (parameter == nullptr || parameter->value.empty())
    fail(keyword.where, str(keyword.display, " needs ", key, "=<name>"));
  return abaqus::to_name(parameter->value);
}

std::string Reader::optional_name(const KeywordLine& keyword, std::string_view key) {
  const abaqus::Parameter* parameter = keyword.find(key);
  if (parameter == nullptr) return {};
  if (parameter->value.empty()) fail(keyword.where, str(keyword.display, ": ", key, "= needs a name"));
  return abaqus::to_name(parameter->value);
}

// The value of KEY= as a name with blanks removed ("ENGINEERINGCONSTANTS"), or "" when absent.
std::string Reader::option(const KeywordLine& keyword, std::string_view key) {
  const abaqus::Parameter* parameter = keyword.find(key);
  if (parameter == nullptr) return {};
  std::string value;
  for (char c : abaqus::to_name(parameter->value))
    if (c != ' ') value += c;
  return value;
}

double Reader::parameter_real(const KeywordLine& keyword, std::string_view key) {
  const abaqus::Parameter* parameter = keyword.find(key);
  const auto value = abaqus::parse_real(parameter->value);
  if (!value) fail(keyword.where, str(keyword.display, ": bad number '", shown(parameter->value), "' for ", key));
  return *value;
}

long long Reader::parameter_integer(const KeywordLine& keyword, std::string_view key) {
  const abaqus::Parameter* parameter = keyword.find(key);
  const auto value = abaqus::parse_integer(parameter->value);
  if (!value)
    fail(keyword.where,
         str(keyword.display, ": bad number '", shown(parameter->value), "' for ", key, " (expected an integer)"));
  return *value;
}

void Reader::no_data(const KeywordLine& keyword) {
  if (src_.data_follows()) fail(src_.peek()->where, keyword.display + " takes no data lines");
}

void Reader::skip_data() {
  while (src_.data_follows()) src_.next();
}

// One data line and those continuing it (a line ending in a comma continues on the next).
Record Reader::read_record() {
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
Record Reader::read_line_record() {
  const auto line = src_.next();
  Record record;
  record.where = line->where;
  abaqus::split_fields(line->text, line->where, record.fields);
  return record;
}

std::vector<Record> Reader::read_records() {
  std::vector<Record> records;
  while (src_.data_follows()) records.push_back(read_record());
  return records;
}

double Reader::real(const Field& field, std::string_view what) {
  if (field.text.empty()) fail(field.where, str("missing ", what));
  const auto value = abaqus::parse_real(field.text);
  if (!value) fail(field.where, str("bad number '", shown(field.text), "' where ", what, " was expected"));
  return *value;
}

// Abaqus reads an omitted numeric entry as zero unless the option gives another default.
double Reader::real_or(const Field& field, double fallback, std::string_view what) {
  return field.text.empty() ? fallback : real(field, what);
}

long long Reader::integer(const Field& field, std::string_view what) {
  if (field.text.empty()) fail(field.where, str("missing ", what));
  const auto value = abaqus::parse_integer(field.text);
  if (!value)
    fail(field.where, str("bad number '", shown(field.text), "' where ", what, " (an integer) was expected"));
  return *value;
}

Label Reader::label(const Field& field, std::string_view what) {
  const long long value = integer(field, what);
  if (value <= 0) fail(field.where, str(what, " ", value, " is not positive"));
  return value;
}

Index Reader::node_index(Label id, Location where) {
  const auto it = node_index_.find(id);
  if (it == node_index_.end())
    fail(where, str("node ", id, " is not defined (nodes must be defined before they are used)"));
  return it->second;
}

Index Reader::element_index(Label id, Location where) {
  const auto it = element_index_.find(id);
  if (it == element_index_.end())
    fail(where, str("element ", id, " is not defined (elements must be defined before they are used)"));
  return it->second;
}

const std::vector<Index>& Reader::node_set(const std::string& name, Location where) {
  const auto it = model_.mesh.node_sets.find(name);
  if (it == model_.mesh.node_sets.end()) fail(where, "undefined node set '" + name + "'");
  return it->second;
}

// A node number or a node set name, as *BOUNDARY and *CLOAD take them.
std::vector<Index> Reader::nodes_of(const Field& field) {
  if (field.text.empty()) fail(field.where, "missing node number or node set name");
  if (abaqus::parse_integer(field.text)) return {node_index(label(field, "node number"), field.where)};
  return node_set(abaqus::to_name(field.text), field.where);
}

// Degree of freedom 1..max_dof.
int Reader::dof(const Field& field) {
  const long long value = integer(field, "degree of freedom");
  if (value < 1 || value > max_dof)
    fail(field.where, str("degree of freedom ", value, " is out of range (1 to ", max_dof, ")"));
  return static_cast<int>(value);
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
