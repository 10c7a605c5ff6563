// The result file's lifecycle and what every layout shares: quantity names, create and reopen,
// /metadata and /mesh, flushing, stopping after a failed write, finish and abandon. Each layout's
// writers are in their own file (result_file_impl.hpp lists them).
#include "tremor/io/result_file.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/result_file_impl.hpp"
#include "tremor/io/result_hdf5.hpp"
#include "tremor/io/result_xdmf.hpp"
#include "tremor/model/material_field.hpp"
#include "tremor/model/model.hpp"

namespace tremor::io {

namespace fs = std::filesystem;
using h5::Handle;
using namespace result_file_detail;

const char* quantity_name(Quantity quantity) {
  switch (quantity) {
    case Quantity::Displacement: return "displacement";
    case Quantity::Velocity: return "velocity";
    case Quantity::Acceleration: return "acceleration";
    case Quantity::Pressure: return "pressure";
  }
  return "?";
}

const char* quantity_unit(Quantity quantity) {
  switch (quantity) {
    case Quantity::Displacement: return "m";
    case Quantity::Velocity: return "m/s";
    case Quantity::Acceleration: return "m/s^2";
    case Quantity::Pressure: return "Pa";
  }
  return "?";
}

char quantity_letter(Quantity quantity) {
  switch (quantity) {
    case Quantity::Displacement: return 'u';
    case Quantity::Velocity: return 'v';
    case Quantity::Acceleration: return 'a';
    case Quantity::Pressure: return 'p';
  }
  return '?';
}

Quantity parse_quantity(std::string_view name) {
  if (name == "displacement" || name == "U" || name == "u") return Quantity::Displacement;
  if (name == "velocity" || name == "V" || name == "v") return Quantity::Velocity;
  if (name == "acceleration" || name == "A" || name == "a") return Quantity::Acceleration;
  if (name == "pressure") return Quantity::Pressure;
  throw Error(str("unknown quantity '", name, "': expected displacement, velocity, acceleration or pressure"));
}

namespace {

constexpr std::int64_t format_version = 1;

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return buffer;
}

}  // namespace

namespace result_file_detail {

Handle extendible_dataset(hid_t parent, const std::string& name, std::span<const hsize_t> dims,
                          std::span<const hsize_t> chunk, const std::string& file, double fill) {
  std::vector<hsize_t> max_dims(dims.begin(), dims.end());
  max_dims[0] = H5S_UNLIMITED;
  Handle space = h5::open_or_fail(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), max_dims.data()),
                                  H5Sclose, file, "cannot create a dataspace");
  Handle properties = h5::open_or_fail(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, file, "cannot create properties");
  h5::check(H5Pset_chunk(properties.get(), static_cast<int>(chunk.size()), chunk.data()), file,
            str("cannot set the chunks of ", name));
  if (fill != 0.0)
    h5::check(H5Pset_fill_value(properties.get(), H5T_NATIVE_DOUBLE, &fill), file,
              str("cannot set the fill value of ", name));
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

}  // namespace result_file_detail

