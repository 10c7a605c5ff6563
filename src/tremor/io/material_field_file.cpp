#include "tremor/io/material_field_file.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/core/text_rows.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/result_hdf5.hpp"

namespace tremor::io {

namespace {

// The names a property may have in a file, the first the model file's own.
struct PropertyNames {
  std::array<std::string_view, 2> names;
};
constexpr PropertyNames speed_names[3] = {{{"p_wave_speed", "vp"}}, {{"s_wave_speed", "vs"}}, {{"density", "rho"}}};
constexpr PropertyNames moduli_names[3] = {{{"lame_lambda", "lambda"}}, {{"shear_modulus", "mu"}}, {{"density", "rho"}}};
constexpr std::string_view axis_names[3] = {"x", "y", "z"};

std::string expected_names(int dim) {
  return str(dim == 3 ? "x, y, z" : "x, y",
             " and either p_wave_speed (or vp), s_wave_speed (or vs) and density (or rho), or lame_lambda (or "
             "lambda), shear_modulus (or mu) and density (or rho)");
}

// Which of the two sets of properties `has` finds, with the name each was found by; refuses both
// sets, a property given by two names, or an incomplete set.
struct Chosen {
  FieldProperties properties = FieldProperties::Speeds;
  std::array<std::string, 3> names;
};

// `fail(message)` throws, naming where.
template <class Has, class Fail>
Chosen choose_properties(int dim, Has has, Fail fail) {
  const auto found = [&](const PropertyNames (&set)[3]) {
    std::array<std::string, 3> names;
    int count = 0;
    for (std::size_t m = 0; m < 3; ++m)
      for (const std::string_view name : set[m].names)
        if (has(name)) {
          if (!names[m].empty())
            fail(str("both '", names[m], "' and '", name, "' give the field's ", set[m].names[0], "; give one"));
          names[m] = std::string(name);
          ++count;
        }
    return std::pair{names, count};
  };
  const auto [speeds, n_speeds] = found(speed_names);
  const auto [moduli, n_moduli] = found(moduli_names);
  // (density counts in both sets)
  const int speeds_only = n_speeds - (speeds[2].empty() ? 0 : 1), moduli_only = n_moduli - (moduli[2].empty() ? 0 : 1);
  if (speeds_only > 0 && moduli_only > 0)
    fail(str("the field gives both wave speeds and Lame moduli; give one set (", expected_names(dim), ")"));
  if (moduli_only > 0) {
    if (n_moduli != 3)
      fail(str("the field lacks ", moduli[0].empty() ? "lame_lambda" : moduli[1].empty() ? "shear_modulus" : "density",
               "; expected ", expected_names(dim)));
    return {FieldProperties::Moduli, moduli};
  }
  if (n_speeds != 3)
    fail(str("the field lacks ", speeds[0].empty() ? "p_wave_speed" : speeds[1].empty() ? "s_wave_speed" : "density",
             "; expected ", expected_names(dim)));
  return {FieldProperties::Speeds, speeds};
}

// Whether the field gives Q_P and Q_S ("q_p" and "q_s": both or neither); `fail` throws.
template <class Has, class Fail>
bool gives_quality(Has has, Fail fail) {
  if (has("q_p") != has("q_s")) fail(str("the field gives ", has("q_p") ? "q_p without q_s" : "q_s without q_p",
                                         "; give both quality factors, or neither"));
  return has("q_p");
}

// The chosen properties and their names (Q's keep theirs, "q_p" and "q_s").
void take(MaterialField& field, const Chosen& chosen) {
  field.properties = chosen.properties;
  for (std::size_t m = 0; m < 3; ++m) field.names[m] = chosen.names[m];
}

std::shared_ptr<MaterialField> read_hdf5(const std::string& path, int dim) {
  h5::silence_errors();
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    h5::error_stack();
    throw Error(str(path, ": not an HDF5 (or NetCDF-4) file; a material field is HDF5, NetCDF-4 or CSV"));
  }
  h5::Handle file = h5::open_or_fail(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, path,
                                     "cannot open the material field");
  const auto has = [&](std::string_view name) {
    return H5Lexists(file.get(), std::string(name).c_str(), H5P_DEFAULT) > 0;
  };
  auto field = std::make_shared<MaterialField>();
  field->file = path;
  field->dim = dim;
  const auto fail = [&](const std::string& message) { throw Error(str(path, ": ", message)); };
  if (has("element")) {  // element data: a label per row, the properties beside it
    h5::Handle labels = h5::open_dataset(file.get(), "element", path);
    const std::vector<hsize_t> dims = h5::dataset_dims(labels.get(), path, "dataset 'element'");
    TREMOR_CHECK(dims.size() == 1, path, ": dataset 'element' has ", dims.size(),
                 " dimensions; element data are one list of labels (1D)");
    for (const std::int64_t label : h5::read_int64(file.get(), "element", path, "dataset 'element'"))
      field->elements.push_back(static_cast<Label>(label));
    TREMOR_CHECK(!field->elements.empty(), path, ": dataset 'element' is empty");
    const Chosen chosen = choose_properties(dim, has, fail);
    take(*field, chosen);
    const bool quality = gives_quality(has, fail);
    for (std::size_t m = 0; m < (quality ? 5u : 3u); ++m) {
      const std::string& name = field->names[m];
      h5::Handle dataset = h5::open_dataset(file.get(), name, path);
      const std::vector<hsize_t> shape = h5::dataset_dims(dataset.get(), path, str("dataset '", name, "'"));
      TREMOR_CHECK(shape.size() == 1 && shape[0] == field->elements.size(), path, ": dataset '", name,
                   "' must hold one value per element label (", field->elements.size(), ")");
      field->values[m] = h5::read_doubles(file.get(), name, path, str("dataset '", name, "'"));
    }
    return field;
  }
  for (int k = 0; k < dim; ++k) {
    const std::string name(axis_names[k]);
    TREMOR_CHECK(has(name), path, ": no dataset '", name, "' (the grid's ", name, " coordinates, m) for a ", dim,
                 "D mesh; expected ", expected_names(dim));
    h5::Handle dataset = h5::open_dataset(file.get(), name, path);
    const std::vector<hsize_t> dims = h5::dataset_dims(dataset.get(), path, str("dataset '", name, "'"));
    TREMOR_CHECK(dims.size() == 1, path, ": dataset '", name, "' has ", dims.size(),
                 " dimensions; a grid's coordinates are one list (1D)");
    field->axes[static_cast<std::size_t>(k)] = h5::read_doubles(file.get(), name, path, str("dataset '", name, "'"));
  }
  if (dim == 2 && has("z"))
    throw Error(str(path, ": the field has a z axis (a 3D grid) but the mesh is 2D; give a grid in x and y"));
  const Chosen chosen = choose_properties(dim, has, fail);
  take(*field, chosen);
  const bool quality = gives_quality(has, fail);
  // (ny, nx) or (nz, ny, nx): x fastest, as NetCDF's (z, y, x).
  std::vector<hsize_t> expected;
  for (int k = dim - 1; k >= 0; --k) expected.push_back(field->axes[static_cast<std::size_t>(k)].size());
  const auto shape = [](const std::vector<hsize_t>& dims) {
    std::string out = "(";
    for (std::size_t k = 0; k < dims.size(); ++k) out += str(k ? ", " : "", dims[k]);
    return out + ")";
  };
  for (std::size_t m = 0; m < (quality ? 5u : 3u); ++m) {
    const std::string& name = field->names[m];
    h5::Handle dataset = h5::open_dataset(file.get(), name, path);
    const std::vector<hsize_t> dims = h5::dataset_dims(dataset.get(), path, str("dataset '", name, "'"));
    TREMOR_CHECK(dims == expected, path, ": dataset '", name, "' has shape ", shape(dims), "; the grid's axes make ",
                 shape(expected), dim == 3 ? " = (nz, ny, nx)" : " = (ny, nx)", ", x varying fastest");
    field->values[m] = h5::read_doubles(file.get(), name, path, str("dataset '", name, "'"));
  }
  return field;
}

// Element data from a Gmsh mesh file (MSH 2.2 or 4.1, ASCII): each $ElementData view named by its
// first string tag ("vp", ...), one component, a line per element (its tag and its value).
std::shared_ptr<MaterialField> read_gmsh_element_data(const std::string& path, int dim) {
  const std::string text = read_file(path, "material field", largest_csv_field);
  std::vector<std::string_view> lines;  // line i + 1 of the file, trimmed
  for (const TextLine& line : text_lines(text)) lines.push_back(line.text);
  const auto fail = [&](std::size_t i, const std::string& message) {
    throw_input_error(path, static_cast<long>(i + 1), message);
  };
  const auto integer = [&](std::size_t i, const char* what) {
    double v = 0.0;
    if (i >= lines.size() || !finite_number(lines[i], v) || v != std::floor(v) || v < 0 || v > 2e9)
      fail(std::min(i, lines.size() - 1), str("expected ", what, " (a non-negative integer), got '",
                                              i < lines.size() ? lines[i] : std::string_view(), "'"));
    return static_cast<long long>(v);
  };
  struct View {
    std::vector<Label> labels;
    std::vector<double> values;
    std::size_t line = 0;
  };
  std::map<std::string, View> views;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == "$MeshFormat" && i + 1 < lines.size()) {
      const std::string_view format = lines[i + 1];
      const std::size_t space = format.find(' ');
      if (space != std::string_view::npos && format.substr(space + 1, 1) == "1")
        fail(i + 1, "a binary Gmsh file; element data are read from ASCII files (Mesh.Binary = 0)");
    }
    if (lines[i] != "$ElementData") continue;
    std::size_t at = i + 1;
    const long long n_strings = integer(at++, "the number of string tags");
    if (n_strings < 1 || at >= lines.size()) fail(at - 1, "an $ElementData view without a name (its first string tag)");
    std::string name(lines[at]);
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
    at += static_cast<std::size_t>(n_strings);
    at += static_cast<std::size_t>(integer(at, "the number of real tags")) + 1;
    const std::size_t int_tags_line = at;
    const long long n_ints = integer(at++, "the number of integer tags");
    if (n_ints < 3)
      fail(int_tags_line, "an $ElementData view with fewer than 3 integer tags (step, components, count)");
    const long long components = integer(at + 1, "the number of components");
    const long long count = integer(at + 2, "the number of elements");
    if (components != 1)
      fail(at + 1, str("view '", name, "' has ", components, " components; a property takes one"));
    at += static_cast<std::size_t>(n_ints);
    View view;
    view.line = i;
    if (views.count(name)) fail(i, str("view '", name, "' given twice (another time step?); a property takes one"));
    for (long long k = 0; k < count; ++k, ++at) {
      if (at >= lines.size() || lines[at].starts_with("$"))
        fail(std::min(at, lines.size() - 1), str("view '", name, "' ends after ", k, " of its ", count, " elements"));
      const std::string_view line = lines[at];
      const std::size_t space = line.find_first_of(" \t");
      double label = 0.0, value = 0.0;
      if (space == std::string_view::npos || !finite_number(line.substr(0, space), label) ||
          !parse_number(line.substr(space + 1), value) || label != std::floor(label))
        fail(at, str("expected an element tag and a value, got '", line, "'"));
      view.labels.push_back(static_cast<Label>(label));
      view.values.push_back(value);
    }
    views.emplace(name, std::move(view));
    i = at;
  }
  if (views.empty()) throw Error(str(path, ": no $ElementData view; element data are views named vp, vs and rho (or "
                                     "lambda, mu and density)"));
  auto field = std::make_shared<MaterialField>();
  field->file = path;
  field->dim = dim;
  const auto has = [&](std::string_view name) { return views.count(std::string(name)) > 0; };
  const auto fail_file = [&](const std::string& message) { throw Error(str(path, ": ", message)); };
  const Chosen chosen = choose_properties(dim, has, fail_file);
  take(*field, chosen);
  const std::size_t given = gives_quality(has, fail_file) ? 5 : 3;
  // The first property's elements, each other view's values taken by label.
  const View& first = views.at(field->names[0]);
  field->elements = first.labels;
  for (std::size_t m = 0; m < given; ++m) {
    const View& view = views.at(field->names[m]);
    std::unordered_map<Label, double> by_label;
    for (std::size_t k = 0; k < view.labels.size(); ++k) by_label.emplace(view.labels[k], view.values[k]);
    if (by_label.size() != first.labels.size())
      throw_input_error(path, static_cast<long>(view.line + 1),
                        str("view '", field->names[m], "' holds ", by_label.size(), " elements, view '",
                            field->names[0], "' ", first.labels.size(), ": each property one value per element"));
    for (const Label label : first.labels) {
      const auto it = by_label.find(label);
      if (it == by_label.end())
        throw_input_error(path, static_cast<long>(view.line + 1),
                          str("view '", field->names[m], "' has no value for element ", label));
      field->values[m].push_back(it->second);
    }
  }
  return field;
}

