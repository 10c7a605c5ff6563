// Transducers ([[transducer]], model/transducer.hpp): a point force or a disc on the top surface,
// A0 (one side) or S0 (both sides, into the plate from each); what they become, and the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>

#include "support/support.hpp"
#include "tremor/io/model_file.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using test::error_of;
using test::expect_contains;

// A 20 x 20 x 2 mm plate of 1 mm hex8 cells, 2 through the thickness, raised to GLL order 2.
const std::string plate =
    "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\norigin = [-0.01, -0.01, 0.0]\nsize = [0.02, 0.02, 0.002]\n"
    "divisions = [20, 20, 2]\norder = 2\n"
    "[[material]]\nname = \"al\"\ndensity = 2700.0\nyoungs_modulus = 70e9\npoisson_ratio = 0.33\n"
    "[explicit]\nduration = 1e-6\n";
const std::string burst = "signal = { kind = \"tone_burst\", frequency = 2e5, cycles = 10 }\n";

Model with(const std::string& transducer) { return io::read_model_buffer(plate + "[[transducer]]\n" + transducer + burst, "m.toml", ""); }

TEST(Transducer, PointForcesPushIntoThePlate) {
  const Model a0 = with("name = \"pzt1\"\nposition = [0.0021, -0.0032]\namplitude = 10.0\n");
  ASSERT_EQ(a0.point_sources.size(), 1u);
  const PointSource& top = a0.point_sources.front();
  // The top node nearest (2.1, -3.2) mm on the 0.5 mm grid of GLL order 2: (2, -3) mm.
  ASSERT_EQ(top.nodes.size(), 1u);
  EXPECT_NEAR(a0.mesh.node(top.nodes[0])[0], 0.002, 1e-12);
  EXPECT_NEAR(a0.mesh.node(top.nodes[0])[1], -0.003, 1e-12);
  EXPECT_NEAR(a0.mesh.node(top.nodes[0])[2], 0.002, 1e-12);
  EXPECT_EQ(top.direction, (std::array<double, 3>{0.0, 0.0, -1.0}));
  EXPECT_EQ(top.amplitude, 10.0);
  EXPECT_EQ(top.signal.cycles, 10.0);
  ASSERT_EQ(a0.transducers.size(), 1u);
  EXPECT_EQ(a0.transducers[0].name, "pzt1");

  const Model s0 = with("position = [0.0021, -0.0032]\nmode = \"S0\"\namplitude = 10.0\n");
  ASSERT_EQ(s0.point_sources.size(), 2u);
  const PointSource& bottom = s0.point_sources[1];
  EXPECT_EQ(s0.mesh.node(bottom.nodes[0])[0], s0.mesh.node(s0.point_sources[0].nodes[0])[0]);
  EXPECT_EQ(s0.mesh.node(bottom.nodes[0])[1], s0.mesh.node(s0.point_sources[0].nodes[0])[1]);
  EXPECT_NEAR(s0.mesh.node(bottom.nodes[0])[2], 0.0, 1e-15);
  EXPECT_EQ(bottom.direction, (std::array<double, 3>{0.0, 0.0, 1.0}));  // up into the plate
}

// A disc: the top faces whose centres lie within the radius, at the pressure that makes the force.
TEST(Transducer, DiscsSpreadTheForceOverTheirFaces) {
  const Model a0 = with("position = [0.0, 0.0]\nradius = 0.003\namplitude = 10.0\n");
  ASSERT_EQ(a0.surface_loads.size(), 1u);
  const SurfaceLoad& load = a0.surface_loads.front();
  // 1 mm faces centred at (i + 0.5, j + 0.5) mm within 3 mm of the centre: 8 a quadrant.
  EXPECT_EQ(load.faces.size(), 32u);
  ASSERT_TRUE(load.pressure);
  EXPECT_NEAR(*load.pressure * 32e-6, 10.0, 1e-9);
  EXPECT_NEAR(a0.transducers[0].area, 32e-6, 1e-18);
  const Model s0 = with("position = [0.0, 0.0]\nradius = 0.003\namplitude = 10.0\nmode = \"S0\"\n");
  ASSERT_EQ(s0.surface_loads.size(), 2u);
  EXPECT_EQ(s0.surface_loads[1].surface, "zmin");
  EXPECT_EQ(*s0.surface_loads[1].pressure, *s0.surface_loads[0].pressure);  // into the plate on both sides
}

TEST(Transducer, RefusesWhatItCannotPlace) {
  const auto fails = [&](const std::string& t) { return error_of([&] { (void)with(t); }); };
  expect_contains(fails("position = [0.05, 0.0]\n"), {"m.toml:", "transducer", "is not over surface 'zmax'"});
  expect_contains(fails("position = [0.0, 0.0]\nradius = 0.0001\n"),
                  {"no face of surface 'zmax' has its centre within its radius 0.0001 m"});
  expect_contains(fails("position = [0.0, 0.0]\nsurface = \"xmax\"\n"), {"surface 'xmax' does not face up or down"});
  expect_contains(fails("position = [0.0, 0.0]\nmode = \"A1\"\n"), {"unknown mode 'A1'", "\"A0\", \"S0\" or \"piston\""});
  expect_contains(fails("position = [0.0, 0.0]\nsurface = \"top\"\n"), {"the mesh has no surface 'top'"});
  expect_contains(fails("radius = 0.001\n"), {"missing 'position'"});
}

}  // namespace
}  // namespace tremor