namespace {

// The holes, notches and cracks cut from the mesh (mesh/holes.hpp, mesh/cracks.hpp), for images to
// outline (docs/output-format.md): each kind's rows of numbers, their names an attribute; a crack's
// points one dataset each under /mesh/cracks.
void write_defects(hid_t mesh, const std::vector<Hole>& holes, const std::vector<Crack>& cracks, const std::string& file) {
  const auto rows = [&](const char* name, Hole::Kind kind, std::size_t width, auto&& row) {
    std::vector<double> values;
    std::vector<std::string> names;
    for (const Hole& hole : holes)
      if (hole.kind == kind) {
        row(hole, values);
        names.push_back(hole.name);
      }
    if (names.empty()) return;
    const std::array<hsize_t, 2> dims{names.size(), width};
    h5::write_doubles(mesh, name, values, dims, file);
    Handle dataset = h5::open_dataset(mesh, name, file);
    h5::set_attribute(dataset.get(), "names", names, file);
  };
  const auto centre_axis = [](const Hole& hole, std::vector<double>& v) {
    v.insert(v.end(), hole.centre.begin(), hole.centre.end());
    v.insert(v.end(), hole.axis.begin(), hole.axis.end());
  };
  // Side-drilled: centre, axis, radius. Flat-bottom: the bottom's centre, the axis out of the part,
  // radius. Notches: the end's centre, the axis out, along, width, length.
  const auto round = [&](const Hole& hole, std::vector<double>& v) {
    centre_axis(hole, v);
    v.push_back(hole.radius);
  };
  rows("holes", Hole::Kind::side_drilled, 7, round);
  rows("flat_bottom_holes", Hole::Kind::flat_bottom, 7, round);
  rows("notches", Hole::Kind::notch, 11, [&](const Hole& hole, std::vector<double>& v) {
    centre_axis(hole, v);
    v.insert(v.end(), hole.along.begin(), hole.along.end());
    v.push_back(hole.width);
    v.push_back(hole.length);
  });
  if (cracks.empty()) return;
  // Each crack a group: its pieces' points in turn, and how many each has (its points as one
  // piece, or a surface's faces: segments in 2D, triangles in 3D).
  Handle group = h5::create_group(mesh, "cracks", file);
  for (const Crack& crack : cracks) {
    const std::vector<std::vector<std::array<double, 3>>> one{crack.points};
    const auto& pieces = crack.pieces.empty() ? one : crack.pieces;
    std::vector<double> points;
    std::vector<std::int64_t> counts;
    for (const auto& piece : pieces) {
      for (const auto& p : piece) points.insert(points.end(), p.begin(), p.end());
      counts.push_back(static_cast<std::int64_t>(piece.size()));
    }
    Handle one_crack = h5::create_group(group.get(), crack.name, file);
    const std::array<hsize_t, 2> dims{points.size() / 3, 3};
    h5::write_doubles(one_crack.get(), "points", points, dims, file);
    const std::array<hsize_t, 1> count_dims{counts.size()};
    h5::write_int64(one_crack.get(), "pieces", counts, count_dims, file);
  }
}

}  // namespace

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
  write_defects(group.get(), source.holes, source.cracks, file);

  full_mesh.dim = dim;
  full_mesh.n_nodes = n_nodes;
  full_mesh.coordinates = "/mesh/coordinates";
  Handle blocks = h5::create_group(group.get(), "blocks", file);
  // Where a material has a field or grains, each element's material row (element_materials), for
  // plots and ParaView: the grains, a field's samples.
  std::vector<int> element_row;
  if (std::any_of(source.materials.begin(), source.materials.end(),
                  [](const Material& m) { return m.field != nullptr || m.grains != nullptr; }))
    element_row = element_materials(source).element_row;
  Index first_element = 0;
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
    if (!element_row.empty()) {
      const auto at = element_row.begin() + first_element;
      const std::vector<std::int32_t> rows(at, at + block.n_elements());
      h5::write_int32(block_group.get(), "material", rows, element_dims, file);
      cells.material = block_path + "/material";
      if (is_gll(block.type)) {  // the same row for each of an element's linear cells
        const auto per = static_cast<std::size_t>(cells.n_cells / std::max<Index>(block.n_elements(), 1));
        std::vector<std::int32_t> cell_rows;
        cell_rows.reserve(rows.size() * per);
        for (const std::int32_t row : rows) cell_rows.insert(cell_rows.end(), per, row);
        const std::array<hsize_t, 1> cell_dims{cell_rows.size()};
        h5::write_int32(block_group.get(), "linear_cell_material", cell_rows, cell_dims, file);
        cells.material = block_path + "/linear_cell_material";
      }
    }
    first_element += block.n_elements();
    full_mesh.blocks.push_back(cells);
  }
  snapshot_mesh = full_mesh;
}

