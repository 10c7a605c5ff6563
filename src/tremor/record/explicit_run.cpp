#include "tremor/record/explicit_run.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <deque>
#include <exception>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/receivers.hpp"
#include "tremor/imaging/envelope.hpp"
#include "tremor/io/file.hpp"
#include "tremor/mesh/defect.hpp"
#include "tremor/model/material_field.hpp"

namespace tremor::record {

namespace ex = tremor::explicit_fe;

namespace {

// FNV-1a (64 bit), fed piece by piece.
class Fnv1a {
 public:
  void add(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < size; ++i) {
      hash_ ^= bytes[i];
      hash_ *= 1099511628211ull;
    }
  }
  template <class T>
  void add(const std::vector<T>& values) {
    add(values.data(), values.size() * sizeof(T));
  }
  std::string hex() const {
    char text[24];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash_));
    return text;
  }

 private:
  std::uint64_t hash_ = 14695981039346656037ull;
};

io::Quantity to_io(ex::Quantity quantity) {
  switch (quantity) {
    case ex::Quantity::Displacement: return io::Quantity::Displacement;
    case ex::Quantity::Velocity: return io::Quantity::Velocity;
    case ex::Quantity::Acceleration: return io::Quantity::Acceleration;
    case ex::Quantity::Pressure: return io::Quantity::Pressure;
  }
  return io::Quantity::Displacement;
}

// Appends history samples to the result file on a thread of its own, so that the time loop does
// not wait for the disk while a large receiver grid's samples (hundreds of MB a run) are written.
// Every other use of the file takes `guard` (HDF5 is called by one thread at a time); drain()
// waits until what was queued is written, and rethrows a failure to write it.
class SampleWriter {
 public:
  SampleWriter(io::ResultFile& file, std::mutex& guard) : file_(file), guard_(guard) {}
  SampleWriter(const SampleWriter&) = delete;
  SampleWriter& operator=(const SampleWriter&) = delete;
  ~SampleWriter() {
    {
      const std::lock_guard lock(mutex_);
      closing_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  // Queues samples of history `id`, waiting while more than `max_queued` bytes are queued.
  void append(int id, std::vector<double> times, std::vector<double> values) {
    std::unique_lock lock(mutex_);
    rethrow();
    if (!thread_.joinable()) thread_ = std::thread([this] { write_loop(); });
    changed_.wait(lock, [&] { return queued_bytes_ <= max_queued || failure_; });
    rethrow();
    queued_bytes_ += 8 * (times.size() + values.size());
    queue_.push_back({id, std::move(times), std::move(values)});
    changed_.notify_all();
  }
  void drain() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return (queue_.empty() && !busy_) || failure_; });
    rethrow();
  }
  void check() {
    const std::lock_guard lock(mutex_);
    rethrow();
  }

 private:
  static constexpr std::size_t max_queued = std::size_t(1) << 30;
  struct Job {
    int id = 0;
    std::vector<double> times, values;
  };
  void rethrow() {
    if (failure_) std::rethrow_exception(failure_);
  }
  void write_loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return !queue_.empty() || closing_; });
      if (queue_.empty()) return;
      Job job = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      lock.unlock();
      std::exception_ptr failed;
      try {
        const std::lock_guard file_lock(guard_);
        file_.append_samples(job.id, job.times, job.values);
      } catch (...) {
        failed = std::current_exception();
      }
      lock.lock();
      busy_ = false;
      queued_bytes_ -= 8 * (job.times.size() + job.values.size());
      if (failed && !failure_) failure_ = failed;
      changed_.notify_all();
      if (failure_) {
        queue_.clear();
        queued_bytes_ = 0;
      }
    }
  }

  io::ResultFile& file_;
  std::mutex& guard_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> queue_;
  std::size_t queued_bytes_ = 0;
  bool busy_ = false, closing_ = false;
  std::exception_ptr failure_;
  std::thread thread_;
};

