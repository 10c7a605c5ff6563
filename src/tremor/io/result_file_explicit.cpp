// An explicit run's part of the result file (docs/output-format.md): /histories (and a shot's
// /shots/<shot>/histories), /snapshots and their XDMF file, and the checks and truncation of a file
// reopened to continue an interrupted run.
#include "tremor/io/result_file_impl.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "tremor/core/error.hpp"
#include "tremor/model/model.hpp"

namespace tremor::io {

namespace fs = std::filesystem;
using h5::Handle;
using namespace result_file_detail;

namespace {

std::string snapshot_name(std::size_t index) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%06zu", index);
  return buffer;
}

void check_name(const std::string& name, const std::string& file) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    throw Error(str(file, ": history name '", name, "' must be non-empty and contain no '/'"));
}

// Shrinks an extendible dataset to `rows` along its first axis.
void truncate_rows(hid_t dataset, hsize_t rows, const std::string& file, const std::string& what) {
  std::vector<hsize_t> dims = h5::dataset_dims(dataset, file, what);
  dims[0] = rows;
  h5::check(H5Dset_extent(dataset, dims.data()), file, str("cannot truncate ", what));
}

}  // namespace

int ResultFile::history_id(const std::string& name) const {
  const auto& histories = impl().histories;
  for (std::size_t h = 0; h < histories.size(); ++h)
    if (histories[h].name == name) return static_cast<int>(h);
  throw Error(str(impl().path.string(), ": no history named '", name, "'"));
}

std::int64_t ResultFile::n_samples(int id) const {
  const auto& histories = impl().histories;
  if (id < 0 || id >= static_cast<int>(histories.size()))
    throw Error(str(impl().path.string(), ": no history with id ", id));
  return static_cast<std::int64_t>(histories[static_cast<std::size_t>(id)].n_samples);
}

