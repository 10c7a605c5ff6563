#include "tremor/sparse/scan.hpp"

#include <span>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/backend/memory.hpp"

namespace tremor::sparse {

namespace {

// Items summed by one thread. A chunk's partial sum is one host value: 256 keeps the host pass
// (1/256 of the items) small and gives 4096 threads per million items.
constexpr Index scan_chunk = 256;

}  // namespace

// Three passes, each a forall over chunks of scan_chunk items: the sum and largest count of
// each chunk; an exclusive scan of the chunk sums on the host (n / 256 values); each chunk's
// offsets from its base. Traffic per item: two 4 B count reads, one 8 B offset write; per
// chunk 8 + 4 B there and back to the host.
ScanTotals exclusive_scan(const Exec& exec, Index n, const Index* counts, Size* offsets) {
  ScanTotals totals;
  if (n <= 0) {
    const Size zero = 0;
    memory::copy(exec, offsets, exec.space(), &zero, MemorySpace::Host, sizeof(Size));
    return totals;
  }
  const Index n_chunks = (n + scan_chunk - 1) / scan_chunk;
  DeviceArray<Size> chunk_sums(exec, n_chunks);
  DeviceArray<Index> chunk_largest(exec, n_chunks);
  Size* sums = chunk_sums.data();
  Index* largest = chunk_largest.data();
  forall(exec, n_chunks, [=] TREMOR_LAMBDA(Index chunk) {
    const Size begin = static_cast<Size>(chunk) * scan_chunk;  // 64 bits: begin + 256 may pass 2^31 - 1
    const Size end = begin + scan_chunk < n ? begin + scan_chunk : n;
    Size sum = 0;
    Index most = 0;
    for (Size i = begin; i < end; ++i) {
      sum += counts[i];
      most = counts[i] > most ? counts[i] : most;
    }
    sums[chunk] = sum;
    largest[chunk] = most;
  });
  std::vector<Size> base = chunk_sums.to_host();
  const std::vector<Index> most = chunk_largest.to_host();
  for (std::size_t c = 0; c < base.size(); ++c) {
    const Size sum = base[c];
    base[c] = totals.total;
    totals.total += sum;
    totals.largest = most[c] > totals.largest ? most[c] : totals.largest;
  }
  chunk_sums.copy_from_host(std::span<const Size>(base));
  forall(exec, n_chunks, [=] TREMOR_LAMBDA(Index chunk) {
    const Size begin = static_cast<Size>(chunk) * scan_chunk;  // 64 bits: begin + 256 may pass 2^31 - 1
    const Size end = begin + scan_chunk < n ? begin + scan_chunk : n;
    Size running = sums[chunk];
    for (Size i = begin; i < end; ++i) {
      offsets[i] = running;
      running += counts[i];
    }
    if (end == n) offsets[n] = running;
  });
  return totals;
}

}  // namespace tremor::sparse
