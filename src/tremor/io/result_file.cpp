#include "tremor/io/result_file.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/result_hdf5.hpp"
#include "tremor/io/result_xdmf.hpp"
#include "tremor/model/model.hpp"

namespace tremor::io {

namespace fs = std::filesystem;
using h5::Handle;

const char* quantity_name(Quantity quantity) {
  switch (quantity) {
    case Quantity::Displacement: return "displacement";
    case Quantity::Velocity: return "velocity";
    case Quantity::Acceleration: return "acceleration";
  }
  return "?";
}

char quantity_letter(Quantity quantity) {
  switch (quantity) {
    case Quantity::Displacement: return 'u';
    case Quantity::Velocity: return 'v';
    case Quantity::Acceleration: return 'a';
  }
  return '?';
}

Quantity parse_quantity(std::string_view name) {
  if (name == "displacement" || name == "U" || name == "u") return Quantity::Displacement;
  if (name == "velocity" || name == "V" || name == "v") return Quantity::Velocity;
  if (name == "acceleration" || name == "A" || name == "a") return Quantity::Acceleration;
  throw Error(str("unknown quantity '", name, "': expected displacement, velocity or acceleration"));
}

namespace {

constexpr std::int64_t format_version = 1;
// Chunks of about this size: large enough that appends write whole chunks, small enough to sit
// in HDF5's default 1 MiB chunk cache per dataset.
constexpr std::size_t target_chunk_bytes = std::size_t{64} * 1024;

struct History {
  std::string name;   // a shot's: "<shot>/<name>" (ResultFile::begin_shot)
  std::string where;  // its group in the file, for messages
  std::size_t n_nodes = 0;
  std::size_t n_quantities = 0;
  hsize_t n_samples = 0;
  Handle time;
  Handle values;
};

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return buffer;
}

std::string snapshot_name(std::size_t index) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%06zu", index);
  return buffer;
}

Handle extendible_dataset(hid_t parent, const std::string& name, std::span<const hsize_t> dims,
                          std::span<const hsize_t> chunk, const std::string& file) {
  std::vector<hsize_t> max_dims(dims.begin(), dims.end());
  max_dims[0] = H5S_UNLIMITED;
  Handle space = h5::open_or_fail(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), max_dims.data()),
                                  H5Sclose, file, "cannot create a dataspace");
  Handle properties = h5::open_or_fail(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, file, "cannot create properties");
  h5::check(H5Pset_chunk(properties.get(), static_cast<int>(chunk.size()), chunk.data()), file,
            str("cannot set the chunks of ", name));
  return h5::open_or_fail(H5Dcreate2(parent, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                                     properties.get(), H5P_DEFAULT),
                          H5Dclose, file, str("cannot create dataset ", name));
}

// Appends `rows` rows (dims[1..] each) of `data` to an extendible dataset holding `old_rows`.
void append_rows(hid_t dataset, hsize_t old_rows, hsize_t rows, std::span<const hsize_t> row_dims,
                 const double* data, const std::string& file, const std::string& what) {
  std::vector<hsize_t> dims{old_rows + rows};
  dims.insert(dims.end(), row_dims.begin(), row_dims.end());
  h5::check(H5Dset_extent(dataset, dims.data()), file, str("cannot extend ", what));
  Handle file_space = h5::open_or_fail(H5Dget_space(dataset), H5Sclose, file, what);
  std::vector<hsize_t> start(dims.size(), 0);
  start[0] = old_rows;
  std::vector<hsize_t> count = dims;
  count[0] = rows;
  h5::check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
            file, what);
  Handle memory_space = h5::simple_space(count, file);
  h5::check(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), H5P_DEFAULT, data), file,
            str("cannot write ", what));
}

// Voigt component names in tremor's order (model/material.hpp).
std::vector<std::string> voigt_names(int dim) {
  if (dim == 2) return {"xx", "yy", "xy"};
  return {"xx", "yy", "zz", "yz", "xz", "xy"};
}

void check_name(const std::string& name, const std::string& file) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    throw Error(str(file, ": history name '", name, "' must be non-empty and contain no '/'"));
}

}  // namespace

struct ResultFile::Impl {
  fs::path path;
  fs::path partial;
  std::string file;  // partial path as a string, for messages
  Handle handle;
  Handle metadata_group;
  Handle histories_group;
  Handle snapshots_group;
  // Shots (begin_shot): /shots, and /shots/<shot>/histories of the shot now written.
  Handle shots_group, shot_histories;
  std::string shot;
  std::vector<std::string> dropped_shots;  // reopen: shots begun after the checkpoint
  int dim = 3;
  Index n_nodes = 0;
  std::vector<Label> node_labels;
  std::vector<Label> element_labels;  // per global element (blocks in order)
  RunMetadata metadata;
  std::vector<History> histories;

  // Snapshots.
  SnapshotOptions snapshot_options;
  Handle snapshot_time;
  std::vector<double> snapshot_times;
  std::size_t snapshot_nodes = 0;
  Handle displacement_group, magnitude_group, velocity_group;

  XdmfMesh full_mesh;      // the mesh for the XDMF file
  XdmfMesh snapshot_mesh;  // the mesh snapshots live on (full_mesh, or the subset's)

  bool finished = false;
  OutputClaim claim;        // the lock on the file written, held until it has its final name
  std::string broken;       // why writing stopped (a write failed); empty while the file is whole
  std::int64_t flushed_step = -1;  // metadata.step_count at the last successful flush; -1: none yet
  std::uint64_t unflushed_bytes = 0;  // data handed to HDF5 since the last flush

  // Flushes with the space it needs allocated first. HDF5 writes the superblock (with the file's
  // new end) before it extends the file, so a flush refused by a full disk midway would leave a
  // file that no longer opens ("truncated file"); with the file already long enough no write of
  // the flush can be refused, and a reservation that fails stops writing before any of it.
  void flush_file();

  void require_open() const {
    if (!broken.empty()) throw Error(str(file, ": writing stopped after a failure: ", broken));
    if (finished) throw Error(str(path.string(), ": the result file is already finished"));
  }