std::vector<double> ResultFile::read_values(int id) const {
  Impl& self = impl();
  self.require_open();
  if (id < 0 || id >= static_cast<int>(self.histories.size()))
    throw Error(str(self.path.string(), ": no history with id ", id));
  const History& history = self.histories[static_cast<std::size_t>(id)];
  std::vector<double> values(static_cast<std::size_t>(history.n_samples) * history.n_nodes * history.n_quantities *
                             history.n_components);
  if (!values.empty())
    h5::check(H5Dread(history.values.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
              self.file, "cannot read " + history.where + "/values");
  return values;
}

std::int64_t ResultFile::n_snapshots() const { return static_cast<std::int64_t>(impl().snapshot_times.size()); }

std::map<std::string, std::int64_t> ResultFile::sample_counts() const {
  std::map<std::string, std::int64_t> counts;
  for (const auto& history : impl().histories) counts[history.name] = static_cast<std::int64_t>(history.n_samples);
  return counts;
}

int ResultFile::add_history(const std::string& name, std::span<const Index> nodes,
                            std::span<const Quantity> quantities) {
  Impl& self = impl();
  self.require_open();
  std::vector<std::int64_t> labels;
  for (Index node : nodes) {
    if (node < 0 || node >= self.n_nodes)
      throw Error(str(self.path.string(), ": history '", name, "': node index ", node, " is outside the mesh (",
                      self.n_nodes, " nodes)"));
    labels.push_back(self.node_labels[static_cast<std::size_t>(node)]);
  }
  if (nodes.empty()) throw Error(str(self.path.string(), ": history '", name, "' has no nodes"));
  return self.declare_history(name, nodes.size(), quantities, [&](hid_t group) {
    const std::array<hsize_t, 1> node_dims{nodes.size()};
    h5::write_int64(group, "node_labels", labels, node_dims, self.file);
    h5::write_int32(group, "node_indices", nodes, node_dims, self.file);
  });
}

int ResultFile::add_position_history(const std::string& name, std::span<const double> positions,
                                     std::span<const Index> elements, std::span<const Quantity> quantities,
                                     const ReceiverGrid* grid, std::span<const unsigned char> footprint,
                                     std::span<const double> depth, std::span<const std::string> point_names) {
  Impl& self = impl();
  self.require_open();
  const auto dim = static_cast<std::size_t>(self.dim);
  if (elements.empty()) throw Error(str(self.path.string(), ": history '", name, "' has no positions"));
  if (positions.size() != elements.size() * dim)
    throw Error(str(self.path.string(), ": history '", name, "': ", positions.size(), " coordinates for ",
                    elements.size(), " positions in ", dim, "D"));
  std::vector<std::int64_t> labels;
  for (Index element : elements) {
    if (element < 0 || static_cast<std::size_t>(element) >= self.element_labels.size())
      throw Error(str(self.path.string(), ": history '", name, "': element index ", element,
                      " is outside the mesh (", self.element_labels.size(), " elements)"));
    labels.push_back(self.element_labels[static_cast<std::size_t>(element)]);
  }
  return self.declare_history(name, elements.size(), quantities, [&](hid_t group) {
    const std::array<hsize_t, 2> position_dims{elements.size(), dim};
    h5::write_doubles(group, "positions", positions, position_dims, self.file);
    Handle dataset = h5::open_dataset(group, "positions", self.file);
    h5::set_attribute(dataset.get(), "units", std::string("m"), self.file);
    const std::array<hsize_t, 1> element_dims{elements.size()};
    h5::write_int64(group, "element_labels", labels, element_dims, self.file);
    h5::write_int32(group, "element_indices", elements, element_dims, self.file);
    if (!point_names.empty()) {
      if (point_names.size() != elements.size())
        throw Error(str(self.path.string(), ": history '", name, "': ", point_names.size(), " point names for ",
                        elements.size(), " positions"));
      h5::set_attribute(group, "point_names", std::vector<std::string>(point_names.begin(), point_names.end()),
                        self.file);
    }
    if (!grid) return;
    if (static_cast<std::size_t>(grid->n_points()) != elements.size())
      throw Error(str(self.path.string(), ": history '", name, "': a grid of ", grid->n_points(), " points for ",
                      elements.size(), " positions"));
    const std::array<hsize_t, 1> two{2};
    const std::int64_t count[] = {grid->count[0], grid->count[1]};
    h5::write_int64(group, "grid_count", count, two, self.file);
    h5::write_doubles(group, "grid_min", grid->min, two, self.file);
    h5::write_doubles(group, "grid_max", grid->max, two, self.file);
    h5::set_attribute(group, "grid_surface", grid->surface, self.file);
    if (footprint.empty()) return;
    if (footprint.size() != elements.size() || depth.size() != elements.size())
      throw Error(str(self.path.string(), ": history '", name, "': ", footprint.size(), " footprint and ", depth.size(),
                      " depth values for ", elements.size(), " points"));
    const std::array<hsize_t, 1> points{elements.size()};
    Handle space = h5::simple_space(points, self.file);
    Handle mask(h5::check_id(H5Dcreate2(group, "footprint", H5T_STD_U8LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                                        H5P_DEFAULT),
                             self.file, "cannot create the footprint"),
                H5Dclose);
    h5::check(H5Dwrite(mask.get(), H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, footprint.data()), self.file,
              "cannot write the footprint");
    h5::write_doubles(group, "depth", depth, points, self.file);
    Handle depth_set = h5::open_dataset(group, "depth", self.file);
    h5::set_attribute(depth_set.get(), "units", std::string("m"), self.file);
  });
}

int ResultFile::Impl::declare_history(const std::string& name, std::size_t n_points,
                                      std::span<const Quantity> quantities,
                                      const std::function<void(hid_t group)>& write_points) {
  check_name(name, path.string());
  const std::string key = shot.empty() ? name : str(shot, "/", name);
  for (const auto& history : histories)
    if (history.name == key) throw Error(str(path.string(), ": history '", key, "' is declared twice"));
  if (quantities.empty()) throw Error(str(path.string(), ": history '", key, "' records no quantity"));
  const bool pressure = std::find(quantities.begin(), quantities.end(), Quantity::Pressure) != quantities.end();
  if (pressure && quantities.size() > 1)
    throw Error(str(path.string(), ": history '", key, "' records pressure beside motion; a history holds one or the "
                    "other"));
  const std::size_t components = pressure ? 1 : static_cast<std::size_t>(dim);

  History history;
  history.name = key;
  history.where = shot.empty() ? str("/histories/", name) : str("/shots/", shot, "/histories/", name);
  history.n_nodes = n_points;
  history.n_quantities = quantities.size();
  history.n_components = components;
  Handle group = h5::create_group((shot.empty() ? histories_group : shot_histories).get(), name, file);
  std::vector<std::string> names;
  for (Quantity quantity : quantities) names.emplace_back(quantity_name(quantity));
  h5::set_attribute(group.get(), "quantities", names, file);
  h5::set_attribute(group.get(), "dimension", std::int64_t{dim}, file);
  write_points(group.get());

  const std::size_t per_node = quantities.size() * components;
  const std::size_t row_bytes = n_points * per_node * sizeof(double);
  hsize_t sample_chunk = std::clamp<hsize_t>(target_chunk_bytes / row_bytes, 1, 4096);
  hsize_t node_chunk = n_points;
  if (row_bytes > 4 * target_chunk_bytes) {
    // A very wide history: chunk across nodes too, keeping chunks within the chunk cache.
    sample_chunk = 1;
    node_chunk = std::max<hsize_t>(1, 4 * target_chunk_bytes / (per_node * sizeof(double)));
  }
  const std::array<hsize_t, 1> no_rows{0};
  const std::array<hsize_t, 1> time_chunk{std::max<hsize_t>(sample_chunk, 512)};
  history.time = extendible_dataset(group.get(), "time", no_rows, time_chunk, file);
  h5::set_attribute(history.time.get(), "units", std::string("s"), file);
  const std::array<hsize_t, 4> value_dims{0, n_points, quantities.size(), components};
  const std::array<hsize_t, 4> value_chunk{sample_chunk, node_chunk, quantities.size(), components};
  history.values = extendible_dataset(group.get(), "values", value_dims, value_chunk, file);
  history.chunk_bytes = (time_chunk[0] + sample_chunk * node_chunk * per_node) * sizeof(double);
  std::vector<std::string> units;
  for (Quantity quantity : quantities) units.emplace_back(quantity_unit(quantity));
  h5::set_attribute(history.values.get(), "units", units, file);
  histories.push_back(std::move(history));
  return static_cast<int>(histories.size()) - 1;
}

void ResultFile::append_samples(int id, std::span<const double> times, std::span<const double> values) {
  Impl& self = impl();
  self.require_open();
  if (id < 0 || id >= static_cast<int>(self.histories.size()))
    throw Error(str(self.path.string(), ": no history with id ", id));
  History& history = self.histories[static_cast<std::size_t>(id)];
  const std::size_t per_sample = history.n_nodes * history.n_quantities * history.n_components;
  if (values.size() != times.size() * per_sample)
    throw Error(str(self.path.string(), ": history '", history.name, "': ", values.size(), " values for ",
                    times.size(), " samples; expected ", times.size() * per_sample));
  if (times.empty()) return;
  const std::string what = "/histories/" + history.name;
  self.writing([&] {
    append_rows(history.time.get(), history.n_samples, times.size(), {}, times.data(), self.file, what + "/time");
    const std::array<hsize_t, 3> row{history.n_nodes, history.n_quantities, history.n_components};
    append_rows(history.values.get(), history.n_samples, times.size(), row, values.data(), self.file,
                what + "/values");
  });
  history.n_samples += times.size();
  // A wide history (add_history: a chunk per sample along its nodes) allocates its last chunk of
  // each sample whole: up to 4 x target_chunk_bytes more a sample than its values.
  const bool wide = per_sample * sizeof(double) > 4 * target_chunk_bytes;
  self.unflushed_bytes += (times.size() + values.size()) * sizeof(double) +
                          (wide ? times.size() * 4 * target_chunk_bytes : 0);
  if (!history.touched) self.touched_bytes += history.chunk_bytes + dataset_metadata_bytes;
  history.touched = true;
  self.writing([&] { self.flush_if_large(); });
}

void ResultFile::append_samples(int id, std::span<const double> times, std::span<const float> values) {
  const std::vector<double> wide(values.begin(), values.end());
  append_samples(id, times, std::span<const double>(wide));
}

void ResultFile::begin_shot(const std::string& name, std::span<const std::string> transducers) {
  Impl& self = impl();
  self.require_open();
  if (name.empty() || name.find('/') != std::string::npos)
    throw Error(str(self.path.string(), ": shot name '", name, "' must be non-empty and contain no '/'"));
  self.writing([&] {
    const hid_t root = self.handle.get();
    if (!self.shots_group.valid())
      self.shots_group = H5Lexists(root, "shots", H5P_DEFAULT) > 0 ? h5::open_group(root, "shots", self.file)
                                                                   : h5::create_group(root, "shots", self.file);
    if (H5Lexists(self.shots_group.get(), name.c_str(), H5P_DEFAULT) > 0) {  // a resumed shot
      Handle group = h5::open_group(self.shots_group.get(), name, self.file);
      self.shot_histories = h5::open_group(group.get(), "histories", self.file);
    } else {
      Handle group = h5::create_group(self.shots_group.get(), name, self.file);
      h5::set_attribute(group.get(), "transducers", std::vector<std::string>(transducers.begin(), transducers.end()),
                        self.file);
      self.shot_histories = h5::create_group(group.get(), "histories", self.file);
    }
    self.shot = name;
  });
}

void ResultFile::write_fmc_row(const FmcHeader& header, Index transmitter, std::span<const double> values) {
  Impl& self = impl();
  self.require_open();
  const std::size_t n = header.elements.size();
  if (header.array.empty() || header.array.find('/') != std::string::npos)
    throw Error(str(self.path.string(), ": array name '", header.array, "' must be non-empty and contain no '/'"));
  if (transmitter < 0 || static_cast<std::size_t>(transmitter) >= n || values.size() != n * header.n_samples ||
      header.n_samples == 0)
    throw Error(str(self.path.string(), ": array '", header.array, "': row ", transmitter, " of ", values.size(),
                    " values for ", n, " elements of ", header.n_samples, " samples"));
  const std::string what = str("/fmc/", header.array, "/data");
  self.writing([&] {
    const hid_t root = self.handle.get();
    Handle fmc = H5Lexists(root, "fmc", H5P_DEFAULT) > 0 ? h5::open_group(root, "fmc", self.file)
                                                         : h5::create_group(root, "fmc", self.file);
    Handle data;
    if (H5Lexists(fmc.get(), header.array.c_str(), H5P_DEFAULT) > 0) {
      Handle group = h5::open_group(fmc.get(), header.array, self.file);
      data = h5::open_or_fail(H5Dopen2(group.get(), "data", H5P_DEFAULT), H5Dclose, self.file, what);
      const std::vector<hsize_t> dims = h5::dataset_dims(data.get(), self.file, what);
      if (dims.size() != 3 || dims[1] != n || dims[2] != header.n_samples)
        throw Error(str(self.path.string(), ": ", what, " holds A-scans of another shape than the run's (", n,
                        " elements, ", header.n_samples, " samples)"));
    } else {
      Handle group = h5::create_group(fmc.get(), header.array, self.file);
      const hid_t g = group.get();
      h5::set_attribute(g, "surface", header.surface, self.file);
      h5::set_attribute(g, "dimension", std::int64_t{header.dim}, self.file);
      h5::set_attribute(g, "n_elements", static_cast<std::int64_t>(n), self.file);
      h5::set_attribute(g, "pitch", header.pitch, self.file);
      h5::set_attribute(g, "width", header.width, self.file);
      h5::set_attribute(g, "length", header.length, self.file);
      h5::set_attribute(g, "depth", header.depth, self.file);
      h5::set_attribute(g, "dt", header.dt, self.file);
      h5::set_attribute(g, "t0", header.t0, self.file);
      h5::set_attribute(g, "signal_peak", header.signal_peak, self.file);
      h5::set_attribute(g, "longitudinal_speed", header.longitudinal_speed, self.file);
      h5::set_attribute(g, "shear_speed", header.shear_speed, self.file);
      h5::set_attribute(g, "shots", header.shots, self.file);
      h5::set_attribute(g, "rows", header.rows, self.file);
      h5::set_attribute(g, "row_pitch", header.row_pitch, self.file);
      h5::set_attribute(g, "quantity", header.quantity, self.file);
      h5::set_attribute(g, "sound_speed", header.sound_speed, self.file);
      h5::set_attribute(g, "interface_depth", header.interface_depth, self.file);
      std::vector<double> centres;
      for (const auto& e : header.elements) centres.insert(centres.end(), e.begin(), e.end());
      const std::array<hsize_t, 2> centre_dims{n, 3};
      h5::write_doubles(g, "elements", centres, centre_dims, self.file);
      const std::array<hsize_t, 1> three{3};
      h5::write_doubles(g, "centre", header.centre, three, self.file);
      h5::write_doubles(g, "direction", header.direction, three, self.file);
      h5::write_doubles(g, "normal", header.normal, three, self.file);
      h5::write_doubles(g, "elevation", header.elevation, three, self.file);
      // A row a chunk (receivers x samples), up to the target size.
      const std::array<hsize_t, 3> no_rows{0, n, header.n_samples};
      const hsize_t samples_chunk =
          std::clamp<hsize_t>(target_chunk_bytes / sizeof(double) / std::max<std::size_t>(n, 1), 1, header.n_samples);
      const std::array<hsize_t, 3> chunk{1, std::min<hsize_t>(n, target_chunk_bytes / sizeof(double)), samples_chunk};
      data = extendible_dataset(g, "data", no_rows, chunk, self.file, std::numeric_limits<double>::quiet_NaN());
      h5::set_attribute(data.get(), "units", std::string(header.quantity == "pressure" ? "Pa" : "m"), self.file);
    }
    const std::vector<hsize_t> dims = h5::dataset_dims(data.get(), self.file, what);
    const auto row = static_cast<hsize_t>(transmitter);
    const std::array<hsize_t, 2> row_dims{n, header.n_samples};
    if (row >= dims[0]) {
      // Extended to the row; the rows between read NaN (the fill) until written.
      append_rows(data.get(), row, 1, row_dims, values.data(), self.file, what);
      return;
    }
    Handle file_space = h5::open_or_fail(H5Dget_space(data.get()), H5Sclose, self.file, what);
    const std::array<hsize_t, 3> start{row, 0, 0}, count{1, n, header.n_samples};
    h5::check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
              self.file, what);
    Handle memory_space = h5::simple_space(count, self.file);
    h5::check(H5Dwrite(data.get(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), H5P_DEFAULT,
                       values.data()),
              self.file, str("cannot write ", what));
  });
  self.unflushed_bytes += values.size() * sizeof(double);
  // (A row's chunks are receivers x at most target_chunk_bytes / 8 / receivers samples: its last,
  // part-filled, a chunk at most, for arrays of up to 8192 receivers, which the second covers.)
  self.touched_bytes += 2 * target_chunk_bytes + dataset_metadata_bytes;
  self.writing([&] { self.flush_if_large(); });
}

