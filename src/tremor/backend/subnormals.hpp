#pragma once
// FlushSubnormals: while it lives, the host's threads (the one that made it and OpenMP's) treat
// subnormal floating-point values as zero, read and written (x86 MXCSR: DAZ and FTZ). A wave
// field in float decays through the subnormal range ahead of its front (below 1.2e-38, 29 orders
// under a displacement of 1e-9 m), where each x86 operation on such a value costs about a hundred
// cycles: an explicit run of examples/plate-a0-3d in float on 2 OpenMP threads took 12.2 s with
// them and 6.3 s flushed. A GPU computes on subnormals at full speed: a run there needs nothing.
// On other processors it does nothing. The threads' previous modes are restored when it ends.
namespace tremor {

class FlushSubnormals {
 public:
  explicit FlushSubnormals(bool active);
  ~FlushSubnormals();
  FlushSubnormals(const FlushSubnormals&) = delete;
  FlushSubnormals& operator=(const FlushSubnormals&) = delete;
  bool active() const { return active_; }

 private:
  bool active_ = false;  // it set the bits (they were not set already): it clears them
};

}  // namespace tremor