  // Runs a write; an HDF5 failure in it (a full disk, a file-size limit) ends all writing: see
  // stop_writing().
  template <class Write>
  void writing(Write&& write) {
    require_open();
    try {
      write();
    } catch (const h5::Failure& failure) {
      stop_writing(failure.what());
    }
  }
  // After a failed write HDF5's state in memory no longer matches the file, and closing it would
  // write its dirty metadata over what the last flush left consistent. So the library's
  // descriptor is pointed at a read-only one of the same file (its further writes fail, its reads
  // still see the file), every handle is closed, and the file stays `<path>.partial`, holding what
  // the last flush wrote, with the status that flush gave it ("incomplete"). Throws an Error
  // saying so.
  [[noreturn]] void stop_writing(const std::string& why);
  void close_objects();

  void write_mesh(const Model& model);
  void write_metadata(const std::string& status);
  void start_snapshots(const Mesh& mesh);
  int declare_history(const std::string& name, std::size_t n_points, std::span<const Quantity> quantities,
                      const std::function<void(hid_t group)>& write_points);
  // Reopening checks the whole file against the checkpoint before truncate_to_checkpoint()
  // changes any of it, so a refused file keeps everything it held.
  void reopen_histories(const std::map<std::string, std::int64_t>& samples);
  void reopen_snapshots(std::int64_t count);
  void truncate_to_checkpoint();
  void write_snapshot(double time, std::span<const double> displacement, std::span<const double> velocity);
  void write_static(const StaticFields& fields);
  void start_bem(const BemSetup& setup);
  void write_bem_frequency(const BemFrequencyFields& fields);
  void write_bem_xdmf(const fs::path& xdmf) const;
  void finish(const std::string& status);
  // finish() up to the rename: the status written, the file flushed, closed and cut to its size.
  void close_whole(const std::string& status);
  std::string abandon();
  bool reopened = false;            // by reopen(): a resumed run's file
  bool reopened_from_final = false;  // reopen() renamed `path` to `.partial` (an interrupted run's)
  bool images_dropped = false;       // reopen() removed /images
  bool has_static = false;
  int n_voigt = 6;

  // /bem: its per-frequency datasets, extended one row per frequency.
  struct Bem {
    bool started = false;
    hsize_t n_elements = 0, n_points = 0, n_sets = 0;
    hsize_t n_nodes = 0;              // collocation nodes of linear elements; 0 for constant ones
    hsize_t rows = 0;                 // frequencies written
    std::vector<double> frequencies;  // Hz, of the rows written
    Handle group;
    Handle frequency, reciprocal_condition, assembly_seconds, solve_seconds, interior_seconds;
    Handle displacement_real, displacement_imag, displacement_magnitude, traction_real, traction_imag;
    Handle interior_real, interior_imag, interior_magnitude, force_real, force_imag;
    Handle node_displacement_real, node_displacement_imag, node_traction_real, node_traction_imag;
    XdmfCells cells;  // the surface's cells for the XDMF file
    std::int64_t mixed_length = 0;

    void close() {
      for (Handle* h : {&frequency, &reciprocal_condition, &assembly_seconds, &solve_seconds, &interior_seconds,
                        &displacement_real, &displacement_imag, &displacement_magnitude, &traction_real,
                        &traction_imag, &interior_real, &interior_imag, &interior_magnitude, &force_real,
                        &force_imag, &node_displacement_real, &node_displacement_imag, &node_traction_real,
                        &node_traction_imag, &group})
        h->reset();
    }
  } bem;
};

void ResultFile::Impl::write_mesh(const Model& source) {
  const Mesh& mesh = source.mesh;
  Handle group = h5::create_group(handle.get(), "mesh", file);
  h5::set_attribute(group.get(), "dimension", std::int64_t{dim}, file);
  h5::set_attribute(group.get(), "n_nodes", std::int64_t{n_nodes}, file);
  h5::set_attribute(group.get(), "n_elements", std::int64_t{mesh.n_elements()}, file);
  const std::array<hsize_t, 2> coordinate_dims{static_cast<hsize_t>(n_nodes), static_cast<hsize_t>(dim)};
  h5::write_doubles(group.get(), "coordinates", mesh.coordinates, coordinate_dims, file);
  {
    Handle coordinates = h5::open_dataset(group.get(), "coordinates", file);
    h5::set_attribute(coordinates.get(), "units", std::string("m"), file);
  }
  const std::array<hsize_t, 1> label_dims{static_cast<hsize_t>(n_nodes)};
  h5::write_int64(group.get(), "node_labels", mesh.node_labels, label_dims, file);

  full_mesh.dim = dim;
  full_mesh.n_nodes = n_nodes;
  full_mesh.coordinates = "/mesh/coordinates";
  Handle blocks = h5::create_group(group.get(), "blocks", file);
  for (int b = 0; b < mesh.n_blocks(); ++b) {
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(b)];
    const std::string name = str("block_", b);
    Handle block_group = h5::create_group(blocks.get(), name, file);
    h5::set_attribute(block_group.get(), "element_type", element_name(block.type, block.order), file);
    h5::set_attribute(block_group.get(), "order", std::int64_t{block.order}, file);
    h5::set_attribute(block_group.get(), "nodes_per_element", std::int64_t{block.n_element_nodes()}, file);
    h5::set_attribute(block_group.get(), "xdmf_topology", std::string(xdmf_topology(block.type)), file);
    const auto n_elements = static_cast<hsize_t>(block.n_elements());
    const std::array<hsize_t, 2> connectivity_dims{n_elements, static_cast<hsize_t>(block.n_element_nodes())};
    h5::write_int32(block_group.get(), "connectivity", block.connectivity, connectivity_dims, file);
    const std::array<hsize_t, 1> element_dims{n_elements};
    h5::write_int64(block_group.get(), "labels", block.labels, element_dims, file);

    XdmfCells cells;
    cells.topology = xdmf_topology(block.type);
    const std::string block_path = "/mesh/blocks/" + name;
    if (is_gll(block.type)) {
      const std::vector<std::int32_t> linear = gll_linear_cells(block.type, block.order, block.connectivity);
      cells.nodes_per_cell = dimension(block.type) == 2 ? 4 : 8;
      cells.n_cells = static_cast<std::int64_t>(linear.size()) / cells.nodes_per_cell;
      const std::array<hsize_t, 2> linear_dims{static_cast<hsize_t>(cells.n_cells),
                                               static_cast<hsize_t>(cells.nodes_per_cell)};
      h5::write_int32(block_group.get(), "linear_cells", linear, linear_dims, file);
      cells.dataset = block_path + "/linear_cells";
    } else {
      cells.nodes_per_cell = block.n_element_nodes();
      cells.n_cells = block.n_elements();
      cells.dataset = block_path + "/connectivity";
    }
    full_mesh.blocks.push_back(cells);
  }
  snapshot_mesh = full_mesh;
}