// Declares `histories` in the file, or finds them in a file continued (`reopened`): their ids by
// name. `shot`: the shot (ResultFile::begin_shot) they belong to; empty: none.
std::map<std::string, int> declare_histories(io::ResultFile& file, const Model& model,
                                             const std::vector<ex::History>& histories, bool reopened,
                                             const std::string& shot) {
  std::map<std::string, int> ids;
  for (const ex::History& history : histories) {
    if (reopened) {
      ids[history.name] = file.history_id(shot.empty() ? history.name : str(shot, "/", history.name));
      continue;
    }
    std::vector<io::Quantity> quantities;
    for (const ex::Quantity q : history.quantities) quantities.push_back(to_io(q));
    if (!history.nodes.empty()) {
      ids[history.name] = file.add_history(history.name, history.nodes, quantities);
      continue;
    }
    std::vector<double> positions;
    std::vector<Index> elements;
    for (std::size_t p = 0; p < history.positions.size(); ++p) {
      positions.insert(positions.end(), history.positions[p].begin(), history.positions[p].begin() + history.dim);
      elements.push_back(history.locations[p].element);
    }
    // A grid over a plate with defects: where they are and how deep at its points.
    std::vector<unsigned char> footprint;
    std::vector<double> depth;
    if (history.grid && !model.defects.empty()) defects_at(model.mesh, model.defects, history.positions, footprint, depth);
    ids[history.name] = file.add_position_history(history.name, positions, elements, quantities,
                                                  history.grid ? &*history.grid : nullptr, footprint, depth,
                                                  history.point_names);
  }
  return ids;
}

// The /fmc headers of the model's full-matrix captures (model/array.hpp): the receiver's sampling
// over `steps` of `dt`, when the excitation's envelope peaks (its centre, for imaging), and the
// speeds of the part under the array.
std::map<std::string, io::FmcHeader> fmc_headers(const Model& model, double dt, double duration, long long steps) {
  std::map<std::string, io::FmcHeader> headers;
  // Each element's material: its section's or its material field's sample.
  const ElementMaterials materials = element_materials(model);
  for (const TransducerArray& a : model.arrays) {
    if (!a.fmc) continue;
    io::FmcHeader h;
    h.array = a.name;
    h.surface = a.surface;
    h.dim = model.mesh.dim();
    h.elements = a.element_centres;
    h.centre = a.centre;
    h.direction = a.direction;
    h.normal = a.normal;
    h.elevation = a.elevation;
    h.pitch = a.pitch;
    h.rows = a.rows;
    h.row_pitch = a.row_pitch;
    h.width = a.width;
    h.length = a.length;
    h.depth = a.depth;
    h.dt = dt * a.every_n_steps;
    h.t0 = 0.0;
    // A shot's samples when it runs to its end: its displacement at steps 0, every, ..., steps; an
    // immersed array's pressure, known a step late, at none at the last step (explicit/fluid.hpp).
    h.n_samples = static_cast<std::size_t>((a.immersion ? steps - 1 : steps) / a.every_n_steps + 1);
    for (Index k = 0; k < a.n_elements; ++k) h.shots.push_back(a.element_name(k));
    // The envelope's peak over the signal's whole support, wherever the run ends: an image's time 0.
    h.signal_peak = imaging::excitation_peak(a.signal, a.delay, dt, duration);
    if (h.signal_peak > duration && a.delay < duration)  // (one that starts after the end is warned of as a load)
      log::warn(str(a.origin, ": array '", a.name, "': its excitation peaks at ", h.signal_peak, " s (its delay ",
                    a.delay, " s and the signal's own peak), after the run's end (", duration, " s): each of its ",
                    a.n_elements, " elements' waves leaves after the record ends, so an image of its capture ",
                    "(tremor image --tfm, timed from that peak) shows nothing"));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    h.longitudinal_speed = h.shear_speed = h.sound_speed = h.interface_depth = nan;
    const auto material_of = [&](Index element) { return materials.of(element); };
    // The part's speeds: under the array, or (immersed) the solid's at its node nearest the array.
    const Material* part = material_of(a.footprints.front().front().element);
    if (a.immersion) {
      h.quantity = "pressure";
      h.sound_speed = part->sound_speed();
      part = nullptr;
      for (Index e = 0; e < model.mesh.n_elements(); ++e) {
        const Material* m = material_of(e);
        if (!m || m->fluid) continue;
        const ElementRef ref = model.mesh.locate(e);
        for (const Index node : model.mesh.blocks[static_cast<std::size_t>(ref.block)].nodes(ref.element)) {
          double along = 0.0;
          for (std::size_t d = 0; d < static_cast<std::size_t>(h.dim); ++d)
            along += (model.mesh.node(node)[d] - a.centre[d]) * a.normal[d];
          if (!(along >= h.interface_depth)) {  // (NaN at first)
            h.interface_depth = along;
            part = m;
          }
        }
      }
    }
    if (part && part->isotropic && !part->fluid) {
      h.longitudinal_speed = std::sqrt((part->lambda() + 2.0 * part->mu()) / part->density);
      h.shear_speed = std::sqrt(part->mu() / part->density);
    }
    headers.emplace(a.name, std::move(h));
  }
  return headers;
}

