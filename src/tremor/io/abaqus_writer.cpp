#include "tremor/io/abaqus_writer.hpp"

#include <charconv>
#include <cmath>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/io/file.hpp"

namespace tremor::io {
namespace {

// Abaqus data lines hold at most 16 entries; the reader continues a full line of an element's
// nodes on the next (abaqus_mesh.cpp, max_entries_per_line).
constexpr std::size_t entries_per_line = 16;
// Abaqus and CalculiX names have at most 80 characters.
constexpr std::size_t max_name_length = 80;

// The Abaqus type that the reader maps back to `type` (abaqus_mesh.cpp, element_kinds); empty for the
// GLL types. The node orders agree, so connectivity is written as it is.
std::string_view abaqus_type(ElementType type) {
  switch (type) {
    case ElementType::Tri3: return "CPE3";
    case ElementType::Tri6: return "CPE6";
    case ElementType::Quad4: return "CPE4";
    case ElementType::Quad8: return "CPE8";
    case ElementType::Tet4: return "C3D4";
    case ElementType::Tet10: return "C3D10";
    case ElementType::Hex8: return "C3D8";
    case ElementType::Hex20: return "C3D20";
    case ElementType::QuadGLL:
    case ElementType::HexGLL: break;
  }
  return {};
}

// A name for a message: control characters escaped and long names cut, so a name holding a line
// break or a megabyte of text keeps the message on one readable line.
std::string shown(std::string_view name) {
  constexpr std::size_t limit = 60;
  std::string text;
  for (std::size_t i = 0; i < name.size() && i < limit; ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c == '\n')
      text += "\\n";
    else if (c == '\r')
      text += "\\r";
    else if (c == '\t')
      text += "\\t";
    else if (c < 0x20 || c == 0x7f)
      text += str("\\x", "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15]);
    else
      text += name[i];
  }
  if (name.size() > limit) text += "...";
  return text;
}

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Refuses a set name that Abaqus would not take unquoted or that the reader would not give back as
// it is (it splits keyword lines at commas and drops their blanks). A name with lower case is
// added to `folded` as "<kind> '<name>' as '<NAME>'": the reader upper-cases names, as Abaqus
// compares them without case.
void check_name(std::string_view source, const char* kind, const std::string& name, std::vector<std::string>& folded) {
  bool plain = !name.empty() && name.size() <= max_name_length && (is_upper(name[0]) || is_lower(name[0]));
  bool lower = false;
  for (char c : name) {
    lower = lower || is_lower(c);
    plain = plain && (is_upper(c) || is_lower(c) || is_digit(c) || c == '_' || c == '-');
  }
  TREMOR_CHECK(plain, source, ": ", kind, " '", shown(name), "' cannot be written as an Abaqus name, which begins with a ",
               "letter, holds only letters, digits, '_' and '-', and has at most ", max_name_length,
               " characters: rename it");
  if (lower) {
    std::string upper = name;
    for (char& c : upper)
      if (is_lower(c)) c = static_cast<char>(c - 'a' + 'A');
    folded.push_back(str(kind, " '", name, "' as '", upper, "'"));
  }
}

class Text {
 public:
  void put(std::string_view text) { out_ += text; }
  void put(Label value) {
    char buffer[24];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    out_.append(buffer, end);
  }
  // The shortest text that reads back to the same double (std::to_chars without a precision).
  void put(double value) {
    char buffer[32];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    out_.append(buffer, end);
  }
  void line() { out_ += '\n'; }