void ResultFile::Impl::write_metadata(const std::string& status) {
  const hid_t group = metadata_group.get();
  h5::set_attribute(group, "format_version", format_version, file);
  h5::set_attribute(group, "tremor_version", std::string(TREMOR_VERSION), file);
  h5::set_attribute(group, "git_commit", metadata.git_commit.empty() ? std::string("unknown") : metadata.git_commit,
                    file);
  h5::set_attribute(group, "model_path", metadata.model_path, file);
  h5::set_attribute(group, "model_hash", metadata.model_hash, file);
  h5::set_attribute(group, "backend", metadata.backend, file);
  h5::set_attribute(group, "precision", metadata.precision, file);
  h5::set_attribute(group, "time_step", metadata.time_step, file);
  h5::set_attribute(group, "step_count", metadata.step_count, file);
  h5::set_attribute(group, "wall_time", metadata.wall_time, file);
  h5::set_attribute(group, "solver", metadata.solver, file);
  h5::set_attribute(group, "status", status, file);
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
          XdmfCells{"Polyvertex", static_cast<std::int64_t>(subset.size()), 1, "/snapshots/mesh/vertices"});
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
}

void ResultFile::Impl::write_snapshot(double time, std::span<const double> displacement,
                                      std::span<const double> velocity) {
  require_open();
  const std::size_t expected = snapshot_nodes * static_cast<std::size_t>(dim);
  if (displacement.size() != expected)
    throw Error(str(path.string(), ": snapshot displacement has ", displacement.size(), " values; expected ", expected,
                    " (", snapshot_nodes, " nodes x ", dim, ")"));
  if (snapshot_options.velocity && velocity.size() != expected)
    throw Error(str(path.string(), ": snapshot velocity has ", velocity.size(), " values; expected ", expected));
  if (!snapshot_options.velocity && !velocity.empty())
    throw Error(str(path.string(), ": snapshot velocity given but not configured (SnapshotOptions::velocity)"));

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
  append_rows(snapshot_time.get(), index, 1, {}, &time, file, "/snapshots/time");
  snapshot_times.push_back(time);  // written through at once (contiguous): nothing left for the flush
}

void ResultFile::Impl::write_static(const StaticFields& fields) {
  require_open();
  if (has_static) throw Error(str(path.string(), ": the static solution is already written"));
  const auto nodes = static_cast<hsize_t>(n_nodes);
  const auto check_size = [&](std::span<const double> values, std::size_t per_node, const char* what) {
    if (values.size() != static_cast<std::size_t>(nodes) * per_node)
      throw Error(str(path.string(), ": static ", what, " has ", values.size(), " values; expected ",
                      static_cast<std::size_t>(nodes) * per_node, " (", nodes, " nodes x ", per_node, ")"));
  };
  n_voigt = dim == 2 ? 3 : 6;
  const auto d = static_cast<std::size_t>(dim);
  check_size(fields.displacement, d, "displacement");
  check_size(fields.stress, static_cast<std::size_t>(n_voigt), "stress");
  check_size(fields.von_mises, 1, "von Mises stress");
  check_size(fields.reaction, d, "reaction force");
  Handle group = h5::create_group(handle.get(), "static", file);
  const hid_t g = group.get();
  const std::array<hsize_t, 2> vector_dims{nodes, static_cast<hsize_t>(dim)};
  const std::array<hsize_t, 2> stress_dims{nodes, static_cast<hsize_t>(n_voigt)};
  const std::array<hsize_t, 1> scalar_dims{nodes};
  const auto write = [&](const char* name, std::span<const double> values, std::span<const hsize_t> dims,
                         const char* units) {
    h5::write_doubles(g, name, values, dims, file);
    Handle dataset = h5::open_dataset(g, name, file);
    h5::set_attribute(dataset.get(), "units", std::string(units), file);
    return dataset;
  };
  write("displacement", fields.displacement, vector_dims, "m");
  std::vector<double> magnitude(static_cast<std::size_t>(nodes));
  for (std::size_t n = 0; n < magnitude.size(); ++n) {
    double sum = 0.0;
    for (std::size_t c = 0; c < d; ++c) sum += fields.displacement[n * d + c] * fields.displacement[n * d + c];
    magnitude[n] = std::sqrt(sum);
  }
  write("magnitude", magnitude, scalar_dims, "m");
  Handle stress = write("stress", fields.stress, stress_dims, "Pa");
  h5::set_attribute(stress.get(), "components", voigt_names(dim), file);
  write("von_mises", fields.von_mises, scalar_dims, "Pa");
  write("reaction_force", fields.reaction, vector_dims, "N");
  const std::array<hsize_t, 1> history_dims{static_cast<hsize_t>(fields.residual_history.size())};
  h5::write_doubles(g, "residual_history", fields.residual_history, history_dims, file);
  h5::set_attribute(g, "converged", std::int64_t{fields.converged ? 1 : 0}, file);
  h5::set_attribute(g, "iterations", fields.iterations, file);
  h5::set_attribute(g, "relative_residual", fields.relative_residual, file);
  h5::set_attribute(g, "tolerance", fields.tolerance, file);
  h5::set_attribute(g, "preconditioner", fields.preconditioner, file);
  has_static = true;
}

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

}  // namespace

