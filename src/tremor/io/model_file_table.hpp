#pragma once
// Checked access to one TOML table of a model file. Every failure throws tremor::Error as
// "FILE:LINE: WHERE: message", LINE being the offending key's (or the table's when a key is
// missing) and WHERE the table ("[mesh]", "[[material]] 'steel'").
#include <toml++/toml.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/core/choice.hpp"
#include "tremor/core/format.hpp"

namespace tremor::io::detail {

// The TOML document in `text`; a syntax error is thrown as "NAME:LINE: TOML syntax error: ...".
toml::table parse_document(std::string_view text, const std::string& name);

// "a string", "an integer", ... for messages.
std::string describe(const toml::node& node);

long line_of(const toml::node& node);

class Table {
 public:
  // `path` is the table's dotted name ("" for the document, "mesh"), used to name sub-tables.
  Table(const toml::table& table, std::string file, std::string where, std::string path = "")
      : table_(table), file_(std::move(file)), where_(std::move(where)), path_(std::move(path)) {}

  const std::string& file() const { return file_; }
  const std::string& where() const { return where_; }
  // Where the files this table and its sub-tables name are listed as referenced_file() resolves
  // them (Model::inputs); nowhere unless set.
  void collect_files_into(std::vector<std::string>* into) { files_read_ = into; }
  std::vector<std::string>* files_read() const { return files_read_; }
  void set_where(std::string where) { where_ = std::move(where); }
  long line() const { return line_of(table_); }
  const toml::table& raw() const { return table_; }

  // Rejects any key outside `known`, naming the first (by line) with a suggestion.
  void only(std::span<const std::string_view> known) const;

  bool has(std::string_view key) const { return table_.contains(key); }
  const toml::node* node(std::string_view key) const { return table_.get(key); }
  // Line of the key's value, or of the table when the key is absent.
  long line(std::string_view key) const;

  // A finite number (TOML integer or float).
  std::optional<double> number(std::string_view key) const;
  double number(std::string_view key, double fallback) const;
  double required_number(std::string_view key, std::string_view meaning) const;

  std::optional<std::int64_t> integer(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;

  std::optional<std::string> string(std::string_view key) const;
  std::string required_string(std::string_view key, std::string_view meaning) const;

  // An array of exactly `count` finite numbers (or integers).
  std::optional<std::vector<double>> numbers(std::string_view key, std::size_t count) const;
  std::optional<std::vector<std::int64_t>> integers(std::string_view key, std::size_t count) const;
  // An array of strings, of any length.
  std::optional<std::vector<std::string>> strings(std::string_view key) const;

  // An inline table held in one of this table's values ({ kind = ... }), named `where` in messages,
  // listing its files where this one does.
  Table inline_table(const toml::table& table, std::string where) const;
  // Sub-tables: `key` must be a table ([key]) or an array of tables ([[key]]); absent: none.
  std::optional<Table> table(std::string_view key) const;
  std::vector<Table> tables(std::string_view key) const;

  [[noreturn]] void fail(std::string_view key, const std::string& message) const;
  [[noreturn]] void fail_at(long line, const std::string& message) const;

 private:
  const toml::table& table_;
  std::string file_;
  std::string where_;
  std::string path_;
  std::vector<std::string>* files_read_ = nullptr;
};

// Number from an array element or value node: finite, integer or float; throws naming `what`.
double number_of(const toml::node& node, const Table& context, const std::string& what);

// A string at `key` that must be one of `options` (an unknown one is named, with a suggestion).
std::optional<std::string> choice(const Table& table, std::string_view key, std::span<const std::string_view> options);

// The value a name of `names` at `key` stands for, checked as choice() checks it.
template <class Enum, std::size_t N>
std::optional<Enum> named_choice(const Table& table, std::string_view key, const std::array<Named<Enum>, N>& names) {
  const std::array<std::string_view, N> options = names_of(names);
  const std::optional<std::string> value = choice(table, key, options);
  if (!value) return std::nullopt;
  return parse_named(*value, names, key);
}

}  // namespace tremor::io::detail
