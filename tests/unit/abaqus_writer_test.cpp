// io::write_abaqus_mesh (io/abaqus_writer.hpp): every element type the Abaqus reader reads, written
// and read back by read_abaqus_mesh, gives the same mesh (coordinates bit for bit, labels, blocks,
// sets and surfaces); meshes the format cannot hold are refused naming what.
#include "tremor/io/abaqus_writer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/abaqus.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

namespace fs = std::filesystem;
using test::error_of;
using test::expect_contains;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string upper(std::string name) {
  for (char& c : name)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return name;
}

// The generators name their sets in lower case ("xmin", "all"); Abaqus names are upper case.
template <class Sets>
Sets upper_cased(const Sets& sets) {
  Sets result;
  for (const auto& [name, members] : sets) result[upper(name)] = members;
  return result;
}

// The mesh the round trips write: set names in upper case, labels neither consecutive nor in the
// order of the indices (nodes descending by 10 from the last, elements 10 e + 3 by global index),
// and sets beyond the generator's: every third node, the odd elements, one face of every element
// (interior faces included, faces of every number) and an empty node and element set.
Mesh prepared(Mesh mesh) {
  mesh.node_sets = upper_cased(mesh.node_sets);
  mesh.element_sets = upper_cased(mesh.element_sets);
  mesh.face_sets = upper_cased(mesh.face_sets);
  const Index n = mesh.n_nodes();
  for (Index i = 0; i < n; ++i) mesh.node_labels[static_cast<std::size_t>(i)] = 10 * Label{n - 1 - i} + 7;
  Index global = 0;
  std::vector<Face> mixed;
  std::vector<Index> odd;
  for (ElementBlock& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global) {
      block.labels[static_cast<std::size_t>(e)] = 10 * Label{global} + 3;
      mixed.push_back({global, global % n_faces(block.type)});
      if (global % 2 == 1) odd.push_back(global);
    }
  std::vector<Index> every_third;
  for (Index i = 0; i < n; i += 3) every_third.push_back(i);
  mesh.node_sets["EVERY-THIRD"] = every_third;
  mesh.node_sets["NONE"] = {};
  mesh.element_sets["ODD_ELEMENTS"] = odd;
  mesh.element_sets["NOTHING"] = {};
  mesh.face_sets["MIXED"] = mixed;
  mesh.validate("prepared mesh");
  return mesh;
}

// Writes `mesh` to a file and reads it back, checking that the file holds abaqus_mesh_text and
// that the reader has nothing to warn about (every keyword and parameter written is one it reads).
Mesh round_trip(const Mesh& mesh, const std::string& tag) {
  const fs::path path = fs::path(test::temporary_directory("abaqus_writer_" + tag)) / "mesh.inp";
  io::write_abaqus_mesh(mesh, path.string());
  EXPECT_EQ(read_text(path), io::abaqus_mesh_text(mesh));
  const log::Quiet quiet;
  Mesh read = io::read_abaqus_mesh(path.string());
  const std::vector<std::string> warnings = log::take_warnings();
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  return read;
}

// Everything a Mesh holds, compared exactly: the writer prints each coordinate in the shortest
// form that reads back to the same double, so no tolerance is needed and the bits are compared
// (which also tells -0.0 from 0.0).
void expect_same_mesh(const Mesh& expected, const Mesh& actual) {
  ASSERT_EQ(actual.dim(), expected.dim());
  ASSERT_EQ(actual.n_nodes(), expected.n_nodes());
  ASSERT_EQ(actual.coordinates.size(), expected.coordinates.size());
  for (std::size_t k = 0; k < expected.coordinates.size(); ++k)
    ASSERT_EQ(std::bit_cast<std::uint64_t>(actual.coordinates[k]), std::bit_cast<std::uint64_t>(expected.coordinates[k]))
        << "coordinate " << k % static_cast<std::size_t>(expected.dim()) << " of node "
        << expected.node_labels[k / static_cast<std::size_t>(expected.dim())] << ": " << actual.coordinates[k]
        << " instead of " << expected.coordinates[k];
  EXPECT_EQ(actual.node_labels, expected.node_labels);
  ASSERT_EQ(actual.n_blocks(), expected.n_blocks());
  for (std::size_t b = 0; b < expected.blocks.size(); ++b) {
    SCOPED_TRACE("block " + std::to_string(b));
    EXPECT_EQ(actual.blocks[b].type, expected.blocks[b].type);
    EXPECT_EQ(actual.blocks[b].order, expected.blocks[b].order);
    EXPECT_EQ(actual.blocks[b].connectivity, expected.blocks[b].connectivity);
    EXPECT_EQ(actual.blocks[b].labels, expected.blocks[b].labels);
  }
  EXPECT_EQ(actual.node_sets, expected.node_sets);
  EXPECT_EQ(actual.element_sets, expected.element_sets);
  EXPECT_EQ(actual.face_sets, expected.face_sets);
}

