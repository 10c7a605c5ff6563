// Gmsh MSH 4.1 reader. The format (Gmsh manual, "MSH file format"): text section headers
// $Name ... $EndName; in binary files the data of $Entities, $PartitionedEntities, $Nodes and
// $Elements is raw: int = 4 bytes, size_t = 8 bytes (the data size in $MeshFormat), double = 8
// bytes, in the byte order of the integer 1 written after the $MeshFormat line. $PhysicalNames is
// text in both modes.
//
// Every count read from the file is checked against the bytes left before anything is reserved,
// so a damaged or hostile file costs at most memory proportional to its size.
#include "tremor/io/file.hpp"
#include "tremor/io/gmsh.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/gmsh_elements.hpp"

namespace tremor::io {
namespace {

using gmsh_detail::find_gmsh_element_type;
using gmsh_detail::GmshElementType;

constexpr std::size_t kIntBytes = 4;
constexpr std::size_t kSizeBytes = 8;
constexpr std::size_t kDoubleBytes = 8;
constexpr std::uint64_t kMaxIndex = static_cast<std::uint64_t>(std::numeric_limits<Index>::max());

struct Position {
  std::size_t offset = 0;
  long line = 1;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// A word from the file as a message shows it: printable, and short.
std::string quote(std::string_view word) {
  std::string out = "'";
  for (std::size_t i = 0; i < word.size() && i < 40; ++i) {
    const auto c = static_cast<unsigned char>(word[i]);
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  if (word.size() > 40) out += "...";
  return out + "'";
}

// The bytes of a file and a cursor in them. Text is read as white-space separated words (lines
// counted for messages); binary values are read at fixed widths in the file's byte order.
class Input {
 public:
  Input(std::string_view bytes, const std::string& name) : bytes_(bytes), name_(name) {}

  const std::string& name() const { return name_; }
  bool binary() const { return binary_; }
  void set_binary(bool little_endian) {
    binary_ = true;
    little_endian_ = little_endian;
  }
  Position here() const { return {pos_, line_}; }
  // Where the value read last starts.
  Position last() const { return last_; }
  std::size_t remaining() const { return bytes_.size() - pos_; }

  // Errors name the line in text files and the byte offset in binary ones (whose text parts are
  // located by offset too, one unit for the whole file).
  [[noreturn]] void fail_at(Position at, const std::string& message) const {
    if (binary_) throw_binary_error(name_, static_cast<long long>(at.offset), message);
    throw_input_error(name_, at.line, message);
  }
  // At the start of the value read last.
  [[noreturn]] void fail(const std::string& message) const { fail_at(last_, message); }

  // Skips white space; false at the end of the file.
  bool skip_space() {
    while (pos_ < bytes_.size() && is_space(bytes_[pos_])) {
      if (bytes_[pos_] == '\n') ++line_;
      ++pos_;
    }
    return pos_ < bytes_.size();
  }

  std::string_view word(const char* what) {
    if (!skip_space()) fail_at(here(), str("unexpected end of file; expected ", what));
    last_ = here();
    const std::size_t start = pos_;
    while (pos_ < bytes_.size() && !is_space(bytes_[pos_])) ++pos_;
    return bytes_.substr(start, pos_ - start);
  }

  // The end of a section header line. Binary data starts right after its newline and may begin
  // with bytes that look like white space, so exactly one line end is consumed.
  void end_header_line(std::string_view header) {
    while (pos_ < bytes_.size() && (bytes_[pos_] == ' ' || bytes_[pos_] == '\t' || bytes_[pos_] == '\r')) ++pos_;
    if (pos_ == bytes_.size()) fail_at(here(), str("unexpected end of file after ", header, "; expected its data"));
    if (bytes_[pos_] != '\n')
      fail_at(here(), str("expected the end of the line after ", header, ", found ", quote(bytes_.substr(pos_, 20))));
    ++pos_;
    ++line_;
  }

  // A double-quoted string on the current line (physical names).
  std::string quoted(const char* what) {
    if (!skip_space()) fail_at(here(), str("unexpected end of file; expected ", what));
    last_ = here();
    if (bytes_[pos_] != '"') fail(str("expected ", what, " in double quotes, found ", quote(rest_of_word())));
    const std::size_t start = ++pos_;
    while (pos_ < bytes_.size() && bytes_[pos_] != '"' && bytes_[pos_] != '\n') ++pos_;
    if (pos_ == bytes_.size() || bytes_[pos_] != '"') fail(str("expected the closing quote of ", what));
    return std::string(bytes_.substr(start, pos_++ - start));
  }

  // Text values, whatever the file's mode ($MeshFormat, $PhysicalNames).
  template <class T>
  T text_integer(const char* what) {
    const std::string_view w = word(what);
    T value{};
    const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), value);
    if (ec == std::errc::result_out_of_range) fail(str("expected ", what, ", found ", quote(w), " (out of range)"));
    if (ec != std::errc() || end != w.data() + w.size()) fail(str("expected ", what, " (an integer), found ", quote(w)));
    return value;
  }
  double text_double(const char* what) {
    const std::string_view w = word(what);
    double value = 0;
    const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), value);
    if (ec != std::errc() || end != w.data() + w.size()) fail(str("expected ", what, " (a number), found ", quote(w)));
    return value;
  }

