#pragma once
// Receivers of the explicit solver: time histories of displacement, and on request velocity and
// acceleration, at nodes or at positions inside elements (interpolated with the shape functions
// of the element holding the position), every n-th step. Both the model file's [[receiver]]s and
// Abaqus *NODE OUTPUT histories (U, V, A) become Histories.
//
// Times of the samples. Central differences give the velocity and acceleration at a step from
// the displacements one step either side:
//   v_k = (u_k+1 - u_k-1) / (2 dt),   a_k = (u_k+1 - 2 u_k + u_k-1) / dt^2,
// so a history that records velocity or acceleration completes its sample for step k one step
// later, after u_k+1 exists. Every sample of every history belongs to a time k dt with k a
// multiple of its every_n_steps, and all quantities of one sample belong to that same time;
// `times` holds it. A velocity/acceleration history therefore has no sample at the run's last
// step (u_N+1 is never computed); a displacement-only history does.
#include <array>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/fem/locate.hpp"
#include "tremor/model/model.hpp"

namespace tremor::explicit_fe {

// The motion of a solid, or the pressure of a fluid (a history records one or the other).
enum class Quantity : int { Displacement, Velocity, Acceleration, Pressure };
std::string_view to_string(Quantity quantity);  // "displacement", "velocity", "acceleration", "pressure"

// Where a position lies, and the search for it (fem/locate.hpp).
using fem::Location;
using fem::locate;
using fem::locate_all;
using fem::SurfacePoint;
using fem::locate_on_surface;

// One recorded history, samples in memory.
struct History {
  std::string name;
  std::string origin;  // "file:line" of the receiver or output request
  int dim = 3;  // the mesh's
  // Recorded at nodes (nodes, node_labels) or at positions (positions, locations): one of them.
  std::vector<Index> nodes;
  std::vector<Label> node_labels;
  std::vector<std::array<double, 3>> positions;
  std::vector<Location> locations;
  // Per position, its name (a station's "NET.STA", Receiver::point_names); empty: p1, p2, ...
  std::vector<std::string> point_names;
  // In the order displacement, velocity, acceleration; or pressure alone (a fluid's).
  std::vector<Quantity> quantities;
  // A receiver grid's shape (its faces left out), when the positions are its points in order.
  std::optional<ReceiverGrid> grid;
  // Motion in a fluid, from its potential chi: u = grad chi / rho at each point by its location's
  // gradients (`locations` then filled at nodes too: each node in a fluid element holding it).
  bool potential = false;
  // Each point a mean over surface faces (an array's footprints, model/array.hpp): a decomposed
  // run splits a point among the subdomains owning its nodes, each recording its share of the
  // weighted sum, and the merge adds the shares.
  bool surface_means = false;
  int every_n_steps = 1;

  std::vector<double> times;   // per sample, s
  std::vector<double> values;  // [sample][point][quantity][component], components() components

