#pragma once
// Private to the Abaqus reader: the one table of the keywords it knows. Each keyword is read into
// the model by one function of the reader, ignored (listed in the one warning at the end), or
// refused (an error: ignoring it would leave another mesh than the file describes). The reader
// dispatches through the table; docs/readers.md lists the same keywords, which a unit test
// (AbaqusKeywords.*) checks. A keyword outside the table is ignored and listed in the warning.
#include <cstdint>
#include <span>
#include <string_view>

namespace tremor::io::abaqus {

class Reader;
struct KeywordLine;

enum class Use : std::uint8_t {
  Read,     // into the model, by `read`
  Ignored,  // by `read`, which lists it in the warning and skips its data
  Refused,  // an error: the keyword as the file writes it, then `why`
};

// Where a keyword may stand: anywhere, only in the model data (before *STEP) or only in the history
// data (between *STEP and *END STEP). Elsewhere it is an error.
enum class Place : std::uint8_t { Anywhere, Model, Step };

struct Keyword {
  std::string_view name;     // as parse_keyword spells it: upper case, no blanks ("SOLIDSECTION")
  std::string_view display;  // as docs/readers.md writes it ("*SOLID SECTION")
  Use use;
  Place place = Place::Anywhere;
  // An option of the *MATERIAL before it (*ELASTIC, *DENSITY, *DAMPING); any other keyword read
  // ends the material's options.
  bool material_option = false;
  // Refused: the rest of the message after the keyword; Ignored, or read elsewhere: why.
  std::string_view why = {};
  // The reader's function for the keyword line and its data; null for a refused keyword and for
  // *INCLUDE, which the line source follows where it stands (abaqus_lexer.hpp).
  void (Reader::*read)(const KeywordLine&) = nullptr;
};

// Every keyword of the table, in the order of docs/readers.md.
std::span<const Keyword> keywords();
// The entry of a keyword by its name as parse_keyword spells it, or null.
const Keyword* find_keyword(std::string_view name);

}  // namespace tremor::io::abaqus