  // Values typed as the format specifies them: text words or raw binary.
  int int_value(const char* what) {
    if (!binary_) return text_integer<int>(what);
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(raw(kIntBytes, what)));
  }
  std::uint64_t size_value(const char* what) {
    if (!binary_) return text_integer<std::uint64_t>(what);
    return raw(kSizeBytes, what);
  }
  double double_value(const char* what) {
    if (!binary_) return text_double(what);
    return std::bit_cast<double>(raw(kDoubleBytes, what));
  }
  double finite_value(const char* what) {
    const double value = double_value(what);
    if (!std::isfinite(value)) fail(str("expected ", what, " (a finite number), found ", value));
    return value;
  }
  // Node and element tags: size_t in the file, positive and within Label's range.
  Label tag_value(const char* what) {
    const std::uint64_t value = size_value(what);
    if (value == 0 || value > static_cast<std::uint64_t>(std::numeric_limits<Label>::max()))
      fail(str("expected ", what, " (a positive integer), found ", value));
    return static_cast<Label>(value);
  }

  // A count of items each taking at least the bytes of `ints` ints, `sizes` size_t and `doubles`
  // doubles; one larger than the rest of the file could hold is an error, not an allocation.
  std::size_t count(const char* what, std::size_t ints, std::size_t sizes, std::size_t doubles) {
    const std::uint64_t value = size_value(what);
    // A text value takes at least one character and one separator.
    const std::size_t each =
        binary_ ? ints * kIntBytes + sizes * kSizeBytes + doubles * kDoubleBytes : 2 * (ints + sizes + doubles);
    const std::uint64_t most = each == 0 ? remaining() : remaining() / each;
    if (value > most)
      fail(str("expected ", what, " that fits in the rest of the file, found ", value, " (the remaining ", remaining(),
               " bytes hold at most ", most, ")"));
    return static_cast<std::size_t>(value);
  }

  // Skips to the line starting with `end_marker` and past it; false when there is none.
  bool skip_to(std::string_view end_marker) {
    std::size_t from = pos_;
    while (true) {
      const std::size_t at = bytes_.find(end_marker, from);
      if (at == std::string_view::npos) return false;
      const std::size_t after = at + end_marker.size();
      const bool line_start = at == pos_ || bytes_[at - 1] == '\n';
      const bool word_end = after == bytes_.size() || is_space(bytes_[after]);
      if (line_start && word_end) {
        line_ += static_cast<long>(std::count(bytes_.begin() + static_cast<std::ptrdiff_t>(pos_),
                                              bytes_.begin() + static_cast<std::ptrdiff_t>(after), '\n'));
        pos_ = after;
        return true;
      }
      from = at + 1;
    }
  }

  // Raw bytes of the binary $MeshFormat integer.
  std::string_view take(std::size_t n, const char* what) {
    last_ = here();
    if (remaining() < n)
      fail(str("unexpected end of file; expected ", what, " (", n, " bytes, ", remaining(), " left)"));
    const std::string_view out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
  }

 private:
  std::uint64_t raw(std::size_t n, const char* what) {
    const std::string_view b = take(n, what);
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const auto byte = static_cast<unsigned char>(little_endian_ ? b[n - 1 - i] : b[i]);
      value = (value << 8) | byte;
    }
    return value;
  }
  std::string_view rest_of_word() const {
    std::size_t end = pos_;
    while (end < bytes_.size() && !is_space(bytes_[end])) ++end;
    return bytes_.substr(pos_, end - pos_);
  }

  std::string_view bytes_;
  std::string name_;
  std::size_t pos_ = 0;
  long line_ = 1;
  Position last_;
  bool binary_ = false;
  bool little_endian_ = true;
};

// Tag -> index, and the duplicate check, for node and element tags: a direct table when the tags
// are dense (Gmsh writes 1..n), a sorted list otherwise; either is linear in the number of tags.
class TagIndex {
 public:
  struct Repeat {
    Label tag = 0;       // 0 when all tags are distinct
    std::size_t at = 0;  // position of its second occurrence
  };
  Repeat build(const std::vector<Label>& tags) {
    dense_.clear();
    sorted_.clear();
    if (tags.empty()) return {};
    const auto [lo, hi] = std::minmax_element(tags.begin(), tags.end());
    min_ = *lo;
    const auto range = static_cast<std::uint64_t>(*hi - *lo);
    if (range <= 2 * static_cast<std::uint64_t>(tags.size()) + 1024) {
      dense_.assign(static_cast<std::size_t>(range) + 1, -1);
      for (std::size_t i = 0; i < tags.size(); ++i) {
        Index& slot = dense_[static_cast<std::size_t>(tags[i] - min_)];
        if (slot >= 0) return {tags[i], i};
        slot = static_cast<Index>(i);
      }
      return {};
    }
    sorted_.reserve(tags.size());
    for (std::size_t i = 0; i < tags.size(); ++i) sorted_.emplace_back(tags[i], static_cast<Index>(i));
    std::sort(sorted_.begin(), sorted_.end());
    for (std::size_t i = 1; i < sorted_.size(); ++i)
      if (sorted_[i].first == sorted_[i - 1].first) return {sorted_[i].first, static_cast<std::size_t>(sorted_[i].second)};
    return {};
  }

