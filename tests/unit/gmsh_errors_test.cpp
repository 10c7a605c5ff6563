// The Gmsh reader on small meshes written here, valid and broken: each broken input must give a
// tremor::Error naming the file, the line (ASCII) or byte offset (binary) and what was expected.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/gmsh.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// Two triangles on the unit square, no entities (so no physical groups). Line numbers matter to
// the tests below: $Nodes is line 4, the node block header line 6, the coordinates lines 11-14,
// the element block header line 18, the elements lines 19-20.
const std::string kSquare =
    "$MeshFormat\n"    // 1
    "4.1 0 8\n"        // 2
    "$EndMeshFormat\n" // 3
    "$Nodes\n"         // 4
    "1 4 1 4\n"        // 5
    "2 1 0 4\n"        // 6
    "1\n2\n3\n4\n"     // 7-10
    "0 0 0\n"          // 11
    "1 0 0\n"          // 12
    "1 1 0\n"          // 13
    "0 1 0\n"          // 14
    "$EndNodes\n"      // 15
    "$Elements\n"      // 16
    "1 2 1 2\n"        // 17
    "2 1 2 2\n"        // 18
    "1 1 2 3\n"        // 19
    "2 1 3 4\n"        // 20
    "$EndElements\n";  // 21

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string file_bytes(const std::string& name) {
  std::ifstream in(test::data_path("gmsh/" + name), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The message of the Error reading `bytes` throws; fails the test when none (or another type) is thrown.
std::string error_of(const std::string& bytes, const std::string& name = "bad.msh") {
  try {
    io::read_gmsh_buffer(bytes, name);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error reading " << name;
  return "";
}

#define EXPECT_CONTAINS(text, part) EXPECT_NE((text).find(part), std::string::npos) << "'" << (text) << "'"

TEST(GmshErrors, ValidSquareReadsWithAnAllSet) {
  const Mesh mesh = io::read_gmsh_buffer(kSquare, "square.msh");
  ASSERT_EQ(mesh.dim(), 2);
  ASSERT_EQ(mesh.n_nodes(), 4);
  ASSERT_EQ(mesh.n_blocks(), 1);
  EXPECT_EQ(mesh.blocks[0].type, ElementType::Tri3);
  EXPECT_EQ(mesh.blocks[0].connectivity, (std::vector<Index>{0, 1, 2, 0, 2, 3}));
  EXPECT_EQ(mesh.blocks[0].labels, (std::vector<Label>{1, 2}));
  // No physical groups at all: one element set "all" with every element, no node sets.
  EXPECT_EQ(mesh.element_sets.size(), 1u);
  EXPECT_EQ(mesh.element_sets.at("all"), (std::vector<Index>{0, 1}));
  EXPECT_TRUE(mesh.node_sets.empty());
  EXPECT_EQ(mesh.coordinates, (std::vector<double>{0, 0, 1, 0, 1, 1, 0, 1}));
}

TEST(GmshErrors, EmptyFile) {
  const std::string message = error_of("", "empty.msh");
  EXPECT_CONTAINS(message, "empty.msh:1:");
  EXPECT_CONTAINS(message, "expected");
  EXPECT_CONTAINS(message, "$MeshFormat");
  EXPECT_CONTAINS(error_of(" \n\n", "blank.msh"), "blank.msh:3:");
}

TEST(GmshErrors, NotAGmshFile) {
  const std::string message = error_of("*HEADING\nan Abaqus deck\n", "deck.msh");
  EXPECT_CONTAINS(message, "deck.msh:1:");
  EXPECT_CONTAINS(message, "expected $MeshFormat");
}

TEST(GmshErrors, WrongVersion) {
  const std::string message = error_of(replace(kSquare, "4.1 0 8", "2.2 0 8"), "old.msh");
  EXPECT_CONTAINS(message, "old.msh:2:");
  EXPECT_CONTAINS(message, "'2.2'");
  EXPECT_CONTAINS(message, "expected version 4.1");
  EXPECT_CONTAINS(message, "-format msh41");
  EXPECT_CONTAINS(error_of(replace(kSquare, "4.1 0 8", "4 0 8")), "'4'");
}

TEST(GmshErrors, WrongFileTypeOrDataSize) {
  EXPECT_CONTAINS(error_of(replace(kSquare, "4.1 0 8", "4.1 2 8")), "bad.msh:2: expected the file type 0");
  const std::string message = error_of(replace(kSquare, "4.1 0 8", "4.1 0 4"));
  EXPECT_CONTAINS(message, "bad.msh:2:");
  EXPECT_CONTAINS(message, "expected the data size 8");
}

TEST(GmshErrors, UnknownElementType) {
  const std::string message = error_of(replace(kSquare, "2 1 2 2\n", "2 1 99 2\n"));
  EXPECT_CONTAINS(message, "bad.msh:18:");
  EXPECT_CONTAINS(message, "unknown element type 99");
  EXPECT_CONTAINS(message, "expected a Gmsh element type");
}

TEST(GmshErrors, UnsupportedElementTypeOfTheMeshDimension) {
  // A 6-node prism (type 6): Gmsh knows it, tremor's element library does not.
  std::string prism = replace(kSquare, "1 4 1 4\n2 1 0 4\n1\n2\n3\n4\n", "1 6 1 6\n3 1 0 6\n1\n2\n3\n4\n5\n6\n");
  prism = replace(prism, "0 1 0\n$EndNodes", "0 1 0\n0 0 1\n1 0 1\n$EndNodes");
  prism = replace(prism, "1 2 1 2\n2 1 2 2\n1 1 2 3\n2 1 3 4\n", "1 1 1 1\n3 1 6 1\n1 1 2 3 4 5 6\n");
  const std::string message = error_of(prism);
  EXPECT_CONTAINS(message, "bad.msh:22:");  // the block header
  EXPECT_CONTAINS(message, "element type 6 (6-node prism) is not supported");
  EXPECT_CONTAINS(message, "expected one of");
}

TEST(GmshErrors, ElementTypeAndBlockDimensionDisagree) {
  const std::string message = error_of(replace(kSquare, "2 1 2 2\n", "3 1 2 2\n"));
  EXPECT_CONTAINS(message, "bad.msh:18:");
  EXPECT_CONTAINS(message, "expected equal dimensions");
}

TEST(GmshErrors, MissingNode) {
  const std::string message = error_of(replace(kSquare, "2 1 3 4\n", "2 1 3 9\n"));
  EXPECT_CONTAINS(message, "bad.msh:20:");
  EXPECT_CONTAINS(message, "element 2 refers to node 9");
  EXPECT_CONTAINS(message, "expected a defined node tag");
}

TEST(GmshErrors, ElementsBeforeNodes) {
  const std::string nodes = kSquare.substr(kSquare.find("$Nodes"), kSquare.find("$Elements") - kSquare.find("$Nodes"));
  const std::string swapped = replace(kSquare, nodes, "") + nodes;
  const std::string message = error_of(swapped);
  EXPECT_CONTAINS(message, "bad.msh:7:");  // the first element's first node
  EXPECT_CONTAINS(message, "refers to node 1");
}

TEST(GmshErrors, CountTooLargeForTheFile) {
  const std::string message = error_of(replace(kSquare, "2 1 0 4\n", "2 1 0 4000000000000\n"));
  EXPECT_CONTAINS(message, "bad.msh:6:");
  EXPECT_CONTAINS(message, "expected the number of nodes in an entity block that fits in the rest of the file");
  EXPECT_CONTAINS(message, "4000000000000");
  // A count beyond 64 bits is out of range rather than wrapped.
  EXPECT_CONTAINS(error_of(replace(kSquare, "2 1 0 4\n", "2 1 0 99999999999999999999999\n")), "out of range");
}

TEST(GmshErrors, CountsThatDisagreeWithTheBlocks) {
  const std::string message = error_of(replace(kSquare, "1 4 1 4\n", "1 5 1 4\n"));
  EXPECT_CONTAINS(message, "bad.msh:5:");
  EXPECT_CONTAINS(message, "announces 5 nodes but its blocks hold 4");
  EXPECT_CONTAINS(error_of(replace(kSquare, "1 2 1 2\n", "1 3 1 2\n")), "bad.msh:17:");
}

TEST(GmshErrors, GarbageNumbers) {
  std::string message = error_of(replace(kSquare, "1 0 0\n", "1 zero 0\n"));
  EXPECT_CONTAINS(message, "bad.msh:12:");
  EXPECT_CONTAINS(message, "expected the y coordinate of a node (a number), found 'zero'");
  message = error_of(replace(kSquare, "2 1 3 4\n", "2 1 3.5 4\n"));
  EXPECT_CONTAINS(message, "bad.msh:20:");
  EXPECT_CONTAINS(message, "expected a node tag of an element (an integer), found '3.5'");
  message = error_of(replace(kSquare, "1 1 0\n", "1 nan 0\n"));
  EXPECT_CONTAINS(message, "bad.msh:13:");
  EXPECT_CONTAINS(message, "a finite number");
  message = error_of(replace(kSquare, "1\n2\n3\n4\n", "1\n2\n-3\n4\n"));
  EXPECT_CONTAINS(message, "bad.msh:9:");
  message = error_of(replace(kSquare, "1\n2\n3\n4\n", "1\n2\n0\n4\n"));
  EXPECT_CONTAINS(message, "bad.msh:9:");
  EXPECT_CONTAINS(message, "a positive integer");
  message = error_of(replace(kSquare, "2 1 0 4\n", "2 1 7 4\n"));
  EXPECT_CONTAINS(message, "bad.msh:6:");
  EXPECT_CONTAINS(message, "expected the parametric flag 0 or 1");
}

TEST(GmshErrors, MissingEndMarkers) {
  std::string message = error_of(replace(kSquare, "$EndNodes", "$EndNodez"));
  EXPECT_CONTAINS(message, "bad.msh:15:");
  EXPECT_CONTAINS(message, "expected $EndNodes, found '$EndNodez'");
  message = error_of(replace(kSquare, "$EndElements\n", ""));
  EXPECT_CONTAINS(message, "bad.msh:21:");
  EXPECT_CONTAINS(message, "unexpected end of file; expected $EndElements");
  message = error_of(replace(kSquare, "$EndMeshFormat\n", ""));
  EXPECT_CONTAINS(message, "bad.msh:3:");
  EXPECT_CONTAINS(message, "expected $EndMeshFormat, found '$Nodes'");
  // An extra value before the end marker (a count too small) shows up the same way.
  message = error_of(replace(kSquare, "2 1 3 4\n", "2 1 3 4 4\n"));
  EXPECT_CONTAINS(message, "bad.msh:20:");
  EXPECT_CONTAINS(message, "expected $EndElements, found '4'");
}

TEST(GmshErrors, MissingSections) {
  const std::string no_elements = kSquare.substr(0, kSquare.find("$Elements"));
  std::string message = error_of(no_elements);
  EXPECT_CONTAINS(message, "bad.msh:16:");
  EXPECT_CONTAINS(message, "without an $Elements section");
  message = error_of(replace(kSquare, "2 1 2 2\n1 1 2 3\n2 1 3 4\n", "1 1 1 2\n1 1 2\n2 3 4\n"));
  EXPECT_CONTAINS(message, "no 2D or 3D elements");
}

TEST(GmshErrors, DuplicateTags) {
  std::string message = error_of(replace(kSquare, "1\n2\n3\n4\n", "1\n2\n2\n4\n"));
  EXPECT_CONTAINS(message, "bad.msh:4:");
  EXPECT_CONTAINS(message, "node tag 2 is defined twice");
  message = error_of(replace(kSquare, "2 1 3 4\n", "1 1 3 4\n"));
  EXPECT_CONTAINS(message, "bad.msh:18:");  // the block holding the second use
  EXPECT_CONTAINS(message, "element tag 1 is used twice");
  // A tag of a later block repeating one of an earlier block names the later block.
  std::string two_blocks = replace(kSquare, "1 2 1 2\n2 1 2 2\n1 1 2 3\n2 1 3 4\n",
                                   "2 2 1 2\n2 1 2 1\n1 1 2 3\n2 1 2 1\n1 1 3 4\n");
  message = error_of(two_blocks);
  EXPECT_CONTAINS(message, "bad.msh:20:");
  EXPECT_CONTAINS(message, "element tag 1 is used twice");
  // Sparse tags take the sorted path of the duplicate check.
  message = error_of(replace(kSquare, "1\n2\n3\n4\n", "1\n2000000\n9000000000\n2000000\n"));
  EXPECT_CONTAINS(message, "node tag 2000000 is defined twice");
}

TEST(GmshErrors, RepeatedMeshSections) {
  const std::string nodes = kSquare.substr(kSquare.find("$Nodes"), kSquare.find("$Elements") - kSquare.find("$Nodes"));
  std::string message = error_of(replace(kSquare, "$Elements", nodes + "$Elements"));
  EXPECT_CONTAINS(message, "bad.msh:16:");
  EXPECT_CONTAINS(message, "found a second $Nodes section; expected one");
  message = error_of(kSquare + kSquare.substr(kSquare.find("$Elements")));
  EXPECT_CONTAINS(message, "bad.msh:22:");
  EXPECT_CONTAINS(message, "found a second $Elements section");
  message = error_of(kSquare + "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n");
  EXPECT_CONTAINS(message, "bad.msh:22:");
  EXPECT_CONTAINS(message, "second $MeshFormat");
}

TEST(GmshErrors, SparseTagsAreLabels) {
  std::string sparse = replace(kSquare, "1\n2\n3\n4\n", "10\n2000000\n9000000000\n7\n");
  sparse = replace(sparse, "1 1 2 3\n2 1 3 4\n", "500 10 2000000 9000000000\n9 10 9000000000 7\n");
  const Mesh mesh = io::read_gmsh_buffer(sparse, "sparse.msh");
  EXPECT_EQ(mesh.node_labels, (std::vector<Label>{10, 2000000, 9000000000, 7}));
  EXPECT_EQ(mesh.blocks[0].labels, (std::vector<Label>{500, 9}));
  EXPECT_EQ(mesh.blocks[0].connectivity, (std::vector<Index>{0, 1, 2, 0, 2, 3}));
}

TEST(GmshErrors, UnknownSectionsAreSkippedWithOneWarning) {
  const log::Quiet quiet;
  std::string text = replace(kSquare, "$Nodes\n", "$Foo\n$Nodes inside a foreign section\n$EndFoo\n$Comments\nhi\n$EndComments\n$Nodes\n");
  text += "$Bar\n$EndBar\n$Periodic\n1\n1 1 2\n0\n1\n5 6\n$EndPeriodic\n";
  const Mesh mesh = io::read_gmsh_buffer(text, "extra.msh");
  EXPECT_EQ(mesh.n_elements(), 2);
  const auto warnings = log::take_warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_CONTAINS(warnings[0], "extra.msh");
  EXPECT_CONTAINS(warnings[0], "$Foo, $Bar, $Periodic");
  EXPECT_EQ(warnings[0].find("$Comments"), std::string::npos) << warnings[0];

  const std::string message = error_of(replace(kSquare, "$Nodes\n", "$Foo\nno end\n$Nodes\n"));
  EXPECT_CONTAINS(message, "bad.msh:4:");
  EXPECT_CONTAINS(message, "'$Foo' never ends; expected $EndFoo");
  EXPECT_CONTAINS(error_of(kSquare + "$EndFoo\n"), "bad.msh:22:");
  EXPECT_CONTAINS(error_of(kSquare + "Nodes\n"), "expected a section header");
}

// A square of two triangles with physical groups: the surface (tag 1, unnamed), its bottom
// curve (tag 1 too, unnamed) and its top curve (tag 2, "top"), and the point at the origin,
// in group 3 named "top" as well.
const std::string kGrouped =
    "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
    "$PhysicalNames\n2\n1 2 \"top\"\n0 3 \"top\"\n$EndPhysicalNames\n"
    "$Entities\n1 2 1 0\n"
    "1 0 0 0 1 3\n"
    "1 0 0 0 1 0 0 1 1 0\n"
    "2 0 1 0 1 1 0 1 2 0\n"
    "1 0 0 0 1 1 0 1 1 0\n"
    "$EndEntities\n"
    "$Nodes\n1 4 1 4\n2 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n$EndNodes\n"
    "$Elements\n4 5 1 5\n"
    "0 1 15 1\n5 1\n"
    "1 1 1 1\n3 1 2\n"
    "1 2 1 1\n4 3 4\n"
    "2 1 2 2\n1 1 2 3\n2 1 3 4\n"
    "$EndElements\n";

TEST(GmshErrors, PhysicalGroupNames) {
  const Mesh mesh = io::read_gmsh_buffer(kGrouped, "grouped.msh");
  // Unnamed groups of different dimensions share tag 1: their names say the dimension.
  EXPECT_EQ(mesh.element_sets.size(), 1u);
  EXPECT_EQ(mesh.element_sets.at("physical1_dim2"), (std::vector<Index>{0, 1}));
  EXPECT_EQ(mesh.node_sets.at("physical1_dim2"), (std::vector<Index>{0, 1, 2, 3}));
  EXPECT_EQ(mesh.node_sets.at("physical1_dim1"), (std::vector<Index>{0, 1}));
  // Two groups named "top" (a curve and a point) make one node set, their union.
  EXPECT_EQ(mesh.node_sets.at("top"), (std::vector<Index>{0, 2, 3}));
  EXPECT_EQ(mesh.node_sets.size(), 3u);
  EXPECT_EQ(mesh.element_sets.count("all"), 0u);
}

TEST(GmshErrors, WindowsLineEndsAndNamesWithSpaces) {
  std::string text = replace(kGrouped, "1 2 \"top\"", "1 2 \"top edge\"");
  text = replace(text, "0 3 \"top\"", "0 3 \"top edge\"");
  std::string crlf;
  for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const Mesh mesh = io::read_gmsh_buffer(crlf, "crlf.msh");
  EXPECT_EQ(mesh.node_sets.at("top edge"), (std::vector<Index>{0, 2, 3}));
  EXPECT_EQ(mesh.element_sets.at("physical1_dim2"), (std::vector<Index>{0, 1}));
  // Lines are still counted right.
  EXPECT_CONTAINS(error_of(replace(crlf, "0 1 0\r\n$EndNodes", "0 x 0\r\n$EndNodes")), "bad.msh:26:");
}

TEST(GmshErrors, EntityProblems) {
  std::string message = error_of(replace(kGrouped, "2 1 2 2\n", "2 9 2 2\n"));
  EXPECT_CONTAINS(message, "bad.msh:36:");
  EXPECT_CONTAINS(message, "entity 9 of dimension 2, which $Entities does not list");
  message = error_of(replace(kGrouped, "2 0 1 0 1 1 0 1 2 0\n", "1 0 1 0 1 1 0 1 2 0\n"));
  EXPECT_CONTAINS(message, "bad.msh:13:");
  EXPECT_CONTAINS(message, "entity 1 of dimension 1 is listed twice");
  message = error_of(replace(kGrouped, "0 3 \"top\"\n", "0 3 \"top\n"));
  EXPECT_CONTAINS(message, "bad.msh:7:");
  EXPECT_CONTAINS(message, "closing quote");
  message = error_of(replace(kGrouped, "0 3 \"top\"\n", "1 2 \"again\"\n"));
  EXPECT_CONTAINS(message, "bad.msh:7:");
  EXPECT_CONTAINS(message, "named twice");
}

// Writes binary MSH 4.1 in either byte order.
class BinaryMsh {
 public:
  explicit BinaryMsh(bool big_endian) : big_(big_endian) {}
  BinaryMsh& text(const std::string& s) {
    bytes_ += s;
    return *this;
  }
  BinaryMsh& i32(std::int32_t v) { return put(static_cast<std::uint32_t>(v), 4); }
  BinaryMsh& u64(std::uint64_t v) { return put(v, 8); }
  BinaryMsh& f64(double v) { return put(std::bit_cast<std::uint64_t>(v), 8); }
  std::size_t size() const { return bytes_.size(); }
  const std::string& bytes() const { return bytes_; }

 private:
  BinaryMsh& put(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) {
      const int shift = 8 * (big_ ? n - 1 - i : i);
      bytes_ += static_cast<char>((v >> shift) & 0xff);
    }
    return *this;
  }
  bool big_;
  std::string bytes_;
};

// kSquare in binary; `count_at` receives the offset of the node block's node count.
std::string binary_square(bool big_endian, std::size_t* count_at = nullptr, std::uint64_t node_count = 4) {
  BinaryMsh out(big_endian);
  out.text("$MeshFormat\n4.1 1 8\n").i32(1).text("\n$EndMeshFormat\n$Nodes\n");
  out.u64(1).u64(4).u64(1).u64(4);
  out.i32(2).i32(1).i32(0);
  if (count_at) *count_at = out.size();
  out.u64(node_count);
  for (std::uint64_t tag = 1; tag <= 4; ++tag) out.u64(tag);
  for (double x : {0., 0., 0., 1., 0., 0., 1., 1., 0., 0., 1., 0.}) out.f64(x);
  out.text("\n$EndNodes\n$Elements\n");
  out.u64(1).u64(2).u64(1).u64(2);
  out.i32(2).i32(1).i32(2).u64(2);
  for (std::uint64_t v : {1, 1, 2, 3, 2, 1, 3, 4}) out.u64(v);
  out.text("\n$EndElements\n");
  return out.bytes();
}

TEST(GmshErrors, BinaryInEitherByteOrder) {
  const Mesh ascii = io::read_gmsh_buffer(kSquare, "square.msh");
  for (bool big : {false, true}) {
    const Mesh mesh = io::read_gmsh_buffer(binary_square(big), "square_bin.msh");
    EXPECT_EQ(mesh.coordinates, ascii.coordinates) << big;
    EXPECT_EQ(mesh.node_labels, ascii.node_labels) << big;
    EXPECT_EQ(mesh.blocks[0].connectivity, ascii.blocks[0].connectivity) << big;
    EXPECT_EQ(mesh.blocks[0].labels, ascii.blocks[0].labels) << big;
  }
}

TEST(GmshErrors, BinaryByteOrderMarker) {
  std::string bytes = binary_square(false);
  const std::size_t marker = std::string("$MeshFormat\n4.1 1 8\n").size();
  bytes[marker] = 2;
  const std::string message = error_of(bytes, "bad_bin.msh");
  EXPECT_CONTAINS(message, str("bad_bin.msh: byte ", marker, ":"));
  EXPECT_CONTAINS(message, "expected the binary integer 1");
}

TEST(GmshErrors, BinaryCountTooLarge) {
  std::size_t count_at = 0;
  const std::string bytes = binary_square(false, &count_at, std::uint64_t{1} << 60);
  const std::string message = error_of(bytes, "bad_bin.msh");
  EXPECT_CONTAINS(message, str("bad_bin.msh: byte ", count_at, ":"));
  EXPECT_CONTAINS(message, "expected the number of nodes in an entity block that fits in the rest of the file");
}

TEST(GmshErrors, TruncatedAscii) {
  // Cut tet4.msh at the start of a line in the middle of its node coordinates.
  const std::string whole = file_bytes("tet4.msh");
  const std::size_t nodes = whole.find("$Nodes");
  const std::size_t cut = whole.find('\n', nodes + (whole.find("$EndNodes") - nodes) / 2) + 1;
  const std::string part = whole.substr(0, cut);
  const long lines = static_cast<long>(std::count(part.begin(), part.end(), '\n'));
  const std::string message = error_of(part, "tet4_cut.msh");
  EXPECT_CONTAINS(message, str("tet4_cut.msh:", lines + 1, ":"));
  EXPECT_CONTAINS(message, "unexpected end of file; expected");
}

TEST(GmshErrors, TruncatedBinary) {
  const std::string whole = file_bytes("tet4_bin.msh");
  const std::size_t data = whole.find("$Elements\n") + 10;
  // Cut inside the first value of the element data: the error is at that value.
  std::string message = error_of(whole.substr(0, data + 5), "tet4_cut_bin.msh");
  EXPECT_CONTAINS(message, str("tet4_cut_bin.msh: byte ", data, ":"));
  EXPECT_CONTAINS(message, "unexpected end of file; expected the number of element entity blocks (8 bytes, 5 left)");
  // Cut in the middle of the elements: the block being read claims more than is left.
  const std::size_t cut = data + (whole.find("$EndElements") - data) / 2;
  message = error_of(whole.substr(0, cut), "tet4_cut_bin.msh");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(message, match, std::regex("tet4_cut_bin.msh: byte ([0-9]+): ")));
  EXPECT_LT(std::stoull(match[1]), cut);
  EXPECT_CONTAINS(message, "expected the number of elements in an entity block that fits in the rest of the file");
}

// Every prefix and many single-byte corruptions of real files either read or give an Error:
// nothing else escapes (the fuzz target explores this much further).
TEST(GmshErrors, DamagedFilesGiveErrorsOnly) {
  const log::Quiet quiet;
  std::mt19937 random(12345);
  for (const char* name : {"quad9.msh", "quad9_bin.msh", "hex20_bin.msh", "tri3_part.msh", "tri3_part_bin.msh"}) {
    const std::string whole = file_bytes(name);
    ASSERT_FALSE(whole.empty()) << name;
    // Any prefix that loses more than the final line end is incomplete.
    for (std::size_t cut = 0; cut + 1 < whole.size(); cut += 1 + whole.size() / 300)
      EXPECT_THROW(io::read_gmsh_buffer(whole.substr(0, cut), name), Error) << name << " cut at " << cut;
    for (int trial = 0; trial < 300; ++trial) {
      std::string bytes = whole;
      bytes[random() % bytes.size()] = static_cast<char>(random() & 0xff);
      try {
        io::read_gmsh_buffer(bytes, name);
      } catch (const Error&) {
        // the expected outcome for most corruptions; any other exception fails the test
      }
    }
  }
  log::take_warnings();
}

}  // namespace
}  // namespace tremor
