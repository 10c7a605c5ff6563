// Material fields (model/material_field.hpp, io/material_field_file.hpp): sampling, the CSV and
// HDF5 readers, the rows each element reads, and the errors a bad grid or model gets.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/fem/time_step.hpp"
#include "tremor/io/abaqus.hpp"
#include "tremor/io/material_field_file.hpp"
#include "tremor/io/model_file.hpp"
#include "tremor/model/material_field.hpp"
#include "tremor/record/explicit_run.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

namespace fs = std::filesystem;

// A folder of its own per test, removed at the end.
struct Folder {
  fs::path path;
  explicit Folder(const std::string& name) : path(fs::temp_directory_path() / ("tremor_field_" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

// Speeds linear in x and y: c_p = 3000 + 1e5 x + 2e4 y, c_s = c_p / 2, rho = 2000 + 1e4 y.
std::array<double, 3> linear_speeds(double x, double y) {
  const double vp = 3000.0 + 1e5 * x + 2e4 * y;
  return {vp, vp / 2.0, 2000.0 + 1e4 * y};
}

// The CSV of linear_speeds on x = 0, 0.005, ..., 0.02 and y = 0, 0.005, 0.01, rows in reverse order.
std::string linear_csv() {
  std::string text = "# a linear field\nvs, x, y, vp, rho\n";
  for (int j = 2; j >= 0; --j)
    for (int i = 4; i >= 0; --i) {
      const double x = 0.005 * i, y = 0.005 * j;
      const auto v = linear_speeds(x, y);
      text += str(v[1], ", ", x, ", ", y, ", ", v[0], ", ", v[2], "\n");
    }
  return text;
}

// A 20 x 10 mm plate of 0.5 mm quad4 cells whose one material is `material`'s lines.
std::string plate(const std::string& material, int order = 1) {
  return str("[mesh]\ngenerator = \"rectangle\"\nelement = \"quad4\"\nsize = [0.02, 0.01]\ndivisions = [40, 20]\n",
             order > 1 ? str("order = ", order, "\n") : std::string(), "[[material]]\nname = \"rock\"\n", material,
             "[[section]]\nelement_set = \"all\"\nmaterial = \"rock\"\nformulation = \"plane_strain\"\n");
}

Model parse(const Folder& folder, const std::string& text) {
  return io::read_model_buffer(text, (folder.path / "m.toml").string(), folder.path.string());
}

std::string error_of(const Folder& folder, const std::string& text) {
  try {
    (void)parse(folder, text);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

TEST(MaterialField, LinearSamplingIsExactForALinearFieldAndNearestTakesAGridPoint) {
  Folder folder("linear");
  const auto field = io::read_material_field(folder.write("f.csv", linear_csv()), 2);
  EXPECT_EQ(field->properties, FieldProperties::Speeds);
  EXPECT_EQ(field->names[0], "vp");
  ASSERT_EQ(field->axes[0].size(), 5u);
  ASSERT_EQ(field->axes[1].size(), 3u);
  for (const auto& x : {std::array<double, 2>{0.0013, 0.0071}, {0.02, 0.01}, {0.0, 0.0}, {0.0174, 0.0025}}) {
    const auto got = field->sample(x.data());
    ASSERT_TRUE(got);
    const auto want = linear_speeds(x[0], x[1]);
    // Bilinear interpolation reproduces a linear function to rounding (values ~1e3, three lerps).
    for (std::size_t m = 0; m < 3; ++m) EXPECT_NEAR((*got)[m], want[m], 1e-9 * want[m]) << m;
  }
  // Outside beyond the tolerance (1e-9 of the extent): nothing; on the edge within it: sampled.
  const double beyond[2] = {0.02 + 1e-6, 0.005}, within[2] = {0.02 + 1e-12, 0.005};
  EXPECT_FALSE(field->sample(beyond));
  EXPECT_TRUE(field->sample(within));
  MaterialField nearest = *field;
  nearest.interpolation = FieldInterpolation::Nearest;
  // x 7.6 mm is nearer 10 mm than 5 mm (2.4 against 2.6 mm); y 2.4 mm nearer 0 than 5 mm.
  const double near_point[2] = {0.0076, 0.0024};
  const auto got = nearest.sample(near_point);
  ASSERT_TRUE(got);
  const auto want = linear_speeds(0.01, 0.0);
  for (std::size_t m = 0; m < 3; ++m) EXPECT_EQ((*got)[m], want[m]) << m;
  EXPECT_DOUBLE_EQ(field->min_wave_speed(), linear_speeds(0.0, 0.0)[1]);
  EXPECT_DOUBLE_EQ(field->max_wave_speed(), linear_speeds(0.02, 0.01)[0]);
}

TEST(MaterialField, EachElementTakesTheFieldAtItsCentre) {
  Folder folder("centres");
  folder.write("f.csv", linear_csv());
  const Model model = parse(folder, plate("field = \"f.csv\"\n"));
  ASSERT_TRUE(model.materials[0].field);
  EXPECT_EQ(model.inputs.back(), (folder.path / "f.csv").string());
  const ElementMaterials materials = element_materials(model);
  ASSERT_TRUE(materials.any_field);
  // Every element's centre has its own c_p (linear in x and y): a row each, beyond the section's.
  EXPECT_EQ(materials.rows.size(), 1u + 800u);
  for (const Index e : {Index(0), Index(17), Index(799)}) {
    const Index i = e % 40, j = e / 40;
    const auto want = linear_speeds(0.0005 * (static_cast<double>(i) + 0.5), 0.0005 * (static_cast<double>(j) + 0.5));
    const Material& m = *materials.of(e);
    EXPECT_NEAR(m.density, want[2], 1e-9 * want[2]);
    EXPECT_NEAR(m.max_wave_speed(), want[0], 1e-9 * want[0]);
    EXPECT_NEAR(m.min_wave_speed(), want[1], 1e-9 * want[1]);
  }
  // The section table (every kernel's material) holds the same rows.
  const fem::SectionTable table = fem::section_table(model);
  ASSERT_EQ(table.D.size(), materials.rows.size());
  EXPECT_EQ(table.element_section, materials.element_row);
  const std::size_t row = static_cast<std::size_t>(materials.element_row[17]);
  EXPECT_EQ(table.density[row], materials.rows[row].density);
  EXPECT_EQ(table.D[row][8], materials.rows[row].c(5, 5));  // mu, the plane xy entry
}

// The model's hash (what --resume compares) takes the field file's bytes: a grid changed between a
// run and its resume is another model, whatever the model file says; the same bytes elsewhere the same.
TEST(MaterialField, TheModelsHashTakesItsFieldFile) {
  Folder folder("hash");
  folder.write("f.csv", linear_csv());
  const std::string text = plate("field = \"f.csv\"\n");
  const std::string path = folder.write("m.toml", text);
  const std::string before = record::model_file_hash(path, parse(folder, text));
  EXPECT_EQ(record::model_file_hash(path, parse(folder, text)), before);
  std::string changed = linear_csv();
  changed.back() = ' ';  // the last row's density ends in a space instead of its newline: same values
  folder.write("f.csv", changed + "\n");
  EXPECT_NE(record::model_file_hash(path, parse(folder, text)), before);
  Folder moved("hash_moved");  // the same files in another folder
  moved.write("f.csv", linear_csv());
  EXPECT_EQ(record::model_file_hash(moved.write("m.toml", text), parse(moved, text)), before);
}

// The stable step of a field is the step of its fastest element: the same model with the fast
// corner's material as its only one has the same step (the step is set where c_p / h is largest).
TEST(MaterialField, TheStableStepFollowsTheLocalSpeeds) {
  Folder folder("step");
  folder.write("f.csv", linear_csv());
  const Model field = parse(folder, plate("field = \"f.csv\"\n"));
  const fem::TimeStepEstimate step = fem::stable_time_step(field);
  // The fastest element is the corner at (19.75, 9.75) mm, the last.
  EXPECT_EQ(step.element, 799);
  const auto v = linear_speeds(0.01975, 0.00975);
  const Model uniform = parse(folder, plate(str("density = ", v[2], "\np_wave_speed = ", v[0], "\ns_wave_speed = ", v[1],
                                                "\n")));
  // The same element and material: equal to rounding of the speeds' conversion (c -> lambda, mu).
  EXPECT_NEAR(step.dt, fem::stable_time_step(uniform).dt, 1e-12 * step.dt);
}

TEST(MaterialField, NearestKeepsALayeredFieldsUnitsSharp) {
  Folder folder("nearest");
  // Two layers, y < 5 mm slow and above fast, on a coarse grid: nearest gives two rows only.
  folder.write("f.csv",
               "x,y,vp,vs,rho\n0,0,2000,1000,1800\n0.02,0,2000,1000,1800\n0,0.0049,2000,1000,1800\n"
               "0.02,0.0049,2000,1000,1800\n0,0.0051,4000,2300,2500\n0.02,0.0051,4000,2300,2500\n"
               "0,0.01,4000,2300,2500\n0.02,0.01,4000,2300,2500\n");
  const Model model = parse(folder, plate("field = \"f.csv\"\nfield_interpolation = \"nearest\"\n"));
  const ElementMaterials materials = element_materials(model);
  ASSERT_EQ(materials.rows.size(), 3u);  // the nominal, the lower layer's and the upper layer's
  EXPECT_EQ(materials.of(0)->density, 1800.0);
  EXPECT_EQ(materials.of(799)->density, 2500.0);
  // Linear: centres 0.25 mm from the cell [4.9, 5.1] mm, so still two rows exactly.
  const Model linear = parse(folder, plate("field = \"f.csv\"\n"));
  EXPECT_EQ(element_materials(linear).rows.size(), 3u);
}

TEST(MaterialField, ReadsAnHdf5GridInNetcdfOrder) {
  Folder folder("hdf5");
  const std::string path = (folder.path / "f.h5").string();
  {
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const auto write = [&](const char* name, const std::vector<hsize_t>& dims, const std::vector<float>& values) {
      const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
      const hid_t set = H5Dcreate2(file, name, H5T_NATIVE_FLOAT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      H5Dwrite(set, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
      H5Dclose(set);
      H5Sclose(space);
    };
    // 3 x 2 x 2 points: (nz, ny, nx) = (2, 2, 3), float32 as a tomography model often is.
    write("x", {3}, {0.0f, 0.5f, 1.0f});
    write("y", {2}, {0.0f, 1.0f});
    write("z", {2}, {-1.0f, 0.0f});
    std::vector<float> vp, vs, rho;
    for (int l = 0; l < 2; ++l)
      for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 3; ++i) {
          vp.push_back(3000.0f + 1000.0f * static_cast<float>(i) + 100.0f * static_cast<float>(j) +
                       10.0f * static_cast<float>(l));
          vs.push_back(1500.0f);
          rho.push_back(2500.0f);
        }
    write("vp", {2, 2, 3}, vp);
    write("vs", {2, 2, 3}, vs);
    write("rho", {2, 2, 3}, rho);
    H5Fclose(file);
  }
  const auto field = io::read_material_field(path, 3);
  const double at[3] = {0.75, 0.5, -0.5};  // halfway in y and z, three quarters in x
  const auto got = field->sample(at);
  ASSERT_TRUE(got);
  // 3000 + 1000 * 1.5 + 100 * 0.5 + 10 * 0.5, exact in binary fractions.
  EXPECT_EQ((*got)[0], 4555.0);
  EXPECT_EQ(field->index(2, 1, 1), 11);
  // The same file for a 2D mesh: its z axis refused.
  try {
    (void)io::read_material_field(path, 2);
    ADD_FAILURE() << "a 3D grid read for a 2D mesh";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("has a z axis (a 3D grid) but the mesh is 2D"), std::string::npos)
        << error.what();
  }
}

// Element data: a value per element label (a CSV column or an HDF5 dataset `element`), each element
// its own, checked as a grid's points are.
TEST(MaterialField, ElementDataGiveEachElementItsOwn) {
  Folder folder("elements");
  const std::string mesh = "[mesh]\ngenerator = \"rectangle\"\nelement = \"quad4\"\nsize = [0.02, 0.01]\n"
                           "divisions = [2, 1]\n[[material]]\nname = \"rock\"\n";
  const std::string tail = "[[section]]\nelement_set = \"all\"\nmaterial = \"rock\"\nformulation = \"plane_strain\"\n";
  folder.write("e.csv", "element, vp, vs, rho\n2, 4000, 2000, 2500\n1, 3000, 1500, 2000\n");
  const Model model = parse(folder, mesh + "field = \"e.csv\"\n" + tail);
  ASSERT_TRUE(model.materials[0].field->by_element());
  const ElementMaterials rows = element_materials(model);
  ASSERT_EQ(rows.rows.size(), 3u);
  for (Index e = 0; e < 2; ++e) {
    const Material& m = *rows.of(e);
    const Label label = model.mesh.element_label(e);
    EXPECT_DOUBLE_EQ(m.density, label == 1 ? 2000.0 : 2500.0);
    EXPECT_NEAR(std::sqrt(m.mu() / m.density), label == 1 ? 1500.0 : 2000.0, 1e-9);
  }
  // HDF5: the same as datasets element, vp, vs, rho.
  const std::string path = (folder.path / "e.h5").string();
  {
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t two = 2;
    const hid_t space = H5Screate_simple(1, &two, nullptr);
    const std::int64_t labels[2] = {1, 2};
    hid_t set = H5Dcreate2(file, "element", H5T_NATIVE_INT64, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(set, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, labels);
    H5Dclose(set);
    for (const auto& [name, values] : {std::pair<const char*, std::array<double, 2>>{"vp", {3000.0, 4000.0}},
                                       {"vs", {1500.0, 2000.0}},
                                       {"rho", {2000.0, 2500.0}}}) {
      set = H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
      H5Dclose(set);
    }
    H5Sclose(space);
    H5Fclose(file);
  }
  const ElementMaterials from_h5 = element_materials(parse(folder, mesh + "field = \"e.h5\"\n" + tail));
  for (Index e = 0; e < 2; ++e) EXPECT_EQ(from_h5.of(e)->stiffness, rows.of(e)->stiffness);
  // Errors: an element twice, a label no element has, an element without values, a grid's key.
  const std::string f = (folder.path / "e.csv").string();
  folder.write("e.csv", "element, vp, vs, rho\n1, 3000, 1500, 2000\n1, 3000, 1500, 2000\n");
  EXPECT_NE(error_of(folder, mesh + "field = \"e.csv\"\n" + tail).find(f + ":3: element 1 again (also at line 2)"),
            std::string::npos);
  folder.write("e.csv", "element, vp, vs, rho\n1, 3000, 1500, 2000\n7, 3000, 1500, 2000\n");
  EXPECT_NE(error_of(folder, mesh + "field = \"e.csv\"\n" + tail).find("element 7 is not an element of the mesh"),
            std::string::npos);
  folder.write("e.csv", "element, vp, vs, rho\n1, 3000, 1500, 2000\n");
  try {
    (void)element_materials(parse(folder, mesh + "field = \"e.csv\"\n" + tail));
    ADD_FAILURE() << "an element without values";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("element 2 of the section on 'all' has no values in material 'rock''s "
                                             "element data"),
              std::string::npos)
        << error.what();
  }
  folder.write("e.csv", "element, vp, vs, rho\n1, 3000, 1500, 2000\n2, 2000, 1800, 2000\n");
  EXPECT_NE(error_of(folder, mesh + "field = \"e.csv\"\n" + tail).find("at element 2 must exceed 2/sqrt(3)"),
            std::string::npos);
  folder.write("e.csv", "element, vp, vs, rho\n1, 3000, 1500, 2000\n2, 3000, 1500, 2000\n");
  EXPECT_NE(error_of(folder, mesh + "field = \"e.csv\"\nfield_interpolation = \"nearest\"\n" + tail)
                .find("element data give each element its own values"),
            std::string::npos);
}

// Element data from a Gmsh file: $ElementData views named vp, vs and rho beside the mesh (the strip
// of tests/data/model: quads tagged 3 to 10), each element its own row.
TEST(MaterialField, GmshElementDataViewsGiveEachElementItsOwn) {
  Folder folder("gmsh_views");
  std::ifstream in(test::data_path("model/strip.msh"));
  std::string mesh((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto view = [](const char* name, double base, double step) {
    std::string text = str("$ElementData\n1\n\"", name, "\"\n1\n0.0\n3\n0\n1\n8\n");
    for (int tag = 3; tag <= 10; ++tag) text += str(tag, " ", base + step * tag, "\n");
    return text + "$EndElementData\n";
  };
  folder.write("s.msh", mesh + view("vp", 6000.0, 10.0) + view("vs", 3000.0, 0.0) + view("rho", 2700.0, 0.0));
  const std::string model_text = "[mesh]\nfile = \"s.msh\"\n[[material]]\nname = \"al\"\nfield = \"s.msh\"\n"
                                 "[[section]]\nelement_set = \"strip\"\nmaterial = \"al\"\n";
  const Model model = parse(folder, model_text);
  ASSERT_TRUE(model.materials[0].field->by_element());
  const ElementMaterials rows = element_materials(model);
  for (Index e = 0; e < model.mesh.n_elements(); ++e) {
    const Material* m = rows.of(e);
    ASSERT_NE(m, nullptr);
    const double vp = 6000.0 + 10.0 * static_cast<double>(model.mesh.element_label(e));
    EXPECT_NEAR(std::sqrt((m->lambda() + 2.0 * m->mu()) / m->density), vp, 1e-9 * vp) << e;
  }
  // A view short of its elements, a view of two components, and a binary file, by line.
  std::string short_view = view("rho", 2700.0, 0.0);
  short_view.replace(short_view.find("\n8\n"), 3, "\n9\n");
  folder.write("s.msh", mesh + view("vp", 6000.0, 10.0) + view("vs", 3000.0, 0.0) + short_view);
  EXPECT_NE(error_of(folder, model_text).find("view 'rho' ends after 8 of its 9 elements"), std::string::npos)
      << error_of(folder, model_text);
  std::string two = view("vs", 3000.0, 0.0);
  two.replace(two.find("\n0\n1\n8\n"), 7, "\n0\n2\n8\n");
  folder.write("s.msh", mesh + view("vp", 6000.0, 10.0) + two + view("rho", 2700.0, 0.0));
  EXPECT_NE(error_of(folder, model_text).find("view 'vs' has 2 components; a property takes one"), std::string::npos)
      << error_of(folder, model_text);
}

// Q_P and Q_S per point: each element's material attenuates with its centre's Q (interpolated as
// the properties are), the fit's settings from the material's keys.
TEST(MaterialField, QualityFactorsPerPointReachEachElement) {
  Folder folder("quality");
  folder.write("q.csv",
               "x,y,vp,vs,rho,q_p,q_s\n0,0,3000,1500,2000,40,20\n0.02,0,3000,1500,2000,80,60\n"
               "0,0.01,3000,1500,2000,40,20\n0.02,0.01,3000,1500,2000,80,60\n");
  const Model model = parse(folder, plate("field = \"q.csv\"\nq_solids = 2\nq_band = [1e5, 1e7]\n"));
  ASSERT_TRUE(model.materials[0].attenuation);
  const ElementMaterials materials = element_materials(model);
  // Element 17 of the first row: centre x = 8.75 mm, so Q_P = 40 + 40 x / 20 mm = 57.5, Q_S 20 + 40 x / 20 mm = 37.5.
  const Material& m = *materials.of(17);
  ASSERT_TRUE(m.attenuation);
  EXPECT_TRUE(m.attenuation->by_waves);
  EXPECT_NEAR(m.attenuation->q_p, 57.5, 1e-12);  // (a lerp of exact binary fractions: rounding)
  EXPECT_NEAR(m.attenuation->q_s, 37.5, 1e-12);
  EXPECT_EQ(m.attenuation->solids, 2);
  EXPECT_EQ(m.attenuation->band[1], 1e7);
  // The section table fits each row's solids: a row per element column, attenuating.
  const fem::SectionTable table = fem::section_table(model);
  EXPECT_TRUE(table.attenuates());
  EXPECT_EQ(table.solids[static_cast<std::size_t>(materials.element_row[17])].n, 2);

  const auto has = [](const std::string& message, const std::string& part) {
    return message.find(part) != std::string::npos;
  };
  std::string e = error_of(folder, plate("field = \"q.csv\"\nq_p = 50\nq_s = 25\n"));
  EXPECT_TRUE(has(e, "'q_p' and the field's q_p and q_s both given")) << e;
  folder.write("half.csv", "x,y,vp,vs,rho,q_p\n0,0,3000,1500,2000,40\n");
  e = error_of(folder, plate("field = \"half.csv\"\n"));
  EXPECT_TRUE(has(e, "half.csv:1") && has(e, "q_p without q_s")) << e;
  folder.write("low.csv", "x,y,vp,vs,rho,q_p,q_s\n0,0,3000,1500,2000,40,20\n0.02,0,3000,1500,2000,80,0.5\n"
                          "0,0.01,3000,1500,2000,40,20\n0.02,0.01,3000,1500,2000,80,60\n");
  e = error_of(folder, plate("field = \"low.csv\"\n"));
  EXPECT_TRUE(has(e, "'q_s' is 0.5 at grid point (i, j) = (1, 0)") && has(e, "expected a quality factor within (1, ")) << e;
}

// Bad grids and models: each error names the file and the line, dataset, grid point or element.
TEST(MaterialField, BadInputIsNamed) {
  Folder folder("errors");
  const auto read_error = [&](const std::string& text) {
    try {
      (void)io::read_material_field(folder.write("bad.csv", text), 2);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  const auto has = [](const std::string& message, const std::string& part) {
    return message.find(part) != std::string::npos;
  };
  std::string e = read_error("x,y,vp,vs,rho\n0,0,2000,1000,1800\n1,0,2000,1000,1800\n0,1,2000,1000,1800\n");
  EXPECT_TRUE(has(e, "3 rows for a grid of 4 points") && has(e, "no row for x = 1, y = 1")) << e;
  e = read_error("x,y,vp,vs,rho\n0,0,2000,1000,1800\n1,0,2000,1000,1800\n0,1,nan,1000,1800\n1,1,2000,1000,1800\n");
  EXPECT_TRUE(has(e, "'vp' is nan at grid point (i, j) = (0, 1) at (0, 1)")) << e;
  e = read_error("x,y,vp,vs,rho\n0,0,2000,1000,1800\n1,0,2000,1000,-1\n0,1,2000,1000,1800\n1,1,2000,1000,1800\n");
  EXPECT_TRUE(has(e, "'rho' is -1 at grid point (i, j) = (1, 0)") && has(e, "a density must be positive")) << e;
  // 3 c_p^2 = 1.2e7 below 4 c_s^2 = 1.296e7: no positive bulk modulus.
  e = read_error("x,y,vp,vs,rho\n0,0,2000,1800,1800\n1,0,2000,1000,1800\n0,1,2000,1000,1800\n1,1,2000,1000,1800\n");
  EXPECT_TRUE(has(e, "'vp' 2000 at grid point (i, j) = (0, 0) at (0, 0) must exceed 2/sqrt(3) times 'vs' 1800")) << e;
  e = read_error("x,y,vp,vs,rho\n0,0,2000,1000,1800\n1,0,2000,1000,1e31\n0,1,2000,1000,1800\n1,1,2000,1000,1800\n");
  EXPECT_TRUE(has(e, "at grid point (i, j) = (1, 0) at (1, 0): the density 1e+31 kg/m^3") &&
              has(e, "the magnitudes of a material")) << e;
  e = read_error("x,y,vp,vs,rho\n0,0,2000,1000,1800\n1,0,2000,1000,oops\n");
  EXPECT_TRUE(has(e, "bad.csv:3") && has(e, "column 'rho' holds 'oops'")) << e;
  e = read_error("x,y,vp,vs\n0,0,2000,1000\n");
  EXPECT_TRUE(has(e, "bad.csv:1") && has(e, "the field lacks density")) << e;
  e = read_error("x,y,vp,vs,rho,mu\n0,0,2000,1000,1800,1\n");
  EXPECT_TRUE(has(e, "both wave speeds and Lame moduli")) << e;
  e = read_error("x,y,vp,vs,rho\n0,0,2000,1000,1800\n1,0,2000,1000,1800\n0,1,2000,1000,1800\n1,1,2000,1000,1800\n"
                 "0,0,2000,1000,1800\n");
  EXPECT_TRUE(has(e, "bad.csv:6") && has(e, "the grid point of line 2 again")) << e;
  e = read_error("x,y,z,vp,vs,rho\n0,0,0,2000,1000,1800\n");
  EXPECT_TRUE(has(e, "a column 'z' (a 3D grid) but the mesh is 2D")) << e;

  // In a model file: the field and constants together; a grid short of the mesh.
  folder.write("half.csv", "x,y,vp,vs,rho\n0,0,2000,1000,1800\n0.01,0,2000,1000,1800\n0,0.01,2000,1000,1800\n"
                           "0.01,0.01,2000,1000,1800\n");
  e = error_of(folder, plate("field = \"half.csv\"\ndensity = 2000\n"));
  EXPECT_TRUE(has(e, "m.toml:") && has(e, "'density' and 'field' both given")) << e;
  e = error_of(folder, plate("field = \"half.csv\"\np_wave_speed = 2000\n"));
  EXPECT_TRUE(has(e, "'p_wave_speed' and 'field' both give")) << e;
  e = error_of(folder, plate("field = \"missing.csv\"\n"));
  EXPECT_TRUE(has(e, "material field 'missing.csv' not found")) << e;
  const Model short_grid = parse(folder, plate("field = \"half.csv\"\n"));
  try {
    (void)element_materials(short_grid);
    ADD_FAILURE() << "a grid short of the mesh";
  } catch (const Error& error) {
    e = error.what();
  }
  // Element 21 (label 21: the first of the row's right half) is centred at x = 10.25 mm.
  EXPECT_TRUE(has(e, "element 21 of the section on 'all' has its centre (0.01025, 0.00025) outside material 'rock''s "
                     "field") &&
              has(e, "x 0 .. 0.01 m (2 points), y 0 .. 0.01 m (2 points)") && has(e, "the grid must cover the mesh"))
      << e;
}

// Abaqus element data: *DISTRIBUTION TABLE and *DISTRIBUTION, LOCATION=ELEMENT, named by an
// isotropic *ELASTIC (MODULUS, POISSON) and *DENSITY instead of their values: each element its
// line's values (an element number or an element set), the others the defaults; lambda and mu
// from E and nu as Material::from_youngs forms them.
std::string three_bricks(const std::string& distributions, const std::string& elastic, const std::string& density) {
  std::string text = "*HEADING\nthree bricks in a row\n*NODE\n";
  int node = 1;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 4; ++i) text += str(node++, ", ", 0.001 * i, ", ", 0.001 * j, ", ", 0.001 * k, "\n");
  text += "*ELEMENT, TYPE=C3D8, ELSET=ALL\n";
  for (int e = 0; e < 3; ++e)
    text += str(10 + e, ", ", 1 + e, ", ", 2 + e, ", ", 6 + e, ", ", 5 + e, ", ", 9 + e, ", ", 10 + e, ", ", 14 + e, ", ",
                13 + e, "\n");
  text += "*ELSET, ELSET=LAST\n12\n" + distributions + "*MATERIAL, NAME=STEEL\n*ELASTIC\n" + elastic +
          "\n*DENSITY\n" + density + "\n*SOLID SECTION, ELSET=ALL, MATERIAL=STEEL\n";
  return text;
}

TEST(MaterialField, AbaqusDistributionsGiveEachElementItsOwn) {
  const std::string tables =
      "*DISTRIBUTION TABLE, NAME=ELASTIC_TABLE\nMODULUS, POISSON\n"
      "*DISTRIBUTION, NAME=MODULI, LOCATION=ELEMENT, TABLE=ELASTIC_TABLE\n, 200e9, 0.3\n11, 100e9, 0.25\nLAST, 300e9, 0.2\n"
      "*DISTRIBUTION TABLE, NAME=DENSITY_TABLE\nDENSITY\n"
      "*DISTRIBUTION, NAME=RHO, LOCATION=ELEMENT, TABLE=DENSITY_TABLE\n, 7800\n12, 2700\n";
  const Model model = io::read_abaqus_buffer(three_bricks(tables, "MODULI", "RHO"), "bricks.inp");
  const ElementMaterials materials = element_materials(model);
  const std::array<std::array<double, 3>, 3> expected{{{200e9, 0.3, 7800.0}, {100e9, 0.25, 7800.0}, {300e9, 0.2, 2700.0}}};
  for (Index e = 0; e < 3; ++e) {
    const Material& m = *materials.of(e);
    const auto k = static_cast<std::size_t>(e);
    const Material reference = Material::from_youngs("r", expected[k][0], expected[k][1], expected[k][2]);
    // lambda and mu from E and nu by the same formula in another order: a few ulp.
    EXPECT_NEAR(m.c(0, 1), reference.c(0, 1), 1e-14 * reference.c(0, 1)) << "element " << model.mesh.element_label(e);
    EXPECT_NEAR(m.c(3, 3), reference.c(3, 3), 1e-14 * reference.c(3, 3)) << "element " << model.mesh.element_label(e);
    EXPECT_EQ(m.density, expected[k][2]) << "element " << model.mesh.element_label(e);
  }
  // Only the density distributed: the elastic constants the material's own.
  const Model density_only = io::read_abaqus_buffer(three_bricks(tables, "200e9, 0.3", "RHO"), "bricks.inp");
  EXPECT_EQ(element_materials(density_only).of(2)->density, 2700.0);
  EXPECT_EQ(element_materials(density_only).of(1)->density, 7800.0);
  // Errors, each naming the line.
  const auto error = [&](const std::string& text) {
    return test::error_of([&] { (void)element_materials(io::read_abaqus_buffer(text, "bricks.inp")); });
  };
  const std::string none = error(three_bricks(tables, "MODULO", "RHO"));
  EXPECT_NE(none.find("names 'MODULO', which is no number and no *DISTRIBUTION"), std::string::npos) << none;
  const std::string wrong = error(three_bricks(tables, "RHO", "RHO"));
  EXPECT_NE(wrong.find("takes a *DISTRIBUTION of MODULUS, POISSON"), std::string::npos) << wrong;
  const std::string nodal = error(three_bricks(
      "*DISTRIBUTION TABLE, NAME=T\nDENSITY\n*DISTRIBUTION, NAME=RHO, LOCATION=NODE, TABLE=T\n, 7800\n", "200e9, 0.3",
      "RHO"));
  EXPECT_NE(nodal.find("LOCATION=NODE is not supported"), std::string::npos) << nodal;
  const std::string no_default = error(three_bricks(
      "*DISTRIBUTION TABLE, NAME=T\nDENSITY\n*DISTRIBUTION, NAME=RHO, LOCATION=ELEMENT, TABLE=T\n11, 7800\n",
      "200e9, 0.3", "RHO"));
  EXPECT_NE(no_default.find("the first data line gives the defaults"), std::string::npos) << no_default;
  EXPECT_NE(no_default.find("bricks.inp:29:"), std::string::npos) << no_default;
  const std::string unknown = error(three_bricks(
      "*DISTRIBUTION TABLE, NAME=T\nDENSITY\n*DISTRIBUTION, NAME=RHO, LOCATION=ELEMENT, TABLE=T\n, 7800\n99, 10\n",
      "200e9, 0.3", "RHO"));
  EXPECT_NE(unknown.find("99"), std::string::npos) << unknown;
  const std::string bad = error(three_bricks(
      "*DISTRIBUTION TABLE, NAME=T\nMODULUS, POISSON\n*DISTRIBUTION, NAME=M, LOCATION=ELEMENT, TABLE=T\n, 200e9, 0.3\n"
      "11, 200e9, 0.5\n",
      "M", "7800"));
  EXPECT_NE(bad.find("element 11 takes Young's modulus 2e+11 and Poisson's ratio 0.5"), std::string::npos) << bad;
  EXPECT_NE(bad.find("bricks.inp:30:"), std::string::npos) << bad;
  const std::string column = error(three_bricks("*DISTRIBUTION TABLE, NAME=T\nANGLE\n", "200e9, 0.3", "7800"));
  EXPECT_NE(column.find("column 'ANGLE' is not supported"), std::string::npos) << column;
}

}  // namespace
}  // namespace tremor