void ResultFile::Impl::start_snapshots(const Mesh& mesh) {
  const hid_t group = snapshots_group.get();
  const std::vector<Index>& subset = snapshot_options.nodes;
  h5::set_attribute(group, "all_nodes", std::int64_t{subset.empty() ? 1 : 0}, file);
  snapshot_nodes = subset.empty() ? static_cast<std::size_t>(n_nodes) : subset.size();
  if (!subset.empty()) {
    const std::array<hsize_t, 1> dims{subset.size()};
    std::vector<std::int64_t> labels;
    std::vector<double> coordinates;
    std::vector<std::int32_t> local(static_cast<std::size_t>(n_nodes), -1);
    for (std::size_t i = 0; i < subset.size(); ++i) {
      const Index node = subset[i];
      labels.push_back(mesh.node_labels[static_cast<std::size_t>(node)]);
      const auto xyz = mesh.node(node);
      coordinates.insert(coordinates.end(), xyz.begin(), xyz.end());
      local[static_cast<std::size_t>(node)] = static_cast<std::int32_t>(i);
    }
    h5::write_int32(group, "node_indices", subset, dims, file);
    h5::write_int64(group, "node_labels", labels, dims, file);
    // The subset's own mesh for the XDMF file: the elements whose nodes all lie in the subset.
    Handle subset_mesh = h5::create_group(group, "mesh", file);
    const std::array<hsize_t, 2> coordinate_dims{subset.size(), static_cast<hsize_t>(dim)};
    h5::write_doubles(subset_mesh.get(), "coordinates", coordinates, coordinate_dims, file);
    snapshot_mesh = XdmfMesh{dim, static_cast<std::int64_t>(subset.size()), "/snapshots/mesh/coordinates", {}};
    for (int b = 0; b < mesh.n_blocks(); ++b) {
      const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(b)];
      std::vector<std::int32_t> inside;
      for (Index e = 0; e < block.n_elements(); ++e) {
        const auto nodes = block.nodes(e);
        if (std::all_of(nodes.begin(), nodes.end(), [&](Index n) { return local[static_cast<std::size_t>(n)] >= 0; }))
          for (Index n : nodes) inside.push_back(local[static_cast<std::size_t>(n)]);
      }
      if (inside.empty()) continue;
      XdmfCells cells;
      cells.topology = xdmf_topology(block.type);
      if (is_gll(block.type)) inside = gll_linear_cells(block.type, block.order, inside);
      cells.nodes_per_cell = is_gll(block.type) ? (dimension(block.type) == 2 ? 4 : 8) : block.n_element_nodes();
      cells.n_cells = static_cast<std::int64_t>(inside.size()) / cells.nodes_per_cell;
      const std::string name = str("block_", b);
      const std::array<hsize_t, 2> cell_dims{static_cast<hsize_t>(cells.n_cells),
                                             static_cast<hsize_t>(cells.nodes_per_cell)};
      h5::write_int32(subset_mesh.get(), name, inside, cell_dims, file);
      cells.dataset = "/snapshots/mesh/" + name;
      snapshot_mesh.blocks.push_back(cells);
    }
    if (snapshot_mesh.blocks.empty()) {
      // No whole element in the subset: show the nodes as points.
      std::vector<std::int32_t> vertices(subset.size());
      for (std::size_t i = 0; i < vertices.size(); ++i) vertices[i] = static_cast<std::int32_t>(i);
      const std::array<hsize_t, 2> vertex_dims{subset.size(), 1};
      h5::write_int32(subset_mesh.get(), "vertices", vertices, vertex_dims, file);
      snapshot_mesh.blocks.push_back(
          XdmfCells{"Polyvertex", static_cast<std::int64_t>(subset.size()), 1, "/snapshots/mesh/vertices", {}});
    }
  }
  displacement_group = h5::create_group(group, "displacement", file);
  h5::set_attribute(displacement_group.get(), "units", std::string("m"), file);
  if (snapshot_options.magnitude) {
    magnitude_group = h5::create_group(group, "magnitude", file);
    h5::set_attribute(magnitude_group.get(), "units", std::string("m"), file);
  }
  if (snapshot_options.velocity) {
    velocity_group = h5::create_group(group, "velocity", file);
    h5::set_attribute(velocity_group.get(), "units", std::string("m/s"), file);
  }
  if (snapshot_options.pressure) {
    pressure_group = h5::create_group(group, "pressure", file);
    h5::set_attribute(pressure_group.get(), "units", std::string("Pa"), file);
  }
}