  Index n_points() const { return static_cast<Index>(nodes.empty() ? positions.size() : nodes.size()); }
  std::size_t n_samples() const { return times.size(); }
  // Per quantity: dim (motion), or 1 (pressure).
  int components() const { return records(Quantity::Pressure) ? 1 : dim; }
  std::size_t sample_size() const {
    return static_cast<std::size_t>(n_points()) * quantities.size() * static_cast<std::size_t>(components());
  }
  bool records(Quantity quantity) const;
  // f(node) for every node index it holds, its points' and its locations' (a renumbering).
  template <class F>
  void for_each_node(F&& f) {
    for (Index& node : nodes) f(node);
    for (Location& location : locations)
      for (Index& node : location.nodes) f(node);
  }
  // Forgets the samples (times and values), keeping what it records where.
  void clear_samples() {
    times.clear();
    values.clear();
  }
  // What it records, without points or samples (a part of it: a subdomain's points to come).
  History without_points() const {
    History out;
    out.name = name;
    out.origin = origin;
    out.dim = dim;
    out.quantities = quantities;
    out.potential = potential;
    out.surface_means = surface_means;
    out.every_n_steps = every_n_steps;
    return out;
  }
  // Value of one entry; `quantity` must be recorded.
  double value(std::size_t sample, Index point, Quantity quantity, int component) const;
};

// Where a fluid's motion at `nodes` is read (History::potential at nodes; a snapshot's nodes that
// only fluid elements hold): each node in the first element of those `among` flags (empty: any)
// that holds it, at that node's reference coordinates, its shape functions there in `weights` and
// (d N_a / d x_c) / rho in `gradients`. First in element order, or of the lowest `rank` (one per
// element: a fluid mesh's elements ranked by their model's numbers, FluidMesh::elements), so that
// the model and its fluid mesh pick the same element. Throws tremor::Error for a node no such
// element holds.
std::vector<Location> fluid_node_locations(const Model& model, std::span<const Index> nodes,
                                           const std::vector<bool>& among = {}, std::span<const Index> rank = {});

// The histories a model asks for, samples empty: its receivers (positions located; a position
// outside the mesh throws tremor::Error naming the receiver and the position) and its Abaqus
// *NODE OUTPUT requests (an output every `every_time` seconds becomes every round(every_time /
// dt) steps, at least 1). In a model with fluids a receiver of pressure lies in the fluid (its
// nodes held by fluid elements, its positions located among them); a receiver of motion records
// the solid's where its points lie in the solid (a node solid elements hold, a position in a solid
// element), else the fluid's (History::potential). One that does not, or whose points lie on
// both sides, throws tremor::Error naming the receiver and the point.
std::vector<History> make_histories(const Model& model, double dt);

// The recording steps a Recorder's device buffer holds for rows whose two time levels take
// `row_pair_bytes`: a few hundred per transfer, within 64 MB.
Index buffered_recording_steps(std::size_t row_pair_bytes);

// A sample that waits for u_k+1 (velocity, acceleration, a velocity snapshot): its step k and the
// values u_k-1, u_k it needs, [point][component]. Part of a checkpoint (SolverState).
struct PendingSample {
  bool active = false;
  long long step = 0;
  std::vector<double> before, at;
};

// gathered[k] = field[dofs[k]] for k < dofs.size, on the Exec (the receivers' and snapshots' gather).
template <class Real>
void gather_entries(const Exec& exec, View<const Real> field, View<const Index> dofs, View<Real> gathered);

// Shots stepped together (Recorder's columns) record each shot's histories in turn: `one` shot's
// repeated `shots` times.
inline std::vector<History> repeat_for_shots(std::vector<History> one, int shots) {
  const std::size_t per_shot = one.size();
  for (int s = 1; s < shots; ++s)
    for (std::size_t h = 0; h < per_shot; ++h) one.push_back(one[h]);
  return one;
}

// Where a shot's histories come from several such groups (a subdomain's solid, its fluid's
// pressure, its fluid's motion), one after another within each shot: history j of a group of
// `count` a shot, whose histories start at `first` of a shot's `per_shot`, is shot j / count's
// and its place in the whole is that shot's block's `first` + j % count.
inline std::size_t place_among_shots(std::size_t j, std::size_t count, std::size_t first, std::size_t per_shot) {
  return j / count * per_shot + first + j % count;
}

// The groups' histories (each shot's in turn in every group, `shots` of them) as one list, shot by
// shot: shot 0's of every group in order, then shot 1's, ...
inline std::vector<History> by_shot(std::vector<std::vector<History>> groups, int shots) {
  std::size_t per_shot = 0;
  for (const std::vector<History>& group : groups) per_shot += group.size() / static_cast<std::size_t>(shots);
  std::vector<History> out(per_shot * static_cast<std::size_t>(shots));
  std::size_t first = 0;
  for (std::vector<History>& group : groups) {
    const std::size_t count = group.size() / static_cast<std::size_t>(shots);
    for (std::size_t j = 0; j < group.size(); ++j)
      out[place_among_shots(j, count, first, per_shot)] = std::move(group[j]);
    first += count;
  }
  return out;
}

// Records histories from the integrator's two time levels. On a recording step record() computes
// every recorded value of both levels into a buffer in the Exec's memory, in one kernel: a node's
// DOF, or a position's interpolation sum_a N_a u_a over its element's nodes (in double, in the
// location's order), so that a grid of 10^5 points costs 3 10^5 values a step whatever its
// elements' order, and no host transfer; flush() copies the buffer to the host in one transfer
// and completes the samples in step order, in double. The buffer flushes itself when full (every
// few hundred recording steps).
template <class Real>
class Recorder {
 public:
  using Callback = std::function<void(const History&, std::size_t sample)>;

  // `n_dofs` of the field recorded, `field_components` per node (0: the histories' components);
  // a field of one value per node (a fluid's potential) takes histories of pressure, or of motion
  // from the potential (History::potential).
  // `columns` > 1: the field holds that many shots interleaved (CentralDifference's columns, DOF i
  // of shot s at i * columns + s) and `histories` are each shot's in turn, the same number of
  // each: the first group records shot 0, the next shot 1, ...
  Recorder(const Exec& exec, std::vector<History> histories, double dt, Index n_dofs, int field_components = 0,
           int columns = 1);

  // Called for each completed sample, during flush().
  void set_on_sample(Callback on_sample) { on_sample_ = std::move(on_sample); }
  // Called once after the initial conditions (step 0, `previous` = u_-1) and after every step
  // (`current` = u_step). Steps must increase.
  void record(long long step, View<const Real> previous, View<const Real> current);
  // Completes every sample recorded so far (histories() and pending() are then up to date).
  void flush();

  const std::vector<History>& histories() const { return histories_; }
  std::vector<History> take_histories() { return std::move(histories_); }

  // The samples waiting for the next step, one per history (after flush()): what a restart needs
  // besides the integrator's state, since the histories' samples so far are written out already.
  const std::vector<PendingSample>& pending() const { return pending_; }
  // Restores pending() from a checkpoint (one per history; throws on a count or size mismatch).
  void restore_pending(std::vector<PendingSample> pending);
  // Completes what is buffered, then forgets every sample and pending one: the next record() is a
  // new run's step 0 (a model's next shot).
  void restart();

 private:
  using Pending = PendingSample;
  void complete(long long step);  // the host part of one recording step, from previous_/current_
  // History h's values of a buffered level: its rows, [point][component].
  void values_of(std::size_t h, const std::vector<double>& level, std::vector<double>& out) const;

  Exec exec_;
  std::vector<History> histories_;
  double dt_ = 0.0;
  int dim_ = 3;  // the histories' components
  Callback on_sample_;
  // The recorded values ("rows"), history by history, [point][component] within each: row r is
  // sum over k in [offsets[r], offsets[r + 1]) of weights[k] u[dofs[k]].
  Index n_rows_ = 0;
  std::vector<Index> row_begin_;  // per history
  DeviceArray<Index> offsets_, dofs_;
  DeviceArray<double> weights_;
  Index capacity_ = 0;                 // recording steps the buffer holds
  DeviceArray<Real> buffer_;           // [recording step][previous, current][row]
  std::vector<long long> buffered_;    // the step of each buffered row pair
  std::vector<double> previous_, current_;  // the rows of the step completed
  std::vector<Pending> pending_;
};

extern template class Recorder<float>;
extern template class Recorder<double>;

}  // namespace tremor::explicit_fe
