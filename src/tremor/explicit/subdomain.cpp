#include "tremor/explicit/subdomain.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <utility>

#include "tremor/backend/forall.hpp"
#include "tremor/backend/reduce.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/partitioned_operator.hpp"
#include "tremor/explicit/processes.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/mesh/reorder.hpp"
#include "tremor/model/renumber.hpp"
#include "tremor/partition/block_file.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/sparse/two_kernel.hpp"

namespace tremor::explicit_fe {

Numbering::Numbering(Index n_nodes, int dim) : n_model_nodes_(n_nodes), dim_(dim) {}

Numbering::Numbering(Index n_model_nodes, int dim, std::vector<Index> local_to_global)
    : n_model_nodes_(n_model_nodes), dim_(dim), local_to_global_(std::move(local_to_global)) {
  global_to_local_.assign(static_cast<std::size_t>(n_model_nodes), -1);
  for (std::size_t local = 0; local < local_to_global_.size(); ++local) {
    const Index global = local_to_global_[local];
    TREMOR_CHECK(global >= 0 && global < n_model_nodes, "subdomain node ", local, " is model node ", global,
                 ", outside 0..", n_model_nodes - 1);
    Index& slot = global_to_local_[static_cast<std::size_t>(global)];
    TREMOR_CHECK(slot < 0, "model node ", global, " appears twice in a subdomain (local nodes ", slot, " and ",
                 local, ")");
    slot = static_cast<Index>(local);
  }
}

Index Numbering::n_local_nodes() const {
  return identity() ? n_model_nodes_ : static_cast<Index>(local_to_global_.size());
}

Index Numbering::global_node(Index local) const {
  return identity() ? local : local_to_global_[static_cast<std::size_t>(local)];
}

Index Numbering::local_node(Index global) const {
  return identity() ? global : global_to_local_[static_cast<std::size_t>(global)];
}

void Numbering::to_global(std::span<const double> local, std::span<double> global) const {
  const auto d = static_cast<std::size_t>(dim_);
  TREMOR_CHECK(local.size() == static_cast<std::size_t>(n_local_nodes()) * d &&
                   global.size() == static_cast<std::size_t>(n_model_nodes_) * d,
               "DOF vectors of ", local.size(), " and ", global.size(), " entries for ", n_local_nodes(), " and ",
               n_model_nodes_, " nodes");
  for (std::size_t node = 0; node < static_cast<std::size_t>(n_local_nodes()); ++node) {
    const auto to = static_cast<std::size_t>(global_node(static_cast<Index>(node)));
    for (std::size_t c = 0; c < d; ++c) global[to * d + c] = local[node * d + c];
  }
}

std::vector<double> Numbering::to_local(std::span<const double> global) const {
  const auto d = static_cast<std::size_t>(dim_);
  TREMOR_CHECK(global.size() == static_cast<std::size_t>(n_model_nodes_) * d, "a DOF vector of ", global.size(),
               " entries for ", n_model_nodes_, " nodes");
  std::vector<double> local(static_cast<std::size_t>(n_local_nodes()) * d);
  for (std::size_t node = 0; node < static_cast<std::size_t>(n_local_nodes()); ++node) {
    const auto from = static_cast<std::size_t>(global_node(static_cast<Index>(node)));
    for (std::size_t c = 0; c < d; ++c) local[node * d + c] = global[from * d + c];
  }
  return local;
}

void Numbering::to_global(History& history) const {
  if (identity()) return;
  for (Index& node : history.nodes) node = global_node(node);
  for (Location& location : history.locations)
    for (Index& node : location.nodes) node = global_node(node);
}

SetupClock::SetupClock(const Exec& exec, Clock::time_point start) : exec_(exec), start_(start), last_(Clock::now()) {}

namespace {
thread_local std::string last_phase;  // last_setup_phase(): each thread's own set-up (--gpus)
}  // namespace

std::string last_setup_phase() { return last_phase; }

void SetupClock::lap(std::string name) {
  exec_.synchronize();
  last_phase = name;
  phases_.push_back({std::move(name), tremor::lap(last_)});
  phases_.insert(phases_.end(), details_.begin(), details_.end());
  details_.clear();
}

template <class Real>
Subdomain<Real>::~Subdomain() = default;

// ------------------------------------------------------------------------------ the model's parts

namespace {

// The rows of `table` for the elements listed (per-element columns; the per-section ones kept).
fem::SectionTable table_rows(const fem::SectionTable& table, std::span<const Index> elements) {
  fem::SectionTable rows = table;
  rows.element_section.clear();
  rows.element_alpha.clear();
  rows.element_stiffness_factor.clear();
  for (const Index e : elements) {
    const auto g = static_cast<std::size_t>(e);
    rows.element_section.push_back(table.element_section[g]);
    if (!table.element_alpha.empty()) rows.element_alpha.push_back(table.element_alpha[g]);
    if (!table.element_stiffness_factor.empty()) rows.element_stiffness_factor.push_back(table.element_stiffness_factor[g]);
  }
  return rows;
}

}  // namespace

std::vector<ModelPart> decompose_model(const Model& model, const partition::Decomposition& decomposition,
                                       const std::vector<History>& histories, int only) {
  const fem::SectionTable table = fem::section_table(model, false);
  const Loading loading(model);
  const std::size_t n = decomposition.domains.size();
  // A node belongs to the first subdomain holding it.
  std::vector<int> owner(static_cast<std::size_t>(model.mesh.n_nodes()), -1);
  for (std::size_t s = n; s-- > 0;)
    for (const Index node : decomposition.domains[s].nodes) owner[static_cast<std::size_t>(node)] = static_cast<int>(s);
  std::vector<ModelPart> parts(n);
  // Each subdomain's local numbers of the model's nodes, -1 elsewhere: one array for all (set for
  // a subdomain, then reset), since it spans the whole model.
  std::vector<Index> local(static_cast<std::size_t>(model.mesh.n_nodes()), -1);
  for (std::size_t s = 0; s < n; ++s) {
    const partition::Subdomain& domain = decomposition.domains[s];
    ModelPart& part = parts[s];
    part.nodes = domain.nodes;
    part.n_owned = domain.n_owned;
    for (std::size_t i = static_cast<std::size_t>(domain.n_owned); i < domain.nodes.size(); ++i)
      if (owner[static_cast<std::size_t>(domain.nodes[i])] == static_cast<int>(s))
        part.shared_owned.push_back(static_cast<Index>(i));
    if (only < 0 || static_cast<std::size_t>(only) == s) {
      part.model.source = model.source;
      part.model.mesh_file = model.mesh_file;
      part.model.title = model.title;
      part.model.materials = model.materials;
      part.model.sections = model.sections;
      part.model.absorbing = model.absorbing;
      part.model.mesh = partition::subdomain_mesh(model.mesh, domain, part.elements);
      part.table = table_rows(table, part.elements);
      part.loading = std::make_unique<Loading>(loading.restricted(domain.nodes));
    }
    for (std::size_t i = 0; i < domain.nodes.size(); ++i) local[static_cast<std::size_t>(domain.nodes[i])] = static_cast<Index>(i);
    for (std::size_t h = 0; h < histories.size(); ++h) {
      const History& full = histories[h];
      History mine;
      mine.name = full.name;
      mine.origin = full.origin;
      mine.dim = full.dim;
      mine.quantities = full.quantities;
      mine.every_n_steps = full.every_n_steps;
      std::vector<Index> points;
      for (Index p = 0; p < full.n_points(); ++p) {
        const auto q = static_cast<std::size_t>(p);
        if (!full.nodes.empty()) {
          if (owner[static_cast<std::size_t>(full.nodes[q])] != static_cast<int>(s)) continue;
          mine.nodes.push_back(local[static_cast<std::size_t>(full.nodes[q])]);
          mine.node_labels.push_back(full.node_labels[q]);
        } else {
          const Location& where = full.locations[q];
          if (decomposition.element_domain[static_cast<std::size_t>(where.element)] != static_cast<int>(s)) continue;
          Location moved = where;
          for (Index& node : moved.nodes) node = local[static_cast<std::size_t>(node)];
          mine.positions.push_back(full.positions[q]);
          mine.locations.push_back(std::move(moved));
        }
        points.push_back(p);
      }
      if (points.empty()) continue;
      part.histories.push_back(std::move(mine));
      part.history_of.push_back(static_cast<int>(h));
      part.history_points.push_back(std::move(points));
    }
    // The snapshot nodes it owns, in the model's order, at their local numbers.
    if (model.output) {
      OutputSettings output = *model.output;
      output.snapshot_nodes.clear();
      const std::vector<Index>& listed = model.output->snapshot_nodes;
      const auto n_listed = static_cast<Index>(listed.empty() ? model.mesh.n_nodes() : listed.size());
      for (Index k = 0; k < n_listed; ++k) {
        const Index node = listed.empty() ? k : listed[static_cast<std::size_t>(k)];
        if (owner[static_cast<std::size_t>(node)] != static_cast<int>(s)) continue;
        output.snapshot_nodes.push_back(local[static_cast<std::size_t>(node)]);
        part.snapshot_points.push_back(k);
      }
      part.model.output = std::move(output);
    }
    for (const Index node : domain.nodes) local[static_cast<std::size_t>(node)] = -1;
  }
  return parts;
}

namespace {

// Pending samples of pieces of one set of n_points points (dim values each), piece i's point j
// at points[i][j], as one; pieces without points are left out.
PendingSample merge_pieces(std::span<const PendingSample* const> pieces,
                           std::span<const std::vector<Index>* const> points, std::size_t n_points, int dim) {
  PendingSample whole;
  const auto d = static_cast<std::size_t>(dim);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const PendingSample& piece = *pieces[i];
    if (!piece.active) continue;
    TREMOR_CHECK(piece.before.size() == points[i]->size() * d && piece.at.size() == points[i]->size() * d,
                 "a subdomain's pending sample of ", piece.at.size(), " values for ", points[i]->size(), " points");
    if (!whole.active) {
      whole.active = true;
      whole.step = piece.step;
      whole.before.assign(n_points * d, 0.0);
      whole.at.assign(n_points * d, 0.0);
    }
    TREMOR_CHECK(piece.step == whole.step, "the subdomains' pending samples are of steps ", whole.step, " and ",
                 piece.step);
    for (std::size_t j = 0; j < points[i]->size(); ++j)
      for (std::size_t c = 0; c < d; ++c) {
        const std::size_t to = static_cast<std::size_t>((*points[i])[j]) * d + c;
        whole.before[to] = piece.before[j * d + c];
        whole.at[to] = piece.at[j * d + c];
      }
  }
  return whole;
}

// The piece of `whole` at `points`.
PendingSample split_piece(const PendingSample& whole, const std::vector<Index>& points, int dim) {
  PendingSample piece;
  piece.step = whole.step;
  if (!whole.active || points.empty()) return piece;
  piece.active = true;
  const auto d = static_cast<std::size_t>(dim);
  for (const Index point : points)
    for (std::size_t c = 0; c < d; ++c) {
      const std::size_t from = static_cast<std::size_t>(point) * d + c;
      TREMOR_CHECK(from < whole.before.size() && from < whole.at.size(), "checkpoint: a pending sample of ",
                   whole.at.size(), " values for a point ", point);
      piece.before.push_back(whole.before[from]);
      piece.at.push_back(whole.at[from]);
    }
  return piece;
}

}  // namespace