// What continues a run from `checkpoint`: --resume, and how its shots were stepped.
std::string resume_flags(const io::Checkpoint& checkpoint) {
  return str("--resume", checkpoint.shots_parallel ? " --shots-parallel" : "",
             checkpoint.shots_together > 1 ? str(" --shots-together ", checkpoint.shots_together) : "");
}

// What a checkpoint holds, for the messages of a run that stopped or failed after writing it.
std::string what_checkpoint_holds(const Model& model, long long shot, long long step, bool at_rest) {
  const std::string name = shot >= 0 && static_cast<std::size_t>(shot) < model.shots.size()
                               ? str("shot '", model.shots[static_cast<std::size_t>(shot)].name, "'")
                               : std::string();
  if (at_rest) return str("the start of ", name, " (stepped from rest when resumed)");
  return str("the state at step ", group_digits(step), name.empty() ? "" : " of ", name);
}

// Sends samples to the result file in chunks as they are recorded (through a SampleWriter), a
// shot's alone or each of a batch's shots stepped together, writes snapshots and checkpoints,
// begins each shot's group (a batch's as it begins) and flushes the file every few seconds; passes
// every event on to `next`. finish_writing() before the file is finished.
class ResultWriter final : public ex::Observer {
 public:
  // A history's samples are sent once this many, or this many bytes, wait.
  static constexpr std::size_t chunk_samples = 1024;
  static constexpr std::size_t chunk_bytes = std::size_t(8) << 20;

  ResultWriter(io::ResultFile& file, const Model& model, std::vector<ex::History> declared,
               std::map<std::string, io::FmcHeader> fmc, bool reopened, ex::Observer* next, double flush_seconds,
               CheckpointPlan checkpoints, const io::Checkpoint* resumed)
      : file_(file),
        model_(model),
        declared_(std::move(declared)),
        fmc_(std::move(fmc)),
        next_(next),
        flush_seconds_(flush_seconds),
        checkpoints_(std::move(checkpoints)),
        checkpoint_holds_(resumed ? what_checkpoint_holds(model, resumed->shot, resumed->step, resumed->at_rest) : ""),
        checkpoint_resume_(resumed ? resume_flags(*resumed) : "") {
    // A model with shots declares each shot's histories as the shot begins (on_shot), or as its
    // batch does (on_batch).
    if (model.shots.empty()) one_.ids = declare_histories(file_, model_, declared_, reopened, "");
  }

  void on_start(const ex::Preflight& preflight) override {
    started_ = last_flush_ = Clock::now();
    loop_started_ = true;
    if (next_) next_->on_start(preflight);
  }

  // The time loop began (on_start): the set-up is over and the file holds the run.
  bool loop_started() const { return loop_started_; }

  void on_shot(std::size_t index, bool resumed) override {
    if (!in_batch(index)) {
      const std::lock_guard lock(file_guard_);
      const Shot& shot = model_.shots[index];
      file_.begin_shot(shot.name, shot.transducers);
      one_ = Streams{declare_histories(file_, model_, declared_, resumed, shot.name), {}, {}};
    }
    if (next_) next_->on_shot(index, resumed);
  }