void ResultFile::Impl::write_snapshot(double time, std::span<const double> displacement,
                                      std::span<const double> velocity, std::span<const double> pressure) {
  require_open();
  const std::size_t expected = snapshot_nodes * static_cast<std::size_t>(dim);
  if (displacement.size() != expected)
    throw Error(str(path.string(), ": snapshot displacement has ", displacement.size(), " values; expected ", expected,
                    " (", snapshot_nodes, " nodes x ", dim, ")"));
  if (snapshot_options.velocity && velocity.size() != expected)
    throw Error(str(path.string(), ": snapshot velocity has ", velocity.size(), " values; expected ", expected));
  if (!snapshot_options.velocity && !velocity.empty())
    throw Error(str(path.string(), ": snapshot velocity given but not configured (SnapshotOptions::velocity)"));
  if (snapshot_options.pressure && pressure.size() != snapshot_nodes)
    throw Error(str(path.string(), ": snapshot pressure has ", pressure.size(), " values; expected ", snapshot_nodes,
                    " (one per node)"));
  if (!snapshot_options.pressure && !pressure.empty())
    throw Error(str(path.string(), ": snapshot pressure given but not configured (SnapshotOptions::pressure)"));

  const std::size_t index = snapshot_times.size();
  const std::string name = snapshot_name(index);
  const std::array<hsize_t, 2> dims{snapshot_nodes, static_cast<hsize_t>(dim)};
  const auto write_field = [&](hid_t group, std::span<const double> data, std::span<const hsize_t> field_dims) {
    h5::write_doubles(group, name, data, field_dims, file);
    Handle dataset = h5::open_dataset(group, name, file);
    h5::set_attribute(dataset.get(), "time", time, file);
  };
  write_field(displacement_group.get(), displacement, dims);
  if (snapshot_options.magnitude) {
    std::vector<double> magnitude(snapshot_nodes);
    for (std::size_t n = 0; n < snapshot_nodes; ++n) {
      double sum = 0.0;
      for (int c = 0; c < dim; ++c) {
        const double value = displacement[n * static_cast<std::size_t>(dim) + static_cast<std::size_t>(c)];
        sum += value * value;
      }
      magnitude[n] = std::sqrt(sum);
    }
    const std::array<hsize_t, 1> magnitude_dims{snapshot_nodes};
    write_field(magnitude_group.get(), magnitude, magnitude_dims);
  }
  if (snapshot_options.velocity) write_field(velocity_group.get(), velocity, dims);
  if (snapshot_options.pressure) {
    const std::array<hsize_t, 1> pressure_dims{snapshot_nodes};
    write_field(pressure_group.get(), pressure, pressure_dims);
  }
  append_rows(snapshot_time.get(), index, 1, {}, &time, file, "/snapshots/time");
  snapshot_times.push_back(time);  // written through at once (contiguous): nothing left for the flush
}