  // Labels of a set, at most entries_per_line a line, each line a whole record.
  void labels(const std::vector<Label>& labels) {
    for (std::size_t k = 0; k < labels.size(); ++k) {
      if (k % entries_per_line != 0) put(", ");
      put(labels[k]);
      if (k % entries_per_line == entries_per_line - 1 || k + 1 == labels.size()) line();
    }
  }

  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

void check_labels(const Mesh& mesh, std::string_view source) {
  std::unordered_map<Label, Index> nodes;
  nodes.reserve(static_cast<std::size_t>(mesh.n_nodes()));
  for (Index i = 0; i < mesh.n_nodes(); ++i) {
    const Label label = mesh.node_labels[static_cast<std::size_t>(i)];
    TREMOR_CHECK(label > 0, source, ": node ", i, " (counting from 0) has label ", label,
                 "; Abaqus labels are positive integers");
    const auto [it, added] = nodes.try_emplace(label, i);
    TREMOR_CHECK(added, source, ": node label ", label, " is given twice (nodes ", it->second, " and ", i,
                 ", counting from 0); Abaqus labels name one node each");
    for (const double x : mesh.node(i))
      TREMOR_CHECK(std::isfinite(x), source, ": node ", label, " has the coordinate ", x,
                   ", which an Abaqus input cannot hold");
  }
  std::unordered_map<Label, ElementRef> elements;
  elements.reserve(static_cast<std::size_t>(mesh.n_elements()));
  for (int b = 0; b < mesh.n_blocks(); ++b) {
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(b)];
    for (Index e = 0; e < block.n_elements(); ++e) {
      const Label label = block.labels[static_cast<std::size_t>(e)];
      TREMOR_CHECK(label > 0, source, ": block ", b, ": element ", e, " (counting from 0) has label ", label,
                   "; Abaqus labels are positive integers");
      const auto [it, added] = elements.try_emplace(label, ElementRef{b, e});
      TREMOR_CHECK(added, source, ": element label ", label, " is given twice (block ", it->second.block, " element ",
                   it->second.element, " and block ", b, " element ", e,
                   ", counting from 0); Abaqus labels name one element each");
    }
  }
}

void check_blocks(const Mesh& mesh, std::string_view source) {
  TREMOR_CHECK(mesh.dim() == 3 || !mesh.blocks.empty(), source,
               ": a 2D mesh without element blocks would read back as 3D (the reader takes the dimension from the "
               "element types)");
  for (int b = 0; b < mesh.n_blocks(); ++b) {
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(b)];
    if (is_gll(block.type)) {
      const bool hex = block.type == ElementType::HexGLL;
      const char* tensor = block.order != 2 ? "" : hex ? " (hex27)" : " (quad9)";
      throw Error(str(source, ": block ", b, ": GLL ", hex ? "hexahedra" : "quadrilaterals", " of order ", block.order,
                      tensor, " have no Abaqus element type: write the mesh before raising its order (`order = ",
                      block.order, "` in the model file raises it on reading)"));
    }
    TREMOR_CHECK(block.order == 1, source, ": block ", b, ": ", element_name(block.type), " elements with order ",
                 block.order, " (an order belongs to GLL elements; the reader gives 1)");
    for (int c = 0; c < b; ++c)
      TREMOR_CHECK(mesh.blocks[static_cast<std::size_t>(c)].type != block.type, source, ": blocks ", c, " and ", b,
                   " both hold ", element_name(block.type),
                   " elements, which the reader would gather in one block: merge them before writing");
  }
}

void check_sets(const Mesh& mesh, std::string_view source) {
  std::vector<std::string> folded;
  for (const auto& [name, members] : mesh.node_sets) check_name(source, "node set", name, folded);
  for (const auto& [name, members] : mesh.element_sets) check_name(source, "element set", name, folded);
  for (const auto& [name, faces] : mesh.face_sets) {
    check_name(source, "surface", name, folded);
    TREMOR_CHECK(!faces.empty(), source, ": surface '", name,
                 "' is empty; an Abaqus *SURFACE needs at least one face");
  }
  if (folded.empty()) return;
  // All of them in one message: a generated mesh has a dozen (xmin, ..., all).
  constexpr std::size_t listed = 6;
  std::string list;
  for (std::size_t k = 0; k < folded.size() && k < listed; ++k) list += (k == 0 ? "" : ", ") + folded[k];
  if (folded.size() > listed) list += str(" and ", folded.size() - listed, " more");
  throw Error(str(source, ": set names with lower case would read back upper-cased (Abaqus compares names without "
                          "case and tremor's reader stores them in upper case): ",
                  list, "; rename ", folded.size() == 1 ? "it" : "them", " in upper case"));
}

std::string compose(const Mesh& mesh, std::string_view source) {
  mesh.validate(source);
  check_blocks(mesh, source);
  check_labels(mesh, source);
  check_sets(mesh, source);

  std::vector<Label> element_labels;  // by global element index
  element_labels.reserve(static_cast<std::size_t>(mesh.n_elements()));
  for (const ElementBlock& block : mesh.blocks)
    element_labels.insert(element_labels.end(), block.labels.begin(), block.labels.end());

  Text text;
  text.put(str("** Abaqus/CalculiX input written by tremor: a ", mesh.dim(), "D mesh of ", mesh.n_nodes(),
               " nodes and ", mesh.n_elements(), " elements in ", mesh.n_blocks(),
               mesh.n_blocks() == 1 ? " block" : " blocks", ", with its sets and surfaces\n"));
  if (mesh.dim() == 2) text.put("** 2D elements as plane strain types; the mesh lies in z = 0\n");

  if (mesh.n_nodes() > 0) {
    text.put("*NODE\n");
    for (Index i = 0; i < mesh.n_nodes(); ++i) {
      text.put(mesh.node_labels[static_cast<std::size_t>(i)]);
      for (const double x : mesh.node(i)) {
        text.put(", ");
        text.put(x);
      }
      text.line();
    }
  }

  for (const ElementBlock& block : mesh.blocks) {
    text.put("*ELEMENT, TYPE=");
    text.put(abaqus_type(block.type));
    text.line();
    for (Index e = 0; e < block.n_elements(); ++e) {
      // The label and the nodes, 16 entries a line; a full line ends in a comma and continues.
      text.put(block.labels[static_cast<std::size_t>(e)]);
      std::size_t on_line = 1;
      for (const Index node : block.nodes(e)) {
        if (on_line == entries_per_line) {
          text.put(",\n");
          on_line = 0;
        } else {
          text.put(", ");
        }
        text.put(mesh.node_labels[static_cast<std::size_t>(node)]);
        ++on_line;
      }
      text.line();
    }
  }

  std::vector<Label> labels;
  for (const auto& [name, members] : mesh.node_sets) {
    text.put("*NSET, NSET=");
    text.put(name);
    text.line();
    labels.clear();
    for (const Index i : members) labels.push_back(mesh.node_labels[static_cast<std::size_t>(i)]);
    text.labels(labels);
  }
  for (const auto& [name, members] : mesh.element_sets) {
    text.put("*ELSET, ELSET=");
    text.put(name);
    text.line();
    labels.clear();
    for (const Index e : members) labels.push_back(element_labels[static_cast<std::size_t>(e)]);
    text.labels(labels);
  }
  for (const auto& [name, faces] : mesh.face_sets) {
    text.put("*SURFACE, TYPE=ELEMENT, NAME=");
    text.put(name);
    text.line();
    for (const Face& face : faces) {
      text.put(element_labels[static_cast<std::size_t>(face.element)]);
      text.put(", S");
      text.put(Label{face.face + 1});
      text.line();
    }
  }
  return text.take();
}

}  // namespace

void write_abaqus_mesh(const Mesh& mesh, const std::string& path) {
  write_file_atomically(path, compose(mesh, path), "Abaqus mesh");
}

std::string abaqus_mesh_text(const Mesh& mesh) { return compose(mesh, "Abaqus mesh"); }

}  // namespace tremor::io