  // A batch's shots begin together: each its group and histories, written as they are recorded
  // (on_batch_sample), so that the file holds every one of them up to its last flush.
  void on_batch(std::size_t first, std::size_t count) override {
    {
      const std::lock_guard lock(file_guard_);
      batch_.clear();
      batch_first_ = first;
      for (std::size_t j = 0; j < count; ++j) {
        const Shot& shot = model_.shots[first + j];
        file_.begin_shot(shot.name, shot.transducers);
        batch_.push_back(Streams{declare_histories(file_, model_, declared_, false, shot.name), {}, {}});
      }
    }
    if (next_) next_->on_batch(first, count);
  }

  // The shot's samples not yet in the file; a full-matrix capture's row.
  void on_shot_end(std::size_t index, const std::vector<ex::History>& histories) override {
    // (A batch's histories were all taken from the recorders by now: none is seen any longer.)
    if (in_batch(index))
      for (Streams& streams : batch_) streams.seen.clear();
    append_rest(streams_of(index), histories);
    const Shot& shot = model_.shots[index];
    if (!shot.array.empty()) write_fmc_row(shot, streams_of(index), histories);
    if (next_) next_->on_shot_end(index, histories);
  }

  void on_sample(const ex::History& history, std::size_t sample) override {
    take_sample(one_, history);
    if (next_) next_->on_sample(history, sample);
  }

  // (A last batch of fewer shots than columns leaves its last columns out.)
  void on_batch_sample(std::size_t column, const ex::History& history, std::size_t sample) override {
    if (column < batch_.size()) take_sample(batch_[column], history);
    if (next_) next_->on_batch_sample(column, history, sample);
  }

  void on_snapshot(const ex::Snapshot& snapshot) override {
    {
      const std::lock_guard lock(file_guard_);
      file_.write_snapshot(snapshot.time, snapshot.displacement, snapshot.velocity, snapshot.pressure);
    }
    if (next_) next_->on_snapshot(snapshot);
  }

  void on_checkpoint(const ex::SolverState& state) override {
    if (!checkpoints_.path.empty()) write_checkpoint(state);
    if (next_) next_->on_checkpoint(state);
  }

  const std::string& checkpoint_holds() const { return checkpoint_holds_; }
  const std::string& checkpoint_resume() const { return checkpoint_resume_; }

  void on_progress(long long step, long long steps, double time) override {
    if (next_) next_->on_progress(step, steps, time);
    if (seconds_since(last_flush_) >= flush_seconds_) flush(step);
    samples_.check();  // a failed write stops the run here
  }

  bool stop_requested() override { return next_ != nullptr && next_->stop_requested(); }

  // The samples not yet in the file, from the histories the run returned (a model without shots).
  void append_rest(const std::vector<ex::History>& histories) { append_rest(one_, histories); }

  // Waits until every sample sent is in the file; rethrows a failure to write one.
  void finish_writing() { samples_.drain(); }

  // s of time loop over all sessions of the run (a resumed run adds the earlier ones').
  double wall_time() const { return checkpoints_.wall_before + seconds_since(started_); }

 private:
  void write_checkpoint(const ex::SolverState& state) {
    // The file first: everything up to this step reaches the disk before the checkpoint that
    // counts it, so a kill (or a power loss) between the two leaves a file holding at least what
    // it says.
    // (Between batches or rounds, every one at its last step: the file's step_count stays that.)
    flush(state.at_rest ? checkpoints_.run.total_steps : state.step);
    const std::lock_guard lock(file_guard_);
    io::sync_file(file_.partial_path());
    io::Checkpoint checkpoint = checkpoints_.run;
    checkpoint.shot = state.shot;
    checkpoint.step = state.step;
    checkpoint.at_rest = state.at_rest;
    checkpoint.wall_time = wall_time();
    checkpoint.previous = state.previous;
    checkpoint.current = state.current;
    for (const ex::PendingSample& pending : state.receivers)
      checkpoint.receivers.push_back(io::CheckpointPending{pending.active, pending.step, pending.before, pending.at});
    checkpoint.snapshot =
        io::CheckpointPending{state.snapshot.active, state.snapshot.step, state.snapshot.before, state.snapshot.at};
    checkpoint.memory_offsets = state.memory_offsets;
    checkpoint.memory = state.memory;
    checkpoint.pml_nodes.assign(state.pml_nodes.begin(), state.pml_nodes.end());
    checkpoint.pml_node_values = state.pml_node_values;
    checkpoint.fluid_previous = state.fluid_previous;
    checkpoint.fluid_current = state.fluid_current;
    checkpoint.fluid_pml_offsets = state.fluid_pml_offsets;
    checkpoint.fluid_pml = state.fluid_pml;
    checkpoint.fluid_pml_nodes.assign(state.fluid_pml_nodes.begin(), state.fluid_pml_nodes.end());
    checkpoint.fluid_pml_node_values = state.fluid_pml_node_values;
    checkpoint.history_samples = file_.sample_counts();
    checkpoint.n_snapshots = file_.n_snapshots();
    io::write_checkpoint(checkpoints_.path, checkpoint);
    checkpoint_holds_ = what_checkpoint_holds(model_, state.shot, state.step, state.at_rest);
    checkpoint_resume_ = resume_flags(checkpoint);
  }