  // The index of `tag`, or -1.
  Index find(Label tag) const {
    if (!dense_.empty()) {
      if (tag < min_ || static_cast<std::uint64_t>(tag - min_) >= dense_.size()) return -1;
      return dense_[static_cast<std::size_t>(tag - min_)];
    }
    const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), std::pair<Label, Index>(tag, -1));
    return it != sorted_.end() && it->first == tag ? it->second : -1;
  }

 private:
  Label min_ = 0;
  std::vector<Index> dense_;
  std::vector<std::pair<Label, Index>> sorted_;
};

// The elements of one entity block, node tags already turned into indices into State::node_tags.
struct ElementGroup {
  int dim = 0;
  int entity = 0;
  const GmshElementType* type = nullptr;
  Position header;
  std::vector<Label> labels;
  std::vector<Index> nodes;  // Gmsh's order
};

using DimTag = std::pair<int, int>;

struct State {
  std::map<DimTag, std::string> physical_names;
  bool have_entities = false;
  std::map<DimTag, std::vector<int>> entity_physicals;
  bool have_nodes = false;
  std::vector<Label> node_tags;
  std::vector<double> coordinates;  // 3 per node
  TagIndex nodes;
  bool have_elements = false;
  std::vector<ElementGroup> groups;
  std::vector<std::string> skipped;
};

void expect_end(Input& in, std::string_view section) {
  const std::string marker = str("$End", section);
  if (!in.skip_space()) in.fail_at(in.here(), str("unexpected end of file; expected ", marker));
  const std::string_view w = in.word("a section end");
  if (w != marker) in.fail(str("expected ", marker, ", found ", quote(w)));
}

void read_mesh_format(Input& in) {
  const std::string_view version = in.word("the MSH version number");
  double value = 0;
  const auto [end, ec] = std::from_chars(version.data(), version.data() + version.size(), value);
  if (ec != std::errc() || end != version.data() + version.size())
    in.fail(str("expected the MSH version number, found ", quote(version)));
  if (value != 4.1)
    in.fail(str("this is a version ", quote(version), " MSH file; expected version 4.1 (in Gmsh, save with "
                "-format msh41 or set Mesh.MshFileVersion = 4.1)"));
  const int file_type = in.text_integer<int>("the file type (0 ASCII, 1 binary)");
  if (file_type != 0 && file_type != 1) in.fail(str("expected the file type 0 (ASCII) or 1 (binary), found ", file_type));
  const int data_size = in.text_integer<int>("the data size");
  if (data_size != 8) in.fail(str("expected the data size 8 (8-byte size_t), found ", data_size));
  if (file_type == 1) {
    in.end_header_line("the $MeshFormat line");
    const std::string_view one = in.take(kIntBytes, "the binary integer 1 that gives the byte order");
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(one[i]); };
    const bool little = byte(0) == 1 && byte(1) == 0 && byte(2) == 0 && byte(3) == 0;
    const bool big = byte(0) == 0 && byte(1) == 0 && byte(2) == 0 && byte(3) == 1;
    in.set_binary(!big);  // from here on, errors are located by byte offset
    if (!little && !big)
      in.fail(str("expected the binary integer 1 that gives the byte order, found bytes ", int(byte(0)), " ",
                  int(byte(1)), " ", int(byte(2)), " ", int(byte(3))));
  }
  expect_end(in, "MeshFormat");
}

void read_physical_names(Input& in, State& state) {
  const auto n = in.text_integer<std::uint64_t>("the number of physical names");
  // Each entry takes at least `d t ""` and a line end.
  if (n > in.remaining() / 7)
    in.fail(str("expected the number of physical names that fits in the rest of the file, found ", n));
  for (std::size_t i = 0; i < n; ++i) {
    const int dim = in.text_integer<int>("the dimension of a physical group");
    const Position at = in.last();
    if (dim < 0 || dim > 3) in.fail(str("expected the dimension of a physical group (0 to 3), found ", dim));
    const int tag = in.text_integer<int>("the tag of a physical group");
    std::string name = in.quoted("the name of a physical group");
    if (!state.physical_names.emplace(DimTag{dim, tag}, std::move(name)).second)
      in.fail_at(at, str("physical group ", tag, " of dimension ", dim, " is named twice; expected one name per group"));
  }
  expect_end(in, "PhysicalNames");
}

