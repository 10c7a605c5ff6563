#include "tremor/explicit/receivers.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/coupling.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/faces.hpp"

namespace tremor::explicit_fe {

std::string_view to_string(Quantity quantity) {
  switch (quantity) {
    case Quantity::Displacement: return "displacement";
    case Quantity::Velocity: return "velocity";
    case Quantity::Acceleration: return "acceleration";
    case Quantity::Pressure: return "pressure";
  }
  return "?";
}

bool History::records(Quantity quantity) const {
  return std::find(quantities.begin(), quantities.end(), quantity) != quantities.end();
}

double History::value(std::size_t sample, Index point, Quantity quantity, int component) const {
  const auto q = std::find(quantities.begin(), quantities.end(), quantity);
  TREMOR_CHECK(q != quantities.end(), "history '", name, "' does not record ", to_string(quantity));
  TREMOR_CHECK(sample < n_samples() && point >= 0 && point < n_points() && component >= 0 && component < components(),
               "history '", name, "': sample ", sample, ", point ", point, ", component ", component, " out of range");
  const auto nq = quantities.size();
  return values[((sample * static_cast<std::size_t>(n_points()) + static_cast<std::size_t>(point)) * nq +
                 static_cast<std::size_t>(q - quantities.begin())) *
                    static_cast<std::size_t>(components()) +
                static_cast<std::size_t>(component)];
}

Index buffered_recording_steps(std::size_t row_pair_bytes) {
  return static_cast<Index>(
      std::clamp<std::size_t>((std::size_t(64) << 20) / std::max<std::size_t>(row_pair_bytes, 1), 1, 256));
}

namespace {

// Which side of a model with fluids holds each element and node (fem::fluid_elements): a receiver
// of pressure lies in the fluid, one of motion on either side. Empty without fluids.
struct Sides {
  std::vector<bool> fluid_element, solid_element;
  std::vector<bool> fluid_node, solid_node;

