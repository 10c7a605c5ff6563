#pragma once
// ResultFile: the one HDF5 file a run writes (layout in docs/output-format.md) and the XDMF file
// beside it that lets ParaView open the snapshots as a time series.
//
// Atomic: everything is written to `<path>.partial` in the same folder, locked against a second
// writer (claim_result_file) before it is truncated; finish() closes it and renames it to
// `<path>` (replacing a previous file there only then), then writes `<stem>.xmf`. `<path>` must
// be absent or a regular file. A write that fails (a full disk) stops all writing at once: the
// file stays `<path>.partial`, readable, holding what the last flush() wrote, and the failing
// call throws saying so (ResultFile::Impl::stop_writing).
// A run that fails or is interrupted calls finish() with status "failed: <why>" or "incomplete":
// the file is still renamed, so nothing written is lost and the status says what it holds. The
// destructor of a ResultFile that was never finished finishes it as "incomplete" (errors there
// are swallowed: the `.partial` file then stays where it was). Only a process killed outright
// (SIGKILL, power loss) leaves `<path>.partial`, holding what the last flush() wrote.
//
// Not thread-safe; one ResultFile per file. Signal handling is the caller's: set a flag in the
// handler and call finish("incomplete") from the time loop.
//
// Written by result_file.cpp (the file's lifecycle) and, one file per layout,
// result_file_explicit.cpp, result_file_static.cpp and result_file_bem.cpp (result_file_impl.hpp).
#include <array>
#include <complex>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/io/file.hpp"
#include "tremor/model/bem_problem.hpp"

namespace tremor {
struct Model;
struct ReceiverGrid;
}