void ResultFile::Impl::start_bem(const BemSetup& s) {
  require_open();
  const std::string where = path.string();
  if (bem.started) throw Error(str(where, ": /bem is already started"));
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
  const bool linear = s.elements == "linear";
  if (!linear && s.elements != "constant")
    throw Error(str(where, ": /bem elements '", s.elements, "'; expected \"constant\" or \"linear\""));
  if (!linear && (!s.node_positions.empty() || !s.node_elements.empty()))
    throw Error(str(where, ": /bem collocation nodes are given for constant elements (one per element, not written)"));
  if (linear) {
    if (s.node_elements.empty()) throw Error(str(where, ": /bem linear elements need their collocation nodes"));
    if (s.node_positions.size() != 3 * s.node_elements.size())
      throw Error(str(where, ": /bem node positions have ", s.node_positions.size(), " values; expected ",
                      3 * s.node_elements.size(), " (", s.node_elements.size(), " collocation nodes)"));
    for (Index element : s.node_elements)
      if (element < 0 || static_cast<std::size_t>(element) >= ne)
        throw Error(str(where, ": /bem collocation node on element ", element, "; there are ", ne, " elements"));
  }

  bem.n_elements = ne;
  bem.n_points = s.interior_points.size() / 3;
  bem.n_sets = s.force_sets.size();
  bem.n_nodes = linear ? s.node_elements.size() : 0;
  bem.group = h5::create_group(handle.get(), "bem", file);
  const hid_t g = bem.group.get();
  h5::set_attribute(g, "time_convention", std::string("exp(+i omega t)"), file);
  h5::set_attribute(g, "solid", s.solid, file);
  h5::set_attribute(g, "free_term", s.free_term, file);
  h5::set_attribute(g, "elements", s.elements, file);
  h5::set_attribute(g, "gauss", std::int64_t{s.gauss}, file);
  h5::set_attribute(g, "singular_gauss", std::int64_t{s.singular_gauss}, file);
  h5::set_attribute(g, "near_ratio", s.near_ratio, file);
  h5::set_attribute(g, "max_depth", std::int64_t{s.max_depth}, file);
  h5::set_attribute(g, "density", s.density, file);
  h5::set_attribute(g, "lame_lambda", s.lame_lambda, file);
  h5::set_attribute(g, "shear_modulus", s.shear_modulus, file);
  h5::set_attribute(g, "damping_ratio", s.damping_ratio, file);
  h5::set_attribute(g, "n_elements", static_cast<std::int64_t>(ne), file);
  h5::set_attribute(g, "n_interior_points", static_cast<std::int64_t>(bem.n_points), file);
  const auto units = [&](hid_t dataset, const char* unit) {
    h5::set_attribute(dataset, "units", std::string(unit), file);
  };
  const auto fixed = [&](hid_t parent, const char* name, std::span<const double> values, std::span<const hsize_t> dims,
                         const char* unit) {
    h5::write_doubles(parent, name, values, dims, file);
    Handle dataset = h5::open_dataset(parent, name, file);
    units(dataset.get(), unit);
  };
  const std::array<hsize_t, 1> frequency_dims{s.frequencies.size()};
  fixed(g, "frequencies_requested", s.frequencies, frequency_dims, "Hz");

  Handle elements = h5::create_group(g, "elements", file);
  const hid_t e = elements.get();
  const std::array<hsize_t, 1> scalar_dims{ne};
  const std::array<hsize_t, 2> vector_dims{ne, 3};
  const std::array<hsize_t, 2> connectivity_dims{ne, 4};
  h5::write_int64(e, "labels", std::span<const std::int64_t>(s.element_labels.data(), ne), scalar_dims, file);
  h5::write_int32(e, "connectivity", s.connectivity, connectivity_dims, file);
  fixed(e, "centroids", s.centroids, vector_dims, "m");
  h5::write_doubles(e, "normals", s.normals, vector_dims, file);
  fixed(e, "areas", s.areas, scalar_dims, "m^2");
  h5::write_int32(e, "prescribed", s.prescribed, vector_dims, file);

  // The cells XDMF draws, in the solver's element order (cell-centred data follow it): one
  // topology when every element is a triangle or every one a quadrilateral, else XDMF's Mixed
  // list (a cell type, 4 triangle or 5 quadrilateral, then its vertices).
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

  // Per-frequency datasets, extended by write_bem_frequency(); a row of the large ones is a chunk.
  const std::array<hsize_t, 1> no_rows{0};
  const std::array<hsize_t, 1> row_chunk{256};
  const auto series = [&](hid_t parent, const char* name, const char* unit) {
    Handle dataset = extendible_dataset(parent, name, no_rows, row_chunk, file);
    if (unit) units(dataset.get(), unit);
    return dataset;
  };
  bem.frequency = series(g, "frequency", "Hz");
  bem.reciprocal_condition = series(g, "reciprocal_condition", nullptr);
  bem.assembly_seconds = series(g, "assembly_seconds", "s");
  bem.solve_seconds = series(g, "solve_seconds", "s");
  bem.interior_seconds = series(g, "interior_seconds", "s");
  const auto fields = [&](hid_t parent, const char* name, hsize_t n, bool vector, const char* unit) {
    const std::array<hsize_t, 3> dims{0, n, 3};
    const std::array<hsize_t, 3> chunk{1, n, 3};
    Handle dataset = extendible_dataset(parent, name, std::span<const hsize_t>(dims.data(), vector ? 3 : 2),
                                        std::span<const hsize_t>(chunk.data(), vector ? 3 : 2), file);
    units(dataset.get(), unit);
    return dataset;
  };
  bem.displacement_real = fields(g, "displacement_real", ne, true, "m");
  bem.displacement_imag = fields(g, "displacement_imag", ne, true, "m");
  bem.displacement_magnitude = fields(g, "displacement_magnitude", ne, false, "m");
  bem.traction_real = fields(g, "traction_real", ne, true, "Pa");
  bem.traction_imag = fields(g, "traction_imag", ne, true, "Pa");
  if (bem.n_points > 0) {
    Handle interior = h5::create_group(g, "interior", file);
    const std::array<hsize_t, 2> point_dims{bem.n_points, 3};
    fixed(interior.get(), "points", s.interior_points, point_dims, "m");
    std::vector<std::int32_t> vertices(bem.n_points);
    for (std::size_t k = 0; k < vertices.size(); ++k) vertices[k] = static_cast<std::int32_t>(k);
    const std::array<hsize_t, 2> vertex_dims{bem.n_points, 1};
    h5::write_int32(interior.get(), "vertices", vertices, vertex_dims, file);
    bem.interior_real = fields(interior.get(), "displacement_real", bem.n_points, true, "m");
    bem.interior_imag = fields(interior.get(), "displacement_imag", bem.n_points, true, "m");
    bem.interior_magnitude = fields(interior.get(), "displacement_magnitude", bem.n_points, false, "m");
  }
  if (linear) {
    // The solution at the collocation nodes; the per-element datasets above hold it interpolated
    // at the element centres, so a reader of constant-element files finds the same layout.
    Handle nodes = h5::create_group(g, "nodes", file);
    const std::array<hsize_t, 2> position_dims{bem.n_nodes, 3};
    fixed(nodes.get(), "positions", s.node_positions, position_dims, "m");
    const std::array<hsize_t, 1> element_dims{bem.n_nodes};
    h5::write_int32(nodes.get(), "element", s.node_elements, element_dims, file);
    bem.node_displacement_real = fields(g, "node_displacement_real", bem.n_nodes, true, "m");
    bem.node_displacement_imag = fields(g, "node_displacement_imag", bem.n_nodes, true, "m");
    bem.node_traction_real = fields(g, "node_traction_real", bem.n_nodes, true, "Pa");
    bem.node_traction_imag = fields(g, "node_traction_imag", bem.n_nodes, true, "Pa");
  }
  if (bem.n_sets > 0) {
    bem.force_real = fields(g, "force_real", bem.n_sets, true, "N");
    bem.force_imag = fields(g, "force_imag", bem.n_sets, true, "N");
    h5::set_attribute(bem.force_real.get(), "element_sets", s.force_sets, file);
    h5::set_attribute(bem.force_imag.get(), "element_sets", s.force_sets, file);
  }
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
  unflushed_bytes += (2 * (f.displacement.size() + f.traction.size() + f.interior.size() + f.forces.size() +
                           f.node_displacement.size() + f.node_traction.size()) +
                      8) * sizeof(double);
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

void ResultFile::Impl::flush_file() {
  hsize_t size = 0;
  h5::check(H5Fget_filesize(handle.get(), &size), file, "cannot read the size of the result file");
  // The flush writes what is allocated (size) and the chunks still in HDF5's cache: at most the
  // history samples and /bem rows handed to it since the last flush (twice, for chunks split
  // across that boundary), plus one whole chunk of each history's two datasets and of the
  // snapshot times (a chunk is allocated whole when first written: at most 4 x
  // target_chunk_bytes of values and 4096 times), plus room for metadata. Snapshots themselves
  // are written through when taken.
  const std::uint64_t per_history = 4 * target_chunk_bytes + 4096 * sizeof(double);
  const std::uint64_t needed =
      size + 2 * unflushed_bytes + (histories.size() + 1) * per_history + 2 * target_chunk_bytes;
  const int refused = claim.reserve(needed);
  if (refused != 0)
    stop_writing(str(file, ": cannot write the result file: no room for the next ", needed - size,
                     " bytes (", std::strerror(refused), ")"));
  h5::check(H5Fflush(handle.get(), H5F_SCOPE_LOCAL), file, "cannot write the result file");
  unflushed_bytes = 0;
}

void ResultFile::Impl::close_objects() {
  for (auto& history : histories) {
    history.time.reset();
    history.values.reset();
  }
  snapshot_time.reset();
  displacement_group.reset();
  magnitude_group.reset();
  velocity_group.reset();
  bem.close();
  metadata_group.reset();
  histories_group.reset();
  shot_histories.reset();
  shots_group.reset();
  snapshots_group.reset();
}

void ResultFile::Impl::stop_writing(const std::string& why) {
  broken = why;
  finished = true;
  void* vfd = nullptr;
  if (handle.valid() && H5Fget_vfd_handle(handle.get(), H5P_DEFAULT, &vfd) >= 0 && vfd != nullptr) {
    const int reader = ::open(partial.c_str(), O_RDONLY | O_CLOEXEC);
    if (reader >= 0) {
      ::dup2(reader, *static_cast<int*>(vfd));
      ::close(reader);
    }
  }
  close_objects();
  handle.reset();  // fails (its writes are refused); the library lets go of the file all the same
  h5::error_stack();
  std::string kept = "what its last flush wrote";
  if (metadata.solver == "explicit" && flushed_step >= 0)
    kept = str("the run up to step ", flushed_step, " (its last flush)");
  if (flushed_step < 0) kept = "the mesh and the run's settings";
  throw Error(str(why, "\nwriting stopped: ", file, " keeps ", kept,
                  ", status \"incomplete\"; what was computed after that is not in it"));
}

void ResultFile::Impl::close_whole(const std::string& status) {
  writing([&] {
    write_metadata(status);
    // The close is checked before the rename: only a file closed whole gets the final name.
    flush_file();
  });
  hsize_t size = 0;
  h5::check(H5Fget_filesize(handle.get(), &size), file, "cannot read the size of the result file");
  close_objects();
  finished = true;  // whatever happens next, the HDF5 file is closed (or unusable)
  h5::check(handle.reset(), file, "cannot close the result file (disk full?)");
  claim.truncate(size);  // the space flush_file() reserved beyond the end HDF5 knows
}

void ResultFile::Impl::finish(const std::string& status) {
  if (finished) return;
  if (status != "complete" && status != "incomplete" && status.rfind("failed: ", 0) != 0)
    throw Error(str(path.string(), ": result status '", status,
                    "' must be \"complete\", \"incomplete\" or \"failed: <why>\""));
  if (!broken.empty()) return;  // the failure was reported when it happened; the file stays partial
  close_whole(status);
  std::error_code error;
  fs::rename(partial, path, error);
  if (error)
    throw Error(str(path.string(), ": cannot rename ", partial.string(), " to it (", error.message(),
                    "); the results are in ", partial.string()));
  sync_file(path.has_parent_path() ? path.parent_path() : fs::path("."));
  claim = OutputClaim();  // finished: readers may open it now
  const fs::path xdmf = result_xdmf_path(path);
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
  }
  if (bem.started) {
    write_bem_xdmf(xdmf);
    return;
  }
  if (has_static && snapshot_times.empty()) {
    // One grid on the whole mesh; each stress component its own scalar (a column of /static/stress).
    fields.push_back(XdmfField{"displacement", dim, {"/static/displacement"}});
    fields.push_back(XdmfField{"magnitude", 1, {"/static/magnitude"}});
    fields.push_back(XdmfField{"von_mises", 1, {"/static/von_mises"}});
    const std::vector<std::string> names = voigt_names(dim);
    for (int k = 0; k < n_voigt; ++k)
      fields.push_back(XdmfField{str("stress_", names[static_cast<std::size_t>(k)]), 1, {"/static/stress"}, k, n_voigt});
    fields.push_back(XdmfField{"reaction_force", dim, {"/static/reaction_force"}});
    write_xdmf(xdmf, path.filename().string(), full_mesh, {}, fields);
    return;
  }
  write_xdmf(xdmf, path.filename().string(), snapshot_times.empty() ? full_mesh : snapshot_mesh, snapshot_times,
             fields);
}

