// Surfaces from Gmsh physical groups of dimension dim - 1: the curve "left" (x = 0, length 2) of
// the L-shaped plates and the surface "bottom" (z = 0, area 3) of the L blocks Gmsh wrote
// (tests/data/gmsh/README.md), and a hand-written file whose boundary element is no face.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/faces.hpp"
#include "tremor/io/gmsh.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

// Sum of int N_a n dA over the faces of `surface` (a pressure of -1): the vector area.
std::array<double, 3> vector_area(const Mesh& mesh, const std::vector<Face>& surface, double& area) {
  std::array<double, 3> sum{0.0, 0.0, 0.0};
  area = 0.0;
  const int dim = mesh.dim();
  for (const Face& face : surface) {
    const ElementRef ref = mesh.locate(face.element);
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
    int local[max_face_nodes];
    const int n = face_nodes(block.type, block.order, face.face, local);
    std::vector<double> x;
    for (int a = 0; a < n; ++a)
      for (double c : mesh.node(block.nodes(ref.element)[static_cast<std::size_t>(local[a])])) x.push_back(c);
    std::vector<double> forces;
    fem::pressure_forces(face_type(block.type), block.order, dim, x, -1.0, forces);
    for (std::size_t k = 0; k < forces.size(); ++k) sum[k % static_cast<std::size_t>(dim)] += forces[k];
    area += fem::face_area(face_type(block.type), block.order, dim, x);
  }
  return sum;
}

TEST(GmshSurfaces, BoundaryGroupsOfEveryElementTypeBecomeSurfaces) {
  struct Case {
    const char* file;
    const char* surface;
    std::size_t faces;  // 0: unstructured, count not asserted
    int axis;           // the outward normal is -axis
    double measure;
  };
  // Structured meshes have 2 cells per unit length: 4 edges on "left", 3 x 4 cell faces on
  // "bottom". The tetrahedral meshes are unstructured.
  const Case cases[] = {{"tri3", "left", 4, 0, 2.0},    {"tri6", "left", 4, 0, 2.0},    {"quad4", "left", 4, 0, 2.0},
                        {"quad8", "left", 4, 0, 2.0},   {"quad9", "left", 4, 0, 2.0},   {"tet4", "bottom", 0, 2, 3.0},
                        {"tet10", "bottom", 0, 2, 3.0}, {"hex8", "bottom", 12, 2, 3.0}, {"hex20", "bottom", 12, 2, 3.0},
                        {"hex27", "bottom", 12, 2, 3.0}};
  for (const Case& c : cases)
    for (const char* suffix : {"", "_bin"}) {
      const std::string name = std::string(c.file) + suffix + ".msh";
      const Mesh mesh = io::read_gmsh(test::data_path("gmsh/" + name));
      ASSERT_TRUE(mesh.face_sets.count(c.surface)) << name;
      const std::vector<Face>& surface = mesh.face_sets.at(c.surface);
      if (c.faces > 0) {
        EXPECT_EQ(surface.size(), c.faces) << name;
      }
      // The node sets are made as before: the surface's faces use exactly the group's nodes.
      std::vector<Index> used;
      for (const Face& face : surface) {
        const ElementRef ref = mesh.locate(face.element);
        const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
        int local[max_face_nodes];
        const int n = face_nodes(block.type, block.order, face.face, local);
        for (int a = 0; a < n; ++a) used.push_back(block.nodes(ref.element)[static_cast<std::size_t>(local[a])]);
      }
      normalise_set(used);
      EXPECT_EQ(used, mesh.node_sets.at(c.surface)) << name;
      double area = 0.0;
      const std::array<double, 3> normal = vector_area(mesh, surface, area);
      // Flat sides with straight edges: exact rules; Gmsh's placement noise is ~1e-12.
      EXPECT_NEAR(area, c.measure, 1e-9) << name;
      for (int d = 0; d < mesh.dim(); ++d)
        EXPECT_NEAR(normal[static_cast<std::size_t>(d)], d == c.axis ? -c.measure : 0.0, 1e-9) << name << " " << d;
    }
}

TEST(GmshSurfaces, HandWrittenBoundaryElementThatIsNoFace) {
  // "right" (line 3-6) is edge 1 of quad 2; "diagonal" (line 1-5) cuts quad 1 and is refused.
  const std::string path = test::data_path("gmsh/surface_not_a_face.msh");
  try {
    io::read_gmsh(path);
    FAIL() << "no error";
  } catch (const Error& error) {
    const std::string message = error.what();
    for (const std::string& part :
         {path + ":36:", std::string("element 4 (2-node line)"), std::string("physical group 'diagonal'"),
          std::string("not a face of any 2D element")})
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
  }
}

TEST(GmshSurfaces, HandWrittenEdgeMatchesItsElementFace) {
  // The same file without the diagonal group's element block.
  const std::string text = R"($MeshFormat
4.1 0 8
$EndMeshFormat
$PhysicalNames
2
1 1 "right"
2 3 "plate"
$EndPhysicalNames
$Entities
0 1 1 0
1 2 0 0 2 1 0 1 1 0
1 0 0 0 2 1 0 1 3 0
$EndEntities
$Nodes
1 6 1 6
2 1 0 6
1
2
3
4
5
6
0 0 0
1 0 0
2 0 0
0 1 0
1 1 0
2 1 0
$EndNodes
$Elements
2 3 1 3
1 1 1 1
3 6 3
2 1 3 2
1 1 2 5 4
2 2 3 6 5
$EndElements
)";
  const Mesh mesh = io::read_gmsh_buffer(text, "edge.msh");
  // Element 2 (global index 1), face 1 (its edge 12, nodes 3 and 6), whichever way the line runs.
  EXPECT_EQ(mesh.face_sets.at("right"), (std::vector<Face>{{1, 1}}));
  EXPECT_FALSE(mesh.face_sets.count("plate"));  // the mesh's own dimension makes element sets only
}

}  // namespace
}  // namespace tremor