  explicit Sides(const Model& model) {
    if (!model.has_fluids()) return;
    fluid_element = fem::fluid_elements(model);
    solid_element.resize(fluid_element.size());
    fluid_node.assign(static_cast<std::size_t>(model.mesh.n_nodes()), false);
    solid_node = fluid_node;
    Index global = 0;
    for (const ElementBlock& block : model.mesh.blocks)
      for (Index e = 0; e < block.n_elements(); ++e, ++global) {
        const bool fluid = fluid_element[static_cast<std::size_t>(global)];
        solid_element[static_cast<std::size_t>(global)] = !fluid;
        std::vector<bool>& held = fluid ? fluid_node : solid_node;
        for (const Index node : block.nodes(e)) held[static_cast<std::size_t>(node)] = true;
      }
  }
  bool any() const { return !fluid_element.empty(); }
  const std::vector<bool>& elements(bool fluid) const { return fluid ? fluid_element : solid_element; }
};

// Why a receiver of pressure's point is refused: it lies in the solid.
constexpr const char* in_the_solid = "in the solid: pressure is recorded in a fluid";

// location.gradients: (d N_a / d x_c)(xi) / rho in its element (a fluid's).
void fill_gradients(const Model& model, const std::vector<int>& sections, Location& location) {
  const int section = sections[static_cast<std::size_t>(location.element)];
  const double rho = model.material(model.sections[static_cast<std::size_t>(section)].material).density;
  location.gradients = fem::shape_gradients(model.mesh, location);
  for (double& g : location.gradients) g /= rho;
}

}  // namespace

std::vector<Location> fluid_node_locations(const Model& model, std::span<const Index> nodes,
                                           const std::vector<bool>& among, std::span<const Index> rank) {
  const Mesh& mesh = model.mesh;
  TREMOR_CHECK(rank.empty() || rank.size() == static_cast<std::size_t>(mesh.n_elements()), rank.size(),
               " element ranks for ", mesh.n_elements(), " elements");
  // The first element holding each node asked for (its rank), and the node's place in it.
  std::vector<Index> first(static_cast<std::size_t>(mesh.n_nodes()), -1), first_rank(first);
  std::vector<int> local(first.size(), -1);
  std::vector<bool> wanted(first.size(), false);
  for (const Index node : nodes) {
    TREMOR_CHECK(node >= 0 && node < mesh.n_nodes(), "node index ", node, " out of range");
    wanted[static_cast<std::size_t>(node)] = true;
  }
  Index global = 0;
  for (const ElementBlock& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global) {
      if (!among.empty() && !among[static_cast<std::size_t>(global)]) continue;
      const Index order = rank.empty() ? global : rank[static_cast<std::size_t>(global)];
      const auto element_nodes = block.nodes(e);
      for (std::size_t a = 0; a < element_nodes.size(); ++a) {
        const auto n = static_cast<std::size_t>(element_nodes[a]);
        if (wanted[n] && (first[n] < 0 || order < first_rank[n])) {
          first[n] = global;
          first_rank[n] = order;
          local[n] = static_cast<int>(a);
        }
      }
    }
  const std::vector<int> sections = model.element_sections();
  std::vector<Location> locations;
  locations.reserve(nodes.size());
  for (const Index node : nodes) {
    const auto n = static_cast<std::size_t>(node);
    TREMOR_CHECK(first[n] >= 0, "node ", mesh.node_labels[n], " lies in no fluid element");
    Location location;
    location.element = first[n];
    const ElementRef ref = mesh.locate(location.element);
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
    const auto element_nodes = block.nodes(ref.element);
    location.nodes.assign(element_nodes.begin(), element_nodes.end());
    fem::with_element(block.type, block.order, [&](auto element) {
      using E = decltype(element);
      double N[E::n_nodes];
      E::node(local[n], location.xi.data());
      E::shape(location.xi.data(), N);
      location.weights.assign(N, N + E::n_nodes);
    });
    fill_gradients(model, sections, location);
    locations.push_back(std::move(location));
  }
  return locations;
}

namespace {

// The mean over `faces` (flat ones) as a Location: each face node a weighted by int N_a dA / A,
// the row sums of a uniform pressure's consistent forces over the normal (fem/faces.hpp), so that
// the mean reads what a unit pressure there loads. Its element is the first face's.
Location footprint_location(const Mesh& mesh, std::span<const Face> faces) {
  const int dim = mesh.dim();
  std::map<Index, double> weights;
  std::vector<double> coordinates, shares;
  double area = 0.0;
  for (const Face& face : faces) {
    const ElementRef ref = mesh.locate(face.element);
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
    int local[max_face_nodes];
    const int n = face_nodes(block.type, block.order, face.face, local);
    const auto nodes = block.nodes(ref.element);
    coordinates.clear();
    for (int a = 0; a < n; ++a)
      for (int d = 0; d < dim; ++d) coordinates.push_back(mesh.node(nodes[static_cast<std::size_t>(local[a])])[d]);
    fem::face_weights(face_type(block.type), block.order, dim, coordinates, shares);  // int N_a dA
    for (int a = 0; a < n; ++a) {
      weights[nodes[static_cast<std::size_t>(local[a])]] += shares[static_cast<std::size_t>(a)];
      area += shares[static_cast<std::size_t>(a)];
    }
  }
  Location location;
  location.element = faces.front().element;
  for (const auto& [node, w] : weights) {
    location.nodes.push_back(node);
    location.weights.push_back(w / area);
  }
  return location;
}

}  // namespace

std::vector<History> make_histories(const Model& model, double dt) {
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  const Sides sides(model);
  const std::vector<int> sections = sides.any() ? model.element_sections() : std::vector<int>{};
  std::vector<History> histories;
  const auto labels_of = [&](const std::vector<Index>& nodes) {
    std::vector<Label> labels;
    for (Index node : nodes) {
      TREMOR_CHECK(node >= 0 && node < mesh.n_nodes(), "node index ", node, " out of range");
      labels.push_back(mesh.node_labels[static_cast<std::size_t>(node)]);
    }
    return labels;
  };
  for (const Receiver& receiver : model.receivers) {
    const std::string at = str(receiver.origin.empty() ? model.source : receiver.origin, ": receiver '",
                               receiver.name, "'");
    History history;
    history.name = receiver.name;
    history.origin = receiver.origin;
    history.dim = dim;
    history.every_n_steps = std::max(1, receiver.every_n_steps);
    if (receiver.displacement) history.quantities.push_back(Quantity::Displacement);
    if (receiver.velocity) history.quantities.push_back(Quantity::Velocity);
    if (receiver.acceleration) history.quantities.push_back(Quantity::Acceleration);
    if (receiver.pressure) history.quantities.push_back(Quantity::Pressure);
    // With fluids, each point's side: pressure in the fluid; motion in the solid where a solid
    // element holds the point, else the fluid's (from its potential). One history, one side.
    int first_fluid = -1, first_solid = -1;  // the first point on each side
    const auto side = [&](std::size_t k, bool fluid) {
      int& first = fluid ? first_fluid : first_solid;
      if (first < 0) first = static_cast<int>(k);
    };
    const auto point_name = [&](int k) {
      const auto i = static_cast<std::size_t>(k);
      if (!receiver.nodes.empty()) return str("node ", mesh.node_labels[static_cast<std::size_t>(receiver.nodes[i])]);
      if (receiver.grid) return str("grid point ", k);
      const std::string at_position = fem::format_position(receiver.positions[i], dim);
      return receiver.point_names.empty() ? str("position ", at_position)
                                          : str("station ", receiver.point_names[i], " at ", at_position);
    };
    if (!receiver.nodes.empty()) {
      history.nodes = receiver.nodes;
      history.node_labels = labels_of(receiver.nodes);
      if (sides.any())
        for (std::size_t k = 0; k < receiver.nodes.size(); ++k) {
          const auto node = static_cast<std::size_t>(receiver.nodes[k]);
          if (receiver.pressure && !sides.fluid_node[node])
            throw Error(str(at, " records node ", history.node_labels[k], ", which only solid elements hold: it lies ",
                            in_the_solid));
          side(k, receiver.pressure || !sides.solid_node[node]);
        }
    } else if (!receiver.footprints.empty()) {
      // An array's elements: in a model with fluids, on the solid.
      history.surface_means = true;
      for (std::size_t k = 0; k < receiver.footprints.size(); ++k) {
        history.positions.push_back(receiver.positions[k]);
        history.locations.push_back(footprint_location(mesh, receiver.footprints[k]));
        if (sides.any()) side(k, sides.fluid_element[static_cast<std::size_t>(history.locations.back().element)]);
      }
    } else if (receiver.grid) {
      const ReceiverGrid& grid = *receiver.grid;
      std::vector<std::array<double, 2>> points(static_cast<std::size_t>(grid.n_points()));
      for (Index p = 0; p < grid.n_points(); ++p) points[static_cast<std::size_t>(p)] = grid.point(p);
      std::vector<std::optional<SurfacePoint>> located = locate_on_surface(mesh, grid.faces, points);
      for (std::size_t k = 0; k < points.size(); ++k) {
        if (!located[k])
          throw Error(str(at, ": grid point ", k, " at (", points[k][0], ", ", points[k][1], ") is not over surface '",
                          grid.surface, "'"));
        if (sides.any()) {
          const bool fluid = sides.fluid_element[static_cast<std::size_t>(located[k]->location.element)];
          if (receiver.pressure && !fluid)
            throw Error(str(at, ": grid point ", k, " at (", points[k][0], ", ", points[k][1], ") lies ", in_the_solid));
          side(k, fluid);
        }
        history.positions.push_back(located[k]->position);
        history.locations.push_back(std::move(located[k]->location));
      }
      history.grid = grid;
      history.grid->faces.clear();
    } else {
      // Pressure among the fluid's elements; motion among the solid's, then the fluid's.
      std::vector<std::optional<Location>> located = locate_all(
          mesh, receiver.positions, sides.any() ? sides.elements(receiver.pressure) : std::vector<bool>{});
      for (std::size_t k = 0; k < receiver.positions.size(); ++k) {
        const auto& position = receiver.positions[k];
        bool fluid = receiver.pressure;
        if (!located[k] && sides.any()) {
          located[k] = locate_all(mesh, std::span(&position, 1), sides.elements(!receiver.pressure)).front();
          if (located[k] && receiver.pressure)
            throw Error(str(at, ": ", point_name(static_cast<int>(k)), " lies ", in_the_solid));
          fluid = true;
        }
        if (!located[k]) throw Error(str(at, ": ", point_name(static_cast<int>(k)), " lies outside the mesh"));
        if (sides.any()) side(k, fluid);
        history.positions.push_back(position);
        history.locations.push_back(std::move(*located[k]));
      }
      history.point_names = receiver.point_names;
    }
    if (first_fluid >= 0 && first_solid >= 0)
      throw Error(str(at, " records ", point_name(first_solid), " in the solid and ", point_name(first_fluid),
                      " in the fluid: a history's points lie on one side; give each side its own receiver"));
    history.potential = first_fluid >= 0 && !receiver.pressure;
    if (history.potential) {
      if (!history.nodes.empty())  // each node in the first fluid element holding it
        history.locations = fluid_node_locations(model, history.nodes, sides.fluid_element);
      else
        for (Location& location : history.locations) fill_gradients(model, sections, location);
    }
    histories.push_back(std::move(history));
  }
  for (const HistoryOutput& output : model.histories) {
    History history;
    history.name = output.name;
    history.origin = model.source;
    history.dim = dim;
    const auto wants = [&](const char* variable) {
      return std::find(output.variables.begin(), output.variables.end(), variable) != output.variables.end();
    };
    if (wants("U")) history.quantities.push_back(Quantity::Displacement);
    if (wants("V")) history.quantities.push_back(Quantity::Velocity);
    if (wants("A")) history.quantities.push_back(Quantity::Acceleration);
    if (history.quantities.empty()) continue;  // variables tremor does not record (stresses...)
    history.every_n_steps =
        // Clamped before the conversion: an interval longer than any run is one sample, at t = 0.
        output.every_time > 0.0 ? static_cast<int>(std::clamp(std::round(output.every_time / dt), 1.0, 2147483647.0))
                                : std::max(1, output.every_n_steps);
    history.nodes = output.nodes;
    history.node_labels = labels_of(output.nodes);
    histories.push_back(std::move(history));
  }
  return histories;
}

// -------------------------------------------------------------------------------------- Recorder

template <class Real>
Recorder<Real>::Recorder(const Exec& exec, std::vector<History> histories, double dt, Index n_dofs,
                         int field_components, int columns)
    : exec_(exec), histories_(std::move(histories)), dt_(dt) {
  TREMOR_CHECK(std::isfinite(dt) && dt > 0.0, "recorder: time step ", dt);
  TREMOR_CHECK(columns >= 1 && histories_.size() % static_cast<std::size_t>(columns) == 0, "recorder: ",
               histories_.size(), " histories for ", columns, " shots");
  const std::size_t per_shot = histories_.size() / static_cast<std::size_t>(columns);
  Index shot = 0;  // of the history being laid out
  dim_ = histories_.empty() ? 1 : histories_.front().components();
  const int field = field_components > 0 ? field_components : dim_;
  std::vector<Index> offsets{0}, dofs;
  std::vector<double> weights;
  // Row entry: weight x the field's component c (its only one for a scalar field) at `node`.
  const auto term = [&](Index node, int c, double weight) {
    TREMOR_CHECK(node >= 0 && static_cast<Size>(node) * field < n_dofs, "receiver node ", node, " out of range");
    dofs.push_back((node * field + (field == 1 ? 0 : c)) * columns + shot);
    weights.push_back(weight);
  };
  for (const History& history : histories_) {
    shot = static_cast<Index>(static_cast<std::size_t>(&history - histories_.data()) / std::max<std::size_t>(per_shot, 1));
    TREMOR_CHECK(history.components() == dim_, "histories of different numbers of components");
    TREMOR_CHECK(history.potential == (field == 1 && dim_ > 1), "history '", history.name, "' records ",
                 history.potential ? "a fluid's motion" : "its field", ", which a field of ", field,
                 " value(s) per node does not hold");
    row_begin_.push_back(static_cast<Index>(offsets.size() - 1));
    for (Index p = 0; p < history.n_points(); ++p)
      for (int c = 0; c < dim_; ++c) {
        if (history.potential) {  // u_c = sum_a (d N_a / d x_c) / rho chi_a
          const Location& location = history.locations[static_cast<std::size_t>(p)];
          for (std::size_t a = 0; a < location.nodes.size(); ++a)
            if (const double g = location.gradients[a * static_cast<std::size_t>(dim_) + static_cast<std::size_t>(c)];
                g != 0.0)
              term(location.nodes[a], c, g);
        } else if (!history.nodes.empty()) {
          term(history.nodes[static_cast<std::size_t>(p)], c, 1.0);
        } else {
          const Location& location = history.locations[static_cast<std::size_t>(p)];
          for (std::size_t a = 0; a < location.nodes.size(); ++a)
            if (location.weights[a] != 0.0) term(location.nodes[a], c, location.weights[a]);
        }
        offsets.push_back(static_cast<Index>(dofs.size()));
      }
  }
  n_rows_ = static_cast<Index>(offsets.size() - 1);
  offsets_ = DeviceArray<Index>(exec_, std::span<const Index>(offsets));
  dofs_ = DeviceArray<Index>(exec_, std::span<const Index>(dofs));
  weights_ = DeviceArray<double>(exec_, std::span<const double>(weights));
  capacity_ = buffered_recording_steps(2 * static_cast<std::size_t>(n_rows_) * sizeof(Real));
  buffer_ = DeviceArray<Real>(exec_, 2 * n_rows_ * capacity_);
  pending_.resize(histories_.size());
}

// A free function, since nvcc allows no device lambda in a private member function.
template <class Real>
void gather_entries(const Exec& exec, View<const Real> field, View<const Index> dofs, View<Real> gathered) {
  forall(exec, dofs.size, [=] TREMOR_LAMBDA(Index k) { gathered[k] = field[dofs[k]]; });
}
template void gather_entries<float>(const Exec&, View<const float>, View<const Index>, View<float>);
template void gather_entries<double>(const Exec&, View<const double>, View<const Index>, View<double>);

namespace {

// out[r] = row r of previous and out[n + r] = row r of current, n rows (Recorder's rows): both time
// levels of one recording step in one launch.
template <class Real>
void record_levels(const Exec& exec, View<const Real> previous, View<const Real> current, Index n,
                   const Index* offsets, const Index* dofs, const double* weights, Real* out) {
  forall(exec, 2 * n, [=] TREMOR_LAMBDA(Index k) {
    const Real* u = k < n ? previous.data : current.data;
    const Index r = k < n ? k : k - n;
    double sum = 0.0;
    for (Index t = offsets[r]; t < offsets[r + 1]; ++t) sum += weights[t] * static_cast<double>(u[dofs[t]]);
    out[k] = static_cast<Real>(sum);
  });
}

}  // namespace

template <class Real>
void Recorder<Real>::values_of(std::size_t h, const std::vector<double>& level, std::vector<double>& out) const {
  const auto begin = level.begin() + row_begin_[h];
  out.assign(begin, begin + histories_[h].n_points() * dim_);
}

template <class Real>
void Recorder<Real>::record(long long step, View<const Real> previous, View<const Real> current) {
  if (histories_.empty()) return;
  // Which histories act this step: a displacement-only one samples at multiples of n; a
  // velocity/acceleration one stores u_k-1, u_k at multiples of n and completes the next step.
  bool need = false;
  for (std::size_t h = 0; h < histories_.size(); ++h) {
    const auto n = static_cast<long long>(histories_[h].every_n_steps);
    const bool kinematic = histories_[h].records(Quantity::Velocity) || histories_[h].records(Quantity::Acceleration);
    need = need || step % n == 0 || (kinematic && step % n == 1 % n);
  }
  if (!need) return;
  if (static_cast<Index>(buffered_.size()) == capacity_) flush();
  const auto width = static_cast<std::size_t>(n_rows_);
  record_levels<Real>(exec_, previous, current, n_rows_, offsets_.data(), dofs_.data(), weights_.data(),
                      buffer_.data() + 2 * width * buffered_.size());
  buffered_.push_back(step);
}

template <class Real>
void Recorder<Real>::flush() {
  if (buffered_.empty()) return;
  const auto width = static_cast<std::size_t>(n_rows_);
  std::vector<Real> host(2 * width * buffered_.size());
  memory::copy(exec_, host.data(), MemorySpace::Host, buffer_.data(), exec_.space(), sizeof(Real) * host.size());
  for (std::size_t r = 0; r < buffered_.size(); ++r) {
    const Real* row = host.data() + 2 * width * r;
    previous_.assign(row, row + width);
    current_.assign(row + width, row + 2 * width);
    complete(buffered_[r]);
  }
  buffered_.clear();
}

template <class Real>
void Recorder<Real>::complete(long long step) {
  std::vector<double> u_prev, u_curr;
  for (std::size_t h = 0; h < histories_.size(); ++h) {
    History& history = histories_[h];
    Pending& pending = pending_[h];
    const auto n = static_cast<long long>(history.every_n_steps);
    const bool kinematic = history.records(Quantity::Velocity) || history.records(Quantity::Acceleration);
    const bool due = step % n == 0;
    if (!kinematic && !due) continue;
    if (kinematic && !due && !pending.active) continue;
    values_of(h, current_, u_curr);
    const std::size_t n_values = u_curr.size();
    if (!kinematic) {
      history.times.push_back(static_cast<double>(step) * dt_);
      for (std::size_t p = 0; p < n_values; p += static_cast<std::size_t>(dim_))
        history.values.insert(history.values.end(), u_curr.begin() + static_cast<std::ptrdiff_t>(p),
                              u_curr.begin() + static_cast<std::ptrdiff_t>(p + static_cast<std::size_t>(dim_)));
      if (on_sample_) on_sample_(history, history.n_samples() - 1);
      continue;
    }
    if (pending.active && pending.step + 1 == step) {
      // Complete the sample of step k = step - 1 with u_k+1 = current.
      const double inv_2dt = 0.5 / dt_, inv_dt2 = 1.0 / (dt_ * dt_);
      history.times.push_back(static_cast<double>(pending.step) * dt_);
      for (std::size_t p = 0; p < n_values; p += static_cast<std::size_t>(dim_))
        for (Quantity quantity : history.quantities)
          for (int c = 0; c < dim_; ++c) {
            const std::size_t i = p + static_cast<std::size_t>(c);
            const double before = pending.before[i], at = pending.at[i], after = u_curr[i];
            double value = at;
            if (quantity == Quantity::Velocity) value = (after - before) * inv_2dt;
            if (quantity == Quantity::Acceleration) value = (after - 2.0 * at + before) * inv_dt2;
            history.values.push_back(value);
          }
      pending.active = false;
      if (on_sample_) on_sample_(history, history.n_samples() - 1);
    }
    if (due) {
      values_of(h, previous_, u_prev);
      pending.active = true;
      pending.step = step;
      pending.before = u_prev;
      pending.at = u_curr;
    }
  }
}

template <class Real>
void Recorder<Real>::restore_pending(std::vector<PendingSample> pending) {
  TREMOR_CHECK(buffered_.empty(), "restore_pending: samples are still buffered");
  TREMOR_CHECK(pending.size() == histories_.size(), "checkpoint holds ", pending.size(),
               " pending receiver samples; the model has ", histories_.size(), " histories");
  for (std::size_t h = 0; h < pending.size(); ++h) {
    const std::size_t size = static_cast<std::size_t>(histories_[h].n_points()) * static_cast<std::size_t>(dim_);
    TREMOR_CHECK(!pending[h].active || (pending[h].before.size() == size && pending[h].at.size() == size),
                 "checkpoint: pending sample of history '", histories_[h].name, "' has ", pending[h].at.size(),
                 " values; expected ", size);
  }
  pending_ = std::move(pending);
}

template <class Real>
void Recorder<Real>::restart() {
  flush();
  for (History& history : histories_) history.clear_samples();
  pending_.assign(histories_.size(), Pending{});
}

template class Recorder<float>;
template class Recorder<double>;

}  // namespace tremor::explicit_fe