// A rectangle or box with graded cells away from the origin, so coordinates use all their digits.
Mesh generated(ElementType type, int order = 1) {
  if (dimension(type) == 2)
    return generate_rectangle({0.1, -0.3}, {1.0 / 3.0, 0.7}, {3, 2}, type, order, {1.3, 0.8});
  return generate_box({0.1, -0.3, 2.0 / 3.0}, {1.0 / 3.0, 0.7, 1e-3}, {2, 3, 2}, type, order, {1.3, 0.8, 1.1});
}

class AbaqusWriterTypes : public ::testing::TestWithParam<ElementType> {};

TEST_P(AbaqusWriterTypes, RoundTripsWithLabelsSetsAndSurfaces) {
  const ElementType type = GetParam();
  const Mesh mesh = prepared(generated(type));
  ASSERT_EQ(mesh.n_blocks(), 1);
  ASSERT_FALSE(mesh.face_sets.at("XMIN").empty());
  const Mesh read = round_trip(mesh, element_name(type));
  expect_same_mesh(mesh, read);
}

// Every type the reader reads (abaqus_mesh.cpp, element_kinds): CPE/CPS 3, 4, 6, 8 and C3D4, 8, 10, 20.
INSTANTIATE_TEST_SUITE_P(AbaqusWriter, AbaqusWriterTypes,
                         ::testing::Values(ElementType::Tri3, ElementType::Tri6, ElementType::Quad4,
                                           ElementType::Quad8, ElementType::Tet4, ElementType::Tet10,
                                           ElementType::Hex8, ElementType::Hex20),
                         [](const ::testing::TestParamInfo<ElementType>& p) { return element_name(p.param); });

// `a` and `b` side by side (b moved by `shift` along x, its nodes its own): a's blocks, then b's.
// Sets become A_<name> and B_<name>; "BOTH" holds every element and both xmin sides.
Mesh side_by_side(const Mesh& a, const Mesh& b, double shift) {
  Mesh mesh(a.dim());
  mesh.coordinates = a.coordinates;
  mesh.node_labels = a.node_labels;
  mesh.blocks = a.blocks;
  const Index nodes = a.n_nodes(), elements = a.n_elements();
  for (Index i = 0; i < b.n_nodes(); ++i) {
    std::vector<double> x(b.node(i).begin(), b.node(i).end());
    x[0] += shift;
    mesh.add_node(b.node_labels[static_cast<std::size_t>(i)] + nodes, x);
  }
  for (ElementBlock block : b.blocks) {
    for (Index& node : block.connectivity) node += nodes;
    mesh.blocks.push_back(std::move(block));
  }
  for (const auto& [name, members] : a.node_sets) mesh.node_sets["A_" + name] = members;
  for (const auto& [name, members] : a.element_sets) mesh.element_sets["A_" + name] = members;
  for (const auto& [name, faces] : a.face_sets) mesh.face_sets["A_" + name] = faces;
  for (const auto& [name, members] : b.node_sets)
    for (Index i : members) mesh.node_sets["B_" + name].push_back(i + nodes);
  for (const auto& [name, members] : b.element_sets)
    for (Index e : members) mesh.element_sets["B_" + name].push_back(e + elements);
  for (const auto& [name, faces] : b.face_sets)
    for (const Face& face : faces) mesh.face_sets["B_" + name].push_back({face.element + elements, face.face});
  for (Index e = 0; e < mesh.n_elements(); ++e) mesh.element_sets["BOTH"].push_back(e);
  mesh.face_sets["BOTH"] = mesh.face_sets.at("A_XMIN");
  for (const Face& face : mesh.face_sets.at("B_XMIN")) mesh.face_sets["BOTH"].push_back(face);
  normalise_faces(mesh.face_sets["BOTH"]);
  return mesh;
}

