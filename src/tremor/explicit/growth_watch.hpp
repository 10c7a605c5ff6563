#pragma once
// Motion that grows after the loads end, in a run that can only lose energy once they have (one
// with a PML): the semi-discrete C-PML has modes that grow slowly in some layers (docs/model-file.md,
// "PML"; e-folding in seconds of a run of thousands of steps), which the NaN/Inf check finds only
// once they overflow, long after the histories stopped being the model's.
//
// The time loop feeds it, at each of its checks, a norm of the state's change over one step (the
// root of the sum of squares of u_n - u_n-1: a static offset or a uniform drift left by a load does
// not grow in it). Checks are taken in blocks of `block` and each block gives its largest, so that
// a check that falls on a zero crossing of a standing wave makes no floor. The watch says
// `Growing` once, when a block's largest is `factor` times the lowest block's since the loads
// ended and the last two blocks each rose; then `Overtook` at the first check above everything
// seen before that (what the loads made): from there the run's output is the growing mode's.
#include <algorithm>
#include <cmath>
#include <limits>

namespace tremor::explicit_fe {

class GrowthWatch {
 public:
  enum class Verdict { Quiet, Growing, Overtook };

  explicit GrowthWatch(int block = 10, double factor = 1e3) : block_(block), factor_(factor) {}

  // One check at time `t` (s) of a state whose change over a step has norm `norm`; `loads_over`:
  // no load changes after t.
  Verdict observe(double t, double norm, bool loads_over) {
    if (!std::isfinite(norm)) return Verdict::Quiet;  // (the NaN/Inf check's)
    if (growing_) return norm > peak_ ? Verdict::Overtook : Verdict::Quiet;
    peak_ = std::max(peak_, norm);
    if (!loads_over) return Verdict::Quiet;
    largest_ = std::max(largest_, norm);
    if (++in_block_ < block_) return Verdict::Quiet;
    const double closed = largest_;
    in_block_ = 0;
    largest_ = 0.0;
    if (closed <= floor_) {
      floor_ = closed;
      floor_time_ = t;
      rises_ = 0;
    } else {
      rises_ = closed > last_ ? rises_ + 1 : 0;
    }
    last_ = closed;
    if (rises_ >= 2 && closed >= factor_ * floor_ && floor_ > 0.0) {
      growing_ = true;
      growth_ = closed / floor_;
      rate_ = std::log(growth_) / std::max(t - floor_time_, std::numeric_limits<double>::min());
      return Verdict::Growing;
    }
    return Verdict::Quiet;
  }

  // Once Growing: the block's largest over the floor's, when the floor was (s), the growth's rate
  // (1/s), and the largest norm up to then.
  double growth() const { return growth_; }
  double floor_time() const { return floor_time_; }
  double rate() const { return rate_; }
  double peak() const { return peak_; }

 private:
  int block_;
  double factor_;
  int in_block_ = 0, rises_ = 0;
  double largest_ = 0.0, last_ = 0.0, peak_ = 0.0;
  double floor_ = std::numeric_limits<double>::infinity(), floor_time_ = 0.0;
  bool growing_ = false;
  double growth_ = 0.0, rate_ = 0.0;
};

}  // namespace tremor::explicit_fe