PendingSample SnapshotMerge::merge_pending(std::span<const PendingSample> parts) const {
  std::vector<const PendingSample*> pieces;
  std::vector<const std::vector<Index>*> points;
  for (std::size_t s = 0; s < parts.size(); ++s) {
    pieces.push_back(&parts[s]);
    points.push_back(&points_[s]);
  }
  return merge_pieces(pieces, points, n_values_ / static_cast<std::size_t>(dim_), dim_);
}

PendingSample SnapshotMerge::split_pending(const PendingSample& whole, std::size_t part) const {
  return split_piece(whole, points_[part], dim_);
}

std::vector<PendingSample> HistoryMerge::merge_pending(std::span<const std::vector<PendingSample>* const> parts) const {
  std::vector<PendingSample> whole;
  for (std::size_t h = 0; h < histories_.size(); ++h) {
    std::vector<const PendingSample*> pieces;
    std::vector<const std::vector<Index>*> points;
    for (std::size_t s = 0; s < parts.size(); ++s)
      for (std::size_t k = 0; k < maps_[s].size(); ++k)
        if (static_cast<std::size_t>(maps_[s][k].history) == h) {
          pieces.push_back(&(*parts[s])[k]);
          points.push_back(&maps_[s][k].points);
        }
    whole.push_back(merge_pieces(pieces, points, static_cast<std::size_t>(histories_[h].n_points()), histories_[h].dim));
  }
  return whole;
}

