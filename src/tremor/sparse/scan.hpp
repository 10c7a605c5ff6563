#pragma once
// Exclusive prefix sum of per-item counts into offsets, on any Exec: the "count, scan, fill"
// step that turns counts known per node into compressed-row offsets (the incidence and the
// neighbour lists of the two-kernel assembly's kernel 1, two_kernel.hpp).
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"

namespace tremor::sparse {

struct ScanTotals {
  Size total = 0;     // the sum of the counts: offsets[n]
  Index largest = 0;  // the largest count (0 when n == 0)
};

// offsets[0] = 0, offsets[i + 1] = offsets[i] + counts[i] for i < n (n + 1 values written).
// counts (n values, >= 0) and offsets live in exec's memory. Returns the total and the largest
// count, on the host (so the call waits for the Exec).
ScanTotals exclusive_scan(const Exec& exec, Index n, const Index* counts, Size* offsets);

}  // namespace tremor::sparse