  // A history set's place in the file, and what was sent of each history recorded so far.
  struct Streams {
    std::map<std::string, int> ids;
    std::map<std::string, std::size_t> written;
    std::map<std::string, const ex::History*> seen;  // as the recorder holds it, growing
  };

  bool in_batch(std::size_t shot) const { return shot >= batch_first_ && shot - batch_first_ < batch_.size(); }
  Streams& streams_of(std::size_t shot) { return in_batch(shot) ? batch_[shot - batch_first_] : one_; }

  // A sample completed: the history's samples sent once a chunk of them waits.
  void take_sample(Streams& streams, const ex::History& history) {
    const auto id = streams.ids.find(history.name);
    if (id == streams.ids.end()) return;
    streams.seen[history.name] = &history;
    const std::size_t waiting = history.n_samples() - streams.written[history.name];
    if (waiting >= chunk_samples || waiting * history.sample_size() * sizeof(double) >= chunk_bytes)
      append(streams, history, id->second);
  }

  void append_rest(Streams& streams, const std::vector<ex::History>& histories) {
    streams.seen.clear();  // the recorder's histories were moved into these
    for (const ex::History& history : histories) {
      const auto id = streams.ids.find(history.name);
      if (id != streams.ids.end()) append(streams, history, id->second);
    }
  }

  void flush(long long step) {
    for (Streams* streams : all_streams())
      for (const auto& [name, history] : streams->seen) append(*streams, *history, streams->ids.at(name));
    samples_.drain();
    const std::lock_guard lock(file_guard_);
    file_.set_progress(step, wall_time());
    file_.flush();
    last_flush_ = Clock::now();
  }

  // Row shot.transmitter of /fmc/<array>: each element's mean displacement along the normal, read
  // back from the shot's history in the file (a resumed shot holds only its samples since the
  // checkpoint). A shot stopped before its end (Ctrl-C, a failure) leaves its row out: the run
  // resumed writes it.
  void write_fmc_row(const Shot& shot, const Streams& streams, const std::vector<ex::History>& histories) {
    const auto header = fmc_.find(shot.array);
    const auto history = std::find_if(histories.begin(), histories.end(),
                                      [&](const ex::History& h) { return h.name == shot.array; });
    const auto id = streams.ids.find(shot.array);
    if (header == fmc_.end() || history == histories.end() || id == streams.ids.end()) return;
    const io::FmcHeader& h = header->second;
    samples_.drain();
    const std::lock_guard lock(file_guard_);
    if (file_.n_samples(id->second) != static_cast<std::int64_t>(h.n_samples)) return;
    const std::vector<double> values = file_.read_values(id->second);
    const std::size_t n = static_cast<std::size_t>(history->n_points()), samples = h.n_samples;
    // Per point and sample: the displacement's dim components, or one pressure.
    const bool pressure = h.quantity == "pressure";
    const std::size_t per = pressure ? 1 : static_cast<std::size_t>(history->dim);
    TREMOR_CHECK(values.size() == samples * n * per, file_.path().string(), ": history '", shot.array, "' of shot '",
                 shot.name, "' holds ", values.size(), " values, not the ", h.quantity, " of ", n, " points at ",
                 samples, " samples");
    std::vector<double> row(n * samples);
    for (std::size_t k = 0; k < samples; ++k)
      for (std::size_t j = 0; j < n; ++j) {
        double along = pressure ? values[k * n + j] : 0.0;
        for (std::size_t c = 0; c < per && !pressure; ++c) along += values[(k * n + j) * per + c] * h.normal[c];
        row[j * samples + k] = along;
      }
    file_.write_fmc_row(h, shot.transmitter, row);
  }