std::vector<PendingSample> HistoryMerge::split_pending(const std::vector<PendingSample>& whole, std::size_t part) const {
  TREMOR_CHECK(whole.size() == histories_.size(), "checkpoint holds ", whole.size(),
               " pending receiver samples; the model has ", histories_.size(), " histories");
  std::vector<PendingSample> pieces;
  for (const Map& map : maps_[part])
    pieces.push_back(split_piece(whole[static_cast<std::size_t>(map.history)], map.points,
                                 histories_[static_cast<std::size_t>(map.history)].dim));
  return pieces;
}

SnapshotMerge::SnapshotMerge(const Model& model, const std::vector<ModelPart>& parts, Observer* observer)
    : observer_(observer), dim_(model.mesh.dim()), velocity_(model.output && model.output->velocity) {
  const std::size_t listed = model.output && !model.output->snapshot_nodes.empty()
                                 ? model.output->snapshot_nodes.size()
                                 : static_cast<std::size_t>(model.mesh.n_nodes());
  n_values_ = listed * static_cast<std::size_t>(dim_);
  observers_.resize(parts.size());
  for (std::size_t s = 0; s < parts.size(); ++s) {
    points_.push_back(parts[s].snapshot_points);
    observers_[s].merge = this;
    observers_[s].part = s;
    if (!parts[s].snapshot_points.empty()) ++n_parts_;
  }
}

Observer* SnapshotMerge::part_observer(std::size_t part) {
  return observer_ && !points_[part].empty() ? &observers_[part] : nullptr;
}

void SnapshotMerge::add(std::size_t part, const Snapshot& snapshot) {
  if (!observer_) return;  // (a process whose first has nobody to pass snapshots to)
  Pending& merged = pending_[snapshot.step];
  if (merged.count == 0) {
    merged.displacement.assign(n_values_, 0.0);
    if (velocity_) merged.velocity.assign(n_values_, 0.0);
  }
  const auto d = static_cast<std::size_t>(dim_);
  const std::vector<Index>& points = points_[part];
  TREMOR_CHECK(snapshot.displacement.size() == points.size() * d, "a subdomain's snapshot of ",
               snapshot.displacement.size(), " values for ", points.size(), " nodes");
  for (std::size_t i = 0; i < points.size(); ++i)
    for (std::size_t c = 0; c < d; ++c) {
      const std::size_t to = static_cast<std::size_t>(points[i]) * d + c;
      merged.displacement[to] = snapshot.displacement[i * d + c];
      if (velocity_) merged.velocity[to] = snapshot.velocity[i * d + c];
    }
  if (++merged.count < n_parts_) return;
  // Complete: every earlier step was completed and passed on first (see the class comment).
  TREMOR_CHECK(pending_.begin()->first == snapshot.step, "the snapshot of step ", snapshot.step,
               " was complete before that of step ", pending_.begin()->first);
  Snapshot whole = snapshot;
  whole.displacement = merged.displacement;
  whole.velocity = merged.velocity;
  observer_->on_snapshot(whole);
  pending_.erase(pending_.begin());
}

