#pragma once
// A decomposed run's bookkeeping, apart from its stepping: each subdomain's Numbering (the one place
// that maps its local nodes to the model's), what each holds of the model (ModelPart:
// decompose_model), and the merges of the subdomains' samples and snapshots into the model's
// (HistoryMerge, SnapshotMerge) for the observer and for checkpoints.
#include <cstddef>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/explicit/loading.hpp"
#include "tremor/explicit/receivers.hpp"
#include "tremor/explicit/snapshots.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/model/model.hpp"
#include "tremor/partition/domains.hpp"

namespace tremor::explicit_fe {

struct FluidSetup;  // fluid.hpp

// A subdomain's nodes (local numbers 0..n_local_nodes()-1) as nodes of the model: local node i is
// the model's node local_to_global()[i]. DOFs are node-major (node * dim + component) on both sides.
class Numbering {
 public:
  // The identity over the model's n_nodes nodes (one subdomain in the model's numbering).
  Numbering(Index n_nodes, int dim);
  // local_to_global: distinct model node numbers in [0, n_model_nodes).
  Numbering(Index n_model_nodes, int dim, std::vector<Index> local_to_global);

  bool identity() const { return local_to_global_.empty(); }
  int dim() const { return dim_; }
  Index n_model_nodes() const { return n_model_nodes_; }
  Index n_local_nodes() const;
  Index global_node(Index local) const;
  Index local_node(Index global) const;  // -1 where the subdomain does not hold the node
  // Empty for the identity.
  const std::vector<Index>& local_to_global() const { return local_to_global_; }
  const std::vector<Index>& global_to_local() const { return global_to_local_; }

  // A local DOF vector written into the model's (at this subdomain's nodes only).
  void to_global(std::span<const double> local, std::span<double> global) const;
  // The subdomain's part of a model DOF vector.
  std::vector<double> to_local(std::span<const double> global) const;
  // A history recorded in local numbers, in the model's.
  void to_global(History& history) const;
  void to_local(History& history) const;  // every node of the history held

 private:
  Index n_model_nodes_ = 0;
  int dim_ = 3;
  std::vector<Index> local_to_global_, global_to_local_;
};

using parallel::Exchange;
using parallel::InProcessExchange;
using parallel::MpiExchange;
using parallel::NoSharedNodes;

// What one subdomain of a decomposed run holds of the model (decompose_model): its mesh in local
// numbers (local node i is the model's nodes[i]) inside a model that has the original's
// materials, sections and absorbing layers but no sets, loads or outputs; its elements' rows of
// the model's section table (absorbing layers' profiles included, computed on the whole mesh);
// the model's loading restricted to its nodes; and the points of each history it owns (a node
// belongs to the first subdomain holding it, a position to its element's subdomain).
struct ModelPart {
  Model model;
  std::vector<Index> nodes;     // the model's node of each local node
  Index n_owned = 0;            // local nodes [n_owned, nodes.size()) are shared with other parts
  std::vector<Index> shared_owned;  // those of the shared nodes it owns (the first holding them)
  std::vector<Index> elements;  // the model's element of each local element
  fem::SectionTable table;
  std::unique_ptr<Loading> loading;
  std::vector<History> histories;  // in local numbers
  // Per history above: the model's history (an index into make_histories(model, dt)) and the
  // point of it each of its points is.
  std::vector<int> history_of;
  std::vector<std::vector<Index>> history_points;
  // The snapshot nodes it takes (model.output's, in local numbers): the model's snapshot nodes it
  // owns; snapshot_points[i] is the place of its i-th in the model's list. Empty: it takes none.
  std::vector<Index> snapshot_points;
  // With fluids (add_fluid_parts, coupled_parts.hpp): its part of the fluid (fluid_part), and the
  // receivers at the fluid's points it owns, in the model's numbering, whose maps follow the
  // solid's in history_of and history_points.
  std::shared_ptr<const FluidSetup> fluid;
  std::vector<History> fluid_histories;
  // The snapshot nodes it takes that only fluid elements hold (the model's numbers), after those
  // of model.output: their places in the model's list follow theirs in snapshot_points.
  std::vector<Index> fluid_snapshot_nodes;
};

// The rows of `table` for the elements listed (per-element columns; the per-section ones kept).
fem::SectionTable table_rows(const fem::SectionTable& table, std::span<const Index> elements);

// The elements listed of `mesh` as a mesh of their own on all of its nodes (the same node numbers:
// an operator on it adds into the mesh's vectors); order[k]: the mesh's element of its element k
// (the list's order).
Mesh on_all_nodes(const Mesh& mesh, std::vector<Index> elements, std::vector<Index>& order);

// The parts of `model` for each subdomain of `decomposition` (partition::decompose of its mesh);
// `histories`: make_histories(model, dt), which the parts' points refer to.
// With `only` >= 0, only that part gets its model, table and loading (a process of a run over
// several, which steps one subdomain); every part gets its nodes and its maps of histories and
// snapshots, which the first process's merges need.
std::vector<ModelPart> decompose_model(const Model& model, const partition::Decomposition& decomposition,
                                       const std::vector<History>& histories, int only = -1);

// The model's snapshots from the nodes the subdomains take (ModelPart::snapshot_points): each
// part's values copied into the model's snapshot in place, which is passed on to `observer` once
// every part taking nodes has given its own of that step. The parts' snapshot takers call it on
// their writer threads, holding the run's observer guard (snapshots.hpp), which guards it too;
// each gives its snapshots in step order, and so the merged ones leave in step order.
class SnapshotMerge {
 public:
  SnapshotMerge(const Model& model, const std::vector<ModelPart>& parts, Observer* observer);
  // What part `part`'s snapshot taker reports to; nullptr for a part that takes no node.
  Observer* part_observer(std::size_t part);
  // Part `part`'s snapshot (its nodes' values), from its taker or from another process.
  void add(std::size_t part, const Snapshot& snapshot);
  // A checkpoint's velocity snapshot waiting for its next step: the parts' (one each, inactive
  // for those taking no node) as the model's, and back.
  PendingSample merge_pending(std::span<const PendingSample> parts) const;
  PendingSample split_pending(const PendingSample& whole, std::size_t part) const;