// $Entities, or with `partitioned` $PartitionedEntities (the entities of a partitioned mesh, which
// carry the physical tags of the elements classified on them).
void read_entities(Input& in, State& state, bool partitioned) {
  if (partitioned) {
    in.size_value("the number of partitions");
    const std::size_t ghosts = in.count("the number of ghost entities", 2, 0, 0);
    for (std::size_t i = 0; i < ghosts; ++i) {
      in.int_value("a ghost entity tag");
      in.int_value("a ghost entity partition");
    }
  }
  std::size_t counts[4];
  const char* const count_names[4] = {"the number of point entities", "the number of curve entities",
                                      "the number of surface entities", "the number of volume entities"};
  // Each entity takes at least its tag, coordinates and physical tag count.
  for (int dim = 0; dim < 4; ++dim) counts[dim] = in.count(count_names[dim], 1, 1, dim == 0 ? 3 : 6);
  for (int dim = 0; dim < 4; ++dim) {
    for (std::size_t i = 0; i < counts[dim]; ++i) {
      const int tag = in.int_value("an entity tag");
      const Position at = in.last();
      if (partitioned) {
        in.int_value("the dimension of the parent entity");
        in.int_value("the tag of the parent entity");
        const std::size_t parts = in.count("the number of partitions of an entity", 1, 0, 0);
        for (std::size_t k = 0; k < parts; ++k) in.int_value("a partition tag");
      }
      for (int k = 0; k < (dim == 0 ? 3 : 6); ++k) in.double_value("an entity coordinate");
      const std::size_t n_physicals = in.count("the number of physical tags of an entity", 1, 0, 0);
      std::vector<int> physicals(n_physicals);
      for (int& p : physicals) p = in.int_value("a physical tag");
      std::sort(physicals.begin(), physicals.end());
      physicals.erase(std::unique(physicals.begin(), physicals.end()), physicals.end());
      if (dim > 0) {
        const std::size_t bounding = in.count("the number of bounding entities", 1, 0, 0);
        for (std::size_t k = 0; k < bounding; ++k) in.int_value("a bounding entity tag");
      }
      if (!state.entity_physicals.emplace(DimTag{dim, tag}, std::move(physicals)).second)
        in.fail_at(at, str("entity ", tag, " of dimension ", dim, " is listed twice; expected distinct entity tags"));
    }
  }
  state.have_entities = true;
  expect_end(in, partitioned ? "PartitionedEntities" : "Entities");
}

void read_nodes(Input& in, State& state, Position header) {
  const std::size_t n_blocks = in.count("the number of node entity blocks", 3, 1, 0);
  const std::uint64_t total = in.size_value("the number of nodes");
  const Position total_at = in.last();
  in.size_value("the smallest node tag");
  in.size_value("the largest node tag");
  std::uint64_t sum = 0;
  for (std::size_t b = 0; b < n_blocks; ++b) {
    const int dim = in.int_value("the dimension of a node entity block");
    if (dim < 0 || dim > 3) in.fail(str("expected the dimension of a node entity block (0 to 3), found ", dim));
    in.int_value("the entity tag of a node entity block");
    const int parametric = in.int_value("the parametric flag of a node entity block");
    if (parametric != 0 && parametric != 1) in.fail(str("expected the parametric flag 0 or 1, found ", parametric));
    const int extra = parametric ? dim : 0;  // u, v, w as far as the entity's dimension goes
    const std::size_t n = in.count("the number of nodes in an entity block", 0, 1, 3 + static_cast<std::size_t>(extra));
    if (state.node_tags.size() + n > kMaxIndex)
      in.fail(str("expected at most ", kMaxIndex, " nodes in all, found more"));
    state.node_tags.reserve(state.node_tags.size() + n);
    state.coordinates.reserve(state.coordinates.size() + 3 * n);
    for (std::size_t i = 0; i < n; ++i) state.node_tags.push_back(in.tag_value("a node tag"));
    for (std::size_t i = 0; i < n; ++i) {
      state.coordinates.push_back(in.finite_value("the x coordinate of a node"));
      state.coordinates.push_back(in.finite_value("the y coordinate of a node"));
      state.coordinates.push_back(in.finite_value("the z coordinate of a node"));
      for (int k = 0; k < extra; ++k) in.double_value("a parametric coordinate of a node");
    }
    sum += n;
  }
  if (sum != total)
    in.fail_at(total_at, str("the $Nodes header announces ", total, " nodes but its blocks hold ", sum,
                             "; expected equal counts"));
  expect_end(in, "Nodes");
  if (const auto repeat = state.nodes.build(state.node_tags); repeat.tag != 0)
    in.fail_at(header, str("node tag ", repeat.tag, " is defined twice; expected distinct node tags"));
  state.have_nodes = true;
}