void ResultFile::Impl::write_sources(const Model& model) {
  std::vector<std::string> names, kinds;
  std::vector<double> positions;
  for (const PointSource& source : model.point_sources) {
    if (!source.nodes.empty() || !source.position) continue;
    names.push_back(source.name);
    kinds.push_back(source.moment ? "moment tensor" : source.volume ? "volume" : "force");
    positions.insert(positions.end(), source.position->begin(), source.position->end());
  }
  if (names.empty()) return;
  Handle group = h5::create_group(handle.get(), "sources", file);
  h5::set_attribute(group.get(), "names", names, file);
  h5::set_attribute(group.get(), "kinds", kinds, file);
  const std::array<hsize_t, 2> dims{names.size(), 3};
  h5::write_doubles(group.get(), "positions", positions, dims, file);
  Handle dataset = h5::open_dataset(group.get(), "positions", file);
  h5::set_attribute(dataset.get(), "units", std::string("m"), file);
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

void ResultFile::Impl::flush_file() {
  hsize_t size = 0;
  h5::check(H5Fget_filesize(handle.get(), &size), file, "cannot read the size of the result file");
  // The flush writes what is allocated (size) and the chunks still in HDF5's cache. The datasets
  // are chunked without filters, so a chunk takes its whole size once, when first written, and
  // later rows in it take nothing more: the new chunks hold at most the history samples, capture
  // rows and /bem rows handed to HDF5 since the last flush, plus a part-filled last chunk of each
  // dataset written since then (touched_bytes: a history's two, a capture's row) and of the
  // snapshot times (no more than a history's), plus room for metadata. A history not written since
  // (an earlier shot's) has its chunks on disk already. Snapshots themselves are written through
  // when taken.
  const std::uint64_t needed =
      size + unflushed_bytes + touched_bytes + history_chunks_at_most + 2 * target_chunk_bytes;
  const int refused = claim.reserve(needed);
  if (refused != 0)
    stop_writing(str(file, ": cannot write the result file: no room for the next ", needed - size,
                     " bytes (", std::strerror(refused), ")"));
  h5::check(H5Fflush(handle.get(), H5F_SCOPE_LOCAL), file, "cannot write the result file");
  unflushed_bytes = 0;
  touched_bytes = 0;
  for (History& history : histories) history.touched = false;
}

void ResultFile::Impl::flush_if_large() {
  if (unflushed_bytes < flush_at_bytes) return;
  hsize_t size = 0;
  h5::check(H5Fget_filesize(handle.get(), &size), file, "cannot read the size of the result file");
  if (unflushed_bytes >= size / 8) flush_file();
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
  pressure_group.reset();
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
  if (bem.started)
    write_bem_xdmf(xdmf);
  else if (has_static && snapshot_times.empty())
    write_static_xdmf(xdmf);
  else
    write_snapshots_xdmf(xdmf);
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

namespace {

// A `.partial` a run finds (claimed: no process writes it) was left by one that was killed, or
// whose writing failed, without a checkpoint to continue it (a run refuses to start over one).
// An HDF5 file there holds what that run wrote: it is kept, renamed to `<stem>.killed<ext>` (or
// `-2`, `-3`, ... where taken) beside the result, said, and a new `.partial` claimed. Anything
// else there (empty, or killed before HDF5 wrote its signature) holds nothing and is replaced.
void keep_a_killed_runs(OutputClaim& claim, const fs::path& path) {
  const fs::path partial = claim.file();
  std::error_code error;
  const auto size = fs::file_size(partial, error);
  if (error || size < 8) return;
  char head[8] = {};
  if (std::FILE* f = std::fopen(partial.c_str(), "rb")) {
    const std::size_t got = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
    if (got != sizeof head || std::memcmp(head, "\x89HDF\r\n\x1a\n", sizeof head) != 0) return;
  } else {
    return;
  }
  fs::path kept;
  for (int n = 1;; ++n) {
    kept = path.parent_path() / str(path.stem().string(), ".killed", n > 1 ? str("-", n) : std::string(),
                                    path.extension().string());
    if (!fs::exists(fs::symlink_status(kept, error))) break;
  }
  fs::rename(partial, kept, error);
  if (error)
    throw Error(str(partial.string(), ": left by an earlier run to ", path.string(), " that did not finish; cannot "
                    "keep it as ", kept.string(), " (", error.message(), "): move it away to start afresh"));
  log::warn(str(partial.string(), " was left by an earlier run to ", path.string(),
                " that did not finish (killed, or its writing failed); what it wrote is kept as ", kept.string()));
  claim = OutputClaim::lock(partial, true, path, "result file");
}

}  // namespace

ResultFile ResultFile::create(const fs::path& path, const Model& model, const RunMetadata& metadata,
                              const SnapshotOptions& snapshots, OutputClaim claim) {
  auto impl = prepare(path, model, metadata, snapshots);

  impl->claim = claim.held() ? std::move(claim) : claim_result_file(path, false);
  if (impl->claim.file() != impl->partial)
    throw Error(str(path.string(), ": internal error: the claim is on ", impl->claim.file().string()));
  keep_a_killed_runs(impl->claim, path);
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
    impl->write_sources(model);
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
    impl->pressure_group.reset();
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