 private:
  struct PartObserver final : Observer {
    SnapshotMerge* merge = nullptr;
    std::size_t part = 0;
    void on_snapshot(const Snapshot& snapshot) override { merge->add(part, snapshot); }
  };
  struct Pending {
    int count = 0;
    std::vector<double> displacement, velocity, pressure;
  };

  Observer* observer_ = nullptr;
  int dim_ = 3;
  bool velocity_ = false;
  bool pressure_ = false;  // (NaN at the nodes no fluid element holds, as one domain's)
  std::size_t n_values_ = 0;  // of a snapshot's displacement
  int n_parts_ = 0;           // parts taking nodes
  std::vector<std::vector<Index>> points_;
  std::vector<PartObserver> observers_;
  std::map<long long, Pending> pending_;  // by step
};

// The model's histories from the points the subdomains record: each part's samples copied into
// the model's history in place, a sample passed on (on_sample) once every part holding points of
// it has completed it. Subdomains complete the same samples in the same order.
class HistoryMerge {
 public:
  using Callback = std::function<void(const History&, std::size_t sample)>;
  // `histories`: make_histories(model, dt), samples empty; `parts`: the decomposition's. With
  // `columns` shots stepped together each part records its histories once per shot, in turn
  // (Recorder's columns), and the merge holds the model's histories so: shot s's are
  // [s n, (s + 1) n), n = histories.size().
  HistoryMerge(std::vector<History> histories, const std::vector<ModelPart>& parts, int columns = 1);
  void set_on_sample(Callback on_sample) { on_sample_ = std::move(on_sample); }
  // Shots stepped together: each completed sample passed on with its shot's column (shot s's
  // histories are of column s).
  using ColumnCallback = std::function<void(std::size_t column, const History&, std::size_t sample)>;
  void set_on_batch_sample(ColumnCallback on_sample) { on_column_sample_ = std::move(on_sample); }
  // Part `part`'s history `k` completed its sample `sample`.
  void add(std::size_t part, std::size_t k, const History& history, std::size_t sample);
  // The same from the sample's time and values ([point][quantity][component] of the part's points).
  void add(std::size_t part, std::size_t k, double time, std::span<const double> values, std::size_t sample);
  std::vector<History> take() { return std::move(histories_); }
  // The histories with their samples so far, which it then forgets (a model's next shot).
  std::vector<History> take_samples();
  // A checkpoint's samples waiting for their next step: the parts' recorders' (Recorder::pending)
  // as the model's histories' (one per history), and back.
  std::vector<PendingSample> merge_pending(std::span<const std::vector<PendingSample>* const> parts) const;
  std::vector<PendingSample> split_pending(const std::vector<PendingSample>& whole, std::size_t part) const;

 private:
  struct Map {
    int history = 0;
    std::vector<Index> points;
  };
  std::vector<History> histories_;
  std::size_t per_shot_ = 0;             // a shot's histories (n above)
  std::vector<std::vector<Map>> maps_;   // [part][k]
  struct Staged {  // a sample not yet complete
    double time = 0.0;
    std::vector<double> values;
    int count = 0;  // parts in
  };
  std::vector<int> n_parts_;               // per history, the parts recording points of it
  std::vector<std::deque<Staged>> open_;   // per history, its samples after the complete ones
  Callback on_sample_;
  ColumnCallback on_column_sample_;
};

}  // namespace tremor::explicit_fe