  std::vector<Streams*> all_streams() {
    std::vector<Streams*> all{&one_};
    for (Streams& streams : batch_) all.push_back(&streams);
    return all;
  }

  // The history's samples not yet sent, copied (the recorder goes on growing them).
  void append(Streams& streams, const ex::History& history, int id) {
    std::size_t& written = streams.written[history.name];
    const std::size_t n = history.n_samples();
    if (n <= written) return;
    const std::size_t size = history.sample_size();
    const auto from = static_cast<std::ptrdiff_t>(written);
    samples_.append(id, std::vector<double>(history.times.begin() + from, history.times.end()),
                    std::vector<double>(history.values.begin() + from * static_cast<std::ptrdiff_t>(size),
                                        history.values.begin() + static_cast<std::ptrdiff_t>(n * size)));
    written = n;
  }

  io::ResultFile& file_;
  const Model& model_;
  std::vector<ex::History> declared_;  // make_histories(model, dt): what each shot declares
  std::map<std::string, io::FmcHeader> fmc_;  // per array with a full-matrix capture
  ex::Observer* next_;
  Streams one_;  // the run's histories, or the shot's stepped alone
  std::vector<Streams> batch_;  // the shots stepped together: batch_first_'s, ...
  std::size_t batch_first_ = 0;
  double flush_seconds_;
  CheckpointPlan checkpoints_;
  std::string checkpoint_holds_;  // what the newest checkpoint holds (what_checkpoint_holds); empty: none
  std::string checkpoint_resume_;  // its flags (resume_flags)
  bool loop_started_ = false;
  Clock::time_point started_ = Clock::now(), last_flush_ = Clock::now();
  std::mutex file_guard_;  // every use of the file, by this thread, the snapshots' or the samples'
  SampleWriter samples_{file_, file_guard_};
};

}  // namespace

std::string model_hash(std::string_view model_bytes, const Model& model) {
  Fnv1a file, inputs;
  file.add(model_bytes.data(), model_bytes.size());
  const Mesh& mesh = model.mesh;
  inputs.add(mesh.coordinates);
  inputs.add(mesh.node_labels);
  for (const ElementBlock& block : mesh.blocks) {
    const int kind[2] = {static_cast<int>(block.type), block.order};
    inputs.add(kind, sizeof kind);
    inputs.add(block.connectivity);
    inputs.add(block.labels);
  }
  const auto signal = [&](const Signal& s) { inputs.add(s.table); };
  for (const PointSource& source : model.point_sources) signal(source.signal);
  for (const PrescribedDisplacement& p : model.prescribed) signal(p.signal);
  for (const SurfaceLoad& load : model.surface_loads)
    if (load.signal) signal(*load.signal);
  for (const Transducer& t : model.transducers)
    if (t.mode == Transducer::Mode::Piston) signal(t.signal);
  for (const Amplitude& amplitude : model.amplitudes) inputs.add(amplitude.points);
  // The bytes of every other file it read (material fields, grains, element data, meshes), not
  // their paths (a run resumed from another folder is the same run): a checkpoint resumed after
  // one changed would mix two models.
  for (const std::string& path : model.inputs) {
    if (!model.source.empty() && io::same_file(path, model.source)) continue;
    std::ifstream in(path, std::ios::binary);
    char chunk[65536];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) inputs.add(chunk, static_cast<std::size_t>(in.gcount()));
  }
  return str("fnv1a64:", file.hex(), ":", inputs.hex());
}