void read_elements(Input& in, State& state) {
  const std::size_t n_blocks = in.count("the number of element entity blocks", 3, 1, 0);
  const std::uint64_t total = in.size_value("the number of elements");
  const Position total_at = in.last();
  in.size_value("the smallest element tag");
  in.size_value("the largest element tag");
  std::uint64_t sum = 0;
  for (std::size_t b = 0; b < n_blocks; ++b) {
    ElementGroup group;
    group.dim = in.int_value("the dimension of an element entity block");
    group.header = in.last();
    if (group.dim < 0 || group.dim > 3)
      in.fail(str("expected the dimension of an element entity block (0 to 3), found ", group.dim));
    group.entity = in.int_value("the entity tag of an element entity block");
    const int code = in.int_value("an element type");
    group.type = find_gmsh_element_type(code);
    if (!group.type)
      in.fail(str("unknown element type ", code, "; expected a Gmsh element type (tremor reads ",
                  gmsh_detail::supported_gmsh_types(), ", with points and lines for physical groups)"));
    if (group.type->dim != group.dim)
      in.fail(str("element type ", code, " (", group.type->name, ") is ", group.type->dim,
                  "D but its entity block has dimension ", group.dim, "; expected equal dimensions"));
    if (state.have_entities && !state.entity_physicals.count({group.dim, group.entity}))
      in.fail_at(group.header, str("element entity block on entity ", group.entity, " of dimension ", group.dim,
                  ", which $Entities does not list; expected a listed entity"));
    const auto per = static_cast<std::size_t>(group.type->n_nodes);
    const std::size_t n = in.count("the number of elements in an entity block", 0, 1 + per, 0);
    if (sum + n > kMaxIndex) in.fail(str("expected at most ", kMaxIndex, " elements in all, found more"));
    group.labels.reserve(n);
    group.nodes.reserve(n * per);
    for (std::size_t e = 0; e < n; ++e) {
      const Label label = in.tag_value("an element tag");
      group.labels.push_back(label);
      for (std::size_t k = 0; k < per; ++k) {
        const Label tag = in.tag_value("a node tag of an element");
        const Index index = state.nodes.find(tag);
        if (index < 0)
          in.fail(str("element ", label, " refers to node ", tag, ", which $Nodes ",
                      state.have_nodes ? "does not define" : "has not defined (it must come before $Elements)",
                      "; expected a defined node tag"));
        group.nodes.push_back(index);
      }
    }
    sum += n;
    state.groups.push_back(std::move(group));
  }
  if (sum != total)
    in.fail_at(total_at, str("the $Elements header announces ", total, " elements but its blocks hold ", sum,
                           "; expected equal counts"));
  expect_end(in, "Elements");
  std::vector<Label> labels;
  labels.reserve(static_cast<std::size_t>(sum));
  for (const auto& group : state.groups) labels.insert(labels.end(), group.labels.begin(), group.labels.end());
  TagIndex check;
  if (const auto repeat = check.build(labels); repeat.tag != 0) {
    // Located at the block of the second use.
    std::size_t group = 0;
    for (std::size_t first = 0; first + state.groups[group].labels.size() <= repeat.at; ++group)
      first += state.groups[group].labels.size();
    in.fail_at(state.groups[group].header,
               str("element tag ", repeat.tag, " is used twice; expected distinct element tags"));
  }
  state.have_elements = true;
}

// Sections of the format that carry nothing a tremor mesh holds.
bool ignored_quietly(std::string_view section) {
  return section == "NodeData" || section == "ElementData" || section == "ElementNodeData" ||
         section == "InterpolationScheme" || section == "GhostElements" || section == "Parametrizations" ||
         section == "Comments";
}

// Set names of the groups: the $PhysicalNames name, else physical<tag>, qualified by dimension
// when unnamed groups of different dimensions share the tag.
std::map<DimTag, std::string> group_names(const State& state, const std::map<DimTag, std::vector<Index>>& groups) {
  const auto name_of = [&](DimTag key) {
    const auto named = state.physical_names.find(key);
    return named == state.physical_names.end() ? std::string() : named->second;
  };
  std::map<int, int> unnamed_dims;  // tag -> number of unnamed groups with it
  for (const auto& [key, members] : groups)
    if (name_of(key).empty()) ++unnamed_dims[key.second];
  std::map<DimTag, std::string> names;
  for (const auto& [key, members] : groups) {
    std::string name = name_of(key);
    if (name.empty())
      name = unnamed_dims[key.second] > 1 ? str("physical", key.second, "_dim", key.first) : str("physical", key.second);
    names.emplace(key, std::move(name));
  }
  return names;
}

// What the file is read as: the mesh of a solid (read_gmsh) or a boundary surface in 3D
// (read_gmsh_surface).
enum class Target { Solid, Surface };

