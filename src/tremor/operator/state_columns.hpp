#pragma once
// The state of a kernel that keeps some (the memory variables of attenuating sections, a PML's
// convolution variables) for shots stepped together (explicit/central_difference.hpp's columns):
// one set of arrays per shot, the live set the one the kernels read (the caller's members, as one
// shot's), the others parked here; selecting a shot swaps the arrays, not their values.
#include <utility>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"

namespace tremor::op {

template <class T>
class StateColumns {
 public:
  // `columns` sets shaped as `live`, which is shot 0's; the others at rest (zero).
  void keep(const Exec& exec, const std::vector<DeviceArray<T>>& live, int columns) {
    TREMOR_CHECK(columns >= 1, "state kept for ", columns, " shots");
    parked_.clear();
    parked_.resize(static_cast<std::size_t>(columns));
    for (int c = 1; c < columns; ++c)
      for (const DeviceArray<T>& array : live) {
        DeviceArray<T>& copy = parked_[static_cast<std::size_t>(c)].emplace_back(exec, array.size());
        fill_zero(exec, copy.data(), copy.size());
      }
    active_ = 0;
  }
  int columns() const { return parked_.empty() ? 1 : static_cast<int>(parked_.size()); }
  // `live` becomes shot `column`'s set, the one it held parked.
  void select(std::vector<DeviceArray<T>>& live, int column) {
    if (column == active_) return;
    TREMOR_CHECK(column >= 0 && column < columns(), "state of shot ", column, " of ", columns());
    parked_[static_cast<std::size_t>(active_)] = std::move(live);
    live = std::move(parked_[static_cast<std::size_t>(column)]);
    parked_[static_cast<std::size_t>(column)].clear();
    active_ = column;
  }
  // Every parked set at rest (the live one is the caller's to zero).
  void reset(const Exec& exec) {
    for (std::vector<DeviceArray<T>>& set : parked_)
      for (DeviceArray<T>& array : set) fill_zero(exec, array.data(), array.size());
  }

 private:
  std::vector<std::vector<DeviceArray<T>>> parked_;  // per shot; the live one's empty
  int active_ = 0;
};

}  // namespace tremor::op