HistoryMerge::HistoryMerge(std::vector<History> histories, const std::vector<ModelPart>& parts)
    : histories_(std::move(histories)),
      maps_(parts.size()),
      n_parts_(histories_.size(), 0),
      open_(histories_.size()) {
  for (std::size_t s = 0; s < parts.size(); ++s)
    for (std::size_t k = 0; k < parts[s].history_of.size(); ++k) {
      maps_[s].push_back({parts[s].history_of[k], parts[s].history_points[k]});
      ++n_parts_[static_cast<std::size_t>(parts[s].history_of[k])];
    }
}

std::vector<History> HistoryMerge::take_samples() {
  std::vector<History> out = histories_;
  for (History& history : histories_) history.clear_samples();
  for (auto& open : open_) open.clear();
  return out;
}

void HistoryMerge::add(std::size_t part, std::size_t k, const History& from, std::size_t sample) {
  add(part, k, from.times[sample],
      std::span<const double>(from.values.data() + sample * from.sample_size(), from.sample_size()), sample);
}

void HistoryMerge::add(std::size_t part, std::size_t k, double time, std::span<const double> in, std::size_t sample) {
  TREMOR_CHECK(part < maps_.size() && k < maps_[part].size(), "a sample of subdomain ", part, "'s history ", k,
               ", which it does not record");
  const Map& map = maps_[part][k];
  const auto h = static_cast<std::size_t>(map.history);
  History& to = histories_[h];
  const std::size_t point_size = to.quantities.size() * static_cast<std::size_t>(to.dim);
  // Samples are staged until every part has filled them: the history holds complete ones only
  // (an observer writes what it holds).
  std::deque<Staged>& open = open_[h];
  const std::size_t done = to.times.size();
  TREMOR_CHECK(sample >= done && sample <= done + open.size(), "history '", to.name, "': sample ", sample,
               " arrived with ", done, " complete and ", open.size(), " open");
  if (sample == done + open.size()) open.push_back({time, std::vector<double>(to.sample_size(), 0.0), 0});
  Staged& staged = open[sample - done];
  TREMOR_CHECK(in.size() == map.points.size() * point_size, "a sample of ", in.size(), " values for ",
               map.points.size(), " points of history '", to.name, "'");
  for (std::size_t i = 0; i < map.points.size(); ++i)
    std::copy_n(in.data() + i * point_size, point_size,
                staged.values.data() + static_cast<std::size_t>(map.points[i]) * point_size);
  ++staged.count;
  // Samples complete in order: pass on those every part has filled.
  while (!open.empty() && open.front().count == n_parts_[h]) {
    to.times.push_back(open.front().time);
    to.values.insert(to.values.end(), open.front().values.begin(), open.front().values.end());
    open.pop_front();
    if (on_sample_) on_sample_(to, to.times.size() - 1);
  }
}

bool is_damped(const Model& model) {
  return !model.absorbing.empty() || std::any_of(model.materials.begin(), model.materials.end(),
                                                 [](const Material& m) { return m.damping_alpha != 0.0; });
}