TEST(AbaqusWriter, TwoBlocksOfDifferentTypesKeepTheirOrder) {
  {
    const Mesh hexes = prepared(generated(ElementType::Hex20));
    const Mesh tets = prepared(generated(ElementType::Tet4));
    const Mesh mesh = prepared(side_by_side(hexes, tets, 1.0));
    ASSERT_EQ(mesh.n_blocks(), 2);
    expect_same_mesh(mesh, round_trip(mesh, "hex20_tet4"));
  }
  {
    // The quadrilaterals second: the reader must keep the written order, not an order of types.
    const Mesh triangles = prepared(generated(ElementType::Tri6));
    const Mesh quads = prepared(generated(ElementType::Quad8));
    const Mesh mesh = prepared(side_by_side(triangles, quads, 1.0));
    expect_same_mesh(mesh, round_trip(mesh, "tri6_quad8"));
  }
}

TEST(AbaqusWriter, CoordinatesReadBackBitForBit) {
  Mesh mesh = prepared(generated(ElementType::Hex8));
  const double hard[] = {-0.0,
                         std::numeric_limits<double>::denorm_min(),
                         std::numeric_limits<double>::max(),
                         -std::numeric_limits<double>::min(),
                         0.1,
                         1.0 / 3.0,
                         -2.0 / 3.0 * 1e-300,
                         123456789.123456789,
                         1e22,
                         9007199254740993.0};
  for (std::size_t k = 0; k < std::size(hard); ++k) mesh.coordinates[k] = hard[k];
  expect_same_mesh(mesh, round_trip(mesh, "coordinates"));
  // 2D: no z written, and the reader drops the z = 0 it fills in.
  Mesh flat = prepared(generated(ElementType::Quad4));
  for (std::size_t k = 0; k < std::size(hard); ++k) flat.coordinates[k] = hard[k];
  expect_same_mesh(flat, round_trip(flat, "coordinates_2d"));
}

TEST(AbaqusWriter, TextAsAbaqusWritesIt) {
  const Mesh mesh = prepared(generate_box({0.0, 0.0, 0.0}, {2.0, 1.0, 1.0}, {2, 1, 1}, ElementType::Hex20));
  const std::string text = io::abaqus_mesh_text(mesh);
  // The node of index 0 (label 10 (n - 1) + 7) at the origin, then the second at x = 0.5.
  const Label first = 10 * Label{mesh.n_nodes() - 1} + 7;
  expect_contains(text, {"*NODE\n" + std::to_string(first) + ", 0, 0, 0\n" + std::to_string(first - 10) + ", 0.5, 0, 0\n",
                         "*ELEMENT, TYPE=C3D20\n3, ", "*NSET, NSET=XMIN\n", "*ELSET, ELSET=ALL\n3, 13\n",
                         "*SURFACE, TYPE=ELEMENT, NAME=XMAX\n13, S4\n", "*SURFACE, TYPE=ELEMENT, NAME=MIXED\n3, S1\n13, S2\n"});
  // An element of 20 nodes: its label and 15 nodes, a comma, and the other 5 on the next line.
  const std::size_t element = text.find("*ELEMENT, TYPE=C3D20\n") + std::string("*ELEMENT, TYPE=C3D20\n").size();
  const std::string first_line = text.substr(element, text.find('\n', element) - element);
  EXPECT_EQ(std::count(first_line.begin(), first_line.end(), ','), 16) << first_line;
  EXPECT_EQ(first_line.back(), ',') << first_line;
  // No line of a set holds more than 16 labels.
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    EXPECT_LE(std::count(line.begin(), line.end(), ','), 16) << line;
}

