// Gmsh surface meshes for the boundary-element solver (io::read_gmsh_surface, bem::boundary_mesh):
// files written here in ASCII and binary, read back with their sets and orientation, and the
// files a boundary-element mesh cannot be made of, refused with the file, the place and the tag.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/bem/boundary_mesh.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/gmsh.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

#define EXPECT_CONTAINS(text, part) EXPECT_NE((text).find(part), std::string::npos) << "'" << (text) << "'"

// Writes MSH 4.1 as ASCII or as binary (either byte order) from one description: the typed
// values of $Entities, $Nodes and $Elements become words or raw bytes, the rest stays text.
class MshWriter {
 public:
  enum Mode { Ascii, Little, Big };
  explicit MshWriter(Mode mode) : mode_(mode) {
    text(mode == Ascii ? "$MeshFormat\n4.1 0 8\n" : "$MeshFormat\n4.1 1 8\n");
    if (mode != Ascii) {
      i32(1);
      text("\n");
    }
    text("$EndMeshFormat\n");
  }
  MshWriter& text(const std::string& s) {
    bytes_ += s;
    return *this;
  }
  // Ends a section's data: a line end after binary data, then the $End line.
  MshWriter& end(const std::string& section) { return text(str(mode_ == Ascii ? "" : "\n", "$End", section, "\n")); }
  // A line break in ASCII, nothing in binary.
  MshWriter& line() { return mode_ == Ascii ? text("\n") : *this; }
  MshWriter& i32(std::int32_t v) { return mode_ == Ascii ? word(str(v)) : put(static_cast<std::uint32_t>(v), 4); }
  MshWriter& u64(std::uint64_t v) { return mode_ == Ascii ? word(str(v)) : put(v, 8); }
  MshWriter& f64(double v) {
    if (mode_ != Ascii) return put(std::bit_cast<std::uint64_t>(v), 8);
    std::ostringstream out;
    out.precision(17);
    out << v;
    return word(out.str());
  }
  const std::string& bytes() const { return bytes_; }

 private:
  MshWriter& word(const std::string& w) {
    if (!bytes_.empty() && bytes_.back() != '\n') bytes_ += ' ';
    bytes_ += w;
    return *this;
  }
  MshWriter& put(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) {
      const int shift = 8 * (mode_ == Big ? n - 1 - i : i);
      bytes_ += static_cast<char>((v >> shift) & 0xff);
    }
    return *this;
  }
  Mode mode_;
  std::string bytes_;
};

struct Block {
  int dim, entity, type;
  std::vector<std::vector<std::uint64_t>> elements;  // tag, then node tags
};