template <class Real>
std::unique_ptr<Subdomain<Real>> begin_subdomain(const Exec& exec, const Model& original, Numbering numbering,
                                                 ModelPart* part, const Preflight& preflight, SetupClock& clock,
                                                 const Exec* interface_exec) {
  if (!part)
    TREMOR_CHECK(numbering.n_local_nodes() == original.mesh.n_nodes(), "a subdomain of ", numbering.n_local_nodes(),
                 " of the model's ", original.mesh.n_nodes(), " nodes without its part of the model");
  auto d = std::make_unique<Subdomain<Real>>(exec, std::move(numbering));
  d->part = part;
  d->n_counted = part ? part->n_owned : d->numbering.n_local_nodes();
  if (part) d->shared_counted = DeviceArray<Index>(exec, std::span<const Index>(part->shared_owned));
  if (part) {
    TREMOR_CHECK(preflight.blocks.empty() && preflight.op->name != "partitioned",
                 "the partitioned operator runs on one domain: its block layout is made for the whole mesh");
    d->renumbered = std::move(part->model);
  } else if (!d->numbering.identity()) {
    d->renumbered = renumber_nodes(original, d->numbering.local_to_global());
    clock.lap("model in the subdomain's numbering");
  }
  d->model = d->renumbered ? &*d->renumbered : &original;
  const Model& model = *d->model;
  // Set-up on the Exec (a GPU's for CUDA): the mesh and sections go there once; K, the lumped mass
  // and damping are assembled there by the two-kernel assembly, and K converted to the operator's
  // format there. The host keeps the mesh and the model; no global K exists on it.
  const sparse::RaceStrategy strategy = preflight.assembly;
  // The elements were checked by the pre-flight's survey. A part has its rows of the model's table.
  const fem::SectionTable table = part ? std::move(part->table) : fem::section_table(model, false);
  clock.lap("sections");
  const fem::ElementColouring colouring =
      strategy == sparse::RaceStrategy::Colouring || preflight.op->needs_colouring
          ? fem::colour_elements(model.mesh)
          : fem::ElementColouring{};
  if (!colouring.blocks.empty()) clock.lap("element colouring");
  d->elements = std::make_shared<const fem::DeviceElements>(exec, model.mesh, table, colouring);
  clock.lap(exec.space() == MemorySpace::Device ? "elements to the GPU" : "element arrays");
  // The first part beside the rest: rows always; elements where they add by atomics.
  const bool atomics = strategy == sparse::RaceStrategy::Atomics && !preflight.op->needs_colouring;
  if (part && preflight.overlap && interface_exec && (preflight.op->needs_assembly || atomics))
    d->interface_exec = *interface_exec;
  if (part && preflight.overlap && !preflight.op->needs_assembly) {  // the element-by-element kinds
    // The elements touching a shared node, and the rest: each its own mesh on the subdomain's
    // nodes (its own colouring) and its rows of the table. Not split where either would be empty.
    std::vector<Index> touching, interior;
    Index e = 0;
    for (const ElementBlock& block : model.mesh.blocks)
      for (Index k = 0; k < block.n_elements(); ++k, ++e) {
        const auto nodes = block.nodes(k);
        const bool shared = std::any_of(nodes.begin(), nodes.end(), [&](Index n) { return n >= part->n_owned; });
        (shared ? touching : interior).push_back(e);
      }
    if (!touching.empty() && !interior.empty()) {
      partition::Subdomain all_nodes;
      all_nodes.nodes.resize(static_cast<std::size_t>(model.mesh.n_nodes()));
      std::iota(all_nodes.nodes.begin(), all_nodes.nodes.end(), Index(0));
      for (auto [list, into] : {std::pair{&touching, &d->interface_elements}, std::pair{&interior, &d->interior_elements}}) {
        all_nodes.elements = *list;
        std::vector<Index> order;
        const Mesh mesh = partition::subdomain_mesh(model.mesh, all_nodes, order);
        const bool first = list == &touching;
        *into = std::make_shared<const fem::DeviceElements>(
            first && d->interface_exec ? *d->interface_exec : exec, mesh, table_rows(table, order),
            colouring.blocks.empty() ? fem::ElementColouring{} : fem::colour_elements(mesh));
      }
      clock.lap(str("elements split: ", touching.size(), " touching a shared node, ", interior.size(), " interior"));
    }
  }
  d->mass = sparse::assemble_lumped_mass<double>(exec, *d->elements, strategy);
  if (is_damped(original)) d->damping = sparse::assemble_lumped_damping<double>(exec, *d->elements, strategy);
  clock.lap(is_damped(original) ? "lumped mass and damping" : "lumped mass");
  return d;
}

template <class Real>
void finish_subdomain(Subdomain<Real>& d, const Model& original, const Preflight& preflight, SetupClock& clock,
                      Observer* observer, std::mutex& observer_guard) {
  const Exec& exec = d.exec;
  const Model& model = *d.model;
  if (!preflight.blocks.empty()) {
    // The saved partition (of the model's numbering), carried to the subdomain's: no partitioning.
    // The partitioned layout is filled on the host from a host assembly.
    partition::BlockPartition blocks = partition::read_block_file(preflight.blocks, node_graph(original.mesh));
    if (!d.numbering.identity())
      blocks = partition::renumbered(std::move(blocks), d.numbering.local_to_global(), node_graph(model.mesh));
    const fem::SectionTable table = fem::section_table(model, false);
    const sparse::CsrMatrix K = sparse::assemble_stiffness(model, table, fem::colour_elements(model.mesh), host_exec(exec));
    d.stiffness = std::make_unique<PartitionedOperator<Real>>(exec, K, model.mesh, std::move(blocks));
    clock.lap("stiffness (host assembly, partitioned layout)");
  } else {
    op::OperatorSetup built;
    if (d.interface_elements) {  // the element-by-element kinds, split by elements
      d.stiffness = std::make_unique<op::SplitOperator<Real>>(
          make_stiffness_operator<Real>(model, preflight.op->name, std::move(d.interface_elements), preflight.assembly),
          make_stiffness_operator<Real>(model, preflight.op->name, std::move(d.interior_elements), preflight.assembly));
    } else {  // the assembled kinds split by rows, the shared nodes' first
      const Index split_at = d.part && preflight.overlap ? d.part->n_owned : -1;
      d.stiffness = make_stiffness_operator<Real>(model, preflight.op->name, d.elements, preflight.assembly, &built,
                                                  split_at, d.interface_exec ? &*d.interface_exec : nullptr);
    }
    d.split = dynamic_cast<const op::SplitOperator<Real>*>(d.stiffness.get());
    const char* parts = !d.split                ? ""
                        : d.split->adds() ? ", in two parts: the elements touching shared nodes, the rest"
                                          : ", in two parts: the shared nodes' rows, the rest";
    if (built.assembly_bytes > 0) {  // K was assembled on the Exec
      clock.detail(str("K by the two-kernel assembly (", to_string(preflight.assembly), ", double)"), built.assembly_seconds);
      clock.detail(str("K to ", preflight.op->name, " in ", to_string(preflight.precision)), built.format_seconds);
    }
    clock.lap(str("stiffness operator (", preflight.op->name, parts, ")"));
  }
  d.elements.reset();  // the element-by-element operators hold their own reference
  d.loading = d.part ? std::move(d.part->loading) : std::make_unique<Loading>(model);
  d.scheme = std::make_unique<CentralDifference<Real>>(exec, *d.stiffness, std::move(d.mass), std::move(d.damping),
                                                       preflight.dt, d.loading->constrained_dofs());
  clock.lap("integrator state");
  d.loads = std::make_unique<DeviceLoading<Real>>(exec, *d.loading, preflight.dt);
  clock.lap("loads");
  d.recorder = std::make_unique<Recorder<Real>>(
      exec, d.part ? std::move(d.part->histories) : make_histories(model, preflight.dt), preflight.dt,
      model.mesh.n_nodes() * model.mesh.dim());
  clock.lap("receivers");
  // The snapshot nodes are the model's; the taker gathers them at their local numbers (and takes
  // nothing without an observer). A part's are in its own model (ModelPart::snapshot_points),
  // none when it owns none of them.
  if (d.part)
    d.snapshots = std::make_unique<SnapshotTaker<Real>>(
        exec, model, d.part->snapshot_points.empty() ? 0 : preflight.snapshot_every, preflight.dt, std::vector<Index>{},
        observer, observer_guard);
  else
    d.snapshots = std::make_unique<SnapshotTaker<Real>>(exec, original, preflight.snapshot_every, preflight.dt,
                                                        d.numbering.global_to_local(), observer, observer_guard);
}