std::string model_file_hash(const std::filesystem::path& path, const Model& model) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return model_hash(bytes, model);
}

std::vector<std::filesystem::path> model_inputs(const Model& model) {
  std::vector<std::filesystem::path> inputs;
  if (!model.source.empty()) inputs.emplace_back(model.source);
  for (const std::string& input : model.inputs) inputs.emplace_back(input);
  return inputs;
}

void refuse_output_over_inputs(const std::filesystem::path& output, std::span<const std::filesystem::path> inputs) {
  std::filesystem::path partial = output;
  partial += ".partial";
  const std::pair<std::filesystem::path, const char*> written[] = {{output, ""},
                                                                   {partial, "its temporary file "},
                                                                   {io::result_xdmf_path(output), "its XDMF file "},
                                                                   {checkpoint_path(output), "its checkpoint "}};
  for (const auto& [file, role] : written)
    for (const std::filesystem::path& input : inputs)
      if (io::same_file(file, input))
        throw Error(str(output.string(), ": refusing to write the result file there: ",
                        file == output ? std::string("it") : str(role, file.string()), " is ", input.string(),
                        ", an input of this run, which would be overwritten; choose another output"));
}

namespace {

// lstat of a regular file: device, inode, size, modification time (ns); false when not one.
bool identity_of(const std::filesystem::path& path, unsigned long long (&ids)[3], long long& modified_ns) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return false;
  ids[0] = static_cast<unsigned long long>(info.st_dev);
  ids[1] = static_cast<unsigned long long>(info.st_ino);
  ids[2] = static_cast<unsigned long long>(info.st_size);
  modified_ns = static_cast<long long>(info.st_mtim.tv_sec) * 1000000000LL + info.st_mtim.tv_nsec;
  return true;
}

}  // namespace

EarlierResult::EarlierResult(std::filesystem::path output) : output_(std::move(output)) {
  unsigned long long ids[3] = {};
  present_ = identity_of(output_, ids, modified_ns_);
  device_ = ids[0];
  inode_ = ids[1];
  size_ = ids[2];
}

std::string EarlierResult::kept() const {
  unsigned long long ids[3] = {};
  long long modified_ns = 0;
  if (!present_ || !identity_of(output_, ids, modified_ns) || ids[0] != device_ || ids[1] != inode_ ||
      ids[2] != size_ || modified_ns != modified_ns_)
    return {};
  return str(output_.string(), " is kept as it was: this run wrote nothing to it");
}

std::filesystem::path checkpoint_path(const std::filesystem::path& result) {
  std::filesystem::path path = result;
  path += ".checkpoint";
  return path;
}

void refuse_over_checkpoint(const std::filesystem::path& result, std::string_view resume) {
  const std::filesystem::path checkpoint = checkpoint_path(result);
  std::error_code error;
  if (std::filesystem::exists(checkpoint, error))
    throw Error(str(checkpoint.string(), " exists: an earlier run to ", result.string(), " was interrupted; continue it "
                    "with ", resume, ", or delete the checkpoint to start afresh"));
}

io::RunMetadata run_metadata(const ex::Preflight& preflight, std::string model_path, std::string model_hash,
                             std::string git_commit) {
  io::RunMetadata metadata;
  metadata.git_commit = std::move(git_commit);
  metadata.model_path = std::move(model_path);
  metadata.model_hash = std::move(model_hash);
  metadata.backend = to_string(preflight.backend);
  metadata.precision = to_string(preflight.precision);
  metadata.time_step = preflight.dt;
  return metadata;
}

io::SnapshotOptions snapshot_options(const Model& model, const ex::Preflight& preflight) {
  io::SnapshotOptions options;
  if (model.output && preflight.snapshot_every > 0) {
    options.nodes = model.output->snapshot_nodes;
    options.magnitude = model.output->magnitude;
    options.velocity = model.output->velocity;
    options.pressure = model.output->pressure;
  }
  return options;
}