std::string ResultFile::Impl::abandon() {
  if (finished) return {};
  std::error_code error;
  if (!reopened) {
    // Nothing of this run's is worth keeping: the file goes, and `path` was never touched.
    finished = true;
    close_objects();
    handle.reset();
    h5::error_stack();
    fs::remove(partial, error);  // still locked by the claim: no other writer has it
    claim = OutputClaim();
    if (fs::exists(fs::symlink_status(path, error)))
      return str(path.string(), " is kept as it was: this run wrote nothing to it");
    return str("no result file was written to ", path.string());
  }
  // A resumed run's file: as the interrupted run left it (status incomplete, the checkpoint's
  // counts), under the name it had.
  try {
    close_whole("incomplete");
  } catch (const std::exception& failure) {
    finished = true;
    claim = OutputClaim();
    return str(failure.what(), "; ", partial.string(), " holds what its last flush wrote");
  }
  fs::path holder = partial;
  if (reopened_from_final) {
    fs::rename(partial, path, error);
    if (error) {
      claim = OutputClaim();
      return str("cannot rename ", partial.string(), " back to ", path.string(), " (", error.message(),
                 "): the results are in ", partial.string());
    }
    holder = path;
  }
  claim = OutputClaim();
  return str(holder.string(), " holds what it held (status incomplete, up to step ", metadata.step_count,
             "); --resume continues it");
}