void ResultFile::write_snapshot(double time, std::span<const double> displacement, std::span<const double> velocity,
                                std::span<const double> pressure) {
  impl().writing([&] { impl().write_snapshot(time, displacement, velocity, pressure); });
}

void ResultFile::write_snapshot(double time, std::span<const float> displacement, std::span<const float> velocity,
                                std::span<const float> pressure) {
  const std::vector<double> wide_displacement(displacement.begin(), displacement.end());
  const std::vector<double> wide_velocity(velocity.begin(), velocity.end());
  const std::vector<double> wide_pressure(pressure.begin(), pressure.end());
  write_snapshot(time, std::span<const double>(wide_displacement), std::span<const double>(wide_velocity),
                 std::span<const double>(wide_pressure));
}

void ResultFile::Impl::write_snapshots_xdmf(const fs::path& xdmf) const {
  std::vector<XdmfField> fields;
  if (!snapshot_times.empty()) {
    const auto paths = [&](const char* field) {
      std::vector<std::string> names;
      for (std::size_t s = 0; s < snapshot_times.size(); ++s)
        names.push_back(str("/snapshots/", field, "/", snapshot_name(s)));
      return names;
    };
    fields.push_back(XdmfField{"displacement", dim, paths("displacement")});
    if (snapshot_options.magnitude) fields.push_back(XdmfField{"magnitude", 1, paths("magnitude")});
    if (snapshot_options.velocity) fields.push_back(XdmfField{"velocity", dim, paths("velocity")});
    if (snapshot_options.pressure) fields.push_back(XdmfField{"pressure", 1, paths("pressure")});
  }
  write_xdmf(xdmf, path.filename().string(), snapshot_times.empty() ? full_mesh : snapshot_mesh, snapshot_times,
             fields);
}

