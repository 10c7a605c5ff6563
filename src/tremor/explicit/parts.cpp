#include "tremor/explicit/parts.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

#include "tremor/core/error.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/model/renumber.hpp"

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
  if (!identity()) history.for_each_node([&](Index& node) { node = global_node(node); });
}

void Numbering::to_local(History& history) const {
  if (identity()) return;
  history.for_each_node([&](Index& node) {
    node = local_node(node);
    TREMOR_CHECK(node >= 0, "history '", history.name, "' records a node the subdomain does not hold");
  });
}

// ------------------------------------------------------------------------------ the model's parts

Mesh on_all_nodes(const Mesh& mesh, std::vector<Index> elements, std::vector<Index>& order) {
  partition::Subdomain all_nodes;
  all_nodes.nodes.resize(static_cast<std::size_t>(mesh.n_nodes()));
  std::iota(all_nodes.nodes.begin(), all_nodes.nodes.end(), Index(0));
  all_nodes.elements = std::move(elements);
  return partition::subdomain_mesh(mesh, all_nodes, order);
}

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
      History mine = full.without_points();
      std::vector<Index> points;
      for (Index p = 0; p < full.n_points(); ++p) {
        const auto q = static_cast<std::size_t>(p);
        if (!full.nodes.empty()) {
          if (owner[static_cast<std::size_t>(full.nodes[q])] != static_cast<int>(s)) continue;
          mine.nodes.push_back(local[static_cast<std::size_t>(full.nodes[q])]);
          mine.node_labels.push_back(full.node_labels[q]);
        } else if (full.surface_means) {
          // The share of the mean over the nodes this subdomain owns (HistoryMerge adds the shares).
          const Location& where = full.locations[q];
          Location mine_of = where;
          mine_of.nodes.clear();
          mine_of.weights.clear();
          for (std::size_t a = 0; a < where.nodes.size(); ++a)
            if (owner[static_cast<std::size_t>(where.nodes[a])] == static_cast<int>(s)) {
              mine_of.nodes.push_back(local[static_cast<std::size_t>(where.nodes[a])]);
              mine_of.weights.push_back(where.weights[a]);
            }
          if (mine_of.nodes.empty()) continue;
          mine.positions.push_back(full.positions[q]);
          mine.locations.push_back(std::move(mine_of));
        } else {
          const Location& where = full.locations[q];
          if (decomposition.element_domain[static_cast<std::size_t>(where.element)] != static_cast<int>(s)) continue;
          Location moved = where;
          for (Index& node : moved.nodes) node = local[static_cast<std::size_t>(node)];
          if (!full.point_names.empty()) mine.point_names.push_back(full.point_names[q]);
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
    // Added: a point split among pieces (HistoryMerge) is the sum of their shares.
    for (std::size_t j = 0; j < points[i]->size(); ++j)
      for (std::size_t c = 0; c < d; ++c) {
        const std::size_t to = static_cast<std::size_t>((*points[i])[j]) * d + c;
        whole.before[to] += piece.before[j * d + c];
        whole.at[to] += piece.at[j * d + c];
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
    whole.push_back(merge_pieces(pieces, points, static_cast<std::size_t>(histories_[h].n_points()),
                                   histories_[h].components()));
  }
  return whole;
}

std::vector<PendingSample> HistoryMerge::split_pending(const std::vector<PendingSample>& whole, std::size_t part) const {
  TREMOR_CHECK(whole.size() == histories_.size(), "checkpoint holds ", whole.size(),
               " pending receiver samples; the model has ", histories_.size(), " histories");
  std::vector<PendingSample> pieces;
  for (const Map& map : maps_[part]) {
    const History& history = histories_[static_cast<std::size_t>(map.history)];
    // A mean's shares are not in the whole: such histories record displacement, never pending.
    TREMOR_CHECK(!history.surface_means || !whole[static_cast<std::size_t>(map.history)].active, "history '",
                 history.name, "' of surface means has a pending sample to split among subdomains");
    pieces.push_back(split_piece(whole[static_cast<std::size_t>(map.history)], map.points, history.components()));
  }
  return pieces;
}

SnapshotMerge::SnapshotMerge(const Model& model, const std::vector<ModelPart>& parts, Observer* observer)
    : observer_(observer),
      dim_(model.mesh.dim()),
      velocity_(model.output && model.output->velocity),
      pressure_(model.output && model.output->pressure) {
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
    if (pressure_) merged.pressure.assign(n_values_ / static_cast<std::size_t>(dim_), std::numeric_limits<double>::quiet_NaN());
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
  if (pressure_) {
    TREMOR_CHECK(snapshot.pressure.size() == points.size(), "a subdomain's snapshot of ", snapshot.pressure.size(),
                 " pressures for ", points.size(), " nodes");
    for (std::size_t i = 0; i < points.size(); ++i)
      merged.pressure[static_cast<std::size_t>(points[i])] = snapshot.pressure[i];
  }
  if (++merged.count < n_parts_) return;
  // Complete: every earlier step was completed and passed on first (see the class comment).
  TREMOR_CHECK(pending_.begin()->first == snapshot.step, "the snapshot of step ", snapshot.step,
               " was complete before that of step ", pending_.begin()->first);
  Snapshot whole = snapshot;
  whole.displacement = merged.displacement;
  whole.velocity = merged.velocity;
  whole.pressure = merged.pressure;
  observer_->on_snapshot(whole);
  pending_.erase(pending_.begin());
}

HistoryMerge::HistoryMerge(std::vector<History> histories, const std::vector<ModelPart>& parts, int columns)
    : per_shot_(histories.size()), maps_(parts.size()) {
  const std::size_t n = histories.size();
  histories_ = repeat_for_shots(std::move(histories), columns);
  n_parts_.assign(histories_.size(), 0);
  open_.resize(histories_.size());
  for (int c = 0; c < columns; ++c)
    for (std::size_t s = 0; s < parts.size(); ++s)
      for (std::size_t k = 0; k < parts[s].history_of.size(); ++k) {
        const int history = parts[s].history_of[k] + c * static_cast<int>(n);
        maps_[s].push_back({history, parts[s].history_points[k]});
        ++n_parts_[static_cast<std::size_t>(history)];
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

}  // namespace tremor::explicit_fe
