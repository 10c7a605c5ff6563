#pragma once
// Private to ResultFile (io/result_file.hpp): its Impl, and the helpers its parts share. The
// writing is split by what is written (docs/output-format.md):
//   result_file.cpp           quantity names; create and reopen, /metadata and /mesh, flushing,
//                             stopping after a failed write, finish (the rename, the XDMF file) and
//                             abandon: the file's lifecycle, which every layout shares
//   result_file_explicit.cpp  an explicit run's /histories, /shots and /snapshots, a reopened
//                             file's checks against its checkpoint, the snapshots' XDMF file
//   result_file_static.cpp    /static of `tremor static`, and its XDMF file
//   result_file_bem.cpp       /bem of `tremor bem`: the problem, one row per frequency, its XDMF file
// Included from those .cpp files only (HDF5 is linked privately: io/result_hdf5.hpp).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/io/result_file.hpp"
#include "tremor/io/result_hdf5.hpp"
#include "tremor/io/result_xdmf.hpp"

namespace tremor {
class Mesh;
}

namespace tremor::io {

namespace result_file_detail {

// Chunks of about this size: large enough that appends write whole chunks, small enough to sit
// in HDF5's default 1 MiB chunk cache per dataset.
constexpr std::size_t target_chunk_bytes = std::size_t{64} * 1024;
// The most a history's last chunks may take (values and times; declare_history's bounds).
constexpr std::uint64_t history_chunks_at_most = 4 * target_chunk_bytes + 4096 * sizeof(double);
// What a dataset written since the last flush may add to the file's metadata at the flush (its
// chunk index's new nodes: about 6 KiB measured for a history's first flush).
constexpr std::uint64_t dataset_metadata_bytes = 8 * 1024;
// The least data a flush is made for between the recorder's timed flushes (Impl::flush_if_large).
constexpr std::uint64_t flush_at_bytes = std::uint64_t{1} << 20;

// A dataset of doubles, `dims` with the first unlimited, stored in chunks of `chunk`; what is not
// written reads as `fill`.
h5::Handle extendible_dataset(hid_t parent, const std::string& name, std::span<const hsize_t> dims,
                              std::span<const hsize_t> chunk, const std::string& file, double fill = 0.0);

// Appends `rows` rows (dims[1..] each) of `data` to an extendible dataset holding `old_rows`.
void append_rows(hid_t dataset, hsize_t old_rows, hsize_t rows, std::span<const hsize_t> row_dims,
                 const double* data, const std::string& file, const std::string& what);

struct History {
  std::string name;   // a shot's: "<shot>/<name>" (ResultFile::begin_shot)
  std::string where;  // its group in the file, for messages
  std::size_t n_nodes = 0;
  std::size_t n_quantities = 0;
  std::size_t n_components = 0;  // per quantity: the mesh's dimension, or 1 for pressure
  hsize_t n_samples = 0;
  bool touched = false;  // samples appended since the last flush
  // Its last chunks' bytes (values and times): what an append may allocate beyond its data (a
  // history reopened: the most they may be).
  std::uint64_t chunk_bytes = history_chunks_at_most;
  h5::Handle time;
  h5::Handle values;
};

}  // namespace result_file_detail

struct ResultFile::Impl {
  using Handle = h5::Handle;
  using History = result_file_detail::History;

  std::filesystem::path path;
  std::filesystem::path partial;
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
  Handle displacement_group, magnitude_group, velocity_group, pressure_group;

  XdmfMesh full_mesh;      // the mesh for the XDMF file
  XdmfMesh snapshot_mesh;  // the mesh snapshots live on (full_mesh, or the subset's)

  bool finished = false;
  OutputClaim claim;        // the lock on the file written, held until it has its final name
  std::string broken;       // why writing stopped (a write failed); empty while the file is whole
  std::int64_t flushed_step = -1;  // metadata.step_count at the last successful flush; -1: none yet
  std::uint64_t unflushed_bytes = 0;  // data handed to HDF5 since the last flush
  // The last chunks of the datasets written since the last flush (histories, full-matrix captures'
  // rows), which the flush may allocate whole beyond their data.
  std::uint64_t touched_bytes = 0;

  // result_file.cpp: the file's lifecycle and what every layout shares.
  // Flushes with the space it needs allocated first. HDF5 writes the superblock (with the file's
  // new end) before it extends the file, so a flush refused by a full disk midway would leave a
  // file that no longer opens ("truncated file"); with the file already long enough no write of
  // the flush can be refused, and a reservation that fails stops writing before any of it.
  void flush_file();
  // flush_file() once the data handed to HDF5 since the last flush reaches an eighth of the file
  // (and flush_at_bytes): the room a flush reserves for it then stays a fraction of the file's
  // size, so that a disk holding the finished file with that margin does not refuse a reservation
  // mid-run (a capture's shots, whose histories once came at each shot's end, reserved for all of
  // them at once, twice over: 2.5 times the room the file took).
  void flush_if_large();

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

  // The point sources at positions (a seismic event, a force between nodes): /sources, names,
  // kinds and positions, which trace exports take as the event.
  void write_sources(const Model& model);
  void write_mesh(const Model& model);
  void write_metadata(const std::string& status);
  void finish(const std::string& status);
  // finish() up to the rename: the status written, the file flushed, closed and cut to its size.
  void close_whole(const std::string& status);
  std::string abandon();

  // result_file_explicit.cpp: histories, shots and snapshots.
  void start_snapshots(const Mesh& mesh);
  int declare_history(const std::string& name, std::size_t n_points, std::span<const Quantity> quantities,
                      const std::function<void(hid_t group)>& write_points);
  // Reopening checks the whole file against the checkpoint before truncate_to_checkpoint()
  // changes any of it, so a refused file keeps everything it held.
  void reopen_histories(const std::map<std::string, std::int64_t>& samples);
  void reopen_snapshots(std::int64_t count);
  void truncate_to_checkpoint();
  void write_snapshot(double time, std::span<const double> displacement, std::span<const double> velocity,
                      std::span<const double> pressure);
  // The XDMF file of the snapshots, or of the mesh alone when there are none.
  void write_snapshots_xdmf(const std::filesystem::path& xdmf) const;

  // result_file_static.cpp: /static.
  void write_static(const StaticFields& fields);
  void write_static_xdmf(const std::filesystem::path& xdmf) const;

  // result_file_bem.cpp: /bem.
  void start_bem(const BemSetup& setup);
  void write_bem_frequency(const BemFrequencyFields& fields);
  void write_bem_xdmf(const std::filesystem::path& xdmf) const;

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

}  // namespace tremor::io
