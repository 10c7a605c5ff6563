#include "tremor/imaging/tfm_sum.hpp"

#include <algorithm>
#include <cmath>

#include "tremor/backend/forall.hpp"

namespace tremor::imaging {

namespace {

// The sum at each pixel: one thread a pixel, its N^2 pairs in turn. Pixels side by side read their
// delays side by side ([element][pixel]) and nearby samples of one A-scan at a time.
void focus(const Exec& exec, Index pixels, Index n, Index samples, double first, double per_dt, const double* re,
           const double* im, const double* transmit, const double* receive, double* image) {
  const double last = static_cast<double>(samples - 1);
  forall(exec, pixels, [=] TREMOR_LAMBDA(Index p) {
    double sum_re = 0.0, sum_im = 0.0;
    for (Index i = 0; i < n; ++i) {
      const double out = first + transmit[static_cast<Size>(i) * pixels + p] * per_dt;
      for (Index j = 0; j < n; ++j) {
        const double s = out + receive[static_cast<Size>(j) * pixels + p] * per_dt;
        if (!(s >= 0.0 && s <= last)) continue;  // outside the record, or no way (NaN)
        const auto k = static_cast<Index>(s);
        const double w = s - static_cast<double>(k);
        const Size at = (static_cast<Size>(i) * n + j) * samples + k;
        if (w == 0.0) {
          sum_re += re[at];
          sum_im += im[at];
        } else {
          sum_re += (1.0 - w) * re[at] + w * re[at + 1];
          sum_im += (1.0 - w) * im[at] + w * im[at + 1];
        }
      }
    }
    image[p] = std::sqrt(sum_re * sum_re + sum_im * sum_im);
  });
}

}  // namespace

DelayAndSum::DelayAndSum(const Exec& exec, std::size_t n, std::size_t samples, double first, double dt,
                         const std::vector<double>& real, const std::vector<double>& imaginary)
    : exec_(exec),
      n_(static_cast<Index>(n)),
      samples_(static_cast<Index>(samples)),
      first_(first),
      per_dt_(1.0 / dt),
      real_(exec, std::span<const double>(real)),
      imaginary_(exec, std::span<const double>(imaginary)) {}

void DelayAndSum::operator()(std::span<const double> transmit, std::span<const double> receive, Index pixels,
                             double* image) {
  if (exec_.space() == MemorySpace::Host) {
    focus(exec_, pixels, n_, samples_, first_, per_dt_, real_.data(), imaginary_.data(), transmit.data(),
          receive.data(), image);
    return;
  }
  const DeviceArray<double> out_delays(exec_, transmit);
  const DeviceArray<double> back_delays(exec_, receive);
  DeviceArray<double> out(exec_, pixels);
  focus(exec_, pixels, n_, samples_, first_, per_dt_, real_.data(), imaginary_.data(), out_delays.data(),
        back_delays.data(), out.data());
  const std::vector<double> values = out.to_host();
  std::copy(values.begin(), values.end(), image);
}

}  // namespace tremor::imaging
