#pragma once
// The envelope of a signal: the magnitude of its analytic signal s + i H[s] (H the Hilbert
// transform), computed by FFT: the spectrum's negative frequencies removed and its positive ones
// doubled (Marple's discrete analytic signal). The signal is padded with zeros to a power of two
// of at least twice its length, so that the circular transform does not fold its end onto its
// start. This is what the multi-GPU spectral-element paper's "total displacement" takes the
// maximum of (section 5.1, after Liu et al.).
//
// Envelopes serves many signals of one length with one FFTW plan; envelope() of different
// signals may run on different threads at once (FFTW's new-array execution is thread-safe).
#include <complex>
#include <memory>
#include <span>
#include <vector>

#include "tremor/model/signal.hpp"

namespace tremor::imaging {

class Envelopes {
 public:
  explicit Envelopes(std::size_t length);
  ~Envelopes();
  Envelopes(const Envelopes&) = delete;
  Envelopes& operator=(const Envelopes&) = delete;

  std::size_t length() const { return length_; }
  // s + i H[s], the analytic signal of `signal` (length() values), into `out` (length() values).
  void analytic(std::span<const double> signal, std::span<std::complex<double>> out) const;
  // |s + i H[s]| of `signal` (length() values) into `out` (length() values).
  void envelope(std::span<const double> signal, std::span<double> out) const;
  // The largest value of the envelope over samples [first, last).
  double peak(std::span<const double> signal, std::size_t first, std::size_t last) const;

 private:
  struct Plan;
  std::size_t length_ = 0, padded_ = 0;
  std::unique_ptr<Plan> plan_;
};

// The envelope of one signal.
std::vector<double> envelope(std::span<const double> signal);

// When an excitation `signal` that starts `delay` s into a run peaks (s): the delay plus the time of
// its envelope's largest value over its whole support (Signal::duration(); one that never ends,
// over `horizon` s), sampled every `dt` s (more coarsely where that would take over 1e7 samples):
// where a burst is centred, the time a wave leaves the transmitter for an image.
double excitation_peak(const Signal& signal, double delay, double dt, double horizon);

}  // namespace tremor::imaging
