// A material field at the GLL points (fem/point_materials.hpp): GLL elements of order 2 and more
// take the field at each node, the sem operator's moduli and every operator's lumped mass, where
// the others take each element's centre. The references here are written from the field's samples
// and the GLL rule directly, not through the code under test: a constant strain's energy u^T K u
// is the GLL sum of lambda tr(eps)^2 + 2 mu eps:eps over the points, the lumped mass the GLL sum
// of the density; both differ from the centre sampling's by far more than their tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/polynomials.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/point_materials.hpp"
#include "tremor/fem/time_step.hpp"
#include "tremor/operator/spectrum.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/model/material_field.hpp"
#include "tremor/sem/operator.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/sparse/two_kernel.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

namespace fs = std::filesystem;

struct Folder {
  fs::path path;
  explicit Folder(const std::string& name) : path(fs::temp_directory_path() / ("tremor_points_" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() { fs::remove_all(path); }
};

// Speeds and density that vary within an element (a wavelength of 6 mm over elements of 5 mm),
// given on a grid of 1 mm over the 10 mm cube: the grid's trilinear interpolant is what every
// point takes.
std::array<double, 3> wavy(double x, double y, double z) {
  const double vp = 5900.0 + 600.0 * std::sin(1047.0 * x) * std::cos(700.0 * y) + 300.0 * z / 0.01;
  return {vp, vp * (0.52 + 0.04 * std::cos(900.0 * z)), 7800.0 + 400.0 * std::sin(800.0 * (x + y))};
}

std::string wavy_csv() {
  std::string text = "x,y,z,vp,vs,rho\n";
  for (int l = 0; l <= 10; ++l)
    for (int j = 0; j <= 10; ++j)
      for (int i = 0; i <= 10; ++i) {
        const double x = 0.001 * i, y = 0.001 * j, z = 0.001 * l;
        const auto v = wavy(x, y, z);
        text += str(x, ",", y, ",", z, ",", v[0], ",", v[1], ",", v[2], "\n");
      }
  return text;
}

// A 10 mm cube of 2 x 2 x 2 hexahedra raised to GLL order `order`, one material: `material`.
Model cube(const Folder& folder, const std::string& material, int order, const std::string& interpolation = "") {
  std::ofstream(folder.path / "wavy.csv") << wavy_csv();
  const std::string text = str(
      "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\nsize = [0.01, 0.01, 0.01]\ndivisions = [2, 2, 2]\norder = ",
      order, "\n[[material]]\nname = \"m\"\n", material, interpolation,
      "[[section]]\nelement_set = \"all\"\nmaterial = \"m\"\n");
  return io::read_model_buffer(text, (folder.path / "m.toml").string(), folder.path.string());
}

// lambda, mu, rho of a speeds sample.
std::array<double, 3> moduli(const FieldSample& s) {
  const double mu = s[2] * s[1] * s[1];
  return {s[2] * s[0] * s[0] - 2.0 * mu, mu, s[2]};
}

// The GLL sums over the cube's elements (affine, det J = (h/2)^3) of the energy density of the
// constant strain eps (symmetric) and of the density, the field sampled at `where(element, node)`.
template <class Where>
std::array<double, 2> gll_sums(const Model& model, int order, const double (&eps)[3][3], Where&& where) {
  const int n = order + 1;
  std::vector<double> points(static_cast<std::size_t>(n)), w(static_cast<std::size_t>(n));
  gauss_lobatto(n, points.data(), w.data());
  const double det = std::pow(0.005 / 2.0, 3);
  const MaterialField& field = *model.materials[0].field;
  double trace = eps[0][0] + eps[1][1] + eps[2][2], squares = 0.0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) squares += eps[i][j] * eps[i][j];
  double energy = 0.0, mass = 0.0;
  const ElementBlock& block = model.mesh.blocks[0];
  for (Index e = 0; e < block.n_elements(); ++e) {
    const auto nodes = block.nodes(e);
    for (int p = 0; p < n * n * n; ++p) {
      const double weight = w[static_cast<std::size_t>(p % n)] * w[static_cast<std::size_t>(p / n % n)] *
                            w[static_cast<std::size_t>(p / (n * n))] * det;
      double x[3];
      where(block, e, nodes[static_cast<std::size_t>(p)], x);
      const auto m = moduli(*field.sample(x));
      energy += weight * (m[0] * trace * trace + 2.0 * m[1] * squares);
      mass += weight * m[2];
    }
  }
  return {energy, mass};
}

// The cube's GLL sums with the field at each node (moved inward as the sampling does) and at each
// element's centre.
std::array<double, 2> sums_at_points(const Model& model, int order, const double (&eps)[3][3]) {
  return gll_sums(model, order, eps, [&](const ElementBlock& block, Index e, Index node, double* x) {
    double centre[3] = {0.0, 0.0, 0.0};
    for (const Index a : block.nodes(e))
      for (int k = 0; k < 3; ++k) centre[k] += model.mesh.node(a)[static_cast<std::size_t>(k)] / block.n_element_nodes();
    inward(model.mesh.node(node).data(), centre, 3, x);
  });
}
std::array<double, 2> sums_at_centres(const Model& model, int order, const double (&eps)[3][3]) {
  return gll_sums(model, order, eps, [&](const ElementBlock& block, Index e, Index, double* x) {
    for (int k = 0; k < 3; ++k) x[k] = 0.0;
    for (const Index a : block.nodes(e))
      for (int k = 0; k < 3; ++k) x[k] += model.mesh.node(a)[static_cast<std::size_t>(k)] / block.n_element_nodes();
  });
}

// u^T K u of the sem operator on `exec` and the lumped mass's total (one component's) for u = eps x.
template <class Real>
std::array<double, 2> operator_sums(const Model& model, const Exec& exec, const double (&eps)[3][3]) {
  const fem::SectionTable table = fem::section_table(model);
  const auto elements = std::make_shared<const fem::DeviceElements>(exec, model.mesh, table, fem::ElementColouring{});
  const sem::SemOperator<Real> K(elements, false);
  const Index n_nodes = model.mesh.n_nodes();
  std::vector<Real> u(static_cast<std::size_t>(n_nodes) * 3);
  for (Index a = 0; a < n_nodes; ++a)
    for (int i = 0; i < 3; ++i) {
      double sum = 0.0;
      for (int j = 0; j < 3; ++j) sum += eps[i][j] * model.mesh.node(a)[static_cast<std::size_t>(j)];
      u[static_cast<std::size_t>(a) * 3 + static_cast<std::size_t>(i)] = static_cast<Real>(sum);
    }
  const DeviceArray<Real> on(exec, std::span<const Real>(u));
  DeviceArray<Real> ku(exec, static_cast<Index>(u.size()));
  K.apply(on.view(), ku.view());
  const std::vector<Real> out = ku.to_host();
  double energy = 0.0;
  for (std::size_t k = 0; k < u.size(); ++k) energy += static_cast<double>(u[k]) * static_cast<double>(out[k]);
  const std::vector<double> mass = sparse::assemble_lumped_mass<double>(exec, *elements, sparse::RaceStrategy::Atomics).to_host();
  double total = 0.0;
  for (std::size_t k = 0; k < mass.size(); k += 3) total += mass[k];
  return {energy, total};
}

const double strain[3][3] = {{1e-4, 2e-5, -3e-5}, {2e-5, -5e-5, 4e-5}, {-3e-5, 4e-5, 7e-5}};

void expect_gll_sums(const Exec& exec) {
  const Folder folder("energy");
  for (const int order : {2, 4}) {
    const Model model = cube(folder, "field = \"wavy.csv\"\n", order);
    const auto points = sums_at_points(model, order, strain);
    const auto centres = sums_at_centres(model, order, strain);
    // The field varies within an element: the centre's values are off by about a percent.
    ASSERT_GT(std::abs(points[0] - centres[0]), 1e-3 * points[0]);
    ASSERT_GT(std::abs(points[1] - centres[1]), 1e-4 * points[1]);
    const auto sums = operator_sums<double>(model, exec, strain);
    // Double: the GLL sums in another order, and the field's values through lambda = rho c_p^2 - 2 mu
    // as the reference forms them; rounding of ~1e-15 per term.
    EXPECT_NEAR(sums[0], points[0], 1e-12 * points[0]) << "order " << order << " on " << exec.describe();
    EXPECT_NEAR(sums[1], points[1], 1e-12 * points[1]) << "order " << order << " on " << exec.describe();
    // Float: the moduli and u rounded to 24 bits, the sums of K u over ~1000 terms: 1e-5.
    const auto single = operator_sums<float>(model, exec, strain);
    EXPECT_NEAR(single[0], points[0], 1e-5 * points[0]) << "order " << order << " on " << exec.describe();
  }
}

TEST(PointMaterials, SemEnergyAndMassAreTheGllSumsOfTheFieldAtThePoints) {
  expect_gll_sums(Exec::serial());
  expect_gll_sums(Exec::openmp());
}

TEST(PointMaterials, SemEnergyAndMassAreTheGllSumsOfTheFieldAtThePointsOnAGpu) {
  TREMOR_REQUIRE_GPU();
  expect_gll_sums(Exec::cuda());
}

// A nearest field whose two layers meet on the element faces at z = 5 mm: every point, those on
// the interface too, takes its own element's layer, bit for bit the row's (each element's centre
// sample), so a layered field at the points is the layered field by elements.
TEST(PointMaterials, ANearestLayeredFieldKeepsEachElementsLayerAtItsFaces) {
  const Folder folder("layers");
  {
    std::ofstream csv(folder.path / "layers.csv");
    csv << "x,y,z,vp,vs,rho\n";
    for (const double z : {0.0025, 0.0075})
      for (const double y : {0.0, 0.01})
        for (const double x : {0.0, 0.01})
          csv << x << "," << y << "," << z << (z < 0.005 ? ",2600,1200,2100\n" : ",5800,3300,2650\n");
  }
  const std::string text =
      "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\nsize = [0.01, 0.01, 0.01]\ndivisions = [2, 2, 2]\norder = 3\n"
      "[[material]]\nname = \"m\"\nfield = \"layers.csv\"\nfield_interpolation = \"nearest\"\n"
      "[[section]]\nelement_set = \"all\"\nmaterial = \"m\"\n";
  // (the grid spans z 2.5 .. 7.5 mm: the elements' centres and the nodes moved inward, within 1e-9
  // of the grid's extent... it does not cover the faces at z = 0 and 10 mm: refused, naming a node)
  const std::string refused = test::error_of([&] {
    (void)fem::section_table(io::read_model_buffer(text, (folder.path / "m.toml").string(), folder.path.string()));
  });
  EXPECT_NE(refused.find("has its node"), std::string::npos) << refused;
  EXPECT_NE(refused.find("elements take the field at their nodes"), std::string::npos) << refused;
  EXPECT_NE(refused.find("the grid must cover the mesh"), std::string::npos) << refused;
  {
    std::ofstream csv(folder.path / "layers.csv");
    csv << "x,y,z,vp,vs,rho\n";
    for (const double z : {0.0, 0.0025, 0.0075, 0.01})
      for (const double y : {0.0, 0.01})
        for (const double x : {0.0, 0.01})
          csv << x << "," << y << "," << z << (z < 0.005 ? ",2600,1200,2100\n" : ",5800,3300,2650\n");
  }
  const Model model = io::read_model_buffer(text, (folder.path / "m.toml").string(), folder.path.string());
  const fem::SectionTable table = fem::section_table(model);
  ASSERT_EQ(table.fields.size(), 3u);  // the nominal row, and a row per layer
  const ElementBlock& block = model.mesh.blocks[0];
  const fem::PointMaterials points = fem::point_materials(table.fields, 3, model.mesh.coordinates, block.type,
                                                          block.order, block.connectivity, table.element_section);
  ASSERT_EQ(points.points, 64);
  for (Index e = 0; e < block.n_elements(); ++e) {
    const fem::RowField& row = table.fields[static_cast<std::size_t>(table.element_section[static_cast<std::size_t>(e)])];
    const double* v = points.of(e);
    for (int p = 0; p < 64; ++p) {
      ASSERT_EQ(v[p], row.lambda) << "element " << e << " point " << p;
      ASSERT_EQ(v[64 + p], row.mu) << "element " << e << " point " << p;
      ASSERT_EQ(v[128 + p], row.density) << "element " << e << " point " << p;
    }
  }
}

// Attenuating: each point's moduli are its sample's, made unrelaxed by its element's fit (the
// centre's Q); where the point's sample is the centre's, the row's unrelaxed moduli.
TEST(PointMaterials, AnAttenuatingFieldsPointsTakeTheirElementsUnrelaxedFactors) {
  const Folder folder("q");
  const Model model = cube(folder, "field = \"wavy.csv\"\nq_p = 60\nq_s = 30\nq_band = [1e5, 1e6]\n", 2);
  const fem::SectionTable table = fem::section_table(model);
  const ElementBlock& block = model.mesh.blocks[0];
  const fem::PointMaterials points = fem::point_materials(table.fields, 3, model.mesh.coordinates, block.type,
                                                          block.order, block.connectivity, table.element_section);
  ASSERT_FALSE(points.empty());
  const MaterialField& field = *model.materials[0].field;
  for (Index e = 0; e < block.n_elements(); ++e) {
    const fem::RowField& row = table.fields[static_cast<std::size_t>(table.element_section[static_cast<std::size_t>(e)])];
    ASSERT_GT(row.mu_factor, 1.0);  // the unrelaxed shear modulus exceeds the one at the reference frequency
    ASSERT_GT(row.kappa_factor, 1.0);
    double centre[3] = {0.0, 0.0, 0.0};
    for (const Index a : block.nodes(e))
      for (int k = 0; k < 3; ++k) centre[k] += model.mesh.node(a)[static_cast<std::size_t>(k)] / 27.0;
    for (int p = 0; p < 27; ++p) {
      double x[3];
      inward(model.mesh.node(block.nodes(e)[static_cast<std::size_t>(p)]).data(), centre, 3, x);
      const auto m = moduli(*field.sample(x));
      const double mu = m[1] * row.mu_factor, kappa = (m[0] + 2.0 / 3.0 * m[1]) * row.kappa_factor;
      // The same product in another order: a few ulp.
      EXPECT_NEAR(points.of(e)[27 + p], mu, 1e-14 * mu);
      EXPECT_NEAR(points.of(e)[p], kappa - 2.0 / 3.0 * mu, 1e-13 * kappa);
    }
  }
}

// The survey's bound on an element whose points take the field (point_bounds: its centre
// material's largest eigenvalue of M^-1 K times max(1, s) / m) holds the element's own, the sem
// operator's K of the points' moduli over the lumped mass of their density, and is not loose by
// more than the field's variation; the slowest wave is the points' slowest.
TEST(PointMaterials, TheSurveyBoundsAnElementByItsPoints) {
  const Folder folder("bounds");
  std::ofstream(folder.path / "wavy.csv") << wavy_csv();
  const std::string text =
      "[mesh]\ngenerator = \"box\"\nelement = \"hex8\"\nsize = [0.006, 0.006, 0.006]\ndivisions = [1, 1, 1]\n"
      "order = 3\n[[material]]\nname = \"m\"\nfield = \"wavy.csv\"\n"
      "[[section]]\nelement_set = \"all\"\nmaterial = \"m\"\n";
  const Model model = io::read_model_buffer(text, (folder.path / "m.toml").string(), folder.path.string());
  const fem::SectionTable table = fem::section_table(model);
  const ElementBlock& block = model.mesh.blocks[0];
  const fem::PointMaterials points = fem::point_materials(table.fields, 3, model.mesh.coordinates, block.type,
                                                          block.order, block.connectivity, table.element_section);
  const std::vector<fem::PointBound> bounds = fem::point_bounds(points, table.fields, table.element_section, 3);
  ASSERT_EQ(bounds.size(), 1u);
  const auto row = static_cast<std::size_t>(table.element_section[0]);
  std::vector<double> x(64 * 3);
  model.mesh.element_coordinates(block, 0, x.data());
  const double centre = fem::element_max_eigenvalue(block.type, block.order, x, std::span<const double>(table.D[row].data(), 36),
                                                    table.density[row], 1.0);
  const Exec exec = Exec::serial();
  const auto elements = std::make_shared<const fem::DeviceElements>(exec, model.mesh, table, fem::ElementColouring{});
  const sem::SemOperator<double> K(elements, false);
  const DeviceArray<double> mass = sparse::assemble_lumped_mass<double>(exec, *elements, sparse::RaceStrategy::Atomics);
  const double own = op::largest_eigenvalue(K, mass.data(), 1e-10).largest;
  std::printf("centre %.6g, own %.6g, bound %.6g (x %.4f)\n", centre, own, centre * bounds[0].scale, bounds[0].scale);
  EXPECT_GT(bounds[0].scale, 1.0);  // the field is stiffer or lighter than the centre somewhere
  EXPECT_LE(own, centre * bounds[0].scale * (1.0 + 1e-8));  // (the iteration's tolerance)
  EXPECT_GE(own, 0.5 * centre * bounds[0].scale);
  double slowest = INFINITY;
  for (int p = 0; p < 64; ++p) slowest = std::min(slowest, std::sqrt(points.of(0)[64 + p] / points.of(0)[128 + p]));
  EXPECT_EQ(bounds[0].slowest, slowest);
  EXPECT_LT(slowest, std::sqrt(table.D[row][21] / table.density[row]));  // slower than the centre's shear wave
}

}  // namespace
}  // namespace tremor