// A surface mesh holds triangles and quadrilaterals (3, 4; 6, 8 or 9 nodes) and nothing of higher dimension; the
// first block that breaks this is an error naming its first element.
void check_surface_groups(Input& in, const State& state) {
  bool any = false;
  for (const ElementGroup& group : state.groups) {
    if (group.labels.empty()) continue;
    const GmshElementType& type = *group.type;
    if (group.dim == 3)
      in.fail_at(group.header, str("element ", group.labels.front(), " (", type.name, ", Gmsh type ", type.code,
                                   ") is a volume element; a boundary-element mesh holds surface elements only (save "
                                   "only the boundary surfaces: in Gmsh, put them in a physical group and no volume "
                                   "in any)"));
    if (group.dim != 2) continue;
    if (type.code != 2 && type.code != 3 && type.code != 9 && type.code != 16 && type.code != 10)
      in.fail_at(group.header, str("element ", group.labels.front(), " (", type.name, ", Gmsh type ", type.code,
                                   ") is not a triangle or quadrilateral of the first or second order; the "
                                   "boundary-element reader reads triangles (Gmsh types 2 and 9) and quadrilaterals "
                                   "(types 3, 16 and 10) (in Gmsh, mesh with Mesh.ElementOrder = 1 or 2)"));
    any = true;
  }
  if (!any)
    in.fail_at(in.here(), "the file holds no surface elements; expected triangles or quadrilaterals (with "
                          "physical groups defined, Gmsh saves only the elements in them)");
}

// The mesh's dimension: the highest of its elements', which must be 2 or 3.
int mesh_dimension(const Input& in, const State& state, Position end) {
  int dim = -1;
  for (const auto& group : state.groups)
    if (!group.labels.empty()) dim = std::max(dim, group.dim);
  if (dim < 2)
    in.fail_at(end, "the file holds no 2D or 3D elements; expected a surface or volume mesh (with physical groups "
                    "defined, Gmsh saves only the elements in them)");
  return dim;
}

// The mesh of the elements of one dimension being built from what the file gave, with the sets of
// its physical groups.
struct MeshBuilder {
  // Where a group's elements went: their block and the index of the first in it.
  struct Placement {
    int block = -1;
    Index first = 0;
  };

  const Input& in;
  const State& state;
  int dim;
  Mesh mesh{3};
  std::vector<Index> renumber;         // per file node: its mesh index, -1 when dropped
  std::vector<Placement> placement;    // per group
  std::map<DimTag, std::vector<Index>> group_nodes, group_elements;  // per physical group
  std::map<DimTag, std::string> names;                                // per physical group: its sets' name

  MeshBuilder(const Input& in_, const State& state_, int dim_) : in(in_), state(state_), dim(dim_) {}

  // Nodes that no element of the mesh uses are dropped: they would carry no mass or stiffness.
  void add_nodes() {
    renumber.assign(state.node_tags.size(), -1);
    for (const auto& group : state.groups)
      if (group.dim == dim)
        for (Index node : group.nodes) renumber[static_cast<std::size_t>(node)] = 0;
    for (std::size_t i = 0; i < renumber.size(); ++i) {
      if (renumber[i] < 0) continue;
      renumber[i] = mesh.add_node(state.node_tags[i], std::span<const double>(state.coordinates.data() + 3 * i, 3));
    }
  }

  // Elements of the mesh's dimension into tremor blocks, in file order within each block.
  void add_elements() {
    placement.assign(state.groups.size(), Placement{});
    for (std::size_t g = 0; g < state.groups.size(); ++g) {
      const ElementGroup& group = state.groups[g];
      if (group.dim != dim) continue;
      const GmshElementType& type = *group.type;
      if (!type.supported)
        in.fail_at(group.header, str("element type ", type.code, " (", type.name, ") is not supported; expected one of ",
                                     gmsh_detail::supported_gmsh_types()));
      ElementBlock& block = mesh.block_for(type.type, type.order);
      placement[g] = {static_cast<int>(&block - mesh.blocks.data()), block.n_elements()};
      const std::span<const int> order = gmsh_detail::gmsh_to_tremor_order(type.code);
      const auto per = static_cast<std::size_t>(type.n_nodes);
      block.labels.insert(block.labels.end(), group.labels.begin(), group.labels.end());
      block.connectivity.reserve(block.connectivity.size() + group.nodes.size());
      for (std::size_t e = 0; e < group.labels.size(); ++e)
        for (int from : order)
          block.connectivity.push_back(renumber[static_cast<std::size_t>(group.nodes[e * per + static_cast<std::size_t>(from)])]);
    }
  }

  // The physical groups a group's entity belongs to; null when none.
  const std::vector<int>* physicals_of(const ElementGroup& group) const {
    const auto physicals = state.entity_physicals.find({group.dim, group.entity});
    if (physicals == state.entity_physicals.end() || physicals->second.empty()) return nullptr;
    return &physicals->second;
  }