ResultFile::ResultFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ResultFile::Impl& ResultFile::impl() const {
  if (!impl_) throw Error("internal error: use of a moved-from ResultFile");
  return *impl_;
}
ResultFile::ResultFile(ResultFile&&) noexcept = default;
ResultFile& ResultFile::operator=(ResultFile&& other) noexcept {
  if (this != &other) {
    // Finish the file this object held before taking the other one's.
    if (impl_ && !impl_->finished) {
      try {
        impl_->finish("incomplete");
      } catch (const std::exception& error) {
        log::warn(error.what());
      }
    }
    impl_ = std::move(other.impl_);
  }
  return *this;
}

ResultFile::~ResultFile() {
  if (!impl_ || impl_->finished) return;
  try {
    impl_->finish("incomplete");
  } catch (const std::exception& error) {
    log::warn(str("result file not finished: ", error.what()));
  }
}

namespace {

// The part of create() and reopen() that needs no file: paths, the mesh's numbers, checked options.
std::unique_ptr<ResultFile::Impl> prepare(const fs::path& path, const Model& model, const RunMetadata& metadata,
                                          const SnapshotOptions& snapshots) {
  h5::silence_errors();
  auto impl = std::make_unique<ResultFile::Impl>();
  impl->path = path;
  impl->partial = path;
  impl->partial += ".partial";
  impl->file = impl->partial.string();
  impl->metadata = metadata;
  impl->node_labels = model.mesh.node_labels;
  for (const ElementBlock& block : model.mesh.blocks)
    impl->element_labels.insert(impl->element_labels.end(), block.labels.begin(), block.labels.end());
  impl->dim = model.mesh.dim();
  impl->n_nodes = model.mesh.n_nodes();

  for (std::size_t i = 0; i < snapshots.nodes.size(); ++i) {
    const Index node = snapshots.nodes[i];
    if (node < 0 || node >= impl->n_nodes)
      throw Error(str(path.string(), ": snapshot node index ", node, " is outside the mesh (", impl->n_nodes,
                      " nodes)"));
    if (i > 0 && node <= snapshots.nodes[i - 1])
      throw Error(str(path.string(), ": snapshot node indices must be ascending and unique"));
  }
  impl->snapshot_options = snapshots;
  return impl;
}

}  // namespace

fs::path result_xdmf_path(const fs::path& path) {
  fs::path xdmf = path;
  xdmf.replace_extension(".xmf");
  return xdmf;
}

OutputClaim claim_result_file(const fs::path& path, bool continuing) {
  check_output_path(path, "result file");
  const fs::path xdmf = result_xdmf_path(path);
  std::string extension = path.extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension == ".xmf" || same_file(xdmf, path))
    throw Error(str(path.string(), ": refusing to write the result file there: the XDMF file written beside it, ",
                    xdmf.string(), ", would be this same file and replace the results; name the result file "
                    "with another extension (", fs::path(path).replace_extension(".h5").string(), ")"));
  check_output_path(xdmf, "XDMF file");
  fs::path partial = path;
  partial += ".partial";
  std::error_code error;
  if (!continuing || fs::exists(fs::symlink_status(partial, error)))
    return OutputClaim::lock(partial, true, path, "result file");
  // A finished file is continued under the `.partial` name: its lock moves with it.
  if (!fs::exists(fs::symlink_status(path, error)))
    throw Error(str(path.string(), ": no result file to continue (neither it nor ", partial.string(), " exists)"));
  return OutputClaim::lock(path, false, path, "result file");
}