template <class Real>
void load_shot(Subdomain<Real>& d, const Model& model, const Shot& shot, double dt) {
  auto loading = d.part ? std::make_unique<Loading>(Loading(model, &shot).restricted(d.part->nodes))
                        : std::make_unique<Loading>(*d.model, &shot);
  // Transducers load and never constrain, so the integrator's constrained DOFs stay right.
  TREMOR_CHECK(loading->constrained_dofs() == d.loading->constrained_dofs(), "shot '", shot.name,
               "' constrains other degrees of freedom than the model");
  d.loads.reset();
  d.loading = std::move(loading);
  d.loads = std::make_unique<DeviceLoading<Real>>(d.exec, *d.loading, dt);
}

std::vector<const Shot*> shots_of(const Model& model) {
  std::vector<const Shot*> shots;
  for (const Shot& shot : model.shots) shots.push_back(&shot);
  if (shots.empty()) shots.push_back(nullptr);
  return shots;
}

LoopSettings start_loop(const Model& model, const Preflight& preflight, int check_every, Observer* observer,
                        std::mutex& observer_guard) {
  if (observer) {
    const std::lock_guard lock(observer_guard);
    observer->on_start(preflight);
  }
  LoopSettings settings;
  settings.model = &model;
  settings.preflight = &preflight;
  settings.check_every = check_every;
  settings.observer = observer;
  settings.observer_guard = &observer_guard;
  return settings;
}

void end_shot(Observer* observer, std::mutex& guard, std::size_t index, std::vector<History> histories,
              ExplicitRun& run) {
  if (observer) {
    const std::lock_guard lock(guard);
    observer->on_shot_end(index, histories);
  }
  run.shots.push_back(std::move(histories));
}

template <class Real>
void start_from_rest(Subdomain<Real>& d, double dt) {
  const std::vector<Index>& dofs = d.loading->prescribed_dofs();
  std::vector<Real> previous(static_cast<std::size_t>(d.scheme->n_dofs()), Real(0)), current(previous);
  std::vector<double> values(dofs.size());
  for (auto [t, state] : {std::pair{-dt, &previous}, std::pair{0.0, &current}}) {
    d.loading->prescribed(t, values);
    for (std::size_t k = 0; k < dofs.size(); ++k)
      (*state)[static_cast<std::size_t>(dofs[k])] = static_cast<Real>(values[k]);
  }
  d.scheme->set_state(previous, current, 0);
}

template <class Real>
void sum_lumped_mass(Exchange<Real>& exchange, std::span<Subdomain<Real>* const> subdomains) {
  std::vector<View<double>> mass, damping;
  for (Subdomain<Real>* d : subdomains) {
    mass.push_back(d->mass.view());
    damping.push_back(d->damping.view());
  }
  exchange.sum_mass(mass);
  if (subdomains.front()->damping.size() > 0) exchange.sum_mass(damping);  // damped: every subdomain has one
}

template <class Real>
std::unique_ptr<Subdomain<Real>> set_up_subdomain(const Exec& exec, const Model& original, Numbering numbering,
                                                  const Preflight& preflight, Exchange<Real>& exchange,
                                                  SetupClock& clock, Observer* observer, std::mutex& observer_guard) {
  std::unique_ptr<Subdomain<Real>> d = begin_subdomain<Real>(exec, original, std::move(numbering), nullptr, preflight, clock);
  Subdomain<Real>* const one[] = {d.get()};
  sum_lumped_mass<Real>(exchange, one);
  finish_subdomain(*d, original, preflight, clock, observer, observer_guard);
  return d;
}

