// The faces where fluid sections meet solid ones (fem/coupling.hpp): found on every element type,
// their coupling integrals summing to the interface's vector area out of the solid, and the
// meetings refused (a corner only, a non-conforming face, 2D sections of different thickness).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "explicit_test_models.hpp"
#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/coupling.hpp"
#include "tremor/mesh/generate.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using test::add_water_and_steel;
using test::water_on_steel;

std::string error_of(const Model& model) {
  try {
    (void)fem::fluid_solid_interface(model);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

// A 2 x 2 (x 2) block cut at 1 along its last axis: the interface is a 2 x 2 square (3D) or a line
// of length 2 (2D, times the thickness 0.5), its normal out of the steel +z (+y). Summed over the
// faces, sum_ab C_ab is that vector area (the rule exact: round-off only); every node of the faces
// lies on the plane; the faces are those region_interface finds.
TEST(FemCoupling, TheInterfaceOfWaterOnSteelOnEveryElementType) {
  const struct {
    ElementType type;
    int order;
    std::size_t faces;
  } cases[] = {{ElementType::Quad4, 1, 2},   {ElementType::Quad8, 2, 2},  {ElementType::Tri3, 1, 2},
               {ElementType::Tri6, 2, 2},    {ElementType::QuadGLL, 4, 2}, {ElementType::Hex8, 1, 4},
               {ElementType::Hex20, 2, 4},   {ElementType::Tet4, 1, 8},   {ElementType::Tet10, 2, 8},
               {ElementType::HexGLL, 3, 4}};
  for (const auto& c : cases) {
    SCOPED_TRACE(element_name(c.type, c.order));
    const int dim = dimension(c.type);
    const Mesh mesh = dim == 2 ? generate_rectangle({0.0, 0.0}, {2.0, 2.0}, {2, 2}, c.type, c.order)
                               : generate_box({0.0, 0.0, 0.0}, {2.0, 2.0, 2.0}, {2, 2, 2}, c.type, c.order);
    const double thickness = dim == 2 ? 0.5 : 1.0;
    const Model model = water_on_steel(mesh, thickness, thickness);
    const fem::FluidSolidInterface interface = fem::fluid_solid_interface(model);
    ASSERT_EQ(interface.faces.size(), c.faces);
    const std::vector<bool> fluid = fem::fluid_elements(model);
    double total[3] = {0.0, 0.0, 0.0};
    for (const fem::CouplingFace& face : interface.faces) {
      EXPECT_TRUE(fluid[static_cast<std::size_t>(face.fluid.element)]);
      EXPECT_FALSE(fluid[static_cast<std::size_t>(face.solid.element)]);
      const auto n = static_cast<int>(face.nodes.size());
      ASSERT_EQ(face.C.size(), static_cast<std::size_t>(n * n * dim));
      for (int k = 0; k < n * n; ++k)
        for (int d = 0; d < dim; ++d) total[d] += face.C[static_cast<std::size_t>(k * dim + d)];
    }
    const double area = dim == 2 ? 2.0 * thickness : 4.0;
    for (int d = 0; d < dim; ++d) EXPECT_NEAR(total[d], d == dim - 1 ? area : 0.0, 1e-13) << d;
    for (const Index node : interface.nodes())
      EXPECT_NEAR(model.mesh.node(node)[static_cast<std::size_t>(dim - 1)], 1.0, 1e-12);
  }
}

// A solid-only model has no interface; a fluid-only one neither.
TEST(FemCoupling, NoInterfaceWithoutBothKinds) {
  Model model = water_on_steel(generate_rectangle({0.0, 0.0}, {2.0, 2.0}, {2, 2}, ElementType::Quad4));
  model.sections[1].material = "steel";
  EXPECT_TRUE(fem::fluid_solid_interface(model).faces.empty());
  model.sections[0].material = model.sections[1].material = "water";
  EXPECT_TRUE(fem::fluid_solid_interface(model).faces.empty());
}

// Two quadrilaterals sharing one corner: refused, naming both elements and the node (labels).
TEST(FemCoupling, ACornerWithoutAFaceIsRefused) {
  Model model;
  model.source = "m.toml";
  model.mesh = Mesh(2);
  const double xy[7][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {2, 1}, {2, 2}, {1, 2}};
  for (int i = 0; i < 7; ++i) model.mesh.add_node(i + 1, xy[i]);
  ElementBlock& block = model.mesh.block_for(ElementType::Quad4);
  block.connectivity = {0, 1, 2, 3, 2, 4, 5, 6};
  block.labels = {11, 12};
  model.mesh.element_sets["steel"] = {0};
  model.mesh.element_sets["water"] = {1};
  add_water_and_steel(model);
  const std::string e = error_of(model);
  EXPECT_NE(e.find("m.toml: fluid element 12 and solid element 11 share node 3 but no face (1 such node)"),
            std::string::npos)
      << e;
}

// A quad4 of water beside a quad8 of steel, on the same corners: a line2 face against a line3.
TEST(FemCoupling, ANonConformingFaceIsRefused) {
  Model model;
  model.source = "m.toml";
  model.mesh = Mesh(2);
  const double xy[9][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {2, 0}, {2, 1}, {1.5, 0}, {2, 0.5}, {1.5, 1}};
  for (int i = 0; i < 9; ++i) model.mesh.add_node(i + 1, xy[i]);
  ElementBlock& quad4 = model.mesh.block_for(ElementType::Quad4);
  quad4.connectivity = {0, 1, 2, 3};
  quad4.labels = {1};
  ElementBlock& quad8 = model.mesh.block_for(ElementType::Quad8, 2);
  // corners (1,0) (2,0) (2,1) (1,1), then the mid-edge nodes; the edge x = 1 has no middle node.
  const Index x1 = model.mesh.add_node(10, std::vector<double>{1.0, 0.5});
  quad8.connectivity = {1, 4, 5, 2, 6, 7, 8, x1};
  quad8.labels = {2};
  model.mesh.element_sets["water"] = {0};
  model.mesh.element_sets["steel"] = {1};
  add_water_and_steel(model);
  const std::string e = error_of(model);
  EXPECT_NE(e.find("m.toml: fluid element 1 (face 2, a line2) and solid element 2 (face 4, a line3) share the "
                   "corners of a face but not all its nodes: a non-conforming interface"),
            std::string::npos)
      << e;
}

TEST(FemCoupling, SectionsOfDifferentThicknessAreRefused) {
  const Model model =
      water_on_steel(generate_rectangle({0.0, 0.0}, {2.0, 2.0}, {2, 2}, ElementType::Quad4), 1.0, 0.5);
  const std::string e = error_of(model);
  EXPECT_NE(e.find("the fluid section on 'water' (thickness 0.5 m) meets the solid section on 'steel' (thickness 1 m)"),
            std::string::npos)
      << e;
}

// The solid of water on steel: the steel's elements in their order, every node, the sets
// renumbered; the fluid's section gone. Loads and history outputs on the water alone are refused;
// receivers there are the fluid's.
TEST(FemCoupling, TheSolidPartDropsTheFluidElements) {
  Model model = water_on_steel(generate_rectangle({0.0, 0.0}, {2.0, 2.0}, {2, 4}, ElementType::Quad4));
  model.mesh.element_sets["top row"] = {6, 7};
  model.mesh.element_sets["middle"] = {2, 3, 4, 5};
  model.mesh.face_sets["faces"] = {{1, 0}, {6, 2}};
  model.validate();
  const Model solid = fem::solid_part(model);
  EXPECT_EQ(solid.mesh.n_nodes(), model.mesh.n_nodes());
  ASSERT_EQ(solid.mesh.n_elements(), 4);
  for (Index e = 0; e < 4; ++e) {
    const auto a = solid.mesh.blocks[0].nodes(e), b = model.mesh.blocks[0].nodes(e);
    EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin())) << e;
  }
  EXPECT_EQ(solid.mesh.element_sets.at("steel"), (std::vector<Index>{0, 1, 2, 3}));
  EXPECT_TRUE(solid.mesh.element_sets.at("water").empty());
  EXPECT_TRUE(solid.mesh.element_sets.at("top row").empty());
  EXPECT_EQ(solid.mesh.element_sets.at("middle"), (std::vector<Index>{2, 3}));
  EXPECT_EQ(solid.mesh.face_sets.at("faces"), (std::vector<Face>{{1, 0}}));
  ASSERT_EQ(solid.sections.size(), 1u);
  EXPECT_EQ(solid.sections[0].material, "steel");
  EXPECT_FALSE(solid.has_fluids());
  EXPECT_NO_THROW(solid.validate());
  // Node 14 (x = 2, y = 2: the top right corner) only the water holds.
  const auto refused = [&](auto&& change, const std::vector<std::string>& pieces) {
    Model changed = model;
    change(changed);
    try {
      (void)fem::solid_part(changed);
      ADD_FAILURE() << "no error";
    } catch (const Error& error) {
      test::expect_contains(error.what(), pieces);
    }
  };
  refused(
      [](Model& m) {
        SurfaceLoad load;
        load.faces = {{6, 0}};
        load.pressure = 1.0;
        load.origin = "m.toml:9";
        m.surface_loads.push_back(load);
      },
      {"m.toml:9: the surface load acts on 1 faces of fluid elements"});
  refused(
      [](Model& m) {
        PointSource source;
        source.nodes = {14};
        source.direction = {1.0, 0.0, 0.0};
        source.origin = "m.toml:12";
        m.point_sources.push_back(source);
      },
      {"m.toml:12: a point force on node 15, which only fluid elements hold"});
  refused([](Model& m) { m.histories.push_back({"tip", {14}, {"U"}, 1, 0.0}); },
          {"m.toml: the history output 'tip' records node 15, which only fluid elements hold"});
  // A receiver there (of motion, or of pressure) is the fluid's: left out of the solid.
  Model with_receivers = model;
  Receiver receiver;
  receiver.name = "r";
  receiver.nodes = {14};
  with_receivers.receivers = {receiver, receiver};
  with_receivers.receivers[1].name = "p";
  with_receivers.receivers[1].displacement = false;
  with_receivers.receivers[1].pressure = true;
  EXPECT_TRUE(fem::solid_part(with_receivers).receivers.empty());
}

}  // namespace
}  // namespace tremor
