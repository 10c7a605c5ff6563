#include "tremor/model/output.hpp"

#include <algorithm>
#include <cmath>

#include "tremor/core/error.hpp"

namespace tremor {

int OutputSettings::snapshot_steps(double dt) const {
  TREMOR_CHECK(snapshot_every >= 0 && std::isfinite(snapshot_interval) && snapshot_interval >= 0.0, origin,
               ": snapshot_every ", snapshot_every, " and snapshot_interval ", snapshot_interval,
               " must not be negative");
  if (snapshot_every > 0) return snapshot_every;
  if (snapshot_interval <= 0.0) return 0;
  const double steps = std::round(snapshot_interval / dt);
  return steps >= 2147483647.0 ? 2147483647 : std::max(1, static_cast<int>(steps));
}

void OutputSettings::check(const Mesh& mesh, const std::string& source) const {
  const std::string& at = origin.empty() ? source : origin;
  TREMOR_CHECK(snapshot_every >= 0, at, ": [output] snapshot_every is ", snapshot_every, "; expected at least 0");
  TREMOR_CHECK(std::isfinite(snapshot_interval) && snapshot_interval >= 0.0, at, ": [output] snapshot_interval is ",
               snapshot_interval, "; expected a non-negative time");
  TREMOR_CHECK(std::isfinite(flush_seconds) && flush_seconds > 0.0, at, ": [output] flush_seconds is ",
               flush_seconds, "; expected a positive time");
  for (std::size_t i = 0; i < snapshot_nodes.size(); ++i) {
    TREMOR_CHECK(snapshot_nodes[i] >= 0 && snapshot_nodes[i] < mesh.n_nodes(), at, ": [output] snapshot node index ",
                 snapshot_nodes[i], " is outside the mesh (", mesh.n_nodes(), " nodes)");
    TREMOR_CHECK(i == 0 || snapshot_nodes[i] > snapshot_nodes[i - 1], at,
                 ": [output] snapshot nodes must be ascending and unique");
  }
}

}  // namespace tremor