namespace {

// DOFs of the subdomain's displacement that are NaN or Inf (a reduction on its Exec).
template <class Real>
double non_finite(const Subdomain<Real>& d) {
  const View<const Real> u = d.scheme->displacement();
  const Index dim = d.numbering.dim(), inner = d.n_counted * dim;
  const Index* shared = d.shared_counted.data();
  return sum<double>(d.exec, inner + d.shared_counted.size() * dim, [=] TREMOR_LAMBDA(Index i) {
    const Index k = i < inner ? i : shared[(i - inner) / dim] * dim + (i - inner) % dim;
    return std::isfinite(static_cast<double>(u[k])) ? 0.0 : 1.0;
  });
}

// The worst DOF of a state that is not finite (worse(): NaN first, then Inf, then the largest
// |u|, then the lowest node); its rank starts below any DOF's.
template <class Real>
void find_worst(const Subdomain<Real>& d, DofReport& worst) {
  std::vector<Real> previous, u;
  d.scheme->get_state(previous, u);
  const int dim = d.numbering.dim();
  for (std::size_t i = 0; i < u.size(); ++i) {
    const double value = static_cast<double>(u[i]);
    const int rank = std::isnan(value) ? 2 : std::isinf(value) ? 1 : 0;
    const double size = std::isfinite(value) ? std::abs(value) : 0.0;
    const DofReport dof{double(rank), size, double(d.numbering.global_node(static_cast<Index>(i) / dim)),
                        double(static_cast<int>(i % dim)), value};
    if (worse(dof, worst)) worst = dof;
  }
}

}  // namespace

template <class Real>
void run_subdomains(std::span<Subdomain<Real>* const> subdomains, Exchange<Real>& exchange,
                    const LoopSettings& settings, ExplicitRun& run) {
  const Preflight& p = *settings.preflight;
  const Model& model = *settings.model;
  const double dt = p.dt;
  Observer* observer = settings.observer;
  std::vector<View<Real>> forces(subdomains.size());
  long long step = settings.first_step;
  // Failures are agreed over the processes of a run over several (run_agreed), thrown otherwise.
  const parallel::Communicator* communicator = settings.processes ? &settings.processes->communicator() : nullptr;
  // The one host synchronisation every check_every steps: samples, then the NaN/Inf count. Over
  // several processes the samples and snapshots go to the first, and a failure on any stops all.
  // Then the checkpoint, when due, and progress. True: the run stops here.
  const auto check = [&](bool checkpoint) -> bool {
    ProcessGroup* processes = settings.processes;
    double bad = 0.0;
    run_agreed(
        communicator,
        [&] {
          for (Subdomain<Real>* d : subdomains) {
            d->recorder->flush();
            if (processes) d->snapshots->drain();  // so that the outbox holds them up to this step
            d->snapshots->check();  // a snapshot that failed to be written stops the run here
            bad += non_finite(*d);
          }
        },
        // (The first process's merges write the result file: a failure there is agreed too.)
        [&] {
          if (processes) processes->ship();
        });
    if (processes) bad = processes->sum(bad);
    if (bad > 0.0) {
      DofReport worst{-1.0, 0.0, 0.0, 0.0, 0.0};
      for (const Subdomain<Real>* d : subdomains) find_worst(*d, worst);
      if (processes) worst = processes->worst(worst);
      run.status = RunStatus::NonFinite;
      run.bad_step = step;
      run.bad_node = model.mesh.node_labels[static_cast<std::size_t>(worst[2])];
      run.message = str("the solution is not finite at step ", step, " (t = ", static_cast<double>(step) * dt,
                        " s): node ", run.bad_node, " has u", "xyz"[static_cast<int>(worst[3])], " = ", worst[4], "; ",
                        static_cast<long long>(bad), " values are NaN or Inf. The time step ", dt,
                        " s against the stable ", p.stable_dt, " s, or the loads, are the usual causes");
      return true;
    }
    if (checkpoint) {
      // The state in the model's numbering; the file the checkpoint counts holds every snapshot up
      // to this step first.
      SolverState state;
      state.step = step;
      const auto n_model = static_cast<std::size_t>(p.n_dofs);
      state.previous.assign(n_model, 0.0);
      state.current.assign(n_model, 0.0);
      // (A node several subdomains hold has the same bits in each.)
      std::vector<const std::vector<PendingSample>*> receivers;
      std::vector<PendingSample> snapshots;
      for (Subdomain<Real>* d : subdomains) {
        std::vector<Real> previous, current;
        d->scheme->get_state(previous, current);
        d->numbering.to_global(std::vector<double>(previous.begin(), previous.end()), state.previous);
        d->numbering.to_global(std::vector<double>(current.begin(), current.end()), state.current);
        receivers.push_back(&d->recorder->pending());
        d->snapshots->drain();
        snapshots.push_back(d->snapshots->pending(d->scheme->displacement()));
      }
      if (processes) {  // this process's one subdomain, to the first
        const Subdomain<Real>& d = *subdomains.front();
        std::vector<Real> previous, current;
        d.scheme->get_state(previous, current);
        processes->gather_state(step, std::vector<double>(previous.begin(), previous.end()),
                                std::vector<double>(current.begin(), current.end()), d.recorder->pending(),
                                snapshots.front(), state);
      } else if (settings.history_merge) {
        state.receivers = settings.history_merge->merge_pending(receivers);
        state.snapshot = settings.snapshot_merge->merge_pending(snapshots);
      } else {  // one subdomain holding every node
        state.receivers = *receivers.front();
        state.snapshot = snapshots.front();
      }
      state.shot = settings.shot;
      run_agreed(communicator, [&] {
        if (observer) {
          const std::lock_guard lock(*settings.observer_guard);
          observer->on_checkpoint(state);
        }
      });
    }
    bool stop = false;
    if (observer) {
      const std::lock_guard lock(*settings.observer_guard);
      observer->on_progress(step, p.steps, static_cast<double>(step) * dt);
      stop = step < p.steps && observer->stop_requested();
    }
    if (processes) stop = processes->stop_decision(stop);
    if (stop) {
      run.status = RunStatus::Stopped;
      run.message = str("stopped at step ", step, " of ", p.steps, " (t = ", static_cast<double>(step) * dt,
                        " s) on request");
      return true;
    }
    return false;
  };
  bool stopped = settings.checkpoint_first && settings.checkpoint_every > 0 && check(true);
  while (!stopped && step < p.steps) {
    // F at t_n drives u_n+1 (Eq. 4); prescribed values at t_n+1. The shared nodes' internal forces
    // are summed between the operator apply and the update.
    // A split subdomain applies the elements touching its shared nodes first, and the interior's
    // while the exchange runs.
    exchange.begin_forces();
    for (std::size_t s = 0; s < subdomains.size(); ++s) {
      Subdomain<Real>& d = *subdomains[s];
      d.loads->update(step);
      forces[s] = d.split ? d.scheme->apply_stiffness(d.split->first()) : d.scheme->apply_stiffness();
    }
    exchange.start_forces(forces);
    for (Subdomain<Real>* d : subdomains)
      if (d->split) d->scheme->apply_stiffness(d->split->second());
    exchange.finish_forces(forces);
    for (Subdomain<Real>* d : subdomains)
      d->scheme->advance(d->loads->force(), d->loads->prescribed_dofs(), d->loads->prescribed_values());
    ++step;
    for (Subdomain<Real>* d : subdomains) {
      d->recorder->record(step, d->scheme->previous_displacement(), d->scheme->displacement());
      d->snapshots->take(step, d->scheme->previous_displacement(), d->scheme->displacement());
    }
    const bool checkpoint =
        settings.checkpoint_every > 0 && step % settings.checkpoint_every == 0 && step < p.steps;
    if (step % settings.check_every != 0 && step != p.steps && !checkpoint) continue;
    stopped = check(checkpoint);
  }
  // Every snapshot taken is passed on before the run returns (over processes, a failure in doing
  // so is agreed, so that no process waits for another).
  run_agreed(
      communicator, [&] { for (Subdomain<Real>* d : subdomains) d->snapshots->drain(); },
      [&] {
        if (settings.processes) settings.processes->ship();
      });
  run.steps = step;
}

