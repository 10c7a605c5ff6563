#pragma once
// Maps over a receiver grid (the total-displacement images of the multi-GPU spectral-element
// paper, Figs. 18 and 20) and what is read from them: a reconstructed footprint by a threshold,
// its intersection over union with the true footprint, its centroid; and the map as a colour
// image with the true footprint's outline.
#include <array>
#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tremor/core/config.hpp"

namespace tremor::imaging {

// Values on an nx x ny grid of points from `min` to `max` (m): value j * nx + i at
// x = min[0] + i (max[0] - min[0]) / (nx - 1), likewise y (a receiver grid's order).
struct GridMap {
  Index nx = 0, ny = 0;
  std::array<double, 2> min{0.0, 0.0}, max{0.0, 0.0};
  std::vector<double> values;

  std::array<double, 2> point(Index p) const;
};

// How a map is made from a grid's traces (tremor image's --from, --to, --threshold, --smooth).
// check() refuses, with a tremor::Error naming the setting and its value, one that is not a number
// in its range: a NaN passes every comparison unnoticed (a window of every sample, no smoothing, a
// threshold of nothing) and would be stored with the map as if it meant something.
struct MapSettings {
  double from = 0.0;                                    // s, the window's start: finite
  double to = std::numeric_limits<double>::infinity();  // s, its end: finite, or infinity for the last sample
  double threshold_db = -6.0;                           // dB of the map's maximum: finite, at most 0
  double smooth = 0.0;                                  // m, the Gaussian's standard deviation: finite, >= 0

  void check() const;
};

// The samples [first, last) of `time` within [from, to], the bounds checked as MapSettings does;
// empty (first == last) when none lies there.
std::pair<std::size_t, std::size_t> window(std::span<const double> time, double from, double to);
// 10^(db / 20): the fraction of a map's maximum that a threshold of `db` dB is; refused unless db is
// finite and at most 0.
double threshold_fraction(double db);

// The map of the envelope peaks of nx x ny traces of n_samples samples over samples [first,
// last): read(begin, end, traces) fills traces[s * (end - begin) + p - begin] for points [begin,
// end), which are asked for in blocks so that the traces of a large grid need not all be in memory.
// Peaks of different points are computed in parallel (OpenMP).
GridMap peak_map(Index nx, Index ny, std::size_t n_samples, std::size_t first, std::size_t last,
                 const std::function<void(Index begin, Index end, std::vector<double>& traces)>& read);

// map += other point by point: the maps of one grid from several shots (the same points, refused
// otherwise), each the envelope peaks of its own traces.
void add(GridMap& map, const GridMap& other);
// Divided by its largest value (unchanged when that is 0).
void normalise(GridMap& map);
// Smoothed by a Gaussian of standard deviation `sigma` (m) along x and y, cut at 3 sigma; near the
// grid's edges the weights that fall inside are renormalised, so a constant map stays constant.
// A map's detail finer than the wave's resolution (about half a wavelength), such as a defect's
// depth varying from one element corner to the next, then no longer splits its bright region.
// sigma = 0 leaves it unchanged; a negative or non-finite sigma is refused.
void smooth(GridMap& map, double sigma);
// The points at or above `fraction` of the largest value: 1, else 0. `fraction` lies in [0, 1]
// (threshold_fraction), refused otherwise.
std::vector<unsigned char> threshold(const GridMap& map, double fraction);
// |a and b| / |a or b|; 0 when both are empty.
double intersection_over_union(std::span<const unsigned char> a, std::span<const unsigned char> b);
// The mean x, y of the points of `mask`; none when it is empty.
std::optional<std::array<double, 2>> centroid(const GridMap& grid, std::span<const unsigned char> mask);

// The map as 8-bit RGB pixels, rows from the largest y down (as seen from above), each point a
// `scale` x `scale` square, coloured by value from 0 to 1 (a perceptually uniform scale from dark
// blue through green to yellow); the points of `outline` (a mask, or empty) on the boundary of
// its region drawn white. Width nx scale, height ny scale.
std::vector<unsigned char> render(const GridMap& map, std::span<const unsigned char> outline, int scale);

}  // namespace tremor::imaging
