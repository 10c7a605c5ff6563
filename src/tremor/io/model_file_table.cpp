#include "tremor/io/model_file_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "tremor/core/error.hpp"

namespace tremor::io::detail {


std::string describe(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return str("an array of ", node.as_array()->size());
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

long line_of(const toml::node& node) { return static_cast<long>(node.source().begin.line); }

void Table::fail_at(long line, const std::string& message) const {
  throw_input_error(file_, line, where_ + ": " + message);
}

void Table::fail(std::string_view key, const std::string& message) const { fail_at(line(key), message); }

long Table::line(std::string_view key) const {
  const toml::node* value = table_.get(key);
  return value ? line_of(*value) : line();
}

void Table::only(std::span<const std::string_view> known) const {
  const toml::key* first = nullptr;
  for (auto&& [key, value] : table_) {
    (void)value;
    if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
    if (!first || key.source().begin.line < first->source().begin.line) first = &key;
  }
  if (!first) return;
  std::string message = str("unknown key '", first->str(), "'");
  const std::string match = closest_match(first->str(), known);
  if (!match.empty()) {
    message += str("; did you mean '", match, "'?");
  } else {
    message += "; expected one of: ";
    for (std::size_t i = 0; i < known.size(); ++i) message += str(i ? ", " : "", known[i]);
  }
  fail_at(static_cast<long>(first->source().begin.line), message);
}

double number_of(const toml::node& node, const Table& context, const std::string& what) {
  if (const auto* integer = node.as_integer()) return static_cast<double>(integer->get());
  if (const auto* real = node.as_floating_point()) {
    if (!std::isfinite(real->get()))
      context.fail_at(line_of(node), str(what, " must be a finite number, got ", real->get()));
    return real->get();
  }
  context.fail_at(line_of(node), str(what, " must be a number, got ", describe(node)));
}

std::optional<double> Table::number(std::string_view key) const {
  const toml::node* value = table_.get(key);
  if (!value) return std::nullopt;
  return number_of(*value, *this, str("'", key, "'"));
}

double Table::number(std::string_view key, double fallback) const { return number(key).value_or(fallback); }

double Table::required_number(std::string_view key, std::string_view meaning) const {
  const auto value = number(key);
  if (!value) fail(key, str("missing '", key, "' (", meaning, ")"));
  return *value;
}

std::optional<std::int64_t> Table::integer(std::string_view key) const {
  const toml::node* value = table_.get(key);
  if (!value) return std::nullopt;
  const auto* integer = value->as_integer();
  if (!integer) fail(key, str("'", key, "' must be an integer, got ", describe(*value)));
  return integer->get();
}

std::optional<bool> Table::boolean(std::string_view key) const {
  const toml::node* value = table_.get(key);
  if (!value) return std::nullopt;
  const auto* flag = value->as_boolean();
  if (!flag) fail(key, str("'", key, "' must be true or false, got ", describe(*value)));
  return flag->get();
}

std::optional<std::string> Table::string(std::string_view key) const {
  const toml::node* value = table_.get(key);
  if (!value) return std::nullopt;
  const auto* text = value->as_string();
  if (!text) fail(key, str("'", key, "' must be a string, got ", describe(*value)));
  return text->get();
}

std::string Table::required_string(std::string_view key, std::string_view meaning) const {
  auto value = string(key);
  if (!value) fail(key, str("missing '", key, "' (", meaning, ")"));
  return *value;
}

std::optional<std::vector<double>> Table::numbers(std::string_view key, std::size_t count) const {
  const toml::node* value = table_.get(key);
  if (!value) return std::nullopt;
  const auto* array = value->as_array();
  if (!array || array->size() != count)
    fail(key, str("'", key, "' must be an array of ", count, " numbers, got ", describe(*value)));
  std::vector<double> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(number_of((*array)[i], *this, str("'", key, "'[", i, "]")));
  return out;
}

std::optional<std::vector<std::int64_t>> Table::integers(std::string_view key, std::size_t count) const {
  const toml::node* value = table_.get(key);
  if (!value) return std::nullopt;
  const auto* array = value->as_array();
  if (!array || array->size() != count)
    fail(key, str("'", key, "' must be an array of ", count, " integers, got ", describe(*value)));
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < count; ++i) {
    const auto* integer = (*array)[i].as_integer();
    if (!integer)
      fail_at(line_of((*array)[i]), str("'", key, "'[", i, "] must be an integer, got ", describe((*array)[i])));
    out.push_back(integer->get());
  }
  return out;
}

std::optional<std::vector<std::string>> Table::strings(std::string_view key) const {
  const toml::node* value = table_.get(key);
  if (!value) return std::nullopt;
  const auto* array = value->as_array();
  if (!array) fail(key, str("'", key, "' must be an array of strings, got ", describe(*value)));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const auto* text = (*array)[i].as_string();
    if (!text) fail_at(line_of((*array)[i]), str("'", key, "'[", i, "] must be a string, got ", describe((*array)[i])));
    out.push_back(text->get());
  }
  return out;
}

Table Table::inline_table(const toml::table& table, std::string where) const {
  Table out(table, file_, std::move(where));
  out.files_read_ = files_read_;
  return out;
}

std::optional<Table> Table::table(std::string_view key) const {
  const toml::node* value = table_.get(key);
  if (!value) return std::nullopt;
  const auto* sub = value->as_table();
  const std::string name = path_.empty() ? std::string(key) : str(path_, ".", key);
  if (!sub) fail(key, str("'", key, "' must be a table ([", name, "]), got ", describe(*value)));
  Table out(*sub, file_, str("[", name, "]"), name);
  out.files_read_ = files_read_;
  return out;
}

std::vector<Table> Table::tables(std::string_view key) const {
  std::vector<Table> out;
  const toml::node* value = table_.get(key);
  if (!value) return out;
  const auto* array = value->as_array();
  const std::string name = path_.empty() ? std::string(key) : str(path_, ".", key);
  if (!array || !array->is_array_of_tables())
    fail(key, str("'", key, "' must be an array of tables, one [[", name, "]] block each, got ", describe(*value)));
  for (std::size_t i = 0; i < array->size(); ++i) {
    out.emplace_back(*(*array)[i].as_table(), file_, str("[[", name, "]] #", i + 1), name);
    out.back().files_read_ = files_read_;
  }
  return out;
}

toml::table parse_document(std::string_view text, const std::string& name) {
  try {
    return toml::parse(text, std::string_view(name));
  } catch (const toml::parse_error& e) {
    throw_input_error(name, static_cast<long>(e.source().begin.line), str("TOML syntax error: ", e.description()));
  }
}

std::optional<std::string> choice(const Table& table, std::string_view key, std::span<const std::string_view> options) {
  auto value = table.string(key);
  if (value && std::find(options.begin(), options.end(), *value) == options.end())
    table.fail(key, unknown_choice(key, *value, options));
  return value;
}

}  // namespace tremor::io::detail
