#include "tremor/imaging/envelope.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <mutex>

#include "tremor/core/error.hpp"

namespace tremor::imaging {

namespace {

// FFTW's planner is not thread-safe; execution of a plan on new arrays is.
std::mutex planner;

struct Buffer {
  explicit Buffer(std::size_t n) : data(static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * n))) {
    TREMOR_CHECK(data != nullptr, "out of memory for an FFT of ", n, " points");
  }
  ~Buffer() { fftw_free(data); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  fftw_complex* data;
};

}  // namespace

struct Envelopes::Plan {
  fftw_plan forward = nullptr, backward = nullptr;
};

Envelopes::Envelopes(std::size_t length) : length_(length), plan_(std::make_unique<Plan>()) {
  TREMOR_CHECK(length >= 1, "the envelope of an empty signal");
  padded_ = 1;
  while (padded_ < 2 * length) padded_ *= 2;
  Buffer a(padded_), b(padded_);
  const std::lock_guard lock(planner);
  const int n = static_cast<int>(padded_);
  // FFTW_ESTIMATE: planned at once, without overwriting the arrays (they are scratch here).
  plan_->forward = fftw_plan_dft_1d(n, a.data, b.data, FFTW_FORWARD, FFTW_ESTIMATE);
  plan_->backward = fftw_plan_dft_1d(n, b.data, a.data, FFTW_BACKWARD, FFTW_ESTIMATE);
  TREMOR_CHECK(plan_->forward && plan_->backward, "FFTW could not plan a transform of ", padded_, " points");
}

Envelopes::~Envelopes() {
  const std::lock_guard lock(planner);
  if (plan_->forward) fftw_destroy_plan(plan_->forward);
  if (plan_->backward) fftw_destroy_plan(plan_->backward);
}

void Envelopes::analytic(std::span<const double> signal, std::span<std::complex<double>> out) const {
  TREMOR_CHECK(signal.size() == length_ && out.size() == length_, "an analytic signal of ", length_,
               " samples was given ", signal.size(), " and ", out.size());
  Buffer time(padded_), spectrum(padded_);
  for (std::size_t k = 0; k < padded_; ++k) {
    time.data[k][0] = k < length_ ? signal[k] : 0.0;
    time.data[k][1] = 0.0;
  }
  fftw_execute_dft(plan_->forward, time.data, spectrum.data);
  // The analytic signal's spectrum: DC and Nyquist kept, positive frequencies doubled, negative
  // ones removed; 1/n for the unnormalised inverse.
  const double scale = 1.0 / static_cast<double>(padded_);
  for (std::size_t k = 0; k < padded_; ++k) {
    const double factor = k == 0 || k == padded_ / 2 ? scale : k < padded_ / 2 ? 2.0 * scale : 0.0;
    spectrum.data[k][0] *= factor;
    spectrum.data[k][1] *= factor;
  }
  fftw_execute_dft(plan_->backward, spectrum.data, time.data);
  for (std::size_t k = 0; k < length_; ++k) out[k] = {time.data[k][0], time.data[k][1]};
}

void Envelopes::envelope(std::span<const double> signal, std::span<double> out) const {
  TREMOR_CHECK(signal.size() == length_ && out.size() == length_, "an envelope of ", length_, " samples was given ",
               signal.size(), " and ", out.size());
  std::vector<std::complex<double>> pair(length_);
  analytic(signal, pair);
  for (std::size_t k = 0; k < length_; ++k) out[k] = std::hypot(pair[k].real(), pair[k].imag());
}

double Envelopes::peak(std::span<const double> signal, std::size_t first, std::size_t last) const {
  std::vector<double> out(length_);
  envelope(signal, out);
  last = std::min(last, length_);
  double largest = 0.0;
  for (std::size_t k = first; k < last; ++k) largest = std::max(largest, out[k]);
  return largest;
}

std::vector<double> envelope(std::span<const double> signal) {
  std::vector<double> out(signal.size());
  if (signal.empty()) return out;
  Envelopes(signal.size()).envelope(signal, out);
  return out;
}

double excitation_peak(const Signal& signal, double delay, double dt, double horizon) {
  const double support = std::isfinite(signal.duration()) ? signal.duration() : horizon;
  const double step = std::max(dt, support / 1e7);
  const auto n = static_cast<std::size_t>(std::clamp(std::ceil(support / step) + 1.0, 2.0, 1e7 + 1.0));
  std::vector<double> values(n), magnitude(n);
  for (std::size_t k = 0; k < n; ++k) values[k] = signal.value(static_cast<double>(k) * step);
  Envelopes(n).envelope(values, magnitude);
  return delay + static_cast<double>(std::max_element(magnitude.begin(), magnitude.end()) - magnitude.begin()) * step;
}

}  // namespace tremor::imaging
