// The result file's /bem (docs/output-format.md): a boundary-element problem of `tremor bem`, set
// out once by start_bem() (settings, elements, the cells XDMF draws, empty per-frequency datasets),
// one row per solved frequency, and the XDMF file with one grid per frequency.
#include "tremor/io/result_file_impl.hpp"

#include <array>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "tremor/core/error.hpp"

namespace tremor::io {

namespace fs = std::filesystem;
using h5::Handle;
using namespace result_file_detail;
using Bem = ResultFile::Impl::Bem;

namespace {

// Splits complex values into their real and imaginary parts.
void split(std::span<const std::complex<double>> values, std::vector<double>& real, std::vector<double>& imag) {
  real.resize(values.size());
  imag.resize(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    real[i] = values[i].real();
    imag[i] = values[i].imag();
  }
}

// |v| of each complex 3-vector.
std::vector<double> magnitudes(std::span<const std::complex<double>> values) {
  std::vector<double> out(values.size() / 3);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = std::sqrt(std::norm(values[3 * i]) + std::norm(values[3 * i + 1]) + std::norm(values[3 * i + 2]));
  return out;
}

// Checks the problem before anything of /bem is written; messages name `where`, the result file.
void check_bem_setup(const BemSetup& s, Index n_nodes, const std::string& where) {
  const std::size_t ne = s.element_labels.size();
  const auto expect = [&](std::size_t got, std::size_t wanted, const char* what) {
    if (got != wanted)
      throw Error(str(where, ": /bem ", what, " has ", got, " values; expected ", wanted, " (", ne, " elements)"));
  };
  if (ne == 0) throw Error(str(where, ": /bem needs at least one element"));
  if (s.frequencies.empty()) throw Error(str(where, ": /bem needs at least one frequency"));
  expect(s.connectivity.size(), 4 * ne, "connectivity");
  expect(s.centroids.size(), 3 * ne, "centroids");
  expect(s.normals.size(), 3 * ne, "normals");
  expect(s.areas.size(), ne, "areas");
  expect(s.prescribed.size(), 3 * ne, "prescribed");
  if (s.interior_points.size() % 3 != 0)
    throw Error(str(where, ": /bem interior points need 3 coordinates each, got ", s.interior_points.size()));
  for (Index node : s.connectivity)
    if (node < -1 || node >= n_nodes)
      throw Error(str(where, ": /bem connectivity names node ", node, "; the mesh has ", n_nodes, " nodes"));
  const bool linear = s.elements != BemElements::Constant;  // or quadratic: nodes of their own
  if (!linear && (!s.node_positions.empty() || !s.node_elements.empty()))
    throw Error(str(where, ": /bem collocation nodes are given for constant elements (one per element, not written)"));
  if (linear) {
    if (s.node_elements.empty())
      throw Error(str(where, ": /bem linear and quadratic elements need their collocation nodes"));
    if (s.node_positions.size() != 3 * s.node_elements.size())
      throw Error(str(where, ": /bem node positions have ", s.node_positions.size(), " values; expected ",
                      3 * s.node_elements.size(), " (", s.node_elements.size(), " collocation nodes)"));
    for (Index element : s.node_elements)
      if (element < 0 || static_cast<std::size_t>(element) >= ne)
        throw Error(str(where, ": /bem collocation node on element ", element, "; there are ", ne, " elements"));
  }
}

void set_units(hid_t dataset, const char* unit, const std::string& file) {
  h5::set_attribute(dataset, "units", std::string(unit), file);
}

// A dataset written once, with its units.
void write_fixed(hid_t parent, const char* name, std::span<const double> values, std::span<const hsize_t> dims,
                 const char* unit, const std::string& file) {
  h5::write_doubles(parent, name, values, dims, file);
  Handle dataset = h5::open_dataset(parent, name, file);
  set_units(dataset.get(), unit, file);
}

// A per-frequency dataset of one value a row (units, when given).
Handle frequency_series(hid_t parent, const char* name, const char* unit, const std::string& file) {
  const std::array<hsize_t, 1> no_rows{0};
  const std::array<hsize_t, 1> row_chunk{256};
  Handle dataset = extendible_dataset(parent, name, no_rows, row_chunk, file);
  if (unit) set_units(dataset.get(), unit, file);
  return dataset;
}

// A per-frequency dataset of `n` values a row, or of `n` 3-vectors when `vector`; a row is a chunk.
Handle frequency_field(hid_t parent, const char* name, hsize_t n, bool vector, const char* unit,
                       const std::string& file) {
  const std::array<hsize_t, 3> dims{0, n, 3};
  const std::array<hsize_t, 3> chunk{1, n, 3};
  Handle dataset = extendible_dataset(parent, name, std::span<const hsize_t>(dims.data(), vector ? 3 : 2),
                                      std::span<const hsize_t>(chunk.data(), vector ? 3 : 2), file);
  set_units(dataset.get(), unit, file);
  return dataset;
}

// /bem's attributes (the problem's settings and material) and the frequencies asked for.
void write_bem_settings(hid_t g, const BemSetup& s, hsize_t n_points, const std::string& file) {
  h5::set_attribute(g, "time_convention", std::string("exp(+i omega t)"), file);
  h5::set_attribute(g, "solid", s.solid, file);
  h5::set_attribute(g, "free_term", std::string(name_of(s.free_term, bem_free_term_names)), file);
  h5::set_attribute(g, "elements", std::string(name_of(s.elements, bem_element_names)), file);
  h5::set_attribute(g, "solver", std::string(name_of(s.solver, bem_solver_names)), file);
  if (s.solver == BemSolver::HMatrix) h5::set_attribute(g, "tolerance", s.tolerance, file);
  h5::set_attribute(g, "gauss", std::int64_t{s.gauss}, file);
  h5::set_attribute(g, "singular_gauss", std::int64_t{s.singular_gauss}, file);
  h5::set_attribute(g, "near_ratio", s.near_ratio, file);
  h5::set_attribute(g, "max_depth", std::int64_t{s.max_depth}, file);
  h5::set_attribute(g, "density", s.density, file);
  h5::set_attribute(g, "lame_lambda", s.lame_lambda, file);
  h5::set_attribute(g, "shear_modulus", s.shear_modulus, file);
  h5::set_attribute(g, "damping_ratio", s.damping_ratio, file);
  h5::set_attribute(g, "n_elements", static_cast<std::int64_t>(s.element_labels.size()), file);
  h5::set_attribute(g, "n_interior_points", static_cast<std::int64_t>(n_points), file);
  const std::array<hsize_t, 1> frequency_dims{s.frequencies.size()};
  write_fixed(g, "frequencies_requested", s.frequencies, frequency_dims, "Hz", file);
}

// /bem/elements: labels, connectivity, geometry and what each prescribes.
void write_bem_elements(hid_t e, const BemSetup& s, const std::string& file) {
  const std::size_t ne = s.element_labels.size();
  const std::array<hsize_t, 1> scalar_dims{ne};
  const std::array<hsize_t, 2> vector_dims{ne, 3};
  const std::array<hsize_t, 2> connectivity_dims{ne, 4};
  h5::write_int64(e, "labels", std::span<const std::int64_t>(s.element_labels.data(), ne), scalar_dims, file);
  h5::write_int32(e, "connectivity", s.connectivity, connectivity_dims, file);
  write_fixed(e, "centroids", s.centroids, vector_dims, "m", file);
  h5::write_doubles(e, "normals", s.normals, vector_dims, file);
  write_fixed(e, "areas", s.areas, scalar_dims, "m^2", file);
  h5::write_int32(e, "prescribed", s.prescribed, vector_dims, file);
}

// The cells XDMF draws, in the solver's element order (cell-centred data follow it): one
// topology when every element is a triangle or every one a quadrilateral, else XDMF's Mixed
// list (a cell type, 4 triangle or 5 quadrilateral, then its vertices). Written to
// /bem/elements/xdmf_cells (`e`) and described in `bem`.
void write_bem_cells(hid_t e, const BemSetup& s, Bem& bem, const std::string& file) {
  const std::size_t ne = s.element_labels.size();
  std::size_t n_triangles = 0;
  for (std::size_t k = 0; k < ne; ++k) n_triangles += s.connectivity[4 * k + 3] < 0 ? 1 : 0;
  std::vector<std::int32_t> cells;
  bem.cells = XdmfCells{};
  bem.cells.n_cells = static_cast<std::int64_t>(ne);
  bem.cells.dataset = "/bem/elements/xdmf_cells";
  if (n_triangles == ne || n_triangles == 0) {
    const int per = n_triangles == ne ? 3 : 4;
    bem.cells.topology = per == 3 ? "Triangle" : "Quadrilateral";
    bem.cells.nodes_per_cell = per;
    for (std::size_t k = 0; k < ne; ++k)
      for (int v = 0; v < per; ++v) cells.push_back(s.connectivity[4 * k + static_cast<std::size_t>(v)]);
    const std::array<hsize_t, 2> dims{ne, static_cast<hsize_t>(per)};
    h5::write_int32(e, "xdmf_cells", cells, dims, file);
  } else {
    bem.cells.topology = "Mixed";
    bem.cells.nodes_per_cell = 0;
    for (std::size_t k = 0; k < ne; ++k) {
      const bool triangle = s.connectivity[4 * k + 3] < 0;
      cells.push_back(triangle ? 4 : 5);
      for (std::size_t v = 0; v < (triangle ? 3u : 4u); ++v) cells.push_back(s.connectivity[4 * k + v]);
    }
    const std::array<hsize_t, 1> dims{cells.size()};
    h5::write_int32(e, "xdmf_cells", cells, dims, file);
    bem.mixed_length = static_cast<std::int64_t>(cells.size());
  }
}

// The per-frequency datasets of every problem, in /bem (`g`): the frequency, the solve's record and
// the elements' displacement and traction; write_bem_frequency() extends them.
void start_bem_rows(hid_t g, Bem& bem, const std::string& file) {
  bem.frequency = frequency_series(g, "frequency", "Hz", file);
  bem.reciprocal_condition = frequency_series(g, "reciprocal_condition", nullptr, file);
  bem.assembly_seconds = frequency_series(g, "assembly_seconds", "s", file);
  bem.solve_seconds = frequency_series(g, "solve_seconds", "s", file);
  bem.interior_seconds = frequency_series(g, "interior_seconds", "s", file);
  const hsize_t ne = bem.n_elements;
  bem.displacement_real = frequency_field(g, "displacement_real", ne, true, "m", file);
  bem.displacement_imag = frequency_field(g, "displacement_imag", ne, true, "m", file);
  bem.displacement_magnitude = frequency_field(g, "displacement_magnitude", ne, false, "m", file);
  bem.traction_real = frequency_field(g, "traction_real", ne, true, "Pa", file);
  bem.traction_imag = frequency_field(g, "traction_imag", ne, true, "Pa", file);
}

// /bem/interior: the points inside (or outside) the solid where the displacement is computed, and
// its per-frequency datasets.
void start_bem_interior(hid_t g, const BemSetup& s, Bem& bem, const std::string& file) {
  Handle interior = h5::create_group(g, "interior", file);
  const std::array<hsize_t, 2> point_dims{bem.n_points, 3};
  write_fixed(interior.get(), "points", s.interior_points, point_dims, "m", file);
  std::vector<std::int32_t> vertices(bem.n_points);
  for (std::size_t k = 0; k < vertices.size(); ++k) vertices[k] = static_cast<std::int32_t>(k);
  const std::array<hsize_t, 2> vertex_dims{bem.n_points, 1};
  h5::write_int32(interior.get(), "vertices", vertices, vertex_dims, file);
  bem.interior_real = frequency_field(interior.get(), "displacement_real", bem.n_points, true, "m", file);
  bem.interior_imag = frequency_field(interior.get(), "displacement_imag", bem.n_points, true, "m", file);
  bem.interior_magnitude = frequency_field(interior.get(), "displacement_magnitude", bem.n_points, false, "m", file);
}

// Linear and quadratic elements: the solution at the collocation nodes; the per-element datasets hold it
// interpolated at the element centres, so a reader of constant-element files finds the same layout.
void start_bem_nodes(hid_t g, const BemSetup& s, Bem& bem, const std::string& file) {
  Handle nodes = h5::create_group(g, "nodes", file);
  const std::array<hsize_t, 2> position_dims{bem.n_nodes, 3};
  write_fixed(nodes.get(), "positions", s.node_positions, position_dims, "m", file);
  const std::array<hsize_t, 1> element_dims{bem.n_nodes};
  h5::write_int32(nodes.get(), "element", s.node_elements, element_dims, file);
  bem.node_displacement_real = frequency_field(g, "node_displacement_real", bem.n_nodes, true, "m", file);
  bem.node_displacement_imag = frequency_field(g, "node_displacement_imag", bem.n_nodes, true, "m", file);
  bem.node_traction_real = frequency_field(g, "node_traction_real", bem.n_nodes, true, "Pa", file);
  bem.node_traction_imag = frequency_field(g, "node_traction_imag", bem.n_nodes, true, "Pa", file);
}

// The resultant force on each of the element sets asked for, per frequency.
void start_bem_forces(hid_t g, const BemSetup& s, Bem& bem, const std::string& file) {
  bem.force_real = frequency_field(g, "force_real", bem.n_sets, true, "N", file);
  bem.force_imag = frequency_field(g, "force_imag", bem.n_sets, true, "N", file);
  h5::set_attribute(bem.force_real.get(), "element_sets", s.force_sets, file);
  h5::set_attribute(bem.force_imag.get(), "element_sets", s.force_sets, file);
}

}  // namespace

void ResultFile::Impl::start_bem(const BemSetup& s) {
  require_open();
  if (bem.started) throw Error(str(path.string(), ": /bem is already started"));
  check_bem_setup(s, n_nodes, path.string());
  const bool linear = s.elements != BemElements::Constant;  // or quadratic
  bem.n_elements = s.element_labels.size();
  bem.n_points = s.interior_points.size() / 3;
  bem.n_sets = s.force_sets.size();
  bem.n_nodes = linear ? s.node_elements.size() : 0;
  bem.group = h5::create_group(handle.get(), "bem", file);
  const hid_t g = bem.group.get();
  write_bem_settings(g, s, bem.n_points, file);
  Handle elements = h5::create_group(g, "elements", file);
  write_bem_elements(elements.get(), s, file);
  write_bem_cells(elements.get(), s, bem, file);
  start_bem_rows(g, bem, file);
  if (bem.n_points > 0) start_bem_interior(g, s, bem, file);
  if (linear) start_bem_nodes(g, s, bem, file);
  if (bem.n_sets > 0) start_bem_forces(g, s, bem, file);
  bem.started = true;
}

void ResultFile::Impl::write_bem_frequency(const BemFrequencyFields& f) {
  require_open();
  const std::string where = path.string();
  if (!bem.started) throw Error(str(where, ": write_bem_frequency before start_bem"));
  const auto expect = [&](std::size_t got, hsize_t n, const char* what) {
    if (got != 3 * n) throw Error(str(where, ": /bem ", what, " has ", got, " values; expected ", 3 * n));
  };
  expect(f.displacement.size(), bem.n_elements, "displacement");
  expect(f.traction.size(), bem.n_elements, "traction");
  expect(f.interior.size(), bem.n_points, "interior displacement");
  expect(f.forces.size(), bem.n_sets, "forces");
  // Constant elements have no node datasets (bem.n_nodes is 0): their nodal values are the above.
  expect(f.node_displacement.size(), bem.n_nodes, "node displacement");
  expect(f.node_traction.size(), bem.n_nodes, "node traction");
  const hsize_t row = bem.rows;
  const auto scalar = [&](const Handle& dataset, double value, const char* name) {
    append_rows(dataset.get(), row, 1, {}, &value, file, str("/bem/", name));
  };
  scalar(bem.frequency, f.frequency, "frequency");
  scalar(bem.reciprocal_condition, f.reciprocal_condition, "reciprocal_condition");
  scalar(bem.assembly_seconds, f.assembly_seconds, "assembly_seconds");
  scalar(bem.solve_seconds, f.solve_seconds, "solve_seconds");
  scalar(bem.interior_seconds, f.interior_seconds, "interior_seconds");
  std::vector<double> real, imag;
  const auto complex_rows = [&](std::span<const std::complex<double>> values, hsize_t n, const Handle& re,
                                const Handle& im, const Handle& magnitude, const std::string& name) {
    split(values, real, imag);
    const std::array<hsize_t, 2> dims{n, 3};
    append_rows(re.get(), row, 1, dims, real.data(), file, name + "_real");
    append_rows(im.get(), row, 1, dims, imag.data(), file, name + "_imag");
    if (magnitude.valid()) {
      const std::vector<double> m = magnitudes(values);
      const std::array<hsize_t, 1> magnitude_dims{n};
      append_rows(magnitude.get(), row, 1, magnitude_dims, m.data(), file, name + "_magnitude");
    }
  };
  complex_rows(f.displacement, bem.n_elements, bem.displacement_real, bem.displacement_imag,
               bem.displacement_magnitude, "/bem/displacement");
  complex_rows(f.traction, bem.n_elements, bem.traction_real, bem.traction_imag, Handle(), "/bem/traction");
  if (bem.n_points > 0)
    complex_rows(f.interior, bem.n_points, bem.interior_real, bem.interior_imag, bem.interior_magnitude,
                 "/bem/interior/displacement");
  if (bem.n_sets > 0) complex_rows(f.forces, bem.n_sets, bem.force_real, bem.force_imag, Handle(), "/bem/force");
  if (bem.n_nodes > 0) {
    complex_rows(f.node_displacement, bem.n_nodes, bem.node_displacement_real, bem.node_displacement_imag, Handle(),
                 "/bem/node_displacement");
    complex_rows(f.node_traction, bem.n_nodes, bem.node_traction_real, bem.node_traction_imag, Handle(),
                 "/bem/node_traction");
  }
  bem.rows = row + 1;
  bem.frequencies.push_back(f.frequency);
  // (Twice, as flush_file once reserved all data: a row's chunks may be part-filled, and the /bem
  // datasets are not among those counted in `touched_bytes`; the magnitudes a third of their fields.)
  unflushed_bytes += 2 *
                     (2 * (f.displacement.size() + f.traction.size() + f.interior.size() + f.forces.size() +
                           f.node_displacement.size() + f.node_traction.size()) +
                      (f.displacement.size() + f.interior.size()) / 3 + 8) *
                     sizeof(double);
}

void ResultFile::Impl::write_bem_xdmf(const fs::path& xdmf) const {
  XdmfBem description;
  description.n_nodes = n_nodes;
  description.coordinates = "/mesh/coordinates";
  description.cells = bem.cells;
  description.mixed_length = bem.mixed_length;
  description.n_points = static_cast<std::int64_t>(bem.n_points);
  description.frequencies = bem.frequencies;
  write_xdmf_bem(xdmf, path.filename().string(), description);
}

void ResultFile::start_bem(const BemSetup& setup) {
  impl().writing([&] { impl().start_bem(setup); });
}

void ResultFile::write_bem_frequency(const BemFrequencyFields& fields) {
  impl().writing([&] { impl().write_bem_frequency(fields); });
}

}  // namespace tremor::io