void ResultFile::Impl::reopen_histories(const std::map<std::string, std::int64_t>& samples) {
  const std::string where = path.string();
  // The histories of /histories, and of each shot's group: those the checkpoint counts are
  // continued; a shot begun after the checkpoint (none of its histories counted) is dropped, to be
  // written again.
  const auto reopen_group = [&](hid_t parent, const std::string& shot_name, const std::string& at) {
    std::vector<History> found;
    std::size_t missing = 0;
    std::string first_missing;
    for (const std::string& name : h5::group_members(parent, file, "cannot list " + at)) {
      const std::string key = shot_name.empty() ? name : str(shot_name, "/", name);
      const auto wanted = samples.find(key);
      if (wanted == samples.end()) {
        if (missing++ == 0) first_missing = key;
        continue;
      }
      Handle group = h5::open_group(parent, name, file);
      History history;
      history.name = key;
      history.where = str(at, "/", name);
      const std::vector<std::string> quantities = h5::read_strings_attribute(group.get(), "quantities", file);
      history.n_quantities = quantities.size();
      history.n_components = quantities.size() == 1 && quantities[0] == "pressure" ? 1 : static_cast<std::size_t>(dim);
      history.time = h5::open_dataset(group.get(), "time", file);
      history.values = h5::open_dataset(group.get(), "values", file);
      const std::string& what = history.where;
      const auto time_dims = h5::dataset_dims(history.time.get(), file, what + "/time");
      const auto value_dims = h5::dataset_dims(history.values.get(), file, what + "/values");
      if (time_dims.size() != 1 || value_dims.size() != 4 || value_dims[2] != history.n_quantities ||
          value_dims[3] != history.n_components)
        throw Error(str(where, ": ", what, ": the shapes of time and values are not those of a history"));
      history.n_nodes = value_dims[1];
      const auto rows = static_cast<hsize_t>(wanted->second);
      if (wanted->second < 0 || std::min(time_dims[0], value_dims[0]) < rows)
        throw Error(str(where, ": history '", key, "' holds ", std::min(time_dims[0], value_dims[0]),
                        " samples, fewer than the ", wanted->second, " the checkpoint counted"));
      history.n_samples = rows;
      found.push_back(std::move(history));
    }
    if (missing > 0 && (shot_name.empty() || !found.empty()))
      throw Error(str(where, ": history '", first_missing, "' is not in the checkpoint; the file and the checkpoint "
                      "are of different runs"));
    if (missing > 0) dropped_shots.push_back(shot_name);
    for (History& history : found) histories.push_back(std::move(history));
  };
  for (const h5::HistoriesGroup& at : h5::histories_groups(handle.get(), file)) {
    Handle group = h5::open_group(handle.get(), at.path, file);
    reopen_group(group.get(), at.shot, at.path);
  }
  for (const auto& entry : samples) {
    const std::string& name = entry.first;  // a structured binding is not captured by clang 14's lambdas
    if (std::none_of(histories.begin(), histories.end(), [&](const History& h) { return h.name == name; }))
      throw Error(str(where, ": the checkpoint counts samples of history '", name, "', which the file lacks"));
  }
}