ResultFile ResultFile::create(const fs::path& path, const Model& model, const RunMetadata& metadata,
                              const SnapshotOptions& snapshots, OutputClaim claim) {
  auto impl = prepare(path, model, metadata, snapshots);

  impl->claim = claim.held() ? std::move(claim) : claim_result_file(path, false);
  if (impl->claim.file() != impl->partial)
    throw Error(str(path.string(), ": internal error: the claim is on ", impl->claim.file().string()));
  impl->claim.truncate();
  impl->claim.keep();
  std::error_code error;

  bool created = true;  // the claim made `.partial` (or emptied a stale one): removed on failure
  try {
    Handle access = h5::writer_access(impl->file);
    impl->handle = h5::open_or_fail(H5Fcreate(impl->file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose,
                                    impl->file, "cannot create the result file");

    impl->metadata_group = h5::create_group(impl->handle.get(), "metadata", impl->file);
    h5::set_attribute(impl->metadata_group.get(), "created", utc_now(), impl->file);
    h5::set_attribute(impl->metadata_group.get(), "model_title", model.title, impl->file);
    impl->write_metadata("incomplete");
    impl->write_mesh(model);
    impl->histories_group = h5::create_group(impl->handle.get(), "histories", impl->file);
    impl->snapshots_group = h5::create_group(impl->handle.get(), "snapshots", impl->file);
    const std::array<hsize_t, 1> no_rows{0};
    const std::array<hsize_t, 1> time_chunk{1024};
    impl->snapshot_time = extendible_dataset(impl->snapshots_group.get(), "time", no_rows, time_chunk, impl->file);
    h5::set_attribute(impl->snapshot_time.get(), "units", std::string("s"), impl->file);
    impl->start_snapshots(model.mesh);
    impl->flush_file();
  } catch (...) {
    // Leave no half-written `.partial` behind.
    const std::string broken = impl->broken;
    impl.reset();
    if (created) fs::remove(fs::path(path.string() + ".partial"), error);
    if (!broken.empty()) throw Error(str(broken, "; no result file was written"));
    throw;
  }
  return ResultFile(std::move(impl));
}

ResultFile ResultFile::reopen(const fs::path& path, const Model& model, const RunMetadata& metadata,
                              const SnapshotOptions& snapshots,
                              const std::map<std::string, std::int64_t>& history_samples, std::int64_t n_snapshots,
                              OutputClaim claim) {
  auto impl = prepare(path, model, metadata, snapshots);
  impl->claim = claim.held() ? std::move(claim) : claim_result_file(path, true);
  impl->claim.keep();
  impl->reopened = true;
  const std::string& file = impl->file;
  {
    // The XDMF file describes the mesh and the snapshot subset as create() wrote them: running
    // the same writers into a file held in memory (never stored) gives the same descriptions.
    Handle access = h5::writer_access(file);
    h5::check(H5Pset_fapl_core(access.get(), 1 << 20, 0), file, "cannot set file properties");
    impl->handle = h5::open_or_fail(H5Fcreate("tremor-mesh-scratch.h5", H5F_ACC_TRUNC, H5P_DEFAULT, access.get()),
                                    H5Fclose, file, "cannot create a file in memory");
    impl->write_mesh(model);
    impl->snapshots_group = h5::create_group(impl->handle.get(), "snapshots", file);
    impl->start_snapshots(model.mesh);
    impl->displacement_group.reset();
    impl->magnitude_group.reset();
    impl->velocity_group.reset();
    impl->snapshots_group.reset();
    impl->handle.reset();
  }

  // An interrupted run's file was finished under the final name; a killed run's is still partial.
  std::error_code error;
  bool renamed = false;
  if (!fs::exists(impl->partial, error)) {
    if (!fs::is_regular_file(path, error))
      throw Error(str(path.string(), ": no result file to continue (neither it nor ", impl->partial.string(),
                      " exists)"));
    if (H5Fis_hdf5(path.string().c_str()) <= 0) {
      h5::error_stack();
      throw Error(str(path.string(), ": not an HDF5 result file; cannot continue it"));
    }
    fs::rename(path, impl->partial, error);
    if (error)
      throw Error(str(path.string(), ": cannot rename it to ", impl->partial.string(), " (", error.message(), ")"));
    renamed = true;
    impl->reopened_from_final = true;
  }
  try {
    Handle access = h5::writer_access(file);
    impl->handle = h5::open_or_fail(H5Fopen(file.c_str(), H5F_ACC_RDWR, access.get()), H5Fclose, file,
                                    "cannot open the result file to continue it");
    impl->metadata_group = h5::open_group(impl->handle.get(), "metadata", file);
    impl->histories_group = h5::open_group(impl->handle.get(), "histories", file);
    impl->snapshots_group = h5::open_group(impl->handle.get(), "snapshots", file);
    impl->snapshot_time = h5::open_dataset(impl->snapshots_group.get(), "time", file);
    impl->reopen_histories(history_samples);
    impl->reopen_snapshots(n_snapshots);
    impl->truncate_to_checkpoint();
    // Maps tremor image made of the interrupted run's file cover only the part it had: the
    // finished file must not hold them (imaging them again is cheap).
    if (H5Lexists(impl->handle.get(), "images", H5P_DEFAULT) > 0) {
      h5::check(H5Ldelete(impl->handle.get(), "images", H5P_DEFAULT), file, "cannot remove /images");
      impl->images_dropped = true;
    }
    impl->write_metadata("incomplete");
    impl->flush_file();
  } catch (...) {
    // A file that cannot be continued goes back to the name the user knows it by.
    const fs::path partial = impl->partial;
    impl.reset();  // closes the file
    if (renamed) {
      std::error_code back;
      fs::rename(partial, path, back);
      if (back) {
        std::string why = "unknown error";
        try {
          throw;
        } catch (const std::exception& failure) {
          why = failure.what();
        } catch (...) {
        }
        throw Error(str(why, "; cannot rename ", partial.string(), " back to ", path.string(), " (", back.message(),
                        "): the results are in ", partial.string()));
      }
    }
    throw;
  }
  return ResultFile(std::move(impl));
}

namespace {

// Shrinks an extendible dataset to `rows` along its first axis.
void truncate_rows(hid_t dataset, hsize_t rows, const std::string& file, const std::string& what) {
  std::vector<hsize_t> dims = h5::dataset_dims(dataset, file, what);
  dims[0] = rows;
  h5::check(H5Dset_extent(dataset, dims.data()), file, str("cannot truncate ", what));
}

}  // namespace

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
      history.n_quantities = h5::read_strings_attribute(group.get(), "quantities", file).size();
      history.time = h5::open_dataset(group.get(), "time", file);
      history.values = h5::open_dataset(group.get(), "values", file);
      const std::string& what = history.where;
      const auto time_dims = h5::dataset_dims(history.time.get(), file, what + "/time");
      const auto value_dims = h5::dataset_dims(history.values.get(), file, what + "/values");
      if (time_dims.size() != 1 || value_dims.size() != 4 || value_dims[2] != history.n_quantities ||
          value_dims[3] != static_cast<hsize_t>(dim))
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
}

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
                                     std::span<const double> depth) {
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

  History history;
  history.name = key;
  history.where = shot.empty() ? str("/histories/", name) : str("/shots/", shot, "/histories/", name);
  history.n_nodes = n_points;
  history.n_quantities = quantities.size();
  Handle group = h5::create_group((shot.empty() ? histories_group : shot_histories).get(), name, file);
  std::vector<std::string> names;
  for (Quantity quantity : quantities) names.emplace_back(quantity_name(quantity));
  h5::set_attribute(group.get(), "quantities", names, file);
  h5::set_attribute(group.get(), "dimension", std::int64_t{dim}, file);
  write_points(group.get());

  const std::size_t per_node = quantities.size() * static_cast<std::size_t>(dim);
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
  const std::array<hsize_t, 4> value_dims{0, n_points, quantities.size(), static_cast<hsize_t>(dim)};
  const std::array<hsize_t, 4> value_chunk{sample_chunk, node_chunk, quantities.size(), static_cast<hsize_t>(dim)};
  history.values = extendible_dataset(group.get(), "values", value_dims, value_chunk, file);
  std::vector<std::string> units;
  for (Quantity quantity : quantities)
    units.emplace_back(quantity == Quantity::Displacement ? "m" : quantity == Quantity::Velocity ? "m/s" : "m/s^2");
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
  const std::size_t per_sample = history.n_nodes * history.n_quantities * static_cast<std::size_t>(self.dim);
  if (values.size() != times.size() * per_sample)
    throw Error(str(self.path.string(), ": history '", history.name, "': ", values.size(), " values for ",
                    times.size(), " samples; expected ", times.size() * per_sample));
  if (times.empty()) return;
  const std::string what = "/histories/" + history.name;
  self.writing([&] {
    append_rows(history.time.get(), history.n_samples, times.size(), {}, times.data(), self.file, what + "/time");
    const std::array<hsize_t, 3> row{history.n_nodes, history.n_quantities, static_cast<hsize_t>(self.dim)};
    append_rows(history.values.get(), history.n_samples, times.size(), row, values.data(), self.file,
                what + "/values");
  });
  history.n_samples += times.size();
  self.unflushed_bytes += (times.size() + values.size()) * sizeof(double);
}