TEST(AbaqusWriter, GllElementsAreRefusedNamingTheBlock) {
  const std::string folder = test::temporary_directory("abaqus_writer_gll");
  const std::string path = folder + "/gll.inp";
  const std::string message = error_of([&] { io::write_abaqus_mesh(generated(ElementType::HexGLL, 4), path); });
  expect_contains(message, {path + ": block 0: GLL hexahedra of order 4 have no Abaqus element type: write the mesh "
                                   "before raising its order (`order = 4` in the model file raises it on reading)"});
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::is_empty(folder));
  // Quad9 is GLL order 2, which the reader never gives; the message says so. In a second block.
  const Mesh mesh =
      side_by_side(prepared(generated(ElementType::Quad4)), prepared(generated(ElementType::QuadGLL, 2)), 1.0);
  expect_contains(error_of([&] { io::abaqus_mesh_text(mesh); }),
                  {"Abaqus mesh: block 1: GLL quadrilaterals of order 2 (quad9) have no Abaqus element type",
                   "(`order = 2` in the model file"});
}

TEST(AbaqusWriter, SetNamesTheReaderWouldChangeAreRefused) {
  const Mesh base = prepared(generated(ElementType::Quad4));
  {
    // The generator's own names: lower case, which Abaqus folds.
    const Mesh mesh = generated(ElementType::Quad4);
    expect_contains(error_of([&] { io::abaqus_mesh_text(mesh); }),
                    {"Abaqus mesh: set names with lower case would read back upper-cased (Abaqus compares names "
                     "without case and tremor's reader stores them in upper case): node set 'xmax' as 'XMAX', node "
                     "set 'xmin' as 'XMIN', node set 'ymax' as 'YMAX', node set 'ymin' as 'YMIN', element set 'all' "
                     "as 'ALL', surface 'xmax' as 'XMAX' and 3 more; rename them in upper case"});
  }
  const auto refused = [&](const char* kind, const std::string& name, const std::string& shown) {
    Mesh mesh = base;
    if (std::string(kind) == "node set")
      mesh.node_sets[name] = {0};
    else if (std::string(kind) == "element set")
      mesh.element_sets[name] = {0};
    else
      mesh.face_sets[name] = {Face{0, 0}};
    SCOPED_TRACE(kind + std::string(" ") + shown);
    expect_contains(error_of([&] { io::abaqus_mesh_text(mesh); }),
                    {std::string("Abaqus mesh: ") + kind + " '" + shown + "' cannot be written as an Abaqus name, "
                     "which begins with a letter, holds only letters, digits, '_' and '-', and has at most 80 "
                     "characters: rename it"});
  };
  refused("node set", "A,B", "A,B");
  refused("node set", "TOP FACE", "TOP FACE");
  refused("element set", "A\nB", "A\\nB");
  refused("element set", "", "");
  refused("surface", "1ST", "1ST");
  refused("surface", "SIDE=2", "SIDE=2");
  refused("surface", "\"QUOTED\"", "\"QUOTED\"");
  refused("node set", std::string(81, 'N'), std::string(60, 'N') + "...");
  {
    Mesh mesh = base;
    mesh.face_sets["TOP-"] = {Face{0, 2}};
    mesh.face_sets["Top"] = {Face{0, 2}};
    expect_contains(error_of([&] { io::abaqus_mesh_text(mesh); }),
                    {"Abaqus mesh: set names with lower case would read back upper-cased", ": surface 'Top' as 'TOP'; "
                     "rename it in upper case"});
  }
  {
    Mesh mesh = base;
    mesh.face_sets["EMPTY"] = {};
    expect_contains(error_of([&] { io::abaqus_mesh_text(mesh); }),
                    {"Abaqus mesh: surface 'EMPTY' is empty; an Abaqus *SURFACE needs at least one face"});
  }
  // 80 characters, digits, '_' and '-' are fine.
  Mesh longest = base;
  std::string name = std::string(76, 'N');
  name.replace(70, 4, "_9-Z");
  longest.node_sets[name + "1234"] = {1, 2};
  expect_same_mesh(longest, round_trip(longest, "long_name"));
}

