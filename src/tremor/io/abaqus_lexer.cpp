#include "tremor/io/file.hpp"
#include "tremor/io/abaqus_lexer.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "tremor/core/error.hpp"

namespace tremor::io::abaqus {

namespace fs = std::filesystem;

namespace {

// Abaqus allows nesting includes; ten levels is far beyond real inputs and stops runaway recursion.
constexpr std::size_t max_include_depth = 10;

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && is_blank(text[begin])) ++begin;
  while (end > begin && is_blank(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

bool is_comment(std::string_view trimmed) { return trimmed.size() >= 2 && trimmed[0] == '*' && trimmed[1] == '*'; }

char upper(char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }

// Removes blanks outside double quotes (Abaqus ignores blanks on keyword lines).
std::string without_blanks(std::string_view text) {
  std::string out;
  bool quoted = false;
  for (char c : text) {
    if (c == '"') quoted = !quoted;
    if (!quoted && is_blank(c)) continue;
    out += c;
  }
  return out;
}

// Splits at commas outside double quotes.
std::vector<std::string_view> split_commas(std::string_view text) {
  std::vector<std::string_view> parts;
  bool quoted = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') quoted = !quoted;
    if (text[i] == ',' && !quoted) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}

std::string unquote(std::string_view text) {
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
  return std::string(text);
}

std::string canonical_path(const fs::path& path) {
  std::error_code error;
  fs::path canonical = fs::weakly_canonical(path, error);
  if (error) canonical = fs::absolute(path, error).lexically_normal();
  return canonical.string();
}

}  // namespace

const Parameter* KeywordLine::find(std::string_view key) const {
  for (const auto& p : parameters)
    if (p.key == key) return &p;
  return nullptr;
}

LineSource::LineSource(std::string_view text, std::string name, std::string base_dir, std::string identity) {
  File root;
  root.name = std::move(name);
  root.includes_allowed = !base_dir.empty();
  root.dir = std::move(base_dir);
  root.identity = std::move(identity);
  root.text = text;
  files_.push_back(std::move(root));
  open_.push_back(0);
}

std::string LineSource::where(Location loc) const { return str(file_name(loc.file), ":", loc.line); }

void LineSource::fail(Location loc, const std::string& message) const {
  throw_input_error(file_name(loc.file), loc.line, message);
}

bool LineSource::physical_line(File& file, std::string_view& text) {
  if (file.pos >= file.text.size()) return false;
  std::size_t end = file.text.find('\n', file.pos);
  if (end == std::string_view::npos) end = file.text.size();
  text = file.text.substr(file.pos, end - file.pos);
  file.pos = end + 1;
  ++file.line;
  return true;
}

std::optional<Line> LineSource::read_line() {
  while (!open_.empty()) {
    const int index = open_.back();
    File& file = files_[static_cast<std::size_t>(index)];
    std::string_view raw;
    if (!physical_line(file, raw)) {
      open_.pop_back();
      continue;
    }
    const Location where{index, file.line};
    std::string_view text = trim(raw);
    if (text.empty() || is_comment(text)) continue;
    if (text[0] != '*') return Line{false, text, where};

    if (text.back() == ',') {
      // A keyword line ending in a comma continues on the next non-comment line of the same file.
      std::string joined(text);
      while (!joined.empty() && joined.back() == ',') {
        std::string_view more;
        bool found = false;
        while (physical_line(file, more)) {
          more = trim(more);
          if (more.empty() || is_comment(more)) continue;
          if (more[0] == '*')
            fail({index, file.line}, "the keyword line at line " + std::to_string(where.line) +
                                         " ends in a comma, so this line should continue its parameters, "
                                         "but it starts a new keyword");
          found = true;
          break;
        }
        if (!found) break;
        joined += more;
      }
      joined_.push_back(std::move(joined));
      text = joined_.back();
    }
    const Line line{true, text, where};
    const KeywordLine keyword = parse_keyword(*this, line);
    if (keyword.name == "INCLUDE") {  // *INCLUDE of the keyword table (abaqus_keywords.hpp)
      include(keyword);
      continue;
    }
    return line;
  }
  return std::nullopt;
}

std::optional<Line> LineSource::next() {
  if (lookahead_) {
    std::optional<Line> line = lookahead_;
    lookahead_.reset();
    return line;
  }
  return read_line();
}

const Line* LineSource::peek() {
  if (!lookahead_) lookahead_ = read_line();
  return lookahead_ ? &*lookahead_ : nullptr;
}

void LineSource::include(const KeywordLine& keyword) {
  const Parameter* input = keyword.find("INPUT");
  if (input == nullptr || input->value.empty()) fail(keyword.where, "*INCLUDE needs INPUT=<file name>");
  const File& parent = files_[static_cast<std::size_t>(keyword.where.file)];
  if (!parent.includes_allowed)
    fail(keyword.where, "*INCLUDE, INPUT=" + input->value +
                            " cannot be followed: the input was read from memory without a base directory");
  if (open_.size() > max_include_depth)
    fail(keyword.where, str("*INCLUDE, INPUT=", input->value, " nests includes deeper than ", max_include_depth,
                            " levels (do the files include each other?)"));

  fs::path path(input->value);
  if (path.is_relative()) path = fs::path(parent.dir) / path;
  path = path.lexically_normal();
  const std::string identity = canonical_path(path);
  for (std::size_t k = 0; k < open_.size(); ++k) {
    if (files_[static_cast<std::size_t>(open_[k])].identity != identity) continue;
    std::string chain;
    for (std::size_t j = k; j < open_.size(); ++j) chain += files_[static_cast<std::size_t>(open_[j])].name + " -> ";
    fail(keyword.where, "include cycle: " + chain + path.string());
  }

  std::string contents;
  try {
    contents = read_file(path.string(), "included file");
  } catch (const Error& e) {
    fail(keyword.where, str(e.what(), " (INPUT=", input->value, ")"));
  }

  File file;
  file.name = path.string();
  file.dir = path.has_parent_path() ? path.parent_path().string() : std::string(".");
  file.identity = identity;
  file.storage = std::move(contents);
  files_.push_back(std::move(file));
  File& added = files_.back();
  added.text = added.storage;
  open_.push_back(static_cast<int>(files_.size() - 1));
}

KeywordLine parse_keyword(const LineSource& source, const Line& line) {
  KeywordLine keyword;
  keyword.where = line.where;
  const std::vector<std::string_view> parts = split_commas(line.text.substr(1));

  const std::string_view raw_name = trim(parts[0]);
  for (char c : raw_name) {
    if (is_blank(c)) {
      if (!keyword.display.empty() && keyword.display.back() != ' ') keyword.display += ' ';
      continue;
    }
    keyword.name += upper(c);
    keyword.display += upper(c);
  }
  if (keyword.name.empty()) source.fail(line.where, "a keyword line must name its keyword right after the '*'");
  keyword.display = "*" + keyword.display;

  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string token = without_blanks(parts[i]);
    if (token.empty()) continue;  // ",," or a trailing comma
    Parameter parameter;
    std::size_t equals = std::string::npos;
    bool quoted = false;
    for (std::size_t k = 0; k < token.size(); ++k) {
      if (token[k] == '"') quoted = !quoted;
      if (token[k] == '=' && !quoted) {
        equals = k;
        break;
      }
    }
    const std::string_view key = std::string_view(token).substr(0, equals);
    for (char c : key) parameter.key += upper(c);
    if (parameter.key.empty())
      source.fail(line.where, "parameter '" + token + "' of " + keyword.display + " has no name before '='");
    if (equals != std::string::npos) {
      parameter.has_value = true;
      parameter.value = unquote(std::string_view(token).substr(equals + 1));
    }
    // (Which of two would count is not Abaqus's to say: the first was read, silently.)
    if (keyword.has(parameter.key))
      source.fail(line.where, str("parameter ", parameter.key, " is given twice on ", keyword.display,
                                  ": give it once"));
    keyword.parameters.push_back(std::move(parameter));
  }
  return keyword;
}

bool split_fields(std::string_view text, Location where, std::vector<Field>& out) {
  const std::vector<std::string_view> parts = split_commas(text);
  for (std::string_view part : parts) out.push_back(Field{trim(part), where});
  const bool continued = parts.size() > 1 && out.back().text.empty() && trim(text).back() == ',';
  if (continued) out.pop_back();
  return continued;
}

std::string to_name(std::string_view text) {
  text = trim(text);
  std::string name = unquote(text);
  for (char& c : name) c = upper(c);
  return name;
}

std::optional<long long> parse_integer(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+') return std::nullopt;
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_real(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+' || text.size() > 64) return std::nullopt;
  // Fortran-style D exponents (1.5D3) are written by some pre-processors.
  char buffer[64];
  for (std::size_t i = 0; i < text.size(); ++i) buffer[i] = (text[i] == 'D' || text[i] == 'd') ? 'E' : text[i];
  double value = 0.0;
  const auto [end, error] = std::from_chars(buffer, buffer + text.size(), value);
  if (error != std::errc() || end != buffer + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace tremor::io::abaqus