void ResultFile::append_samples(int id, std::span<const double> times, std::span<const float> values) {
  const std::vector<double> wide(values.begin(), values.end());
  append_samples(id, times, std::span<const double>(wide));
}

void ResultFile::write_snapshot(double time, std::span<const double> displacement, std::span<const double> velocity) {
  impl().writing([&] { impl().write_snapshot(time, displacement, velocity); });
}

void ResultFile::write_snapshot(double time, std::span<const float> displacement, std::span<const float> velocity) {
  const std::vector<double> wide_displacement(displacement.begin(), displacement.end());
  const std::vector<double> wide_velocity(velocity.begin(), velocity.end());
  write_snapshot(time, std::span<const double>(wide_displacement), std::span<const double>(wide_velocity));
}

void ResultFile::write_static(const StaticFields& fields) {
  impl().writing([&] { impl().write_static(fields); });
}

void ResultFile::start_bem(const BemSetup& setup) {
  impl().writing([&] { impl().start_bem(setup); });
}

void ResultFile::write_bem_frequency(const BemFrequencyFields& fields) {
  impl().writing([&] { impl().write_bem_frequency(fields); });
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

void ResultFile::set_progress(std::int64_t step_count, double wall_time) {
  impl().metadata.step_count = step_count;
  impl().metadata.wall_time = wall_time;
}

void ResultFile::flush() {
  Impl& self = impl();
  self.writing([&] {
    self.write_metadata("incomplete");
    self.flush_file();
  });
  self.flushed_step = self.metadata.step_count;
}

void ResultFile::finish(const std::string& status) { impl().finish(status); }

void ResultFile::finish(const std::string& status, std::int64_t step_count, double wall_time) {
  if (impl().finished) return;
  set_progress(step_count, wall_time);
  impl().finish(status);
}

const fs::path& ResultFile::path() const { return impl().path; }
const fs::path& ResultFile::partial_path() const { return impl().partial; }
fs::path ResultFile::xdmf_path() const { return result_xdmf_path(impl().path); }
bool ResultFile::finished() const { return impl().finished; }
bool ResultFile::dropped_images() const { return impl().images_dropped; }
std::string ResultFile::abandon() { return impl_ ? impl_->abandon() : std::string(); }
bool ResultFile::stopped_writing() const { return !impl().broken.empty(); }

}  // namespace tremor::io
