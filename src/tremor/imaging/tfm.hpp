#pragma once
// The total focusing method (Holmes, Drinkwater and Wilcox 2005, NDT&E Int. 38, 701-711): from a
// full-matrix capture, the N x N A-scans of an array each of whose elements fires in turn while
// all of them listen, an image focused at every pixel p by delay and sum,
//
//   I(p) = | sum_ij h_ij(|p - e_i| / c_t + |p - e_j| / c_r) |,
//
// h_ij the analytic signal of the A-scan of transmitter i and receiver j (so that |.| is the
// Hilbert envelope of the focused sum), read between its samples linearly; e_i the elements'
// centres; c_t and c_r the speeds of the wave from the transmitter to p and from p back (the
// direct modes of a homogeneous isotropic part: L-L with both longitudinal, T-T both shear, L-T
// and T-L mixed). A delay outside the record adds nothing.
#include <array>
#include <cstddef>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/imaging/maps.hpp"

namespace tremor::imaging {

// Full-matrix capture: data[(i * n + j) * n_samples + k] is sample k, at time t0 + k dt, of the
// A-scan transmitted by element i and received by element j. Times count from the instant the
// image takes a wave to leave the transmitter: a burst's centre, say, so that t0 is minus the
// time of that centre after the record's start (a wave's travel then reads the burst's peak).
struct Fmc {
  std::vector<std::array<double, 2>> elements;  // m: the elements' centres in the image's plane
  double t0 = 0.0;                              // s: the first sample's time
  double dt = 0.0;                              // s between samples
  std::size_t n_samples = 0;
  std::vector<double> data;

  std::size_t n_elements() const { return elements.size(); }
  // Refuses (tremor::Error saying which) no element, a non-finite centre or t0, dt not finite and
  // above 0, no sample, data not n x n x n_samples values, or a value not finite.
  void check() const;
};

// The image over nx x ny pixels from `min` to `max` (m, in the elements' coordinates; a GridMap's
// order: x along the first, row by row along the second), its values I(p) unnormalised.
// c_transmit and c_receive (m/s) finite and above 0; nx, ny at least 1. Pixels are computed in
// parallel (OpenMP); the analytic signals of the A-scans are made once, N^2 of n_samples complex
// values.
GridMap total_focusing(const Fmc& fmc, Index nx, Index ny, const std::array<double, 2>& min,
                       const std::array<double, 2>& max, double c_transmit, double c_receive);

}  // namespace tremor::imaging
