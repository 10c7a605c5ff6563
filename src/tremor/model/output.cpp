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

}  // namespace tremor
