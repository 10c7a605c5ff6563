#pragma once
// Private to the Abaqus reader: the line syntax of .inp files. Comment lines (** in columns 1-2)
// and blank lines are skipped; keyword lines start with one *, their blanks are insignificant and
// a trailing comma continues them on the next line; *INCLUDE, INPUT=file is followed here, so the
// reader sees one stream of lines, each knowing the file and line it came from.
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tremor::io::abaqus {

// A file (index into LineSource's names) and a 1-based line number.
struct Location {
  int file = 0;
  long line = 0;
};

struct Parameter {
  std::string key;    // upper case, blanks removed: "TIMEINTERVAL"
  std::string value;  // blanks outside quotes removed, quotes stripped, case kept (file names)
  bool has_value = false;
};

struct KeywordLine {
  std::string name;     // upper case, blanks removed: "SOLIDSECTION"
  std::string display;  // for messages: "*SOLID SECTION"
  std::vector<Parameter> parameters;
  Location where;

  const Parameter* find(std::string_view key) const;
  bool has(std::string_view key) const { return find(key) != nullptr; }
};

struct Line {
  bool keyword = false;
  std::string_view text;  // without the line break; stays valid while the LineSource lives
  Location where;
};

// One data field, blanks around it removed.
struct Field {
  std::string_view text;
  Location where;
};

class LineSource {
 public:
  // `text` must outlive the source. `base_dir` resolves *INCLUDE in the root text; empty disables
  // *INCLUDE (reading from memory). `identity` is the root's path for include-cycle detection
  // (empty when it has none).
  LineSource(std::string_view text, std::string name, std::string base_dir, std::string identity);

  // The next keyword or data line, or nothing at the end of the input.
  std::optional<Line> next();
  // The line next() would return, without consuming it.
  const Line* peek();
  bool data_follows() {
    const Line* line = peek();
    return line != nullptr && !line->keyword;
  }

  const std::string& file_name(int file) const { return files_[static_cast<std::size_t>(file)].name; }
  std::string where(Location loc) const;
  [[noreturn]] void fail(Location loc, const std::string& message) const;

 private:
  struct File {
    std::string name;      // as shown in messages
    std::string dir;       // directory that resolves its *INCLUDEs ("" : none allowed)
    std::string identity;  // canonical path, "" for text in memory
    std::string storage;   // the text of an included file
    std::string_view text;
    std::size_t pos = 0;
    long line = 0;
    bool includes_allowed = true;
  };

  std::optional<Line> read_line();
  bool physical_line(File& file, std::string_view& text);
  void include(const KeywordLine& keyword);

  std::deque<File> files_;          // every file opened, kept so that line views stay valid
  std::vector<int> open_;           // the include stack: indices into files_
  std::deque<std::string> joined_;  // keyword lines joined from continuation lines
  std::optional<Line> lookahead_;
};

// Keyword line text (starting with '*') to name and parameters; throws via `source` on bad syntax.
KeywordLine parse_keyword(const LineSource& source, const Line& line);

// Splits a data line at commas outside double quotes, trimming blanks. Returns true when the line
// ends in a comma (the empty field after it is not added).
bool split_fields(std::string_view text, Location where, std::vector<Field>& out);

// Upper case ASCII; double quotes around the whole text removed (quoted names keep their blanks).
std::string to_name(std::string_view text);

// Numbers as Abaqus writes them: integers, and reals with an E or D exponent. The whole text must
// be the number; non-finite values are rejected.
std::optional<long long> parse_integer(std::string_view text);
std::optional<double> parse_real(std::string_view text);

}  // namespace tremor::io::abaqus