namespace tremor::io {

// The motion (a vector: the mesh's dimension of components) or a fluid's pressure (a scalar: one
// component). A history records pressure alone, or motion.
enum class Quantity : std::uint8_t { Displacement, Velocity, Acceleration, Pressure };

// "displacement", "velocity", "acceleration", "pressure"; the one-letter prefix of CSV columns:
// u, v, a, p; the SI unit: m, m/s, m/s^2, Pa.
const char* quantity_name(Quantity quantity);
char quantity_letter(Quantity quantity);
const char* quantity_unit(Quantity quantity);
// Parses quantity_name()'s names and the Abaqus/model-file letters "U", "V", "A".
Quantity parse_quantity(std::string_view name);

// What the file records about the run. Strings may be empty (written as "" except git_commit,
// written as "unknown").
struct RunMetadata {
  std::string git_commit;  // of the tremor build, when known
  std::string model_path;  // the model file as the user named it
  std::string model_hash;  // e.g. "sha256:..." of the model file's bytes; the caller's choice
  std::string backend;     // "serial", "openmp", "cuda"
  std::string precision;   // "float" or "double"
  double time_step = 0.0;  // s
  std::int64_t step_count = 0;  // steps taken (updated by set_progress and finish)
  double wall_time = 0.0;       // s, of the time loop (updated by set_progress and finish)
  std::string solver = "explicit";  // "explicit", "static" or "bem"
};

// A static solution (static/solve.hpp), node by node over the whole mesh, with the record of the
// solve that produced it. Spans are [n_nodes][components], node-major.
struct StaticFields {
  std::span<const double> displacement;  // dim per node, m
  std::span<const double> stress;        // Voigt per node (xx, yy, xy in 2D; xx, yy, zz, yz, xz, xy in 3D), Pa
  std::span<const double> von_mises;     // one per node, Pa
  std::span<const double> reaction;      // dim per node, N: K u - f at constrained DOFs, 0 elsewhere
  bool converged = false;
  std::int64_t iterations = 0;
  double relative_residual = 0.0;        // ||f - K u|| / ||f|| at the end
  double tolerance = 0.0;
  std::string preconditioner;
  std::span<const double> residual_history;  // relative residual per iteration, from iteration 0
};

// A boundary-element problem (bem/solve.hpp) as /bem records it, written once before its first
// frequency (docs/output-format.md, "/bem"). Elements are in the solver's order; complex values
// are amplitudes of e^{+i omega t}.
struct BemSetup {
  std::span<const double> frequencies;        // Hz, every frequency asked for, in order
  std::span<const Index> connectivity;        // 4 mesh node indices per element, -1 as a triangle's 4th
  std::span<const Label> element_labels;      // one per element
  std::span<const double> centroids;          // 3 per element, m: the collocation points
  std::span<const double> normals;            // 3 per element: unit normals out of the solid
  std::span<const double> areas;              // one per element, m^2
  std::span<const std::int32_t> prescribed;   // 3 per element: 0 traction given, 1 displacement given
  std::span<const double> interior_points;    // 3 per point, m (may be empty)
  std::vector<std::string> force_sets;        // element sets whose resultant force each frequency records
  // Constant (the paper's: a collocation node per element, at its centroid), linear
  // (discontinuous: a node per vertex, pulled into the element) or quadratic (a node per node of a
  // second-order element); bem/assembly.hpp numbers them.
  BemElements elements = BemElements::Constant;
  std::span<const double> node_positions;     // linear, quadratic: 3 per collocation node, m
  std::span<const Index> node_elements;       // linear, quadratic: per node, the element holding it (0-based)
  std::string solid;                          // "inside", "outside" or "open"
  BemFreeTerm free_term = BemFreeTerm::Direct;  // RigidBody or Direct (the one used, never Auto)
  BemSolver solver = BemSolver::Dense;          // Dense or HMatrix (the one used, never Auto)
  double tolerance = 0.0;                       // HMatrix: its relative accuracy
  int gauss = 0, singular_gauss = 0, max_depth = 0;
  double near_ratio = 0.0;
  double density = 0.0, lame_lambda = 0.0, shear_modulus = 0.0, damping_ratio = 0.0;
};

// One solved frequency of a boundary-element problem.
struct BemFrequencyFields {
  double frequency = 0.0;                                // Hz
  std::span<const std::complex<double>> displacement;    // 3 per element, m
  std::span<const std::complex<double>> traction;        // 3 per element, Pa
  // Linear elements: the solution itself, 3 per collocation node (empty for constant elements,
  // whose displacement and traction above are their nodes' values). The per-element fields above
  // then hold the values interpolated at each element's centre.
  std::span<const std::complex<double>> node_displacement;  // m
  std::span<const std::complex<double>> node_traction;      // Pa
  std::span<const std::complex<double>> interior;        // 3 per interior point, m
  std::span<const std::complex<double>> forces;          // 3 per force set, N: the traction integrated
  double reciprocal_condition = 0.0;  // of the solved system (NaN when not estimated)
  double assembly_seconds = 0.0, solve_seconds = 0.0, interior_seconds = 0.0;
};

// What /fmc/<array> records of a full-matrix capture besides its A-scans (model/array.hpp,
// docs/output-format.md).
struct FmcHeader {
  std::string array, surface;
  int dim = 3;
  std::size_t n_samples = 0;             // per A-scan
  std::vector<std::array<double, 3>> elements;  // m: the elements' centres
  std::array<double, 3> centre{0.0, 0.0, 0.0}, direction{0.0, 0.0, 0.0};
  std::array<double, 3> normal{0.0, 0.0, 0.0};  // inward: the way the elements push, and what they read
  std::array<double, 3> elevation{0.0, 0.0, 0.0};  // across the array (3D; normal x direction)
  double pitch = 0.0, width = 0.0, length = 0.0;  // m
  std::int64_t rows = 1;  // a matrix array's rows across the array
  double row_pitch = 0.0;  // m
  double depth = 0.0;  // m: the part's extent from the surface along the normal
  // "displacement" (the footprints' mean along the normal, m) or, immersed, "pressure" (Pa).
  std::string quantity = "displacement";
  // Immersed: the fluid's sound speed (m/s) and the distance along the normal to the nearest solid
  // node (m: the water path where the interface is parallel to the array); NaN in contact.
  double sound_speed = 0.0, interface_depth = 0.0;
  double dt = 0.0, t0 = 0.0;  // s: between samples, and the first sample's time
  double signal_peak = 0.0;   // s: when the excitation's envelope peaks
  // m/s: the part's under the array (immersed: the solid's nearest it; isotropic), NaN when it has none.
  double longitudinal_speed = 0.0, shear_speed = 0.0;
  std::vector<std::string> shots;  // the shot of each transmitter
};

// Which nodes snapshots hold and which fields besides displacement (fixed at create()).
struct SnapshotOptions {
  std::vector<Index> nodes;  // mesh node indices, ascending and unique; empty: all nodes
  bool magnitude = false;    // |u| per node, computed here from the displacement
  bool velocity = false;     // velocity field, passed to write_snapshot
  bool pressure = false;     // a fluid's pressure, one value per node, passed to write_snapshot
};

// The XDMF file written beside a result file at `path`: `<stem>.xmf`.
std::filesystem::path result_xdmf_path(const std::filesystem::path& path);

// Checks the output rules (io/file.hpp) for a result file at `path` and its XDMF file, and locks
// the file it will be written into: `<path>.partial`, created empty when absent; when
// `continuing` an interrupted run, the existing `<path>.partial`, else `<path>` itself (reopen()
// renames it). Lets a command refuse a second writer before any work. A `path` whose XDMF file
// would be itself (a name ending in .xmf, in any case) is refused: the XDMF file would replace
// the results.
OutputClaim claim_result_file(const std::filesystem::path& path, bool continuing);

class ResultFile {
 public:
  // Starts `<path>.partial` (a stale one an unfinished run left, an HDF5 file, kept as
  // `<stem>.killed<ext>` and said; anything else there replaced) with /mesh and /metadata (status
  // "incomplete"). Throws tremor::Error naming the path when the folder does not exist or the
  // file cannot be created. An existing `<path>` is left untouched until finish().
  // `snapshots` says which nodes and fields snapshots will hold. The model is not kept.
  // `claim`: claim_result_file(path, false) when the caller took it already, else taken here.
  static ResultFile create(const std::filesystem::path& path, const Model& model, const RunMetadata& metadata,
                           const SnapshotOptions& snapshots = {}, OutputClaim claim = {});