// The surface of the unit cube, normals outward: the bottom a quadrilateral (entity 1, physical
// group 5, unnamed), the top two triangles (entity 2, group 1 "top"), three sides quadrilaterals
// (entity 3, no group), the side x = 1 two triangles (entity 4, group 5); a line on the edge from
// node 1 to node 2 (group 7 "edge") and a point at node 1 (group 8, unnamed). Element tags 1..10
// in that order.
std::string cube(MshWriter::Mode mode) {
  MshWriter out(mode);
  out.text("$PhysicalNames\n2\n2 1 \"top\"\n1 7 \"edge\"\n$EndPhysicalNames\n");
  out.text("$Entities\n").u64(1).u64(1).u64(4).u64(0).line();
  out.i32(1).f64(0).f64(0).f64(0).u64(1).i32(8).line();
  out.i32(1).f64(0).f64(0).f64(0).f64(1).f64(0).f64(0).u64(1).i32(7).u64(0).line();
  const int groups[4] = {5, 1, 0, 5};
  for (int s = 1; s <= 4; ++s) {
    out.i32(s).f64(0).f64(0).f64(0).f64(1).f64(1).f64(1);
    if (groups[s - 1])
      out.u64(1).i32(groups[s - 1]);
    else
      out.u64(0);
    out.u64(0).line();
  }
  out.end("Entities");
  // Nodes 1-8: (0,0,0) (1,0,0) (1,1,0) (0,1,0), then the same at z = 1.
  out.text("$Nodes\n").u64(1).u64(8).u64(1).u64(8).line();
  out.i32(2).i32(1).i32(0).u64(8).line();
  for (std::uint64_t tag = 1; tag <= 8; ++tag) out.u64(tag).line();
  const double xy[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  for (int z = 0; z < 2; ++z)
    for (const auto& p : xy) out.f64(p[0]).f64(p[1]).f64(z).line();
  out.end("Nodes");
  const std::vector<Block> blocks = {
      {2, 1, 3, {{1, 1, 4, 3, 2}}},
      {2, 2, 2, {{2, 5, 6, 7}, {3, 5, 7, 8}}},
      {2, 3, 3, {{4, 1, 2, 6, 5}, {5, 4, 8, 7, 3}, {6, 1, 5, 8, 4}}},
      {2, 4, 2, {{7, 2, 3, 7}, {8, 2, 7, 6}}},
      {1, 1, 1, {{9, 1, 2}}},
      {0, 1, 15, {{10, 1}}},
  };
  out.text("$Elements\n").u64(blocks.size()).u64(10).u64(1).u64(10).line();
  for (const Block& block : blocks) {
    out.i32(block.dim).i32(block.entity).i32(block.type).u64(block.elements.size()).line();
    for (const auto& element : block.elements) {
      for (std::uint64_t v : element) out.u64(v);
      out.line();
    }
  }
  out.end("Elements");
  return out.bytes();
}

std::string error_of(const std::string& bytes, const std::string& name = "bad.msh") {
  try {
    io::read_gmsh_surface_buffer(bytes, name);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error reading " << name;
  return "";
}

// A flat ASCII file without entities: `nodes` lines "tag x y z", then element blocks as text.
std::string plain(const std::vector<std::string>& nodes, const std::string& elements, int n_blocks, int n_elements) {
  std::string out = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n";
  out += str("1 ", nodes.size(), " 1 ", nodes.size(), "\n2 1 0 ", nodes.size(), "\n");
  for (std::size_t i = 1; i <= nodes.size(); ++i) out += str(i, "\n");
  for (const auto& xyz : nodes) out += xyz + "\n";
  out += str("$EndNodes\n$Elements\n", n_blocks, " ", n_elements, " 1 ", n_elements, "\n", elements, "$EndElements\n");
  return out;
}

TEST(GmshSurfaceMesh, CubeReadsWithSetsAndBlocks) {
  const Mesh mesh = io::read_gmsh_surface_buffer(cube(MshWriter::Ascii), "cube.msh");
  ASSERT_EQ(mesh.dim(), 3);
  ASSERT_EQ(mesh.n_nodes(), 8);
  ASSERT_EQ(mesh.n_blocks(), 2);
  // Blocks in order of first appearance: the bottom quadrilateral comes first.
  EXPECT_EQ(mesh.blocks[0].type, ElementType::Quad4);
  EXPECT_EQ(mesh.blocks[0].labels, (std::vector<Label>{1, 4, 5, 6}));
  EXPECT_EQ(mesh.blocks[0].connectivity, (std::vector<Index>{0, 3, 2, 1, 0, 1, 5, 4, 3, 7, 6, 2, 0, 4, 7, 3}));
  EXPECT_EQ(mesh.blocks[1].type, ElementType::Tri3);
  EXPECT_EQ(mesh.blocks[1].labels, (std::vector<Label>{2, 3, 7, 8}));
  EXPECT_EQ(mesh.blocks[1].connectivity, (std::vector<Index>{4, 5, 6, 4, 6, 7, 1, 2, 6, 1, 6, 5}));
  // 2D groups are element sets (global indices: quadrilaterals 0-3, triangles 4-7); no "all".
  EXPECT_EQ(mesh.element_sets.size(), 2u);
  EXPECT_EQ(mesh.element_sets.at("top"), (std::vector<Index>{4, 5}));
  EXPECT_EQ(mesh.element_sets.at("physical5"), (std::vector<Index>{0, 6, 7}));
  // Every group is a node set, lines and points included; no face sets.
  EXPECT_EQ(mesh.node_sets.at("edge"), (std::vector<Index>{0, 1}));
  EXPECT_EQ(mesh.node_sets.at("physical8"), (std::vector<Index>{0}));
  EXPECT_EQ(mesh.node_sets.at("top"), (std::vector<Index>{4, 5, 6, 7}));
  EXPECT_EQ(mesh.node_sets.at("physical5"), (std::vector<Index>{0, 1, 2, 3, 5, 6}));
  EXPECT_TRUE(mesh.face_sets.empty());
  EXPECT_EQ(mesh.coordinates[3 * 6], 1.0);
  EXPECT_EQ(mesh.coordinates[3 * 6 + 2], 1.0);
}

TEST(GmshSurfaceMesh, BinaryInEitherByteOrderEqualsAscii) {
  const Mesh ascii = io::read_gmsh_surface_buffer(cube(MshWriter::Ascii), "cube.msh");
  for (const auto mode : {MshWriter::Little, MshWriter::Big}) {
    const Mesh binary = io::read_gmsh_surface_buffer(cube(mode), "cube_bin.msh");
    // Coordinates 0 and 1 are exact in both encodings.
    EXPECT_EQ(binary.coordinates, ascii.coordinates) << mode;
    EXPECT_EQ(binary.node_labels, ascii.node_labels) << mode;
    ASSERT_EQ(binary.n_blocks(), ascii.n_blocks()) << mode;
    for (int b = 0; b < ascii.n_blocks(); ++b) {
      EXPECT_EQ(binary.blocks[static_cast<std::size_t>(b)].connectivity, ascii.blocks[static_cast<std::size_t>(b)].connectivity);
      EXPECT_EQ(binary.blocks[static_cast<std::size_t>(b)].labels, ascii.blocks[static_cast<std::size_t>(b)].labels);
    }
    EXPECT_EQ(binary.element_sets, ascii.element_sets) << mode;
    EXPECT_EQ(binary.node_sets, ascii.node_sets) << mode;
  }
}

TEST(GmshSurfaceMesh, BoundaryMeshFromAFileIsAClosedOutwardCube) {
  const std::string directory = test::temporary_directory("gmsh_surface");
  for (const auto mode : {MshWriter::Ascii, MshWriter::Little}) {
    const std::string path = directory + (mode == MshWriter::Ascii ? "/cube.msh" : "/cube_bin.msh");
    std::ofstream(path, std::ios::binary) << cube(mode);
    const bem::BoundaryMesh mesh = bem::boundary_mesh(io::read_gmsh_surface(path), path);
    EXPECT_EQ(mesh.source, path);
    EXPECT_EQ(mesh.n_elements(), 8);
    EXPECT_EQ(mesh.element_labels, (std::vector<Index>{1, 4, 5, 6, 2, 3, 7, 8}));
    EXPECT_EQ(mesh.node_labels, (std::vector<Index>{1, 2, 3, 4, 5, 6, 7, 8}));
    EXPECT_EQ(mesh.n_vertices(0), 4);
    EXPECT_EQ(mesh.n_vertices(4), 3);
    EXPECT_EQ(mesh.element_sets.at("top"), (std::vector<Index>{4, 5}));
    const bem::MeshReport report = bem::check_boundary_mesh(mesh, bem::Solid::Inside);
    EXPECT_TRUE(report.closed);
    EXPECT_EQ(report.n_edges, 14);  // the cube's 12 edges and the diagonals of the two split faces
    // Unit cube with flat faces: exact to rounding.
    EXPECT_NEAR(report.area, 6.0, 1e-14);
    EXPECT_NEAR(report.signed_volume, 1.0, 1e-14);
  }
  EXPECT_THROW(io::read_gmsh_surface(directory + "/missing.msh"), Error);
}

TEST(GmshSurfaceMesh, WithoutPhysicalGroupsOneSetHoldsAll) {
  // Two triangles folded along their shared edge: not planar, which the solid reader refuses.
  const std::string bytes = plain({"0 0 0", "1 0 0", "1 1 1", "0 1 0"}, "2 1 2 2\n1 1 2 3\n2 1 3 4\n", 1, 2);
  const Mesh mesh = io::read_gmsh_surface_buffer(bytes, "fold.msh");
  EXPECT_EQ(mesh.element_sets.size(), 1u);
  EXPECT_EQ(mesh.element_sets.at("all"), (std::vector<Index>{0, 1}));
  EXPECT_TRUE(mesh.node_sets.empty());
  EXPECT_EQ(mesh.dim(), 3);
  try {
    io::read_gmsh_buffer(bytes, "fold.msh");
    ADD_FAILURE() << "the solid reader took a non-planar 2D mesh";
  } catch (const Error& e) {
    EXPECT_CONTAINS(std::string(e.what()), "2D meshes must lie in a plane z = const");
  }
}

// Nodes for the rejections: ten points, enough for any element below.
const std::vector<std::string> kNodes = {"0 0 0", "1 0 0", "1 1 0", "0 1 0", "0 0 1",
                                         "1 0 1", "1 1 1", "0 1 1", "0.5 0 0", "0.5 0.5 0"};

TEST(GmshSurfaceMesh, VolumeElementsAreRefused) {
  // A triangle (element 1) and a tetrahedron (element 2, block header on line 32).
  const std::string message = error_of(plain(kNodes, "2 1 2 1\n1 1 2 3\n3 1 4 1\n2 1 2 3 5\n", 2, 2), "solid.msh");
  EXPECT_CONTAINS(message, "solid.msh:32:");
  EXPECT_CONTAINS(message, "element 2 (4-node tetrahedron, Gmsh type 4) is a volume element");
  EXPECT_CONTAINS(message, "a boundary-element mesh holds surface elements only");
  // Hexahedra the same.
  EXPECT_CONTAINS(error_of(plain(kNodes, "3 1 5 1\n9 1 2 3 4 5 6 7 8\n", 1, 1)),
                  "element 9 (8-node hexahedron, Gmsh type 5) is a volume element; a boundary-element mesh holds surface "
                  "elements only");
}

// Second-order triangles and quadrilaterals are read (bem_quadratic_test.cpp); third-order and
// incomplete ones are not.
TEST(GmshSurfaceMesh, HigherOrderSurfaceElementsAreRefused) {
  struct Case {
    int type;
    const char* nodes;
    const char* name;
  };
  for (const Case& c : {Case{21, "1 2 3 9 10 4 5 6 7 8", "10-node triangle"},
                        Case{20, "1 2 3 9 10 4 5 6 7", "9-node triangle"}}) {
    const std::string message = error_of(plain(kNodes, str("2 1 ", c.type, " 1\n17 ", c.nodes, "\n"), 1, 1));
    EXPECT_CONTAINS(message, "bad.msh:30:");
    EXPECT_CONTAINS(message, str("element 17 (", c.name, ", Gmsh type ", c.type,
                                 ") is not a triangle or quadrilateral of the first or second order"));
    EXPECT_CONTAINS(message, "reads triangles (Gmsh types 2 and 9) and quadrilaterals (types 3, 16 and 10)");
  }
}

TEST(GmshSurfaceMesh, LinesAloneAreNoSurface) {
  const std::string message = error_of(plain(kNodes, "1 1 1 1\n3 1 2\n", 1, 1), "lines.msh");
  EXPECT_CONTAINS(message, "lines.msh:");
  EXPECT_CONTAINS(message, "the file holds no surface elements");
}

TEST(GmshSurfaceMesh, SolidReaderIsUnchangedOnVolumeMeshes) {
  // A tetrahedron with a triangle on its face: the solid reader keeps reading it as before.
  const std::string bytes = plain(kNodes, "2 1 2 1\n1 1 2 3\n3 1 4 1\n2 1 2 3 5\n", 2, 2);
  const Mesh mesh = io::read_gmsh_buffer(bytes, "tet.msh");
  EXPECT_EQ(mesh.dim(), 3);
  ASSERT_EQ(mesh.n_blocks(), 1);
  EXPECT_EQ(mesh.blocks[0].type, ElementType::Tet4);
}

}  // namespace
}  // namespace tremor
