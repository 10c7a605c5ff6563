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
//
// The way out and the way back may each turn at planes parallel to the array (a Path): off the
// part's back wall (the half-skip views of the multi-mode TFM, Zhang, Drinkwater, Wilcox and
// Hunter 2010, NDT&E Int. 43, 123-133, named as arim names them: "LT-T" out as L to the back wall
// and T from it up to p, back as T) and through an interface (a wedge, a delay line, the water of
// an immersion test), each leg at its mode's speed; where a path turns is where Fermat's principle
// puts it, the time along it least.
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/imaging/fermat.hpp"
#include "tremor/imaging/maps.hpp"

namespace tremor::imaging {

// Full-matrix capture: data[(i * n + j) * n_samples + k] is sample k, at time t0 + k dt, of the
// A-scan transmitted by element i and received by element j. Times count from the instant the
// image takes a wave to leave the transmitter: a burst's centre, say, so that t0 is minus the
// time of that centre after the record's start (a wave's travel then reads the burst's peak).
struct Fmc {
  std::vector<std::array<double, 2>> elements;  // m: the elements' centres in the image's plane
  // m: each element's distance off the image's plane, horizontally (a matrix array's rows, or a
  // plane beside the array in 3D; imaging::travel_time then runs in the vertical plane through the
  // element and the pixel); empty: every element in it.
  std::vector<double> across;
  double t0 = 0.0;                              // s: the first sample's time
  double dt = 0.0;                              // s between samples
  std::size_t n_samples = 0;
  std::vector<double> data;

  std::size_t n_elements() const { return elements.size(); }
  // Refuses (tremor::Error saying which) no element, a non-finite centre or t0, `across` neither
  // empty nor one finite value an element, dt not finite and above 0, no sample, data not
  // n x n x n_samples values, or a value not finite.
  void check() const;
};

// A way from an element to a pixel: legs at speeds[0], speeds[1], ... (m/s, finite and above 0),
// leg k ending and leg k + 1 starting on the line z = planes[k] (m, in the image's coordinates:
// x along the array, z the depth). One speed and no plane: the straight way. A back wall at
// depth D is a plane the way goes down to and comes up from; an interface one it crosses.
struct Path {
  std::vector<double> speeds;
  std::vector<double> planes;  // speeds.size() - 1 of them

  // Refuses (tremor::Error) no speed, more than max_legs, a speed not finite and above 0, a plane
  // not finite, or planes not one fewer than speeds.
  void check() const;
  // As a kernel takes it (imaging/fermat.hpp); checked.
  Way way() const;
};

// The least time (s) from a to b along `path` (Fermat's principle: the turning points where the
// time is stationary, found by Newton's method on the convex time; imaging/fermat.hpp), or NaN
// where a leg would run along its plane (a or b on a plane the path turns at, with zero depth to
// cover).
double travel_time(const Path& path, const std::array<double, 2>& a, const std::array<double, 2>& b);

// The analytic signals of fmc's A-scans, real and imaginary parts apart, [transmitter][receiver]
// [sample]: on the host (FFTW), the pairs in parallel (OpenMP).
void analytic_signals(const Fmc& fmc, std::vector<double>& real, std::vector<double>& imaginary);

// The image over nx x ny pixels from `min` to `max` (m, in the elements' coordinates; a GridMap's
// order: x along the first, row by row along the second), its values I(p) unnormalised: the way
// out from transmitter i to p along `transmit`, back from p to receiver j along `receive` (written
// from the receiver: the same way walked backwards). nx, ny at least 1. The analytic signals of
// the A-scans are made once on the host (FFTW), N^2 of n_samples complex values; the delays, one
// per element and pixel of each path, and the sum over the N^2 pairs at every pixel run on `exec`
// (one kernel body for every backend; imaging/tfm_sum.hpp).
GridMap total_focusing(const Fmc& fmc, Index nx, Index ny, const std::array<double, 2>& min,
                       const std::array<double, 2>& max, const Path& transmit, const Path& receive,
                       const Exec& exec);

// The image over nx x ny pixels from `min` to `max` (m, in the elements' coordinates; a GridMap's
// order: x along the first, row by row along the second), its values I(p) unnormalised.
// c_transmit and c_receive (m/s) finite and above 0; nx, ny at least 1: the direct view, on the
// host (OpenMP).
GridMap total_focusing(const Fmc& fmc, Index nx, Index ny, const std::array<double, 2>& min,
                       const std::array<double, 2>& max, double c_transmit, double c_receive);

// The earliest and the latest time (s, the A-scans' time: the way out plus the way back) at which
// any pair of fmc's elements reaches any pixel of the image total_focusing makes of the same
// arguments, NaN where no way reaches one: the record holds the image's echoes between them.
struct Arrivals {
  double earliest = 0.0, latest = 0.0;
};
Arrivals arrivals(const Fmc& fmc, Index nx, Index ny, const std::array<double, 2>& min,
                  const std::array<double, 2>& max, const Path& transmit, const Path& receive, const Exec& exec);

// Refuses (tremor::Error, `what` first) an image of total_focusing that would show nothing: a
// value not finite, or every value 0, saying why: the capture (`less`, say " less its baseline's")
// zero; every pixel's way longer than the record, with the record's length and the run's duration
// that reaches the nearest pixels and the whole image (`fired`: the run's time of the A-scans'
// time 0, the excitation's peak; the record starts at the run's time fired + fmc.t0); or the
// capture zero where the ways reach. The arguments are total_focusing's.
void check_image_shows(const GridMap& image, const Fmc& fmc, const Path& transmit, const Path& receive,
                       const Exec& exec, double fired, const std::string& less, const std::string& what);

// Where an image can show the part: its extent in the image's coordinates (m): x along the image
// from the array's centre, the depth under the surface the array stands on, and (3D) across the
// image's plane from the array's centre; NaN where unknown (nothing checked).
struct PartExtent {
  std::array<double, 2> min{}, max{};
  double across_min = 0.0, across_max = 0.0;
};

// An image's pixels: nx x ny over [min, max] at `pixel` (m) apart, and the warnings of one partly
// outside the part.
struct ImagePlan {
  Index nx = 1, ny = 1;
  std::vector<std::string> warnings;
};

// The pixels of an image from `min` to `max` (x, depth; m) at `pixel`, in a plane `at` (m) off the
// array's centre (3D), refused (tremor::Error, `what` first, naming the option) where the image
// starts above the surface of an array in `contact` with the part (--extent), the back wall given
// (`back_wall`, m; NaN: none) lies below the part (--back-wall), the image lies wholly outside the
// part (--extent) or its plane does (--at), the pixel is larger than a side of the image (--pixel),
// or there are more than 4e7 pixels (their counts as asked); an image partly outside the part
// warned of.
ImagePlan plan_image(const PartExtent& part, const std::array<double, 2>& min, const std::array<double, 2>& max,
                     double pixel, double at, double back_wall, bool contact, const std::string& what);

}  // namespace tremor::imaging