  // Continues the file of an interrupted run (a checkpoint's, docs/running.md): opens
  // `<path>.partial`, or `<path>` (renamed to `<path>.partial`) when the run was finished as
  // incomplete, truncates each history to `history_samples[name]` samples and the snapshots to
  // `n_snapshots`, and goes on as create() would have. The metadata's `created` and title stay;
  // the rest is `metadata`'s. Throws naming the file when it is missing, holds fewer samples or
  // snapshots than asked for, or holds other histories or snapshot fields than the run's.
  // /images (maps tremor image made of the interrupted run's partial histories) is removed:
  // dropped_images() says so.
  static ResultFile reopen(const std::filesystem::path& path, const Model& model, const RunMetadata& metadata,
                           const SnapshotOptions& snapshots,
                           const std::map<std::string, std::int64_t>& history_samples, std::int64_t n_snapshots,
                           OutputClaim claim = {});

  ResultFile(ResultFile&&) noexcept;
  ResultFile& operator=(ResultFile&&) noexcept;
  ResultFile(const ResultFile&) = delete;
  ResultFile& operator=(const ResultFile&) = delete;
  // Finishes an unfinished file as "incomplete" (see above).
  ~ResultFile();

  // A model's shots (model/transducer.hpp): the histories declared after this call are the shot's,
  // /shots/<name>/histories/<history> (the shot's group records the transducers it fires), known
  // to history_id() and sample_counts() as "<name>/<history>". A shot begun already (a reopened
  // file's) is continued.
  void begin_shot(const std::string& name, std::span<const std::string> transducers);

  // Writes row `transmitter` of /fmc/<header.array>/data, [transmitter][receiver][sample]
  // (`values`: receiver-major, n_elements x n_samples), creating the group with the header's
  // attributes when the file has none; rows not written read NaN. A row written again (a resumed
  // shot) is replaced.
  void write_fmc_row(const FmcHeader& header, Index transmitter, std::span<const double> values);

