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

// Each line of `text` (split at '\n'), numbered from 1 and trimmed of blanks (' ', '\t', '\r'),
// none left out: what keyed and sectioned formats (a CMTSOLUTION, a Gmsh file) read line by line.
struct TextLine {
  long line = 0;
  std::string_view text;
};
std::vector<TextLine> text_lines(std::string_view text);
// `text` without its leading and trailing blanks.
std::string_view trim_blanks(std::string_view text);
// The blank-separated words of a line.
std::vector<std::string_view> words_of(std::string_view line);

// `field` as a number (a leading '+' allowed; inf and nan are numbers); false when it is not one.
bool parse_number(std::string_view field, double& out);
// The same, finite.
bool finite_number(std::string_view field, double& out);

}  // namespace tremor
