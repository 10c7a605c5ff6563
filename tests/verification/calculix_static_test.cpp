// The same Abaqus/CalculiX *STATIC deck solved by CalculiX (ccx, direct solver) and by `tremor`'s
// static solver: every nodal displacement agrees to 1e-6 of the largest, on C3D8 and C3D20
// meshes.
//
// The deck: a steel bar clamped at x = 0 (*BOUNDARY 1-3), a *CLOAD at its tip nodes, a *DLOAD
// pressure P5/P4 on the top face (y = max) of the elements there, gravity (*DLOAD GRAV) on all
// elements and a prescribed non-zero displacement of one tip node. What makes the two agree to
// rounding: both integrate C3D8 with 2 x 2 x 2 and C3D20 with 3 x 3 x 3 Gauss points; both turn
// the pressure and gravity into consistent nodal forces; CalculiX solves directly (SPOOLES) and
// tremor by CG to a relative residual of 1e-10. CalculiX prints 7 significant
// digits (5e-7 relative), which sets the 1e-6.
// The test fails (it does not skip) when `ccx` is missing: scripts/setup installs it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "tremor/io/load.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/static/solve.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

namespace fs = std::filesystem;

void write_deck(const fs::path& path, const Mesh& mesh, const char* element_type) {
  std::ofstream out(path);
  out.precision(17);
  out << "*HEADING\nSteel bar, clamped, tip load, top pressure, gravity, static\n*NODE,NSET=NALL\n";
  for (Index n = 0; n < mesh.n_nodes(); ++n) {
    const auto x = mesh.node(n);
    out << mesh.node_labels[static_cast<std::size_t>(n)] << "," << x[0] << "," << x[1] << "," << x[2] << "\n";
  }
  const ElementBlock& block = mesh.blocks.at(0);
  out << "*ELEMENT,TYPE=" << element_type << ",ELSET=EALL\n";
  for (Index e = 0; e < block.n_elements(); ++e) {
    out << mesh.element_label(e);
    int count = 1;
    for (Index node : block.nodes(e))
      // Abaqus data lines hold at most 16 entries; a line ending in a comma continues.
      out << (count++ % 16 == 0 ? ",\n" : ",") << mesh.node_labels[static_cast<std::size_t>(node)];
    out << "\n";
  }
  const auto node_set = [&](const char* name, const std::vector<Index>& nodes) {
    out << "*NSET,NSET=" << name << "\n";
    for (Index n : nodes) out << mesh.node_labels[static_cast<std::size_t>(n)] << ",\n";
  };
  node_set("CLAMP", mesh.node_sets.at("xmin"));
  node_set("TIP", mesh.node_sets.at("xmax"));
  out << "*MATERIAL,NAME=STEEL\n*ELASTIC\n210.e9,0.3\n*DENSITY\n7850.\n"
      << "*SOLID SECTION,ELSET=EALL,MATERIAL=STEEL\n"
      << "*BOUNDARY\nCLAMP,1,3\n"
      << mesh.node_labels[static_cast<std::size_t>(mesh.node_sets.at("xmax").front())] << ",1,1,2.e-6\n"
      << "*STEP\n*STATIC\n"
      << "*CLOAD\nTIP,2,-50.\nTIP,3,20.\n"
      << "*DLOAD\n";
  for (const Face& face : mesh.face_sets.at("ymax"))
    out << mesh.element_label(face.element) << ",P" << face.face + 1 << ",2.e5\n";
  out << "EALL,GRAV,9.81,0.,-0.6,-0.8\n"
      << "*NODE PRINT,NSET=NALL\nU\n*END STEP\n";
}

// CalculiX's .dat: " displacements (vx,vy,vz) for set NALL and time ..." then "node ux uy uz".
std::map<Label, std::array<double, 3>> read_dat(const fs::path& path) {
  std::ifstream in(path);
  std::map<Label, std::array<double, 3>> result;
  std::string line;
  bool in_block = false;
  while (std::getline(in, line)) {
    if (line.find("displacements") != std::string::npos) {
      in_block = true;
      continue;
    }
    std::istringstream fields(line);
    long long node = 0;
    std::array<double, 3> u{};
    if (in_block && fields >> node >> u[0] >> u[1] >> u[2]) result[node] = u;
  }
  return result;
}

void compare(ElementType type, const char* element_type, std::array<Size, 3> cells) {
  if (std::system("command -v ccx > /dev/null 2>&1") != 0)
    FAIL() << "ccx (CalculiX, Debian package calculix-ccx) is not on the PATH; scripts/setup installs it";
  const fs::path dir = fs::temp_directory_path() / ("tremor_ccx_static_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const Mesh mesh = generate_box({0.0, 0.0, 0.0}, {0.5, 0.05, 0.04}, cells, type);
  write_deck(dir / "bar.inp", mesh, element_type);
  const std::string command = "cd '" + dir.string() + "' && OMP_NUM_THREADS=1 ccx -i bar > ccx.log 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command << " failed; see " << (dir / "ccx.log");
  const auto calculix = read_dat(dir / "bar.dat");
  ASSERT_EQ(calculix.size(), static_cast<std::size_t>(mesh.n_nodes())) << "nodes in " << (dir / "bar.dat");

  const Model model = io::load_model((dir / "bar.inp").string());
  ASSERT_TRUE(model.static_settings.has_value());
  static_fe::SolveOptions options;
  options.backend = Backend::OpenMP;
  options.tolerance = 1e-10;  // see the header; this slender bar's rounding floor is near 6e-11
  const static_fe::StaticResult result = static_fe::solve_static(model, options);
  ASSERT_TRUE(result.cg.converged()) << result.cg.report;
  double largest = 0.0, worst = 0.0;
  for (const auto& [label, u] : calculix)
    for (double value : u) largest = std::max(largest, std::abs(value));
  for (Index n = 0; n < model.mesh.n_nodes(); ++n) {
    const auto& theirs = calculix.at(model.mesh.node_labels[static_cast<std::size_t>(n)]);
    for (int c = 0; c < 3; ++c)
      worst = std::max(worst, std::abs(result.displacement[static_cast<std::size_t>(n * 3 + c)] -
                                       theirs[static_cast<std::size_t>(c)]));
  }
  std::printf("%s: %lld nodes, largest |u| %.6e m, largest difference tremor - CalculiX %.3e of it (%d CG iterations)\n",
              element_type, static_cast<long long>(mesh.n_nodes()), largest, worst / largest, result.cg.iterations);
  EXPECT_GT(largest, 0.0);
  EXPECT_LT(worst, 1e-6 * largest);
  fs::remove_all(dir);
}

TEST(CalculixStatic, C3D8SameDisplacements) { compare(ElementType::Hex8, "C3D8", {20, 3, 2}); }
TEST(CalculixStatic, C3D20SameDisplacements) { compare(ElementType::Hex20, "C3D20", {10, 2, 2}); }

}  // namespace
}  // namespace tremor