  // Declares a history set: /histories/<name>, recording `quantities` (each with the mesh's
  // dimension of components; pressure, alone, with one) at `nodes` (mesh node indices, any order,
  // as the columns will be). Names must be unique, non-empty and free of '/'. Returns the id for
  // append_samples.
  int add_history(const std::string& name, std::span<const Index> nodes, std::span<const Quantity> quantities);
  // The same at positions inside elements: `positions` holds dim coordinates per point (m),
  // `elements` the element (global index, blocks in order) each lies in. With `grid`, the
  // positions are its points in order, and its shape is written beside them, with the model's
  // defects there when it has any: `footprint` (1 inside one) and `depth` (m), one per point.
  // `point_names`, when given, name the points (attribute point_names: a STATIONS file's
  // "NET.STA"), which trace exports take as stations.
  int add_position_history(const std::string& name, std::span<const double> positions,
                           std::span<const Index> elements, std::span<const Quantity> quantities,
                           const ReceiverGrid* grid = nullptr, std::span<const unsigned char> footprint = {},
                           std::span<const double> depth = {}, std::span<const std::string> point_names = {});
  // The id of a declared (or reopened) history; throws when there is none of that name.
  int history_id(const std::string& name) const;
  // Samples and snapshots in the file so far (what a checkpoint records).
  std::int64_t n_samples(int history) const;
  std::int64_t n_snapshots() const;
  std::map<std::string, std::int64_t> sample_counts() const;  // per history name
  // A history's values in the file, [sample][point][quantity][component] (a shot's whole, when a
  // resumed run holds only its samples since the checkpoint).
  std::vector<double> read_values(int history) const;

  // Appends samples to a history: times[s] and values laid out [sample][node][quantity][component]
  // (times.size() * nodes * quantities * components values).
  void append_samples(int history, std::span<const double> times, std::span<const double> values);
  void append_samples(int history, std::span<const double> times, std::span<const float> values);

  // Writes one snapshot: displacement (and velocity when asked for), dim values per snapshot
  // node, node-major; pressure (when asked for) one value per snapshot node. Times should
  // increase (ParaView orders the series by them).
  void write_snapshot(double time, std::span<const double> displacement, std::span<const double> velocity = {},
                      std::span<const double> pressure = {});
  void write_snapshot(double time, std::span<const float> displacement, std::span<const float> velocity = {},
                      std::span<const float> pressure = {});

  // Writes /static (docs/output-format.md): the fields above and the solver's record. Once per
  // file; the XDMF file then shows them on the mesh.
  void write_static(const StaticFields& fields);

  // Starts /bem (docs/output-format.md): what the problem is, with empty per-frequency datasets
  // that write_bem_frequency() extends. Once per file; the mesh given to create() must be the
  // surface (the XDMF file shows the fields on its elements, cell-centred).
  void start_bem(const BemSetup& setup);
  // Appends one solved frequency to /bem. The XDMF file then holds one grid per frequency written
  // (ParaView's time is the frequency, Hz), so a run that fails keeps what it solved.
  void write_bem_frequency(const BemFrequencyFields& fields);

  // Records the run's progress; written to /metadata at the next flush() or finish().
  void set_progress(std::int64_t step_count, double wall_time);

  // Writes the metadata and flushes HDF5's buffers to the `.partial` file, so a process killed
  // afterwards leaves a readable file holding everything appended so far. Costs one write of
  // the dirty chunks and metadata; calling it every few seconds of wall time is cheap.
  void flush();

  // Closes the file with `status` ("complete", "incomplete" or "failed: <why>"), renames it to
  // its final path and writes the XDMF file. Idempotent: later calls do nothing. Throws when
  // closing or renaming fails (the `.partial` file is then kept).
  void finish(const std::string& status);
  void finish(const std::string& status, std::int64_t step_count, double wall_time);

  // Gives the file up before the run it records computed anything (its set-up failed), so that
  // the output path keeps what it held: a created file is closed and removed, leaving `<path>`
  // of an earlier run as it was; a reopened one (a resumed run) is closed with the status
  // "incomplete" and the progress set_progress() gave, under the name it had before reopen().
  // Returns a line saying what the output path holds now (empty when the file was finished
  // already or writing had stopped, which reported it). Never throws.
  std::string abandon();

  const std::filesystem::path& path() const;          // final path
  const std::filesystem::path& partial_path() const;  // where it is written until finish()
  std::filesystem::path xdmf_path() const;            // `<stem>.xmf` beside path()
  bool finished() const;
  bool dropped_images() const;  // reopen() removed /images
  // A write failed and writing stopped: the file stays partial_path() (see stop_writing).
  bool stopped_writing() const;

  struct Impl;

 private:
  explicit ResultFile(std::unique_ptr<Impl> impl);
  Impl& impl() const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tremor::io