std::shared_ptr<MaterialField> read_csv(const std::string& path, int dim) {
  const std::string text = read_file(path, "material field", largest_csv_field);
  auto field = std::make_shared<MaterialField>();
  field->file = path;
  field->dim = dim;
  TextRow header;
  const std::vector<TextRow> lines = text_rows(text, &header);
  if (header.line == 0)
    throw Error(str(path, ": no header; expected a first line naming the columns: ", expected_names(dim)));
  const auto column = [&](std::string_view name) {
    return static_cast<int>(std::find(header.fields.begin(), header.fields.end(), name) - header.fields.begin());
  };
  const auto has = [&](std::string_view name) { return column(name) < static_cast<int>(header.fields.size()); };
  if (has("element")) {  // element data: a row an element, its label and properties
    const auto fail = [&](const std::string& message) { throw_input_error(path, header.line, message); };
    const Chosen chosen = choose_properties(dim, has, fail);
    take(*field, chosen);
    const std::size_t given = gives_quality(has, fail) ? 5 : 3;
    std::unordered_map<Label, long> line_of;
    for (const TextRow& line : lines) {
      if (line.fields.size() != header.fields.size())
        throw_input_error(path, line.line, str(line.fields.size(), " values; the header (line ", header.line,
                                               ") names ", header.fields.size(), " columns"));
      double value = 0.0;
      const std::string_view cell = line.fields[static_cast<std::size_t>(column("element"))];
      if (!parse_number(cell, value) || value != std::floor(value) || std::abs(value) > 9e18)
        throw_input_error(path, line.line, str("column 'element' holds '", cell, "'; expected an element label"));
      const auto label = static_cast<Label>(value);
      if (const auto [it, inserted] = line_of.emplace(label, line.line); !inserted)
        throw_input_error(path, line.line, str("element ", label, " again (also at line ", it->second, ")"));
      field->elements.push_back(label);
      for (std::size_t m = 0; m < given; ++m) {
        const std::string_view property = line.fields[static_cast<std::size_t>(column(field->names[m]))];
        if (!parse_number(property, value))
          throw_input_error(path, line.line, str("column '", field->names[m], "' holds '", property,
                                                 "'; expected a number"));
        field->values[m].push_back(value);
      }
    }
    TREMOR_CHECK(!field->elements.empty(), path, ": no element after the header (line ", header.line, ")");
    return field;
  }
  std::array<int, 3> axis_column{-1, -1, -1};
  for (int k = 0; k < 3; ++k) {
    if (k < dim) {
      if (!has(axis_names[k]))
        throw_input_error(path, header.line,
                          str("no column '", axis_names[k], "' in the header; expected ", expected_names(dim)));
      axis_column[static_cast<std::size_t>(k)] = column(axis_names[k]);
    } else if (has(axis_names[k])) {
      throw_input_error(path, header.line, "a column 'z' (a 3D grid) but the mesh is 2D; give a grid in x and y");
    }
  }
  const auto fail = [&](const std::string& message) { throw_input_error(path, header.line, message); };
  const Chosen chosen = choose_properties(dim, has, fail);
  take(*field, chosen);
  const bool quality = gives_quality(has, fail);
  const std::size_t given = quality ? 5 : 3;
  std::array<int, 5> property_column{-1, -1, -1, -1, -1};
  for (std::size_t m = 0; m < given; ++m) property_column[m] = column(field->names[m]);
  std::vector<std::array<double, 8>> rows;  // x, y, z, then the properties (and Q)
  std::vector<long> row_lines;
  for (const TextRow& line : lines) {
    if (line.fields.size() != header.fields.size())
      throw_input_error(path, line.line, str(line.fields.size(), " values; the header (line ", header.line, ") names ",
                                             header.fields.size(), " columns"));
    std::array<double, 8> row{};
    const auto read = [&](int at, double& value) {
      const std::string_view cell = line.fields[static_cast<std::size_t>(at)];
      if (!parse_number(cell, value))
        throw_input_error(path, line.line, str("column '", header.fields[static_cast<std::size_t>(at)], "' holds '",
                                               cell, "'; expected a number"));
    };
    for (int k = 0; k < dim; ++k) read(axis_column[static_cast<std::size_t>(k)], row[static_cast<std::size_t>(k)]);
    for (std::size_t m = 0; m < given; ++m) read(property_column[m], row[3 + m]);
    rows.push_back(row);
    row_lines.push_back(line.line);
  }
  TREMOR_CHECK(!rows.empty(), path, ": no grid points after the header (line ", header.line, ")");
  // The axes: every coordinate the rows take along each, in order.
  for (int k = 0; k < dim; ++k) {
    std::vector<double>& axis = field->axes[static_cast<std::size_t>(k)];
    for (const auto& row : rows) axis.push_back(row[static_cast<std::size_t>(k)]);
    std::sort(axis.begin(), axis.end());
    axis.erase(std::unique(axis.begin(), axis.end()), axis.end());
    for (std::size_t i = 0; i < axis.size(); ++i)
      TREMOR_CHECK(std::isfinite(axis[i]), path, ": a ", axis_names[k], " coordinate is ", axis[i]);
    TREMOR_CHECK(axis.size() >= 2, path, ": every row has ", axis_names[k], " = ", axis.front(),
                 "; a grid needs at least 2 coordinates along each axis");
  }
  // Each row's grid point, sorted: a point twice sits beside itself, a missing one leaves a gap.
  // (Checked before the grid is allocated: rows of distinct coordinates on every axis span a grid
  // of rows^dim points.)
  double spanned = 1.0;
  std::string shape;
  for (int k = 0; k < dim; ++k) {
    spanned *= static_cast<double>(field->axes[static_cast<std::size_t>(k)].size());
    shape += str(k ? " x " : "", field->axes[static_cast<std::size_t>(k)].size());
  }
  // (A grid's index must fit; one beyond 2^53 points cannot be complete from a file of 512 MiB.)
  if (spanned > 9007199254740992.0)
    throw Error(str(path, ": ", rows.size(), " rows for a grid of ", shape, " points (the coordinates the rows take): "
                    "every grid point needs a row"));
  const Size n = field->n_points();
  std::vector<std::pair<Size, std::size_t>> points(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    Size at[3] = {0, 0, 0};
    for (int k = 0; k < dim; ++k) {
      const std::vector<double>& axis = field->axes[static_cast<std::size_t>(k)];
      at[k] = static_cast<Size>(std::lower_bound(axis.begin(), axis.end(), rows[r][static_cast<std::size_t>(k)]) -
                                axis.begin());
    }
    points[r] = {field->index(at[0], at[1], at[2]), r};
  }
  std::sort(points.begin(), points.end());
  for (std::size_t k = 1; k < points.size(); ++k)
    if (points[k].first == points[k - 1].first)
      throw_input_error(path, row_lines[points[k].second],
                        str("the grid point of line ", row_lines[points[k - 1].second], " again"));
  if (static_cast<Size>(rows.size()) != n) {
    Size missing = 0;
    while (missing < static_cast<Size>(points.size()) && points[static_cast<std::size_t>(missing)].first == missing)
      ++missing;
    const Size nx = static_cast<Size>(field->axes[0].size()), ny = static_cast<Size>(field->axes[1].size());
    const Size i = missing % nx, j = missing / nx % ny, l = missing / (nx * ny);
    std::string point = str("x = ", field->axes[0][static_cast<std::size_t>(i)], ", y = ",
                            field->axes[1][static_cast<std::size_t>(j)]);
    if (dim == 3) point += str(", z = ", field->axes[2][static_cast<std::size_t>(l)]);
    throw Error(str(path, ": ", rows.size(), " rows for a grid of ", n, " points (the coordinates the rows take); no row "
                    "for ", point, ": every grid point needs one"));
  }
  for (std::size_t m = 0; m < given; ++m) field->values[m].assign(static_cast<std::size_t>(n), 0.0);
  for (const auto& [p, r] : points)
    for (std::size_t m = 0; m < given; ++m) field->values[m][static_cast<std::size_t>(p)] = rows[r][3 + m];
  return field;
}

}  // namespace

std::shared_ptr<MaterialField> read_material_field(const std::string& path, int dim) {
  TREMOR_CHECK(dim == 2 || dim == 3, path, ": a material field is for a 2D or 3D mesh");
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) { return std::tolower(c); });
  std::shared_ptr<MaterialField> field;
  if (extension == ".csv")
    field = read_csv(path, dim);
  else if (extension == ".msh")
    field = read_gmsh_element_data(path, dim);
  else if (extension == ".h5" || extension == ".hdf5" || extension == ".nc" || extension == ".nc4")
    field = read_hdf5(path, dim);
  else
    throw Error(str(path, ": a material field is an HDF5 (.h5, .hdf5), NetCDF-4 (.nc), CSV (.csv) or Gmsh (.msh, element "
                    "data) file; got '",
                    extension, "'"));
  field->validate();
  return field;
}

}  // namespace tremor::io
