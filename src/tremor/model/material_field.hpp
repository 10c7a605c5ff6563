#pragma once
// Material fields: an isotropic solid whose wave speeds (or Lame moduli) and density vary in
// space, given on a rectilinear grid (io/material_field_file.hpp reads HDF5, NetCDF-4 and CSV
// grids; docs/model-file.md, "Material fields"). A [[material]] with a `field` holds one; each
// element of its sections takes the field sampled at the element's centre (element_materials()),
// so every operator, the lumped mass, the element survey and the stable step follow the local
// properties with no kernel of their own: the kernels read a material row per element where they
// read one per section (fem/sections.hpp).
#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/element_type.hpp"
#include "tremor/model/material.hpp"

namespace tremor {

struct Model;

// What the three values at each grid point are.
enum class FieldProperties {
  Speeds,  // p_wave_speed (m/s), s_wave_speed (m/s), density (kg/m^3)
  Moduli,  // lame_lambda (Pa), shear_modulus (Pa), density (kg/m^3)
};

// How a point between grid points takes its values.
enum class FieldInterpolation {
  Linear,   // bilinear (2D) or trilinear (3D) in the grid cell holding it
  Nearest,  // the nearest grid point's (units of a geological model kept sharp)
};

// A field's values at a point: the three properties, then the quality factors Q_P and Q_S where
// the field gives them (infinity where it does not).
using FieldSample = std::array<double, 5>;

struct MaterialField {
  std::string file;  // where it was read, for messages
  int dim = 3;       // 2: a grid in x, y; 3: in x, y, z
  // The grid's coordinates along x, y (and z), m: each at least two, strictly increasing.
  std::array<std::vector<double>, 3> axes;
  FieldProperties properties = FieldProperties::Speeds;
  // The names the properties had in the file, for messages (e.g. "vp", "vs", "rho", "q_p", "q_s").
  std::array<std::string, 5> names{"p_wave_speed", "s_wave_speed", "density", "q_p", "q_s"};
  // values[k][i + n_x (j + n_y l)]: property k at grid point (i, j, l), x fastest; values[3] and
  // values[4], the quality factors Q_P and Q_S (docs/model-file.md, "Attenuation"), empty where the
  // field gives none.
  std::array<std::vector<double>, 5> values;
  bool has_quality() const { return !values[3].empty(); }
  // Element data instead of a grid: values[k][i] belong to the element labelled elements[i] (an
  // HDF5 dataset or CSV column `element`), which takes them as they are; no axes. Labels unique.
  std::vector<Label> elements;
  bool by_element() const { return !elements.empty(); }
  FieldInterpolation interpolation = FieldInterpolation::Linear;

  Size n_points() const;  // grid points, or elements given
  Size index(Size i, Size j, Size l) const;
  // The values at position x (dim coordinates); nothing where x lies outside the grid by more than
  // a relative 1e-9 of its extent (rounding of coordinates on its boundary). Q, where given, is
  // interpolated as the properties are.
  std::optional<FieldSample> sample(const double* x) const;
  bool covers(const double* x) const;  // whether sample(x) has values
  // The isotropic material of a sample (Material::from_speeds or from_lame), named `name`; its
  // attenuation `losses` with the sample's Q_P and Q_S where the field gives them.
  Material material(const std::string& name, const FieldSample& at,
                    const std::optional<Attenuation>& losses = std::nullopt) const;
  // The slowest and fastest wave speed over the grid's points (linear interpolation stays within them).
  double min_wave_speed() const;
  double max_wave_speed() const;
  // The largest Poisson's ratio over the grid's points (for the PML's warning).
  double max_poisson_ratio() const;
  // "x 0 .. 2 m (41 points), y ..." for messages.
  std::string extent() const;
  // One line: the file, its grid, each property's range and the interpolation.
  std::string describe() const;
  // Every axis at least two finite, strictly increasing coordinates; every grid point's properties
  // finite and a material (positive density and shear, positive bulk modulus: c_p > 2 c_s / sqrt 3),
  // within the magnitudes of one; each Q within (1, 1e5), the model file's range. Throws tremor::Error naming the file, the property and the
  // grid point (i, j, l) and its coordinates.
  void validate() const;
};

// Where an element takes a field: GLL elements of order 2 and more at each of their nodes (the
// points where K and the lumped mass are integrated: the sem operator's moduli, every operator's
// mass; fem/point_materials.hpp), every element besides at its centre (the row below). A node is
// sampled from inside its element, moved towards the centre by field_inward of the way: a point on
// a face between elements takes, for each, the field on its own side (a `nearest` field's layer
// boundary along element faces stays sharp); a continuous field moves by 1e-9 of an element.
inline constexpr double field_inward = 1e-9;
bool takes_field_at_points(ElementType type, int order);
// x moved towards `centre` by field_inward of the way, dim coordinates.
void inward(const double* x, const double* centre, int dim, double* out);

// Each element's material: its section's, or where the section's material has a field, the field
// sampled at the element's centre (the mean of its nodes). Rows 0 .. n_sections - 1 are the
// sections' own materials (a field's nominal one unused by any element); rows beyond are the
// distinct samples, shared by every element that sampled the same values (a layered field makes
// a row per layer), and a grained material's grains, a row each (the crystal rotated: model/
// microstructure.hpp). Throws tremor::Error naming the element, its centre and the field's extent
// when an element lies outside its field, or one of its nodes where it takes the field there.
struct ElementMaterials {
  std::vector<Material> rows;
  std::vector<int> row_section;  // the section each row belongs to
  std::vector<int> element_row;  // per global element; -1 where no section applies
  // Per row where any material has a field: the sample a field's row was made from (row_sampled),
  // NaN for the others; else empty.
  std::vector<FieldSample> row_sample;
  bool row_sampled(std::size_t row) const { return row < row_sample.size() && !std::isnan(row_sample[row][0]); }
  bool any_field = false;
  const Material* of(Index element) const {
    const int row = element_row[static_cast<std::size_t>(element)];
    return row < 0 ? nullptr : &rows[static_cast<std::size_t>(row)];
  }
};

ElementMaterials element_materials(const Model& model);

}  // namespace tremor
