#pragma once
// Where a sem block's state at its points (its memory variables) lies in its array: what the
// kernels (operator_apply.hpp) and the state's host side (operator_state.cpp) share. Internal to sem/.
#include "tremor/core/config.hpp"

namespace tremor::sem {

// How a block's state at its points (the memory variables: operator_apply.hpp's Memory) lies in
// its array. Where the column kernel applies hexahedra of GLL order 2 and more, by groups of the elements
// a block of its threads takes (layout.hpp's ColumnLayout per_block): a value's level z of a
// group's columns in one row, point (i, j, z) of the group's element g at g n^2 + i + n j, each row
// padded to 8 values (a 32-byte sector in float, and in double a whole number of them). A warp's
// loads and stores at a level of its columns are then whole sectors; element by element its 32
// columns had met one element's 25 values of a level at any alignment and the next one's 7 (at
// order 4, 22 of each stored sector's 32 bytes used; Nsight Compute on the gll4 plate in float,
// 2026-12-05). Elsewhere element by element, value k of point p of element e at e values points +
// k points + p: the point kernel's warps take 32 points of an element in a row (in rows they met
// two rows' runs, and its attenuating step fell from 19.3 to 15.6 GDOF-steps/s).
struct PointState {
  bool grouped = false;
  int group = 1, n2 = 1, row = 0, points = 0;
  // Between one point's values.
  TREMOR_HOST_DEVICE constexpr Size stride() const { return grouped ? static_cast<Size>(points / n2) * row : points; }
  // Element e's first value, where a group holds `group_values` (per_group()).
  TREMOR_HOST_DEVICE constexpr Size element(Index e, Size group_values) const {
    return static_cast<Size>(e / group) * group_values + static_cast<Size>(grouped ? e % group * n2 : 0);
  }
  // Point p's first value, from its element's.
  TREMOR_HOST_DEVICE constexpr Size point(int p) const {
    return grouped ? static_cast<Size>(p / n2) * row + p % n2 : p;
  }
  constexpr Size groups(Index n_elements) const { return (static_cast<Size>(n_elements) + group - 1) / group; }
  // The array's size for n elements of `per_point` values a point, and its values a group.
  constexpr Size size(Index n_elements, int per_point) const { return groups(n_elements) * per_group(per_point); }
  constexpr Size per_group(int per_point) const { return static_cast<Size>(per_point) * stride(); }
  // The values a point holds, from the array's size for n elements.
  constexpr int values(Index n_elements, Size array_size) const {
    return n_elements > 0 ? static_cast<int>(array_size / size(n_elements, 1)) : 0;
  }
};

// A block's, in rows where the column kernel applies it (`rows`: hexahedra of GLL order 2 and more).
TREMOR_HOST_DEVICE constexpr PointState point_state(int dim, int order, bool rows) {
  const int n = order + 1, n2 = n * n;
  PointState s;
  s.points = dim == 3 ? n2 * n : n2;
  if (rows && dim == 3 && order >= 2) {
    s.grouped = true;
    s.n2 = n2;
    s.group = n2 >= 128 ? 1 : 128 / n2;
    s.row = (s.group * n2 + 7) / 8 * 8;
  }
  return s;
}

}  // namespace tremor::sem