TEST(AbaqusWriter, LabelsAndBlocksTheReaderWouldChangeAreRefused) {
  const Mesh base = prepared(generated(ElementType::Tet4));
  {
    Mesh mesh = base;
    mesh.node_labels[5] = mesh.node_labels[2];
    expect_contains(error_of([&] { io::abaqus_mesh_text(mesh); }),
                    {"Abaqus mesh: node label " + std::to_string(mesh.node_labels[2]) +
                     " is given twice (nodes 2 and 5, counting from 0)"});
  }
  {
    Mesh mesh = base;
    mesh.blocks[0].labels[3] = 0;
    expect_contains(error_of([&] { io::abaqus_mesh_text(mesh); }),
                    {"Abaqus mesh: block 0: element 3 (counting from 0) has label 0; Abaqus labels are positive"});
  }
  {
    Mesh mesh = base;
    mesh.coordinates[4] = std::numeric_limits<double>::quiet_NaN();
    expect_contains(error_of([&] { io::abaqus_mesh_text(mesh); }),
                    {"Abaqus mesh: node " + std::to_string(mesh.node_labels[1]) + " has the coordinate nan"});
  }
  {
    // Two tet4 blocks: the reader would make one of them. Their labels clash too, but the blocks
    // are named first.
    const Mesh mesh = side_by_side(base, base, 1.0);
    expect_contains(error_of([&] { io::abaqus_mesh_text(mesh); }),
                    {"Abaqus mesh: blocks 0 and 1 both hold tet4 elements, which the reader would gather in one "
                     "block"});
  }
  {
    Mesh mesh = side_by_side(base, prepared(generated(ElementType::Hex8)), 1.0);
    mesh.blocks[1].labels[0] = mesh.blocks[0].labels[4];
    expect_contains(error_of([&] { io::abaqus_mesh_text(mesh); }),
                    {"element label " + std::to_string(mesh.blocks[0].labels[4]) +
                     " is given twice (block 0 element 4 and block 1 element 0"});
  }
  {
    Mesh mesh(2);
    const double x[2] = {0.0, 1.0};
    mesh.add_node(1, x);
    expect_contains(error_of([&] { io::abaqus_mesh_text(mesh); }),
                    {"Abaqus mesh: a 2D mesh without element blocks would read back as 3D"});
  }
}

TEST(AbaqusWriter, UnwritablePathIsRefusedAndAnExistingFileKept) {
  const std::string folder = test::temporary_directory("abaqus_writer_path");
  const Mesh mesh = prepared(generated(ElementType::Tri3));
  const std::string missing = folder + "/no/such/mesh.inp";
  expect_contains(error_of([&] { io::write_abaqus_mesh(mesh, missing); }),
                  {missing + ": cannot write the Abaqus mesh: the folder " + folder + "/no/such does not exist"});
  // A folder where the file should be.
  fs::create_directory(folder + "/taken.inp");
  expect_contains(error_of([&] { io::write_abaqus_mesh(mesh, folder + "/taken.inp"); }), {folder + "/taken.inp"});
  // A refused mesh leaves the file it would have replaced as it was.
  const std::string existing = folder + "/existing.inp";
  io::write_abaqus_mesh(mesh, existing);
  const std::string before = read_text(existing);
  expect_contains(error_of([&] { io::write_abaqus_mesh(generated(ElementType::Tri3), existing); }),
                  {existing + ": set names with lower case would read back upper-cased"});
  EXPECT_EQ(read_text(existing), before);
}

}  // namespace
}  // namespace tremor
