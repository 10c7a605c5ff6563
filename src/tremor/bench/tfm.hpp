#pragma once
// `tremor bench tfm`: the total focusing method's cost (imaging/tfm.hpp) on a full-matrix capture
// made here (N elements, echoes of point scatterers): the analytic signals (host, FFTW), and on
// each backend the delay tables of a direct view and of a half-skip one (Fermat's least time by
// Newton's method for the half-skip way) and the sum over the N^2 pairs at every pixel, in
// pixel-pairs a second and in the bytes a second the sum would read if no sample came from a cache
// (two samples of an analytic A-scan and a delay a pair, 40 bytes), against the device's copy
// bandwidth; each backend's image against the first's (docs/benchmarks.md).
#include <string>
#include <vector>

namespace tremor::bench {

struct TfmArgs {
  int elements = 64;      // N
  int samples = 4000;     // per A-scan
  int pixels = 256;       // along each side of the image
  std::vector<std::string> backends;  // empty: every one usable, the host's OpenMP first
  double min_seconds = 1.0;           // each sum timed until this long, at least 3 times
  int copy_mb = 1024;
  std::string output_dir, note, commit;
};

// Throws tremor::Error naming a bad argument.
void run_tfm(const TfmArgs& args);

}  // namespace tremor::bench