void ResultFile::Impl::reopen_snapshots(std::int64_t count) {
  const std::string where = path.string();
  const auto dims = h5::dataset_dims(snapshot_time.get(), file, "/snapshots/time");
  const auto rows = static_cast<hsize_t>(count);
  if (dims.size() != 1 || count < 0 || dims[0] < rows)
    throw Error(str(where, ": the file holds ", dims.empty() ? 0 : dims[0], " snapshots, fewer than the ", count,
                    " the checkpoint counted"));
  const auto open_field = [&](const char* name, bool wanted) {
    const bool present = H5Lexists(snapshots_group.get(), name, H5P_DEFAULT) > 0;
    if (present != wanted)
      throw Error(str(where, ": the file's snapshots ", present ? "hold" : "lack", " the field '", name,
                      "', which this run ", wanted ? "records" : "does not record", "; they are of different runs"));
    return present ? h5::open_group(snapshots_group.get(), name, file) : Handle();
  };
  displacement_group = open_field("displacement", true);
  magnitude_group = open_field("magnitude", snapshot_options.magnitude);
  velocity_group = open_field("velocity", snapshot_options.velocity);
  pressure_group = open_field("pressure", snapshot_options.pressure);
  snapshot_times.assign(rows, 0.0);
  if (rows > 0) {
    Handle file_space = h5::open_or_fail(H5Dget_space(snapshot_time.get()), H5Sclose, file, "/snapshots/time");
    const hsize_t start = 0;
    h5::check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &start, nullptr, &rows, nullptr), file,
              "/snapshots/time");
    Handle memory_space = h5::simple_space(std::span<const hsize_t>(&rows, 1), file);
    h5::check(H5Dread(snapshot_time.get(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), H5P_DEFAULT,
                      snapshot_times.data()),
              file, "cannot read /snapshots/time");
  }
}

