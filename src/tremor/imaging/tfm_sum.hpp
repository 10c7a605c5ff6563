#pragma once
// The total focusing method's work on an Exec (imaging/tfm.hpp): the delays of each element to
// each pixel along the ways out and back (Fermat's least time, imaging/fermat.hpp), and at every
// pixel the N^2 analytic A-scans read at the delays of their pairs and summed. One kernel body for
// every backend; the arrays live in the Exec's memory.
#include <array>
#include <cstddef>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/imaging/fermat.hpp"
#include "tremor/imaging/maps.hpp"

namespace tremor::imaging {

class DelayAndSum {
 public:
  // `real` and `imaginary`: the analytic signals of the n x n A-scans, [transmitter][receiver]
  // [sample], `samples` each; `first` the sample of time 0 (-t0 / dt), dt in s; `elements` the n
  // elements' centres (m) and `across` their distances off the image's plane (m; empty: none, Fmc's),
  // copied to exec's memory with them.
  DelayAndSum(const Exec& exec, std::size_t samples, double first, double dt,
              const std::vector<std::array<double, 2>>& elements, const std::vector<double>& across,
              const std::vector<double>& real, const std::vector<double>& imaginary);

  // The delays [element][pixel] (s; NaN: no way) of pixels [start, start + count) of `grid`, out
  // from each transmitter along `out` and back to each receiver along `back`, on exec.
  void delays(const Way& out, const Way& back, const GridMap& grid, Index start, Index count);
  // |sum_ij h_ij(out[i][p] + back[j][p])| at the pixels of the last delays(), into `image` (host
  // memory, count values).
  void sum(double* image);
  // The earliest and the latest of out[i][p] + back[j][p] over the pairs and pixels of the last
  // delays(), folded into `earliest` and `latest` (s; no way, NaN, skipped): on the host.
  void arrivals(double& earliest, double& latest) const;

 private:
  Exec exec_;
  Index n_, samples_;
  double first_, per_dt_;
  DeviceArray<double> x_, z_, across_, real_, imaginary_;
  DeviceArray<double> out_, back_;
  bool same_ = false;  // the ways out and back alike: back_ unused
  Index count_ = 0;
};

}  // namespace tremor::imaging
