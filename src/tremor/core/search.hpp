#pragma once
// Bisection in sorted arrays, for host and device code alike (std::lower_bound is host only).
#include "tremor/core/config.hpp"

namespace tremor {

// The first position in the sorted list[begin, end) whose value is not less than `value` (end
// when all are less): std::lower_bound on indices.
template <class T, class I>
TREMOR_HOST_DEVICE inline I lower_bound(const T* list, I begin, I end, T value) {
  while (begin < end) {
    const I middle = begin + (end - begin) / 2;
    if (list[middle] < value)
      begin = middle + 1;
    else
      end = middle;
  }
  return begin;
}

// The last position in the sorted list[begin, end) whose value is not greater than `value`, begin
// when none is (list[begin] is then the nearest from above): where an item starting at `value`
// lies in a list of ranges given by their first items.
template <class T, class I>
TREMOR_HOST_DEVICE inline I last_not_greater(const T* list, I begin, I end, T value) {
  I low = begin, high = end;  // list[low] <= value, or low == begin; list[high..end) > value
  while (high - low > 1) {
    const I middle = low + (high - low) / 2;
    if (list[middle] <= value)
      low = middle;
    else
      high = middle;
  }
  return low;
}

}  // namespace tremor
