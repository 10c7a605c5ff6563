#pragma once
// What a run writes besides its histories: field snapshots and how often the result file reaches
// the disk (the model file's [output] table, docs/model-file.md).
#include <string>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor {

struct OutputSettings {
  // Snapshots every `snapshot_every` steps, or every `snapshot_interval` seconds (rounded to a
  // whole number of steps, at least 1); neither: no snapshots.
  int snapshot_every = 0;
  double snapshot_interval = 0.0;
  // Fields besides the displacement, which every snapshot holds.
  bool magnitude = false;
  bool velocity = false;
  bool pressure = false;  // a fluid's (a model with fluid sections); the solid's nodes hold none
  std::string snapshot_node_set;     // empty: all nodes
  std::vector<Index> snapshot_nodes;  // the set's nodes, ascending and unique; empty: all nodes
  double flush_seconds = 5.0;        // wall time between flushes of the result file
  std::string origin;                // "file:line"

  bool snapshots() const { return snapshot_every > 0 || snapshot_interval > 0.0; }
  // Steps between snapshots at time step dt; 0 when none are asked for.
  int snapshot_steps(double dt) const;
  // Throws tremor::Error (naming origin, else `source`) for negative counts or intervals, a
  // non-positive flush_seconds, or snapshot nodes outside `mesh` or not ascending and unique.
  // Called by Model::validate.
  void check(const Mesh& mesh, const std::string& source) const;
};

}  // namespace tremor
