#pragma once
// The total focusing method's sum (imaging/tfm.hpp), the part that runs on an Exec: at every pixel,
// the N^2 analytic A-scans read at the delays of their pairs and summed.
#include <cstddef>
#include <span>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"

namespace tremor::imaging {

// The A-scans' analytic signals on an Exec's memory, once, and the sum over them at pixels.
class DelayAndSum {
 public:
  // `real` and `imaginary`: the analytic signals of the n x n A-scans, [transmitter][receiver]
  // [sample], `samples` each; `first` the sample of time 0 (-t0 / dt), dt in s.
  DelayAndSum(const Exec& exec, std::size_t n, std::size_t samples, double first, double dt,
              const std::vector<double>& real, const std::vector<double>& imaginary);

  // image[p] = |sum_ij h_ij(transmit[i][p] + receive[j][p])| for `pixels` pixels, the delays
  // [element][pixel] in s (NaN: no way); image on the host.
  void operator()(std::span<const double> transmit, std::span<const double> receive, Index pixels, double* image);

 private:
  Exec exec_;
  Index n_, samples_;
  double first_, per_dt_;
  DeviceArray<double> real_, imaginary_;
};

}  // namespace tremor::imaging