  // Physical groups: named or not, every group the file mentions gets its members, nodes and (of
  // the mesh's dimension) elements, and the name of its sets.
  void collect_groups() {
    std::vector<Index> block_offset(mesh.blocks.size(), 0);
    for (std::size_t b = 1; b < mesh.blocks.size(); ++b)
      block_offset[b] = block_offset[b - 1] + mesh.blocks[b - 1].n_elements();
    for (const auto& [key, name] : state.physical_names) group_nodes[key];
    for (const auto& [entity, physicals] : state.entity_physicals)
      for (int tag : physicals) group_nodes[{entity.first, tag}];
    // The distinct mesh nodes of each element block, found by stamping (sets are sorted once at the end).
    std::vector<std::size_t> stamp(static_cast<std::size_t>(mesh.n_nodes()), state.groups.size());
    std::vector<Index> block_nodes;
    for (std::size_t g = 0; g < state.groups.size(); ++g) {
      const ElementGroup& group = state.groups[g];
      const std::vector<int>* physicals = physicals_of(group);
      if (!physicals) continue;
      block_nodes.clear();
      for (Index node : group.nodes) {
        const Index kept = renumber[static_cast<std::size_t>(node)];
        if (kept < 0 || stamp[static_cast<std::size_t>(kept)] == g) continue;
        stamp[static_cast<std::size_t>(kept)] = g;
        block_nodes.push_back(kept);
      }
      for (int tag : *physicals) {
        std::vector<Index>& nodes = group_nodes[{group.dim, tag}];
        nodes.insert(nodes.end(), block_nodes.begin(), block_nodes.end());
        if (group.dim != dim) continue;
        std::vector<Index>& elements = group_elements[{group.dim, tag}];
        const Index first = block_offset[static_cast<std::size_t>(placement[g].block)] + placement[g].first;
        for (Index e = 0; e < static_cast<Index>(group.labels.size()); ++e) elements.push_back(first + e);
      }
    }
    names = group_names(state, group_nodes);
  }

  // The groups' node and element sets; whether any element set has members.
  bool add_group_sets() {
    bool grouped = false;
    for (const auto& [key, nodes] : group_nodes) {
      // Groups sharing a name (same name in two dimensions) share the set: the union of their members.
      const std::string& name = names.at(key);
      std::vector<Index>& node_set = mesh.node_sets[name];
      node_set.insert(node_set.end(), nodes.begin(), nodes.end());
      if (key.first != dim) continue;
      std::vector<Index>& element_set = mesh.element_sets[name];
      const auto elements = group_elements.find(key);
      if (elements != group_elements.end()) {
        element_set.insert(element_set.end(), elements->second.begin(), elements->second.end());
        grouped = grouped || !elements->second.empty();
      }
    }
    return grouped;
  }

  // Groups of dimension dim - 1 are surfaces too: each of their elements must be a face of a
  // mesh element, matched by its corner nodes (Gmsh lists an element's vertices first).
  void add_face_sets() {
    std::optional<FaceIndex> face_index;
    for (const ElementGroup& group : state.groups) {
      if (group.dim != dim - 1) continue;
      const std::vector<int>* physicals = physicals_of(group);
      if (!physicals) continue;
      if (!face_index) {
        // Index only the faces whose corners are nodes of such groups.
        const std::vector<bool> on_groups = nodes_of_dimension(dim - 1);
        face_index.emplace(mesh, &on_groups);
      }
      const std::vector<Face> faces = faces_of(group, *physicals, *face_index);
      for (int tag : *physicals) {
        std::vector<Face>& surface = mesh.face_sets[names.at({group.dim, tag})];
        surface.insert(surface.end(), faces.begin(), faces.end());
      }
    }
  }

  // Per mesh node: whether an element of a group of dimension `of_dim` uses it.
  std::vector<bool> nodes_of_dimension(int of_dim) const {
    std::vector<bool> on_groups(static_cast<std::size_t>(mesh.n_nodes()), false);
    for (const ElementGroup& other : state.groups)
      if (other.dim == of_dim)
        for (Index node : other.nodes) {
          const Index kept = renumber[static_cast<std::size_t>(node)];
          if (kept >= 0) on_groups[static_cast<std::size_t>(kept)] = true;
        }
    return on_groups;
  }

  // The mesh face each element of `group` (of dimension dim - 1) lies on.
  std::vector<Face> faces_of(const ElementGroup& group, const std::vector<int>& physicals,
                             const FaceIndex& face_index) const {
    const std::string_view type_name = group.type->name;
    const int n_corners = group.dim == 1 ? 2 : type_name.find("triangle") != std::string_view::npos ? 3 : 4;
    const auto per = static_cast<std::size_t>(group.type->n_nodes);
    std::vector<Face> faces;
    for (std::size_t e = 0; e < group.labels.size(); ++e) {
      Index corners[4];
      bool kept = true;
      for (int k = 0; k < n_corners; ++k) {
        corners[k] = renumber[static_cast<std::size_t>(group.nodes[e * per + static_cast<std::size_t>(k)])];
        kept = kept && corners[k] >= 0;
      }
      const std::vector<Face> found =
          kept ? face_index.find({corners, static_cast<std::size_t>(n_corners)}) : std::vector<Face>{};
      if (found.empty())
        in.fail_at(group.header, str("element ", group.labels[e], " (", type_name, ") of physical group '",
                                     names.at({group.dim, physicals.front()}), "' is not a face of any ", dim,
                                     "D element; expected the ", dim - 1, "D elements of a physical group to "
                                     "lie on faces of the mesh"));
      // On an interior face, the face of the first element sharing it (its outward normal).
      faces.push_back(found.front());
    }
    return faces;
  }