template struct Subdomain<float>;
template struct Subdomain<double>;
template std::unique_ptr<Subdomain<float>> begin_subdomain(const Exec&, const Model&, Numbering, ModelPart*,
                                                           const Preflight&, SetupClock&, const Exec*);
template std::unique_ptr<Subdomain<double>> begin_subdomain(const Exec&, const Model&, Numbering, ModelPart*,
                                                            const Preflight&, SetupClock&, const Exec*);
template void sum_lumped_mass(Exchange<float>&, std::span<Subdomain<float>* const>);
template void sum_lumped_mass(Exchange<double>&, std::span<Subdomain<double>* const>);
template void finish_subdomain(Subdomain<float>&, const Model&, const Preflight&, SetupClock&, Observer*, std::mutex&);
template void finish_subdomain(Subdomain<double>&, const Model&, const Preflight&, SetupClock&, Observer*, std::mutex&);
template std::unique_ptr<Subdomain<float>> set_up_subdomain(const Exec&, const Model&, Numbering, const Preflight&,
                                                            Exchange<float>&, SetupClock&, Observer*, std::mutex&);
template std::unique_ptr<Subdomain<double>> set_up_subdomain(const Exec&, const Model&, Numbering, const Preflight&,
                                                             Exchange<double>&, SetupClock&, Observer*, std::mutex&);
template void load_shot(Subdomain<float>&, const Model&, const Shot&, double);
template void load_shot(Subdomain<double>&, const Model&, const Shot&, double);
template void start_from_rest(Subdomain<float>&, double);
template void start_from_rest(Subdomain<double>&, double);
template void run_subdomains(std::span<Subdomain<float>* const>, Exchange<float>&, const LoopSettings&,
                             ExplicitRun&);
template void run_subdomains(std::span<Subdomain<double>* const>, Exchange<double>&, const LoopSettings&,
                             ExplicitRun&);

}  // namespace tremor::explicit_fe
