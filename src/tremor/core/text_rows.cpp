#include "tremor/core/text_rows.hpp"

#include <charconv>
#include <cmath>

namespace tremor {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> fields_of(std::string_view line) {
  if (line.find_first_of(",;") == std::string_view::npos) return words_of(line);
  std::vector<std::string_view> fields;
  while (true) {
    const std::size_t end = line.find_first_of(",;");
    fields.push_back(trim(line.substr(0, end)));
    if (end == std::string_view::npos) break;
    line.remove_prefix(end + 1);
  }
  return fields;
}

}  // namespace

std::string_view trim_blanks(std::string_view text) { return trim(text); }

std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> words;
  while (!(line = trim(line)).empty()) {
    std::size_t end = 0;
    while (end < line.size() && !is_space(line[end])) ++end;
    words.push_back(line.substr(0, end));
    line.remove_prefix(end);
  }
  return words;
}

std::vector<TextLine> text_lines(std::string_view text) {
  std::vector<TextLine> lines;
  long number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    lines.push_back({++number, trim(text.substr(0, end))});
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  }
  return lines;
}

bool parse_number(std::string_view text, double& out) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  const auto result = std::from_chars(text.data(), text.data() + text.size(), out);
  return result.ec == std::errc() && result.ptr == text.data() + text.size();
}

std::vector<TextRow> text_rows(std::string_view text, TextRow* header_row) {
  std::vector<TextRow> rows;
  bool first_content = true;
  for (const auto& [line_number, line] : text_lines(text)) {
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string_view> fields = fields_of(line);
    double first = 0.0;
    const bool header = first_content && (fields.empty() || !parse_number(fields[0], first));
    first_content = false;
    if (header) {
      if (header_row) *header_row = {line_number, line, std::move(fields)};
      continue;
    }
    rows.push_back({line_number, line, std::move(fields)});
  }
  return rows;
}

bool finite_number(std::string_view field, double& out) { return parse_number(field, out) && std::isfinite(out); }

}  // namespace tremor