void ResultFile::Impl::truncate_to_checkpoint() {
  for (const History& history : histories) {
    truncate_rows(history.time.get(), history.n_samples, file, history.where + "/time");
    truncate_rows(history.values.get(), history.n_samples, file, history.where + "/values");
  }
  for (const std::string& name : dropped_shots) {
    const std::string group = "/shots/" + name;
    h5::check(H5Ldelete(handle.get(), group.c_str(), H5P_DEFAULT), file, "cannot remove " + group);
  }
  const hsize_t rows = snapshot_times.size();
  truncate_rows(snapshot_time.get(), rows, file, "/snapshots/time");
  // Snapshots written after the checkpoint are removed: the run writes them again.
  const auto drop_later = [&](const Handle& group, const char* name) {
    if (!group.valid()) return;
    for (const std::string& member : h5::group_members(group.get(), file, str("cannot list /snapshots/", name))) {
      const bool numbered = !member.empty() && std::all_of(member.begin(), member.end(),
                                                           [](char c) { return c >= '0' && c <= '9'; });
      if (numbered && std::stoull(member) >= rows)
        h5::check(H5Ldelete(group.get(), member.c_str(), H5P_DEFAULT), file,
                  str("cannot remove /snapshots/", name, "/", member));
    }
  };
  drop_later(displacement_group, "displacement");
  drop_later(magnitude_group, "magnitude");
  drop_later(velocity_group, "velocity");
  drop_later(pressure_group, "pressure");
}

}  // namespace tremor::io
