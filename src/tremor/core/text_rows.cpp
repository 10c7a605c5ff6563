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
  std::vector<std::string_view> fields;
  if (line.find_first_of(",;") != std::string_view::npos) {
    while (true) {
      const std::size_t end = line.find_first_of(",;");
      fields.push_back(trim(line.substr(0, end)));
      if (end == std::string_view::npos) break;
      line.remove_prefix(end + 1);
    }
    return fields;
  }
  while (!(line = trim(line)).empty()) {
    std::size_t end = 0;
    while (end < line.size() && !is_space(line[end])) ++end;
    fields.push_back(line.substr(0, end));
    line.remove_prefix(end);
  }
  return fields;
}

}  // namespace

bool parse_number(std::string_view text, double& out) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  const auto result = std::from_chars(text.data(), text.data() + text.size(), out);
  return result.ec == std::errc() && result.ptr == text.data() + text.size();
}

std::vector<TextRow> text_rows(std::string_view text, TextRow* header_row) {
  std::vector<TextRow> rows;
  long line_number = 0;
  bool first_content = true;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view raw = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++line_number;
    const std::string_view line = trim(raw);
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