  // The sets sorted and without repeats; without any group of elements, one set "all" of every element.
  void finish_sets(bool grouped) {
    for (auto& [name, members] : mesh.node_sets) normalise_set(members);
    for (auto& [name, members] : mesh.element_sets) normalise_set(members);
    for (auto& [name, members] : mesh.face_sets) normalise_faces(members);
    if (!grouped) {
      std::vector<Index>& all = mesh.element_sets["all"];
      all.resize(static_cast<std::size_t>(mesh.n_elements()));
      for (std::size_t e = 0; e < all.size(); ++e) all[e] = static_cast<Index>(e);
    }
  }
};

Mesh build_mesh(Input& in, State& state, Target target) {
  const Position end = in.here();
  if (!state.have_nodes) in.fail_at(end, "reached the end of the file without a $Nodes section; expected one");
  if (!state.have_elements) in.fail_at(end, "reached the end of the file without an $Elements section; expected one");
  const bool surface_mesh = target == Target::Surface;
  if (surface_mesh) check_surface_groups(in, state);
  MeshBuilder build(in, state, mesh_dimension(in, state, end));
  build.add_nodes();
  build.add_elements();
  build.collect_groups();
  const bool grouped = build.add_group_sets();
  // A surface mesh has no use for edge sets: its lines give node sets only.
  if (!surface_mesh) build.add_face_sets();
  build.finish_sets(grouped);
  Mesh mesh = std::move(build.mesh);
  if (surface_mesh) {
    mesh.validate_surface(in.name());
    return mesh;
  }
  if (build.dim == 2) mesh.reduce_to_2d(in.name());
  mesh.validate(in.name());
  return mesh;
}

Mesh read_buffer(std::string_view bytes, const std::string& name, Target target) {
  Input in(bytes, name);
  if (!in.skip_space()) in.fail_at(in.here(), "the file is empty; expected a Gmsh mesh starting with $MeshFormat");
  const std::string_view first = in.word("$MeshFormat");
  if (first != "$MeshFormat")
    in.fail(str("expected $MeshFormat at the start of a Gmsh MSH file, found ", quote(first)));
  in.end_header_line("$MeshFormat");
  read_mesh_format(in);

  State state;
  while (in.skip_space()) {
    const std::string_view header = in.word("a section header");
    const Position at = in.last();
    if (header.size() < 2 || header[0] != '$')
      in.fail(str("expected a section header such as $Nodes, found ", quote(header)));
    const std::string_view section = header.substr(1);
    if (section.substr(0, 3) == "End") in.fail(str("found ", quote(header), " without its section; expected a section header"));
    in.end_header_line(header);
    if (section == "MeshFormat") {
      in.fail(str("found a second $MeshFormat section; expected one at the start of the file"));
    } else if (section == "PhysicalNames") {
      read_physical_names(in, state);
    } else if (section == "Entities") {
      read_entities(in, state, false);
    } else if (section == "PartitionedEntities") {
      read_entities(in, state, true);
    } else if (section == "Nodes" || section == "Elements") {
      // Gmsh writes one of each; a second would need the node index rebuilt and rechecked.
      bool& seen = section == "Nodes" ? state.have_nodes : state.have_elements;
      if (seen) in.fail(str("found a second ", header, " section; expected one"));
      if (section == "Nodes")
        read_nodes(in, state, at);
      else
        read_elements(in, state);
    } else {
      if (!in.skip_to(str("$End", section)))
        in.fail_at(at, str("section ", quote(header), " never ends; expected $End", section));
      if (!ignored_quietly(section)) state.skipped.push_back(std::string(header));
    }
  }
  if (!state.skipped.empty()) {
    std::string list;
    for (std::size_t i = 0; i < state.skipped.size() && i < 10; ++i) list += (i ? ", " : "") + state.skipped[i];
    if (state.skipped.size() > 10) list += str(" and ", state.skipped.size() - 10, " more");
    log::warn(str(name, ": skipped sections tremor does not read: ", list));
  }
  return build_mesh(in, state, target);
}

}  // namespace

Mesh read_gmsh_buffer(std::string_view bytes, const std::string& name) {
  return read_buffer(bytes, name, Target::Solid);
}

Mesh read_gmsh(const std::string& path) {
  return read_gmsh_buffer(read_file(path, "Gmsh mesh file"), path);
}

Mesh read_gmsh_surface_buffer(std::string_view bytes, const std::string& name) {
  return read_buffer(bytes, name, Target::Surface);
}

Mesh read_gmsh_surface(const std::string& path) {
  return read_gmsh_surface_buffer(read_file(path, "Gmsh mesh file"), path);
}

}  // namespace tremor::io
