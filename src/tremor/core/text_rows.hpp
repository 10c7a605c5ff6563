#pragma once
// Small text tables (a signal's time,value lines, a depth map's grid): the content lines of a CSV
// with commas or semicolons, or of whitespace-separated numbers.
#include <string_view>
#include <vector>

namespace tremor {

struct TextRow {
  long line = 0;  // 1-based
  std::string_view text;  // trimmed
  std::vector<std::string_view> fields;  // each trimmed
};

// The rows of `text`: blank lines and lines starting with '#' left out, and a first such line
// whose first field is not a number left out as a header (into `header` where given; its line
// stays 0 without one). Fields are separated by commas or semicolons where a line has any, else
// by whitespace.
std::vector<TextRow> text_rows(std::string_view text, TextRow* header = nullptr);

// `field` as a number (a leading '+' allowed; inf and nan are numbers); false when it is not one.
bool parse_number(std::string_view field, double& out);
// The same, finite.
bool finite_number(std::string_view field, double& out);

}  // namespace tremor