namespace {

// The result file of a recording: created, or reopened for a run resumed; refused first when it
// would be written over one of the model's inputs.
io::ResultFile open_result(const Model& model, RecordSettings& settings) {
  const std::vector<std::filesystem::path> inputs = model_inputs(model);
  refuse_output_over_inputs(settings.output, inputs);
  if (settings.resumed)
    return io::ResultFile::reopen(settings.output, model, settings.metadata, settings.snapshots,
                                  settings.resumed->history_samples, settings.resumed->n_snapshots,
                                  std::move(settings.claim));
  return io::ResultFile::create(settings.output, model, settings.metadata, settings.snapshots,
                                std::move(settings.claim));
}

}  // namespace

struct Recording::Impl {
  // The histories first: a receiver the model cannot place refuses it before the file exists.
  Impl(const Model& model, const ex::Preflight& preflight, RecordSettings s, ex::Observer* next)
      : settings(std::move(s)),
        first_step(settings.resumed ? settings.resumed->step : 0),
        declared(ex::make_histories(model, preflight.dt)),
        file(open_result(model, settings)) {
    try {
      writer.emplace(file, model, std::move(declared), fmc_headers(model, preflight.dt, preflight.duration, preflight.steps),
                     settings.resumed != nullptr, next, settings.flush_seconds, settings.checkpoints,
                     settings.resumed);
    } catch (...) {
      give_up();
      throw;
    }
    settings.resumed = nullptr;  // read; not kept
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    if (!file.finished() && !writer->loop_started()) give_up();
  }

  // Before the time loop: the output path keeps what it held (io::ResultFile::abandon).
  void give_up() {
    file.set_progress(first_step, settings.checkpoints.wall_before);
    note = file.abandon();
  }

  RecordSettings settings;
  long long first_step = 0;  // a resumed run's checkpoint step
  std::vector<ex::History> declared;
  io::ResultFile file;
  std::optional<ResultWriter> writer;
  std::string status;
  std::string note;
};

Recording::Recording(const Model& model, const ex::Preflight& preflight, RecordSettings settings, ex::Observer* next)
    : impl_(std::make_unique<Impl>(model, preflight, std::move(settings), next)) {}
Recording::Recording(Recording&&) noexcept = default;
Recording& Recording::operator=(Recording&&) noexcept = default;
Recording::~Recording() = default;

ex::ExplicitRun Recording::run(const std::function<ex::ExplicitRun(ex::Observer*)>& step) {
  Impl& r = *impl_;
  ResultWriter& writer = *r.writer;
  ex::ExplicitRun run;
  try {
    run = step(&writer);
  } catch (const std::exception& e) {
    if (!writer.loop_started()) {  // the set-up failed: nothing computed to keep
      r.give_up();
      throw;
    }
    // What was sent reaches the file, unless writing is what failed. A file whose writing failed
    // was left as it was (ResultFile::Impl::stop_writing); finish() then does nothing.
    try {
      writer.finish_writing();
    } catch (const std::exception&) {
    }
    r.status = std::string("failed: ") + e.what();
    r.file.finish(r.status);
    if (!r.file.stopped_writing())
      r.note = str(r.file.path().string(), " keeps what the run wrote before it failed (status failed)");
    throw;
  }
  writer.append_rest(run.histories);
  writer.finish_writing();
  switch (run.status) {
    case ex::RunStatus::Completed: r.status = "complete"; break;
    case ex::RunStatus::Failed: r.status = "failed: " + run.message; break;
    case ex::RunStatus::Stopped: r.status = "incomplete"; break;
  }
  r.file.finish(r.status, run.steps, writer.wall_time());
  // A complete run needs its checkpoint no more; a stopped or failed one keeps it for --resume.
  std::error_code ignored;
  if (run.status == ex::RunStatus::Completed) std::filesystem::remove(checkpoint_path(r.settings.output), ignored);
  return run;
}

const std::filesystem::path& Recording::path() const { return impl_->file.path(); }
const std::string& Recording::status() const { return impl_->status; }
const std::string& Recording::checkpoint_holds() const { return impl_->writer->checkpoint_holds(); }
const std::string& Recording::checkpoint_resume() const { return impl_->writer->checkpoint_resume(); }
const std::string& Recording::note() const { return impl_->note; }
bool Recording::dropped_images() const { return impl_->file.dropped_images(); }

}  // namespace tremor::record
